# SPDX-License-Identifier: GPL-2.0
"""A VM's taps counted from their birth to their end (issue 46, items 2 and 3): rtnetlink.

A stand-in VMM of the test's own, begun before kvmtop (so its process's
start tells kvmtop nothing of its taps), waits for kvmtop, then makes a
tap, writes N1 frames of S bytes into it and only then makes its VM
(/dev/kvm, KVM_CREATE_VM, KVM_GET_STATS_FD: the stats source finds it
within a second, after the frames); 2.5 s later it makes a second tap,
writes K frames into it and closes it 0.3 s later (born and ended between
two of kvmtop's readings of the VM); then it writes N2 more frames into
the first and ends at once (the tap ends with it, after its last
reading).  The oracle: the test's own N1, N2, K and S, and each tap's
counters in /sys/class/net/IF/statistics read by the stand-in just before
its end.  Watched by `kvmtop -b --source stats -d 1 -o json` on this
host's /proc and /sys: the one-second snapshots' rates times their
seconds sum to every frame and byte, each tap's and the VM's totals are
the kernel's, each tap says it counts from its birth; `--summary` after
its end has them.  Needs root, /dev/kvm and /dev/net/tun; no emulated
host (no guest runs).
"""
import json
import os
import subprocess
import sys
import time

from tap import ok, eq, skip, done, kvmtop

N1, N2, K, SIZE = 60, 40, 7, 1000

CHILD = r'''
import fcntl, json, os, socket, struct, sys, time

def tap(name):
    """A tap called name, up: its fd."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", name.encode(), 0x0002 | 0x1000))  # TUNSETIFF: TAP, NO_PI
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ifr = fcntl.ioctl(s, 0x8913, struct.pack("16sH22x", name.encode(), 0))          # SIOCGIFFLAGS
    flags = struct.unpack("16sH", ifr[:18])[1]
    fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", name.encode(), flags | 1))         # SIOCSIFFLAGS: UP
    s.close()
    return fd

def send(fd, n, size):
    for i in range(n):
        os.write(fd, b"\x02" + bytes(size - 1))

def counters(name):
    d = "/sys/class/net/%s/statistics/" % name
    return {k: int(open(d + k).read()) for k in ("rx_packets", "rx_bytes")}

name1, name2, n1, n2, k, size = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
print("ready", flush=True)
sys.stdin.readline()
t0 = time.monotonic()
fd1 = tap(name1)
send(fd1, n1, size)
kvm = os.open("/dev/kvm", os.O_RDWR)
vm = fcntl.ioctl(kvm, 0xAE01, 0)            # KVM_CREATE_VM
stats = fcntl.ioctl(vm, 0xAECE, 0)          # KVM_GET_STATS_FD
time.sleep(max(0, t0 + 2.5 - time.monotonic()))
fd2 = tap(name2)
send(fd2, k, size)
seen = {name2: counters(name2)}
time.sleep(0.3)
os.close(fd2)
time.sleep(max(0, t0 + 3.2 - time.monotonic()))
send(fd1, n2, size)
seen[name1] = counters(name1)
print(json.dumps(seen), flush=True)
'''


def stand_in(args, wait):
    """kvmtop args over a run in which the stand-in VMM works and ends; wait: seconds after its end
    before kvmtop is told to stop (None: kvmtop ends by itself).  (kvmtop's JSON lines, the tap
    counters the stand-in read, its pid, the taps' names), or None (said why)."""
    names = ["kvtp%da" % (os.getpid() % 10000), "kvtp%db" % (os.getpid() % 10000)]
    child = subprocess.Popen([sys.executable, "-c", CHILD] + names + [str(N1), str(N2), str(K), str(SIZE)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p = None
    seen = {}
    try:
        child.stdout.readline()
        # the stand-in began before kvmtop: its taps' births are known only from rtnetlink
        time.sleep(0.2)
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "-o", "json"] + args,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.0)
        child.stdin.write("go\n")
        child.stdin.flush()
        seen = json.loads(child.stdout.readline() or "{}")
        child.wait(timeout=10)
        if wait is not None:
            time.sleep(wait)
            p.send_signal(2)
        out, err = p.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if p and p.poll() is None:
            p.kill()
            p.communicate()
    docs = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    if not ok(p.returncode == 0 and docs, "taps: kvmtop %s ran (status %s)" % (" ".join(args), p.returncode),
              err.decode()[-600:]):
        return None
    return docs, seen, child.pid, names


