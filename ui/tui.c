// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* qsort_r */
/*
 * The screen: header, a stack of panes (VMs -> vCPUs -> reasons ->
 * recent exits), footer, keys.  Drawn with ncursesw; restored on every
 * way out (the drivers call tui_stop through view.stop, also on errors
 * and signals, which the drivers turn into a normal return).
 */
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <curses.h>

#include "clock.h"
#include "escape.h"
#include "fmt.h"
#include "history.h"
#include "model_fields.h"
#include "tui.h"

#define HEADER_LINES	4	/* two of figures, the pane's title, the column titles */

enum { PAIR_HEAD = 1, PAIR_SEL, PAIR_WARN, PAIR_KEY, PAIR_TITLE };

/* --- formats --- */

void tui_fmt_count(uint64_t v, char *buf, size_t len)
{
	if (v < 100000000ull)
		snprintf(buf, len, "%" PRIu64, v);
	else if (v < 100000000000ull)
		snprintf(buf, len, "%.1fM", (double)v / 1e6);
	else
		snprintf(buf, len, "%.1fG", (double)v / 1e9);
}

void tui_fmt_rate(const struct tui *t, uint64_t n, char *buf, size_t len)
{
	double r;

	if (t->secs <= 0) {
		/* no wall time (a TSC recording): the count itself */
		tui_fmt_count(n, buf, len);
		return;
	}
	r = (double)n / t->secs;
	if (r < 10)
		snprintf(buf, len, "%.2f", r);
	else if (r < 1e7)
		snprintf(buf, len, "%.0f", r);
	else
		snprintf(buf, len, "%.1fM", r / 1e6);
}

void tui_fmt_time(const struct tui *t, double v, char *buf, size_t len)
{
	/* one decimal less than the text output: the columns are narrow */
	fmt_duration(v, t->ns, 1, buf, len);
}

void tui_fmt_lat(const struct tui *t, bool have, double v, char *buf, size_t len)
{
	if (have)
		tui_fmt_time(t, v, buf, len);
	else
		snprintf(buf, len, "-");	/* no exit -> entry pair in the scope */
}

void tui_fmt_pct(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", v);
}

const char *tui_reason_name(const struct tui *t, int id, char *buf, size_t len)
{
	char raw[96];

	return escape_text(names_reason(t->m->names, id, raw, sizeof(raw)), buf, len);
}

const struct vm *tui_find_vm(const struct tui *t, int pid)
{
	struct vm key = { .pid = pid };

	return RB_FIND(vm_tree, (struct vm_tree *)&t->m->vms, &key);
}

const struct vcpu *tui_find_vcpu(const struct tui *t, int tid)
{
	struct vcpu key = { .tid = tid };

	return RB_FIND(vcpu_tree, (struct vcpu_tree *)&t->m->vcpus, &key);
}

/* --- panes: rows, order, selection --- */

static struct pane *top_pane(struct tui *t)
{
	return &t->stack[t->depth - 1];
}

static void *row_at(const struct pane *p, size_t i)
{
	return (char *)p->rows + i * p->ops->row_size;
}

/* A column's title: a field's own (model_fields.h), else the pane's. */
static const char *col_title(const struct pane_col *c)
{
	const struct model_reason_field *f = c->field ? model_reason_field(c->field) : NULL;

	return f ? f->title : c->title;
}

static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct pane *p = arg;
	const struct pane_col *c = &p->ops->cols[p->sort];
	const void *x = row_at(p, *(const size_t *)a), *y = row_at(p, *(const size_t *)b);
	int r = c->field ? p->ops->field_cmp(x, y, p->sort) : c->compare ? c->compare(x, y) : 0;

	if (!r) {
		uint64_t kx = p->ops->key(x), ky = p->ops->key(y);

		r = kx < ky ? -1 : kx > ky;
	}
	/* ties too, so I gives exactly the reverse */
	return c->descending != p->invert ? -r : r;
}

static void stat_add(struct tui_stat *s, uint64_t t0)
{
	uint64_t d = clock_mono_ns() - t0;

	s->n++;
	s->sum_ns += d;
	if (d > s->max_ns)
		s->max_ns = d;
}

const void *tui_selected(const struct tui *t)
{
	const struct pane *p = &t->stack[t->depth - 1];

	return t->depth && p->nr_order ? row_at(p, p->order[p->sel]) : NULL;
}

/* Filter and sort the rows; the selection stays on the same key. */
static void pane_order(struct tui *t, struct pane *p)
{
	uint64_t t0 = t->stats_file ? clock_mono_ns() : 0;
	char buf[512];
	size_t i;

	p->nr_order = 0;
	for (i = 0; i < p->nr; i++) {
		if (t->filter[0] && !strcasestr(p->ops->label(t, row_at(p, i), buf, sizeof(buf)), t->filter))
			continue;
		p->order[p->nr_order++] = i;
	}
	qsort_r(p->order, p->nr_order, sizeof(*p->order), order_cmp, p);
	if (p->have_sel) {
		for (i = 0; i < p->nr_order; i++)
			if (p->ops->key(row_at(p, p->order[i])) == p->sel_key) {
				p->sel = i;
				break;
			}
	}
	if (p->sel >= p->nr_order)
		p->sel = p->nr_order ? p->nr_order - 1 : 0;
	if (t->stats_file)
		stat_add(&t->st_sort, t0);
}

