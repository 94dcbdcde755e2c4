// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf source's program, run in the kernel at every KVM event the
 * loader (bpf.c) attaches it to: it counts what the trace source counts
 * in userspace, per thread, interval and reason or object, and keeps each
 * exit's latency (exit to the next entry) in hist.c's buckets.
 *
 * It knows no event by name and no arch: the loader says per event id
 * what kind it is and where its fields lie (bpf_kvm.h).  It assumes no
 * single writer per key and no IRQs off: every value a second CPU could
 * touch at once is added to atomically.
 *
 * Intervals: the loader flips kx_epoch at each interval's end and reads
 * the maps' entries of the interval before.  A program that took the
 * old parity is counted busy in it, on its CPU's own cache line (no line
 * bounces between CPUs at each event), until it is done, and the loader
 * waits for every CPU's count to drain before it reads, so an
 * interval's figures are whole when read.
 *
 * Exits and entries are not counted in the events map: the loader has
 * them from the exits map and the latencies' samples (one hash update
 * less for each).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "bpf_kvm.h"
#include "bpf_kvm_core.h"

char LICENSE[] SEC("license") = "GPL";

/* Only its start time is read, where the running kernel's BTF puts it (CO-RE). */
struct task_struct {
	__u64 start_time;
	struct task_struct *group_leader;
	char comm[16];
} __attribute__((preserve_access_index));

/*
 * KVM's own structures, where an SVM exit's fields lie (the kvm and
 * kvm_amd modules' BTF: CO-RE relocates each field to where the running
 * kernel has it).  Only the fields read are named.
 */
struct kvm_vcpu_arch {
	unsigned long regs[17];	/* NR_VCPU_REGS on x86-64: RIP is VCPU_REGS_RIP, 16 */
} __attribute__((preserve_access_index));

struct kvm_vcpu {
	int vcpu_id;
	struct kvm_vcpu_arch arch;
} __attribute__((preserve_access_index));

#define KX_VCPU_REGS_RIP	16

struct vmcb_control_area {
	__u32 exit_code;	/* u64 in later kernels: its low half, as kvm_exit's exit_reason is */
	__u64 exit_info_1;
	__u64 exit_info_2;
	__u32 exit_int_info;
} __attribute__((preserve_access_index));

struct vmcb {
	struct vmcb_control_area control;
} __attribute__((preserve_access_index));

struct vcpu_svm {
	struct kvm_vcpu vcpu;
	struct vmcb *vmcb;
} __attribute__((preserve_access_index));

