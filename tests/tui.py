# SPDX-License-Identifier: GPL-2.0
"""The interactive screen, driven in a real terminal (tmux send-keys /
capture-pane) and checked for what a person would see: on a generated
recording with known figures, on a real recording from ../shared/traces,
and live on the demo guest where /dev/kvm can be used.  The figures on
screen are compared with kvmtop -b -o json of the same input.
"""
import fcntl
import json
import os
import re
import shutil
import signal
import stat
import struct
import subprocess
import tempfile
import termios
import time

from tap import ok, eq, skip, done, kvmtop, run, traces, kvmgen, addr_ints, sanitized, kvm_here, live_only, live_elsewhere, \
    live_cases_in_kvm_host
import figures
import snippet
from kstat_fixture import proc_vm, vm_stats, vcpu_vals, put
from names import VMX

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
W, H = 120, 30
SOCK = [None]
# tmux's socket: a Unix socket path has at most 107 bytes, so never under a build tree's long path
SOCK_DIR = tempfile.mkdtemp(prefix="kvmtop-tui-")


def tmux(*args):
    return subprocess.run(["tmux", "-S", SOCK[0]] + list(args), capture_output=True, timeout=20)


def screen():
    return tmux("capture-pane", "-p", "-t", "k").stdout.decode("utf-8", "replace").splitlines()


def wait_for(pred, timeout=10):
    """Poll the screen until pred(lines) is true: the lines, or the last lines seen."""
    end = time.time() + timeout
    lines = []
    while time.time() < end:
        lines = screen()
        if pred(lines):
            return lines
        time.sleep(0.1)
    return lines


def settled(pred, timeout=10):
    """wait_for(pred), then until two captures 0.1 s apart agree: tmux may catch a redraw half done."""
    lines = wait_for(pred, timeout)
    end = time.time() + timeout
    while time.time() < end:
        time.sleep(0.1)
        again = screen()
        if again == lines:
            break
        lines = again
    return lines


def findings_shown(lines):
    """The findings pane: its column titles."""
    return any(l.split()[:2] == ["SEVERITY", "FINDING"] for l in lines)


def vms_pane(timeout=10, settle=False, esc=True):
    """The VMs pane after a start. A severe finding (the generated recording's lost events) lands
    the screen on the findings pane first (tests/findings.py checks that): Esc returns to the VMs.
    Esc on the VMs pane does nothing, and any key ends the landing, so it is sent either way
    (esc=False: not, where a key would clear the message line under test)."""
    lines = wait_for(lambda ls: has("VMs (")(ls) or findings_shown(ls), timeout)
    if esc or findings_shown(lines):
        keys("Escape")
    return (settled if settle else wait_for)(has("VMs ("), timeout)


def keys(*k):
    tmux("send-keys", "-t", "k", *k)


def start(args, env=""):
    """A fresh tmux server for each run: a killed server may take a new session down with it."""
    if SOCK[0]:
        tmux("kill-server")
    start.n = getattr(start, "n", 0) + 1
    SOCK[0] = os.path.join(SOCK_DIR, "tmux-%d.sock" % start.n)
    # no settings file of the user's (~/.config/kvmtop/kvmtoprc): the screen's own defaults
    cmd = "XDG_CONFIG_HOME=%s %s %s %s; echo KVMTOP-EXIT=$?; sleep 60" % (SOCK_DIR, env, kvmtop(), " ".join(args))
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "k", "-x", str(W), "-y", str(H), cmd)
    tmux("set-option", "-t", "k", "status", "off")


def has(text):
    return lambda lines: any(text in line for line in lines)


def loaded(text):
    """text on the screen, and the recording read: no "Reading the recording" line (the screen is
    up while it reads, and a slow build, ASan's, reads for a while)."""
    return lambda lines: has(text)(lines) and not any(l.startswith("Reading the recording: ") for l in lines)


def rows_after_titles(lines):
    """The table rows: the lines after the column titles, up to the footer."""
    return [r for r in lines[4:-1] if r.strip()] if len(lines) > 4 else []


def replay_case(dat, label):
    st, out, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(out)
    vm = j["vms"][0]
    start(["-r", dat])
    lines = vms_pane(settle=True)
    ok(lines and lines[0].startswith("kvmtop") and ("replay " + os.path.basename(dat)) in lines[0],
       "%s: the header names the recording's file first, whatever its directory's length" % label,
       "\n".join(lines[:4]))
    row = [r for r in rows_after_titles(lines) if r.split()[0] == vm["name"]]
    ok(row and str(vm["exits_total"]) in row[0].split(),
       "%s: the VM row shows the VM and its total exits (%d)" % (label, vm["exits_total"]), "\n".join(lines[:6]))

    keys("Enter")
    lines = settled(has("vCPUs of VM"))
    vrows = rows_after_titles(lines)
    eq(len(vrows), len(vm["vcpus"]), "%s: Enter shows one row per vCPU thread" % label)
    tids = sorted(v["tid"] for v in vm["vcpus"])
    ok(all(str(t) in " ".join(vrows) for t in tids), "%s: the vCPU rows show the thread ids" % label, "\n".join(vrows))

    # the vCPU with the most exits, moved to with Down
    v = max(vm["vcpus"], key=lambda c: (c["exits_total"], -c["tid"]))
    pos = [i for i, r in enumerate(vrows) if str(v["tid"]) in r.split()]
    if not ok(pos, "%s: the busiest vCPU (tid %d) has a row" % (label, v["tid"]), "\n".join(lines)):
        return
    for _ in range(pos[0]):
        keys("Down")
    keys("Enter")
    lines = settled(has("Exit reasons of vCPU"))
    ok(("tid %d" % v["tid"]) in lines[2], "%s: Enter on a vCPU opens its exit reasons" % label, lines[2])
    rrows = rows_after_titles(lines)
    # every reason that fits on the screen, in order: an empty or short pane fails
    want = [(r["reason"], r["count"]) for r in v["reasons"]]
    got = []
    for r in rrows:
        for name, count in want:
            if r.startswith(name + " ") and str(count) in r[len(name):].split():
                got.append((name, count))
                break
    # the other rows are the vCPU's other kvm events and userspace exits
    events = dict(v["events"], **{"userspace " + k: n for k, n in v["userspace_exits"].items()})
    # columns after the name: COUNT RATE/s % TIME% TOTAL; the whole recording: TOTAL is COUNT
    erows = {r.split(" (event)")[0]: tuple(int(r.split(" (event)")[1].split()[k]) for k in (0, 4))
             for r in rrows if " (event)" in r}
    events = {k: (n, n) for k, n in events.items()}
    ok(want and got == want and len(rrows) == len(want) + len(erows) and erows == events,
       "%s: all %d reason rows show the right counts, most first, and the %d event rows theirs"
       % (label, len(want), len(events)), "got  %r %r\nwant %r %r" % (got, erows, want, events))
    if not want:
        return

    # sort: '>' moves the sort to the next column, 'I' reverses the rows
    keys(">")
    lines = wait_for(lambda ls: "RATE/s\u25bc" in ls[3] or "RATE/sv" in ls[3])
    ok("RATE/s" in lines[3] and ("\u25bc" in lines[3].split("RATE/s")[1][:1] or "v" == lines[3].split("RATE/s")[1][:1]),
       "%s: > moves the sort to the next column" % label, lines[3])
    keys("<")
    before = rows_after_titles(settled(lambda ls: "COUNT\u25bc" in ls[3]))
    keys("I")
    lines = settled(lambda ls: "COUNT\u25b2" in ls[3])
    after = rows_after_titles(lines)
    eq([r.split()[0] for r in after], [r.split()[0] for r in reversed(before)], "%s: I reverses the order" % label)

    # filter
    name = want[-1][0]
    keys("\\")
    keys(*list(name[:6]))
    keys("Enter")
    lines = wait_for(lambda ls: all(r.startswith(name[:6]) or name[:6] in r for r in rows_after_titles(ls)))
    rows = rows_after_titles(lines)
    ok(rows and all(name[:6] in r for r in rows), "%s: \\ filters the rows by a substring" % label, "\n".join(rows))
    keys("Escape")      # clears the filter
    keys("Escape")      # back to the vCPUs
    lines = wait_for(has("vCPUs of VM"))
    ok("vCPUs of VM" in lines[2], "%s: Esc returns to the vCPUs" % label, lines[2])

    # resize and back
    tmux("resize-window", "-t", "k", "-x", "60", "-y", "20")

    def small(ls):
        # the whole redraw: curses writes it top first, so a capture can show the header alone
        return len(ls) == 20 and ls[0].startswith("kvmtop") and len(ls) > 2 and "vCPUs of VM" in ls[2] and \
            all(len(line) <= 60 for line in ls) and len(rows_after_titles(ls)) == len(vm["vcpus"])
    lines = wait_for(small)
    sane = small(lines)
    ok(sane, "%s: at 60x20 the screen keeps header, title and rows" % label, "\n".join(lines))
    tmux("resize-window", "-t", "k", "-x", str(W), "-y", str(H))
    lines = wait_for(lambda ls: len(ls) == H and "LAT MAX" in ls[3])
    ok(len(lines) == H and "LAT MAX" in lines[3], "%s: back at %dx%d the wide columns return" % (label, W, H), "\n".join(lines[:5]))

    keys("q")
    lines = wait_for(has("KVMTOP-EXIT="))
    txt = [line for line in lines if line.strip()]
    ok(txt and txt[0].startswith("KVMTOP-EXIT=0") and len(txt) == 1,
       "%s: q leaves a clean shell (exit 0, nothing left on screen)" % label, "\n".join(lines))


