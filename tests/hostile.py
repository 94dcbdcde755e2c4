# SPDX-License-Identifier: GPL-2.0
"""Hostile recordings: each class of issue #16, made from a small generated
recording by changing a few bytes the way a corrupt or crafted file would.

kvmtop must answer each with one 'kvmtop: ' line naming the file and what
is wrong and status 1 (or with correct output), within 5 s and 256 MiB,
under ASan/UBSan (KVMTOP_ASAN).  The oracle for "what is wrong" is the
byte this test changed: the line must name it.  Patches keep every length
(a section's size stays true), so only the changed value is bad.
"""
import csv
import io
import json
import os
import struct
import subprocess
import zlib

from tap import ok, skip, done, asan_run, one_clear_line, kvmgen

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
GEN = os.environ.get("KVMGEN")
FORMATS = os.environ.get("KVMTOP_FORMATS")
LIMIT_S = 5
LIMIT_MIB = 256


def gen(name, args):
    out = os.path.join(TMP, "hostile-%s.dat" % name)
    kvmgen(out, "x86-6.5", ["-m", "1", "-v", "2", "-n", "50"] + args, timeout=60)
    with open(out, "rb") as f:
        return f.read()


def patched(data, name, pairs):
    """data with each (old, new) replaced once; lengths stay as they were."""
    for old, new in pairs:
        assert data.count(old) >= 1, old
        data = data.replace(old, new, 1)
    path = os.path.join(TMP, "hostile-%s.dat" % name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def pad(new, old):
    assert len(new) <= len(old), (new, old)
    return new + b" " * (len(old) - len(new))


def compressed_options(data, name, edit, declared=None, garbage=False):
    """data (a zlib v7 file) with the options section that edit(body) changes
    (None: not this one) compressed (trace-cmd writes them plain; libtracecmd reads either);
    declared: another decompressed size in the section's header; garbage:
    not a zlib stream.  The section keeps its size: zlib ignores the
    padding after the stream's end."""
    pos = data.index(b"\0", 10) + 1 + 1 + 1 + 4  # magic, version; endian, long size, page size
    pos = data.index(b"\0", pos) + 1             # the codec's name
    pos = data.index(b"\0", pos) + 1 + 8         # its version; the first options' offset
    while pos < len(data):
        sid, flags, sname, size = struct.unpack_from("<HHIQ", data, pos)
        body = data[pos + 16:pos + 16 + size]
        plain = edit(body) if sid == 0 and not flags & 1 else None
        if plain is not None:
            stream = b"\x78\x9c" + b"\xff" * 16 if garbage else zlib.compress(plain, 9)
            assert len(stream) + 8 <= size, (len(stream), size)
            new = struct.pack("<HHIQ", sid, flags | 1, sname, size) + \
                struct.pack("<II", size - 8, declared or len(plain)) + stream.ljust(size - 8, b"\0")
            return patched(data[:pos] + new + data[pos + 16 + size:], name, [])
        pos += 16 + size
    raise SystemExit("Bail out! %s: no options section to change in the v7 zlib file" % name)


def set_cpucount(n):
    old = struct.pack("<HII", 8, 4, 2)
    return lambda body: body.replace(old, struct.pack("<HII", 8, 4, n)) if old in body else None


def set_buffer_cpu(n):
    """The BUFFER option's second CPU (after 'local', page size, 2 CPUs, the first's 20 bytes)."""
    def edit(body):
        i = body.find(b"\0local\0" + struct.pack("<II", 4096, 2))
        if i < 0:
            return None
        i += 7 + 8 + 20
        return body[:i] + struct.pack("<I", n) + body[i + 4:]
    return edit


def refused(path, what, mention):
    """One line naming the file and mention, status 1, in time and memory."""
    rc, out, err, mib = asan_run(["-b", "-r", path, "--summary", "-o", "json"], timeout=LIMIT_S)
    one_clear_line(rc, err, "%s: one line naming the file, status != 0" % what, path)
    ok(rc is not None and mention in err, "%s: the line says %r" % (what, mention), err)
    ok(rc is not None and mib < LIMIT_MIB, "%s: within %d s and %d MiB (%.0f MiB)" % (what, LIMIT_S, LIMIT_MIB, mib))


def main():
    v6 = gen("v6", ["-V", "6"])
    v7 = gen("v7", ["-C", "2"])

    # 1. Field offsets from the formats, range-checked at bind time.
    old = b"field:unsigned int exit_reason;\toffset:8;"
    for label, off, mention in (("far negative", b"0xfff00000", "offset -1048576"),
                                ("INT_MAX", b"2147483647", "offset 2147483647")):
        path = patched(v6, "offset-" + label.replace(" ", "-"),
                       [(old, pad(b"field:u32 exit_reason;\toffset:" + off + b";", old))])
        refused(path, "1. exit_reason at %s" % label, mention)
    # libtraceevent does not parse a negative decimal: the field is lost, not misread
    path = patched(v6, "offset-m4", [(old, pad(b"field:u32 exit_reason;\toffset:-4;", old))])
    refused(path, "1. exit_reason at offset -4", "kvm:kvm_exit: its format does not parse")

    # 3. A page whose commit size exceeds the page: on a CPU's first page
    # libtracecmd's open crashes (kbuffer reads past the page); on a later
    # one kvmtop's page reader checks the header before kbuffer reads it.
    i = v6.find(b"flyrecord\0") + 10
    page = struct.unpack_from("<Q", v6, i)[0]
    bad = bytearray(v6)
    struct.pack_into("<Q", bad, page + 8, 0xffff)
    path = patched(bytes(bad), "commit", [])
    refused(path, "3. a page's commit size past the page", "corrupt: the trace libraries")
    big = gen("v6-pages", ["-V", "6", "-n", "3000"])
    i = big.find(b"flyrecord\0") + 10
    page, size = struct.unpack_from("<QQ", big, i)
    assert size >= 2 * 4096, size
    bad = bytearray(big)
    struct.pack_into("<Q", bad, page + 4096 + 8, 0xffff)
    path = patched(bytes(bad), "commit-2", [])
    refused(path, "3. a later page's commit size past the page",
            "corrupt: CPU 0's page at offset %d says it holds 65551 bytes" % (page + 4096))

    # 4. A print fmt naming an unknown field: libtraceevent crashes parsing it.
    path = patched(v6, "rdason", [(b"REC->exit_reason & 0xffff", b"REC->exit_rdason & 0xffff")])
    refused(path, "4. a print fmt naming an unknown field", "corrupt: the trace libraries")

    # 5. Library loops: records of negative size whose offsets go back for
    # ever (make fuzz found one; trace-cmd report loops on it too), and a
    # library call that never returns (a preload stands in for kbuffer).
    # (and, from the intervals target, a BUFFER option naming CPU 5,046,272:
    # libtracecmd's open took 1.5 GB and 5 s before kvmtop saw the count)
    hangs = []
    for target in ("replay", "intervals"):
        corpus = os.path.join(os.path.dirname(FORMATS), "..", "fuzz", "corpus", target)
        hangs += [(target, f) for f in sorted(os.listdir(corpus)) if f.startswith("hang-")] \
            if os.path.isdir(corpus) else []
    for target, f in hangs:
        refused(os.path.join(os.path.dirname(FORMATS), "..", "fuzz", "corpus", target, f),
                "5. fuzz/corpus/%s/%s (what make fuzz found)" % (target, f), "corrupt: ")
    if not hangs:
        skip("5. what make fuzz found", "no hang-* input in fuzz/corpus")
    try:
        p = subprocess.run([os.environ["KVMTOP"], "-b", "-r", patched(v6, "whole-v6", []), "--summary"],
                           capture_output=True, timeout=LIMIT_S + 5,
                           env=dict(os.environ, LD_PRELOAD=os.environ["STALL_SO"],
                                    # a sanitizer build (.ci/asan): the abandoned handle is left by design
                                    ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0"))
        rc, err = p.returncode, p.stderr.decode()
    except subprocess.TimeoutExpired:
        rc, err = None, "no end within %d s" % (LIMIT_S + 5)
    one_clear_line(rc, err, "5. a library read that never returns: ended by the watchdog", "without an event")

    # 6. CPU counts and event IDs from the file drive allocations.
    cpucount = struct.pack("<HII", 8, 4, 2)    # option CPUCOUNT, 4 bytes: 2 CPUs
    path = patched(v7, "cpus", [(cpucount, struct.pack("<HII", 8, 4, 0x20000000))])
    refused(path, "6. a CPU count of 2^29", "CPU 536870911;")
    # a version 6 file of 9,000 CPUs (each beyond the 4th empty): refused
    # before libtracecmd, which would size and walk its arrays by them
    i = v6.find(b"options  \0") - 4
    j = v6.find(b"flyrecord\0") + 10
    assert struct.unpack_from("<I", v6, i)[0] == 4
    cpus = [struct.unpack_from("<QQ", v6, j + 16 * k) for k in range(4)]
    end = max(off + size for off, size in cpus)
    path = patched(v6[:i] + struct.pack("<I", 9000) + v6[i + 4:j] + v6[j:j + 64] +
                   struct.pack("<QQ", end, 0) * 8996 + v6[j + 64:], "cpus-v6", [])
    refused(path, "6. a version 6 file of 9,000 CPUs", "CPU 8999;")
    # the same in a compressed options section (trace-cmd writes them plain;
    # libtracecmd reads either): the walk decompresses before the open
    v7z = gen("v7z", ["-C", "2", "-z", "zlib"])
    for label, edit, args, mention in (
            ("CPU count of 2", set_cpucount(2), {}, None),
            ("CPU count of 2^29", set_cpucount(0x20000000), {}, "CPU 536870911;"),
            ("BUFFER naming CPU 5,046,272", set_buffer_cpu(5046272), {}, "CPU 5046272;"),
            ("garbage stream", set_cpucount(2), {"garbage": True}, "does not decompress"),
            ("17 MiB section", set_cpucount(2), {"declared": 17 << 20}, "larger than kvmtop accepts")):
        path = compressed_options(v7z, "cpus-z-" + label.split()[-1], edit, **args)
        if mention:
            refused(path, "6. compressed options, " + label, mention)
            continue
        rc, out, err, mib = asan_run(["-b", "-r", path, "--summary", "-o", "json"], timeout=LIMIT_S)
        ok(rc == 0 and err == "" and '"exits_total":100' in out,
           "6. compressed options, %s: the file reads (100 exits)" % label, err)

    for label, eid in (("INT_MAX", b"2147483647"), ("INT_MAX-1", b"2147483646")):
        # the longer ID's bytes come out of the field's type name: the section keeps its size
        old = b"field:unsigned int exit_reason;"
        grow = len(eid) - 3
        path = patched(v6, "id-" + label, [
            (b"name: kvm_exit\nID: 102\n", b"name: kvm_exit\nID: " + eid + b"\n"),
            (old, pad(b"field:u32 exit_reason;", old[:len(old) - grow]))])
        refused(path, "6. an event ID of %s" % label, "has ID %s" % eid.decode())

    # 2. Gaps: a run of empty intervals is one snapshot saying how many.
    step = 10 ** 6
    for label, t2 in (("10^15 ns", 10 ** 15), ("2^59 - 2000 ns (the largest a record's time holds)", 2 ** 59 - 2000)):
        script = os.path.join(TMP, "hostile-gap.txt")
        with open(script, "w") as f:
            f.write("1000 0 1000 exit exit_reason=12 isa=1 vcpu_id=0\n"
                    "2000 0 1000 entry vcpu_id=0\n"
                    "%d 0 1000 exit exit_reason=30 isa=1 vcpu_id=0\n"
                    "%d 0 1000 entry vcpu_id=0\n" % (t2, t2 + 1000))
        path = os.path.join(TMP, "hostile-gap.dat")
        p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.5"), "-V", "6", "-S", script, "-o", path],
                           capture_output=True, timeout=60)
        ok(p.returncode == 0, "kvmgen gap %s" % label, p.stderr.decode())
        rc, out, err, mib = asan_run(["-b", "-r", path, "-d", "0.001", "-o", "json"], timeout=LIMIT_S)
        js = [json.loads(l) for l in out.splitlines()] if rc == 0 else []
        # the oracle: the first interval [1000, 1000 + step) holds the first pair;
        # every whole step from there to the second exit is empty
        first_end = 1000 + step
        empty = (t2 - first_end) // step
        ok(rc == 0 and len(js) >= 3 and int(js[0]["end"]) == first_end and js[0]["host"]["exits"] == 1
           and js[1]["empty_intervals"] == empty and int(js[1]["start"]) == first_end
           and int(js[1]["end"]) == first_end + empty * step and js[1]["kvm_events"] == 0
           and sum(j["host"]["exits"] for j in js) == 2 and len(js) <= 4
           and all(j["empty_intervals"] == 0 for j in js if j is not js[1]),
           "2. a gap of %s at -d 0.001: %d snapshots, one of them for the %d empty intervals"
           % (label, len(js), empty), "status %r %s\n%s" % (rc, err, out[:2000]))
        rc, out, err, mib = asan_run(["-b", "-r", path, "-d", "0.001"], timeout=LIMIT_S)
        ok(rc == 0 and ": %d intervals without KVM events" % empty in out,
           "2. the text header of the gap says how many intervals it stands for", out[:1500])

    # 7. Unbounded growth: 300,000 distinct exit codes cost what one code does.
    peaks = {}
    for label, code in (("distinct", lambda i: 0x1000 + i), ("same", lambda i: 0x1000)):
        script = os.path.join(TMP, "hostile-codes.txt")
        with open(script, "w") as f:
            for i in range(300000):
                t = 1000 + i * 1000
                f.write("%d 0 1000 exit exit_reason=%d isa=2 vcpu_id=0\n%d 0 1000 entry vcpu_id=0\n"
                        % (t, code(i), t + 500))
        path = os.path.join(TMP, "hostile-codes-%s.dat" % label)
        p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.5"), "-V", "6", "-S", script, "-o", path],
                           capture_output=True, timeout=120)
        ok(p.returncode == 0, "kvmgen 300,000 exits, %s codes" % label, p.stderr.decode())
        rc, out, err, mib = asan_run(["-b", "-r", path, "--summary", "-o", "json"], timeout=30)
        peaks[label] = mib
        if label == "distinct":
            # the oracle: the reason table keeps REASON_MAX - 1 codes, the rest are OTHER
            j = json.loads(out) if rc == 0 else {"host": {"reasons": []}}
            other = [r["count"] for r in j["host"]["reasons"] if r["reason"] == "OTHER"]
            ok(rc == 0 and len(j["host"]["reasons"]) == 1024 and other == [300000 - 1023],
               "7. 300,000 distinct codes: 1,023 reasons and OTHER with the other 298,977",
               "status %r %s %s" % (rc, err, [(r["reason"], r["count"]) for r in j["host"]["reasons"][:3]]))
    ok(peaks["distinct"] - peaks["same"] < 8,
       "7. ... within 8 MiB of one code's peak (%.1f MiB against %.1f)" % (peaks["distinct"], peaks["same"]))
    rc, out, err, mib = asan_run(["-b", "-r", patched(v6, "whole-v6", []), "--guest-kallsyms", "/dev/zero"],
                                 timeout=LIMIT_S)
    one_clear_line(rc, err, "7. --guest-kallsyms /dev/zero: one line naming it, in time", "/dev/zero:1:")

    # 8. Output safety: a formula in a thread name is text to a spreadsheet;
    # a long symbol in folded output is cut between characters.
    script = os.path.join(TMP, "hostile-comm.txt")
    with open(script, "w") as f:
        f.write("comm 1000 =HYPERLINK(\"http://x\",\"y\")\n"
                "1000 0 1000 exit exit_reason=12 isa=1 vcpu_id=0\n2000 0 1000 entry vcpu_id=0\n")
    path = os.path.join(TMP, "hostile-comm.dat")
    p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.5"), "-V", "6", "-S", script, "-o", path],
                       capture_output=True, timeout=60)
    rc, out, err, mib = asan_run(["-b", "-r", path, "-o", "csv"], timeout=LIMIT_S)
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    ok(p.returncode == 0 and rows and all(r["vcpu_comm"] == "'=HYPERLINK(\"http://x\",\"y\")" for r in rows),
       "8. CSV: a thread name starting with = reads back as text starting with '", out + err)

    kallsyms = os.path.join(TMP, "hostile-kallsyms")
    path = os.path.join(TMP, "hostile-ips.dat")
    p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.5"), "-V", "6", "-m", "1", "-v", "1", "-n", "200",
                        "-K", "0x1e000000", "-k", kallsyms + ".orig", "-o", path], capture_output=True, timeout=60)
    with open(kallsyms, "w", encoding="utf-8") as f:
        for line in open(kallsyms + ".orig"):
            a, t, name = line.split()[:3]
            # odd bytes before 2-byte characters: a byte-wise cut lands inside one
            f.write("%s %s ab;%s\n" % (a, t, "\u00e9" * 300))
    rc, out, err, mib = asan_run(["-b", "-r", path, "--guest-kallsyms", kallsyms, "-o", "folded"], timeout=LIMIT_S)
    # asan_run decodes with errors='replace': a split character shows as U+FFFD
    lines = out.splitlines()
    ok(p.returncode == 0 and rc == 0 and lines and "\ufffd" not in out
       and all(l.rsplit(" ", 1)[1].isdigit() for l in lines)
       and all("ab\\x3b\u00e9" in l for l in lines if ";kernel;" in l) and any(";kernel;" in l for l in lines),
       "8. folded: 300-character symbols are cut between characters, ';' written \\x3b, all valid UTF-8",
       err + out[:600])

    # 10. The unit of a recording's times comes from its clock's name: the
    # kernel's boot clock counts ns, uptime counts jiffies.
    for clock, ns in (("boot", True), ("uptime", False)):
        data = bytearray(v6)
        i = data.find(b"[local] global x86-tsc")     # the trace_clock option: 23 bytes with its NUL
        data[i:i + 22] = (b"[%s] global" % clock.encode()).ljust(22, b" ")
        j = data.find(b"[local]")                    # the clock after the CPU data: u64 size, text
        word = b"[%s]" % clock.encode()
        data[j - 8:j + len(word)] = struct.pack("<Q", len(word)) + word
        path = patched(bytes(data), "clock-" + clock, [])
        rc, out, err, mib = asan_run(["-b", "-r", path, "--summary", "-o", "json"], timeout=LIMIT_S)
        j = json.loads(out) if rc == 0 else {}
        ok(rc == 0 and j.get("clock") == clock and j.get("time_unit") == ("ns" if ns else "counts")
           and (j.get("seconds") is not None) == ns,
           "10. a recording on the %s clock: times in %s%s" % (clock, "ns" if ns else "counts",
                                                              ", seconds" if ns else ", no seconds"),
           "status %r %s %s" % (rc, err, {k: j.get(k) for k in ("clock", "time_unit", "seconds")}))

    # and the unchanged files read, in time and memory
    for label, data in (("v6", v6), ("v7", v7)):
        path = patched(data, "whole-" + label, [])
        rc, out, err, mib = asan_run(["-b", "-r", path, "--summary", "-o", "json"], timeout=LIMIT_S)
        ok(rc == 0 and err == "" and '"exits_total":100' in out and mib < LIMIT_MIB,
           "the unchanged %s recording reads: 100 exits, nothing on stderr (%.0f MiB)" % (label, mib), err)
    done()


if __name__ == "__main__":
    main()
