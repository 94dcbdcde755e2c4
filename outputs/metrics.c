// SPDX-License-Identifier: GPL-2.0
/*
 * The model as metrics for Prometheus: the text exposition format 0.0.4
 * (what node_exporter's textfile collector and every scraper read) or
 * OpenMetrics 1.0 (what a scraper asks for in its Accept header).  Both
 * -b -o prometheus|openmetrics and the --listen exporter (export.c)
 * print through here, so a figure is the same in each; man/kvmtop.1's
 * METRICS section lists every family.
 *
 * Every counter is a total since kvmtop started: it never goes back
 * while kvmtop runs, and a VM that ends leaves the output with its
 * process.  Families are declared once in families[]; the VMs are walked
 * once, each family's lines going to its own buffer, then the buffers
 * are written in the table's order, each under its HELP and TYPE.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "metrics.h"
#include "model/model_fields.h"
#include "decode/objects.h"
#include "model/model_scope.h"
#include "model/model_view.h"
#include "model/model_time.h"
#include "model/model_steal.h"

enum fam_id {
	FAM_EXITS,
	FAM_LATENCY,
	FAM_VCPU_SECONDS,
	FAM_STOLEN,
	FAM_OBJECTS,
	FAM_EVENTS,
	FAM_UEXITS,
	FAM_VM_MEMORY,
	FAM_VM_HUGE,
	FAM_VM_MAJFLT,
	FAM_VM_DISK_BYTES,
	FAM_VM_DISK_OPS,
	FAM_VM_BLKIO,
	FAM_VM_NET_BYTES,
	FAM_VM_NET_PACKETS,
	FAM_VM_NET_DROPS,
	FAM_VM_PRESSURE,
	FAM_VM_INFO,
	FAM_LOST,
	FAM_DROPPED,
	FAM_VMS,
	FAM_VCPUS,
	FAM_CPU,
	FAM_RSS,
	FAM_BUILD,
	FAM_NR,
};

_Static_assert(FAM_NR == METRICS_FAMILIES, "metrics.h counts the families");

struct family {
	const char *name;	/* the OpenMetrics family name (no _total) */
	const char *type;	/* counter, gauge, histogram */
	const char *unit;	/* OpenMetrics UNIT, or NULL */
	const char *help;
};

static const struct family families[FAM_NR] = {
	[FAM_EXITS] = { "kvmtop_exits", "counter", NULL,
		"KVM exits by VM and exit reason (per vCPU with --metrics-per-vcpu)" },
	[FAM_LATENCY] = { "kvmtop_exit_latency_seconds", "histogram", "seconds",
		"Exit-handling latency (exit to the next entry of the same vCPU) by exit reason, "
		"of the host (--metrics-latency: by VM or vCPU too)" },
	[FAM_VCPU_SECONDS] = { "kvmtop_vcpu_seconds", "counter", "seconds",
		"vCPU threads' time by state: guest, host, vmm, halt, wait (runnable, waiting for a CPU)" },
	[FAM_STOLEN] = { "kvmtop_vcpu_stolen_seconds", "counter", "seconds",
		"Per vCPU, the time another thread ran on its CPU while it waited for one (--metrics-stolen)" },
	[FAM_OBJECTS] = { "kvmtop_object_exits", "counter", NULL,
		"KVM exits by VM, exit reason and what they touched: port, MMIO page, MSR ... (--metrics-objects)" },
	[FAM_EVENTS] = { "kvmtop_events", "counter", NULL,
		"KVM events other than exits and entries by VM and event" },
	[FAM_UEXITS] = { "kvmtop_userspace_exits", "counter", NULL,
		"Exits to the VMM's user space (kvm_userspace_exit) by VM and reason" },
	[FAM_VM_MEMORY] = { "kvmtop_vm_memory_bytes", "gauge", "bytes",
		"The VMM's memory: resident, swapped out, and the guest's RAM (-m or its largest mapping)" },
	[FAM_VM_HUGE] = { "kvmtop_vm_huge_pages_ratio", "gauge", "ratio",
		"The share of the guest's RAM backed by huge pages (transparent and hugetlbfs)" },
	[FAM_VM_MAJFLT] = { "kvmtop_vm_major_faults", "counter", NULL,
		"Major page faults of the VMM process (pages read from disk or swap)" },
	[FAM_VM_DISK_BYTES] = { "kvmtop_vm_disk_bytes", "counter", "bytes",
		"Bytes the VMM and its I/O threads read and wrote from and to the block layer (/proc/PID/io)" },
	[FAM_VM_DISK_OPS] = { "kvmtop_vm_disk_operations", "counter", NULL,
		"Read and write calls of the VMM and its I/O threads (syscr, syscw)" },
	[FAM_VM_BLKIO] = { "kvmtop_vm_blkio_delay_seconds", "counter", "seconds",
		"Time the VMM's threads waited for block I/O (delay accounting), summed over threads" },
	[FAM_VM_NET_BYTES] = { "kvmtop_vm_network_bytes", "counter", "bytes",
		"Bytes of the VM's tap/macvtap interfaces, as the host's side counts them (rx: from the guest)" },
	[FAM_VM_NET_PACKETS] = { "kvmtop_vm_network_packets", "counter", NULL,
		"Packets of the VM's tap/macvtap interfaces (rx: from the guest)" },
	[FAM_VM_NET_DROPS] = { "kvmtop_vm_network_drops", "counter", NULL,
		"Packets dropped on the VM's tap/macvtap interfaces, rx and tx" },
	[FAM_VM_PRESSURE] = { "kvmtop_vm_pressure_seconds", "counter", "seconds",
		"PSI of the VM's own cgroup v2: time some (or all) of its tasks stalled on cpu, memory, io" },
	[FAM_VM_INFO] = { "kvmtop_vm_info", "gauge", NULL,
		"Per VM, always 1: who it is, its best name, UUID and where they come from (--metrics-identity)" },
	[FAM_LOST] = { "kvmtop_lost_events", "counter", NULL,
		"Trace events the kernel's buffers overwrote before kvmtop read them" },
	[FAM_DROPPED] = { "kvmtop_dropped_events", "counter", NULL,
		"Events of vCPU threads past --max-vcpus, not counted" },
	[FAM_VMS] = { "kvmtop_vms", "gauge", NULL, "VMs present" },
	[FAM_VCPUS] = { "kvmtop_vcpus", "gauge", NULL, "vCPU threads present" },
	[FAM_CPU] = { "kvmtop_cpu_seconds", "counter", "seconds", "kvmtop's own CPU time, user and system" },
	[FAM_RSS] = { "kvmtop_resident_memory_bytes", "gauge", "bytes", "kvmtop's own resident memory" },
	[FAM_BUILD] = { "kvmtop_build_info", "gauge", NULL, "kvmtop's version, always 1" },
};

