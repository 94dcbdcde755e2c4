// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc reader: who a thread is (its process, its names, a kernel
 * thread or a VM's vhost worker), its CPU accounting (schedstat, stat),
 * a process's threads, the KVM fds it holds (VM, vCPUs, statistics) and
 * which thread runs a vCPU.  Under a root given by --proc for tests.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "ident.h"
#include "util/keyval.h"

#define CMDLINE_MAX	65536

void ident_init(struct ident *id, const char *proc_root)
{
	strlcpy(id->root, proc_root ? proc_root : "/proc", sizeof(id->root));
}

/* Reads at most len - 1 bytes of root/rel into buf; -1 if missing. */
static ssize_t read_file(const struct ident *id, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX + 64];
	ssize_t n, total = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", id->root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
}

#define PF_IO_WORKER	0x00000010
#define PF_USER_WORKER	0x00004000	/* Linux 6.4+: vhost, kvm-nx-lpage-recovery */
#define PF_KTHREAD	0x00200000

/* The task flags of stat file rel ("TID/stat"): 0 with *flags set, or -1 if unknown. */
static int task_flags(const struct ident *id, const char *rel, unsigned long long *flags)
{
	char buf[1024], *p;
	int field;

	if (read_file(id, rel, buf, sizeof(buf)) <= 0)
		return -1;
	/* the name may hold spaces and ')': the fields start after the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* state ppid pgrp session tty_nr tpgid flags: the 7th after the name */
	for (field = 0; field < 7 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", flags) != 1)
		return -1;
	return 0;
}

/* Is thread tid a kernel thread (PF_KTHREAD in its stat flags)?  false if unknown. */
static bool is_kthread(const struct ident *id, int tid)
{
	unsigned long long flags;
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/stat", tid);
	return !task_flags(id, rel, &flags) && (flags & PF_KTHREAD);
}

/*
 * Is thread tid of process pid the kernel's, though in the process's
 * thread group (a vhost or KVM worker, an io_uring worker)?  Such a
 * thread never returns to user space, so its syscall file shows for
 * good the registers of the thread it was forked from: KVM forks its
 * NX huge page recovery worker from the first vCPU thread inside
 * KVM_RUN (Linux 6.13+).  false if unknown.
 */
static bool is_worker(const struct ident *id, int pid, int tid)
{
	unsigned long long flags;
	char rel[96];

	snprintf(rel, sizeof(rel), "%d/task/%d/stat", pid, tid);
	return !task_flags(id, rel, &flags) && (flags & (PF_KTHREAD | PF_USER_WORKER | PF_IO_WORKER));
}

/* vhost-PID: a vhost worker of VM PID (a kernel thread before Linux 6.4). */
static int vhost_pid(const char *comm)
{
	const char *p = comm + 6;
	long v = 0;

	if (strncmp(comm, "vhost-", 6) || *p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9' && v < 1 << 22)
		v = v * 10 + (*p++ - '0');
	return *p ? 0 : (int)v;
}

/* Field n (3: state ... 14: utime) of a stat line, after the name's last ')'; -1 if none. */
static int stat_field(const char *after_name, int n, uint64_t *out)
{
	const char *p = after_name;
	char *end;
	int field;

	for (field = 2; field < n && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || p[1] < '0' || p[1] > '9')
		return -1;
	errno = 0;
	*out = strtoull(p + 1, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -1;
	return 0;
}

/*
 * A schedstat file's time on a CPU and waiting for one: 0; -1 when it is
 * missing (the thread is gone, or the kernel has none); -2 when it says
 * something else; -3 when it is empty (the thread ended as it was read).
 */
static int schedstat(const struct ident *id, const char *rel, uint64_t *run, uint64_t *wait)
{
	char buf[128];
	unsigned long long r, w;
	ssize_t n = read_file(id, rel, buf, sizeof(buf));

	if (n <= 0)
		return n < 0 ? -1 : -3;
	if (sscanf(buf, "%llu %llu", &r, &w) != 2)
		return -2;
	*run = r;
	*wait = w;
	return 0;
}

int ident_read_times(const struct ident *id, int tid, struct proc_times *out)
{
	char rel[64], buf[1024], *p;

	memset(out, 0, sizeof(*out));
	snprintf(rel, sizeof(rel), "%d/stat", tid);
	if (read_file(id, rel, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || stat_field(p, 14, &out->utime) || stat_field(p, 15, &out->stime) ||
	    stat_field(p, 43, &out->gtime))
		return -1;
	snprintf(rel, sizeof(rel), "%d/schedstat", tid);
	switch (schedstat(id, rel, &out->run_ns, &out->wait_ns)) {
	case -1:	/* gone, or a kernel without schedstat */
		return ident_alive(id, tid) ? -2 : -1;
	case -2:
		return -2;
	case -3:
		return -1;
	}
	/* sched_info off: every figure 0, though the thread has run */
	if (!out->run_ns && !out->wait_ns && out->utime + out->stime)
		return -2;
	return 0;
}


/* When task tid of process pid began (its stat's field 22) into t; start_known false where not read. */
static void task_start(const struct ident *id, int pid, long tid, struct ident_task *t)
{
	char rel[96], buf[1024], *p;

	snprintf(rel, sizeof(rel), "%d/task/%ld/stat", pid, tid);
	t->start_known = read_file(id, rel, buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
			 !stat_field(p, 22, &t->start_ticks);
}

bool ident_self_start(uint64_t *ticks)
{
	struct ident self;
	char buf[1024], *p;

	ident_init(&self, "/proc");
	return read_file(&self, "self/stat", buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
	       !stat_field(p, 22, ticks);
}

static int task_cmp(const void *a, const void *b)
{
	int x = ((const struct ident_task *)a)->tid, y = ((const struct ident_task *)b)->tid;

	return (x > y) - (x < y);
}

ssize_t ident_read_tasks(const struct ident *id, int pid, struct ident_task **out)
{
	char path[PATH_MAX + 32], rel[96];
	struct ident_task *t = NULL, *nt;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	char *end;
	long tid;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/%d/task", id->root, pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < IDENT_TASKS_MAX) {
		tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0 || tid > INT_MAX)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nt = reallocarray(t, cap, sizeof(*t));
			if (!nt)
				goto out_nomem;
			t = nt;
		}
		t[n].tid = (int)tid;
		snprintf(rel, sizeof(rel), "%d/task/%ld/schedstat", pid, tid);
		if (schedstat(id, rel, &t[n].run_ns, &t[n].wait_ns))
			continue;
		snprintf(rel, sizeof(rel), "%d/task/%ld/comm", pid, tid);
		if (read_file(id, rel, t[n].comm, sizeof(t[n].comm)) < 0)
			continue;
		chomp(t[n].comm);
		task_start(id, pid, tid, &t[n]);
		n++;
	}
	closedir(d);
	if (n)
		qsort(t, n, sizeof(*t), task_cmp);
	*out = t;
	return (ssize_t)n;
out_nomem:
	closedir(d);
	free(t);
	return -1;
}

int ident_read_io(const struct ident *id, int pid, int tid, uint64_t *rd, uint64_t *wr)
{
	char rel[64], buf[512];

	if (!pid)
		snprintf(rel, sizeof(rel), "%d/io", tid);
	else
		snprintf(rel, sizeof(rel), "%d/task/%d/io", pid, tid);
	if (read_file(id, rel, buf, sizeof(buf)) <= 0)
		return -1;
	return keyval_find(buf, "read_bytes:", rd) && keyval_find(buf, "write_bytes:", wr) ? 0 : -1;
}

size_t ident_vhost_kthreads(const struct ident *id, int *tids, int *pids, size_t max)
{
	char rel[64], comm[IDENT_NAME_LEN];
	struct dirent *de;
	size_t n = 0;
	char *end;
	long tid;
	int pid;
	DIR *d;

	d = opendir(id->root);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0 || tid > INT_MAX)
			continue;
		snprintf(rel, sizeof(rel), "%ld/comm", tid);
		if (read_file(id, rel, comm, sizeof(comm)) < 0)
			continue;
		chomp(comm);
		pid = vhost_pid(comm);
		if (!pid || !is_kthread(id, (int)tid))
			continue;
		tids[n] = (int)tid;
		pids[n] = pid;
		n++;
	}
	closedir(d);
	return n;
}

/*
 * What fd link target says: -2 not KVM's, -1 the VM, N vCPU N; *stats:
 * a statistics fd (KVM_GET_STATS_FD's), of the VM (-1) or of a vCPU
 * (IDENT_VCPU_ANY: which one its header's id says, "kvm-PID/vcpu-N").
 */
static int kvm_link(const char *target, bool *stats)
{
	const char *e;
	long long n;

	/* "anon_inode:kvm-vcpu-stats:N" (Linux names the vCPU), the id in its header says the same */
	*stats = true;
	if (!strcmp(target, "anon_inode:kvm-vm-stats"))
		return -1;
	if (!strncmp(target, "anon_inode:kvm-vcpu-stats", 25) && (!target[25] || target[25] == ':'))
		return IDENT_VCPU_ANY;
	*stats = false;
	if (!strcmp(target, "anon_inode:kvm-vm"))
		return -1;
	if (strncmp(target, "anon_inode:kvm-vcpu:", 20))
		return -2;
	n = strtonum(target + 20, 0, IDENT_KVM_FDS_MAX, &e);
	return e ? -2 : (int)n;
}

/* An fd's link target in dir dfd: 0, or -1 (gone, not a link). */
static int fd_link(int dfd, const char *name, char *buf, size_t len)
{
	ssize_t n = readlinkat(dfd, name, buf, len - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int kvm_fd_cmp(const void *a, const void *b)
{
	const struct ident_kvm_fd *x = a, *y = b;

	return x->vcpu != y->vcpu ? (x->vcpu > y->vcpu) - (x->vcpu < y->vcpu) : (x->fd > y->fd) - (x->fd < y->fd);
}

/*
 * The KVM fds of process pid into out, at most max, in the order the
 * directory lists them; with vm_only, the first VM fd alone.  The count,
 * or -1 (the process is gone, its fds cannot be read).
 */
static ssize_t kvm_fds(const struct ident *id, int pid, struct ident_kvm_fd *out, size_t max,
		       bool vm_only)
{
	char path[PATH_MAX + 32], target[64];
	struct dirent *de;
	size_t n = 0;
	DIR *d;
	int dfd;

	snprintf(path, sizeof(path), "%s/%d/fd", id->root, pid);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d)) && n < max) {
		const char *e;
		int fd = (int)strtonum(de->d_name, 0, INT_MAX, &e);

		if (e || fd_link(dirfd(d), de->d_name, target, sizeof(target)))
			continue;
		out[n].vcpu = kvm_link(target, &out[n].stats);
		out[n].fd = fd;
		if (out[n].vcpu == -2 || (vm_only && (out[n].vcpu != -1 || out[n].stats)))
			continue;
		n++;
	}
	closedir(d);
	return (ssize_t)n;
}

