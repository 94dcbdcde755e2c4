// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as a view of the driver's snapshots: each snapshot goes to
 * its format's printer (batch_text.c, batch_csv.c, batch_json.c,
 * batch_ips.c for folded stacks, batch_file.c for the metrics formats);
 * what the formats share is below them, in batch_common.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "batch_priv.h"

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
