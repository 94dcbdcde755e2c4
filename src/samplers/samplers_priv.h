/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The samplers' files and what they share.  samplers.c holds the table;
 * each row is a file:
 *
 *   samplers.c           the table, what each row cost
 *     sample_ends.c      the threads' ends: the kernel's exit records (taskstats)
 *     sample_times.c     each vCPU thread's time states from /proc (no sched events)
 *     sample_unseen.c    the VMs a source sees no exits of, listed
 *     sample_groups.c    each VM's other threads: emulator, vhost
 *     sample_context.c   each VM's memory, disk, network, pressure, NUMA, who it is
 *       sample_sum.c     its counters into sums over the run, sums into rates
 *
 * No file outside src/samplers/ includes this header.
 */
#ifndef KVMTOP_SAMPLERS_PRIV_H
#define KVMTOP_SAMPLERS_PRIV_H

#include "samplers.h"

struct vm_ctx;

/*
 * A row: it runs at the moments whose bit (1 << enum sample_when) is in
 * when, live only where live.  Its run: the VMs it read (its cost's
 * items; 0 where it counts none), or -1 (no memory).
 */
struct sampler {
	const char *name;
	unsigned int when;
	bool live;
	int (*run)(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);
};

/* sample_times.c: without sched events, each vCPU's states since its last reading; SAMPLE_NEW: the new. */
int sample_times(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);
/* sample_unseen.c: each process holding a VM listed (s->exits_unknown says why). */
int sample_unseen(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);
/*
 * sample_groups.c: each VM's threads that are not its vCPUs, into its
 * groups (a group is known from its second reading on); SAMPLE_NEW: only
 * the VMs never read.  At a snapshot, s->detail_pid's threads one by one.
 */
int sample_groups(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);
/*
 * sample_context.c: SAMPLE_START, every VM read whole and the host; at
 * each tick the VMs that ended marked and each VM's memory, disk and
 * known taps read each CONTEXT_READ_MS, new VMs whole at once; at a
 * snapshot each VM read whole, its rates made (a VM that ended: up to its
 * last reading), the VMs whose last figures were shown let go.  The VMs
 * read.
 */
int sample_context(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);

/*
 * sample_ends.c: the threads' exit records (taskstats) read since, into
 * the VMs they were threads of: a VMM thread's disk bytes, major faults
 * and peak memory, a group's thread's CPU and wait, to its end, from its
 * last reading.  SAMPLE_START opens the socket (the host's own /proc
 * only).  sample_ends_read: the same after the context's reading at now,
 * of which a thread no longer listed ended before (that reading counted
 * it).  The records read, or 0.
 */
int sample_ends(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);
int sample_ends_read(struct samplers *s, struct model *m, uint64_t now, enum sample_when when);

/* sample_sum.c */
/*
 * Reading r of x at now into its sums: levels as read, each counter's
 * growth since its last reading added (born: a first reading counts from
 * zero; at_start or born: its growth from here on is the interval's),
 * each tap's likewise (whole: r lists every tap it holds).
 */
void sample_sum_reading(struct vm_ctx *x, const struct ctx_reading *r, uint64_t now, bool born, bool at_start,
			bool whole);
/*
 * x's tap name ended with counters final (rtnetlink's RTM_DELLINK): its
 * growth since its last reading (at_birth: born and ended between two
 * readings, from its counters then; NULL: its birth not seen) into x's
 * sums and this snapshot.
 */
void sample_sum_tap_end(struct vm_ctx *x, const char *name, const uint64_t *final, const uint64_t *at_birth);
/* x's tap name ended unseen (rtnetlink overran): its growth since its last reading is lost, and marked. */
void sample_sum_tap_lost(struct vm_ctx *x, const char *name);
/*
 * The snapshot of secs seconds: x's rates, its counters' growth since the
 * last snapshot over secs, known where counted from its start on; levels
 * known where read now (bit f of now_known), or, last, as last read (a VM
 * that ended).  Then the next interval starts.
 */
void sample_sum_snapshot(const struct context *c, struct vm_ctx *x, uint32_t now_known, bool last, double secs);
/*
 * x's threads as r read them (r->nr_thr -1: not read, those known stand):
 * what their exit records are measured from (sample_ends.c).  0 or -1
 * (no memory: none kept, its ends are not exact).
 */
int sample_sum_threads(struct vm_ctx *x, const struct ctx_reading *r);

#endif
