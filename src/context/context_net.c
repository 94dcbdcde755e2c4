// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's network: the tap and macvtap interfaces its VMM holds open.  A
 * /dev/net/tun fd names its interface in its fdinfo ("iff:"); a macvtap's
 * /dev/tapN is the interface of ifindex N.  Their counters come from
 * /sys/class/net/IF/statistics, as the host's side of the interface
 * counts them (rx: what the guest sent), vhost-net's traffic included.
 *
 * Their births and ends come from rtnetlink (rtnl.c), read at each tick
 * of the live loop (its fd is in the loop's poll): the interfaces there
 * at the start are listed (a dump); a tap or macvtap made since is born,
 * its counters then kept, so its first reading counts from them; its
 * RTM_DELLINK's counters add what it grew after its last reading to its
 * VM's, in the snapshot it ended in.
 *
 * Whose a born tap is: its VMM's fds tell, and a tap can be born and end
 * between two readings.  kvmtop looks at once, at the drain that told of
 * the birth, through the fds of the VMs it knows (the loop wakes on the
 * message, so the tap is still held unless it lived a few ms), and keeps
 * the birth until an owner is found; a VM found later (its first reading)
 * finds it by name among its fds.  Looking at every process's fds at each
 * birth instead would cost a walk of /proc per tap, and a tap that ended
 * before its VM was known is the VM's before kvmtop knew the VM at all.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/tree.h>

#include "context_priv.h"
#include "rtnl.h"

/* sys/tree.h marks some functions __unused; glibc does not define it */
#ifndef __unused
#define __unused __attribute__((__unused__))
#endif

_Static_assert((int)RTNL_RXB == (int)CTX_TAP_RXB && (int)RTNL_TXB == (int)CTX_TAP_TXB &&
	       (int)RTNL_RXP == (int)CTX_TAP_RXP && (int)RTNL_TXP == (int)CTX_TAP_TXP &&
	       (int)RTNL_DROPS == (int)CTX_TAP_DROPS && (int)RTNL_CTR_NR == (int)CTX_TAP_NR &&
	       RTNL_IFNAMSIZ == CTX_IFNAMSIZ, "rtnetlink's counters are the taps', in order");

#define NET_MAX_TAPS	CTX_TAPS	/* interfaces counted per VM; more are left out */
#define NET_IFNAMSIZ	CTX_IFNAMSIZ

struct net_taps {
	char name[NET_MAX_TAPS][NET_IFNAMSIZ];
	int n;
	bool cut;	/* more than NET_MAX_TAPS */
};

/* Add interface name to t once (multiqueue taps open it once per queue). */
static void net_add(struct net_taps *t, const char *name, size_t len)
{
	int i;

	if (!len || len >= NET_IFNAMSIZ || memchr(name, '/', len))
		return;
	for (i = 0; i < t->n; i++)
		if (!strncmp(t->name[i], name, len) && !t->name[i][len])
			return;
	if (t->n >= NET_MAX_TAPS) {
		t->cut = true;
		return;
	}
	memcpy(t->name[t->n], name, len);
	t->name[t->n++][len] = '\0';
}

/* The interface of ifindex idx (a macvtap's /dev/tapN) into t. */
static void net_by_index(struct context *c, struct net_taps *t, long idx)
{
	char path[PATH_MAX + 32];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/class/net", c->sys);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    ctx_file_read(c, "%s/class/net/%s/ifindex", c->sys, de->d_name) > 0 &&
		    atol(c->buf) == idx) {
			net_add(t, de->d_name, strlen(de->d_name));
			break;
		}
	closedir(d);
}

/* The interface fd of VM pid is for, if a tap, into t. */
static void net_fd(struct context *c, int pid, const char *fd, struct net_taps *t)
{
	char path[PATH_MAX + 320], target[64];
	const char *p;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/fd/%s", c->proc, pid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	if (!strncmp(target, "/dev/tap", 8) && target[8] >= '0' && target[8] <= '9') {
		net_by_index(c, t, atol(target + 8));
		return;
	}
	if (strcmp(target, "/dev/net/tun") ||
	    ctx_file_read(c, "%s/%d/fdinfo/%s", c->proc, pid, fd) <= 0)
		return;
	p = strstr(c->buf, "iff:");
	if (!p)
		return;
	p += 4;
	while (*p == ' ' || *p == '\t')
		p++;
	net_add(t, p, strcspn(p, "\n"));
}

