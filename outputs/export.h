/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen ADDR:PORT (export.c): the snapshots served as Prometheus
 * metrics over HTTP from libmicrohttpd's own thread.
 */
#ifndef KVMTOP_EXPORT_H
#define KVMTOP_EXPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "metrics.h"
#include "driver/view.h"

struct doc;

struct export {
	struct view view;
	const char *addr;		/* as given: ADDR:PORT, :PORT, [V6]:PORT */
	struct metrics_opts mo;
	const struct model *m;
	struct MHD_Daemon *d;
	pthread_mutex_t lock;		/* cur and every doc's refs */
	struct doc *cur;		/* the last snapshot, both formats */
	unsigned long published;	/* snapshots rendered */
	unsigned long scrapes;		/* /metrics requests answered */
};

/* e as a view serving at addr: the driver's handle on it. */
struct view *export_view(struct export *e, const char *addr, const struct metrics_opts *mo);
/*
 * ADDR:PORT into a socket address: ":PORT" every address (any: true),
 * "[::1]:PORT" IPv6, else a numeric address or a host name.  0, or -1
 * with the end of an error line in err.
 */
int export_parse_addr(const char *arg, struct sockaddr_storage *ss, socklen_t *len, bool *any,
		      char *err, size_t errlen);

#endif
