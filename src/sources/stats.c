// SPDX-License-Identifier: GPL-2.0
/*
 * The stats source (--source stats): KVM's binary statistics, read
 * through the fds the kernel hands out for KVM_GET_STATS_FD (Linux
 * 5.14+), one per VM and one per vCPU.  No tracing and no debugfs: the
 * guests pay nothing, kvmtop one pread per fd and interval.
 *
 * Finding them: a process holds a VM when one of its /proc/PID/fd links
 * reads "anon_inode:kvm-vm"; its vCPUs are the "anon_inode:kvm-vcpu:N"
 * links.  KVM answers a VM's or vCPU's ioctls only in the process that
 * made the VM (any other gets EIO), so kvmtop first takes the statistics
 * fds the VMM holds open itself ("anon_inode:kvm-vm-stats",
 * "anon_inode:kvm-vcpu-stats": their header's id names the vCPU), which
 * need no ioctl, only pread: it duplicates them into itself (pidfd_open
 * + pidfd_getfd: root or CAP_SYS_PTRACE).  For a VM or vCPU without one
 * it asks the duplicated KVM fd for KVM_GET_STATS_FD and closes the
 * duplicate at once; where KVM refuses (EIO: every real host, unless
 * kvmtop is the VM's own process), it says so once for that VM.  A stats fd holds a reference on the VM
 * (struct kvm): while kvmtop holds it, the kernel's teardown of a VM
 * whose process has ended (its vCPUs, MMU pages, its kernel threads) is
 * put off.  So every poll first drops the stats fds of VMs whose process
 * is gone; the process itself never waits on kvmtop.
 *
 * A vCPU's row is its thread: the one inside ioctl(vCPU fd, KVM_RUN), or
 * the one its VMM named for it ("CPU N/KVM").  Until its thread is known
 * its figures wait (they are cumulative: nothing is lost).
 *
 * Each look (a second) finds what is new cheaply (stats_sig: a stat of
 * each process's fd directory), so a VM or vCPU made at any age of its
 * process is found within a second.  One made since kvmtop's first look
 * (a VM of a process that came later or held none at an earlier listing;
 * a vCPU an earlier listing of its VM did not have) counts from zero, as
 * the kernel's counters did at its creation; one there at the start
 * counts from then; one made before but first read later counts from
 * that reading, and says so (MODEL_FROM_FOUND: model_counted_from()).
 *
 * With --proc DIR the processes come from DIR, laid out as /proc, and
 * the statistics of a process's fd N from DIR/PID/kvm-stats/N (a copy of
 * what its stats fd reads): for tests, and for looking at a copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/kvm.h>

#include "ident/ident.h"
#include "stats_file.h"
#include "source.h"
#include "model/model_feed.h"

#define STATS_VMS_MAX	MODEL_MAX_VCPUS
/* Processes looked at for a VM: more are left out (pid_max is at most 4 M). */
#define STATS_PROCS_MAX	(1u << 22)
/*
 * Live, a look is each second (stats_source_discover) and each sample.
 * A process's fds (and a known VM's) are listed again when its fd
 * table's signature changed (stats_sig), and every STATS_RESCAN looks
 * all the same.  Where there is no signature (Linux before 6.2), a known
 * VM's fds are listed at each look, and a process holding none is
 * looked at on its first STATS_YOUNG looks, then every STATS_RESCAN.
 */
#define STATS_YOUNG	3
#define STATS_RESCAN	30

/*
 * What a process's fd table looks like, cheaply: stat() of /proc/PID/fd,
 * whose size is the number of its open fds since Linux 6.2 (so an fd
 * opened, a VM or vCPU made, changes it); with --proc DIR, the fd
 * directory's size and mtime (a link made or removed changes them).
 */
struct stats_sig {
	long long size;		/* -1: none taken */
	long long mtime_ns;	/* --proc only */
};

/* The code of the reason "other_exits": no table index of a counter is this one. */
#define STATS_OTHER_CODE	(UINT32_MAX - 1)

/* A process kvmtop has looked at: when to look again whether it holds a VM. */
struct stats_proc {
	int pid;
	uint64_t ino;		/* of its /proc directory: another process reusing pid has another */
	unsigned int looks;
	unsigned int next;
	struct stats_sig sig;	/* its fd table's at its last listing */
	bool born;		/* it came after kvmtop's first look: so did any VM it holds */
	bool empty;		/* a listing found no VM in it: one found since was made since */
};

/* Does kvmtop have CAP_SYS_PTRACE (pidfd_getfd's check), without being root? */
static bool can_ptrace(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_SYS_PTRACE / 32].effective & (1u << (CAP_SYS_PTRACE % 32));
}

/* One stats file: a VM's or a vCPU's. */
struct stats_file {
	int fd;			/* its stats fd; -1: none (could not be had) */
	int kfd;		/* the number in the VM process of the fd it came from */
	int run_fd;		/* a vCPU's fd there (its thread runs KVM_RUN on it); -1: not known */
	bool held;		/* the VMM's own statistics fd, taken: not asked for by ioctl */
	int vcpu;		/* -1: the VM's */
	int tid;		/* a vCPU's thread, 0 until known */
	unsigned int found;	/* the look it was found at: its thread is looked for each look at first */
	enum model_from from;	/* BIRTH: its first reading counts from zero; else it is the baseline */
	struct kstat_layout l;
	int *idx;		/* l.nr: each descriptor's index in its scope's table */
	uint64_t *last;		/* the values fed so far */
	bool started;		/* last holds a reading */
};

