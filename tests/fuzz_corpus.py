# SPDX-License-Identifier: GPL-2.0
"""Replay make fuzz's checked-in corpus (fuzz/corpus/TARGET/): every input
AFL++ found that crashed or hung kvmtop, and those that reached new code.

Each runs through the ASan/UBSan builds (kvmtop-asan for recordings,
tests/fuzz-harness for the other parsers) and must end by itself within
10 s, not by a signal or a sanitizer report; kvmtop must end with status 0
or one 'kvmtop: ' line on stderr.
"""
import os
import subprocess

from tap import ok, skip, done, asan_run, asan_quiet, ASAN_OPTIONS

SRC = os.path.dirname(os.path.dirname(os.environ["KVMTOP_FORMATS"]))
HARNESS = os.path.join(os.path.dirname(os.environ["KVMTOP_ASAN"]), "fuzz-harness")
TIMEOUT = 10

KVMTOP_ARGS = {
    "replay": ["--summary", "-o", "json"],
    "intervals": ["-d", "0.001", "-n", "50", "-o", "csv"],
}


def harness(mode, path):
    env = dict(os.environ, ASAN_OPTIONS=ASAN_OPTIONS, UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
    try:
        p = subprocess.run([HARNESS, mode, path], capture_output=True, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    return p.returncode, asan_quiet(p.stderr.decode("utf-8", "replace"))


def judge(target, path):
    """'' when the input was handled well, else what went wrong."""
    if target in KVMTOP_ARGS:
        rc, out, err, mib = asan_run(["-b", "-r", path] + KVMTOP_ARGS[target], timeout=TIMEOUT)
        lines = [l for l in err.splitlines() if l.strip()]
        if rc is None:
            return "no end within %d s" % TIMEOUT
        if rc < 0 or rc in (98, 99):
            return "status %d: %s" % (rc, err[-400:])
        if rc and not (len(lines) == 1 and lines[0].startswith("kvmtop: ")):
            return "status %d without one kvmtop: line: %r" % (rc, err[-300:])
        return ""
    rc, err = harness(target, path)
    if rc is None:
        return "no end within %d s" % TIMEOUT
    if rc < 0 or rc in (98, 99) or rc not in (0, 2):
        return "status %d: %s" % (rc, err[-400:])
    return ""


def main():
    root = os.path.join(SRC, "fuzz", "corpus")
    for target in ("replay", "intervals", "syms", "proc", "options", "kstat", "threads", "libvirt", "settings"):
        d = os.path.join(root, target)
        files = sorted(os.listdir(d)) if os.path.isdir(d) else []
        files = [f for f in files if not f.startswith(".")]
        if not files:
            skip("fuzz corpus %s" % target, "no inputs in fuzz/corpus/%s (make fuzz FUZZ_TARGET=%s adds them)"
                 % (target, target))
            continue
        bad = []
        for f in files:
            why = judge(target, os.path.join(d, f))
            if why:
                bad.append("%s: %s" % (f, why))
        found = sum(1 for f in files if not f.startswith("cov-"))
        ok(not bad, "fuzz corpus %s: %d inputs (%d that once crashed or hung) end cleanly under ASan/UBSan"
           % (target, len(files), found), "\n".join(bad))
    done()


main()
