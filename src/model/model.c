// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_priv.h"

struct model *model_new(const struct kvm_names *names,
			unsigned int ring_size, ident_fn ident, void *ident_ctx)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	RB_INIT(&m->vcpus);
	RB_INIT(&m->vms);
	TAILQ_INIT(&m->dirty);
	TAILQ_INIT(&m->stolen);
	m->max_thieves = MODEL_THIEVES_DEFAULT;
	m->names = names;
	m->reasons = &names->reasons;
	m->nr_other = names->nr_other;
	m->ring_size = ring_size;
	m->ip_slots = MODEL_IPS_DEFAULT;
	m->max_objs = MODEL_OBJS_DEFAULT;
	m->max_vcpus = MODEL_MAX_VCPUS;
	m->ident = ident;
	m->ident_ctx = ident_ctx;
	if (names->sched && model_time_pre_new(m)) {
		free(m);
		return NULL;
	}
	return m;
}

static void vcpu_free(struct vcpu *v)
{
	unsigned int i;

	model_objs_free(v);
	for (i = 0; i < v->nr_rs; i++) {
		if (!v->rs[i])
			continue;
		hist_free(&v->rs[i]->lat);
		hist_free(&v->rs[i]->lat_done);
		if (v->rs[i]->split) {
			hist_free(&v->rs[i]->split->handling);
			hist_free(&v->rs[i]->split->handling_done);
			free(v->rs[i]->split);
		}
		free(v->rs[i]);
	}
	for (i = 0; i < IP_KINDS; i++) {
		if (!v->ips[i])
			continue;
		model_ips_free(v->ips[i]);
		free(v->ips[i]);
	}
	free(v->rs);
	free(v->kst);
	free(v->other);
	free(v->uexit);
	free(v->ring);
	free(v->steal);
	free(v->steal_all);
	free(v);
}

static void vm_free(struct vm *vm)
{
	int g;

	for (g = 0; g < TG_NR; g++) {
		free(vm->groups[g].last);
		free(vm->groups[g].gone);
		free(vm->groups[g].ended);
	}
	free(vm->detail);
	free(vm->kst);
	free(vm->ctx.taps);
	free(vm->ctx.threads);
	if (vm->rest) {
		free(vm->rest->reasons);
		free(vm->rest->other);
		free(vm->rest);
	}
	free(vm);
}

void model_free(struct model *m)
{
	struct vcpu *v, *vn;
	struct vm *vm, *vmn;
	unsigned int i;

	if (!m)
		return;
	free(m->pre);
	RB_FOREACH_SAFE(v, vcpu_tree, &m->vcpus, vn) {
		RB_REMOVE(vcpu_tree, &m->vcpus, v);
		vcpu_free(v);
	}
	RB_FOREACH_SAFE(vm, vm_tree, &m->vms, vmn) {
		RB_REMOVE(vm_tree, &m->vms, vm);
		vm_free(vm);
	}
	for (i = 0; i < m->nr_cpus; i++)
		free(m->cpus[i]);
	free(m->cpus);
	free(m->thief_pids);
	for (i = 0; i < m->nr_host_lat; i++)
		hist_free(&m->host_lat[i]);
	free(m->host_lat);
	free(m->by_tid);
	free(m);
}

static struct vm *vm_get(struct model *m, const struct ident_info *id)
{
	struct vm key = { .pid = id->kernel ? MODEL_PID_KERNEL : id->pid }, *vm;

	vm = RB_FIND(vm_tree, &m->vms, &key);
	if (vm)
		return vm;
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return NULL;
	vm->pid = key.pid;
	vm->filter = m->filter;
	vm->kernel = id->kernel;
	vm->guessed = id->guessed && !id->kernel;
	strlcpy(vm->name, id->kernel ? "host kernel" : id->vm_name, sizeof(vm->name));
	/* who it is, where the source said (a recording's --threads snapshot) */
	if (id->vm_ident && !id->kernel)
		vm->ident = *id->vm_ident;
	TAILQ_INIT(&vm->vcpus);
	TAILQ_INIT(&vm->vmm_threads);
	RB_INSERT(vm_tree, &m->vms, vm);
	return vm;
}


/* v into by_tid, which has room. */
static void by_tid_put(struct model *m, struct vcpu *v)
{
	unsigned int i = model_tid_slot(m, v->tid);

	while (m->by_tid[i].v)
		i = (i + 1) & m->by_tid_mask;
	m->by_tid[i].tid = v->tid;
	m->by_tid[i].v = v;
}

