// SPDX-License-Identifier: GPL-2.0
/*
 * Live, the threads' ends (samplers_priv.h): the kernel's exit record of
 * a thread (ident/taskstats.h) says its own counters at its end.  What a
 * VMM's thread did since its last reading goes into its VM's sums:
 *
 * - its disk bytes and major faults, measured from the thread's own io
 *   and stat read with the process's (vm_ctx's threads), and into what
 *   the process's counters were last read as, so the next reading of a
 *   VMM that lives on does not count them again (the process's io and
 *   stat keep a gone thread's share); its peak resident memory, the
 *   process's.  Not its read and write calls: the record rounds them down
 *   to a multiple of 1024 (the kernel's xacct_add_tsk()), so they run to
 *   the last reading.
 * - its time on a CPU and waiting for one (delay accounting's sums, which
 *   are schedstat's), into its group (emulator, vhost), measured from the
 *   group's last reading (model_group_end()).
 *
 * A VM whose threads' ends were all counted so counts to its end
 * (vm_counted_to exact); a record that could not be, or the socket's
 * overrun, marks its end as read (vm->end_lost).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samplers_priv.h"
#include "model/model.h"
#include "model/model_feed.h"
#include "model/model_time.h"
#include "model/model_view.h"

/* Records read from the socket at a time. */
#define ENDS_BATCH	64

/*
 * The ends of a process's threads that came before any VM of it was known
 * (a VMM's start: its helpers end before its vCPUs run): their time on a
 * CPU and waiting, by group, until its VM is known and was read once (so
 * whether it began after kvmtop is known).
 */
struct ends_pending {
	int tgid;
	uint64_t at;			/* the last record's, the samplers' clock */
	uint64_t run[TG_NR];
	uint64_t wait[TG_NR];
	bool lost;			/* a record without delay accounting's sums */
};

/* A thread's counter k is VM figure ends_fig[k]. */
static const enum vm_ctx_fig ends_fig[CTX_THR_NR] = {
	[CTX_THR_RD] = CTX_RD_BPS, [CTX_THR_WR] = CTX_WR_BPS, [CTX_THR_MAJFLT] = CTX_MAJFLT,
};

static int ends_tid_cmp(const void *key, const void *t)
{
	int x = *(const int *)key, y = ((const struct ctx_thread *)t)->tid;

	return (x > y) - (x < y);
}

/*
 * Thread e of VM x that ended: its counters' growth since its last
 * reading (from, NULL: it began since) into x's sums and last-read
 * counters.  False where a counter went back (another thread with its
 * tid): nothing added.
 */
static bool ends_add(struct vm_ctx *x, const struct ts_exit *e, const struct ctx_thread *from)
{
	uint64_t v[CTX_THR_NR];
	int k;

	v[CTX_THR_RD] = e->read_bytes;
	v[CTX_THR_WR] = e->write_bytes;
	v[CTX_THR_MAJFLT] = e->majflt;
	for (k = 0; k < CTX_THR_NR; k++)
		if (from && v[k] < from->ctr[k])
			return false;
	for (k = 0; k < CTX_THR_NR; k++) {
		uint64_t d = v[k] - (from ? from->ctr[k] : 0);

		if (!(x->prev_known & (1u << ends_fig[k])))
			continue;
		x->sum[ends_fig[k]] += d;
		x->prev[ends_fig[k]] += d;
	}
	return true;
}

/*
 * Thread e of VM vm that ended, into its context (read_at: vm was read
 * then, just now, or 0).  False where it could not be counted.
 */
static bool ends_context(struct vm *vm, const struct ts_exit *e, uint64_t read_at)
{
	struct vm_ctx *x = &vm->ctx;
	struct ctx_thread *t = NULL;
	size_t i;

	if (!x->prev_at)
		return true;	/* never read: its first reading counts what it did (born), or says found */
	if (!x->threads_at)
		return false;	/* its threads not read: from where is not known */
	/* its memory's peak, the process's, whenever it ended (a kernel thread has none) */
	if (e->hiwater_rss && (x->levels & (1u << CTX_RSS_PEAK)) && (double)e->hiwater_rss > x->val[CTX_RSS_PEAK])
		x->val[CTX_RSS_PEAK] = (double)e->hiwater_rss;
	if (x->threads)
		t = bsearch(&e->pid, x->threads, (size_t)x->nr_threads, sizeof(*t), ends_tid_cmp);
	if (!t && x->threads_cut)
		return false;	/* not kept: from where is not known */
	if (!t && x->threads_at == read_at)
		return true;	/* ended before the reading just made, which counted it */
	if (!ends_add(x, e, t))
		return false;
	if (t) {
		/* gone: its tid may come back as another thread */
		x->nr_threads--;
		for (i = (size_t)(t - x->threads); i < (size_t)x->nr_threads; i++)
			x->threads[i] = x->threads[i + 1];
	}
	return true;
}

