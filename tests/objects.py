# SPDX-License-Identifier: GPL-2.0
"""What each exit touched: generated recordings with known objects.

The test writes the events itself (tests/kvmgen -S, the x86-objects layout:
kvm_exit, kvm_entry and the companion events kvm_pio, kvm_mmio, kvm_msr,
kvm_apic, kvm_hypercall, kvm_hv_hypercall, kvm_cr, kvm_cpuid at the
kernel's offsets), so what kvmtop must report per (vCPU, reason, object)
is the test's own count: each exit's object is the last companion event
of its thread before its entry, else the exit's own (an IO_INSTRUCTION's
info1, an exception's intr_info); its count and latency go there.
Absurd values (a port past 0xffff, a page past 52 bits, an MSR no table
names) are shown as numbers named "unknown"; a vCPU's 65th object and on
go to the reason's "other" row.

arm64 (the arm64-objects layout: kvm_exit {ret, esr_ec, vcpu_pc}, kvm_entry and
the companions kvm_sys_access, kvm_hvc_arm64, kvm_wfx_arm64, kvm_mmio): a trap's
object is its system register (S<op0>_<op1>_C<n>_C<m>_<op2>, named from
sysreg.h's encodings), its HVC's SMCCC function id (w0), WFI or WFE, its MMIO
page (named from QEMU virt's map, never x86's); absurd fields are numbers too.
"""
import csv
import io
import json
import os
import random
import re
import shutil

from tap import ok, eq, done, run, kvmgen

TMP = os.environ.get("KVMTOP_TMP", "/tmp")
LAYOUT = "x86-objects"
VMX = 1

# reason name -> VMX code
CODES = {"EXCEPTION_NMI": 0, "CPUID": 10, "HLT": 12, "VMCALL": 18, "CR_ACCESS": 28,
         "IO_INSTRUCTION": 30, "MSR_READ": 31, "MSR_WRITE": 32, "EPT_MISCONFIG": 49}


def hexs(v):
    return "0x%x" % v


def scenario(rnd):
    """One exit: (reason, exit fields, [(event, fields)], its object (kind, text, dir, size) or None)."""
    pick = rnd.randrange(11)
    if pick == 0:       # port I/O, the exit's own info only
        port, out, size = rnd.choice([(0x70, True, 1), (0x71, False, 1), (0x3f8, True, 1), (0xcfc, False, 4)])
        q = port << 16 | (0 if out else 8) | (size - 1)
        return "IO_INSTRUCTION", {"info1": q}, [], ("port", hexs(port), "out" if out else "in", size)
    if pick == 1:       # port I/O with kvm_pio: the companion says the same, or (a test) another port
        port, out, size = rnd.choice([(0x70, True, 1), (0x510, False, 2), (0xb008, False, 4)])
        own = (0x80 << 16) | 8
        return ("IO_INSTRUCTION", {"info1": own},
                [("pio", {"rw": 1 if out else 0, "port": port, "size": size, "count": 1})],
                ("port", hexs(port), "out" if out else "in", size))
    if pick == 2:       # an x2APIC write: kvm_apic, then kvm_msr; the last one wins
        msr = rnd.choice([0x830, 0x6e0, 0x80b])
        return ("MSR_WRITE", {}, [("apic", {"rw": 1, "reg": (msr - 0x800) << 4}),
                                  ("msr", {"write": 1, "ecx": msr, "data": 7})],
                ("msr", hexs(msr), "write", 0))
    if pick == 3:
        msr = rnd.choice([0x10, 0xc0000080, 0x4b564d01])
        return "MSR_READ", {}, [("msr", {"write": 0, "ecx": msr})], ("msr", hexs(msr), "read", 0)
    if pick == 4:       # MMIO to the LAPIC: kvm_mmio, then kvm_apic names the register
        reg = rnd.choice([0xb0, 0x300, 0x380])
        return ("EPT_MISCONFIG", {}, [("mmio", {"type": 2, "len": 4, "gpa": 0xfee00000 + reg}),
                                      ("apic", {"rw": 1, "reg": reg})],
                ("apic", hexs(reg), "write", 0))
    if pick == 5:       # MMIO elsewhere: the page, read or write
        gpa, typ = rnd.choice([(0xfed000f0, 1), (0xfec00010, 2), (0xfebf1008, 0)])
        return ("EPT_MISCONFIG", {}, [("mmio", {"type": typ, "len": 4, "gpa": gpa})],
                ("mmio", hexs(gpa & ~0xfff), "write" if typ == 2 else "read", 4))
    if pick == 6:
        nr = rnd.choice([5, 10, 11])
        return "VMCALL", {}, [("hypercall", {"nr": nr})], ("hypercall", hexs(nr), "", 0)
    if pick == 7:
        code = rnd.choice([0x8, 0x13])
        return "VMCALL", {}, [("hv_hypercall", {"code": code})], ("hv_hypercall", hexs(code), "", 0)
    if pick == 8:
        leaf = rnd.choice([0, 1, 0x40000000])
        return "CPUID", {}, [("cpuid", {"function": leaf})], ("cpuid", hexs(leaf), "", 0)
    if pick == 9:
        cr, rw = rnd.choice([(0, 1), (4, 1), (3, 0)])
        return ("CR_ACCESS", {}, [("cr", {"rw": rw, "cr": cr})],
                ("cr", hexs(cr), "write" if rw else "read", 0))
    vec = rnd.choice([14, 6])
    return "EXCEPTION_NMI", {"intr_info": 0x80000b00 | vec}, [], ("vector", str(vec), "", 0)


