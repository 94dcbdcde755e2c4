// SPDX-License-Identifier: GPL-2.0
/* Model: exit->entry pairing per thread, unmatched counts, the ring of recent exits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"

static struct kvm_event ev(enum kvm_event_kind kind, uint64_t t, int tid, int reason_id, uint64_t ip)
{
	struct kvm_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.time = t;
	e.tid = tid;
	e.cpu = tid % 2;
	e.vcpu_id = KVM_VCPU_NONE;
	e.reason_id = reason_id;
	e.ip = ip;
	e.other = -1;
	e.sub = -1;
	return e;
}

static void feed(struct model *m, struct kvm_event e)
{
	assert_int_equal(model_feed(m, &e), 0);
}

static void test_pairs_unmatched_and_ring(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu key = { .tid = 7 }, *v;
	int hlt, io;

	names_init(&nm);
	hlt = reason_intern(&nm.reasons, ISA_VMX, 12, 0, "HLT", NULL, true, false);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 3, NULL, NULL);
	assert_non_null(m);

	feed(m, ev(KVM_EV_ENTRY, 50, 7, -1, 0));	/* entry with no exit */
	feed(m, ev(KVM_EV_EXIT, 100, 7, io, 0x1000));
	feed(m, ev(KVM_EV_EXIT, 110, 8, hlt, 0x2000));	/* another thread between */
	feed(m, ev(KVM_EV_ENTRY, 130, 7, -1, 0));	/* io: 30 */
	feed(m, ev(KVM_EV_EXIT, 200, 7, io, 0x1004));	/* followed by an exit: unmatched */
	feed(m, ev(KVM_EV_EXIT, 300, 7, hlt, 0x1008));
	feed(m, ev(KVM_EV_ENTRY, 1300, 7, -1, 0));	/* hlt: 1000 */
	feed(m, ev(KVM_EV_EXIT, 1400, 7, io, 0x100c));	/* pending at the end */
	model_finish(m);

	v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	assert_non_null(v);
	assert_int_equal(v->exits.total, 4);
	assert_int_equal(v->unmatched_entries.total, 1);
	assert_int_equal(v->unmatched_exits.total, 2);
	assert_int_equal(v->rs[io]->count.total, 3);
	assert_int_equal(v->rs[io]->lat.samples, 1);
	assert_int_equal(v->rs[io]->lat.min, 30);
	assert_int_equal(v->rs[hlt]->lat.max, 1000);

	/* ring of 3: the last three exits, oldest overwritten, latencies filled */
	assert_int_equal(v->ring_count, 4);
	assert_int_equal(v->ring_head, 1);
	assert_int_equal(v->ring[0].time, 1400);	/* newest, wrapped into slot 0 */
	assert_int_equal(v->ring[0].latency, MODEL_LAT_NONE);
	assert_int_equal(v->ring[1].time, 200);
	assert_int_equal(v->ring[1].latency, MODEL_LAT_NONE);
	assert_int_equal(v->ring[2].time, 300);
	assert_int_equal(v->ring[2].latency, 1000);
	assert_int_equal(v->ring[2].reason_id, hlt);
	assert_int_equal(v->ring[2].ip, 0x1008);

	/* an interval boundary: interval counts restart, totals stay */
	assert_int_equal(model_interval_end(m, 2000), 0);
	assert_int_equal(ctr_interval(&v->exits), 0);
	assert_int_equal(v->exits.total, 4);
	assert_int_equal(v->rs[hlt]->lat.samples, 0);
	assert_int_equal(v->rs[hlt]->lat_done.samples, 1);
	model_free(m);
	names_free(&nm);
}

static void test_thread_cap_drops_and_counts(void **state)
{
	struct kvm_names nm;
	struct model *m;
	int id, tid;

	names_init(&nm);
	id = reason_intern(&nm.reasons, ISA_SVM, 0x7c, 0, "msr", NULL, false, false);
	m = model_new(&nm, 0, NULL, NULL);
	assert_non_null(m);
	m->max_vcpus = 10;
	for (tid = 1; tid <= 15; tid++)
		feed(m, ev(KVM_EV_EXIT, tid, tid, id, 0));
	assert_int_equal(m->nr_vcpus, 10);
	assert_int_equal(m->dropped.total, 5);
	assert_int_equal(m->exits.total, 10);
	model_free(m);
	names_free(&nm);
}

/* The interval ends and the screen's reset touch every counter: none is forgotten. */
static void test_interval_end_and_reset(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu key = { .tid = 7 }, *v;
	struct kvm_event o;
	int io;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	nm.nr_other = 1;
	m = model_new(&nm, 4, NULL, NULL);
	assert_non_null(m);
	feed(m, ev(KVM_EV_EXIT, 100, 7, io, 0x1000));
	feed(m, ev(KVM_EV_ENTRY, 130, 7, -1, 0));
	o = ev(KVM_EV_OTHER, 140, 7, -1, 0);
	o.other = 0;
	o.sub = 2;
	feed(m, o);
	model_lost(m, 3);
	v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	assert_non_null(v);

	assert_int_equal(model_interval_end(m, 200), 0);
	assert_int_equal(ctr_interval(&v->exits), 0);
	assert_int_equal(ctr_interval(&v->rs[io]->count), 0);
	assert_int_equal(ctr_interval(&v->other[0]), 0);
	assert_int_equal(ctr_interval(&v->uexit[2]), 0);
	assert_int_equal(ctr_interval(&m->lost_events), 0);
	assert_int_equal(v->exits.total, 1);
	assert_int_equal(v->rs[io]->lat_done.samples, 1);
	assert_int_equal(v->rs[io]->lat.samples, 0);
	assert_int_equal(m->interval_start, 200);

	feed(m, ev(KVM_EV_EXIT, 300, 7, io, 0x1004));
	model_reset(m, 400);
	assert_int_equal(v->exits.total, 0);
	assert_int_equal(v->rs[io]->count.total, 0);
	assert_int_equal(v->rs[io]->lat_done.samples, 0);
	assert_int_equal(v->other[0].total, 0);
	assert_int_equal(v->uexit[2].total, 0);
	assert_int_equal(m->exits.total, 0);
	assert_int_equal(m->events.total, 0);
	assert_int_equal(m->lost_events.total, 0);
	assert_int_equal(v->ring_count, 0);
	assert_false(v->pending);
	assert_int_equal(m->first_time, 400);
	/* the vCPU stays, and counts again */
	feed(m, ev(KVM_EV_ENTRY, 410, 7, -1, 0));
	assert_int_equal(v->unmatched_entries.total, 1);
	model_free(m);
	names_free(&nm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_unmatched_and_ring),
		cmocka_unit_test(test_thread_cap_drops_and_counts),
		cmocka_unit_test(test_interval_end_and_reset),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
