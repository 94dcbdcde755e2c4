// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as text: a header per snapshot, then per VM and per vCPU
 * thread a table of exit reasons, like perf kvm stat report.  Every
 * table's columns are fields of the table (model_fields.h) picked by
 * name, with widths, titled by their titles, "-" where a row has no
 * figure: the reasons', and the one-row tables that head a VM and a vCPU
 * thread.  With --fields, as CSV: exactly the columns asked, a row at the
 * finest level asked (batch_walk()), under one titles line a snapshot.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "util/escape.h"
#include "util/fmt.h"
#include "model/model_view.h"
#include "model/model_time.h"
#include "model/model_steal.h"

/* The text tables' columns: fields by name, and their widths (others: their title's, or 9). */
static const struct {
	const char *name;
	int width;
} text_widths[] = {
	{ "vm_pid", 8 }, { "vm_name", 30 }, { "vm_state", 8 }, { "vcpu_tid", 8 }, { "vcpu", 5 },
	{ "vcpu_comm", 20 }, { "vcpu_last_cpu", 5 },
	{ "reason", 30 }, { "isa", 6 }, { "count", 9 }, { "pct", 6 }, { "total", 10 },
	{ "latency_min", 9 }, { "latency_mean", 9 }, { "latency_p50", 9 }, { "latency_p90", 9 },
	{ "latency_p99", 9 }, { "latency_p999", 9 }, { "latency_max", 9 }, { "handling_p50", 9 },
	{ "handling_p99", 9 }, { "preempted_seconds", 10 }, { "blocked_seconds", 10 },
};

#define NR_TEXT_WIDTHS	(sizeof(text_widths) / sizeof(text_widths[0]))

/* The reasons' table's columns, without --fields (those of sched events where it has them). */
static const char *const text_reason_cols[] = {
	"reason", "isa", "count", "pct", "total", "latency_min", "latency_mean", "latency_p50",
	"latency_p90", "latency_p99", "latency_p999", "latency_max", "handling_p50", "handling_p99",
	"preempted_seconds", "blocked_seconds",
};
/* The one-row tables that head a VM and a vCPU thread. */
static const char *const text_vm_cols[] = {
	"vm_pid", "vm_name", "vm_state", "vm_grouped_by", "vm_vcpu_count", "vm_exits", "vm_exits_per_s",
};
static const char *const text_vcpu_cols[] = {
	"vcpu_tid", "vcpu", "vcpu_comm", "vcpu_last_cpu", "vcpu_exits", "vcpu_unmatched_exits",
	"vcpu_unmatched_entries",
};

#define TEXT_COLS_MAX	(BATCH_FIELDS_MAX > 16 ? BATCH_FIELDS_MAX : 16)
#define TEXT_NR(a)	(sizeof(a) / sizeof((a)[0]))

/* A column's width: text_widths' for its field, else its title's or 9. */
static int text_width(const struct model_field *f)
{
	size_t j, t = strlen(f->title);

	for (j = 0; j < NR_TEXT_WIDTHS; j++)
		if (!strcmp(text_widths[j].name, f->name))
			return text_widths[j].width;
	return t > 9 ? (int)t : 9;
}

/* One cell: f's value in row (a reason's name with its flags), a string left, a number right. */
static void text_cell(const struct batch *b, const struct model_field *f, const struct model_row *row)
{
	char buf[96], name[96];
	const char *s = buf;

	/* the flags are their own column in CSV, JSON and --fields; here, after the name */
	if (row->r && !b->nr_fields && !strcmp(f->name, "reason"))
		s = escape_text(reason_label(row->r->r, name, sizeof(name)), buf, sizeof(buf));
	else
		batch_text_value(b, f, row, buf, sizeof(buf));
	fprintf(b->out, f->kind == MF_TEXT ? "%-*s " : "%*s ", text_width(f), s);
}

/* A table's titles line: its n columns' titles, each as wide as its column. */
static void text_titles(const struct batch *b, const struct model_field *const *f, unsigned int n, const char *indent)
{
	unsigned int j;

	fputs(indent, b->out);
	for (j = 0; j < n; j++)
		fprintf(b->out, f[j]->kind == MF_TEXT ? "%-*s " : "%*s ", text_width(f[j]), f[j]->title);
	fputc('\n', b->out);
}

/* A table's line: row's value of each of its n columns. */
static void text_line(const struct batch *b, const struct model_field *const *f, unsigned int n,
		      const struct model_row *row, const char *indent)
{
	unsigned int j;

	fputs(indent, b->out);
	for (j = 0; j < n; j++)
		text_cell(b, f[j], row);
	fputc('\n', b->out);
}

