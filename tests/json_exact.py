# SPDX-License-Identifier: GPL-2.0
"""JSON that a reader keeping numbers as doubles reads exactly.

jq, JavaScript and most JSON libraries hold a number as a double: 53
bits.  A guest IP such as 0xffffffff9f007008 written as the integer
18446744072082190344 comes back as another address.  kvmtop's JSON
(outputs/json_writer.c) writes every address and 64-bit identifier -- a
guest IP (ips[].ip, an object's sites[].ip and site) and an object's
value -- as a "0x..." string, every 64-bit figure that can pass 2^53 in a
year of running -- the snapshot's start and end (the source's clock) and the
sums of times -- as a decimal string, and null where a figure has no value.

Each line of `kvmtop -b -o json` of the sample recording and of
recordings tests/kvmgen writes is parsed by Python's json module as such
a reader would (parse_int=float, no NaN or Infinity, a key twice in an
object refused); then:

- every guest IP is trace-cmd report's rip of the same exits (the sample:
  tests/tcreport.py), or the generator's truth (its -e file), per vCPU
  thread, with its count; an object's value and sites are those of the
  events the test wrote itself (an MMIO page past 2^53 among them);
- no value is "" or -1, and an object without a value, a vCPU whose index
  is not known, a reason without flags and a VM whose exits are known say
  null;
- jq, where installed, reads the same addresses;
- a recording whose clock starts past 2^53 ns, with HLT latencies summed past
  it: start, end and each sum, read as doubles, are the events' times and
  their latencies summed to the nanosecond (CSV and jq the same).
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess

import tcreport
from tap import ok, eq, skip, done, run, kvmgen, kvmtop

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
# the build tree: make builds the sample recording there
BUILD = os.path.dirname(kvmtop())
SAMPLE = os.path.join(BUILD, "sample", "kvmtop-sample.dat")
HEX = re.compile(r"0x[0-9a-f]+")
ADDR_KEYS = ("ip", "value", "site")
# kvm_stats_info's unit of a count is "" (kvmtop(1)): a value, not a missing one
EMPTY_OK = {"unit"}


def no_twice(pairs):
    """object_pairs_hook: an object with a key twice is malformed (a doubled member)."""
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key twice in one object: %r" % keys)
    return dict(pairs)


def no_constant(name):
    raise ValueError("%s is not JSON" % name)


def as_double_reader(line):
    """line parsed as jq would: every number a double; a malformed line raises ValueError."""
    return json.loads(line, parse_int=float, parse_constant=no_constant, object_pairs_hook=no_twice)


def lines_of(args, cwd=None):
    """kvmtop -b -o json args: (its lines parsed as a double-based reader does, what went wrong)."""
    rc, out, err = run(["-b", "-o", "json"] + args)
    if rc or not out:
        return [], "kvmtop %s: status %d: %s" % (" ".join(args), rc, err)
    docs, bad = [], []
    for i, line in enumerate(out.splitlines()):
        try:
            docs.append(as_double_reader(line))
        except ValueError as e:
            bad.append("line %d: %s: %s" % (i + 1, e, line[:200]))
    return docs, "\n".join(bad)


def walk(doc, path=""):
    """Every (path, key, value) under doc; a list's items have key None."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield path, k, v
            yield from walk(v, path + "." + k)
    elif isinstance(doc, list):
        for v in doc:
            yield path, None, v
            yield from walk(v, path + "[]")


def addr_errors(docs):
    """Each address key's value that is not a "0x..." string (null where it has none)."""
    return ["%s.%s = %r" % (p, k, v) for d in docs for p, k, v in walk(d)
            if k in ADDR_KEYS and not isinstance(v, (dict, list)) and v is not None
            and not (isinstance(v, str) and HEX.fullmatch(v))]


def null_errors(docs):
    """Each value that stands for no value but is not null: "" or -1."""
    return ["%s.%s = %r" % (p, k, v) for d in docs for p, k, v in walk(d)
            if (v == "" and k not in EMPTY_OK) or (isinstance(v, float) and v == -1.0)]


def vcpus(doc):
    return [(vm, c) for vm in doc["vms"] for c in vm["vcpus"]]


def ips_of(doc):
    """{(tid, kind, reason, ip): count} of every vCPU's guest IPs."""
    out = {}
    for _, c in vcpus(doc):
        for e in c["ips"]:
            k = (int(c["tid"]), e["kind"], e.get("reason"), int(e["ip"], 16))
            out[k] = out.get(k, 0) + int(e["count"])
    return out


