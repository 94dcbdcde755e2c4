// SPDX-License-Identifier: GPL-2.0
/*
 * Histogram: exact min/max/mean, quantiles within the 1/64 that hist.h
 * promises, merge, clear.  Every expected quantile is the nearest-rank
 * value of a sorted copy of the input, its rank ceil(q * n) worked out
 * in integers (q = num / den): nothing here asks hist_quantile what the
 * answer should be.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "model/hist.h"

struct q {
	double q;
	uint64_t num, den;	/* q as a fraction, for the exact rank */
};

static const struct q qs[] = {
	{ 0.5, 1, 2 }, { 0.9, 9, 10 }, { 0.99, 99, 100 }, { 0.999, 999, 1000 },
	{ 0.25, 1, 4 }, { 0.75, 3, 4 }, { 0.51, 51, 100 }, { 0.333, 333, 1000 },
};
#define NR_QS	(sizeof(qs) / sizeof(qs[0]))

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank quantile of sorted[0..n): rank ceil(n * num / den), at least 1. */
static uint64_t exact_q(const uint64_t *sorted, uint64_t n, const struct q *q)
{
	uint64_t rank = (n * q->num + q->den - 1) / q->den;

	return sorted[(rank ? rank : 1) - 1];
}

/* |got - want| <= want / 64, in integers: the bound hist.h promises. */
static void assert_within_bound(uint64_t got, uint64_t want, const char *what, double q)
{
	uint64_t diff = got > want ? got - want : want - got;

	if ((unsigned __int128)diff * 64 > want) {
		print_error("%s: q=%g: got %llu, want %llu (error %.3f%% > 1/64)\n", what, q,
			    (unsigned long long)got, (unsigned long long)want,
			    100.0 * (double)diff / (double)want);
		fail();
	}
}

static void check_all_quantiles(const struct hist *h, uint64_t *vals, uint64_t n, const char *what)
{
	size_t j;

	qsort(vals, n, sizeof(*vals), cmp_u64);
	for (j = 0; j < NR_QS; j++)
		assert_within_bound(hist_quantile(h, qs[j].q), exact_q(vals, n, &qs[j]), what, qs[j].q);
}

static void test_small_values_exact(void **state)
{
	struct hist h;
	uint64_t v;

	hist_init(&h);
	for (v = 0; v < 32; v++)
		assert_int_equal(hist_add(&h, v), 0);
	assert_int_equal(h.samples, 32);
	assert_int_equal(h.min, 0);
	assert_int_equal(h.max, 31);
	assert_int_equal(h.sum, 31 * 32 / 2);
	/* rank ceil(0.5 * 32) = 16: the 16th smallest of 0..31 is 15 */
	assert_int_equal(hist_quantile(&h, 0.5), 15);
	assert_int_equal(hist_quantile(&h, 0.9), 28);	/* rank 29 */
	assert_int_equal(hist_quantile(&h, 1.0), 31);
	assert_true(fabs(hist_mean(&h) - 15.5) < 1e-9);
	hist_free(&h);
}

