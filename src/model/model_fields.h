/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields of a reason row (model_fields.c), declared once: every
 * output picks the ones it shows from this table by name, as htop's
 * screens pick from its Process_fields[].  CSV names its columns by
 * name, JSON its keys by group and key, the text tables and the screen
 * title their columns by title; the man page's OUTPUT section lists them.
 */
#ifndef KVMTOP_MODEL_FIELDS_H
#define KVMTOP_MODEL_FIELDS_H

#include <stdbool.h>
#include <stdint.h>

#include "model_scope.h"

enum model_field_kind {
	MF_TEXT,	/* a string */
	MF_BOOL,
	MF_NUM,		/* a whole number */
	MF_PCT,		/* a share of the scope's exits, % */
	MF_TIME,	/* a latency, in the source's time unit */
	MF_TIME_MEAN,	/* the same, a mean (a fraction) */
	MF_SECS,	/* a sum of time: seconds in CSV and JSON, on ns sources only */
};

/* The histogram a field is a figure of, if any: without samples it has no value. */
enum model_field_hist {
	MF_NO_HIST,
	MF_LAT,		/* exit -> entry */
	MF_HANDLING,	/* its time on a CPU (sched events) */
};

struct model_field_val {
	const char *s;
	uint64_t u;
	double d;
	bool b;
};

struct model_reason_field {
	const char *name;	/* CSV's column; the name outputs pick it by */
	const char *group;	/* JSON: the object it is in ("latency", "handling"), NULL: the row's */
	const char *key;	/* JSON: its key there */
	const char *title;	/* the column's title, in text and on the screen */
	enum model_field_kind kind;
	enum model_field_hist hist;
	bool sched;		/* measured only with sched events (model_time_known() & TIME_SPLIT) */
	void (*get)(const struct model_reason_row *row, struct model_field_val *v);
};

extern const struct model_reason_field model_reason_fields[];
extern const unsigned int model_nr_reason_fields;

/* The field called name, or NULL. */
const struct model_reason_field *model_reason_field(const char *name);
/* Its value in row; *has: the row has one (a latency figure needs samples). */
void model_reason_value(const struct model_reason_field *f, const struct model_reason_row *row,
			struct model_field_val *v, bool *has);
/*
 * A histogram's quantile q as every output shows it: the one place p50,
 * p90, p99 and p99.9 come from.
 */
uint64_t model_quantile(const struct hist *h, double q);

#endif
