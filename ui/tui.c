// SPDX-License-Identifier: GPL-2.0
/*
 * The screen as the driver's view: start, refresh, input, progress,
 * notice, stop.  Its stack of panes (VMs -> vCPUs -> reasons -> recent
 * exits) is in tui_stack.c, every pane by id in tui_panes.c, one pane per
 * file; drawn by tui_draw.c, keys in tui_keys.c, number formats in
 * tui_fmt.c.  Restored on every way out (the drivers call tui_stop
 * through the view's ops, also on errors and signals, which the drivers
 * turn into a normal return).
 */
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "util/escape.h"
#include "model/findings.h"
#include "history.h"
#include "tui_priv.h"
/* last: it makes every capability name (lines, bell ...) a macro */
#include <term.h>

/* "replay NAME" and its directory apart: the header cuts the directory first. */
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

#define MOUSE_OFF	"\033[?1006l\033[?1003l\033[?1002l\033[?1000l"

/*
 * A crash cannot call endwin() (not async-signal-safe): the bytes that
 * leave the alternate screen, show the cursor and reset the colours are
 * worked out now, while curses is up, and the shell's termios was saved.
 */
static void panic_prepare(struct tui *t)
{
	static const char *const caps[] = { "sgr0", "cnorm", "rmcup" };
	size_t i;

	/* CAN first: a sequence the crash cut half-way must not swallow rmcup */
	t->reset[0] = '\030';
	t->reset_len = 1;
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
	/* the mouse's reports off (xterm's modes, which curses turned on) */
	if (t->mouse && t->reset_len + sizeof(MOUSE_OFF) + 2 < sizeof(t->reset)) {
		memcpy(t->reset + t->reset_len, MOUSE_OFF, sizeof(MOUSE_OFF) - 1);
		t->reset_len += sizeof(MOUSE_OFF) - 1;
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
	/* the modes first: a write to a terminal that no longer reads may block */
	if (t->have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->shell_tio);
	n = write(STDOUT_FILENO, t->reset, t->reset_len);
	(void)n;
}

static int tui_start(void *ctx, const struct view_source *src, const struct model *m)
{
	struct tui *t = ctx;
	const char *nc = getenv("NO_COLOR");

	t->m = m;
	t->ns = src->ns;
	t->live = src->live;
	t->traced = src->traced;
	name_source(t, src);
	if (t->dump && t->dump->ops->start(t->dump->ctx, src, m))
		return -1;
	t->have_tio = tcgetattr(STDIN_FILENO, &t->shell_tio) == 0;
	/* not initscr(), which ends the process itself on a terminal it does not know */
	if (!newterm(NULL, stdout, stdin)) {
		char term[64];

		fprintf(stderr, "kvmtop: cannot start the screen (TERM=%s); use -b for batch output\n",
			escape_text(getenv("TERM") ?: "", term, sizeof(term)));
		return -1;
	}
	t->curses = true;
	/* the mouse, unless --no-mouse: clicks and the wheel (tui_mouse.c) */
	if (t->mouse && !mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED |
				   BUTTON5_PRESSED, NULL))
		t->mouse = false;
	panic_prepare(t);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	t->can_color = has_colors() && !t->mono && !(nc && nc[0]);
	tui_colors_apply(t);
	t->hist = history_new();
	if (!t->hist || tui_push(t, PANE_VMS, -1, -1))
		return -1;
	/* the settings' start pane on the VMs, Esc goes back to them */
	if (t->start_pane != PANE_VMS && tui_push(t, (enum pane_id)t->start_pane, -1, -1))
		return -1;
	tui_draw(t);
	return 0;
}

/*
 * Keys typed and not read yet, queued in order for tui_input, which acts
 * on them first.  They were typed at the pane on the screen: a landing
 * must not put another pane under them.  Live, a tick reads the keys and
 * then takes its snapshot; a key typed in between (tens of milliseconds
 * on a loaded host) waits in the terminal until this reads it.
 */
static void keys_ahead(struct tui *t)
{
	int ch;

	while (t->nr_ahead < (int)(sizeof(t->ahead) / sizeof(t->ahead[0])) && (ch = getch()) != ERR) {
		if (ch == KEY_RESIZE)
			continue;	/* the refresh draws at the new size */
		t->ahead[t->nr_ahead++] = ch;
		t->keyed = true;
	}
}

