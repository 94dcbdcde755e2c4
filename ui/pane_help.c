// SPDX-License-Identifier: GPL-2.0
/*
 * The help pane: every key (from tui_keys[], the one key table) and what
 * the columns mean.  The man page's KEYS section lists the same keys (a
 * test checks it).  Each text is wrapped at spaces to the width its
 * column is drawn at, one row a line, so no word is cut at any width the
 * screen draws (80 columns and up); the rows scroll as any pane's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>

#include "tui_priv.h"

/* A text line of the help: at most the text column's width (help_cols[]), and its NUL. */
#define HELP_TEXT	200

struct help_row {
	int line;
	const char *key;	/* "" on a text's second line and after */
	char text[HELP_TEXT + 1];
};

struct help_src {
	const char *key;
	const char *text;
};

static const struct help_src help_columns[] = {
	{ "EXITS/s", "exits per second over the interval; TOTAL since start or the last reset" },
	{ "LAT", "exit-handling latency: exit -> next entry of the same vCPU, non-blocking exits only" },
	{ "HALT%", "halt time / (span x vCPUs): the span shown, S: since start or reset" },
	{ "UTIL%", "(guest + host + VMM time) / (span x vCPUs); STEAL%: time waiting for a CPU / (span x vCPUs)" },
	{ "EMU%", "the VMM's own threads' time on a CPU / span: a share of one CPU" },
	{ "UEXITS/s", "exits to userspace (the VMM) per second" },
	{ "STATE", "guest, host (handling an exit), halted (in a blocking exit), exited" },
	{ "lost", "events the kernel's buffers overwrote before kvmtop read them" },
	{ "dropped", "events of vCPU threads past --max-vcpus, not counted (shown only when some are)" },
	{ "COUNT ERR", "guest IPs since start or reset; when a table is full a count may overstate by ERR" },
	{ "MODE", "guest kernel or user: exact (powerpc MSR, s390 PSW), '?' inferred from the address's half" },
};

static void help_c_key(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct help_row *)r)->key);
}

static void help_c_text(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct help_row *)r)->text);
}

static int help_cmp_line(const void *a, const void *b)
{
	return ((const struct help_row *)a)->line - ((const struct help_row *)b)->line;
}

static const struct pane_col help_cols[] = {
	{ "key",  "KEY",          26,        COL_LEFT, help_c_key,  help_cmp_line, false, 9, 0, NULL },
	{ "text", "WHAT IT DOES", HELP_TEXT, COL_LEFT, help_c_text, help_cmp_line, false, 8, 0, NULL },
};

/*
 * The width the text column is drawn at on a screen of cols columns: the
 * room right of the key column (tui_draw.c shows a wide last column cut
 * to it), at most the column's own width, never under 12.
 */
static int help_text_width(int cols)
{
	int w = cols - help_cols[0].width - 1;

	if (w > help_cols[1].width)
		w = help_cols[1].width;
	return w < 12 ? 12 : w;
}

/*
 * Text s in lines of at most w characters, broken at spaces (a word
 * longer than w, which no help text has, is cut), counted in *k: into
 * rows from *k on (key on the first) when rows is not NULL.
 */
static void help_wrap(struct help_row *rows, size_t *k, const char *key, const char *s, int w)
{
	bool first = true;

	do {
		size_t len = strlen(s), cut = len;

		if (len > (size_t)w) {
			for (cut = (size_t)w; cut > 0 && s[cut] != ' '; cut--)
				;
			if (!cut)
				cut = (size_t)w;
		}
		if (rows) {
			rows[*k].key = first ? key : "";
			snprintf(rows[*k].text, sizeof(rows[*k].text), "%.*s", (int)cut, s);
		}
		(*k)++;
		first = false;
		s += cut;
		while (*s == ' ')
			s++;
	} while (*s);
}

/* The keys, a blank line and the columns, wrapped to w: into rows when not NULL.  How many rows. */
static size_t help_fill(struct help_row *rows, int w)
{
	size_t nr_help = sizeof(help_columns) / sizeof(help_columns[0]), i, k = 0;

	for (i = 0; i < tui_nr_keys; i++)
		help_wrap(rows, &k, tui_keys[i].label, tui_keys[i].help, w);
	help_wrap(rows, &k, "", "", w);
	for (i = 0; i < nr_help; i++)
		help_wrap(rows, &k, help_columns[i].key, help_columns[i].text, w);
	return k;
}

static int help_build(struct tui *t, struct pane *p)
{
	int w = help_text_width(COLS);
	size_t n = help_fill(NULL, w), i;
	struct help_row *rows = calloc(n, sizeof(*rows));

	if (!rows)
		return -1;
	help_fill(rows, w);
	for (i = 0; i < n; i++)
		rows[i].line = (int)i;
	p->rows = rows;
	p->nr = n;
	t->help_cols = COLS;
	return 0;
}
static uint64_t help_key(const void *r)
{
	return (uint64_t)((const struct help_row *)r)->line;
}

static const char *help_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct help_row *w = r;

	snprintf(buf, len, "%s %s", w->key, w->text);
	return buf;
}

static void help_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	snprintf(buf, len, "Help: kvmtop keys and columns (man kvmtop for more); Esc goes back");
}

const struct pane_ops pane_help = {
	.name = "help",
	.cols = help_cols,
	.nr_cols = sizeof(help_cols) / sizeof(help_cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct help_row),
	.build = help_build,
	.key = help_key,
	.label = help_label,
	.title = help_title,
};
