// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's counters over the run (samplers_priv.h): each reading's growth
 * since the one before added to the VM's sums, a tap's one by one; at each
 * snapshot the rates are the sums' growth since the snapshot before, over
 * its length.  A counter's first reading counts nothing (what it grew
 * before is not known), but for a VMM that began after kvmtop, whose
 * counters began at zero while kvmtop watched, and a tap whose birth
 * rtnetlink told of (from its counters then); a tap's end rtnetlink told
 * of adds its growth to its end (context_net.c).  A counter that went back
 * (a thread gone with its share, an interface made anew) loses that step:
 * its interval's rate and its total are then unknown, never a guess.
 */
#include <stdlib.h>
#include <string.h>

#include "samplers_priv.h"
#include "model/model.h"

/* The figures that are levels, kept as read: the others are counters. */
#define CTX_LEVELS	(1u << CTX_RSS | 1u << CTX_RSS_PEAK | 1u << CTX_SWAP | 1u << CTX_RAM | \
			 1u << CTX_HUGE | 1u << CTX_NODE | 1u << CTX_NODE_PCT | 1u << CTX_LOCAL_PCT)
/* The counters the taps' make: f's tap counter is f - CTX_RX_BPS. */
#define CTX_NET		(1u << CTX_RX_BPS | 1u << CTX_TX_BPS | 1u << CTX_RX_PPS | 1u << CTX_TX_PPS | \
			 1u << CTX_DROPS)

_Static_assert(CTX_TX_BPS - CTX_RX_BPS == CTX_TAP_TXB && CTX_RX_PPS - CTX_RX_BPS == CTX_TAP_RXP &&
	       CTX_TX_PPS - CTX_RX_BPS == CTX_TAP_TXP && CTX_DROPS - CTX_RX_BPS == CTX_TAP_DROPS &&
	       CTX_TAP_NR == 5, "the VM's network figures are its taps' counters, in order");

/*
 * A counter's rate per second is its growth times this scale.  Delay
 * ticks and PSI's µs become % of the interval.
 */
static double sum_scale(const struct context *c, enum vm_ctx_fig f)
{
	switch (f) {
	case CTX_BLKIO:
		return 100.0 / (double)c->clk_tck;
	case CTX_CPU_SOME:
	case CTX_CPU_FULL:
	case CTX_MEM_SOME:
	case CTX_MEM_FULL:
	case CTX_IO_SOME:
	case CTX_IO_FULL:
		return 100.0 / 1e6;
	default:
		return 1;
	}
}

/* Counter f of x read as v: its growth into sum[f] (from zero where born, a first reading). */
static void sum_counter(struct vm_ctx *x, int f, uint64_t v, bool born, bool at_start)
{
	uint32_t bit = 1u << f;

	if (!(x->prev_known & bit)) {
		x->sum[f] = born ? v : 0;
		x->base[f] = 0;
		x->summed |= bit;
		x->whole |= bit;
		x->base_ok = born || at_start ? x->base_ok | bit : x->base_ok & ~bit;
	} else if (v >= x->prev[f]) {
		x->sum[f] += v - x->prev[f];
	} else {
		/* it went back: what it grew in this step is lost */
		x->whole &= ~bit;
		x->base_ok &= ~bit;
	}
	x->prev[f] = v;
	x->prev_known |= bit;
}

/* x's tap called name, or a new one (NULL: CTX_TAPS of them already, or no memory). */
static struct vm_ctx_tap *sum_tap(struct vm_ctx *x, const char *name, bool *is_new)
{
	struct vm_ctx_tap *t;
	int k;

	*is_new = false;
	for (k = 0; k < x->nr_tap_rows; k++)
		if (!strcmp(x->taps[k].name, name))
			return &x->taps[k];
	if (x->nr_tap_rows >= CTX_TAPS)
		return NULL;
	/* grown one at a time: most VMs hold one or two */
	t = reallocarray(x->taps, (size_t)x->nr_tap_rows + 1, sizeof(*t));
	if (!t)
		return NULL;
	x->taps = t;
	t = &x->taps[x->nr_tap_rows++];
	memset(t, 0, sizeof(*t));
	memcpy(t->name, name, sizeof(t->name));
	*is_new = true;
	return t;
}

