# SPDX-License-Identifier: GPL-2.0
"""Real recordings (../shared/traces) against two oracles independent of kvmtop.

1. The figures computed by trace-cmd 3.2.0 beside the recordings: per
   kvm_exit reason, exits followed by an entry of the same thread: count,
   total, min, max and average of (entry - exit) in ns, and the exits with
   no entry after them.  kvmtop must give exactly these.
2. Debian's trace-cmd report of the same files (tests/tcreport.py): every
   column of JSON, CSV and text per reason, host, VM and vCPU, percentiles
   within the histogram's 1/64 of the exact nearest-rank values, every
   exit's guest_rip, and each thread's exits and last CPU.

The recordings are zlib-compressed, which libtracecmd reads.  trace-cmd
convert writes each uncompressed (file version 6 and 7), which kvmtop
reads with its own page reader (src/sources/replay_pages.c; a preload refusing
libtracecmd's record loop shows it did): oracle 2 again on those.
"""
import csv
import io
import json
import os
import re
import subprocess

import figures
import tcreport
from tap import ok, eq, skip, done, run, traces, addr_ints

TMP = os.environ.get("KVMTOP_TMP", "/tmp")

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
        got_lat[r["reason"]] = dict(count=l["samples"], total=int(l["sum"]) if l["sum"] is not None else None, min=l["min"],
                                    max=l["max"], avg=round(l["mean"], 1))
    want_lat = {k: dict(v, avg=round(v["avg"], 1)) for k, v in lat.items()}
    eq(got_lat, want_lat, base + ": exit->entry pairs, sum, min, max, mean per reason")
    vcpus = [c for vm in j["vms"] for c in vm["vcpus"]]
    eq(sum(c["unmatched_exits"] for c in vcpus), unmatched, base + ": exits without entry")
    eq(sum(c["exits"] for c in vcpus), nexits, base + ": vCPU exits add up to host exits")
    check_report(base, dat, j)


# the asynchronous VMX exits: their guest IPs are kvmtop's time samples (man page, DEFINITIONS)
ASYNC = {"EXTERNAL_INTERRUPT", "PREEMPTION_TIMER"}


