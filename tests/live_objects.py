# SPDX-License-Identifier: GPL-2.0
"""What each exit touched, live, against trace-cmd report and the guest's loops.

QEMU runs the project's own guest (tests/guest/mbguest.S built with
-DOBJECTS: port writes to 0x700, reads from 0x704, cpuids of leaf 0, then
one loop per object -- outb, outw, outl to 0x708, 0x70c, 0x710; rdmsr and
wrmsr of IA32_MISC_ENABLE and IA32_PAT; a store and a load at HPET's page;
cpuid leaf 6; vmmcall of KVM_HC_VAPIC_POLL_IRQ -- and the RTC's 0x70/0x71;
SeaBIOS before it, with its fw_cfg, PCI and CMOS ports) under KVM while
`trace-cmd record -e kvm` records it; kvmtop -r reads the recording.  The
oracles are read here without kvmtop.  Debian's `trace-cmd report` of the
same file: each exit's object is the last companion line (kvm_pio,
kvm_mmio, kvm_msr, kvm_apic, kvm_hypercall, kvm_hv_hypercall, kvm_cr,
kvm_cpuid) of its thread between its kvm_exit and the next kvm_exit or
kvm_entry of that thread (kvmtop(1), OBJECTS).  Per port, MMIO page, MSR,
APIC register, hypercall, control register and cpuid leaf kvmtop's counts
must be the oracle's; per port and per cpuid leaf, where each exit has one
such line, also the plain count of trace-cmd report's kvm_pio and
kvm_cpuid lines.  And the guest's own loop counts: the firmware never
touches the loops' objects, so kvmtop's count of each (with its direction
and size) must be its loop's exactly (cpuid leaf 0, which SeaBIOS asks
too, at least its loop's), and each object the kernel's headers name must
carry that name (msr-index.h's, kvm_para.h's, the HPET specification's,
the SDM's for leaf 6).

Needs root, QEMU, trace-cmd and a compiler for 32-bit x86; where this
host's KVM traces no exits it runs inside the emulated KVM host
(tests/vmhost), where QEMU's guest is a nested one.  --oracle FILE checks
the oracle alone against kvmtop on any recording (a generated one, as
tests/objects.py writes).
"""
import json
import os
import re
import shutil
import subprocess
import sys

from tap import ok, eq, skip, done, kvmtop, guest_cases, run_bounded

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest", "mbguest.S")
CASES = ["the guest ran to its end under trace-cmd record", "kvmtop reads the recording",
         "objects as trace-cmd report's companion lines", "ports as trace-cmd report's kvm_pio lines",
         "cpuid leaves as trace-cmd report's kvm_cpuid lines", "each loop's object counted exactly",
         "the loops' objects named"]
# the loops, a tenth of tests/live_qemu.py's: the emulated host runs them nested
N_OUT, N_IN, N_CPUID = 300, 200, 250
# the -DOBJECTS loops (mbguest.S): (macro, its count, the object kvmtop must count it on, its name in the
# kernel's headers or None); counts all different, so that two objects or directions mixed up show
LOOPS = [("N_OUTB", 110, ("port", "0x708", "out", 1), None),
         ("N_OUTW", 120, ("port", "0x70c", "out", 2), None),
         ("N_OUTL", 130, ("port", "0x710", "out", 4), None),
         # msr-index.h's MSR_IA32_MISC_ENABLE and MSR_IA32_CR_PAT (the SDM's IA32_PAT)
         ("N_RDMSR1", 70, ("msr", "0x1a0", "read", 0), "IA32_MISC_ENABLE"),
         ("N_WRMSR1", 60, ("msr", "0x1a0", "write", 0), "IA32_MISC_ENABLE"),
         ("N_RDMSR2", 50, ("msr", "0x277", "read", 0), "IA32_PAT"),
         ("N_WRMSR2", 40, ("msr", "0x277", "write", 0), "IA32_PAT"),
         # the IA-PC HPET specification's default base
         ("N_MMIO_ST", 30, ("mmio", "0xfed00000", "write", 4), "HPET"),
         ("N_MMIO_LD", 45, ("mmio", "0xfed00000", "read", 4), "HPET"),
         # the SDM's CPUID leaf 06H
         ("N_LEAF", 55, ("cpuid", "0x6", "", 0), "thermal, power"),
         # include/uapi/linux/kvm_para.h
         ("N_HCALL", 35, ("hypercall", "0x1", "", 0), "KVM_HC_VAPIC_POLL_IRQ")]

LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):"
                  r"\s+(?P<event>\w+):\s+(?P<rest>.*)$")
# the kernel's names of the APIC registers (arch/x86/kvm/trace.h's kvm_trace_symbol_apic)
APIC = {"APIC_ID": 0x20, "APIC_LVR": 0x30, "APIC_TASKPRI": 0x80, "APIC_ARBPRI": 0x90, "APIC_PROCPRI": 0xa0,
        "APIC_EOI": 0xb0, "APIC_RRR": 0xc0, "APIC_LDR": 0xd0, "APIC_DFR": 0xe0, "APIC_SPIV": 0xf0,
        "APIC_ISR": 0x100, "APIC_TMR": 0x180, "APIC_IRR": 0x200, "APIC_ESR": 0x280, "APIC_ICR": 0x300,
        "APIC_ICR2": 0x310, "APIC_LVTT": 0x320, "APIC_LVTTHMR": 0x330, "APIC_LVTPC": 0x340,
        "APIC_LVT0": 0x350, "APIC_LVT1": 0x360, "APIC_LVTERR": 0x370, "APIC_TMICT": 0x380,
        "APIC_TMCCT": 0x390, "APIC_TDCR": 0x3e0, "APIC_SELF_IPI": 0x3f0, "APIC_EFEAT": 0x400,
        "APIC_ECTRL": 0x410}


def num(s, base=16):
    return int(s, 0) if s.startswith("0x") else int(s, base)


def companion(event, rest):
    """A companion line's object as kvmtop shows it: (kind, object, dir, size), or None."""
    m = None
    if event == "kvm_pio":
        m = re.match(r"pio_(read|write) at 0x([0-9a-f]+) size (\d+)", rest)
        return m and ("port", "0x%x" % int(m.group(2), 16), "out" if m.group(1) == "write" else "in",
                      int(m.group(3)))
    if event == "kvm_mmio":
        m = re.match(r"mmio (\S+) len (\d+) gpa 0x([0-9a-f]+)", rest)
        return m and ("mmio", "0x%x" % (int(m.group(3), 16) & ~0xfff), "write" if m.group(1) == "write" else "read",
                      int(m.group(2)) if int(m.group(2)) < 256 else 0)
    if event == "kvm_msr":
        m = re.match(r"msr_(read|write) ([0-9a-f]+)", rest)
        return m and ("msr", "0x%x" % int(m.group(2), 16), m.group(1), 0)
    if event == "kvm_apic":
        m = re.match(r"apic_(read|write) (\S+)", rest)
        reg = m and (APIC.get(m.group(2)) if m.group(2) in APIC else num(m.group(2)))
        return m and ("apic", "0x%x" % reg, m.group(1), 0)
    if event == "kvm_hypercall":
        m = re.match(r"nr 0x([0-9a-f]+)", rest)
        return m and ("hypercall", "0x%x" % int(m.group(1), 16), "", 0)
    if event == "kvm_hv_hypercall":
        m = re.match(r"code 0x([0-9a-f]+)", rest)
        return m and ("hv_hypercall", "0x%x" % int(m.group(1), 16), "", 0)
    if event == "kvm_cr":
        m = re.match(r"cr_(read|write) ([0-9a-f]+)", rest)
        return m and ("cr", "0x%x" % int(m.group(2), 16), m.group(1), 0)
    if event == "kvm_cpuid":
        m = re.match(r"func ([0-9a-f]+)", rest)
        return m and ("cpuid", "0x%x" % int(m.group(1), 16), "", 0)
    return None


