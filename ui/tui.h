/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interactive screen.  It only reads the model (through
 * model_scope) and never touches tracefs, recordings or the decoder:
 * the driver (src/driver/) feeds it snapshots through struct view.
 *
 * A pane is a table of rows built from the model at each refresh; keys
 * move, sort, filter and drill down over those rows without rebuilding
 * them, so a key never changes a figure.  Each pane declares its columns
 * once, in a table of {name, title, width, format, compare, default
 * order, priority}, like htop's Process_fields[].
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

struct tui;
struct pane;

/* cmp_<field>(): ascending order of a numeric field of a pane's row struct. */
#define PANE_CMP(row, field) \
	static int cmp_##field(const void *a, const void *b) \
	{ \
		const struct row *x = a, *y = b; \
		return x->field < y->field ? -1 : x->field > y->field; \
	}

/*
 * c_<name>(): the cell of a count, a rate (per second of the figures'
 * span) or a latency field of a pane's row struct; a latency is "-" when
 * the row's scope has no exit -> entry pair (its have_lat is false).
 */
#define PANE_COUNT_CELL(row, name, field) \
	static void c_##name(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		tui_fmt_count(((const struct row *)r)->field, buf, len); \
	}
#define PANE_RATE_CELL(row, name, field) \
	static void c_##name(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		tui_fmt_rate(t, ((const struct row *)r)->field, buf, len); \
	}
#define PANE_LAT_CELL(row, field) \
	static void c_##field(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		const struct row *w = r; \
		tui_fmt_lat(t, w->have_lat, (double)w->field, buf, len); \
	}

enum col_align { COL_LEFT, COL_RIGHT };

struct pane_col {
	const char *name;	/* for the man page and the sort line */
	const char *title;
	int width;
	enum col_align align;
	/* The cell of row r, at most width characters (escaped already). */
	void (*cell)(const struct tui *t, const void *r, char *buf, size_t len);
	int (*compare)(const void *a, const void *b);	/* ascending */
	bool descending;	/* default order when chosen */
	int priority;		/* columns with the highest number go first when narrow */
	/*
	 * Time states (1 << VS_x) the input must measure for the column to
	 * be shown at all (model_time_known()); 0: always.
	 */
	unsigned int needs;
	/*
	 * A reason field (model_fields.h) by name: the title is the field's,
	 * and the pane's field_cell and field_cmp show and order it.
	 */
	const char *field;
};

struct pane_ops {
	const char *name;		/* "VMs", "vCPUs" ... */
	const struct pane_col *cols;
	int nr_cols;
	int default_sort;
	size_t row_size;
	/* Fill p->rows from the model: 0, or -1 (no memory). */
	int (*build)(struct tui *t, struct pane *p);
	/* What the selection follows across refreshes and re-sorting. */
	uint64_t (*key)(const void *r);
	/* Text '/' filters on. */
	const char *(*label)(const struct tui *t, const void *r, char *buf, size_t len);
	/* Enter on row r: push the next pane (0), or nothing to open (1), -1: no memory. */
	int (*enter)(struct tui *t, const void *r);
	/* Tab: replace this pane by its sibling. */
	int (*tab)(struct tui *t);
	/* The cell and the order of column col when it is a field's (pane_col.field). */
	void (*field_cell)(const struct tui *t, const void *r, int col, char *buf, size_t len);
	int (*field_cmp)(const void *a, const void *b, int col);
	/* Optional: what an empty pane says (without it: no events / nothing in this interval). */
	const char *(*empty)(const struct tui *t, const struct pane *p);
	/* A line under the header saying what the pane shows. */
	void (*title)(const struct tui *t, const struct pane *p, char *buf, size_t len);
	void (*free_rows)(struct pane *p);
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
};

#define TUI_STACK	8

/* What the command line says of the screen. */
struct tui_config {
	bool mono;			/* no colours */
	bool ascii;			/* no UTF-8 drawing characters */
	double delay;			/* live: seconds between refreshes, 0: default */
	const struct sym_set *syms;	/* guest symbols, for the IP panes */
};

struct history;