/* The scheduler's records (CO-RE: where the running kernel has their fields). */
struct trace_event_raw_sched_switch {
	char prev_comm[16];
	int prev_pid;
	int prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid;
	int next_prio;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_wakeup_template {
	char comm[16];
	int pid;
	int prio;
	int target_cpu;
} __attribute__((preserve_access_index));

/* A switched-out thread that is not runnable (S, D, ...): the trace source's SCHED_SLEEP_MASK */
#define KX_SLEEP_MASK	0xffu

/* The classic kvm_exit's and kvm_entry's event ids: what the tp_btf programs count as (the loader sets them). */
const volatile __u32 kx_exit_type;
const volatile __u32 kx_entry_type;

/*
 * KVMTOP_BPF_SKEW=1 (a test's, set before the load): every other exit of
 * the host goes uncounted, a source that is wrong for the start-up
 * comparison to find.  0: the verifier drops the test.
 */
const volatile __u32 kx_skew;
__u64 kx_skewed;

/*
 * The start-up comparison (the loader's, where bpf is kvmtop's default):
 * the exits whose time falls in [kx_check_from, kx_check_to), counted
 * where an exit is counted, against a tracefs instance's kvm_exit records
 * of the same span (bpf_check.c).
 */
volatile __u64 kx_check_from;
volatile __u64 kx_check_to;
__u64 kx_check_n;

volatile __u32 kx_epoch;
/* when each interval parity began (bpf_ktime_get_ns), set by the loader before it flips */
volatile __u64 kx_epoch_ns[2];
struct kx_busy kx_busy[KX_CPUS];
__u64 kx_full[KX_MAP_NR];
/* threads waiting on a CPU's queue now (the CPUs keep their logs of stretches only while any does) */
__u64 kx_waiters;
/* every kx_every'th exit of a thread is a sample (0: none), set by the loader each interval */
volatile __u64 kx_every;
__u64 kx_samples_lost;	/* samples the full ring refused (their exits carried to the next one) */

/*
 * Every map's size is set by the loader before it loads: cfg's to the
 * event ids (an array: its lookup is a bounds check and an add), the
 * others' to --bpf-entries.  An event whose cfg is zero is no KVM event.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct kx_cfg);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct kx_thread);
} threads SEC(".maps");

/* A zeroed thread, never written: a new thread's entry is made of it (too large for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_thread);
} zero_thread SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, struct kx_exit_key);
	__type(value, __u64);
} exits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, struct kx_lat_key);
	__type(value, struct kx_lats);
} lats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, struct kx_bucket_key);
	__type(value, __u64);
} buckets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, struct kx_event_key);
	__type(value, __u64);
} events SEC(".maps");

/* Each CPU's stretches (struct kx_cpu), sized by the loader to the possible CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_cpu);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, struct kx_steal_key);
	__type(value, struct kx_steal);
} steal SEC(".maps");

/* Sampled exits (struct kx_sample), sized by the loader for --bpf-samples. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 64);
} samples SEC(".maps");

/* The interval's parity, with this program counted busy in it until leave(). */
static __always_inline __u64 *busy(__u32 e)
{
	/* a program runs on one CPU to its end: the slot stays its own */
	return &kx_busy[bpf_get_smp_processor_id() & (KX_CPUS - 1)].n[e & 1];
}

static __always_inline __u32 enter(void)
{
	__u32 e = kx_epoch & 1;

	/* atomic: a full barrier between this and the epoch read again */
	__sync_fetch_and_add(busy(e), 1);
	if ((kx_epoch & 1) == e)
		return e;
	/* flipped meanwhile: the loader may be reading that one already */
	__sync_fetch_and_add(busy(e), -1);
	e ^= 1;
	__sync_fetch_and_add(busy(e), 1);
	return e;
}

static __always_inline void leave(__u32 e)
{
	__sync_fetch_and_add(busy(e), -1);
}

static __always_inline void full(enum kx_map map)
{
	__sync_fetch_and_add(&kx_full[map], 1);
}

/* *v += n in map (the key made with 0 if new): counted full where it cannot be. */
static __always_inline void add(void *map, const void *key, __u64 n, enum kx_map which)
{
	__u64 zero = 0, *v = bpf_map_lookup_elem(map, key);

	if (!v) {
		bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(map, key);
		if (!v) {
			full(which);
			return;
		}
	}
	__sync_fetch_and_add(v, n);
}

/* The raw values of the event's slots (0 where it has none). */
static __always_inline void read_slots(void *ctx, const struct kx_cfg *c, __u64 *vals)
{
	int i;

	for (i = 0; i < KX_SLOTS; i++) {
		__u64 v = 0;
		__u8 size = c->slot[i].size;

		if (size) {
			bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + c->slot[i].off);
			if (size < 8)
				v &= (1ull << (size * 8)) - 1;
		}
		vals[i] = v;
	}
}

static __always_inline __u64 task_start(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(t, start_time);
}

