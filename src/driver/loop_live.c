// SPDX-License-Identifier: GPL-2.0
/*
 * The live loop: this host's source read every tick, a snapshot every
 * -d seconds of wall time (or one at the end with --summary), the
 * screen's keys, the workload (the demo guest) started once the source
 * is open and watched until it ends, --duration's end of the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "driver_priv.h"
#include "util/clock.h"
#include "model/model_feed.h"

/* What only the live loop keeps. */
struct live {
	struct driver *drv;
	uint64_t step;			/* ns between snapshots */
	uint64_t next;			/* when the next one is due */
	bool timed;			/* snapshots as time goes on (not --summary) */
	unsigned long threads_gen;	/* the model's vcpus_gen the source was last told */
	unsigned long times_gen;	/* ... at the last /proc reading of new threads */
	bool unfiltered_said;
	pid_t workload;			/* -1: none running */
	bool workload_done;		/* it ended by itself */
	uint64_t until;			/* --duration: the run ends then, 0: never */
	bool expired;			/* ... and it did: the end of the input */
};

/* One decoded event into the model: 0, or -1 (no memory). */
static int live_record(struct tep_record *rec, void *ctx)
{
	struct driver *drv = ctx;
	struct kvm_event ev;
	int ret = driver_decode(drv, rec, &ev);

	if (ret <= 0)
		return ret;
	if (model_feed(drv->m, &ev)) {
		drv->nomem = true;
		return -1;
	}
	return 0;
}

/*
 * The vCPU threads came or went: tell the source their tids and their
 * VMs' pids, which narrows what it traces to them (the VMs' threads in
 * the sched events' instance, or the filters of older kernels).  0 or -1.
 */
static int follow_threads(struct live *l)
{
	struct driver *drv = l->drv;
	size_t n = 0, np = 0, nv = 0;
	struct vcpu *v;
	struct vm *vm;
	int *tids, *pids, ret;

	RB_FOREACH(vm, vm_tree, &drv->m->vms)
		nv++;
	tids = calloc(drv->m->nr_vcpus ? drv->m->nr_vcpus : 1, sizeof(*tids));
	pids = calloc(nv ? nv : 1, sizeof(*pids));
	if (!tids || !pids) {
		free(tids);
		free(pids);
		driver_fail(drv, "out of memory");
		return -1;
	}
	/* the tree is in tid order */
	RB_FOREACH(v, vcpu_tree, &drv->m->vcpus)
		if (!v->vm->kernel && !v->vmm)
			tids[n++] = v->tid;
	/* the tree is in pid order too */
	RB_FOREACH(vm, vm_tree, &drv->m->vms)
		if (!vm->kernel && !vm->exited && vm->pid > 0)
			pids[np++] = vm->pid;
	ret = drv->ops->threads(&drv->src, tids, n, pids, np);
	free(tids);
	free(pids);
	if (ret < 0) {
		driver_fail(drv, "cannot trace the sched events of the %zu vCPU threads of %zu VMs: %s",
			    n, np, strerror(errno));
		return -1;
	}
	if (ret > 0 && !l->unfiltered_said) {
		l->unfiltered_said = true;
		driver_notice(drv, "%zu vCPU threads do not fit a kernel event filter: every context switch is traced", n);
	}
	l->threads_gen = drv->m->vcpus_gen;
	return 0;
}

/* What the source has up to now: 0, 1 (stop), -1 (said why). */
static int live_pull(struct live *l)
{
	struct driver *drv = l->drv;
	uint64_t lost = drv->m->lost_events.total;
	size_t kb;

	if (!drv->ops->read || drv->done)
		return 0;
	if (driver_read(drv, live_record, drv) < 0)
		return -1;
	if (drv->stop)
		return 1;
	if (drv->ops->threads && drv->m->vcpus_gen != l->threads_gen && follow_threads(l))
		return -1;
	/*
	 * --summary: new threads' /proc figures start now, not at the end,
	 * and so do a new VM's groups (emulator, vhost: known from their
	 * second reading, the end's).  Intervals start them at the next
	 * snapshot, so every interval a thread has figures for is whole.
	 */
	if (drv->c->summary && drv->m->vcpus_gen != l->times_gen) {
		if (driver_samplers(drv, clock_mono_ns(), SAMPLE_NEW))
			return -1;
		l->times_gen = drv->m->vcpus_gen;
	}
	/* losses are counted in the output; make them less likely */
	if (drv->m->lost_events.total > lost && !drv->c->source.buffer_kb && drv->ops->grow &&
	    (kb = drv->ops->grow(&drv->src)))
		driver_notice(drv, "%" PRIu64 " events lost: trace buffers grown to %zu KiB per CPU",
			      drv->m->lost_events.total - lost, kb);
	return 0;
}

/* The workload ended: 0, 1 (stop), -1 (it failed, said why). */
static int workload_check(struct live *l)
{
	struct driver *drv = l->drv;
	int st;

	if (l->workload <= 0 || !driver_child_sig || !drv->c->workload->ended(l->workload, &st))
		return 0;
	l->workload = -1;
	l->workload_done = true;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		driver_fail(drv, "the demo guest failed (status %d)", st);
		return -1;
	}
	if (!drv->screen)
		return 1;
	driver_notice(drv, "the demo guest ended");
	return 0;
}

/*
 * Where an interval taken at now ends: where the source's last read
 * stopped, when it says so.  Events between that and now are still in
 * the kernel's buffers (kvmtop may have waited for a CPU after reading):
 * an interval that ended at now would count a vCPU switched out in that
 * gap as still running, and the next interval would start it waiting.
 */
static uint64_t live_end(const struct live *l, uint64_t now)
{
	uint64_t to = l->drv->src.read_to;

	return to > l->drv->m->interval_start && to < now ? to : now;
}

