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
	long s = (long)p->sel + d;

	if (s < 0 || !p->nr_order)
		s = 0;
	else if ((size_t)s >= p->nr_order)
		s = (long)p->nr_order - 1;
	p->sel = (size_t)s;
	tui_pane_remember(p);
}

static int edit_key(struct tui *t, int ch)
{
	size_t n = strlen(t->edit);
	struct pane *p = tui_top_pane(t);
	int act = 0;

	switch (ch) {
	case 27:
		if (t->input == IN_FILTER) {
			t->filter[0] = '\0';
			tui_pane_order(t, p);
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
		tui_pane_order(t, p);
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
	} else {
		tui_pop(t);
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
	while (!tui_col_sorts(&p->ops->cols[p->sort]))
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

/* s: who ran while a vCPU waited, of the selected vCPU (vCPUs pane) or of the pane's vCPU */
static int k_thieves(struct tui *t, struct pane *p, int ch)
{
	int tid = p->tid;

	if (tui_pane_is(t, p, PANE_VCPUS)) {
		const void *r = tui_selected(t);

		tid = r ? (int)p->ops->key(r) : -1;
	}
	if (tid < 0 || tui_pane_is(t, p, PANE_THIEVES)) {
		snprintf(t->msg, sizeof(t->msg), "s shows who ran while a vCPU waited: select a vCPU first");
		return 0;
	}
	return tui_push(t, PANE_THIEVES, p->vm_pid, tid) < 0 ? VIEW_NOMEM : 0;
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
	{ "F", "findings", "findings: what this snapshot's figures show is wrong, the evidence and the remedy (Enter: where)",
	  "F", "Findings", TUI_ANY, { 'F' }, k_findings, false },
	{ "s", "stolen by", "stolen by: the threads that ran on the CPU while the selected vCPU waited for it",
	  NULL, NULL, TUI_ANY, { 's' }, k_thieves, false },
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

int tui_key(struct tui *t, int ch)
{
	struct pane *p = tui_top_pane(t);
	const struct tui_key *k;

	t->keyed = true;
	if (t->input != IN_NONE)
		return edit_key(t, ch);
	t->msg[0] = '\0';
	t->notice[0] = '\0';
	k = find_key(ch);
	/* in the help, the keys that move and quit work; any other goes back */
	if (tui_pane_is(t, p, PANE_HELP) && (!k || !k->in_help)) {
		tui_pop(t);
		return 0;
	}
	return k ? k->fn(t, p, ch) : 0;
}

/* The "Keys on the screen:" lines of --help, wrapped. */
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
