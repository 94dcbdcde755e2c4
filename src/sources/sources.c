// SPDX-License-Identifier: GPL-2.0
/*
 * The sources, by name: --source picks a live one by its select name, a
 * recording (-r) is always the replay source.  A new source is its own
 * file and a row here.
 */
#include <string.h>

#include "source.h"

const struct source_ops *const sources[] = {
	&source_trace,
	&source_bpf,
	&source_debugfs,
	&source_stats,
	&source_replay,
	NULL,
};

const struct source_ops *source_find(const char *select)
{
	size_t i;

	for (i = 0; sources[i]; i++)
		if (sources[i]->select && !strcmp(sources[i]->select, select))
			return sources[i];
	return NULL;
}
