# SPDX-License-Identifier: GPL-2.0
"""The bpf source (--source bpf, src/sources/bpf.c and its program bpf_kvm.bpf.c) live, against
the demo guest's own counts, the trace source on the same exits, and the kernel's own list of
BPF programs and links.

- own counts: kvmtop --source bpf runs the demo guest (fixed loops; its report says how many
  port, MMIO and HLT exits each vCPU made); the summary's per-vCPU userspace exits, kvm_pio
  events, port object and reasons equal them, every exit of the port has its latency.
- side by side: while a bpf kvmtop runs the demo guest (on SVM through tp_btf, the VMCB's
  fields), a trace kvmtop and a second bpf kvmtop (the classic records: KVMTOP_BPF_CLASSIC)
  watch it; at the end every vCPU and reason row's counts are equal in all three (the same
  exits: counted in the kernel or read one by one), every reason's and object's latency has
  as many samples, and each field of the rows the trace source gives is given under bpf too,
  but those the man page lists as not yet measured under bpf (null there).
- a map too small (--bpf-entries 64): the refused updates are said once and counted in
  dropped_events, the exit counts stay exact (the exits map holds them all).
- signals: after SIGINT, SIGTERM, SIGHUP and SIGKILL no kx_event program is left (the kernel's
  list, bpftool prog show): nothing is pinned.
- no privileges: without CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (setpriv) one line, status 1.
- no BTF: the kernel's BTF taken from a file that is not there, or that is no BTF
  (KVMTOP_BPF_BTF): one line, status 1.

And first, here, wherever the bpf source loads (PVM's KVM too, whose guests raise KVM events but no
exits): every interval's snapshot of the demo guest, summed, has its own kvm_pio and userspace
exits, as the test of the trace source checks them (tests/live.py); counted in each thread's own
counters, and (KVMTOP_BPF_EVENTS_MAP) in the events map by interval, the way of a kernel with more
KVM events than the program has counters for.

Needs root, BTF and a KVM that traces exits; elsewhere the cases run inside the emulated KVM
host (tests/vmhost).  A kvmtop built without libbpf, clang or bpftool makes each case a SKIP.
"""
import json
import os
import signal
import subprocess
import time

from tap import ok, skip, done, inside_kvm_host, kvm_traced, kvmtop, mount_point, guest_cases, one_clear_line, \
    sanitized, bpf_not_built_in

CASES = ["own counts: the demo guest's exits per vCPU, counted in the kernel",
         "side by side: the same rows under trace and bpf, twice bpf",
         "a map too small: said, the exit counts exact",
         "signals: no program left after SIGINT, SIGTERM, SIGHUP, SIGKILL",
         "no privileges: one line",
         "no BTF: one line",
         "sampled: --bpf-samples below the exits' rate, each sample standing for the exits since the last"]

# the fields of a vCPU's, reason's and object's row the bpf source does not measure yet
# (kvmtop(1), DESCRIPTION, --source bpf): null there, whatever the trace source gives
NULL_UNDER_BPF = set()
# a vCPU thread's time states and who took its CPU, measured by both, but over each kvmtop's own
# run (the summary of a watcher that started first is longer; the trace source sees only the
# switches next to a VM's thread): given under bpf, not compared here (tests/live_time.py and
# tests/live_steal.py check them against schedstat and a hog).  A vCPU's node comes from /proc under bpf: the bpf source makes a vCPU's
# row at its first interval's reading, not at its first event as trace does, so a short-lived
# thread's node can be null under bpf where trace read it (seen once in a fresh-clone make check)
OWN_SPAN = {"time_seconds", "guest_pct", "host_pct", "vmm_pct", "halt_pct", "steal_pct", "util_pct",
            "stolen_by", "stolen_other_seconds"}
FROM_PROC_UNDER_BPF = {"node"}
LOOPS = 300 if not sanitized() else 100


def why_not():
    if os.geteuid() != 0:
        return "needs root"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "this kernel has no BTF (/sys/kernel/btf/vmlinux)"
    t = mount_point("tracefs")
    if not t or not os.path.isdir(os.path.join(t, "events", "kvm")):
        return "tracefs with the kernel's kvm events is not available"
    return bpf_not_built_in()


def links_of(pid):
    """How many BPF links process pid holds (the kernel's fdinfo)."""
    n = 0
    try:
        for fd in os.listdir("/proc/%d/fdinfo" % pid):
            try:
                if "link_type:" in open("/proc/%d/fdinfo/%s" % (pid, fd)).read():
                    n += 1
            except OSError:
                pass
    except OSError:
        pass
    return n


