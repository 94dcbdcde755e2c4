// SPDX-License-Identifier: GPL-2.0
/*
 * Identity on /proc fixture trees: which VM a vCPU thread belongs to and
 * what the VM is called, for QEMU (with and without guest=), libvirt,
 * Firecracker, cloud-hypervisor, crosvm, kvmtool and a plain process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/escape.h"
#include "ident/ident.h"

static char root[256];

static void put(const char *rel, const char *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void put_str(const char *rel, const char *data)
{
	put(rel, data, strlen(data));
}

/* A process pid with thread tid: comm, thread name, command line (argv joined by \0). */
static void fixture(int pid, int tid, const char *comm, const char *tcomm, const char *cmd, size_t cmdlen)
{
	char rel[320], buf[256];

	snprintf(rel, sizeof(rel), "%s/%d", root, pid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/%d", root, tid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%d/comm", pid);
	snprintf(buf, sizeof(buf), "%s\n", comm);
	put(rel, buf, strlen(buf));
	snprintf(rel, sizeof(rel), "%d/cmdline", pid);
	put(rel, cmd, cmdlen);
	snprintf(rel, sizeof(rel), "%d/comm", tid);
	snprintf(buf, sizeof(buf), "%s\n", tcomm);
	put(rel, buf, strlen(buf));
	snprintf(rel, sizeof(rel), "%d/status", tid);
	snprintf(buf, sizeof(buf), "Name:\t%s\nUmask:\t0022\nState:\tR (running)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\n",
		 tcomm, pid, tid);
	put(rel, buf, strlen(buf));
}

#define CMD(s) s, sizeof(s)	/* keeps the \0 between arguments */

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/kvmtop-ident-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void expect(int tid, int pid, const char *vm, const char *comm)
{
	struct ident id;
	struct ident_info info;

	ident_init(&id, root);
	assert_int_equal(ident_thread(&id, tid, &info), 0);
	assert_int_equal(info.pid, pid);
	assert_string_equal(info.vm_name, vm);
	assert_string_equal(info.comm, comm);
	assert_true(ident_alive(&id, pid));
}

/* Thread tid's /proc/TID/stat with these flags (PF_KTHREAD is 0x00200000). */
static void stat_flags(int tid, const char *comm, unsigned long flags)
{
	char rel[64], buf[256];

	snprintf(rel, sizeof(rel), "%d/stat", tid);
	/* a name with a space and a ')' as the kernel allows: fields count from the last ')' */
	snprintf(buf, sizeof(buf), "%d (%s) S 2 0 0 0 -1 %lu 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n",
		 tid, comm, flags);
	put(rel, buf, strlen(buf));
}

/*
 * Kernel threads that raise KVM events (kdamond's aging, an irqfd
 * kworker) are host work, never a VM; a vhost-PID kernel thread serves
 * VM PID and is counted there; a VM's own thread is not a kernel one.
 */
static void test_kernel_threads(void **state)
{
	struct ident id;
	struct ident_info info;

	(void)state;
	fixture(9300, 9300, "kdamond.0", "kdamond.0", "", 0);
	stat_flags(9300, "kdamond.0", 0x208040);
	fixture(9301, 9301, "kworker/3:1-events", "kworker/3:1-events", "", 0);
	stat_flags(9301, "kworker/3:1) x", 0x4208060);
	fixture(9400, 9401, "qemu-system-x86", "CPU 0/KVM", CMD("qemu-system-x86_64\0-name\0guest=db\0"));
	stat_flags(9401, "CPU 0/KVM", 0x400040);
	fixture(9402, 9402, "vhost-9400", "vhost-9400", "", 0);
	stat_flags(9402, "vhost-9400", 0x208040);
	/* vhost of a VM that is gone: host work too */
	fixture(9403, 9403, "vhost-9999", "vhost-9999", "", 0);
	stat_flags(9403, "vhost-9999", 0x208040);
	ident_init(&id, root);

	assert_int_equal(ident_thread(&id, 9300, &info), 0);
	assert_true(info.kernel);
	assert_string_equal(info.comm, "kdamond.0");
	assert_int_equal(ident_thread(&id, 9301, &info), 0);
	assert_true(info.kernel);
	assert_int_equal(ident_thread(&id, 9401, &info), 0);
	assert_false(info.kernel);
	assert_int_equal(info.pid, 9400);
	assert_int_equal(ident_thread(&id, 9402, &info), 0);
	assert_false(info.kernel);
	assert_int_equal(info.pid, 9400);
	assert_string_equal(info.vm_name, "db");
	assert_string_equal(info.comm, "vhost-9400");
	assert_int_equal(ident_thread(&id, 9403, &info), 0);
	assert_true(info.kernel);

	/* a recording has names only */
	assert_true(ident_kernel_comm("kdamond.0"));
	assert_true(ident_kernel_comm("kworker/u16:2"));
	assert_false(ident_kernel_comm("vhost-9400"));
	assert_false(ident_kernel_comm("CPU 0/KVM"));
	assert_false(ident_kernel_comm("qemu-system-x86"));
}

