# SPDX-License-Identifier: GPL-2.0
"""Metrics for Prometheus: -o prometheus|openmetrics, --output FILE and --listen.

Oracles other than kvmtop: Debian's promtool (check metrics: the text
format 0.0.4 and its conventions), prometheus_client's OpenMetrics parser
(Debian's python3-prometheus-client, run with /usr/bin/python3), a real
Prometheus server scraping kvmtop --listen and answering PromQL, the
generator's truth through kvmtop's JSON, and raw sockets for HTTP abuse.
Where a tool is missing the case says SKIP and names the package.
"""
import json
import re
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from tap import ok, eq, skip, done, kvmtop, run, kvmgen, one_clear_line, sanitized, kvm_here, live_only, live_elsewhere, \
    live_cases_in_kvm_host
from kstat_fixture import proc_vm, vm_stats, vcpu_vals
from context import two_vms, write_vm1

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
SYS_PY = "/usr/bin/python3"	# Debian's, which sees python3-prometheus-client
OM_CHECK = """
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(sys.stdin.read()))
out = {}
for f in fams:
    for s in f.samples:
        out.setdefault(s.name, []).append([s.labels, s.value])
print(__import__("json").dumps(out))
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def promtool(text):
    """(status, what promtool check metrics said): 0 and nothing when it has no complaint."""
    p = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True, timeout=60)
    return p.returncode, (p.stdout + p.stderr).decode(errors="replace").strip()


def om_parse(text):
    """prometheus_client's strict OpenMetrics parser: {sample name: [[labels, value]]}, or the error."""
    p = subprocess.run([SYS_PY, "-c", OM_CHECK], input=text.encode(), capture_output=True, timeout=60)
    if p.returncode:
        return None, p.stderr.decode(errors="replace").strip().splitlines()[-1:]
    return json.loads(p.stdout), None


def have_om_parser():
    return os.path.exists(SYS_PY) and subprocess.run([SYS_PY, "-c", "import prometheus_client"],
                                                     capture_output=True).returncode == 0