/* x's network figures: its taps' sums, known where every tap's are. */
static void sum_net(struct vm_ctx *x)
{
	bool ok = true, whole = !x->taps_cut;
	int k, i;

	if (!x->nr_tap_rows)
		return;		/* no tap: no network figures, not zeros */
	for (i = 0; i < CTX_TAP_NR; i++)
		x->sum[CTX_RX_BPS + i] = x->base[CTX_RX_BPS + i] = 0;
	for (k = 0; k < x->nr_tap_rows; k++) {
		const struct vm_ctx_tap *t = &x->taps[k];

		for (i = 0; i < CTX_TAP_NR; i++) {
			x->sum[CTX_RX_BPS + i] += t->sum[i];
			x->base[CTX_RX_BPS + i] += t->base[i];
		}
		ok = ok && t->base_ok;
		whole = whole && t->whole;
	}
	x->summed |= CTX_NET;
	x->whole = whole ? x->whole | CTX_NET : x->whole & ~CTX_NET;
	x->base_ok = ok ? x->base_ok | CTX_NET : x->base_ok & ~CTX_NET;
}

/*
 * Tap t, new to its VM, first read as reading r's tap k: born while
 * kvmtop watched, it counts from its counters then (its whole life); else
 * from this reading, its interval's growth known at the run's start alone.
 */
static void sum_tap_first(struct vm_ctx_tap *t, const struct ctx_reading *r, int k, bool at_start)
{
	int i;

	t->whole = true;
	t->base_ok = at_start || r->tap_born[k];
	t->from = r->tap_born[k] ? MODEL_FROM_BIRTH : at_start ? MODEL_FROM_START : MODEL_FROM_FOUND;
	for (i = 0; i < CTX_TAP_NR; i++) {
		if (!r->tap_born[k])
			t->sum[i] = 0;
		else if (r->tap_ctr[k][i] >= r->tap_birth[k][i])
			t->sum[i] = r->tap_ctr[k][i] - r->tap_birth[k][i];
		else
			t->whole = t->base_ok = false;
	}
}

/*
 * x's taps held at its last whole reading and let go now (whole), where
 * no rtnetlink tells of their ends (r->ends_unseen): what each grew after
 * its last reading is lost, so its figures say so.
 */
static void sum_let_go(struct vm_ctx *x, const struct ctx_reading *r)
{
	int k, j;

	for (k = 0; k < x->nr_tap_rows; k++) {
		struct vm_ctx_tap *t = &x->taps[k];
		bool still = false;

		for (j = 0; j < r->nr_tap_rows && !still; j++)
			still = !strcmp(r->tap[j], t->name);
		if (t->held && !still)
			t->whole = t->base_ok = false;
	}
}

/* r's taps into x's, one by one (whole: r has every tap its VMM holds, the others are let go). */
static void sum_taps(struct vm_ctx *x, const struct ctx_reading *r, bool at_start, bool whole)
{
	int k, i;

	if (r->nr_tap_rows < 0)
		return;
	if (whole && r->ends_unseen)
		sum_let_go(x, r);
	for (k = 0; whole && k < x->nr_tap_rows; k++)
		x->taps[k].held = false;
	for (k = 0; k < r->nr_tap_rows; k++) {
		const uint64_t *ctr = r->tap_ctr[k];
		bool is_new, back = false;
		struct vm_ctx_tap *t = sum_tap(x, r->tap[k], &is_new);

		if (!t) {
			x->taps_cut = true;
			continue;
		}
		for (i = 0; !is_new && i < CTX_TAP_NR; i++)
			back = back || ctr[i] < t->prev[i];
		if (is_new) {
			sum_tap_first(t, r, k, at_start);
		} else if (back) {
			/* the interface was made anew: what it counted in this step is lost */
			t->whole = t->base_ok = false;
		} else {
			for (i = 0; i < CTX_TAP_NR; i++)
				t->sum[i] += ctr[i] - t->prev[i];
		}
		memcpy(t->prev, ctr, sizeof(t->prev));
		t->held = true;
	}
	if (whole && r->taps_cut)
		x->taps_cut = true;
	sum_net(x);
}

