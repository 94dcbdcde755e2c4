/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bpf source's program (bpf_kvm.bpf.c, run in the kernel) and
 * its loader (bpf.c) share: the maps' keys and values and the program's
 * per-event configuration.
 *
 * The program knows no arch and no event by name.  The loader binds
 * every KVM event format with the decoder, as the trace source does, and
 * tells the program, per event id, what kind of event it is and where
 * the fields lie in its record that the decoder reads for it (the
 * "slots").  The program copies those raw values into the keys it counts
 * under; at each interval the loader rebuilds a record out of each key's
 * values at the same offsets and hands it to the decoder, so reasons and
 * objects get the names and ids the trace source gives them.
 */
#ifndef KVMTOP_BPF_KVM_H
#define KVMTOP_BPF_KVM_H

#ifdef __bpf__
typedef __u8 kx_u8;
typedef __u16 kx_u16;
typedef __u32 kx_u32;
typedef __s32 kx_s32;
typedef __s64 kx_s64;
typedef __u64 kx_u64;
#else
#include <stdint.h>
typedef uint8_t kx_u8;
typedef uint16_t kx_u16;
typedef uint32_t kx_u32;
typedef int32_t kx_s32;
typedef int64_t kx_s64;
typedef uint64_t kx_u64;
#endif

/* What an event is to the program (struct kx_cfg.kind). */
enum kx_kind {
	KX_OTHER = 1,	/* only counted */
	KX_EXIT,	/* kvm_exit: counted, a pending exit begins */
	KX_ENTRY,	/* kvm_entry: the pending exit ends, its latency counted */
	KX_COMP,	/* a companion (kvm_pio, kvm_mmio ...): the pending exit's object */
};

/*
 * Slots of an exit: those that say its reason (reason, isa, aux, vcpu)
 * always; the two info fields only for the exits whose object comes out
 * of them (kx_rule), masked, as nothing else of them names a reason.
 * Slots of a companion: the object's value, its direction, its size and
 * one more part.  Of another event: its sub-reason (the userspace exit's).
 */
#define KX_SLOTS	6
#define KX_EXIT_INFO1	4	/* the exit's slots 4 and 5 are its info fields */
#define KX_EXIT_INFO2	5
#define KX_RULES	4

struct kx_slot {
	kx_u16 off;	/* in the record, common fields included */
	kx_u8 size;	/* 1, 2, 4 or 8; 0: no such field */
	kx_u8 role;	/* the decoder's enum field_role */
};

/*
 * An exit whose info fields name its object (an x86 port, an MMIO
 * page): slot 0 (its reason) equal to reason and slot 1 (its isa) to
 * isa, info1 kept under info1_mask, info2 under info2_mask where info1
 * has every bit of info2_if set.
 */
struct kx_rule {
	kx_u64 reason;
	kx_u64 isa;
	kx_u64 info1_mask;
	kx_u64 info2_mask;
	kx_u64 info2_if;
};

/*
 * Every other and companion event is counted in its thread's own
 * counters (struct kx_thread: no hash update of its own), at the index the
 * loader gave it, below KX_EVENTS; one past them (a kernel with more KVM
 * events) in the events map.  A userspace exit's reason has counters of
 * its own too.
 */
#define KX_EVENTS	128
#define KX_SUBS		64	/* UEXIT_MAX: the last one holds the rest */
#define KX_NO_INDEX	0xffff

struct kx_cfg {
	kx_u8 kind;		/* enum kx_kind */
	kx_u8 nr_rules;
	kx_u16 index;		/* its counter in the thread's, KX_NO_INDEX: none */
	kx_u8 has_sub;		/* slot 0 is a userspace exit's reason */
	kx_u8 to_vmm;		/* the userspace exit: its thread goes to the VMM */
	kx_u8 pad[2];
	struct kx_slot slot[KX_SLOTS];
	struct kx_rule rule[KX_RULES];	/* an exit's */
	struct kx_slot ip;		/* an exit's guest IP in its record (size 0: none) */
};

/*
 * A thread's time states, as the trace source's model counts them
 * (model_time.c; the same order as its enum vcpu_state): the thread's
 * state and since when, in one word changed by compare-and-swap, as a
 * waker writes the wakee's while it sleeps; the time of each state, per
 * interval parity, from the start (the loader takes what they grew by).
 */
