/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace-cmd recording's layout, checked before libtracecmd reads it
 * (replay_check.c): plain reads of the file, no trust in the libraries.
 */
#ifndef KVMTOP_REPLAY_CHECK_H
#define KVMTOP_REPLAY_CHECK_H

#include <stddef.h>

/* The most CPUs a recording may have: Linux's largest NR_CPUS (MAXSMP). */
#define REPLAY_CPUS_MAX	8192
/* The largest options section accepted, decompressed (bytes). */
#define REPLAY_OPTIONS_MAX	(16 << 20)

/*
 * Is path a trace-cmd recording whose declared parts all end inside it,
 * with at most REPLAY_CPUS_MAX CPUs?  0, or -1 with a one-line reason
 * naming the file in err.
 */
int replay_check(const char *path, char *err, size_t errlen);

#endif
