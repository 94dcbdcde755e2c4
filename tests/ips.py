# SPDX-License-Identifier: GPL-2.0
"""Sampled guest IPs: time samples (asynchronous exits) and exit sites,
kernel/user mode, guest symbols with KASLR, folded stacks, bounded tables,
and the real recordings with and without a symbol file.

tests/kvmgen writes recordings whose guest IPs follow a known
distribution (x86 VMX and SVM, arm64, powerpc, s390, RISC-V, LoongArch), the guest's
kallsyms and System.map, and the count of every IP per vCPU; this test
compares kvmtop's JSON, text and folded output to them.
"""
import json
import os
import re
import subprocess

import names

from tap import ok, eq, skip, done, run, traces, kvmgen, addr_ints

GEN = os.environ["KVMGEN"]
FORMATS = os.environ["KVMTOP_FORMATS"]
TMP = os.environ.get("KVMTOP_TMP", "/tmp")
KASLR = 0x1e000000

# layout, kvmgen options, whether kvmtop infers the mode from the address (x86, arm64, RISC-V,
# LoongArch)
CASES = [
    ("x86-6.5", [], True),
    ("x86-6.5", ["-i", "svm"], True),
    ("x86-3.6", [], True),
    ("arm64-6.9", [], True),
    ("arm64-4.4", [], True),
    ("ppc-hv", [], False),
    ("s390", [], False),
    ("riscv", [], True),
    ("loongarch", [], True),
]
# where kvmgen links each arch's guest kernel (its _text before KASLR), for --guest-kaslr
TEXT = {"x86": 0xffffffff81000000, "arm64": 0xffff800080000000, "riscv": 0xffffffff80000000,
        "loongarch": 0x9000000000200000}


def gen(name, layout, *args):
    """A recording, its expected figures, its kallsyms and System.map."""
    base = os.path.join(TMP, "ips-" + name)
    j = kvmgen(base + ".dat", layout, ["-K", hex(KASLR), "-k", base + ".kallsyms", "-M", base + ".map"] + list(args),
               expect=base + ".json")
    return base + ".dat", j, base + ".kallsyms", base + ".map"


def kjson(dat, *args):
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "--ip-top", "1000000"] + list(args))
    if rc:
        raise RuntimeError("kvmtop: %s" % err)
    return addr_ints(json.loads(out))


def vcpus(j):
    return dict((v["tid"], (vm, v)) for vm in j["vms"] for v in vm["vcpus"])


def want_ips(t, name_of, symbols=True):
    """The generator's IPs of thread t as kvmtop must print them: {(kind, ip, reason): (count, mode, sym)}.
    name_of(isa, code): the reason's name from tests/names.py (the kernel's tables), never kvmtop's."""
    w = {}
    for e in t["ips"]:
        reason = name_of(e["isa"], e["code"]) if e["kind"] == "exit" else None
        sym = (e["sym"] or "[unknown]") if symbols else None
        w[(e["kind"], e["ip"], reason)] = (e["count"], e["mode"], sym)
    return w


def got_ips(v):
    return dict(((e["kind"], e["ip"], e.get("reason")), (e["count"], e["mode"], e["sym"])) for e in v["ips"])


