# SPDX-License-Identifier: GPL-2.0
"""kvmtop's per-reason figures read back from all three batch formats, and
compared with truth worked out elsewhere (the generator's, or trace-cmd's).

Every format is parsed column by column into the same shape,
{scope: {reason label: {field: (value, slack)}}}, where slack is how far
a printed figure may be from the exact one by its rounding alone (0 for
integers; half the last digit of '2.72us').  compare() then holds each
field to its rule: counts, pairs, sum, min and max exact, the mean to its
printed digits, p50/p90/p99/p99.9 within the histogram's promised 1/64
of the exact nearest-rank value (plus the print slack), % to 2 decimals.
A reason without samples in the truth must have no latency figure at all
(null in JSON, an empty CSV cell, "-" in text), one with samples each.
sum_pct (TIME%, perf kvm stat's Time%) is the reason's latency sum, %
of its scope's summed latency (sum_pct_of()): None in the truth where
the reason or the scope has no pairs, and then no figure may be printed.

A scope is "host", ("vm", pid) or ("vcpu", tid); a reason label is the
name, with its flags after a space when it has any ("INVALID_STATE
FAILED_VMENTRY"), and the isa: (label, isa).
"""
import csv
import io
import re

PCTL = ("p50", "p90", "p99", "p999")
TIMES = ("min", "mean") + PCTL + ("max",)
UNIT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


def label(name, flags, isa):
    return ((name + " " + flags) if flags else name, isa)


def duration(text, ns=True):
    """'2.72us' -> (2720.0, 5.0): the value in the recording's unit and its print slack."""
    if not ns:
        return float(text), 0.5
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    if not m:
        raise ValueError("not a duration: %r" % text)
    digits = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
    return float(m.group(1)) * UNIT[m.group(2)], 0.5 * 10 ** -digits * UNIT[m.group(2)]


def exact(v):
    return (v, 0)


def from_json_reasons(reasons):
    """A scope's "reasons" list of kvmtop's JSON."""
    out = {}
    for r in reasons:
        l = r["latency"]
        f = {k: exact(r[k]) for k in ("count", "total")}
        # null: no figure (a row without samples), absent here as text's "-"
        # sum: a decimal string in JSON (it can pass 2^53)
        f.update({k: exact(int(l[k])) for k in ("samples", "min", "max", "sum") + PCTL if l[k] is not None})
        if l["mean"] is not None:
            f["mean"] = (l["mean"], 0.05)
        if l["sum_pct"] is not None:
            f["sum_pct"] = (l["sum_pct"], 0.005)
        if r["pct"] is not None:	# null: the scope had no exit (a share of nothing)
            f["pct"] = (r["pct"], 0.005)
        f["code"] = exact(r["code"])
        f["blocking"] = exact(r["blocking"])
        out[label(r["reason"], r.get("flags", ""), r["isa"])] = f
    return out


def from_json(j):
    """Every scope of one JSON snapshot."""
    out = {"host": from_json_reasons(j["host"]["reasons"])}
    for vm in j["vms"]:
        out[("vm", vm["pid"])] = from_json_reasons(vm["reasons"])
        for c in vm["vcpus"]:
            out[("vcpu", c["tid"])] = from_json_reasons(c["reasons"])
    return out


def from_csv(text, snapshot=None):
    """kvmtop's CSV (one row per vCPU and reason), every column; -> ({scope: ...}, rows)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    out = {}
    for r in rows:
        if snapshot is not None and int(r["snapshot"]) != snapshot:
            continue
        # an empty cell: no figure (a row without samples), absent here as text's "-"
        # a latency figure is CSV's latency_KEY (HACKING, "Names of figures")
        col = {k: k if k in ("count", "total", "code") else "latency_" + k
               for k in ("count", "total", "samples", "min", "max", "sum", "code") + PCTL}
        f = {k: exact(int(r[c])) for k, c in col.items() if r[c] != ""}
        if r["latency_mean"] != "":
            f["mean"] = (float(r["latency_mean"]), 0.05)
        if r["latency_sum_pct"] != "":
            f["sum_pct"] = (float(r["latency_sum_pct"]), 0.005)
        if r["pct"] != "":	# empty: the scope had no exit (a share of nothing)
            f["pct"] = (float(r["pct"]), 0.005)
        out.setdefault(("vcpu", int(r["vcpu_tid"])), {})[label(r["reason"], r["flags"], r["isa"])] = f
    return out, rows


TEXT_COLS = ("isa", "count", "pct", "total") + TIMES
# a VM's and a vCPU's heading: a one-row table, its titles (the fields' titles, kvmtop(1) text),
# then its values, the pid or tid first
VM_HEAD = re.compile(r"^ *PID +VM ")
VCPU_HEAD = re.compile(r"^  +TID +VCPU ")
TEXT_UNPRINTED = ("sum_pct",)	# not a column of the text's default table


# the lines under a reason's: its objects, then how many more there are
OBJ_LINE = re.compile(r"^\s+((port|mmio|msr|apic|hypercall|hv_hypercall|cr|cpuid|vector|hcall|instruction|diagnose|other)\s.*"
                      r" p50 .* p99 .* max .*|\(\d+ more objects\))$")


def from_text(text, ns=True):
    """kvmtop's text tables (per VM, per vCPU), every column; a list of snapshots."""
    snaps, scope, header, heading = [], None, None, None
    for line in text.splitlines():
        if line.startswith("kvmtop "):
            snaps.append({})
            scope, header = None, None
            continue
        if heading:
            scope, heading = (heading, int(line.split()[0])), None
            continue
        if VM_HEAD.match(line) or VCPU_HEAD.match(line):
            heading, header = "vm" if VM_HEAD.match(line) else "vcpu", None
            continue
        if OBJ_LINE.match(line):
            continue    # a reason's object, under its line (kvmtop(1), OBJECTS)
        f = line.split()
        if f and f[0] == "REASON":
            header = f
            if header != ["REASON", "ISA", "COUNT", "%", "TOTAL", "MIN", "MEAN", "P50", "P90", "P99",
                          "P99.9", "MAX"]:
                raise ValueError("text header changed: %r" % line)
            continue
        if header is None or scope is None or len(f) < len(TEXT_COLS) + 1:
            header = None
            continue
        name = " ".join(f[:len(f) - len(TEXT_COLS)])
        vals = dict(zip(TEXT_COLS, f[len(f) - len(TEXT_COLS):]))
        if not (vals["count"].isdigit() and vals["total"].isdigit()):
            header = None	# the table ended (a guest IP section follows)
            continue
        g = {k: exact(int(vals[k])) for k in ("count", "total")}
        if vals["pct"] != "-":	# "-": the scope had no exit (a share of nothing)
            g["pct"] = (float(vals["pct"]), 0.005)
        for k in TIMES:
            if vals[k] != "-":
                g[k] = duration(vals[k], ns)
        snaps[-1].setdefault(scope, {})[(name, vals["isa"])] = g
    return snaps


