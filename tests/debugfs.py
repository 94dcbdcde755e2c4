# SPDX-License-Identifier: GPL-2.0
"""The debugfs source (--source debugfs).

On a test tree laid out as the kernel lays out <debugfs>/kvm, with
counters that grow while kvmtop runs: kvmtop must report, per VM, what
each counter grew by (a VM running at start counts from then, a VM that
appears later from its start), the *exit* counters as reasons, the
other counters as events, and leave out instant values, peaks and
histograms.  On this host's own debugfs: either the figures (when the
counters can be read) or one line saying why not (kernel lockdown, only
where securityfs says it is on: faked by tests/preload/lockdown.c).
"""
import errno
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, run, mount_point, wait_line

TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def put(path, value, mode=0o644):
    with open(path, "w") as f:
        f.write(value)
    os.chmod(path, mode)


def tree(root, vm_dirs):
    """<root>/kvm with the all-VMs files and one directory per (pid, fd, counters)."""
    kvm = os.path.join(root, "kvm")
    os.makedirs(kvm)
    for name in ("exits", "io_exits", "halt_exits", "mmio_exits", "pf_fixed", "insn_emulation"):
        put(os.path.join(kvm, name), "0\n")
    put(os.path.join(kvm, "pages_4k"), "512\n", 0o444)            # instant value
    put(os.path.join(kvm, "max_mmu_rmap_size"), "9\n")             # peak
    put(os.path.join(kvm, "halt_wait_hist"), "1\n2\n3\n")          # histogram
    for pid, fd, counters in vm_dirs:
        vm_dir(kvm, pid, fd, counters)
    return kvm


def vm_dir(kvm, pid, fd, counters):
    d = os.path.join(kvm, "%d-%d" % (pid, fd))
    os.makedirs(d, exist_ok=True)
    for name, v in counters.items():
        put(os.path.join(d, name), "%d\n" % v, 0o444 if name == "pages_4k" else 0o644)


