# SPDX-License-Identifier: GPL-2.0
"""Who a VM is, from what the host holds (issue 37 item 2).

kvmtop names each VM from its VMM's command line and libvirt's status
XML: the best display name (OpenStack's, else libvirt's domain, else the
VMM's own -name / --id / API socket, else its comm), its UUID, and, on
OpenStack, its project and flavor.  The stats source on a tree laid out
as /proc (--proc DIR) finds the VMs; each VMM's cmdline there is a link
to the cmdline of a real process of the test's own, started with that
argv (QEMU-, libvirt-, OpenStack-, Kata-, Firecracker- and
cloud-hypervisor-like: Python with the argv of each, sleeping), and
libvirt's run dir is a folder the test writes (--libvirt-run DIR).  The
oracle is the fixture's own text: the name, UUID, project and flavor it
wrote.  Bad status files (truncated, not XML, another pid's, a huge one,
a name with markup in it) give the VMM's own name, never a crash; a
status file rewritten as libvirt does (renamed in) is read again, one
changed with the dir's and its own times kept is not (read only when
the files change); names are escaped in text, CSV and on the screen
(the context pane, m, in tmux).
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from tap import ok, eq, skip, done, kvmtop
from kstat_fixture import put, proc_vm, vm_stats, vcpu_vals

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
H0 = [0] * 32
LIN = [0, 0, 0, 0]
U1 = "5b0c3e1a-2f4d-4c8e-9a71-0d2e3f405161"
U2 = "6c1d4f2b-3a5e-4d9f-8b82-1e3f40516272"
U3 = "7d2e5a3c-4b6f-4eaa-9c93-2f4051627383"
U4 = "8e3f6b4d-5c7a-4fbb-8da4-305162738494"
BELL = "\x07"

# pid -> (argv of the stand-in VMM, the parent's argv or None)
VMS = {
    4100: (["qemu-system-x86_64", "-name", "guest=web1,debug-threads=on", "-uuid", U1], None),
    4200: (["qemu-system-x86_64", "-name", "guest=dom2,debug-threads=on", "-uuid", U2], None),
    4300: (["/usr/bin/qemu-system-x86_64", "-name", "guest=instance-0000002a,debug-threads=on", "-uuid", U3], None),
    4400: (["qemu-system-x86_64", "-name", "sandbox-3f9a0c11d2e4,debug-threads=on", "-uuid", U4], None),
    4500: (["/usr/local/bin/firecracker", "--id", "fc-7", "--api-sock", "/run/fc.sock"], None),
    4600: (["cloud-hypervisor", "--api-socket", "/run/ch/vm-9.sock", "--cpus", "boot=1"], None),
    4700: (["qemu-system-x86_64", "-machine", "q35"],
           ["containerd-shim-kata-v2", "-namespace", "k8s.io", "-id", "ab12cd34", "-address", "/run/c.sock"]),
    4800: (["qemu-system-x86_64", "-name", "guest=bad1"], None),
    4900: (["qemu-system-x86_64", "-name", "guest=bad2"], None),
    5000: (["qemu-system-x86_64", "-name", "guest=renamed-qemu"], None),
    5100: (["qemu-system-x86_64", "-name", "guest=bad3"], None),
}


def status_xml(pid, name, uuid, nova=None, pad=0):
    """A libvirt status file as the QEMU driver writes it (the domstatus root and its pid, private
    state first, then the live domain); nova: (display name, project, flavor), XML-escaped here."""
    meta = ""
    if nova:
        meta = ("  <metadata>\n    <nova:instance xmlns:nova=\"http://openstack.org/xmlns/libvirt/nova/1.1\">\n"
                "      <nova:package version=\"27.1.0\"/>\n      <nova:name>%s</nova:name>\n"
                "      <nova:creationTime>2026-11-26 10:00:00</nova:creationTime>\n"
                "      <nova:flavor name=\"%s\">\n        <nova:memory>2048</nova:memory>\n"
                "        <nova:vcpus>2</nova:vcpus>\n      </nova:flavor>\n      <nova:owner>\n"
                "        <nova:user uuid=\"0f1e2d3c\">admin</nova:user>\n"
                "        <nova:project uuid=\"9a8b7c6d\">%s</nova:project>\n      </nova:owner>\n"
                "    </nova:instance>\n  </metadata>\n" % (nova[0], nova[2], nova[1]))
    flags = "".join("    <flag name='cap%d'/>\n" % i for i in range(pad))
    return ("<domstatus state='running' reason='booted' pid='%d'>\n  <taint flag='high-privileges'/>\n"
            "  <monitor path='/var/lib/libvirt/qemu/domain-1-%s/monitor.sock' type='unix'/>\n"
            "  <qemuCaps>\n%s  </qemuCaps>\n"
            "  <domain type='kvm' id='1'>\n  <name>%s</name>\n  <uuid>%s</uuid>\n%s"
            "  <memory unit='KiB'>2097152</memory>\n  <devices>\n    <disk type='file'>\n"
            "      <alias name='virtio-disk0'/>\n    </disk>\n  </devices>\n  </domain>\n</domstatus>\n"
            % (pid, name, flags, name, uuid, meta))


def put_xml(d, name, text):
    """Written as libvirt does (virFileRewrite): a new file renamed into place."""
    path = os.path.join(d, name)
    with open(path + ".new", "w") as f:
        f.write(text)
    os.rename(path + ".new", path)


def stand_in(argv):
    """A sleeping process whose cmdline is argv (Python's argv[0] is any string; -c's code reads
    none of the rest): its Popen."""
    code = "import sys, time; sys.stdin.read(); time.sleep(60)"
    p = subprocess.Popen([argv[0], "-c", code] + argv[1:], executable=sys.executable,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    return p


def tree(procs):
    """The fixture: its root, proc and libvirt dirs; each VM's cmdline a link to its stand-in's."""
    root = tempfile.mkdtemp(dir=TMP, prefix="kvmtop-ident-")
    proc, lv = os.path.join(root, "proc"), os.path.join(root, "libvirt")
    os.makedirs(lv)
    for pid, (argv, parent) in sorted(VMS.items()):
        d = proc_vm(proc, pid, "x", {0: (pid + 1, "CPU 0/KVM", True)})
        vm_stats(proc, pid, {}, {0: vcpu_vals(10, H0, LIN)})
        os.unlink(os.path.join(d, "cmdline"))
        os.symlink("/proc/%d/cmdline" % procs[pid].pid, os.path.join(d, "cmdline"))
        ppid = 1
        if parent:
            ppid = pid + 50
            pd = os.path.join(proc, str(ppid))
            os.makedirs(pd)
            os.symlink("/proc/%d/cmdline" % procs[ppid].pid, os.path.join(pd, "cmdline"))
        put(os.path.join(d, "status"), "Name:\tqemu-system-x86\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\n"
            % (pid, pid, ppid), "w")
    put_xml(lv, "dom2.xml", status_xml(4200, "dom2", U2))
    put_xml(lv, "instance-0000002a.xml",
            status_xml(4300, "instance-0000002a", U3, ("web &amp; &quot;db&quot; &lt;3 &#x263A;" + "&#7;", "demo", "m1.small")))
    # bad1.xml: cut inside the domain; bad2.xml: another VM's pid; bad3: not XML, then a huge one
    text = status_xml(4800, "libvirt-bad1", U1)
    put_xml(lv, "bad1.xml", text[:text.index("<name>") + 9])
    put_xml(lv, "bad2.xml", status_xml(4200, "libvirt-bad2", U1))
    put_xml(lv, "bad3.xml", "\0\xff<<<domstatus pid='5100' <domain <name>" * 1000)
    put_xml(lv, "huge.xml", status_xml(4100, "huge", U1, pad=200000))
    # a status file named for another name than QEMU's -name: found by its pid
    put_xml(lv, "libvirt-renamed.xml", status_xml(5000, "libvirt-renamed", U2, ("name <b>x</b>", "p", "f")))
    return root, proc, lv


def run(proc, lv, fmt, n=1, extra=(), between=None):
    """kvmtop -b on the fixture: its stdout lines (between(i) after line i of n), and its status."""
    p = subprocess.Popen([kvmtop(), "-b", "--source", "stats", "--proc", proc, "--libvirt-run", lv,
                          "-d", "1", "-n", str(n), "-o", fmt] + list(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    if between:
        for i in range(n):
            line = p.stdout.readline()
            if not line:
                break
            lines.append(line)
            between(i + 1)
    out, err = p.communicate(timeout=60)
    return lines + out.splitlines(True), p.returncode, err


def by_pid(doc):
    return {v["pid"]: v for v in doc["vms"]}


def json_case(proc, lv):
    lines, rc, err = run(proc, lv, "json")
    eq((rc, len(lines)), (0, 1), "json: one snapshot of the fixture")
    if rc or not lines:
        print("# " + err[-400:])
        return
    vms = by_pid(json.loads(lines[0]))
    got = {pid: (v["display_name"], v["name_from"], v["uuid"]) for pid, v in vms.items()}
    eq(got[4100], ("web1", "qemu", U1), "QEMU: -name guest=NAME and -uuid")
    eq(got[4200], ("dom2", "libvirt", U2), "libvirt: the domain's name and UUID from its status XML (pid matched)")
    eq((got[4300], vms[4300]["project"], vms[4300]["flavor"], vms[4300]["name"]),
       (("web & \"db\" <3 \u263a" + BELL, "openstack", U3), "demo", "m1.small", "instance-0000002a"),
       "OpenStack: nova:name (entities decoded), its project and flavor; the VMM's name stays in name")
    eq(got[4400], ("3f9a0c11d2e4", "kata", U4), "Kata: the sandbox id of QEMU's -name sandbox-ID, and -uuid")
    eq(got[4500], ("fc-7", "firecracker", None), "Firecracker: --id; no UUID (null, not made up)")
    eq(got[4600], ("vm-9", "cloud-hypervisor", None), "cloud-hypervisor: its API socket's name")
    eq(got[4700], ("ab12cd34", "kata", None), "Kata: a QEMU its -name does not say: the shim parent's -id")
    eq(got[4800], ("bad1", "qemu", None), "a status file cut short: the VMM's own name")
    eq(got[4900], ("bad2", "qemu", None), "a status file of another pid: not this VM's")
    eq(got[5100], ("bad3", "qemu", None), "a status file that is not XML: the VMM's own name")
    eq(got[5000], ("libvirt-renamed", "libvirt", U2),
       "a status file named otherwise, found by its pid; a nova:name holding markup is not taken")
    eq(got[4100][:2], ("web1", "qemu"), "a huge status file (its domain past the first MiB): the VMM's name")
    eq((vms[4100]["project"], vms[4100]["flavor"]), (None, None), "no OpenStack: project and flavor null")


def filter_case(proc, lv):
    """-g matches a VM's name, or who it is: its display name, its UUID (the oracle: the fixture's
    command lines and status files)."""
    for glob, want, what in (("web & *", [4300], "OpenStack's display name (nova:name)"),
                             ("instance-0000002a", [4300], "the VMM's own name, as before"),
                             (U2, [4200, 5000], "a UUID (libvirt's, of two status files)"),
                             ("3f9a0c11d2e4", [4400], "Kata's sandbox id"),
                             ("nobody*", [], "nothing it matches")):
        lines, rc, err = run(proc, lv, "json", extra=["-g", glob])
        got = sorted(by_pid(json.loads(lines[0]))) if rc == 0 and lines else err[-300:]
        eq(got, want, "-g %s: the VMs it calls by %s" % (glob, what))


def text_csv_case(proc, lv):
    lines, rc, _ = run(proc, lv, "text")
    line = next((l for l in lines if "vm_uuid=" + U3 in l), "")
    eq(line, "  identity: vm_display_name=web & \"db\" <3 \u263a\\x07 vm_name_from=openstack vm_uuid=%s "
       "vm_project=demo vm_flavor=m1.small\n" % U3, "text: the identity line, the bell escaped")
    ok(not any(BELL in l for l in lines), "text: no control byte printed")
    # the counters grow while it runs: each VM has reason rows from the second snapshot on
    stop = threading.Event()

    def grow():
        base = 20
        while not stop.wait(0.2):
            for pid in VMS:
                vm_stats(proc, pid, {}, {0: vcpu_vals(base, H0, LIN)})
            base += 10

    t = threading.Thread(target=grow)
    t.start()
    try:
        lines, rc, _ = run(proc, lv, "csv", n=2, extra=["--fields", "vm_pid,vm_display_name,vm_uuid"])
    finally:
        stop.set()
        t.join()
    rows = {r["vm_pid"]: r for r in csv.DictReader(io.StringIO("".join(lines)))}
    eq((rc, rows.get("4300", {}).get("vm_display_name"), rows.get("4300", {}).get("vm_uuid")),
       (0, "web & \"db\" <3 \u263a\\x07", U3), "CSV: --fields vm_display_name,vm_uuid, the bell escaped")
    eq(rows.get("4500", {}).get("vm_uuid"), "", "CSV: an unknown UUID is empty")


def metrics_case(proc, lv):
    lines, rc, _ = run(proc, lv, "prometheus")
    ok(rc == 0 and not any(l.startswith("kvmtop_vm_info") for l in lines),
       "metrics: no kvmtop_vm_info without --metrics-identity")
    lines, rc, _ = run(proc, lv, "prometheus", extra=["--metrics-identity"])
    info = [l for l in lines if l.startswith("kvmtop_vm_info{")]
    eq(len(info), len(VMS), "metrics: --metrics-identity, one kvmtop_vm_info series per VM")
    # the exposition format's escaping: backslash, quote and newline; the other control bytes (the
    # bell) as U+FFFD, as invalid UTF-8 (kvmtop(1), METRICS)
    want = ('kvmtop_vm_info{vm="instance-0000002a",pid="4300",display_name="web & \\"db\\" <3 \u263a\ufffd",'
            'name_from="openstack",uuid="%s",project="demo",flavor="m1.small"} 1\n' % U3)
    ok(want in info, "metrics: its labels, the name escaped", [l for l in info if "4300" in l])


def change_case(proc, lv):
    """Between two snapshots: dom2's file renamed in anew (read again), and instance-0000002a's
    changed in place with its own and the dir's times put back (not read again)."""
    path = os.path.join(lv, "instance-0000002a.xml")

    def between(i):
        if i != 1:
            return
        st, dst = os.stat(path), os.stat(lv)
        with open(path, "r+") as f:
            text = f.read()
            f.seek(0)
            f.write(text.replace("demo", "DEMO"))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.utime(lv, ns=(dst.st_atime_ns, dst.st_mtime_ns))
        time.sleep(0.05)
        put_xml(lv, "dom2.xml", status_xml(4200, "dom2-renamed", U2, ("Shop front", "retail", "m1.large")))

    lines, rc, _ = run(proc, lv, "json", n=2, between=between)
    if rc or len(lines) < 2:
        ok(False, "change: two snapshots", rc)
        return
    a, b = by_pid(json.loads(lines[0])), by_pid(json.loads(lines[1]))
    eq((a[4200]["display_name"], b[4200]["display_name"], b[4200]["flavor"]),
       ("dom2", "Shop front", "m1.large"), "a status file libvirt rewrote (renamed in): read again")
    # the file under its old name is gone: 'dom2.xml' was rewritten with another domain name, same pid
    eq((a[4300]["project"], b[4300]["project"]), ("demo", "demo"),
       "a file changed with its times put back: not read again (read at discovery and on change only)")


