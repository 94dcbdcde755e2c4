/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identity: which VM (host process) a vCPU thread belongs to and what the
 * VM is called, read from /proc -- or from a fixture tree laid out like
 * it, for tests.  Names are kept raw here and escaped where printed.
 */
#ifndef KVMTOP_IDENT_H
#define KVMTOP_IDENT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A VM's or thread's name, with its NUL: longer names are cut. */
#define IDENT_NAME_LEN	64

/* A thread's CPU accounting from /proc (ident_read_times()), cumulative since it started. */
struct proc_times {
	uint64_t run_ns;	/* on a CPU (schedstat): exact */
	uint64_t wait_ns;	/* runnable, waiting for a CPU (schedstat): exact */
	uint64_t utime;		/* clock ticks in user space, guest time included (stat) */
	uint64_t stime;		/* clock ticks in the kernel */
	uint64_t gtime;		/* clock ticks in the guest */
};

/* Who a thread is: filled by the source (replay: the file; live: /proc). */
struct ident_info {
	int pid;			/* VM = host process; 0 = unknown */
	char vm_name[IDENT_NAME_LEN];
	char comm[IDENT_NAME_LEN];	/* thread name */
	/*
	 * A host kernel thread (kworker, kdamond, an irqfd worker ...): host
	 * work, never a VM; its events count in the host's figures only.
	 * (vhost-PID threads serve VM PID: they are that VM's, not this.)
	 */
	bool kernel;
	/* a recording's thread no snapshot names: pid and name by the documented guess */
	bool guessed;
	/* in: the vCPU id its first event gives, or -1 (for the guess) */
	int vcpu_hint;
	/* out: the vCPU id its name gives (ident_vcpu_id(comm)), or -1 */
	int vcpu_id;
	/*
	 * Who its VM is, where the source knows it when it names the thread
	 * (a recording's --threads snapshot: the command line's -uuid ...),
	 * NULL where not (live: src/context/ reads it at each VM's first
	 * snapshot).  It lives as long as the source.
	 */
	const struct ident_vm *vm_ident;
};

typedef void (*ident_fn)(void *ctx, int tid, struct ident_info *out);

struct ident {
	char root[PATH_MAX];	/* "/proc" */
};

void ident_init(struct ident *id, const char *proc_root);
/*
 * Fill out for thread tid: its process (the VM), the VM's name, the
 * thread's name.  0, or -1 when the thread is gone (out then names an
 * unknown VM, pid 0).
 */
int ident_thread(const struct ident *id, int tid, struct ident_info *out);
/*
 * The vCPU id in a thread name: "CPU 3/KVM" (QEMU), "kvm-vcpu-3" (kvmtool),
 * "vcpu3" / "fc_vcpu 3" (others); -1 when it names none.
 */
int ident_vcpu_id(const char *comm);
/*
 * A host kernel thread by its name alone, for recordings (no /proc):
 * kworker/..., kdamond.N, kswapdN, ksoftirqd/N, irq/..., kvm-pit/...,
 * kvm-nx-lpage-recovery ...  Not vhost-PID, which serves VM PID.
 */
bool ident_kernel_comm(const char *comm);
/*
 * Thread tid's CPU accounting: /proc/TID/schedstat (ns on a CPU and
 * waiting for one) and the utime, stime and guest_time ticks of
 * /proc/TID/stat.  0; -1 when the thread is gone (before or while it is
 * read); -2 when the thread is there but schedstat is not (a kernel
 * without CONFIG_SCHED_INFO) or counts nothing (sched_info off).
 */
int ident_read_times(const struct ident *id, int tid, struct proc_times *out);
/* A thread of a process: its name, schedstat and start (ident_read_tasks). */
struct ident_task {
	int tid;
	char comm[IDENT_NAME_LEN];
	uint64_t run_ns;
	uint64_t wait_ns;
	uint64_t start_ticks;	/* when it began, clock ticks after boot (stat's field 22) */
	bool start_known;
};

#define IDENT_TASKS_MAX	4096

/*
 * The threads of process pid (/proc/PID/task), sorted by tid, at most
 * IDENT_TASKS_MAX, with their names and schedstat; threads that end
 * while they are read are left out.  The count, or -1 (gone or no
 * memory); *out is to be freed.
 */
