# SPDX-License-Identifier: GPL-2.0
"""Golden outputs: kvmtop's batch output, byte for byte, as commit 49b0ffd printed it.

Every recording of a fixed list -- the real ones of ../shared/traces (and the
real excerpts reproduced by tests/snippet.py), the sample recording make
builds, and recordings tests/kvmgen writes in every layout of tests/formats --
is read with `kvmtop -b -r REC -o FMT [args]`: the summary and intervals in
text, CSV and JSON, and findings, folded stacks and metrics.  What kvmtop
writes to stdout and stderr, and its exit status, must equal the file of
tests/golden/ saved from 49b0ffd's build, the commit before the source tree
was restructured: a move of code must not change one byte of output.
The CSV files alone were saved again when CSV took every VM and vCPU field
of the table (vm_grouped_by, vm_vcpus, last_cpu), as JSON carries them: that
was a change of output, made on purpose, in a commit of its own.  The JSON
and CSV files were saved again when every VM row took exits_unknown (CSV
vm_exits_unknown, empty for a recording's VMs): on purpose, in the commit
that added the field.  The JSON and CSV files were saved again when every VM row
took who it is (display_name, name_from, uuid, project, flavor; CSV
vm_display ... vm_flavor: a recording's display name is its name, the
rest null or empty): on purpose, in the commit after the one that added
them.  The JSON and CSV files were saved again when JSON came from one
writer (outputs/json_writer.c): guest IPs, object sites and an object's
value became "0x..." strings (CSV: obj_value in hex), and a -1 (a vCPU
not known) or an empty string (flags, dir, exits_unknown) null in JSON
and an empty cell in CSV (which no longer quotes an empty string): on
purpose, in a commit of its own.
The CSV, JSON and text files were saved again once when every figure
took one name (issue 44, HACKING's "Names of figures": CSV's vm_display
is vm_display_name, p99 latency_p99, JSON's mem_rss mem_rss_bytes ...):
every line that changed is the old line with its names renamed as the
man page's HISTORY lists them, and nothing else.
The JSON and CSV files were saved again when every reason row took
latency_sum_pct (TIME%, perf kvm stat's Time%: JSON's latency.sum_pct,
after latency_sum): every changed line is the old one with that figure
added, in a commit of its own.
The JSON files were saved again when JSON's VM and vCPU objects took
every field of their level (issue 44: halt_pct ... vhost_wait_pct, the
latency object, top_reason, a vCPU's state, the fields CSV and the
screen had and JSON had not): every changed line is the old one with
those keys added, in a commit of its own.

    python3 tests/golden.py            the test (make check)
    python3 tests/golden.py --save DIR write the expected files into DIR

Only kvmtop's outputs are stored: the recordings are written again by the
generator (deterministic for its seed) at each run, and the real recordings
are read where they are; they must never be copied into the project.

kvmtop runs in the folder of its recording and is given the recording's path
relative to it, so the paths it prints (the header's file name, JSON's
"file") are the same in every build tree.
"""
import difflib
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys

import pageswap
import snippet
from tap import ok, skip, done, kvmtop, kvmgen, traces

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "golden")
TMP = os.environ.get("KVMTOP_TMP", "/tmp")
GEN_DIR = os.path.join(TMP, "golden")
# the build tree: make builds the sample recording there (make distcheck's is not the source tree)
BUILD = os.path.dirname(kvmtop())
SUMS = "recordings.sha256"
KASLR = 0x1e000000
DIFF_LINES = 40

# What legitimately differs between two runs of the same kvmtop on the same
# recording, each replaced by a fixed word before comparing; nothing else is.
# The metrics documents (-o prometheus, -o openmetrics) end with kvmtop's own
# cost: its CPU time (getrusage) and resident memory (/proc/self/statm), which
# vary from run to run and with the machine's load.  The build_info line holds
# configure.ac's version number, which a release changes without a change of
# code: the value alone is replaced, the line stays.
NORMALISE = [
    (re.compile(rb"^(kvmtop_cpu_seconds_total) [0-9.e+-]+$", re.M), rb"\1 CPU_SECONDS"),
    (re.compile(rb"^(kvmtop_resident_memory_bytes) [0-9]+$", re.M), rb"\1 RSS_BYTES"),
    (re.compile(rb'^(kvmtop_build_info\{version=")[^"]*("\} 1)$', re.M), rb"\1VERSION\2"),
]


