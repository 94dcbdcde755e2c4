# SPDX-License-Identifier: GPL-2.0
"""KVM binary statistics files, byte for byte as the kernel lays them out
(Documentation/virt/kvm/api.rst, KVM_GET_STATS_FD: struct kvm_stats_header,
the id, struct kvm_stats_desc with its name padded to name_size, the u64
data), written here with Python's struct, not with kvmtop's parser: the
fixtures of tests/stats.py and the seeds of make fuzz FUZZ_TARGET=kstat.

    python3 kstat_fixture.py DIR     writes seeds into DIR
"""
import os
import platform
import struct
import sys

# linux/kvm.h: KVM_STATS_TYPE_* (bits 0-3), KVM_STATS_UNIT_* (4-7), KVM_STATS_BASE_* (8-11)
CUM, INST, PEAK, LIN, LOG = 0, 1, 2, 3, 4
U_NONE, U_BYTES, U_SECONDS, U_CYCLES, U_BOOL = 0x00, 0x10, 0x20, 0x30, 0x40
B_POW2 = 0x100
NAME_SIZE = 48          # KVM_STATS_NAME_SIZE
SYS_IOCTL = {"x86_64": 16, "aarch64": 29, "ppc64le": 54, "s390x": 54}.get(platform.machine(), 16)
KVM_RUN = 0xae80

# (name, flags, exponent, size, bucket_size): an x86 vCPU of Linux 6.x, and
# a linear histogram (no kernel has one yet) and a kind from the future
VCPU = [("halt_successful_poll", CUM, 0, 1, 0), ("halt_attempted_poll", CUM, 0, 1, 0),
        ("halt_wakeup", CUM, 0, 1, 0), ("halt_wait_ns", CUM | U_SECONDS, -9, 1, 0),
        ("halt_wait_hist", LOG | U_SECONDS, -9, 32, 0), ("blocking", INST | U_BOOL, 0, 1, 0),
        ("future_kind", 7, 0, 3, 0),
        ("pf_fixed", CUM, 0, 1, 0), ("exits", CUM, 0, 1, 0), ("io_exits", CUM, 0, 1, 0),
        ("mmio_exits", CUM, 0, 1, 0), ("halt_exits", CUM, 0, 1, 0), ("irq_exits", CUM, 0, 1, 0),
        ("guest_mode", INST | U_BOOL, 0, 1, 0), ("exit_lat_us", CUM | U_SECONDS, -6, 1, 0),
        ("exit_lat_lin", LIN | U_SECONDS, -6, 4, 1000)]
VM = [("remote_tlb_flush", CUM, 0, 1, 0), ("pages_4k", INST, 0, 1, 0),
      ("max_mmu_rmap_size", PEAK, 0, 1, 0), ("mmu_cache_bytes", INST | U_BYTES | B_POW2, 10, 1, 0)]


def stats_bytes(id_, descs, values, name_size=NAME_SIZE, cut=None, patch=None):
    """A stats file: header, id, descriptors, data (values: name -> int or
    list).  The data block follows the descriptors, each value at its own
    offset, in descriptor order.  patch(bytearray, layout) may break it."""
    hdr_len = 24
    id_off = hdr_len
    desc_off = id_off + name_size
    desc_len = 16 + name_size
    data_off = desc_off + len(descs) * desc_len
    out = bytearray()
    offsets = {}
    off = 0
    for name, flags, exp, size, bsize in descs:
        offsets[name] = off
        off += 8 * size
    out += struct.pack("=IIIIII", 0, name_size, len(descs), id_off, desc_off, data_off)
    out += id_.encode().ljust(name_size, b"\0")
    for name, flags, exp, size, bsize in descs:
        out += struct.pack("=IhHII", flags, exp, size, offsets[name], bsize)
        out += name.encode().ljust(name_size, b"\0")
    data = bytearray(off)
    for name, flags, exp, size, bsize in descs:
        v = values.get(name, 0)
        v = v if isinstance(v, list) else [v]
        for i, x in enumerate(v[:size]):
            struct.pack_into("=Q", data, offsets[name] + 8 * i, x)
    out += data
    if patch:
        patch(out, {"id": id_off, "desc": desc_off, "data": data_off, "desc_len": desc_len})
    return bytes(out[:cut] if cut is not None else out)


# --- a /proc-shaped tree for --source stats --proc DIR (tests/stats.py, tests/metrics.py) ---

