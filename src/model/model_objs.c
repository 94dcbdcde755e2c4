// SPDX-License-Identifier: GPL-2.0
/*
 * What each exit touched, per (vCPU, reason, object).  An exit's object
 * is the exit's own (an x86 port, an exception vector) until a companion
 * event of the same thread names one (kvm_pio, kvm_mmio, kvm_msr ...):
 * the last one before the entry wins (an MMIO write to the local APIC
 * is a kvm_mmio, then a kvm_apic that names the register).  The exit is
 * counted on its object when the vCPU enters again, its latency with it.
 *
 * A vCPU's table holds at most the model's max_objs objects (--objects),
 * found through a hash twice as large; it grows by doubling, so an event
 * allocates only when a new object comes.  Once full, a new object takes
 * the place of the least counted one, whose count and latency go to its
 * reason's "other objects" row (KVM_OBJ_OTHER): a flood of objects seen
 * once (a firmware probing cpuid leaves) churns one place, the busy ones
 * stay, and every exit is counted once, on a kept object or on "other".
 *
 * Each object also keeps the guest IPs its exits came from (model.h,
 * struct model_obj_site): the first few, counted exactly, the rest
 * together.  The "other objects" rows keep none.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_priv.h"

void model_objs_note(struct vcpu *v, const struct kvm_event *ev)
{
	if (ev->obj_kind == KVM_OBJ_NONE)
		return;
	v->pending_obj = true;
	v->pobj.value = ev->obj;
	v->pobj.reason_id = v->pending_reason;
	v->pobj.kind = (uint8_t)ev->obj_kind;
	v->pobj.dir = ev->obj_dir;
	v->pobj.size = ev->obj_size;
	v->pobj.zero = 0;
}

/*
 * Are two keys the same object of the same reason?  Their bytes alike:
 * a key has no padding (its last byte a zero field), so two compares of
 * 8 bytes do.
 */
