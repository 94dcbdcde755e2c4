# SPDX-License-Identifier: GPL-2.0
"""--fields gives exactly the columns asked, --sort takes every field, and
the figures the fields table gained (issue 44): a latency's standard
deviation, the snapshot's wall-clock time, the time unit.

Oracles: the full CSV of the same recording as Python's csv module reads
it (--fields NAME must give that column's values for the same rows, at
the finest level its names ask); Python's own sort of the values printed
(--sort); statistics.pstdev of the generator's latencies (kvmgen -L
lists them); Python's datetime of the recording's times plus the DATE
offset kvmgen wrote (trace-cmd record --date), and datetime.now() for a
live run; the generator's clock for the time unit.
"""
import csv
import datetime
import io
import json
import os
import re
import statistics

from tap import ok, eq, done, run, kvmgen, skip

TMP = os.environ.get("KVMTOP_TMP", "/tmp")

# The columns that say which row a value is of, at each level (--fields help's kinds).
KEYS = {"snapshot": ["snapshot"], "VM": ["vm_pid"], "vCPU": ["vm_pid", "vcpu_tid"],
        "reason": ["vm_pid", "vcpu_tid", "reason"],
        "object": ["vm_pid", "vcpu_tid", "reason", "obj_reason", "obj_object"]}
LEVELS = ["snapshot", "VM", "vCPU", "reason", "object"]


def recording():
    """Two VMs of three vCPUs with sched events, objects, userspace exits; the truth lists latencies."""
    dat = os.path.join(TMP, "fields_exact.dat")
    ps = os.path.join(TMP, "fields_exact.ps")
    truth = kvmgen(dat, "x86-6.5", ["-m", "2", "-v", "3", "-n", "300", "-s", "5", "-O", "-w", "-x", "-L",
                                    "-P", ps], expect=os.path.join(TMP, "fields_exact.json"))
    with open(ps + ".json") as f:
        truth["ps"] = json.load(f)
    return ["-b", "-r", dat, "--threads", ps], truth


def table(rc_out):
    rc, out, err = rc_out
    rows = list(csv.reader(io.StringIO(out)))
    return rc, rows, err


def levels():
    """Each field's kind, as --fields help lists them: {name: level}."""
    rc, out, err = run(["--fields", "help"])
    kind = {}
    for line in out.splitlines():
        if line.startswith("  ") and " rows:" in line:
            lvl, names = line.strip().split(" rows:", 1)
            for n in names.split():
                kind[n] = lvl
    return kind


def csv_cases(base, kind):
    """Every column of the full CSV, alone and with its row's key columns: the same values."""
    rc, full, err = table(run(base + ["-o", "csv"]))
    head = full[0]
    body = [dict(zip(head, r)) for r in full[1:]]
    cols = [c for c in head if not c.startswith(("vm_kvm_", "vcpu_kvm_"))]   # KVM statistics: families
    eq(sorted(set(cols) - set(kind)), [], "every column of the full CSV is a field of the table")
    bad = []
    for c in cols:
        keys = KEYS[kind[c]]
        rc1, alone, err1 = table(run(base + ["-o", "csv", "--fields", c]))
        rc2, keyed, err2 = table(run(base + ["-o", "csv", "--fields", ",".join(keys + [c])]))
        if rc1 or rc2 or not alone or alone[0] != [c] or keyed[0] != keys + [c]:
            bad.append("%s: header %r (rc %d %s)" % (c, alone[:1], rc1, err1.strip()))
            continue
        if [r for r in alone[1:]] != [[r[-1]] for r in keyed[1:]]:
            bad.append("%s: alone, not the keyed run's values" % c)
            continue
        got = {tuple(r[:-1]): r[-1] for r in keyed[1:]}
        if len(got) != len(keyed) - 1:
            bad.append("%s: two rows of one %s" % (c, kind[c]))
            continue
        want = {}
        for r in body:
            want.setdefault(tuple(r[k] for k in keys), set()).add(r[c])
        for k, vals in want.items():
            if len(vals) != 1 or got.get(k) not in vals:
                bad.append("%s at %r: --fields %r, full CSV %r" % (c, k, got.get(k), sorted(vals)))
                break
        else:
            if kind[c] in ("reason", "object") and set(got) != set(want):
                bad.append("%s: rows %d, the full CSV's %d" % (c, len(got), len(want)))
    ok(not bad, "--fields NAME: exactly that column, the full CSV's values, a row per %s" % "/".join(LEVELS[:4]),
       "\n".join(bad))
    return head, body


