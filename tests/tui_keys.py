# SPDX-License-Identifier: GPL-2.0
"""htop's ways on the screen, driven in a real terminal (tmux) and checked on what it shows:
the help pane (every key's text whole, wrapped at spaces to the width, scrolled to its end),
search (/ F3, n N) and filter (\\ F4), the keys htop and top have for a thing (! findings,
S cumulative, w stolen by, Z pause, s delay), the function bar of each pane, and the mouse sent as
the terminal's own mouse reports (clicks on a column title, a row, the function bar; a
double click; the wheel), with --no-mouse leaving the terminal's mouse alone.

The oracle is the generator's list of the VMs (kvmgen -P: names and pids), the screen before
the key, and tmux's own record of the modes the program set (mouse_any_flag); the selected
row is the table line drawn in reverse video (kvmtop -C: no colours, the selection reversed),
read from tmux capture-pane -e.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from tap import ok, eq, skip, done, kvmtop, kvmgen, traces
from names import VMX

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
W, H = 120, 30
SOCK = [None]
# tmux's socket: a Unix socket path has at most 107 bytes, so never under a build tree's long path
SOCK_DIR = tempfile.mkdtemp(prefix="kvmtop-keys-")


def tmux(*args):
    return subprocess.run(["tmux", "-S", SOCK[0]] + list(args), capture_output=True, timeout=20)


def screen(esc=False):
    """The pane's lines; esc: with the attributes as escape sequences (tmux capture-pane -e)."""
    out = tmux("capture-pane", "-p", "-t", "k", *(["-e"] if esc else [])).stdout
    return out.decode("utf-8", "replace").splitlines()


def drawn(lines):
    """The whole screen is drawn: curses writes a redraw top first, the bottom line last (the
    function bar, a line being edited, or the help's)."""
    return len(lines) >= 5 and lines[0].startswith("kvmtop") and bool(lines[-1].strip())


def wait_for(pred, timeout=10):
    """Poll until pred(lines) holds for a whole drawn screen, then until two captures 0.1 s apart
    agree (tmux may catch a redraw half done): the lines, or the last seen."""
    end = time.time() + timeout
    lines = []
    while time.time() < end:
        lines = screen()
        if drawn(lines) and pred(lines):
            time.sleep(0.1)
            again = screen()
            if again == lines:
                return lines
            continue
        time.sleep(0.1)
    return lines


def keys(*k):
    tmux("send-keys", "-t", "k", *k)


def start(args, width=W, env="", err="/dev/null", height=H):
    """A fresh tmux server per run, kvmtop -C (no colours: the selection is reverse video), the
    variables env set, its stderr to err (the settings file's lines)."""
    if SOCK[0]:
        tmux("kill-server")
    start.n = getattr(start, "n", 0) + 1
    SOCK[0] = os.path.join(SOCK_DIR, "tmux-%d.sock" % start.n)
    # no settings file of the user's (~/.config/kvmtop/kvmtoprc), unless env names one
    cmd = "XDG_CONFIG_HOME=%s %s %s -C %s 2>%s; echo KVMTOP-EXIT=$?; sleep 60" % (
        SOCK_DIR, env, kvmtop(), " ".join(args), err)
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "k", "-x", str(width), "-y", str(height), cmd)
    tmux("set-option", "-t", "k", "status", "off")


def quit_case(label):
    keys("q")
    lines = wait_for_text("KVMTOP-EXIT=")
    ok(any("KVMTOP-EXIT=0" in l for l in lines), "%s: q ends kvmtop with status 0" % label, "\n".join(lines[:5]))


def wait_for_text(text, timeout=10):
    end = time.time() + timeout
    lines = []
    while time.time() < end:
        lines = screen()
        if any(text in l for l in lines):
            break
        time.sleep(0.1)
    return lines


def has(text):
    return lambda lines: any(text in l for l in lines)


def rows(lines):
    """The table's rows: the lines after the column titles, up to the bottom line."""
    return [r for r in lines[4:-1] if r.strip()] if len(lines) > 4 else []


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def plain(line):
    return SGR.sub("", line)


def selected():
    """The selected row's text (the table line drawn reversed), and its line on the screen."""
    for y, line in enumerate(screen(esc=True)[4:-1]):
        lead = re.match(r"^(?:\x1b\[[0-9;]*m)*", line).group(0)
        params = ";".join(SGR.findall(lead)).split(";")
        # the attributes the line starts with: those after the last reset
        while "0" in params:
            params = params[params.index("0") + 1:]
        if "7" in params:
            return plain(line), y + 4
    return None, None


def sel_name():
    s, y = selected()
    return s.split()[0] if s else None


def settle_sel(want, timeout=5):
    """The selected row's first word, once it is want (or the last seen)."""
    end, got = time.time() + timeout, None
    while time.time() < end:
        got = sel_name()
        if got == want:
            break
        time.sleep(0.1)
    return got


def vms_pane(n):
    """The VMs pane, its n VMs read; a severe finding's landing on the findings pane left."""
    lines = wait_for(lambda ls: has("VMs (%d)" % n)(ls) or has("SEVERITY")(ls), 20)
    if has("SEVERITY")(lines):
        keys("Escape")
    return wait_for(lambda ls: has("VMs (%d)" % n)(ls) and ls[-1].startswith("F1Help"))


def bar(lines):
    return lines[-1] if lines else ""


# --- the mouse: the terminal's own reports, as the mode kvmtop asked for sends them ---

def mouse_flag(name="mouse_any_flag"):
    return tmux("display-message", "-p", "-t", "k", "#{%s}" % name).stdout.decode().strip()


def report(button, x, y, release=False):
    """A mouse report for button at (x, y), 0-based: SGR (1006) if the program asked for it,
    else X10 (ESC [ M, then button, column and line each + 32, the position 1-based), which
    ncurses asks for where the terminal's kmous is \\E[M (TERM=screen, tmux-256color)."""
    if mouse_flag("mouse_sgr_flag") == "1":
        return ["%02x" % b for b in ("\x1b[<%d;%d;%d%s" % (button, x + 1, y + 1, "m" if release else "M")).encode()]
    return ["1b", "5b", "4d"] + ["%02x" % (v + 32) for v in (3 if release else button, x + 1, y + 1)]


def click(x, y, times=1):
    seq = []
    for _ in range(times):
        seq += report(0, x, y) + report(0, x, y, release=True)
    tmux("send-keys", "-t", "k", "-H", *seq)


def wheel(down, x=5, y=10):
    tmux("send-keys", "-t", "k", "-H", *report(65 if down else 64, x, y))


# --- the cases ---

