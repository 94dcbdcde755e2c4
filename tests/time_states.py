# SPDX-License-Identifier: GPL-2.0
"""Where each vCPU's time goes (issue #15): recordings with KVM and sched
events whose truth the generator knows.

tests/kvmgen -w puts sched_switch and sched_waking of the vCPU threads
inside exits (an exit that waits sleeps, is woken and waits for its CPU;
one exit in four is preempted) and, from its own final event list, gives
each thread's time in each state (guest, host, vmm, halt, wait) for the
whole recording and per interval, and each reason's split of its exits
(time on a CPU, preempted, blocked).  kvmtop's JSON and CSV must equal
it to the nanosecond; the five states of every thread add up to the
snapshot's length.  Without sched events the states they measure are
absent, never zero; a recording of sched events only, or of threads
kvmtop does not know, is read without a vCPU made up for them.
"""
import csv
import io
import json
import os
import subprocess

from tap import ok, done, run, kvmgen

GEN = os.environ["KVMGEN"]
FORMATS = os.environ["KVMTOP_FORMATS"]
TMP = os.environ.get("KVMTOP_TMP", "/tmp")
STATES = ("guest", "host", "vmm", "halt", "wait")
PCTL = ("p50", "p90", "p99", "p999")


def gen(name, *args, layout="x86-6.5"):
    out = os.path.join(TMP, "time-%s.dat" % name)
    return out, kvmgen(out, layout, args, expect=os.path.join(TMP, "time-%s.expect.json" % name), timeout=300)


def ns(secs):
    return round(secs * 1e9)


def vcpus(j):
    return {c["tid"]: c for vm in j["vms"] for c in vm["vcpus"]}


def check_states(what, got, want, length):
    """got: {tid: JSON vCPU}; want: {tid: {state: ns}}; each thread's states sum to length."""
    bad = []
    for tid, w in sorted(want.items()):
        c = got.get(tid)
        if c is None:
            bad.append("tid %d: missing" % tid)
            continue
        g = {k: ns(v) for k, v in c.get("time_seconds", {}).items()}
        if g != w:
            bad.append("tid %d: got %s\n  want %s" % (tid, g, w))
        if sum(g.values()) != length:
            bad.append("tid %d: states add up to %d ns, the snapshot is %d" % (tid, sum(g.values()), length))
        if c.get("time_source") != {k: "trace" for k in STATES}:
            bad.append("tid %d: time_source %s" % (tid, c.get("time_source")))
    ok(not bad, what, "\n".join(bad))


def check_split(what, got, want_threads):
    """Each reason's handling figures, preempted_seconds and blocked_seconds against the truth."""
    bad = []
    for t in want_threads:
        c = got.get(t["tid"])
        rs = {r["code"]: r for r in (c or {}).get("reasons", [])}
        for w in t["reasons"]:
            r = rs.get(w["code"])
            if r is None or "handling" not in r:
                bad.append("tid %d code %d: no handling in %s" % (t["tid"], w["code"], r))
                continue
            h, wh = r["handling"], w["handling"]
            for k in ("samples", "sum", "min", "max"):
                if (int(h[k]) if k == "sum" else h[k]) != wh[k]:
                    bad.append("tid %d code %d: handling %s %s, want %s" % (t["tid"], w["code"], k, h[k], wh[k]))
            for k in PCTL:
                # the histogram's bucket: within 1/64 of the exact nearest rank
                if abs(h[k] - wh[k]) > wh[k] / 64 + 1:
                    bad.append("tid %d code %d: handling %s %s, want %s" % (t["tid"], w["code"], k, h[k], wh[k]))
            for k, wk in (("preempted_seconds", "preempted"), ("blocked_seconds", "blocked")):
                if ns(r[k]) != w[wk]:
                    bad.append("tid %d code %d: %s %s, want %d ns" % (t["tid"], w["code"], k, r[k], w[wk]))
            # sums are decimal strings in JSON (they can pass 2^53)
            if int(h["sum"]) + ns(r["preempted_seconds"]) + ns(r["blocked_seconds"]) != int(r["latency"]["sum"]):
                bad.append("tid %d code %d: handling + preempted + blocked != latency sum" % (t["tid"], w["code"]))
    ok(not bad, what, "\n".join(bad[:20]))