def level_cases(base, body, truth):
    """Mixed kinds: the finest one's rows, in the order asked; only VM fields: a row per VM."""
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "vm_exits,vm_pid"]))
    eq(got[0] if got else None, ["vm_exits", "vm_pid"], "--fields vm_exits,vm_pid: those columns, in that order")
    pids = sorted(r[1] for r in got[1:])
    eq(pids, sorted("%d" % vm["pid"] for vm in truth_vms(truth)), "only VM fields: one row per VM")
    eq(sorted(int(r[0]) for r in got[1:]), sorted(vm_exits(truth)), "vm_exits: each VM's exits, as generated")
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "vcpu_tid,vm_pid,vcpu_exits"]))
    eq(sorted(got[1:]), sorted(["%d" % t["tid"], "%d" % t["pid"], "%d" % t["exits"]] for t in truth_threads(truth)),
       "a VM's and a vCPU's fields: one row per vCPU thread, its exits as generated")
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "reason,snapshot"]))
    eq(len(got) - 1, len(body), "a reason's field with the snapshot's: a row per (vCPU, reason), as the full CSV")
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "snapshot,time_unit"]))
    eq(got, [["snapshot", "time_unit"], ["1", "ns"]], "only the snapshot's fields: one row per snapshot")
    rc, js, err = run(base + ["-o", "json"])
    objs = sorted(("%d" % vm["pid"], "%d" % c["tid"], r["reason"], o["object"])
                  for vm in json.loads(js)["vms"] for c in vm["vcpus"] for r in c["reasons"] for o in r["objects"])
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "vm_pid,vcpu_tid,reason,obj_object"]))
    ok(objs and sorted(tuple(r) for r in got[1:]) == objs,
       "an object's field: a row per object of each vCPU's reason (%d, as JSON's)" % len(objs))
    for args, name, what in ((["--fields", "vm_pid,no_such"], "no_such", "an unknown field"),
                             (["--fields", "exits_per_s"], "exits_per_s", "a screen column that is no field")):
        rc, out, err = run(base + ["-o", "csv"] + args)
        lines = [l for l in err.splitlines() if l.strip()]
        ok(rc == 2 and len(lines) == 1 and name in lines[0] and not out,
           "batch --fields: %s is refused in one line naming it" % what, "rc %d: %s" % (rc, err))


def truth_threads(truth):
    """The generator's vCPU threads, each with its VM's pid from -P's FILE.json."""
    pid = {tid: vm["pid"] for vm in truth["ps"] for tid in vm["tids"]}
    return [dict(t, pid=pid[t["tid"]]) for t in truth["threads"]]


def truth_vms(truth):
    return [{"pid": vm["pid"]} for vm in truth["ps"]]


def vm_exits(truth):
    per = {}
    for t in truth_threads(truth):
        per[t["pid"]] = per.get(t["pid"], 0) + t["exits"]
    return list(per.values())


def value(s):
    try:
        return float(s)
    except ValueError:
        return s


def sort_cases(base, kind):
    """--sort F on every field: rows of F's kind in Python's order of F's values, within their parent."""
    bad = []
    for f, lvl in kind.items():
        keys = KEYS[lvl] if lvl != "object" else ["vm_pid", "vcpu_tid", "reason", "obj_object"]
        parent = len(keys) - 1 if lvl not in ("snapshot", "VM") else 0
        cols = ",".join(keys + [f])
        rc0, plain, err0 = table(run(base + ["-o", "csv", "--fields", cols]))
        for sign in ("", "-"):
            rc, got, err = table(run(base + ["-o", "csv", "--fields", cols, "--sort", sign + f]))
            if rc or rc0 or sorted(got[1:]) != sorted(plain[1:]):
                bad.append("--sort %s%s: rc %d, rows not the unsorted ones %s" % (sign, f, rc, err.strip()))
                continue
            groups = {}
            for r in got[1:]:
                groups.setdefault(tuple(r[:parent]), []).append(r[-1])
            for g, vals in groups.items():
                if not in_order(vals, sign == "-"):
                    bad.append("--sort %s%s within %r: %r" % (sign, f, g, vals[:12]))
                    break
    ok(not bad, "--sort on each of the %d fields, both ways: the rows in Python's order of the values" % len(kind),
       "\n".join(bad))


