// SPDX-License-Identifier: GPL-2.0
/*
 * x86: kvm:kvm_exit / kvm:kvm_entry, Intel VMX and AMD SVM.
 *
 * Layouts (see tests/formats): 2.6.32 {exit_reason, guest_rip}; 3.x adds
 * isa, info1, info2; 5.10 adds intr_info, error_code, vcpu_id; 6.13 adds
 * requests.  isa is 1 for VMX, 2 for SVM.  A VMX exit_reason carries the
 * basic reason in its low 16 bits and flags (bit 31: FAILED_VMENTRY)
 * above; an SVM exit code is used whole.
 *
 * The tables below are the exit codes of the Intel SDM (Appendix C) and
 * the AMD APM (Appendix C), as the kernel names them; they are used
 * only when the event format has no table of its own.
 */
#include <stdio.h>
#include <string.h>

#include "decode/decode.h"

#define X86_ISA_VMX	1
#define X86_ISA_SVM	2
#define VMX_FAILED_VMENTRY	0x80000000u

struct code_name {
	uint32_t code;
	const char *name;
};

static const struct code_name vmx_names[] = {
	{ 0, "EXCEPTION_NMI" }, { 1, "EXTERNAL_INTERRUPT" }, { 2, "TRIPLE_FAULT" },
	{ 3, "INIT_SIGNAL" }, { 4, "SIPI_SIGNAL" }, { 7, "INTERRUPT_WINDOW" },
	{ 8, "NMI_WINDOW" }, { 9, "TASK_SWITCH" }, { 10, "CPUID" }, { 12, "HLT" },
	{ 13, "INVD" }, { 14, "INVLPG" }, { 15, "RDPMC" }, { 16, "RDTSC" },
	{ 18, "VMCALL" }, { 19, "VMCLEAR" }, { 20, "VMLAUNCH" }, { 21, "VMPTRLD" },
	{ 22, "VMPTRST" }, { 23, "VMREAD" }, { 24, "VMRESUME" }, { 25, "VMWRITE" },
	{ 26, "VMOFF" }, { 27, "VMON" }, { 28, "CR_ACCESS" }, { 29, "DR_ACCESS" },
	{ 30, "IO_INSTRUCTION" }, { 31, "MSR_READ" }, { 32, "MSR_WRITE" },
	{ 33, "INVALID_STATE" }, { 34, "MSR_LOAD_FAIL" }, { 36, "MWAIT_INSTRUCTION" },
	{ 37, "MONITOR_TRAP_FLAG" }, { 39, "MONITOR_INSTRUCTION" },
	{ 40, "PAUSE_INSTRUCTION" }, { 41, "MCE_DURING_VMENTRY" },
	{ 43, "TPR_BELOW_THRESHOLD" }, { 44, "APIC_ACCESS" }, { 45, "EOI_INDUCED" },
	{ 46, "GDTR_IDTR" }, { 47, "LDTR_TR" }, { 48, "EPT_VIOLATION" },
	{ 49, "EPT_MISCONFIG" }, { 50, "INVEPT" }, { 51, "RDTSCP" },
	{ 52, "PREEMPTION_TIMER" }, { 53, "INVVPID" }, { 54, "WBINVD" },
	{ 55, "XSETBV" }, { 56, "APIC_WRITE" }, { 57, "RDRAND" }, { 58, "INVPCID" },
	{ 59, "VMFUNC" }, { 60, "ENCLS" }, { 61, "RDSEED" }, { 62, "PML_FULL" },
	{ 63, "XSAVES" }, { 64, "XRSTORS" }, { 67, "UMWAIT" }, { 68, "TPAUSE" },
	{ 74, "BUS_LOCK" }, { 75, "NOTIFY" }, { 77, "TDCALL" },
	{ 84, "MSR_READ_IMM" }, { 85, "MSR_WRITE_IMM" },
};