def put(path, data, mode="wb"):
    """A new file appears whole (renamed into place); one kvmtop may hold
    open is written over in place, as a stats fd reads the kernel's
    counters as they are now."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path) and mode == "wb":
        fd = os.open(path, os.O_WRONLY)
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
        os.close(fd)
        return
    tmp = path + ".tmp"
    with open(tmp, mode) as f:
        f.write(data)
    os.rename(tmp, path)


HELD = 40      # with held=True, the VM's statistics fd is fd 40 and vCPU N's is 41+N


def proc_vm(root, pid, name, vcpus, held=False):
    """Process pid holding a VM (fd 10) named name (str, or bytes that need not be UTF-8),
    and vcpus: {index: (tid, comm, in_kvm_run)}, fd 11+index; with held, also the statistics fds
    the process holds open itself, as a VMM that shows them does (fds HELD, HELD+1+index)."""
    d = os.path.join(root, str(pid))
    put(os.path.join(d, "status"), "Name:\tqemu-system-x86\nTgid:\t%d\nPid:\t%d\n" % (pid, pid), "w")
    put(os.path.join(d, "comm"), "qemu-system-x86\n", "w")
    raw = name if isinstance(name, bytes) else name.encode()
    put(os.path.join(d, "cmdline"), b"qemu-system-x86_64\0-name\0guest=%s,debug-threads=on\0" % raw)
    os.makedirs(os.path.join(d, "fd"), exist_ok=True)
    for fd, target in [(0, "/dev/null"), (3, "anon_inode:[eventfd]"), (10, "anon_inode:kvm-vm")] + \
            [(11 + i, "anon_inode:kvm-vcpu:%d" % i) for i in vcpus] + \
            ([(HELD, "anon_inode:kvm-vm-stats")] + [(HELD + 1 + i, "anon_inode:kvm-vcpu-stats:%d" % i)
                                                     for i in vcpus] if held else []):
        link = os.path.join(d, "fd", str(fd))
        if not os.path.lexists(link):
            os.symlink(target, link)
    for i, (tid, comm, in_run) in vcpus.items():
        for t in (os.path.join(d, "task", str(tid)), os.path.join(root, str(tid))):
            put(os.path.join(t, "comm"), comm + "\n", "w")
            put(os.path.join(t, "status"), "Name:\t%s\nTgid:\t%d\nPid:\t%d\n" % (comm, pid, tid), "w")
            put(os.path.join(t, "syscall"), ("%d 0x%x 0x%x 0x0 0x0 0x0 0x0 0x7ffd1000 0x7f001000\n"
                                              % (SYS_IOCTL, 11 + i, KVM_RUN)) if in_run else "running\n", "w")
    return d


def vm_stats(root, pid, vm_values, vcpu_values, held=False):
    """What the statistics fds of VM pid read: those KVM_GET_STATS_FD gives for its KVM fds (as
    DIR/PID/kvm-stats/FD of the KVM fd), or with held, those it holds open (of those fds)."""
    base, vbase = (HELD, HELD + 1) if held else (10, 11)
    for fd, id_, descs, values in [(base, "kvm-%d" % pid, VM, vm_values)] + \
            [(vbase + i, "kvm-%d/vcpu-%d" % (pid, i), VCPU, v) for i, v in vcpu_values.items()]:
        put(os.path.join(root, str(pid), "kvm-stats", str(fd)), stats_bytes(id_, descs, values))


def vcpu_vals(base, halt_hist, lin, blocking=0):
    v = {"exits": base * 10, "io_exits": base * 4, "mmio_exits": base * 2, "halt_exits": base,
         "irq_exits": base * 3, "pf_fixed": base * 5, "halt_wait_ns": base * 1000,
         "halt_successful_poll": base // 2, "halt_wait_hist": halt_hist, "exit_lat_lin": lin,
         "blocking": blocking, "guest_mode": 1, "future_kind": [7, 7, 7]}
    return v



def seeds(d):
    """A vCPU's and a VM's file, and one of a bigger name_size."""
    vals = {"exits": 10, "io_exits": 4, "halt_wait_hist": [1] * 32, "exit_lat_lin": [1, 2, 3, 4]}
    for name, data in (("vcpu", stats_bytes("kvm-1/vcpu-0", VCPU, vals)),
                       ("vm", stats_bytes("kvm-1", VM, {"pages_4k": 9})),
                       ("wide", stats_bytes("kvm-1/vcpu-1", VCPU[:5], vals, name_size=64))):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    seeds(sys.argv[1])
