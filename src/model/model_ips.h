/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampled guest IPs: a bounded table of the most frequent guest
 * instruction pointers of one vCPU, kept as a space-saving summary
 * (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and
 * top-k elements in data streams", 2005).
 *
 * While the table has room every count is exact.  Once it is full, a new
 * IP takes the place of the least counted one and inherits its count:
 * an entry's count then overstates the IP's true count by at most its
 * err, every IP seen more than samples / capacity times is in the table,
 * and the counts still add up to the number of samples exactly.  Memory
 * is capacity entries whatever the input.
 *
 * The key of an entry is (ip, reason, mode): exit sites are kept per
 * exit reason; time samples (asynchronous exits) use reason -1.
 */
#ifndef KVMTOP_MODEL_IPS_H
#define KVMTOP_MODEL_IPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/kvm_event.h"

#define MODEL_IPS_DEFAULT	256	/* entries per vCPU and kind */
#define MODEL_IPS_MAX		65536

/* Which IPs a table holds (see "sampled guest IP" in kvmtop(1)). */
enum ip_kind {
	IP_TIME,	/* of asynchronous exits: where the guest runs */
	IP_EXIT,	/* of synchronous exits: what makes it exit, per reason */
	IP_KINDS,
};

struct ip_entry {
	uint64_t ip;
	uint64_t count;		/* overstates the true count by at most err */
	uint64_t err;
	int32_t reason_id;	/* IP_EXIT: the exit reason; IP_TIME: -1 */
	int8_t mode;		/* enum guest_mode */
};

struct model_ips {
	/*
	 * Once the table is full, a min-heap on count (e[0] counts least,
	 * the entry a new IP takes); while it has room, in no order: no
	 * sample pays for a heap no one needs yet.
	 */
	struct ip_entry *e;
	uint32_t *slot;		/* e[i]'s slot in hash */
	uint32_t *hash;		/* open addressing, linear probing: index in e + 1, 0 empty */
	unsigned int nr;
	unsigned int alloc;	/* grows by doubling up to cap */
	unsigned int cap;
	unsigned int mask;	/* hash has mask + 1 slots, at least 2 * alloc */
	bool heap;		/* e is a heap: the table was full since the last clear */
	uint64_t samples;	/* added since the start or the last clear: the sum of the counts */
	uint64_t replaced;	/* entries given to a new IP when full */
};

/* An empty table of at most cap entries (1..MODEL_IPS_MAX); memory comes with the first IPs. */
void model_ips_init(struct model_ips *t, unsigned int cap);
void model_ips_free(struct model_ips *t);
/* Forget every IP (the screen's reset); the memory stays. */
void model_ips_clear(struct model_ips *t);
/* One sample: 0, or -1 when memory ran out (the sample is not counted). */
int model_ips_add(struct model_ips *t, uint64_t ip, int reason_id, enum guest_mode mode);
/* n samples of one IP at once (one taken for every n exits, the bpf source's): as model_ips_add. */
int model_ips_add_n(struct model_ips *t, uint64_t ip, int reason_id, enum guest_mode mode, uint64_t n);

/*
 * The entries of n tables (a VM's vCPUs), entries of the same key summed:
 * *out (malloc'd, free it) holds the result, sorted by key; its length,
 * or -1 when memory ran out.
 */
long model_ips_merge(const struct model_ips *const *t, size_t n, struct ip_entry **out);
/*
 * Sort e[0..n) by key and sum the entries of one key into one: the new
 * length.  merged, if not NULL (n long), gets how many entries each
 * result summed.
 */
size_t model_ips_sum(struct ip_entry *e, size_t n, unsigned int *merged);
/* qsort order: most counted first, then by key. */
int model_ips_cmp_count(const void *a, const void *b);

#endif
