/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model: what kvmtop knows about VMs and vCPUs.  Sources feed it
 * decoded events; batch output and the TUI read it.  Every counter is
 * kept as a total since start (or the last reset) and the total at the
 * start of the current interval, so interval figures cost nothing per
 * event.  Memory is bounded and grows with what is seen: at most
 * max_vcpus threads are tracked (the events of any further thread are
 * counted as dropped), at most REASON_MAX reasons; per vCPU, a reason's
 * figures are made at its first exit, its histograms hold their first
 * two samples without buckets, the ring of recent exits grows from
 * MODEL_RING_FIRST to ring_size as exits come, the userspace-exit
 * counters come with the first such exit, and the two tables of guest
 * IPs grow to at most ip_slots entries (model_ips.h).
 *
 * Per interval, only the vCPUs that changed are walked in full: each is
 * on the model's dirty list from its first change of the interval on.
 */
#ifndef KVMTOP_MODEL_H
#define KVMTOP_MODEL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/tree.h>
#include <sys/queue.h>

#include "hist.h"
#include "decode/kvm_event.h"
#include "decode/names.h"
#include "context/context.h"
#include "ident/ident.h"
#include "model_ips.h"

#define MODEL_LAT_NONE		UINT64_MAX
#define MODEL_RING_DEFAULT	256
#define MODEL_RING_FIRST	8	/* a ring's first allocation, doubled as exits come */
#define MODEL_MAX_VCPUS		262144	/* the default of --max-vcpus */
#define MODEL_MAX_VCPUS_MAX	4194304	/* pid_max can be at most 4 M: more tids cannot be */
#define MODEL_NAME_LEN		IDENT_NAME_LEN

/* A counter: its total and its value when the interval began. */
struct ctr {
	uint64_t total;
	uint64_t base;
};

static inline uint64_t ctr_interval(const struct ctr *c)
{
	return c->total - c->base;
}

struct exit_rec {
	uint64_t time;
	uint64_t ip;
	uint64_t latency;	/* exit -> entry, MODEL_LAT_NONE if none (yet) */
	uint64_t info1;		/* the exit's arch detail (kvm_event.info1/2) */
	uint64_t info2;
	int32_t reason_id;
	int16_t cpu;
	int8_t ninfo;		/* 0: the layout has no info fields */
	int8_t mode;		/* enum guest_mode, where the arch says exactly */
	uint8_t obj_kind;	/* what it touched (model_objs.c), set when it is counted; KVM_OBJ_NONE */
	uint8_t obj_dir;
	uint8_t obj_size;
	uint64_t obj;
};

/* With sched events: each exit's time on a CPU, and its time off one. */
struct reason_split {
	struct hist handling;	/* of this interval */
	struct hist handling_done;
	struct ctr preempted;	/* runnable, waiting for a CPU */
	struct ctr blocked;	/* asleep */
};

/*
 * What an exit touched, per (vCPU, reason, object) (model_objs.c): its
 * exits are counted when the vCPU enters again (companion events come
 * between), their latency goes to it as to the reason.
 */
struct model_obj_key {
	uint64_t value;		/* kvm_event.obj */
	int32_t reason_id;
	uint8_t kind;		/* enum kvm_obj_kind */
	uint8_t dir;		/* enum kvm_obj_dir */
	uint8_t size;		/* bytes, 0: not said */
	uint8_t zero;		/* always 0: keys are compared as 16 bytes */
};

/*
 * The guest IPs an object's exits came from (the exit's own IP; none for
 * exits that interrupt the guest anywhere, an external interrupt's): the
 * first MODEL_OBJ_SITES distinct ones of the object on its vCPU, each
 * counted exactly, the exits from any other IP counted together.  Most
 * objects have one site (the loop that polls a port), so a few do.
 */
#define MODEL_OBJ_SITES		3
struct model_obj_site {
	uint64_t ip;		/* 0: not taken */
	struct ctr n;
};

struct model_obj {
	struct model_obj_key key;
	uint64_t since;		/* its place's number in its vCPU's table: of two least counted, the older goes */
	struct ctr count;
	struct model_obj_site site[MODEL_OBJ_SITES];
	struct ctr site_rest;	/* exits from other IPs than site[]'s */
	struct ctr site_none;	/* exits without a site (no IP, or an asynchronous exit) */
	struct hist lat;	/* exit -> entry of this interval */
	struct hist lat_done;	/* of the intervals before it */
};