def screen_case(proc, lv):
    """The screen: / finds the OpenStack VM, m opens its context pane, which starts with who it is."""
    if not shutil.which("tmux"):
        skip("screen: the context pane's identity rows", "tmux is not installed (apt-get install tmux)")
        return
    sock = os.path.join(tempfile.mkdtemp(dir="/tmp", prefix="kvmtop-ident-tmux-"), "s")

    def tmux(*a):
        return subprocess.run(["tmux", "-S", sock] + list(a), capture_output=True, timeout=20)

    def wait(text, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            lines = tmux("capture-pane", "-p", "-t", "k").stdout.decode("utf-8", "replace").splitlines()
            if any(text in l for l in lines):
                return lines
            time.sleep(0.2)
        return lines

    cmd = "XDG_CONFIG_HOME=%s %s --source stats --proc %s --libvirt-run %s -d 1; sleep 30" % (
        os.path.dirname(sock), kvmtop(), proc, lv)
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "k", "-x", "160", "-y", "40", cmd)
    try:
        wait("instance-0000002a")
        tmux("send-keys", "-t", "k", "/")
        time.sleep(0.3)
        tmux("send-keys", "-t", "k", "-l", "instance-0000002a")
        tmux("send-keys", "-t", "k", "Enter")
        time.sleep(0.5)
        tmux("send-keys", "-t", "k", "m")
        lines = wait("OpenStack flavor")
        rows = {l.split()[0] + (" " + l.split()[1] if l.startswith("OpenStack") else ""): l
                for l in lines if l.strip()}
        ok("openstack" in rows.get("name", "") and rows.get("name", "").endswith('web & "db" <3 \u263a\\x07') and
           rows.get("uuid", "").endswith(U3) and rows.get("OpenStack project", "").endswith("demo") and
           rows.get("OpenStack flavor", "").endswith("m1.small"),
           "screen: m's context pane starts with its name (from openstack, the bell escaped), UUID, project, "
           "flavor", "\n".join(lines))
    finally:
        tmux("kill-server")
        shutil.rmtree(os.path.dirname(sock), ignore_errors=True)


def main():
    procs = {}
    try:
        for pid, (argv, parent) in VMS.items():
            procs[pid] = stand_in(argv)
            if parent:
                procs[pid + 50] = stand_in(parent)
        time.sleep(0.3)
        root, proc, lv = tree(procs)
        try:
            json_case(proc, lv)
            filter_case(proc, lv)
            text_csv_case(proc, lv)
            metrics_case(proc, lv)
            screen_case(proc, lv)
            change_case(proc, lv)
            shutil.rmtree(lv)
            lines, rc, err = run(proc, lv, "json")
            ok(rc == 0 and by_pid(json.loads(lines[0]))[4200]["name_from"] == "qemu",
               "no libvirt run dir: the VMM's names, no error", err[-300:])
        finally:
            shutil.rmtree(root, ignore_errors=True)
    finally:
        for p in procs.values():
            p.kill()
            p.wait()
    done()


if __name__ == "__main__":
    main()
