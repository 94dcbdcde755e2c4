# SPDX-License-Identifier: GPL-2.0
"""Generated recordings: every layout of tests/formats (x86 2.6.32 to
6.18, VMX and SVM; arm 3.9, arm64 4.0, 4.4, 5.7, 6.9; powerpc HV; s390;
RISC-V; LoongArch),
file versions and codecs, clocks, cut recordings, vCPU migration, lost
events, intervals, and layouts that lack fields.

tests/kvmgen writes each recording from the layout's format files and the
figures kvmtop must report; this test compares kvmtop's JSON to them.
"""
import json
import subprocess
import struct
import os

import figures
import pageswap
import tcreport
from tap import ok, eq, skip, done, run, kvmgen

TMP = os.environ.get("KVMTOP_TMP", "/tmp")

LAYOUTS = ["x86-2.6.32", "x86-3.6", "x86-5.8", "x86-5.10", "x86-6.5", "x86-6.10", "x86-6.18"]
from names import VMX, SVM, ISA, ISA_NR, FLAGS, EC, ARM, ARM_EC_ONLY, PPC, S390, RISCV, LOONG

# layout: its isa, the names its reasons must have, and which are blocking (the vCPU waits)
OTHER_ARCHES = {
    "arm-3.9": ("arm64", {0xfd00: "EXIT"}, set()),
    "arm64-4.0": ("arm64", ARM_EC_ONLY, {0xfe01}),
    "arm64-4.4": ("arm64", ARM, {0x201}),
    "arm64-5.7": ("arm64", ARM, {0x201}),
    "arm64-6.9": ("arm64", ARM, {0x201}),
    "ppc-hv": ("ppc_hv", PPC, {(0xc00, "CEDED")}),
    "s390": ("s390", S390, {0x1c}),
    # RISC-V: the guest's WFI (a virtual instruction trap with WFI in stval) waits; LoongArch's
    # IDLE is inside a GSPR exit, which kvm_exit alone does not tell apart: none waits
    "riscv": ("riscv", RISCV, {(22, "WFI")}),
    "loongarch": ("loongarch", LOONG, set()),
}


def gen(name, layout, *args):
    out = os.path.join(TMP, name + ".dat")
    return out, kvmgen(out, layout, args, expect=os.path.join(TMP, name + ".expect.json"))


def by_thread(j):
    """kvmtop's JSON -> {tid: figures} in the generator's terms."""
    got = {}
    for vm in j["vms"]:
        for c in vm["vcpus"]:
            reasons = {}
            for r in c["reasons"]:
                isa = ISA_NR.get(r["isa"], 0)
                flags = FLAGS.get(r.get("flags"), 0)
                l = r["latency"]
                reasons[(isa, r["code"], flags)] = (r["count"], l["samples"], int(l["sum"]) if l["sum"] is not None else None, l["min"], l["max"])
            got[c["tid"]] = dict(vcpu=c["vcpu"], exits=c["exits"], unmatched_exits=c["unmatched_exits"],
                                 unmatched_entries=c["unmatched_entries"],
                                 kvm_pio=c["events"].get("kvm_pio", 0),
                                 uexit_io=c["userspace_exits"].get("IO", 0), reasons=reasons)
    return got


def expected(exp):
    want = {}
    for t in exp["threads"]:
        reasons = {(r["isa"], r["code"], r["flags"]): (r["count"], r["samples"], r["sum"], r["min"], r["max"])
                   for r in t["reasons"]}
        want[t["tid"]] = dict(vcpu=t["vcpu"], exits=t["exits"], unmatched_exits=t["unmatched_exits"],
                              unmatched_entries=t["unmatched_entries"], kvm_pio=t["kvm_pio"],
                              uexit_io=t["uexit_io"], reasons=reasons)
    return want


def key_of(r):
    """A reason of kvmtop's JSON in the generator's terms: (isa, code, flags)."""
    return (ISA_NR.get(r["isa"], 0), r["code"], FLAGS.get(r.get("flags"), 0))


def truth(reasons, labels):
    """The generator's reasons, keyed as kvmtop labels them (names are checked on their own)."""
    out = {}
    for r in reasons:
        k = (r["isa"], r["code"], r["flags"])
        f = {x: r[x] for x in ("count", "samples", "sum", "min", "max") + figures.PCTL}
        out[labels.get(k, ("missing %r" % (k,), ""))] = f
    return figures.pct_of(out)


