# SPDX-License-Identifier: GPL-2.0
"""An oracle independent of kvmtop: Debian's own `trace-cmd report`.

Debian 12's trace-cmd cannot read zlib-compressed recordings; preloading
the tests' own zlib codec (tests/tc_zlib.so, built from
tests/gen/tc_zlib.c, which shares no code with kvmtop) makes it read
them.  This module runs `trace-cmd report -t` (nanosecond timestamps),
parses each line, and works out from the events alone, with the
definitions of the man page, what kvmtop must report:

- per exit reason (trace-cmd's own name for it, from libtraceevent's kvm
  plugin): exits, exit -> next entry pairs of the same thread, their sum,
  min, max and nearest-rank percentiles;
- per thread: exits, unmatched exits and entries, the same per reason,
  the CPU of its last event;
- per (thread, reason, guest rip): how many exits.
"""
import os
import re
import shutil
import subprocess

LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<sec>\d+)\.(?P<frac>\d{9}):"
                  r"\s+(?P<event>\w+):\s+(?P<rest>.*)$")
EXIT = re.compile(r"^reason (?P<reason>.+?) rip (?P<rip>0x[0-9a-f]+)")

# the percentiles kvmtop prints, as exact fractions: rank = ceil(n * num / den)
QUANTILES = {"p50": (1, 2), "p90": (9, 10), "p99": (99, 100), "p999": (999, 1000)}


def nearest_rank(sorted_vals, num, den):
    """The nearest-rank quantile num/den of a sorted list (rank ceil(n*q), at least 1)."""
    n = len(sorted_vals)
    rank = max(1, (n * num + den - 1) // den)
    return sorted_vals[rank - 1]


def within_bound(got, want, slack=0.0):
    """kvmtop's histogram promises |got - want| <= want / 64 (plus the slack of a printed figure)."""
    return abs(got - want) * 64 <= want + slack * 64


def available():
    """None, or why the oracle cannot run here."""
    if not shutil.which("trace-cmd"):
        return "trace-cmd not installed (apt-get install trace-cmd)"
    so = os.environ.get("TC_ZLIB", "")
    if not os.path.exists(so):
        return "tests/tc_zlib.so not built (TC_ZLIB=%s)" % so
    return None


def report(path):
    """trace-cmd report -t of path, with the zlib preload: its lines."""
    env = dict(os.environ, LD_PRELOAD=os.environ["TC_ZLIB"])
    p = subprocess.run(["trace-cmd", "report", "-t", path], capture_output=True, env=env, timeout=600)
    if p.returncode:
        raise RuntimeError("trace-cmd report %s: %s" % (path, p.stderr.decode("utf-8", "replace")))
    return p.stdout.decode("utf-8", "replace").splitlines()


class Stats:
    def __init__(self):
        self.exits = 0
        self.lat = []

    def figures(self):
        lat = sorted(self.lat)
        f = dict(count=self.exits, samples=len(lat), sum=sum(lat),
                 min=lat[0] if lat else 0, max=lat[-1] if lat else 0)
        for name, (num, den) in QUANTILES.items():
            f[name] = nearest_rank(lat, num, den) if lat else 0
        return f


class Oracle:
    """The figures of one recording, from trace-cmd report alone."""

    def __init__(self, path):
        self.host = {}		# reason -> Stats
        self.threads = {}	# tid -> dict
        self.rips = {}		# (tid, reason, rip) -> exits
        self.events = 0
        self.first = self.last = None	# the first and last kvm event's time, ns
        pending = {}		# tid -> (exit time, reason)
        for line in report(path):
            m = LINE.match(line)
            if not m or m.group("event") not in ("kvm_exit", "kvm_entry"):
                continue
            self.events += 1
            tid, cpu = int(m.group("tid")), int(m.group("cpu"))
            t = int(m.group("sec")) * 10**9 + int(m.group("frac"))
            self.first = t if self.first is None else self.first
            self.last = t
            th = self.threads.setdefault(tid, dict(exits=0, unmatched_exits=0, unmatched_entries=0,
                                                   reasons={}, last_cpu=-1, comm=m.group("comm")))
            th["last_cpu"] = cpu
            if "vcpu_event" not in th:
                # the vCPU id of the thread's first event, where its text has one ("vcpu N")
                v = re.search(r"\bvcpu (\d+)", m.group("rest"))
                th["vcpu_event"] = int(v.group(1)) if v else -1
            if m.group("event") == "kvm_exit":
                e = EXIT.match(m.group("rest"))
                if not e:
                    raise RuntimeError("unparsed kvm_exit line: " + line)
                reason, rip = e.group("reason"), int(e.group("rip"), 16)
                if tid in pending:
                    th["unmatched_exits"] += 1
                pending[tid] = (t, reason)
                th["exits"] += 1
                for stats in (self.host.setdefault(reason, Stats()), th["reasons"].setdefault(reason, Stats())):
                    stats.exits += 1
                self.rips[(tid, reason, rip)] = self.rips.get((tid, reason, rip), 0) + 1
                continue
            if tid in pending:
                t0, reason = pending.pop(tid)
                self.host[reason].lat.append(t - t0)
                th["reasons"][reason].lat.append(t - t0)
            else:
                th["unmatched_entries"] += 1
        for tid in pending:
            self.threads[tid]["unmatched_exits"] += 1

    def host_figures(self):
        return {r: s.figures() for r, s in self.host.items()}

    def vm_groups(self):
        """The VMs a recording without --threads shows (kvmtop(1), Recordings): the threads with
        one tid - vCPU id, the vCPU id from a QEMU thread name 'CPU N/KVM', else that of the
        thread's first event if it has one; a thread with none is a VM of its own.  {key: [tids]}"""
        groups = {}
        for tid, th in self.threads.items():
            m = re.match(r"^CPU (\d+)/KVM$", th["comm"])
            k = int(m.group(1)) if m else th.get("vcpu_event", -1)
            key = tid - k if k >= 0 and tid - k > 0 else tid
            groups.setdefault(key, []).append(tid)
        return {k: sorted(v) for k, v in groups.items()}

    def group_figures(self, tids):
        """The figures of threads tids together (a VM's)."""
        merged = {}
        for tid in tids:
            for r, s in self.threads[tid]["reasons"].items():
                m = merged.setdefault(r, Stats())
                m.exits += s.exits
                m.lat += s.lat
        return {r: s.figures() for r, s in merged.items()}

    def thread_figures(self, tid):
        return {r: s.figures() for r, s in self.threads[tid]["reasons"].items()}
