// SPDX-License-Identifier: GPL-2.0
/*
 * Replay source.  libtracecmd does the reading: headers, event formats,
 * decompression, ring-buffer pages and the merge of all CPUs in time
 * order (tracecmd_iterate_events picks the oldest record of any CPU, the
 * lowest CPU on a tie), so an exit and its entry on different CPUs pair
 * up as they happened.  Where a file's pages hold its own times (not
 * compressed, no time offsets or conversions) replay_pages.c reads them
 * in place, in the same order, without libtracecmd's cost per record.
 *
 * libtracecmd maps uncompressed CPU data with mmap(); touching a page
 * past the end of a cut file raises SIGBUS.  And the libraries parse a
 * file's metadata and pages with trust: a corrupt print fmt crashes
 * libtraceevent 1.7, a corrupt page crashes libtracecmd 1.3 on its own
 * error path.  The open and the reads run under a fault guard that turns
 * SIGBUS, SIGSEGV, SIGABRT, SIGFPE and SIGILL inside the libraries into
 * an error about the file; a handle a fault left half-way is never used
 * again, and kvmtop ends after saying so.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "replay.h"
#include "replay_pages.h"
#include "source.h"
#include "tracecmd_priv.h"
#include "replay_zlib.h"

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;
/* a crash inside the libraries was caught: their heap may be corrupt (replay_faulted) */
static volatile sig_atomic_t lib_faulted;

/*
 * libtraceevent's kbuffer loops for ever on some corrupt pages (an event
 * whose length does not move it on; trace-cmd report loops too).  While
 * libtracecmd reads, a 1 s timer checks that records keep coming: three
 * ticks in the library without one and the read is abandoned through the
 * same jump as SIGBUS.  Time in kvmtop's own callback (a slow pipe
 * downstream) does not count.
 */
#define REPLAY_STALL_TICKS	3
static volatile sig_atomic_t in_lib, progress, seen, stalled;

static void on_tick(int sig)
{
	(void)sig;
	if (!bus_armed || !in_lib || progress != seen) {
		seen = progress;
		stalled = 0;
		return;
	}
	if (++stalled >= REPLAY_STALL_TICKS)
		siglongjmp(bus_jmp, SIGALRM);
}

static void stall_guard(bool on, struct sigaction *old)
{
	struct itimerval it = { { 1, 0 }, { 1, 0 } };
	struct sigaction sa;

	if (on) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_tick;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, old);
		stalled = 0;
		in_lib = 1;
		setitimer(ITIMER_REAL, &it, NULL);
	} else {
		in_lib = 0;
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		sigaction(SIGALRM, old, NULL);
	}
}

static const int guarded[] = { SIGBUS, SIGSEGV, SIGABRT, SIGFPE, SIGILL };
#define NR_GUARDED	(sizeof(guarded) / sizeof(guarded[0]))