/* The thread's state, made when new: NULL where the map is full. */
static __always_inline struct kx_thread *thread_get(__u32 tid)
{
	struct kx_thread *t = bpf_map_lookup_elem(&threads, &tid), *zero;
	struct task_struct *leader;
	__u32 key = 0;

	if (t)
		return t;
	zero = bpf_map_lookup_elem(&zero_thread, &key);
	if (!zero)
		return NULL;
	bpf_map_update_elem(&threads, &tid, zero, BPF_NOEXIST);
	t = bpf_map_lookup_elem(&threads, &tid);
	if (!t) {
		full(KX_MAP_THREADS);
		return NULL;
	}
	/* only this thread writes its entry, and this is its first event */
	t->start = task_start();
	/* no state yet: its first change says which it was in (from its interval's start) */
	t->st = KX_ST_NONE;
	t->on_cpu = KX_ST_HOST;
	t->wait_cpu = -1;
	/* who it is, for when it is gone before the loader asks /proc */
	t->tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	leader = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), group_leader);
	bpf_core_read_str(t->leader, sizeof(t->leader), &leader->comm);
	return t;
}

static __always_inline void count_event(__u32 tid, __u64 start, __u32 type, __u64 sub, __u32 e)
{
	struct kx_event_key k = { .tid = tid, .type = type, .epoch = e, .start = start, .sub = sub };

	add(&events, &k, 1, KX_MAP_EVENTS);
}

/* Another or a companion event: in the thread's own counters, or (no index) the events map. */
static __always_inline void count_other(struct kx_thread *t, const struct kx_cfg *c, __u32 tid, __u32 type,
					__u64 sub, __u32 e)
{
	if (c->index >= KX_EVENTS) {
		count_event(tid, t->start, type, sub, e);
		return;
	}
	__sync_fetch_and_add(&t->ev[c->index & (KX_EVENTS - 1)], 1);
	if (c->has_sub)
		__sync_fetch_and_add(&t->sub[sub < KX_SUBS ? sub : KX_SUBS - 1], 1);
}

/*
 * The thread's pending exit, a sample, into the ring buffer with latency
 * lat; where the ring is full, its exits go to the thread's next sample.
 */
static __always_inline void sample_emit(struct kx_thread *t, __u32 tid, __u64 lat)
{
	struct kx_sample *s;

	t->sampled = 0;
	s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
	if (!s) {
		__u64 every = kx_every;

		sample_refused(t);
		__sync_fetch_and_add(&kx_samples_lost, 1);
		/* faster than kvmtop reads: half as many samples until it sets the step again */
		if (every && every < (1ull << 32))
			__sync_val_compare_and_swap(&kx_every, every, every * 2);
		return;
	}
	s->tid = tid;
	s->type = t->exit_type;
	s->comp_type = t->comp_type;
	s->start = t->start;
	s->exit_ns = t->exit_ns;
	s->lat = lat;
	s->ip = t->ip;
	s->weight = t->weight;
	s->cpu = t->cpu;
	s->pad = 0;
	__builtin_memcpy(s->vals, t->vals, sizeof(s->vals));
	__builtin_memcpy(s->comp, t->comp, sizeof(s->comp));
	bpf_ringbuf_submit(s, 0);
}

/*
 * An exit of raw fields k->vals (its slots): counted, and pending until
 * its entry.  Non-zero where it is a sample: its guest IP is wanted.
 */
static __always_inline int exit_of(const struct kx_cfg *c, struct kx_thread *t, struct kx_exit_key *k, __u64 now)
{
	__u64 every = kx_every;

	if (kx_skew && (__sync_fetch_and_add(&kx_skewed, 1) & 1))
		return 0;
	if (now >= kx_check_from && now < kx_check_to)
		__sync_fetch_and_add(&kx_check_n, 1);
	/* out of the guest: its time there ends (a pending exit's, if one had no entry) */
	state_to(t, KX_ST_HOST, KX_ST_GUEST, 0, now, k->epoch, kx_epoch_ns[k->epoch & 1]);
	if (t->pending) {
		count_event(k->tid, t->start, KX_UNMATCHED_EXIT, 0, k->epoch);
		if (t->sampled)
			sample_emit(t, k->tid, KX_NO_LAT);
	}
	k->start = t->start;
	keep_info(c, k->vals);
	__builtin_memcpy(t->vals, k->vals, sizeof(t->vals));
	t->exit_type = k->type;
	t->comp_type = 0;
	t->exit_ns = now;
	t->pending = 1;
	__builtin_memset(t->pend, 0, sizeof(t->pend));
	add(&exits, k, 1, KX_MAP_EXITS);
	t->ip = 0;
	return sample_due(t, every);
}

