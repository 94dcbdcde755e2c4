/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interactive screen, as the program sees it: what the command line
 * says of it (struct tui_config), the screen itself (struct tui, which
 * the program keeps) and the driver's view of it (tui_view()).  It only
 * reads the model (through model_scope) and never touches tracefs,
 * recordings or the decoder: the driver (src/driver/) feeds it snapshots
 * through struct view.
 *
 * What the screen's own files share (panes, columns, keys, drawing) is
 * in tui_priv.h, not here.
 */
#ifndef KVMTOP_TUI_H
#define KVMTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <termios.h>

#include "model/model.h"
#include "model/model_ips.h"
#include "sym/sym.h"
#include "driver/view.h"

struct pane_ops;

/* An object of a reason (model_objs.c), as a pane is filtered by it. */
struct pane_obj {
	bool on;		/* the pane shows only this object's exits */
	uint8_t kind, dir, size;
	uint64_t value;
};

struct pane {
	const struct pane_ops *ops;
	void *rows;		/* nr rows of ops->row_size */
	size_t nr;
	size_t *order;		/* visible rows (filtered, sorted): indices into rows */
	size_t nr_order;
	int sort;		/* column */
	bool invert;		/* against the column's default order */
	size_t sel;		/* position in order */
	size_t top;		/* first visible position */
	uint64_t sel_key;
	bool have_sel;
	/* What the pane is about: a VM pid, a vCPU tid, or -1. */
	int vm_pid;
	int tid;
	/* The objects pane: the reason it is of; recent exits: only the exits of obj (with reason). */
	int reason;
	struct pane_obj obj;
	/* the columns (bit = column) in which some row had a figure other than 0 since the pane opened */
	uint64_t seen;
};

#define TUI_STACK	8

/* What the command line says of the screen. */
/*
 * A test's view of what the screen draws (KVMTOP_SCREEN_JSON, kvmtop(1)):
 * the figures of the model over [start, end], cumulative or of the
 * interval, as the screen shows them.  0, or -1 (said why).
 */
typedef int tui_dump_fn(struct view *v, const struct model *m, const struct findings *f,
			uint64_t start, uint64_t end, bool cumulative);

struct tui_config {
	bool mono;			/* no colours */
	bool ascii;			/* no UTF-8 drawing characters */
	double delay;			/* live: seconds between refreshes, 0: default */
	const struct sym_set *syms;	/* guest symbols, for the IP panes */
	const char *sort;		/* --sort KEY or -KEY: a column by name or field, NULL: none */
	const char *fields;		/* --fields LIST: the columns, in order, NULL: the panes' own */
	bool no_mouse;			/* --no-mouse: the terminal's mouse left to the terminal */
	const char *config;		/* --config FILE: the settings file, NULL: the usual one */
	bool no_config;			/* --no-config: no settings file read or written */
	struct view *dump;		/* a second view started and stopped with the screen, NULL: none */
	tui_dump_fn *dump_print;	/* ... given each snapshot drawn, as drawn */
};

#define TUI_PANES	12	/* room for every pane's settings (PANE_NR, tui_priv.h) */
#define TUI_COLS	48	/* room for a pane's columns (each pane checks it has no more: _Static_assert) */

/*
 * A pane's settings: its columns and its sort, from the settings file
 * (tui_rc.c), the command line (--fields, --sort, which win), the setup
 * (F2) and the sort keys; each pane of that kind opens with them.
 */
struct tui_pane_set {
	int cols[TUI_COLS];	/* the columns drawn, in order */
	int nr_cols;		/* 0: the pane's own, those that fit the width */
	int sort;		/* the sort column, -1: the pane's default */
	bool invert;		/* against the column's default order */
};

struct history;

