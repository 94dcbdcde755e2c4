/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A VM's context, read (src/context/): what /proc, /sys and cgroupfs say
 * of a VMM process -- memory, disk, network, pressure -- and who it is,
 * into a plain reading (struct ctx_reading).  These are readers only: they
 * know no model.  The samplers (src/samplers/sample_context.c) run them
 * for each VM, live, and write what they read into the model.  No
 * tracing, no guest cooperation.
 */
#ifndef KVMTOP_CONTEXT_H
#define KVMTOP_CONTEXT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ident_vm;

/*
 * The figures of a VM's context, as the model holds them (model.h's
 * struct vm_ctx): levels in bytes or %, rates per second; a reading has
 * the counters the rates grow from.
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

/*
 * The VMM's threads one by one, as last read (/proc/PID/task/TID/io and
 * stat): what a thread's taskstats exit record is measured from, so that
 * its end adds only what it did since (src/samplers/sample_ends.c).
 * Beyond CTX_THREADS threads the rest are not kept: their ends are not
 * exact.
 */
#define CTX_THREADS	512
enum ctx_thr_ctr { CTX_THR_RD, CTX_THR_WR, CTX_THR_MAJFLT, CTX_THR_NR };
struct ctx_thread {
	int tid;
	uint64_t ctr[CTX_THR_NR];	/* read_bytes, write_bytes (io); majflt (stat) */
};

/* NUMA nodes kvmtop tells apart (node ids past it are left out), and CPUs it maps to them. */
#define CTX_NODES	64
#define CTX_CPUS	8192

/* The command line read for the guest's RAM (-m): longer ones are cut. */
#define CONTEXT_CMDLINE_MAX	32768

struct context {
	char proc[PATH_MAX];	/* "/proc", or a tree laid out as it (--proc) */
	char sys[PATH_MAX];	/* "/sys", or a tree laid out as it (--sys): net, cgroup v2 */
	long clk_tck;		/* stat's ticks per second */
	bool read_threads;	/* read each thread's own counters too (ctx_reading's thr): exit records are read */
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
	/* live: the taps' births and ends from rtnetlink (context_net.c), NULL: not opened yet */
	struct ctx_net *net;
};

/* A libvirt status file is read up to this many bytes (its domain's name and metadata come early). */
#define CTX_XML_MAX	(1 << 20)
#define CONTEXT_LIBVIRT_RUN	"/run/libvirt/qemu"

/*
 * Read from proc_root, sys_root and libvirt_run instead of /proc, /sys
 * and /run/libvirt/qemu (NULL: those).
 */
void context_init(struct context *c, const char *proc_root, const char *sys_root, const char *libvirt_run);
/* What the readers allocated. */
void context_free(struct context *c);
/*
 * What changes between readings of the host: the time suspended (for the
 * processes' start times) and whether block-I/O delay is counted
 * (kernel.task_delayacct), read again (each snapshot, the run's start).
 */
void context_host(struct context *c, bool delayacct);
/* Live, the cadence at which the samplers read the VMs between snapshots, ms. */
#define CONTEXT_READ_MS	1000

/*
 * One reading of a VM: levels as they are, counters as read (the
 * samplers add their growth to the VM's sums); bit f of known: val[f]
 * was read.
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
	/* tap k was born while kvmtop watched (rtnetlink): its counters then (0 but for a race) */
	bool tap_born[CTX_TAPS];
	uint64_t tap_birth[CTX_TAPS][CTX_TAP_NR];
	bool ends_unseen;	/* no rtnetlink: a tap let go since the last reading ended unseen */
	uint64_t node_bytes[CTX_NODES];	/* numa_maps, at the slow cadence: nr_nodes 0 when not read */
	int nr_nodes;
	uint64_t start_ticks;	/* when its process began, clock ticks after boot (stat's field 22) */
	bool start_known;
	/* its threads' own counters, by tid (nr_thr -1: not read; thr_cut: more than CTX_THREADS) */
	struct ctx_thread thr[CTX_THREADS];
	int nr_thr;
	bool thr_cut;
};

static inline void ctx_set(struct ctx_reading *r, enum vm_ctx_fig f, double v)
{
	r->val[f] = v;
	r->known |= 1u << f;
}

