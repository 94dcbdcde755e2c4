// SPDX-License-Identifier: GPL-2.0
/*
 * Fallback for an exit event whose layout no arch knows: exits are still
 * counted per thread and paired with entries; the reason is whatever
 * number the event carries, named from the format's own table if it has
 * one, else UNKNOWN(n).
 */
#include "decode/decode.h"

static void generic_decode_exit(const struct field_vals *fv, struct kvm_event *ev)
{
	ev->isa = ISA_UNKNOWN;
	ev->reason = FV_HAS(fv, FR_REASON) ? (uint32_t)fv->v[FR_REASON] : 0;
	ev->flags = 0;
}

const struct arch_ops arch_generic = {
	.name = "unknown",
	.exit_system = "kvm",
	.exit_event = "kvm_exit",
	.entry_system = "kvm",
	.entry_event = "kvm_entry",
	.exit_fields = {
		[FR_REASON] = { "exit_reason", "ret", "trap" },
		[FR_IP] = { "guest_rip", "vcpu_pc", "pc" },
		[FR_VCPU] = { "vcpu_id" },
	},
	.entry_fields = {
		[FR_VCPU] = { "vcpu_id" },
		[FR_IP] = { "rip", "vcpu_pc", "pc" },
	},
	.reason_field = "exit_reason",
	.decode_exit = generic_decode_exit,
};
