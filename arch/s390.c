// SPDX-License-Identifier: GPL-2.0
/*
 * s390: kvm:kvm_s390_sie_exit / kvm:kvm_s390_sie_enter.
 *
 * Both carry the vCPU's common fields {id, pswmask, pswaddr}
 * (arch/s390/kvm/trace.h); the exit adds the intercept code icptcode, the
 * entry cpuflags.  There is no kvm_exit on s390: leaving SIE is the exit.
 * The guest address is the PSW address; the PSW mask's problem-state bit
 * says whether the guest ran in user or kernel mode.
 *
 * Names come first from the kernel's table in the print fmt
 * (sie_intercept_code); the one below is asm/sie.h's.
 *
 * What an exit touched comes from the events KVM writes while it
 * handles the intercept (arch/s390/kvm/trace.h, intercept.c, diag.c):
 * kvm_s390_intercept_instruction {instruction: ipa << 48 | ipb << 16}
 * for an instruction intercept, its object the opcode; then, for a
 * DIAGNOSE, kvm_s390_handle_diag {code}, whose code is the object (the
 * last event before the entry wins).  Names: arch/s390_objects.c.
 */
#include "decode/decode.h"
#include "decode/objects.h"

#define S390_HOST_INTERRUPT	0x00
#define S390_EXT_INTERRUPT	0x14
#define S390_WAIT_STATE		0x1c
#define S390_IO_INTERRUPT	0x3c
#define S390_PSW_MASK_PSTATE	0x0001000000000000ull

static const char *const icpt_names[] = {
	[0x00] = "Host interruption", [0x04] = "Instruction",
	[0x08] = "Program interruption", [0x0c] = "Instruction and program interruption",
	[0x10] = "External request", [0x14] = "External interruption",
	[0x18] = "I/O request", [0x1c] = "Wait state", [0x20] = "Validity",
	[0x28] = "Stop request", [0x2c] = "Operation exception",
	[0x38] = "Partial-execution", [0x3c] = "I/O interruption",
	[0x40] = "I/O instruction", [0x48] = "Timing subset",
};

static void s390_decode_exit(const struct field_vals *fv, struct kvm_event *ev)
{
	ev->isa = ISA_S390;
	ev->reason = FV_HAS(fv, FR_REASON) ? (uint32_t)fv->v[FR_REASON] : 0;
	ev->flags = 0;
	if (FV_HAS(fv, FR_INFO1))
		ev->mode = fv->v[FR_INFO1] & S390_PSW_MASK_PSTATE ? GUEST_USER : GUEST_KERNEL;
}

static const char *s390_table_name(enum kvm_isa isa, uint32_t code)
{
	return code < sizeof(icpt_names) / sizeof(icpt_names[0]) ? icpt_names[code] : NULL;
}

static bool s390_blocking(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code == S390_WAIT_STATE;
}

static bool s390_async(enum kvm_isa isa, uint32_t code, uint32_t flags)
{
	return code == S390_HOST_INTERRUPT || code == S390_EXT_INTERRUPT ||
	       code == S390_IO_INTERRUPT;
}

/* The companion events, both in the kvm system since Linux 3.3. */
static const struct obj_event s390_obj_events[] = {
	{ "kvm", "kvm_s390_intercept_instruction", KVM_OBJ_S390_INSN, "instruction", NULL, NULL, 0, 0,
	  s390_insn_opcode },
	{ "kvm", "kvm_s390_handle_diag", KVM_OBJ_S390_DIAG, "code", NULL, NULL, 0, 0, NULL },
	{ NULL },
};

const struct arch_ops arch_s390 = {
	.name = "s390",
	.exit_system = "kvm",
	.exit_event = "kvm_s390_sie_exit",
	.entry_system = "kvm",
	.entry_event = "kvm_s390_sie_enter",
	.exit_fields = {
		[FR_REASON] = { "icptcode" },
		[FR_IP] = { "pswaddr" },
		[FR_VCPU] = { "id" },
		[FR_INFO1] = { "pswmask" },
	},
	.entry_fields = {
		[FR_IP] = { "pswaddr" },
		[FR_VCPU] = { "id" },
	},
	.exit_required = 1u << FR_REASON,
	.reason_field = "icptcode",
	.decode_exit = s390_decode_exit,
	.table_name = s390_table_name,
	.blocking = s390_blocking,
	.async = s390_async,
	.want = {
		{ FR_IP, "no guest IPs" },
		{ FR_VCPU, "vCPUs are told apart by thread" },
	},
	.obj_events = s390_obj_events,
};
