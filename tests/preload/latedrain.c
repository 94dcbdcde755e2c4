// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/live_time.py: kvmtop waits 150 ms for a CPU each
 * time it has drained the trace buffers, as on a host where the vCPUs it
 * watches take every CPU.  After a tracefs_cpu_read() that finds a CPU's
 * buffer empty (the end of a drain), the next CLOCK_MONOTONIC reading is
 * 150 ms late.  Events in those 150 ms are still in the buffers: an
 * interval that ended at that reading, not where the drain stopped,
 * would put them in the wrong interval.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <time.h>

typedef int (*read_fn)(void *tcpu, void *buffer, bool nonblock);
typedef int (*clock_fn)(clockid_t clk, struct timespec *ts);

int tracefs_cpu_read(void *tcpu, void *buffer, bool nonblock);
int clock_gettime(clockid_t clk, struct timespec *ts);

static __thread bool drained;

int tracefs_cpu_read(void *tcpu, void *buffer, bool nonblock)
{
	static read_fn real;
	int n;

	if (!real)
		real = (read_fn)dlsym(RTLD_NEXT, "tracefs_cpu_read");
	n = real(tcpu, buffer, nonblock);
	if (n <= 0)
		drained = true;
	return n;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	static clock_fn real;

	if (!real)
		real = (clock_fn)dlsym(RTLD_NEXT, "clock_gettime");
	if (clk == CLOCK_MONOTONIC && drained) {
		struct timespec late = { 0, 150 * 1000 * 1000 };

		drained = false;
		nanosleep(&late, NULL);
	}
	return real(clk, ts);
}
