// SPDX-License-Identifier: GPL-2.0
/*
 * kvmgen: writes trace-cmd recordings of KVM events in exact kernel
 * layouts, and the figures kvmtop must report for them.
 *
 * The event layouts come from a directory of format files as the kernel
 * prints them into events/<system>/<event>/format (tests/formats/<layout>).
 * libtraceevent parses them; every field is written at the offset and
 * size the format gives, so one scenario serves every kernel's layout.
 * Records are packed into ring-buffer pages as the kernel writes them
 * (page header {timestamp, commit}, 32-bit event headers with 27-bit
 * time deltas, time-extend events for longer gaps, the missed-events
 * flags), one file per CPU, and libtracecmd's own writer packages them
 * as a file of version 6 or 7, compressed or not (zlib through the
 * tests' own codec, tests/gen/tc_zlib.c, never kvmtop's).
 *
 * The expected figures are worked out from the final event list with
 * the definitions of the man page (exit -> next entry of the same
 * thread), independently of kvmtop's code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>

#include "sources/tracecmd_priv.h"

int tc_zlib_register(void);	/* tests/gen/tc_zlib.c */

#define PAGE_SIZE	4096
#define PAGE_HDR	16
#define TS_BITS		27
#define TYPE_EXTEND	30

/*
 * G_ENTRY2: a second entry event (LoongArch's kvm_enter after a return to
 * user space).  G_MSR .. G_WFX: the companion events that name an exit's
 * object (kvm_msr ..., powerpc's kvm_hcall_enter, s390's
 * kvm_s390_intercept_instruction and kvm_s390_handle_diag, LoongArch's
 * kvm_exit_gspr, kvm_exit_idle and kvm_exit_cache, arm64's kvm_sys_access,
 * kvm_hvc_arm64 and kvm_wfx_arm64), written by -S scripts only, where the
 * layout has them.
 */
enum gkind { G_EXIT, G_ENTRY, G_PIO, G_UEXIT, G_MMIO, G_ENTRY2, G_MSR, G_APIC, G_HCALL, G_HVCALL, G_CR,
	     G_CPUID, G_PPC_HCALL, G_S390_INSN, G_S390_DIAG, G_LA_GSPR, G_LA_IDLE, G_LA_CACHE, G_SYSREG, G_HVC,
	     G_WFX, G_SWITCH, G_WAKING, G_NEWTASK, G_NR };

/*
 * The arch is that of the layout's exit event: x86, arm and RISC-V share
 * kvm_exit (arm's has vcpu_pc, RISC-V's scause), powerpc HV and s390
 * have their own; LoongArch's kvm_exit ends at kvm_reenter or kvm_enter.
 */
enum garch { A_X86, A_ARM, A_PPC, A_S390, A_RISCV, A_LOONG };

static const char *gk_event[G_NR] = {
	"kvm_exit", "kvm_entry", "kvm_pio", "kvm_userspace_exit", "kvm_mmio", NULL, "kvm_msr", "kvm_apic",
	"kvm_hypercall", "kvm_hv_hypercall", "kvm_cr", "kvm_cpuid", "kvm_hcall_enter",
	"kvm_s390_intercept_instruction", "kvm_s390_handle_diag", "kvm_exit_gspr", "kvm_exit_idle",
	"kvm_exit_cache", "kvm_sys_access", "kvm_hvc_arm64", "kvm_wfx_arm64", "sched_switch", "sched_waking",
	"task_newtask",
};
static const char *gk_system[G_NR] = {
	"kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "kvm_hv", "kvm", "kvm",
	"kvm", "kvm", "kvm", "kvm", "kvm", "kvm", "sched", "sched", "task",
};
/* each kind's word in a -S script */
static const char *const gk_script[G_NR] = {
	"exit", "entry", "pio", "uexit", "mmio", "entry2", "msr", "apic", "hypercall", "hv_hypercall", "cr",
	"cpuid", "hcall", "insn", "diag", "gspr", "la_idle", "la_cache", "sys_access", "hvc", "wfx", "switch",
	"waking", "newtask",
};
static enum garch garch;
/* the kernel's isa numbers for x86; kvmtop's for the others (its JSON "isa") */
#define ISA_ARM64_NR	3
#define ISA_PPC_NR	4
#define ISA_S390_NR	5
#define ISA_RISCV_NR	6
#define ISA_LOONG_NR	7
#define RV_IRQ		0x80000000u	/* a mix's RISC-V reason: an interrupt (kvmtop's code) */
#define RV_WFI		0x10500073u	/* the WFI instruction, in stval */
#define RV_VIRT_INSN	22		/* scause: virtual instruction */

struct gev {
	uint64_t t;
	uint32_t seq;
	int16_t cpu;
	uint8_t kind;
	uint8_t lost_before;	/* the page holding it starts after lost events */
	uint8_t isa;		/* exit: 1 VMX, 2 SVM (the kernel's isa values) */
	int32_t tid;		/* common_pid: sched_switch's prev_pid, sched_waking's waker */
	uint32_t reason;	/* exit: raw exit_reason, arm type, ppc trap, s390 icptcode; uexit: KVM_EXIT_*;
				 * switch: next_pid; waking: the woken pid; newtask: the new thread */
	uint32_t aux;		/* exit: arm EC (as written), ppc ceded, RISC-V stval; switch: prev_state */
	uint32_t vcpu;
	uint64_t rip;
	uint64_t msr;		/* exit: ppc MSR, s390 PSW mask */
	int32_t script;		/* -S: index of its field list in script_fields, else -1 */
	int8_t fn;		/* exit: the guest function rip is in, -1: guest user space */
	uint8_t async;		/* exit: an asynchronous one (its rip is a time sample) */
	uint16_t off;		/* exit: rip's offset in fn */
};

/*
 * -S FILE: events given one per line instead of the built-in workload,
 * to reproduce a real trace excerpt:
 *   comm TID NAME...                       a thread's name
 *   TIME_NS CPU TID exit|entry FIELD=VALUE...  fields set by name
 */
#define SCRIPT_FIELDS	8
struct script_ev {
	int nr;
	char name[SCRIPT_FIELDS][32];
	uint64_t v[SCRIPT_FIELDS];
};
static struct script_ev *script_fields;
static size_t nr_script, alloc_script;
static char *script_comms;	/* saved_cmdlines text */

struct opts {
	const char *formats;
	const char *out;
	const char *expect;
	int version;
	const char *compress;
	const char *clock;	/* local, x86-tsc, tsc2nsec */
	const char *date;	/* -D: trace-cmd record --date's offset, us (hex or decimal), or NULL */
	uint64_t at;		/* -A: added to every event's time (the clock's start), 0: none */
	const char *isa;	/* vmx, svm, mixed */
	int vms;
	int vcpus;
	long long exits;	/* per vCPU */
	int cpus;
	unsigned int seed;
	bool cut;
	bool lost;
	bool others;
	bool objects;		/* -O: each exit's companion event, where the layout has it */
	const char *comm_fmt;	/* thread names */
	const char *script;	/* -S */
	uint64_t kaslr;		/* -K: the guest kernel's KASLR offset */
	const char *kallsyms;	/* -k: write the guest's kallsyms (running addresses) */
	const char *sysmap;	/* -M: write its System.map (link-time addresses) */
	bool unique;		/* -U: every exit at a guest IP never seen before */
	uint64_t step;		/* -d: kvmtop's interval in ns; the expected figures of each */
	bool sched;		/* -w: sched_switch and sched_waking of the vCPU threads */
	int thieves;		/* -T N: host tasks hog-0 .. hog-N-1 run while vCPUs wait */
	bool wide;		/* -R: twenty VMX reasons in equal parts */
	const char *ps;		/* -P: write the host's ps -eLo tid=,pid=,args= snapshot */
	bool born;		/* -B: vCPU threads born and gone inside the recording */
};

static struct tep_handle *tep;
static struct tep_event *ev_fmt[G_NR];
static struct gev *evs;
static size_t nr_evs, alloc_evs;

static void __attribute__((format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kvmgen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		die("cannot read %s", path);
	buf[n] = '\0';
	fclose(f);
	*len = n;
	return buf;
}

static bool file_exists(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.format", dir, name);
	return access(path, R_OK) == 0;
}

static void load_formats(const char *dir, bool sched, bool born)
{
	int k;

	if (file_exists(dir, "kvm_guest_exit")) {
		garch = A_PPC;
		gk_event[G_EXIT] = "kvm_guest_exit";
		gk_event[G_ENTRY] = "kvm_guest_enter";
		gk_system[G_EXIT] = gk_system[G_ENTRY] = "kvm_hv";
	} else if (file_exists(dir, "kvm_s390_sie_exit")) {
		garch = A_S390;
		gk_event[G_EXIT] = "kvm_s390_sie_exit";
		gk_event[G_ENTRY] = "kvm_s390_sie_enter";
	} else if (file_exists(dir, "kvm_reenter")) {
		garch = A_LOONG;
		gk_event[G_ENTRY] = "kvm_reenter";
		gk_event[G_ENTRY2] = "kvm_enter";
	}

	tep = tep_alloc();
	tep_set_loglevel(TEP_LOG_NONE);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, PAGE_SIZE);
	for (k = 0; k < G_NR; k++) {
		char path[4096];
		size_t len;
		char *buf;

		if (k == G_NEWTASK && (!born || !file_exists(dir, gk_event[k])))
			continue;	/* -B's, where the layout has it */
		if ((k >= G_SWITCH && k != G_NEWTASK && !sched) || !gk_event[k])
			continue;
		snprintf(path, sizeof(path), "%s/%s.format", dir, gk_event[k]);
		buf = read_file(path, &len);
		if (!buf) {
			if (k <= G_ENTRY || (k >= G_SWITCH && k != G_NEWTASK))
				die("no format file %s", path);
			continue;
		}
		if (tep_parse_event(tep, buf, len, gk_system[k]) &&
		    !tep_find_event_by_name(tep, gk_system[k], gk_event[k]))
			die("cannot parse %s", path);
		ev_fmt[k] = tep_find_event_by_name(tep, gk_system[k], gk_event[k]);
		free(buf);
	}
	if (garch == A_X86 && tep_find_field(ev_fmt[G_EXIT], "vcpu_pc"))
		garch = A_ARM;
	if (garch == A_X86 && tep_find_field(ev_fmt[G_EXIT], "scause"))
		garch = A_RISCV;
}

/* --- the scenario --- */

static uint32_t rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static void push(const struct gev *e)
{
	if (nr_evs == alloc_evs) {
		alloc_evs = alloc_evs ? alloc_evs * 2 : 1 << 16;
		evs = realloc(evs, alloc_evs * sizeof(*evs));
		if (!evs)
			die("%s", "out of memory");
	}
	evs[nr_evs] = *e;
	evs[nr_evs].seq = nr_evs;
	if (!script_fields)
		evs[nr_evs].script = -1;
	nr_evs++;
}

/*
 * The guest: a kernel of these functions, 4 KiB apart from the kernel's
 * base, and user space.  A synchronous exit happens at its reason's site
 * (a function, or in user space); an asynchronous one anywhere, the
 * functions weighted 1/(i+1).  Each place has a few distinct IPs, so a
 * vCPU has fewer distinct IPs of each kind than kvmtop's table holds
 * and every count it prints must be exact.
 */
static const char *const gfunc[] = {
	"native_safe_halt", "default_idle_call", "native_write_msr", "native_apic_mem_write",
	"iowrite32", "ioread32", "io_serial_out", "clear_page_erms", "__schedule",
	"do_syscall_64", "copy_user_generic", "memcpy_orig", "_raw_spin_lock", "handle_mm_fault",
	"__do_softirq", "tcp_sendmsg", "ext4_file_write_iter", "filemap_read", "vfs_read",
	"native_queued_spin_lock_slowpath", "smp_call_function_many_cond", "virtqueue_notify",
	"arch_cpu_idle", "pvclock_clocksource_read",
};
#define NR_GFUNC	(int)(sizeof(gfunc) / sizeof(gfunc[0]))
#define ASYNC		-1	/* a mix entry's site: an asynchronous exit */

