// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs source.  The kernel keeps one file per statistic in
 * <debugfs>/kvm (all VMs) and in <debugfs>/kvm/<pid>-<fd> (one VM).
 * Cumulative counters are writable (writing clears them); instant values
 * and histograms are read-only or hold several numbers, and are left out:
 * their growth means nothing.
 *
 * Under kernel lockdown (integrity or confidentiality) debugfs refuses
 * to open writable files, so every counter reads EPERM: that is reported
 * as the reason where securityfs shows a lockdown mode, and only there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>


#include "debugfs.h"
#include "ident/ident.h"
#include "source.h"
#include "model/model_feed.h"

#define DEBUGFS_DEFAULT	"/sys/kernel/debug"

struct debugfs_vm {
	int pid;
	int fd;
	bool seen;
	uint64_t *last;		/* per stat, at the last poll */
};

/* Read one counter file: 0 and *v, or -1 with errno (EINVAL: not one number). */
static int read_counter(int dirfd, const char *name, uint64_t *v)
{
	char buf[64], *end;
	ssize_t n;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		if (!n)
			errno = EINVAL;
		return -1;
	}
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && strcmp(end, "\n"))) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* The system's debugfs mount point, mounting it when there is none. */
static int find_debugfs(struct debugfs_src *s, char *path, size_t len, char *err, size_t errlen)
{
	struct mntent *me;
	FILE *f = setmntent("/proc/self/mounts", "re");

	path[0] = '\0';
	while (f && (me = getmntent(f)))
		if (!strcmp(me->mnt_type, "debugfs")) {
			strlcpy(path, me->mnt_dir, len);
			break;
		}
	if (f)
		endmntent(f);
	if (path[0])
		return 0;
	if (mount("nodev", DEBUGFS_DEFAULT, "debugfs", 0, NULL)) {
		snprintf(err, errlen,
			 "debugfs is not mounted and mounting it at %s failed: %s",
			 DEBUGFS_DEFAULT, strerror(errno));
		return -1;
	}
	s->mounted_by_us = true;
	strlcpy(path, DEBUGFS_DEFAULT, len);
	return 0;
}

#define LOCKDOWN_FILE	"/sys/kernel/security/lockdown"

/*
 * The kernel's lockdown mode, "integrity" from "none [integrity]
 * confidentiality", into mode: 1 locked down, 0 not shown ("none", or
 * no such file: a kernel without lockdown or securityfs not mounted),
 * -1 not known (the file unreadable).
 */
static int lockdown_mode(char *mode, size_t len)
{
	char buf[128] = "", *a, *b;
	FILE *f = fopen(LOCKDOWN_FILE, "re");
	int ret = -1;

	if (!f) {
		strlcpy(mode, errno == ENOENT ? "absent" : "unreadable", len);
		return errno == ENOENT ? 0 : -1;
	}
	strlcpy(mode, "unreadable", len);
	if (fgets(buf, sizeof(buf), f) && (a = strchr(buf, '[')) && (b = strchr(a, ']'))) {
		*b = '\0';
		strlcpy(mode, a + 1, len);
		ret = strcmp(mode, "none") != 0;
	}
	fclose(f);
	return ret;
}

/*
 * Why s->dir/name (name "": the directory) cannot be read, errno e, into
 * err: lockdown only where LOCKDOWN_FILE says it is on, else the errno and
 * what the file says.
 */
static void refused(const struct debugfs_src *s, const char *name, int e, char *err, size_t errlen)
{
	char path[PATH_MAX + NAME_MAX + 2], mode[32];
	int lock = e == EPERM ? lockdown_mode(mode, sizeof(mode)) : 0;

	snprintf(path, sizeof(path), "%s%s%s", s->dir, name[0] ? "/" : "", name);
	if (e != EPERM)
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
	else if (lock > 0)
		snprintf(err, errlen,
			 "cannot read %s: %s: the kernel is locked down (%s), which hides debugfs (kernel_lockdown(7)); use the tracepoint source (the default)",
			 path, strerror(e), mode);
	else if (!lock)
		snprintf(err, errlen, "cannot read %s: %s (%s)", path, strerror(e), !strcmp(mode, "absent") ?
			 "securityfs shows no kernel lockdown: no " LOCKDOWN_FILE :
			 "not kernel lockdown: " LOCKDOWN_FILE " says none");
	else
		snprintf(err, errlen, "cannot read %s: %s (" LOCKDOWN_FILE " is unreadable: kernel lockdown may be why)",
			 path, strerror(e));
}

