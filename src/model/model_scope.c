// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "model_scope.h"

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

static int scope_add_vcpu(struct model_scope *sc, const struct model *m, const struct vcpu *v)
{
	bool cu = sc->cumulative;
	unsigned int i;
	int j;

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

int model_scope_host(struct model_scope *sc, const struct model *m, bool cumulative)
{
	struct vcpu *v;

	if (scope_init(sc, m, cumulative))
		return -1;
	RB_FOREACH(v, vcpu_tree, (struct vcpu_tree *)&m->vcpus)
		if (scope_add_vcpu(sc, m, v))
			return -1;
	return 0;
}

/* vm's vCPU threads and, since their events are the VM's too, its VMM's threads into s */
static int scope_add_vm(struct model_scope *sc, const struct model *m, const struct vm *vm)
{
	struct vcpu *v;

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
	return scope_add_vm(sc, m, vm);
}

int model_scope_vcpu(struct model_scope *sc, const struct model *m,
		     const struct vcpu *v, bool cumulative)
{
	if (scope_init(sc, m, cumulative))
		return -1;
	return scope_add_vcpu(sc, m, v);
}

int model_scope_vm_counts(struct model_scope *sc, const struct model *m, const struct vm *vm)
{
	if (scope_init(sc, m, true))
		return -1;
	sc->counts = true;
	return scope_add_vm(sc, m, vm);
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

	for (i = 0; i < sc->nr; i++) {
		if (!sc->rows[i].total)
			continue;
		sc->rows[i].scope_exits = sc->exits;
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
