/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace-cmd recording's layout, checked before libtracecmd reads it
 * (replay_layout.c): plain reads of the file, no trust in the libraries.
 */
#ifndef KVMTOP_REPLAY_CHECK_H
#define KVMTOP_REPLAY_CHECK_H

#include <stddef.h>

/* The most CPUs a recording may have: Linux's largest NR_CPUS (MAXSMP). */
#define REPLAY_CPUS_MAX	8192
/* The largest options section accepted, decompressed (bytes). */
#define REPLAY_OPTIONS_MAX	(16 << 20)
/* The largest compressed metadata section (formats, kallsyms ...) accepted, decompressed. */
#define REPLAY_PART_MAX		(256 << 20)

/* Where one CPU's ring-buffer pages are in the file (size 0: none). */
struct replay_cpu_data {
	int cpu;
	unsigned long long offset;
	unsigned long long size;
};

/* A recording's layout as its headers declare it, for a reader of its pages. */
struct replay_layout {
	int version;			/* 6 or 7 */
	int big_endian;
	unsigned int long_size;		/* of the recording host: 4 or 8 */
	unsigned int page_size;
	int compressed;			/* version 7 with a codec: the pages are not as on the host */
	unsigned int nr_cpus;
	struct replay_cpu_data *cpus;	/* the top instance's, nr_cpus of them (malloc) */
	/*
	 * An option that makes libtracecmd move the pages' timestamps (a
	 * date or offset, a guest's time shift): the pages' own times are
	 * not the recording's.
	 */
	int time_options;
	/*
	 * The DATE option (trace-cmd record --date): libtracecmd adds its offset
	 * to every timestamp, which is then the wall clock (gettimeofday's) in ns.
	 */
	int date;
	/* TSC2NSEC: libtracecmd's ns are (ts * tsc_mult) >> tsc_shift (mult 0: none) */
	unsigned int tsc_mult;
	unsigned int tsc_shift;
};

/*
 * Is path a trace-cmd recording whose declared parts all end inside it,
 * with at most REPLAY_CPUS_MAX CPUs?  Then its layout is in l (l->cpus
 * NULL when the file has no per-CPU pages: a latency-format file) and
 * this is 0; else -1 with a one-line reason naming the file in err.
 * replay_layout_free() gives l's memory back.
 */
int replay_layout(const char *path, struct replay_layout *l, char *err, size_t errlen);
void replay_layout_free(struct replay_layout *l);

#endif
