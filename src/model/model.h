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
 *
 * This header has the model's types; what is done with them is split by
 * who does it: model_feed.h what the feeders call (sources, samplers,
 * the driver), model_view.h what the views read, model_time.h the vCPUs'
 * time states, model_steal.h stolen time.
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
 * Where a VM's figures that ended run to (vm_counted_to): to its end,
 * from the kernel's exit records of its threads (taskstats), or to its
 * last reading, what came after lost (no exit records: no CAP_NET_ADMIN,
 * no CONFIG_TASKSTATS, some dropped, a thread not kept).  Unknown while
 * it runs.
 */
enum model_to {
	MODEL_TO_UNKNOWN,
	MODEL_TO_EXACT,
	MODEL_TO_READ,
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
struct model_cpu;
struct model_steal;

struct vcpu {
	/* who it is, and where it is kept */
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
	char comm[MODEL_NAME_LEN];	/* raw: escape before printing */
	int last_cpu;

	/* its exits: counts, and per reason (counts and latency histograms) */
	struct ctr exits;
	struct ctr unmatched_exits;	/* exits followed by an exit, not an entry */
	struct ctr unmatched_entries;	/* entries with no exit before them */
	struct reason_stat **rs;	/* indexed by reason id, NULL if never seen */
	unsigned int nr_rs;
	/* the exit waiting for its entry: when, why, what it touched, its time in each state */
	bool pending;
	uint64_t pending_time;
	int pending_reason;
	unsigned int pending_slot;
	bool pending_obj;		/* the pending exit's object is known: pobj */
	struct model_obj_key pobj;
	uint64_t pobj_ip;		/* the pending exit's guest IP, its object's site; 0: none */
	uint64_t pending_states[VS_NR];	/* the pending exit's time in each state */

	/* what its exits touched, and its other events */
	struct model_objs *objs;	/* NULL before the first */
	struct ctr *other;		/* indexed by kvm_event.other */
	struct ctr *uexit;		/* kvm_userspace_exit by reason, UEXIT_MAX; NULL before the first */

	/* its recent exits, and sampled guest IPs */
	struct exit_rec *ring;		/* ring_alloc slots, NULL before the first exit */
	unsigned int ring_alloc;	/* grows by doubling up to the model's ring_size */
	unsigned int ring_head;		/* next slot to write */
	uint64_t ring_count;		/* exits ever written */
	struct model_ips *ips[IP_KINDS];	/* since the start or the last reset; NULL until the first */
	uint64_t no_ip;			/* exits whose event carries no guest IP */

	/* where its time goes: enum vcpu_state since state_since, VS_NONE before any event */
	int8_t state;
	int8_t on_cpu;			/* the state it left when switched out: host or VMM */
	uint64_t state_since;
	struct ctr time[VS_NR];		/* in the source's time unit */
	/* the same from /proc (model_time_proc): the last reading, when, and the trace's guest time then */
	struct proc_times proc_last;
	uint64_t proc_at;		/* 0: not read yet */
	uint64_t proc_guest;
	bool proc_known;		/* ptime holds figures: read twice or more */
	struct ctr ptime[VS_NR];

	/* who ran instead while it waited for a CPU (model_steal.c), this interval */
	struct model_steal *steal;	/* NULL until its first wait */
	struct model_steal *steal_all;	/* the same since the start (m->steal_totals), never reset */
	int wait_cpu;			/* the CPU whose run queue it waits on, -1: not waiting */
	uint64_t steal_at;		/* its wait is given out up to here */
	TAILQ_ENTRY(vcpu) wait_link;	/* on m->cpus[wait_cpu].waiters */
	TAILQ_ENTRY(vcpu) steal_link;	/* on m->stolen: its table has figures */
	bool stolen;

	/* KVM's statistics of its vCPU fd (the stats source), by names->kstats[KSTAT_VCPU] slot */
	struct ctr *kst;
	unsigned int nr_kst;

