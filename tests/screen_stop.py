#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The screen never spins and always stops (issue 43, item 1).

Without a terminal it can drive -- stdin or stdout not a terminal, a
TERM curses does not know -- the screen ends at once with one line naming
-b, before tracing starts and without a byte to the terminal.  In a real
terminal (tmux) it ends on SIGINT, SIGTERM and SIGHUP within a second in
each of its states: a recording still being read, the whole recording, an
interval stepped to with ], paused with Z, a prompt open, the help; live
on the demo guest where this host has /dev/kvm.  The oracle is the kernel:
whether the process is gone (/proc), the terminal's modes (stty), tmux's
alternate-screen flag, tracefs's instances, the process's CPU time.
"""
import os
import select
import shutil
import signal
import subprocess
import tempfile
import termios
import threading
import time

from tap import ok, skip, done, kvmtop, kvmgen, sanitized

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
BUILD = os.environ.get("KVMTOP_BUILD", os.getcwd())
SAMPLE = os.path.join(BUILD, "sample", "kvmtop-sample.dat")
TRACEFS = "/sys/kernel/tracing"
# a sanitizer build starts and ends slower (LeakSanitizer's scan at exit)
LIMIT = 5.0 if sanitized() else 1.0
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# tmux's socket: a Unix socket path has at most 107 bytes, so never under a build tree's long path
SOCK_DIR = tempfile.mkdtemp(prefix="kvmtop-stop-")
SOCK = [None]
W, H = 120, 30


def instances():
    """tracefs's instances of kvmtop's, or [] where there is no tracefs."""
    try:
        return [n for n in os.listdir(os.path.join(TRACEFS, "instances")) if n.startswith("kvmtop-")]
    except OSError:
        return []


def proc_gone(pid):
    """pid has ended (gone, or a zombie not reaped yet)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def cpu_ticks(pid):
    """utime + stime of pid, in clock ticks, or None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return int(fields[11]) + int(fields[12])


def refused(args, stdin, stdout, env, what):
    """Run kvmtop where the screen cannot be: (status, seconds, stderr lines, instances seen)."""
    seen = set()
    t0 = time.monotonic()
    p = subprocess.Popen([kvmtop()] + args, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                         env=dict(os.environ, **env))
    # its tracefs instance would be named after it: looked for while it runs
    while p.poll() is None and time.monotonic() - t0 < 10:
        seen.update(n for n in instances() if n == "kvmtop-%d" % p.pid)
        time.sleep(0.01)
    if p.poll() is None:
        p.kill()
    err = p.communicate()[1].decode("utf-8", "replace")
    took = time.monotonic() - t0
    seen.update(n for n in instances() if n == "kvmtop-%d" % p.pid)
    return p.returncode, took, [l for l in err.splitlines() if l.strip()], sorted(seen)


def refusal_ok(res, name, quiet=True):
    """quiet: nothing else happened (the terminal untouched, the file not named)."""
    rc, took, lines, seen = res
    ok(rc not in (0, None, -9) and took < LIMIT and len(lines) == 1 and lines[0].startswith("kvmtop: ")
       and "-b" in lines[0].split() and not seen and quiet,
       "%s: one line naming -b, status %s, %.2f s, no tracing instance" % (name, rc, took),
       "stderr %r, instances seen %r, quiet %r" % (lines, seen, quiet))


def drain(fd, secs):
    """What the pty's master reads within secs."""
    out = b""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                b = os.read(fd, 4096)
            except BlockingIOError:
                continue
            except OSError:
                break
            if not b:
                break
            out += b
    return out


def no_terminal_cases():
    """stdin or stdout no terminal, TERM unknown: live (tracing would start) and on the sample."""
    live = os.geteuid() == 0 and os.path.isdir(os.path.join(TRACEFS, "instances"))
    srcs = [("live", [])] if live else []
    srcs += [("the sample recording", ["-r", SAMPLE]), ("--demo", ["--demo"])]
    for label, args in srcs:
        with open(os.devnull) as null:
            refusal_ok(refused(args, null, subprocess.PIPE, {"TERM": "xterm"}, label),
                       "%s, stdin /dev/null" % label)
        out = os.path.join(TMP, "screen-stop.out")
        m, s = os.openpty()
        try:
            with open(out, "w") as f:
                res = refused(args, s, f, {"TERM": "xterm"}, label)
            quiet = drain(m, 0.2) == b"" and os.path.getsize(out) == 0
        finally:
            os.close(m)
            os.close(s)
        refusal_ok(res, "%s, stdin a terminal, stdout a file" % label, quiet)
        m, s = os.openpty()
        try:
            before = termios.tcgetattr(s)
            res = refused(args, s, s, {"TERM": "unknown-xyz"}, label)
            quiet = drain(m, 0.2) == b"" and termios.tcgetattr(s) == before
        finally:
            os.close(m)
            os.close(s)
        refusal_ok(res, "%s, a terminal, TERM=unknown-xyz" % label, quiet)
    if not live:
        skip("live, no terminal: nothing in tracefs's instances", "needs root and tracefs")
    # asked before anything is opened: a recording that is not there is not what the line is about
    missing = os.path.join(TMP, "screen-stop-no-such.dat")
    with open(os.devnull) as null:
        res = refused(["-r", missing], null, subprocess.PIPE, {"TERM": "xterm"}, "missing")
    refusal_ok(res, "a missing recording, stdin /dev/null: the terminal refused first", missing not in "".join(res[2]))
    m, s = os.openpty()
    try:
        res = refused(["-r", missing], s, s, {"TERM": "unknown-xyz"}, "missing")
    finally:
        os.close(m)
        os.close(s)
    refusal_ok(res, "a missing recording, TERM=unknown-xyz: the terminal refused first", missing not in "".join(res[2]))