def generated():
    for layout, opts, inferred in CASES:
        name = layout + "".join(opts)
        dat, exp, ks, smap = gen(name, layout, "-v", "2", "-n", "3000", *opts)
        # x86, arm64, RISC-V and LoongArch: the System.map with the offset inferred from _text; the others: kallsyms
        if inferred:
            sym_args = ["--guest-map", smap, "--guest-kaslr",
                        "_text=%#x" % (TEXT[layout.split("-")[0]] + KASLR)]
        else:
            sym_args = ["--guest-kallsyms", ks]
        j = kjson(dat, *sym_args)
        th = dict((t["tid"], t) for t in exp["threads"])
        bad, samples, modes, kinds = [], [], set(), set()
        for tid, (vm, v) in vcpus(j).items():
            t = th[tid]
            want = want_ips(t, names.name)
            got = got_ips(v)
            if got != want:
                bad.append("tid %d: %d entries, want %d; first differences %r" % (
                    tid, len(got), len(want),
                    sorted((k, got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k))[:3]))
            s = v["ip_samples"]
            samples.append(((s["time"], s["exit"], s["none"]), (t["ip_samples"]["time"], t["ip_samples"]["exit"],
                                                               t["ip_samples"]["none"])))
            modes |= set((e["mode"], e["mode_inferred"]) for e in v["ips"])
            kinds |= set(e["kind"] for e in v["ips"])
            if any(e["error"] for e in v["ips"]) or s["full"]:
                bad.append("tid %d: an error > 0 with a table that had room" % tid)
        eq(bad, [], "%s: every guest IP's count, mode and symbol (KASLR %#x) is exact, per kind and reason"
           % (name, KASLR))
        eq([g for g, w in samples], [w for g, w in samples],
           "%s: time samples, exit sites and exits without an IP add up per vCPU" % name)
        eq(modes, {("kernel", inferred), ("user", inferred)},
           "%s: kernel and user mode, %s" % (name, "inferred from the address" if inferred else "exact from the arch"))
        eq(kinds, {"time", "exit"}, "%s: both time samples and exit sites" % name)
        if layout == "x86-6.5" and not opts:
            top_n(dat, exp, j, sym_args)
            folded(dat, exp, sym_args)
            no_symbols(dat, exp)
            explicit_offset(dat, exp, smap)
            bounded(dat, exp)
            text_output(dat, sym_args)


def top_n(dat, exp, j, sym_args):
    """--ip-top N: the N most counted IPs of a VM, with their exact counts."""
    want = {}
    for t in exp["threads"]:
        for e in t["ips"]:
            if e["kind"] == "time":
                want[e["ip"]] = want.get(e["ip"], 0) + e["count"]
    top = sorted(want.items(), key=lambda x: (-x[1], x[0]))[:5]
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "--ip-top", "5"] + sym_args)
    vm = addr_ints(json.loads(out))["vms"][0]
    got = [(e["ip"], e["count"]) for e in vm["ips"] if e["kind"] == "time"]
    eq(got, top, "x86: --ip-top 5 gives the VM's 5 most counted time samples, all vCPUs merged, exactly")
    eq(vm["ip_samples"]["time"], sum(t["ip_samples"]["time"] for t in exp["threads"]),
       "x86: the VM's time samples are its vCPUs' sum")


def parse_folded(out):
    lines = [l for l in out.splitlines() if l]
    rows = []
    for l in lines:
        m = re.match(r"^(.*) (\d+)$", l)
        if not m:
            return None
        rows.append((m.group(1).split(";"), int(m.group(2))))
    return rows


def folded(dat, exp, sym_args):
    """-o folded: vm;vcpu;mode;symbol count, summed by symbol; the counts add up to the samples."""
    th = dict((t["vcpu"], t) for t in exp["threads"])
    for kind, flag in (("time", []), ("exit", ["--ip-kind", "exit"])):
        rc, out, err = run(["-b", "-r", dat, "-o", "folded"] + flag + sym_args)
        rows = parse_folded(out)
        ok(rc == 0 and rows, "folded %s: exit 0 and every line is 'frames count'" % kind, out[:300] + err)
        if not rows:
            continue
        nframes = 4 if kind == "time" else 5
        eq(set(len(f) for f, c in rows), {nframes}, "folded %s: %d frames per line" % (kind, nframes))
        eq(sum(c for f, c in rows), sum(t["ip_samples"][kind] for t in exp["threads"]),
           "folded %s: the counts add up to the %s samples" % (kind, kind))
        want = {}
        for t in exp["threads"]:
            for e in t["ips"]:
                if e["kind"] != kind:
                    continue
                sym = e["sym"].split("+")[0] if e["sym"] else "[unknown]"
                # no --threads: the VM of tid - vCPU id (man page, Recordings)
                key = ("unknown@%d" % (t["tid"] - t["vcpu"]), "vcpu%d" % t["vcpu"], e["mode"], sym)
                want[key] = want.get(key, 0) + e["count"]
        got = {}
        for f, c in rows:
            key = (f[0], f[1], f[2], f[-1])
            got[key] = got.get(key, 0) + c
        eq(got, want, "folded %s: per vCPU, mode and symbol, the generator's counts" % kind)
        if kind == "exit":
            eq(set(f[3] for f, c in rows) >= {"HLT", "APIC_WRITE", "MSR_WRITE"}, True,
               "folded exit: the reason is a frame")


