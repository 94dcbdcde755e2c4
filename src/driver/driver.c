// SPDX-License-Identifier: GPL-2.0
/*
 * The driver: one run of a source into a view.
 *
 *   source (sources/) -> decoder (decode/) -> model (model/) -> view
 *
 * It opens the source, the decoder and the model (pipeline.c), hands the
 * run to the loop of the source's kind -- live (loop_live.c) or a
 * recording (loop_recording.c) -- and tears everything down on every
 * path: the view stopped, tracing off, the instance removed.  Stop
 * signals are flags the loops look at (signals.c); a crash gives the
 * terminal and tracing back first (crash.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_priv.h"
#include "model/model_feed.h"

/* KVMTOP_SNAPSHOT_STATS=FILE: one JSON line of the snapshots' output times, for make bench. */
static void snapshot_stats(const struct driver *drv)
{
	const char *path = getenv("KVMTOP_SNAPSHOT_STATS");
	const struct sampler_cost *ctx, *tick;
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "kvmtop: KVMTOP_SNAPSHOT_STATS: cannot write %s: %s\n", path, strerror(errno));
		return;
	}
	ctx = &drv->samp.snap[SAMPLER_CONTEXT];
	tick = &drv->samp.between[SAMPLER_CONTEXT];
	fprintf(f, "{\"snapshots\":%" PRIu64 ",\"mean_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
		",\"context_samples\":%" PRIu64 ",\"context_vms\":%" PRIu64 ",\"context_cpu_ns\":%" PRIu64
		",\"context_reads\":%" PRIu64 ",\"context_read_vms\":%" PRIu64 ",\"context_read_cpu_ns\":%" PRIu64 "}\n",
		drv->snap_n, drv->snap_n ? drv->snap_ns / drv->snap_n : 0, drv->snap_max_ns,
		ctx->n, ctx->items, ctx->cpu_ns + tick->cpu_ns, tick->n, tick->items, tick->cpu_ns);
	fclose(f);
}

/* Live: read the buffers each DRIVER_TICK_MS, or each -d when that is shorter. */
static unsigned int tick_ms(const struct driver_config *c)
{
	double delay = c->delay ? c->delay : DRIVER_DEFAULT_DELAY;
	unsigned int ms = delay * 1000 < DRIVER_TICK_MS ? (unsigned int)(delay * 1000) : DRIVER_TICK_MS;

	return ms ? ms : 1;
}

int driver_run(const struct driver_config *c, const struct source_ops *ops, struct view *v)
{
	struct driver drv;
	int ret = 1;

	memset(&drv, 0, sizeof(drv));
	drv.c = c;
	drv.ops = ops;
	drv.v = v;
	drv.screen = v->fd >= 0;
	drv.nr_intervals = -1;
	drv.tick_ms = tick_ms(c);
	/* the host's threads and processes, or the tree --proc gives for them */
	ident_init(&drv.proc, c->proc_root);
	samplers_init(&drv.samp, &drv.proc, false, c->exits_unknown, c->proc_root, c->sys_root, c->libvirt_run);
	/* SIGHUP reopens the output of a view that can, else it stops the run */
	driver_signals(v->ops->reopen != NULL);
	driver_crash_arm(&drv);
	if (!driver_open(&drv)) {
		int status;

		drv.samp.live = drv.src.live;
		status = drv.src.live ? loop_live(&drv) : loop_recording(&drv);

		if (status >= 0) {
			ret = status;
			snapshot_stats(&drv);
		}
	}
	driver_view_off(&drv);
	driver_crash_disarm();
	driver_close(&drv);
	findings_free(&drv.findings);
	samplers_free(&drv.samp);
	driver_signals_restore();
	return ret;
}
