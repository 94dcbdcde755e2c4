// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as JSON Lines: one object per snapshot, the host's figures,
 * then each VM with its vCPU threads.  A reason object carries every field
 * of model_fields.h (null where the input does not measure it), as CSV's
 * row every column.  The schema is in man/kvmtop.1 (OUTPUT).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "util/escape.h"

static void json_rate(const struct batch *b, uint64_t n, uint64_t end)
{
	double secs = batch_seconds(b, end);

	if (secs > 0)
		fprintf(b->out, "%.3f", (double)n / secs);
	else
		fputs("null", b->out);
}

/* Are two fields' JSON groups the same (both none, or the same name)? */
static bool same_group(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A VM's or vCPU's fields (kind MR_VM or MR_VCPU), each "key":value, in the table's order. */
static void json_row_fields(const struct batch *b, enum model_row_kind kind, const struct model_row *row)
{
	const struct model_field *fs;
	unsigned int j, n;

	fs = model_fields_of(kind, &n);
	for (j = 0; j < n; j++) {
		if (fs[j].json_apart)
			continue;	/* in a place of its own: json_exits(), json_states() */
		fprintf(b->out, "%s\"%s\":", j ? "," : "", fs[j].key);
		if (!batch_machine_value(b, &fs[j], row, escape_json))
			fputs("null", b->out);
	}
}

/*
 * The fields of a reason's or an object's row (kind MR_REASON or
 * MR_OBJECT), a group's in an object of its own ("latency": {...}),
 * null where the input does not measure it; the row's braces are the
 * caller's.
 */
static void json_fields(const struct batch *b, enum model_row_kind kind, const struct model_row *row)
{
	const struct model_field *fs;
	const char *group = NULL;
	unsigned int j, n;

	fs = model_fields_of(kind, &n);
	for (j = 0; j < n; j++) {
		const struct model_field *f = &fs[j];

		if (!same_group(f->group, group)) {
			/* the fields of a group are adjacent in the table */
			if (group)
				fputc('}', b->out);
			if (f->group)
				fprintf(b->out, ",\"%s\":{", f->group);
			else
				fputc(',', b->out);
			group = f->group;
		} else if (j) {
			fputc(',', b->out);
		}
		fprintf(b->out, "\"%s\":", f->key);
		/* null: not measured by the input, or not known for this row */
		if (!batch_field_known(b, f) || !batch_machine_value(b, f, row, escape_json))
			fputs("null", b->out);
	}
	if (group)
		fputc('}', b->out);
}

/*
 * One reason row: every field of model_fields.h, then its objects (each
 * every object field and its sites, named from vm's guest symbols; vm
 * NULL: the host's, whose sites are of several guests).
 */
static void json_reason(const struct batch *b, const struct vm *vm, const struct model_scope *sc,
			const struct model_reason_row *w)
{
	const struct model_row row = { .m = b->m, .r = w };
	const struct model_obj_row *o;
	unsigned int i, n;

	fputc('{', b->out);
	json_fields(b, MR_REASON, &row);
	fputs(",\"objects\":[", b->out);
	n = model_scope_objs(sc, w->id, &o);
	for (i = 0; i < n; i++) {
		const struct model_row orow = { .m = b->m, .o = &o[i] };

		fputs(i ? ",{" : "{", b->out);
		json_fields(b, MR_OBJECT, &orow);
		batch_obj_sites_json(b, vm, &o[i]);
		fputc('}', b->out);
	}
	fputs("]}", b->out);
}

static void json_reasons(const struct batch *b, const struct vm *vm, const struct model_scope *sc)
{
	const struct model_reason_row **rows;
	unsigned int i, n;

	fputs("\"reasons\":[", b->out);
	rows = batch_rows(b, sc, &n);
	for (i = 0; rows && i < n; i++) {
		if (i)
			fputc(',', b->out);
		json_reason(b, vm, sc, rows[i]);
	}
	fputc(']', b->out);
	free(rows);
}

/*
 * The scope's other kvm events and userspace exits, each by name; null
 * where the source counts none (stats: no event; a counter source: no
 * userspace exit).
 */
static void json_events(const struct batch *b, const struct model_scope *sc)
{
	bool any = false;
	int j;

	if (!b->traced && !b->m->nr_other) {
		fputs(",\"events\":null,\"userspace_exits\":null", b->out);
		return;
	}
	fputs(",\"events\":{", b->out);
	for (j = 0; j < b->m->nr_other; j++) {
		if (!sc->other[j])
			continue;
		fprintf(b->out, "%s", any ? "," : "");
		escape_json(b->out, b->m->names->other[j]);
		fprintf(b->out, ":%" PRIu64, sc->other[j]);
		any = true;
	}
	if (!b->traced) {
		fputs("},\"userspace_exits\":null", b->out);
		return;
	}
	fputs("},\"userspace_exits\":{", b->out);
	any = false;
	for (j = 0; j < UEXIT_MAX; j++) {
		if (!sc->uexit[j])
			continue;
		fprintf(b->out, "%s", any ? "," : "");
		escape_json(b->out, names_uexit(b->m->names, j));
		fprintf(b->out, ":%" PRIu64, sc->uexit[j]);
		any = true;
	}
	fputc('}', b->out);
}

/*
 * A vCPU thread's time in each state the input measures, seconds within
 * the snapshot, and where each figure comes from; nothing when none is
 * measured or times are not ns.
 */
static void json_states(const struct batch *b, const struct model_scope *sc)
{
	const char *sep = "";
	int j;

	if (!b->ns || !sc->time_known)
		return;
	fputs("\"time_seconds\":{", b->out);
	for (j = 0; j < VS_NR; j++) {
		if (!(sc->time_known & (1u << j)))
			continue;
		fprintf(b->out, "%s\"%s\":%.9f", sep, model_state_name(j), (double)sc->time[j] / 1e9);
		sep = ",";
	}
	fputs("},\"time_source\":{", b->out);
	sep = "";
	for (j = 0; j < VS_NR; j++) {
		if (!(sc->time_known & (1u << j)))
			continue;
		fprintf(b->out, "%s\"%s\":\"%s\"", sep, model_state_name(j),
			model_time_source(b->m, j));
		sep = ",";
	}
	fputs("},", b->out);
}

/*
 * A VM's threads by group: its vCPU threads (with their time on a CPU
 * known), the VMM's own and the vhost workers (live): how many, their
 * time on a CPU and waiting for one.  Nothing when none is measured.
 */
static void json_threads(const struct batch *b, const struct vm *vm, const struct model_scope *sc)
{
	unsigned int need = 1u << VS_GUEST | 1u << VS_HOST | 1u << VS_WAIT;
	const char *sep = "";
	int g;

	if (!b->ns)
		return;
	for (g = 0; g < TG_NR && !vm->groups[g].known; g++)
		;
	if ((sc->time_known & need) != need && g == TG_NR)
		return;
	fputs("\"threads\":{", b->out);
	if ((sc->time_known & need) == need) {
		fprintf(b->out, "\"vcpu\":{\"count\":%d,\"run_seconds\":%.9f,\"wait_seconds\":%.9f}",
			vm->nr_vcpus, (double)(sc->time[VS_GUEST] + sc->time[VS_HOST] + sc->time[VS_VMM]) / 1e9,
			(double)sc->time[VS_WAIT] / 1e9);
		sep = ",";
	}
	for (g = 0; g < TG_NR; g++) {
		const struct thread_group_stat *gs = &vm->groups[g];

		if (!gs->known)
			continue;
		fprintf(b->out, "%s\"%s\":{\"count\":%d,\"run_seconds\":%.9f,\"wait_seconds\":%.9f}", sep,
			model_group_name(g), gs->count,
			(double)model_group_ns(vm, g, false, sc->cumulative) / 1e9,
			(double)model_group_ns(vm, g, true, sc->cumulative) / 1e9);
		sep = ",";
	}
	fputs("},", b->out);
}

/*
 * A vCPU's stolen_by: who ran while it waited for a CPU, most time first,
 * then what the table could not keep as "other"; null where not measured.
 */
static void json_stolen(const struct batch *b, const struct vcpu *v)
{
	const struct model_thief *t[b->m->max_thieves ? b->m->max_thieves : 1];
	struct model_thief_who w;
	unsigned int i, n;
	uint64_t rest;

	fputs("\"stolen_by\":", b->out);
	if (!b->ns || !batch_steal_known(b)) {
		fputs("null,", b->out);
		return;
	}
	fputc('[', b->out);
	n = model_steal_top(b->m, v, t, &rest);
	for (i = 0; i < n; i++) {
		model_thief_who(b->m, t[i], &w);
		fprintf(b->out, "%s{\"seconds\":%.9f,\"pid\":", i ? "," : "", (double)t[i]->ns / 1e9);
		if (w.pid)
			fprintf(b->out, "%d", w.pid);
		else
			fputs("null", b->out);
		fprintf(b->out, ",\"tid\":%d,\"comm\":", t[i]->tid);
		escape_json(b->out, w.comm);
		fputs(",\"vm\":", b->out);
		if (w.vm)
			escape_json(b->out, w.vm->name);
		else
			fputs("null", b->out);
		fputs(",\"vcpu\":", b->out);
		if (w.vm && w.vcpu >= 0)
			fprintf(b->out, "%d}", w.vcpu);
		else
			fputs("null}", b->out);
	}
	if (rest)
		fprintf(b->out, "%s{\"seconds\":%.9f,\"pid\":null,\"tid\":null,\"comm\":\"other\","
			"\"vm\":null,\"vcpu\":null}", n ? "," : "", (double)rest / 1e9);
	fputs("],", b->out);
}

/* In JSON: the host's kernel_threads object. */
static void json_kernel(const struct batch *b, const struct vm *k, const struct model_scope *sc)
{
	fprintf(b->out, ",\"kernel_threads\":{\"count\":%d", k->nr_vcpus);
	json_events(b, sc);
	fputc('}', b->out);
}

/* The snapshot's own keys, up to the host's object. */
/* Live: the VM's memory per NUMA node (numa_maps, as last read), bytes by node id; nothing unread. */
static void json_numa(const struct batch *b, const struct vm *vm)
{
	int n;

	if (vm->ctx.nr_nodes <= 0)
		return;
	fputs(",\"numa_node_bytes\":[", b->out);
	for (n = 0; n < vm->ctx.nr_nodes; n++)
		fprintf(b->out, "%s%" PRIu64, n ? "," : "", vm->ctx.node_bytes[n]);
	fputc(']', b->out);
}

/* A rate of a tap, or null before its second reading. */
static void json_tap_rate(const struct batch *b, const struct vm_ctx_tap *tap, enum ctx_tap_ctr k)
{
	if (tap->known)
		fprintf(b->out, "%.2f", tap->rate[k]);
	else
		fputs("null", b->out);
}

/*
 * Each tap/macvtap interface its VMM holds (the first CTX_TAPS of them,
 * the net_* figures summing all): its name and rates.  Nothing where
 * none is known.
 */
static void json_taps(const struct batch *b, const struct vm *vm)
{
	static const struct { const char *key; enum ctx_tap_ctr k; } cols[] = {
		{ "rx_bytes_per_s", CTX_TAP_RXB }, { "tx_bytes_per_s", CTX_TAP_TXB },
		{ "rx_packets_per_s", CTX_TAP_RXP }, { "tx_packets_per_s", CTX_TAP_TXP },
		{ "drops_per_s", CTX_TAP_DROPS },
	};
	unsigned int c;
	int i;

	if (vm->ctx.nr_tap_rows <= 0)
		return;
	fputs(",\"net_interfaces\":[", b->out);
	for (i = 0; i < vm->ctx.nr_tap_rows; i++) {
		const struct vm_ctx_tap *tap = &vm->ctx.taps[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", b->out);
		escape_json(b->out, tap->name);
		for (c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			fprintf(b->out, ",\"%s\":", cols[c].key);
			json_tap_rate(b, tap, cols[c].k);
		}
		fputc('}', b->out);
	}
	fputc(']', b->out);
}

/* Live: the host's pressure, each figure or null; nothing for a recording (none read). */
static void json_host_psi(const struct batch *b)
{
	const char *key;
	unsigned int i;
	double v;

	if (!b->m->host_ctx.prev_known)
		return;
	fputs(",\"host_pressure\":{", b->out);
	for (i = 0; i < BATCH_HOST_PSI; i++) {
		bool known = batch_host_psi(b, i, &key, &v);

		fprintf(b->out, "%s\"%s\":", i ? "," : "", key);
		if (known)
			fprintf(b->out, "%.2f", v);
		else
			fputs("null", b->out);
	}
	fputc('}', b->out);
}

static void json_header(const struct batch *b, uint64_t end)
{
	const struct model *m = b->m;

	fprintf(b->out, "{\"source\":\"%s\",", b->source);
	if (b->file) {
		fputs("\"file\":", b->out);
		escape_json(b->out, b->file);
		fputc(',', b->out);
	}
	fputs("\"clock\":", b->out);
	escape_json(b->out, b->clock);
	fprintf(b->out, ",\"time_unit\":\"%s\",\"snapshot\":%u,\"summary\":%s,"
		"\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"seconds\":",
		b->time_unit, b->snapshots + 1, b->summary ? "true" : "false",
		batch_start(b), end);
	if (b->ns)
		fprintf(b->out, "%.9f", batch_seconds(b, end));
	else
		fputs("null", b->out);
	batch_time_json(b, end);
	fprintf(b->out, ",\"empty_intervals\":%" PRIu64, b->empty > 1 ? b->empty : 0);
	fprintf(b->out, ",\"kvm_events\":%" PRIu64 ",\"lost_events\":%" PRIu64 ",\"dropped_events\":%" PRIu64,
		b->cumulative ? m->events.total : ctr_interval(&m->events),
		b->cumulative ? m->lost_events.total : ctr_interval(&m->lost_events),
		b->cumulative ? m->dropped.total : ctr_interval(&m->dropped));
	json_host_psi(b);
}

/* A scope's exits, their rate and its unmatched events. */
static void json_exits(const struct batch *b, const struct model_scope *sc, uint64_t end)
{
	fprintf(b->out, ",\"exits\":%" PRIu64 ",\"exits_total\":%" PRIu64 ",\"exits_per_s\":",
		sc->exits, sc->exits_total);
	json_rate(b, sc->exits, end);
	fprintf(b->out, ",\"unmatched_exits\":%" PRIu64 ",\"unmatched_entries\":%" PRIu64 ",",
		sc->unmatched_exits, sc->unmatched_entries);
}

/* One vCPU thread of vm: 0 or -1 (no memory). */
static int json_vcpu(const struct batch *b, const struct vm *vm, const struct vcpu *v, uint64_t end)
{
	struct model_scope cs;
	int ret = -1;

	if (model_scope_vcpu(&cs, b->m, v, b->cumulative))
		goto out;
	fputc('{', b->out);
	json_row_fields(b, MR_VCPU, &(struct model_row){ .m = b->m, .vm = vm, .v = v });
	json_exits(b, &cs, end);
	json_states(b, &cs);
	json_stolen(b, v);
	json_reasons(b, vm, &cs);
	json_events(b, &cs);
	batch_kstats_json(b, vm, v);
	if (batch_ips_json(b, vm, v))
		goto out;
	fputc('}', b->out);
	ret = 0;
out:
	model_scope_free(&cs);
	return ret;
}

/* One VM and its vCPU threads: 0 or -1 (no memory). */
static int json_vm(const struct batch *b, const struct vm *vm, uint64_t end)
{
	const struct model *m = b->m;
	const struct vcpu **vcpus = NULL;
	struct model_scope vs;
	unsigned int i, n;
	int ret = -1;

	if (model_scope_vm(&vs, m, vm, b->cumulative))
		goto out;
	fputc('{', b->out);
	json_row_fields(b, MR_VM, &(struct model_row){ .m = m, .vm = vm });
	json_numa(b, vm);
	json_taps(b, vm);
	json_exits(b, &vs, end);
	json_threads(b, vm, &vs);
	json_reasons(b, vm, &vs);
	json_events(b, &vs);
	batch_kstats_json(b, vm, NULL);
	if (batch_ips_json(b, vm, NULL))
		goto out;
	fputs(",\"vcpus\":[", b->out);
	vcpus = batch_vcpus(b, vm, &n);
	if (!vcpus)
		goto out;
	for (i = 0; i < n; i++) {
		fputs(i ? "," : "", b->out);
		if (json_vcpu(b, vm, vcpus[i], end))
			goto out;
	}
	fputs("]}", b->out);
	ret = 0;
out:
	free(vcpus);
	model_scope_free(&vs);
	return ret;
}

static int json_print(struct batch *b, uint64_t end)
{
	const struct vm **vms = NULL;
	struct model_scope host;
	unsigned int i, n;
	int ret = -1;

	if (model_scope_host(&host, b->m, b->cumulative))
		goto out;
	json_header(b, end);
	fputs(",\"host\":{", b->out);
	/* the host's exits without its unmatched events, as it always was */
	fprintf(b->out, "\"exits\":%" PRIu64 ",\"exits_total\":%" PRIu64 ",\"exits_per_s\":",
		host.exits, host.exits_total);
	json_rate(b, host.exits, end);
	fputc(',', b->out);
	json_reasons(b, NULL, &host);
	if (batch_kernel(b, json_kernel))
		goto out;
	fputc('}', b->out);
	batch_findings_json(b);
	batch_kstats_json_info(b);
	fputs(",\"vms\":[", b->out);
	vms = batch_vms(b, &n);
	if (!vms)
		goto out;
	for (i = 0; i < n; i++) {
		fputs(i ? "," : "", b->out);
		if (json_vm(b, vms[i], end))
			goto out;
	}
	fputs("]}\n", b->out);
	ret = 0;
out:
	free(vms);
	model_scope_free(&host);
	return ret;
}

const struct batch_format batch_format_json = {
	.name = "json",
	.print = json_print,
	.findings = true,
	.ips = true,
};