/* Room for one more vCPU in by_tid, kept at most half full: 0, or -1 (no memory). */
static int by_tid_room(struct model *m)
{
	unsigned int size = m->by_tid_mask + 1, i, old = size;
	struct model_tid *t = m->by_tid;

	if (t && 2 * (m->nr_vcpus + 1) <= size)
		return 0;
	size = t ? size * 2 : 1024;
	m->by_tid = calloc(size, sizeof(*m->by_tid));
	if (!m->by_tid) {
		m->by_tid = t;
		return -1;
	}
	m->by_tid_mask = size - 1;
	for (i = 0; t && i < old; i++)
		if (t[i].v)
			by_tid_put(m, t[i].v);
	free(t);
	return 0;
}

/* v out of by_tid: the entries after it move back into the gap (no tombstones). */
static void by_tid_del(struct model *m, const struct vcpu *v)
{
	unsigned int i = model_tid_slot(m, v->tid), j, home;

	while (m->by_tid[i].v != v)
		i = (i + 1) & m->by_tid_mask;
	m->by_tid[i].v = NULL;
	for (j = (i + 1) & m->by_tid_mask; m->by_tid[j].v; j = (j + 1) & m->by_tid_mask) {
		home = model_tid_slot(m, m->by_tid[j].tid);
		/* the entry at j may fill i unless its home lies cyclically in (i, j] */
		if (((j - home) & m->by_tid_mask) >= ((j - i) & m->by_tid_mask)) {
			m->by_tid[i] = m->by_tid[j];
			m->by_tid[j].v = NULL;
			i = j;
		}
	}
}

/* A VMM thread entered or left the guest: from now on a vCPU row. */
static void vcpu_promote(struct model *m, struct vcpu *v)
{
	TAILQ_REMOVE(&v->vm->vmm_threads, v, vm_link);
	v->vm->nr_vmm--;
	m->nr_vmm--;
	v->vmm = false;
	TAILQ_INSERT_TAIL(&v->vm->vcpus, v, vm_link);
	v->vm->nr_vcpus++;
	m->vcpus_gen++;
}

/* run: the thread is known to run a vCPU (it entered or left the guest), else a VMM thread */
static struct vcpu *vcpu_new(struct model *m, int tid, int vcpu_hint, bool run)
{
	struct ident_info id = { .pid = 0, .vcpu_hint = vcpu_hint, .vcpu_id = -1 };
	struct vcpu *v;

	if (m->nr_vcpus >= m->max_vcpus || by_tid_room(m))
		return NULL;
	strlcpy(id.vm_name, "unknown", sizeof(id.vm_name));
	if (m->ident)
		m->ident(m->ident_ctx, tid, &id);
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->other = calloc(m->nr_other ? m->nr_other : 1, sizeof(*v->other));
	v->vm = vm_get(m, &id);
	if (!v->other || !v->vm) {
		free(v->other);
		free(v);
		return NULL;
	}
	v->tid = tid;
	v->last_cpu = -1;
	v->ctx_node = -1;
	v->wait_cpu = -1;
	v->state = VS_NONE;
	v->on_cpu = VS_HOST;
	strlcpy(v->comm, id.comm, sizeof(v->comm));
	v->vcpu_id = id.vcpu_id;
	RB_INSERT(vcpu_tree, &m->vcpus, v);
	by_tid_put(m, v);
	/* host kernel threads are listed as they are: they never run a vCPU */
	v->vmm = !run && !v->vm->kernel;
	if (v->vmm) {
		TAILQ_INSERT_TAIL(&v->vm->vmm_threads, v, vm_link);
		v->vm->nr_vmm++;
		m->nr_vmm++;
	} else {
		TAILQ_INSERT_TAIL(&v->vm->vcpus, v, vm_link);
		v->vm->nr_vcpus++;
	}
	m->nr_vcpus++;
	m->vcpus_gen++;
	return v;
}

/*
 * The vCPU of thread tid, made when create and it is new (vcpu_hint: the
 * vCPU id its event gives, or -1): NULL if none (or no memory).
 */
static struct vcpu *vcpu_lookup(struct model *m, int tid, bool create, int vcpu_hint, bool run)
{
	const struct model_tid *e;
	unsigned int i;

	for (i = model_tid_slot(m, tid); m->by_tid && (e = &m->by_tid[i])->v; i = (i + 1) & m->by_tid_mask)
		if (e->tid == tid) {
			if (run && e->v->vmm)
				vcpu_promote(m, e->v);
			return e->v;
		}
	return create ? vcpu_new(m, tid, vcpu_hint, run) : NULL;
}

/* The vCPU thread tid, for the sched events: NULL when it is none (or a VMM thread). */
static struct vcpu *vcpu_running(struct model *m, int tid)
{
	struct vcpu *v = vcpu_lookup(m, tid, false, -1, false);

