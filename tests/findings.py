# SPDX-License-Identifier: GPL-2.0
"""Findings: each rule fires on a scenario made to need it, and not on one just short of it.

Every scenario is a script of events this test writes itself (tests/gen/kvmgen.c -S): one VM of
vCPU threads 2000 and 2001 over one second, with what the rule reads made plain -- 40 % of a
vCPU's time runnable while host task 600 runs, 2,000 port I/O exits at ports 0x3f8 and 0x70,
1,500 MMIO exits with their kvm_mmio events, 1,500 PAUSE exits, 1,500 short HLTs, a reason whose
p99 is 250 times its p50, a vCPU 30 % in the VMM, lost events -- so what must fire, on which VM
or vCPU and with which figures, is known without kvmtop; a quiet VM has no finding at all.
The rules' table in src/model/findings.c and the man page's FINDINGS section must list the same ids.
"""
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time

from tap import ok, eq, done, run, kvmgen

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
FORMATS = os.environ["KVMTOP_FORMATS"]
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MS, US = 1000000, 1000
VM = "unknown@2000"      # a recording's VM, grouped by tid - vCPU id


class Script:
    """Events of one VM, vCPU k being thread 2000 + k on CPU k, as kvmgen -S takes them."""

    def __init__(self, arch="x86"):
        self.lines = ["comm 2000 CPU 0/KVM", "comm 2001 CPU 1/KVM", "comm 600 hog"]
        self.last = 0
        self.arch = arch

    def ev(self, t, cpu, tid, kind, **fields):
        self.lines.append("%d %d %d %s %s" % (t, cpu, tid, kind, " ".join("%s=%d" % kv for kv in fields.items())))
        self.last = max(self.last, t)

    def exit(self, t, k, reason, lat, info1=0, uexit=None):
        """vCPU k exits for reason at t and enters lat later (a userspace exit at t + 1 us).  powerpc:
        reason is the trap, info1 ceded; s390: reason is the intercept code."""
        if self.arch == "ppc-hv":
            self.ev(t, k, 2000 + k, "exit", vcpu_id=k, trap=reason, pc=0xc000000000001000, msr=0x9033, ceded=info1)
            self.ev(t + lat, k, 2000 + k, "entry", vcpu_id=k, pc=0xc000000000001000)
            return
        if self.arch == "s390":
            self.ev(t, k, 2000 + k, "exit", id=k, icptcode=reason, pswaddr=0x10000, pswmask=0x0704000180000000)
            self.ev(t + lat, k, 2000 + k, "entry", id=k, pswaddr=0x10000)
            return
        self.ev(t, k, 2000 + k, "exit", exit_reason=reason, isa=1, guest_rip=0x1000 + reason, info1=info1,
                vcpu_id=k)
        if uexit is not None:
            self.ev(t + US, k, 2000 + k, "uexit", reason=uexit)
        self.ev(t + lat, k, 2000 + k, "entry", vcpu_id=k)

    def span(self, vcpus=2):
        """A timer exit of each vCPU at 0 and at 1 s: every scenario lasts one second."""
        timer = {"ppc-hv": 0x980, "s390": 0x14}.get(self.arch, 1)
        for k in range(vcpus):
            self.exit(k * US, k, timer, 2 * US)
            self.exit(1000 * MS + k * US, k, timer, 2 * US)

    def write(self, name, *extra, layout="x86-6.5"):
        self.lines.sort(key=lambda l: (0, 0) if l.startswith("comm") else (1, int(l.split()[0])))
        path = os.path.join(TMP, "findings-%s.txt" % name)
        with open(path, "w") as f:
            f.write("\n".join(self.lines) + "\n")
        dat = path[:-4] + ".dat"
        p = subprocess.run([os.environ["KVMGEN"], "-f", os.path.join(FORMATS, layout), "-o", dat, "-S", path]
                           + list(extra), capture_output=True, text=True)
        if p.returncode:
            print("Bail out! kvmgen -S %s: %s" % (path, p.stderr.strip()))
            raise SystemExit(1)
        return dat


def findings(dat, *extra):
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"] + list(extra))
    if rc:
        return None, err
    return json.loads(out)["findings"], err