def fixture_case():
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-debugfs-")
    vm = subprocess.Popen(["sleep", "60"])
    try:
        kvm = tree(root, [(vm.pid, 11, {"exits": 1000, "io_exits": 600, "halt_exits": 100, "mmio_exits": 7,
                                        "pf_fixed": 50, "insn_emulation": 5, "pages_4k": 400,
                                        "max_mmu_rmap_size": 3})])
        p = subprocess.Popen([kvmtop(), "-b", "--source", "debugfs", "--debugfs", root, "--summary", "-o", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = wait_line(p, "reading KVM statistics")
        ok(line is not None and kvm in line, "debugfs: says where it reads and that it is per VM", line)
        # the running VM grows; a second VM (pid 4194303, no such process) appears
        vm_dir(kvm, vm.pid, 11, {"exits": 1250, "io_exits": 700, "halt_exits": 130, "mmio_exits": 7,
                                 "pf_fixed": 80, "insn_emulation": 5, "pages_4k": 100, "max_mmu_rmap_size": 30})
        vm_dir(kvm, 4194303, 3, {"exits": 40, "io_exits": 40, "insn_emulation": 2})
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        eq(p.returncode, 0, "debugfs: SIGINT ends it with status 0")
        j = json.loads(out)
        eq((j["source"], j["host"]["exits"]), ("debugfs", 250 + 40), "debugfs: host exits are what the counters grew by")
        vms = {v["pid"]: v for v in j["vms"]}
        a, b = vms.get(vm.pid), vms.get(4194303)
        ok(a is not None and b is not None, "debugfs: one VM per <pid>-<fd> directory", sorted(vms))
        if a is None or b is None:
            return
        eq((a["name"], a["exits"], a["vcpus"][0]["comm"], a["vcpus"][0]["vcpu"]), ("sleep", 250, "all vCPUs", None),
           "debugfs: running VM counts from kvmtop's start, as one all-vCPUs row")
        eq(sorted((r["reason"], r["count"]) for r in a["reasons"]), [("halt_exits", 30), ("io_exits", 100)],
           "debugfs: exit counters are the reasons (unchanged ones absent)")
        eq(a["events"], {"pf_fixed": 30}, "debugfs: other counters are events; instant, peak, histogram left out")
        eq((b["name"], b["exits"], b["events"]), ("unknown", 40, {"insn_emulation": 2}),
           "debugfs: a VM that appears later counts from its start, gone process named unknown")
    finally:
        vm.kill()
        vm.wait()
        shutil.rmtree(root)


def kvm_said(err):
    """Whether err says what this host's /sys/module/kvm says (the oracle: the directory itself)."""
    if os.path.isdir("/sys/module/kvm"):
        return "though this host's kvm module is loaded" in err
    return "the kvm module is not loaded" in err


def no_kvm_case():
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-debugfs-")
    try:
        st, out, err = run(["-b", "--source", "debugfs", "--debugfs", root, "-n", "1"], timeout=30)
        eq((st, len(err.splitlines()), kvm_said(err), os.path.join(root, "kvm") in err, out), (1, 1, True, True, ""),
           "debugfs: no kvm directory is one line naming it and whether this host's kvm module is loaded, "
           "status 1")
    finally:
        shutil.rmtree(root)


def lockdown_case():
    """A counter debugfs refuses: lockdown named only where the (faked) securityfs file says it is on.
    The oracle is the fixture's own lockdown file and errno (tests/preload/lockdown.c makes the
    tree's files refuse, as root opens any file)."""
    so = os.path.join(os.environ.get("KVMTOP_BUILD", "."), "tests", "lockdown.so")
    if not os.path.exists(so):
        skip("debugfs: lockdown named only when on", "tests/lockdown.so is not built (make check builds it)")
        return
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-debugfs-")
    try:
        kvm = tree(root, [])
        lockfile = os.path.join(root, "lockdown")
        cases = [  # (what securityfs holds, None: no file; errno; what the line must and must not hold)
            ("none [integrity] confidentiality\n", errno.EPERM, ["locked down (integrity)", "kernel_lockdown(7)"], []),
            ("none integrity [confidentiality]\n", errno.EPERM, ["locked down (confidentiality)"], []),
            ("[none] integrity confidentiality\n", errno.EPERM,
             ["Operation not permitted", "not kernel lockdown", "says none"], ["locked down", "hides"]),
            (None, errno.EPERM, ["Operation not permitted", "shows no kernel lockdown", "no /sys/kernel/security/lockdown"],
             ["locked down", "hides"]),
            ("none [integrity] confidentiality\n", errno.EACCES, ["Permission denied"], ["lockdown", "locked down"]),
        ]
        for text, err_no, want, never in cases:
            if os.path.exists(lockfile):
                os.unlink(lockfile)
            if text is not None:
                put(lockfile, text)
            env = dict(os.environ, LD_PRELOAD=so, KVMTOP_FAKE_LOCKDOWN=lockfile, KVMTOP_FAKE_DENY_DIR=kvm,
                       KVMTOP_FAKE_ERRNO=str(err_no))
            p = subprocess.run([kvmtop(), "-b", "--source", "debugfs", "--debugfs", root, "-n", "1"],
                               capture_output=True, text=True, timeout=30, env=env)
            lines = p.stderr.splitlines()
            line = lines[0] if lines else ""
            named = [w for w in want if w not in line] + [w for w in never if w in line]
            ok(p.returncode == 1 and len(lines) == 1 and p.stdout == "" and ("cannot read " + kvm + "/") in line
               and not named,
               "debugfs: %s, lockdown file %s: one line naming the counter's path%s%s"
               % (errno.errorcode[err_no], "absent" if text is None else repr(text.strip()),
                  ", with " + ", ".join(want), (", never " + ", ".join(never)) if never else ""),
               "status %d, missing or wrongly present %r: %s" % (p.returncode, named, p.stderr))
    finally:
        shutil.rmtree(root)


def debugfs_dir():
    return mount_point("debugfs")


def host_case():
    """This host's debugfs: figures, or one line saying why not."""
    name = "debugfs: this host's debugfs gives figures or says why not"
    if os.geteuid() != 0:
        skip(name, "needs root")
        return
    st, out, err = run(["-b", "--source", "debugfs", "-n", "1", "-d", "0.2", "-o", "json"], timeout=30)
    d = debugfs_dir()
    kvm = os.path.join(d, "kvm") if d else None
    if not kvm or not os.path.isdir(kvm):
        lines = [line for line in err.splitlines() if not line.startswith("kvmtop: debugfs was not mounted")]
        want = os.path.join(d or "/sys/kernel/debug", "kvm")
        ok(st == 1 and out == "" and len(lines) == 1 and lines[0].startswith("kvmtop: ") and
           want in lines[0] and kvm_said(lines[0]),
           name + " (no debugfs kvm directory: one line naming %s, status 1)" % want, err)
        return
    try:
        open(os.path.join(kvm, "exits")).read()
        readable = True
    except OSError as e:
        readable = e.errno != errno.EPERM
    if readable:
        ok(st == 0 and json.loads(out)["source"] == "debugfs", name + " (readable: figures)", err)
    else:
        lines = [line for line in err.splitlines() if not line.startswith("kvmtop: debugfs was not mounted")]
        # lockdown is blamed only where securityfs says it is on (the oracle: the file itself)
        try:
            mode = open("/sys/kernel/security/lockdown").read()
            on = "[none]" not in mode
        except FileNotFoundError:
            mode, on = "absent", False
        said = "locked down" in lines[0] if lines else None
        ok(st == 1 and len(lines) == 1 and "lockdown" in lines[0] and out == "" and said == on,
           name + " (EPERM: one line, lockdown blamed only if on; this host's lockdown: %s)" % mode.strip(), err)


def usage_case():
    st, out, err = run(["-b", "--debugfs", "/tmp", "-n", "1"])
    eq((st, "--source debugfs" in err), (2, True), "debugfs: --debugfs without --source debugfs is a usage error")
    st, out, err = run(["-b", "--source", "bogus"])
    eq((st, "'bogus'" in err), (2, True), "debugfs: unknown --source is a usage error naming it")


fixture_case()
no_kvm_case()
lockdown_case()
host_case()
usage_case()
done()
