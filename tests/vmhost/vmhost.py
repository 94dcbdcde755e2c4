# SPDX-License-Identifier: GPL-2.0
"""An emulated KVM host for the live tests, on a machine without /dev/kvm.

QEMU's TCG emulates an AMD CPU with SVM (-cpu max).  Debian's own kernel
(linux-image-amd64, unpacked with dpkg -x, never installed) boots there
from a small busybox initramfs, loads kvm-amd, and so has /dev/kvm and
the kvm trace events.  This machine's root file system is shared into it
read-only over 9p, under an overlay whose upper layer is a tmpfs: the
built tree, python3, QEMU and trace-cmd run inside unchanged, at the same
paths, and what they write there is thrown away with the host.  A second,
writable 9p share brings the command's output, status and each boot step
back; it is mounted inside at its own path, so a path written into it
means the same thing on both sides.

Use:  python3 tests/vmhost/vmhost.py [--timeout S] [--share DIR] [--numa N] -- CMD [ARG ...]
runs CMD as root inside, in this directory and with this environment,
prints its output as it comes and exits with its status.  With --numa N
(run()'s numa_nodes) the host has N NUMA nodes, each with an equal share
of its 2 CPUs and 4 GiB (a memory-backend-ram and a -numa node each).  When the host
cannot be had, it prints one line "vmhost: ..." naming the step that
failed and exits 125; that is a failure, never a pass.

Everything it needs comes from Debian packages: qemu-system-x86,
busybox-static, cpio, kmod and the kernel (fetched with apt-get download
into KVMTOP_VMHOST_CACHE, /var/cache/kvmtop/vmhost by default).

The tests use it where this machine's KVM cannot run the live cases
(tap.kvm_here(): no /dev/kvm, or PVM's kvm_pvm, which runs guests without
kvm_exit and kvm_entry).  Settings, from the environment, for finding out
what is stable: KVMTOP_VMHOST_ACCEL (QEMU's -accel, default
tcg,thread=single), KVMTOP_VMHOST_NPT (kvm-amd's npt, default 0),
KVMTOP_VMHOST_APPEND (kernel arguments instead of "quiet loglevel=3", say
loglevel=7 to see the host kernel's messages in console.log),
KVMTOP_VMHOST_KERNEL (another kernel image).  With --share DIR the share
is kept: DIR/console.log is the emulated host's console.

What the emulated host does not show: speed (every guest instruction is
emulated: ~100-150 exits/s, latencies in milliseconds), Intel VMX (TCG
has no VMX) or a real vhost-net (no network device is given to it).
"""
import fcntl
import gzip
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("KVMTOP_VMHOST_CACHE", "/var/cache/kvmtop/vmhost")
FAILED = 125

# the modules the init loads, in this order; their dependencies first
MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay", "kvm-amd"]
# kvm-amd with nested paging (npt=1) panicked the emulated host's kernel
# once in a demo guest's KVM_RUN ("corrupted stack end detected inside
# scheduler"); shadow paging has not: it is the default here.
NPT = os.environ.get("KVMTOP_VMHOST_NPT", "0")
# QEMU 7.2's multi-threaded TCG (one host thread per emulated CPU) froze
# the emulated host for good, both CPUs silent (no lockup report, no
# console), while 50 demo guests were made and ended one after another:
# in 5 of 9 runs of 50 to 250 guests.  One thread for all emulated CPUs
# has not frozen in 750 guests, and the live tests, mostly waiting on
# guests, take about as long: it is the default.
ACCEL = os.environ.get("KVMTOP_VMHOST_ACCEL", "tcg,thread=single")

# Boot steps the init writes into the share, in order.
STEPS = ["kernel", "modules", "root", "kvm", "command", "done"]


class VmhostError(Exception):
    pass


def log(msg):
    sys.stderr.write("vmhost: %s\n" % msg)
    sys.stderr.flush()


def why_not():
    """Why this machine cannot make an emulated KVM host, or None."""
    if os.geteuid() != 0:
        return "needs root (apt-get download, 9p of /)"
    for tool, pkg in (("qemu-system-x86_64", "qemu-system-x86"), ("busybox", "busybox-static"),
                      ("cpio", "cpio"), ("depmod", "kmod")):
        if not shutil.which(tool) and not os.path.exists("/bin/" + tool):
            return "%s is not installed (apt-get install %s)" % (tool, pkg)
    return None


