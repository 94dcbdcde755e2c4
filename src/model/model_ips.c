// SPDX-License-Identifier: GPL-2.0
/*
 * The space-saving summary of model_ips.h: once the table is full the
 * entries form a min-heap on count, so the entry to give away is e[0];
 * a hash of the keys (linear probing, deletion by backward shift) finds
 * an IP's entry.  A sample costs one lookup, and on a full table a
 * sift-down that stops at once for all but the least counted entries.
 * Until the table fills no entry is given away: the heap is built then,
 * in one pass, and kept from then on.
 */
#include <stdlib.h>
#include <string.h>

#include "model_ips.h"

#define IPS_FIRST_ALLOC	8	/* doubled as IPs come, up to cap */

void model_ips_init(struct model_ips *t, unsigned int cap)
{
	memset(t, 0, sizeof(*t));
	t->cap = cap < 1 ? 1 : cap > MODEL_IPS_MAX ? MODEL_IPS_MAX : cap;
}

void model_ips_free(struct model_ips *t)
{
	free(t->e);
	free(t->slot);
	free(t->hash);
	model_ips_init(t, t->cap);
}

void model_ips_clear(struct model_ips *t)
{
	if (t->hash)
		memset(t->hash, 0, (t->mask + 1) * sizeof(*t->hash));
	t->nr = 0;
	t->samples = 0;
	t->replaced = 0;
	t->heap = false;
}

static uint32_t key_hash(uint64_t ip, int reason_id, int mode)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull + (uint64_t)(uint32_t)reason_id * 0xc2b2ae3d27d4eb4full +
		     (uint64_t)mode;

	/* murmur3's finaliser: every bit of the key moves the low bits */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static inline uint32_t home(const struct model_ips *t, const struct ip_entry *e)
{
	return key_hash(e->ip, e->reason_id, e->mode) & t->mask;
}

static void heap_swap(struct model_ips *t, unsigned int a, unsigned int b)
{
	struct ip_entry e = t->e[a];
	uint32_t s = t->slot[a];

	t->e[a] = t->e[b];
	t->e[b] = e;
	t->slot[a] = t->slot[b];
	t->slot[b] = s;
	t->hash[t->slot[a]] = a + 1;
	t->hash[t->slot[b]] = b + 1;
}

static void sift_down(struct model_ips *t, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;

		if (l < t->nr && t->e[l].count < t->e[m].count)
			m = l;
		if (r < t->nr && t->e[r].count < t->e[m].count)
			m = r;
		if (m == i)
			return;
		heap_swap(t, i, m);
		i = m;
	}
}

/* The full table's entries made a heap: each parent, from the last, sifted down. */
static void heapify(struct model_ips *t)
{
	unsigned int i;

	for (i = t->nr / 2; i-- > 0;)
		sift_down(t, i);
	t->heap = true;
}

/* Put entry i in the hash at its first free slot from home. */
static void hash_put(struct model_ips *t, unsigned int i)
{
	uint32_t s = home(t, &t->e[i]);

	while (t->hash[s])
		s = (s + 1) & t->mask;
	t->hash[s] = i + 1;
	t->slot[i] = s;
}

/* Empty slot s, moving back the entries after it that would be lost to lookups. */
static void hash_del(struct model_ips *t, uint32_t s)
{
	uint32_t j = s, k;

	t->hash[s] = 0;
	for (;;) {
		j = (j + 1) & t->mask;
		if (!t->hash[j])
			return;
		k = home(t, &t->e[t->hash[j] - 1]);
		/* the entry at j stays if its home lies cyclically in (s, j] */
		if (s <= j ? (s < k && k <= j) : (s < k || k <= j))
			continue;
		t->hash[s] = t->hash[j];
		t->slot[t->hash[s] - 1] = s;
		t->hash[j] = 0;
		s = j;
	}
}

