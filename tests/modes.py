# SPDX-License-Identifier: GPL-2.0
"""The screen's modes against truths kvmtop does not compute, driven in a real terminal (tmux).

A recording: tests/kvmgen -w -d STEP writes, besides the recording, its truth per interval of
STEP and per vCPU thread: exits and the time in each state (guest, host, vmm, halt, wait).
Each mode -- the whole recording, S, ] to interval k and to the last, S after ], [ back with
S on -- is checked twice on the VMs pane and the header:
 (1) against the truth over the span the mode covers: exits/s and TOTAL, HALT% (the halt
     state's share of the vCPUs' wall time) and UTIL% (guest + host + VMM);
 (2) against the JSON line that the screen wrote of the same snapshot (KVMTOP_SCREEN_JSON, the
     -b -o json writer over the span and in the mode shown): a pane that computes a figure its
     own way disagrees with it.

Live: --source stats on a fixture of KVM's binary statistics (tests/kstat_fixture.py; this
host's KVM fires no kvm_exit): the exits of the fixture are the truth.  r restarts every count
and rate at the reset, Z freezes header and rows alike, and the s/d prompt starts empty and
its value replaces the delay.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, kvmgen
from kstat_fixture import proc_vm, vm_stats, vcpu_vals, put

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
W, H = 160, 30
SOCK = [None]
SOCK_DIR = tempfile.mkdtemp(prefix="kvmtop-modes-")
STEP = 100000000       # the recording's intervals: -d 0.1


def tmux(*args):
    return subprocess.run(["tmux", "-S", SOCK[0]] + list(args), capture_output=True, timeout=20)


def screen():
    return tmux("capture-pane", "-p", "-t", "k").stdout.decode("utf-8", "replace").splitlines()


def keys(*k):
    tmux("send-keys", "-t", "k", *k)


def settled(pred, timeout=10):
    """The screen once pred holds and two captures 0.2 s apart agree (None: pred never held)."""
    end = time.time() + timeout
    last = None
    while time.time() < end:
        lines = screen()
        if pred(lines) and lines == last:
            return lines
        last = lines if pred(lines) else None
        time.sleep(0.2)
    return None


def start(args, dump):
    if SOCK[0]:
        tmux("kill-server")
    start.n = getattr(start, "n", 0) + 1
    SOCK[0] = os.path.join(SOCK_DIR, "tmux-%d.sock" % start.n)
    if os.path.exists(dump):
        os.unlink(dump)
    cmd = "XDG_CONFIG_HOME=%s KVMTOP_SCREEN_JSON=%s %s %s; echo KVMTOP-EXIT=$?; sleep 60" % (
        SOCK_DIR, dump, kvmtop(), " ".join(args))
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "k", "-x", str(W), "-y", str(H), cmd)
    tmux("set-option", "-t", "k", "status", "off")


def last_dump(dump):
    try:
        with open(dump) as f:
            lines = f.read().splitlines()
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None


def parse(lines):
    """What the header and the VMs pane's one row show: {exits_s, total, head_total, halt, util}."""
    if not lines or len(lines) < 5:
        return None
    m = re.search(r"host: exits(/s)? (\S+)\s+lost \d+\s+total (\d+)", lines[1])
    head = [l for l in lines if "EXITS/s" in l and "TOTAL" in l]
    rows = [l for l in lines[4:] if l.startswith("unknown@")]
    if not m or not head or not rows:
        return None
    cell = {}
    for c in ("EXITS/s", "TOTAL", "HALT%", "UTIL%"):
        e = head[0].find(c) + len(c)
        cell[c] = rows[0][e - 10:e + 1].split()[-1] if head[0].find(c) >= 0 else None
    return {"head_rate": m.group(2), "head_total": int(m.group(3)), "exits_s": cell["EXITS/s"],
            "total": cell["TOTAL"], "halt": cell["HALT%"], "util": cell["UTIL%"]}