/*
 * A vCPU's objects: at most the model's max_objs (--objects), found by a
 * hash; a new object in a full table takes the place of the least
 * counted, whose figures go to its reason's "other objects" row.
 */
#define MODEL_OBJS_DEFAULT	64
#define MODEL_OBJS_MAX		4096
struct model_objs {
	struct model_obj *o;
	unsigned int nr;
	unsigned int alloc;	/* grows by doubling up to cap */
	unsigned int cap;
	unsigned int mask;	/* slot has mask + 1 entries, at least twice cap */
	uint16_t *slot;		/* index in o + 1, 0: empty */
	uint64_t evicted;	/* objects whose figures went to "other objects" */
	uint64_t placed;	/* objects given a place, ever */
	unsigned int last;	/* the place of the object counted last */
};

struct reason_stat {
	struct ctr count;
	struct hist lat;	/* exit -> entry of this interval */
	struct hist lat_done;	/* of the intervals before it */
	struct reason_split *split;	/* NULL until an exit of it is split (sched events) */
	struct model_obj *obj_rest;	/* its exits on objects a full table left out, NULL: none */
};

/*
 * Where a VM's or vCPU's figures count from, as its source says
 * (kvmtop(1), the stats source): MODEL_FROM_UNKNOWN, the source does not
 * say; START, it was there when kvmtop started and counts from then;
 * BIRTH, it was made since and counts from its creation (whole); FOUND,
 * it was made before kvmtop started but first read later: it counts from
 * that reading, and what it did before is in no figure.
 */
enum model_from {
	MODEL_FROM_UNKNOWN,
	MODEL_FROM_START,
	MODEL_FROM_BIRTH,
	MODEL_FROM_FOUND,
};

/*
 * Where a vCPU thread's time goes (model_time.c): in the guest, on a
 * CPU in the host kernel, in the VMM's user space after a userspace
 * exit, asleep (halted), runnable but off a CPU (waiting: steal).
 */
enum vcpu_state {
	VS_GUEST,
	VS_HOST,
	VS_VMM,
	VS_HALT,
	VS_WAIT,
	VS_NR,
	VS_NONE = -1,
};

/*
 * With VS_* bits in model_time_known(): each exit's latency is split into
 * handling, preempted and blocked (sched events are traced), and a
 * thread's state is known as it changes.
 */
#define TIME_SPLIT	(1u << VS_NR)
/* ... and the VMs' other threads (emulator, vhost) are measured: live, from /proc. */
#define TIME_GROUPS	(1u << (VS_NR + 1))

struct vm;

