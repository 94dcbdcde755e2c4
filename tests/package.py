# SPDX-License-Identifier: GPL-2.0
"""The Debian package (debian/): built, linted, installed, used, purged.

A copy of the tree as the release tarball holds it (make distdir, into a
temporary directory: never the tree this suite runs from) is built with
dpkg-buildpackage -us -uc -b, the .deb is checked by lintian and
installed with dpkg -i; then the installed kvmtop, its man page, its
systemd unit (installed, not enabled), its sample and its bash completion
are used as a user would, and dpkg -P must take away everything it put
there.  The package stays installed only while this test runs; one that
was installed before it is left alone (the cases SKIP, saying so).

Oracles: dpkg's own records (dpkg-deb, dpkg -L, dpkg -S), lintian,
man-db, systemctl, bash with bash-completion's loader, the build tree's
kvmtop (not the installed one) replaying the installed sample, and the
file system after the purge.
"""
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile

from tap import ok, eq, skip, done, kvmtop

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
BUILD = os.environ.get("KVMTOP_BUILD", os.getcwd())
SHARE = "/usr/share/kvmtop/"
SAMPLE = SHARE + "kvmtop-sample.dat"
UNIT = "/usr/lib/systemd/system/kvmtop.service"
COMPLETION = "/usr/share/bash-completion/completions/kvmtop"
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
# what the package must hold, and nothing else (files; its directories aside)
FILES = ["/usr/bin/kvmtop", "/usr/share/man/man1/kvmtop.1.gz", UNIT,
         SHARE + "grafana-kvmtop.json", SHARE + "kvmtop-alerts.yml", SAMPLE, SHARE + "kvmtop-sample.kallsyms",
         COMPLETION, "/usr/share/doc/kvmtop/changelog.gz", "/usr/share/doc/kvmtop/copyright"]

BUILT = "dpkg-buildpackage -us -uc -b in a copy of the tree (make distdir): one kvmtop_*.deb"
CASES = [
    BUILT,
    "lintian: no error",
    "the package's version is configure's (the build tree's kvmtop --version)",
    "the package holds the binary, the man page, the unit, the dashboard, the rules, the sample, "
    "the completion and its copyright and changelog: nothing else",
    "dpkg -i installs it",
    "every file dpkg -L lists is there",
    "the installed /usr/bin/kvmtop --version",
    "man -w kvmtop: the installed page",
    "man kvmtop: the page renders, without a warning",
    "the unit is in /usr/lib/systemd/system, runs /usr/bin/kvmtop, and is not enabled or started",
    "a batch replay of the installed sample: 1 VM of 4 vCPUs, the build tree's kvmtop's JSON",
    "the installed sample is the one the build tree made",
    "the installed kvmtop --demo, where /dev/kvm cannot be opened (as nobody), shows the installed sample",
    "bash-completion's loader finds the installed completion of kvmtop",
    "kvmtop -o <Tab>: the formats, each taken by the installed kvmtop",
    "kvmtop --source <Tab>: the sources, each taken by the installed kvmtop",
    "kvmtop --sou<Tab>: --source; kvmtop --format=js<Tab>: json",
    "kvmtop --fields <Tab>: every field of the CSV's rows; a list goes on after its comma",
    "dpkg -P kvmtop purges it",
    "nothing the package installed is left, but directories other packages hold",
]


