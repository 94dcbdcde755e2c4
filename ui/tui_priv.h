/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the screen's files share, and nothing outside ui/ needs.
 *
 * A pane is a table of rows built from the model at each refresh; keys
 * move, sort, filter and drill down over those rows without rebuilding
 * them, so a key never changes a figure.  Each pane declares its columns
 * once, in a table of {name, title, width, format, compare, default
 * order, priority}, like htop's Process_fields[]; a column may be a
 * field of the model's one table (model_fields.h), picked by name.
 *
 * The files, each calling only those under it:
 *
 *   tui.c          the view: start, refresh, input, progress, stop
 *   tui_draw.c     the screen drawn: header, table, history strip, footer
 *   tui_panes.c    every pane by id, the one file that names them
 *   pane_*.c       one pane each; they open each other by id (tui_push)
 *   tui_keys.c     the key table and its handlers (pane_help.c lists it)
 *   tui_mouse.c    the mouse: clicks and the wheel, as keys and selections
 *   tui_rc.c       the settings file: read at the start, written by W
 *   tui_colors.c   the colour schemes
 *   tui_stack.c    the stack of panes: open, back, build, order, select
 *   tui_cols.c     a column's title, cell and order; field columns
 *   tui_fmt.c      number formats, lookups in the model
 *   history.c      the snapshots the H strip draws (tui.c, tui_draw.c)
 */
#ifndef KVMTOP_TUI_PRIV_H
#define KVMTOP_TUI_PRIV_H

#include "tui.h"
#include "model/model_fields.h"

/* <pane>_cmp_<field>(): ascending order of a numeric field of a pane's row struct. */
#define PANE_CMP(pane, row, field) \
	static int pane##_cmp_##field(const void *a, const void *b) \
	{ \
		const struct row *x = a, *y = b; \
		return x->field < y->field ? -1 : x->field > y->field; \
	}

/*
 * <pane>_c_<name>(): the cell of a count or a rate (per second of the
 * figures' span) of a pane's row struct.
 */
#define PANE_COUNT_CELL(pane, row, name, field) \
	static void pane##_c_##name(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		tui_fmt_count(((const struct row *)r)->field, buf, len); \
	}
#define PANE_RATE_CELL(pane, row, name, field) \
	static void pane##_c_##name(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		tui_fmt_rate(t, ((const struct row *)r)->field, buf, len); \
	}
/*
 * The same for a field column col whose field is a rate (exits per
 * second): its value as the panes write their other rates ("-": none).
 */
#define PANE_RATE_VAL_CELL(pane, row, name, col) \
	static void pane##_c_##name(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		tui_fmt_rate_val(&((const struct row *)r)->val[col], buf, len); \
	}

enum col_align { COL_LEFT, COL_RIGHT };

/* pane_col.needs: a figure other than 0 in some row (above the time states' bits) */
#define COL_SEEN	(1u << 31)
/*
 * pane_col.needs: the input's times in ns, so a rate per second (COL_NS),
 * or not (COL_CYCLES: a TSC recording, where the count stands in for it)
 */
#define COL_NS		(1u << 30)
#define COL_CYCLES	(1u << 29)

/*
 * A field column's value in one row, taken from the model (the field's
 * getter) when the pane builds its rows: the figures of that moment, as
 * the pane's other columns.
 */
struct pane_val {
	/* a text's s: the row's own escaped copy (tui_val_text()), never the model's */
	struct model_field_val v;
	bool has;	/* the row has one (a latency figure needs samples) */
	/*
	 * Not a figure of this row at all: a tree's child row (a VM's vCPU,
	 * F5) in a column whose field has no counterpart at its level
	 * (model_field_vcpu_of()).  Drawn empty, where "-" is unknown.
	 */
	bool blank;
};

/*
 * Where a row of a pane that may be a tree (the VMs pane's F5) hangs:
 * under the row parent (its index in the pane's rows), or at the top.
 */
struct pane_node {
	long parent;	/* -1: a top row (a VM) */
	/* a child's place among its siblings where the sort column has no figure of theirs (a vCPU's id) */
	long rank;
	bool last;	/* the last child of its parent in the order shown (its tree glyph) */
};

struct pane_col {
	const char *name;	/* for the man page and the sort line */
	const char *title;	/* NULL for a field's column: the field's title */
	int width;
	enum col_align align;
	/*
	 * The cell of row r, at most width characters (escaped already);
	 * NULL in a field's column shown as its kind says (tui_cols.c).
	 */
	void (*cell)(const struct tui *t, const void *r, char *buf, size_t len);
	/* ascending; NULL: a field's column ordered by its value, or no order (not sortable) */
	int (*compare)(const void *a, const void *b);
	bool descending;	/* default order when chosen */
	int priority;		/* columns with the highest number go first when narrow; -1: only when picked (F2) */
	/*
	 * Time states (1 << VS_x) the input must measure for the column to
	 * be shown at all (model_time_known()); 0: always.  COL_SEEN: shown
	 * only once a row has had a figure other than 0 in it (a userspace
	 * exit, another kvm event): a column the input leaves empty stays off.
	 */
	unsigned int needs;
	/*
	 * A field of the table (model_fields.h) by name: the title is the
	 * field's, the value the row's pane_val of this column (see
	 * pane_ops.vals).
	 */
	const char *field;
};

