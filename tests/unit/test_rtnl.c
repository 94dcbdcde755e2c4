// SPDX-License-Identifier: GPL-2.0
/*
 * The rtnetlink reader (src/context/rtnl.c): messages built here parse to
 * what they say (name, kind, counters, a dump's end, an error, a cut
 * message); live, as root with /dev/net/tun, a tap made and ended here is
 * told as born with zero counters and as ended with the frames written
 * into it (the kernel's own counters, read from sysfs before the end).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <cmocka.h>

#include "src/context/rtnl.h"

struct seen {
	struct rtnl_link l[64];
	int n;
};

static void keep(void *ctx, const struct rtnl_link *l)
{
	struct seen *s = ctx;

	if (s->n < 64)
		s->l[s->n++] = *l;
}

/* An attribute of type t, n bytes of data, at p: where the next goes. */
static unsigned char *put_attr(unsigned char *p, unsigned short t, const void *data, size_t n)
{
	struct rtattr *a = (struct rtattr *)p;

	a->rta_type = t;
	a->rta_len = RTA_LENGTH(n);
	memcpy(RTA_DATA(a), data, n);
	return p + RTA_ALIGN(a->rta_len);
}

/* A link message of type (RTM_NEWLINK, RTM_DELLINK) into buf: its length. */
static size_t link_msg(unsigned char *buf, unsigned short type, int idx, const char *name, const char *kind,
		       const struct rtnl_link_stats64 *st)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	unsigned char *p = (unsigned char *)IFLA_RTA(ifi), *nest;

	memset(buf, 0, 1024);
	h->nlmsg_type = type;
	ifi->ifi_index = idx;
	p = put_attr(p, IFLA_MTU, &(unsigned int){ 1500 }, 4);
	p = put_attr(p, IFLA_IFNAME, name, strlen(name) + 1);
	if (st)
		p = put_attr(p, IFLA_STATS64, st, sizeof(*st));
	if (kind) {
		nest = p;
		p = put_attr(p, IFLA_LINKINFO, "", 0);
		p = put_attr(p, IFLA_INFO_KIND, kind, strlen(kind) + 1);
		((struct rtattr *)nest)->rta_len = (unsigned short)(p - nest);
	}
	h->nlmsg_len = (unsigned int)(p - buf);
	return NLMSG_ALIGN(h->nlmsg_len);
}

static void test_parse(void **state)
{
	static unsigned char buf[8192] __attribute__((aligned(8)));
	struct rtnl_link_stats64 st = { .rx_packets = 7, .tx_packets = 3, .rx_bytes = 7000, .tx_bytes = 180,
					.rx_dropped = 2, .tx_dropped = 1 };
	struct seen s = { .n = 0 };
	struct nlmsghdr *done;
	size_t n;

	(void)state;
	n = link_msg(buf, RTM_NEWLINK, 12, "vnet3", "tun", NULL);
	n += link_msg(buf + n, RTM_DELLINK, 12, "vnet3", "tun", &st);
	n += link_msg(buf + n, RTM_NEWLINK, 13, "a-very-long-interface-name", NULL, &st);
	assert_int_equal(rtnl_parse(buf, n, keep, &s), 0);
	assert_int_equal(s.n, 3);
	assert_false(s.l[0].del);
	assert_int_equal(s.l[0].ifindex, 12);
	assert_string_equal(s.l[0].name, "vnet3");
	assert_string_equal(s.l[0].kind, "tun");
	assert_false(s.l[0].has_ctr);
	assert_true(s.l[1].del);
	assert_true(s.l[1].has_ctr);
	assert_int_equal(s.l[1].ctr[RTNL_RXB], 7000);
	assert_int_equal(s.l[1].ctr[RTNL_TXB], 180);
	assert_int_equal(s.l[1].ctr[RTNL_RXP], 7);
	assert_int_equal(s.l[1].ctr[RTNL_TXP], 3);
	assert_int_equal(s.l[1].ctr[RTNL_DROPS], 3);
	/* a name longer than IFNAMSIZ is cut, never overflows; no linkinfo: no kind */
	assert_int_equal(strlen(s.l[2].name), RTNL_IFNAMSIZ - 1);
	assert_string_equal(s.l[2].kind, "");

	/* a dump's end */
	done = (struct nlmsghdr *)(buf + n);
	memset(done, 0, NLMSG_LENGTH(4));
	done->nlmsg_type = NLMSG_DONE;
	done->nlmsg_len = NLMSG_LENGTH(4);
	s.n = 0;
	assert_int_equal(rtnl_parse(buf, n + NLMSG_ALIGN(done->nlmsg_len), keep, &s), 1);
	assert_int_equal(s.n, 3);

	/* a message cut short: those before it told, then -EBADMSG */
	s.n = 0;
	assert_int_equal(rtnl_parse(buf, n - 7, keep, &s), -EBADMSG);
	assert_int_equal(s.n, 2);

	/* an error */
	{
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		struct nlmsgerr *e = NLMSG_DATA(h);

		memset(buf, 0, 256);
		h->nlmsg_type = NLMSG_ERROR;
		h->nlmsg_len = NLMSG_LENGTH(sizeof(*e));
		e->error = -EPERM;
		assert_int_equal(rtnl_parse(buf, h->nlmsg_len, keep, &s), -EPERM);
	}
}

