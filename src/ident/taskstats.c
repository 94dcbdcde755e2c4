// SPDX-License-Identifier: GPL-2.0
/*
 * Taskstats exit records (taskstats.h).  The kernel sends, to each
 * generic-netlink socket registered for the CPU a thread ends on, one
 * message: the thread's pid and its struct taskstats (TASKSTATS_TYPE_AGGR_PID),
 * and, when it is the last thread of a process of several, the
 * process's too (AGGR_TGID: delay sums only).  The struct grows at its
 * end with each TASKSTATS_VERSION: a field is read only where the
 * record is long enough to hold it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <sys/socket.h>

#include "taskstats.h"

/* A request: the headers and room for one attribute (a family's name, a cpulist). */
struct ts_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[256];
};

/* Is the record of len bytes long enough to hold member m of struct taskstats? */
#define TS_HAS(len, m)	((len) >= offsetof(struct taskstats, m) + sizeof(((struct taskstats *)0)->m))

/* Attribute type, data and length to req; 0, or -1 when it does not fit. */
static int ts_put_attr(struct ts_req *req, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)req + NLMSG_ALIGN(req->n.nlmsg_len));
	size_t need = NLA_HDRLEN + len;

	if (NLMSG_ALIGN(req->n.nlmsg_len) + NLA_ALIGN(need) > sizeof(*req))
		return -1;
	a->nla_type = type;
	a->nla_len = (uint16_t)need;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	req->n.nlmsg_len = NLMSG_ALIGN(req->n.nlmsg_len) + NLA_ALIGN(need);
	return 0;
}

/* Send a request of family type, command cmd with one attribute; 0, or -1 (errno set). */
static int ts_send(struct ts_sock *ts, uint16_t type, uint8_t cmd, uint16_t attr, const void *data, size_t len)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct ts_req req;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_seq = ++ts->seq;
	req.g.cmd = cmd;
	req.g.version = 1;
	if (ts_put_attr(&req, attr, data, len)) {
		errno = EINVAL;
		return -1;
	}
	return sendto(ts->fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ? -1 : 0;
}

/*
 * The reply to the last request: its error (0: acked) and, where it is a
 * family's description, the family's id in *family.  0, or -1 (errno set:
 * the kernel's error, or ETIMEDOUT where no reply came within a second).
 */
static int ts_reply(struct ts_sock *ts, uint16_t *family)
{
	struct pollfd p = { .fd = ts->fd, .events = POLLIN };
	struct nlmsghdr *n;
	ssize_t got;

	for (;;) {
		if (poll(&p, 1, 1000) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		got = recv(ts->fd, ts->buf, TS_BUF, 0);
		if (got < 0)
			return -1;
		for (n = (struct nlmsghdr *)ts->buf; NLMSG_OK(n, (size_t)got); n = NLMSG_NEXT(n, got)) {
			if (n->nlmsg_seq != ts->seq)
				continue;
			if (n->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(n);

				if (n->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					continue;
				errno = -e->error;
				return e->error ? -1 : 0;
			}
			if (family && n->nlmsg_type == GENL_ID_CTRL) {
				size_t off = NLMSG_LENGTH(GENL_HDRLEN);

				while (off + NLA_HDRLEN <= n->nlmsg_len) {
					const struct nlattr *a = (const struct nlattr *)((char *)n + off);

					if (a->nla_len < NLA_HDRLEN || off + a->nla_len > n->nlmsg_len)
						break;
					if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
					    a->nla_len >= NLA_HDRLEN + sizeof(uint16_t))
						memcpy(family, (const char *)a + NLA_HDRLEN, sizeof(*family));
					off += NLA_ALIGN(a->nla_len);
				}
			}
		}
	}
}

/* The possible CPUs as a cpulist into out (len bytes); "0" where the file does not read. */
static void ts_possible(char *out, size_t len)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");

	if (!f || !fgets(out, (int)len, f))
		strlcpy(out, "0", len);
	if (f)
		fclose(f);
	out[strcspn(out, "\n")] = '\0';
}

