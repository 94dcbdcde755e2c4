// SPDX-License-Identifier: GPL-2.0
/*
 * The tables the command line takes its choices from: -o's formats from
 * the outputs' table, --source's names from the sources' table.  The
 * program's own: options.c includes neither room, and the fuzzing
 * harness gives the parser the same tables as kvmtop.
 */
#include <stddef.h>

#include "outputs/batch.h"
#include "sources/source.h"
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

void options_tables(void)
{
	options_formats(format_choice);
	options_sources(live_source_names());
}
