// SPDX-License-Identifier: GPL-2.0
/* Model: exit->entry pairing per thread, unmatched counts, the ring of recent exits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"
#include "model/model_scope.h"
#include "model/model_feed.h"
#include "model/model_view.h"
#include "model/model_time.h"
#include "model/model_steal.h"

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

/* e, held in *at: its address, for calls that take one */
static const struct kvm_event *ptr(struct kvm_event *at, struct kvm_event e)
{
	*at = e;
	return at;
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

/*
 * The bpf source's sampled exits (model_agg_sample): each in the ring with
 * its latency and object, and its IP counted for the exits it stands for,
 * time samples for an asynchronous exit, exit sites for the rest; one
 * without an IP among the "none".
 */
static void test_agg_samples(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu key = { .tid = 9 }, *v;
	struct kvm_event e;
	int io, intr;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	intr = reason_intern(&nm.reasons, ISA_VMX, 1, 0, "EXTERNAL_INTERRUPT", NULL, false, true);
	m = model_new(&nm, 4, NULL, NULL);
	assert_non_null(m);
	m->ip_slots = 16;
	m->max_objs = 8;

	e = ev(KVM_EV_EXIT, 100, 9, io, 0x1000);
	e.obj_kind = KVM_OBJ_PORT;
	e.obj = 0x70;
	e.obj_size = 1;
	assert_int_equal(model_agg_sample(m, 9, &e, 250, 7), 0);
	assert_int_equal(model_agg_sample(m, 9, ptr(&e, ev(KVM_EV_EXIT, 200, 9, io, 0x1000)), MODEL_LAT_NONE, 5), 0);
	assert_int_equal(model_agg_sample(m, 9, ptr(&e, ev(KVM_EV_EXIT, 300, 9, intr, 0x2000)), 40, 3), 0);
	assert_int_equal(model_agg_sample(m, 9, ptr(&e, ev(KVM_EV_EXIT, 400, 9, io, 0)), 10, 2), 0);

	v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	assert_non_null(v);
	/* the exits themselves are counted apart (model_agg_exits): none here */
	assert_int_equal(v->exits.total, 0);
	assert_int_equal(v->ring_count, 4);
	assert_int_equal(v->ring[0].time, 100);
	assert_int_equal(v->ring[0].latency, 250);
	assert_int_equal(v->ring[0].obj_kind, KVM_OBJ_PORT);
	assert_int_equal(v->ring[0].obj, 0x70);
	assert_int_equal(v->ring[1].latency, MODEL_LAT_NONE);
	assert_int_equal(v->ring[2].reason_id, intr);
	assert_non_null(v->ips[IP_EXIT]);
	assert_non_null(v->ips[IP_TIME]);
	assert_int_equal(v->ips[IP_EXIT]->samples, 12);
	assert_int_equal(v->ips[IP_EXIT]->nr, 1);
	assert_int_equal(v->ips[IP_EXIT]->e[0].count, 12);
	assert_int_equal(v->ips[IP_TIME]->samples, 3);
	assert_int_equal(v->ips[IP_TIME]->e[0].ip, 0x2000);
	assert_int_equal(v->no_ip, 2);
	/* the port's site: the 7 exits its sample stood for, from its IP */
	assert_non_null(v->objs);
	assert_int_equal(v->objs->nr, 1);
	assert_int_equal(v->objs->o[0].site[0].ip, 0x1000);
	assert_int_equal(v->objs->o[0].site[0].n.total, 7);
	model_free(m);
	names_free(&nm);
}

/*
 * The bpf source's time states and splits (model_agg_time, model_agg_split):
 * added to the vCPU's own counters interval by interval, a VMM thread's
 * and an unknown thread's left out.
 */
static void test_agg_time_split(void **state)
{
	static const uint64_t a[VS_NR] = { 100, 200, 300, 400, 500 }, b[VS_NR] = { 1, 2, 3, 4, 5 };
	struct kvm_names nm;
	struct model *m;
	struct vcpu key = { .tid = 11 }, *v;
	struct hist h;
	int io, st;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 0, NULL, NULL);
	assert_non_null(m);
	assert_int_equal(model_agg_exits(m, 11, 0, io, 3), 0);
	/* no ident: the row has no name; the programs' name fills it, once */
	assert_int_equal(model_agg_time(m, 11, a), 0);
	assert_int_equal(model_agg_time(m, 11, b), 0);
	model_agg_name(m, 11, "CPU 0/KVM");
	model_agg_name(m, 11, "other");
	model_agg_name(m, 12, "none");		/* no row: nothing made */
	assert_int_equal(model_agg_time(m, 12, a), 0);		/* no row: nothing made */
	v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	assert_non_null(v);
	assert_string_equal(v->comm, "CPU 0/KVM");
	for (st = 0; st < VS_NR; st++)
		assert_int_equal(v->time[st].total, a[st] + b[st]);
	key.tid = 12;
	assert_null(RB_FIND(vcpu_tree, &m->vcpus, &key));

	hist_init(&h);
	assert_int_equal(hist_add(&h, 40), 0);
	assert_int_equal(hist_add(&h, 60), 0);
	assert_int_equal(model_agg_split(m, 11, 0, io, &h, 7, 9), 0);
	assert_int_equal(model_agg_split(m, 11, 0, io, &h, 1, 1), 0);
	assert_non_null(v->rs[io]->split);
	assert_int_equal(v->rs[io]->split->handling.samples, 4);
	assert_int_equal(v->rs[io]->split->preempted.total, 8);
	assert_int_equal(v->rs[io]->split->blocked.total, 10);
	hist_free(&h);

	/* who ran while it waited: a thief by name, and what no one is known for in "other" */
	m->max_thieves = 5;
	assert_int_equal(model_agg_steal(m, 11, 77, "hog", 500), 0);
	assert_int_equal(model_agg_steal(m, 11, 77, "hog", 20), 0);
	assert_int_equal(model_agg_steal(m, 11, -1, "", 30), 0);
	assert_int_equal(model_agg_steal(m, 12, 77, "hog", 500), 0);	/* no row: nothing */
	assert_non_null(v->steal);
	assert_int_equal(v->steal->ns, 550);
	assert_int_equal(v->steal->rest, 30);
	assert_int_equal(v->steal->nr, 1);
	assert_int_equal(v->steal->t[0].tid, 77);
	assert_int_equal(v->steal->t[0].ns, 520);
	assert_string_equal(v->steal->t[0].comm, "hog");
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

/*
 * A ring starts small and doubles up to ring_size as exits come; the
 * exits it holds are always the last ring_size, oldest at the slot
 * after the newest once it wraps.
 */
static void test_ring_grows(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu key = { .tid = 9 }, *v;
	int io, i;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 20, NULL, NULL);
	assert_non_null(m);
	feed(m, ev(KVM_EV_ENTRY, 1, 9, -1, 0));
	v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	assert_non_null(v);
	assert_null(v->ring);			/* no exit yet: no ring */
	for (i = 1; i <= 30; i++) {
		feed(m, ev(KVM_EV_EXIT, 100 * i, 9, io, 0x1000 + i));
		feed(m, ev(KVM_EV_ENTRY, 100 * i + i, 9, -1, 0));
		if (i == MODEL_RING_FIRST)
			assert_int_equal(v->ring_alloc, MODEL_RING_FIRST);
		if (i == MODEL_RING_FIRST + 1)
			assert_int_equal(v->ring_alloc, 2 * MODEL_RING_FIRST);
	}
	assert_int_equal(v->ring_alloc, 20);
	assert_int_equal(v->ring_count, 30);
	/* exits 11 .. 30: exit i in slot (i - 1) % 20, with its latency i */
	for (i = 11; i <= 30; i++) {
		const struct exit_rec *r = &v->ring[(i - 1) % 20];

		assert_int_equal(r->time, 100 * i);
		assert_int_equal(r->latency, i);
		assert_int_equal(r->ip, 0x1000 + i);
	}
	assert_int_equal(v->ring_head, 30 % 20);
	model_free(m);
	names_free(&nm);
}

