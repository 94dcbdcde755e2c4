# SPDX-License-Identifier: GPL-2.0
"""The emulated KVM host itself (tests/vmhost/vmhost.py), as the live tests use it: a command run
inside returns its own status, output and error output, /dev/kvm is there with kvm-amd loaded;
a host that cannot boot -- a kernel image QEMU cannot load, a boot that does not finish in
time -- is status 125 and one line naming the step, never a pass.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from tap import ok, skip, done

HERE = os.path.dirname(os.path.abspath(__file__))
VMHOST = os.path.join(HERE, "vmhost", "vmhost.py")
sys.path.insert(0, os.path.join(HERE, "vmhost"))
import vmhost  # noqa: E402

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
CASES = ["a command's status, output and error output come back", "a kernel QEMU cannot load: one line, 125",
         "a boot that does not finish in time: one line, 125",
         "NUMA nodes that cannot share the CPUs evenly: one line, 125"]


def harness(args, env=None, timeout=900, cwd=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, VMHOST] + args, capture_output=True, timeout=timeout, env=e, cwd=cwd)


def main():
    why = vmhost.why_not()
    if why:
        for c in CASES:
            skip(c, why)
        done()
    # inside: the shell's own status, both streams, and what the test cannot know otherwise; run
    # in a directory of this machine's /tmp (where .ci/asan builds), which must be seen there
    here = tempfile.mkdtemp(prefix="kvmtop-vmhost-cwd-")
    with open(os.path.join(here, "marker"), "w") as f:
        f.write("tmp-seen\n")
    p = harness(["--", "sh", "-c", "echo out; echo err >&2; "
                 "test -c /dev/kvm && test -d /sys/module/kvm_amd && echo kvm-amd; "
                 "cat /proc/sys/kernel/hostname; cat marker; exit 7"], cwd=here)
    shutil.rmtree(here, ignore_errors=True)
    out, err = p.stdout.decode(), p.stderr.decode()
    ok(p.returncode == 7 and out.split() == ["out", "kvm-amd", "vmhost", "tmp-seen"] and err.strip() == "err",
       CASES[0] + ": status 7, 'out', kvm-amd's /dev/kvm, hostname vmhost, a /tmp directory of this machine; 'err'",
       "status %r, stdout %r, stderr %r" % (p.returncode, out, err[-2000:]))
    # not a kernel: QEMU refuses it at once
    bogus = os.path.join(TMP, "vmhost-not-a-kernel")
    with open(bogus, "w") as f:
        f.write("this is not a kernel\n")
    p = harness(["--timeout", "120", "--", "true"], {"KVMTOP_VMHOST_KERNEL": bogus})
    lines = p.stderr.decode().strip().splitlines()
    ok(p.returncode == 125 and len(lines) == 1 and lines[0].startswith("vmhost: ") and "kernel" in lines[0]
       and "failed" in lines[0] and p.stdout == b"",
       CASES[1] + ": names the step", "status %r: %r" % (p.returncode, lines))
    # a real kernel given no time to boot
    p = harness(["--timeout", "2", "--", "true"])
    lines = p.stderr.decode().strip().splitlines()
    ok(p.returncode == 125 and len(lines) == 1 and "timed out after" in lines[0] and "booting, at step" in lines[0],
       CASES[2] + ": names the step it stopped at", "status %r: %r" % (p.returncode, lines))
    os.unlink(bogus)
    # three nodes for two CPUs: refused before QEMU starts (tests/live_numa.py boots two)
    p = harness(["--numa", "3", "--", "true"])
    lines = p.stderr.decode().strip().splitlines()
    ok(p.returncode == 125 and len(lines) == 1 and "3 NUMA nodes" in lines[0] and p.stdout == b"",
       CASES[3] + ": says so", "status %r: %r" % (p.returncode, lines))
    done()


main()
