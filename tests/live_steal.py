# SPDX-License-Identifier: GPL-2.0
"""Live stolen time: a busy loop pinned to the CPU of the demo guest's vCPU thread must be that
vCPU's top thief, with most of its wait time, and the overcommit finding must name it; once the
loop is gone the finding clears within two snapshots.

What is known without kvmtop: the hog's pid (the test starts it) and the CPU both are pinned to.
Needs root, tracefs with the sched events and a KVM that traces exits; elsewhere every case runs
inside the emulated KVM host (tests/vmhost).
"""
import json
import os
import select
import subprocess
import time

from tap import ok, done, kvmtop, mount_point, kvm_here, inside_kvm_host, demo_vcpu, guest_cases

CASES = ["the hog is the vCPU's top thief, with most of its wait",
         "the overcommit finding names the hog",
         "without the hog the finding clears within two snapshots"]


def why_not():
    if os.geteuid() != 0:
        return "needs root"
    t = mount_point("tracefs")
    if not t or not os.path.isdir(os.path.join(t, "events", "sched")):
        return "tracefs with the sched events is not available"
    if not kvm_here() and not inside_kvm_host():
        return "needs a KVM that traces VM exits"
    return None


def snapshot(p, secs=20):
    """The next JSON snapshot kvmtop prints, or None."""
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([p.stdout], [], [], 0.5)
        if r:
            line = p.stdout.readline()
            if not line:
                return None
            if line.startswith(b"{"):
                return json.loads(line)
    return None


def mine(j, tid):
    c = next((c for vm in j["vms"] for c in vm["vcpus"] if c["tid"] == tid), None)
    f = [f for f in j.get("findings", []) if f["rule"] == "overcommit" and f["tid"] == tid]
    return c, f


def main():
    guest_cases(__file__, CASES, why_not)
    # the demo guest's vCPU runs flat out: with the hog on its CPU it waits about half the time
    p = subprocess.Popen([kvmtop(), "-b", "-o", "json", "-d", "1", "--demo", "--demo-vcpus", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    hog = None
    try:
        tid = demo_vcpu(30)[1]
        cpu = min(os.sched_getaffinity(0))
        if tid:
            os.sched_setaffinity(tid, {cpu})
        hog = subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"])
        # the snapshot already printed, and the one the hog started in (as taskset, then sh)
        snapshot(p)
        snapshot(p)
        with_hog = [snapshot(p) for _ in range(3)]
        hog.kill()
        hog.wait()
        after = [snapshot(p) for _ in range(3)]
    finally:
        if hog and hog.poll() is None:
            hog.kill()
        p.terminate()
        p.wait(timeout=30)
    bad = []
    for j in with_hog:
        c, f = mine(j, tid) if j and tid else (None, [])
        s = (c or {}).get("stolen_by") or [{}]
        wait = ((c or {}).get("time_s") or {}).get("wait", 0)
        if not c or s[0].get("tid") != hog.pid or s[0].get("pid") != hog.pid or s[0].get("comm") != "sh" \
                or not wait or s[0]["seconds"] < 0.5 * wait:
            bad.append("snapshot %s: wait %r, stolen_by %r" % (j and j["snapshot"], wait, s[:3]))
    ok(tid and not bad, "%s (pid %d on CPU %d)" % (CASES[0], hog.pid if hog else 0, cpu), "\n".join(bad))
    named = [mine(j, tid)[1] for j in with_hog if j]
    ok(named and all(f and "sh (pid %d, tid %d)" % (hog.pid, hog.pid) in f[0]["evidence"] for f in named),
       CASES[1], [(mine(j, tid)[0] or {}).get("time_s") for j in with_hog if j] + named)
    cleared = [bool(mine(j, tid)[1]) for j in after if j]
    ok(len(cleared) == 3 and not any(cleared[1:]), "%s (%r)" % (CASES[2], cleared), cleared)
    done()


main()