def fired(fs):
    """{(rule, vm, vcpu tid)} of a findings array."""
    return {(f["rule"], f["vm"], f["tid"]) for f in fs or []}


def case(name, dat, want, must_say=(), extra=()):
    fs, err = findings(dat, *extra)
    got = fired(fs)
    says = " ".join(f["evidence"] for f in fs or [])
    missing = [s for s in must_say if not re.search(s, says)]
    ok(fs is not None and got == want and not missing, "%s: %s" % (name, ", ".join(
        "%s on %s" % (r, "vCPU thread %d" % t if t else vm or "the host") for r, vm, t in sorted(want,
                                                                                              key=str)) or "none"),
       "got %r (evidence: %s); missing in the evidence: %r %s" % (sorted(got, key=str), says, missing, err))
    return fs


def overcommit(share_ms, name):
    """vCPU 0 runnable while host task 600 runs: 10 x share_ms of the second; vCPU 1 5 x 10 ms."""
    s = Script()
    s.span()
    for i in range(10):
        t = 100 * MS * i + 10 * MS
        s.exit(t, 0, 48, share_ms * MS + 20 * US)
        s.ev(t + 10 * US, 0, 2000, "switch", prev_pid=2000, prev_state=0, next_pid=600)
        s.ev(t + 10 * US + share_ms * MS, 0, 600, "switch", prev_pid=600, prev_state=0, next_pid=2000)
    for i in range(5):
        t = 200 * MS * i + 50 * MS
        s.exit(t, 1, 48, 10 * MS + 20 * US)
        s.ev(t + 10 * US, 1, 2001, "switch", prev_pid=2001, prev_state=0, next_pid=601)
        s.ev(t + 10 * US + 10 * MS, 1, 601, "switch", prev_pid=601, prev_state=0, next_pid=2001)
    return s.write(name, "-w")


def tmux(sock, *args):
    return subprocess.run(["tmux", "-S", sock] + list(args), capture_output=True, timeout=20)


def wait_screen(sock, cond, secs=20):
    lines, end = [], time.time() + secs
    while time.time() < end:
        lines = tmux(sock, "capture-pane", "-p", "-t", "k").stdout.decode("utf-8", "replace").splitlines()
        if cond(lines):
            break
        time.sleep(0.2)
    return lines


def screen_case(dat):
    """The screen lands on the findings pane (a severe one); Enter opens the vCPU's exit reasons;
    from its vCPUs pane, w shows who ran while it waited."""
    name = "screen"
    if not shutil.which("tmux"):
        ok(False, name + ": tmux is not installed (apt-get install tmux)")
        return
    d = tempfile.mkdtemp(prefix="kvmtop-findings-")
    sock = os.path.join(d, "tmux.sock")
    try:
        tmux(sock, "-f", "/dev/null", "new-session", "-d", "-s", "k", "-x", "160", "-y", "30",
             "%s -r %s; sleep 30" % (os.environ.get("KVMTOP", "./kvmtop"), dat))
        lines = wait_screen(sock, lambda ls: any("SEVERITY" in l for l in ls))
        row = [l for l in lines if l.startswith("severe")]
        ok(row and "overcommit" in row[0] and "%s vCPU 0 (tid 2000)" % VM in row[0] and "hog (tid 600)" in row[0]
           and any(l.startswith("Remedy: give the vCPU threads CPUs") for l in lines),
           name + ": a severe finding: the screen lands on the findings pane, the remedy on its title line",
           "\n".join(lines[:8]))
        tmux(sock, "send-keys", "-t", "k", "Enter")
        lines = wait_screen(sock, lambda ls: any("Exit reasons of vCPU 0 (tid 2000)" in l for l in ls))
        ok(any("Exit reasons of vCPU 0 (tid 2000)" in l for l in lines), name + ": Enter opens the vCPU's exit reasons",
           "\n".join(lines[:6]))
        tmux(sock, "send-keys", "-t", "k", "w")
        lines = wait_screen(sock, lambda ls: any(l.startswith("Stolen by") for l in ls))
        rows = [l.split() for l in lines if l.strip().endswith(" hog")]
        ok(rows and rows[0][0] == "400.0ms" and rows[0][1] == "100.0" and rows[0][2] == "600",
           name + ": w shows who ran while it waited: hog, 400 ms, all of its wait", "\n".join(lines[:8]))
        tmux(sock, "send-keys", "-t", "k", "Escape", "Escape", "Escape", "!")
        lines = wait_screen(sock, lambda ls: any("SEVERITY" in l for l in ls))
        ok(any(l.startswith("severe") for l in lines), name + ": ! opens the findings pane from the VMs pane",
           "\n".join(lines[:8]))
    finally:
        tmux(sock, "kill-server")
        shutil.rmtree(d, ignore_errors=True)