struct pane_ops {
	const char *name;		/* "VMs", "vCPUs" ... */
	const struct pane_col *cols;
	int nr_cols;
	int default_sort;
	/* the column sorted by instead where times are not ns (COL_CYCLES), 0: default_sort */
	int default_sort_cycles;
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
	/*
	 * A pane with field columns: where its row keeps their values,
	 * offsetof() an array of struct pane_val, one per column.
	 */
	size_t vals;
	/* Optional: what an empty pane says (without it: no events / nothing in this interval). */
	const char *(*empty)(const struct tui *t, const struct pane *p);
	/* A line under the header saying what the pane shows. */
	void (*title)(const struct tui *t, const struct pane *p, char *buf, size_t len);
	/*
	 * The column (by name) whose 0 makes a row idle, which i hides: its
	 * exits in the interval; NULL: the pane has no idle rows.
	 */
	const char *busy;
	/*
	 * A pane whose rows may be a tree: offsetof() the struct pane_node of
	 * its row (never 0: the values come first); 0: a flat pane.
	 */
	size_t node;
};

/*
 * A view of the VMs pane (1 2 3, virt-top's): its columns by name, shown
 * in place of the pane's own until the key again, 0 or Esc.
 */
struct tui_view_cols {
	int key;
	const char *title;	/* what the pane's title says */
	const char *fields;	/* the columns, comma-separated */
};

extern const struct tui_view_cols tui_views[];
extern const size_t tui_nr_views;

/* The panes, one a file; each opens another by id, through struct tui's panes. */
enum pane_id {
	PANE_VMS, PANE_VCPUS, PANE_REASONS, PANE_RECENT, PANE_IPS, PANE_HELP, PANE_FINDINGS,
	PANE_THIEVES, PANE_CONTEXT, PANE_SETUP, PANE_OBJECTS, PANE_NR
};
_Static_assert(PANE_NR <= TUI_PANES, "struct tui's settings have room for every pane");

/* Where a key does something (the function bar shows it only there). */
#define TUI_LIVE	1u
#define TUI_REPLAY	2u
#define TUI_ANY		(TUI_LIVE | TUI_REPLAY)
#define TUI_KEY_CODES	6

/* A key's panes: the function bar shows it under those only. */
#define TUI_ON(id)	(1u << (id))
#define TUI_ON_ALL	((1u << PANE_NR) - 1)
#define TUI_ON_ROWS	(TUI_ON_ALL & ~TUI_ON(PANE_HELP) & ~TUI_ON(PANE_SETUP))	/* the panes of figures */
#define TUI_ON_VCPU	(TUI_ON(PANE_VCPUS) | TUI_ON(PANE_REASONS) | TUI_ON(PANE_RECENT) | TUI_ON(PANE_IPS))

/* A key of the screen: the help pane, the function bar and --help read this table. */
struct tui_key {
	const char *label;		/* "q F10": as the help, the man page and --help name it */
	const char *brief;		/* --help: "quit" */
	const char *help;		/* the help pane: what it does */
	const char *footer_key;		/* the function bar: "F10" "Quit", NULL: not there */
	const char *footer;
	unsigned int where;		/* TUI_LIVE, TUI_REPLAY */
	unsigned int panes;		/* TUI_ON(PANE_x): the panes whose function bar shows it */
	int codes[TUI_KEY_CODES];	/* what getch() returns for it, 0 after the last */
	int (*fn)(struct tui *t, struct pane *p, int ch);	/* a view_action mask */
	bool in_help;			/* works in the help pane (else any key goes back) */
};

extern const struct tui_key tui_keys[];
extern const size_t tui_nr_keys;

/* tui_panes.c: every pane by id; only it and the tests name a pane's ops */
extern const struct pane_ops *const tui_panes[PANE_NR];
extern const struct pane_ops pane_vms;
extern const struct pane_ops pane_vcpus;
extern const struct pane_ops pane_reasons;
extern const struct pane_ops pane_recent;
extern const struct pane_ops pane_ips;
extern const struct pane_ops pane_help;
extern const struct pane_ops pane_findings;
extern const struct pane_ops pane_thieves;
extern const struct pane_ops pane_context;
extern const struct pane_ops pane_setup;
extern const struct pane_ops pane_objects;