struct vcpu {
	RB_ENTRY(vcpu) node;
	TAILQ_ENTRY(vcpu) vm_link;
	TAILQ_ENTRY(vcpu) dirty_link;	/* on m->dirty when dirty */
	bool dirty;			/* a counter or histogram changed this interval */
	struct vm *vm;
	int tid;
	/*
	 * A VMM thread: it raised KVM events from outside KVM_RUN (the VM's
	 * and vCPUs' setup ioctls, interrupt injection) and never entered or
	 * left the guest.  Kept on its VM's vmm_threads list, not a vCPU row:
	 * its events count in the VM's and host's totals.  Its first exit or
	 * entry makes it a vCPU (model_feed).
	 */
	bool vmm;
	int vcpu_id;		/* from the events, else the thread name, else -1 */
	enum model_from counted_from;	/* where its figures count from, as its source says */
	int last_cpu;
	/* live (src/context/): the NUMA node of the CPU it last ran on (-1: not known), its run ns then */
	int ctx_node;
	uint64_t ctx_run_ns;
	char comm[MODEL_NAME_LEN];	/* raw: escape before printing */
	struct ctr exits;
	struct ctr unmatched_exits;	/* exits followed by an exit, not an entry */
	struct ctr unmatched_entries;	/* entries with no exit before them */
	bool pending;
	uint64_t pending_time;
	int pending_reason;
	unsigned int pending_slot;
	struct reason_stat **rs;	/* indexed by reason id, NULL if never seen */
	struct model_objs *objs;	/* what its exits touched, NULL before the first */
	bool pending_obj;		/* the pending exit's object is known: pobj */
	struct model_obj_key pobj;
	uint64_t pobj_ip;		/* the pending exit's guest IP, its object's site; 0: none */
	unsigned int nr_rs;
	struct ctr *other;		/* indexed by kvm_event.other */
	struct ctr *uexit;		/* kvm_userspace_exit by reason, UEXIT_MAX; NULL before the first */
	struct exit_rec *ring;		/* ring_alloc slots, NULL before the first exit */
	unsigned int ring_alloc;	/* grows by doubling up to the model's ring_size */
	unsigned int ring_head;		/* next slot to write */
	uint64_t ring_count;		/* exits ever written */
	/* sampled guest IPs since the start or the last reset; NULL until the first */
	struct model_ips *ips[IP_KINDS];
	uint64_t no_ip;			/* exits whose event carries no guest IP */
	/* where its time goes: enum vcpu_state since state_since, VS_NONE before any event */
	int8_t state;
	int8_t on_cpu;			/* the state it left when switched out: host or VMM */
	uint64_t state_since;
	struct ctr time[VS_NR];		/* in the source's time unit */
	uint64_t pending_states[VS_NR];	/* the pending exit's time in each state */
	/* the same from /proc (model_time_proc): the last reading, when, and the trace's guest time then */
	struct proc_times proc_last;
	uint64_t proc_at;		/* 0: not read yet */
	uint64_t proc_guest;
	bool proc_known;		/* ptime holds figures: read twice or more */
	struct ctr ptime[VS_NR];
	/* KVM's statistics of its vCPU fd (the stats source), by names->kstats[KSTAT_VCPU] slot */
	struct ctr *kst;
	unsigned int nr_kst;
	/* who ran instead while it waited for a CPU (model_steal.c), this interval */
	struct model_steal *steal;	/* NULL until its first wait */
	struct model_steal *steal_all;	/* the same since the start (m->steal_totals), never reset */
	int wait_cpu;			/* the CPU whose run queue it waits on, -1: not waiting */
	uint64_t steal_at;		/* its wait is given out up to here */
	TAILQ_ENTRY(vcpu) wait_link;	/* on m->cpus[wait_cpu].waiters */
	TAILQ_ENTRY(vcpu) steal_link;	/* on m->stolen: its table has figures */
	bool stolen;
};

/* A thread that ran while a vCPU waited for a CPU: its time, this interval. */
struct model_thief {
	int tid;		/* 0: the CPU's idle task (no thread ran: wake-up latency) */
	int pid;		/* its process as the source tells it, 0: not known */
	uint64_t ns;		/* in the source's time unit */
	char comm[KVM_COMM_LEN];	/* as the sched event named it, raw */
};

/* Who a thief is, for the views: a VM's vCPU or VMM thread, or a host task. */
struct model_thief_who {
	const struct vm *vm;	/* the VM whose thread it is, NULL: a host task */
	int vcpu;		/* its vCPU id there, -1: a VMM thread (or a host task) */
	int pid;		/* the VM's pid, or the task's process, 0: not known */
	const char *comm;	/* raw */
};

/*
 * A vCPU's thieves: at most the model's max_thieves, the largest kept;
 * one pushed out adds its time to rest.  The entries and rest add up
 * to the wait time the sched events gave out.
 */
struct model_steal {
	uint64_t ns;
	uint64_t rest;
	unsigned int nr;
	struct model_thief t[];
};

/* A host CPU as the sched events show it: who runs there, who waits for it. */
struct model_cpu {
	int tid;			/* -1: not known yet */
	char comm[KVM_COMM_LEN];
	TAILQ_HEAD(, vcpu) waiters;
};

/*
 * A VM's threads other than its vCPUs, live (model_group_read): the
 * VMM's own ("emulator": QEMU's main loop, I/O threads, workers) and its
 * vhost workers (vhost-PID: threads of the VM since Linux 6.4, kernel
 * threads before).
 */
enum thread_group {
	TG_EMULATOR,
	TG_VHOST,
	TG_NR,
};