def fields(d):
    return " ".join("%s=%d" % kv for kv in d.items())


def write_script(path, threads, exits, rnd, extra=None):
    """threads: [(tid, vcpu)]; each does `exits` exits.  -> {(tid, reason, kind, obj, dir, size): [lats]}."""
    truth = {}
    lines = ["comm %d CPU %d/KVM" % (tid, vc) for tid, vc in threads]
    for tid, vc in threads:
        t = 1000000 + 7 * tid
        for i in range(exits):
            reason, own, comps, obj = extra(i) if extra else scenario(rnd)
            lat = rnd.randrange(300, 90000)
            ex = dict(exit_reason=CODES[reason], isa=VMX, vcpu_id=vc, guest_rip=0xffffffff81000000 + i)
            ex.update(own)
            lines.append("%d %d %d exit %s" % (t, vc, tid, fields(ex)))
            for k, (ev, f) in enumerate(comps):
                lines.append("%d %d %d %s %s" % (t + 10 + 10 * k, vc, tid, ev, fields(f)))
            lines.append("%d %d %d entry vcpu_id=%d" % (t + lat, vc, tid, vc))
            if obj:
                truth.setdefault((tid,) + (reason,) + obj, []).append(lat)
            t += lat + rnd.randrange(500, 5000)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return truth


def record(name, script_fn):
    script = os.path.join(TMP, name + ".txt")
    dat = os.path.join(TMP, name + ".dat")
    truth = script_fn(script)
    kvmgen(dat, LAYOUT, ["-S", script])
    return dat, truth


def json_objects(scope, tid=None):
    """{(tid, reason, kind, object, dir, size): (count, samples, sum, min, max, name)} of a JSON scope."""
    out = {}
    for r in scope["reasons"]:
        reason = r["reason"] + (" " + r["flags"] if r.get("flags") else "")
        for o in r["objects"]:
            lat = o["latency"]
            # no direction is null in JSON, an empty cell in CSV and "" in the truth
            out[(tid, reason, o["kind"], o["object"], o["dir"] or "", o["size_bytes"])] = (
                o["count"], lat["samples"], int(lat["sum"]) if lat["samples"] else None, lat["min"] if lat["samples"] else None,
                lat["max"] if lat["samples"] else None, o["name"])
    return out


def want_of(truth, tid=None):
    """The truth as json_objects() gives it, per thread or (tid None) summed."""
    out = {}
    for (t, reason, kind, obj, d, size), lats in truth.items():
        if tid is not None and t != tid:
            continue
        k = (tid, reason, kind, obj, d, size)
        out.setdefault(k, []).extend(lats)
    return {k: (len(v), len(v), sum(v), min(v), max(v)) for k, v in out.items()}