def sh(args, timeout=120, env=None, **kw):
    """Run args: (status, stdout, stderr) as text."""
    p = subprocess.run(args, capture_output=True, timeout=timeout, env=env, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def clean_env(**extra):
    """This environment without make check's make (its jobserver) or a MANPATH of the tree's."""
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MANPATH", "DEB_BUILD_OPTIONS"):
        env.pop(k, None)
    env.update(LC_ALL="C.UTF-8", DEBIAN_FRONTEND="noninteractive", **extra)
    return env


def why_not():
    """Why the package cannot be built and installed here, or None."""
    if os.environ.get("KVMTOP_MUTATE") == "1":
        # make mutate runs the suite once per mutation: packaging is not what a mutation changes
        return "make mutate leaves the package build out (tests/mutate.py)"
    if os.geteuid() != 0:
        return "needs root (dpkg -i installs the package)"
    tools = [("dpkg-buildpackage", "dpkg-dev"), ("dpkg-deb", "dpkg"), ("dh", "debhelper"),
             ("dh_autoreconf", "dh-autoreconf")]
    missing = sorted({pkg for tool, pkg in tools if not shutil.which(tool)})
    if missing:
        return "not installed: %s (apt-get install %s)" % (", ".join(missing), " ".join(missing))
    rc, out, _ = sh(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", "kvmtop"])
    if rc == 0 and out[:2] not in ("un", "pn", ""):
        return "a kvmtop package is installed here (dpkg -s kvmtop: %s): left alone" % out.strip()
    return None


def excluded():
    """dpkg's path-exclude patterns (a container's dpkg.cfg.d may drop /usr/share/man/*)."""
    pats, incl = [], []
    for f in glob.glob("/etc/dpkg/dpkg.cfg.d/*") + ["/etc/dpkg/dpkg.cfg"]:
        try:
            for line in open(f):
                m = re.match(r"^\s*path-(exclude|include)[=\s]\s*(\S+)", line)
                if m:
                    (pats if m.group(1) == "exclude" else incl).append(m.group(2))
        except OSError:
            pass
    return lambda p: (any(fnmatch.fnmatch(p, x) for x in pats) and
                      not any(fnmatch.fnmatch(p, x) for x in incl))


def build(work):
    """make distdir's copy of the tree, built: (the .deb or None, what went wrong)."""
    src = os.path.join(work, "kvmtop-src")
    rc, out, err = sh(["make", "-C", BUILD, "distdir", "distdir=" + src], env=clean_env(), timeout=300)
    if rc:
        return None, "make distdir: status %d\n%s" % (rc, (out + err)[-1500:])
    # a read-only tree (make distcheck's) gives read-only files
    sh(["chmod", "-R", "u+w", src])
    # parallel=2: the suite's machines have two cores; niced, as the suite's timed live tests
    # may run beside it (make check -j2)
    rc, out, err = sh(["nice", "-n", "10", "dpkg-buildpackage", "-us", "-uc", "-b"], cwd=src, timeout=1500,
                      env=clean_env(DEB_BUILD_OPTIONS="parallel=2"))
    debs = [d for d in glob.glob(os.path.join(work, "kvmtop_*.deb"))]
    if rc or len(debs) != 1:
        return None, "dpkg-buildpackage: status %d, %r\n%s" % (rc, debs, (out + err)[-2500:])
    return debs[0], ""


def bash_complete(words):
    """What bash offers for the last of words (COMP_WORDS), with the completion bash-completion's
    loader finds for kvmtop (the file itself where bash-completion is missing): (status, list)."""
    if os.path.exists(BASH_COMPLETION):
        load = ". %s; __load_completion kvmtop || exit 3" % BASH_COMPLETION
    else:
        load = ". %s" % COMPLETION
    script = load + """
fn=$(complete -p kvmtop 2>/dev/null | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')
[ -n "$fn" ] || exit 4
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
"$fn" kvmtop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\\n' "${COMPREPLY[@]}"
"""
    # the installed kvmtop only: no other completion of a kvmtop in /usr/local or $HOME
    env = clean_env(PATH="/usr/bin:/bin", XDG_DATA_DIRS="/usr/share", BASH_COMPLETION_USER_DIR="/nonexistent")
    rc, out, err = sh(["bash", "-c", script, "bash"] + list(words), env=env)
    return rc, [w for w in out.splitlines() if w]


def listed(err_line):
    """The choices of kvmtop's error line for an unknown value: "... (a, b or c) ..."."""
    m = re.search(r"unknown [^']*'[^']*' \(([^)]*)\)", err_line)
    return sorted(re.split(r", | or ", m.group(1))) if m else []


def check_installed(paths, version):
    """The cases on the installed package, whose dpkg -L is paths (5 to 17)."""
    is_excluded = excluded()
    missing = [p for p in paths if not os.path.lexists(p) and not is_excluded(p)]
    ok(len(paths) >= len(FILES) and not missing, CASES[5], "dpkg -L: %r\nnot there: %r" % (paths, missing))

    rc, out, err = sh(["/usr/bin/kvmtop", "--version"])
    eq((rc, out.strip()), (0, "kvmtop " + version), CASES[6])

    if not shutil.which("man"):
        skip(CASES[7], "man is not installed (apt-get install man-db)")
        skip(CASES[8], "man is not installed (apt-get install man-db)")
    elif is_excluded("/usr/share/man/man1/kvmtop.1.gz"):
        skip(CASES[7], "dpkg here excludes /usr/share/man (path-exclude in /etc/dpkg/dpkg.cfg.d)")
        skip(CASES[8], "dpkg here excludes /usr/share/man (path-exclude in /etc/dpkg/dpkg.cfg.d)")
    else:
        rc, out, err = sh(["man", "-w", "kvmtop"], env=clean_env())
        eq((rc, out.strip()), (0, "/usr/share/man/man1/kvmtop.1.gz"), CASES[7])
        rc, out, err = sh(["man", "--warnings", "-P", "cat", "kvmtop"], env=clean_env(MANWIDTH="80"))
        ok(rc == 0 and re.search(r"^NAME\n\s+kvmtop\s+-", out, re.M) and "SYNOPSIS" in out
           and "FILES" in out and not err.strip(), CASES[8], "status %d\n%s\n%s" % (rc, err[-800:], out[:400]))

    unit = open(UNIT).read() if os.path.exists(UNIT) else ""
    wants = [os.path.join(r, f) for r, _, fs in os.walk("/etc/systemd") for f in fs if f.startswith("kvmtop")]
    state = "no systemctl"
    if shutil.which("systemctl"):
        _, state, _ = sh(["systemctl", "is-enabled", "kvmtop.service"])
        state = state.strip()
    ok("\nExecStart=/usr/bin/kvmtop --listen 127.0.0.1:9543" in unit and "@" not in unit
       and "systemctl enable --now kvmtop" in unit and not wants and state in ("disabled", "no systemctl"),
       CASES[9], "systemctl is-enabled: %s; under /etc/systemd: %r\n%s" % (state, wants, unit[:400]))

    args = ["-b", "-r", SAMPLE, "-o", "json"]
    rc, out, err = sh(["/usr/bin/kvmtop"] + args)
    rc2, want, err2 = sh([kvmtop()] + args)
    try:
        j = json.loads(out)
        shape = (len(j["vms"]), [len(v["vcpus"]) for v in j["vms"]], j["host"]["exits"] > 0)
    except (ValueError, KeyError, TypeError):
        j, shape = None, None
    ok(rc == 0 and rc2 == 0 and shape == (1, [4], True) and j == json.loads(want), CASES[10],
       "installed: status %d, shape %r, %s\nbuild tree: status %d, %s" % (rc, shape, err[-300:], rc2, err2[-300:]))

    built = os.path.join(BUILD, "sample", "kvmtop-sample.dat")
    if os.path.exists(built):
        ok(open(built, "rb").read() == open(SAMPLE, "rb").read(), CASES[11], "%s and %s differ" % (built, SAMPLE))
    else:
        skip(CASES[11], "the build tree has no sample/kvmtop-sample.dat")

    # kvmtop finds the sample beside its binary or in the PKGDATADIR it was built with
    nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    if not shutil.which("setpriv"):
        skip(CASES[12], "setpriv is not installed (apt-get install util-linux)")
    elif sh(nobody + ["sh", "-c", "test -r /dev/kvm && test -w /dev/kvm"])[0] == 0:
        skip(CASES[12], "nobody may open /dev/kvm here: --demo would run the live demo guest")
    else:
        rc, out, err = sh(nobody + ["/usr/bin/kvmtop", "-b", "--demo", "-o", "json"], cwd="/")
        _, want, _ = sh([kvmtop()] + args + ["--guest-kallsyms", SHARE + "kvmtop-sample.kallsyms"])
        ok(rc == 0 and out == want and "sample recording instead, " + SAMPLE in err, CASES[12],
           "status %d, the build tree's JSON with the sample's kallsyms: %r\n%s" % (rc, out == want, err[-400:]))

    # the completion, as bash gives it
    if os.path.exists(BASH_COMPLETION):
        rc, words = bash_complete(["kvmtop", "--ver"])
        eq((rc, words), (0, ["--version"]), CASES[13])
    else:
        skip(CASES[13], "bash-completion is not installed (apt-get install bash-completion)")
    rc, words = bash_complete(["kvmtop", "-o", ""])
    _, _, err = sh(["/usr/bin/kvmtop", "-o", "no-such-format"])
    formats = listed(err)
    taken = [f for f in words if sh(["/usr/bin/kvmtop", "-o", f, "--version"])[0] == 0]
    ok(rc == 0 and len(words) >= 5 and sorted(words) == formats and taken == words
       and sh(["/usr/bin/kvmtop", "-o", "no-such-format", "--version"])[0] != 0, CASES[14],
       "offered %r\nthe error line's %r\ntaken %r" % (words, formats, taken))
    rc, words = bash_complete(["kvmtop", "--source", ""])
    _, _, err = sh(["/usr/bin/kvmtop", "--source", "no-such-source"])
    sources = listed(err)
    taken = [s for s in words if sh(["/usr/bin/kvmtop", "--source", s, "--version"])[0] == 0]
    ok(rc == 0 and "trace" in words and sorted(words) == sources and taken == words, CASES[15],
       "offered %r\nthe error line's %r\ntaken %r" % (words, sources, taken))
    r1 = bash_complete(["kvmtop", "--sou"])
    r2 = bash_complete(["kvmtop", "--format", "=", "js"])
    eq((r1, r2), ((0, ["--source"]), (0, ["json"])), CASES[16])
    # the CSV's columns from vm_pid to blocked_seconds are fields of the field table
    rc, out, _ = sh(["/usr/bin/kvmtop", "-b", "-r", SAMPLE, "-o", "csv"])
    cols = out.splitlines()[0].split(",") if out else []
    row = cols[cols.index("vm_pid"):cols.index("blocked_seconds") + 1] if "vm_pid" in cols and "blocked_seconds" in cols else []
    rc, words = bash_complete(["kvmtop", "--fields", ""])
    rc2, more = bash_complete(["kvmtop", "--fields", "count,handling_p9"])
    ok(rc == 0 and len(row) > 20 and not set(row) - set(words)
       and more == ["count,handling_p90", "count,handling_p99", "count,handling_p999"], CASES[17],
       "CSV columns not offered: %r\noffered: %r\nafter count,handling_p9: %r" % (sorted(set(row) - set(words)), words, more))


def purge(paths):
    """dpkg -P kvmtop, and what it left of paths (dpkg -L's list)."""
    rc, out, err = sh(["dpkg", "-P", "kvmtop"], env=clean_env())
    rc2, status, _ = sh(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", "kvmtop"])
    ok(rc == 0 and (rc2 != 0 or status.strip() in ("un", "pn", "")), CASES[18],
       "status %d, dpkg-query: %r\n%s" % (rc, status, (out + err)[-600:]))
    left = []
    for p in paths:
        if not os.path.lexists(p):
            continue
        # a directory stays where another package has it too
        if os.path.isdir(p) and not os.path.islink(p) and sh(["dpkg", "-S", p])[0] == 0:
            continue
        left.append(p)
    left += [os.path.join(r, f) for r, _, fs in os.walk("/etc/systemd") for f in fs if f.startswith("kvmtop")]
    eq(left, [], CASES[19])
    return rc == 0


def main():
    why = why_not()
    if why:
        for c in CASES:
            skip(c, why)
        done()
    rc, out, _ = sh([kvmtop(), "--version"])
    version = out.split()[1] if rc == 0 and len(out.split()) == 2 else "?"
    work = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-package-")
    try:
        deb, why = build(work)
        if not ok(deb is not None, CASES[0], why):
            for c in CASES[1:]:
                skip(c, "the package did not build")
            done()
        if shutil.which("lintian"):
            rc, out, err = sh(["lintian", "--fail-on", "error", "--display-info", "--tag-display-limit", "0", deb], timeout=600)
            tags = [l for l in out.splitlines() if re.match(r"^[EWIPX]: ", l)]
            ok(rc == 0 and not [t for t in tags if t.startswith("E: ")], CASES[1],
               "status %d\n%s" % (rc, "\n".join(tags) or err[-500:]))
            for t in tags:
                print("# lintian: " + t)
        else:
            skip(CASES[1], "lintian is not installed (apt-get install lintian)")
        _, pkg_version, _ = sh(["dpkg-deb", "-f", deb, "Version"])
        eq(pkg_version.strip(), version, CASES[2])
        rc, out, _ = sh(["dpkg-deb", "-c", deb])
        files = sorted(l.split()[-1][1:] for l in out.splitlines() if l.startswith("-"))
        eq(files, sorted(FILES), CASES[3])

        rc, out, err = sh(["dpkg", "-i", deb], env=clean_env(), timeout=300)
        if not ok(rc == 0, CASES[4], (out + err)[-1000:]):
            sh(["dpkg", "-P", "kvmtop"])
            for c in CASES[5:]:
                skip(c, "the package did not install")
            done()
        # what it installed, taken before anything can go wrong
        _, out, _ = sh(["dpkg", "-L", "kvmtop"])
        paths = [p for p in out.splitlines() if p and p != "/."]
        purged = False
        try:
            check_installed(paths, version)
            purged = purge(paths)
        finally:
            # never leave it installed, whatever went wrong above
            if not purged:
                sh(["dpkg", "-P", "kvmtop"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    done()


main()
