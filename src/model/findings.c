// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of findings.h, declared once: id, what each reads, when it
 * fires, the finding, the remedy and where the advice comes from (the
 * man page's FINDINGS section says the same).  Each rule looks at one
 * scope's figures of the snapshot; rates need times in ns.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "decode/objects.h"
#include "util/fmt.h"
#include "model_fields.h"
#include "model_view.h"
#include "model_steal.h"

/* The thresholds, named where the man page and the rules share them. */
#define WAIT_WARN	0.10	/* of a vCPU thread's time, waiting for a CPU */
#define WAIT_SEVERE	0.30
#define IO_RATE		1000.0	/* port I/O exits per second, a VM */
#define MMIO_RATE	1000.0	/* MMIO exits and kvm_mmio events per second, a VM */
#define PAUSE_RATE	1000.0	/* PAUSE exits per second, a VM */
#define HALT_RATE	1000.0	/* HLT exits per second, a vCPU */
#define HALT_FAST	500000	/* ns: its median latency below this: it wakes fast */
#define SLOW_RATIO	10	/* a reason's p99 over its p50 */
#define SLOW_P99	100000	/* ns: and a p99 of at least this */
#define SLOW_PAIRS	100	/* over at least this many exits */
#define VMM_SHARE	0.20	/* of a vCPU thread's time, in the VMM */
#define SWAP_FAULTS	10.0	/* major faults per second of a VMM with memory swapped out */
#define SWAP_SEVERE	1000.0
#define SWAP_SHARE	10.0	/* % of its memory swapped out, faults or not */
#define MEM_SOME	10.0	/* % of the snapshot some of the VM's tasks stalled on memory */
#define IO_SOME		20.0	/* ... on I/O */
#define FULL_SEVERE	10.0	/* % all of them stalled: severe */
#define TAP_DROPS	1.0	/* drops per second on its taps */
#define NUMA_MEM	75.0	/* % of its memory on one node ... */
#define NUMA_LOCAL	50.0	/* ... and less than this % of its vCPUs' time there */
#define TIMER_RATE	500.0	/* exits/s on the PIT, CMOS and ACPI PM timer ports, a VM */
#define SERIAL_RATE	500.0	/* writes/s to a serial port, a VM */
#define IPI_RATE	1000.0	/* ICR writes/s (x2APIC MSR or APIC register), a VM */
#define TSCDL_RATE	1000.0	/* TSC deadline MSR writes/s, a vCPU */
#define PAGE_RATE	1000.0	/* MMIO writes/s on one page, a VM */
#define CEDE_RATE	1000.0	/* powerpc H_CEDE hcalls/s, a VM */
#define YIELD_RATE	1000.0	/* s390 DIAG 0x44 and 0x9c (yields)/s, a VM */
#define WFX_RATE	1000.0	/* WFI and WFE exits/s, an arm64 vCPU */
#define OBJS_MIN	100	/* exits at least: a rate of a few in a short snapshot is noise */
#define OBJS_SHOWN	4	/* objects named in an evidence */
#define OBJS_TALLY	64	/* objects told apart; more count in the sum only (rows come
				   most counted first within a reason: the busiest are told apart) */

/* Exits of class cls in scope s this interval, and the reason with most of them. */
static uint64_t class_exits(const struct finding_in *in, enum reason_class cls, const struct reason **top)
{
	const struct model_scope *sc = in->sc;
	uint64_t n = 0, best = 0;
	unsigned int i;

	*top = NULL;
	for (i = 0; i < sc->nr; i++) {
		const struct model_reason_row *w = &sc->rows[i];

		if (!w->r || w->r->cls != cls || !w->count)
			continue;
		n += w->count;
		if (w->count > best) {
			best = w->count;
			*top = w->r;
		}
	}
	return n;
}

/* The scope's count of other event name (kvm_mmio ...), 0 if the source has none. */
static uint64_t other_count(const struct finding_in *in, const char *name)
{
	int i;

	for (i = 0; i < in->m->nr_other; i++)
		if (in->m->names->other[i] && !strcmp(in->m->names->other[i], name))
			return in->sc->other[i];
	return 0;
}

/* The share of the snapshot's length a vCPU thread spent in state st, -1 if not measured. */
static double share(const struct finding_in *in, enum vcpu_state st)
{
	if (!in->len || !(in->sc->time_known & (1u << st)))
		return -1;
	return (double)in->sc->time[st] / (double)in->len;
}

static int rate_of(const struct finding_in *in, uint64_t n, double *rate)
{
	if (in->secs <= 0)
		return -1;
	*rate = (double)n / in->secs;
	return 0;
}