/* tui_stack.c: the stack of panes */
/* Open pane id on top, about VM vm_pid or vCPU thread tid (-1: none): 0, 1 (full), -1 (no memory). */
int tui_push(struct tui *t, enum pane_id id, int vm_pid, int tid);
/* The same for a pane of one reason (objects), or of one of its objects (obj: recent exits). */
int tui_push_obj(struct tui *t, enum pane_id id, int vm_pid, int tid, int reason, const struct pane_obj *obj);
/* Replace the top pane by another of the same scope. */
int tui_swap(struct tui *t, enum pane_id id);
/* Back to the pane under the top one. */
void tui_pop(struct tui *t);
/* Whether p is pane id. */
bool tui_pane_is(const struct tui *t, const struct pane *p, enum pane_id id);
struct pane *tui_top_pane(struct tui *t);
/* The selected row of the pane shown, NULL if none. */
const void *tui_selected(const struct tui *t);
void *tui_row_at(const struct pane *p, size_t i);
/* Row r's node in a tree (struct pane_node), NULL where p's rows are flat. */
struct pane_node *tui_row_node(const struct pane *p, const void *r);
/* The row r hangs under in p's tree (a vCPU's VM), NULL: a top row, or a flat pane. */
const void *tui_row_parent(const struct pane *p, const void *r);
/* Filter and sort p's rows; the selection stays on the same key. */
void tui_pane_order(struct tui *t, struct pane *p);
/* Keep the selected row's key, to find it again after a rebuild. */
void tui_pane_remember(struct pane *p);
/* Select position i of p's rows (held to the first and the last), and keep it. */
void tui_pane_select(struct pane *p, long i);
/*
 * Search: select the row of p whose label holds s (any case): the first
 * from the top (dir 0), the next after the selection (1) or the one
 * before it (-1), round the end.  Whether one does (else the selection
 * stays).
 */
bool tui_pane_find(struct tui *t, struct pane *p, const char *s, int dir);
/* p's id, PANE_NR if none. */
enum pane_id tui_pane_id(const struct tui *t, const struct pane *p);
void tui_pane_free_rows(struct pane *p);
/* p's rows built again from the model (the help pane's at a new width): 0, or -1 (no memory). */
int tui_pane_build(struct tui *t, struct pane *p);
/* Every pane of the stack from the model: 0, or -1 (no memory). */
int tui_build_all(struct tui *t);
/* KVMTOP_DRAW_STATS: one more timing of s, from t0. */
void tui_stat_add(struct tui_stat *s, uint64_t t0);

/* tui_cols.c: a pane's columns */
/* A column's title: a field's own (model_fields.h), else the pane's. */
const char *tui_col_title(const struct pane_col *c);
/* Whether < and > may sort by the column: it has a compare or a field. */
bool tui_col_sorts(const struct pane_col *c);
/* Column col's cell of row r, and the order of rows a, b by it (0: it has none). */
void tui_col_cell(const struct tui *t, const struct pane_ops *ops, const void *r, int col,
		  char *buf, size_t len);
int tui_col_cmp(const struct pane_ops *ops, const void *a, const void *b, int col);
/* Whether row r has a value in column col (a field's may be unknown; other columns always have one). */
bool tui_col_has(const struct pane_ops *ops, const void *r, int col);
/* Whether row r is idle: ops has a busy column and r's value in it is 0 (unknown is not idle). */
bool tui_row_idle(const struct pane_ops *ops, const void *r);
/* The columns in which p's rows have a figure other than 0, into p->seen (they stay there). */
void tui_cols_seen(struct pane *p);
/* Is column c called name: its own name, or the field's it shows? */
bool tui_col_named(const struct pane_col *c, const char *name);
/*
 * The columns of ops to draw, into order: the pane's settings' (struct
 * tui_pane_set: --fields, the settings file, the setup), in their order;
 * without any, those show[] marks, in the table's order.  How many.
 */
int tui_cols_order(const struct tui *t, const struct pane_ops *ops, const bool *show, int *order);
/* The sort column of ops' settings (*invert: against its own order), or -1: its default. */
int tui_cols_sort(const struct tui *t, const struct pane_ops *ops, bool *invert);
/*
 * The columns of ops that list (names, comma-separated) names, into cols
 * (TUI_COLS at most, each once): how many; strict: a name ops has not is
 * -1 with one line in err (else it is left out, as --fields does).
 */
int tui_cols_parse(const struct pane_ops *ops, const char *list, int *cols, bool strict,
		   char *err, size_t len);
/* The column of ops called name (a column's name or its field's), -1 if none. */
int tui_col_find(const struct pane_ops *ops, const char *name);
/* KEY (most first) or -KEY (least first) as ops' column *col: 0, or -1 with one line in err. */
int tui_cols_parse_sort(const struct pane_ops *ops, const char *key, int *col, bool *invert,
			char *err, size_t len);
