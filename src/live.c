// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* ppoll */
/*
 * Live driver: trace.c's records -> decoder -> model -> batch output,
 * one snapshot every -d seconds of wall time.
 *
 * Signals only set a flag; the loop sleeps in ppoll() with them blocked
 * everywhere else, so a signal is seen at once and teardown (tracing
 * off, events off, instance removed, demo guest stopped) runs on the
 * normal path for SIGINT, SIGTERM and SIGHUP alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "options.h"
#include "decode.h"
#include "debugfs.h"
#include "demo.h"
#include "ident.h"
#include "model.h"
#include "trace.h"
#include "view.h"

#define LIVE_TICK_MS		100	/* drain the buffers this often */
#define LIVE_DEFAULT_DELAY	3.0	/* seconds between snapshots, as top */

struct live {
	struct options *o;
	struct trace t;
	struct debugfs_src ds;
	bool use_debugfs;
	struct decoder d;
	struct reason_table reasons;
	struct model *m;
	struct batch b;
	struct ident id;
	bool nomem;
	struct view *view;	/* NULL: batch output */
	bool view_on;		/* the view owns the terminal */
};

static void view_off(struct live *l)
{
	if (l->view_on)
		l->view->stop(l->view->ctx);
	l->view_on = false;
}

/* A fatal error: the terminal back first, then one line. */
static void __attribute__((format(printf, 2, 3))) live_fail(struct live *l, const char *fmt, ...)
{
	va_list ap;

	view_off(l);
	fputs("kvmtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A notice: on standard error, or in the view's message line. */
static void __attribute__((format(printf, 2, 3))) live_notice(struct live *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (l->view_on) {
		vsnprintf(l->view->msg, sizeof(l->view->msg), fmt, ap);
	} else {
		fputs("kvmtop: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

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

static void live_ident(void *ctx, int tid, struct ident_info *out)
{
	struct live *l = ctx;

	ident_thread(&l->id, tid, out);
	if (l->use_debugfs) {
		/* a debugfs row is a whole VM, keyed by its pid: known even if /proc is not */
		if (!out->pid) {
			out->pid = tid;
			if (!out->vm_name[0])
				strlcpy(out->vm_name, "unknown", sizeof(out->vm_name));
		}
		strlcpy(out->comm, "all vCPUs", sizeof(out->comm));
	}
}

static bool live_alive(void *ctx, int pid)
{
	struct live *l = ctx;

	return ident_alive(&l->id, pid);
}

static int on_record(struct tep_record *rec, void *ctx)
{
	struct live *l = ctx;
	struct kvm_event ev;
	int ret;

	if (rec->missed_events)
		model_lost(l->m, rec->missed_events);
	ret = decoder_decode(&l->d, rec, &ev);
	if (ret <= 0) {
		if (ret < 0) {
			l->nomem = true;
			return -1;
		}
		return 0;
	}
	if (model_feed(l->m, &ev)) {
		l->nomem = true;
		return -1;
	}
	return 0;
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

static void signals(sigset_t *blocked, sigset_t *old)
{
	handlers();
	sigemptyset(blocked);
	sigaddset(blocked, SIGINT);
	sigaddset(blocked, SIGTERM);
	sigaddset(blocked, SIGHUP);
	sigaddset(blocked, SIGCHLD);
	sigprocmask(SIG_BLOCK, blocked, old);
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int drain(struct live *l)
{
	uint64_t lost;

	if (l->use_debugfs)
		return 0;	/* counters: read when a snapshot needs them */
	lost = l->m->lost_events.total;

	if (trace_drain(&l->t, on_record, l) == 0) {
		/* losses are counted in the output; make them less likely */
		if (l->m->lost_events.total > lost && !l->o->buffer_kb && trace_grow(&l->t))
			live_notice(l, "%" PRIu64 " events lost: trace buffers grown to %zu KiB per CPU",
				    l->m->lost_events.total - lost, l->t.buffer_kb);
		return 0;
	}
	if (l->nomem)
		live_fail(l, "out of memory");
	else
		live_fail(l, "reading %s/instances/%s: %s", l->t.dir, l->t.name, strerror(errno));
	return -1;
}

static int output_ok(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	/* kvmtop -b | head: the reader went away, a normal end */
	if (errno == EPIPE)
		return 1;
	fprintf(stderr, "kvmtop: writing the output: %s\n", strerror(errno));
	return -1;
}

static int snapshot(struct live *l, uint64_t now)
{
	if (l->use_debugfs && debugfs_poll(&l->ds, l->m)) {
		live_fail(l, "out of memory");
		return -1;
	}
	model_reap(l->m, live_alive, l);
	if (l->view) {
		if (l->view->refresh(l->view->ctx, now) || model_interval_end(l->m, now)) {
			live_fail(l, "out of memory");
			return -1;
		}
		l->b.snapshots++;
		return 0;
	}
	if (batch_print(&l->b, now) || model_interval_end(l->m, now)) {
		live_fail(l, "out of memory");
		return -1;
	}
	return output_ok();
}

/* Sleep until until, or a signal, or input on fd (-1: none): fd's revents. */
static short wait_until(uint64_t now, uint64_t until, int fd, const sigset_t *old)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts;
	uint64_t d = until > now ? until - now : 0;

	ts.tv_sec = d / 1000000000ull;
	ts.tv_nsec = d % 1000000000ull;
	if (ppoll(&pfd, fd >= 0 ? 1 : 0, &ts, old) <= 0)
		return 0;
	return pfd.revents;
}

static int setup_debugfs(struct live *l, char *err, size_t errlen)
{
	int i;

	reason_table_init(&l->reasons);
	if (debugfs_open(&l->ds, l->o->debugfs_root, &l->reasons, err, errlen))
		return -1;
	l->use_debugfs = true;
	if (l->ds.mounted_by_us)
		fprintf(stderr, "kvmtop: debugfs was not mounted: mounted it at /sys/kernel/debug\n");
	memset(&l->d, 0, sizeof(l->d));
	l->d.reasons = &l->reasons;
	l->d.uexit_other = -1;
	l->d.nr_other = l->ds.nr_other;
	for (i = 0; i < l->ds.nr_other; i++)
		l->d.other_name[i] = l->ds.other_name[i];
	return 0;
}

static int setup_trace(struct live *l, unsigned int tick_ms, char *err, size_t errlen)
{
	if (trace_open(&l->t, tick_ms, l->o->buffer_kb, err, errlen))
		return -1;
	if (l->t.mounted_by_us)
		fprintf(stderr, "kvmtop: tracefs was not mounted: mounted it at %s\n", l->t.dir);
	if (l->t.stale_removed)
		fprintf(stderr, "kvmtop: removed %u trace instance(s) left by a kvmtop that died\n",
			l->t.stale_removed);
	reason_table_init(&l->reasons);
	if (decoder_init(&l->d, l->t.tep, &l->reasons)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* with the screen, shown once it starts (see live_run) */
	if (l->d.notice[0] && !l->view)
		fprintf(stderr, "kvmtop: %s\n", l->d.notice);
	return 0;
}

static int setup(struct live *l, unsigned int tick_ms)
{
	char err[512];
	int ret;

	if (l->o->source == SOURCE_DEBUGFS)
		ret = setup_debugfs(l, err, sizeof(err));
	else
		ret = setup_trace(l, tick_ms, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "kvmtop: %s\n", err);
		return -1;
	}

	ident_init(&l->id, "/proc");
	l->m = model_new(&l->reasons, l->d.nr_other, l->o->ring, live_ident, l);
	if (!l->m) {
		fprintf(stderr, "kvmtop: out of memory\n");
		return -1;
	}
	l->m->live = true;
	l->m->ip_slots = l->o->ip_slots;
	l->b.out = stdout;
	l->b.fmt = l->o->fmt;
	l->b.m = l->m;
	l->b.d = &l->d;
	l->b.source = l->use_debugfs ? "debugfs" : "live";
	l->b.clock = l->use_debugfs ? "mono" : l->t.clock;
	l->b.time_unit = "ns";
	l->b.ns = true;
	l->b.summary = l->o->summary;
	batch_set_ips(&l->b, l->o);
	if (l->use_debugfs) {
		/* the VMs running now count from here */
		if (debugfs_poll(&l->ds, l->m)) {
			fprintf(stderr, "kvmtop: out of memory\n");
			return -1;
		}
		fprintf(stderr, "kvmtop: reading KVM statistics from %s: per VM only, no latencies\n",
			l->ds.dir);
	}
	return 0;
}

int live_run(struct options *o, struct view *v)
{
	double delay = o->delay ? o->delay : LIVE_DEFAULT_DELAY;
	unsigned int tick_ms = delay * 1000 < LIVE_TICK_MS ? (unsigned int)(delay * 1000) : LIVE_TICK_MS;
	uint64_t step = (uint64_t)llround(delay * 1e9), now, next;
	sigset_t blocked, old;
	bool demo_done = false;
	pid_t demo = -1;
	struct live l;
	int ret = 1, st;

	memset(&l, 0, sizeof(l));
	l.o = o;
	l.view = v;
	signals(&blocked, &old);
	if (setup(&l, tick_ms ? tick_ms : 1))
		goto out;
	if (o->demo) {
		char err[256];

		demo = demo_start(o->demo_vcpus, o->demo_loops, o->demo_report, err, sizeof(err));
		if (demo < 0) {
			fprintf(stderr, "kvmtop: %s\n", err);
			goto out;
		}
	}
	now = mono_now();
	l.m->have_time = true;
	l.m->first_time = now;
	l.m->interval_start = now;
	next = now + step;

	if (v) {
		if (v->start(v->ctx, l.m, &l.d, l.b.source, l.b.clock, true))
			goto out;
		l.view_on = true;
		/* curses may have put its own SIGINT/SIGTERM handlers in: ours again */
		handlers();
		if (l.d.notice[0])
			live_notice(&l, "%s", l.d.notice);
		if (l.use_debugfs)
			live_notice(&l, "debugfs counters: per VM only, no latencies");
	}

	while (!stop_sig) {
		uint64_t wake = now + (uint64_t)tick_ms * 1000000ull;
		bool now_please = false;

		short ev = wait_until(now, o->summary || wake < next ? wake : next, v ? v->fd : -1, &old);

		/* the terminal went away (closed window, dead ssh): stop, as on SIGHUP */
		if (ev & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if (drain(&l))
			goto out;
		now = mono_now();
		if (demo > 0 && child_sig && demo_ended(demo, &st)) {
			demo = -1;
			demo_done = true;
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				live_fail(&l, "the demo guest failed (status %d)", st);
				goto out;
			}
			if (!v)
				break;
			live_notice(&l, "the demo guest ended");
		}
		if (v) {
			/* every wake: keys, and a resize ncurses saw while we slept */
			int act = v->input(v->ctx, now);

			if (act & VIEW_QUIT)
				break;
			if (act & VIEW_RESET)
				model_reset(l.m, now);
			if (act & VIEW_DELAY) {
				step = (uint64_t)llround(v->delay * 1e9);
				next = now + step;
			}
			now_please = act & (VIEW_REFRESH | VIEW_RESET);
		}
		if (o->summary || (now < next && !now_please))
			continue;
		switch (snapshot(&l, now)) {
		case 0:
			break;
		case 1:
			ret = 0;
			goto out;
		default:
			goto out;
		}
		if (o->iterations && l.b.snapshots >= o->iterations) {
			ret = 0;
			goto out;
		}
		next += step;
		if (next <= now || now_please)	/* fell behind: do not print a burst */
			next = now + step;
	}
	/* Stopped (signal, or the demo guest ended): the last figures. */
	if (!v && (demo_done || o->summary)) {
		if (drain(&l))
			goto out;
		now = mono_now();
		model_finish(l.m);
		l.b.at_end = true;
		if (o->summary)
			l.m->interval_start = l.m->first_time;
		if (snapshot(&l, now) < 0)
			goto out;
	}
	ret = 0;
out:
	view_off(&l);
	if (demo > 0 && demo_stop(demo))
		fprintf(stderr, "kvmtop: the demo guest did not end cleanly\n");
	model_free(l.m);
	decoder_free(&l.d);
	debugfs_close(&l.ds);
	reason_table_free(&l.reasons);
	trace_close(&l.t);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
