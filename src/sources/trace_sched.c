// SPDX-License-Identifier: GPL-2.0
/*
 * The VMs' threads' scheduler events, in an instance of their own,
 * "kvmtop-<pid>-sched": sched_switch, sched_waking and sched_wakeup_new
 * of the threads its set_event_pid lists.  kvmtop lists a VM's threads
 * when it meets the VM (its VMM's threads, its vhost kernel threads),
 * and with options/event-fork the kernel lists every thread a listed one
 * makes from its birth on (at its fork, before its first wakeup) and
 * drops every listed thread that ends.  So a vCPU thread a VMM makes
 * later has every scheduler event of its life: no filter is rewritten
 * at a birth, and none is lost between two rewrites.
 *
 * What the kernel records (kernel/trace/trace_events.c): a switch where
 * its prev or its next thread is listed, a wakeup where the wakee or the
 * waker is.  set_event_pid narrows every event of its instance to the
 * listed threads, so the KVM events stay in the other instance,
 * unfiltered; the drain merges both instances' buffers by time (one
 * "mono" clock).  An empty set_event_pid filters nothing: the events go
 * on only with the first thread listed, and a write never lists none.
 *
 * Threads made without a fork (io_uring's workers, the vhost tasks of
 * Linux 6.4 on: copy_process() alone) and the vhost kernel threads of
 * older kernels (made by kthreadd) are listed by the source when their
 * task_newtask is read (trace.c), a moment after their birth.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "trace.h"

/* Is v in the ascending set a of n?  Its index, or where it goes as -1 - index. */
static long set_find(const int *a, size_t n, int v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] == v)
			return (long)mid;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1 - (long)lo;
}

/* v into the ascending set *a: 1 added, 0 there already, -1 (no memory). */
static int set_add(int **a, size_t *n, size_t *alloc, int v)
{
	long at = set_find(*a, *n, v);
	size_t i;

	if (at >= 0)
		return 0;
	if (*n == *alloc) {
		size_t m = *alloc ? *alloc * 2 : 64;
		int *b = reallocarray(*a, m, sizeof(**a));

		if (!b)
			return -1;
		*a = b;
		*alloc = m;
	}
	i = (size_t)(-1 - at);
	memmove(*a + i + 1, *a + i, (*n - i) * sizeof(**a));
	(*a)[i] = v;
	(*n)++;
	return 1;
}

bool trace_sched_listed(const struct trace *t, int tid)
{
	return set_find(t->listed, t->nr_listed, tid) >= 0;
}

bool trace_sched_has_vm(const struct trace *t, int pid)
{
	return set_find(t->vms, t->nr_vms, pid) >= 0;
}

int trace_sched_vm(struct trace *t, int pid)
{
	return set_add(&t->vms, &t->nr_vms, &t->vms_alloc, pid);
}

void trace_sched_vms_keep(struct trace *t, const int *pids, size_t np)
{
	size_t i, j, k = 0;

	/* both ascending: one walk */
	for (i = 0, j = 0; i < t->nr_vms; i++) {
		while (j < np && pids[j] < t->vms[i])
			j++;
		if (j < np && pids[j] == t->vms[i])
			t->vms[k++] = t->vms[i];
	}
	t->nr_vms = k;
}