/* The jump's value: the signal (SIGALRM: the stall watchdog). */
static void on_fault(int sig)
{
	if (bus_armed) {
		/* SIGBUS is a page past a cut file's end, the heap untouched */
		if (sig != SIGBUS)
			lib_faulted = 1;
		siglongjmp(bus_jmp, sig);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void bus_guard(bool on, struct sigaction old[NR_GUARDED])
{
	struct sigaction sa;
	size_t i;

	if (on) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fault;
		sigemptyset(&sa.sa_mask);
		for (i = 0; i < NR_GUARDED; i++)
			sigaction(guarded[i], &sa, &old[i]);
		bus_armed = 1;
	} else {
		bus_armed = 0;
		for (i = 0; i < NR_GUARDED; i++)
			sigaction(guarded[i], &old[i], NULL);
	}
}

/* What a fault in the libraries says about the file. */
static void fault_err(const char *path, int sig, const char *where, char *err, size_t errlen)
{
	if (sig == SIGBUS)
		snprintf(err, errlen, "%s: truncated: %s ends before the file says it does", path, where);
	else
		snprintf(err, errlen, "%s: corrupt: the trace libraries crash on its %s (%s)",
			 path, where, strsignal(sig));
}

/*
 * The unit of a recording's timestamps, from its clock's name (the
 * kernel's trace_clock list), not from libtracecmd's in-usecs flag alone:
 * that flag calls uptime's jiffies nanoseconds and boot's nanoseconds
 * counts.  Only x86-tsc needs the flag: trace-cmd converts it to ns
 * (tsc2nsec) when it saved the factors.  A clock not in the list counts
 * in units kvmtop does not know.
 */
static void set_clock(struct replay *r)
{
	static const char *const ns_clocks[] = {
		"local", "global", "mono", "mono_raw", "boot", "tai", "perf", "tsc2nsec",
	};
	const char *clock = tracecmd_get_trace_clock(r->handle);
	unsigned long flags = tracecmd_get_flags(r->handle);
	size_t i;

	if (!clock)
		clock = "local";
	r->ns = false;
	r->time_unit = "counts";
	if (!strcmp(clock, "x86-tsc") || !strcmp(clock, "tsc")) {
		if (flags & TRACECMD_FL_IN_USECS) {
			clock = "tsc2nsec";
			r->ns = true;
		} else {
			r->time_unit = "cycles";
		}
	}
	for (i = 0; i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++)
		if (!strcmp(clock, ns_clocks[i]))
			r->ns = true;
	if (r->ns)
		r->time_unit = "ns";
	strlcpy(r->clock, clock, sizeof(r->clock));
}

int replay_open(struct replay *r, const char *path, char *err, size_t errlen)
{
	struct sigaction old[NR_GUARDED];
	struct replay_layout layout;
	int sig;
	const char *ver;

	memset(r, 0, sizeof(*r));
	r->path = path;
	if (replay_layout(path, &layout, err, errlen))
		return -1;
	if (zlib_codec_register()) {
		snprintf(err, errlen, "cannot register the zlib codec with libtracecmd");
		goto out_layout;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);

	bus_guard(true, old);
	sig = sigsetjmp(bus_jmp, 1);
	if (sig) {
		bus_guard(false, old);
		fault_err(path, sig, sig == SIGBUS ? "data" : "headers and formats", err, errlen);
		goto out_layout;
	}
	r->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	bus_guard(false, old);
	if (!r->handle) {
		snprintf(err, errlen,
			 "%s: cannot read this trace-cmd recording (truncated, corrupt, or compressed with an unknown codec)",
			 path);
		goto out_layout;
	}
	r->tep = tracecmd_get_tep(r->handle);
	tep_set_loglevel(TEP_LOG_NONE);
	r->file_version = tracecmd_get_in_file_version(r->handle);
	if (tracecmd_get_file_compress_proto(r->handle, &r->compression, &ver))
		r->compression = NULL;
	r->cpus = tracecmd_cpus(r->handle);
	if (r->cpus < 0 || r->cpus > REPLAY_CPUS_MAX) {
		/* checked by the walk already; libtracecmd may count otherwise */
		snprintf(err, errlen, "%s: corrupt: it says it has %d CPUs; kvmtop reads recordings of 0 to %d",
			 path, r->cpus, REPLAY_CPUS_MAX);
		goto out_close;
	}
	r->last_off = calloc(r->cpus ? r->cpus : 1, sizeof(*r->last_off));
	if (!r->last_off) {
		snprintf(err, errlen, "out of memory");
		goto out_close;
	}
	if (replay_pages_open(&r->pages, path, &layout, r->tep, r->cpus, err, errlen) < 0)
		goto out_close;
	set_clock(r);
	/* --date's offset is in ns: on a clock of cycles it names no time */
	r->wall = layout.date && r->ns;
	replay_layout_free(&layout);
	return 0;
out_close:
	replay_close(r);
out_layout:
	replay_layout_free(&layout);
	return -1;
}

struct run_ctx {
	replay_fn fn;
	void *ctx;
	struct replay *r;
};

/*
 * On some corrupt pages libtracecmd hands out records of negative size
 * whose offsets go back, for ever (27 million a second, no memory grown).
 * A CPU's records lie one after the other in its data: an offset that does
 * not grow, a CPU the file does not have or a negative size is corrupt.
 */
static int check_record(struct replay *r, const struct tep_record *rec)
{
	if (rec->cpu < 0 || rec->cpu >= r->cpus)
		snprintf(r->bad, sizeof(r->bad), "a record of CPU %d, of %d", rec->cpu, r->cpus);
	else if (rec->size < 0 || rec->record_size < 0)
		snprintf(r->bad, sizeof(r->bad), "a record of size %d at offset %llu (CPU %d)",
			 rec->size, rec->offset, rec->cpu);
	else if (r->last_off[rec->cpu] && rec->offset <= r->last_off[rec->cpu])
		snprintf(r->bad, sizeof(r->bad), "CPU %d's records go back from offset %llu to %llu",
			 rec->cpu, r->last_off[rec->cpu], rec->offset);
	else {
		r->last_off[rec->cpu] = rec->offset;
		return 0;
	}
	return -1;
}

/* Each record, from either reader: non-zero stops the read. */
static int record_cb(struct tep_record *rec, void *data)
{
	struct run_ctx *rc = data;
	int ret;

	in_lib = 0;
	progress++;
	ret = rc->fn(rec, rc->ctx) ? -1 : 0;
	in_lib = 1;
	return ret;
}

/*
 * Each record libtracecmd hands out, checked first.  replay_pages.c's
 * records need no check: it hands them out of the file's own CPUs, each
 * inside its page and after the one before.
 */
static int run_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct run_ctx *rc = data;

	(void)h;
	(void)cpu;
	return check_record(rc->r, rec) ? -1 : record_cb(rec, data);
}

