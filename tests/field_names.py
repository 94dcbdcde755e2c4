# SPDX-License-Identifier: GPL-2.0
"""One name per figure (HACKING, "Names of figures"): every name each output prints -- the CSV
header, JSON's keys walked recursively, the text's column titles, the screen's column names
(--fields help's per-pane lists, those of F2 and the settings file), the metrics' names and
labels -- is a field of the table or follows the rule: CSV column = [level_][group_]key, rates
_per_s, durations _seconds, never _s, _bps or _pps.  Old names still read in --fields and --sort
with exactly one notice line naming each old -> new.

The oracle is the rule as written here, and the old -> new pairs listed below from issue 44 (not
read from kvmtop); the table's names are read from --fields help.
"""
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile

from tap import ok, eq, done, run, kvmtop, wait_line
import kstat_fixture as kf

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
LEVEL = {"snapshot": "", "VM": "vm_", "vCPU": "vcpu_", "reason": "", "object": "obj_"}
SNAPSHOT = ["snapshot", "start", "end", "time", "time_unit"]
GROUPS = ("latency", "handling")
# issue 44's renames, each an old name a user's scripts and settings files may hold
OLD = {"vm_display": "vm_display_name", "vm_vcpus": "vm_vcpu_count", "vm_exits_s": "vm_exits_per_s",
       "p99": "latency_p99", "samples": "latency_samples", "mem_rss": "vm_mem_rss_bytes",
       "net_rx_bps": "vm_net_rx_bytes_per_s", "net_rx_pps": "vm_net_rx_packets_per_s",
       "net_drops_s": "vm_net_drops_per_s", "majflt_s": "vm_majflt_per_s", "guest_s": "vcpu_guest_seconds",
       "halt_s": "vcpu_halt_seconds", "preempted_s": "preempted_seconds", "emulator_run_s": "vm_emulator_run_seconds",
       "object_kind": "obj_kind", "object_name": "obj_name", "obj_p99": "obj_latency_p99", "tid": "vcpu_tid",
       "last_cpu": "vcpu_last_cpu", "size": "obj_size_bytes", "disk_rd_bps": "vm_disk_rd_bytes_per_s"}


def bad_suffix(name):
    """What is wrong with name's unit suffix, "" if nothing."""
    if name.endswith("_s") and not name.endswith("_per_s"):
        return "_s (a rate ends _per_s, a duration _seconds)"
    for s in ("_bps", "_pps", "_secs", "_sec", "_ms", "_us", "_kb", "_kib"):
        if name.endswith(s):
            return s
    return ""


def table():
    """--fields help: ({name: level}, {pane: [column names]}, [(old, new, pane)], {title: {levels}})."""
    rc, out, err = run(["--fields", "help"])
    kinds, panes, olds, titles = {}, {}, [], {}
    families = re.findall(r"^Families, .*?: (.*)$", out, re.M)
    part = out.split("The screen's columns", 1)
    for line in part[0].splitlines()[1:]:
        m = re.match(r"^  (\S+) rows: (.*)$", line)
        if m:
            kinds.update((n, m.group(1)) for n in m.group(2).split())
    for line in part[1].split("What each field is", 1)[0].splitlines()[1:]:
        m = re.match(r"^  (.*) pane: (.*)$", line)
        if m:
            panes[m.group(1)] = m.group(2).split()
    for line in out.split("Old names, still read", 1)[-1].splitlines()[1:]:
        m = re.match(r"^\s+(\S+)\s+-> (\S+)(?: \[(\S+)\])?$", line)
        if m:
            olds.append(m.groups())
    for line in out.split("What each field is", 1)[-1].split("Old names", 1)[0].splitlines()[1:]:
        m = re.match(r"^  (\S+) .* \((.*)\)$", line)
        if m and m.group(1) in kinds:
            titles.setdefault(m.group(2), set()).add(kinds[m.group(1)])
    return kinds, panes, olds, titles, (families[0].split() if families else [])


