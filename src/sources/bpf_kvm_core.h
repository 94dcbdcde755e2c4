/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bpf source's program's arithmetic, for BPF only: included by the
 * program (bpf_kvm.bpf.c) and by the test programs that run it on the
 * test's own numbers with BPF_PROG_TEST_RUN (tests/bpf_test.bpf.c), so
 * what the tests check is what runs at each exit.
 */
#ifndef KVMTOP_BPF_KVM_CORE_H
#define KVMTOP_BPF_KVM_CORE_H

#include "bpf_kvm.h"

/* An exit's info fields kept where a rule says they name its object, else 0. */
static __always_inline void keep_info(const struct kx_cfg *c, __u64 *vals)
{
	__u64 info1 = vals[KX_EXIT_INFO1], info2 = vals[KX_EXIT_INFO2];
	int i;

	vals[KX_EXIT_INFO1] = 0;
	vals[KX_EXIT_INFO2] = 0;
	for (i = 0; i < KX_RULES; i++) {
		const struct kx_rule *r = &c->rule[i];

		if (i >= c->nr_rules)
			break;
		if (vals[0] != r->reason || vals[1] != r->isa)
			continue;
		vals[KX_EXIT_INFO1] = info1 & r->info1_mask;
		if ((info1 & r->info2_if) == r->info2_if)
			vals[KX_EXIT_INFO2] = info2 & r->info2_mask;
		break;
	}
}

/* hist.c's bucket of v: octave * 32 + sub. */
static __always_inline __u32 bucket_of(__u64 v)
{
	__u32 msb = 0;
	__u64 x = v;

	if (v < (1u << KX_SUB_BITS))
		return (__u32)v;
	if (x >> 32) { msb += 32; x >>= 32; }
	if (x >> 16) { msb += 16; x >>= 16; }
	if (x >> 8) { msb += 8; x >>= 8; }
	if (x >> 4) { msb += 4; x >>= 4; }
	if (x >> 2) { msb += 2; x >>= 2; }
	if (x >> 1) msb += 1;
	return (msb - KX_SUB_BITS + 1) << KX_SUB_BITS |
	       (__u32)((v >> (msb - KX_SUB_BITS)) & ((1u << KX_SUB_BITS) - 1));
}

/* *lo:*hi += a * a, 128 bits, atomically for each half. */
static __always_inline void add_square(__u64 *lo, __u64 *hi, __u64 a)
{
	__u64 al = a & 0xffffffffull, ah = a >> 32;
	__u64 ll = al * al, mid = al * ah, hh = ah * ah;
	__u64 mlo = mid << 33, mhi = mid >> 31;	/* 2 * mid, split at bit 64 */
	__u64 low = ll + mlo, old;

	hh += mhi + (low < ll);
	old = __sync_fetch_and_add(lo, low);
	if (old + low < old)
		hh++;
	if (hh)
		__sync_fetch_and_add(hi, hh);
}

static __always_inline void lat_add(struct kx_lat *v, __u64 lat)
{
	__u64 old, cur;
	__s64 d = (__s64)(lat - v->shift);
	int i;

	__sync_fetch_and_add(&v->n, 1);
	old = __sync_fetch_and_add(&v->sum, lat);
	if (old + lat < old)
		__sync_fetch_and_add(&v->sum_hi, 1);
	for (i = 0, cur = v->min; i < 8 && lat < cur; i++) {
		old = __sync_val_compare_and_swap(&v->min, cur, lat);
		if (old == cur)
			break;
		cur = old;
	}
	for (i = 0, cur = v->max; i < 8 && lat > cur; i++) {
		old = __sync_val_compare_and_swap(&v->max, cur, lat);
		if (old == cur)
			break;
		cur = old;
	}
	__sync_fetch_and_add(&v->dsum, d);
	add_square(&v->sq, &v->sq_hi, d < 0 ? (__u64)-d : (__u64)d);
}

/* --- time states (model_time.c's, counted where they change) --- */

/* ns added to t's state cur: to the interval parity e's, and the pending exit's where it is one. */
static __always_inline void state_add(struct kx_thread *t, __u32 cur, __u32 e, __u64 d, __u64 pend)
{
	if (cur >= KX_STATES || !d)
		return;
	__sync_fetch_and_add(&t->tacc[e & 1][cur], d);
	if (pend && t->pending)
		__sync_fetch_and_add(&t->pend[cur], pend);
}

/*
 * Thread t goes to state st at now (KX_ST_NONE: the state it gets a CPU
 * back in, on_cpu; host before any), where it is in one of the states
 * of mask only (0: any).  Before its first change it was in before,
 * from its interval's start (start: the interval parity e's).  Its time
 * since its last change goes to the state it leaves: the part before
 * start to the interval before (e ^ 1), the rest to e.  A waker changes
 * a sleeper's state while a switch may change it too: a compare-and-swap
 * of the one word, tried again.  The state it left, or KX_ST_NONE where
 * it did not change.
 */