int replay_run(struct replay *r, replay_fn fn, void *ctx, char *err, size_t errlen)
{
	struct run_ctx rc = { fn, ctx, r };
	struct sigaction old[NR_GUARDED], old_alrm;
	int ret;

	if (r->stuck || r->bad[0]) {
		snprintf(err, errlen, "%s: corrupt: its events cannot be read", r->path);
		return -1;
	}
	bus_guard(true, old);
	stall_guard(true, &old_alrm);
	ret = sigsetjmp(bus_jmp, 1);
	if (ret) {
		stall_guard(false, &old_alrm);
		bus_guard(false, old);
		/* libtracecmd's state is half-way through a page: never touched again */
		r->stuck = true;
		if (ret == SIGALRM)
			snprintf(err, errlen,
				 "%s: corrupt: libtracecmd read for %d s without an event (a page it loops on)",
				 r->path, REPLAY_STALL_TICKS);
		else
			fault_err(r->path, ret, "event data", err, errlen);
		return -1;
	}
	if (r->pages) {
		/* -1: r->bad says what is corrupt, unless the callback found it first */
		ret = replay_pages_iterate(r->pages, record_cb, &rc, r->bad, sizeof(r->bad));
		ret = ret == 1 ? -1 : ret;
	} else {
		ret = tracecmd_iterate_events(r->handle, NULL, 0, run_cb, &rc);
	}
	stall_guard(false, &old_alrm);
	bus_guard(false, old);
	r->stopped = ret < 0;
	if (r->bad[0]) {
		snprintf(err, errlen, "%s: corrupt: %s", r->path, r->bad);
		return -1;
	}
	if (ret >= 0 && zlib_codec_failures()) {
		snprintf(err, errlen, "%s: truncated or corrupt: %lu compressed block(s) cannot be read",
			 r->path, zlib_codec_failures());
		return -1;
	}
	return ret < 0 ? 1 : 0;
}

