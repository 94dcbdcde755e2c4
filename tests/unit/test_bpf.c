// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf source's arithmetic run in the kernel (TAP, by hand: its cases
 * SKIP, saying why, where this kernel will not load BPF programs): the
 * programs of tests/bpf/bpf_test.bpf.c call what the bpf source's
 * program calls at each exit (src/sources/bpf_kvm_core.h), on numbers
 * this test makes and checks itself.
 *  1. bucket_of() is hist.c's bucket, over 0..64, 2^k - 1, 2^k, 2^k + 1,
 *     2^63 and UINT64_MAX;
 *  2. lat_add() over 2,000 latencies, some past 2^32 ns: their count, sum
 *     (128 bits), min, max, and the sum and sum of squares of their
 *     distances from the first, worked out here in 128 bits;
 *  3. keep_info() with x86's table (arch/x86.c): the info bits that name a
 *     port or an MMIO page kept, the rest cleared;
 *  4. sample_due() and sample_refused(): of n exits, every Nth is a sample,
 *     and the samples written stand for every exit but those since the
 *     last (fewer than N), some refused by a full ring or not;
 *  5. state_to() and state_cut(): a vCPU thread's exit, sleep, wakeups,
 *     an interval's cut, its CPU back and its entry, and another's change
 *     across an interval without a cut: each state's time in each
 *     interval and the pending exit's, worked out here;
 *  6. steal_split(): a wait split among a CPU's current thread and the
 *     stretches of its log it spans, what the log no longer holds unseen.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "model/hist.h"
#include "decode/decode.h"
#include "sources/bpf_kvm.h"
#include "bpf_test.skel.h"

#define CHECK(cond) do { if (!(cond)) { snprintf(why, sizeof(why), "failed: %s", #cond); return why; } } while (0)
static char why[512];

/* Program p run once on ctx, which the kernel writes back in place (a syscall program's way). */
static int run(struct bpf_program *p, void *ctx, size_t size)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = ctx, .ctx_size_in = size);

	return bpf_prog_test_run_opts(bpf_program__fd(p), &o) || o.retval ? -1 : 0;
}

static const char *buckets(struct bpf_test *s)
{
	struct { uint64_t v; uint32_t bucket, pad; } t;
	uint64_t vals[64 + 65 + 3 * 63 + 2];
	size_t n = 0, i;
	int k;

	for (i = 0; i <= 64; i++)
		vals[n++] = i;
	for (k = 1; k < 64; k++) {
		vals[n++] = (1ull << k) - 1;
		vals[n++] = 1ull << k;
		vals[n++] = (1ull << k) + 1;
	}
	vals[n++] = 1ull << 63;
	vals[n++] = UINT64_MAX;
	for (i = 0; i < n; i++) {
		memset(&t, 0, sizeof(t));
		t.v = vals[i];
		if (run(s->progs.kx_test_bucket, &t, sizeof(t)))
			return "the program did not run";
		if (t.bucket != hist_bucket_of(vals[i])) {
			snprintf(why, sizeof(why), "value %llu: bucket %u in BPF, %u in hist.c",
				 (unsigned long long)vals[i], t.bucket, hist_bucket_of(vals[i]));
			return why;
		}
	}
	return NULL;
}

static const char *latencies(struct bpf_test *s)
{
	unsigned __int128 sum = 0, sq = 0;
	uint64_t x = 88172645463325252ull, first = 0, min = UINT64_MAX, max = 0, lat;
	__int128 dsum = 0;
	struct kx_lat v = { .min = UINT64_MAX };
	uint32_t key = 0;
	int i, fd = bpf_map__fd(s->maps.test_lat);

	for (i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* mostly microseconds, every 50th past 2^32 ns (4.3 s) */
		lat = i % 50 == 49 ? (x >> 20) : (x >> 44);
		if (!i) {
			first = lat;
			v.shift = lat;
			CHECK(!bpf_map_update_elem(fd, &key, &v, BPF_ANY));
		}
		if (run(s->progs.kx_test_lat, &lat, sizeof(lat)))
			return "the program did not run";
		sum += lat;
		dsum += (__int128)lat - (__int128)first;
		sq += (unsigned __int128)((__int128)lat - first < 0 ? first - lat : lat - first) *
		      (unsigned __int128)((__int128)lat - first < 0 ? first - lat : lat - first);
		min = lat < min ? lat : min;
		max = lat > max ? lat : max;
	}
	CHECK(!bpf_map_lookup_elem(fd, &key, &v));
	CHECK(v.n == 2000);
	CHECK(v.sum == (uint64_t)sum && v.sum_hi == (uint64_t)(sum >> 64));
	CHECK(v.min == min && v.max == max);
	CHECK(v.dsum == (int64_t)dsum);
	CHECK(v.sq == (uint64_t)sq && v.sq_hi == (uint64_t)(sq >> 64));
	return NULL;
}