def rule_cases(kinds):
    """Each field of the table: its level's prefix, one unit suffix."""
    bad = []
    for n, k in kinds.items():
        if k == "snapshot" and n not in SNAPSHOT:
            bad.append("%s: a snapshot's field not of %s" % (n, SNAPSHOT))
        elif k in ("VM", "object") and not n.startswith(LEVEL[k]):
            bad.append("%s: a %s's field without %s" % (n, k, LEVEL[k]))
        elif k == "vCPU" and not (n == "vcpu" or n.startswith("vcpu_")):
            bad.append("%s: a vCPU's field without vcpu_" % n)
        elif k == "reason" and n.startswith(("vm_", "vcpu_", "obj_")):
            bad.append("%s: a reason's field with a level's prefix" % n)
        if bad_suffix(n):
            bad.append("%s: ends %s" % (n, bad_suffix(n)))
    ok(len(kinds) > 100, "--fields help lists the table's fields by level (%d)" % len(kinds))
    eq(bad, [], "every field of the table: its level's prefix, one unit suffix (HACKING)")


def csv_cases(dat, kinds):
    rc, out, err = run(["-b", "-r", dat, "-o", "csv"])
    head = next(csv.reader(io.StringIO(out)), [])
    ok(rc == 0 and len(head) > 80, "CSV: the header read (%d columns)" % len(head), err)
    eq([c for c in head if c not in kinds], [], "CSV: every column is a field of the table, by its name")
    cols = [n for n in kinds if kinds[n] != "object"]
    eq(head, cols, "CSV: the snapshot's, VM's, vCPU's and reason's fields, in the table's order")


def json_row(obj, level, kinds, where, bad):
    """A row's keys against the rule: its scalars LEVEL+key, its groups' LEVEL+group_key."""
    prefix = LEVEL[level]
    for k, v in obj.items():
        if isinstance(v, dict) and k in GROUPS:
            for g in v:
                if kinds.get(prefix + k + "_" + g) != level:
                    bad.append("%s: %s.%s is no %s field %s%s_%s" % (where, k, g, level, prefix, k, g))
        elif not isinstance(v, (dict, list)):
            name = "vcpu" if (level, k) == ("vCPU", "vcpu") else prefix + k
            if kinds.get(name) != level:
                bad.append("%s: %s is no %s field %s" % (where, k, level, name))


def walk(o, path, out):
    """Every key of o with where it is: [(key, path)]."""
    if isinstance(o, dict):
        for k, v in o.items():
            out.append((k, path))
            walk(v, path + "." + k, out)
    elif isinstance(o, list):
        for v in o:
            walk(v, path + "[]", out)
    return out


def json_cases(dat, kinds):
    """JSON: each row's keys its fields' names less level and group; no key of another unit's suffix."""
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(out)
    every = walk(j, "", [])
    ok(len(every) > 200, "JSON: its keys walked (%d)" % len(every))
    eq(sorted(set("%s.%s" % (p, k) for k, p in every if bad_suffix(k))), [],
       "JSON: no key ends _s (but _per_s), _bps or _pps")
    # the keys JSON writes apart from a row's fields (HACKING: JSON nests them), by their place
    apart = {"reasons", "objects", "vcpus", "events", "userspace_exits", "ips", "ip_samples", "time_seconds",
             "time_source", "threads", "stolen_by", "sites", "sites_rest", "sites_none", "kvm_stats",
             "numa_node_bytes", "net_interfaces"}
    bad = []
    for vm in j["vms"]:
        json_row({k: v for k, v in vm.items() if k not in apart}, "VM", kinds, "vms[]", bad)
        for c in vm["vcpus"]:
            json_row({k: v for k, v in c.items() if k not in apart}, "vCPU", kinds, "vcpus[]", bad)
    reasons = [r for s in [j["host"]] + j["vms"] + [c for vm in j["vms"] for c in vm["vcpus"]] for r in s["reasons"]]
    for r in reasons:
        json_row({k: v for k, v in r.items() if k not in apart}, "reason", kinds, "reasons[]", bad)
        for o in r["objects"]:
            json_row({k: v for k, v in o.items() if k not in apart}, "object", kinds, "objects[]", bad)
    objs = sum(len(r["objects"]) for r in reasons)
    ok(len(reasons) > 5 and objs > 5, "JSON: reasons and objects to check (%d, %d)" % (len(reasons), objs))
    eq(sorted(set(bad)), [], "JSON: a VM's, vCPU's, reason's and object's keys are their fields' names less "
       "level and group (CSV column = [level_][group_]key)")


