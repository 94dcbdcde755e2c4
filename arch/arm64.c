// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 (and the arm layouts before it): kvm:kvm_exit / kvm:kvm_entry.
 *
 * Layouts (see tests/formats):
 *   arm 3.9          kvm_exit {vcpu_pc}: no reason at all
 *   arm ~4.0         kvm_exit {exit_reason (the EC), vcpu_pc}
 *   arm/arm64 4.x    kvm_exit {idx (exception type), exit_reason (EC), vcpu_pc}
 *   arm64 4.16+      kvm_exit {ret (exception type), esr_ec, vcpu_pc}
 *   kvm_entry        {vcpu_pc} in all of them; no event carries a vCPU id
 *
 * The exception type says why the guest left: IRQ, SERROR, TRAP,
 * ILLEGAL, HYP_GONE.  Only for a TRAP does the exception class (EC) of
 * ESR_EL2 say which trap (WFx, HVC64, SYS64, DABT_LOW ...); for the
 * other types the kernel writes 0 (4.16+) or a stale EC (4.x), which is
 * ignored.  A reason's code is type << 8 | EC, the type being 0xff for
 * HYP_GONE and other large values, 0xfe when the layout has only the EC
 * and 0xfd when it has nothing: e.g. TRAP/SYS64 is 0x218.
 *
 * Names come first from the kernel's own tables in the print fmt
 * (kvm_arm_exception_type, kvm_arm_exception_class); the tables below
 * are asm/kvm_asm.h's and asm/esr.h's, used when a format has none.
 */
#include <stdio.h>
#include <string.h>

#include "decode/decode.h"
#include "decode/objects.h"

#define ARM_EXC_IRQ		0
#define ARM_EXC_SERROR		1
#define ARM_EXC_TRAP		2
#define ARM_EXC_IL		3
#define ARM_EXC_HYP_GONE	0xbadca11u	/* HVC_STUB_ERR */

#define TYPE_LARGE	0xff	/* HYP_GONE, or any type above 0xfd */
#define TYPE_EC_ONLY	0xfe	/* the layout has the EC but no type */
#define TYPE_NONE	0xfd	/* the layout has neither */

#define EC_WFX		0x01

static const char *const ec_names[64] = {
	[0x00] = "UNKNOWN", [0x01] = "WFx", [0x03] = "CP15_32", [0x04] = "CP15_64",
	[0x05] = "CP14_MR", [0x06] = "CP14_LS", [0x07] = "FP_ASIMD", [0x08] = "CP10_ID",
	[0x09] = "PAC", [0x0a] = "OTHER", [0x0c] = "CP14_64", [0x0d] = "BTI",
	[0x0e] = "ILL", [0x11] = "SVC32", [0x12] = "HVC32", [0x13] = "SMC32",
	[0x15] = "SVC64", [0x16] = "HVC64", [0x17] = "SMC64", [0x18] = "SYS64",
	[0x19] = "SVE", [0x1a] = "ERET", [0x1c] = "FPAC", [0x1d] = "SME",
	[0x1f] = "IMP_DEF", [0x20] = "IABT_LOW", [0x21] = "IABT_CUR", [0x22] = "PC_ALIGN",
	[0x24] = "DABT_LOW", [0x25] = "DABT_CUR", [0x26] = "SP_ALIGN", [0x27] = "MOPS",
	[0x28] = "FP_EXC32", [0x2c] = "FP_EXC64", [0x2d] = "GCS", [0x2f] = "SERROR",
	[0x30] = "BREAKPT_LOW", [0x31] = "BREAKPT_CUR", [0x32] = "SOFTSTP_LOW",
	[0x33] = "SOFTSTP_CUR", [0x34] = "WATCHPT_LOW", [0x35] = "WATCHPT_CUR",
	[0x38] = "BKPT32", [0x3a] = "VECTOR32", [0x3c] = "BRK64",
};

static const char *type_table(uint32_t type)
{
	switch (type) {
	case ARM_EXC_IRQ:	return "IRQ";
	case ARM_EXC_SERROR:	return "SERROR";
	case ARM_EXC_TRAP:	return "TRAP";
	case ARM_EXC_IL:	return "ILLEGAL";
	case ARM_EXC_HYP_GONE:	return "HYP_GONE";
	}
	return NULL;
}

static void arm64_decode_exit(const struct field_vals *fv, struct kvm_event *ev)
{
	uint32_t type, ec = FV_HAS(fv, FR_AUX) ? (uint32_t)fv->v[FR_AUX] & 0x3f : 0;

	ev->isa = ISA_ARM64;
	ev->flags = 0;
	if (!FV_HAS(fv, FR_REASON)) {
		ev->reason = FV_HAS(fv, FR_AUX) ? TYPE_EC_ONLY << 8 | ec : TYPE_NONE << 8;
		return;
	}
	type = (uint32_t)fv->v[FR_REASON];
	if (type != ARM_EXC_TRAP)
		ec = 0;		/* only a trap's EC means something */
	ev->reason = (type < TYPE_NONE ? type : TYPE_LARGE) << 8 | ec;
}

static void ec_name(const struct decode_syms *f, uint32_t ec, char *buf, size_t len)
{
	const char *s = decode_role_sym(f, FR_AUX, ec);

	if (!s)
		s = ec_names[ec & 0x3f];
	if (s)
		strlcpy(buf, s, len);
	else
		snprintf(buf, len, "EC_0x%02x", ec);
}