struct stats_vm {
	int pid;
	int pidfd;		/* live: to take its fds; -1 with --proc */
	bool seen;		/* its VM fd was there when its fds were last listed */
	enum model_from from;	/* BIRTH: made after kvmtop's first look, its files count from zero */
	unsigned int scans;	/* times its fds were listed */
	bool listed;		/* ... and in this poll: its vCPUs' threads are looked for then */
	bool refused;		/* KVM refused KVM_GET_STATS_FD (EIO): not asked again */
	bool refused_said;
	unsigned int next_scan;	/* the look to list them again at, whatever the signature says */
	struct stats_sig sig;	/* its fd table's at its last listing */
	/* vCPU ids a listing showed, a bit each; born: first shown after its first listing */
	uint64_t *ids_seen;
	uint64_t *ids_born;
	unsigned int nr_ids;	/* words of each */
	struct stats_file vm;
	struct stats_file *vcpus;
	unsigned int nr_vcpus;
};

struct stats_src {
	struct ident proc;
	bool dir;		/* --proc DIR: stats files instead of fds */
	struct stats_vm *vms;
	unsigned int nr_vms;
	unsigned int alloc_vms;
	unsigned int looks;	/* for new VMs and vCPUs: each sample, and each second between */
	unsigned int reads;	/* samples: the first is the counters' start */
	bool fresh;		/* in the first sample: what is found now counts from kvmtop's start */
	bool sig_ok;		/* fd tables have a signature (Linux 6.2+, or --proc) */
	int *reason;		/* vCPU table index: -2 not an exit counter, -1 "exits", else a reason */
	unsigned int nr_reason;
	int other_exits;	/* the reason "other_exits" (stats_other_exits), -1 until needed */
	struct kvm_names *names;
	uint64_t *vals;		/* scratch: one data block */
	struct ident_kvm_fd *fds;	/* scratch: a process's KVM fds */
	struct ident_proc *pids;	/* scratch: the processes */
	char notice[512];	/* one line for the view, or "" */
	/* the processes not holding a VM at their last look, by pid, and a scratch list */
	struct stats_proc *procs;
	struct stats_proc *new_procs;
	unsigned int nr_procs;
	unsigned int alloc_procs;	/* of pids, procs and new_procs */
};

/* Grow the process lists: 0, or -1 (no memory). */
static int procs_grow(struct stats_src *s)
{
	unsigned int n = s->alloc_procs ? s->alloc_procs * 2 : 1024;
	void *p;

	p = reallocarray(s->pids, n, sizeof(*s->pids));
	if (!p)
		return -1;
	s->pids = p;
	p = reallocarray(s->procs, n, sizeof(*s->procs));
	if (!p)
		return -1;
	s->procs = p;
	p = reallocarray(s->new_procs, n, sizeof(*s->new_procs));
	if (!p)
		return -1;
	s->new_procs = p;
	s->alloc_procs = n;
	return 0;
}