def vm_of(doc, pid):
    return next((v for v in doc["vms"] if v["pid"] == pid), None)


def near(got, want):
    """A rate times seconds against a count: 2 decimals of a rate, summed over snapshots."""
    return got is not None and abs(got - want) <= max(abs(want) * 0.002, 0.5)


def oracle_case(seen, names):
    eq([[seen.get(n, {}).get(k) for k in ("rx_packets", "rx_bytes")] for n in names],
       [[N1 + N2, (N1 + N2) * SIZE], [K, K * SIZE]],
       "taps: the kernel's own counters of its two taps before their end: the frames the test wrote")


def totals(v, names, what):
    """VM v's and each tap's totals, and where each tap counts from."""
    taps = {t["name"]: t for t in v.get("net_interfaces", [])}
    eq([v.get("net_rx_packets"), v.get("net_rx_bytes")], [N1 + N2 + K, (N1 + N2 + K) * SIZE],
       "%s: the VM's totals: every frame of both taps, the first's before the VM was found and after its "
       "last reading, the second's born and ended between two readings" % what)
    eq([[taps.get(n, {}).get(k) for k in ("rx_packets", "rx_bytes", "counted_from")] for n in names],
       [[N1 + N2, (N1 + N2) * SIZE, "birth"], [K, K * SIZE, "birth"]],
       "%s: each tap's totals, counted from its birth" % what)
    eq(v.get("net_counted_from"), "birth", "%s: the VM's network counts from its taps' births" % what)


def interval_case():
    """-d 1: the snapshots' rates times their seconds sum to every frame and byte."""
    got = stand_in(["-d", "1", "-n", "8"], None)
    if not got:
        return
    docs, seen, pid, names = got
    oracle_case(seen, names)
    shown = [(d, vm_of(d, pid)) for d in docs if vm_of(d, pid)]
    ok(shown and shown[-1][1]["state"] == "exited", "interval: the stand-in VM is shown, and ended",
       [v["state"] for d, v in shown])
    sums = [sum((v[k] or 0) * d["seconds"] for d, v in shown) for k in ("net_rx_packets_per_s", "net_rx_bytes_per_s")]
    want = [N1 + N2 + K, (N1 + N2 + K) * SIZE]
    ok(all(near(g, w) for g, w in zip(sums, want)),
       "interval: its one-second snapshots' rates times their seconds sum to the %d frames and %d bytes "
       "of its two taps" % tuple(want), (sums, want, [(v["net_rx_packets_per_s"], d["seconds"]) for d, v in shown]))
    if shown:
        totals(shown[-1][1], names, "interval: the snapshot in which it ended")


def summary_case():
    """--summary, stopped after its end: the VM, exited, with every frame."""
    got = stand_in(["--summary"], 1.5)
    if not got:
        return
    docs, seen, pid, names = got
    oracle_case(seen, names)
    v = vm_of(docs[-1], pid) if docs else None
    ok(v and v["state"] == "exited", "summary: the stand-in VM is kept, exited", v and v["state"])
    if v:
        totals(v, names, "summary")


if __name__ == "__main__":
    if os.geteuid() != 0 or not all(os.path.exists(p) for p in ("/dev/net/tun", "/dev/kvm")):
        skip("taps: a stand-in VM's taps from birth to end", "needs root, /dev/kvm and /dev/net/tun")
    else:
        interval_case()
        summary_case()
    done()