def no_symbols(dat, exp):
    """No symbol file: IPs stay hex; the JSON's sym is null."""
    j = kjson(dat)
    syms = set(e["sym"] for vm, v in vcpus(j).values() for e in v["ips"])
    eq(syms, {None}, "no symbols: every IP's sym is null in JSON")
    rc, out, err = run(["-b", "-r", dat, "-o", "folded"])
    rows = parse_folded(out) or []
    ok(rows and all(re.match(r"^0x[0-9a-f]+$", f[-1]) for f, c in rows),
       "no symbols: folded frames are the IPs in hex", out[:200])


def explicit_offset(dat, exp, smap):
    """--guest-kaslr VM=OFFSET (the VM of a recording without --threads is 'unknown@KEY',
    KEY its threads' tid - vCPU id), and a wrong one."""
    t0 = exp["threads"][0]
    vm = "unknown@%d" % (t0["tid"] - t0["vcpu"])
    j = kjson(dat, "--guest-map", vm + "=" + smap, "--guest-kaslr", "%s=%#x" % (vm, KASLR))
    th = dict((t["tid"], t) for t in exp["threads"])
    same = all(got_ips(v) == want_ips(th[tid], names.name) for tid, (vm, v) in vcpus(j).items())
    ok(same, "--guest-kaslr VM=OFFSET for a VM by name gives the same symbols")
    j = kjson(dat, "--guest-map", smap)
    kernel = [e["sym"] for vm, v in vcpus(j).values() for e in v["ips"] if e["mode"] == "kernel"]
    eq(set(kernel), {"[unknown]"}, "System.map without the KASLR offset: kernel IPs are [unknown], not wrong names")


def bounded(dat, exp):
    """--ip-slots 16: full tables; counts still add up and bracket the truth."""
    j = kjson(dat, "--ip-slots", "16")
    th = dict((t["tid"], t) for t in exp["threads"])
    bad = []
    for tid, (vm, v) in vcpus(j).items():
        truth = dict(((e["kind"], e["ip"]), 0) for e in th[tid]["ips"])
        for e in th[tid]["ips"]:
            truth[(e["kind"], e["ip"])] += e["count"]
        for kind in ("time", "exit"):
            es = [e for e in v["ips"] if e["kind"] == kind]
            if len(es) > 16 or sum(e["count"] for e in es) != v["ip_samples"][kind]:
                bad.append("tid %d %s: %d entries, sum %d" % (tid, kind, len(es), sum(e["count"] for e in es)))
        for e in v["ips"]:
            if e["kind"] != "time":
                continue
            t = truth.get(("time", e["ip"]), 0)
            if not (e["count"] - e["error"] <= t <= e["count"]):
                bad.append("tid %d ip %#x: count %d error %d truth %d" % (tid, e["ip"], e["count"], e["error"], t))
        if not v["ip_samples"]["full"]:
            bad.append("tid %d: not marked full" % tid)
    eq(bad, [], "--ip-slots 16: at most 16 IPs per kind, counts add up, count - error <= truth <= count")
    j = kjson(dat, "--ip-slots", "0")
    eq(set(len(v["ips"]) for vm, v in vcpus(j).values()), {0}, "--ip-slots 0: no IPs kept")