/* Bucket bounds of the latency histogram, ns: 1 us to 1 s, as Prometheus' defaults go. */
static const uint64_t default_le_ns[] = {
	1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000,
	100000000, 250000000, 500000000, 1000000000,
};

void metrics_opts_init(struct metrics_opts *o)
{
	memset(o, 0, sizeof(*o));
	memcpy(o->le_ns, default_le_ns, sizeof(default_le_ns));
	o->nr_le = sizeof(default_le_ns) / sizeof(default_le_ns[0]);
}

/*
 * A label value as the exposition formats want it: '\' '"' and newline
 * escaped, and valid UTF-8 (an invalid byte becomes U+FFFD), so a VM
 * named with anything still gives a document every parser reads.  Other
 * control bytes (a terminal's escapes) become U+FFFD too: the formats
 * have no escape for them, and a label is shown on screens and consoles.
 */
static void label_value(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned int n = 0, i;

		if (*p == '\\' || *p == '"') {
			fputc('\\', f);
			fputc(*p++, f);
			continue;
		}
		if (*p == '\n') {
			fputs("\\n", f);
			p++;
			continue;
		}
		if (*p < 0x20 || *p == 0x7f) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		if (*p < 0x80) {
			fputc(*p++, f);
			continue;
		}
		/* a whole UTF-8 sequence, shortest form, no surrogates, up to U+10FFFF */
		if (*p >= 0xc2 && *p <= 0xdf)
			n = 1;
		else if (*p >= 0xe0 && *p <= 0xef)
			n = 2;
		else if (*p >= 0xf0 && *p <= 0xf4)
			n = 3;
		/* how many bytes after the lead are right for it */
		for (i = 1; i <= n; i++) {
			unsigned char lo = 0x80, hi = 0xbf;

			if (i == 1 && *p == 0xe0)
				lo = 0xa0;
			else if (i == 1 && *p == 0xed)
				hi = 0x9f;
			else if (i == 1 && *p == 0xf0)
				lo = 0x90;
			else if (i == 1 && *p == 0xf4)
				hi = 0x8f;
			if (p[i] < lo || p[i] > hi)
				break;
		}
		if (!n || i <= n) {
			/* one U+FFFD for the lead and the right bytes after it (Unicode's maximal subpart) */
			fputs("\xef\xbf\xbd", f);
			p += n ? i : 1;
			continue;
		}
		fwrite(p, 1, n + 1, f);
		p += n + 1;
	}
}

/* HELP text: '\' and newline escaped (the texts are ours, but the rule is the format's). */
static void help_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* ns as exact decimal seconds: 2500 -> 0.0000025, 1000000000 -> 1 */
static void seconds(FILE *f, uint64_t ns)
{
	char frac[16];
	int i;

	snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000u);
	for (i = 8; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	fprintf(f, "%" PRIu64 "%s%s", ns / 1000000000u, frac[0] ? "." : "", frac);
}