def in_order(vals, ascending):
    """Values known first, in order (ties as they come); empty ones (unknown) last.  A known ''
    (an empty string) sorts least: first when ascending, with the unknown ones when not."""
    while ascending and vals and vals[0] == "" and any(v != "" for v in vals):
        vals = vals[1:]
    known = [v for v in vals if v != ""]
    if vals[:len(known)] != known:
        return False
    kv = [value(v) for v in known]
    if any(isinstance(v, str) for v in kv):
        kv = known
    return kv == sorted(kv, reverse=not ascending)


def titles_of():
    """Each field's title, as --fields help's "What each field is" gives it: {name: title}."""
    rc, out, err = run(["--fields", "help"])
    got = {}
    for line in out.split("What each field is", 1)[-1].split("Old names", 1)[0].splitlines()[1:]:
        m = re.match(r"^  (\S+) .* \((.*)\)$", line)
        if m:
            got[m.group(1)] = m.group(2)
    return got


# --fields lists of each level, for text against CSV (titles and values without spaces)
TEXT_LISTS = [["snapshot", "time_unit"], ["vm_exits", "vm_pid"], ["vm_pid", "vcpu_tid", "vcpu_exits", "vcpu"],
              ["vcpu_tid", "reason", "count", "pct", "latency_samples", "handling_samples"],
              ["vcpu_tid", "reason", "obj_kind", "obj_count", "obj_size_bytes"]]


def text_cases(base, titles):
    """-o text --fields: exactly the columns asked, titled by the table's titles, a row per
    row of the finest level asked, the CSV's values ("-" where CSV's cell is empty)."""
    bad = []
    for names in TEXT_LISTS:
        rc1, want, err1 = table(run(base + ["-o", "csv", "--fields", ",".join(names)]))
        rc2, out, err2 = run(base + ["-o", "text", "--fields", ",".join(names)])
        got = [l.split() for l in out.splitlines() if l.strip()]
        want = [[titles[n] for n in names]] + [[c if c != "" else "-" for c in r] for r in want[1:]]
        if rc1 or rc2 or got != want:
            bad.append("%s: got %r, want %r (%s%s)" % (",".join(names), got[:4], want[:4], err1, err2))
    eq(bad, [], "text --fields at every level: exactly the columns asked, their titles, a row per row "
       "of the finest level asked, the CSV's values (\"-\" for an empty cell)")


def sort_vm_cases(base, truth):
    """VMs by their exits (what --sort exits_s could not do): most first."""
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "vm_pid,vm_exits_per_s", "--sort", "vm_exits_per_s"]))
    rates = [float(r[1]) for r in got[1:]]
    ok(rc == 0 and len(rates) == len(truth_vms(truth)) and rates == sorted(rates, reverse=True),
       "--sort vm_exits_per_s: VMs ordered by their exits per second", got)
    rc, txt, err = run(base + ["--sort", "-vm_exits"])
    ok(rc == 0 and txt, "text output takes --sort by a VM's exits too", err)


def stddev_cases(base, truth):
    """Each vCPU's reasons' stddev and handling_stddev against statistics.pstdev of the latencies."""
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "vcpu_tid,code,latency_samples,latency_stddev,handling_stddev,latency_mean"]))
    rows = {(r[0], r[1]): r for r in got[1:]}
    bad, n = [], 0
    for t in truth["threads"]:
        for r in t["reasons"]:
            row = rows.get(("%d" % t["tid"], "%d" % r["code"]))
            if not row:
                bad.append("tid %d code %d: no row" % (t["tid"], r["code"]))
                continue
            for col, lats in ((3, r["values"]), (4, r["handling"]["values"])):
                if not lats:
                    if row[col] != "":
                        bad.append("tid %d code %d: no samples, stddev %r" % (t["tid"], r["code"], row[col]))
                    continue
                want = statistics.pstdev(lats)
                # printed with one decimal: within 0.05 (and a double's rounding)
                if abs(float(row[col]) - want) > 0.051 + want * 1e-9:
                    bad.append("tid %d code %d col %d: %s, pstdev %.3f" % (t["tid"], r["code"], col, row[col], want))
                n += 1
    ok(n > 20 and not bad, "latency_stddev and handling_stddev: Python's pstdev of the generator's latencies (%d)" % n,
       "\n".join(bad))
    rc, js, err = run(base + ["-o", "json"])
    j = json.loads(js)
    lat = [r["latency"] for vm in j["vms"] for c in vm["vcpus"] for r in c["reasons"]]
    ok(lat and all("stddev" in x for x in lat) and all((x["stddev"] is None) == (x["samples"] == 0) for x in lat),
       "JSON: latency.stddev beside the mean, null without samples")
    objs = [o["latency"] for vm in j["vms"] for r in vm["reasons"] for o in r["objects"]]
    ok(objs and all("stddev" in o for o in objs), "JSON: an object's latency.stddev too")


