# SPDX-License-Identifier: GPL-2.0
"""Minimal TAP producer for kvmtop's script tests (read by automake's tap-driver.sh)."""
import json
import os
import re
import subprocess
import sys

_n = 0
_failed = 0

# kvmtop's default source is bpf where it loads (issue 48).  The live tests were written for the
# trace source, the default before: their kvmtops keep it (KVMTOP_NO_BPF=1, kvmtop(1)) unless
# they ask for one (--source) or test the default (tests/live_default.py takes this out).
os.environ.setdefault("KVMTOP_NO_BPF", "1")


def ok(cond, name, diag=None):
    global _n, _failed
    _n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (_n, name))
    if not cond:
        _failed += 1
        if diag:
            for line in str(diag).splitlines()[:20]:
                print("# " + line)
    sys.stdout.flush()
    return cond


def eq(got, want, name):
    return ok(got == want, name, "got  %r\nwant %r" % (got, want))


def skip(name, why):
    global _n
    _n += 1
    print("ok %d - %s # SKIP %s" % (_n, name, why))
    sys.stdout.flush()


def done():
    print("1..%d" % _n)
    sys.exit(0)


def kvmtop():
    return os.environ.get("KVMTOP", os.path.join(os.getcwd(), "kvmtop"))


def sanitized():
    """Is the kvmtop under test an AddressSanitizer build (.ci/asan)?  Its memory is not kvmtop's:
    shadow memory and a quarantine of freed blocks."""
    try:
        with open(kvmtop(), "rb") as f:
            return b"libasan.so" in f.read()
    except OSError:
        return False


def mount_point(fstype):
    """Where a file system of type fstype (tracefs, debugfs) is mounted, or None."""
    for line in open("/proc/mounts"):
        f = line.split()
        if f[2] == fstype:
            return f[1]
    return None


def traces():
    return os.environ.get("KVMTOP_TRACES", "")


def run(args, timeout=300, env=None):
    """Run kvmtop with args (and env's variables added): (exit status, stdout, stderr)."""
    p = subprocess.run([kvmtop()] + args, capture_output=True, timeout=timeout,
                       env=dict(os.environ, **env) if env else None)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# Sanitizer runs of hostile input.  A file may ask libtracecmd for a
# calloc() of gigabytes (a chunk count of 2^29): glibc maps it lazily and
# kvmtop fails fast with one line, but ASan's allocator touches its shadow
# and takes minutes.  So ASan refuses allocations over 1 GiB (returns NULL,
# as a real allocator may), and its warning about that is dropped from
# stderr: it is the sanitizer's, not kvmtop's.
ASAN_OPTIONS = ("detect_leaks=0:abort_on_error=0:exitcode=99:allocator_may_return_null=1:"
                "max_allocation_size_mb=1024")


def asan_quiet(err):
    # the refusal's warning, and what libtracecmd then says with perror() as
    # it falls back from mmap (the plain build's allocation succeeds, lazily)
    return "".join(l for l in err.splitlines(True)
                   if not re.match(r"==\d+==WARNING: AddressSanitizer failed to allocate", l)
                   and l not in ("mmap: Cannot allocate memory\n", "Can not mmap file, will read instead\n"))


def asan_run(args, timeout=120):
    """Run the ASan/UBSan build (KVMTOP_ASAN) with args, its memory errors
    turned into statuses 99 (ASan) and 98 (UBSan): (status, stdout, stderr,
    peak RSS in MiB); status None and stderr "timeout" when it ran too long."""
    import tempfile
    import time
    env = dict(os.environ, ASAN_OPTIONS=ASAN_OPTIONS, UBSAN_OPTIONS="halt_on_error=1:exitcode=98")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([os.environ["KVMTOP_ASAN"]] + args, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=err, env=env)
        end = time.monotonic() + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > end:
                p.kill()
                os.wait4(p.pid, 0)
                return None, "", "timeout", 0
            time.sleep(0.01)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (p.returncode, out.read().decode("utf-8", "replace"),
                asan_quiet(err.read().decode("utf-8", "replace")), ru.ru_maxrss / 1024)