static void pane_remember(struct pane *p)
{
	p->have_sel = p->nr_order > 0;
	if (p->have_sel)
		p->sel_key = p->ops->key(row_at(p, p->order[p->sel]));
}

static void pane_free_rows(struct pane *p)
{
	free(p->rows);
	free(p->order);
	p->rows = NULL;
	p->order = NULL;
	p->nr = p->nr_order = 0;
}

static int pane_build(struct tui *t, struct pane *p)
{
	if (p->rows)
		pane_remember(p);
	pane_free_rows(p);
	if (!t->m)
		return 0;
	if (p->ops->build(t, p))
		return -1;
	p->order = calloc(p->nr ? p->nr : 1, sizeof(*p->order));
	if (!p->order)
		return -1;
	pane_order(t, p);
	return 0;
}

static int build_all(struct tui *t)
{
	uint64_t t0 = t->stats_file ? clock_mono_ns() : 0;
	int i;

	for (i = 0; i < t->depth; i++)
		if (pane_build(t, &t->stack[i]))
			return -1;
	if (t->stats_file)
		stat_add(&t->st_build, t0);
	return 0;
}

int tui_push(struct tui *t, const struct pane_ops *ops, int vm_pid, int tid)
{
	struct pane *p;

	if (t->depth == TUI_STACK)
		return 1;
	if (t->depth)
		pane_remember(top_pane(t));
	p = &t->stack[t->depth++];
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->sort = ops->default_sort;
	p->vm_pid = vm_pid;
	p->tid = tid;
	t->filter[0] = '\0';
	return pane_build(t, p);
}

int tui_swap(struct tui *t, const struct pane_ops *ops)
{
	struct pane *p = top_pane(t);
	int vm_pid = p->vm_pid, tid = p->tid;

	pane_free_rows(p);
	t->depth--;
	return tui_push(t, ops, vm_pid, tid);
}

static void pop(struct tui *t)
{
	if (t->depth <= 1)
		return;
	pane_free_rows(top_pane(t));
	t->depth--;
	t->filter[0] = '\0';
	pane_order(t, top_pane(t));
}

/* --- drawing --- */

/* Text at (y, x) in exactly w columns, cut or padded. */
static void put(int y, int x, int w, const char *s, enum col_align align)
{
	wchar_t ws[512];
	int cols = 0, n, i, pad;
	size_t len = mbstowcs(ws, s, sizeof(ws) / sizeof(ws[0]) - 1);

	if (w <= 0)
		return;
	if (len == (size_t)-1) {
		/* not text in this locale: the bytes, cut */
		mvaddnstr(y, x, s, w);
		return;
	}
	ws[len] = L'\0';
	for (n = 0; ws[n]; n++) {
		int cw = wcwidth(ws[n]);

		if (cw < 0)
			cw = 1;
		if (cols + cw > w)
			break;
		cols += cw;
	}
	pad = w - cols;
	move(y, x);
	if (align == COL_RIGHT)
		for (i = 0; i < pad; i++)
			addch(' ');
	addnwstr(ws, n);
	if (align == COL_LEFT)
		for (i = 0; i < pad; i++)
			addch(' ');
}

/* Which columns fit in the width: the highest priorities, kept in table order. */
static int fit_cols(const struct tui *t, const struct pane_ops *ops, int width, bool *show)
{
	unsigned int known = model_time_known(t->m);
	int used = 0, shown = 0, prio, i;

	for (i = 0; i < ops->nr_cols; i++)
		show[i] = false;
	for (prio = 9; prio >= 0; prio--)
		for (i = 0; i < ops->nr_cols; i++) {
			if (ops->cols[i].priority != prio || show[i] ||
			    (ops->cols[i].needs & known) != ops->cols[i].needs)
				continue;
			if (used + ops->cols[i].width + (shown ? 1 : 0) > width && shown)
				continue;
			show[i] = true;
			used += ops->cols[i].width + (shown ? 1 : 0);
			shown++;
		}
	/* a wide last column (a text) is shown cut rather than not at all */
	for (i = ops->nr_cols - 1; i >= 0 && !show[i]; i--)
		;
	if (i < ops->nr_cols - 1 && width - used - 1 >= 12 && ops->cols[ops->nr_cols - 1].align == COL_LEFT) {
		show[ops->nr_cols - 1] = true;
		shown++;
	}
	return shown;
}

static void attr(struct tui *t, int pair, int fallback, bool on)
{
	int a = t->color ? (int)(COLOR_PAIR(pair) | (fallback & A_BOLD)) : fallback;

	if (on)
		attron(a);
	else
		attroff(a);
}