static __always_inline __u32 state_to(struct kx_thread *t, __u32 st, __u32 before, __u32 only, __u64 now,
				       __u32 e, __u64 start)
{
	__u64 old, since, from;
	__u32 cur, to;
	int i;

	for (i = 0; i < 8; i++) {
		old = *(volatile __u64 *)&t->st;
		cur = (__u32)(old & ((1u << KX_ST_BITS) - 1));
		since = old >> KX_ST_BITS;
		if (cur == KX_ST_NONE) {
			cur = before;
			since = start;
		}
		if (only && !(only & (1u << cur)))
			return KX_ST_NONE;
		to = st != KX_ST_NONE ? st : (old & ((1u << KX_ST_BITS) - 1)) == KX_ST_NONE ? KX_ST_HOST : t->on_cpu;
		/* another CPU's clock a little behind: no time back */
		if (now < since)
			now = since;
		if (__sync_val_compare_and_swap(&t->st, old, now << KX_ST_BITS | to) == old)
			break;
	}
	if (i == 8)
		return KX_ST_NONE;
	from = since;
	if (since < start) {
		state_add(t, cur, e ^ 1, start - since, 0);
		since = start;
	}
	state_add(t, cur, e, now - since, now - from);
	return cur;
}

/*
 * Thread t's time to start, the start of the interval parity e (the
 * loader's cut before it reads the one before): what it spent since its
 * last change goes to the interval before, so that one is whole.
 */
static __always_inline void state_cut(struct kx_thread *t, __u32 e, __u64 start)
{
	__u64 old, since;
	__u32 cur;
	int i;

	for (i = 0; i < 8; i++) {
		old = *(volatile __u64 *)&t->st;
		cur = (__u32)(old & ((1u << KX_ST_BITS) - 1));
		since = old >> KX_ST_BITS;
		if (cur == KX_ST_NONE || since >= start)
			return;
		if (__sync_val_compare_and_swap(&t->st, old, start << KX_ST_BITS | cur) == old)
			break;
	}
	if (i < 8)
		state_add(t, cur, e ^ 1, start - since, start - since);
}

/* --- stolen time --- */

/* What of [from, to) stretch [start, end) spans. */
static __always_inline __u64 overlap(__u64 start, __u64 end, __u64 from, __u64 to)
{
	__u64 a = start > from ? start : from, b = end < to ? end : to;

	return b > a ? b - a : 0;
}

/*
 * A wait of [from, to) on CPU cpu's queue split among who ran there: its
 * current thread for its stretch so far, then each logged stretch, newest
 * first (each began where the one before it ended); what the log no
 * longer holds, unseen.  Into out[KX_STRETCHES + 1]: how many.
 */
static __always_inline __u32 steal_split(const struct kx_cpu *cpu, __u64 from, __u64 to, struct kx_give *out)
{
	__u64 given, end, began, d;
	__u32 h = cpu->head, i, n = 0;

	d = overlap(cpu->since, to, from, to);
	out[n++] = (struct kx_give){ .ns = d, .tid = cpu->tid, .slot = KX_STRETCHES };
	given = d;
	end = cpu->since;
	for (i = 0; i + 1 < KX_STRETCHES && end > from; i++) {
		const struct kx_stretch *s = &cpu->log[(h - 1 - i) & (KX_STRETCHES - 1)];

		began = cpu->log[(h - 2 - i) & (KX_STRETCHES - 1)].end;
		/* an empty slot, or one written since (another CPU's log, read while it switches) */
		if (!s->end || s->end > end || !began || began > s->end)
			break;
		d = overlap(began, s->end, from, to);
		out[n++] = (struct kx_give){ .ns = d, .tid = s->tid, .slot = (h - 1 - i) & (KX_STRETCHES - 1) };
		given += d;
		end = began;
	}
	if (to - from > given)
		out[n++] = (struct kx_give){ .ns = to - from - given, .tid = KX_THIEF_UNSEEN, .slot = KX_STRETCHES + 1 };
	return n;
}

/*
 * An exit of thread t counted towards its next sample: non-zero where
 * it is one (every every'th exit of the thread; every 0: none), with
 * t->weight the exits it stands for, its own and those since the last.
 */
static __always_inline int sample_due(struct kx_thread *t, __u64 every)
{
	t->since++;
	t->sampled = 0;
	if (!every || t->since < every)
		return 0;
	t->sampled = 1;
	t->weight = t->since;
	t->since = 0;
	return 1;
}

/* The sample the ring buffer refused (full): its exits go to the thread's next one. */
static __always_inline void sample_refused(struct kx_thread *t)
{
	t->since += t->weight;
}

#endif
