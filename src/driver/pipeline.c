// SPDX-License-Identifier: GPL-2.0
/*
 * What both loops share: the source opened into the decoder and the
 * model, what it has read into them, and each snapshot handed to the
 * view, with the notices and failures the view shows.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_priv.h"
#include "util/clock.h"
#include "model/model_feed.h"
#include "model/model_view.h"
#include "model/model_time.h"

void driver_view_off(struct driver *drv)
{
	if (drv->view_on)
		drv->v->ops->stop(drv->v->ctx);
	drv->view_on = false;
}

void driver_fail(struct driver *drv, const char *fmt, ...)
{
	va_list ap;

	driver_view_off(drv);
	drv->failed = true;
	fputs("kvmtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void driver_notice(struct driver *drv, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	drv->v->ops->notice(drv->v->ctx, msg);
}

int driver_view_up(struct driver *drv)
{
	struct view_source vs = {
		.name = drv->ops->name,
		.file = drv->src.file,
		.clock = drv->src.clock,
		.time_unit = drv->src.time_unit,
		.ns = drv->src.ns,
		.live = drv->src.live,
		.wall_known = drv->src.live || drv->src.wall,
		.traced = drv->src.tep != NULL || drv->src.each_event,
	};

	if (drv->view_on)
		return 0;
	if (drv->v->ops->start(drv->v->ctx, &vs, drv->m)) {
		drv->failed = true;
		return -1;
	}
	drv->view_on = true;
	/* curses may have put its own SIGINT/SIGTERM handlers in: ours again */
	driver_handlers();
	if (drv->d.notice[0])
		driver_notice(drv, "%s", drv->d.notice);
	if (drv->src.notice[0])
		driver_notice(drv, "%s", drv->src.notice);
	drv->src.notice[0] = '\0';	/* shown: a source may say more later (sample) */
	if (drv->c->notice && drv->screen)
		driver_notice(drv, "%s", drv->c->notice);
	return 0;
}

void driver_birth(struct driver *drv, const struct kvm_event *ev)
{
	/* CLONE_THREAD (linux/sched.h): a thread of its creator's process */
	ident_births_add(drv->births, ev->next_tid, ev->tid, ev->info1 & 0x00010000, ev->next_comm);
	/* a VM's new thread the kernel does not list by itself: its sched events from now on */
	if (drv->ops->born && drv->ops->born(&drv->src, ev->next_tid, ev->tid, ev->next_comm) && !drv->failed)
		driver_fail(drv, "cannot trace the sched events of thread %d: %s", ev->next_tid, strerror(errno));
}

/* Who thread tid is, as the source says, else as the host's /proc says. */
static void driver_ask(struct driver *drv, int tid, struct ident_info *out)
{
	if (drv->ops->ident)
		drv->ops->ident(&drv->src, tid, out);
	else
		ident_thread(&drv->proc, tid, out);
}

/*
 * A thread the source cannot place (gone from /proc, or in no snapshot
 * of a recording's threads) placed by its birth: its process is its
 * creator's (asked instead; a recording without a snapshot guesses the
 * creator's, so a VMM's threads stay together), or one born while
 * traced, whose pid is known even when it is gone too (then named as
 * its thread was born).
 */
static void driver_ident_born(struct driver *drv, int tid, struct ident_info *out)
{
	struct ident_info p = { .pid = 0, .vcpu_hint = -1 };
	char comm[IDENT_NAME_LEN] = "";
	bool born;
	int t = ident_births_process(drv->births, tid, &born, comm, sizeof(comm));

	if (!t)
		return;
	if (t != tid) {
		strlcpy(p.vm_name, "unknown", sizeof(p.vm_name));
		driver_ask(drv, t, &p);
	}
	if (p.pid > 0) {
		/* its creator's process, or (a recording's, no snapshot) its creator's guess */
		out->pid = p.pid;
		out->kernel = p.kernel;
		out->guessed = p.guessed;
		out->vm_ident = p.vm_ident;
		strlcpy(out->vm_name, p.vm_name, sizeof(out->vm_name));
	} else if (born) {
		out->pid = t;
		out->kernel = false;
		out->guessed = false;
		out->vm_ident = NULL;
		strlcpy(out->vm_name, comm[0] ? comm : "unknown", sizeof(out->vm_name));
	} else {
		return;
	}
	if (!out->comm[0])
		strlcpy(out->comm, comm, sizeof(out->comm));
}

