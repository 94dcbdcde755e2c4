// SPDX-License-Identifier: GPL-2.0
/*
 * RISC-V (the H extension): kvm:kvm_exit / kvm:kvm_entry.
 *
 * kvm_exit {sepc, scause, stval, htval, htinst}, kvm_entry {pc}
 * (arch/riscv/kvm/trace.h, since 2024; no event carries a vCPU id).  The
 * reason is scause: its top bit says an interrupt, the rest the cause.
 * kvmtop's code keeps that as a 32-bit scause would: the cause, with
 * bit 31 set for an interrupt (so S-mode timer is 0x80000005), whatever
 * the host's XLEN.  A code no table names is written in hex, as the
 * kernel's print fmt writes scause.
 *
 * Interrupts are the host's (its timer, external and software
 * interrupts, a guest external interrupt): asynchronous, their sepc a
 * time sample of where the guest runs.  The guest's WFI traps as a
 * virtual instruction (KVM sets hstatus.VTW) and KVM blocks the vCPU in
 * kvm_riscv_vcpu_wfi(): such an exit carries the WFI encoding in stval
 * (where the hart writes the instruction there, as KVM reads it first)
 * and is flagged WFI, kept apart from handling time like x86's HLT.
 *
 * The print fmt has no name table; the causes below are those of the
 * RISC-V privileged spec (version 20211203: the mcause table, "Machine
 * cause register (mcause) values after trap", with the hypervisor
 * extension's causes 2, 6, 10, 12 and 20-23, and Sscofpmf's 13), spelled
 * as Linux's arch/riscv/include/asm/csr.h spells them (IRQ_S_TIMER;
 * EXC_LOAD_GUEST_PAGE_FAULT less its EXC_ prefix, as perf kvm stat
 * prints them).
 */
#include <stdio.h>

#include "decode/decode.h"

#define RV_IRQ			0x80000000u	/* ev->reason: an interrupt */
#define RV_CAUSE_MASK		0x7fffffffu
#define RV_FLAG_WFI		1u		/* ev->flags */
#define RV_INSN_WFI		0x10500073u
#define RV_EXC_SUPERVISOR_SYSCALL	10	/* ecall from VS-mode: an SBI call */
#define RV_EXC_LOAD_GUEST_PAGE_FAULT	21
#define RV_EXC_VIRTUAL_INST_FAULT	22
#define RV_EXC_STORE_GUEST_PAGE_FAULT	23

static const char *const riscv_irq_names[] = {
	[1] = "IRQ_S_SOFT", [2] = "IRQ_VS_SOFT", [3] = "IRQ_M_SOFT", [5] = "IRQ_S_TIMER",
	[6] = "IRQ_VS_TIMER", [7] = "IRQ_M_TIMER", [9] = "IRQ_S_EXT", [10] = "IRQ_VS_EXT",
	[11] = "IRQ_M_EXT", [12] = "IRQ_S_GEXT", [13] = "IRQ_PMU_OVF",
};

static const char *const riscv_exc_names[] = {
	[0] = "INST_MISALIGNED", [1] = "INST_ACCESS", [2] = "INST_ILLEGAL", [3] = "BREAKPOINT",
	[4] = "LOAD_MISALIGNED", [5] = "LOAD_ACCESS", [6] = "STORE_MISALIGNED",
	[7] = "STORE_ACCESS", [8] = "SYSCALL", [9] = "HYPERVISOR_SYSCALL",
	[10] = "SUPERVISOR_SYSCALL", [12] = "INST_PAGE_FAULT", [13] = "LOAD_PAGE_FAULT",
	[15] = "STORE_PAGE_FAULT", [20] = "INST_GUEST_PAGE_FAULT", [21] = "LOAD_GUEST_PAGE_FAULT",
	[22] = "VIRTUAL_INST_FAULT", [23] = "STORE_GUEST_PAGE_FAULT",
};

#define RV_NAMES(t)	(sizeof(t) / sizeof((t)[0]))

