// SPDX-License-Identifier: GPL-2.0
/*
 * Every pane by its id: the one file that names each pane's ops.  The
 * screen hands this table to the stack (struct tui's panes, set by
 * tui_view()), and a pane opens another by id through it, so the panes
 * never name each other and the calls between the screen's files go one
 * way.
 */
#include "tui_priv.h"

const struct pane_ops *const tui_panes[PANE_NR] = {
	[PANE_VMS]	= &pane_vms,
	[PANE_VCPUS]	= &pane_vcpus,
	[PANE_REASONS]	= &pane_reasons,
	[PANE_RECENT]	= &pane_recent,
	[PANE_IPS]	= &pane_ips,
	[PANE_HELP]	= &pane_help,
	[PANE_FINDINGS]	= &pane_findings,
	[PANE_THIEVES]	= &pane_thieves,
	[PANE_CONTEXT]	= &pane_context,
	[PANE_SETUP]	= &pane_setup,
	[PANE_OBJECTS]	= &pane_objects,
};

bool tui_col_known(const char *name)
{
	int id, i;

	for (id = 0; id < PANE_NR; id++)
		for (i = 0; i < tui_panes[id]->nr_cols && id != PANE_SETUP; i++)
			if (tui_col_named(&tui_panes[id]->cols[i], name))
				return true;
	return false;
}

void tui_cols_help(FILE *f)
{
	int id, i;

	for (id = 0; id < PANE_NR; id++) {
		if (!tui_panes[id]->nr_cols || id == PANE_SETUP)
			continue;
		fprintf(f, "  %s pane:", tui_panes[id]->name);
		for (i = 0; i < tui_panes[id]->nr_cols; i++)
			fprintf(f, " %s", tui_panes[id]->cols[i].field ? tui_panes[id]->cols[i].field :
				tui_panes[id]->cols[i].name);
		fputc('\n', f);
	}
}
