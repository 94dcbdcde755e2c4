// SPDX-License-Identifier: GPL-2.0
/*
 * A recording: its records read in time order, its intervals (-d, in the
 * recording's own time) closed by the cursor as the records pass them.
 * Batch output prints each interval as it closes, then the last one (or
 * one summary without -d); --duration ends the input that long after its
 * first event, as if the recording ended there.  The screen comes up at
 * once and steps through the intervals with [ ]: the cursor reads on to
 * the interval asked for, or reads the recording again from its start.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver_priv.h"
#include "util/clock.h"
#include "model/model_feed.h"
#include "model/model_time.h"

/* The screen reading a recording: the clock is looked at every this many records + 1 ... */
#define PROGRESS_MASK	4095
/* ... and a frame drawn this often; */
#define PROGRESS_NS	200000000ull
/* how far each CPU's records are, for the CPUs below this (more: the share is low) */
#define PROGRESS_CPUS	512

/* A recording read on the screen: how far, from its records' file offsets. */
struct progress {
	bool on;
	uint64_t n;		/* records */
	uint64_t at;		/* the last frame, clock_mono_ns() */
	uint64_t size;		/* the file's, 0: not known */
	uint64_t first[PROGRESS_CPUS], last[PROGRESS_CPUS];
};

/* Where the reading of the recording is, in its intervals. */
struct cursor {
	struct driver *drv;
	uint64_t step;		/* an interval's length in the recording's time; 0: one report */
	uint64_t next;		/* the end of the current interval */
	bool started;		/* the first event placed the intervals */
	bool iv_done;		/* the screen's interval is complete: read no more */
	bool exhausted;		/* the recording was read to its end */
	bool read_from;		/* some of it was read: a new reading opens it again */
	long seen;		/* intervals closed on the way to the screen's */
	uint64_t iv_end;	/* the end of the screen's interval */
	struct kvm_event held;	/* the event that ended the screen's interval */
	bool have_held;
	/* --duration: an event at or after this ends the input (0: the first places it) */
	uint64_t until;		/* UINT64_MAX: none */
	bool cut;		/* ... and one did */
	/*
	 * An event at or after this needs more than the model (an interval
	 * ends, --duration's end, or 0: the first event places them), so
	 * every other event takes one comparison: the least of them, kept by
	 * cursor_watch(); UINT64_MAX: none.
	 */
	uint64_t watch;
	struct progress prog;
};

static uint64_t step_ns(const struct driver_config *c)
{
	return (uint64_t)llround((c->delay ? c->delay : 1.0) * 1e9);
}

/* The end of the interval after the one ending at t, saturating. */
static uint64_t after(uint64_t t, uint64_t step)
{
	return t > UINT64_MAX - step ? UINT64_MAX : t + step;
}

/*
 * The interval ended at end: printed, or on the screen counted until it
 * is the one asked for.  0, 1 (stop), -1.
 */
static int interval_end(struct cursor *cur, uint64_t end)
{
	struct driver *drv = cur->drv;

	if (!drv->interval)
		return driver_snapshot(drv, drv->m->interval_start, end, false, 0);
	if (++cur->seen == drv->interval) {
		cur->iv_end = end;
		cur->iv_done = true;
		return 0;
	}
	/* as a snapshot's end does: the states that span it are split there, not all in the next */
	model_time_to(drv->m, end);
	if (model_interval_end(drv->m, end)) {
		drv->nomem = true;
		return -1;
	}
	return 0;
}

/*
 * The interval ending at cur->next was shown; the next ends one step
 * later.  In batch output, a run of two or more intervals that end before
 * the event at t, and so hold no KVM event, is one snapshot saying how
 * many: a gap of 10^15 ns at -d 0.001 is one line, not 10^12.  The screen
 * steps through every interval: it asks for them one at a time.
 */