def truth_span(truth, k, cumulative):
    """The truth over what interval k (0: the whole recording) shows: (start, end, exits,
    exits since the start, halt ns, util ns, vCPUs)."""
    first, last, ivs = truth["first"], truth["last"], truth["intervals"]
    nv = len(truth["threads"])

    def add(parts):
        ex = sum(t["exits"] for iv in parts for t in iv["threads"])
        halt = sum(t["time"]["halt"] for iv in parts for t in iv["threads"])
        util = sum(t["time"][s] for iv in parts for t in iv["threads"] for s in ("guest", "host", "vmm"))
        return ex, halt, util
    if k == 0:
        ex = sum(t["exits"] for t in truth["threads"])
        halt = sum(t["time"]["halt"] for t in truth["threads"])
        util = sum(t["time"][s] for t in truth["threads"] for s in ("guest", "host", "vmm"))
        return first, last, ex, ex, halt, util, nv
    end = min(first + k * STEP, last)
    since = add(ivs[:k])[0]
    if cumulative:
        ex, halt, util = add(ivs[:k])
        return first, end, ex, since, halt, util, nv
    ex, halt, util = add(ivs[k - 1:k])
    return first + (k - 1) * STEP, end, ex, since, halt, util, nv


def rate_text(n, secs):
    r = n / secs
    return "%.2f" % r if r < 10 else "%.0f" % r


def close_rate(got, want):
    try:
        return abs(float(got) - float(want)) <= max(1.0, 0.0005 * float(want))
    except (TypeError, ValueError):
        return False


def close_pct(got, want):
    try:
        return abs(float(got) - want) <= 0.051
    except (TypeError, ValueError):
        return False


def check_mode(label, lines, truth, k, cumulative, dump):
    """(1) the screen against the truth of its span, (2) against the JSON it wrote of it."""
    got = parse(lines)
    s, e, ex, since, halt, util, nv = truth_span(truth, k, cumulative)
    secs = (e - s) / 1e9
    want = {"exits_s": rate_text(ex, secs), "total": since, "halt": 100.0 * halt / (e - s) / nv,
            "util": 100.0 * util / (e - s) / nv}
    bad = []
    if not got:
        bad.append("no header or VM row on the screen")
    else:
        for c in ("exits_s", "head_rate"):
            if not close_rate(got[c], want["exits_s"]):
                bad.append("%s %s, want %s" % (c, got[c], want["exits_s"]))
        if got["total"] != str(since) or got["head_total"] != since:
            bad.append("TOTAL %s header total %s, want %d" % (got["total"], got["head_total"], since))
        for c in ("halt", "util"):
            if not close_pct(got[c], want[c]):
                bad.append("%s %s, want %.2f" % (c, got[c], want[c]))
    ok(not bad, "%s: exits/s, TOTAL, HALT%%, UTIL%% are the truth's over [%d, %d]" % (label, s, e),
       "\n".join(bad + (lines or [])[:6]))
    d = last_dump(dump)
    bad = []
    if not d or not got:
        bad.append("no JSON dump (%r) or no screen" % (d is not None))
    else:
        vm = d["vms"][0]
        ts = {}
        for v in vm["vcpus"]:
            for st, x in (v.get("time_seconds") or {}).items():
                ts[st] = ts.get(st, 0) + x
        if (int(d["start"]), int(d["end"])) != (s, e):
            bad.append("dump span [%s, %s]" % (d["start"], d["end"]))
        if not close_rate(got["exits_s"], rate_text(vm["exits"], d["seconds"])) or \
                not close_rate(got["head_rate"], d["host"]["exits_per_s"]):
            bad.append("exits/s %s %s, dump %s" % (got["exits_s"], got["head_rate"], vm["exits_per_s"]))
        if got["total"] != str(vm["exits_total"]):
            bad.append("TOTAL %s, dump %s" % (got["total"], vm["exits_total"]))
        n = len(vm["vcpus"])
        for c, secs_in in (("halt", ts.get("halt", 0)),
                           ("util", ts.get("guest", 0) + ts.get("host", 0) + ts.get("vmm", 0))):
            if not close_pct(got[c], 100.0 * secs_in / d["seconds"] / n):
                bad.append("%s %s, dump's %.2f" % (c, got[c], 100.0 * secs_in / d["seconds"] / n))
    ok(not bad, "%s: the screen shows the JSON of the same snapshot (KVMTOP_SCREEN_JSON)" % label,
       "\n".join(bad))


def shows(k, nr, cumulative):
    """The title says interval k (0: the whole recording) and the header's mode."""
    what = "whole recording" if k == 0 else "interval %d/%d" % (k, nr)

    def pred(lines):
        return bool(lines) and what in lines[0] and ("cumulative" in lines[-1]) == cumulative and \
            not any(l.startswith("Reading the recording") for l in lines) and parse(lines) is not None
    return pred


