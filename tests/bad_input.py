# SPDX-License-Identifier: GPL-2.0
"""Bad input: one clear line on stderr and a non-zero status, never a crash or a hang.

A recording cut at any byte is bad input too, even where the lost bytes\nhold no events: kvmtop must not pass a damaged file off as whole.

Runs kvmtop built with AddressSanitizer and UBSan (KVMTOP_ASAN), so a
memory error in a path that reads a cut or corrupt file fails the test.
"""
import json
import os
import signal
import struct
import subprocess

from tap import ok, eq, skip, done, traces, asan_run, one_clear_line

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
GEN = os.environ["KVMGEN"]
FORMATS = os.environ["KVMTOP_FORMATS"]


def run(args, timeout=120):
    return asan_run(args, timeout)[:3]


def cuts(src, label, stride=None):
    """Cut src in the header, the formats, the options, all through the data
    and in its last bytes (or every stride bytes): every cut must give one
    line and a status != 0."""
    data = open(src, "rb").read()
    full = run(["-b", "-r", src, "--summary", "-o", "json"])
    if not eq(full[0], 0, "%s: the whole file reads" % label):
        return
    cut = os.path.join(TMP, "cut.dat")
    size = len(data)
    offsets = sorted(set([o for o in (1, 7, 10, 11, 12, 16, 24, 40, 100, 500, 1000, 4096, 4097, 8192, 20000)
                          if o < size]
                         + [size * k // 40 for k in range(1, 40)]
                         + [size - k for k in (1, 2, 8, 15, 16, 17, 100, 4096) if k < size]
                         + (list(range(1, size, stride)) if stride else [])))
    bad = []
    for off in offsets:
        with open(cut, "wb") as f:
            f.write(data[:off])
        rc, out, err = run(["-b", "-r", cut, "--summary", "-o", "json"])
        lines = [l for l in err.splitlines() if l.strip()]
        if rc is None or rc < 0 or rc in (98, 99):
            bad.append("cut at %d: status %r %s" % (off, rc, err[-300:]))
        elif rc == 0:
            bad.append("cut at %d: status 0, the cut passed unnoticed" % off)
        elif not (len(lines) == 1 and lines[0].startswith("kvmtop: ")):
            bad.append("cut at %d: status %d but stderr %r" % (off, rc, err[-300:]))
    ok(not bad, "%s cut at %d offsets: one line and status != 0 each, no crash, no hang"
       % (label, len(offsets)), "\n".join(bad))


def first_chunks(data, codec):
    """Where each CPU's data starts in a compressed version 7 file of kvmgen's (page-aligned:
    {u32 chunks, then each {u32 compressed size, u32 size, data}}), found by its first chunk's
    header and the codec's magic: [(offset, compressed size)]."""
    found = []
    for p in range(0, len(data) - 16, 4096):
        n, zsize, size = struct.unpack_from("<III", data, p)
        z = data[p + 12:p + 16]
        magic = z == bytes.fromhex("28b52ffd") if codec == "zstd" else \
            (z[0] & 0x0f) == 8 and (z[0] << 8 | z[1]) % 31 == 0
        if 0 < n < 1 << 20 and 16 < zsize <= len(data) - p - 12 and size and size % 4096 == 0 and magic:
            found.append((p, zsize))
    return found


def corrupt_first_chunks():
    """A compressed recording whose first chunk of a CPU's events does not decompress: libtracecmd
    3.1 prints "mmap: ..." and "Can not mmap file, will read instead" itself (and then crashes);
    kvmtop's layout walk must refuse the file first, in its one line."""
    for codec in ("zstd", "zlib"):
        src = os.path.join(TMP, "badchunk-%s.dat" % codec)
        p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.18"), "-o", src, "-m", "1", "-v", "2",
                            "-C", "2", "-n", "3000", "-z", codec], capture_output=True, timeout=120)
        if not ok(p.returncode == 0, "kvmgen v7+%s for corrupt chunks" % codec, p.stderr.decode()):
            continue
        data = open(src, "rb").read()
        chunks = first_chunks(data, codec)
        if not eq(len(chunks), 2, "v7+%s: the first chunk of each of its 2 CPUs found" % codec):
            continue
        bad = []
        for cpu, (off, zsize) in enumerate(chunks):
            d = bytearray(data)
            start = off + 12 + zsize // 2
            d[start:off + 12 + zsize] = b"\xff" * (off + 12 + zsize - start)
            cut = os.path.join(TMP, "badchunk-%s-cpu%d.dat" % (codec, cpu))
            open(cut, "wb").write(bytes(d))
            rc, out, err = run(["-b", "-r", cut, "--summary", "-o", "json"])
            lines = [l for l in err.splitlines() if l.strip()]
            if not (rc is not None and rc > 0 and rc not in (98, 99) and len(lines) == 1 and
                    lines[0].startswith("kvmtop: " + cut) and "does not decompress" in lines[0]):
                bad.append("CPU %d's first chunk: status %r, stderr %r" % (cpu, rc, err[-400:]))
        ok(not bad, "v7+%s, a CPU's first chunk of events corrupt: one line from kvmtop saying so, "
           "none from libtracecmd, status != 0" % codec, "\n".join(bad))


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

    # Generated recordings of each file version and codec, then a real one.
    for label, args in (("v6", ["-V", "6"]), ("v7", []), ("v7+zstd", ["-z", "zstd"]), ("v7+zlib", ["-z", "zlib"])):
        out = os.path.join(TMP, "badcut-%s.dat" % label.replace("+", "-"))
        p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-6.18"), "-o", out, "-m", "1", "-v", "2",
                            "-n", "3000", "-x"] + args, capture_output=True, timeout=120)
        if not ok(p.returncode == 0, "kvmgen %s" % label, p.stderr.decode()):
            continue
        cuts(out, "generated %s recording" % label)
    corrupt_first_chunks()
    # Small files cut every 29 bytes: every part of the layout gets cut somewhere.
    for label, args in (("v6", ["-V", "6"]), ("v7+zstd", ["-z", "zstd"])):
        out = os.path.join(TMP, "badcut-small-%s.dat" % label.replace("+", "-"))
        p = subprocess.run([GEN, "-f", os.path.join(FORMATS, "x86-5.10"), "-o", out, "-m", "1", "-v", "1",
                            "-n", "20"] + args, capture_output=True, timeout=120)
        if ok(p.returncode == 0, "kvmgen small %s" % label, p.stderr.decode()):
            cuts(out, "small generated %s recording" % label, stride=29)

    d = os.path.join(traces(), "x86-vmx-ubuntu-6.5")
    if not os.path.isdir(d):
        skip("truncated real recordings", "../shared/traces not found")
        done()
    cuts(os.path.join(d, "host_k6.5.0-18_2024-02-27_f7d23c9f_trace.dat"), "real v7+zlib recording")
    done()


main()
