// SPDX-License-Identifier: GPL-2.0
/*
 * The screen's keys: each a handler, in the one table of them (tui_keys[]),
 * as htop's; the key of the moment dispatched (tui_key()), and --help's
 * list of them (tui_keys_help()).  Below the help pane, which lists them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "history.h"
#include "tui_priv.h"

/* --- keys --- */

static void move_sel(struct pane *p, long d)
{
	tui_pane_select(p, (long)p->sel + d);
}

/* Search: the row that holds the text, from the top (dir 0), the next (1) or the one before (-1). */
static void keys_search(struct tui *t, struct pane *p, int dir)
{
	t->search_miss = !tui_pane_find(t, p, t->search, dir);
	if (t->search_miss && t->input == IN_NONE)
		snprintf(t->msg, sizeof(t->msg), "search: no row holds '%s'", t->search);
}

/* Enter or Esc on the line being edited: what it asks for is done (a view_action mask). */
static int edit_end(struct tui *t, struct pane *p, int ch)
{
	int act = 0;

	if (ch == 27 && t->input == IN_FILTER) {
		t->filter[0] = '\0';
		tui_pane_order(t, p);
	}
	if (ch != 27 && t->input == IN_DELAY && t->edit[0]) {
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
	/* a search ends where it is, either way; n and N look for it again */
	t->input = IN_NONE;
	return act;
}

/* A key while a line is edited (filter, search, delay): a view_action mask. */
static int edit_key(struct tui *t, int ch)
{
	size_t n = strlen(t->edit);
	struct pane *p = tui_top_pane(t);

	switch (ch) {
	case 27:
	case '\n':
	case '\r':
	case KEY_ENTER:
		return edit_end(t, p, ch);
	case KEY_F(3):
	case KEY_F(15):		/* Shift-F3 */
		/* the search's next (previous) row, as htop's F3 */
		if (t->input == IN_SEARCH)
			keys_search(t, p, ch == KEY_F(3) ? 1 : -1);
		return 0;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (n)
			t->edit[n - 1] = '\0';
		break;
	default:
		if (ch < 32 || ch >= 127 || n + 1 >= sizeof(t->edit))
			return 0;
		t->edit[n] = (char)ch;
		t->edit[n + 1] = '\0';
		break;
	}
	if (t->input == IN_FILTER) {
		/* filter as you type */
		strlcpy(t->filter, t->edit, sizeof(t->filter));
		tui_pane_order(t, p);
	} else if (t->input == IN_SEARCH) {
		/* search as you type: the first row that holds it */
		strlcpy(t->search, t->edit, sizeof(t->search));
		keys_search(t, p, 0);
	}
	return 0;
}

/* After a key that needs new rows: live asks the driver, replay rebuilds. */
static int rebuild(struct tui *t)
{
	if (t->live)
		return VIEW_REFRESH;
	if (tui_build_all(t))
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
	/* a row with nothing under it: an event's (no objects), a VM's object (recent exits are a vCPU's) */
	snprintf(t->msg, sizeof(t->msg), "nothing to open: events have no objects, recent exits are per vCPU");
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
	long page = LINES - TUI_HEADER_LINES - 2 > 0 ? LINES - TUI_HEADER_LINES - 2 : 1;

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
	tui_pane_remember(p);
	return opened(t, p->ops->enter(t, tui_row_at(p, p->order[p->sel])));
}

static int k_back(struct tui *t, struct pane *p, int ch)
{
	if (t->filter[0]) {
		t->filter[0] = '\0';
		tui_pane_order(t, p);
	} else if (tui_pane_is(t, p, PANE_VMS) && t->vms_view >= 0) {
		t->vms_view = -1;	/* a view (1 2 3) goes back to the pane's own columns */
	} else {
		tui_pop(t);
	}
	return 0;
}

static int k_tab(struct tui *t, struct pane *p, int ch)
{
	return p->ops->tab ? opened(t, p->ops->tab(t)) : 0;
}

/* A column < > F6 stop at: one that sorts, and not one the input's clock rules out (EXITS/s of cycles). */
static bool sort_stop(const struct tui *t, const struct pane_col *c)
{
	return tui_col_sorts(c) && !(c->needs & (t->ns ? COL_CYCLES : COL_NS));
}

static int k_sort(struct tui *t, struct pane *p, int ch)
{
	int by = ch == '<' ? p->ops->nr_cols - 1 : 1;

	p->sort = (p->sort + by) % p->ops->nr_cols;
	while (!sort_stop(t, &p->ops->cols[p->sort]))
		p->sort = (p->sort + by) % p->ops->nr_cols;
	p->invert = false;
	tui_pane_remember(p);
	tui_pane_order(t, p);
	return 0;
}

static int k_invert(struct tui *t, struct pane *p, int ch)
{
	p->invert = !p->invert;
	tui_pane_remember(p);
	tui_pane_order(t, p);
	return 0;
}

static int k_filter(struct tui *t, struct pane *p, int ch)
{
	t->input = IN_FILTER;
	strlcpy(t->edit, t->filter, sizeof(t->edit));
	return 0;
}

static int k_search(struct tui *t, struct pane *p, int ch)
{
	t->input = IN_SEARCH;
	t->edit[0] = t->search[0] = '\0';
	t->search_miss = false;
	return 0;
}

/* n N: the last search again, the next row that holds it or the one before */
static int k_search_again(struct tui *t, struct pane *p, int ch)
{
	if (!t->search[0]) {
		snprintf(t->msg, sizeof(t->msg), "n and N find the last search again: / or F3 searches");
		return 0;
	}
	keys_search(t, p, ch == 'n' ? 1 : -1);
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
	/* an empty line: what is typed replaces the delay, Esc (or Enter on nothing) keeps it */
	t->input = IN_DELAY;
	t->edit[0] = '\0';
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
	/* paused, the figures shown stay those of the snapshot they were: no others to switch to */
	if (t->live && t->paused) {
		snprintf(t->msg, sizeof(t->msg), "paused: S switches the figures once Z resumes");
		return 0;
	}
	t->cumulative = !t->cumulative;
	return rebuild(t);
}

static int k_ip_kind(struct tui *t, struct pane *p, int ch)
{
	if (!tui_pane_is(t, p, PANE_IPS)) {
		snprintf(t->msg, sizeof(t->msg), "t switches the guest IPs (Tab from the exit reasons) between time samples and exit sites");
		return 0;
	}
	t->ip_kind = t->ip_kind == IP_TIME ? IP_EXIT : IP_TIME;
	return rebuild(t);
}

static int k_by_sym(struct tui *t, struct pane *p, int ch)
{
	const struct vm *vm;

	if (!tui_pane_is(t, p, PANE_IPS)) {
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
	if (t->show_hist && LINES < TUI_HEADER_LINES + 2 + HISTORY_LINES + 2)
		snprintf(t->msg, sizeof(t->msg), "H: the terminal is too short for the history (%d lines)",
			 TUI_HEADER_LINES + 2 + HISTORY_LINES + 2);
	return 0;
}

static int k_findings(struct tui *t, struct pane *p, int ch)
{
	if (tui_pane_is(t, p, PANE_FINDINGS))
		return 0;
	return tui_push(t, PANE_FINDINGS, -1, -1) < 0 ? VIEW_NOMEM : 0;
}

/* w: who ran while a vCPU waited, of the selected vCPU (vCPUs pane) or of the pane's vCPU */
static int k_thieves(struct tui *t, struct pane *p, int ch)
{
	int tid = p->tid;

	if (tui_pane_is(t, p, PANE_VCPUS)) {
		const void *r = tui_selected(t);

		tid = r ? (int)p->ops->key(r) : -1;
	} else if (tui_pane_is(t, p, PANE_VMS)) {
		const void *r = tui_selected(t);

		/* F5's tree: a vCPU's row (under its VM), whose key's low bits are its tid */
		tid = r && tui_row_parent(p, r) ? (int)p->ops->key(r) : -1;
	}
	if (tid < 0 || tui_pane_is(t, p, PANE_THIEVES)) {
		snprintf(t->msg, sizeof(t->msg), "w shows who ran while a vCPU waited: select a vCPU first");
		return 0;
	}
	return tui_push(t, PANE_THIEVES, p->vm_pid, tid) < 0 ? VIEW_NOMEM : 0;
}

/* m: the context of the selected VM (VMs pane) or of the pane's VM */
static int k_context(struct tui *t, struct pane *p, int ch)
{
	int pid = p->vm_pid;

	if (tui_pane_is(t, p, PANE_VMS)) {
		const void *r = tui_selected(t);

		/* F5's tree: a vCPU's row is its VM's */
		if (r && tui_row_parent(p, r))
			r = tui_row_parent(p, r);
		pid = r ? (int)p->ops->key(r) : -1;
	}
	if (pid <= 0 || tui_pane_is(t, p, PANE_CONTEXT)) {
		snprintf(t->msg, sizeof(t->msg), "m shows a VM's context: select a VM first");
		return 0;
	}
	return tui_push(t, PANE_CONTEXT, pid, -1) < 0 ? VIEW_NOMEM : 0;
}

/* F2: the setup of the pane shown, from the columns drawn now */
static int k_setup(struct tui *t, struct pane *p, int ch)
{
	if (tui_pane_is(t, p, PANE_SETUP))
		return 0;
	t->setup_of = tui_pane_id(t, p);
	t->nr_setup_cols = t->layout.nr_cols;
	memcpy(t->setup_cols, t->layout.col, sizeof(t->setup_cols));
	return tui_push(t, PANE_SETUP, -1, -1) < 0 ? VIEW_NOMEM : 0;
}

/* F7 F8: the setup's selected column one place up / down, the selection with it */
static int k_setup_move(struct tui *t, struct pane *p, int ch)
{
	const void *r = tui_selected(t);

	if (!tui_pane_is(t, p, PANE_SETUP)) {
		snprintf(t->msg, sizeof(t->msg), "F7 and F8 move a column in the setup (F2)");
		return 0;
	}
	/* the setup's rows are keyed by column + 1, the colours by 0 */
	if (!r || !p->ops->key(r) || !tui_setup_move(t, (int)p->ops->key(r) - 1, ch == KEY_F(7) ? -1 : 1))
		return 0;
	return rebuild(t);
}

static int k_write(struct tui *t, struct pane *p, int ch)
{
	tui_rc_write(t);
	return 0;
}

static int k_mouse(struct tui *t, struct pane *p, int ch)
{
	int key = tui_mouse(t, p);

	return key && key != KEY_MOUSE ? tui_key(t, key) : 0;
}

/*
 * P M T: top's and htop's sorts, most first: the pane's column of that
 * figure, looked up by name (the first the pane has).
 */
static const struct keys_sort {
	int key;
	const char *what;
	const char *names[3];
} keys_sorts[] = {
	{ 'P', "UTIL% (time in guest, host and VMM)", { "vm_util_pct", "vcpu_util_pct" } },
	{ 'M', "resident memory (the VMs pane's RES)", { "vm_mem_rss_bytes" } },
	{ 'T', "total exits", { "vm_exits_total", "vcpu_exits_total", "total" } },
};

static int k_sort_by(struct tui *t, struct pane *p, int ch)
{
	const struct keys_sort *s = NULL;
	size_t i, j;
	int col = -1;

	for (i = 0; i < sizeof(keys_sorts) / sizeof(keys_sorts[0]); i++)
		if (keys_sorts[i].key == ch)
			s = &keys_sorts[i];
	for (j = 0; s && col < 0 && j < 3 && s->names[j]; j++)
		col = tui_col_find(p->ops, s->names[j]);
	if (!s || col < 0 || !tui_col_sorts(&p->ops->cols[col])) {
		snprintf(t->msg, sizeof(t->msg), "%c sorts by %s: the %s pane has no such column",
			 ch, s ? s->what : "?", p->ops->name);
		return 0;
	}
	p->sort = col;
	/* most first, whatever the column's own order */
	p->invert = !p->ops->cols[col].descending;
	tui_pane_remember(p);
	tui_pane_order(t, p);
	for (i = 0; i < p->nr && !tui_col_has(p->ops, tui_row_at(p, i), col); i++)
		;
	if (p->nr && i == p->nr)
		snprintf(t->msg, sizeof(t->msg), "%c sorts by %s: no row has one here (\"-\": %s)", ch, s->what,
			 ch == 'M' ? "the host's figures are live only" : "this input does not measure it");
	return 0;
}

/* i: the figure panes leave out (show again) the rows without exits in the interval */
static int k_idle(struct tui *t, struct pane *p, int ch)
{
	size_t k;

	t->hide_idle = !t->hide_idle;
	for (k = 0; k < (size_t)t->depth; k++)
		if (t->stack[k].order)
			tui_pane_order(t, &t->stack[k]);
	if (!p->ops->busy)
		snprintf(t->msg, sizeof(t->msg), "i: idle rows %s on the VMs, vCPUs, exit reasons and objects panes",
			 t->hide_idle ? "hidden" : "shown");
	return 0;
}

/* 1 2 3: a view of the VMs pane (virt-top's), again (or 0) its own columns */
static int k_view(struct tui *t, struct pane *p, int ch)
{
	size_t i;

	if (!tui_pane_is(t, p, PANE_VMS)) {
		snprintf(t->msg, sizeof(t->msg), "1 2 3 are views of the VMs pane (CPU, network, disk): Esc goes back to it");
		return 0;
	}
	for (i = 0; i < tui_nr_views && tui_views[i].key != ch; i++)
		;
	t->vms_view = i < tui_nr_views && t->vms_view != (int)i ? (int)i : -1;
	return 0;
}

/* F5: htop's tree: the VMs pane's VMs each with its vCPUs under it, or flat again */
static int k_tree(struct tui *t, struct pane *p, int ch)
{
	if (!tui_pane_is(t, p, PANE_VMS)) {
		snprintf(t->msg, sizeof(t->msg), "F5: the tree is the VMs pane's (each VM's vCPUs under it): Esc goes back to it");
		return 0;
	}
	/* paused, the rows stay those of the snapshot shown: none to build the tree from */
	if (t->live && t->paused) {
		snprintf(t->msg, sizeof(t->msg), "paused: F5 switches the tree once Z resumes");
		return 0;
	}
	t->vms_tree = !t->vms_tree;
	tui_pane_remember(p);
	return rebuild(t);
}

/* F9: htop's kill; kvmtop only looks */
static int k_kill(struct tui *t, struct pane *p, int ch)
{
	snprintf(t->msg, sizeof(t->msg), "F9: kvmtop kills nothing (it only watches): kill(1) or virsh destroy");
	return 0;
}

static int k_help(struct tui *t, struct pane *p, int ch)
{
	return tui_push(t, PANE_HELP, -1, -1) < 0 ? VIEW_NOMEM : 0;
}

static int k_quit(struct tui *t, struct pane *p, int ch)
{
	return VIEW_QUIT;
}

/*
 * Every key, declared once: the help pane, the function bar and --help
 * list this table, and tui_key() dispatches through it.  htop's and top's
 * keys where they have one.
 */
const struct tui_key tui_keys[] = {
	{ "h ? F1", "help", "this help (any key from the list goes back)", "F1", "Help", TUI_ANY,
	  TUI_ON_ROWS, { 'h', '?', KEY_F(1) }, k_help, false },
	{ "F2", "setup", "setup: the pane's columns (shown, hidden, their order) and the colours",
	  "F2", "Setup", TUI_ANY, TUI_ON_ROWS, { KEY_F(2) }, k_setup, false },
	{ "F7 F8", "move a column (setup)", "setup: move the selected column up / down",
	  "F7F8", "Move", TUI_ANY, TUI_ON(PANE_SETUP), { KEY_F(7), KEY_F(8) }, k_setup_move, false },
	{ "W", "write the settings", "write the settings (delay, each pane's sort and columns, colours, i, F5's tree) to the settings file",
	  "W", "Write", TUI_ANY, TUI_ON(PANE_SETUP), { 'W' }, k_write, false },
	{ "Up/Down PgUp/PgDn Home/End", "move", "move the selection", NULL, NULL, TUI_ANY, 0,
	  { KEY_UP, KEY_DOWN, KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END }, k_move, true },
	{ "/ F3", "searches", "search: the selection goes to the first row that holds what is typed (F3: the next, Shift-F3: the one before; Enter or Esc ends)",
	  "F3", "Search", TUI_ANY, TUI_ON_ROWS, { '/', KEY_F(3) }, k_search, false },
	{ "n N", "search again", "the next row that holds the last search / the one before", NULL, NULL,
	  TUI_ANY, 0, { 'n', 'N' }, k_search_again, false },
	{ "\\ F4", "filters", "filter rows by a substring, as you type (Enter keeps it, Esc clears it)",
	  "F4", "Filter", TUI_ANY, TUI_ON_ROWS, { '\\', KEY_F(4) }, k_filter, false },
	{ "< > F6", "sort", "sort by the previous / next column (F6: next)", "F6", "SortBy", TUI_ANY,
	  TUI_ON_ROWS, { '<', '>', KEY_F(6) }, k_sort, false },
	{ "I", "inverts", "invert the sort order", NULL, NULL, TUI_ANY, 0, { 'I' }, k_invert, false },
	{ "Enter", "opens (VM -> vCPUs -> exit reasons -> objects -> recent exits)",
	  "open the selected row: VM -> its vCPUs -> a vCPU's exit reasons -> a reason's objects -> a vCPU's recent exits of that object",
	  "Enter", "Open", TUI_ANY, TUI_ON(PANE_VMS) | TUI_ON(PANE_VCPUS) | TUI_ON(PANE_REASONS) | TUI_ON(PANE_OBJECTS) |
	  TUI_ON(PANE_FINDINGS) | TUI_ON(PANE_THIEVES), { '\n', '\r', KEY_ENTER, KEY_RIGHT }, k_open, false },
	{ "Esc Backspace Left", "goes back", "back to the pane before (first clears a filter)", "Esc",
	  "Back", TUI_ANY, TUI_ON_ALL & ~TUI_ON(PANE_VMS), { 27, KEY_BACKSPACE, 127, 8, KEY_LEFT },
	  k_back, false },
	{ "Tab", "switches (reasons, recent exits, guest IPs)",
	  "VMs -> the VM's guest IPs; vCPUs -> the VM's exit reasons; exit reasons -> recent exits (a vCPU's) -> guest IPs -> exit reasons",
	  "Tab", "Switch", TUI_ANY, TUI_ON(PANE_VMS) | TUI_ON_VCPU, { '\t' }, k_tab, false },
	{ "t", "time samples or exit sites",
	  "guest IPs: time samples (asynchronous exits: where the guest runs) / exit sites (synchronous exits, per reason)",
	  "t", "Kind", TUI_ANY, TUI_ON(PANE_IPS), { 't' }, k_ip_kind, false },
	{ "g", "IPs by symbol", "guest IPs: one row per symbol (function) / per IP, with the guest's symbols",
	  "g", "BySym", TUI_ANY, TUI_ON(PANE_IPS), { 'g' }, k_by_sym, false },
	{ "w", "stolen by", "stolen by: the threads that ran on the CPU while the selected vCPU waited for it",
	  "w", "StolenBy", TUI_ANY, TUI_ON_VCPU, { 'w' }, k_thieves, false },
	{ "!", "findings", "findings: what this snapshot's figures show is wrong, the evidence and the remedy (Enter: where)",
	  "!", "Findings", TUI_ANY, TUI_ON_ROWS & ~TUI_ON(PANE_FINDINGS), { '!' }, k_findings, false },
	{ "H", "history", "history: the selected VM's or vCPU's time states and exit rate over the last 60 snapshots, under the pane",
	  "H", "Hist", TUI_ANY, TUI_ON(PANE_VMS) | TUI_ON_VCPU, { 'H' }, k_history, false },
	{ "S", "cumulative", "cumulative figures (since start or reset) / figures of the last interval (top's S)",
	  "S", "Cumul", TUI_ANY, TUI_ON_ROWS, { 'S' }, k_cumulative, false },
	{ "Z", "pauses", "pause / resume the display (live; tracing goes on)", "Z", "Pause",
	  TUI_LIVE, TUI_ON_ROWS, { 'Z' }, k_pause, false },
	{ "s d", "delay", "set the delay between refreshes, in seconds (live)", "s", "Delay", TUI_LIVE,
	  TUI_ON_ROWS, { 's', 'd' }, k_delay, false },
	{ "r", "reset", "reset every count to zero (live)", NULL, NULL, TUI_LIVE, 0, { 'r' }, k_reset, false },
	{ "[ ]", "replay intervals",
	  "replay: the interval before / after (of -d seconds, default 1); the whole recording before the first",
	  "[]", "Interval", TUI_REPLAY, TUI_ON_ROWS, { '[', ']' }, k_interval, false },
	{ "Mouse", "sorts, selects and opens (a click) and scrolls (the wheel)",
	  "a click on a column's title sorts by it (again: inverts), on a row selects it, a double click opens it; the wheel scrolls",
	  NULL, NULL, TUI_ANY, 0, { KEY_MOUSE }, k_mouse, true },
	{ "q F10", "quit", "quit", "F10", "Quit", TUI_ANY, TUI_ON_ALL, { 'q', KEY_F(10) }, k_quit, true },
	/* after q: the help's first screen (30 lines) keeps q in view */
	{ "m", "context", "context: the selected VM's memory, memory per NUMA node, disk, each tap, pressure and threads (live)",
	  NULL, NULL, TUI_ANY, TUI_ON(PANE_VMS) | TUI_ON_VCPU, { 'm' }, k_context, false },
	{ "P M T", "sort by UTIL%, memory, total exits",
	  "sort by UTIL% (time in guest, host and VMM) / resident memory (the VMs pane) / total exits, most first (top's and htop's P M T)",
	  NULL, NULL, TUI_ANY, 0, { 'P', 'M', 'T' }, k_sort_by, false },
	{ "i", "hides idle rows",
	  "hide / show the rows without exits in the interval (VMs, vCPUs, exit reasons, objects; top's i; kept by W)",
	  NULL, NULL, TUI_ANY, 0, { 'i' }, k_idle, false },
	{ "1 2 3 0", "views: CPU, network, disk",
	  "the VMs pane's views (virt-top's): 1 its vCPUs' use of the host's CPUs, 2 network, 3 disk; the key again, 0 or Esc: all columns",
	  NULL, NULL, TUI_ANY, 0, { '1', '2', '3', '0' }, k_view, false },
	{ "F5", "tree", "the VMs pane as htop's tree: each VM's vCPUs under it (Enter on one: its exit reasons); F5 again: flat (kept by W)",
	  NULL, NULL, TUI_ANY, 0, { KEY_F(5) }, k_tree, false },
	{ "F9", "kills nothing", "htop's kill: kvmtop kills nothing, it only watches", NULL, NULL, TUI_ANY, 0,
	  { KEY_F(9) }, k_kill, false },
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

int tui_key(struct tui *t, int ch)
{
	struct pane *p = tui_top_pane(t);
	const struct tui_key *k;
	int act = 0;

	t->keyed = true;
	/* a click ends the line being edited, as Enter, and then acts */
	if (t->input != IN_NONE && ch == KEY_MOUSE)
		act = edit_end(t, p, '\n');
	if (t->input != IN_NONE)
		return edit_key(t, ch);
	t->msg[0] = '\0';
	t->notice[0] = '\0';
	k = find_key(ch);
	/* in the help, the keys that move and quit work; any other goes back */
	if (tui_pane_is(t, p, PANE_HELP) && (!k || !k->in_help)) {
		tui_pop(t);
		return act;
	}
	return k ? act | k->fn(t, p, ch) : act;
}

/* Text s in words, wrapped before column 77. */
static void keys_wrap(FILE *f, const char *s)
{
	const char *sp;
	int col = 0;

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

/* The "Keys on the screen:" lines of --help. */
void tui_keys_help(FILE *f)
{
	char all[4096] = "Keys on the screen:", item[256];
	size_t i;

	for (i = 0; i < tui_nr_keys; i++) {
		snprintf(item, sizeof(item), " %s %s%s", tui_keys[i].label, tui_keys[i].brief,
			 i + 1 < tui_nr_keys ? "," : ".");
		strlcat(all, item, sizeof(all));
	}
	keys_wrap(f, all);
}
