// SPDX-License-Identifier: GPL-2.0
/*
 * x86: the names of what an exit touched (objects.h).  Each table says
 * where its names come from; a value no row covers has no name, and the
 * views show its number.  Ranges are inclusive.
 */
#include "decode/objects.h"

struct x86_objects_range {
	uint64_t lo, hi;
	const char *name;
};

/* The row of t (n rows) that covers v, NULL: none. */
static const char *x86_objects_find(const struct x86_objects_range *t, size_t n, uint64_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v >= t[i].lo && v <= t[i].hi)
			return t[i].name;
	return NULL;
}

#define X86_FIND(t, v)	x86_objects_find(t, sizeof(t) / sizeof(t[0]), v)

/*
 * I/O ports of the PC/AT and of QEMU's i440FX ("pc") and Q35 machines:
 * the ISA map (PIC, PIT, keyboard controller, CMOS/RTC, serial, VGA),
 * PCI configuration mechanism #1 (0xcf8/0xcfc), QEMU's fw_cfg
 * (docs/specs/fw_cfg.rst), the ACPI PM blocks of ICH9 (Q35, base 0x600)
 * and PIIX4 (i440FX, base 0xb000), isa-debug-exit's usual 0xf4 and 0x501.
 */
static const struct x86_objects_range x86_ports[] = {
	{ 0x020, 0x021, "PIC1" },
	{ 0x040, 0x043, "PIT" },
	{ 0x060, 0x060, "i8042 data" },
	{ 0x061, 0x061, "port B (speaker, NMI)" },
	{ 0x064, 0x064, "i8042 command" },
	{ 0x070, 0x070, "CMOS index" },
	{ 0x071, 0x071, "CMOS data" },
	{ 0x080, 0x080, "POST / delay" },
	{ 0x092, 0x092, "fast A20" },
	{ 0x0a0, 0x0a1, "PIC2" },
	{ 0x0b2, 0x0b3, "APM / SMI command" },
	{ 0x0f4, 0x0f4, "isa-debug-exit" },
	{ 0x1ce, 0x1cf, "Bochs VBE" },
	{ 0x2e8, 0x2ef, "COM4" },
	{ 0x2f8, 0x2ff, "COM2" },
	{ 0x3c0, 0x3df, "VGA" },
	{ 0x3e8, 0x3ef, "COM3" },
	{ 0x3f8, 0x3ff, "COM1" },
	{ 0x402, 0x402, "debugcon" },
	{ 0x4d0, 0x4d1, "ELCR" },
	{ 0x501, 0x501, "isa-debug-exit" },
	{ 0x510, 0x511, "fw_cfg" },
	{ 0x514, 0x51b, "fw_cfg DMA" },
	{ 0x600, 0x607, "ACPI PM1 (ICH9)" },
	{ 0x608, 0x60b, "ACPI PM timer (ICH9)" },
	{ 0x60c, 0x67f, "ACPI PM (ICH9)" },
	{ 0xcf8, 0xcfb, "PCI config address" },
	{ 0xcfc, 0xcff, "PCI config data" },
	{ 0xb000, 0xb007, "ACPI PM1 (PIIX4)" },
	{ 0xb008, 0xb00b, "ACPI PM timer (PIIX4)" },
	{ 0xb00c, 0xb03f, "ACPI PM (PIIX4)" },
};

/*
 * MMIO pages: the local APIC (0xfee00000), IOAPIC (0xfec00000) and HPET
 * (0xfed00000) at their architectural defaults (Intel SDM vol. 3 10.4.1,
 * the 82093AA datasheet, the IA-PC HPET specification), the legacy VGA
 * window, and Q35's PCIe ECAM (QEMU's MCH_HOST_BRIDGE_PCIEXBAR_DEFAULT).
 */
static const struct x86_objects_range x86_mmio[] = {
	{ 0x000a0000, 0x000bffff, "VGA window" },
	{ 0xb0000000, 0xbfffffff, "PCIe ECAM (Q35)" },
	{ 0xfec00000, 0xfec00fff, "IOAPIC" },
	{ 0xfed00000, 0xfed003ff, "HPET" },
	{ 0xfee00000, 0xfee00fff, "LAPIC" },
};

