# SPDX-License-Identifier: GPL-2.0
"""kvmtop's default source (issue 48): with no --source, bpf, then trace, then KVM's statistics.

Here, on a KVM that runs guests without raising exits (PVM): the statistics, with the line that
says so, as before bpf was the default.

Inside the emulated KVM host (SVM with BTF), a demo guest making exits before kvmtop starts
(its vCPU thread's exits are what both counts see):
- bpf: kvmtop -b with no --source reads through the bpf source (the JSON's source), says
  nothing (with KVMTOP_BPF_DEBUG=1, the comparison's two counts: equal but for the edges, of
  ten exits or more), each snapshot's five states of the guest's vCPU add up to its length (the
  first's from the programs' start, before they were attached and compared), has no trace instance (its start-up comparison's, kvmtop-PID-check, is gone by its
  first snapshot), and its programs are in the kernel's list (bpftool) while it runs, not
  after.
- a bpf source that counts wrong (KVMTOP_BPF_SKEW=1: the program leaves every other exit of
  the host uncounted): the start-up comparison finds it in one line naming both counts, the
  bpf one half the trace one (the skew's own rule, within the window's edges), and kvmtop runs
  the trace source; no program and no instance of it is left after.
- without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (setpriv): one line naming CAP_BPF, then the
  trace source, status 0.
- KVMTOP_NO_BPF=1, and --buffer-kb (a trace option): the trace source, its instance made, not
  a word said.

The other live tests set KVMTOP_NO_BPF=1 (tests/tap.py): they were written for the trace
source; this one takes it out of its kvmtops' environment.
"""
import json
import os
import re
import signal
import subprocess
import time

from tap import ok, skip, done, kvmtop, guest_cases, inside_kvm_host, kvm_vendor, kvm_traced, mount_point, \
    bpf_not_built_in

CASES = ["default bpf: the bpf source, nothing said, no trace instance, its programs loaded",
         "default bpf: no program left after it ends",
         "default bpf: the guest running from before kvmtop, each snapshot's five states of its vCPU add up to "
         "the snapshot (the first from the programs' start)",
         "default bpf, KVMTOP_BPF_DEBUG=1: the start-up comparison's counts, equal but for the window's edges",
         "a bpf source that counts wrong: one line with both counts, the bpf one half the trace one",
         "a bpf source that counts wrong: the trace source runs, status 0",
         "a bpf source that counts wrong: no program and no instance left",
         "no capabilities: one line naming CAP_BPF, then the trace source",
         "KVMTOP_NO_BPF=1: the trace source, nothing said",
         "--buffer-kb with no --source: the trace source, nothing said"]
DEFAULT_ENV = {k: v for k, v in os.environ.items() if k != "KVMTOP_NO_BPF"}
LINE = re.compile(r"^kvmtop: bpf: its programs counted (\d+) VM exits in its first (\d+) ms, tracefs (\d+): "
                  r"--source trace instead$")


def why_not():
    if os.geteuid() != 0:
        return "needs root"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
    return bpf_not_built_in()


def programs():
    p = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True)
    try:
        return [x.get("name") for x in json.loads(p.stdout or b"[]") if (x.get("name") or "").startswith("kx_")]
    except ValueError:
        return ["unreadable: %r" % p.stdout[:200]]


def programs_gone():
    """The kernel frees a program once its last fd and link are gone: soon after kvmtop's exit."""
    end = time.time() + 10
    while programs() and time.time() < end:
        time.sleep(0.2)
    return not programs()


def instances(pid):
    d = os.path.join(mount_point("tracefs") or "/sys/kernel/tracing", "instances")
    return sorted(n for n in os.listdir(d) if n == "kvmtop-%d" % pid or n.startswith("kvmtop-%d-" % pid))


def docs(out):
    return [json.loads(l) for l in out.decode().splitlines() if l.startswith("{")]


