// SPDX-License-Identifier: GPL-2.0
/*
 * The screen's colour schemes, one a row, by name: the settings file's
 * "colors" and the setup (F2) pick one.  "mono" is none: the screen's
 * attributes alone (bold, reverse), as -C and NO_COLOR.
 */
#include <string.h>
#include <strings.h>

#include <curses.h>

#include "tui_priv.h"

struct scheme {
	const char *name;
	bool color;
	/* each pair's foreground and background (-1: the terminal's), by TUI_PAIR_x */
	short fg[TUI_PAIR_TITLE + 1], bg[TUI_PAIR_TITLE + 1];
};

static const struct scheme colors_schemes[] = {
	{ "default", true,
	  { [TUI_PAIR_HEAD] = COLOR_CYAN, [TUI_PAIR_SEL] = COLOR_BLACK, [TUI_PAIR_WARN] = COLOR_RED,
	    [TUI_PAIR_KEY] = COLOR_BLACK, [TUI_PAIR_TITLE] = COLOR_GREEN },
	  { [TUI_PAIR_HEAD] = -1, [TUI_PAIR_SEL] = COLOR_CYAN, [TUI_PAIR_WARN] = -1,
	    [TUI_PAIR_KEY] = COLOR_CYAN, [TUI_PAIR_TITLE] = -1 } },
	/* dark text for a light terminal */
	{ "light", true,
	  { [TUI_PAIR_HEAD] = COLOR_BLUE, [TUI_PAIR_SEL] = COLOR_WHITE, [TUI_PAIR_WARN] = COLOR_RED,
	    [TUI_PAIR_KEY] = COLOR_WHITE, [TUI_PAIR_TITLE] = COLOR_MAGENTA },
	  { [TUI_PAIR_HEAD] = -1, [TUI_PAIR_SEL] = COLOR_BLUE, [TUI_PAIR_WARN] = -1,
	    [TUI_PAIR_KEY] = COLOR_BLUE, [TUI_PAIR_TITLE] = -1 } },
	{ "mono", false, { 0 }, { 0 } },
};

#define NR_SCHEMES	((int)(sizeof(colors_schemes) / sizeof(colors_schemes[0])))

static bool colors_started;	/* start_color() was called */

int tui_colors_find(const char *name)
{
	int i;

	for (i = 0; i < NR_SCHEMES; i++)
		if (!strcasecmp(colors_schemes[i].name, name))
			return i;
	return -1;
}

const char *tui_colors_name(int scheme)
{
	return colors_schemes[scheme >= 0 && scheme < NR_SCHEMES ? scheme : 0].name;
}

int tui_colors_nr(void)
{
	return NR_SCHEMES;
}

void tui_colors_apply(struct tui *t)
{
	const struct scheme *s = &colors_schemes[t->scheme >= 0 && t->scheme < NR_SCHEMES ? t->scheme : 0];
	short i;

	t->color = t->can_color && s->color;
	if (!t->color)
		return;
	if (!colors_started) {
		start_color();
		use_default_colors();
		colors_started = true;
	}
	for (i = TUI_PAIR_HEAD; i <= TUI_PAIR_TITLE; i++)
		init_pair(i, s->fg[i], s->bg[i]);
}
