// SPDX-License-Identifier: GPL-2.0
/*
 * KVM binary statistics files (Documentation/virt/kvm/api.rst,
 * "KVM_GET_STATS_FD"): header, id, descriptors, data, at the offsets the
 * header gives, in the host's byte order.  Everything read is checked
 * against the file and kvmtop's bounds before it is used: the parser is
 * fed fixtures and fuzzed as well as the kernel's files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "stats_file.h"

/* The fixed part of a descriptor, before its name (struct kvm_stats_desc). */
#define DESC_FIXED	16

/* len bytes at off, all of them: 0, or -1 with err saying what was short. */
static int read_at(int fd, void *buf, size_t len, uint64_t off, const char *what,
		   char *err, size_t errlen)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "reading the %s at byte %llu: %s", what,
				 (unsigned long long)off, strerror(errno));
			return -1;
		}
		if (!n) {
			snprintf(err, errlen, "the %s (%zu bytes at byte %llu) is cut short after %zu bytes",
				 what, len, (unsigned long long)off, got);
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

/* A descriptor's fields from its bytes p; 1: a kind or shape not known here, skip it. */
static int desc_parse(const unsigned char *p, uint32_t name_size, unsigned int idx,
		      struct kstat_desc *d, char *err, size_t errlen)
{
	struct kvm_stats_desc raw;
	const char *name = (const char *)p + DESC_FIXED;
	size_t nlen = strnlen(name, name_size);
	unsigned int type;

	memcpy(&raw, p, DESC_FIXED);
	if (nlen == name_size || !nlen) {
		snprintf(err, errlen, "descriptor %u: name %s", idx,
			 nlen ? "has no terminating NUL within name_size" : "is empty");
		return -1;
	}
	memset(d, 0, sizeof(*d));
	strlcpy(d->name, name, sizeof(d->name));
	type = (raw.flags & KVM_STATS_TYPE_MASK) >> KVM_STATS_TYPE_SHIFT;
	d->unit = (raw.flags & KVM_STATS_UNIT_MASK) >> KVM_STATS_UNIT_SHIFT;
	d->base = (raw.flags & KVM_STATS_BASE_MASK) >> KVM_STATS_BASE_SHIFT;
	d->exponent = raw.exponent;
	d->size = raw.size;
	d->offset = raw.offset;
	d->bucket_size = raw.bucket_size;
	/* a kind from a newer kernel: not ours to read */
	if (type >= KSTAT_KINDS)
		return 1;
	if (!raw.size) {
		snprintf(err, errlen, "descriptor %u (%s): size 0, no values", idx, d->name);
		return -1;
	}
	if (raw.offset % 8) {
		snprintf(err, errlen, "descriptor %u (%s): offset %u is not a multiple of 8",
			 idx, d->name, raw.offset);
		return -1;
	}
	if ((uint64_t)raw.offset + (uint64_t)raw.size * 8 > KSTAT_DATA_MAX) {
		snprintf(err, errlen, "descriptor %u (%s): values at offset %u, size %u, past %u bytes",
			 idx, d->name, raw.offset, raw.size, KSTAT_DATA_MAX);
		return -1;
	}
	/* a scalar of several values: a shape not known here either */
	if (type < KSTAT_LINEAR_HIST && raw.size != 1)
		return 1;
	d->kind = (uint8_t)type;
	if (kstat_is_hist(d) && raw.size > KSTAT_BUCKETS_MAX) {
		snprintf(err, errlen, "descriptor %u (%s): %u buckets, more than %u",
			 idx, d->name, raw.size, KSTAT_BUCKETS_MAX);
		return -1;
	}
	if (d->kind == KSTAT_LINEAR_HIST && !raw.bucket_size) {
		snprintf(err, errlen, "descriptor %u (%s): a linear histogram with bucket_size 0",
			 idx, d->name);
		return -1;
	}
	return 0;
}

static int desc_seen(const struct kstat_layout *l, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->d[i].name, name))
			return 1;
	return 0;
}

int kstat_layout_read(int fd, struct kstat_layout *l, char *err, size_t errlen)
{
	struct kvm_stats_header h;
	unsigned char *raw = NULL;
	char *id = NULL;
	size_t desc_len;
	unsigned int i;

	memset(l, 0, sizeof(*l));
	if (read_at(fd, &h, sizeof(h), 0, "header", err, errlen))
		return -1;
	if (h.name_size < 2 || h.name_size > KSTAT_NAME_SIZE_MAX) {
		snprintf(err, errlen, "header: name_size %u, not from 2 to %u", h.name_size,
			 KSTAT_NAME_SIZE_MAX);
		return -1;
	}
	if (h.num_desc > KSTAT_DESC_MAX) {
		snprintf(err, errlen, "header: num_desc %u, more than %u", h.num_desc, KSTAT_DESC_MAX);
		return -1;
	}
	id = malloc(h.name_size);
	desc_len = (size_t)h.num_desc * (DESC_FIXED + h.name_size);
	raw = malloc(desc_len ? desc_len : 1);
	l->d = calloc(h.num_desc ? h.num_desc : 1, sizeof(*l->d));
	if (!id || !raw || !l->d) {
		snprintf(err, errlen, "out of memory");
		goto out_fail;
	}
	if (read_at(fd, id, h.name_size, h.id_offset, "id (header id_offset)", err, errlen))
		goto out_fail;
	if (strnlen(id, h.name_size) == h.name_size) {
		snprintf(err, errlen, "id at byte %u has no terminating NUL within name_size %u",
			 h.id_offset, h.name_size);
		goto out_fail;
	}
	strlcpy(l->id, id, sizeof(l->id));
	if (read_at(fd, raw, desc_len, h.desc_offset, "descriptors (header desc_offset)", err, errlen))
		goto out_fail;
	for (i = 0; i < h.num_desc; i++) {
		struct kstat_desc *d = &l->d[l->nr];
		int r = desc_parse(raw + (size_t)i * (DESC_FIXED + h.name_size), h.name_size, i,
				   d, err, errlen);

		if (r < 0)
			goto out_fail;
		if (r > 0) {
			l->unknown++;
			continue;
		}
		if (desc_seen(l, d->name)) {
			snprintf(err, errlen, "descriptor %u (%s): the name is used twice", i, d->name);
			goto out_fail;
		}
		if (d->offset + (uint32_t)d->size * 8 > l->data_size)
			l->data_size = d->offset + (uint32_t)d->size * 8;
		l->nr++;
	}
	l->data_offset = h.data_offset;
	free(id);
	free(raw);
	return 0;
out_fail:
	free(id);
	free(raw);
	kstat_layout_free(l);
	return -1;
}

void kstat_layout_free(struct kstat_layout *l)
{
	free(l->d);
	l->d = NULL;
	l->nr = 0;
}

int kstat_data_read(int fd, const struct kstat_layout *l, uint64_t *vals, char *err, size_t errlen)
{
	if (!l->data_size)
		return 0;
	return read_at(fd, vals, l->data_size, l->data_offset, "data block (header data_offset)",
		       err, errlen);
}