static inline bool objs_same(const struct model_obj_key *a, const struct model_obj_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The hash slot of k in t: its own, or the empty one it would take. */
static unsigned int objs_slot(const struct model_objs *t, const struct model_obj_key *k)
{
	uint64_t h = (k->value ^ (uint64_t)k->reason_id << 40 ^ (uint64_t)k->kind << 56 ^
		      (uint64_t)k->dir << 20 ^ (uint64_t)k->size << 28) * 0x9e3779b97f4a7c15ull;
	unsigned int i = (unsigned int)(h >> 40) & t->mask;

	while (t->slot[i] && !objs_same(&t->o[t->slot[i] - 1].key, k))
		i = (i + 1) & t->mask;
	return i;
}

/* A vCPU's empty table of cap objects: NULL (no memory). */
static struct model_objs *objs_new(unsigned int cap)
{
	struct model_objs *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = cap;
	for (t->mask = 1; t->mask + 1 < 2 * cap; t->mask = t->mask * 2 + 1)
		;
	t->slot = calloc(t->mask + 1, sizeof(*t->slot));
	if (!t->slot) {
		free(t);
		return NULL;
	}
	return t;
}

/* A new object k in t, the array grown if need be: NULL (no memory). */
static struct model_obj *objs_add(struct model_objs *t, unsigned int i, const struct model_obj_key *k)
{
	struct model_obj *o;

	if (t->nr == t->alloc) {
		unsigned int n = t->alloc ? t->alloc * 2 : 4;

		o = reallocarray(t->o, n, sizeof(*o));
		if (!o)
			return NULL;
		t->o = o;
		t->alloc = n;
	}
	o = &t->o[t->nr];
	memset(o, 0, sizeof(*o));
	o->key = *k;
	o->since = t->placed++;
	hist_init(&o->lat);
	hist_init(&o->lat_done);
	t->slot[i] = (uint16_t)++t->nr;
	return o;
}

/* The "other objects" row of reason rs: NULL (no memory). */
static struct model_obj *objs_rest(struct reason_stat *rs, int reason_id)
{
	if (rs->obj_rest)
		return rs->obj_rest;
	rs->obj_rest = calloc(1, sizeof(*rs->obj_rest));
	if (!rs->obj_rest)
		return NULL;
	rs->obj_rest->key.kind = KVM_OBJ_OTHER;
	rs->obj_rest->key.reason_id = reason_id;
	hist_init(&rs->obj_rest->lat);
	hist_init(&rs->obj_rest->lat_done);
	return rs->obj_rest;
}

/*
 * In full table t, k takes the place of the least counted object (of
 * those, the one placed first: a new object is not the next to go),
 * whose figures go to its reason's other objects (interval and total
 * alike); the hash is made again.  NULL (no memory).
 */
static struct model_obj *objs_evict(struct vcpu *v, struct model_objs *t, const struct model_obj_key *k)
{
	struct model_obj *o = &t->o[0], *rest;
	unsigned int i;

	for (i = 1; i < t->nr; i++)
		if (t->o[i].count.total < o->count.total ||
		    (t->o[i].count.total == o->count.total && t->o[i].since < o->since))
			o = &t->o[i];
	rest = objs_rest(v->rs[o->key.reason_id], o->key.reason_id);
	if (!rest || hist_merge(&rest->lat, &o->lat) || hist_merge(&rest->lat_done, &o->lat_done))
		return NULL;
	rest->count.total += o->count.total;
	rest->count.base += o->count.base;
	t->evicted++;
	/* its histograms' pages are kept for the new object */
	hist_clear(&o->lat);
	hist_clear(&o->lat_done);
	memset(&o->count, 0, sizeof(o->count));
	memset(o->site, 0, sizeof(o->site));
	memset(&o->site_rest, 0, sizeof(o->site_rest));
	memset(&o->site_none, 0, sizeof(o->site_none));
	o->key = *k;
	o->since = t->placed++;
	memset(t->slot, 0, (t->mask + 1) * sizeof(*t->slot));
	for (i = 0; i < t->nr; i++)
		t->slot[objs_slot(t, &t->o[i].key)] = (uint16_t)(i + 1);
	return o;
}

/* The object of v's pending exit, made if new: NULL (no memory). */
static struct model_obj *objs_get(const struct model *m, struct vcpu *v)
{
	struct model_objs *t = v->objs;
	struct model_obj *o;
	unsigned int i;

	if (!t && !(t = v->objs = objs_new(m->max_objs ? m->max_objs : 1)))
		return NULL;
	/* the object of the vCPU's exit before, often the same (a loop on one port) */
	if (t->nr && objs_same(&t->o[t->last].key, &v->pobj))
		return &t->o[t->last];
	i = objs_slot(t, &v->pobj);
	if (t->slot[i]) {
		t->last = t->slot[i] - 1;
		return &t->o[t->last];
	}
	o = t->nr < t->cap ? objs_add(t, i, &v->pobj) : objs_evict(v, t, &v->pobj);
	if (o)
		t->last = (unsigned int)(o - t->o);
	return o;
}

/* n more exits of o from guest IP ip (0: none): on its site, a new site, or the rest. */
static void objs_site(struct model_obj *o, uint64_t ip, uint64_t n)
{
	unsigned int i;

	if (!ip) {
		o->site_none.total += n;
		return;
	}
	for (i = 0; i < MODEL_OBJ_SITES; i++) {
		if (o->site[i].ip == ip || !o->site[i].ip) {
			o->site[i].ip = ip;
			o->site[i].n.total += n;
			return;
		}
	}
	o->site_rest.total += n;
}

int model_objs_close(const struct model *m, struct vcpu *v, uint64_t lat)
{
	struct model_obj *o;

	if (!v->pending_obj)
		return 0;
	v->pending_obj = false;
	/* only exits write the ring: the pending exit is still in its slot */
	if (v->ring) {
		struct exit_rec *r = &v->ring[v->pending_slot];

		r->obj_kind = v->pobj.kind;
		r->obj_dir = v->pobj.dir;
		r->obj_size = v->pobj.size;
		r->obj = v->pobj.value;
	}
	o = objs_get(m, v);
	if (!o)
		return -1;
	o->count.total++;
	objs_site(o, v->pobj_ip, 1);
	if (lat != MODEL_LAT_NONE && hist_add(&o->lat, lat))
		return -1;
	return 0;
}

int model_objs_add(const struct model *m, struct vcpu *v, const struct model_obj_key *k, uint64_t n,
		   const struct hist *lat)
{
	struct model_obj *o;

	v->pobj = *k;
	o = objs_get(m, v);
	if (!o)
		return -1;
	o->count.total += n;
	return hist_merge(&o->lat, lat);
}

int model_objs_site(const struct model *m, struct vcpu *v, const struct model_obj_key *k, uint64_t ip,
		    uint64_t n)
{
	struct model_obj *o;

	v->pobj = *k;
	o = objs_get(m, v);
	if (!o)
		return -1;
	objs_site(o, ip, n);
	return 0;
}

/* o's interval histogram into the one of the intervals before: 0, or -1 (no memory). */
static int objs_fold(struct model_obj *o)
{
	if (o->lat.samples && hist_merge(&o->lat_done, &o->lat))
		return -1;
	hist_clear(&o->lat);
	return 0;
}

int model_objs_interval_end(struct vcpu *v)
{
	unsigned int i;

	for (i = 0; v->objs && i < v->objs->nr; i++)
		if (objs_fold(&v->objs->o[i]))
			return -1;
	for (i = 0; i < v->nr_rs; i++)
		if (v->rs[i] && v->rs[i]->obj_rest && objs_fold(v->rs[i]->obj_rest))
			return -1;
	return 0;
}

void model_objs_marks(struct vcpu *v, void (*op)(struct ctr *))
{
	unsigned int i;

	for (i = 0; v->objs && i < v->objs->nr; i++) {
		struct model_obj *o = &v->objs->o[i];
		unsigned int k;

		op(&o->count);
		for (k = 0; k < MODEL_OBJ_SITES; k++)
			op(&o->site[k].n);
		op(&o->site_rest);
		op(&o->site_none);
	}
	for (i = 0; i < v->nr_rs; i++)
		if (v->rs[i] && v->rs[i]->obj_rest)
			op(&v->rs[i]->obj_rest->count);
}

/* o's histograms emptied (their pages kept). */
static void objs_clear(struct model_obj *o)
{
	hist_clear(&o->lat);
	hist_clear(&o->lat_done);
}

void model_objs_reset(struct vcpu *v)
{
	unsigned int i;

	v->pending_obj = false;
	for (i = 0; v->objs && i < v->objs->nr; i++)
		objs_clear(&v->objs->o[i]);
	for (i = 0; i < v->nr_rs; i++)
		if (v->rs[i] && v->rs[i]->obj_rest)
			objs_clear(v->rs[i]->obj_rest);
}

void model_objs_free(struct vcpu *v)
{
	unsigned int i;

	for (i = 0; v->objs && i < v->objs->nr; i++) {
		hist_free(&v->objs->o[i].lat);
		hist_free(&v->objs->o[i].lat_done);
	}
	for (i = 0; i < v->nr_rs; i++) {
		if (!v->rs[i] || !v->rs[i]->obj_rest)
			continue;
		hist_free(&v->rs[i]->obj_rest->lat);
		hist_free(&v->rs[i]->obj_rest->lat_done);
		free(v->rs[i]->obj_rest);
	}
	if (v->objs) {
		free(v->objs->o);
		free(v->objs->slot);
	}
	free(v->objs);
	v->objs = NULL;
}