/* s's sort ("" if none) and columns ("" if the pane's own) by name, as the two above read them. */
void tui_cols_write(const struct pane_ops *ops, const struct tui_pane_set *s, char *sort, size_t slen,
		    char *cols, size_t clen);
/*
 * The setup (F2) of pane t->setup_of: column col shown / hidden (the last
 * one stays), or moved by d places (whether it was); the first change
 * makes the columns drawn at F2 the pane's own.
 */
void tui_setup_toggle(struct tui *t, int col);
bool tui_setup_move(struct tui *t, int col, int d);
/* Every field column's value in row, into vals[column]. */
void tui_cols_fill(const struct pane_col *cols, int nr_cols, const struct model_row *row,
		   struct pane_val *vals);
/*
 * The same for a vCPU's row under its VM (the VMs pane's tree, F5; row's
 * v the vCPU): each column's field's vCPU counterpart
 * (model_field_vcpu_of()), blank where it has none.
 */
void tui_cols_fill_vcpu(const struct pane_col *cols, int nr_cols, const struct model_row *row,
			struct pane_val *vals);
/* A text value kept: escaped into the row's buf, which pv's s then points at. */
const char *tui_val_text(struct pane_val *pv, char *buf, size_t len);

/* tui_rc.c: the settings file */
/*
 * Where it is (--config, --no-config, $XDG_CONFIG_HOME, $HOME) and its
 * settings, into t: each bad line one line on stderr naming the file and
 * the line, the first on the screen's message line; the rest applies.
 */
void tui_rc_read(struct tui *t, const struct tui_config *c);
/* W: the settings of t into the file, atomically (a new file renamed over it); said in t->msg. */
void tui_rc_write(struct tui *t);

/* tui_colors.c: the colour schemes, by name */
int tui_colors_find(const char *name);
const char *tui_colors_name(int scheme);
int tui_colors_nr(void);
/* The curses colours of t's scheme (t->color: the terminal has colours, none asked for). */
void tui_colors_apply(struct tui *t);

/* tui_fmt.c: number formats shared by the panes, and lookups in the model */
void tui_fmt_count(uint64_t v, char *buf, size_t len);
void tui_fmt_rate(const struct tui *t, uint64_t n, char *buf, size_t len);
struct pane_val;
/* A field's rate already per second, as tui_fmt_rate() writes one: "-" where the row has none. */
void tui_fmt_rate_val(const struct pane_val *pv, char *buf, size_t len);
/* A rate of userspace exits or other kvm events: "-" where the source sees none (counters). */
void tui_fmt_event_rate(const struct tui *t, uint64_t n, char *buf, size_t len);
void tui_fmt_time(const struct tui *t, double v, char *buf, size_t len);
/* A latency, or "-" when the scope has none (have false). */
void tui_fmt_lat(const struct tui *t, bool have, double v, char *buf, size_t len);
void tui_fmt_pct(double v, char *buf, size_t len);
void tui_fmt_share(double v, char *buf, size_t len);	/* a model_scope_share(): "-" where -1 */
/* A figure per second already worked out (a VM's context): 0.25, 512, 12.3K, 4.5M, 1.2G. */
void tui_fmt_per_sec(double v, char *buf, size_t len);
const char *tui_reason_name(const struct tui *t, int id, char *buf, size_t len);
/* A vCPU's id as every pane writes it: the number, or "?" where the event has none. */
const char *tui_vcpu_id(int vcpu_id, char *buf, size_t len);
const struct vm *tui_find_vm(const struct tui *t, int pid);
/* The snapshot the panes show, for the fields' getters: its span, cumulative or not (model_fields.h). */
void tui_snap(const struct tui *t, struct model_snap *s);
const struct vcpu *tui_find_vcpu(const struct tui *t, int tid);

#define TUI_HEADER_LINES	4	/* two of figures, the pane's title, the column titles */

enum { TUI_PAIR_HEAD = 1, TUI_PAIR_SEL, TUI_PAIR_WARN, TUI_PAIR_KEY, TUI_PAIR_TITLE };

/* tui_draw.c: the whole screen, and KVMTOP_DRAW_STATS' file */
void tui_draw(struct tui *t);
void tui_write_stats(const struct tui *t);
/*
 * tui_mouse.c: the mouse event of a KEY_MOUSE on pane p: a click on a
 * column's title sorts by it (again: inverts), on a row selects it, the
 * wheel scrolls.  The key it stands for (a double click on a row: Enter;
 * a click on the function bar: that key), or 0.
 */
int tui_mouse(struct tui *t, struct pane *p);

/* tui_keys.c: key ch (tui_keys[]): a view_action mask, or -1 (no memory) */
int tui_key(struct tui *t, int ch);

#endif
