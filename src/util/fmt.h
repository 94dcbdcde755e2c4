/* SPDX-License-Identifier: GPL-2.0 */
/* Number formats the batch output and the screen share. */
#ifndef KVMTOP_FMT_H
#define KVMTOP_FMT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A duration v in the source's unit: with ns, scaled to ns/us/ms/s with
 * decimals digits after the point (ns whole); without, the bare count.
 */
void fmt_duration(double v, bool ns, int decimals, char *buf, size_t len);

#endif
