// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "model_scope.h"
#include "model_view.h"
#include "model_time.h"

static int scope_init(struct model_scope *sc, const struct model *m, bool cumulative)
{
	const struct reason_table *rt = m->reasons;
	unsigned int i;

	memset(sc, 0, sizeof(*sc));
	hist_init(&sc->handling);
	sc->top = -1;
	sc->cumulative = cumulative;
	sc->nr = rt->nr;
	sc->rows = calloc(sc->nr ? sc->nr : 1, sizeof(*sc->rows));
	/* other[] and other_total[] in one block */
	sc->other = calloc(m->nr_other ? 2 * (size_t)m->nr_other : 1, sizeof(*sc->other));
	if (!sc->rows || !sc->other)
		return -1;
	sc->other_total = sc->other + m->nr_other;
	for (i = 0; i < sc->nr; i++) {
		sc->rows[i].r = &rt->r[i];
		sc->rows[i].id = i;
		hist_init(&sc->rows[i].lat);
		hist_init(&sc->rows[i].handling);
	}
	/* the states, as the vCPU threads add them; the split whatever they are */
	sc->time_known = model_time_known(m) & TIME_SPLIT;
	return 0;
}

void model_scope_free(struct model_scope *sc)
{
	unsigned int i;

	for (i = 0; sc->objs && i < sc->nr_objs; i++)
		hist_free(&sc->objs[i].lat);
	free(sc->objs);
	sc->objs = NULL;
	sc->nr_objs = 0;
	sc->alloc_objs = 0;
	for (i = 0; sc->rows && i < sc->nr; i++) {
		hist_free(&sc->rows[i].lat);
		hist_free(&sc->rows[i].handling);
	}
	free(sc->rows);
	free(sc->other);
	hist_free(&sc->handling);
	sc->rows = NULL;
	sc->other = NULL;
	sc->other_total = NULL;
}

static inline uint64_t ctr_get(const struct ctr *c, bool cumulative)
{
	return cumulative ? c->total : ctr_interval(c);
}

/* One more site of w (ip, n exits): in its place, most exits first, the least counted to the rest. */
static void scope_site_add(struct model_obj_row *w, uint64_t ip, uint64_t n)
{
	unsigned int i, k;

	if (!n)
		return;
	for (i = 0; i < MODEL_OBJ_SITES && w->site[i].n && w->site[i].ip != ip; i++)
		;
	if (i < MODEL_OBJ_SITES && w->site[i].n) {
		/* the same IP from another vCPU: out of its place, then in again */
		n += w->site[i].n;
		for (k = i; k + 1 < MODEL_OBJ_SITES; k++)
			w->site[k] = w->site[k + 1];
		w->site[MODEL_OBJ_SITES - 1].n = 0;
	}
	for (i = 0; i < MODEL_OBJ_SITES && w->site[i].n >= n; i++)
		;
	if (i == MODEL_OBJ_SITES) {
		w->site_rest += n;
		return;
	}
	w->site_rest += w->site[MODEL_OBJ_SITES - 1].n;
	for (k = MODEL_OBJ_SITES - 1; k > i; k--)
		w->site[k] = w->site[k - 1];
	w->site[i].ip = ip;
	w->site[i].n = n;
}

/* Object o's sites into row w (the scope says interval or since start). */
static void scope_obj_sites(const struct model_scope *sc, struct model_obj_row *w, const struct model_obj *o)
{
	unsigned int i;

	for (i = 0; i < MODEL_OBJ_SITES; i++)
		scope_site_add(w, o->site[i].ip, ctr_get(&o->site[i].n, sc->cumulative));
	w->site_rest += ctr_get(&o->site_rest, sc->cumulative);
	w->site_none += ctr_get(&o->site_none, sc->cumulative);
}

/* Object o of a vCPU as a row of sc, merged with the others later (scope_objs_merge): 0 or -1. */
static int scope_add_obj(struct model_scope *sc, const struct model_obj *o)
{
	struct model_obj_row *w;

	if (!o->count.total || (unsigned int)o->key.reason_id >= sc->nr)
		return 0;
	if (sc->nr_objs == sc->alloc_objs) {
		unsigned int n = sc->alloc_objs ? sc->alloc_objs * 2 : 16;

		w = reallocarray(sc->objs, n, sizeof(*w));
		if (!w)
			return -1;
		sc->objs = w;
		sc->alloc_objs = n;
	}
	w = &sc->objs[sc->nr_objs++];
	memset(w, 0, sizeof(*w));
	hist_init(&w->lat);
	w->reason_id = o->key.reason_id;
	w->r = sc->rows[w->reason_id].r;
	w->kind = o->key.kind;
	w->dir = o->key.dir;
	w->size = o->key.size;
	w->value = o->key.value;
	w->count = ctr_get(&o->count, sc->cumulative);
	w->total = o->count.total;
	scope_obj_sites(sc, w, o);
	if (sc->counts)
		return 0;
	if (hist_merge(&w->lat, &o->lat))
		return -1;
	return sc->cumulative ? hist_merge(&w->lat, &o->lat_done) : 0;
}

