/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A VM's context (context.c): live, what /proc, /sys and cgroupfs say of
 * each VM's VMM process -- memory, disk, network, pressure -- written into
 * the model beside the events (model.h's struct vm_ctx): read whole at
 * each snapshot, and its memory, disk and taps between them
 * (CONTEXT_READ_MS), so a VM that ends keeps its figures up to its last
 * reading; each counter's growth is summed over the run
 * (context_sum.c).  No tracing, no guest cooperation.  The model is only
 * named here: this room sits below it, as identity does.
 */
#ifndef KVMTOP_CONTEXT_H
#define KVMTOP_CONTEXT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

struct model;

/*
 * The figures of a VM's context, as the model holds them (model.h's
 * struct vm_ctx): levels in bytes or %, rates per second.
 */
enum vm_ctx_fig {
	CTX_RSS,		/* resident, bytes (VmRSS) */
	CTX_RSS_PEAK,		/* its peak since the process began, bytes (VmHWM) */
	CTX_SWAP,		/* swapped out, bytes (VmSwap) */
	CTX_MAJFLT,		/* major faults per second (stat's majflt) */
	CTX_RAM,		/* the guest's RAM, bytes (-m, or the largest anonymous mapping) */
	CTX_HUGE,		/* its huge-page share of that, % (AnonHugePages + hugetlb) */
	CTX_RD_BPS,		/* disk: bytes read per second (io's read_bytes) */
	CTX_WR_BPS,		/* ... written */
	CTX_RD_OPS,		/* read calls per second (syscr) */
	CTX_WR_OPS,		/* write calls per second (syscw) */
	CTX_BLKIO,		/* % of the interval waiting for block I/O (delay accounting) */
	CTX_RX_BPS,		/* its tap/macvtap interfaces: bytes received by the host side per second */
	CTX_TX_BPS,
	CTX_RX_PPS,		/* packets */
	CTX_TX_PPS,
	CTX_DROPS,		/* rx and tx drops per second */
	CTX_CPU_SOME,		/* its cgroup v2's PSI: % of the interval stalled (total's growth) */
	CTX_CPU_FULL,
	CTX_MEM_SOME,
	CTX_MEM_FULL,
	CTX_IO_SOME,
	CTX_IO_FULL,
	CTX_NODE,		/* the NUMA node holding most of its memory (numa_maps) */
	CTX_NODE_PCT,		/* % of its memory on that node */
	CTX_LOCAL_PCT,		/* % of its vCPUs' time on a CPU of that node (sampled: see the man page) */
	CTX_NR,
};

/* A VM's tap interfaces kept one by one (more are left out), and their counters, in order. */
#define CTX_TAPS	64
#define CTX_IFNAMSIZ	16
enum ctx_tap_ctr { CTX_TAP_RXB, CTX_TAP_TXB, CTX_TAP_RXP, CTX_TAP_TXP, CTX_TAP_DROPS, CTX_TAP_NR };

/* NUMA nodes kvmtop tells apart (node ids past it are left out), and CPUs it maps to them. */
#define CTX_NODES	64
#define CTX_CPUS	8192

/* The command line read for the guest's RAM (-m): longer ones are cut. */
#define CONTEXT_CMDLINE_MAX	32768

struct context {
	char proc[PATH_MAX];	/* "/proc", or a tree laid out as it (--proc) */
	char sys[PATH_MAX];	/* "/sys", or a tree laid out as it (--sys): net, cgroup v2 */
	long clk_tck;		/* stat's ticks per second */
	bool delayacct_off;	/* kernel.task_delayacct is 0 (read at the start and at each snapshot) */
	bool nodes_read;	/* cpu_node read from sys's nodeN/cpulist */
	signed char cpu_node[CTX_CPUS];	/* CPU -> its NUMA node, -1: none known */
	char buf[CONTEXT_CMDLINE_MAX];	/* the file being read: no allocation per VM */
	/* libvirt's running domains' status XML (--libvirt-run): "/run/libvirt/qemu" */
	char libvirt[PATH_MAX];
	char *xml;		/* a status file being read (CTX_XML_MAX), allocated at the first */
	int64_t boot_off;	/* CLOCK_BOOTTIME less CLOCK_MONOTONIC, ns, as of the last reading */
	uint64_t dir_sig;	/* libvirt's run dir's signature (context_ident.c), read at dir_sig_at */
	uint64_t dir_sig_at;
};

/* A libvirt status file is read up to this many bytes (its domain's name and metadata come early). */
#define CTX_XML_MAX	(1 << 20)
#define CONTEXT_LIBVIRT_RUN	"/run/libvirt/qemu"

/*
 * Read from proc_root, sys_root and libvirt_run instead of /proc, /sys
 * and /run/libvirt/qemu (NULL: those).
 */
void context_init(struct context *c, const char *proc_root, const char *sys_root, const char *libvirt_run);
/* What context_sample() allocated. */
void context_free(struct context *c);
/*
 * Live, between snapshots: each live VM's memory, disk and known taps
 * (no pressure, block-I/O delay or search for new taps) read at now, its
 * counters' growth added to its sums; with new_only, only the VMs never
 * read yet, each read whole.  A VMM that began after m->first_time counts
 * from zero: what it did before its first reading is in that reading's
 * interval.  At the run's start (at_start) every VM and the host's
 * pressure are read whole: what the first snapshot's rates grow from.
 */
void context_read(struct context *c, struct model *m, uint64_t now, bool new_only, bool at_start);
/* context_read()'s cadence between snapshots, ms. */
#define CONTEXT_READ_MS	1000
/*
 * Every live VM's context at now (ns, the snapshot's end) into the model,
 * and the host's pressure; each VM's rates (a VM that ended too: up to
 * its last reading) are its counters' growth since the snapshot's start
 * (m->interval_start) over its length; who each VM is (vm->ident) at its
 * first call and when libvirt's files change.  What cannot be read is
 * unknown in the model; nothing here fails.  The VMs read.
 */
unsigned int context_sample(struct context *c, struct model *m, uint64_t now);

#endif
