/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live source: the running kernel's KVM tracepoints, read from kvmtop's
 * own tracefs instance ("kvmtop-<pid>"), and the VMs' threads' scheduler
 * events from a second one ("kvmtop-<pid>-sched", trace_sched.c), never
 * the top-level buffer.  The only caller of libtracefs.
 */
#ifndef KVMTOP_TRACE_H
#define KVMTOP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event-parse.h>

struct tracefs_instance;
struct trace_cpu;

#define TRACE_BUFFER_MAX_KB	65536	/* per CPU, when grown after losses */

/* Event systems kvmtop enables where the kernel has them. */
#define TRACE_SYSTEMS	{ "kvm", "kvm_hv", NULL }

struct trace {
	struct tracefs_instance *inst;
	char name[32];			/* kvmtop-<pid> */
	const char *dir;		/* tracefs mount point */
	bool mounted_by_us;
	struct tep_handle *tep;
	struct trace_cpu *cpus;
	int nr_cpus;
	int page_size;
	size_t buffer_kb;		/* per CPU */
	char clock[16];			/* "mono": the trace clock of the instance */
	unsigned int stale_removed;	/* instances of dead kvmtops removed */
	bool enabled;
	int on_fd;			/* the instance's tracing_on, for a crash to write 0 */
	bool sched;			/* sched events are traced: in the sched instance, or filtered here */
	bool sched_unfiltered;		/* the filter path: the vCPU threads did not fit a kernel filter */
	uint64_t read_to;		/* the last drain took every event up to this time */
	int nr_streams;			/* cpus[]: each CPU's buffer of the kvm instance, then of the sched one */
	/* the sched instance (trace_sched.c); NULL: none (no sched events, or the filter path) */
	struct tracefs_instance *sched_inst;
	char sched_name[40];		/* kvmtop-<pid>-sched */
	size_t sched_kb;		/* its buffer per CPU */
	int sched_on_fd;		/* its tracing_on */
	int pid_fd;			/* its set_event_pid, open to append to */
	bool sched_enabled;		/* its events are on: since the first thread was listed */
	int *listed;			/* the tids written to set_event_pid, ascending */
	size_t nr_listed, listed_alloc;
	int *vms;			/* the VMs (their VMM's pid) whose threads were listed, ascending */
	size_t nr_vms, vms_alloc;
};

/*
 * The running kernel's KVM event formats (TRACE_SYSTEMS), with no
 * instance made: tracefs found in t (mounted if it was not: then
 * t->mounted_by_us), for a source that reads the events elsewhere (the
 * bpf source).  NULL with one line in err.
 */
struct tep_handle *trace_kvm_formats(struct trace *t, char *err, size_t errlen);

#define TRACE_SCHED_SUFFIX	"-sched"
#define TRACE_CHECK_SUFFIX	"-check"

/* The window [from, to) (CLOCK_MONOTONIC ns) trace_count_exits() counts in, before it opens. */
typedef void (*trace_window_fn)(void *ctx, uint64_t from, uint64_t to);

/*
 * The kvm_exit records of a window of ms from now, from an instance of
 * their own ("kvmtop-<pid>-check", removed after), read with tep (the
 * formats trace_kvm_formats() loaded); window(ctx, from, to) is told the
 * window before it opens.  The count, or -1 with one line in err (no
 * instance, or records lost: no count to trust).  Blocks for the window.
 */
int64_t trace_count_exits(struct tep_handle *tep, unsigned int ms, trace_window_fn window, void *ctx, char *err,
			  size_t errlen);

/*
 * Does a count of the exits of a window (got) agree with trace_count_exits()'s
 * (want)?  Each stamps an exit at its own instant, nanoseconds apart: an
 * exit at either edge may fall inside for one and outside for the other,
 * so TRACE_CHECK_EDGES apart is equal.
 */
#define TRACE_CHECK_EDGES	2
bool trace_counts_agree(uint64_t got, uint64_t want);

/*
 * The sched instance: made, its buffers sized (per CPU, a quarter of
 * kb_kvm's, at least 1 MiB), the "mono" clock, options/event-fork on and
 * set_event_pid empty; its events go on with the first thread listed
 * (trace.c opens its CPUs' buffers).  0; 1 when this kernel has no set_event_pid or options/event-fork
 * (before Linux 4.7): nothing made, the caller filters instead; -1 with
 * a one-line reason in err (what it made is undone by trace_close()).
 */
