# SPDX-License-Identifier: GPL-2.0
"""A VM's context (src/context/): memory, disk, network, pressure.

kvmtop reads them from /proc, /sys and cgroupfs at each snapshot.  The
stats source on a tree laid out as /proc (--proc DIR) and one laid out as
/sys (--sys DIR) shows what it makes of given files; the oracle is what
the test wrote there: levels as written, each counter's growth over the
snapshot's seconds, and "unknown" (null) where a file is missing, a VMM
shares its cgroup, holds no tap, or the kernel does not account delays.

Then the same tree's files are links to a real process of the test's own
(a stand-in VMM: any process can be read the way a VMM is), and the oracle
is what the test made it do: touch 64 MiB (resident grows by that within
a stated tolerance), read 4 MiB from a file with O_DIRECT (read_bytes),
send N frames of S bytes into a tap it holds (the interface's receive
counters), and sit in a cgroup v2 of its own (pressure figures present
and no more than the growth the test reads itself from the same files).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, wait_line
from kstat_fixture import put, proc_vm, vm_stats, vcpu_vals

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
H0 = [0] * 32
LIN = [0, 0, 0, 0]
MIB = 1 << 20


def stat_line(pid, majflt, blkio=None, cpu=0):
    """A /proc/PID/stat: majflt is field 12, processor 39, delayacct_blkio_ticks 42 (left out: None)."""
    f = [str(pid), "(qemu-system-x86)", "S"] + ["0"] * 49
    f[11] = str(majflt)
    f[38] = str(cpu)
    if blkio is None:
        f = f[:20]
    else:
        f[41] = str(blkio)
    return " ".join(f) + "\n"


def psi(some, full):
    return ("some avg10=1.00 avg60=0.50 avg300=0.10 total=%d\n"
            "full avg10=0.50 avg60=0.20 avg300=0.05 total=%d\n" % (some, full))


def write_vm1(root, sysd, n):
    """VM 4100: every figure, its counters at step n (0, 1)."""
    d = os.path.join(root, "4100")
    put(os.path.join(d, "status"), "Name:\tqemu-system-x86\nTgid:\t4100\nPid:\t4100\n"
        "VmRSS:\t  %d kB\nVmSwap:\t  %d kB\n" % (300000 + 1000 * n, 2048 * (1 + n)), "w")
    put(os.path.join(d, "stat"), stat_line(4100, 50 + 30 * n, 0), "w")
    for tid, ticks, cpu in ((4100, 7, 0), (4101, 3, 2), (4102, 0, 1)):
        put(os.path.join(d, "task", str(tid), "stat"), stat_line(tid, 0, ticks * (1 + 4 * n), cpu), "w")
    # NUMA: nodes 0 (CPUs 0-1) and 1 (2-3); vCPU 0 on CPU 2 runs 200 ms of the interval, vCPU 1 on CPU 0 600 ms
    for node, cpus in ((0, "0-1"), (1, "2-3")):
        put(os.path.join(sysd, "devices", "system", "node", "node%d" % node, "cpulist"), cpus + "\n", "w")
    for tid, run in ((4101, 10 ** 9 + 2 * 10 ** 8 * n), (4102, 5 * 10 ** 8 + 6 * 10 ** 8 * n)):
        put(os.path.join(d, "task", str(tid), "schedstat"), "%d 0 10\n" % run, "w")
    put(os.path.join(d, "numa_maps"), "7f0000000000 default anon=4000 dirty=4000 N0=1000 N1=3000 "
        "kernelpagesize_kB=4\n7f2000000000 default file=/dev/hugepages/g huge dirty=10 N1=10 "
        "kernelpagesize_kB=2048\n7f4000000000 default file=/usr/lib/x.so\n", "w")
    put(os.path.join(d, "cmdline"), b"qemu-system-x86_64\0-name\0guest=web1\0-m\0size=2G,slots=4\0")
    put(os.path.join(d, "smaps_rollup"), "Rss:\t  300000 kB\nAnonHugePages:\t  524288 kB\n"
        "Shared_Hugetlb:\t  0 kB\nPrivate_Hugetlb:\t  0 kB\n", "w")
    put(os.path.join(d, "io"), "rchar: 1\nwchar: 1\nsyscr: %d\nsyscw: %d\nread_bytes: %d\n"
        "write_bytes: %d\ncancelled_write_bytes: 0\n" % (100 + 40 * n, 10 + 20 * n, 8 * MIB + 3 * MIB * n,
                                                         MIB + 2 * MIB * n), "w")
    put(os.path.join(root, "pressure", "cpu"), psi(100 + 400000 * n, 100), "w")
    put(os.path.join(d, "cgroup"), "0::/machine.slice/machine-qemu\\x2d1\\x2dweb1.scope/libvirt/emulator\n", "w")
    cg = os.path.join(sysd, "fs", "cgroup", "machine.slice", "machine-qemu\\x2d1\\x2dweb1.scope")
    put(os.path.join(cg, "cgroup.procs"), "", "w")
    put(os.path.join(cg, "cpu.pressure"), psi(1000000 + 200000 * n, 0), "w")
    put(os.path.join(cg, "memory.pressure"), psi(5000 + 300000 * n, 2000 + 150000 * n), "w")
    put(os.path.join(cg, "io.pressure"), psi(9000 + 300000 * n, 9000 + 10000 * n), "w")
    if not os.path.lexists(os.path.join(d, "fd", "20")):
        os.symlink("/dev/net/tun", os.path.join(d, "fd", "20"))
        os.symlink("/dev/net/tun", os.path.join(d, "fd", "21"))     # a second queue of the same tap
        os.symlink("/dev/tap33", os.path.join(d, "fd", "22"))        # a macvtap, ifindex 33
    for fd in ("20", "21"):
        put(os.path.join(d, "fdinfo", fd), "pos:\t0\nflags:\t02\nmnt_id:\t24\niff:\tvnet7\n", "w")
    for ifn, idx, k in (("vnet7", 7, 1), ("macvtap0", 33, 10)):
        net = os.path.join(sysd, "class", "net", ifn)
        put(os.path.join(net, "ifindex"), "%d\n" % idx, "w")
        for name, v in (("rx_bytes", 6000 + 1500 * 40 * n), ("tx_bytes", 1000 + 60 * 20 * n),
                        ("rx_packets", 4 + 40 * n), ("tx_packets", 2 + 20 * n),
                        ("rx_dropped", 0), ("tx_dropped", 3 * n)):
            put(os.path.join(net, "statistics", name), "%d\n" % (v * k), "w")


def write_vm2(root, sysd):
    """VM 4200: a shared cgroup, no tap, an io file whose read fails (a directory: EISDIR, as a
    file gone mid-read), a stat without delay accounting, no swap line."""
    d = os.path.join(root, "4200")
    os.makedirs(os.path.join(d, "io"), exist_ok=True)
    put(os.path.join(d, "status"), "Name:\tqemu-system-x86\nTgid:\t4200\nVmRSS:\t  1000 kB\n", "w")
    put(os.path.join(d, "stat"), stat_line(4200, 5), "w")
    put(os.path.join(d, "task", "4200", "stat"), stat_line(4200, 5), "w")
    put(os.path.join(d, "cgroup"), "0::/user.slice/session-1.scope\n", "w")
    cg = os.path.join(sysd, "fs", "cgroup", "user.slice", "session-1.scope")
    put(os.path.join(cg, "cgroup.procs"), "1\n4200\n", "w")
    put(os.path.join(cg, "memory.pressure"), psi(1, 1), "w")


def snapshots(p, n, between=None):
    """n JSON lines of kvmtop p; between(i) runs after line i (1-based) is read."""
    docs = []
    for i in range(n):
        line = p.stdout.readline()
        if not line:
            break
        docs.append(json.loads(line))
        if between:
            between(i + 1)
    return docs


def vm_of(doc, pid):
    return next((v for v in doc["vms"] if v["pid"] == pid), None)


def near(got, want, rel=0.01, absolute=0.02):
    return got is not None and abs(got - want) <= max(abs(want) * rel, absolute)


OM_PARSE = """
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
print(json.dumps([[s.name, s.labels, s.value] for f in text_string_to_metric_families(sys.stdin.read())
                  for s in f.samples]))
