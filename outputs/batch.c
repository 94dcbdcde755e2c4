// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as a view of the driver's snapshots: each snapshot goes to
 * its format's printer (batch_text.c, batch_csv.c, batch_json.c,
 * batch_ips.c for folded stacks, batch_file.c for the metrics formats),
 * and what the formats share is here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"

double batch_seconds(const struct batch *b, uint64_t end)
{
	uint64_t t = end - b->m->interval_start;

	return b->ns ? (double)t / 1e9 : 0.0;
}

bool batch_field_known(const struct batch *b, const struct model_field *f)
{
	if (f->sched && !(model_time_known(b->m) & TIME_SPLIT))
		return false;
	return f->kind != MF_SECS || b->ns;
}

const struct model_reason_row **batch_rows(const struct model_scope *s, unsigned int *n)
{
	const struct model_reason_row **rows = calloc(s->nr ? s->nr : 1, sizeof(*rows));

	*n = rows ? model_scope_sorted(s, rows) : 0;
	return rows;
}

void batch_machine_value(const struct batch *b, const struct model_field *f,
			 const struct model_row *row, void (*esc)(FILE *f, const char *s))
{
	struct model_field_val v;
	bool has;

	model_field_value(f, row, &v, &has);
	switch (f->kind) {
	case MF_INT:
		fprintf(b->out, "%" PRId64, v.i);
		return;
	case MF_TEXT:
		esc(b->out, v.s);
		return;
	case MF_BOOL:
		fputs(v.b ? "true" : "false", b->out);
		return;
	case MF_NUM:
	case MF_TIME:
		fprintf(b->out, "%" PRIu64, v.u);
		return;
	case MF_PCT:
		fprintf(b->out, "%.2f", v.d);
		return;
	case MF_TIME_MEAN:
		fprintf(b->out, "%.1f", v.d);
		return;
	case MF_SECS:
		fprintf(b->out, "%.9f", (double)v.u / 1e9);
		return;
	}
}

bool batch_steal_known(const struct batch *b)
{
	const char *src = model_time_source(b->m, VS_WAIT);

	return b->m->max_thieves && src && !strcmp(src, "trace");
}

int batch_kernel(const struct batch *b,
		 void (*print)(const struct batch *b, const struct vm *k, const struct model_scope *s))
{
	const struct vm *k = model_kernel_vm(b->m);
	struct model_scope s;

	if (!k)
		return 0;
	if (model_scope_vm(&s, b->m, k, false)) {
		model_scope_free(&s);
		return -1;
	}
	print(b, k, &s);
	model_scope_free(&s);
	return 0;
}

int batch_print(struct batch *b, uint64_t end)
{
	int ret;

	switch (b->fmt) {
	case BATCH_PROMETHEUS:
	case BATCH_OPENMETRICS:
		ret = batch_file_metrics(b);
		break;
	case BATCH_CSV:
		ret = batch_csv_print(b, end);
		break;
	case BATCH_JSON:
		ret = batch_json_print(b, end);
		break;
	case BATCH_FOLDED:
		ret = batch_ips_folded(b);
		break;
	case BATCH_FINDINGS:
		ret = batch_findings_print(b, end);
		break;
	default:
		ret = batch_text_print(b, end);
		break;
	}
	fflush(b->out);
	b->snapshots++;
	return ret;
}

/* --- the view: batch output as the driver's snapshots come --- */

static int view_start(void *ctx, const struct view_source *src, const struct model *m)
{
	struct batch *b = ctx;

	b->m = m;
	b->source = src->name;
	b->file = src->file;
	b->clock = src->clock;
	b->time_unit = src->time_unit;
	b->ns = src->ns;
	/* a recording without -d: one report of all of it */
	if (!src->live && !b->delay)
		b->summary = true;
	/* --output: can a file be made beside it?  Said now, not at the first snapshot */
	return b->output ? batch_file_check(b) : 0;
}

static int view_refresh(void *ctx, const struct snapshot *s)
{
	struct batch *b = ctx;

	b->at_end = s->at_end;
	b->empty = s->empty;
	b->findings = s->findings;
	errno = 0;
	if (batch_print(b, s->end)) {
		if (!errno)
			errno = ENOMEM;
		return -1;
	}
	if (fflush(b->out) == 0 && !ferror(b->out))
		return 0;
	/* kvmtop -b | head: the reader went away, a normal end */
	return errno == EPIPE ? 1 : -1;
}

static void view_notice(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "kvmtop: %s\n", msg);
}

static void view_stop(void *ctx)
{
	(void)ctx;
}

static const struct view_ops batch_view_ops = {
	.name = "batch",
	.findings = true,
	.ips = true,
	.start = view_start,
	.refresh = view_refresh,
	.notice = view_notice,
	.stop = view_stop,
};

struct view *batch_view_init(struct batch *b, const struct batch_config *c)
{
	memset(b, 0, sizeof(*b));
	b->out = stdout;
	b->fmt = c->fmt;
	b->summary = c->summary;
	b->delay = c->delay;
	b->metrics = c->metrics;
	b->output = c->output;
	b->syms = c->syms;
	b->ip_top = c->ip_top;
	b->folded_kind = c->folded_kind;
	b->iterations = c->iterations;
	view_init(&b->view, &batch_view_ops, b, -1);
	/* text, JSON and -o findings show them; the rest are not worked out for nothing */
	b->view.findings = b->fmt == BATCH_TEXT || b->fmt == BATCH_JSON || b->fmt == BATCH_FINDINGS;
	b->view.totals = b->fmt == BATCH_PROMETHEUS || b->fmt == BATCH_OPENMETRICS;
	/* the guest IPs are in text, JSON and folded stacks */
	b->view.ips = b->fmt == BATCH_TEXT || b->fmt == BATCH_JSON || b->fmt == BATCH_FOLDED;
	return &b->view;
}
