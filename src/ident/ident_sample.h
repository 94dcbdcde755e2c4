/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The samplers (ident_sample.c): live, /proc's accounting of the VMs'
 * threads, written into the model at each snapshot.  The model is only
 * named here: identity sits below it, and this header includes none of it.
 */
#ifndef KVMTOP_IDENT_SAMPLE_H
#define KVMTOP_IDENT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ident.h"

struct model;

#define IDENT_VHOST_MAX	1024

struct ident_sampler {
	/* vhost kernel threads (before Linux 6.4): tid and VM, as of the model's vcpus_gen vk_gen */
	int vk_tid[IDENT_VHOST_MAX];
	int vk_pid[IDENT_VHOST_MAX];
	size_t nr_vk;
	unsigned long vk_gen;
	/* the VM whose threads are read one by one (the view's detail_pid), 0: none */
	int detail_pid;
};

/*
 * Without sched events: each vCPU thread's states since its last reading
 * (model_time_proc), only those never read with new_only.  0; -1 when
 * schedstat is absent or off (thread *bad's): m->proc_time is cleared.
 */
int ident_sample_times(const struct ident *id, struct model *m, uint64_t now, bool new_only, int *bad);
/*
 * Each VM's threads that are not its vCPUs, into its groups: the VMM's own
 * (emulator) and its vhost workers (threads named vhost-PID, and the vhost
 * kernel threads of older kernels); new_only: only the VMs never read (a
 * group is known from its second reading on).  And the VM s->detail_pid's
 * threads one by one with their disk bytes (model_thread_detail), once per
 * call without new_only.  0, or -1 (no memory).
 */
int ident_sample_groups(struct ident_sampler *s, const struct ident *id, struct model *m, bool new_only);

#endif