static void draw_header(struct tui *t)
{
	const struct model *m = t->m;
	struct pane *p = top_pane(t);
	char line[512], a[32], b[32];
	uint64_t lost, exits, events;
	int x;

	if (!m)
		return;
	lost = t->cumulative ? m->lost_events.total : ctr_interval(&m->lost_events);
	exits = t->cumulative ? m->exits.total : ctr_interval(&m->exits);
	events = t->cumulative ? m->events.total : ctr_interval(&m->events);
	tui_fmt_rate(t, exits, a, sizeof(a));
	tui_fmt_count(m->exits.total, b, sizeof(b));
	if (t->interval > 0)
		snprintf(line, sizeof(line), "kvmtop  %s  interval %ld/%ld  ", t->source, t->interval,
			 t->nr_intervals);
	else if (!t->live)
		snprintf(line, sizeof(line), "kvmtop  %s  whole recording  ", t->source);
	else
		snprintf(line, sizeof(line), "kvmtop  %s  delay %gs  ", t->source, t->delay);
	strlcat(line, t->unit, sizeof(line));
	if (t->source_dir[0]) {
		/* the recording's directory last, its tail kept: the file name never goes */
		size_t used = strlen(line), dlen = strlen(t->source_dir);
		int width = COLS < (int)sizeof(line) ? COLS : (int)sizeof(line) - 1;
		int room = width - (int)used - 4;

		if (room >= 8) {
			bool whole = dlen <= (size_t)room;
			const char *tail = whole ? t->source_dir : t->source_dir + dlen - (size_t)(room - 3);

			/* never start inside a UTF-8 sequence */
			while (((unsigned char)*tail & 0xc0) == 0x80)
				tail++;
			strlcat(line, whole ? "in " : "in ...", sizeof(line));
			strlcat(line, tail, sizeof(line));
		}
	}
	attr(t, PAIR_HEAD, A_BOLD, true);
	put(0, 0, COLS, line, COL_LEFT);
	attr(t, PAIR_HEAD, A_BOLD, false);
	if (t->paused) {
		attr(t, PAIR_WARN, A_REVERSE | A_BOLD, true);
		put(0, (int)strlen(line) < COLS - 8 ? (int)strlen(line) : COLS - 8, 8, "PAUSED", COL_LEFT);
		attr(t, PAIR_WARN, A_REVERSE | A_BOLD, false);
	}

	{
		struct vm *vm;
		int n = 0;

		RB_FOREACH(vm, vm_tree, (struct vm_tree *)&m->vms)
			n += !vm->kernel;
		/* lost events first after the rate: never cut off */
		snprintf(line, sizeof(line), "host: exits%s %s  ", t->secs > 0 ? "/s" : "", a);
		put(1, 0, COLS, line, COL_LEFT);
		snprintf(a, sizeof(a), "lost %" PRIu64, lost);
		x = (int)strlen(line);
		if (lost)
			attr(t, PAIR_WARN, A_REVERSE | A_BOLD, true);
		put(1, x, COLS - x, a, COL_LEFT);
		if (lost)
			attr(t, PAIR_WARN, A_REVERSE | A_BOLD, false);
		x += (int)strlen(a);
		if (m->dropped.total) {
			/* threads past --max-vcpus: their events are not in the figures */
			snprintf(a, sizeof(a), "  dropped %" PRIu64, m->dropped.total);
			attr(t, PAIR_WARN, A_REVERSE | A_BOLD, true);
			put(1, x, COLS - x, a, COL_LEFT);
			attr(t, PAIR_WARN, A_REVERSE | A_BOLD, false);
			x += (int)strlen(a);
		}
		tui_fmt_rate(t, events, a, sizeof(a));
		snprintf(line, sizeof(line), "  total %s  kvm events%s %s  VMs %d", b,
			 t->secs > 0 ? "/s" : "", a, n);
		put(1, x, COLS - x, line, COL_LEFT);
	}

	p->ops->title(t, p, line, sizeof(line));
	if (t->msg[0] || t->notice[0]) {
		/* a notice replaces the title until the next key */
		snprintf(line, sizeof(line), "%s", t->msg[0] ? t->msg : t->notice);
		attr(t, PAIR_WARN, A_BOLD, true);
		put(2, 0, COLS, line, COL_LEFT);
		attr(t, PAIR_WARN, A_BOLD, false);
	} else {
		attr(t, PAIR_TITLE, A_BOLD, true);
		put(2, 0, COLS, line, COL_LEFT);
		attr(t, PAIR_TITLE, A_BOLD, false);
	}
}

static void draw_table(struct tui *t)
{
	struct pane *p = top_pane(t);
	const struct pane_ops *ops = p->ops;
	bool show[32];
	int rows = LINES - HEADER_LINES - 1, x, i, y;
	char buf[256];

	/* H: the history strip takes the bottom lines when there is room for both */
	if (t->show_hist && t->hist && LINES >= HEADER_LINES + 2 + HISTORY_LINES + 2)
		rows -= HISTORY_LINES;
	fit_cols(t, ops, COLS, show);
	/* column titles, the sort column marked */
	attr(t, PAIR_KEY, A_REVERSE, true);
	put(3, 0, COLS, "", COL_LEFT);
	for (i = 0, x = 0; i < ops->nr_cols && x < COLS; i++) {
		const struct pane_col *c = &ops->cols[i];
		bool down = c->descending != p->invert;
		int w = c->width < COLS - x ? c->width : COLS - x;

		if (!show[i])
			continue;
		if (i == p->sort)
			snprintf(buf, sizeof(buf), "%s%s", col_title(c),
				 t->utf8 ? (down ? "\u25bc" : "\u25b2") : (down ? "v" : "^"));
		else
			snprintf(buf, sizeof(buf), "%s", col_title(c));
		put(3, x, w, buf, c->align);
		x += c->width + 1;
	}
	attr(t, PAIR_KEY, A_REVERSE, false);

	if (rows < 1)
		return;
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + (size_t)rows)
		p->top = p->sel - rows + 1;
	if (p->top + rows > p->nr_order)
		p->top = p->nr_order > (size_t)rows ? p->nr_order - rows : 0;
	for (y = 0; y < rows; y++) {
		size_t k = p->top + y;
		const void *r;

		move(HEADER_LINES + y, 0);
		clrtoeol();
		if (k >= p->nr_order)
			continue;
		r = row_at(p, p->order[k]);
		if (k == p->sel)
			attr(t, PAIR_SEL, A_REVERSE, true);
		put(HEADER_LINES + y, 0, COLS, "", COL_LEFT);
		for (i = 0, x = 0; i < ops->nr_cols && x < COLS; i++) {
			const struct pane_col *c = &ops->cols[i];
			int w = c->width < COLS - x ? c->width : COLS - x;

			if (!show[i])
				continue;
			if (c->field)
				ops->field_cell(t, r, i, buf, sizeof(buf));
			else
				c->cell(t, r, buf, sizeof(buf));
			put(HEADER_LINES + y, x, w, buf, c->align);
			x += c->width + 1;
		}
		if (k == p->sel)
			attr(t, PAIR_SEL, A_REVERSE, false);
	}
	if (!p->nr_order) {
		const char *s = t->filter[0] ? "no row matches the filter" :
				t->m && p->ops->empty ? p->ops->empty(t, p) :
				!t->m || !p->nr ? (t->live ? "nothing in this interval" : "no KVM events") : "";

		put(HEADER_LINES, 1, COLS - 1, s, COL_LEFT);
	}
}