	return v && !v->vmm ? v : NULL;
}

/* v changed this interval: model_interval_end walks it. */
static inline void vcpu_touch(struct model *m, struct vcpu *v)
{
	if (v->dirty)
		return;
	v->dirty = true;
	TAILQ_INSERT_TAIL(&m->dirty, v, dirty_link);
}

/* The vCPU of thread tid, made if new, marked changed: NULL if none (or no memory). */
struct vcpu *model_vcpu_get(struct model *m, int tid, int vcpu_hint, bool run)
{
	struct vcpu *v = vcpu_lookup(m, tid, true, vcpu_hint, run);

	if (v)
		vcpu_touch(m, v);
	return v;
}

/* The ring is full and not yet ring_size: double it (not yet wrapped, so its order stays). */
static int ring_grow(const struct model *m, struct vcpu *v)
{
	unsigned int n = v->ring_alloc ? v->ring_alloc * 2 : MODEL_RING_FIRST;
	struct exit_rec *r;

	if (n > m->ring_size)
		n = m->ring_size;
	r = reallocarray(v->ring, n, sizeof(*r));
	if (!r)
		return -1;
	v->ring = r;
	v->ring_alloc = n;
	return 0;
}

struct reason_split *model_reason_split(struct reason_stat *rs)
{
	struct reason_split *sp = rs->split;

	if (sp)
		return sp;
	sp = rs->split = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	hist_init(&sp->handling);
	hist_init(&sp->handling_done);
	return sp;
}

struct reason_stat *model_reason_stat(struct vcpu *v, int id)
{
	struct reason_stat *rs;

	if ((unsigned int)id >= v->nr_rs) {
		unsigned int n = v->nr_rs ? v->nr_rs : 16;
		struct reason_stat **t;

		while (n <= (unsigned int)id)
			n *= 2;
		t = reallocarray(v->rs, n, sizeof(*t));
		if (!t)
			return NULL;
		memset(t + v->nr_rs, 0, (n - v->nr_rs) * sizeof(*t));
		v->rs = t;
		v->nr_rs = n;
	}
	rs = v->rs[id];
	if (rs)
		return rs;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	hist_init(&rs->lat);
	hist_init(&rs->lat_done);
	v->rs[id] = rs;
	return rs;
}

int model_feed_ip(struct model *m, struct vcpu *v, const struct kvm_event *ev, uint64_t n)
{
	const struct reason *r = &m->reasons->r[ev->reason_id];
	enum ip_kind k = r->async ? IP_TIME : IP_EXIT;

	if (!ev->ip) {
		v->no_ip += n;
		return 0;
	}
	if (!v->ips[k]) {
		v->ips[k] = malloc(sizeof(*v->ips[k]));
		if (!v->ips[k])
			return -1;
		model_ips_init(v->ips[k], m->ip_slots);
	}
	return model_ips_add_n(v->ips[k], ev->ip, k == IP_TIME ? -1 : ev->reason_id, ev->mode, n);
}

struct exit_rec *model_ring_put(struct model *m, struct vcpu *v, const struct kvm_event *ev)
{
	struct exit_rec *r;

	if (v->ring_head == v->ring_alloc && ring_grow(m, v))
		return NULL;
	r = &v->ring[v->ring_head];
	r->time = ev->time;
	r->ip = ev->ip;
	r->latency = MODEL_LAT_NONE;
	r->reason_id = ev->reason_id;
	r->cpu = (int16_t)ev->cpu;
	r->info1 = ev->info1;
	r->info2 = ev->info2;
	r->ninfo = (int8_t)ev->ninfo;
	r->mode = (int8_t)ev->mode;
	r->obj_kind = KVM_OBJ_NONE;
	v->pending_slot = v->ring_head;
	/* it wraps once it has all ring_size slots */
	if (++v->ring_head == m->ring_size)
		v->ring_head = 0;
	v->ring_count++;
	return r;
}

static int feed_exit(struct model *m, struct vcpu *v, const struct kvm_event *ev)
{
	struct reason_stat *rs = model_reason_stat(v, ev->reason_id);

	if (!rs)
		return -1;
	if (v->pending) {
		v->unmatched_exits.total++;
		/* the exit before it had no entry: counted on its object, without a latency */
		if (model_objs_close(m, v, MODEL_LAT_NONE))
			return -1;
	}
	v->exits.total++;
	m->exits.total++;
	rs->count.total++;
	if (m->ring_size && !model_ring_put(m, v, ev))
		return -1;
	v->pending = true;
	memset(v->pending_states, 0, sizeof(v->pending_states));
	v->pending_time = ev->time;
	v->pending_reason = ev->reason_id;
	if (m->max_objs) {
		/* the site of its object: where the guest was, unless the exit came from outside it */
		v->pobj_ip = m->reasons->r[ev->reason_id].async ? 0 : ev->ip;
		model_objs_note(v, ev);
	}
	return m->ip_slots ? model_feed_ip(m, v, ev, 1) : 0;
}

