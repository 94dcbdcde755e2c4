/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model as Prometheus metrics (metrics.c): the text format
 * 0.0.4 or OpenMetrics 1.0, for -b -o prometheus|openmetrics and the
 * --listen exporter.  man/kvmtop.1's METRICS section lists the families.
 */
#ifndef KVMTOP_METRICS_H
#define KVMTOP_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

#define METRICS_MAX_LE	32

/* --metrics-latency: where the exit-latency histograms are kept apart */
enum metrics_latency {
	ML_HOST,		/* per reason, the host's (default): R series sets */
	ML_VM,			/* per VM and reason */
	ML_VCPU,		/* per vCPU and reason */
};

struct metrics_opts {
	bool per_vcpu;		/* --metrics-per-vcpu: exits and states per vCPU */
	enum metrics_latency latency;
	bool stolen;		/* --metrics-stolen: each vCPU's thieves */
	bool objects;		/* --metrics-objects: each VM's exits by reason and object */
	bool identity;		/* --metrics-identity: kvmtop_vm_info, each VM's name and UUID */
	bool ns;		/* the source's times are ns: latencies and states in seconds */
	uint64_t le_ns[METRICS_MAX_LE];	/* the latency histogram's bucket bounds, ascending */
	unsigned int nr_le;
};

/* The default: 1 us to 1 s in 19 bounds. */
void metrics_opts_init(struct metrics_opts *o);
#define METRICS_FAMILIES	25

/* A piece of a document: len bytes at p. */
struct metrics_seg {
	const char *p;
	size_t len;
};

/*
 * One rendering of the model in both formats, without copying: [0] the
 * text format 0.0.4, [1] OpenMetrics, each a list of segments (a
 * family's header, then its lines, shared by both) of total[k] bytes.
 */
struct metrics_doc {
	struct metrics_seg seg[2][2 * METRICS_FAMILIES + 1];
	unsigned int nr[2];
	size_t total[2];
	char *body[METRICS_FAMILIES];	/* each family's lines */
	char *heads;			/* every header, both formats */
};

/* 0, or -1 (no memory: d is empty). */
int metrics_doc(struct metrics_doc *d, const struct model *m, const struct metrics_opts *o);
void metrics_doc_free(struct metrics_doc *d);
/*
 * Every family of the model's totals, as text format 0.0.4 into text and
 * as OpenMetrics 1.0 into om (either may be NULL; both come from one
 * walk of the model): 0, or -1 (no memory).
 */
int metrics_print(FILE *text, FILE *om, const struct model *m, const struct metrics_opts *o);

#endif
