# SPDX-License-Identifier: GPL-2.0
"""The stats source (--source stats) on fixtures.

The fixtures are stats files written byte for byte as the kernel lays
them out (Documentation/virt/kvm/api.rst, KVM_GET_STATS_FD: struct
kvm_stats_header, the id, struct kvm_stats_desc with its name padded to
name_size, u64 data), here with Python's struct, not with kvmtop's
parser.  They sit in a tree laid out as /proc (--proc DIR): a process's
fd links name its VM and vCPUs, its threads' syscall files say which one
is inside KVM_RUN.  The oracle is what the test itself wrote: kvmtop
must report each counter's growth, instant and peak values as written,
histograms bucket by bucket with the kernel's bucket bounds, exit
counters as reasons, a VM or vCPU that appears later from zero, and
must close a VM's files when its process goes.  Broken files (cut
short, inconsistent) must give one line naming the file and the field,
under ASan/UBSan too.
"""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, run, asan_run, one_clear_line, wait_line
from kstat_fixture import NAME_SIZE, VCPU, VM, stats_bytes, put, proc_vm, vm_stats, vcpu_vals

TMP = os.environ.get("KVMTOP_TMP", "/tmp")

def vcpu_of(vm, idx):
    return next((c for c in vm["vcpus"] if c["vcpu"] == idx), None)


def reason(scope, name):
    return next((r["count"] for r in scope["reasons"] if r["reason"] == name), None)


