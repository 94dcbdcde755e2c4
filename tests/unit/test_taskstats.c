// SPDX-License-Identifier: GPL-2.0
/*
 * The taskstats reader (src/ident/taskstats.c): datagrams built here as
 * the kernel lays them out (one thread's record; a last thread's with its
 * process's; an older kernel's shorter struct; malformed lengths), and,
 * where the kernel lets this test register (CAP_NET_ADMIN, CONFIG_TASKSTATS),
 * a child's real exit record against what the child measured of itself:
 * its own CPU clock, its major faults and read calls (getrusage, its
 * own /proc/self/io).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <cmocka.h>

#include "ident/taskstats.h"

#define FAMILY	0x1c

struct dgram {
	char b[4096];
	size_t len;	/* the messages before the one being built */
	size_t msg;	/* the message being built's offset */
};

/* Start a message of type at d's end. */
static void msg_begin(struct dgram *d, uint16_t type)
{
	struct nlmsghdr *n = (struct nlmsghdr *)(d->b + d->len);
	struct genlmsghdr *g = (struct genlmsghdr *)NLMSG_DATA(n);

	memset(n, 0, NLMSG_LENGTH(GENL_HDRLEN));
	n->nlmsg_type = type;
	n->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	g->cmd = TASKSTATS_CMD_NEW;
	d->msg = d->len;
}

/* An attribute of type with len bytes of data (NULL: a nest to be filled) into the message; its offset. */
static size_t attr(struct dgram *d, uint16_t type, const void *data, size_t len)
{
	struct nlmsghdr *n = (struct nlmsghdr *)(d->b + d->msg);
	size_t at = d->msg + NLMSG_ALIGN(n->nlmsg_len);
	struct nlattr *a = (struct nlattr *)(d->b + at);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (data)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	n->nlmsg_len = (uint32_t)(at - d->msg + NLA_ALIGN(a->nla_len));
	return at;
}

/* A nest (AGGR_PID or AGGR_TGID) holding id and the first len bytes of st. */
static void aggr(struct dgram *d, uint16_t type, uint16_t id_type, uint32_t id, const struct taskstats *st, size_t len)
{
	size_t at = attr(d, type, NULL, 0);
	struct nlattr *nest = (struct nlattr *)(d->b + at);

	attr(d, id_type, &id, sizeof(id));
	attr(d, TASKSTATS_TYPE_STATS, st, len);
	nest->nla_len = (uint16_t)(((struct nlmsghdr *)(d->b + d->msg))->nlmsg_len - (at - d->msg));
}

static void msg_end(struct dgram *d)
{
	d->len += NLMSG_ALIGN(((struct nlmsghdr *)(d->b + d->msg))->nlmsg_len);
}

static struct taskstats stats(uint32_t tgid)
{
	struct taskstats s;

	memset(&s, 0, sizeof(s));
	s.version = TASKSTATS_VERSION;
	s.ac_utime = 1500;
	s.ac_stime = 250;
	s.cpu_count = 7;
	s.cpu_run_virtual_total = 1750123;
	s.cpu_delay_total = 4321;
	s.ac_majflt = 12;
	s.read_bytes = 64 << 20;
	s.write_bytes = 8192;
	s.read_syscalls = 33;
	s.write_syscalls = 2;
	s.hiwater_rss = 5000;
	s.ac_tgid = tgid;
	strcpy(s.ac_comm, "vcpu-io");
	return s;
}

/* One thread's record, then a last thread's with its process's: both read, the second marked. */
static void test_parse_records(void **state)
{
	struct taskstats s = stats(100), g;
	struct ts_exit out[4];
	struct dgram d = { .len = 0 };

	(void)state;
	msg_begin(&d, FAMILY);
	aggr(&d, TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_PID, 101, &s, sizeof(s));
	msg_end(&d);
	/* a message of another family between: left out */
	msg_begin(&d, FAMILY + 1);
	aggr(&d, TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_PID, 555, &s, sizeof(s));
	msg_end(&d);
	msg_begin(&d, FAMILY);
	s.ac_majflt = 0;
	aggr(&d, TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_PID, 100, &s, sizeof(s));
	memset(&g, 0, sizeof(g));
	aggr(&d, TASKSTATS_TYPE_AGGR_TGID, TASKSTATS_TYPE_TGID, 100, &g, sizeof(g));
	msg_end(&d);
	assert_int_equal(taskstats_parse(d.b, d.len, FAMILY, out, 4), 2);
	assert_int_equal(out[0].pid, 101);
	assert_int_equal(out[0].tgid, 100);
	assert_false(out[0].group_dead);
	assert_true(out[0].sched);
	assert_int_equal(out[0].run_ns, 1750123);
	assert_int_equal(out[0].wait_ns, 4321);
	assert_int_equal(out[0].utime_us, 1500);
	assert_int_equal(out[0].stime_us, 250);
	assert_int_equal(out[0].majflt, 12);
	assert_int_equal(out[0].read_bytes, 64 << 20);
	assert_int_equal(out[0].write_bytes, 8192);
	assert_int_equal(out[0].read_syscalls, 33);
	assert_int_equal(out[0].write_syscalls, 2);
	assert_int_equal(out[0].hiwater_rss, 5000 * 1024);
	assert_string_equal(out[0].comm, "vcpu-io");
	assert_int_equal(out[1].pid, 100);
	assert_true(out[1].group_dead);
	assert_int_equal(out[1].majflt, 0);
	/* room for one: one */
	assert_int_equal(taskstats_parse(d.b, d.len, FAMILY, out, 1), 1);
}