/*
 * The fields called names (nr of them) into f, but for one of sched
 * events where the input has none: how many.
 */
static unsigned int text_pick(const struct batch *b, const char *const *names, unsigned int nr,
			      const struct model_field **f)
{
	unsigned int j, n = 0;

	for (j = 0; j < nr && n < TEXT_COLS_MAX; j++) {
		const struct model_field *x = model_field(names[j]);

		if (x && (!x->sched || (model_time_known(b->m) & TIME_SPLIT)))
			f[n++] = x;
	}
	return n;
}

/* A one-row table of row: its titles, then its values (a VM's or a vCPU's heading). */
static void text_heading(const struct batch *b, const char *const *names, unsigned int nr,
			 const struct model_row *row, const char *indent)
{
	const struct model_field *f[TEXT_COLS_MAX];
	unsigned int n = text_pick(b, names, nr, f);

	fputc('\n', b->out);
	text_titles(b, f, n, indent);
	text_line(b, f, n, row, indent);
}

#define TEXT_OBJS	8	/* objects shown under a reason; the rest are counted */

/* An object field's value in row as text, into buf: buf ("-" where it has none). */
static const char *text_obj_val(const struct batch *b, const char *name, const struct model_row *row,
				char *buf, size_t len)
{
	const struct model_field *f = model_field(name);
	struct model_field_val v;
	bool has;

	model_field_value(f, row, &v, &has);
	if (!has)
		snprintf(buf, len, "-");
	else if (f->kind == MF_TEXT)
		escape_text(v.s, buf, len);
	else if (f->kind == MF_TIME)
		fmt_duration((double)v.u, b->ns, 2, buf, len);
	else
		snprintf(buf, len, "%" PRIu64, v.u);
	return buf;
}

/*
 * Under a reason's line, what its exits touched: a line per object, most
 * exits first (TEXT_OBJS of them, then how many more), each its kind,
 * number, name, direction and size, its exits and share of the reason's,
 * their latency, and the guest IP most of them came from with its share
 * (named from vm's guest symbols; vm NULL: the host's rows, in hex).
 */
static void text_objects(const struct batch *b, const struct vm *vm, const struct model_scope *sc,
			 const struct model_reason_row *w, const char *indent)
{
	const struct model_obj_row *o;
	unsigned int i, n = model_scope_objs(sc, w->id, &o);
	char k[16], obj[32], name[64], dir[8], p50[16], p99[16], max[16], site[160];

	for (i = 0; i < n && i < TEXT_OBJS; i++) {
		const struct model_row row = { .m = b->m, .o = &o[i] };

		fprintf(b->out, "%s    %-12s %-10s %-30s %-5s %2u %9" PRIu64 " %6.2f%% p50 %9s p99 %9s max %9s site %s\n",
			indent, text_obj_val(b, "obj_kind", &row, k, sizeof(k)),
			text_obj_val(b, "obj_object", &row, obj, sizeof(obj)),
			text_obj_val(b, "obj_name", &row, name, sizeof(name)),
			o[i].dir ? text_obj_val(b, "obj_dir", &row, dir, sizeof(dir)) : "-", o[i].size,
			o[i].count, o[i].reason_count ? 100.0 * (double)o[i].count / (double)o[i].reason_count : 0.0,
			text_obj_val(b, "obj_latency_p50", &row, p50, sizeof(p50)),
			text_obj_val(b, "obj_latency_p99", &row, p99, sizeof(p99)),
			text_obj_val(b, "obj_latency_max", &row, max, sizeof(max)),
			batch_obj_site(b, vm, &o[i], site, sizeof(site)));
	}
	if (n > TEXT_OBJS)
		fprintf(b->out, "%s    (%u more objects)\n", indent, n - TEXT_OBJS);
}

static void text_table(const struct batch *b, const struct vm *vm, const struct model_scope *sc, const char *indent)
{
	const struct model_field *f[TEXT_COLS_MAX];
	const struct model_reason_row **rows;
	struct model_snap snap;
	unsigned int i, n, nc;

	rows = batch_rows(b, sc, &n);
	if (!rows)
		return;
	nc = text_pick(b, text_reason_cols, TEXT_NR(text_reason_cols), f);
	text_titles(b, f, nc, indent);
	batch_snap(b, b->end, &snap);
	for (i = 0; i < n; i++) {
		const struct model_row row = { .m = b->m, .r = rows[i], .snap = &snap };

		text_line(b, f, nc, &row, indent);
		text_objects(b, vm, sc, rows[i], indent);
	}
	free(rows);
}