/*
 * Only the vCPUs that changed are walked at an interval's end: one that
 * had no event in an interval keeps its totals, and its interval figures
 * are 0; one that had keeps its latencies in the cumulative histogram.
 */
static void test_interval_walks_changed(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu k1 = { .tid = 1 }, k2 = { .tid = 2 }, *a, *b;
	int io;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 4, NULL, NULL);
	assert_non_null(m);
	feed(m, ev(KVM_EV_EXIT, 10, 1, io, 0));
	feed(m, ev(KVM_EV_ENTRY, 15, 1, -1, 0));
	feed(m, ev(KVM_EV_EXIT, 20, 2, io, 0));
	feed(m, ev(KVM_EV_ENTRY, 27, 2, -1, 0));
	a = RB_FIND(vcpu_tree, &m->vcpus, &k1);
	b = RB_FIND(vcpu_tree, &m->vcpus, &k2);
	assert_true(a->dirty && b->dirty);
	assert_int_equal(model_interval_end(m, 100), 0);
	assert_false(a->dirty || b->dirty);
	assert_true(TAILQ_EMPTY(&m->dirty));
	/* interval 2: only thread 2 */
	feed(m, ev(KVM_EV_EXIT, 120, 2, io, 0));
	feed(m, ev(KVM_EV_ENTRY, 129, 2, -1, 0));
	assert_true(!a->dirty && b->dirty);
	assert_int_equal(ctr_interval(&a->exits), 0);
	assert_int_equal(ctr_interval(&b->exits), 1);
	assert_int_equal(model_interval_end(m, 200), 0);
	assert_int_equal(ctr_interval(&b->exits), 0);
	assert_int_equal(b->exits.total, 2);
	assert_int_equal(b->rs[io]->lat_done.samples, 2);
	assert_int_equal(b->rs[io]->lat_done.max, 9);
	assert_int_equal(b->rs[io]->lat.samples, 0);
	assert_int_equal(a->exits.total, 1);
	assert_int_equal(a->rs[io]->lat_done.samples, 1);
	/* interval 3: thread 1 again */
	feed(m, ev(KVM_EV_EXIT, 210, 1, io, 0));
	assert_int_equal(ctr_interval(&a->exits), 1);
	assert_int_equal(ctr_interval(&a->rs[io]->count), 1);
	model_free(m);
	names_free(&nm);
}