"""


def metrics_check(proc, sysd):
    """-o openmetrics of the fixture at step 1: the kernel's totals as the files hold them, parsed
    by prometheus_client (not kvmtop's code)."""
    sys_py = "/usr/bin/python3"     # Debian's, which sees python3-prometheus-client
    if subprocess.run([sys_py, "-c", "import prometheus_client"], capture_output=True).returncode:
        skip("context: the metrics of a VM's context", "python3-prometheus-client is not installed")
        return
    p = subprocess.run([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--sys", sysd, "-n", "1",
                        "-o", "openmetrics"], capture_output=True, timeout=30)
    parsed = subprocess.run([sys_py, "-c", OM_PARSE], input=p.stdout, capture_output=True, timeout=60)
    ok(parsed.returncode == 0, "metrics: the VM context's families pass prometheus_client's strict parser",
       parsed.stderr.decode()[-500:])
    got = {}
    for name, labels, value in json.loads(parsed.stdout or b"[]"):
        if name.startswith("kvmtop_vm_") and labels.get("pid") in ("4100", "4200"):
            key = (name, labels["pid"]) + tuple(sorted((k, v) for k, v in labels.items() if k not in ("vm", "pid")))
            got[key] = value
    want = {("kvmtop_vm_memory_bytes", "4100", ("kind", "resident")): 301000 * 1024,
            ("kvmtop_vm_memory_bytes", "4100", ("kind", "swapped")): 4096 * 1024,
            ("kvmtop_vm_memory_bytes", "4100", ("kind", "guest")): 2 << 30,
            ("kvmtop_vm_huge_pages_ratio", "4100"): 0.25,
            ("kvmtop_vm_major_faults_total", "4100"): 80,
            ("kvmtop_vm_disk_bytes_total", "4100", ("op", "read")): 11 * MIB,
            ("kvmtop_vm_disk_operations_total", "4100", ("op", "write")): 30,
            ("kvmtop_vm_blkio_delay_seconds_total", "4100"): 50.0 / os.sysconf("SC_CLK_TCK"),
            ("kvmtop_vm_network_packets_total", "4100", ("dir", "rx")): 11 * 44,
            ("kvmtop_vm_network_drops_total", "4100"): 33,
            ("kvmtop_vm_pressure_seconds_total", "4100", ("kind", "some"), ("resource", "memory")): 0.305,
            ("kvmtop_vm_memory_bytes", "4200", ("kind", "resident")): 1000 * 1024}
    eq({k: got.get(k) for k in want}, want, "metrics: a VM's context, the kernel's totals as the fixture holds them")
    eq(sorted(k for k in got if k[1] == "4200"), [("kvmtop_vm_major_faults_total", "4200"),
                                                  ("kvmtop_vm_memory_bytes", "4200", ("kind", "resident"))],
       "metrics: a figure not known is no series (VM 4200: no swap line, io, tap, delay field or cgroup)")
    eq(len(got), 21 + 2, "metrics: 21 series of a VM with every figure known (the man page's count)")


def two_vms(prefix):
    """A fixture root with two VMs of the stats source, web1 (pid 4100, vCPUs 4101 and 4102) and
    db2 (pid 4200, vCPU 4201): the root, its proc and sys folders."""
    root = tempfile.mkdtemp(dir=TMP, prefix=prefix)
    proc, sysd = os.path.join(root, "proc"), os.path.join(root, "sys")
    proc_vm(proc, 4100, "web1", {0: (4101, "CPU 0/KVM", True), 1: (4102, "CPU 1/KVM", True)})
    vm_stats(proc, 4100, {}, {0: vcpu_vals(10, H0, LIN), 1: vcpu_vals(10, H0, LIN)})
    proc_vm(proc, 4200, "db2", {0: (4201, "CPU 0/KVM", True)})
    vm_stats(proc, 4200, {}, {0: vcpu_vals(10, H0, LIN)})
    return root, proc, sysd


def fixture_case():
    root, proc, sysd = two_vms("kvmtop-ctx-")
    try:
        put(os.path.join(proc, "sys", "kernel", "task_delayacct"), "1\n", "w")
        for f, s in (("memory", 200), ("io", 300)):
            put(os.path.join(proc, "pressure", f), psi(s, s), "w")
        write_vm1(proc, sysd, 0)
        write_vm2(proc, sysd)
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--sys", sysd,
                              "-d", "1", "-n", "2", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        docs = snapshots(p, 2, lambda i: i == 1 and write_vm1(proc, sysd, 1))
        out, err = p.communicate(timeout=30)
        eq((p.returncode, len(docs)), (0, 2), "context: two snapshots of the fixture")
        if len(docs) < 2:
            return
        a1, a, b = vm_of(docs[0], 4100), vm_of(docs[1], 4100), vm_of(docs[1], 4200)
        secs = docs[1]["seconds"]
        eq((a["mem_rss_bytes"], a["mem_swap_bytes"]), (301000 * 1024, 4096 * 1024),
           "context: resident and swapped, from status (kB)")
        eq((a["guest_ram_bytes"], a["guest_ram_from"]), (2 << 30, "cmdline"),
           "context: the guest's RAM from -m size=2G, and where it came from")
        eq(a["huge_pct"], 25.0, "context: huge-page share: AnonHugePages over the guest's RAM")
        eq([a1[k] for k in ("majflt_per_s", "disk_rd_bytes_per_s", "net_rx_bytes_per_s", "psi_mem_some_pct", "blkio_pct")],
           [0.0] * 5, "context: read at the run's start too: the first snapshot's rates are the growth since (none here)")
        ok(near(a["majflt_per_s"] * secs, 30), "context: major faults per second: stat's majflt growth",
           (a["majflt_per_s"], secs))
        ok(near(a["disk_rd_bytes_per_s"] * secs, 3 * MIB) and near(a["disk_wr_bytes_per_s"] * secs, 2 * MIB) and
           near(a["disk_rd_ops_per_s"] * secs, 40) and near(a["disk_wr_ops_per_s"] * secs, 20),
           "context: disk bytes and calls per second from io", a)
        ok(near(a["blkio_pct"] * secs, 100.0 * 40 / os.sysconf("SC_CLK_TCK")),
           "context: block-I/O delay: the ticks of every thread, as % of the interval", a["blkio_pct"])
        eq(a["net_taps"], 2, "context: the taps its VMM holds: a tun fd's iff (two queues: once) and a macvtap")
        ok(near(a["net_rx_bytes_per_s"] * secs, 11 * 1500 * 40) and near(a["net_rx_packets_per_s"] * secs, 11 * 40) and
           near(a["net_tx_packets_per_s"] * secs, 11 * 20) and near(a["net_drops_per_s"] * secs, 11 * 3),
           "context: the taps' counters summed, per second", a)
        taps = {t["name"]: t for t in a.get("net_interfaces", [])}
        ok(sorted(taps) == ["macvtap0", "vnet7"] and
           all(near(taps[n]["rx_bytes_per_s"] * secs, k * 1500 * 40) and near(taps[n]["tx_bytes_per_s"] * secs, k * 60 * 20) and
               near(taps[n]["rx_packets_per_s"] * secs, k * 40) and near(taps[n]["tx_packets_per_s"] * secs, k * 20) and
               near(taps[n]["drops_per_s"] * secs, k * 3) for n, k in (("vnet7", 1), ("macvtap0", 10))) and
           all(v == 0 for t in a1["net_interfaces"] for k, v in t.items() if k not in ("name", "counted_from")) and
           all(t["counted_from"] == "start" for t in a1["net_interfaces"]),
           "context: JSON's net_interfaces: each tap's own rates (0 in the first snapshot: read at the start too, "
           "so it counts from kvmtop's start)",
           (a.get("net_interfaces"), a1.get("net_interfaces")))
        eq([[taps.get(n, {}).get(k) for k in ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "drops")]
            for n in ("vnet7", "macvtap0")], [[k * 1500 * 40, k * 60 * 20, k * 40, k * 20, k * 3] for k in (1, 10)],
           "context: JSON's net_interfaces: each tap's counters' growth over the run, as the fixture grew them")
        eq([a[k] for k in ("majflt", "disk_rd_bytes", "disk_wr_bytes", "disk_rd_ops", "disk_wr_ops", "net_rx_bytes",
                           "net_tx_bytes", "net_rx_packets", "net_tx_packets", "net_drops")],
           [30, 3 * MIB, 2 * MIB, 40, 20, 11 * 1500 * 40, 11 * 60 * 20, 11 * 40, 11 * 20, 11 * 3],
           "context: the totals over the run (the fixture's growth since kvmtop's first reading): faults, disk, taps")
        ok(near(a["psi_cpu_some_pct"] * secs, 20.0) and near(a["psi_mem_some_pct"] * secs, 30.0) and
           near(a["psi_mem_full_pct"] * secs, 15.0) and near(a["psi_io_some_pct"] * secs, 30.0) and
           near(a["psi_cpu_full_pct"], 0.0),
           "context: its libvirt cgroup's PSI totals' growth, % of the interval", a)
        eq([b[k] for k in ("mem_swap_bytes", "disk_rd_bytes_per_s", "blkio_pct", "net_rx_bytes_per_s", "psi_mem_some_pct")],
           [None] * 5, "context: no VmSwap, io unreadable, no delay field, no tap, a shared cgroup: unknown")
        eq((b["mem_rss_bytes"], b["net_taps"]), (1000 * 1024, 0), "context: the figures it has, beside them")
        n0, n1 = 4000 * 1024, 3000 * 4096 + 10 * 2048 * 1024
        eq((a["numa_node"], a["numa_node_bytes"]), (1, [n0, n1]),
           "NUMA: the VM's memory per node from numa_maps (4 KiB and 2 MiB pages), the node holding most")
        ok(near(a["numa_node_pct"], 100.0 * n1 / (n0 + n1)), "NUMA: the share of its memory on that node",
           a["numa_node_pct"])
        eq(sorted((c["vcpu"], c["node"]) for c in a["vcpus"]), [(0, 1), (1, 0)],
           "NUMA: each vCPU's node: that of the CPU it last ran on (stat's processor, the node's cpulist)")
        eq((a1["numa_local_pct"], a["numa_local_pct"]), (None, 25.0),
           "NUMA: its vCPUs' time on the main node: 200 of 800 ms (none at the first reading)")
        eq((b["numa_node"], "numa_node_bytes" in b, b["vcpus"][0]["node"]), (None, False, None),
           "NUMA: no numa_maps, no vCPU stat: unknown")
        hp = docs[1]["host_pressure"]
        ok(near(hp["cpu_some"] * secs, 40.0) and hp["cpu_full"] == 0 and hp["io_some"] == 0,
           "context: the host's pressure in JSON: /proc/pressure's totals' growth", hp)
        ok("host_pressure" in docs[0] and docs[0]["host_pressure"]["cpu_some"] == 0,
           "context: the host's pressure at the first snapshot: read at the start too, its totals still", docs[0].get("host_pressure"))
        # the fixture's figures against the thresholds the man page's FINDINGS gives
        fs = {(f["pid"], f["rule"]): f["severity"] for f in docs[1]["findings"]}
        eq({k: v for k, v in fs.items() if k[1] in ("swapped", "memory-pressure", "io-pressure", "tap-drops",
                                                    "numa-remote")},
           {(4100, "swapped"): "warning", (4100, "memory-pressure"): "severe",
            (4100, "io-pressure"): "warning", (4100, "tap-drops"): "warning", (4100, "numa-remote"): "warning"},
           "context: findings: swapped (4 MiB, 30 faults/s), memory pressure (full 15 %), "
           "io pressure (some 30 %), tap drops (33/s), NUMA (89 % on node 1, its vCPUs there 25 %); "
           "none of VM 4200, whose figures are unknown")
        ev = next((f["evidence"] for f in docs[1]["findings"] if f["rule"] == "swapped"), "")
        faults = re.search(r"([0-9.]+) major faults/s", ev)
        ok("4 MiB" in ev and faults and near(float(faults.group(1)) * secs, 30, absolute=0.1),
           "context: the swapped finding's evidence: what is swapped out and the faults", ev)
        t = subprocess.run([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--sys", sysd, "-n", "1"],
                           capture_output=True, timeout=30).stdout.decode()
        line = next((l for l in t.splitlines() if l.strip().startswith("context:")), "")
        ok("vm_mem_rss_bytes=%d " % (301000 * 1024) in line and "vm_guest_ram_from=cmdline" in line
           and "vm_mem_swap_bytes=" in line and "vm_majflt_per_s=0.00 vm_majflt=0 " in line
           and "vm_mem_rss_peak_bytes" not in line,
           "text: a VM's context line, its known figures as NAME=value (none of VmHWM, which the fixture lacks)", line)
        ok("host pressure: cpu some 0.00 %" in t, "text: the host's pressure line (read at the start too)", t[:300])
        metrics_check(proc, sysd)
        put(os.path.join(proc, "sys", "kernel", "task_delayacct"), "0\n", "w")
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--sys", sysd,
                              "-d", "1", "-n", "2", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        docs = snapshots(p, 2, lambda i: i == 1 and write_vm1(proc, sysd, 1))
        p.communicate(timeout=30)
        a = vm_of(docs[-1], 4100) if docs else {}
        eq((a.get("blkio_pct", 0), a.get("disk_rd_bytes_per_s")), (None, 0.0),
           "context: delay accounting off (kernel.task_delayacct 0): blkio unknown, the rest measured")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def screen_case():
    """The VMs pane's context columns are off by default; the settings file picks them; a figure
    not known is '-'.  The vCPUs pane's node likewise.  Oracle: the fixture's numbers."""
    import shutil as sh
    if not sh.which("tmux"):
        skip("context: the VMs pane's context columns", "tmux is not installed")
        return
    import tui_keys as k
    import threading
    root, proc, sysd = two_vms("kvmtop-ctxs-")
    stop = threading.Event()
    try:
        write_vm1(proc, sysd, 1)
        write_vm2(proc, sysd)
        threading.Thread(target=grow_threads, args=(proc, stop), daemon=True).start()
        live = ["--source", "stats", "--proc", proc, "--sys", sysd, "-d", "1"]
        k.start(live, width=400)        # room for every column the pane shows by default
        # TOP REASON: the widest default column drawn (EVENTS/s is not, as the counters have none: issue 45)
        lines = k.wait_for(lambda ls: len(ls) > 3 and ls[3].split()[:1] == ["VM"] and "TOP REASON" in ls[3])
        ok(len(lines) > 3 and "TOP REASON" in lines[3] and not {"RES", "SWAP", "MAJFLT/S", "LOCAL%"} & set(lines[3].split()),
           "screen: the VMs pane's context columns are off by default, even with room for them",
           lines[3] if len(lines) > 3 else lines)
        k.quit_case("context screen")
        rc = os.path.join(root, "kvmtoprc")
        with open(rc, "w") as f:
            f.write("VMs.columns = vm_name,vm_mem_rss_bytes,vm_mem_swap_bytes,vm_numa_local_pct\nvCPUs.columns = vcpu,vcpu_node,vcpu_tid\n")
        k.start(["--config", rc] + live)
        rows_of = lambda ls: {l.split()[0]: l.split() for l in ls[4:] if l.split() and l.split()[0] in ("web1", "db2")}
        lines = k.wait_for(lambda ls: len(ls) > 3 and ls[3].split()[:4] == ["VM", "RES", "SWAP", "LOCAL%"]
                           and len(rows_of(ls)) == 2)
        eq(lines[3].split()[:4] if len(lines) > 3 else lines, ["VM", "RES", "SWAP", "LOCAL%"],
           "screen: the settings file picks the context columns, titled from the field table")
        rows = rows_of(lines)
        eq((rows.get("web1", [])[1:3], rows.get("db2", [])[1:3]), (["308.2M", "4194304"], ["1024000", "-"]),
           "screen: resident and swapped as counts (308.2M: 301,000 KiB), '-' where not known")
        for _ in range(3):      # web1's row selected (the pane's order is not this test's)
            if k.sel_name() == "web1":
                break
            k.keys("Down")
            time.sleep(0.5)
        k.keys("Enter")
        cells_of = lambda ls: sorted(tuple(l.split()[:2]) for l in ls[4:]
                                     if len(l.split()) > 2 and l.split()[2] in ("4101", "4102"))
        lines = k.wait_for(lambda ls: len(ls) > 3 and ls[3].split()[1:2] == ["NODE"] and len(cells_of(ls)) == 2)
        cells = cells_of(lines)
        eq(cells, [("0", "1"), ("1", "0")], "screen: the vCPUs pane's node column, picked by the settings file")
        k.quit_case("context screen (picked)")
        # m: the VM's context pane, one figure a row
        opens = Opens(os.path.join(proc, "4100", "task", "4103"), "io")
        k.start(["--config", rc] + live)
        k.wait_for(lambda ls: len(rows_of(ls)) == 2)
        time.sleep(2.5)
        eq(opens.count(), 0, "screen: no VMM thread's io file is read while no context pane shows its VM")
        for _ in range(3):
            if k.sel_name() == "web1":
                break
            k.keys("Down")
            time.sleep(0.5)
        k.keys("m")
        item = lambda ls, name: next((l for l in ls if l.startswith(name + " ")), "")
        lines = k.wait_for(lambda ls: any("Context of VM web1" in l for l in ls) and
                           "B/s" in item(ls, "tap vnet7 rx"), timeout=15)
        ok(item(lines, "resident").split()[-2:] == ["293.9", "MiB"] and
           item(lines, "swapped out").split()[-2:] == ["4.0", "MiB"] and
           item(lines, "memory on node 1").split()[4:6] == ["31.7", "MiB"] and
           "the most" in item(lines, "memory on node 1") and
           item(lines, "tap vnet7 rx").split()[3:5] == ["0.0", "B/s"],
           "screen: m, the VM's context: its memory (301,000 KiB), per node, a tap (the fixture's figures)",
           "\n".join(lines))
        k.keys("End")
        lines = k.wait_for(lambda ls: item(ls, "VMM threads") != "")
        ok(item(lines, "tap macvtap0 drops").split()[3:4] == ["0.00/s"] and
           item(lines, "cpu pressure").split()[2:4] == ["0.0", "%"],
           "screen: m, the VM's context: the second tap, its pressure", "\n".join(lines))
        threads_case(item)
        ok(opens.count() >= 2, "screen: the io file of each thread of the VM shown is read while m shows it")
        k.keys("Escape")
        k.wait_for(lambda ls: len(rows_of(ls)) == 2)
        time.sleep(1.5)         # a snapshot already begun may read it once more
        opens.count()
        time.sleep(2.5)
        eq(opens.count(), 0, "screen: once m's pane is closed, its VM's threads are no longer read one by one")
        k.quit_case("context pane")
    finally:
        stop.set()
        shutil.rmtree(root, ignore_errors=True)


# The fixture VM's threads that are not vCPUs: {tid: (name, ns on a CPU, read, written) per second}
# (4100, the VMM's main thread: its own io file, not the process's /proc/4100/io that write_vm1 writes)
THREADS = {4100: ("qemu-system-x86", 100000000, 256 * 1024, 0),
           4103: ("IO iothread0", 250000000, 3 * MIB, MIB), 4104: ("worker", 50000000, 0, 512 * 1024)}


GROW_GAP = [0.0]


def grow_threads(proc, stop):
    """Each of THREADS' counters grown at its rate, every 20 ms, until stop: a thread's schedstat
    and io files as the kernel's grow.  The pane's rates are the oracle's within the 20 ms steps,
    or the longest gap between two writes (GROW_GAP: this thread starved on a loaded machine)."""
    t0 = last = time.monotonic()
    while True:
        now = time.monotonic()
        GROW_GAP[0], last = max(GROW_GAP[0], now - last), now
        t = now - t0
        for tid, (name, run, rd, wr) in THREADS.items():
            d = os.path.join(proc, "4100", "task", str(tid))
            put(os.path.join(d, "comm"), name + "\n", "w")
            put(os.path.join(d, "schedstat"), "%d 0 10\n" % (10 ** 9 + run * t), "w")
            put(os.path.join(d, "io"), "rchar: 0\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: %d\n"
                "write_bytes: %d\ncancelled_write_bytes: 0\n" % (MIB + rd * t, wr * t), "w")
        if stop.wait(0.02):
            return


class Opens:
    """Who opens file name in folder d, counted by the kernel (inotify's IN_OPEN): the oracle of
    what kvmtop reads, where the file's contents cannot tell."""
    IN_OPEN = 0x20

    def __init__(self, d, name):
        import ctypes
        import ctypes.util
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, d.encode(), self.IN_OPEN) < 0:
            raise OSError(ctypes.get_errno(), "inotify on " + d)
        self.name = name

    def count(self):
        """The opens of the file since the last call."""
        import struct
        n = 0
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                return n
            off = 0
            while off < len(buf):
                _, mask, _, size = struct.unpack_from("iIII", buf, off)
                name = buf[off + 16:off + 16 + size].rstrip(b"\0").decode()
                n += bool(mask & self.IN_OPEN) and name == self.name
                off += 16 + size