static __always_inline void on_exit(void *ctx, const struct kx_cfg *c, struct kx_thread *t, __u32 tid,
				    __u32 type, __u32 e)
{
	struct kx_exit_key k = { .tid = tid, .type = type, .epoch = e };

	read_slots(ctx, c, k.vals);
	if (exit_of(c, t, &k, bpf_ktime_get_ns()) && c->ip.size == 8)
		bpf_probe_read_kernel(&t->ip, sizeof(t->ip), (char *)ctx + c->ip.off);
}

static __always_inline void on_comp(void *ctx, const struct kx_cfg *c, struct kx_thread *t, __u32 tid,
				    __u32 type, __u32 e)
{
	count_other(t, c, tid, type, 0, e);
	if (!t->pending)
		return;
	/* the last companion before the entry names the object */
	read_slots(ctx, c, t->comp);
	t->comp_type = type;
}

static __always_inline void on_entry(struct kx_thread *t, __u32 tid, __u32 e)
{
	struct kx_bucket_key b = {};
	struct kx_lats *v;
	__u64 lat, handling, now = bpf_ktime_get_ns();

	/* into the guest: its time in the host (or the VMM) ends, the pending exit's with it */
	state_to(t, KX_ST_GUEST, KX_ST_HOST, 0, now, e, kx_epoch_ns[e & 1]);
	if (!t->pending) {
		count_event(tid, t->start, KX_UNMATCHED_ENTRY, 0, e);
		return;
	}
	t->pending = 0;
	lat = now >= t->exit_ns ? now - t->exit_ns : 0;
	/* on a CPU (host or VMM), runnable off one, asleep: the trace source's split */
	handling = t->pend[KX_ST_HOST] + t->pend[KX_ST_VMM];
	if (t->sampled)
		sample_emit(t, tid, lat);
	b.l.x.tid = tid;
	b.l.x.type = t->exit_type;
	b.l.x.epoch = e;
	b.l.x.start = t->start;
	__builtin_memcpy(b.l.x.vals, t->vals, sizeof(b.l.x.vals));
	b.l.comp_type = t->comp_type;
	if (t->comp_type)
		__builtin_memcpy(b.l.comp, t->comp, sizeof(b.l.comp));
	v = bpf_map_lookup_elem(&lats, &b.l);
	if (!v) {
		struct kx_lats n = { .lat = { .min = ~0ull, .shift = lat },
				     .handling = { .min = ~0ull, .shift = handling } };

		bpf_map_update_elem(&lats, &b.l, &n, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&lats, &b.l);
		if (!v) {
			full(KX_MAP_LATS);
			return;
		}
	}
	lat_add(&v->lat, lat);
	lat_add(&v->handling, handling);
	__sync_fetch_and_add(&v->preempted, t->pend[KX_ST_WAIT]);
	__sync_fetch_and_add(&v->blocked, t->pend[KX_ST_HALT]);
	b.bucket = bucket_of(lat);
	b.kind = KX_B_LAT;
	add(&buckets, &b, 1, KX_MAP_BUCKETS);
	b.bucket = bucket_of(handling);
	b.kind = KX_B_HANDLING;
	add(&buckets, &b, 1, KX_MAP_BUCKETS);
}

/*
 * An event's configuration (NULL: none of ours, nothing entered), its
 * interval entered (*e, to leave()) and its thread's entry (*t, NULL where
 * the map is full), the thread's CPU noted.
 */
static __always_inline struct kx_cfg *begin(__u32 type, __u32 tid, struct kx_thread **t, __u32 *e)
{
	struct kx_cfg *c = bpf_map_lookup_elem(&cfg, &type);

	if (!c || !c->kind)
		return NULL;
	*e = enter();
	*t = thread_get(tid);
	if (*t)
		(*t)->cpu = bpf_get_smp_processor_id();
	return c;
}

