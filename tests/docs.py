# SPDX-License-Identifier: GPL-2.0
"""Every option in --help and every JSON key kvmtop prints is in man/kvmtop.1."""
import json
import os
import re

from tap import ok, eq, done, run

MAN = os.path.join(os.environ.get("KVMTOP_FORMATS", "tests/formats"), "..", "..", "man", "kvmtop.1")
TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def keys(o, out):
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(k)
            keys(v, out)
    elif isinstance(o, list):
        for v in o:
            keys(v, out)
    return out


def main():
    man = open(MAN).read().replace("\\-", "-")
    rc, out, err = run(["--help"])
    eq(rc, 0, "--help exits 0")
    opts = set(re.findall(r"(--[a-z][a-z-]+)", out)) | set(re.findall(r"^\s+(-[a-zA-Z]),", out, re.M))
    ok(len(opts) >= 10, "--help lists the options (%d)" % len(opts))
    missing = sorted(o for o in opts if o not in man and o.lstrip("-") not in man)
    eq(missing, [], "every --help option is in the man page")

    dat = os.path.join(TMP, "docs.dat")
    gen = os.environ["KVMGEN"]
    os.system("%s -f %s -o %s -x -l -w -n 200 >/dev/null" % (gen, os.path.join(os.environ["KVMTOP_FORMATS"], "x86-6.5"), dat))
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(out)
    unknown = sorted(k for k in keys(j, set()) if '"%s"' % k not in man
                     and k not in ("kvm_pio", "kvm_userspace_exit", "IO"))
    eq(unknown, [], "every JSON key kvmtop prints is in the man page's schema")
    rc, out, err = run(["-b", "-r", dat, "-o", "csv"])
    header = out.splitlines()[0]
    ok(header in man.replace("\n", ""), "the CSV header is in the man page", header)

    # CSV and JSON carry the same reason fields: the CSV columns after the
    # row's scope (vm_pid ... last_cpu) against every JSON reason object's keys,
    # the latency object's flattened in, in the same order.
    # (the handling object's as handling_*), then the vCPU's time states
    states = ["guest_s", "host_s", "vmm_s", "halt_s", "wait_s"]
    groups = ["emulator_run_s", "emulator_wait_s", "vhost_run_s", "vhost_wait_s"]
    # (the row's scope ends with the vCPU's fields: the reason's start at "reason")
    fields = header.split(",")[header.split(",").index("reason"):]
    tail = len(states) + len(groups)
    csv_fields, csv_states = fields[:-tail], fields[-tail:]
    eq(csv_states, states + groups,
       "the CSV ends with the vCPU's time states, guest_s to wait_s, then the VM's thread groups")
    json_sets = set()
    for scope in [j["host"]] + j["vms"] + [c for vm in j["vms"] for c in vm["vcpus"]]:
        for r in scope["reasons"]:
            flat = []
            for k, v in r.items():
                if isinstance(v, list):
                    continue    # the objects: CSV's rows with --fields that name theirs
                if isinstance(v, dict):
                    flat.extend(v.keys() if k == "latency" else [k + "_" + x for x in v])
                else:
                    flat.append(k)
            json_sets.add(tuple(flat))
    ok(len(j["host"]["reasons"]) > 3, "the recording has reasons to compare", j["host"]["reasons"][:1])
    eq(sorted(json_sets), [tuple(csv_fields)],
       "every JSON reason has the CSV's reason fields, in the CSV's order")
    done()


main()
