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

#include "batch_metrics.h"
#include "model.h"
#include "sym.h"
#include "view.h"

enum batch_format {
	BATCH_TEXT,
	BATCH_CSV,
	BATCH_JSON,
	BATCH_FOLDED,	/* one report: the guest IPs as 'vm;vcpu;mode;symbol count' */
	BATCH_PROMETHEUS,	/* the totals as Prometheus text format 0.0.4 (batch_metrics.c) */
	BATCH_OPENMETRICS,	/* the same as OpenMetrics 1.0 */
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
	uint64_t empty;		/* > 1: it stands for that many intervals without KVM events */
	unsigned int csv_kstats[KSTAT_SCOPES];	/* KVM statistics in the CSV header, per scope */
	/* metrics formats: their options, and --output FILE (NULL: stdout) */
	const struct metrics_opts *metrics;
	const char *output;
};

int batch_format_parse(const char *s, enum batch_format *fmt);
struct options;
/* b as a view of the driver's snapshots, printing to stdout as o says. */
void batch_view_init(struct batch *b, const struct options *o);
/* Print the interval [m->interval_start, end]. 0 or -1 (no memory). */
int batch_print(struct batch *b, uint64_t end);
/* src/batch_ips.c: the guest IPs of a VM (v NULL) or a vCPU; 0 or -1 (no memory). */
int batch_ips_text(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		   const char *indent);
int batch_ips_json(const struct batch *b, const struct vm *vm, const struct vcpu *v);
int batch_ips_folded(const struct batch *b);
/*
 * src/batch_kstats.c: KVM's binary statistics of a VM (v NULL) or a vCPU:
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