def samples_0_0_4(text):
    """{(name, frozenset(labels)): value} of the text format, read by hand (promtool checked it)."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, _, val = line.rpartition(" ")
        name, _, rest = head.partition("{")
        labels = {}
        rest = rest[:-1] if rest.endswith("}") else rest
        i = 0
        while i < len(rest):
            eqp = rest.index("=", i)
            key = rest[i:eqp]
            j, v = eqp + 2, ""
            while rest[j] != '"':
                if rest[j] == "\\":
                    v += {"n": "\n", "\\": "\\", '"': '"'}[rest[j + 1]]
                    j += 2
                else:
                    v += rest[j]
                    j += 1
            labels[key] = v
            i = j + 2 if j + 1 < len(rest) and rest[j + 1] == "," else j + 1
        out[(name, frozenset(labels.items()))] = float(val)
    return out


def formats_case(dat, exp):
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(out)
    for extra, what in (([], "per VM"), (["--metrics-per-vcpu"], "per vCPU"),
                        (["--metrics-latency", "vcpu"], "latency per vCPU")):
        rc, text, err = run(["-b", "-r", dat, "-o", "prometheus"] + extra)
        if shutil.which("promtool"):
            st, said = promtool(text)
            ok(rc == 0 and st == 0 and not said, "-o prometheus %s: promtool check metrics has no complaint" % what,
               said or err)
        else:
            skip("-o prometheus %s: promtool" % what, "promtool is not installed (apt-get install prometheus)")
        rc, om, err = run(["-b", "-r", dat, "-o", "openmetrics"] + extra)
        if have_om_parser():
            fams, bad = om_parse(om)
            ok(rc == 0 and fams is not None and om.endswith("# EOF\n"),
               "-o openmetrics %s: prometheus_client's OpenMetrics parser reads it, # EOF last" % what, bad or err)
        else:
            skip("-o openmetrics %s: the OpenMetrics parser" % what,
                 "python3-prometheus-client is not installed (apt-get install python3-prometheus-client)")
    rc, text, err = run(["-b", "-r", dat, "-o", "prometheus"])
    s = samples_0_0_4(text)
    got = {(dict(k[1])["pid"], dict(k[1])["reason"]): v for k, v in s.items() if k[0] == "kvmtop_exits_total"}
    want = {(str(vm["pid"]), r["reason"] + (" " + r["flags"] if r.get("flags") else "")): r["total"]
            for vm in j["vms"] for r in vm["reasons"]}
    eq(got, want, "kvmtop_exits_total per VM and reason: the JSON's totals")
    # the latency histograms, per reason of the host (the default), of each VM or of each vCPU
    rname = lambda r: r["reason"] + (" " + r["flags"] if r.get("flags") else "")
    levels = (("host", [], ("reason",), [((), r) for r in j["host"]["reasons"]]),
              ("vm", ["--metrics-latency", "vm"], ("pid", "reason"),
               [((str(vm["pid"]),), r) for vm in j["vms"] for r in vm["reasons"]]),
              ("vcpu", ["--metrics-latency", "vcpu"], ("pid", "vcpu", "reason"),
               [((str(vm["pid"]), str(c["vcpu"])), r) for vm in j["vms"] for c in vm["vcpus"]
                for r in c["reasons"]]))
    for level, extra, keys, rows in levels:
        if extra:
            rc, text, err = run(["-b", "-r", dat, "-o", "prometheus"] + extra)
            s = samples_0_0_4(text)
        lat = {}
        for k, v in s.items():
            if k[0].startswith("kvmtop_exit_latency_seconds_"):
                lab = dict(k[1])
                # exactly the level's labels: no vm on the host's, no vcpu on a VM's
                key = tuple(lab.get(x) for x in keys) if set(lab) - {"le", "isa"} == set(keys) | ({"vm"} if "pid" in keys else set()) else ("bad", str(sorted(lab.items())))
                lat.setdefault(k[0][len("kvmtop_exit_latency_seconds_"):], {}).setdefault(key, []).append(
                    (float(lab.get("le", "nan")), v))
        want = {w + (rname(r),): r["latency"] for w, r in rows if r["latency"]["samples"]}
        cnt = {k: v[0][1] for k, v in lat.get("count", {}).items()}
        eq(cnt, {k: float(x["samples"]) for k, x in want.items()},
           "--metrics-latency %s: kvmtop_exit_latency_seconds_count by %s: the JSON's exit->entry pairs"
           % (level, ", ".join(keys)))
        bad = [k for k, v in lat.get("sum", {}).items() if k not in want or abs(v[0][1] - int(want[k]["sum"]) / 1e9) > 1e-9]
        ok(lat.get("sum") and not bad, "--metrics-latency %s: kvmtop_exit_latency_seconds_sum: the JSON's sum, in "
           "seconds" % level, bad[:5])
        bad = []
        for key, bl in lat.get("bucket", {}).items():
            bl.sort()
            vals = [v for le, v in bl]
            if vals != sorted(vals) or bl[-1][0] != float("inf") or bl[-1][1] != cnt.get(key):
                bad.append(key)
        ok(lat.get("bucket") and not bad, "--metrics-latency %s: latency buckets: cumulative, +Inf last and equal "
           "to _count" % level, bad[:5])
    rc, text, err = run(["-b", "-r", dat, "-o", "prometheus"])
    s = samples_0_0_4(text)
    eq(s.get(("kvmtop_vms", frozenset())), float(len(j["vms"])), "kvmtop_vms: the VMs of the JSON")
    eq(s.get(("kvmtop_lost_events_total", frozenset())), float(exp["lost_events"]), "kvmtop_lost_events_total")
    # --threads puts the generator's three VMs in one process: each vCPU index is there three times,
    # and each thread must still be a series of its own
    ps = dat + ".one.ps"
    with open(ps, "w") as f:
        f.write("".join("%d 999 qemu-system-x86_64 -name guest=one\n" % t["tid"] for t in exp["threads"]))
    rc, text, err = run(["-b", "-r", dat, "--threads", ps, "-o", "prometheus", "--metrics-per-vcpu"])
    keys = [k for k in samples_0_0_4(text) if k[0] == "kvmtop_exits_total"]
    raw = [l.rpartition(" ")[0] for l in text.splitlines() if l.startswith("kvmtop_exits_total")]
    vcpus = {dict(k[1])["vcpu"] for k in keys}
    ok(rc == 0 and len(raw) == len(set(raw)) and len(vcpus) == len(exp["threads"]),
       "--metrics-per-vcpu, threads of one vCPU index in one VM: a series each (%d vcpu labels)" % len(vcpus),
       sorted(vcpus))
    rc, text, err = run(["-b", "-r", dat, "-o", "prometheus", "--metrics-buckets", "0.00001,0.001"])
    les = sorted({dict(k[1])["le"] for k in samples_0_0_4(text) if k[0] == "kvmtop_exit_latency_seconds_bucket"})
    eq(les, ["+Inf", "0.00001", "0.001"], "--metrics-buckets 0.00001,0.001: those bounds and +Inf")


def hostile_case(dat):
    """VM names with a quote, a backslash, a newline, invalid UTF-8, a terminal's escapes: still a valid
    scrape."""
    names = [b'q"uote', b"back\\slash", b"new\nline", b"bad\xff\xfeutf8", b"cut\xe2\x82", b"bell\x07esc\x1b[2J"]
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-metrics-")
    h = [0] * 32
    for i, n in enumerate(names):
        pid = 5000 + 10 * i
        proc_vm(root, pid, n, {0: (pid + 1, "CPU 0/KVM", True)})
        vm_stats(root, pid, {"pages_4k": 1}, {0: vcpu_vals(10 + i, h, [0, 0, 0, 0])})
    for round_, fmt in enumerate(("prometheus", "openmetrics")):
        # the stats source counts from its first reading: the counters grow after it
        out = os.path.join(root, "out.prom")
        p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", root, "-o", fmt, "-d", "0.4",
                              "-n", "3", "--output", out], stderr=subprocess.PIPE)
        time.sleep(0.6)
        for i, n in enumerate(names):
            vm_stats(root, 5000 + 10 * i, {"pages_4k": 1}, {0: vcpu_vals(20 + 10 * round_ + i, h, [0, 0, 0, 0])})
        p.wait(timeout=60)
        with open(out, "rb") as f:
            doc = f.read().decode("utf-8", "strict")   # valid UTF-8 or this raises
        if fmt == "prometheus":
            if shutil.which("promtool"):
                st, said = promtool(doc)
                ok(p.returncode == 0 and st == 0 and not said,
                   "hostile VM names, text format: promtool check metrics has no complaint", said)
            else:
                skip("hostile VM names: promtool", "promtool is not installed (apt-get install prometheus)")
            got = sorted({dict(k[1])["vm"] for k in samples_0_0_4(doc) if k[0] == "kvmtop_exits_total"})
        else:
            if not have_om_parser():
                skip("hostile VM names: OpenMetrics", "python3-prometheus-client is not installed")
                continue
            fams, bad = om_parse(doc)
            ok(fams is not None, "hostile VM names, OpenMetrics: the strict parser reads it", bad)
            got = sorted({lab["vm"] for lab, v in (fams or {}).get("kvmtop_exits_total", [])})
        want = sorted(re.sub("[\x00-\x09\x0b-\x1f\x7f]", "\ufffd", n.decode("utf-8", "replace")) for n in names)
        eq(got, want, "hostile VM names, %s: each label reads back as the name (invalid UTF-8 and control bytes "
           "but newline as U+FFFD)" % fmt)
    shutil.rmtree(root, ignore_errors=True)


def textfile_case():
    """--output FILE: 1,000+ rewrites while a reader polls it: every read a whole document."""
    dat = os.path.join(TMP, "metrics-long.dat")
    kvmgen(dat, "x86-6.5", ["-m", "1", "-v", "2", "-n", "60000", "-C", "2", "-s", "12"])
    out = os.path.join(TMP, "metrics-textfile", "kvmtop.prom")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    stats = os.path.join(TMP, "metrics-snap.json")
    stop = threading.Event()
    reads, bad = [0], []

    def reader():
        while not stop.is_set():
            try:
                with open(out, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                continue
            reads[0] += 1
            text = data.decode("utf-8", "replace")
            if not text.endswith("# EOF\n") or not text.startswith("# HELP ") or text.count("# EOF") != 1:
                bad.append(text[-80:])
    t = threading.Thread(target=reader)
    t.start()
    env = dict(os.environ, KVMTOP_SNAPSHOT_STATS=stats)
    p = subprocess.run([kvmtop(), "-b", "-r", dat, "-d", "0.001", "-o", "openmetrics", "--output", out],
                       capture_output=True, env=env, timeout=300)
    stop.set()
    t.join()
    n = json.load(open(stats))["snapshots"] if os.path.exists(stats) else 0
    ok(p.returncode == 0 and n >= 1000 and reads[0] >= 1000 and not bad,
       "--output: %d snapshots rewrote the file, %d reads saw a whole document each" % (n, reads[0]),
       "status %d %s; %d half-written reads: %r" % (p.returncode, p.stderr[-200:], len(bad), bad[:2]))
    left = [f for f in os.listdir(os.path.dirname(out)) if f != "kvmtop.prom"]
    eq(left, [], "--output: no temporary file left beside it")
    eq(p.stdout, b"", "--output: nothing on standard output")
    rc, o, err = run(["-b", "-r", dat, "-o", "openmetrics", "--output", "/nonexistent-dir/x.prom"])
    one_clear_line(rc, err, "--output in a directory that does not exist: one line naming it", "/nonexistent-dir")
    # the other formats append to --output (tests/logs.py); the screen has no output to send there
    rc, o, err = run(["-r", dat, "--output", out])
    eq((rc, "--output" in err), (2, True), "--output without -b: a usage error")
    os.unlink(dat)


class Listener:
    """kvmtop --listen 127.0.0.1:PORT with args, up when /metrics answers."""

    def __init__(self, args, port=None):
        self.port = port or free_port()
        self.p = subprocess.Popen([kvmtop(), "--listen", "127.0.0.1:%d" % self.port] + args,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        end = time.time() + 30
        self.up = False
        while time.time() < end and self.p.poll() is None:
            try:
                if self.get("/metrics")[0] == 200:
                    self.up = True
                    break
            except OSError:
                pass
            time.sleep(0.1)

    def get(self, path, accept=None, method="GET", timeout=10):
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), method=method,
                                     headers={"Accept": accept} if accept else {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()

    def raw(self, data, timeout=10):
        """Send bytes on a new connection: what came back before it closed (b'' if nothing)."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        got = b""
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
        except OSError:
            pass
        s.close()
        return got

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        return self.p.returncode