/* Where the guest's kernel (at link time) and user space are, per arch. */
static uint64_t kbase(void)
{
	switch (garch) {
	case A_ARM: return 0xffff800080000000ull;
	case A_PPC: return 0xc000000000000000ull;
	case A_S390: return 0x100000ull;
	case A_RISCV: return 0xffffffff80000000ull;
	case A_LOONG: return 0x9000000000200000ull;
	default: return 0xffffffff81000000ull;
	}
}

static uint64_t ubase(void)
{
	switch (garch) {
	case A_ARM: return 0x0000aaaad0000000ull;
	case A_PPC: return 0x10000000ull;
	case A_S390: return 0x000002aa00000000ull;
	default: return 0x0000555555554000ull;
	}
}

struct mix {
	uint32_t reason;
	unsigned int weight;
	uint32_t lat_min, lat_span;	/* latency in clock units */
	uint32_t aux;			/* arm: the EC of a TRAP; ppc: ceded; RISC-V: stval;
					 * LoongArch: 1, the exit goes out to user space */
	int site;			/* gfunc index of a synchronous exit, or ASYNC */
};

/* A workload like the real hosts': APIC writes, EPT, HLT with long waits. */
static const struct mix vmx_mix[] = {
	{ 56, 40, 150, 2000, 0, 3 },		/* APIC_WRITE */
	{ 49, 15, 400, 5000, 0, 4 },		/* EPT_MISCONFIG */
	{ 12, 15, 300, 3000000, 0, 0 },	/* HLT */
	{ 32, 10, 120, 3000, 0, 2 },		/* MSR_WRITE */
	{ 30, 8, 1000, 50000, 0, 6 },		/* IO_INSTRUCTION */
	{ 1, 5, 1100, 80000, 0, ASYNC },		/* EXTERNAL_INTERRUPT */
	{ 48, 4, 380, 6000, 0, 7 },		/* EPT_VIOLATION */
	{ 0x80000021, 1, 500, 100, 0, 8 },	/* INVALID_STATE | FAILED_VMENTRY */
	{ 0xbeef, 1, 100, 100, 0, 9 },	/* a code no table names */
};

static const struct mix svm_mix[] = {
	{ 0x07c, 30, 150, 3000, 0, 2 },	/* msr */
	{ 0x400, 25, 400, 6000, 0, 7 },	/* npf */
	{ 0x078, 15, 300, 3000000, 0, 0 },	/* hlt */
	{ 0x07b, 10, 1000, 50000, 0, 6 },	/* io */
	{ 0x060, 10, 1100, 80000, 0, ASYNC },	/* interrupt */
	{ 0x064, 8, 200, 2000, 0, ASYNC },	/* vintr */
	{ 0xbeef, 2, 100, 100, 0, 9 },	/* a code no table names */
};

/* arm64: exception type (0 IRQ, 1 SERROR, 2 TRAP, 3 ILLEGAL) and, for a TRAP, the EC */
static const struct mix arm_mix[] = {
	{ 2, 25, 150, 2000, 0x18, 2 },	/* TRAP/SYS64 */
	{ 2, 20, 400, 8000, 0x24, 4 },	/* TRAP/DABT_LOW */
	{ 2, 15, 300, 3000000, 0x01, 22 },	/* TRAP/WFx */
	{ 0, 20, 1000, 50000, 0, ASYNC },	/* IRQ */
	{ 2, 10, 200, 3000, 0x16, 21 },	/* TRAP/HVC64 */
	{ 2, 5, 300, 4000, 0x20, 13 },	/* TRAP/IABT_LOW */
	{ 1, 1, 500, 100, 0, ASYNC },		/* SERROR */
	{ 3, 1, 500, 100, 0, 8 },		/* ILLEGAL */
	{ 2, 1, 100, 100, 0x3d, 9 },	/* an EC no table names */
};

/* powerpc HV: trap vector, and ceded */
static const struct mix ppc_mix[] = {
	{ 0x980, 20, 1000, 20000, 0, ASYNC },		/* HV_DECREMENTER */
	{ 0x500, 10, 800, 10000, 0, ASYNC },		/* EXTERNAL */
	{ 0xe00, 20, 500, 8000, 0, 13 },		/* H_DATA_STORAGE */
	{ 0xc00, 20, 200, 3000, 0, 21 },		/* SYSCALL (hcall) */
	{ 0xc00, 15, 300, 3000000, 1, 0 },		/* SYSCALL, ceded: H_CEDE */
	{ 0xe40, 10, 300, 5000, 0, 5 },		/* H_EMUL_ASSIST */
	{ 0x1234, 2, 100, 100, 0, 9 },		/* a trap no table names */
};

/* s390: intercept codes */
static const struct mix s390_mix[] = {
	{ 0x04, 30, 200, 4000, 0, 2 },		/* Instruction */
	{ 0x1c, 15, 300, 3000000, 0, 0 },		/* Wait state */
	{ 0x14, 15, 800, 10000, 0, ASYNC },		/* External interruption */
	{ 0x00, 15, 500, 5000, 0, ASYNC },		/* Host interruption (not in the event's table) */
	{ 0x08, 10, 400, 6000, 0, 13 },		/* Program interruption */
	{ 0x40, 10, 1000, 40000, 0, 6 },		/* I/O instruction (not in the event's table) */
	{ 0x99, 2, 100, 100, 0, 9 },		/* a code no table names */
};

/* RISC-V: scause (kvmtop's code, RV_IRQ for an interrupt) and stval */
static const struct mix riscv_mix[] = {
	{ RV_VIRT_INSN, 15, 300, 3000000, RV_WFI, 0 },	/* VIRTUAL_INST_FAULT of WFI: waits */
	{ RV_VIRT_INSN, 10, 150, 2000, 0xc0102573, 2 },	/* VIRTUAL_INST_FAULT of a CSR read */
	{ 23, 20, 400, 8000, 0, 4 },			/* STORE_GUEST_PAGE_FAULT */
	{ 21, 10, 400, 8000, 0, 5 },			/* LOAD_GUEST_PAGE_FAULT */
	{ 10, 15, 200, 3000, 0, 21 },			/* SUPERVISOR_SYSCALL (SBI) */
	{ RV_IRQ | 5, 15, 1000, 50000, 0, ASYNC },	/* IRQ_S_TIMER */
	{ RV_IRQ | 9, 8, 800, 20000, 0, ASYNC },	/* IRQ_S_EXT */
	{ RV_IRQ | 12, 3, 500, 5000, 0, ASYNC },	/* IRQ_S_GEXT */
	{ RV_IRQ | 0x20, 1, 100, 100, 0, ASYNC },	/* an interrupt no table names */
	{ 31, 1, 100, 100, 0, 9 },			/* an exception no table names */
};

/* LoongArch: ESTAT's exception code; aux 1: handled in user space (ends at kvm_enter) */
static const struct mix loong_mix[] = {
	{ 22, 30, 150, 3000, 0, 2 },		/* GSPR (CPUCFG, CSR) */
	{ 22, 10, 300, 3000000, 0, 0 },		/* GSPR (IDLE: it sleeps, not told apart) */
	{ 2, 15, 1000, 50000, 1, 6 },		/* TLBS: an MMIO store, in user space */
	{ 1, 10, 400, 8000, 0, 5 },		/* TLBL */
	{ 0, 15, 1000, 50000, 0, ASYNC },	/* INT */
	{ 23, 10, 200, 3000, 0, 21 },		/* HVC */
	{ 15, 5, 300, 2000, 0, 11 },		/* FPDIS */
	{ 40, 1, 100, 100, 0, 9 },		/* a code no table names */
};

/* -R: twenty VMX reasons in equal parts, for a wide table (make bench's metrics) */
static const struct mix wide_mix[] = {
	{ 0, 1, 900, 9000, 0, 3 }, { 1, 1, 1100, 80000, 0, ASYNC }, { 7, 1, 300, 3000, 0, 2 },
	{ 9, 1, 800, 8000, 0, 4 }, { 10, 1, 500, 4000, 0, 2 }, { 12, 1, 300, 3000000, 0, 0 },
	{ 14, 1, 400, 5000, 0, 4 }, { 18, 1, 2000, 20000, 0, 5 }, { 28, 1, 300, 3000, 0, 6 },
	{ 29, 1, 300, 3000, 0, 7 }, { 30, 1, 1000, 50000, 0, 6 }, { 31, 1, 200, 2000, 0, 2 },
	{ 32, 1, 120, 3000, 0, 2 }, { 37, 1, 100, 1000, 0, 3 }, { 40, 1, 200, 2000, 0, 4 },
	{ 48, 1, 380, 6000, 0, 7 }, { 49, 1, 400, 5000, 0, 4 }, { 52, 1, 1000, 10000, 0, ASYNC },
	{ 54, 1, 300, 3000, 0, 5 }, { 56, 1, 150, 2000, 0, 3 },
};

static const struct mix *pick(const struct mix *m, size_t n, unsigned int *seed)
{
	unsigned int total = 0, r;
	size_t i;

	for (i = 0; i < n; i++)
		total += m[i].weight;
	r = rnd(seed) % total;
	for (i = 0; i < n; i++) {
		if (r < m[i].weight)
			return &m[i];
		r -= m[i].weight;
	}
	return &m[0];
}

/* The guest IP of an exit of m, in user space or the kernel; e gets where it is. */
static uint64_t guest_ip(const struct opts *o, const struct mix *m, bool user, uint32_t r,
			 unsigned int *ipseed, struct gev *e)
{
	static uint64_t next_unique;
	uint32_t k = rnd(ipseed) % 4;
	int fn = m->site;

	e->async = m->site == ASYNC;
	if (o->unique) {
		/* past the kernel's functions: no symbol names these */
		e->fn = -1;
		return kbase() + 0x10000000 + 4 * next_unique++;
	}
	if (fn == ASYNC) {
		unsigned int total = 0, w;

		for (fn = 0; fn < NR_GFUNC; fn++)
			total += 1000 / (fn + 1);
		w = r % total;
		for (fn = 0; fn < NR_GFUNC - 1 && w >= 1000u / (fn + 1); fn++)
			w -= 1000 / (fn + 1);
	}
	if (user) {
		e->fn = -1;
		e->off = 0;
		return ubase() + 0x1000 * (uint64_t)(fn % 8 + 1) + 8 * k;
	}
	e->fn = (int8_t)fn;
	e->off = (uint16_t)(8 * (k + 1));
	return kbase() + o->kaslr + 0x1000 * (uint64_t)(fn + 1) + e->off;
}

/* The guest's symbols: kallsyms (running addresses, offset = KASLR) or System.map (offset 0). */
static void write_syms(const char *path, uint64_t offset, bool kallsyms)
{
	uint64_t b = kbase() + offset;
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		die("cannot write %s", path);
	if (kallsyms)
		fprintf(f, "0000000000000000 A fixed_percpu_data\n");
	fprintf(f, "%016" PRIx64 " T _text\n%016" PRIx64 " t startup_64\n", b, b);
	for (i = 0; i < NR_GFUNC; i++)
		fprintf(f, "%016" PRIx64 " %c %s\n", b + 0x1000 * (uint64_t)(i + 1), i % 2 ? 't' : 'T',
			gfunc[i]);
	fprintf(f, "%016" PRIx64 " T _etext\n", b + 0x1000 * (uint64_t)(NR_GFUNC + 1));
	fprintf(f, "%016" PRIx64 " D init_task\n", b + 0x1000 * (uint64_t)(NR_GFUNC + 2));
	if (kallsyms)
		fprintf(f, "%016" PRIx64 " t vring_interrupt\t[virtio_ring]\n", b + 0x3f000000);
	fclose(f);
}

