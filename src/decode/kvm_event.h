/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one record that flows from the decoder to the model: a KVM
 * tracepoint reduced to what kvmtop counts, whatever arch or kernel
 * layout it came from.
 */
#ifndef KVMTOP_KVM_EVENT_H
#define KVMTOP_KVM_EVENT_H

#include <stdbool.h>
#include <stdint.h>

enum kvm_event_kind {
	KVM_EV_EXIT,		/* kvm_exit and its per-arch equivalents */
	KVM_EV_ENTRY,		/* kvm_entry and its per-arch equivalents */
	KVM_EV_OTHER,		/* any other kvm event: counted per vCPU */
	/*
	 * The scheduler's view of a thread (sched:sched_switch,
	 * sched:sched_waking or sched_wakeup), for where a vCPU's time goes:
	 * SWITCH: tid (prev_pid) left its CPU, asleep when state has any of
	 * the low 8 bits (S, D, ...), else runnable (R, R+); next_pid got it.
	 * WAKE: tid was woken (runnable from then).  Not KVM events: the
	 * model counts neither, and creates no vCPU for them.
	 */
	KVM_EV_SWITCH,
	KVM_EV_WAKE,
	/*
	 * A new thread or process (task:task_newtask): tid (common_pid)
	 * made next_tid, named next_comm (its creator's name then), with
	 * the clone flags in info1 (CLONE_THREAD: a thread of tid's
	 * process).  Identity, not KVM: the driver keeps it (who a thread
	 * that is gone was), the model never sees it.
	 */
	KVM_EV_NEWTASK,
};

/* Instruction set / hypervisor flavour an exit code belongs to. */
enum kvm_isa {
	ISA_UNKNOWN,
	ISA_VMX,
	ISA_SVM,
	ISA_ARM64,
	ISA_PPC_HV,
	ISA_S390,
	ISA_RISCV,
	ISA_LOONGARCH,
	ISA_NR,
};

#define KVM_VCPU_NONE	(-1)

/*
 * What an exit touched (kvm_event.obj): from the exit's own info (an x86
 * port, an exception vector) or from the companion event of the same
 * vCPU thread (kvm_pio, kvm_mmio, kvm_msr ...) that KVM writes while it
 * handles the exit.  Named by src/decode/objects.c's table.
 */
enum kvm_obj_kind {
	KVM_OBJ_NONE,		/* not known */
	KVM_OBJ_PORT,		/* x86 port I/O: the I/O port */
	KVM_OBJ_MMIO,		/* emulated MMIO: the guest-physical page */
	KVM_OBJ_MSR,		/* x86 MSR index */
	KVM_OBJ_APIC,		/* x86 local APIC register (its xAPIC offset) */
	KVM_OBJ_HCALL,		/* KVM hypercall number */
	KVM_OBJ_HV_HCALL,	/* Hyper-V hypercall code */
	KVM_OBJ_CR,		/* x86 control register */
	KVM_OBJ_CPUID,		/* cpuid leaf */
	KVM_OBJ_VECTOR,		/* exception vector */
	KVM_OBJ_PPC_HCALL,	/* powerpc PAPR hcall number (kvm_hcall_enter's req) */
	KVM_OBJ_S390_INSN,	/* s390 intercepted instruction's opcode */
	KVM_OBJ_S390_DIAG,	/* s390 diagnose code */
	KVM_OBJ_MMIO_PAGE,	/* emulated MMIO on an arch without a map of named pages (LoongArch): the page */
	KVM_OBJ_LA_GSPR,	/* LoongArch: the class of a GSPR exit's instruction (CPUCFG, CSRRD, IDLE ...) */
	KVM_OBJ_SYSREG,		/* arm64 system register (Op0, Op1, CRn, CRm, Op2) */
	KVM_OBJ_HVC,		/* arm64 HVC's SMCCC function id (w0) */
	KVM_OBJ_WFX,		/* arm64 WFx exit: 0 WFI, 1 WFE */
	KVM_OBJ_MMIO_ARM64,	/* arm64 emulated MMIO: the IPA's page (named from arm64's map) */
	KVM_OBJ_OTHER,		/* the model's: objects a full table left out */
	KVM_OBJ_KINDS,
};

/* An object's direction, where its event says it. */
enum kvm_obj_dir {
	OBJ_DIR_NONE,
	OBJ_DIR_READ,		/* a read, port I/O's in */
	OBJ_DIR_WRITE,		/* a write, port I/O's out */
};

#define DECODE_OTHER_MAX	128	/* other kvm events counted apart */
#define UEXIT_MAX		64	/* userspace exit reasons kept apart */

/*
 * Where the guest was when it exited: exactly where the arch's state
 * says (powerpc MSR PR, s390 PSW), else inferred from the guest IP where
 * the arch's guests split the address space in halves (x86-64, arm64).
 */
enum guest_mode {
	GUEST_MODE_UNKNOWN,
	GUEST_KERNEL,
	GUEST_USER,
	GUEST_KERNEL_GUESS,	/* inferred: an upper-half address */
	GUEST_USER_GUESS,	/* inferred: a lower-half address */
};

/* powerpc MSR problem state: the guest ran in user mode */
#define PPC_MSR_PR	(1ull << 14)

/*
 * For KVM_EV_OTHER only time, cpu, tid, vcpu_id, kind, other, sub and
 * the object (a companion event's, else KVM_OBJ_NONE) are set: most
 * such events are only counted, and their records are not read further.
 */
#define KVM_COMM_LEN	16	/* the kernel's TASK_COMM_LEN */

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
	enum kvm_obj_kind obj_kind;	/* exits and companions: what obj is, KVM_OBJ_NONE: none */
	uint64_t obj;		/* the object touched (a port, an MMIO page's address ...) */
	uint8_t obj_dir;	/* enum kvm_obj_dir */
	uint8_t obj_size;	/* bytes moved, 0: not said */
	enum guest_mode mode;	/* exits: exact or inferred, see enum guest_mode */
	int reason_id;		/* KVM_EV_EXIT: id in the reason table */
	int other;		/* KVM_EV_OTHER: index in decode's event table */
	int sub;		/* KVM_EV_OTHER: sub-reason (userspace exit reason), -1 if none */
	int next_tid;		/* KVM_EV_SWITCH: the thread that got the CPU; NEWTASK: the new one */
	uint64_t state;		/* KVM_EV_SWITCH: prev_state */
	/* KVM_EV_SWITCH: the names of both threads ("" where the format has none); NEWTASK: next_comm */
	char prev_comm[KVM_COMM_LEN];
	char next_comm[KVM_COMM_LEN];
	int wake_cpu;		/* KVM_EV_WAKE: the CPU it is woken onto, -1: not known */
};

/* A thread switched out in this prev_state sleeps (S, D, T, ... I); R and R+ do not. */
#define SCHED_SLEEP_MASK	0xffu

const char *kvm_isa_name(enum kvm_isa isa);
/*
 * The mode of a guest IP where the arch does not say it exactly: Linux
 * guests on x86-64 and arm64 run their kernel in the upper half of the
 * address space and user space in the lower half.
 */
enum guest_mode kvm_guest_mode_guess(uint64_t ip);
/* "kernel", "user" or "unknown", whether exact or inferred. */
const char *kvm_guest_mode_name(enum guest_mode mode);
/* The mode is an inference from the address (GUEST_*_GUESS). */
bool kvm_guest_mode_inferred(enum guest_mode mode);
/* For a column: "kernel", "user", inferred ones with "?", unknown "-". */
const char *kvm_guest_mode_label(enum guest_mode mode);

#endif
