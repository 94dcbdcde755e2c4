// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as a view of the driver's snapshots, and the table of its
 * formats: each snapshot goes to its format's printer (batch_text.c,
 * batch_csv.c, batch_json.c, batch_ips.c for folded stacks,
 * batch_findings.c, batch_file.c for the metrics formats), and the
 * format's row says what the driver works out for it.  What the formats
 * share is below them, in batch_common.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "batch_priv.h"

/*
 * The formats, in -o's order: the first is the default.  A new format is
 * its file with its row (and the row's declaration in batch_priv.h), a
 * line here, and its file in Makefile.am.
 */
static const struct batch_format *const batch_formats[] = {
	&batch_format_text,
	&batch_format_csv,
	&batch_format_json,
	&batch_format_folded,
	&batch_format_prometheus,
	&batch_format_openmetrics,
	&batch_format_findings,
};

#define NR_BATCH_FORMATS	(sizeof(batch_formats) / sizeof(batch_formats[0]))

const struct batch_format *batch_format_at(unsigned int i)
{
	return i < NR_BATCH_FORMATS ? batch_formats[i] : NULL;
}

const struct batch_format *batch_format_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < NR_BATCH_FORMATS; i++)
		if (!strcmp(batch_formats[i]->name, name))
			return batch_formats[i];
	return NULL;
}

int batch_print(struct batch *b, uint64_t end)
{
	int ret;

	b->end = end;
	if (!b->snapshots)
		batch_kstat_fields_check(b);	/* the source has read KVM's statistics by now */
	ret = b->fmt->print(b, end);

	fflush(b->out);
	b->snapshots++;
	b->in_file++;
	return ret;
}

int batch_dump(struct view *v, const struct model *m, const struct findings *f,
	       uint64_t start, uint64_t end, bool cumulative)
{
	struct batch *b = v->ctx;
	int ret;

	b->m = m;
	b->findings = f;
	b->start_at = start;
	b->cumulative = cumulative;
	ret = batch_print(b, end);
	if (ferror(b->out)) {
		fprintf(stderr, "kvmtop: %s: cannot write\n", b->output ? b->output : "stdout");
		return -1;
	}
	if (ret)
		fprintf(stderr, "kvmtop: out of memory\n");
	return ret;
}

/* --- the view: batch output as the driver's snapshots come --- */

static int batch_view_start(void *ctx, const struct view_source *src, const struct model *m)
{
	struct batch *b = ctx;

	b->m = m;
	b->source = src->name;
	b->file = src->file;
	b->clock = src->clock;
	b->time_unit = src->time_unit;
	b->ns = src->ns;
	b->live = src->live;
	b->wall_known = src->wall_known;
	b->traced = src->traced;
	/* a recording without -d: one report of all of it */
	if (!src->live && !b->delay)
		b->summary = true;
	if (b->output && !b->fmt->replace) {
		char err[512];

		if (batch_output_open(b, err, sizeof(err))) {
			fprintf(stderr, "kvmtop: %s\n", err);
			return -1;
		}
	}
	return b->fmt->start ? b->fmt->start(b) : 0;
}

static int batch_view_refresh(void *ctx, const struct snapshot *snap)
{
	struct batch *b = ctx;

	b->at_end = snap->at_end;
	b->empty = snap->empty;
	b->findings = snap->findings;
	errno = 0;
	if (batch_print(b, snap->end)) {
		if (!errno)
			errno = ENOMEM;
		return -1;
	}
	if (fflush(b->out) == 0 && !ferror(b->out))
		return 0;
	/* kvmtop -b | head: the reader went away, a normal end */
	return errno == EPIPE ? 1 : -1;
}

static void batch_view_notice(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "kvmtop: %s\n", msg);
}

/*
 * SIGHUP with --output: a log is reopened, the next snapshot appended to
 * the file now of that name; the metrics formats write a new file each
 * snapshot anyway.  0, or -1 with one line in err.
 */
static int batch_view_reopen(void *ctx, char *err, size_t len)
{
	struct batch *b = ctx;

	return b->fmt->replace ? 0 : batch_output_open(b, err, len);
}

static void batch_view_stop(void *ctx)
{
	batch_output_close(ctx);
}

/* To stdout: SIGHUP stops it, as SIGINT and SIGTERM do. */
static const struct view_ops batch_view_ops = {
	.name = "batch",
	.findings = true,
	.ips = true,
	.start = batch_view_start,
	.refresh = batch_view_refresh,
	.notice = batch_view_notice,
	.stop = batch_view_stop,
};

/* With --output FILE: SIGHUP reopens it (logrotate's postrotate) and the run goes on. */
static const struct view_ops batch_file_view_ops = {
	.name = "batch",
	.findings = true,
	.ips = true,
	.start = batch_view_start,
	.refresh = batch_view_refresh,
	.reopen = batch_view_reopen,
	.notice = batch_view_notice,
	.stop = batch_view_stop,
};

struct view *batch_view_init(struct batch *b, const struct batch_config *c)
{
	memset(b, 0, sizeof(*b));
	b->out = stdout;
	b->fmt = c->fmt ? c->fmt : batch_formats[0];
	b->summary = c->summary;
	b->delay = c->delay;
	b->metrics = c->metrics;
	b->output = c->output;
	b->syms = c->syms;
	b->ip_top = c->ip_top;
	b->folded_kind = c->folded_kind;
	b->iterations = c->iterations;
	b->zero = c->zero;
	batch_scope_init(b, c->sort, c->fields);
	view_init(&b->view, c->output ? &batch_file_view_ops : &batch_view_ops, b, -1);
	/* what the format shows is worked out, nothing more */
	b->view.findings = b->fmt->findings;
	b->view.totals = b->fmt->totals;
	b->view.ips = b->fmt->ips;
	return &b->view;
}
