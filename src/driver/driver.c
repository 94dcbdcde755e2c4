// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* ppoll */
/*
 * The driver: one loop for every source and every view.
 *
 *   source (trace.c, replay.c, debugfs.c) -> decoder -> model -> view
 *
 * It opens the source, decodes its records (or samples its counters)
 * into the model, closes intervals (of wall time live, of recording time
 * in a recording) and hands each snapshot to the view: the screen or a
 * batch printer.  On a recording the screen asks for intervals with [ ]
 * and the driver reads them.
 *
 * Signals only set a flag; the loop sleeps in ppoll() with them blocked
 * everywhere else, so a signal is seen at once and teardown (the view
 * stopped, tracing off, the instance removed, the demo guest stopped)
 * runs on the normal path for SIGINT, SIGTERM and SIGHUP alike.  They
 * are let in while a source is read, so a long recording stops too.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util/clock.h"
#include "decode/decode.h"
#include "demo.h"
#include "model/findings.h"
#include "ident/ident.h"
#include "ident/ident_sample.h"
#include "driver.h"
#include "model/model.h"
#include "options.h"
#include "sources/source.h"
#include "view.h"

#define DRIVER_TICK_MS		100	/* live: drain the buffers this often; keys: look this often */
#define DRIVER_DEFAULT_DELAY	3.0	/* live: seconds between snapshots, as top */
/* The screen reading a recording: the clock is looked at every this many records + 1 ... */
#define DRIVER_PROGRESS_MASK	4095
/* ... and a frame drawn this often; */
#define DRIVER_PROGRESS_NS	200000000ull
/* how far each CPU's records are, for the CPUs below this (more: the share is low) */
#define DRIVER_PROGRESS_CPUS	512

/* A recording read on the screen: how far, from its records' file offsets. */
struct progress {
	bool on;
	uint64_t n;		/* records */
	uint64_t at;		/* the last frame, clock_mono_ns() */
	uint64_t size;		/* the file's, 0: not known */
	uint64_t first[DRIVER_PROGRESS_CPUS], last[DRIVER_PROGRESS_CPUS];
};

struct driver {
	struct options *o;
	const struct source_ops *ops;
	struct source src;
	bool src_open;
	struct kvm_names names;
	struct ident proc;	/* live: who the host's threads are */
	struct decoder d;
	struct model *m;
	struct view *v;
	bool screen;		/* the view takes keys (a terminal) */
	bool view_on;
	bool failed;		/* said why */
	bool stop;		/* a normal end: the output's reader went away */
	bool nomem;
	unsigned long long snapshots;
	/* intervals of a recording, in its time; 0: one report */
	uint64_t step;
	uint64_t next;		/* end of the current interval */
	bool started;
	bool done;		/* -n snapshots shown: stop */
	bool iv_done;		/* the screen's interval is complete: read no more */
	bool exhausted;		/* the recording was read to its end */
	unsigned long threads_gen;	/* the model's vcpus_gen the source was last told */
	unsigned long times_gen;	/* ... at the last /proc reading of new threads */
	struct ident_sampler groups;	/* live: the VMs' other threads, from /proc */
	struct findings findings;	/* the last snapshot's */
	bool unfiltered_said;
	/* KVMTOP_SNAPSHOT_STATS: how long the snapshots' output took (make bench) */
	uint64_t snap_n, snap_ns, snap_max_ns;
	bool read_from;		/* ... or some of it */
	/* the screen on a recording: interval want (1-based, 0: all of it) */
	long want;
	long seen;
	uint64_t iv_end;
	long nr_intervals;
	struct kvm_event held;	/* the event that ended interval want */
	bool have_held;
	pid_t demo;
	bool demo_done;
	struct progress prog;
};

static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t child_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_sig = 1;
}

/*
 * A crash (SIGSEGV, SIGABRT ...) must not leave the terminal on the
 * alternate screen in cbreak mode, nor tracing on: the view and the
 * source get one async-signal-safe call each, then the signal does what
 * it would have done (a core, a status of 128 + signal).
 */
static struct driver *crashing;
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGQUIT, SIGTRAP };
#define NR_CRASH_SIGS	(sizeof(crash_sigs) / sizeof(crash_sigs[0]))
/* what each did before: the default, or a sanitizer's report */
static struct sigaction crash_old[NR_CRASH_SIGS];