/* Thread 1024 i + 7 is of VM (pid) i % 4 + 1. */
static void ident_by_rest(void *ctx, int tid, struct ident_info *out)
{
	out->pid = tid / 1024 % 4 + 1;
}

static bool odd_pid_alive(void *ctx, int pid)
{
	return pid % 2;
}

/*
 * vCPUs are found by tid in a hash table that grows and loses the VMs
 * that end.  Tids 1024 i + 7 all want one slot of the first table (1,024
 * slots: its index is the tid's low bits, scrambled), so they form one
 * long chain; the threads of VMs that end leave gaps in it.  Every
 * thread left must still be found (feeding it makes no new vCPU), and
 * the ended ones come back as new.
 */
static void test_tid_table(void **state)
{
	enum { N = 400 };
	struct kvm_names nm;
	struct model *m;
	int io, i, left = 0;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 0, ident_by_rest, NULL);
	assert_non_null(m);
	m->live = true;
	for (i = 1; i <= N; i++)
		feed(m, ev(KVM_EV_EXIT, i, 1024 * i + 7, io, 0));
	assert_int_equal(m->nr_vcpus, N);
	assert_int_equal(m->by_tid_mask + 1, 1024);
	assert_int_equal(model_reap(m, odd_pid_alive, NULL, 10), 0);	/* marks the even pids' VMs exited */
	assert_int_equal(model_interval_end(m, 10), 0);		/* ... shown so in the interval that ends */
	assert_int_equal(model_reap(m, odd_pid_alive, NULL, 20), 0);	/* removes them */
	for (i = 1; i <= N; i++) {
		struct vcpu key = { .tid = 1024 * i + 7 }, *v = RB_FIND(vcpu_tree, &m->vcpus, &key);

		assert_int_equal(v != NULL, (i % 4 + 1) % 2);
		left += v != NULL;
	}
	assert_int_equal(m->nr_vcpus, left);
	for (i = 1; i <= N; i++)
		if ((i % 4 + 1) % 2)
			feed(m, ev(KVM_EV_EXIT, 1000 + i, 1024 * i + 7, io, 0));
	assert_int_equal(m->nr_vcpus, left);	/* each found, none made again */
	for (i = 1; i <= N; i++)
		if (!((i % 4 + 1) % 2))
			feed(m, ev(KVM_EV_EXIT, 2000 + i, 1024 * i + 7, io, 0));
	assert_int_equal(m->nr_vcpus, N);	/* the ended threads' tids come back as new */
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

static const uint64_t S = 1000000000ull;	/* one second in ns */

static struct proc_times pt(uint64_t run, uint64_t wait, uint64_t u, uint64_t s, uint64_t g)
{
	struct proc_times t = { .run_ns = run, .wait_ns = wait, .utime = u, .stime = s, .gtime = g };

	return t;
}

/* The vCPU scope's figure of each state, -1 where it has none. */
static void expect_states(struct model *m, struct vcpu *v, long long guest, long long host,
			  long long vmm, long long halt, long long wait)
{
	const long long want[VS_NR] = { guest, host, vmm, halt, wait };
	struct model_scope sc;
	int j;

	assert_int_equal(model_scope_vcpu(&sc, m, v, false), 0);
	for (j = 0; j < VS_NR; j++) {
		if (want[j] < 0) {
			assert_false(sc.time_known & (1u << j));
			continue;
		}
		assert_true(sc.time_known & (1u << j));
		assert_int_equal(sc.time[j], want[j]);
	}
	model_scope_free(&sc);
}

