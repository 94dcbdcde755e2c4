/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's network interfaces as rtnetlink tells of them (rtnl.c): a
 * NETLINK_ROUTE socket in the RTMGRP_LINK group, non-blocking, whose
 * RTM_NEWLINK and RTM_DELLINK messages say when an interface is made and
 * ended, with its counters then (IFLA_STATS64); and a dump of those there
 * are now (RTM_GETLINK).  A pure reader: it parses messages into struct
 * rtnl_link and knows nothing of VMs or of the model.
 */
#ifndef KVMTOP_RTNL_H
#define KVMTOP_RTNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RTNL_IFNAMSIZ	16
#define RTNL_KINDSIZ	16

/* An interface's counters, as IFLA_STATS64 gives them; drops are rx's and tx's summed. */
enum rtnl_ctr { RTNL_RXB, RTNL_TXB, RTNL_RXP, RTNL_TXP, RTNL_DROPS, RTNL_CTR_NR };

/* What one message says of one interface. */
struct rtnl_link {
	bool del;			/* RTM_DELLINK: it ended; else RTM_NEWLINK (made, changed, or a dump's) */
	int ifindex;
	char name[RTNL_IFNAMSIZ];	/* raw: escape before printing; "" where the message has none */
	char kind[RTNL_KINDSIZ];	/* IFLA_INFO_KIND ("tun" for a tap, "macvtap"), "" where none */
	bool has_ctr;			/* ctr holds IFLA_STATS64's counters */
	uint64_t ctr[RTNL_CTR_NR];
};

/* Called for each interface a message tells of. */
typedef void (*rtnl_link_fn)(void *ctx, const struct rtnl_link *l);

struct rtnl {
	int fd;				/* -1: not open */
	int open_errno;			/* why it could not be opened, 0: it is (or was never tried) */
	uint64_t overruns;		/* ENOBUFS: the kernel dropped messages the socket had no room for */
};

/*
 * The messages of buf (len bytes, as one recv gave them) to fn, one by
 * one: 1 at NLMSG_DONE (a dump's end), 0 when they are all read, or
 * -errno of an NLMSG_ERROR, or -EBADMSG where a message is cut or
 * malformed (those before it were told).
 */
int rtnl_parse(const void *buf, size_t len, rtnl_link_fn fn, void *ctx);
/* Open r's socket, subscribed to links' births and ends: 0, or -errno (also in r->open_errno). */
int rtnl_open(struct rtnl *r);
/*
 * What r's socket holds now, each interface to fn, without waiting: the
 * number of messages read, or -ENOBUFS where the kernel dropped some
 * (counted in r->overruns: what was lost is not known, the caller reads
 * a dump anew), or another -errno.
 */
int rtnl_drain(struct rtnl *r, rtnl_link_fn fn, void *ctx);
/* Every interface there is now (a dump, on a socket of its own) to fn: 0, or -errno. */
int rtnl_dump(rtnl_link_fn fn, void *ctx);
void rtnl_close(struct rtnl *r);

#endif
