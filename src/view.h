/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a live driver needs from an interactive view (the TUI), without
 * knowing anything about curses: the view draws each completed interval
 * and turns input into actions for the driver.
 */
#ifndef KVMTOP_VIEW_H
#define KVMTOP_VIEW_H

#include <stdint.h>

#include "decode.h"
#include "model.h"

/* Actions a view's input handler asks of the driver (a bit mask). */
enum view_action {
	VIEW_QUIT	= 1 << 0,	/* stop */
	VIEW_REFRESH	= 1 << 1,	/* end the interval now and draw it */
	VIEW_RESET	= 1 << 2,	/* forget all counts (model_reset) */
	VIEW_DELAY	= 1 << 3,	/* view->delay changed */
};

struct view {
	int fd;			/* input to wait on with the trace, -1: none */
	double delay;		/* seconds between refreshes, set by the view on VIEW_DELAY */
	char msg[256];		/* a notice from the driver to show, or "" */
	void *ctx;
	/* Sources are ready: the model, its decoder (names) and what to call the source. */
	int (*start)(void *ctx, const struct model *m, const struct decoder *d,
		     const char *source, const char *clock, bool ns);
	/* An interval ended at now: draw it.  0, or -1: fatal (said why). */
	int (*refresh)(void *ctx, uint64_t now);
	/* fd is readable: handle the input; a view_action mask. */
	int (*input)(void *ctx, uint64_t now);
	/* The driver is done: give the terminal back. */
	void (*stop)(void *ctx);
};

#endif
