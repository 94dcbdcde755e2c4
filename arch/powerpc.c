// SPDX-License-Identifier: GPL-2.0
/*
 * powerpc book3s HV: kvm_hv:kvm_guest_exit / kvm_hv:kvm_guest_enter.
 *
 * kvm_guest_exit {vcpu_id, trap, pc, msr, ceded}, kvm_guest_enter
 * {vcpu_id, pc, pending_exceptions, ceded} (arch/powerpc/kvm/trace_hv.h).
 * The reason is the interrupt vector the guest left through (trap); a
 * vCPU that has ceded (H_CEDE: the guest is idle) exits with ceded set,
 * and such exits are a reason of their own, flagged CEDED and kept apart
 * from handling time like x86's HLT.  The guest MSR says exactly whether
 * the guest ran in user (PR) or kernel mode; it is the exit's info.
 *
 * Names come first from the kernel's table in the print fmt
 * (kvm_trace_symbol_exit); the one below is trace_book3s.h's.
 *
 * What a hypercall exit (SYSCALL, the guest's sc 1) asked for is its
 * hcall: kvm_hv:kvm_hcall_enter {vcpu_id, req, gpr4-7}, written after
 * kvm_guest_exit when the hcall is handled in the host's virtual mode
 * (kvmppc_pseries_do_hcall), names it (req, the guest's r3).  H_CEDE is
 * handled before kvm_guest_exit (POWER9 on; real mode before) and
 * writes no kvm_hcall_enter: such an exit is the one that leaves the
 * vCPU ceded, trap SYSCALL or 0 (the trap already handled), and its
 * object is H_CEDE.  Names: arch/powerpc_objects.c.
 */
#include <stdio.h>

#include "decode/decode.h"
#include "decode/objects.h"

#define PPC_CEDED		1u	/* ev->flags */
#define PPC_TRAP_NONE		0x000	/* RETURN_TO_HOST: handled before the event */
#define PPC_TRAP_SYSCALL	0xc00	/* sc 1: a hypercall */
#define PPC_H_CEDE		0xe0	/* asm/hvcall.h */
#define PPC_TRAP_EXTERNAL	0x500
#define PPC_TRAP_EXTERNAL_LEVEL	0x501
#define PPC_TRAP_EXTERNAL_HV	0x502
#define PPC_TRAP_DECREMENTER	0x900
#define PPC_TRAP_HV_DECREMENTER	0x980
#define PPC_TRAP_PERFMON	0xf00

static const struct {
	uint32_t trap;
	const char *name;
} trap_names[] = {
	{ 0x000, "RETURN_TO_HOST" }, { 0x100, "SYSTEM_RESET" }, { 0x200, "MACHINE_CHECK" },
	{ 0x300, "DATA_STORAGE" }, { 0x380, "DATA_SEGMENT" }, { 0x400, "INST_STORAGE" },
	{ 0x480, "INST_SEGMENT" }, { 0x500, "EXTERNAL" }, { 0x501, "EXTERNAL_LEVEL" },
	{ 0x502, "EXTERNAL_HV" }, { 0x600, "ALIGNMENT" }, { 0x700, "PROGRAM" },
	{ 0x800, "FP_UNAVAIL" }, { 0x900, "DECREMENTER" }, { 0x980, "HV_DECREMENTER" },
	{ 0xc00, "SYSCALL" }, { 0xd00, "TRACE" }, { 0xe00, "H_DATA_STORAGE" },
	{ 0xe20, "H_INST_STORAGE" }, { 0xe40, "H_EMUL_ASSIST" }, { 0xf00, "PERFMON" },
	{ 0xf20, "ALTIVEC" }, { 0xf40, "VSX" },
};

static void ppc_decode_exit(const struct field_vals *fv, struct kvm_event *ev)
{
	ev->isa = ISA_PPC_HV;
	ev->reason = FV_HAS(fv, FR_REASON) ? (uint32_t)fv->v[FR_REASON] : 0;
	ev->flags = FV_HAS(fv, FR_AUX) && fv->v[FR_AUX] ? PPC_CEDED : 0;
	if ((ev->flags & PPC_CEDED) && (ev->reason == PPC_TRAP_SYSCALL || ev->reason == PPC_TRAP_NONE)) {
		ev->obj_kind = KVM_OBJ_PPC_HCALL;
		ev->obj = PPC_H_CEDE;
	}
	if (FV_HAS(fv, FR_INFO1))
		ev->mode = fv->v[FR_INFO1] & PPC_MSR_PR ? GUEST_USER : GUEST_KERNEL;
}

static const char *ppc_table_name(enum kvm_isa isa, uint32_t code)
{
	size_t i;

	for (i = 0; i < sizeof(trap_names) / sizeof(trap_names[0]); i++)
		if (trap_names[i].trap == code)
			return trap_names[i].name;
	return NULL;
}

static void ppc_flag_names(enum kvm_isa isa, uint32_t flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s", flags & PPC_CEDED ? "CEDED" : "");
}

static bool ppc_blocking(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return flags & PPC_CEDED;
}

static bool ppc_async(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code == PPC_TRAP_EXTERNAL || code == PPC_TRAP_EXTERNAL_LEVEL ||
	       code == PPC_TRAP_EXTERNAL_HV || code == PPC_TRAP_DECREMENTER ||
	       code == PPC_TRAP_HV_DECREMENTER || code == PPC_TRAP_PERFMON;
}

/* The companion event of arch/powerpc/kvm/trace_hv.h (since Linux 3.19). */
static const struct obj_event ppc_obj_events[] = {
	{ "kvm_hv", "kvm_hcall_enter", KVM_OBJ_PPC_HCALL, "req", NULL, NULL, 0, 0, NULL },
	{ NULL },
};

const struct arch_ops arch_powerpc = {
	.name = "powerpc",
	.exit_system = "kvm_hv",
	.exit_event = "kvm_guest_exit",
	.entry_system = "kvm_hv",
	.entry_event = "kvm_guest_enter",
	.exit_fields = {
		[FR_REASON] = { "trap" },
		[FR_IP] = { "pc" },
		[FR_VCPU] = { "vcpu_id" },
		[FR_INFO1] = { "msr" },
		[FR_AUX] = { "ceded" },
	},
	.entry_fields = {
		[FR_IP] = { "pc" },
		[FR_VCPU] = { "vcpu_id" },
	},
	.exit_required = 1u << FR_REASON,
	.reason_field = "trap",
	/* trap vectors as the kernel and Power ISA write them */
	.hex_codes = true,
	.decode_exit = ppc_decode_exit,
	.table_name = ppc_table_name,
	.flag_names = ppc_flag_names,
	.blocking = ppc_blocking,
	.async = ppc_async,
	.want = {
		{ FR_IP, "no guest IPs" },
		{ FR_INFO1, "no guest user/kernel mode" },
		{ FR_AUX, "ceded (idle) exits are not told apart" },
	},
	.obj_events = ppc_obj_events,
};
