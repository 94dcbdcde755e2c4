# SPDX-License-Identifier: GPL-2.0
"""kvmtop's built-in reason tables, against the kernel's.

Every format in the other tests carries the kernel's own __print_symbolic
table, so kvmtop's arch/ tables (used when a format has none, as some
kernels' and hand-made formats have) were never exercised.  Here each
layout's exit event has its print fmt replaced by one without a table;
kvmgen writes one exit of every code of tests/formats/kernel-reasons.txt
(a list written from the kernel headers) and of the codes around them,
and kvmtop must name each listed code as the kernel does and give no
unlisted code a listed name.

The list itself is checked against the tables a real 6.5 kernel printed
into the recordings of ../shared/traces, read with Debian's trace-cmd.
"""
import json
import os
import re
import subprocess

import tcreport
from tap import ok, eq, skip, done, run, traces

GEN = os.environ["KVMGEN"]
FORMATS = os.environ["KVMTOP_FORMATS"]
TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def load_list():
    tables = {}
    for line in open(os.path.join(FORMATS, "kernel-reasons.txt")):
        if line.startswith("#") or not line.strip():
            continue
        table, code, name = line.rstrip("\n").split(" ", 2)
        tables.setdefault(table, {})[int(code, 16)] = name
    return tables


def symbolic_tables(print_fmt):
    """The {code: name} tables of a print fmt's __print_symbolic/__print_flags calls, in order."""
    out = []
    for part in re.split(r"__print_(?:symbolic|flags)\(", print_fmt)[1:]:
        body = part.split("))", 1)[0] if "}))" not in part else part.split("}))", 1)[0]
        t = {}
        for code, name in re.findall(r"\{\s*(-?(?:0x)?[0-9a-fA-F]+)\s*,\s*\"([^\"]*)\"\s*\}", body):
            t[int(code, 0) & 0xffffffff] = name
        out.append(t)
    return out


def check_list_against_kernel(lst):
    """The list names every code as the 6.5 kernel of the real recordings printed it."""
    d = os.path.join(traces(), "x86-vmx-ubuntu-6.5")
    rec = os.path.join(d, "host_k6.5.0-21_2024-02-28_2caa92de_trace.dat")
    why = tcreport.available() or (None if os.path.exists(rec) else "../shared/traces not found")
    if why:
        skip("kernel-reasons.txt against a real kernel's tables", why)
        return
    env = dict(os.environ, LD_PRELOAD=os.environ["TC_ZLIB"])
    out = subprocess.run(["trace-cmd", "dump", "--events", rec], capture_output=True, env=env,
                         timeout=60).stdout.decode()
    fmt = out.split("name: kvm_exit", 1)[1].split("print fmt:", 1)[1].split("\n", 1)[0]
    vmx, svm, flags = symbolic_tables(fmt)
    bad = []
    for table, kernel in (("vmx", vmx), ("svm", svm), ("vmxflag", flags)):
        for code, name in kernel.items():
            if lst[table].get(code) != name:
                bad.append("%s %#x: kernel %r, list %r" % (table, code, name, lst[table].get(code)))
    ok(len(vmx) > 60 and len(svm) > 80 and not bad,
       "kernel-reasons.txt names every code of the 6.5 kernel's VMX, SVM and flag tables as it does "
       "(%d, %d, %d codes)" % (len(vmx), len(svm), len(flags)), "\n".join(bad))


def strip_tables(layout, event, field):
    """A copy of layout whose exit event prints its code as a number: no table at all."""
    src, dst = os.path.join(FORMATS, layout), os.path.join(TMP, "notable-" + layout)
    os.makedirs(dst, exist_ok=True)
    for f in os.listdir(src):
        text = open(os.path.join(src, f)).read()
        if f == event + ".format":
            text = re.sub(r"print fmt: .*", 'print fmt: "code %%d", REC->%s' % field, text)
            assert "__print_symbolic" not in text
        open(os.path.join(dst, f), "w").write(text)
    return dst


def replay(name, fmtdir, exits):
    """One exit (FIELD=VALUE strings) and its entry each, on one thread: kvmtop's host reasons."""
    script = os.path.join(TMP, name + ".script")
    with open(script, "w") as f:
        f.write("comm 4242 CPU 0/KVM\n")
        for i, fields in enumerate(exits):
            f.write("%d 0 4242 exit %s\n" % (1000000 + i * 1000, fields))
            f.write("%d 0 4242 entry\n" % (1000000 + i * 1000 + 500))
    dat = os.path.join(TMP, name + ".dat")
    p = subprocess.run([GEN, "-f", fmtdir, "-o", dat, "-S", script], capture_output=True, timeout=120)
    if p.returncode:
        raise RuntimeError(p.stderr.decode())
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    if rc:
        raise RuntimeError(err)
    return json.loads(out)["host"]["reasons"]


def judge(what, got, want, listed_names, nexits):
    """got, want: {code: name}; codes not in want must not carry a listed name."""
    bad = ["%s %#x: %r, want %r" % (what, c, got.get(c), n) for c, n in sorted(want.items()) if got.get(c) != n]
    bad += ["%s %#x (not in the kernel's table): named %r" % (what, c, n)
            for c, n in sorted(got.items()) if c not in want and n in listed_names]
    ok(len(got) == nexits and not bad,
       "%s: kvmtop's own table names all %d codes of the kernel's as it does; %d others get no listed name"
       % (what, len(want), nexits - len(want)), "\n".join(bad) or "%d reasons for %d exits" % (len(got), nexits))