/*
 * The labels of a VM's series, in their order: each the value of a VM's
 * field of the table (model_fields.h), by name.  A vCPU's series add
 * vcpu, its "vcpu" field, or "tid" and its "vcpu_tid" field where the index
 * is not known or another thread of the VM has it (vcpu_label).
 */
static const struct {
	const char *label;
	const char *field;
} metrics_vm_labels[] = {
	{ "vm", "vm_name" },
	{ "pid", "vm_pid" },
};

#define NR_METRICS_VM_LABELS	(sizeof(metrics_vm_labels) / sizeof(metrics_vm_labels[0]))

/* --metrics-identity: kvmtop_vm_info's labels after the VM's, each a VM field ("" where not known). */
static const struct {
	const char *label;
	const char *field;
} metrics_info_labels[] = {
	{ "display_name", "vm_display_name" },
	{ "name_from", "vm_name_from" },
	{ "uuid", "vm_uuid" },
	{ "project", "vm_project" },
	{ "flavor", "vm_flavor" },
};

#define NR_METRICS_INFO_LABELS	(sizeof(metrics_info_labels) / sizeof(metrics_info_labels[0]))

/*
 * A VM's and a reason's labels are escaped once, not on each of a
 * histogram's 23 lines: 1,000 VMs of 20 reasons are 460,000 lines.
 */
#define LABELS_LEN	512	/* a name is at most 63 bytes, 189 escaped */

struct out {
	FILE *f[FAM_NR];
	char *buf[FAM_NR];
	size_t len[FAM_NR];
	const struct metrics_opts *o;
	const struct model *m;
	char vm[LABELS_LEN];	/* {vm="...",pid="N" of the VM being written */
	char le[METRICS_MAX_LE][32];	/* ,le="0.0000025"} */
	/* the fields the labels are of, looked up once */
	const struct model_field *vm_f[NR_METRICS_VM_LABELS];
	const struct model_field *info_f[NR_METRICS_INFO_LABELS];
	const struct model_field *vcpu_f, *tid_f;
};

/* pre, s escaped, then post, into buf: a NUL-terminated string ("" if it did not fit). */
static void labels_of(char *buf, size_t len, const char *pre, const char *s, const char *post)
{
	FILE *f = fmemopen(buf, len, "w");

	buf[0] = '\0';
	if (!f)
		return;
	fputs(pre, f);
	label_value(f, s);
	fputs(post, f);
	if (fputc('\0', f) == EOF || fclose(f))
		buf[0] = '\0';
}

/* The fields the VM's and vCPU's labels are of, by name (model_fields.h). */
static void label_fields(struct out *o)
{
	unsigned int i;

	for (i = 0; i < NR_METRICS_VM_LABELS; i++)
		o->vm_f[i] = model_field(metrics_vm_labels[i].field);
	for (i = 0; i < NR_METRICS_INFO_LABELS; i++)
		o->info_f[i] = model_field(metrics_info_labels[i].field);
	o->vcpu_f = model_field("vcpu");
	o->tid_f = model_field("vcpu_tid");
}

/* Field mf of row as a label's value: a whole number, or a string escaped. */
static void field_label(FILE *f, const struct model_field *mf, const struct model_row *row)
{
	struct model_field_val v;
	bool has;

	model_field_value(mf, row, &v, &has);
	switch (mf->kind) {
	case MF_TEXT:
		label_value(f, v.unknown || !v.s ? "" : v.s);
		break;
	case MF_INT:
		fprintf(f, "%" PRId64, v.i);
		break;
	default:
		fprintf(f, "%" PRIu64, v.u);
		break;
	}
}

/* {vm="...",pid="..." of vm into o->vm, escaped once ("" if it did not fit). */
static void vm_labels_of(struct out *o, const struct vm *vm)
{
	const struct model_row row = { .m = o->m, .vm = vm };
	FILE *f = fmemopen(o->vm, sizeof(o->vm), "w");
	unsigned int i;
	bool cut;

	o->vm[0] = '\0';
	if (!f)
		return;
	for (i = 0; i < NR_METRICS_VM_LABELS; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "{", metrics_vm_labels[i].label);
		field_label(f, o->vm_f[i], &row);
		fputc('"', f);
	}
	cut = fputc('\0', f) == EOF;
	if (fclose(f) || cut)
		o->vm[0] = '\0';
}

/* {vm="...",pid="..." (the caller closes the brace): the VM's, escaped once */
static void vm_labels(const struct out *o, FILE *f)
{
	fputs(o->vm, f);
}

/* vm="...",pid="..." without the brace: the VM's labels for latency() */
static const char *vm_pre(const struct out *o)
{
	return o->vm[0] ? o->vm + 1 : "";
}

static void reason_labels_of(char *buf, size_t len, const struct reason *r)
{
	char name[96], isa[40];

	snprintf(isa, sizeof(isa), "\",isa=\"%s\"", kvm_isa_name(r->isa));
	labels_of(buf, len, ",reason=\"", reason_label(r, name, sizeof(name)), isa);
}