/*
 * A model with /proc time on, exits traced (entries: with entries too),
 * and thread 7 seen at an IO exit at time t: its vCPU in *v.
 */
static struct model *proc_model(struct kvm_names *nm, bool entries, uint64_t t, struct vcpu **v)
{
	struct vcpu key = { .tid = 7 };
	struct model *m;
	int io;

	names_init(nm);
	nm->entries = entries;
	io = reason_intern(&nm->reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(nm, 4, NULL, NULL);
	assert_non_null(m);
	m->proc_time = true;
	feed(m, ev(KVM_EV_EXIT, t, 7, io, 0));
	*v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	assert_non_null(*v);
	return m;
}

/*
 * /proc's accounting, without exits traced: between two readings the
 * time on a CPU and waiting for one are schedstat's, the rest of the
 * wall time is halt, and the time on a CPU is split by the ticks:
 * guest_time : utime - guest_time : stime.  Worked by hand below.
 */
static void test_proc_times(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu *v;
	struct proc_times t;

	(void)state;
	m = proc_model(&nm, false, 10, &v);
	assert_string_equal(model_time_source(m, VS_GUEST), "proc");
	assert_string_equal(model_time_source(m, VS_WAIT), "proc");

	/* one reading is no figure: absent, not 0 */
	t = pt(5 * S / 10, S / 10, 10, 5, 8);
	model_time_proc(m, v, &t, 1 * S);
	expect_states(m, v, -1, -1, -1, -1, -1);
	assert_int_equal(model_interval_end(m, 1 * S), 0);

	/* 1 s: 0.6 s on a CPU, 0.2 s waiting; ticks 40 user (30 guest), 20 system */
	t = pt(11 * S / 10, 3 * S / 10, 50, 25, 38);
	model_time_proc(m, v, &t, 2 * S);
	expect_states(m, v, 3 * S / 10, 2 * S / 10, 1 * S / 10, 2 * S / 10, 2 * S / 10);
	assert_int_equal(model_interval_end(m, 2 * S), 0);

	/* no tick fell: the time on a CPU is host's; the scheduler's clock ran ahead of the span */
	t = pt(11 * S / 10 + 3 * S / 10, 3 * S / 10 + 9 * S / 10, 50, 25, 38);
	model_time_proc(m, v, &t, 3 * S);
	expect_states(m, v, 0, 3 * S / 10, 0, 0, 7 * S / 10);
	assert_int_equal(model_interval_end(m, 3 * S), 0);

	/* the tid is another thread now (its counts went back): a new start, no figure */
	t = pt(1000, 0, 1, 0, 0);
	model_time_proc(m, v, &t, 4 * S);
	expect_states(m, v, 0, 0, 0, 0, 0);

	/* since start: the sums of the intervals */
	{
		struct model_scope sc;

		assert_int_equal(model_scope_vcpu(&sc, m, v, true), 0);
		assert_int_equal(sc.time[VS_GUEST], 3 * S / 10);
		assert_int_equal(sc.time[VS_HOST], 5 * S / 10);
		assert_int_equal(sc.time[VS_WAIT], 9 * S / 10);
		assert_int_equal(sc.time[VS_HALT], 2 * S / 10);
		model_scope_free(&sc);
	}
	model_free(m);
	names_free(&nm);
}

/*
 * Exits and entries traced, no sched events: guest time is the events'
 * (exact), the rest of schedstat's time on a CPU is split by the ticks
 * between vmm and host; with sched events /proc is not used at all.
 */
static void test_proc_times_with_trace(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu *v;
	struct proc_times t;
	int io;

	(void)state;
	m = proc_model(&nm, true, S / 2, &v);
	io = v->pending_reason;
	t = pt(S, S, 100, 100, 50);
	model_time_proc(m, v, &t, 1 * S);
	assert_int_equal(model_interval_end(m, 1 * S), 0);

	/* in the guest 1.1 s to 1.4 s by the events */
	feed(m, ev(KVM_EV_ENTRY, 11 * S / 10, 7, -1, 0));
	feed(m, ev(KVM_EV_EXIT, 14 * S / 10, 7, io, 0));
	model_time_to(m, 2 * S);
	/* 0.6 s on a CPU, 0.1 s waiting; ticks: 40 user of which 30 guest, 20 system */
	t = pt(S + 6 * S / 10, S + S / 10, 140, 120, 80);
	model_time_proc(m, v, &t, 2 * S);
	expect_states(m, v, 3 * S / 10, 2 * S / 10, 1 * S / 10, 3 * S / 10, 1 * S / 10);
	assert_string_equal(model_time_source(m, VS_GUEST), "trace");
	assert_string_equal(model_time_source(m, VS_VMM), "proc");
	assert_string_equal(model_time_source(m, VS_HALT), "proc");
	assert_false(model_time_known(m) & TIME_SPLIT);

	/* sched events traced: every state is the events', whatever /proc says */
	nm.sched = true;
	assert_string_equal(model_time_source(m, VS_HALT), "trace");
	assert_true(model_time_known(m) & TIME_SPLIT);
	assert_ptr_equal(model_time_ctr(m, v, VS_WAIT), &v->time[VS_WAIT]);
	/* and replay (no /proc) keeps the events' guest and vmm only */
	nm.sched = false;
	m->proc_time = false;
	assert_null(model_time_source(m, VS_HALT));
	assert_string_equal(model_time_source(m, VS_GUEST), "trace");
	model_free(m);
	names_free(&nm);
}

static struct group_thread *threads(size_t n, const struct group_thread *src)
{
	struct group_thread *g = calloc(n ? n : 1, sizeof(*g));