def run(args, env, during=None):
    """kvmtop -b -o json -d 1 -n 2 with args, env: (status, stderr lines, JSON lines, during's value
    once the first snapshot is out)."""
    p = subprocess.Popen([kvmtop(), "-b", "-o", "json", "-d", "1", "-n", "2"] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    first = p.stdout.readline()
    seen = during(p) if during else None
    out, err = p.communicate(timeout=300)
    return p.returncode, [l for l in err.decode().splitlines() if l.strip()], docs(first + out), seen


def pvm_here():
    """On a KVM that raises no exits: the statistics, said in one line (not in the emulated host)."""
    name = "here, PVM: no --source gives KVM's statistics, said"
    if kvm_vendor() != "kvm_pvm" or os.geteuid() != 0:
        skip(name, "this host's KVM is not PVM (%s)" % kvm_vendor())
        return
    rc, err, js, _ = run([], DEFAULT_ENV)
    ok(rc == 0 and js and all(j.get("source") == "stats" for j in js) and
       any("traces no VM exits" in l and "--source stats" in l for l in err), name, "status %r, sources %r, stderr %r" % (rc, [j.get("source") for j in js], err))


def default_bpf(guest):
    rc, err, js, seen = run([], DEFAULT_ENV, lambda p: (programs(), instances(p.pid)))
    progs, inst = seen
    ok(rc == 0 and js and all(j.get("source") == "bpf" for j in js) and not err and "kx_event" in progs and
       inst == [], CASES[0], "status %r, sources %r, stderr %r, programs %r, instances %r" %
       (rc, [j.get("source") for j in js], err, progs, inst))
    ok(programs_gone(), CASES[1], "programs after: %r" % programs())
    # a thread met at once had its first state counted from the boot (a first snapshot of 67 s of
    # states in 1.5 s), and one met after the driver's first reading from a start later than the
    # snapshot's
    bad, n = [], 0
    for j in js:
        for vm in j["vms"]:
            for v in vm["vcpus"] if vm["pid"] == guest else []:
                t = sum(x for x in (v.get("time_seconds") or {}).values() if x is not None)
                n += 1
                if abs(t - j["seconds"]) > 0.005 * j["seconds"]:
                    bad.append("snapshot %d vCPU %d: states %.4f s in %.4f s" % (j["snapshot"], v["tid"], t,
                                                                               j["seconds"]))
    ok(n >= 2 and not bad, CASES[2], "%d vCPU snapshots\n%s" % (n, "\n".join(bad)))
    # the guest runs (thousands of exits a second here): the window holds some
    rc, err, js, _ = run([], dict(DEFAULT_ENV, KVMTOP_BPF_DEBUG="1"))
    said = [l for l in err if "start-up comparison" in l]
    m = re.match(r"^kvmtop: bpf: start-up comparison: (\d+) VM exits in (\d+) ms, tracefs (\d+)$", said[0]) \
        if len(said) == 1 else None
    ok(rc == 0 and m and int(m.group(3)) >= 10 and abs(int(m.group(1)) - int(m.group(3))) <= 2 and
       all(j.get("source") == "bpf" for j in js), CASES[3], "status %r, said %r" % (rc, said))


def skewed(guest):
    rc, err, js, _ = run([], dict(DEFAULT_ENV, KVMTOP_BPF_SKEW="1"))
    m = LINE.match(err[0]) if len(err) == 1 else None
    got, want = (int(m.group(1)), int(m.group(3))) if m else (None, None)
    # every other exit of the host counted (one atomic counter), each tracer stamping the window's
    # edges a few ns apart: half, within 3, and 2 % (an emulated host once gave 434 of 879; six
    # runs by hand gave half to the exit)
    ok(m and want >= 10 and abs(got - want / 2) <= 3 + want // 50, CASES[4], "stderr %r" % err)
    ok(rc == 0 and js and all(j.get("source") == "live" for j in js) and
       any(vm["pid"] == guest for j in js for vm in j["vms"]), CASES[5],
       "status %r, sources %r" % (rc, [j.get("source") for j in js]))
    left = [n for n in os.listdir(os.path.join(mount_point("tracefs") or "/sys/kernel/tracing", "instances"))
            if n.startswith("kvmtop-")]
    ok(programs_gone() and not left, CASES[6], "programs %r, instances %r" % (programs(), left))


def no_caps():
    p = subprocess.run(["setpriv", "--inh-caps=-all", "--bounding-set=-bpf,-perfmon,-sys_admin", "--",
                        kvmtop(), "-b", "-o", "json", "-d", "1", "-n", "2"], capture_output=True, timeout=300,
                       env=DEFAULT_ENV)
    err = [l for l in p.stderr.decode().splitlines() if l.strip()]
    js = docs(p.stdout)
    ok(p.returncode == 0 and len(err) == 1 and "CAP_BPF" in err[0] and err[0].endswith("--source trace instead")
       and js and all(j.get("source") == "live" for j in js), CASES[7],
       "status %r, stderr %r, sources %r" % (p.returncode, err, [j.get("source") for j in js]))


def trace_asked(args, env, case):
    rc, err, js, traced = run(args, env, lambda p: kvm_traced(p.pid, 30, p))
    ok(rc == 0 and not err and traced and js and all(j.get("source") == "live" for j in js), case,
       "status %r, stderr %r, instance traced %r, sources %r" % (rc, err, traced, [j.get("source") for j in js]))


def main():
    if not inside_kvm_host():
        pvm_here()
    guest_cases(__file__, CASES, why_not)
    # a guest that makes exits from before each kvmtop starts, until the end
    guest = subprocess.Popen([kvmtop(), "--demo-guest", "-name", "guest=dflt,debug-threads=on", "1", "0"])
    try:
        time.sleep(2)
        default_bpf(guest.pid)
        skewed(guest.pid)
        no_caps()
        trace_asked([], dict(DEFAULT_ENV, KVMTOP_NO_BPF="1"), CASES[8])
        trace_asked(["--buffer-kb", "2048"], DEFAULT_ENV, CASES[9])
    finally:
        guest.send_signal(signal.SIGTERM)
        guest.wait(timeout=60)
    done()


main()
