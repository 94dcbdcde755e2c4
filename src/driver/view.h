/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every output is to the driver: a view of snapshots of the model.
 * The screen (ui/tui.c) and the batch printers (batch.c) are views; a new
 * output is a new view, not a branch in the driver.  A view knows
 * nothing of sources, tracefs, recordings or the decoder: it is told
 * what the source is called and then given snapshots.
 */
#ifndef KVMTOP_VIEW_H
#define KVMTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Actions a view's input handler asks of the driver (a bit mask). */
enum view_action {
	VIEW_QUIT	= 1 << 0,	/* stop */
	VIEW_REFRESH	= 1 << 1,	/* live: end the interval now and draw it */
	VIEW_RESET	= 1 << 2,	/* live: forget all counts (model_reset) */
	VIEW_DELAY	= 1 << 3,	/* live: view->delay changed */
	VIEW_INTERVAL	= 1 << 4,	/* a recording: show interval view->interval */
	VIEW_NOMEM	= 1 << 5,	/* the view ran out of memory: a failure, not a quit */
};

/* What the source is, as the views name it. */
struct view_source {
	const char *name;	/* "live", "replay", "debugfs" */
	const char *file;	/* the recording, NULL live */
	const char *clock;
	const char *time_unit;	/* "ns", "cycles" or "counts" */
	bool ns;		/* times are ns: rates per second make sense */
	bool live;		/* VMs come and go; keys can reset and pace it */
	/*
	 * Its times map to the wall clock: live, CLOCK_MONOTONIC's (clock.h:
	 * clock_wall_offset()); a recording's that are the wall clock's ns
	 * (trace-cmd record --date).  false: a recording that does not say.
	 */
	bool wall_known;
	/*
	 * It reads each event (tracing, a recording): exit -> entry pairs
	 * (latencies), userspace exits, other kvm events.  false: counters
	 * (stats, debugfs), which measure none of those.
	 */
	bool traced;
};

struct findings;

/* How far the reading of a recording is, for a view that is up meanwhile. */
struct view_progress {
	const struct model *m;	/* the figures so far (a new model after a re-read) */
	uint64_t records;	/* read so far */
	int permille;		/* of the file, 0 to 999; -1: not known */
};

/* One snapshot: the model's figures over [start, end]. */
struct snapshot {
	const struct model *m;
	/* what is wrong in it (findings.h), for the views whose ops ask; else NULL */
	const struct findings *findings;
	uint64_t start;
	uint64_t end;
	bool at_end;		/* the last one: the input or the run ended */
	/* > 1: a run of that many intervals without KVM events, shown as one */
	uint64_t empty;
	/* a recording on the screen: interval k of nr (k 0: the whole recording) */
	long interval;
	long nr_intervals;	/* -1: not known */
};

/* What a view does, as a const table in its own file (batch.c, export.c, ui/tui.c). */
struct view_ops {
	const char *name;
	bool findings;		/* its snapshots carry the findings (view.findings: this one's) */
	/*
	 * What of the model's per-exit keeping it shows: each vCPU's recent
	 * exits (--ring) and guest IPs (--ip-slots).  What no view shows is
	 * not kept: every exit would pay for it (view.recent, view.ips).
	 */
	bool recent;
	bool ips;
	/* The source is open: 0, or -1 (said why). */
	int (*start)(void *ctx, const struct view_source *src, const struct model *m);
	/* Show a snapshot: 0; 1: stop, a normal end (the reader went away); -1: failed, errno says why. */
	int (*refresh)(void *ctx, const struct snapshot *snap);
	/* Optional: fd is readable or a tick passed; handle input.  A view_action mask. */
	int (*input)(void *ctx, uint64_t now);
	/*
	 * Optional: a recording is being read, the view up before its figures
	 * are (a first frame at once, whatever the file's size): show the
	 * figures so far and how far, take the keys that stop it.  A
	 * view_action mask: VIEW_QUIT stops the reading and kvmtop.
	 */
	int (*progress)(void *ctx, const struct view_progress *p);
	/*
	 * Optional: SIGHUP asks the view to reopen its output by name, as
	 * logrotate's postrotate does after renaming it.  Called between
	 * snapshots, the last one written whole and flushed, so each goes
	 * whole to one file.  0, or -1 with one line in err (the driver ends
	 * the run, status 1).  A view without it is stopped by SIGHUP, as by
	 * SIGINT and SIGTERM (the screen: a closed terminal).
	 */
	int (*reopen)(void *ctx, char *err, size_t len);
	/* Tell the user one line (a notice, not an error). */
	void (*notice)(void *ctx, const char *msg);
	/* The driver is done: give the terminal back.  Safe to call twice. */
	void (*stop)(void *ctx);
	/*
	 * Optional: kvmtop is crashing (called from a SIGSEGV, SIGABRT ...
	 * handler): give the terminal back with async-signal-safe calls only.
	 */
	void (*panic)(void *ctx);
};

/* A view: its ops, its state, and what it tells the driver. */
struct view {
	const struct view_ops *ops;
	void *ctx;
	int fd;			/* input to wait on with the source, -1: none */
	bool linger;		/* kept up after the input ends, until SIGINT/SIGTERM (an exporter) */
	bool findings;		/* ops->findings, unless this one's output shows none (a metrics format) */
	bool recent;		/* ops->recent */
	bool ips;		/* ops->ips, unless this one's output shows none (CSV, a metrics format) */
	/*
	 * It shows only the totals since the start (metrics): the driver
	 * closes each interval before the refresh, not after, so the
	 * interval's histograms are folded into the totals once, by the
	 * model, and not walked again for the view.
	 */
	bool totals;
	double delay;		/* seconds between refreshes, set by the view on VIEW_DELAY */
	long interval;		/* the interval VIEW_INTERVAL asks for */
	/*
	 * Live: the VM whose detail the view shows (the screen's context
	 * pane), 0: none.  Its threads are read one by one, with their disk
	 * bytes, from the next snapshot on (struct vm's detail): what every
	 * VM would pay for is paid for the one shown.
	 */
	int detail_pid;
};

static inline void view_init(struct view *v, const struct view_ops *ops, void *ctx, int fd)
{
	*v = (struct view){ .ops = ops, .ctx = ctx, .fd = fd, .findings = ops->findings,
			    .recent = ops->recent, .ips = ops->ips };
}

#endif
