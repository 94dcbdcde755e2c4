// SPDX-License-Identifier: GPL-2.0
/*
 * What the views read of the model, and how: the trees' order, lookups by
 * pid and tid, the VMs walked without the host kernel's threads, each
 * VM's state and thread groups, and a vCPU's recent exits, pending exit
 * and KVM statistics.  Nothing here changes the model.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "model_view.h"

int model_vcpu_cmp(const struct vcpu *a, const struct vcpu *b)
{
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

int model_vm_cmp(const struct vm *a, const struct vm *b)
{
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

RB_GENERATE(vcpu_tree, vcpu, node, model_vcpu_cmp)
RB_GENERATE(vm_tree, vm, node, model_vm_cmp)

static const char *const group_names[TG_NR] = {
	[TG_EMULATOR] = "emulator",
	[TG_VHOST] = "vhost",
};

const char *model_group_name(enum thread_group g)
{
	return g >= 0 && g < TG_NR ? group_names[g] : "?";
}

uint64_t model_group_ns(const struct vm *vm, enum thread_group g, bool wait, bool cumulative)
{
	const struct ctr *c = wait ? &vm->groups[g].wait : &vm->groups[g].run;

	if (!vm->groups[g].known)
		return 0;
	return cumulative ? c->total : ctr_interval(c);
}

bool model_vcpu_active(const struct model *m, const struct vcpu *v)
{
	int i;

	/* only a thread on the dirty list changed in the interval */
	if (!v->dirty)
		return false;
	if (ctr_interval(&v->exits))
		return true;
	for (i = 0; i < m->nr_other; i++)
		if (ctr_interval(&v->other[i]))
			return true;
	for (i = 0; v->uexit && i < UEXIT_MAX; i++)
		if (ctr_interval(&v->uexit[i]))
			return true;
	return false;
}

bool model_vm_active(const struct model *m, const struct vm *vm)
{
	const struct vcpu *v;

	TAILQ_FOREACH(v, &vm->vcpus, vm_link)
		if (model_vcpu_active(m, v))
			return true;
	TAILQ_FOREACH(v, &vm->vmm_threads, vm_link)
		if (model_vcpu_active(m, v))
			return true;
	return false;
}

bool model_vm_called(const struct vm *vm, const char *glob)
{
	const struct ident_vm *id = &vm->ident;

	return !fnmatch(glob, vm->name, 0) || (id->read && ((id->name[0] && !fnmatch(glob, id->name, 0)) ||
							    (id->uuid[0] && !fnmatch(glob, id->uuid, 0))));
}

bool model_vm_shown(const struct vm *vm)
{
	const struct model_filter *f = vm->filter;
	unsigned int i;

	if (!f || (!f->nr_pids && !f->nr_names))
		return true;
	for (i = 0; i < f->nr_pids; i++)
		if (f->pids[i] == vm->pid)
			return true;
	for (i = 0; i < f->nr_names; i++)
		if (model_vm_called(vm, f->names[i]))
			return true;
	return false;
}

bool model_vcpu_shown(const struct vcpu *v)
{
	const struct model_filter *f = v->vm->filter;
	unsigned int i;

	if (!model_vm_shown(v->vm))
		return false;
	if (!f || !f->nr_vcpus)
		return true;
	for (i = 0; i < f->nr_vcpus; i++)
		if (f->vcpus[i] == v->vcpu_id)
			return true;
	return false;
}

/* A VM the views show: vm itself or the next after it (never the kernel's group). */
static const struct vm *skip_kernel(struct vm *vm)
{
	while (vm && (vm->kernel || !model_vm_shown(vm)))
		vm = RB_NEXT(vm_tree, NULL, vm);
	return vm;
}

/* A vCPU the views show: v itself or the next of its VM after it. */
static const struct vcpu *skip_hidden(const struct vcpu *v)
{
	while (v && !model_vcpu_shown(v))
		v = TAILQ_NEXT(v, vm_link);
	return v;
}

const struct vcpu *model_vcpu_first(const struct vm *vm)
{
	return skip_hidden(TAILQ_FIRST(&vm->vcpus));
}

const struct vcpu *model_vcpu_next(const struct vcpu *v)
{
	return skip_hidden(TAILQ_NEXT(v, vm_link));
}

const struct vm *model_vm_first(const struct model *m)
{
	/* the tree is only read: RB_MIN takes no const head */
	return skip_kernel(RB_MIN(vm_tree, (struct vm_tree *)&m->vms));
}

const struct vm *model_vm_next(const struct vm *vm)
{
	return skip_kernel(RB_NEXT(vm_tree, NULL, (struct vm *)vm));
}

unsigned int model_nr_vms(const struct model *m)
{
	const struct vm *vm;
	unsigned int n = 0;

	MODEL_FOREACH_VM(vm, m)
		n++;
	return n;
}

const struct vm *model_find_vm(const struct model *m, int pid)
{
	struct vm key = { .pid = pid };

	return RB_FIND(vm_tree, (struct vm_tree *)&m->vms, &key);
}

const struct vcpu *model_find_vcpu(const struct model *m, int tid)
{
	struct vcpu key = { .tid = tid };

	return RB_FIND(vcpu_tree, (struct vcpu_tree *)&m->vcpus, &key);
}

const struct vm *model_kernel_vm(const struct model *m)
{
	struct vm key = { .pid = MODEL_PID_KERNEL };

	return RB_FIND(vm_tree, (struct vm_tree *)&m->vms, &key);
}

const char *model_vm_ident(const struct model *m, const struct vm *vm)
{
	if (vm->kernel)
		return "kernel";
	if (m->live)
		return "proc";
	return vm->guessed ? "guess" : "threads";
}

const char *model_vm_state(const struct model *m, const struct vm *vm)
{
	if (!m->live)
		return "recorded";
	return vm->exited ? "exited" : "running";
}

unsigned int model_recent_nr(const struct vcpu *v)
{
	/* the ring grows to the model's ring_size as exits come: ring_alloc slots so far */
	return v->ring_count < v->ring_alloc ? (unsigned int)v->ring_count : v->ring_alloc;
}

const struct exit_rec *model_recent(const struct vcpu *v, unsigned int i, uint64_t *seq)
{
	unsigned int n = model_recent_nr(v), size = v->ring_alloc;

	if (i >= n)
		return NULL;
	*seq = v->ring_count - n + i;
	/* oldest first: the slot after the newest when the ring is full */
	return &v->ring[(v->ring_head + size - n + i) % size];
}

bool model_vcpu_pending(const struct model *m, const struct vcpu *v, bool *blocking)
{
	int id = v->pending_reason;

	*blocking = v->pending && id >= 0 && (unsigned int)id < m->reasons->nr && m->reasons->r[id].blocking;
	return v->pending;
}

const struct ctr *model_kstats(const struct vm *vm, const struct vcpu *v, unsigned int *nr)
{
	*nr = v ? v->nr_kst : vm->nr_kst;
	return v ? v->kst : vm->kst;
}