/* Process pid's fd table signature into *sig: 0, or -1 (it is gone). */
static int stats_sig_read(const struct stats_src *s, int pid, struct stats_sig *sig)
{
	char path[PATH_MAX + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%d/fd", s->proc.root, pid);
	if (stat(path, &st))
		return -1;
	sig->size = st.st_size;
	sig->mtime_ns = s->dir ? st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec : 0;
	return 0;
}

static bool stats_sig_eq(const struct stats_sig *a, const struct stats_sig *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns;
}

/* Do fd tables have a signature: a --proc tree, or a kernel whose /proc/PID/fd size counts its fds (6.2+)? */
static bool stats_sig_works(const struct stats_src *s)
{
	struct stats_sig sig;

	return s->dir || (!stats_sig_read(s, getpid(), &sig) && sig.size > 0);
}

static void file_close(struct stats_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	kstat_layout_free(&f->l);
	free(f->idx);
	free(f->last);
	f->idx = NULL;
	f->last = NULL;
}

static void vm_close(struct stats_vm *vm)
{
	unsigned int i;

	file_close(&vm->vm);
	for (i = 0; i < vm->nr_vcpus; i++)
		file_close(&vm->vcpus[i]);
	free(vm->vcpus);
	free(vm->ids_seen);
	free(vm->ids_born);
	if (vm->pidfd >= 0)
		close(vm->pidfd);
	memset(vm, 0, sizeof(*vm));
	vm->pidfd = -1;
}

/*
 * Fd kfd of VM process vm, duplicated into kvmtop (with --proc, the copy
 * of its statistics): -1 with err set when it cannot be had.  *fatal: the
 * reason holds for every VM (permission), not just this one (it ended).
 */
static int take_fd(struct stats_src *s, struct stats_vm *vm, int kfd, bool *fatal,
		   char *err, size_t errlen)
{
	int dup, sfd;

	*fatal = false;
	if (s->dir) {
		char path[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%d/kvm-stats/%d", s->proc.root, vm->pid, kfd);
		sfd = open(path, O_RDONLY | O_CLOEXEC);
		if (sfd < 0) {
			*fatal = errno != ENOENT;
			snprintf(err, errlen, "%.400s: %s", path, strerror(errno));
		}
		return sfd;
	}
	if (vm->pidfd < 0) {
		vm->pidfd = (int)syscall(SYS_pidfd_open, vm->pid, 0);
		if (vm->pidfd < 0) {
			*fatal = errno != ESRCH;
			snprintf(err, errlen, "process %d: pidfd_open: %s", vm->pid, strerror(errno));
			return -1;
		}
	}
	dup = (int)syscall(SYS_pidfd_getfd, vm->pidfd, kfd, 0);
	if (dup < 0) {
		*fatal = errno == EPERM || errno == EACCES || errno == ENOSYS;
		snprintf(err, errlen,
			 "process %d: taking its KVM fd %d (pidfd_getfd): %s%s", vm->pid, kfd,
			 strerror(errno), *fatal ? ": --source stats needs root or CAP_SYS_PTRACE "
			 "(and Linux 5.6+), and a Yama ptrace_scope below 3" : "");
		return -1;
	}
	fcntl(dup, F_SETFD, FD_CLOEXEC);
	return dup;
}

/*
 * The stats fd of KVM fd kfd of VM process vm, asked for by ioctl: -1
 * with err set when it cannot be had; *fatal as take_fd's, and for a
 * kernel without KVM_GET_STATS_FD.
 */
static int stats_fd(struct stats_src *s, struct stats_vm *vm, int kfd, bool *fatal,
		    char *err, size_t errlen)
{
	int dup, sfd;

	dup = take_fd(s, vm, kfd, fatal, err, errlen);
	if (dup < 0 || s->dir)
		return dup;
	sfd = ioctl(dup, KVM_GET_STATS_FD, NULL);
	if (sfd < 0) {
		/* only the VM's own process may ask: it never will be answered here */
		vm->refused = errno == EIO;
		*fatal = errno == ENOTTY || errno == EINVAL;
		snprintf(err, errlen, "process %d: KVM_GET_STATS_FD on its fd %d: %s%s", vm->pid, kfd,
			 strerror(errno), *fatal ? " (binary statistics need Linux 5.14+)" : "");
	} else {
		fcntl(sfd, F_SETFD, FD_CLOEXEC);
	}
	/* the duplicate would keep the VM alive: only the stats fd is kept */
	close(dup);
	return sfd;
}

/* The scope table indices (and, for vCPUs, exit reasons) of f's descriptors. */
static int file_intern(struct stats_src *s, struct stats_file *f, char *err, size_t errlen)
{
	struct kstat_table *t = &s->names->kstats[f->vcpu < 0 ? KSTAT_VM : KSTAT_VCPU];
	unsigned int i;

	f->idx = calloc(f->l.nr ? f->l.nr : 1, sizeof(*f->idx));
	if (!f->idx)
		goto out_nomem;
	for (i = 0; i < f->l.nr; i++) {
		const struct kstat_desc *d = &f->l.d[i];
		int k = kstat_table_intern(t, d, err, errlen);

		if (k < 0)
			return -1;
		f->idx[i] = k;
		if (f->vcpu < 0)
			continue;
		if ((unsigned int)k >= s->nr_reason) {
			int *r = reallocarray(s->reason, t->alloc, sizeof(*r));
			unsigned int j;

			if (!r)
				goto out_nomem;
			for (j = s->nr_reason; j < t->alloc; j++)
				r[j] = -2;
			s->reason = r;
			s->nr_reason = t->alloc;
		}
		if (s->reason[k] != -2 || d->kind != KSTAT_CUMULATIVE)
			continue;
		/* "exits", and the kernel's own split: io_exits, halt_exits, wfi_exit_stat ... */
		if (!strcmp(d->name, "exits")) {
			s->reason[k] = -1;
		} else if (strstr(d->name, "exit")) {
			int r = reason_intern(&s->names->reasons, ISA_UNKNOWN, (uint32_t)k, 0, d->name, "",
					      !strncmp(d->name, "halt", 4) || !strncmp(d->name, "wf", 2),
					      false);

			if (r < 0)
				goto out_nomem;
			reason_set_class(&s->names->reasons, r, reason_class_of_stat(d->name));
			s->reason[k] = r;
		}
	}
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Where f's statistics come from, for an error: "DIR/PID/kvm-stats/N: why" or the process and fd. */
static void file_err(const struct stats_src *s, const struct stats_vm *vm, int kfd, const char *why,
		     char *err, size_t errlen)
{
	if (s->dir)
		snprintf(err, errlen, "%.400s/%d/kvm-stats/%d: %s", s->proc.root, vm->pid, kfd, why);
	else
		snprintf(err, errlen, "process %d: the KVM statistics of its fd %d: %s", vm->pid, kfd, why);
}

/* f's layout read (f->fd, f->kfd set): 0, or -1 (err set). */
static int file_layout(struct stats_src *s, struct stats_vm *vm, struct stats_file *f,
		       char *err, size_t errlen)
{
	char why[512];

	if (kstat_layout_read(f->fd, &f->l, why, sizeof(why))) {
		file_err(s, vm, f->kfd, why, err, errlen);
		return -1;
	}
	return 0;
}

/* f's scope indices and reading buffer, its layout read and f->vcpu set: 0, or -1 (err set). */
static int file_setup(struct stats_src *s, struct stats_file *f, char *err, size_t errlen)
{
	f->last = calloc(f->l.data_size / 8 + 1, sizeof(*f->last));
	if (!f->last) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return file_intern(s, f, err, errlen);
}

/* *ids grown from nr to n words, the new ones zero: 0, or -1 (no memory). */
static int ids_grow(uint64_t **ids, unsigned int nr, unsigned int n)
{
	uint64_t *p = reallocarray(*ids, n, sizeof(*p));

	if (!p)
		return -1;
	memset(p + nr, 0, (n - nr) * sizeof(*p));
	*ids = p;
	return 0;
}

/*
 * A listing of vm shows vCPU id: one not shown before, after the VM's
 * first listing, was made since (its counters start at zero).  0, or -1
 * (no memory).
 */
static int vm_note_vcpu(struct stats_vm *vm, int id)
{
	unsigned int w = (unsigned int)id / 64, n;
	uint64_t bit = UINT64_C(1) << (id % 64);

	if (w >= vm->nr_ids) {
		n = w + 1 > vm->nr_ids * 2 ? w + 1 : vm->nr_ids * 2;
		if (ids_grow(&vm->ids_seen, vm->nr_ids, n) || ids_grow(&vm->ids_born, vm->nr_ids, n))
			return -1;
		vm->nr_ids = n;
	}
	if (vm->ids_seen[w] & bit)
		return 0;
	vm->ids_seen[w] |= bit;
	if (vm->scans)
		vm->ids_born[w] |= bit;
	return 0;
}

/*
 * Where a file of vm (vcpu -1: the VM's) found now counts from: its
 * creation where it was made since kvmtop's first look (the VM, or the
 * vCPU, was not there at an earlier listing), else kvmtop's start (found
 * at the first sample) or this reading (found later, made before).
 */
static enum model_from vm_file_from(const struct stats_src *s, const struct stats_vm *vm, int vcpu)
{
	unsigned int w = (unsigned int)vcpu / 64;
	bool born = vcpu >= 0 && w < vm->nr_ids && (vm->ids_born[w] >> (vcpu % 64) & 1);

	if (vm->from == MODEL_FROM_BIRTH || born)
		return MODEL_FROM_BIRTH;
	return s->fresh ? MODEL_FROM_START : MODEL_FROM_FOUND;
}

/* f's stats fd by ioctl, layout and first reading; 0, 1 (not to be had now), -1 (err set). */
static int file_open(struct stats_src *s, struct stats_vm *vm, struct stats_file *f,
		     int kfd, int vcpu, char *err, size_t errlen)
{
	char why[512];
	bool fatal;

	f->kfd = kfd;
	f->run_fd = vcpu >= 0 ? kfd : -1;
	f->vcpu = vcpu;
	f->found = s->looks;
	f->from = vm_file_from(s, vm, vcpu);
	f->fd = stats_fd(s, vm, kfd, &fatal, why, sizeof(why));
	if (f->fd < 0) {
		if (!fatal)
			return 1;
		strlcpy(err, why, errlen);
		return -1;
	}
	return file_layout(s, vm, f, err, errlen) ?: file_setup(s, f, err, errlen);
}

/*
 * The exits a vCPU's counter "exits" counted since the last reading that
 * none of the counters of a kind of exit (io_exits, halt_exits ...) did:
 * the reason "other_exits" of thread tid, so that its reason rows sum to
 * its exits.  0, or -1 (no memory).
 */
static int stats_other_exits(struct stats_src *s, struct model *m, int tid, uint64_t exits,
			     uint64_t kinds)
{
	if (exits <= kinds)
		return 0;
	if (s->other_exits < 0) {
		s->other_exits = reason_intern(&s->names->reasons, ISA_UNKNOWN, STATS_OTHER_CODE, 0,
					       "other_exits", "", false, false);
		if (s->other_exits < 0)
			return -1;
	}
	return model_add_exits(m, tid, s->other_exits, exits - kinds);
}

/*
 * f's reading in s->vals fed to its counters c (of table t): each
 * counter's growth, each instant value as read; a vCPU's exit counters
 * as its exits and reasons.  0, or -1 (no memory).
 */
static int file_feed(struct stats_src *s, struct model *m, const struct stats_file *f,
		     const struct kstat_table *t, struct ctr *c)
{
	uint64_t exits = 0, kinds = 0;
	unsigned int i, j;

	for (i = 0; i < f->l.nr; i++) {
		const struct kstat_desc *d = &f->l.d[i];
		const struct kstat_desc *td = &t->d[f->idx[i]];
		int r = f->vcpu >= 0 ? s->reason[f->idx[i]] : -2;

		for (j = 0; j < d->size; j++) {
			uint64_t now = kstat_value(s->vals, d, j);
			uint64_t *last = &f->last[d->offset / 8 + j];
			/* a counter that went back (never, but for a reset by hand): from 0 */
			uint64_t grew = now >= *last ? now - *last : now;

			if (!kstat_grows(d)) {
				c[td->slot + j].total = now;
				continue;
			}
			c[td->slot + j].total += grew;
			if (j || !grew || r == -2)
				continue;
			if (model_add_exits(m, f->tid, r, grew))
				return -1;
			if (r == -1)
				exits += grew;
			else
				kinds += grew;
		}
	}
	return f->vcpu >= 0 ? stats_other_exits(s, m, f->tid, exits, kinds) : 0;
}

/*
 * Is f's thread to be looked for now (it reads every task's files)?  At
 * each look for the first STATS_RESCAN after f was found (a new vCPU's
 * thread enters KVM_RUN or takes its name a moment after), then when its
 * VM's fds are listed.
 */
static bool file_thread_due(const struct stats_src *s, const struct stats_vm *vm,
			    const struct stats_file *f)
{
	return f->vcpu >= 0 && f->fd >= 0 && !f->tid &&
	       (vm->listed || s->looks - f->found < STATS_RESCAN);
}

/*
 * Read f and feed what grew to its row.  Its first reading: one made
 * since kvmtop started (MODEL_FROM_BIRTH) counts from zero, as the
 * kernel's counters did at its creation; else that reading is the
 * baseline (kvmtop's start, or when it was found).
 */
static int file_poll(struct stats_src *s, struct model *m, struct stats_vm *vm,
		     struct stats_file *f, char *err, size_t errlen)
{
	const struct kstat_table *t = &s->names->kstats[f->vcpu < 0 ? KSTAT_VM : KSTAT_VCPU];
	struct ctr *c;
	char why[512];

	if (f->fd < 0)
		return 0;
	if (kstat_data_read(f->fd, &f->l, s->vals, why, sizeof(why))) {
		file_err(s, vm, f->kfd, why, err, errlen);
		return -1;
	}
	if (!f->started) {
		f->started = true;
		if (f->from != MODEL_FROM_BIRTH) {
			memcpy(f->last, s->vals, f->l.data_size);
			return 0;
		}
	}
	if (file_thread_due(s, vm, f))
		f->tid = ident_vcpu_thread(&s->proc, vm->pid, f->run_fd, f->vcpu);
	/* no thread yet: its counts wait in the kernel's totals */
	if (f->vcpu >= 0 && !f->tid)
		return 0;
	c = f->vcpu < 0 ? model_kstats_vm(m, vm->pid, t->nr_slots) :
			  model_kstats_vcpu(m, f->tid, f->vcpu, t->nr_slots);
	if (!c) {
		if (f->vcpu >= 0 && m->nr_vcpus >= m->max_vcpus)
			return 0;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (f->vcpu >= 0)
		model_counted_from(m, vm->pid, f->tid, f->from);
	if (file_feed(s, m, f, t, c))
		goto out_nomem;
	memcpy(f->last, s->vals, f->l.data_size);
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static struct stats_vm *stats_vm_find(struct stats_src *s, int pid)
{
	struct stats_vm *vm;
	unsigned int i;

	for (i = 0; i < s->nr_vms; i++)
		if (s->vms[i].pid == pid)
			return &s->vms[i];
	if (s->nr_vms == STATS_VMS_MAX)
		return NULL;
	if (s->nr_vms == s->alloc_vms) {
		unsigned int n = s->alloc_vms ? s->alloc_vms * 2 : 16;

		vm = reallocarray(s->vms, n, sizeof(*vm));
		if (!vm)
			return NULL;
		s->vms = vm;
		s->alloc_vms = n;
	}
	vm = &s->vms[s->nr_vms++];
	memset(vm, 0, sizeof(*vm));
	vm->pid = pid;
	vm->pidfd = -1;
	vm->vm.fd = -1;
	return vm;
}

/* vm's vCPU vcpu, or NULL */
static struct stats_file *vm_vcpu(struct stats_vm *vm, int vcpu)
{
	unsigned int j;

	for (j = 0; j < vm->nr_vcpus; j++)
		if (vm->vcpus[j].vcpu == vcpu)
			return &vm->vcpus[j];
	return NULL;
}

/* A new vCPU file of vm, zeroed: NULL when there is no memory. */
static struct stats_file *vm_vcpu_add(struct stats_vm *vm)
{
	struct stats_file *f = reallocarray(vm->vcpus, vm->nr_vcpus + 1, sizeof(*f));

	if (!f)
		return NULL;
	vm->vcpus = f;
	f = &vm->vcpus[vm->nr_vcpus++];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	return f;
}

/* "kvm-PID/vcpu-N": N; "kvm-PID" (the VM's): -1; anything else: -2. */
static int id_vcpu(const char *id)
{
	const char *slash = strrchr(id, '/'), *e;
	long long n;

	if (strncmp(id, "kvm-", 4))
		return -2;
	if (!slash)
		return -1;
	if (strncmp(slash, "/vcpu-", 6))
		return -2;
	n = strtonum(slash + 6, 0, IDENT_KVM_FDS_MAX, &e);
	return e ? -2 : (int)n;
}

/*
 * A statistics fd the VMM holds (k): taken, unless the VM's or that
 * vCPU's statistics are open already.  0, or -1 (err set).
 */
static int held_open(struct stats_src *s, struct stats_vm *vm, const struct ident_kvm_fd *k,
		     ssize_t nr_fds, char *err, size_t errlen)
{
	struct stats_file t = { .fd = -1, .kfd = k->fd, .run_fd = -1, .held = true }, *f;
	char why[512];
	ssize_t i;
	bool fatal;

	/* taken already: a rescan lists it again */
	if (vm->vm.held && vm->vm.kfd == k->fd)
		return 0;
	for (i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].held && vm->vcpus[i].kfd == k->fd)
			return 0;
	t.fd = take_fd(s, vm, k->fd, &fatal, why, sizeof(why));
	if (t.fd < 0) {
		if (!fatal) {
			vm->next_scan = s->looks + 1;	/* tried again at the next look */
			return 0;
		}
		strlcpy(err, why, errlen);
		return -1;
	}
	if (file_layout(s, vm, &t, err, errlen))
		goto out_close;
	t.vcpu = id_vcpu(t.l.id);
	if (t.vcpu == -2) {
		file_err(s, vm, k->fd, "its id is not \"kvm-PID\" or \"kvm-PID/vcpu-N\"", err, errlen);
		goto out_close;
	}
	if (t.vcpu >= 0 && vm_note_vcpu(vm, t.vcpu)) {
		snprintf(err, errlen, "out of memory");
		goto out_close;
	}
	t.found = s->looks;
	t.from = vm_file_from(s, vm, t.vcpu);
	if (t.vcpu < 0 ? vm->vm.fd >= 0 || vm->vm.l.d : vm_vcpu(vm, t.vcpu) != NULL) {
		file_close(&t);
		return 0;
	}
	/* its thread runs KVM_RUN on the vCPU's own fd */
	for (i = 0; t.vcpu >= 0 && i < nr_fds; i++)
		if (!s->fds[i].stats && s->fds[i].vcpu == t.vcpu)
			t.run_fd = s->fds[i].fd;
	if (file_setup(s, &t, err, errlen))
		goto out_close;
	f = t.vcpu < 0 ? &vm->vm : vm_vcpu_add(vm);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		goto out_close;
	}
	*f = t;
	return 0;
out_close:
	file_close(&t);
	return -1;
}

/*
 * Its fds now: take the statistics fds its VMM holds, then ask for those
 * of the rest (the VM's, new vCPUs) unless KVM refused.
 */
static int vm_scan(struct stats_src *s, struct stats_vm *vm, char *err, size_t errlen)
{
	ssize_t n = ident_kvm_fds(&s->proc, vm->pid, s->fds, IDENT_KVM_FDS_MAX);
	ssize_t i;

	if (n <= 0)
		return 0;	/* gone, or no VM now: dropped below */
	vm->seen = true;
	vm->listed = true;
	for (i = 0; i < n; i++)
		if (!s->fds[i].stats && s->fds[i].vcpu >= 0 && vm_note_vcpu(vm, s->fds[i].vcpu)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	for (i = 0; i < n; i++)
		if (s->fds[i].stats && held_open(s, vm, &s->fds[i], n, err, errlen))
			return -1;
	for (i = 0; i < n && !vm->refused; i++) {
		const struct ident_kvm_fd *k = &s->fds[i];
		struct stats_file *f;
		int r;

		if (k->stats)
			continue;
		if (k->vcpu < 0) {
			if (vm->vm.fd >= 0 || vm->vm.l.d)
				continue;
			f = &vm->vm;
		} else {
			if (vm_vcpu(vm, k->vcpu))
				continue;
			f = vm_vcpu_add(vm);
			if (!f) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		}
		r = file_open(s, vm, f, k->fd, k->vcpu, err, errlen);
		if (r < 0)
			return -1;
		if (r > 0) {
			/* it ended while being read, or KVM refused: tried again next look unless refused */
			file_close(f);
			if (k->vcpu >= 0)
				vm->nr_vcpus--;
			vm->next_scan = s->looks + 1;
			break;
		}
	}
	vm->scans++;
	if (vm->refused && !vm->refused_said && vm->vm.fd < 0 && !vm->nr_vcpus) {
		vm->refused_said = true;
		snprintf(s->notice, sizeof(s->notice),
			 "VM process %d: KVM gives a VM's statistics only to the process that made it "
			 "(KVM_GET_STATS_FD: EIO) and it holds none open: no figures for it", vm->pid);
	}
	return 0;
}

static int stats_vm_cmp(const void *a, const void *b)
{
	const struct stats_vm *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Is pid one of the first n VMs (sorted by pid)? */
static bool vm_known(const struct stats_src *s, unsigned int n, int pid)
{
	struct stats_vm key = { .pid = pid };

	return n && bsearch(&key, s->vms, n, sizeof(key), stats_vm_cmp);
}

/* Read each of vm's files: 0, or -1 (err set). */
static int vm_poll(struct stats_src *s, struct model *m, struct stats_vm *vm,
		   char *err, size_t errlen)
{
	unsigned int j;

	if (file_poll(s, m, vm, &vm->vm, err, errlen))
		return -1;
	for (j = 0; j < vm->nr_vcpus; j++)
		if (file_poll(s, m, vm, &vm->vcpus[j], err, errlen))
			return -1;
	return 0;
}

/*
 * vm's fds listed again if due: its fd table's signature changed since
 * its last listing (a vCPU made, a VM fd closed), STATS_RESCAN looks
 * passed, or there is no signature (then at each look).  0, 1 (it holds
 * no VM now: to be dropped), -1 (err set).
 */
static int vm_relist(struct stats_src *s, struct stats_vm *vm, char *err, size_t errlen)
{
	struct stats_sig sig = { .size = -1 };

	if (s->sig_ok && stats_sig_read(s, vm->pid, &sig))
		return 0;	/* it ended: read a last time at the next look */
	if (s->looks < vm->next_scan && stats_sig_eq(&sig, &vm->sig))
		return 0;
	/* taken before the listing: an fd opened during it changes the next one */
	vm->sig = sig;
	vm->next_scan = s->looks + (s->sig_ok ? STATS_RESCAN : 1);
	vm->seen = false;
	if (vm_scan(s, vm, err, errlen))
		return -1;
	return vm->seen ? 0 : 1;
}

/*
 * The VMs known: one whose process ended, or that holds no VM now, is
 * read a last time (its stats fds still read the kernel's final counts)
 * and goes at once, as they pin the VM in the kernel; the others' fds are
 * listed again when due (vm_relist: new vCPUs, a VM fd closed).
 */
static int vms_check(struct stats_src *s, struct model *m, char *err, size_t errlen)
{
	unsigned int i, j;
	int r;

	for (i = j = 0; i < s->nr_vms; i++) {
		struct stats_vm *vm = &s->vms[i];

		if (!ident_alive(&s->proc, vm->pid)) {
			r = vm_poll(s, m, vm, err, errlen);
			vm_close(vm);
			if (r)
				return -1;
			continue;
		}
		r = vm_relist(s, vm, err, errlen);
		if (r < 0)
			return -1;
		if (r > 0) {
			/*
			 * It holds no VM now: an exiting process closes its
			 * fds before it leaves /proc (a zombie has none), and
			 * a VMM may close its VM.  The fds kvmtop holds still
			 * read the final counts: read them, then let go.
			 */
			r = vm_poll(s, m, vm, err, errlen);
			vm_close(vm);
			if (r)
				return -1;
			continue;
		}
		s->vms[j++] = *vm;
	}
	s->nr_vms = j;
	return 0;
}

/*
 * Process e, holding no VM as far as kvmtop knows, at this look: its fds
 * listed when its fd table's signature changed since its last listing
 * (it opened /dev/kvm, made a VM), and every STATS_RESCAN looks all the
 * same; without signatures on its first STATS_YOUNG looks (a VMM makes
 * its VM as it starts), then every STATS_RESCAN.  A VM found is followed
 * from then.  0, or -1 (err set).
 */
static int proc_look(struct stats_src *s, struct stats_proc *e, char *err, size_t errlen)
{
	struct stats_sig sig = { .size = -1 };
	struct stats_vm *vm;
	int holds;

	if (s->sig_ok && stats_sig_read(s, e->pid, &sig))
		return 0;	/* it ended */
	if (s->looks < e->next && stats_sig_eq(&sig, &e->sig))
		return 0;
	e->sig = sig;
	if (s->sig_ok)
		e->next = s->looks + STATS_RESCAN;
	else
		e->next = s->looks + (++e->looks < STATS_YOUNG ? 1 : STATS_RESCAN);
	holds = ident_holds_vm(&s->proc, e->pid);
	/* none now: a VM it holds later was made since (unless its fds could not be read) */
	e->empty |= holds == 0;
	if (holds <= 0)
		return 0;
	vm = stats_vm_find(s, e->pid);
	if (!vm) {
		if (s->nr_vms == STATS_VMS_MAX)
			return 0;	/* over the VMs kvmtop follows */
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	vm->from = e->born || e->empty ? MODEL_FROM_BIRTH : s->fresh ? MODEL_FROM_START : MODEL_FROM_FOUND;
	vm->sig = sig;
	vm->next_scan = s->looks + (s->sig_ok ? STATS_RESCAN : 1);
	if (vm_scan(s, vm, err, errlen))
		return -1;
	if (!vm->seen)
		vm_close(&s->vms[--s->nr_vms]);
	return 0;
}

/*
 * The processes that do not hold a VM (as far as kvmtop knows), each
 * looked at (proc_look); a process new since the last look was born after
 * kvmtop's first: so was any VM it holds, which counts from zero.
 */
static int procs_check(struct stats_src *s, char *err, size_t errlen)
{
	struct stats_proc *np;
	unsigned int i = 0, k, nv = s->nr_vms;
	size_t n;

	for (;;) {
		n = ident_procs(&s->proc, s->pids, s->alloc_procs);
		if (n < s->alloc_procs || s->alloc_procs >= STATS_PROCS_MAX)
			break;
		if (procs_grow(s))
			goto out_nomem;
	}
	np = s->new_procs;
	for (k = 0; k < n; k++) {
		struct stats_proc *e = &np[k];
		int pid = s->pids[k].pid;

		/* the last list is sorted too: carry over what is known of pid */
		while (i < s->nr_procs && s->procs[i].pid < pid)
			i++;
		if (i < s->nr_procs && s->procs[i].pid == pid && s->procs[i].ino == s->pids[k].ino)
			*e = s->procs[i];
		else
			*e = (struct stats_proc){ .pid = pid, .ino = s->pids[k].ino, .next = s->looks,
						  .sig.size = -1, .born = s->looks > 1 };
		if (vm_known(s, nv, pid))
			continue;
		if (proc_look(s, e, err, errlen))
			return -1;
	}
	s->new_procs = s->procs;
	s->procs = np;
	s->nr_procs = (unsigned int)n;
	if (s->nr_vms != nv)
		qsort(s->vms, s->nr_vms, sizeof(*s->vms), stats_vm_cmp);
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Why a VM's exits are unknown to this source: it has none of its statistics. */
#define STATS_NO_FDS	"no statistics fds: its VMM holds none open, and KVM gives them " \
			"only to the VM's own process (KVM_GET_STATS_FD: EIO)"

/* Look for new VMs and vCPUs, drop the VMs gone (read a last time): 0, or -1 (err set). */
static int stats_look(struct stats_src *s, struct model *m, char *err, size_t errlen)
{
	unsigned int i;

	s->looks++;
	for (i = 0; i < s->nr_vms; i++)
		s->vms[i].listed = false;
	return vms_check(s, m, err, errlen) || procs_check(s, err, errlen) ? -1 : 0;
}

/* Where vm's figures count from: found late if one of its files was, else its own. */
static enum model_from vm_from(const struct stats_vm *vm)
{
	unsigned int j;

	if (vm->vm.fd >= 0 && vm->vm.from == MODEL_FROM_FOUND)
		return MODEL_FROM_FOUND;
	for (j = 0; j < vm->nr_vcpus; j++)
		if (vm->vcpus[j].fd >= 0 && vm->vcpus[j].from == MODEL_FROM_FOUND)
			return MODEL_FROM_FOUND;
	return vm->from;
}

static int stats_poll(struct stats_src *s, struct model *m, char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	/* the first sample: what is found now counts from here */
	s->fresh = ++s->reads == 1;
	ret = stats_look(s, m, err, errlen);
	s->fresh = false;
	if (ret)
		return -1;
	for (i = 0; i < s->nr_vms; i++) {
		struct stats_vm *vm = &s->vms[i];
		bool none = vm->refused && vm->vm.fd < 0 && !vm->nr_vcpus;

		/* listed all the same, saying why it has no figures */
		if (model_vm_exits_unknown(m, vm->pid, none ? STATS_NO_FDS : NULL))
			goto out_nomem;
		if (vm_poll(s, m, vm, err, errlen))
			return -1;
		model_counted_from(m, vm->pid, 0, vm_from(vm));
	}
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static void stats_close(struct stats_src *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_vms; i++)
		vm_close(&s->vms[i]);
	free(s->vms);
	free(s->reason);
	free(s->vals);
	free(s->fds);
	free(s->pids);
	free(s->procs);
	free(s->new_procs);
	memset(s, 0, sizeof(*s));
}

/* --- the source --- */

static int stats_source_open(struct source *src, const struct source_config *c, struct kvm_names *names,
		    char *err, size_t errlen)
{
	struct stats_src *s = src->priv;

	s->names = names;
	s->other_exits = -1;
	s->dir = c->proc_root != NULL;
	ident_init(&s->proc, c->proc_root);
	s->sig_ok = stats_sig_works(s);
	s->vals = calloc(KSTAT_DATA_MAX / 8, sizeof(*s->vals));
	s->fds = calloc(IDENT_KVM_FDS_MAX, sizeof(*s->fds));
	if (!s->vals || !s->fds || procs_grow(s)) {
		snprintf(err, errlen, "out of memory");
		goto out_close;
	}
	if (!s->dir && geteuid() && !can_ptrace()) {
		snprintf(err, errlen, "--source stats takes the VMs' KVM fds: it needs root or CAP_SYS_PTRACE");
		goto out_close;
	}
	strlcpy(src->clock, "mono", sizeof(src->clock));
	src->time_unit = "ns";
	src->ns = true;
	src->live = true;
	snprintf(src->notice, sizeof(src->notice),
		 "reading KVM's binary statistics%s%.400s: counts, no latencies or recent exits",
		 s->dir ? " from " : "", s->dir ? s->proc.root : "");
	return 0;
out_close:
	stats_close(s);
	return -1;
}

/*
 * Between samples: new VMs found and their fds taken, their vCPUs'
 * threads looked for, so a VM that lives a few seconds is read (its
 * figures at the next sample, its stats fds held meanwhile).
 */
static int stats_source_discover(struct source *src, struct model *m, char *err, size_t errlen)
{
	struct stats_src *s = src->priv;
	const struct kstat_table *t = &s->names->kstats[KSTAT_VCPU];
	unsigned int i, j;

	if (stats_look(s, m, err, errlen))
		return -1;
	for (i = 0; i < s->nr_vms; i++) {
		struct stats_vm *vm = &s->vms[i];

		for (j = 0; j < vm->nr_vcpus; j++) {
			struct stats_file *f = &vm->vcpus[j];

			if (!file_thread_due(s, vm, f))
				continue;
			f->tid = ident_vcpu_thread(&s->proc, vm->pid, f->run_fd, f->vcpu);
			if (!f->tid)
				continue;
			/* its row now, named while its thread and process are there to ask */
			if (!model_kstats_vcpu(m, f->tid, f->vcpu, t->nr_slots)) {
				if (m->nr_vcpus < m->max_vcpus)
					goto out_nomem;
				continue;
			}
			model_counted_from(m, vm->pid, f->tid, f->from);
		}
	}
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int stats_source_sample(struct source *src, struct model *m, char *err, size_t errlen)
{
	struct stats_src *s = src->priv;
	int ret = stats_poll(s, m, err, errlen);

	/* the driver shows it after this sample */
	if (s->notice[0] && !src->notice[0])
		strlcpy(src->notice, s->notice, sizeof(src->notice));
	s->notice[0] = '\0';
	return ret;
}

static void stats_source_close(struct source *src)
{
	stats_close(src->priv);
}

const struct source_ops source_stats = {
	.name = "stats",
	.select = "stats",
	.priv_size = sizeof(struct stats_src),
	.open = stats_source_open,
	.sample = stats_source_sample,
	.discover = stats_source_discover,
	.close = stats_source_close,
};
