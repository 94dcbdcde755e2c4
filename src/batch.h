/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batch output: a snapshot of the model as text (a table per scope, like
 * perf kvm stat report), CSV (one row per VM, vCPU and reason) or JSON
 * Lines (one object per snapshot).  The schema is in man/kvmtop.1.
 */
#ifndef KVMTOP_BATCH_H
#define KVMTOP_BATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "decode.h"

enum batch_format {
	BATCH_TEXT,
	BATCH_CSV,
	BATCH_JSON,
};

struct batch {
	FILE *out;
	enum batch_format fmt;
	const struct model *m;
	const struct decoder *d;
	const char *source;	/* "replay" or "live" */
	const char *file;	/* replay: the recording */
	const char *clock;
	const char *time_unit;	/* "ns", "cycles" or "counts" */
	bool ns;
	bool summary;
	unsigned int snapshots;	/* printed so far */
};

int batch_format_parse(const char *s, enum batch_format *fmt);
/* Print the interval [m->interval_start, end]. 0 or -1 (no memory). */
int batch_print(struct batch *b, uint64_t end);
/*
 * A duration v in the source's unit: with ns, scaled to ns/us/ms/s with
 * decimals digits after the point (ns whole); without, the bare count.
 * The screen and the text output print times through it alike.
 */
void batch_fmt_duration(double v, bool ns, int decimals, char *buf, size_t len);

#endif