def recording():
    """40 VMs of 2 vCPUs, named as the generator's ps has them: their names as the VMs pane
    shows them, in its order (all have as many exits: the ties go by pid, highest first)."""
    # a name of this process's own: tests/tui_rc.py imports this and runs beside it in make -j
    dat = os.path.join(TMP, "tui-keys-m40-%d.dat" % os.getpid())
    ps = dat + ".ps"
    kvmgen(dat, "x86-6.5", ["-m", "40", "-v", "2", "-n", "20", "-x", "-P", ps])
    vms = json.load(open(ps + ".json"))
    # as the screen writes them: a backslash escaped
    return ["-r", dat, "--threads", ps], [v["name"].replace("\\", "\\\\") for v in sorted(vms, key=lambda v: -v["pid"])]


def search_case(args, order):
    """/ and F3 search as htop's: the selection jumps, the rows stay; n and N again."""
    start(args)
    lines = vms_pane(40)
    shown = [r.split()[0] for r in rows(lines)]
    ok(shown == order[:len(shown)] and len(shown) == H - 5,
       "the VMs pane: 40 VMs by pid, highest first, %d on the screen" % (H - 5), "\n".join(lines[:8]))
    kt = [n for n in order if n.startswith("kt-")]
    # the selection under the first match: a search starts from the top, as htop's
    keys("Down", "Down", "Down")
    settle_sel(order[3])
    keys("/")
    keys("-l", "kt-00")
    lines = wait_for(lambda ls: bar(ls).startswith("Search: kt-00_"))
    eq((settle_sel(kt[0]), len(rows(lines))), (kt[0], H - 5),
       "search: / and kt-00 select the first VM from the top that holds it (%s); no row is "
       "filtered out (/ no longer filters)" % kt[0])
    keys("F3")
    eq(settle_sel(kt[1]), kt[1], "search: F3 in the search goes to the next (%s)" % kt[1])
    keys("Enter")
    lines = wait_for(lambda ls: bar(ls).startswith("F1Help"))
    ok(bar(lines).startswith("F1Help") and sel_name() == kt[1],
       "search: Enter ends it where it is, the function bar back", bar(lines))
    keys("n")
    eq(settle_sel(kt[2]), kt[2], "search: n goes to the next (%s)" % kt[2])
    keys("N")
    keys("N")
    eq(settle_sel(kt[0]), kt[0], "search: N goes back, twice (%s)" % kt[0])
    keys("N")
    eq(settle_sel(kt[-1]), kt[-1], "search: N from the first goes round to the last (%s)" % kt[-1])
    keys("/")
    keys("-l", "zz")
    lines = wait_for(lambda ls: bar(ls).startswith("Search: zz_"))
    ok("no row holds it" in bar(lines) and sel_name() == kt[-1],
       "search: a text no row holds says so, the selection stays", bar(lines))
    keys("Escape")
    quit_case("search")


def filter_case(args, order):
    """\\ and F4 filter as / did: as typed, Enter keeps it, Esc clears it."""
    start(args)
    vms_pane(40)
    keys("\\")
    keys("-l", "kt-00")
    want = [n for n in order if "kt-00" in n]
    lines = wait_for(lambda ls: [r.split()[0] for r in rows(ls)] == want)
    eq(([r.split()[0] for r in rows(lines)], bar(lines)[:15]), (want, "Filter: kt-00_"),
       "filter: \\ and kt-00 keep the %d VMs that hold it, as typed" % len(want))
    keys("Escape")
    lines = wait_for(lambda ls: len(rows(ls)) == H - 5)
    eq(len(rows(lines)), H - 5, "filter: Esc clears it")
    keys("F4")
    keys("-l", "vm-")
    keys("Enter")
    want = [n for n in order if "vm-" in n]
    lines = wait_for(lambda ls: [r.split()[0] for r in rows(ls)] == want and bar(ls).startswith("F1Help"))
    eq([r.split()[0] for r in rows(lines)], want, "filter: F4, vm- and Enter keep the %d VMs" % len(want))
    keys("Escape")
    lines = wait_for(lambda ls: len(rows(ls)) == H - 5)
    eq(len(rows(lines)), H - 5, "filter: Esc on the VMs pane clears a kept filter")
    # a narrow terminal: the function bar cut at its width, quit kept at its end
    tmux("resize-window", "-t", "k", "-x", "50", "-y", str(H))
    lines = wait_for(lambda ls: max(len(l) for l in ls) <= 50 and bar(ls).rstrip().endswith("F10Quit"))
    ok(bar(lines).startswith("F1Help F2Setup F3Search") and bar(lines).rstrip().endswith(" F10Quit")
       and len(bar(lines)) <= 50, "function bar at 50 columns: cut, F10Quit still at its end", bar(lines))
    quit_case("filter")


def message(lines):
    return lines[2] if len(lines) > 2 else ""


def keys_replay_case():
    """htop's and top's keys, on a recording: ! findings, S cumulative, w stolen
    by (s is the delay, which a recording answers with its -d); each pane's function bar."""
    dat = os.path.join(TMP, "tui-keys-steal.dat")
    kvmgen(dat, "x86-6.5", ["-v", "2", "-n", "300", "-C", "2", "-x", "-w", "-T", "1"])
    start(["-r", dat], width=160)
    lines = vms_pane(1)
    b = bar(lines)
    ok(all(k in b for k in ("F1Help", "F3Search", "F4Filter", "F6SortBy", "EnterOpen", "TabSwitch",
                            "!Findings", "SCumul", "[]Interval", "F10Quit"))
       and not any(k in b for k in ("EscBack", "wStolenBy", "ZPause", "sDelay", "tKind")),
       "function bar, VMs pane of a recording: its keys, not Esc, w, Z, s, t", b)
    keys("!")
    lines = wait_for(has("SEVERITY"))
    ok(has("SEVERITY")(lines) and "!Findings" not in bar(lines) and "EscBack" in bar(lines),
       "! opens the findings pane (its bar: Esc, no !)", "\n".join(lines[:4] + [bar(lines)]))
    keys("Escape")
    keys("S")
    lines = wait_for(lambda ls: bar(ls).endswith("cumulative"))
    ok(bar(lines).endswith("cumulative"), "S turns cumulative figures on (the bar says so)", bar(lines))
    keys("S")
    lines = wait_for(lambda ls: not bar(ls).endswith("cumulative"))
    ok(not bar(lines).endswith("cumulative"), "S again turns them off", bar(lines))
    keys("Enter")
    lines = wait_for(has("vCPUs of VM"))
    ok(all(k in bar(lines) for k in ("EnterOpen", "EscBack", "TabSwitch", "wStolenBy")),
       "function bar, vCPUs pane: Enter, Esc, Tab, w", bar(lines))
    keys("s")
    lines = wait_for(lambda ls: "replay: -d sets the interval" in message(ls))
    ok("replay: -d sets the interval" in message(lines) and not has("Stolen by")(lines),
       "s is the delay (a recording's: -d), no longer stolen by", message(lines))
    keys("w")
    lines = wait_for(has("Stolen by"))
    ok(any(l.startswith("Stolen by") for l in lines), "w opens stolen by", "\n".join(lines[:4]))
    keys("Escape", "Escape", "Tab")
    lines = wait_for(has("Guest IPs of VM"))
    ok(all(k in bar(lines) for k in ("tKind", "gBySym", "EscBack")) and "EnterOpen" not in bar(lines),
       "function bar, guest IPs pane: t and g, Esc, no Enter", bar(lines))
    quit_case("htop's and top's keys, a recording")


