# SPDX-License-Identifier: GPL-2.0
"""VMs that end (issue 46): their context to their end, a summary of the whole run.

A VM that ends in an interval is shown in it as exited, with when kvmtop
found it ended and its context figures up to its last reading; --summary
covers the whole run: per VM the totals of what a snapshot shows as a
rate (disk bytes and calls, each tap's and the VM's packets and bytes,
major faults), its last and peak resident memory, for the VMs that run
and those that ended; --keep-ended bounds how many ended VMs it keeps one
by one, the rest summed in one row.  The exporter drops an ended VM's
series (tests/metrics.py).

The stand-in VMM is a process of the test's own, started after kvmtop
(so its counters count from zero): the stats source reads it through a
tree laid out as /proc (--proc, as tests/context.py's real case), whose
files are links to the process's.  Within its first second it opens a
tap (a real one: /dev/net/tun, as root), touches 64 MiB and lets 48 MiB
go, reads B bytes of a file with O_DIRECT and sends N frames of S bytes
into the tap, then idles and ends.  The oracle is what the kernel said of
it before it ended, read by the test: /proc/PID/status's VmRSS and
VmHWM, /proc/PID/io's read_bytes, the tap's own statistics.

The bound: 2,000 VMs of the stats source's fixture, started after kvmtop
and gone in batches; the summary holds --keep-ended of them and one row
of the rest, whose sums are the fixture's (each VM's exits, its io's
read_bytes), and kvmtop's memory does not grow with the VMs that ended.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, sanitized
from kstat_fixture import put, proc_vm, vm_stats, vcpu_vals

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
# the bound's 2,000 VMs are 30,000 small files: on a tmpfs where there is one
FAST = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else TMP
H0 = [0] * 32
LIN = [0, 0, 0, 0]
MIB = 1 << 20
FRAMES, SIZE, READ = 25, 300, 4 * MIB

CHILD = r'''
import fcntl, mmap, os, struct, sys
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", sys.argv[1].encode(), 0x0002 | 0x1000))
print(fd, flush=True)
sys.stdin.readline()
mem = mmap.mmap(-1, 64 << 20)
for off in range(0, len(mem), 4096):
    mem[off] = 1
mem.close()
buf = mmap.mmap(-1, 1 << 20)
f = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECT)
for i in range(int(sys.argv[3]) >> 20):
    os.preadv(f, [buf], i << 20)
os.close(f)
for i in range(int(sys.argv[4])):
    os.write(fd, b"\x02" + b"\x00" * (int(sys.argv[5]) - 1))
print("done", flush=True)
sys.stdin.readline()
# no interpreter teardown: it would free (or touch) memory between the test's reading and the end
os._exit(0)
'''


def keyval(path, key):
    for line in open(path):
        if line.startswith(key):
            return int(line.split()[1])
    return None


def link_child(proc, sysd, pid, child, tunfd, ifname):
    """VM pid of the stats source's fixture whose process files are child's, its tap ifname: made
    aside and moved into place whole, as a process appears."""
    tmp = os.path.join(proc, ".new")
    proc_vm(tmp, pid, "short", {0: (pid + 1, "CPU 0/KVM", True)})
    vm_stats(tmp, pid, {}, {0: vcpu_vals(10, H0, LIN)})
    d = os.path.join(tmp, str(pid))
    for name in ("status", "stat", "io", "smaps_rollup", "maps", "cgroup", "task"):
        p = os.path.join(d, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        elif os.path.lexists(p):
            os.unlink(p)
        os.symlink("/proc/%d/%s" % (child, name), p)
    os.symlink("/dev/net/tun", os.path.join(d, "fd", "30"))
    os.makedirs(os.path.join(d, "fdinfo"))
    os.symlink("/proc/%d/fdinfo/%s" % (child, tunfd), os.path.join(d, "fdinfo", "30"))
    os.makedirs(os.path.join(sysd, "class", "net"), exist_ok=True)
    os.symlink("/sys/class/net/" + ifname, os.path.join(sysd, "class", "net", ifname))
    os.rename(os.path.join(tmp, str(pid + 1)), os.path.join(proc, str(pid + 1)))
    os.rename(d, os.path.join(proc, str(pid)))


def short_vm(args, running=None):
    """kvmtop (args after the fixture's) over a run in which a VMM of the test's own (pid 4300 in
    the fixture) is born, works in its first second, idles and ends; running(proc, sysd, step)
    writes a VM that runs throughout (step 0 before kvmtop starts, 1 mid-run).  (kvmtop's JSON
    lines, the oracle's figures), or None (said why)."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-ended-")
    proc, sysd = os.path.join(root, "proc"), os.path.join(root, "sys")
    ifname = "kvend%d" % (os.getpid() % 10000)
    data = os.path.join(root, "disk.img")
    with open(data, "wb") as f:
        f.write(os.urandom(READ))
    os.sync()
    os.makedirs(proc)
    if running:
        running(proc, sysd, 0)
    p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--sys", sysd, "-o", "json"] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.5)         # the VMM begins after kvmtop: its counters count from zero
    child = subprocess.Popen([sys.executable, "-c", CHILD, ifname, data, str(READ), str(FRAMES), str(SIZE)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    want = {}
    try:
        tunfd = child.stdout.readline().strip()
        subprocess.run(["ip", "link", "set", ifname, "up"], check=True)
        link_child(proc, sysd, 4300, child.pid, tunfd, ifname)
        child.stdin.write("go\n")
        child.stdin.flush()
        child.stdout.readline()
        if running:
            running(proc, sysd, 1)
        # kvmtop finds it (each second) and reads it (each second) after its work; a sanitizer
        # build beside an emulated host (CI's -j2) once read it not at all in 2.5 s
        time.sleep(2.5 if not sanitized() else 5)
        stat = "/sys/class/net/%s/statistics/" % ifname
        want = {"rss": keyval("/proc/%d/status" % child.pid, "VmRSS:") * 1024,
                "hwm": keyval("/proc/%d/status" % child.pid, "VmHWM:") * 1024,
                "read": keyval("/proc/%d/io" % child.pid, "read_bytes:"),
                "rx_packets": int(open(stat + "rx_packets").read()),
                "rx_bytes": int(open(stat + "rx_bytes").read())}
        child.stdin.write("end\n")
        child.stdin.flush()
        child.wait(timeout=10)
        shutil.rmtree(os.path.join(proc, "4300"))
        # it is found ended within a second, and the next snapshot shows it so; then the run
        # ends (a fixed --duration or -n raced the child's work on a loaded machine)
        time.sleep(3.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if p.poll() is None:
            p.kill()
            p.communicate()
        shutil.rmtree(root, ignore_errors=True)
    docs = [json.loads(l) for l in out.decode().splitlines() if l.startswith("{")]
    if not ok(p.returncode == 0 and docs, "ended: kvmtop %s ran (status %s)" % (" ".join(args), p.returncode),
              err.decode()[-600:]):
        return None
    return docs, want


def vm_of(doc, pid):
    return next((v for v in doc["vms"] if v["pid"] == pid), None)


def near(got, want, rel=0.01):
    return got is not None and abs(got - want) <= max(abs(want) * rel, 0.5)


def oracle_case(want):
    """The kernel's own figures of the stand-in, read by the test, against what it was told to do."""
    eq((want.get("rx_packets"), want.get("rx_bytes")), (FRAMES, FRAMES * SIZE),
       "ended: the tap's own counters: the %d frames of %d bytes the test sent" % (FRAMES, SIZE))
    ok(want.get("read", 0) >= READ and want.get("hwm", 0) >= want.get("rss", 0) + 48 * MIB,
       "ended: its io's read_bytes has the %d MiB read with O_DIRECT; VmHWM is 48 MiB or more over VmRSS "
       "(64 MiB touched, then let go)" % (READ >> 20), want)


def ended_figures(v, want, what):
    """VM v's totals and memory, as the kernel said of it before it ended."""
    taps = {t["name"]: t for t in v.get("net_interfaces", [])}
    tap = next(iter(taps.values()), {})
    # read_bytes: the process may fault a few pages of its own code in from disk as it exits, after
    # the test's reading (4096 more seen under ASan): up to 16 KiB more, never less
    rd = v.get("disk_rd_bytes")
    got = [v.get(k) for k in ("net_rx_packets", "net_rx_bytes", "mem_rss_bytes", "mem_rss_peak_bytes")] + \
        [tap.get("rx_packets"), tap.get("rx_bytes")] + \
        [want["read"] if rd is not None and want["read"] <= rd <= want["read"] + 16384 else rd]
    eq(got, [want["rx_packets"], want["rx_bytes"], want["rss"], want["hwm"], want["rx_packets"], want["rx_bytes"],
             want["read"]],
       "%s: its totals (tap's and VM's packets and bytes, read_bytes) and last and peak resident, as the kernel "
       "said of it before it ended" % what)


def interval_case():
    """-d 1: the one-second snapshots sum to its frames, bytes and read bytes; the one in which it
    ended shows it exited, with when and its figures; it is in none after."""
    got = short_vm(["-d", "1"])
    if not got:
        return
    docs, want = got
    oracle_case(want)
    rows = [(d, vm_of(d, 4300)) for d in docs]
    shown = [(d, v) for d, v in rows if v]
    states = [v["state"] for d, v in shown]
    ok(states[-1:] == ["exited"] and states.count("exited") == 1,
       "interval: the VM is shown exited once, in the last snapshot that has it", states)
    idx = [i for i, (d, v) in enumerate(rows) if v]
    ok(idx and idx[-1] < len(docs) - 1 and idx == list(range(idx[0], idx[-1] + 1)),
       "interval: and in no snapshot after that", idx)
    sums = {k: sum((v[k] or 0) * d["seconds"] for d, v in shown)
            for k in ("net_rx_packets_per_s", "net_rx_bytes_per_s", "disk_rd_bytes_per_s")}
    ok(near(sums["net_rx_packets_per_s"], FRAMES) and near(sums["net_rx_bytes_per_s"], FRAMES * SIZE) and
       near(sums["disk_rd_bytes_per_s"], want["read"]),
       "interval: its one-second snapshots' rates times their seconds sum to its %d frames, %d bytes and its "
       "read bytes (1 %%)" % (FRAMES, FRAMES * SIZE), (sums, want))
    last = shown[-1][1] if shown else {}
    end = shown[-1][0] if shown else {}
    ok(last.get("end") and int(last["end"]) <= int(end["end"]) and
       int(last["end"]) > int(end["end"]) - int(end["seconds"] * 1e9) - 1 and last.get("end_time"),
       "interval: its end, in the snapshot's clock, within the snapshot that shows it ended, and as wall time",
       (last.get("end"), last.get("end_time"), end.get("start"), end.get("end")))
    if last:
        ended_figures(last, want, "interval: the snapshot in which it ended")


def running_vm(proc, sysd, step):
    """VM 4100 of tests/context.py's fixture (there before kvmtop), its counters grown at step 1."""
    import context
    if step == 0:
        proc_vm(proc, 4100, "web1", {0: (4101, "CPU 0/KVM", True), 1: (4102, "CPU 1/KVM", True)})
        vm_stats(proc, 4100, {}, {0: vcpu_vals(10, H0, LIN), 1: vcpu_vals(10, H0, LIN)})
    context.write_vm1(proc, sysd, step)


def summary_case():
    """--summary: the VM that ended is there, exited, with its totals and memory to its end; the VM
    that runs throughout has its disk and network totals and rates over the whole run."""
    got = short_vm(["--summary"], running_vm)
    if not got:
        return
    docs, want = got
    eq(len(docs), 1, "summary: one report")
    s = docs[0]
    v, r = vm_of(s, 4300), vm_of(s, 4100)
    ok(v and v["state"] == "exited" and v["end"] and v["end_time"],
       "summary: the VM that ended is kept, exited, with when", v and {k: v[k] for k in ("state", "end", "end_time")})
    if v:
        ended_figures(v, want, "summary")
        ok(near(v["net_rx_packets_per_s"] * s["seconds"], FRAMES) and
           near(v["disk_rd_bytes_per_s"] * s["seconds"], want["read"]),
           "summary: its rates are its totals over the summary's seconds",
           (v["net_rx_packets_per_s"], v["disk_rd_bytes_per_s"], s["seconds"]))
    tot = ["majflt", "disk_rd_bytes", "disk_wr_bytes", "disk_rd_ops", "disk_wr_ops", "net_rx_bytes",
           "net_tx_bytes", "net_rx_packets", "net_tx_packets", "net_drops"]
    eq(r and ([r["state"]] + [r[k] for k in tot]),
       ["running", 30, 3 * MIB, 2 * MIB, 40, 20, 11 * 1500 * 40, 11 * 60 * 20, 11 * 40, 11 * 20, 11 * 3],
       "summary: a VM that runs throughout: its totals, the fixture's growth over the run")
    ok(r and near(r["disk_rd_bytes_per_s"] * s["seconds"], 3 * MIB) and
       near(r["net_rx_packets_per_s"] * s["seconds"], 440) and r["mem_rss_bytes"] == 301000 * 1024,
       "summary: ... its rates over the whole run (read at its start), its resident memory as last read",
       r and (r["disk_rd_bytes_per_s"], r["net_rx_packets_per_s"], r["mem_rss_bytes"], s["seconds"]))


def uptime_ticks():
    """Now, in /proc/PID/stat's starttime units: clock ticks since boot."""
    return int(float(open("/proc/uptime").read().split()[0]) * os.sysconf("SC_CLK_TCK"))


def born_vm(proc, i, pid, start):
    """Fixture VM i (pid, vCPU thread pid + 1), begun at start (ticks): its vCPU's 100 exits, its
    io's read_bytes 4096 (i + 1), made aside and moved into place."""
    tmp = os.path.join(proc, ".new")
    proc_vm(tmp, pid, "vm%d" % i, {0: (pid + 1, "CPU 0/KVM", True)})
    vm_stats(tmp, pid, {}, {0: vcpu_vals(10, H0, LIN)})
    d = os.path.join(tmp, str(pid))
    f = [str(pid), "(qemu-system-x86)", "S"] + ["0"] * 49
    f[21] = str(start)
    put(os.path.join(d, "stat"), " ".join(f) + "\n", "w")
    put(os.path.join(d, "status"), "Name:\tqemu-system-x86\nTgid:\t%d\nVmRSS:\t  %d kB\nVmHWM:\t  %d kB\n"
        % (pid, 1000 + i, 2000 + i), "w")
    put(os.path.join(d, "io"), "rchar: 0\nwchar: 0\nsyscr: %d\nsyscw: 0\nread_bytes: %d\nwrite_bytes: 0\n"
        % (i + 1, 4096 * (i + 1)), "w")
    os.rename(os.path.join(tmp, str(pid + 1)), os.path.join(proc, str(pid + 1)))
    os.rename(d, os.path.join(proc, str(pid)))


def exiting_case():
    """A VMM that is exiting: the kernel frees its memory first (status loses VmRSS and VmHWM) and
    its /proc files last, while it still runs.  Its snapshots from then on keep the memory it had
    at its last whole reading (the fixture's), never unknown, and its disk counts no more."""
    root = tempfile.mkdtemp(dir=FAST, prefix="kvmtop-exiting-")
    proc = os.path.join(root, "proc")
    os.makedirs(proc)
    pid = 30000
    p = subprocess.Popen([kvmtop(), "-b", "-d", "0.5", "--source", "stats", "--proc", proc, "-o", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(0.5)
        born_vm(proc, 0, pid, uptime_ticks())
        time.sleep(2.5)
        put(os.path.join(proc, str(pid), "status"), "Name:\tqemu-system-x86\nTgid:\t%d\n" % pid, "w")
        put(os.path.join(proc, str(pid), "io"), "rchar: 0\nwchar: 0\nsyscr: 9\nsyscw: 0\nread_bytes: 999999\n"
            "write_bytes: 0\n", "w")
        time.sleep(2.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        shutil.rmtree(root, ignore_errors=True)
    docs = []
    for line in out.decode().splitlines():
        try:
            docs.append(json.loads(line))
        except ValueError:
            pass
    ours = [v for v in (vm_of(d, pid) for d in docs) if v and v["state"] == "running"]
    # bytes read in each snapshot: its rate over the snapshot's own length
    read = sum((vm_of(d, pid)["disk_rd_bytes_per_s"] or 0) * (int(d["end"]) - int(d["start"])) / 1e9
               for d in docs if vm_of(d, pid))
    ok(p.returncode == 0 and len(ours) >= 6, "exiting: kvmtop ran, the VM in %d snapshots" % len(ours),
       err.decode()[-500:])
    eq(sorted({(v["mem_rss_bytes"], v["mem_rss_peak_bytes"]) for v in ours if v["mem_rss_bytes"] is not None or
               v["disk_rd_bytes_per_s"] is not None}), [(1000 * 1024, 2000 * 1024)],
       "exiting: every snapshot of a VMM whose memory went has its last VmRSS and VmHWM, not unknown")
    ok(abs(read - 4096) < 64, "exiting: its disk is the 4096 bytes it read while it ran: what a going VMM's io "
       "shows after its memory went is not counted", read)


def brief_case():
    """--summary of the stats source: a VM that lives 2.3 s, its vCPU's exits growing from 100 to
    300 a second after its birth, is in the summary, exited, with all 300, though the source is
    read each 3 s: it holds the VM's statistics fds, which read its last counters after its end."""
    root = tempfile.mkdtemp(dir=FAST, prefix="kvmtop-brief-")
    proc = os.path.join(root, "proc")
    os.makedirs(proc)
    pid = 31000
    p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--summary", "-o", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(0.5)
        born_vm(proc, 0, pid, uptime_ticks())
        time.sleep(1.0)
        vm_stats(proc, pid, {}, {0: vcpu_vals(30, H0, LIN)})
        time.sleep(1.3)
        shutil.rmtree(os.path.join(proc, str(pid)))
        shutil.rmtree(os.path.join(proc, str(pid + 1)))
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        shutil.rmtree(root, ignore_errors=True)
    try:
        v = vm_of(json.loads(out), pid)
    except ValueError:
        v = None
    if not v:
        sys.stderr.write(err.decode()[-300:])
    eq(v and (v["state"], v["exits_total"]), ("exited", 300),
       "brief: a VM of 2.3 s is in --summary, exited, with its vCPU's 300 exits (100 more a second after "
       "its birth)")


def rss_kib(pid):
    return keyval("/proc/%d/status" % pid, "VmRSS:")


def bound_case(nr=2000, batch=400, keep=50):
    """nr VMs begin after kvmtop and end, batch of them at a time: the summary keeps keep of them and
    one row of the rest, whose sums are the fixture's; kvmtop's memory stays where it was once the
    first batches were folded."""
    root = tempfile.mkdtemp(dir=FAST, prefix="kvmtop-bound-")
    proc = os.path.join(root, "proc")
    os.makedirs(proc)
    p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--summary", "--keep-ended", str(keep),
                          "-o", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rss = []
    try:
        time.sleep(0.5)
        pids = {}
        for b in range(nr // batch):
            start = uptime_ticks()
            now = [(i, 20000 + 2 * i) for i in range(b * batch, (b + 1) * batch)]
            for i, pid in now:
                born_vm(proc, i, pid, start)
                pids[pid] = i
            time.sleep(2.5)     # each found (a look a second) and read (its first reading at once)
            for i, pid in now:
                shutil.rmtree(os.path.join(proc, str(pid)))
                shutil.rmtree(os.path.join(proc, str(pid + 1)))
            rss.append(rss_kib(p.pid))
        time.sleep(7)           # the last ones marked, those past keep folded (ended 5 s before)
        rss.append(rss_kib(p.pid))
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
        shutil.rmtree(root, ignore_errors=True)
    ok(p.returncode == 0, "bound: kvmtop --summary --keep-ended %d ran" % keep, err.decode()[-500:])
    try:
        s = json.loads(out)
    except ValueError:
        s = {"vms": []}
    rest = [v for v in s["vms"] if v["pid"] is None]
    kept = [v for v in s["vms"] if v["pid"] is not None]
    eq((len(kept), [r["name"] for r in rest]), (keep, ["%d more ended" % (nr - keep)]),
       "bound: %d ended VMs, %d of them kept one by one, one row of the rest" % (nr, keep))
    eq(sorted(set(v["state"] for v in s["vms"])), ["exited"], "bound: every row exited")
    last = set(range((nr // batch - 1) * batch, nr))
    eq([pids.get(v["pid"]) in last for v in kept], [True] * len(kept),
       "bound: the ones kept ended last (of the last batch)")
    eq([(v["disk_rd_bytes"], v["disk_rd_ops"], v["exits_total"], v["mem_rss_peak_bytes"]) for v in kept],
       [(4096 * (pids[v["pid"]] + 1), pids[v["pid"]] + 1, 100, (2000 + pids[v["pid"]]) * 1024) for v in kept],
       "bound: each VM kept: its io's read_bytes and calls, its vCPU's exits, its VmHWM (the fixture's)")
    folded = [i for pid, i in pids.items() if pid not in set(v["pid"] for v in kept)]
    r = rest[0] if rest else {}
    eq([r.get(k) for k in ("disk_rd_bytes", "disk_rd_ops", "exits_total", "vcpu_count", "mem_rss_bytes")],
       [sum(4096 * (i + 1) for i in folded), sum(i + 1 for i in folded), 100 * len(folded), len(folded), None],
       "bound: the rest's row sums the VMs it holds: read bytes and calls, exits, vCPUs; no memory figure")
    host = sum(x["total"] for x in s.get("host", {}).get("reasons", []))
    eq((s.get("host", {}).get("exits_total"), host), (100 * nr, 100 * nr),
       "bound: the host's exits and its reasons' keep every VM's, those folded too")
    # memory: at the third batch's end (those ended 5 s before folded, the VMs of two batches held),
    # and at the run's end, 800 VMs later: without the bound each 400 cost some 1.8 MiB more
    if sanitized():
        skip("bound: kvmtop's memory stays bounded", "an AddressSanitizer build's memory is not kvmtop's")
    else:
        ok(len(rss) >= 4 and rss[-1] - rss[2] < 1024,
           "bound: kvmtop's resident memory grows by under 1 MiB from the third batch's end to the run's "
           "(%d VMs later)" % (nr - 3 * batch), rss)


if __name__ == "__main__":
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun"):
        skip("ended: a real process's tap, disk and memory to its end", "needs root and /dev/net/tun")
    else:
        interval_case()
        summary_case()
    exiting_case()
    brief_case()
    bound_case()
    done()
