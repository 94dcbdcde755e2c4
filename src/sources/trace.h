/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live source: the running kernel's KVM tracepoints, read from kvmtop's
 * own tracefs instance ("kvmtop-<pid>"), never the top-level buffer.
 * The only caller of libtracefs.
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
	bool sched;			/* sched_switch and sched_waking are enabled, filtered */
	bool sched_unfiltered;		/* the vCPU threads did not fit a kernel filter */
	uint64_t read_to;		/* the last drain took every event up to this time */
};

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
 * Keep the sched events of these vCPU threads only (ascending tids): the
 * filters of sched_switch (either side) and sched_waking.  0; 1 when they
 * did not fit a filter and every context switch is traced; -1 on error.
 */
int trace_sched_threads(struct trace *t, const int *tids, size_t n);

/* Called for every record, in timestamp order across CPUs. */
typedef int (*trace_fn)(struct tep_record *rec, void *ctx);

/*
 * Find (or mount) tracefs, remove instances left by dead kvmtops, create
 * this one, size its buffers (buffer_kb per CPU, 0: the default for a
 * tick of tick_ms), enable the KVM events (and, with sched, the sched
 * events of no thread yet: trace_sched_threads()) and start tracing.
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
