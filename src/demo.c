// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* pthread_setname_np */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "demo.h"

#define GUEST_MEM	0x10000		/* 64 KiB of RAM at guest address 0 */
#define GUEST_CODE	0x1000
#define MMIO_SEG	0x2000		/* ds:0 = 0x20000, past the RAM: MMIO */
#define DEMO_PORT	0x10

/* Real-mode loop; see demo.h. */
static const unsigned char guest_code[] = {
	0xba, DEMO_PORT, 0x00,			/* mov dx, 0x10 */
	0xee,					/* out dx, al */
	0xa2, 0x00, 0x00,			/* mov [0], al  (ds = 0x2000) */
	0x66, 0x31, 0xc0,			/* xor eax, eax */
	0x0f, 0xa2,				/* cpuid */
	0x66, 0xb9, 0x10, 0x00, 0x00, 0x00,	/* mov ecx, 0x10 */
	0x0f, 0x32,				/* rdmsr */
	0xf4,					/* hlt */
	0xeb, 0xe9,				/* jmp 0x1000 */
};

enum { X_IO, X_MMIO, X_HLT, X_INTR, X_OTHER, X_MAX };
static const char *const x_names[X_MAX] = { "IO", "MMIO", "HLT", "INTR", "other" };

struct demo_vcpu {
	pthread_t thread;
	int index;
	int fd;
	int tid;
	struct kvm_run *run;
	long long loops;
	long long done;		/* loops run */
	unsigned long long runs;
	unsigned long long exits[X_MAX];
	char error[128];
};

static volatile sig_atomic_t demo_stop_flag;
static useconds_t halt_us;	/* each hlt sleeps this long in the VMM */
static long linger_ms;		/* the process stays this long after its vCPU threads end */
static bool no_stats;		/* hold no statistics fds, as Debian 12's QEMU 7.2 */
static long name_after_ms;	/* a vCPU thread takes its name this long after it starts */
static long vcpus_after_ms;	/* the vCPUs are made this long after the VM */
static long last_after_ms;	/* the last vCPU's thread starts this long after the others' (added late) */
static long long vcpus_made_ns;	/* CLOCK_MONOTONIC as the first was made */

static void on_term(int sig)
{
	(void)sig;
	demo_stop_flag = 1;
}

/*
 * KVMTOP_DEMO_NAME_AFTER_MS: has the time come for a vCPU thread started
 * at t0 to take its name?  As a VMM's threads are named a moment after
 * they start, and a monitor may have met them before.
 */
static bool vcpu_name_due(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000 >= name_after_ms;
}

static void *vcpu_thread(void *arg)
{
	struct demo_vcpu *v = arg;
	struct timespec t0;
	char name[16];
	long long done = 0;
	bool named = false;

	v->tid = (int)syscall(SYS_gettid);
	snprintf(name, sizeof(name), "CPU %d/KVM", v->index);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!demo_stop_flag && (!v->loops || done < v->loops)) {
		int ret;

		if (!named && (!name_after_ms || vcpu_name_due(&t0))) {
			pthread_setname_np(pthread_self(), name);
			named = true;
		}
		ret = ioctl(v->fd, KVM_RUN, 0);

		v->runs++;
		if (ret < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				v->exits[X_INTR]++;
				continue;
			}
			snprintf(v->error, sizeof(v->error), "KVM_RUN: %s", strerror(errno));
			break;
		}
		switch (v->run->exit_reason) {
		case KVM_EXIT_IO:
			v->exits[X_IO]++;
			break;
		case KVM_EXIT_MMIO:
			v->exits[X_MMIO]++;
			break;
		case KVM_EXIT_HLT:
			v->exits[X_HLT]++;
			done++;		/* one loop ends at its hlt */
			v->done = done;
			/* KVMTOP_DEMO_HALT_US: an idle guest, waiting for its timer */
			if (halt_us)
				usleep(halt_us);
			break;
		case KVM_EXIT_INTR:
			v->exits[X_INTR]++;
			break;
		default:
			v->exits[X_OTHER]++;
			snprintf(v->error, sizeof(v->error), "unexpected exit reason %u",
				 v->run->exit_reason);
			demo_stop_flag = 1;
			break;
		}
	}
	return NULL;
}

static int setup_vcpu(int kvm, int vm, struct demo_vcpu *v, int mmap_size)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	v->fd = ioctl(vm, KVM_CREATE_VCPU, v->index);
	if (v->fd < 0)
		return -1;
	/*
	 * Its statistics fd, held open for the guest's life as a VMM that
	 * shows its statistics does: KVM hands one out only to the VM's own
	 * process, and kvmtop --source stats takes the fd from here.  A
	 * kernel without binary statistics (before 5.14) has none.
	 */
	if (!no_stats)
		ioctl(v->fd, KVM_GET_STATS_FD, NULL);
	v->run = mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED)
		return -1;
	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		return -1;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	sregs.ds.base = MMIO_SEG << 4;
	sregs.ds.selector = MMIO_SEG;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		return -1;
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE;
	regs.rflags = 2;
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		return -1;
	(void)kvm;
	return 0;
}