def check_formats(name, dat, j, exp, labels):
    """Every figure of JSON, CSV and text, per vCPU thread, the VM and the host, against the truth."""
    want = {("vcpu", t["tid"]): truth(t["reasons"], labels) for t in exp["threads"]}
    host = truth(exp["host"], labels)
    # no --threads: a VM is the threads with one tid - vCPU id (man page, Recordings); the
    # generator's VM v is 1000 + 100 v, with its own truth over its threads' latencies
    want_all = {**want, "host": host}
    want_all.update({("vm", v["key"]): truth(v["reasons"], labels) for v in exp["vms"]})
    eq(sorted((vm["pid"], vm["name"], vm["grouped_by"], sorted(c["tid"] for c in vm["vcpus"])) for vm in j["vms"]),
       sorted((v["key"], "unknown@%d" % v["key"], "guess", sorted(t["tid"] for t in exp["threads"]
                                                            if t["tid"] - t["vcpu"] == v["key"]))
              for v in exp["vms"]),
       name + ": one VM per tid - vCPU id, named unknown@KEY, grouped_by guess")
    bad = figures.compare_scopes(figures.from_json(j), want_all, "json")
    ok(not bad, name + ": JSON per vCPU, VM and host: count, pairs, sum, min, max, p50..p99.9 (1/64)",
       "\n".join(bad))
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "csv"])
    bad = figures.compare_scopes(figures.from_csv(out)[0], want, "csv")
    ok(rc == 0 and not bad, name + ": CSV, every column per vCPU and reason", "\n".join(bad) or err)
    rc, out, err = run(["-b", "-r", dat, "--summary"])
    snaps = figures.from_text(out, ns=exp["time_unit"] == "ns")
    bad = [] if len(snaps) == 1 else ["%d snapshots" % len(snaps)]
    bad += figures.compare_scopes(snaps[0] if snaps else {}, want_all, "text", skip=("host",),
                                  unprinted=figures.TEXT_UNPRINTED)
    ok(rc == 0 and not bad, name + ": text, every column of the VM's and each vCPU's table", "\n".join(bad) or err)


def check(name, layout, *args):
    dat, exp = gen(name, layout, *args)
    return check_file(name, dat, exp)


def check_file(name, dat, exp):
    """kvmtop's figures of dat in every format against the generator's truth exp: its JSON, or None."""
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    if not eq(rc, 0, name + ": exit status 0"):
        print("# " + err)
        return None
    j = json.loads(out)
    eq((j["clock"], j["time_unit"], j["lost_events"]), (exp["clock"], exp["time_unit"], exp["lost_events"]),
       name + ": clock, time unit, lost events")
    got, want = by_thread(j), expected(exp)
    eq(got, want, name + ": per thread: exits, unmatched, per-reason count and exit->entry latency")
    labels = {key_of(r): figures.label(r["reason"], r.get("flags", ""), r["isa"])
              for vm in j["vms"] for c in vm["vcpus"] for r in c["reasons"]}
    check_formats(name, dat, j, exp, labels)
    return j


def check_names(name, j, has_isa):
    bad = []
    for r in j["host"]["reasons"]:
        if not has_isa:
            want = "UNKNOWN(%d)" % r["code"]
        else:
            want = (VMX if r["isa"] == "vmx" else SVM).get(r["code"])
        if r["reason"] != want:
            bad.append("%s %d: %r, want %r" % (r["isa"], r["code"], r["reason"], want))
        if has_isa and r["code"] == 33 and r.get("flags") != "FAILED_VMENTRY":
            bad.append("INVALID_STATE without its FAILED_VMENTRY flag")
    ok(not bad and j["host"]["reasons"], name + ": reason names from the format's own tables", "\n".join(bad))