/* v's objects into sc: 0 or -1 (no memory). */
static int scope_add_objs(struct model_scope *sc, const struct vcpu *v)
{
	unsigned int i;

	for (i = 0; v->objs && i < v->objs->nr; i++)
		if (scope_add_obj(sc, &v->objs->o[i]))
			return -1;
	for (i = 0; i < v->nr_rs; i++)
		if (v->rs[i] && v->rs[i]->obj_rest && scope_add_obj(sc, v->rs[i]->obj_rest))
			return -1;
	return 0;
}

/* Object rows in key order (reason, kind, value, dir, size). */
static int scope_obj_key_cmp(const void *a, const void *b)
{
	const struct model_obj_row *x = a, *y = b;

	if (x->reason_id != y->reason_id)
		return x->reason_id < y->reason_id ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return (x->size > y->size) - (x->size < y->size);
}

/* Object rows by reason, then most exits first (the other objects last), then key. */
static int scope_obj_cmp(const void *a, const void *b)
{
	const struct model_obj_row *x = a, *y = b;

	if (x->reason_id != y->reason_id)
		return x->reason_id < y->reason_id ? -1 : 1;
	if ((x->kind == KVM_OBJ_OTHER) != (y->kind == KVM_OBJ_OTHER))
		return x->kind == KVM_OBJ_OTHER ? 1 : -1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return scope_obj_key_cmp(a, b);
}

/* The rows of one object from several vCPUs made one, in scope_obj_cmp's order: 0 or -1. */
static int scope_objs_merge(struct model_scope *sc)
{
	unsigned int i, n = 0;

	if (!sc->nr_objs)
		return 0;
	qsort(sc->objs, sc->nr_objs, sizeof(*sc->objs), scope_obj_key_cmp);
	for (i = 0; i < sc->nr_objs; i++) {
		struct model_obj_row *w = &sc->objs[i];

		if (n && !scope_obj_key_cmp(&sc->objs[n - 1], w)) {
			struct model_obj_row *to = &sc->objs[n - 1];
			unsigned int k;

			to->count += w->count;
			to->total += w->total;
			for (k = 0; k < MODEL_OBJ_SITES; k++)
				scope_site_add(to, w->site[k].ip, w->site[k].n);
			to->site_rest += w->site_rest;
			to->site_none += w->site_none;
			if (hist_merge(&to->lat, &w->lat))
				return -1;
			hist_free(&w->lat);
			continue;
		}
		sc->objs[n++] = *w;
	}
	sc->nr_objs = n;
	for (i = 0; i < n; i++)
		sc->objs[i].reason_count = sc->rows[sc->objs[i].reason_id].count;
	qsort(sc->objs, sc->nr_objs, sizeof(*sc->objs), scope_obj_cmp);
	return 0;
}

unsigned int model_scope_objs(const struct model_scope *sc, int id, const struct model_obj_row **first)
{
	unsigned int i, n = 0;

	*first = NULL;
	for (i = 0; i < sc->nr_objs; i++) {
		if (sc->objs[i].reason_id != id)
			continue;
		if (!n)
			*first = &sc->objs[i];
		n++;
	}
	return n;
}

