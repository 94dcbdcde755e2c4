# SPDX-License-Identifier: GPL-2.0
"""--source stats live, on kvmtop's own demo guest, against the guest's
own counts (its --demo-report: what each vCPU's KVM_RUN returned).

- exact counts: per vCPU, the kernel's io_exits and mmio_exits equal the
  demo's KVM_RUN returns for port I/O and MMIO, and halt_exits its HLT
  returns (the demo has no in-kernel irqchip: every hlt comes back).  x86
  only (the demo guest is x86 real-mode code).
- late vCPUs: a demo guest that makes its VM, then its vCPUs (and their
  statistics fds) 20 s later (KVMTOP_DEMO_VCPUS_AFTER_MS, as a paused
  QEMU or a slow boot does), under kvmtop -b --source stats -d 1 -o json:
  each vCPU's io_exits, mmio_exits and halt_exits summed over the
  one-second snapshots equal the guest's own counts (found within a look,
  counted from zero), its rows in a snapshot ending at most 2.5 s after
  the guest made them, marked counted_from "birth".
- churn: 50 demo guests, one after the other, while kvmtop --source stats
  runs: kvmtop's open fds and memory come back to where they were, and
  no guest process waits on kvmtop to end.

Needs root and binary statistics (Linux 5.14+); without /dev/kvm every
case runs inside an emulated KVM host (tests/vmhost), whose Debian 6.1
kernel gives no fd count in /proc/PID/fd's size: kvmtop lists a known
VM's fds at each look there.  On PVM (kvm_pvm: no exit tracepoints, so the
other cases run in the emulated host) the binary statistics work: the late
case also runs here directly, on this kernel (6.2+: the fd count is
kvmtop's signal), with mmio_exits and halt_exits (PVM counts no io_exits:
its I/O exits leave io_exits at 0).
"""
import json
import os
import subprocess
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, sanitized, guest_cases, kvm_vendor, inside_kvm_host, live_size

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
CASES = ["exact: io_exits, mmio_exits, halt_exits against the demo guest's own counts",
         "late: vCPUs made 20 s after their VM, summed over one-second snapshots",
         "churn: 50 demo guests, kvmtop's fds and memory come back"]
LATE_MS = 20000


def why_not():
    if os.geteuid() != 0:
        return "needs root"
    if not os.path.exists("/dev/kvm"):
        return "/dev/kvm is missing"
    if os.uname().machine not in ("x86_64", "i686"):
        return "the demo guest is x86 code"
    return None


def exact_case():
    rep = os.path.join(tempfile.mkdtemp(dir=TMP), "report.json")
    p = subprocess.run([kvmtop(), "-b", "--source", "stats", "--demo", "--demo-vcpus", "2",
                        "--demo-loops", "20000", "--demo-report", rep, "--summary", "-o", "json"],
                       capture_output=True, timeout=300)
    if p.returncode != 0:
        ok(False, CASES[0], p.stderr.decode()[-600:])
        return
    doc = json.loads(p.stdout.decode().splitlines()[-1])
    guest = json.load(open(rep))
    vm = next((v for v in doc["vms"] if v["pid"] == guest["pid"]), None)
    if not ok(vm is not None, "exact: the demo guest's VM is in the output", [v["pid"] for v in doc["vms"]]):
        return
    for g in guest["vcpus"]:
        row = next((c for c in vm["vcpus"] if c["vcpu"] == g["vcpu"]), None)
        if not ok(row is not None and "kvm_stats" in row, "exact: vCPU %d has a row with kvm_stats" % g["vcpu"]):
            continue
        k = row["kvm_stats"]
        eq(row["tid"], g["tid"], "exact: vCPU %d's row is its thread" % g["vcpu"])
        eq((k.get("io_exits"), k.get("mmio_exits"), k.get("halt_exits")),
           (g["exits"]["IO"], g["exits"]["MMIO"], g["exits"]["HLT"]),
           "exact: vCPU %d: io_exits, mmio_exits, halt_exits = the guest's IO, MMIO, HLT returns" % g["vcpu"])


