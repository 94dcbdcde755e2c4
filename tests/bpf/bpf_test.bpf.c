// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf source's arithmetic (src/sources/bpf_kvm_core.h) run in the
 * kernel on the test's own numbers: programs of type syscall, which
 * BPF_PROG_TEST_RUN runs once with a context the test hands in and reads
 * back (tests/unit/test_bpf.c).  No KVM needed.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf_kvm_core.h"

char LICENSE[] SEC("license") = "GPL";

/* The latencies lat_add() keeps, and the exit rules keep_info() reads: the test sets both. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_lat);
} test_lat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_cfg);
} test_cfg SEC(".maps");

/* The thread sample_due() counts in (too large for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_thread);
} test_thread SEC(".maps");

/*
 * n exits of one thread (at most KX_TEST_EXITS a run: the test runs it
 * again for more, the thread and these counts going on), every every'th
 * a sample; the samples whose bit is set in refuse (by their order,
 * counted in k) refused as by a full ring: how many were written and the
 * exits they stood for.
 */
#define KX_TEST_EXITS	256
struct kx_test_sample {
	__u64 every;
	__u64 n;
	__u64 refuse;
	__u64 reset;		/* the first run: a new thread, the counts from 0 */
	__u64 k;
	__u64 samples;
	__u64 weights;
	__u64 since;		/* the thread's exits left after the last */
};

/*
 * A script of time-state changes (map test_states) run on one thread (test_thread): each
 * a state_to() (op 0), a state_cut() (op 1) or the pending exit set
 * (op 2: st 1 pending, 0 not), its results written back.
 */
#define KX_TEST_OPS	16
struct kx_test_op {
	__u32 op;
	__u32 st;
	__u32 before;
	__u32 only;
	__u64 now;
	__u32 e;
	__u32 left;		/* out: the state it left (KX_ST_NONE: none) */
	__u64 start;
};

struct kx_test_states {
	__u32 n;
	__u32 reset;
	struct kx_test_op op[KX_TEST_OPS];
	__u64 tacc[2][KX_STATES];	/* out */
	__u64 pend[KX_STATES];		/* out */
	__u64 st;			/* out */
};

/* the script and its results: a map value (the program walks it; a context may not be walked) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_test_states);
} test_states SEC(".maps");

/* A CPU's log and a wait to split among it (steal_split()), its shares out: map values both. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_cpu);
} test_cpu SEC(".maps");

struct kx_test_steal {
	__u64 from;
	__u64 to;
	__u32 n;
	__u32 pad;
	struct kx_give out[KX_STRETCHES + 1];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kx_test_steal);
} test_steal SEC(".maps");

struct kx_test_bucket {
	__u64 v;
	__u32 bucket;
	__u32 pad;
};

SEC("syscall")
int kx_test_bucket(struct kx_test_bucket *ctx)
{
	ctx->bucket = bucket_of(ctx->v);
	return 0;
}

SEC("syscall")
int kx_test_lat(__u64 *lat)
{
	__u32 key = 0;
	struct kx_lat *v = bpf_map_lookup_elem(&test_lat, &key);

	if (!v)
		return 1;
	lat_add(v, *lat);
	return 0;
}

SEC("syscall")
int kx_test_keep(__u64 *vals)
{
	__u32 key = 0;
	struct kx_cfg *c = bpf_map_lookup_elem(&test_cfg, &key);
	__u64 v[KX_SLOTS];
	int i;

	if (!c)
		return 1;
	for (i = 0; i < KX_SLOTS; i++)
		v[i] = vals[i];
	keep_info(c, v);
	for (i = 0; i < KX_SLOTS; i++)
		vals[i] = v[i];
	return 0;
}

SEC("syscall")
int kx_test_sample(struct kx_test_sample *ctx)
{
	__u32 key = 0;
	struct kx_thread *t = bpf_map_lookup_elem(&test_thread, &key);
	__u64 i, k;

	if (!t)
		return 1;
	if (ctx->reset) {
		t->since = 0;
		t->weight = 0;
		t->sampled = 0;
		ctx->k = 0;
		ctx->samples = 0;
		ctx->weights = 0;
	}
	for (i = 0; i < KX_TEST_EXITS && i < ctx->n; i++) {
		if (!sample_due(t, ctx->every))
			continue;
		k = ctx->k++;
		if (k < 64 && (ctx->refuse >> k & 1)) {
			sample_refused(t);
			continue;
		}
		ctx->samples++;
		ctx->weights += t->weight;
	}
	ctx->since = t->since;
	return 0;
}

SEC("syscall")
int kx_test_states(void *unused)
{
	__u32 key = 0, i, j;
	struct kx_thread *t = bpf_map_lookup_elem(&test_thread, &key);
	struct kx_test_states *ctx = bpf_map_lookup_elem(&test_states, &key);

	if (!t || !ctx)
		return 1;
	if (ctx->reset) {
		t->st = KX_ST_NONE;
		t->on_cpu = KX_ST_HOST;
		t->pending = 0;
		for (j = 0; j < KX_STATES; j++) {
			t->tacc[0][j] = 0;
			t->tacc[1][j] = 0;
			t->pend[j] = 0;
		}
	}
	for (i = 0; i < KX_TEST_OPS && i < ctx->n; i++) {
		struct kx_test_op *o = &ctx->op[i];

		if (o->op == 0)
			o->left = state_to(t, o->st, o->before, o->only, o->now, o->e, o->start);
		else if (o->op == 1)
			state_cut(t, o->e, o->start);
		else
			t->pending = (__u8)o->st;
	}
	for (j = 0; j < KX_STATES; j++) {
		ctx->tacc[0][j] = t->tacc[0][j];
		ctx->tacc[1][j] = t->tacc[1][j];
		ctx->pend[j] = t->pend[j];
	}
	ctx->st = t->st;
	return 0;
}

SEC("syscall")
int kx_test_steal(void *unused)
{
	__u32 key = 0;
	struct kx_cpu *cpu = bpf_map_lookup_elem(&test_cpu, &key);
	struct kx_test_steal *x = bpf_map_lookup_elem(&test_steal, &key);
	struct kx_give out[KX_STRETCHES + 1];
	__u32 i, n;

	if (!cpu || !x)
		return 1;
	n = steal_split(cpu, x->from, x->to, out);
	x->n = n;
	for (i = 0; i < KX_STRETCHES + 1 && i < n; i++) {
		x->out[i].ns = out[i].ns;
		x->out[i].tid = out[i].tid;
		x->out[i].slot = out[i].slot;
	}
	return 0;
}