/*
 * Its own counts, as JSON: per vCPU the loops run, the KVM_RUN calls and
 * their returns by exit reason; the seconds from starting the vCPUs to
 * their end, and the loops per second of all of them (the guest's own
 * speed, which make bench compares with and without a monitor); when
 * the first vCPU was made (CLOCK_MONOTONIC ns, the clock of kvmtop's live
 * snapshots).
 */
static void write_report(const char *path, struct demo_vcpu *v, int n, long long loops, double secs)
{
	FILE *f = fopen(path, "we");
	long long all = 0;
	int i, j;

	if (!f)
		return;
	for (i = 0; i < n; i++)
		all += v[i].done;
	fprintf(f, "{\"pid\": %d, \"name\": \"%s\", \"loops\": %lld, \"seconds\": %.6f, "
		"\"loops_per_s\": %.1f, \"vcpus_made_ns\": %lld, \"vcpus\": [", (int)getpid(), DEMO_NAME,
		loops, secs, secs > 0 ? all / secs : 0.0, vcpus_made_ns);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"vcpu\": %d, \"tid\": %d, \"loops\": %lld, \"runs\": %llu, \"exits\": {",
			i ? ", " : "", v[i].index, v[i].tid, v[i].done, v[i].runs);
		for (j = 0; j < X_MAX; j++)
			fprintf(f, "%s\"%s\": %llu", j ? ", " : "", x_names[j], v[i].exits[j]);
		fprintf(f, "}, \"error\": \"%s\"}", v[i].error);
	}
	fprintf(f, "]}\n");
	fclose(f);
}

/* kvmtop --demo-guest -name guest=kvmtop-demo,debug-threads=on VCPUS LOOPS [REPORT] */
/* The guest process's own settings: its name, its stop signals.  0, or 1 (kvmtop is gone). */
static int guest_process(void)
{
	struct sigaction sa;

	prctl(PR_SET_NAME, DEMO_NAME);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a stop kvmtop sent before now (kept blocked through the exec) is taken here */
	sigemptyset(&sa.sa_mask);
	sigprocmask(SIG_SETMASK, &sa.sa_mask, NULL);
	return getppid() == 1;	/* kvmtop is already gone */
}

/* A VM with the guest's code in its memory: its fd, or -1 (said why); *mmap_size: a vCPU's run area. */
static int make_vm(int kvm, int *mmap_size)
{
	struct kvm_userspace_memory_region region;
	unsigned char *mem;
	int vm;

	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	*mmap_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	mem = mmap(NULL, GUEST_MEM, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (vm < 0 || *mmap_size <= 0 || mem == MAP_FAILED) {
		fprintf(stderr, "kvmtop: demo guest: cannot create a VM: %s\n", strerror(errno));
		return -1;
	}
	memcpy(mem + GUEST_CODE, guest_code, sizeof(guest_code));
	memset(&region, 0, sizeof(region));
	region.memory_size = GUEST_MEM;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		fprintf(stderr, "kvmtop: demo guest: KVM_SET_USER_MEMORY_REGION: %s\n", strerror(errno));
		return -1;
	}
	/* the VM's statistics fd, held open as each vCPU's (setup_vcpu) */
	if (!no_stats)
		ioctl(vm, KVM_GET_STATS_FD, NULL);
	return vm;
}

/* ms milliseconds, or until stopped. */
static void demo_wait(long ms)
{
	long t;

	for (t = 0; t < ms && !demo_stop_flag; t += 10)
		usleep(10000);
}