def objects_script(name, per_vcpu, over=990 * MS, layout="x86-objects"):
    """per_vcpu: {k: [(n, reason, info1, companions)]}: vCPU k's exits, shuffled and spread evenly over
    the second (over < 990 ms: over that time from 0, no timer exits), each with its companion events
    [(event, fields)] (the layout's: x86-objects, ppc-hv, s390) -> (dat, exits, seconds)."""
    s = Script("x86" if layout == "x86-objects" else layout)
    short = over < 990 * MS
    if not short:
        s.span()
    total = 0 if short else 4
    for k, groups in per_vcpu.items():
        items = []
        for n, reason, info1, comps in groups:
            items += [(reason, info1, comps)] * n
        random.Random(k).shuffle(items)
        step = over // len(items)
        for i, (reason, info1, comps) in enumerate(items):
            t = (0 if short else 5 * MS) + i * step
            s.exit(t, k, reason, 5 * US, info1=info1)
            for j, (ev, f) in enumerate(comps):
                s.ev(t + (j + 1) * US, k, 2000 + k, ev, **f)
        total += len(items)
    return s.write(name, layout=layout), total, s.last / 1e9


def obj_case(name, per_vcpu, want, rule=None, rate=0, objs=(), share_of=None, over=990 * MS, layout="x86-objects"):
    """A case whose finding rule must say "<rate>/s on <objs>; <share> % of its exits", the test's own
    counts: rate = rate exits over the recording's length, share of share_of exits (None: the VM's)."""
    dat, total, secs = objects_script("obj%d" % len(name), per_vcpu, over, layout)
    says = []
    if rule:
        says = [r"^%.0f [a-zA-Z_ ()]+/s on %s; %.1f %% of its exits$" % (
            rate / secs, ", ".join(objs), 100.0 * rate / (share_of or total))]
    fs, err = findings(dat)
    got = fired(fs)
    ev = [f["evidence"] for f in fs or [] if f["rule"] == rule]
    ok(fs is not None and got == want and all(len(ev) == 1 and re.search(x, ev[0]) for x in says),
       "%s: %s" % (name, ", ".join(sorted("%s on %s" % (r, "vCPU thread %d" % t if t else v) for r, v, t in want))
                   or "none"), "got %r, evidence %r, want %r %s" % (sorted(got, key=str), ev, says, err))


def port(p, out=True):
    """An IO_INSTRUCTION's exit qualification: port p, one byte, out or in."""
    return p << 16 | (0 if out else 8)