class NoTraces(Exception):
    """A recording made from ../shared/traces, which this machine does not have."""


class Rec:
    """A recording: name, the folder kvmtop runs in, the path given to -r (relative to that
    folder), and the runs of it: [(label, kvmtop arguments after -b -r PATH)]."""

    def __init__(self, name, where, path, runs, make=None):
        self.name, self.where, self.path, self.runs, self.make = name, where, path, runs, make


def std_runs(step, iv=("text", "csv", "json")):
    """The usual runs: the summary in text, CSV and JSON; intervals of `step` seconds in the
    formats iv; the findings, the folded stacks of guest IPs and the metrics document."""
    fmt = {"text": [], "csv": ["-o", "csv"], "json": ["-o", "json"]}
    r = [("summary." + f, fmt[f]) for f in ("text", "csv", "json")]
    r += [("intervals." + f, ["-d", step] + fmt[f]) for f in iv]
    return r + [("findings", ["-o", "findings"]), ("folded", ["-o", "folded"]), ("prometheus", ["-o", "prometheus"])]


def generated(name, layout, args, step, extra=(), **kw):
    """A recording of tests/kvmgen: layout of tests/formats, args; written as NAME.dat in GEN_DIR."""
    def make(d):
        kvmgen(os.path.join(d, name + ".dat"), layout, [a.replace("@", os.path.join(d, name)) for a in args])
    return Rec(name, GEN_DIR, name + ".dat", std_runs(step, **kw) + list(extra), make)


def byteswapped(name, layout, args, step, **kw):
    """A recording of tests/kvmgen rewritten in the other byte order (a big-endian host's file)."""
    def make(d):
        le = os.path.join(d, name + "-le.dat")
        kvmgen(le, layout, args)
        pageswap.rewrite(le, os.path.join(d, name + ".dat"))
    return Rec(name, GEN_DIR, name + ".dat", std_runs(step, **kw), make)


def scripted(name, lines, step, gen_args=(), **kw):
    """A recording of the events `lines` (kvmgen -S, tests/gen/kvmgen.c), layout x86-6.5."""
    def make(d):
        sc = os.path.join(d, name + ".txt")
        with open(sc, "w") as f:
            f.write("\n".join(lines) + "\n")
        kvmgen(os.path.join(d, name + ".dat"), "x86-6.5", ["-S", sc] + list(gen_args))
    return Rec(name, GEN_DIR, name + ".dat", std_runs(step, **kw), make)


def ips_runs(name, layout):
    """Guest IPs named by the guest's symbols: from its kallsyms, and from its System.map with the
    KASLR offset inferred from the running _text (x86 and arm64)."""
    r = [("kallsyms.text", ["--guest-kallsyms", name + ".kallsyms"]),
         ("kallsyms.json", ["--guest-kallsyms", name + ".kallsyms", "-o", "json", "--ip-top", "50"]),
         ("kallsyms.folded", ["--guest-kallsyms", name + ".kallsyms", "-o", "folded"]),
         ("kallsyms.folded-exit", ["--guest-kallsyms", name + ".kallsyms", "-o", "folded", "--ip-kind", "exit"])]
    if layout.startswith("x86") or layout.startswith("arm64"):
        text = (0xffffffff81000000 if layout.startswith("x86") else 0xffff800080000000) + KASLR
        r.append(("map.json", ["--guest-map", name + ".map", "--guest-kaslr", "_text=%#x" % text, "-o", "json"]))
    return r