def help_drawn(lines):
    """The help pane drawn to its end.  curses sends a redraw in many small writes, top line first
    and the footer last, and tmux shows what has come so far: the title "Help:" is on screen before
    the rows under it.  The footer's "sort key" (the help's own sort column; the VMs pane's footer
    names another) is written last, so once it is there the whole pane is."""
    return has("Help:")(lines) and bool(lines) and lines[-1].rstrip().endswith(" sort key")


def help_keys(lines):
    """The KEY column (its first 26 characters) of the help pane's rows on screen, wrapped lines' blank."""
    title = next(i for i, l in enumerate(lines) if "Help:" in l)
    return [l[:26].strip() for l in lines[title + 2:-1] if l[:26].strip()]


def help_pages():
    """The help pane page by page (it wraps its texts, so it is longer than a screen): End shows
    its last entry, then from Home PgDn until that entry is seen.  Every page's lines, and the
    KEY column of every row, in order, the pages' overlap once."""
    first = wait_for(help_drawn)
    keys("End")
    time.sleep(0.3)
    end = help_keys(settled(help_drawn))
    keys("Home")
    time.sleep(0.3)
    lines = settled(help_drawn)
    pages, listed = [], []
    for _ in range(30):
        pages.append(lines)
        listed += [k for k in help_keys(lines) if k not in listed]
        if not end or end[-1] in listed:
            break
        keys("NPage")
        time.sleep(0.3)
        lines = settled(help_drawn)
    return [first] + pages, listed


def help_case(dat):
    start(["-r", dat])
    vms_pane()
    keys("h")
    pages, listed = help_pages()
    text = "\n".join(l for p in pages for l in p)
    ok(all(k in text for k in ("Enter", "Tab", "q F10", "h ? F1", "/")), "help: h shows the keys", text)
    # roff's \e is a backslash (the filter's key)
    man = open(os.path.join(os.environ.get("KVMTOP_FORMATS", "tests/formats"), "..", "..", "man",
                            "kvmtop.1")).read().replace("\\-", "-").replace("\\e", "\\")
    ok(len(listed) >= 20 and "q F10" in listed and "Enter" in listed,
       "help: the pane lists the keys and columns (%d rows, %d pages)" % (len(listed), len(pages)), listed)
    missing = [k for k in listed if k.replace("-", "\\-") not in man and k not in man]
    eq(missing, [], "help: every key and column of the help is in the man page")
    keys("Escape")
    lines = vms_pane()
    ok("VMs (" in lines[2], "help: Esc goes back")
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def open_reasons(dat):
    """kvmtop -r dat, Enter on the first VM, Enter on its first vCPU: the reasons screen."""
    start(["-r", dat])
    vms_pane()
    keys("Enter")
    wait_for(has("vCPUs of VM"))
    keys("Enter")
    return settled(has("Exit reasons of vCPU"))


def recent_case(dat):
    """Tab from a vCPU's reasons: its recent exits, with the exit's own info fields."""
    open_reasons(dat)
    keys("Tab")
    lines = settled(has("Recent exits of vCPU"))
    titles = lines[3].split() if len(lines) > 3 else []
    ok(all(c in titles for c in ("CPU", "REASON", "LATENCY", "INFO")), "recent: Tab opens the recent exits, "
       "with CPU, REASON, LATENCY and INFO columns", "\n".join(lines[:5]))
    rows = rows_after_titles(lines)
    # kvmgen writes info1 0x1234 and info2 0 into every x86 exit
    ok(rows and all(r.rstrip().endswith("1234 0") and re.search(r" 0x[0-9a-f]+ ", r) for r in rows),
       "recent: every row shows the exit's guest IP and its info1 info2 (1234 0)", "\n".join(rows[:5]))
    # x86: the mode is inferred from the IP's half, and marked so
    ok(rows and all((" kernel? " in r) == (" 0xffff" in r) and (" user? " in r) != (" 0xffff" in r) for r in rows),
       "recent: MODE is kernel? for upper-half IPs, user? for the others", "\n".join(rows[:5]))
    keys("Tab")
    lines = settled(has("Guest IPs of vCPU"))
    ok("Guest IPs of vCPU" in lines[2], "recent: Tab goes on to the vCPU's guest IPs", lines[2] if len(lines) > 2 else "")
    keys("Tab")
    lines = settled(has("Exit reasons of vCPU"))
    ok("Exit reasons of vCPU" in lines[2], "guest IPs: Tab goes back to the reasons", lines[2] if len(lines) > 2 else "")
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def ip_rows(lines):
    """The guest IP pane's rows: (count, ip, mode, rest) with rest the reason and symbol."""
    out = []
    for r in rows_after_titles(lines):
        m = re.match(r"^\s*(\d+)\s+[\d.]+\s+\d+\s+(\S+)\s+0x([0-9a-f]+)\s+(.*?)\s*$", r)
        if m:
            out.append((int(m.group(1)), int(m.group(3), 16), m.group(2), m.group(4)))
    return out