/*
 * scause into kvmtop's code: the interrupt bit is the top bit of the
 * host's scause, bit 63 of a 64-bit host's and bit 31 of a 32-bit one's.
 */
static void riscv_decode_exit(const struct field_vals *fv, struct kvm_event *ev)
{
	uint64_t scause = FV_HAS(fv, FR_REASON) ? fv->v[FR_REASON] : 0;
	bool irq = scause >> 63 || (scause >> 32 == 0 && scause & RV_IRQ);

	ev->isa = ISA_RISCV;
	ev->reason = (uint32_t)(scause & RV_CAUSE_MASK) | (irq ? RV_IRQ : 0);
	ev->flags = 0;
	if (ev->reason == RV_EXC_VIRTUAL_INST_FAULT && FV_HAS(fv, FR_INFO1) &&
	    (uint32_t)fv->v[FR_INFO1] == RV_INSN_WFI)
		ev->flags = RV_FLAG_WFI;
}

/* The spec's name of code (an interrupt's or an exception's), or NULL. */
static const char *riscv_table_name(enum kvm_isa isa, uint32_t code)
{
	uint32_t cause = code & RV_CAUSE_MASK;

	if (code & RV_IRQ)
		return cause < RV_NAMES(riscv_irq_names) ? riscv_irq_names[cause] : NULL;
	return cause < RV_NAMES(riscv_exc_names) ? riscv_exc_names[cause] : NULL;
}

/* "WFI" for a virtual-instruction exit of the guest's WFI, else "". */
static void riscv_flag_names(enum kvm_isa isa, uint32_t flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s", flags & RV_FLAG_WFI ? "WFI" : "");
}

/* The guest's WFI: KVM blocks the vCPU until an interrupt. */
static bool riscv_blocking(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return flags & RV_FLAG_WFI;
}

/* Every interrupt is asynchronous; every exception is the guest's doing. */
static bool riscv_async(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code & RV_IRQ;
}

/* WFI waits; a guest load/store page fault is MMIO (or a stage-2 fault); VS ecall an SBI call. */
static enum reason_class riscv_class(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	if (riscv_blocking(isa, code, flags))
		return RC_HALT;
	if (riscv_async(isa, code, flags))
		return RC_INTERRUPT;
	if (code == RV_EXC_LOAD_GUEST_PAGE_FAULT || code == RV_EXC_STORE_GUEST_PAGE_FAULT)
		return RC_MMIO;
	if (code == RV_EXC_SUPERVISOR_SYSCALL)
		return RC_HYPERCALL;
	return RC_OTHER;
}

/*
 * A virtual-instruction exit is a WFI where its stval is WFI's encoding
 * (riscv_decode_exit): its stval is kept by a source that counts exits by
 * their fields (the bpf source), whole, as the instruction it names.
 */
static const struct exit_keep riscv_exit_keep[] = {
	{ RV_EXC_VIRTUAL_INST_FAULT, 0, 0xffffffffull, 0, 0 },
	{ 0 },
};

const struct arch_ops arch_riscv = {
	.name = "riscv",
	.exit_system = "kvm",
	.exit_event = "kvm_exit",
	.entry_system = "kvm",
	.entry_event = "kvm_entry",
	.exit_fields = {
		[FR_REASON] = { "scause" },
		[FR_IP] = { "sepc", "pc" },
		[FR_VCPU] = { "vcpu_id" },
		[FR_INFO1] = { "stval" },
		[FR_INFO2] = { "htval" },
	},
	.entry_fields = {
		[FR_IP] = { "pc", "sepc" },
		[FR_VCPU] = { "vcpu_id" },
	},
	.exit_required = 1u << FR_REASON,
	.hex_codes = true,
	.decode_exit = riscv_decode_exit,
	.table_name = riscv_table_name,
	.flag_names = riscv_flag_names,
	.blocking = riscv_blocking,
	.async = riscv_async,
	.class_of = riscv_class,
	.ip_halves = true,
	.want = {
		{ FR_IP, "no guest IPs" },
		{ FR_INFO1, "WFI exits are not told apart" },
	},
	.exit_keep = riscv_exit_keep,
};
