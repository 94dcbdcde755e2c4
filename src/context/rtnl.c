// SPDX-License-Identifier: GPL-2.0
/*
 * The host's interfaces from rtnetlink (rtnl.h): the kernel sends an
 * RTM_NEWLINK to the RTMGRP_LINK group when an interface is registered
 * (and again at each change of it: up, down, a new name), an RTM_DELLINK
 * as it is unregistered, each with the interface's counters at that
 * moment (IFLA_STATS64: struct rtnl_link_stats64, rtnetlink(7),
 * Documentation/netlink/specs/rt_link.yaml).  A socket that is not read
 * fast enough loses messages: recv() then fails with ENOBUFS once, and
 * the socket goes on with what comes after.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "rtnl.h"

/* One recv: a link's message is a few KiB; a dump's batch up to 32 KiB (more with many VFs) */
#define RTNL_BUF	(64 * 1024)
/* The socket's receive buffer asked for: births and ends of many taps at once fit */
#define RTNL_RCVBUF	(4 * 1024 * 1024)

/* IFLA_LINKINFO's IFLA_INFO_KIND into l->kind. */
static void rtnl_kind(const struct rtattr *info, struct rtnl_link *l)
{
	const struct rtattr *a;
	int len = RTA_PAYLOAD(info);

	for (a = RTA_DATA(info); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t n = RTA_PAYLOAD(a);

		if (a->rta_type != IFLA_INFO_KIND)
			continue;
		n = n < RTNL_KINDSIZ ? n : RTNL_KINDSIZ - 1;
		memcpy(l->kind, RTA_DATA(a), n);
		l->kind[n] = '\0';
		return;
	}
}

/* IFLA_STATS64's counters into l (an older kernel's shorter struct: what it has). */
static void rtnl_stats(const struct rtattr *a, struct rtnl_link *l)
{
	struct rtnl_link_stats64 s;
	size_t n = RTA_PAYLOAD(a);

	memset(&s, 0, sizeof(s));
	memcpy(&s, RTA_DATA(a), n < sizeof(s) ? n : sizeof(s));
	l->ctr[RTNL_RXB] = s.rx_bytes;
	l->ctr[RTNL_TXB] = s.tx_bytes;
	l->ctr[RTNL_RXP] = s.rx_packets;
	l->ctr[RTNL_TXP] = s.tx_packets;
	l->ctr[RTNL_DROPS] = s.rx_dropped + s.tx_dropped;
	l->has_ctr = n >= offsetof(struct rtnl_link_stats64, tx_dropped) + sizeof(s.tx_dropped);
}

/* Link message h into l: 0, or -1 (cut short). */
static int rtnl_link_msg(const struct nlmsghdr *h, struct rtnl_link *l)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr *a;
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));

	if (len < 0)
		return -1;
	memset(l, 0, sizeof(*l));
	l->del = h->nlmsg_type == RTM_DELLINK;
	l->ifindex = ifi->ifi_index;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		size_t n = RTA_PAYLOAD(a);

		switch (a->rta_type) {
		case IFLA_IFNAME:
			n = n < RTNL_IFNAMSIZ ? n : RTNL_IFNAMSIZ - 1;
			memcpy(l->name, RTA_DATA(a), n);
			l->name[n] = '\0';
			break;
		case IFLA_STATS64:
			rtnl_stats(a, l);
			break;
		case IFLA_LINKINFO:
			rtnl_kind(a, l);
			break;
		default:
			break;
		}
	}
	return 0;
}

int rtnl_parse(const void *buf, size_t len, rtnl_link_fn fn, void *ctx)
{
	const struct nlmsghdr *h = buf;
	int left = len > (size_t)RTNL_BUF * 16 ? RTNL_BUF * 16 : (int)len;
	struct rtnl_link l;

	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
				return -EBADMSG;
			if (e->error)
				return e->error < 0 ? e->error : -e->error;
			continue;	/* an ack */
		}
		if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
			continue;
		if (rtnl_link_msg(h, &l))
			return -EBADMSG;
		fn(ctx, &l);
	}
	return left ? -EBADMSG : 0;
}

int rtnl_open(struct rtnl *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int sz = RTNL_RCVBUF;

	r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (r->fd < 0)
		goto out_err;
	/* as root past net.core.rmem_max; else what rmem_max allows */
	if (setsockopt(r->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		(void)setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto out_close;
	r->open_errno = 0;
	return 0;
out_close:
	r->open_errno = errno;
	close(r->fd);
	r->fd = -1;
	return -r->open_errno;
out_err:
	r->open_errno = errno;
	return -r->open_errno;
}

/* One datagram of fd into buf: its length, 0 (none now), or -errno (-EMSGSIZE: cut, not kernel's: -EPERM). */
static ssize_t rtnl_recv(int fd, void *buf, int flags)
{
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = buf, .iov_len = RTNL_BUF };
	struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	do
		n = recvmsg(fd, &msg, flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	if (msg.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	/* only the kernel's (port 0): no other process may tell kvmtop of interfaces */
	if (msg.msg_namelen != sizeof(from) || from.nl_pid)
		return -EPERM;
	return n;
}

int rtnl_drain(struct rtnl *r, rtnl_link_fn fn, void *ctx)
{
	static unsigned char buf[RTNL_BUF] __attribute__((aligned(8)));
	int nr = 0;

	if (r->fd < 0)
		return -EBADF;
	for (;;) {
		ssize_t n = rtnl_recv(r->fd, buf, MSG_DONTWAIT);

		if (n == -EPERM)
			continue;
		if (n == -ENOBUFS)
			r->overruns++;
		if (n <= 0)
			return n < 0 ? (int)n : nr;
		if (rtnl_parse(buf, (size_t)n, fn, ctx) < 0)
			return -EBADMSG;
		nr++;
	}
}

/* Ask fd for every link: 0, or -errno. */
static int rtnl_ask(int fd)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg ifi;
	} req = {
		.h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

int rtnl_dump(rtnl_link_fn fn, void *ctx)
{
	static unsigned char buf[RTNL_BUF] __attribute__((aligned(8)));
	struct timeval tv = { .tv_sec = 2 };
	int fd, ret;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	/* never hang on it: a dump takes milliseconds */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ret = rtnl_ask(fd);
	while (!ret) {
		ssize_t n = rtnl_recv(fd, buf, 0);

		if (n == -EPERM)
			continue;
		if (n <= 0) {
			ret = n ? (int)n : -ETIMEDOUT;
			break;
		}
		ret = rtnl_parse(buf, (size_t)n, fn, ctx);
	}
	close(fd);
	return ret > 0 ? 0 : ret;
}

void rtnl_close(struct rtnl *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
