# SPDX-License-Identifier: GPL-2.0
"""The screen's settings file, driven in a real terminal (tmux): a session changes the sort, the
columns (F2, the setup) and the delay, writes them with W, and a new session starts in that state
(the usual file, --config FILE; not with --no-config); the file is replaced whole (a reader of
the old one reads it to its end); a corrupted, truncated, unreadable or huge file never stops
kvmtop: each bad line is one line naming the file and the line, the rest applies.

The oracle is the screen before W (its column titles, its sort mark, its delay), the file as
written, and the good lines written into the bad files by this test; how often the screen is
redrawn (KVMTOP_DRAW_STATS) says whether the driver refreshes at the file's delay.
"""
import json
import os
import random
import shutil
import subprocess
import tempfile
import time

from tap import ok, eq, skip, done
import tui_keys as k

TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def titles(lines):
    return lines[3].split() if len(lines) > 3 else []


def live_pane():
    """Live (the debugfs tree): the VMs pane's titles drawn, the function bar under them."""
    return k.wait_for(lambda ls: titles(ls)[:1] == ["VM"] and k.bar(ls).startswith("F1Help"))


def settings(path):
    """The file as NAME = VALUE pairs."""
    out = {}
    for line in open(path):
        if "=" in line and not line.startswith("#"):
            name, val = line.split("=", 1)
            out[name.strip()] = val.strip()
    return out


def sel_has(text, timeout=5):
    """Whether the selected row comes to hold text."""
    end = time.time() + timeout
    while time.time() < end:
        row, y = k.selected()
        if row and text in row.split():
            return True
        time.sleep(0.1)
    return False


def setup_toggle_move(hide, move_up):
    """F2 on the pane shown: hide column hide, move column move_up one place up (each found with
    the search), back with Esc.  Whether each was found."""
    found = []
    k.keys("F2")
    k.wait_for(k.has("Setup of the VMs pane"))
    for name, key in ((hide, "Enter"), (move_up, "F7")):
        k.keys("/")
        k.keys("-l", name)
        k.keys("Enter")
        found.append(sel_has(name))
        k.keys(key)
    k.keys("Escape")
    return all(found)


def core(ts):
    """Column titles less VCPUS, which the width now has room for where the counters' empty
    UEXITS/s and EVENTS/s are not drawn (issue 45)."""
    return [t for t in ts if t != "VCPUS"]


def write_case(live, xdg):
    """>, F2 (hide PID, TOTAL up a place) and s 2: W writes them; a new session starts so."""
    rc = os.path.join(xdg, "kvmtop", "kvmtoprc")
    env = "XDG_CONFIG_HOME=" + xdg
    k.start(live, env=env)
    lines = live_pane()
    ok(core(titles(lines))[:4] == ["VM", "PID", "EXITS/s\u25bc", "TOTAL"] and not os.path.exists(rc),
       "settings: no file, the VMs pane's own columns and sort", lines[3] if len(lines) > 3 else "")
    k.keys(">")
    k.wait_for(lambda ls: "TOTAL\u25bc" in titles(ls))
    found = setup_toggle_move("vm_pid", "vm_exits_total")
    lines = k.wait_for(lambda ls: core(titles(ls))[:3] == ["VM", "TOTAL\u25bc", "EXITS/s"])
    want = titles(lines)
    ok(found and core(want)[:3] == ["VM", "TOTAL\u25bc", "EXITS/s"] and "PID" not in want,
       "setup: F2, Enter on PID hides it, F7 on TOTAL moves it before EXITS/s", lines[3])
    k.keys("s", "BSpace", "BSpace", "BSpace", "2", "Enter")
    k.wait_for(lambda ls: "delay 2s" in ls[0])
    k.keys("W")
    lines = k.wait_for(lambda ls: "W: the settings are in" in k.message(ls))
    ok(("W: the settings are in %s" % rc) in k.message(lines), "W says where it wrote", k.message(lines))
    got = settings(rc) if os.path.exists(rc) else {}
    cols = got.get("VMs.columns", "").split(",")
    ok(got.get("delay") == "2" and got.get("VMs.sort") == "vm_exits_total"
       and [c for c in cols if c != "vm_vcpu_count"][:3] == ["vm_name", "vm_exits_total", "vm_exits_per_s"]
       and "vm_pid" not in cols,
       "W wrote $XDG_CONFIG_HOME/kvmtop/kvmtoprc: delay 2, VMs sorted by total, its columns", got)
    leftovers = [n for n in os.listdir(os.path.dirname(rc)) if n != "kvmtoprc"]
    eq(leftovers, [], "W leaves no temporary file beside it")
    k.quit_case("settings, first session")
    k.start(live, env=env)
    lines = k.wait_for(lambda ls: "delay 2s" in ls[0] and titles(ls) == want)
    ok("delay 2s" in lines[0] and titles(lines) == want,
       "a new session starts with the file's delay, columns and sort", "\n".join(lines[:4]))
    k.quit_case("settings, second session")
    return rc, want


