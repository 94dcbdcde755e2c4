// SPDX-License-Identifier: GPL-2.0
/*
 * Live, what /proc says of each VM's threads that are not its vCPUs, into
 * the model as groups: the VMM's own (emulator) and its vhost workers;
 * and the threads of the VM shown one by one (its detail).
 */
#include <stdlib.h>
#include <string.h>

#include "samplers_priv.h"
#include "model/model.h"
#include "model/model_feed.h"
#include "model/model_view.h"

static int group_thread_cmp(const void *a, const void *b)
{
	int x = ((const struct group_thread *)a)->tid, y = ((const struct group_thread *)b)->tid;

	return (x > y) - (x < y);
}

static int detail_cmp(const void *a, const void *b)
{
	int x = ((const struct thread_detail *)a)->tid, y = ((const struct thread_detail *)b)->tid;

	return (x > y) - (x < y);
}

static int task_tid_cmp(const void *key, const void *t)
{
	int x = *(const int *)key, y = ((const struct ident_task *)t)->tid;

	return (x > y) - (x < y);
}

/*
 * VM vm's threads of groups g (n[k] in group k) one by one into the model,
 * each with its name (from tasks, its thread list sorted by tid) and disk
 * bytes: the detail of the VM shown.  0, or -1 (no memory).
 */
static int read_vm_detail(const struct ident *id, struct vm *vm, struct group_thread *const *g,
			  const size_t *n, const struct ident_task *tasks, size_t nt)
{
	struct thread_detail *d = calloc(n[TG_EMULATOR] + n[TG_VHOST] + 1, sizeof(*d));
	const struct ident_task *task;
	size_t i, nr = 0;
	int k;

	if (!d)
		return -1;
	for (k = 0; k < TG_NR; k++)
		for (i = 0; i < n[k]; i++) {
			struct thread_detail *t = &d[nr++];

			t->tid = g[k][i].tid;
			t->group = k;
			t->run_ns = g[k][i].run_ns;
			/* a vhost kernel thread (before Linux 6.4) is not in the VM's thread list */
			task = bsearch(&t->tid, tasks, nt, sizeof(*tasks), task_tid_cmp);
			strlcpy(t->comm, task ? task->comm : "vhost", sizeof(t->comm));
			t->io = !ident_read_io(id, task ? vm->pid : 0, t->tid, &t->rd_bytes, &t->wr_bytes);
		}
	qsort(d, nr, sizeof(*d), detail_cmp);
	model_thread_detail(vm, d, nr);
	return 0;
}

/* Did task t begin after kvmtop (in the same clock, ticks after boot)?  Not known: no. */
static bool groups_born(const struct samplers *s, const struct ident_task *t)
{
	return s->self_known && t->start_known && t->start_ticks > s->self_start;
}

/*
 * One VM's threads that are not its vCPUs, split into the VMM's own
 * (emulator) and vhost workers (threads named vhost-PID, and the vhost
 * kernel threads of older kernels, found in s->vk_*).  0, or -1 (no memory).
 */
static int read_vm_groups(const struct samplers *s, const struct ident *id, const struct model *m,
			  struct vm *vm, int detail)
{
	struct group_thread *g[TG_NR];
	struct ident_task *tasks;
	struct proc_times t;
	size_t n[TG_NR] = { 0 }, i;
	ssize_t nt;
	int k;

	nt = ident_read_tasks(id, vm->pid, &tasks);
	if (nt < 0)
		return 0;	/* gone: model_reap() says so */
	for (k = 0; k < TG_NR; k++)
		g[k] = calloc((size_t)nt + s->nr_vk + 1, sizeof(*g[k]));
	if (!g[TG_EMULATOR] || !g[TG_VHOST])
		goto out_nomem;
	for (i = 0; i < (size_t)nt; i++) {
		const struct vcpu *v;
		bool vhost = !strncmp(tasks[i].comm, "vhost-", 6);

		/*
		 * KVM's own workers in the VM's thread group (the NX huge page
		 * recovery worker, Linux 6.13+) are host work, not the VMM's
		 */
		if (!vhost && ident_kernel_comm(tasks[i].comm))
			continue;
		/* a VMM thread that raised KVM events is the emulator's all the same */
		v = vhost ? NULL : model_find_vcpu(m, tasks[i].tid);
		if (v && !v->vmm)
			continue;
		k = vhost ? TG_VHOST : TG_EMULATOR;
		g[k][n[k]++] = (struct group_thread){ tasks[i].tid, tasks[i].run_ns, tasks[i].wait_ns,
						      groups_born(s, &tasks[i]) };
	}
	for (i = 0; i < s->nr_vk; i++)
		if (s->vk_pid[i] == vm->pid && !ident_read_times(id, s->vk_tid[i], &t))
			/* a kernel thread of its own: when it began is not read (born false) */
			g[TG_VHOST][n[TG_VHOST]++] = (struct group_thread){ s->vk_tid[i], t.run_ns, t.wait_ns, false };
	qsort(g[TG_VHOST], n[TG_VHOST], sizeof(*g[TG_VHOST]), group_thread_cmp);
	if (vm->pid == detail && read_vm_detail(id, vm, g, n, tasks, (size_t)nt))
		goto out_nomem;
	for (k = 0; k < TG_NR; k++)
		model_group_read(vm, k, g[k], n[k]);
	free(tasks);
	return 0;
out_nomem:
	for (k = 0; k < TG_NR; k++)
		free(g[k]);
	free(tasks);
	return -1;
}

int sample_groups(struct samplers *s, struct model *m, uint64_t now, enum sample_when when)
{
	const struct ident *id = s->proc;
	bool new_only = when == SAMPLE_NEW;
	struct vm *vm;

	(void)now;
	if (!m->proc_time)
		return 0;
	/* vhost kernel threads come and go with their VMs: looked for again when those change */
	if (s->vk_gen != m->vcpus_gen) {
		s->nr_vk = ident_vhost_kthreads(id, s->vk_tid, s->vk_pid, SAMPLERS_VHOST_MAX);
		s->vk_gen = m->vcpus_gen;
	}
	RB_FOREACH(vm, vm_tree, &m->vms) {
		/* the detail of a VM no longer shown goes */
		if (!new_only && vm->detail && vm->pid != s->detail_pid)
			model_thread_detail(vm, NULL, 0);
		if (!vm->kernel && vm->pid > 0 && !vm->exited && !(new_only && vm->groups[TG_EMULATOR].seen) &&
		    read_vm_groups(s, id, m, vm, new_only ? 0 : s->detail_pid))
			return -1;
	}
	return 0;
}