static void text_states(const struct batch *b, const struct model_scope *sc, uint64_t end,
			const char *indent)
{
	uint64_t len = end > b->m->interval_start ? end - b->m->interval_start : 0;
	int j;

	if (!sc->time_known || !len)
		return;
	fprintf(b->out, "%stime:", indent);
	for (j = 0; j < VS_NR; j++)
		if (sc->time_known & (1u << j))
			fprintf(b->out, " %s %.1f%%", model_state_name(j), 100.0 * (double)sc->time[j] / (double)len);
	fputc('\n', b->out);
}

static void text_events(const struct batch *b, const struct model_scope *sc, const char *indent);

/* A VM's emulator and vhost threads: how many, % of one CPU on a CPU and waiting for one. */
static void text_groups(const struct batch *b, const struct vm *vm, uint64_t end)
{
	uint64_t len = end > b->m->interval_start ? end - b->m->interval_start : 0;
	const char *sep = " ";
	int g;

	if (!b->ns || !len || (!vm->groups[TG_EMULATOR].known && !vm->groups[TG_VHOST].known))
		return;
	fputs("  threads:", b->out);
	for (g = 0; g < TG_NR; g++) {
		if (!vm->groups[g].known)
			continue;
		fprintf(b->out, "%s%s %d run %.1f%% wait %.1f%%", sep, model_group_name(g),
			vm->groups[g].count, 100.0 * (double)model_group_ns(vm, g, false, false) / (double)len,
			100.0 * (double)model_group_ns(vm, g, true, false) / (double)len);
		sep = ", ";
	}
	fputc('\n', b->out);
}

/* In text: one heading, their events. */
static void text_kernel(const struct batch *b, const struct vm *k, const struct model_scope *sc)
{
	fprintf(b->out, "host kernel threads (not VMs): %d\n", k->nr_vcpus);
	text_events(b, sc, "  ");
}

static void text_events(const struct batch *b, const struct model_scope *sc, const char *indent)
{
	char name[128];
	bool any = false;
	int j;

	for (j = 0; j < b->m->nr_other; j++) {
		if (!sc->other[j])
			continue;
		fprintf(b->out, "%s%s %" PRIu64, any ? ", " : indent,
			escape_text(b->m->names->other[j], name, sizeof(name)), sc->other[j]);
		any = true;
	}
	if (!any)
		return;
	fputc('\n', b->out);
	any = false;
	for (j = 0; j < UEXIT_MAX; j++) {
		if (!sc->uexit[j])
			continue;
		fprintf(b->out, "%s%s%s %" PRIu64, any ? ", " : indent,
			any ? "" : "userspace exits: ",
			escape_text(names_uexit(b->m->names, j), name, sizeof(name)), sc->uexit[j]);
		any = true;
	}
	if (any)
		fputc('\n', b->out);
}

static void text_rate(const struct batch *b, uint64_t n, uint64_t end, char *buf, size_t len)
{
	double secs = batch_seconds(b, end);

	if (secs > 0)
		snprintf(buf, len, ", %.1f/s", (double)n / secs);
	else
		buf[0] = '\0';
}

/* Live: "host pressure: cpu some 1.20 %, ..." of the figures known, when the host has PSI. */
static void text_host_psi(const struct batch *b)
{
	const char *key, *sep = "host pressure: ";
	unsigned int i;
	double v;

	if (!b->m->host_ctx.prev_known)
		return;
	for (i = 0; i < BATCH_HOST_PSI; i++) {
		bool known = batch_host_psi(b, i, &key, &v);
		const char *us = strchr(key, '_');

		fprintf(b->out, "%s%.*s %s ", sep, (int)(us - key), key, us + 1);
		if (known)
			fprintf(b->out, "%.2f %%", v);
		else
			fputc('-', b->out);
		sep = ", ";
	}
	fputc('\n', b->out);
}