def _run(args, step, **kw):
    p = subprocess.run(args, capture_output=True, **kw)
    if p.returncode != 0:
        err = (p.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise VmhostError("%s: %s failed: %s" % (step, args[0], err[-1] if err else "status %d" % p.returncode))
    return p.stdout.decode("utf-8", "replace")


def kernel():
    """The unpacked Debian kernel: (version, its root).  Fetched once into CACHE."""
    out = _run(["apt-cache", "depends", "linux-image-amd64"], "kernel package")
    pkgs = [l.split()[-1] for l in out.splitlines() if l.strip().startswith("Depends: linux-image-")]
    if not pkgs:
        raise VmhostError("kernel package: apt-cache names no linux-image for linux-image-amd64 "
                          "(run apt-get update)")
    pkg = pkgs[0]
    ver = pkg[len("linux-image-"):]
    root = os.path.join(CACHE, ver)
    vmlinuz = os.path.join(root, "boot", "vmlinuz-" + ver)
    if os.path.exists(os.path.join(root, ".unpacked")):
        return ver, root
    os.makedirs(CACHE, exist_ok=True)
    dl = tempfile.mkdtemp(prefix="dl-", dir=CACHE)
    try:
        os.chmod(dl, 0o777)     # apt-get download drops to the _apt user
        _run(["apt-get", "download", "-q", pkg], "kernel package", cwd=dl)
        debs = [f for f in os.listdir(dl) if f.endswith(".deb")]
        if not debs:
            raise VmhostError("kernel package: apt-get download %s gave no .deb" % pkg)
        tmp = root + ".part"
        shutil.rmtree(tmp, ignore_errors=True)
        _run(["dpkg", "-x", os.path.join(dl, debs[0]), tmp], "kernel package")
        _run(["depmod", "-b", tmp, ver], "kernel modules")
        shutil.rmtree(root, ignore_errors=True)
        os.rename(tmp, root)
    finally:
        shutil.rmtree(dl, ignore_errors=True)
    if not os.path.exists(vmlinuz):
        raise VmhostError("kernel package: %s has no boot/vmlinuz-%s" % (pkg, ver))
    open(os.path.join(root, ".unpacked"), "w").close()
    return ver, root


def module_order(root, ver):
    """The .ko paths of MODULES and their dependencies, each after what it needs."""
    mdir = os.path.join(root, "lib", "modules", ver)
    deps = {}
    for line in open(os.path.join(mdir, "modules.dep")):
        name, _, rest = line.partition(":")
        deps[name] = rest.split()
    by_name = {os.path.basename(k)[:-3].replace("_", "-"): k for k in deps}
    order = []

    def add(path):
        if path in order:
            return
        for d in reversed(deps.get(path, [])):
            add(d)
        order.append(path)

    for m in MODULES:
        path = by_name.get(m.replace("_", "-"))
        if not path:
            raise VmhostError("kernel modules: %s is not in %s" % (m, mdir))
        add(path)
    return [os.path.join(mdir, p) for p in order]


INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /out
npt=0
for a in $(cat /proc/cmdline); do case "$a" in vmhost.npt=*) npt=${a#vmhost.npt=} ;; esac; done
step() { echo "$1" >> /out/steps 2>/dev/null; echo "vmhost-step: $1" > /dev/console; }
fail() { echo "vmhost-fail: $*" > /dev/console; echo "$*" > /out/failed 2>/dev/null; poweroff -f; }
for m in $(cat /modules); do
	case "$m" in
	*/kvm-amd.ko) insmod "$m" npt=$npt || fail "modules: insmod $m npt=$npt" ;;
	*) insmod "$m" || fail "modules: insmod $m" ;;
	esac
	case "$m" in */9p.ko) mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /out || fail "root: the out share"; step kernel; step modules ;; esac