def peak_rss(dat, *args, fmt="json"):
    """kvmtop -b -r dat -o fmt: (its own peak RSS in KiB, the VM's ip_samples in JSON).  GNU time
    measures it: a child of this Python carries Python's resident pages up to its exec, and
    its ru_maxrss keeps them (kvmtop reading a recording in place is smaller than Python)."""
    from tap import kvmtop
    p = subprocess.run(["/usr/bin/time", "-f", "maxrss %M", kvmtop(), "-b", "-r", dat, "-o", fmt,
                        "--ip-top", "3"] + list(args), capture_output=True)
    rss = [int(l.split()[1]) for l in p.stderr.decode().splitlines() if l.startswith("maxrss ")]
    if p.returncode or not rss:
        return 0, None
    return rss[-1], json.loads(p.stdout)["vms"][0]["ip_samples"] if fmt == "json" else {}


def bounded_end_to_end():
    """400,000 exits each at a new guest IP against as many at a few hundred: the same memory."""
    if not os.path.exists("/usr/bin/time"):
        for c in ("400,000 distinct guest IPs: every sample counted, the tables full",
                  "400,000 distinct guest IPs take less than 1 MiB more than a few hundred",
                  "... while --ip-slots 65536 does take more",
                  "CSV keeps neither guest IPs nor recent exits",
                  "-o prometheus keeps neither guest IPs nor recent exits",
                  "JSON keeps no recent exits"):
            skip(c, "GNU time (/usr/bin/time) is not installed: apt-get install time")
        return
    n = "400000"
    uniq, exp_u = gen("unique", "x86-6.5", "-v", "1", "-n", n, "-U")[:2]
    few, exp_f = gen("few", "x86-6.5", "-v", "1", "-n", n)[:2]
    ru, su = peak_rss(uniq)
    rf, sf = peak_rss(few)
    want = exp_u["threads"][0]["ip_samples"]
    eq(su and (su["time"], su["exit"], su["full"]), (want["time"], want["exit"], True),
       "400,000 distinct guest IPs: every sample counted, the tables full")
    ok(su and sf and ru - rf < 1024,
       "400,000 distinct guest IPs take less than 1 MiB more than a few hundred (%d KiB vs %d KiB)" % (ru, rf))
    rb, sb = peak_rss(uniq, "--ip-slots", "65536")
    ok(rb - ru > 2048, "... while --ip-slots 65536 does take more (%d KiB): the measure sees the tables" % rb)
    # what no output shows is not kept: rings (the screen's alone) nowhere in batch mode, IP tables
    # not for CSV or the metrics formats; each 400,000 exits of 48 bytes, 65,536 IPs of 50, kept
    big = ("--ip-slots", "65536", "--ring", "1048576")
    none = ("--ip-slots", "0", "--ring", "0")
    for fmt, asked, zero, what in (
            ("csv", big, none, "CSV keeps neither guest IPs nor recent exits"),
            ("prometheus", big, none, "-o prometheus keeps neither guest IPs nor recent exits"),
            ("json", ("--ring", "1048576"), ("--ring", "0"), "JSON keeps no recent exits")):
        r1 = peak_rss(uniq, *asked, fmt=fmt)[0]
        r0 = peak_rss(uniq, *zero, fmt=fmt)[0]
        ok(r1 and r0 and r1 - r0 < 1024, "%s: as much memory as with none asked (%d KiB vs %d KiB)" % (what, r1, r0))


def text_output(dat, sym_args):
    rc, out, err = run(["-b", "-r", dat, "--ip-top", "3"] + sym_args)
    heads = re.findall(r"guest IPs, (time samples|exit sites) .*: (\d+) since start", out)
    ok(len(heads) == 6, "text: time samples and exit sites for the VM and each vCPU", "\n".join(out.splitlines()[:40]))
    ok(re.search(r"^\s+\d+\s+[\d.]+\s+0 kernel\?\s+0xffffffff9f0\w+ \w+\+0x\w+$", out, re.M) is not None,
       "text: COUNT % ERR MODE GUEST IP SYMBOL rows, the mode marked as inferred", out[:2000])