static void on_crash(int sig)
{
	static const char msg[] = "kvmtop: crashed: a bug; the terminal and tracing were given back\n";
	struct driver *drv = crashing;
	ssize_t n;
	size_t i;

	crashing = NULL;	/* once, even if the restore itself faults */
	if (drv) {
		if (drv->view_on && drv->v->ops->panic)
			drv->v->ops->panic(drv->v->ctx);
		if (drv->src_open && drv->ops->panic)
			drv->ops->panic(&drv->src);
		n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)n;
	}
	for (i = 0; i < NR_CRASH_SIGS; i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	raise(sig);
}

static void crash_handlers(struct driver *drv)
{
	struct sigaction sa;
	size_t i;

	crashing = drv;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_CRASH_SIGS; i++)
		sigaction(crash_sigs[i], &sa, &crash_old[i]);
}

static void handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	/* a closed pipe is an output error, seen by ferror() */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static sigset_t blocked, unblocked;

static void signals(void)
{
	handlers();
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGHUP);
	sigaddset(&blocked, SIGCHLD);
	sigprocmask(SIG_BLOCK, &blocked, &unblocked);
}

static void view_off(struct driver *drv)
{
	if (drv->view_on)
		drv->v->ops->stop(drv->v->ctx);
	drv->view_on = false;
}