def sample_case():
    """The sample recording: summary and intervals; its guest IPs against trace-cmd report."""
    if not os.path.exists(SAMPLE):
        skip("sample: guest IPs as trace-cmd report's rips", "no %s (make builds it)" % SAMPLE)
        return
    args = ["-r", SAMPLE, "--ip-slots", "65536", "--ip-top", "1000000"]
    summary, why = lines_of(args + ["--summary"])
    ok(len(summary) == 1 and not why, "sample: the summary is one JSON line, well formed "
       "(numbers as doubles, no key twice, no NaN)", why)
    intervals, why = lines_of(args + ["-d", "0.1"])
    ok(len(intervals) > 5 and not why, "sample: each of its %d snapshots of 0.1 s is a JSON line, well formed"
       % len(intervals), why)
    docs = summary + intervals
    eq(addr_errors(docs), [], "sample: every guest IP, site and object value is a \"0x...\" string")
    eq(null_errors(docs), [], "sample: no value is \"\" or -1 (null where there is none)")
    big = [v for d in summary for p, k, v in walk(d) if k == "ip" and int(v, 16) >= 2 ** 53]
    ok(len(big) > 100, "sample: %d guest IPs above 2^53, the addresses a double would round" % len(big))
    if summary:
        jq_case("sample", summary[0], args + ["--summary"])
    why = tcreport.available()
    if why or not summary:
        skip("sample: every guest IP read as a double is trace-cmd report's rip", why or "no summary")
        return
    o = tcreport.Oracle(SAMPLE)
    # by thread and rip (trace-cmd's plugin names some reasons otherwise than the kernel)
    want, got = {}, {}
    for (tid, _, rip), n in o.rips.items():
        want[(tid, rip)] = want.get((tid, rip), 0) + n
    for (tid, _, _, ip), n in ips_of(summary[0]).items():
        got[(tid, ip)] = got.get((tid, ip), 0) + n
    ok(got == want and want, "sample: every guest IP read as a double is trace-cmd report's rip of the same "
       "exits, per vCPU thread, with its count (%d IPs)" % len(want),
       "differ: %r" % sorted(set(got.items()) ^ set(want.items()))[:5])
    rips = {(tid, rip) for (tid, _, rip) in o.rips}
    sites = [(c["tid"], s["ip"]) for _, c in vcpus(summary[0]) for r in c["reasons"] for ob in r["objects"]
             for s in ob["sites"]]
    eq([s for s in sites if (int(s[0]), int(s[1], 16)) not in rips], [],
       "sample: every object's site of a vCPU is a rip of its thread in trace-cmd report (%d sites)" % len(sites))


def jq_case(name, doc, args):
    """jq reads the same addresses as Python did (its own reader: doubles)."""
    if not shutil.which("jq"):
        skip("%s: jq reads the same addresses" % name, "jq not installed (apt-get install jq)")
        return
    rc, out, err = run(["-b", "-o", "json"] + args)
    p = subprocess.run(["jq", "-r", '.. | objects | (.ip?, .value?, .site?) | select(type == "string")'],
                       input=out.encode(), capture_output=True, timeout=120)
    got = sorted(p.stdout.decode().split())
    want = sorted(v for _, k, v in walk(doc) if k in ADDR_KEYS and isinstance(v, str))
    ok(p.returncode == 0 and got == want and want, "%s: jq reads the same %d addresses, each a \"0x...\" string"
       % (name, len(want)), p.stderr.decode()[:500])


# layout, kvmgen options: guest IPs past 2^53 (kernel addresses, KASLR-shifted)
GENERATED = [("x86-6.5", ["-O", "-x"]), ("arm64-6.9", ["-O"]), ("loongarch", []), ("x86-6.5", ["-i", "svm"])]


def generated_case(layout, opts):
    """A generated recording: every guest IP and its count is the generator's truth."""
    name = "json-exact-" + layout + "".join(opts)
    dat = os.path.join(TMP, name + ".dat")
    exp = kvmgen(dat, layout, ["-K", "0x1e000000", "-v", "2", "-n", "1500"] + opts, expect=dat + ".json")
    args = ["-r", dat, "--ip-slots", "65536", "--ip-top", "1000000"]
    docs, why = lines_of(args + ["--summary"])
    ok(len(docs) == 1 and not why, "%s: one JSON line, well formed" % name, why)
    if not docs:
        return
    eq(addr_errors(docs) + null_errors(docs), [],
       "%s: addresses are \"0x...\" strings, no value is \"\" or -1" % name)
    want = {}
    for t in exp["threads"]:
        for e in t["ips"]:
            k = (t["tid"], e["kind"], e["ip"])
            want[k] = want.get(k, 0) + e["count"]
    got = {}
    for (tid, kind, _, ip), n in ips_of(docs[0]).items():
        got[(tid, kind, ip)] = got.get((tid, kind, ip), 0) + n
    ok(got == want and any(k[2] >= 2 ** 53 for k in want),
       "%s: every guest IP read as a double is the generator's, with its count (%d IPs)" % (name, len(want)),
       "differ: %r" % sorted(set(got.items()) ^ set(want.items()))[:5])


