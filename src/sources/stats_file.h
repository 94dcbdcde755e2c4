/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's binary statistics (Linux 5.14+): the file a VM or vCPU fd hands
 * out for KVM_GET_STATS_FD.  It holds a header, an id string, one
 * descriptor per statistic (name, kind, unit, exponent, how many u64
 * values and where they are) and a data block of u64 values.  The layout
 * is read once (kstat_layout_read), the data with one pread per interval
 * (kstat_data_read).  Nothing here knows the model: the stats source
 * (stats.c) interns the descriptors into a kstat_table (decode/kstat.h),
 * which the model and every view read.
 */
#ifndef KVMTOP_STATS_FILE_H
#define KVMTOP_STATS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/kstat.h"

/* Bounds on what kvmtop reads from one stats file: memory stays bounded. */
#define KSTAT_NAME_SIZE_MAX	256
#define KSTAT_DATA_MAX		(1u << 20)
/* Histograms of more buckets are refused (the kernel's have 32). */
#define KSTAT_BUCKETS_MAX	1024

/* What a stats file holds, from its header and descriptors. */
struct kstat_layout {
	char id[KSTAT_NAME_LEN];	/* "kvm-PID" or "kvm-PID/vcpu-N" (truncated) */
	uint32_t data_offset;
	uint32_t data_size;	/* bytes the descriptors' values span */
	unsigned int nr;
	unsigned int unknown;	/* descriptors of a kind not known here: left out */
	struct kstat_desc *d;	/* nr of them, in the file's order */
};

/*
 * The header and descriptors of stats file fd.  0, or -1 with one line in
 * err naming the field (a short file, an offset past it, a name without
 * its NUL, values outside the data block, a histogram of no buckets ...).
 * Descriptors of a kind this kvmtop does not know are counted in
 * ->unknown and left out, so a newer kernel still reads.
 */
int kstat_layout_read(int fd, struct kstat_layout *l, char *err, size_t errlen);
void kstat_layout_free(struct kstat_layout *l);
/*
 * The data block: data_size / 8 values into vals (one pread).  0, or -1
 * with one line in err (a short read: the file is shorter than its
 * descriptors say).
 */
int kstat_data_read(int fd, const struct kstat_layout *l, uint64_t *vals, char *err, size_t errlen);
/* Descriptor d's i-th value in a data block read by kstat_data_read. */
static inline uint64_t kstat_value(const uint64_t *vals, const struct kstat_desc *d, unsigned int i)
{
	return vals[d->offset / 8 + i];
}

#endif