ssize_t ident_read_tasks(const struct ident *id, int pid, struct ident_task **out);
/*
 * When this process (kvmtop) began, in the clock of stat's field 22
 * (ticks after boot), from the running system's /proc whatever the root:
 * true with *ticks.
 */
bool ident_self_start(uint64_t *ticks);
/*
 * Thread tid of process pid's own disk bytes: read_bytes and write_bytes
 * of /proc/PID/task/TID/io (pid 0: /proc/TID/io, a kernel thread of its
 * own; never /proc/PID/io, the whole process's).  0, or -1 (gone, not
 * readable, or a line missing).
 */
int ident_read_io(const struct ident *id, int pid, int tid, uint64_t *rd, uint64_t *wr);
/*
 * vhost kernel threads (before Linux 6.4, vhost-PID were kernel threads,
 * not the VM's): the tid and VM pid of each, at most max.  The count.
 */
size_t ident_vhost_kthreads(const struct ident *id, int *tids, int *pids, size_t max);
/* A KVM fd of a process (its /proc/PID/fd link): the VM's, or vCPU N's. */
struct ident_kvm_fd {
	int fd;			/* its number in the process */
	/*
	 * -1: "anon_inode:kvm-vm"; N: "anon_inode:kvm-vcpu:N".  With stats,
	 * a statistics fd the process holds: -1 "anon_inode:kvm-vm-stats",
	 * IDENT_VCPU_ANY "anon_inode:kvm-vcpu-stats:N" (its header's id says
	 * which vCPU).
	 */
	int vcpu;
	bool stats;
};

#define IDENT_VCPU_ANY	(-3)

#define IDENT_KVM_FDS_MAX	8194	/* a VM and KVM_MAX_VCPUS (4096 on x86) vCPUs, and their statistics fds */
/*
 * The KVM fds process pid holds, at most max, the VM's first: the count
 * (0: none, a process that holds no VM), or -1 when the process is gone
 * or its fds cannot be read (errno: EACCES, EPERM ...).  A process
 * holding two VMs has its first VM fd's vCPUs only (kvmtop counts one
 * VM per process, as it names VMs by pid).
 */
ssize_t ident_kvm_fds(const struct ident *id, int pid, struct ident_kvm_fd *out, size_t max);
/* A process as /proc lists it: its pid, and the inode of its directory. */
struct ident_proc {
	int pid;
	uint64_t ino;	/* another process with the same pid (reused) has another */
};
/* The processes now, by pid ascending, at most max: the count. */
size_t ident_procs(const struct ident *id, struct ident_proc *out, size_t max);
/*
 * Does process pid hold a KVM VM fd (a /proc/PID/fd link
 * "anon_inode:kvm-vm")?  1 yes, 0 no, -1 cannot tell (it is gone, or its
 * fds cannot be read).
 */
int ident_holds_vm(const struct ident *id, int pid);
/*
 * The thread of process pid that is inside ioctl(fd, KVM_RUN) now
 * (/proc/PID/task/TID/syscall; never a kernel worker of its thread
 * group, whose syscall file is its parent's), else one named for vCPU
 * vcpu ("CPU N/KVM" ...): its tid, or 0 when none is (the vCPU is not
 * running, or its thread cannot be told).
 */
int ident_vcpu_thread(const struct ident *id, int pid, int fd, int vcpu);
/* Does process pid still exist? */
bool ident_alive(const struct ident *id, int pid);
/*
 * The VM name in a command line (argv NUL-separated, len bytes): QEMU or
 * libvirt "-name guest=X,..." / "-name X" (",," is a comma), kvmtool
 * "--name X", Firecracker "--id X", cloud-hypervisor "--api-socket P",
 * crosvm "--socket P" (P's file name without ".sock"); else comm.
 */
void ident_vm_name(const char *cmdline, size_t len, const char *comm, char *out, size_t outlen);
/*
 * A command line's parts, for ident.c's and ident_vm.c's readers of it:
 * cmdline (len bytes, its arguments NUL-separated) copied into copy (len
 * + 1 bytes) and split into argv (at most max): argc.  And the value of
 * option opt at argv[*i] ("opt V", moving *i past V, or "opt=V"), NULL
 * where argv[*i] is not opt.
 */
int ident_argv_split(const char *cmdline, size_t len, char *copy, char **argv, int max);
const char *ident_opt_value(char **argv, int argc, int *i, const char *opt);

