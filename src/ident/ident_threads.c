// SPDX-License-Identifier: GPL-2.0
/*
 * Who the threads of a recording are.  A trace-cmd recording names its
 * threads but stores no process ids, so --threads takes a snapshot of
 * the recording host's threads, the output of
 *
 *	ps -eLo tid=,pid=,args=
 *
 * one line per thread: its tid, its process's pid, and the process's
 * command line (ps joins the arguments with spaces; a kernel thread's is
 * its name in brackets).  From it each thread gets its process (the VM)
 * and each process its name, as live.  Without it, or for a thread the
 * snapshot does not list, ident_guess() applies the documented rule.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"

/* More lines than pid_max can ever be (4 M) is not a snapshot. */
#define THREADS_MAX_LINES	(1u << 22)
/* A command line longer than this is cut; the kernel's is at most ARG_MAX anyway. */
#define THREADS_MAX_LINE	(1u << 20)

struct snap_thread {
	int tid;
	int pid;
	unsigned int line;
};

struct snap_proc {
	int pid;
	unsigned int line;
	bool main;		/* from the line of its main thread (tid == pid) */
	bool kernel;		/* a kernel thread's "process": host work */
	int vhost_of;		/* a vhost-PID kernel thread (before Linux 6.4): VM PID's */
	char name[IDENT_NAME_LEN];
	struct ident_vm id;	/* who it is, from its command line as live (read: a process's) */
};

struct ident_threads {
	struct snap_thread *t;	/* by tid */
	size_t nr_t;
	struct snap_proc *p;	/* by pid */
	size_t nr_p;
};

static int cmp_thread(const void *a, const void *b)
{
	const struct snap_thread *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct snap_proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* of one pid, the main thread's line first, then the earliest */
	if (x->main != y->main)
		return x->main ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* A whole number from 1 to INT_MAX at *p, then a blank or the end: it, or -1. */
static int take_id(char **p)
{
	long v = 0;
	char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s++ - '0');
		if (v > INT_MAX)
			return -1;
	}
	if (*s && *s != ' ' && *s != '\t')
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	*p = s;
	return v ? (int)v : -1;
}

/* The process of a line: its name from the command line args, as live. */
static void proc_of(struct snap_proc *pr, char *args)
{
	size_t n = strlen(args), i;
	char comm[16], *base, *end;
	int vhost;

	memset(pr, 0, sizeof(*pr));
	if (n >= 2 && args[0] == '[' && args[n - 1] == ']') {
		/* a kernel thread: host work, unless it is a vhost worker of VM PID */
		args[n - 1] = '\0';
		strlcpy(pr->name, args + 1, sizeof(pr->name));
		vhost = !strncmp(pr->name, "vhost-", 6) ? (int)strtol(pr->name + 6, &end, 10) : 0;
		if (vhost > 0 && !*end)
			pr->vhost_of = vhost;
		else
			pr->kernel = true;
		return;
	}
	/* argv again, NUL-separated: ps joined it with spaces */
	for (i = 0; i < n; i++)
		if (args[i] == ' ' || args[i] == '\t')
			args[i] = '\0';
	base = strrchr(args, '/');
	base = base ? base + 1 : args;
	/* what the process's comm would be: its program's name, 15 characters */
	strlcpy(comm, base[0] ? base : "unknown", sizeof(comm));
	/* runs of blanks gave empty arguments: squeeze them out */
	for (i = 0, end = args; i < n; i++)
		if (args[i] || (end > args && end[-1]))
			*end++ = args[i];
	ident_vm_name(args, (size_t)(end - args), comm, pr->name, sizeof(pr->name));
	/* QEMU's -uuid, Firecracker's --id, Kata's sandbox ...: as kvmtop reads them live */
	ident_vm_cmdline(args, (size_t)(end - args), pr->name, &pr->id);
	pr->id.read = true;
}

