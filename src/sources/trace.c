// SPDX-License-Identifier: GPL-2.0
/*
 * Live source.  Everything kvmtop does to tracefs happens here and in
 * trace_sched.c, in its own instances "kvmtop-<pid>" (the KVM and task
 * events, unfiltered) and "kvmtop-<pid>-sched" (the VMs' threads'
 * scheduler events): the top-level buffer and other tools' instances are
 * never touched, so kvmtop runs beside trace-cmd, perf and a second
 * kvmtop.
 *
 * Each tick the caller drains all CPUs of both: whole ring-buffer pages
 * are read from trace_pipe_raw without blocking (one read() per page,
 * not per event) and their events are merged across CPUs and instances
 * in timestamp order with libtraceevent's kbuffer.  The instance uses the "mono" trace clock, so
 * event times and CLOCK_MONOTONIC share one time base: the drain stops at
 * the moment it started, and interval ends are real times.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>
#include <kbuffer.h>

#include "util/clock.h"
#include "ident/ident.h"
#include "source.h"
#include "trace.h"

#define INSTANCE_PREFIX	"kvmtop-"

struct trace_cpu {
	struct tracefs_cpu *tcpu;
	struct kbuffer *kbuf;
	void *page;
	void *data;			/* current event, NULL: none loaded */
	unsigned long long ts;
	long long missed;		/* passed on with the next event; -1: unknown */
	int cpu;
};

size_t trace_default_buffer_kb(unsigned int tick_ms)
{
	/*
	 * 32 KiB per ms of tick holds ~800 k events/s per CPU for one tick,
	 * more than a vCPU exiting flat out makes; at least 1 MiB, at most
	 * 16 MiB per CPU to start with (--buffer-kb overrides it), grown by
	 * trace_grow() when events are lost anyway.
	 */
	size_t kb = (size_t)tick_ms * 32;

	if (kb < 1024)
		kb = 1024;
	if (kb > TRACE_BUFFER_MAX_KB / 4)
		kb = TRACE_BUFFER_MAX_KB / 4;
	return kb;
}