/*
 * A snapshot falls due while its drain ran: that drain read up to when it
 * began, before the deadline, and an interval ending there would end early
 * by the drain's length (a slow or loaded host: 50 ms and more).  One more
 * drain, begun after the deadline, reads on past it.  0, or -1 (said why).
 */
static int live_catch_up(struct live *l, uint64_t *now)
{
	struct driver *drv = l->drv;

	if (!drv->src.read_to || drv->src.read_to >= l->next || *now < l->next)
		return 0;
	if (live_pull(l) < 0)
		return -1;
	*now = clock_mono_ns();
	return 0;
}

/* Keys, a due snapshot, counters sampled: 0 (go on), 1 (stop), -1 (said why). */
static int live_tick(struct live *l, uint64_t now)
{
	struct driver *drv = l->drv;
	bool now_please;
	int act;

	act = driver_keys(drv, now);
	if (act < 0)
		return -1;
	if (act & VIEW_QUIT)
		return 1;
	if (act & VIEW_RESET)
		model_reset(drv->m, now);
	if (act & VIEW_DELAY) {
		l->step = (uint64_t)llround(drv->v->delay * 1e9);
		l->next = now + l->step;
	}
	now_please = act & (VIEW_REFRESH | VIEW_RESET);
	/* VMs that live a few seconds: found between the samples, their context read meanwhile */
	if (driver_discover(drv, now) || driver_samplers(drv, now, SAMPLE_TICK))
		return -1;
	/* --summary of counters: read them each delay all the same, so VMs that come and go count */
	if (!l->timed && drv->ops->sample && now >= l->next) {
		if (driver_sample(drv))
			return -1;
		l->next = now + l->step;
	}
	if (!l->timed || (now < l->next && !now_please))
		return 0;
	if (live_catch_up(l, &now))
		return -1;
	if (driver_snapshot(drv, drv->m->interval_start, live_end(l, now), false, 0))
		return drv->failed ? -1 : 1;
	l->next += l->step;
	if (l->next <= now || now_please)	/* fell behind: do not print a burst */
		l->next = now + l->step;
	return 0;
}

/* Until a stop: 0, or -1 (said why). */
static int live_loop(struct live *l)
{
	struct driver *drv = l->drv;
	uint64_t now = clock_mono_ns();
	int ret;

	l->next = now + l->step;
	if (drv->c->duration)
		l->until = now + (uint64_t)llround(drv->c->duration * 1e9);
	if (driver_view_up(drv))
		return -1;
	/* the VMs there are now (a counter source's), their context: what the first snapshot's rates grow from */
	if (driver_discover(drv, now) || driver_samplers(drv, now, SAMPLE_START))
		return -1;
	while (!driver_stop_sig && !drv->stop && !drv->done) {
		uint64_t wake = now + (uint64_t)drv->tick_ms * 1000000ull;
		short rev;

		if (l->timed && l->next < wake)
			wake = l->next;
		if (l->until && l->until < wake)
			wake = l->until;
		rev = driver_wait(now, wake, drv->v->fd, context_fd(&drv->samp.ctx));

		/* the terminal went away (closed window, dead ssh): stop, as on SIGHUP */
		if (rev & (POLLHUP | POLLERR | POLLNVAL))
			break;
		/* SIGHUP with --output: the file reopened now, the next snapshot goes there */
		if (driver_reopen(drv))
			return -1;
		ret = live_pull(l);
		if (!ret) {
			now = clock_mono_ns();
			ret = workload_check(l);
		}
		/* --duration: the input ends; a snapshot due now is the last (live_last) */
		if (!ret && l->until && now >= l->until) {
			l->expired = true;
			return 0;
		}
		if (!ret)
			ret = live_tick(l, now);
		if (ret)
			return ret < 0 ? -1 : 0;
	}
	return 0;
}

/* The workload or --duration ended, or --summary: the last figures, up to now.  0, or -1 (said why). */
static int live_last(struct live *l)
{
	struct driver *drv = l->drv;

	if (drv->screen || drv->done || drv->stop || drv->failed ||
	    !(l->workload_done || l->expired || drv->c->summary))
		return 0;
	if (live_pull(l) < 0)
		return -1;
	model_finish(drv->m);
	if (drv->c->summary)
		drv->m->interval_start = drv->m->first_time;
	return driver_snapshot(drv, drv->m->interval_start, live_end(l, clock_mono_ns()), true, 0) < 0 ? -1 : 0;
}

/* An exporter serves the last figures until it is stopped: that is its end. */
static void live_linger(struct driver *drv)
{
	if (!drv->v->linger || drv->failed)
		return;
	while (!driver_stop_sig)
		driver_wait(0, 1000000000ull, -1, -1);
}

int loop_live(struct driver *drv)
{
	double delay = drv->c->delay ? drv->c->delay : DRIVER_DEFAULT_DELAY;
	struct live l = {
		.drv = drv, .step = (uint64_t)llround(delay * 1e9), .timed = !drv->c->summary, .workload = -1,
	};
	char err[256];
	int ret = -1;

	if (drv->c->workload) {
		l.workload = drv->c->workload->start(drv->c->workload->ctx, err, sizeof(err));
		if (l.workload < 0) {
			driver_fail(drv, "%s", err);
			return -1;
		}
	}
	if (!live_loop(&l) && !live_last(&l)) {
		live_linger(drv);
		ret = 0;
	}
	/* the terminal back before a line about the workload */
	driver_view_off(drv);
	if (l.workload > 0 && drv->c->workload->stop(l.workload))
		fprintf(stderr, "kvmtop: the demo guest did not end cleanly\n");
	return ret;
}