/*
 * Thread e of VM vm that ended, into its group: a vCPU thread whose
 * states come from /proc cannot be (the record has no guest time to split
 * its end by).  False where it could not be counted.
 */
static bool ends_group(struct model *m, struct vm *vm, const struct ts_exit *e)
{
	const struct vcpu *v = model_find_vcpu(m, e->pid);
	bool vhost = !strncmp(e->comm, "vhost-", 6);

	if (!m->proc_time)
		return true;	/* no groups read */
	if (v && !v->vmm)
		return !(v->proc_at && !(model_time_known(m) & TIME_SPLIT));
	if (!vhost && ident_kernel_comm(e->comm))
		return true;	/* KVM's own worker: host work, no group's */
	if (!e->sched)
		return false;
	/* a VM born after kvmtop: so was each of its threads */
	return model_group_end(vm, vhost ? TG_VHOST : TG_EMULATOR, e->pid, e->run_ns, e->wait_ns, vm->ctx.born);
}

/* Thread e of process tgid, no VM yet, kept for its VM (now: the samplers' clock). */
static void ends_keep(struct samplers *s, const struct ts_exit *e, int tgid, uint64_t now)
{
	struct ends_pending *p = NULL, *oldest = NULL;
	size_t i;
	int g = !strncmp(e->comm, "vhost-", 6) ? TG_VHOST : TG_EMULATOR;

	if (!s->pending || ident_kernel_comm(e->comm))
		return;
	for (i = 0; i < s->nr_pending && !p; i++)
		if (s->pending[i].tgid == tgid)
			p = &s->pending[i];
	if (!p && s->nr_pending < SAMPLERS_PENDING) {
		p = &s->pending[s->nr_pending++];
		memset(p, 0, sizeof(*p));
	}
	for (i = 0; i < s->nr_pending && !p; i++)
		if (!oldest || s->pending[i].at < oldest->at)
			oldest = &s->pending[i];
	if (!p) {
		/* the one heard of longest ago goes: its VM, if it becomes one, is marked not exact */
		s->cut[s->nr_cut++ % SAMPLERS_CUT] = oldest->tgid;
		p = oldest;
		memset(p, 0, sizeof(*p));
	}
	p->tgid = tgid;
	p->at = now;
	p->run[g] += e->run_ns;
	p->wait[g] += e->wait_ns;
	p->lost = p->lost || !e->sched;
}

/* The processes whose kept ends were let go for room: their VMs, when known, are not exact. */
static void ends_cut(struct samplers *s, struct model *m)
{
	struct vm *vm;
	size_t i;

	for (i = 0; i < SAMPLERS_CUT && i < s->nr_cut; i++) {
		if (!s->cut[i])
			continue;
		vm = RB_FIND(vm_tree, &m->vms, &(struct vm){ .pid = s->cut[i] });
		if (!vm)
			continue;
		vm->end_lost = true;
		s->cut[i] = 0;
	}
}

/*
 * The kept ends of processes whose VM is now known and was read once:
 * into its groups, whole where it began after kvmtop (else its end is not
 * exact); those kept longer than SAMPLERS_PENDING_NS let go.
 */
static void ends_pending(struct samplers *s, struct model *m, uint64_t now)
{
	size_t i = 0;
	int g;

	while (i < s->nr_pending) {
		struct ends_pending *p = &s->pending[i];
		struct vm *vm = RB_FIND(vm_tree, &m->vms, &(struct vm){ .pid = p->tgid });

		if ((!vm || !vm->ctx.prev_at) && now - p->at < SAMPLERS_PENDING_NS) {
			i++;
			continue;
		}
		for (g = 0; vm && !vm->kernel && !vm->rest && g < TG_NR; g++)
			if ((p->run[g] || p->wait[g]) &&
			    (p->lost || !model_group_end(vm, g, 0, p->run[g], p->wait[g], vm->ctx.born)))
				vm->end_lost = true;
		*p = s->pending[--s->nr_pending];
	}
	ends_cut(s, m);
}