static const struct snap_thread *find_thread(const struct ident_threads *t, int tid)
{
	struct snap_thread key = { .tid = tid };
	size_t lo = 0, hi = t->nr_t;

	/* the first of tid's entries (there is one, once loaded) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->t[mid].tid < key.tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nr_t && t->t[lo].tid == tid ? &t->t[lo] : NULL;
}

static const struct snap_proc *find_proc(const struct ident_threads *t, int pid)
{
	size_t lo = 0, hi = t->nr_p;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->p[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nr_p && t->p[lo].pid == pid ? &t->p[lo] : NULL;
}

/* Sorted, the duplicates found: 0, or -1 with one line in err. */
static int check(struct ident_threads *t, const char *path, char *err, size_t errlen)
{
	size_t i, j;

	qsort(t->t, t->nr_t, sizeof(*t->t), cmp_thread);
	for (i = 1; i < t->nr_t; i++) {
		if (t->t[i].tid != t->t[i - 1].tid)
			continue;
		snprintf(err, errlen, "%s:%u: tid %d is listed again (first on line %u): not one snapshot",
			 path, t->t[i].line, t->t[i].tid, t->t[i - 1].line);
		return -1;
	}
	/* a pid is its main thread's tid: no other process may list that tid */
	for (i = 0; i < t->nr_t; i++) {
		const struct snap_thread *m = find_thread(t, t->t[i].pid);

		if (!m || m->pid == t->t[i].pid)
			continue;
		snprintf(err, errlen,
			 "%s:%u: pid %d is a thread of process %d (line %u): not one snapshot",
			 path, t->t[i].line, t->t[i].pid, m->pid, m->line);
		return -1;
	}
	/* one entry per process: its main thread's, else its first */
	qsort(t->p, t->nr_p, sizeof(*t->p), cmp_proc);
	for (i = 0, j = 0; i < t->nr_p; i++)
		if (!j || t->p[j - 1].pid != t->p[i].pid)
			t->p[j++] = t->p[i];
	t->nr_p = j;
	return 0;
}

/* *p (*alloc entries of size bytes) doubled, or first entries at first: 0, or -1 (no memory) */
static int threads_grow(void **p, size_t *alloc, size_t first, size_t size)
{
	size_t a = *alloc ? *alloc * 2 : first;
	void *n = reallocarray(*p, a, size);

	if (!n)
		return -1;
	*p = n;
	*alloc = a;
	return 0;
}

/* What a load holds while it reads the file. */
struct load {
	struct ident_threads *t;
	const char *path;
	unsigned int line;
	size_t alloc_t, alloc_p;
};

/* One line of the file (n bytes at buf): 0, -1 (err set), -2 (no memory). */
static int load_line(struct load *l, char *buf, size_t n, char *err, size_t errlen)
{
	struct ident_threads *t = l->t;
	char *p = buf;
	int tid, pid;

	if (n > THREADS_MAX_LINE) {
		snprintf(err, errlen, "%s:%u: a line of over %u bytes: not ps output", l->path, l->line,
			 THREADS_MAX_LINE);
		return -1;
	}
	if (memchr(buf, '\0', n)) {
		snprintf(err, errlen, "%s:%u: a NUL byte: not ps output", l->path, l->line);
		return -1;
	}
	buf[strcspn(buf, "\r\n")] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return 0;
	tid = take_id(&p);
	pid = tid > 0 ? take_id(&p) : -1;
	if (tid < 0 || pid < 0) {
		snprintf(err, errlen, "%s:%u: not 'TID PID ARGS' (the output of ps -eLo tid=,pid=,args=)",
			 l->path, l->line);
		return -1;
	}
	if (t->nr_t == THREADS_MAX_LINES) {
		snprintf(err, errlen, "%s:%u: over %u threads: not one host's snapshot", l->path, l->line,
			 THREADS_MAX_LINES);
		return -1;
	}
	if (t->nr_t == l->alloc_t && threads_grow((void **)&t->t, &l->alloc_t, 1024, sizeof(*t->t)))
		return -2;
	t->t[t->nr_t++] = (struct snap_thread){ .tid = tid, .pid = pid, .line = l->line };
	/*
	 * ps lists a process's threads together, its main thread first: a
	 * process is named once, from its first line or its main thread's.
	 */
	if (t->nr_p && t->p[t->nr_p - 1].pid == pid && (tid != pid || t->p[t->nr_p - 1].main))
		return 0;
	if (t->nr_p == l->alloc_p && threads_grow((void **)&t->p, &l->alloc_p, 256, sizeof(*t->p)))
		return -2;
	proc_of(&t->p[t->nr_p], p);
	t->p[t->nr_p].pid = pid;
	t->p[t->nr_p].line = l->line;
	t->p[t->nr_p].main = tid == pid;
	t->nr_p++;
	return 0;
}

int ident_threads_load(struct ident_threads **out, const char *path, char *err, size_t errlen)
{
	struct load l = { .t = calloc(1, sizeof(*l.t)), .path = path };
	size_t cap = 0;
	char *buf = NULL;
	int ret = 0;
	ssize_t n;
	FILE *f;

	*out = NULL;
	if (!l.t) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_free;
	}
	while (!ret && (n = getline(&buf, &cap, f)) >= 0) {
		l.line++;
		ret = load_line(&l, buf, (size_t)n, err, errlen);
	}
	if (ret == -2)
		snprintf(err, errlen, "%s: out of memory", path);
	else if (!ret && ferror(f))
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (!ret && !l.t->nr_t)
		snprintf(err, errlen, "%s: no threads (expected the output of ps -eLo tid=,pid=,args=)", path);
	else if (!ret && !check(l.t, path, err, errlen))
		goto out_ok;
	fclose(f);
out_free:
	free(buf);
	ident_threads_free(l.t);
	return -1;
out_ok:
	free(buf);
	fclose(f);
	*out = l.t;
	return 0;
}

void ident_threads_free(struct ident_threads *t)
{
	if (!t)
		return;
	free(t->t);
	free(t->p);
	free(t);
}

bool ident_threads_find(const struct ident_threads *t, int tid, struct ident_info *out)
{
	const struct snap_thread *th = t ? find_thread(t, tid) : NULL;
	const struct snap_proc *pr;

	if (!th)
		return false;
	pr = find_proc(t, th->pid);
	if (pr && pr->vhost_of > 0) {
		/* a vhost worker serves VM PID: that VM's, named as it is */
		out->pid = pr->vhost_of;
		pr = find_proc(t, pr->vhost_of);
	} else {
		out->pid = th->pid;
	}
	out->kernel = pr && pr->kernel;
	out->guessed = false;
	out->vm_ident = pr && pr->id.read ? &pr->id : NULL;
	strlcpy(out->vm_name, pr ? pr->name : "unknown", sizeof(out->vm_name));
	return true;
}

void ident_guess(int tid, const char *comm, int vcpu_hint, struct ident_info *out)
{
	int k = ident_vcpu_id(comm ? comm : "");

	if (k < 0)
		k = vcpu_hint;
	/*
	 * A VMM makes a VM's vCPU threads one after the other, so vCPU k's
	 * tid is that of its vCPU 0 plus k: threads with the same tid - k
	 * are taken as one VM.  Two threads of one such group always have
	 * different vCPU ids.  A thread with no vCPU id is a VM of its own.
	 */
	out->pid = k >= 0 && tid - k > 0 ? tid - k : tid;
	out->guessed = true;
	out->kernel = false;
	snprintf(out->vm_name, sizeof(out->vm_name), "unknown@%d", out->pid);
}