def mixed_case():
    rnd = random.Random(38)
    threads = [(1001, 0), (1002, 1)]
    dat, truth = record("objects-mixed", lambda p: write_script(p, threads, 400, rnd))
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    eq((rc, err), (0, ""), "a recording with every kind of object replays")
    j = json.loads(out)
    vm = j["vms"][0]
    for tid, vc in threads:
        v = [c for c in vm["vcpus"] if c["tid"] == tid][0]
        got = {k: g[:5] for k, g in json_objects(v, tid).items()}
        eq(got, want_of(truth, tid),
           "vCPU %d: each object's exits, their latency's count, sum, min and max, as the events were written" % vc)
    got = {k: g[:5] for k, g in json_objects(j["host"]).items()}
    eq(got, want_of(truth), "the host: each object summed over the vCPUs")
    got = {k: g[:5] for k, g in json_objects(vm).items()}
    eq(got, want_of(truth), "the VM: the same")
    names = {(k[2], k[3]): g[5] for k, g in json_objects(j["host"]).items()}
    want = {("port", "0x70"): "CMOS index", ("port", "0x3f8"): "COM1", ("port", "0xcfc"): "PCI config data",
            ("port", "0x510"): "fw_cfg", ("port", "0xb008"): "ACPI PM timer (PIIX4)",
            ("msr", "0x830"): "x2APIC ICR", ("msr", "0x6e0"): "IA32_TSC_DEADLINE", ("msr", "0x10"): "IA32_TSC",
            ("msr", "0xc0000080"): "EFER", ("msr", "0x4b564d01"): "KVM_SYSTEM_TIME_NEW",
            ("apic", "0xb0"): "EOI", ("apic", "0x300"): "ICR", ("apic", "0x380"): "TMICT",
            ("mmio", "0xfed00000"): "HPET", ("mmio", "0xfec00000"): "IOAPIC", ("mmio", "0xfebf1000"): "unknown",
            ("hypercall", "0x5"): "KVM_HC_KICK_CPU", ("hypercall", "0xa"): "KVM_HC_SEND_IPI",
            ("hv_hypercall", "0x8"): "HVCALL_NOTIFY_LONG_SPIN_WAIT", ("cpuid", "0x40000000"): "hypervisor id",
            ("cr", "0x4"): "CR4", ("cr", "0x3"): "CR3", ("vector", "14"): "#PF", ("vector", "6"): "#UD"}
    eq({k: names.get(k) for k in want}, want, "objects named from the arch's tables")
    # the objects' shares of each reason's exits add up to 100 %
    for r in j["host"]["reasons"]:
        if r["objects"]:
            s = sum(o["pct"] for o in r["objects"])
            ok(abs(s - 100.0) < 0.1 * len(r["objects"]), "%s: its objects' shares add up to 100 %%" % r["reason"], s)
            break
    rc, out, err = run(["-b", "-r", dat, "-o", "csv", "--fields",
                        "vcpu_tid,reason,obj_kind,obj_object,obj_dir,obj_size_bytes,obj_count,obj_latency_samples,"
                        "obj_latency_sum,obj_latency_min,obj_latency_max"])
    rows = list(csv.DictReader(io.StringIO(out)))
    got = {(int(r["vcpu_tid"]), r["reason"], r["obj_kind"], r["obj_object"], r["obj_dir"], int(r["obj_size_bytes"])):
           (int(r["obj_count"]), int(r["obj_latency_samples"]), int(r["obj_latency_sum"]), int(r["obj_latency_min"]),
            int(r["obj_latency_max"]))
           for r in rows}
    want = {}
    for tid, _ in threads:
        want.update({(tid,) + k[1:]: v for k, v in want_of(truth, tid).items()})
    eq(got, want, "CSV with object fields: a row per (vCPU, reason, object), the same figures")
    # in intervals: an exit is counted in the one of its entry; together they hold every exit once
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "-d", "0.005"])
    snaps = [json.loads(l) for l in out.splitlines()]
    per = {}
    for snap in snaps:
        for k, g in json_objects(snap["host"]).items():
            c = per.setdefault(k, [0, 0, 0])
            c[0] += g[0]
            c[1] += g[1]
            c[2] += g[2]
    eq((len(snaps) > 2, {k: tuple(v) for k, v in per.items()}),
       (True, {k: v[:3] for k, v in want_of(truth).items()}),
       "intervals (-d): each object's exits and latency sums add up to the recording's")
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "--no-objects"])
    j2 = json.loads(out)
    ok(rc == 0 and not any(r["objects"] for r in j2["host"]["reasons"]) and
       [r["count"] for r in j2["host"]["reasons"]] == [r["count"] for r in j["host"]["reasons"]],
       "--no-objects: no objects, the reasons' figures the same")
    # the metrics, opt-in: per VM, reason and object, the exits since the start
    rc, out, err = run(["-b", "-r", dat, "-o", "prometheus"])
    ok(rc == 0 and "kvmtop_object_exits" not in out, "metrics: no object series unless asked")
    rc, out, err = run(["-b", "-r", dat, "-o", "prometheus", "--metrics-objects"])
    got = {}
    for line in out.splitlines():
        m = re.match(r'^kvmtop_object_exits_total\{.*reason="([^"]*)".*kind="([^"]*)",object="([^"]*)",'
                     r'name="([^"]*)",dir="([^"]*)"\} (\d+)$', line)
        if m:
            got[(m.group(1), m.group(2), m.group(3), m.group(5))] = (int(m.group(6)), m.group(4))
    want = {}
    for (tid, reason, kind, obj, d, size), lats in truth.items():
        want[(reason, kind, obj, d)] = want.get((reason, kind, obj, d), 0) + len(lats)
    eq({k: v[0] for k, v in got.items()}, want,
       "metrics (--metrics-objects): kvmtop_object_exits_total per reason and object, its exits")
    eq({(k[1], k[2]): v[1] for k, v in got.items()}, {(k[1], k[2]): names.get((k[1], k[2])) for k in got},
       "metrics: each object's name label, as the tables name it")
    rc, out, err = run(["-b", "-r", dat])
    ok(rc == 0 and "CMOS index" in out and "x2APIC ICR" in out and "#PF" in out,
       "text: each reason's objects under it, named", out[:2000])


def absurd_case():
    """Values no table names, past their ranges: numbers, 'unknown', no crash."""
    def script(path):
        seq = [("IO_INSTRUCTION", {"info1": 8}, [("pio", {"rw": 0, "port": 0x12345, "size": 9})],
                ("port", "0x12345", "in", 9)),
               ("EPT_MISCONFIG", {}, [("mmio", {"type": 7, "len": 300, "gpa": (1 << 60) | 0xabc})],
                ("mmio", hexs(1 << 60), "read", 0)),
               # write=3: a write, as the kernel's print fmt reads it (write ? "write" : "read")
               ("MSR_READ", {}, [("msr", {"write": 3, "ecx": 0xdeadbeef})], ("msr", "0xdeadbeef", "write", 0)),
               ("VMCALL", {}, [("hypercall", {"nr": (1 << 64) - 1})], ("hypercall", hexs((1 << 64) - 1), "", 0)),
               ("EXCEPTION_NMI", {"intr_info": 0xff}, [], None)]
        return write_script(path, [(1001, 0)], len(seq), random.Random(1), extra=lambda i: seq[i])
    dat, truth = record("objects-absurd", script)
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    eq((rc, err), (0, ""), "absurd object fields: read without a word, exit 0")
    j = json.loads(out)
    got = json_objects(j["host"])
    eq({k: g[:5] for k, g in got.items()}, want_of(truth), "each counted on its number (an invalid intr_info: none)")
    eq(sorted(set(g[5] for g in got.values())), ["unknown"], "none of them named")


