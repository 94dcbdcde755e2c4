/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmtop's one clock: CLOCK_MONOTONIC in ns.  Live intervals, the trace
 * instance's "mono" trace clock and the screen's draw timings all use it.
 */
#ifndef KVMTOP_CLOCK_H
#define KVMTOP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * What to add to a CLOCK_MONOTONIC time for CLOCK_REALTIME's, in ns: read
 * between two monotonic readings, so within their gap (the wall clock
 * may be stepped: read it again for each use).
 */
static inline int64_t clock_wall_offset(void)
{
	struct timespec ts;
	uint64_t before = clock_mono_ns(), after;
	int64_t wall;

	clock_gettime(CLOCK_REALTIME, &ts);
	after = clock_mono_ns();
	wall = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	return wall - (int64_t)(before + (after - before) / 2);
}

/* The calling thread's CPU time in ns (what a piece of work cost, for make bench). */
static inline uint64_t clock_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
