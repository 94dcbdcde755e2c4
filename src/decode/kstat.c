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

/* The suffix of d's key, and the exponent of 10 (or 2) its raw values are scaled by to get there. */
static const char *kstat_key_suffix(const struct kstat_desc *d, int *scale)
{
	*scale = 0;
	if (kstat_is_hist(d))
		return "";
	switch (d->unit) {
	case 1:
		*scale = d->exponent;
		return "_bytes";
	case 2:
		/* 2^E seconds: no kernel has one; kept as counted, under its own name */
		*scale = d->exponent + 9;
		return d->base ? "" : "_ns";
	case 3:
		return "_cycles";
	default:
		return "";
	}
}

void kstat_key(const struct kstat_desc *d, char *buf, size_t len)
{
	/* the unit words a kernel's name may end in, by unit */
	static const char *const words[] = {
		"_ns", "_us", "_ms", "_seconds", "_secs", "_sec", "_s", "_bytes", "_kb", "_kib",
		"_mb", "_mib", "_gb", "_gib", "_cycles",
	};
	size_t n = strlen(d->name), i;
	int scale;
	const char *suffix = kstat_key_suffix(d, &scale);

	for (i = 0; *suffix && i < sizeof(words) / sizeof(words[0]); i++) {
		size_t w = strlen(words[i]);

		if (n > w && !strcmp(d->name + n - w, words[i])) {
			n -= w;
			break;
		}
	}
	snprintf(buf, len, "%.*s%s", (int)n, d->name, suffix);
}

const char *kstat_key_unit(const struct kstat_desc *d, char *buf, size_t len)
{
	int scale;
	const char *suffix = kstat_key_suffix(d, &scale);

	if (*suffix)
		return suffix + 1;
	if (!kstat_is_hist(d) && (d->unit == 0 || d->unit == 4) && !d->exponent)
		return d->unit ? "boolean" : "";
	return kstat_unit(d, buf, len);
}

uint64_t kstat_key_value(const struct kstat_desc *d, uint64_t raw)
{
	int scale;
	bool pow2 = d->base == 1;

	if (!*kstat_key_suffix(d, &scale))
		return raw;
	for (; scale > 0; scale--) {
		uint64_t m = pow2 ? 2 : 10;

		if (raw > UINT64_MAX / m)
			return UINT64_MAX;
		raw *= m;
	}
	for (; scale < 0; scale++)
		raw /= pow2 ? 2 : 10;
	return raw;
}

bool kstat_key_big(const struct kstat_desc *d)
{
	int scale;

	return !strcmp(kstat_key_suffix(d, &scale), "_ns");
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