static const char *keep(struct bpf_test *s)
{
	/* reason, isa, aux, vcpu, info1, info2 in; the info1, info2 kept out */
	static const uint64_t cases[][8] = {
		{ 0x07b, 2, 0, 1, 0x10ff8e71ull, 0xdeadbeefull, 0x10ff0071ull, 0 },	/* SVM IOIO */
		{ 30, 1, 0, 1, 0x10ff8e7full, 0xdeadbeefull, 0x10ff000full, 0 },	/* VMX I/O */
		{ 0x400, 2, 0, 1, 0xfull, 0xfee00123ull, 0xaull, 0xfee00000ull },	/* SVM NPF, MMIO */
		{ 0x400, 2, 0, 1, 0x7ull, 0x12345678ull, 0x2ull, 0 },			/* SVM NPF on RAM */
		{ 0x060, 2, 0, 1, 0x1234ull, 0x5678ull, 0, 0 },				/* an interrupt */
	};
	const struct exit_keep *k;
	struct kx_cfg c;
	uint32_t key = 0;
	uint64_t vals[KX_SLOTS];
	size_t i;

	memset(&c, 0, sizeof(c));
	for (k = arch_x86.exit_keep; k && k->reason && c.nr_rules < KX_RULES; k++)
		c.rule[c.nr_rules++] = (struct kx_rule){ k->reason, k->isa, k->info1_mask, k->info2_mask, k->info2_if };
	CHECK(c.nr_rules == 3);
	CHECK(!bpf_map_update_elem(bpf_map__fd(s->maps.test_cfg), &key, &c, BPF_ANY));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(vals, cases[i], sizeof(vals));
		if (run(s->progs.kx_test_keep, vals, sizeof(vals)))
			return "the program did not run";
		if (vals[KX_EXIT_INFO1] != cases[i][6] || vals[KX_EXIT_INFO2] != cases[i][7] ||
		    vals[0] != cases[i][0] || vals[3] != cases[i][3]) {
			snprintf(why, sizeof(why), "case %zu: kept 0x%llx 0x%llx, want 0x%llx 0x%llx", i,
				 (unsigned long long)vals[KX_EXIT_INFO1], (unsigned long long)vals[KX_EXIT_INFO2],
				 (unsigned long long)cases[i][6], (unsigned long long)cases[i][7]);
			return why;
		}
	}
	return NULL;
}

static const char *samples(struct bpf_test *s)
{
	static const uint64_t cases[][3] = {	/* every, n, refused (bits, in the samples' order) */
		{ 1, 1000, 0 }, { 7, 1000, 0 }, { 7, 1000, 0x2d }, { 1, 50, 0x3 }, { 0, 100, 0 },
		{ 1000, 999, 0 }, { 13, 4096, 0xffffull << 20 },
	};
	struct { uint64_t every, n, refuse, reset, k, samples, weights, since; } t;
	uint64_t done;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t every = cases[i][0], n = cases[i][1], want;

		memset(&t, 0, sizeof(t));
		t.every = every;
		t.refuse = cases[i][2];
		t.reset = 1;
		/* at most 256 exits a run (the verifier's bound on its loop), the thread going on */
		for (done = 0; done < n; done += t.n) {
			t.n = n - done < 256 ? n - done : 256;
			if (run(s->progs.kx_test_sample, &t, sizeof(t)))
				return "the program did not run";
			t.reset = 0;
		}
		/*
		 * every exit stands in one written sample or waits for the next
		 * (a refused one's go with it); without refusals, every Nth is one
		 */
		want = every ? n / every : 0;
		if (t.weights + t.since != n || t.samples > want || (every && t.weights < t.samples * every) ||
		    (!cases[i][2] && (t.samples != want || t.since != (every ? n % every : n)))) {
			snprintf(why, sizeof(why), "case %zu (every %llu, %llu exits): %llu samples for %llu exits, "
				 "%llu left; want %llu samples, %llu exits in all", i, (unsigned long long)every,
				 (unsigned long long)n, (unsigned long long)t.samples, (unsigned long long)t.weights,
				 (unsigned long long)t.since, (unsigned long long)want, (unsigned long long)n);
			return why;
		}
	}
	return NULL;
}