static int scope_add_vcpu(struct model_scope *sc, const struct model *m, const struct vcpu *v)
{
	bool cu = sc->cumulative;
	unsigned int i;
	int j;

	if (scope_add_objs(sc, v))
		return -1;
	for (i = 0; i < v->nr_rs && i < sc->nr; i++) {
		const struct reason_stat *rs = v->rs[i];

		if (!rs)
			continue;
		sc->rows[i].count += ctr_get(&rs->count, cu);
		sc->rows[i].total += rs->count.total;
		if (sc->counts) {
			if (rs->split) {
				sc->rows[i].preempted += ctr_get(&rs->split->preempted, cu);
				sc->rows[i].blocked += ctr_get(&rs->split->blocked, cu);
			}
			continue;
		}
		if (hist_merge(&sc->rows[i].lat, &rs->lat))
			return -1;
		if (cu && hist_merge(&sc->rows[i].lat, &rs->lat_done))
			return -1;
		if (!rs->split)
			continue;
		if (hist_merge(&sc->rows[i].handling, &rs->split->handling))
			return -1;
		if (cu && hist_merge(&sc->rows[i].handling, &rs->split->handling_done))
			return -1;
		sc->rows[i].preempted += ctr_get(&rs->split->preempted, cu);
		sc->rows[i].blocked += ctr_get(&rs->split->blocked, cu);
	}
	for (j = 0; !v->vmm && j < VS_NR; j++) {
		const struct ctr *c = model_time_ctr(m, v, j);

		if (!c)
			continue;
		sc->time[j] += ctr_get(c, cu);
		sc->time_known |= 1u << j;
	}
	sc->exits += ctr_get(&v->exits, cu);
	sc->exits_total += v->exits.total;
	sc->unmatched_exits += ctr_get(&v->unmatched_exits, cu);
	sc->unmatched_entries += ctr_get(&v->unmatched_entries, cu);
	for (j = 0; j < m->nr_other; j++) {
		sc->other[j] += ctr_get(&v->other[j], cu);
		sc->other_total[j] += v->other[j].total;
	}
	for (j = 0; v->uexit && j < UEXIT_MAX; j++) {
		sc->uexit[j] += ctr_get(&v->uexit[j], cu);
		sc->uexit_total[j] += v->uexit[j].total;
		sc->uexits += ctr_get(&v->uexit[j], cu);
	}
	return 0;
}

/*
 * The ended VMs folded into the rest's row (model_ended.c): their exits
 * by reason, events and states since the start, in an interval too (a
 * summary's, the one that has them), no latency.
 */
static void scope_add_rest(struct model_scope *sc, const struct model *m, const struct model_rest *r)
{
	unsigned int i;
	int j;

	for (i = 0; i < r->nr_reasons && i < sc->nr; i++) {
		sc->rows[i].count += r->reasons[i];
		sc->rows[i].total += r->reasons[i];
	}
	sc->exits += r->exits;
	sc->exits_total += r->exits;
	sc->unmatched_exits += r->unmatched_exits;
	sc->unmatched_entries += r->unmatched_entries;
	for (j = 0; j < m->nr_other; j++) {
		sc->other[j] += r->other[j];
		sc->other_total[j] += r->other[j];
	}
	for (j = 0; j < UEXIT_MAX; j++) {
		sc->uexit[j] += r->uexit[j];
		sc->uexit_total[j] += r->uexit[j];
		sc->uexits += r->uexit[j];
	}
	for (j = 0; j < VS_NR; j++) {
		if (!(r->time_known & (1u << j)))
			continue;
		sc->time[j] += r->time[j];
		sc->time_known |= 1u << j;
	}
}

int model_scope_host(struct model_scope *sc, const struct model *m, bool cumulative)
{
	struct vcpu *v;

	if (scope_init(sc, m, cumulative))
		return -1;
	RB_FOREACH(v, vcpu_tree, (struct vcpu_tree *)&m->vcpus)
		if (scope_add_vcpu(sc, m, v))
			return -1;
	if (m->rest)
		scope_add_rest(sc, m, m->rest->rest);
	return scope_objs_merge(sc);
}

/* vm's vCPU threads and, since their events are the VM's too, its VMM's threads into s */
static int scope_add_vm(struct model_scope *sc, const struct model *m, const struct vm *vm)
{
	struct vcpu *v;

	if (vm->rest) {
		/* no thread of its own: what the VMs folded into it measured */
		scope_add_rest(sc, m, vm->rest);
		return 0;
	}

	TAILQ_FOREACH(v, &vm->vcpus, vm_link)
		if (scope_add_vcpu(sc, m, v))
			return -1;
	TAILQ_FOREACH(v, &vm->vmm_threads, vm_link)
		if (scope_add_vcpu(sc, m, v))
			return -1;
	return 0;
}

int model_scope_vm(struct model_scope *sc, const struct model *m,
		   const struct vm *vm, bool cumulative)
{
	if (scope_init(sc, m, cumulative))
		return -1;
	return scope_add_vm(sc, m, vm) ?: scope_objs_merge(sc);
}

int model_scope_vcpu(struct model_scope *sc, const struct model *m,
		     const struct vcpu *v, bool cumulative)
{
	if (scope_init(sc, m, cumulative))
		return -1;
	return scope_add_vcpu(sc, m, v) ?: scope_objs_merge(sc);
}

int model_scope_vm_counts(struct model_scope *sc, const struct model *m, const struct vm *vm)
{
	if (scope_init(sc, m, true))
		return -1;
	sc->counts = true;
	return scope_add_vm(sc, m, vm) ?: scope_objs_merge(sc);
}