/*
 * The history strip's subject: the selected VM or vCPU of the VMs and
 * vCPUs panes, else the pane's vCPU or VM.  false if none.
 */
static bool hist_subject(struct tui *t, bool *vm, int *id, char *what, size_t len)
{
	struct pane *p = top_pane(t);
	char buf[256];

	if ((p->ops == &pane_vms || p->ops == &pane_vcpus) && p->nr_order) {
		const void *r = row_at(p, p->order[p->sel]);

		*vm = p->ops == &pane_vms;
		*id = (int)p->ops->key(r);
		snprintf(what, len, "%s %s", *vm ? "VM" : "vCPU", p->ops->label(t, r, buf, sizeof(buf)));
		return true;
	}
	if (p->tid > 0 || p->vm_pid >= 0) {
		*vm = p->tid <= 0;
		*id = *vm ? p->vm_pid : p->tid;
		snprintf(what, len, "%s %d", *vm ? "VM pid" : "vCPU thread", *id);
		return true;
	}
	return false;
}

/* H: the strip under the table, from line y to the footer.  Its height. */
static int draw_history(struct tui *t, int y)
{
	char lines[HISTORY_LINES][HISTORY_LINE], what[512];
	bool vm;
	int id, n, i;

	if (!hist_subject(t, &vm, &id, what, sizeof(what)))
		return 0;
	n = history_lines(t->hist, vm, id, what,
			  t->live ? "" : " (] steps through the recording's intervals: each is recorded)",
			  t->utf8, COLS, lines, HISTORY_LINES);
	for (i = 0; i < n && y + i < LINES - 1; i++) {
		move(y + i, 0);
		clrtoeol();
		if (!i)
			attr(t, PAIR_TITLE, A_BOLD, true);
		put(y + i, 0, COLS, lines[i], COL_LEFT);
		if (!i)
			attr(t, PAIR_TITLE, A_BOLD, false);
	}
	return n;
}

static void draw_footer(struct tui *t)
{
	struct pane *p = top_pane(t);
	char buf[160];
	size_t i;
	int x = 0;

	move(LINES - 1, 0);
	clrtoeol();
	if (t->input != IN_NONE) {
		snprintf(buf, sizeof(buf), "%s%s_", t->input == IN_FILTER ? "Filter: " : "Delay (s): ",
			 t->edit);
		attr(t, PAIR_KEY, A_BOLD, true);
		put(LINES - 1, 0, COLS, buf, COL_LEFT);
		attr(t, PAIR_KEY, A_BOLD, false);
		return;
	}
	for (i = 0; i < tui_nr_keys; i++) {
		const struct tui_key *k = &tui_keys[i];
		int kw, ww;

		if (!k->footer_key || !(k->where & (t->live ? TUI_LIVE : TUI_REPLAY)))
			continue;
		kw = (int)strlen(k->footer_key);
		ww = (int)strlen(k->footer);
		if (x + kw + ww + 1 > COLS)
			break;
		attr(t, PAIR_KEY, A_BOLD, true);
		put(LINES - 1, x, kw, k->footer_key, COL_LEFT);
		attr(t, PAIR_KEY, A_BOLD, false);
		put(LINES - 1, x + kw, ww + 1, k->footer, COL_LEFT);
		x += kw + ww + 1;
	}
	snprintf(buf, sizeof(buf), " sort %s%s%s%s%s%s", p->ops->cols[p->sort].name,
		 p->invert ? " inverted" : "", t->filter[0] ? "  filter \"" : "", t->filter,
		 t->filter[0] ? "\"" : "", t->cumulative ? "  cumulative" : "");
	if (x + (int)strlen(buf) <= COLS)
		put(LINES - 1, COLS - (int)strlen(buf), (int)strlen(buf), buf, COL_LEFT);
}

