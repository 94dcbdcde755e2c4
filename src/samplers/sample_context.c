// SPDX-License-Identifier: GPL-2.0
/*
 * Live, each VM's context (src/context/'s readers) into the model: whole
 * at each snapshot, its memory, disk and known taps between them
 * (CONTEXT_READ_MS), so a VM that ends keeps its figures up to its last
 * reading; each counter's growth is summed over the run (sample_sum.c).
 * A counter not counted from the snapshot's start on gives no rate for
 * it: unknown, never a zero.
 */
#include <string.h>

#include "samplers_priv.h"
#include "model/model.h"
#include "model/model_feed.h"

/* Did the process of reading r begin after the model's start (m->first_time)?  Not known: no. */
static bool ctx_born(const struct context *c, const struct model *m, const struct ctx_reading *r)
{
	double at;

	return context_start_ns(c, r, &at) && at > (double)m->first_time;
}

/* Each vCPU thread's node (its ctx_node) and the share of the VM's vCPU time on main, into r. */
static void ctx_vcpu_nodes(struct context *c, struct vm *vm, int main, struct ctx_reading *r)
{
	uint64_t run = 0, on_main = 0, all = 0;
	bool any = false;
	struct vcpu *v;

	TAILQ_FOREACH(v, &vm->vcpus, vm_link) {
		if (ctx_numa_thread(c, vm->pid, v->tid, &v->ctx_node, &run))
			continue;
		if (v->ctx_run_ns && run >= v->ctx_run_ns && v->ctx_node >= 0) {
			all += run - v->ctx_run_ns;
			on_main += v->ctx_node == main ? run - v->ctx_run_ns : 0;
			any = true;
		}
		v->ctx_run_ns = run;
	}
	if (main >= 0 && any && all)
		ctx_set(r, CTX_LOCAL_PCT, 100.0 * (double)on_main / (double)all);
}

/*
 * Is the VMM of reading r gone, or going?  A process that exits loses its
 * memory first (status has no VmRSS from then on) and its /proc files
 * last: one whose memory cannot be read is read as gone, so its figures
 * stay those of its last whole reading and no figure carried from before
 * (RAM, NUMA) makes it look read now.
 */
static bool ctx_gone(struct ctx_reading *r)
{
	if (!(r->known & (1u << CTX_RSS)))
		r->known = 0;
	return !r->known;
}

/*
 * VM vm read whole into r at now: the readers' table, its huge pages,
 * RAM and NUMA at their slow cadence (the last ones meanwhile), its
 * vCPUs' nodes.
 */
static void ctx_read_whole(struct context *c, struct vm *vm, struct ctx_reading *r, uint64_t now)
{
	struct vm_ctx *x = &vm->ctx;

	ctx_reading_init(r);
	context_read_pid(c, vm->pid, r);
	if (ctx_gone(r))
		return;
	/* smaps_rollup walks page tables: at a slower cadence, the last share meanwhile */
	if (!x->huge_at || now - x->huge_at >= CTX_HUGE_EVERY_NS) {
		ctx_proc_huge(c, vm->pid, r);
		ctx_numa_memory(c, vm->pid, r);
		memcpy(x->node_bytes, r->node_bytes, sizeof(x->node_bytes));
		x->nr_nodes = r->nr_nodes;
		x->huge_at = now;
	} else {
		/* the last reading's RAM, huge pages and memory per node stand */
		if (x->levels & (1u << CTX_HUGE))
			ctx_set(r, CTX_HUGE, x->val[CTX_HUGE]);
		if (x->levels & (1u << CTX_RAM))
			ctx_set(r, CTX_RAM, x->val[CTX_RAM]);
		r->ram_cmdline = x->ram_cmdline;
	}
	ctx_vcpu_nodes(c, vm, ctx_numa_main(x->node_bytes, x->nr_nodes, r), r);
}

/* VM vm's memory, disk and the taps it held at its last whole reading, into r. */
static void ctx_read_quick(struct context *c, struct vm *vm, struct ctx_reading *r)
{
	const struct vm_ctx *x = &vm->ctx;
	char name[CTX_TAPS][CTX_IFNAMSIZ];
	int k, n = 0;

	ctx_reading_init(r);
	ctx_proc_memory(c, vm->pid, r);
	ctx_proc_io(c, vm->pid, r);
	for (k = 0; k < x->nr_tap_rows && n < CTX_TAPS; k++)
		if (x->taps[k].held)
			memcpy(name[n++], x->taps[k].name, CTX_IFNAMSIZ);
	ctx_net_known(c, (const char (*)[CTX_IFNAMSIZ])name, n, x->taps_cut, r);
}

/*
 * VM vm at now: read whole (whole, or never read before) or its memory,
 * disk and known taps alone, into its sums.  Its reading r, for the
 * snapshot.
 */
