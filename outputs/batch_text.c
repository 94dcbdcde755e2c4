// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as text: a header per snapshot, then per VM and per vCPU
 * thread a table of exit reasons, like perf kvm stat report.  The table's
 * columns are reason fields (model_fields.h) picked by name, with widths;
 * a VM's and a vCPU's heading names its fields the same way.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "util/escape.h"
#include "util/fmt.h"

/* The text table's columns: reason fields by name, and their widths. */
static const struct {
	const char *name;
	int width;
} text_cols[] = {
	{ "reason", 30 }, { "isa", 6 }, { "count", 9 }, { "pct", 6 }, { "total", 10 },
	{ "latency_min", 9 }, { "latency_mean", 9 }, { "latency_p50", 9 }, { "latency_p90", 9 },
	{ "latency_p99", 9 }, { "latency_p999", 9 }, { "latency_max", 9 }, { "handling_p50", 9 },
	{ "handling_p99", 9 }, { "preempted_seconds", 10 }, { "blocked_seconds", 10 },
};

#define NR_TEXT_COLS	(sizeof(text_cols) / sizeof(text_cols[0]))

static void text_cell(const struct batch *b, const struct model_field *f, int width,
		      const struct model_reason_row *w)
{
	struct model_field_val v;
	char buf[96], name[96];
	bool has;

	model_reason_value(f, w, &v, &has);
	switch (f->kind) {
	case MF_TEXT:
		/* the flags are their own column in CSV and JSON; here, after the name */
		if (!strcmp(f->name, "reason"))
			v.s = reason_label(w->r, name, sizeof(name));
		fprintf(b->out, "%-*s", width, escape_text(v.s, buf, sizeof(buf)));
		return;
	case MF_BOOL:
		fprintf(b->out, "%*s", width, v.b ? "yes" : "no");
		return;
	case MF_NUM:
		fprintf(b->out, "%*" PRIu64, width, v.u);
		return;
	case MF_INT:
		fprintf(b->out, "%*" PRId64, width, v.i);
		return;
	case MF_PCT:
	case MF_RATE:
		fprintf(b->out, "%*.2f", width, v.d);
		return;
	case MF_TIME:
	case MF_TIME_MEAN:
		if (!has)
			snprintf(buf, sizeof(buf), "-");
		else
			fmt_duration(f->kind == MF_TIME ? (double)v.u : v.d, b->ns, 2, buf, sizeof(buf));
		fprintf(b->out, "%*s", width, buf);
		return;
	case MF_SECS:
		fmt_duration((double)v.u, b->ns, 2, buf, sizeof(buf));
		fprintf(b->out, "%*s", width, buf);
		return;
	case MF_ADDR:
		snprintf(buf, sizeof(buf), "0x%" PRIx64, v.u);
		fprintf(b->out, "%*s", width, buf);
		return;
	}
}

/* Is field f in the table: one of the split's needs sched events (seconds or not). */
static bool text_shown(const struct batch *b, const struct model_field *f)
{
	return !f->sched || (model_time_known(b->m) & TIME_SPLIT);
}

/* A column's width: the default table's for its field, else its title's or 9. */
static int text_width(const struct model_field *f)
{
	size_t j, t = strlen(f->title);

	for (j = 0; j < NR_TEXT_COLS; j++)
		if (!strcmp(text_cols[j].name, f->name))
			return text_cols[j].width;
	return t > 9 ? (int)t : 9;
}