static int tui_refresh(void *ctx, const struct snapshot *snap)
{
	struct tui *t = ctx;

	t->m = snap->m;
	t->findings = snap->findings;
	t->progress[0] = '\0';
	/*
	 * History: every live snapshot, paused or not; a recording's
	 * intervals as ] first reaches them (not the whole recording, 0).
	 */
	if (t->live || snap->interval > t->hist_interval) {
		if (!t->live)
			t->hist_interval = snap->interval;
		if (history_record(t->hist, snap->m, snap->start, snap->end, t->ns && snap->end > snap->start ?
				   (double)(snap->end - snap->start) / 1e9 : 0)) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (t->paused)
		return 0;
	/* cumulative (S): since the start or the reset, live or a recording's interval */
	t->snap_start = snap->start;
	t->since = snap->m->first_time;
	t->end = snap->end;
	t->interval = snap->interval;
	t->nr_intervals = snap->nr_intervals;
	/*
	 * a severe finding: the findings pane is where the screen lands,
	 * once, until a key (one typed and not read yet too)
	 */
	if (snap->findings && snap->findings->severe && !t->findings_landed && !t->keyed) {
		keys_ahead(t);
		if (!t->keyed && !tui_pane_is(t, tui_top_pane(t), PANE_FINDINGS)) {
			t->findings_landed = true;
			if (tui_push(t, PANE_FINDINGS, -1, -1) < 0) {
				errno = ENOMEM;
				return -1;
			}
		}
	}
	if (tui_build_all(t)) {
		errno = ENOMEM;
		return -1;
	}
	tui_draw(t);
	return 0;
}

/*
 * Keys read at most in one call: the rest wait in the terminal, so a
 * flood of them (a long paste, a program writing keys) still lets the
 * driver look at the signals and the clock between calls.
 */
#define TUI_KEYS_PER_CALL	256

static int tui_input(void *ctx, uint64_t now)
{
	struct tui *t = ctx;
	int ch, act = 0, n = 0;

	(void)now;
	if (!t->delay_told) {
		t->delay_told = true;
		act = t->live ? VIEW_DELAY : 0;
	}
	/* a new interval is read before the next key moves in it */
	while (!(act & (VIEW_QUIT | VIEW_NOMEM | VIEW_INTERVAL)) && t->nr_ahead) {
		n++;
		ch = t->ahead[0];
		memmove(t->ahead, t->ahead + 1, --t->nr_ahead * sizeof(t->ahead[0]));
		act |= tui_key(t, ch);
	}
	while (!(act & (VIEW_QUIT | VIEW_NOMEM | VIEW_INTERVAL)) && n < TUI_KEYS_PER_CALL &&
	       (ch = getch()) != ERR) {
		n++;
		if (ch == KEY_RESIZE)
			continue;	/* redrawn below at the new size */
		act |= tui_key(t, ch);
	}
	if (n)
		tui_draw(t);
	return act;
}

/*
 * A recording is being read: the panes of the figures so far (rates over
 * the time read), the title line says how far; only q and F10 act now,
 * other keys (one that reads another interval would re-enter the
 * reading) are kept, in order, for once it is read.
 */
static int tui_progress(void *ctx, const struct view_progress *p)
{
	struct tui *t = ctx;
	int ch, act = 0, n = 0;

	t->m = p->m;
	/* the last snapshot's findings point into a model that may be gone */
	t->findings = NULL;
	t->snap_start = t->since = p->m->have_time ? p->m->first_time : 0;
	t->end = p->m->have_time ? p->m->last_time : 0;
	while (n++ < TUI_KEYS_PER_CALL && (ch = getch()) != ERR) {
		MEVENT e;

		if (ch == 'q' || ch == KEY_F(10))
			act |= VIEW_QUIT;
		else if (ch == KEY_MOUSE)
			getmouse(&e);		/* the mouse waits for the figures */
		else if (ch != KEY_RESIZE && t->nr_ahead < (int)(sizeof(t->ahead) / sizeof(t->ahead[0]))) {
			t->ahead[t->nr_ahead++] = ch;	/* acted on once it is read */
			t->keyed = true;		/* no landing under the user's keys */
		}
	}
	if (p->permille >= 0)
		snprintf(t->progress, sizeof(t->progress), "Reading the recording: %d.%d %%, %" PRIu64
			 " records so far (q quits)", p->permille / 10, p->permille % 10, p->records);
	else
		snprintf(t->progress, sizeof(t->progress), "Reading the recording: %" PRIu64
			 " records so far (q quits)", p->records);
	if (tui_build_all(t))
		return VIEW_NOMEM;
	tui_draw(t);
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
		if (t->mouse)
			mousemask(0, NULL);
		erase();
		refresh();
		endwin();
		t->curses = false;
	}
	if (t->dump) {
		t->dump->ops->stop(t->dump->ctx);
		t->dump = NULL;
	}
	if (t->stats_file) {
		tui_write_stats(t);
		t->stats_file = NULL;	/* once, even if stopped again */
	}
	for (i = 0; i < t->depth; i++)
		tui_pane_free_rows(&t->stack[i]);
	t->depth = 0;
	history_free(t->hist);
	t->hist = NULL;
}