	assert_non_null(g);
	memcpy(g, src, n * sizeof(*g));
	return g;
}

/*
 * A VM's emulator threads read at each snapshot: the time of the threads
 * in both readings is summed, a thread new in the second starts there,
 * one gone adds nothing, a reused tid (counts went back) starts again.
 */
static void test_thread_groups(void **state)
{
	const struct group_thread r1[] = { { 10, 100, 10 }, { 11, 500, 50 }, { 12, 7, 7 } };
	const struct group_thread r2[] = { { 10, 400, 30 }, { 12, 1, 1 }, { 13, 9000, 900 } };
	const struct group_thread r3[] = { { 10, 1400, 130 }, { 13, 9500, 950 } };
	struct kvm_names nm;
	struct model *m;
	struct vcpu *v;
	struct vm *vm;

	(void)state;
	m = proc_model(&nm, false, 10, &v);
	vm = v->vm;

	model_group_read(vm, TG_EMULATOR, threads(3, r1), 3);
	assert_false(vm->groups[TG_EMULATOR].known);
	assert_int_equal(model_group_ns(vm, TG_EMULATOR, false, false), 0);
	assert_int_equal(model_interval_end(m, 100), 0);

	model_group_read(vm, TG_EMULATOR, threads(3, r2), 3);
	assert_true(vm->groups[TG_EMULATOR].known);
	assert_int_equal(vm->groups[TG_EMULATOR].count, 3);
	/* only tid 10 is in both as the same thread: 300 run, 20 waiting */
	assert_int_equal(model_group_ns(vm, TG_EMULATOR, false, false), 300);
	assert_int_equal(model_group_ns(vm, TG_EMULATOR, true, false), 20);
	assert_int_equal(model_interval_end(m, 200), 0);

	model_group_read(vm, TG_EMULATOR, threads(2, r3), 2);
	assert_int_equal(model_group_ns(vm, TG_EMULATOR, false, false), 1000 + 500);
	assert_int_equal(model_group_ns(vm, TG_EMULATOR, true, false), 100 + 50);
	assert_int_equal(model_group_ns(vm, TG_EMULATOR, false, true), 300 + 1500);
	assert_int_equal(vm->groups[TG_EMULATOR].count, 2);
	/* a group never read stays unknown */
	assert_false(vm->groups[TG_VHOST].known);
	/* an empty group read twice is known, and 0 */
	model_group_read(vm, TG_VHOST, NULL, 0);
	model_group_read(vm, TG_VHOST, NULL, 0);
	assert_true(vm->groups[TG_VHOST].known);
	assert_int_equal(vm->groups[TG_VHOST].count, 0);
	model_free(m);
	names_free(&nm);
}

/* Both threads are one VM's (pid 100): the VMM's main thread and its vCPU 0. */
static void one_vm(void *ctx, int tid, struct ident_info *out)
{
	(void)ctx;
	out->pid = 100;
	strlcpy(out->vm_name, "vm", sizeof(out->vm_name));
	strlcpy(out->comm, tid == 100 ? "qemu" : "CPU 0/KVM", sizeof(out->comm));
}

/*
 * The VMM's main thread raises KVM events outside KVM_RUN (creating the
 * vCPUs: kvm_write_tsc_offset, kvm_update_master_clock): no vCPU row, no
 * time states, not in the sched filter; its events are its VM's.  Its
 * first exit or entry makes it a vCPU.
 */
static void test_vmm_thread_no_vcpu_row(void **state)
{
	struct kvm_event e, sw;
	struct model_scope sc;
	struct kvm_names nm;
	struct model *m;
	struct vcpu key = { .tid = 100 }, *v;
	unsigned long gen;
	struct vm *vm;
	int io;

	(void)state;
	names_init(&nm);
	nm.nr_other = 1;
	io = reason_intern(&nm.reasons, ISA_SVM, 0x7b, 0, "io", NULL, false, false);
	m = model_new(&nm, 8, one_vm, NULL);
	assert_non_null(m);

	e = ev(KVM_EV_OTHER, 10, 100, -1, 0);
	e.other = 0;
	e.vcpu_id = 0;		/* the vCPU it sets up, not itself */
	feed(m, e);
	feed(m, ev(KVM_EV_EXIT, 20, 102, io, 0x1000));
	feed(m, ev(KVM_EV_ENTRY, 30, 102, -1, 0));
	/* the main thread switched out for the vCPU: nothing is timed for it */
	sw = ev(KVM_EV_SWITCH, 40, 100, -1, 0);
	sw.next_tid = 102;
	feed(m, sw);

	vm = RB_MIN(vm_tree, &m->vms);
	assert_non_null(vm);
	assert_int_equal(vm->nr_vcpus, 1);
	assert_int_equal(vm->nr_vmm, 1);
	assert_int_equal(TAILQ_FIRST(&vm->vcpus)->tid, 102);
	v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	assert_non_null(v);
	assert_true(v->vmm);
	assert_int_equal(v->vcpu_id, -1);
	assert_int_equal(v->state, VS_NONE);
	/* the VM's scope counts the main thread's event */
	assert_int_equal(model_scope_vm(&sc, m, vm, true), 0);
	assert_int_equal(sc.other_total[0], 1);
	assert_int_equal(sc.exits_total, 1);
	model_scope_free(&sc);

	/* its first exit makes it a vCPU, and the threads' generation moves on */
	gen = m->vcpus_gen;
	feed(m, ev(KVM_EV_EXIT, 50, 100, io, 0x1000));
	assert_false(v->vmm);
	assert_int_equal(vm->nr_vcpus, 2);
	assert_int_equal(vm->nr_vmm, 0);
	assert_true(m->vcpus_gen != gen);
	model_free(m);
	names_free(&nm);
}

/*
 * A new thread's first event recorded before the interval began but read
 * after it (live: a CPU's buffer drained late): its states still add up to
 * no more than the interval.
 */
static void test_late_first_event(void **state)
{
	struct kvm_names nm;
	struct model *m;
	struct vcpu *v;
	uint64_t sum = 0;
	int io, j;

	(void)state;
	names_init(&nm);
	nm.entries = 1;
	io = reason_intern(&nm.reasons, ISA_SVM, 0x7b, 0, "io", NULL, false, false);
	m = model_new(&nm, 8, NULL, NULL);
	assert_non_null(m);
	feed(m, ev(KVM_EV_EXIT, 1000, 5, io, 0x1000));
	feed(m, ev(KVM_EV_ENTRY, 1100, 5, -1, 0));
	model_time_to(m, 2000);
	assert_int_equal(model_interval_end(m, 2000), 0);
	/* thread 6's exit at 1500 is read only now, in the interval [2000, 3000] */
	feed(m, ev(KVM_EV_EXIT, 1500, 6, io, 0x1000));
	feed(m, ev(KVM_EV_ENTRY, 2500, 6, -1, 0));
	model_time_to(m, 3000);
	v = RB_MAX(vcpu_tree, &m->vcpus);
	assert_int_equal(v->tid, 6);
	for (j = 0; j < VS_NR; j++)
		sum += ctr_interval(&v->time[j]);
	assert_int_equal(sum, 1000);
	/* host from the interval's start to its entry, guest after */
	assert_int_equal(ctr_interval(&v->time[VS_HOST]), 500);
	assert_int_equal(ctr_interval(&v->time[VS_GUEST]), 500);
	model_free(m);
	names_free(&nm);
}

/* ident_by_rest: tid 1024 is pid 2 (ends at the reap), tid 2048 pid 3 (stays) */
static void lat_pair(struct model *m, int tid, int reason, uint64_t t, uint64_t ns)
{
	feed(m, ev(KVM_EV_EXIT, t, tid, reason, 0x1000));
	feed(m, ev(KVM_EV_ENTRY, t + ns, tid, -1, 0));
}

static void host_lat_is(const struct model *m, int reason, uint64_t samples, uint64_t sum)
{
	struct hist h[4];
	unsigned int i;

	for (i = 0; i < 4; i++)
		hist_init(&h[i]);
	assert_int_equal(model_host_latency(m, h, 4), 0);
	assert_int_equal(h[reason].samples, samples);
	assert_int_equal(hist_sum(&h[reason]), sum);
	for (i = 0; i < 4; i++)
		hist_free(&h[i]);
}

/*
 * The host's latency per reason (the metrics' default): the closed
 * intervals folded once at their end plus the open one's, and what a VM
 * that ended saw stays in it, as a Prometheus histogram must.
 */
static void test_host_latency(void **state)
{
	struct kvm_names nm;
	struct model *m;
	int io;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 0, ident_by_rest, NULL);
	assert_non_null(m);
	m->host_lat_on = true;
	lat_pair(m, 1024, io, 100, 30);
	lat_pair(m, 2048, io, 100, 50);
	host_lat_is(m, io, 2, 80);
	assert_int_equal(model_interval_end(m, 200), 0);
	host_lat_is(m, io, 2, 80);
	lat_pair(m, 1024, io, 300, 70);
	host_lat_is(m, io, 3, 150);
	/* pid 2 (tid 1024) ends: marked at one reap, gone at the next, its pairs kept */
	lat_pair(m, 2048, io, 400, 9);
	assert_int_equal(model_reap(m, odd_pid_alive, NULL, 450), 0);
	assert_int_equal(model_interval_end(m, 450), 0);
	assert_int_equal(model_reap(m, odd_pid_alive, NULL, 460), 0);
	assert_int_equal(m->nr_vcpus, 1);
	host_lat_is(m, io, 4, 159);
	assert_int_equal(model_interval_end(m, 500), 0);
	host_lat_is(m, io, 4, 159);
	/* not kept: the same from every vCPU's own (the gone VM's are gone with it) */
	m->host_lat_on = false;
	host_lat_is(m, io, 2, 59);
	model_reset(m, 600);
	m->host_lat_on = true;
	host_lat_is(m, io, 0, 0);
	model_free(m);
	names_free(&nm);
}