def check_arch(layout):
    """Another arch's layout: exact figures, the arch's isa, names and blocking reasons."""
    isa, names, blocking = OTHER_ARCHES[layout]
    j = check(layout, layout, "-m", "2", "-v", "2", "-n", "400", "-C", "3", "-x", "-t", "-s", "7")
    if not j:
        return
    rs = j["host"]["reasons"]
    eq(sorted(set(r["isa"] for r in rs)), [isa], layout + ": isa is " + isa)
    bad = ["%#x %s: %r, want %r" % (r["code"], r.get("flags", ""), r["reason"], names.get(r["code"]))
           for r in rs if r["reason"] != names.get(r["code"])]
    ok(rs and not bad, layout + ": reason names (the format's own tables, then kvmtop's)", "\n".join(bad))
    got = sorted((r["code"], r.get("flags")) if r.get("flags") else r["code"] for r in rs if r["blocking"])
    want = sorted(b for b in blocking if any((r["code"], r.get("flags")) == b if isinstance(b, tuple)
                                             else r["code"] == b for r in rs))
    eq(got, want, layout + ": the waiting reasons (WFx, ceded, wait state) are the blocking ones")


def check_missing():
    """Layouts that lack fields: still replayed, counted per thread, one notice naming the field."""
    j = check("x86-stripped", "x86-stripped", "-m", "1", "-v", "2", "-n", "300", "-s", "8")
    rc, out, err = run(["-b", "-r", os.path.join(TMP, "x86-stripped.dat"), "--summary", "-o", "json"])
    lines = err.strip().splitlines()
    ok(len(lines) == 1 and "kvm:kvm_exit has no field 'isa'" in lines[0] and "'guest_rip' (no guest IPs)" in lines[0],
       "x86-stripped: one notice line names the missing isa and guest_rip fields", err)
    if j:
        ok(all(r["reason"] == "UNKNOWN(%d)" % r["code"] for r in j["host"]["reasons"]),
           "x86-stripped: without isa the reasons are numbers")

    dat, exp = gen("foreign", "foreign", "-m", "1", "-v", "3", "-n", "300", "-s", "9")
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    eq(rc, 0, "foreign layout: exit status 0")
    lines = err.strip().splitlines()
    ok(len(lines) == 1 and "kvm:kvm_exit has no field" in lines[0] and "'exit_reason'" in lines[0]
       and "UNKNOWN" in lines[0], "foreign layout: one notice line naming the missing field", err)
    if rc == 0:
        j = json.loads(out)
        got = sorted((c["tid"], c["exits"], c["unmatched_exits"], c["unmatched_entries"])
                     for vm in j["vms"] for c in vm["vcpus"])
        want = sorted((t["tid"], t["exits"], t["unmatched_exits"], t["unmatched_entries"]) for t in exp["threads"])
        eq(got, want, "foreign layout: exits and unmatched exits/entries per thread")
        eq(sorted(set(r["reason"] for r in j["host"]["reasons"])), ["UNKNOWN(0)"],
           "foreign layout: its exits are UNKNOWN")


def check_byteorder():
    """A big-endian host's recording (s390, ppc64), read on this one: the generator's file
    rewritten in the other byte order (tests/pageswap.py) has the same truth; Debian's
    trace-cmd reads both alike, which checks the rewrite."""
    for layout in ("s390", "ppc-hv", "x86-6.5"):
        name = "be-" + layout
        dat, exp = gen(name + "-le", layout, "-V", "6", "-m", "2", "-v", "2", "-n", "300", "-C", "3", "-l",
                       "-s", "23")
        be = os.path.join(TMP, name + ".dat")
        pageswap.rewrite(dat, be)
        why = tcreport.available()
        if why:
            skip(name + ": trace-cmd reports the rewritten file as the original", why)
        else:
            a, b = tcreport.report(dat), tcreport.report(be)
            ok(a == b and len(a) > 1000,
               name + ": trace-cmd reports the big-endian rewrite as the original (%d lines)" % len(a))
        check_file(name, be, exp)


def no_pairs_script():
    """Two VMs of one vCPU each: VM 1001's exits each with its entry, VM 2001's EPT_VIOLATION exits
    without one (the recording ends first): the script, and its truth {scope: {label: figures}}."""
    lines = ["comm 1001 CPU 0/KVM", "comm 2001 CPU 0/KVM"]
    pairs = [(30, 1000, 500), (12, 3000, 3000), (30, 8000, 700), (30, 12000, 900)]
    lat = {}
    for code, t, n in pairs:
        lines += ["%d 0 1001 exit exit_reason=%d isa=1 vcpu_id=0" % (t, code), "%d 0 1001 entry vcpu_id=0" % (t + n)]
        lat.setdefault(code, []).append(n)
    lines += ["%d 1 2001 exit exit_reason=48 isa=1 vcpu_id=0" % t for t in (2000, 7000, 9000)]
    lines.sort(key=lambda l: int(l.split()[0]) if l[0].isdigit() else -1)
    name = {30: "IO_INSTRUCTION", 12: "HLT", 48: "EPT_VIOLATION"}
    a = {(name[c], "vmx"): dict(count=len(v), samples=len(v), sum=sum(v), min=min(v), max=max(v))
         for c, v in lat.items()}
    b = {(name[48], "vmx"): dict(count=3, samples=0, sum=0)}
    want = {"host": {**a, **b}, ("vm", 1001): a, ("vm", 2001): b}
    want.update({("vcpu", k[1]): w for k, w in want.items() if k != "host"})
    return lines, {k: figures.pct_of(w) for k, w in want.items()}