static const struct view_ops tui_view_ops = {
	.name = "screen",
	.findings = true,
	.recent = true,
	.ips = true,
	.start = tui_start,
	.refresh = tui_refresh,
	.input = tui_input,
	.progress = tui_progress,
	.notice = tui_notice,
	.stop = tui_stop,
	.panic = tui_panic,
};

/*
 * The screen's settings: the defaults, the settings file's over them
 * (tui_rc.c), the command line's over those (-d, --sort, --fields).
 */
static void tui_settings(struct tui *t, const struct tui_config *c)
{
	char err[256];
	int id, col, n;
	bool invert;

	t->history_len = HISTORY_LEN;
	t->start_pane = PANE_VMS;
	t->vms_view = -1;
	for (id = 0; id < PANE_NR; id++)
		t->set[id].sort = -1;
	tui_rc_read(t, c);
	/* the driver refreshes each -d, or each 3 s: a delay of the file's is told at the first input */
	t->delay_told = t->delay == 3.0;
	if (c->delay) {
		t->delay = c->delay;
		t->delay_told = true;
	}
	for (id = 0; id < PANE_NR; id++) {
		const struct pane_ops *ops = tui_panes[id];

		/* --sort: the column of that name where a pane has one, --fields: the columns it has */
		if (c->sort && !tui_cols_parse_sort(ops, c->sort, &col, &invert, err, sizeof(err))) {
			t->set[id].sort = col;
			t->set[id].invert = invert;
		}
		n = c->fields ? tui_cols_parse(ops, c->fields, t->set[id].cols, false, err, sizeof(err)) : 0;
		if (n > 0)
			t->set[id].nr_cols = n;
	}
}

int tui_usable(char *err, size_t len)
{
	char term[64];
	int why;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(err, len, "the screen needs a terminal on stdin and stdout; use -b for batch output");
		return -1;
	}
	/* the terminal's description only: nothing is written to it, its modes stay */
	if (setupterm(NULL, STDOUT_FILENO, &why) != OK) {
		snprintf(err, len, "the screen does not know this terminal (TERM=%s); set TERM, or use -b for batch output",
			 escape_text(getenv("TERM") ?: "", term, sizeof(term)));
		return -1;
	}
	del_curterm(cur_term);
	return 0;
}

struct view *tui_view(struct tui *t, const struct tui_config *c)
{
	const char *cs;

	memset(t, 0, sizeof(*t));
	t->panes = tui_panes;
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	t->utf8 = cs && !strcmp(cs, "UTF-8") && !c->ascii;
	t->mono = c->mono;
	t->syms = c->syms;
	t->mouse = !c->no_mouse;
	t->delay = 3.0;
	t->dump = c->dump;
	t->dump_print = c->dump_print;
	tui_settings(t, c);
	view_init(&t->view, &tui_view_ops, t, STDIN_FILENO);
	t->view.delay = t->delay;
	t->nr_intervals = -1;
	t->stats_file = getenv("KVMTOP_DRAW_STATS");
	if (t->stats_file && !t->stats_file[0])
		t->stats_file = NULL;
	return &t->view;
}