def wait_attached(p, timeout=120):
    """Until kvmtop p holds its links (loading takes seconds in the emulated host)."""
    end = time.time() + timeout
    while time.time() < end and p.poll() is None:
        if links_of(p.pid) >= 2:
            return True
        time.sleep(0.1)
    return False


def summary(out):
    lines = [l for l in out.decode().splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def vm_of(j, pid):
    return next((vm for vm in (j or {}).get("vms", []) if vm["pid"] == pid), None)


def demo_bpf(extra=(), report="/tmp/kvmtop-live-bpf.json", loops=LOOPS):
    """A bpf kvmtop running the demo guest (loops of it) to its end: (process, report path)."""
    if os.path.exists(report):
        os.unlink(report)
    p = subprocess.Popen([kvmtop(), "--source", "bpf", "-b", "--summary", "-o", "json", "--demo", "--demo-loops",
                          str(loops), "--demo-report", report] + list(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p, report


def own_counts():
    p, report = demo_bpf()
    out, err = p.communicate(timeout=600)
    j, g = summary(out), json.load(open(report)) if os.path.exists(report) else None
    vm = vm_of(j, g["pid"]) if g else None
    if not ok(p.returncode == 0 and vm, CASES[0] + ": the summary has the guest",
              "status %r\n%s" % (p.returncode, err.decode()[-2000:])):
        return
    bad = []
    for c in g["vcpus"]:
        v = next((v for v in vm["vcpus"] if v["tid"] == c["tid"]), None)
        if not v:
            bad.append("vCPU %d: no row" % c["tid"])
            continue
        ue = v.get("userspace_exits") or {}
        got = {k: ue.get(k, 0) for k in ("IO", "MMIO", "HLT")}
        want = {k: c["exits"][k] for k in ("IO", "MMIO", "HLT")}
        if got != want or (v.get("events") or {}).get("kvm_pio") != c["exits"]["IO"]:
            bad.append("vCPU %d: userspace exits %r, kvm_pio %r; the guest's %r" %
                       (c["tid"], got, (v.get("events") or {}).get("kvm_pio"), want))
        ports = [o for r in v["reasons"] for o in r.get("objects", []) if o["kind"] == "port"]
        if sum(o["count"] for o in ports) != c["exits"]["IO"] or \
                any(o["latency"]["samples"] != o["count"] for o in ports):
            bad.append("vCPU %d: port objects %r" % (c["tid"], [(o["object"], o["count"], o["latency"]["samples"])
                                                                for o in ports]))
        hlt = sum(r["count"] for r in v["reasons"] if r["blocking"])
        if hlt != c["exits"]["HLT"]:
            bad.append("vCPU %d: %d blocking exits, the guest %d HLT" % (c["tid"], hlt, c["exits"]["HLT"]))
    ok(not bad, CASES[0] + ": userspace exits, kvm_pio, the port's exits with their latencies, HLT",
       "\n".join(bad))


def rows(vm):
    """{(tid, reason): reason row} and {tid: vCPU row} of a VM."""
    return ({(v["tid"], r["reason"]): r for v in vm["vcpus"] for r in v["reasons"]},
            {v["tid"]: v for v in vm["vcpus"]})


def ip_set(ips):
    """A vCPU's guest IPs, in an order of their own (ties in count sort either way)."""
    return sorted((i["kind"], i["ip"], i.get("reason"), i["mode"], i["count"]) for i in ips or [])


def split_of(v, label):
    """A vCPU's exits' time runnable (preempted), summed over its reasons, against its own wait
    state: a vCPU thread waits for a CPU inside its exits (a thread in the guest is made to exit
    first), so the sum is at most its wait, and most of it but for the waits before its first
    exit and after its last, which no entry splits (a sanitizer build in a loaded emulated host
    saw 40 ms of 89 there: half, less 50 ms).  Its states are checked against the kernel's
    schedstat in tests/live_time.py.  (Its halt is no such sum: a thread that ended is asleep
    until it is read a last time, and the demo's HLT returns to its VMM at once.)"""
    t = v.get("time_seconds") or {}
    got = sum(r.get("preempted_seconds") or 0 for r in v["reasons"])
    if t.get("wait") is None or not (0.5 * t["wait"] - 0.050 <= got <= t["wait"] + 0.001):
        return ["%s: preempted_seconds summed %.4f s, its wait %r s" % (label, got, t.get("wait"))]
    return []


def names_of(t, b, label):
    """A vCPU thread's name: the demo names each "CPU N/KVM" before its first KVM_RUN, the bpf
    source's every one so (/proc's, or the program's at its first event).  The trace source may
    give its name at birth, its creator's ("kvmtop-demo"), where the thread ended before that
    kvmtop read it (a loaded or sanitizer run: the task_newtask record names it)."""
    want = "CPU %s/KVM" % b.get("vcpu")
    if b.get("comm") != want or t.get("comm") not in (want, "kvmtop-demo"):
        return ["%s: comm %r under trace, %r under bpf, the demo's %r" % (label, t.get("comm"), b.get("comm"), want)]
    return []


def compare(t, b, label):
    """Differences between the trace source's row t and the bpf source's row b."""
    bad = []
    for k, tv in t.items():
        bv = b.get(k)
        if k in FROM_PROC_UNDER_BPF:
            continue
        if k in OWN_SPAN:
            if tv is not None and bv is None:
                bad.append("%s: %s is null under bpf, %r under trace" % (label, k, tv))
            continue
        if k in NULL_UNDER_BPF:
            if bv not in (None, [], {}) and not (isinstance(bv, dict) and all(x is None for x in bv.values())):
                bad.append("%s: %s is %r under bpf, listed as not measured" % (label, k, bv))
            continue
        if tv is not None and bv is None:
            bad.append("%s: %s is null under bpf, %r under trace" % (label, k, tv))
    # the guest IPs: the exits this slow host makes are within --bpf-samples' rate, so every exit
    # is a sample under bpf too (each standing for one exit): the same IPs, counted alike
    for k in ("count", "total", "exits", "exits_total", "unmatched_exits", "unmatched_entries",
              "userspace_exits", "events", "reason", "code", "isa", "blocking", "vcpu", "ip_samples",
              "site", "site_pct", "sites"):
        if k in t and t[k] != b.get(k):
            bad.append("%s: %s %r under trace, %r under bpf" % (label, k, t[k], b.get(k)))
    if "ips" in t and ip_set(t["ips"]) != ip_set(b.get("ips")):
        bad.append("%s: ips %r under trace, %r under bpf" % (label, ip_set(t["ips"]), ip_set(b.get("ips"))))
    if "latency" in t and (t["latency"] or {}).get("samples") != (b.get("latency") or {}).get("samples"):
        bad.append("%s: latency samples %r, %r" % (label, t["latency"], b.get("latency")))
    # each exit's split, from the sched events in the kernel: as many exits split (the time they
    # spent runnable and asleep is checked against the vCPU's own states: split_of())
    if "handling" in t and (t["handling"] or {}).get("samples") != (b.get("handling") or {}).get("samples"):
        bad.append("%s: handling samples %r, %r" % (label, t["handling"], b.get("handling")))
    if "time_source" in t and t["time_source"] != b.get("time_source"):
        bad.append("%s: time_source %r under trace, %r under bpf" % (label, t["time_source"], b.get("time_source")))
    return bad


def side_by_side():
    watch_t = subprocess.Popen([kvmtop(), "-b", "--summary", "-o", "json", "--ip-top", "1000"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    # the watcher takes the classic records (KVMTOP_BPF_CLASSIC); the guest's own kvmtop, on SVM,
    # tp_btf's arguments
    watch_b = subprocess.Popen([kvmtop(), "--source", "bpf", "-b", "--summary", "-o", "json", "--ip-top", "1000"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ, KVMTOP_BPF_CLASSIC="1"))
    ready = kvm_traced(watch_t.pid, 120, watch_t) and wait_attached(watch_b)
    p, report = demo_bpf(["--ip-top", "1000"])
    wait_attached(p)
    names = [x.get("name") for x in programs(None)]
    svm = os.path.isdir("/sys/module/kvm_amd") and os.path.exists("/sys/kernel/btf/kvm_amd")
    ok(names.count("kx_exit_svm") == (1 if svm else 0) and names.count("kx_event") == 2,
       CASES[1] + ": %s the guest's kvmtop, the records for the watcher" % (
           "tp_btf (kvm_amd's BTF) for" if svm else "the records (no SVM with BTF) for"), names)
    out, err = p.communicate(timeout=600)
    # what the watchers have not read yet is read at their end
    time.sleep(1)
    for w in (watch_t, watch_b):
        w.send_signal(signal.SIGINT)
    tout, terr = watch_t.communicate(timeout=120)
    bout, berr = watch_b.communicate(timeout=120)
    g = json.load(open(report)) if os.path.exists(report) else None
    js = [summary(o) for o in (tout, out, bout)]
    vms = [vm_of(j, g["pid"]) if g else None for j in js]
    if not ok(ready and p.returncode == 0 and all(vms), CASES[1] + ": three kvmtops saw the guest",
              "ready %r, status %r %r %r\n%s%s%s" % (ready, p.returncode, watch_t.returncode, watch_b.returncode,
                                                      err.decode()[-1000:], terr.decode()[-1000:],
                                                      berr.decode()[-1000:])):
        return
    bad = []
    t_reasons, t_vcpus = rows(vms[0])
    for name, vm in (("bpf --demo", vms[1]), ("bpf watching, classic records", vms[2])):
        b_reasons, b_vcpus = rows(vm)
        if set(t_reasons) != set(b_reasons):
            bad.append("%s: reasons %r, trace %r" % (name, sorted(b_reasons), sorted(t_reasons)))
        for key, tr in t_reasons.items():
            if key in b_reasons:
                bad += compare(tr, b_reasons[key], "%s %r" % (name, key))
                tobj = {o["object"]: o for o in tr.get("objects", [])}
                bobj = {o["object"]: o for o in b_reasons[key].get("objects", [])}
                if set(tobj) != set(bobj):
                    bad.append("%s %r: objects %r, trace %r" % (name, key, sorted(bobj), sorted(tobj)))
                for o in set(tobj) & set(bobj):
                    bad += compare(tobj[o], bobj[o], "%s %r object %s" % (name, key, o))
        for tid, tv in t_vcpus.items():
            if tid not in b_vcpus:
                bad.append("%s: no vCPU %d" % (name, tid))
                continue
            bad += split_of(b_vcpus[tid], "%s vCPU %d" % (name, tid))
            bad += names_of(tv, b_vcpus[tid], "%s vCPU %d" % (name, tid))
            tv = {k: v for k, v in tv.items() if k != "reasons"}
            bad += compare(tv, b_vcpus[tid], "%s vCPU %d" % (name, tid))
    ok(not bad, CASES[1] + ": every vCPU, reason and object row equal, or listed as not measured under bpf",
       "\n".join(bad[:40]))


def small_map():
    p, report = demo_bpf(["--bpf-entries", "64"])
    out, err = p.communicate(timeout=600)
    j, g = summary(out), json.load(open(report)) if os.path.exists(report) else None
    vm = vm_of(j, g["pid"]) if g else None
    said = [l for l in err.decode().splitlines() if "is full" in l]
    got = {v["tid"]: sum(r["count"] for r in v["reasons"] if r["blocking"]) for v in (vm or {}).get("vcpus", [])}
    want = {c["tid"]: c["exits"]["HLT"] for c in (g or {}).get("vcpus", [])}
    dropped = (j or {}).get("dropped_events")
    ok(p.returncode == 0 and len(said) >= 1 and got == want and dropped,
       CASES[2] + ": the refused updates said (%d line(s)) and counted as dropped events (%r), HLT exits %r = "
       "the guest's" % (len(said), dropped, got),
       "status %r, want %r; rows %r\n%s" % (p.returncode, want,
                                            [(x["pid"], x.get("name"), [(c["tid"], c.get("vcpu"), c.get("comm"))
                                                                        for c in x["vcpus"]])
                                             for x in (j or {}).get("vms", [])], err.decode()[-2000:]))


def programs(name="kx_event"):
    """The programs of that name loaded now (None: every one), as the kernel lists them."""
    p = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True)
    try:
        return [x for x in json.loads(p.stdout or b"[]") if name is None or x.get("name") == name]
    except ValueError:
        return ["unreadable: %r" % p.stdout[:200]]


def signals():
    bad = []
    if programs():
        bad.append("kx_event programs before the start: %r" % programs())
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
        p = subprocess.Popen([kvmtop(), "--source", "bpf", "-b", "-d", "1", "-o", "json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        if not wait_attached(p):
            bad.append("%s: kvmtop never held its links: %s" % (sig.name, p.stderr.read().decode() if p.poll()
                                                                   is not None else "still running"))
        had = len(programs())
        p.send_signal(sig)
        p.communicate(timeout=60)
        # the kernel frees a program once its last fd and link are gone: soon after the exit
        end = time.time() + 10
        while programs() and time.time() < end:
            time.sleep(0.2)
        if not had or programs():
            bad.append("%s: %d program(s) while it ran, %r after" % (sig.name, had, programs()))
    ok(not bad, CASES[3], "\n".join(bad))


def no_btf():
    """The kernel's BTF in a file that is not there, and in one that is no BTF: one line each."""
    for path, says in (("/nonexistent/vmlinux", "/nonexistent/vmlinux"), ("/etc/hostname", "bpf:")):
        p = subprocess.run([kvmtop(), "--source", "bpf", "-b", "-n", "1"], capture_output=True, timeout=120,
                           env=dict(os.environ, KVMTOP_BPF_BTF=path))
        one_clear_line(p.returncode, p.stderr.decode(), "%s (KVMTOP_BPF_BTF=%s)" % (CASES[5], path), says)


def no_privileges():
    p = subprocess.run(["setpriv", "--inh-caps=-all", "--bounding-set=-bpf,-perfmon,-sys_admin", "--",
                        kvmtop(), "--source", "bpf", "-b", "-n", "1"], capture_output=True, timeout=120)
    one_clear_line(p.returncode, p.stderr.decode(), CASES[4] + " naming CAP_BPF", "CAP_BPF")


def events_here(way):
    """The demo guest's events, interval by interval (-d 0.2: the loader's readings of its
    threads' counters, or with KVMTOP_BPF_EVENTS_MAP the interval flip and the reading of the
    interval before, many times over), summed, against its report."""
    name = "here, %s: the demo guest's kvm_pio and userspace exits, summed over its intervals, are its own" % way
    why = why_not() if os.path.exists("/dev/kvm") else "needs /dev/kvm"
    if why:
        skip(name, why)
        return
    env = dict(os.environ, KVMTOP_BPF_EVENTS_MAP="1") if way == "events map" else None
    report = "/tmp/kvmtop-bpf-here.json"
    if os.path.exists(report):
        os.unlink(report)
    p = subprocess.run([kvmtop(), "--source", "bpf", "-b", "-d", "0.2", "-o", "json", "--demo", "--demo-loops",
                        "30000", "--demo-report", report], capture_output=True, timeout=300, env=env)
    g = json.load(open(report)) if os.path.exists(report) else None
    got, n = {}, 0
    for line in p.stdout.decode().splitlines():
        vm = vm_of(json.loads(line), g["pid"]) if g and line.startswith("{") else None
        n += 1
        for v in (vm or {}).get("vcpus", []) + ([] if not vm else [{"tid": 0, "events": vm["events"],
                                                                     "userspace_exits": vm["userspace_exits"]}]):
            c = got.setdefault(v["tid"], {})
            for k, x in list((v.get("events") or {}).items()) + list((v.get("userspace_exits") or {}).items()):
                c[k] = c.get(k, 0) + x
    want = {"kvm_pio": sum(c["exits"]["IO"] for c in g["vcpus"]) if g else None,
            "IO": sum(c["exits"]["IO"] for c in g["vcpus"]) if g else None,
            "MMIO": sum(c["exits"]["MMIO"] for c in g["vcpus"]) if g else None,
            "HLT": sum(c["exits"]["HLT"] for c in g["vcpus"]) if g else None}
    vmwide = {k: got.get(0, {}).get(k, 0) for k in want}
    ok(p.returncode == 0 and g and vmwide == want, "%s (%d snapshots)" % (name, n),
       "status %r, got %r, want %r\n%s" % (p.returncode, vmwide, want, p.stderr.decode()[-1500:]))


def sampled():
    """--bpf-samples 10, far below the demo guest's exits a second: every Nth exit is a sample
    standing for the exits since its vCPU's last, so each vCPU's IP samples (time, exit sites, no
    IP) add up to its exits, short only by those since its last sample (fewer than N: a quarter of
    them at most here).  A sample that counted only its own exit would leave them N times short."""
    # long enough (seconds) for the step to be set past 1: the first second takes every exit
    p, report = demo_bpf(["--bpf-samples", "10"], loops=LOOPS * 10)
    out, err = p.communicate(timeout=600)
    j, g = summary(out), json.load(open(report)) if os.path.exists(report) else None
    vm = vm_of(j, g["pid"]) if g else None
    if not ok(p.returncode == 0 and vm, CASES[6] + ": the summary has the guest",
              "status %r\n%s" % (p.returncode, err.decode()[-2000:])):
        return
    got = []
    for v in vm["vcpus"]:
        s = v.get("ip_samples") or {}
        exits = sum(r["count"] for r in v["reasons"])
        got.append((v["tid"], exits, (s.get("time") or 0) + (s.get("exit") or 0) + (s.get("none") or 0)))
    ok(got and all(e > 100 and 0 <= e - n <= max(50, e // 4) for _, e, n in got),
       CASES[6] + ": per vCPU the samples' exits add up to its exits, short by at most the last step's",
       "(tid, exits, samples' exits): %r" % got)


def main():
    if not inside_kvm_host():
        events_here("threads' counters")
        events_here("events map")
    guest_cases(__file__, CASES, why_not)
    own_counts()
    side_by_side()
    small_map()
    signals()
    no_privileges()
    no_btf()
    sampled()
    done()


main()