/* ", stolen by A 1.2 s, B 0.3 s" of v's three largest thieves. */
static void thieves(const struct finding_in *in, char *buf, size_t len)
{
	const struct model_thief *t[MODEL_THIEVES_MAX];
	struct model_thief_who w;
	unsigned int i, n;
	char dur[32], who[96];
	uint64_t other;
	size_t o;

	buf[0] = '\0';
	n = model_steal_top(in->m, in->vcpu, t, &other);
	for (i = 0, o = 0; i < n && i < 3 && o < len; i++) {
		model_thief_who(in->m, t[i], &w);
		fmt_duration((double)t[i]->ns, in->secs > 0, 2, dur, sizeof(dur));
		if (w.vm && w.vcpu >= 0)
			snprintf(who, sizeof(who), "VM %s vCPU %d", w.vm->name, w.vcpu);
		else if (w.vm)
			snprintf(who, sizeof(who), "VM %s's VMM (tid %d)", w.vm->name, t[i]->tid);
		else if (w.pid)
			snprintf(who, sizeof(who), "%s (pid %d, tid %d)", w.comm, w.pid, t[i]->tid);
		else
			snprintf(who, sizeof(who), "%s (tid %d)", t[i]->tid ? w.comm : "idle", t[i]->tid);
		o += (size_t)snprintf(buf + o, len - o, "%s%s %s", i ? ", " : "; stolen by ", who, dur);
	}
}

static int eval_overcommit(const struct finding_in *in, char *ev, size_t len)
{
	double w = share(in, VS_WAIT);
	char dur[32], by[256];

	if (w < WAIT_WARN)
		return -1;
	fmt_duration((double)in->sc->time[VS_WAIT], in->secs > 0, 2, dur, sizeof(dur));
	thieves(in, by, sizeof(by));
	snprintf(ev, len, "waited for a CPU %.1f %% of the snapshot (%s)%s", 100 * w, dur, by);
	return w >= WAIT_SEVERE ? FS_SEVERE : FS_WARNING;
}

static int eval_mmio(const struct finding_in *in, char *ev, size_t len)
{
	const struct reason *top;
	uint64_t n = class_exits(in, RC_MMIO, &top), mmio = other_count(in, "kvm_mmio");
	double rate;

	/* the kvm_mmio events count the accesses KVM emulated, on every arch */
	if (rate_of(in, n > mmio ? n : mmio, &rate) || rate < MMIO_RATE)
		return -1;
	snprintf(ev, len, "%.0f emulated MMIO accesses/s (%" PRIu64 " %s exits, %" PRIu64 " kvm_mmio events)",
		 rate, n, top ? top->name : "MMIO", mmio);
	return FS_WARNING;
}

static int eval_spinlock(const struct finding_in *in, char *ev, size_t len)
{
	const struct reason *top;
	uint64_t n = class_exits(in, RC_PAUSE, &top), ple = other_count(in, "kvm_ple_window_update");
	double rate;

	if (rate_of(in, n, &rate) || rate < PAUSE_RATE)
		return -1;
	snprintf(ev, len, "%.0f %s exits/s: vCPUs spin in PAUSE loops%s%" PRIu64 " PLE window updates",
		 rate, top ? top->name : "PAUSE", ple ? "; " : "; ", ple);
	return FS_WARNING;
}

static int eval_halt_poll(const struct finding_in *in, char *ev, size_t len)
{
	const struct reason *top;
	const struct model_reason_row *w = NULL;
	uint64_t n = class_exits(in, RC_HALT, &top), p50;
	char a[32], b[32];
	unsigned int i;
	double rate;

	if (rate_of(in, n, &rate) || rate < HALT_RATE)
		return -1;
	for (i = 0; i < in->sc->nr; i++)
		if (in->sc->rows[i].r == top)
			w = &in->sc->rows[i];
	/* the latency of a halt is how long the vCPU slept: short ones are wakeups paid often */
	if (!w || !w->lat.samples)
		return -1;
	p50 = model_quantile(&w->lat, 0.50);
	if (p50 >= HALT_FAST)
		return -1;
	fmt_duration((double)p50, true, 2, a, sizeof(a));
	fmt_duration((double)model_quantile(&w->lat, 0.99), true, 2, b, sizeof(b));
	snprintf(ev, len, "%.0f %s exits/s, each asleep for p50 %s, p99 %s", rate, top->name, a, b);
	return FS_INFO;
}

static int eval_slow(const struct finding_in *in, char *ev, size_t len)
{
	const struct model_reason_row *worst = NULL;
	uint64_t p50, p99, wp50 = 0, wp99 = 0, sum;
	char a[32], b[32];
	unsigned int i;
	size_t o;

	if (in->secs <= 0)
		return -1;
	for (i = 0; i < in->sc->nr; i++) {
		const struct model_reason_row *w = &in->sc->rows[i];

		if (!w->r || w->r->blocking || w->lat.samples < SLOW_PAIRS)
			continue;
		p50 = model_quantile(&w->lat, 0.50);
		p99 = model_quantile(&w->lat, 0.99);
		if (p99 < SLOW_P99 || p99 < SLOW_RATIO * (p50 ? p50 : 1) || (worst && p99 <= wp99))
			continue;
		worst = w;
		wp50 = p50;
		wp99 = p99;
	}
	if (!worst)
		return -1;
	fmt_duration((double)wp50, true, 2, a, sizeof(a));
	fmt_duration((double)wp99, true, 2, b, sizeof(b));
	o = (size_t)snprintf(ev, len, "%s: p50 %s, p99 %s over %" PRIu64 " exits", worst->r->name, a, b,
			     worst->lat.samples);
	sum = hist_sum(&worst->lat);
	if (sum && (in->sc->time_known & TIME_SPLIT) && o < len)
		snprintf(ev + o, len - o, "; their time on a CPU %.0f %%, preempted %.0f %%, blocked %.0f %%%s",
			 100.0 * (double)hist_sum(&worst->handling) / (double)sum,
			 100.0 * (double)worst->preempted / (double)sum, 100.0 * (double)worst->blocked / (double)sum,
			 worst->preempted + worst->blocked > sum / 2 ?
			 ": the host, not KVM, made them slow" : "");
	return FS_WARNING;
}