def debugfs_tree(pid):
    """A live source without KVM or root: a debugfs tree of one VM's counters."""
    root = tempfile.mkdtemp(dir=TMP, prefix="tui-keys-debugfs-")
    os.makedirs(os.path.join(root, "kvm", "%d-11" % pid))
    for name, v in (("exits", 0), ("io_exits", 0), ("%d-11/exits" % pid, 100), ("%d-11/io_exits" % pid, 5)):
        with open(os.path.join(root, "kvm", name), "w") as f:
            f.write("%d\n" % v)
    return root


def keys_live_case():
    """htop's and top's keys, live: Z pauses; s and d set the delay."""
    vm = subprocess.Popen(["sleep", "60"])
    root = debugfs_tree(vm.pid)
    try:
        start(["--source", "debugfs", "--debugfs", root, "-d", "0.5"])
        lines = wait_for(lambda ls: bar(ls).startswith("F1Help"))
        b = bar(lines)
        ok(all(k in b for k in ("ZPause", "sDelay", "F10Quit")) and "[]Interval" not in b,
           "function bar, live: Z and s, no [ ]", b)
        keys("Z")
        lines = wait_for(lambda ls: "PAUSED" in ls[0])
        ok("PAUSED" in lines[0], "Z pauses", lines[0])
        keys("Z")
        lines = wait_for(lambda ls: "PAUSED" not in ls[0])
        ok("PAUSED" not in lines[0], "Z again resumes", lines[0])
        for k in ("s", "d"):
            keys(k)
            lines = wait_for(lambda ls: bar(ls).startswith("Delay (s): _") and "now 0.5 s" in bar(ls))
            ok(bar(lines).startswith("Delay (s): _") and "now 0.5 s" in bar(lines),
               "%s asks for the delay on an empty line, saying the delay now" % k, bar(lines))
            keys("Escape")
        keys("s", "2", "Enter")
        lines = wait_for(lambda ls: "delay 2s" in ls[0])
        ok("delay 2s" in lines[0], "s, 2, Enter: the delay is 2 s", lines[0])
        quit_case("htop's and top's keys, live")
    finally:
        vm.kill()
        vm.wait()
        shutil.rmtree(root, ignore_errors=True)


def mouse_case(args, order):
    """Clicks on a column title sort (again: invert), on a row select, twice open; the wheel
    scrolls three rows; a click on the function bar is its key; the mouse given back at the end."""
    start(args)
    lines = vms_pane(40)
    ok(mouse_flag() == "1", "mouse: kvmtop asks the terminal for mouse reports", mouse_flag())
    titles = lines[3]
    x = titles.index("PID")
    click(x + 1, 3)
    lines = wait_for(lambda ls: "PID\u25b2" in ls[3])
    pids = [int(r.split()[1]) for r in rows(lines)]
    ok("PID\u25b2" in lines[3] and pids == sorted(pids) and "EXITS/s\u25bc" not in lines[3],
       "mouse: a click on PID's title sorts by pid, lowest first", "\n".join(lines[3:8]))
    click(x + 1, 3)
    lines = wait_for(lambda ls: "PID\u25bc" in ls[3])
    pids = [int(r.split()[1]) for r in rows(lines)]
    ok("PID\u25bc" in lines[3] and pids == sorted(pids, reverse=True),
       "mouse: a second click on it inverts the order", "\n".join(lines[3:8]))
    keys("Home")
    wait_for(lambda ls: sel_name() == order[0])
    before = rows(screen())
    click(5, 9)
    want = before[5].split()[0]
    eq(settle_sel(want), want, "mouse: a click on the sixth row selects it (%s)" % want)
    wheel(True)
    lines = wait_for(lambda ls: rows(ls)[:1] == [before[3]])
    eq((rows(lines)[0].split()[0], settle_sel(order[8])), (order[3], order[8]),
       "mouse: the wheel down scrolls three rows, the selection with them")
    wheel(True)
    wheel(False)
    wheel(False)
    lines = wait_for(lambda ls: rows(ls)[:1] == [before[0]] and sel_name() == order[5])
    eq((rows(lines)[0].split()[0], sel_name()), (order[0], order[5]),
       "mouse: down, up, up: back at the top, the selection where it was")
    click(5, 6, times=2)
    lines = wait_for(has("vCPUs of VM"))
    ok(("vCPUs of VM %s (pid" % order[2]) in message(lines),
       "mouse: a double click on the third row opens its vCPUs (%s)" % order[2], message(lines))
    keys("Escape")
    lines = wait_for(has("VMs (40)"))
    click(bar(lines).index("F1Help") + 2, H - 1)
    lines = wait_for(has("Help:"))
    ok(has("Help:")(lines), "mouse: a click on F1Help in the function bar opens the help",
       "\n".join(lines[:3]))
    keys("Escape")
    wait_for(has("VMs (40)"))
    quit_case("mouse")
    eq(mouse_flag(), "0", "mouse: after q the terminal's mouse is its own again")


# --- the help pane: the key table's texts, wrapped to the width ---

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
C_STR = r'"((?:[^"\\]|\\.)*)"'
HELP_KEY_W = 26		# ui/pane_help.c's key column; the text starts one column after it


def c_str(s):
    return s.encode().decode("unicode_escape")


def help_table():
    """What the help pane must show, from the sources, not from kvmtop: each key's label and
    help text (ui/tui_keys.c's tui_keys[]: label, brief, help), then each column's (ui/pane_help.c)."""
    src = open(os.path.join(SRC, "ui", "tui_keys.c")).read()
    body = src[src.index("tui_keys[] = {"):]
    body = body[:body.index("\n};")]
    keys_ = [(c_str(m[0]), c_str(m[2])) for m in
             re.findall(r"^\t\{ %s, %s,\s*%s" % (C_STR, C_STR, C_STR), body, re.M)]
    src = open(os.path.join(SRC, "ui", "pane_help.c")).read()
    body = src[src.index("help_columns[] = {"):]
    body = body[:body.index("\n};")]
    cols = [(c_str(m[0]), c_str(m[1])) for m in re.findall(r"^\t\{ %s, %s \}" % (C_STR, C_STR), body, re.M)]
    return keys_ + cols