def http_case(dat):
    L = Listener(["-r", dat])
    if not ok(L.up, "--listen 127.0.0.1:PORT -r FILE: /metrics answers", L.p.stderr.read(300) if not L.up else ""):
        L.stop()
        return
    st, h, body = L.get("/metrics")
    ok(st == 200 and h["Content-Type"].startswith("text/plain; version=0.0.4") and b"kvmtop_exits_total" in body,
       "GET /metrics: 200, text format 0.0.4", h)
    rc, direct, err = run(["-b", "-r", dat, "-o", "prometheus"])
    strip = lambda t: [l for l in t.splitlines() if not l.startswith(("kvmtop_cpu_seconds", "kvmtop_resident"))]
    eq(strip(body.decode()), strip(direct), "GET /metrics: the same figures as -b -o prometheus")
    st, h, body = L.get("/metrics", accept="application/openmetrics-text;version=1.0.0,text/plain;q=0.5")
    ok(st == 200 and h["Content-Type"].startswith("application/openmetrics-text") and body.endswith(b"# EOF\n"),
       "GET /metrics asking for OpenMetrics: that content type, # EOF last", h)
    st, h, body = L.get("/metrics", method="HEAD")
    eq((st, body), (200, b""), "HEAD /metrics: 200, no body")
    st, h, body = L.get("/")
    ok(st == 200 and b'href="/metrics"' in body, "GET /: a page linking to /metrics")

    def healthy(what):
        st, h, body = L.get("/metrics", timeout=5)
        ok(st == 200 and b"kvmtop_exits_total" in body and L.p.poll() is None,
           "after %s: a normal scrape still answers" % what)

    st, h, body = L.get("/metrics", method="POST")
    ok(st == 405 and "GET" in (h.get("Allow") or ""), "POST /metrics: 405 with Allow: GET, HEAD", (st, dict(h)))
    healthy("POST")
    back = L.raw(b"GET /../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    ok(back.startswith(b"HTTP/1.1 404") and b"root:" not in back, "GET /../etc/passwd: 404, no file", back[:80])
    healthy("/../etc/passwd")
    back = L.raw(os.urandom(4096) + b"\r\n\r\n")
    ok(not back.startswith(b"HTTP/1.1 200"), "garbage bytes: no 200", back[:60])
    healthy("garbage bytes")
    back = L.raw(b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    ok(not back.startswith(b"HTTP/1.1 200"), "a 1 MiB request line: refused", back[:60])
    healthy("a 1 MiB request line")
    back = L.raw(b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(10000)) + b"\r\n")
    ok(not back.startswith(b"HTTP/1.1 200"), "10,000 headers: refused", back[:60])
    healthy("10,000 headers")
    res = []

    def scrape():
        try:
            res.append(L.get("/metrics", timeout=30)[0])
        except OSError as e:
            res.append(str(e))
    ts = [threading.Thread(target=scrape) for _ in range(200)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    ok(res.count(200) >= 100, "200 parallel scrapes: %d answered 200 (the rest refused past the connection limit)"
       % res.count(200), [r for r in res if r != 200][:3])
    healthy("200 parallel scrapes")
    idle = [socket.create_connection(("127.0.0.1", L.port)) for _ in range(50)]
    t0 = time.time()
    st, h, body = L.get("/metrics", timeout=5)
    ok(st == 200 and time.time() - t0 < 2, "50 idle connections held open: a scrape still answers at once")
    closed = 0
    end = time.time() + 20
    for s in idle:
        s.settimeout(max(0.1, end - time.time()))
        try:
            closed += s.recv(1) == b""
        except OSError:
            pass
        s.close()
    eq(closed, 50, "the 50 idle connections are closed by kvmtop after its idle timeout")
    healthy("50 idle connections")
    eq(L.stop(), 0, "--listen on a recording: served until SIGTERM, then exit 0")
    said = [l for l in L.p.stderr.read().decode("utf-8", "replace").splitlines() if "serving" in l]
    eq(said, ["kvmtop: serving Prometheus metrics on http://127.0.0.1:%d/metrics" % L.port],
       "--listen: one line on stderr, once, with the URL /metrics answered at")


def any_address_case(dat):
    """--listen :PORT binds every address: the URL it says is [::] (or 0.0.0.0 on a host
    without IPv6) with that port, and 127.0.0.1:PORT answers."""
    port = free_port()
    p = subprocess.Popen([kvmtop(), "--listen", ":%d" % port, "-r", dat],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    up, end = False, time.time() + 30
    while not up and time.time() < end and p.poll() is None:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
                up = r.status == 200
        except OSError:
            time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    said = [l for l in p.stderr.read().decode("utf-8", "replace").splitlines() if "serving" in l]
    ok(up and said in (["kvmtop: serving Prometheus metrics on http://[::]:%d/metrics" % port],
                       ["kvmtop: serving Prometheus metrics on http://0.0.0.0:%d/metrics" % port]),
       "--listen :PORT: 127.0.0.1 answers, and the one line says every address and the port", said)


def bad_listen_case(dat):
    for addr, says in (("nonsense", "ADDR:PORT"), (":0", "port"), (":70000", "port"),
                       ("192.0.2.1:9", "cannot listen"), ("no.such.host.invalid:9", "no.such.host.invalid")):
        rc, out, err = run(["--listen", addr, "-r", dat], timeout=30)
        one_clear_line(rc, err, "--listen %s: one line naming it, status != 0" % addr, says)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    rc, out, err = run(["--listen", "127.0.0.1:%d" % busy.getsockname()[1], "-r", dat], timeout=30)
    one_clear_line(rc, err, "--listen on a port in use: one line, status != 0", "cannot listen")
    busy.close()
    rc, out, err = run(["--listen", "127.0.0.1:9", "-b", "-r", dat])
    eq(rc, 2, "--listen with -b: a usage error")


def live_counters_case():
    """Live (the stats source on a fixture tree): counters only grow; an ended VM leaves.
    The stats source counts from its first reading, so the counters grow after it."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-metrics-live-")
    h = [0] * 32
    proc_vm(root, 6100, "grow", {0: (6101, "CPU 0/KVM", True)})
    vm_stats(root, 6100, {"pages_4k": 1}, {0: vcpu_vals(10, h, [0, 0, 0, 0])})
    proc_vm(root, 6200, "ends", {0: (6201, "CPU 0/KVM", True)})
    vm_stats(root, 6200, {"pages_4k": 1}, {0: vcpu_vals(10, h, [0, 0, 0, 0])})
    L = Listener(["--source", "stats", "--proc", root, "-d", "0.3"])
    if not ok(L.up, "--listen --source stats: up"):
        L.stop()
        return

    def exits():
        time.sleep(0.8)
        s = samples_0_0_4(L.get("/metrics")[2].decode())
        out = {}
        for k, v in s.items():
            if k[0] == "kvmtop_exits_total":
                lab = dict(k[1])
                out[(lab["vm"], lab["reason"])] = v
        return out
    time.sleep(0.5)
    vm_stats(root, 6100, {"pages_4k": 1}, {0: vcpu_vals(20, h, [0, 0, 0, 0])})
    vm_stats(root, 6200, {"pages_4k": 1}, {0: vcpu_vals(20, h, [0, 0, 0, 0])})
    first = exits()
    # a client that asks and never reads: it holds a document, not the engine
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.connect(("127.0.0.1", L.port))
    stuck.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    vm_stats(root, 6100, {"pages_4k": 1}, {0: vcpu_vals(30, h, [0, 0, 0, 0])})
    second = exits()
    stuck.close()
    grew = [k for k in first if k[0] == "grow" and second.get(k, -1) > first[k]]
    back = [k for k in first if second.get(k, first[k]) < first[k]]
    ok(grew and not back, "live: a VM's counters grow between scrapes, none goes back, while a client that "
       "never reads its answer holds a connection", (first, second))
    for d in ("6200", "6201"):
        shutil.rmtree(os.path.join(root, d))
    time.sleep(1.0)
    third = exits()
    ok(first and not any(k[0] == "ends" for k in third) and any(k[0] == "grow" for k in third),
       "live: a VM whose process ended leaves the output", sorted(third))
    L.stop()
    shutil.rmtree(root, ignore_errors=True)


def prometheus_case(dat):
    """A real Prometheus server scrapes kvmtop --listen -r FILE; PromQL against kvmtop's JSON."""
    if not shutil.which("prometheus"):
        skip("Prometheus server: scrape and PromQL", "prometheus is not installed (apt-get install prometheus)")
        return
    L = Listener(["-r", dat])
    # a second kvmtop, of VMs' context (tests/context.py's fixture: the stats source on files laid
    # out as /proc and /sys), for the dashboard's and rules' context series; a job of its own
    croot, cproc, csys = two_vms("kvmtop-promctx-")
    write_vm1(cproc, csys, 0)
    C = Listener(["--source", "stats", "--proc", cproc, "--sys", csys, "--metrics-identity"])
    if not ok(L.up and C.up, "Prometheus case: kvmtop --listen is up (a replay, and VMs' context)"):
        L.stop()
        C.stop()
        return
    d = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-prom-")
    pport = free_port()
    with open(os.path.join(d, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n"
                "  - job_name: kvmtop\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                "  - job_name: kvmtop-context\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                % (L.port, C.port))
    prom = subprocess.Popen(["prometheus", "--config.file", os.path.join(d, "prometheus.yml"),
                             "--storage.tsdb.path", os.path.join(d, "data"),
                             "--web.listen-address", "127.0.0.1:%d" % pport],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "log"), "w"))

    def query(q):
        u = "http://127.0.0.1:%d/api/v1/query?%s" % (pport, urllib.parse.urlencode({"query": q}))
        try:
            with urllib.request.urlopen(u, timeout=5) as r:
                return json.load(r)["data"]["result"]
        except (OSError, ValueError, KeyError):
            return None
    try:
        end = time.time() + 60
        up = None
        while time.time() < end:
            up = query('up{job="kvmtop"}')
            if up and up[0]["value"][1] == "1" and query("kvmtop_exits_total"):
                break
            time.sleep(0.5)
        ok(up and up[0]["value"][1] == "1", "Prometheus scrapes kvmtop: up is 1",
           open(os.path.join(d, "log")).read()[-400:])
        rc, out, err = run(["-b", "-r", dat, "-o", "json"])
        j = json.loads(out)
        rc, om, err = run(["-b", "-r", dat, "-o", "openmetrics"])
        nsamples = sum(1 for l in om.splitlines() if l and not l.startswith("#"))
        sc = query('scrape_samples_scraped{job="kvmtop"}')
        eq(sc and int(float(sc[0]["value"][1])), nsamples,
           "Prometheus took every sample of the OpenMetrics scrape (%d)" % nsamples)
        got = {r["metric"]["reason"]: int(float(r["value"][1]))
               for r in query('sum by (reason) (kvmtop_exits_total{job="kvmtop"})') or []}
        want = {r["reason"] + (" " + r["flags"] if r.get("flags") else ""): r["total"] for r in j["host"]["reasons"]}
        eq(got, want, "PromQL sum by (reason) (kvmtop_exits_total): the JSON's host totals, exactly")
        q = query('histogram_quantile(0.99, sum by (le, reason) (kvmtop_exit_latency_seconds_bucket{job="kvmtop"}))') or []
        les = [1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2,
               5e-2, 0.1, 0.25, 0.5, 1, float("inf")]
        bad = []
        p99 = {r["reason"] + (" " + r["flags"] if r.get("flags") else ""): r["latency"]["p99"] / 1e9
               for r in j["host"]["reasons"] if r["latency"]["samples"]}
        for r in q:
            name, v = r["metric"]["reason"], float(r["value"][1])
            k = p99.get(name)
            if k is None:
                continue
            # the bucket holding kvmtop's p99, widened by the 1/32 a sample near a bound may move
            lo = max([0.0] + [b for b in les if b < k * (1 - 1 / 32)])
            hi = min(b for b in les if b >= k * (1 + 1 / 32) or b == float("inf"))
            if not lo <= v <= hi:
                bad.append("%s: PromQL %.9f, kvmtop p99 %.9f, bucket [%g, %g]" % (name, v, k, lo, hi))
        ok(q and not bad, "histogram_quantile(0.99, ...) per reason: within the bucket of kvmtop's p99 (%d reasons)"
           % len(q), "\n".join(bad[:5]))
        # contrib's dashboard and alerting rules: their PromQL runs on kvmtop's series
        src = os.path.dirname(os.path.dirname(os.environ["KVMTOP_FORMATS"]))
        dash = json.load(open(os.path.join(src, "contrib", "grafana-kvmtop.json")))
        exprs = [t["expr"] for pnl in dash["panels"] for t in pnl["targets"]]
        exprs = [e.replace("$__rate_interval", "1m").replace("$instance", ".*").replace("$vm", ".*") for e in exprs]
        rules = open(os.path.join(src, "contrib", "kvmtop-alerts.yml")).read()
        alerts = [blk.split("expr:", 1)[1].split("\n        for:")[0].split("\n        labels:")[0]
                  .replace("|", "").strip() for blk in rules.split("- alert:")[1:]]
        bad = []
        for e in exprs + alerts:
            u = "http://127.0.0.1:%d/api/v1/query?%s" % (pport, urllib.parse.urlencode({"query": e}))
            try:
                with urllib.request.urlopen(u, timeout=5) as r:
                    st = json.load(r)["status"]
            except urllib.error.HTTPError as he:
                st = he.read().decode(errors="replace")[:200]
            if st != "success":
                bad.append("%s: %s" % (e[:80], st))
        ok(len(exprs) >= 12 and len(alerts) == 9 and not bad,
           "contrib: the dashboard's %d and the rules' %d PromQL expressions run on kvmtop's series"
           % (len(exprs), len(alerts)), "\n".join(bad))
        end = time.time() + 15
        series = None
        while time.time() < end:	# rate() needs two scrapes of a series
            series = query('sum by (vm) (rate(kvmtop_exits_total{job="kvmtop"}[1m]))')
            ctx = query('rate(kvmtop_vm_major_faults_total{job="kvmtop-context"}[1m])')
            if series and len(series) == len(j["vms"]) and ctx:
                break
            time.sleep(0.5)
        ok(series and len(series) == len(j["vms"]), "the dashboard's first panel has a line per VM", series)
        # every panel draws something, with All hosts and All VMs as Grafana sends them: each
        # variable's values as one regex (so a panel whose series lack a label it filters on is empty)
        # (no value here has a regex metacharacter that is not itself: no escaping needed)
        alls = {"$instance": "(127.0.0.1:%d|127.0.0.1:%d)" % (L.port, C.port),
                "$vm": "(" + "|".join([vm["name"] for vm in j["vms"]] + ["web1", "db2"]) + ")"}
        empty = []
        for pnl in dash["panels"]:
            for t in pnl["targets"]:
                e = t["expr"].replace("$__rate_interval", "1m")
                for k, v in alls.items():
                    e = e.replace(k, v)
                if not query(e):
                    empty.append("%s: %s" % (pnl["title"], e[:100]))
        ok(not empty, "contrib: every dashboard panel has data for All hosts and All VMs", "\n".join(empty))
        # the identity table's rows: the fixture's VMs as their command lines name them (-name guest=)
        who = next(t["expr"] for pnl in dash["panels"] for t in pnl["targets"] if "kvmtop_vm_info" in t["expr"])
        for k, v in alls.items():
            who = who.replace(k, v)
        rows = sorted((r["metric"].get("pid"), r["metric"].get("display_name"), r["metric"].get("name_from"))
                      for r in query(who) or [])
        eq(rows, [("4100", "web1", "qemu"), ("4200", "db2", "qemu")],
           "contrib: the dashboard's identity table names each VM as its command line does (-name guest=)")
    finally:
        prom.send_signal(signal.SIGTERM)
        try:
            prom.wait(timeout=20)
        except subprocess.TimeoutExpired:
            prom.kill()
        L.stop()
        C.stop()
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(croot, ignore_errors=True)


def live_demo_case():
    """Live on the demo guest: a scrape while it runs and one after its fixed loops, seconds
    apart: the second equals the guest's own counts (its report), as tests/live.py checks the
    JSON (kvm_pio and userspace exits IO, MMIO, HLT), and no counter went back."""
    if live_elsewhere():
        live_cases_in_kvm_host(__file__, "metrics.py live")
        return
    if not kvm_here():
        skip("live: two scrapes of the demo guest, the counters = its own counts",
             "needs root and a KVM that traces VM exits")
        return
    report = os.path.join(TMP, "metrics-demo.json")
    if os.path.exists(report):
        os.unlink(report)
    # a sanitizer build (.ci/asan) of kvmtop reads many times slower: a workload it keeps up with
    loops = 2000 if sanitized() else 20000
    L = Listener(["--demo", "--demo-vcpus", "2", "--demo-loops", str(loops), "--demo-report", report, "-d", "0.5"])
    if not ok(L.up, "live --demo --listen: up"):
        L.stop()
        return

    def counts():
        s = samples_0_0_4(L.get("/metrics")[2].decode())
        out = {}
        for k, v in s.items():
            lab = dict(k[1])
            if k[0] == "kvmtop_events_total" and lab.get("vm") == "kvmtop-demo":
                out[lab["event"]] = out.get(lab["event"], 0) + v
            if k[0] == "kvmtop_userspace_exits_total" and lab.get("vm") == "kvmtop-demo":
                out[lab["reason"]] = out.get(lab["reason"], 0) + v
        return out
    a = counts()
    end = time.time() + 120
    while not os.path.exists(report) and time.time() < end:
        time.sleep(0.5)
    # the snapshot that shows the guest ended has all its exits; the one after drops its series
    # (kvmtop(1), ended VMs).  Under load kvmtop reads its events seconds late: scrape until the
    # series go, and keep the last scrape that had them
    # A sanitizer build reads seconds behind the guest, so its series may not be there yet when
    # the guest's report is: an empty scrape ends the wait only once they have been seen
    b, seen, end = {}, False, time.time() + 120
    while time.time() < end:
        c = counts()
        if c:
            b, seen = c, True
        elif seen:
            break
        time.sleep(0.2)
    L.stop()
    g = json.load(open(report)) if os.path.exists(report) else {"vcpus": []}
    want = {"kvm_pio": sum(c["exits"]["IO"] for c in g["vcpus"]), "IO": sum(c["exits"]["IO"] for c in g["vcpus"]),
            "MMIO": sum(c["exits"]["MMIO"] for c in g["vcpus"]), "HLT": sum(c["exits"]["HLT"] for c in g["vcpus"])}
    # kvmtop traces from before the guest starts (tests/live.py): its totals are the guest's whole run
    got = {k: int(b.get(k, 0)) for k in want}
    eq(got, want, "live demo: the scrape after the guest ended: kvm_pio, userspace IO, MMIO, HLT = its own counts")
    ok(all(a.get(k, 0) <= b.get(k, 0) for k in want), "live demo: the earlier scrape's counters are not larger",
       (a, b))


def main():
    if live_only():
        live_demo_case()
        done()
    dat = os.path.join(TMP, "metrics.dat")
    exp = kvmgen(dat, "x86-6.5", ["-m", "3", "-v", "2", "-n", "400", "-C", "2", "-x", "-w", "-s", "21"],
                 expect=dat + ".json")
    formats_case(dat, exp)
    hostile_case(dat)
    http_case(dat)
    bad_listen_case(dat)
    any_address_case(dat)
    prometheus_case(dat)
    live_counters_case()
    textfile_case()
    live_demo_case()
    done()


main()
