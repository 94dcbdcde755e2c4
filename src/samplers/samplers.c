// SPDX-License-Identifier: GPL-2.0
/*
 * The samplers' table (samplers.h): each row reads one kind of figure
 * from /proc, /sys or cgroupfs and writes it into the model, at the
 * moments of the run its bits name.  A new kind of figure is a new file
 * and a row.  What each row costs is kept for make bench.
 */
#include <stdlib.h>
#include <string.h>

#include "samplers_priv.h"
#include "util/clock.h"

#define AT(w)	(1u << (w))

/* The rows, in the order they run at a moment: their index is enum sampler_id. */
static const struct sampler samplers[SAMPLERS_NR] = {
	/* threads that ended before the readings below: from the readings before */
	[SAMPLER_ENDS]    = { "ends",    AT(SAMPLE_START) | AT(SAMPLE_TICK) | AT(SAMPLE_SNAP) | AT(SAMPLE_NEW), true,
			      sample_ends },
	[SAMPLER_TIMES]   = { "times",   AT(SAMPLE_SNAP) | AT(SAMPLE_NEW), false, sample_times },
	[SAMPLER_UNSEEN]  = { "unseen",  AT(SAMPLE_SNAP), true, sample_unseen },
	[SAMPLER_GROUPS]  = { "groups",  AT(SAMPLE_SNAP) | AT(SAMPLE_NEW), false, sample_groups },
	[SAMPLER_CONTEXT] = { "context", AT(SAMPLE_START) | AT(SAMPLE_TICK) | AT(SAMPLE_SNAP), true,
			      sample_context },
	/* threads that ended as the context was read: that reading counted them */
	[SAMPLER_ENDS_READ] = { "ends_read", AT(SAMPLE_TICK) | AT(SAMPLE_SNAP), true, sample_ends_read },
};

void samplers_init(struct samplers *s, const struct ident *id, bool live, const char *exits_unknown,
		   const char *proc_root, const char *sys_root, const char *libvirt_run)
{
	memset(s, 0, sizeof(*s));
	s->proc = id;
	s->live = live;
	s->exits_unknown = exits_unknown;
	context_init(&s->ctx, proc_root, sys_root, libvirt_run);
	s->ts.fd = -1;
	s->self_known = ident_self_start(&s->self_start);
}

void samplers_free(struct samplers *s)
{
	context_free(&s->ctx);
	taskstats_close(&s->ts);
	free(s->pending);
	s->pending = NULL;
}

int samplers_run(struct samplers *s, struct model *m, uint64_t now, enum sample_when when)
{
	unsigned int i;

	for (i = 0; i < SAMPLERS_NR; i++) {
		const struct sampler *row = &samplers[i];
		struct sampler_cost *cost;
		uint64_t t0;
		int n;

		if (!(row->when & AT(when)) || (row->live && !s->live))
			continue;
		t0 = clock_thread_cpu_ns();
		n = row->run(s, m, now, when);
		cost = when == SAMPLE_SNAP ? &s->snap[i] : &s->between[i];
		cost->cpu_ns += clock_thread_cpu_ns() - t0;
		if (n < 0)
			return -1;
		if (n > 0 || when == SAMPLE_SNAP) {
			cost->n++;
			cost->items += (uint64_t)n;
		}
	}
	return 0;
}
