# SPDX-License-Identifier: GPL-2.0
"""Real trace excerpts (../shared/traces/snippets, ftrace text) as recordings.

The test reads the text (kvmtop never does: it reads binary recordings),
and tests/kvmgen -S writes the same events, in the same order, with the
same reasons and guest PCs, in a kernel layout of tests/formats.  What
kvmtop must report is worked out here from the text alone.
"""
import os
import re
import subprocess

# arm64 (kernel print fmt): "kvm_exit: TRAP: HSR_EC: 0x0018 (SYS64), PC: 0x..."
ARM_LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<ts>\d+\.\d+): "
                      r"(?P<ev>kvm_exit|kvm_entry): (?P<rest>.*)$")
ARM_EXIT = re.compile(r"(?P<type>\w+): HSR_EC: 0x(?P<ec>[0-9a-f]+) \((?P<ecname>\w+)\), PC: 0x(?P<pc>[0-9a-f]+)")
ARM_TYPES = {"IRQ": 0, "SERROR": 1, "TRAP": 2, "ILLEGAL": 3}
# x86 >= 5.10 kernel print fmt, timestamps only
SVM_EXIT = re.compile(r"^\s*(?P<ts>\d+\.\d+): kvm_exit: vcpu (?P<vcpu>\d+) reason (?P<reason>\w+) "
                      r"rip 0x(?P<pc>[0-9a-f]+) info1 0x(?P<i1>[0-9a-f]+) info2 0x(?P<i2>[0-9a-f]+)")
SVM_ENTRY = re.compile(r"^\s*(?P<ts>\d+\.\d+): kvm_entry: vcpu (?P<vcpu>\d+), rip 0x(?P<pc>[0-9a-f]+)")
# trace-cmd report with libtraceevent's plugin_kvm: "reason EXIT_NPF rip 0x0 info 1680000007 1729a1000"
PLUGIN_EXIT = re.compile(r"^\s*(?P<comm>.+?)-(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+): kvm_exit:\s+"
                         r"reason (?P<reason>\w+) rip 0x(?P<pc>[0-9a-f]+) info (?P<i1>[0-9a-f]+) (?P<i2>[0-9a-f]+)")
# SVM exit codes: the kernel's names and plugin_kvm's
SVM_CODES = {"vintr": 0x64, "msr": 0x7c, "npf": 0x400, "EXIT_NPF": 0x400}
SVM_NAMES = {0x64: "vintr", 0x7c: "msr", 0x400: "npf"}

# name: (file, layout, parser)
SNIPPETS = {
    "arm64-nv": ("arm64_nv_aarch32_id_regs_unwrapped.txt", "arm64-5.7", "arm"),
    "arm64-sys64": ("arm64_kvm-vcpu_SYS64_unwrapped.txt", "arm64-5.7", "arm"),
    "svm-idle-halt": ("x86_svm_idle-halt_kernel-printfmt_2024.txt", "x86-6.5", "svm"),
    "svm-sev-npf": ("x86_svm_sev-snp_plugin-kvm-rendering_EXIT_NPF.txt", "x86-6.5", "plugin"),
}