def script_lines():
    """Half a second of one VM, findings.py's scenarios made smaller: vCPU 0 (thread 2000, CPU 0)
    does port I/O to user space (kvm_pio, kvm_userspace_exit), then sleeps in HLT and, woken,
    waits while host task 600 runs on its CPU; vCPU 1 (thread 2001, CPU 1) does MMIO (kvm_mmio,
    one exit in fifty slow) and PAUSE exits.  The findings: overcommit, legacy-io, mmio,
    spinlock and slow-exits; and, from the objects those exits touched, serial-console (port
    0x3f8 written) and mmio-page (one page written)."""
    ms, us = 1000000, 1000
    ev = []

    def at(t, cpu, tid, what):
        ev.append((t, len(ev), "%d %d %d %s" % (t, cpu, tid, what)))

    def exit(t, k, reason, lat, extra=()):
        at(t, k, 2000 + k, "exit exit_reason=%d isa=1 guest_rip=%d info1=%d vcpu_id=%d"
           % (reason, 0x1000 + 16 * reason, 0x3f8 << 16 if reason == 30 else 0, k))
        for dt, tid, what in extra:
            at(t + dt, k, tid, what)
        at(t + lat, k, 2000 + k, "entry vcpu_id=%d" % k)

    for k in range(2):
        exit(k * us, k, 1, 2 * us)
        exit(500 * ms + k * us, k, 1, 2 * us)
    for i in range(1200):
        exit(5 * ms + i * 200 * us, 0, 30, 20 * us,
             [(us, 2000, "pio rw=1 port=0x3f8 size=1 count=1"), (2 * us, 2000, "uexit reason=2")])
    for i in range(8):
        exit(255 * ms + i * 30 * ms, 0, 12, 15 * ms + 10 * us,
             [(5 * us, 2000, "switch prev_pid=2000 prev_state=1 next_pid=0"), (3 * ms, 0, "waking pid=2000"),
              (3 * ms + us, 0, "switch prev_pid=0 prev_state=0 next_pid=600"),
              (15 * ms, 600, "switch prev_pid=600 prev_state=0 next_pid=2000")])
    for i in range(980):
        t = 5 * ms + i * 500 * us
        exit(t, 1, 49, 200 * us if i % 50 == 7 else 10 * us,
             [(2 * us, 2001, "mmio type=2 len=4 gpa=%d val=%d" % (0xfebc0000 + 4 * (i % 8), i))])
        exit(t + 250 * us, 1, 40, 3 * us)
    ev.sort()
    return ["comm 2000 CPU 0/KVM", "comm 2001 CPU 1/KVM", "comm 600 hog"] + [l for t, n, l in ev]


# Recordings of tests/kvmgen, after the suites that check their figures (replay_gen.py,
# time_states.py, steal.py, ips.py, findings.py, bighost.py): a few thousand events each, a
# tenth of a second or so, cut in intervals of 20 ms.  The layouts of one arch give the same
# figures, told apart by how each is decoded: their intervals are written in JSON alone.
# In args, @ stands for the recording's path without .dat (files the generator writes beside it).
LAYOUT = dict(iv=("json",))
GENERATED = []
for layout in ("arm-3.9", "arm64-4.0", "arm64-4.4", "arm64-5.7", "arm64-6.9", "ppc-hv", "s390", "riscv", "loongarch"):
    GENERATED.append(generated(layout, layout, ["-m", "2", "-v", "2", "-n", "400", "-C", "3", "-x", "-t", "-s", "7"],
                               "0.02", **LAYOUT))
for layout in ("x86-2.6.32", "x86-3.6", "x86-5.8", "x86-5.10", "x86-6.5", "x86-6.10", "x86-6.18"):
    GENERATED.append(generated(layout + "-vmx", layout,
                               ["-m", "2", "-v", "2", "-n", "400", "-C", "4", "-x", "-t", "-s", "3"], "0.02", **LAYOUT))
    if layout != "x86-2.6.32":
        GENERATED.append(generated(layout + "-mixed", layout,
                                   ["-i", "mixed", "-m", "2", "-v", "3", "-n", "300", "-C", "3", "-s", "5"], "0.02",
                                   **LAYOUT))