#define THIEF_TID	500	/* -T: hog-K is thread 500 + K, its own process */

static void push_sched(enum gkind kind, uint64_t t, int cpu, int tid, uint32_t other, uint32_t state)
{
	struct gev e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.t = t;
	e.cpu = cpu;
	e.tid = tid;
	e.reason = other;
	e.aux = state;
	push(&e);
}

/*
 * -w: where the vCPU thread goes inside an exit of latency lat at t.  An
 * exit that waits (HLT, WFI, cede: the long ones) sleeps: switched out
 * sleeping (S), woken, runnable until switched in.  One other exit in
 * four is preempted: switched out runnable (R), back later.  Both happen
 * in the first half of the exit, before a userspace exit (-x) at uexit
 * (t + lat/2); after it, the VMM is preempted in one exit in two.  The
 * CPU runs the idle task (pid 0) meanwhile.
 */
static int gen_thieves;	/* -T */

/* -T: the host task that takes a CPU from a vCPU thread, else the idle task (0) */
static int thief(unsigned int *seed)
{
	return gen_thieves ? THIEF_TID + (int)(rnd(seed) % gen_thieves) : 0;
}

/*
 * tid, switched out of cpu at a (runnable with state 0 or R+, asleep with
 * S), back at b: the CPU runs a thief meanwhile, with -T now and then two
 * in turn (a switch between them half-way, as a full recording has it).
 */
static void away(uint64_t a, uint64_t b, int cpu, int tid, uint32_t state, unsigned int *seed)
{
	int x = thief(seed), y = x;

	push_sched(G_SWITCH, a, cpu, tid, x, state);
	if (gen_thieves > 1 && rnd(seed) % 2) {
		y = thief(seed);
		if (y != x)
			push_sched(G_SWITCH, a + (b - a) / 2, cpu, x, y, 0);
		else
			y = x;
	}
	push_sched(G_SWITCH, b, cpu, y, tid, 0);
}

static void sched_in_exit(const struct mix *m, uint64_t t, uint64_t lat, int cpu, int tid,
			  uint64_t uexit, unsigned int *seed)
{
	uint64_t out = t + 1 + lat / 20;

	if (lat < 40)
		return;
	/* one exit to user space in two is preempted there: it resumes in the VMM */
	if (uexit && rnd(seed) % 2)
		away(uexit + lat / 8, uexit + lat / 4, cpu, tid, 0, seed);
	if (m->lat_span >= 1000000) {
		int x = thief(seed);

		push_sched(G_SWITCH, out, cpu, tid, x, 1);		/* prev_state S */
		push_sched(G_WAKING, out + lat / 2, cpu, 0, tid, 0);
		push_sched(G_SWITCH, out + lat / 2 + lat / 10, cpu, x, tid, 0);
	} else if (rnd(seed) % 4 == 0) {
		/* a preempted task: R, with the kernel's preempt marker (R+) half the time */
		away(out, out + lat / 4, cpu, tid, rnd(seed) % 2 ? 0x100 : 0, seed);
	}
}

/*
 * -O on arm64: the companion of TRAP e, where the layout has it: a
 * system register of SYS64 (CNTV_CTL_EL0, ICC_SGI1R_EL1, CNTVCT_EL0; a
 * byte each in msr, written when aux is 1), an HVC64's function id
 * (PSCI_CPU_ON64, SMCCC_ARCH_FEATURES, KVM_PTP), WFI or WFE, or a
 * DABT_LOW's IPA (QEMU virt's UART, virtio-mmio, GIC distributor).
 */
static void push_arm_object(const struct gev *e, uint64_t lat, unsigned int *seed)
{
	static const uint64_t sysreg[] = { 0x3030e0301ull, 0x3000c0b05ull, 0x3030e0002ull };
	static const uint64_t fn[] = { 0xc4000003, 0x80000001, 0x86000001 };
	static const uint64_t ipa[] = { 0x09000000, 0x0a000e50, 0x08000100 };
	struct gev c = *e;
	uint32_t r = rnd(seed);

	if (e->reason != 2)	/* TRAP */
		return;
	c.kind = e->aux == 0x18 ? G_SYSREG : e->aux == 0x16 ? G_HVC : e->aux == 0x01 ? G_WFX :
		 e->aux == 0x24 ? G_MMIO : G_NR;
	if (c.kind == G_NR || !ev_fmt[c.kind])
		return;
	c.msr = c.kind == G_SYSREG ? sysreg[r % 3] : c.kind == G_HVC ? fn[r % 3] : ipa[r % 3];
	c.aux = r / 3 % 2;
	c.t = e->t + 1 + lat / 4;
	push(&c);
}

/*
 * -O: the companion event KVM writes inside VMX exit e of reason code
 * (its object one of a few: APIC registers, MMIO pages, MSRs, ports),
 * where the layout has its format.  The model's truth does not change:
 * companions are other events.
 */
static void push_object(struct gev *e, uint32_t code, uint64_t lat, unsigned int *seed)
{
	static const uint32_t apic[] = { 0xb0, 0x300, 0x380 }, msr[] = { 0x6e0, 0x830, 0x80b };
	static const uint64_t gpa[] = { 0xfee000b0, 0xfed000f0, 0xfebf1000, 0xfec00010 };
	struct gev c = *e;
	uint32_t r = rnd(seed);

	if (garch == A_ARM) {
		push_arm_object(e, lat, seed);
		return;
	}
	c.kind = code == 56 ? G_APIC : code == 49 ? G_MMIO : code == 32 ? G_MSR : code == 30 ? G_PIO : G_NR;
	if (c.kind == G_NR || !ev_fmt[c.kind])
		return;
	c.aux = c.kind == G_APIC ? apic[r % 3] : msr[r % 3];
	c.msr = gpa[r % 4];
	c.t = e->t + 1 + lat / 4;
	push(&c);
}

/*
 * -B: each vCPU thread is made (task_newtask, by its VMM's main thread,
 * pid 1000+100v+99, CLONE_THREAD) 400 us before its first exit, and
 * with -w woken 300 us before it and switched in 50 us before it: 250 us
 * runnable, waiting for a CPU, before kvmtop knows it as a vCPU.  -P's
 * snapshot, taken at the end, lists none of them: they are gone.
 */
#define BORN_NEWTASK	400000
#define BORN_WAKING	300000
#define BORN_SWITCH	50000
#define CLONE_THREAD_VMM	0x3d0f00ull	/* glibc's pthread_create: VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|... */

static void born_thread(const struct opts *o, int vm, int tid, int cpu, uint64_t first)
{
	struct gev e;

	memset(&e, 0, sizeof(e));
	e.kind = G_NEWTASK;
	e.t = first - BORN_NEWTASK;
	e.cpu = cpu;
	e.tid = 1000 + vm * 100 + 99;
	e.reason = (uint32_t)tid;
	e.msr = CLONE_THREAD_VMM;
	push(&e);
	if (!o->sched)
		return;
	push_sched(G_WAKING, first - BORN_WAKING, cpu, 0, tid, 0);
	push_sched(G_SWITCH, first - BORN_SWITCH, cpu, 0, tid, 0);
}

static void scenario(const struct opts *o)
{
	unsigned int seed = o->seed, ipseed = o->seed * 7919u + 1;
	int vm, k;

	for (vm = 0; vm < o->vms; vm++) {
		for (k = 0; k < o->vcpus; k++) {
			int tid = 1000 + vm * 100 + k;
			bool svm = !strcmp(o->isa, "svm") || (!strcmp(o->isa, "mixed") && vm % 2);
			const struct mix *mx = svm ? svm_mix : vmx_mix;
			size_t nmx = svm ? sizeof(svm_mix) / sizeof(svm_mix[0]) :
					   sizeof(vmx_mix) / sizeof(vmx_mix[0]);
			uint32_t last_ec = 0x16;

			if (o->wide && garch == A_X86 && !svm) {
				mx = wide_mix;
				nmx = sizeof(wide_mix) / sizeof(wide_mix[0]);
			}
			if (garch == A_ARM) {
				mx = arm_mix;
				nmx = sizeof(arm_mix) / sizeof(arm_mix[0]);
			} else if (garch == A_PPC) {
				mx = ppc_mix;
				nmx = sizeof(ppc_mix) / sizeof(ppc_mix[0]);
			} else if (garch == A_S390) {
				mx = s390_mix;
				nmx = sizeof(s390_mix) / sizeof(s390_mix[0]);
			} else if (garch == A_RISCV) {
				mx = riscv_mix;
				nmx = sizeof(riscv_mix) / sizeof(riscv_mix[0]);
			} else if (garch == A_LOONG) {
				mx = loong_mix;
				nmx = sizeof(loong_mix) / sizeof(loong_mix[0]);
			}
			int cpu = (vm * o->vcpus + k) % o->cpus;
			uint64_t t = 1000000 + rnd(&seed) % 100000;
			long long i;
			struct gev e;
			uint32_t ipr;
			bool user;

			if (o->born)
				born_thread(o, vm, tid, cpu, t);

			/* a cut recording starts inside an exit: an entry with no exit */
			if (o->cut) {
				memset(&e, 0, sizeof(e));
				e.kind = G_ENTRY;
				e.t = t;
				e.cpu = cpu;
				e.tid = tid;
				e.vcpu = k;
				e.rip = 0xffffffff81000000ull;
				push(&e);
				t += 1000;
			}
			for (i = 0; i < o->exits; i++) {
				const struct mix *m = pick(mx, nmx, &seed);
				uint64_t lat = m->lat_min + rnd(&seed) % m->lat_span;
				/* out to user space: x86's port I/O, LoongArch's marked exits */
				bool to_user = garch == A_LOONG ? m->aux == 1 :
					       m->reason == 30 || m->reason == 0x07b;

				memset(&e, 0, sizeof(e));
				e.kind = G_EXIT;
				e.t = t;
				e.cpu = cpu;
				e.tid = tid;
				e.vcpu = k;
				e.reason = m->reason;
				e.isa = svm ? 2 : 1;
				ipr = rnd(&seed);
				e.aux = m->aux;
				if (garch == A_ARM) {
					/* arm 4.x writes the last trap's EC into a non-trap exit */
					if (m->reason == 2)
						last_ec = m->aux;
					else
						e.aux = last_ec;
				}
				/* one exit in four from guest user mode (MSR PR, PSW problem state) */
				user = rnd(&seed) % 4 == 0;
				e.msr = user ? (garch == A_S390 ? 0x0705000180000000ull : 0x800000000000d033ull) :
					       (garch == A_S390 ? 0x0704000180000000ull : 0x8000000000009033ull);
				e.rip = guest_ip(o, m, user, ipr, &ipseed, &e);
				push(&e);
				if (o->objects)
					push_object(&e, m->reason, lat, &seed);
				if (o->others && to_user) {
					/* port I/O (or MMIO) handled in user space, inside the exit */
					e.kind = G_PIO;
					e.t = t + 1 + lat / 4;
					if (ev_fmt[G_PIO])
						push(&e);
					e.kind = G_UEXIT;
					e.reason = garch == A_LOONG ? 6 : 2;	/* KVM_EXIT_MMIO, KVM_EXIT_IO */
					e.t = t + 2 + lat / 2;
					push(&e);
				}
				if (o->sched)
					sched_in_exit(m, t, lat, cpu, tid,
						      o->others && to_user ? t + 2 + lat / 2 : 0, &seed);
				/* vCPUs migrate: now and then the entry is on another CPU */
				if (o->cpus > 1 && rnd(&seed) % 10 == 0)
					cpu = (cpu + 1 + rnd(&seed) % (o->cpus - 1)) % o->cpus;
				/* now and then an exit is followed by another exit */
				if (rnd(&seed) % 100 == 0) {
					t += lat + 10;
					continue;
				}
				/* a cut recording ends inside the last exits */
				if (o->cut && i == o->exits - 1)
					break;
				e.kind = garch == A_LOONG && to_user ? G_ENTRY2 : G_ENTRY;
				e.t = t + 3 + lat;
				e.cpu = cpu;
				e.reason = 0;
				push(&e);
				t += 3 + lat + 200 + rnd(&seed) % 20000;
			}
		}
	}
}

