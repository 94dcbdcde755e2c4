/* SPDX-License-Identifier: GPL-2.0 */
/* The screen's history of each VM and vCPU thread (history.c), for the H strip. */
#ifndef KVMTOP_HISTORY_H
#define KVMTOP_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

#define HISTORY_LEN	60	/* snapshots kept per VM and vCPU */
#define HISTORY_LINE	1024	/* bytes of one drawn line, UTF-8 cells included */
#define HISTORY_LINES	(VS_NR + 2)	/* the most history_lines() writes: title, states, exits */

struct history;

struct history *history_new(void);
void history_free(struct history *h);
/*
 * The model's interval [start, end] (secs long, 0 if unknown): each VM's
 * and vCPU's shares and exit rate.  0, or -1 (no memory).
 */
int history_record(struct history *h, const struct model *m, uint64_t start, uint64_t end,
		   double secs);
/*
 * The strip of VM pid (vm) or vCPU thread tid, called what (escaped) in
 * its title, at most max lines of about width columns: a title, one
 * sparkline per state measured now, one of the exit rate; with nothing
 * recorded, one line ending in hint.  The count.
 */
int history_lines(const struct history *h, bool vm, int id, const char *what, const char *hint,
		  bool utf8, int width, char lines[][HISTORY_LINE], int max);

#endif
