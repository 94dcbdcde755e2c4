// SPDX-License-Identifier: GPL-2.0
/*
 * The fields of a reason row, declared once (model_fields.h).  The order
 * is CSV's column order and JSON's key order; a group's fields are
 * adjacent.  Latency figures are of the exit -> entry pairs the count
 * holds; handling figures of the same pairs' time on a CPU.
 */
#include <string.h>

#include "model_fields.h"

uint64_t model_quantile(const struct hist *h, double q)
{
	return hist_quantile(h, q);
}

#define GET(fn, expr) \
	static void fn(const struct model_reason_row *w, struct model_field_val *v) { expr; }

GET(get_reason, v->s = w->r->name)
GET(get_code, v->u = w->r->code)
GET(get_isa, v->s = kvm_isa_name(w->r->isa))
GET(get_flags, v->s = w->r->flag_names)
GET(get_blocking, v->b = w->r->blocking)
GET(get_count, v->u = w->count)
GET(get_total, v->u = w->total)
GET(get_pct, v->d = w->scope_exits ? 100.0 * (double)w->count / (double)w->scope_exits : 0.0)
GET(get_samples, v->u = w->lat.samples)
GET(get_min, v->u = w->lat.samples ? w->lat.min : 0)
GET(get_mean, v->d = hist_mean(&w->lat))
GET(get_p50, v->u = model_quantile(&w->lat, 0.50))
GET(get_p90, v->u = model_quantile(&w->lat, 0.90))
GET(get_p99, v->u = model_quantile(&w->lat, 0.99))
GET(get_p999, v->u = model_quantile(&w->lat, 0.999))
GET(get_max, v->u = w->lat.max)
GET(get_sum, v->u = hist_sum(&w->lat))
GET(get_h_samples, v->u = w->handling.samples)
GET(get_h_min, v->u = w->handling.samples ? w->handling.min : 0)
GET(get_h_mean, v->d = hist_mean(&w->handling))
GET(get_h_p50, v->u = model_quantile(&w->handling, 0.50))
GET(get_h_p90, v->u = model_quantile(&w->handling, 0.90))
GET(get_h_p99, v->u = model_quantile(&w->handling, 0.99))
GET(get_h_p999, v->u = model_quantile(&w->handling, 0.999))
GET(get_h_max, v->u = w->handling.max)
GET(get_h_sum, v->u = hist_sum(&w->handling))
GET(get_preempted, v->u = w->preempted)
GET(get_blocked, v->u = w->blocked)

#define LAT(n, t, k, fn)	{ n, "latency", n, t, k, MF_LAT, false, fn }
#define HAND(n, t, k, fn)	{ "handling_" n, "handling", n, t, k, MF_HANDLING, true, fn }

const struct model_reason_field model_reason_fields[] = {
	{ "reason",   NULL, "reason",   "REASON",   MF_TEXT, MF_NO_HIST, false, get_reason },
	{ "code",     NULL, "code",     "CODE",     MF_NUM,  MF_NO_HIST, false, get_code },
	{ "isa",      NULL, "isa",      "ISA",      MF_TEXT, MF_NO_HIST, false, get_isa },
	{ "flags",    NULL, "flags",    "FLAGS",    MF_TEXT, MF_NO_HIST, false, get_flags },
	{ "blocking", NULL, "blocking", "BLOCKING", MF_BOOL, MF_NO_HIST, false, get_blocking },
	{ "count",    NULL, "count",    "COUNT",    MF_NUM,  MF_NO_HIST, false, get_count },
	{ "pct",      NULL, "pct",      "%",        MF_PCT,  MF_NO_HIST, false, get_pct },
	{ "total",    NULL, "total",    "TOTAL",    MF_NUM,  MF_NO_HIST, false, get_total },
	{ "samples",  "latency", "samples", "PAIRS", MF_NUM, MF_NO_HIST, false, get_samples },
	LAT("min",  "MIN",   MF_TIME,      get_min),
	LAT("mean", "MEAN",  MF_TIME_MEAN, get_mean),
	LAT("p50",  "P50",   MF_TIME,      get_p50),
	LAT("p90",  "P90",   MF_TIME,      get_p90),
	LAT("p99",  "P99",   MF_TIME,      get_p99),
	LAT("p999", "P99.9", MF_TIME,      get_p999),
	LAT("max",  "MAX",   MF_TIME,      get_max),
	LAT("sum",  "SUM",   MF_TIME,      get_sum),
	{ "handling_samples", "handling", "samples", "HPAIRS", MF_NUM, MF_NO_HIST, true, get_h_samples },
	HAND("min",  "HMIN",     MF_TIME,      get_h_min),
	HAND("mean", "HMEAN",    MF_TIME_MEAN, get_h_mean),
	HAND("p50",  "HAND.P50", MF_TIME,      get_h_p50),
	HAND("p90",  "HP90",     MF_TIME,      get_h_p90),
	HAND("p99",  "HAND.P99", MF_TIME,      get_h_p99),
	HAND("p999", "HP99.9",   MF_TIME,      get_h_p999),
	HAND("max",  "HMAX",     MF_TIME,      get_h_max),
	HAND("sum",  "HSUM",     MF_TIME,      get_h_sum),
	{ "preempted_s", NULL, "preempted_s", "PREEMPTED", MF_SECS, MF_NO_HIST, true, get_preempted },
	{ "blocked_s",   NULL, "blocked_s",   "BLOCKED",   MF_SECS, MF_NO_HIST, true, get_blocked },
};

const unsigned int model_nr_reason_fields = sizeof(model_reason_fields) / sizeof(model_reason_fields[0]);

const struct model_reason_field *model_reason_field(const char *name)
{
	unsigned int i;

	for (i = 0; i < model_nr_reason_fields; i++)
		if (!strcmp(model_reason_fields[i].name, name))
			return &model_reason_fields[i];
	return NULL;
}

void model_reason_value(const struct model_reason_field *f, const struct model_reason_row *row,
			struct model_field_val *v, bool *has)
{
	memset(v, 0, sizeof(*v));
	f->get(row, v);
	switch (f->hist) {
	case MF_LAT:
		*has = row->lat.samples > 0;
		break;
	case MF_HANDLING:
		*has = row->handling.samples > 0;
		break;
	default:
		*has = true;
		break;
	}
}