def unmatched_case():
    """An exit followed by an exit, and one at the end: counted on their objects without a latency."""
    lines = ["comm 1001 CPU 0/KVM",
             "1000 0 1001 exit exit_reason=30 isa=1 vcpu_id=0 info1=0x700000",
             "1100 0 1001 pio rw=1 port=0x70 size=1 count=1",
             "2000 0 1001 exit exit_reason=10 isa=1 vcpu_id=0",
             "2100 0 1001 cpuid function=1",
             "2600 0 1001 entry vcpu_id=0",
             "3000 0 1001 msr write=1 ecx=0x6e0",
             "4000 0 1001 exit exit_reason=31 isa=1 vcpu_id=0",
             "4100 0 1001 msr write=0 ecx=0x10"]
    script = os.path.join(TMP, "objects-unmatched.txt")
    dat = os.path.join(TMP, "objects-unmatched.dat")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    kvmgen(dat, LAYOUT, ["-S", script])
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    got = {(k[1], k[3]): g[:3] for k, g in json_objects(json.loads(out)["host"]).items()}
    eq(got, {("IO_INSTRUCTION", "0x70"): (1, 0, None), ("CPUID", "0x1"): (1, 1, 600),
             ("MSR_READ", "0x10"): (1, 0, None)},
       "an exit with no entry after it is counted on its object, without a latency (its sum null, not 0); "
       "a companion between exits names none")
    lats = {(r["reason"], o["object"]): o["latency"] for r in json.loads(out)["host"]["reasons"] for o in r["objects"]}
    eq({k: sorted(set(v for f, v in l.items() if f != "samples")) for k, l in lats.items() if not l["samples"]},
       {("IO_INSTRUCTION", "0x70"): [None], ("MSR_READ", "0x10"): [None]},
       "an object without an exit -> entry pair: every latency figure null (min, mean, p50 .. max, sum)")


def npf_case():
    """SVM nested page faults: with PFERR_RSVD (bit 3) in exit_info_1 an MMIO access, its page from
    exit_info_2 and bit 1 a write; without it guest RAM, no object; a kvm_mmio after it wins."""
    rows = [  # (error code, gpa, companion kvm_mmio or None, the object or None)
        (0x0b, 0xfebf1004, None, ("mmio", "0xfebf1000", "write", 0)),
        (0x09, 0xfed00f0f, None, ("mmio", "0xfed00000", "read", 0)),
        (0x100000009, 0x1fffff000, None, ("mmio", "0x1fffff000", "read", 0)),
        (0x06, 0x12345678, None, None),
        (0x0f, 0xfebf1008, {"type": 1, "len": 2, "gpa": 0xfec00020}, ("mmio", "0xfec00000", "read", 2))]
    lines = ["comm 1001 CPU 0/KVM"]
    want = {}
    for i, (err, gpa, mmio, obj) in enumerate(rows * 3):
        t = 10000 * (i + 1)
        lines.append("%d 0 1001 exit exit_reason=1024 isa=2 vcpu_id=0 info1=%d info2=%d" % (t, err, gpa))
        if mmio:
            lines.append("%d 0 1001 mmio %s" % (t + 10, fields(mmio)))
        lines.append("%d 0 1001 entry vcpu_id=0" % (t + 500))
        if obj:
            want[obj] = want.get(obj, 0) + 1
    script = os.path.join(TMP, "objects-npf.txt")
    dat = os.path.join(TMP, "objects-npf.dat")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    kvmgen(dat, LAYOUT, ["-S", script])
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    got = {k[2:]: g[0] for k, g in json_objects(json.loads(out)["host"]).items()}
    eq(got, want, "SVM npf: an MMIO fault's page and direction from its exit (reserved bit), a RAM fault none")


def overflow_case():
    """More objects than a vCPU keeps: the least counted make room, their exits go to 'other objects'."""
    ports = list(range(0x1000, 0x1000 + 70))
    hot = 0x2000

    def one(i):
        # 70 ports twice, then a busy one 50 times when the table is full, each time after a new port
        p = ports[i % len(ports)] if i < 140 else hot if (i - 140) % 2 else 0x3000 + (i - 140) // 2
        return "IO_INSTRUCTION", {"info1": p << 16}, [], ("port", hexs(p), "out", 1)

    def script(path):
        return write_script(path, [(1001, 0)], 240, random.Random(2), extra=one)
    dat, truth = record("objects-many", script)
    want = {k[3]: v for k, v in want_of(truth).items()}
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    objs = json.loads(out)["vms"][0]["vcpus"][0]["reasons"][0]["objects"]
    kinds = [o["kind"] for o in objs]
    eq((kinds.count("port"), kinds.count("other")), (64, 1), "64 objects kept, then one row of the others")
    rest = [o for o in objs if o["kind"] == "other"][0]
    eq((rest["name"], rest["object"], rest["value"]), ("other objects", None, None),
       "the others' row: no object, no value (null)")
    eq(sum(o["count"] for o in objs), 240, "every exit counted once, on a kept object or on the others")
    eq(sum(int(o["latency"]["sum"] or 0) for o in objs), sum(sum(v) for v in truth.values()), "and its latency")
    got = {o["object"]: o["count"] for o in objs if o["kind"] == "port"}
    eq(got.get(hexs(hot)), 50, "a busy object that comes when the table is full, among new ones, is kept, "
       "every exit of it")
    ok(all(n <= want[p][0] for p, n in got.items()), "a kept object's count is at most its exits", got)
    rc, out, err = run(["-b", "-r", dat, "-o", "json", "--objects", "300"])
    objs = json.loads(out)["vms"][0]["vcpus"][0]["reasons"][0]["objects"]
    got = {(o["kind"], o["object"]): o["count"] for o in objs}
    eq(got, {("port", p): v[0] for p, v in want.items()}, "--objects 300: all 121 kept, each its exits")


