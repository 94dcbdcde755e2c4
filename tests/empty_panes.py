# SPDX-License-Identifier: GPL-2.0
"""Empty panes and messages say what is true, driven in a real terminal (tmux): -g and -p that
match no VM of a recording name the filter and the VMs it leaves out (never "no KVM events",
never "kvmtop keeps watching", which is only true live); a -p naming a vCPU thread says whose
it is; a --vcpu that leaves out each vCPU of a VM names itself; the recent exits of an object pushed out of a small --ring say so and name --ring; the
VMs pane's UUID column is off until F2 or the settings file picks it.

The oracle is the generator: its list of the VMs (kvmgen -P: names, pids, vCPU tids, UUIDs)
and, for the ring, the script of exits this test hands it (-S), whose order says which exits
the last N are.
"""
import json
import os
import shutil
import tempfile

from tap import ok, eq, skip, done, kvmgen
import tui_keys as k

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
WIDE = 220


def vms_recording():
    """3 VMs of 2 vCPUs with who they are (-P): the recording's arguments and the VMs."""
    dat = os.path.join(TMP, "empty-panes-m3.dat")
    ps = dat + ".ps"
    kvmgen(dat, "x86-6.5", ["-m", "3", "-v", "2", "-n", "20", "-P", ps])
    return ["-r", dat, "--threads", ps], json.load(open(ps + ".json"))


def screen_of(args, pred, width=k.W):
    """The screen of kvmtop args once pred holds (a severe finding's landing left with Esc)."""
    k.start(args, width=width)
    lines = k.wait_for(lambda ls: pred(ls) or k.has("SEVERITY")(ls), 20)
    if k.has("SEVERITY")(lines) and not pred(lines):
        k.keys("Escape")
        lines = k.wait_for(pred, 10)
    return lines


def text(lines):
    return "\n".join(lines)


def filter_case(args, vms):
    """-g and -p that match none of the recording's VMs: the pane and the message say so."""
    n = len(vms)
    never = ("no KVM events", "keeps watching", "nothing in this interval")
    for flt, msg in ((["-g", "nomatch"], "-g nomatch: the recording has no VM of that name"),
                     (["-p", "999999"], "-p 999999: the recording has no VM of that process")):
        shown = " ".join(flt)
        lines = screen_of(args + flt, lambda ls: k.has("no VM matches")(ls) and k.has(msg)(ls))
        pane = "no VM matches %s: %d other VMs are left out" % (shown, n)
        ok(k.has(pane)(lines) and k.has(msg)(lines) and not any(k.has(s)(lines) for s in never),
           "%s on a recording of %d VMs: the pane says '%s', the message '%s'" % (shown, n, pane, msg),
           text(lines[:6]))
        k.quit_case(shown)
    # the control: a name the recording has shows that VM alone
    vm = vms[0]
    lines = screen_of(args + ["-g", vm["name"]], k.has("VMs (1)"))
    rows = k.rows(lines)
    ok(len(rows) == 1 and str(vm["pid"]) in rows[0].split() and not k.has("no VM matches")(lines),
       "-g %s: that VM's row alone, no empty text" % vm["name"], text(lines[:6]))
    k.quit_case("-g NAME")
    # a vCPU thread's tid: the message names its VM's process
    tid = vm["tids"][0] if "tids" in vm else vm["vcpus"][0]
    want = "-p %d: a thread of VM process %d" % (tid, vm["pid"])
    lines = screen_of(args + ["-p", str(tid)], k.has(want))
    ok(k.has(want)(lines) and k.has("no VM matches -p %d: %d other VMs are left out" % (tid, n))(lines),
       "-p TID of a vCPU thread: '%s', and the pane says no VM matches" % want, text(lines[:6]))
    k.quit_case("-p TID")
    # --vcpu: the generator's VMs have vCPUs 0 and 1; 9 leaves out every one, 1 keeps one
    for ids, want_rows in (("9", 0), ("1", 1)):
        screen_of(args + ["--vcpu", ids], k.has("VMs (%d)" % n))
        k.keys("Enter")
        lines = k.wait_for(k.has("vCPUs of VM"))
        empty = k.has("no vCPU of this VM matches --vcpu %s" % ids)(lines)
        eq((len(k.rows(lines)) if not empty else 0, empty), (want_rows, not want_rows),
           "--vcpu %s on VMs of vCPUs 0 and 1: %s" % (ids, "the vCPUs pane says no vCPU matches --vcpu 9"
                                                      if not want_rows else "one vCPU row, no empty text"))
        k.quit_case("--vcpu %s" % ids)


