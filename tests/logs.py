# SPDX-License-Identifier: GPL-2.0
"""Logs: batch output into --output FILE, appended; SIGHUP reopens it; --duration.

A log kvmtop writes must survive logrotate: the file renamed, SIGHUP
sent, and the snapshots after it going to a new file of that name.  The
oracle is what kvmtop cannot arrange for itself: the snapshot numbers
counted over both files (every one exactly once, in order, none cut in
two), the number of snapshots the driver handed out (KVMTOP_SNAPSHOT_STATS),
and for a recording the same run written to standard output, byte for
byte, which the two files must add up to.  Each file must start with
its own CSV header.  --duration is checked against the generator's truth
(a recording's first 0.25 s, per thread) and, live, against the
snapshots' own start and end times, with a generous bound on wall time
(not a test of kvmtop's speed).

The live cases read KVM's binary statistics from a fixture tree laid out
as /proc (--source stats --proc DIR, tests/kstat_fixture.py), which runs
as long as it is let; the recording case is slowed by a preload
(tests/slowread.so) so that the file can be renamed while it is read.
"""
import csv
import io
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import traceback

from tap import ok, eq, skip, done, kvmtop, run, kvmgen
from kstat_fixture import proc_vm, vm_stats, vcpu_vals

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
NOTICE = "reading KVM's binary statistics"
H = [0] * 32


def fixture():
    """A /proc-shaped tree with one VM of one vCPU, for --source stats --proc."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-logs-")
    proc_vm(root, 4100, "web1", {0: (4101, "CPU 0/KVM", True)})
    vm_stats(root, 4100, {"pages_4k": 1}, {0: vcpu_vals(10, H, [0, 0, 0, 0])})
    return root


def start(root, args, env=None):
    return subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, **env) if env else None)


def lines_of(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").splitlines(True)
    except FileNotFoundError:
        return []


def rm(*paths):
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def wait_for(cond, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def finish(p, sig=signal.SIGTERM, timeout=20):
    """Send sig (None: none) and reap p: (status, stdout, stderr lines but the stats notice)."""
    if sig is not None and p.poll() is None:
        p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    said = [l for l in err.decode("utf-8", "replace").splitlines() if l.strip() and NOTICE not in l]
    return p.returncode, out.decode("utf-8", "replace"), said


def json_numbers(lines):
    """The snapshot numbers of JSON Lines, or None if a line is not one whole object."""
    try:
        return [json.loads(l)["snapshot"] for l in lines if l.endswith("\n")] \
            if all(l.endswith("\n") for l in lines) else None
    except ValueError:
        return None


def rotate_live(root, fmt, f, stats, before=3, after=3):
    """kvmtop -b -o fmt -d 0.1 --output f: `before` snapshots, f renamed f.1, SIGHUP, `after`
    more in a new f, SIGTERM.  (status, other stderr lines, f.1's lines, f's lines, snapshots)."""
    count = (lambda ls: len(json_numbers(ls) or [])) if fmt == "json" else \
        (lambda ls: len({l.split(",")[0] for l in ls[1:]}))
    rm(f, f + ".1", stats)
    p = start(root, ["-o", fmt, "-d", "0.1", "--output", f], env={"KVMTOP_SNAPSHOT_STATS": stats})
    wait_for(lambda: count(lines_of(f)) >= before)
    os.rename(f, f + ".1")
    p.send_signal(signal.SIGHUP)
    wait_for(lambda: count(lines_of(f)) >= after)
    st, out, said = finish(p)
    n = json.load(open(stats))["snapshots"] if os.path.exists(stats) else -1
    return st, said + ([out] if out else []), lines_of(f + ".1"), lines_of(f), n


def live_json_case(root):
    f = os.path.join(root, "kvm.jsonl")
    st, said, old, new, n = rotate_live(root, "json", f, os.path.join(root, "snap.json"))
    eq((st, said), (0, []), "live JSON, --output renamed and SIGHUP: the run goes on, SIGTERM ends it, "
       "status 0, nothing else said")
    a, b = json_numbers(old), json_numbers(new)
    ok(a is not None and b is not None, "live JSON: every line in both files is one whole JSON object",
       (old[-1:], new[-1:]))
    ok(a and b and a + b == list(range(1, n + 1)),
       "live JSON: the %d snapshots handed out are in the renamed file (%d) and the new one (%d), "
       "each once, in order" % (n, len(a or []), len(b or [])), (a, b))


def grow(root, stop):
    """Keep the vCPU's exit counters growing, so that each CSV snapshot has rows."""
    base = 10
    while not stop.is_set():
        base += 1
        vm_stats(root, 4100, {"pages_4k": 1}, {0: vcpu_vals(base, H, [0, 0, 0, 0])})
        time.sleep(0.01)


