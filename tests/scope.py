# SPDX-License-Identifier: GPL-2.0
"""What is shown, and in which order: -p, -g, --vcpu, --sort, --fields, -z.

The oracle is this test's own filter and sort of kvmtop's unscoped output
of the same recording: a scoped run must print exactly the unscoped
figures, with the rows the test's filter leaves (the host's and each
shown VM's figures stay whole), in the order the test's sort gives.
--fields help must list the field table (tests/unit/test_fields.c holds
the table to its names); a bad key or field is one line and status 2; a
name that matches no VM is said once, however many snapshots follow.
"""
import csv
import fnmatch
import io
import json
import os

from tap import ok, eq, done, run, kvmgen

TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def recording():
    """Three VMs of four vCPUs named as on their host (--threads), and the ps snapshot."""
    dat = os.path.join(TMP, "scope.dat")
    ps = os.path.join(TMP, "scope.ps")
    kvmgen(dat, "x86-6.5", ["-m", "3", "-v", "4", "-n", "300", "-s", "11", "-P", ps])
    return dat, ps


def jsonl(args):
    rc, out, err = run(args)
    return rc, [json.loads(l) for l in out.splitlines() if l.strip()], err


def shown_findings(j, pids):
    """The findings of the VMs in pids, and the host's (no pid)."""
    return [f for f in j.get("findings", []) if f.get("pid") is None or f["pid"] in pids]


def filtered(j, keep_vm, keep_vcpu=lambda vm, c: True):
    """j with only the VMs keep_vm(vm) and their vCPUs keep_vcpu(vm, c): the test's own scope."""
    out = dict(j)
    vms = []
    for vm in j["vms"]:
        if keep_vm(vm):
            vm = dict(vm)
            vm["vcpus"] = [c for c in vm["vcpus"] if keep_vcpu(vm, c)]
            vms.append(vm)
    out["vms"] = vms
    out["findings"] = shown_findings(j, {vm["pid"] for vm in vms})
    return out


def scope_cases(dat, ps, base):
    vms = base["vms"]
    pid = vms[1]["pid"]
    rc, got, err = jsonl(["-b", "-r", dat, "--threads", ps, "-o", "json", "-p", str(pid)])
    eq(got and got[0], filtered(base, lambda vm: vm["pid"] == pid), "-p PID: that VM alone, every figure as unscoped")
    pids = "%d,%d" % (vms[0]["pid"], vms[2]["pid"])
    rc, got, err = jsonl(["-b", "-r", dat, "--threads", ps, "-o", "json", "-p", pids])
    eq(got and got[0], filtered(base, lambda vm: str(vm["pid"]) in pids.split(",")),
       "-p PID,PID: those VMs, in the unscoped order")
    name = vms[2]["name"]
    glob = name[:3] + "*"
    rc, got, err = jsonl(["-b", "-r", dat, "--threads", ps, "-o", "json", "-g", glob])
    eq(got and got[0], filtered(base, lambda vm: fnmatch.fnmatchcase(vm["name"], glob)),
       "-g GLOB (%s): the VMs whose name it matches" % glob)
    rc, got, err = jsonl(["-b", "-r", dat, "--threads", ps, "-o", "json", "-g", name, "-p", str(vms[0]["pid"])])
    eq(got and got[0], filtered(base, lambda vm: vm["name"] == name or vm["pid"] == vms[0]["pid"]),
       "-g NAME -p PID: the VMs either picks")
    rc, got, err = jsonl(["-b", "-r", dat, "--threads", ps, "-o", "json", "--vcpu", "1,3"])
    eq(got and got[0], filtered(base, lambda vm: True, lambda vm, c: c["vcpu"] in (1, 3)),
       "--vcpu 1,3: those vCPUs of every VM, the VMs' figures whole")


def sort_key(value):
    """As kvmtop orders: rows without a value (null) after the others, whichever the direction."""
    return (value is not None, value if value is not None else 0)


def ordered(rows, key, reverse):
    has = [r for r in rows if key(r) is not None]
    none = [r for r in rows if key(r) is None]
    return sorted(has, key=key, reverse=reverse) + none


def sort_cases(dat, ps, base):
    cases = [
        ("vm_name", lambda vm: vm["name"], None),
        ("-vm_pid", lambda vm: vm["pid"], None),
        ("tid", None, lambda c: c["tid"]),
        ("-vcpu", None, lambda c: c["vcpu"]),
        ("p99", "reason", lambda r: r["latency"]["p99"]),
        ("-count", "reason", lambda r: r["count"]),
    ]
    for key, vmk, ck in cases:
        rc, got, err = jsonl(["-b", "-r", dat, "--threads", ps, "-o", "json", "--sort", key])
        want = json.loads(json.dumps(base))
        rev = not key.startswith("-")
        if vmk == "reason":
            for vm in want["vms"]:
                vm["reasons"] = ordered(vm["reasons"], ck, rev)
                for c in vm["vcpus"]:
                    c["reasons"] = ordered(c["reasons"], ck, rev)
            want["host"]["reasons"] = ordered(want["host"]["reasons"], ck, rev)
        elif vmk:
            want["vms"] = ordered(want["vms"], vmk, rev)
        else:
            for vm in want["vms"]:
                vm["vcpus"] = ordered(vm["vcpus"], ck, rev)
        eq(got and got[0], want, "--sort %s: the unscoped rows in that order (ties as they were)" % key)