def threads_of_session(sid):
    """What each thread of session sid is doing, one line each: pid/tid, name, state, the kernel
    function it waits in and its kernel stack's first frames (a hang's evidence)."""
    lines = []
    for pid in sorted((int(d) for d in os.listdir("/proc") if d.isdigit())):
        try:
            if int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[3]) != sid:
                continue
            tids = sorted(int(t) for t in os.listdir("/proc/%d/task" % pid))
        except (OSError, ValueError, IndexError):
            continue
        for tid in tids:
            base = "/proc/%d/task/%d/" % (pid, tid)
            try:
                stat = open(base + "stat").read()
                wchan = open(base + "wchan").read()
                stack = [l.split()[1] for l in open(base + "stack") if len(l.split()) > 1][:6]
            except OSError:
                continue
            lines.append("%d/%d %s %s wchan=%s stack=%s" % (pid, tid, stat[stat.find("("):stat.rfind(")") + 1],
                                                           stat.rsplit(")", 1)[1].split()[0], wchan or "-",
                                                           ",".join(stack) or "-"))
    return "\n".join(lines)


def run_bounded(args, timeout, cwd=None):
    """Run args in a session of their own: (status, stdout, stderr).  Past timeout seconds the
    status is None and stderr ends with what each of its threads was waiting on (so that a hang
    says where), and the whole session is killed."""
    import signal
    p = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        where = threads_of_session(p.pid)
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out.decode("utf-8", "replace"), "%s\n(still running after %d s; its threads:\n%s)" % (
            err.decode("utf-8", "replace")[-2000:], timeout, where)


def one_clear_line(rc, err, name, must_mention=None):
    """ok when kvmtop said one 'kvmtop: ' line (mentioning must_mention) and
    exited non-zero, not by a signal or a sanitizer."""
    lines = [l for l in err.splitlines() if l.strip()]
    good = (rc is not None and rc not in (0, 98, 99) and rc > 0 and len(lines) == 1
            and lines[0].startswith("kvmtop: ")
            and (must_mention is None or must_mention in lines[0]))
    return ok(good, name, "status %r, stderr:\n%s" % (rc, err))


def wait_line(p, text, timeout=10):
    """Read process p's stderr until a line holds text: that line, or None."""
    import time
    end = time.time() + timeout
    while time.time() < end:
        line = p.stderr.readline().decode()
        if not line:
            return None
        if text in line:
            return line
    return None


def kvm_traced(pid, secs=30, proc=None):
    """Wait until trace kvmtop pid traces KVM's events (its instance's kvm_exit on): True, or
    False after secs, or once process proc (kvmtop's Popen, if given) has ended."""
    import time
    f = os.path.join(mount_point("tracefs") or "/sys/kernel/tracing", "instances", "kvmtop-%d" % pid,
                     "events", "kvm", "kvm_exit", "enable")
    end = time.time() + secs
    while time.time() < end and (proc is None or proc.poll() is None):
        try:
            if open(f).read().strip() == "1":
                return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def demo_guests():
    """pids of running demo guests (their command line says --demo-guest)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % d, "rb").read().split(b"\0")
        except OSError:
            continue
        if len(cmd) > 1 and cmd[1] == b"--demo-guest":
            found.append(int(d))
    return found


def demo_vcpu(timeout=20):
    """(guest pid, tid) of a running demo guest's vCPU 0, waited for up to timeout s, or (None, None)."""
    import time
    end = time.time() + timeout
    while time.time() < end:
        for d in demo_guests():
            try:
                for t in os.listdir("/proc/%d/task" % d):
                    if open("/proc/%d/task/%s/comm" % (d, t)).read().strip() == "CPU 0/KVM":
                        return d, int(t)
            except OSError:
                pass
        time.sleep(0.05)
    return None, None