# powerpc (kvm_hv): a hypercall exit (trap SYSCALL 0xc00) and its kvm_hcall_enter {req}; a ceded exit
# (ceded=1, trap SYSCALL or 0 where KVM handled the cede before the event) is H_CEDE's without one
PPC_HCALLS = {0x6c: "H_IPI", 0x64: "H_EOI", 0x74: "H_XIRR", 0x68: "H_CPPR", 0xe4: "H_CONFER", 0xe8: "H_PROD",
              0x31c: "H_SET_MODE", 0x20: "H_PUT_TCE", 0x08: "H_ENTER", 0x04: "H_REMOVE", 0x300: "H_RANDOM",
              0xf000: "H_RTAS", 0xe0: "H_CEDE"}
# s390: an instruction intercept (icptcode 4), its kvm_s390_intercept_instruction {instruction: the six
# bytes from bit 63 down}, and for a DIAG its kvm_s390_handle_diag {code}, the last one naming the object
S390_INSNS = {0xb220000000000000: (0xb220, "SERVC"), 0xb27d000000000000: (0xb27d, "STSI"),
              0xb234000000000000: (0xb234, "STSCH"), 0xb9ab000000000000: (0xb9ab, "ESSA"),
              0xae12000000000000: (0xae, "SIGP"), 0xb600000000000000: (0xb6, "STCTL"),
              0xe501000000000000: (0xe501, "TPROT"), 0xaa01000000000000: (0xaa01, "RION"),
              # 0xeb's and 0xe3's second byte is the instruction's last (bits 23-16 of the field)
              0xeb100000002f0000: (0xeb2f, "LCTLG"), 0xe310000000490000: (0xe349, "STGSC")}
S390_DIAGS = {0x44: "time slice end (yield)", 0x9c: "time slice end directed (yield to)",
              0x500: "KVM virtio functions (notify)", 0x258: "page-reference services (pfault)",
              0x308: "ipl functions"}


def arch_script(path, arch, threads, exits, one):
    """threads: [(tid, vcpu)], each doing `exits` exits of one(i, rnd) -> (exit fields, [(event, fields)],
    object or None).  -> {(tid, reason, kind, obj, dir, size): [lats]}."""
    rnd = random.Random(arch)
    truth = {}
    lines = ["comm %d CPU %d/KVM" % (tid, vc) for tid, vc in threads]
    for j, (tid, vc) in enumerate(threads):
        # each thread's times odd or even: kvmgen makes equal times distinct, which would move one
        t = 1000000 + j
        for i in range(exits):
            own, comps, obj = one(i, rnd)
            lat = rnd.randrange(300, 90000, 2)
            if arch == "loongarch":
                ex = dict(reason=22, pc=0x9000000000010000 + 4 * i)
                en = dict(pc=0x9000000000010000)
            elif arch == "ppc-hv":
                ex = dict(vcpu_id=vc, pc=0xc000000000010000 + 4 * i, msr=0x8000000000009033)
                en = dict(vcpu_id=vc, pc=0xc000000000010000)
            else:
                ex = dict(id=vc, icptcode=4, pswaddr=0x10000 + 4 * i, pswmask=0x0704000180000000)
                en = dict(id=vc, pswaddr=0x10000)
            ex.update(own)
            lines.append("%d %d %d exit %s" % (t, vc, tid, fields(ex)))
            for k, (ev, f) in enumerate(comps):
                lines.append("%d %d %d %s %s" % (t + 10 + 10 * k, vc, tid, ev, fields(f)))
            lines.append("%d %d %d entry %s" % (t + lat, vc, tid, fields(en)))
            if obj:
                truth.setdefault((tid,) + obj, []).append(lat)
            t += lat + rnd.randrange(500, 5000, 2)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return truth


ARM_EC = {"TRAP/SYS64": 0x18, "TRAP/HVC64": 0x16, "TRAP/WFx": 0x01, "TRAP/DABT_LOW": 0x24}


def sysreg(rnd_or_fields, write):
    op0, op1, crn, crm, op2 = rnd_or_fields
    return ("TRAP/SYS64", [("sys_access", {"vcpu_pc": 0xffff800010001000, "is_write": int(write), "Op0": op0,
                                           "Op1": op1, "CRn": crn, "CRm": crm, "Op2": op2})],
            ("sysreg", "S%d_%d_C%d_C%d_%d" % (op0, op1, crn, crm, op2), "write" if write else "read", 0))


def arm_scenario(rnd):
    """One arm64 trap: (reason, [(event, fields)], its object (kind, text, dir, size))."""
    pick = rnd.randrange(4)
    if pick == 0:
        regs, write = rnd.choice([((3, 3, 14, 3, 1), True), ((3, 0, 12, 11, 5), True), ((3, 3, 14, 0, 2), False),
                                  ((3, 3, 15, 3, 1), False), ((2, 0, 0, 3, 5), True)])
        return sysreg(regs, write)
    if pick == 1:       # w0 is the function id: r0's upper half is not
        r0, fn = rnd.choice([(0xc4000003, 0xc4000003), (0x84000000, 0x84000000), (0x80008000, 0x80008000),
                             (0x86000001, 0x86000001), (0xffffffff84000002, 0x84000002), (0x8600abcd, 0x8600abcd)])
        return "TRAP/HVC64", [("hvc", {"vcpu_pc": 0xffff800010002000, "r0": r0, "imm": 0})], ("hvc", hexs(fn), "", 0)
    if pick == 2:
        wfe = rnd.randrange(2)
        return "TRAP/WFx", [("wfx", {"vcpu_pc": 0xffff800010003000, "is_wfe": wfe})], ("wfx", hexs(wfe), "", 0)
    # a read is two kvm_mmio (type 0, then 1 once done); the page of the last
    gpa, write = rnd.choice([(0x09000000, True), (0x0a000e50, False), (0x12345678, True), (0xfee00300, True),
                             (0x08000100, False)])
    comps = [("mmio", {"type": 2, "len": 4, "gpa": gpa})] if write else \
        [("mmio", {"type": 0, "len": 4, "gpa": gpa}), ("mmio", {"type": 1, "len": 4, "gpa": gpa})]
    return "TRAP/DABT_LOW", comps, ("mmio", hexs(gpa & ~0xfff), "write" if write else "read", 4)