def check_no_pairs():
    """TIME% (latency_sum_pct, perf kvm stat's Time%) of a scope without pairs, and of a reason
    without pairs in a scope with some: no figure (null, empty); of the others, their share."""
    script, want = no_pairs_script()
    path, dat = os.path.join(TMP, "no-pairs.txt"), os.path.join(TMP, "no-pairs.dat")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    kvmgen(dat, "x86-6.5", ["-S", path])
    eq([w["sum_pct"] for w in want[("vm", 2001)].values()], [None], "no pairs: the truth has a VM without pairs")
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    j = json.loads(out) if rc == 0 else {"host": {"reasons": []}, "vms": []}
    bad = figures.compare_scopes(figures.from_json(j), want, "json")
    ok(rc == 0 and not bad, "no pairs: JSON latency.sum_pct of host, VM and vCPU: null without pairs, "
       "else the reason's latency sum, % of its scope's", "\n".join(bad) or err)
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "csv"])
    bad = figures.compare_scopes(figures.from_csv(out)[0], {k: w for k, w in want.items() if k[0] == "vcpu"}, "csv")
    ok(rc == 0 and not bad, "no pairs: CSV latency_sum_pct per vCPU: empty without pairs, else the share",
       "\n".join(bad) or err)


def check_short_record():
    """A record shorter than its format: the fields past its end are absent, never read from the
    next record (the first kvm_exit keeps common fields and exit_reason, 12 bytes)."""
    dat, exp = gen("short-le", "x86-6.5", "-V", "6", "-m", "1", "-v", "2", "-n", "300", "-s", "24")
    cut = os.path.join(TMP, "short-cut.dat")
    rec = pageswap.rewrite(dat, cut, big_endian=False, shorten=("kvm_exit", 12))
    tid, code = struct.unpack_from("<iI", rec, 4)
    whole, short = (run(["-b", "-r", f, "--summary", "-o", "json"]) for f in (dat, cut))
    if not eq((whole[0], short[0]), (0, 0), "short record: both files read"):
        return
    a = {c["tid"]: c for vm in json.loads(whole[1])["vms"] for c in vm["vcpus"]}
    b = {c["tid"]: c for vm in json.loads(short[1])["vms"] for c in vm["vcpus"]}
    eq(sorted(b), sorted(a), "short record: the same vCPU threads")
    eq({t: (c["exits"], c["unmatched_exits"]) for t, c in b.items()},
       {t["tid"]: (t["exits"], t["unmatched_exits"]) for t in exp["threads"]},
       "short record: every thread's exits as the generator wrote them")
    eq([t for t in a if a[t] != b.get(t)], [tid], "short record: only its thread's figures change")
    if tid in a and tid in b:
        eq(b[tid]["ip_samples"]["none"], a[tid]["ip_samples"]["none"] + 1,
           "short record: its exit has no guest IP (guest_rip lies past its end)")
        eq(sorted((r["isa"], r["code"], r["count"]) for r in b[tid]["reasons"] if r["isa"] == "unknown"),
           [("unknown", code, 1)], "short record: its exit has no isa: reason %d of no known isa" % code)
        known = {(e["kind"], e["ip"]) for e in a[tid]["ips"]}
        eq([e["ip"] for e in b[tid]["ips"] if (e["kind"], e["ip"]) not in known], [],
           "short record: no guest IP read from the bytes after it")