/* Who thread tid is: the source says, else the host's /proc, else its birth. */
static void driver_ident(void *ctx, int tid, struct ident_info *out)
{
	struct driver *drv = ctx;

	driver_ask(drv, tid, out);
	if ((out->pid <= 0 || out->guessed) && !out->kernel)
		driver_ident_born(drv, tid, out);
	/* the vCPU id its name gives, until its events say */
	out->vcpu_id = ident_vcpu_id(out->comm);
}

int driver_samplers(struct driver *drv, uint64_t now, enum sample_when when)
{
	if (samplers_run(&drv->samp, drv->m, now, when)) {
		driver_fail(drv, "out of memory");
		return -1;
	}
	if (drv->samp.notice[0]) {
		driver_notice(drv, "%s", drv->samp.notice);
		drv->samp.notice[0] = '\0';
	}
	return 0;
}

int driver_sample(struct driver *drv)
{
	char err[512];

	if (!drv->ops->sample)
		return 0;
	if (drv->ops->sample(&drv->src, drv->m, err, sizeof(err))) {
		driver_fail(drv, "%s", err);
		return -1;
	}
	/* what the source found meanwhile (a VM it cannot read), once the view is up */
	if (drv->src.notice[0] && drv->view_on) {
		driver_notice(drv, "%s", drv->src.notice);
		drv->src.notice[0] = '\0';
	}
	return 0;
}

int driver_discover(struct driver *drv, uint64_t now)
{
	char err[512];

	if (!drv->ops->discover || now < drv->discover_at)
		return 0;
	drv->discover_at = now + SOURCE_DISCOVER_MS * 1000000ull;
	if (drv->ops->discover(&drv->src, drv->m, err, sizeof(err))) {
		driver_fail(drv, "%s", err);
		return -1;
	}
	return 0;
}

int driver_read(struct driver *drv, source_rec_fn fn, void *ctx)
{
	char err[512];
	int ret;

	driver_signals_in();
	ret = drv->ops->read(&drv->src, fn, ctx, err, sizeof(err));
	driver_signals_out();
	if (drv->failed)
		return -1;
	if (drv->nomem) {
		driver_fail(drv, "out of memory");
		return -1;
	}
	if (ret < 0) {
		driver_fail(drv, "%s", err);
		return -1;
	}
	return ret;
}

/* The model, as the view and the config ask: 0, or -1 (no memory). */
static int model_up(struct driver *drv)
{
	const struct driver_config *c = drv->c;
	struct model *m;

	/* rings and IP tables only for a view that shows them */
	m = drv->m = model_new(&drv->names, drv->v->recent ? c->ring : 0, driver_ident, drv);
	if (!m)
		return -1;
	m->live = drv->src.live;
	m->filter = c->filter;
	m->ip_slots = drv->v->ips ? c->ip_slots : 0;
	m->max_objs = c->no_objects ? 0 : c->max_objs;
	m->max_vcpus = c->max_vcpus;
	m->max_thieves = c->thieves;
	/* the metrics' stolen family counts since the start */
	m->steal_totals = c->steal_totals;
	/* the metrics' host-wide latency */
	m->host_lat_on = drv->v->totals && c->host_latency;
	/* a summary's VMs that ended stay, at most keep_ended of them one by one */
	m->keep_ended = c->summary && drv->src.live;
	m->max_ended = c->keep_ended;
	if (drv->src.live) {
		uint64_t now = drv->src.started_at ? drv->src.started_at : clock_mono_ns();

		m->have_time = true;
		m->first_time = now;
		m->interval_start = now;
		/* threads of the host: /proc says where their time goes (not debugfs' rows) */
		m->proc_time = !drv->ops->ident || drv->ops->ident_host;
	}
	return 0;
}

/*
 * The source opened, or where it cannot start, the fallback the config
 * names, with one line saying why (the view says it).  0, or -1 with
 * one line in err.
 */
static int source_open(struct driver *drv, char *err, size_t errlen)
{
	const struct source_ops *next = drv->c->fallback;
	char why[400];
	void *priv;

	if (!drv->ops->open(&drv->src, &drv->c->source, &drv->names, err, errlen))
		return 0;
	if (!next)
		return -1;
	priv = calloc(1, next->priv_size);
	if (!priv)
		return -1;
	strlcpy(why, err, sizeof(why));
	free(drv->src.priv);
	names_free(&drv->names);
	names_init(&drv->names);
	drv->ops = next;
	memset(&drv->src, 0, sizeof(drv->src));
	drv->src.ops = next;
	drv->src.tick_ms = drv->tick_ms;
	drv->src.proc = &drv->proc;
	drv->src.priv = priv;
	if (next->open(&drv->src, &drv->c->source, &drv->names, err, errlen))
		return -1;
	/* said once the view is up: the screen's message line, batch's stderr */
	snprintf(drv->src.notice, sizeof(drv->src.notice), "%s: --source %s instead", why, next->select);
	return 0;
}