static void test_qemu_guest(void **state)
{
	(void)state;
	fixture(100, 101, "qemu-system-x86", "CPU 0/KVM",
		CMD("/usr/bin/qemu-system-x86_64\0-machine\0q35\0-name\0guest=web01,debug-threads=on\0-m\0" "4096"));
	expect(101, 100, "web01", "CPU 0/KVM");
}

static void test_qemu_plain_name(void **state)
{
	(void)state;
	fixture(200, 203, "qemu-kvm", "CPU 2/KVM", CMD("qemu-kvm\0-enable-kvm\0-name\0db,process=qemu-db\0"));
	expect(203, 200, "db", "CPU 2/KVM");
}

static void test_qemu_commas(void **state)
{
	(void)state;
	/* ",," is a comma in QEMU's option syntax */
	fixture(300, 301, "qemu-system-x86", "CPU 0/KVM",
		CMD("qemu-system-x86_64\0-name\0guest=a,,b,,c,debug-threads=on"));
	expect(301, 300, "a,b,c", "CPU 0/KVM");
	fixture(310, 311, "qemu-system-x86", "CPU 0/KVM", CMD("qemu-system-x86_64\0--name\0x,,y"));
	expect(311, 310, "x,y", "CPU 0/KVM");
}

static void test_libvirt(void **state)
{
	(void)state;
	fixture(400, 402, "qemu-system-x86", "CPU 1/KVM",
		CMD("/usr/bin/qemu-system-x86_64\0-name\0guest=instance-0000002a,debug-threads=on\0-S\0"
		    "-object\0{\"qom-type\":\"secret\"}\0-uuid\0" "5c8d2d49-1111-4c51-9f8e-2d3b0f0a3a71"));
	expect(402, 400, "instance-0000002a", "CPU 1/KVM");
}

static void test_firecracker(void **state)
{
	(void)state;
	fixture(500, 501, "firecracker", "fc_vcpu 0",
		CMD("/usr/bin/firecracker\0--api-sock\0/run/fc.sock\0--id\0microvm-7"));
	expect(501, 500, "microvm-7", "fc_vcpu 0");
	fixture(510, 511, "firecracker", "fc_vcpu 1", CMD("firecracker\0--id=fc-b"));
	expect(511, 510, "fc-b", "fc_vcpu 1");
}

static void test_cloud_hypervisor(void **state)
{
	(void)state;
	fixture(600, 601, "cloud-hypervisor", "vcpu0",
		CMD("cloud-hypervisor\0--api-socket\0/run/ch/build-42.sock\0--cpus\0boot=2"));
	expect(601, 600, "build-42", "vcpu0");
	/* a generic socket name: its folder names the VM (Kata-style layout) */
	fixture(610, 611, "cloud-hypervisor", "vcpu1",
		CMD("cloud-hypervisor\0--api-socket\0path=/run/vc/vm/pod-9f/clh-api.sock"));
	expect(611, 610, "pod-9f", "vcpu1");
}

static void test_crosvm_kvmtool(void **state)
{
	(void)state;
	fixture(700, 701, "crosvm", "crosvm_vcpu0", CMD("crosvm\0run\0--socket\0/run/crosvm/termina.sock\0vmlinux"));
	expect(701, 700, "termina", "crosvm_vcpu0");
	fixture(710, 711, "lkvm", "kvm-vcpu-0", CMD("lkvm\0run\0--name\0tiny\0-k\0bzImage"));
	expect(711, 710, "tiny", "kvm-vcpu-0");
}

static void test_plain_process(void **state)
{
	(void)state;
	/* no name option: the process name; an empty command line too */
	fixture(800, 801, "myvmm", "worker", CMD("/opt/myvmm\0--mem\0" "512"));
	expect(801, 800, "myvmm", "worker");
	fixture(810, 811, "zombie-vmm", "w", "", 0);
	expect(811, 810, "zombie-vmm", "w");
	/* -name without a value */
	fixture(820, 821, "qemu-system-x86", "CPU 0/KVM", CMD("qemu-system-x86_64\0-name"));
	expect(821, 820, "qemu-system-x86", "CPU 0/KVM");
}

