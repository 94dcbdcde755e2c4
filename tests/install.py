# SPDX-License-Identifier: GPL-2.0
"""make install and make uninstall, and the contrib files they install.

Oracles: the file system (what install put where, what uninstall left),
systemd-analyze verify (Debian's systemd) on the installed unit, promtool
check rules on the installed alerting rules, Python's json on the
dashboard.  The dashboard's and rules' PromQL is run against a real
Prometheus server in tests/metrics.py.
"""
import json
import os
import shutil
import subprocess
import tempfile

from tap import ok, eq, skip, done

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
BUILD = os.getcwd()


def make(*args):
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):	# a make of its own, not a part of make check's
        env.pop(k, None)
    p = subprocess.run(["make", "-C", BUILD] + list(args), capture_output=True, env=env, timeout=600)
    return p.returncode, (p.stdout + p.stderr).decode(errors="replace")


def files_under(d):
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)


def main():
    dest = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-install-")
    rc, out = make("install", "DESTDIR=" + dest)
    if not eq(rc, 0, "make install DESTDIR=...: exit status 0"):
        print("# " + out[-500:].replace("\n", "\n# "))
        done()
    # the configured prefix (/usr/local by default; make distcheck's own): where the binary went
    bins = [f for f in files_under(dest) if f.endswith("/bin/kvmtop")]
    prefix = bins[0][:-len("/bin/kvmtop")] if len(bins) == 1 else "usr/local"
    share = prefix + "/share/kvmtop/"
    want = [prefix + "/bin/kvmtop", prefix + "/share/man/man1/kvmtop.1",
            share + "grafana-kvmtop.json", share + "kvmtop-alerts.yml", share + "kvmtop.service",
            share + "kvmtop-sample.dat", share + "kvmtop-sample.kallsyms",
            prefix + "/share/bash-completion/completions/kvmtop"]
    eq(files_under(dest), sorted(want),
       "make install: the binary, the man page, the sample, the contrib files and the bash completion")
    kv = os.path.join(dest, prefix, "bin/kvmtop")
    installed_kv = "/" + prefix + "/bin/kvmtop"
    p = subprocess.run([kv, "--version"], capture_output=True)
    ok(p.returncode == 0 and p.stdout.startswith(b"kvmtop "), "the installed kvmtop runs", p.stdout)
    unit = open(os.path.join(dest, share, "kvmtop.service")).read()
    ok("ExecStart=%s --listen 127.0.0.1:9543" % installed_kv in unit and "@" not in unit,
       "the installed unit runs the installed kvmtop's exporter on 127.0.0.1", unit[:300])
    if shutil.which("systemd-analyze"):
        # the same unit with ExecStart at the DESTDIR binary, its man page found there
        test_unit = os.path.join(dest, "kvmtop.service")
        with open(test_unit, "w") as f:
            f.write(unit.replace("ExecStart=" + installed_kv, "ExecStart=" + kv))
        p = subprocess.run(["systemd-analyze", "verify", test_unit], capture_output=True,
                           env=dict(os.environ, MANPATH=os.path.join(dest, prefix, "share/man")))
        said = (p.stdout + p.stderr).decode(errors="replace").strip()
        ok(p.returncode == 0 and not said, "systemd-analyze verify kvmtop.service: no complaint", said)
        p = subprocess.run(["systemd-analyze", "security", "--offline=yes", test_unit], capture_output=True)
        line = [l for l in p.stdout.decode(errors="replace").splitlines() if "Overall exposure" in l]
        level = float(line[0].split(":")[1].split()[0]) if line else 10.0
        # systemd's scale: below 2 SAFE, below 5 OK, then MEDIUM, EXPOSED, UNSAFE
        ok(p.returncode == 0 and level < 5.0, "systemd-analyze security: exposure %.1f, below 5 (OK)" % level,
           (p.stdout + p.stderr).decode(errors="replace")[-400:])
        os.unlink(test_unit)
    else:
        skip("systemd-analyze verify kvmtop.service", "systemd-analyze is not installed (apt-get install systemd)")
    if shutil.which("promtool"):
        p = subprocess.run(["promtool", "check", "rules", os.path.join(dest, share, "kvmtop-alerts.yml")],
                           capture_output=True)
        ok(p.returncode == 0, "promtool check rules kvmtop-alerts.yml", (p.stdout + p.stderr).decode()[-300:])
    else:
        skip("promtool check rules", "promtool is not installed (apt-get install prometheus)")
    d = json.load(open(os.path.join(dest, share, "grafana-kvmtop.json")))
    exprs = [t["expr"] for pnl in d["panels"] for t in pnl["targets"]]
    ok(len(d["panels"]) >= 5 and any(pnl["type"] == "heatmap" for pnl in d["panels"]) and
       all("kvmtop_" in e for e in exprs), "the Grafana dashboard: JSON, a heatmap, every panel on kvmtop's metrics")
    rc, out = make("uninstall", "DESTDIR=" + dest)
    eq((rc, files_under(dest)), (0, []), "make uninstall: no file left")
    shutil.rmtree(dest, ignore_errors=True)
    done()


main()
