// SPDX-License-Identifier: GPL-2.0
/*
 * The setup (F2, as htop's): the colour scheme, and the columns of the
 * pane it was opened from, those shown first in their order, then the
 * others.  Enter shows or hides a column (on the colours, the next
 * scheme), F7 and F8 move it (tui_keys.c); W writes them to the
 * settings file (tui_rc.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "tui_priv.h"

struct setup_row {
	int line;
	int col;		/* the column, -1: the colour scheme */
	bool shown;
	const char *title;	/* constants: the pane's column's, or the scheme's */
	const char *name;
};

static void setup_c_on(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct setup_row *w = r;

	snprintf(buf, len, "%s", w->col < 0 ? "" : w->shown ? "[x]" : "[ ]");
}

static void setup_c_title(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct setup_row *)r)->title);
}

static void setup_c_name(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct setup_row *)r)->name);
}

PANE_CMP(setup, setup_row, line)

static const struct pane_col setup_cols[] = {
	{ "on",     "SHOWN",  5,  COL_LEFT, setup_c_on,    setup_cmp_line, false, 9, 0, NULL },
	{ "column", "COLUMN", 24, COL_LEFT, setup_c_title, NULL,           false, 8, 0, NULL },
	{ "name",   "NAME",   40, COL_LEFT, setup_c_name,  NULL,           false, 7, 0, NULL },
};

/* Row n: column col of ops, shown or not. */
static void setup_col(struct setup_row *w, int n, const struct pane_ops *ops, int col, bool shown)
{
	const struct pane_col *c = &ops->cols[col];

	w->line = n;
	w->col = col;
	w->shown = shown;
	w->title = tui_col_title(c);
	w->name = c->field ? c->field : c->name;
}

static int setup_build(struct tui *t, struct pane *p)
{
	const struct pane_ops *ops = t->panes[t->setup_of];
	const struct tui_pane_set *s = &t->set[t->setup_of];
	const int *shown = s->nr_cols ? s->cols : t->setup_cols;
	int nr_shown = s->nr_cols ? s->nr_cols : t->nr_setup_cols, n = 1, i, j;
	struct setup_row *rows = calloc((size_t)ops->nr_cols + 1, sizeof(*rows));

	if (!rows)
		return -1;
	rows[0] = (struct setup_row){ 0, -1, false, "Colours", tui_colors_name(t->scheme) };
	for (i = 0; i < nr_shown; i++) {
		if (shown[i] < 0 || shown[i] >= ops->nr_cols)
			continue;
		setup_col(&rows[n], n, ops, shown[i], true);
		n++;
	}
	for (i = 0; i < ops->nr_cols; i++) {
		for (j = 0; j < nr_shown && shown[j] != i; j++)
			;
		if (j < nr_shown)
			continue;
		setup_col(&rows[n], n, ops, i, false);
		n++;
	}
	p->rows = rows;
	p->nr = (size_t)n;
	return 0;
}

static uint64_t setup_key(const void *r)
{
	return (uint64_t)(((const struct setup_row *)r)->col + 1);
}

static const char *setup_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct setup_row *w = r;

	snprintf(buf, len, "%s %s", w->title, w->name);
	return buf;
}

/* Enter: the column shown or hidden; on the colours, the next scheme. */
static int setup_enter(struct tui *t, const void *r)
{
	const struct setup_row *w = r;

	if (w->col < 0) {
		t->scheme = (t->scheme + 1) % tui_colors_nr();
		tui_colors_apply(t);
		return 0;
	}
	tui_setup_toggle(t, w->col);
	return 0;
}

static void setup_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	char rc[512];

	/* raw: the file's name comes from the environment or the command line */
	escape_text(t->rc[0] ? t->rc : "no file (--no-config)", rc, sizeof(rc));
	snprintf(buf, len, "Setup of the %s pane: Enter shows or hides a column (on Colours: the next), "
		 "F7 F8 move it; W writes them to %s; Esc goes back", t->panes[t->setup_of]->name, rc);
}

const struct pane_ops pane_setup = {
	.name = "setup",
	.cols = setup_cols,
	.nr_cols = sizeof(setup_cols) / sizeof(setup_cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct setup_row),
	.build = setup_build,
	.key = setup_key,
	.label = setup_label,
	.enter = setup_enter,
	.title = setup_title,
};