def kvmgen(out, layout, args, expect=None, timeout=600):
    """The project's generator: recording out of the kernel layout tests/formats/LAYOUT, with
    args; with expect, its truth written there too and returned (loaded).  A generator that
    fails ends the test: "Bail out!" and what it said."""
    cmd = [os.environ["KVMGEN"], "-f", os.path.join(os.environ["KVMTOP_FORMATS"], layout), "-o", out]
    p = subprocess.run(cmd + (["-e", expect] if expect else []) + list(args), capture_output=True,
                       timeout=timeout)
    if p.returncode:
        print("Bail out! kvmgen %s: %s" % (" ".join(args), p.stderr.decode().strip()), flush=True)
        sys.exit(1)
    if expect:
        with open(expect) as f:
            return json.load(f)
    return None


# --- live cases on a machine without /dev/kvm ---

def kvm_vendor():
    """The loaded KVM vendor module (kvm_intel, kvm_amd, kvm_pvm, ...), or None."""
    for m in ("kvm_intel", "kvm_amd", "kvm_pvm"):
        if os.path.isdir("/sys/module/" + m):
            return m
    return None


def kvm_here():
    """Can the live cases run directly: root, a usable /dev/kvm, and a KVM that traces VM exits?
    On x86 only VMX (kvm_intel) and SVM (kvm_amd) raise kvm_exit and kvm_entry: PVM (kvm_pvm,
    KVM without hardware virtualization, as some cloud machines give their guests) runs guests
    without them, so there the live cases run in the emulated host as without /dev/kvm."""
    if os.geteuid() != 0 or not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    return os.uname().machine not in ("x86_64", "i686") or kvm_vendor() in ("kvm_intel", "kvm_amd")


def bpf_not_built_in():
    """Why the bpf source cannot run (kvmtop built without libbpf, clang or bpftool), or None."""
    p = subprocess.run([kvmtop(), "-b", "-n", "1", "-d", "0.1", "--source", "bpf"], capture_output=True)
    err = p.stderr.decode()
    return None if "not built in" not in err else err.strip()


def inside_kvm_host():
    """Is this test running inside the emulated KVM host (tests/vmhost)?"""
    return os.environ.get("KVMTOP_VMHOST_INSIDE") == "1"


class _Relay:
    """Re-reports a TAP stream as this test's own cases, line by line as it comes."""

    def __init__(self):
        self.buf = ""
        self.plan = None
        self.seen = 0

    def write(self, text):
        self.buf += text
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            self.line(line)

    def flush(self):
        pass

    def line(self, line):
        m = re.match(r"^(not )?ok \d+(?: -)? ?(.*?)(?: # SKIP (.*))?$", line)
        if m:
            self.seen += 1
            if m.group(3) is not None:
                skip(m.group(2), m.group(3))
            else:
                global _n, _failed
                _n += 1
                if m.group(1):
                    _failed += 1
                print("%sok %d - %s" % (m.group(1) or "", _n, m.group(2)))
                sys.stdout.flush()
        elif re.match(r"^1\.\.\d+", line):
            self.plan = int(line[3:].split()[0])
        elif line.startswith("Bail out!"):
            ok(False, "in the emulated KVM host: " + line)
        else:
            print(line if line.startswith("#") else "# " + line)
            sys.stdout.flush()