static void ident_by_1024(void *ctx, int tid, struct ident_info *out)
{
	out->pid = tid / 1024;
}

/* Processes up to *ctx have ended. */
static bool pid_over(void *ctx, int pid)
{
	return pid > *(int *)ctx;
}

/* VM pid's exits, all of them and of reason id, since the start. */
static void vm_exits_are(const struct model *m, int pid, int id, uint64_t n)
{
	const struct vm *vm = model_find_vm(m, pid);
	struct model_scope sc;

	assert_non_null(vm);
	assert_int_equal(model_scope_vm(&sc, m, vm, true), 0);
	assert_int_equal(sc.exits_total, n);
	assert_int_equal(sc.rows[id].total, n);
	model_scope_free(&sc);
}

/*
 * A summary keeps the VMs that end (keep_ended), max_ended of them one by
 * one: those that ended first, once they ended MODEL_ENDED_SETTLE_NS
 * before, are summed in the rest's row; the host keeps every exit.  VM p
 * (p = 1 .. 6) makes p exits and read p KiB (its context's sum).
 */
static void test_ended_kept_and_folded(void **state)
{
	const uint32_t rd = 1u << CTX_RD_BPS;
	struct kvm_names nm;
	struct model_scope host;
	struct model *m;
	struct vm *vm;
	int io, p, k, gone = 0;

	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 0, ident_by_1024, NULL);
	assert_non_null(m);
	m->live = true;
	m->keep_ended = true;
	m->max_ended = 2;
	for (p = 1; p <= 6; p++)
		for (k = 0; k < p; k++)
			feed(m, ev(KVM_EV_EXIT, p * 10 + k, 1024 * p, io, 0));
	RB_FOREACH(vm, vm_tree, &m->vms) {
		vm->ctx.summed = vm->ctx.whole = vm->ctx.base_ok = vm->ctx.last_read = rd;
		vm->ctx.sum[CTX_RD_BPS] = 1024 * (uint64_t)vm->pid;
	}
	/* two VMs end at 10 s, two at 11 s, two at 12 s: none has settled yet */
	for (p = 10; p <= 12; p++) {
		gone += 2;
		assert_int_equal(model_mark_ended(m, pid_over, &gone, p * S), 0);
	}
	assert_int_equal(m->nr_ended, 6);
	assert_null(m->rest);
	assert_int_equal(model_find_vm(m, 1)->end, 10 * S);
	/* at 20 s all have: the four that ended first go to the rest's row */
	assert_int_equal(model_mark_ended(m, pid_over, &gone, 20 * S), 0);
	assert_int_equal(m->nr_ended, 2);
	assert_non_null(m->rest);
	assert_null(model_find_vm(m, 1));
	assert_null(model_find_vm(m, 4));
	assert_true(model_find_vm(m, 5) && model_find_vm(m, 6));
	assert_int_equal(m->rest->rest->nr, 4);
	assert_string_equal(m->rest->name, "4 more ended");
	assert_int_equal(m->rest->pid, MODEL_PID_REST);
	assert_true(m->rest->exited);
	vm_exits_are(m, MODEL_PID_REST, io, 1 + 2 + 3 + 4);
	vm_exits_are(m, 6, io, 6);
	assert_int_equal(m->rest->ctx.sum[CTX_RD_BPS], 1024 * (1 + 2 + 3 + 4));
	assert_int_equal(m->rest->ctx.summed & m->rest->ctx.whole & rd, rd);
	assert_int_equal(m->rest->nr_vcpus, 4);
	/* the host's figures keep every VM's exits */
	assert_int_equal(model_scope_host(&host, m, true), 0);
	assert_int_equal(host.exits_total, 21);
	assert_int_equal(host.rows[io].total, 21);
	model_scope_free(&host);
	/* the summary's snapshot: those past the bound folded whatever their age */
	m->max_ended = 0;
	assert_int_equal(model_reap(m, pid_over, &gone, 21 * S), 0);
	assert_int_equal(m->rest->rest->nr, 6);
	vm_exits_are(m, MODEL_PID_REST, io, 21);
	assert_int_equal(model_nr_vms(m), 1);
	model_free(m);
	names_free(&nm);
}