def ips_case():
    """The guest IP pane: Tab from the VMs, time samples / exit sites with t, symbols with KASLR, sorting."""
    base = os.path.join(TMP, "tui-ips")
    kvmgen(base + ".dat", "x86-6.5", ["-n", "3000", "-K", "0x1e000000", "-k", base + ".kallsyms"])
    args = ["-r", base + ".dat", "--guest-kallsyms", base + ".kallsyms"]
    st, out, err = run(["-b", "-o", "json", "--ip-top", "100000"] + args)
    vm = addr_ints(json.loads(out))["vms"][0]
    want = {}
    for e in vm["ips"]:
        want[(e["kind"], e["ip"], e.get("reason", "-"))] = (e["count"], e["sym"])
    start(args)
    vms_pane()
    keys("Tab")
    lines = settled(has("Guest IPs of VM"))
    ok("time samples" in lines[2] and "%d since start" % vm["ip_samples"]["time"] in lines[2],
       "guest IPs: Tab from the VMs opens the VM's time samples, with their number", lines[2])
    rows = ip_rows(lines)
    bad = [r for r in rows if want.get(("time", r[1], "-")) != (r[0], r[3].split()[-1])]
    ok(rows and not bad and rows[0][0] == max(c for (k, i, x), (c, s) in want.items() if k == "time") and
       [r[0] for r in rows] == sorted([r[0] for r in rows], reverse=True),
       "guest IPs: rows show -b's counts and symbols (KASLR kallsyms), most counted first",
       "\n".join(lines[:8] + [str(b) for b in bad[:3]]))
    ok(any(r[2] == "kernel?" and "+0x" in r[3] for r in rows) and all(r[2] in ("kernel?", "user?") for r in rows),
       "guest IPs: MODE shows the inferred kernel/user", "\n".join(lines[:12]))
    # g: one row per function, the counts of its IPs summed
    per_sym = {}
    for (k, i, x), (c, sym) in want.items():
        if k == "time" and sym != "[unknown]":
            per_sym[sym.split("+")[0]] = per_sym.get(sym.split("+")[0], 0) + c
    keys("g")
    lines = settled(has("by symbol"))
    rows = [r for r in ip_rows(lines) if r[2] == "kernel?"]
    got = dict((r[3].split()[1], r[0]) for r in rows)
    ok(rows and all(per_sym.get(name) == c for name, c in got.items()) and "+0x" not in "".join(r[3] for r in rows),
       "guest IPs: g shows one row per symbol with its IPs' counts summed", "\n".join(lines[:8]))
    keys("g")
    settled(lambda ls: "by symbol" not in ls[2])
    keys("t")
    lines = settled(has("exit sites (synchronous"))
    rows = ip_rows(lines)
    bad = [r for r in rows if want.get(("exit", r[1], r[3].split()[0])) != (r[0], r[3].split()[-1])]
    ok(rows and not bad and rows[0][3].split()[0] == "APIC_WRITE" and "native_apic_mem_write+0x" in rows[0][3],
       "guest IPs: t shows the exit sites with their reason and symbol", "\n".join(lines[:8] + [str(b) for b in bad[:3]]))
    keys("I")
    keys("Home")    # the selection stayed on its row: to the top
    lines = settled(lambda ls: "COUNT\u25b2" in ls[3])
    rows = ip_rows(lines)
    ok(rows and rows[0][0] == min(c for (k, i, x), (c, s) in want.items() if k == "exit"),
       "guest IPs: I puts the least counted first", "\n".join(lines[:6]))
    keys("\\")
    keys(*list("user?"))
    keys("Enter")
    lines = settled(lambda ls: rows_after_titles(ls) and all("user?" in r for r in rows_after_titles(ls)))
    rows = ip_rows(lines)
    ok(rows and all(r[2] == "user?" and r[3].endswith("[unknown]") for r in rows),
       "guest IPs: \\ user? keeps the user-mode IPs, which the kernel's symbols do not name", "\n".join(lines[:6]))
    keys("Escape")
    keys("Tab")
    lines = settled(has("Exit reasons of VM"))
    ok("Exit reasons of VM" in lines[2], "guest IPs: Tab goes on to the VM's exit reasons", lines[2])
    keys("Tab")
    lines = settled(has("Guest IPs of VM"))
    ok("exit sites" in lines[2], "guest IPs: ... and back, still on exit sites", lines[2])
    keys("q")
    wait_for(has("KVMTOP-EXIT="))
    # a layout without guest_rip: the pane says why it is empty
    kvmgen(base + "-stripped.dat", "x86-stripped", ["-n", "100"])
    start(["-r", base + "-stripped.dat"])
    vms_pane()
    keys("Tab")
    lines = settled(has("Guest IPs of VM"))
    ok(any("no guest IP field" in line for line in lines[4:6]),
       "guest IPs: without guest_rip the empty pane says the events have no IP field", "\n".join(lines[:6]))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def gone_bad_case(dat):
    """A recording that goes bad while [ ] read it: the screen is left first, then one line, status 1."""
    bad = os.path.join(TMP, "tui-gone-bad.dat")
    shutil.copy(dat, bad)
    start(["-r", bad, "-d", "0.01", "2>", bad + ".err"])
    wait_for(loaded("whole recording"))
    with open(bad, "r+b") as f:
        f.truncate(os.path.getsize(bad) // 2)
    keys("]")
    lines = wait_for(has("KVMTOP-EXIT="))
    exit_line = [l for l in lines if "KVMTOP-EXIT=" in l]
    eq(exit_line[:1], ["KVMTOP-EXIT=1"], "gone bad: kvmtop exits 1 when ] reads a recording cut since")
    ok(not any("VMs (" in l or "whole recording" in l for l in lines),
       "gone bad: the screen was given back (the shell's screen shows)", "\n".join(lines[:5]))
    err = open(bad + ".err").read()
    ok(len(err.splitlines()) == 1 and err.startswith("kvmtop: ") and "tui-gone-bad.dat" in err,
       "gone bad: one line names the file and what is wrong", err)


def interval_case(dat):
    """[ and ] step through -d intervals of the recording: each shows what -b -d prints for it."""
    st, out, err = run(["-b", "-r", dat, "-d", "0.01", "-o", "json"])
    snaps = [json.loads(line) for line in out.splitlines()]
    start(["-r", dat, "-d", "0.01"])
    wait_for(loaded("whole recording"))
    seen, want = [], []
    for k, step in ((1, "]"), (2, "]"), (3, "]"), (2, "["), (1, "["), (2, "]")):
        keys(step)
        lines = settled(has("interval %d/" % k))
        m = re.search(r"interval (\d+)/(\d+).*\n.*total (\d+)", "\n".join(lines[:2]))
        seen.append((int(m.group(1)), int(m.group(3))) if m else lines[:2])
        want.append((k, snaps[k - 1]["host"]["exits_total"]))
    eq(seen, want, "intervals: ] and [ show interval k of -d 0.01 with -b -d's total exits for it")
    keys("[")
    keys("[")
    lines = settled(loaded("whole recording"))
    ok(lines and "whole recording" in lines[0], "intervals: [ back to 0 shows the whole recording", lines[0])
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def host_pct_script():
    """Two vCPU threads of one VM: vCPU 0 exits each ms for 28 ms, vCPU 1 for its first 4 ms only,
    then no exit at all for 70 ms, then one: the script's lines."""
    lines = ["comm 1001 CPU 0/KVM", "comm 1002 CPU 1/KVM"]
    for ms in range(1, 101):
        for tid, vcpu, last in ((1001, 0, 28), (1002, 1, 4)):
            if ms <= last or (ms == 100 and vcpu == 0):
                t = ms * 1000000 + vcpu * 300
                lines += ["%d %d %d exit exit_reason=1 isa=1 vcpu_id=%d" % (t, vcpu, tid, vcpu),
                          "%d %d %d entry vcpu_id=%d" % (t + 2000 + 1000 * vcpu, vcpu, tid, vcpu)]
    return lines


def host_pct_case():
    """%HOST is the VM's share of the host's exits in the interval: 100.0 for the only VM in the first
    10 ms, "-" (not a made-up 0.0) in an interval in which the host had no exit (the script's 70 ms
    without one); on the vCPUs pane a latency of a vCPU without exits in the interval is "-" and
    sorts last both ways (the settings file's sort, then I)."""
    path, dat = os.path.join(TMP, "tui-hostpct.txt"), os.path.join(TMP, "tui-hostpct.dat")
    with open(path, "w") as f:
        f.write("\n".join(host_pct_script()) + "\n")
    kvmgen(dat, "x86-6.5", ["-S", path])
    rc = os.path.join(TMP, "tui-hostpct.rc")
    with open(rc, "w") as f:
        f.write("vCPUs.sort = vcpu_latency_mean\nvCPUs.columns = vcpu,vcpu_tid,vcpu_latency_mean,vcpu_exits_total\n")
    start(["--config", rc, "-r", dat, "-d", "0.01"])
    wait_for(loaded("whole recording"))
    got = []
    # -d 0.01 from the first exit (1 ms): interval 1 is 1..11 ms, interval 4 31..41 ms (no exit)
    for k in range(1, 5):
        keys("]")
        lines = settled(has("interval %d/" % k))
        if k in (1, 4):
            got.append(cell(lines, "%HOST", "unknown@1001") or "\n".join(lines[:8]))
    eq(got, ["100.0", "-"], "%HOST: 100.0 for the only VM, - in an interval without any exit of the host")
    for k in (3, 2):
        keys("[")
        settled(has("interval %d/" % k))
    keys("Enter")
    lines = settled(has("vCPUs of VM"))
    order = [r.split()[:3] for r in rows_after_titles(lines)]
    head = lines[3] if len(lines) > 3 else ""
    keys("I")
    # the titles' line marks the sort column's order: it changes
    lines = settled(lambda ls: has("vCPUs of VM")(ls) and len(ls) > 3 and ls[3] != head)
    inverted = [r.split()[:3] for r in rows_after_titles(lines)]
    ok(len(order) == 2 and order[-1][2] == "-" and order[0][2] != "-" and
       len(inverted) == 2 and inverted[-1][2] == "-" and inverted[0][2] != "-",
       "vCPUs pane: vCPU 1's LAT MEAN in the interval it had no exit is -, last in either order",
       "%s\n%s" % (order, inverted))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


# a reasons pane's row: REASON COUNT RATE/s % TIME% TOTAL MIN MEAN P50 P99 MAX
REASON_ROW = re.compile(r"^(.*?)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")
LAT_CELL = re.compile(r"^[0-9.]+(ns|us|ms|s)$")


def no_latency_case():
    """A reason without an exit -> entry pair in the interval shows "-" for each latency (MIN, MEAN,
    P50, P99, MAX) and TIME%, one with pairs a time in each and its latency sum's share of the
    vCPU's (perf kvm stat's Time%, to the cell's one decimal): stepping with ] through -d intervals
    of a generated recording, a vCPU's reasons against the generator's truth for that interval
    (rows seen before and none now, exits without their entry)."""
    dat = os.path.join(TMP, "tui-nolat.dat")
    exp = kvmgen(dat, "x86-6.5", ["-m", "1", "-v", "2", "-n", "2000", "-s", "21", "-d", "10000000"],
                 expect=os.path.join(TMP, "tui-nolat.expect.json"))
    seen, pick = {}, None
    for k, iv in enumerate(exp["intervals"], 1):
        for t in iv["threads"]:
            now = {(r["code"], r["flags"]): (r["samples"], r["sum"]) for r in t["reasons"]}
            rows = seen.setdefault(t["tid"], set())
            rows |= set(now)
            if not pick and any(not now.get(r, (0,))[0] for r in rows) and any(n for n, _ in now.values()):
                pick = (k, t["tid"], {r: now.get(r, (0, 0)) for r in rows})
    if not ok(pick, "no latency: the truth has an interval with a reason row and no pairs"):
        return
    k, tid, want = pick
    total = sum(x for n, x in want.values() if n)
    share = {VMX[code] + (" FAILED_VMENTRY" if flags else ""): 100.0 * x / total if n else None
             for (code, flags), (n, x) in want.items()}
    want = {VMX[code] + (" FAILED_VMENTRY" if flags else ""): n for (code, flags), (n, x) in want.items()}
    start(["-r", dat, "-d", "0.01"])
    wait_for(loaded("whole recording"))
    for i in range(1, k + 1):
        keys("]")
        settled(has("interval %d/" % i))
    keys("Enter")
    lines = settled(has("vCPUs of VM"))
    tids = [int(r.split()[1]) for r in rows_after_titles(lines) if len(r.split()) > 1 and r.split()[1].isdigit()]
    keys(*(["Down"] * tids.index(tid) if tid in tids else []), "Enter")
    lines = settled(has("Exit reasons of vCPU"))
    got, pct = {}, {}
    for row in rows_after_titles(lines):
        m = REASON_ROW.match(row)
        if m:
            name = re.sub(r" \((blocks|event)\)$", "", m.group(1).strip())
            got[name] = [m.group(i) for i in range(7, 12)]
            pct[name] = m.group(5)
    bad = ["%s (%d pairs): %s" % (name, n, " ".join(got.get(name, ["missing"]))) for name, n in sorted(want.items())
           if name not in got or not all(c == "-" if not n else LAT_CELL.match(c) for c in got[name])]
    bad += ["%s TIME%%: %s, want %s" % (name, pct.get(name), "-" if share[name] is None else "%.2f" % share[name])
            for name in sorted(want) if not (pct.get(name) == "-" if share[name] is None else
                                             re.fullmatch(r"[0-9.]+", pct.get(name) or "") and
                                             abs(float(pct[name]) - share[name]) <= 0.05 + 1e-9)]
    ok(tid in tids and not bad and any(not n for n in want.values()),
       "no latency: interval %d, tid %d: rows without pairs show - in MIN MEAN P50 P99 MAX and TIME%%, rows "
       "with pairs a time and their latency sum's share of the vCPU's (the generator's truth)" % (k, tid),
       "\n".join(bad + lines))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def cell(lines, title, row_has):
    """The cell under the right-aligned column title of the row holding row_has, or None."""
    head = next((l for l in lines if (" " + title + " ") in (l + " ") or l.endswith(" " + title)), None)
    row = next((l for l in lines if row_has in l and l is not head), None)
    if head is None or row is None:
        return None
    end = head.index(title) + len(title)
    left = row[:end].split()
    return left[-1] if left else None


def stats_unmeasured_case():
    """--source stats measures no latency, userspace exit or other kvm event, and here no time state
    (the fixture has no schedstat): each of those is "-" on the screen, never 0; the vCPU's reasons
    pane has the row other_exits for the exits no counter of a kind counts (the fixture's 600)."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-tui-stats-")
    h = [0] * 32
    v0 = vcpu_vals(100, h, [0] * 4)
    try:
        proc_vm(root, 4600, "counted", {0: (4601, "CPU 0/KVM", True)})
        vm_stats(root, 4600, {}, {0: v0})
        start(["--source", "stats", "--proc", root, "-d", "0.5"])
        wait_for(has("VMs ("))
        time.sleep(0.5)
        v1 = vcpu_vals(130, h, [0] * 4)
        v1["exits"] += 600
        vm_stats(root, 4600, {}, {0: v1})
        lines = settled(lambda ls: has("counted")(ls) and cell(ls, "TOTAL", "counted") == "900")
        titles = ("LAT MEAN", "LAT P99", "UTIL%", "STEAL%", "UEXITS/s", "EVENTS/s")
        got = {t: cell(lines, t, "counted") for t in titles}
        eq((got, re.search(r"kvm events(/s)? (\S+)", lines[1] if len(lines) > 1 else "").group(2)
            if len(lines) > 1 and "kvm events" in lines[1] else None),
           (dict((t, None if t in ("UEXITS/s", "EVENTS/s") else "-") for t in titles), "-"),
           "stats screen: latency, UTIL%, STEAL% and the host's kvm events are -, not 0; UEXITS/s and "
           "EVENTS/s, which the counters never have, not drawn (issue 45)")
        keys("Enter")
        wait_for(has("vCPUs of VM"))
        keys("Enter")
        lines = settled(has("Exit reasons of vCPU"))
        row = next((REASON_ROW.match(r) for r in rows_after_titles(lines) if r.startswith("other_exits")), None)
        eq((row.group(6), [row.group(i) for i in [5] + list(range(7, 12))]) if row else lines, ("600", ["-"] * 6),
           "stats screen: other_exits holds the 600 exits no counter of a kind counts, without a latency "
           "or a TIME% (no pairs)")
        keys("q")
        wait_for(has("KVMTOP-EXIT="))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def snippet_case(name):
    """A real excerpt as a recording: its recent exits show the excerpt's reasons and PCs, in order."""
    r = snippet.make(name, os.environ["KVMGEN"], os.environ["KVMTOP_FORMATS"], traces(), TMP)
    if not r:
        skip("snippet %s: recent exits" % name, "../shared/traces not found")
        return
    dat, evs = r
    exits = [e for e in evs if e["ev"] == "exit"]
    open_reasons(dat)
    keys("Tab")
    lines = settled(has("Recent exits of vCPU"))
    got = []
    for row in rows_after_titles(lines):
        m = re.search(r"\s\d+\s+(\S.*?)\s+0x([0-9a-f]+)\s", row)
        if m:
            got.append((m.group(1), int(m.group(2), 16)))
    want = [(e["reason"], e["pc"]) for e in reversed(exits)]
    eq(got, want, "snippet %s: recent exits show the excerpt's reasons and guest PCs, newest first" % name)
    if "i1" in exits[0]:
        info = "%x %x" % (exits[-1]["i1"], exits[-1]["i2"])
        rows = rows_after_titles(lines)
        ok(rows and rows[0].rstrip().endswith(info), "snippet %s: INFO shows the exit's info1 info2 (%s)" % (name, info),
           rows[0] if rows else "")
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def gen(name, layout, *args):
    """A recording from the generator in TMP, of the kernel layout tests/formats/LAYOUT: its path."""
    dat = os.path.join(TMP, name)
    kvmgen(dat, layout, args)
    return dat


def objects_case():
    """Enter on a reason: what its exits touched; Enter on an object: its recent exits only."""
    ports = [0x70] * 6 + [0x3f8] * 3
    lines, t = ["comm 1001 CPU 0/KVM"], 1000000
    for i, port in enumerate(ports + [None, None]):
        ex = "exit_reason=30 isa=1 vcpu_id=0 info1=%d" % (port << 16) if port else "exit_reason=12 isa=1 vcpu_id=0"
        lines.append("%d 0 1001 exit %s guest_rip=%d" % (t, ex, 0xffffffff81000000 + i))
        lines.append("%d 0 1001 entry vcpu_id=0" % (t + 2000))
        t += 10000
    script = os.path.join(TMP, "tui-objects.txt")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    reasons = open_reasons(gen("tui-objects.dat", "x86-objects", "-S", script))
    rows = rows_after_titles(reasons)
    ok(rows and rows[0].split()[0] == "IO_INSTRUCTION", "objects: the reasons pane, IO_INSTRUCTION first", rows[:3])
    keys("Enter")
    lines = settled(has("Objects of IO_INSTRUCTION"))
    rows = [r.split() for r in rows_after_titles(lines)]
    eq([r[:6] for r in rows], [["port", "0x70", "CMOS", "index", "out", "1"], ["port", "0x3f8", "COM1", "out", "1", "3"]],
       "objects: Enter on a reason lists its objects, most exits first, named (6 x 0x70, 3 x 0x3f8)")
    ok(rows and rows[0][6] == "6", "objects: 0x70's count is its 6 exits", rows[:1])
    keys("Enter")
    lines = settled(has("Recent exits of vCPU 0 (tid 1001) on port 0x70"))
    rows = rows_after_titles(lines)
    eq((len(rows), all("IO_INSTRUCTION" in r for r in rows)), (6, True),
       "objects: Enter on an object, its recent exits: the 6 of port 0x70 only")
    keys("Escape")
    keys("Escape")
    lines = settled(has("Exit reasons of vCPU"))
    ok(lines, "objects: Esc, Esc: back to the reasons")


def arch_case(layout, names):
    """Other arches on screen: a vCPU's exit reasons carry the arch's names."""
    lines = open_reasons(gen("tui-%s.dat" % layout, layout, "-v", "1", "-n", "500"))
    text = "\n".join(rows_after_titles(lines))
    missing = [n for n in names if n not in text]
    eq(missing, [], "%s: the reasons pane shows %s" % (layout, ", ".join(names)))
    if layout == "ppc-hv":
        keys("Tab")
        rows = rows_after_titles(settled(has("Recent exits of vCPU")))
        # MODE then INFO (the guest MSR): user exactly when MSR PR (0x4000) is set
        modes = [(r.split()[-2], int(r.split()[-1], 16) & 0x4000 != 0) for r in rows]
        ok(modes and all((m == "user") == pr for m, pr in modes) and {m for m, _ in modes} == {"user", "kernel"},
           "ppc-hv: recent exits show guest user/kernel mode from the MSR's PR bit", "\n".join(rows[:6]))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def states_case():
    """The vCPUs pane's GUEST% .. STEAL% (its time waiting for a CPU): each vCPU's share of the recording in each
    time state, as the generator's truth has it; '-' where the recording cannot tell."""
    exp = os.path.join(TMP, "tui-states.expect.json")
    dat = gen("tui-states.dat", "x86-6.5", "-v", "3", "-n", "300", "-C", "2", "-x", "-w", "-s", "4", "-e", exp)
    truth = {t["tid"]: t["time"] for t in json.load(open(exp))["threads"]}
    for label, path in (("sched events", dat),
                        ("no sched events", gen("tui-nostates.dat", "x86-6.5", "-v", "3", "-n", "300", "-x"))):
        start(["-r", path])
        lines = vms_pane(settle=True)
        # the VMs pane: its vCPUs' share of the recording on a CPU (UTIL%) and waiting for one
        head = [l for l in lines if "EXITS/s" in l]
        rows = rows_after_titles(lines)
        if path == dat:
            tot = sum(sum(t.values()) for t in truth.values())
            want = {"UTIL%": 100.0 * sum(t["guest"] + t["host"] + t["vmm"] for t in truth.values()) / tot,
                    "STEAL%": 100.0 * sum(t["wait"] for t in truth.values()) / tot}
            got = {c: rows[0][head[0].find(c) + len(c) - 7:head[0].find(c) + len(c)].strip()
                   for c in want if head and rows and c in head[0]}
            ok(len(got) == 2 and all(abs(float(got[c]) - want[c]) <= 0.051 for c in want),
               "VMs pane, sched events: UTIL% and STEAL% are the truth's shares of the vCPUs' time (0.1)",
               "got %s want %s\n%s" % (got, want, "\n".join(lines[:6])))
        else:
            ok(head and "UTIL%" not in head[0] and "STEAL%" not in head[0],
               "VMs pane, no sched events: no UTIL% and STEAL% columns", "\n".join(lines[:6]))
        ok(head and not any(c in head[0] for c in ("EMU%", "EMU WT%", "VHOST%", "VH WT%")),
           "VMs pane, %s: no emulator or vhost columns on a recording (live /proc only)" % label,
           "\n".join(lines[:6]))
        keys("Enter")
        lines = settled(has("vCPUs of VM"))
        head = [l for l in lines if "GUEST%" in l]
        cols = ("GUEST%", "HOST%", "VMM%", "HALT%", "STEAL%") if path == dat else ("GUEST%", "VMM%")
        state = {"GUEST%": "guest", "HOST%": "host", "VMM%": "vmm", "HALT%": "halt", "STEAL%": "wait"}
        bad, rows = [], rows_after_titles(lines)
        if head:
            # at 120 columns HALT% may give way to TOTAL and TOP REASON (the columns' priorities):
            # the shares on screen are checked, GUEST% HOST% VMM% STEAL% (or GUEST% VMM%) must be
            need = [c for c in cols if c != "HALT%"]
            if any(c not in head[0] for c in need):
                bad.append("%s not all on screen" % (need,))
            cols = tuple(c for c in cols if c in head[0])
            # right-aligned cells end where their titles end
            ends = {c: head[0].find(c) + len(c) for c in cols + ("TID",)}
            for r in rows:
                cells = {c: r[e - 7:e].strip() for c, e in ends.items()}
                tid = int(cells["TID"]) if cells["TID"].isdigit() else -1
                if tid not in truth:
                    bad.append("a row without a known tid: %r" % r)
                    continue
                for c in cols:
                    if path == dat:
                        want = 100.0 * truth[tid][state[c]] / sum(truth[tid].values())
                        if abs(float(cells.get(c, "nan")) - want) > 0.051:
                            bad.append("tid %d %s %s, want %.2f" % (tid, c, cells.get(c), want))
                    elif not re.fullmatch(r"[0-9]+\.[0-9]", cells.get(c, "")):
                        bad.append("tid %d %s %s" % (tid, c, cells.get(c)))
            if path != dat and any(c in head[0] for c in ("HOST%", "HALT%", "STEAL%")):
                bad.append("host, halt or wait shown without sched events")
        ok(head and len(rows) == 3 and not bad,
           "vCPUs pane, %s: %s" % (
               label, "GUEST% HOST% VMM% HALT% STEAL% equal the truth's shares (0.1)" if path == dat else
               "GUEST% and VMM% only: HOST% HALT% STEAL% are not shown"),
           "\n".join(bad + lines[:8]))
        # Enter: vCPU 0's reasons, PREEMPTED and BLOCKED the sums of its exits' split (titles of the
        # reason fields, as in text output)
        keys("Enter")
        lines = settled(has("Exit reasons of vCPU 0"))
        head = [l for l in lines if "REASON" in l]
        split = {VMX[r["code"]]: r for t in json.load(open(exp))["threads"] if t["tid"] == 1000
                 for r in t["reasons"]}
        bad, seen = [], 0
        if head and path != dat:
            seen = 5 if "PREEMPTED" not in head[0] and "BLOCKED" not in head[0] else 0
        elif head:
            ends = {c: head[0].find(c) + len(c) for c in ("PREEMPTED", "BLOCKED")}
            for r in rows_after_titles(lines):
                name = r[:28].replace("(blocks)", "").strip()
                if name not in split:
                    continue
                seen += 1
                for c, k in (("PREEMPTED", "preempted"), ("BLOCKED", "blocked")):
                    cell = r[ends[c] - 8:ends[c]].strip()
                    v, slack = figures.duration(cell)
                    if abs(v - split[name][k]) > slack + 1:
                        bad.append("%s %s %s, want %d ns" % (name, c, cell, split[name][k]))
        ok(head and seen >= 5 and not bad,
           "reasons pane, %s: PREEMPTED and BLOCKED %s" % (
               label, "are the truth's sums per reason" if path == dat else "are not shown"),
           "\n".join(bad + lines[:8]))
        keys("q")
        wait_for(has("KVMTOP-EXIT="))


SPARK = " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"


def strip_cells(lines, label):
    """The sparkline of the history strip's line label: its cells' levels (0-8), None if absent."""
    for l in lines:
        if l.startswith("%-8s|" % label):
            cells = l[9:l.index("|", 9)]
            return [SPARK.index(c) if c in SPARK else -1 for c in cells]
    return None


def history_case():
    """H: the selected vCPU's and VM's last snapshots as sparklines, one cell per interval
    reached with ], each state's level its share of the interval in the generator's truth."""
    exp = os.path.join(TMP, "tui-hist.expect.json")
    dat = gen("tui-hist.dat", "x86-6.5", "-v", "2", "-n", "400", "-C", "2", "-x", "-w", "-s", "4",
              "-d", "1000000", "-e", exp)
    truth = json.load(open(exp))
    steps = 6
    ivs = truth["intervals"][:steps]
    start(["-r", dat, "-d", "0.001"])
    vms_pane(settle=True)
    keys("H")
    lines = settled(has("History of"))
    ok(any("nothing recorded yet (] steps through" in l for l in lines),
       "history (H) on the whole recording: nothing yet, and says ] fills it", "\n".join(lines))
    keys("H")
    for i in range(steps):
        keys("]")
        settled(has("interval %d/" % (i + 1)))
    keys("Enter")
    settled(has("vCPUs of VM"))
    keys("H")
    bad = []
    for row, tid in enumerate((1000, 1001)):
        if row:
            keys("Down")
        lines = settled(has("History of vCPU %d %d" % (row, tid)))
        per = [next(t for t in iv["threads"] if t["tid"] == tid) for iv in ivs]
        for state in ("guest", "host", "vmm", "halt", "wait"):
            want = []
            for t in per:
                pct = min(100, int(100.0 * t["time"][state] / sum(t["time"].values()) + 0.5))
                want.append((pct * 8 + 50) // 100)
            got = strip_cells(lines, state.upper())
            if got != want:
                bad.append("tid %d %s: got %s want %s" % (tid, state, got, want))
        top = max(t["exits"] for t in per)
        want = [min(8, int(t["exits"] * 8.0 / top + 0.999)) if top else 0 for t in per]
        got = strip_cells(lines, "EXITS/s")
        if got != want:
            bad.append("tid %d EXITS/s: got %s want %s" % (tid, got, want))
    ok(not bad, "history (H), vCPUs pane: each of %d cells per state and EXITS/s is the truth's "
       "level for that interval, for both vCPUs" % steps, "\n".join(bad + lines))
    keys("Escape")
    lines = settled(has("History of VM"))
    exits = [sum(t["exits"] for t in iv["threads"]) for iv in ivs]
    want = [min(8, int(e * 8.0 / max(exits) + 0.999)) for e in exits]
    eq(strip_cells(lines, "EXITS/s"), want,
       "history (H), VMs pane: the VM's EXITS/s cells are its vCPUs' exits per interval")
    keys("H")
    lines = settled(lambda ls: not has("History of")(ls))
    ok(not any("History of" in l for l in lines), "H again hides the history")
    keys("q")


def cycles_case():
    """A recording in TSC cycles: the header says so, and no rate per second is made up."""
    start(["-r", gen("tui-tsc.dat", "x86-6.5", "-v", "2", "-n", "300", "-c", "x86-tsc")])
    lines = vms_pane(settle=True)
    ok(len(lines) > 1 and "times in cycles (x86-tsc)" in lines[0] and lines[1].startswith("host: exits ")
       and not any("exits/s" in l for l in lines[:3]),
       "cycles: the header says 'times in cycles (x86-tsc)' and no exits/s", "\n".join(lines[:3]))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def unknown_vcpu_case():
    """A vCPU whose id no event or thread name gives reads '?' in every pane that names it."""
    start(["-r", gen("tui-novcpu.dat", "x86-stripped", "-v", "1", "-n", "200", "-N", "none")])
    vms_pane()
    keys("Enter")
    vcpus = settled(has("vCPUs of VM"))
    rows = rows_after_titles(vcpus)
    keys("Enter")
    reasons = settled(has("Exit reasons of vCPU"))
    keys("Tab")
    recent = settled(has("Recent exits of vCPU"))
    titles = [l for l in reasons + recent if "of vCPU" in l]
    ok(rows and rows[0].split()[0] == "?" and len(titles) == 2 and all("vCPU ? (tid" in l for l in titles)
       and not any("-1" in l for l in titles),
       "unknown vCPU id: '?' in the vCPU column and in the reasons' and recent exits' titles",
       "\n".join(rows[:2] + titles))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def nomem_case(dat):
    """Out of memory on the screen (calloc fails from SIGUSR2 on): the screen goes, one line, status 1."""
    name = "out of memory on the screen: the screen is given back, one line, status 1"
    if "ASAN_OPTIONS" in os.environ:
        # the preload's calloc is glibc's, and ASan's free() cannot take its memory
        skip(name, "a sanitizer build (.ci/asan) owns the allocator")
        return
    err = os.path.join(TMP, "tui-nomem.err")
    start(["-r", dat, "2>", err], env="LD_PRELOAD=" + os.environ["NOMEM_SO"])
    vms_pane()
    pid = kvmtop_pid()
    if pid:
        os.kill(pid, signal.SIGUSR2)
    keys("Enter")
    lines = wait_for(has("KVMTOP-EXIT="))
    text = open(err).read() if os.path.exists(err) else ""
    ok(pid and any("KVMTOP-EXIT=1" in l for l in lines) and text == "kvmtop: out of memory\n"
       and not any("VMs (" in l or "vCPUs of VM" in l for l in lines),
       name, "stderr %r, screen:\n%s" % (text, "\n".join(lines[:5])))


def kvmtop_pid():
    shell = tmux("list-panes", "-t", "k", "-F", "#{pane_pid}").stdout.decode().split()
    kids = subprocess.run(["pgrep", "-P", shell[0]], capture_output=True).stdout.decode().split() if shell else []
    return int(kids[0]) if kids else None


def proc_stat(pid):
    """/proc/PID/stat of process pid, or None once it is gone.  Opened and read without a check
    before: kvmtop's parent, the pane's shell, dies with the terminal, and whoever inherits kvmtop
    may reap it at any moment, between a check that the file exists and its open
    (FileNotFoundError) or between the open and the read (ProcessLookupError, ESRCH)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None


def signal_case(dat):
    """SIGTERM ends the screen cleanly; a terminal that goes away ends kvmtop."""
    start(["-r", dat])
    vms_pane()
    pid = kvmtop_pid()
    if pid:
        os.kill(pid, 15)
    lines = wait_for(has("KVMTOP-EXIT="))
    txt = [line for line in lines if line.strip()]
    ok(pid and txt and txt[0].startswith("KVMTOP-EXIT=0") and len(txt) == 1,
       "signals: SIGTERM ends the screen with status 0 and the terminal restored", "\n".join(lines))
    start(["-r", dat])
    vms_pane()
    pid = kvmtop_pid()
    tmux("kill-server")
    SOCK[0] = None
    gone, stat = False, None
    # an ASan build takes a while to exit (LeakSanitizer's scan), the longer on a loaded machine
    for _ in range(600 if sanitized() else 150):
        stat = proc_stat(pid) if pid else None
        if stat is None or stat.split()[2] == "Z":
            gone = True
            break
        time.sleep(0.1)
    ok(pid and gone, "signals: when the terminal goes away kvmtop ends (no spinning on a dead tty)",
       "pid %s still there: %s" % (pid, (stat or "")[:120]))
    if pid and not gone:
        # not left to spin under the tests after this one (seen: LeakSanitizer's exit-time
        # stop-the-world hung, its tracer in wait4, kvmtop in sched_yield at 100% of a CPU)
        subprocess.run(["pkill", "-KILL", "-P", str(pid)])
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass    # it ended, and was reaped, since the last look


def crash_case(dat):
    """A crash (SIGSEGV, SIGABRT) gives the terminal back before kvmtop dies of it."""
    for sig in (signal.SIGSEGV, signal.SIGABRT):
        tio = os.path.join(TMP, "tui-crash.stty")
        if os.path.exists(tio):
            os.unlink(tio)
        start(["-r", dat, "2>", tio + ".err", "; echo KVMTOP-STATUS=$?; stty -a >", tio])
        vms_pane()
        pid = kvmtop_pid()
        if pid:
            os.kill(pid, sig)
        lines = wait_for(has("KVMTOP-EXIT="))
        alt = tmux("display-message", "-p", "-t", "k", "#{alternate_on}").stdout.decode().strip()
        # the mouse's reports were on (not --no-mouse): a crash turns them off too
        mouse = tmux("display-message", "-p", "-t", "k", "#{mouse_any_flag}").stdout.decode().strip()
        modes = open(tio).read().split() if os.path.exists(tio) else []
        err = open(tio + ".err").read() if os.path.exists(tio + ".err") else ""
        status = [l.strip() for l in lines if "KVMTOP-STATUS=" in l]
        # a sanitizer build (.ci/asan) hands SIGSEGV on to ASan, which reports it and exits 1
        want = ["KVMTOP-STATUS=%d" % (128 + sig)]
        if "ASAN_OPTIONS" in os.environ and sig == signal.SIGSEGV:
            want = ["KVMTOP-STATUS=1"]
        ok(pid and alt == "0" and mouse == "0" and status == want
           and "icanon" in modes and "echo" in modes and "-icanon" not in modes and "-echo" not in modes
           and err.startswith("kvmtop: crashed"),
           "crash: %s leaves the alternate screen and the mouse's reports, the terminal cooked (icanon "
           "echo), status %d" % (sig.name, 128 + sig), "alternate_on %r, mouse %r, status %r, stty %r, "
           "stderr %r, screen:\n%s" % (alt, mouse, status, [m for m in modes if "icanon" in m or "echo" == m.lstrip("-")], err,
              "\n".join(lines[:6])))


# A command with /dev/kvm hidden, as on a host without KVM: in a mount namespace of its own, /dev
# is a fresh tmpfs holding only the few devices a terminal program opens.
NO_KVM = ("unshare --mount --propagation private sh -c 'mount -t tmpfs -o size=64k,mode=755 nokvm /dev && "
          "mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/zero c 1 5 && mknod -m 666 /dev/urandom c 1 9 && "
          "mknod -m 666 /dev/tty c 5 0 && exec \"$0\" \"$@\"'")


def sample_case():
    """--demo where /dev/kvm is missing: one line saying so, then the sample recording in the same views.
    On a host with /dev/kvm, kvmtop runs where it is hidden (NO_KVM)."""
    name = "--demo without /dev/kvm"
    hide = os.path.exists("/dev/kvm")
    if hide and (os.geteuid() != 0 or not shutil.which("unshare")):
        skip(name + ": the sample recording", "hiding this host's KVM device needs root and unshare (util-linux)")
        return
    # kvmgen wrote it with -v 4 -n 5000: 4 vCPU threads of 5,000 exits, guest IPs in a kallsyms'd kernel
    p = subprocess.run("%s %s -b --demo -o json" % (NO_KVM if hide else "", kvmtop()), shell=True,
                       capture_output=True, timeout=300)
    rc, out, err = p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    lines = err.strip().splitlines()
    j = json.loads(out) if rc == 0 and out else {}
    ok(rc == 0 and len(lines) == 1 and "--demo needs /dev/kvm" in lines[0] and "sample recording" in lines[0],
       name + " -b: one line saying why the sample recording is shown, status 0", err)
    vm = (j.get("vms") or [{}])[0]
    # one exit in four is in guest user space, which a kernel's symbols do not name
    syms = [(e["mode"], e["sym"]) for e in vm.get("ips", [])]
    ok(j.get("source") == "replay" and j["file"].endswith("/kvmtop-sample.dat") and j["host"]["exits"] == 20000
       and len(vm.get("vcpus", [])) == 4 and {m for m, x in syms} == {"kernel", "user"}
       and all((m == "kernel") == bool(x and "+0x" in x) for m, x in syms),
       name + " -b: the sample: a replay of 4 vCPUs, 20,000 exits, every guest kernel IP named by its kallsyms",
       "%r %r %r" % (j.get("file"), j.get("host", {}).get("exits"), syms[:3]))
    start(["--demo"], NO_KVM if hide else "")
    lines = vms_pane(settle=True, esc=False)
    ok(lines and "replay kvmtop-sample.dat" in lines[0] and "--demo needs /dev/kvm" in lines[2],
       name + ": the screen says replay of the sample recording, and why", "\n".join(lines[:4]))
    keys("Tab")
    lines = settled(has("Guest IPs of VM"))
    rows = rows_after_titles(lines)
    kernel = [r for r in rows if r.split()[3].startswith("kernel")]
    ok(kernel and all("+0x" in r.split()[-1] for r in kernel),
       name + ": Tab shows the guest IPs, every kernel one named", "\n".join(lines[:8]))
    keys("q")
    lines = wait_for(has("KVMTOP-EXIT="))
    ok(any("KVMTOP-EXIT=0" in l for l in lines), name + ": q leaves with status 0", "\n".join(lines))


def no_vm_case():
    """Live on a host with no VM (this machine, most often): the screen says how to see something."""
    name = "live, no VM: the VMs pane says how to see something"
    if os.geteuid() != 0 or host_has_vms():
        skip(name, "needs root and a host without VMs" if os.geteuid() == 0 else "needs root")
        return
    start([])
    lines = settled(has("no VM runs on this host"))
    ok(any("kvmtop --demo" in l and "kvmtop -r FILE" in l for l in lines), name, "\n".join(lines[:6]))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))


def host_has_vms():
    """Does a process on this host hold a KVM VM (an anon_inode:kvm-vm fd)?"""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            for f in os.listdir("/proc/%s/fd" % d):
                if os.readlink("/proc/%s/fd/%s" % (d, f)) == "anon_inode:kvm-vm":
                    return True
        except OSError:
            continue
    return False


def live_case():
    name = "live: the demo guest on screen"
    if live_elsewhere():
        live_cases_in_kvm_host(__file__, "tui.py live")
        return
    if not kvm_here():
        skip(name, "needs root and a KVM that traces VM exits")
        return
    start(["--demo", "-d", "0.5"])
    # a severe finding (the emulated host's overcommit) may land the screen on the findings pane
    # before the first key: Esc returns, and any key ends the landing
    # (a sanitizer build on a loaded emulated host took over 15 s to draw it)
    wait_for(lambda ls: any(line.startswith("kvmtop-demo") for line in ls) or findings_shown(ls), 60)
    keys("Escape")
    lines = wait_for(lambda ls: any(line.startswith("kvmtop-demo") for line in ls), 60)
    row = [line for line in lines if line.startswith("kvmtop-demo")]
    ok(row, name + ": the VM row", "\n".join(lines))
    if not row:
        keys("q")
        return
    keys("\\")
    keys(*list("kvmtop-demo"))
    keys("Enter")
    wait_for(lambda ls: rows_after_titles(ls) and rows_after_titles(ls)[0].startswith("kvmtop-demo"))
    keys("Enter")
    # a sanitizer build's demo guest on a loaded machine starts its vCPU threads late
    # (by VCPU and TID: at 120 columns with the time states THREAD gives way to TOTAL and TOP REASON)
    ids = lambda ls: sorted(r.split()[:2] for r in rows_after_titles(ls) if r.split()[:1] in (["0"], ["1"]))
    lines = wait_for(lambda ls: len(ids(ls)) >= 2, 30)
    vcpus = ids(lines)
    ok([v for v, t in vcpus] == ["0", "1"] and all(t.isdigit() for v, t in vcpus),
       "live: Enter shows the demo's vCPU threads", "\n".join(lines))
    tid0 = vcpus[0][1] if vcpus else "-"
    keys("\\")
    keys(*list(tid0))
    keys("Enter")
    wait_for(lambda ls: len(rows_after_titles(ls)) == 1 and rows_after_titles(ls)[0].split()[:2] == ["0", tid0])
    keys("Enter")
    lines = wait_for(lambda ls: any("kvm_pio" in r for r in rows_after_titles(ls)), 30)
    ok(any("kvm_pio" in r for r in rows_after_titles(lines)), "live: a vCPU's pane lists its kvm events",
       "\n".join(lines))
    keys("q")
    # it stops its demo guest and removes its trace instance: in a loaded emulated host, seconds
    t0 = time.time()
    lines = wait_for(has("KVMTOP-EXIT="), 60)
    ok(any("KVMTOP-EXIT=0" in line for line in lines), "live: q ends kvmtop with status 0",
       "after %.1f s the screen was:\n%s" % (time.time() - t0, "\n".join(lines)))
    print("# live: q to the end of kvmtop: %.1f s" % (time.time() - t0), flush=True)
    # a closed terminal ends a live kvmtop too, and it cleans up
    start(["--demo"])
    # a sanitizer build in a loaded emulated host takes seconds to set up its trace instance
    # before it starts its guest: 15 s was once too short, and the child was looked for too soon
    t0 = time.time()
    # the demo's row, or the findings pane a severe finding opens on (a loaded emulated host's
    # vCPUs wait for CPUs: overcommit)
    lines = wait_for(lambda ls: any(line.startswith("kvmtop-demo") for line in ls) or has("SEVERITY")(ls), 60)
    pid = kvmtop_pid()
    # this kvmtop's own guest and trace instance: other kvmtops may run on the host; looked for
    # at least once, for up to 30 s more
    guests, until = [], time.time() + 30
    while pid and not guests:
        guests = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True).stdout.split()
        if guests or time.time() > until:
            break
        time.sleep(0.2)
    print("# live: kvmtop %s, its guest %s, after %.1f s" % (pid, b" ".join(guests).decode() or "none",
                                                             time.time() - t0), flush=True)
    seen = "\n".join(lines)
    tmux("kill-server")
    SOCK[0] = None
    for _ in range(100):
        if not pid or not os.path.exists("/proc/%d" % pid):
            break
        time.sleep(0.1)
    ok(pid and not os.path.exists("/proc/%d" % pid), "live: a closed terminal ends kvmtop")
    time.sleep(0.5)
    inst = [n for n in os.listdir("/sys/kernel/tracing/instances") if n == "kvmtop-%s" % pid] \
        if os.path.isdir("/sys/kernel/tracing/instances") else []
    left = [g for g in guests if os.path.exists("/proc/%s" % g.decode())]
    ok(guests, "live: the demo guest ran as kvmtop's child (%s)" % b" ".join(guests).decode(),
       "kvmtop %s had no child; its screen was:\n%s" % (pid, seen))
    eq((inst, left), ([], []), "live: no trace instance and no demo guest left")


def bighost_case():
    """2,000 VMs of 8 vCPUs, named from the recording host's ps (--threads): the VMs pane has
    2,000 rows, a filter finds one VM by its name, Enter shows its 8 vCPU threads."""
    dat = os.path.join(TMP, "tui-bighost.dat")
    ps = dat + ".ps"
    kvmgen(dat, "x86-6.5", ["-m", "2000", "-v", "8", "-n", "17", "-C", "32", "-s", "3", "-P", ps])
    vms = json.load(open(ps + ".json"))
    start(["-r", dat, "--threads", ps])
    vms_pane(timeout=30, settle=True)
    # the pane counts the VMs read so far: a sanitizer build on a loaded machine reads for a while
    lines = wait_for(loaded("VMs (2000)"), 300 if sanitized() else 60)
    ok(any("VMs (2000)" in l for l in lines[:3]), "2,000 VMs: the VMs pane has 2,000 rows", "\n".join(lines[:4]))
    for vm in (vms[1233], vms[4]):
        keys("F4")
        keys("-l", vm["name"])
        keys("Enter")
        lines = settled(lambda ls: len(rows_after_titles(ls)) == 1 and vm["name"] in rows_after_titles(ls)[0])
        rows = rows_after_titles(lines)
        ok(len(rows) == 1 and rows[0].startswith(vm["name"]) and str(vm["pid"]) in rows[0].split(),
           "2,000 VMs: F4 %s finds its one row, with its pid %d" % (vm["name"], vm["pid"]), "\n".join(lines[:8]))
        keys("Enter")
        lines = settled(has("vCPUs of VM"))
        vrows = rows_after_titles(lines)
        got = sorted(int(t) for r in vrows for t in r.split() if t.isdigit() and int(t) in vm["tids"])
        ok(len(vrows) == 8 and got == sorted(vm["tids"]),
           "2,000 VMs: Enter on %s shows its 8 vCPU threads" % vm["name"], "\n".join(lines[:14]))
        keys("Escape")
        keys("Escape")
        settled(lambda ls: any("VMs (2000)" in l for l in ls[:3]))
    keys("q")
    wait_for(has("KVMTOP-EXIT="))
    os.unlink(dat)


def progress_case():
    """A recording that takes seconds to read (a preload slows libtracecmd): the screen is up at
    once with how far the reading is, the figures so far grow, q quits while it reads, and the
    end shows what -b does."""
    so = os.environ.get("SLOWREAD_SO")
    if not so or not os.path.exists(so):
        skip("reading: the screen while a recording is read", "tests/slowread.so is not built (make check)")
        return
    dat = gen("tui-slow.dat", "x86-6.5", "-v", "4", "-n", "50000")
    st, out, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(out)
    t0 = time.monotonic()
    start(["-r", dat], env="LD_PRELOAD=" + so)
    reading = lambda ls: any(l.startswith("Reading the recording: ") for l in ls)
    first = wait_for(reading, 10)
    took = time.monotonic() - t0
    ok(reading(first) and "replay tui-slow.dat" in first[0],
       "reading: the screen is up while the recording is read, the file in the header, how far on "
       "the title line (%.1f s after start)" % took, "\n".join(first[:4]))
    pct = lambda ls: [float(m.group(1)) for l in ls for m in [re.match(r"Reading the recording: ([0-9.]+) %", l)] if m]
    total = lambda ls: [int(m.group(1)) for l in ls[1:2] for m in [re.search(r"total (\d+)", l)] if m]
    later = wait_for(lambda ls: pct(ls) and pct(first) and pct(ls)[0] > pct(first)[0] + 5 and
                     total(ls) and total(first) and total(ls)[0] > total(first)[0], 10)
    ok(pct(later) and total(later) and total(first) and total(later)[0] > total(first)[0],
       "reading: how far and the host's total exits grow as it reads (%s %% -> %s %%)"
       % (pct(first)[:1], pct(later)[:1]), "\n".join(later[:3]))
    lines = settled(has("VMs ("), 30)
    row = [r for r in rows_after_titles(lines) if r.split()[0] == j["vms"][0]["name"]]
    ok(not reading(lines) and row and str(j["vms"][0]["exits_total"]) in row[0].split(),
       "reading: once read, the VMs pane in place of how far, with -b's total exits (%d)"
       % j["vms"][0]["exits_total"], "\n".join(lines[:6]))
    # a key typed while it reads acts once it is read: h opens the help then, not never
    start(["-r", dat], env="LD_PRELOAD=" + so)
    wait_for(reading, 10)
    keys("h")
    lines = wait_for(lambda ls: not reading(ls) and has("Help:")(ls), 30)
    ok(has("Help:")(lines) and not reading(lines), "reading: h typed while it reads opens the help once it is read",
       "\n".join(lines[:4]))
    # q while it reads: kvmtop ends at once with status 0 and the shell's screen back
    start(["-r", dat], env="LD_PRELOAD=" + so)
    wait_for(reading, 10)
    t0 = time.monotonic()
    keys("q")
    lines = wait_for(has("KVMTOP-EXIT="), 10)
    took = time.monotonic() - t0
    ok(any("KVMTOP-EXIT=0" in l for l in lines) and not reading(lines) and took < 3,
       "reading: q while it reads ends kvmtop with status 0, the terminal given back (%.1f s)" % took,
       "\n".join(lines[:4]))


def typed_ahead_case(typed):
    """Live (--source stats on a fixture): the first snapshot with a severe finding lands the
    screen on the findings pane, unless a key came first.  That snapshot is held while it reads
    vCPU 0's schedstat, a FIFO, until the test writes the wait that makes the finding; the keys of
    its tick were read before.  typed: Enter is typed meanwhile and waits in the terminal (its
    input queue shows it).  It was typed at the VMs pane: it must act there (the VM's vCPUs), with
    no landing under it.  Not typed: the screen lands."""
    name = "landing: a key typed in the snapshot of the first severe finding" if typed else \
        "landing: a severe finding, no key typed: the screen lands on the findings pane"
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-tui-ahead-")
    sched = os.path.join(root, "4401", "schedstat")
    w = -1
    try:
        proc_vm(root, 4400, "ahead", {0: (4401, "CPU 0/KVM", True), 1: (4402, "CPU 1/KVM", True)})
        vm_stats(root, 4400, {}, {0: vcpu_vals(1, [0] * 32, [0] * 4), 1: vcpu_vals(1, [0] * 32, [0] * 4)})
        for tid in (4401, 4402):
            put(os.path.join(root, str(tid), "stat"), "%d (CPU/KVM) S %s\n" % (tid, " ".join(["0"] * 50)), "w")
            put(os.path.join(root, str(tid), "schedstat"), "1000 0 1\n", "w")
        start(["--source", "stats", "--proc", root, "-d", "0.3"])
        lines = wait_for(lambda ls: any(l.startswith("ahead ") for l in ls), 15)
        pid = kvmtop_pid()
        if not ok(pid and any(l.startswith("ahead ") for l in lines), name + ": the VMs pane first",
                  "\n".join(lines[:6])):
            return
        tty = os.readlink("/proc/%d/fd/0" % pid)
        os.mkfifo(sched + ".fifo")
        os.rename(sched + ".fifo", sched)
        # a writer opens once kvmtop, in its snapshot, opens the FIFO to read
        end = time.time() + 15
        while w < 0 and time.time() < end:
            try:
                w = os.open(sched, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.01)
        if not ok(w >= 0, name + ": kvmtop reads vCPU 0's schedstat in a snapshot"):
            return
        queued = 0
        if typed:
            keys("Enter")
            t = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
            end = time.time() + 10
            while not queued and time.time() < end:
                queued = struct.unpack("i", fcntl.ioctl(t, termios.FIONREAD, b"\0" * 4))[0]
                time.sleep(0.01)
            os.close(t)
        # 10 s waited in this snapshot: the overcommit finding, severe; the next snapshots read a file
        put(sched + ".new", "1000 10000000000 1\n", "w")
        os.rename(sched + ".new", sched)
        os.write(w, b"1000 10000000000 1\n")
        os.close(w)
        w = -1
        if typed:
            lines = wait_for(has("vCPUs of VM ahead (pid 4400)"), 10)
            ok(queued and has("vCPUs of VM ahead (pid 4400)")(lines) and not findings_shown(lines),
               name + ": it acts on the VMs pane it was typed at (the VM's vCPUs), no landing under it",
               "queued %d\n" % queued + "\n".join(lines[:6]))
        else:
            lines = wait_for(findings_shown, 10)
            ok(any(l.startswith("severe") and "overcommit" in l and "ahead vCPU 0 (tid 4401)" in l for l in lines),
               name, "\n".join(lines[:6]))
        keys("q")
        wait_for(has("KVMTOP-EXIT="))
    finally:
        # a case cut short: a file in the FIFO's place, and a kvmtop reading the FIFO let go
        if os.path.exists(sched) and stat.S_ISFIFO(os.stat(sched).st_mode):
            rw = os.open(sched, os.O_RDWR | os.O_NONBLOCK)
            put(sched + ".new", "1000 0 1\n", "w")
            os.rename(sched + ".new", sched)
            os.close(rw)
        if w >= 0:
            os.close(w)
        shutil.rmtree(root, ignore_errors=True)


def kill_left_behind():
    """Kill the kvmtop processes this suite's screens started that still run once the suite is
    done: their terminals are gone with the tmux servers.  The sanitizer build's exit-time leak
    scan (LeakSanitizer's stop-the-world) was seen to hang on a loaded machine, kvmtop at 100 %
    of a CPU for the rest of the CI run; the cases that check an end assert it themselves."""
    mark = ("XDG_CONFIG_HOME=%s" % SOCK_DIR).encode()
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                if mark not in f.read().split(b"\0"):
                    continue
            with open("/proc/%d/comm" % pid) as f:
                if not f.read().startswith("kvmtop"):
                    continue
            os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass    # gone meanwhile, or not ours to read


def main():
    if not shutil.which("tmux"):
        for n in ("generated recording", "real recording", "help", "live"):
            skip("tui: " + n, "tmux is not installed (apt-get install tmux)")
        done()
    if live_only():
        try:
            live_case()
        finally:
            if SOCK[0]:
                tmux("kill-server")
            shutil.rmtree(SOCK_DIR, ignore_errors=True)
        done()
    gen = os.environ.get("KVMGEN")
    dat = os.path.join(TMP, "tui-gen.dat")
    subprocess.run([gen, "-f", os.path.join(os.environ["KVMTOP_FORMATS"], "x86-6.5"), "-o", dat, "-x", "-l",
                    "-n", "3000"], check=True, capture_output=True)
    try:
        replay_case(dat, "generated")
        real = os.path.join(traces(), "x86-vmx-ubuntu-6.5", "host_k6.5.0-21_2024-02-28_2caa92de_trace.dat")
        if os.path.exists(real):
            replay_case(real, "real")
        else:
            skip("real: replay of a real recording", "../shared/traces not found")
        help_case(dat)
        recent_case(dat)
        objects_case()
        ips_case()
        interval_case(dat)
        no_latency_case()
        host_pct_case()
        stats_unmeasured_case()
        gone_bad_case(dat)
        progress_case()
        typed_ahead_case(False)
        typed_ahead_case(True)
        for name in ("arm64-sys64", "svm-idle-halt", "svm-sev-npf"):
            snippet_case(name)
        arch_case("arm64-6.9", ["TRAP/SYS64", "TRAP/WFx", "IRQ"])
        arch_case("ppc-hv", ["HV_DECREMENTER", "H_DATA_STORAGE", "SYSCALL CEDED"])
        arch_case("s390", ["Instruction", "Wait state", "Host interruption"])
        cycles_case()
        states_case()
        history_case()
        unknown_vcpu_case()
        nomem_case(dat)
        signal_case(dat)
        crash_case(dat)
        sample_case()
        no_vm_case()
        bighost_case()
        live_case()
    finally:
        if SOCK[0]:
            tmux("kill-server")
        kill_left_behind()
        shutil.rmtree(SOCK_DIR, ignore_errors=True)
    done()


main()
