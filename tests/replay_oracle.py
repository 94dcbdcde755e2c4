# SPDX-License-Identifier: GPL-2.0
"""Real recordings (../shared/traces) against figures computed by trace-cmd 3.2.0.

The oracle lists, per kvm_exit reason, exits followed by an entry of the
same thread: count, total, min, max and average of (entry - exit) in ns,
and the exits with no entry after them.  kvmtop must give exactly these.
"""
import csv
import io
import json
import os
import re

from tap import ok, eq, skip, done, run, traces

FILES = [
    "host_k6.5.0-18_2024-02-27_f7d23c9f_trace",
    "host_k6.5.0-21_2024-02-28_2caa92de_trace",
]


def read_latency_oracle(path):
    rows, unmatched, exits = {}, None, None
    for line in open(path):
        m = re.search(r"kvm_exit=(\d+) .*exits_without_entry=(\d+)", line)
        if m:
            exits, unmatched = int(m.group(1)), int(m.group(2))
            continue
        f = line.split()
        if len(f) == 6 and f[1].isdigit():
            rows[f[0]] = dict(count=int(f[1]), total=int(f[2]), min=int(f[3]),
                              max=int(f[4]), avg=float(f[5]))
    return rows, unmatched, exits


def read_reason_counts(path):
    counts, section = {}, None
    for line in open(path):
        if line.startswith("## "):
            section = line
            continue
        if section and "reason counts" in section:
            f = line.split()
            if len(f) == 2:
                counts[f[1]] = int(f[0])
    return counts


def check_file(base, d):
    dat = os.path.join(d, base + ".dat")
    lat, unmatched, nexits = read_latency_oracle(os.path.join(d, "oracle", base + ".exit-latency.txt"))
    counts = read_reason_counts(os.path.join(d, "oracle", base + ".summary.txt"))

    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    if not eq(rc, 0, base + ": json exit status 0"):
        print("# " + err)
        return
    lines = out.splitlines()
    eq(len(lines), 1, base + ": --summary prints one JSON line")
    j = json.loads(lines[0])
    eq((j["source"], j["clock"], j["time_unit"], j["lost_events"]),
       ("replay", "tsc2nsec", "ns", 0), base + ": source, clock, unit, lost events")
    eq(j["host"]["exits"], nexits, base + ": host exits")
    got_counts = {r["reason"]: r["count"] for r in j["host"]["reasons"]}
    eq(got_counts, counts, base + ": exit count per reason")
    eq({r["reason"]: r["total"] for r in j["host"]["reasons"]}, counts,
       base + ": with --summary, total equals count")
    got_lat = {}
    for r in j["host"]["reasons"]:
        l = r["latency"]
        got_lat[r["reason"]] = dict(count=l["samples"], total=l["sum"], min=l["min"],
                                    max=l["max"], avg=round(l["mean"], 1))
    want_lat = {k: dict(v, avg=round(v["avg"], 1)) for k, v in lat.items()}
    eq(got_lat, want_lat, base + ": exit->entry pairs, sum, min, max, mean per reason")
    vcpus = [c for vm in j["vms"] for c in vm["vcpus"]]
    eq(sum(c["unmatched_exits"] for c in vcpus), unmatched, base + ": exits without entry")
    eq(sum(c["exits"] for c in vcpus), nexits, base + ": vCPU exits add up to host exits")
    for r in j["host"]["reasons"]:
        l = r["latency"]
        if l["samples"]:
            ok(l["min"] <= l["p50"] <= l["p90"] <= l["p99"] <= l["p999"] <= l["max"],
               base + ": %s percentiles ordered" % r["reason"])
            break

    # CSV: one row per (vm, vcpu, reason), the same figures as the JSON vCPUs.
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "csv"])
    eq(rc, 0, base + ": csv exit status 0")
    rows = list(csv.DictReader(io.StringIO(out)))
    want = {}
    for vm in j["vms"]:
        for c in vm["vcpus"]:
            for r in c["reasons"]:
                l = r["latency"]
                want[(c["tid"], r["reason"])] = (r["count"], l["samples"], l["min"], l["max"], l["sum"])
    got = {(int(r["tid"]), r["reason"]): (int(r["count"]), int(r["samples"]), int(r["min"]),
                                         int(r["max"]), int(r["sum"])) for r in rows}
    eq(got, want, base + ": CSV rows agree with JSON")

    # Text: every reason of the host with its count.
    rc, out, err = run(["-b", "-r", dat, "--summary"])
    eq(rc, 0, base + ": text exit status 0")
    text_counts = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 4 and f[1] == "vmx" and f[0] in counts and f[0] not in text_counts:
            text_counts[f[0]] = int(f[2])
    eq(text_counts, counts, base + ": text table agrees with JSON")


def main():
    d = os.path.join(traces(), "x86-vmx-ubuntu-6.5")
    if not os.path.isdir(d):
        skip("real recordings vs oracle", "../shared/traces not found (KVMTOP_TRACES=%s)" % traces())
        done()
    for base in FILES:
        check_file(base, d)

    # A v6 file with no event data: an honest empty report.
    rc, out, err = run(["-b", "-r", os.path.join(d, "host_EMPTY_v6_cbe6e513_trace.dat"), "-o", "json"])
    eq(rc, 0, "empty v6 recording: exit status 0")
    j = json.loads(out)
    eq((j["host"]["exits"], j["vms"]), (0, []), "empty v6 recording: no exits, no VMs")
    ok("no KVM events" in err, "empty v6 recording: says it has no KVM events", err)

    # The guest-side recording has 90k events, none of them KVM's.
    rc, out, err = run(["-b", "-r", os.path.join(d, "guest_k5.15.94_2024-03-04_e0b449cf_trace-Salamander4.dat"),
                        "-o", "json"])
    eq(rc, 0, "guest recording: exit status 0")
    j = json.loads(out)
    eq((j["host"]["exits"], j["kvm_events"], j["time_unit"]), (0, 0, "ns"),
       "guest recording: no KVM events, tsc2nsec clock in ns")
    done()


main()
