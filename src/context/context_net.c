// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's network: the tap and macvtap interfaces its VMM holds open.  A
 * /dev/net/tun fd names its interface in its fdinfo ("iff:"); a macvtap's
 * /dev/tapN is the interface of ifindex N.  Their counters come from
 * /sys/class/net/IF/statistics, as the host's side of the interface
 * counts them (rx: what the guest sent), vhost-net's traffic included.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context_priv.h"
#include "model/model.h"

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

void ctx_net_taps(struct context *c, int pid, struct ctx_reading *r)
{
	char path[PATH_MAX + 32];
	struct net_taps t = { .n = 0 };
	struct dirent *de;
	DIR *d;

	r->nr_tap_rows = -1;
	snprintf(path, sizeof(path), "%s/%d/fd", c->proc, pid);
	d = opendir(path);
	if (!d)
		return;		/* nr_taps stays -1: not known */
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			net_fd(c, pid, de->d_name, &t);
	closedir(d);
	r->nr_taps = t.n;
	net_counters(c, &t, r);
}

void ctx_net_known(struct context *c, const struct vm_ctx *x, struct ctx_reading *r)
{
	struct net_taps t = { .n = 0, .cut = x->taps_cut };
	int k;

	r->nr_tap_rows = -1;
	for (k = 0; k < x->nr_tap_rows; k++)
		if (x->taps[k].held)
			memcpy(t.name[t.n++], x->taps[k].name, NET_IFNAMSIZ);
	if (t.n)
		net_counters(c, &t, r);
}
