// SPDX-License-Identifier: GPL-2.0
/*
 * The guest IP tables (space-saving): exact counts while there is room,
 * the summary's guarantees once full, a lookup that still finds every
 * entry after many replacements, merging, and bounded memory with ten
 * million distinct IPs fed through the model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "model/model.h"
#include "model/model_scope.h"
#include "model/model_feed.h"

static const struct ip_entry *find(const struct model_ips *t, uint64_t ip, int reason)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (t->e[i].ip == ip && t->e[i].reason_id == reason)
			return &t->e[i];
	return NULL;
}

static uint64_t sum_counts(const struct model_ips *t)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		s += t->e[i].count;
	return s;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_exact_with_room(void **state)
{
	struct model_ips t;
	uint64_t n = 0;
	unsigned int i, k;

	model_ips_init(&t, 256);
	/* IP i appears i + 1 times, interleaved */
	for (k = 0; k < 200; k++)
		for (i = 0; i < 200; i++)
			if (k <= i) {
				assert_int_equal(model_ips_add(&t, 0xffffffff81000000ull + i * 16,
							       -1, GUEST_KERNEL), 0);
				n++;
			}
	assert_int_equal(t.nr, 200);
	assert_int_equal(t.samples, n);
	assert_int_equal(t.replaced, 0);
	for (i = 0; i < 200; i++) {
		const struct ip_entry *e = find(&t, 0xffffffff81000000ull + i * 16, -1);

		assert_non_null(e);
		assert_int_equal(e->count, i + 1);
		assert_int_equal(e->err, 0);
	}
	/* the same IP under two reasons is two entries */
	model_ips_add(&t, 0x1000, 3, GUEST_USER);
	model_ips_add(&t, 0x1000, 4, GUEST_USER);
	assert_non_null(find(&t, 0x1000, 3));
	assert_non_null(find(&t, 0x1000, 4));
	model_ips_clear(&t);
	assert_int_equal(t.nr, 0);
	assert_int_equal(t.samples, 0);
	assert_null(find(&t, 0x1000, 3));
	model_ips_add(&t, 0x1000, 3, GUEST_USER);
	assert_int_equal(find(&t, 0x1000, 3)->count, 1);
	model_ips_free(&t);
}

/* Heavy hitters in noise, with a table far smaller than the distinct IPs. */
static void test_full_guarantees(void **state)
{
	enum { CAP = 64, N = 400000, HEAVY = 8 };
	static uint64_t truth[HEAVY];
	struct model_ips t;
	uint64_t seed = 7;
	unsigned int i, nr, k;
	uint64_t replaced;

	memset(truth, 0, sizeof(truth));
	model_ips_init(&t, CAP);
	for (i = 0; i < N; i++) {
		uint64_t r = rnd(&seed);
		uint64_t ip, least = UINT64_MAX;
		const struct ip_entry *got;

		if (r % 100 < 40) {
			/* 40 % of the samples on 8 IPs, unevenly */
			k = (unsigned int)(r >> 8) % (HEAVY * (HEAVY + 1) / 2);
			for (ip = 0; k >= ip + 1; ip++)
				k -= (unsigned int)ip + 1;
			truth[ip]++;
			ip = 0xffffffff81000000ull + ip * 0x100;
		} else {
			ip = 0x400000 + (r >> 16) % 1000000 * 4;	/* noise: many distinct */
		}
		/* the least count of the table, by a walk of every entry */
		for (k = 0; k < t.nr; k++)
			if (t.e[k].count < least)
				least = t.e[k].count;
		replaced = t.replaced;
		assert_int_equal(model_ips_add(&t, ip, -1, GUEST_MODE_UNKNOWN), 0);
		/* a new IP on a full table takes a least counted entry: its err is that count */
		if (t.replaced != replaced) {
			got = find(&t, ip, -1);
			assert_non_null(got);
			assert_int_equal(got->err, least);
			assert_int_equal(got->count, least + 1);
		}
	}
	assert_int_equal(t.nr, CAP);
	assert_int_equal(t.alloc, CAP);
	assert_true(t.replaced > 0);
	/* the counts add up to the samples exactly */
	assert_int_equal(t.samples, N);
	assert_int_equal(sum_counts(&t), N);
	for (k = 0; k < HEAVY; k++) {
		const struct ip_entry *e = find(&t, 0xffffffff81000000ull + k * 0x100, -1);

		/* every IP above N / CAP is kept, and its count brackets the truth */
		if (truth[k] <= N / CAP)
			continue;
		assert_non_null(e);
		assert_true(e->count >= truth[k]);
		assert_true(e->count - e->err <= truth[k]);
	}
	/* every entry is still found by its key: adding it again makes no new entry */
	nr = t.nr;
	replaced = t.replaced;
	for (i = 0; i < nr; i++) {
		struct ip_entry e = t.e[i];
		const struct ip_entry *f;

		assert_int_equal(model_ips_add(&t, e.ip, e.reason_id, e.mode), 0);
		f = find(&t, e.ip, e.reason_id);
		assert_non_null(f);
		assert_int_equal(f->count, e.count + 1);
	}
	assert_int_equal(t.replaced, replaced);
	model_ips_free(&t);
}

