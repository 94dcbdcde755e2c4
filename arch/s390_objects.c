// SPDX-License-Identifier: GPL-2.0
/*
 * s390: the names of what an exit touched (objects.h): the instruction
 * an instruction intercept stopped at, by opcode, and the diagnose
 * code of a DIAGNOSE (kvm:kvm_s390_handle_diag, written after the
 * instruction's event, so a DIAG exit is counted on its code).  A value
 * no row names has no name, and the views show the number.
 */
#include "decode/objects.h"

struct s390_objects_name {
	uint64_t code;
	const char *name;
};

/* The name of code in t (n rows), NULL: none. */
static const char *s390_objects_find(const struct s390_objects_name *t, size_t n, uint64_t code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

#define S390_FIND(t, v)	s390_objects_find(t, sizeof(t) / sizeof(t[0]), v)

/*
 * Where the rest of an opcode is, by its first byte: the kernel's
 * icpt_insn_decoder (arch/s390/include/uapi/asm/sie.h), which the
 * kvm_s390_intercept_instruction event prints with.  The instruction is
 * the field as KVM writes it, ipa << 48 | ipb << 16: the instruction's
 * six bytes from bit 63 down.  One difference: sie.h takes 0xe3's second
 * byte from bits 55-48 (its register fields); KVM's own handler
 * (priv.c, kvm_s390_handle_e3) and the Principles of Operation take it
 * from the last byte (bits 23-16), as for 0xeb, and so does kvmtop.
 */
static const struct {
	uint8_t first;
	uint8_t shift;
	uint8_t mask;
} s390_opcode_rest[] = {
	{ 0x01, 48, 0xff }, { 0xaa, 48, 0x0f }, { 0xb2, 48, 0xff }, { 0xb9, 48, 0xff },
	{ 0xe3, 16, 0xff }, { 0xe5, 48, 0xff }, { 0xeb, 16, 0xff }, { 0xc8, 48, 0x0f },
};

uint64_t s390_insn_opcode(uint64_t instruction)
{
	uint64_t first = instruction >> 56;
	size_t i;

	for (i = 0; i < sizeof(s390_opcode_rest) / sizeof(s390_opcode_rest[0]); i++)
		if (s390_opcode_rest[i].first == first)
			return first << 8 | (instruction >> s390_opcode_rest[i].shift & s390_opcode_rest[i].mask);
	return first;
}

/*
 * The kernel's icpt_insn_codes (arch/s390/include/uapi/asm/sie.h), and
 * the instructions KVM handles that it does not name, their mnemonics
 * from arch/s390/tools/opcodes.txt: STHYI and PQAP (priv.c's b2
 * handlers), STGSC/LGSC (e3) and LPSWEY (eb).
 */
static const struct s390_objects_name s390_insns[] = {
	{ 0x0101, "PR" }, { 0x0104, "PTFF" }, { 0x0107, "SCKPF" },
	{ 0xaa00, "RINEXT" }, { 0xaa01, "RION" }, { 0xaa02, "TRIC" }, { 0xaa03, "RIOFF" },
	{ 0xaa04, "RIEMIT" },
	{ 0xb202, "STIDP" }, { 0xb204, "SCK" }, { 0xb205, "STCK" }, { 0xb206, "SCKC" },
	{ 0xb207, "STCKC" }, { 0xb208, "SPT" }, { 0xb209, "STPT" }, { 0xb20d, "PTLB" },
	{ 0xb210, "SPX" }, { 0xb211, "STPX" }, { 0xb212, "STAP" }, { 0xb214, "SIE" },
	{ 0xb216, "SETR" }, { 0xb217, "STETR" }, { 0xb218, "PC" }, { 0xb220, "SERVC" },
	{ 0xb221, "IPTE" }, { 0xb228, "PT" }, { 0xb229, "ISKE" }, { 0xb22a, "RRBE" },
	{ 0xb22b, "SSKE" }, { 0xb22c, "TB" }, { 0xb22e, "PGIN" }, { 0xb22f, "PGOUT" },
	{ 0xb230, "CSCH" }, { 0xb231, "HSCH" }, { 0xb232, "MSCH" }, { 0xb233, "SSCH" },
	{ 0xb234, "STSCH" }, { 0xb235, "TSCH" }, { 0xb236, "TPI" }, { 0xb237, "SAL" },
	{ 0xb238, "RSCH" }, { 0xb239, "STCRW" }, { 0xb23a, "STCPS" }, { 0xb23b, "RCHP" },
	{ 0xb23c, "SCHM" }, { 0xb240, "BAKR" }, { 0xb248, "PALB" }, { 0xb24c, "TAR" },
	{ 0xb250, "CSP" }, { 0xb254, "MVPG" }, { 0xb256, "STHYI" }, { 0xb258, "BSG" },
	{ 0xb25a, "BSA" }, { 0xb25f, "CHSC" }, { 0xb274, "SIGA" }, { 0xb276, "XSCH" },
	{ 0xb278, "STCKE" }, { 0xb27c, "STCKF" }, { 0xb27d, "STSI" }, { 0xb2af, "PQAP" },
	{ 0xb2b0, "STFLE" }, { 0xb2b1, "STFL" }, { 0xb2b2, "LPSWE" }, { 0xb2f8, "TEND" },
	{ 0xb2fc, "TABORT" },
	{ 0xb91e, "KMAC" }, { 0xb928, "PCKMO" }, { 0xb92a, "KMF" }, { 0xb92b, "KMO" },
	{ 0xb92d, "KMCTR" }, { 0xb92e, "KM" }, { 0xb92f, "KMC" }, { 0xb93e, "KIMD" },
	{ 0xb93f, "KLMD" }, { 0xb98a, "CSPG" }, { 0xb98d, "EPSW" }, { 0xb98e, "IDTE" },
	{ 0xb98f, "CRDTE" }, { 0xb99c, "EQBS" }, { 0xb9a2, "PTF" }, { 0xb9ab, "ESSA" },
	{ 0xb9ae, "RRBM" }, { 0xb9af, "PFMF" },
	{ 0xe303, "LRAG" }, { 0xe313, "LRAY" }, { 0xe325, "NTSTG" }, { 0xe349, "STGSC" },
	{ 0xe34d, "LGSC" },
	{ 0xe500, "LASP" }, { 0xe501, "TPROT" }, { 0xe560, "TBEGIN" }, { 0xe561, "TBEGINC" },
	{ 0xeb25, "STCTG" }, { 0xeb2f, "LCTLG" }, { 0xeb60, "LRIC" }, { 0xeb61, "STRIC" },
	{ 0xeb62, "MRIC" }, { 0xeb71, "LPSWEY" }, { 0xeb8a, "SQBS" },
	{ 0xc801, "ECTG" },
	{ 0x0a, "SVC" }, { 0x80, "SSM" }, { 0x82, "LPSW" }, { 0x83, "DIAG" }, { 0xac, "STNSM" },
	{ 0xad, "STOSM" }, { 0xae, "SIGP" }, { 0xb1, "LRA" }, { 0xb6, "STCTL" }, { 0xb7, "LCTL" },
	{ 0xee, "PLO" },
};

/*
 * The kernel's diagnose_codes (arch/s390/include/uapi/asm/sie.h), the
 * codes KVM handles itself in arch/s390/kvm/diag.c (0x10, 0x44, 0x9c,
 * 0x258, 0x308, 0x500) among them.
 */
static const struct s390_objects_name s390_diags[] = {
	{ 0x10, "release pages" },
	{ 0x44, "time slice end (yield)" },
	{ 0x9c, "time slice end directed (yield to)" },
	{ 0x204, "logical-cpu utilization" },
	{ 0x258, "page-reference services (pfault)" },
	{ 0x288, "watchdog functions" },
	{ 0x308, "ipl functions" },
	{ 0x500, "KVM virtio functions (notify)" },
	{ 0x501, "KVM breakpoint" },
};

const char *s390_insn_name(uint64_t opcode)
{
	return S390_FIND(s390_insns, opcode);
}

const char *s390_diag_name(uint64_t code)
{
	return S390_FIND(s390_diags, code);
}
