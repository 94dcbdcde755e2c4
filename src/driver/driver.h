/* SPDX-License-Identifier: GPL-2.0 */
/* The driver: source -> decoder -> model -> view, in one loop (driver.c). */
#ifndef KVMTOP_DRIVER_H
#define KVMTOP_DRIVER_H

#include "options.h"
#include "sources/source.h"
#include "view.h"

/*
 * Run source ops into view v until the input ends, -n snapshots, a stop
 * signal, a closed output or terminal, or the view quits.  0; 1 (failed,
 * said why, after the view gave the terminal back); 128 + a signal that
 * stopped a recording's batch output.
 */
int driver_run(struct options *o, const struct source_ops *ops, struct view *v);

#endif
