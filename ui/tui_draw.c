// SPDX-License-Identifier: GPL-2.0
/*
 * Drawing the screen: the header's two lines of figures, the pane's title,
 * its table (the columns that fit, the sort column marked), the history
 * strip and the footer of keys.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <curses.h>

#include "util/clock.h"
#include "history.h"
#include "tui_priv.h"
#include "model/model_time.h"

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

/*
 * Whether column i of p may be shown without being picked: the input
 * measures what it needs (time states), and one shown only with a figure
 * other than 0 (COL_SEEN) has had one.
 */
static bool col_shown(const struct pane *p, int i, unsigned int known)
{
	unsigned int needs = p->ops->cols[i].needs & ~COL_SEEN;

	if ((needs & known) != needs)
		return false;
	return !(p->ops->cols[i].needs & COL_SEEN) || (i < 64 && (p->seen & (1ull << i)));
}

/*
 * Which columns fit in the width: the sort column, then the highest
 * priorities (the least useful go first when narrow), kept in table order.
 */
static int fit_cols(const struct tui *t, const struct pane *p, int width, bool *show)
{
	const struct pane_ops *ops = p->ops;
	unsigned int known = model_time_known(t->m) | (t->ns ? COL_NS : COL_CYCLES);
	int used = 0, shown = 0, prio, i;

	for (i = 0; i < ops->nr_cols; i++)
		show[i] = false;
	for (prio = 10; prio >= 0; prio--)
		for (i = 0; i < ops->nr_cols; i++) {
			/* the sort column first (P M T sort by one that may be off): "priority 10" */
			int pr = i == p->sort ? 10 : ops->cols[i].priority;

			if (pr != prio || show[i] || (i != p->sort && !col_shown(p, i, known)))
				continue;
			if (used + ops->cols[i].width + (shown ? 1 : 0) > width && shown)
				continue;
			show[i] = true;
			used += ops->cols[i].width + (shown ? 1 : 0);
			shown++;
		}
	/* a wide last column (a text) is shown cut rather than not at all; one off until picked stays off */
	for (i = ops->nr_cols - 1; i >= 0 && !show[i]; i--)
		;
	if (i < ops->nr_cols - 1 && width - used - 1 >= 12 && ops->cols[ops->nr_cols - 1].align == COL_LEFT &&
	    ops->cols[ops->nr_cols - 1].priority >= 0) {
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

/* The first line: kvmtop, the source, its interval or delay, the unit, the recording's place. */
static void draw_source(struct tui *t)
{
	char line[512];

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
	attr(t, TUI_PAIR_HEAD, A_BOLD, true);
	put(0, 0, COLS, line, COL_LEFT);
	attr(t, TUI_PAIR_HEAD, A_BOLD, false);
	if (t->paused) {
		attr(t, TUI_PAIR_WARN, A_REVERSE | A_BOLD, true);
		put(0, (int)strlen(line) < COLS - 8 ? (int)strlen(line) : COLS - 8, 8, "PAUSED", COL_LEFT);
		attr(t, TUI_PAIR_WARN, A_REVERSE | A_BOLD, false);
	}
}

/* Text s at column *x of line y, highlighted as a warning when warn; *x moves past it. */
static void put_at(struct tui *t, int y, int *x, const char *s, bool warn)
{
	if (warn)
		attr(t, TUI_PAIR_WARN, A_REVERSE | A_BOLD, true);
	put(y, *x, COLS - *x, s, COL_LEFT);
	if (warn)
		attr(t, TUI_PAIR_WARN, A_REVERSE | A_BOLD, false);
	*x += (int)strlen(s);
}

/* The second line: the host's exit rate, lost (and dropped) events first: never cut off. */
static void draw_host(struct tui *t)
{
	uint64_t lost = t->head.lost;
	char line[256], a[32], b[32];
	int x = 0;

	tui_fmt_rate(t, t->head.exits, a, sizeof(a));
	tui_fmt_count(t->head.total, b, sizeof(b));
	snprintf(line, sizeof(line), "host: exits%s %s  ", t->secs > 0 || t->ns ? "/s" : "", a);
	put_at(t, 1, &x, line, false);
	snprintf(a, sizeof(a), "lost %" PRIu64, lost);
	put_at(t, 1, &x, a, lost);
	if (t->head.dropped) {
		/* threads past --max-vcpus: their events are not in the figures */
		snprintf(a, sizeof(a), "  dropped %" PRIu64, t->head.dropped);
		put_at(t, 1, &x, a, true);
	}
	tui_fmt_event_rate(t, t->head.events, a, sizeof(a));
	snprintf(line, sizeof(line), "  total %s  kvm events%s %s  VMs %u", b,
		 t->secs > 0 || t->ns ? "/s" : "", a, t->head.nr_vms);
	put_at(t, 1, &x, line, false);
}

static void draw_header(struct tui *t)
{
	struct pane *p = tui_top_pane(t);
	char line[512];

	if (!t->m)
		return;
	draw_source(t);
	draw_host(t);
	/* i: said first, so that a narrow screen still shows it */
	snprintf(line, sizeof(line), "%s", t->hide_idle && p->ops->busy ? "[idle rows hidden: i shows them] " : "");
	p->ops->title(t, p, line + strlen(line), sizeof(line) - strlen(line));
	if (t->progress[0]) {
		/* how far a recording is read, until it is */
		attr(t, TUI_PAIR_WARN, A_BOLD, true);
		put(2, 0, COLS, t->progress, COL_LEFT);
		attr(t, TUI_PAIR_WARN, A_BOLD, false);
	} else if (t->msg[0] || t->notice[0]) {
		/* a notice replaces the title until the next key */
		snprintf(line, sizeof(line), "%s", t->msg[0] ? t->msg : t->notice);
		attr(t, TUI_PAIR_WARN, A_BOLD, true);
		put(2, 0, COLS, line, COL_LEFT);
		attr(t, TUI_PAIR_WARN, A_BOLD, false);
	} else {
		attr(t, TUI_PAIR_TITLE, A_BOLD, true);
		put(2, 0, COLS, line, COL_LEFT);
		attr(t, TUI_PAIR_TITLE, A_BOLD, false);
	}
}

static void draw_table(struct tui *t)
{
	struct pane *p = tui_top_pane(t);
	const struct pane_ops *ops = p->ops;
	int rows = LINES - TUI_HEADER_LINES - 1, order[TUI_COLS], nc, x, i, j, y;
	bool show[TUI_COLS];
	char buf[256];

	/* H: the history strip takes the bottom lines when there is room for both */
	if (t->show_hist && t->hist && LINES >= TUI_HEADER_LINES + 2 + HISTORY_LINES + 2)
		rows -= HISTORY_LINES;
	/* the help pane's texts are wrapped to the width: again after a resize */
	if (tui_pane_is(t, p, PANE_HELP) && t->help_cols != COLS && tui_pane_build(t, p))
		snprintf(t->msg, sizeof(t->msg), "no memory to wrap the help");
	fit_cols(t, p, COLS, show);
	nc = tui_cols_order(t, ops, show, order);
	/* column titles, the sort column marked */
	attr(t, TUI_PAIR_KEY, A_REVERSE, true);
	put(3, 0, COLS, "", COL_LEFT);
	for (j = 0, x = 0; j < nc && x < COLS; j++) {
		const struct pane_col *c = &ops->cols[i = order[j]];
		bool down = c->descending != p->invert;
		int w = c->width < COLS - x ? c->width : COLS - x;

		if (i == p->sort)
			snprintf(buf, sizeof(buf), "%s%s", tui_col_title(c),
				 t->utf8 ? (down ? "\u25bc" : "\u25b2") : (down ? "v" : "^"));
		else
			snprintf(buf, sizeof(buf), "%s", tui_col_title(c));
		put(3, x, w, buf, c->align);
		/* where it is, for a click on it */
		t->layout.col[t->layout.nr_cols] = i;
		t->layout.col_x[t->layout.nr_cols] = x;
		t->layout.col_w[t->layout.nr_cols++] = w;
		x += c->width + 1;
	}
	attr(t, TUI_PAIR_KEY, A_REVERSE, false);

	if (rows < 1)
		return;
	t->layout.rows = rows;
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + (size_t)rows)
		p->top = p->sel - rows + 1;
	if (p->top + rows > p->nr_order)
		p->top = p->nr_order > (size_t)rows ? p->nr_order - rows : 0;
	for (y = 0; y < rows; y++) {
		size_t k = p->top + y;
		const void *r;

		move(TUI_HEADER_LINES + y, 0);
		clrtoeol();
		if (k >= p->nr_order)
			continue;
		r = tui_row_at(p, p->order[k]);
		if (k == p->sel)
			attr(t, TUI_PAIR_SEL, A_REVERSE, true);
		put(TUI_HEADER_LINES + y, 0, COLS, "", COL_LEFT);
		for (j = 0, x = 0; j < nc && x < COLS; j++) {
			const struct pane_col *c = &ops->cols[i = order[j]];
			int w = c->width < COLS - x ? c->width : COLS - x;

			tui_col_cell(t, ops, r, i, buf, sizeof(buf));
			put(TUI_HEADER_LINES + y, x, w, buf, c->align);
			x += c->width + 1;
		}
		if (k == p->sel)
			attr(t, TUI_PAIR_SEL, A_REVERSE, false);
	}
	if (!p->nr_order) {
		const char *s = t->filter[0] ? "no row matches the filter" :
				!t->m ? (t->live ? "no snapshot yet" : "reading the recording") :
				p->ops->empty ? p->ops->empty(t, p) :
				!p->nr ? (t->live || t->interval > 0 ? "nothing in this interval" :
					  "nothing in the recording") : "";

		put(TUI_HEADER_LINES, 1, COLS - 1, s, COL_LEFT);
	}
}

/*
 * The history strip's subject: the selected VM or vCPU of the VMs and
 * vCPUs panes, else the pane's vCPU or VM.  false if none.
 */
static bool hist_subject(struct tui *t, bool *vm, int *id, char *what, size_t len)
{
	struct pane *p = tui_top_pane(t);
	char buf[256];

	if ((tui_pane_is(t, p, PANE_VMS) || tui_pane_is(t, p, PANE_VCPUS)) && p->nr_order) {
		const void *r = tui_row_at(p, p->order[p->sel]);

		/* F5's tree: a vCPU's row (its key's low bits its tid) is a vCPU's */
		*vm = tui_pane_is(t, p, PANE_VMS) && !tui_row_parent(p, r);
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
	/* the settings' history length: as many cells (label 8, two bars, the newest's figure 8) */
	n = history_lines(t->hist, vm, id, what,
			  t->live ? "" : " (] steps through the recording's intervals: each is recorded)",
			  t->utf8, COLS < t->history_len + 18 ? COLS : t->history_len + 18, lines, HISTORY_LINES);
	for (i = 0; i < n && y + i < LINES - 1; i++) {
		move(y + i, 0);
		clrtoeol();
		if (!i)
			attr(t, TUI_PAIR_TITLE, A_BOLD, true);
		put(y + i, 0, COLS, lines[i], COL_LEFT);
		if (!i)
			attr(t, TUI_PAIR_TITLE, A_BOLD, false);
	}
	return n;
}

/* The line being edited (filter, search, delay), in the function bar's place. */
static void draw_edit(struct tui *t)
{
	static const char *const prompts[] = {
		[IN_FILTER] = "Filter: ", [IN_SEARCH] = "Search: ", [IN_DELAY] = "Delay (s): ",
	};
	bool miss = t->input == IN_SEARCH && t->search_miss;
	char buf[160], now[64] = "";

	if (t->input == IN_DELAY)
		snprintf(now, sizeof(now), "   now %g s  Enter: set  Esc: keep it", t->delay);
	snprintf(buf, sizeof(buf), "%s%s_%s", prompts[t->input], t->edit,
		 t->input == IN_SEARCH ? miss ? "   (no row holds it)" : "   F3: next  Esc: done" : now);
	attr(t, miss ? TUI_PAIR_WARN : TUI_PAIR_KEY, A_BOLD, true);
	put(LINES - 1, 0, COLS, buf, COL_LEFT);
	attr(t, miss ? TUI_PAIR_WARN : TUI_PAIR_KEY, A_BOLD, false);
}

/* Whether key k is on the function bar of the pane (its bit on), with this source. */
static bool bar_has(const struct tui *t, const struct tui_key *k, unsigned int on)
{
	return k->footer_key && (k->where & (t->live ? TUI_LIVE : TUI_REPLAY)) && (k->panes & on);
}

static int bar_width(const struct tui_key *k)
{
	return (int)(strlen(k->footer_key) + strlen(k->footer));
}

/* Key k on the function bar at column x, its key and its word as htop's; kept for a click. */
static void bar_key(struct tui *t, int x, const struct tui_key *k)
{
	struct tui_layout *l = &t->layout;
	int kw = (int)strlen(k->footer_key);

	attr(t, 0, A_BOLD, true);
	put(LINES - 1, x, kw, k->footer_key, COL_LEFT);
	attr(t, 0, A_BOLD, false);
	attr(t, TUI_PAIR_KEY, A_REVERSE, true);
	put(LINES - 1, x + kw, bar_width(k) - kw, k->footer, COL_LEFT);
	attr(t, TUI_PAIR_KEY, A_REVERSE, false);
	if (l->nr_keys < (int)(sizeof(l->key_x) / sizeof(l->key_x[0]))) {
		l->key_x[l->nr_keys] = x;
		l->key_w[l->nr_keys] = bar_width(k);
		l->key_code[l->nr_keys++] = k->codes[0];
	}
}

/*
 * The function bar, as htop's: the keys of the pane shown (and of this
 * source, live or a recording), each its key and a word, in the table's
 * order, cut at the width but the last (quit), which always shows; the
 * search, sort, filter and cumulative on the right where there is room.
 */
static void draw_footer(struct tui *t)
{
	struct pane *p = tui_top_pane(t);
	unsigned int on = TUI_ON(tui_pane_id(t, p));
	const struct tui_key *last = NULL;
	char buf[256];
	int x = 0, room;
	size_t i;

	move(LINES - 1, 0);
	clrtoeol();
	if (t->input != IN_NONE) {
		draw_edit(t);
		return;
	}
	for (i = 0; i < tui_nr_keys; i++)
		if (bar_has(t, &tui_keys[i], on))
			last = &tui_keys[i];
	room = COLS - (last ? bar_width(last) : 0);
	for (i = 0; i < tui_nr_keys && &tui_keys[i] != last; i++) {
		if (!bar_has(t, &tui_keys[i], on))
			continue;
		if (x + bar_width(&tui_keys[i]) + 1 > room)
			break;
		bar_key(t, x, &tui_keys[i]);
		x += bar_width(&tui_keys[i]) + 1;
	}
	if (last && x + bar_width(last) <= COLS) {
		bar_key(t, x, last);
		x += bar_width(last) + 1;
	}
	snprintf(buf, sizeof(buf), "%s%s%s sort %s%s%s%s%s", t->search[0] ? " search \"" : "", t->search,
		 t->search[0] ? "\" " : "", p->ops->cols[p->sort].name, p->invert ? " inverted" : "",
		 t->filter[0] ? "  filter \"" : "", t->filter, t->filter[0] ? "\"" : "");
	strlcat(buf, t->hide_idle && p->ops->busy ? "  idle hidden" : "", sizeof(buf));
	strlcat(buf, t->cumulative ? "  cumulative" : "", sizeof(buf));
	if (x + (int)strlen(buf) <= COLS)
		put(LINES - 1, COLS - (int)strlen(buf), (int)strlen(buf), buf, COL_LEFT);
}

/* The whole screen, sent to the terminal: what the draw statistics time. */
void tui_draw(struct tui *t)
{
	uint64_t t0;

	if (!t->curses)
		return;
	t0 = t->stats_file ? clock_mono_ns() : 0;
	memset(&t->layout, 0, sizeof(t->layout));
	erase();
	if (LINES < TUI_HEADER_LINES + 2 || COLS < 20) {
		put(0, 0, COLS, "kvmtop: terminal too small", COL_LEFT);
	} else {
		draw_header(t);
		draw_table(t);
		if (t->show_hist && t->hist && LINES >= TUI_HEADER_LINES + 2 + HISTORY_LINES + 2)
			draw_history(t, LINES - 1 - HISTORY_LINES);
		draw_footer(t);
	}
	refresh();
	if (t->stats_file)
		tui_stat_add(&t->st_draw, t0);
}

/* KVMTOP_DRAW_STATS: one JSON line, for make bench. */
void tui_write_stats(const struct tui *t)
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

