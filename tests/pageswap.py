# SPDX-License-Identifier: GPL-2.0
"""Rewrites a little-endian, uncompressed version 6 recording of tests/kvmgen
in the other byte order (as an s390 or ppc64 host writes it), or with one
record cut short, for the decoder's paths no generated file reaches.

This is a test fixture, not a reader for kvmtop: it knows only what kvmgen
writes (a TRACECLOCK option; data records of at most 112 bytes; time
extends; the missed-events count after a page's records) and refuses
anything else.  Each section of the file header is copied with its numbers
swapped; each event's numeric fields (their offsets and sizes from the
file's own format text) are swapped; the ring-buffer event header's
5-bit type and 27-bit delta are packed as a big-endian kernel packs its
bit-fields (type in the top bits).  Debian's trace-cmd report reading the
result as it reads the original is the check that the rewrite is right.
"""
import re
import struct

MAGIC = b"\x17\x08\x44tracing"
FIELD = re.compile(r"field:(?P<type>[^;]*?)\s*(?P<name>\w+)(?P<arr>\[[^\]]*\])?;\s*offset:(?P<off>\d+);"
                   r"\s*size:(?P<size>\d+);")
TYPE_PADDING, TYPE_EXTEND, TYPE_STAMP = 29, 30, 31
OPT_TRACECLOCK = 4   # trace-cmd's TRACECMD_OPTION_TRACECLOCK: its data is text
COMMIT_MASK = (1 << 27) - 1
MISSED, MISSED_STORED = 1 << 31, 1 << 30