def own_port(rest):
    """A port-I/O exit's own port, from its info1 as trace-cmd prints it (VMX's exit qualification:
    bit 3 in, bits 2:0 size - 1; SVM's exit_info_1: bit 0 in, bits 6:4 the size); an SVM npf's MMIO
    page (kvmtop(1), OBJECTS); else None."""
    # "reason R rip IP info I1 I2" before 5.10, "vcpu N reason R rip IP info1 0xI1 info2 0xI2 ..." after
    m = re.search(r"reason (\S+) rip \S+ info1? (?:0x)?([0-9a-f]+) (?:info2 )?(?:0x)?([0-9a-f]+)?", rest + " ")
    if not m:
        return None
    q = int(m.group(2), 16)
    if m.group(1) == "npf" and q & 8 and m.group(3):
        # SVM: a nested page fault with PFERR_RSVD is KVM's MMIO; info2 the address, bit 1 a write
        return ("mmio", "0x%x" % (int(m.group(3), 16) & ~0xfff), "write" if q & 2 else "read", 0)
    port = "0x%x" % (q >> 16 & 0xffff)
    if m.group(1) == "IO_INSTRUCTION":
        return ("port", port, "in" if q & 8 else "out", (q & 7) + 1)
    if m.group(1) in ("io", "EXIT_IOIO", "IOIO"):
        return ("port", port, "in" if q & 1 else "out", 1 if q & 0x10 else 2 if q & 0x20 else 4 if q & 0x40 else 0)
    return None


def oracle(lines):
    """From trace-cmd report's lines: ({object: exits}, {port: kvm_pio lines}, {leaf: kvm_cpuid lines})."""
    pending, objs, pio, cpuid = {}, {}, {}, {}
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        tid, ev = int(m.group("tid")), m.group("event")
        if ev in ("kvm_exit", "kvm_entry"):
            o = pending.pop(tid, None)
            if o:
                objs[o] = objs.get(o, 0) + 1
            if ev == "kvm_exit":
                pending[tid] = own_port(m.group("rest"))
            continue
        o = companion(ev, m.group("rest"))
        if o and o[0] == "port":
            pio[o[1]] = pio.get(o[1], 0) + 1    # the kvm_pio lines alone
        if o and o[0] == "cpuid":
            cpuid[o[1]] = cpuid.get(o[1], 0) + 1
        if o and tid in pending:
            pending[tid] = o
    for o in pending.values():
        if o:
            objs[o] = objs.get(o, 0) + 1
    return objs, pio, cpuid


# kvmtop's names of the objects kvmtop_objects read: {(kind, object, dir, size): {name}}
NAMES = {}


def kvmtop_objects(path):
    """kvmtop -b -r path's host objects of the companions' kinds: {(kind, object, dir, size): count}."""
    # room for every object: the firmware probes 256 hypervisor cpuid leaves
    p = subprocess.run([kvmtop(), "-b", "-r", path, "-o", "json", "--objects", "4096"], capture_output=True,
                       timeout=600)
    if p.returncode:
        return None, p.stderr.decode("utf-8", "replace")
    got = {}
    for r in json.loads(p.stdout)["host"]["reasons"]:
        for o in r["objects"]:
            if o["kind"] in ("vector", "other"):
                continue
            # no direction: null in JSON, "" in the oracle
            k = (o["kind"], o["object"], o["dir"] or "", o["size_bytes"])
            got[k] = got.get(k, 0) + o["count"]
            NAMES.setdefault(k, set()).add(o["name"])
    return got, ""



def by(objs, kind):
    """The counts of one kind's objects, summed over direction and size: {object: count}."""
    out = {}
    for (k, obj, d, size), n in objs.items():
        if k == kind:
            out[obj] = out.get(obj, 0) + n
    return out


def compare(path, what, lines_too=True):
    """kvmtop against the oracle on recording path; lines_too: and its ports and cpuid leaves against
    the plain counts of kvm_pio and kvm_cpuid lines (where every such exit has its line)."""
    p = subprocess.run(["trace-cmd", "report", "-t", path], capture_output=True, timeout=600)
    lines = p.stdout.decode("utf-8", "replace").splitlines()
    objs, pio, cpuid = oracle(lines)
    got, err = kvmtop_objects(path)
    if not ok(got is not None, "%s: kvmtop reads the recording" % what, err):
        return
    eq(got, objs, "%s: per object (port, MMIO page, MSR, APIC register, hypercall, CR, cpuid leaf, with "
       "direction and size), kvmtop's exits are trace-cmd report's (%d objects, %d exits)"
       % (what, len(objs), sum(objs.values())))
    if lines_too:
        eq(by(got, "port"), pio, "%s: per port, kvmtop's exits are trace-cmd report's kvm_pio lines" % what)
        eq(by(got, "cpuid"), cpuid, "%s: per cpuid leaf, kvmtop's exits are trace-cmd report's kvm_cpuid lines"
           % what)
    return got