/* One thread's schedstat, for the next reading's difference. */
struct group_thread {
	int tid;
	uint64_t run_ns;
	uint64_t wait_ns;
};

struct thread_group_stat {
	int count;			/* threads at the last reading */
	bool seen;			/* read once */
	bool known;			/* read twice: run and wait hold figures */
	struct ctr run;			/* ns on a CPU, all the group's threads */
	struct ctr wait;		/* ns runnable, waiting for a CPU */
	struct group_thread *last;	/* the last reading, by tid */
	size_t nr_last;
};

/*
 * One thread of a VM that is not a vCPU, read one by one only for the VM
 * whose detail is shown (the screen's context pane: model_thread_detail):
 * its name, its CPU time and, where its io file reads, its disk bytes.
 */
#define MODEL_COMM_LEN	16	/* the kernel's TASK_COMM_LEN */
struct thread_detail {
	int tid;
	enum thread_group group;
	char comm[MODEL_COMM_LEN];	/* raw: escape before printing */
	uint64_t run_ns;		/* schedstat: ns on a CPU */
	bool io;			/* rd_bytes and wr_bytes read (its io file) */
	uint64_t rd_bytes;		/* io's read_bytes: what its reads fetched from storage */
	uint64_t wr_bytes;		/* io's write_bytes: what its writes sent towards storage */
	/* since its last reading (the snapshot before): known, and io_known with io both times */
	bool known;
	bool io_known;
	uint64_t d_run, d_rd, d_wr;
};

/*
 * A VM's context (src/context/, live): what /proc, /sys and its cgroup v2
 * say of its VMM process at each snapshot, beside the events.  Each figure
 * has its bit in known: a figure the host does not give (no cgroup of its
 * own, no delay accounting, a file gone mid-read, the first reading of a
 * counter) is unknown, never a zero.  Levels are bytes or %; rates are per
 * second over the snapshot's interval.
 */

/*
 * One tap of a VM's: its name, its rates per second over the snapshot
 * (known: counted from the snapshot's start on), and its counters' growth
 * kvmtop counted (sum: since its first reading, or from zero for a tap of
 * a VMM that began after kvmtop).
 */
struct vm_ctx_tap {
	char name[CTX_IFNAMSIZ];	/* raw: escape before printing */
	bool known;
	bool held;			/* its VMM held it at the last whole reading */
	bool base_ok;			/* base is sum at the snapshot's start */
	bool whole;			/* sum is all it grew since counted (no counter went back) */
	double rate[CTX_TAP_NR];
	uint64_t prev[CTX_TAP_NR];	/* its counters as last read */
	uint64_t sum[CTX_TAP_NR];
	uint64_t base[CTX_TAP_NR];
};

struct vm_ctx {
	uint32_t known;			/* bit f: val[f] holds a figure */
	uint32_t levels;		/* bit f: val[f] holds a level as last read (a VM that ended keeps it) */
	bool ram_cmdline;		/* CTX_RAM is the command line's -m, not the largest mapping */
	int nr_taps;			/* tap/macvtap interfaces its VMM holds (-1: not known) */
	uint64_t huge_at;		/* when huge pages and NUMA were last read (they walk page tables) */
	/* its memory per NUMA node (numa_maps), bytes; nr_nodes 0: not known */
	uint64_t node_bytes[CTX_NODES];
	int nr_nodes;
	/* its taps one by one, those it held once too (their sums count): allocated, at most CTX_TAPS */
	struct vm_ctx_tap *taps;
	int nr_tap_rows;
	bool taps_cut;			/* it held more than CTX_TAPS: the net sums leave some out */
	double val[CTX_NR];
	/* the counters as last read, at prev_at (bit f of prev_known: prev[f] was read) */
	uint32_t prev_known;
	uint64_t prev_at;
	uint64_t prev[CTX_NR];
	/*
	 * Each counter's growth kvmtop counted (context_sum.c): since its
	 * first reading, or from zero where its VMM began after kvmtop (born);
	 * base: the sum at the snapshot's start.  Bit f of summed: sum[f]
	 * counts; of whole: nothing of it was lost (no counter went back);
	 * of base_ok: base[f] was taken at the snapshot's start, so the
	 * interval's growth is known.
	 */
	uint32_t summed;
	uint32_t whole;
	uint32_t base_ok;
	uint32_t last_read;		/* bit f: read at its last reading (between snapshots: no pressure, no delay) */
	uint64_t sum[CTX_NR];
	uint64_t base[CTX_NR];
	bool born;			/* its VMM began after kvmtop (decided at its first reading, prev_at 0 before) */
};