/*
 * MSRs: Linux's arch/x86/include/asm/msr-index.h (the Intel SDM vol. 4
 * names), KVM's paravirtual MSRs (include/uapi/asm/kvm_para.h) and
 * Hyper-V's synthetic ones (hyperv-tlfs.h); the x2APIC registers
 * (0x800 + xAPIC offset / 16, SDM vol. 3 10.12.1.2).
 */
static const struct x86_objects_range x86_msrs[] = {
	{ 0x00000010, 0x00000010, "IA32_TSC" },
	{ 0x00000011, 0x00000011, "KVM_WALL_CLOCK" },
	{ 0x00000012, 0x00000012, "KVM_SYSTEM_TIME" },
	{ 0x0000001b, 0x0000001b, "IA32_APIC_BASE" },
	{ 0x0000003a, 0x0000003a, "IA32_FEATURE_CONTROL" },
	{ 0x0000003b, 0x0000003b, "IA32_TSC_ADJUST" },
	{ 0x00000048, 0x00000048, "IA32_SPEC_CTRL" },
	{ 0x00000049, 0x00000049, "IA32_PRED_CMD" },
	{ 0x0000008b, 0x0000008b, "IA32_UCODE_REV" },
	{ 0x000000e7, 0x000000e7, "IA32_MPERF" },
	{ 0x000000e8, 0x000000e8, "IA32_APERF" },
	{ 0x0000010a, 0x0000010a, "IA32_ARCH_CAPABILITIES" },
	{ 0x00000174, 0x00000174, "IA32_SYSENTER_CS" },
	{ 0x00000175, 0x00000175, "IA32_SYSENTER_ESP" },
	{ 0x00000176, 0x00000176, "IA32_SYSENTER_EIP" },
	{ 0x000001a0, 0x000001a0, "IA32_MISC_ENABLE" },
	{ 0x00000277, 0x00000277, "IA32_PAT" },
	{ 0x000006e0, 0x000006e0, "IA32_TSC_DEADLINE" },
	{ 0x00000802, 0x00000802, "x2APIC ID" },
	{ 0x00000808, 0x00000808, "x2APIC TPR" },
	{ 0x0000080b, 0x0000080b, "x2APIC EOI" },
	{ 0x0000080f, 0x0000080f, "x2APIC SPIV" },
	{ 0x00000830, 0x00000830, "x2APIC ICR" },
	{ 0x00000832, 0x00000832, "x2APIC LVTT" },
	{ 0x00000838, 0x00000838, "x2APIC TMICT" },
	{ 0x00000839, 0x00000839, "x2APIC TMCCT" },
	{ 0x0000083e, 0x0000083e, "x2APIC TDCR" },
	{ 0x0000083f, 0x0000083f, "x2APIC SELF_IPI" },
	{ 0x00000800, 0x000008ff, "x2APIC" },
	{ 0x40000000, 0x40000000, "HV_X64_MSR_GUEST_OS_ID" },
	{ 0x40000001, 0x40000001, "HV_X64_MSR_HYPERCALL" },
	{ 0x40000002, 0x40000002, "HV_X64_MSR_VP_INDEX" },
	{ 0x40000020, 0x40000020, "HV_X64_MSR_TIME_REF_COUNT" },
	{ 0x40000021, 0x40000021, "HV_X64_MSR_REFERENCE_TSC" },
	{ 0x40000070, 0x40000070, "HV_X64_MSR_EOI" },
	{ 0x40000071, 0x40000071, "HV_X64_MSR_ICR" },
	{ 0x40000072, 0x40000072, "HV_X64_MSR_TPR" },
	{ 0x400000b0, 0x400000b7, "HV_X64_MSR_STIMER" },
	{ 0x4b564d00, 0x4b564d00, "KVM_WALL_CLOCK_NEW" },
	{ 0x4b564d01, 0x4b564d01, "KVM_SYSTEM_TIME_NEW" },
	{ 0x4b564d02, 0x4b564d02, "KVM_ASYNC_PF_EN" },
	{ 0x4b564d03, 0x4b564d03, "KVM_STEAL_TIME" },
	{ 0x4b564d04, 0x4b564d04, "KVM_PV_EOI_EN" },
	{ 0x4b564d05, 0x4b564d05, "KVM_POLL_CONTROL" },
	{ 0x4b564d06, 0x4b564d06, "KVM_ASYNC_PF_INT" },
	{ 0x4b564d07, 0x4b564d07, "KVM_ASYNC_PF_ACK" },
	{ 0xc0000080, 0xc0000080, "EFER" },
	{ 0xc0000081, 0xc0000081, "STAR" },
	{ 0xc0000082, 0xc0000082, "LSTAR" },
	{ 0xc0000083, 0xc0000083, "CSTAR" },
	{ 0xc0000084, 0xc0000084, "SYSCALL_MASK" },
	{ 0xc0000100, 0xc0000100, "FS_BASE" },
	{ 0xc0000101, 0xc0000101, "GS_BASE" },
	{ 0xc0000102, 0xc0000102, "KERNEL_GS_BASE" },
	{ 0xc0000103, 0xc0000103, "TSC_AUX" },
};

