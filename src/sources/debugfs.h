/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fallback live source: KVM's own statistics in debugfs
 * (<debugfs>/kvm/<pid>-<fd>/<stat>), as kvm_stat reads them when it
 * cannot trace.  The kernel sums them over a VM's vCPUs, so this source
 * has per-VM figures only: no per-vCPU rows, no latencies, no recent
 * exits.  Each VM is fed to the model as one row whose thread id is the
 * VM's pid and whose vcpu is -1.
 */
#ifndef KVMTOP_DEBUGFS_H
#define KVMTOP_DEBUGFS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "decode/names.h"

#define DEBUGFS_STATS_MAX	DECODE_OTHER_MAX

struct debugfs_vm;

struct debugfs_src {
	char dir[PATH_MAX];		/* <debugfs>/kvm */
	bool mounted_by_us;
	/* The counters kvmtop reads: every writable, single-number file. */
	char *stat[DEBUGFS_STATS_MAX];
	int nr_stats;
	int exits;			/* index of "exits", -1 if none */
	int reason_id[DEBUGFS_STATS_MAX];	/* exit counters: their reason, else -1 */
	int other[DEBUGFS_STATS_MAX];	/* other counters: model "other" index, else -1 */
	const char *other_name[DEBUGFS_STATS_MAX];
	int nr_other;
	struct debugfs_vm *vms;
	unsigned int nr_vms;
	unsigned int alloc_vms;
	unsigned int polls;
};

/*
 * Find debugfs (root: NULL for the system's, mounting it at
 * /sys/kernel/debug when it is not mounted; else a directory holding
 * "kvm/", for tests), check the statistics can be read and list them.
 * Exit counters are interned in names' reasons, the others named there.  0, or -1 with a one-line reason in
 * err: no debugfs, no kvm directory, or reading refused (kernel lockdown
 * hides debugfs; the reason names the lockdown mode when securityfs
 * shows it).
 */
int debugfs_open(struct debugfs_src *s, const char *root, struct kvm_names *names,
		 char *err, size_t errlen);
/*
 * Read every VM's counters and add what they grew by since the last
 * poll to the model.  VMs already running at the first poll start from
 * that poll; VMs found later count from their start.  0, or -1 (no
 * memory).  A VM whose directory vanished mid-read is skipped.
 */
int debugfs_poll(struct debugfs_src *s, struct model *m);
void debugfs_close(struct debugfs_src *s);

#endif