/*
 * The counters of interfaces t into r, one by one and summed (the VM's
 * figures): none where one cannot be read (an interface gone mid-read).
 */
static void net_counters(struct context *c, const struct net_taps *t, struct ctx_reading *r)
{
	static const struct { const char *file; enum vm_ctx_fig f; enum ctx_tap_ctr t; } stats[] = {
		{ "rx_bytes", CTX_RX_BPS, CTX_TAP_RXB }, { "tx_bytes", CTX_TX_BPS, CTX_TAP_TXB },
		{ "rx_packets", CTX_RX_PPS, CTX_TAP_RXP }, { "tx_packets", CTX_TX_PPS, CTX_TAP_TXP },
		{ "rx_dropped", CTX_DROPS, CTX_TAP_DROPS }, { "tx_dropped", CTX_DROPS, CTX_TAP_DROPS },
	};
	double sum[CTX_NR] = { 0 };
	unsigned int i;
	int k;

	r->nr_tap_rows = -1;
	r->taps_cut = t->cut;
	for (k = 0; k < t->n; k++) {
		memcpy(r->tap[k], t->name[k], CTX_IFNAMSIZ);
		memset(r->tap_ctr[k], 0, sizeof(r->tap_ctr[k]));
		for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
			uint64_t v;

			if (ctx_file_read(c, "%s/class/net/%s/statistics/%s", c->sys, t->name[k],
					  stats[i].file) <= 0)
				return;	/* an interface gone mid-read: its counters unknown */
			v = strtoull(c->buf, NULL, 10);
			sum[stats[i].f] += (double)v;
			r->tap_ctr[k][stats[i].t] += v;
		}
	}
	r->nr_tap_rows = t->n;
	if (!t->n)
		return;		/* no tap: no network figures, not zeros */
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		ctx_set(r, stats[i].f, sum[stats[i].f]);
}

/* The taps VM pid holds now (its fds) into t: false where its fds cannot be read. */
static bool net_scan(struct context *c, int pid, struct net_taps *t)
{
	char path[PATH_MAX + 32];
	struct dirent *de;
	DIR *d;

	t->n = 0;
	t->cut = false;
	snprintf(path, sizeof(path), "%s/%d/fd", c->proc, pid);
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			net_fd(c, pid, de->d_name, t);
	closedir(d);
	return true;
}

static void net_mark(struct context *c, int pid, struct ctx_reading *r);

void ctx_net_taps(struct context *c, int pid, struct ctx_reading *r)
{
	struct net_taps t;

	r->nr_tap_rows = -1;
	if (!net_scan(c, pid, &t))
		return;		/* nr_taps stays -1: not known */
	r->nr_taps = t.n;
	net_counters(c, &t, r);
	net_mark(c, pid, r);
}

void ctx_net_known(struct context *c, const char (*name)[CTX_IFNAMSIZ], int nr, bool cut, struct ctx_reading *r)
{
	struct net_taps t = { .n = 0, .cut = cut };
	int k;

	r->nr_tap_rows = -1;
	for (k = 0; k < nr && t.n < CTX_TAPS; k++)
		memcpy(t.name[t.n++], name[k], NET_IFNAMSIZ);
	if (t.n)
		net_counters(c, &t, r);
}

/*
 * A tap or macvtap interface rtnetlink told of, by ifindex and by name.
 * born: made while kvmtop watched, at_birth its counters then; owner: the
 * VMM that holds it (0: none known yet).
 */
struct net_link {
	RB_ENTRY(net_link) by_index;
	RB_ENTRY(net_link) by_name;
	int ifindex;
	char name[CTX_IFNAMSIZ];
	bool born;
	bool listed;		/* in the dump read after an overrun */
	int owner;
	uint64_t at_birth[CTX_TAP_NR];
};

static int link_index_cmp(const struct net_link *a, const struct net_link *b)
{
	return a->ifindex < b->ifindex ? -1 : a->ifindex > b->ifindex;
}

static int link_name_cmp(const struct net_link *a, const struct net_link *b)
{
	return strcmp(a->name, b->name);
}