/*
 * SVM's exits at the same tracepoints, through their BTF arguments (the
 * vCPU) rather than a record (tp_btf: the kernel builds none for BPF):
 * the VMCB holds what kvm_exit's record would (svm_get_exit_info()), so
 * the keys are the classic event's, decoded alike.
 */
SEC("tp_btf/kvm_exit")
int BPF_PROG(kx_exit_svm, struct kvm_vcpu *vcpu, __u32 isa)
{
	__u32 type = kx_exit_type, tid = (__u32)bpf_get_current_pid_tgid(), e;
	struct kx_exit_key k = { .tid = tid, .type = type };
	struct vcpu_svm *svm = (struct vcpu_svm *)((char *)vcpu - bpf_core_field_offset(struct vcpu_svm, vcpu));
	struct vmcb *vmcb = BPF_CORE_READ(svm, vmcb);
	struct kx_thread *t;
	struct kx_cfg *c;
	__u32 code = 0;

	c = begin(type, tid, &t, &e);
	if (!c)
		return 0;
	if (!t)
		goto out_leave;
	k.epoch = e;
	bpf_core_read(&code, sizeof(code), &vmcb->control.exit_code);
	k.vals[0] = code;
	k.vals[1] = isa;
	k.vals[2] = BPF_CORE_READ(vmcb, control.exit_int_info);
	k.vals[3] = (__u32)BPF_CORE_READ(vcpu, vcpu_id);
	k.vals[KX_EXIT_INFO1] = BPF_CORE_READ(vmcb, control.exit_info_1);
	k.vals[KX_EXIT_INFO2] = BPF_CORE_READ(vmcb, control.exit_info_2);
	/* the guest's RIP: svm_vcpu_run() put it there from the VMCB, where kvm_exit's record takes it */
	if (exit_of(c, t, &k, bpf_ktime_get_ns()))
		bpf_core_read(&t->ip, sizeof(t->ip), &vcpu->arch.regs[KX_VCPU_REGS_RIP]);
out_leave:
	leave(e);
	return 0;
}

SEC("tp_btf/kvm_entry")
int BPF_PROG(kx_entry_btf, struct kvm_vcpu *vcpu)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), e;
	struct kx_thread *t;

	if (!begin(kx_entry_type, tid, &t, &e))
		return 0;
	if (t)
		on_entry(t, tid, e);
	leave(e);
	return 0;
}

SEC("tracepoint")
int kx_event(void *ctx)
{
	/*
	 * The event's id: its attachment's cookie (the record's common_type
	 * is not there: a tracepoint's BPF programs find its first 8 bytes
	 * overwritten with the registers' address)
	 */
	__u32 type = (__u32)bpf_get_attach_cookie(ctx), tid = (__u32)bpf_get_current_pid_tgid(), e;
	struct kx_thread *t;
	struct kx_cfg *c;

	c = begin(type, tid, &t, &e);
	if (!c)
		return 0;
	if (!t)
		goto out_leave;
	switch (c->kind) {
	case KX_EXIT:
		on_exit(ctx, c, t, tid, type, e);
		break;
	case KX_ENTRY:
		on_entry(t, tid, e);
		break;
	case KX_COMP:
		on_comp(ctx, c, t, tid, type, e);
		break;
	default: {
		__u64 vals[KX_SLOTS];

		read_slots(ctx, c, vals);
		count_other(t, c, tid, type, vals[0], e);
		/* back to the VMM (the userspace exit): its time there until the next entry */
		if (c->to_vmm)
			state_to(t, KX_ST_VMM, KX_ST_HOST, 0, bpf_ktime_get_ns(), e, kx_epoch_ns[e & 1]);
		break;
	}
	}
out_leave:
	leave(e);
	return 0;
}

