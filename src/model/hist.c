// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear histogram.  Octave 0 holds the values 0 .. HIST_SUB-1, one
 * bucket each.  Octave k >= 1 holds [HIST_SUB << (k-1), HIST_SUB << k)
 * in HIST_SUB buckets of width 1 << (k-1).
 *
 * The first two samples need no buckets: min and max are they.  So
 * while present is 0, samples <= 2 and the samples are min (and max);
 * the third spills them into buckets, and from then on (present != 0,
 * also after hist_clear, which keeps the pages) the buckets hold every
 * sample.  Most (vCPU, reason) pairs of a big host see few exits in an
 * interval: they cost no bucket page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

static inline unsigned int octave_of(uint64_t v, unsigned int *sub)
{
	unsigned int msb;

	if (v < HIST_SUB) {
		*sub = v;
		return 0;
	}
	msb = 63 - __builtin_clzll(v);
	*sub = (v >> (msb - HIST_SUB_BITS)) & (HIST_SUB - 1);
	return msb - HIST_SUB_BITS + 1;
}

/* Lowest value and width of bucket (octave, sub). */
static inline void bucket_range(unsigned int oct, unsigned int sub,
				uint64_t *lo, uint64_t *width)
{
	if (oct == 0) {
		*lo = sub;
		*width = 1;
		return;
	}
	*lo = (uint64_t)(HIST_SUB | sub) << (oct - 1);
	*width = 1ull << (oct - 1);
}

/*
 * Bits set in x, inline: without -mpopcnt (x86-64's baseline has no
 * POPCNT) __builtin_popcountll is a call into libgcc, on every sample.
 */
static inline unsigned int bits_set(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned int)((x * 0x0101010101010101ull) >> 56);
}

