/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batch output: a snapshot of the model as text (a table per scope, like
 * perf kvm stat report), CSV (one row per VM, vCPU and reason), JSON
 * Lines (one object per snapshot), the sampled guest IPs as folded
 * stacks for flame graphs, the findings alone, or the totals as
 * Prometheus or OpenMetrics metrics; one table of the formats, looked up
 * by name.  The schema is in man/kvmtop.1.
 */
#ifndef KVMTOP_BATCH_H
#define KVMTOP_BATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "model/findings.h"
#include "metrics.h"
#include "model/model.h"
#include "model/model_fields.h"
#include "model/model_ips.h"
#include "model/model_scope.h"
#include "sym/sym.h"
#include "driver/view.h"

struct batch;
struct json_writer;

/*
 * A batch format, -o NAME: its row is in its own file (batch_text.c,
 * batch_csv.c ...), and batch.c's table lists the rows in -o's order.
 * Besides its printer, what it needs of the run and what may go with it
 * on the command line (main.c tells options.c).
 */
struct batch_format {
	const char *name;
	/* One snapshot, the interval [m->interval_start, end]: 0, or -1 (errno, 0: no memory). */
	int (*print)(struct batch *b, uint64_t end);
	/* At the input's start, NULL: nothing.  0, or -1 (said why). */
	int (*start)(const struct batch *b);
	bool findings;		/* it shows the findings: the driver evaluates them */
	bool ips;		/* it shows the guest IPs: their tables are kept */
	bool totals;		/* it prints the totals since the start only (the metrics) */
	/*
	 * --output FILE: each snapshot replaces FILE (the metrics, for
	 * node_exporter); the other formats append to it, as a log
	 */
	bool replace;
	bool metrics_opts;	/* it takes the --metrics-* options */
	bool ips_only;		/* it writes the guest IPs alone: --ip-slots 0 leaves it nothing */
	bool one_report;	/* it writes one report, the last: live with -d, -n says which */
};

#define BATCH_FIELDS_MAX	256	/* --fields: at most this many (options.h's OPT_FIELDS_MAX) */

struct batch {
	struct view view;	/* the driver's handle on it: batch_view_init */
	FILE *out;
	const struct batch_format *fmt;
	struct json_writer *json;	/* -o json: the snapshot's writer while it prints, else NULL */
	const struct model *m;
	const char *source;	/* "replay" or "live" */
	const char *file;	/* replay: the recording */
	const char *clock;
	const char *time_unit;	/* "ns", "cycles" or "counts" */
	bool ns;
	bool live;		/* the wall clock is CLOCK_MONOTONIC's plus clock_wall_offset() */
	bool wall_known;	/* view_source's: times map to the wall clock */
	bool traced;		/* the source reads each event: latencies, userspace exits (view.h) */
	bool summary;
	double delay;		/* -d, 0: not given */
	unsigned int snapshots;	/* printed so far */
	uint64_t end;		/* the snapshot being printed ends here (batch_print) */
	unsigned int in_file;	/* ... into the output now open: 0, a new file (CSV's header again) */
	/* guest IPs */
	const struct sym_set *syms;	/* guest symbol tables, NULL: none */
	unsigned int ip_top;	/* text and JSON: IPs of each kind per scope, 0: none */
	enum ip_kind folded_kind;	/* which IPs -o folded writes */
	long long iterations;	/* -n: folded writes the last snapshot only */
	bool at_end;		/* this snapshot is the last (end of input or of the run) */
	const struct findings *findings;	/* this snapshot's (the driver's), NULL: none */
	uint64_t empty;		/* > 1: it stands for that many intervals without KVM events */
	unsigned int csv_kstats[KSTAT_SCOPES];	/* KVM statistics in the CSV header, per scope */
	/* metrics formats: their options */
	const struct metrics_opts *metrics;
	/* --output FILE (NULL: stdout): appended to (out), or replaced by the metrics formats */
	const char *output;
	/* what is shown and in which order (kvmtop(1), SCOPE): --sort, --fields, -z */
	const struct model_field *sort;	/* the rows of its kind sorted by it, NULL: their own order */
	bool sort_ascending;		/* -KEY: least first */
	const struct model_field *fields[BATCH_FIELDS_MAX];	/* --fields, in their order */
	unsigned int nr_fields;		/* 0: each format's own columns */
	/* --fields' and --sort's KVM statistics (a family's fields, model_fields.h), made for their names */
	struct model_kstat_field kstat_fields[BATCH_FIELDS_MAX + 1];
	unsigned int nr_kstat_fields;
	bool zero;			/* -z: VMs and vCPUs without KVM events left out */
	/* batch_dump(): the screen's span and mode instead of the model's interval */
	uint64_t start_at;		/* the span starts here, 0: at m->interval_start */
	bool cumulative;		/* the counts since the start or reset, not the interval's */
};

/* What batch output is asked for: main.c fills it from the command line. */
struct batch_config {
	const struct batch_format *fmt;	/* NULL: the default (the table's first) */
	bool summary;			/* --summary */
	double delay;			/* -d, 0: not given */
	long long iterations;		/* -n */
	const struct sym_set *syms;	/* guest symbol tables */
	unsigned int ip_top;		/* IPs of each kind per scope, 0: none */
	enum ip_kind folded_kind;	/* which IPs -o folded writes */
	const struct metrics_opts *metrics;
	const char *output;		/* --output FILE, NULL: stdout; SIGHUP reopens it */
	const char *sort;		/* --sort KEY or -KEY, NULL: none */
	const char *fields;		/* --fields LIST, NULL: none */
	bool zero;			/* -z */
};

/* The formats in -o's order, the default first: the i-th, NULL past the last. */
const struct batch_format *batch_format_at(unsigned int i);
/* The format -o name asks for, NULL: none is called so. */
const struct batch_format *batch_format_find(const char *name);
/* b as a view of the driver's snapshots, printing to stdout or --output as c says: its view. */
struct view *batch_view_init(struct batch *b, const struct batch_config *c);
/* Print the interval [m->interval_start, end]. 0 or -1 (no memory). */
int batch_print(struct batch *b, uint64_t end);
/*
 * The screen's test dump (KVMTOP_SCREEN_JSON, a tui_dump_fn): v, a batch
 * view started by the screen, prints m's figures over [start, end],
 * cumulative or not, as the screen shows them.  0, or -1 (said why).
 */
int batch_dump(struct view *v, const struct model *m, const struct findings *f,
	       uint64_t start, uint64_t end, bool cumulative);

#endif