def csv_rows(lines):
    return list(csv.reader(io.StringIO("".join(lines))))


def live_csv_case(root):
    f = os.path.join(root, "kvm.csv")
    stop = threading.Event()
    t = threading.Thread(target=grow, args=(root, stop))
    t.start()
    try:
        st, said, old, new, n = rotate_live(root, "csv", f, os.path.join(root, "snap.json"))
    finally:
        stop.set()
        t.join()
    eq((st, said), (0, []), "live CSV, --output renamed and SIGHUP: status 0, nothing else said")
    a, b = csv_rows(old), csv_rows(new)
    header = a[0] if a else []
    ok(header[:3] == ["snapshot", "start", "end"] and b and b[0] == header,
       "live CSV: the renamed file and the new one each start with the header", (a[:1], b[:1]))
    torn = [r for r in a[1:] + b[1:] if len(r) != len(header)]
    ok(a[1:] and b[1:] and not torn and all(l.endswith("\n") for l in old + new),
       "live CSV: every row whole (the header's %d fields), rows in both files" % len(header),
       torn[:2] or (len(a), len(b)))
    na = [int(r[0]) for r in a[1:]]
    nb = [int(r[0]) for r in b[1:]]
    per = {}
    for k in na + nb:
        per[k] = per.get(k, 0) + 1
    ok(na == sorted(na) and nb == sorted(nb) and na and nb and na[-1] < nb[0] and max(nb) <= n
       and len(set(per.values())) == 1,
       "live CSV: each snapshot's rows all in one file, in order, none doubled (%d snapshots with "
       "rows of %d)" % (len(per), n), (per, n))