/* The snapshot's first lines: what, when, how many exits and events. */
static void text_header(const struct batch *b, const struct model_scope *host, uint64_t end)
{
	const struct model *m = b->m;
	char esc[256], clk[128], rate[48];

	if (b->in_file)
		fputc('\n', b->out);
	fprintf(b->out, "kvmtop %s%s%s: clock %s (times in %s), %s %u",
		b->source, b->file ? " " : "", b->file ? escape_text(b->file, esc, sizeof(esc)) : "",
		escape_text(b->clock, clk, sizeof(clk)), b->time_unit,
		b->summary ? "summary" : "snapshot", b->snapshots + 1);
	if (b->ns)
		fprintf(b->out, ", %.6f s", batch_seconds(b, end));
	else
		fprintf(b->out, ", %" PRIu64 " %s", end - m->interval_start, b->time_unit);
	if (b->empty > 1)
		fprintf(b->out, ": %" PRIu64 " intervals without KVM events", b->empty);
	fputc('\n', b->out);
	text_rate(b, host->exits, end, rate, sizeof(rate));
	fprintf(b->out, "exits %" PRIu64 "%s, kvm events %" PRIu64 ", lost events %" PRIu64,
		host->exits, rate, ctr_interval(&m->events), ctr_interval(&m->lost_events));
	if (ctr_interval(&m->dropped))
		fprintf(b->out, ", dropped (over %u threads) %" PRIu64, m->max_vcpus,
			ctr_interval(&m->dropped));
	fputc('\n', b->out);
	text_host_psi(b);
	/* no thread at all, not a VM's, not a VMM's, not the host kernel's; no VM listed */
	if (!m->nr_vcpus && !model_nr_vms(m))
		fprintf(b->out, "no KVM events\n");
}

/* Who ran while vCPU v waited for a CPU, most time first: one line, when any did. */
static void text_stolen(const struct batch *b, const struct vcpu *v)
{
	const struct model_thief *t[b->m->max_thieves ? b->m->max_thieves : 1];
	char esc[256], dur[32];
	struct model_thief_who w;
	unsigned int i, n;
	uint64_t rest;

	if (!batch_steal_known(b))
		return;
	n = model_steal_top(b->m, v, t, &rest);
	if (!n && !rest)
		return;
	fputs("    stolen by:", b->out);
	for (i = 0; i < n; i++) {
		model_thief_who(b->m, t[i], &w);
		fmt_duration((double)t[i]->ns, b->ns, 2, dur, sizeof(dur));
		escape_text(w.vm ? w.vm->name : w.comm, esc, sizeof(esc));
		if (w.vm && w.vcpu >= 0)
			fprintf(b->out, "%s VM %s vCPU %d (tid %d) %s", i ? "," : "", esc, w.vcpu, t[i]->tid, dur);
		else if (w.vm)
			fprintf(b->out, "%s VM %s's VMM (tid %d) %s", i ? "," : "", esc, t[i]->tid, dur);
		else if (w.pid)
			fprintf(b->out, "%s %s (pid %d, tid %d) %s", i ? "," : "", esc, w.pid, t[i]->tid, dur);
		else
			fprintf(b->out, "%s %s (tid %d) %s", i ? "," : "", esc, t[i]->tid, dur);
	}
	if (rest) {
		fmt_duration((double)rest, b->ns, 2, dur, sizeof(dur));
		fprintf(b->out, "%s other %s", n ? "," : "", dur);
	}
	fputc('\n', b->out);
}

/* One vCPU thread of vm: 0 or -1 (no memory). */
static int text_vcpu(const struct batch *b, const struct vm *vm, const struct vcpu *v, uint64_t end)
{
	struct model_snap snap;
	struct model_scope cs;
	int ret = -1;

	if (model_scope_vcpu(&cs, b->m, v, false))
		goto out;
	batch_snap(b, end, &snap);
	text_heading(b, text_vcpu_cols, TEXT_NR(text_vcpu_cols),
		     &(struct model_row){ .m = b->m, .vm = vm, .v = v, .snap = &snap, .vcpu_sc = &cs }, "  ");
	text_states(b, &cs, end, "    ");
	text_stolen(b, v);
	if (cs.exits_total)
		text_table(b, vm, &cs, "    ");
	text_events(b, &cs, "    ");
	batch_kstats_text(b, vm, v, "    ");
	ret = batch_ips_text(b, vm, v, "    ");
out:
	model_scope_free(&cs);
	return ret;
}

/*
 * Live: the VM's context (the VM fields from vm_mem_rss_bytes on, src/context/), its
 * known figures as NAME=value in one "context:" line; none for a recording.
 */
static void text_context(const struct batch *b, const struct model_row *row)
{
	const struct model_field *all, *f;
	const char *sep = "  context:";
	unsigned int n;
	char buf[96];

	if (!row->vm->ctx.prev_known && !row->vm->ctx.known)
		return;
	all = model_fields_of(MR_VM, &n);
	for (f = model_field("vm_mem_rss_bytes"); f && f < all + n; f++) {
		struct model_field_val v;
		bool has;

		model_field_value(f, row, &v, &has);
		if (!has)
			continue;
		fprintf(b->out, "%s %s=%s", sep, f->name, batch_text_field(f->name, row, buf, sizeof(buf)));
		sep = "";
	}
	if (!*sep)
		fputc('\n', b->out);
}