def object_cases():
    """The object rules, each on exits the test counts itself, just above and below its threshold."""
    io, msrw, ept = 30, 32, 49
    timer = [(200, io, port(0x70), []), (200, io, port(0x71, False), []), (100, io, port(0x43), []),
             (100, io, port(0xb008, False), [])]
    near = [(100, io, port(0x44), []), (100, io, port(0x72), [])]
    obj_case("timer-polling: 600 exits/s on CMOS, PIT and ACPI PM timer ports", {0: timer + near},
             {("timer-polling", VM, None)}, "timer-polling", 600,
             [r"port 0x70 \(CMOS index\) 200", r"port 0x71 \(CMOS data\) 200", r"port 0x43 \([^()]*\) 100",
              r"port 0xb008 \(ACPI PM timer \(PIIX4\)\) 100"])
    obj_case("timer-polling: 400 a second (and the ports beside them) are below the threshold",
             {0: timer[:2] + near + [(200, io, port(0x40 - 1), []), (200, io, port(0x608 - 1), [])]}, set())

    serial = [(500, io, port(0x3f8), []), (100, io, port(0x2f8), [])]
    obj_case("serial-console: 600 writes/s to COM1 and COM2", {1: serial + [(200, io, port(0x3fd, False), [])]},
             {("serial-console", VM, None)}, "serial-console", 600,
             [r"port 0x3f8 \(COM1\) 500", r"port 0x2f8 \(COM2\) 100"])
    obj_case("serial-console: 400 writes and 300 reads a second are below the threshold",
             {1: [(400, io, port(0x3f8), []), (300, io, port(0x3fd, False), [])]}, set())

    obj_case("serial-console: 150 writes in 30 ms, 5,000 a second", {1: [(150, io, port(0x3f8), [])]},
             {("serial-console", VM, None), ("legacy-io", VM, None)}, "serial-console", 150,
             [r"port 0x3f8 \(COM1\) 150"], over=30 * MS)
    obj_case("serial-console: 60 writes in 30 ms are too few to tell a rate (legacy-io has no such floor)",
             {1: [(60, io, port(0x3f8), [])]}, {("legacy-io", VM, None)}, over=30 * MS)

    # the exits' own port is 0 (as the sample recording's): kvm_pio names the port, and every finding
    # must name the one the objects table counts, with the test's own count of it
    def pio(n, p):
        return (n, io, 0, [("pio", {"rw": 1, "port": p, "size": 1, "count": 1})])

    dat, total, secs = objects_script("io-pio", {0: [pio(900, 0x3f8), pio(300, 0x70)]})
    fs, err = findings(dat)
    ev = {f["rule"]: f["evidence"] for f in fs or []}
    want = {"legacy-io": r"; ports 0x3f8 900, 0x70 300(;|$)", "serial-console": r" on port 0x3f8 \(COM1\) 900;"}
    ok(all(re.search(w, ev.get(r, "")) for r, w in want.items()) and "0x0 " not in " ".join(ev.values()),
       "legacy-io, serial-console: the ports kvm_pio named and their counts, not the exits' own port 0",
       "evidence %r %s" % (ev, err))

    def msr(n, m, write=True):
        return (n, msrw if write else 31, 0, [("msr", {"write": int(write), "ecx": m, "data": 7})])

    def apic(n, reg):
        return (n, ept, 0, [("mmio", {"type": 2, "len": 4, "gpa": 0xfee00000 + reg}), ("apic", {"rw": 1, "reg": reg})])

    obj_case("ipi: 1,100 ICR writes/s, x2APIC and xAPIC, on two vCPUs",
             {0: [msr(700, 0x830), msr(300, 0x830, False)], 1: [apic(400, 0x300), apic(300, 0x310)]},
             {("ipi", VM, None)}, "ipi", 1100, [r"msr 0x830 \(x2APIC ICR\) 700", r"apic 0x300 \(ICR\) 400"])
    obj_case("ipi: 900 ICR writes a second are below the threshold",
             {0: [msr(700, 0x830), msr(300, 0x830, False)], 1: [apic(200, 0x300), apic(300, 0x310)]}, set())

    obj_case("tsc-deadline: 1,200 writes/s on vCPU 0, 800 on vCPU 1",
             {0: [msr(1200, 0x6e0), msr(300, 0x6e0, False)], 1: [msr(800, 0x6e0), msr(200, 0x6e1)]},
             {("tsc-deadline", VM, 2000)}, "tsc-deadline", 1200, [r"msr 0x6e0 \(IA32_TSC_DEADLINE\) 1200"],
             share_of=1502)

    def mmio(n, gpa, typ=2):
        return (n, ept, 0, [("mmio", {"type": typ, "len": 4, "gpa": gpa})])

    obj_case("mmio-page: 1,200 writes/s on one page",
             {0: [mmio(700, 0xfebc0008), mmio(200, 0xfebc0010, 1)], 1: [mmio(500, 0xfebc0008), mmio(300, 0xfebd0000)]},
             {("mmio-page", VM, None), ("mmio", VM, None)}, "mmio-page", 1200, [r"mmio 0xfebc0000 1200"])
    obj_case("mmio-page: 1,500 writes/s on two pages, 750 each, are below it (the mmio rule fires)",
             {0: [mmio(750, 0xfebc0008)], 1: [mmio(750, 0xfebd0000)]}, {("mmio", VM, None)})
    obj_case("mmio-page: 1,100 writes/s on the local APIC's page (no kvm_apic) are no doorbell",
             {0: [mmio(1100, 0xfee000b0)]}, {("mmio", VM, None)})