def real():
    d = os.path.join(traces(), "x86-vmx-ubuntu-6.5")
    files = ["host_k6.5.0-21_2024-02-28_2caa92de_trace", "host_k6.5.0-18_2024-02-27_f7d23c9f_trace"]
    for f in files:
        dat = os.path.join(d, f + ".dat")
        summ = os.path.join(d, "oracle", f + ".summary.txt")
        if not os.path.exists(dat):
            skip("real %s: guest IPs" % f, "../shared/traces is not there")
            continue
        counts = dict((m.group(2), int(m.group(1))) for m in
                      re.finditer(r"^\s+(\d+) ([A-Z_]+)$", open(summ).read().split("## kvm_exit count per CPU")[0], re.M))
        j = kjson(dat)
        # the recording's VMs (guessed, without --threads) together
        samples = [sum(vm["ip_samples"][k] for vm in j["vms"]) for k in ("time", "exit")]
        all_vcpus = [v for vm in j["vms"] for v in vm["vcpus"]]
        async_ = counts.get("PREEMPTION_TIMER", 0) + counts.get("EXTERNAL_INTERRUPT", 0)
        eq(tuple(samples), (async_, sum(counts.values()) - async_),
           "real %s: time samples are the oracle's PREEMPTION_TIMER + EXTERNAL_INTERRUPT exits, "
           "exit sites the rest" % f[:17])
        ips = sorted(set(e["ip"] for v in all_vcpus for e in v["ips"]))
        eq(set(e["sym"] for v in all_vcpus for e in v["ips"]), {None}, "real %s: without symbols, no names" % f[:17])
        rc, out, err = run(["-b", "-r", dat, "--ip-top", "3"])
        ok(re.search(r"kernel\? +0xffffffff[0-9a-f]+ +[A-Z_]+ +-$", out, re.M) is not None,
           "real %s: the text shows the IPs in hex, no symbol" % f[:17])
        # a kallsyms for the kernel addresses the recording holds: a symbol every 256 bytes that holds one
        ks = os.path.join(TMP, "ips-real-%s.kallsyms" % f[:17])
        starts = sorted(set(ip & ~0xff for ip in ips if ip >> 63))
        with open(ks, "w") as fh:
            fh.write("0000000000000000 A fixed_percpu_data\n")
            for i, a in enumerate(starts):
                fh.write("%016x %s guest_fn_%d\n" % (a, "tT"[i % 2], i))
                fh.write("%016x d guest_data_%d\n" % (a + 0x80, i))
        name = dict((a, "guest_fn_%d" % i) for i, a in enumerate(starts))

        def want(ip):
            if not ip >> 63:
                return "[unknown]"
            if ip & 0xff >= 0x80:
                return "[unknown]"	# in the data symbol after the function
            return "%s+%#x" % (name[ip & ~0xff], ip & 0xff)
        j = kjson(dat, "--guest-kallsyms", ks)
        es = [e for vm in j["vms"] for v in vm["vcpus"] for e in v["ips"]]
        bad = [(hex(e["ip"]), e["sym"], want(e["ip"])) for e in es if e["sym"] != want(e["ip"])]
        eq(bad, [], "real %s: with a kallsyms, every kernel IP is its symbol+0xoff" % f[:17])
        ok(any(e["sym"].startswith("guest_fn_") for e in es) and any(e["sym"] == "[unknown]" for e in es),
           "real %s: symbols and [unknown] both seen" % f[:17])
        rc, out, err = run(["-b", "-r", dat, "-o", "folded", "--guest-kallsyms", ks])
        rows = parse_folded(out) or []
        eq(sum(c for fr, c in rows), async_, "real %s: folded time samples add up" % f[:17])
        ok(rows and all(re.match(r"^(guest_fn_\d+|\[unknown\])$", fr[-1]) for fr, c in rows),
           "real %s: folded frames are symbols or [unknown]" % f[:17], out[:300])