/* The whole screen, sent to the terminal: what the draw statistics time. */
static void draw(struct tui *t)
{
	uint64_t t0;

	if (!t->curses)
		return;
	t0 = t->stats_file ? clock_mono_ns() : 0;
	erase();
	if (LINES < HEADER_LINES + 2 || COLS < 20) {
		put(0, 0, COLS, "kvmtop: terminal too small", COL_LEFT);
	} else {
		draw_header(t);
		draw_table(t);
		if (t->show_hist && t->hist && LINES >= HEADER_LINES + 2 + HISTORY_LINES + 2)
			draw_history(t, LINES - 1 - HISTORY_LINES);
		draw_footer(t);
	}
	refresh();
	if (t->stats_file)
		stat_add(&t->st_draw, t0);
}

/* KVMTOP_DRAW_STATS: one JSON line, for make bench. */
static void write_stats(const struct tui *t)
{
	const struct pane *p = t->depth ? &t->stack[t->depth - 1] : NULL;
	FILE *f = fopen(t->stats_file, "w");

	if (!f) {
		fprintf(stderr, "kvmtop: KVMTOP_DRAW_STATS: cannot write %s: %s\n",
			t->stats_file, strerror(errno));
		return;
	}
	fprintf(f, "{\"rows\":%zu,\"draws\":%" PRIu64 ",\"draw_mean_ns\":%" PRIu64
		",\"draw_max_ns\":%" PRIu64 ",\"builds\":%" PRIu64 ",\"build_mean_ns\":%" PRIu64
		",\"build_max_ns\":%" PRIu64 ",\"sorts\":%" PRIu64 ",\"sort_mean_ns\":%" PRIu64
		",\"sort_max_ns\":%" PRIu64 "}\n", p ? p->nr : 0, t->st_draw.n,
		t->st_draw.n ? t->st_draw.sum_ns / t->st_draw.n : 0, t->st_draw.max_ns,
		t->st_build.n, t->st_build.n ? t->st_build.sum_ns / t->st_build.n : 0,
		t->st_build.max_ns, t->st_sort.n, t->st_sort.n ? t->st_sort.sum_ns / t->st_sort.n : 0,
		t->st_sort.max_ns);
	fclose(f);
}

/* --- keys --- */

static void move_sel(struct pane *p, long d)
{
	long s = (long)p->sel + d;

	if (s < 0 || !p->nr_order)
		s = 0;
	else if ((size_t)s >= p->nr_order)
		s = (long)p->nr_order - 1;
	p->sel = (size_t)s;
	pane_remember(p);
}

static int edit_key(struct tui *t, int ch)
{
	size_t n = strlen(t->edit);
	struct pane *p = top_pane(t);
	int act = 0;

	switch (ch) {
	case 27:
		if (t->input == IN_FILTER) {
			t->filter[0] = '\0';
			pane_order(t, p);
		}
		t->input = IN_NONE;
		return 0;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (t->input == IN_DELAY) {
			char *end;
			double d = strtod(t->edit, &end);

			if (end != t->edit && !*end && d >= 0.1 && d <= 86400) {
				t->delay = t->view.delay = d;
				act = VIEW_DELAY;
			} else {
				snprintf(t->msg, sizeof(t->msg), "delay: '%s' is not seconds from 0.1 to 86400",
					 t->edit);
			}
		}
		t->input = IN_NONE;
		return act;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (n)
			t->edit[n - 1] = '\0';
		break;
	default:
		if (ch >= 32 && ch < 127 && n + 1 < sizeof(t->edit)) {
			t->edit[n] = (char)ch;
			t->edit[n + 1] = '\0';
		}
		break;
	}
	if (t->input == IN_FILTER) {
		/* filter as you type */
		strlcpy(t->filter, t->edit, sizeof(t->filter));
		pane_order(t, p);
	}
	return 0;
}

/* After a key that needs new rows: live asks the driver, replay rebuilds. */
static int rebuild(struct tui *t)
{
	if (t->live)
		return VIEW_REFRESH;
	if (build_all(t))
		return VIEW_NOMEM;
	return 0;
}

/* What Enter or Tab did (a pane's enter/tab result) as a view action. */
static int opened(struct tui *t, int r)
{
	if (r < 0)
		return VIEW_NOMEM;
	if (r == 0)
		return rebuild(t);
	/* the only pane that cannot open: a VM's reasons have no recent exits */
	snprintf(t->msg, sizeof(t->msg), "recent exits are per vCPU: open a vCPU first");
	return 0;
}

/* [ ]: the driver reads interval k of the recording and refreshes the screen with it. */
static int step_interval(struct tui *t, long d)
{
	long k = t->interval + d;

	if (t->live) {
		snprintf(t->msg, sizeof(t->msg), "[ and ] step through a recording's intervals (-r)");
		return 0;
	}
	if (k < 0 || (t->nr_intervals >= 0 && k > t->nr_intervals))
		return 0;
	t->view.interval = k;
	return VIEW_INTERVAL;
}

/* --- keys: each a handler, and the one table of them --- */

static int k_move(struct tui *t, struct pane *p, int ch)
{
	long page = LINES - HEADER_LINES - 2 > 0 ? LINES - HEADER_LINES - 2 : 1;

	switch (ch) {
	case KEY_UP:
		move_sel(p, -1);
		break;
	case KEY_DOWN:
		move_sel(p, 1);
		break;
	case KEY_PPAGE:
		move_sel(p, -page);
		break;
	case KEY_NPAGE:
		move_sel(p, page);
		break;
	case KEY_HOME:
		move_sel(p, -(long)p->nr_order);
		break;
	default:
		move_sel(p, (long)p->nr_order);
		break;
	}
	return 0;
}

