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

void tui_cols_fill_vcpu(const struct pane_col *cols, int nr_cols, const struct model_row *row,
			struct pane_val *vals)
{
	int i;

	for (i = 0; i < nr_cols; i++) {
		const struct model_field *f = model_field_vcpu_of(cols[i].field ? model_field(cols[i].field) : NULL);

		memset(&vals[i], 0, sizeof(vals[i]));
		if (f)
			model_field_value(f, row, &vals[i].v, &vals[i].has);
		else
			vals[i].blank = true;	/* no figure of a vCPU means the same: not "-" */
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

	if (pv->blank) {
		buf[0] = '\0';		/* not a figure of this row */
		return;
	}
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
	case MF_RATE:
		tui_fmt_per_sec(v->d, buf, len);
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

/* A field column's order by value (rows without one: order_cmp() puts them last). */
static int field_cmp(const struct model_field *f, const struct pane_val *x, const struct pane_val *y)
{
	if (x->has != y->has)
		return x->has ? 1 : -1;
	switch (f ? f->kind : MF_NUM) {
	case MF_PCT:
	case MF_RATE:
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

bool tui_col_has(const struct pane_ops *ops, const void *r, int col)
{
	return !ops->cols[col].field || row_val(ops, r, col)->has;
}

/* Whether pv holds a figure other than 0 (an unknown one does not). */
static bool val_nonzero(const struct pane_val *pv)
{
	const struct model_field_val *v = &pv->v;

	return pv->has && (v->u || v->i || v->d != 0 || v->b || (v->s && v->s[0]));
}

bool tui_row_idle(const struct pane_ops *ops, const void *r)
{
	int col = ops->busy ? tui_col_find(ops, ops->busy) : -1;

	return col >= 0 && ops->cols[col].field && row_val(ops, r, col)->has &&
	       !val_nonzero(row_val(ops, r, col));
}

void tui_cols_seen(struct pane *p)
{
	const struct pane_ops *ops = p->ops;
	size_t k;
	int i;

	for (i = 0; i < ops->nr_cols && i < 64; i++) {
		if (!ops->cols[i].field || (p->seen & (1ull << i)))
			continue;
		for (k = 0; k < p->nr; k++)
			if (val_nonzero(row_val(ops, (const char *)p->rows + k * ops->row_size, i))) {
				p->seen |= 1ull << i;
				break;
			}
	}
}

/*
 * virt-top's views of the VMs pane: 1 the vCPUs' use of the host's CPUs,
 * 2 the network, 3 the disks (the context's figures, live).
 */
const struct tui_view_cols tui_views[] = {
	{ '1', "CPU: its vCPUs' use of the host's CPUs",
	  "vm_name,vm_pid,vm_vcpu_count,vm_util_pct,vm_halt_pct,vm_steal_pct,vm_emulator_run_pct,"
	  "vm_emulator_wait_pct,vm_vhost_run_pct,vm_vhost_wait_pct,vm_exits_per_s" },
	{ '2', "network",
	  "vm_name,vm_pid,vm_net_rx_bytes_per_s,vm_net_tx_bytes_per_s,vm_net_drops_per_s,vm_exits_per_s,vm_top_reason" },
	{ '3', "disk",
	  "vm_name,vm_pid,vm_disk_rd_bytes_per_s,vm_disk_wr_bytes_per_s,vm_majflt_per_s,vm_psi_io_some_pct,"
	  "vm_exits_per_s,vm_top_reason" },
};

const size_t tui_nr_views = sizeof(tui_views) / sizeof(tui_views[0]);

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

int tui_col_find(const struct pane_ops *ops, const char *name)
{
	return col_of(ops, name, strlen(name));
}

/* The id of the pane whose ops these are (the screen's table), PANE_NR if none. */
static int cols_pane(const struct tui *t, const struct pane_ops *ops)
{
	int id;

	for (id = 0; id < PANE_NR && t->panes; id++)
		if (t->panes[id] == ops)
			break;
	return id;
}

int tui_cols_order(const struct tui *t, const struct pane_ops *ops, const bool *show, int *order)
{
	int id = cols_pane(t, ops), n = 0, i;
	char err[8];

	/* a view (1 2 3) of the VMs pane: its columns, whatever the pane's settings */
	if (id == PANE_VMS && t->vms_view >= 0 && (size_t)t->vms_view < tui_nr_views)
		return tui_cols_parse(ops, tui_views[t->vms_view].fields, order, false, err, sizeof(err));
	if (id < PANE_NR && t->set[id].nr_cols) {
		for (i = 0; i < t->set[id].nr_cols && i < ops->nr_cols; i++)
			order[n++] = t->set[id].cols[i];
		return n;
	}
	for (i = 0; i < ops->nr_cols; i++)
		if (show[i])
			order[n++] = i;
	return n;
}

int tui_cols_sort(const struct tui *t, const struct pane_ops *ops, bool *invert)
{
	int id = cols_pane(t, ops);

	if (id >= PANE_NR || t->set[id].sort < 0 || t->set[id].sort >= ops->nr_cols)
		return -1;
	*invert = t->set[id].invert;
	return t->set[id].sort;
}

int tui_cols_parse(const struct pane_ops *ops, const char *list, int *cols, bool strict,
		   char *err, size_t len)
{
	const char *p = list;
	int n = 0, i, j;

	while (*p) {
		size_t w = strcspn(p, ",");

		i = col_of(ops, p, w);
		if (i < 0 && strict) {
			snprintf(err, len, "the %s pane has no column '%.*s' (kvmtop --fields help lists them)",
				 ops->name, (int)(w < 64 ? w : 64), p);
			return -1;
		}
		for (j = 0; j < n && i >= 0; j++)
			if (cols[j] == i)
				i = -1;		/* named twice: once */
		if (i >= 0 && n < TUI_COLS)
			cols[n++] = i;
		p += w + (p[w] == ',');
	}
	return n;
}

int tui_cols_parse_sort(const struct pane_ops *ops, const char *key, int *col, bool *invert,
			char *err, size_t len)
{
	bool ascending = *key == '-';
	int i = col_of(ops, key + ascending, strlen(key + ascending));

	if (i < 0 || !tui_col_sorts(&ops->cols[i])) {
		snprintf(err, len, "the %s pane has no column '%.64s' to sort by", ops->name, key + ascending);
		return -1;
	}
	*col = i;
	/* KEY: most first, -KEY: least first, whatever the column's own order */
	*invert = ops->cols[i].descending == ascending;
	return 0;
}

void tui_cols_write(const struct pane_ops *ops, const struct tui_pane_set *s, char *sort, size_t slen,
		    char *cols, size_t clen)
{
	const struct pane_col *c;
	int i;

	sort[0] = cols[0] = '\0';
	if (s->sort >= 0 && s->sort < ops->nr_cols) {
		c = &ops->cols[s->sort];
		snprintf(sort, slen, "%s%s", c->descending != s->invert ? "" : "-", c->field ? c->field : c->name);
	}
	for (i = 0; i < s->nr_cols && s->cols[i] < ops->nr_cols; i++) {
		c = &ops->cols[s->cols[i]];
		if (i)
			strlcat(cols, ",", clen);
		strlcat(cols, c->field ? c->field : c->name, clen);
	}
}

/* Where column col is in s's columns, -1 if not there. */
static int cols_at(const struct tui_pane_set *s, int col)
{
	int i;

	for (i = 0; i < s->nr_cols; i++)
		if (s->cols[i] == col)
			return i;
	return -1;
}

/* The setup's pane's settings, its columns made its own (those drawn at F2) before a change. */
static struct tui_pane_set *cols_setup(struct tui *t)
{
	struct tui_pane_set *s = &t->set[t->setup_of];

	if (!s->nr_cols && t->nr_setup_cols > 0) {
		memcpy(s->cols, t->setup_cols, (size_t)t->nr_setup_cols * sizeof(s->cols[0]));
		s->nr_cols = t->nr_setup_cols;
	}
	return s;
}

void tui_setup_toggle(struct tui *t, int col)
{
	struct tui_pane_set *s = cols_setup(t);
	int at = cols_at(s, col);

	if (at < 0) {
		if (s->nr_cols < TUI_COLS)
			s->cols[s->nr_cols++] = col;
		return;
	}
	/* the last column stays: a pane without one would show its own */
	if (s->nr_cols == 1)
		return;
	memmove(s->cols + at, s->cols + at + 1, (size_t)(s->nr_cols - at - 1) * sizeof(s->cols[0]));
	s->nr_cols--;
}

bool tui_setup_move(struct tui *t, int col, int d)
{
	struct tui_pane_set *s = cols_setup(t);
	int at = cols_at(s, col), to = at + d;

	if (at < 0 || to < 0 || to >= s->nr_cols)
		return false;
	s->cols[at] = s->cols[to];
	s->cols[to] = col;
	return true;
}