/* A kernel before ac_tgid (version 9's struct ends before it): the process's id from AGGR_TGID, or none. */
static void test_parse_old(void **state)
{
	struct taskstats s = stats(0), g;
	size_t old = offsetof(struct taskstats, ac_tgid);
	struct ts_exit out[2];
	struct dgram d = { .len = 0 };

	(void)state;
	s.cpu_count = 0;
	s.cpu_run_virtual_total = 0;
	s.cpu_delay_total = 0;
	memset(&g, 0, sizeof(g));
	msg_begin(&d, FAMILY);
	aggr(&d, TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_PID, 201, &s, old);
	aggr(&d, TASKSTATS_TYPE_AGGR_TGID, TASKSTATS_TYPE_TGID, 200, &g, old);
	msg_end(&d);
	msg_begin(&d, FAMILY);
	aggr(&d, TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_PID, 202, &s, old);
	msg_end(&d);
	assert_int_equal(taskstats_parse(d.b, d.len, FAMILY, out, 2), 2);
	assert_int_equal(out[0].pid, 201);
	assert_int_equal(out[0].tgid, 200);
	/* delay accounting off: no sched figures, never zeros read as figures */
	assert_false(out[0].sched);
	assert_int_equal(out[1].tgid, 0);
	assert_int_equal(out[1].read_bytes, 64 << 20);
}

/* Lengths past the datagram's or the message's end: malformed, never read past. */
static void test_parse_malformed(void **state)
{
	struct taskstats s = stats(100);
	struct ts_exit out[2];
	struct dgram d = { .len = 0 };
	struct nlattr *a;

	(void)state;
	msg_begin(&d, FAMILY);
	aggr(&d, TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_PID, 101, &s, sizeof(s));
	msg_end(&d);
	assert_int_equal(taskstats_parse(d.b, d.len - 8, FAMILY, out, 2), -1);
	a = (struct nlattr *)(d.b + NLMSG_LENGTH(GENL_HDRLEN));
	a->nla_len = 0xfff0;
	assert_int_equal(taskstats_parse(d.b, d.len, FAMILY, out, 2), -1);
	a->nla_len = 2;
	assert_int_equal(taskstats_parse(d.b, d.len, FAMILY, out, 2), -1);
	assert_int_equal(taskstats_parse(d.b, 3, FAMILY, out, 2), 0);
}

/* The child: burn CPU, read its own io, print its CPU clock (ns), read_bytes and syscr, end. */
static void child(int fd)
{
	struct timespec t;
	char buf[4096];
	volatile uint64_t x = 0;
	unsigned long long rb = 0, cr = 0;
	FILE *f;
	long i;

	for (i = 0; i < 30000000; i++)
		x += (uint64_t)i;
	f = fopen("/proc/self/io", "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		sscanf(buf, "read_bytes: %llu", &rb);
		sscanf(buf, "syscr: %llu", &cr);
	}
	if (f)
		fclose(f);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	/* the dprintf's write and the fclose come after the reading: syscr stands */
	dprintf(fd, "%llu %llu %llu\n", (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec,
		rb, cr);
	_exit(0);
}

/* A real child's record: its pid, its read calls and, with delay accounting, its CPU to the end. */
static void test_live(void **state)
{
	unsigned long long cpu = 0, rb = 0, cr = 0;
	struct ts_sock ts;
	struct ts_exit out[64];
	char err[256], line[128];
	int p[2], tries;
	size_t n, i;
	bool found = false;
	pid_t pid;
	FILE *f;

	(void)state;
	if (taskstats_open(&ts, NULL, err, sizeof(err))) {
		printf("# SKIP live: %s\n", err);
		skip();
	}
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		child(p[1]);
	close(p[1]);
	f = fdopen(p[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(sscanf(line, "%llu %llu %llu", &cpu, &rb, &cr), 3);
	fclose(f);
	waitpid(pid, NULL, 0);
	for (tries = 0; tries < 50 && !found; tries++) {
		n = taskstats_drain(&ts, out, 64);
		for (i = 0; i < n; i++) {
			if (out[i].pid != pid)
				continue;
			found = true;
			assert_int_equal(out[i].tgid, pid);
			assert_true(out[i].group_dead || out[i].tgid == pid);
			assert_true(out[i].read_syscalls >= cr);
			assert_true(out[i].read_bytes >= rb);
			/* the CPU clock read before its last calls: the record's run is at least that */
			if (out[i].sched)
				assert_true(out[i].run_ns >= cpu);
			printf("# child %d: cpu clock %llu ns, record run %llu ns (sched %d), utime+stime %llu us\n",
			       pid, cpu, (unsigned long long)out[i].run_ns, out[i].sched,
			       (unsigned long long)(out[i].utime_us + out[i].stime_us));
		}
		if (!found)
			poll(NULL, 0, 20);
	}
	assert_true(found);
	taskstats_close(&ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_records),
		cmocka_unit_test(test_parse_old),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