static void test_merge(void **state)
{
	struct model_ips a, b;
	const struct model_ips *both[3] = { &a, NULL, &b };
	struct ip_entry *out;
	long n;

	model_ips_init(&a, 16);
	model_ips_init(&b, 16);
	model_ips_add(&a, 0x10, -1, GUEST_KERNEL);
	model_ips_add(&a, 0x10, -1, GUEST_KERNEL);
	model_ips_add(&a, 0x20, -1, GUEST_KERNEL);
	model_ips_add(&b, 0x10, -1, GUEST_KERNEL);
	model_ips_add(&b, 0x30, -1, GUEST_USER);
	n = model_ips_merge(both, 3, &out);
	assert_int_equal(n, 3);
	qsort(out, (size_t)n, sizeof(*out), model_ips_cmp_count);
	assert_int_equal(out[0].ip, 0x10);
	assert_int_equal(out[0].count, 3);
	assert_int_equal(out[1].ip, 0x20);
	assert_int_equal(out[2].ip, 0x30);
	assert_int_equal(out[2].mode, GUEST_USER);
	free(out);
	model_ips_free(&a);
	model_ips_free(&b);
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * Ten million exits, every one at a new guest IP, through the model: the
 * tables stay at their capacity, the counts still add up, and the
 * process grows by less than a megabyte after the first hundred
 * thousand.
 */
static void test_ten_million_distinct(void **state)
{
	struct kvm_names nm;
	struct model_ip_list l;
	struct kvm_event e;
	struct vcpu *v;
	struct model *m;
	long rss;
	int ext, io;
	uint64_t i;

	names_init(&nm);
	ext = reason_intern(&nm.reasons, ISA_VMX, 1, 0, "EXTERNAL_INTERRUPT", NULL, false, true);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	m = model_new(&nm, 16, NULL, NULL);
	assert_non_null(m);
	memset(&e, 0, sizeof(e));
	e.tid = 5;
	e.vcpu_id = 0;
	e.other = -1;
	e.sub = -1;
	rss = 0;
	for (i = 0; i < 10000000; i++) {
		e.kind = KVM_EV_EXIT;
		e.time = i * 10;
		e.reason_id = i % 4 ? io : ext;
		e.ip = 0xffffffff81000000ull + i * 4;
		e.mode = kvm_guest_mode_guess(e.ip);
		assert_int_equal(model_feed(m, &e), 0);
		if (i == 100000)
			rss = max_rss_kb();
	}
	v = RB_MIN(vcpu_tree, &m->vcpus);
	assert_non_null(v);
	assert_int_equal(v->ips[IP_TIME]->nr, MODEL_IPS_DEFAULT);
	assert_int_equal(v->ips[IP_EXIT]->nr, MODEL_IPS_DEFAULT);
	assert_int_equal(v->ips[IP_TIME]->samples, 2500000);
	assert_int_equal(v->ips[IP_EXIT]->samples, 7500000);
	assert_int_equal(sum_counts(v->ips[IP_TIME]) + sum_counts(v->ips[IP_EXIT]), 10000000);
	assert_int_equal(model_scope_ips(&l, v->vm, NULL, IP_EXIT), 0);
	assert_int_equal(l.nr, MODEL_IPS_DEFAULT);
	assert_int_equal(l.samples, 7500000);
	assert_true(l.replaced > 0);
	model_ip_list_free(&l);
	print_message("# max RSS %ld KiB after 100000 distinct IPs, %ld KiB after 10000000\n",
		      rss, max_rss_kb());
	assert_true(max_rss_kb() - rss < 1024);
	/* --ip-slots 0: nothing kept */
	model_reset(m, 0);
	assert_int_equal(v->ips[IP_TIME]->samples, 0);
	m->ip_slots = 0;
	assert_int_equal(model_feed(m, &e), 0);
	assert_int_equal(v->ips[IP_EXIT]->samples, 0);
	model_free(m);
	names_free(&nm);
}

/* The mode a guest IP's address suggests: no guess below 4 MiB (real mode, firmware, boot code). */
static void test_mode_guess(void **state)
{
	(void)state;
	assert_int_equal(kvm_guest_mode_guess(0xffffffff81000000ull), GUEST_KERNEL_GUESS);
	assert_int_equal(kvm_guest_mode_guess(0x55555555a000ull), GUEST_USER_GUESS);
	assert_int_equal(kvm_guest_mode_guess(0x400000), GUEST_USER_GUESS);
	assert_int_equal(kvm_guest_mode_guess(0x3fffff), GUEST_MODE_UNKNOWN);
	assert_int_equal(kvm_guest_mode_guess(0x100000), GUEST_MODE_UNKNOWN);
	assert_int_equal(kvm_guest_mode_guess(0x1004), GUEST_MODE_UNKNOWN);
	assert_string_equal(kvm_guest_mode_label(kvm_guest_mode_guess(0x1004)), "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_with_room),
		cmocka_unit_test(test_full_guarantees),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_ten_million_distinct),
		cmocka_unit_test(test_mode_guess),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