/* A switch on tid's CPU from prev (asleep when state has the low bits) to next, named. */
static struct kvm_event sw_ev(uint64_t t, int prev, const char *pcomm, uint64_t state, int next, const char *ncomm)
{
	struct kvm_event e = ev(KVM_EV_SWITCH, t, prev, -1, 0);

	e.cpu = 1;
	e.next_tid = next;
	e.state = state;
	strlcpy(e.prev_comm, pcomm, sizeof(e.prev_comm));
	strlcpy(e.next_comm, ncomm, sizeof(e.next_comm));
	return e;
}

/*
 * Live, only a vCPU's own switches are traced.  vCPU 7 is switched out
 * runnable for the hog (tid 600), and 1000 ns later a kernel worker (tid
 * 17) hands the CPU back: the switches between hog and worker are not
 * seen.  A worker that goes to sleep when it hands the CPU back ran a
 * short burst: the wait is the hog's.  One that is preempted ran until
 * it was made to stop: the wait is its own.
 */
static void test_steal_unseen(void **state)
{
	static const struct { uint64_t state; int thief; } cases[] = { { 1, 600 }, { 0, 17 } };
	const struct model_thief *t[5];
	struct kvm_names nm;
	unsigned int i, n;
	uint64_t rest;
	int io;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct model *m;
		const struct vcpu *v;

		names_init(&nm);
		io = reason_intern(&nm.reasons, ISA_SVM, 0x7b, 0, "io", NULL, false, false);
		m = model_new(&nm, 8, NULL, NULL);
		assert_non_null(m);
		m->max_thieves = 5;
		feed(m, ev(KVM_EV_EXIT, 10, 7, io, 0x1000));
		feed(m, ev(KVM_EV_ENTRY, 20, 7, -1, 0));
		feed(m, sw_ev(100, 7, "CPU 0/KVM", 0, 600, "hog"));
		feed(m, sw_ev(1100, 17, "kworker/1:1", cases[i].state, 7, "CPU 0/KVM"));
		v = model_find_vcpu(m, 7);
		assert_non_null(v);
		n = model_steal_top(m, v, t, &rest);
		assert_int_equal(n, 1);
		assert_int_equal(t[0]->tid, cases[i].thief);
		assert_int_equal(t[0]->ns, 1000);
		assert_int_equal(rest, 0);
		model_free(m);
		names_free(&nm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_unmatched_and_ring),
		cmocka_unit_test(test_agg_samples),
		cmocka_unit_test(test_agg_time_split),
		cmocka_unit_test(test_thread_cap_drops_and_counts),
		cmocka_unit_test(test_interval_end_and_reset),
		cmocka_unit_test(test_ring_grows),
		cmocka_unit_test(test_interval_walks_changed),
		cmocka_unit_test(test_tid_table),
		cmocka_unit_test(test_proc_times),
		cmocka_unit_test(test_proc_times_with_trace),
		cmocka_unit_test(test_thread_groups),
		cmocka_unit_test(test_vmm_thread_no_vcpu_row),
		cmocka_unit_test(test_late_first_event),
		cmocka_unit_test(test_host_latency),
		cmocka_unit_test(test_steal_unseen),
		cmocka_unit_test(test_ended_kept_and_folded),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