/* The instance's settings, its buffers sized (trace.c opens them): 0, or -1 with err set. */
static int sched_set_up(struct trace *t, char *err, size_t errlen)
{
	t->sched_kb = t->buffer_kb / 4 < 1024 ? 1024 : t->buffer_kb / 4;
	if (tracefs_instance_set_buffer_size(t->sched_inst, t->sched_kb, -1) < 0 ||
	    tracefs_instance_file_write(t->sched_inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_file_write(t->sched_inst, "options/event-fork", "1") < 0) {
		snprintf(err, errlen, "cannot set up the trace instance %s/instances/%s: %s",
			 t->dir, t->sched_name, strerror(errno));
		return -1;
	}
	/* emptied: an instance of a dead kvmtop by the same pid is removed first, but still */
	t->pid_fd = tracefs_instance_file_open(t->sched_inst, "set_event_pid",
					       O_WRONLY | O_TRUNC | O_CLOEXEC);
	t->sched_on_fd = tracefs_instance_file_open(t->sched_inst, "tracing_on", O_WRONLY | O_CLOEXEC);
	if (t->pid_fd < 0) {
		snprintf(err, errlen, "cannot open %s/instances/%s/set_event_pid: %s",
			 t->dir, t->sched_name, strerror(errno));
		return -1;
	}
	return 0;
}

int trace_sched_open(struct trace *t, char *err, size_t errlen)
{
	snprintf(t->sched_name, sizeof(t->sched_name), "%s" TRACE_SCHED_SUFFIX, t->name);
	t->sched_inst = tracefs_instance_create(t->sched_name);
	if (!t->sched_inst) {
		snprintf(err, errlen, "cannot create the trace instance %s/instances/%s: %s",
			 t->dir, t->sched_name, strerror(errno));
		return -1;
	}
	/* Linux 4.4 has set_event_pid, 4.7 event-fork: without both, the filter */
	if (!tracefs_file_exists(t->sched_inst, "set_event_pid") ||
	    !tracefs_file_exists(t->sched_inst, "options/event-fork")) {
		tracefs_instance_destroy(t->sched_inst);
		tracefs_instance_free(t->sched_inst);
		t->sched_inst = NULL;
		return 1;
	}
	tracefs_trace_off(t->sched_inst);
	if (sched_set_up(t, err, errlen))
		return -1;
	if (tracefs_trace_on(t->sched_inst) < 0) {
		snprintf(err, errlen, "cannot turn tracing on in %s: %s", t->sched_name, strerror(errno));
		return -1;
	}
	return 0;
}

/* The sched events on, once something is listed.  0, or -1 with errno. */
static int sched_enable(struct trace *t)
{
	static const char *const events[] = { "sched_switch", "sched_waking", "sched_wakeup_new" };
	size_t i;

	if (t->sched_enabled)
		return 0;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		/* sched_wakeup_new: a newborn's wait from its birth; not fatal where missing */
		if (tracefs_event_enable(t->sched_inst, "sched", events[i]) < 0 && i < 2)
			return -1;
	}
	t->sched_enabled = true;
	return 0;
}

/* Write buf (len bytes, pids and spaces) to set_event_pid: 0, or -1 with errno. */
static int sched_write(struct trace *t, const char *buf, size_t len)
{
	ssize_t n;

	if (!len)
		return 0;	/* an empty write would empty the list: everything traced */
	n = write(t->pid_fd, buf, len);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int trace_sched_list(struct trace *t, const int *tids, size_t n, bool again)
{
	char buf[4096];
	size_t len = 0, i;
	int r, added = 0;

	if (!t->sched_inst || t->pid_fd < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (tids[i] <= 0)
			continue;
		r = set_add(&t->listed, &t->nr_listed, &t->listed_alloc, tids[i]);
		if (r < 0) {
			errno = ENOMEM;
			return -1;
		}
		/* a tid listed once may have ended and been reused: again writes it all the same */
		if (!r && !again)
			continue;
		if (len + 16 > sizeof(buf)) {
			if (sched_write(t, buf, len))
				return -1;
			len = 0;
		}
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%d ", tids[i]);
		added++;
	}
	if (sched_write(t, buf, len))
		return -1;
	return added ? sched_enable(t) : 0;
}

void trace_sched_close(struct trace *t)
{
	if (t->pid_fd >= 0)
		close(t->pid_fd);
	t->pid_fd = -1;
	if (t->sched_on_fd >= 0)
		close(t->sched_on_fd);
	t->sched_on_fd = -1;
	free(t->listed);
	t->listed = NULL;
	t->nr_listed = t->listed_alloc = 0;
	free(t->vms);
	t->vms = NULL;
	t->nr_vms = t->vms_alloc = 0;
	t->sched_enabled = false;
}
