// SPDX-License-Identifier: GPL-2.0
/*
 * powerpc: the names of what an exit touched (objects.h): the PAPR
 * hcall a hypercall exit made (kvm_hv:kvm_hcall_enter's req, the
 * guest's r3).  A number no row names has no name, and the views show
 * the number.
 */
#include "decode/objects.h"

struct ppc_objects_name {
	uint64_t nr;
	const char *name;
};

/*
 * The hcall numbers of the kernel's arch/powerpc/include/asm/hvcall.h
 * ("pSeries hypervisor opcodes", the platform-specific ones KVM and
 * QEMU/SLOF use and those of nested KVM and the Ultravisor), the ones
 * a KVM guest makes; arch/powerpc/kvm/trace_hv.h's kvm_trace_symbol_hcall
 * names the same numbers the same way.
 */
static const struct ppc_objects_name ppc_hcalls[] = {
	{ 0x04, "H_REMOVE" }, { 0x08, "H_ENTER" }, { 0x0c, "H_READ" },
	{ 0x10, "H_CLEAR_MOD" }, { 0x14, "H_CLEAR_REF" }, { 0x18, "H_PROTECT" },
	{ 0x1c, "H_GET_TCE" }, { 0x20, "H_PUT_TCE" }, { 0x24, "H_SET_SPRG0" },
	{ 0x28, "H_SET_DABR" }, { 0x2c, "H_PAGE_INIT" }, { 0x3c, "H_LOGICAL_CI_LOAD" },
	{ 0x40, "H_LOGICAL_CI_STORE" }, { 0x54, "H_GET_TERM_CHAR" }, { 0x58, "H_PUT_TERM_CHAR" },
	{ 0x64, "H_EOI" }, { 0x68, "H_CPPR" }, { 0x6c, "H_IPI" }, { 0x70, "H_IPOLL" },
	{ 0x74, "H_XIRR" }, { 0x7c, "H_PERFMON" }, { 0xdc, "H_REGISTER_VPA" },
	{ 0xe0, "H_CEDE" }, { 0xe4, "H_CONFER" }, { 0xe8, "H_PROD" }, { 0xec, "H_GET_PPP" },
	{ 0xf0, "H_SET_PPP" }, { 0xf4, "H_PURR" }, { 0x104, "H_VIO_SIGNAL" },
	{ 0x124, "H_BULK_REMOVE" }, { 0x134, "H_SET_XDABR" }, { 0x138, "H_STUFF_TCE" },
	{ 0x13c, "H_PUT_TCE_INDIRECT" }, { 0x1c8, "H_GET_CPU_CHARACTERISTICS" },
	{ 0x2ec, "H_HOME_NODE_ASSOCIATIVITY" }, { 0x2fc, "H_XIRR_X" }, { 0x300, "H_RANDOM" },
	{ 0x31c, "H_SET_MODE" }, { 0x328, "H_BLOCK_REMOVE" }, { 0x358, "H_CLEAR_HPT" },
	{ 0x36c, "H_RESIZE_HPT_PREPARE" }, { 0x370, "H_RESIZE_HPT_COMMIT" },
	{ 0x37c, "H_REGISTER_PROC_TBL" }, { 0x380, "H_SIGNAL_SYS_RESET" },
	{ 0x3a8, "H_INT_GET_SOURCE_INFO" }, { 0x3ac, "H_INT_SET_SOURCE_CONFIG" },
	{ 0x3b0, "H_INT_GET_SOURCE_CONFIG" }, { 0x3b4, "H_INT_GET_QUEUE_INFO" },
	{ 0x3b8, "H_INT_SET_QUEUE_CONFIG" }, { 0x3bc, "H_INT_GET_QUEUE_CONFIG" },
	{ 0x3c8, "H_INT_ESB" }, { 0x3cc, "H_INT_SYNC" }, { 0x3d0, "H_INT_RESET" },
	{ 0x448, "H_RPT_INVALIDATE" }, { 0x45c, "H_WATCHDOG" },
	{ 0xef00, "H_SVM_PAGE_IN" }, { 0xef04, "H_SVM_PAGE_OUT" }, { 0xef08, "H_SVM_INIT_START" },
	{ 0xef0c, "H_SVM_INIT_DONE" }, { 0xef14, "H_SVM_INIT_ABORT" },
	{ 0xf000, "H_RTAS" }, { 0xf001, "H_LOGICAL_MEMOP" }, { 0xf002, "H_CAS" },
	{ 0xf003, "H_UPDATE_DT" }, { 0xf800, "H_SET_PARTITION_TABLE" },
	{ 0xf804, "H_ENTER_NESTED" }, { 0xf808, "H_TLB_INVALIDATE" },
	{ 0xf80c, "H_COPY_TOFROM_GUEST" },
};

const char *ppc_hcall_name(uint64_t req)
{
	size_t i;

	for (i = 0; i < sizeof(ppc_hcalls) / sizeof(ppc_hcalls[0]); i++)
		if (ppc_hcalls[i].nr == req)
			return ppc_hcalls[i].name;
	return NULL;
}