def main():
    # 1. The whole recording: 2 VMs of 3 vCPUs, port I/O through user space.
    dat, exp = gen("sum", "-m", "2", "-v", "3", "-n", "400", "-C", "2", "-x", "-w", "-s", "5")
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    j = json.loads(out) if rc == 0 else {"vms": [], "start": 0, "end": 0}
    length = int(j["end"]) - int(j["start"])
    want = {t["tid"]: t["time"] for t in exp["threads"]}
    check_states("--summary: every vCPU's guest, host, vmm, halt and wait equal the truth to the ns "
                 "and add up to the recording", vcpus(j), want, length)
    ok(all(sum(t["time"].values()) == length for t in exp["threads"]) and
       all(t["time"][s] > 0 for t in exp["threads"] for s in STATES),
       "... the truth itself covers the recording, with time in every state")
    check_split("--summary: each reason's handling (samples, sum, min, max, p50..p99.9), preempted_seconds and "
                "blocked_seconds per vCPU equal the truth", vcpus(j), exp["threads"])
    bad = []
    for vm in j["vms"]:
        t = vm.get("threads", {}).get("vcpu", {})
        run_ns = sum(ns(c["time_seconds"][s]) for c in vm["vcpus"] for s in ("guest", "host", "vmm"))
        wait_ns = sum(ns(c["time_seconds"]["wait"]) for c in vm["vcpus"])
        if t.get("count") != len(vm["vcpus"]) or abs(ns(t.get("run_seconds", -1)) - run_ns) > 1 \
                or abs(ns(t.get("wait_seconds", -1)) - wait_ns) > 1:
            bad.append("VM %d: threads %s, want count %d run %d wait %d" % (vm["pid"], t, len(vm["vcpus"]),
                                                                            run_ns, wait_ns))
    ok(j["vms"] and not bad, "--summary: each VM's vcpu threads: count, run_seconds and wait_seconds sum its vCPUs'",
       "\n".join(bad))

    # 2. Intervals: every interval's states, each interval's adding up to its length.
    step = 1000000
    dat, exp = gen("iv", "-m", "1", "-v", "2", "-n", "300", "-C", "2", "-x", "-w", "-s", "9",
                   "-d", str(step))
    rc, out, err = run(["-b", "-r", dat, "-d", "%.3f" % (step / 1e9), "-o", "json"])
    snaps = [json.loads(l) for l in out.splitlines()] if rc == 0 else []
    bad = []
    for i, iv in enumerate(exp["intervals"]):
        s = snaps[i] if i < len(snaps) else None
        if s is None or int(s["start"]) != iv["start"]:
            bad.append("interval %d: no snapshot starting at %d" % (i, iv["start"]))
            continue
        got = vcpus(s)
        for t in iv["threads"]:
            g = {k: ns(v) for k, v in got.get(t["tid"], {}).get("time_seconds", {}).items()}
            if g != t["time"]:
                bad.append("interval %d tid %d: got %s want %s" % (i, t["tid"], g, t["time"]))
            if sum(g.values()) != int(s["end"]) - int(s["start"]):
                bad.append("interval %d tid %d: states sum %d, interval %d" % (i, t["tid"], sum(g.values()),
                                                                               int(s["end"]) - int(s["start"])))
    ok(len(snaps) == len(exp["intervals"]) and not bad,
       "-d %g: %d intervals, every vCPU's five states per interval equal the truth and add up to it"
       % (step / 1e9, len(exp["intervals"])), "\n".join(bad[:20]))
    bad = []
    for i, iv in enumerate(exp["intervals"]):
        got = vcpus(snaps[i]) if i < len(snaps) else {}
        for t in iv["threads"]:
            rs = {r["code"]: r for r in got.get(t["tid"], {}).get("reasons", [])}
            for w in t["reasons"]:
                r = rs.get(w["code"], {})
                # no exit -> entry pair: no handling figure (null), never 0
                hsum = w["handling"]["sum"] if w["handling"]["samples"] else None
                got_sum = r["handling"]["sum"] if "handling" in r else None
                if "handling" not in r or (int(got_sum) if got_sum is not None else None) != hsum \
                        or ns(r["preempted_seconds"]) != w["preempted"] or ns(r["blocked_seconds"]) != w["blocked"]:
                    bad.append("interval %d tid %d code %d: %s want %s" % (
                        i, t["tid"], w["code"], {k: r.get(k) for k in ("handling", "preempted_seconds", "blocked_seconds")},
                        {k: w[k] for k in ("preempted", "blocked", "handling")}))
    ok(snaps and not bad, "-d: each interval's split per reason (handling sum, preempted_seconds, blocked_seconds)",
       "\n".join(bad[:10]))

    # 3. CSV carries the same, per vCPU row.
    rc, out, err = run(["-b", "-r", gen("sum", "-m", "2", "-v", "3", "-n", "400", "-C", "2", "-x", "-w",
                                        "-s", "5")[0], "--summary", "-o", "csv"])
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    want = {t["tid"]: t["time"] for t in json.load(open(os.path.join(TMP, "time-sum.expect.json")))["threads"]}
    bad = [r for r in rows if {s: ns(float(r["vcpu_" + s + "_seconds"])) for s in STATES} != want[int(r["vcpu_tid"])]
           or r["handling_sum"] == "" or r["preempted_seconds"] == ""]
    ok(rows and not bad, "CSV: vcpu_guest_seconds .. vcpu_wait_seconds of every row equal the truth; handling_* and the split filled",
       bad[:2])

    # 4. Text shows the split columns, with sched events only.
    rc, out, err = run(["-b", "-r", dat, "--summary"])
    ok(rc == 0 and "HAND.P50" in out and "PREEMPTED" in out and "BLOCKED" in out
       and "time: guest " in out and " wait " in out,
       "text: HAND.P50, HAND.P99, PREEMPTED and BLOCKED columns, each vCPU's time shares", out[:1500])

    # 5. Without sched events: guest and vmm are known, host/halt/wait are not.
    dat, exp = gen("nosched", "-m", "1", "-v", "2", "-n", "200", "-C", "2", "-x", "-s", "5")
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    j = json.loads(out) if rc == 0 else {"vms": []}
    cs = list(vcpus(j).values())
    ok(cs and all(set(c.get("time_seconds", {})) == {"guest", "vmm"} for c in cs)
       and all(set(r["handling"].values()) == {None} and r["preempted_seconds"] is None and r["blocked_seconds"] is None
               for c in cs for r in c["reasons"])
       and all("threads" not in vm for vm in j["vms"]),
       "no sched events: time_seconds has guest and vmm only; handling, preempted_seconds, blocked_seconds null (empty in CSV);"
       " no threads",
       [c.get("time_seconds") for c in cs])
    rc, out, err = run(["-b", "-r", dat, "--summary"])
    ok(rc == 0 and "PREEMPTED" not in out and "HAND.P50" not in out,
       "no sched events: the text table has no split columns", out[:800])
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "csv"])
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    ok(rows and all(r["vcpu_halt_seconds"] == "" and r["vcpu_wait_seconds"] == "" and r["vcpu_host_seconds"] == "" and r["handling_sum"] == ""
                    and r["vcpu_guest_seconds"] != "" for r in rows),
       "no sched events: CSV vcpu_halt_seconds, vcpu_wait_seconds, vcpu_host_seconds and handling_* empty, vcpu_guest_seconds filled", rows[:1])

    # 6. Sched events of threads kvmtop does not know, and of no vCPU at all.
    script = os.path.join(TMP, "time-sched-only.txt")
    with open(script, "w") as f:
        f.write("1000 0 77 switch prev_pid=77 prev_state=1 next_pid=0\n"
                "2000 0 0 waking pid=77\n"
                "3000 0 0 switch prev_pid=0 prev_state=0 next_pid=77\n")
    dat = os.path.join(TMP, "time-sched-only.dat")
    p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.5"), "-w", "-S", script, "-o", dat],
                       capture_output=True, timeout=60)
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    j = json.loads(out) if rc == 0 else {}
    ok(p.returncode == 0 and rc == 0 and j.get("vms") == [] and j.get("kvm_events") == 0,
       "a recording of sched events only: read, no VM or vCPU made up, 0 KVM events",
       "%s %s %s" % (p.stderr.decode(), err, out[:300]))
    with open(script, "w") as f:
        f.write("500 0 1000 waking pid=1000\n"
                "1000 0 1000 exit exit_reason=12 isa=1 vcpu_id=0\n"
                "1500 0 1000 switch prev_pid=1000 prev_state=1 next_pid=0\n"
                "2500 0 0 waking pid=1000\n"
                "3000 0 0 switch prev_pid=0 prev_state=0 next_pid=1000\n"
                "3500 0 1000 entry vcpu_id=0\n"
                "4000 0 555 switch prev_pid=555 prev_state=0 next_pid=556\n")
    p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.5"), "-w", "-S", script, "-o", dat],
                       capture_output=True, timeout=60)
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    j = json.loads(out) if rc == 0 else {"vms": []}
    c = vcpus(j).get(1000, {})
    # the oracle, by hand: the recording is [500, 4000]; the waking at 500
    # comes before kvmtop knows the thread; before its exit it was in the guest
    want = {"guest": 500 + 500, "host": 500 + 500, "vmm": 0, "halt": 1000, "wait": 500}
    ok(rc == 0 and len(vcpus(j)) == 1 and {k: ns(v) for k, v in c.get("time_seconds", {}).items()} == want,
       "by hand: guest 1000, host 1000, halt 1000, wait 500 ns; threads 555 and 556 make no vCPU",
       "%s %s" % (c.get("time_seconds"), err))

    # 7. Host kernel threads that raise KVM events are host work, not VMs.
    with open(script, "w") as f:
        f.write("comm 1000 CPU 0/KVM\ncomm 2000 kdamond.0\ncomm 2001 kworker/3:1\n"
                "1000 0 1000 exit exit_reason=12 isa=1 vcpu_id=0\n"
                "1200 1 2000 pio rw=1 port=0x70 size=1 count=1\n"
                "1300 1 2001 pio rw=1 port=0x70 size=1 count=1\n"
                "1400 1 2001 pio rw=1 port=0x70 size=1 count=1\n"
                "2000 0 1000 entry vcpu_id=0\n")
    p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.5"), "-S", script, "-o", dat],
                       capture_output=True, timeout=60)
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    j = json.loads(out) if rc == 0 else {"vms": [], "host": {}}
    k = j["host"].get("kernel_threads", {})
    ok(p.returncode == 0 and [c["tid"] for vm in j["vms"] for c in vm["vcpus"]] == [1000]
       and k.get("count") == 2 and k.get("events") == {"kvm_pio": 3},
       "kdamond.0 and kworker/3:1 raising kvm_pio: no VM of their own; host.kernel_threads counts 2 threads, "
       "3 events", "%s %s" % (err, out[:600]))
    rc, out, err = run(["-b", "-r", dat, "--summary"])
    ok(rc == 0 and "host kernel threads (not VMs): 2" in out and "kdamond" not in out,
       "text: one 'host kernel threads (not VMs): 2' line, no VM named after them", out[:800])
    done()


main()