def replay_case():
    exp = os.path.join(TMP, "modes.expect.json")
    dat = os.path.join(TMP, "modes.dat")
    dump = os.path.join(TMP, "modes.screen.json")
    truth = kvmgen(dat, "x86-6.5", ["-w", "-d", str(STEP), "-v", "2", "-n", "3000", "-s", "7"], exp)
    nr = len(truth["intervals"])
    start(["-r", dat, "-d", "0.1"], dump)
    settled(lambda ls: any("whole recording" in l for l in ls[:1]), 20)
    keys("Escape")     # a severe finding's landing, if any, back to the VMs
    # (label, keys, interval, cumulative)
    steps = [("whole recording", [], 0, False),
             ("S on the whole recording", ["S"], 0, True),
             ("S off, ] to interval 1", ["S", "]"], 1, False),
             ("] to the last interval", ["]"] * (nr - 1), nr, False),
             ("S after ] to the last interval", ["S"], nr, True),
             ("S on, [ back to interval 3", ["["] * (nr - 3), 3, True),
             ("S off at interval 3", ["S"], 3, False),
             ("] to interval 4", ["]"], 4, False)]
    for label, ks, k, cu in steps:
        for key in ks:
            keys(key)
            time.sleep(0.15)
        lines = settled(shows(k, nr, cu), 15)
        if not ok(lines is not None, "%s: the screen shows it" % label, "\n".join(screen()[:6])):
            continue
        time.sleep(0.2)
        check_mode(label, lines, truth, k, cu, dump)
    keys("q")


def live_root():
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-modes-live-")
    proc_vm(root, 4400, "modes", {0: (4401, "CPU 0/KVM", True), 1: (4402, "CPU 1/KVM", True)})
    for tid in (4401, 4402):
        put(os.path.join(root, str(tid), "stat"), "%d (CPU/KVM) S %s\n" % (tid, " ".join(["0"] * 50)), "w")
        put(os.path.join(root, str(tid), "schedstat"), "1000 0 1\n", "w")
    return root


def set_exits(root, base):
    """Each of the two vCPUs has counted 10 * base exits (kstat_fixture.vcpu_vals)."""
    vm_stats(root, 4400, {}, {0: vcpu_vals(base, [0] * 32, [0] * 4), 1: vcpu_vals(base, [0] * 32, [0] * 4)})


def live_row(lines):
    rows = [l for l in (lines or [])[4:] if l.startswith("modes ")]
    head = [l for l in (lines or []) if "EXITS/s" in l and "TOTAL" in l]
    if not rows or not head:
        return None
    out = {}
    for c in ("EXITS/s", "TOTAL"):
        e = head[0].find(c) + len(c)
        out[c] = rows[0][e - 10:e + 1].split()[-1]
    m = re.search(r"host: exits(/s)? (\S+)\s+lost \d+\s+total (\d+)", lines[1])
    out["head_rate"], out["head_total"] = (m.group(2), m.group(3)) if m else (None, None)
    return out


def wait_row(pred, timeout=10):
    end = time.time() + timeout
    lines = None
    while time.time() < end:
        lines = screen()
        r = live_row(lines)
        if r and pred(r):
            return r, lines
        time.sleep(0.1)
    return live_row(lines), lines