static int feed_entry(struct model *m, struct vcpu *v, const struct kvm_event *ev)
{
	struct reason_stat *rs;
	uint64_t lat;

	if (!v->pending) {
		v->unmatched_entries.total++;
		return 0;
	}
	v->pending = false;
	lat = ev->time >= v->pending_time ? ev->time - v->pending_time : 0;
	rs = v->rs[v->pending_reason];
	if (hist_add(&rs->lat, lat) || model_objs_close(m, v, lat))
		return -1;
	if (m->names->sched) {
		struct reason_split *sp = model_reason_split(rs);

		if (!sp)
			return -1;
		/* on a CPU (host or VMM), runnable off one, asleep: see model_time.c */
		if (hist_add(&sp->handling, v->pending_states[VS_HOST] + v->pending_states[VS_VMM]))
			return -1;
		sp->preempted.total += v->pending_states[VS_WAIT];
		sp->blocked.total += v->pending_states[VS_HALT];
	}
	/* Only exits write the ring, so the pending exit is still in its slot. */
	if (m->ring_size)
		v->ring[v->pending_slot].latency = lat;
	return 0;
}

/*
 * A thread's name as its sched events give it now: threads rename
 * themselves (a VMM names its vCPU threads a moment after they start),
 * so the name /proc gave when kvmtop met one may be its creator's.
 */
static void vcpu_rename(struct vcpu *v, const char *comm)
{
	if (v && comm[0] && strncmp(v->comm, comm, sizeof(v->comm)))
		strlcpy(v->comm, comm, sizeof(v->comm));
}

int model_feed(struct model *m, const struct kvm_event *ev)
{
	struct vcpu *v;
	bool run;

	if (!m->have_time) {
		m->have_time = true;
		m->first_time = ev->time;
		m->interval_start = ev->time;
	}
	if (ev->kind == KVM_EV_NEWTASK)
		return 0;	/* identity's (the driver keeps births), not counted */
	if (ev->time > m->last_time)
		m->last_time = ev->time;
	if (ev->kind == KVM_EV_SWITCH || ev->kind == KVM_EV_WAKE) {
		/* threads that are no vCPU (yet) are not kvmtop's: nothing is made for them */
		struct vcpu *next = ev->kind == KVM_EV_SWITCH ? vcpu_running(m, ev->next_tid) : NULL;

		v = vcpu_running(m, ev->tid);
		if (ev->kind == KVM_EV_SWITCH) {
			vcpu_rename(v, ev->prev_comm);
			vcpu_rename(next, ev->next_comm);
		}
		/* who ran instead of a waiting vCPU, from the states the event ends */
		if (model_steal_sched(m, v, next, ev))
			return -1;
		model_time_sched(m, v, next, ev);
		return 0;
	}
	m->events.total++;

	/* only a thread inside KVM_RUN enters or leaves the guest: that makes it a vCPU */
	run = ev->kind == KVM_EV_EXIT || ev->kind == KVM_EV_ENTRY;
	v = model_vcpu_get(m, ev->tid, ev->vcpu_id != KVM_VCPU_NONE ? (int)ev->vcpu_id : -1, run);
	if (!v) {
		m->dropped.total++;
		return m->nr_vcpus >= m->max_vcpus ? 0 : -1;
	}
	v->last_cpu = ev->cpu;
	if (ev->vcpu_id != KVM_VCPU_NONE && !v->vmm)
		v->vcpu_id = ev->vcpu_id;

	if (!v->vmm)
		model_time_event(m, v, ev);
	switch (ev->kind) {
	case KVM_EV_EXIT:
		return feed_exit(m, v, ev);
	case KVM_EV_ENTRY:
		return feed_entry(m, v, ev);
	case KVM_EV_OTHER:
		if (ev->other >= 0 && ev->other < m->nr_other)
			v->other[ev->other].total++;
		/* a companion event: what the pending exit touched */
		if (ev->obj_kind != KVM_OBJ_NONE && v->pending && m->max_objs)
			model_objs_note(v, ev);
		if (ev->sub >= 0 && ev->sub < UEXIT_MAX) {
			if (!v->uexit && !(v->uexit = calloc(UEXIT_MAX, sizeof(*v->uexit))))
				return -1;
			v->uexit[ev->sub].total++;
		}
		return 0;
	case KVM_EV_SWITCH:
	case KVM_EV_WAKE:
	case KVM_EV_NEWTASK:
		break;
	}
	return 0;
}