def vm_figures_cases(base, truth):
    """The screen's VM and vCPU figures as fields: vm_exits_pct the VM's share of every thread's
    exits; vm_ and vcpu_latency_mean, _stddev (and vcpu_latency_max) of the latencies of their
    non-blocking reasons' exits (HLT, VMX code 12, waits for the guest: left out), Python's mean
    and pstdev of the generator's values."""
    threads = truth_threads(truth)
    host = sum(t["exits"] for t in threads)
    lats = {}
    for t in threads:
        vals = [v for r in t["reasons"] if r["code"] != 12 for v in r["values"]]
        lats.setdefault(("vm", t["pid"]), []).extend(vals)
        lats[("vcpu", t["tid"])] = vals
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "vm_pid,vm_exits_pct,vm_latency_mean,vm_latency_stddev"]))
    bad = []
    for r in got[1:]:
        pid = int(r[0])
        want = 100.0 * sum(t["exits"] for t in threads if t["pid"] == pid) / host
        if abs(float(r[1]) - want) > 0.0051:
            bad.append("pid %d vm_exits_pct %s, want %.3f" % (pid, r[1], want))
        vals = lats[("vm", pid)]
        for col, w in ((2, statistics.mean(vals)), (3, statistics.pstdev(vals))):
            if abs(float(r[col]) - w) > 0.051 + w * 1e-9:
                bad.append("pid %d %s %s, want %.3f" % (pid, got[0][col], r[col], w))
    ok(rc == 0 and len(got) - 1 == len(truth_vms(truth)) > 1 and not bad,
       "vm_exits_pct: the VM's share of the host's exits; vm_latency_mean and _stddev: its non-blocking exits'",
       "\n".join(bad) or got)
    rc, got, err = table(run(base + ["-o", "csv", "--fields",
                                     "vcpu_tid,vcpu_latency_mean,vcpu_latency_stddev,vcpu_latency_max"]))
    bad = []
    for r in got[1:]:
        vals = lats[("vcpu", int(r[0]))]
        for col, w in ((1, statistics.mean(vals)), (2, statistics.pstdev(vals)), (3, max(vals))):
            if abs(float(r[col]) - w) > 0.051 + w * 1e-9:
                bad.append("tid %s %s %s, want %.3f" % (r[0], got[0][col], r[col], w))
    ok(rc == 0 and len(got) - 1 == len(threads) and not bad,
       "vcpu_latency_mean, _stddev and _max: the vCPU's non-blocking exits' latencies", "\n".join(bad) or got)


