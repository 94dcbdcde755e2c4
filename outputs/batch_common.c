// SPDX-License-Identifier: GPL-2.0
/*
 * What the batch formats share (batch_priv.h): the snapshot's length, the
 * fields a source measures, a scope's rows, a field's value as CSV and
 * JSON write it, the host kernel's threads.  The formats call down to
 * here; nothing here calls a format or the view (batch.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "util/escape.h"

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

const struct model_reason_row **batch_rows(const struct model_scope *sc, unsigned int *n)
{
	const struct model_reason_row **rows = calloc(sc->nr ? sc->nr : 1, sizeof(*rows));

	*n = rows ? model_scope_sorted(sc, rows) : 0;
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

const char *batch_text_field(const char *name, const struct model_row *row, char *buf, size_t len)
{
	const struct model_field *f = model_field(name);
	struct model_field_val v;
	bool has;

	model_field_value(f, row, &v, &has);
	switch (f->kind) {
	case MF_TEXT:
		return escape_text(v.s, buf, len);
	case MF_INT:
		snprintf(buf, len, "%" PRId64, v.i);
		return buf;
	case MF_BOOL:
		snprintf(buf, len, "%s", v.b ? "yes" : "no");
		return buf;
	default:
		snprintf(buf, len, "%" PRIu64, v.u);
		return buf;
	}
}

bool batch_steal_known(const struct batch *b)
{
	const char *src = model_time_source(b->m, VS_WAIT);

	return b->m->max_thieves && src && !strcmp(src, "trace");
}

int batch_kernel(const struct batch *b,
		 void (*print)(const struct batch *b, const struct vm *k, const struct model_scope *sc))
{
	const struct vm *k = model_kernel_vm(b->m);
	struct model_scope sc;

	if (!k)
		return 0;
	if (model_scope_vm(&sc, b->m, k, false)) {
		model_scope_free(&sc);
		return -1;
	}
	print(b, k, &sc);
	model_scope_free(&sc);
	return 0;
}