def help_lines(lines):
    """The help pane's table lines on the screen (between the column titles and the bottom line)."""
    return [l.rstrip() for l in lines[4:-1]]


def help_pages():
    """Every line of the help pane, paged through with PgDn from Home: each page merged on the
    lines it shares with the one before (PgDn keeps the last line in view)."""
    keys("Home")
    lines = wait_for(lambda ls: selected()[1] == 4)
    got = help_lines(lines)
    while got and not got[-1]:
        got.pop()
    for _ in range(40):
        before = selected()
        keys("NPage")
        end = time.time() + 5
        while time.time() < end and selected() == before:
            time.sleep(0.1)
        if selected() == before:
            break		# the last line was selected already
        page = help_lines(wait_for(lambda ls: True))
        while page and not page[-1]:
            page.pop()
        k = max([n for n in range(min(len(got), len(page)) + 1) if got[len(got) - n:] == page[:n]])
        got += page[k:]
    return got


def help_entries(lines):
    """The (key, text) pairs the lines show: a key starts one, a line without a key carries on its
    text (joined with one space), a blank line between none."""
    out = []
    for l in lines:
        key, text = l[:HELP_KEY_W].strip(), l[HELP_KEY_W + 1:].strip()
        if key:
            out.append([key, text])
        elif text and out:
            out[-1][1] += " " + text
    return [tuple(e) for e in out]


def help_case(args, width, height):
    """The help pane at width x height: every key's and column's text whole and in order (a word
    cut or broken would not join back into the table's text), each line within the width, wrapped
    at the last space that fits (the next line's first word would not have), to its last entry."""
    label = "help pane at %dx%d" % (width, height)
    start(args, width=width, height=height)
    vms_pane(40)
    keys("h")
    lines = wait_for(has("Help: kvmtop keys"))
    ok(has("Help: kvmtop keys")(lines), "%s: h opens it" % label, "\n".join(lines[:4]))
    want = help_table()
    ok(len(want) >= 25, "%s: the key table and the columns read from the sources (%d)" % (label, len(want)))
    got = help_pages()
    text_w = min(200, width - HELP_KEY_W - 1)
    long_ = [l for l in got if len(l) > width or len(l[HELP_KEY_W + 1:]) > text_w]
    eq(long_, [], "%s: no line wider than the screen or its text column (%d)" % (label, text_w))
    eq(help_entries(got), want, "%s: every key's and column's text whole, in the table's order" % label)
    early = []
    for a, b in zip(got, got[1:]):
        ta, tb = a[HELP_KEY_W + 1:], b[HELP_KEY_W + 1:]
        if ta and tb and not b[:HELP_KEY_W].strip() and len(ta) + 1 + len(tb.split()[0]) <= text_w:
            early.append((a, b))
    eq(early, [], "%s: each text broken at the last space that fits the width" % label)
    ok(any(len(l) > 60 for l in got) if width >= 160 else True,
       "%s: a wide screen's lines use its width" % label)
    keys("End")
    lines = wait_for(lambda ls: selected()[0] is not None and selected()[0].strip() == help_lines(ls)[-1].strip())
    last_key, last_text = want[-1]
    tail = [l for l in help_lines(lines) if l]
    sel = selected()[0]
    ok(bool(tail) and help_entries(tail)[-1] == (last_key, last_text) and sel is not None and
       sel.rstrip() == tail[-1],
       "%s: End scrolls to the last entry (%s), whole, its last line selected" % (label, last_key),
       "\n".join(tail[-4:]))
    keys("Escape")
    lines = vms_pane(40)
    ok(has("VMs (40)")(lines), "%s: Esc goes back to the VMs pane" % label)
    quit_case(label)


def no_mouse_case(args):
    """--no-mouse: the terminal is never asked for mouse reports (its own selection works)."""
    start(["--no-mouse"] + args)
    vms_pane(40)
    eq(mouse_flag(), "0", "--no-mouse: the terminal's mouse is left to it (no mouse mode set)")
    quit_case("--no-mouse")


# --- issue 45: top's, htop's and virt-top's keys (P M T, i, 1 2 3, F5, F9); the columns' priorities ---

# VMs of one vCPU each, HLT exits: (name, the seconds of the recording with exits, exits in each, latency ns)
IDLE_VMS = [("vm-a", {1, 2, 3}, 3, 400), ("vm-b", {1}, 5, 900), ("vm-c", {2, 3}, 2, 2500),
            ("vm-d", {1, 3}, 7, 1500), ("vm-e", {2}, 4, 700)]


def idle_recording():
    """kvmgen -S of IDLE_VMS, and the threads file naming them: the kvmtop arguments (-d 1: an
    interval a second, each VM's exits in the middle of its seconds)."""
    ev, ps = [], []
    for n, (name, secs, per, lat) in enumerate(IDLE_VMS):
        pid, tid = 2000 + 100 * n, 2001 + 100 * n
        ev.append((0, "comm %d CPU 0/KVM" % tid))
        ps += ["%d %d /usr/bin/qemu-system-x86_64 -name guest=%s -smp 1" % (t, pid, name) for t in (pid, tid)]
        for sec in sorted(secs):
            for i in range(per):
                t = sec * 10**9 + 5 * 10**8 + i * 10**6 + n * 1000
                ev += [(t, "%d %d %d exit exit_reason=12 isa=1 vcpu_id=0" % (t, n, tid)),
                       (t + lat, "%d %d %d entry vcpu_id=0" % (t + lat, n, tid))]
    script, dat, threads = (os.path.join(TMP, "tui-keys-idle" + x) for x in (".txt", ".dat", ".ps"))
    with open(script, "w") as f:
        f.write("\n".join(e[1] for e in sorted(ev, key=lambda e: e[0])) + "\n")
    with open(threads, "w") as f:
        f.write("\n".join(ps) + "\n")
    kvmgen(dat, "x86-6.5", ["-S", script])
    return ["-r", dat, "--threads", threads, "-d", "1"]


def col_values(lines, title):
    """The values of the right-aligned column whose title starts with title, row by row (the
    first word of each row its name): [(name, value)]."""
    head = lines[3]
    if title not in head:
        return None
    end = head.index(title) + len(title)
    while end < len(head) and head[end] not in " ":
        end += 1		# the sort mark
    return [(r.split()[0], r[:end].split()[-1]) for r in rows(lines)]


def num(v):
    m = {"K": 1e3, "M": 1e6, "G": 1e9}
    return float(v[:-1]) * m[v[-1]] if v[-1] in m else float(v)