def live_hup_elsewhere(root):
    """Without --output SIGHUP ends batch output; --listen goes on serving through it."""
    p = start(root, ["-o", "json", "-d", "0.1"])
    wait_for(lambda: False, 0.5)
    t0 = time.monotonic()
    st, out, said = finish(p, signal.SIGHUP, timeout=10)
    ok(st == 0 and not said and time.monotonic() - t0 < 5 and json_numbers(out.splitlines(True)),
       "live JSON to stdout: SIGHUP ends it, status 0 (as before --output took it)", (st, said))
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    p = subprocess.Popen([kvmtop(), "--listen", "127.0.0.1:%d" % port, "--source", "stats", "--proc", root,
                          "-d", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def scrape():
        import urllib.request
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5) as r:
                return r.status == 200
        except OSError:
            return False
    up = wait_for(scrape, 20)
    p.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    after = p.poll() is None and scrape()
    st, out, said = finish(p)
    ok(up and after and st == 0, "--listen: SIGHUP (the unit's ExecReload) does not end it, it still "
       "serves; SIGTERM ends it, status 0", (up, after, st, said))


def reopen_fails_case(root):
    d = os.path.join(root, "gone")
    os.makedirs(d)
    f = os.path.join(d, "kvm.jsonl")
    p = start(root, ["-o", "json", "-d", "0.1", "--output", f])
    wait_for(lambda: len(lines_of(f)) >= 2)
    shutil.rmtree(d)
    p.send_signal(signal.SIGHUP)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    st, out, said = finish(p)
    ok(st == 1 and len(said) == 1 and said[0].startswith("kvmtop: ") and f in said[0] and not out,
       "SIGHUP when --output cannot be reopened (its directory removed): one line naming the file, "
       "status 1", (st, said))


def duration_live_case(root):
    t0 = time.monotonic()
    p = start(root, ["-o", "json", "-d", "0.1", "--duration", "1"])
    st, out, said = finish(p, None, timeout=30)
    took = time.monotonic() - t0
    snaps = [json.loads(l) for l in out.splitlines()]
    chained = all(int(snaps[i]["start"]) == int(snaps[i - 1]["end"]) for i in range(1, len(snaps)))
    span = (int(snaps[-1]["end"]) - int(snaps[0]["start"])) / 1e9 if snaps else 0
    # each snapshot before the last comes a step or more after the one before, and the one due at
    # the end is the last: at most 10
    ok(st == 0 and not said and 1.0 <= took < 20 and 2 <= len(snaps) <= 10 and chained and 1.0 <= span < 3.0,
       "live --duration 1 -d 0.1: ends by itself, status 0, %d snapshots (at most 10) end to end over "
       "%.3f s (%.1f s of wall time)" % (len(snaps), span, took),
       (st, said, took, span, [(int(s["end"]) - int(s["start"])) / 1e9 for s in snaps]))
    p = start(root, ["-o", "json", "--summary", "--duration", "1"])
    st, out, said = finish(p, None, timeout=30)
    snaps = [json.loads(l) for l in out.splitlines()]
    ok(st == 0 and len(snaps) == 1 and snaps[0]["summary"] and 1.0 <= snaps[0]["seconds"] < 3.0,
       "live --summary --duration 1: one report of at least 1 s, status 0", (st, said, out[:200]))


def per_thread(snaps):
    got = {}
    for s in snaps:
        for vm in s["vms"]:
            for c in vm["vcpus"]:
                got[c["tid"]] = got.get(c["tid"], 0) + c["exits"]
    return got


def duration_recording_case():
    dat = os.path.join(TMP, "logs-duration.dat")
    exp = kvmgen(dat, "x86-6.5", ["-m", "2", "-v", "2", "-n", "2000", "-s", "7", "-d", "250000000"],
                 expect=dat + ".json")
    want = {t["tid"]: t["exits"] for t in exp["intervals"][0]["threads"]}
    ok(len(exp["intervals"]) >= 2 and sum(want.values()) > 0,
       "the recording runs past 0.25 s (%d intervals of 0.25 s)" % len(exp["intervals"]))
    st, out, err = run(["-b", "-r", dat, "-o", "json", "--duration", "0.25"])
    snaps = [json.loads(l) for l in out.splitlines()]
    ok(st == 0 and len(snaps) == 1 and snaps[0]["summary"] and int(snaps[0]["start"]) == exp["first"]
       and snaps[0]["seconds"] == 0.25 and per_thread(snaps) == want,
       "-r --duration 0.25: one report of the recording's first 0.25 s, each thread's exits as the "
       "generator's truth", (st, err, [(s["start"], s["seconds"]) for s in snaps], per_thread(snaps), want))
    st, out, err = run(["-b", "-r", dat, "-o", "json", "-d", "0.1", "--duration", "0.25"])
    snaps = [json.loads(l) for l in out.splitlines()]
    ok(st == 0 and [s["seconds"] for s in snaps] == [0.1, 0.1, 0.05] and per_thread(snaps) == want,
       "-r -d 0.1 --duration 0.25: intervals of 0.1, 0.1 and the 0.05 s left, their exits the truth's",
       (st, err, [s["seconds"] for s in snaps], per_thread(snaps), want))
    rm(dat, dat + ".json")


def recording_rotate_case():
    """A recording read slowly: renamed and SIGHUP while it is read; the two files add up to stdout."""
    so = os.environ.get("SLOWREAD_SO")
    if not so or not os.path.exists(so):
        skip("recording: --output renamed and SIGHUP while it is read", "tests/slowread.so is not built (make check)")
        return
    dat = os.path.join(TMP, "logs-slow.dat")
    kvmgen(dat, "x86-6.5", ["-m", "2", "-v", "4", "-n", "30000", "-s", "5"])
    st, ref, err = run(["-b", "-r", dat, "-o", "csv", "-d", "0.1"])
    ref = ref.splitlines(True)
    f = os.path.join(TMP, "logs-rec.csv")
    rm(f, f + ".1")
    p = subprocess.Popen([kvmtop(), "-b", "-r", dat, "-o", "csv", "-d", "0.1", "--output", f],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, LD_PRELOAD=so))
    wait_for(lambda: len({l.split(",")[0] for l in lines_of(f)[1:]}) >= 5)
    os.rename(f, f + ".1")
    p.send_signal(signal.SIGHUP)
    st, out, said = finish(p, None, timeout=120)
    old, new = lines_of(f + ".1"), lines_of(f)
    ok(st == 0 and not said and not out and len(old) > 1 and len(new) > 1,
       "recording: renamed and SIGHUP while it is read, it reads on to the end, status 0, rows in both "
       "files (%d, %d)" % (len(old) - 1, len(new) - 1), (st, said, len(old), len(new)))
    ok(ref and old[:1] == ref[:1] and new[:1] == ref[:1],
       "recording: each file starts with the CSV header", (old[:1], new[:1]))
    ok(old + new[1:] == ref, "recording: the two files hold every row of the same run to stdout (%d), "
       "each once, in order" % (len(ref) - 1), (len(old), len(new), len(ref)))
    rm(dat, f, f + ".1")