def arm_script(path, threads, exits, rnd, extra=None):
    """As write_script, with arm64's events: kvm_exit {ret 2 (TRAP), esr_ec}, kvm_entry {vcpu_pc}."""
    truth = {}
    lines = ["comm %d CPU %d/KVM" % (tid, vc) for tid, vc in threads]
    for tid, vc in threads:
        t = 1000000 + 7 * tid
        for i in range(exits):
            reason, comps, obj = extra(i) if extra else arm_scenario(rnd)
            lat = rnd.randrange(300, 90000)
            lines.append("%d %d %d exit ret=2 esr_ec=%d vcpu_pc=%d" % (t, vc, tid, ARM_EC[reason],
                                                                      0xffff800010000000 + i))
            for k, (ev, f) in enumerate(comps):
                lines.append("%d %d %d %s %s" % (t + 10 + 10 * k, vc, tid, ev, fields(f)))
            lines.append("%d %d %d entry vcpu_pc=%d" % (t + lat, vc, tid, 0xffff800010000004 + i))
            if obj:
                truth.setdefault((tid, reason) + obj, []).append(lat)
            t += lat + rnd.randrange(500, 5000)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return truth


def ppc_one(i, rnd):
    pick = rnd.randrange(6)
    if pick == 0:       # H_CEDE handled before kvm_guest_exit: the exit leaves the vCPU ceded, no companion
        trap = rnd.choice([0, 0xc00])
        return ({"trap": trap, "ceded": 1}, [],
                ("RETURN_TO_HOST CEDED" if trap == 0 else "SYSCALL CEDED", "hcall", "0xe0", "", 0))
    if pick == 1:       # an hcall no table names, and an absurd one: numbers, no crash
        req = rnd.choice([0x1234, (1 << 64) - 1])
        return {"trap": 0xc00, "ceded": 0}, [("hcall", {"req": req})], ("SYSCALL", "hcall", hexs(req), "", 0)
    if pick == 2:       # not a hypercall: no object
        return {"trap": rnd.choice([0x980, 0x500]), "ceded": 0}, [], None
    req = rnd.choice(sorted(PPC_HCALLS))
    return ({"trap": 0xc00, "ceded": 0}, [("hcall", {"req": req, "gpr4": i})],
            ("SYSCALL", "hcall", hexs(req), "", 0))


def s390_one(i, rnd):
    pick = rnd.randrange(5)
    if pick == 0:       # a DIAGNOSE: the instruction, then its code; the code names the object
        code = rnd.choice(sorted(S390_DIAGS) + [0x9999])
        return ({}, [("insn", {"instruction": 0x8300 << 48 | code << 16}), ("diag", {"code": code})],
                ("Instruction", "diagnose", hexs(code), "", 0))
    if pick == 1:       # an opcode no table names, a first byte of its own, all ones
        ins = rnd.choice([0xb2990000 << 32, 0x01ff << 48, (1 << 64) - 1])
        op = {0xb2990000 << 32: 0xb299, 0x01ff << 48: 0x01ff, (1 << 64) - 1: 0xff}[ins]
        return {}, [("insn", {"instruction": ins})], ("Instruction", "instruction", hexs(op), "", 0)
    if pick == 2:       # not an instruction intercept: no object
        return {"icptcode": rnd.choice([0x14, 0x1c])}, [], None
    ins = rnd.choice(sorted(S390_INSNS))
    return ({}, [("insn", {"instruction": ins})],
            ("Instruction", "instruction", hexs(S390_INSNS[ins][0]), "", 0))


# LoongArch: a GSPR exit (exception code 22), kvm_exit_gspr {inst_word} and, for IDLE and CACOP,
# kvm_exit_idle / kvm_exit_cache {reason 64 / 65} after it: the instruction's class is the object
# (kvm_trap_handle_gspr()'s decoding of the word; 2R opcode bits 31-10, rj bits 9-5)
LA_WORDS = {0x00006c85: (1, "CPUCFG"), 0x04010004: (2, "CSRRD"), 0x04010024: (3, "CSRWR"),
            0x040100a4: (4, "CSRXCHG"), 0x06000000 | 0x12345: (5, "CACOP"), 0x06480885: (6, "IOCSRRD"),
            0x06481c85: (7, "IOCSRWR"), 0x06488000: (8, "IDLE")}