def config_case(live, rc, want, xdg):
    """--config FILE reads that file; --no-config none (and W then writes nothing)."""
    other = os.path.join(TMP, "tui-rc-other.rc")
    shutil.copy(rc, other)
    empty = tempfile.mkdtemp(dir=TMP, prefix="tui-rc-empty-")
    k.start(["--config", other] + live, env="XDG_CONFIG_HOME=" + empty)
    lines = k.wait_for(lambda ls: titles(ls) == want)
    ok(titles(lines) == want and "delay 2s" in lines[0], "--config FILE: that file's settings",
       "\n".join(lines[:4]))
    k.quit_case("--config")
    k.start(["--no-config"] + live, env="XDG_CONFIG_HOME=" + xdg)
    lines = live_pane()
    ok(core(titles(lines))[:3] == ["VM", "PID", "EXITS/s\u25bc"] and "delay 3s" in lines[0],
       "--no-config: the defaults, the usual file not read", "\n".join(lines[:4]))
    k.keys("W")
    lines = k.wait_for(lambda ls: "W: no settings file" in k.message(ls))
    ok("W: no settings file" in k.message(lines), "--no-config: W writes nothing, and says so", k.message(lines))
    k.quit_case("--no-config")
    shutil.rmtree(empty, ignore_errors=True)


def atomic_case(live, rc):
    """W replaces the file whole: a reader of the old file reads it to its end, unchanged; a link
    stays a link to a file with the new settings."""
    old = open(rc).read()
    target = rc + ".real"
    shutil.copy(rc, target)
    os.unlink(rc)
    os.symlink(os.path.basename(target), rc)
    # opened before W, read after it: the file it had open is still the old one, whole
    reader = open(rc)
    k.start(live, env="XDG_CONFIG_HOME=" + os.path.dirname(os.path.dirname(rc)))
    live_pane()
    k.keys("s", "BSpace", "BSpace", "BSpace", "5", "Enter", "W")
    k.wait_for(lambda ls: "W: the settings are in" in k.message(ls))
    k.quit_case("W over a link")
    ok(reader.read() == old, "W: a reader of the file before reads the old settings whole")
    reader.close()
    ok(os.path.islink(rc) and settings(target).get("delay") == "5",
       "W: the settings file a link, the link stays and its target has the new settings",
       "%s %r" % (os.path.islink(rc), settings(target).get("delay")))
    os.unlink(rc)
    os.rename(target, rc)


def delay_case(live):
    """The file's delay is the driver's: 0.5 s redraws some 7 times in 3.5 s without a key."""
    rc = os.path.join(TMP, "tui-rc-delay.rc")
    stats = os.path.join(TMP, "tui-rc-draws.json")
    with open(rc, "w") as f:
        f.write("delay = 0.5\n")
    if os.path.exists(stats):
        os.unlink(stats)
    k.start(["--config", rc] + live, env="KVMTOP_DRAW_STATS=" + stats)
    live_pane()
    time.sleep(3.5)
    k.quit_case("delay 0.5 from the file")
    draws = json.load(open(stats))["draws"] if os.path.exists(stats) else 0
    ok(draws >= 5, "the file's delay 0.5 s: the screen refreshed each 0.5 s (%d draws in 3.5 s)" % draws)