def script_docs(name, layout, lines):
    """A recording of the events lines (kvmgen -S) and its --summary JSON read as doubles:
    (the recording, its documents); one well-formed line is a check of its own."""
    script = os.path.join(TMP, "json-exact-%s.txt" % name)
    dat = os.path.join(TMP, "json-exact-%s.dat" % name)
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    kvmgen(dat, layout, ["-S", script])
    docs, why = lines_of(["-r", dat, "--summary"])
    ok(len(docs) == 1 and not why, "%s: one JSON line, well formed" % name, why)
    return dat, docs


# The objects the test writes itself: (guest rip, MMIO gpa) of each exit (x86-objects: EPT_MISCONFIG
# and kvm_mmio); a page past 2^53 (absurd, shown as a number) and ones a double keeps
OBJ_EXITS = [(0xffffffff81000000, 0xfffffffffffff008), (0xffffffff81000010, 0xfffffffffffff008),
             (0xffffffff81000008, 0xfee000b0), (0xffffffff81000000, 0xfffffffffffff100),
             (0x7ffff7a3c123, 0x7ffffffffffff000), (0xffffffff81000018, 0xfed000f0)]


def objects_case():
    """Objects of events the test wrote: each object's value and sites are the events'."""
    lines, t, want = ["comm 1001 CPU 0/KVM"], 1000000, {}
    for rip, gpa in OBJ_EXITS:
        gpa &= 2 ** 64 - 1
        lines.append("%d 0 1001 exit exit_reason=49 isa=1 vcpu_id=0 guest_rip=%d" % (t, rip))
        lines.append("%d 0 1001 mmio type=2 len=4 gpa=%d" % (t + 10, gpa))
        lines.append("%d 0 1001 entry vcpu_id=0" % (t + 2000))
        sites = want.setdefault(gpa & ~0xfff, {})
        sites[rip] = sites.get(rip, 0) + 1
        t += 10000
    dat, docs = script_docs("objects", "x86-objects", lines)
    if not docs:
        return
    eq(addr_errors(docs) + null_errors(docs), [], "objects: addresses are \"0x...\" strings, no \"\" or -1")
    got, tops = {}, {}
    for _, c in vcpus(docs[0]):
        for r in c["reasons"]:
            for o in r["objects"]:
                got[int(o["value"], 16)] = {int(s["ip"], 16): int(s["count"]) for s in o["sites"]}
                tops[int(o["value"], 16)] = int(o["site"], 16)
    ok(got == want and max(want) >= 2 ** 53,
       "objects: each MMIO page's value and its sites' guest IPs, read as doubles, are the events' "
       "(a page past 2^53 among them)", "got %r\nwant %r" % (got, want))
    eq(tops, {v: max(s, key=lambda ip: (s[ip], -ip)) for v, s in want.items()},
       "objects: each object's site is its most frequent guest IP")
    jq_case("objects", docs[0], ["-r", dat, "--summary"])
    # a table of 2 objects: the others' row has no object and no value
    docs, why = lines_of(["-r", dat, "--summary", "--objects", "2"])
    rest = [o for d in docs for _, c in vcpus(d) for r in c["reasons"] for o in r["objects"] if o["kind"] == "other"]
    eq([(o["object"], o["value"], o["name"]) for o in rest], [(None, None, "other objects")],
       "objects: the others' row (--objects 2) has object and value null")
    eq(null_errors(docs), [], "objects: with the others' row, no value is \"\" or -1")


# A host up long: a clock past 2^53 ns (104 days), HLT exits whose latencies sum past it (an idle
# 8-vCPU VM's in two weeks): each odd, so a double rounds them
BIG_T0, BIG_LAT, BIG_EXITS = 2 ** 53 + 1, 2 ** 52 + 1, 3
# the 64-bit figures that can pass 2^53 (kvmtop(1), json): the snapshot's clock, the sums of times
BIG_KEYS = ("start", "end", "sum")