/*
 * Local APIC registers by xAPIC offset, as the kernel's kvm_apic event
 * names them (arch/x86/kvm/trace.h's kvm_trace_symbol_apic, from
 * asm/apicdef.h); ISR, TMR and IRR are eight registers each.
 */
static const struct x86_objects_range x86_apic_regs[] = {
	{ 0x020, 0x020, "ID" },
	{ 0x030, 0x030, "LVR" },
	{ 0x080, 0x080, "TASKPRI" },
	{ 0x090, 0x090, "ARBPRI" },
	{ 0x0a0, 0x0a0, "PROCPRI" },
	{ 0x0b0, 0x0b0, "EOI" },
	{ 0x0c0, 0x0c0, "RRR" },
	{ 0x0d0, 0x0d0, "LDR" },
	{ 0x0e0, 0x0e0, "DFR" },
	{ 0x0f0, 0x0f0, "SPIV" },
	{ 0x100, 0x170, "ISR" },
	{ 0x180, 0x1f0, "TMR" },
	{ 0x200, 0x270, "IRR" },
	{ 0x280, 0x280, "ESR" },
	{ 0x300, 0x300, "ICR" },
	{ 0x310, 0x310, "ICR2" },
	{ 0x320, 0x320, "LVTT" },
	{ 0x330, 0x330, "LVTTHMR" },
	{ 0x340, 0x340, "LVTPC" },
	{ 0x350, 0x350, "LVT0" },
	{ 0x360, 0x360, "LVT1" },
	{ 0x370, 0x370, "LVTERR" },
	{ 0x380, 0x380, "TMICT" },
	{ 0x390, 0x390, "TMCCT" },
	{ 0x3e0, 0x3e0, "TDCR" },
	{ 0x3f0, 0x3f0, "SELF_IPI" },
	{ 0x400, 0x400, "EFEAT" },
	{ 0x410, 0x410, "ECTRL" },
};

/* KVM's hypercalls: include/uapi/linux/kvm_para.h (KVM_HC_*). */
static const struct x86_objects_range x86_hcalls[] = {
	{ 1, 1, "KVM_HC_VAPIC_POLL_IRQ" },
	{ 2, 2, "KVM_HC_MMU_OP" },
	{ 3, 3, "KVM_HC_FEATURES" },
	{ 4, 4, "KVM_HC_PPC_MAP_MAGIC_PAGE" },
	{ 5, 5, "KVM_HC_KICK_CPU" },
	{ 6, 6, "KVM_HC_MIPS_GET_CLOCK_FREQ" },
	{ 7, 7, "KVM_HC_MIPS_EXIT_VM" },
	{ 8, 8, "KVM_HC_MIPS_CONSOLE_OUTPUT" },
	{ 9, 9, "KVM_HC_CLOCK_PAIRING" },
	{ 10, 10, "KVM_HC_SEND_IPI" },
	{ 11, 11, "KVM_HC_SCHED_YIELD" },
	{ 12, 12, "KVM_HC_MAP_GPA_RANGE" },
};