def start_case(recording):
    """start, colors and history from the file: the findings pane first, the scheme in the
    setup, the H strip the last 10 of 13 snapshots."""
    rc = os.path.join(TMP, "tui-rc-start.rc")
    with open(rc, "w") as f:
        f.write("start = findings\ncolors = light\nhistory = 10\n")
    k.start(["--config", rc, "-d", "0.001"] + recording)
    lines = k.wait_for(k.has("SEVERITY"))
    ok(k.has("SEVERITY")(lines), "start = findings: the screen opens on the findings pane", "\n".join(lines[:4]))
    k.keys("Escape")
    k.wait_for(k.has("VMs (40)"))
    k.keys("F2")
    lines = k.wait_for(k.has("Setup of the VMs pane"))
    ok(any(l.split()[:2] == ["Colours", "light"] for l in lines), "colors = light: the setup says so",
       "\n".join(lines[3:6]))
    k.keys("Escape")
    k.wait_for(k.has("VMs (40)"))
    for i in range(13):
        k.keys("]")
        k.wait_for(k.has("interval %d/" % (i + 1)))
    k.keys("H")
    lines = k.wait_for(k.has("History of VM"))
    ok(any("the last 10 snapshots" in l for l in lines), "history = 10: H draws the last 10 of 13 snapshots",
       "\n".join(l for l in lines if "History" in l))
    k.quit_case("start, colors, history")


def bad_file(label, path, recording, want_sort, want_line, err_lines, extra=""):
    """kvmtop --config path starts on recording: the VMs pane, sorted by want_sort (the file's good
    lines), the title line names the file (and want_line); stderr has err_lines lines, each
    naming the file."""
    err = os.path.join(TMP, "tui-rc-bad.err")
    k.start(["--config", path] + recording, err=err)
    # the recording read: while it is, the title line says how far (a loaded sanitizer run showed
    # "Reading the recording: 0.0 %" there, the file's line coming back once the figures did)
    lines = k.wait_for(lambda ls: want_sort in " ".join(titles(ls)) and k.bar(ls).startswith("F1Help")
                       and not k.message(ls).startswith("Reading the recording"), 15)
    said = k.message(lines)
    ok(want_sort in " ".join(titles(lines)) and said.startswith(path + want_line),
       "%s: kvmtop starts, the good lines apply (%s), the title line names %s%s"
       % (label, want_sort, os.path.basename(path), want_line), "\n".join(lines[:4]))
    k.quit_case(label)
    text = open(err).read().splitlines() if os.path.exists(err) else []
    ok(len(text) == err_lines and all(l.startswith("kvmtop: " + path) for l in text),
       "%s: %d line%s on stderr, each naming the file%s" % (label, err_lines, "s" if err_lines != 1 else "", extra),
       "\n".join(text[:12]))