def check_report(base, dat, j, env=None):
    """Every figure of JSON, CSV and text against Debian's trace-cmd report of the same file
    (kvmtop run with env's variables added)."""
    why = tcreport.available()
    if why:
        skip(base + ": figures against trace-cmd report", why)
        return
    o = tcreport.Oracle(dat)
    eq(o.events, j["kvm_events"], base + ": kvm events, as trace-cmd report counts them")
    host = figures.pct_of({(r, "vmx"): f for r, f in o.host_figures().items()})
    threads = {tid: figures.pct_of({(r, "vmx"): f for r, f in o.thread_figures(tid).items()})
               for tid in o.threads}
    # a recording has no thread -> process map: without --threads, a VM is the threads of one
    # tid - vCPU id (man page, Recordings)
    groups = o.vm_groups()
    eq(sorted((vm["pid"], vm["name"], vm["grouped_by"], sorted(c["tid"] for c in vm["vcpus"])) for vm in j["vms"]),
       sorted((k, "unknown@%d" % k, "guess", tids) for k, tids in groups.items()),
       base + ": the VMs of the documented guess, holding every thread trace-cmd reports")
    want = {"host": host}
    want.update({("vm", k): figures.pct_of({(r, "vmx"): f for r, f in o.group_figures(tids).items()})
                 for k, tids in groups.items()})
    vm_of = {tid: k for k, tids in groups.items() for tid in tids}
    want.update({("vcpu", tid): f for tid, f in threads.items()})

    bad = figures.compare_scopes(figures.from_json(j), want, "json")
    ok(not bad, base + ": JSON count, pairs, sum, min, max, p50/p90/p99/p99.9 per reason, host/VM/vCPU",
       "\n".join(bad))
    vcpus = {c["tid"]: c for vm in j["vms"] for c in vm["vcpus"]}
    eq({t: (c["exits"], c["unmatched_exits"], c["unmatched_entries"], c["last_cpu"], c["comm"])
        for t, c in vcpus.items()},
       {t: (th["exits"], th["unmatched_exits"], th["unmatched_entries"], th["last_cpu"], th["comm"])
        for t, th in o.threads.items()},
       base + ": per thread: exits, unmatched exits and entries, last CPU, name")

    # the summary spans the first kvm event to the last: seconds and rates per second of it
    secs = (o.last - o.first) / 1e9
    rates = [("host", j["host"]["exits_per_s"], sum(th["exits"] for th in o.threads.values()))]
    rates += [("tid %d" % t, c["exits_per_s"], o.threads[t]["exits"]) for t, c in vcpus.items()]
    bad = ["%s: %r/s, want %.3f" % (w, got_r, n / secs) for w, got_r, n in rates if abs(got_r - n / secs) > 0.0005]
    ok(abs(j["seconds"] - secs) < 1e-9 and (int(j["start"]), int(j["end"])) == (o.first, o.last) and not bad,
       base + ": start, end, seconds (%.6f) and exits per second of host and vCPUs" % secs,
       "seconds %r\n%s" % (j["seconds"], "\n".join(bad)))

    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "csv"], env=env)
    eq(rc, 0, base + ": csv exit status 0")
    got, rows = figures.from_csv(out)
    bad = figures.compare_scopes(got, {("vcpu", tid): w for tid, w in threads.items()}, "csv")
    bad += ["row %r: vm/vcpu columns" % r for r in rows
            if (r["vm_pid"], r["vm_name"], r["vcpu"], r["vcpu_comm"]) !=
            (str(vm_of[int(r["vcpu_tid"])]), "unknown@%d" % vm_of[int(r["vcpu_tid"])],
             str(vcpus[int(r["vcpu_tid"])]["vcpu"]), o.threads[int(r["vcpu_tid"])]["comm"])]
    ok(rows and not bad, base + ": CSV, every column of every (vCPU, reason) row", "\n".join(bad))

    rc, out, err = run(["-b", "-r", dat, "--summary"], env=env)
    eq(rc, 0, base + ": text exit status 0")
    snaps = figures.from_text(out)
    bad = [] if len(snaps) == 1 else ["%d snapshots" % len(snaps)]
    bad += figures.compare_scopes(snaps[0] if snaps else {}, want, "text", skip=("host",),
                                unprinted=figures.TEXT_UNPRINTED)
    ok(snaps and not bad, base + ": text, every column of the VM's and each vCPU's table", "\n".join(bad))

    # guest IPs, every one counted (tables larger than the recording's distinct IPs)
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json", "--ip-slots", "65536",
                        "--ip-top", "1000000"], env=env)
    jj = addr_ints(json.loads(out))
    got_exit, got_time, want_exit, want_time = {}, {}, {}, {}
    for c in (c for vm in jj["vms"] for c in vm["vcpus"]):
        for ip in c["ips"]:
            if ip["kind"] == "exit":
                got_exit[(c["tid"], ip["reason"], ip["ip"])] = ip["count"]
            else:
                k = (c["tid"], ip["ip"])
                got_time[k] = got_time.get(k, 0) + ip["count"]
    for (tid, reason, rip), n in o.rips.items():
        if reason in ASYNC:
            want_time[(tid, rip)] = want_time.get((tid, rip), 0) + n
        else:
            want_exit[(tid, reason, rip)] = n
    ok(got_exit == want_exit and want_exit, base + ": guest_rip of every synchronous exit, per vCPU and reason",
       "got %d, want %d; differ: %r" % (len(got_exit), len(want_exit),
                                        sorted(set(got_exit.items()) ^ set(want_exit.items()))[:5]))
    ok(got_time == want_time and want_time, base + ": guest_rip of every asynchronous exit, per vCPU (time samples)",
       "differ: %r" % sorted(set(got_time.items()) ^ set(want_time.items()))[:5])


def check_in_place(base, d, version):
    """The recording uncompressed, as file version `version`: read by kvmtop's page reader,
    every figure against trace-cmd report of the uncompressed file."""
    name = "%s (uncompressed v%d, read in place)" % (base, version)
    why = tcreport.available()
    if why:
        skip(name + ": figures against trace-cmd report", why)
        return
    dat = os.path.join(TMP, "%s-v%d.dat" % (base, version))
    p = subprocess.run(["trace-cmd", "convert", "--file-version", str(version), "--compression", "none",
                        "-i", os.path.join(d, base + ".dat"), "-o", dat], capture_output=True,
                       env=dict(os.environ, LD_PRELOAD=os.environ["TC_ZLIB"]), timeout=300)
    if not eq(p.returncode, 0, name + ": trace-cmd convert writes it"):
        print("# " + p.stderr.decode("utf-8", "replace")[-300:])
        return
    env = {"LD_PRELOAD": os.environ["NOITERATE_SO"]}
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"], env=env)
    if not eq(rc, 0, name + ": read without libtracecmd's record loop"):
        print("# " + err)
        return
    j = json.loads(out)
    eq((j["clock"], j["time_unit"]), ("tsc2nsec", "ns"), name + ": TSC counts converted to ns")
    check_report(name, dat, j, env=env)
    os.unlink(dat)


def main():
    d = os.path.join(traces(), "x86-vmx-ubuntu-6.5")
    if not os.path.isdir(d):
        skip("real recordings vs oracle", "../shared/traces not found (KVMTOP_TRACES=%s)" % traces())
        done()
    for base in FILES:
        check_file(base, d)
    # the preload does refuse libtracecmd's loop: a compressed recording cannot be read under it
    rc, out, err = run(["-b", "-r", os.path.join(d, FILES[0] + ".dat"), "--summary"],
                       env={"LD_PRELOAD": os.environ["NOITERATE_SO"]})
    ok(rc == 97 and "record loop was called" in err, "the noiterate preload ends a read by libtracecmd", err)
    check_in_place(FILES[0], d, 7)
    check_in_place(FILES[1], d, 6)

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