/*
 * Who a VM is, from what the host holds (ident_vm.c; read live by
 * src/context/context_ident.c at its discovery and when its files
 * change): the best display name, its UUID, and where they came from.
 * Every string is raw: escape before printing.  Empty: not known.
 */
#define IDENT_UUID_LEN	40
struct ident_vm {
	bool read;			/* looked up once at least */
	char name[IDENT_NAME_LEN];	/* the best name: OpenStack's, libvirt's, the VMM's, comm */
	const char *from;		/* a constant: "openstack", "libvirt", "kata", "qemu" ... */
	char uuid[IDENT_UUID_LEN];
	char project[IDENT_NAME_LEN];	/* OpenStack's project (nova:owner) */
	char flavor[IDENT_NAME_LEN];	/* OpenStack's flavor */
	/* what it was read from: the libvirt run dir's and the status file's (mtime, inode, size) */
	uint64_t dir_sig;
	uint64_t file_sig;
};

/*
 * A VM's identity from its VMM's command line (argv NUL-separated, len
 * bytes) and its name by ident_vm_name(): QEMU's -uuid, Kata's sandbox
 * (QEMU's "-name sandbox-ID"), Firecracker's --id, cloud-hypervisor's
 * API socket.  out->name is vm_name, out->from says which kind named it.
 */
void ident_vm_cmdline(const char *cmdline, size_t len, const char *vm_name, struct ident_vm *out);
/*
 * The VMM's parent's command line: a Kata shim (containerd-shim-kata-v2
 * ... -id ID) names the sandbox.  true when it did.
 */
bool ident_vm_parent(const char *cmdline, size_t len, struct ident_vm *out);
/*
 * The pid a libvirt status XML (<domstatus ... pid='N'>) records, from
 * its first len bytes: N, or 0 when it says none.
 */
int ident_libvirt_pid(const char *xml, size_t len);
/*
 * A libvirt status XML (xml, len bytes, NUL-terminated) of process pid:
 * its domain's <name> and <uuid>, and OpenStack's <nova:name>,
 * <nova:flavor name=> and <nova:project> from its <metadata>, into out.
 * 0; -1 when it is not pid's or not a domain's status (out unchanged).
 */
int ident_libvirt_xml(const char *xml, size_t len, int pid, struct ident_vm *out);

/*
 * A recording's threads (ident_threads.c): a snapshot of the recording
 * host's threads, the output of "ps -eLo tid=,pid=,args=", read whole.
 * 0, or -1 with one line in err naming the file and line (a line that is
 * not "TID PID ARGS", a tid listed twice, a pid that is another
 * process's thread, no thread at all).
 */
struct ident_threads;
int ident_threads_load(struct ident_threads **out, const char *path, char *err, size_t errlen);
void ident_threads_free(struct ident_threads *t);
/* Thread tid's process and VM name from the snapshot: false if it lists no tid (out unchanged). */
bool ident_threads_find(const struct ident_threads *t, int tid, struct ident_info *out);
/*
 * A recording's thread that no snapshot names: grouped by tid - vCPU id
 * (its name's, else vcpu_hint from its events, see kvmtop(1)), the VM
 * called "unknown@KEY" with pid KEY and marked guessed.
 */
void ident_guess(int tid, const char *comm, int vcpu_hint, struct ident_info *out);

/*
 * Births (ident_births.c): the threads and processes made while kvmtop
 * traced, so one that is gone by the time it is asked about is still
 * placed.  A table of fixed size (newer births take older ones' slots).
 * new: NULL when memory ran out.
 */
struct ident_births;
struct ident_births *ident_births_new(void);
void ident_births_free(struct ident_births *b);
/* creator made tid, a thread of creator's process (thread) or a process of its own, named comm. */
void ident_births_add(struct ident_births *b, int tid, int creator, bool thread, const char *comm);
/*
 * Thread tid's process as its birth says: a thread of the same process
 * that is older than the births kept (the creator's creator ...: ask the
 * source who that one is), or (*born) the process's own first thread,
 * whose id is its pid.  comm gets tid's name at birth (its creator's).
 * 0 when no birth of tid is kept.
 */
int ident_births_process(const struct ident_births *b, int tid, bool *born, char *comm, size_t len);

#endif