def append_case():
    dat = os.path.join(TMP, "logs-append.dat")
    kvmgen(dat, "x86-6.5", ["-m", "1", "-v", "2", "-n", "400", "-s", "3"])
    f = os.path.join(TMP, "logs-append.out")
    for fmt in ("csv", "json", "text"):
        rm(f)
        st, ref, err = run(["-b", "-r", dat, "-o", fmt, "-d", "0.01"])
        old = os.umask(0o022)
        try:
            r1 = run(["-b", "-r", dat, "-o", fmt, "-d", "0.01", "--output", f])
        finally:
            os.umask(old)
        mode = os.stat(f).st_mode & 0o777 if os.path.exists(f) else None
        r2 = run(["-b", "-r", dat, "-o", fmt, "-d", "0.01", "--output", f])
        got = "".join(lines_of(f))
        ok(r1[:2] == (0, "") and r2[:2] == (0, "") and mode == 0o644 and got == ref + ref and ref,
           "%s: two runs into one --output file: appended, the second as it would start alone%s "
           "(created 0644)" % (fmt, " (its own header)" if fmt == "csv" else ""),
           (r1[0], r2[0], mode and oct(mode), len(got), len(ref)))
    with open(f, "w") as out:
        out.write("kept\n")
    st, ref, err = run(["-b", "-r", dat, "-o", "json"])
    r = run(["-b", "-r", dat, "-o", "json", "--output", f])
    eq((r[0], "".join(lines_of(f))), (0, "kept\n" + ref), "--output keeps what the file held")
    rm(f, dat)


def usage_case():
    for args, name in ((["--output", "x"], "--output without -b"),
                       (["--listen", "127.0.0.1:1", "--output", "x"], "--output with --listen"),
                       (["--duration", "1"], "--duration on the screen"),
                       (["-b", "--duration", "0"], "--duration 0"),
                       (["-b", "--duration", "1x"], "--duration 1x")):
        rc, out, err = run(args, timeout=30)
        lines = [l for l in err.splitlines() if l.strip()]
        ok(rc == 2 and len(lines) == 1 and lines[0].startswith("kvmtop: "), name + ": a usage error, one line",
           (rc, err))


def case(fn, *args):
    """Run a case; one that raises (a file kvmtop did not write) is a failing case, and the
    others still run."""
    try:
        fn(*args)
    except Exception as e:
        ok(False, "%s: ran to its end" % fn.__name__, traceback.format_exc())


def main():
    case(usage_case)
    case(append_case)
    case(duration_recording_case)
    case(recording_rotate_case)
    root = fixture()
    try:
        for fn in (live_json_case, live_csv_case, reopen_fails_case, live_hup_elsewhere, duration_live_case):
            case(fn, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    done()


main()
