/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the views read (model_read.c; model.h has the types): the VMs and
 * vCPUs the filter shows, in order, and what each row says beyond its
 * counters.  Read-only: nothing here changes the model.
 */
#ifndef KVMTOP_MODEL_VIEW_H
#define KVMTOP_MODEL_VIEW_H

#include "model.h"

/* How VM vm was found: "proc" (live), "threads" (--threads), "guess", "kernel". */
const char *model_vm_ident(const struct model *m, const struct vm *vm);

const char *model_group_name(enum thread_group g);

/* Group g's ns on a CPU (or waiting for one): this interval, or since start; 0 if not known. */
uint64_t model_group_ns(const struct vm *vm, enum thread_group g, bool wait, bool cumulative);

/* Latency of a reason since start: both histograms merged into out. */
int model_reason_total_lat(const struct reason_stat *rs, struct hist *out);

/* The vm entry of the host kernel's threads, NULL if none raised events. */
const struct vm *model_kernel_vm(const struct model *m);
/*
 * The VMs in pid order, without the host kernel's threads (never a VM)
 * and those the filter leaves out: MODEL_FOREACH_VM(vm, m) {
 * MODEL_FOREACH_VCPU(v, vm) { ... } }, read-only.
 */
const struct vm *model_vm_first(const struct model *m);
const struct vm *model_vm_next(const struct vm *vm);
#define MODEL_FOREACH_VM(vm, m) \
	for ((vm) = model_vm_first(m); (vm); (vm) = model_vm_next(vm))
/* How many VMs MODEL_FOREACH_VM walks. */
unsigned int model_nr_vms(const struct model *m);
/* VM pid, vCPU thread tid (or a VMM thread), or NULL: for views that keep ids, not pointers. */
const struct vm *model_find_vm(const struct model *m, int pid);
const struct vcpu *model_find_vcpu(const struct model *m, int tid);
/* A VM's vCPU threads (not its VMM threads) the filter shows, in the order they were seen. */
const struct vcpu *model_vcpu_first(const struct vm *vm);
const struct vcpu *model_vcpu_next(const struct vcpu *v);
#define MODEL_FOREACH_VCPU(v, vm) \
	for ((v) = model_vcpu_first(vm); (v); (v) = model_vcpu_next(v))
/*
 * Did vCPU thread v, or any thread of vm, count KVM events in the
 * interval: exits, other events or userspace exits (what -z keeps)?
 */
bool model_vcpu_active(const struct model *m, const struct vcpu *v);
bool model_vm_active(const struct model *m, const struct vm *vm);
/*
 * Is VM vm called glob (a shell glob): its name, or live, who it is (its
 * best name: OpenStack's display name, libvirt's ...; its UUID)?
 */
bool model_vm_called(const struct vm *vm, const char *glob);
/* Does the filter show VM vm, vCPU thread v (and its VM)? */
bool model_vm_shown(const struct vm *vm);
bool model_vcpu_shown(const struct vcpu *v);
/* "running", "exited", or for a recording "recorded" */
const char *model_vm_state(const struct model *m, const struct vm *vm);
/*
 * A vCPU's recent exits (the ring, --ring): how many are kept, and the
 * i-th of them, oldest first (NULL past the last), with *seq its number
 * among all the exits the vCPU made (0: its first).
 */
unsigned int model_recent_nr(const struct vcpu *v);
const struct exit_rec *model_recent(const struct vcpu *v, unsigned int i, uint64_t *seq);
/*
 * Does v wait for the entry after an exit now?  *blocking: that exit's
 * reason blocks (HLT, WFI: the vCPU is halted, not handled).
 */
bool model_vcpu_pending(const struct model *m, const struct vcpu *v, bool *blocking);
/*
 * KVM's binary statistics of VM vm (v NULL) or of its vCPU v: their
 * counters by names->kstats[scope] slot, *nr of them (NULL: none yet).
 */
const struct ctr *model_kstats(const struct vm *vm, const struct vcpu *v, unsigned int *nr);

#endif