static void read_script(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t comm_len = 0;
	int lineno = 0;

	if (!f)
		die("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		char kind[16], *p, *tok;
		int k;
		struct script_ev *s;
		unsigned long long t;
		int cpu, tid, used;
		struct gev e;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!strncmp(line, "comm ", 5)) {
			size_t n = strlen(line + 5);

			script_comms = realloc(script_comms, comm_len + n + 1);
			if (!script_comms)
				die("%s", "out of memory");
			memcpy(script_comms + comm_len, line + 5, n + 1);
			comm_len += n;
			continue;
		}
		k = G_NR;
		if (sscanf(line, "%llu %d %d %15s %n", &t, &cpu, &tid, kind, &used) == 4)
			for (k = 0; k < G_NR && strcmp(kind, gk_script[k]); k++)
				;
		if (k == G_NR || cpu < 0 || cpu > 255)
			die("%s:%d: want TIME CPU TID exit|entry|pio|uexit|mmio|msr|apic|hypercall|"
			    "hv_hypercall|cr|cpuid|hcall|insn|diag|gspr|la_idle|la_cache|sys_access|hvc|wfx|"
			    "switch|waking FIELD=VALUE...", path, lineno);
		if (k < G_SWITCH && !ev_fmt[k])
			die("%s:%d: the layout has no format for %s", path, lineno, kind);
		if (k == G_SWITCH || k == G_WAKING) {
			if (!ev_fmt[G_SWITCH])
				die("%s:%d: %s needs -w (the sched formats)", path, lineno, kind);
		}
		if (nr_script == alloc_script) {
			alloc_script = alloc_script ? alloc_script * 2 : 64;
			script_fields = realloc(script_fields, alloc_script * sizeof(*script_fields));
			if (!script_fields)
				die("%s", "out of memory");
		}
		s = &script_fields[nr_script];
		memset(s, 0, sizeof(*s));
		for (p = line + used; (tok = strtok(p, " \t\n")); p = NULL) {
			char *eq = strchr(tok, '=');

			if (!eq || s->nr == SCRIPT_FIELDS || eq - tok >= 32)
				die("%s:%d: bad field '%s'", path, lineno, tok);
			memcpy(s->name[s->nr], tok, eq - tok);
			s->v[s->nr++] = strtoull(eq + 1, NULL, 0);
		}
		memset(&e, 0, sizeof(e));
		e.kind = (uint8_t)k;
		e.t = t;
		e.cpu = cpu;
		e.tid = tid;
		e.script = (int32_t)nr_script++;
		push(&e);
	}
	fclose(f);
}

static int cmp_time(const void *a, const void *b)
{
	const struct gev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Distinct, increasing timestamps: the order of the file is the order of truth. */
static void settle_times(void)
{
	size_t i;

	qsort(evs, nr_evs, sizeof(*evs), cmp_time);
	for (i = 1; i < nr_evs; i++)
		if (evs[i].t <= evs[i - 1].t)
			evs[i].t = evs[i - 1].t + 1;
}

/* --- writing ring-buffer pages --- */

struct cpu_out {
	FILE *f;
	unsigned char page[PAGE_SIZE];
	size_t used;		/* bytes of data after the header */
	uint64_t page_ts;
	uint64_t last_ts;
	bool open;
	uint64_t missed;	/* events lost before this page */
};

static void put_u32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static void page_flush(struct cpu_out *c)
{
	uint64_t commit = c->used;

	if (!c->open)
		return;
	if (c->missed) {
		/* RB_MISSED_EVENTS | RB_MISSED_STORED, the count after the data */
		commit |= 1ull << 31 | 1ull << 30;
		put_u64(c->page + PAGE_HDR + c->used, c->missed);
		c->missed = 0;
	}
	put_u64(c->page, c->page_ts);
	put_u64(c->page + 8, commit);
	if (fwrite(c->page, PAGE_SIZE, 1, c->f) != 1)
		die("%s", "write failed");
	c->open = false;
}

static void set_field(unsigned char *data, struct tep_event *e, const char *name, uint64_t v)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f)
		f = tep_find_common_field(e, name);
	if (!f)
		return;
	switch (f->size) {
	case 1: data[f->offset] = v; break;
	case 2: { uint16_t x = v; memcpy(data + f->offset, &x, 2); break; }
	case 4: { uint32_t x = v; memcpy(data + f->offset, &x, 4); break; }
	case 8: memcpy(data + f->offset, &v, 8); break;
	}
}

/* A string field (a char array): str, NUL-padded, cut to the field. */
static void set_str(unsigned char *data, struct tep_event *e, const char *name, const char *str)
{
	struct tep_format_field *f = tep_find_field(e, name);
	size_t n;

	if (!f || f->size <= 0)
		return;
	n = strlen(str) < (size_t)f->size - 1 ? strlen(str) : (size_t)f->size - 1;
	memset(data + f->offset, 0, f->size);
	memcpy(data + f->offset, str, n);
}

static const char *gen_comm_fmt = "qemu";	/* -N */

/* The name the kernel gives thread tid (on cpu, for the idle task), as saved_cmdlines lists it. */
static void tid_comm(int tid, int cpu, char *buf, size_t len)
{
	if (tid == 0)
		snprintf(buf, len, "swapper/%d", cpu);
	else if (tid >= THIEF_TID && tid < THIEF_TID + 100)
		snprintf(buf, len, "hog-%d", tid - THIEF_TID);
	else if (tid >= 1000 && !strcmp(gen_comm_fmt, "kvmtool"))
		snprintf(buf, len, "kvm-vcpu-%d", (tid - 1000) % 100);
	else if (tid >= 1000 && !strcmp(gen_comm_fmt, "none"))
		snprintf(buf, len, "qemu-system-x86");
	else if (tid >= 1000)
		snprintf(buf, len, "CPU %d/KVM", (tid - 1000) % 100);
	else
		buf[0] = '\0';
}

static size_t event_size(struct tep_event *e)
{
	struct tep_format_field *f;
	size_t max = 8;

	for (f = e->format.fields; f; f = f->next) {
		if ((size_t)(f->offset + f->size) > max)
			max = f->offset + f->size;
	}
	return (max + 3) & ~3ul;
}

static void encode(const struct gev *g, unsigned char *data, size_t *len)
{
	struct tep_event *e = ev_fmt[g->kind];
	size_t n = event_size(e);
	uint32_t isa = 0;

	memset(data, 0, n);
	set_field(data, e, "common_type", e->id);
	set_field(data, e, "common_pid", g->tid);
	if (g->script >= 0) {
		const struct script_ev *s = &script_fields[g->script];
		int i;

		for (i = 0; i < s->nr; i++)
			set_field(data, e, s->name[i], s->v[i]);
		*len = n;
		return;
	}
	switch (g->kind) {
	case G_EXIT:
		switch (garch) {
		case A_X86:
			isa = g->isa;
			set_field(data, e, "exit_reason", g->reason);
			set_field(data, e, "guest_rip", g->rip);
			set_field(data, e, "isa", isa);
			set_field(data, e, "vcpu_id", g->vcpu);
			set_field(data, e, "info1", 0x1234);
			break;
		case A_ARM:
			set_field(data, e, "ret", g->reason);
			set_field(data, e, "esr_ec", g->reason == 2 ? g->aux : 0);
			set_field(data, e, "idx", g->reason);
			set_field(data, e, "exit_reason", g->aux);
			set_field(data, e, "vcpu_pc", g->rip);
			break;
		case A_PPC:
			set_field(data, e, "vcpu_id", g->vcpu);
			set_field(data, e, "trap", g->reason);
			set_field(data, e, "pc", g->rip);
			set_field(data, e, "msr", g->msr);
			set_field(data, e, "ceded", g->aux);
			break;
		case A_S390:
			set_field(data, e, "id", g->vcpu);
			set_field(data, e, "icptcode", g->reason);
			set_field(data, e, "pswaddr", g->rip);
			set_field(data, e, "pswmask", g->msr);
			break;
		case A_RISCV:
			/* a 64-bit host's scause: the interrupt bit is bit 63 */
			set_field(data, e, "sepc", g->rip);
			set_field(data, e, "scause", (g->reason & RV_IRQ ? 1ull << 63 : 0) |
				  (g->reason & ~RV_IRQ));
			set_field(data, e, "stval", g->aux);
			set_field(data, e, "htval", 0);
			set_field(data, e, "htinst", 0);
			break;
		case A_LOONG:
			set_field(data, e, "pc", g->rip);
			set_field(data, e, "reason", g->reason);
			break;
		}
		break;
	case G_ENTRY2:
	case G_ENTRY:
		set_field(data, e, garch == A_S390 ? "id" : "vcpu_id", g->vcpu);
		set_field(data, e, "rip", g->rip);
		set_field(data, e, "vcpu_pc", g->rip);
		set_field(data, e, "pc", g->rip);
		set_field(data, e, "pswaddr", g->rip);
		break;
	case G_MSR:
		set_field(data, e, "write", 1);
		set_field(data, e, "ecx", g->aux);
		break;
	case G_APIC:
		set_field(data, e, "rw", 1);
		set_field(data, e, "reg", g->aux);
		break;
	case G_SYSREG:
		set_field(data, e, "vcpu_pc", g->rip);
		set_field(data, e, "is_write", g->aux);
		set_field(data, e, "Op0", g->msr >> 32 & 0xff);
		set_field(data, e, "Op1", g->msr >> 24 & 0xff);
		set_field(data, e, "CRn", g->msr >> 16 & 0xff);
		set_field(data, e, "CRm", g->msr >> 8 & 0xff);
		set_field(data, e, "Op2", g->msr & 0xff);
		break;
	case G_HVC:
		set_field(data, e, "vcpu_pc", g->rip);
		set_field(data, e, "r0", g->msr);
		break;
	case G_WFX:
		set_field(data, e, "vcpu_pc", g->rip);
		set_field(data, e, "is_wfe", g->aux);
		break;
	case G_MMIO:
		set_field(data, e, "type", 2);
		set_field(data, e, "len", 4);
		set_field(data, e, "gpa", g->msr);
		break;
	case G_PIO:
		set_field(data, e, "rw", 1);
		set_field(data, e, "port", 0x3f8);
		set_field(data, e, "size", 1);
		set_field(data, e, "count", 1);
		break;
	case G_UEXIT:
		set_field(data, e, "reason", g->reason);
		break;
	case G_SWITCH: {
		char comm[32];

		set_field(data, e, "prev_pid", g->tid);
		set_field(data, e, "prev_prio", 120);
		set_field(data, e, "prev_state", g->aux);
		set_field(data, e, "next_pid", g->reason);
		set_field(data, e, "next_prio", 120);
		if (g->script < 0) {
			tid_comm(g->tid, g->cpu, comm, sizeof(comm));
			set_str(data, e, "prev_comm", comm);
			tid_comm((int)g->reason, g->cpu, comm, sizeof(comm));
			set_str(data, e, "next_comm", comm);
		}
		break;
	}
	case G_WAKING:
		set_field(data, e, "pid", g->reason);
		set_field(data, e, "prio", 120);
		set_field(data, e, "target_cpu", g->cpu);
		break;
	case G_NEWTASK:
		/* the new thread has its creator's name until it names itself */
		set_field(data, e, "pid", g->reason);
		set_str(data, e, "comm", "qemu-system-x86");
		set_field(data, e, "clone_flags", g->msr);
		break;
	}
	*len = n;
}