def field_titles(*names):
    """The screen titles of fields, read from the table's source (src/model/model_fields.c)."""
    src = open(os.path.join(SRC, "src", "model", "model_fields.c")).read()
    out = []
    for n in names:
        m = re.search(r'\("%s",\s*(?:"[^"]*",\s*)?"([^"]*)"' % n, src)
        lat = re.match(r"^(vm|vcpu)_latency_(\w+)$", n)
        if lat:
            # a latency's row names it by its key: VMLAT("p99", "LAT P99", ...)
            m = re.search(r'%sLAT\("%s",\s*"([^"]*)"' % (lat.group(1).upper(), lat.group(2)), src)
        out.append(m.group(1) if m else None)
    return out


def sort_keys_case(args):
    """T sorts by TOTAL, most first (the generator's exits per VM); M on a recording: RES, all
    "-", says so; P on a vCPUs pane: its UTIL%, most first; M where the pane has no memory."""
    truth = dict((n, len(secs) * per) for n, secs, per, lat in IDLE_VMS)
    start(args)
    vms_pane(len(IDLE_VMS))
    keys("T")
    lines = wait_for(lambda ls: "TOTAL\u25bc" in ls[3])
    got = col_values(lines, "TOTAL") or []
    totals = [int(v) for n, v in got]
    ok("TOTAL\u25bc" in lines[3] and len(got) == len(truth) and totals == sorted(totals, reverse=True),
       "T: the rows by TOTAL, most first (%s)" % totals, "\n".join(lines[3:10]))
    eq(dict((n, int(v)) for n, v in got), truth, "T: every VM's TOTAL is its exits in the recording")
    keys("M")
    lines = wait_for(lambda ls: "RES\u25bc" in ls[3])
    got = col_values(lines, "RES") or []
    ok("RES\u25bc" in lines[3] and got and all(v == "-" for n, v in got) and
       "no row has one here" in message(lines),
       "M: the VMs pane by RES (drawn though off until picked), a recording has none: '-', said",
       "\n".join(lines[2:5]))
    keys("Enter")
    lines = wait_for(has("vCPUs of VM"))
    keys("M")
    lines = wait_for(lambda ls: "no such column" in message(ls))
    ok("M sorts by resident memory" in message(lines) and "the vCPUs pane has no such column" in message(lines),
       "M on the vCPUs pane: one line, it has no memory column", message(lines))
    quit_case("P M T")


def util_sort_case():
    """P: the VMs pane and a vCPUs pane by UTIL%, most first (the values as printed), on a
    recording with the vCPUs' time states (kvmgen -w)."""
    dat = os.path.join(TMP, "tui-keys-util.dat")
    ps = dat + ".ps"
    kvmgen(dat, "x86-6.5", ["-m", "6", "-v", "2", "-n", "300", "-C", "2", "-w", "-T", "1", "-P", ps])
    start(["-r", dat, "--threads", ps], width=80, height=24)
    vms_pane(6)
    keys("P")
    lines = wait_for(lambda ls: "UTIL%\u25bc" in ls[3])
    got = [num(v) for n, v in col_values(lines, "UTIL%") or []]
    ok(len(got) == 6 and got == sorted(got, reverse=True) and got[0] > got[-1],
       "P: the VMs by UTIL%%, most first (%s)" % got, "\n".join(lines[3:10]))
    keys("Enter")
    lines = wait_for(lambda ls: "vCPUs of VM" in ls[2])
    keys("P")
    lines = wait_for(lambda ls: "UTIL%\u25bc" in ls[3] and "vCPUs of VM" in ls[2])
    got = [num(v) for n, v in col_values(lines, "UTIL%") or []]
    ok(len(got) == 2 and got == sorted(got, reverse=True),
       "P on the vCPUs pane: its vCPUs by UTIL%%, most first (%s)" % got, "\n".join(lines[2:6]))
    quit_case("P")


def idle_case(args):
    """i hides the VMs without exits in the interval: interval 2 (]) keeps exactly those the
    generator gave exits in its second second; again shows them all; W keeps it in the settings
    file, which the next start reads."""
    busy = sorted(n for n, secs, per, lat in IDLE_VMS if 2 in secs)
    cfg = tempfile.mkdtemp(dir=TMP, prefix="tui-keys-idle-cfg-")
    start(args, env="XDG_CONFIG_HOME=%s" % cfg)
    vms_pane(len(IDLE_VMS))
    keys("]", "]")
    lines = wait_for(lambda ls: "interval 2/" in ls[0])
    eq(len(rows(lines)), len(IDLE_VMS), "interval 2: every VM listed before i")
    keys("i")
    lines = wait_for(lambda ls: "idle rows hidden" in ls[2])
    eq((sorted(r.split()[0] for r in rows(lines)), "idle rows hidden" in lines[2]), (busy, True),
       "i: exactly the VMs with exits in interval 2 (the generator's: %s), the title says so" % busy)
    keys("i")
    lines = wait_for(lambda ls: "idle rows hidden" not in ls[2] and len(rows(ls)) == len(IDLE_VMS))
    eq(len(rows(lines)), len(IDLE_VMS), "i again: every VM")
    keys("i", "W")
    rc = os.path.join(cfg, "kvmtop", "kvmtoprc")
    end = time.time() + 5
    while time.time() < end and not os.path.exists(rc):
        time.sleep(0.1)
    text = open(rc).read() if os.path.exists(rc) else ""
    ok("idle = hidden" in text.splitlines(), "W writes idle = hidden", text)
    quit_case("i")
    start(args, env="XDG_CONFIG_HOME=%s" % cfg)
    lines = wait_for(lambda ls: "idle rows hidden" in ls[2])
    ok("idle rows hidden" in lines[2], "the settings file's idle = hidden: the next start hides them",
       "\n".join(lines[:3]))
    quit_case("i from the settings file")
    shutil.rmtree(cfg, ignore_errors=True)


