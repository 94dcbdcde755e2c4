# SPDX-License-Identifier: GPL-2.0
"""Big hosts: 16,000 vCPU threads, and who a recording's threads are.

The generator (tests/kvmgen) writes a recording of 2,000 VMs x 8 vCPUs on
32 CPUs and, with -P, what "ps -eLo tid=,pid=,args=" printed on that host
(five kinds of VMM, each naming its VM its own way) and each VM's pid,
name and vCPU threads.  The oracle is the generator's: its per-thread
truth and its own list of VMs, not kvmtop's reading of them.  With
--threads, kvmtop must show the 2,000 VMs with their names and 8 vCPUs
each, every thread's and VM's exits exact, nothing dropped, in a peak RSS
(less the file's size) under 128 MiB.  Without it, no thread may be
dropped and the VMs must be those of the man page's guess (tid - vCPU
id), computed here from the generator's threads.  Bad --threads files
must each give one line naming the file and line.
"""
import json
import os
import subprocess
import tempfile

from tap import ok, eq, skip, done, kvmtop, run, kvmgen, one_clear_line, asan_run, sanitized

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
VMS, VCPUS, CPUS = 2000, 8, 32


def run_peak(args):
    """kvmtop args: (status, stdout, stderr, peak RSS in bytes), by wait4 of that process alone."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([kvmtop()] + args, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), out.read().decode("utf-8", "replace"),
                err.read().decode("utf-8", "replace"), ru.ru_maxrss * 1024)


def measured(dat, ps):
    """The --threads run, before this script holds the truth: a child's ru_maxrss counts the
    memory it shared with this process until exec."""
    return run_peak(["-b", "-r", dat, "--threads", ps, "--summary", "-o", "json"])


def with_snapshot(dat, exp, vms_want, res):
    rc, out, err, peak = res
    if not eq(rc, 0, "2,000 x 8 with --threads: exit status 0"):
        print("# " + err[:500])
        return
    j = json.loads(out)
    size = os.path.getsize(dat)
    if sanitized():
        skip("2,000 x 8: peak RSS less the file's size under 128 MiB",
             "an ASan build (%.0f MiB): its shadow and quarantine are not kvmtop's; the plain build checks it"
             % (peak / 2**20))
    else:
        ok(peak - size < 128 * 2**20,
           "2,000 x 8: peak RSS less the file's size under 128 MiB (%.1f MiB - %.1f MiB = %.1f MiB)"
           % (peak / 2**20, size / 2**20, (peak - size) / 2**20))
    eq(j["dropped_events"], 0, "2,000 x 8 with --threads: dropped_events 0")
    got = {vm["pid"]: (vm["name"], vm["grouped_by"], sorted(c["tid"] for c in vm["vcpus"]))
           for vm in j["vms"]}
    want = {v["pid"]: (v["name"], "threads", sorted(v["tids"])) for v in vms_want}
    eq(len(got), VMS, "2,000 x 8 with --threads: 2,000 VMs")
    bad = ["pid %d: got %r, want %r" % (p, got.get(p), w) for p, w in want.items() if got.get(p) != w]
    ok(not bad and len(got) == len(want),
       "2,000 x 8 with --threads: each VM's pid, name (five VMMs' ways) and its 8 vCPU threads",
       "\n".join(bad[:10]))
    truth = {t["tid"]: t for t in exp["threads"]}
    bad = []
    for vm in j["vms"]:
        for c in vm["vcpus"]:
            t = truth[c["tid"]]
            if (c["exits"], c["vcpu"]) != (t["exits"], t["vcpu"]):
                bad.append("tid %d: exits %d vcpu %d, want %d %d" % (c["tid"], c["exits"], c["vcpu"],
                                                                      t["exits"], t["vcpu"]))
    ok(not bad, "2,000 x 8 with --threads: every vCPU's exits and vCPU id are the generator's", "\n".join(bad[:10]))
    vm_truth = {v["pid"]: sum(truth[t]["exits"] for t in v["tids"]) for v in vms_want}
    bad = ["pid %d: %d, want %d" % (vm["pid"], vm["exits_total"], vm_truth[vm["pid"]])
           for vm in j["vms"] if vm["exits_total"] != vm_truth.get(vm["pid"])]
    ok(not bad, "2,000 x 8 with --threads: every VM's exits are its threads' truth", "\n".join(bad[:10]))
    eq(j["host"]["exits"], sum(t["exits"] for t in exp["threads"]), "2,000 x 8: the host's exits")
    return j


def guess_of(threads):
    """The man page's guess: threads with one tid - vCPU id are a VM 'unknown@KEY'."""
    groups = {}
    for t in threads:
        k = t["vcpu"]
        key = t["tid"] - k if k >= 0 and t["tid"] - k > 0 else t["tid"]
        groups.setdefault(key, []).append(t["tid"])
    return {k: ("unknown@%d" % k, "guess", sorted(v)) for k, v in groups.items()}


