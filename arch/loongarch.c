// SPDX-License-Identifier: GPL-2.0
/*
 * LoongArch: kvm:kvm_exit / kvm:kvm_reenter and kvm:kvm_enter.
 *
 * arch/loongarch/kvm/trace.h (Linux 6.7 on): the kvm_exit class {pc,
 * reason} and the kvm_transition class {pc}.  vcpu.c's kvm_handle_exit()
 * writes kvm_exit for every exit, its reason the exception code of the
 * host's ESTAT (0: an interrupt, which the host takes), then kvm_reenter
 * when the exit was handled in the kernel; an exit that goes out to user
 * space ends with kvm_out and, on the next KVM_RUN, kvm_enter.  So an
 * exit ends at the next kvm_reenter or kvm_enter of its thread.  No event
 * carries a vCPU id.
 *
 * kvm_exit_idle, kvm_exit_cache (the same class) and kvm_exit_gspr are
 * written by exit.c inside the handling of a GSPR exit (the guest's IDLE,
 * CACOP, CPUCFG, CSR and IOCSR instructions) after its kvm_exit: they are
 * counted as events of their own, not as exits, and name the GSPR exit's
 * object, its instruction's class (arch/loongarch_objects.c).  So a GSPR
 * exit's IDLE stands apart from its CPUCFG and CSR accesses in the
 * objects, each with its latency (an IDLE's is the vCPU's sleep); the
 * reason stays GSPR, and with the scheduler's events the sleep shows as
 * blocked time.
 *
 * Names come first from the kvm_exit print fmt's table (the kernel's
 * KVM_TRACE_EXIT_* reasons, 64 IDLE and 65 CACHE, which kvm_exit_idle
 * and kvm_exit_cache carry); the exception codes below are
 * arch/loongarch/include/asm/loongarch.h's EXCCODE_* (0, the interrupt,
 * named INT as the LoongArch reference manual's ESTAT.Ecode does).
 */
#include "decode/decode.h"
#include "decode/objects.h"

#define LA_EXC_INT	0
#define LA_EXC_TLBL	1	/* a load's page: MMIO, or a stage-2 fault */
#define LA_EXC_TLBS	2	/* a store's */
#define LA_EXC_HVC	23
#define LA_EXIT_IDLE	64	/* KVM_TRACE_EXIT_IDLE: kvm_exit_idle's reason */

static const char *const loongarch_exc_names[] = {
	[0] = "INT", [1] = "TLBL", [2] = "TLBS", [3] = "TLBI", [4] = "TLBM", [5] = "TLBNR",
	[6] = "TLBNX", [7] = "TLBPE", [8] = "ADE", [9] = "ALE", [10] = "BCE", [11] = "SYS",
	[12] = "BP", [13] = "INE", [14] = "IPE", [15] = "FPDIS", [16] = "LSXDIS",
	[17] = "LASXDIS", [18] = "FPE", [19] = "WATCH", [20] = "BTDIS", [21] = "BTE",
	[22] = "GSPR", [23] = "HVC", [24] = "GCM", [25] = "SE",
	[64] = "IDLE", [65] = "CACHE",
};

/* The reason field is the code; no flags. */
static void loongarch_decode_exit(const struct field_vals *fv, struct kvm_event *ev)
{
	ev->isa = ISA_LOONGARCH;
	ev->reason = FV_HAS(fv, FR_REASON) ? (uint32_t)fv->v[FR_REASON] : 0;
	ev->flags = 0;
}

/* EXCCODE_*'s name of code, or NULL. */
static const char *loongarch_table_name(enum kvm_isa isa, uint32_t code)
{
	if (code >= sizeof(loongarch_exc_names) / sizeof(loongarch_exc_names[0]))
		return NULL;
	return loongarch_exc_names[code];
}

/* Only an exit whose reason says IDLE waits (kvm_exit's own reasons never do). */
static bool loongarch_blocking(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code == LA_EXIT_IDLE;
}

/* An interrupt (Ecode 0): the host's. */
static bool loongarch_async(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code == LA_EXC_INT;
}

/* A load or store page fault is MMIO (or a stage-2 fault), HVC a hypercall. */
static enum reason_class loongarch_class(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	if (loongarch_blocking(isa, code, flags))
		return RC_HALT;
	if (loongarch_async(isa, code, flags))
		return RC_INTERRUPT;
	if (code == LA_EXC_TLBL || code == LA_EXC_TLBS)
		return RC_MMIO;
	if (code == LA_EXC_HVC)
		return RC_HYPERCALL;
	return RC_OTHER;
}

/*
 * The companions of a GSPR exit, in the kvm system since Linux 6.7, and
 * kvm_mmio, which exit.c writes for each MMIO access of a TLBL/TLBS
 * exit it emulates (type 0 a read not yet done, 1 a read, 2 a write; by
 * page, with no names: no map of a LoongArch machine's pages is kept):
 * the last before the entry wins.
 */
static const struct obj_event loongarch_obj_events[] = {
	{ "kvm", "kvm_mmio", KVM_OBJ_MMIO_PAGE, "gpa", "type", "len", 2, ~0xfffull, NULL },
	{ "kvm", "kvm_exit_gspr", KVM_OBJ_LA_GSPR, "inst_word", NULL, NULL, 0, 0, loongarch_gspr_class },
	{ "kvm", "kvm_exit_idle", KVM_OBJ_LA_GSPR, "reason", NULL, NULL, 0, 0, loongarch_exit_class },
	{ "kvm", "kvm_exit_cache", KVM_OBJ_LA_GSPR, "reason", NULL, NULL, 0, 0, loongarch_exit_class },
	{ NULL },
};

const struct arch_ops arch_loongarch = {
	.name = "loongarch",
	.exit_system = "kvm",
	.exit_event = "kvm_exit",
	.entry_system = "kvm",
	.entry_event = "kvm_reenter",
	.entry_event2 = "kvm_enter",
	.exit_fields = {
		[FR_REASON] = { "reason" },
		[FR_IP] = { "pc" },
		[FR_VCPU] = { "vcpu_id" },
	},
	.entry_fields = {
		[FR_IP] = { "pc" },
		[FR_VCPU] = { "vcpu_id" },
	},
	.exit_required = 1u << FR_REASON | 1u << FR_IP,
	.reason_field = "reason",
	.decode_exit = loongarch_decode_exit,
	.table_name = loongarch_table_name,
	.blocking = loongarch_blocking,
	.async = loongarch_async,
	.class_of = loongarch_class,
	.ip_halves = true,
	.obj_events = loongarch_obj_events,
};