/* Record e into the VM it was a thread of (read_at as ends_context()'s; now: the samplers' clock). */
static void ends_record(struct samplers *s, struct model *m, const struct ts_exit *e, uint64_t read_at,
			uint64_t now)
{
	int pid = e->tgid;
	struct vm *vm;
	size_t k;

	/* a vhost kernel thread (before Linux 6.4) is a process of its own: its VM by name */
	for (k = 0; k < s->nr_vk; k++)
		if (s->vk_tid[k] == e->pid)
			pid = s->vk_pid[k];
	if (pid <= 0)
		return;
	vm = RB_FIND(vm_tree, &m->vms, &(struct vm){ .pid = pid });
	/* a thread of a process that lives on, no VM yet: kept for the VM it may become */
	if (!vm && e->pid != e->tgid && pid == e->tgid)
		ends_keep(s, e, pid, now);
	if (!vm || vm->kernel || vm->rest)
		return;
	/* its process's last thread: every record of it came before its process left /proc */
	if (e->group_dead || e->pid == e->tgid)
		vm->end_seen = true;
	if ((pid == e->tgid && !ends_context(vm, e, read_at)) || !ends_group(m, vm, e))
		vm->end_lost = true;
}

/* The socket opened at the run's start: the host's own /proc only (a tree's pids are not the kernel's). */
static void ends_open(struct samplers *s, struct model *m)
{
	if (strcmp(s->ctx.proc, "/proc")) {
		snprintf(s->ts_why, sizeof(s->ts_why), "--proc: a tree's pids are not the kernel's");
		return;
	}
	m->exit_records = !taskstats_open(&s->ts, NULL, s->ts_why, sizeof(s->ts_why));
	s->pending = m->exit_records ? calloc(SAMPLERS_PENDING, sizeof(*s->pending)) : NULL;
	/* each VMM thread's own counters: what its exit record is measured from */
	s->ctx.read_threads = m->exit_records;
}

/* After a drop (the socket overran): any VM that has not ended may have lost a record. */
static void ends_dropped(struct samplers *s, struct model *m)
{
	struct vm *vm;

	RB_FOREACH(vm, vm_tree, &m->vms)
		if (!vm->exited)
			vm->end_lost = true;
	if (!m->exits_dropped)
		snprintf(s->notice, sizeof(s->notice), "the kernel dropped threads' exit records (taskstats' "
			 "socket overran): VMs that end now count to their last reading");
	m->exits_dropped = s->ts.drops;
}

/* The first VM that ended and counts to its last reading for want of exit records: why, once. */
static void ends_say(struct samplers *s, struct model *m)
{
	struct vm *vm;

	if (s->ts_said || m->exit_records || s->notice[0])
		return;
	RB_FOREACH(vm, vm_tree, &m->vms)
		if (vm->exited && vm->counted_to == MODEL_TO_READ && !vm->rest) {
			s->ts_said = true;
			snprintf(s->notice, sizeof(s->notice), "VM %d ended: its figures run to its last reading, "
				 "not to its end (no exit records: %s)", vm->pid, s->ts_why);
			return;
		}
}

/* The records waiting, into their VMs (read_at as ends_context()'s; now: the samplers' clock): how many. */
static int ends_drain(struct samplers *s, struct model *m, uint64_t read_at, uint64_t now)
{
	struct ts_exit e[ENDS_BATCH];
	size_t n, i;
	int all = 0;

	do {
		n = taskstats_drain(&s->ts, e, ENDS_BATCH);
		for (i = 0; i < n; i++)
			ends_record(s, m, &e[i], read_at, now);
		all += (int)n;
	} while (n == ENDS_BATCH);
	if (s->ts.drops != m->exits_dropped)
		ends_dropped(s, m);
	ends_pending(s, m, now);
	return all;
}

int sample_ends(struct samplers *s, struct model *m, uint64_t now, enum sample_when when)
{
	if (when == SAMPLE_START)
		ends_open(s, m);
	return ends_drain(s, m, 0, now);
}

int sample_ends_read(struct samplers *s, struct model *m, uint64_t now, enum sample_when when)
{
	int n = ends_drain(s, m, now, now);

	(void)when;
	ends_say(s, m);
	return n;
}