def no_made_up_latency(got, want, what):
    """A reason without samples in the truth has no latency figure (null, empty, "-"); one with
    samples has each: mismatches as lines.  Text has no sum column: a sum only where got has one."""
    bad = []
    n = want.get("samples")
    if n is None:
        return bad
    for field in TIMES + ("sum",):
        if not n and field in got:
            bad.append("%s %s: without samples, got a figure of it (%r)" % (what, field, got[field][0]))
        elif n and field not in got and field != "sum":
            bad.append("%s %s: %d samples, but no figure" % (what, field, n))
    return bad


def compare(got, want, what, unprinted=()):
    """Mismatches of got against want ({label: {field: value}}), as lines; want's fields only, but
    those unprinted (not a column of got's format)."""
    bad = []
    if set(got) != set(want):
        bad.append("%s: reasons %s, want %s" % (what, sorted(got), sorted(want)))
    for lab in sorted(set(got) & set(want)):
        bad += no_made_up_latency(got[lab], want[lab], "%s %s" % (what, lab))
        for share in ("sum_pct", "pct"):	# a share of nothing is no figure, a share of something is one
            if share in want[lab] and share not in unprinted and (want[lab][share] is None) != (share not in got[lab]):
                bad.append("%s %s %s: got %r, want %r" % (what, lab, share, got[lab].get(share, (None,))[0],
                                                         want[lab][share]))
        for field, w in sorted(want[lab].items()):
            if w is None:
                continue    # no figure: checked above
            if not want[lab].get("samples", 1) and field in TIMES + ("sum",):
                continue    # no figure: no_made_up_latency()
            if field not in got[lab]:
                continue
            g, slack = got[lab][field]
            if field in PCTL:
                good = abs(g - w) * 64 <= w + slack * 64
            elif isinstance(w, float) or slack:
                good = abs(g - w) <= slack + 1e-9 * abs(w)
            else:
                good = g == w
            if not good:
                bad.append("%s %s %s: got %r (+-%g), want %r" % (what, lab, field, g, slack, w))
    return bad


def compare_scopes(got, want, what, skip=(), unprinted=()):
    """compare() for every scope of want ({scope: {label: {field: value}}}) but those in skip."""
    bad = []
    for scope, w in want.items():
        if scope not in skip:
            bad += compare(got.get(scope, {}), w, "%s %s" % (what, scope), unprinted)
    return bad


def pct_of(want_scope):
    """Each reason's share of its scope's exits, as kvmtop prints it (%); where the truth has every
    reason's latency sum, its share of the scope's latency too (sum_pct_of)."""
    total = sum(f["count"] for f in want_scope.values())
    # no exit in the scope: a share of nothing is no figure (null, empty, "-")
    out = {lab: dict(f, pct=100.0 * f["count"] / total if total else None) for lab, f in want_scope.items()}
    return sum_pct_of(out) if all("sum" in f for f in out.values()) else out


def sum_pct_of(want_scope):
    """Each reason's latency sum, % of every reason's in its scope (perf kvm stat's Time%), as
    sum_pct: None (no figure) where the reason has no pairs or the scope's sum is 0."""
    total = sum(f["sum"] for f in want_scope.values() if f.get("samples"))
    return {lab: dict(f, sum_pct=100.0 * f["sum"] / total if total and f.get("samples") else None)
            for lab, f in want_scope.items()}
