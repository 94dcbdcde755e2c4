/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one record that flows from the decoder to the model: a KVM
 * tracepoint reduced to what kvmtop counts, whatever arch or kernel
 * layout it came from.
 */
#ifndef KVMTOP_KVM_EVENT_H
#define KVMTOP_KVM_EVENT_H

#include <stdint.h>

enum kvm_event_kind {
	KVM_EV_EXIT,		/* kvm_exit and its per-arch equivalents */
	KVM_EV_ENTRY,		/* kvm_entry and its per-arch equivalents */
	KVM_EV_OTHER,		/* any other kvm event: counted per vCPU */
};

/* Instruction set / hypervisor flavour an exit code belongs to. */
enum kvm_isa {
	ISA_UNKNOWN,
	ISA_VMX,
	ISA_SVM,
	ISA_ARM64,
	ISA_PPC_HV,
	ISA_S390,
	ISA_NR,
};

#define KVM_VCPU_NONE	(-1)

/* Where the guest was when it exited, where the arch says so exactly. */
enum guest_mode {
	GUEST_MODE_UNKNOWN,
	GUEST_KERNEL,
	GUEST_USER,
};

/* powerpc MSR problem state: the guest ran in user mode */
#define PPC_MSR_PR	(1ull << 14)

/*
 * For KVM_EV_OTHER only time, cpu, tid, vcpu_id, kind, other and sub are
 * set: most such events are only counted, and their records are not read
 * further.
 */
struct kvm_event {
	uint64_t time;		/* in the source's time unit */
	int cpu;		/* host CPU the record was written on */
	int tid;		/* host thread (common_pid) */
	int vcpu_id;		/* from the event, or KVM_VCPU_NONE */
	enum kvm_event_kind kind;
	enum kvm_isa isa;
	uint32_t reason;	/* arch exit code, flags stripped */
	uint32_t flags;		/* arch exit flags (VMX FAILED_VMENTRY ...) */
	uint64_t ip;		/* guest instruction pointer, 0 if none */
	uint64_t info1;		/* arch detail of an exit (x86 info1, powerpc MSR ...) */
	uint64_t info2;
	int ninfo;		/* how many of info1, info2 the layout has */
	enum guest_mode mode;	/* exits: from the arch's state (powerpc MSR, s390 PSW) */
	int reason_id;		/* KVM_EV_EXIT: id in the reason table */
	int other;		/* KVM_EV_OTHER: index in decode's event table */
	int sub;		/* KVM_EV_OTHER: sub-reason (userspace exit reason), -1 if none */
};

const char *isa_name(enum kvm_isa isa);

#endif