def tmux(*args):
    return subprocess.run(["tmux", "-S", SOCK[0]] + list(args), capture_output=True, timeout=20)


def screen():
    return tmux("capture-pane", "-p", "-t", "k").stdout.decode("utf-8", "replace").splitlines()


def wait_for(pred, timeout=10):
    end = time.time() + timeout
    lines = []
    while time.time() < end:
        lines = screen()
        if pred(lines):
            return lines
        time.sleep(0.05)
    return lines


def has(text):
    return lambda lines: any(text in line for line in lines)


def start(args, stty, env=""):
    """kvmtop in a fresh tmux server (a new socket: a killed server may take a new session down
    with it); after it, its status and the terminal's modes (stty -a)."""
    if SOCK[0]:
        tmux("kill-server")
    start.n = getattr(start, "n", 0) + 1
    SOCK[0] = os.path.join(SOCK_DIR, "tmux-%d.sock" % start.n)
    cmd = "XDG_CONFIG_HOME=%s %s %s %s; echo KVMTOP-EXIT=$?; stty -a > %s; sleep 60" % (
        SOCK_DIR, env, kvmtop(), " ".join(args), stty)
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "k", "-x", str(W), "-y", str(H), cmd)
    tmux("set-option", "-t", "k", "status", "off")


def kvmtop_pid():
    shell = tmux("list-panes", "-t", "k", "-F", "#{pane_pid}").stdout.decode().split()
    kids = subprocess.run(["pgrep", "-P", shell[0]], capture_output=True).stdout.decode().split() if shell else []
    return int(kids[0]) if kids else None


def stop_case(state, args, reach, sig, env=""):
    """kvmtop in state (reach(): brought there, its screen lines) stops on sig within LIMIT."""
    stty = os.path.join(TMP, "screen-stop.stty")
    if os.path.exists(stty):
        os.unlink(stty)
    start(args, stty, env)
    lines = reach()
    pid = kvmtop_pid()
    took, gone = None, False
    # what it started (the demo guest) ends with it; its tracefs instance is removed
    kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True).stdout.decode().split() if pid else []
    if pid and lines:
        t0 = time.monotonic()
        os.kill(pid, sig)
        while time.monotonic() - t0 < 10:
            if proc_gone(pid):
                gone = True
                break
            time.sleep(0.01)
        took = time.monotonic() - t0
    after = wait_for(lambda ls: has("KVMTOP-EXIT=")(ls) and os.path.exists(stty) and os.path.getsize(stty), 10)
    alt = tmux("display-message", "-p", "-t", "k", "#{alternate_on}").stdout.decode().strip()
    modes = open(stty).read().split() if os.path.exists(stty) else []
    status = [l.strip() for l in after if "KVMTOP-EXIT=" in l]
    left = [k for k in kids if not proc_gone(int(k))] + [n for n in instances() if n == "kvmtop-%s" % pid]
    ok(lines and pid and gone and took < LIMIT and status == ["KVMTOP-EXIT=0"] and alt == "0"
       and "icanon" in modes and "echo" in modes and not left,
       "%s: %s ends kvmtop in %s s, status 0, the terminal given back (cooked, main screen)%s"
       % (state, sig.name, "%.2f" % took if took is not None else "-", ", its %d children gone" % len(kids) if kids else ""),
       "reached %r, pid %s, gone %s, status %r, alternate_on %r, stty %r, left %r, screen:\n%s"
       % (bool(lines), pid, gone, status, alt, [m for m in modes if "icanon" in m or m.lstrip("-") == "echo"],
          left, "\n".join(after[:6])))
    if pid and not gone:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def reader(up, text, *keys_first):
    """Brought to a state: up on the screen (the recording read), then keys, then text."""
    def reach():
        lines = wait_for(lambda ls: has(up)(ls) and not has("Reading the recording")(ls), 20)
        if not has(up)(lines):
            return None
        for k in keys_first:
            tmux("send-keys", "-t", "k", k)
        lines = wait_for(has(text), 10)
        return lines if has(text)(lines) else None
    return reach


