/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context room's files and what they share.  context.c runs the
 * readers' table for each VM; each reader reads one kind of figure:
 *
 *   context.c          the table, the loop over the VMs
 *     context_sum.c    counters into sums over the run, sums into rates
 *     context_proc.c   memory and disk of the VMM process: /proc/PID/...
 *     context_psi.c    pressure of its cgroup v2, and the host's
 *     context_net.c    its tap/macvtap interfaces' counters
 *     context_ident.c  who it is: command lines, libvirt's status XML
 *       context_file.c small files read whole, stat files' fields
 *
 * No file outside src/context/ includes this header.
 */
#ifndef KVMTOP_CONTEXT_PRIV_H
#define KVMTOP_CONTEXT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "context.h"
#include "util/keyval.h"

/*
 * One reading of a VM: levels as they are, counters as read (context_sum.c
 * adds their growth to the VM's sums); bit f of known: val[f] was read.
 */
struct ctx_reading {
	uint32_t known;
	double val[CTX_NR];
	bool ram_cmdline;
	int nr_taps;		/* -1: not known */
	char tap[CTX_TAPS][CTX_IFNAMSIZ];	/* the taps one by one (CTX_TAPS of them), and their counters */
	uint64_t tap_ctr[CTX_TAPS][CTX_TAP_NR];
	int nr_tap_rows;	/* -1: their counters not read (a tap gone mid-read) */
	bool taps_cut;		/* it held more than CTX_TAPS: their sums leave some out */
	uint64_t node_bytes[CTX_NODES];	/* numa_maps, at the slow cadence: nr_nodes 0 when not read */
	int nr_nodes;
	uint64_t start_ticks;	/* when its process began, clock ticks after boot (stat's field 22) */
	bool start_known;
};

static inline void ctx_set(struct ctx_reading *r, enum vm_ctx_fig f, double v)
{
	r->val[f] = v;
	r->known |= 1u << f;
}

/* A reader of the table: what it finds of VM pid into r (nothing where it cannot read). */
struct ctx_reader {
	const char *name;
	void (*read)(struct context *c, int pid, struct ctx_reading *r);
};

/* context_proc.c */
void ctx_proc_memory(struct context *c, int pid, struct ctx_reading *r);
void ctx_proc_disk(struct context *c, int pid, struct ctx_reading *r);
/* The same without the block-I/O delay (every thread's stat): io alone. */
void ctx_proc_io(struct context *c, int pid, struct ctx_reading *r);
/*
 * The guest's RAM (-m, else the largest mapping of maps) and its huge-page
 * share (smaps_rollup: it walks the VMM's page tables, ~20-60 ms per GiB of
 * 4 KiB pages measured: context.c reads it once per CTX_HUGE_EVERY_NS).
 */
void ctx_proc_huge(struct context *c, int pid, struct ctx_reading *r);
#define CTX_HUGE_EVERY_NS	(60 * 1000000000ull)
/* context_psi.c */
void ctx_psi_vm(struct context *c, int pid, struct ctx_reading *r);
/* The host's /proc/pressure files, as counters (CTX_CPU_SOME .. CTX_IO_FULL). */
void ctx_psi_host(struct context *c, struct ctx_reading *r);
/* context_numa.c */
/* VM pid's memory per node (numa_maps: walks its page tables) into r->node_bytes. */
void ctx_numa_memory(struct context *c, int pid, struct ctx_reading *r);
/*
 * Each vCPU thread's node (the model's vcpu ctx_node) and the VM's main
 * node, its share and the vCPUs' time on it (CTX_NODE .. CTX_LOCAL_PCT)
 * from the VM's node_bytes as last read.
 */
struct vm;
void ctx_numa_vcpus(struct context *c, struct vm *vm, struct ctx_reading *r);
/* context_net.c */
/* The taps VM pid holds now (its fds) and their counters. */
void ctx_net_taps(struct context *c, int pid, struct ctx_reading *r);
/* The counters of the taps x held at its last whole reading (no search of its fds). */
struct vm_ctx;
void ctx_net_known(struct context *c, const struct vm_ctx *x, struct ctx_reading *r);

/* context_sum.c */
/*
 * Reading r of x at now into its sums: levels as read, each counter's
 * growth since its last reading added (born: a first reading counts from
 * zero; at_start or born: its growth from here on is the interval's),
 * each tap's likewise (whole: r lists every tap it holds).
 */
void ctx_sum_reading(struct vm_ctx *x, const struct ctx_reading *r, uint64_t now, bool born, bool at_start,
		     bool whole);
/*
 * The snapshot of secs seconds: x's rates, its counters' growth since the
 * last snapshot over secs, known where counted from its start on; levels
 * known where read now (bit f of now_known), or, last, as last read (a VM
 * that ended).  Then the next interval starts.
 */
void ctx_sum_snapshot(const struct context *c, struct vm_ctx *x, uint32_t now_known, bool last, double secs);

/* context_ident.c */
/*
 * Who VM vm is (vm->ident): read at its first sample, and again when
 * dir_sig, libvirt's run dir's signature (ctx_ident_dir(), 0: none),
 * changed and the VM's status file with it.
 */
void ctx_ident_vm(struct context *c, struct vm *vm, uint64_t dir_sig);
uint64_t ctx_ident_dir(const struct context *c);

/* context_file.c */
/* File path (printf-style) read whole into c->buf, NUL-ended: its length, or -1. */
ssize_t ctx_file_read(struct context *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Field n (1: the pid) of a /proc stat file's text, counted after its ")": true with *v. */
bool ctx_stat_field(const char *text, int n, uint64_t *v);

#endif
