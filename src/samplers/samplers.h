/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The samplers (src/samplers/): live, what /proc, /sys and cgroupfs say
 * of the VMs and their threads, read by the readers below the model
 * (src/context/, src/ident/) and written into it.  One table of them
 * (samplers.c), a row per kind of figure, each run at the moments of the
 * run it names: the driver says which moment it is, never which sampler.
 */
#ifndef KVMTOP_SAMPLERS_H
#define KVMTOP_SAMPLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "context/context.h"
#include "ident/ident.h"
#include "ident/taskstats.h"

struct model;

/* The moments of a run the samplers are run at. */
enum sample_when {
	SAMPLE_START,	/* live, the run's start: every VM and the host read whole */
	SAMPLE_TICK,	/* live, between snapshots (each drain): each CONTEXT_READ_MS, new VMs at once */
	SAMPLE_NEW,	/* --summary: what was never read (a new thread, a new VM's groups) */
	SAMPLE_SNAP,	/* a snapshot's end */
};

/* The rows of the table (samplers.c), in the order they run. */
enum sampler_id {
	SAMPLER_ENDS, SAMPLER_TIMES, SAMPLER_UNSEEN, SAMPLER_GROUPS, SAMPLER_CONTEXT, SAMPLER_ENDS_READ, SAMPLERS_NR
};

#define SAMPLERS_VHOST_MAX	1024
/* Processes whose threads' ends are kept until their VM is known, and for how long. */
#define SAMPLERS_PENDING	1024
#define SAMPLERS_PENDING_NS	(60 * 1000000000ull)
#define SAMPLERS_CUT		256

/* What a row cost (make bench): its calls that read something, the VMs they read, this thread's CPU. */
struct sampler_cost {
	uint64_t n;
	uint64_t items;
	uint64_t cpu_ns;
};

struct samplers {
	const struct ident *proc;	/* who the host's threads are: the driver's */
	bool live;
	/* live, where the source sees no exits at all: why (each process holding a VM is listed) */
	const char *exits_unknown;
	/* the VM whose threads are read one by one (the view's detail_pid), 0: none */
	int detail_pid;
	/* vhost kernel threads (before Linux 6.4): tid and VM, as of the model's vcpus_gen vk_gen */
	int vk_tid[SAMPLERS_VHOST_MAX];
	int vk_pid[SAMPLERS_VHOST_MAX];
	size_t nr_vk;
	unsigned long vk_gen;
	struct context ctx;		/* the VMs' memory, disk, network, pressure */
	uint64_t ctx_at;		/* the VMs' context is read next then (CONTEXT_READ_MS) */
	/* when kvmtop began (ident_self_start()): a thread that began after counts from zero */
	uint64_t self_start;
	bool self_known;
	/* the threads' exit records (taskstats, sample_ends.c): fd -1 where none, and why */
	struct ts_sock ts;
	/* ... of processes no VM yet: a VMM's threads that end before its VM is known, by process */
	struct ends_pending *pending;	/* SAMPLERS_PENDING of them, allocated with the socket */
	size_t nr_pending;
	/* processes whose kept ends were let go for room, a ring: a VM of one of them is not exact */
	int cut[SAMPLERS_CUT];
	size_t nr_cut;
	char ts_why[256];
	bool ts_said;			/* the first VM that ended without them said so */
	/* each row's cost at the snapshots, and between them (the start, the ticks, --summary's new) */
	struct sampler_cost snap[SAMPLERS_NR];
	struct sampler_cost between[SAMPLERS_NR];
	char notice[512];		/* a figure that cannot be measured, for the view: "" when none */
};

/*
 * Live samplers reading proc_root, sys_root and libvirt_run (NULL: /proc,
 * /sys, /run/libvirt/qemu), with id to tell who threads are.
 */
void samplers_init(struct samplers *s, const struct ident *id, bool live, const char *exits_unknown,
		   const char *proc_root, const char *sys_root, const char *libvirt_run);
void samplers_free(struct samplers *s);
/*
 * Every row that runs at when, in the table's order, at now (ns of the
 * source's clock).  0 (a notice may wait in s->notice), or -1 (no memory).
 */
int samplers_run(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);

#endif