static int k_open(struct tui *t, struct pane *p, int ch)
{
	if (!p->ops->enter || !p->nr_order)
		return 0;
	pane_remember(p);
	return opened(t, p->ops->enter(t, row_at(p, p->order[p->sel])));
}

static int k_back(struct tui *t, struct pane *p, int ch)
{
	if (t->filter[0]) {
		t->filter[0] = '\0';
		pane_order(t, p);
	} else {
		pop(t);
	}
	return 0;
}

static int k_tab(struct tui *t, struct pane *p, int ch)
{
	return p->ops->tab ? opened(t, p->ops->tab(t)) : 0;
}

static int k_sort(struct tui *t, struct pane *p, int ch)
{
	int by = ch == '<' ? p->ops->nr_cols - 1 : 1;

	p->sort = (p->sort + by) % p->ops->nr_cols;
	while (!p->ops->cols[p->sort].compare)
		p->sort = (p->sort + by) % p->ops->nr_cols;
	p->invert = false;
	pane_remember(p);
	pane_order(t, p);
	return 0;
}

static int k_invert(struct tui *t, struct pane *p, int ch)
{
	p->invert = !p->invert;
	pane_remember(p);
	pane_order(t, p);
	return 0;
}

static int k_filter(struct tui *t, struct pane *p, int ch)
{
	t->input = IN_FILTER;
	strlcpy(t->edit, t->filter, sizeof(t->edit));
	return 0;
}

static int k_pause(struct tui *t, struct pane *p, int ch)
{
	if (!t->live)
		return 0;
	t->paused = !t->paused;
	return t->paused ? 0 : VIEW_REFRESH;
}

static int k_delay(struct tui *t, struct pane *p, int ch)
{
	if (!t->live) {
		snprintf(t->msg, sizeof(t->msg), "replay: -d sets the interval that [ and ] step by");
		return 0;
	}
	t->input = IN_DELAY;
	snprintf(t->edit, sizeof(t->edit), "%g", t->delay);
	return 0;
}

static int k_reset(struct tui *t, struct pane *p, int ch)
{
	if (!t->live) {
		snprintf(t->msg, sizeof(t->msg), "r resets live counts; a recording is read again with [ ]");
		return 0;
	}
	return VIEW_RESET;
}

static int k_cumulative(struct tui *t, struct pane *p, int ch)
{
	t->cumulative = !t->cumulative;
	return rebuild(t);
}

static int k_ip_kind(struct tui *t, struct pane *p, int ch)
{
	if (p->ops != &pane_ips) {
		snprintf(t->msg, sizeof(t->msg), "t switches the guest IPs (Tab from the exit reasons) between time samples and exit sites");
		return 0;
	}
	t->ip_kind = t->ip_kind == IP_TIME ? IP_EXIT : IP_TIME;
	return rebuild(t);
}

static int k_by_sym(struct tui *t, struct pane *p, int ch)
{
	const struct vm *vm;

	if (p->ops != &pane_ips) {
		snprintf(t->msg, sizeof(t->msg), "g groups the guest IPs (Tab from the exit reasons) by symbol");
		return 0;
	}
	vm = tui_find_vm(t, p->vm_pid);
	if (!vm || !sym_set_find(t->syms, vm->pid, vm->name)) {
		snprintf(t->msg, sizeof(t->msg), "g needs the guest's symbols: --guest-kallsyms or --guest-map");
		return 0;
	}
	t->ip_by_sym = !t->ip_by_sym;
	return rebuild(t);
}

static int k_interval(struct tui *t, struct pane *p, int ch)
{
	return step_interval(t, ch == '[' ? -1 : 1);
}

static int k_history(struct tui *t, struct pane *p, int ch)
{
	t->show_hist = !t->show_hist;
	if (t->show_hist && LINES < HEADER_LINES + 2 + HISTORY_LINES + 2)
		snprintf(t->msg, sizeof(t->msg), "H: the terminal is too short for the history (%d lines)",
			 HEADER_LINES + 2 + HISTORY_LINES + 2);
	return 0;
}

static int k_help(struct tui *t, struct pane *p, int ch)
{
	return tui_push(t, &pane_help, -1, -1) < 0 ? VIEW_NOMEM : 0;
}

static int k_quit(struct tui *t, struct pane *p, int ch)
{
	return VIEW_QUIT;
}

/*
 * Every key, declared once: the help pane, the footer and --help list
 * this table, and key() dispatches through it.
 */