int trace_sched_open(struct trace *t, char *err, size_t errlen);
/*
 * Add the n threads tids to set_event_pid (those written before are left
 * out, unless again: a thread that ended leaves the kernel's list, and
 * its tid may be another's now); the first turns the sched events on.
 * 0, or -1 with errno.
 */
int trace_sched_list(struct trace *t, const int *tids, size_t n, bool again);
/* Is tid one that trace_sched_list() wrote? */
bool trace_sched_listed(const struct trace *t, int tid);
/* Note VM pid: 1 when it is new (its threads are to be listed), 0 known, -1 (no memory). */
int trace_sched_vm(struct trace *t, int pid);
/*
 * Forget the VMs noted that are not among pids (ascending: they ended,
 * and a new VM of the same pid is then new).
 */
void trace_sched_vms_keep(struct trace *t, const int *pids, size_t np);
/* Is pid a VM noted by trace_sched_vm()? */
bool trace_sched_has_vm(const struct trace *t, int pid);
/* The sched instance's fds closed and its lists freed (trace_close removes it). */
void trace_sched_close(struct trace *t);


/* The longest event filter kvmtop writes: the kernel takes less than a page. */
#define TRACE_FILTER_MAX	4000

/*
 * The kernel event filter that keeps events whose field (or field2, when
 * not NULL) is one of the n thread ids tids (ascending), runs written as
 * ranges: "(prev_pid>=100&&prev_pid<=103)||next_pid==7||...".  n == 0
 * gives one that keeps nothing.  0, or -1 when it does not fit in len.
 */
int trace_pid_filter(const int *tids, size_t n, const char *field, const char *field2,
		     char *buf, size_t len);
/*
 * The filter path (no sched instance): keep the sched events of these
 * vCPU threads only (ascending tids): the filters of sched_switch (either
 * side) and sched_waking.  0; 1 when they did not fit a filter and every
 * context switch is traced; -1 on error.  With the sched instance: 0.
 */
int trace_sched_threads(struct trace *t, const int *tids, size_t n);

/* Called for every record, in timestamp order across CPUs. */
typedef int (*trace_fn)(struct tep_record *rec, void *ctx);

/*
 * Find (or mount) tracefs, remove instances left by dead kvmtops, create
 * this one, size its buffers (buffer_kb per CPU, 0: the default for a
 * tick of tick_ms), enable the KVM events and start tracing; with sched,
 * the sched instance too (trace_sched_open(): its events go on with the
 * first thread listed), or on kernels without it the sched events here,
 * filtered to no thread yet (trace_sched_threads()).
 * 0, or -1 with a one-line reason in err (everything already undone).
 */
int trace_open(struct trace *t, unsigned int tick_ms, size_t buffer_kb, bool sched,
	       char *err, size_t errlen);
/*
 * Read every CPU's buffer up to now, in time order.  Pages are read a
 * whole page at a time; an event newer than the start of the drain waits
 * for the next one, so a busy CPU cannot keep the drain going.  Events
 * the kernel overwrote are passed on in rec->missed_events.  t->read_to
 * is then the time up to which every event was taken: the drain's start,
 * or the last event's time when the page budget cut it short.
 * 0, or -1 with errno when a read failed or fn returned non-zero.
 */
int trace_drain(struct trace *t, trace_fn fn, void *ctx);
/* The trace clock's "now", in the records' time base. */
uint64_t trace_now(const struct trace *t);
/*
 * Events were lost: double the per-CPU buffers, up to
 * TRACE_BUFFER_MAX_KB.  1 if they grew, 0 if they cannot.
 */
int trace_grow(struct trace *t);
/* Tracing off, events off, instance removed.  Safe to call twice. */
void trace_close(struct trace *t);
/* Default per-CPU buffer for a drain every tick_ms. */
size_t trace_default_buffer_kb(unsigned int tick_ms);
/*
 * Does this host's KVM run its guests without kvm_exit and kvm_entry?
 * True when, under sys_root (NULL: /sys), a vendor module that raises
 * neither is loaded (kvm_pvm: KVM without hardware virtualization, which
 * switches to its guests itself) and VMX's and SVM's (kvm_intel, kvm_amd)
 * are not; the module's name is then in mod.
 */
bool trace_exitless_kvm(const char *sys_root, char *mod, size_t len);

#endif
