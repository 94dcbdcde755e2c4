# SPDX-License-Identifier: GPL-2.0
"""Stolen time: while a vCPU thread waits for a CPU, who ran on that CPU instead (stolen_by).

The generator's recordings (tests/gen/kvmgen.c -w -T N) have host tasks hog-0 .. hog-N-1
(tids 500 ..) take the CPUs of waiting vCPU threads, now and then two in turn, and every
sched_switch of them; the truth it writes is worked out from its own event list by the man
page's definition (each switch on a CPU gives the waiters there the time since, to prev), not
with kvmtop's code.  kvmtop's stolen_by must equal it to the nanosecond, add up to the wait time,
keep the largest --thieves N with the rest as "other", and say null where it is not measured.
"""
import json
import os
import re
import shutil
import subprocess

from tap import ok, eq, skip, done, run, kvmgen

TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def gen(name, *args):
    dat = os.path.join(TMP, "steal-%s.dat" % name)
    return dat, kvmgen(dat, "x86-6.5", list(args), expect=dat + ".json")


def summary(dat, *extra):
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"] + list(extra))
    if rc:
        return None, err
    j = json.loads(out)
    return {c["tid"]: c for vm in j["vms"] for c in vm["vcpus"]}, err


def ns(x):
    return round(x * 1e9)


def main():
    # 3 VMs of 2 vCPUs on 6 CPUs, 4 hogs
    dat, exp = gen("hogs", "-m", "3", "-v", "2", "-n", "400", "-C", "6", "-x", "-w", "-T", "4", "-s", "11")
    got, err = summary(dat, "--thieves", "16")
    bad, checked = [], 0
    for t in exp["threads"]:
        c = (got or {}).get(t["tid"])
        want = [(x["tid"], x["ns"]) for x in t["stolen_by"]]
        have = [(x["tid"], ns(x["seconds"])) for x in (c or {}).get("stolen_by") or []]
        if have != want:
            bad.append("tid %d: got %r, want %r" % (t["tid"], have[:6], want[:6]))
        checked += bool(want)
    ok(got and checked == len(exp["threads"]) and not bad,
       "stolen_by of every vCPU thread: each thief's nanoseconds as the generator's truth", "\n".join(bad) or err)

    bad = []
    for t in exp["threads"]:
        c = (got or {}).get(t["tid"]) or {}
        total = sum(ns(x["seconds"]) for x in c.get("stolen_by") or [])
        if abs(total - ns(c.get("time_seconds", {}).get("wait", -1))) > 1:
            bad.append("tid %d: thieves %d ns, wait %r s" % (t["tid"], total, c.get("time_seconds")))
    ok(got and not bad, "the thieves' time adds up to the wait time of each vCPU thread", "\n".join(bad))

    bad = []
    for t in exp["threads"]:
        for x in (got or {}).get(t["tid"], {}).get("stolen_by") or []:
            if 500 <= x["tid"] < 504:
                if (x["comm"], x["vm"], x["vcpu"]) != ("hog-%d" % (x["tid"] - 500), None, None):
                    bad.append(repr(x))
            elif 1000 <= x["tid"]:
                want_vm = "unknown@%d" % (1000 + (x["tid"] - 1000) // 100 * 100)
                if (x["vm"], x["vcpu"], x["comm"]) != (want_vm, (x["tid"] - 1000) % 100,
                                                       "CPU %d/KVM" % ((x["tid"] - 1000) % 100)):
                    bad.append(repr(x))
    ok(got and not bad, "a host thief is its comm (no VM); a vCPU thief its VM and vCPU id", "\n".join(bad[:5]))

    # the table's bound: the two largest, the rest as other
    small, err = summary(dat, "--thieves", "2")
    bad = []
    for t in exp["threads"]:
        c = (small or {}).get(t["tid"]) or {}
        s = c.get("stolen_by") or []
        want = [(x["tid"], x["ns"]) for x in t["stolen_by"]]
        top = [(x["tid"], ns(x["seconds"])) for x in s if x["tid"] is not None]
        other = [ns(x["seconds"]) for x in s if x["tid"] is None and x["comm"] == "other"]
        rest = sum(n for _, n in want[2:])
        if top != want[:2] or (other or [0]) != ([rest] if rest else [0]):
            bad.append("tid %d: %r, want %r + other %d" % (t["tid"], s, want[:2], rest))
    ok(small and not bad, "--thieves 2: the two that took most, the rest as one 'other' row", "\n".join(bad) or err)

    none, err = summary(dat, "--thieves", "0")
    ok(none and all(c["stolen_by"] is None for c in none.values()), "--thieves 0: stolen_by null", err)

    # no sched events: how long it waited is not known, nor who took it
    plain, pexp = gen("nosched", "-m", "1", "-v", "2", "-n", "200", "-C", "2", "-x", "-s", "5")
    nos, err = summary(plain)
    ok(nos and all(c["stolen_by"] is None for c in nos.values()), "without sched events: stolen_by null", err)

    # the opt-in metrics family: the same seconds since the start, a valid document
    rc, out, err = run(["-b", "-r", dat, "-o", "prometheus", "--metrics-stolen", "--thieves", "16"])
    series = {}
    for line in out.splitlines():
        m = re.match(r'^kvmtop_vcpu_stolen_seconds_total\{vm="([^"]*)",pid="\d+",vcpu="(\d+)",thief="([^"]*)",'
                     r'thief_tid="(\d*)",.*\} (\S+)$', line)
        if m:
            tid = 1000 + int(m.group(1).split("@")[1]) - 1000 + int(m.group(2))
            series[(tid, int(m.group(4)))] = ns(float(m.group(5)))
    want = {(t["tid"], x["tid"]): x["ns"] for t in exp["threads"] for x in t["stolen_by"]}
    eq((rc, series), (0, want), "--metrics-stolen: kvmtop_vcpu_stolen_seconds_total per vCPU and thief = the truth")
    promtool = shutil.which("promtool")
    if promtool:
        p = subprocess.run([promtool, "check", "metrics"], input=out.encode(), capture_output=True)
        # promtool's lint says nothing of values: a clean run is a document Prometheus takes
        ok(p.returncode == 0, "--metrics-stolen: promtool check metrics takes the document",
           p.stdout.decode() + p.stderr.decode())
    else:
        skip("--metrics-stolen: promtool", "promtool is not installed (apt-get install prometheus)")
    rc, out, err = run(["-b", "-r", dat, "-o", "prometheus"])
    ok(rc == 0 and "kvmtop_vcpu_stolen" not in out, "without --metrics-stolen: no stolen family (it is opt-in)")

    rc, out, err = run(["-b", "-r", dat, "--summary", "--thieves", "16"])
    lines = [l for l in out.splitlines() if l.strip().startswith("stolen by:")]
    ok(rc == 0 and len(lines) == 6 and all("hog-" in l for l in lines),
       "text: a 'stolen by:' line under each of the 6 vCPU threads, naming the hogs", out[:1200])
    done()


main()
