# SPDX-License-Identifier: GPL-2.0
"""Bad input: one clear line on stderr and a non-zero status, never a crash or a hang.

Runs kvmtop built with AddressSanitizer and UBSan (KVMTOP_ASAN), so a
memory error in a path that reads a cut or corrupt file fails the test.
"""
import json
import os
import signal
import subprocess

from tap import ok, eq, skip, done, traces

ASAN = os.environ.get("KVMTOP_ASAN")
TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def run(args, timeout=120):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:exitcode=99",
               UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
    try:
        p = subprocess.run([ASAN] + args, capture_output=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "", "timeout"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def one_clear_line(rc, err, name, must_mention=None):
    lines = [l for l in err.splitlines() if l.strip()]
    good = (rc is not None and rc not in (0, 98, 99) and rc > 0 and len(lines) == 1
            and lines[0].startswith("kvmtop: ")
            and (must_mention is None or must_mention in lines[0]))
    return ok(good, name, "status %r, stderr:\n%s" % (rc, err))


def main():
    missing = os.path.join(TMP, "no-such-file.dat")
    rc, out, err = run(["-b", "-r", missing])
    one_clear_line(rc, err, "missing file: one line naming it", missing)

    rc, out, err = run(["-b", "-r", TMP])
    one_clear_line(rc, err, "a directory: one line", "directory")

    notrace = os.path.join(TMP, "not-a-trace.dat")
    with open(notrace, "w") as f:
        f.write("this is not a trace-cmd recording\n" * 100)
    rc, out, err = run(["-b", "-r", notrace])
    one_clear_line(rc, err, "a text file: one line saying it is not a recording", "not a trace-cmd recording")

    empty = os.path.join(TMP, "empty.dat")
    open(empty, "w").close()
    rc, out, err = run(["-b", "-r", empty])
    one_clear_line(rc, err, "an empty file: one line", "empty.dat")

    for args, name in ((["--no-such-option"], "unknown option"), (["-b", "-o", "xml", "-r", empty], "unknown format"),
                       (["-b", "-n", "0", "-r", empty], "-n 0"), (["-b", "-d", "abc", "-r", empty], "-d abc"),
                       (["-b", "-r"], "-r without a file"), (["-b", "--ring", "-1", "-r", empty], "--ring -1"),
                       (["-b", "--summary", "-n", "2", "-r", empty], "--summary with -n")):
        rc, out, err = run(args)
        one_clear_line(rc, err, name + ": one line, status 2")
        eq(rc, 2, name + ": usage errors exit with 2")

    rc, out, err = run(["--help"])
    ok(rc == 0 and "--replay" in out and "--summary" in out, "--help prints the options")

    d = os.path.join(traces(), "x86-vmx-ubuntu-6.5")
    if not os.path.isdir(d):
        skip("truncated real recordings", "../shared/traces not found")
        done()
    src = os.path.join(d, "host_k6.5.0-18_2024-02-27_f7d23c9f_trace.dat")
    data = open(src, "rb").read()
    full = run(["-b", "-r", src, "--summary", "-o", "json"])
    full_json = json.loads(full[1])
    cut = os.path.join(TMP, "cut.dat")
    size = len(data)
    # Cuts in the header, the event formats, the options and all through the data.
    offsets = sorted(set([1, 7, 10, 11, 12, 16, 24, 40, 100, 500, 1000, 4096, 4097, 8192, 20000]
                         + [size * k // 40 for k in range(1, 40)] + [size - 1, size - 8, size - 100, size - 4096]))
    bad = []
    for off in offsets:
        with open(cut, "wb") as f:
            f.write(data[:off])
        rc, out, err = run(["-b", "-r", cut, "--summary", "-o", "json"])
        lines = [l for l in err.splitlines() if l.strip()]
        if rc is None or rc < 0 or rc in (98, 99):
            bad.append("cut at %d: status %r %s" % (off, rc, err[-300:]))
        elif rc != 0 and not (len(lines) == 1 and lines[0].startswith("kvmtop: ")):
            bad.append("cut at %d: status %d but stderr %r" % (off, rc, err[-300:]))
        elif rc == 0 and json.loads(out)["host"] != full_json["host"]:
            # A cut that loses event data must not pass as a complete report.
            bad.append("cut at %d: status 0 with different figures" % off)
    ok(not bad, "recording cut at %d offsets: no crash, no hang, no silent partial report" % len(offsets),
       "\n".join(bad))
    done()


main()