def threads_case(item):
    """m's rows of each VMM thread, read one by one while the pane is shown: its share of a CPU and
    its disk rates as the fixture grows them (grow_threads), busiest first, no vCPU among them."""
    import tui_keys as k
    row = re.compile(r"^  (?P<name>.+?)\s+(?P<cpu>[\d.]+) % tid (?P<tid>\d+): disk read (?P<rd>[\d.]+) (?P<ru>\S+)/s, "
                     r"written (?P<wr>[\d.]+) (?P<wu>\S+)/s")
    unit = {"B": 1, "KiB": 1024, "MiB": MIB}
    rows_of = lambda ls: [m.groupdict() for m in map(row.match, ls) if m]
    for _ in range(6):          # the rows come at the next snapshots, below the screen's end
        k.keys("End")
        lines = k.wait_for(lambda ls: len(rows_of(ls)) == 3, timeout=3)
        if len(rows_of(lines)) == 3:
            break
    got = rows_of(lines)
    eq([(r["name"], int(r["tid"])) for r in got], [("IO iothread0", 4103), ("qemu-system-x86", 4100),
                                                   ("worker", 4104)],
       "screen: m, each VMM thread by name, busiest first, none of the vCPU threads (4101, 4102)")
    good = len(got) == 3
    # a value read at either edge of the 1 s interval may be as old as the grower's longest gap
    rel = 0.1 + 2 * GROW_GAP[0]
    for r in got:
        name, run, rd, wr = THREADS[int(r["tid"])]
        good = good and near(float(r["cpu"]), run / 1e7, rel=rel) and \
            near(float(r["rd"]) * unit.get(r["ru"], 0), rd, rel=rel, absolute=1) and \
            near(float(r["wr"]) * unit.get(r["wu"], 0), wr, rel=rel, absolute=1)
    ok(good, "screen: m, each VMM thread's CPU share and disk read and written per second, as its "
       "schedstat and io files grow (within 10 % and the fixture's gaps), the main thread's its own, not the "
       "process's", "grower's longest gap %.3f s\n%s" % (GROW_GAP[0], "\n".join(lines)))