static int skip_empty(struct cursor *cur, uint64_t t)
{
	struct driver *drv = cur->drv;
	uint64_t start = cur->next, n, end;
	int ret;

	cur->next = after(cur->next, cur->step);
	if (drv->interval || cur->next == UINT64_MAX || t < after(cur->next, cur->step))
		return 0;
	n = (t - start) / cur->step;
	end = n > (UINT64_MAX - start) / cur->step ? UINT64_MAX : start + n * cur->step;
	drv->m->interval_start = start;
	ret = driver_snapshot(drv, start, end, false, n);
	if (ret)
		return ret;
	cur->next = after(end, cur->step);
	return drv->done ? 1 : 0;
}

/* The intervals that end before ev, closed: 0, 1 (stop), -1.  Out of feed's way. */
static __attribute__((noinline)) int feed_intervals(struct cursor *cur, const struct kvm_event *ev)
{
	struct driver *drv = cur->drv;
	int ret;

	if (!cur->started) {
		cur->started = true;
		cur->next = after(ev->time, cur->step);
	}
	/* Close every interval that ended before this event. */
	while (ev->time >= cur->next && cur->next != UINT64_MAX) {
		if (!drv->m->have_time)
			drv->m->interval_start = cur->next - cur->step;
		ret = interval_end(cur, cur->next);
		if (ret)
			return ret;
		if (cur->iv_done) {
			/* the screen's interval is complete: keep ev for the next one */
			cur->held = *ev;
			cur->have_held = true;
			return 1;
		}
		if (drv->done)
			return 1;
		ret = skip_empty(cur, ev->time);
		if (ret)
			return ret;
	}
	return 0;
}

/* The least time an event must be looked at for: cur->watch. */
static void cursor_watch(struct cursor *cur)
{
	uint64_t w = UINT64_MAX;

	if (cur->step)
		w = !cur->started ? 0 : cur->next;
	cur->watch = cur->until < w ? cur->until : w;
}

/*
 * --duration: the first event places the end; an event at or after it
 * ends the input, itself left out, as an event at an interval's end is
 * not that interval's.  1: the end, 0: on.
 */
static int cursor_until(struct cursor *cur, const struct kvm_event *ev)
{
	uint64_t d = (uint64_t)llround(cur->drv->c->duration * 1e9);

	if (!cur->until) {
		cur->until = after(ev->time, d);
		return 0;
	}
	cur->cut = true;
	return 1;
}

/* An event at or after cur->watch: --duration's end, the intervals it ends.  0, 1 (stop), -1. */
static __attribute__((noinline)) int cursor_watched(struct cursor *cur, const struct kvm_event *ev)
{
	int ret = 0;

	if (ev->time >= cur->until && cursor_until(cur, ev))
		return 1;
	if (cur->step && (!cur->started || (ev->time >= cur->next && cur->next != UINT64_MAX)))
		ret = feed_intervals(cur, ev);
	cursor_watch(cur);
	return ret;
}

