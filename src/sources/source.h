/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A source of what kvmtop counts, behind one interface: the running
 * kernel's KVM tracepoints (trace.c) or the same counted in the kernel
 * by BPF (bpf.c), a trace-cmd recording (replay.c),
 * KVM's debugfs counters (debugfs.c), KVM's binary statistics (stats.c).
 * The driver opens one, reads it in batches, asks it who a thread is,
 * and closes it.  They are found by name in one table (sources.c): a new
 * source is a new file with its own ops and a row there, not a branch in
 * the driver or the program.
 */
#ifndef KVMTOP_SOURCE_H
#define KVMTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "ident/ident.h"
#include "decode/names.h"

struct tep_handle;
struct tep_record;

/* Called for each record, in time order; non-zero stops the read. */
typedef int (*source_rec_fn)(struct tep_record *rec, void *ctx);

struct source;

#define SOURCE_DISCOVER_MS	1000
#define SOURCE_BPF_SAMPLES	1000	/* --bpf-samples' default */	/* live: a counter source looks for new VMs this often */

/* What a source is asked to read: the program fills it from its command line. */
struct source_config {
	const char *file;		/* a recording (-r) */
	const char *threads;		/* a recording's threads (--threads FILE) */
	size_t buffer_kb;		/* tracing: per-CPU buffer, 0: sized for the tick */
	bool no_sched;			/* tracing: no sched events */
	const char *debugfs_root;	/* debugfs: DIR/kvm instead of the system's */
	const char *proc_root;		/* stats: DIR laid out as /proc instead of the host's */
	unsigned int bpf_entries;	/* bpf: each map's most entries, 0: the default */
	unsigned int bpf_samples;	/* bpf: exits a second taken as samples (IPs, recent exits), 0: none */
	/* bpf as kvmtop's default: its exits of this many ms from its start against tracefs's, 0: not */
	unsigned int bpf_check_ms;
};

struct source_ops {
	const char *name;	/* what the output calls it: "live", "replay", "debugfs", "stats" */
	/* what --source picks it by ("trace", "stats" ...), NULL: not a live source (-r) */
	const char *select;
	size_t priv_size;	/* s->priv: zeroed by the driver before open, freed after close */
	/*
	 * Start: s->tep (a record source) or counters named in names, and
	 * the clock.  Lines about what it did to the host go to stderr.
	 * 0, or -1 with one line in err, everything undone.
	 */
	int (*open)(struct source *src, const struct source_config *c, struct kvm_names *names,
		    char *err, size_t errlen);
	/*
	 * A record source: hand what is there (live: up to now; a
	 * recording: from where the last read stopped to its end) to fn.
	 * 0: all of it, 1: fn stopped it, -1: failed, one line in err.
	 */
	int (*read)(struct source *src, source_rec_fn fn, void *ctx, char *err, size_t errlen);
	/*
	 * A counter source: add to m what grew since the last call.  0, or
	 * -1 with one line in err (no memory, a file it cannot read).
	 */
	int (*sample)(struct source *src, struct model *m, char *err, size_t errlen);
	/*
	 * Optional, a counter source live: between samples, each
	 * SOURCE_DISCOVER_MS, look for the VMs and vCPUs that came, so one
	 * that lives a few seconds is seen (its figures come at the next
	 * sample).  0, or -1 with one line in err.
	 */
	int (*discover)(struct source *src, struct model *m, char *err, size_t errlen);
	/* Who thread (or counter row) tid is; NULL: the host's /proc says (s->proc). */
	void (*ident)(struct source *src, int tid, struct ident_info *out);
	/*
	 * ident names the host's threads (the bpf source: /proc first, then
	 * what the kernel kept of one gone): /proc has their time states too,
	 * as without ident.  False with ident: rows that are no host thread
	 * (debugfs) or a recording's.
	 */
	bool ident_host;
	/*
	 * Optional: the vCPU threads are now tids (ascending, host kernel
	 * threads left out), of the VMs pids (their VMMs' pids, ascending): trace what
	 * concerns them.  0; 1 when that cannot be narrowed to them
	 * (everything is traced); -1 on error (errno).
	 */
	int (*threads)(struct source *src, const int *tids, size_t n, const int *pids, size_t np);
	/*
	 * Optional: thread tid was born, made by thread creator, named comm
	 * (raw): trace it too where it is a VM's.  0, or -1 on error (errno).
	 */
	int (*born)(struct source *src, int tid, int creator, const char *comm);
	/* Records were lost: grow the buffers.  Their new KiB per CPU, or 0 if they cannot. */
	size_t (*grow)(struct source *src);
	/* Undo everything open did (not after a failed open: that undid itself). */
	void (*close)(struct source *src);
	/*
	 * Optional: kvmtop is crashing (called from a signal handler): stop
	 * what costs others, with async-signal-safe calls only.
	 */
	void (*panic)(struct source *src);
};

struct source {
	const struct source_ops *ops;
	unsigned int tick_ms;	/* live: how often the driver reads (sizes buffers) */
	const struct ident *proc;	/* live: the host's threads and processes */
	/* set by open */
	struct tep_handle *tep;	/* the formats of a record source, NULL: counters */
	const char *file;	/* the recording, NULL live */
	char clock[32];		/* as the output names it: "mono", "tsc2nsec" ... */
	const char *time_unit;	/* "ns", "cycles" or "counts" */
	bool ns;		/* times in ns */
	bool live;		/* the host's now: intervals of wall time, VMs are its processes */
	bool wall;		/* a recording whose timestamps are the wall clock's ns (trace-cmd --date) */
	/*
	 * A counter source that counts every event as a record source does
	 * (the bpf source, in the kernel): exits paired with their entries
	 * (latencies), userspace exits, other events.
	 */
	bool each_event;
	char notice[512];	/* one line to show once the view is up, or "" */
	/*
	 * Live, set by open: when it began counting (the bpf source's first
	 * interval, before its programs were attached and compared), where
	 * that is before open returned: the first snapshot's start, so its
	 * counts and states are of its span.  0: when open returned.
	 */
	uint64_t started_at;
	/*
	 * Live, set by read: every event up to this time (the source's clock)
	 * has been read; later ones wait in the kernel's buffers.  An interval
	 * ends there, not later, or a state change just before its end would
	 * land in the next one.  0: the source does not say.
	 */
	uint64_t read_to;
	/*
	 * A counter source, set by sample: what it added counts up to this
	 * time (the bpf source: where its programs began the next interval,
	 * a moment after the snapshot was due), so the snapshot ends there.
	 * 0: the source does not say.
	 */
	uint64_t sampled_to;
	void *priv;		/* the source's own state, ops->priv_size bytes */
};

extern const struct source_ops source_trace;
extern const struct source_ops source_bpf;
extern const struct source_ops source_replay;
extern const struct source_ops source_debugfs;
extern const struct source_ops source_stats;

/* Every source, live ones first in --source's order, NULL-terminated (sources.c). */
extern const struct source_ops *const sources[];
/* The live source --source NAME picks, or NULL. */
const struct source_ops *source_find(const char *select);

#endif