#define KX_STATES	5
#define KX_ST_GUEST	0
#define KX_ST_HOST	1
#define KX_ST_VMM	2
#define KX_ST_HALT	3
#define KX_ST_WAIT	4
#define KX_ST_NONE	7	/* no state yet: before its first event */
#define KX_ST_BITS	3

/* A thread of a guest: its exit waiting for its entry (map "threads", by tid). */
struct kx_thread {
	kx_u64 start;		/* the thread's start time (task_struct.start_time) */
	kx_u64 exit_ns;		/* when the pending exit came (bpf_ktime_get_ns) */
	kx_u64 vals[KX_SLOTS];	/* its slots */
	kx_u64 comp[KX_SLOTS];	/* its object's companion's slots */
	kx_u16 exit_type;	/* its event id */
	kx_u16 comp_type;	/* 0: no companion came */
	kx_u8 pending;
	kx_u8 ended;		/* the thread exited: the loader reads it once more, then deletes it */
	kx_u8 pad[2];
	kx_u32 tgid;		/* its process */
	kx_u32 cpu;		/* the CPU of its last KVM event */
	kx_u32 pad2;
	char comm[16];		/* its name, and its process's, when it was first seen */
	char leader[16];
	kx_u64 ip;		/* the pending exit's guest IP, where it is a sample */
	kx_u64 since;		/* its exits since its last sample */
	kx_u64 weight;		/* the exits the pending sample stands for */
	kx_u32 sampled;		/* the pending exit is a sample (struct kx_sample) */
	kx_u32 on_cpu;		/* KX_ST_HOST or KX_ST_VMM: where it goes when it gets a CPU back */
	kx_u64 st;		/* since << KX_ST_BITS | state */
	kx_u64 tacc[2][KX_STATES];	/* ns in each state, per interval parity, since it was first seen */
	kx_u64 pend[KX_STATES];	/* ns in each state since the pending exit */
	kx_s32 wait_cpu;	/* the CPU whose queue it waits on, -1: it does not wait */
	kx_u32 pad4;
	kx_u64 steal_at;	/* its wait given out to who ran there up to here */
	kx_u64 ev[KX_EVENTS];	/* its events, each since it was first seen */
	kx_u64 sub[KX_SUBS];	/* its userspace exits, by reason */
};

/* Exits counted as they come (map "exits"), by thread, interval and reason. */
struct kx_exit_key {
	kx_u32 tid;
	kx_u16 type;		/* the exit event's id */
	kx_u8 epoch;		/* the interval's parity (kx_epoch) */
	kx_u8 pad;
	kx_u64 start;
	kx_u64 vals[KX_SLOTS];
};

/* Exits whose entry came, with their object (map "lats"). */
struct kx_lat_key {
	struct kx_exit_key x;
	kx_u16 comp_type;
	kx_u16 pad[3];
	kx_u64 comp[KX_SLOTS];
};

/*
 * The latencies of a lat key's exits: count, sum (128 bits), min, max,
 * and for the spread the sum and the sum of squares of their distances
 * from the first one (shift), so nothing cancels.
 */
struct kx_lat {
	kx_u64 n;
	kx_u64 sum;
	kx_u64 sum_hi;
	kx_u64 min;
	kx_u64 max;
	kx_u64 shift;
	kx_s64 dsum;
	kx_u64 sq;
	kx_u64 sq_hi;
};

/*
 * A lat key's exits split by where their thread was meanwhile: the time
 * on a CPU (host or VMM) as a latency of its own, with its buckets
 * (kx_bucket_key.kind KX_B_HANDLING); runnable off a CPU, asleep.
 */
struct kx_lats {
	struct kx_lat lat;
	struct kx_lat handling;
	kx_u64 preempted;
	kx_u64 blocked;
};

/* A histogram bucket of a lat key (map "buckets"): hist.c's octave * HIST_SUB + sub. */
#define KX_B_LAT	0
#define KX_B_HANDLING	1
struct kx_bucket_key {
	struct kx_lat_key l;
	kx_u32 bucket;
	kx_u32 kind;		/* KX_B_LAT, KX_B_HANDLING */
};