/* One decoded event into drv's model, closing the intervals it ends: 0, 1 (stop), -1. */
static inline int feed(struct cursor *cur, struct driver *drv, const struct kvm_event *ev)
{
	int ret;

	/* most events end no interval and are not --duration's end */
	if (ev->time >= cur->watch) {
		ret = cursor_watched(cur, ev);
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
 * Every PROGRESS_MASK + 1 records of a recording read on the screen:
 * where rec's CPU is in the file, and each PROGRESS_NS a frame of the
 * figures so far.  0, 1 (the user quit), -1 (no memory).  Each CPU's
 * records are one stretch of the file read in order, so the stretches
 * behind the offsets seen are what was read (sampled: a CPU's first
 * sample is a little after its start).
 */
static int progress_tick(struct cursor *cur, const struct tep_record *rec)
{
	struct driver *drv = cur->drv;
	struct progress *pg = &cur->prog;
	struct view_progress p = { .m = drv->m, .records = pg->n, .permille = -1 };
	uint64_t now = clock_mono_ns(), done = 0;
	int act, c;

	if (rec && rec->cpu >= 0 && rec->cpu < PROGRESS_CPUS) {
		if (!pg->first[rec->cpu])
			pg->first[rec->cpu] = rec->offset;
		pg->last[rec->cpu] = rec->offset;
	}
	if (rec && now - pg->at < PROGRESS_NS)
		return 0;
	pg->at = now;
	for (c = 0; c < PROGRESS_CPUS; c++)
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
static int progress_start(struct cursor *cur)
{
	struct driver *drv = cur->drv;
	struct stat st;

	if (!drv->screen || !drv->v->ops->progress || driver_view_up(drv))
		return drv->failed ? -1 : 0;
	memset(&cur->prog, 0, sizeof(cur->prog));
	cur->prog.on = true;
	cur->prog.size = drv->src.file && !stat(drv->src.file, &st) && st.st_size > 0 ? (uint64_t)st.st_size : 0;
	return progress_tick(cur, NULL);
}

/* The one path of every record of a recording: decoded, and fed to the model. */
static int cursor_record(struct tep_record *rec, void *ctx)
{
	struct cursor *cur = ctx;
	struct driver *drv = cur->drv;
	struct kvm_event ev;
	int ret;

	/* a recording stops at once on a signal */
	if (driver_stop_sig)
		return 1;
	if (cur->prog.on && !(++cur->prog.n & PROGRESS_MASK)) {
		ret = progress_tick(cur, rec);
		if (ret)
			return ret;
	}
	ret = driver_decode(drv, rec, &ev);
	if (ret <= 0)
		return ret;
	return feed(cur, drv, &ev);
}

/* Read on to the end of the recording or of the screen's interval: 0, 1 (stop), -1 (said why). */
static int cursor_pull(struct cursor *cur)
{
	struct driver *drv = cur->drv;
	int ret;

	if (cur->exhausted || drv->done || cur->iv_done)
		return 0;
	cur->read_from = true;
	ret = driver_read(drv, cursor_record, cur);
	if (ret < 0)
		return -1;
	if (drv->stop || driver_stop_sig)
		return 1;
	if (!ret) {
		cur->exhausted = true;
		if (!drv->m->events.total)
			driver_notice(drv, "the recording holds no KVM events%s",
				      drv->d.nr_exit_formats + drv->d.nr_entry_formats + drv->d.nr_other ?
				      "" : " (KVM tracepoints were not recorded)");
	}
	return 0;
}

/* Start reading the recording again for interval k (0: all of it): 0, or -1 (said why). */
static int cursor_reopen(struct cursor *cur, long k)
{
	struct driver *drv = cur->drv;

	if (cur->read_from) {
		driver_close(drv);
		cur->read_from = false;
		if (driver_open(drv))
			return -1;
	}
	drv->interval = k;
	cur->seen = 0;
	cur->started = drv->done = cur->iv_done = cur->exhausted = cur->have_held = cur->cut = false;
	/* --duration cuts batch output (the screen steps through all of it) */
	cur->until = drv->c->duration && !drv->screen ? 0 : UINT64_MAX;
	/* intervals: the screen's [ ], or -d in batch output */
	cur->step = k || (!drv->screen && drv->c->delay) ? step_ns(drv->c) : 0;
	cursor_watch(cur);
	if (cur->step && !drv->src.ns) {
		driver_fail(drv, "%s: -d needs a clock in nanoseconds; this recording's clock '%s' counts %s",
			    drv->src.file, drv->src.clock, drv->src.time_unit);
		return -1;
	}
	return 0;
}

/* On from where the recording stopped: interval k - 1 ends where it did.  0, or -1 (no memory). */
static int cursor_on(struct cursor *cur, long k)
{
	struct driver *drv = cur->drv;

	drv->interval = k;
	cur->iv_done = false;
	if (model_interval_end(drv->m, cur->next))
		return -1;
	cur->next = after(cur->next, cur->step);
	cursor_watch(cur);
	if (cur->have_held) {
		cur->have_held = false;
		if (feed(cur, drv, &cur->held) < 0)
			return -1;
	}
	return 0;
}

/*
 * The screen on a recording: read interval k of -d seconds (default 1;
 * 0: all of it) into a new model, or on from the last one when k
 * follows it, and show it.  0, or -1 (said why).
 */
static int cursor_load(struct cursor *cur, long k)
{
	struct driver *drv = cur->drv;
	uint64_t start, end;
	int ret;

	if (k >= 2 && drv->interval == k - 1 && cur->iv_done) {
		if (cursor_on(cur, k)) {
			driver_fail(drv, "out of memory");
			return -1;
		}
	} else if (cursor_reopen(cur, k)) {
		return -1;
	}
	/* the screen comes up before the reading: a first frame at once, then how far */
	ret = progress_start(cur);
	if (!ret)
		ret = cursor_pull(cur);
	cur->prog.on = false;
	if (ret)
		return ret < 0 ? -1 : 0;
	/* at the end of the recording, exits still waiting become unmatched */
	if (!cur->iv_done)
		model_finish(drv->m);
	start = drv->m->have_time ? drv->m->first_time : 0;
	end = drv->m->have_time ? drv->m->last_time : 0;
	if (k == 0) {
		/* intervals start at the first KVM event, as with -b -d */
		drv->nr_intervals = drv->src.ns && drv->m->have_time ?
				    (long)((end - start) / step_ns(drv->c)) + 1 : 0;
	} else {
		start = drv->m->interval_start;
		if (cur->iv_done)
			end = cur->iv_end;
	}
	return driver_snapshot(drv, start, end, true, 0) < 0 ? -1 : 0;
}

/*
 * The screen on a recording: up once its headers and layout are read and
 * checked (a file bad there never flashes it), showing how far the
 * reading of the rest is; then its keys until it quits.  0, or -1 (said
 * why).
 */
static int browse(struct cursor *cur)
{
	struct driver *drv = cur->drv;
	uint64_t now = clock_mono_ns();

	drv->browsing = true;
	if (cursor_load(cur, 0))
		return -1;
	while (!driver_stop_sig && !drv->stop && !drv->done) {
		short rev = driver_wait(now, now + (uint64_t)drv->tick_ms * 1000000ull, drv->v->fd, -1);
		int act;

		/* the terminal went away (closed window, dead ssh): stop, as on SIGHUP */
		if (rev & (POLLHUP | POLLERR | POLLNVAL))
			break;
		now = clock_mono_ns();
		act = driver_keys(drv, now);
		if (act < 0)
			return -1;
		if (act & VIEW_QUIT)
			break;
		if (act & VIEW_RESET)
			model_reset(drv->m, now);
		if ((act & VIEW_INTERVAL) && cursor_load(cur, drv->v->interval))
			return -1;
	}
	return 0;
}

/*
 * Batch output: read it all, each interval printed as it closes, then
 * the last one (or the one summary).  Its first snapshot brings the view
 * up, so a file that turns out corrupt gets its one line alone, not after
 * the decoder's notices.  0, or -1 (said why).
 */
static int print_all(struct cursor *cur)
{
	struct driver *drv = cur->drv;
	uint64_t end;

	if (!driver_stop_sig && !drv->stop && !drv->done && cursor_pull(cur) < 0)
		return -1;
	/* the input or --duration ended, or --summary: the last figures; a signal: nothing more */
	if (drv->done || drv->stop || drv->failed || driver_stop_sig ||
	    !(cur->exhausted || cur->cut || drv->c->summary))
		return 0;
	/* cut: its last snapshot ends where --duration does, not at the last event before */
	end = cur->cut ? cur->until : drv->m->have_time ? drv->m->last_time : 0;
	model_finish(drv->m);
	if (drv->c->summary)
		drv->m->interval_start = drv->m->first_time;
	return driver_snapshot(drv, drv->m->interval_start, end, true, 0) < 0 ? -1 : 0;
}

int loop_recording(struct driver *drv)
{
	struct cursor cur = { .drv = drv };
	int ret;

	if (cursor_reopen(&cur, 0))
		return -1;
	ret = drv->screen ? browse(&cur) : print_all(&cur);
	if (ret)
		return -1;
	/* a recording's batch output stopped by a signal: as if killed by it, but tidily */
	ret = driver_stop_sig && !drv->screen ? 128 + driver_stop_sig : 0;
	/* an exporter serves a recording's final figures until it is stopped: that is its end */
	if (drv->v->linger && !drv->failed) {
		while (!driver_stop_sig)
			driver_wait(0, 1000000000ull, -1, -1);
		ret = 0;
	}
	return ret;
}