/* The fields names (n of them) the row has, as NAME=value after label in one line; nothing if none. */
static void text_named(const struct batch *b, const struct model_row *row, const char *label,
		       const char *const *names, unsigned int n)
{
	const char *sep = label;
	unsigned int i;
	char buf[256];

	for (i = 0; i < n; i++) {
		const struct model_field *f = model_field(names[i]);
		struct model_field_val v;
		bool has;

		model_field_value(f, row, &v, &has);
		if (!has || v.unknown)
			continue;
		fprintf(b->out, "%s %s=%s", sep, f->name, batch_text_field(f->name, row, buf, sizeof(buf)));
		sep = "";
	}
	if (!*sep)
		fputc('\n', b->out);
}

/*
 * Live: who the VM is (the VM fields vm_display .. vm_flavor, kvmtop(1)
 * identity), those it has, escaped; nothing where it was not looked up.
 * A VM that ended: when.
 */
static void text_identity(const struct batch *b, const struct model_row *row)
{
	static const char *const names[] = { "vm_display_name", "vm_name_from", "vm_uuid", "vm_project", "vm_flavor" };
	static const char *const ended[] = { "vm_end", "vm_end_time" };

	if (row->vm->ident.read)
		text_named(b, row, "  identity:", names, sizeof(names) / sizeof(names[0]));
	text_named(b, row, "  ended:", ended, sizeof(ended) / sizeof(ended[0]));
}

/* One VM and its vCPU threads: 0 or -1 (no memory). */
static int text_vm(const struct batch *b, const struct vm *vm, uint64_t end)
{
	const struct vcpu **vcpus = NULL;
	struct model_snap snap;
	struct model_scope vs;
	struct model_row row;
	unsigned int i, n;
	char why[256];
	int ret = -1;

	if (model_scope_vm(&vs, b->m, vm, false))
		goto out;
	batch_snap(b, end, &snap);
	row = (struct model_row){ .m = b->m, .vm = vm, .snap = &snap, .vm_sc = &vs };
	text_heading(b, text_vm_cols, TEXT_NR(text_vm_cols), &row, "");
	text_identity(b, &row);
	if (vm->exits_unknown)
		fprintf(b->out, "  exits unknown: %s\n",
			batch_text_field("vm_exits_unknown", &row, why, sizeof(why)));
	text_groups(b, vm, end);
	text_context(b, &row);
	if (vs.exits_total)
		text_table(b, vm, &vs, "  ");
	text_events(b, &vs, "  ");
	batch_kstats_text(b, vm, NULL, "  ");
	if (batch_ips_text(b, vm, NULL, "  "))
		goto out;
	vcpus = batch_vcpus(b, vm, &n);
	if (!vcpus)
		goto out;
	for (i = 0; i < n; i++)
		if (text_vcpu(b, vm, vcpus[i], end))
			goto out;
	ret = 0;
out:
	free(vcpus);
	model_scope_free(&vs);
	return ret;
}

/* --fields' table: one titles line a snapshot, then each row at the finest level asked. */
static void text_fields_row(const struct batch *b, const struct model_row *row)
{
	text_line(b, b->fields, b->nr_fields, row, "");
}

static int text_fields(struct batch *b, uint64_t end)
{
	struct model_snap snap;

	if (b->in_file)
		fputc('\n', b->out);
	text_titles(b, b->fields, b->nr_fields, "");
	batch_snap(b, end, &snap);
	return batch_walk(b, &snap, text_fields_row);
}

static int text_print(struct batch *b, uint64_t end)
{
	const struct vm **vms = NULL;
	struct model_scope host;
	unsigned int i, n;
	int ret = -1;

	if (b->nr_fields)
		return text_fields(b, end);
	if (model_scope_host(&host, b->m, false))
		goto out;
	text_header(b, &host, end);
	batch_findings_text(b, false);
	if (batch_kernel(b, text_kernel))
		goto out;
	/* the host kernel's threads are host work, in the host's figures, never a VM */
	vms = batch_vms(b, &n);
	if (!vms)
		goto out;
	for (i = 0; i < n; i++)
		if (text_vm(b, vms[i], end))
			goto out;
	ret = 0;
out:
	free(vms);
	model_scope_free(&host);
	return ret;
}

const struct batch_format batch_format_text = {
	.name = "text",
	.print = text_print,
	.findings = true,
	.ips = true,
};
