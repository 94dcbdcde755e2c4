// SPDX-License-Identifier: GPL-2.0
/*
 * The live sched event filters on the running kernel (TAP, by hand: its
 * cases SKIP, saying why, without root or tracefs with the sched events):
 *  1. libtracefs's own filter parser accepts what trace_pid_filter()
 *     writes, against this kernel's sched_switch and sched_waking;
 *  2. the kernel applies what trace_sched_threads() sets: in a scratch
 *     instance, the switches of one thread of a ping-pong pair are
 *     recorded, in and out, and those of its partner alone and of another
 *     pair are not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tracefs.h>

#include "sources/trace.h"

/* A failed check: the case's diagnostic. */
#define CHECK(cond) do { if (!(cond)) return "failed: " #cond; } while (0)

static const char *libtracefs_parses(struct tep_handle *tep)
{
	static const int tids[] = { 7, 100, 101, 102, 103, 200 };
	struct tep_event *sw = tep_find_event_by_name(tep, "sched", "sched_switch");
	struct tep_event *wk = tep_find_event_by_name(tep, "sched", "sched_waking");
	char buf[512], *err = NULL;
	int ret;

	CHECK(sw && wk);
	CHECK(trace_pid_filter(tids, 6, "prev_pid", "next_pid", buf, sizeof(buf)) == 0);
	ret = tracefs_filter_string_verify(sw, buf, &err);
	free(err);
	err = NULL;
	CHECK(ret == 0);
	CHECK(trace_pid_filter(tids, 0, "pid", NULL, buf, sizeof(buf)) == 0);
	ret = tracefs_filter_string_verify(wk, buf, &err);
	free(err);
	CHECK(ret == 0);
	return NULL;
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

static const char *kernel_applies(struct tep_handle *tep)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	struct tracefs_instance *inst;
	struct pingpong a, b;
	pthread_t ta[2], tb[2];
	struct trace t;
	struct seen s;
	char name[64];
	int tids[1], filter_rc, enable_rc;

	CHECK(ev);
	snprintf(name, sizeof(name), "kvmtop-test-%d", (int)getpid());
	inst = tracefs_instance_create(name);
	CHECK(inst);
	memset(&t, 0, sizeof(t));
	t.inst = inst;
	t.tep = tep;
	t.sched = true;
	tracefs_trace_off(inst);
	/* room for every switch of the run: none of the first is overwritten */
	tracefs_instance_set_buffer_size(inst, 8192, -1);
	if (start_pair(&a, ta) || start_pair(&b, tb)) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		return "cannot start the ping-pong threads";
	}
	/*
	 * One thread of pair a: each of its switches with its partner (or
	 * idle) then names it on exactly one side, in and out alike.
	 */
	tids[0] = a.tid[0];
	/* checked after the cleanup: a failed check must not leave the instance behind */
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
	s.sw_id = ev->id;
	s.prev = tep_find_field(ev, "prev_pid");
	s.next = tep_find_field(ev, "next_pid");
	tracefs_iterate_raw_events(tep, inst, NULL, 0, count, &s);
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	printf("# sched_switch records: %lu, naming the filtered thread %lu, others alone %lu,"
	       " switched in %lu, out %lu\n", s.total, s.kept, s.leaked, s.in_only, s.out_only);
	CHECK(filter_rc == 0);
	CHECK(enable_rc == 0);
	/* the filtered thread switches at every ping; its partner and the other pair never alone */
	CHECK(s.kept > 100);
	CHECK(s.leaked == 0);
	CHECK(s.kept == s.total);
	/* both sides of the filter: switched in from, and out to, other tasks */
	CHECK(s.in_only > 0);
	CHECK(s.out_only > 0);
	return NULL;
}

int main(void)
{
	static const struct {
		const char *name;
		const char *(*run)(struct tep_handle *tep);
	} cases[] = {
		{ "libtracefs's filter parser accepts the sched filters on this kernel", libtracefs_parses },
		{ "the kernel keeps one thread's switches, in and out, and no other's", kernel_applies },
	};
	const char *sys[] = { "sched", NULL };
	const char *why = NULL;
	struct tep_handle *tep = NULL;
	size_t i;

	if (geteuid())
		why = "needs root";
	else if (!tracefs_tracing_dir())
		why = "tracefs is not available";
	else if (!(tep = tracefs_local_events_system(NULL, sys)) ||
		 !tep_find_event_by_name(tep, "sched", "sched_switch"))
		why = "the kernel has no sched trace events";
	printf("1..%zu\n", sizeof(cases) / sizeof(cases[0]));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *diag = why ? NULL : cases[i].run(tep);

		if (why)
			printf("ok %zu - %s # SKIP %s\n", i + 1, cases[i].name, why);
		else if (diag)
			printf("not ok %zu - %s\n# %s\n", i + 1, cases[i].name, diag);
		else
			printf("ok %zu - %s\n", i + 1, cases[i].name);
	}
	tep_free(tep);
	return 0;
}