def late_case(keys, where):
    """The demo guest's vCPUs made LATE_MS after its VM; keys: the statistics compared."""
    rep = os.path.join(tempfile.mkdtemp(dir=TMP), "report.json")
    # each HLT sleeps 200 us (KVMTOP_DEMO_HALT_US), so the vCPUs live 4 s at least: on PVM the
    # 20,000 loops took 0.5 s, and vCPUs made and gone between two of the source's looks (one a
    # second) are in no statistics fd it can read (kvmtop(1), the stats source)
    env = dict(os.environ, KVMTOP_DEMO_VCPUS_AFTER_MS=str(LATE_MS), KVMTOP_DEMO_HALT_US="200")
    p = subprocess.run([kvmtop(), "-b", "--source", "stats", "-d", "1", "-o", "json", "--demo", "--demo-vcpus",
                        "2", "--demo-loops", str(live_size(20000)), "--demo-report", rep],
                       capture_output=True, timeout=300, env=env)
    if not ok(p.returncode == 0 and os.path.exists(rep), "late%s: kvmtop and the demo guest ran" % where,
              p.stderr.decode()[-600:]):
        return
    guest = json.load(open(rep))
    tot, first, marks = {}, {}, set()
    for line in p.stdout.decode().splitlines():
        d = json.loads(line)
        for vm in d["vms"]:
            for c in vm["vcpus"] if vm["pid"] == guest["pid"] else []:
                t = tot.setdefault(c["vcpu"], [0] * len(keys))
                for i, k in enumerate(keys):
                    t[i] += c["kvm_stats"].get(k) or 0
                first.setdefault(c["vcpu"], int(d["end"]))
                marks.add(c["counted_from"])
    names = {"io_exits": "IO", "mmio_exits": "MMIO", "halt_exits": "HLT"}
    want = {g["vcpu"]: [g["exits"][names[k]] for k in keys] for g in guest["vcpus"]}
    if not eq({c: tot.get(c) for c in (0, 1)}, want,
              "late%s: per vCPU made %d s after its VM, %s summed over the snapshots = the guest's own counts"
              % (where, LATE_MS // 1000, ", ".join(keys))):
        # what kvmtop showed of the guest's VM, snapshot by snapshot (those with its vCPUs), and what it said
        for line in p.stdout.decode().splitlines():
            d = json.loads(line)
            rows = [(vm["pid"], vm.get("state"), vm.get("counted_from"),
                     [(c["vcpu"], c["tid"], c["counted_from"], [c["kvm_stats"].get(k) for k in keys])
                      for c in vm["vcpus"]]) for vm in d["vms"] if vm["pid"] == guest["pid"] and vm["vcpus"]]
            if rows:
                print("# snapshot %s end %s: %s" % (d["snapshot"], d["end"], rows))
        print("# vCPUs made at %d; guest pid %d; stderr: %s" % (guest["vcpus_made_ns"], guest["pid"],
                                                                 p.stderr.decode()[-600:]))
    late = max(first.values(), default=guest["vcpus_made_ns"] + 10 ** 11) - guest["vcpus_made_ns"]
    ok(len(first) == 2 and late <= 2.5e9, "late%s: both vCPUs' rows in a snapshot ending within 2.5 s of their "
       "making (%.1f s): found within a look" % (where, late / 1e9))
    eq(marks, {"birth"}, "late%s: the vCPUs' rows are marked counted_from birth" % where)


def pvm_here():
    """Binary statistics work here directly though the other cases run in the emulated host: root,
    /dev/kvm, PVM's (kvm_pvm) KVM, the x86 demo guest."""
    return (os.geteuid() == 0 and os.access("/dev/kvm", os.R_OK | os.W_OK) and kvm_vendor() == "kvm_pvm"
            and not inside_kvm_host() and os.uname().machine in ("x86_64", "i686"))


def fds_and_rss(pid):
    fds = len(os.listdir("/proc/%d/fd" % pid))
    rss = 0
    for line in open("/proc/%d/status" % pid):
        if line.startswith("RssAnon:"):
            rss = int(line.split()[1])
    return fds, rss


def churn_case():
    p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "-d", "0.2", "-o", "json"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.6)
    waits = []
    base = None
    try:
        for k in range(50):
            g = subprocess.Popen([kvmtop(), "--demo-guest", "-name", "guest=churn%d,debug-threads=on" % k,
                                  "1", "0"])
            time.sleep(0.7)                 # kvmtop finds it and opens its stats fds
            t0 = time.monotonic()
            g.terminate()
            g.wait(timeout=30)
            waits.append(time.monotonic() - t0)
            time.sleep(0.5)                 # kvmtop sees it gone
            if k == 1:
                base = fds_and_rss(p.pid)
        # kvmtop sees the last guest gone at its next snapshot: in an emulated host, seconds
        end = fds_and_rss(p.pid)
        limit = time.monotonic() + 10
        while end[0] > base[0] and time.monotonic() < limit:
            time.sleep(0.2)
            end = fds_and_rss(p.pid)
    finally:
        p.terminate()
        p.communicate(timeout=30)
    # base may still hold guest 1's fds if kvmtop had not seen it gone (a slow host): no more
    # than it is no leak; a leak is 48 guests' worth more
    ok(base and end[0] <= base[0], "churn: kvmtop's open fds come back after 50 guests (%d -> %d)"
       % (base[0], end[0]))
    if sanitized():
        skip("churn: kvmtop's memory comes back", "a sanitizer build: its memory is the sanitizer's "
             "(shadow, a quarantine of freed blocks)")
    else:
        ok(end[1] <= base[1] + 256, "churn: kvmtop's memory comes back (%d -> %d KiB RssAnon)" % (base[1], end[1]))
    ok(max(waits) < 5, "churn: no guest waits on kvmtop to end (slowest %.2f s)" % max(waits))


if pvm_here():
    late_case(("mmio_exits", "halt_exits"), " (here, PVM)")
guest_cases(__file__, CASES, why_not)
exact_case()
late_case(("io_exits", "mmio_exits", "halt_exits"), "")
churn_case()
done()
