# SPDX-License-Identifier: GPL-2.0
"""The names kvmtop must give the reasons of kvmgen's workloads, written
here from the kernel's tables (tests/formats/kernel-reasons.txt), not
taken from kvmtop's output: replay_gen.py and ips.py expect these.
"""

VMX = {56: "APIC_WRITE", 49: "EPT_MISCONFIG", 12: "HLT", 32: "MSR_WRITE", 30: "IO_INSTRUCTION",
       1: "EXTERNAL_INTERRUPT", 48: "EPT_VIOLATION", 33: "INVALID_STATE", 0xbeef: "UNKNOWN(48879)"}
SVM = {0x7c: "msr", 0x400: "npf", 0x78: "hlt", 0x7b: "io", 0x60: "interrupt", 0x64: "vintr",
       0xbeef: "UNKNOWN(48879)"}
ISA = {0: "unknown", 1: "vmx", 2: "svm"}
ISA_NR = {"vmx": 1, "svm": 2, "arm64": 3, "ppc_hv": 4, "s390": 5, "riscv": 6, "loongarch": 7}
FLAGS = {"FAILED_VMENTRY": 0x80000000, "CEDED": 1, "WFI": 1}
EC = {0x18: "SYS64", 0x24: "DABT_LOW", 0x01: "WFx", 0x16: "HVC64", 0x20: "IABT_LOW", 0x3d: "EC_0x3d"}
# arm64 codes are type << 8 | the EC of a trap (arch/arm64.c)
ARM = dict([(0x200 | ec, "TRAP/" + n) for ec, n in EC.items()] +
           [(0x000, "IRQ"), (0x100, "SERROR"), (0x300, "ILLEGAL")])
ARM_EC_ONLY = dict((0xfe00 | ec, "EC/" + n) for ec, n in EC.items())
PPC = {0x980: "HV_DECREMENTER", 0x500: "EXTERNAL", 0xe00: "H_DATA_STORAGE", 0xc00: "SYSCALL",
       0xe40: "H_EMUL_ASSIST", 0x1234: "0x1234"}
S390 = {0x04: "Instruction", 0x1c: "Wait state", 0x14: "External interruption", 0x00: "Host interruption",
        0x08: "Program interruption", 0x40: "I/O instruction", 0x99: "UNKNOWN(153)"}

# RISC-V: the privileged spec's scause table (an interrupt's code has bit 31 set, as a 32-bit
# scause has it); a code it does not name is written as the kernel prints scause, in hex
RISCV = {22: "VIRTUAL_INST_FAULT", 23: "STORE_GUEST_PAGE_FAULT", 21: "LOAD_GUEST_PAGE_FAULT",
         10: "SUPERVISOR_SYSCALL", 0x80000005: "IRQ_S_TIMER", 0x80000009: "IRQ_S_EXT",
         0x8000000c: "IRQ_S_GEXT", 0x80000020: "0x80000020", 31: "0x1f"}
# LoongArch: asm/loongarch.h's EXCCODE_* (0: an interrupt, ESTAT's Ecode 0)
LOONG = {22: "GSPR", 2: "TLBS", 1: "TLBL", 0: "INT", 23: "HVC", 15: "FPDIS", 40: "UNKNOWN(40)"}


def name(isa, code):
    """The expected name of kvmgen's reason (isa number, kvmtop's code), or None."""
    return {1: VMX, 2: SVM, 3: {**ARM, **ARM_EC_ONLY}, 4: PPC, 5: S390, 6: RISCV,
            7: LOONG}.get(isa, {}).get(code)