GENERATED += [
    generated("x86-stripped", "x86-stripped", ["-m", "1", "-v", "2", "-n", "300", "-s", "8"], "0.02"),
    generated("foreign", "foreign", ["-m", "1", "-v", "3", "-n", "300", "-s", "9"], "0.02"),
    generated("svm", "x86-6.5", ["-i", "svm", "-m", "2", "-v", "2", "-n", "400", "-C", "3", "-x", "-s", "31"], "0.02"),
    # file versions, codecs, clocks
    generated("v6", "x86-6.5", ["-V", "6", "-n", "500", "-s", "11"], "0.02", **LAYOUT),
    generated("v7-zlib", "x86-6.5", ["-V", "7", "-z", "zlib", "-n", "500", "-s", "12"], "0.02", **LAYOUT),
    generated("v7-zstd", "x86-6.5", ["-V", "7", "-z", "zstd", "-n", "500", "-s", "13"], "0.02", **LAYOUT),
    # a clock in cycles: -d is refused (the status and the message are the expected output)
    generated("tsc-cycles", "x86-6.5", ["-c", "x86-tsc", "-n", "300", "-s", "14"], "0.02", iv=("text",)),
    generated("tsc2nsec", "x86-6.5", ["-c", "tsc2nsec", "-n", "300", "-s", "15"], "0.01"),
    # lost events (and cut recordings: -t above)
    generated("lost", "x86-6.18", ["-l", "-m", "2", "-v", "4", "-n", "500", "-C", "2", "-s", "16"], "0.05"),
    # thread names of kvmtool, and one name for all
    generated("kvmtool-old", "x86-2.6.32", ["-N", "kvmtool", "-v", "3", "-n", "100", "-s", "17"], "0.005"),
    generated("names-none", "x86-6.5", ["-N", "none", "-m", "2", "-v", "2", "-n", "300", "-s", "18"], "0.02",
              **LAYOUT),
    # many intervals (replay_gen.py's), and -n stopping part way
    generated("intervals", "x86-6.5", ["-m", "1", "-v", "2", "-n", "2000", "-s", "21"], "0.01", iv=("json",),
              extra=[("intervals-n2.text", ["-d", "0.01", "-n", "2"]),
                     ("intervals-n5.csv", ["-d", "0.01", "-n", "5", "-o", "csv"]),
                     ("intervals.prometheus", ["-d", "0.1", "-o", "prometheus"]),
                     ("intervals.findings", ["-d", "0.1", "-o", "findings"])]),
    # a wide table: twenty reasons; every exit at a guest IP never seen before
    generated("wide", "x86-6.5", ["-R", "-m", "1", "-v", "2", "-n", "500", "-s", "41"], "0.02"),
    generated("unique-ips", "x86-6.5", ["-U", "-v", "1", "-n", "2000", "-s", "42"], "0.1",
              extra=[("ip-top.json", ["-o", "json", "--ip-top", "40", "--ip-slots", "64"])]),
    # sched events: time states (time_states.py); host tasks taking waiting vCPUs' CPUs (steal.py)
    generated("sched", "x86-6.5", ["-m", "2", "-v", "3", "-n", "400", "-C", "2", "-x", "-w", "-s", "5"], "0.04"),
    generated("steal", "x86-6.5", ["-m", "3", "-v", "2", "-n", "400", "-C", "6", "-x", "-w", "-T", "4", "-s", "11"],
              "0.04", extra=[("thieves16.text", ["--thieves", "16"]),
                             ("thieves0.json", ["--thieves", "0", "-o", "json"]),
                             ("stolen.prometheus", ["-o", "prometheus", "--metrics-stolen", "--thieves", "16"]),
                             ("per-vcpu.openmetrics", ["-o", "openmetrics", "--metrics-per-vcpu",
                                                       "--metrics-latency", "vcpu"]),
                             ("vm-latency.prometheus", ["-o", "prometheus", "--metrics-latency", "vm",
                                                        "--metrics-buckets", "0.000001,0.00001,0.001"])]),
    # who the threads are: ps -eLo of the recording host (--threads), five kinds of VMM
    generated("threads", "x86-6.5", ["-m", "3", "-v", "2", "-n", "300", "-C", "4", "-x", "-s", "3", "-P", "@.ps"],
              "0.02", extra=[("threads.text", ["--threads", "threads.ps"]),
                             ("threads.csv", ["--threads", "threads.ps", "-o", "csv"]),
                             ("threads.json", ["--threads", "threads.ps", "-o", "json"]),
                             ("threads-intervals.text", ["--threads", "threads.ps", "-d", "0.02"]),
                             ("threads.prometheus", ["--threads", "threads.ps", "-o", "prometheus"])]),
]
# guest IPs in a KASLR-shifted kernel, with its kallsyms and System.map (ips.py)
for layout, opts in (("x86-6.5", []), ("x86-6.5", ["-i", "svm"]), ("x86-3.6", []), ("arm64-6.9", []),
                     ("arm64-4.4", []), ("ppc-hv", []), ("s390", [])):
    name = "ips-" + layout + "".join(opts)
    GENERATED.append(generated(name, layout, ["-K", hex(KASLR), "-k", "@.kallsyms", "-M", "@.map", "-v", "2",
                                              "-n", "1500", "-s", "43"] + opts, "0.1", extra=ips_runs(name, layout),
                               **LAYOUT))
# big-endian hosts' recordings (s390, ppc64), as tests/pageswap.py rewrites them
for layout in ("s390", "ppc-hv", "x86-6.5"):
    GENERATED.append(byteswapped("be-" + layout, layout,
                                 ["-V", "6", "-m", "2", "-v", "2", "-n", "300", "-C", "3", "-l", "-s", "23"], "0.02",
                                 **LAYOUT))