def fixture_case():
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-")
    try:
        # VM 4100 with two vCPUs: vCPU 0's thread named by QEMU but "running"
        # (no syscall to read), vCPU 1's thread nameless but inside KVM_RUN
        proc_vm(root, 4100, "web1", {0: (4101, "CPU 0/KVM", False), 1: (4102, "worker", True)})
        h0 = [0] * 32
        h0[5] = 10
        vm_stats(root, 4100, {"remote_tlb_flush": 40, "pages_4k": 900, "max_mmu_rmap_size": 3,
                              "mmu_cache_bytes": 8},
                 {0: vcpu_vals(100, h0, [1, 1, 1, 1]), 1: vcpu_vals(50, h0, [0, 0, 0, 0])})
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "--summary", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = wait_line(p, "binary statistics")
        ok(line is not None and root in line, "stats: says it reads KVM's binary statistics, and from where", line)
        # vCPU 0 grows; vCPU 2 and VM 4200 appear (counting from their start)
        h1 = list(h0)
        h1[0], h1[5], h1[12], h1[31] = 4, 13, 2, 1
        vm_stats(root, 4100, {"remote_tlb_flush": 45, "pages_4k": 700, "max_mmu_rmap_size": 9,
                              "mmu_cache_bytes": 16},
                 {0: vcpu_vals(130, h1, [3, 1, 2, 5], blocking=1), 1: vcpu_vals(50, h0, [0, 0, 0, 0])})
        proc_vm(root, 4100, "web1", {0: (4101, "CPU 0/KVM", False), 1: (4102, "worker", True),
                                     2: (4103, "CPU 2/KVM", True)})
        vm_stats(root, 4100, {"remote_tlb_flush": 45, "pages_4k": 700, "max_mmu_rmap_size": 9,
                              "mmu_cache_bytes": 16},
                 {0: vcpu_vals(130, h1, [3, 1, 2, 5], blocking=1), 1: vcpu_vals(50, h0, [0, 0, 0, 0]),
                  2: vcpu_vals(7, h0, [0, 2, 0, 0])})
        proc_vm(root, 4200, 'db"2', {0: (4201, "CPU 0/KVM", True)})
        vm_stats(root, 4200, {"pages_4k": 64}, {0: vcpu_vals(20, h1, [0, 0, 0, 1])})
        time.sleep(3.5)      # --summary reads counters every 3 s (the default delay): VM 4200 is seen
        # VM 4200 counts on, then its process ends: its last counts are read before its files close
        vm_stats(root, 4200, {"pages_4k": 64}, {0: vcpu_vals(25, h1, [0, 0, 0, 1])})
        for d in ("4200", "4201"):
            shutil.rmtree(os.path.join(root, d))
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
        eq(p.returncode, 0, "stats: a summary at SIGINT, exit 0")
        doc = json.loads(out.decode().splitlines()[-1])
        eq(doc["source"], "stats", "stats: the output names its source")
        vms = {vm["pid"]: vm for vm in doc["vms"]}
        eq(sorted(vms), [4100, 4200], "stats: both VMs, the one found later too")
        a, b = vms[4100], vms[4200]
        eq(a["name"], "web1", "stats: a VM's name from its command line")
        eq(b["name"], 'db"2', "stats: a VM's name with a quote, escaped and read back")
        c0, c1, c2 = vcpu_of(a, 0), vcpu_of(a, 1), vcpu_of(a, 2)
        ok(c0 and c1 and c2, "stats: one row per vCPU", [c["vcpu"] for c in a["vcpus"]])
        eq((c0["tid"], c1["tid"], c2["tid"]), (4101, 4102, 4103),
           "stats: a vCPU's thread by its name, or by its syscall (ioctl KVM_RUN on its fd)")
        k0 = c0["kvm_stats"]
        eq({n: k0[n] for n in ("exits", "io_exits", "mmio_exits", "halt_exits", "pf_fixed", "halt_wait_ns")},
           {"exits": 300, "io_exits": 120, "mmio_exits": 60, "halt_exits": 30, "pf_fixed": 150,
            "halt_wait_ns": "30000"},
           "stats: cumulative counters of a vCPU running at start: their growth since then (a sum of ns "
           "as a decimal string)")
        eq((k0["blocking"], k0["guest_mode"]), (1, 1), "stats: instant values as read")
        eq(k0["halt_wait_hist"]["unit"], "ns", "stats: a histogram's unit from its unit and exponent")
        eq(k0["halt_wait_hist"]["buckets"][:6], [[0, 4], [1, 0], [3, 0], [7, 0], [15, 0], [31, 3]],
           "stats: log histogram buckets: their growth, bounded as the kernel fills them (fls64)")
        eq((k0["halt_wait_hist"]["buckets"][12], k0["halt_wait_hist"]["buckets"][31]), ([4095, 2], [None, 1]),
           "stats: the last log bucket is open (null)")
        eq(k0["exit_lat_lin"], {"unit": "us", "buckets": [[999, 2], [1999, 0], [2999, 1], [None, 4]]},
           "stats: a linear histogram: bucket_size bounds, the last open")
        ok("future_kind" not in k0, "stats: a descriptor of a kind kvmtop does not know is left out")
        eq(reason(c0, "io_exits"), 120, "stats: io_exits is a reason in the reasons table")
        eq((c0["exits"], c1["exits"]), (300, 0), "stats: a vCPU's exits from the exits counter")
        k2 = c2["kvm_stats"]
        eq((k2["exits"], k2["io_exits"], k2["exit_lat_lin"]["buckets"][1]), (70, 28, [1999, 2]),
           "stats: a vCPU made after the start counts from its creation (zero)")
        eq(b["vcpus"][0]["kvm_stats"]["exits"], 250,
           "stats: a VM made after the start counts from zero, to its last counts when its process ends")
        eq(b["state"], "exited", "stats: a VM whose process ended is marked exited")
        ka = a["kvm_stats"]
        eq((ka["remote_tlb_flush"], ka["pages_4k"], ka["max_mmu_rmap_size"], ka["mmu_cache_bytes"]),
           (5, 700, 9, 16 * 1024), "stats: a VM's own statistics: growth, instant, peak; a KiB one in bytes")
        info = doc["kvm_stats_info"]
        eq((info["vm"]["max_mmu_rmap_size"], info["vm"]["mmu_cache_bytes"], info["vcpu"]["halt_wait_ns"],
            info["vcpu"]["exits"], info["vcpu"]["guest_mode"], info["vcpu"]["exit_lat_lin"]),
           ({"kind": "peak", "unit": "", "kernel_name": "max_mmu_rmap_size"},
            {"kind": "instant", "unit": "bytes", "kernel_name": "mmu_cache_bytes"},
            {"kind": "cumulative", "unit": "ns", "kernel_name": "halt_wait_ns"},
            {"kind": "cumulative", "unit": "", "kernel_name": "exits"},
            {"kind": "instant", "unit": "boolean", "kernel_name": "guest_mode"},
            {"kind": "linear_hist", "unit": "us", "kernel_name": "exit_lat_lin"}),
           "stats: kvm_stats_info: each statistic's kind, its value's unit (a histogram's bounds'), its kernel name")
        eq(reason(a, "io_exits"), 120 + 28, "stats: the VM's reasons sum its vCPUs'")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def units_case():
    """Each KVM statistic as its field (vcpu_kvm_<stat>, vm_kvm_<stat>): the unit its descriptor
    says, in the rule's base unit and suffix: a sum of ns past 2^53 exact in JSON to a reader
    keeping numbers as doubles (a decimal string), a us duration in ns, a KiB size in bytes; the
    same figures in CSV (--fields, the default columns) and text.  The oracle: the fixture's values
    and descriptors (kstat_fixture.VCPU: halt_wait_ns ns, exit_lat_us us, mmu_cache_bytes KiB)."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-units-")
    big = (1 << 53) + 1         # a double holds 2^53, not 2^53 + 1
    h = [0] * 32
    try:
        proc_vm(root, 4600, "units", {0: (4601, "CPU 0/KVM", True)})
        vm_stats(root, 4600, {"mmu_cache_bytes": 3}, {0: vcpu_vals(1, h, [0] * 4)})
        outs = {}
        for fmt, extra in (("json", []), ("csv", []),
                           ("fields", ["-o", "csv", "--fields",
                                       "vcpu,vcpu_kvm_halt_wait_ns,vcpu_kvm_exit_lat_ns,vm_kvm_mmu_cache_bytes,"
                                       "kvm_exits,kvm_vm_mmu_cache_bytes,vcpu_kvm_no_such_stat"]),
                           ("text", [])):
            p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "--summary"] +
                                 (extra or ["-o", fmt]), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            wait_line(p, "binary statistics")
            time.sleep(0.3)
            v = vcpu_vals(1, h, [0] * 4)
            v["halt_wait_ns"] = 1000 + big
            v["exit_lat_us"] = 8
            vm_stats(root, 4600, {"mmu_cache_bytes": 5}, {0: v})
            time.sleep(3.5)      # --summary reads counters every 3 s (the default delay)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=20)
            outs[fmt] = (out.decode(), err.decode())
            vm_stats(root, 4600, {"mmu_cache_bytes": 3}, {0: vcpu_vals(1, h, [0] * 4)})
        line = outs["json"][0].splitlines()[-1] if outs["json"][0] else "{}"
        # a reader keeping every number as a double (jq, JavaScript)
        doc = json.loads(line, parse_int=float, parse_float=float)
        vm = next((v for v in doc.get("vms", []) if v["pid"] == 4600), {"vcpus": [{}], "kvm_stats": {}})
        k = vm["vcpus"][0].get("kvm_stats", {})
        hw = k.get("halt_wait_ns")
        ok(isinstance(hw, str) and int(hw) == big,
           "stats: JSON: a sum of ns past 2^53 read exact by a double-based reader (a decimal string)", hw)
        eq((k.get("exit_lat_ns"), "exit_lat_us" in k, vm["kvm_stats"].get("mmu_cache_bytes")),
           ("8000", False, 5 * 1024.0),
           "stats: JSON: a us counter in ns under _ns, a KiB size in bytes")
        rows = [l.split(",") for l in outs["fields"][0].splitlines()]
        eq(rows[:1] + rows[-1:], [["vcpu", "vcpu_kvm_halt_wait_ns", "vcpu_kvm_exit_lat_ns", "vm_kvm_mmu_cache_bytes",
                                   "vcpu_kvm_exits", "vm_kvm_mmu_cache_bytes", "vcpu_kvm_no_such_stat"],
                                  ["0", str(big), "8000", str(5 * 1024), "0", str(5 * 1024), ""]],
           "stats: CSV --fields: KVM statistics by their fields' names (old kvm_ and kvm_vm_ names too), exact; "
           "one KVM does not give empty")
        eq([l for l in outs["fields"][1].splitlines() if "no_such_stat" in l][:1],
           ["kvmtop: vcpu_kvm_no_such_stat: KVM gives no such statistic here, empty (null in JSON): --source "
            "stats reads them, JSON's kvm_stats_info lists those there are (a histogram is in JSON only)"],
           "stats: --fields of a statistic KVM does not give: one line says so")
        head, *body = [l.split(",") for l in outs["csv"][0].splitlines()] or [[]]
        cells = dict(zip(head, body[-1])) if body else {}
        eq((cells.get("vcpu_kvm_halt_wait_ns"), cells.get("vcpu_kvm_exit_lat_ns"), cells.get("vm_kvm_mmu_cache_bytes")),
           (str(big), "8000", str(5 * 1024)), "stats: CSV's default columns: the same names and values")
        kv = dict(re.findall(r"(\w+)=(\d+)", " ".join(l for l in outs["text"][0].splitlines() if "kvm stats:" in l)))
        eq((kv.get("vcpu_kvm_halt_wait_ns"), kv.get("vcpu_kvm_exit_lat_ns"), kv.get("vm_kvm_mmu_cache_bytes")),
           (str(big), "8000", str(5 * 1024)), "stats: text's kvm stats line: the fields' names, the same values")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def held_case():
    """A VMM that holds its statistics fds open (kvmtop --demo's guest, QEMU since it shows them):
    KVM answers KVM_GET_STATS_FD only in the VM's own process, so those fds are the ones to take.
    Here only they read anything (kvm-stats/40.. ; nothing for the KVM fds themselves): every
    vCPU is still found by the id in its header, with its thread by its own vCPU fd's syscall."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-held-")
    try:
        proc_vm(root, 4300, "held", {0: (4301, "CPU 0/KVM", True), 1: (4302, "vcpu1", True)}, held=True)
        h = [0] * 32
        vm_stats(root, 4300, {"pages_4k": 10}, {0: vcpu_vals(10, h, [0] * 4), 1: vcpu_vals(20, h, [0] * 4)},
                 held=True)
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "-d", "0.3", "-n", "2",
                              "-o", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_line(p, "binary statistics")
        time.sleep(0.1)
        vm_stats(root, 4300, {"pages_4k": 12}, {0: vcpu_vals(13, h, [0] * 4), 1: vcpu_vals(20, h, [0] * 4)},
                 held=True)
        out, err = p.communicate(timeout=20)
        docs = [json.loads(l) for l in out.decode().splitlines() if l.startswith("{")]
        vm = next((v for v in docs[-1]["vms"] if v["pid"] == 4300), {}) if docs else {}
        # the growth, whichever of the two snapshots it fell in
        grew = {}
        for d in docs:
            for v in d["vms"]:
                for c in v["vcpus"] if v["pid"] == 4300 else []:
                    grew[c["vcpu"]] = grew.get(c["vcpu"], 0) + c["kvm_stats"]["exits"]
        got = sorted((c["vcpu"], c["tid"], grew.get(c["vcpu"])) for c in vm.get("vcpus", []))
        eq((p.returncode, got, vm.get("kvm_stats", {}).get("pages_4k")), (0, [(0, 4301, 30), (1, 4302, 0)], 12),
           "stats: the statistics fds the VMM holds: each vCPU by its header's id, its thread by its "
           "vCPU fd, its growth; the VM's own")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def no_vm_proc(root, pid):
    """Process pid, a VMM that holds no VM yet (its fds: none of KVM's)."""
    d = os.path.join(root, str(pid))
    put(os.path.join(d, "status"), "Name:\tslowvmm\nTgid:\t%d\nPid:\t%d\n" % (pid, pid), "w")
    put(os.path.join(d, "comm"), "slowvmm\n", "w")
    put(os.path.join(d, "cmdline"), b"slowvmm\0")
    os.makedirs(os.path.join(d, "fd"), exist_ok=True)
    os.symlink("/dev/null", os.path.join(d, "fd", "0"))


def sums(docs, pid, key):
    """Per vCPU of VM pid, kvm_stats[key] summed over the snapshots docs, and the first snapshot
    (its end, in the source's clock) that has the vCPU's row."""
    tot, first = {}, {}
    for d in docs:
        for v in d["vms"]:
            for c in v["vcpus"] if v["pid"] == pid else []:
                tot[c["vcpu"]] = tot.get(c["vcpu"], 0) + (c["kvm_stats"].get(key) or 0)
                first.setdefault(c["vcpu"], int(d["end"]))
    return tot, first


def late_case():
    """What comes late, in one-second snapshots (-d 1): a vCPU made 4 s after kvmtop started (past
    the three looks a VM's fds once had before a 30 s wait), and a VM made 4 s in by a process that
    was there from the start holding none, are found within a look (a second) and count from zero,
    so their snapshots sum to what the fixture wrote (marked birth); a vCPU whose statistics could
    not be had at the start (its file missing) and appear later, made before kvmtop started, counts
    from its first reading: its growth since, marked found, and its VM with it."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-late-")
    h = [0] * 32
    try:
        proc_vm(root, 4500, "late", {0: (4501, "CPU 0/KVM", True), 1: (4502, "CPU 1/KVM", True)})
        vm_stats(root, 4500, {}, {0: vcpu_vals(10, h, [0] * 4)})      # vCPU 1's statistics: not yet
        no_vm_proc(root, 4600)
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "-d", "1", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_line(p, "binary statistics")
        time.sleep(1.5)
        vm_stats(root, 4500, {}, {0: vcpu_vals(10, h, [0] * 4), 1: vcpu_vals(100, h, [0] * 4)})
        time.sleep(1.0)
        vm_stats(root, 4500, {}, {0: vcpu_vals(10, h, [0] * 4), 1: vcpu_vals(130, h, [0] * 4)})
        time.sleep(1.5)
        made = time.monotonic_ns()
        proc_vm(root, 4500, "late", {0: (4501, "CPU 0/KVM", True), 1: (4502, "CPU 1/KVM", True),
                                     2: (4503, "CPU 2/KVM", True)})
        vm_stats(root, 4500, {}, {0: vcpu_vals(10, h, [0] * 4), 1: vcpu_vals(130, h, [0] * 4),
                                  2: vcpu_vals(7, h, [0] * 4)})
        vm_stats(root, 4600, {}, {0: vcpu_vals(5, h, [0] * 4)})      # the same process: its fds now
        proc_vm(root, 4600, "slow", {0: (4601, "CPU 0/KVM", True)})
        time.sleep(1.5)
        vm_stats(root, 4500, {}, {0: vcpu_vals(10, h, [0] * 4), 1: vcpu_vals(130, h, [0] * 4),
                                  2: vcpu_vals(9, h, [0] * 4)})
        vm_stats(root, 4600, {}, {0: vcpu_vals(6, h, [0] * 4)})
        time.sleep(2.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
        docs = [json.loads(l) for l in out.decode().splitlines() if l.startswith("{")]
        tot, first = sums(docs, 4500, "io_exits")
        tot6, first6 = sums(docs, 4600, "io_exits")
        eq((p.returncode, tot.get(2), tot6.get(0)), (0, 4 * 9, 4 * 6),
           "stats: a vCPU made late, and a VM made late by a process there from the start: their "
           "snapshots sum to their counts from zero")
        late = max(first.get(2, made + 10 ** 10), first6.get(0, made + 10 ** 10)) - made
        ok(late <= 2.5e9, "stats: both are in a snapshot within a look (a second) and that snapshot "
           "(%.1f s after they were made)" % (late / 1e9))
        eq(tot.get(1), 4 * 30, "stats: a vCPU made before the start whose statistics came late: its "
           "growth from its first reading")
        last = {v["pid"]: v for v in docs[-1]["vms"]} if docs else {}
        marks = lambda pid: (last.get(pid, {}).get("counted_from"),
                             sorted((c["vcpu"], c["counted_from"]) for c in last.get(pid, {}).get("vcpus", [])))
        eq((marks(4500), marks(4600)),
           (("found", [(0, "start"), (1, "found"), (2, "birth")]), ("birth", [(0, "birth")])),
           "stats: counted_from marks each VM and vCPU: start, birth, found (a VM with a vCPU found late too)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def exiting_case():
    """A VM process that is exiting: it has closed its fds (so it holds no VM, as a zombie or a
    process in its exit does) but is still in /proc, its counters grown since kvmtop's last
    reading.  kvmtop still holds the statistics fds, which read the final counts: they are read a
    last time before the VM is let go, so the snapshots sum to the whole growth."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-exiting-")
    h = [0] * 32
    try:
        d = proc_vm(root, 4800, "exiting", {0: (4801, "CPU 0/KVM", True)})
        vm_stats(root, 4800, {}, {0: vcpu_vals(10, h, [0] * 4)})
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "-d", "0.3", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_line(p, "binary statistics")
        time.sleep(1.0)
        # kvmtop stopped while the VM grows and its process closes its fds: no reading between
        p.send_signal(signal.SIGSTOP)
        vm_stats(root, 4800, {}, {0: vcpu_vals(25, h, [0] * 4)})
        for fd in os.listdir(os.path.join(d, "fd")):
            os.unlink(os.path.join(d, "fd", fd))
        p.send_signal(signal.SIGCONT)
        time.sleep(1.0)
        shutil.rmtree(d)
        time.sleep(0.6)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
        docs = [json.loads(l) for l in out.decode().splitlines() if l.startswith("{")]
        tot, first = sums(docs, 4800, "io_exits")
        eq((p.returncode, tot.get(0)), (0, 4 * 15),
           "stats: a VM whose process closed its fds (exiting) while it grew: read a last time, its "
           "snapshots sum to its whole growth")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def other_exits_case():
    """A kernel's "exits" counts every exit, io_exits, halt_exits ... only their kinds: the rest is the
    reason other_exits, so a VM's and each vCPU's reason rows sum to the exits the fixture wrote.  What
    the stats source does not measure is null: every latency figure (samples too), the userspace
    exits and other kvm events."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-other-")
    h = [0] * 32

    def vals(base, rest):
        v = vcpu_vals(base, h, [0] * 4)     # io 4, mmio 2, halt 1, irq 3 x base: 10 x base of kinds
        v["exits"] = base * 10 + rest
        return v
    try:
        proc_vm(root, 4500, "rest", {0: (4501, "CPU 0/KVM", True), 1: (4502, "CPU 1/KVM", True)})
        vm_stats(root, 4500, {}, {0: vals(10, 5), 1: vals(20, 0)})
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "--summary", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_line(p, "binary statistics")
        time.sleep(0.5)
        vm_stats(root, 4500, {}, {0: vals(40, 77), 1: vals(25, 30)})
        time.sleep(3.5)      # --summary reads counters every 3 s (the default delay)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
        doc = json.loads(out.decode().splitlines()[-1])
        vm = next((v for v in doc["vms"] if v["pid"] == 4500), {"reasons": [], "vcpus": []})
        # growth: vCPU 0 exits 372, kinds 300; vCPU 1 exits 80, kinds 50
        want = {"other_exits": 72 + 30, "io_exits": 120 + 20, "mmio_exits": 60 + 10, "halt_exits": 30 + 5,
                "irq_exits": 90 + 15}
        eq(({r["reason"]: r["count"] for r in vm["reasons"]}, vm.get("exits")), (want, 372 + 80),
           "stats: other_exits holds the exits no counter of a kind counts: the reasons sum to the VM's exits")
        eq(sorted((c["vcpu"], c["exits"], sum(r["count"] for r in c["reasons"])) for c in vm["vcpus"]),
           [(0, 372, 372), (1, 80, 80)], "stats: each vCPU's reasons sum to its exits")
        lat = {(k, v) for r in vm["reasons"] + [r for c in vm["vcpus"] for r in c["reasons"]]
               for k, v in r["latency"].items()}
        eq(({v for k, v in lat}, vm.get("events", 0), vm.get("userspace_exits", 0)), ({None}, None, None),
           "stats: no latency (null, samples too), userspace exits or events: not measured, not 0")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def kvmtop_files(pid, root):
    """What kvmtop pid has open under root, each as its path below root ("" for root itself)."""
    out = []
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if target == root or target.startswith(root + "/"):
            out.append(target[len(root) + 1:])
    return sorted(out)


def stats_files(files):
    """Of kvmtop_files(), the VMs' statistics, PID/kvm-stats/N (" (deleted)": its VM has gone)."""
    return [f for f in files if re.match(r"\d+/kvm-stats/\d+( \(deleted\))?$", f)]