static int ips_grow(struct model_ips *t)
{
	unsigned int alloc = t->alloc ? t->alloc * 2 : IPS_FIRST_ALLOC, size = 1, i;
	struct ip_entry *e;
	uint32_t *slot, *hash;

	if (alloc > t->cap)
		alloc = t->cap;
	while (size < 2 * alloc)
		size *= 2;
	e = reallocarray(t->e, alloc, sizeof(*e));
	if (!e)
		return -1;
	t->e = e;
	slot = reallocarray(t->slot, alloc, sizeof(*slot));
	if (!slot)
		return -1;
	t->slot = slot;
	hash = calloc(size, sizeof(*hash));
	if (!hash)
		return -1;
	free(t->hash);
	t->hash = hash;
	t->alloc = alloc;
	t->mask = size - 1;
	for (i = 0; i < t->nr; i++)
		hash_put(t, i);
	return 0;
}

int model_ips_add(struct model_ips *t, uint64_t ip, int reason_id, enum guest_mode mode)
{
	return model_ips_add_n(t, ip, reason_id, mode, 1);
}

int model_ips_add_n(struct model_ips *t, uint64_t ip, int reason_id, enum guest_mode mode, uint64_t n)
{
	struct ip_entry *e;
	uint32_t s;
	unsigned int i;

	if (t->hash) {
		for (s = key_hash(ip, reason_id, mode) & t->mask; t->hash[s]; s = (s + 1) & t->mask) {
			i = t->hash[s] - 1;
			e = &t->e[i];
			if (e->ip == ip && e->reason_id == reason_id && e->mode == (int8_t)mode) {
				e->count += n;
				t->samples += n;
				if (t->heap)
					sift_down(t, i);
				return 0;
			}
		}
	}
	if (t->nr == t->alloc && t->alloc < t->cap && ips_grow(t))
		return -1;
	if (t->nr < t->alloc) {
		/* room: a new entry, exact */
		i = t->nr++;
		e = &t->e[i];
		e->ip = ip;
		e->reason_id = reason_id;
		e->mode = (int8_t)mode;
		e->count = n;
		e->err = 0;
		hash_put(t, i);
		t->samples += n;
		if (t->nr == t->cap)
			heapify(t);
		return 0;
	}
	/* full: the least counted entry becomes this IP's, with its count as the error */
	e = &t->e[0];
	hash_del(t, t->slot[0]);
	e->ip = ip;
	e->reason_id = reason_id;
	e->mode = (int8_t)mode;
	e->err = e->count;
	e->count += n;
	hash_put(t, 0);
	t->samples += n;
	t->replaced++;
	sift_down(t, 0);
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct ip_entry *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	if (x->reason_id != y->reason_id)
		return x->reason_id < y->reason_id ? -1 : 1;
	return x->mode - y->mode;
}

int model_ips_cmp_count(const void *a, const void *b)
{
	const struct ip_entry *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return key_cmp(a, b);
}

long model_ips_merge(const struct model_ips *const *t, size_t n, struct ip_entry **out)
{
	size_t total = 0, i, k = 0;
	struct ip_entry *e;

	for (i = 0; i < n; i++)
		total += t[i] ? t[i]->nr : 0;
	e = malloc((total ? total : 1) * sizeof(*e));
	*out = e;
	if (!e)
		return -1;
	for (i = 0; i < n; i++) {
		if (!t[i] || !t[i]->nr)
			continue;
		memcpy(e + k, t[i]->e, t[i]->nr * sizeof(*e));
		k += t[i]->nr;
	}
	return (long)model_ips_sum(e, k, NULL);
}

size_t model_ips_sum(struct ip_entry *e, size_t n, unsigned int *merged)
{
	size_t i, k = 0;

	qsort(e, n, sizeof(*e), key_cmp);
	for (i = 0; i < n; i++) {
		if (k && !key_cmp(&e[k - 1], &e[i])) {
			e[k - 1].count += e[i].count;
			e[k - 1].err += e[i].err;
			if (merged)
				merged[k - 1]++;
		} else {
			if (merged)
				merged[k] = 1;
			e[k++] = e[i];
		}
	}
	return k;
}