def check_x86(lst):
    d = strip_tables("x86-6.18", "kvm_exit", "exit_reason")
    vmx = lst["vmx"]
    codes = sorted(set(range(0, 100)) | set(vmx))
    rs = replay("notable-vmx", d, ["isa=1 exit_reason=%d vcpu_id=0" % c for c in codes] +
                ["isa=1 exit_reason=%d vcpu_id=0" % (33 | 0x80000000)])
    got = {r["code"]: r["reason"] for r in rs if not r.get("flags")}
    judge("VMX", got, vmx, set(vmx.values()), len(codes))
    flagged = [(r["code"], r["reason"], r.get("flags")) for r in rs if r.get("flags")]
    eq(flagged, [(33, "INVALID_STATE", lst["vmxflag"][0x80000000])],
       "VMX: an exit_reason with bit 31 is its basic reason with the kernel's FAILED_VMENTRY flag")

    svm = lst["svm"]
    codes = sorted(set(range(0, 0x100)) | set(range(0x400, 0x410)) | set(range(0x80000000, 0x80000020)) |
                   set(range(0x8000fff0, 0x80010000)) | set(svm))
    rs = replay("notable-svm", d, ["isa=2 exit_reason=%d vcpu_id=0" % c for c in codes])
    judge("SVM", {r["code"]: r["reason"] for r in rs}, svm, set(svm.values()), len(codes))


def check_arm64(lst):
    d = strip_tables("arm64-6.9", "kvm_exit", "ret")
    types, ecs = lst["armtype"], lst["armec"]
    exits, want = [], {}
    for t, tname in sorted(types.items()):
        if t == 2:
            continue
        exits.append("ret=%d esr_ec=0" % t)
        want[(min(t, 0xff)) << 8] = tname	# kvmtop's code: type << 8 (0xff: HYP_GONE and above)
    for ec in range(64):
        exits.append("ret=2 esr_ec=%d" % ec)
        if ec in ecs:
            want[0x200 | ec] = types[2] + "/" + ecs[ec]
    rs = replay("notable-arm64", d, exits)
    listed = set(want.values())
    judge("arm64", {r["code"]: r["reason"] for r in rs}, want, listed, len(exits))


def check_ppc(lst):
    d = strip_tables("ppc-hv", "kvm_guest_exit", "trap")
    traps = lst["ppc"]
    codes = sorted(set(range(0, 0x1000, 0x20)) | set(range(0, 0x10)) | set(range(0x500, 0x510)) | set(traps))
    rs = replay("notable-ppc", d, ["vcpu_id=0 trap=%d ceded=0" % c for c in codes])
    got = {r["code"]: r["reason"] for r in rs}
    judge("powerpc", got, traps, set(traps.values()), len(codes))
    unnamed = {c: n for c, n in got.items() if c not in traps}
    eq({c: n for c, n in unnamed.items() if n != "0x%x" % c}, {},
       "powerpc: the %d traps no table names are written as the kernel writes them (0xf80)" % len(unnamed))


def check_s390(lst):
    d = strip_tables("s390", "kvm_s390_sie_exit", "icptcode")
    icpt = lst["s390"]
    codes = list(range(0, 0x100))
    rs = replay("notable-s390", d, ["id=0 icptcode=%d" % c for c in codes])
    judge("s390", {r["code"]: r["reason"] for r in rs}, icpt, set(icpt.values()), len(codes))


def check_riscv(lst):
    """scause: an interrupt's code is the cause with bit 31 (bit 63 of the 64-bit field written)."""
    d = strip_tables("riscv", "kvm_exit", "scause")
    irq, exc = lst["riscvirq"], lst["riscvexc"]
    exits = ["scause=%d stval=0" % c for c in range(64)] + ["scause=%d stval=0" % (1 << 63 | c) for c in range(64)]
    want = dict(exc)
    want.update((0x80000000 | c, n) for c, n in irq.items())
    rs = replay("notable-riscv", d, exits)
    got = {r["code"]: r["reason"] for r in rs}
    judge("riscv", got, want, set(want.values()), len(exits))
    eq({c: n for c, n in got.items() if c not in want and n != "0x%x" % c}, {},
       "riscv: the causes no table names are written in hex, as the kernel prints scause")


def check_loongarch(lst):
    d = strip_tables("loongarch", "kvm_exit", "reason")
    la = lst["larch"]
    codes = list(range(0, 128))
    rs = replay("notable-loongarch", d, ["reason=%d pc=0" % c for c in codes])
    judge("loongarch", {r["code"]: r["reason"] for r in rs}, la, set(la.values()), len(codes))


def main():
    lst = load_list()
    check_list_against_kernel(lst)
    check_x86(lst)
    check_arm64(lst)
    check_ppc(lst)
    check_s390(lst)
    check_riscv(lst)
    check_loongarch(lst)
    done()


main()
