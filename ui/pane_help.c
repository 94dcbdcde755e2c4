// SPDX-License-Identifier: GPL-2.0
/*
 * The help pane: every key (from tui_keys[], the one key table), the keys
 * that moved (tui_moved[]), and what the columns mean.  The man page's KEYS section lists the same keys (a
 * test checks it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_priv.h"

struct help_row {
	int line;
	const char *key;
	const char *text;
};

static const struct help_row help_columns[] = {
	{ 0, "EXITS/s", "exits per second over the interval; TOTAL since start or the last reset" },
	{ 0, "LAT", "exit-handling latency: exit -> next entry of the same vCPU, non-blocking exits only" },
	{ 0, "HALT%", "halt time / (span x vCPUs): the span shown, S: since start or reset" },
	{ 0, "UTIL%", "(guest + host + VMM time) / (span x vCPUs); STEAL%: time waiting for a CPU / (span x vCPUs)" },
	{ 0, "EMU%", "the VMM's own threads' time on a CPU / span: a share of one CPU" },
	{ 0, "UEXITS/s", "exits to userspace (the VMM) per second" },
	{ 0, "STATE", "guest, host (handling an exit), halted (in a blocking exit), exited" },
	{ 0, "lost", "events the kernel's buffers overwrote before kvmtop read them" },
	{ 0, "dropped", "events of vCPU threads past --max-vcpus, not counted (shown only when some are)" },
	{ 0, "COUNT ERR", "guest IPs since start or reset; when a table is full a count may overstate by ERR" },
	{ 0, "MODE", "guest kernel or user: exact (powerpc MSR, s390 PSW), '?' inferred from the address's half" },
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
	{ "key",  "KEY",          26, COL_LEFT, help_c_key,  help_cmp_line, false, 9, 0, NULL },
	{ "text", "WHAT IT DOES", 90, COL_LEFT, help_c_text, help_cmp_line, false, 8, 0, NULL },
};

static int help_build(struct tui *t, struct pane *p)
{
	size_t nr_help = sizeof(help_columns) / sizeof(help_columns[0]);
	size_t n = tui_nr_keys + 1 + tui_nr_moved + 1 + nr_help, i, k = 0;
	struct help_row *rows = calloc(n, sizeof(*rows));

	if (!rows)
		return -1;
	/* the keys, a blank line, the keys that moved, a blank line, the columns */
	for (i = 0; i < tui_nr_keys; i++, k++) {
		rows[k].key = tui_keys[i].label;
		rows[k].text = tui_keys[i].help;
	}
	rows[k].key = rows[k].text = "";
	for (i = 0, k++; i < tui_nr_moved; i++, k++) {
		rows[k].key = tui_moved[i].label;
		rows[k].text = tui_moved[i].help;
	}
	rows[k].key = rows[k].text = "";
	for (i = 0, k++; i < nr_help; i++, k++)
		rows[k] = help_columns[i];
	for (i = 0; i < n; i++)
		rows[i].line = (int)i;
	p->rows = rows;
	p->nr = n;
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