def views_case(args):
    """1 2 3: the VMs pane's views (virt-top's), their columns by the fields' titles (the
    table's source), the title naming each; the key again, 0 and Esc go back; F9 says what
    kvmtop has instead."""
    start(args, width=120)
    lines = vms_pane(len(IDLE_VMS))
    own = lines[3]
    for key, name, fields in (("2", "network", ("vm_net_rx_bytes_per_s", "vm_net_tx_bytes_per_s", "vm_net_drops_per_s")),
                              ("3", "disk", ("vm_disk_rd_bytes_per_s", "vm_disk_wr_bytes_per_s")),
                              ("1", "CPU", ("vm_vcpu_count", "vm_util_pct", "vm_steal_pct"))):
        titles = field_titles(*fields)
        keys(key)
        lines = wait_for(lambda ls: ("view %s: %s" % (key, name)) in ls[2])
        ok(("view %s: %s" % (key, name)) in lines[2] and all(t and t in lines[3] for t in titles),
           "%s: the %s view, its columns %s" % (key, name, titles), "\n".join(lines[2:4]))
        back = {"2": [key], "3": ["0"], "1": ["Escape"]}[key]
        keys(*back)
        lines = wait_for(lambda ls: "view" not in ls[2] and ls[3] == own)
        ok("view" not in lines[2] and lines[3] == own, "%s: back to the pane's own columns" % back[0],
           "\n".join(lines[2:4]))
    keys("F9")
    lines = wait_for(lambda ls: "F9:" in message(ls))
    ok("kills nothing" in message(lines) and len(rows(lines)) == len(IDLE_VMS),
       "F9: says kvmtop kills nothing; every VM still there", message(lines))
    quit_case("views")


# F5's tree: VMs of several vCPUs, the tids of one VM between another's (a tree by tid would mix
# them): (name, pid, [(tid, vCPU id, VMX reason, the seconds with exits, exits in each)])
TREE_VMS = [("tree-a", 4100, [(4001, 0, 12, {1, 2}, 4), (4004, 1, 30, {2, 3}, 6), (4007, 2, 1, {1}, 2)]),
            ("tree-b", 4200, [(4002, 0, 30, {1, 3}, 5), (4005, 1, 12, {1, 2, 3}, 3), (4008, 2, 48, {3}, 8)]),
            ("tree-c", 4300, [(4003, 0, 48, {3}, 7), (4006, 1, 12, {1, 3}, 1)])]
# the columns the case draws: the VMs pane's, and the vCPUs pane's of the same figures
TREE_FIELDS = ["vm_name", "vm_pid", "vm_vcpu_count", "vm_exits", "vm_exits_total", "vm_exits_per_s",
               "vm_latency_p99", "vm_top_reason"]
TREE_VCPU_FIELDS = ["vcpu", "vcpu_tid", "vcpu_exits", "vcpu_exits_total", "vcpu_exits_per_s",
                    "vcpu_latency_p99", "vcpu_top_reason"]


def tree_recording():
    """kvmgen -S of TREE_VMS and its threads file (as idle_recording(): an interval a second,
    each vCPU's exits in the middle of its seconds, the first at 1.5 s): the kvmtop arguments."""
    ev, ps, n = [], [], 0
    for name, pid, vcpus in TREE_VMS:
        ps.append("%d %d /usr/bin/qemu-system-x86_64 -name guest=%s -smp %d" % (pid, pid, name, len(vcpus)))
        for tid, vcpu, reason, secs, per in vcpus:
            ev.append((0, "comm %d CPU %d/KVM" % (tid, vcpu)))
            ps.append("%d %d /usr/bin/qemu-system-x86_64 -name guest=%s -smp %d" % (tid, pid, name, len(vcpus)))
            lat = 1000 + 300 * n
            for sec in sorted(secs):
                for i in range(per):
                    t = sec * 10**9 + 5 * 10**8 + i * 10**6 + n * 1000
                    ev += [(t, "%d %d %d exit exit_reason=%d isa=1 vcpu_id=%d" % (t, n % 4, tid, reason, vcpu)),
                           (t + lat, "%d %d %d entry vcpu_id=%d" % (t + lat, n % 4, tid, vcpu))]
            n += 1
    script, dat, threads = (os.path.join(TMP, "tui-keys-tree" + x) for x in (".txt", ".dat", ".ps"))
    with open(script, "w") as f:
        f.write("\n".join(e[1] for e in sorted(ev, key=lambda e: e[0])) + "\n")
    with open(threads, "w") as f:
        f.write("\n".join(ps) + "\n")
    kvmgen(dat, "x86-6.5", ["-S", script])
    return ["-r", dat, "--threads", threads, "-d", "1", "--fields", ",".join(TREE_FIELDS + TREE_VCPU_FIELDS)]


def tree_truth(interval=0):
    """The script's: {VM name: {tid: (vCPU id, exits, top reason's name)}} over the whole
    recording (0) or in interval k (its k-th second), with each VM's exits."""
    out = {}
    for name, pid, vcpus in TREE_VMS:
        out[name] = dict((tid, (vcpu, per * (len(secs) if not interval else interval in secs), VMX[reason]))
                         for tid, vcpu, reason, secs, per in vcpus)
    return out


def title_spans(head, titles):
    """Where each column ends (a right-aligned one: its title's end and a sort mark after it) or
    starts (the left-aligned, first and last), by the titles as drawn: [(title, start, end)]."""
    spans = []
    for t in titles:
        # the sort mark: UTF-8's triangle, or --ascii's v and ^
        m = re.search(r"(?:^|(?<= ))%s(?=[ \u25bc\u25b2v^]|$)" % re.escape(t), head)
        if not m:
            return None
        end = m.end() + (1 if m.end() < len(head) and head[m.end()] in "\u25bc\u25b2v^" else 0)
        spans.append((t, m.start(), end))
    return spans


def tree_rows(lines, titles):
    """The table's rows as cells by the columns' titles: the last (TOP REASON) from its title's
    start, the others right-aligned up to their title's end, each from the end of the one before
    ("" where blank); the first (VM) what is left of the second's, its last word: [dict], or
    None if a title is not drawn."""
    spans = title_spans(lines[3], titles) if len(lines) > 3 else None
    if not spans:
        return None
    out = []
    for r in rows(lines):
        cells, prev = {}, None
        for i, (t, start, end) in enumerate(spans):
            if i == 0:
                m = re.match(r"^(.*?)\s+\S+$", r[:spans[1][2]]) if len(spans) > 1 else None
                cells[t] = m.group(1) if m else r.rstrip()
            elif i == len(spans) - 1:
                cells[t] = r[start:].strip()
            elif prev is None:
                cells[t] = r[:end].split()[-1] if r[:end].split() else ""
            else:
                cells[t] = r[prev + 1:end].strip()
            prev = end if i else None
        out.append(cells)
    return out


TREE_BRANCH = ("\u251c\u2500 vCPU ", "\u2514\u2500 vCPU ")
TREE_ASCII = ("|- vCPU ", "`- vCPU ")


def tree_shape(cells, branch=TREE_BRANCH):
    """The tree the rows draw: [(VM name, [(vCPU id, PID cell, its cells, the last glyph)])], or
    None where a row is neither a VM's nor a vCPU's under one."""
    vm, out = field_titles("vm_name")[0], []
    for c in cells:
        name = c[vm]
        kid = [g for g in branch if name.startswith(" " + g)]
        if kid and out:
            out[-1][1].append((name[len(kid[0]) + 1:], c[field_titles("vm_pid")[0]], c, kid[0] == branch[1]))
        elif not name.startswith(" ") and name:
            out.append((name, []))
        else:
            return None
    return out