	/* live (src/samplers/): the NUMA node of the CPU it last ran on (-1: not known), its run ns then */
	int ctx_node;
	uint64_t ctx_run_ns;
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
	bool born;			/* it began after kvmtop: its first reading counts from zero */
};

struct thread_group_stat {
	int count;			/* threads at the last reading */
	bool seen;			/* read once, or a thread of it ended after kvmtop began (model_group_end) */
	/*
	 * run and wait hold figures: read twice, or every thread it had at
	 * its first reading began after kvmtop (counted from zero)
	 */
	bool known;
	struct ctr run;			/* ns on a CPU, all the group's threads */
	struct ctr wait;		/* ns runnable, waiting for a CPU */
	struct group_thread *last;	/* the last reading, by tid */
	size_t nr_last;
	/* threads of the reading before that the last no longer had: an exit record may come after it */
	struct group_thread *gone;
	size_t nr_gone;
	/*
	 * threads whose end was counted (model_group_end), as their exit
	 * record said: a reading may still list them (a zombie leader, until
	 * it is reaped), with what they ran after it (their exit path)
	 */
	struct group_thread *ended;
	size_t nr_ended;
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
 * kvmtop counted (sum: since its first reading, or from its counters at
 * its birth where rtnetlink told of it: from), to its end where
 * rtnetlink told of that (its RTM_DELLINK's counters).
 */
struct vm_ctx_tap {
	char name[CTX_IFNAMSIZ];	/* raw: escape before printing */
	bool known;
	bool held;			/* its VMM held it at the last whole reading */
	bool ended;			/* it ended in this snapshot: its growth to its end is in it */
	enum model_from from;		/* START, BIRTH (counted from it), FOUND (from its first reading) */
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
	bool tap_ended;			/* a tap ended in this snapshot: the net rates are known without a reading */
	double val[CTX_NR];
	/* the counters as last read, at prev_at (bit f of prev_known: prev[f] was read) */
	uint32_t prev_known;
	uint64_t prev_at;
	uint64_t prev[CTX_NR];
	/*
	 * Each counter's growth kvmtop counted (samplers/sample_sum.c): since its
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
	/* its VMM's threads as last read (context_ends() measures an exit record from them), by tid */
	struct ctx_thread *threads;
	int nr_threads;
	bool threads_cut;		/* more than CTX_THREADS, or not kept: an end is not exact */
	uint64_t threads_at;		/* when they were read, 0: never */
};

/* f's sum over the run (sum[f]): true with *val, or false where it is not known. */
static inline bool vm_ctx_total(const struct vm_ctx *c, enum vm_ctx_fig f, uint64_t *val)
{
	*val = c->sum[f];
	return c->summed & c->whole & (1u << f);
}

/*
 * Where a VM's network figures count from: FOUND where one of its taps
 * was first read after its birth (what it did before is in no figure),
 * else START where one was there at kvmtop's start, else BIRTH (every tap
 * counted from its birth); UNKNOWN: no tap.
 */
static inline enum model_from vm_ctx_net_from(const struct vm_ctx *c)
{
	enum model_from f = MODEL_FROM_UNKNOWN;
	int k;

	for (k = 0; k < c->nr_tap_rows; k++) {
		enum model_from t = c->taps[k].from;

		if (t == MODEL_FROM_FOUND || (t == MODEL_FROM_START && f != MODEL_FROM_FOUND) ||
		    (t == MODEL_FROM_BIRTH && f == MODEL_FROM_UNKNOWN))
			f = t;
	}
	return f;
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
	enum model_to counted_to;	/* an ended VM's: where its figures run to */
	bool end_seen;		/* its process's last exit record was read (taskstats) */
	bool end_lost;		/* a record of one of its threads could not be counted */
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
	/*
	 * Live: the kernel's exit records of threads are read (taskstats), so
	 * a VM that ends can count to its end (vm->counted_to); ended_lost:
	 * how many times some were dropped.
	 */
	bool exit_records;
	uint64_t exits_dropped;
	unsigned int nr_ended;		/* kept one by one */
	uint64_t ended_marks;		/* VMs marked ended, ever: the driver sees one marked just now */
	struct vm *rest;		/* the rest's row, NULL: none folded */
};

struct model *model_new(const struct kvm_names *names,
			unsigned int ring_size, ident_fn ident, void *ident_ctx);
void model_free(struct model *m);

#endif