static void reason_labels(FILE *f, const struct reason *r)
{
	char buf[LABELS_LEN];

	reason_labels_of(buf, sizeof(buf), r);
	fputs(buf, f);
}

/* a count, the line's end: " N\n" */
static void value(FILE *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	*--p = '\n';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	*--p = ' ';
	fwrite(p, 1, (size_t)(b + sizeof(b) - p), f);
}

/* The vcpu label: its index, or "tidT" when unknown or when another thread of the VM has it. */
static void vcpu_label(const struct out *o, FILE *f, const struct vcpu *v, bool dup)
{
	const struct model_row row = { .m = o->m, .vm = v->vm, .v = v };
	struct model_field_val id;
	bool has;

	model_field_value(o->vcpu_f, &row, &id, &has);
	fputs(",vcpu=\"", f);
	if (id.i >= 0 && !dup) {
		field_label(f, o->vcpu_f, &row);
	} else {
		fputs("tid", f);
		field_label(f, o->tid_f, &row);
	}
	fputc('"', f);
}

/* One histogram h of the latency family, labelled "{" pre (whose first label has no comma) ",reason=...". */
static void latency(struct out *o, const char *pre, const struct reason *r, const struct hist *h)
{
	FILE *f = o->f[FAM_LATENCY];
	char rl[LABELS_LEN], l[2 * LABELS_LEN];
	unsigned int i;

	reason_labels_of(rl, sizeof(rl), r);
	/* the host's: no label before the reason's, so its comma goes */
	snprintf(l, sizeof(l), "{%s%s", pre, pre[0] ? rl : rl + 1);
	for (i = 0; i < o->o->nr_le; i++) {
		fputs("kvmtop_exit_latency_seconds_bucket", f);
		fputs(l, f);
		fputs(o->le[i], f);
		value(f, hist_count_le(h, o->o->le_ns[i]));
	}
	fputs("kvmtop_exit_latency_seconds_bucket", f);
	fputs(l, f);
	fputs(",le=\"+Inf\"}", f);
	value(f, h->samples);
	fputs("kvmtop_exit_latency_seconds_sum", f);
	fputs(l, f);
	fputs("} ", f);
	if (h->sum_hi)
		fprintf(f, "%.9e\n", hist_mean(h) * (double)h->samples / 1e9);
	else {
		seconds(f, h->sum);
		fputc('\n', f);
	}
	fputs("kvmtop_exit_latency_seconds_count", f);
	fputs(l, f);
	fputc('}', f);
	value(f, h->samples);
}

/* The host's latency per reason (the default): 0, or -1 (no memory). */
static int host_latency(struct out *o)
{
	const struct model *m = o->m;
	unsigned int i, nr = m->reasons->nr;
	struct hist *h = calloc(nr ? nr : 1, sizeof(*h));
	int ret = -1;

	if (!h)
		return -1;
	for (i = 0; i < nr; i++)
		hist_init(&h[i]);
	if (model_host_latency(m, h, nr))
		goto out_free;
	for (i = 0; i < nr; i++)
		if (h[i].samples)
			latency(o, "", &m->reasons->r[i], &h[i]);
	ret = 0;
out_free:
	for (i = 0; i < nr; i++)
		hist_free(&h[i]);
	free(h);
	return ret;
}

/* vCPU indexes below this are told apart with a bitmap, the rest by a walk (none seen in practice) */
#define DUP_BITMAP_IDS	65536

/*
 * Has another thread of v's VM, before v, the same vCPU index?  seen: the
 * indexes of the threads before v (bits), NULL when there was no memory.
 */
static bool vcpu_dup(const struct vcpu *v, uint64_t *seen)
{
	const struct vcpu *u;
	unsigned int id = (unsigned int)v->vcpu_id;

	if (v->vcpu_id < 0)
		return false;
	if (seen && id < DUP_BITMAP_IDS) {
		bool dup = seen[id / 64] & (1ull << (id % 64));

		seen[id / 64] |= 1ull << (id % 64);
		return dup;
	}
	MODEL_FOREACH_VCPU(u, v->vm) {
		if (u == v)
			return false;
		if (u->vcpu_id == v->vcpu_id)
			return true;
	}
	return false;
}