done
mkdir -p /lower /upper /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose hostroot /lower || fail "root: 9p of the host's /"
mount -t tmpfs -o size=75% tmpfs /upper || fail "root: tmpfs"
mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || fail "root: overlay"
for d in proc sys dev tmp run; do mkdir -p /newroot/$d; done
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
mount -t tmpfs tmpfs /newroot/run
# /tmp stays the host's, under the overlay: a build tree there (.ci/asan's) is seen inside
mount -t tracefs nodev /newroot/sys/kernel/tracing 2>/dev/null
mount -t debugfs nodev /newroot/sys/kernel/debug 2>/dev/null
OUTPATH=$(cat /outpath)
mkdir -p "/newroot$OUTPATH"
mount --bind /out "/newroot$OUTPATH" || fail "root: the out share at $OUTPATH"
hostname vmhost
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
step root
[ -c /newroot/dev/kvm ] || fail "kvm: /dev/kvm is missing after insmod kvm-amd (does the CPU have svm?)"
step kvm
step command
chroot /newroot /bin/sh "$OUTPATH/run.sh" > /out/stdout 2> /out/stderr < /dev/null
echo $? > /out/rc
sync
step done
poweroff -f
"""


def initramfs(root, ver):
    """A gzip'd cpio: busybox, the init, the modules.  Rebuilt when this file changes."""
    out = os.path.join(root, "initramfs.gz")
    me = os.path.abspath(__file__)
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(me):
        return out
    mods = module_order(root, ver)
    d = tempfile.mkdtemp(prefix="initramfs-")
    try:
        for sub in ("bin", "proc", "sys", "dev", "mods"):
            os.makedirs(os.path.join(d, sub))
        shutil.copy("/bin/busybox", os.path.join(d, "bin", "busybox"))
        names = []
        for m in mods:
            dst = os.path.join("mods", os.path.basename(m))
            shutil.copy(m, os.path.join(d, dst))
            names.append("/" + dst)
        with open(os.path.join(d, "modules"), "w") as f:
            f.write("\n".join(names) + "\n")
        with open(os.path.join(d, "init"), "w") as f:
            f.write(INIT)
        os.chmod(os.path.join(d, "init"), 0o755)
        # the out share's path is written per run: /outpath is a link into the share's own file
        os.symlink("/out/outpath", os.path.join(d, "outpath"))
        files = _run(["find", "."], "initramfs", cwd=d)
        cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], input=files.encode(), cwd=d,
                              capture_output=True)
        if cpio.returncode != 0:
            raise VmhostError("initramfs: cpio failed: %s" % cpio.stderr.decode().strip())
        with gzip.open(out + ".part", "wb", compresslevel=1) as f:
            f.write(cpio.stdout)
        os.rename(out + ".part", out)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return out