static void test_escapes(void **state)
{
	struct ident id;
	struct ident_info info;
	char buf[256];

	(void)state;
	/* a guest name with terminal escapes is kept raw and escaped where printed */
	fixture(900, 901, "qemu-system-x86", "CPU 0/\033[31mKVM",
		CMD("qemu-system-x86_64\0-name\0guest=evil\033]0;pwned\007\033[2J,debug-threads=on"));
	expect(901, 900, "evil\033]0;pwned\007\033[2J", "CPU 0/\033[31mKVM");
	ident_init(&id, root);
	assert_int_equal(ident_thread(&id, 901, &info), 0);
	assert_string_equal(escape_text(info.vm_name, buf, sizeof(buf)),
			    "evil\\x1b]0;pwned\\x07\\x1b[2J");
	assert_null(strchr(escape_text(info.comm, buf, sizeof(buf)), '\033'));
}

static void test_gone(void **state)
{
	struct ident id;
	struct ident_info info;

	(void)state;
	ident_init(&id, root);
	/* a thread that ended before kvmtop looked: unknown VM, no crash */
	assert_int_equal(ident_thread(&id, 424242, &info), -1);
	assert_int_equal(info.pid, 0);
	assert_string_equal(info.vm_name, "unknown");
	assert_false(ident_alive(&id, 424242));
}

static void test_long_name(void **state)
{
	char cmd[600];
	size_t n;

	(void)state;
	/* "qemu", "-name", "guest=" + 400 x: cut to IDENT_NAME_LEN - 1 */
	n = sizeof("qemu\0-name\0guest=") - 1;
	memcpy(cmd, "qemu\0-name\0guest=", n);
	memset(cmd + n, 'x', 400);
	cmd[n + 400] = '\0';
	fixture(950, 951, "qemu", "CPU 0/KVM", cmd, n + 401);
	{
		struct ident id;
		struct ident_info info;

		ident_init(&id, root);
		assert_int_equal(ident_thread(&id, 951, &info), 0);
		assert_int_equal(strlen(info.vm_name), IDENT_NAME_LEN - 1);
	}
}

/* Thread tid's stat: field k (from 4 on) holds 1000 + k, so each figure says which field it came from. */
static void stat_numbered(int tid, const char *comm)
{
	char rel[64], buf[1024];
	int n, k;

	snprintf(rel, sizeof(rel), "%d/stat", tid);
	n = snprintf(buf, sizeof(buf), "%d (%s) S", tid, comm);
	for (k = 4; k <= 52; k++)
		n += snprintf(buf + n, sizeof(buf) - n, " %d", 1000 + k);
	snprintf(buf + n, sizeof(buf) - n, "\n");
	put(rel, buf, strlen(buf));
}

/*
 * A thread's CPU accounting: schedstat's ns on a CPU and waiting, stat's
 * utime (field 14), stime (15) and guest_time (43); a thread gone, a
 * kernel without schedstat, schedstat off.
 */
static void test_times(void **state)
{
	struct ident id;
	struct proc_times t;

	(void)state;
	ident_init(&id, root);
	fixture(9500, 9501, "qemu-system-x86", "CPU 0/KVM", CMD("qemu\0"));
	stat_numbered(9501, "CPU 0/KVM) S 1 2");
	put_str("9501/schedstat", "123456789012 987654 42\n");
	assert_int_equal(ident_read_times(&id, 9501, &t), 0);
	assert_int_equal(t.run_ns, 123456789012ull);
	assert_int_equal(t.wait_ns, 987654);
	assert_int_equal(t.utime, 1014);
	assert_int_equal(t.stime, 1015);
	assert_int_equal(t.gtime, 1043);

	/* gone before it was read */
	assert_int_equal(ident_read_times(&id, 424242, &t), -1);
	/* gone while it was read: stat was there, schedstat is empty */
	put_str("9501/schedstat", "");
	assert_int_equal(ident_read_times(&id, 9501, &t), -1);
	/* sched_info off: nothing counted though the thread ran */
	put_str("9501/schedstat", "0 0 0\n");
	assert_int_equal(ident_read_times(&id, 9501, &t), -2);
	/* a kernel without schedstat */
	fixture(9500, 9502, "qemu-system-x86", "CPU 1/KVM", CMD("qemu\0"));
	stat_numbered(9502, "CPU 1/KVM");
	assert_int_equal(ident_read_times(&id, 9502, &t), -2);
	/* a stat cut short: no guest_time field */
	put_str("9502/stat", "9502 (x) S 1 2 3 4 5 6 7 8 9 10 11 12\n");
	put_str("9502/schedstat", "5 6 7\n");
	assert_int_equal(ident_read_times(&id, 9502, &t), -1);
}