/*
 * A thread that ends: an exit it left pending never gets its entry (an
 * unmatched exit, as the trace source counts it at its end); the loader
 * reads who it was once more, then deletes it.
 */
SEC("tracepoint/sched/sched_process_exit")
int kx_thread_end(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), e;
	struct kx_thread *t = bpf_map_lookup_elem(&threads, &tid);

	if (!t)
		return 0;
	if (t->pending) {
		e = enter();
		count_event(tid, t->start, KX_UNMATCHED_EXIT, 0, e);
		if (t->sampled)
			sample_emit(t, tid, KX_NO_LAT);
		leave(e);
	}
	t->pending = 0;
	t->ended = 1;
	if (t->wait_cpu >= 0) {
		t->wait_cpu = -1;
		__sync_fetch_and_add(&kx_waiters, -1);
	}
	return 0;
}


/* --- stolen time --- */

/* ns of thread tid's (t's) wait, in interval parity e, to thief (named comm, NULL: none). */
static __always_inline void steal_give(__u32 tid, const struct kx_thread *t, __u32 thief, const char *comm,
				       __u64 ns, __u32 e)
{
	struct kx_steal_key k = { .tid = tid, .thief = thief, .epoch = (__u8)(e & 1), .start = t->start };
	struct kx_steal *v;

	if (!ns)
		return;
	v = bpf_map_lookup_elem(&steal, &k);
	if (!v) {
		struct kx_steal n = { .ns = 0 };

		if (comm)
			bpf_probe_read_kernel(n.comm, sizeof(n.comm), comm);
		bpf_map_update_elem(&steal, &k, &n, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&steal, &k);
		if (!v) {
			full(KX_MAP_STEAL);
			return;
		}
	}
	__sync_fetch_and_add(&v->ns, ns);
}

/*
 * Thread tid's (t's) wait on its CPU's queue, from t->steal_at to to,
 * given out in interval parity e (steal_split()).
 */
static __always_inline void steal_walk(__u32 tid, struct kx_thread *t, __u64 to, __u32 e)
{
	struct kx_give out[KX_STRETCHES + 1];
	__u64 from = t->steal_at;
	__u32 c = (__u32)t->wait_cpu, n, i;
	struct kx_cpu *cpu;

	if (t->wait_cpu < 0 || to <= from)
		return;
	t->steal_at = to;
	cpu = bpf_map_lookup_elem(&cpus, &c);
	if (!cpu) {
		steal_give(tid, t, KX_THIEF_UNSEEN, NULL, to - from, e);
		return;
	}
	n = steal_split(cpu, from, to, out);
	for (i = 0; i < KX_STRETCHES + 1 && i < n; i++) {
		__u32 slot = out[i].slot;

		steal_give(tid, t, out[i].tid, slot == KX_STRETCHES ? cpu->comm :
			   slot < KX_STRETCHES ? cpu->log[slot & (KX_STRETCHES - 1)].comm : NULL, out[i].ns, e);
	}
}

/* Thread t starts to wait on cpu's queue at now. */
static __always_inline void wait_start(struct kx_thread *t, __s32 cpu, __u64 now)
{
	if (t->wait_cpu < 0)
		__sync_fetch_and_add(&kx_waiters, 1);
	t->wait_cpu = cpu;
	t->steal_at = now;
}

/* Thread tid's (t's) wait ends at now: given out in parity e. */
static __always_inline void wait_end(__u32 tid, struct kx_thread *t, __u64 now, __u32 e)
{
	if (t->wait_cpu < 0)
		return;
	steal_walk(tid, t, now, e);
	t->wait_cpu = -1;
	__sync_fetch_and_add(&kx_waiters, -1);
}