def arch_object_cases():
    """powerpc's H_CEDE and s390's diagnose yields, on exits the test counts itself, above and below."""
    sc, ceded_trap = 0xc00, 0

    def hcall(n, req):      # a hypercall exit and its kvm_hcall_enter
        return (n, sc, 0, [("hcall", {"req": req})])

    def ceded(n, trap):     # an exit that leaves the vCPU ceded: H_CEDE, no kvm_hcall_enter
        return (n, trap, 1, [])

    obj_case("h-cede: 1,100 H_CEDE/s, by kvm_hcall_enter and by ceded exits, on two vCPUs",
             {0: [hcall(400, 0xe0), hcall(300, 0x6c)], 1: [ceded(500, ceded_trap), ceded(200, sc)]},
             {("h-cede", VM, None)}, "h-cede", 1100, [r"hcall 0xe0 \(H_CEDE\) 1100"], layout="ppc-hv")
    obj_case("h-cede: 900 a second, and 500 H_PROD, are below the threshold",
             {0: [hcall(400, 0xe0), hcall(500, 0xe8)], 1: [ceded(500, ceded_trap)]}, set(), layout="ppc-hv")

    def diag(n, code):      # a DIAGNOSE intercept: the instruction, then its code
        return (n, 4, 0, [("insn", {"instruction": 0x83 << 56 | code << 16}), ("diag", {"code": code})])

    def insn(n, ins):
        return (n, 4, 0, [("insn", {"instruction": ins})])

    obj_case("diag-yield: 1,100 DIAG 0x44 and 0x9c a second",
             {0: [diag(600, 0x44), insn(300, 0xb220 << 48)], 1: [diag(500, 0x9c), diag(200, 0x500)]},
             {("diag-yield", VM, None)}, "diag-yield", 1100,
             [r"diagnose 0x44 \(time slice end \(yield\)\) 600",
              r"diagnose 0x9c \(time slice end directed \(yield to\)\) 500"], layout="s390")
    obj_case("diag-yield: 900 a second, and 1,000 virtio notifies, are below the threshold",
             {0: [diag(600, 0x44), diag(1000, 0x500)], 1: [diag(300, 0x9c), insn(300, 0x83 << 56)]}, set(),
             layout="s390")


def arm_wfx(name, per_vcpu, lat=600 * US):
    """arm64 vCPU k (thread 2000 + k): per_vcpu[k] = (WFIs, WFEs), spread over one second, each a
    TRAP/WFx exit with its kvm_wfx_arm64 and lat asleep; an IRQ exit at 0 and 1 s on each."""
    s = Script()
    for k, (wfi, wfe) in per_vcpu.items():
        for t in (k * US, 1000 * MS + k * US):
            s.ev(t, k, 2000 + k, "exit", ret=0, esr_ec=0, vcpu_pc=0xffff800010000000)
            s.ev(t + 2 * US, k, 2000 + k, "entry", vcpu_pc=0xffff800010000000)
        items = [0] * wfi + [1] * wfe
        random.Random(k).shuffle(items)
        step = 990 * MS // max(len(items), 1)
        for i, is_wfe in enumerate(items):
            t = 5 * MS + i * step
            s.ev(t, k, 2000 + k, "exit", ret=2, esr_ec=1, vcpu_pc=0xffff800010003000)
            s.ev(t + US, k, 2000 + k, "wfx", vcpu_pc=0xffff800010003000, is_wfe=is_wfe)
            s.ev(t + lat, k, 2000 + k, "entry", vcpu_pc=0xffff800010003004)
    return s.write(name, layout="arm64-objects")