def without_snapshot(dat, exp):
    rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
    if not eq(rc, 0, "2,000 x 8 without --threads: exit status 0"):
        return
    j = json.loads(out)
    tids = sorted(c["tid"] for vm in j["vms"] for c in vm["vcpus"])
    eq((j["dropped_events"], tids), (0, sorted(t["tid"] for t in exp["threads"])),
       "2,000 x 8 without --threads: all 16,000 threads, none dropped")
    got = {vm["pid"]: (vm["name"], vm["grouped_by"], sorted(c["tid"] for c in vm["vcpus"])) for vm in j["vms"]}
    want = guess_of(exp["threads"])
    eq(got, want, "2,000 x 8 without --threads: the VMs of the documented guess (tid - vCPU id)")
    same = [vm["pid"] for vm in j["vms"] if len({c["vcpu"] for c in vm["vcpus"]}) != len(vm["vcpus"])]
    eq(same, [], "2,000 x 8 without --threads: no VM holds two threads of one vCPU id")


def small_guesses():
    """Where the vCPU id comes from: the thread name, the first event, or nowhere."""
    cases = [("names", "x86-3.6", ["-N", "qemu"]),		# CPU k/KVM; kvm_exit has no vcpu_id
             ("events", "x86-6.5", ["-N", "none"]),		# no number in names; kvm_exit's vcpu_id
             ("nothing", "x86-stripped", ["-N", "none"])]	# neither: a VM per thread
    for label, layout, args in cases:
        dat = os.path.join(TMP, "bighost-%s.dat" % label)
        exp = kvmgen(dat, layout, ["-m", "3", "-v", "3", "-n", "40", "-C", "2", "-s", "5"] + args,
                     expect=dat + ".json")
        rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
        j = json.loads(out) if rc == 0 else {"vms": []}
        got = {vm["pid"]: (vm["name"], vm["grouped_by"], sorted(c["tid"] for c in vm["vcpus"])) for vm in j["vms"]}
        threads = exp["threads"] if label != "nothing" else [dict(t, vcpu=-1) for t in exp["threads"]]
        eq(got, guess_of(threads), "guess, vCPU id from %s: %d VMs as documented" % (label, len(got)))