def bad_cases(recording, rc):
    d = tempfile.mkdtemp(dir=TMP, prefix="tui-rc-bad-")
    rnd = random.Random(7)
    # corrupted: twenty lines of binary between two good lines: eight said, then how many more
    p = os.path.join(d, "corrupted")
    with open(p, "wb") as f:
        f.write(b"VMs.sort = -vm_pid\n")
        for _ in range(20):
            f.write(b"\x01" + bytes(rnd.choice([b for b in range(256) if b != 10]) for _ in range(99)) + b"\n")
        f.write(b"VMs.columns = vm_name,vm_pid,vm_exits_total\n")
    bad_file("corrupted", p, recording, "PID\u25b2", ":2: not text", 9, " (8, then '12 more')")
    # truncated: the written file cut inside a column's name
    text = open(rc).read()
    cut = text.index("vm_exits_per_s", text.index("VMs.columns")) + 6
    p = os.path.join(d, "truncated")
    with open(p, "w") as f:
        f.write(text[:cut].replace("VMs.sort = vm_exits_total", "VMs.sort = -vm_pid"))
    line = text[:cut].count("\n") + 1
    bad_file("truncated", p, recording, "PID\u25b2", ":%d: the VMs pane has no column 'vm_exi'" % line, 1)
    # values out of their set: the tree (F5) and idle rows (i), each said with its line and the values
    p = os.path.join(d, "values")
    with open(p, "w") as f:
        f.write("VMs.sort = -vm_pid\ntree = sideways\nidle = maybe\n")
    bad_file("tree and idle out of their values", p, recording, "PID\u25b2",
             ":2: tree: 'sideways' is not on or off", 2)
    # unreadable: a directory, a FIFO (never waited on), /dev/zero; a file without read permission
    p = os.path.join(d, "fifo")
    os.mkfifo(p)
    for label, path in (("a directory", d), ("a FIFO", p), ("/dev/zero", "/dev/zero")):
        bad_file(label, path, recording, "EXITS/s\u25bc", ": not a regular file", 1)
    p = os.path.join(d, "noread")
    with open(p, "w") as f:
        f.write("VMs.sort = -vm_pid\n")
    os.chmod(p, 0)
    if os.geteuid() == 0:
        skip("unreadable: a file without read permission", "root reads it all the same")
    else:
        bad_file("no read permission", p, recording, "EXITS/s\u25bc", ": Permission denied", 1)
    # huge: 8 MiB of comments after a good line
    p = os.path.join(d, "huge")
    with open(p, "w") as f:
        f.write("VMs.sort = -vm_pid\n")
        f.write("# a comment of the huge file\n" * ((8 << 20) // 29))
    bad_file("huge (%d MiB)" % (os.path.getsize(p) >> 20), p, recording, "PID\u25b2",
             ": over 64 KiB: the rest is not read", 1)
    shutil.rmtree(d, ignore_errors=True)


def old_names_case(recording):
    """A settings file of the names before issue 44 (HACKING, "Names of figures"): it loads as
    the new names would, with exactly one line on stderr naming each old -> new (the man page's
    HISTORY, written here, not read from kvmtop)."""
    d = tempfile.mkdtemp(dir=TMP, prefix="tui-rc-old-")
    p, err = os.path.join(d, "old"), os.path.join(d, "old.err")
    with open(p, "w") as f:
        f.write("VMs.sort = -pid\nVMs.columns = name,pid,total,exits_s,halted,mem_rss\n"
                "vCPUs.columns = vcpu,tid,cpu,exits_s,p99\n")
    k.start(["--config", p] + recording, err=err)
    lines = k.wait_for(lambda ls: "PID\u25b2" in " ".join(titles(ls)) and k.bar(ls).startswith("F1Help")
                       and not k.message(ls).startswith("Reading the recording"), 15)
    eq(titles(lines)[:5], ["VM", "PID\u25b2", "TOTAL", "EXITS/s", "HALT%"],
       "an old settings file: its columns and sort by their new names")
    k.quit_case("old names")
    text = open(err).read().splitlines() if os.path.exists(err) else []
    want = ["pid -> vm_pid", "name -> vm_name", "total -> vm_exits_total", "exits_s -> vm_exits_per_s",
            "halted -> vm_halt_pct", "mem_rss -> vm_mem_rss_bytes", "tid -> vcpu_tid", "cpu -> vcpu_last_cpu",
            "exits_s -> vcpu_exits_per_s", "p99 -> vcpu_latency_p99"]
    ok(len(text) == 1 and text[0].startswith("kvmtop: " + p) and all(w in text[0] for w in want),
       "an old settings file: one line on stderr, naming each old -> new", "\n".join(text[:5]))
    shutil.rmtree(d, ignore_errors=True)


def main():
    if not shutil.which("tmux"):
        skip("settings file on the screen", "tmux is not installed (apt-get install tmux)")
        done()
    recording, order = k.recording()
    vm = subprocess.Popen(["sleep", "600"])
    root = k.debugfs_tree(vm.pid)
    xdg = tempfile.mkdtemp(dir=TMP, prefix="tui-rc-xdg-")
    live = ["--source", "debugfs", "--debugfs", root]
    try:
        rc, want = write_case(live, xdg)
        config_case(live, rc, want, xdg)
        atomic_case(live, rc)
        delay_case(live)
        start_case(recording)
        bad_cases(recording, rc)
        old_names_case(recording)
    finally:
        if k.SOCK[0]:
            k.tmux("kill-server")
        shutil.rmtree(k.SOCK_DIR, ignore_errors=True)
        vm.kill()
        vm.wait()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(xdg, ignore_errors=True)
    done()


main()
