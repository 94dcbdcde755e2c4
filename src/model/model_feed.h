/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the feeders call (model.h has the types): the sources' events and
 * counters, the samplers' readings from /proc, the driver's intervals and
 * ended VMs.  The views never include it: they only read
 * (model_view.h), which tests/structure.py holds them to.
 */
#ifndef KVMTOP_MODEL_FEED_H
#define KVMTOP_MODEL_FEED_H

#include "model.h"

/* 0, or -1 when memory ran out. */
int model_feed(struct model *m, const struct kvm_event *ev);
/*
 * Sources that count rather than trace (debugfs), where the total and the
 * split by reason are separate counters: reason_id -1 adds n to the
 * exits of thread tid (and the host's), a reason id adds n to that
 * reason's count only; model_add_other() adds n to other event "other".
 * 0, or -1 when memory ran out.
 */
int model_add_exits(struct model *m, int tid, int reason_id, uint64_t n);
int model_add_other(struct model *m, int tid, int other, uint64_t n);

/*
 * Figures counted elsewhere, added whole (model_agg.c; the bpf source
 * counts in the kernel): n exits of reason reason_id by thread tid
 * (vcpu_id: its vCPU's id, -1 unknown), counted as they came;
 * latencies, the exits of reason_id whose entry came, with their object
 * (NULL: none); n other events (other -1: an exit or entry, only in the
 * host's events; sub: a userspace exit's reason, -1 none); exits that had
 * no entry and entries that had no exit.  0, or -1 when memory ran out.
 */
int model_agg_exits(struct model *m, int tid, int vcpu_id, int reason_id, uint64_t n);
int model_agg_latencies(struct model *m, int tid, int vcpu_id, int reason_id,
			const struct model_obj_key *obj, const struct hist *lat);
int model_agg_events(struct model *m, int tid, int other, int sub, uint64_t n);
/* n userspace exits of reason sub by thread tid (their events counted apart): 0, or -1. */
int model_agg_uexits(struct model *m, int tid, int sub, uint64_t n);
void model_agg_unmatched(struct model *m, int tid, uint64_t exits, uint64_t entries);
/* n events a source saw and could not count (a full map): the model's dropped events. */
void model_agg_dropped(struct model *m, uint64_t n);
/*
 * Exit ev of thread tid, one taken of every n (its count is in
 * model_agg_exits already): in the vCPU's ring of recent exits with its
 * latency lat (MODEL_LAT_NONE: no entry came) and object, and its guest
 * IP standing for n exits.  0, or -1 (no memory).
 */
int model_agg_sample(struct model *m, int tid, const struct kvm_event *ev, uint64_t lat, uint64_t n);
/*
 * The split of thread tid's exits of reason_id whose entry came: their
 * time on a CPU (a histogram), runnable off one and asleep, in ns.  0, or
 * -1 (no memory).
 */
int model_agg_split(struct model *m, int tid, int vcpu_id, int reason_id, const struct hist *handling,
		    uint64_t preempted, uint64_t blocked);
/*
 * ns of vCPU thread tid's wait for a CPU to thief (named comm; thief <= 0:
 * not known, the "other" row), this interval.  0, or -1 (no memory).
 */
int model_agg_steal(struct model *m, int tid, int thief, const char *comm, uint64_t ns);
/* vCPU thread tid's time in each state (ns[VS_NR], enum vcpu_state) of the interval: 0. */
int model_agg_time(struct model *m, int tid, const uint64_t *ns);
/* The host CPU of thread tid's last KVM event, where it is one of the model's. */
void model_agg_last_cpu(struct model *m, int tid, int cpu);
/* Thread tid's name where its row has none (it went before /proc named it). */
void model_agg_name(struct model *m, int tid, const char *comm);

/*
 * KVM's binary statistics (the stats source): the slots of VM pid, or of
 * vCPU thread tid (vcpu_id: its index), made when new and grown to nr
 * (names->kstats[scope].nr_slots).  A cumulative counter or a
 * histogram's bucket grows its slot's total; an instant or peak value is
 * the total itself.  NULL when memory ran out, or for a vCPU over
 * max_vcpus (its figures are then dropped).
 */
struct ctr *model_kstats_vm(struct model *m, int pid, unsigned int nr);

/*
 * VM pid runs, but the source sees none of its exits, for the reason why
 * (a constant string, said in its row; NULL: they are seen again): its
 * row is made if new, named as its process.  0 or -1 (no memory).
 */
int model_vm_exits_unknown(struct model *m, int pid, const char *why);
struct ctr *model_kstats_vcpu(struct model *m, int tid, int vcpu_id, unsigned int nr);

/*
 * Where the figures of VM pid (tid 0) or of its vCPU thread tid count
 * from (enum model_from), as the source knows it: the row's mark, set
 * where the row is (none is made).
 */
void model_counted_from(struct model *m, int pid, int tid, enum model_from from);

/*
 * The threads of group g of vm now, sorted by tid (the model keeps the
 * array, freed with the VM or at the next reading): the time they ran
 * and waited since the last reading is added, of the threads in both,
 * and all of it of a thread new since that began after kvmtop (born).
 */
void model_group_read(struct vm *vm, enum thread_group g, struct group_thread *now, size_t n);
/*
 * Thread tid of VM vm, not a vCPU, ended (the kernel's exit record): its
 * time on a CPU and waiting for one to its end (run_ns, wait_ns) into
 * its group, what it had since its last reading; one never read counts
 * whole where it began after kvmtop (born), into group g.  False where it
 * cannot be counted (began before kvmtop and never read; a tid reused).
 */
bool model_group_end(struct vm *vm, enum thread_group g, int tid, uint64_t run_ns, uint64_t wait_ns, bool born);

/*
 * The threads of vm other than its vCPUs now, one by one, sorted by tid
 * (the model keeps the array; NULL, 0: its detail is no longer shown and
 * what was kept goes): each thread's growth since the last reading of the
 * same thread.
 */
void model_thread_detail(struct vm *vm, struct thread_detail *now, size_t n);

/* A record says missed events were lost before it: n, or < 0 if how many is unknown (counted as 1). */
void model_lost(struct model *m, long long n);
/* Close the interval at time now: interval figures start again from 0. */
int model_interval_end(struct model *m, uint64_t now);
/* Forget every count (the TUI's reset key): VMs and vCPUs stay. */
void model_reset(struct model *m, uint64_t now);
/* End of input: exits still waiting for an entry become unmatched. */
void model_finish(struct model *m);

/* Does VM (host process) pid still run? */
typedef bool (*alive_fn)(void *ctx, int pid);
/*
 * Live, ended VMs (model_ended.c).  Between snapshots: mark the VMs whose
 * process has ended (end: now), and with keep_ended fold those past
 * max_ended that ended MODEL_ENDED_SETTLE_NS ago or more, oldest first,
 * into the rest's row.  0, or -1 (no memory).
 */
int model_mark_ended(struct model *m, alive_fn alive, void *ctx, uint64_t now);
/*
 * Before printing an interval: remove the VMs an earlier snapshot showed
 * ended (with keep_ended: fold those past max_ended instead), then mark
 * those whose process has ended, so a stopped VM's last figures are
 * printed once, marked, and then go.  0, or -1 (no memory).
 */
int model_reap(struct model *m, alive_fn alive, void *ctx, uint64_t now);

#endif