def text_cases(dat, titles):
    """Text: its table's columns are the reason fields' titles (a recording's text has no NAME=value
    labels: the live context and identity lines' are checked by context.py and identity.py)."""
    rc, out, err = run(["-b", "-r", dat])
    heads = [l.split() for l in out.splitlines() if l.split()[:1] == ["REASON"]]
    ok(rc == 0 and heads, "text: its reasons' tables read (%d)" % len(heads), err)
    eq(sorted(set(t for h in heads for t in h if "reason" not in titles.get(t, ()))), [],
       "text: every column title is a reason field's title (--fields help)")


def screen_cases(panes, kinds, olds):
    """The screen's column names: none an old name of its pane, none of another unit's suffix."""
    every = [(p, c) for p, cs in panes.items() for c in cs]
    ok(len(every) > 50 and "VMs" in panes and "vCPUs" in panes, "--fields help lists each pane's columns (%d)"
       % len(every))
    eq([(p, c) for p, c in every if bad_suffix(c)], [], "screen: no column name ends _s (but _per_s), _bps or _pps")
    # the thieves pane's tid is the thief's thread (any thread of the host), no vCPU's
    renamed = [(p, c) for p, c in every if (p, c) != ("thieves", "tid") and
               any(o == c and (not pn or pn == p) for o, n, pn in olds)]
    eq(renamed, [], "screen: no pane's column keeps an old name")
    want = {"VMs": ["vm_name", "vm_pid", "vm_vcpu_count", "vm_mem_rss_bytes", "vm_display_name", "vm_uuid"],
            "vCPUs": ["vcpu", "vcpu_tid", "vcpu_comm", "vcpu_last_cpu", "vcpu_node"],
            "reasons": ["count", "latency_p99", "preempted_seconds", "blocked_seconds"],
            "objects": ["obj_size_bytes", "obj_count", "obj_latency_p99", "obj_site_pct"]}
    eq({p: [c for c in w if c in panes.get(p, [])] for p, w in want.items()}, want,
       "screen: a field's column named as the field (VMs, vCPUs, reasons, objects)")
    # issue 44: the VMs and vCPUs panes show no figure of their own, every column is a field of the
    # table of the pane's level (its value the field's getter's), no exception
    level = {"VMs": "VM", "vCPUs": "vCPU"}
    eq({p: [c for c in panes.get(p, []) if kinds.get(c) != lv] for p, lv in level.items()}, {"VMs": [], "vCPUs": []},
       "screen: every column of the VMs and vCPUs panes is a VM's / vCPU's field of the table, by its name")
    # ... and of the reasons and objects panes, but the reasons pane's latency histogram: a drawing
    # of the histogram (hist), no figure
    level = {"reasons": "reason", "objects": "object"}
    eq({p: [c for c in panes.get(p, []) if kinds.get(c) != lv and (p, c) != ("reasons", "hist")]
        for p, lv in level.items()}, {"reasons": [], "objects": []},
       "screen: every column of the reasons and objects panes is a reason's / object's field, by its name "
       "(but the histogram's drawing)")


def metrics_cases(dat, kinds):
    """The metrics: kvmtop_ names, counters _total, no _s/_bps/_pps; kvmtop_vm_info's labels the
    VM fields' JSON keys."""
    rc, out, err = run(["-b", "-r", dat, "-o", "prometheus", "--metrics-identity"])
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", out, re.M))
    series = re.findall(r"^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? ", out, re.M)
    ok(rc == 0 and len(types) > 5 and series, "metrics: the exposition read (%d families)" % len(types), err)
    eq(sorted(n for n in types if not n.startswith("kvmtop_")), [], "metrics: every name starts kvmtop_")
    eq(sorted(n for n, t in types.items() if t == "counter" and not n.endswith("_total")), [],
       "metrics: every counter ends _total")
    eq(sorted(n for n in types if bad_suffix(n)), [], "metrics: no name ends _s, _bps or _pps")
    labels = set(l for _, ls in series for l in re.findall(r'(\w+)="', ls or ""))
    eq(sorted(l for l in labels if bad_suffix(l)), [], "metrics: no label ends _s, _bps or _pps")
    info = [re.findall(r'(\w+)="', ls) for n, ls in series if n == "kvmtop_vm_info"]
    ok(info, "metrics: --metrics-identity, kvmtop_vm_info series")
    eq(sorted(set(l for ls in info for l in ls[2:] if kinds.get("vm_" + l) != "VM")), [],
       "metrics: kvmtop_vm_info's labels after vm and pid are VM fields' JSON keys (display_name ...)")
    # vm and pid are vm_name and vm_pid: a label of the same field again (name: vm_name's key) is
    # one figure under two names
    eq(sorted(set(l for ls in info for l in ls[2:] if "vm_" + l in ("vm_name", "vm_pid"))), [],
       "metrics: no kvmtop_vm_info label is vm_name or vm_pid again (the display name is display_name)")


