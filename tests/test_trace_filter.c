// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel event filters that keep live sched events to the vCPU
 * threads (trace_pid_filter, trace_sched_threads): written as runs of
 * thread ids, refused past the kernel's length, accepted by libtracefs's
 * own filter parser, and applied by the running kernel: in a scratch
 * instance, the switches of one thread of a ping-pong pair are traced, in
 * and out, and those of its partner alone and of another pair are not.
 * The tracefs parts need root and
 * tracefs with the sched events; they skip, saying why, without them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include <tracefs.h>

#include "trace.h"

static void test_runs(void **state)
{
	static const int tids[] = { 7, 100, 101, 102, 103, 200 };
	char buf[256];

	(void)state;
	assert_int_equal(trace_pid_filter(tids, 0, "prev_pid", "next_pid", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "prev_pid<0");
	assert_int_equal(trace_pid_filter(tids, 6, "pid", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pid==7||(pid>=100&&pid<=103)||pid==200");
	assert_int_equal(trace_pid_filter(tids + 1, 4, "prev_pid", "next_pid", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "(prev_pid>=100&&prev_pid<=103)||(next_pid>=100&&next_pid<=103)");
}

static void test_too_long(void **state)
{
	char buf[TRACE_FILTER_MAX + 1];
	int tids[1000], i;

	(void)state;
	/* 1000 threads none of which follows another: no run to merge */
	for (i = 0; i < 1000; i++)
		tids[i] = 1000 + 2 * i;
	assert_int_equal(trace_pid_filter(tids, 1000, "prev_pid", "next_pid", buf, sizeof(buf)), -1);
	/* the same count in one run fits */
	for (i = 0; i < 1000; i++)
		tids[i] = 1000 + i;
	assert_int_equal(trace_pid_filter(tids, 1000, "prev_pid", "next_pid", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "(prev_pid>=1000&&prev_pid<=1999)||(next_pid>=1000&&next_pid<=1999)");
}

/* --- on the running kernel --- */

static struct tep_handle *sched_formats(void)
{
	const char *sys[] = { "sched", NULL };

	if (geteuid() || !tracefs_tracing_dir())
		return NULL;
	return tracefs_local_events_system(NULL, sys);
}

static void test_libtracefs_parses(void **state)
{
	static const int tids[] = { 7, 100, 101, 102, 103, 200 };
	struct tep_handle *tep = sched_formats();
	struct tep_event *sw, *wk;
	char buf[512], *err = NULL;

	(void)state;
	if (!tep) {
		print_message("SKIP: needs root and tracefs with the sched events\n");
		skip();
	}
	sw = tep_find_event_by_name(tep, "sched", "sched_switch");
	wk = tep_find_event_by_name(tep, "sched", "sched_waking");
	assert_non_null(sw);
	assert_non_null(wk);
	assert_int_equal(trace_pid_filter(tids, 6, "prev_pid", "next_pid", buf, sizeof(buf)), 0);
	assert_int_equal(tracefs_filter_string_verify(sw, buf, &err), 0);
	free(err);
	err = NULL;
	assert_int_equal(trace_pid_filter(tids, 0, "pid", NULL, buf, sizeof(buf)), 0);
	assert_int_equal(tracefs_filter_string_verify(wk, buf, &err), 0);
	free(err);
	tep_free(tep);
}

struct pingpong {
	int to[2], from[2];
	int tid[2];
	volatile int stop;
};

static void *pong(void *arg)
{
	struct pingpong *p = arg;
	char c;

	p->tid[1] = (int)syscall(SYS_gettid);
	while (read(p->to[0], &c, 1) == 1 && c)
		if (write(p->from[1], &c, 1) != 1)
			break;
	return NULL;
}

static void *ping(void *arg)
{
	struct pingpong *p = arg;
	char c = 1;

	p->tid[0] = (int)syscall(SYS_gettid);
	while (!p->stop)
		if (write(p->to[1], &c, 1) != 1 || read(p->from[0], &c, 1) != 1)
			break;
	c = 0;
	if (write(p->to[1], &c, 1) != 1)
		return NULL;
	return NULL;
}

static int start_pair(struct pingpong *p, pthread_t th[2])
{
	memset(p, 0, sizeof(*p));
	if (pipe(p->to) || pipe(p->from))
		return -1;
	if (pthread_create(&th[1], NULL, pong, p) || pthread_create(&th[0], NULL, ping, p))
		return -1;
	while (!p->tid[0] || !p->tid[1])
		usleep(1000);
	return 0;
}

static void stop_pair(struct pingpong *p, pthread_t th[2])
{
	p->stop = 1;
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	close(p->to[0]);
	close(p->to[1]);
	close(p->from[0]);
	close(p->from[1]);
}

struct seen {
	int keep[2], other[2];
	int sw_id;
	struct tep_format_field *prev, *next;
	unsigned long kept, leaked, total;
	unsigned long in_only, out_only;	/* only next_pid, only prev_pid is kept's */
};

static int count(struct tep_event *e, struct tep_record *rec, int cpu, void *ctx)
{
	struct seen *s = ctx;
	unsigned long long prev, next;
	bool kept = false, leaked = false, in = false, out = false;
	int i;

	(void)cpu;
	if (e->id != s->sw_id)
		return 0;
	if (tep_read_number_field(s->prev, rec->data, &prev) ||
	    tep_read_number_field(s->next, rec->data, &next))
		return 0;
	s->total++;
	for (i = 0; i < 2; i++) {
		kept |= (int)prev == s->keep[i] || (int)next == s->keep[i];
		leaked |= (int)prev == s->other[i] || (int)next == s->other[i];
		in |= (int)next == s->keep[i];
		out |= (int)prev == s->keep[i];
	}
	s->in_only += in && !out;
	s->out_only += out && !in;
	s->kept += kept;
	s->leaked += leaked && !kept;	/* a switch between the pairs names a kept one */
	return 0;
}

static void test_kernel_applies(void **state)
{
	struct tep_handle *tep = sched_formats();
	struct tracefs_instance *inst;
	struct pingpong a, b;
	pthread_t ta[2], tb[2];
	struct trace t;
	struct seen s;
	char name[64];
	int tids[1], filter_rc, enable_rc;

	(void)state;
	if (!tep) {
		print_message("SKIP: needs root and tracefs with the sched events\n");
		skip();
	}
	snprintf(name, sizeof(name), "kvmtop-test-%d", (int)getpid());
	inst = tracefs_instance_create(name);
	assert_non_null(inst);
	memset(&t, 0, sizeof(t));
	t.inst = inst;
	t.tep = tep;
	t.sched = true;
	tracefs_trace_off(inst);
	/* room for every switch of the run: none of the first is overwritten */
	tracefs_instance_set_buffer_size(inst, 8192, -1);

	assert_int_equal(start_pair(&a, ta), 0);
	assert_int_equal(start_pair(&b, tb), 0);
	/*
	 * One thread of pair a: each of its switches with its partner (or
	 * idle) then names it on exactly one side, in and out alike.
	 */
	tids[0] = a.tid[0];
	/* asserted after the cleanup: a failed assert would leave the instance behind */
	filter_rc = trace_sched_threads(&t, tids, 1);
	enable_rc = tracefs_event_enable(inst, "sched", "sched_switch");
	tracefs_trace_on(inst);
	usleep(30000);
	tracefs_trace_off(inst);
	stop_pair(&a, ta);
	stop_pair(&b, tb);

	memset(&s, 0, sizeof(s));
	s.keep[0] = s.keep[1] = a.tid[0];
	s.other[0] = a.tid[1];	/* its partner alone: kept only beside it */
	s.other[1] = b.tid[0];	/* and the other pair */
	s.sw_id = tep_find_event_by_name(tep, "sched", "sched_switch")->id;
	s.prev = tep_find_field(tep_find_event_by_name(tep, "sched", "sched_switch"), "prev_pid");
	s.next = tep_find_field(tep_find_event_by_name(tep, "sched", "sched_switch"), "next_pid");
	tracefs_iterate_raw_events(tep, inst, NULL, 0, count, &s);
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	tep_free(tep);
	print_message("sched_switch records: %lu, naming the filtered thread %lu, others alone %lu\n",
		      s.total, s.kept, s.leaked);
	assert_int_equal(filter_rc, 0);
	assert_int_equal(enable_rc, 0);
	/* the filtered thread switches at every ping; its partner and the other pair never alone */
	assert_true(s.kept > 100);
	assert_int_equal(s.leaked, 0);
	assert_int_equal(s.kept, s.total);
	/* both sides of the filter: switched in from, and out to, other tasks */
	assert_true(s.in_only > 0);
	assert_true(s.out_only > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_libtracefs_parses),
		cmocka_unit_test(test_kernel_applies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