/* An empty reading: nothing known, the taps and threads not read. */
void ctx_reading_init(struct ctx_reading *r);
/*
 * VMM pid read into r by the readers' table, in order: memory, disk,
 * network (the taps it holds now), pressure.  What cannot be read stays
 * unknown; nothing fails.
 */
void context_read_pid(struct context *c, int pid, struct ctx_reading *r);
/*
 * When r's process began, ns of CLOCK_MONOTONIC (as of the last
 * context_host()); false where its start was not read.
 */
bool context_start_ns(const struct context *c, const struct ctx_reading *r, double *ns);

/* context_proc.c */
void ctx_proc_memory(struct context *c, int pid, struct ctx_reading *r);
void ctx_proc_disk(struct context *c, int pid, struct ctx_reading *r);
/* The same without the block-I/O delay (every thread's stat): io alone, and each thread's (r->thr). */
void ctx_proc_io(struct context *c, int pid, struct ctx_reading *r);
/*
 * The guest's RAM (-m, else the largest mapping of maps) and its huge-page
 * share (smaps_rollup: it walks the VMM's page tables, ~20-60 ms per GiB of
 * 4 KiB pages measured: the sampler reads it once per CTX_HUGE_EVERY_NS).
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
/* The node holding most of bytes (nr nodes) into r: CTX_NODE and CTX_NODE_PCT; the node, or -1. */
int ctx_numa_main(const uint64_t *bytes, int nr, struct ctx_reading *r);
/*
 * Thread tid of process pid: the NUMA node of the CPU it last ran on
 * (*node, -1: none known) and its time run (*run_ns, schedstat).  0 with
 * both, 1 with the node alone, -1 with neither (gone).
 */
int ctx_numa_thread(struct context *c, int pid, int tid, int *node, uint64_t *run_ns);
/* context_net.c */
/* The taps VM pid holds now (its fds) and their counters. */
void ctx_net_taps(struct context *c, int pid, struct ctx_reading *r);
/* The counters of the nr taps named (no search of the VMM's fds); cut: it held more. */
void ctx_net_known(struct context *c, const char (*name)[CTX_IFNAMSIZ], int nr, bool cut, struct ctx_reading *r);
/*
 * A tap's end rtnetlink told of: VMM owner's tap name ended with counters
 * final (NULL: its end was lost, an overrun: what it grew after its last
 * reading is not known); at_birth: its counters at its birth, where it
 * was born while kvmtop watched (NULL: not).
 */
typedef void (*ctx_tap_end_fn)(void *ctx, int owner, const char *name, const uint64_t *final,
			       const uint64_t *at_birth);
/*
 * The taps' births and ends rtnetlink told of since the last call (at the
 * run's start: the socket opened, the interfaces there listed), each end
 * of a tap whose VMM is known to fn.  True where taps were born whose VMM
 * is not known yet: the caller names each VMM it knows to ctx_net_claim()
 * at once, while the taps are held.  A reading (ctx_net_taps) marks its
 * taps born while kvmtop watched and makes its VMM their owner.
 */
bool ctx_net_links(struct context *c, bool at_start, ctx_tap_end_fn fn, void *ctx);
/* VMM pid's fds: the taps born with no VMM known that it holds are its. */
void ctx_net_claim(struct context *c, int pid);
/*
 * The fd that tells of the taps' births and ends (rtnetlink), for the
 * live loop's poll: readable, ctx_net_links() reads it.  -1: none.
 */
int context_fd(const struct context *c);
/*
 * What the user is told once of the taps' births and ends: that
 * rtnetlink could not be opened, or that it overran again (how often in
 * all), into msg: true with a line there, false where nothing is new.
 */
bool context_net_news(struct context *c, char *msg, size_t len);
/* context_ident.c */
/*
 * Who VMM pid is, the VM the model calls vm_name, into id: read at its
 * first reading, and again when dir_sig, libvirt's run dir's signature
 * (ctx_ident_dir(), 0: none), changed and the VM's status file with it.
 */
void ctx_ident_vm(struct context *c, int pid, const char *vm_name, struct ident_vm *id, uint64_t dir_sig);
uint64_t ctx_ident_dir(const struct context *c);

#endif