def live_case():
    """r, Z and the delay prompt, live on --source stats and its fixture."""
    root = live_root()
    dump = os.path.join(TMP, "modes.live.json")
    try:
        set_exits(root, 100)
        start(["--source", "stats", "--proc", root, "-d", "0.3"], dump)
        r, lines = wait_row(lambda r: True, 15)
        if not ok(r is not None, "live: the fixture's VM on the screen", "\n".join((lines or [])[:6])):
            return
        set_exits(root, 200)
        r, lines = wait_row(lambda r: r["TOTAL"] not in ("0", "-") and r["EXITS/s"] not in ("0.00", "-"))
        ok(r and r["TOTAL"] != "0", "live: the fixture's exits counted before r", "\n".join(lines[:6]))
        # r: every count and rate restarts at the reset
        keys("r")
        t_reset = time.time()
        r, lines = wait_row(lambda r: r["TOTAL"] == "0", 5)
        eq((r or {}).get("TOTAL"), "0", "live r: the row's TOTAL restarts at 0")
        eq((r or {}).get("head_total"), "0", "live r: the header's total restarts at 0")
        ok(r and r["EXITS/s"] in ("-", "0.00") and r["head_rate"] in ("-", "0.00"),
           "live r: no rate over the time before the reset", "\n".join(lines[:6]))
        set_exits(root, 250)      # 2 vCPUs x 500 exits after the reset
        r, lines = wait_row(lambda r: r["TOTAL"] != "0", 5)
        eq(((r or {}).get("TOTAL"), (r or {}).get("head_total")), ("1000", "1000"),
           "live r: TOTAL after the reset is the fixture's exits since it (2 x 500), none from before")
        d = last_dump(dump)
        ok(d and d["vms"][0]["exits_total"] == 1000 and r and r["TOTAL"] == "1000",
           "live r: the screen's TOTAL is its JSON's", json.dumps(d["vms"][0]["exits_total"]) if d else None)
        # Z: header and rows freeze, whatever is counted meanwhile
        time.sleep(0.7)
        keys("Z")
        time.sleep(0.4)
        before = screen()
        set_exits(root, 400)
        time.sleep(1.2)
        keys("S")       # keys that redraw a paused screen
        time.sleep(0.4)
        keys("S")
        time.sleep(0.4)
        after = screen()
        ok(any("paused: S switches" in l for l in after[:3]) and "cumulative" not in after[-1],
           "live Z: S while paused says it waits for Z, and the figures stay of their mode",
           "\n".join(after[:3] + after[-1:]))
        ok(before[1:2] == after[1:2] and live_row(before) and
           live_row(before)["TOTAL"] == live_row(after)["TOTAL"] and
           live_row(before)["head_rate"] == live_row(after)["head_rate"],
           "live Z: header and rows stay as they were while paused, redraws included",
           "\n".join(before[:6] + ["--"] + after[:6]))
        keys("Enter")
        time.sleep(0.4)
        lines = screen()
        ok(any("paused: the figures shown stay" in l for l in lines[:3]) and
           not any("vCPUs of VM" in l for l in lines[:3]) and live_row(lines) and
           live_row(lines)["TOTAL"] == live_row(before)["TOTAL"],
           "live Z: Enter while paused opens no pane of figures newer than those shown, and says so",
           "\n".join(lines[:6]))
        hb = live_row(after)
        ok(hb and hb["head_total"] == hb["TOTAL"] and close_rate(hb["head_rate"], hb["EXITS/s"]),
           "live Z: the paused header says what its rows say", repr(hb))
        keys("Z")
        r, lines = wait_row(lambda r: r["TOTAL"] == "4000", 5)
        eq((r or {}).get("TOTAL"), "4000", "live Z: unpaused, the counts go on (2 x 1500 more)")
        # S live: the counts since the reset, over all the time since it
        keys("S")
        end = time.time() + 5
        while time.time() < end and "cumulative" not in screen()[-1]:
            time.sleep(0.1)
        time.sleep(0.5)
        lines = screen()
        r, d = live_row(lines), last_dump(dump)
        since = time.time() - t_reset
        ok(r and d and "cumulative" in lines[-1] and d["vms"][0]["exits"] == 4000 and
           since - 1.0 <= d["seconds"] <= since + 0.5 and
           close_rate(r["EXITS/s"], rate_text(4000, d["seconds"])) and
           close_rate(r["head_rate"], d["host"]["exits_per_s"]),
           "live S: exits/s are the 4000 exits since the reset over the time since it, as its JSON says",
           "%r %r %.2f s since r" % (r, d and (d["seconds"], d["vms"][0]["exits"], d["vms"][0]["exits_per_s"]), since))
        keys("S")
        # the delay prompt: empty, the typed value replaces the delay
        keys("s")
        time.sleep(0.3)
        prompt = screen()[-1]
        ok(re.match(r"Delay \(s\): _\s+now 0.3 s", prompt), "live s: the delay prompt starts empty", prompt)
        time.sleep(0.8)
        r2 = live_row(screen())
        ok(r2 and r2["head_total"] == r2["TOTAL"], "live s: the header agrees with the rows while the prompt is open",
           repr(r2))
        keys("1", "Enter")
        time.sleep(0.3)
        keys("d")
        time.sleep(0.3)
        prompt = screen()[-1]
        ok(re.match(r"Delay \(s\): _\s+now 1 s", prompt), "live s 1 Enter: the delay is 1 s (replaced, not appended)",
           prompt)
        keys("Escape")
        keys("s", "x", "Enter")
        time.sleep(0.3)
        lines = screen()
        ok(any("delay: 'x' is not seconds" in l for l in lines[:3]), "live s x: bad input says why",
           "\n".join(lines[:3]))
        keys("d")
        time.sleep(0.3)
        ok(re.match(r"Delay \(s\): _\s+now 1 s", screen()[-1]), "live s x, then Esc: the delay stays 1 s",
           screen()[-1])
        keys("Escape")
        shares_case(root, dump)
        keys("q")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def pct_cells(lines, first, cols):
    """The cells of cols in the rows whose first word is in first: {first word: {col: text}}."""
    head = [l for l in lines if all(c in l for c in cols)]
    out = {}
    for l in lines[4:]:
        w = l.split()
        if head and w and w[0] in first:
            out[w[0]] = {c: l[head[0].find(c) + len(c) - 7:head[0].find(c) + len(c)].strip() for c in cols}
    return out