int taskstats_open(struct ts_sock *ts, const char *cpus, char *err, size_t len)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int rcvbuf = 8 << 20;
	char mask[1024];

	memset(ts, 0, sizeof(*ts));
	ts->fd = -1;
	ts->buf = malloc(TS_BUF);
	if (!ts->buf) {
		snprintf(err, len, "no memory");
		goto out_fail;
	}
	ts->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (ts->fd < 0 || bind(ts->fd, (struct sockaddr *)&me, sizeof(me))) {
		snprintf(err, len, "generic netlink: %s", strerror(errno));
		goto out_fail;
	}
	/* records come in bursts (a VMM's threads end together): room for thousands; the forced size as root */
	if (setsockopt(ts->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(ts->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	errno = 0;
	if (ts_send(ts, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
		    sizeof(TASKSTATS_GENL_NAME)) || ts_reply(ts, &ts->family) || !ts->family) {
		snprintf(err, len, "the kernel has no taskstats (CONFIG_TASKSTATS): %s",
			 strerror(errno ? errno : ENOENT));
		goto out_fail;
	}
	if (cpus)
		strlcpy(mask, cpus, sizeof(mask));
	else
		ts_possible(mask, sizeof(mask));
	if (ts_send(ts, ts->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask,
		    strlen(mask) + 1) || ts_reply(ts, NULL)) {
		snprintf(err, len, "taskstats: registering for CPUs %s: %s%s", mask, strerror(errno),
			 errno == EPERM ? " (it takes CAP_NET_ADMIN)" :
			 errno == EINVAL ? " (only from the first PID namespace)" : "");
		goto out_fail;
	}
	if (fcntl(ts->fd, F_SETFL, fcntl(ts->fd, F_GETFL) | O_NONBLOCK)) {
		snprintf(err, len, "taskstats: %s", strerror(errno));
		goto out_fail;
	}
	return 0;
out_fail:
	taskstats_close(ts);
	return -1;
}

void taskstats_close(struct ts_sock *ts)
{
	if (ts->fd >= 0)
		close(ts->fd);
	ts->fd = -1;
	free(ts->buf);
	ts->buf = NULL;
}

/* The struct taskstats of len bytes into out, in plain units. */
static void ts_fill(struct ts_exit *out, const struct taskstats *t, size_t len)
{
	struct taskstats s;

	/* an older kernel's shorter struct: what it lacks reads as 0 */
	memset(&s, 0, sizeof(s));
	memcpy(&s, t, len < sizeof(s) ? len : sizeof(s));
	out->utime_us = s.ac_utime;
	out->stime_us = s.ac_stime;
	/* delay accounting off: no sched_info counted into the record (the run count is 0) */
	out->sched = s.cpu_count || s.cpu_run_virtual_total;
	out->run_ns = s.cpu_run_virtual_total;
	out->wait_ns = s.cpu_delay_total;
	out->majflt = s.ac_majflt;
	out->read_bytes = s.read_bytes;
	out->write_bytes = s.write_bytes;
	out->read_syscalls = s.read_syscalls;
	out->write_syscalls = s.write_syscalls;
	out->hiwater_rss = s.hiwater_rss * 1024;
	if (TS_HAS(len, ac_tgid) && s.ac_tgid)
		out->tgid = (int)s.ac_tgid;
	memcpy(out->comm, s.ac_comm, sizeof(out->comm) - 1);
	out->comm[sizeof(out->comm) - 1] = '\0';
}

/*
 * The nested attribute a (AGGR_PID or AGGR_TGID) of a message into out:
 * 1 where it held an id and stats, 0 where not, -1 when malformed.
 */
static int ts_aggr(const struct nlattr *a, struct ts_exit *out, bool tgid)
{
	size_t off = NLA_HDRLEN, end = a->nla_len;
	bool id = false, stats = false;

	while (off + NLA_HDRLEN <= end) {
		const struct nlattr *in = (const struct nlattr *)((const char *)a + off);
		const void *data = (const char *)in + NLA_HDRLEN;
		size_t dlen = in->nla_len - NLA_HDRLEN;
		uint32_t v;

		if (in->nla_len < NLA_HDRLEN || off + in->nla_len > end)
			return -1;
		switch (in->nla_type & NLA_TYPE_MASK) {
		case TASKSTATS_TYPE_PID:
		case TASKSTATS_TYPE_TGID:
			if (dlen < sizeof(v))
				return -1;
			memcpy(&v, data, sizeof(v));
			if (tgid)
				out->tgid = (int)v;
			else
				out->pid = (int)v;
			id = true;
			break;
		case TASKSTATS_TYPE_STATS:
			if (!tgid)
				ts_fill(out, data, dlen);
			stats = true;
			break;
		}
		off += NLA_ALIGN(in->nla_len);
	}
	return id && stats;
}

/* One message n of family into out: 1 where it was a thread's exit record, 0 where not, -1 when malformed. */
static int ts_message(const struct nlmsghdr *n, uint16_t family, struct ts_exit *out)
{
	size_t off = NLMSG_LENGTH(GENL_HDRLEN);
	struct ts_exit t;
	bool pid = false;

	if (n->nlmsg_type != family || n->nlmsg_len < off)
		return 0;
	memset(&t, 0, sizeof(t));
	while (off + NLA_HDRLEN <= n->nlmsg_len) {
		const struct nlattr *a = (const struct nlattr *)((const char *)n + off);
		int r = 0;

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > n->nlmsg_len)
			return -1;
		if ((a->nla_type & NLA_TYPE_MASK) == TASKSTATS_TYPE_AGGR_PID) {
			r = ts_aggr(a, &t, false);
			pid = pid || r > 0;
		} else if ((a->nla_type & NLA_TYPE_MASK) == TASKSTATS_TYPE_AGGR_TGID) {
			int keep = t.tgid;

			r = ts_aggr(a, &t, true);
			/* ac_tgid stands; the process's id is the one where the record is too old to hold it */
			if (keep)
				t.tgid = keep;
			t.group_dead = r > 0;
		}
		if (r < 0)
			return -1;
		off += NLA_ALIGN(a->nla_len);
	}
	if (!pid)
		return 0;
	*out = t;
	return 1;
}

ssize_t taskstats_parse(const void *buf, size_t len, uint16_t family, struct ts_exit *out, size_t max)
{
	const struct nlmsghdr *n = buf;
	size_t left = len, nr = 0;
	int r;

	while (left >= sizeof(*n) && nr < max) {
		if (n->nlmsg_len < sizeof(*n) || n->nlmsg_len > left)
			return -1;
		r = ts_message(n, family, &out[nr]);
		if (r < 0)
			return -1;
		nr += (size_t)r;
		if (NLMSG_ALIGN(n->nlmsg_len) >= left)
			break;
		left -= NLMSG_ALIGN(n->nlmsg_len);
		n = (const struct nlmsghdr *)((const char *)n + NLMSG_ALIGN(n->nlmsg_len));
	}
	return (ssize_t)nr;
}

size_t taskstats_drain(struct ts_sock *ts, struct ts_exit *out, size_t max)
{
	size_t nr = 0;
	ssize_t got, r;

	while (ts->fd >= 0 && nr < max) {
		got = recv(ts->fd, ts->buf, TS_BUF, MSG_DONTWAIT);
		if (got < 0 && errno == ENOBUFS) {
			/* the kernel dropped records: say how often; the socket reads on */
			ts->drops++;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		r = taskstats_parse(ts->buf, (size_t)got, ts->family, &out[nr], max - nr);
		if (r > 0) {
			nr += (size_t)r;
			ts->records += (uint64_t)r;
		}
	}
	return nr;
}