static const struct code_name svm_names[] = {
	{ 0x000, "read_cr0" }, { 0x002, "read_cr2" }, { 0x003, "read_cr3" },
	{ 0x004, "read_cr4" }, { 0x008, "read_cr8" }, { 0x010, "write_cr0" },
	{ 0x012, "write_cr2" }, { 0x013, "write_cr3" }, { 0x014, "write_cr4" },
	{ 0x018, "write_cr8" }, { 0x020, "read_dr0" }, { 0x021, "read_dr1" },
	{ 0x022, "read_dr2" }, { 0x023, "read_dr3" }, { 0x024, "read_dr4" },
	{ 0x025, "read_dr5" }, { 0x026, "read_dr6" }, { 0x027, "read_dr7" },
	{ 0x030, "write_dr0" }, { 0x031, "write_dr1" }, { 0x032, "write_dr2" },
	{ 0x033, "write_dr3" }, { 0x034, "write_dr4" }, { 0x035, "write_dr5" },
	{ 0x036, "write_dr6" }, { 0x037, "write_dr7" }, { 0x040, "DE excp" },
	{ 0x041, "DB excp" }, { 0x043, "BP excp" }, { 0x044, "OF excp" },
	{ 0x045, "BR excp" }, { 0x046, "UD excp" }, { 0x047, "NM excp" },
	{ 0x048, "DF excp" }, { 0x04a, "TS excp" }, { 0x04b, "NP excp" },
	{ 0x04c, "SS excp" }, { 0x04d, "GP excp" }, { 0x04e, "PF excp" },
	{ 0x050, "MF excp" }, { 0x051, "AC excp" }, { 0x052, "MC excp" },
	{ 0x053, "XF excp" }, { 0x060, "interrupt" }, { 0x061, "nmi" },
	{ 0x062, "smi" }, { 0x063, "init" }, { 0x064, "vintr" },
	{ 0x065, "cr0_sel_write" }, { 0x066, "read_idtr" }, { 0x067, "read_gdtr" },
	{ 0x068, "read_ldtr" }, { 0x069, "read_rt" }, { 0x06a, "write_idtr" },
	{ 0x06b, "write_gdtr" }, { 0x06c, "write_ldtr" }, { 0x06d, "write_rt" },
	{ 0x06e, "rdtsc" }, { 0x06f, "rdpmc" }, { 0x070, "pushf" }, { 0x071, "popf" },
	{ 0x072, "cpuid" }, { 0x073, "rsm" }, { 0x074, "iret" }, { 0x075, "swint" },
	{ 0x076, "invd" }, { 0x077, "pause" }, { 0x078, "hlt" }, { 0x079, "invlpg" },
	{ 0x07a, "invlpga" }, { 0x07b, "io" }, { 0x07c, "msr" },
	{ 0x07d, "task_switch" }, { 0x07e, "ferr_freeze" }, { 0x07f, "shutdown" },
	{ 0x080, "vmrun" }, { 0x081, "hypercall" }, { 0x082, "vmload" },
	{ 0x083, "vmsave" }, { 0x084, "stgi" }, { 0x085, "clgi" }, { 0x086, "skinit" },
	{ 0x087, "rdtscp" }, { 0x088, "icebp" }, { 0x089, "wbinvd" },
	{ 0x08a, "monitor" }, { 0x08b, "mwait" }, { 0x08d, "xsetbv" },
	{ 0x08f, "write_efer_trap" }, { 0x090, "write_cr0_trap" },
	{ 0x094, "write_cr4_trap" }, { 0x098, "write_cr8_trap" }, { 0x0a2, "invpcid" },
	{ 0x0a5, "buslock" }, { 0x0a6, "idle-halt" }, { 0x400, "npf" },
	{ 0x401, "avic_incomplete_ipi" }, { 0x402, "avic_unaccelerated_access" },
	{ 0x403, "vmgexit" }, { 0x80000001, "vmgexit_mmio_read" },
	{ 0x80000002, "vmgexit_mmio_write" }, { 0x80000003, "vmgexit_nmi_complete" },
	{ 0x80000004, "vmgexit_ap_hlt_loop" }, { 0x80000005, "vmgexit_ap_jump_table" },
	{ 0x80000010, "vmgexit_page_state_change" },
	{ 0x80000011, "vmgexit_guest_request" },
	{ 0x80000012, "vmgexit_ext_guest_request" },
	{ 0x80000013, "vmgexit_ap_creation" },
	{ 0x8000fffd, "vmgexit_hypervisor_feature" },
	{ 0xffffffff, "invalid_guest_state" },
};

