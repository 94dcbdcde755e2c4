// SPDX-License-Identifier: GPL-2.0
/* Names of the values a struct kvm_event carries (kvm_event.h). */
#include "kvm_event.h"

const char *kvm_isa_name(enum kvm_isa isa)
{
	static const char *const names[ISA_NR] = {
		[ISA_UNKNOWN] = "unknown",
		[ISA_VMX] = "vmx",
		[ISA_SVM] = "svm",
		[ISA_ARM64] = "arm64",
		[ISA_PPC_HV] = "ppc_hv",
		[ISA_S390] = "s390",
		[ISA_RISCV] = "riscv",
		[ISA_LOONGARCH] = "loongarch",
	};

	return isa < ISA_NR ? names[isa] : "unknown";
}

/*
 * Below 4 MiB run real-mode code, firmware and boot loaders, and kernels
 * loaded at 1 MiB (multiboot, a 32-bit kernel's decompressor); user space
 * starts higher (x86-64's lowest ELF base is 0x400000): no guess there.
 */
#define GUEST_LOW_UNKNOWN	0x400000ull

enum guest_mode kvm_guest_mode_guess(uint64_t ip)
{
	if (ip >> 63)
		return GUEST_KERNEL_GUESS;
	return ip < GUEST_LOW_UNKNOWN ? GUEST_MODE_UNKNOWN : GUEST_USER_GUESS;
}

const char *kvm_guest_mode_name(enum guest_mode mode)
{
	switch (mode) {
	case GUEST_KERNEL:
	case GUEST_KERNEL_GUESS:
		return "kernel";
	case GUEST_USER:
	case GUEST_USER_GUESS:
		return "user";
	default:
		return "unknown";
	}
}

bool kvm_guest_mode_inferred(enum guest_mode mode)
{
	return mode == GUEST_KERNEL_GUESS || mode == GUEST_USER_GUESS;
}

const char *kvm_guest_mode_label(enum guest_mode mode)
{
	switch (mode) {
	case GUEST_KERNEL:
		return "kernel";
	case GUEST_USER:
		return "user";
	case GUEST_KERNEL_GUESS:
		return "kernel?";
	case GUEST_USER_GUESS:
		return "user?";
	default:
		return "-";
	}
}