def errors():
    """Bad symbol input: one line naming the file (and line), a non-zero exit."""
    dat = os.path.join(TMP, "ips-x86-6.5.dat")
    bad = os.path.join(TMP, "ips-bad.kallsyms")
    with open(bad, "w") as fh:
        fh.write("ffffffff81000000 T _text\nnot a line\n")
    rc, out, err = run(["-b", "-r", dat, "--guest-kallsyms", bad])
    eq((rc, err), (1, "kvmtop: %s:2: not a symbol line 'ADDRESS TYPE NAME' (kallsyms or System.map)\n" % bad),
       "a bad kallsyms line: exit 1 and one line naming file and line")
    with open(bad, "w") as fh:
        fh.write("0000000000000000 T _text\n0000000000000000 t foo\n")
    rc, out, err = run(["-b", "-r", dat, "--guest-kallsyms", bad])
    ok(rc == 1 and "kptr_restrict" in err and err.count("\n") == 1, "a kallsyms copied without root: says why", err)
    rc, out, err = run(["-b", "-r", dat, "--guest-kallsyms", "/nonexistent"])
    eq((rc, err), (1, "kvmtop: /nonexistent: No such file or directory\n"), "a missing symbol file")
    for args, what in ((["--guest-kaslr", "web=0x1000"], "--guest-kaslr without a table"),
                       (["--ip-kind", "sideways"], "an unknown --ip-kind"),
                       (["--ip-slots", "70000"], "--ip-slots over the maximum"),
                       (["-o", "folded", "-d", "1"], "-o folded live with -d but no -n")):
        rc, out, err = run(["-b"] + ([] if "-d" in args else ["-r", dat]) + args)
        ok(rc == 2 and err.count("\n") == 1 and err.startswith("kvmtop: "), "%s: exit 2, one line" % what, err)
    # a path with '=' in it is a path, not VM=FILE
    odd = os.path.join(TMP, "ips-a=b.map")
    with open(odd, "w") as fh:
        fh.write("ffffffff9f000000 T _text\nffffffff9f001000 T native_safe_halt\n")
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "--guest-map", odd])
    ok(rc == 0 and "native_safe_halt+0x" in out, "a symbol file whose path holds '=' is read as a path", err)
    # nothing to fold: said on stderr, not an empty success
    stripped = os.path.join(TMP, "ips-stripped.dat")
    subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-stripped"), "-o", stripped, "-n", "50"], check=True)
    rc, out, err = run(["-b", "-r", stripped, "-o", "folded"])
    ok(rc == 0 and out == "" and "kvmtop: no time samples" in err,
       "folded with no guest IPs: nothing on stdout, one line on stderr says so", err)
    # names from a symbol file are escaped in every output
    with open(bad, "w") as fh:
        fh.write("ffffffff9f000000 T _text\n")
        for i in range(40):
            fh.write("ffffffff9f%03x000 T evil\x1b[31m;fn\x07_%d\n" % (i + 1, i))
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "--guest-kallsyms", bad])
    try:
        json.loads(out)
        good = "\x1b" not in out and "\x07" not in out
    except ValueError:
        good = False
    ok(rc == 0 and good, "JSON: control bytes of symbol names are escaped")
    rc, out, err = run(["-b", "-r", dat, "-o", "folded", "--guest-kallsyms", bad])
    rows = parse_folded(out) or []
    ok(rc == 0 and rows and "\x1b" not in out and all(len(f) == 4 for f, c in rows) and "\\x3bfn" in out,
       "folded: ';' in a symbol name does not split the frame; control bytes escaped", out[:300])
    rc, out, err = run(["-b", "-r", dat, "--guest-kallsyms", bad])
    ok(rc == 0 and "\x1b" not in out and "evil\\x1b[31m;fn\\x07_" in out, "text: control bytes escaped")


def main():
    generated()
    bounded_end_to_end()
    real()
    errors()
    done()


main()