static int eval_vmm(const struct finding_in *in, char *ev, size_t len)
{
	double v = share(in, VS_VMM);
	unsigned int i;
	bool first;
	size_t o;

	if (v < VMM_SHARE)
		return -1;
	o = (size_t)snprintf(ev, len, "in the VMM %.1f %% of the snapshot", 100 * v);
	for (i = 0, first = true; i < UEXIT_MAX && o < len; i++) {
		if (!in->sc->uexit[i])
			continue;
		o += (size_t)snprintf(ev + o, len - o, "%s%s %" PRIu64, first ? "; userspace exits " : ", ",
				      names_uexit(in->m->names, (int)i), in->sc->uexit[i]);
		first = false;
	}
	return FS_WARNING;
}

static int eval_lost(const struct finding_in *in, char *ev, size_t len)
{
	uint64_t lost = ctr_interval(&in->m->lost_events), dropped = ctr_interval(&in->m->dropped);

	if (!lost && !dropped)
		return -1;
	snprintf(ev, len, "%" PRIu64 " events lost (the trace buffers overran), %" PRIu64
		 " dropped (threads past --max-vcpus)", lost, dropped);
	return FS_SEVERE;
}

/* Figure f of the VM's context, or -1 where it is not known. */
static double ctx(const struct finding_in *in, enum vm_ctx_fig f)
{
	double v;

	return in->vm && vm_ctx_get(&in->vm->ctx, f, &v) ? v : -1;
}

static int eval_swapped(const struct finding_in *in, char *ev, size_t len)
{
	double swap = ctx(in, CTX_SWAP), rss = ctx(in, CTX_RSS), faults = ctx(in, CTX_MAJFLT);
	double pct = swap > 0 && rss >= 0 ? 100.0 * swap / (swap + rss) : 0;
	double some = ctx(in, CTX_MEM_SOME);
	size_t o;

	if (swap <= 0 || (faults < SWAP_FAULTS && pct < SWAP_SHARE))
		return -1;
	o = (size_t)snprintf(ev, len, "%.0f MiB of the VMM's memory swapped out (%.1f %%)", swap / 1048576, pct);
	if (faults >= 0 && o < len)
		o += (size_t)snprintf(ev + o, len - o, ", %.1f major faults/s", faults);
	if (some >= 0 && o < len)
		snprintf(ev + o, len - o, ", memory pressure some %.1f %%", some);
	return faults >= SWAP_SEVERE ? FS_SEVERE : FS_WARNING;
}

/* PSI of the VM's cgroup, some and full of one resource: fires at some >= at. */
static int pressure(const struct finding_in *in, enum vm_ctx_fig some_f, enum vm_ctx_fig full_f, double at,
		    const char *what, char *ev, size_t len)
{
	double some = ctx(in, some_f), full = ctx(in, full_f);

	if (some < at)
		return -1;
	snprintf(ev, len, "some of its tasks stalled on %s %.1f %% of the snapshot, all of them %.1f %%%s",
		 what, some, full < 0 ? 0 : full, full < 0 ? " (full not known)" : "");
	return full >= FULL_SEVERE ? FS_SEVERE : FS_WARNING;
}

static int eval_mem_pressure(const struct finding_in *in, char *ev, size_t len)
{
	return pressure(in, CTX_MEM_SOME, CTX_MEM_FULL, MEM_SOME, "memory", ev, len);
}

static int eval_io_pressure(const struct finding_in *in, char *ev, size_t len)
{
	return pressure(in, CTX_IO_SOME, CTX_IO_FULL, IO_SOME, "I/O", ev, len);
}

static int eval_tap_drops(const struct finding_in *in, char *ev, size_t len)
{
	double drops = ctx(in, CTX_DROPS), rx = ctx(in, CTX_RX_PPS), tx = ctx(in, CTX_TX_PPS);

	if (drops < TAP_DROPS)
		return -1;
	snprintf(ev, len, "%.1f packets dropped/s on its %d tap interface%s (%.0f rx, %.0f tx packets/s)",
		 drops, in->vm->ctx.nr_taps, in->vm->ctx.nr_taps == 1 ? "" : "s", rx < 0 ? 0 : rx, tx < 0 ? 0 : tx);
	return FS_WARNING;
}

static int eval_numa(const struct finding_in *in, char *ev, size_t len)
{
	double node = ctx(in, CTX_NODE), mem = ctx(in, CTX_NODE_PCT), local = ctx(in, CTX_LOCAL_PCT);

	if (node < 0 || mem < NUMA_MEM || local < 0 || local >= NUMA_LOCAL)
		return -1;
	snprintf(ev, len, "%.1f %% of its memory on node %.0f, its vCPUs ran there %.1f %% of their time",
		 mem, node, local);
	return FS_WARNING;
}

/* Objects a rule counts: of kind, values lo..hi, in direction dir (OBJ_DIR_NONE: either). */
struct findings_objs {
	enum kvm_obj_kind kind;
	uint64_t lo, hi;
	enum kvm_obj_dir dir;
};