/* f's sum over the run (sum[f]): true with *val, or false where it is not known. */
static inline bool vm_ctx_total(const struct vm_ctx *c, enum vm_ctx_fig f, uint64_t *val)
{
	*val = c->sum[f];
	return c->summed & c->whole & (1u << f);
}

/* Figure f of a VM's context: true with *val, or false where it is not known. */
static inline bool vm_ctx_get(const struct vm_ctx *c, enum vm_ctx_fig f, double *val)
{
	*val = c->val[f];
	return c->known & (1u << f);
}

/*
 * Which VMs and vCPU threads the views show (-p, -g, --vcpu; kvmtop(1),
 * SCOPE).  A VM is shown when no pid or name is given, or one matches it
 * (a name is a glob); a vCPU thread when its VM is, and no vCPU id is
 * given or one is its.  It changes what is shown, never what is counted:
 * the host's and each VM's figures stay whole.
 */
#define MODEL_FILTER_MAX	64	/* pids, names and vCPU ids: at most this many of each */
struct model_filter {
	const int *pids;
	unsigned int nr_pids;
	const char *const *names;
	unsigned int nr_names;
	const int *vcpus;
	unsigned int nr_vcpus;
};

struct vm {
	RB_ENTRY(vm) node;
	const struct model_filter *filter;	/* the model's, NULL: shown */
	int pid;
	char name[MODEL_NAME_LEN];	/* raw: escape before printing */
	TAILQ_HEAD(, vcpu) vcpus;
	int nr_vcpus;
	TAILQ_HEAD(, vcpu) vmm_threads;	/* struct vcpu with vmm set: no vCPU rows */
	int nr_vmm;
	bool exited;		/* live: its process ended; removed next interval (kept: model_reap) */
	uint64_t end;		/* ... found ended then (the source's clock), 0: running */
	bool guessed;		/* a recording's VM grouped by the guess, not a snapshot */
	bool kernel;		/* the host kernel's threads (pid MODEL_PID_KERNEL): not a VM */
	/* why the source sees none of its exits (a constant string), NULL: they are counted */
	const char *exits_unknown;
	enum model_from counted_from;	/* where its figures count from, as its source says */
	struct thread_group_stat groups[TG_NR];
	/* its threads other than vCPUs one by one, by tid: only while its detail is shown (NULL: not) */
	struct thread_detail *detail;
	size_t nr_detail;
	struct vm_ctx ctx;	/* memory, disk, network, pressure (src/context/) */
	struct ident_vm ident;	/* live: who it is (src/context/context_ident.c); read false: not looked up */
	/* KVM's statistics of its VM fd (the stats source), by names->kstats[KSTAT_VM] slot */
	struct ctr *kst;
	unsigned int nr_kst;
	/*
	 * The row of the ended VMs past the model's max_ended, "N more
	 * ended" (model_ended.c): their exits and context summed, NULL for
	 * every other VM.
	 */
	struct model_rest *rest;
};

/*
 * What the ended VMs folded into the rest's row carried (model_ended.c):
 * their exits (by reason, not their latencies or objects), events, time
 * states; their context's sums are the row's vm_ctx.
 */
struct model_rest {
	unsigned int nr;		/* VMs folded */
	uint64_t *reasons;		/* exits by reason id, nr_reasons of them */
	unsigned int nr_reasons;
	uint64_t exits;
	uint64_t unmatched_exits;
	uint64_t unmatched_entries;
	uint64_t *other;		/* other events by kvm_event.other, the model's nr_other */
	uint64_t uexit[UEXIT_MAX];
	uint64_t time[VS_NR];
	unsigned int time_known;	/* bit (1 << VS_x): every VM folded measured it */
};