/* No <debugfs>/kvm: whether this host's kvm module is loaded (/sys/module/kvm, built in too), said into err. */
static void no_kvm_dir(const struct debugfs_src *s, char *err, size_t errlen)
{
	struct stat st;

	if (!stat("/sys/module/kvm", &st))
		snprintf(err, errlen, "no KVM statistics: no %s, though this host's kvm module is loaded (/sys/module/kvm)",
			 s->dir);
	else
		snprintf(err, errlen, "no KVM statistics in %s: the kvm module is not loaded (no /sys/module/kvm)",
			 s->dir);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every counter of the all-VMs directory, sorted by name. */
static int list_stats(struct debugfs_src *s, char *err, size_t errlen)
{
	int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int first_errno = 0;
	char first[NAME_MAX + 1] = "";
	struct dirent *de;
	DIR *d;

	if (dfd < 0) {
		if (errno == ENOENT)
			no_kvm_dir(s, err, errlen);
		else
			refused(s, "", errno, err, errlen);
		return -1;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		snprintf(err, errlen, "cannot read %s: %s", s->dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) && s->nr_stats < DEBUGFS_STATS_MAX) {
		struct stat st;
		uint64_t v;

		if (de->d_name[0] == '.' || fstatat(dfd, de->d_name, &st, 0) || !S_ISREG(st.st_mode))
			continue;
		/* instant values are read-only; peaks (max_*) only ever grow */
		if (!(st.st_mode & S_IWUSR) || !strncmp(de->d_name, "max_", 4))
			continue;
		if (read_counter(dfd, de->d_name, &v)) {
			if (errno != EINVAL && !first_errno) {
				first_errno = errno;
				strlcpy(first, de->d_name, sizeof(first));
			}
			continue;
		}
		s->stat[s->nr_stats] = strdup(de->d_name);
		if (!s->stat[s->nr_stats])
			break;
		s->nr_stats++;
	}
	closedir(d);
	if (!s->nr_stats) {
		if (first_errno)
			refused(s, first, first_errno, err, errlen);
		else
			snprintf(err, errlen, "no KVM counters in %s", s->dir);
		return -1;
	}
	qsort(s->stat, s->nr_stats, sizeof(s->stat[0]), cmp_names);
	return 0;
}

int debugfs_open(struct debugfs_src *s, const char *root, struct kvm_names *names,
		 char *err, size_t errlen)
{
	char path[PATH_MAX];
	int i;

	memset(s, 0, sizeof(*s));
	s->exits = -1;
	if (root)
		strlcpy(path, root, sizeof(path));
	else if (find_debugfs(s, path, sizeof(path), err, errlen))
		return -1;
	snprintf(s->dir, sizeof(s->dir), "%s/kvm", path);
	if (list_stats(s, err, errlen))
		goto out_close;
	for (i = 0; i < s->nr_stats; i++) {
		const char *n = s->stat[i];

		s->reason_id[i] = -1;
		s->other[i] = -1;
		if (!strcmp(n, "exits")) {
			s->exits = i;
		} else if (strstr(n, "exit")) {
			/* io_exits, halt_exits, wfi_exit_stat ...: the kernel's own split */
			s->reason_id[i] = reason_intern(&names->reasons, ISA_UNKNOWN, i, 0, n, "",
							!strncmp(n, "halt", 4) || !strncmp(n, "wf", 2),
							false);
			if (s->reason_id[i] < 0)
				goto out_nomem;
			reason_set_class(&names->reasons, s->reason_id[i], reason_class_of_stat(n));
		} else {
			s->other[i] = s->nr_other;
			s->other_name[s->nr_other++] = n;
			names->other[names->nr_other++] = n;
		}
	}
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory");
out_close:
	debugfs_close(s);
	return -1;
}

static struct debugfs_vm *debugfs_vm_find(struct debugfs_src *s, int pid, int fd)
{
	struct debugfs_vm *v;
	unsigned int i;

	for (i = 0; i < s->nr_vms; i++)
		if (s->vms[i].pid == pid && s->vms[i].fd == fd)
			return &s->vms[i];
	if (s->nr_vms == s->alloc_vms) {
		unsigned int n = s->alloc_vms ? s->alloc_vms * 2 : 16;

		if (n > MODEL_MAX_VCPUS) {
			errno = ENOSPC;
			return NULL;
		}
		v = reallocarray(s->vms, n, sizeof(*v));
		if (!v)
			return NULL;
		s->vms = v;
		s->alloc_vms = n;
	}
	v = &s->vms[s->nr_vms];
	v->last = calloc(s->nr_stats, sizeof(*v->last));
	if (!v->last)
		return NULL;
	v->pid = pid;
	v->fd = fd;
	s->nr_vms++;
	return v;
}

/* "<pid>-<fd>": the VM directories KVM makes; 0, or -1 for anything else */
static int vm_dir_name(const char *name, int *pid, int *fd)
{
	char buf[NAME_MAX + 1], *dash;
	const char *e1, *e2;

	strlcpy(buf, name, sizeof(buf));
	dash = strchr(buf, '-');
	if (!dash)
		return -1;
	*dash = '\0';
	*pid = (int)strtonum(buf, 1, INT_MAX, &e1);
	*fd = (int)strtonum(dash + 1, 0, INT_MAX, &e2);
	return e1 || e2 ? -1 : 0;
}

static int poll_vm(struct debugfs_src *s, struct model *m, int dirfd, struct debugfs_vm *v,
		   bool fresh)
{
	int i;

	for (i = 0; i < s->nr_stats; i++) {
		uint64_t now, d;

		if (read_counter(dirfd, s->stat[i], &now))
			continue;
		/* a counter cleared by a write starts again from 0 */
		d = now >= v->last[i] ? now - v->last[i] : now;
		v->last[i] = now;
		if (fresh || !d)
			continue;
		if (i == s->exits) {
			if (model_add_exits(m, v->pid, -1, d))
				return -1;
		} else if (s->reason_id[i] >= 0) {
			if (model_add_exits(m, v->pid, s->reason_id[i], d))
				return -1;
		} else if (s->other[i] >= 0) {
			if (model_add_other(m, v->pid, s->other[i], d))
				return -1;
		}
	}
	return 0;
}

int debugfs_poll(struct debugfs_src *s, struct model *m)
{
	struct dirent *de;
	unsigned int i, j;
	int ret = 0;
	DIR *d = opendir(s->dir);

	s->polls++;
	if (!d)
		return 0;	/* the kvm module went away: no VMs */
	for (i = 0; i < s->nr_vms; i++)
		s->vms[i].seen = false;
	while ((de = readdir(d))) {
		struct debugfs_vm *v;
		int pid, fd, vfd;
		bool fresh;

		if (vm_dir_name(de->d_name, &pid, &fd))
			continue;
		vfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (vfd < 0)
			continue;
		fresh = s->polls == 1;
		v = debugfs_vm_find(s, pid, fd);
		if (v) {
			v->seen = true;
			ret = poll_vm(s, m, vfd, v, fresh);
		} else if (errno != ENOSPC) {
			ret = -1;	/* no memory; over MODEL_MAX_VCPUS VMs: skipped */
		}
		close(vfd);
		if (ret)
			break;
	}
	closedir(d);
	if (ret)
		return -1;
	/* forget the VMs whose directory went: their figures stay in the model */
	for (i = j = 0; i < s->nr_vms; i++) {
		if (s->vms[i].seen)
			s->vms[j++] = s->vms[i];
		else
			free(s->vms[i].last);
	}
	s->nr_vms = j;
	return 0;
}

void debugfs_close(struct debugfs_src *s)
{
	unsigned int i;
	int k;

	for (i = 0; i < s->nr_vms; i++)
		free(s->vms[i].last);
	free(s->vms);
	s->vms = NULL;
	s->nr_vms = 0;
	for (k = 0; k < s->nr_stats; k++)
		free(s->stat[k]);
	s->nr_stats = 0;
}

/* --- the source: KVM's counters in debugfs, per VM --- */

static int debugfs_source_open(struct source *src, const struct source_config *c, struct kvm_names *names,
		    char *err, size_t errlen)
{
	struct debugfs_src *ds = src->priv;

	if (debugfs_open(ds, c->debugfs_root, names, err, errlen))
		return -1;
	if (ds->mounted_by_us)
		fprintf(stderr, "kvmtop: debugfs was not mounted: mounted it at /sys/kernel/debug\n");
	strlcpy(src->clock, "mono", sizeof(src->clock));
	src->time_unit = "ns";
	src->ns = true;
	src->live = true;
	snprintf(src->notice, sizeof(src->notice),
		 "reading KVM statistics from %.440s: per VM only, no latencies", ds->dir);
	return 0;
}

static int debugfs_source_sample(struct source *src, struct model *m, char *err, size_t errlen)
{
	struct debugfs_src *ds = src->priv;

	if (!debugfs_poll(ds, m))
		return 0;
	snprintf(err, errlen, "out of memory");
	return -1;
}

static void debugfs_source_ident(struct source *src, int tid, struct ident_info *out)
{
	ident_thread(src->proc, tid, out);
	/* a debugfs row is a whole VM, keyed by its pid: known even if /proc is not */
	if (!out->pid) {
		out->pid = tid;
		if (!out->vm_name[0])
			strlcpy(out->vm_name, "unknown", sizeof(out->vm_name));
	}
	strlcpy(out->comm, "all vCPUs", sizeof(out->comm));
}

static void debugfs_source_close(struct source *src)
{
	debugfs_close(src->priv);
}

const struct source_ops source_debugfs = {
	.name = "debugfs",
	.select = "debugfs",
	.priv_size = sizeof(struct debugfs_src),
	.open = debugfs_source_open,
	.sample = debugfs_source_sample,
	.ident = debugfs_source_ident,
	.close = debugfs_source_close,
};