static const char *lookup(const struct code_name *t, size_t n, uint32_t code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

/*
 * A port-I/O exit's port: info1's bits 31:16, VMX's exit qualification
 * and SVM's exit_info_1 alike; its direction and size where each puts
 * them (VMX: bit 3 in, bits 2:0 size - 1; SVM: bit 0 in, bits 6:4 one
 * bit per size of 1, 2, 4 bytes).  A kvm_pio after it says the same.
 */
static void x86_port(const struct field_vals *fv, struct kvm_event *ev)
{
	uint64_t q = fv->v[FR_INFO1];

	if (!FV_HAS(fv, FR_INFO1))
		return;
	ev->obj_kind = KVM_OBJ_PORT;
	ev->obj = (q >> 16) & 0xffff;
	if (ev->isa == ISA_VMX) {
		ev->obj_dir = q & 8 ? OBJ_DIR_READ : OBJ_DIR_WRITE;
		ev->obj_size = (uint8_t)((q & 7) + 1);
	} else {
		ev->obj_dir = q & 1 ? OBJ_DIR_READ : OBJ_DIR_WRITE;
		ev->obj_size = q & 0x10 ? 1 : q & 0x20 ? 2 : q & 0x40 ? 4 : 0;
	}
}

/*
 * An exception exit's vector: SVM's exit code says it (0x40 + vector);
 * VMX's EXCEPTION_NMI has it in intr_info's low byte (5.10 and later
 * layouts, bit 31: valid).
 */
static void x86_vector(const struct field_vals *fv, struct kvm_event *ev)
{
	if (ev->isa == ISA_SVM && ev->reason >= 0x040 && ev->reason <= 0x05f) {
		ev->obj_kind = KVM_OBJ_VECTOR;
		ev->obj = ev->reason - 0x040;
	} else if (ev->isa == ISA_VMX && ev->reason == 0 && FV_HAS(fv, FR_AUX) &&
		   (fv->v[FR_AUX] & 0x80000000u)) {
		ev->obj_kind = KVM_OBJ_VECTOR;
		ev->obj = fv->v[FR_AUX] & 0xff;
	}
}

/*
 * An SVM nested page fault that KVM takes for MMIO: exit_info_1 is the
 * fault's error code, exit_info_2 the guest-physical address.  KVM marks
 * the pages of emulated devices with reserved bits in the nested page
 * tables (its "MMIO SPTEs", arch/x86/kvm/mmu/spte.h), so an access there
 * faults with PFERR_RSVD (bit 3) set, bit 1 saying a write; a fault on
 * guest RAM has it clear and names no object.  The page is the object,
 * as kvm_mmio's; a kvm_mmio after it says the page, direction and size.
 */
static void x86_npf_mmio(const struct field_vals *fv, struct kvm_event *ev)
{
	uint64_t err = fv->v[FR_INFO1];

	if (!FV_HAS(fv, FR_INFO1) || !FV_HAS(fv, FR_INFO2) || !(err & 8))
		return;
	ev->obj_kind = KVM_OBJ_MMIO;
	ev->obj = fv->v[FR_INFO2] & ~0xfffull;
	ev->obj_dir = err & 2 ? OBJ_DIR_WRITE : OBJ_DIR_READ;
}

static void x86_decode_exit(const struct field_vals *fv, struct kvm_event *ev)
{
	uint32_t raw = FV_HAS(fv, FR_REASON) ? (uint32_t)fv->v[FR_REASON] : 0;

	ev->isa = ISA_UNKNOWN;
	if (FV_HAS(fv, FR_ISA)) {
		if (fv->v[FR_ISA] == X86_ISA_VMX)
			ev->isa = ISA_VMX;
		else if (fv->v[FR_ISA] == X86_ISA_SVM)
			ev->isa = ISA_SVM;
	}
	if (ev->isa == ISA_VMX) {
		ev->reason = raw & 0xffff;
		ev->flags = raw & 0xffff0000;
		if (ev->reason == 30)		/* IO_INSTRUCTION */
			x86_port(fv, ev);
	} else {
		ev->reason = raw;
		ev->flags = 0;
		if (ev->isa == ISA_SVM && raw == 0x07b)	/* IOIO */
			x86_port(fv, ev);
		else if (ev->isa == ISA_SVM && raw == 0x400)	/* NPF */
			x86_npf_mmio(fv, ev);
	}
	x86_vector(fv, ev);
}

static int64_t x86_isa_raw(enum kvm_isa isa)
{
	return isa == ISA_VMX ? X86_ISA_VMX : isa == ISA_SVM ? X86_ISA_SVM : 0;
}

static const char *x86_table_name(enum kvm_isa isa, uint32_t code)
{
	if (isa == ISA_VMX)
		return lookup(vmx_names, sizeof(vmx_names) / sizeof(vmx_names[0]), code);
	if (isa == ISA_SVM)
		return lookup(svm_names, sizeof(svm_names) / sizeof(svm_names[0]), code);
	return NULL;
}

static void x86_flag_names(enum kvm_isa isa, uint32_t flags, char *buf, size_t len)
{
	buf[0] = '\0';
	if (isa != ISA_VMX)
		return;
	if (flags & VMX_FAILED_VMENTRY)
		strlcat(buf, "FAILED_VMENTRY", len);
	flags &= ~VMX_FAILED_VMENTRY;
	if (flags) {
		char more[16];

		snprintf(more, sizeof(more), "%s0x%x", buf[0] ? " " : "", flags);
		strlcat(buf, more, len);
	}
}

static bool x86_blocking(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	if (isa == ISA_VMX)
		return code == 12;			/* HLT */
	if (isa == ISA_SVM)
		return code == 0x078 || code == 0x0a6;	/* hlt, idle-halt */
	return false;
}

static bool x86_async(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	if (isa == ISA_VMX)	/* EXTERNAL_INTERRUPT, PREEMPTION_TIMER */
		return code == 1 || code == 52;
	if (isa == ISA_SVM)	/* interrupt, nmi, vintr */
		return code == 0x060 || code == 0x061 || code == 0x064;
	return false;
}

static enum reason_class x86_class(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	if (isa == ISA_VMX) {
		switch (code) {
		case 30: return RC_IO;			/* IO_INSTRUCTION */
		case 49: return RC_MMIO;		/* EPT_MISCONFIG: KVM's MMIO marker */
		case 12: return RC_HALT;		/* HLT */
		case 40: return RC_PAUSE;		/* PAUSE_INSTRUCTION */
		case 18: return RC_HYPERCALL;		/* VMCALL */
		case 1: case 52: return RC_INTERRUPT;	/* EXTERNAL_INTERRUPT, PREEMPTION_TIMER */
		}
	} else if (isa == ISA_SVM) {
		switch (code) {
		case 0x07b: return RC_IO;
		case 0x078: case 0x0a6: return RC_HALT;
		case 0x077: return RC_PAUSE;
		case 0x081: return RC_HYPERCALL;	/* vmmcall */
		case 0x060: case 0x061: case 0x064: return RC_INTERRUPT;
		}
	}
	return RC_OTHER;
}

/*
 * The companion events of arch/x86/kvm/trace.h (fields unchanged since
 * 2.6.32; kvm_hv_hypercall since 2.6.34): KVM writes them on the vCPU's
 * thread while it handles the exit.  kvm_mmio's type: 0 a read not yet
 * done (to user space), 1 a read, 2 a write; its object is the page.
 */
static const struct obj_event x86_obj_events[] = {
	{ "kvm", "kvm_pio", KVM_OBJ_PORT, "port", "rw", "size", OBJ_WRITE_ANY, 0, NULL },
	{ "kvm", "kvm_mmio", KVM_OBJ_MMIO, "gpa", "type", "len", 2, ~0xfffull, NULL },
	{ "kvm", "kvm_msr", KVM_OBJ_MSR, "ecx", "write", NULL, OBJ_WRITE_ANY, 0, NULL },
	{ "kvm", "kvm_apic", KVM_OBJ_APIC, "reg", "rw", NULL, OBJ_WRITE_ANY, 0, NULL },
	{ "kvm", "kvm_hypercall", KVM_OBJ_HCALL, "nr", NULL, NULL, 0, 0, NULL },
	{ "kvm", "kvm_hv_hypercall", KVM_OBJ_HV_HCALL, "code", NULL, NULL, 0, 0, NULL },
	{ "kvm", "kvm_cr", KVM_OBJ_CR, "cr", "rw", NULL, OBJ_WRITE_ANY, 0, NULL },
	{ "kvm", "kvm_cpuid", KVM_OBJ_CPUID, "function", NULL, NULL, 0, 0, NULL },
	{ NULL },
};

/*
 * What of an exit's info fields names its object (x86_port,
 * x86_npf_mmio): the port, direction and size bits of a port I/O's
 * info1; an SVM nested page fault's reserved and write bits, and its
 * page where the reserved bit says MMIO.
 */
static const struct exit_keep x86_exit_keep[] = {
	{ 30, X86_ISA_VMX, 0xffff000full, 0, 0 },
	{ 0x07b, X86_ISA_SVM, 0xffff0071ull, 0, 0 },
	{ 0x400, X86_ISA_SVM, 0xaull, ~0xfffull, 0x8ull },
	{ 0 },
};

const struct arch_ops arch_x86 = {
	.name = "x86",
	.exit_system = "kvm",
	.exit_event = "kvm_exit",
	.entry_system = "kvm",
	.entry_event = "kvm_entry",
	.exit_fields = {
		[FR_REASON] = { "exit_reason" },
		[FR_ISA] = { "isa" },
		[FR_IP] = { "guest_rip" },
		[FR_VCPU] = { "vcpu_id" },
		[FR_INFO1] = { "info1" },
		[FR_INFO2] = { "info2" },
		[FR_AUX] = { "intr_info" },
	},
	.entry_fields = {
		[FR_VCPU] = { "vcpu_id" },
		[FR_IP] = { "rip" },
	},
	.exit_required = 1u << FR_REASON,
	.want = {
		{ FR_ISA, "VMX and SVM cannot be told apart: reasons are numbers" },
		{ FR_IP, "no guest IPs" },
	},
	.reason_field = "exit_reason",
	.decode_exit = x86_decode_exit,
	.isa_raw = x86_isa_raw,
	.table_name = x86_table_name,
	.flag_names = x86_flag_names,
	.blocking = x86_blocking,
	.async = x86_async,
	.class_of = x86_class,
	.ip_halves = true,
	.obj_events = x86_obj_events,
	.exit_keep = x86_exit_keep,
};
