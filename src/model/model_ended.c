// SPDX-License-Identifier: GPL-2.0
/*
 * VMs that ended (model.h), live: marked when their process is found
 * gone, with when; shown so in the snapshot that follows, then removed --
 * or, for a summary (keep_ended), kept to its end, at most max_ended of
 * them one by one: the ones that ended first are folded into one row,
 * "N more ended", that carries their sums (exits by reason, events, time
 * states, the context's counters), so memory stays bounded however many
 * VMs come and go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "model_scope.h"

/* The rest's row, made at the first fold: NULL when no memory. */
static struct vm *ended_rest(struct model *m)
{
	struct vm *vm;

	if (m->rest)
		return m->rest;
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return NULL;
	vm->rest = calloc(1, sizeof(*vm->rest));
	if (vm->rest)
		vm->rest->other = calloc(m->nr_other ? (size_t)m->nr_other : 1, sizeof(*vm->rest->other));
	if (!vm->rest || !vm->rest->other) {
		if (vm->rest)
			free(vm->rest->other);
		free(vm->rest);
		free(vm);
		return NULL;
	}
	vm->pid = MODEL_PID_REST;
	vm->filter = m->filter;
	vm->exited = true;
	vm->ctx.nr_taps = -1;
	vm->rest->time_known = ~0u;
	TAILQ_INIT(&vm->vcpus);
	TAILQ_INIT(&vm->vmm_threads);
	RB_INSERT(vm_tree, &m->vms, vm);
	m->rest = vm;
	return vm;
}

/* sc, an ended VM's figures since the start, into the rest's: 0, or -1 (no memory). */
static int ended_fold_scope(struct model *m, struct model_rest *r, const struct model_scope *sc)
{
	unsigned int i;
	int j;

	if (sc->nr > r->nr_reasons) {
		uint64_t *t = reallocarray(r->reasons, sc->nr, sizeof(*t));

		if (!t)
			return -1;
		memset(t + r->nr_reasons, 0, (sc->nr - r->nr_reasons) * sizeof(*t));
		r->reasons = t;
		r->nr_reasons = sc->nr;
	}
	for (i = 0; i < sc->nr; i++)
		r->reasons[i] += sc->rows[i].total;
	r->exits += sc->exits_total;
	r->unmatched_exits += sc->unmatched_exits;
	r->unmatched_entries += sc->unmatched_entries;
	for (j = 0; j < m->nr_other; j++)
		r->other[j] += sc->other_total[j];
	for (j = 0; j < UEXIT_MAX; j++)
		r->uexit[j] += sc->uexit_total[j];
	for (j = 0; j < VS_NR; j++)
		r->time[j] += sc->time[j];
	r->time_known &= sc->time_known;
	return 0;
}

/*
 * An ended VM's context sums into the rest's: a figure is the rest's where
 * every VM folded has it (a VM without a tap adds no network, not an
 * unknown one).
 */
static void ended_fold_ctx(struct vm_ctx *to, const struct vm_ctx *x, bool first)
{
	uint32_t net = 1u << CTX_RX_BPS | 1u << CTX_TX_BPS | 1u << CTX_RX_PPS | 1u << CTX_TX_PPS | 1u << CTX_DROPS;
	uint32_t summed = x->summed, whole = x->whole, base_ok = x->base_ok, last_read = x->last_read;
	int f;

	if (!x->nr_taps) {
		/* no tap: none of the network's figures, and nothing of them lost */
		summed |= net;
		whole |= net;
		base_ok |= net;
		last_read |= net;
	}
	for (f = 0; f < CTX_NR; f++) {
		to->sum[f] += x->summed & (1u << f) ? x->sum[f] : 0;
		to->base[f] += x->summed & (1u << f) ? x->base[f] : 0;
	}
	to->summed = first ? summed : to->summed & summed;
	to->whole = first ? whole : to->whole & whole;
	to->base_ok = first ? base_ok : to->base_ok & base_ok;
	to->last_read = first ? last_read : to->last_read & last_read;
	if (x->nr_taps > 0)
		to->nr_taps = (to->nr_taps < 0 ? 0 : to->nr_taps) + x->nr_taps;
}

/* Ended VM vm folded into the rest's row and removed: 0, or -1 (no memory). */
static int ended_fold(struct model *m, struct vm *vm)
{
	struct vm *rest = ended_rest(m);
	struct model_scope sc;
	int ret = -1;

	if (!rest)
		return -1;
	if (model_scope_vm_counts(&sc, m, vm) || ended_fold_scope(m, rest->rest, &sc))
		goto out;
	ended_fold_ctx(&rest->ctx, &vm->ctx, !rest->rest->nr);
	rest->rest->nr++;
	rest->nr_vcpus += vm->nr_vcpus;
	snprintf(rest->name, sizeof(rest->name), "%u more ended", rest->rest->nr);
	m->nr_ended--;
	model_vm_remove(m, vm);
	ret = 0;
out:
	model_scope_free(&sc);
	return ret;
}

/*
 * While more than max_ended VMs are kept ended, the one that ended first
 * (and before settled, when ended that long ago: 0, any) into the rest's
 * row.  0, or -1 (no memory).
 */
static int ended_bound(struct model *m, uint64_t settled)
{
	while (m->nr_ended > m->max_ended) {
		struct vm *vm, *first = NULL;

		RB_FOREACH(vm, vm_tree, &m->vms)
			if (vm->exited && !vm->rest && (!first || vm->end < first->end))
				first = vm;
		if (!first || (settled && first->end > settled))
			return 0;
		if (ended_fold(m, first))
			return -1;
	}
	return 0;
}

/* Mark the VMs whose process has ended now. */
static void ended_mark(struct model *m, alive_fn alive, void *ctx, uint64_t now)
{
	struct vm *vm;

	RB_FOREACH(vm, vm_tree, &m->vms) {
		if (vm->exited || vm->pid <= 0 || vm->kernel || alive(ctx, vm->pid))
			continue;
		vm->exited = true;
		vm->end = now;
		/* all its threads' exit records came before its process left /proc, and were read */
		vm->counted_to = m->exit_records && vm->end_seen && !vm->end_lost ? MODEL_TO_EXACT : MODEL_TO_READ;
		m->nr_ended++;
		m->ended_marks++;
	}
}

int model_mark_ended(struct model *m, alive_fn alive, void *ctx, uint64_t now)
{
	ended_mark(m, alive, ctx, now);
	if (!m->keep_ended)
		return 0;
	return ended_bound(m, now > MODEL_ENDED_SETTLE_NS ? now - MODEL_ENDED_SETTLE_NS : 1);
}

int model_reap(struct model *m, alive_fn alive, void *ctx, uint64_t now)
{
	struct vm *vm, *next;

	if (m->keep_ended) {
		ended_mark(m, alive, ctx, now);
		return ended_bound(m, 0);
	}
	/* shown ended by a snapshot before this one: gone */
	RB_FOREACH_SAFE(vm, vm_tree, &m->vms, next) {
		if (!vm->exited || vm->end > m->interval_start)
			continue;
		m->nr_ended--;
		model_vm_remove(m, vm);
	}
	ended_mark(m, alive, ctx, now);
	return 0;
}