class Reader:
    def __init__(self, data):
        self.d, self.at = data, 0

    def take(self, n):
        b = self.d[self.at:self.at + n]
        if len(b) != n:
            raise ValueError("pageswap: the file ends at offset %d" % self.at)
        self.at += n
        return b

    def num(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def cstr(self):
        end = self.d.index(b"\0", self.at)
        s = self.d[self.at:end]
        self.at = end + 1
        return s


def field_layouts(text):
    """A format file's text -> (event id, event name, [(offset, size)] of its numeric fields)."""
    m = re.search(rb"^ID:\s*(\d+)", text, re.M)
    name = re.search(rb"^name:\s*(\S+)", text, re.M)
    fields = []
    for f in FIELD.finditer(text.decode()):
        if not f.group("arr") and int(f.group("size")) in (2, 4, 8):
            fields.append((int(f.group("off")), int(f.group("size"))))
    return (int(m.group(1)) if m else None), (name.group(1).decode() if name else None), fields


def rewrite(src, dst, big_endian=True, shorten=None):
    """src (kvmgen -V 6, little-endian) -> dst, big-endian if asked.  shorten=(event name,
    bytes): the first record of that event (in CPU order) keeps only its first bytes (a
    multiple of 4).  Returns the shortened record's bytes as written, or None."""
    data = open(src, "rb").read()
    r = Reader(data)
    o = ">" if big_endian else "<"
    out = bytearray()

    def put(fmt, v):
        out.extend(struct.pack(o + fmt, v))

    if r.take(10) != MAGIC or r.take(2) != b"6\0" or r.take(1) != b"\0":
        raise ValueError("pageswap: %s is not a little-endian version 6 recording" % src)
    long_size = r.take(1)[0]
    page_size = r.num("I")
    out += MAGIC + b"6\0" + (b"\1" if big_endian else b"\0") + bytes([long_size])
    put("I", page_size)
    formats = {}
    for tag in (b"header_page\0", b"header_event\0"):
        if r.take(len(tag)) != tag:
            raise ValueError("pageswap: no %s section" % tag[:-1].decode())
        size = r.num("Q")
        out += tag
        put("Q", size)
        out += r.take(size)

    def copy_formats(n):
        for _ in range(n):
            size = r.num("Q")
            text = r.take(size)
            put("Q", size)
            out.extend(text)
            eid, name, fields = field_layouts(text)
            if eid is not None:
                formats[eid] = (name, fields)

    n = r.num("I")
    put("I", n)
    copy_formats(n)
    systems = r.num("I")
    put("I", systems)
    for _ in range(systems):
        out.extend(r.cstr() + b"\0")
        n = r.num("I")
        put("I", n)
        copy_formats(n)
    for fmt in ("I", "I", "Q"):          # kallsyms, printk formats, saved command lines
        size = r.num(fmt)
        put(fmt, size)
        out.extend(r.take(size))
    cpus = r.num("I")
    put("I", cpus)
    tag = r.take(10)
    if tag == b"options  \0":
        out += tag
        while True:
            oid = r.num("H")
            put("H", oid)
            if not oid:
                break
            if oid != OPT_TRACECLOCK:
                raise ValueError("pageswap: option %d is not one this rewrites" % oid)
            size = r.num("I")
            put("I", size)
            out.extend(r.take(size))
        tag = r.take(10)
    if tag != b"flyrecord\0":
        raise ValueError("pageswap: no flyrecord section")
    out += tag
    spans = [(r.num("Q"), r.num("Q")) for _ in range(cpus)]
    table = len(out)
    out.extend(bytes(16 * cpus))
    short = {"left": shorten, "rec": None}
    for cpu, (off, size) in enumerate(spans):
        out.extend(bytes(-len(out) % page_size))
        start = len(out)
        for p in range(off, off + size, page_size):
            out.extend(page(data[p:p + page_size], long_size, o, formats, short))
        struct.pack_into(o + "QQ", out, table + 16 * cpu, start if size else 0, len(out) - start)
    open(dst, "wb").write(bytes(out))
    return short["rec"]


def page(pg, long_size, o, formats, short):
    """One ring-buffer page in byte order o, every record's fields swapped."""
    lfmt = "Q" if long_size == 8 else "I"
    ts, commit = struct.unpack_from("<Q" + lfmt, pg, 0)
    hdr = 8 + long_size
    used = commit & COMMIT_MASK
    body = bytearray()
    at = hdr
    while at < hdr + used:
        word = struct.unpack_from("<I", pg, at)[0]
        type_len, delta = word & 31, word >> 5
        if type_len == TYPE_EXTEND:
            body += struct.pack(o + "I", pack_header(o, type_len, delta))
            body += struct.pack(o + "I", struct.unpack_from("<I", pg, at + 4)[0])
            at += 8
            continue
        if type_len == 0 or type_len >= TYPE_PADDING:
            raise ValueError("pageswap: a record of type %d is not one kvmgen writes" % type_len)
        rec = bytearray(pg[at + 4:at + 4 + 4 * type_len])
        eid = struct.unpack_from("<H", rec, 0)[0]
        name, fields = formats.get(eid, (None, []))
        for foff, fsize in fields:
            if foff + fsize <= len(rec):
                fmt = {2: "H", 4: "I", 8: "Q"}[fsize]
                struct.pack_into(o + fmt, rec, foff, struct.unpack_from("<" + fmt, rec, foff)[0])
        if short["left"] and name == short["left"][0]:
            rec = rec[:short["left"][1]]
            short["rec"] = bytes(rec)
            short["left"] = None
        body += struct.pack(o + "I", pack_header(o, len(rec) // 4, delta)) + rec
        at += 4 + 4 * type_len
    new_commit = len(body) | (commit & ~COMMIT_MASK)
    if commit & MISSED and commit & MISSED_STORED:
        body += struct.pack(o + lfmt, struct.unpack_from("<" + lfmt, pg, hdr + used)[0])
    out = struct.pack(o + "Q" + lfmt, ts, new_commit) + body
    return out + bytes(len(pg) - len(out))


def pack_header(o, type_len, delta):
    """The kernel's {type_len:5, time_delta:27} bit-fields as a compiler of that byte order packs them."""
    return (type_len << 27 | delta) if o == ">" else (delta << 5 | type_len)