struct test_op {
	uint32_t op, st, before, only;
	uint64_t now;
	uint32_t e, left;
	uint64_t start;
};

struct test_states {
	uint32_t n, reset;
	struct test_op op[16];
	uint64_t tacc[2][KX_STATES];
	uint64_t pend[KX_STATES];
	uint64_t st;
};

#define TO(st_, before_, only_, now_, e_, start_) { 0, st_, before_, only_, now_, e_, 0, start_ }
#define CUT(e_, start_) { 1, 0, 0, 0, 0, e_, 0, start_ }
#define PENDING(on_) { 2, on_, 0, 0, 0, 0, 0, 0 }

static const char *states(struct bpf_test *s)
{
	/* interval 0 from 1000, interval 1 from 2000 (ns) */
	static const struct test_states script = { .n = 9, .reset = 1, .op = {
		TO(KX_ST_HOST, KX_ST_GUEST, 0, 1100, 0, 1000),		/* exit: in the guest since 1000 */
		PENDING(1),
		TO(KX_ST_HALT, KX_ST_HOST, 0, 1300, 0, 1000),		/* switched out, asleep */
		TO(KX_ST_WAIT, KX_ST_HALT, 1u << KX_ST_HALT, 1500, 0, 1000),	/* woken */
		TO(KX_ST_WAIT, KX_ST_HALT, 1u << KX_ST_HALT, 1550, 0, 1000),	/* woken again: nothing */
		CUT(1, 2000),						/* the interval's end */
		TO(KX_ST_NONE, KX_ST_WAIT, 0, 2100, 1, 2000),		/* a CPU again: host */
		TO(KX_ST_GUEST, KX_ST_HOST, 0, 2400, 1, 2000),		/* entry */
		PENDING(0),
	} };
	static const uint64_t tacc[2][KX_STATES] = { { 100, 200, 0, 200, 500 }, { 0, 300, 0, 0, 100 } };
	static const uint64_t pend[KX_STATES] = { 0, 500, 0, 200, 600 };
	/* another thread: an exit in interval 0, its entry in 1 with no cut between */
	static const struct test_states across = { .n = 2, .reset = 1, .op = {
		TO(KX_ST_HOST, KX_ST_GUEST, 0, 1100, 0, 1000),
		TO(KX_ST_GUEST, KX_ST_HOST, 0, 2300, 1, 2000),
	} };
	static const uint64_t tacc2[2][KX_STATES] = { { 100, 900, 0, 0, 0 }, { 0, 300, 0, 0, 0 } };
	int fd = bpf_map__fd(s->maps.test_states);
	uint32_t key = 0;
	uint64_t unused = 0;
	struct test_states t = script;

	CHECK(!bpf_map_update_elem(fd, &key, &t, BPF_ANY));
	if (run(s->progs.kx_test_states, &unused, sizeof(unused)))
		return "the program did not run";
	CHECK(!bpf_map_lookup_elem(fd, &key, &t));
	CHECK(!memcmp(t.tacc, tacc, sizeof(tacc)));
	CHECK(!memcmp(t.pend, pend, sizeof(pend)));
	CHECK(t.op[0].left == KX_ST_GUEST && t.op[4].left == KX_ST_NONE && t.op[6].left == KX_ST_WAIT);
	CHECK(t.st == (2400ull << KX_ST_BITS | KX_ST_GUEST));
	t = across;
	CHECK(!bpf_map_update_elem(fd, &key, &t, BPF_ANY));
	if (run(s->progs.kx_test_states, &unused, sizeof(unused)))
		return "the program did not run";
	CHECK(!bpf_map_lookup_elem(fd, &key, &t));
	CHECK(!memcmp(t.tacc, tacc2, sizeof(tacc2)));
	return NULL;
}

