/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batch output: a snapshot of the model as text (a table per scope, like
 * perf kvm stat report), CSV (one row per VM, vCPU and reason), JSON
 * Lines (one object per snapshot), or the sampled guest IPs as folded
 * stacks for flame graphs.  The schema is in man/kvmtop.1.
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

enum batch_format {
	BATCH_TEXT,
	BATCH_CSV,
	BATCH_JSON,
	BATCH_FOLDED,	/* one report: the guest IPs as 'vm;vcpu;mode;symbol count' */
	BATCH_PROMETHEUS,	/* the totals as Prometheus text format 0.0.4 (metrics.c) */
	BATCH_OPENMETRICS,	/* the same as OpenMetrics 1.0 */
	BATCH_FINDINGS,		/* each snapshot's findings alone */
};

struct batch {
	struct view view;	/* the driver's handle on it: batch_view_init */
	FILE *out;
	enum batch_format fmt;
	const struct model *m;
	const char *source;	/* "replay" or "live" */
	const char *file;	/* replay: the recording */
	const char *clock;
	const char *time_unit;	/* "ns", "cycles" or "counts" */
	bool ns;
	bool summary;
	double delay;		/* -d, 0: not given */
	unsigned int snapshots;	/* printed so far */
	/* guest IPs */
	const struct sym_set *syms;	/* guest symbol tables, NULL: none */
	unsigned int ip_top;	/* text and JSON: IPs of each kind per scope, 0: none */
	enum ip_kind folded_kind;	/* which IPs -o folded writes */
	long long iterations;	/* -n: folded writes the last snapshot only */
	bool at_end;		/* this snapshot is the last (end of input or of the run) */
	const struct findings *findings;	/* this snapshot's (the driver's), NULL: none */
	uint64_t empty;		/* > 1: it stands for that many intervals without KVM events */
	unsigned int csv_kstats[KSTAT_SCOPES];	/* KVM statistics in the CSV header, per scope */
	/* metrics formats: their options, and --output FILE (NULL: stdout) */
	const struct metrics_opts *metrics;
	const char *output;
};

/* What batch output is asked for: main.c fills it from the command line. */
struct batch_config {
	enum batch_format fmt;
	bool summary;			/* --summary */
	double delay;			/* -d, 0: not given */
	long long iterations;		/* -n */
	const struct sym_set *syms;	/* guest symbol tables */
	unsigned int ip_top;		/* IPs of each kind per scope, 0: none */
	enum ip_kind folded_kind;	/* which IPs -o folded writes */
	const struct metrics_opts *metrics;
	const char *output;		/* --output FILE, NULL: stdout */
};

/* b as a view of the driver's snapshots, printing to stdout as c says: its view. */
struct view *batch_view_init(struct batch *b, const struct batch_config *c);
/* Print the interval [m->interval_start, end]. 0 or -1 (no memory). */
int batch_print(struct batch *b, uint64_t end);

/* What the formats share (batch.c). */
/* The snapshot's length in seconds, 0 when times are not ns. */
double batch_seconds(const struct batch *b, uint64_t end);
/*
 * Is reason field f measured for this input?  A field of the exits'
 * split needs sched events, a sum of seconds ns times.  CSV leaves a
 * field that is not empty, JSON writes null: both carry every field.
 */
bool batch_field_known(const struct batch *b, const struct model_field *f);
/* s's rows with exits since start, most first (free() them): NULL when out of memory. */
const struct model_reason_row **batch_rows(const struct model_scope *s, unsigned int *n);
/* Field f of row as CSV and JSON write it: a number, or a string through esc. */
void batch_machine_value(const struct batch *b, const struct model_field *f,
			 const struct model_row *row, void (*esc)(FILE *f, const char *s));
/*
 * The host kernel's threads that raised KVM events (kworker, kdamond ...):
 * host work, in the host's figures, never a VM.  print writes them when
 * there are any.  0 or -1 (no memory).
 */
int batch_kernel(const struct batch *b,
		 void (*print)(const struct batch *b, const struct vm *k, const struct model_scope *s));

/*
 * Are a vCPU's thieves measured: its wait time from the sched events (not
 * /proc, which says how long, not who)?
 */
bool batch_steal_known(const struct batch *b);

/* The formats: each prints the interval [m->interval_start, end]; 0 or -1 (no memory). */
int batch_text_print(struct batch *b, uint64_t end);
int batch_csv_print(struct batch *b, uint64_t end);
int batch_json_print(struct batch *b, uint64_t end);
/*
 * batch_findings.c: the snapshot's findings in text (always: "none" too),
 * in JSON (its "findings" key), alone (-o findings).
 */
void batch_findings_text(const struct batch *b, bool always);
void batch_findings_json(const struct batch *b);
int batch_findings_print(struct batch *b, uint64_t end);
/* batch_file.c: the metrics formats, to stdout or --output FILE; 0, or -1 with errno. */
int batch_file_metrics(struct batch *b);
/* Can --output's file be made beside it?  0, or -1 (said why). */
int batch_file_check(const struct batch *b);
/* batch_ips.c: the guest IPs of a VM (v NULL) or a vCPU; 0 or -1 (no memory). */
int batch_ips_text(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		   const char *indent);
int batch_ips_json(const struct batch *b, const struct vm *vm, const struct vcpu *v);
int batch_ips_folded(const struct batch *b);
/*
 * batch_kstats.c: KVM's binary statistics of a VM (v NULL) or a vCPU:
 * JSON's "kvm_stats" object (nothing without any), the snapshot's
 * "kvm_stats_info" (each one's kind and unit), CSV's kvm_NAME and
 * kvm_vm_NAME columns (those known when the header is written), text's
 * "kvm stats:" line (the scalars not zero).
 */
void batch_kstats_json(const struct batch *b, const struct vm *vm, const struct vcpu *v);
void batch_kstats_json_info(const struct batch *b);
void batch_kstats_csv_header(struct batch *b);
void batch_kstats_csv(const struct batch *b, const struct vm *vm, const struct vcpu *v);
void batch_kstats_text(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		       const char *indent);

#endif