CHILD = r'''
import fcntl, mmap, os, struct, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", sys.argv[1].encode(), 0x0002 | 0x1000))
print(fd, flush=True)
mem = mmap.mmap(-1, int(sys.argv[2]))
buf = mmap.mmap(-1, 1 << 20)
for line in sys.stdin:
    if line.startswith("go"):
        for off in range(0, len(mem), 4096):
            mem[off] = 1
        f = os.open(sys.argv[3], os.O_RDONLY | os.O_DIRECT)
        for i in range(4):
            os.preadv(f, [buf], i << 20)
        os.close(f)
        for i in range(int(sys.argv[4])):
            os.write(fd, b"\x02" + b"\x00" * (int(sys.argv[5]) - 1))
        print("done", flush=True)
'''


def real_case():
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        skip("context: a real process's memory, disk and tap", "needs root and /dev/net/tun")
        return
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-ctxr-")
    proc, sysd = os.path.join(root, "proc"), os.path.join(root, "sys")
    ifname, frames, size = "kvtap%d" % (os.getpid() % 10000), 25, 300
    data = os.path.join(root, "disk.img")
    cg = None
    with open(data, "wb") as f:
        f.write(os.urandom(4 * MIB))
    os.sync()
    child = subprocess.Popen([sys.executable, "-c", CHILD, ifname, str(64 * MIB), data, str(frames), str(size)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        tunfd = child.stdout.readline().strip()
        subprocess.run(["ip", "link", "set", ifname, "up"], check=True)
        # a cgroup v2 of its own: the unified hierarchy, wherever this host mounts it
        for base in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
            if os.path.exists(os.path.join(base, "cgroup.procs")) and os.path.exists(os.path.join(base, "cpu.pressure")):
                cg = os.path.join(base, "kvmtop-ctx-%d" % os.getpid())
                os.mkdir(cg)
                with open(os.path.join(cg, "cgroup.procs"), "w") as f:
                    f.write(str(child.pid))
                break
        proc_vm(proc, 4300, "real", {0: (4301, "CPU 0/KVM", True)})
        vm_stats(proc, 4300, {}, {0: vcpu_vals(10, H0, LIN)})
        d = os.path.join(proc, "4300")
        for name in ("status", "stat", "io", "smaps_rollup", "maps", "cgroup", "task"):
            if os.path.exists(os.path.join(d, name)):
                shutil.rmtree(os.path.join(d, name)) if os.path.isdir(os.path.join(d, name)) else os.unlink(os.path.join(d, name))
            os.symlink("/proc/%d/%s" % (child.pid, name), os.path.join(d, name))
        os.symlink("/dev/net/tun", os.path.join(d, "fd", "30"))
        os.makedirs(os.path.join(d, "fdinfo"))
        os.symlink("/proc/%d/fdinfo/%s" % (child.pid, tunfd), os.path.join(d, "fdinfo", "30"))
        os.makedirs(os.path.join(sysd, "class", "net"))
        os.symlink("/sys/class/net/" + ifname, os.path.join(sysd, "class", "net", ifname))
        if cg:
            # the fixture's pid is not the child's: cgroup.procs names the fixture's VMM,
            # the pressure files are the real cgroup's
            mine = os.path.join(sysd, "fs", "cgroup", os.path.basename(cg))
            put(os.path.join(mine, "cgroup.procs"), "4300\n", "w")
            for f in ("cpu", "memory", "io"):
                os.symlink(os.path.join(cg, f + ".pressure"), os.path.join(mine, f + ".pressure"))
        stat = "/sys/class/net/%s/statistics/" % ifname
        rx0 = [int(open(stat + n).read()) for n in ("rx_packets", "rx_bytes")]
        pres = lambda: int(open(os.path.join(cg, "cpu.pressure")).read().split("total=")[1].split()[0]) if cg else 0
        p0 = pres()
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--sys", sysd,
                              "-d", "1", "-n", "3", "-o", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        def go(i):
            if i == 1:
                child.stdin.write("go\n")
                child.stdin.flush()
                child.stdout.readline()
        docs = snapshots(p, 3, go)
        p.communicate(timeout=30)
        p1 = pres()
        rx1 = [int(open(stat + n).read()) for n in ("rx_packets", "rx_bytes")]
        eq(len(docs), 3, "context (real): three snapshots")
        if len(docs) < 3:
            return
        v = [vm_of(x, 4300) for x in docs]
        grown = v[2]["mem_rss_bytes"] - v[0]["mem_rss_bytes"]
        ok(60 * MIB <= grown <= 72 * MIB, "context (real): touching 64 MiB grows resident by 64 MiB (-4/+8 MiB)",
           grown / MIB)
        rd = sum(x["disk_rd_bytes_per_s"] * d["seconds"] for x, d in zip(v[1:], docs[1:]))
        ok(4 * MIB * 0.99 <= rd <= 5 * MIB, "context (real): 4 MiB read with O_DIRECT: read_bytes' rate times the seconds",
           rd / MIB)
        pk = sum(x["net_rx_packets_per_s"] * d["seconds"] for x, d in zip(v[1:], docs[1:]))
        by = sum(x["net_rx_bytes_per_s"] * d["seconds"] for x, d in zip(v[1:], docs[1:]))
        eq(rx1[0] - rx0[0], frames, "context (real): the tap received the test's frames (its own counters)")
        ok(near(pk, frames) and near(by, frames * size),
           "context (real): %d frames of %d bytes into the tap: its rx packets and bytes per second" % (frames, size),
           (pk, by))
        eq(v[2]["net_taps"], 1, "context (real): the tap found from the tun fd's fdinfo")
        if cg:
            got = [x["psi_cpu_some_pct"] for x in v[1:]]
            ok(None not in got and sum(g * d["seconds"] for g, d in zip(got, docs[1:])) <= (p1 - p0) / 1e4 + 0.5,
               "context (real): a cgroup v2 of its own: pressure present, no more than its total grew", (got, p1 - p0))
        else:
            skip("context (real): pressure of its own cgroup v2", "no cgroup v2 with PSI here")
    finally:
        child.kill()
        child.wait()
        if cg:
            os.rmdir(cg)
        shutil.rmtree(root, ignore_errors=True)


# tests/metrics.py borrows the fixture (two_vms, write_vm1) for its Prometheus case
if __name__ == "__main__":
    fixture_case()
    real_case()
    screen_case()
    done()
