/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram: values below HIST_SUB are exact, above
 * that every power of two is split in HIST_SUB equal buckets, so a
 * reported percentile is within 1/(2*HIST_SUB) (1.6 %) of the true
 * value.  Buckets are allocated one octave at a time, only for octaves
 * that have seen a value, and only from the third sample on (the first
 * two are min and max, exact), so an idle (vCPU, reason) costs 64 bytes
 * and a typical one a few hundred.  min, max, sum and samples are exact (the
 * sum in 128 bits, so the mean is right even where 64 bits would overflow);
 * the standard deviation is of every sample, not of the buckets: the sum
 * of squared distances from the mean, kept as Welford's method keeps it
 * (merged as Chan's), in a double.
 */
#ifndef KVMTOP_HIST_H
#define KVMTOP_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define HIST_SUB_BITS	5
#define HIST_SUB	(1u << HIST_SUB_BITS)
#define HIST_OCTAVES	(64 - HIST_SUB_BITS + 1)

struct hist {
	uint64_t samples;
	uint64_t sum;		/* the sum's low 64 bits ... */
	uint64_t sum_hi;	/* ... and its high ones: read it with hist_sum() */
	uint64_t min;
	uint64_t max;
	double m2;		/* the samples' squared distances from their mean, summed */
	uint64_t present;	/* bit n: octave n has a page in pages[] */
	uint64_t *pages;	/* HIST_SUB counters per present octave, in octave order */
};

void hist_init(struct hist *h);
void hist_free(struct hist *h);
/* Forget the samples, keep the pages for reuse. */
void hist_clear(struct hist *h);
int hist_add(struct hist *h, uint64_t v);
int hist_merge(struct hist *dst, const struct hist *src);
/*
 * Samples counted elsewhere (the bpf source's program fills the same
 * buckets): n more in bucket b, octave * HIST_SUB + sub, the figures
 * (samples, sum, min, max, m2) left to the caller, which sets them.  Only
 * for more than two samples: two or fewer are min and max, no bucket.
 * 0, or -1 (no memory, or no such bucket).
 */
int hist_bucket_add(struct hist *h, unsigned int b, uint64_t n);
/* The bucket of value v, as hist_bucket_add() takes it. */
unsigned int hist_bucket_of(uint64_t v);
/* q in [0, 1]: the value at or below which q of the samples lie. */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);
/* The samples' population standard deviation (Python's pstdev), 0 without samples. */
double hist_stddev(const struct hist *h);
/* The sum of the samples, UINT64_MAX where it does not fit in 64 bits. */
uint64_t hist_sum(const struct hist *h);
/* The same as a fraction, never cut at UINT64_MAX: what a share of sums is worked out from. */
double hist_sum_frac(const struct hist *h);
/*
 * How many samples are at or below v, for another histogram's bucket
 * bound (Prometheus' le): exact for samples held as min and max; of the
 * buckets, those whose every value is <= v, so a sample in the bucket
 * that straddles v (within 1/HIST_SUB of it) counts at the next bound.
 */
uint64_t hist_count_le(const struct hist *h, uint64_t v);
/* Bytes of heap the histogram holds. */
size_t hist_bytes(const struct hist *h);

#endif