def tree_check(label, shape, truth, order=True):
    """Each VM followed by exactly its vCPUs (the script's tids), each's EXITS, TOTAL and TOP
    REASON the script's, VCPUS blank on a vCPU's row; the last glyph on the last; the vCPUs by
    their exits, most first (the default sort's vCPU figure)."""
    exits, total, top, vcpus = field_titles("vm_exits", "vm_exits_total", "vm_top_reason", "vm_vcpu_count")
    got = dict((vm, sorted(int(pid) for _, pid, _, _ in kids)) for vm, kids in shape or [])
    eq(got, dict((vm, sorted(t)) for vm, t in truth.items()),
       "%s: each VM followed by exactly its vCPUs (the script's threads)" % label)
    bad = []
    for vm, kids in shape or []:
        for k, (vid, pid, c, last) in enumerate(kids):
            want = truth.get(vm, {}).get(int(pid))
            if not want or (vid, c[exits], c[vcpus], c[top]) != (str(want[0]), str(want[1]), "", want[2][:16]) \
                    or last != (k == len(kids) - 1):
                bad.append((vm, vid, pid, c[exits], c[vcpus], c[top], last, want))
        if order and [int(c[exits]) for _, _, c, _ in kids] != sorted((int(c[exits]) for _, _, c, _ in kids),
                                                                     reverse=True):
            bad.append((vm, "order", [c[exits] for _, _, c, _ in kids]))
    eq(bad, [], "%s: each vCPU's row: its id, EXITS and TOP REASON the script's, VCPUS blank (no "
       "vCPU figure), the last one's glyph the last, by EXITS most first" % label)


def tree_vcpus_pane(shape):
    """Each VM's vCPUs pane (Enter on its row): its rows' cells by the vCPU fields' titles;
    {tid: {title: cell}} of every VM."""
    titles = field_titles(*TREE_VCPU_FIELDS)
    out = {}
    for n, (vm, kids) in enumerate(shape):
        keys("Home")
        for _ in range(sum(1 + len(k) for _, k in shape[:n])):
            keys("Down")
        wait_for(lambda ls: sel_name() == vm)
        keys("Enter")
        lines = wait_for(lambda ls: ("vCPUs of VM %s " % vm) in ls[2] and len(rows(ls)) == len(kids))
        for c in tree_rows(lines, titles) or []:
            out[c[field_titles("vcpu_tid")[0]]] = c
        keys("Escape")
        wait_for(lambda ls: "tree" in ls[2])
    return out


def tree_case(args):
    """F5: the VMs pane as htop's tree (the script's VMs and vCPUs), each vCPU's figures those of
    the vCPUs pane; Enter on a vCPU opens its exit reasons, a double click too; i hides idle
    vCPUs; F5 again flat; W keeps it, a restart shows it; --ascii draws it in ASCII."""
    titles = field_titles(*TREE_FIELDS)
    cfg = tempfile.mkdtemp(dir=TMP, prefix="tui-keys-tree-cfg-")
    start(args, env="XDG_CONFIG_HOME=%s" % cfg)
    vms_pane(len(TREE_VMS))
    keys("F5")
    lines = wait_for(lambda ls: "VMs (3), tree" in ls[2] and len(rows(ls)) == 11)
    shape = tree_shape(tree_rows(lines, titles) or [])
    ok("VMs (3), tree" in lines[2] and shape is not None, "F5: the title says tree, every row a VM's or a "
       "vCPU's under it", "\n".join(lines[2:16]))
    truth = tree_truth()
    tree_check("F5", shape, truth)
    vm_exits = [sum(e for _, e, _ in truth[vm].values()) for vm, _ in shape or []]
    ok(vm_exits == sorted(vm_exits, reverse=True), "F5: the VMs in the pane's order (EXITS/s, most first)")
    # the figures as the vCPUs pane shows them, column for column
    pane = tree_vcpus_pane(shape or [])
    same = field_titles("vm_exits", "vm_exits_total", "vm_exits_per_s", "vm_latency_p99", "vm_top_reason")
    # (TOP REASON cut at the VMs pane's width, 16)
    diff = [(pid, t, c[t], pane.get(pid, {}).get(t)) for _, kids in shape or [] for _, pid, c, _ in kids
            for t in same if c[t] != (pane.get(pid, {}).get(t) or "?")[:16 if t == same[-1] else None]]
    eq((diff, len(pane)), ([], 8), "F5: each vCPU's EXITS, TOTAL, EXITS/s, LAT P99 and TOP REASON as its VM's "
       "vCPUs pane shows them")
    # Enter on a vCPU's row: the second VM's last vCPU
    vm, kids = shape[1]
    vid, pid = kids[-1][0], kids[-1][1]
    keys("Home")
    for _ in range(len(shape[0][1]) + 1 + len(kids)):
        keys("Down")
    lines = wait_for(lambda ls: (selected()[0] or "").split()[3:4] == [pid])
    keys("Enter")
    lines = wait_for(lambda ls: "Exit reasons of vCPU" in ls[2])
    ok(("Exit reasons of vCPU %s (tid %s) of VM %s" % (vid, pid, vm)) in lines[2],
       "F5: Enter on vCPU %s's row (tid %s) opens its exit reasons" % (vid, pid), lines[2])
    keys("Escape")
    lines = wait_for(lambda ls: "tree" in ls[2])
    eq((selected()[0] or "").split()[3:4], [pid], "F5: Esc back to the tree, the vCPU still selected")
    # a double click on the first VM's first vCPU
    c0 = shape[0][1][0]
    click(5, 5, times=2)
    lines = wait_for(lambda ls: "Exit reasons of vCPU" in ls[2])
    ok(("Exit reasons of vCPU %s (tid %s) of VM %s" % (c0[0], c0[1], shape[0][0])) in lines[2],
       "F5: a double click on a vCPU's row opens its exit reasons", lines[2])
    keys("Escape")
    wait_for(lambda ls: "tree" in ls[2])
    # interval 2, i: only the vCPUs with exits in the script's second second, their exits those
    keys("]", "]", "i")
    two = tree_truth(2)
    busy = dict((vm, dict((t, v) for t, v in kids.items() if v[1])) for vm, kids in two.items())
    busy = dict((vm, kids) for vm, kids in busy.items() if kids)
    lines = wait_for(lambda ls: "interval 2/" in ls[0] and "idle rows hidden" in ls[2] and
                     len(rows(ls)) == len(busy) + sum(len(k) for k in busy.values()))
    shape2 = tree_shape(tree_rows(lines, titles) or [])
    tree_check("interval 2, i", shape2, busy)
    keys("i", "[", "[")
    wait_for(lambda ls: "whole recording" in ls[0] and len(rows(ls)) == 11)
    keys("F5")
    lines = wait_for(lambda ls: "tree" not in ls[2] and "VMs (3)" in ls[2])
    eq(sorted(r.split()[0] for r in rows(lines)), sorted(vm for vm, _, _ in TREE_VMS),
       "F5 again: the VMs pane flat, the title without tree")
    keys("F5", "W")
    rc = os.path.join(cfg, "kvmtop", "kvmtoprc")
    end = time.time() + 5
    while time.time() < end and not os.path.exists(rc):
        time.sleep(0.1)
    text = open(rc).read() if os.path.exists(rc) else ""
    ok("tree = on" in text.splitlines(), "W writes tree = on", text)
    keys("Enter")
    wait_for(lambda ls: "vCPUs of VM" in ls[2])
    keys("F5")
    lines = wait_for(lambda ls: "F5:" in message(ls))
    ok("the tree is the VMs pane's" in message(lines), "F5 on the vCPUs pane: says the tree is the VMs "
       "pane's", message(lines))
    quit_case("tree")
    start(args + ["--ascii"], env="XDG_CONFIG_HOME=%s" % cfg)
    lines = wait_for(lambda ls: "VMs (3), tree" in ls[2] and len(rows(ls)) == 11, 20)
    ok("VMs (3), tree" in lines[2], "the settings file's tree = on: the next start shows the tree", lines[2])
    tree_check("tree = on, --ascii", tree_shape(tree_rows(lines, titles) or [], TREE_ASCII), truth)
    quit_case("tree from the settings file")
    shutil.rmtree(cfg, ignore_errors=True)