def bad_files(dat, ps):
    """Each bad --threads file: one line naming the file (and line), status != 0, under ASan too."""
    lines = open(ps).read().splitlines()
    d = tempfile.mkdtemp(prefix="kvmtop-threads-", dir=TMP)
    first_vm = [l for l in lines if "qemu-system" in l][0]
    pid = int(first_vm.split()[1])
    cases = [
        ("missing file", None, "No such file"),
        ("empty file", "", "no threads"),
        ("garbage line", "\n".join(lines[:3] + ["hello world"] + lines[3:]) + "\n", ":4: not 'TID PID ARGS'"),
        ("negative tid", "-5 7 x\n", ":1: not 'TID PID ARGS'"),
        ("tid 0", "0 7 x\n", ":1: not 'TID PID ARGS'"),
        ("tid over INT_MAX", "99999999999 7 x\n", ":1: not 'TID PID ARGS'"),
        ("a tid listed twice", "\n".join(lines + ["%7d %7d other" % (pid - 99, 5000000)]) + "\n",
         "tid %d is listed again" % (pid - 99)),
        ("a pid that is another process's thread", "\n".join(lines + ["%7d %7d reuse" % (4000001, pid - 98)]) + "\n",
         "pid %d is a thread of process %d" % (pid - 98, pid)),
        ("a NUL byte", "1 1 /sbin/init\x00x\n", ":1: a NUL byte"),
    ]
    for name, text, says in cases:
        path = os.path.join(d, name.replace(" ", "_").replace("'", ""))
        if text is not None:
            with open(path, "w") as f:
                f.write(text)
        args = ["-b", "-r", dat, "--threads", path, "--summary", "-o", "json"]
        rc, out, err = run(args)
        one_clear_line(rc, err, "--threads, %s: one line naming it, status != 0" % name, path.split("/")[-1])
        ok(says in err, "--threads, %s: the line says %r" % (name, says), err)
        if "KVMTOP_ASAN" in os.environ and text:
            rc, out, err, _ = asan_run(args)
            one_clear_line(rc, err, "--threads, %s: the same under ASan/UBSan" % name)
    rc, out, err = run(["-b", "--threads", ps, "-n", "1"])
    eq((rc, "--threads" in err), (2, True), "--threads without -r: a usage error naming it")


def partial(dat, ps, exp, vms_want):
    """A snapshot that lists half the VMs' threads (the others ended before ps ran), and tids
    the recording never saw: the listed are named, the rest guessed, the unseen ignored."""
    lines = open(ps).read().splitlines()
    listed = {v["pid"] for v in vms_want[::2]}
    keep = [l for l in lines if int(l.split()[1]) in listed or int(l.split()[1]) < 1000]
    keep += ["%7d %7d /usr/bin/qemu-system-x86_64 -name guest=never-ran" % (900000 + i, 900000) for i in range(3)]
    part = os.path.join(TMP, "bighost-partial.ps")
    with open(part, "w") as f:
        f.write("\n".join(keep) + "\n")
    rc, out, err = run(["-b", "-r", dat, "--threads", part, "--summary", "-o", "json"])
    j = json.loads(out) if rc == 0 else {"vms": []}
    got = {vm["pid"]: (vm["name"], vm["grouped_by"], sorted(c["tid"] for c in vm["vcpus"])) for vm in j["vms"]}
    want = {v["pid"]: (v["name"], "threads", sorted(v["tids"])) for v in vms_want[::2]}
    unlisted = [t for t in exp["threads"] if not any(t["tid"] in v["tids"] for v in vms_want[::2])]
    want.update(guess_of(unlisted))
    ok(rc == 0 and got == want,
       "--threads listing half the VMs, and 3 tids never seen: listed VMs named, the rest guessed",
       "status %d %s; %d VMs got, %d want" % (rc, err[:200], len(got), len(want)))


def main():
    dat = os.path.join(TMP, "bighost.dat")
    ps = os.path.join(TMP, "bighost.ps")
    kvmgen(dat, "x86-6.5", ["-m", str(VMS), "-v", str(VCPUS), "-n", "17", "-C", str(CPUS), "-s", "3",
                            "-P", ps, "-e", dat + ".json"])
    res = measured(dat, ps)
    exp = json.load(open(dat + ".json"))
    vms_want = json.load(open(ps + ".json"))
    with_snapshot(dat, exp, vms_want, res)
    without_snapshot(dat, exp)
    partial(dat, ps, exp, vms_want)
    small_guesses()
    bad_files(dat, ps)
    for f in (dat, dat + ".json"):
        os.unlink(f)
    done()


main()
