// SPDX-License-Identifier: GPL-2.0
/*
 * The tables the command line takes its choices from: -o's formats from
 * the outputs' table, --source's names from the sources' table.  The
 * program's own: options.c includes neither room, and the fuzzing
 * harness gives the parser the same tables as kvmtop.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/batch.h"
#include "sources/source.h"
#include "model/model_fields.h"
#include "ui/tui.h"
#include "options.h"
#include "tables.h"

/* -o's i-th format for the command line: the outputs' row, and what options.c checks of it. */
static int format_choice(unsigned int i, struct opt_format *f)
{
	const struct batch_format *b = batch_format_at(i);

	if (!b)
		return -1;
	*f = (struct opt_format){
		.name = b->name, .metrics_opts = b->metrics_opts,
		.ips_only = b->ips_only, .one_report = b->one_report,
	};
	return 0;
}

/* --source's names: the live sources' of the sources' table, in its order. */
static const char *const *live_source_names(void)
{
	static const char *names[16];
	size_t i, n = 0;

	for (i = 0; sources[i] && n + 1 < sizeof(names) / sizeof(names[0]); i++)
		if (sources[i]->select)
			names[n++] = sources[i]->select;
	return names;
}

/* A field of the table, or (not batch) a column of the screen's panes. */
static bool field_known(const char *name, bool batch)
{
	return model_field(name) || model_field_family(name) || (!batch && tui_col_known(name));
}

/* Is name a field (ctx non-NULL: batch output's) or a column (model_fields_rename's known)? */
static bool name_known(const char *name, const void *ctx)
{
	return ctx ? model_field(name) || model_field_family(name) : field_known(name, false);
}

/*
 * list with its old names renamed (model_field_names.c) and, unless
 * quiet, one line naming them: list if none, else a copy (the options'
 * for the run).
 */
static const char *fields_renamed(const char *list, bool batch, bool quiet)
{
	size_t len = strlen(list) * 4 + 256;
	char note[1024] = "", *out = malloc(len);

	if (!out)
		return list;
	if (!model_fields_rename(list, NULL, name_known, batch ? list : NULL, out, len, note, sizeof(note))) {
		free(out);
		return list;
	}
	if (!quiet)
		fprintf(stderr, "kvmtop: old names read as new (kvmtop(1), HISTORY): %s\n", note);
	return out;
}

static const char *const row_kinds[MR_KINDS] = { "snapshot", "VM", "vCPU", "reason", "object" };

/* --fields help: the table's fields by row, what each is, then each pane's columns. */
static void fields_help(FILE *f)
{
	unsigned int k, i, n;

	fputs("Fields of the table (--fields, --sort; CSV, text and the screen pick them by name):\n", f);
	for (k = 0; k < MR_KINDS; k++) {
		const struct model_field *fs = model_fields_of(k, &n);

		fprintf(f, "  %s rows:", row_kinds[k]);
		for (i = 0; i < n; i++)
			fprintf(f, " %s", fs[i].name);
		fputc('\n', f);
	}
	fputs("Families, a field per KVM statistic <stat> (--source stats):", f);
	for (i = 0; i < model_nr_field_families; i++)
		fprintf(f, " %s", model_field_families[i].name);
	fputc('\n', f);
	fputs("The screen's columns, per pane (--fields, --sort; a field's by its name):\n", f);
	tui_cols_help(f);
	/* last (contrib's completion reads the lists above); the man page's FIELDS, by tests/docs.py */
	fputs("What each field is (its title in text and on the screen):\n", f);
	for (i = 0; i < model_nr_fields; i++)
		fprintf(f, "  %-22s %s (%s)\n", model_fields[i].name, model_fields[i].desc, model_fields[i].title);
	for (i = 0; i < model_nr_field_families; i++)
		fprintf(f, "  %-22s %s (%s)\n", model_field_families[i].name, model_field_families[i].desc,
			model_field_families[i].title);
	/* the man page's HISTORY, by tests/docs.py */
	fputs("Old names, still read by --fields, --sort and the settings file (a pane's own: [pane]):\n", f);
	for (i = 0; i < model_nr_field_aliases; i++)
		fprintf(f, "  %-22s -> %s%s%s%s\n", model_field_aliases[i].old, model_field_aliases[i].name,
			model_field_aliases[i].pane ? " [" : "", model_field_aliases[i].pane ?: "",
			model_field_aliases[i].pane ? "]" : "");
}

_Static_assert(OPT_FIELDS_MAX == BATCH_FIELDS_MAX, "--fields' limit is the one batch output keeps");

void options_tables(void)
{
	options_formats(format_choice);
	options_sources(live_source_names());
	options_fields(field_known, fields_help);
	options_field_names(fields_renamed);
}