static void write_event(struct cpu_out *c, const struct gev *g)
{
	unsigned char data[256];
	size_t len, need;
	uint64_t delta;

	encode(g, data, &len);
	if (len > 28 * 4)
		die("%s: event too large for a small record", gk_event[g->kind]);
	need = 4 + len;
	delta = c->open ? g->t - c->last_ts : 0;
	if (delta >= (1u << TS_BITS))
		need += 8;
	/* room for the record and, at the end, a missed-events count */
	if (c->open && PAGE_HDR + c->used + need + 8 > PAGE_SIZE)
		page_flush(c);
	if (g->lost_before && !c->open)
		c->missed += g->lost_before;
	if (!c->open) {
		c->open = true;
		c->used = 0;
		c->page_ts = g->t;
		c->last_ts = g->t;
		memset(c->page, 0, PAGE_SIZE);
		delta = 0;
	}
	if (delta >= (1u << TS_BITS)) {
		/* time extend: low 27 bits in the header, the rest in array[0] */
		put_u32(c->page + PAGE_HDR + c->used,
			TYPE_EXTEND | (uint32_t)(delta & ((1u << TS_BITS) - 1)) << 5);
		put_u32(c->page + PAGE_HDR + c->used + 4, delta >> TS_BITS);
		c->used += 8;
		delta = 0;
	}
	put_u32(c->page + PAGE_HDR + c->used, (uint32_t)(len / 4) | (uint32_t)delta << 5);
	memcpy(c->page + PAGE_HDR + c->used + 4, data, len);
	c->used += 4 + len;
	c->last_ts = g->t;
}

/* --- the tracing directory libtracecmd's writer reads --- */

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static void make_tracing_dir(const char *dir, const struct opts *o)
{
	static const char header_page[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
	static const char header_event[] =
		"# compressed entry header\n"
		"\ttype_len    :    5 bits\n"
		"\ttime_delta  :   27 bits\n"
		"\tarray       :   32 bits\n\n"
		"\tpadding     : type == 29\n"
		"\ttime_extend : type == 30\n"
		"\ttime_stamp : type == 31\n"
		"\tdata max type_len  == 28\n";
	char path[4096], cmd[8192];
	const char *clock;
	FILE *f;
	int k;

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/events/kvm' '%s/events/kvm_hv' '%s/events/ftrace' '%s/events/sched' "
		 "'%s/events/task'", dir, dir, dir, dir, dir);
	if (system(cmd))
		die("cannot create %s", dir);
	write_text(dir, "events/header_page", header_page);
	write_text(dir, "events/header_event", header_event);
	/* libtracecmd 3.1 needs at least one ftrace event in the directory */
	snprintf(path, sizeof(path), "%s/events/ftrace/function", dir);
	mkdir(path, 0755);
	write_text(dir, "events/ftrace/function/format",
		   "name: function\nID: 1\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		   "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		   "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		   "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		   "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n");
	write_text(dir, "printk_formats", "");
	write_text(dir, "kallsyms", "");
	clock = !strcmp(o->clock, "local") ? "[local] global x86-tsc\n" : "local global [x86-tsc]\n";
	write_text(dir, "trace_clock", clock);
	for (k = 0; k < G_NR; k++) {
		char src[4096];
		size_t len;
		char *buf;

		if (!ev_fmt[k])
			continue;
		snprintf(src, sizeof(src), "%s/%s.format", o->formats, gk_event[k]);
		buf = read_file(src, &len);
		snprintf(path, sizeof(path), "%s/events/%s/%s", dir, gk_system[k], gk_event[k]);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "events/%s/%s/format", gk_system[k], gk_event[k]);
		write_text(dir, path, buf);
		free(buf);
	}
	/* thread names, as the kernel's saved_cmdlines lists them */
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s", path);
	if (o->script) {
		fputs(script_comms ? script_comms : "", f);
	} else {
		int vm, kk;

		for (vm = 0; vm < o->vms; vm++)
			for (kk = 0; kk < o->vcpus; kk++) {
				fprintf(f, "%d ", 1000 + vm * 100 + kk);
				if (!strcmp(o->comm_fmt, "kvmtool"))
					fprintf(f, "kvm-vcpu-%d\n", kk);
				else if (!strcmp(o->comm_fmt, "none"))
					fprintf(f, "qemu-system-x86\n");
				else
					fprintf(f, "CPU %d/KVM\n", kk);
			}
		for (vm = 0; vm < o->thieves; vm++)
			fprintf(f, "%d hog-%d\n", THIEF_TID + vm, vm);
	}
	fclose(f);
}

/* --- the time the reader will see --- */

#define TSC_MULT	2796202u	/* 1 cycle = 0.6667 ns at 1.5 GHz: mult / 2^22 */
#define TSC_SHIFT	22

static uint64_t seen_time(const struct opts *o, uint64_t t)
{
	if (strcmp(o->clock, "tsc2nsec"))
		return t;
	return (uint64_t)(((unsigned __int128)t * TSC_MULT) >> TSC_SHIFT);
}

/* --- expected figures --- */

/* A vCPU thread's time states (-w), in the order of kvmtop's JSON time_s. */
enum { S_GUEST, S_HOST, S_VMM, S_HALT, S_WAIT, S_NR };
static const char *const state_name[S_NR] = { "guest", "host", "vmm", "halt", "wait" };
static bool with_sched;
/* -L: the truth lists every latency of a reason ("values"), for an oracle of its spread */
static bool list_lats;

/* Latencies, every one kept for exact percentiles. */
struct lats {
	uint64_t sum, min, max;
	uint64_t *v;
	size_t n, alloc;
};

/*
 * One reason's exits and exit -> entry latencies; with -w also the split
 * of each: on a CPU (handling), runnable off a CPU (preempted), asleep
 * (blocked).
 */
struct rstat {
	uint32_t isa, code, flags;
	uint64_t count;
	struct lats lat, hand;
	uint64_t preempted, blocked;
};

/* The reasons of one scope (a thread, the host, a thread in one interval). */
struct rset {
	struct rstat *r;
	int nr, alloc;
	uint64_t exits;
	uint64_t tm[S_NR];	/* -w: a thread's time in each state */
};

static struct rstat *rset_get(struct rset *s, uint32_t isa, uint32_t code, uint32_t flags)
{
	int j;

	for (j = 0; j < s->nr; j++)
		if (s->r[j].isa == isa && s->r[j].code == code && s->r[j].flags == flags)
			return &s->r[j];
	if (s->nr == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 16;
		s->r = realloc(s->r, s->alloc * sizeof(*s->r));
		if (!s->r)
			die("%s", "out of memory");
	}
	s->r[s->nr] = (struct rstat){ .isa = isa, .code = code, .flags = flags,
				      .lat.min = UINT64_MAX, .hand.min = UINT64_MAX };
	return &s->r[s->nr++];
}

static void lats_add(struct lats *l, uint64_t v)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 64;
		l->v = realloc(l->v, l->alloc * sizeof(*l->v));
		if (!l->v)
			die("%s", "out of memory");
	}
	l->v[l->n++] = v;
	l->sum += v;
	if (v < l->min)
		l->min = v;
	if (v > l->max)
		l->max = v;
}