/* Run n vCPUs to their end: 0, or 1 (one failed, said why); *secs the time they took. */
static int run_vcpus(struct demo_vcpu *v, int n, double *secs)
{
	struct timespec t0, t1;
	int i, ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (i && i == n - 1)
			demo_wait(last_after_ms);
		if (pthread_create(&v[i].thread, NULL, vcpu_thread, &v[i])) {
			demo_stop_flag = 1;
			n = i;
			break;
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(v[i].thread, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < n; i++)
		if (v[i].error[0]) {
			fprintf(stderr, "kvmtop: demo guest: vCPU %d: %s\n", i, v[i].error);
			ret = 1;
		}
	return ret;
}

/* A millisecond setting (0 to 3600000) from the environment into *ms: 0, or -1 (said why). */
static int demo_env_ms(const char *name, long *ms)
{
	const char *bad = NULL;

	if (!getenv(name))
		return 0;
	*ms = (long)strtonum(getenv(name), 0, 3600000, &bad);
	if (bad) {
		fprintf(stderr, "kvmtop: %s: %s (0 to 3600000)\n", name, bad);
		return -1;
	}
	return 0;
}

/*
 * KVMTOP_DEMO_HALT_US, _NAME_AFTER_MS, _LINGER_MS, _VCPUS_AFTER_MS,
 * _LAST_VCPU_AFTER_MS and _NO_STATS: 0, or -1 (said why).
 */
static int demo_env(void)
{
	const char *bad = NULL;

	no_stats = getenv("KVMTOP_DEMO_NO_STATS") && strcmp(getenv("KVMTOP_DEMO_NO_STATS"), "0");
	if (getenv("KVMTOP_DEMO_HALT_US")) {
		halt_us = (useconds_t)strtonum(getenv("KVMTOP_DEMO_HALT_US"), 0, 1000000, &bad);
		if (bad) {
			fprintf(stderr, "kvmtop: KVMTOP_DEMO_HALT_US: %s (0 to 1000000)\n", bad);
			return -1;
		}
	}
	return demo_env_ms("KVMTOP_DEMO_NAME_AFTER_MS", &name_after_ms) ||
	       demo_env_ms("KVMTOP_DEMO_LINGER_MS", &linger_ms) ||
	       demo_env_ms("KVMTOP_DEMO_VCPUS_AFTER_MS", &vcpus_after_ms) ||
	       demo_env_ms("KVMTOP_DEMO_LAST_VCPU_AFTER_MS", &last_after_ms) ? -1 : 0;
}

int demo_guest_main(int argc, char **argv)
{
	struct demo_vcpu *v = NULL;
	const char *report;
	struct timespec t;
	int kvm, vm, n, i, mmap_size, ret = 1;
	long long loops;
	double secs;

	if (argc < 6) {
		fprintf(stderr, "kvmtop: --demo-guest is started by kvmtop --demo\n");
		return 2;
	}
	n = atoi(argv[4]);
	loops = atoll(argv[5]);
	report = argc > 6 ? argv[6] : NULL;
	if (n < 1 || n > DEMO_MAX_VCPUS || loops < 0)
		return 2;
	if (demo_env())
		return 2;
	if (guest_process())
		return 1;
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		fprintf(stderr, "kvmtop: demo guest: /dev/kvm: %s\n", strerror(errno));
		return 1;
	}
	vm = make_vm(kvm, &mmap_size);
	if (vm < 0)
		return 1;
	v = calloc(n, sizeof(*v));
	if (!v) {
		fprintf(stderr, "kvmtop: demo guest: out of memory\n");
		return 1;
	}
	/* a VMM that makes its vCPUs well after its VM (a paused QEMU, a slow boot) */
	demo_wait(vcpus_after_ms);
	clock_gettime(CLOCK_MONOTONIC, &t);
	vcpus_made_ns = t.tv_sec * 1000000000LL + t.tv_nsec;
	for (i = 0; i < n && !demo_stop_flag; i++) {
		v[i].index = i;
		v[i].loops = loops;
		if (setup_vcpu(kvm, vm, &v[i], mmap_size)) {
			fprintf(stderr, "kvmtop: demo guest: vCPU %d: %s\n", i, strerror(errno));
			goto out;
		}
	}
	n = i;		/* stopped while it waited: none made */
	ret = run_vcpus(v, n, &secs);
	if (report)
		write_report(report, v, n, loops, secs);
	/* a VMM whose vCPU threads were brief stays linger_ms (until stopped), its threads gone */
	demo_wait(linger_ms);
out:
	free(v);
	return ret;
}

int demo_sample(char *buf, size_t len)
{
	static const char *const beside[] = { "sample", "../sample" };
	char exe[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
				snprintf(buf, len, "%s/%s/%s", exe, beside[i], DEMO_SAMPLE);
				if (!access(buf, R_OK))
					return 0;
			}
		}
	}
	snprintf(buf, len, "%s/%s", PKGDATADIR, DEMO_SAMPLE);
	return access(buf, R_OK) ? -1 : 0;
}

pid_t demo_start(int vcpus, long long loops, const char *report, char *err, size_t errlen)
{
	char nv[16], nl[32];
	pid_t pid;

	if (access("/dev/kvm", R_OK | W_OK)) {
		snprintf(err, errlen, "--demo needs /dev/kvm: %s", strerror(errno));
		return -1;
	}
	snprintf(nv, sizeof(nv), "%d", vcpus);
	snprintf(nl, sizeof(nl), "%lld", loops);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "--demo: fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigset_t stop;
		char *argv[] = { "kvmtop", "--demo-guest", "-name", "guest=" DEMO_NAME ",debug-threads=on",
				 nv, nl, (char *)report, NULL };

		/*
		 * Only the stop signals stay blocked, through the exec, until
		 * demo_guest_main() has its handlers: a stop that comes sooner
		 * (kvmtop -n 1 ending at once) waits for them, and the guest
		 * ends cleanly instead of being killed.  kvmtop ignores SIGPIPE:
		 * the guest does not.
		 */
		sigemptyset(&stop);
		sigaddset(&stop, SIGTERM);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGHUP);
		sigprocmask(SIG_SETMASK, &stop, NULL);
		signal(SIGPIPE, SIG_DFL);
		/* libtracefs opens the trace buffers without O_CLOEXEC: the guest gets none of them */
		if (close_range(3, ~0u, 0)) {
			long fd, max = sysconf(_SC_OPEN_MAX);

			for (fd = 3; fd < max && fd < 65536; fd++)
				close(fd);
		}
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	return pid;
}

int demo_ended(pid_t pid, int *status)
{
	return waitpid(pid, status, WNOHANG) == pid;
}

int demo_stop(pid_t pid)
{
	int status;

	if (pid <= 0)
		return 0;
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