/* --metrics-latency vcpu: each vCPU's latency per reason: 0, or -1 (no memory). */
static int vcpu_latency(struct out *o, const struct vm *vm)
{
	uint64_t *seen = calloc(DUP_BITMAP_IDS / 64, sizeof(*seen));
	char pre[2 * LABELS_LEN];
	const struct vcpu *v;
	struct hist h;
	unsigned int i;
	int ret = 0;

	hist_init(&h);
	MODEL_FOREACH_VCPU(v, vm) {
		FILE *f = fmemopen(pre, sizeof(pre), "w");

		if (!f) {
			ret = -1;
			break;
		}
		fputs(vm_pre(o), f);
		vcpu_label(o, f, v, vcpu_dup(v, seen));
		if (fputc('\0', f) == EOF || fclose(f))
			pre[0] = '\0';
		for (i = 0; pre[0] && i < model_vcpu_reasons(v); i++) {
			if (model_vcpu_reason_lat(v, i, &h)) {
				ret = -1;
				goto out_free;
			}
			if (h.samples)
				latency(o, pre, &o->m->reasons->r[i], &h);
		}
	}
out_free:
	hist_free(&h);
	free(seen);
	return ret;
}

static void per_vcpu(struct out *o, const struct vm *vm)
{
	const struct model *m = o->m;
	uint64_t *seen = calloc(DUP_BITMAP_IDS / 64, sizeof(*seen));
	const struct vcpu *v;
	unsigned int i;
	int j;

	MODEL_FOREACH_VCPU(v, vm) {
		bool dup = vcpu_dup(v, seen);

		for (i = 0; i < model_vcpu_reasons(v); i++) {
			uint64_t n = model_vcpu_reason_total(v, i);

			if (!n)
				continue;
			fputs("kvmtop_exits_total", o->f[FAM_EXITS]);
			vm_labels(o, o->f[FAM_EXITS]);
			vcpu_label(o, o->f[FAM_EXITS], v, dup);
			reason_labels(o->f[FAM_EXITS], &m->reasons->r[i]);
			fprintf(o->f[FAM_EXITS], "} %" PRIu64 "\n", n);
		}
		for (j = 0; m->names && j < VS_NR && o->o->ns; j++) {
			const struct ctr *c = model_time_ctr(m, v, j);

			if (!c)
				continue;
			fputs("kvmtop_vcpu_seconds_total", o->f[FAM_VCPU_SECONDS]);
			vm_labels(o, o->f[FAM_VCPU_SECONDS]);
			vcpu_label(o, o->f[FAM_VCPU_SECONDS], v, dup);
			fprintf(o->f[FAM_VCPU_SECONDS], ",state=\"%s\"} ", model_state_name(j));
			seconds(o->f[FAM_VCPU_SECONDS], c->total);
			fputc('\n', o->f[FAM_VCPU_SECONDS]);
		}
	}
	free(seen);
}

/* --metrics-identity: vm's kvmtop_vm_info series, its identity in labels. */
static void vm_info(struct out *o, const struct vm *vm)
{
	const struct model_row row = { .m = o->m, .vm = vm };
	FILE *f = o->f[FAM_VM_INFO];
	unsigned int i;

	fputs("kvmtop_vm_info", f);
	vm_labels(o, f);
	for (i = 0; i < NR_METRICS_INFO_LABELS; i++) {
		fprintf(f, ",%s=\"", metrics_info_labels[i].label);
		field_label(f, o->info_f[i], &row);
		fputc('"', f);
	}
	fputs("} 1\n", f);
}

/* One VM's lines into each family's buffer: 0 or -1 (no memory). */
/* --metrics-stolen: each vCPU of vm's thieves since the start, the rest as thief="other". */
static void stolen(struct out *o, const struct vm *vm)
{
	const struct model_thief *t[MODEL_THIEVES_MAX];
	const struct model *m = o->m;
	struct model_thief_who w;
	const struct vcpu *v;
	unsigned int i, n;
	uint64_t rest;
	FILE *f = o->f[FAM_STOLEN];

	MODEL_FOREACH_VCPU(v, vm) {
		n = model_steal_top_total(m, v, t, &rest);
		for (i = 0; i <= n; i++) {
			if (i == n && !rest)
				break;
			fputs("kvmtop_vcpu_stolen_seconds_total", f);
			vm_labels(o, f);
			vcpu_label(o, f, v, false);
			if (i == n) {
				fputs(",thief=\"other\",thief_tid=\"\",thief_pid=\"\",thief_vm=\"\",thief_vcpu=\"\"} ", f);
				seconds(f, rest);
				fputc('\n', f);
				continue;
			}
			model_thief_who(m, t[i], &w);
			fputs(",thief=\"", f);
			label_value(f, t[i]->tid ? w.comm : "idle");
			fprintf(f, "\",thief_tid=\"%d\",thief_pid=\"", t[i]->tid);
			if (w.pid)
				fprintf(f, "%d", w.pid);
			fputs("\",thief_vm=\"", f);
			label_value(f, w.vm ? w.vm->name : "");
			fputs("\",thief_vcpu=\"", f);
			if (w.vm && w.vcpu >= 0)
				fprintf(f, "%d", w.vcpu);
			fputs("\"} ", f);
			seconds(f, t[i]->ns);
			fputc('\n', f);
		}
	}
}