/* An exit -> entry pair: its latency and, with -w, its split (acc: time per state). */
static void rstat_lat(struct rstat *r, uint64_t lat, const uint64_t *acc)
{
	lats_add(&r->lat, lat);
	if (!with_sched)
		return;
	lats_add(&r->hand, acc[S_HOST] + acc[S_VMM]);
	r->preempted += acc[S_WAIT];
	r->blocked += acc[S_HALT];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank quantile num/den of the sorted latencies: rank ceil(n * num / den). */
static uint64_t nearest_rank(const struct lats *l, uint64_t num, uint64_t den)
{
	uint64_t rank = (l->n * num + den - 1) / den;

	if (!l->n)
		return 0;
	return l->v[(rank ? rank : 1) - 1];
}

/* "samples", "sum", "min", "max" and the percentiles of l, sorted first; frees them. */
static void lats_print(FILE *f, struct lats *l)
{
	if (l->n)	/* an empty list has no array: qsort() wants one */
		qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	fprintf(f, "\"samples\":%zu,\"sum\":%" PRIu64 ",\"min\":%" PRIu64 ",\"max\":%" PRIu64
		",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64,
		l->n, l->sum, l->n ? l->min : 0, l->max, nearest_rank(l, 1, 2), nearest_rank(l, 9, 10),
		nearest_rank(l, 99, 100), nearest_rank(l, 999, 1000));
	if (list_lats) {
		size_t i;

		fputs(",\"values\":[", f);
		for (i = 0; i < l->n; i++)
			fprintf(f, "%s%" PRIu64, i ? "," : "", l->v[i]);
		fputc(']', f);
	}
	free(l->v);
}

/* -w: a thread's time in each state, in ns, as an object. */
static void states_print(FILE *f, const uint64_t *tm)
{
	int k;

	if (!with_sched)
		return;
	fputs(",\"time\":{", f);
	for (k = 0; k < S_NR; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", state_name[k], tm[k]);
	fputc('}', f);
}

/* A scope's reasons as a JSON list; frees the latencies. */
static void rset_print(FILE *f, struct rset *s)
{
	int j;

	fputc('[', f);
	for (j = 0; j < s->nr; j++) {
		struct rstat *r = &s->r[j];

		fprintf(f, "%s{\"isa\":%u,\"code\":%u,\"flags\":%u,\"count\":%" PRIu64 ",",
			j ? "," : "", r->isa, r->code, r->flags, r->count);
		lats_print(f, &r->lat);
		if (with_sched) {
			fputs(",\"handling\":{", f);
			lats_print(f, &r->hand);
			fprintf(f, "},\"preempted\":%" PRIu64 ",\"blocked\":%" PRIu64, r->preempted,
				r->blocked);
		}
		fputc('}', f);
	}
	fputc(']', f);
	free(s->r);
}

/* A guest IP of one kind (and, for exit sites, one reason) with its count. */
struct ipstat {
	int kind;		/* 0 time sample, 1 exit site */
	uint32_t isa, code, flags;
	uint64_t ip;
	int fn, off;
	uint64_t count;
};

struct thief_ns {
	int tid;
	uint64_t ns;
};

struct tstat {
	int tid, vcpu;
	uint64_t exits, unmatched_exits, unmatched_entries, pio, uexit_io;
	bool pending;
	uint64_t pending_t;
	uint32_t pending_key[3];	/* isa, code, flags of the pending exit */
	int st;				/* -w: its state since then, -1 before its first event */
	int on_cpu;			/* the state it left when switched out: host or vmm */
	uint64_t since;
	uint64_t acc[S_NR];		/* the pending exit's time in each state */
	struct rset rs;
	uint64_t ip_n[2], ip_none;
	struct ipstat *ips;
	size_t nr_ips, alloc_ips;
	/* -w: who ran while it waited for a CPU (the man page's "stolen by") */
	int wait_cpu;			/* the CPU whose queue it waits on, -1: none */
	uint64_t steal_at;		/* its wait is given out up to here */
	struct thief_ns thief[128];
	int nr_thief;
};

static void thief_add(struct tstat *t, int tid, uint64_t ns)
{
	int i;

	if (!ns)
		return;
	for (i = 0; i < t->nr_thief && t->thief[i].tid != tid; i++)
		;
	if (i == t->nr_thief) {
		if (t->nr_thief == 128)
			die("%s", "more than 128 thieves of one thread");
		t->thief[t->nr_thief].tid = tid;
		t->thief[t->nr_thief++].ns = 0;
	}
	t->thief[i].ns += ns;
}

static void count_ip(struct tstat *t, int kind, uint32_t isa, uint32_t code, uint32_t flags,
		     const struct gev *g)
{
	struct ipstat *p;
	size_t i;

	t->ip_n[kind]++;
	if (kind == 0)
		isa = code = flags = 0;
	for (i = 0; i < t->nr_ips; i++) {
		p = &t->ips[i];
		if (p->kind == kind && p->ip == g->rip && p->isa == isa && p->code == code &&
		    p->flags == flags) {
			p->count++;
			return;
		}
	}
	if (t->nr_ips == t->alloc_ips) {
		t->alloc_ips = t->alloc_ips ? t->alloc_ips * 2 : 64;
		t->ips = realloc(t->ips, t->alloc_ips * sizeof(*t->ips));
		if (!t->ips)
			die("%s", "out of memory");
	}
	p = &t->ips[t->nr_ips++];
	*p = (struct ipstat){ kind, isa, code, flags, g->rip, g->fn, g->off, 1 };
}

/*
 * -d STEP: kvmtop's replay intervals, [t0 + i * STEP, t0 + (i + 1) * STEP)
 * from the first event t0, each up to the last event: an exit counts in
 * the interval of its time, an exit -> entry latency in that of the entry.
 */
struct ival {
	struct rset *th;	/* per thread */
};
static struct ival *ivals;
static size_t nr_ivals;

static struct rset *ival_thread(const struct opts *o, uint64_t t0, uint64_t now, int idx)
{
	size_t i = (now - t0) / o->step;

	while (nr_ivals <= i) {
		ivals = realloc(ivals, (nr_ivals + 1) * sizeof(*ivals));
		if (!ivals)
			die("%s", "out of memory");
		ivals[nr_ivals].th = calloc(o->vms * o->vcpus, sizeof(struct rset));
		if (!ivals[nr_ivals++].th)
			die("%s", "out of memory");
	}
	return &ivals[i].th[idx];
}

static int tid_idx(const struct opts *o, int tid)
{
	return (tid - 1000) / 100 * o->vcpus + (tid - 1000) % 100;
}

/* Thread t spent [a, b) in its state: its totals, its intervals', its pending exit's split. */
static void spend(const struct opts *o, uint64_t t0, struct tstat *t, int idx, uint64_t a, uint64_t b)
{
	uint64_t x = a;

	if (!with_sched || b <= a)
		return;
	t->rs.tm[t->st] += b - a;
	if (t->pending)
		t->acc[t->st] += b - a;
	while (o->step && x < b) {
		uint64_t end = t0 + ((x - t0) / o->step + 1) * o->step, y = b < end ? b : end;

		ival_thread(o, t0, x, idx)->tm[t->st] += y - x;
		x = y;
	}
}

/*
 * Thread t's state becomes st at now.  Before its first event it was in
 * the state that event ends (before): in the guest before an exit,
 * asleep before a wakeup ...
 */
static void to_state(const struct opts *o, uint64_t t0, struct tstat *t, int idx, uint64_t now,
		     int before, int st)
{
	if (t->st < 0) {
		t->st = before;
		t->since = t0;
	}
	spend(o, t0, t, idx, t->since, now);
	t->since = now;
	t->st = st;
}

/* Is tid one of the scenario's vCPU threads? */
static bool scenario_tid(const struct opts *o, int tid)
{
	return tid >= 1000 && (tid - 1000) / 100 < o->vms && (tid - 1000) % 100 < o->vcpus;
}

/* Is tid a vCPU thread of the scenario that has had a KVM event (kvmtop knows it as one)? */
static struct tstat *known_vcpu(const struct opts *o, struct tstat *ts, int tid)
{
	if (tid < 1000 || (tid - 1000) / 100 >= o->vms || (tid - 1000) % 100 >= o->vcpus)
		return NULL;
	return ts[tid_idx(o, tid)].tid >= 0 ? &ts[tid_idx(o, tid)] : NULL;
}

/*
 * Stolen time, by the man page's definition: a vCPU thread switched out
 * runnable waits on that CPU's queue, one woken waits on its target CPU's;
 * each switch on a CPU gives every waiter there the time since its last
 * stretch, to prev; a waiter switched in elsewhere gives its last stretch
 * to the thread it takes the CPU from; one whose first event is a switch
 * in waited from the start.  cur[cpu]: the thread running there.
 */
static void steal_switch(const struct opts *o, struct tstat *ts, int *cur, uint64_t t0, uint64_t now,
			 const struct gev *g)
{
	struct tstat *n = known_vcpu(o, ts, (int)g->reason), *p = known_vcpu(o, ts, g->tid);
	int k;

	for (k = 0; k < o->vms * o->vcpus; k++)
		if (ts[k].tid >= 0 && ts[k].wait_cpu == g->cpu) {
			thief_add(&ts[k], g->tid, now - ts[k].steal_at);
			ts[k].steal_at = now;
		}
	if (n) {
		if (n->st < 0)
			thief_add(n, g->tid, now - t0);
		else if (n->wait_cpu >= 0 && n->wait_cpu != g->cpu)
			thief_add(n, g->tid, now - n->steal_at);
		n->wait_cpu = -1;
	}
	cur[g->cpu] = (int)g->reason;
	if (p) {
		p->wait_cpu = g->aux & 0xff ? -1 : g->cpu;
		p->steal_at = now;
	}
}

static void steal_wake(const struct opts *o, struct tstat *ts, uint64_t now, const struct gev *g)
{
	struct tstat *w = known_vcpu(o, ts, (int)g->reason);

	if (w && (w->st < 0 || w->st == S_HALT) && w->wait_cpu < 0) {
		w->wait_cpu = g->cpu;	/* its target_cpu */
		w->steal_at = now;
	}
}

/* most time first, then by tid */
static int thief_cmp(const void *a, const void *b)
{
	const struct thief_ns *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void expect(const struct opts *o, const char *path, uint64_t lost)
{
	struct tstat *ts = calloc(o->vms * o->vcpus, sizeof(*ts));
	uint64_t t0 = 0, last;
	struct rset host = { 0 };
	struct rset *vmrs = calloc(o->vms, sizeof(*vmrs));	/* each VM's: its threads' together */
	bool has_isa = tep_find_field(ev_fmt[G_EXIT], "isa");
	bool has_type = tep_find_field(ev_fmt[G_EXIT], "ret") || tep_find_field(ev_fmt[G_EXIT], "idx");
	bool has_ec = tep_find_field(ev_fmt[G_EXIT], "exit_reason");
	static const char *const ip_field[] = { "guest_rip", "vcpu_pc", "pc", "pswaddr", "sepc", "pc" };
	bool has_ip = tep_find_field(ev_fmt[G_EXIT], ip_field[garch]);
	FILE *f = fopen(path, "w");
	int cur[256];
	size_t i;
	int k, kind;

	if (!ts || !f || !vmrs)
		die("cannot write %s", path);
	/* the start: the first event kvmtop counts (a thread's birth is identity, not counted) */
	for (i = 0; i < nr_evs; i++)
		if (evs[i].kind != G_NEWTASK) {
			t0 = seen_time(o, evs[i].t);
			break;
		}
	last = t0;
	for (i = 0; i < (size_t)(o->vms * o->vcpus); i++) {
		ts[i].tid = -1;
		ts[i].st = -1;
		ts[i].on_cpu = S_HOST;
		ts[i].wait_cpu = -1;
	}
	for (i = 0; i < 256; i++)
		cur[i] = -1;
	for (i = 0; i < nr_evs; i++) {
		const struct gev *g = &evs[i];
		int idx = (g->tid - 1000) / 100 * o->vcpus + (g->tid - 1000) % 100;
		struct tstat *t = &ts[idx];
		uint64_t now = seen_time(o, g->t);

		if (g->kind == G_NEWTASK)
			continue;

		last = now;
		if (g->kind == G_SWITCH && g->cpu >= 0 && g->cpu < 256)
			steal_switch(o, ts, cur, t0, now, g);
		if (g->kind == G_WAKING)
			steal_wake(o, ts, now, g);
		/*
		 * A vCPU thread's sched events count from the start, before its
		 * first KVM event too: its time then is in the states they say.
		 */
		if (g->kind == G_SWITCH) {
			/* the vCPU thread switched out (prev) or in (next) */
			if (scenario_tid(o, g->tid)) {
				t = &ts[tid_idx(o, g->tid)];
				if (t->st == S_HOST || t->st == S_VMM)
					t->on_cpu = t->st;
				else
					t->on_cpu = S_HOST;
				to_state(o, t0, t, tid_idx(o, g->tid), now, S_HOST,
					 g->aux & 0xff ? S_HALT : S_WAIT);
			}
			if (scenario_tid(o, (int)g->reason)) {
				t = &ts[tid_idx(o, g->reason)];
				to_state(o, t0, t, tid_idx(o, g->reason), now, S_WAIT,
					 t->st < 0 ? S_HOST : t->on_cpu);
			}
			continue;
		}
		if (g->kind == G_WAKING) {
			if (scenario_tid(o, (int)g->reason)) {
				t = &ts[tid_idx(o, g->reason)];
				if (t->st < 0 || t->st == S_HALT)
					to_state(o, t0, t, tid_idx(o, g->reason), now, S_HALT, S_WAIT);
			}
			continue;
		}
		/*
		 * Its first entry or exit: it is on a CPU, so since its last
		 * sched event it was in the state the event ends, whatever a
		 * wakeup said (of a thread that had not slept).
		 */
		if (t->tid < 0 && t->st >= 0 && (g->kind == G_EXIT || g->kind == G_ENTRY))
			t->st = g->kind == G_EXIT ? S_GUEST : S_HOST;
		t->tid = g->tid;
		t->vcpu = g->vcpu;
		switch (g->kind) {
		case G_EXIT: {
			/* a layout without the isa field cannot tell VMX from SVM */
			uint32_t isa = has_isa ? g->isa : 0, code = g->reason, flags = 0;

			if (garch == A_X86 && isa == 1) {
				code = g->reason & 0xffff;
				flags = g->reason & 0xffff0000;
			} else if (garch == A_ARM) {
				/* kvmtop's arm64 code: type << 8 | the EC of a trap (see arch/arm64.c) */
				isa = ISA_ARM64_NR;
				if (has_type)
					code = g->reason << 8 | (g->reason == 2 ? g->aux : 0);
				else if (has_ec)
					code = 0xfe00 | g->aux;
				else
					code = 0xfd00;
			} else if (garch == A_PPC) {
				isa = ISA_PPC_NR;
				flags = g->aux ? 1 : 0;		/* CEDED */
			} else if (garch == A_S390) {
				isa = ISA_S390_NR;
			} else if (garch == A_RISCV) {
				isa = ISA_RISCV_NR;
				/* a virtual instruction that is WFI: flagged WFI (see arch/riscv.c) */
				flags = g->reason == RV_VIRT_INSN && g->aux == RV_WFI ? 1 : 0;
			} else if (garch == A_LOONG) {
				isa = ISA_LOONG_NR;
			}
			to_state(o, t0, t, idx, now, S_GUEST, S_HOST);
			if (t->pending)
				t->unmatched_exits++;
			memset(t->acc, 0, sizeof(t->acc));
			t->exits++;
			rset_get(&t->rs, isa, code, flags)->count++;
			rset_get(&host, isa, code, flags)->count++;
			rset_get(&vmrs[idx / o->vcpus], isa, code, flags)->count++;
			if (o->step) {
				struct rset *iv = ival_thread(o, t0, now, idx);

				iv->exits++;
				rset_get(iv, isa, code, flags)->count++;
			}
			/*
			 * kvmtop's time samples: the asynchronous exits it can tell
			 * (x86 needs the isa field, arm64 the exception type)
			 */
			kind = g->async && (garch != A_X86 || has_isa) && (garch != A_ARM || has_type) ? 0 : 1;
			if (!has_ip)
				t->ip_none++;
			else if (o->unique)	/* too many to list: the numbers only */
				t->ip_n[kind]++;
			else
				count_ip(t, kind, isa, code, flags, g);
			t->pending = true;
			t->pending_t = now;
			t->pending_key[0] = isa;
			t->pending_key[1] = code;
			t->pending_key[2] = flags;
			break;
		}
		case G_ENTRY:
		case G_ENTRY2:
			to_state(o, t0, t, idx, now, S_HOST, S_GUEST);
			if (!t->pending) {
				t->unmatched_entries++;
				break;
			} else {
				const uint32_t *key = t->pending_key;
				uint64_t lat = now - t->pending_t;

				rstat_lat(rset_get(&t->rs, key[0], key[1], key[2]), lat, t->acc);
				rstat_lat(rset_get(&host, key[0], key[1], key[2]), lat, t->acc);
				rstat_lat(rset_get(&vmrs[idx / o->vcpus], key[0], key[1], key[2]), lat, t->acc);
				if (o->step)
					rstat_lat(rset_get(ival_thread(o, t0, now, idx), key[0], key[1], key[2]),
						  lat, t->acc);
				t->pending = false;
			}
			break;
		case G_PIO:
			t->pio++;
			break;
		case G_UEXIT:
			to_state(o, t0, t, idx, now, S_HOST, S_VMM);
			if (g->script >= 0 || g->reason == 2)	/* KVM_EXIT_IO */
				t->uexit_io++;
			break;
		}
	}
	/* every thread's last state lasts to the end of the recording, its wait given to who runs */
	for (k = 0; k < o->vms * o->vcpus; k++)
		if (ts[k].tid >= 0) {
			to_state(o, t0, &ts[k], k, last, S_GUEST, ts[k].st);
			if (ts[k].wait_cpu >= 0)
				thief_add(&ts[k], cur[ts[k].wait_cpu], last - ts[k].steal_at);
		}
	fprintf(f, "{\"clock\":\"%s\",\"time_unit\":\"%s\",\"lost_events\":%" PRIu64 ",\"threads\":[",
		!strcmp(o->clock, "tsc2nsec") ? "tsc2nsec" : o->clock,
		!strcmp(o->clock, "x86-tsc") ? "cycles" : "ns", lost);
	for (k = 0; k < o->vms * o->vcpus; k++) {
		struct tstat *t = &ts[k];

		if (t->pending)
			t->unmatched_exits++;
		fprintf(f, "%s{\"tid\":%d,\"vcpu\":%d,\"exits\":%" PRIu64 ",\"unmatched_exits\":%" PRIu64
			",\"unmatched_entries\":%" PRIu64 ",\"kvm_pio\":%" PRIu64 ",\"uexit_io\":%" PRIu64,
			k ? "," : "", t->tid, t->vcpu, t->exits, t->unmatched_exits,
			t->unmatched_entries, t->pio, t->uexit_io);
		states_print(f, t->rs.tm);
		if (with_sched) {
			int j;

			qsort(t->thief, t->nr_thief, sizeof(t->thief[0]), thief_cmp);
			fputs(",\"stolen_by\":[", f);
			for (j = 0; j < t->nr_thief; j++)
				fprintf(f, "%s{\"tid\":%d,\"ns\":%" PRIu64 "}", j ? "," : "", t->thief[j].tid,
					t->thief[j].ns);
			fputc(']', f);
		}
		fputs(",\"reasons\":", f);
		rset_print(f, &t->rs);
		fprintf(f, ",\"ip_samples\":{\"time\":%" PRIu64 ",\"exit\":%" PRIu64 ",\"none\":%" PRIu64
			"},\"ips\":[", t->ip_n[0], t->ip_n[1], t->ip_none);
		for (i = 0; i < t->nr_ips; i++) {
			const struct ipstat *p = &t->ips[i];

			fprintf(f, "%s{\"kind\":\"%s\",\"isa\":%u,\"code\":%u,\"flags\":%u,\"ip\":%" PRIu64
				",\"mode\":\"%s\",\"sym\":", i ? "," : "", p->kind ? "exit" : "time", p->isa,
				p->code, p->flags, p->ip, p->fn >= 0 ? "kernel" : "user");
			if (p->fn >= 0)
				fprintf(f, "\"%s+0x%x\"", gfunc[p->fn], p->off);
			else
				fputs("null", f);
			fprintf(f, ",\"count\":%" PRIu64 "}", p->count);
		}
		fputs("]}", f);
		free(t->ips);
	}
	fputs("],\"host\":", f);
	rset_print(f, &host);
	/* VM v's threads are tids 1000 + 100 v + k (vCPU k): tid - vCPU is 1000 + 100 v */
	fputs(",\"vms\":[", f);
	for (k = 0; k < o->vms; k++) {
		fprintf(f, "%s{\"vm\":%d,\"key\":%d,\"reasons\":", k ? "," : "", k, 1000 + 100 * k);
		rset_print(f, &vmrs[k]);
		fputc('}', f);
	}
	fputc(']', f);
	free(vmrs);
	if (o->step) {
		/* every interval up to the last event's, empty ones too */
		ival_thread(o, t0, last, 0);
		fprintf(f, ",\"step\":%" PRIu64 ",\"first\":%" PRIu64 ",\"last\":%" PRIu64
			",\"intervals\":[", o->step, t0, last);
		for (i = 0; i < nr_ivals; i++) {
			fprintf(f, "%s{\"start\":%" PRIu64 ",\"threads\":[", i ? "," : "", t0 + i * o->step);
			for (k = 0; k < o->vms * o->vcpus; k++) {
				fprintf(f, "%s{\"tid\":%d,\"exits\":%" PRIu64, k ? "," : "",
					ts[k].tid, ivals[i].th[k].exits);
				states_print(f, ivals[i].th[k].tm);
				fputs(",\"reasons\":", f);
				rset_print(f, &ivals[i].th[k]);
				fputc('}', f);
			}
			fputs("]}", f);
			free(ivals[i].th);
		}
		fputc(']', f);
		free(ivals);
	}
	fputs("}\n", f);
	fclose(f);
	free(ts);
}

/* --- main --- */

/*
 * -P FILE: what "ps -eLo tid=,pid=,args=" printed on the recording host.
 * VM v's process has pid 1000 + 100 v + 99, its vCPU k thread tid
 * 1000 + 100 v + k; VMMs of five kinds in turn, each naming its VM its
 * own way.  FILE.json gives each VM's pid, the name a reader must find
 * and its vCPU threads, for the test to compare with.
 */
/* Thread tid's life in the recording: from its birth (or first event) to its last event, in ns. */
static uint64_t lifetime(int tid)
{
	uint64_t a = UINT64_MAX, b = 0;
	size_t i;

	for (i = 0; i < nr_evs; i++) {
		const struct gev *g = &evs[i];
		bool its = g->kind == G_NEWTASK ? (int)g->reason == tid :
			   g->kind == G_WAKING ? (int)g->reason == tid :
			   g->kind == G_SWITCH ? g->tid == tid || (int)g->reason == tid : g->tid == tid;

		if (!its)
			continue;
		if (g->t < a)
			a = g->t;
		if (g->t > b)
			b = g->t;
	}
	return a <= b ? b - a : 0;
}

static void write_ps(const struct opts *o, const char *path)
{
	char jpath[4200];
	FILE *f = fopen(path, "w"), *j;
	int vm, k;

	snprintf(jpath, sizeof(jpath), "%s.json", path);
	j = fopen(jpath, "w");
	if (!f || !j)
		die("cannot write %s", path);
	/* the host's own processes and kernel threads first, as ps lists them */
	fprintf(f, "      1       1 /sbin/init\n      2       2 [kthreadd]\n"
		   "     15      15 [kworker/0:1-events]\n     16      16 [vhost-1099]\n"
		   "    812     812 /usr/sbin/libvirtd --timeout 120\n"
		   "    813     812 /usr/sbin/libvirtd --timeout 120\n");
	fprintf(j, "[");
	for (vm = 0; vm < o->vms; vm++) {
		int base = 1000 + vm * 100, pid = base + 99;
		char args[320], name[64], uuid[40] = "";
		const char *from;

		switch (vm % 5) {
		case 0:
			/* libvirt's QEMU: -uuid, the VM's UUID (the kind of name_from says who named it) */
			snprintf(name, sizeof(name), "vm-%04d", vm);
			snprintf(uuid, sizeof(uuid), "5d1c8e2a-%04x-4b6f-9c3d-%012x", vm, 0x1000 + vm);
			snprintf(args, sizeof(args), "/usr/bin/qemu-system-x86_64 -name guest=%s,debug-threads=on "
				 "-S -machine pc-q35-8.2,usb=off -uuid %s -m 2048 -smp %d", name, uuid, o->vcpus);
			from = "qemu";
			break;
		case 1:
			snprintf(name, sizeof(name), "fc-%04d", vm);
			snprintf(args, sizeof(args), "/usr/bin/firecracker --id %s --api-sock /run/fc/%s.sock",
				 name, name);
			from = "firecracker";
			break;
		case 2:
			snprintf(name, sizeof(name), "ch-%04d", vm);
			snprintf(args, sizeof(args), "/usr/bin/cloud-hypervisor --api-socket /run/ch/%s.sock "
				 "--cpus boot=%d", name, o->vcpus);
			from = "cloud-hypervisor";
			break;
		case 3:
			snprintf(name, sizeof(name), "kt-%04d", vm);
			snprintf(args, sizeof(args), "lkvm run --name %s -c %d -m 1024", name, o->vcpus);
			from = "kvmtool";
			break;
		default:
			/* QEMU's ",," is a comma; a quote and a backslash for the outputs to escape */
			snprintf(name, sizeof(name), "db,\"%04d\\", vm);
			snprintf(args, sizeof(args), "qemu-kvm -enable-kvm -name db,,\"%04d\\,process=x -m 4096",
				 vm);
			from = "qemu";
			break;
		}
		fprintf(f, "%7d %7d %s\n", pid, pid, args);
		/* -B: the vCPU threads ended before the snapshot */
		for (k = 0; k < o->vcpus && !o->born; k++)
			fprintf(f, "%7d %7d %s\n", base + k, pid, args);
		if (o->vcpus < 98)	/* an I/O thread, no vCPU */
			fprintf(f, "%7d %7d %s\n", base + 98, pid, args);
		fprintf(j, "%s{\"pid\":%d,\"name\":\"", vm ? "," : "", pid);
		for (k = 0; name[k]; k++)
			fprintf(j, "%s%c", name[k] == '"' || name[k] == '\\' ? "\\" : "", name[k]);
		fprintf(j, "\",\"uuid\":%s%s%s,\"from\":\"%s\",\"tids\":[", uuid[0] ? "\"" : "", uuid[0] ? uuid : "null",
			uuid[0] ? "\"" : "", from);
		for (k = 0; k < o->vcpus; k++)
			fprintf(j, "%s%d", k ? "," : "", base + k);
		fprintf(j, "],\"lived_ns\":[");
		for (k = 0; k < o->vcpus; k++)
			fprintf(j, "%s%" PRIu64, k ? "," : "", lifetime(base + k));
		fprintf(j, "]}");
	}
	fprintf(f, "%7d %7d ps -eLo tid=,pid=,args=\n", 1000 + o->vms * 100, 1000 + o->vms * 100);
	fprintf(j, "]\n");
	if (fclose(f) || fclose(j))
		die("cannot write %s", path);
}

static void usage(void)
{
	fprintf(stderr,
"usage: kvmgen -f FORMAT_DIR -o OUT.dat [-e EXPECT.json] [options]\n"
"  -V 6|7            file version (default 7)\n"
"  -z none|zlib|zstd compression of a version 7 file (default none)\n"
"  -c local|x86-tsc|tsc2nsec  clock (default local: ns)\n"
"  -A START          every event's time START (0x... or decimal) later, in the\n"
"                    clock's unit: a host up long (2^53 ns is 104 days)\n"
"  -D USECS          a DATE option as trace-cmd record --date writes it: readers add\n"
"                    USECS (0x... or decimal) to every time, then the wall clock\n"
"  -i vmx|svm|mixed  exit codes (default vmx; mixed: odd VMs are SVM)\n"
"  -m VMS -v VCPUS -n EXITS_PER_VCPU -C CPUS -s SEED\n"
"  -t                a cut recording: starts after an exit, ends before entries\n"
"  -l                lose events: some pages start after missed events\n"
"  -x                with port I/O exits, kvm_pio and kvm_userspace_exit events\n"
"  -O                with each exit's companion event (kvm_apic, kvm_mmio, kvm_msr, kvm_pio;\n"
"                    arm64: kvm_sys_access, kvm_hvc_arm64, kvm_wfx_arm64, kvm_mmio)\n"
"                    where FORMAT_DIR has its format: a recording rich in objects\n"
"  -N qemu|kvmtool|none  thread names: CPU n/KVM, kvm-vcpu-n, or one name for all\n"
"  -S FILE           the events of FILE instead of a workload, one per line:\n"
"                    'TIME_NS CPU TID exit|entry FIELD=VALUE...' or 'comm TID NAME'\n"
"                    (also pio: kvm_pio; with -w switch|waking: sched_switch, sched_waking;\n"
"                    uexit, mmio, msr, apic, hypercall, hv_hypercall, cr, cpuid, hcall (powerpc's\n"
"                    kvm_hcall_enter), insn, diag (s390's kvm_s390_intercept_instruction,\n"
"                    kvm_s390_handle_diag), gspr, la_idle, la_cache (LoongArch's kvm_exit_gspr,\n"
"                    kvm_exit_idle, kvm_exit_cache), sys_access, hvc, wfx (arm64's): those\n"
"                    kvm events, where FORMAT_DIR has them)\n"
"  -K OFFSET         the guest kernel's KASLR offset (its IPs are shifted by it)\n"
"  -k FILE           write the guest's kallsyms (running addresses) to FILE\n"
"  -M FILE           write its System.map (link-time addresses) to FILE\n"
"  -L                -e lists each reason's latencies too (\"values\", sorted)\n"
"  -U                every exit at a guest IP never seen before (no 'ips' in -e)\n"
"  -d STEP           -e also gives kvmtop's intervals of STEP ns (-b -d): per\n"
"                    interval and thread, exits and each reason's figures\n"
"  -P FILE           write the host's 'ps -eLo tid=,pid=,args=' to FILE (VM v:\n"
"                  pid 1000+100v+99, five kinds of VMM) and FILE.json (each\n"
"                  VM's pid, name, uuid (QEMU's -uuid, or null), kind of\n"
"                  VMM (from) and vCPU tids)\n"
"  -R                VMX exits of twenty reasons in equal parts (a wide table)\n"
"  -w                with sched_switch and sched_waking of the vCPU threads\n"
"  -B                vCPU threads born inside the recording (task_newtask by the\n"
"                    VMM's main thread, 400 us before the first exit; FORMAT_DIR\n"
"                    has its format) and gone before -P's snapshot; with -w woken\n"
"                    300 us and switched in 50 us before it (not with -d)\n"
"  -T N              with -w: N host tasks (hog-K, tid 500+K) run while vCPUs wait,\n"
"                    now and then two in turn; the truth's stolen_by per thread\n"
"                    inside exits (FORMAT_DIR has their formats); -e also\n"
"                    gives each thread's time states and each reason's split\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.version = 7, .compress = "none", .clock = "local", .isa = "vmx",
		.vms = 1, .vcpus = 2, .exits = 1000, .cpus = 4, .seed = 1,
		.comm_fmt = "qemu",
	};
	struct tracecmd_output *out;
	struct cpu_out *cpus;
	char tmpdir[] = "/tmp/kvmgen.XXXXXX";
	char **files;
	uint64_t lost = 0;
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "A:Lf:o:e:V:z:c:D:i:m:v:n:C:s:tlxON:S:K:k:M:Ud:wP:RT:B")) != -1) {
		switch (c) {
		case 'f': o.formats = optarg; break;
		case 'o': o.out = optarg; break;
		case 'e': o.expect = optarg; break;
		case 'V': o.version = atoi(optarg); break;
		case 'z': o.compress = optarg; break;
		case 'c': o.clock = optarg; break;
		case 'D': o.date = optarg; break;
		case 'A': o.at = strtoull(optarg, NULL, 0); break;
		case 'i': o.isa = optarg; break;
		case 'm': o.vms = atoi(optarg); break;
		case 'v': o.vcpus = atoi(optarg); break;
		case 'n': o.exits = atoll(optarg); break;
		case 'C': o.cpus = atoi(optarg); break;
		case 's': o.seed = strtoul(optarg, NULL, 0); break;
		case 't': o.cut = true; break;
		case 'l': o.lost = true; break;
		case 'x': o.others = true; break;
		case 'O': o.objects = true; break;
		case 'N': o.comm_fmt = optarg; break;
		case 'S': o.script = optarg; break;
		case 'K': o.kaslr = strtoull(optarg, NULL, 0); break;
		case 'k': o.kallsyms = optarg; break;
		case 'M': o.sysmap = optarg; break;
		case 'U': o.unique = true; break;
		case 'd': o.step = strtoull(optarg, NULL, 0); break;
		case 'w': o.sched = true; break;
		case 'L': list_lats = true; break;
		case 'P': o.ps = optarg; break;
		case 'R': o.wide = true; break;
		case 'T': o.thieves = atoi(optarg); break;
		case 'B': o.born = true; break;
		default: usage();
		}
	}
	if (!o.formats || !o.out || o.vms < 1 || o.vcpus < 1 || o.vcpus > 99 || o.cpus < 1 ||
	    o.exits < 1 || (o.version != 6 && o.version != 7))
		usage();
	if (o.thieves < 0 || o.thieves > 64 || (o.thieves && !o.sched))
		usage();
	load_formats(o.formats, o.sched, o.born);
	with_sched = o.sched;
	gen_thieves = o.thieves;
	gen_comm_fmt = o.comm_fmt;
	if (o.others && (!ev_fmt[G_PIO] || !ev_fmt[G_UEXIT]))
		o.others = false;
	if (o.born && (!ev_fmt[G_NEWTASK] || o.step))
		die("-B needs task_newtask.format in %s, and no -d", o.formats);
	if (o.script) {
		int max_cpu = 0;

		read_script(o.script);
		for (i = 0; i < nr_evs; i++)
			if (evs[i].cpu > max_cpu)
				max_cpu = evs[i].cpu;
		o.cpus = max_cpu + 1;
		o.expect = NULL;	/* the caller knows what it wrote */
	} else {
		scenario(&o);
	}
	settle_times();
	/* -A: a clock that started long ago; the order and the gaps stay */
	for (i = 0; i < nr_evs; i++)
		evs[i].t += o.at;
	if (o.step && !strcmp(o.clock, "local") && nr_evs) {
		/*
		 * The first event at or after each of kvmtop's interval
		 * boundaries moves onto it, so that an interval that ends
		 * one nanosecond early or late is seen.  The order stays.
		 */
		uint64_t b = evs[0].t + o.step;

		for (i = 1; i < nr_evs; i++) {
			if (evs[i].t < b)
				continue;
			evs[i].t = b;
			while (b <= evs[i].t)
				b += o.step;
		}
	}
	if (o.lost) {
		/* every 50th page of events starts after 7 lost events */
		for (i = 0; i < nr_evs; i += 50 * 60)
			evs[i].lost_before = 7;
	}

	if (!mkdtemp(tmpdir))
		die("%s", "mkdtemp failed");
	make_tracing_dir(tmpdir, &o);

	cpus = calloc(o.cpus, sizeof(*cpus));
	files = calloc(o.cpus, sizeof(*files));
	for (c = 0; c < o.cpus; c++) {
		if (asprintf(&files[c], "%s/cpu%d", tmpdir, c) < 0)
			die("%s", "out of memory");
		cpus[c].f = fopen(files[c], "w");
		if (!cpus[c].f)
			die("cannot write %s", files[c]);
	}
	for (i = 0; i < nr_evs; i++) {
		struct cpu_out *co = &cpus[evs[i].cpu];

		/* missed events are reported with the first event of a new page */
		if (evs[i].lost_before && co->open)
			page_flush(co);
		if (evs[i].lost_before)
			lost += evs[i].lost_before;
		write_event(co, &evs[i]);
	}
	for (c = 0; c < o.cpus; c++) {
		page_flush(&cpus[c]);
		fclose(cpus[c].f);
	}

	if (tc_zlib_register())
		die("%s", "cannot register zlib");
	tracecmd_set_loglevel(TEP_LOG_WARNING);
	out = tracecmd_output_create(o.out);
	if (!out)
		die("cannot create %s", o.out);
	tracecmd_set_quiet(out, true);
	if (tracecmd_output_set_version(out, o.version))
		die("%s", "cannot set the file version");
	if (o.version >= 7 && strcmp(o.compress, "none") &&
	    tracecmd_output_set_compression(out, o.compress))
		die("compression %s not available", o.compress);
	{
		char ks[4200];

		snprintf(ks, sizeof(ks), "%s/kallsyms", tmpdir);
		if (tracecmd_output_set_trace_dir(out, tmpdir) ||
		    tracecmd_output_set_kallsyms(out, ks))
			die("%s", "cannot set the tracing dir");
	}
	tracecmd_set_out_clock(out, !strcmp(o.clock, "local") ? "local" : "x86-tsc");
	if (tracecmd_output_write_headers(out, NULL))
		die("%s", "cannot write the headers");
	if (tracecmd_write_cmdlines(out))
		die("%s", "cannot write the thread names");
	/* the trace_clock file's text, as trace-cmd record saves it */
	{
		const char *tc = !strcmp(o.clock, "local") ? "[local] global x86-tsc" :
							     "local global [x86-tsc]";

		tracecmd_add_option(out, TRACECMD_OPTION_TRACECLOCK, strlen(tc) + 1, tc);
	}
	if (!strcmp(o.clock, "tsc2nsec")) {
		unsigned char opt[16];
		uint32_t mult = TSC_MULT, shift = TSC_SHIFT;
		uint64_t off = 0;

		memcpy(opt, &mult, 4);
		memcpy(opt + 4, &shift, 4);
		memcpy(opt + 8, &off, 8);
		tracecmd_add_option(out, TRACECMD_OPTION_TSC2NSEC, sizeof(opt), opt);
	}
	if (o.date)
		/* id 1, trace-cmd's TRACECMD_OPTION_DATE (not in the public header) */
		tracecmd_add_option(out, 1, strlen(o.date) + 1, o.date);
	if (tracecmd_append_cpu_data(out, o.cpus, files))
		die("%s", "cannot write the event data");
	tracecmd_output_close(out);
	for (c = 0; c < o.cpus; c++)
		free(files[c]);
	free(files);
	free(cpus);

	if (o.expect)
		expect(&o, o.expect, lost);
	if (o.kallsyms)
		write_syms(o.kallsyms, o.kaslr, true);
	if (o.sysmap)
		write_syms(o.sysmap, 0, false);
	if (o.ps && !o.script)
		write_ps(&o, o.ps);

	{
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), getenv("KVMGEN_KEEP") ? "true '%s'" : "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "kvmgen: could not remove %s\n", tmpdir);
	}
	free(evs);
	free(script_fields);
	free(script_comms);
	tep_free(tep);
	return 0;
}