def fields_cases(dat, ps):
    rc, out, err = run(["-b", "-r", dat, "--threads", ps, "-o", "csv"])
    base = list(csv.DictReader(io.StringIO(out)))
    names = ["vm_name", "vcpu", "tid", "reason", "count", "p99", "handling_p50"]
    rc, out, err = run(["-b", "-r", dat, "--threads", ps, "-o", "csv", "--fields", ",".join(names)])
    rows = list(csv.reader(io.StringIO(out)))
    eq(rows[0] if rows else None, names,
       "--fields: CSV's columns are exactly those fields, in their order")
    want = [[r[n] for n in names] for r in base]
    eq(rows[1:], want, "--fields: each row's values are the unscoped CSV's of those columns")
    rc, out, err = run(["--fields", "help"])
    fields = [l.split(":", 1)[1].split() for l in out.splitlines() if l.startswith("  ") and " rows:" in l]
    head = next(iter(csv.reader(io.StringIO(run(["-b", "-r", dat, "-o", "csv"])[1]))))
    ok(rc == 0 and len(fields) == 5 and all(n in sum(fields, []) for n in head if not n.startswith("kvm_")),
       "--fields help lists the snapshot's, VM, vCPU, reason and object fields of the table (CSV's among them)", out)
    for args, what in ((["--sort", "nosuch"], "--sort: an unknown field"),
                       (["--fields", "vm_name,nosuch"], "--fields: an unknown field"),
                       (["-b", "--sort", "exits_s", "-r", dat], "--sort: a screen column in batch output")):
        rc, out, err = run(args)
        lines = [l for l in err.splitlines() if l.strip()]
        ok(rc == 2 and len(lines) == 1 and "nosuch" in lines[0] or (rc == 2 and len(lines) == 1 and "exits_s" in lines[0]),
           "%s: one line, status 2" % what, "rc %d: %s" % (rc, err))


def zero_cases():
    """Intervals in which some VMs and vCPUs are idle: -z leaves exactly those out."""
    dat = os.path.join(TMP, "scope-idle.dat")
    kvmgen(dat, "x86-6.5", ["-m", "4", "-v", "2", "-n", "40", "-s", "3", "-d", "50000000"])
    rc, base, err = jsonl(["-b", "-r", dat, "-o", "json", "-d", "0.01"])
    rc, got, err = jsonl(["-b", "-r", dat, "-o", "json", "-d", "0.01", "-z"])

    def busy(x):
        return x["exits"] > 0 or any(x["events"].values()) or any(x["userspace_exits"].values())
    want = [filtered(j, busy, lambda vm, c: busy(c)) for j in base]
    for w, j in zip(want, base):
        w["findings"] = j.get("findings", [])
    if "findings" not in base[0]:
        for w in want:
            w.pop("findings", None)
    dropped = sum(len(j["vms"]) - len(w["vms"]) for j, w in zip(base, want)) + \
        sum(len(vm["vcpus"]) for j in base for vm in j["vms"]) - sum(len(vm["vcpus"]) for w in want for vm in w["vms"])
    ok(dropped > 0, "-z: the recording has idle VMs or vCPUs in some intervals (%d rows)" % dropped)
    eq(got, want, "-z: each snapshot without the VMs and vCPUs that had no KVM events in it")


def unmatched_case(dat, ps):
    rc, out, err = run(["-b", "-r", dat, "--threads", ps, "-d", "0.01", "-g", "no-such-vm", "-p", "4194304"])
    lines = [l for l in err.splitlines() if l.strip()]
    ok(rc == 0 and len(lines) == 2 and "no-such-vm" in lines[0] and "4194304" in lines[1] or
       (rc == 0 and len(lines) == 2 and "no-such-vm" in lines[1] and "4194304" in lines[0]),
       "a name and a pid that match no VM are each said once over many snapshots", err)
    ok(out.count("\nVM ") == 0, "... and no VM is shown", out[:400])
    # a recording is not watched: said once read to its end, as what the recording lacks
    ok(len(lines) == 2 and all("the recording has no VM of that" in l and "keeps watching" not in l for l in lines),
       "... each as 'the recording has no VM of that ...', never 'kvmtop keeps watching for it'", err)


def main():
    dat, ps = recording()
    rc, base, err = jsonl(["-b", "-r", dat, "--threads", ps, "-o", "json"])
    ok(rc == 0 and len(base) == 1 and len(base[0]["vms"]) == 3 and
       all(len(vm["vcpus"]) == 4 for vm in base[0]["vms"]), "the unscoped recording: 3 VMs of 4 vCPUs", err)
    base = base[0]
    scope_cases(dat, ps, base)
    sort_cases(dat, ps, base)
    fields_cases(dat, ps)
    zero_cases()
    unmatched_case(dat, ps)
    done()


if __name__ == "__main__":
    main()