const struct tui_key tui_keys[] = {
	{ "h ? F1", "help", "this help (any key from the list goes back)", "F1", "Help", TUI_ANY,
	  { 'h', '?', KEY_F(1) }, k_help, false },
	{ "Up/Down PgUp/PgDn Home/End", "move", "move the selection", NULL, NULL, TUI_ANY,
	  { KEY_UP, KEY_DOWN, KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END }, k_move, true },
	{ "Enter", "opens (VM -> vCPUs -> exit reasons -> recent exits)",
	  "open the selected row: VM -> its vCPUs -> a vCPU's exit reasons -> its recent exits",
	  "Enter", "Open", TUI_ANY, { '\n', '\r', KEY_ENTER, KEY_RIGHT }, k_open, false },
	{ "Esc Backspace Left", "goes back", "back to the pane before", "Esc", "Back", TUI_ANY,
	  { 27, KEY_BACKSPACE, 127, 8, KEY_LEFT }, k_back, false },
	{ "Tab", "switches (reasons, recent exits, guest IPs)",
	  "VMs -> the VM's guest IPs; vCPUs -> the VM's exit reasons; exit reasons -> recent exits (a vCPU's) -> guest IPs -> exit reasons",
	  "Tab", "Switch", TUI_ANY, { '\t' }, k_tab, false },
	{ "t", "time samples or exit sites",
	  "guest IPs: time samples (asynchronous exits: where the guest runs) / exit sites (synchronous exits, per reason)",
	  NULL, NULL, TUI_ANY, { 't' }, k_ip_kind, false },
	{ "g", "IPs by symbol", "guest IPs: one row per symbol (function) / per IP, with the guest's symbols",
	  NULL, NULL, TUI_ANY, { 'g' }, k_by_sym, false },
	{ "< > F6", "sort", "sort by the previous / next column (F6: next)", "<>", "Sort", TUI_ANY,
	  { '<', '>', KEY_F(6) }, k_sort, false },
	{ "I", "inverts", "invert the sort order", "I", "Invert", TUI_ANY, { 'I' }, k_invert, false },
	{ "/", "filters", "filter rows by a substring (Enter keeps it, Esc clears it)", "/", "Filter",
	  TUI_ANY, { '/' }, k_filter, false },
	{ "p Space", "pauses", "pause / resume the display (live; tracing goes on)", "p", "Pause",
	  TUI_LIVE, { 'p', ' ' }, k_pause, false },
	{ "d", "delay", "set the delay between refreshes, in seconds (live)", "d", "Delay", TUI_LIVE,
	  { 'd' }, k_delay, false },
	{ "r", "reset", "reset every count to zero (live)", "r", "Reset", TUI_LIVE, { 'r' }, k_reset, false },
	{ "H", "history", "history: the selected VM's or vCPU's time states and exit rate over the last 60 snapshots, under the pane",
	  "H", "Hist", TUI_ANY, { 'H' }, k_history, false },
	{ "c", "cumulative", "cumulative figures (since start or reset) / figures of the last interval",
	  "c", "Cumul", TUI_ANY, { 'c' }, k_cumulative, false },
	{ "[ ]", "replay intervals",
	  "replay: the interval before / after (of -d seconds, default 1); the whole recording before the first",
	  "[]", "Interval", TUI_REPLAY, { '[', ']' }, k_interval, false },
	{ "q F10", "quit", "quit", "q", "Quit", TUI_ANY, { 'q', KEY_F(10) }, k_quit, true },
};

const size_t tui_nr_keys = sizeof(tui_keys) / sizeof(tui_keys[0]);

static const struct tui_key *find_key(int ch)
{
	size_t i, j;

	for (i = 0; i < tui_nr_keys; i++)
		for (j = 0; j < TUI_KEY_CODES && tui_keys[i].codes[j]; j++)
			if (tui_keys[i].codes[j] == ch)
				return &tui_keys[i];
	return NULL;
}

static int key(struct tui *t, int ch)
{
	struct pane *p = top_pane(t);
	const struct tui_key *k;

	if (t->input != IN_NONE)
		return edit_key(t, ch);
	t->msg[0] = '\0';
	t->notice[0] = '\0';
	k = find_key(ch);
	/* in the help, the keys that move and quit work; any other goes back */
	if (p->ops == &pane_help && (!k || !k->in_help)) {
		pop(t);
		return 0;
	}
	return k ? k->fn(t, p, ch) : 0;
}

/* --- the view --- */

/* "replay NAME" and its directory apart: the header cuts the directory first. */
const char *tui_vcpu_id(int vcpu_id, char *buf, size_t len)
{
	if (vcpu_id < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%d", vcpu_id);
	return buf;
}

static void name_source(struct tui *t, const struct view_source *src)
{
	const char *file = src->file, *slash;
	char dir[4096], clk[32];

	/* a recording in cycles or counts says so, as batch text does: no rate assumes ns */
	t->unit[0] = '\0';
	if (!src->ns && src->time_unit)
		snprintf(t->unit, sizeof(t->unit), "times in %s (%s)  ", src->time_unit,
			 escape_text(src->clock ? src->clock : "", clk, sizeof(clk)));
	if (!file) {
		escape_text(src->name, t->source, sizeof(t->source));
		return;
	}
	slash = strrchr(file, '/');
	snprintf(t->source, sizeof(t->source), "%s ", src->name);
	escape_text(slash ? slash + 1 : file, t->source + strlen(t->source),
		    sizeof(t->source) - strlen(t->source));
	if (slash && (size_t)(slash - file) < sizeof(dir)) {
		memcpy(dir, file, (size_t)(slash - file));
		dir[slash - file] = '\0';
		escape_text(slash == file ? "/" : dir, t->source_dir, sizeof(t->source_dir));
	}
}

/*
 * A crash cannot call endwin() (not async-signal-safe): the bytes that
 * leave the alternate screen, show the cursor and reset the colours are
 * worked out now, while curses is up, and the shell's termios was saved.
 */
static void panic_prepare(struct tui *t)
{
	static const char *const caps[] = { "sgr0", "cnorm", "rmcup" };
	size_t i;

	t->reset_len = 0;
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		const char *c = tigetstr(caps[i]);
		size_t n;

		if (!c || c == (char *)-1)
			continue;
		n = strlen(c);
		if (t->reset_len + n + 2 >= sizeof(t->reset))
			break;
		memcpy(t->reset + t->reset_len, c, n);
		t->reset_len += n;
	}
	memcpy(t->reset + t->reset_len, "\r\n", 2);
	t->reset_len += 2;
}