/*
 * Every event counted (map "events"), by thread, interval, event id and
 * sub-reason; the two types below count exits that had no entry and
 * entries that had no exit.
 */
#define KX_UNMATCHED_EXIT	0xfffe
#define KX_UNMATCHED_ENTRY	0xffff
struct kx_event_key {
	kx_u32 tid;
	kx_u16 type;
	kx_u8 epoch;
	kx_u8 pad;
	kx_u64 start;
	kx_u64 sub;
};

/* The maps, as kx_full counts the updates each refused (full). */
enum kx_map {
	KX_MAP_THREADS,
	KX_MAP_EXITS,
	KX_MAP_LATS,
	KX_MAP_BUCKETS,
	KX_MAP_EVENTS,
	KX_MAP_STEAL,
	KX_MAP_NR,
};

/*
 * Per CPU, the programs busy in each interval's parity, a cache line
 * each; CPUs past KX_CPUS share slots (still exact: the counts are atomic).
 */
#define KX_CPUS		4096
struct kx_busy {
	kx_u64 n[2];
	kx_u64 pad[6];
};

/*
 * Every kx_every'th exit of a thread (the loader sets it each interval to
 * keep within --bpf-samples) is a sample: written to the ring buffer "samples"
 * at its entry (or when it is known to get none, lat KX_NO_LAT) with its
 * fields, guest IP and object, and the number of exits it stands for (its
 * own and those since the thread's last sample), so IP counts stay exits.
 */
#define KX_NO_LAT	(~0ull)
struct kx_sample {
	kx_u32 tid;
	kx_u16 type;		/* the exit event's id */
	kx_u16 comp_type;	/* 0: no companion came */
	kx_u64 start;
	kx_u64 exit_ns;
	kx_u64 lat;
	kx_u64 ip;
	kx_u64 weight;
	kx_u32 cpu;
	kx_u32 pad;
	kx_u64 vals[KX_SLOTS];
	kx_u64 comp[KX_SLOTS];
};

/*
 * Stolen time: while a thread waits on a CPU's queue, who ran on that
 * CPU.  Each CPU keeps, as it switches while any thread waits, its last
 * KX_STRETCHES stretches (who ran there until when: each began where the
 * one before ended) and who runs now since when; a wait that ends (or an
 * interval's cut) gives its time to the stretches it spans, and what the
 * log no longer holds to KX_THIEF_UNSEEN.  Map "cpus", by CPU; map
 * "steal", by waiting thread, interval and thief.
 */
#define KX_STRETCHES	16
#define KX_THIEF_UNSEEN	0xffffffffu
struct kx_stretch {
	kx_u64 end;
	kx_u32 tid;
	kx_u32 pad;
	char comm[16];
};

struct kx_cpu {
	kx_u64 since;		/* its current thread got it then */
	kx_u32 tid;
	kx_u32 head;		/* the log's next slot (mod KX_STRETCHES) */
	char comm[16];
	struct kx_stretch log[KX_STRETCHES];
};

/*
 * A share of a wait (steal_split()): ns to thread tid, of the CPU's log
 * slot slot (KX_STRETCHES: the CPU's current thread; KX_STRETCHES + 1:
 * unseen, no thread known).
 */
struct kx_give {
	kx_u64 ns;
	kx_u32 tid;
	kx_u32 slot;
};

struct kx_steal_key {
	kx_u32 tid;		/* the waiting thread */
	kx_u32 thief;		/* who ran, KX_THIEF_UNSEEN: not known */
	kx_u8 epoch;
	kx_u8 pad[7];
	kx_u64 start;		/* the waiting thread's start time */
};

struct kx_steal {
	kx_u64 ns;
	char comm[16];		/* the thief's name, as it ran */
};

/*
 * The loader's cut at an interval's end (program kx_cut, run by
 * BPF_PROG_TEST_RUN): every thread's time up to start, the start of the
 * interval parity e, goes to the interval before.
 */
struct kx_cut {
	kx_u64 start;
	kx_u32 e;
	kx_u32 pad;
};

/* hist.c's layout: HIST_SUB_BITS (5) and its octaves */
#define KX_SUB_BITS	5

#endif