def kstat_key(name, flags):
    """A KVM statistic's <stat> by the rule (HACKING, "families"), from its descriptor as the
    fixture writes it: a histogram as named; a duration _ns, a size _bytes, cycles _cycles, the
    kernel's own unit word replaced; a count or a boolean as named."""
    kind, unit = flags & 0xf, flags & 0xf0
    suffix = {kf.U_SECONDS: "_ns", kf.U_BYTES: "_bytes", kf.U_CYCLES: "_cycles"}.get(unit, "")
    if kind in (kf.LIN, kf.LOG) or not suffix:
        return name
    return re.sub(r"_(ns|us|ms|seconds|secs|sec|s|bytes|kb|kib|mb|mib|gb|gib|cycles)$", "", name) + suffix


def kstat_cases(families):
    """KVM's statistics (--source stats on tests/kstat_fixture.py's files): every name CSV, JSON,
    text and the metrics print is its family's, vcpu_kvm_<stat> / vm_kvm_<stat>, <stat> by the
    rule from the fixture's descriptors (the kernel's unit and exponent), and passes the rule."""
    eq(families, ["vm_kvm_<stat>", "vcpu_kvm_<stat>"], "--fields help lists the KVM statistics' families")
    want = {"vCPU": set(kstat_key(d[0], d[1]) for d in kf.VCPU if d[1] & 0xf < 5),
            "VM": set(kstat_key(d[0], d[1]) for d in kf.VM if d[1] & 0xf < 5)}
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-names-")
    outs = {}
    try:
        kf.proc_vm(root, 4700, "names", {0: (4701, "CPU 0/KVM", True)})
        for fmt in ("csv", "json", "text", "prometheus"):
            kf.vm_stats(root, 4700, {"pages_4k": 1, "mmu_cache_bytes": 1, "remote_tlb_flush": 1,
                                     "max_mmu_rmap_size": 1}, {0: kf.vcpu_vals(1, [0] * 32, [0] * 4)})
            p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "-o", fmt, "-d", "0.3",
                                  "-n", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            wait_line(p, "binary statistics")
            # everything grows, that text's line (its non-zero figures) names each
            v = {k: (x + 7 if isinstance(x, int) else x) for k, x in kf.vcpu_vals(2, [0] * 32, [0] * 4).items()}
            v.update((d[0], 9) for d in kf.VCPU if d[3] == 1 and d[0] not in v)
            kf.vm_stats(root, 4700, {"pages_4k": 2, "mmu_cache_bytes": 2, "remote_tlb_flush": 2,
                                     "max_mmu_rmap_size": 2}, {0: v})
            out, err = p.communicate(timeout=30)
            outs[fmt] = out.decode()
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        shutil.rmtree(root, ignore_errors=True)
    prefix = {"vCPU": "vcpu_kvm_", "VM": "vm_kvm_"}
    full = set(prefix[k] + n for k in want for n in want[k])
    head = next(csv.reader(io.StringIO(outs["csv"])), [])
    got = [c for c in head if "kvm" in c]
    eq(sorted(got), sorted(full), "CSV: each KVM statistic's column is its family's name, <stat> by the rule")
    eq([c for c in got if bad_suffix(c)], [], "CSV: no KVM statistic's column ends _s, _bps, _pps, _ms or _us")
    j = json.loads(outs["json"].splitlines()[-1]) if outs["json"].strip() else {"vms": []}
    vm = next((v for v in j["vms"] if v["pid"] == 4700), {"kvm_stats": {}, "vcpus": [{}]})
    eq((sorted(vm["kvm_stats"]), sorted(vm["vcpus"][0].get("kvm_stats", {}))), (sorted(want["VM"]), sorted(want["vCPU"])),
       "JSON: kvm_stats' keys are the fields' names less vm_kvm_ / vcpu_kvm_")
    info = j.get("kvm_stats_info", {})
    eq((sorted(info.get("vm", {})), sorted(info.get("vcpu", {}))), (sorted(want["VM"]), sorted(want["vCPU"])),
       "JSON: kvm_stats_info's keys the same")
    text = re.findall(r"(\w+)=\d+", " ".join(l for l in outs["text"].splitlines() if "kvm stats:" in l))
    hists = set(prefix[k] + d[0] for k, ds in (("vCPU", kf.VCPU), ("VM", kf.VM)) for d in ds
                if d[1] & 0xf in (kf.LIN, kf.LOG))
    eq(sorted(set(text)), sorted(full - hists), "text: its kvm stats line names each single statistic by its field's name")
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", outs["prometheus"], re.M))
    ok(types, "metrics: the stats source's exposition read (%d families)" % len(types))
    eq(sorted(n for n in types if not n.startswith("kvmtop_") or bad_suffix(n) or
              (types[n] == "counter" and not n.endswith("_total"))), [],
       "metrics: of the stats source, every name kvmtop_, counters _total, no _s, _bps or _pps")


