/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's internals: what model.c, model_time.c, model_steal.c,
 * model_read.c and model_ended.c tell each other.  No file outside src/model/ includes it;
 * views read the model through model.h's accessors.
 *
 * Who calls whom (no circle): model.c feeds the time states
 * (model_time.c) and the stolen-time tables (model_steal.c); the time
 * states give out the waits to the tables; both look threads up through
 * model_read.c, which calls none of them.  model_ended.c calls model.c
 * (to remove a VM) and model_scope.c (to sum one up), never the other way.
 */
#ifndef KVMTOP_MODEL_PRIV_H
#define KVMTOP_MODEL_PRIV_H

#include "model.h"
#include "model_feed.h"
#include "model_steal.h"
#include "model_time.h"
#include "model_view.h"

/* A vCPU's slot in the model's table of vCPUs by tid (open addressing, linear probing). */
static inline unsigned int model_tid_slot(const struct model *m, int tid)
{
	return ((unsigned int)tid * 2654435761u) & m->by_tid_mask;
}

/* model.c: the vCPU of thread tid, made if new, marked changed: NULL if none (or no memory). */
struct vcpu *model_vcpu_get(struct model *m, int tid, int vcpu_hint, bool run);
/* model.c: v's figures of reason id, made if new: NULL (no memory). */
struct reason_stat *model_reason_stat(struct vcpu *v, int id);
/* rs's split (the sched events' figures), made if it has none: NULL (no memory). */
struct reason_split *model_reason_split(struct reason_stat *rs);
/* Exit ev's guest IP, standing for n exits, in v's time samples or exit sites: 0, or -1 (no memory). */
int model_feed_ip(struct model *m, struct vcpu *v, const struct kvm_event *ev, uint64_t n);
/* Exit ev in v's ring of recent exits, its latency and object not known yet: its slot, NULL (no memory). */
struct exit_rec *model_ring_put(struct model *m, struct vcpu *v, const struct kvm_event *ev);

/* Time states: an exit, entry or other KVM event of v, before the model counts it. */
void model_time_event(struct model *m, struct vcpu *v, const struct kvm_event *ev);
/*
 * A switch from prev to next, or a wakeup of prev; either NULL when it is
 * no vCPU (yet): then kept, for the states of its time before it is one.
 */
void model_time_sched(struct model *m, struct vcpu *prev, struct vcpu *next,
		      const struct kvm_event *ev);
/* The table model_time_sched() keeps threads that are no vCPU yet in: 0 or -1 (no memory). */
#define MODEL_PRE_SLOTS		4096	/* a power of two */
int model_time_pre_new(struct model *m);

/*
 * Stolen time: model_steal_sched() takes each switch and wakeup before
 * the time states do; model_steal_to() gives out every open wait up to
 * now (the snapshot's end), model_steal_reset() starts the next
 * interval's tables, model_steal_forget() drops a vCPU that goes.
 */
#define MODEL_CPUS_MAX		8192	/* Linux's largest NR_CPUS: larger numbers are none */
#define MODEL_THIEF_PIDS	1024	/* thieves' processes remembered (a cache, by tid) */
/* a vCPU's table: four times the thieves shown, at least 16 */
#define MODEL_STEAL_SLOTS(n)	((n) * 4 > 16 ? (n) * 4 : 16)
int model_steal_sched(struct model *m, struct vcpu *prev, struct vcpu *next, const struct kvm_event *ev);
void model_steal_to(struct model *m, uint64_t now);
void model_steal_reset(struct model *m);
void model_steal_forget(struct model *m, struct vcpu *v);
/*
 * ns of v's wait, measured elsewhere (the bpf source), to thread tid
 * named comm (NUL-terminated, KVM_COMM_LEN); tid <= 0: to no one known
 * (the "other" row).  0, or -1 (no memory).
 */
int model_steal_add(struct model *m, struct vcpu *v, int tid, const char *comm, uint64_t ns);

/*
 * Objects (model_objs.c): an exit's or a companion event's object
 * becomes the pending exit's; model_objs_close() counts the pending
 * exit on it (lat MODEL_LAT_NONE: no entry came), at its entry, at the
 * next exit or at the end.  _interval_end, _reset and _free as the
 * reasons' figures.  0, or -1 (no memory).
 */
void model_objs_note(struct vcpu *v, const struct kvm_event *ev);
int model_objs_close(const struct model *m, struct vcpu *v, uint64_t lat);
/* n exits of v on object k, counted elsewhere, lat their latencies: 0, or -1 (no memory). */
int model_objs_add(const struct model *m, struct vcpu *v, const struct model_obj_key *k, uint64_t n,
		   const struct hist *lat);
/* n exits of v on object k (counted elsewhere) from guest IP ip (0: none), on its sites: 0, or -1. */
int model_objs_site(const struct model *m, struct vcpu *v, const struct model_obj_key *k, uint64_t ip,
		    uint64_t n);
int model_objs_interval_end(struct vcpu *v);
void model_objs_reset(struct vcpu *v);
void model_objs_marks(struct vcpu *v, void (*op)(struct ctr *));
void model_objs_free(struct vcpu *v);

/* model.c: vm and its threads out of the model, freed (model_ended.c's reap and fold). */
void model_vm_remove(struct model *m, struct vm *vm);

#endif