/* Ranks that are not whole: ceil, never floor, never rounding to nearest. */
static void test_fractional_ranks(void **state)
{
	static const struct {
		uint64_t vals[10];
		unsigned int n;
		double q;
		uint64_t want;
	} cases[] = {
		{ { 1, 2, 3 }, 3, 0.5, 2 },		/* rank 1.5 -> 2 */
		{ { 1, 2, 3, 4 }, 4, 0.5, 2 },		/* rank 2 exactly */
		{ { 1, 2, 3, 4 }, 4, 0.51, 3 },		/* rank 2.04 -> 3 */
		{ { 1, 2, 3 }, 3, 0.9, 3 },		/* rank 2.7 -> 3 */
		{ { 5, 7 }, 2, 0.5, 5 },		/* rank 1 */
		{ { 5, 7 }, 2, 0.501, 7 },		/* rank 1.002 -> 2 */
		{ { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 10, 0.9, 9 },	/* rank 9 */
		{ { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 10, 0.91, 10 },	/* rank 9.1 -> 10 */
		{ { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 10, 0.05, 1 },	/* rank 0.5 -> 1 */
		{ { 3 }, 1, 0.999, 3 },
	};
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hist h;

		hist_init(&h);
		for (k = 0; k < cases[i].n; k++)
			assert_int_equal(hist_add(&h, cases[i].vals[k]), 0);
		if (hist_quantile(&h, cases[i].q) != cases[i].want) {
			print_error("case %zu: q=%g of %u values: got %llu, want %llu\n", i,
				    cases[i].q, cases[i].n,
				    (unsigned long long)hist_quantile(&h, cases[i].q),
				    (unsigned long long)cases[i].want);
			fail();
		}
		hist_free(&h);
	}
}

/* Log-uniform values over 1 ns .. 10 s: every octave, every quantile within 1/64. */
static void test_quantile_error_bound(void **state)
{
	enum { N = 20011 };
	uint64_t *vals = malloc(N * sizeof(*vals));
	unsigned int seed = 12345;
	struct hist h;
	size_t i;

	assert_non_null(vals);
	hist_init(&h);
	for (i = 0; i < N; i++) {
		double e = (double)rand_r(&seed) / RAND_MAX * 10.0;

		vals[i] = (uint64_t)pow(10.0, e);
		assert_int_equal(hist_add(&h, vals[i]), 0);
	}
	check_all_quantiles(&h, vals, N, "log-uniform");
	assert_int_equal(h.min, vals[0]);
	assert_int_equal(h.max, vals[N - 1]);
	hist_free(&h);
	free(vals);
}

/*
 * Values just below and at bucket edges, in every octave: the value at
 * the top of a bucket is the worst case for any single representative
 * of the bucket (its lower edge is 1/33 off there), the one at its
 * bottom the worst case for a representative above the middle.
 */
static void test_bucket_edges(void **state)
{
	unsigned int oct, sub, side;

	for (oct = 1; oct < 50; oct++) {
		for (sub = 0; sub < HIST_SUB; sub += 7) {
			uint64_t width = 1ull << oct;
			uint64_t lo = (uint64_t)(HIST_SUB + sub) << oct;

			for (side = 0; side < 2; side++) {
				uint64_t v = side ? lo + width - 1 : lo;
				uint64_t vals[5] = { 1, v, v, v, UINT64_MAX / 4 };
				char what[64];
				struct hist h;
				int k;

				hist_init(&h);
				for (k = 0; k < 5; k++)
					assert_int_equal(hist_add(&h, vals[k]), 0);
				snprintf(what, sizeof(what), "octave %u sub %u %s", oct, sub,
					 side ? "top" : "bottom");
				/* ranks 2..4 of 5 are v; min and max keep clamping out of play */
				assert_within_bound(hist_quantile(&h, 0.5), v, what, 0.5);
				assert_within_bound(hist_quantile(&h, 0.3), v, what, 0.3);
				assert_within_bound(hist_quantile(&h, 0.75), v, what, 0.75);
				hist_free(&h);
			}
		}
	}
}

static void test_merge_equals_union(void **state)
{
	enum { N = 14286 };
	uint64_t *vals = malloc(N * sizeof(*vals));
	struct hist a, b, all;
	uint64_t v, n = 0;

	assert_non_null(vals);
	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	for (v = 1; v < 100000; v += 7) {
		assert_int_equal(hist_add(v % 2 ? &a : &b, v * 13), 0);
		assert_int_equal(hist_add(&all, v * 13), 0);
		vals[n++] = v * 13;
	}
	assert_int_equal(hist_merge(&a, &b), 0);
	assert_int_equal(a.samples, n);
	assert_int_equal(a.samples, all.samples);
	assert_int_equal(a.sum, all.sum);
	assert_int_equal(a.min, 13);
	assert_int_equal(a.max, vals[n - 1]);
	check_all_quantiles(&a, vals, n, "merged");
	hist_free(&a);
	hist_free(&b);
	hist_free(&all);
	free(vals);
}

static void test_clear_and_bounded_memory(void **state)
{
	struct hist h;
	uint64_t v;

	hist_init(&h);
	/* a million distinct values still use at most one page per octave */
	for (v = 0; v < 1000000; v++)
		assert_int_equal(hist_add(&h, v * 1009), 0);
	assert_true(hist_bytes(&h) <= HIST_OCTAVES * HIST_SUB * sizeof(uint64_t));
	assert_int_equal(hist_add(&h, UINT64_MAX), 0);
	assert_int_equal(h.max, UINT64_MAX);
	assert_int_equal(hist_sum(&h), UINT64_MAX);	/* saturated, not wrapped */
	hist_clear(&h);
	/* three latencies of 2^63: the mean is 2^63, not a saturated sum's third */
	for (v = 0; v < 3; v++)
		assert_int_equal(hist_add(&h, 1ull << 63), 0);
	assert_true(hist_mean(&h) == 9223372036854775808.0);
	assert_int_equal(hist_sum(&h), UINT64_MAX);
	hist_clear(&h);
	assert_int_equal(h.samples, 0);
	assert_int_equal(hist_quantile(&h, 0.5), 0);
	assert_int_equal(hist_add(&h, 42), 0);
	assert_int_equal(hist_quantile(&h, 0.99), 42);
	hist_free(&h);
}

/*
 * The first two samples cost no bucket page, and are exact; a third
 * spills them into buckets.  Every mix of sizes merged either way gives
 * the quantiles of the union (the sorted values' nearest rank).
 */
static void test_few_samples_no_pages(void **state)
{
	static const uint64_t a_vals[] = { 1000003, 17, 5000011 }, b_vals[] = { 999, 123456789, 64 };
	unsigned int na, nb;

	for (na = 0; na <= 3; na++) {
		for (nb = 0; nb <= 3; nb++) {
			uint64_t vals[6];
			struct hist a, b;
			unsigned int i, n = 0;
			char what[64];

			hist_init(&a);
			hist_init(&b);
			for (i = 0; i < na; i++) {
				assert_int_equal(hist_add(&a, a_vals[i]), 0);
				vals[n++] = a_vals[i];
			}
			for (i = 0; i < nb; i++) {
				assert_int_equal(hist_add(&b, b_vals[i]), 0);
				vals[n++] = b_vals[i];
			}
			/* no page for two samples or fewer, and they are exact */
			assert_int_equal(hist_bytes(&a), na <= 2 ? 0 : 3 * HIST_SUB * sizeof(uint64_t));
			if (na && na <= 2) {
				uint64_t lo = a_vals[0] < a_vals[na - 1] ? a_vals[0] : a_vals[na - 1];
				uint64_t hi = a_vals[0] ^ a_vals[na - 1] ^ lo;

				assert_int_equal(hist_quantile(&a, 0.5), lo);
				assert_int_equal(hist_quantile(&a, 0.99), hi);
			}
			assert_int_equal(hist_merge(&a, &b), 0);
			assert_int_equal(a.samples, n);
			snprintf(what, sizeof(what), "%u merged with %u", na, nb);
			if (n)
				check_all_quantiles(&a, vals, n, what);
			else
				assert_int_equal(hist_quantile(&a, 0.5), 0);
			/* after a clear the pages stay, and hold every sample again */
			hist_clear(&a);
			assert_int_equal(hist_add(&a, 7), 0);
			assert_int_equal(hist_quantile(&a, 0.5), 7);
			hist_free(&a);
			hist_free(&b);
		}
	}
}

/*
 * Counts at or below a bound, against the values themselves: never more
 * than the truth, never less than the truth at the bound less 1/32 of it,
 * exact at and beyond min and max, and for two samples or fewer.
 */
static void test_count_le(void **state)
{
	static const uint64_t bounds[] = { 0, 1, 31, 32, 1000, 2500, 5000, 10000, 25000, 100000,
					   1000000, 999999999, 1000000000, UINT64_MAX };
	struct hist h, two;
	uint64_t v, i, n = 0;
	uint64_t *vals = malloc(20000 * sizeof(*vals));

	assert_non_null(vals);
	hist_init(&h);
	hist_init(&two);
	for (v = 3; v < 2000000000ull; v = v * 21 / 20 + 1) {
		assert_int_equal(hist_add(&h, v), 0);
		vals[n++] = v;
	}
	for (i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
		uint64_t b = bounds[i], truth = 0, low = 0, j, got = hist_count_le(&h, b);

		for (j = 0; j < n; j++) {
			truth += vals[j] <= b;
			low += vals[j] <= b - b / 32;
		}
		if (got > truth || got < low)
			fail_msg("le %llu: %llu, truth %llu, at least %llu", (unsigned long long)b,
				 (unsigned long long)got, (unsigned long long)truth, (unsigned long long)low);
	}
	assert_int_equal(hist_count_le(&h, 2), 0);
	assert_int_equal(hist_count_le(&h, vals[n - 1]), n);
	assert_int_equal(hist_add(&two, 1000), 0);
	assert_int_equal(hist_add(&two, 5000), 0);
	assert_int_equal(hist_count_le(&two, 999), 0);
	assert_int_equal(hist_count_le(&two, 1000), 1);
	assert_int_equal(hist_count_le(&two, 4999), 1);
	assert_int_equal(hist_count_le(&two, 5000), 2);
	hist_free(&h);
	hist_free(&two);
	free(vals);
}

/*
 * The standard deviation is of every sample (not of the buckets), merged
 * or added one by one: against a two-pass sum of squares over the same
 * values, in long double.  A single sample, and none, have 0.
 */
static void test_stddev(void **state)
{
	static const uint64_t spans[] = { 1, 2, 3, 100, 5000, 1000000 };
	struct hist one, a, b;
	uint64_t vals[3000], seed = 7;
	size_t k, i;

	for (k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
		long double mean = 0, sq = 0;

		hist_init(&one);
		hist_init(&a);
		hist_init(&b);
		assert_true(hist_stddev(&one) == 0.0);
		for (i = 0; i < 3000; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			vals[i] = 1000000 + (seed >> 33) % spans[k] + (i % 7 == 0 ? 3 * spans[k] : 0);
			mean += vals[i];
			assert_int_equal(hist_add(&one, vals[i]), 0);
			/* a's first two samples stay min and max: the merge without pages too */
			assert_int_equal(hist_add(i < 2 || i % 3 ? &a : &b, vals[i]), 0);
		}
		mean /= 3000;
		for (i = 0; i < 3000; i++)
			sq += (vals[i] - mean) * (vals[i] - mean);
		assert_int_equal(hist_merge(&b, &a), 0);
		if (fabs(hist_stddev(&one) - (double)sqrtl(sq / 3000)) > 1e-6 * (double)sqrtl(sq / 3000) + 1e-9 ||
		    fabs(hist_stddev(&b) - (double)sqrtl(sq / 3000)) > 1e-6 * (double)sqrtl(sq / 3000) + 1e-9)
			fail_msg("span %llu: stddev %.6f and merged %.6f, want %.6Lf",
				 (unsigned long long)spans[k], hist_stddev(&one), hist_stddev(&b), sqrtl(sq / 3000));
		hist_free(&one);
		hist_free(&a);
		hist_free(&b);
	}
	hist_init(&one);
	assert_int_equal(hist_add(&one, 42), 0);
	assert_true(hist_stddev(&one) == 0.0);
	hist_free(&one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_fractional_ranks),
		cmocka_unit_test(test_quantile_error_bound),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_merge_equals_union),
		cmocka_unit_test(test_clear_and_bounded_memory),
		cmocka_unit_test(test_few_samples_no_pages),
		cmocka_unit_test(test_count_le),
		cmocka_unit_test(test_stddev),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
