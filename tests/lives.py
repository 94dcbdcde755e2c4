# SPDX-License-Identifier: GPL-2.0
"""Whole lives (issue 46, items 2 and 3): a VM's threads and process count
from their birth and to their end, exactly where the kernel says.

The stand-in VMM is a process of the test's own that opens /dev/kvm and
makes a VM and a vCPU and holds their statistics fds (so the stats source
finds it and reads it), started after
kvmtop: it idles 1.5 s (3.5 s for a summary, which samples each 3 s;
kvmtop finds it and reads it), then a thread of it
burns 0.2 s of CPU and ends, then it reads B bytes with O_DIRECT and ends
at once, between two of kvmtop's readings.  What it did after its last
reading is known only from the kernel's exit records (taskstats).  The
oracle is what the stand-in and the kernel say of it, read by the test:
its /proc/self/io's read_bytes and VmHWM just before it ends, each
thread's own CPU clock just before it ends (a lower bound of its threads'
time on a CPU), and wait4's rusage of it (an upper bound: every thread's
time, the scheduler's sum).

- interval: -b -d 1 -o json: the one-second snapshots' disk read rates
  times their seconds sum to B, and their VMM threads' (emulator) seconds
  on a CPU to its threads' time, within the bounds; the VM that ended is
  marked counted_to "exact" and counted_from "birth".
- summary: --summary after its end has its read bytes, its peak resident
  memory (at least VmHWM as it last said), its threads' time.
- marked: kvmtop without CAP_NET_ADMIN (no exit records): the VM that
  ended is marked counted_to "read", and kvmtop says why, once.
- qemu (inside the emulated KVM host, or where KVM traces exits): real
  QEMU living 3 s once its vCPUs are there (then told to end) under -b
  -d 5 -o json (the trace source): its
  own threads (emulator) are there with their time on a CPU: at least
  what schedstat said of each of them at the test's last look, at most
  its whole CPU (wait4); with kernel.task_delayacct 1 (a kernel before
  6.x fills an exit record's schedstat sums only so), and marked "read"
  with it 0 where the kernel then leaves them out.

Needs root and /dev/kvm (PVM's too: the stats source reads it); without
them the cases run inside the emulated KVM host (tests/vmhost).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, mount_point, inside_kvm_host, kvm_here, in_kvm_host, live_only, LIVE_ONLY

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
MIB = 1 << 20
READ = 16 * MIB
BURN_NS = 200 * 1000000
CASES = ["interval: its snapshots sum to its read bytes and its threads' time", "summary: after its end",
         "marked: without exit records, counted_to read", "qemu: its emulator threads' time under -d 5"]

STANDIN = r'''
import fcntl, json, mmap, os, sys, threading, time
kvm = os.open("/dev/kvm", os.O_RDWR)
vm = fcntl.ioctl(kvm, 0xAE01, 0)
vcpu = fcntl.ioctl(vm, 0xAE41, 0)
# the binary statistics fds (KVM_GET_STATS_FD), held as a VMM holds them: the stats source reads them
stats = [fcntl.ioctl(fd, 0xAECE, 0) for fd in (vm, vcpu)]
print(os.getpid(), flush=True)
time.sleep(float(sys.argv[4]))
got = {}
def burn():
    while time.thread_time_ns() < int(sys.argv[3]):
        pass
    got["burn"] = time.thread_time_ns()
th = threading.Thread(target=burn)
th.start()
th.join()
buf = mmap.mmap(-1, 1 << 20)
f = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
for i in range(int(sys.argv[2]) >> 20):
    os.preadv(f, [buf], i << 20)
os.close(f)
for line in open("/proc/self/io"):
    if line.startswith("read_bytes:"):
        got["read"] = int(line.split()[1])
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        got["hwm"] = int(line.split()[1]) * 1024
got["main"] = time.thread_time_ns()
print(json.dumps(got), flush=True)
os._exit(0)
'''


def why_not():
    if os.geteuid() != 0:
        return "needs root"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "/dev/kvm cannot be opened"
    return None


def standin_run(args, prefix=(), idle=1.5):
    """kvmtop (args, after prefix: a command it runs under) over a run in which the stand-in VMM
    is born, idles idle seconds, works and ends.  (kvmtop's JSON documents, its stderr, the stand-in's pid, what it
    said of itself, its rusage's CPU ns), or None (said why)."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-lives-")
    data = os.path.join(root, "disk.img")
    with open(data, "wb") as f:
        f.write(os.urandom(READ))
    os.sync()
    p = subprocess.Popen(list(prefix) + [kvmtop(), "-b", "--source", "stats", "-o", "json"] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child = None
    try:
        time.sleep(0.5)         # the VMM begins after kvmtop: it counts from zero
        child = subprocess.Popen([sys.executable, "-c", STANDIN, data, str(READ), str(BURN_NS), str(idle)],
                                 stdout=subprocess.PIPE, text=True)
        pid = int(child.stdout.readline())
        said = json.loads(child.stdout.readline() or "{}")
        _, status, ru = os.wait4(child.pid, 0)
        cpu = int(round((ru.ru_utime + ru.ru_stime) * 1e9))
        out, err = p.communicate(timeout=60)
    finally:
        if child and child.returncode is None:
            try:
                child.kill()
                os.waitpid(child.pid, 0)
            except OSError:
                pass
        if p.poll() is None:
            p.kill()
            p.communicate()
        shutil.rmtree(root, ignore_errors=True)
    docs = [json.loads(l) for l in out.decode().splitlines() if l.startswith("{")]
    if not ok(p.returncode == 0 and docs and said.get("read"), "kvmtop %s ran and the stand-in said what it did"
              % " ".join(args), (p.returncode, said, err.decode()[-600:])):
        return None
    return docs, err.decode(), pid, said, cpu


def vm_of(doc, pid):
    return next((v for v in doc["vms"] if v["pid"] == pid), None)


def exit_path(lo):
    """What a thread runs after its exit record (its exit path: the last one frees the process's
    memory) is in no record: kvmtop may be short of a bound read after it by that much, 5 ms and
    3 % of the bound at most (an emulated host is slow)."""
    return 5000000 + lo * 3 // 100


def emulator_bounds(said, cpu, vms):
    """Its VMM threads' time on a CPU: at least their own clocks' last words (the main thread's
    only where it is no vCPU row), less its exit path; at most the whole process's (wait4)."""
    lo = said["burn"] + (said["main"] if not any(c["tid"] == vms[0]["pid"] for v in vms for c in v["vcpus"]) else 0)
    return lo - exit_path(0), cpu + 1000000


def interval_case():
    got = standin_run(["-d", "1", "-n", "6"])
    if not got:
        return
    docs, err, pid, said, cpu = got
    rows = [(d, vm_of(d, pid)) for d in docs if vm_of(d, pid)]
    ok(rows and rows[-1][1]["state"] == "exited", "interval: the stand-in is shown, ended in its last snapshot",
       [v["state"] for d, v in rows])
    if not rows:
        return
    rd = sum((v["disk_rd_bytes_per_s"] or 0) * d["seconds"] for d, v in rows)
    # the process may fault a page or two of its own in as it ends: up to 16 KiB more, never less
    ok(said["read"] - 1 <= rd <= said["read"] + 16384,
       "interval: its snapshots' read rates times their seconds sum to the %d MiB it read just before it "
       "ended (its io's read_bytes), though no reading came after" % (READ >> 20), (rd, said["read"]))
    emu = [v["threads"]["emulator"]["run_seconds"] if v.get("threads", {}).get("emulator") else None
           for d, v in rows]
    lo, hi = emulator_bounds(said, cpu, [v for d, v in rows])
    ok(None not in emu and lo <= sum(emu) * 1e9 <= hi,
       "interval: its VMM threads' seconds on a CPU, summed, from its birth (the first interval whole) to "
       "its end (a thread that ended mid-interval too): within its threads' own clocks and wait4's total",
       (emu, lo, hi))
    last = rows[-1][1]
    eq((last.get("counted_from"), last.get("counted_to")), ("birth", "exact"),
       "interval: the VM that ended counts from its birth and to its end (counted_from, counted_to)")
    ok(all(v.get("counted_to") is None for d, v in rows[:-1]), "interval: counted_to is null while it runs",
       [v.get("counted_to") for d, v in rows])


def summary_case():
    # a summary samples a counter source each 3 s (-d's default): found at one of them
    got = standin_run(["--summary", "--duration", "8"], idle=3.5)
    if not got:
        return
    docs, err, pid, said, cpu = got
    v = vm_of(docs[-1], pid) if docs else None
    ok(v and v["state"] == "exited" and v.get("counted_to") == "exact",
       "summary: the VM that ended is there, counted to its end", v and (v["state"], v.get("counted_to")))
    if not v:
        return
    rd = v.get("disk_rd_bytes")
    ok(rd is not None and said["read"] <= rd <= said["read"] + 16384,
       "summary: its read bytes to its end (its io's read_bytes)", (rd, said["read"]))
    # the exit record's peak is the kernel's per-CPU RSS counters read without summing them (Linux
    # 6.2+): short of VmHWM by up to their batches, 64 pages a CPU at most
    peak, slack = v.get("mem_rss_peak_bytes"), os.cpu_count() * 64 * 4096
    ok(peak is not None and said["hwm"] - slack <= peak <= said["hwm"] + 4 * MIB,
       "summary: its peak resident memory to its end (the exit record's): its VmHWM as it last said, within the "
       "kernel's per-CPU counters' batches", (peak, said["hwm"], slack))
    run = (v.get("threads", {}).get("emulator") or {}).get("run_seconds")
    lo, hi = emulator_bounds(said, cpu, [v])
    ok(run is not None and lo <= run * 1e9 <= hi, "summary: its VMM threads' time on a CPU, within the bounds",
       (run, lo, hi))


def marked_case():
    if not shutil.which("setpriv"):
        skip(CASES[2], "no setpriv (util-linux) to drop CAP_NET_ADMIN")
        return
    got = standin_run(["-d", "1", "-n", "6"], ["setpriv", "--bounding-set", "-net_admin", "--"])
    if not got:
        return
    docs, err, pid, said, cpu = got
    rows = [vm_of(d, pid) for d in docs if vm_of(d, pid)]
    eq(rows and rows[-1].get("counted_to"), "read",
       "marked: without CAP_NET_ADMIN (no exit records) the VM that ended counts to its last reading, marked so")
    said_why = [l for l in err.splitlines() if "last reading" in l]
    ok(len(said_why) == 1 and "CAP_NET_ADMIN" in said_why[0], "marked: kvmtop says why, once", err[-600:])


GUEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest", "mbguest.S")


def qemu_why_not():
    if not shutil.which("qemu-system-x86_64"):
        return "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
    if not shutil.which("cc"):
        return "no C compiler for the guest"
    return None


def qemu_start(d):
    """tests/live_qemu.py's guest, built and run by QEMU (qemu_watch() ends it)."""
    elf = os.path.join(d, "guest.elf")
    subprocess.run(["cc", "-m32", "-nostdlib", "-static", "-no-pie", "-Wl,--build-id=none", "-Wl,-Ttext=0x100000",
                    "-o", elf, GUEST], check=True, capture_output=True)
    return subprocess.Popen(["qemu-system-x86_64", "-name", "guest=kt-lives,debug-threads=on", "-accel", "kvm",
                             "-M", "pc", "-cpu", "qemu64", "-m", "32", "-smp", "2", "-nodefaults", "-display",
                             "none", "-no-reboot", "-kernel", elf, "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def qemu_watch(q, secs=3.0):
    """Until QEMU q ends (told to, SIGTERM, secs after its vCPU threads appear; in an emulated host
    its start takes many seconds): each of its own threads' (not "CPU n/KVM", nor KVM's own workers,
    kvm-*) schedstat time on a CPU at the last look, {tid: ns}."""
    seen, until, cap = {}, None, time.monotonic() + 120
    # ended, not reaped (WNOWAIT): wait4 reaps it, with its rusage
    while not os.waitid(os.P_PID, q.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
        now = time.monotonic()
        if (until and now >= until) or now >= cap:
            q.terminate()
            until = cap = float("inf")
        try:
            for t in os.listdir("/proc/%d/task" % q.pid):
                comm = open("/proc/%d/task/%s/comm" % (q.pid, t)).read()
                if comm.startswith("CPU ") and not until:
                    until = now + secs
                # a thread in its exit (PF_EXITING, 0x4 in stat's flags) may be past its exit record,
                # which kvmtop counts to: a look then would hold its exit path (freeing QEMU's memory:
                # 96 ms once in a loaded emulated host), so the last look is the one before
                stat = open("/proc/%d/task/%s/stat" % (q.pid, t)).read().rsplit(")", 1)[1].split()
                if not comm.startswith(("CPU ", "kvm-")) and not int(stat[6]) & 0x4:
                    seen[int(t)] = int(open("/proc/%d/task/%s/schedstat" % (q.pid, t)).read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.05)
    return seen


def tracing_up(p, limit=60):
    """Until kvmtop p traces (its instance's kvm_exit is enabled), at most limit s: a sanitizer
    build in the emulated host takes seconds to set up, and QEMU's whole life must be after that."""
    inst = os.path.join(mount_point("tracefs") or "/sys/kernel/tracing", "instances", "kvmtop-%d" % p.pid)
    end = time.time() + limit
    while time.time() < end and p.poll() is None:
        try:
            if open(os.path.join(inst, "events", "kvm", "kvm_exit", "enable")).read().strip() == "1":
                break
        except OSError:
            pass
        time.sleep(0.1)
    time.sleep(0.5)


def qemu_run(d):
    """kvmtop -b -d 5 over QEMU's life, two snapshots past its end: (its JSON documents, stderr,
    QEMU's pid, the looks, its rusage ns)."""
    p = subprocess.Popen([kvmtop(), "-b", "-d", "5", "-o", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    q = None
    try:
        tracing_up(p)
        q = qemu_start(d)
        looks = qemu_watch(q)
        ru = os.wait4(q.pid, 0)[2]
        q.returncode = 0
        time.sleep(11)
        p.terminate()
        out, err = p.communicate(timeout=120)
    finally:
        for x in (q, p):
            if x and x.poll() is None:
                x.kill()
                x.wait()
    docs = [json.loads(l) for l in out.decode().splitlines() if l.startswith("{")]
    return docs, err.decode(), q.pid, looks, int(round((ru.ru_utime + ru.ru_stime) * 1e9)) if ru else None


def qemu_case(delayacct):
    """Real QEMU of a few seconds under -d 5 (the trace source): its emulator threads' time."""
    what = "qemu (kernel.task_delayacct %d)" % delayacct
    why = qemu_why_not()
    if why:
        skip(what, why)
        return
    knob = "/proc/sys/kernel/task_delayacct"
    old = open(knob).read().strip() if os.path.exists(knob) else None
    d = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-livesq-")
    try:
        if old is not None:
            with open(knob, "w") as f:
                f.write("%d\n" % delayacct)
        docs, err, pid, looks, cpu = qemu_run(d)
    finally:
        if old is not None:
            with open(knob, "w") as f:
                f.write(old + "\n")
        shutil.rmtree(d, ignore_errors=True)
    rows = [vm_of(x, pid) for x in docs if vm_of(x, pid)]
    if not ok(rows and looks and cpu is not None, "%s: kvmtop showed QEMU's VM, and the test its threads" % what,
              (len(rows), looks, err[-600:])):
        return
    lo, emu = sum(looks.values()), [(v.get("threads", {}).get("emulator") or {}).get("run_seconds") for v in rows]
    if delayacct or old is None:
        ok(None not in emu and lo - exit_path(lo) <= sum(emu) * 1e9 <= cpu + 1000000,
           "%s: QEMU's own threads' seconds on a CPU, though it lived within a snapshot: at least schedstat's last "
           "look at each (less its exit path, in no record), at most its whole CPU (wait4)" % what, (emu, lo, cpu))
        eq(rows[-1].get("counted_to"), "exact", "%s: counted to its end" % what)
    else:
        # kernels before 6.x fill an exit record's schedstat sums only with delay accounting on
        to = rows[-1].get("counted_to")
        ok(to == "read" or (to == "exact" and None not in emu and lo - exit_path(lo) <= sum(emu) * 1e9 <= cpu + 1000000),
           "%s: counted to its end, within the bounds, where the exit records hold their schedstat sums; else "
           "marked read" % what, (to, emu, lo, cpu))


ALL = "--all"


def main():
    args = sys.argv[1:]
    inside = inside_kvm_host()
    if live_only() and inside:
        qemu_case(1)
        qemu_case(0)
        done()
        return
    if why_not() is None and ALL not in args and not inside:
        interval_case()
        summary_case()
        marked_case()
        if kvm_here():
            qemu_case(1)
            qemu_case(0)
        else:
            in_kvm_host([os.path.abspath(__file__), LIVE_ONLY], "lives: real QEMU")
    elif inside:
        interval_case()
        summary_case()
        marked_case()
        qemu_case(1)
        qemu_case(0)
    elif os.geteuid() == 0:
        in_kvm_host([os.path.abspath(__file__), ALL], "lives")
    else:
        for c in CASES:
            skip(c, why_not())
    done()


main()