/* --metrics-objects: the exits of each of the VM's objects (scope sc) since the start. */
static void objects(struct out *o, const struct model_scope *sc)
{
	FILE *f = o->f[FAM_OBJECTS];
	unsigned int i;
	char buf[32];

	for (i = 0; i < sc->nr_objs; i++) {
		const struct model_obj_row *w = &sc->objs[i];
		const char *name = kvm_obj_name(w->kind, w->value);

		fputs("kvmtop_object_exits_total", f);
		vm_labels(o, f);
		reason_labels(f, w->r);
		fprintf(f, ",kind=\"%s\",object=\"%s\",name=\"", kvm_obj_kind_name(w->kind),
			kvm_obj_value(w->kind, w->value, buf, sizeof(buf)));
		label_value(f, name ? name : "unknown");
		fprintf(f, "\",dir=\"%s\"}", kvm_obj_dir_name(w->kind, w->dir));
		value(f, w->total);
	}
}

/*
 * The metrics of a VM's context (src/context/): gauges of the last
 * reading, counters the kernel's own totals as last read.  The rows: a
 * figure, its family and its labels after the VM's; scale turns a
 * counter into the family's unit (0: a gauge, the figure as it is).
 */
static const struct {
	enum vm_ctx_fig f;
	enum fam_id fam;
	const char *labels;
	double scale;
} vm_ctx_metrics[] = {
	{ CTX_RSS,      FAM_VM_MEMORY,      ",kind=\"resident\"",               0 },
	{ CTX_SWAP,     FAM_VM_MEMORY,      ",kind=\"swapped\"",                0 },
	{ CTX_RAM,      FAM_VM_MEMORY,      ",kind=\"guest\"",                  0 },
	{ CTX_HUGE,     FAM_VM_HUGE,        "",                                 0 },
	{ CTX_MAJFLT,   FAM_VM_MAJFLT,      "",                                 1 },
	{ CTX_RD_BPS,   FAM_VM_DISK_BYTES,  ",op=\"read\"",                     1 },
	{ CTX_WR_BPS,   FAM_VM_DISK_BYTES,  ",op=\"write\"",                    1 },
	{ CTX_RD_OPS,   FAM_VM_DISK_OPS,    ",op=\"read\"",                     1 },
	{ CTX_WR_OPS,   FAM_VM_DISK_OPS,    ",op=\"write\"",                    1 },
	{ CTX_BLKIO,    FAM_VM_BLKIO,       "",                                 -1 },
	{ CTX_RX_BPS,   FAM_VM_NET_BYTES,   ",dir=\"rx\"",                      1 },
	{ CTX_TX_BPS,   FAM_VM_NET_BYTES,   ",dir=\"tx\"",                      1 },
	{ CTX_RX_PPS,   FAM_VM_NET_PACKETS, ",dir=\"rx\"",                      1 },
	{ CTX_TX_PPS,   FAM_VM_NET_PACKETS, ",dir=\"tx\"",                      1 },
	{ CTX_DROPS,    FAM_VM_NET_DROPS,   "",                                 1 },
	{ CTX_CPU_SOME, FAM_VM_PRESSURE,    ",resource=\"cpu\",kind=\"some\"",    1e-6 },
	{ CTX_CPU_FULL, FAM_VM_PRESSURE,    ",resource=\"cpu\",kind=\"full\"",    1e-6 },
	{ CTX_MEM_SOME, FAM_VM_PRESSURE,    ",resource=\"memory\",kind=\"some\"", 1e-6 },
	{ CTX_MEM_FULL, FAM_VM_PRESSURE,    ",resource=\"memory\",kind=\"full\"", 1e-6 },
	{ CTX_IO_SOME,  FAM_VM_PRESSURE,    ",resource=\"io\",kind=\"some\"",     1e-6 },
	{ CTX_IO_FULL,  FAM_VM_PRESSURE,    ",resource=\"io\",kind=\"full\"",     1e-6 },
};

/* A VM's context figures known, each a line of its family (the labels of vm_labels_of first). */
static void vm_context(struct out *o, const struct vm *vm)
{
	const struct vm_ctx *x = &vm->ctx;
	unsigned int i;

	for (i = 0; i < sizeof(vm_ctx_metrics) / sizeof(vm_ctx_metrics[0]); i++) {
		FILE *f = o->f[vm_ctx_metrics[i].fam];
		double scale = vm_ctx_metrics[i].scale, v;
		unsigned int bit = 1u << vm_ctx_metrics[i].f;

		if (!scale && !(x->known & bit))
			continue;
		if (scale && !(x->prev_known & bit))
			continue;
		fputs(families[vm_ctx_metrics[i].fam].name, f);
		fputs(strcmp(families[vm_ctx_metrics[i].fam].type, "counter") ? "" : "_total", f);
		vm_labels(o, f);
		/* delay ticks are the kernel's USER_HZ */
		if (scale < 0)
			scale = 1.0 / (double)sysconf(_SC_CLK_TCK);
		v = !scale ? x->val[vm_ctx_metrics[i].f] : (double)x->prev[vm_ctx_metrics[i].f] * scale;
		if (vm_ctx_metrics[i].fam == FAM_VM_HUGE)
			v /= 100;
		fprintf(f, "%s} %.*g\n", vm_ctx_metrics[i].labels, scale && scale < 1 ? 9 : 17, v);
	}
}