/* The table's columns: --fields' reason fields in their order, else the default ones: how many. */
static unsigned int text_columns(const struct batch *b, const struct model_field **f, int *width)
{
	unsigned int j, n = 0;

	for (j = 0; j < b->nr_fields; j++)
		if (b->fields[j]->row == MR_REASON && n < BATCH_FIELDS_MAX)
			f[n++] = b->fields[j];
	if (!n)
		for (j = 0; j < NR_TEXT_COLS; j++)
			f[n++] = model_field(text_cols[j].name);
	for (j = 0; j < n; j++)
		width[j] = text_width(f[j]);
	return n;
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
	const struct model_field *f[BATCH_FIELDS_MAX > NR_TEXT_COLS ? BATCH_FIELDS_MAX : NR_TEXT_COLS];
	int width[BATCH_FIELDS_MAX > NR_TEXT_COLS ? BATCH_FIELDS_MAX : NR_TEXT_COLS];
	const struct model_reason_row **rows;
	unsigned int i, j, n, nc;

	rows = batch_rows(b, sc, &n);
	if (!rows)
		return;
	nc = text_columns(b, f, width);
	fputs(indent, b->out);
	for (j = 0; j < nc; j++)
		if (text_shown(b, f[j]))
			fprintf(b->out, f[j]->kind == MF_TEXT ? "%-*s " : "%*s ", width[j], f[j]->title);
	fputc('\n', b->out);
	for (i = 0; i < n; i++) {
		fputs(indent, b->out);
		for (j = 0; j < nc; j++) {
			if (!text_shown(b, f[j]))
				continue;
			text_cell(b, f[j], width[j], rows[i]);
			fputc(' ', b->out);
		}
		fputc('\n', b->out);
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
	const struct model_row row = { .m = b->m, .vm = vm, .v = v };
	char id[24], tid[24], comm[256], cpu[24];
	struct model_scope cs;
	int ret = -1;

	if (model_scope_vcpu(&cs, b->m, v, false))
		goto out;
	fprintf(b->out, "\n  vCPU %s (tid %s \"%s\", last on CPU %s): %" PRIu64
		" exits, unmatched exits %" PRIu64 ", unmatched entries %" PRIu64 "\n",
		batch_text_field("vcpu", &row, id, sizeof(id)), batch_text_field("vcpu_tid", &row, tid, sizeof(tid)),
		batch_text_field("vcpu_comm", &row, comm, sizeof(comm)),
		batch_text_field("vcpu_last_cpu", &row, cpu, sizeof(cpu)),
		cs.exits, cs.unmatched_exits, cs.unmatched_entries);
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

/*
 * Live: who the VM is (the VM fields vm_display .. vm_flavor, kvmtop(1)
 * identity), those it has, escaped; nothing where it was not looked up.
 */
static void text_identity(const struct batch *b, const struct model_row *row)
{
	static const char *const names[] = { "vm_display_name", "vm_name_from", "vm_uuid", "vm_project", "vm_flavor" };
	const char *sep = "  identity:";
	unsigned int i;
	char buf[256];

	if (!row->vm->ident.read)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
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

/* One VM and its vCPU threads: 0 or -1 (no memory). */
static int text_vm(const struct batch *b, const struct vm *vm, uint64_t end)
{
	const struct model_row row = { .m = b->m, .vm = vm };
	char name[256], pid[24], nr_vcpus[24], rate[48], why[256];
	const struct vcpu **vcpus = NULL;
	struct model_scope vs;
	unsigned int i, n;
	int ret = -1;

	if (model_scope_vm(&vs, b->m, vm, false))
		goto out;
	text_rate(b, vs.exits, end, rate, sizeof(rate));
	fprintf(b->out, "\nVM %s (pid %s%s%s): %" PRIu64 " exits%s, %s vCPU threads\n",
		batch_text_field("vm_name", &row, name, sizeof(name)),
		batch_text_field("vm_pid", &row, pid, sizeof(pid)),
		vm->guessed ? ", guessed: no --threads" : "",
		vm->exited ? ", exited" : "", vs.exits, rate,
		batch_text_field("vm_vcpu_count", &row, nr_vcpus, sizeof(nr_vcpus)));
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

static int text_print(struct batch *b, uint64_t end)
{
	const struct vm **vms = NULL;
	struct model_scope host;
	unsigned int i, n;
	int ret = -1;

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
