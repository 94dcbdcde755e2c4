# SPDX-License-Identifier: GPL-2.0
"""Short-lived vCPU threads keep their VM (issue 37): recordings whose vCPU
threads are born and gone inside them, with the generator's truth.

tests/kvmgen -B makes each VM's vCPU threads with a task:task_newtask of
the VMM's main thread (CLONE_THREAD) 400 us before their first exit; they
live a few ms, and the -P snapshot of the host's threads, taken at the
end, lists only the VMMs' main and I/O threads: the vCPU threads are
gone.  Every exit must still be under its VM's pid and name (the
snapshot's JSON names them, and the tids of each), each thread's exits
equal to the truth.  With -w each thread is also woken 300 us and
switched in 50 us before its first exit: those 250 us are wait (the
scheduler's word), never host, and every state equals the truth.

Live (in the emulated KVM host where this one's KVM traces no exits):
kvmtop's demo guest as a VMM whose three vCPU threads run a few loops and
end in well under 200 ms while the process stays (KVMTOP_DEMO_LINGER_MS):
kvmtop, tracing from before, must put every exit the guest counted itself
(its report) under the VM's name and pid, none under "unknown".  Its
--summary must also show the VM's emulator group (its one main thread):
a VM's groups are read from when it appears, not first at the end.
"""
import json
import os
import subprocess
import time

from tap import ok, eq, done, run, kvmgen, kvmtop, skip, kvm_here, live_elsewhere, live_only, \
    live_cases_in_kvm_host, inside_kvm_host

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
STATES = ("guest", "host", "vmm", "halt", "wait")


def gen(name, *args):
    out = os.path.join(TMP, "born-%s.dat" % name)
    exp = kvmgen(out, "x86-6.5", args, expect=os.path.join(TMP, "born-%s.expect.json" % name), timeout=300)
    return out, exp


def summary(dat, *extra):
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"] + list(extra))
    try:
        return json.loads(out) if rc == 0 else {"vms": []}, err
    except ValueError:
        return {"vms": []}, err


def ns(secs):
    return round(secs * 1e9)


LIVE = "live: a VMM's vCPU threads that lived under 200 ms: every exit under the VM's name"
LIVE_EMU = "live --summary: the VM's emulator group, read from when it appeared: its one main thread"