static int one_vm(struct out *o, const struct vm *vm)
{
	const struct model *m = o->m;
	struct model_scope sc;
	unsigned int i;
	int j;

	/* the VM's histograms cost a merge per vCPU and reason: only where they are shown */
	if (o->o->latency == ML_VM ? model_scope_vm(&sc, m, vm, true) : model_scope_vm_counts(&sc, m, vm)) {
		model_scope_free(&sc);
		return -1;
	}
	vm_labels_of(o, vm);
	for (i = 0; i < sc.nr; i++) {
		const struct model_reason_row *w = &sc.rows[i];

		if (!w->total)
			continue;
		if (!o->o->per_vcpu) {
			fputs("kvmtop_exits_total", o->f[FAM_EXITS]);
			vm_labels(o, o->f[FAM_EXITS]);
			reason_labels(o->f[FAM_EXITS], w->r);
			fprintf(o->f[FAM_EXITS], "} %" PRIu64 "\n", w->total);
		}
		/* pairs only a tracing source measures: none, no histogram */
		if (o->o->latency == ML_VM && o->o->ns && w->lat.samples)
			latency(o, vm_pre(o), w->r, &w->lat);
	}
	if (o->o->latency == ML_VCPU && o->o->ns && vcpu_latency(o, vm)) {
		model_scope_free(&sc);
		return -1;
	}
	if (o->o->stolen && o->o->ns)
		stolen(o, vm);
	if (o->o->identity)
		vm_info(o, vm);
	if (o->o->objects)
		objects(o, &sc);
	if (o->o->per_vcpu) {
		per_vcpu(o, vm);
	} else if (o->o->ns) {
		for (j = 0; j < VS_NR; j++) {
			if (!(sc.time_known & (1u << j)))
				continue;
			fputs("kvmtop_vcpu_seconds_total", o->f[FAM_VCPU_SECONDS]);
			vm_labels(o, o->f[FAM_VCPU_SECONDS]);
			fprintf(o->f[FAM_VCPU_SECONDS], ",state=\"%s\"} ", model_state_name(j));
			seconds(o->f[FAM_VCPU_SECONDS], sc.time[j]);
			fputc('\n', o->f[FAM_VCPU_SECONDS]);
		}
	}
	for (j = 0; j < m->nr_other; j++) {
		if (!sc.other_total[j])
			continue;
		fputs("kvmtop_events_total", o->f[FAM_EVENTS]);
		vm_labels(o, o->f[FAM_EVENTS]);
		fputs(",event=\"", o->f[FAM_EVENTS]);
		label_value(o->f[FAM_EVENTS], m->names->other[j] ? m->names->other[j] : "?");
		fprintf(o->f[FAM_EVENTS], "\"} %" PRIu64 "\n", sc.other_total[j]);
	}
	for (j = 0; j < UEXIT_MAX; j++) {
		if (!sc.uexit_total[j])
			continue;
		fputs("kvmtop_userspace_exits_total", o->f[FAM_UEXITS]);
		vm_labels(o, o->f[FAM_UEXITS]);
		fputs(",reason=\"", o->f[FAM_UEXITS]);
		label_value(o->f[FAM_UEXITS], names_uexit(m->names, j));
		fprintf(o->f[FAM_UEXITS], "\"} %" PRIu64 "\n", sc.uexit_total[j]);
	}
	vm_context(o, vm);
	model_scope_free(&sc);
	return 0;
}

