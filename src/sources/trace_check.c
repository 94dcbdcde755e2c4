// SPDX-License-Identifier: GPL-2.0
/*
 * The count of kvm_exit records in a short window, from a tracefs instance
 * of its own ("kvmtop-<pid>-check"), made for it and removed after: the
 * truth the bpf source's start-up comparison holds its own count to,
 * where bpf is kvmtop's default.  Both count the same tracepoint's
 * firings by their time in one clock (the instance's "mono" clock is the
 * programs' bpf_ktime_get_ns()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "trace.h"
#include "../util/clock.h"

struct check_count {
	int exit_id;
	uint64_t from, to;
	int64_t n;
};

bool trace_counts_agree(uint64_t got, uint64_t want)
{
	return got + TRACE_CHECK_EDGES >= want && got <= want + TRACE_CHECK_EDGES;
}

static int count_one(struct tep_event *ev, struct tep_record *rec, int cpu, void *ctx)
{
	struct check_count *c = ctx;

	(void)cpu;
	if (ev->id == c->exit_id && rec->ts >= c->from && rec->ts < c->to)
		c->n++;
	return 0;
}

/* Records the instance lost (a CPU's buffer overran): 0 where none, or where it cannot say. */
static uint64_t check_lost(struct tracefs_instance *inst)
{
	int cpu, nr = (int)sysconf(_SC_NPROCESSORS_CONF);
	uint64_t lost = 0;

	for (cpu = 0; cpu < nr; cpu++) {
		char file[48], *text, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		text = tracefs_instance_file_read(inst, file, NULL);
		if (!text)
			continue;
		p = strstr(text, "overrun:");
		if (p)
			lost += strtoull(p + 8, NULL, 10);
		p = strstr(text, "dropped events:");
		if (p)
			lost += strtoull(p + 15, NULL, 10);
		free(text);
	}
	return lost;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = clock_mono_ns();

	while (now < t) {
		struct timespec ts = { .tv_sec = (time_t)((t - now) / 1000000000u),
				       .tv_nsec = (long)((t - now) % 1000000000u) };

		nanosleep(&ts, NULL);
		now = clock_mono_ns();
	}
}

/* The instance set up: the mono clock, kvm_exit alone, on.  0, or -1 with one line in err. */
static int check_set_up(struct tracefs_instance *inst, const char *name, char *err, size_t errlen)
{
	tracefs_trace_off(inst);
	if (tracefs_instance_file_write(inst, "trace_clock", "mono") < 0 ||
	    tracefs_event_enable(inst, "kvm", "kvm_exit") < 0 || tracefs_trace_on(inst) < 0) {
		snprintf(err, errlen, "the trace instance %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

int64_t trace_count_exits(struct tep_handle *tep, unsigned int ms, trace_window_fn window, void *ctx, char *err,
			  size_t errlen)
{
	struct check_count c = { .exit_id = -1, .n = -1 };
	struct tracefs_instance *inst;
	struct tep_event *ev;
	char name[48];
	uint64_t lost;

	ev = tep_find_event_by_name(tep, "kvm", "kvm_exit");
	if (!ev) {
		snprintf(err, errlen, "this kernel has no kvm:kvm_exit event");
		return -1;
	}
	c.exit_id = ev->id;
	snprintf(name, sizeof(name), "kvmtop-%d" TRACE_CHECK_SUFFIX, (int)getpid());
	inst = tracefs_instance_create(name);
	if (!inst) {
		snprintf(err, errlen, "cannot create the trace instance %s: %s", name, strerror(errno));
		return -1;
	}
	if (check_set_up(inst, name, err, errlen))
		goto out_destroy;
	/* the window opens after the instance records: both see every exit in it */
	c.from = clock_mono_ns() + 1000000u;
	c.to = c.from + (uint64_t)ms * 1000000u;
	window(ctx, c.from, c.to);
	sleep_until(c.to + 2000000u);
	tracefs_trace_off(inst);
	lost = check_lost(inst);
	c.n = 0;
	if (tracefs_iterate_raw_events(tep, inst, NULL, 0, count_one, &c) < 0) {
		snprintf(err, errlen, "reading the trace instance %s: %s", name, strerror(errno));
		c.n = -1;
	} else if (lost) {
		snprintf(err, errlen, "the trace instance %s lost %" PRIu64 " records in %u ms", name, lost, ms);
		c.n = -1;
	}
out_destroy:
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return c.n;
}