def trace_summary():
    """The event counts trace-cmd report gives of the recording (its oracle file), or None."""
    path = os.path.join(traces(), "x86-vmx-ubuntu-6.5", "oracle",
                        "host_k6.5.0-21_2024-02-28_2caa92de_trace.summary.txt")
    if not os.path.exists(path):
        return None
    counts, sec = {}, None
    for l in open(path):
        if l.startswith("## "):
            sec = l[3:].strip()
        elif sec and sec.startswith("event counts") and l.strip():
            n, ev = l.split()[:2]
            counts[ev.rstrip(":")] = int(n)
    return counts


def priorities_case():
    """At 80x24 and 200x50 on a real recording: the name, EXITS/s, TOTAL (summing to trace-cmd's
    kvm_exit count) and TOP REASON drawn; UEXITS/s and EVENTS/s not, as the recording holds no
    such event (trace-cmd's counts); a recording with them (kvmgen -x) draws UEXITS/s."""
    counts = trace_summary()
    if counts is None:
        skip("columns' priorities on a real recording", "KVMTOP_TRACES has no x86-vmx-ubuntu-6.5 recording")
        return
    dat = os.path.join(traces(), "x86-vmx-ubuntu-6.5", "host_k6.5.0-21_2024-02-28_2caa92de_trace.dat")
    for w, h in ((80, 24), (200, 50)):
        start(["-r", dat], width=w, height=h)
        lines = vms_pane(2)
        head = lines[3]
        total = sum(int(v) for n, v in col_values(lines, "TOTAL") or [])
        ok(all(t in head for t in ("VM", "EXITS/s", "TOTAL", "TOP REASON")) and total == counts["kvm_exit"],
           "%dx%d: VM, EXITS/s, TOTAL (sum %d, trace-cmd's kvm_exit %d) and TOP REASON drawn"
           % (w, h, total, counts["kvm_exit"]), head)
        other = [e for e in counts if e not in ("kvm_exit", "kvm_entry")]
        ok(not other and "UEXITS/s" not in head and "EVENTS/s" not in head,
           "%dx%d: no UEXITS/s or EVENTS/s column: trace-cmd counts no such event (%s)" % (w, h, other), head)
        quit_case("priorities %dx%d" % (w, h))
    dat = os.path.join(TMP, "tui-keys-uexits.dat")
    kvmgen(dat, "x86-6.5", ["-m", "2", "-v", "1", "-n", "50", "-x"])
    start(["-r", dat], width=200, height=50)
    lines = vms_pane(2)
    ok("UEXITS/s" in lines[3], "kvmgen -x (kvm_userspace_exit events): UEXITS/s drawn at 200 columns", lines[3])
    quit_case("priorities, userspace exits")
    cycles_case()


def cycles_case():
    """A recording in TSC cycles has no seconds, so no rate: the VMs and vCPUs panes show each row's
    exits in the span (EXITS, the generator's counts) where EXITS/s would be, the VMs pane sorted by
    them, never a column of "-"."""
    dat = os.path.join(TMP, "tui-keys-cycles.dat")
    truth = kvmgen(dat, "x86-6.5", ["-m", "3", "-v", "2", "-n", "40", "-c", "x86-tsc"], expect=dat + ".json")
    want = {"unknown@%d" % vm["key"]: str(sum(r["count"] for r in vm["reasons"])) for vm in truth["vms"]}
    start(["-r", dat])
    lines = vms_pane(3)
    head = lines[3] if len(lines) > 3 else ""
    got = dict(col_values(lines, "EXITS") or [])
    ok(truth["time_unit"] == "cycles" and got == want and "EXITS\u25bc" in head and "EXITS/s" not in head,
       "cycles: the VMs pane's EXITS, sorted by, are the generator's counts %s; no EXITS/s" % sorted(want.values()),
       "\n".join(lines[:8]))
    keys("Enter")
    lines = wait_for(has("vCPUs of VM"))
    head = lines[3] if len(lines) > 3 else ""
    ok("EXITS" in head.split() and "EXITS/s" not in head, "cycles: the vCPUs pane shows EXITS, not EXITS/s", head)
    quit_case("cycles")


def main():
    if not shutil.which("tmux"):
        skip("tui keys: search, filter, htop's and top's keys, mouse", "tmux is not installed (apt-get install tmux)")
        done()
    args, order = recording()
    try:
        help_case(args, 80, 24)
        help_case(args, 200, 50)
        search_case(args, order)
        filter_case(args, order)
        keys_replay_case()
        keys_live_case()
        mouse_case(args, order)
        no_mouse_case(args)
        idle_args = idle_recording()
        sort_keys_case(idle_args)
        util_sort_case()
        idle_case(idle_args)
        views_case(idle_args)
        tree_case(tree_recording())
        priorities_case()
    finally:
        if SOCK[0]:
            tmux("kill-server")
        shutil.rmtree(SOCK_DIR, ignore_errors=True)
    done()


if __name__ == "__main__":
    main()