static uint64_t self_rss(void)
{
	unsigned long size, rss;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &rss);
	fclose(f);
	return n == 2 ? (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static void globals(struct out *o, int vms)
{
	const struct model *m = o->m;
	struct rusage ru;
	uint64_t cpu_ns = 0;

	fprintf(o->f[FAM_LOST], "kvmtop_lost_events_total %" PRIu64 "\n", m->lost_events.total);
	fprintf(o->f[FAM_DROPPED], "kvmtop_dropped_events_total %" PRIu64 "\n", m->dropped.total);
	fprintf(o->f[FAM_VMS], "kvmtop_vms %d\n", vms);
	fprintf(o->f[FAM_VCPUS], "kvmtop_vcpus %u\n", m->nr_vcpus - m->nr_vmm);
	if (!getrusage(RUSAGE_SELF, &ru))
		cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
			 ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
	fputs("kvmtop_cpu_seconds_total ", o->f[FAM_CPU]);
	seconds(o->f[FAM_CPU], cpu_ns);
	fputc('\n', o->f[FAM_CPU]);
	fprintf(o->f[FAM_RSS], "kvmtop_resident_memory_bytes %" PRIu64 "\n", self_rss());
	fprintf(o->f[FAM_BUILD], "kvmtop_build_info{version=\"%s\"} 1\n", PACKAGE_VERSION);
}

/* The families' HELP and TYPE (and UNIT: OpenMetrics) lines, format om, into f. */
static void family_header(FILE *f, const struct family *fm, bool om)
{
	bool counter = !strcmp(fm->type, "counter");

	/* 0.0.4 names a counter's family with its _total; OpenMetrics without */
	fprintf(f, "# HELP %s%s ", fm->name, counter && !om ? "_total" : "");
	help_text(f, fm->help);
	fprintf(f, "\n# TYPE %s%s %s\n", fm->name, counter && !om ? "_total" : "", fm->type);
	if (om && fm->unit)
		fprintf(f, "# UNIT %s %s\n", fm->name, fm->unit);
}

void metrics_doc_free(struct metrics_doc *d)
{
	int i;

	for (i = 0; i < METRICS_FAMILIES; i++)
		free(d->body[i]);
	free(d->heads);
	memset(d, 0, sizeof(*d));
}

/* Each VM's lines into their families: how many VMs, or -1 (no memory). */
static int all_vms(struct out *o)
{
	const struct vm *vm;
	int vms = 0;

	/* the host kernel's threads are host work, not a VM; the rest's row of a summary is no VM either */
	MODEL_FOREACH_VM(vm, o->m) {
		if (vm->rest)
			continue;
		vms++;
		if (one_vm(o, vm))
			return -1;
	}
	return vms;
}

int metrics_doc(struct metrics_doc *d, const struct model *m, const struct metrics_opts *o)
{
	struct out out = { .o = o, .m = m };
	size_t hl = 0, off[2][FAM_NR];
	FILE *hf = NULL;
	int i, k, vms = 0, ret = -1;

	memset(d, 0, sizeof(*d));
	label_fields(&out);
	for (i = 0; i < FAM_NR; i++) {
		out.f[i] = open_memstream(&out.buf[i], &out.len[i]);
		if (!out.f[i])
			goto out_close;
		/* one thread writes each: no lock per character */
		__fsetlocking(out.f[i], FSETLOCKING_BYCALLER);
	}
	for (i = 0; i < (int)o->nr_le; i++) {
		FILE *f = fmemopen(out.le[i], sizeof(out.le[i]), "w");

		if (!f)
			goto out_close;
		fputs(",le=\"", f);
		seconds(f, o->le_ns[i]);
		fputs("\"}", f);
		fputc('\0', f);
		fclose(f);
	}
	vms = all_vms(&out);
	if (vms < 0)
		goto out_close;
	if (o->latency == ML_HOST && o->ns && host_latency(&out))
		goto out_close;
	globals(&out, vms);
	/* every family's header in both formats, one buffer: the segments point into it */
	hf = open_memstream(&d->heads, &hl);
	if (!hf)
		goto out_close;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < FAM_NR; i++) {
			fflush(hf);
			off[k][i] = hl;
			family_header(hf, &families[i], k);
		}
	}
	fflush(hf);
	ret = 0;
out_close:
	for (i = 0; i < FAM_NR; i++) {
		if (out.f[i] && fclose(out.f[i]))
			ret = -1;
		d->body[i] = out.buf[i];
		out.buf[i] = NULL;
	}
	if (hf && fclose(hf))
		ret = -1;
	if (ret) {
		metrics_doc_free(d);
		return -1;
	}
	/* the segments of each format: a family's header and its lines, families with lines only */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < FAM_NR; i++) {
			size_t end = i + 1 < FAM_NR ? off[k][i + 1] : k ? hl : off[1][0];

			if (!out.len[i])
				continue;
			d->seg[k][d->nr[k]++] = (struct metrics_seg){ d->heads + off[k][i], end - off[k][i] };
			d->seg[k][d->nr[k]++] = (struct metrics_seg){ d->body[i], out.len[i] };
		}
		if (k)
			d->seg[k][d->nr[k]++] = (struct metrics_seg){ "# EOF\n", 6 };
		for (i = 0; i < (int)d->nr[k]; i++)
			d->total[k] += d->seg[k][i].len;
	}
	return 0;
}

int metrics_print(FILE *text, FILE *om, const struct model *m, const struct metrics_opts *o)
{
	struct metrics_doc d;
	unsigned int i;

	if (metrics_doc(&d, m, o))
		return -1;
	for (i = 0; text && i < d.nr[0]; i++)
		fwrite(d.seg[0][i].p, 1, d.seg[0][i].len, text);
	for (i = 0; om && i < d.nr[1]; i++)
		fwrite(d.seg[1][i].p, 1, d.seg[1][i].len, om);
	metrics_doc_free(&d);
	return 0;
}