ssize_t ident_kvm_fds(const struct ident *id, int pid, struct ident_kvm_fd *out, size_t max)
{
	ssize_t got = kvm_fds(id, pid, out, max, false);
	size_t n, i, j;
	int vm_fd = -1;

	if (got < 0)
		return -1;
	n = (size_t)got;
	qsort(out, n, sizeof(*out), kvm_fd_cmp);
	/* one VM per process, and each vCPU once: the lowest fd of each; every statistics fd */
	for (i = j = 0; i < n; i++) {
		if (out[i].stats) {
			out[j++] = out[i];
			continue;
		}
		if (out[i].vcpu == -1 && vm_fd >= 0)
			continue;
		if (out[i].vcpu == -1)
			vm_fd = out[i].fd;
		if (j && out[i].vcpu >= 0 && out[j - 1].vcpu == out[i].vcpu)
			continue;
		out[j++] = out[i];
	}
	return (ssize_t)j;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct ident_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

size_t ident_procs(const struct ident *id, struct ident_proc *out, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(id->root);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		const char *e;
		int pid = (int)strtonum(de->d_name, 1, INT_MAX, &e);

		if (e)
			continue;
		out[n].pid = pid;
		out[n++].ino = de->d_ino;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), proc_cmp);
	return n;
}

