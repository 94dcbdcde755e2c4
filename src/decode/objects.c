// SPDX-License-Identifier: GPL-2.0
/* The kinds of object an exit may touch: one row each (objects.h). */
#include <inttypes.h>
#include <stdio.h>

#include "objects.h"

static const struct obj_kind_row {
	const char *name;
	const char *dir[2];		/* read, write */
	bool decimal;			/* its numbers in decimal (vectors), else hex */
	const char *(*name_of)(uint64_t v);
	/* optional: its number as shown, where hex is not its notation (a system register's) */
	const char *(*value_of)(uint64_t v, char *buf, size_t len);
} objects_kinds[KVM_OBJ_KINDS] = {
	[KVM_OBJ_NONE] =	{ "none",	{ "read", "write" }, false, NULL },
	[KVM_OBJ_PORT] =	{ "port",	{ "in", "out" },     false, x86_port_name },
	[KVM_OBJ_MMIO] =	{ "mmio",	{ "read", "write" }, false, x86_mmio_name },
	[KVM_OBJ_MSR] =		{ "msr",	{ "read", "write" }, false, x86_msr_name },
	[KVM_OBJ_APIC] =	{ "apic",	{ "read", "write" }, false, x86_apic_name },
	[KVM_OBJ_HCALL] =	{ "hypercall",	{ "read", "write" }, false, x86_hcall_name },
	[KVM_OBJ_HV_HCALL] =	{ "hv_hypercall", { "read", "write" }, false, x86_hv_hcall_name },
	[KVM_OBJ_CR] =		{ "cr",		{ "read", "write" }, false, x86_cr_name },
	[KVM_OBJ_CPUID] =	{ "cpuid",	{ "read", "write" }, false, x86_cpuid_name },
	[KVM_OBJ_VECTOR] =	{ "vector",	{ "read", "write" }, true,  x86_vector_name },
	[KVM_OBJ_PPC_HCALL] =	{ "hcall",	{ "read", "write" }, false, ppc_hcall_name },
	[KVM_OBJ_S390_INSN] =	{ "instruction", { "read", "write" }, false, s390_insn_name },
	[KVM_OBJ_S390_DIAG] =	{ "diagnose",	{ "read", "write" }, false, s390_diag_name },
	[KVM_OBJ_MMIO_PAGE] =	{ "mmio",	{ "read", "write" }, false, NULL },
	[KVM_OBJ_LA_GSPR] =	{ "gspr",	{ "read", "write" }, false, loongarch_gspr_name },
	[KVM_OBJ_SYSREG] =	{ "sysreg",	{ "read", "write" }, false, arm64_sysreg_name, arm64_sysreg_value },
	[KVM_OBJ_HVC] =		{ "hvc",	{ "read", "write" }, false, arm64_hvc_name },
	[KVM_OBJ_WFX] =		{ "wfx",	{ "read", "write" }, false, arm64_wfx_name },
	[KVM_OBJ_MMIO_ARM64] =	{ "mmio",	{ "read", "write" }, false, arm64_mmio_name },
	[KVM_OBJ_OTHER] =	{ "other",	{ "read", "write" }, false, NULL },
};

/* The row of kind k; NONE's for a kind no row has. */
static const struct obj_kind_row *objects_row(enum kvm_obj_kind k)
{
	return (unsigned int)k < KVM_OBJ_KINDS ? &objects_kinds[k] : &objects_kinds[KVM_OBJ_NONE];
}

const char *kvm_obj_kind_name(enum kvm_obj_kind k)
{
	return objects_row(k)->name;
}

const char *kvm_obj_dir_name(enum kvm_obj_kind k, enum kvm_obj_dir d)
{
	if (d == OBJ_DIR_READ)
		return objects_row(k)->dir[0];
	if (d == OBJ_DIR_WRITE)
		return objects_row(k)->dir[1];
	return "";
}

const char *kvm_obj_name(enum kvm_obj_kind k, uint64_t v)
{
	const struct obj_kind_row *r = objects_row(k);

	if (k == KVM_OBJ_OTHER)
		return "other objects";
	return r->name_of ? r->name_of(v) : NULL;
}

const char *kvm_obj_value(enum kvm_obj_kind k, uint64_t v, char *buf, size_t len)
{
	if (k == KVM_OBJ_OTHER || k == KVM_OBJ_NONE)
		snprintf(buf, len, "-");
	else if (objects_row(k)->value_of)
		objects_row(k)->value_of(v, buf, len);
	else if (objects_row(k)->decimal)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "0x%" PRIx64, v);
	return buf;
}