def check_intervals():
    """-d: every interval's figures, in JSON, CSV and text, against the generator's, exactly."""
    step = 10_000_000
    dat, exp = gen("intervals", "x86-6.5", "-m", "1", "-v", "2", "-n", "2000", "-s", "21", "-d", str(step))
    ivs = exp["intervals"]
    rc, out, err = run(["-b", "-r", dat, "-d", "0.01", "-o", "json"])
    eq(rc, 0, "intervals: exit status 0")
    snaps = [json.loads(l) for l in out.splitlines()]
    ok(len(ivs) > 20, "intervals: the recording spans %d intervals of 0.01 s" % len(ivs))
    eq(len(snaps), len(ivs), "intervals: one snapshot per interval, from the first event to the last")
    eq([(int(s["start"]), int(s["end"])) for s in snaps],
       [(iv["start"], iv["start"] + step) for iv in ivs[:-1]] + [(ivs[-1]["start"], exp["last"])],
       "intervals: each snapshot's start and end in recording time")
    labels = {key_of(r): figures.label(r["reason"], r.get("flags", ""), r["isa"])
              for s in snaps for r in s["host"]["reasons"]}
    # the truth of each interval, and the running totals kvmtop prints beside it
    # (a reason seen before stays a row, with nothing in this interval: man page, "total")
    wants, totals = [], {}
    for iv in ivs:
        w = {}
        for t in iv["threads"]:
            f = truth(t["reasons"], labels)
            for lab, x in f.items():
                totals[(t["tid"], lab)] = totals.get((t["tid"], lab), 0) + x["count"]
            for (tid, lab), n in totals.items():
                if tid == t["tid"]:
                    # its share: 0 of the vCPU's exits, or none where it had none
                    f.setdefault(lab, dict(count=0, samples=0, sum_pct=None,
                                           pct=0.0 if t["exits"] else None))["total"] = n
            w[("vcpu", t["tid"])] = f
        wants.append(w)
    bad = []
    for i, s in enumerate(snaps):
        iv = ivs[i]
        secs = ((iv["start"] + step) if i < len(ivs) - 1 else exp["last"]) - iv["start"]
        secs /= 1e9
        rates = [("host", s["host"]["exits_per_s"], sum(t["exits"] for t in iv["threads"]))]
        rates += [("tid %d" % c["tid"], c["exits_per_s"], t["exits"]) for vm in s["vms"] for c in vm["vcpus"]
                  for t in iv["threads"] if t["tid"] == c["tid"]]
        bad += ["snapshot %d: seconds %r, want %r" % (i + 1, s["seconds"], secs)] if abs(s["seconds"] - secs) > 1e-9 else []
        bad += ["snapshot %d %s: %r/s, want %.3f" % (i + 1, w, g, n / secs) for w, g, n in rates
                if secs and abs(g - n / secs) > 0.0005]
    ok(snaps and not bad, "intervals: each snapshot's seconds, and exits per second of host and vCPUs",
       "\n".join(bad))
    bad = []
    for i, (s, w) in enumerate(zip(snaps, wants)):
        bad += figures.compare_scopes(figures.from_json(s), w, "snapshot %d json" % (i + 1))
        bad += [] if s["host"]["exits"] == sum(t["exits"] for t in ivs[i]["threads"]) else \
            ["snapshot %d: host exits %d" % (i + 1, s["host"]["exits"])]
    ok(snaps and not bad, "intervals: JSON, every interval's exits, totals, pairs and percentiles per vCPU",
       "\n".join(bad))
    rc, out, err = run(["-b", "-r", dat, "-d", "0.01", "-o", "csv"])
    bad = []
    for i, w in enumerate(wants):
        bad += figures.compare_scopes(figures.from_csv(out, snapshot=i + 1)[0], w, "snapshot %d csv" % (i + 1))
    ok(rc == 0 and not bad, "intervals: CSV, every interval's rows, every column", "\n".join(bad))
    rc, out, err = run(["-b", "-r", dat, "-d", "0.01"])
    tsnaps = figures.from_text(out)
    bad = [] if len(tsnaps) == len(wants) else ["%d text snapshots" % len(tsnaps)]
    for i, (s, w) in enumerate(zip(tsnaps, wants)):
        bad += figures.compare_scopes(s, w, "snapshot %d text" % (i + 1),
                                      unprinted=figures.TEXT_UNPRINTED)
    ok(rc == 0 and not bad, "intervals: text, every interval's tables, every column", "\n".join(bad))
    # -n stops the reading part way: what libtracecmd had read ahead is freed, nothing leaks
    if os.environ.get("KVMTOP_ASAN") and os.path.exists(os.environ["KVMTOP_ASAN"]):
        supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan.supp")
        p = subprocess.run([os.environ["KVMTOP_ASAN"], "-b", "-r", dat, "-d", "0.01", "-n", "2", "-o", "json"],
                           capture_output=True, timeout=120,
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:exitcode=99",
                                    LSAN_OPTIONS="suppressions=%s:print_suppressions=0" % supp))
        err = p.stderr.decode(errors="replace")
        ok(p.returncode == 0 and len(p.stdout.splitlines()) == 2 and "LeakSanitizer" not in err,
           "intervals: -n 2 stops the reading part way, and nothing it read ahead leaks (LeakSanitizer)",
           err[-1500:])
    else:
        skip("intervals: -n 2 under LeakSanitizer", "tests/kvmtop-asan is not built (make check builds it)")