int driver_open(struct driver *drv)
{
	char err[512];

	names_init(&drv->names);
	memset(&drv->src, 0, sizeof(drv->src));
	drv->src.ops = drv->ops;
	drv->src.tick_ms = drv->tick_ms;
	drv->src.proc = &drv->proc;
	drv->src.priv = calloc(1, drv->ops->priv_size);
	drv->births = ident_births_new();
	if (!drv->src.priv || !drv->births)
		goto out_nomem;
	if (source_open(drv, err, sizeof(err))) {
		driver_fail(drv, "%s", err);
		return -1;
	}
	drv->src_open = true;
	if (drv->src.tep && decode_init(&drv->d, drv->src.tep, &drv->names, err, sizeof(err))) {
		if (drv->src.file)
			driver_fail(drv, "%s: %s", drv->src.file, err);
		else
			driver_fail(drv, "%s", err);
		return -1;
	}
	if (model_up(drv))
		goto out_nomem;
	/* counters: what runs now counts from here */
	return driver_sample(drv);
out_nomem:
	driver_fail(drv, "out of memory");
	return -1;
}

void driver_close(struct driver *drv)
{
	model_free(drv->m);
	drv->m = NULL;
	decode_free(&drv->d);
	memset(&drv->d, 0, sizeof(drv->d));
	if (drv->src_open)
		drv->ops->close(&drv->src);
	drv->src_open = false;
	free(drv->src.priv);
	drv->src.priv = NULL;
	ident_births_free(drv->births);
	drv->births = NULL;
	drv->src.tep = NULL;
	names_free(&drv->names);
}

/* Is there a VM with pid, or (name non-NULL) a name matching it?  Such a VM is one shown. */
static bool vm_exists(const struct model *m, int pid, const char *name)
{
	const struct vm *vm;

	MODEL_FOREACH_VM(vm, m)
		if (name ? model_vm_called(vm, name) : vm->pid == pid)
			return true;
	return false;
}

/*
 * Each pid and name of -p and -g that no VM has, said once: live, that
 * kvmtop watches for it; a recording, once read to its end (a VM may come
 * late in it), that the recording has none.  A -p naming a vCPU thread
 * says which VM's process it is in.
 */
static void filter_unmatched(struct driver *drv, bool at_end)
{
	const struct model_filter *f = drv->c->filter;
	const struct vcpu *v;
	unsigned int i;

	if (!drv->src.live && !at_end)
		return;
	for (i = 0; f && i < f->nr_pids; i++) {
		if ((drv->said_pids & 1ull << i) || vm_exists(drv->m, f->pids[i], NULL))
			continue;
		drv->said_pids |= 1ull << i;
		v = model_find_vcpu(drv->m, f->pids[i]);
		if (v && v->vm && !v->vm->kernel)
			driver_notice(drv, "-p %d: a thread of VM process %d, not a VM's process: -p %d shows that VM",
				      f->pids[i], v->vm->pid, v->vm->pid);
		else if (drv->src.live)
			driver_notice(drv, "-p %d: no VM is that process (yet): kvmtop keeps watching for it",
				      f->pids[i]);
		else
			driver_notice(drv, "-p %d: the recording has no VM of that process (no thread of it ran a vCPU)",
				      f->pids[i]);
	}
	for (i = 0; f && i < f->nr_names; i++)
		if (!(drv->said_names & 1ull << i) && !vm_exists(drv->m, 0, f->names[i])) {
			drv->said_names |= 1ull << i;
			driver_notice(drv, drv->src.live ? "-g %s: no VM has that name (yet): kvmtop keeps watching for it" :
				      "-g %s: the recording has no VM of that name", f->names[i]);
		}
}

/* A counter source's reading ended at sampled_to: the snapshot's end, where it is after its start. */
static void snapshot_sampled_to(const struct driver *drv, uint64_t *end)
{
	uint64_t to = drv->src.sampled_to;

	if (to > drv->m->interval_start)
		*end = to;
}

