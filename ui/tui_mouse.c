// SPDX-License-Identifier: GPL-2.0
/*
 * The mouse, as htop's: a click on a column's title sorts by it (on the
 * sort column again: inverts), a click on a row selects it and a double
 * click opens it, the wheel scrolls, a click on the function bar is its
 * key.  Where things are is where the last draw put them (struct tui's
 * layout); what a click does is done here on the pane's order and
 * selection (tui_stack.c), or handed back as the key it stands for, for
 * the key table to run (tui_keys.c calls this file, never the other way).
 * --no-mouse: curses never asks the terminal for mouse reports, and this
 * file sees no event.
 */
#include <curses.h>

#include "tui_priv.h"

#define MOUSE_WHEEL_ROWS	3	/* rows a notch of the wheel scrolls */

/* A click on the column titles at column x: that column sorts, the sort column inverts. */
static void mouse_sort(struct tui *t, struct pane *p, int x)
{
	const struct tui_layout *l = &t->layout;
	int j, c;

	for (j = 0; j < l->nr_cols; j++) {
		/* a title and the space after it */
		if (x < l->col_x[j] || x > l->col_x[j] + l->col_w[j])
			continue;
		c = l->col[j];
		if (c < 0 || c >= p->ops->nr_cols || !tui_col_sorts(&p->ops->cols[c]))
			return;
		if (c == p->sort) {
			p->invert = !p->invert;
		} else {
			p->sort = c;
			p->invert = false;
		}
		tui_pane_remember(p);
		tui_pane_order(t, p);
		return;
	}
}

/* The wheel: the rows shown and the selection move by d rows, as htop's. */
static void mouse_wheel(struct tui *t, struct pane *p, long d)
{
	long top = (long)p->top + d, last = (long)p->nr_order - t->layout.rows;

	if (top > last)
		top = last;
	p->top = top > 0 ? (size_t)top : 0;
	tui_pane_select(p, (long)p->sel + d);
}

/* The function bar's key at column x, 0 if none. */
static int mouse_bar_key(const struct tui *t, int x)
{
	const struct tui_layout *l = &t->layout;
	int i;

	for (i = 0; i < l->nr_keys; i++)
		if (x >= l->key_x[i] && x < l->key_x[i] + l->key_w[i])
			return l->key_code[i];
	return 0;
}

int tui_mouse(struct tui *t, struct pane *p)
{
	bool click, twice;
	MEVENT e;
	long k;

	if (getmouse(&e) != OK || !t->mouse)
		return 0;
	if (e.bstate & BUTTON4_PRESSED) {
		mouse_wheel(t, p, -MOUSE_WHEEL_ROWS);
		return 0;
	}
	if (e.bstate & BUTTON5_PRESSED) {
		mouse_wheel(t, p, MOUSE_WHEEL_ROWS);
		return 0;
	}
	twice = e.bstate & BUTTON1_DOUBLE_CLICKED;
	click = twice || (e.bstate & BUTTON1_CLICKED);
	if (!click)
		return 0;
	if (e.y == TUI_HEADER_LINES - 1) {
		mouse_sort(t, p, e.x);
		return 0;
	}
	if (e.y == LINES - 1)
		return mouse_bar_key(t, e.x);
	k = (long)p->top + e.y - TUI_HEADER_LINES;
	if (e.y < TUI_HEADER_LINES || e.y >= TUI_HEADER_LINES + t->layout.rows || k >= (long)p->nr_order)
		return 0;
	tui_pane_select(p, k);
	/* a double click opens the row, as Enter */
	return twice ? '\n' : 0;
}
