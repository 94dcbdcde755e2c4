/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay source: a trace-cmd recording (trace.dat, file version 6 or 7,
 * compressed or not), its records handed out in time order across CPUs.
 * The only caller of libtracecmd; its pages are read in place
 * (replay_pages.c) when they hold the recording's own times.
 */
#ifndef KVMTOP_REPLAY_H
#define KVMTOP_REPLAY_H

#include <stdbool.h>
#include <event-parse.h>

#include "replay_layout.h"

struct tracecmd_input;
struct replay_pages;

struct replay {
	struct tracecmd_input *handle;	/* the headers and formats; the records when pages is NULL */
	struct replay_pages *pages;	/* the records read in place (replay_pages.c), or NULL */
	struct tep_handle *tep;
	const char *path;
	char clock[32];		/* as kvmtop reports it: "tsc2nsec", "local", ... */
	bool ns;		/* timestamps are nanoseconds */
	const char *time_unit;	/* "ns", "cycles" or "counts" */
	bool wall;		/* its timestamps are the wall clock's ns (layout.date) */
	unsigned long file_version;
	const char *compression;	/* NULL when not compressed */
	int cpus;
	bool stuck;		/* a read was abandoned mid-page: the handle is not used again */
	bool stopped;		/* the last read was stopped by its callback, not at the end */
	unsigned long long *last_off;	/* per CPU: the offset of its last record */
	char bad[160];		/* what a record showed to be corrupt, or "" */
	struct ident_threads *threads;	/* --threads: the recording host's, or NULL */
};

/* Called for every record, in timestamp order; a non-zero return stops. */
typedef int (*replay_fn)(struct tep_record *rec, void *ctx);

/* 0, or -1 with a one-line reason in err. */
int replay_open(struct replay *r, const char *path, char *err, size_t errlen);
/* 0 at the end of the data, 1 if fn stopped it, -1 with err on failure. */
int replay_run(struct replay *r, replay_fn fn, void *ctx, char *err, size_t errlen);
void replay_close(struct replay *r);
/*
 * The trace libraries crashed (a signal caught in them, not SIGBUS): what
 * they allocated may be corrupt, and so may exit()'s destructors of the
 * libraries loaded with them; kvmtop then ends with _exit().
 */
bool replay_faulted(void);
/* Thread name the recording saved for tid, or NULL. */
const char *replay_comm(struct replay *r, int tid);

#endif
