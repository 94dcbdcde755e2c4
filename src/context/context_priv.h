/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context room's files and what they share.  context.c holds the
 * readers' table; each reader reads one kind of figure (context.h):
 *
 *   context.c          the table, the host's clocks
 *     context_proc.c   memory and disk of the VMM process: /proc/PID/...
 *     context_psi.c    pressure of its cgroup v2, and the host's
 *     context_net.c    its tap/macvtap interfaces' counters, their births and ends
 *       rtnl.c         rtnetlink's messages (rtnl.h)
 *     context_numa.c   its memory per NUMA node, its threads' nodes
 *     context_ident.c  who it is: command lines, libvirt's status XML
 *       context_file.c small files read whole, stat files' fields
 *
 * No file outside src/context/ includes this header.
 */
#ifndef KVMTOP_CONTEXT_PRIV_H
#define KVMTOP_CONTEXT_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "context.h"
#include "util/keyval.h"

/* context_net.c: what rtnetlink's births and ends hold, let go */
void ctx_net_free(struct context *c);

/* context_file.c */
/* File path (printf-style) read whole into c->buf, NUL-ended: its length, or -1. */
ssize_t ctx_file_read(struct context *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Field n (1: the pid) of a /proc stat file's text, counted after its ")": true with *v. */
bool ctx_stat_field(const char *text, int n, uint64_t *v);

#endif