static void ctx_read_vm(struct context *c, struct model *m, struct vm *vm, struct ctx_reading *r, uint64_t now,
			bool whole, bool at_start)
{
	struct vm_ctx *x = &vm->ctx;

	whole = whole || !x->prev_at;
	if (whole) {
		/* who it is: read at its first reading, again when libvirt's files change */
		if (c->dir_sig_at != now) {
			c->dir_sig = ctx_ident_dir(c);
			c->dir_sig_at = now;
		}
		ctx_ident_vm(c, vm->pid, vm->name, &vm->ident, c->dir_sig);
		ctx_read_whole(c, vm, r, now);
	} else {
		ctx_read_quick(c, vm, r);
	}
	if (ctx_gone(r))
		return;		/* gone: its figures stay those of its last reading */
	if (!x->prev_at) {
		x->born = ctx_born(c, m, r);
		/* where the source does not say: from its process's start, as /proc tells it */
		if (vm->counted_from == MODEL_FROM_UNKNOWN)
			vm->counted_from = x->born ? MODEL_FROM_BIRTH : at_start ? MODEL_FROM_START : MODEL_FROM_FOUND;
	}
	sample_sum_reading(x, r, now, x->born, at_start, whole);
	/* its threads: what their exit records are measured from (sample_ends.c) */
	sample_sum_threads(x, r);
	x->threads_at = r->nr_thr >= 0 ? now : x->threads_at;
	if (whole) {
		x->ram_cmdline = r->ram_cmdline;
		x->nr_taps = r->nr_taps;
	}
}

/* A tap's end rtnetlink told of (ctx: the model): into its VM's sums, marked where it was lost. */
static void ctx_tap_end(void *ctx, int owner, const char *name, const uint64_t *final, const uint64_t *at_birth)
{
	struct model *m = ctx;
	struct vm *vm = RB_FIND(vm_tree, &m->vms, &(struct vm){ .pid = owner });

	if (!vm)
		return;		/* gone from the model: nothing left to add to */
	if (final)
		sample_sum_tap_end(&vm->ctx, name, final, at_birth);
	else
		sample_sum_tap_lost(&vm->ctx, name);
}

/*
 * The taps' births and ends up to now into the VMs (at_start: rtnetlink
 * opened); taps born with no VMM known: each known VM's fds looked at
 * now, while they are held.  What the user is to be told, in s->notice.
 */
static void ctx_links(struct samplers *s, struct model *m, bool at_start)
{
	struct context *c = &s->ctx;
	struct vm *vm;

	if (ctx_net_links(c, at_start, ctx_tap_end, m))
		RB_FOREACH(vm, vm_tree, &m->vms)
			if (!vm->kernel && vm->pid > 0 && !vm->exited)
				ctx_net_claim(c, vm->pid);
	if (!s->notice[0])
		context_net_news(c, s->notice, sizeof(s->notice));
}

/* Is VM pid's process still there? */
static bool ctx_alive(void *ctx, int pid)
{
	return ident_alive(ctx, pid);
}

/* Between snapshots (and at the start): the VMs read, or -1 (no memory). */
static int ctx_tick(struct samplers *s, struct model *m, uint64_t now, bool at_start)
{
	struct context *c = &s->ctx;
	bool due = at_start || now >= s->ctx_at;
	struct ctx_reading r;
	struct vm *vm;
	int n = 0;

	if (due) {
		s->ctx_at = now + CONTEXT_READ_MS * 1000000ull;
		if (model_mark_ended(m, ctx_alive, (void *)s->proc, now))
			return -1;
	}
	context_host(c, at_start);
	/* the taps' births and ends first: a VM's first reading knows its taps' */
	ctx_links(s, m, at_start);
	if (at_start) {
		ctx_reading_init(&r);
		ctx_psi_host(c, &r);
		sample_sum_reading(&m->host_ctx, &r, now, false, true, false);
	}
	RB_FOREACH(vm, vm_tree, &m->vms) {
		if (vm->kernel || vm->pid <= 0 || vm->exited || (!due && vm->ctx.prev_at))
			continue;
		ctx_read_vm(c, m, vm, &r, now, at_start, at_start);
		n++;
	}
	return n;
}

/* At a snapshot's end (now): the VMs read, or -1 (no memory). */
static int ctx_snapshot(struct samplers *s, struct model *m, uint64_t now)
{
	double secs = now > m->interval_start ? (double)(now - m->interval_start) / 1e9 : 0;
	struct context *c = &s->ctx;
	struct ctx_reading r;
	int n = 0;
	struct vm *vm;

	/* VMs that ended go, once their last figures were shown; those that ended now are marked */
	if (model_reap(m, ctx_alive, (void *)s->proc, now))
		return -1;
	context_host(c, true);
	/* taps that ended up to now: in this snapshot */
	ctx_links(s, m, false);
	ctx_reading_init(&r);
	ctx_psi_host(c, &r);
	sample_sum_reading(&m->host_ctx, &r, now, false, false, false);
	sample_sum_snapshot(c, &m->host_ctx, r.known, false, secs);
	RB_FOREACH(vm, vm_tree, &m->vms) {
		if (vm->kernel)
			continue;
		/* a VM that ended: its figures up to its last reading */
		if (vm->exited || vm->pid <= 0) {
			sample_sum_snapshot(c, &vm->ctx, 0, true, secs);
			continue;
		}
		ctx_read_vm(c, m, vm, &r, now, true, false);
		sample_sum_snapshot(c, &vm->ctx, r.known, !r.known, secs);
		n++;
	}
	return n;
}

int sample_context(struct samplers *s, struct model *m, uint64_t now, enum sample_when when)
{
	if (when == SAMPLE_SNAP)
		return ctx_snapshot(s, m, now);
	return ctx_tick(s, m, now, when == SAMPLE_START);
}