def why_not():
    if os.geteuid() != 0:
        return "needs root"
    for exe, pkg in (("qemu-system-x86_64", "qemu-system-x86"), ("trace-cmd", "trace-cmd")):
        if not shutil.which(exe):
            return "%s is not installed (apt-get install %s)" % (exe, pkg)
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "/dev/kvm cannot be opened"
    return None


def live_case(d):
    elf = os.path.join(d, "guest.elf")
    p = subprocess.run(["cc", "-m32", "-nostdlib", "-static", "-no-pie", "-Wl,--build-id=none",
                        "-Wl,-Ttext=0x100000", "-o", elf, SRC, "-DN_OUT=%d" % N_OUT, "-DN_IN=%d" % N_IN,
                        "-DN_CPUID=%d" % N_CPUID, "-DHOLD_TICKS=1", "-DOBJECTS"] +
                       ["-D%s=%d" % (m, n) for m, n, _, _ in LOOPS], capture_output=True)
    if not ok(p.returncode == 0, "the guest builds", p.stderr.decode()):
        return
    dat = os.path.join(d, "objects.dat")
    qemu = ["qemu-system-x86_64", "-name", "guest=kt-objects,debug-threads=on", "-accel", "kvm", "-M", "pc",
            "-cpu", "qemu64", "-m", "32", "-smp", "1", "-nodefaults", "-display", "none", "-no-reboot",
            "-kernel", elf, "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    # Seconds where it needs (about 5 in the emulated host); bounded well inside that host's own limit
    # (tap.in_kvm_host), so that a hang says where each thread waited.  One CI run of the emulated host
    # (QEMU TCG emulating SVM, on a loaded machine) never saw this end, while kvmtop was not yet
    # running; 22 runs here, 2 at once and under load, ended in seconds.  So a hang of the emulated
    # host's trace-cmd or QEMU is tried once more, its evidence printed; a second hang fails.
    for attempt in (1, 2):
        rc, _, err = run_bounded(["trace-cmd", "record", "-q", "-e", "kvm", "-o", dat] + qemu, 150, cwd=d)
        if rc is not None or attempt == 2:
            break
        print("# the recording's QEMU or trace-cmd hung (tried again):\n# " + err[-6000:].replace("\n", "\n# "),
              flush=True)
    if not ok(rc is not None and os.path.exists(dat), "the guest ran to its end under trace-cmd record -e kvm",
              "status %r\n%s" % (rc, err[-6000:])):
        return
    got = compare(dat, "live")
    if got is None:
        return
    want = dict((o, n) for _, n, o, _ in LOOPS)
    want[("port", "0x700", "out", 1)] = N_OUT
    want[("port", "0x704", "in", 1)] = N_IN
    eq({o: got.get(o, 0) for o in want}, want,
       "live: each loop's object (port and size, MSR and direction, MMIO page and direction, cpuid leaf, "
       "hypercall) counted exactly its loop's times")
    ok(by(got, "cpuid").get("0x0", 0) >= N_CPUID, "live: cpuid leaf 0, which the firmware asks too, at least "
       "%d times" % N_CPUID, by(got, "cpuid").get("0x0", 0))
    names = {o: name for _, _, o, name in LOOPS if name}
    eq({o: sorted(NAMES.get(o, ())) for o in names}, {o: [n] for o, n in names.items()},
       "live: the loops' MSRs, MMIO page, cpuid leaf and hypercall under the kernel's names")


def main():
    if sys.argv[1:2] == ["--oracle"]:
        compare(sys.argv[2], os.path.basename(sys.argv[2]), lines_too=False)
        done()
    guest_cases(__file__, CASES, why_not)
    d = os.path.join(TMP, "live-objects")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    live_case(d)
    done()


# tests/object_sites.py borrows its oracle's parsers
if __name__ == "__main__":
    main()