/*
 * A read stopped by its callback (-n, q, an interval of the screen)
 * leaves each CPU's next record peeked, and libtracecmd 3.1's close does
 * not free them: they are read out (already in memory: no page is read)
 * and freed.  A fault here abandons the handle as a read's would.
 */
static void drain_peeked(struct replay *r)
{
	struct sigaction old[NR_GUARDED];
	int cpu;

	bus_guard(true, old);
	if (sigsetjmp(bus_jmp, 1)) {
		bus_guard(false, old);
		r->stuck = true;
		return;
	}
	for (cpu = 0; cpu < r->cpus; cpu++) {
		struct tep_record *rec = tracecmd_read_data(r->handle, cpu);

		if (!rec)
			continue;
		/*
		 * 3.1's iterator leaves a peeked record at a reference count of
		 * 0, which tracecmd_free_record() refuses ("record ref count is
		 * zero!") and so never frees: it is ours alone now.
		 */
		if (!rec->ref_count)
			rec->ref_count = 1;
		tracecmd_free_record(rec);
	}
	bus_guard(false, old);
}

bool replay_faulted(void)
{
	return lib_faulted;
}

void replay_close(struct replay *r)
{
	/* records read in place leave none peeked in libtracecmd */
	if (r->handle && !r->stuck && r->stopped && !r->bad[0] && !r->pages)
		drain_peeked(r);
	replay_pages_close(r->pages);
	r->pages = NULL;
	if (r->handle && !r->stuck)
		tracecmd_close(r->handle);
	r->stopped = false;
	free(r->last_off);
	r->last_off = NULL;
	r->handle = NULL;
}

const char *replay_comm(struct replay *r, int tid)
{
	if (!tep_is_pid_registered(r->tep, tid))
		return NULL;
	return tep_data_comm_from_pid(r->tep, tid);
}

/* --- the source: a trace-cmd recording --- */

static int replay_source_open(struct source *src, const struct source_config *c, struct kvm_names *names,
		    char *err, size_t errlen)
{
	struct replay *rp = src->priv;

	(void)names;	/* the decoder names what the formats hold */
	if (replay_open(rp, c->file, err, errlen))
		return -1;
	/* after replay_open, which starts rp afresh */
	if (c->threads && ident_threads_load(&rp->threads, c->threads, err, errlen)) {
		replay_close(rp);
		return -1;
	}
	src->tep = rp->tep;
	src->file = c->file;
	strlcpy(src->clock, rp->clock, sizeof(src->clock));
	src->time_unit = rp->time_unit;
	src->ns = rp->ns;
	src->live = false;
	src->wall = rp->wall;
	return 0;
}

static int replay_source_read(struct source *src, source_rec_fn fn, void *ctx, char *err, size_t errlen)
{
	return replay_run(src->priv, fn, ctx, err, errlen);
}

static void replay_source_ident(struct source *src, int tid, struct ident_info *out)
{
	struct replay *rp = src->priv;
	const char *comm = replay_comm(rp, tid);

	/*
	 * A trace-cmd recording has no thread -> process map: the
	 * --threads snapshot's, else a kernel thread by its name, else the
	 * guess by tid - vCPU id (kvmtop(1), "Recordings").
	 */
	strlcpy(out->comm, comm ? comm : "", sizeof(out->comm));
	if (ident_threads_find(rp->threads, tid, out))
		return;
	out->kernel = comm && ident_kernel_comm(comm);
	if (out->kernel)
		return;
	ident_guess(tid, out->comm, out->vcpu_hint, out);
}

static void replay_source_close(struct source *src)
{
	struct replay *rp = src->priv;

	replay_close(rp);
	ident_threads_free(rp->threads);
	rp->threads = NULL;
}

const struct source_ops source_replay = {
	.name = "replay",
	.priv_size = sizeof(struct replay),
	.open = replay_source_open,
	.read = replay_source_read,
	.ident = replay_source_ident,
	.close = replay_source_close,
};
