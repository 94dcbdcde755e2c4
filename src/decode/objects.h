/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an exit touched (kvm_event.h's enum kvm_obj_kind): each kind's
 * name, its directions' names and the arch table that names its values,
 * one row per kind (objects.c).  The names of ports, MMIO ranges, MSRs,
 * APIC registers, hypercalls, control registers, cpuid leaves and
 * exception vectors are arch/x86_objects.c's, powerpc's hcalls
 * arch/powerpc_objects.c's, s390's instructions and diagnose codes
 * arch/s390_objects.c's, each table saying where its names come from.  No tracing header: the model and the views read
 * these names.
 */
#ifndef KVMTOP_OBJECTS_H
#define KVMTOP_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "kvm_event.h"

/*
 * "port", "mmio", "msr", "apic", "hypercall", "hv_hypercall", "cr", "cpuid", "vector", powerpc's
 * "hcall", s390's "instruction" and "diagnose", LoongArch's "gspr", arm64's "sysreg", "hvc", "wfx"
 * and "mmio", "other".
 */
const char *kvm_obj_kind_name(enum kvm_obj_kind k);
/* "in"/"out" for ports, "read"/"write" for the others, "" where d is none. */
const char *kvm_obj_dir_name(enum kvm_obj_kind k, enum kvm_obj_dir d);
/* The name of object v of kind k from the arch's tables, or NULL: none known. */
const char *kvm_obj_name(enum kvm_obj_kind k, uint64_t v);
/*
 * The object's number as shown (hex, as the kernel prints them; a vector
 * in decimal; a system register as S<op0>_<op1>_C<n>_C<m>_<op2>), into buf: buf.
 */
const char *kvm_obj_value(enum kvm_obj_kind k, uint64_t v, char *buf, size_t len);

/* arch/x86_objects.c: x86's names, NULL where its tables have none. */
const char *x86_port_name(uint64_t port);
const char *x86_mmio_name(uint64_t gpa);
const char *x86_msr_name(uint64_t msr);
const char *x86_apic_name(uint64_t reg);
const char *x86_hcall_name(uint64_t nr);
const char *x86_hv_hcall_name(uint64_t code);
const char *x86_cr_name(uint64_t cr);
const char *x86_cpuid_name(uint64_t leaf);
const char *x86_vector_name(uint64_t vector);
/* arch/powerpc_objects.c: PAPR hcall names, NULL where its table has none. */
const char *ppc_hcall_name(uint64_t req);
/* arch/s390_objects.c: intercepted instructions by opcode, diagnose codes. */
const char *s390_insn_name(uint64_t opcode);
const char *s390_diag_name(uint64_t code);
/* The opcode of an intercepted instruction (kvm_s390_intercept_instruction's field). */
uint64_t s390_insn_opcode(uint64_t instruction);
/*
 * arch/loongarch_objects.c: the class of a GSPR exit's instruction, from
 * kvm_exit_gspr's word or kvm_exit_idle / kvm_exit_cache's reason, and
 * its name (NULL for a word of no class).
 */
uint64_t loongarch_gspr_class(uint64_t word);
uint64_t loongarch_exit_class(uint64_t reason);
const char *loongarch_gspr_name(uint64_t cls);

/*
 * arch/arm64_objects.c: arm64's names, NULL where its tables have none.
 * A system register is ARM64_SYSREG(op0, op1, crn, crm, op2): a byte each,
 * so that no field the kernel wrote is lost (kvm_sys_access' are u8).
 */
#define ARM64_SYSREG(op0, op1, crn, crm, op2) \
	((uint64_t)(op0) << 32 | (uint64_t)(op1) << 24 | (uint64_t)(crn) << 16 | \
	 (uint64_t)(crm) << 8 | (uint64_t)(op2))
const char *arm64_sysreg_name(uint64_t reg);
/* "S3_3_C14_C3_1", the Arm ARM's generic name of a system register, into buf: buf. */
const char *arm64_sysreg_value(uint64_t reg, char *buf, size_t len);
const char *arm64_hvc_name(uint64_t fn);
const char *arm64_wfx_name(uint64_t is_wfe);
const char *arm64_mmio_name(uint64_t ipa);

#endif