int model_host_latency(const struct model *m, struct hist *out, unsigned int nr)
{
	const struct vcpu *v;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		hist_clear(&out[i]);
		if (m->host_lat_on && i < m->nr_host_lat && hist_merge(&out[i], &m->host_lat[i]))
			return -1;
	}
	/* not kept: every vCPU's, the closed intervals' too */
	if (!m->host_lat_on) {
		struct vcpu *w;

		RB_FOREACH(w, vcpu_tree, (struct vcpu_tree *)&m->vcpus)
			for (i = 0; i < w->nr_rs && i < nr; i++)
				if (w->rs[i] && model_reason_total_lat(w->rs[i], &out[i]))
					return -1;
		return 0;
	}
	/* a vCPU off the dirty list has an empty interval histogram */
	TAILQ_FOREACH(v, &m->dirty, dirty_link)
		for (i = 0; i < v->nr_rs && i < nr; i++)
			if (v->rs[i] && v->rs[i]->lat.samples && hist_merge(&out[i], &v->rs[i]->lat))
				return -1;
	return 0;
}

double model_scope_share(const struct model_scope *sc, unsigned int states, uint64_t span_ns,
			 unsigned int nr_vcpus)
{
	uint64_t ns = 0;
	unsigned int j;

	if (!span_ns || !nr_vcpus || !states || (sc->time_known & states) != states)
		return -1;
	for (j = 0; j < VS_NR; j++)
		if (states & 1u << j)
			ns += sc->time[j];
	return 100.0 * (double)ns / ((double)span_ns * nr_vcpus);
}

int model_scope_summary(struct model_scope *sc)
{
	uint64_t best = 0;
	unsigned int i;

	hist_clear(&sc->handling);
	sc->halted = 0;
	sc->top = -1;
	for (i = 0; i < sc->nr; i++) {
		const struct model_reason_row *w = &sc->rows[i];

		if (w->count > best) {
			best = w->count;
			sc->top = (int)i;
		}
		if (!w->r->blocking) {
			if (hist_merge(&sc->handling, &w->lat))
				return -1;
		} else {
			sc->halted = hist_sum(&w->lat) > UINT64_MAX - sc->halted ? UINT64_MAX :
				    sc->halted + hist_sum(&w->lat);
		}
	}
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct model_reason_row *x = *(const struct model_reason_row *const *)a;
	const struct model_reason_row *y = *(const struct model_reason_row *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->id - y->id;
}

unsigned int model_scope_sorted(const struct model_scope *sc, const struct model_reason_row **out)
{
	unsigned int i, n = 0;
	double lat_sum = 0.0;

	for (i = 0; i < sc->nr; i++)
		lat_sum += hist_sum_frac(&sc->rows[i].lat);
	for (i = 0; i < sc->nr; i++) {
		if (!sc->rows[i].total)
			continue;
		sc->rows[i].scope_exits = sc->exits;
		sc->rows[i].scope_lat_sum = lat_sum;
		out[n++] = &sc->rows[i];
	}
	qsort(out, n, sizeof(*out), row_cmp);
	return n;
}

int model_scope_ips(struct model_ip_list *l, const struct vm *vm, const struct vcpu *v,
		    enum ip_kind kind)
{
	const struct model_ips **t;
	const struct vcpu *c;
	size_t n = 0, i;
	long nr;

	memset(l, 0, sizeof(*l));
	t = calloc(v ? 1 : (vm->nr_vcpus ? vm->nr_vcpus : 1), sizeof(*t));
	if (!t)
		return -1;
	TAILQ_FOREACH(c, &vm->vcpus, vm_link) {
		if (v && c != v)
			continue;
		t[n++] = c->ips[kind];
		l->none += c->no_ip;
		l->exits += c->exits.total;
	}
	for (i = 0; i < n; i++) {
		if (!t[i])
			continue;
		l->samples += t[i]->samples;
		l->replaced += t[i]->replaced;
	}
	nr = model_ips_merge((const struct model_ips *const *)t, n, &l->e);
	free(t);
	if (nr < 0)
		return -1;
	l->nr = (size_t)nr;
	qsort(l->e, l->nr, sizeof(*l->e), model_ips_cmp_count);
	return 0;
}

void model_ip_list_free(struct model_ip_list *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}

uint64_t model_vcpu_reason_total(const struct vcpu *v, unsigned int id)
{
	return id < v->nr_rs && v->rs[id] ? v->rs[id]->count.total : 0;
}

unsigned int model_vcpu_reasons(const struct vcpu *v)
{
	return v->nr_rs;
}

int model_vcpu_reason_lat(const struct vcpu *v, unsigned int id, struct hist *out)
{
	hist_clear(out);
	return id < v->nr_rs && v->rs[id] ? model_reason_total_lat(v->rs[id], out) : 0;
}