/* A thread tid of process pid as /proc/PID/task/TID shows it. */
static void task(int pid, int tid, const char *comm, const char *schedstat)
{
	char rel[400], buf[128];

	snprintf(rel, sizeof(rel), "%s/%d/task", root, pid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/%d/task/%d", root, pid, tid);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%d/task/%d/comm", pid, tid);
	snprintf(buf, sizeof(buf), "%s\n", comm);
	put_str(rel, buf);
	if (schedstat) {
		snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", pid, tid);
		put_str(rel, schedstat);
	}
}

/*
 * A VM's threads, sorted by tid with their schedstat (one that ended while
 * listed is left out); the vhost kernel threads of older kernels found
 * by name among the processes, not a VM's own vhost thread nor a
 * process merely named so.
 */
static void test_tasks(void **state)
{
	struct ident_task *t;
	struct ident id;
	int tids[8], pids[8];
	ssize_t n;
	size_t nk, i;

	(void)state;
	ident_init(&id, root);
	fixture(9600, 9600, "qemu-system-x86", "qemu-system-x86", CMD("qemu\0"));
	task(9600, 9600, "qemu-system-x86", "1000 20 5\n");
	task(9600, 9615, "vhost-9600", "300 4 1\n");
	task(9600, 9603, "CPU 0/KVM", "5000000 60 9\n");
	task(9600, 9612, "worker", NULL);	/* ended */
	task(9600, 9611, "IO iothread0", "42 0 1\n");
	n = ident_read_tasks(&id, 9600, &t);
	assert_int_equal(n, 4);
	assert_int_equal(t[0].tid, 9600);
	assert_int_equal(t[1].tid, 9603);
	assert_int_equal(t[1].run_ns, 5000000);
	assert_int_equal(t[1].wait_ns, 60);
	assert_string_equal(t[1].comm, "CPU 0/KVM");
	assert_int_equal(t[2].tid, 9611);
	assert_int_equal(t[3].tid, 9615);
	assert_string_equal(t[3].comm, "vhost-9600");
	free(t);
	assert_int_equal(ident_read_tasks(&id, 424242, &t), -1);
	assert_null(t);

	/* vhost kernel threads: 9650 serves VM 9600; 9651 is a user process named so */
	fixture(9650, 9650, "vhost-9600", "vhost-9600", "", 0);
	stat_flags(9650, "vhost-9600", 0x208040);
	fixture(9651, 9651, "vhost-9600", "vhost-9600", CMD("fake\0"));
	stat_flags(9651, "vhost-9600", 0x400040);
	nk = ident_vhost_kthreads(&id, tids, pids, 8);
	/* with test_kernel_threads' 9402 (vhost-9400) and 9403 (vhost-9999) */
	assert_int_equal(nk, 3);
	for (i = 0; i < nk; i++) {
		assert_int_not_equal(tids[i], 9651);
		assert_int_equal(pids[i], tids[i] == 9650 ? 9600 : tids[i] == 9402 ? 9400 : 9999);
	}
	assert_int_equal(ident_vhost_kthreads(&id, tids, pids, 1), 1);
}

/* A file of thread tid of process pid, /proc/PID/task/TID/NAME. */
static void task_file(int pid, int tid, const char *name, const char *data)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "%d/task/%d/%s", pid, tid, name);
	put_str(rel, data);
}

/*
 * A vCPU's thread: the one in ioctl(fd, KVM_RUN), else the one named for
 * it; never KVM's NX huge page worker, a user worker (PF_USER_WORKER)
 * forked from vCPU 0's thread inside KVM_RUN, whose syscall file shows
 * that ioctl for good (seen on Linux 6.18).
 */