/* Exits on one object of a scope, summed over reasons, directions and sizes. */
struct findings_tally {
	enum kvm_obj_kind kind;
	uint64_t value;
	uint64_t n;
};

/* Does object row w belong to one of the nr sets of set? */
static bool objs_match(const struct model_obj_row *w, const struct findings_objs *set, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (w->kind == set[i].kind && w->value >= set[i].lo && w->value <= set[i].hi &&
		    (set[i].dir == OBJ_DIR_NONE || w->dir == set[i].dir))
			return true;
	return false;
}

/* Most exits first, then the lower value. */
static int tally_cmp(const void *a, const void *b)
{
	const struct findings_tally *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

/* The scope's exits this interval on the objects of set, told apart in t[]: their sum; *k how many in t. */
static uint64_t objs_tally(const struct finding_in *in, const struct findings_objs *set, size_t nr,
			   struct findings_tally *t, unsigned int *k)
{
	uint64_t sum = 0;
	unsigned int i, j;

	*k = 0;
	for (i = 0; i < in->sc->nr_objs; i++) {
		const struct model_obj_row *w = &in->sc->objs[i];

		if (!w->count || !objs_match(w, set, nr))
			continue;
		sum += w->count;
		for (j = 0; j < *k && (t[j].kind != w->kind || t[j].value != w->value); j++)
			;
		if (j == *k && *k == OBJS_TALLY)
			continue;
		if (j == *k)
			t[(*k)++] = (struct findings_tally){ w->kind, w->value, 0 };
		t[j].n += w->count;
	}
	qsort(t, *k, sizeof(*t), tally_cmp);
	return sum;
}

/*
 * The finding of an object rule: the exits on set's objects (one: on the
 * busiest of them alone) at >= at per second, OBJS_MIN of them at least;
 * the evidence says their rate, what they are ("port 0x70 (CMOS index)
 * 300", most first) and their share of the scope's exits.  The
 * severity, or -1: none.
 */
static int objs_eval(const struct finding_in *in, const struct findings_objs *set, size_t nr, bool one,
		     double at, const char *what, char *ev, size_t len)
{
	struct findings_tally t[OBJS_TALLY];
	uint64_t n;
	unsigned int i, k;
	char val[32];
	const char *name;
	double rate;
	size_t o;

	n = objs_tally(in, set, nr, t, &k);
	if (one && k > 1)
		k = 1;
	if (one)
		n = k ? t[0].n : 0;
	if (rate_of(in, n, &rate) || rate < at || n < OBJS_MIN)
		return -1;
	o = (size_t)snprintf(ev, len, "%.0f %s/s on ", rate, what);
	for (i = 0; i < k && i < OBJS_SHOWN && o < len; i++) {
		name = kvm_obj_name(t[i].kind, t[i].value);
		o += (size_t)snprintf(ev + o, len - o, "%s%s %s%s%s%s %" PRIu64, i ? ", " : "",
				      kvm_obj_kind_name(t[i].kind), kvm_obj_value(t[i].kind, t[i].value, val, sizeof(val)),
				      name ? " (" : "", name ? name : "", name ? ")" : "", t[i].n);
	}
	if (o < len)
		snprintf(ev + o, len - o, "; %.1f %% of its exits",
			 in->sc->exits ? 100.0 * (double)n / (double)in->sc->exits : 0);
	return FS_WARNING;
}

/*
 * The VM's port I/O exits at >= IO_RATE per second; the evidence names the
 * busiest ports as the objects table counts them (the port a kvm_pio
 * event named, not the exit's own guess) and the vCPUs' time in the VMM.
 */
static int eval_legacy_io(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs ports[] = { { KVM_OBJ_PORT, 0, UINT64_MAX, OBJ_DIR_NONE } };
	struct findings_tally t[OBJS_TALLY];
	const struct reason *top;
	uint64_t n = class_exits(in, RC_IO, &top);
	unsigned int i, k;
	double rate;
	size_t o;

	if (rate_of(in, n, &rate) || rate < IO_RATE)
		return -1;
	o = (size_t)snprintf(ev, len, "%.0f port I/O exits/s (%s)", rate, top ? top->name : "?");
	objs_tally(in, ports, 1, t, &k);
	for (i = 0; i < k && i < OBJS_SHOWN && o < len; i++)
		o += (size_t)snprintf(ev + o, len - o, "%s0x%" PRIx64 " %" PRIu64, i ? ", " : "; ports ",
				      t[i].value, t[i].n);
	if (o < len && (in->sc->time_known & (1u << VS_VMM)) && in->len)
		snprintf(ev + o, len - o, "; the vCPUs' time in the VMM %.1f %%",
			 100.0 * (double)in->sc->time[VS_VMM] / (double)in->len / (in->vm->nr_vcpus ? in->vm->nr_vcpus : 1));
	return FS_WARNING;
}

static int eval_timer_poll(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs ports[] = {
		{ KVM_OBJ_PORT, 0x40, 0x43, OBJ_DIR_NONE },		/* PIT */
		{ KVM_OBJ_PORT, 0x70, 0x71, OBJ_DIR_NONE },		/* CMOS RTC */
		{ KVM_OBJ_PORT, 0x608, 0x60b, OBJ_DIR_NONE },		/* ACPI PM timer, Q35 */
		{ KVM_OBJ_PORT, 0xb008, 0xb00b, OBJ_DIR_NONE },	/* ACPI PM timer, PIIX4 */
	};

	return objs_eval(in, ports, 4, false, TIMER_RATE, "timer port exits", ev, len);
}

static int eval_serial(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs ports[] = {
		{ KVM_OBJ_PORT, 0x3f8, 0x3ff, OBJ_DIR_WRITE },		/* COM1 */
		{ KVM_OBJ_PORT, 0x2f8, 0x2ff, OBJ_DIR_WRITE },		/* COM2 */
		{ KVM_OBJ_PORT, 0x3e8, 0x3ef, OBJ_DIR_WRITE },		/* COM3 */
		{ KVM_OBJ_PORT, 0x2e8, 0x2ef, OBJ_DIR_WRITE },		/* COM4 */
	};

	return objs_eval(in, ports, 4, false, SERIAL_RATE, "serial port writes", ev, len);
}

static int eval_ipi(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs icr[] = {
		{ KVM_OBJ_MSR, 0x830, 0x830, OBJ_DIR_WRITE },		/* x2APIC ICR */
		{ KVM_OBJ_APIC, 0x300, 0x300, OBJ_DIR_WRITE },		/* xAPIC ICR (low half sends) */
	};

	return objs_eval(in, icr, 2, false, IPI_RATE, "ICR writes (IPIs sent)", ev, len);
}

static int eval_tsc_deadline(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs msr[] = { { KVM_OBJ_MSR, 0x6e0, 0x6e0, OBJ_DIR_WRITE } };

	return objs_eval(in, msr, 1, false, TSCDL_RATE, "TSC deadline writes", ev, len);
}

static int eval_mmio_page(const struct finding_in *in, char *ev, size_t len)
{
	/* the local APIC's page is no device's doorbell: without kvm_apic its writes stay MMIO */
	static const struct findings_objs page[] = {
		{ KVM_OBJ_MMIO, 0, 0xfedff000, OBJ_DIR_WRITE },
		{ KVM_OBJ_MMIO, 0xfee01000, UINT64_MAX, OBJ_DIR_WRITE },
		{ KVM_OBJ_MMIO_ARM64, 0, UINT64_MAX, OBJ_DIR_WRITE },	/* arm64: no page is the LAPIC's */
	};

	return objs_eval(in, page, 3, true, PAGE_RATE, "MMIO writes", ev, len);
}

static int eval_wfx(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs wfx[] = { { KVM_OBJ_WFX, 0, UINT64_MAX, OBJ_DIR_NONE } };

	return objs_eval(in, wfx, 1, false, WFX_RATE, "WFI/WFE exits", ev, len);
}

static int eval_h_cede(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs cede[] = { { KVM_OBJ_PPC_HCALL, 0xe0, 0xe0, OBJ_DIR_NONE } };

	return objs_eval(in, cede, 1, false, CEDE_RATE, "H_CEDE hcalls", ev, len);
}

static int eval_diag_yield(const struct finding_in *in, char *ev, size_t len)
{
	static const struct findings_objs yield[] = {
		{ KVM_OBJ_S390_DIAG, 0x44, 0x44, OBJ_DIR_NONE },	/* time slice end */
		{ KVM_OBJ_S390_DIAG, 0x9c, 0x9c, OBJ_DIR_NONE },	/* ... directed */
	};

	return objs_eval(in, yield, 2, false, YIELD_RATE, "diagnose yields", ev, len);
}

const struct finding_rule finding_rules[] = {
	{ "overcommit", FSC_VCPU, "the vCPU thread's wait time (sched events or /proc) and stolen_by",
	  "wait >= 10 % of the snapshot (severe from 30 %)",
	  "the vCPU thread was runnable but had no CPU: the host's CPUs are overcommitted, or a noisy "
	  "neighbour takes them",
	  "give the vCPU threads CPUs of their own: fewer runnable threads than CPUs, the vCPUs pinned "
	  "(taskset, cgroup cpusets, libvirt <vcpupin>) away from the thieves named, or those moved",
	  "Linux Documentation/admin-guide/cgroup-v2.rst (cpuset); libvirt domain XML <cputune>",
	  eval_overcommit },
	{ "legacy-io", FSC_VM, "the VM's port I/O exits (VMX IO_INSTRUCTION, SVM io) and their ports, as the objects table counts them",
	  ">= 1000 port I/O exits/s",
	  "the guest drives an emulated legacy device by port I/O: every access is an exit to the VMM",
	  "use paravirtual (virtio) devices instead of emulated ones (serial, IDE, e1000, PIT/RTC "
	  "polling); for a device that must stay, KVM_IOEVENTFD lets the kernel take writes",
	  "QEMU documentation (virtio devices); Linux Documentation/virt/kvm/api.rst (KVM_IOEVENTFD)",
	  eval_legacy_io },
	{ "mmio", FSC_VM, "the VM's MMIO exits (VMX EPT_MISCONFIG, arm64 DABT_LOW) and kvm_mmio events",
	  ">= 1000 emulated MMIO accesses/s",
	  "the guest drives a device emulated by MMIO: every access is decoded and emulated",
	  "use virtio with ioeventfd (QEMU's default for virtio) or vhost so notifications stay in the "
	  "kernel; avoid devices polled through registers",
	  "Linux Documentation/virt/kvm/api.rst (KVM_IOEVENTFD); QEMU documentation (ioeventfd, vhost)",
	  eval_mmio },
	{ "spinlock", FSC_VM, "the VM's PAUSE exits (pause-loop exiting) and kvm_ple_window_update events",
	  ">= 1000 PAUSE exits/s",
	  "vCPUs spin on locks whose holders are not running (lock-holder preemption)",
	  "give vCPUs dedicated CPUs or less overcommit; use paravirtual spinlocks in the guest "
	  "(KVM_FEATURE_PV_UNHALT); on hosts never overcommitted PLE only costs (kvm_intel.ple_gap=0, "
	  "kvm_amd.pause_filter_count=0)",
	  "Linux Documentation/virt/kvm/x86/cpuid.rst (KVM_FEATURE_PV_UNHALT); kvm_intel and kvm_amd "
	  "module parameters",
	  eval_spinlock },
	{ "halt-polling", FSC_VCPU, "the vCPU's HLT/WFI exits and their latency (how long it slept)",
	  ">= 1000 halt exits/s with a median sleep under 500 us",
	  "the vCPU halts and wakes very often: each halt pays for a sleep and a wakeup",
	  "let KVM poll before sleeping: raise kvm.halt_poll_ns (or per VM, KVM_CAP_HALT_POLL) to about "
	  "the median sleep, at the cost of host CPU; with dedicated CPUs, the guest can poll "
	  "(cpuidle-haltpoll)",
	  "Linux Documentation/virt/kvm/halt-polling.rst and Documentation/virt/guest-halt-polling.rst",
	  eval_halt_poll },
	{ "slow-exits", FSC_VM, "each reason's exit latency: p50, p99, and the split (handling, preempted, blocked)",
	  "a non-blocking reason with >= 100 exits, p99 >= 100 us and p99 >= 10 x p50",
	  "some exits of a reason take far longer than most: with the split, preempted or blocked time "
	  "says the host (its scheduler, its locks, its memory), not KVM's handling, made them slow",
	  "preempted: the vCPU thread lost its CPU inside the exit (see overcommit); blocked: it slept "
	  "(host page faults, swap, locks: check the host's memory and THP); handling: KVM's own work "
	  "(kvm_stat, perf kvm stat for the detail)",
	  "kvmtop's exit split (man page DEFINITIONS); Linux Documentation/virt/kvm",
	  eval_slow },
	{ "vmm-bound", FSC_VCPU, "the vCPU thread's VMM time and its userspace exits by reason",
	  "VMM time >= 20 % of the snapshot",
	  "the vCPU spends its time in the VMM's user space emulating devices",
	  "move the device work into the kernel (vhost-net, vhost-user, the in-kernel irqchip), use "
	  "virtio with ioeventfd, and QEMU iothreads for the rest",
	  "QEMU documentation (vhost, ioeventfd, iothreads)",
	  eval_vmm },
	{ "swapped", FSC_VM, "the VMM's swapped-out memory (VmSwap), major faults/s, its memory pressure",
	  "swapped memory and >= 10 major faults/s (severe from 1000), or >= 10 % of its memory swapped",
	  "the host swapped out the VM's memory: a guest access to it waits for the disk",
	  "give the host the memory its guests are promised: fewer or smaller VMs, no overcommit of RAM, "
	  "the VM's memory locked (QEMU -overcommit mem-lock=on, libvirt <memoryBacking><locked/>) or in "
	  "huge pages, a balloon driver to take memory back from guests instead of swapping it",
	  "Linux Documentation/admin-guide/mm/concepts.rst; libvirt domain XML <memoryBacking>; QEMU -overcommit",
	  eval_swapped },
	{ "memory-pressure", FSC_VM, "PSI of the VM's own cgroup v2: memory.pressure's some and full",
	  "some >= 10 % of the snapshot (severe when full >= 10 %)",
	  "the VM's tasks wait for memory: reclaim, swap-in or refaults of its cgroup (or the host's)",
	  "raise the cgroup's memory.high/memory.max (libvirt <memtune>) or the host's free memory; "
	  "see swapped and the VM's major faults",
	  "Linux Documentation/accounting/psi.rst; Documentation/admin-guide/cgroup-v2.rst",
	  eval_mem_pressure },
	{ "io-pressure", FSC_VM, "PSI of the VM's own cgroup v2: io.pressure's some and full",
	  "some >= 20 % of the snapshot (severe when full >= 10 %)",
	  "the VM's tasks wait for block I/O: its disks are slow or throttled",
	  "check the VM's disk rates (vm_disk_rd_bytes_per_s, vm_disk_wr_bytes_per_s) against its storage and any io.max or "
	  "libvirt <iotune> limit; use virtio-blk or virtio-scsi with an iothread and aio=native or "
	  "io_uring, cache=none",
	  "Linux Documentation/accounting/psi.rst; QEMU documentation (iothreads, aio); libvirt <iotune>",
	  eval_io_pressure },
	{ "tap-drops", FSC_VM, "the rx and tx drops of the tap/macvtap interfaces its VMM holds",
	  ">= 1 drop/s",
	  "packets to or from the VM are dropped on the host's side of its network interface",
	  "a full tap queue: more queues (multiqueue virtio-net with vhost-net), a longer txqueuelen, "
	  "vhost-net's threads on CPUs of their own; check the bridge or macvtap's lower device too",
	  "Linux Documentation/networking/tuntap.rst; QEMU documentation (virtio-net multiqueue, vhost)",
	  eval_tap_drops },
	{ "numa-remote", FSC_VM, "the VM's memory per NUMA node (numa_maps) and its vCPUs' time per node",
	  ">= 75 % of its memory on one node and < 50 % of its vCPUs' time on that node's CPUs",
	  "the guest's memory is mostly on another NUMA node than its vCPUs run on: its accesses cross "
	  "the interconnect",
	  "keep a VM's vCPUs and memory on one node: pin the vCPUs to that node's CPUs and bind the "
	  "memory (libvirt <numatune> and <vcpupin>, numactl, cpuset.mems), or give it a virtual NUMA "
	  "topology matching the host's; automatic NUMA balancing (kernel.numa_balancing) moves it in time",
	  "Linux Documentation/admin-guide/mm/numa_memory_policy.rst; libvirt domain XML <numatune>",
	  eval_numa },
	{ "timer-polling", FSC_VM, "the VM's exits on the PIT (0x40-0x43), CMOS RTC (0x70-0x71) and ACPI PM "
	  "timer (0x608-0x60b, 0xb008-0xb00b) ports",
	  ">= 500 exits/s on those ports",
	  "the guest reads the time from emulated timer hardware by port I/O: every read is an exit",
	  "make kvmclock or the TSC the guest's clocksource (Linux: clocksource=kvm-clock or tsc, see "
	  "/sys/devices/system/clocksource/clocksource0/current_clocksource); give the guest the kvmclock "
	  "CPUID feature and an invariant TSC",
	  "Linux Documentation/virt/kvm/x86/msr.rst (kvmclock); Documentation/admin-guide/kernel-parameters.txt (clocksource)",
	  eval_timer_poll },
	{ "serial-console", FSC_VM, "the VM's port writes to the serial ports (COM1-COM4: 0x3f8, 0x2f8, "
	  "0x3e8, 0x2e8 and the 7 after each)",
	  ">= 500 writes/s",
	  "the guest writes to an emulated UART, a byte an exit: a console or a log on the serial port",
	  "use virtio-console (hvc0) for the console, or write less to it (a lower loglevel, quiet)",
	  "QEMU documentation (virtio-serial, virtconsole); Linux Documentation/admin-guide/serial-console.rst",
	  eval_serial },
	{ "ipi", FSC_VM, "the VM's writes to the ICR: x2APIC MSR 0x830 and the APIC register 0x300",
	  ">= 1000 ICR writes/s",
	  "the guest sends many IPIs, each an exit to KVM",
	  "posted interrupts and IPI virtualization (Intel IPIv: kvm_intel.enable_ipiv, AMD AVIC: "
	  "kvm_amd.avic), or PV send-IPI (KVM_FEATURE_PV_SEND_IPI, kvm-pv-ipi) in the guest to send many in one hypercall",
	  "Linux Documentation/virt/kvm/x86/cpuid.rst (KVM_FEATURE_PV_SEND_IPI); kvm_intel and kvm_amd module parameters",
	  eval_ipi },
	{ "tsc-deadline", FSC_VCPU, "the vCPU's writes to IA32_TSC_DEADLINE (MSR 0x6e0)",
	  ">= 1000 writes/s, a vCPU",
	  "the guest programs its timer very often: each TSC deadline write is an exit",
	  "a tickless guest (nohz) with a lower HZ; on Intel, KVM's preemption timer for the guest's timer "
	  "(kvm_intel.preemption_timer=1, the default) if it was disabled",
	  "Linux Documentation/timers/no_hz.rst; kvm_intel module parameters (preemption_timer)",
	  eval_tsc_deadline },
	{ "mmio-page", FSC_VM, "the VM's MMIO writes per page (kvm_mmio) other than the local APIC's "
	  "(0xfee00000)",
	  ">= 1000 writes/s on one page",
	  "the guest writes one MMIO page very often, each write emulated: a device's doorbell, as a virtio "
	  "notify register without ioeventfd",
	  "let the kernel take the writes: ioeventfd for the device (QEMU's virtio ioeventfd=on, the "
	  "default), vhost for network and block",
	  "Linux Documentation/virt/kvm/api.rst (KVM_IOEVENTFD); QEMU documentation (ioeventfd, vhost)",
	  eval_mmio_page },
	{ "h-cede", FSC_VM, "the VM's powerpc H_CEDE hcalls (kvm_hcall_enter, or exits that leave the vCPU ceded)",
	  ">= 1000 H_CEDE/s",
	  "the guest's vCPUs are idle and cede very often: each cede is an exit, a sleep and a wakeup",
	  "give the VM fewer vCPUs (the ones it keeps busy); let KVM poll before the vCPU sleeps "
	  "(kvm.halt_poll_ns, per VM KVM_CAP_HALT_POLL; kvm-hv polls per virtual core) at the cost of "
	  "host CPU",
	  "Linux Documentation/virt/kvm/halt-polling.rst (the powerpc kvm-hv case); arch/powerpc/kvm/book3s_hv.c",
	  eval_h_cede },
	{ "diag-yield", FSC_VM, "the VM's s390 DIAGNOSE 0x44 (time slice end) and 0x9c (directed yield) "
	  "(kvm_s390_handle_diag)",
	  ">= 1000 yields/s",
	  "the guest's vCPUs spin on locks whose holder is not running and give their time away: a yield "
	  "storm, its vCPUs contend for the host's CPUs",
	  "give the VM fewer vCPUs than the host has CPUs, or CPUs of their own (pinning, cgroup cpusets); "
	  "when the host runs in an LPAR, kvm.diag9c_forwarding_hz lets directed yields reach the LPAR "
	  "hypervisor",
	  "arch/s390/kvm/diag.c (__diag_time_slice_end, __diag_time_slice_end_directed, "
	  "diag9c_forwarding_hz)",
	  eval_diag_yield },
	{ "wfx-trapping", FSC_VCPU, "the arm64 vCPU's WFx exits by instruction, WFI or WFE (kvm_wfx_arm64)",
	  ">= 1000 WFI/WFE exits/s, a vCPU",
	  "the guest waits (WFI for an interrupt, WFE for an event, often in spin locks) and each wait traps "
	  "to KVM: an exit, a sleep and a wakeup every time",
	  "where each vCPU has a CPU of its own (pinned, nothing else runnable there), let the guest wait in "
	  "place: kvm-arm.wfi_trap_policy=notrap and kvm-arm.wfe_trap_policy=notrap on the host's command line "
	  "(Linux 6.11 and later; the architecture allows the traps, it does not promise them).  Without them "
	  "KVM stops trapping WFE, and WFI with GICv4 direct injection, only while the vCPU is its CPU's one "
	  "task; on an overcommitted host keep the traps: a waiting vCPU gives its CPU away",
	  "Linux Documentation/admin-guide/kernel-parameters.txt (kvm-arm.wfi_trap_policy, "
	  "kvm-arm.wfe_trap_policy); arch/arm64/kvm/arm.c (kvm_vcpu_should_clear_twi, _twe)",
	  eval_wfx },
	{ "lost-events", FSC_HOST, "the snapshot's lost and dropped events",
	  "any",
	  "events were lost or dropped: this snapshot's figures are incomplete",
	  "larger trace buffers (--buffer-kb), fewer events (--no-sched), a larger --max-vcpus",
	  "kvmtop(1)",
	  eval_lost },
};

const size_t finding_nr_rules = sizeof(finding_rules) / sizeof(finding_rules[0]);

const char *finding_severity_name(enum finding_severity s)
{
	return s == FS_SEVERE ? "severe" : s == FS_WARNING ? "warning" : "info";
}

/* Every rule of scope kind on in: 0, or -1 (no memory). */
static int eval_scope(struct findings *f, const struct finding_in *in, enum finding_scope kind)
{
	char evidence[sizeof(f->f->evidence)];
	size_t i;
	int sev;

	for (i = 0; i < finding_nr_rules; i++) {
		const struct finding_rule *r = &finding_rules[i];
		struct finding *n;

		if (r->scope != kind || (sev = r->eval(in, evidence, sizeof(evidence))) < 0)
			continue;
		if (f->nr == f->alloc) {
			size_t a = f->alloc ? 2 * f->alloc : 16;

			n = reallocarray(f->f, a, sizeof(*n));
			if (!n)
				return -1;
			f->f = n;
			f->alloc = a;
		}
		n = &f->f[f->nr++];
		n->rule = r;
		n->severity = (enum finding_severity)sev;
		n->vm = in->vm;
		n->vcpu = in->vcpu;
		strlcpy(n->evidence, evidence, sizeof(n->evidence));
		f->severe |= sev == FS_SEVERE;
	}
	return 0;
}

/* A VM and its vCPU threads: 0, or -1 (no memory). */
static int eval_vm(struct findings *f, struct finding_in *in)
{
	const struct vcpu *v;
	struct model_scope sc;
	int ret;

	ret = model_scope_vm(&sc, in->m, in->vm, false) || model_scope_summary(&sc) ? -1 : 0;
	in->sc = &sc;
	in->vcpu = NULL;
	if (!ret)
		ret = eval_scope(f, in, FSC_VM);
	model_scope_free(&sc);
	MODEL_FOREACH_VCPU(v, in->vm) {
		if (ret)
			break;
		in->vcpu = v;
		ret = model_scope_vcpu(&sc, in->m, v, false) || model_scope_summary(&sc) ? -1 : 0;
		in->sc = &sc;
		if (!ret)
			ret = eval_scope(f, in, FSC_VCPU);
		model_scope_free(&sc);
	}
	return ret;
}

int findings_eval(struct findings *f, const struct model *m, uint64_t start, uint64_t end, bool ns)
{
	struct finding_in in = { .m = m, .len = end > start ? end - start : 0 };
	struct model_scope host;
	int ret;

	f->nr = 0;
	f->severe = false;
	in.secs = ns ? (double)in.len / 1e9 : 0;
	ret = model_scope_host(&host, m, false);
	in.sc = &host;
	if (!ret)
		ret = eval_scope(f, &in, FSC_HOST);
	model_scope_free(&host);
	MODEL_FOREACH_VM(in.vm, m)
		if (!ret)
			ret = eval_vm(f, &in);
	return ret;
}

void findings_free(struct findings *f)
{
	free(f->f);
	memset(f, 0, sizeof(*f));
}