def la_one(i, rnd):
    pick = rnd.randrange(7)
    if pick == 0:       # the guest's IDLE: the gspr word, then kvm_exit_idle; a long latency (its sleep)
        return ({}, [("gspr", {"inst_word": 0x06488000}), ("la_idle", {"reason": 64, "pc": 4 * i})],
                ("GSPR", "gspr", "0x8", "", 0))
    if pick == 1:       # CACOP: kvm_exit_cache after the word
        return ({}, [("gspr", {"inst_word": 0x06000000 | i}), ("la_cache", {"reason": 65, "pc": 4 * i})],
                ("GSPR", "gspr", "0x5", "", 0))
    if pick == 3:       # an MMIO store and load (a TLBS and a TLBL exit): kvm_mmio's page, no name
        if rnd.randrange(2):
            return {"reason": 2}, [("mmio", {"type": 2, "len": 4, "gpa": 0x1fe001e0})], \
                ("TLBS", "mmio", "0x1fe00000", "write", 4)
        return ({"reason": 1}, [("mmio", {"type": 0, "len": 8, "gpa": 0x100d0008}),
                                ("mmio", {"type": 1, "len": 8, "gpa": 0x100d0008})], ("TLBL", "mmio", "0x100d0000", "read", 8))
    if pick == 2:       # a word of no class, and an interrupt's exit: a number, and no object
        if rnd.randrange(2):
            return {"reason": 0}, [], None
        return {}, [("gspr", {"inst_word": 0xffffffff})], ("GSPR", "gspr", hexs(1 << 32 | 0xffffffff), "", 0)
    w = rnd.choice(sorted(LA_WORDS))
    return {}, [("gspr", {"inst_word": w})], ("GSPR", "gspr", hexs(LA_WORDS[w][0]), "", 0)


def arch_case(arch, one, names, layout=None, label=None):
    """Each hcall / instruction / diagnose code's exits and latency, as written; named from the tables."""
    threads = [(1001, 0), (1002, 1)]
    label = label or arch
    script = os.path.join(TMP, "objects-%s.txt" % label)
    dat = script[:-4] + ".dat"
    truth = arch_script(script, arch, threads, 300, one)
    kvmgen(dat, layout or arch, ["-S", script])
    arch = label
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    eq((rc, err), (0, ""), "%s: a recording with its companion events replays" % arch)
    if rc:
        return
    j = json.loads(out)
    for tid, vc in threads:
        v = [c for c in j["vms"][0]["vcpus"] if c["tid"] == tid][0]
        got = {k: g[:5] for k, g in json_objects(v, tid).items()}
        eq(got, want_of(truth, tid), "%s vCPU %d: each object's exits, their latency's count, sum, min and max" % (arch, vc))
    got = json_objects(j["host"])
    eq({k: g[:5] for k, g in got.items()}, want_of(truth), "%s: the host, each object summed" % arch)
    named = {(k[2], k[3]): g[5] for k, g in got.items()}
    eq({k: named.get(k) for k in names}, names, "%s: objects named from the arch's table; unknown numbers shown" % arch)


def arm_record(name, script_fn):
    script = os.path.join(TMP, name + ".txt")
    dat = os.path.join(TMP, name + ".dat")
    truth = script_fn(script)
    kvmgen(dat, "arm64-objects", ["-S", script])
    return dat, truth


def arm64_case():
    rnd = random.Random(64)
    threads = [(1001, 0), (1002, 1)]
    dat, truth = arm_record("objects-arm64", lambda p: arm_script(p, threads, 300, rnd))
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    eq((rc, err), (0, ""), "arm64: a recording with each kind of arm64 object replays")
    j = json.loads(out)
    for tid, vc in threads:
        v = [c for c in j["vms"][0]["vcpus"] if c["tid"] == tid][0]
        eq({k: g[:5] for k, g in json_objects(v, tid).items()}, want_of(truth, tid),
           "arm64 vCPU %d: each system register, function id, WFI/WFE and MMIO page: its exits and latencies, "
           "as the events were written" % vc)
    got = json_objects(j["host"])
    eq({k: g[:5] for k, g in got.items()}, want_of(truth), "arm64: the host, summed over the vCPUs")
    names = {(k[2], k[3]): g[5] for k, g in got.items()}
    want = {("sysreg", "S3_3_C14_C3_1"): "CNTV_CTL_EL0", ("sysreg", "S3_0_C12_C11_5"): "ICC_SGI1R_EL1",
            ("sysreg", "S3_3_C14_C0_2"): "CNTVCT_EL0", ("sysreg", "S2_0_C0_C3_5"): "DBGBCR3_EL1",
            ("sysreg", "S3_3_C15_C3_1"): "unknown",
            ("hvc", "0xc4000003"): "PSCI_CPU_ON64", ("hvc", "0x84000000"): "PSCI_VERSION",
            ("hvc", "0x80008000"): "SMCCC_ARCH_WORKAROUND_1", ("hvc", "0x86000001"): "KVM_PTP",
            ("hvc", "0x84000002"): "PSCI_CPU_OFF", ("hvc", "0x8600abcd"): "unknown",
            ("wfx", "0x0"): "WFI", ("wfx", "0x1"): "WFE",
            ("mmio", "0x9000000"): "UART PL011 (virt)", ("mmio", "0xa000000"): "virtio-mmio (virt)",
            ("mmio", "0x12345000"): "PCIe MMIO (virt)", ("mmio", "0x8000000"): "GIC distributor (virt)",
            ("mmio", "0xfee00000"): "unknown"}
    eq({k: names.get(k) for k in want}, want,
       "arm64: objects named from arch/arm64_objects.c (an x86 page's name never on an arm64 IPA)")
    rc, out, err = run(["-b", "-r", dat, "-o", "csv", "--fields",
                        "vcpu_tid,reason,obj_kind,obj_object,obj_name,obj_dir,obj_count"])
    rows = list(csv.DictReader(io.StringIO(out)))
    got = {(int(r["vcpu_tid"]), r["reason"], r["obj_kind"], r["obj_object"], r["obj_dir"]): int(r["obj_count"])
           for r in rows}
    want = {}
    for (tid, reason, kind, obj, d, size), lats in truth.items():
        want[(tid, reason, kind, obj, d)] = want.get((tid, reason, kind, obj, d), 0) + len(lats)
    eq(got, want, "arm64 CSV: a row per (vCPU, reason, object), its exits")
    rc, out, err = run(["-b", "-r", dat])
    ok(rc == 0 and "CNTV_CTL_EL0" in out and "PSCI_CPU_ON64" in out and "S3_3_C15_C3_1" in out and "WFE" in out,
       "arm64 text: each trap's objects under it, named, an unknown register as S3_3_C15_C3_1", out[:3000])