RB_HEAD(link_index, net_link);
RB_HEAD(link_name, net_link);
RB_GENERATE_STATIC(link_index, net_link, by_index, link_index_cmp)
RB_GENERATE_STATIC(link_name, net_link, by_name, link_name_cmp)

struct ctx_net {
	struct rtnl rtnl;
	struct link_index by_index;
	struct link_name by_name;
	bool watching;		/* the start's dump was read: a link new to it is born */
	bool look;		/* births with no owner: the known VMs' fds are looked at */
	bool resync;		/* the socket overran: the links are listed anew */
	ctx_tap_end_fn end;	/* during a drain: whom an end is told */
	void *end_ctx;
	uint64_t said_overruns;	/* what the user was told (context_net_news) */
	bool said_open;
};

/* The link called name, NULL: none. */
static struct net_link *net_link_named(struct ctx_net *n, const char *name)
{
	struct net_link key;

	strlcpy(key.name, name, sizeof(key.name));
	return RB_FIND(link_name, &n->by_name, &key);
}

static void net_link_drop(struct ctx_net *n, struct net_link *l)
{
	RB_REMOVE(link_index, &n->by_index, l);
	RB_REMOVE(link_name, &n->by_name, l);
	free(l);
}

/* Link l called name now (made, or renamed): a link of that name before it was let go. */
static void net_link_name(struct ctx_net *n, struct net_link *l, const char *name)
{
	struct net_link *old;

	if (l->name[0] && !strcmp(l->name, name))
		return;
	if (l->name[0])
		RB_REMOVE(link_name, &n->by_name, l);
	strlcpy(l->name, name, sizeof(l->name));
	old = RB_INSERT(link_name, &n->by_name, l);
	if (old) {
		/* its RTM_DELLINK lost: gone all the same */
		net_link_drop(n, old);
		RB_INSERT(link_name, &n->by_name, l);
	}
}

/* Link ifindex l->ifindex called name: found, or added (NULL: no memory). */
static struct net_link *net_link_add(struct ctx_net *n, const struct rtnl_link *rl)
{
	struct net_link key = { .ifindex = rl->ifindex }, *l;

	l = RB_FIND(link_index, &n->by_index, &key);
	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->ifindex = rl->ifindex;
	RB_INSERT(link_index, &n->by_index, l);
	net_link_name(n, l, rl->name);
	/* made while kvmtop watched: its counters then (0, unless frames came before the message) */
	l->born = n->watching && !n->resync;
	if (l->born && rl->has_ctr)
		memcpy(l->at_birth, rl->ctr, sizeof(l->at_birth));
	n->look = n->look || l->born;
	return l;
}

/* Link l ended with rl's counters (NULL: unseen): told to its VMM's, where known; let go. */
static void net_link_end(struct ctx_net *n, struct net_link *l, const struct rtnl_link *rl)
{
	if (l->owner > 0)
		n->end(n->end_ctx, l->owner, l->name, rl && rl->has_ctr ? rl->ctr : NULL,
		       l->born ? l->at_birth : NULL);
	net_link_drop(n, l);
}

/* One message of rtnetlink (ctx: the struct ctx_net). */
static void net_link_told(void *ctx, const struct rtnl_link *rl)
{
	struct net_link key = { .ifindex = rl->ifindex }, *l;
	struct ctx_net *n = ctx;

	l = RB_FIND(link_index, &n->by_index, &key);
	if (rl->del) {
		if (l)
			net_link_end(n, l, rl);
		return;
	}
	/* a tap is of kind "tun"; a macvtap "macvtap": no other holds a VM's network */
	if (!l && strcmp(rl->kind, "tun") && strcmp(rl->kind, "macvtap"))
		return;
	if (!l && !rl->name[0])
		return;
	l = l ? l : net_link_add(n, rl);
	if (!l)
		return;
	if (rl->name[0])
		net_link_name(n, l, rl->name);
	l->listed = true;
}

/*
 * The socket overran: births and ends were lost.  The links are listed
 * anew: one not listed ended unseen (its VM's tap loses its last part,
 * and says so); one new to the list was born unseen (counted from its
 * first reading, as found).
 */