int model_add_exits(struct model *m, int tid, int reason_id, uint64_t n)
{
	struct vcpu *v = model_vcpu_get(m, tid, -1, true);
	struct reason_stat *rs;

	if (!v) {
		m->dropped.total += n;
		return m->nr_vcpus >= m->max_vcpus ? 0 : -1;
	}
	if (reason_id >= 0) {
		rs = model_reason_stat(v, reason_id);
		if (!rs)
			return -1;
		rs->count.total += n;
		return 0;
	}
	v->exits.total += n;
	m->exits.total += n;
	return 0;
}

int model_add_other(struct model *m, int tid, int other, uint64_t n)
{
	struct vcpu *v = model_vcpu_get(m, tid, -1, true);

	if (!v) {
		m->dropped.total += n;
		return m->nr_vcpus >= m->max_vcpus ? 0 : -1;
	}
	if (other >= 0 && other < m->nr_other)
		v->other[other].total += n;
	return 0;
}

/* c (*nr_c slots) grown to nr slots, the new ones zero: NULL if no memory. */
static struct ctr *kst_grow(struct ctr **c, unsigned int *nr_c, unsigned int nr)
{
	struct ctr *n;

	if (*nr_c >= nr)
		return *c;
	n = reallocarray(*c, nr, sizeof(*n));
	if (!n)
		return NULL;
	memset(n + *nr_c, 0, (nr - *nr_c) * sizeof(*n));
	*c = n;
	*nr_c = nr;
	return n;
}

/* The VM of process pid, made (named as its process) if new: NULL when memory ran out. */
static struct vm *vm_of_pid(struct model *m, int pid)
{
	struct ident_info id = { .pid = pid };
	struct vm key = { .pid = pid }, *vm;

	vm = RB_FIND(vm_tree, &m->vms, &key);
	if (vm)
		return vm;
	/* a process's main thread has its pid: who it is */
	strlcpy(id.vm_name, "unknown", sizeof(id.vm_name));
	if (m->ident)
		m->ident(m->ident_ctx, pid, &id);
	id.pid = pid;
	id.kernel = false;
	return vm_get(m, &id);
}

struct ctr *model_kstats_vm(struct model *m, int pid, unsigned int nr)
{
	struct vm *vm = vm_of_pid(m, pid);

	return vm ? kst_grow(&vm->kst, &vm->nr_kst, nr) : NULL;
}

int model_vm_exits_unknown(struct model *m, int pid, const char *why)
{
	struct vm *vm = why ? vm_of_pid(m, pid) : RB_FIND(vm_tree, &m->vms, &(struct vm){ .pid = pid });

	if (!vm)
		return why ? -1 : 0;
	vm->exits_unknown = why;
	return 0;
}

struct ctr *model_kstats_vcpu(struct model *m, int tid, int vcpu_id, unsigned int nr)
{
	struct vcpu *v = model_vcpu_get(m, tid, vcpu_id, true);

	if (!v)
		return NULL;
	if (vcpu_id >= 0)
		v->vcpu_id = vcpu_id;
	return kst_grow(&v->kst, &v->nr_kst, nr);
}

void model_counted_from(struct model *m, int pid, int tid, enum model_from from)
{
	struct vcpu *v;
	struct vm *vm;

	if (tid) {
		v = vcpu_lookup(m, tid, false, -1, false);
		if (v)
			v->counted_from = from;
		return;
	}
	vm = RB_FIND(vm_tree, &m->vms, &(struct vm){ .pid = pid });
	if (vm)
		vm->counted_from = from;
}

void model_lost(struct model *m, long long n)
{
	m->lost_events.total += n > 0 ? (uint64_t)n : n < 0 ? 1 : 0;
}

static void ctr_mark(struct ctr *c)
{
	c->base = c->total;
}

static void ctr_zero(struct ctr *c)
{
	c->total = 0;
	c->base = 0;
}

/* op on a vCPU's counters that change only with its events (and so mark it dirty). */
static void vcpu_ctrs_apply(const struct model *m, struct vcpu *v, void (*op)(struct ctr *))
{
	unsigned int i;
	int j;

	for (i = 0; i < v->nr_rs; i++) {
		if (!v->rs[i])
			continue;
		op(&v->rs[i]->count);
		if (v->rs[i]->split) {
			op(&v->rs[i]->split->preempted);
			op(&v->rs[i]->split->blocked);
		}
	}
	op(&v->exits);
	op(&v->unmatched_exits);
	op(&v->unmatched_entries);
	for (j = 0; j < m->nr_other; j++)
		op(&v->other[j]);
	for (j = 0; v->uexit && j < UEXIT_MAX; j++)
		op(&v->uexit[j]);
	for (i = 0; i < v->nr_kst; i++)
		op(&v->kst[i]);
	model_objs_marks(v, op);
}