def arm64_generated_case():
    """kvmgen -O on arm64: each TRAP of SYS64, HVC64, WFx and DABT_LOW with its companion; the generator's truth
    per reason is what the objects of that reason add up to, each named; other reasons have none."""
    dat = os.path.join(TMP, "objects-arm64-gen.dat")
    truth = kvmgen(dat, "arm64-objects", ["-m", "1", "-v", "2", "-n", "3000", "-O", "-s", "5"],
                   expect=os.path.join(TMP, "objects-arm64-gen.json"))
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(out)
    got, want, names = {}, {}, set()
    for v in j["vms"][0]["vcpus"]:
        for r in v["reasons"]:
            got[(v["tid"], r["code"])] = sum(o["count"] for o in r["objects"])
            names |= {o["name"] for o in r["objects"]}
    for t in truth["threads"]:
        for r in t["reasons"]:
            want[(t["tid"], r["code"])] = r["count"] if r["code"] in (0x218, 0x216, 0x201, 0x224) else 0
    eq((rc, got), (0, want), "kvmgen -O on arm64: a trap's objects add up to the generator's count of its reason, "
       "the other reasons have none")
    eq(sorted(names), sorted(["CNTV_CTL_EL0", "ICC_SGI1R_EL1", "CNTVCT_EL0", "PSCI_CPU_ON64", "SMCCC_ARCH_FEATURES",
                              "KVM_PTP", "WFI", "WFE", "UART PL011 (virt)", "virtio-mmio (virt)",
                              "GIC distributor (virt)"]), "kvmgen -O on arm64: every object named")


def arm64_absurd_case():
    """arm64 fields no kernel writes: numbers, 'unknown', no crash."""
    seq = [sysreg((255, 255, 255, 255, 255), True),
           ("TRAP/HVC64", [("hvc", {"r0": (1 << 64) - 1})], ("hvc", "0xffffffff", "", 0)),
           ("TRAP/WFx", [("wfx", {"is_wfe": 7})], ("wfx", "0x7", "", 0)),
           ("TRAP/DABT_LOW", [("mmio", {"type": 9, "len": 300, "gpa": (1 << 64) - 1})],
            ("mmio", hexs(((1 << 64) - 1) & ~0xfff), "read", 0)),
           # a sys_access whose is_write is 5: a write, as the kernel's print fmt reads it
           sysreg((0, 0, 0, 0, 0), 5)]
    dat, truth = arm_record("objects-arm64-absurd",
                            lambda p: arm_script(p, [(1001, 0)], len(seq), random.Random(1), extra=lambda i: seq[i]))
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    eq((rc, err), (0, ""), "arm64: absurd object fields read without a word, exit 0")
    got = json_objects(json.loads(out)["host"])
    eq({k: g[:5] for k, g in got.items()}, want_of(truth), "arm64: each counted on its number")
    eq(sorted(set(g[5] for g in got.values())), ["unknown"], "arm64: none of them named")


def main():
    arm64_case()
    arm64_generated_case()
    arm64_absurd_case()
    mixed_case()
    absurd_case()
    unmatched_case()
    npf_case()
    overflow_case()
    names = {("hcall", hexs(n)): v for n, v in PPC_HCALLS.items()}
    names.update({("hcall", "0x1234"): "unknown", ("hcall", hexs((1 << 64) - 1)): "unknown"})
    arch_case("ppc-hv", ppc_one, names)
    names = {("instruction", hexs(o)): m for o, m in S390_INSNS.values()}
    names.update({("diagnose", hexs(c)): m for c, m in S390_DIAGS.items()})
    names.update({("instruction", "0xb299"): "unknown", ("instruction", "0xff"): "unknown",
                  ("instruction", "0x1ff"): "unknown", ("diagnose", "0x9999"): "unknown"})
    arch_case("s390", s390_one, names)
    # the kernels before sie.h's decoder: a char insn[8] after the instruction, insn_to_mnemonic() in the
    # print fmt (no libtraceevent knows it): the same objects from the same field
    old = os.path.join(TMP, "objects-s390-mnemonic")
    shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(os.path.join(os.environ["KVMTOP_FORMATS"], "s390"), old)
    shutil.copy(os.path.join(os.environ["KVMTOP_FORMATS"], "s390-mnemonic", "kvm_s390_intercept_instruction.format"), old)
    arch_case("s390", s390_one, names, layout=old, label="s390 (insn_to_mnemonic's layout)")
    names = {("gspr", hexs(c)): m for c, m in LA_WORDS.values()}
    names[("gspr", hexs(1 << 32 | 0xffffffff))] = "unknown"
    names.update({("mmio", "0x1fe00000"): "unknown", ("mmio", "0x100d0000"): "unknown"})
    arch_case("loongarch", la_one, names)
    done()


main()