def big_strings(doc):
    """Every start, end and sum of doc: each a decimal string (null where a sum has no samples)."""
    return [(p, k, v) for p, k, v in walk(doc) if k in BIG_KEYS and v is not None]


def big_case():
    """A clock past 2^53 and latencies summed past it: decimal strings a double reader keeps."""
    lines, t, times = ["comm 1001 CPU 0/KVM"], BIG_T0, []
    for _ in range(BIG_EXITS):
        lines.append("%d 0 1001 exit exit_reason=12 isa=1 vcpu_id=0 guest_rip=%d" % (t, 0xffffffff81000000))
        lines.append("%d 0 1001 entry vcpu_id=0" % (t + BIG_LAT))
        times += [t, t + BIG_LAT]
        t += BIG_LAT + 1001
    dat, docs = script_docs("big", "x86-objects", lines)
    if not docs:
        return
    d = docs[0]
    bad = [(p, k, v) for p, k, v in big_strings(d) if not (isinstance(v, str) and v.isdigit())]
    eq(bad, [], "big: start, end and every sum are decimal strings, null where there is none")
    sums = [int(r["latency"]["sum"]) for s in [d["host"]] + d["vms"] + [c for _, c in vcpus(d)]
            for r in s["reasons"]]
    want = BIG_EXITS * BIG_LAT
    ok((int(d["start"]), int(d["end"])) == (times[0], times[-1]) and sums == [want] * 3
       and float(want) != want and float(times[-1]) != times[-1],
       "big: read as doubles, start and end are the first and last event's times and each scope's "
       "latency.sum the exits' latencies summed, exactly (past 2^53, where a number would be rounded)",
       "start %r end %r sums %r, want %r %r %r" % (d["start"], d["end"], sums, times[0], times[-1], want))
    rc, out, err = run(["-b", "-o", "csv", "-r", dat, "--summary", "--fields", "start,end,latency_sum"])
    eq(list(csv.DictReader(io.StringIO(out))), [{"start": str(times[0]), "end": str(times[-1]),
                                                  "latency_sum": str(want)}],
       "big: CSV writes the same figures as numbers")
    if not shutil.which("jq"):
        skip("big: jq reads the same start, end and sums", "jq not installed (apt-get install jq)")
        return
    rc, out, err = run(["-b", "-o", "json", "-r", dat, "--summary"])
    p = subprocess.run(["jq", "-r", '.start, .end, (.. | objects | .sum? | select(. != null))'],
                       input=out.encode(), capture_output=True, timeout=120)
    eq(p.stdout.decode().split(), [d["start"], d["end"]] + [str(want)] * 3,
       "big: jq reads the same start, end and sums, to the nanosecond")


def nulls_case():
    """A thread with no vCPU index, reasons without flags, an object row without a value: null."""
    # arm64: kvm_exit has no vCPU field, and "worker" is no QEMU vCPU name: its index is not known
    lines = ["comm 768 worker"]
    for i in range(3):
        lines.append("%d 2 768 exit ret=1 esr_ec=36 vcpu_pc=%d" % (1000000 + 10000 * i, 0xffff800090178000 + 4 * i))
        lines.append("%d 2 768 entry vcpu_pc=%d" % (1002000 + 10000 * i, 0xffff800090178000 + 4 * i + 4))
    dat, docs = script_docs("nulls", "arm64-objects", lines)
    if not docs:
        return
    eq(null_errors(docs), [], "nulls: no value is \"\" or -1")
    vm, c = vcpus(docs[0])[0]
    eq((c["tid"], c["comm"], c["vcpu"], c["last_cpu"]), (768.0, "worker", None, 2.0),
       "nulls: a thread whose vCPU index is not known has vcpu null, its last CPU a number")
    eq((vm["exits_unknown"], [r["flags"] for r in vm["reasons"]]), (None, [None]),
       "nulls: a recording's VM (its exits known) has exits_unknown null, a reason without flags null")
    rc, out, err = run(["-b", "-o", "csv", "-r", dat, "--summary", "--fields", "vcpu_tid,vcpu,vcpu_last_cpu,flags"])
    rows = list(csv.DictReader(io.StringIO(out)))
    eq([(r["vcpu_tid"], r["vcpu"], r["vcpu_last_cpu"], r["flags"]) for r in rows], [("768", "", "2", "")],
       "nulls: CSV leaves the same cells empty (vcpu, flags), the last CPU a number")


def main():
    sample_case()
    for layout, opts in GENERATED:
        generated_case(layout, opts)
    objects_case()
    big_case()
    nulls_case()
    done()


if __name__ == "__main__":
    main()