/* Is module name loaded (a directory /sys/module/NAME under sys_root)? */
static bool module_loaded(const char *sys_root, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/module/%s", sys_root ? sys_root : "/sys", name);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

bool trace_exitless_kvm(const char *sys_root, char *mod, size_t len)
{
	static const char *const exitless[] = { "kvm_pvm" };
	size_t i;

	if (module_loaded(sys_root, "kvm_intel") || module_loaded(sys_root, "kvm_amd"))
		return false;
	for (i = 0; i < sizeof(exitless) / sizeof(exitless[0]); i++) {
		if (module_loaded(sys_root, exitless[i])) {
			strlcpy(mod, exitless[i], len);
			return true;
		}
	}
	return false;
}

uint64_t trace_now(const struct trace *t)
{
	(void)t;
	return clock_mono_ns();
}

/*
 * A kvmtop instance ("kvmtop-<pid>", "kvmtop-<pid>-sched", "-check") is stale when
 * its pid is gone or is not a kvmtop.
 */
static bool instance_stale(const char *name)
{
	char path[64], comm[32] = "", num[16];
	const char *errstr, *p = name + strlen(INSTANCE_PREFIX);
	size_t len = strspn(p, "0123456789");
	long long pid;
	FILE *f;

	if (!len || len >= sizeof(num) ||
	    (p[len] && strcmp(p + len, TRACE_SCHED_SUFFIX) && strcmp(p + len, TRACE_CHECK_SUFFIX)))
		return false;	/* not named by kvmtop: not ours to remove */
	memcpy(num, p, len);
	num[len] = '\0';
	pid = strtonum(num, 1, INT_MAX, &errstr);
	if (errstr)
		return false;
	if (pid == getpid())
		return false;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%lld/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return strncmp(comm, "kvmtop", 6) != 0;
}

static void remove_stale(struct trace *t)
{
	/* all of them: libtracefs 1.6 leaks the regex it is given */
	char **list = tracefs_instances(NULL);
	int i;

	for (i = 0; list && list[i]; i++) {
		struct tracefs_instance *inst;

		if (strncmp(list[i], INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) || !instance_stale(list[i]))
			continue;
		inst = tracefs_instance_alloc(NULL, list[i]);
		if (!inst)
			continue;
		tracefs_trace_off(inst);
		tracefs_event_disable(inst, NULL, NULL);
		if (!tracefs_instance_destroy(inst))
			t->stale_removed++;
		tracefs_instance_free(inst);
	}
	tracefs_list_free(list);
}

static int find_tracefs(struct trace *t, char *err, size_t errlen)
{
	const char *path = NULL;
	int ret;

	ret = tracefs_tracing_dir_is_mounted(false, &path);
	if (ret == 0) {
		ret = tracefs_tracing_dir_is_mounted(true, &path);
		if (ret < 0 || !path) {
			snprintf(err, errlen,
				 "tracefs is not mounted and mounting it at /sys/kernel/tracing failed: %s (kernel without CONFIG_FTRACE, or not root?)",
				 strerror(errno ? errno : ENODEV));
			return -1;
		}
		t->mounted_by_us = true;
	} else if (ret < 0 || !path) {
		snprintf(err, errlen, "cannot find tracefs: %s", strerror(errno ? errno : ENODEV));
		return -1;
	}
	t->dir = path;
	if (access(path, R_OK | W_OK | X_OK)) {
		snprintf(err, errlen,
			 "no access to tracefs at %s (%s): kvmtop needs root, or CAP_PERFMON and write access to tracefs",
			 path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Which of TRACE_SYSTEMS this kernel has; fills sys[], returns how many. */
static int find_systems(struct trace *t, const char **sys, int max)
{
	static const char *const want[] = TRACE_SYSTEMS;
	char **have = tracefs_event_systems(t->dir);
	int i, j, n = 0;

	for (i = 0; want[i] && n < max - 1; i++)
		for (j = 0; have && have[j]; j++)
			if (!strcmp(have[j], want[i])) {
				sys[n++] = want[i];
				break;
			}
	sys[n] = NULL;
	tracefs_list_free(have);
	return n;
}

/*
 * A tep with the formats of the given systems only.  Not
 * tracefs_local_events_system(): that also parses /proc/kallsyms and the
 * printk formats, a fifth of a second of CPU kvmtop has no use for.
 */
static const char *const sched_events[] = { "sched_switch", "sched_waking", "sched_wakeup_new" };
static int trace_sched_filters(struct trace *t, const int *tids, size_t n);

static struct tep_handle *load_formats(struct trace *t, const char *const *sys, bool sched)
{
	struct tep_handle *tep = tep_alloc();
	int i, j, size = 0, parsed = 0;
	char *buf;

	if (!tep)
		return NULL;
	/* the ring-buffer page header: kbuffer needs its layout */
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || size <= 0 || tep_parse_header_page(tep, buf, size, sizeof(long))) {
		free(buf);
		goto out_free;
	}
	free(buf);
	for (i = 0; sys[i]; i++) {
		char **events = tracefs_system_events(t->dir, sys[i]);

		for (j = 0; events && events[j]; j++) {
			size = 0;
			buf = tracefs_event_file_read(t->inst, sys[i], events[j], "format", &size);

			/* an event the library cannot parse is left out, not fatal */
			if (buf && size > 0 && !tep_parse_event(tep, buf, size, sys[i]))
				parsed++;
			free(buf);
		}
		tracefs_list_free(events);
	}
	if (!parsed)
		goto out_free;
	/* the scheduler's view of the vCPU threads, for their time states */
	for (i = 0; sched && i < (int)(sizeof(sched_events) / sizeof(sched_events[0])); i++) {
		size = 0;
		buf = tracefs_event_file_read(t->inst, "sched", sched_events[i], "format", &size);
		if (buf && size > 0)
			tep_parse_event(tep, buf, size, "sched");
		free(buf);
	}
	/* who the threads made from now on are, even once they are gone */
	size = 0;
	buf = tracefs_event_file_read(t->inst, "task", "task_newtask", "format", &size);
	if (buf && size > 0)
		tep_parse_event(tep, buf, size, "task");
	free(buf);
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	return tep;
out_free:
	tep_free(tep);
	return NULL;
}

/* CPU cpu's buffer of instance inst into stream s of t->cpus: 1 opened, 0 offline, -1 (no memory). */
static int open_stream(struct trace *t, struct tracefs_instance *inst, int s, int cpu)
{
	struct trace_cpu *c = &t->cpus[s];

	c->cpu = cpu;
	/* an offline CPU has no buffer to read: skip it */
	c->tcpu = tracefs_cpu_open(inst, cpu, true);
	if (!c->tcpu)
		return 0;
	t->page_size = tracefs_cpu_read_size(c->tcpu);
	c->page = malloc(t->page_size);
	c->kbuf = tep_kbuffer(t->tep);
	return c->page && c->kbuf ? 1 : -1;
}

/*
 * Each CPU's buffer of instance inst (called name) as streams first ..
 * first + nr_cpus - 1: 0, or -1 with err set (no memory, or none opened).
 */
static int open_inst_cpus(struct trace *t, struct tracefs_instance *inst, const char *name, int first,
			  char *err, size_t errlen)
{
	int cpu, opened = 0, r;

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		r = open_stream(t, inst, first + cpu, cpu);
		if (r < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		opened += r;
	}
	if (!opened) {
		snprintf(err, errlen, "cannot open %s/instances/%s/per_cpu/*/trace_pipe_raw: %s",
			 t->dir, name, strerror(errno));
		return -1;
	}
	return 0;
}

/* Each CPU's buffer of the kvm instance (room for the sched one's too): 0, or -1 with err set. */
static int open_cpus(struct trace *t, char *err, size_t errlen)
{
	t->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (t->nr_cpus < 1)
		t->nr_cpus = 1;
	t->cpus = calloc(2 * (size_t)t->nr_cpus, sizeof(*t->cpus));
	if (!t->cpus) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->nr_streams = t->nr_cpus;
	return open_inst_cpus(t, t->inst, t->name, 0, err, errlen);
}

/* Each CPU's buffer of the sched instance, after the kvm one's: 0, or -1 with err set. */
static int open_sched_cpus(struct trace *t, char *err, size_t errlen)
{
	if (open_inst_cpus(t, t->sched_inst, t->sched_name, t->nr_cpus, err, errlen))
		return -1;
	t->nr_streams = 2 * t->nr_cpus;
	return 0;
}

/*
 * The instance's settings: its buffers, the "mono" clock, each CPU's
 * buffer opened.  0, or -1 with err set.
 */
static int set_up(struct trace *t, unsigned int tick_ms, size_t buffer_kb, char *err, size_t errlen)
{
	t->buffer_kb = buffer_kb ? buffer_kb : trace_default_buffer_kb(tick_ms);
	if (tracefs_instance_set_buffer_size(t->inst, t->buffer_kb, -1) < 0) {
		snprintf(err, errlen, "cannot set the trace buffer size to %zu KiB per CPU: %s",
			 t->buffer_kb, strerror(errno));
		return -1;
	}
	/*
	 * Without "mono" (Linux before 3.10) event times and kvmtop's clock
	 * would be two time bases: interval ends, the drain's horizon and the
	 * screen's ages would mix them.  Refused rather than half right.
	 */
	strlcpy(t->clock, "mono", sizeof(t->clock));
	if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "cannot set the trace clock 'mono' in %s/instances/%s (Linux 3.10 or later has it): %s",
			 t->dir, t->name, strerror(errno));
		return -1;
	}
	return open_cpus(t, err, errlen);
}

/*
 * The KVM systems' events on, and (sched: the filter path) the sched
 * events of no thread yet.  0, or -1.
 */
static int enable(struct trace *t, const char *const *sys, bool sched, char *err, size_t errlen)
{
	int i;

	for (i = 0; sys[i]; i++) {
		if (tracefs_event_enable(t->inst, sys[i], NULL) < 0) {
			snprintf(err, errlen, "cannot enable the %s events: %s", sys[i], strerror(errno));
			return -1;
		}
	}
	t->enabled = true;
	/*
	 * Every thread's birth, its creator and clone flags (Linux 3.14 on):
	 * a vCPU thread gone before /proc is asked still lands in its VM.
	 * Rare beside the KVM events, so not filtered; without it, not fatal.
	 */
	if (tep_find_event_by_name(t->tep, "task", "task_newtask"))
		tracefs_event_enable(t->inst, "task", "task_newtask");
	/*
	 * The filter path (a kernel without set_event_pid and event-fork):
	 * the sched events, filtered in the kernel to the vCPU threads (none
	 * yet: trace_sched_threads() sets them as they appear), so a busy
	 * host's other context switches never reach the buffer.  Without
	 * them the time states lack host, halt and wait: not fatal.
	 */
	if (sched && !trace_sched_filters(t, NULL, 0) &&
	    !tracefs_event_enable(t->inst, "sched", "sched_switch") &&
	    !tracefs_event_enable(t->inst, "sched", "sched_waking"))
		t->sched = true;
	return 0;
}

/* t zeroed, tracefs found and sys[] (4) the KVM systems it has: 0, or -1 with one line in err. */
static int trace_find(struct trace *t, const char **sys, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->on_fd = t->sched_on_fd = t->pid_fd = -1;
	if (find_tracefs(t, err, errlen))
		return -1;
	if (!find_systems(t, sys, 4)) {
		snprintf(err, errlen,
			 "this kernel has no KVM trace events in %s/events (load the kvm module, or a kernel with CONFIG_KVM)",
			 t->dir);
		return -1;
	}
	return 0;
}

struct tep_handle *trace_kvm_formats(struct trace *t, char *err, size_t errlen)
{
	const char *sys[4];
	struct tep_handle *tep;

	if (trace_find(t, sys, err, errlen))
		return NULL;
	tep = load_formats(t, sys, false);
	if (!tep)
		snprintf(err, errlen, "cannot read the KVM event formats under %s/events", t->dir);
	return tep;
}

int trace_open(struct trace *t, unsigned int tick_ms, size_t buffer_kb, bool sched,
	       char *err, size_t errlen)
{
	const char *sys[4];
	int ret;

	if (trace_find(t, sys, err, errlen))
		return -1;
	remove_stale(t);

	snprintf(t->name, sizeof(t->name), INSTANCE_PREFIX "%d", (int)getpid());
	t->inst = tracefs_instance_create(t->name);
	if (!t->inst) {
		snprintf(err, errlen, "cannot create the trace instance %s/instances/%s: %s%s",
			 t->dir, t->name, strerror(errno),
			 errno == EACCES || errno == EPERM ?
			 " (kvmtop needs root, or CAP_PERFMON and write access to tracefs)" : "");
		return -1;
	}
	/* Everything from here is undone by trace_close(). */
	tracefs_trace_off(t->inst);
	t->tep = load_formats(t, sys, sched);
	if (!t->tep) {
		snprintf(err, errlen, "cannot read the KVM event formats under %s/events", t->dir);
		goto out_close;
	}
	/* kbuffer needs the word size; older libtraceevents leave it unset */
	if (!tep_get_long_size(t->tep))
		tep_set_long_size(t->tep, sizeof(long));
	if (set_up(t, tick_ms, buffer_kb, err, errlen))
		goto out_close;
	/* the VMs' threads' sched events in their own instance, else (old kernels) filtered here */
	sched = sched && tep_find_event_by_name(t->tep, "sched", "sched_switch") &&
		tep_find_event_by_name(t->tep, "sched", "sched_waking");
	/* KVMTOP_SCHED_FILTER (make bench): the filter path, to set its cost beside the instance's */
	ret = sched && !getenv("KVMTOP_SCHED_FILTER") ? trace_sched_open(t, err, errlen) : 1;
	if (ret < 0 || (!ret && open_sched_cpus(t, err, errlen)))
		goto out_close;
	t->sched = sched && !ret;
	if (enable(t, sys, sched && ret, err, errlen))
		goto out_close;
	t->on_fd = tracefs_instance_file_open(t->inst, "tracing_on", O_WRONLY | O_CLOEXEC);
	if (tracefs_trace_on(t->inst) < 0) {
		snprintf(err, errlen, "cannot turn tracing on in %s: %s", t->name, strerror(errno));
		goto out_close;
	}
	return 0;
out_close:
	trace_close(t);
	return -1;
}

/* One run [a, b] of field at buf + *off: "field==a" or "(field>=a&&field<=b)". */
static int put_run(char *buf, size_t len, size_t *off, const char *field, int a, int b)
{
	const char *sep = *off ? "||" : "";
	int n;

	if (a == b)
		n = snprintf(buf + *off, len - *off, "%s%s==%d", sep, field, a);
	else
		n = snprintf(buf + *off, len - *off, "%s(%s>=%d&&%s<=%d)", sep, field, a, field, b);
	if (n < 0 || (size_t)n >= len - *off)
		return -1;
	*off += n;
	return 0;
}

int trace_pid_filter(const int *tids, size_t n, const char *field, const char *field2,
		     char *buf, size_t len)
{
	const char *fields[2] = { field, field2 };
	size_t off = 0, i, j;
	int f, r;

	if (!len)
		return -1;
	buf[0] = '\0';
	if (!n) {
		/* no thread is negative: keeps nothing */
		r = snprintf(buf, len, "%s<0", field);
		return r < 0 || (size_t)r >= len ? -1 : 0;
	}
	for (f = 0; f < 2 && fields[f]; f++)
		for (i = 0; i < n; i = j) {
			/* thread ids come in runs: a VMM makes its vCPU threads one after another */
			for (j = i + 1; j < n && tids[j] == tids[j - 1] + 1; j++)
				;
			if (put_run(buf, len, &off, fields[f], tids[i], tids[j - 1]))
				return -1;
		}
	return 0;
}

/* Both sched filters for tids: 0, 1 (did not fit: cleared), -1. */
static int trace_sched_filters(struct trace *t, const int *tids, size_t n)
{
	struct tep_event *sw_ev = tep_find_event_by_name(t->tep, "sched", "sched_switch");
	struct tep_event *wk_ev = tep_find_event_by_name(t->tep, "sched", "sched_waking");
	char sw[TRACE_FILTER_MAX + 1], wk[TRACE_FILTER_MAX + 1];

	if (!sw_ev || !wk_ev)
		return -1;
	if (trace_pid_filter(tids, n, "prev_pid", "next_pid", sw, sizeof(sw)) ||
	    trace_pid_filter(tids, n, "pid", NULL, wk, sizeof(wk))) {
		if (tracefs_event_filter_clear(t->inst, sw_ev) < 0 ||
		    tracefs_event_filter_clear(t->inst, wk_ev) < 0)
			return -1;
		t->sched_unfiltered = true;
		return 1;
	}
	if (tracefs_event_filter_apply(t->inst, sw_ev, sw) < 0 ||
	    tracefs_event_filter_apply(t->inst, wk_ev, wk) < 0)
		return -1;
	t->sched_unfiltered = false;
	return 0;
}

int trace_sched_threads(struct trace *t, const int *tids, size_t n)
{
	return t->sched && !t->sched_inst ? trace_sched_filters(t, tids, n) : 0;
}

/* Load c's next page with events; c->data is NULL when none is ready. */
static int load_page(struct trace_cpu *c)
{
	int n;

	c->data = NULL;
	for (;;) {
		n = tracefs_cpu_read(c->tcpu, c->page, true);
		if (n < 0)
			return errno == EINTR ? 0 : -1;
		if (n == 0)
			return 0;
		if (kbuffer_load_subbuffer(c->kbuf, c->page) < 0)
			continue;
		/* kept until an event carries it: a page may hold none */
		n = kbuffer_missed_events(c->kbuf);
		if (n)
			c->missed = c->missed < 0 || n < 0 ? -1 : c->missed + n;
		c->data = kbuffer_read_event(c->kbuf, &c->ts);
		if (c->data)
			return 0;
	}
}

int trace_drain(struct trace *t, trace_fn fn, void *ctx)
{
	uint64_t horizon = trace_now(t);
	/* and a bound on pages, should writers outpace the drain */
	long budget = (long)((t->buffer_kb + t->sched_kb) * 1024 / (t->page_size ? t->page_size : 4096)) + 16;
	struct tep_record rec;
	int i;

	for (i = 0; i < t->nr_streams; i++)
		if (t->cpus[i].tcpu && !t->cpus[i].data && load_page(&t->cpus[i]))
			return -1;
	for (;;) {
		struct trace_cpu *best = NULL;
		uint64_t limit = horizon;

		/* the oldest event, and up to when its buffer can go on alone */
		for (i = 0; i < t->nr_streams; i++) {
			struct trace_cpu *c = &t->cpus[i];

			if (!c->data)
				continue;
			if (!best || c->ts < best->ts) {
				if (best && best->ts < limit)
					limit = best->ts;
				best = c;
			} else if (c->ts < limit) {
				limit = c->ts;
			}
		}
		if (!best || best->ts > horizon) {
			t->read_to = horizon;
			return 0;
		}
		while (best->data && best->ts <= limit) {
			memset(&rec, 0, sizeof(rec));
			rec.ts = best->ts;
			rec.cpu = best->cpu;
			rec.data = best->data;
			rec.size = kbuffer_event_size(best->kbuf);
			rec.missed_events = best->missed;
			best->missed = 0;
			if (fn(&rec, ctx)) {
				errno = ECANCELED;
				return -1;
			}
			t->read_to = rec.ts;
			best->data = kbuffer_next_event(best->kbuf, &best->ts);
			if (!best->data) {
				if (--budget < 0)
					return 0;
				if (load_page(best))
					return -1;
			}
		}
	}
}

int trace_grow(struct trace *t)
{
	size_t kb = t->buffer_kb * 2, skb = t->sched_kb * 2;

	if (kb > TRACE_BUFFER_MAX_KB)
		kb = TRACE_BUFFER_MAX_KB;
	if (skb > TRACE_BUFFER_MAX_KB)
		skb = TRACE_BUFFER_MAX_KB;
	/* either instance's losses: the sched one grows with it */
	if (t->sched_inst && skb > t->sched_kb && tracefs_instance_set_buffer_size(t->sched_inst, skb, -1) >= 0)
		t->sched_kb = skb;
	if (kb <= t->buffer_kb || tracefs_instance_set_buffer_size(t->inst, kb, -1) < 0)
		return 0;
	t->buffer_kb = kb;
	return 1;
}

void trace_close(struct trace *t)
{
	int i;

	if (t->on_fd >= 0)
		close(t->on_fd);
	t->on_fd = -1;
	if (t->inst) {
		tracefs_trace_off(t->inst);
		if (t->enabled)
			tracefs_event_disable(t->inst, NULL, NULL);
	}
	if (t->sched_inst) {
		tracefs_trace_off(t->sched_inst);
		tracefs_event_disable(t->sched_inst, NULL, NULL);
	}
	trace_sched_close(t);
	for (i = 0; t->cpus && i < 2 * t->nr_cpus; i++) {
		if (t->cpus[i].tcpu)
			tracefs_cpu_close(t->cpus[i].tcpu);
		if (t->cpus[i].kbuf)
			kbuffer_free(t->cpus[i].kbuf);
		free(t->cpus[i].page);
	}
	free(t->cpus);
	t->cpus = NULL;
	t->nr_streams = 0;
	/* the files above closed first: an instance with one open cannot go */
	if (t->sched_inst) {
		tracefs_instance_destroy(t->sched_inst);
		tracefs_instance_free(t->sched_inst);
		t->sched_inst = NULL;
	}
	if (t->inst) {
		tracefs_instance_destroy(t->inst);
		tracefs_instance_free(t->inst);
		t->inst = NULL;
	}
	if (t->tep)
		tep_free(t->tep);
	t->tep = NULL;
	t->enabled = false;
}

/* --- the source: the running kernel's KVM tracepoints --- */

static int trace_source_open(struct source *src, const struct source_config *c, struct kvm_names *names,
		    char *err, size_t errlen)
{
	struct trace *t = src->priv;

	(void)names;	/* the decoder names what the formats hold */
	if (trace_open(t, src->tick_ms, c->buffer_kb, !c->no_sched, err, errlen))
		return -1;
	if (t->mounted_by_us)
		fprintf(stderr, "kvmtop: tracefs was not mounted: mounted it at %s\n", t->dir);
	if (t->stale_removed)
		fprintf(stderr, "kvmtop: removed %u trace instance(s) left by a kvmtop that died\n",
			t->stale_removed);
	src->tep = t->tep;
	strlcpy(src->clock, t->clock, sizeof(src->clock));
	src->time_unit = "ns";
	src->ns = true;
	src->live = true;
	return 0;
}

static int trace_source_read(struct source *src, source_rec_fn fn, void *ctx, char *err, size_t errlen)
{
	struct trace *t = src->priv;

	if (trace_drain(t, fn, ctx) == 0) {
		src->read_to = t->read_to;
		return 0;
	}
	snprintf(err, errlen, "reading %s/instances/%s: %s", t->dir, t->name, strerror(errno));
	return -1;
}

/*
 * The sched instance: list VM pid's threads, its VMM's and its vhost
 * kernel threads (made by kthreadd, no thread of a listed one).  Read
 * twice: a thread made between the first reading and the write is in
 * the second (one made after the write is listed by the kernel).
 * 0, or -1 with errno.
 */
static int trace_source_vm(struct source *src, struct trace *t, int pid)
{
	int ktids[64], kpids[64], *tids;
	struct ident_task *tasks;
	ssize_t n, i;
	size_t nk, k;
	int round, ret;

	for (round = 0; round < 2; round++) {
		tasks = NULL;
		n = ident_read_tasks(src->proc, pid, &tasks);
		tids = n > 0 ? calloc((size_t)n, sizeof(*tids)) : NULL;
		for (i = 0; tids && i < n; i++)
			tids[i] = tasks[i].tid;
		ret = n > 0 && !tids ? -1 : trace_sched_list(t, tids, tids ? (size_t)n : 0, !round);
		free(tids);
		free(tasks);
		if (ret)
			return -1;	/* errno: the write's, or calloc's ENOMEM */
	}
	nk = ident_vhost_kthreads(src->proc, ktids, kpids, sizeof(ktids) / sizeof(ktids[0]));
	for (k = 0; k < nk; k++)
		if (kpids[k] == pid && trace_sched_list(t, &ktids[k], 1, true))
			return -1;
	return 0;
}

/*
 * The VMs' threads now: vCPU threads tids (ascending), VMs pids.  The
 * filter path narrows the sched events to the vCPU threads; the sched
 * instance lists the threads of each VM not yet seen (and the vCPU
 * threads, should their VM be unknown).  0; 1 when nothing could be
 * narrowed (everything traced); -1 with errno.
 */
static int trace_source_threads(struct source *src, const int *tids, size_t n, const int *pids, size_t np)
{
	struct trace *t = src->priv;
	size_t i;
	int r;

	if (!t->sched_inst)
		return trace_sched_threads(t, tids, n);
	trace_sched_vms_keep(t, pids, np);
	for (i = 0; i < np; i++) {
		r = trace_sched_vm(t, pids[i]);
		if (r < 0) {
			errno = ENOMEM;
			return -1;
		}
		if (r > 0 && trace_source_vm(src, t, pids[i]))
			return -1;
	}
	return trace_sched_list(t, tids, n, false);
}

/* "vhost-PID" (a vhost worker's name): PID, else 0. */
static int vhost_of(const char *comm)
{
	const char *errstr;
	long long pid;

	if (strncmp(comm, "vhost-", 6))
		return 0;
	pid = strtonum(comm + 6, 1, INT_MAX, &errstr);
	return errstr ? 0 : (int)pid;
}

/*
 * A thread was born (task_newtask): listed when its creator is (a fork
 * the kernel listed too, or a thread made by copy_process() alone: an
 * io_uring worker, a vhost task of Linux 6.4 on), or when it is a vhost
 * kernel thread of a listed VM.  0, or -1 with errno.
 */
static int trace_source_born(struct source *src, int tid, int creator, const char *comm)
{
	struct trace *t = src->priv;
	int pid;

	if (!t->sched_inst || trace_sched_listed(t, tid))
		return 0;
	pid = vhost_of(comm);
	if (trace_sched_listed(t, creator) || (pid && trace_sched_has_vm(t, pid)))
		return trace_sched_list(t, &tid, 1, true);
	return 0;
}

static size_t trace_source_grow(struct source *src)
{
	struct trace *t = src->priv;

	return trace_grow(t) ? t->buffer_kb : 0;
}

static void trace_source_close(struct source *src)
{
	trace_close(src->priv);
}

/* A crash: tracing off in one write each (the next kvmtop removes the instances). */
static void trace_source_panic(struct source *src)
{
	struct trace *t = src->priv;

	if (t->on_fd >= 0 && write(t->on_fd, "0", 1) != 1)
		return;	/* nothing more to try in a crash */
	if (t->sched_on_fd >= 0 && write(t->sched_on_fd, "0", 1) != 1)
		return;
}

const struct source_ops source_trace = {
	.name = "live",
	.select = "trace",
	.priv_size = sizeof(struct trace),
	.open = trace_source_open,
	.read = trace_source_read,
	.threads = trace_source_threads,
	.born = trace_source_born,
	.grow = trace_source_grow,
	.close = trace_source_close,
	.panic = trace_source_panic,
};
