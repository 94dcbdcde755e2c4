// SPDX-License-Identifier: GPL-2.0
/*
 * A pane's columns: the title, the cell and the order of each.  A column
 * of a field of the table (model_fields.h, pane_col.field) takes its
 * title from the table, and its value from model_field_value() when the
 * pane builds its rows; shown and ordered here by the field's kind,
 * unless the column has a cell or a compare of its own.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "tui_priv.h"

const char *tui_col_title(const struct pane_col *c)
{
	const struct model_field *f = c->field ? model_field(c->field) : NULL;

	return f ? f->title : c->title;
}

bool tui_col_sorts(const struct pane_col *c)
{
	return c->compare || c->field;
}

void tui_cols_fill(const struct pane_col *cols, int nr_cols, const struct model_row *row,
		   struct pane_val *vals)
{
	int i;

	for (i = 0; i < nr_cols; i++) {
		const struct model_field *f = cols[i].field ? model_field(cols[i].field) : NULL;

		if (f)
			model_field_value(f, row, &vals[i].v, &vals[i].has);
	}
}

const char *tui_val_text(struct pane_val *pv, char *buf, size_t len)
{
	escape_text(pv->v.s ? pv->v.s : "", buf, len);
	pv->v.s = buf;
	return buf;
}

/* Row r's value of field column col. */
static const struct pane_val *row_val(const struct pane_ops *ops, const void *r, int col)
{
	return (const struct pane_val *)((const char *)r + ops->vals) + col;
}

/* A field column's cell: "-" where the row has no value (an event's latency, no samples). */
static void field_cell(const struct tui *t, const struct model_field *f, const struct pane_val *pv,
		       char *buf, size_t len)
{
	const struct model_field_val *v = &pv->v;

	if (!pv->has || !f) {
		snprintf(buf, len, "-");
		return;
	}
	switch (f->kind) {
	case MF_NUM:
		tui_fmt_count(v->u, buf, len);
		break;
	case MF_INT:
		if (v->i < 0)
			snprintf(buf, len, "-");	/* not known */
		else
			snprintf(buf, len, "%" PRId64, v->i);
		break;
	case MF_PCT:
		tui_fmt_pct(v->d, buf, len);
		break;
	case MF_TIME:
	case MF_SECS:
		tui_fmt_lat(t, true, (double)v->u, buf, len);
		break;
	case MF_TIME_MEAN:
		tui_fmt_lat(t, true, v->d, buf, len);
		break;
	default:
		snprintf(buf, len, "%s", v->s ? v->s : "");
		break;
	}
}

/* A field column's order: rows without a value first, then by value. */
static int field_cmp(const struct model_field *f, const struct pane_val *x, const struct pane_val *y)
{
	if (x->has != y->has)
		return x->has ? 1 : -1;
	switch (f ? f->kind : MF_NUM) {
	case MF_PCT:
	case MF_TIME_MEAN:
		return x->v.d < y->v.d ? -1 : x->v.d > y->v.d;
	case MF_INT:
		return x->v.i < y->v.i ? -1 : x->v.i > y->v.i;
	case MF_BOOL:
		return x->v.b - y->v.b;
	case MF_TEXT:
		return strcmp(x->v.s ? x->v.s : "", y->v.s ? y->v.s : "");
	default:
		return x->v.u < y->v.u ? -1 : x->v.u > y->v.u;
	}
}

void tui_col_cell(const struct tui *t, const struct pane_ops *ops, const void *r, int col,
		  char *buf, size_t len)
{
	const struct pane_col *c = &ops->cols[col];

	if (c->cell)
		c->cell(t, r, buf, len);
	else if (c->field)
		field_cell(t, model_field(c->field), row_val(ops, r, col), buf, len);
	else
		buf[0] = '\0';
}

int tui_col_cmp(const struct pane_ops *ops, const void *a, const void *b, int col)
{
	const struct pane_col *c = &ops->cols[col];

	if (c->compare)
		return c->compare(a, b);
	if (c->field)
		return field_cmp(model_field(c->field), row_val(ops, a, col), row_val(ops, b, col));
	return 0;
}

bool tui_col_named(const struct pane_col *c, const char *name)
{
	return !strcmp(c->name, name) || (c->field && !strcmp(c->field, name));
}

/* The column of ops called name (its length len), or -1. */
static int col_of(const struct pane_ops *ops, const char *name, size_t len)
{
	char buf[64];
	int i;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (i = 0; i < ops->nr_cols; i++)
		if (tui_col_named(&ops->cols[i], buf))
			return i;
	return -1;
}

int tui_cols_order(const struct tui *t, const struct pane_ops *ops, const bool *show, int *order)
{
	const char *p = t->fields;
	int n = 0, i;

	while (p && *p && n < ops->nr_cols) {
		size_t len = strcspn(p, ",");

		i = col_of(ops, p, len);
		if (i >= 0)
			order[n++] = i;
		p += len + (p[len] == ',');
	}
	if (n)
		return n;
	for (i = 0; i < ops->nr_cols; i++)
		if (show[i])
			order[n++] = i;
	return n;
}

int tui_cols_sort(const struct tui *t, const struct pane_ops *ops, bool *ascending)
{
	const char *key = t->sort;

	if (!key)
		return -1;
	*ascending = *key == '-';
	key += *ascending;
	return col_of(ops, key, strlen(key));
}