def arm_cases():
    """wfx-trapping: an arm64 vCPU's WFI and WFE exits, counted by the test."""
    fs, err = findings(arm_wfx("wfx", {0: (900, 300), 1: (600, 200)}))
    got = {(f["rule"], f["tid"]) for f in fs or []}
    ev = [f["evidence"] for f in fs or [] if f["rule"] == "wfx-trapping"]
    ok(got == {("wfx-trapping", 2000)} and len(ev) == 1 and
       re.search(r"^120\d WFI/WFE exits/s on wfx 0x0 \(WFI\) 900, wfx 0x1 \(WFE\) 300; 99\.\d % of its exits$", ev[0]),
       "wfx-trapping: 1,200 WFI/WFE exits/s on vCPU 0 (900 WFI, 300 WFE); 800 on vCPU 1 are below it",
       "got %r, evidence %r %s" % (sorted(got, key=str), ev, err))
    fs, err = findings(arm_wfx("wfx-low", {0: (700, 200)}))
    ok(fs is not None and not [f for f in fs if f["rule"] == "wfx-trapping"],
       "wfx-trapping: 900 a second is below the threshold", (fs, err))


def main():
    arm_cases()
    # nothing wrong: a timer exit every 50 ms, a short preemption now and then
    s = Script()
    s.span()
    for i in range(1, 20):
        s.exit(i * 50 * MS, 0, 1, 5 * US)
        s.exit(i * 50 * MS + 7 * MS, 1, 1, 5 * US)
    s.ev(300 * MS, 0, 2000, "switch", prev_pid=2000, prev_state=0, next_pid=600)
    s.ev(301 * MS, 0, 600, "switch", prev_pid=600, prev_state=0, next_pid=2000)
    case("a quiet VM", s.write("quiet", "-w"), set())

    case("overcommit: 40 % of vCPU 0's second runnable while task 600 ran", overcommit(40, "overcommit"),
         {("overcommit", VM, 2000)}, [r"waited for a CPU 40\.\d %", r"stolen by hog \(tid 600\) 400\.\d+ms"])
    case("overcommit: 8 % is below the threshold", overcommit(8, "overcommit-low"), set())

    s = Script()
    s.span()
    for i in range(2000):
        s.exit(5 * MS + i * 400 * US, 0, 30, 20 * US, info1=(0x3f8 if i % 4 else 0x70) << 16, uexit=2)
    case("legacy-io: 2,000 port I/O exits in the second", s.write("io"),
         {("legacy-io", VM, None), ("serial-console", VM, None)},
         [r"200\d port I/O exits/s", r"ports 0x3f8 1500, 0x70 500"])
    s = Script()
    s.span()
    for i in range(500):
        s.exit(5 * MS + i * 1500 * US, 0, 30, 20 * US, info1=0x3f8 << 16, uexit=2)
    case("legacy-io: 500 a second is below the threshold", s.write("io-low"), set())

    s = Script()
    s.span()
    for i in range(1500):
        t = 5 * MS + i * 600 * US
        s.exit(t, 1, 49, 10 * US)
        s.ev(t + 2 * US, 1, 2001, "mmio", type=2, len=4, gpa=0xfebc0000, val=1)
    case("mmio: 1,500 EPT_MISCONFIG exits and kvm_mmio events", s.write("mmio"),
         {("mmio", VM, None), ("mmio-page", VM, None)},
         [r"150\d emulated MMIO accesses/s", r"1500 kvm_mmio"])

    s = Script()
    s.span()
    for i in range(500):
        t = 5 * MS + i * 1800 * US
        s.exit(t, 1, 49, 10 * US)
        s.ev(t + 2 * US, 1, 2001, "mmio", type=2, len=4, gpa=0xfebc0000, val=1)
    case("mmio: 500 a second is below the threshold", s.write("mmio-low"), set())

    s = Script()
    s.span()
    for i in range(1500):
        s.exit(5 * MS + i * 600 * US, i % 2, 40, 3 * US)
    case("spinlock: 1,500 PAUSE exits", s.write("pause"), {("spinlock", VM, None)}, [r"150\d PAUSE_INSTRUCTION exits/s"])
    s = Script()
    s.span()
    for i in range(500):
        s.exit(5 * MS + i * 1800 * US, i % 2, 40, 3 * US)
    case("spinlock: 500 a second is below the threshold", s.write("pause-low"), set())

    s = Script()
    s.span()
    for i in range(1500):
        s.exit(5 * MS + i * 600 * US, 0, 12, 100 * US)
    case("halt-polling: 1,500 HLTs of 100 us on vCPU 0", s.write("halt"), {("halt-polling", VM, 2000)},
         [r"1500 HLT exits/s, each asleep for p50 10\d\.\d+us"])
    s = Script()
    s.span()
    for i in range(1500):
        s.exit(5 * MS + i * 600 * US, 0, 12, 550 * US)
    case("halt-polling: sleeps of 550 us are not short", s.write("halt-long"), set())

    s = Script()
    s.span()
    for i in range(200):
        s.exit(5 * MS + i * 4 * MS, 1, 48, 500 * US if i % 50 == 7 else 2 * US)
    case("slow-exits: EPT_VIOLATION's p99 250 times its p50", s.write("slow"), {("slow-exits", VM, None)},
         [r"EPT_VIOLATION: p50 2\.\d+us, p99 50\d\.\d+us over 200 exits"])
    s = Script()
    s.span()
    for i in range(200):
        s.exit(5 * MS + i * 4 * MS, 1, 48, 2 * US)
    case("slow-exits: steady latencies", s.write("slow-none"), set())

    s = Script()
    s.span()
    for i in range(100):
        s.exit(5 * MS + i * 9 * MS, 0, 30, 3 * MS, info1=0x510 << 16, uexit=2)
    case("vmm-bound: vCPU 0 30 % of its second in the VMM", s.write("vmm"), {("vmm-bound", VM, 2000)},
         [r"in the VMM (29\.9|30\.0) %", r"userspace exits IO 100"])
    s = Script()
    s.span()
    for i in range(100):
        s.exit(5 * MS + i * 9 * MS, 0, 30, 1 * MS, info1=0x510 << 16, uexit=2)
    case("vmm-bound: 10 % in the VMM is below the threshold", s.write("vmm-low"), set())

    lost = os.path.join(TMP, "findings-lost.dat")
    kvmgen(lost, "x86-6.5", ["-m", "1", "-v", "2", "-n", "200", "-l", "-s", "3"])
    fs, err = findings(lost)
    ok(fs is not None and ("lost-events", None, None) in fired(fs)
       and [f["severity"] for f in fs if f["rule"] == "lost-events"] == ["severe"],
       "lost-events: a recording with lost events: severe, on the host", (fs, err))
    whole = os.path.join(TMP, "findings-whole.dat")
    kvmgen(whole, "x86-6.5", ["-m", "1", "-v", "2", "-n", "200", "-s", "3"])
    fs, err = findings(whole)
    ok(fs is not None and not [f for f in fs if f["rule"] == "lost-events"],
       "lost-events: the same recording without losses has none", (fs, err))

    object_cases()
    arch_object_cases()

    # one table, one man page: the rules kvmtop knows are the FINDINGS section's
    src = open(os.path.join(SRC, "src", "model", "findings.c")).read()
    table = re.findall(r'^\t\{ "([a-z-]+)", FSC_', src, re.M)
    man = open(os.path.join(SRC, "man", "kvmtop.1")).read()
    section = man[man.index(".SH FINDINGS"):man.index(".SH", man.index(".SH FINDINGS") + 4)]
    listed = [x.replace("\\-", "-") for x in re.findall(r'^\.B ([a-z\\-]+)$', section, re.M)]
    eq(listed, table, "the man page's FINDINGS section lists every rule of src/model/findings.c, in its order")

    screen_case(overcommit(40, "overcommit"))

    rc, out, err = run(["-b", "-r", overcommit(40, "overcommit"), "--summary", "-o", "findings"])
    ok(rc == 0 and "[severe] overcommit, VM %s (pid 2000) vCPU 0 (tid 2000)" % VM in out and "remedy:" in out,
       "-o findings: the finding, where, the evidence and the remedy", out + err)
    done()


main()
