# SPDX-License-Identifier: GPL-2.0
"""The real arm64 and AMD excerpts of ../shared/traces/snippets, reproduced
as recordings by tests/snippet.py: kvmtop -b must report the excerpt's
reasons (by the kernel's names), counts and exit -> entry latencies per
thread, worked out from the text.  tests/tui.py checks their order and
guest PCs in the recent-exits pane.
"""
import json
import os

from tap import ok, eq, skip, done, run, traces, u64
from snippet import SNIPPETS, make, expected

TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def main():
    for name in sorted(SNIPPETS):
        r = make(name, os.environ["KVMGEN"], os.environ["KVMTOP_FORMATS"], traces(), TMP)
        if not r:
            skip(name, "../shared/traces not found")
            continue
        dat, evs = r
        ok(any(e["ev"] == "exit" for e in evs), "%s: the excerpt has exits (%d events)" % (name, len(evs)))
        rc, out, err = run(["-b", "-r", dat, "--summary", "-o", "json"])
        if not eq(rc, 0, name + ": exit status 0"):
            print("# " + err)
            continue
        j = json.loads(out)
        got = {}
        for vm in j["vms"]:
            for c in vm["vcpus"]:
                got[c["tid"]] = {r["reason"]: [r["count"], r["latency"]["samples"], u64(r["latency"]["sum"]),
                                               r["latency"]["min"] if r["latency"]["samples"] else None,
                                               r["latency"]["max"]] for r in c["reasons"]}
        eq(got, expected(evs), name + ": per thread, reasons by the kernel's names, counts, exit->entry latencies")
        isa = "arm64" if SNIPPETS[name][1].startswith("arm") else "svm"
        eq(sorted(set(r["isa"] for r in j["host"]["reasons"])), [isa], name + ": isa " + isa)
    done()


main()