# events written one by one: port I/O, MMIO with kvm_mmio, PAUSE, sched events, a host task
GENERATED.append(scripted("script", script_lines(), "0.1", ["-w"]))


def sample():
    """The sample recording make builds (Makefile.am: kvmgen -s 7 -K 0x1e000000), in the build tree."""
    ks = ["--guest-kallsyms", "sample/kvmtop-sample.kallsyms"]
    return Rec("sample", BUILD, "sample/kvmtop-sample.dat",
               std_runs("0.1") + [("intervals-n3.text", ["-d", "0.25", "-n", "3"]),
                                  ("kallsyms.text", ks), ("kallsyms.json", ks + ["-o", "json"]),
                                  ("kallsyms.folded", ks + ["-o", "folded"]),
                                  ("kallsyms.openmetrics", ks + ["-o", "openmetrics"])])


# The real recordings of ../shared/traces (README.md there): read in place, never copied.
REAL = [
    ("x86-vmx-ubuntu-6.5/host_k6.5.0-21_2024-02-28_2caa92de_trace.dat", "10"),
    ("x86-vmx-ubuntu-6.5/host_k6.5.0-18_2024-02-27_f7d23c9f_trace.dat", "0.5"),
    ("x86-vmx-ubuntu-6.5/host_EMPTY_v6_cbe6e513_trace.dat", "1"),
    ("x86-vmx-ubuntu-6.5/guest_k5.15.94_2024-03-04_e0b449cf_trace-Salamander4.dat", "0.5"),
]


def real():
    out = []
    for path, step in REAL:
        name = "real-" + os.path.basename(path)[:-4]
        runs = std_runs(step) + [("ip-top.json", ["-o", "json", "--ip-top", "1000", "--ip-slots", "4096"])]
        out.append(Rec(name, traces(), path, runs))
    return out


def snippets():
    """The real excerpts of ../shared/traces/snippets, as tests/snippet.py writes them."""
    out = []
    for name in sorted(snippet.SNIPPETS):
        def make(d, name=name):
            if not snippet.make(name, os.environ["KVMGEN"], os.environ["KVMTOP_FORMATS"], traces(), d):
                raise NoTraces()
        out.append(Rec("snippet-" + name, GEN_DIR, "snippet-%s.dat" % name, std_runs("0.001"), make))
    return out


def case_file(rec, label):
    return "%s.%s.gz" % (rec.name, label)


def case_name(rec, args):
    return "%s: kvmtop %s" % (rec.name, " ".join(["-b", "-r", rec.path] + args))


def normalise(b):
    for rx, to in NORMALISE:
        b = rx.sub(to, b)
    return b


