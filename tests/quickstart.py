# SPDX-License-Identifier: GPL-2.0
"""README's quick start, run as written on a fresh copy of the tree.

README's command (1) installs kvmtop's packages, builds it, installs it
and starts `kvmtop --demo`.  CI (.ci/run) runs its apt-get as written
before the suite; this test checks that every package it names is
installed (dpkg, the oracle), then runs the rest of the line exactly as
README prints it, in a terminal (tmux), in a copy of the tree: the
autotools, the build, `make install` and `kvmtop --demo` found on PATH.

The install lands in /usr/local as README says, but in a mount namespace
of the test's own with a writable layer (overlayfs) over /usr/local: the
machine's own /usr/local is never changed.  Oracles: the screen the
installed kvmtop draws (the demo guest's row, or the sample recording's
where there is no /dev/kvm), its exit status after q, `command -v
kvmtop` (the installed binary under /usr/local/bin) and man(1) showing
the installed page.  Needs root (a mount namespace).
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

from tap import ok, eq, skip, done

SRC = os.environ.get("KVMTOP_SRC", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TMP = os.environ.get("KVMTOP_TMP", "/tmp")
BUILD = os.getcwd()
CASES = ["README command (1): every package its apt-get names is installed",
         "README command (1) as written: the build and make install end, kvmtop --demo starts",
         "the installed kvmtop --demo shows the demo guest (or the sample recording without /dev/kvm)",
         "q ends the installed kvmtop with status 0",
         "kvmtop on PATH is the installed /usr/local/bin/kvmtop",
         "man kvmtop shows the installed page"]
# a Unix socket path has at most 107 bytes: tmux's never under a long build path
SOCK = os.path.join(tempfile.mkdtemp(prefix="kvmtop-qs-"), "tmux.sock")


def readme_cmd(n):
    """README's command (n): the first indented line after the line "(n) ..." (as .ci/run reads it)."""
    readme = open(os.path.join(SRC, "README")).read()
    at = readme.index("\n(%d) " % n)
    return re.search(r"^    (\S.*)$", readme[at:], re.M).group(1)


def tmux(*args):
    return subprocess.run(["tmux", "-S", SOCK] + list(args), capture_output=True, timeout=20)


def screen():
    return tmux("capture-pane", "-p", "-t", "q").stdout.decode("utf-8", "replace").splitlines()


def wait_screen(pred, timeout):
    end = time.time() + timeout
    lines = []
    while time.time() < end:
        lines = screen()
        if pred(lines):
            return lines
        time.sleep(0.5)
    return lines


def read(out, name):
    """What the terminal's shell wrote to out/name, stripped; None where it wrote nothing."""
    p = os.path.join(out, name)
    return open(p, errors="replace").read().strip() if os.path.exists(p) else None


def fresh_copy(dest):
    """The tree as a fresh clone has it: git's files where this is a checkout (with their edits),
    else the release's files (make distdir: make distcheck's tarball, a scratch copy), never a
    build's outputs."""
    p = subprocess.run(["git", "-C", SRC, "ls-files", "-z"], capture_output=True)
    if p.returncode == 0 and p.stdout:
        for f in p.stdout.decode().split("\0"):
            if f and os.path.isfile(os.path.join(SRC, f)):
                os.makedirs(os.path.join(dest, os.path.dirname(f)), exist_ok=True)
                shutil.copy2(os.path.join(SRC, f), os.path.join(dest, f))
        return None
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):	# a make of its own, not a part of make check's
        env.pop(k, None)
    p = subprocess.run(["make", "-C", BUILD, "distdir", "distdir=" + dest], capture_output=True, env=env,
                       timeout=600)
    return None if p.returncode == 0 else "make distdir: " + (p.stdout + p.stderr).decode(errors="replace")[-500:]


def script(tree, rest, out):
    """The shell the terminal runs: a private mount namespace, /usr/local writable over an overlay,
    then README's line as written, then what the test reads back."""
    return """set -u
mount --make-rprivate / || exit 1
mount -t tmpfs qs {out}/layer && mkdir {out}/layer/up {out}/layer/work || exit 1
mount -t overlay overlay -o lowerdir=/usr/local,upperdir={out}/layer/up,workdir={out}/layer/work /usr/local || exit 1
cd {tree} || exit 1
{rest}
echo $? >{out}/rc
command -v kvmtop >{out}/which
man -w kvmtop >{out}/manpath 2>&1
MANPAGER=cat MANWIDTH=80 man --nh --nj kvmtop >{out}/man 2>&1
echo done >{out}/done
sleep 30
""".replace("{tree}", tree).replace("{out}", out).replace("{rest}", rest)


