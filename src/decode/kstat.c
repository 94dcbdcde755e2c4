// SPDX-License-Identifier: GPL-2.0
/*
 * The names of KVM's binary statistics as the model keeps them: each
 * scope's table of descriptors (interned by name as the stats source
 * meets them), their kinds and units as outputs write them.  The files
 * themselves are parsed in sources/stats_file.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstat.h"

static const char *const kind_names[] = {
	[KSTAT_CUMULATIVE] = "cumulative",
	[KSTAT_INSTANT] = "instant",
	[KSTAT_PEAK] = "peak",
	[KSTAT_LINEAR_HIST] = "linear_hist",
	[KSTAT_LOG_HIST] = "log_hist",
};

const char *kstat_kind_name(enum kstat_kind k)
{
	return k < KSTAT_KINDS ? kind_names[k] : "unknown";
}

const char *kstat_unit(const struct kstat_desc *d, char *buf, size_t len)
{
	static const char *const units[] = { "", "bytes", "s", "cycles", "boolean" };
	static const struct { uint8_t unit, base; int16_t exp; const char *name; } named[] = {
		{ 0, 0, 0, "" }, { 1, 0, 0, "bytes" }, { 1, 1, 0, "bytes" },
		{ 1, 1, 10, "KiB" }, { 1, 1, 20, "MiB" }, { 1, 1, 30, "GiB" },
		{ 2, 0, -9, "ns" }, { 2, 0, -6, "us" }, { 2, 0, -3, "ms" }, { 2, 0, 0, "s" },
		{ 3, 0, 0, "cycles" }, { 3, 1, 0, "cycles" }, { 4, 0, 0, "boolean" },
	};
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i].unit == d->unit && named[i].base == d->base && named[i].exp == d->exponent)
			return named[i].name;
	if (d->unit >= sizeof(units) / sizeof(units[0]) || d->base > 1)
		snprintf(buf, len, "unit %u base %u exponent %d", d->unit, d->base, d->exponent);
	else
		snprintf(buf, len, "%s^%d%s%s", d->base ? "2" : "10", d->exponent,
			 d->unit ? " " : "", units[d->unit]);
	return buf;
}

uint64_t kstat_bucket_le(const struct kstat_desc *d, unsigned int i)
{
	if (i + 1 >= d->size)
		return UINT64_MAX;
	if (d->kind == KSTAT_LOG_HIST)
		return i >= 64 ? UINT64_MAX : (i ? (UINT64_C(1) << i) - 1 : 0);
	/* linear: bucket i holds [i * bucket_size, (i + 1) * bucket_size) */
	if ((uint64_t)(i + 1) > UINT64_MAX / d->bucket_size)
		return UINT64_MAX;
	return (uint64_t)(i + 1) * d->bucket_size - 1;
}

void kstat_table_free(struct kstat_table *t)
{
	free(t->d);
	memset(t, 0, sizeof(*t));
}

int kstat_table_find(const struct kstat_table *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->d[i].name, name))
			return (int)i;
	return -1;
}

int kstat_table_intern(struct kstat_table *t, const struct kstat_desc *d, char *err, size_t errlen)
{
	int i = kstat_table_find(t, d->name);
	struct kstat_desc *n;

	if (i >= 0) {
		if (t->d[i].kind != d->kind || t->d[i].size != d->size) {
			snprintf(err, errlen, "statistic %s was %s of %u values, now %s of %u",
				 d->name, kstat_kind_name(t->d[i].kind), t->d[i].size,
				 kstat_kind_name(d->kind), d->size);
			return -1;
		}
		return i;
	}
	if (t->nr == KSTAT_DESC_MAX) {
		snprintf(err, errlen, "more than %u statistics", KSTAT_DESC_MAX);
		return -1;
	}
	if (t->nr == t->alloc) {
		unsigned int a = t->alloc ? t->alloc * 2 : 64;

		n = reallocarray(t->d, a, sizeof(*n));
		if (!n) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		t->d = n;
		t->alloc = a;
	}
	n = &t->d[t->nr];
	*n = *d;
	n->slot = t->nr_slots;
	t->nr_slots += d->size;
	return (int)t->nr++;
}