def _tail(path, n=3):
    try:
        lines = [l.strip() for l in open(path, errors="replace").read().splitlines() if l.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def _panic(console):
    try:
        for line in open(console, errors="replace"):
            if "Kernel panic" in line or "BUG:" in line or "Oops" in line:
                return line.strip()
    except OSError:
        pass
    return None


def numa_args(nodes, cpus, mem_mb):
    """QEMU's arguments for an emulated host of nodes NUMA nodes, each with its share of the
    cpus and of mem_mb (a memory-backend-ram and a -numa node each); [] for one node (QEMU's
    default: no NUMA topology).  Raises VmhostError where they cannot be shared evenly."""
    if nodes <= 1:
        return []
    if cpus % nodes or mem_mb % nodes:
        raise VmhostError("setup: %d CPUs and %d MiB cannot be shared evenly by %d NUMA nodes"
                          % (cpus, mem_mb, nodes))
    each, args = cpus // nodes, []
    for n in range(nodes):
        args += ["-object", "memory-backend-ram,id=ram%d,size=%dM" % (n, mem_mb // nodes),
                 "-numa", "node,nodeid=%d,cpus=%d-%d,memdev=ram%d" % (n, n * each, (n + 1) * each - 1, n)]
    return args


def run(cmd, timeout=1800, share=None, cwd=None, env=None, out=sys.stdout, cpus=2, mem_mb=4096, numa_nodes=1):
    """Run cmd (a list) as root inside an emulated KVM host.  Its stdout is copied to out as it
    comes; returns (status, stderr text).  numa_nodes > 1: the host has that many NUMA nodes,
    each with an equal share of the CPUs and of the memory.  Raises VmhostError naming the step
    when the host cannot be had or dies before the command ends."""
    why = why_not()
    if why:
        raise VmhostError("setup: " + why)
    numa = numa_args(numa_nodes, cpus, mem_mb)
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # make -j2 check boots two at once
        ver, root = kernel()
        initrd = initramfs(root, ver)
    image = os.environ.get("KVMTOP_VMHOST_KERNEL") or os.path.join(root, "boot", "vmlinuz-" + ver)
    own = share is None
    share = os.path.abspath(share or tempfile.mkdtemp(prefix="kvmtop-vmhost-"))
    os.makedirs(share, exist_ok=True)
    for f in ("steps", "stdout", "stderr", "rc", "failed", "console.log"):
        try:
            os.unlink(os.path.join(share, f))
        except FileNotFoundError:
            pass
    with open(os.path.join(share, "outpath"), "w") as f:
        f.write(share)
    env = dict(os.environ if env is None else env)
    env["KVMTOP_VMHOST_INSIDE"] = "1"
    with open(os.path.join(share, "run.sh"), "w") as f:
        for k, v in sorted(env.items()):
            if k.replace("_", "a").isalnum() and not k[0].isdigit():
                f.write("export %s=%s\n" % (k, shlex.quote(v)))
        f.write("cd %s || exit 126\n" % shlex.quote(os.path.abspath(cwd or os.getcwd())))
        f.write("exec %s\n" % " ".join(shlex.quote(a) for a in cmd))
    console = os.path.join(share, "console.log")
    # no_timer_check: on a loaded machine the emulated timer can miss the
    # kernel's boot-time IO-APIC check, which then panics ("IO-APIC + timer
    # doesn't work"); tsc=reliable: KVM's clock-update work (the emulated
    # TSC is marked unstable otherwise) stays out of the live steal tests
    qemu = ["qemu-system-x86_64", "-accel", ACCEL, "-machine", "q35", "-cpu", "max",
            "-smp", str(cpus), "-m", str(mem_mb)] + numa + ["-nodefaults", "-display", "none", "-no-reboot",
            "-kernel", image, "-initrd", initrd,
            "-append", "console=ttyS0 " + os.environ.get("KVMTOP_VMHOST_APPEND", "quiet loglevel=3") + " panic=-1 mitigations=off no_timer_check tsc=reliable rdinit=/init vmhost.npt=" + NPT,
            "-serial", "file:" + console,
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", "local,path=%s,mount_tag=out,security_model=none,multidevs=remap" % share]
    t0 = time.monotonic()
    q = subprocess.Popen(qemu, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    pos = 0
    outpath = os.path.join(share, "stdout")
    timed_out = False
    try:
        while True:
            done = q.poll() is not None
            try:
                with open(outpath, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
                if chunk:
                    pos += len(chunk)
                    out.write(chunk.decode("utf-8", "replace"))
                    out.flush()
            except FileNotFoundError:
                pass
            if done:
                break
            if time.monotonic() - t0 > timeout:
                timed_out = True
                q.kill()
                q.wait()
                break
            time.sleep(0.2)
    finally:
        if q.poll() is None:
            q.kill()
            q.wait()
    qerr = q.stderr.read().decode("utf-8", "replace").strip()
    steps = _tail(os.path.join(share, "steps"), 100).split(" | ")
    last = steps[-1] if steps and steps[-1] else "kernel"
    err = ""
    try:
        err = open(os.path.join(share, "stderr"), errors="replace").read()
    except OSError:
        pass
    rc_path = os.path.join(share, "rc")
    try:
        status = int(open(rc_path).read().strip())
    except (OSError, ValueError):
        status = None
    try:
        if status is not None:
            return status, err
        failed = _tail(os.path.join(share, "failed"), 1)
        panic = _panic(console)
        took = time.monotonic() - t0
        if failed:
            raise VmhostError(failed)
        if timed_out:
            where = "after booting, in the command" if last in ("command",) else "booting, at step '%s'" % last
            said = " | ".join(l for l in err.splitlines()[-5:] if l.strip())
            raise VmhostError("%s: timed out after %.0f s %s (console: %s)%s"
                              % (last, took, where, panic or _tail(console),
                                 "; the command's last stderr: " + said if said else ""))
        if panic:
            raise VmhostError("%s: the emulated host's kernel died: %s" % (last, panic))
        raise VmhostError("%s: QEMU ended (status %s) before the command did: %s"
                          % (last, q.returncode, qerr.splitlines()[-1] if qerr else _tail(console)))
    finally:
        if own:
            shutil.rmtree(share, ignore_errors=True)


def main(argv):
    timeout, share, nodes = 1800, None, 1
    while argv and argv[0] != "--":
        if argv[0] == "--timeout" and len(argv) > 1:
            timeout, argv = float(argv[1]), argv[2:]
        elif argv[0] == "--numa" and len(argv) > 1 and argv[1].isdigit():
            nodes, argv = int(argv[1]), argv[2:]
        elif argv[0] == "--share" and len(argv) > 1:
            share, argv = argv[1], argv[2:]
        else:
            log("usage: vmhost.py [--timeout S] [--share DIR] [--numa N] -- CMD [ARG ...]")
            return 2
    if len(argv) < 2:
        log("usage: vmhost.py [--timeout S] [--share DIR] [--numa N] -- CMD [ARG ...]")
        return 2
    try:
        status, err = run(argv[1:], timeout=timeout, share=share, numa_nodes=nodes)
    except VmhostError as e:
        log("the emulated KVM host failed: %s" % e)
        return FAILED
    sys.stderr.write(err)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
