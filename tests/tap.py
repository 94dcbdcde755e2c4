# SPDX-License-Identifier: GPL-2.0
"""Minimal TAP producer for kvmtop's script tests (read by automake's tap-driver.sh)."""
import os
import subprocess
import sys

_n = 0
_failed = 0


def ok(cond, name, diag=None):
    global _n, _failed
    _n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (_n, name))
    if not cond:
        _failed += 1
        if diag:
            for line in str(diag).splitlines()[:20]:
                print("# " + line)
    sys.stdout.flush()
    return cond


def eq(got, want, name):
    return ok(got == want, name, "got  %r\nwant %r" % (got, want))


def skip(name, why):
    global _n
    _n += 1
    print("ok %d - %s # SKIP %s" % (_n, name, why))
    sys.stdout.flush()


def done():
    print("1..%d" % _n)
    sys.exit(0)


def kvmtop():
    return os.environ.get("KVMTOP", os.path.join(os.getcwd(), "kvmtop"))


def mount_point(fstype):
    """Where a file system of type fstype (tracefs, debugfs) is mounted, or None."""
    for line in open("/proc/mounts"):
        f = line.split()
        if f[2] == fstype:
            return f[1]
    return None


def traces():
    return os.environ.get("KVMTOP_TRACES", "")


def run(args, timeout=300):
    """Run kvmtop with args: (exit status, stdout, stderr)."""
    p = subprocess.run([kvmtop()] + args, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