def live_size(n):
    """A live workload's size: n on a real KVM host, a tenth inside the emulated one, where every
    guest instruction is emulated (thousands of exits a second, not millions)."""
    return max(1, n // 10) if inside_kvm_host() else n


def in_kvm_host(args, label, timeout=900, numa_nodes=1):
    """Run `python3 ARGS` as root inside an emulated KVM host (tests/vmhost/vmhost.py) and report
    its TAP cases as this test's own; numa_nodes > 1: a host with that many NUMA nodes (vmhost's
    run()).  A host that cannot boot, or dies or times out before the script ends, is a failing
    case naming the step: never a pass, never a SKIP."""
    import time
    if os.environ.get("KVMTOP_MUTATE") == "1":
        # make mutate runs the suite once per mutation: the emulated host's minutes are left out
        skip("%s: the emulated KVM host" % label, "make mutate leaves the emulated host out (tests/mutate.py)")
        return False
    if os.environ.get("KVMTOP_NO_VMHOST"):
        # .ci/run's distcheck: the tarball's suite, its live cases run once already by the checkout's
        skip("%s: the emulated KVM host" % label, os.environ["KVMTOP_NO_VMHOST"])
        return False
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vmhost"))
    import vmhost
    relay = _Relay()
    t0 = time.monotonic()
    try:
        status, err = vmhost.run([sys.executable] + list(args), timeout=timeout, out=relay,
                                 numa_nodes=numa_nodes)
    except vmhost.VmhostError as e:
        relay.write("\n")
        ok(False, "%s: the emulated KVM host ran it: %s" % (label, e))
        return False
    relay.write("\n")
    took = time.monotonic() - t0
    good = status == 0 and relay.plan is not None and relay.plan == relay.seen
    ok(good, "%s: the emulated KVM host (QEMU TCG, SVM) booted and ran it to the end in %.0f s" % (label, took),
       "status %r, plan %r, cases seen %d\n%s" % (status, relay.plan, relay.seen, err[-3000:]))
    return good


def guest_cases(script, cases, why_not, args=(), numa_nodes=1):
    """The start of a test's cases that need a KVM that traces VM exits.  Where this host has
    none, the script (with args) runs inside the emulated KVM host (of numa_nodes NUMA nodes),
    whose cases are reported as its own, and this ends; where why_not() says why the cases
    cannot run, each is a SKIP saying so, and this ends.  Otherwise it returns and the cases
    run here."""
    if live_elsewhere():
        in_kvm_host([os.path.abspath(script)] + list(args), os.path.basename(script), numa_nodes=numa_nodes)
        done()
    why = why_not()
    if why:
        for c in cases:
            skip(c, why)
        done()


LIVE_ONLY = "--live-only"


def live_only():
    """Was this script started with --live-only: only its /dev/kvm cases, inside the emulated host?"""
    return LIVE_ONLY in sys.argv[1:]


def live_elsewhere():
    """Should this script's /dev/kvm cases run in an emulated KVM host rather than here?"""
    return os.geteuid() == 0 and not kvm_here() and not inside_kvm_host()


def live_cases_in_kvm_host(script, label, timeout=900, numa_nodes=1):
    """A script whose other cases run here: its /dev/kvm cases (script --live-only) inside an
    emulated KVM host (of numa_nodes NUMA nodes), reported as its own, when this machine cannot
    run them directly."""
    return in_kvm_host([os.path.abspath(script), LIVE_ONLY], label, timeout, numa_nodes)



# JSON keys whose values are addresses or 64-bit identifiers: "0x..." strings
# (kvmtop(1), OUTPUT, json), never numbers a double-based reader would round.
ADDR_KEYS = ("ip", "value", "site")


def addr_ints(doc):
    """kvmtop's JSON document doc with each address ("0x..." under ADDR_KEYS) as a
    Python int, for tests that compare addresses with a truth of ints; an
    address written as a number, or a string not in hex, raises ValueError."""
    if isinstance(doc, list):
        return [addr_ints(v) for v in doc]
    if not isinstance(doc, dict):
        return doc
    out = {}
    for k, v in doc.items():
        if k in ADDR_KEYS and v is not None and not isinstance(v, (dict, list)):
            if not (isinstance(v, str) and re.fullmatch(r"0x[0-9a-f]+", v)):
                raise ValueError("%s: %r is not a \"0x...\" string" % (k, v))
            v = int(v, 16)
        out[k] = addr_ints(v)
    return out


def u64(v):
    """A 64-bit figure of kvmtop's JSON (start, end, a sum of times: decimal strings, as they can
    pass 2^53) as a Python int; None (null: no value) stays None; a number raises ValueError."""
    if v is None:
        return None
    if not (isinstance(v, str) and re.fullmatch(r"[0-9]+", v)):
        raise ValueError("%r is not a decimal string" % (v,))
    return int(v)
