# SPDX-License-Identifier: GPL-2.0
"""Every VM is listed, whatever the exit source sees (issue 37).

A VMM that holds none of its VM's KVM statistics fds (Debian 12's QEMU
7.2 holds none, and KVM gives them only to the VM's own process) gives
--source stats no figures: its VM used to be left out, and `kvmtop -b`
said "no KVM events" while it ran.  The test starts kvmtop's demo guest
itself, holding no statistics fds (KVMTOP_DEMO_NO_STATS=1), so it knows
the VM's pid and name without kvmtop: the VM must be in the JSON with
exits_unknown saying why, in the text with an "exits unknown:" line and
without "no KVM events", and in `kvmtop -b -z` (not idle: unknown).  The
same guest holding its fds is listed with its figures and exits_unknown
"".  On a host whose KVM traces no exits (PVM), plain `kvmtop -b` (which
reads the statistics there) lists it the same way, and `--source trace`
lists it saying that this host's KVM traces no exits.

--source stats looks for new VMs each second between its samples: a demo
guest whose two vCPUs run 2000 loops of 1 ms (KVMTOP_DEMO_HALT_US) and
end, started after kvmtop's first sample and gone before its second (-d
6), must be in that snapshot, named, with each vCPU's mmio_exits and
halt_exits equal to the guest's own report (it was never seen when the
processes were looked at only at each sample).

Runs here, directly: it needs root and a /dev/kvm that runs guests (PVM's
does), not one that traces exits.
"""
import json
import os
import re
import subprocess
import time

from tap import ok, skip, done, kvmtop, kvm_vendor

CASES = ["json: the VM of a VMM without statistics fds, with exits_unknown saying why",
         "text: its VM line and 'exits unknown:', not 'no KVM events'",
         "-z: it is not left out as idle",
         "with its statistics fds: listed with its figures, exits_unknown empty",
         "PVM, plain kvmtop -b: the same VM with its reason",
         "--source stats -d 6: a VM that lived ~2 s between two samples, named, its MMIO and HLT exits = its own counts",
         "PVM, --source trace: the VM listed, exits_unknown saying this KVM traces no exits"]


def why_not():
    if os.geteuid() != 0:
        return "needs root"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "/dev/kvm is missing"
    if os.uname().machine not in ("x86_64", "i686"):
        return "the demo guest is x86 code"
    return None


def guest(name, stats):
    """The demo guest, running until stopped: its process (its pid is the VM's)."""
    env = dict(os.environ, KVMTOP_DEMO_NO_STATS="0" if stats else "1")
    p = subprocess.Popen([kvmtop(), "--demo-guest", "-name", "guest=%s,debug-threads=on" % name, "2", "0"],
                         env=env, stderr=subprocess.PIPE)
    # it holds its VM fd once /proc lists it: then kvmtop can find it
    end = time.time() + 10
    while time.time() < end:
        try:
            if any(os.readlink("/proc/%d/fd/%s" % (p.pid, fd)) == "anon_inode:kvm-vm"
                   for fd in os.listdir("/proc/%d/fd" % p.pid)):
                break
        except OSError:
            pass
        time.sleep(0.05)
    return p


def stop(p):
    p.terminate()
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def snapshots(args):
    r = subprocess.run([kvmtop(), "-b", "-n", "2", "-d", "0.5"] + args, capture_output=True, timeout=120)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def vm_of(out, pid):
    """The VM pid of each JSON snapshot (None where it is missing)."""
    vms = []
    for line in out.splitlines():
        try:
            vms.append(next((v for v in json.loads(line)["vms"] if v["pid"] == pid), None))
        except ValueError:
            vms.append(None)
    return vms


