// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as JSON Lines: one object per snapshot, the host's figures,
 * then each VM with its vCPU threads.  A VM's, a vCPU's, a reason's and an
 * object's object carries every field of its level in model_fields.h
 * (null where the input does not measure it), as CSV's row every column:
 * by one loop (json_fields), but for the few JSON writes in a place of
 * its own (json_apart).  The schema is in man/kvmtop.1 (OUTPUT).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "model/model_view.h"
#include "model/model_time.h"
#include "model/model_steal.h"

/* The writer of the snapshot being printed. */
static struct json_writer *json_w(const struct batch *b)
{
	return b->json;
}

static void json_rate(const struct batch *b, uint64_t n, uint64_t end)
{
	double secs = batch_seconds(b, end);

	if (secs > 0)
		jsonw_double(json_w(b), 3, (double)n / secs);
	else
		jsonw_null(json_w(b));
}

/* Are two fields' JSON groups the same (both none, or the same name)? */
static bool same_group(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * The fields of a row of kind (a VM's, a vCPU's, a reason's or an
 * object's), each "key":value in the table's order, a group's in an
 * object of its own ("latency": {...}), null where the input does not
 * measure it; but those the table says JSON writes apart (json_apart: a
 * VM's exits, a vCPU's time_seconds).  The row's braces are the caller's.
 */
static void json_fields(const struct batch *b, enum model_row_kind kind, const struct model_row *row)
{
	struct json_writer *jw = json_w(b);
	const struct model_field *fs;
	const char *group = NULL;
	unsigned int j, n;

	fs = model_fields_of(kind, &n);
	for (j = 0; j < n; j++) {
		const struct model_field *f = &fs[j];

		if (f->json_apart)
			continue;	/* in a place of its own: json_exits(), json_threads(), json_states() */
		if (!same_group(f->group, group)) {
			/* the fields of a group are adjacent in the table */
			if (group)
				jsonw_end_object(jw);
			if (f->group) {
				jsonw_name(jw, f->group);
				jsonw_begin_object(jw);
			}
			group = f->group;
		}
		jsonw_name(jw, f->key);
		/* null: not measured by the input, or not known for this row */
		if (batch_field_known(b, f))
			batch_json_value(b, f, row);
		else
			jsonw_null(jw);
	}
	if (group)
		jsonw_end_object(jw);
}

/*
 * One reason row: every field of model_fields.h, then its objects (each
 * every object field and its sites, named from vm's guest symbols; vm
 * NULL: the host's, whose sites are of several guests).
 */
static void json_reason(const struct batch *b, const struct vm *vm, const struct model_scope *sc,
			const struct model_reason_row *w)
{
	struct json_writer *jw = json_w(b);
	struct model_snap snap;
	struct model_row row = { .m = b->m, .r = w, .snap = &snap };
	const struct model_obj_row *o;
	unsigned int i, n;

	/* the snapshot: a rate per second needs its span */
	batch_snap(b, b->end, &snap);
	jsonw_begin_object(jw);
	json_fields(b, MR_REASON, &row);
	jsonw_name(jw, "objects");
	jsonw_begin_array(jw);
	n = model_scope_objs(sc, w->id, &o);
	for (i = 0; i < n; i++) {
		const struct model_row orow = { .m = b->m, .o = &o[i], .snap = &snap };

		jsonw_begin_object(jw);
		json_fields(b, MR_OBJECT, &orow);
		batch_obj_sites_json(b, vm, &o[i]);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_end_object(jw);
}

static void json_reasons(const struct batch *b, const struct vm *vm, const struct model_scope *sc)
{
	const struct model_reason_row **rows;
	unsigned int i, n;

	jsonw_name(json_w(b), "reasons");
	jsonw_begin_array(json_w(b));
	rows = batch_rows(b, sc, &n);
	for (i = 0; rows && i < n; i++)
		json_reason(b, vm, sc, rows[i]);
	jsonw_end_array(json_w(b));
	free(rows);
}

/* An object of counts by name: name(j) and n[j] for each j < nr not 0. */
static void json_counts(struct json_writer *jw, const uint64_t *n, int nr,
			const char *(*name)(const struct batch *b, int j), const struct batch *b)
{
	int j;

	jsonw_begin_object(jw);
	for (j = 0; j < nr; j++)
		if (n[j])
			jsonw_uint_field(jw, name(b, j), n[j]);
	jsonw_end_object(jw);
}

static const char *json_other_name(const struct batch *b, int j)
{
	return b->m->names->other[j];
}

static const char *json_uexit_name(const struct batch *b, int j)
{
	return names_uexit(b->m->names, j);
}

/*
 * The scope's other kvm events and userspace exits, each by name; null
 * where the source counts none (stats: no event; a counter source: no
 * userspace exit).
 */
static void json_events(const struct batch *b, const struct model_scope *sc)
{
	struct json_writer *jw = json_w(b);

	jsonw_name(jw, "events");
	if (!b->traced && !b->m->nr_other)
		jsonw_null(jw);
	else
		json_counts(jw, sc->other, b->m->nr_other, json_other_name, b);
	jsonw_name(jw, "userspace_exits");
	if (!b->traced)
		jsonw_null(jw);
	else
		json_counts(jw, sc->uexit, UEXIT_MAX, json_uexit_name, b);
}

/*
 * A vCPU thread's time in each state the input measures, seconds within
 * the snapshot, and where each figure comes from; nothing when none is
 * measured or times are not ns.
 */
static void json_states(const struct batch *b, const struct model_scope *sc)
{
	struct json_writer *jw = json_w(b);
	int j;

	if (!b->ns || !sc->time_known)
		return;
	jsonw_name(jw, "time_seconds");
	jsonw_begin_object(jw);
	for (j = 0; j < VS_NR; j++)
		if (sc->time_known & (1u << j))
			jsonw_double_field(jw, model_state_name(j), 9, (double)sc->time[j] / 1e9);
	jsonw_end_object(jw);
	jsonw_name(jw, "time_source");
	jsonw_begin_object(jw);
	for (j = 0; j < VS_NR; j++)
		if (sc->time_known & (1u << j))
			jsonw_string_field(jw, model_state_name(j), model_time_source(b->m, j));
	jsonw_end_object(jw);
}

/* A group of threads: {"count":n,"run_seconds":x,"wait_seconds":x}. */
static void json_group(struct json_writer *jw, const char *name, int count, uint64_t run_ns, uint64_t wait_ns)
{
	jsonw_name(jw, name);
	jsonw_begin_object(jw);
	jsonw_int_field(jw, "count", count);
	jsonw_double_field(jw, "run_seconds", 9, (double)run_ns / 1e9);
	jsonw_double_field(jw, "wait_seconds", 9, (double)wait_ns / 1e9);
	jsonw_end_object(jw);
}

/*
 * A VM's threads by group: its vCPU threads (with their time on a CPU
 * known), the VMM's own and the vhost workers (live): how many, their
 * time on a CPU and waiting for one.  Nothing when none is measured.
 */
static void json_threads(const struct batch *b, const struct vm *vm, const struct model_scope *sc)
{
	unsigned int need = 1u << VS_GUEST | 1u << VS_HOST | 1u << VS_WAIT;
	struct json_writer *jw = json_w(b);
	int g;

	if (!b->ns)
		return;
	for (g = 0; g < TG_NR && !vm->groups[g].known; g++)
		;
	if ((sc->time_known & need) != need && g == TG_NR)
		return;
	jsonw_name(jw, "threads");
	jsonw_begin_object(jw);
	if ((sc->time_known & need) == need)
		json_group(jw, "vcpu", vm->nr_vcpus, sc->time[VS_GUEST] + sc->time[VS_HOST] + sc->time[VS_VMM],
			   sc->time[VS_WAIT]);
	for (g = 0; g < TG_NR; g++)
		if (vm->groups[g].known)
			json_group(jw, model_group_name(g), vm->groups[g].count,
				   model_group_ns(vm, g, false, sc->cumulative),
				   model_group_ns(vm, g, true, sc->cumulative));
	jsonw_end_object(jw);
}

/* One thief of a vCPU's stolen_by: who ran, for how long; null what it is not. */
static void json_thief(const struct batch *b, const struct model_thief *t)
{
	struct json_writer *jw = json_w(b);
	struct model_thief_who w;

	model_thief_who(b->m, t, &w);
	jsonw_begin_object(jw);
	jsonw_double_field(jw, "seconds", 9, (double)t->ns / 1e9);
	if (w.pid)
		jsonw_int_field(jw, "pid", w.pid);
	else
		jsonw_null_field(jw, "pid");
	jsonw_int_field(jw, "tid", t->tid);
	jsonw_string_field(jw, "comm", w.comm);
	jsonw_string_field(jw, "vm", w.vm ? w.vm->name : NULL);
	if (w.vm && w.vcpu >= 0)
		jsonw_int_field(jw, "vcpu", w.vcpu);
	else
		jsonw_null_field(jw, "vcpu");
	jsonw_end_object(jw);
}

/*
 * A vCPU's stolen_by: who ran while it waited for a CPU, most time first,
 * then what the table could not keep as "other"; null where not measured.
 */
static void json_stolen(const struct batch *b, const struct vcpu *v)
{
	const struct model_thief *t[b->m->max_thieves ? b->m->max_thieves : 1];
	struct json_writer *jw = json_w(b);
	unsigned int i, n;
	uint64_t rest;

	jsonw_name(jw, "stolen_by");
	if (!b->ns || !batch_steal_known(b)) {
		jsonw_null(jw);
		return;
	}
	jsonw_begin_array(jw);
	n = model_steal_top(b->m, v, t, &rest);
	for (i = 0; i < n; i++)
		json_thief(b, t[i]);
	if (rest) {
		jsonw_begin_object(jw);
		jsonw_double_field(jw, "seconds", 9, (double)rest / 1e9);
		jsonw_null_field(jw, "pid");
		jsonw_null_field(jw, "tid");
		jsonw_string_field(jw, "comm", "other");
		jsonw_null_field(jw, "vm");
		jsonw_null_field(jw, "vcpu");
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

/* In JSON: the host's kernel_threads object. */
static void json_kernel(const struct batch *b, const struct vm *k, const struct model_scope *sc)
{
	jsonw_name(json_w(b), "kernel_threads");
	jsonw_begin_object(json_w(b));
	jsonw_int_field(json_w(b), "count", k->nr_vcpus);
	json_events(b, sc);
	jsonw_end_object(json_w(b));
}

/* Live: the VM's memory per NUMA node (numa_maps, as last read), bytes by node id; nothing unread. */
static void json_numa(const struct batch *b, const struct vm *vm)
{
	struct json_writer *jw = json_w(b);
	int n;

	if (vm->ctx.nr_nodes <= 0)
		return;
	jsonw_name(jw, "numa_node_bytes");
	jsonw_begin_array(jw);
	for (n = 0; n < vm->ctx.nr_nodes; n++)
		jsonw_uint(jw, vm->ctx.node_bytes[n]);
	jsonw_end_array(jw);
}

/*
 * Each tap/macvtap interface its VMM holds or held (CTX_TAPS of them, the
 * net_* figures summing them): its name, its rates over the snapshot
 * (null where not counted from its start on: a tap's first reading), its
 * counters' sums as the VM's (vm_net_rx_bytes ...), where they count
 * from (as vm_net_counted_from's).  Nothing where none is known.
 */
static void json_taps(const struct batch *b, const struct vm *vm)
{
	static const struct { const char *key, *total; enum ctx_tap_ctr k; } cols[] = {
		{ "rx_bytes_per_s", "rx_bytes", CTX_TAP_RXB }, { "tx_bytes_per_s", "tx_bytes", CTX_TAP_TXB },
		{ "rx_packets_per_s", "rx_packets", CTX_TAP_RXP }, { "tx_packets_per_s", "tx_packets", CTX_TAP_TXP },
		{ "drops_per_s", "drops", CTX_TAP_DROPS },
	};
	struct json_writer *jw = json_w(b);
	unsigned int c;
	int i;

	if (vm->ctx.nr_tap_rows <= 0)
		return;
	jsonw_name(jw, "net_interfaces");
	jsonw_begin_array(jw);
	for (i = 0; i < vm->ctx.nr_tap_rows; i++) {
		const struct vm_ctx_tap *tap = &vm->ctx.taps[i];

		jsonw_begin_object(jw);
		jsonw_string_field(jw, "name", tap->name);
		if (model_from_word(tap->from))
			jsonw_string_field(jw, "counted_from", model_from_word(tap->from));
		else
			jsonw_null_field(jw, "counted_from");
		for (c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			jsonw_name(jw, cols[c].key);
			if (tap->known)
				jsonw_double(jw, 2, tap->rate[cols[c].k]);
			else
				jsonw_null(jw);
		}
		for (c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			if (tap->whole)
				jsonw_uint_field(jw, cols[c].total, tap->sum[cols[c].k]);
			else
				jsonw_null_field(jw, cols[c].total);
		}
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

/* Live: the host's pressure, each figure or null; nothing for a recording (none read). */
static void json_host_psi(const struct batch *b)
{
	struct json_writer *jw = json_w(b);
	const char *key;
	unsigned int i;
	double v;

	if (!b->m->host_ctx.prev_known)
		return;
	jsonw_name(jw, "host_pressure");
	jsonw_begin_object(jw);
	for (i = 0; i < BATCH_HOST_PSI; i++) {
		bool known = batch_host_psi(b, i, &key, &v);

		jsonw_name(jw, key);
		if (known)
			jsonw_double(jw, 2, v);
		else
			jsonw_null(jw);
	}
	jsonw_end_object(jw);
}

/* A counter of the model: the interval's, or since the start. */
static uint64_t json_ctr(const struct batch *b, const struct ctr *c)
{
	return b->cumulative ? c->total : ctr_interval(c);
}

/* The snapshot's own keys, up to the host's object. */
static void json_header(const struct batch *b, uint64_t end)
{
	struct json_writer *jw = json_w(b);
	const struct model *m = b->m;

	jsonw_string_field(jw, "source", b->source);
	if (b->file)
		jsonw_string_field(jw, "file", b->file);
	jsonw_string_field(jw, "clock", b->clock);
	jsonw_string_field(jw, "time_unit", b->time_unit);
	jsonw_uint_field(jw, "snapshot", b->snapshots + 1);
	jsonw_bool_field(jw, "summary", b->summary);
	/* in the source's clock: past 2^53 ns after 104 days up, a decimal string (model_field_big) */
	jsonw_u64_field(jw, "start", batch_start(b));
	jsonw_u64_field(jw, "end", end);
	if (b->ns)
		jsonw_double_field(jw, "seconds", 9, batch_seconds(b, end));
	else
		jsonw_null_field(jw, "seconds");
	batch_time_json(b, end);
	jsonw_uint_field(jw, "empty_intervals", b->empty > 1 ? b->empty : 0);
	jsonw_uint_field(jw, "kvm_events", json_ctr(b, &m->events));
	jsonw_uint_field(jw, "lost_events", json_ctr(b, &m->lost_events));
	jsonw_uint_field(jw, "dropped_events", json_ctr(b, &m->dropped));
	json_host_psi(b);
}

/*
 * A scope's exits and their rate; with its unmatched events but for the
 * host's (as it always was), null where the source pairs no exit with
 * its entry (a counter source: batch_field_known(), as CSV's empty cell).
 */
static void json_exits(const struct batch *b, const struct model_scope *sc, uint64_t end, bool unmatched)
{
	struct json_writer *jw = json_w(b);

	jsonw_uint_field(jw, "exits", sc->exits);
	jsonw_uint_field(jw, "exits_total", sc->exits_total);
	jsonw_name(jw, "exits_per_s");
	json_rate(b, sc->exits, end);
	if (!unmatched)
		return;
	if (!b->traced) {
		jsonw_null_field(jw, "unmatched_exits");
		jsonw_null_field(jw, "unmatched_entries");
		return;
	}
	jsonw_uint_field(jw, "unmatched_exits", sc->unmatched_exits);
	jsonw_uint_field(jw, "unmatched_entries", sc->unmatched_entries);
}

/*
 * One vCPU thread of vm in the snapshot snap: its fields over its scope
 * (summed up, as CSV's row: model_scope_summary()), then its figures
 * apart.  0 or -1 (no memory).
 */
static int json_vcpu(const struct batch *b, const struct model_snap *snap, const struct vm *vm,
		     const struct vcpu *v)
{
	struct model_scope cs;
	int ret = -1;

	if (model_scope_vcpu(&cs, b->m, v, b->cumulative) || model_scope_summary(&cs))
		goto out;
	jsonw_begin_object(json_w(b));
	json_fields(b, MR_VCPU, &(struct model_row){ .m = b->m, .snap = snap, .vm = vm, .v = v, .vcpu_sc = &cs });
	json_exits(b, &cs, snap->end, true);
	json_states(b, &cs);
	json_stolen(b, v);
	json_reasons(b, vm, &cs);
	json_events(b, &cs);
	batch_kstats_json(b, vm, v);
	if (batch_ips_json(b, vm, v))
		goto out;
	jsonw_end_object(json_w(b));
	ret = 0;
out:
	model_scope_free(&cs);
	return ret;
}

/* One VM and its vCPU threads in the snapshot snap, its fields as a vCPU's: 0 or -1 (no memory). */
static int json_vm(const struct batch *b, const struct model_snap *snap, const struct vm *vm)
{
	struct json_writer *jw = json_w(b);
	const struct model *m = b->m;
	const struct vcpu **vcpus = NULL;
	struct model_scope vs;
	unsigned int i, n;
	int ret = -1;

	if (model_scope_vm(&vs, m, vm, b->cumulative) || model_scope_summary(&vs))
		goto out;
	jsonw_begin_object(jw);
	json_fields(b, MR_VM, &(struct model_row){ .m = m, .snap = snap, .vm = vm, .vm_sc = &vs });
	json_numa(b, vm);
	json_taps(b, vm);
	json_exits(b, &vs, snap->end, true);
	json_threads(b, vm, &vs);
	json_reasons(b, vm, &vs);
	json_events(b, &vs);
	batch_kstats_json(b, vm, NULL);
	if (batch_ips_json(b, vm, NULL))
		goto out;
	jsonw_name(jw, "vcpus");
	jsonw_begin_array(jw);
	vcpus = batch_vcpus(b, vm, &n);
	if (!vcpus)
		goto out;
	for (i = 0; i < n; i++)
		if (json_vcpu(b, snap, vm, vcpus[i]))
			goto out;
	jsonw_end_array(jw);
	jsonw_end_object(jw);
	ret = 0;
out:
	free(vcpus);
	model_scope_free(&vs);
	return ret;
}

/* The snapshot's document, through the writer jw. */
static int json_document(struct batch *b, uint64_t end)
{
	struct json_writer *jw = json_w(b);
	const struct vm **vms = NULL;
	struct model_scope host;
	struct model_snap snap;
	unsigned int i, n;
	int ret = -1;

	batch_snap(b, end, &snap);
	if (model_scope_host(&host, b->m, b->cumulative))
		goto out;
	jsonw_begin_object(jw);
	json_header(b, end);
	jsonw_name(jw, "host");
	jsonw_begin_object(jw);
	json_exits(b, &host, end, false);
	json_reasons(b, NULL, &host);
	if (batch_kernel(b, json_kernel))
		goto out;
	jsonw_end_object(jw);
	batch_findings_json(b);
	batch_kstats_json_info(b);
	jsonw_name(jw, "vms");
	jsonw_begin_array(jw);
	vms = batch_vms(b, &n);
	if (!vms)
		goto out;
	for (i = 0; i < n; i++)
		if (json_vm(b, &snap, vms[i]))
			goto out;
	jsonw_end_array(jw);
	jsonw_end_object(jw);
	jsonw_end_line(jw);
	ret = 0;
out:
	free(vms);
	model_scope_free(&host);
	return ret;
}

/* One JSON line: the snapshot's document, its writer b->json while it prints. */
static int json_print(struct batch *b, uint64_t end)
{
	struct json_writer jw;
	int ret;

	jsonw_init(&jw, b->out);
	b->json = &jw;
	ret = json_document(b, end);
	b->json = NULL;
	return ret;
}

const struct batch_format batch_format_json = {
	.name = "json",
	.print = json_print,
	.findings = true,
	.ips = true,
};