static void net_resync(struct ctx_net *n)
{
	struct net_link *l, *next;

	RB_FOREACH(l, link_index, &n->by_index)
		l->listed = false;
	n->resync = true;
	if (rtnl_dump(net_link_told, n) < 0) {
		/* no list: nothing is dropped, what the next messages say stands */
		n->resync = false;
		return;
	}
	n->resync = false;
	for (l = RB_MIN(link_index, &n->by_index); l; l = next) {
		next = RB_NEXT(link_index, &n->by_index, l);
		if (!l->listed)
			net_link_end(n, l, NULL);
	}
}

void ctx_net_claim(struct context *c, int pid)
{
	struct ctx_net *n = c->net;
	struct net_taps t;
	int k;

	if (!n || !net_scan(c, pid, &t))
		return;
	for (k = 0; k < t.n; k++) {
		struct net_link *l = net_link_named(n, t.name[k]);

		if (l && !l->owner)
			l->owner = pid;
	}
}

/* Are there taps born with no VMM known? */
static bool net_unclaimed(struct ctx_net *n)
{
	struct net_link *l;

	RB_FOREACH(l, link_index, &n->by_index)
		if (l->born && !l->owner)
			return true;
	return false;
}

/* rtnetlink opened and the links there now listed: c->net, NULL (no memory). */
static struct ctx_net *net_open(struct context *c)
{
	struct ctx_net *n = calloc(1, sizeof(*n));
	int ret;

	if (!n)
		return NULL;
	RB_INIT(&n->by_index);
	RB_INIT(&n->by_name);
	n->rtnl.fd = -1;
	c->net = n;
	/* subscribed before the list is read: a birth meanwhile is in one or the other */
	if (rtnl_open(&n->rtnl))
		return n;
	ret = rtnl_dump(net_link_told, n);
	if (ret < 0) {
		rtnl_close(&n->rtnl);
		n->rtnl.open_errno = -ret;
	}
	n->watching = true;
	return n;
}

bool ctx_net_links(struct context *c, bool at_start, ctx_tap_end_fn fn, void *ctx)
{
	struct ctx_net *n = c->net;
	int tries;

	if (!n && at_start)
		n = net_open(c);
	if (!n || n->rtnl.fd < 0)
		return false;
	n->end = fn;
	n->end_ctx = ctx;
	n->look = false;
	for (tries = 0; tries < 4; tries++) {
		int ret = rtnl_drain(&n->rtnl, net_link_told, n);

		if (ret >= 0 || ret == -EBADF)
			break;
		/* ENOBUFS (counted), or a message not understood: what was lost is not known */
		net_resync(n);
	}
	return n->look && net_unclaimed(n);
}

/* The taps of reading r of VM pid: each born while kvmtop watched, its counters then; owned by pid. */
static void net_mark(struct context *c, int pid, struct ctx_reading *r)
{
	struct ctx_net *n = c->net;
	int k;

	r->ends_unseen = !n || n->rtnl.fd < 0;
	if (r->ends_unseen)
		return;
	for (k = 0; k < r->nr_tap_rows; k++) {
		struct net_link *l = net_link_named(n, r->tap[k]);

		if (!l)
			continue;
		l->owner = pid;
		r->tap_born[k] = l->born;
		memcpy(r->tap_birth[k], l->at_birth, sizeof(r->tap_birth[k]));
	}
}

void ctx_net_free(struct context *c)
{
	struct ctx_net *n = c->net;
	struct net_link *l;

	if (!n)
		return;
	while ((l = RB_MIN(link_index, &n->by_index)))
		net_link_drop(n, l);
	rtnl_close(&n->rtnl);
	free(n);
	c->net = NULL;
}

int context_fd(const struct context *c)
{
	return c->net ? c->net->rtnl.fd : -1;
}

bool context_net_news(struct context *c, char *msg, size_t len)
{
	struct ctx_net *n = c->net;

	if (!n)
		return false;
	if (n->rtnl.fd < 0 && !n->said_open) {
		n->said_open = true;
		snprintf(msg, len, "cannot read rtnetlink (%s): the taps' births and ends are not seen; "
			 "a tap counts from its first reading (counted_from \"found\"), one let go loses its last part",
			 strerror(n->rtnl.open_errno));
		return true;
	}
	if (n->rtnl.overruns <= n->said_overruns)
		return false;
	n->said_overruns = n->rtnl.overruns;
	snprintf(msg, len, "rtnetlink overran (%llu times in all): taps born or ended then are marked",
		 (unsigned long long)n->rtnl.overruns);
	return true;
}