/* The vm entry that holds every host kernel thread that raised KVM events. */
#define MODEL_PID_KERNEL	(-1)
/* ... and the one of the ended VMs past max_ended (last in pid order) */
#define MODEL_PID_REST		INT_MAX
/* --keep-ended's default: ended VMs a summary keeps one by one */
#define MODEL_KEEP_ENDED	1000
#define MODEL_KEEP_ENDED_MAX	1000000
/* An ended VM is folded into the rest's row once it ended this long ago: its source has read it a last time. */
#define MODEL_ENDED_SETTLE_NS	(5 * 1000000000ull)

RB_HEAD(vcpu_tree, vcpu);
RB_HEAD(vm_tree, vm);
/* sys/tree.h marks some functions __unused; glibc does not define it */
#ifndef __unused
#define __unused __attribute__((__unused__))
#endif
int model_vcpu_cmp(const struct vcpu *a, const struct vcpu *b);
int model_vm_cmp(const struct vm *a, const struct vm *b);
RB_PROTOTYPE(vcpu_tree, vcpu, node, model_vcpu_cmp)
RB_PROTOTYPE(vm_tree, vm, node, model_vm_cmp)



TAILQ_HEAD(vcpu_list, vcpu);

/* A slot of the model's table of vCPUs by tid (v NULL: empty). */
struct model_tid {
	int tid;
	struct vcpu *v;
};

struct model {
	struct vcpu_tree vcpus;
	struct vcpu_list dirty;		/* the vCPUs changed this interval */
	struct vm_tree vms;
	/* every vCPU by tid: open addressing, linear probing, at most half full */
	struct model_tid *by_tid;
	unsigned int by_tid_mask;	/* by_tid has mask + 1 slots (0: none yet) */
	const struct kvm_names *names;	/* the source's: reasons, other events, userspace exits */
	const struct model_filter *filter;	/* what the views show; NULL: everything (set before the first event) */
	const struct reason_table *reasons;	/* = &names->reasons */
	unsigned int ring_size;
	unsigned int ip_slots;		/* entries per guest IP table, 0: no IPs kept */
	unsigned int max_objs;		/* objects kept per vCPU (--objects), 0: none */
	unsigned int max_vcpus;
	unsigned int nr_vcpus;		/* threads in by_tid: vCPUs and VMM threads */
	unsigned int nr_vmm;		/* of which VMM threads (no vCPU rows) */
	unsigned long vcpus_gen;	/* changes whenever a vCPU thread comes or goes */
	int nr_other;
	ident_fn ident;
	void *ident_ctx;
	struct ctr exits;		/* host */
	struct ctr events;		/* all kvm events fed */
	struct ctr lost_events;		/* ring-buffer overruns reported by the source */
	struct ctr dropped;		/* events of threads over max_vcpus */
	bool live;			/* VMs are processes that come and go */
	bool have_time;
	bool proc_time;			/* live: the states sched events do not give come from /proc */
	uint64_t first_time;
	uint64_t last_time;
	uint64_t interval_start;
	/* stolen time (model_steal.c) */
	unsigned int max_thieves;	/* per vCPU; 0: not kept */
	bool steal_totals;		/* keep each vCPU's thieves since the start too (metrics) */
	struct model_cpu **cpus;	/* by CPU number, NULL where none seen */
	unsigned int nr_cpus;
	TAILQ_HEAD(, vcpu) stolen;	/* the vCPUs whose tables have figures */
	/* the source's answers about thieves, MODEL_THIEF_PIDS of them by tid */
	struct { int tid, pid; char comm[KVM_COMM_LEN]; } *thief_pids;
	/*
	 * The scheduler's view of threads that are no vCPU yet (model_time.c):
	 * their time before their first KVM event takes the states it says.
	 * MODEL_PRE_SLOTS of them by tid; NULL without sched events.
	 */
	struct model_pre *pre;
	/*
	 * The host's exit latency per reason id over the intervals closed
	 * (model_interval_end), vCPUs that are gone included: what a
	 * host-wide histogram adds to, so it never walks every vCPU's.
	 */
	bool host_lat_on;		/* kept (a metrics view asked): off, nothing is folded */
	struct hist *host_lat;
	unsigned int nr_host_lat;
	/* live: the host's pressure (/proc/pressure), CTX_CPU_SOME .. CTX_IO_FULL (src/context/) */
	struct vm_ctx host_ctx;
	/*
	 * Live: VMs that ended stay to the end (a summary's), at most
	 * max_ended of them one by one, the older ones folded into the rest's
	 * row (model_ended.c); else each goes once a snapshot showed it ended.
	 */
	bool keep_ended;
	unsigned int max_ended;
	unsigned int nr_ended;		/* kept one by one */
	struct vm *rest;		/* the rest's row, NULL: none folded */
};