int ident_holds_vm(const struct ident *id, int pid)
{
	struct ident_kvm_fd vm;
	ssize_t n = kvm_fds(id, pid, &vm, 1, true);

	return n < 0 ? -1 : n > 0;
}

int ident_vcpu_thread(const struct ident *id, int pid, int fd, int vcpu)
{
	char path[PATH_MAX + 32], rel[96], buf[256], want[48];
	int by_name = 0, tid;
	struct dirent *de;
	DIR *d;

	/* "NR 0xFD 0xae80 ...": the syscall number, then its arguments in hex */
	snprintf(want, sizeof(want), "%ld 0x%x 0x%lx ", (long)SYS_ioctl, fd, (unsigned long)KVM_RUN);
	snprintf(path, sizeof(path), "%s/%d/task", id->root, pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *e;

		tid = (int)strtonum(de->d_name, 1, INT_MAX, &e);
		if (e)
			continue;
		snprintf(rel, sizeof(rel), "%d/task/%d/syscall", pid, tid);
		if (read_file(id, rel, buf, sizeof(buf)) > 0 && !strncmp(buf, want, strlen(want)) &&
		    !is_worker(id, pid, tid)) {
			closedir(d);
			return tid;
		}
		snprintf(rel, sizeof(rel), "%d/task/%d/comm", pid, tid);
		if (!by_name && read_file(id, rel, buf, sizeof(buf)) > 0) {
			chomp(buf);
			if (ident_vcpu_id(buf) == vcpu)
				by_name = tid;
		}
	}
	closedir(d);
	return by_name;
}

