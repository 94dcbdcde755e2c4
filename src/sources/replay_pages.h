/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording's ring-buffer pages read in place (replay_pages.c): the
 * records libtracecmd would hand out, in the same order, without its
 * allocation per record.  For the files whose pages hold the recording's
 * own times; replay.c keeps libtracecmd for the others.
 */
#ifndef KVMTOP_REPLAY_PAGES_H
#define KVMTOP_REPLAY_PAGES_H

#include <stddef.h>

#include "replay_layout.h"

struct replay_pages;
struct tep_handle;
struct tep_record;

/*
 * The page reader of path, whose layout is l and formats tep, with cpus
 * CPUs as libtracecmd counts them: 0 and *out set; 1 when its pages are
 * not for it (compressed, times libtracecmd changes, CPUs or pages laid
 * out otherwise); -1 with a one-line reason in err.
 */
int replay_pages_open(struct replay_pages **out, const char *path, const struct replay_layout *l,
		      struct tep_handle *tep, int cpus, char *err, size_t errlen);
/*
 * fn for each record from where the last call stopped, oldest first (the
 * lowest CPU on a tie), the record it stopped on consumed.  0 at the end,
 * 1 when fn stopped it, -1 with what is corrupt in bad.
 */
int replay_pages_iterate(struct replay_pages *p, int (*fn)(struct tep_record *rec, void *ctx),
			 void *ctx, char *bad, size_t badlen);
void replay_pages_close(struct replay_pages *p);

#endif