def rss_anon_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    return 0


def churn_case():
    """50 VMs come and go, one after the other: kvmtop holds each one's files
    while it runs, none after, and its memory comes back to where it was
    (a VM's rows go once it has gone: each held some 30 KiB)."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-")
    try:
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "-d", "0.1", "-o", "csv"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)
        peak = []
        for k in range(50):
            pid = 5000 + 10 * k
            proc_vm(root, pid, "vm%d" % k, {0: (pid + 1, "CPU 0/KVM", True), 1: (pid + 2, "CPU 1/KVM", True)})
            vm_stats(root, pid, {}, {0: vcpu_vals(1, [0] * 32, [0] * 4), 1: vcpu_vals(1, [0] * 32, [0] * 4)})
            # each poll lists root's processes as /proc's (opendir, a process's fd/ and task/,
            # its comm ...), each closed once read: caught in the middle, kvmtop holds one of
            # those too, and it is none of a VM's statistics; only these are counted.  kvmtop
            # polls each -d (0.1 s), but on a loaded machine its next poll can come seconds
            # later: the count is taken once it holds three of this VM's files (it opens them in
            # one poll, one after the other), or 10 s passed; every file it holds is counted
            end = time.time() + 10
            while True:
                held = stats_files(kvmtop_files(p.pid, root))
                if len([f for f in held if f.startswith("%d/" % pid)]) >= 3 or time.time() > end:
                    break
                time.sleep(0.05)
            peak.append(len(held))
            if k == 1:
                rss0 = rss_anon_kib(p.pid)      # the first VMs made the tables every VM uses
            shutil.rmtree(os.path.join(root, str(pid)))
            for t in (pid + 1, pid + 2):
                shutil.rmtree(os.path.join(root, str(t)))
        # nothing of any VM, and root itself at most once: the listing a poll may be in (kvmtop
        # has one thread, and closes each listing before the next); its next poll lets the last
        # VM's files go, however late it comes on a loaded machine
        end = time.time() + 10
        while stats_files(kvmtop_files(p.pid, root)) and time.time() < end:
            time.sleep(0.05)
        left = kvmtop_files(p.pid, root)
        if "" in left:
            left.remove("")
        rss1 = rss_anon_kib(p.pid)
        asan = "libasan" in open("/proc/%d/maps" % p.pid).read()
        p.terminate()
        p.communicate(timeout=20)
        eq(peak, [3] * 50, "stats: each of 50 VMs has its three stats files open while it runs")
        eq(left, [], "stats: none is left open once the VMs are gone")
        what = "stats: kvmtop's memory comes back after 50 VMs came and went"
        if asan:
            skip(what, "an AddressSanitizer build keeps freed memory in quarantine")
        else:
            ok(rss1 <= rss0 + 128, "%s (%d -> %d KiB)" % (what, rss0, rss1))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bad_cases():
    good = lambda **kw: stats_bytes("kvm-1/vcpu-0", VCPU, vcpu_vals(1, [0] * 32, [0] * 4), **kw)
    def patch_desc(field_off, fmt, value, idx=0):
        def f(b, lay):
            struct.pack_into(fmt, b, lay["desc"] + idx * lay["desc_len"] + field_off, value)
        return f
    def no_nul(b, lay):
        base = lay["desc"] + 16
        b[base:base + NAME_SIZE] = b"x" * NAME_SIZE
    def dup_name(b, lay):
        a, c = lay["desc"] + 16, lay["desc"] + lay["desc_len"] + 16
        b[c:c + NAME_SIZE] = b[a:a + NAME_SIZE]
    hdr = lambda field, value: (lambda b, lay: struct.pack_into("=I", b, 4 * field, value))
    cases = [
        ("a header cut short", good(cut=10), "header"),
        ("descriptors cut short", good(cut=24 + 48 + 100), "descriptors"),
        ("a data block cut short", good(cut=len(good()) - 8), "data block"),
        ("name_size 0", good(patch=hdr(1, 0)), "name_size"),
        ("num_desc past the limit", good(patch=hdr(2, 1 << 20)), "num_desc"),
        ("an id offset past the end", good(patch=hdr(3, 1 << 30)), "id"),
        ("a name without its NUL", good(patch=no_nul), "NUL"),
        ("the same name twice", good(patch=dup_name), "twice"),
        ("an offset not a multiple of 8", good(patch=patch_desc(8, "=I", 4)), "multiple of 8"),
        ("values past the data limit", good(patch=patch_desc(8, "=I", 0xfffffff8)), "past"),
        ("size 0", good(patch=patch_desc(6, "=H", 0)), "size 0"),
        ("a linear histogram of bucket_size 0", good(patch=patch_desc(12, "=I", 0, idx=len(VCPU) - 1)),
         "bucket_size 0"),
    ]
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-stats-bad-")
    try:
        proc_vm(root, 1, "bad", {0: (2, "CPU 0/KVM", True)})
        put(os.path.join(root, "1", "kvm-stats", "10"), stats_bytes("kvm-1", VM, {}))
        for what, data, field in cases:
            put(os.path.join(root, "1", "kvm-stats", "11"), data)
            rc, out, err = run(["-b", "--source", "stats", "--proc", root, "-n", "1", "-d", "0.1"], timeout=30)
            one_clear_line(rc, err, "stats: %s: one line naming the file and the field" % what,
                           field)
            ok(os.path.join(root, "1", "kvm-stats", "11") in err, "stats: %s: the line names the file" % what, err)
            if os.environ.get("KVMTOP_ASAN"):
                rc, out, err, rss = asan_run(["-b", "--source", "stats", "--proc", root, "-n", "1", "-d", "0.1"])
                one_clear_line(rc, err, "stats: %s: the same under ASan/UBSan" % what, field)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def usage_case():
    rc, out, err = run(["-b", "--proc", "/tmp", "-n", "1"])
    one_clear_line(rc, err, "stats: --proc without --source stats is a usage error", "--proc")
    rc, out, err = run(["-b", "--source", "stats", "--buffer-kb", "1024", "-n", "1"])
    one_clear_line(rc, err, "stats: --buffer-kb with --source stats is a usage error", "--buffer-kb")
    # with no --source, the bpf source's options ask for it (the default), the trace source's for
    # tracing: both at once name no source
    rc, out, err = run(["-b", "--bpf-entries", "1024", "--no-sched", "-n", "1"])
    one_clear_line(rc, err, "--bpf-entries with --no-sched and no --source is a usage error", "give --source")
    rc, out, err = run(["-b", "-r", "/nonexistent.dat", "--bpf-samples", "10"])
    one_clear_line(rc, err, "--bpf-samples with -r is a usage error", "--bpf-samples")


fixture_case()
units_case()
held_case()
late_case()
exiting_case()
other_exits_case()
churn_case()
bad_cases()
usage_case()
done()