def main():
    for layout in sorted(OTHER_ARCHES):
        check_arch(layout)
    check_missing()
    for layout in LAYOUTS:
        has_isa = layout != "x86-2.6.32"
        # two VMs of two vCPUs, vCPUs migrating over 4 CPUs, user-space I/O, a cut recording
        j = check(layout + "-vmx", layout, "-m", "2", "-v", "2", "-n", "400", "-C", "4", "-x", "-t", "-s", "3")
        if j:
            check_names(layout + "-vmx", j, has_isa)
        if has_isa:
            j = check(layout + "-mixed", layout, "-i", "mixed", "-m", "2", "-v", "3", "-n", "300", "-C", "3",
                      "-s", "5")
            if j:
                check_names(layout + "-mixed", j, True)
                isas = sorted(set(r["isa"] for r in j["host"]["reasons"]))
                eq(isas, ["svm", "vmx"], layout + "-mixed: VMX and SVM exits told apart by isa")

    # file versions and codecs
    check("v6", "x86-6.5", "-V", "6", "-n", "500", "-s", "11")
    j = check("v7-zlib", "x86-6.5", "-V", "7", "-z", "zlib", "-n", "500", "-s", "12")
    why = tcreport.available()
    if why:
        skip("v7-zlib: trace-cmd reads the generator's zlib file", why)
    elif j:
        o = tcreport.Oracle(os.path.join(TMP, "v7-zlib.dat"))
        eq((o.events, sum(t["exits"] for t in o.threads.values())), (j["kvm_events"], j["host"]["exits"]),
           "v7-zlib: Debian's trace-cmd reads the generator's zlib file: the same events and exits")
    check("v7-zstd", "x86-6.5", "-V", "7", "-z", "zstd", "-n", "500", "-s", "13")
    # clocks: raw TSC (cycles) and TSC converted by the file's tsc2nsec factors
    check("tsc-cycles", "x86-6.5", "-c", "x86-tsc", "-n", "300", "-s", "14")
    check("tsc2nsec", "x86-6.5", "-c", "tsc2nsec", "-n", "300", "-s", "15")
    # ring-buffer pages that start after lost events
    check("lost", "x86-6.18", "-l", "-m", "2", "-v", "4", "-n", "3000", "-C", "2", "-s", "16")
    # thread names from kvmtool, and one name for all (vCPU from the event's vcpu_id)
    j = check("kvmtool-old", "x86-2.6.32", "-N", "kvmtool", "-v", "3", "-n", "100", "-s", "17")
    if j:
        eq(sorted(c["vcpu"] for c in j["vms"][0]["vcpus"]), [0, 1, 2],
           "2.6.32 layout (no vcpu_id in kvm_exit), kvmtool thread names: vCPU indexes 0..2")

    check_byteorder()
    check_short_record()
    check_no_pairs()
    check_intervals()
    dat = os.path.join(TMP, "intervals.dat")
    rc, out, err = run(["-b", "-r", dat, "-d", "0.01", "-n", "2", "-o", "json"])
    eq(len(out.splitlines()), 2, "intervals: -n 2 stops after two snapshots")
    rc, out, err = run(["-b", "-r", os.path.join(TMP, "tsc-cycles.dat"), "-d", "1"])
    ok(rc != 0 and "nanoseconds" in err, "intervals: -d on a cycles clock is refused with a reason", err)
    done()


main()
