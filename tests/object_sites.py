#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Each object's guest IP sites (issue 38): where in the guest its exits came from.

The oracle is Debian's `trace-cmd report` of a generated recording rich in
objects (kvmgen -O: companion events after the exits), read here without
kvmtop: an exit's object is its thread's last companion line before the
next kvm_exit or kvm_entry (tests/live_objects.py's parsers), its site the
exit line's rip.  kvmtop(1), OBJECTS: per vCPU each object keeps the first
three distinct sites its exits came from, each counted exactly, the other
IPs' exits together ("sites_rest"); the guest's kallsyms (written by the
generator) name them, as "name+0xoff" of the last symbol at or below.
"""
import bisect
import json
import os
import re
import subprocess

from tap import ok, eq, done, run, kvmgen, addr_ints
from live_objects import LINE, companion, own_port

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
SITES = 3
KINDS = ("port", "mmio", "msr", "apic", "hypercall", "hv_hypercall", "cr", "cpuid")


def oracle(path):
    """{(tid, kind, object, dir, size): [rip of each exit, in order]} from trace-cmd report."""
    p = subprocess.run(["trace-cmd", "report", "-t", path], capture_output=True, timeout=600)
    pending, out = {}, {}

    def close(tid):
        o = pending.pop(tid, None)
        if o and o[0]:
            out.setdefault((tid,) + o[0], []).append(o[1])

    for line in p.stdout.decode("utf-8", "replace").splitlines():
        m = LINE.match(line)
        if not m:
            continue
        tid, ev, rest = int(m.group("tid")), m.group("event"), m.group("rest")
        if ev in ("kvm_exit", "kvm_entry"):
            close(tid)
            if ev == "kvm_exit":
                rip = re.search(r"rip (?:0x)?([0-9a-f]+)", rest)
                pending[tid] = [own_port(rest), int(rip.group(1), 16) if rip else 0]
            continue
        o = companion(ev, rest)
        if o and tid in pending:
            pending[tid][0] = o
    for tid in list(pending):
        close(tid)
    return out


def first_sites(rips):
    """The first SITES distinct rips with their exits, and the other rips' exits."""
    sites = {}
    rest = 0
    for ip in rips:
        if ip in sites or len(sites) < SITES:
            sites[ip] = sites.get(ip, 0) + 1
        else:
            rest += 1
    return sites, rest


def kallsyms(path):
    """The generator's guest kallsyms: sorted [(addr, is text, name)]."""
    syms = []
    with open(path) as f:
        for line in f:
            a, t, name = line.split()[:3]
            syms.append((int(a, 16), t in "tT", name))
    return sorted(syms)


def sym_of(syms, ip):
    """kvmtop(1)'s rule: the last symbol at or below ip names it if it is code and under 1 MiB below."""
    i = bisect.bisect_right([a for a, _, _ in syms], ip) - 1
    if i < 0 or not syms[i][1] or ip - syms[i][0] >= 1 << 20:
        return "[unknown]"
    return "%s+0x%x" % (syms[i][2], ip - syms[i][0])


def main():
    dat = os.path.join(TMP, "sites.dat")
    ksyms = os.path.join(TMP, "sites.kallsyms")
    kvmgen(dat, "x86-objects", ["-m", "2", "-v", "2", "-n", "400", "-C", "2", "-s", "11", "-O", "-k", ksyms])
    want = oracle(dat)
    ok(sum(len(v) for v in want.values()) > 500 and any(len(set(v)) > SITES for v in want.values()),
       "the oracle: trace-cmd report's objects, some with more than %d sites" % SITES,
       "%d objects" % len(want))
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "--objects", "4096", "--guest-kallsyms", ksyms])
    j = addr_ints(json.loads(out))
    got, syms_got, sums = {}, {}, []
    for vm in j["vms"]:
        for c in vm["vcpus"]:
            for r in c["reasons"]:
                for o in r["objects"]:
                    if o["kind"] not in KINDS:
                        continue
                    # no direction: null in JSON, "" in the oracle
                    k = (c["tid"], o["kind"], o["object"], o["dir"] or "", o["size_bytes"])
                    got[k] = ({s["ip"]: s["count"] for s in o["sites"]}, o["sites_rest"])
                    syms_got.update({s["ip"]: s["sym"] for s in o["sites"]})
        for r in vm["reasons"]:
            for o in r["objects"]:
                sums.append((sum(s["count"] for s in o["sites"]) + o["sites_rest"] + o["sites_none"], o["count"],
                             o["object"]))
    eq(got, {k: first_sites(v) for k, v in want.items()},
       "per vCPU and object: its first %d sites' exits and the rest, as trace-cmd report's rips say" % SITES)
    syms = kallsyms(ksyms)
    bad = {hex(ip): (s, sym_of(syms, ip)) for ip, s in syms_got.items() if s != sym_of(syms, ip)}
    ok(any(s != "[unknown]" for s in syms_got.values()) and not bad,
       "each site named from the guest's kallsyms (name+0xoff; user-space IPs [unknown])", bad)
    ok(sums and all(a == b for a, b, _ in sums),
       "per VM: an object's sites, the rest and the exits without a site add up to its exits",
       [s for s in sums if s[0] != s[1]][:5])
    # the top site in text, with its share
    rc, out, err = run(["-b", "-r", dat, "-o", "text", "--objects", "4096", "--guest-kallsyms", ksyms])
    tops = {}
    for vm in j["vms"]:
        for r in vm["reasons"]:
            for o in r["objects"][:5]:
                if o["sites"]:
                    tops[(r["reason"], o["object"])] = "site %s %.0f%%" % (o["sites"][0]["sym"],
                                                                        100.0 * o["sites"][0]["count"] / o["count"])
    ok(tops and all(t in out for t in tops.values()),
       "text: each object's line ends with its first site and that site's share of its exits",
       [t for t in tops.values() if t not in out][:3])
    done()


main()
