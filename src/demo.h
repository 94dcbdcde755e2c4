/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The demo guest: kvmtop's own small VM, so there is something real to
 * watch on a host without VMs.  It runs as a separate process, named like
 * a QEMU guest ("-name guest=kvmtop-demo"), with one thread per vCPU
 * named "CPU n/KVM".  Each vCPU loops in real mode over a known mix:
 *
 *	out 0x10 (port I/O), a store to unbacked memory (MMIO), cpuid,
 *	rdmsr 0x10 (TSC), hlt
 *
 * Port I/O, MMIO and HLT come back to the demo process (KVM_EXIT_IO,
 * KVM_EXIT_MMIO, KVM_EXIT_HLT); cpuid and rdmsr are handled in the kernel.
 */
#ifndef KVMTOP_DEMO_H
#define KVMTOP_DEMO_H

#include <sys/types.h>

#define DEMO_NAME	"kvmtop-demo"
#define DEMO_MAX_VCPUS	64

/* argv[1] == "--demo-guest": the demo process itself. */
int demo_guest_main(int argc, char **argv);
/*
 * Start the demo process: vcpus threads, loops iterations each (0: until
 * stopped), its counts written as JSON to report (may be NULL) when it
 * ends.  Returns its pid, or -1 with a one-line reason in err.
 */
pid_t demo_start(int vcpus, long long loops, const char *report, char *err, size_t errlen);
/*
 * The sample recording for --demo where /dev/kvm is missing, written at
 * build time by the project's generator (several vCPUs, realistic reasons
 * and latencies, guest IPs; DEMO_SAMPLE_SYMS is the guest's kallsyms):
 * sample/ beside a kvmtop run from its build tree (or one level up),
 * else where make install put it.  0 with its path in buf, or -1 with the
 * last place looked at in buf.
 */
#define DEMO_SAMPLE		"kvmtop-sample.dat"
#define DEMO_SAMPLE_SYMS	"kvmtop-sample.kallsyms"
int demo_sample(char *buf, size_t len);
/* Stop it (SIGTERM) and reap it; 0 if it ended well. */
int demo_stop(pid_t pid);
/* Has it ended by itself?  1: yes (reaped, *status set), 0: no. */
int demo_ended(pid_t pid, int *status);

#endif