def main():
    cmd = readme_cmd(1)
    m = re.match(r"apt-get update && apt-get install -y ([^&]+) && (.*)$", cmd)
    if not m:
        ok(False, CASES[0], "README command (1) does not start with its apt-get: %r" % cmd)
        done()
    pkgs, rest = m.group(1).split(), m.group(2)
    q = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${db:Status-Abbrev}\n"] + pkgs,
                       capture_output=True)
    have = {l.split()[0] for l in q.stdout.decode().splitlines() if len(l.split()) > 1 and l.split()[1] == "ii"}
    eq(sorted(set(pkgs) - have), [], CASES[0])
    why = None
    if os.geteuid() != 0:
        why = "needs root (a mount namespace over /usr/local)"
    elif not shutil.which("tmux") or not shutil.which("unshare"):
        why = "needs tmux and unshare"
    if why:
        for c in CASES[1:]:
            skip(c, why)
        done()
    work = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-quickstart-")
    tree, out = os.path.join(work, "kvmtop"), os.path.join(work, "out")
    os.makedirs(os.path.join(out, "layer"))
    err = fresh_copy(tree)
    if err:
        ok(False, CASES[1], err)
        done()
    sh = os.path.join(work, "run.sh")
    with open(sh, "w") as f:
        f.write(script(tree, rest, out))
    # the user's own settings file stays out of the screen under test
    env = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL XDG_CONFIG_HOME=%s" % work
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "q", "-x", "120", "-y", "30",
         "%s unshare --mount bash %s" % (env, sh))
    tmux("set-option", "-t", "q", "status", "off")
    # the build under a loaded make check: minutes
    t0 = time.time()
    lines = wait_screen(lambda ls: any(l.startswith("kvmtop ") for l in ls[:1])
                        or os.path.exists(os.path.join(out, "rc")), 1500)
    started = any(l.startswith("kvmtop ") for l in lines[:1])
    ok(started, CASES[1] + " (%.0f s)" % (time.time() - t0), "\n".join(lines[-15:]))
    # the demo's row, its findings pane (a severe finding opens it), or the sample's replay
    lines = wait_screen(lambda ls: any(l.startswith("kvmtop-demo") for l in ls)
                        or any(l.split()[:2] == ["SEVERITY", "FINDING"] for l in ls)
                        or (ls and "replay kvmtop-sample.dat" in ls[0]), 90)
    ok(started and (any(l.startswith("kvmtop-demo") for l in lines)
                    or any(l.split()[:2] == ["SEVERITY", "FINDING"] for l in lines)
                    or "replay kvmtop-sample.dat" in lines[0]), CASES[2], "\n".join(lines))
    tmux("send-keys", "-t", "q", "q")
    end = time.time() + 120
    while time.time() < end and not os.path.exists(os.path.join(out, "done")):
        time.sleep(0.5)
    tmux("kill-server")
    eq(read(out, "rc"), "0", CASES[3])
    eq(read(out, "which"), "/usr/local/bin/kvmtop", CASES[4])
    # the page man found, and its NAME line as the source's man/kvmtop.1 has it
    path = read(out, "manpath")
    man = "".join((read(out, "man") or "").split())	# without spaces: a line may break after a hyphen
    src = open(os.path.join(SRC, "man", "kvmtop.1")).read()
    name = "".join(src[src.index(".SH NAME\n") + 9:].split("\n")[0].replace("\\-", "-").split())
    # /usr/local/man is Debian's link to /usr/local/share/man
    ok(path and os.path.realpath(path) == os.path.realpath("/usr/local/share/man/man1/kvmtop.1") and man.startswith("KVMTOP(1)") and name in man,
       CASES[5], "%r %r %r" % (path, name, man[:300]))
    subprocess.run(["umount", "-l", os.path.join(out, "layer")], capture_output=True)
    shutil.rmtree(work, ignore_errors=True)
    done()


if __name__ == "__main__":
    main()