struct tui {
	struct view view;
	const struct sym_set *syms;
	bool mono;
	const struct model *m;
	const struct findings *findings;	/* the snapshot's (the driver's), NULL before the first */
	bool findings_landed;		/* a severe finding opened the findings pane once */
	bool keyed;			/* a key was pressed: no more landing on a pane by itself */
	char source[160];		/* "live", "replay NAME" ... (escaped) */
	char source_dir[4096];		/* replay: the recording's directory (escaped), cut first */
	char unit[64];			/* "times in cycles (x86-tsc)  " where not ns, else "" */
	bool ns;			/* times in ns (else the source's unit) */
	bool live;
	bool paused;
	bool cumulative;
	bool color;
	bool utf8;
	double delay;
	uint64_t start;			/* the interval's figures: [start, end] */
	uint64_t end;
	double secs;			/* end - start in seconds, 0 if unknown */
	struct pane stack[TUI_STACK];
	int depth;			/* stack[depth - 1] is shown */
	char filter[64];
	enum { IN_NONE, IN_FILTER, IN_DELAY } input;
	char edit[64];
	char msg[256];			/* what the last key did, cleared by the next */
	char notice[512];		/* the driver's last notice (escaped), cleared by a key */
	char progress[160];		/* a recording being read: how far ("": read) */
	int ahead[32];			/* keys typed while it was read, for after */
	int nr_ahead;
	bool help;
	/* H: the selected VM's or vCPU's last snapshots under the pane (history.c) */
	struct history *hist;
	bool show_hist;
	long hist_interval;		/* replay: the last interval recorded */
	enum ip_kind ip_kind;		/* the guest IP panes show time samples or exit sites */
	bool ip_by_sym;			/* ... one row per symbol (g) */
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

/* Where a key does something (the footer shows it only there). */
#define TUI_LIVE	1u
#define TUI_REPLAY	2u
#define TUI_ANY		(TUI_LIVE | TUI_REPLAY)
#define TUI_KEY_CODES	6

/* A key of the screen: the help pane, the footer and --help read this table. */
struct tui_key {
	const char *label;		/* "q F10": as the help, the man page and --help name it */
	const char *brief;		/* --help: "quit" */
	const char *help;		/* the help pane: what it does */
	const char *footer_key;		/* the footer: "q" "Quit", NULL: not there */
	const char *footer;
	unsigned int where;		/* TUI_LIVE, TUI_REPLAY */
	int codes[TUI_KEY_CODES];	/* what getch() returns for it, 0 after the last */
	int (*fn)(struct tui *t, struct pane *p, int ch);	/* a view_action mask */
	bool in_help;			/* works in the help pane (else any key goes back) */
};

extern const struct tui_key tui_keys[];
extern const size_t tui_nr_keys;
/* The "Keys on the screen:" lines of --help. */
void tui_keys_help(FILE *f);

extern const struct pane_ops pane_vms;
extern const struct pane_ops pane_vcpus;
extern const struct pane_ops pane_reasons;
extern const struct pane_ops pane_recent;
extern const struct pane_ops pane_ips;
extern const struct pane_ops pane_help;
extern const struct pane_ops pane_findings;
extern const struct pane_ops pane_thieves;

/* ui/tui.c */
int tui_push(struct tui *t, const struct pane_ops *ops, int vm_pid, int tid);
/* Replace the top pane by another of the same scope. */
int tui_swap(struct tui *t, const struct pane_ops *ops);
const struct vm *tui_find_vm(const struct tui *t, int pid);
const struct vcpu *tui_find_vcpu(const struct tui *t, int tid);
/* The selected row of the pane shown, NULL if none. */
const void *tui_selected(const struct tui *t);
/* Number formats shared by the panes. */
void tui_fmt_count(uint64_t v, char *buf, size_t len);
void tui_fmt_rate(const struct tui *t, uint64_t n, char *buf, size_t len);
void tui_fmt_time(const struct tui *t, double v, char *buf, size_t len);
/* A latency, or "-" when the scope has none (have false). */
void tui_fmt_lat(const struct tui *t, bool have, double v, char *buf, size_t len);
void tui_fmt_pct(double v, char *buf, size_t len);
const char *tui_reason_name(const struct tui *t, int id, char *buf, size_t len);

/* t as the driver's view: the screen, configured by c. */
struct view *tui_view(struct tui *t, const struct tui_config *c);

/* A vCPU's id as every pane writes it: the number, or "?" where the event has none. */
const char *tui_vcpu_id(int vcpu_id, char *buf, size_t len);

/* --- within the screen: tui.c's pane stack, tui_draw.c, tui_keys.c --- */

#define TUI_HEADER_LINES	4	/* two of figures, the pane's title, the column titles */

enum { TUI_PAIR_HEAD = 1, TUI_PAIR_SEL, TUI_PAIR_WARN, TUI_PAIR_KEY, TUI_PAIR_TITLE };

/* tui.c: the stack of panes */
struct pane *tui_top_pane(struct tui *t);
void *tui_row_at(const struct pane *p, size_t i);
/* A column's title: a field's own (model_fields.h), else the pane's. */
const char *tui_col_title(const struct pane_col *c);
/* Filter and sort p's rows; the selection stays on the same key. */
void tui_pane_order(struct tui *t, struct pane *p);
/* Keep the selected row's key, to find it again after a rebuild. */
void tui_pane_remember(struct pane *p);
void tui_pane_free_rows(struct pane *p);
/* Every pane of the stack from the model: 0, or -1 (no memory). */
int tui_build_all(struct tui *t);
/* Back to the pane under the top one. */
void tui_pop(struct tui *t);
/* KVMTOP_DRAW_STATS: one more timing of s, from t0. */
void tui_stat_add(struct tui_stat *s, uint64_t t0);
/* tui_draw.c: the whole screen, and KVMTOP_DRAW_STATS' file */
void tui_draw(struct tui *t);
void tui_write_stats(const struct tui *t);
/* tui_keys.c: key ch (tui_keys[]): a view_action mask, or -1 (no memory) */
int tui_key(struct tui *t, int ch);

#endif