/* names->nr_other is fixed from here on. */
/* How VM vm was found: "proc" (live), "threads" (--threads), "guess", "kernel". */
const char *model_vm_ident(const struct model *m, const struct vm *vm);

struct model *model_new(const struct kvm_names *names,
			unsigned int ring_size, ident_fn ident, void *ident_ctx);
void model_free(struct model *m);
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
 * Time states (model_time.c).  The vCPUs' current states last until now:
 * the driver calls this before each snapshot, so the states of an
 * interval add up to its length.
 */
void model_time_to(struct model *m, uint64_t now);
/*
 * Stolen time (model_steal.c): while a vCPU thread waits for a CPU
 * (runnable, not running), who ran on that CPU instead, from the sched
 * events; --thieves of them kept per vCPU.
 */
#define MODEL_THIEVES_DEFAULT	5
#define MODEL_THIEVES_MAX	64
/*
 * v's thieves, most time first, into out (m->max_thieves of them): how
 * many; *rest: the time of those not shown.
 */
unsigned int model_steal_top(const struct model *m, const struct vcpu *v, const struct model_thief **out,
			     uint64_t *rest);
/* The same since the start, with m->steal_totals. */
unsigned int model_steal_top_total(const struct model *m, const struct vcpu *v, const struct model_thief **out,
				   uint64_t *rest);
/* v's wait time given out this interval. */
uint64_t model_steal_total(const struct vcpu *v);
void model_thief_who(const struct model *m, const struct model_thief *t, struct model_thief_who *w);
/*
 * Which states are measured: bit (1 << VS_x) set, from the events or
 * (m->proc_time) from /proc; TIME_SPLIT when sched events are traced.
 */
unsigned int model_time_known(const struct model *m);
/* Where the figure of state st comes from: "trace", "proc", or NULL (not measured). */
const char *model_time_source(const struct model *m, enum vcpu_state st);
/* v's counter of state st (the events' or /proc's), NULL when v has no figure for it. */
const struct ctr *model_time_ctr(const struct model *m, const struct vcpu *v, enum vcpu_state st);
/*
 * A reading t of v's /proc accounting at now: the time since the last
 * reading is split into the five states (model_time.c says how).
 */
void model_time_proc(struct model *m, struct vcpu *v, const struct proc_times *t, uint64_t now);
const char *model_state_name(enum vcpu_state s);
/*
 * The threads of group g of vm now, sorted by tid (the model keeps the
 * array, freed with the VM or at the next reading): the time they ran
 * and waited since the last reading is added, of the threads in both.
 */
void model_group_read(struct vm *vm, enum thread_group g, struct group_thread *now, size_t n);
const char *model_group_name(enum thread_group g);
/*
 * The threads of vm other than its vCPUs now, one by one, sorted by tid
 * (the model keeps the array; NULL, 0: its detail is no longer shown and
 * what was kept goes): each thread's growth since the last reading of the
 * same thread.
 */
void model_thread_detail(struct vm *vm, struct thread_detail *now, size_t n);
/* Group g's ns on a CPU (or waiting for one): this interval, or since start; 0 if not known. */
uint64_t model_group_ns(const struct vm *vm, enum thread_group g, bool wait, bool cumulative);
/* A record says missed events were lost before it: n, or < 0 if how many is unknown (counted as 1). */
void model_lost(struct model *m, long long n);
/* Close the interval at time now: interval figures start again from 0. */
int model_interval_end(struct model *m, uint64_t now);
/* Forget every count (the TUI's reset key): VMs and vCPUs stay. */
void model_reset(struct model *m, uint64_t now);
/* End of input: exits still waiting for an entry become unmatched. */
void model_finish(struct model *m);
/* Latency of a reason since start: both histograms merged into out. */
int model_reason_total_lat(const struct reason_stat *rs, struct hist *out);


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