def wait_tracing(pid, secs):
    """Wait until kvmtop pid's trace instance has its kvm events (and task_newtask, where the
    kernel has it) enabled and tracing on: True, or False after secs."""
    d = "/sys/kernel/tracing/instances/kvmtop-%d" % pid
    want = ["events/kvm/enable", "tracing_on"]
    if os.path.exists("/sys/kernel/tracing/events/task/task_newtask"):
        want.append("events/task/task_newtask/enable")
    end = time.time() + secs
    while time.time() < end:
        try:
            if all(open(os.path.join(d, f)).read().strip() == "1" for f in want):
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def live_case():
    """The demo guest started by the test itself, its threads brief, kvmtop tracing meanwhile."""
    if live_elsewhere():
        live_cases_in_kvm_host(__file__, "born.py live")
        return
    if not kvm_here():
        skip(LIVE, "needs root and a KVM that traces VM exits")
        skip(LIVE_EMU, "needs root and a KVM that traces VM exits")
        return
    report = os.path.join(TMP, "born-demo.json")
    if os.path.exists(report):
        os.unlink(report)
    slow = 8 if inside_kvm_host() else 1
    k = subprocess.Popen([kvmtop(), "-b", "--summary", "-o", "json", "--duration", str(5 * slow)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the guest starts once kvmtop traces (its instance's kvm and task events on): a fixed
    # wait was too short for the sanitizer build in the emulated host, which then saw no exit
    ready = wait_tracing(k.pid, 60 * slow)
    # the process outlives kvmtop's run (which has 5 s, 40 in the emulated host, from its
    # start, the wait for its tracing included): its groups are read at the end too
    env = dict(os.environ, KVMTOP_DEMO_LINGER_MS=str(7000 * slow))
    # ~30 ms here, ~30 ms in the emulated host, where every guest instruction is emulated: ten
    # loops there took 70 ms, and 203 ms with the sanitizer build (CI), past the 200 ms bound
    loops = "4" if inside_kvm_host() else "30"
    g = subprocess.run([kvmtop(), "--demo-guest", "-name", "guest=brief,debug-threads=on", "3", loops, report],
                       env=env, capture_output=True, timeout=120 * slow)
    out, err = k.communicate(timeout=120 * slow)
    guest = json.load(open(report)) if os.path.exists(report) else {"vcpus": [], "seconds": -1}
    try:
        j = json.loads(out.decode())
    except ValueError:
        j = {"vms": []}
    vms = {vm["pid"]: vm for vm in j["vms"]}
    vm = vms.get(guest.get("pid"), {"name": None, "vcpus": []})
    got = {c["tid"]: c for c in vm["vcpus"]}
    bad = []
    for c in guest["vcpus"]:
        h = got.get(c["tid"])
        have = h and (h["events"].get("kvm_pio", 0), h["userspace_exits"].get("IO", 0),
                      h["userspace_exits"].get("HLT", 0))
        if have != (c["exits"]["IO"], c["exits"]["IO"], c["exits"]["HLT"]):
            bad.append("tid %d: %s, want kvm_pio, IO, HLT %s" % (c["tid"], have, (c["exits"]["IO"], c["exits"]["IO"],
                                                                                  c["exits"]["HLT"])))
    unknown = [v["name"] for v in j["vms"] if v["name"].startswith("unknown")]
    emu = vm.get("threads", {}).get("emulator", {}).get("count")
    # a loaded machine can stretch the guest's loops past 200 ms (0.298 s seen with the emulated
    # host beside a build): the counts must hold all the same, and the name says how long they ran
    brief = 0 < guest["seconds"] < 0.2
    ok(ready and g.returncode == 0 and k.returncode == 0 and len(guest["vcpus"]) == 3 and guest["seconds"] > 0
       and vm["name"] == "brief" and not bad and not unknown,
       LIVE + " (the guest's own counts, its vCPUs ran %.3f s%s)"
       % (guest["seconds"], "" if brief else ": longer than 200 ms on this loaded machine"),
       ("" if ready else "kvmtop was not tracing after %d s\n" % (60 * slow)) +
       "\n".join(bad) + " unknown VMs %s, VMs %s\n%s %s" % (unknown, [(v["pid"], v["name"], len(v["vcpus"]))
                                                              for v in j["vms"]], g.stderr.decode(), err.decode()))
    # the demo process is its main thread and its vCPU threads: one emulator thread
    ok(emu == 1, LIVE_EMU, "threads %s" % vm.get("threads"))


def main():
    if live_only():
        live_case()
        done()
    # 1. Five VMs of three vCPUs, every vCPU thread gone before the snapshot.
    ps = os.path.join(TMP, "born-ps.txt")
    dat, exp = gen("names", "-m", "5", "-v", "3", "-n", "200", "-C", "4", "-s", "3", "-B", "-P", ps)
    with open(ps + ".json") as f:
        vms = json.load(f)
    with open(ps) as f:
        listed = {int(line.split()[0]) for line in f}
    lived = [n for vm in vms for n in vm["lived_ns"]]
    ok(vms and all(0 < n < 200000000 for n in lived) and not listed & {t for vm in vms for t in vm["tids"]},
       "the truth: every vCPU thread lives under 200 ms and the snapshot lists none of them",
       "%s %s" % (lived, sorted(listed)))
    j, err = summary(dat, "--threads", ps)
    want = {t["tid"]: t["exits"] for t in exp["threads"]}
    bad = []
    got_vms = {vm["pid"]: vm for vm in j["vms"]}
    for vm in vms:
        g = got_vms.get(vm["pid"])
        if g is None:
            bad.append("VM %d %r: missing" % (vm["pid"], vm["name"]))
            continue
        if g["name"] != vm["name"]:
            bad.append("VM %d: named %r, want %r" % (vm["pid"], g["name"], vm["name"]))
        tids = sorted(c["tid"] for c in g["vcpus"])
        if tids != sorted(vm["tids"]):
            bad.append("VM %d: vCPU threads %s, want %s" % (vm["pid"], tids, vm["tids"]))
        for c in g["vcpus"]:
            if c["exits"] != want.get(c["tid"]):
                bad.append("tid %d: %s exits, want %s" % (c["tid"], c["exits"], want.get(c["tid"])))
    ok(len(j["vms"]) == len(vms) and not bad,
       "--threads: every vCPU thread gone from the snapshot is under its VM's pid and name "
       "(task_newtask: a thread of its creator's process), every exit counted",
       "\n".join(bad) + err)
    ok(not any(vm["name"].startswith("unknown") for vm in j["vms"]),
       "... and no VM is 'unknown@...'", [vm["name"] for vm in j["vms"]])
    # who each VM is, from its command line in the snapshot, as live: the generator's -uuid and kind
    who = sorted((vm["pid"], got_vms.get(vm["pid"], {}).get("uuid"), got_vms.get(vm["pid"], {}).get("name_from"))
                 for vm in vms)
    eq(who, sorted((vm["pid"], vm["uuid"], vm["from"]) for vm in vms),
       "--threads: each VM's UUID (QEMU's -uuid) and the kind of VMM that named it, from the snapshot's "
       "command line, its vCPU threads born after it (null where the command line gives none)")

    # 2. Without the snapshot: the births still group each VM's threads by their VMM's pid.
    j, err = summary(dat)
    groups = sorted(sorted(c["tid"] for c in vm["vcpus"]) for vm in j["vms"])
    ok(groups == sorted(sorted(vm["tids"]) for vm in vms)
       and sorted(vm["pid"] for vm in j["vms"]) == sorted(vm["pid"] for vm in vms),
       "no --threads: each VM's vCPU threads together, under their VMM's pid", "%s %s" % (groups, err))

    # 3. Woken 250 us before they are switched in, before kvmtop knows them as vCPUs: wait.
    dat_b, exp_b = gen("wait", "-m", "2", "-v", "2", "-n", "100", "-C", "2", "-s", "5", "-w", "-B")
    dat_n, exp_n = gen("nowait", "-m", "2", "-v", "2", "-n", "100", "-C", "2", "-s", "5", "-w")
    jb, err_b = summary(dat_b)
    jn, err_n = summary(dat_n)
    length = int(jb.get("end", 0)) - int(jb.get("start", 0))
    got = {c["tid"]: {k: ns(v) for k, v in c.get("time_seconds", {}).items()} for vm in jb["vms"] for c in vm["vcpus"]}
    want = {t["tid"]: t["time"] for t in exp_b["threads"]}
    bad = ["tid %d: got %s\n  want %s" % (t, got.get(t), w) for t, w in sorted(want.items()) if got.get(t) != w]
    bad += ["tid %d: states add up to %d, the recording is %d" % (t, sum(g.values()), length)
            for t, g in got.items() if sum(g.values()) != length]
    ok(want and not bad, "-w -B: every vCPU's five states equal the truth to the ns and add up to the recording",
       "\n".join(bad) + err_b)
    wait_n = {c["tid"]: ns(c["time_seconds"]["wait"]) for vm in jn["vms"] for c in vm["vcpus"]}
    truth_n = {t["tid"]: t["time"]["wait"] for t in exp_n["threads"]}
    diff = {t: got.get(t, {}).get("wait", 0) - wait_n.get(t, 0) for t in want}
    ok(diff and set(diff.values()) == {250000}
       and all(want[t]["wait"] - truth_n[t] == 250000 for t in want),
       "the 250 us between sched_waking and the first switch-in are wait: each thread's wait is 250 us "
       "more than without them (kvmtop and the truth alike)", "%s %s" % (diff, err_n))
    live_case()
    done()


main()