void sample_sum_tap_end(struct vm_ctx *x, const char *name, const uint64_t *final, const uint64_t *at_birth)
{
	bool is_new, back = false;
	struct vm_ctx_tap *t = sum_tap(x, name, &is_new);
	int i;

	if (!t) {
		x->taps_cut = true;
		return;
	}
	if (is_new) {
		/* born and ended between two readings: its whole life, where its birth was seen */
		t->whole = t->base_ok = at_birth != NULL;
		t->from = at_birth ? MODEL_FROM_BIRTH : MODEL_FROM_FOUND;
		for (i = 0; i < CTX_TAP_NR && at_birth; i++) {
			back = back || final[i] < at_birth[i];
			t->sum[i] = back ? 0 : final[i] - at_birth[i];
		}
	} else {
		for (i = 0; i < CTX_TAP_NR; i++)
			back = back || final[i] < t->prev[i];
		for (i = 0; i < CTX_TAP_NR && !back; i++)
			t->sum[i] += final[i] - t->prev[i];
	}
	if (back)
		t->whole = t->base_ok = false;
	memcpy(t->prev, final, sizeof(t->prev));
	t->held = false;
	t->ended = true;
	x->tap_ended = true;
	sum_net(x);
}

void sample_sum_tap_lost(struct vm_ctx *x, const char *name)
{
	int k;

	for (k = 0; k < x->nr_tap_rows; k++)
		if (!strcmp(x->taps[k].name, name)) {
			x->taps[k].whole = x->taps[k].base_ok = false;
			x->taps[k].held = false;
			sum_net(x);
			return;
		}
}

void sample_sum_reading(struct vm_ctx *x, const struct ctx_reading *r, uint64_t now, bool born, bool at_start,
			bool whole)
{
	int f;

	for (f = 0; f < CTX_NR; f++) {
		uint32_t bit = 1u << f;

		if (!(r->known & bit))
			continue;
		if (CTX_LEVELS & bit) {
			x->val[f] = r->val[f];
			x->levels |= bit;
		} else if (CTX_NET & bit) {
			/* the kernel's totals as read (metrics); the sums are the taps' */
			x->prev[f] = (uint64_t)r->val[f];
			x->prev_known |= bit;
		} else {
			sum_counter(x, f, (uint64_t)r->val[f], born, at_start);
		}
	}
	sum_taps(x, r, at_start, whole);
	x->last_read = r->known;
	x->prev_at = now;
}

/* x's taps' rates over secs (known: counted from the snapshot's start, read now or last), and anew. */
static void sum_tap_rates(struct vm_ctx *x, bool net_now, bool last, double secs)
{
	int k, i;

	for (k = 0; k < x->nr_tap_rows; k++) {
		struct vm_ctx_tap *t = &x->taps[k];

		t->known = t->base_ok && secs > 0 && (last || (t->held && net_now) || t->ended);
		for (i = 0; i < CTX_TAP_NR; i++) {
			t->rate[i] = t->known ? (double)(t->sum[i] - t->base[i]) / secs : 0.0;
			t->base[i] = t->sum[i];
		}
		t->base_ok = true;
		t->ended = false;
	}
}

void sample_sum_snapshot(const struct context *c, struct vm_ctx *x, uint32_t now_known, bool last, double secs)
{
	uint32_t known = (last ? x->levels : now_known) & CTX_LEVELS;
	/* a tap that ended in it: its growth to its end is the snapshot's, without a reading now */
	uint32_t read = (last ? x->last_read : now_known) | (x->tap_ended ? CTX_NET : 0);
	int f;

	for (f = 0; f < CTX_NR; f++) {
		uint32_t bit = 1u << f;

		if (CTX_LEVELS & bit)
			continue;
		/* read now, or (a VM that ended) at its last reading: not a counter read before that alone */
		if ((x->base_ok & bit) && secs > 0 && (read & bit)) {
			x->val[f] = (double)(x->sum[f] - x->base[f]) * sum_scale(c, f) / secs;
			known |= bit;
		}
		x->base[f] = x->sum[f];
	}
	sum_tap_rates(x, read & CTX_NET, last, secs);
	x->tap_ended = false;
	x->base_ok = x->summed;
	x->known = known;
}

int sample_sum_threads(struct vm_ctx *x, const struct ctx_reading *r)
{
	struct ctx_thread *t;

	if (r->nr_thr < 0)
		return 0;
	t = reallocarray(x->threads, (size_t)r->nr_thr + 1, sizeof(*t));
	if (!t) {
		free(x->threads);
		x->threads = NULL;
		x->nr_threads = 0;
		x->threads_cut = true;
		return -1;
	}
	memcpy(t, r->thr, (size_t)r->nr_thr * sizeof(*t));
	x->threads = t;
	x->nr_threads = r->nr_thr;
	x->threads_cut = r->thr_cut;
	return 0;
}
