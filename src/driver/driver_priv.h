/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's rooms and what they tell each other.  Who calls whom, in
 * one direction only:
 *
 *   driver.c           driver_run(): sets up, picks the loop, tears down
 *     loop_live.c      live: snapshots of wall time, keys, the workload
 *     loop_recording.c a recording: intervals of its own time (the cursor),
 *                      printed as read, or the screen stepping through them
 *       pipeline.c     what both loops share: the source into the decoder
 *                      and the model, snapshots to the view, notices
 *         signals.c    stop and reopen signals seen at once; the loops' one wait
 *     crash.c          a crash gives the terminal back and tracing off
 *
 * No file outside src/driver/ includes this header.
 */
#ifndef KVMTOP_DRIVER_PRIV_H
#define KVMTOP_DRIVER_PRIV_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "decode/decode.h"
#include "ident/ident.h"
#include "samplers/samplers.h"
#include "model/findings.h"
#include "model/model.h"
#include "model/model_feed.h"
#include "driver.h"

#define DRIVER_TICK_MS		100	/* live: drain the buffers this often; keys: look this often */
#define DRIVER_DEFAULT_DELAY	3.0	/* live: seconds between snapshots, as top */

/* What every mode uses: the source, the decoder, the model and the view. */
struct driver {
	const struct driver_config *c;
	const struct source_ops *ops;
	struct source src;
	bool src_open;
	struct kvm_names names;
	struct ident proc;		/* live: who the host's threads are */
	struct ident_births *births;	/* the threads made while traced (task_newtask) */
	struct decoder d;
	struct model *m;
	struct view *v;
	unsigned int tick_ms;
	bool screen;			/* the view takes keys (a terminal) */
	bool view_on;
	bool failed;			/* said why */
	bool stop;			/* a normal end: the output's reader went away, or a quit */
	bool nomem;
	bool done;			/* -n snapshots shown: stop */
	unsigned long long snapshots;
	struct samplers samp;		/* live: what /proc, /sys and cgroupfs say of the VMs (src/samplers/) */
	struct findings findings;	/* the last snapshot's */
	/* the screen on a recording: it shows interval k of nr (k 0: all of it); -n does not count */
	bool browsing;
	long interval;
	long nr_intervals;
	/* the filter's pids and names said to match no VM (bit i: the i-th), said once */
	uint64_t said_pids, said_names;
	uint64_t discover_at;		/* live: a counter source looks for new VMs next then */
	/* KVMTOP_SNAPSHOT_STATS: how long the snapshots' output took (make bench) */
	uint64_t snap_n, snap_ns, snap_max_ns;
};

/* signals.c: SIGINT, SIGTERM, SIGHUP only set this; the loops look at it. */
extern volatile sig_atomic_t driver_stop_sig;
/* ... and SIGCHLD this (the workload may have ended). */
extern volatile sig_atomic_t driver_child_sig;
/* ... and SIGHUP this instead of the stop, for a view that reopens its output (view.h). */
extern volatile sig_atomic_t driver_reload_sig;
/*
 * Catch the stop signals and SIGCHLD, blocked but where the loops wait or
 * read; hup_reopens: SIGHUP sets driver_reload_sig, not driver_stop_sig.
 */
void driver_signals(bool hup_reopens);
/* Our handlers again (curses may have put its own SIGINT/SIGTERM handlers in). */
void driver_handlers(void);
/* Let the signals in (while a source is read), block them again, or as before the run. */
void driver_signals_in(void);
void driver_signals_out(void);
void driver_signals_restore(void);
/*
 * Sleep until until, or a signal, or input on fd or on also (-1: none):
 * fd's revents (also's only end the sleep: the VMs' taps' news, read at
 * the tick).  A signal pending when it returns is let in too: its flag is
 * set.
 */
short driver_wait(uint64_t now, uint64_t until, int fd, int also);

/* crash.c: a crash (SIGSEGV, SIGABRT ...) gives drv's view and source a last call. */
void driver_crash_arm(struct driver *drv);
void driver_crash_disarm(void);

/* pipeline.c */
/* A fatal error: the terminal back first, then one line; drv->failed. */
void driver_fail(struct driver *drv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A notice: the view shows it (a batch view on standard error). */
void driver_notice(struct driver *drv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The view takes over the output and is told what there is to know: 0, or -1 (said why). */
int driver_view_up(struct driver *drv);
void driver_view_off(struct driver *drv);
/* Source, decoder and model: 0, or -1 (said why). */
int driver_open(struct driver *drv);
void driver_close(struct driver *drv);
/* A counter source adds what grew: 0, or -1 (said why). */
int driver_sample(struct driver *drv);
/* Live, between samples: a counter source looks for new VMs (at most each SOURCE_DISCOVER_MS): 0, or -1. */
int driver_discover(struct driver *drv, uint64_t now);
/*
 * The samplers that run at when (samplers.h), at now; a figure they
 * cannot measure said once.  0, or -1 (said why).
 */
int driver_samplers(struct driver *drv, uint64_t now, enum sample_when when);
/*
 * Hand what the source has to fn, with the stop signals let in: 0 (all
 * of it), 1 (fn stopped it), -1 (failed, said why; also when fn ran out
 * of memory, drv->nomem).
 */
int driver_read(struct driver *drv, source_rec_fn fn, void *ctx);
/* A new thread's birth kept, for who it was once it is gone (ident_births.c). */
void driver_birth(struct driver *drv, const struct kvm_event *ev);
/*
 * A record's lost events into the model, then its event decoded: 1, 0
 * (not ours, or a birth, kept here: not the model's), -1 (no memory).
 */
static inline int driver_decode(struct driver *drv, struct tep_record *rec, struct kvm_event *ev)
{
	int ret;

	if (rec->missed_events)
		model_lost(drv->m, rec->missed_events);
	ret = decode_record(&drv->d, rec, ev);
	if (ret < 0)
		drv->nomem = true;
	if (ret > 0 && ev->kind == KVM_EV_NEWTASK) {
		driver_birth(drv, ev);
		return 0;
	}
	return ret;
}
/*
 * SIGHUP asked the view to reopen its output (driver_reload_sig): done, between
 * snapshots.  0, or -1 (said why: the run ends, status 1).
 */
int driver_reopen(struct driver *drv);
/*
 * Show the figures of [start, end] and start the next interval (empty > 1:
 * it stands for that many intervals without KVM events): 0, 1 (a normal
 * end), -1 (said why).
 */
int driver_snapshot(struct driver *drv, uint64_t start, uint64_t end, bool at_end, uint64_t empty);
/*
 * The view's keys: its action mask (view.h), or -1 when the view ran out
 * of memory (said why).
 */
int driver_keys(struct driver *drv, uint64_t now);

/* loop_live.c: live until a stop, -n, the workload's end or the view quits: 0, or -1 (said why). */
int loop_live(struct driver *drv);
/* loop_recording.c: a recording, printed as read or browsed on the screen: 0, or -1 (said why). */
int loop_recording(struct driver *drv);

#endif