static inline unsigned int page_index(uint64_t present, unsigned int oct)
{
	return bits_set(present & ((1ull << oct) - 1));
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_free(struct hist *h)
{
	free(h->pages);
	hist_init(h);
}

void hist_clear(struct hist *h)
{
	unsigned int n = bits_set(h->present);

	if (h->pages)
		memset(h->pages, 0, n * HIST_SUB * sizeof(*h->pages));
	h->samples = 0;
	h->sum = 0;
	h->sum_hi = 0;
	h->m2 = 0;
	h->min = UINT64_MAX;
	h->max = 0;
}

/* Returns the counters of octave oct, adding a zeroed page if needed. */
static uint64_t *octave_page(struct hist *h, unsigned int oct)
{
	unsigned int idx = page_index(h->present, oct);
	unsigned int n;
	uint64_t *pages;

	if (h->present & (1ull << oct))
		return h->pages + (size_t)idx * HIST_SUB;

	n = bits_set(h->present);
	pages = realloc(h->pages, (n + 1) * HIST_SUB * sizeof(*pages));
	if (!pages)
		return NULL;
	memmove(pages + (size_t)(idx + 1) * HIST_SUB, pages + (size_t)idx * HIST_SUB,
		(n - idx) * HIST_SUB * sizeof(*pages));
	memset(pages + (size_t)idx * HIST_SUB, 0, HIST_SUB * sizeof(*pages));
	h->pages = pages;
	h->present |= 1ull << oct;
	return pages + (size_t)idx * HIST_SUB;
}

static inline void count_in(struct hist *h, uint64_t v)
{
	unsigned int sub, oct = octave_of(v, &sub);

	h->pages[(size_t)page_index(h->present, oct) * HIST_SUB + sub]++;
}

/*
 * The samples still held as min and max go into buckets, with a page for
 * each of them and for extra (another value about to be added), so that
 * nothing is left half done: 0, or -1 with h as it was.
 */
static int spill(struct hist *h, uint64_t extra)
{
	unsigned int sub;

	if (h->present || !h->samples)
		return octave_page(h, octave_of(extra, &sub)) ? 0 : -1;
	if (!octave_page(h, octave_of(h->min, &sub)) || !octave_page(h, octave_of(h->max, &sub)) ||
	    !octave_page(h, octave_of(extra, &sub))) {
		free(h->pages);
		h->pages = NULL;
		h->present = 0;
		return -1;
	}
	count_in(h, h->min);
	if (h->samples == 2)
		count_in(h, h->max);
	return 0;
}

/*
 * Welford's step for one more sample v, before h counts it: the distance
 * to the mean before, times the distance to the mean after.
 */
static void m2_add(struct hist *h, uint64_t v)
{
	double before, after;

	if (!h->samples)
		return;
	before = hist_mean(h);
	after = before + ((double)v - before) / (double)(h->samples + 1);
	h->m2 += ((double)v - before) * ((double)v - after);
}

/* Chan's merge of src's squared distances into dst's, before dst counts src's samples. */
static void m2_merge(struct hist *dst, const struct hist *src)
{
	double na = (double)dst->samples, nb = (double)src->samples, d;

	if (!src->samples)
		return;
	d = hist_mean(src) - hist_mean(dst);
	dst->m2 += src->m2 + (dst->samples ? d * d * na * nb / (na + nb) : 0.0);
}

int hist_add(struct hist *h, uint64_t v)
{
	if (h->present || h->samples >= 2) {
		unsigned int sub, oct = octave_of(v, &sub);
		uint64_t *page;

		if (!h->present && spill(h, v))
			return -1;
		page = octave_page(h, oct);
		if (!page)
			return -1;
		page[sub]++;
	}
	m2_add(h, v);
	h->samples++;
	h->sum += v;
	h->sum_hi += h->sum < v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

unsigned int hist_bucket_of(uint64_t v)
{
	unsigned int sub, oct = octave_of(v, &sub);

	return oct * HIST_SUB + sub;
}

int hist_bucket_add(struct hist *h, unsigned int b, uint64_t n)
{
	uint64_t *page;

	if (b >= HIST_OCTAVES * HIST_SUB)
		return -1;
	page = octave_page(h, b / HIST_SUB);
	if (!page)
		return -1;
	page[b % HIST_SUB] += n;
	return 0;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	uint64_t left = src->present;
	const uint64_t *from = src->pages;

	if (!src->present) {
		/* at most two samples: min and max */
		if (src->samples && hist_add(dst, src->min))
			return -1;
		return src->samples == 2 ? hist_add(dst, src->max) : 0;
	}
	if (!dst->present && dst->samples && spill(dst, src->min))
		return -1;
	while (left) {
		unsigned int oct = __builtin_ctzll(left);
		uint64_t *to = octave_page(dst, oct);
		unsigned int i;

		if (!to)
			return -1;
		for (i = 0; i < HIST_SUB; i++)
			to[i] += from[i];
		from += HIST_SUB;
		left &= left - 1;
	}
	m2_merge(dst, src);
	dst->samples += src->samples;
	dst->sum += src->sum;
	dst->sum_hi += src->sum_hi + (dst->sum < src->sum);
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, left = h->present;
	const uint64_t *page = h->pages;

	if (!h->samples)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	if (!h->present)
		return h->samples == 1 || q <= 0.5 ? h->min : h->max;
	/* The smallest value with at least ceil(q * samples) samples at or below it. */
	rank = (uint64_t)(q * (double)h->samples);
	if ((double)rank < q * (double)h->samples)
		rank++;
	if (rank == 0)
		rank = 1;

	while (left) {
		unsigned int oct = __builtin_ctzll(left), sub;

		for (sub = 0; sub < HIST_SUB; sub++) {
			uint64_t lo, width, v;

			seen += page[sub];
			if (seen < rank)
				continue;
			bucket_range(oct, sub, &lo, &width);
			/* The bucket's middle, never outside what was seen. */
			v = lo + width / 2;
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
		page += HIST_SUB;
		left &= left - 1;
	}
	return h->max;
}

uint64_t hist_count_le(const struct hist *h, uint64_t v)
{
	uint64_t n = 0, left = h->present;
	const uint64_t *page = h->pages;

	if (!h->samples || v < h->min)
		return 0;
	if (v >= h->max)
		return h->samples;
	if (!h->present)
		return 1;	/* two samples, min <= v < max */
	while (left) {
		unsigned int oct = __builtin_ctzll(left), sub;

		for (sub = 0; sub < HIST_SUB; sub++) {
			uint64_t lo, width;

			bucket_range(oct, sub, &lo, &width);
			if (lo + (width - 1) > v)
				return n;
			n += page[sub];
		}
		page += HIST_SUB;
		left &= left - 1;
	}
	return n;
}

double hist_sum_frac(const struct hist *h)
{
	return (double)h->sum_hi * 18446744073709551616.0 + (double)h->sum;
}

double hist_mean(const struct hist *h)
{
	if (!h->samples)
		return 0.0;
	return hist_sum_frac(h) / (double)h->samples;
}

double hist_stddev(const struct hist *h)
{
	return h->samples && h->m2 > 0 ? sqrt(h->m2 / (double)h->samples) : 0.0;
}

uint64_t hist_sum(const struct hist *h)
{
	return h->sum_hi ? UINT64_MAX : h->sum;
}

size_t hist_bytes(const struct hist *h)
{
	return (size_t)bits_set(h->present) * HIST_SUB * sizeof(uint64_t);
}