/*
 * op on every counter of the model: the host's, each VM's; of each vCPU
 * its time states (every vCPU's time goes on, model_time_to()) and the
 * rest of those on the dirty list (all: of every vCPU).
 */
static void ctrs_apply(struct model *m, void (*op)(struct ctr *), bool all)
{
	struct vcpu *v;
	struct vm *vm;
	unsigned int i;
	int j;

	RB_FOREACH(v, vcpu_tree, &m->vcpus) {
		for (j = 0; j < VS_NR; j++) {
			op(&v->time[j]);
			op(&v->ptime[j]);
		}
		if (all)
			vcpu_ctrs_apply(m, v, op);
	}
	if (!all)
		TAILQ_FOREACH(v, &m->dirty, dirty_link)
			vcpu_ctrs_apply(m, v, op);
	RB_FOREACH(vm, vm_tree, &m->vms) {
		for (j = 0; j < TG_NR; j++) {
			op(&vm->groups[j].run);
			op(&vm->groups[j].wait);
		}
		for (i = 0; i < vm->nr_kst; i++)
			op(&vm->kst[i]);
	}
	op(&m->exits);
	op(&m->events);
	op(&m->lost_events);
	op(&m->dropped);
}

/* The dirty list emptied: a new interval, in which nothing changed yet. */
static void dirty_clear(struct model *m)
{
	struct vcpu *v;

	while ((v = TAILQ_FIRST(&m->dirty))) {
		TAILQ_REMOVE(&m->dirty, v, dirty_link);
		v->dirty = false;
	}
}

/* h, the latency of reason id in an interval that closes, into the host's: 0, or -1 (no memory). */
static int host_lat_fold(struct model *m, unsigned int id, const struct hist *h)
{
	if (!h->samples || !m->host_lat_on)
		return 0;
	if (id >= m->nr_host_lat) {
		unsigned int n = id < m->reasons->nr ? m->reasons->nr : id + 1, i;
		struct hist *t = reallocarray(m->host_lat, n, sizeof(*t));

		if (!t)
			return -1;
		for (i = m->nr_host_lat; i < n; i++)
			hist_init(&t[i]);
		m->host_lat = t;
		m->nr_host_lat = n;
	}
	return hist_merge(&m->host_lat[id], h);
}

int model_interval_end(struct model *m, uint64_t now)
{
	struct vcpu *v;
	unsigned int i;

	/* a vCPU not on the list has interval histograms that are empty */
	TAILQ_FOREACH(v, &m->dirty, dirty_link) {
		if (model_objs_interval_end(v))
			return -1;
		for (i = 0; i < v->nr_rs; i++) {
			struct reason_stat *rs = v->rs[i];

			if (!rs)
				continue;
			if (rs->lat.samples &&
			    (hist_merge(&rs->lat_done, &rs->lat) || host_lat_fold(m, i, &rs->lat)))
				return -1;
			hist_clear(&rs->lat);
			if (!rs->split)
				continue;
			if (rs->split->handling.samples &&
			    hist_merge(&rs->split->handling_done, &rs->split->handling))
				return -1;
			hist_clear(&rs->split->handling);
		}
	}
	ctrs_apply(m, ctr_mark, false);
	dirty_clear(m);
	model_steal_reset(m);
	m->interval_start = now;
	return 0;
}

/* A VM's context counted from now on: its sums and their bases 0, nothing lost since. */
static void ctx_zero(struct vm_ctx *x)
{
	int k;

	memset(x->sum, 0, sizeof(x->sum));
	memset(x->base, 0, sizeof(x->base));
	x->whole = x->summed;
	for (k = 0; k < x->nr_tap_rows; k++) {
		memset(x->taps[k].sum, 0, sizeof(x->taps[k].sum));
		memset(x->taps[k].base, 0, sizeof(x->taps[k].base));
		x->taps[k].whole = true;
	}
}