/* The tap called name in s: its last birth (del false) or end (del true), NULL: none. */
static const struct rtnl_link *find(const struct seen *s, const char *name, bool del)
{
	const struct rtnl_link *l = NULL;
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->l[i].name, name) && s->l[i].del == del && (del || !l))
			l = &s->l[i];
	return l;
}

static unsigned long long sysfs_ctr(const char *name, const char *file)
{
	char path[128];
	unsigned long long v = ~0ull;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", name, file);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = ~0ull;
		fclose(f);
	}
	return v;
}

/* Interface name up (a tap that is down takes no frames). */
static void link_up(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	assert_int_equal(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
	close(s);
}

static void test_live(void **state)
{
	struct rtnl r = { .fd = -1 };
	struct seen s = { .n = 0 }, dump = { .n = 0 };
	struct ifreq ifr;
	char frame[300] = { 0x02 };
	unsigned long long rxp, rxb;
	const struct rtnl_link *born, *end;
	int fd, i;

	(void)state;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0 || rtnl_open(&r)) {
		if (fd >= 0)
			close(fd);
		print_message("SKIP live: needs /dev/net/tun (root) and a NETLINK_ROUTE socket\n");
		skip();
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "kvrtnl%d", (int)(getpid() % 10000));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	assert_int_equal(ioctl(fd, TUNSETIFF, &ifr), 0);
	link_up(ifr.ifr_name);
	/* the dump has it, with its ifindex */
	assert_int_equal(rtnl_dump(keep, &dump), 0);
	assert_non_null(find(&dump, ifr.ifr_name, false));
	for (i = 0; i < 25; i++)
		assert_int_equal(write(fd, frame, sizeof(frame)), (ssize_t)sizeof(frame));
	rxp = sysfs_ctr(ifr.ifr_name, "rx_packets");
	rxb = sysfs_ctr(ifr.ifr_name, "rx_bytes");
	close(fd);		/* not persistent: it ends */
	assert_true(rtnl_drain(&r, keep, &s) > 0);
	born = find(&s, ifr.ifr_name, false);
	end = find(&s, ifr.ifr_name, true);
	assert_non_null(born);
	assert_non_null(end);
	assert_int_equal(born->ifindex, find(&dump, ifr.ifr_name, false)->ifindex);
	assert_int_equal(end->ifindex, born->ifindex);
	assert_string_equal(born->kind, "tun");
	assert_true(born->has_ctr && end->has_ctr);
	assert_int_equal(born->ctr[RTNL_RXP], 0);
	assert_int_equal(born->ctr[RTNL_RXB], 0);
	/* the oracle: what the test wrote, and the kernel's sysfs counters before the end */
	assert_int_equal(rxp, 25);
	assert_int_equal(rxb, 25 * sizeof(frame));
	assert_int_equal(end->ctr[RTNL_RXP], rxp);
	assert_int_equal(end->ctr[RTNL_RXB], rxb);
	/* nothing more now */
	assert_int_equal(rtnl_drain(&r, keep, &s), 0);
	rtnl_close(&r);
	assert_int_equal(rtnl_drain(&r, keep, &s), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