struct tui {
	struct view view;
	/* every pane's ops by id (tui_panes.c): the stack opens panes through it */
	const struct pane_ops *const *panes;
	const struct sym_set *syms;
	bool mono;
	/* the settings: the file's (rc), the command line's on top */
	char rc[4096];			/* the settings file, "": none (--no-config, no HOME) */
	struct tui_pane_set set[TUI_PANES];
	int scheme;			/* the colour scheme (tui_colors.c) */
	int history_len;		/* snapshots the H strip shows, 1 to HISTORY_LEN */
	bool delay_told;		/* the driver has the settings file's delay (VIEW_DELAY) */
	int start_pane;			/* the pane the screen opens on (enum pane_id) */
	int setup_of;			/* F2: the pane whose columns the setup shows */
	int setup_cols[TUI_COLS];	/* ... its columns drawn when F2 was pressed */
	int nr_setup_cols;
	const struct model *m;
	const struct findings *findings;	/* the snapshot's (the driver's), NULL before the first */
	bool findings_landed;		/* a severe finding opened the findings pane once */
	bool keyed;			/* a key was pressed: no more landing on a pane by itself */
	char source[160];		/* "live", "replay NAME" ... (escaped) */
	char source_dir[4096];		/* replay: the recording's directory (escaped), cut first */
	char unit[64];			/* "times in cycles (x86-tsc)  " where not ns, else "" */
	bool ns;			/* times in ns (else the source's unit) */
	bool live;
	bool traced;			/* the source reads each event (view.h): else no latency, userspace exit, event */
	bool paused;
	bool cumulative;
	bool color;			/* drawn in colours: the terminal has them, the scheme too */
	bool can_color;			/* the terminal has colours and none said none (-C, NO_COLOR) */
	bool utf8;
	double delay;
	uint64_t start;			/* the figures shown: [start, end] (tui_build_all) */
	uint64_t end;
	double secs;			/* end - start in seconds, 0 if unknown */
	uint64_t snap_start;		/* the snapshot's interval starts here ... */
	uint64_t since;			/* ... and its counts since start or reset (S) here */
	/* the header's figures, taken with the rows' (tui_build_all): Z freezes both */
	struct {
		uint64_t exits, lost, events, total, dropped;
		unsigned int nr_vms;
	} head;
	struct view *dump;		/* KVMTOP_SCREEN_JSON: tui_config's */
	tui_dump_fn *dump_print;
	struct pane stack[TUI_STACK];
	int depth;			/* stack[depth - 1] is shown */
	char filter[64];
	char search[64];		/* / F3: the last search, which n and N look for again */
	bool search_miss;		/* ... and no row of the pane holds it */
	enum { IN_NONE, IN_FILTER, IN_DELAY, IN_SEARCH } input;
	char edit[64];
	char msg[256];			/* what the last key did, cleared by the next */
	char notice[512];		/* the driver's last notice (escaped), cleared by a key */
	char progress[160];		/* a recording being read: how far ("": read) */
	int ahead[32];			/* keys typed while it was read or before a landing, for after */
	int nr_ahead;
	bool help;
	int help_cols;			/* the screen's width the help pane's rows were wrapped for */
	bool mouse;			/* the mouse reports clicks to the screen (not --no-mouse) */
	/* where the last draw put the columns' titles and the function bar's keys, for the mouse */
	struct tui_layout {
		int nr_cols, col[TUI_COLS], col_x[TUI_COLS], col_w[TUI_COLS];
		int rows;		/* table rows drawn, from line TUI_HEADER_LINES */
		int nr_keys, key_x[32], key_w[32], key_code[32];
	} layout;
	/* H: the selected VM's or vCPU's last snapshots under the pane (history.c) */
	struct history *hist;
	bool show_hist;
	long hist_interval;		/* replay: the last interval recorded */
	enum ip_kind ip_kind;		/* the guest IP panes show time samples or exit sites */
	bool ip_by_sym;			/* ... one row per symbol (g) */
	bool hide_idle;			/* i: the figure panes leave out rows without exits (settings file) */
	int vms_view;			/* 1 2 3: the VMs pane's view (tui_views[]), -1: its own columns */
	bool vms_tree;			/* F5: the VMs pane shows each VM's vCPUs under it (settings file) */
	/* replay: intervals of -d seconds, 0 = the whole recording */
	long interval;
	long nr_intervals;		/* -1: not known yet */
	bool curses;
	/* what a crash writes to give the terminal back (see tui_panic) */
	struct termios shell_tio;
	bool have_tio;
	char reset[128];
	size_t reset_len;
	/* KVMTOP_DRAW_STATS=FILE: how long builds and draws took, written at the end */
	const char *stats_file;
	struct tui_stat { uint64_t n, sum_ns, max_ns; } st_draw, st_build, st_sort;
};

/* t as the driver's view: the screen, configured by c. */
struct view *tui_view(struct tui *t, const struct tui_config *c);
/*
 * Can the screen run here: a terminal on stdin and stdout, of a kind
 * curses knows?  Asked before anything else is started; it writes
 * nothing to the terminal.  0, or -1 with one line in err (naming -b).
 */
int tui_usable(char *err, size_t len);
/* The "Keys on the screen:" lines of --help. */
void tui_keys_help(FILE *f);

/*
 * Is name a column of a pane (its name, or the field it shows)?  For the
 * command line's --sort and --fields.
 */
bool tui_col_known(const char *name);
/* Every pane's columns, a line each: for --fields help. */
void tui_cols_help(FILE *f);

#endif