def replay_states():
    # Z and s are live only: stepping with ] is a recording's pause
    states = [
        ("the whole recording", reader("VMs (", "VMs (")),
        ("stepped to an interval with ]", reader("VMs (", "interval 1/", "]")),
        ("the search prompt open", reader("VMs (", "Search: ", "/")),
        ("the help", reader("VMs (", "Help:", "h")),
    ]
    for state, reach in states:
        for sig in SIGNALS:
            stop_case("replay, " + state, ["-r", SAMPLE], reach, sig)


def reading_states():
    """A big generated recording, slowed further by a preload: still being read when signalled."""
    so = os.environ.get("SLOWREAD_SO")
    if not so or not os.path.exists(so):
        skip("replay, still reading: the signals", "tests/slowread.so is not built (make check)")
        return
    dat = os.path.join(TMP, "screen-stop-big.dat")
    kvmgen(dat, "x86-6.5", ["-v", "4", "-n", "100000"])
    reading = lambda: (lambda ls: ls if has("Reading the recording: ")(ls) else None)(
        wait_for(has("Reading the recording: "), 10))
    for sig in SIGNALS:
        stop_case("replay, still reading", ["-r", dat], reading, sig, env="LD_PRELOAD=" + so)
    os.unlink(dat)


def live_states():
    if os.geteuid() != 0 or not os.access("/dev/kvm", os.R_OK | os.W_OK):
        skip("live (--demo): the signals", "needs root and /dev/kvm")
        return
    # the demo guest's row, on the VMs pane or the findings pane it may land on
    states = [
        ("running", reader("kvmtop-demo", "kvmtop-demo")),
        ("paused (Z)", reader("kvmtop-demo", "PAUSED", "Z")),
        ("the delay prompt open (s)", reader("kvmtop-demo", "Delay (s): ", "s")),
        ("the help", reader("kvmtop-demo", "Help:", "h")),
    ]
    for state, reach in states:
        for sig in SIGNALS:
            stop_case("live (--demo), " + state, ["--demo", "-d", "0.5"], reach, sig)


def idle_case():
    """A screen left alone sleeps: its CPU time over 2 s is well under 10 % of a CPU."""
    start(["-r", SAMPLE], os.path.join(TMP, "screen-stop.stty"))
    lines = reader("VMs (", "VMs (")()
    pid = kvmtop_pid()
    a = cpu_ticks(pid) if pid else None
    time.sleep(2)
    b = cpu_ticks(pid) if pid else None
    hz = os.sysconf("SC_CLK_TCK")
    share = (b - a) / hz / 2 if a is not None and b is not None else None
    ok(lines and share is not None and share < 0.05,
       "idle: the screen on the sample uses %s of a CPU (under 5 %%)"
       % ("%.1f %%" % (share * 100) if share is not None else "-"), "pid %s, ticks %s -> %s" % (pid, a, b))
    tmux("send-keys", "-t", "k", "q")
    wait_for(has("KVMTOP-EXIT="), 10)


def flood_case():
    """Keys without a pause keep the terminal's input ready whenever the screen waits for it: a
    signal must still be seen (ppoll() lets it in only when it sleeps)."""
    m, s = os.openpty()
    os.set_blocking(m, False)
    stop = threading.Event()
    out = []

    def read_all():
        while not stop.is_set():
            out.append(drain(m, 0.05))

    def type_keys():
        # x is no key of the screen's: it does nothing, it only has to be read
        while not stop.is_set():
            try:
                os.write(m, b"x" * 256)
            except BlockingIOError:
                time.sleep(0.001)	# its input is full: kvmtop has keys to read
            except OSError:
                return

    p = subprocess.Popen([kvmtop(), "-r", SAMPLE], stdin=s, stdout=s, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, TERM="xterm", XDG_CONFIG_HOME=SOCK_DIR), start_new_session=True)
    th = [threading.Thread(target=read_all), threading.Thread(target=type_keys)]
    th[0].start()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 20 and b"VMs (1)" not in b"".join(out):
        time.sleep(0.05)
    up = b"VMs (1)" in b"".join(out)
    th[1].start()
    time.sleep(0.5)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    took = time.monotonic() - t0
    stop.set()
    for t in th:
        if t.is_alive():
            t.join()
    os.close(m)
    os.close(s)
    ok(up and rc == 0 and took < LIMIT,
       "keys without a pause: SIGTERM ends the screen in %.2f s, status %s" % (took, rc))


def main():
    no_terminal_cases()
    flood_case()
    if not shutil.which("tmux"):
        skip("the screen in a terminal: the signals", "tmux is not installed")
    else:
        try:
            idle_case()
            replay_states()
            reading_states()
            live_states()
        finally:
            if SOCK[0]:
                tmux("kill-server")
    shutil.rmtree(SOCK_DIR, ignore_errors=True)
    done()


if __name__ == "__main__":
    main()