/*
 * The model brought to *end (at_end: the recording's) and read from /proc
 * for the snapshot: 0, or -1 (said why).  A counter source that says
 * where its reading ended moves *end there: its figures are of up to then.
 */
static int snapshot_prepare(struct driver *drv, uint64_t *end, bool at_end)
{
	uint64_t marks;

	if (driver_sample(drv))
		return -1;
	snapshot_sampled_to(drv, end);
	/* every thread's state lasts to the snapshot's end: the states add up to it */
	model_time_to(drv->m, *end);
	/* /proc's figures (src/samplers/), the context's CPU timed for make bench */
	drv->samp.detail_pid = drv->v->detail_pid;
	marks = drv->m->ended_marks;
	if (driver_samplers(drv, *end, SAMPLE_SNAP))
		return -1;
	/*
	 * A VM whose process ended after the source's reading above is marked
	 * ended now and shown so in this snapshot, then gone: a counter source
	 * reads it a last time first, or its last counts would come after it
	 * was shown and go with it (the stats source: vms_check()).
	 */
	if (drv->m->ended_marks != marks) {
		if (driver_sample(drv))
			return -1;
		snapshot_sampled_to(drv, end);
	}
	if (driver_view_up(drv))
		return -1;
	filter_unmatched(drv, at_end);
	return 0;
}

int driver_reopen(struct driver *drv)
{
	char err[512];

	if (!driver_reload_sig)
		return 0;
	driver_reload_sig = 0;
	/* not up yet: it opens its output by name when it comes up */
	if (!drv->view_on || !drv->v->ops->reopen)
		return 0;
	if (!drv->v->ops->reopen(drv->v->ctx, err, sizeof(err)))
		return 0;
	driver_fail(drv, "%s", err);
	return -1;
}

/*
 * The snapshot's findings and the view's refresh, timed together for
 * make bench: the refresh's return, or -1 with errno ENOMEM.
 */
static int snapshot_show(struct driver *drv, struct snapshot *snap)
{
	uint64_t t0 = clock_mono_ns();
	int ret;

	/* the same findings for every view that shows them, from the snapshot's figures */
	if (drv->v->findings) {
		if (findings_eval(&drv->findings, drv->m, snap->start, snap->end, drv->src.ns)) {
			errno = ENOMEM;
			return -1;
		}
		snap->findings = &drv->findings;
	}
	ret = drv->v->ops->refresh(drv->v->ctx, snap);
	t0 = clock_mono_ns() - t0;
	drv->snap_n++;
	drv->snap_ns += t0;
	if (t0 > drv->snap_max_ns)
		drv->snap_max_ns = t0;
	return ret;
}

int driver_snapshot(struct driver *drv, uint64_t start, uint64_t end, bool at_end, uint64_t empty)
{
	struct snapshot snap = {
		.m = drv->m, .start = start, .at_end = at_end, .empty = empty,
		.interval = drv->interval, .nr_intervals = drv->nr_intervals,
	};
	int ret;

	/* a SIGHUP since the last one: this one goes to the reopened output */
	if (snapshot_prepare(drv, &end, at_end) || driver_reopen(drv))
		return -1;
	snap.end = end;
	if (drv->v->totals && model_interval_end(drv->m, end))
		goto out_nomem;
	ret = snapshot_show(drv, &snap);
	if (ret < 0) {
		if (errno == ENOMEM)
			goto out_nomem;
		driver_fail(drv, "writing the output: %s", strerror(errno));
		return -1;
	}
	if (ret > 0) {
		drv->stop = true;
		return 1;
	}
	if (!at_end && !drv->v->totals && model_interval_end(drv->m, end))
		goto out_nomem;
	/* -n counts what is printed or drawn as time goes on, not the screen's [ ] */
	if (drv->c->iterations && !drv->browsing &&
	    ++drv->snapshots >= (unsigned long long)drv->c->iterations)
		drv->done = true;
	return 0;
out_nomem:
	driver_fail(drv, "out of memory");
	return -1;
}

int driver_keys(struct driver *drv, uint64_t now)
{
	int act;

	if (!drv->v->ops->input)
		return 0;
	act = drv->v->ops->input(drv->v->ctx, now);
	/* the screen out of memory is an error (status 1), said after it is gone */
	if (act & VIEW_NOMEM) {
		driver_fail(drv, "out of memory");
		return -1;
	}
	return act;
}