static void test_vcpu_thread(void **state)
{
	char run[64], stat[160];
	struct ident id;

	(void)state;
	ident_init(&id, root);
	snprintf(run, sizeof(run), "%ld 0xb 0xae80 0x0 0x0 0x0 0x0 0x7ffd1000 0x7f001000\n", (long)SYS_ioctl);
	fixture(9700, 9700, "qemu-system-x86", "qemu-system-x86", CMD("qemu\0"));
	task(9700, 9700, "qemu-system-x86", "1 2 3\n");
	task_file(9700, 9700, "syscall", "7 0x5 0x1 0xffffffff 0x0 0x0 0x0 0x7ffd2000 0x7f002000\n");
	task(9700, 9702, "CPU 0/KVM", "1 2 3\n");
	task_file(9700, 9702, "syscall", "202 0x7f003000 0x80 0x0 0x0 0x0 0x0 0x7ffd3000 0x7f003000\n");
	task(9700, 9705, "kvm-nx-lpage-re", "1 2 3\n");
	task_file(9700, 9705, "syscall", run);
	snprintf(stat, sizeof(stat), "9705 (kvm-nx-lpage-re) S 2 0 0 0 -1 %u 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n",
		 0x404040);
	task_file(9700, 9705, "stat", stat);
	/* vCPU 0 is not in KVM_RUN now: its thread is the one named for it */
	assert_int_equal(ident_vcpu_thread(&id, 9700, 11, 0), 9702);
	/* in KVM_RUN: the same thread, by its syscall */
	task_file(9700, 9702, "syscall", run);
	snprintf(stat, sizeof(stat), "9702 (CPU 0/KVM) S 1 0 0 0 -1 %u 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n", 0x400040);
	task_file(9700, 9702, "stat", stat);
	assert_int_equal(ident_vcpu_thread(&id, 9700, 11, 0), 9702);
	/* and by syscall alone, whatever its name */
	task(9700, 9702, "vcpu-thread", "1 2 3\n");
	assert_int_equal(ident_vcpu_thread(&id, 9700, 11, 0), 9702);
	assert_int_equal(ident_vcpu_thread(&id, 9700, 12, 1), 0);
}

