// SPDX-License-Identifier: GPL-2.0
/* Histogram: exact min/max/mean, bounded quantile error, merge, clear. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact quantile as hist_quantile defines it: rank ceil(q * n). */
static uint64_t exact_q(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)ceil(q * (double)n);

	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
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
	assert_int_equal(hist_quantile(&h, 0.5), 15);
	assert_int_equal(hist_quantile(&h, 1.0), 31);
	assert_true(fabs(hist_mean(&h) - 15.5) < 1e-9);
	hist_free(&h);
}

static void test_quantile_error_bound(void **state)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	enum { N = 20000 };
	uint64_t *vals = malloc(N * sizeof(*vals));
	struct hist h;
	unsigned int seed = 12345;
	size_t i, j;

	assert_non_null(vals);
	hist_init(&h);
	for (i = 0; i < N; i++) {
		/* log-uniform over 1 ns .. 10 s: every octave gets samples */
		double e = (double)rand_r(&seed) / RAND_MAX * 10.0;

		vals[i] = (uint64_t)pow(10.0, e);
		assert_int_equal(hist_add(&h, vals[i]), 0);
	}
	qsort(vals, N, sizeof(*vals), cmp_u64);
	assert_int_equal(h.min, vals[0]);
	assert_int_equal(h.max, vals[N - 1]);
	for (j = 0; j < sizeof(qs) / sizeof(qs[0]); j++) {
		uint64_t want = exact_q(vals, N, qs[j]), got = hist_quantile(&h, qs[j]);
		double err = fabs((double)got - (double)want) / (double)want;

		assert_true(err <= 0.03);
	}
	hist_free(&h);
	free(vals);
}

static void test_merge_equals_union(void **state)
{
	struct hist a, b, all;
	uint64_t v;

	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	for (v = 1; v < 100000; v += 7) {
		assert_int_equal(hist_add(v % 2 ? &a : &b, v * 13), 0);
		assert_int_equal(hist_add(&all, v * 13), 0);
	}
	assert_int_equal(hist_merge(&a, &b), 0);
	assert_int_equal(a.samples, all.samples);
	assert_int_equal(a.sum, all.sum);
	assert_int_equal(a.min, all.min);
	assert_int_equal(a.max, all.max);
	assert_int_equal(hist_quantile(&a, 0.9), hist_quantile(&all, 0.9));
	assert_int_equal(hist_quantile(&a, 0.999), hist_quantile(&all, 0.999));
	hist_free(&a);
	hist_free(&b);
	hist_free(&all);
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
	assert_int_equal(h.sum, UINT64_MAX);	/* saturated, not wrapped */
	hist_clear(&h);
	assert_int_equal(h.samples, 0);
	assert_int_equal(hist_quantile(&h, 0.5), 0);
	assert_int_equal(hist_add(&h, 42), 0);
	assert_int_equal(hist_quantile(&h, 0.99), 42);
	hist_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_quantile_error_bound),
		cmocka_unit_test(test_merge_equals_union),
		cmocka_unit_test(test_clear_and_bounded_memory),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
