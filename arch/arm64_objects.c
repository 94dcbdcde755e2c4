// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: the names of what an exit touched (objects.h).  Each table says
 * where its names come from; a value no row covers has no name, and the
 * views show its number (a system register as S<op0>_<op1>_C<n>_C<m>_<op2>,
 * the Arm ARM's generic name, which assemblers accept).  Ranges are
 * inclusive.
 */
#include <stdio.h>

#include "decode/objects.h"

struct arm64_objects_row {
	uint64_t lo, hi;
	const char *name;
};

/* The row of t (n rows) that covers v, NULL: none. */
static const char *arm64_objects_find(const struct arm64_objects_row *t, size_t n, uint64_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v >= t[i].lo && v <= t[i].hi)
			return t[i].name;
	return NULL;
}

#define ARM64_FIND(t, v)	arm64_objects_find(t, sizeof(t) / sizeof(t[0]), v)

#define SR(name, op0, op1, crn, crm, op2) \
	{ ARM64_SYSREG(op0, op1, crn, crm, op2), ARM64_SYSREG(op0, op1, crn, crm, op2), name }
/* the debug registers of breakpoint and watchpoint n: DBGBVR<n>_EL1 ... (2, 0, 0, n, 4..7) */
#define SR_DBG(n) \
	SR("DBGBVR" #n "_EL1", 2, 0, 0, n, 4), SR("DBGBCR" #n "_EL1", 2, 0, 0, n, 5), \
	SR("DBGWVR" #n "_EL1", 2, 0, 0, n, 6), SR("DBGWCR" #n "_EL1", 2, 0, 0, n, 7)
/* PMU event counter n and its type: (3, 3, 14, 8 | n >> 3, n & 7) and (3, 3, 14, 12 | n >> 3, n & 7) */
#define SR_PMEV(n) \
	SR("PMEVCNTR" #n "_EL0", 3, 3, 14, 8 | (n) >> 3, (n) & 7), \
	SR("PMEVTYPER" #n "_EL0", 3, 3, 14, 12 | (n) >> 3, (n) & 7)

/*
 * System registers (and the set/way cache maintenance instructions KVM
 * traps, Op0 1) that a guest's MRS/MSR may trap on, by their encoding:
 * the SYS_* definitions of Linux's arch/arm64/include/asm/sysreg.h (and
 * the timer and ID registers added to it since), which follow the Arm
 * Architecture Reference Manual (ARM DDI 0487), chapter D19 (AArch64
 * System register encoding).  KVM writes kvm_sys_access for each access
 * it emulates (arch/arm64/kvm/sys_regs.c).
 */
static const struct arm64_objects_row arm64_sysregs[] = {
	SR("DC_ISW", 1, 0, 7, 6, 2),
	SR("DC_CSW", 1, 0, 7, 10, 2),
	SR("DC_CISW", 1, 0, 7, 14, 2),
	SR("OSDTRRX_EL1", 2, 0, 0, 0, 2),
	SR("MDCCINT_EL1", 2, 0, 0, 2, 0),
	SR("MDSCR_EL1", 2, 0, 0, 2, 2),
	SR("OSDTRTX_EL1", 2, 0, 0, 3, 2),
	SR("OSECCR_EL1", 2, 0, 0, 6, 2),
	SR("MDRAR_EL1", 2, 0, 1, 0, 0),
	SR("OSLAR_EL1", 2, 0, 1, 0, 4),
	SR("OSLSR_EL1", 2, 0, 1, 1, 4),
	SR("OSDLR_EL1", 2, 0, 1, 3, 4),
	SR("DBGPRCR_EL1", 2, 0, 1, 4, 4),
	SR("DBGCLAIMSET_EL1", 2, 0, 7, 8, 6),
	SR("DBGCLAIMCLR_EL1", 2, 0, 7, 9, 6),
	SR("DBGAUTHSTATUS_EL1", 2, 0, 7, 14, 6),
	SR("MDCCSR_EL0", 2, 3, 0, 1, 0),
	SR("DBGDTR_EL0", 2, 3, 0, 4, 0),
	SR("DBGDTRRX_EL0 / DBGDTRTX_EL0", 2, 3, 0, 5, 0),
	SR("MIDR_EL1", 3, 0, 0, 0, 0),
	SR("MPIDR_EL1", 3, 0, 0, 0, 5),
	SR("REVIDR_EL1", 3, 0, 0, 0, 6),
	SR("ID_PFR0_EL1", 3, 0, 0, 1, 0),
	SR("ID_PFR1_EL1", 3, 0, 0, 1, 1),
	SR("ID_DFR0_EL1", 3, 0, 0, 1, 2),
	SR("ID_AFR0_EL1", 3, 0, 0, 1, 3),
	SR("ID_MMFR0_EL1", 3, 0, 0, 1, 4),
	SR("ID_MMFR1_EL1", 3, 0, 0, 1, 5),
	SR("ID_MMFR2_EL1", 3, 0, 0, 1, 6),
	SR("ID_MMFR3_EL1", 3, 0, 0, 1, 7),
	SR("ID_ISAR0_EL1", 3, 0, 0, 2, 0),
	SR("ID_ISAR1_EL1", 3, 0, 0, 2, 1),
	SR("ID_ISAR2_EL1", 3, 0, 0, 2, 2),
	SR("ID_ISAR3_EL1", 3, 0, 0, 2, 3),
	SR("ID_ISAR4_EL1", 3, 0, 0, 2, 4),
	SR("ID_ISAR5_EL1", 3, 0, 0, 2, 5),
	SR("ID_MMFR4_EL1", 3, 0, 0, 2, 6),
	SR("MVFR0_EL1", 3, 0, 0, 3, 0),
	SR("MVFR1_EL1", 3, 0, 0, 3, 1),
	SR("MVFR2_EL1", 3, 0, 0, 3, 2),
	SR("ID_AA64PFR0_EL1", 3, 0, 0, 4, 0),
	SR("ID_AA64PFR1_EL1", 3, 0, 0, 4, 1),
	SR("ID_AA64ZFR0_EL1", 3, 0, 0, 4, 4),
	SR("ID_AA64DFR0_EL1", 3, 0, 0, 5, 0),
	SR("ID_AA64DFR1_EL1", 3, 0, 0, 5, 1),
	SR("ID_AA64AFR0_EL1", 3, 0, 0, 5, 4),
	SR("ID_AA64AFR1_EL1", 3, 0, 0, 5, 5),
	SR("ID_AA64ISAR0_EL1", 3, 0, 0, 6, 0),
	SR("ID_AA64ISAR1_EL1", 3, 0, 0, 6, 1),
	SR("ID_AA64MMFR0_EL1", 3, 0, 0, 7, 0),
	SR("ID_AA64MMFR1_EL1", 3, 0, 0, 7, 1),
	SR("ID_AA64MMFR2_EL1", 3, 0, 0, 7, 2),
	SR("SCTLR_EL1", 3, 0, 1, 0, 0),
	SR("ACTLR_EL1", 3, 0, 1, 0, 1),
	SR("CPACR_EL1", 3, 0, 1, 0, 2),
	SR("ZCR_EL1", 3, 0, 1, 2, 0),
	SR("TTBR0_EL1", 3, 0, 2, 0, 0),
	SR("TTBR1_EL1", 3, 0, 2, 0, 1),
	SR("TCR_EL1", 3, 0, 2, 0, 2),
	SR("APIAKEYLO_EL1", 3, 0, 2, 1, 0),
	SR("APIAKEYHI_EL1", 3, 0, 2, 1, 1),
	SR("APIBKEYLO_EL1", 3, 0, 2, 1, 2),
	SR("APIBKEYHI_EL1", 3, 0, 2, 1, 3),
	SR("APDAKEYLO_EL1", 3, 0, 2, 2, 0),
	SR("APDAKEYHI_EL1", 3, 0, 2, 2, 1),
	SR("APDBKEYLO_EL1", 3, 0, 2, 2, 2),
	SR("APDBKEYHI_EL1", 3, 0, 2, 2, 3),
	SR("APGAKEYLO_EL1", 3, 0, 2, 3, 0),
	SR("APGAKEYHI_EL1", 3, 0, 2, 3, 1),
	SR("ICC_PMR_EL1", 3, 0, 4, 6, 0),
	SR("AFSR0_EL1", 3, 0, 5, 1, 0),
	SR("AFSR1_EL1", 3, 0, 5, 1, 1),
	SR("ESR_EL1", 3, 0, 5, 2, 0),
	SR("ERRIDR_EL1", 3, 0, 5, 3, 0),
	SR("ERRSELR_EL1", 3, 0, 5, 3, 1),
	SR("ERXFR_EL1", 3, 0, 5, 4, 0),
	SR("ERXCTLR_EL1", 3, 0, 5, 4, 1),
	SR("ERXSTATUS_EL1", 3, 0, 5, 4, 2),
	SR("ERXADDR_EL1", 3, 0, 5, 4, 3),
	SR("ERXMISC0_EL1", 3, 0, 5, 5, 0),
	SR("ERXMISC1_EL1", 3, 0, 5, 5, 1),
	SR("FAR_EL1", 3, 0, 6, 0, 0),
	SR("PAR_EL1", 3, 0, 7, 4, 0),
	SR("PMSIDR_EL1", 3, 0, 9, 9, 7),
	SR("PMBIDR_EL1", 3, 0, 9, 10, 7),
	SR("PMSCR_EL1", 3, 0, 9, 9, 0),
	SR("PMSICR_EL1", 3, 0, 9, 9, 2),
	SR("PMSIRR_EL1", 3, 0, 9, 9, 3),
	SR("PMSFCR_EL1", 3, 0, 9, 9, 4),
	SR("PMSEVFR_EL1", 3, 0, 9, 9, 5),
	SR("PMSLATFR_EL1", 3, 0, 9, 9, 6),
	SR("PMBLIMITR_EL1", 3, 0, 9, 10, 0),
	SR("PMBPTR_EL1", 3, 0, 9, 10, 1),
	SR("PMBSR_EL1", 3, 0, 9, 10, 3),
	SR("PMINTENSET_EL1", 3, 0, 9, 14, 1),
	SR("PMINTENCLR_EL1", 3, 0, 9, 14, 2),
	SR("MAIR_EL1", 3, 0, 10, 2, 0),
	SR("AMAIR_EL1", 3, 0, 10, 3, 0),
	SR("LORSA_EL1", 3, 0, 10, 4, 0),
	SR("LOREA_EL1", 3, 0, 10, 4, 1),
	SR("LORN_EL1", 3, 0, 10, 4, 2),
	SR("LORC_EL1", 3, 0, 10, 4, 3),
	SR("LORID_EL1", 3, 0, 10, 4, 7),
	SR("VBAR_EL1", 3, 0, 12, 0, 0),
	SR("DISR_EL1", 3, 0, 12, 1, 1),
	SR("ICC_IAR0_EL1", 3, 0, 12, 8, 0),
	SR("ICC_EOIR0_EL1", 3, 0, 12, 8, 1),
	SR("ICC_HPPIR0_EL1", 3, 0, 12, 8, 2),
	SR("ICC_BPR0_EL1", 3, 0, 12, 8, 3),
	SR("ICC_DIR_EL1", 3, 0, 12, 11, 1),
	SR("ICC_RPR_EL1", 3, 0, 12, 11, 3),
	SR("ICC_SGI1R_EL1", 3, 0, 12, 11, 5),
	SR("ICC_ASGI1R_EL1", 3, 0, 12, 11, 6),
	SR("ICC_SGI0R_EL1", 3, 0, 12, 11, 7),
	SR("ICC_IAR1_EL1", 3, 0, 12, 12, 0),
	SR("ICC_EOIR1_EL1", 3, 0, 12, 12, 1),
	SR("ICC_HPPIR1_EL1", 3, 0, 12, 12, 2),
	SR("ICC_BPR1_EL1", 3, 0, 12, 12, 3),
	SR("ICC_CTLR_EL1", 3, 0, 12, 12, 4),
	SR("ICC_SRE_EL1", 3, 0, 12, 12, 5),
	SR("ICC_IGRPEN0_EL1", 3, 0, 12, 12, 6),
	SR("ICC_IGRPEN1_EL1", 3, 0, 12, 12, 7),
	SR("CONTEXTIDR_EL1", 3, 0, 13, 0, 1),
	SR("TPIDR_EL1", 3, 0, 13, 0, 4),
	SR("CNTKCTL_EL1", 3, 0, 14, 1, 0),
	SR("CLIDR_EL1", 3, 1, 0, 0, 1),
	SR("AIDR_EL1", 3, 1, 0, 0, 7),
	SR("CSSELR_EL1", 3, 2, 0, 0, 0),
	SR("CTR_EL0", 3, 3, 0, 0, 1),
	SR("DCZID_EL0", 3, 3, 0, 0, 7),
	SR("PMCR_EL0", 3, 3, 9, 12, 0),
	SR("PMCNTENSET_EL0", 3, 3, 9, 12, 1),
	SR("PMCNTENCLR_EL0", 3, 3, 9, 12, 2),
	SR("PMOVSCLR_EL0", 3, 3, 9, 12, 3),
	SR("PMSWINC_EL0", 3, 3, 9, 12, 4),
	SR("PMSELR_EL0", 3, 3, 9, 12, 5),
	SR("PMCEID0_EL0", 3, 3, 9, 12, 6),
	SR("PMCEID1_EL0", 3, 3, 9, 12, 7),
	SR("PMCCNTR_EL0", 3, 3, 9, 13, 0),
	SR("PMXEVTYPER_EL0", 3, 3, 9, 13, 1),
	SR("PMXEVCNTR_EL0", 3, 3, 9, 13, 2),
	SR("PMUSERENR_EL0", 3, 3, 9, 14, 0),
	SR("PMOVSSET_EL0", 3, 3, 9, 14, 3),
	SR("TPIDR_EL0", 3, 3, 13, 0, 2),
	SR("TPIDRRO_EL0", 3, 3, 13, 0, 3),
	SR("CNTFRQ_EL0", 3, 3, 14, 0, 0),
	SR("CNTP_TVAL_EL0", 3, 3, 14, 2, 0),
	SR("CNTP_CTL_EL0", 3, 3, 14, 2, 1),
	SR("CNTP_CVAL_EL0", 3, 3, 14, 2, 2),
	SR("ICH_VSEIR_EL2", 3, 4, 12, 9, 4),
	SR("ICH_HCR_EL2", 3, 4, 12, 11, 0),
	SR("ICH_VTR_EL2", 3, 4, 12, 11, 1),
	SR("ICH_MISR_EL2", 3, 4, 12, 11, 2),
	SR("ICH_EISR_EL2", 3, 4, 12, 11, 3),
	SR("ICH_ELSR_EL2", 3, 4, 12, 11, 5),
	SR("ICH_VMCR_EL2", 3, 4, 12, 11, 7),
	SR("CNTPCT_EL0", 3, 3, 14, 0, 1),
	SR("CNTVCT_EL0", 3, 3, 14, 0, 2),
	SR("CNTPCTSS_EL0", 3, 3, 14, 0, 5),
	SR("CNTVCTSS_EL0", 3, 3, 14, 0, 6),
	SR("CNTV_TVAL_EL0", 3, 3, 14, 3, 0),
	SR("CNTV_CTL_EL0", 3, 3, 14, 3, 1),
	SR("CNTV_CVAL_EL0", 3, 3, 14, 3, 2),
	SR("PMCCFILTR_EL0", 3, 3, 14, 15, 7),
	SR("ID_ISAR6_EL1", 3, 0, 0, 2, 7),
	SR("ID_PFR2_EL1", 3, 0, 0, 3, 4),
	SR("ID_DFR1_EL1", 3, 0, 0, 3, 5),
	SR("ID_MMFR5_EL1", 3, 0, 0, 3, 6),
	SR("ID_AA64ISAR2_EL1", 3, 0, 0, 6, 2),
	SR("ID_AA64MMFR3_EL1", 3, 0, 0, 7, 3),
	SR("RGSR_EL1", 3, 0, 1, 0, 5),
	SR("GCR_EL1", 3, 0, 1, 0, 6),
	SR("CCSIDR_EL1", 3, 1, 0, 0, 0),
	SR_DBG(0), SR_DBG(1), SR_DBG(2), SR_DBG(3), SR_DBG(4), SR_DBG(5), SR_DBG(6), SR_DBG(7),
	SR_DBG(8), SR_DBG(9), SR_DBG(10), SR_DBG(11), SR_DBG(12), SR_DBG(13), SR_DBG(14), SR_DBG(15),
	SR_PMEV(0), SR_PMEV(1), SR_PMEV(2), SR_PMEV(3), SR_PMEV(4), SR_PMEV(5), SR_PMEV(6), SR_PMEV(7),
	SR_PMEV(8), SR_PMEV(9), SR_PMEV(10), SR_PMEV(11), SR_PMEV(12), SR_PMEV(13), SR_PMEV(14),
	SR_PMEV(15), SR_PMEV(16), SR_PMEV(17), SR_PMEV(18), SR_PMEV(19), SR_PMEV(20), SR_PMEV(21),
	SR_PMEV(22), SR_PMEV(23), SR_PMEV(24), SR_PMEV(25), SR_PMEV(26), SR_PMEV(27), SR_PMEV(28),
	SR_PMEV(29), SR_PMEV(30),
	SR("ICC_AP0R0_EL1", 3, 0, 12, 8, 4), SR("ICC_AP0R1_EL1", 3, 0, 12, 8, 5),
	SR("ICC_AP0R2_EL1", 3, 0, 12, 8, 6), SR("ICC_AP0R3_EL1", 3, 0, 12, 8, 7),
	SR("ICC_AP1R0_EL1", 3, 0, 12, 9, 0), SR("ICC_AP1R1_EL1", 3, 0, 12, 9, 1),
	SR("ICC_AP1R2_EL1", 3, 0, 12, 9, 2), SR("ICC_AP1R3_EL1", 3, 0, 12, 9, 3),
};

#define FN(id, name)	{ id, id, name }

/*
 * The SMC Calling Convention's function ids (w0 of an HVC): PSCI's
 * (include/uapi/linux/psci.h: 0x84000000 + n, the SMC64 forms
 * 0xc4000000 + n; Arm DEN 0022), the Arm architecture calls, TRNG and
 * paravirtual time of include/linux/arm-smccc.h (Arm DEN 0028, DEN 0098,
 * DEN 0057) and KVM's own vendor hypervisor calls (owner 6: features,
 * PTP, and pKVM's memory sharing) as arch/arm64/kvm/hypercalls.c serves them.
 */
static const struct arm64_objects_row arm64_hvc_fns[] = {
	FN(0x80000000, "SMCCC_VERSION"),
	FN(0x80000001, "SMCCC_ARCH_FEATURES"),
	FN(0x80000002, "SMCCC_ARCH_SOC_ID"),
	FN(0x80003fff, "SMCCC_ARCH_WORKAROUND_3"),
	FN(0x80007fff, "SMCCC_ARCH_WORKAROUND_2"),
	FN(0x80008000, "SMCCC_ARCH_WORKAROUND_1"),
	FN(0x84000000, "PSCI_VERSION"),
	FN(0x84000001, "PSCI_CPU_SUSPEND"),
	FN(0x84000002, "PSCI_CPU_OFF"),
	FN(0x84000003, "PSCI_CPU_ON"),
	FN(0x84000004, "PSCI_AFFINITY_INFO"),
	FN(0x84000005, "PSCI_MIGRATE"),
	FN(0x84000006, "PSCI_MIGRATE_INFO_TYPE"),
	FN(0x84000007, "PSCI_MIGRATE_INFO_UP_CPU"),
	FN(0x84000008, "PSCI_SYSTEM_OFF"),
	FN(0x84000009, "PSCI_SYSTEM_RESET"),
	FN(0x8400000a, "PSCI_FEATURES"),
	FN(0x8400000b, "PSCI_CPU_FREEZE"),
	FN(0x8400000c, "PSCI_CPU_DEFAULT_SUSPEND"),
	FN(0x8400000d, "PSCI_NODE_HW_STATE"),
	FN(0x8400000e, "PSCI_SYSTEM_SUSPEND"),
	FN(0x8400000f, "PSCI_SET_SUSPEND_MODE"),
	FN(0x84000010, "PSCI_STAT_RESIDENCY"),
	FN(0x84000011, "PSCI_STAT_COUNT"),
	FN(0x84000012, "PSCI_SYSTEM_RESET2"),
	FN(0x84000013, "PSCI_MEM_PROTECT"),
	FN(0x84000014, "PSCI_MEM_PROTECT_CHECK_RANGE"),
	FN(0x84000015, "PSCI_SYSTEM_OFF2"),
	FN(0x84000050, "TRNG_VERSION"),
	FN(0x84000051, "TRNG_FEATURES"),
	FN(0x84000052, "TRNG_GET_UUID"),
	FN(0x84000053, "TRNG_RND32"),
	FN(0x86000000, "KVM_FEATURES"),
	FN(0x86000001, "KVM_PTP"),
	FN(0x8600ff01, "VENDOR_HYP_CALL_UID"),
	FN(0xc4000001, "PSCI_CPU_SUSPEND64"),
	FN(0xc4000003, "PSCI_CPU_ON64"),
	FN(0xc4000004, "PSCI_AFFINITY_INFO64"),
	FN(0xc4000005, "PSCI_MIGRATE64"),
	FN(0xc4000007, "PSCI_MIGRATE_INFO_UP_CPU64"),
	FN(0xc400000c, "PSCI_CPU_DEFAULT_SUSPEND64"),
	FN(0xc400000d, "PSCI_NODE_HW_STATE64"),
	FN(0xc400000e, "PSCI_SYSTEM_SUSPEND64"),
	FN(0xc4000010, "PSCI_STAT_RESIDENCY64"),
	FN(0xc4000011, "PSCI_STAT_COUNT64"),
	FN(0xc4000012, "PSCI_SYSTEM_RESET2_64"),
	FN(0xc4000014, "PSCI_MEM_PROTECT_CHECK_RANGE64"),
	FN(0xc4000015, "PSCI_SYSTEM_OFF2_64"),
	FN(0xc4000053, "TRNG_RND64"),
	FN(0xc5000020, "PV_TIME_FEATURES"),
	FN(0xc5000021, "PV_TIME_ST"),
	FN(0xc6000002, "KVM_HYP_MEMINFO"),
	FN(0xc6000003, "KVM_MEM_SHARE"),
	FN(0xc6000004, "KVM_MEM_UNSHARE"),
};

/*
 * MMIO pages of QEMU's "virt" machine, the usual arm64 guest
 * (hw/arm/virt.c, base_memmap): the GIC's distributor, CPU interface,
 * ITS and redistributors, the PL011 UART, PL031 RTC, fw_cfg, PL061 GPIO,
 * the virtio-mmio transports (32 of 0x200 bytes), the PCIe MMIO window
 * and ECAM; the flash below them.  Another machine's map differs.
 */
static const struct arm64_objects_row arm64_mmio[] = {
	{ 0x00000000, 0x07ffffff, "flash (virt)" },
	{ 0x08000000, 0x0800ffff, "GIC distributor (virt)" },
	{ 0x08010000, 0x0801ffff, "GIC CPU interface (virt)" },
	{ 0x08020000, 0x08020fff, "GICv2m (virt)" },
	{ 0x08080000, 0x0809ffff, "GIC ITS (virt)" },
	{ 0x080a0000, 0x08ffffff, "GIC redistributors (virt)" },
	{ 0x09000000, 0x09000fff, "UART PL011 (virt)" },
	{ 0x09010000, 0x09010fff, "RTC PL031 (virt)" },
	{ 0x09020000, 0x09020fff, "fw_cfg (virt)" },
	{ 0x09030000, 0x09030fff, "GPIO PL061 (virt)" },
	{ 0x0a000000, 0x0a003fff, "virtio-mmio (virt)" },
	{ 0x10000000, 0x3efeffff, "PCIe MMIO (virt)" },
	{ 0x3eff0000, 0x3effffff, "PCIe PIO (virt)" },
	{ 0x3f000000, 0x3fffffff, "PCIe ECAM (virt)" },
};

/* The names objects.c's kinds look up (objects.h): NULL where the table has none. */
const char *arm64_sysreg_name(uint64_t reg)
{
	return ARM64_FIND(arm64_sysregs, reg);
}

const char *arm64_sysreg_value(uint64_t reg, char *buf, size_t len)
{
	snprintf(buf, len, "S%u_%u_C%u_C%u_%u", (unsigned int)(reg >> 32 & 0xff),
		 (unsigned int)(reg >> 24 & 0xff), (unsigned int)(reg >> 16 & 0xff),
		 (unsigned int)(reg >> 8 & 0xff), (unsigned int)(reg & 0xff));
	return buf;
}

const char *arm64_hvc_name(uint64_t fn)
{
	return ARM64_FIND(arm64_hvc_fns, fn);
}

/* kvm_wfx_arm64's is_wfe, a bool: 0 a WFI (or WFIT), 1 a WFE (or WFET). */
const char *arm64_wfx_name(uint64_t is_wfe)
{
	return is_wfe == 0 ? "WFI" : is_wfe == 1 ? "WFE" : NULL;
}

const char *arm64_mmio_name(uint64_t ipa)
{
	return ARM64_FIND(arm64_mmio, ipa);
}
