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

#include "model.h"

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
int ident_times(const struct ident *id, int tid, struct proc_times *out);
/* Does process pid still exist? */
bool ident_alive(const struct ident *id, int pid);
/*
 * The VM name in a command line (argv NUL-separated, len bytes): QEMU or
 * libvirt "-name guest=X,..." / "-name X" (",," is a comma), kvmtool
 * "--name X", Firecracker "--id X", cloud-hypervisor "--api-socket P",
 * crosvm "--socket P" (P's file name without ".sock"); else comm.
 */
void ident_vm_name(const char *cmdline, size_t len, const char *comm, char *out, size_t outlen);

#endif