void model_reset(struct model *m, uint64_t now)
{
	struct vm *vm;
	struct vcpu *v;
	unsigned int i;

	RB_FOREACH(v, vcpu_tree, &m->vcpus) {
		for (i = 0; i < v->nr_rs; i++) {
			if (!v->rs[i])
				continue;
			hist_clear(&v->rs[i]->lat);
			hist_clear(&v->rs[i]->lat_done);
			if (!v->rs[i]->split)
				continue;
			hist_clear(&v->rs[i]->split->handling);
			hist_clear(&v->rs[i]->split->handling_done);
		}
		v->pending = false;
		model_objs_reset(v);
		if (v->state != VS_NONE)
			v->state_since = now;
		if (v->wait_cpu >= 0)
			v->steal_at = now;
		v->ring_head = 0;
		v->ring_count = 0;
		v->no_ip = 0;
		for (i = 0; i < IP_KINDS; i++)
			if (v->ips[i])
				model_ips_clear(v->ips[i]);
	}
	for (i = 0; i < m->nr_host_lat; i++)
		hist_clear(&m->host_lat[i]);
	ctrs_apply(m, ctr_zero, true);
	dirty_clear(m);
	model_steal_reset(m);
	ctx_zero(&m->host_ctx);
	RB_FOREACH(vm, vm_tree, &m->vms)
		ctx_zero(&vm->ctx);
	m->first_time = now;
	m->interval_start = now;
}

void model_finish(struct model *m)
{
	struct vcpu *v;

	RB_FOREACH(v, vcpu_tree, &m->vcpus) {
		if (!v->pending)
			continue;
		v->pending = false;
		v->unmatched_exits.total++;
		/* counted on its object without a latency (no memory: not counted there) */
		model_objs_close(m, v, MODEL_LAT_NONE);
	}
}

int model_reason_total_lat(const struct reason_stat *rs, struct hist *out)
{
	return hist_merge(out, &rs->lat_done) ?: hist_merge(out, &rs->lat);
}

void model_vm_remove(struct model *m, struct vm *vm)
{
	struct vcpu *v;

	while ((v = TAILQ_FIRST(&vm->vmm_threads))) {
		/* the vCPU list's walk below frees it */
		vcpu_promote(m, v);
	}
	while ((v = TAILQ_FIRST(&vm->vcpus))) {
		unsigned int i;

		TAILQ_REMOVE(&vm->vcpus, v, vm_link);
		if (v->dirty) {
			TAILQ_REMOVE(&m->dirty, v, dirty_link);
			/* the host's histograms keep what it saw (out of memory: without it) */
			for (i = 0; i < v->nr_rs; i++)
				if (v->rs[i])
					host_lat_fold(m, i, &v->rs[i]->lat);
		}
		RB_REMOVE(vcpu_tree, &m->vcpus, v);
		by_tid_del(m, v);
		model_steal_forget(m, v);
		vcpu_free(v);
		m->nr_vcpus--;
		m->vcpus_gen++;
	}
	RB_REMOVE(vm_tree, &m->vms, vm);
	vm_free(vm);
}

/* Thread b's time since a (NULL: all of it, b born) into gs; false where it went back (another thread). */
static bool group_add(struct thread_group_stat *gs, const struct group_thread *a, const struct group_thread *b)
{
	if (a && (b->run_ns < a->run_ns || b->wait_ns < a->wait_ns))
		return false;
	gs->run.total += b->run_ns - (a ? a->run_ns : 0);
	gs->wait.total += b->wait_ns - (a ? a->wait_ns : 0);
	return true;
}

/* The threads of gs's last reading that now (n of them, by tid) no longer has, into gs->gone. */
static void group_keep_gone(struct thread_group_stat *gs, const struct group_thread *now, size_t n)
{
	size_t i, j = 0, k = 0;

	free(gs->gone);
	gs->gone = NULL;
	gs->nr_gone = 0;
	if (!gs->nr_last || !(gs->gone = calloc(gs->nr_last, sizeof(*gs->gone))))
		return;
	for (i = 0; i < gs->nr_last; i++) {
		while (j < n && now[j].tid < gs->last[i].tid)
			j++;
		if (j == n || now[j].tid != gs->last[i].tid)
			gs->gone[k++] = gs->last[i];
	}
	gs->nr_gone = k;
}

/*
 * The threads of now (n of them) whose end gs counted already left out (a
 * zombie leader is listed until it is reaped): what they ran since their
 * exit record (their exit path, freeing their memory) added; gs->ended
 * keeps those still listed.  The count left.
 */
static size_t group_drop_ended(struct thread_group_stat *gs, struct group_thread *now, size_t n)
{
	size_t i, j, k = 0, kept = 0;
	struct group_thread *e;

	for (j = 0; j < n; j++) {
		for (i = 0, e = NULL; i < gs->nr_ended && !e; i++)
			e = gs->ended[i].tid == now[j].tid ? &gs->ended[i] : NULL;
		if (!e) {
			now[k++] = now[j];
			continue;
		}
		if (group_add(gs, e, &now[j]))
			*e = now[j];
		gs->ended[kept++] = *e;
	}
	gs->nr_ended = kept;
	return k;
}