/* On this host's /proc: schedstat's time on a CPU is the thread's CPU clock. */
static void test_times_real(void **state)
{
	struct timespec a, b;
	struct ident id;
	struct proc_times t;
	volatile unsigned long x = 0;
	unsigned long i;

	(void)state;
	ident_init(&id, NULL);
	for (i = 0; i < 100000000; i++)
		x += i;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	assert_int_equal(ident_read_times(&id, (int)syscall(SYS_gettid), &t), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	/* sum_exec_runtime lags the clock by at most a tick or so */
	assert_true(t.run_ns >= (uint64_t)a.tv_sec * 1000000000ull + a.tv_nsec - 20000000);
	assert_true(t.run_ns <= (uint64_t)b.tv_sec * 1000000000ull + b.tv_nsec);
	assert_true(t.utime + t.stime > 0);
}

/* A status XML of pid whose domain is named name (raw XML text) with a <uuid> uuid. */
static const char *status_xml(char *buf, size_t len, const char *pid, const char *name, const char *uuid)
{
	snprintf(buf, len, "<domstatus state='running' reason='booted' pid=%s>\n"
		 "  <qemuCaps><flag name='kvm'/></qemuCaps>\n"
		 "  <domain type='kvm' id='3'>\n  <name>%s</name>\n  <uuid>%s</uuid>\n"
		 "  <memory unit='KiB'>1048576</memory>\n  </domain>\n</domstatus>\n", pid, name, uuid);
	return buf;
}

/* libvirt's status XML: values as the text holds them; anything else gives no identity. */
static void test_libvirt_xml(void **state)
{
	static const char *const bad_names[] = {
		"a<b/>c",		/* markup in the value */
		"a&nbsp;b",		/* an entity XML does not define */
		"a&#x110000;b",		/* past Unicode */
		"a&#0;b",		/* NUL */
		"a&#12",		/* not closed */
		"",			/* empty */
	};
	const char *u = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
	struct ident_vm id;
	char xml[2048], big[256];
	size_t i;

	memset(&id, 0, sizeof(id));
	status_xml(xml, sizeof(xml), "'77'", "web&amp;&#x41;&#66;&#x20AC;", u);
	assert_int_equal(ident_libvirt_pid(xml, strlen(xml)), 77);
	assert_int_equal(ident_libvirt_xml(xml, strlen(xml), 77, &id), 0);
	assert_string_equal(id.name, "web&AB\xe2\x82\xac");
	assert_string_equal(id.from, "libvirt");
	assert_string_equal(id.uuid, u);
	/* another pid's, no pid, a pid not closed, one past INT_MAX */
	assert_int_equal(ident_libvirt_xml(xml, strlen(xml), 78, &id), -1);
	status_xml(xml, sizeof(xml), "''", "x", u);
	assert_int_equal(ident_libvirt_pid(xml, strlen(xml)), 0);
	status_xml(xml, sizeof(xml), "'77", "x", u);
	assert_int_equal(ident_libvirt_pid(xml, strlen(xml)), 0);
	status_xml(xml, sizeof(xml), "'2147483648'", "x", u);
	assert_int_equal(ident_libvirt_pid(xml, strlen(xml)), 0);
	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		memset(&id, 0, sizeof(id));
		status_xml(xml, sizeof(xml), "\"9\"", bad_names[i], u);
		assert_int_equal(ident_libvirt_xml(xml, strlen(xml), 9, &id), -1);
		assert_string_equal(id.name, "");
	}
	/* a UUID not 8-4-4-4-12 hex is none; a long name is cut to the field */
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memset(&id, 0, sizeof(id));
	status_xml(xml, sizeof(xml), "'9'", big, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4");
	assert_int_equal(ident_libvirt_xml(xml, strlen(xml), 9, &id), 0);
	assert_int_equal(strlen(id.name), IDENT_NAME_LEN - 1);
	assert_string_equal(id.uuid, "");
	/* cut inside the domain's name: none */
	status_xml(xml, sizeof(xml), "'9'", "whole", u);
	*strstr(xml, "le</name>") = '\0';
	memset(&id, 0, sizeof(id));
	assert_int_equal(ident_libvirt_xml(xml, strlen(xml), 9, &id), -1);
}

/* VMM command lines: -uuid, Kata's sandbox, Firecracker, cloud-hypervisor; a Kata shim parent. */
static void test_vm_cmdline(void **state)
{
	static const char qemu[] = "qemu-system-x86_64\0-name\0sandbox-abc,debug-threads=on\0-uuid\0"
				   "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
	static const char bad_uuid[] = "qemu-system-x86_64\0-uuid\0not-a-uuid\0-name\0vm1";
	static const char fc[] = "/usr/bin/firecracker\0--id\0fc1";
	static const char lkvm[] = "lkvm\0run\0--name\0guest-7";
	static const char shim[] = "/usr/bin/containerd-shim-kata-v2\0-namespace\0k8s.io\0-id\0sb9";
	static const char shim_no_id[] = "/usr/bin/containerd-shim-kata-v2\0-id";
	struct ident_vm id;

	memset(&id, 0, sizeof(id));
	ident_vm_cmdline(qemu, sizeof(qemu), "sandbox-abc", &id);
	assert_string_equal(id.name, "abc");
	assert_string_equal(id.from, "kata");
	assert_string_equal(id.uuid, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
	memset(&id, 0, sizeof(id));
	ident_vm_cmdline(bad_uuid, sizeof(bad_uuid), "vm1", &id);
	assert_string_equal(id.from, "qemu");
	assert_string_equal(id.uuid, "");
	memset(&id, 0, sizeof(id));
	ident_vm_cmdline(fc, sizeof(fc), "fc1", &id);
	assert_string_equal(id.from, "firecracker");
	memset(&id, 0, sizeof(id));
	ident_vm_cmdline(lkvm, sizeof(lkvm), "guest-7", &id);
	assert_string_equal(id.from, "kvmtool");
	memset(&id, 0, sizeof(id));
	ident_vm_cmdline(NULL, 0, "qemu-kvm", &id);
	assert_string_equal(id.from, "comm");
	assert_string_equal(id.name, "qemu-kvm");
	assert_false(ident_vm_parent(shim_no_id, sizeof(shim_no_id), &id));
	assert_false(ident_vm_parent(fc, sizeof(fc), &id));
	assert_true(ident_vm_parent(shim, sizeof(shim), &id));
	assert_string_equal(id.name, "sb9");
	assert_string_equal(id.from, "kata");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_threads),
		cmocka_unit_test(test_qemu_guest),
		cmocka_unit_test(test_qemu_plain_name),
		cmocka_unit_test(test_qemu_commas),
		cmocka_unit_test(test_libvirt),
		cmocka_unit_test(test_firecracker),
		cmocka_unit_test(test_cloud_hypervisor),
		cmocka_unit_test(test_crosvm_kvmtool),
		cmocka_unit_test(test_plain_process),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_times_real),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_vcpu_thread),
		cmocka_unit_test(test_libvirt_xml),
		cmocka_unit_test(test_vm_cmdline),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
