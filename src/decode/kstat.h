/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's binary statistics (Linux 5.14+) as the model names them: one
 * descriptor per statistic (name, kind, unit, exponent, how many values),
 * interned by the stats source (sources/stats.c) into a kstat_table per
 * scope, which the model and every view read.  Reading the files is the
 * source's (sources/stats_file.h); nothing here does I/O.
 */
#ifndef KVMTOP_KSTAT_H
#define KVMTOP_KSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's names are at most 48 bytes with their NUL (KVM_STATS_NAME_SIZE). */
#define KSTAT_NAME_LEN		64
/* The most statistics a table (or one file) holds: memory stays bounded. */
#define KSTAT_DESC_MAX		4096
enum kstat_kind {
	KSTAT_CUMULATIVE,	/* only grows: shown as its growth */
	KSTAT_INSTANT,		/* a value now */
	KSTAT_PEAK,		/* the largest value seen */
	KSTAT_LINEAR_HIST,	/* buckets of bucket_size each */
	KSTAT_LOG_HIST,		/* bucket i: values of i bits (0 in bucket 0) */
	KSTAT_KINDS,
};

struct kstat_desc {
	char name[KSTAT_NAME_LEN];
	uint8_t kind;		/* enum kstat_kind; KSTAT_KINDS: a kind this kvmtop does not know */
	uint8_t unit;		/* KVM_STATS_UNIT_* >> shift: 0 none, 1 bytes, 2 seconds, 3 cycles, 4 boolean */
	uint8_t base;		/* 0: exponent of 10, 1: of 2 */
	int16_t exponent;
	uint16_t size;		/* u64 values: 1, or the buckets of a histogram */
	uint32_t offset;	/* bytes into the data block */
	uint32_t bucket_size;	/* linear histograms */
	uint32_t slot;		/* in a kstat_table: the first of its values' slots */
};

static inline bool kstat_is_hist(const struct kstat_desc *d)
{
	return d->kind == KSTAT_LINEAR_HIST || d->kind == KSTAT_LOG_HIST;
}

/* Whether d grows only (cumulative counters and histograms' buckets). */
static inline bool kstat_grows(const struct kstat_desc *d)
{
	return d->kind == KSTAT_CUMULATIVE || kstat_is_hist(d);
}

const char *kstat_kind_name(enum kstat_kind k);
/*
 * d's unit as output writes it: "" (a count), "ns", "us", "ms", "s",
 * "bytes", "KiB", "MiB", "GiB", "cycles", "boolean", or the unit with
 * its exponent ("10^-2 s", "2^3 bytes") where there is no name for it.
 */
const char *kstat_unit(const struct kstat_desc *d, char *buf, size_t len);
/*
 * The largest value bucket i of histogram d holds (inclusive), in d's
 * unit; UINT64_MAX for the last bucket, which holds everything above.
 */
uint64_t kstat_bucket_le(const struct kstat_desc *d, unsigned int i);

/*
 * d's name and unit as kvmtop's fields name them (HACKING, "Names of
 * figures"; the vm_kvm_ and vcpu_kvm_ families): a single value in the
 * rule's base units, the kernel's name less its own unit word
 * (_ns, _us, _bytes, _kb ...) and with the unit's suffix: a duration
 * in ns, whole (_ns: never rounded to seconds, a sum past 2^53 stays
 * exact), bytes (_bytes), cycles (_cycles); a count or a boolean as
 * named.  A histogram keeps its name and its unit (its values are
 * counts, its bounds kstat_bucket_le()'s).
 */
void kstat_key(const struct kstat_desc *d, char *buf, size_t len);
/* The unit kstat_key()'s value is in: "", "ns", "bytes", "cycles", "boolean", or kstat_unit()'s. */
const char *kstat_key_unit(const struct kstat_desc *d, char *buf, size_t len);
/* raw, a value of d as the kernel counts it, in kstat_key_unit()'s unit (saturated at UINT64_MAX). */
uint64_t kstat_key_value(const struct kstat_desc *d, uint64_t raw);
/* Whether d's value can pass 2^53 within a year (a sum of ns): JSON writes it as a decimal string. */
bool kstat_key_big(const struct kstat_desc *d);

/* The statistics of one scope (every VM, or every vCPU), by name, as met. */
struct kstat_table {
	struct kstat_desc *d;
	unsigned int nr;
	unsigned int alloc;
	unsigned int nr_slots;	/* values of all of them: a row's array length */
};

enum kstat_scope {
	KSTAT_VM,
	KSTAT_VCPU,
	KSTAT_SCOPES,
};

void kstat_table_free(struct kstat_table *t);
/*
 * The index of d in t by name, adding it (with its slots) if new.  -1
 * when memory ran out or a statistic of that name was met with another
 * kind or number of values (a kernel that changed under kvmtop: err says
 * so).
 */
int kstat_table_intern(struct kstat_table *t, const struct kstat_desc *d, char *err, size_t errlen);
/* The index of name in t, or -1. */
int kstat_table_find(const struct kstat_table *t, const char *name);

#endif