bool ident_alive(const struct ident *id, int pid)
{
	char path[PATH_MAX + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d", id->root, pid);
	return stat(path, &st) == 0;
}

int ident_thread(const struct ident *id, int tid, struct ident_info *out)
{
	char rel[64], buf[4096], pcomm[IDENT_NAME_LEN] = "", *p;
	char *cmd;
	ssize_t n;
	int pid = 0;

	memset(out, 0, sizeof(*out));
	strlcpy(out->vm_name, "unknown", sizeof(out->vm_name));
	snprintf(rel, sizeof(rel), "%d/status", tid);
	if (read_file(id, rel, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nTgid:");
	if (p)
		pid = atoi(p + 6);
	if (pid <= 0)
		return -1;
	out->pid = pid;
	snprintf(rel, sizeof(rel), "%d/comm", tid);
	if (read_file(id, rel, out->comm, sizeof(out->comm)) >= 0)
		chomp(out->comm);
	if (is_kthread(id, tid)) {
		/* a kernel thread is host work, unless it is a vhost worker of a VM */
		pid = vhost_pid(out->comm);
		if (!pid || !ident_alive(id, pid)) {
			out->kernel = true;
			strlcpy(out->vm_name, "host kernel", sizeof(out->vm_name));
			return 0;
		}
		out->pid = pid;
	}
	snprintf(rel, sizeof(rel), "%d/comm", pid);
	if (read_file(id, rel, pcomm, sizeof(pcomm)) >= 0)
		chomp(pcomm);
	cmd = malloc(CMDLINE_MAX);
	snprintf(rel, sizeof(rel), "%d/cmdline", pid);
	n = cmd ? read_file(id, rel, cmd, CMDLINE_MAX) : -1;
	ident_vm_name(cmd, n > 0 ? (size_t)n : 0, pcomm[0] ? pcomm : "unknown",
		      out->vm_name, sizeof(out->vm_name));
	free(cmd);
	return 0;
}