def brief_case():
    """A VM that lives between two samples of --source stats."""
    rep = os.path.join(os.environ.get("KVMTOP_TMP", "/tmp"), "listed-brief.json")
    if os.path.exists(rep):
        os.unlink(rep)
    k = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "-d", "6", "-n", "1", "-o", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.5)
    env = dict(os.environ, KVMTOP_DEMO_HALT_US="1000")
    g = subprocess.run([kvmtop(), "--demo-guest", "-name", "guest=brief,debug-threads=on", "2", "2000", rep],
                       env=env, capture_output=True, timeout=60)
    out, err = k.communicate(timeout=60)
    guest = json.load(open(rep)) if os.path.exists(rep) else {"pid": 0, "vcpus": [], "seconds": -1}
    vm = (vm_of(out.decode(), guest["pid"]) or [None])[-1] or {"vcpus": []}
    got = {c["tid"]: c.get("kvm_stats", {}) for c in vm["vcpus"]}
    bad = []
    for c in guest["vcpus"]:
        # (not io_exits: PVM's KVM emulates port I/O without counting it there)
        have = tuple(got.get(c["tid"], {}).get(k) for k in ("mmio_exits", "halt_exits"))
        if have != (c["exits"]["MMIO"], c["exits"]["HLT"]):
            bad.append("tid %d: %s, want %s" % (c["tid"], have, (c["exits"]["MMIO"], c["exits"]["HLT"])))
    ok(g.returncode == 0 and k.returncode == 0 and 1 < guest["seconds"] < 5 and guest["vcpus"] and not bad
       and vm.get("name") == "brief",
       CASES[5] + " (it ran %.2f s)" % guest["seconds"],
       "\n".join(bad) + "\n%s\n%s %s" % (out.decode()[:1200], g.stderr.decode(), err.decode()))


def main():
    why = why_not()
    if why:
        for c in CASES:
            skip(c, why)
        done()
    g = guest("listed", False)
    try:
        rc, out, err = snapshots(["--source", "stats", "-o", "json"])
        vms = vm_of(out, g.pid)
        ok(rc == 0 and len(vms) == 2 and all(v and v["name"] == "listed" and v["state"] == "running"
                                             and "statistics fds" in v["exits_unknown"] for v in vms),
           CASES[0], "%s\n%s" % (out[:1500], err))
        rc, out, err = snapshots(["--source", "stats"])
        # its heading's values line: its pid, then its name (the PID and VM columns)
        ok(rc == 0 and re.search(r"(?m)^ *%d listed " % g.pid, out) and "  exits unknown: no statistics fds" in out
           and "no KVM events" not in out, CASES[1], out[:1500] + err)
        rc, out, err = snapshots(["--source", "stats", "-o", "json", "-z"])
        ok(rc == 0 and all(vm_of(out, g.pid)), CASES[2], out[:800] + err)
        if kvm_vendor() == "kvm_pvm":
            rc, out, err = snapshots(["-o", "json"])
            vms = vm_of(out, g.pid)
            ok(rc == 0 and vms and all(v and "statistics fds" in v["exits_unknown"] for v in vms),
               CASES[4], "%s\n%s" % (out[:1500], err))
            rc, out, err = snapshots(["--source", "trace", "-o", "json"])
            vms = vm_of(out, g.pid)
            ok(rc == 0 and vms and all(v and "traces none" in v["exits_unknown"] and v["name"] == "listed"
                                       for v in vms), CASES[6], "%s\n%s" % (out[:1500], err))
        else:
            skip(CASES[4], "this host's KVM is %s, not PVM's" % kvm_vendor())
            skip(CASES[6], "this host's KVM is %s, not PVM's" % kvm_vendor())
    finally:
        stop(g)
    g = guest("counted", True)
    try:
        rc, out, err = snapshots(["--source", "stats", "-o", "json"])
        vms = vm_of(out, g.pid)
        ok(rc == 0 and vms[-1:] and vms[-1] and vms[-1]["exits_unknown"] is None and vms[-1]["exits"] > 0,
           CASES[3], "%s\n%s" % (out[:1500], err))
    finally:
        stop(g)
    brief_case()
    done()


main()