/* A fatal error: the terminal back first, then one line. */
static void __attribute__((format(printf, 2, 3))) fail(struct driver *drv, const char *fmt, ...)
{
	va_list ap;

	view_off(drv);
	drv->failed = true;
	fputs("kvmtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A notice: the view shows it (a batch view on standard error). */
static void __attribute__((format(printf, 2, 3))) notice(struct driver *drv, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	drv->v->ops->notice(drv->v->ctx, msg);
}

/* The view takes over the output, and is told what there is to know. */
static int view_up(struct driver *drv)
{
	struct view_source vs = {
		.name = drv->ops->name,
		.file = drv->src.file,
		.clock = drv->src.clock,
		.time_unit = drv->src.time_unit,
		.ns = drv->src.ns,
		.live = drv->src.live,
	};

	if (drv->view_on)
		return 0;
	if (drv->v->ops->start(drv->v->ctx, &vs, drv->m)) {
		drv->failed = true;
		return -1;
	}
	drv->view_on = true;
	/* curses may have put its own SIGINT/SIGTERM handlers in: ours again */
	handlers();
	if (drv->d.notice[0])
		notice(drv, "%s", drv->d.notice);
	if (drv->src.notice[0])
		notice(drv, "%s", drv->src.notice);
	drv->src.notice[0] = '\0';	/* shown: a source may say more later (sample) */
	if (drv->o->notice && drv->screen)
		notice(drv, "%s", drv->o->notice);
	return 0;
}

static void src_ident(void *ctx, int tid, struct ident_info *out)
{
	struct driver *drv = ctx;

	if (drv->ops->ident)
		drv->ops->ident(&drv->src, tid, out);
	else
		ident_thread(&drv->proc, tid, out);
	/* the vCPU id its name gives, until its events say */
	out->vcpu_id = ident_vcpu_id(out->comm);
}

static bool src_alive(void *ctx, int pid)
{
	struct driver *drv = ctx;

	return ident_alive(&drv->proc, pid);
}

/* The screen on a recording: it asks for intervals with [ ], the driver reads them. */
static bool browsing(const struct driver *drv)
{
	return drv->screen && !drv->src.live;
}

/*
 * Live without sched events: each vCPU thread's /proc accounting at now
 * (ident_sample.c).  A kernel whose schedstat is absent or off ends it,
 * said once.
 */
static void read_times(struct driver *drv, uint64_t now, bool new_only)
{
	int bad;

	if (ident_sample_times(&drv->proc, drv->m, now, new_only, &bad))
		notice(drv, "%s/%d/schedstat is absent or off: a vCPU's host, VMM, halt and wait time is not measured",
		       drv->proc.root, bad);
}

/* A counter source adds what grew: 0, or -1 (said why). */
static int sample(struct driver *drv)
{
	char err[512];

	if (!drv->ops->sample)
		return 0;
	if (drv->ops->sample(&drv->src, drv->m, err, sizeof(err))) {
		fail(drv, "%s", err);
		return -1;
	}
	/* what the source found meanwhile (a VM it cannot read), once the view is up */
	if (drv->src.notice[0] && drv->view_on) {
		notice(drv, "%s", drv->src.notice);
		drv->src.notice[0] = '\0';
	}
	return 0;
}

/* Show the figures of [start, end] and start the next interval: 0, 1 (a normal end), -1. */
static int snapshot_of(struct driver *drv, uint64_t start, uint64_t end, bool at_end,
		       uint64_t empty)
{
	struct snapshot s = {
		.m = drv->m, .start = start, .end = end, .at_end = at_end, .empty = empty,
		.interval = drv->want, .nr_intervals = drv->nr_intervals,
	};
	uint64_t t0;
	int ret;

	if (sample(drv))
		return -1;
	/* every thread's state lasts to the snapshot's end: the states add up to it */
	model_time_to(drv->m, end);
	read_times(drv, end, false);
	if (ident_sample_groups(&drv->groups, &drv->proc, drv->m))
		goto out_nomem;
	/* VMs that ended go, once their last figures were shown */
	if (drv->src.live)
		model_reap(drv->m, src_alive, drv);
	if (view_up(drv))
		return -1;
	if (drv->v->totals && model_interval_end(drv->m, end))
		goto out_nomem;
	t0 = clock_mono_ns();
	/* the same findings for every view that shows them, from the snapshot's figures */
	if (drv->v->findings) {
		if (findings_eval(&drv->findings, drv->m, start, end, drv->src.ns))
			goto out_nomem;
		s.findings = &drv->findings;
	}
	ret = drv->v->ops->refresh(drv->v->ctx, &s);
	t0 = clock_mono_ns() - t0;
	drv->snap_n++;
	drv->snap_ns += t0;
	if (t0 > drv->snap_max_ns)
		drv->snap_max_ns = t0;
	if (ret < 0) {
		if (errno == ENOMEM)
			goto out_nomem;
		fail(drv, "writing the output: %s", strerror(errno));
		return -1;
	}
	if (ret > 0) {
		drv->stop = true;
		return 1;
	}
	if (!at_end && !drv->v->totals && model_interval_end(drv->m, end))
		goto out_nomem;
	/* -n counts what is printed or drawn as time goes on, not the screen's [ ] */
	if (drv->o->iterations && !browsing(drv) &&
	    ++drv->snapshots >= (unsigned long long)drv->o->iterations)
		drv->done = true;
	return 0;
out_nomem:
	fail(drv, "out of memory");
	return -1;
}

static int snapshot(struct driver *drv, uint64_t start, uint64_t end, bool at_end)
{
	return snapshot_of(drv, start, end, at_end, 0);
}

/*
 * Interval of a recording ended at end: printed, or on the screen
 * counted until it is the one asked for.  0, 1 (stop), -1.
 */
static int interval_end(struct driver *drv, uint64_t end)
{
	if (!drv->want)
		return snapshot(drv, drv->m->interval_start, end, false);
	if (++drv->seen == drv->want) {
		drv->iv_end = end;
		drv->iv_done = true;
		return 0;
	}
	if (model_interval_end(drv->m, end)) {
		drv->nomem = true;
		return -1;
	}
	return 0;
}

/* The end of the interval after the one ending at t, saturating. */
static uint64_t after(uint64_t t, uint64_t step)
{
	return t > UINT64_MAX - step ? UINT64_MAX : t + step;
}

/*
 * The interval ending at drv->next was shown; the next ends one step
 * later.  In batch output, a run of two or more intervals that end before
 * the event at t, and so hold no KVM event, is one snapshot saying how
 * many: a gap of 10^15 ns at -d 0.001 is one line, not 10^12.  The screen
 * steps through every interval: it asks for them one at a time.
 */
static int skip_empty(struct driver *drv, uint64_t t)
{
	uint64_t start = drv->next, n, end;
	int ret;

	drv->next = after(drv->next, drv->step);
	if (drv->want || drv->next == UINT64_MAX || t < after(drv->next, drv->step))
		return 0;
	n = (t - start) / drv->step;
	end = n > (UINT64_MAX - start) / drv->step ? UINT64_MAX : start + n * drv->step;
	drv->m->interval_start = start;
	ret = snapshot_of(drv, start, end, false, n);
	if (ret)
		return ret;
	drv->next = after(end, drv->step);
	return drv->done ? 1 : 0;
}

/* The intervals that end before ev, closed: 0, 1 (stop), -1.  Out of feed's way. */
static __attribute__((noinline)) int feed_intervals(struct driver *drv, const struct kvm_event *ev)
{
	int ret;

	if (drv->step) {
		if (!drv->started) {
			drv->started = true;
			drv->next = after(ev->time, drv->step);
		}
		/* Close every interval that ended before this event. */
		while (ev->time >= drv->next && drv->next != UINT64_MAX) {
			if (!drv->m->have_time)
				drv->m->interval_start = drv->next - drv->step;
			ret = interval_end(drv, drv->next);
			if (ret)
				return ret;
			if (drv->iv_done) {
				/* the screen's interval is complete: keep ev for the next one */
				drv->held = *ev;
				drv->have_held = true;
				return 1;
			}
			if (drv->done)
				return 1;
			ret = skip_empty(drv, ev->time);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* One decoded event into the model, closing the intervals it ends: 0, 1 (stop), -1. */
static inline int feed(struct driver *drv, const struct kvm_event *ev)
{
	int ret;

	/* most events end no interval */
	if (drv->step && (!drv->started || (ev->time >= drv->next && drv->next != UINT64_MAX))) {
		ret = feed_intervals(drv, ev);
		if (ret)
			return ret;
	}
	if (model_feed(drv->m, ev)) {
		drv->nomem = true;
		return -1;
	}
	return 0;
}

/*
 * Every DRIVER_PROGRESS_MASK + 1 records of a recording read on the
 * screen: where rec's CPU is in the file, and each DRIVER_PROGRESS_NS a
 * frame of the figures so far.  0, 1 (the user quit), -1 (no memory).
 * Each CPU's records are one stretch of the file read in order, so the
 * stretches behind the offsets seen are what was read (sampled: a CPU's
 * first sample is a little after its start).
 */
static int progress_tick(struct driver *drv, const struct tep_record *rec)
{
	struct progress *pg = &drv->prog;
	struct view_progress p = { .m = drv->m, .records = pg->n, .permille = -1 };
	uint64_t now = clock_mono_ns(), done = 0;
	int act, c;

	if (rec && rec->cpu >= 0 && rec->cpu < DRIVER_PROGRESS_CPUS) {
		if (!pg->first[rec->cpu])
			pg->first[rec->cpu] = rec->offset;
		pg->last[rec->cpu] = rec->offset;
	}
	if (rec && now - pg->at < DRIVER_PROGRESS_NS)
		return 0;
	pg->at = now;
	for (c = 0; c < DRIVER_PROGRESS_CPUS; c++)
		done += pg->last[c] - pg->first[c];
	if (pg->size)
		p.permille = done >= pg->size ? 999 : (int)(done * 1000 / pg->size);
	act = drv->v->ops->progress(drv->v->ctx, &p);
	if (act & VIEW_NOMEM) {
		drv->nomem = true;
		return -1;
	}
	if (act & VIEW_QUIT) {
		drv->stop = true;
		return 1;
	}
	return 0;
}

/* The screen is up while a recording is read: a first frame now (0, 1: quit, -1). */
static int progress_start(struct driver *drv)
{
	struct stat st;

	if (!drv->screen || !drv->v->ops->progress || view_up(drv))
		return drv->failed ? -1 : 0;
	memset(&drv->prog, 0, sizeof(drv->prog));
	drv->prog.on = true;
	drv->prog.size = drv->src.file && !stat(drv->src.file, &st) && st.st_size > 0 ? (uint64_t)st.st_size : 0;
	return progress_tick(drv, NULL);
}

/* The one path of every record: decoded, and fed to the model. */
static int on_record(struct tep_record *rec, void *ctx)
{
	struct driver *drv = ctx;
	struct kvm_event ev;
	int ret;

	/* a recording stops at once; live, the last drain after a stop reads it all */
	if (stop_sig && !drv->src.live)
		return 1;
	if (drv->prog.on && !(++drv->prog.n & DRIVER_PROGRESS_MASK)) {
		ret = progress_tick(drv, rec);
		if (ret)
			return ret;
	}
	if (rec->missed_events)
		model_lost(drv->m, rec->missed_events);
	ret = decode_record(&drv->d, rec, &ev);
	if (ret <= 0) {
		if (ret < 0)
			drv->nomem = true;
		return ret;
	}
	return feed(drv, &ev);
}

/*
 * The vCPU threads came or went: tell the source, which narrows what it
 * traces to them (live: the sched events' kernel filters).  0 or -1.
 */
static int follow_threads(struct driver *drv)
{
	struct vcpu *v;
	size_t n = 0;
	int *tids, ret;

	tids = calloc(drv->m->nr_vcpus ? drv->m->nr_vcpus : 1, sizeof(*tids));
	if (!tids) {
		fail(drv, "out of memory");
		return -1;
	}
	/* the tree is in tid order */
	RB_FOREACH(v, vcpu_tree, &drv->m->vcpus)
		if (!v->vm->kernel && !v->vmm)
			tids[n++] = v->tid;
	ret = drv->ops->threads(&drv->src, tids, n);
	free(tids);
	if (ret < 0) {
		fail(drv, "cannot set the sched event filters to the %zu vCPU threads: %s", n, strerror(errno));
		return -1;
	}
	if (ret > 0 && !drv->unfiltered_said) {
		drv->unfiltered_said = true;
		notice(drv, "%zu vCPU threads do not fit a kernel event filter: every context switch is traced", n);
	}
	drv->threads_gen = drv->m->vcpus_gen;
	return 0;
}

/*
 * Read what the source has (live: up to now; a recording: on to its end
 * or until an interval stops it).  0, 1 (stop), -1 (said why).
 */
static int pull(struct driver *drv)
{
	uint64_t lost = drv->m->lost_events.total;
	char err[512];
	size_t kb;
	int ret;

	if (!drv->ops->read || drv->exhausted || drv->done || drv->iv_done)
		return 0;
	drv->read_from = true;
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	ret = drv->ops->read(&drv->src, on_record, drv, err, sizeof(err));
	sigprocmask(SIG_BLOCK, &blocked, NULL);
	if (drv->failed)
		return -1;
	if (drv->nomem) {
		fail(drv, "out of memory");
		return -1;
	}
	if (ret < 0) {
		fail(drv, "%s", err);
		return -1;
	}
	if (drv->stop || (stop_sig && !drv->src.live))
		return 1;
	if (!ret && !drv->src.live) {
		drv->exhausted = true;
		if (!drv->m->events.total)
			notice(drv, "the recording holds no KVM events%s",
			       drv->d.nr_exit_formats + drv->d.nr_entry_formats + drv->d.nr_other ?
			       "" : " (KVM tracepoints were not recorded)");
	}
	if (drv->ops->threads && drv->m->vcpus_gen != drv->threads_gen && follow_threads(drv))
		return -1;
	/*
	 * --summary: new threads' /proc figures start now, not at the end.
	 * Intervals start them at the next snapshot, so every interval a
	 * thread has figures for is whole.
	 */
	if (drv->src.live && drv->o->summary && drv->m->vcpus_gen != drv->times_gen) {
		read_times(drv, clock_mono_ns(), true);
		drv->times_gen = drv->m->vcpus_gen;
	}
	/* losses are counted in the output; make them less likely */
	if (drv->m->lost_events.total > lost && !drv->o->buffer_kb && drv->ops->grow &&
	    (kb = drv->ops->grow(&drv->src)))
		notice(drv, "%" PRIu64 " events lost: trace buffers grown to %zu KiB per CPU",
		       drv->m->lost_events.total - lost, kb);
	return 0;
}

static void close_source(struct driver *drv)
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
	drv->src.tep = NULL;
	names_free(&drv->names);
}

/* Source, decoder and model: 0, or -1 (said why). */
static int open_source(struct driver *drv, unsigned int tick_ms)
{
	char err[512];

	names_init(&drv->names);
	memset(&drv->src, 0, sizeof(drv->src));
	drv->src.ops = drv->ops;
	drv->src.tick_ms = tick_ms;
	drv->src.proc = &drv->proc;
	drv->src.priv = calloc(1, drv->ops->priv_size);
	if (!drv->src.priv)
		goto out_nomem;
	if (drv->ops->open(&drv->src, drv->o, &drv->names, err, sizeof(err))) {
		fail(drv, "%s", err);
		return -1;
	}
	drv->src_open = true;
	if (drv->src.tep && decode_init(&drv->d, drv->src.tep, &drv->names, err, sizeof(err))) {
		if (drv->src.file)
			fail(drv, "%s: %s", drv->src.file, err);
		else
			fail(drv, "%s", err);
		return -1;
	}
	/* rings and IP tables only for a view that shows them */
	drv->m = model_new(&drv->names, drv->v->recent ? drv->o->ring : 0, src_ident, drv);
	if (!drv->m)
		goto out_nomem;
	drv->m->live = drv->src.live;
	drv->m->ip_slots = drv->v->ips ? drv->o->ip_slots : 0;
	drv->m->max_vcpus = drv->o->max_vcpus;
	drv->m->max_thieves = drv->o->thieves;
	/* the metrics' stolen family counts since the start */
	drv->m->steal_totals = drv->o->metrics.stolen;
	/* the metrics' host-wide latency (--metrics-latency host, the options' first) */
	drv->m->host_lat_on = drv->v->totals && drv->o->metrics.latency == 0;
	if (drv->src.live) {
		uint64_t now = clock_mono_ns();

		drv->m->have_time = true;
		drv->m->first_time = now;
		drv->m->interval_start = now;
		/* threads of the host: /proc says where their time goes (not debugfs' rows) */
		drv->m->proc_time = !drv->ops->ident;
	}
	/* counters: what runs now counts from here */
	return sample(drv);
out_nomem:
	fail(drv, "out of memory");
	return -1;
}

static uint64_t step_ns(const struct options *o)
{
	return (uint64_t)llround((o->delay ? o->delay : 1.0) * 1e9);
}

/* Start reading a recording again for interval k (0: all of it): 0, or -1 (said why). */
static int reopen(struct driver *drv, long k)
{
	if (drv->read_from) {
		close_source(drv);
		drv->read_from = false;
		if (open_source(drv, DRIVER_TICK_MS))
			return -1;
	}
	drv->want = k;
	drv->seen = 0;
	drv->started = drv->done = drv->iv_done = drv->exhausted = drv->have_held = false;
	/* intervals: the screen's [ ], or -d in batch output */
	drv->step = k || (!drv->screen && drv->o->delay) ? step_ns(drv->o) : 0;
	if (drv->step && !drv->src.ns) {
		fail(drv, "%s: -d needs a clock in nanoseconds; this recording's clock '%s' counts %s",
		     drv->src.file, drv->src.clock, drv->src.time_unit);
		return -1;
	}
	return 0;
}

/*
 * The screen on a recording: read interval k of -d seconds (default 1;
 * 0: all of it) into a new model, or on from the last one when k
 * follows it, and show it.  0, or -1 (said why).
 */
static int load(struct driver *drv, long k)
{
	uint64_t start, end;
	int ret;

	if (k >= 2 && drv->want == k - 1 && drv->iv_done) {
		/* on from where the recording stopped: interval k - 1 ends here */
		drv->want = k;
		drv->iv_done = false;
		if (model_interval_end(drv->m, drv->next))
			goto out_nomem;
		drv->next = after(drv->next, drv->step);
		if (drv->have_held) {
			drv->have_held = false;
			if (feed(drv, &drv->held) < 0)
				goto out_nomem;
		}
	} else if (reopen(drv, k)) {
		return -1;
	}
	/* the screen comes up before the reading: a first frame at once, then how far */
	ret = progress_start(drv);
	if (!ret)
		ret = pull(drv);
	drv->prog.on = false;
	if (ret)
		return ret < 0 ? -1 : 0;
	/* at the end of the recording, exits still waiting become unmatched */
	if (!drv->iv_done)
		model_finish(drv->m);
	start = drv->m->have_time ? drv->m->first_time : 0;
	end = drv->m->have_time ? drv->m->last_time : 0;
	if (k == 0) {
		/* intervals start at the first KVM event, as with -b -d */
		drv->nr_intervals = drv->src.ns && drv->m->have_time ?
				    (long)((end - start) / step_ns(drv->o)) + 1 : 0;
	} else {
		start = drv->m->interval_start;
		if (drv->iv_done)
			end = drv->iv_end;
	}
	return snapshot(drv, start, end, true) < 0 ? -1 : 0;
out_nomem:
	fail(drv, "out of memory");
	return -1;
}

/* Sleep until until, or a signal, or input on fd (-1: none): fd's revents. */
static short wait_until(uint64_t now, uint64_t until, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts;
	uint64_t d = until > now ? until - now : 0;

	ts.tv_sec = d / 1000000000ull;
	ts.tv_nsec = d % 1000000000ull;
	if (ppoll(&pfd, fd >= 0 ? 1 : 0, &ts, &unblocked) <= 0)
		return 0;
	return pfd.revents;
}

/* The demo guest ended: 0, 1 (stop), -1 (it failed, said why). */
static int demo_check(struct driver *drv)
{
	int st;

	if (drv->demo <= 0 || !child_sig || !demo_ended(drv->demo, &st))
		return 0;
	drv->demo = -1;
	drv->demo_done = true;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fail(drv, "the demo guest failed (status %d)", st);
		return -1;
	}
	if (!drv->screen)
		return 1;
	notice(drv, "the demo guest ended");
	return 0;
}

/* Keys: 0, 1 (quit), -1 (said why); *step and *next follow a new delay. */
static int keys(struct driver *drv, uint64_t now, uint64_t *step, uint64_t *next, bool *now_please)
{
	int act;

	if (!drv->v->ops->input)
		return 0;
	act = drv->v->ops->input(drv->v->ctx, now);
	/* the screen out of memory is an error (status 1), said after it is gone */
	if (act & VIEW_NOMEM) {
		fail(drv, "out of memory");
		return -1;
	}
	if (act & VIEW_QUIT)
		return 1;
	if (act & VIEW_RESET)
		model_reset(drv->m, now);
	if (act & VIEW_DELAY) {
		*step = (uint64_t)llround(drv->v->delay * 1e9);
		*next = now + *step;
	}
	if ((act & VIEW_INTERVAL) && load(drv, drv->v->interval))
		return -1;
	*now_please = act & (VIEW_REFRESH | VIEW_RESET);
	return 0;
}

/* The loop: 0 (stopped), or -1 (failed, said why). */
static int drive(struct driver *drv, unsigned int tick_ms)
{
	double delay = drv->o->delay ? drv->o->delay : DRIVER_DEFAULT_DELAY;
	uint64_t step = (uint64_t)llround(delay * 1e9);
	uint64_t now = clock_mono_ns(), next = now + step;
	bool live = drv->src.live, timed = live && !drv->o->summary;
	int ret;

	/*
	 * The screen comes up on a recording once its headers and layout are
	 * read and checked (a file bad there never flashes it), and shows how
	 * far the reading of the rest is (load()): one cut or corrupt later
	 * gives the terminal back before its one line.  Batch output of a
	 * recording starts with its first snapshot, so a file that turns out
	 * corrupt gets its one line alone, not after the decoder's notices.
	 */
	if (!browsing(drv) && drv->src.live && view_up(drv))
		return -1;
	if (browsing(drv) && load(drv, 0))
		return -1;
	while (!stop_sig && !drv->stop && !drv->done) {
		uint64_t wake = now + (uint64_t)tick_ms * 1000000ull;
		bool now_please = false;
		short rev = 0;

		if (live || drv->screen)
			rev = wait_until(now, timed && next < wake ? next : wake, drv->v->fd);
		/* the terminal went away (closed window, dead ssh): stop, as on SIGHUP */
		if (rev & (POLLHUP | POLLERR | POLLNVAL))
			break;
		ret = pull(drv);
		if (ret)
			return ret < 0 ? -1 : 0;
		if (!live && !drv->screen)
			break;		/* a recording, printed as it was read */
		now = clock_mono_ns();
		ret = demo_check(drv);
		if (ret)
			return ret < 0 ? -1 : 0;
		ret = keys(drv, now, &step, &next, &now_please);
		if (ret)
			return ret < 0 ? -1 : 0;
		/* --summary of counters: read them each delay all the same, so VMs that come and go count */
		if (live && !timed && drv->ops->sample && now >= next) {
			if (sample(drv))
				return -1;
			next = now + step;
		}
		if (!timed || (now < next && !now_please))
			continue;
		if (snapshot(drv, drv->m->interval_start, now, false))
			return drv->failed ? -1 : 0;
		next += step;
		if (next <= now || now_please)	/* fell behind: do not print a burst */
			next = now + step;
	}
	return 0;
}

/* The input ended (a recording read, the demo guest done) or --summary: the last figures. */
static int last(struct driver *drv)
{
	uint64_t end;

	if (drv->screen || drv->done || drv->stop || drv->failed ||
	    !(drv->exhausted || drv->demo_done || drv->o->summary))
		return 0;
	/* a recording stopped by a signal: nothing more */
	if (!drv->src.live && stop_sig)
		return 0;
	if (drv->src.live && pull(drv) < 0)
		return -1;
	end = drv->src.live ? clock_mono_ns() : drv->m->have_time ? drv->m->last_time : 0;
	model_finish(drv->m);
	if (drv->o->summary)
		drv->m->interval_start = drv->m->first_time;
	return snapshot(drv, drv->m->interval_start, end, true) < 0 ? -1 : 0;
}

/* KVMTOP_SNAPSHOT_STATS=FILE: one JSON line of the snapshots' output times, for make bench. */
static void snapshot_stats(const struct driver *drv)
{
	const char *path = getenv("KVMTOP_SNAPSHOT_STATS");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "kvmtop: KVMTOP_SNAPSHOT_STATS: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "{\"snapshots\":%" PRIu64 ",\"mean_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 "}\n",
		drv->snap_n, drv->snap_n ? drv->snap_ns / drv->snap_n : 0, drv->snap_max_ns);
	fclose(f);
}

int driver_run(struct options *o, const struct source_ops *ops, struct view *v)
{
	double delay = o->delay ? o->delay : DRIVER_DEFAULT_DELAY;
	unsigned int tick_ms = delay * 1000 < DRIVER_TICK_MS ? (unsigned int)(delay * 1000) : DRIVER_TICK_MS;
	struct driver drv;
	int ret = 1;

	memset(&drv, 0, sizeof(drv));
	drv.o = o;
	drv.ops = ops;
	drv.v = v;
	drv.screen = v->fd >= 0;
	drv.nr_intervals = -1;
	drv.demo = -1;
	/* the host's threads and processes, or the tree --proc gives for them */
	ident_init(&drv.proc, o->proc_root);
	stop_sig = 0;
	signals();
	crash_handlers(&drv);
	if (!tick_ms)
		tick_ms = 1;
	if (open_source(&drv, tick_ms) || (!drv.src.live && reopen(&drv, 0)))
		goto out;
	if (o->demo) {
		char err[256];

		drv.demo = demo_start(o->demo_vcpus, o->demo_loops, o->demo_report, err, sizeof(err));
		if (drv.demo < 0) {
			fail(&drv, "%s", err);
			goto out;
		}
	}
	if (drive(&drv, tick_ms) || last(&drv))
		goto out;
	/* a recording stopped by a signal: as if killed by it, but tidily */
	ret = stop_sig && !drv.src.live && !drv.screen ? 128 + stop_sig : 0;
	/* an exporter serves a recording's final figures until it is stopped: that is its end */
	if (v->linger && !drv.failed) {
		while (!stop_sig)
			wait_until(0, 1000000000ull, -1);
		ret = 0;
	}
	snapshot_stats(&drv);
out:
	view_off(&drv);
	crashing = NULL;
	if (drv.demo > 0 && demo_stop(drv.demo))
		fprintf(stderr, "kvmtop: the demo guest did not end cleanly\n");
	close_source(&drv);
	findings_free(&drv.findings);
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	return ret;
}
