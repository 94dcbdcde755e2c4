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

from tap import ok, skip, done, kvmtop, mount_point, kvm_here, inside_kvm_host, demo_vcpu, guest_cases, sanitized

CASES = ["the hog is the vCPU's top thief, with most of its wait",
         "the overcommit finding names the hog",
         "without the hog the finding clears within two snapshots"]
# the same under --source bpf: who ran while the vCPU waited, counted in the kernel
BPF = "--source bpf: "
BPF_CASES = [BPF + c for c in CASES]


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


def now_ns():
    """CLOCK_MONOTONIC in ns: the time base of a live snapshot's start and end (kvmtop's trace
    clock is "mono")."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def snapshots_since(p, t, n, edge):
    """The next n snapshots, the first of them the first whose edge ("start" or "end") is at t or
    later: the ones before it are dropped, however many kvmtop printed before this test read on
    (in the emulated host on a loaded machine, several).  None for each that did not come, all
    n when t is None (the moment never came)."""
    out = []
    while t is not None and len(out) < n:
        j = snapshot(p)
        if j is None:
            break
        if out or int(j[edge]) >= t:
            out.append(j)
    return out + [None] * (n - len(out))


def mine(j, tid):
    c = next((c for vm in j["vms"] for c in vm["vcpus"] if c["tid"] == tid), None)
    f = [f for f in j.get("findings", []) if f["rule"] == "overcommit" and f["tid"] == tid]
    return c, f


def hog_run(src=(), names=CASES):
    """The demo guest's vCPU beside a hog on its CPU, under kvmtop with src: the cases names."""
    # the demo guest's vCPU runs flat out: with the hog on its CPU it waits about half the time
    p = subprocess.Popen([kvmtop(), "-b", "-o", "json", "-d", "1", "--demo", "--demo-vcpus", "1"] + list(src),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    hog = None
    try:
        tid = demo_vcpu(30)[1]
        cpu = min(os.sched_getaffinity(0))
        if tid:
            os.sched_setaffinity(tid, {cpu})
        # the hog says when its loop starts (echo and : are sh's builtins: it stays one process,
        # sh): exec'ing taskset, then sh, can take seconds in the emulated host on a loaded
        # machine, so neither the hog's start nor a count of snapshots says when it spins
        hog = subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "echo spins; while :; do :; done"],
                               stdout=subprocess.PIPE)
        spins = now_ns() if select.select([hog.stdout], [], [], 60)[0] and hog.stdout.readline() else None
        # judged: the snapshots that start with the hog spinning, not those before or the one it began in
        with_hog = snapshots_since(p, spins, 3, "start")
        hog.kill()
        hog.wait()
        # from the snapshot the hog ended in, which may still show it
        after = snapshots_since(p, now_ns(), 3, "end")
    finally:
        if hog and hog.poll() is None:
            hog.kill()
        if hog:
            hog.wait()
            hog.stdout.close()
        p.terminate()
        p.wait(timeout=30)
    if sanitized():
        # seen in .ci/asan and in a run by hand with 64 MiB buffers: a sanitizer build reads the
        # emulated host's events 5 to 14 s late, and with the hog taking half its CPU its snapshots
        # with the hog had no time states for the vCPU (null), so there is nothing to judge
        why = "kvmtop is a sanitizer build: it reads the emulated host's events seconds late, and " \
              "its snapshots with the hog may have no time states"
        skip(names[0], why)
        skip(names[1], why)
        cleared = [bool(mine(j, tid)[1]) for j in after if j]
        ok(len(cleared) == 3 and not any(cleared[1:]), "%s (%r)" % (names[2], cleared), cleared)
        return
    bad = [] if spins else ["the hog did not say that it spins within 60 s"]
    for j in with_hog:
        c, f = mine(j, tid) if j and tid else (None, [])
        s = (c or {}).get("stolen_by") or [{}]
        wait = ((c or {}).get("time_seconds") or {}).get("wait", 0)
        if not c or s[0].get("tid") != hog.pid or s[0].get("pid") != hog.pid or s[0].get("comm") != "sh" \
                or not wait or s[0]["seconds"] < 0.5 * wait:
            bad.append("snapshot %s: wait %r, stolen_by %r" % (j and j["snapshot"], wait, s[:3]))
    ok(tid and not bad, "%s (pid %d on CPU %d)" % (names[0], hog.pid if hog else 0, cpu), "\n".join(bad))
    named = [mine(j, tid)[1] for j in with_hog if j]
    ok(named and all(f and "sh (pid %d, tid %d)" % (hog.pid, hog.pid) in f[0]["evidence"] for f in named),
       names[1], [(mine(j, tid)[0] or {}).get("time_seconds") for j in with_hog if j] + named)
    cleared = [bool(mine(j, tid)[1]) for j in after if j]
    ok(len(cleared) == 3 and not any(cleared[1:]), "%s (%r)" % (names[2], cleared), cleared)


def main():
    guest_cases(__file__, CASES + BPF_CASES, why_not)
    hog_run()
    # the bpf source where it is built in and this kernel loads it, else each case says why not
    p = subprocess.run([kvmtop(), "-b", "-n", "1", "-d", "0.1", "--source", "bpf"], capture_output=True, timeout=120)
    if p.returncode != 0:
        for c in BPF_CASES:
            skip(c, p.stderr.decode().strip().splitlines()[-1] if p.stderr.strip() else "kvmtop --source bpf failed")
    else:
        hog_run(["--source", "bpf"], BPF_CASES)
    done()


main()