/* This CPU's switch at now: prev's stretch ends, next's begins (logged while any thread waits). */
static __always_inline void cpu_switch(struct trace_event_raw_sched_switch *ctx, __u64 now)
{
	__u32 c = bpf_get_smp_processor_id(), h;
	struct kx_cpu *cpu = bpf_map_lookup_elem(&cpus, &c);

	if (!cpu)
		return;
	if (kx_waiters) {
		h = cpu->head & (KX_STRETCHES - 1);
		cpu->log[h].end = now;
		cpu->log[h].tid = cpu->tid;
		__builtin_memcpy(cpu->log[h].comm, cpu->comm, sizeof(cpu->comm));
		cpu->head++;
	}
	cpu->since = now;
	cpu->tid = (__u32)ctx->next_pid;
	bpf_probe_read_kernel(cpu->comm, sizeof(cpu->comm), ctx->next_comm);
}

/*
 * The scheduler's switches and wakeups of the threads the programs met
 * (a KVM event made their entry): where their time goes (model_time.c).
 * Every other thread is one lookup each and nothing more.
 */
SEC("tracepoint/sched/sched_switch")
int kx_switch(struct trace_event_raw_sched_switch *ctx)
{
	__u32 prev = (__u32)ctx->prev_pid, next = (__u32)ctx->next_pid, e, cur;
	struct kx_thread *p = prev ? bpf_map_lookup_elem(&threads, &prev) : NULL;
	struct kx_thread *n = next ? bpf_map_lookup_elem(&threads, &next) : NULL;
	__u64 now = bpf_ktime_get_ns();
	int sleeps = ((__u64)ctx->prev_state & KX_SLEEP_MASK) != 0;

	/* who runs on this CPU, for the waits on its queue */
	cpu_switch(ctx, now);
	/* each on its own (the verifier takes no test of both pointers at once) */
	if (p) {
		e = enter();
		cur = state_to(p, sleeps ? KX_ST_HALT : KX_ST_WAIT, KX_ST_HOST, 0, now, e, kx_epoch_ns[e & 1]);
		/* it gets a CPU back in the VMM where it left one there */
		if (cur != KX_ST_NONE)
			p->on_cpu = cur == KX_ST_VMM ? KX_ST_VMM : KX_ST_HOST;
		/* switched out runnable: it waits on this CPU's queue */
		if (!sleeps)
			wait_start(p, (__s32)bpf_get_smp_processor_id(), now);
		leave(e);
	}
	if (n) {
		e = enter();
		state_to(n, KX_ST_NONE, KX_ST_WAIT, 0, now, e, kx_epoch_ns[e & 1]);
		wait_end(next, n, now, e);
		leave(e);
	}
	return 0;
}

SEC("tracepoint/sched/sched_waking")
int kx_waking(struct trace_event_raw_sched_wakeup_template *ctx)
{
	__u32 tid = (__u32)ctx->pid, e;
	struct kx_thread *t = bpf_map_lookup_elem(&threads, &tid);
	__u64 now;

	if (!t)
		return 0;
	e = enter();
	now = bpf_ktime_get_ns();
	/* a wakeup of a thread that had not slept yet changes nothing; else it waits on the CPU it is put on */
	if (state_to(t, KX_ST_WAIT, KX_ST_HALT, 1u << KX_ST_HALT, now, e, kx_epoch_ns[e & 1]) != KX_ST_NONE)
		wait_start(t, ctx->target_cpu, now);
	leave(e);
	return 0;
}

/* The loader's cut (BPF_PROG_TEST_RUN) at an interval's end: every thread's time to start (bpf_kvm.h). */
static long cut_one(void *map, __u32 *key, struct kx_thread *t, struct kx_cut *c)
{
	state_cut(t, c->e, c->start);
	/* and a wait's time so far, to who ran meanwhile */
	if (t->wait_cpu >= 0)
		steal_walk(*key, t, c->start, c->e ^ 1);
	return 0;
}

SEC("syscall")
int kx_cut(struct kx_cut *c)
{
	/* the callback's argument is on the stack */
	struct kx_cut at = { .start = c->start, .e = c->e };

	bpf_for_each_map_elem(&threads, cut_one, &at, 0);
	return 0;
}
