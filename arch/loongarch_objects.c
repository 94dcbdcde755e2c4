// SPDX-License-Identifier: GPL-2.0
/*
 * LoongArch: what a GSPR exit's instruction was (objects.h).  KVM takes a
 * GSPR exit for the guest's CPUCFG, CSR, CACOP, IDLE and IOCSR
 * instructions it must emulate; kvm_exit_gspr carries the instruction
 * word, and kvm_exit_idle / kvm_exit_cache come after it for IDLE and
 * CACOP.  The object is the instruction's class, so an idle vCPU's IDLE
 * exits (whose latency is its sleep) stand apart from the CPUCFG and CSR
 * exits KVM handles at once.
 *
 * The classes follow the kernel's decoder of the word,
 * kvm_trap_handle_gspr() in arch/loongarch/kvm/exit.c: bits 31-24 0x00
 * with the 2R opcode (bits 31-10) 0x1b is CPUCFG; 0x04 a CSR access, its
 * rj field (bits 9-5) 0 a CSRRD, 1 a CSRWR, else CSRXCHG; 0x06 with bits
 * 31-22 0x018 CACOP, with bits 31-15 0xc90 an IOCSR access (its 2R
 * opcode 0x19200-0x19203 the reads IOCSRRD.{B,H,W,D}, 0x19204-0x19207
 * the writes, as the LoongArch Reference Manual encodes them) and 0xc91
 * IDLE.  A word none of these is kept whole, with bit 32 set, and has
 * no name.
 */
#include "decode/objects.h"

enum {
	LA_GSPR_CPUCFG = 1,
	LA_GSPR_CSRRD,
	LA_GSPR_CSRWR,
	LA_GSPR_CSRXCHG,
	LA_GSPR_CACOP,
	LA_GSPR_IOCSRRD,
	LA_GSPR_IOCSRWR,
	LA_GSPR_IDLE,
	LA_GSPR_NR,
};

#define LA_TRACE_EXIT_IDLE	64	/* KVM_TRACE_EXIT_IDLE, kvm_exit_idle's reason */
#define LA_TRACE_EXIT_CACHE	65	/* KVM_TRACE_EXIT_CACHE */

static const char *const loongarch_gspr_names[LA_GSPR_NR] = {
	[LA_GSPR_CPUCFG] = "CPUCFG", [LA_GSPR_CSRRD] = "CSRRD", [LA_GSPR_CSRWR] = "CSRWR",
	[LA_GSPR_CSRXCHG] = "CSRXCHG", [LA_GSPR_CACOP] = "CACOP", [LA_GSPR_IOCSRRD] = "IOCSRRD",
	[LA_GSPR_IOCSRWR] = "IOCSRWR", [LA_GSPR_IDLE] = "IDLE",
};

/* The class of a CSR access: its rj field says which. */
static uint64_t loongarch_csr_class(uint32_t w)
{
	uint32_t rj = w >> 5 & 0x1f;

	return rj == 0 ? LA_GSPR_CSRRD : rj == 1 ? LA_GSPR_CSRWR : LA_GSPR_CSRXCHG;
}

uint64_t loongarch_gspr_class(uint64_t word)
{
	uint32_t w = (uint32_t)word, op2 = w >> 10;

	switch (w >> 24) {
	case 0x00:
		if (op2 == 0x1b)
			return LA_GSPR_CPUCFG;
		break;
	case 0x04:
		return loongarch_csr_class(w);
	case 0x06:
		if ((w >> 22 & 0x3ff) == 0x018)
			return LA_GSPR_CACOP;
		if ((w >> 15) == 0xc90 && op2 <= 0x19207)
			return op2 < 0x19204 ? LA_GSPR_IOCSRRD : LA_GSPR_IOCSRWR;
		if ((w >> 15) == 0xc91)
			return LA_GSPR_IDLE;
		break;
	}
	return 1ull << 32 | w;
}

uint64_t loongarch_exit_class(uint64_t reason)
{
	if (reason == LA_TRACE_EXIT_IDLE)
		return LA_GSPR_IDLE;
	if (reason == LA_TRACE_EXIT_CACHE)
		return LA_GSPR_CACOP;
	return 1ull << 33 | (reason & 0xffffffff);
}

const char *loongarch_gspr_name(uint64_t cls)
{
	return cls < LA_GSPR_NR ? loongarch_gspr_names[cls] : NULL;
}