def rfc3339(ns):
    t = datetime.datetime.fromtimestamp(ns // 1000000000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % (ns % 1000000000 // 1000)


def wall_cases():
    """A recording with trace-cmd's DATE option: its times are the wall clock; without it none."""
    dat = os.path.join(TMP, "fields_date.dat")
    plain = os.path.join(TMP, "fields_nodate.dat")
    tsc = os.path.join(TMP, "fields_tsc.dat")
    offset_us = 1795850100 * 1000000 + 123456	# 2026-11-28T...
    common = ["-m", "1", "-v", "2", "-n", "50", "-s", "3"]
    kvmgen(dat, "x86-6.5", common + ["-D", "0x%x" % offset_us])
    kvmgen(plain, "x86-6.5", common)
    kvmgen(tsc, "x86-6.5", common + ["-c", "x86-tsc", "-D", "0x%x" % offset_us])
    f = ["-o", "csv", "--fields", "start,end,time,time_unit"]
    rc, d, err = table(run(["-b", "-r", dat] + f))
    rc2, p, err2 = table(run(["-b", "-r", plain] + f))
    ok(len(d) == 2 and len(p) == 2 and int(d[1][1]) - int(p[1][1]) == offset_us * 1000,
       "a recording with a DATE option: its times moved by the offset, as libtracecmd moves them", (d, p))
    eq(d[1][2] if len(d) == 2 else None, rfc3339(int(d[1][1])) if len(d) == 2 else 1,
       "time: the snapshot's end as RFC 3339 in UTC (datetime's)")
    eq(p[1][2:] if len(p) == 2 else None, ["", "ns"], "a recording without a DATE: time empty, time_unit ns")
    rc, t, err = table(run(["-b", "-r", tsc] + f))
    eq(t[1][2:] if len(t) == 2 else t, ["", "cycles"],
       "a recording of TSC counts (x86-tsc): time_unit cycles, no wall-clock time (its DATE is in ns)")
    rc, js, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(js) if rc == 0 else {}
    eq(j.get("time"), d[1][2] if len(d) == 2 else 1, "JSON: the snapshot's \"time\", the same")
    rc, js, err = run(["-b", "-r", plain, "-o", "json"])
    ok(rc == 0 and json.loads(js).get("time", 1) is None, "JSON: time null where the recording has no date")


def live_cases():
    """Live (the demo's statistics where this host traces no exit): each snapshot's time is now."""
    before = datetime.datetime.now(datetime.timezone.utc)
    rc, out, err = run(["--demo", "-b", "-o", "csv", "-n", "2", "-d", "0.3", "--fields", "snapshot,time,time_unit"],
                       timeout=60)
    after = datetime.datetime.now(datetime.timezone.utc)
    rows = list(csv.reader(io.StringIO(out)))
    if rc != 0 or len(rows) < 2:
        skip("live: each snapshot's wall-clock time", "the demo did not run here: %s" % err.strip()[:200])
        return
    try:
        times = [datetime.datetime.strptime(r[1], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
                 for r in rows[1:]]
    except (ValueError, IndexError):
        times = [None]
    slack = datetime.timedelta(seconds=1)
    ok(None not in times and all(before - slack <= t <= after + slack for t in times) and times == sorted(times),
       "live: each snapshot's time is the wall clock then (within a second of datetime.now())",
       "%s .. %s: %s" % (before, after, rows))
    ok(all(r[2] == "ns" for r in rows[1:]), "live: time_unit ns")


# The VM's and vCPU's fields JSON writes in a place of its own (json_apart), by their path there:
# the vCPU's time_seconds, the VM's threads; every other is at the key HACKING's rule gives.
APART = dict([("vcpu_%s_seconds" % st, ("time_seconds", st)) for st in ("guest", "host", "vmm", "halt", "wait")] +
             [("vm_%s_%s_seconds" % (g, w), ("threads", g, w + "_seconds"))
              for g in ("emulator", "vhost") for w in ("run", "wait")])
GROUP_PREFIXES = ("latency", "handling")


def rule_path(name, level):
    """Where HACKING's "Names of figures" puts a field in its row's JSON object: the name less the
    level's prefix, a group's in the group's object (vm_latency_p99: latency.p99)."""
    if (level, name) == ("vCPU", "vcpu"):
        return ("vcpu",)
    rest = name[len({"VM": "vm_", "vCPU": "vcpu_"}[level]):]
    for g in GROUP_PREFIXES:
        if rest.startswith(g + "_"):
            return (g, rest[len(g) + 1:])
    return (rest,)


def at(obj, path):
    """obj's value at path, with whether the key is there (an absent object of its own: None)."""
    for k in path[:-1]:
        obj = obj.get(k)
        if not isinstance(obj, dict):
            return False, None
    return path[-1] in obj, obj.get(path[-1])


def same_value(csv_cell, js):
    """A CSV cell and a JSON value: empty is null, numbers equal to their printed decimals."""
    if csv_cell == "" or js is None:
        return csv_cell == "" and js is None
    if isinstance(js, bool) or isinstance(js, str):
        return csv_cell == ("true" if js is True else "false" if js is False else js)
    dec = len(csv_cell.split(".")[1]) if "." in csv_cell else 0
    try:
        return abs(float(csv_cell) - float(js)) <= 0.5 * 10 ** -dec + 5e-4 + 1e-9 * abs(float(js))
    except ValueError:
        return False


def json_cases(base, kind):
    """issue 44: every VM and vCPU field of --fields help is in JSON's VM and vCPU objects at the key
    the rule gives (or its one place apart), its value CSV's for the same row and snapshot; none of
    the apart ones twice, under the rule's key too."""
    rc, js, err = run(base + ["-o", "json"])
    docs = [json.loads(l) for l in js.splitlines() if l.strip()]
    objs = {"VM": {}, "vCPU": {}}
    for d in docs:
        for vm in d["vms"]:
            objs["VM"][("%d" % d["snapshot"], "%d" % vm["pid"])] = vm
            for c in vm["vcpus"]:
                objs["vCPU"][("%d" % d["snapshot"], "%d" % vm["pid"], "%d" % c["tid"])] = c
    bad, seen = [], 0
    for level, keys in (("VM", ["snapshot", "vm_pid"]), ("vCPU", ["snapshot", "vm_pid", "vcpu_tid"])):
        names = [n for n, k in kind.items() if k == level]
        rc2, got, err2 = table(run(base + ["-o", "csv", "--fields", ",".join(keys + names)]))
        rows = [dict(zip(got[0], r)) for r in got[1:]] if got else []
        ok(rc == 0 and rc2 == 0 and len(rows) == len(objs[level]) > 1,
           "JSON and CSV: a %s object per CSV row (%d, %d)" % (level, len(objs[level]), len(rows)), err + err2)
        for r in rows:
            o = objs[level].get(tuple(r[k] for k in keys))
            if o is None:
                bad.append("%s %r: no JSON object" % (level, [r[k] for k in keys]))
                continue
            for n in names:
                path = APART.get(n, rule_path(n, level))
                has, v = at(o, path)
                if n in APART and at(o, rule_path(n, level))[0]:
                    bad.append("%s: %s twice, at %s too" % (n, ".".join(path), ".".join(rule_path(n, level))))
                if not has and (n not in APART or r[n] != ""):
                    bad.append("%s: no key %s in the %s object" % (n, ".".join(path), level))
                elif not same_value(r[n], v):
                    bad.append("%s at %r: JSON %s %r, CSV %r" % (n, [r[k] for k in keys], ".".join(path), v, r[n]))
                else:
                    seen += 1
    ok(seen > 100 and not bad, "JSON: every VM and vCPU field at its name less vm_/vcpu_ (and group), "
       "its value CSV's (%d compared)" % seen, "\n".join(sorted(set(bad))[:40]))


def rate_cases(base, truth):
    """count_per_s (the reasons pane's RATE/s) and obj_count_per_s: a vCPU's exits of a reason (the
    generator's count) and an object's exits per second of the snapshot's span, as printed."""
    want = {(t["tid"], r["code"]): r["count"] for t in truth_threads(truth) for r in t["reasons"]}
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "start,end,vcpu_tid,code,count,count_per_s"]))
    bad = []
    for r in got[1:]:
        secs = (int(r[1]) - int(r[0])) / 1e9
        n = want.get((int(r[2]), int(r[3])))
        if n is None or int(r[4]) != n or abs(float(r[5]) - n / secs) > 0.0051:
            bad.append("tid %s code %s: count %s count_per_s %s, want %s over %.6f s" % (r[2], r[3], r[4], r[5], n, secs))
    ok(rc == 0 and len(got) - 1 == len(want) and not bad,
       "count_per_s: each vCPU's reason's exits (the generator's) per second of the span", "\n".join(bad[:10]) or got)
    rc, got, err = table(run(base + ["-o", "csv", "--fields", "start,end,obj_count,obj_count_per_s"]))
    bad = [r for r in got[1:] if abs(float(r[3]) - int(r[2]) * 1e9 / (int(r[1]) - int(r[0]))) > 0.0051]
    ok(rc == 0 and len(got) > 2 and not bad, "obj_count_per_s: each object's exits per second of the span",
       bad[:10] or got[:3])


def main():
    base, truth = recording()
    kind = levels()
    ok(set(kind.values()) == set(LEVELS), "--fields help lists the snapshot's, VM, vCPU, reason and object fields")
    head, body = csv_cases(base, kind)
    every = sorted(kind)
    rc, got, err = table(run(base + ["-o", "csv", "--fields", ",".join(every)]))
    eq(got[0] if got else err, every, "--fields with every field of the table (a long list): each one, in order")
    level_cases(base, body, truth)
    text_cases(base, titles_of())
    sort_vm_cases(base, truth)
    sort_cases(base, kind)
    stddev_cases(base, truth)
    vm_figures_cases(base, truth)
    rate_cases(base, truth)
    json_cases(base, kind)
    wall_cases()
    live_cases()
    done()


main()