def output(rec, args):
    """What kvmtop -b -r REC ARGS says, as one text: its command line, exit status, stdout and stderr."""
    cmd = ["-b", "-r", rec.path] + args
    head = b"$ kvmtop %s\n" % " ".join(cmd).encode()
    try:
        p = subprocess.run([kvmtop()] + cmd, cwd=rec.where, capture_output=True, timeout=120,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return head + b"still running after 120 s: killed\n"
    out, err = normalise(p.stdout), normalise(p.stderr)
    return (head + b"status %d\n--- stdout, %d bytes\n" % (p.returncode, len(out)) + out
            + b"\n--- stderr, %d bytes\n" % len(err) + err)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def no_traces():
    return "../shared/traces not found (KVMTOP_TRACES=%s)" % traces()


def make_all(recs, d):
    """Write the generated recordings into d: {name: why it could not be written}."""
    os.makedirs(d, exist_ok=True)
    why = {}
    for r in recs:
        try:
            r.make(d)
        except NoTraces:
            why[r.name] = no_traces()
    return why


def same_twice(recs):
    """Write the recordings again, in a folder of their own: the files that differ from the first
    writing's (the recordings and what the generator writes beside them: kallsyms, ps listings)."""
    again = os.path.join(GEN_DIR, "again")
    shutil.rmtree(again, ignore_errors=True)
    make_all(recs, again)
    differ = []
    for f in sorted(os.listdir(again)):
        a = os.path.join(GEN_DIR, f)
        if not os.path.exists(a) or sha256(a) != sha256(os.path.join(again, f)):
            differ.append(f)
    shutil.rmtree(again)
    return differ


def diff_lines(b):
    """The output's lines for the diff; a long line (a JSON snapshot) is cut after each comma, so
    that the diff shows the fields that differ, not the whole snapshot."""
    out = []
    for line in b.decode("utf-8", "replace").splitlines():
        out += re.findall(r"[^,]*,|[^,]+$", line) if len(line) > 500 else [line]
    return out


def short_diff(want, got):
    d = list(difflib.unified_diff(diff_lines(want), diff_lines(got), "expected (49b0ffd)", "this kvmtop",
                                  n=2, lineterm=""))
    more = len(d) - DIFF_LINES
    return [l[:600] for l in d[:DIFF_LINES]] + (["... %d more diff lines" % more] if more > 0 else [])


def all_recordings():
    return GENERATED + snippets() + [sample()] + real()


def save(dest):
    """Write every case's expected file into dest, and the generated recordings' checksums."""
    os.makedirs(dest, exist_ok=True)
    gen = [r for r in all_recordings() if r.make]
    why = make_all(gen, GEN_DIR)
    sums = []
    for r in all_recordings():
        if r.name in why or not os.path.exists(os.path.join(r.where, r.path)):
            print("golden: %s: not saved, %s" % (r.name, why.get(r.name, "no such file")), file=sys.stderr)
            continue
        sums.append("%s  %s\n" % (sha256(os.path.join(r.where, r.path)), r.name))
        for label, args in r.runs:
            with open(os.path.join(dest, case_file(r, label)), "wb") as f:
                f.write(gzip.compress(output(r, args), 9, mtime=0))
    with open(os.path.join(dest, SUMS), "w") as f:
        f.writelines(sums)


def main():
    if sys.argv[1:2] == ["--save"] and len(sys.argv) == 3:
        save(sys.argv[2])
        return
    recs = all_recordings()
    gen = [r for r in recs if r.make]
    why = make_all(gen, GEN_DIR)
    # the generator must write the same bytes each time, or no output of its files could be stored
    differ = same_twice(gen)
    ok(not differ, "kvmgen writes each of the %d recordings (and the files beside them) byte for byte "
       "the same twice" % (len(gen) - len(why)), "differ: " + " ".join(differ))

    sums = {}
    if os.path.exists(os.path.join(EXPECTED, SUMS)):
        for line in open(os.path.join(EXPECTED, SUMS)):
            h, name = line.split()
            sums[name] = h
    if not os.path.isdir(traces()):
        why.update({r.name: no_traces() for r in recs if r.where == traces()})
    for r in recs:
        if r.name in why:
            for label, args in r.runs:
                skip(case_name(r, args), why[r.name])
            continue
        if not os.path.exists(os.path.join(r.where, r.path)):
            for label, args in r.runs:
                ok(False, case_name(r, args), "no recording %s in %s" % (r.path, r.where))
            continue
        # a recording unlike 49b0ffd's (a changed generator, other real files): said beside each failure
        h = sha256(os.path.join(r.where, r.path))
        note = None if sums.get(r.name) == h else \
            "the recording %s is not the one the expected files were saved from (sha256 %s, then %s)" % (
                r.path, h[:16], (sums.get(r.name) or "unknown")[:16])
        for label, args in r.runs:
            name = case_name(r, args)
            got = output(r, args)
            path = os.path.join(EXPECTED, case_file(r, label))
            if not os.path.exists(path):
                ok(False, name, "no expected file %s (python3 tests/golden.py --save tests/golden)"
                   % os.path.relpath(path, os.path.dirname(HERE)))
                continue
            with gzip.open(path) as f:
                want = f.read()
            if not ok(got == want, name):
                for line in ([note] if note else []) + short_diff(want, got):
                    print("# " + line)
    # every .dat of ../shared/traces has its expected outputs, or the test says it has none
    if os.path.isdir(traces()):
        known = {p for p, s in REAL}
        for d, _, fs in sorted(os.walk(traces())):
            for f in sorted(fs):
                p = os.path.relpath(os.path.join(d, f), traces())
                if f.endswith(".dat") and p not in known:
                    skip("real recording %s" % p, "not in golden.py's list: no outputs of 49b0ffd saved")
    # no expected file of a case no longer run
    names = {case_file(r, label) for r in recs for label, args in r.runs} | {SUMS}
    stray = sorted(set(os.listdir(EXPECTED)) - names) if os.path.isdir(EXPECTED) else []
    ok(not stray, "every file of tests/golden/ belongs to a case", " ".join(stray))
    done()


main()