static const char *stolen(struct bpf_test *s)
{
	/* a CPU running thread 50 since 1000; before, 30 from 700, 20 from 400, 10 until 400 (from when: gone) */
	struct kx_cpu cpu = { .since = 1000, .tid = 50, .head = 3,
			      .log = { { .end = 400, .tid = 10 }, { .end = 700, .tid = 20 }, { .end = 1000, .tid = 30 } } };
	static const struct { uint64_t from, to; uint32_t n; struct kx_give want[5]; } cases[] = {
		{ 500, 1200, 3, { { 200, 50, KX_STRETCHES }, { 300, 30, 2 }, { 200, 20, 1 } } },
		{ 300, 1200, 4, { { 200, 50, KX_STRETCHES }, { 300, 30, 2 }, { 300, 20, 1 },
				  { 100, KX_THIEF_UNSEEN, KX_STRETCHES + 1 } } },
		{ 1050, 1100, 1, { { 50, 50, KX_STRETCHES } } },
	};
	struct { uint64_t from, to; uint32_t n, pad; struct kx_give out[KX_STRETCHES + 1]; } x;
	uint32_t key = 0;
	uint64_t unused = 0;
	size_t i;

	CHECK(!bpf_map_update_elem(bpf_map__fd(s->maps.test_cpu), &key, &cpu, BPF_ANY));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&x, 0, sizeof(x));
		x.from = cases[i].from;
		x.to = cases[i].to;
		CHECK(!bpf_map_update_elem(bpf_map__fd(s->maps.test_steal), &key, &x, BPF_ANY));
		if (run(s->progs.kx_test_steal, &unused, sizeof(unused)))
			return "the program did not run";
		CHECK(!bpf_map_lookup_elem(bpf_map__fd(s->maps.test_steal), &key, &x));
		if (x.n != cases[i].n || memcmp(x.out, cases[i].want, cases[i].n * sizeof(x.out[0]))) {
			snprintf(why, sizeof(why), "wait [%llu, %llu): %u shares, the first %llu ns to %u; want %u",
				 (unsigned long long)x.from, (unsigned long long)x.to, x.n,
				 (unsigned long long)x.out[0].ns, x.out[0].tid, cases[i].n);
			return why;
		}
	}
	return NULL;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return getenv("KVMTOP_BPF_DEBUG") ? vfprintf(stderr, fmt, ap) : 0;
}

int main(void)
{
	static const struct {
		const char *name;
		const char *(*fn)(struct bpf_test *s);
	} cases[] = {
		{ "bucket_of() in BPF is hist.c's bucket, 0..64, 2^k-1, 2^k, 2^k+1, 2^63, UINT64_MAX", buckets },
		{ "lat_add() in BPF: count, 128-bit sum, min, max, spread of 2,000 latencies exact", latencies },
		{ "keep_info() in BPF keeps x86's port and MMIO-page bits, clears the rest", keep },
		{ "sample_due() in BPF: every Nth exit a sample, the samples' exits all but the last step's", samples },
		{ "state_to() and state_cut() in BPF: each state's time per interval and the pending exit's", states },
		{ "steal_split() in BPF: a wait among a CPU's stretches it spans, the rest unseen", stolen },
	};
	size_t i, n = sizeof(cases) / sizeof(cases[0]);
	struct bpf_test *s;
	int failed = 0;

	libbpf_set_print(quiet);
	printf("1..%zu\n", n);
	s = bpf_test__open_and_load();
	if (!s) {
		snprintf(why, sizeof(why), "this kernel does not load the test programs (%s): BPF needs root, "
			 "and syscall programs Linux 5.14", strerror(errno));
		for (i = 0; i < n; i++)
			printf("ok %zu - %s # SKIP %s\n", i + 1, cases[i].name, why);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const char *err = cases[i].fn(s);

		printf("%sok %zu - %s\n", err ? "not " : "", i + 1, cases[i].name);
		if (err)
			printf("# %s\n", err);
		failed |= err != NULL;
	}
	bpf_test__destroy(s);
	return failed;
}