static void arm64_reason_name(const struct decode_syms *f, const struct field_vals *fv,
			      const struct kvm_event *ev, char *buf, size_t len)
{
	uint32_t type_idx = ev->reason >> 8, ec = ev->reason & 0xff;
	uint32_t type = FV_HAS(fv, FR_REASON) ? (uint32_t)fv->v[FR_REASON] : 0;
	const char *t;
	char e[32];

	if (type_idx == TYPE_NONE) {
		strlcpy(buf, "EXIT", len);	/* the layout says nothing more */
		return;
	}
	if (type_idx == TYPE_EC_ONLY) {
		ec_name(f, ec, e, sizeof(e));
		snprintf(buf, len, "EC/%s", e);
		return;
	}
	t = decode_role_sym(f, FR_REASON, type);
	if (!t)
		t = type_table(type);
	if (type == ARM_EXC_TRAP) {
		ec_name(f, ec, e, sizeof(e));
		snprintf(buf, len, "%s/%s", t, e);
	} else if (t) {
		strlcpy(buf, t, len);
	} else {
		snprintf(buf, len, "UNKNOWN(0x%x)", type);
	}
}

/* A TRAP of class WFx: the guest waits for an interrupt (or an event). */
static bool arm64_blocking(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code == (ARM_EXC_TRAP << 8 | EC_WFX) || code == (TYPE_EC_ONLY << 8 | EC_WFX);
}

static bool arm64_async(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code >> 8 == ARM_EXC_IRQ || code >> 8 == ARM_EXC_SERROR;
}

/* WFx waits; a data abort from the guest is MMIO (or a stage-2 fault); HVC a hypercall. */
static enum reason_class arm64_class(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	uint32_t type = code >> 8, ec = code & 0xff;

	if (arm64_blocking(isa, code, flags))
		return RC_HALT;
	if (arm64_async(isa, code, flags))
		return RC_INTERRUPT;
	if (type != ARM_EXC_TRAP && type != TYPE_EC_ONLY)
		return RC_OTHER;
	if (ec == 0x24)
		return RC_MMIO;			/* DABT_LOW */
	if (ec == 0x16 || ec == 0x12)
		return RC_HYPERCALL;		/* HVC64, HVC32 */
	return RC_OTHER;
}

/*
 * kvm_sys_access' system register: its five u8 fields, a byte each
 * (objects.h's ARM64_SYSREG); one the record lacks is 0.
 */
static uint64_t arm64_sysreg(const struct field_vals *fv)
{
	uint64_t p[OBJ_PARTS];
	int i;

	for (i = 0; i < OBJ_PARTS; i++)
		p[i] = FV_HAS(fv, FR_PART1 + i) ? fv->v[FR_PART1 + i] & 0xff : 0;
	return ARM64_SYSREG(fv->v[FR_INFO1] & 0xff, p[0], p[1], p[2], p[3]);
}

/*
 * The companion events of arch/arm64/kvm/trace_handle_exit.h and
 * include/trace/events/kvm.h, written while KVM handles a TRAP:
 * kvm_sys_access for a SYS64 trap it emulates (sys_regs.c: the register
 * and is_write), kvm_hvc_arm64 for an HVC64 (handle_exit.c: r0, whose
 * low 32 bits, w0, are the SMCCC function id KVM serves), kvm_wfx_arm64
 * for a WFx (is_wfe) and kvm_mmio for a DABT_LOW it emulates (mmio.c:
 * type 0 a read not yet done, 1 a read, 2 a write; by page).
 */
static const struct obj_event arm64_obj_events[] = {
	{ "kvm", "kvm_sys_access", KVM_OBJ_SYSREG, "Op0", "is_write", NULL, OBJ_WRITE_ANY, 0, NULL },
	{ "kvm", "kvm_hvc_arm64", KVM_OBJ_HVC, "r0", NULL, NULL, 0, 0xffffffffull, NULL },
	{ "kvm", "kvm_wfx_arm64", KVM_OBJ_WFX, "is_wfe", NULL, NULL, 0, 0, NULL },
	{ "kvm", "kvm_mmio", KVM_OBJ_MMIO_ARM64, "gpa", "type", "len", 2, ~0xfffull, NULL },
	{ NULL },
};

static const struct obj_parts arm64_obj_parts[] = {
	{ "kvm_sys_access", { "Op1", "CRn", "CRm", "Op2" }, arm64_sysreg },
	{ NULL },
};

const struct arch_ops arch_arm64 = {
	.name = "arm64",
	.exit_system = "kvm",
	.exit_event = "kvm_exit",
	.entry_system = "kvm",
	.entry_event = "kvm_entry",
	.exit_fields = {
		[FR_REASON] = { "ret", "idx" },
		[FR_AUX] = { "esr_ec", "exit_reason" },
		[FR_IP] = { "vcpu_pc" },
		[FR_VCPU] = { "vcpu_id" },
	},
	.entry_fields = {
		[FR_IP] = { "vcpu_pc" },
		[FR_VCPU] = { "vcpu_id" },
	},
	.exit_required = 1u << FR_IP,
	.decode_exit = arm64_decode_exit,
	.reason_name = arm64_reason_name,
	.blocking = arm64_blocking,
	.async = arm64_async,
	.class_of = arm64_class,
	.ip_halves = true,
	.obj_events = arm64_obj_events,
	.obj_parts = arm64_obj_parts,
};