def parse(path, kind):
    """The excerpt's exits and entries in order: dicts of ev, t (ns), cpu, tid, comm, reason, code, pc, info."""
    out = []
    for n, line in enumerate(open(path, encoding="utf-8", errors="replace")):
        ev = None
        if kind == "arm":
            m = ARM_LINE.match(line)
            if not m:
                continue
            ev = dict(ev=m["ev"][4:], ts=m["ts"], cpu=int(m["cpu"]), tid=int(m["tid"]), comm=m["comm"].strip())
            if ev["ev"] == "exit":
                x = ARM_EXIT.match(m["rest"])
                if not x:
                    continue
                t = ARM_TYPES[x["type"]]
                ec = int(x["ec"], 16)
                ev.update(type=t, ec=ec, pc=int(x["pc"], 16),
                          reason=x["type"] + ("/" + x["ecname"] if t == 2 else ""))
            else:
                ev["pc"] = int(m["rest"].split("0x")[1], 16)
        elif kind == "svm":
            m = SVM_EXIT.match(line) or SVM_ENTRY.match(line)
            if not m:
                continue
            ev = dict(ev="exit" if "reason" in m.groupdict() else "entry", ts=m["ts"], cpu=0, tid=5000,
                      comm="CPU %s/KVM" % m["vcpu"], vcpu=int(m["vcpu"]), pc=int(m["pc"], 16))
            if ev["ev"] == "exit":
                code = SVM_CODES[m["reason"]]
                ev.update(code=code, reason=SVM_NAMES[code], i1=int(m["i1"], 16), i2=int(m["i2"], 16))
        else:
            m = PLUGIN_EXIT.match(line)
            if not m:
                continue
            code = SVM_CODES[m["reason"]]
            ev = dict(ev="exit", ts=m["ts"], cpu=int(m["cpu"]), tid=int(m["tid"]), comm=m["comm"].strip(),
                      code=code, reason=SVM_NAMES[code], pc=int(m["pc"], 16), i1=int(m["i1"], 16),
                      i2=int(m["i2"], 16))
        # microseconds in the text; + the line number keeps every time distinct and in order
        sec, frac = ev.pop("ts").split(".")
        ev["t"] = (int(sec) * 1000000 + int(frac.ljust(6, "0")[:6])) * 1000 + n
        out.append(ev)
    return out


def script(evs, kind):
    """kvmgen -S lines for the events."""
    lines, comms = [], {}
    for e in evs:
        comms[e["tid"]] = e["comm"]
        if kind == "arm":
            f = "vcpu_pc=%d" % e["pc"]
            if e["ev"] == "exit":
                f += " ret=%d esr_ec=%d" % (e["type"], e["ec"])
        else:
            f = "vcpu_id=%d " % e.get("vcpu", 0)
            if e["ev"] == "exit":
                f += "exit_reason=%d isa=2 guest_rip=%d info1=%d info2=%d" % (e["code"], e["pc"], e["i1"], e["i2"])
            else:
                f += "rip=%d" % e["pc"]
        lines.append("%d %d %d %s %s" % (e["t"], e["cpu"], e["tid"], e["ev"], f))
    return ["comm %d %s" % c for c in comms.items()] + lines


def expected(evs):
    """Per thread and reason: count, latency samples, sum, min, max (exit -> next entry of the thread);
    sum, min and max None where no exit has its entry."""
    want, pending = {}, {}
    for e in evs:
        if e["ev"] == "exit":
            r = want.setdefault(e["tid"], {}).setdefault(e["reason"], [0, 0, 0, None, 0])
            r[0] += 1
            pending[e["tid"]] = (e["t"], r)
        elif e["tid"] in pending:
            t, r = pending.pop(e["tid"])
            lat = e["t"] - t
            r[1] += 1
            r[2] += lat
            r[3] = lat if r[3] is None else min(r[3], lat)
            r[4] = max(r[4], lat)
    # a reason without an exit -> entry pair has no latency figure: null, not 0
    for rs in want.values():
        for r in rs.values():
            if not r[1]:
                r[2] = r[4] = None
    return want


def make(name, gen, formats, traces, tmp):
    """Write the recording of snippet name: (path of the .dat, its events), or None without ../shared/traces."""
    fname, layout, kind = SNIPPETS[name]
    src = os.path.join(traces, "snippets", "ftrace-text", fname)
    if not os.path.exists(src):
        return None
    evs = parse(src, kind)
    sc = os.path.join(tmp, "snippet-%s.txt" % name)
    with open(sc, "w") as f:
        f.write("\n".join(script(evs, kind)) + "\n")
    dat = os.path.join(tmp, "snippet-%s.dat" % name)
    subprocess.run([gen, "-f", os.path.join(formats, layout), "-o", dat, "-S", sc], check=True,
                   capture_output=True)
    return dat, evs