void model_group_read(struct vm *vm, enum thread_group g, struct group_thread *now, size_t n)
{
	struct thread_group_stat *gs = &vm->groups[g];
	bool all_born = true;
	size_t i = 0, j;

	n = group_drop_ended(gs, now, n);
	/* both sorted by tid: walk them together */
	for (j = 0; j < n; j++) {
		const struct group_thread *b = &now[j];

		while (i < gs->nr_last && gs->last[i].tid < b->tid)
			i++;
		all_born = all_born && b->born;
		if (i < gs->nr_last && gs->last[i].tid == b->tid) {
			/* a tid that is another thread now counts from here */
			group_add(gs, &gs->last[i], b);
		} else if (b->born) {
			/* began after kvmtop: from zero, its first interval whole */
			group_add(gs, NULL, b);
		}
	}
	gs->known = gs->known || gs->seen || (n && all_born);
	gs->seen = true;
	group_keep_gone(gs, now, n);
	free(gs->last);
	gs->last = now;
	gs->nr_last = n;
	gs->count = (int)n;
}

static int group_tid_cmp(const void *key, const void *t)
{
	int x = *(const int *)key, y = ((const struct group_thread *)t)->tid;

	return (x > y) - (x < y);
}

/* Thread tid's entry in list (n of them, by tid) taken out into *out: true, or false where it is not there. */
static bool group_take(struct group_thread *list, size_t *n, int tid, struct group_thread *out)
{
	struct group_thread *t = list ? bsearch(&tid, list, *n, sizeof(*list), group_tid_cmp) : NULL;
	size_t i;

	if (!t)
		return false;
	*out = *t;
	for (i = (size_t)(t - list) + 1; i < *n; i++)
		list[i - 1] = list[i];
	(*n)--;
	return true;
}

/* Thread end's end counted in gs: a reading that still lists it adds only its growth (group_drop_ended). */
static void group_ended(struct thread_group_stat *gs, const struct group_thread *end)
{
	struct group_thread *e;

	if (end->tid <= 0)
		return;
	e = reallocarray(gs->ended, gs->nr_ended + 1, sizeof(*e));
	if (!e)
		return;
	gs->ended = e;
	gs->ended[gs->nr_ended++] = *end;
}

bool model_group_end(struct vm *vm, enum thread_group g, int tid, uint64_t run_ns, uint64_t wait_ns, bool born)
{
	const struct group_thread end = { .tid = tid, .run_ns = run_ns, .wait_ns = wait_ns };
	struct group_thread from;
	int k;

	/* read before: what it had since, in the group it was read in */
	for (k = 0; k < TG_NR; k++) {
		struct thread_group_stat *gs = &vm->groups[k];

		if (group_take(gs->last, &gs->nr_last, tid, &from) || group_take(gs->gone, &gs->nr_gone, tid, &from)) {
			group_ended(gs, &end);
			return group_add(gs, &from, &end);
		}
	}
	/* never read: all of it, where it began after kvmtop (after the group's last reading, if any) */
	if (!born && !vm->groups[g].seen)
		return false;
	group_ended(&vm->groups[g], &end);
	group_add(&vm->groups[g], NULL, &end);
	if (!vm->groups[g].seen)
		vm->groups[g].known = true;
	vm->groups[g].seen = true;
	return true;
}

void model_thread_detail(struct vm *vm, struct thread_detail *now, size_t n)
{
	size_t i = 0, j;

	/* both sorted by tid: walk them together */
	for (j = 0; j < n; j++) {
		struct thread_detail *b = &now[j];
		const struct thread_detail *a;

		while (i < vm->nr_detail && vm->detail[i].tid < b->tid)
			i++;
		b->known = b->io_known = false;
		if (i == vm->nr_detail || vm->detail[i].tid != b->tid)
			continue;
		a = &vm->detail[i];
		/* a tid that is another thread now (counters went back) counts from here */
		if (b->run_ns < a->run_ns)
			continue;
		b->known = true;
		b->d_run = b->run_ns - a->run_ns;
		if (a->io && b->io && b->rd_bytes >= a->rd_bytes && b->wr_bytes >= a->wr_bytes) {
			b->io_known = true;
			b->d_rd = b->rd_bytes - a->rd_bytes;
			b->d_wr = b->wr_bytes - a->wr_bytes;
		}
	}
	free(vm->detail);
	vm->detail = now;
	vm->nr_detail = n;
}