static void tui_panic(void *ctx)
{
	struct tui *t = ctx;
	ssize_t n;

	if (!t->curses)
		return;
	n = write(STDOUT_FILENO, t->reset, t->reset_len);
	(void)n;
	if (t->have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->shell_tio);
}

static int tui_start(void *ctx, const struct view_source *src, const struct model *m)
{
	struct tui *t = ctx;
	const char *nc = getenv("NO_COLOR");

	t->m = m;
	t->ns = src->ns;
	t->live = src->live;
	name_source(t, src);
	t->have_tio = tcgetattr(STDIN_FILENO, &t->shell_tio) == 0;
	if (!initscr()) {
		fprintf(stderr, "kvmtop: cannot start the screen (TERM=%s)\n", getenv("TERM") ?: "");
		return -1;
	}
	t->curses = true;
	panic_prepare(t);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	t->color = has_colors() && !t->mono && !(nc && nc[0]);
	if (t->color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HEAD, COLOR_CYAN, -1);
		init_pair(PAIR_SEL, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_WARN, COLOR_RED, -1);
		init_pair(PAIR_KEY, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_TITLE, COLOR_GREEN, -1);
	}
	t->hist = history_new();
	if (!t->hist || tui_push(t, &pane_vms, -1, -1))
		return -1;
	draw(t);
	return 0;
}

static int tui_refresh(void *ctx, const struct snapshot *s)
{
	struct tui *t = ctx;

	t->m = s->m;
	/*
	 * History: every live snapshot, paused or not; a recording's
	 * intervals as ] first reaches them (not the whole recording, 0).
	 */
	if (t->live || s->interval > t->hist_interval) {
		if (!t->live)
			t->hist_interval = s->interval;
		if (history_record(t->hist, s->m, s->start, s->end, t->ns && s->end > s->start ?
				   (double)(s->end - s->start) / 1e9 : 0)) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (t->paused)
		return 0;
	t->start = t->live && t->cumulative ? s->m->first_time : s->start;
	t->end = s->end;
	t->secs = t->ns && s->end > t->start ? (double)(s->end - t->start) / 1e9 : 0;
	t->interval = s->interval;
	t->nr_intervals = s->nr_intervals;
	if (build_all(t)) {
		errno = ENOMEM;
		return -1;
	}
	draw(t);
	return 0;
}

static int tui_input(void *ctx, uint64_t now)
{
	struct tui *t = ctx;
	int ch, act = 0, n = 0;

	(void)now;
	/* a new interval is read before the next key moves in it */
	while (!(act & (VIEW_QUIT | VIEW_NOMEM | VIEW_INTERVAL)) && (ch = getch()) != ERR) {
		n++;
		if (ch == KEY_RESIZE)
			continue;	/* redrawn below at the new size */
		act |= key(t, ch);
	}
	if (n)
		draw(t);
	return act;
}

static void tui_notice(void *ctx, const char *msg)
{
	struct tui *t = ctx;

	escape_text(msg, t->notice, sizeof(t->notice));
}

static void tui_stop(void *ctx)
{
	struct tui *t = ctx;
	int i;

	if (t->curses) {
		erase();
		refresh();
		endwin();
		t->curses = false;
	}
	if (t->stats_file) {
		write_stats(t);
		t->stats_file = NULL;	/* once, even if stopped again */
	}
	for (i = 0; i < t->depth; i++)
		pane_free_rows(&t->stack[i]);
	t->depth = 0;
	history_free(t->hist);
	t->hist = NULL;
}

static const struct view_ops tui_view_ops = {
	.name = "screen",
	.start = tui_start,
	.refresh = tui_refresh,
	.input = tui_input,
	.notice = tui_notice,
	.stop = tui_stop,
	.panic = tui_panic,
};

struct view *tui_view(struct tui *t, const struct tui_config *c)
{
	const char *cs;

	memset(t, 0, sizeof(*t));
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	t->utf8 = cs && !strcmp(cs, "UTF-8") && !c->ascii;
	t->mono = c->mono;
	t->syms = c->syms;
	t->delay = c->delay ? c->delay : 3.0;
	view_init(&t->view, &tui_view_ops, t, STDIN_FILENO);
	t->view.delay = t->delay;
	t->nr_intervals = -1;
	t->stats_file = getenv("KVMTOP_DRAW_STATS");
	if (t->stats_file && !t->stats_file[0])
		t->stats_file = NULL;
	return &t->view;
}

void tui_keys_help(FILE *f)
{
	char all[2048] = "Keys on the screen:", item[160];
	const char *s = all, *sp;
	size_t i;
	int col = 0;

	for (i = 0; i < tui_nr_keys; i++) {
		snprintf(item, sizeof(item), " %s %s%s", tui_keys[i].label, tui_keys[i].brief,
			 i + 1 < tui_nr_keys ? "," : ".");
		strlcat(all, item, sizeof(all));
	}
	/* words, wrapped before column 77 */
	while (*s) {
		size_t w;

		sp = strchr(s, ' ');
		w = sp ? (size_t)(sp - s) : strlen(s);
		if (col && col + 1 + (int)w > 76) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%s%.*s", col ? " " : "", (int)w, s);
		col += (col ? 1 : 0) + (int)w;
		s += w + (sp ? 1 : 0);
	}
	fputc('\n', f);
}
