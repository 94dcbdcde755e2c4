// SPDX-License-Identifier: GPL-2.0
/*
 * Figures counted elsewhere and added whole (the bpf source counts each
 * thread's exits, latencies and events in the kernel): they land in the
 * same counters and histograms that model.c fills event by event, so a
 * figure is the same whichever source counted it.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_priv.h"

/* The vCPU of thread tid, its id set where the source says it: NULL with the exits counted dropped. */
static struct vcpu *agg_vcpu(struct model *m, int tid, int vcpu_id, uint64_t n, int *ret)
{
	struct vcpu *v = model_vcpu_get(m, tid, vcpu_id, true);

	*ret = 0;
	if (!v) {
		m->dropped.total += n;
		*ret = m->nr_vcpus >= m->max_vcpus ? 0 : -1;
		return NULL;
	}
	if (vcpu_id >= 0 && !v->vmm)
		v->vcpu_id = vcpu_id;
	return v;
}

/*
 * Reason reason_id of thread tid's vCPU (*vp), for n exits: NULL with *ret
 * 0 (no row: the n dropped) or -1 (no memory).
 */
static struct reason_stat *agg_reason(struct model *m, int tid, int vcpu_id, int reason_id, uint64_t n,
				      struct vcpu **vp, int *ret)
{
	struct reason_stat *rs;

	*vp = agg_vcpu(m, tid, vcpu_id, n, ret);
	if (!*vp)
		return NULL;
	rs = model_reason_stat(*vp, reason_id);
	if (!rs)
		*ret = -1;
	return rs;
}

int model_agg_exits(struct model *m, int tid, int vcpu_id, int reason_id, uint64_t n)
{
	struct reason_stat *rs;
	struct vcpu *v;
	int ret;

	rs = agg_reason(m, tid, vcpu_id, reason_id, n, &v, &ret);
	if (!rs)
		return ret;
	rs->count.total += n;
	v->exits.total += n;
	m->exits.total += n;
	return 0;
}

int model_agg_latencies(struct model *m, int tid, int vcpu_id, int reason_id,
			const struct model_obj_key *obj, const struct hist *lat)
{
	struct reason_stat *rs;
	struct vcpu *v;
	int ret;

	rs = agg_reason(m, tid, vcpu_id, reason_id, 0, &v, &ret);
	if (!rs)
		return ret;
	if (hist_merge(&rs->lat, lat))
		return -1;
	if (obj && m->max_objs)
		return model_objs_add(m, v, obj, lat->samples, lat);
	return 0;
}

int model_agg_sample(struct model *m, int tid, const struct kvm_event *ev, uint64_t lat, uint64_t n)
{
	struct exit_rec *r;
	struct vcpu *v;
	int ret;

	v = agg_vcpu(m, tid, ev->vcpu_id != KVM_VCPU_NONE ? (int)ev->vcpu_id : -1, 0, &ret);
	if (!v)
		return ret;
	if (m->ring_size) {
		r = model_ring_put(m, v, ev);
		if (!r)
			return -1;
		r->latency = lat;
		r->obj_kind = (uint8_t)ev->obj_kind;
		r->obj_dir = ev->obj_dir;
		r->obj_size = ev->obj_size;
		r->obj = ev->obj;
	}
	/* its object's site: where the guest was, unless the exit came from outside it */
	if (m->max_objs && ev->obj_kind != KVM_OBJ_NONE) {
		struct model_obj_key k = {
			.value = ev->obj, .reason_id = ev->reason_id, .kind = (uint8_t)ev->obj_kind,
			.dir = ev->obj_dir, .size = ev->obj_size,
		};

		if (model_objs_site(m, v, &k, m->reasons->r[ev->reason_id].async ? 0 : ev->ip, n))
			return -1;
	}
	return m->ip_slots ? model_feed_ip(m, v, ev, n) : 0;
}

int model_agg_split(struct model *m, int tid, int vcpu_id, int reason_id, const struct hist *handling,
		    uint64_t preempted, uint64_t blocked)
{
	struct reason_split *sp;
	struct reason_stat *rs;
	struct vcpu *v;
	int ret;

	rs = agg_reason(m, tid, vcpu_id, reason_id, 0, &v, &ret);
	if (!rs)
		return ret;
	sp = model_reason_split(rs);
	if (!sp || hist_merge(&sp->handling, handling))
		return -1;
	sp->preempted.total += preempted;
	sp->blocked.total += blocked;
	return 0;
}

int model_agg_time(struct model *m, int tid, const uint64_t *ns)
{
	struct vcpu key = { .tid = tid }, *v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	int st;

	/* a thread that made no vCPU row (a VMM's, or one left out at the cap): not shown */
	if (!v || v->vmm)
		return 0;
	for (st = 0; st < VS_NR; st++)
		v->time[st].total += ns[st];
	return 0;
}

int model_agg_steal(struct model *m, int tid, int thief, const char *comm, uint64_t ns)
{
	struct vcpu key = { .tid = tid }, *v = RB_FIND(vcpu_tree, &m->vcpus, &key);
	char name[KVM_COMM_LEN];

	if (!v || v->vmm)
		return 0;
	strlcpy(name, comm ? comm : "", sizeof(name));
	return model_steal_add(m, v, thief, name, ns);
}

/* n userspace exits of reason sub (-1: none) by v: 0, or -1 (no memory). */
static int uexit_add(struct vcpu *v, int sub, uint64_t n)
{
	if (sub < 0 || sub >= UEXIT_MAX)
		return 0;
	if (!v->uexit && !(v->uexit = calloc(UEXIT_MAX, sizeof(*v->uexit))))
		return -1;
	v->uexit[sub].total += n;
	return 0;
}

int model_agg_events(struct model *m, int tid, int other, int sub, uint64_t n)
{
	struct vcpu *v;

	m->events.total += n;
	if (other < 0)
		return 0;
	v = model_vcpu_get(m, tid, -1, false);
	if (!v) {
		m->dropped.total += n;
		return m->nr_vcpus >= m->max_vcpus ? 0 : -1;
	}
	if (other < m->nr_other)
		v->other[other].total += n;
	return uexit_add(v, sub, n);
}

int model_agg_uexits(struct model *m, int tid, int sub, uint64_t n)
{
	struct vcpu *v = model_vcpu_get(m, tid, -1, false);

	if (!v)
		return m->nr_vcpus >= m->max_vcpus ? 0 : -1;
	return uexit_add(v, sub, n);
}

void model_agg_unmatched(struct model *m, int tid, uint64_t exits, uint64_t entries)
{
	struct vcpu *v = model_vcpu_get(m, tid, -1, true);

	if (!v)
		return;
	v->unmatched_exits.total += exits;
	v->unmatched_entries.total += entries;
}

void model_agg_last_cpu(struct model *m, int tid, int cpu)
{
	struct vcpu *v = (struct vcpu *)model_find_vcpu(m, tid);

	if (v)
		v->last_cpu = cpu;
}

void model_agg_name(struct model *m, int tid, const char *comm)
{
	struct vcpu *v = (struct vcpu *)model_find_vcpu(m, tid);

	if (v && !v->comm[0])
		strlcpy(v->comm, comm, sizeof(v->comm));
}

void model_agg_dropped(struct model *m, uint64_t n)
{
	m->dropped.total += n;
}