def ring_script():
    """One vCPU: IO exits on port 0x70 first, then HLT exits: the script, the IO count, the
    number of exits after the port's last one."""
    lines = ["comm 1001 CPU 0/KVM"]
    t, io, hlt = 1000, 5, 8
    for i in range(io):
        lines += ["%d 0 1001 exit exit_reason=30 isa=1 vcpu_id=0 info1=0x700000" % t,
                  "%d 0 1001 pio rw=1 port=0x70 size=1 count=1" % (t + 100),
                  "%d 0 1001 entry vcpu_id=0" % (t + 500)]
        t += 1000
    for i in range(hlt):
        lines += ["%d 0 1001 exit exit_reason=12 isa=1 vcpu_id=0" % t, "%d 0 1001 entry vcpu_id=0" % (t + 500)]
        t += 1000
    return lines, io, hlt


def open_recent(dat, ring):
    """kvmtop -r dat --ring ring, down to the recent exits of port 0x70's object: the screen."""
    lines = screen_of(["-r", dat, "--ring", str(ring)], k.has("VMs (1)"))
    k.keys("Enter")
    k.wait_for(k.has("vCPUs of VM"))
    k.keys("Enter")
    k.wait_for(k.has("Exit reasons of vCPU"))
    k.keys("/")
    k.keys("-l", "IO_INSTRUCTION")
    k.keys("Enter")
    k.wait_for(lambda ls: k.bar(ls).startswith("F1Help") and "IO_INSTRUCTION" in (k.selected()[0] or ""))
    k.keys("Enter")
    lines = k.wait_for(k.has("Objects of IO_INSTRUCTION"))
    k.keys("Enter")
    return k.wait_for(k.has("Recent exits of vCPU"))


def ring_case():
    script, io, after = ring_script()
    path = os.path.join(TMP, "empty-panes-ring.txt")
    dat = os.path.join(TMP, "empty-panes-ring.dat")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    kvmgen(dat, "x86-objects", ["-S", path])
    # the script's order: the last `after` exits are HLT, so a ring of fewer keeps none of the port's
    small = after // 2
    lines = open_recent(dat, small)
    want = "none of the last %d exits kept touched this object" % small
    ok(k.has(want)(lines) and k.has("--ring")(lines) and not k.has("no KVM events")(lines),
       "--ring %d (the port's %d exits are older than the last %d): the recent exits say '%s' and name --ring"
       % (small, io, after, want), text(lines))
    k.quit_case("--ring %d" % small)
    # the control: a ring that keeps every exit lists the port's own
    lines = open_recent(dat, 64)
    got = [r for r in k.rows(lines) if "IO_INSTRUCTION" in r]
    ok(len(got) == io and len(k.rows(lines)) == io and not k.has("none of the last")(lines),
       "--ring 64: the recent exits of port 0x70 are its %d exits" % io, text(lines))
    k.quit_case("--ring 64")


def titles(lines):
    return lines[3].split() if len(lines) > 3 else []


def uuid_case(args, vms):
    """UUID off by default on a terminal wide enough for it; on from the settings file and F2."""
    lines = screen_of(args, lambda ls: k.has("VMs (%d)" % len(vms))(ls) and k.bar(ls).startswith("F1Help"),
                      width=WIDE)
    uuids = [v["uuid"] for v in vms if v.get("uuid")]
    ok(uuids and "UUID" not in titles(lines) and not any(u in text(lines) for u in uuids),
       "the VMs pane at %d columns: no UUID column by default (kvmtop(1): off until picked)" % WIDE,
       lines[3] if len(lines) > 3 else "")
    # F2: the setup's uuid row turned on with Enter
    k.keys("F2")
    k.wait_for(k.has("Setup of the VMs pane"))
    k.keys("/")
    k.keys("-l", "vm_uuid")
    k.keys("Enter")
    k.keys("Enter")
    k.keys("Escape")
    lines = k.wait_for(lambda ls: "UUID" in titles(ls))
    ok("UUID" in titles(lines) and all(u in text(lines) for u in uuids),
       "F2, Enter on vm_uuid: the UUID column and each VM's UUID (the generator's)", text(lines[:8]))
    k.quit_case("UUID by F2")
    # the settings file
    rc = tempfile.NamedTemporaryFile("w", dir=TMP, prefix="empty-panes-", suffix=".rc", delete=False)
    rc.write("VMs.columns = vm_name,vm_pid,vm_uuid\n")
    rc.close()
    lines = screen_of(["--config", rc.name] + args, lambda ls: "UUID" in titles(ls), width=WIDE)
    ok(titles(lines)[:3] == ["VM", "PID", "UUID"] and all(u in text(lines) for u in uuids),
       "the settings file's VMs.columns with vm_uuid: the UUID column and each VM's UUID", text(lines[:8]))
    k.quit_case("UUID by the settings file")
    os.unlink(rc.name)


def main():
    if not shutil.which("tmux"):
        skip("empty panes and messages on the screen", "tmux is not installed (apt-get install tmux)")
        done()
    args, vms = vms_recording()
    try:
        filter_case(args, vms)
        ring_case()
        uuid_case(args, vms)
    finally:
        if k.SOCK[0]:
            k.tmux("kill-server")
        shutil.rmtree(k.SOCK_DIR, ignore_errors=True)
    done()


if __name__ == "__main__":
    main()