/* Hyper-V's hypercall codes: include/asm-generic/hyperv-tlfs.h (HVCALL_*). */
static const struct x86_objects_range x86_hv_hcalls[] = {
	{ 0x0001, 0x0001, "HVCALL_SWITCH_VIRTUAL_ADDRESS_SPACE" },
	{ 0x0002, 0x0002, "HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE" },
	{ 0x0003, 0x0003, "HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST" },
	{ 0x0008, 0x0008, "HVCALL_NOTIFY_LONG_SPIN_WAIT" },
	{ 0x000b, 0x000b, "HVCALL_SEND_IPI" },
	{ 0x0013, 0x0013, "HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX" },
	{ 0x0014, 0x0014, "HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX" },
	{ 0x0015, 0x0015, "HVCALL_SEND_IPI_EX" },
	{ 0x005c, 0x005c, "HVCALL_POST_MESSAGE" },
	{ 0x005d, 0x005d, "HVCALL_SIGNAL_EVENT" },
};

/* Control registers as kvm_cr numbers them (the SDM's CR0 .. CR8). */
static const struct x86_objects_range x86_crs[] = {
	{ 0, 0, "CR0" }, { 2, 2, "CR2" }, { 3, 3, "CR3" }, { 4, 4, "CR4" }, { 8, 8, "CR8" },
};

/* cpuid leaves: the Intel SDM vol. 2A CPUID, AMD's APM vol. 3, KVM's Documentation/virt/kvm/x86/cpuid.rst. */
static const struct x86_objects_range x86_cpuid_leaves[] = {
	{ 0x00000000, 0x00000000, "vendor, max leaf" },
	{ 0x00000001, 0x00000001, "version, features" },
	{ 0x00000002, 0x00000002, "TLB, cache descriptors" },
	{ 0x00000004, 0x00000004, "cache parameters" },
	{ 0x00000006, 0x00000006, "thermal, power" },
	{ 0x00000007, 0x00000007, "extended features" },
	{ 0x0000000b, 0x0000000b, "x2APIC topology" },
	{ 0x0000000d, 0x0000000d, "XSAVE" },
	{ 0x0000001f, 0x0000001f, "V2 topology" },
	{ 0x40000000, 0x40000000, "hypervisor id" },
	{ 0x40000001, 0x40000001, "KVM features" },
	{ 0x80000000, 0x80000000, "max extended leaf" },
	{ 0x80000001, 0x80000001, "extended features" },
	{ 0x80000008, 0x80000008, "address sizes" },
};

/* Exception vectors: the SDM vol. 3 6.3.1 (the kernel's #DE ... as kvm_inj_exception prints them). */
static const struct x86_objects_range x86_vectors[] = {
	{ 0, 0, "#DE" }, { 1, 1, "#DB" }, { 2, 2, "NMI" }, { 3, 3, "#BP" },
	{ 4, 4, "#OF" }, { 5, 5, "#BR" }, { 6, 6, "#UD" }, { 7, 7, "#NM" },
	{ 8, 8, "#DF" }, { 10, 10, "#TS" }, { 11, 11, "#NP" }, { 12, 12, "#SS" },
	{ 13, 13, "#GP" }, { 14, 14, "#PF" }, { 16, 16, "#MF" }, { 17, 17, "#AC" },
	{ 18, 18, "#MC" }, { 19, 19, "#XM" }, { 20, 20, "#VE" }, { 21, 21, "#CP" },
};

/* The names objects.c's kinds look up (objects.h): NULL where the table has none. */
const char *x86_port_name(uint64_t port)
{
	return X86_FIND(x86_ports, port);
}

const char *x86_mmio_name(uint64_t gpa)
{
	return X86_FIND(x86_mmio, gpa);
}

const char *x86_msr_name(uint64_t msr)
{
	return X86_FIND(x86_msrs, msr);
}

const char *x86_apic_name(uint64_t reg)
{
	return X86_FIND(x86_apic_regs, reg);
}

const char *x86_hcall_name(uint64_t nr)
{
	return X86_FIND(x86_hcalls, nr);
}

const char *x86_hv_hcall_name(uint64_t code)
{
	return X86_FIND(x86_hv_hcalls, code);
}

const char *x86_cr_name(uint64_t cr)
{
	return X86_FIND(x86_crs, cr);
}

const char *x86_cpuid_name(uint64_t leaf)
{
	return X86_FIND(x86_cpuid_leaves, leaf);
}

const char *x86_vector_name(uint64_t vector)
{
	return X86_FIND(x86_vectors, vector);
}