def dump_share(v_or_vcpus, seconds, state):
    vs = v_or_vcpus if isinstance(v_or_vcpus, list) else [v_or_vcpus]
    return 100.0 * sum((v.get("time_seconds") or {}).get(state, 0) for v in vs) / seconds / len(vs)


def shares_case(root, dump):
    """Live: the VMs pane's and the vCPUs pane's HALT% (and STEAL%, waiting for a CPU) are those of the JSON
    of the same snapshot, the time states from each vCPU's schedstat (run 0.3 s, wait 0.1 s more
    in one delay), paused (Z) so that the screen and the file hold the same snapshot."""
    run = [1000, 1000]

    def more():
        for i, tid in enumerate((4401, 4402)):
            run[i] += 300000000 // (i + 1)
            put(os.path.join(root, str(tid), "schedstat"), "%d %d 1\n" % (run[i], 100000000 * (run[i] // 300000000)),
                "w")
    more()
    end = time.time() + 5
    cells = {}
    while time.time() < end:
        cells = pct_cells(screen(), ("modes",), ("HALT%", "STEAL%"))
        if cells.get("modes", {}).get("HALT%") not in (None, "100.0"):
            break
        time.sleep(0.05)
    keys("Z")
    time.sleep(0.5)
    lines = screen()
    cells, d = pct_cells(lines, ("modes",), ("HALT%", "STEAL%")), last_dump(dump)
    want = d and {c: dump_share(d["vms"][0]["vcpus"], d["seconds"], st)
                  for c, st in (("HALT%", "halt"), ("STEAL%", "wait"))}
    ok(d and "modes" in cells and all(close_pct(cells["modes"][c], want[c]) for c in want) and
       float(cells["modes"]["HALT%"]) < 99,
       "live VMs pane: HALT% and STEAL% are the JSON's halt and wait time / (seconds x vCPUs)",
       "%r want %r\n%s" % (cells, want, "\n".join(lines[:6])))
    keys("Z")
    keys("Enter")
    time.sleep(1.5)
    more()
    end = time.time() + 5
    while time.time() < end:
        cells = pct_cells(screen(), ("0", "1"), ("HALT%", "STEAL%"))
        if cells.get("0", {}).get("HALT%") not in (None, "100.0"):
            break
        time.sleep(0.05)
    keys("Z")
    time.sleep(0.5)
    lines = screen()
    cells, d = pct_cells(lines, ("0", "1"), ("HALT%", "STEAL%")), last_dump(dump)
    bad = []
    for v in (d["vms"][0]["vcpus"] if d else []):
        got = cells.get(str(v["vcpu"]), {})
        for c, st in (("HALT%", "halt"), ("STEAL%", "wait")):
            if not close_pct(got.get(c), dump_share(v, d["seconds"], st)):
                bad.append("vCPU %d %s %s, JSON's %.2f" % (v["vcpu"], c, got.get(c), dump_share(v, d["seconds"], st)))
    ok(d and len(cells) == 2 and not bad,
       "live vCPUs pane: each vCPU's HALT% and STEAL% are the JSON's halt and wait time / seconds",
       "\n".join(bad + lines[:8]))
    keys("Z")


def main():
    if not shutil.which("tmux"):
        skip("the screen's modes", "no tmux")
        done()
    try:
        replay_case()
        live_case()
    finally:
        if SOCK[0]:
            tmux("kill-server")
        shutil.rmtree(SOCK_DIR, ignore_errors=True)
    done()


main()