def old_cases(dat, kinds, olds, panes):
    """Old names: the table's pairs are issue 44's; each still read, with exactly one notice."""
    table = dict((o, n) for o, n, pn in olds if not pn)
    eq({o: table.get(o) for o in OLD}, OLD, "the old names table holds issue 44's renames")
    eq(sorted(o for o, n, pn in olds if o in kinds and not pn), [], "no old name is a field's name now")
    # a pane's old column name may be another level's field (the VMs pane's total, the reasons
    # pane's field): never a column of that pane now, and its new name is one
    eq(sorted((o, pn) for o, n, pn in olds if pn and (o in panes.get(pn, []) or n not in panes.get(pn, []))), [],
       "a pane's old column name: no column of the pane now, its new name one")
    names = list(OLD)
    rc, out, err = run(["-b", "-r", dat, "-o", "csv", "--fields", ",".join(names), "--sort", "-p99"])
    head = next(csv.reader(io.StringIO(out)), [])
    lines = [l for l in err.splitlines() if l.strip()]
    eq((rc, head), (0, [OLD[o] for o in names]), "--fields of old names: the new names' columns, in that order")
    ok(len(lines) == 1 and all("%s -> %s" % (o, n) in lines[0] for o, n in OLD.items())
       and lines[0].count("p99 -> latency_p99") == 1,
       "--fields and --sort of old names: exactly one line on stderr, naming each old -> new once", err)
    rc2, new, err2 = run(["-b", "-r", dat, "-o", "csv", "--fields", ",".join(OLD[o] for o in names),
                          "--sort", "-latency_p99"])
    ok(rc2 == 0 and new == out and not err2.strip(), "the new names: the same CSV, no notice", err2)
    rc, out, err = run(["-b", "-r", dat, "-o", "csv", "--sort", "vm_vcpus", "--fields", "vm_name"])
    ok(rc == 0 and err.strip() == "kvmtop: old names read as new (kvmtop(1), HISTORY): vm_vcpus -> vm_vcpu_count",
       "--sort of an old name alone: one notice line", err)


def main():
    dat = os.path.join(TMP, "field_names.dat")
    gen = os.environ["KVMGEN"]
    os.system("%s -f %s -o %s -x -l -w -O -n 300 >/dev/null" % (gen, os.path.join(os.environ["KVMTOP_FORMATS"],
                                                                                  "x86-6.5"), dat))
    kinds, panes, olds, titles, families = table()
    rule_cases(kinds)
    csv_cases(dat, kinds)
    json_cases(dat, kinds)
    text_cases(dat, titles)
    screen_cases(panes, kinds, olds)
    metrics_cases(dat, kinds)
    old_cases(dat, kinds, olds, panes)
    kstat_cases(families)
    done()


main()
