// SPDX-License-Identifier: GPL-2.0
/*
 * What the batch formats share (batch_priv.h): the snapshot's length, the
 * fields a source measures, a scope's rows, a field's value as CSV and
 * JSON write it, the host kernel's threads.  The formats call down to
 * here; nothing here calls a format or the view (batch.c).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "util/clock.h"
#include "util/escape.h"
#include "util/fmt.h"
#include "model/model_view.h"
#include "model/model_time.h"

uint64_t batch_start(const struct batch *b)
{
	return b->start_at ? b->start_at : b->m->interval_start;
}

void batch_snap(const struct batch *b, uint64_t end, struct model_snap *s)
{
	*s = (struct model_snap){
		.number = b->snapshots + 1, .start = batch_start(b), .end = end, .ns = b->ns,
		.cumulative = b->cumulative, .traced = b->traced, .time_unit = b->time_unit,
		.wall_known = b->wall_known, .wall_offset = b->live ? clock_wall_offset() : 0,
	};
}

void batch_time_json(const struct batch *b, uint64_t end)
{
	struct model_snap s;
	char buf[40];

	batch_snap(b, end, &s);
	jsonw_name(b->json, "time");
	if (model_snap_time(&s, end, buf, sizeof(buf)))
		jsonw_string(b->json, buf);
	else
		jsonw_null(b->json);
}

double batch_seconds(const struct batch *b, uint64_t end)
{
	uint64_t t = end - batch_start(b);

	return b->ns ? (double)t / 1e9 : 0.0;
}

bool batch_host_psi(const struct batch *b, unsigned int i, const char **key, double *v)
{
	static const struct { const char *key; enum vm_ctx_fig f; } psi[BATCH_HOST_PSI] = {
		{ "cpu_some", CTX_CPU_SOME }, { "cpu_full", CTX_CPU_FULL },
		{ "memory_some", CTX_MEM_SOME }, { "memory_full", CTX_MEM_FULL },
		{ "io_some", CTX_IO_SOME }, { "io_full", CTX_IO_FULL },
	};

	*key = psi[i].key;
	return vm_ctx_get(&b->m->host_ctx, psi[i].f, v);
}

bool batch_field_known(const struct batch *b, const struct model_field *f)
{
	/* a counter source pairs no exit with its entry: no samples, not 0 of them */
	if (f->hist != MF_NO_HIST && !b->traced)
		return false;
	if (f->sched && !(model_time_known(b->m) & TIME_SPLIT))
		return false;
	return f->kind != MF_SECS || b->ns;
}

/* One row's value of the sort field, for the comparisons below. */
struct sort_key {
	struct model_field_val v;
	bool has;
	unsigned int at;	/* its place in the list's own order: ties keep it */
};

/* The order of two rows by b->sort: most first, or least with -KEY; rows without a value last. */
static int sort_cmp(const struct model_field *f, bool ascending, const struct sort_key *x,
		    const struct sort_key *y)
{
	int r;

	if (x->has != y->has)
		return x->has ? -1 : 1;
	switch (f->kind) {
	case MF_TEXT:
		r = strcmp(x->v.s ? x->v.s : "", y->v.s ? y->v.s : "");
		break;
	case MF_INT:
		r = x->v.i < y->v.i ? -1 : x->v.i > y->v.i;
		break;
	case MF_PCT:
	case MF_RATE:
	case MF_TIME_MEAN:
		r = x->v.d < y->v.d ? -1 : x->v.d > y->v.d;
		break;
	case MF_BOOL:
		r = (int)x->v.b - (int)y->v.b;
		break;
	default:
		r = x->v.u < y->v.u ? -1 : x->v.u > y->v.u;
		break;
	}
	if (!ascending)
		r = -r;
	return r ? r : x->at < y->at ? -1 : x->at > y->at;
}

/* What qsort_r compares: the keys, in step with the rows. */
struct sort_ctx {
	const struct model_field *f;
	bool ascending;
	const struct sort_key *keys;
};

static int sort_cmp_at(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	unsigned int i = *(const unsigned int *)a, j = *(const unsigned int *)b;

	return sort_cmp(c->f, c->ascending, &c->keys[i], &c->keys[j]);
}

/*
 * Row r of kind (a VM, a vCPU thread, a reason's or an object's row) as
 * a getter reads it, with its figures over the snapshot in sc where the
 * kind has them (as CSV's rows have them; model_scope_free()d after):
 * 0, or -1 (no memory).
 */
static int batch_row_of(const struct batch *b, enum model_row_kind kind, const void *r,
			struct model_row *row, struct model_scope *sc)
{
	const struct vcpu *v = r;

	*row = (struct model_row){ .m = b->m };
	switch (kind) {
	case MR_VM:
		row->vm = r;
		row->vm_sc = sc;
		/* the summary: the VM's latency and top reason (model_fields.c) */
		return model_scope_vm(sc, b->m, r, b->cumulative) || model_scope_summary(sc) ? -1 : 0;
	case MR_VCPU:
		row->vm = v->vm;
		row->v = v;
		row->vcpu_sc = sc;
		return model_scope_vcpu(sc, b->m, v, b->cumulative) || model_scope_summary(sc) ? -1 : 0;
	case MR_REASON:
		row->r = r;
		return 0;
	default:
		row->o = r;
		return 0;
	}
}

/* The sort key of rows[i] into key: 0, or -1 (no memory). */
static int sort_key_of(const struct batch *b, enum model_row_kind kind, const void *r,
		       struct sort_key *key)
{
	struct model_snap snap;
	struct model_scope sc;
	struct model_row row;
	int ret;

	memset(&sc, 0, sizeof(sc));
	batch_snap(b, b->end, &snap);
	ret = batch_row_of(b, kind, r, &row, &sc);
	row.snap = &snap;
	if (!ret)
		model_field_value(b->sort, &row, &key->v, &key->has);
	model_scope_free(&sc);
	return ret;
}

/*
 * rows (n pointers) in b->sort's order, when it is a field of rows of
 * kind (batch_row_of()).  0, or -1 (no memory).
 */
static int sort_rows(const struct batch *b, enum model_row_kind kind, const void **rows, unsigned int n)
{
	struct sort_ctx c = { .f = b->sort, .ascending = b->sort_ascending };
	struct sort_key *keys;
	unsigned int *order, i;
	const void **tmp;

	if (!b->sort || b->sort->row != kind || n < 2)
		return 0;
	keys = calloc(n, sizeof(*keys));
	order = calloc(n, sizeof(*order));
	tmp = calloc(n, sizeof(*tmp));
	if (!keys || !order || !tmp)
		goto out;
	for (i = 0; i < n; i++) {
		if (sort_key_of(b, kind, rows[i], &keys[i]))
			goto out;
		keys[i].at = order[i] = i;
	}
	c.keys = keys;
	qsort_r(order, n, sizeof(*order), sort_cmp_at, &c);
	for (i = 0; i < n; i++)
		tmp[i] = rows[order[i]];
	memcpy(rows, tmp, n * sizeof(*rows));
	free(tmp);
	free(order);
	free(keys);
	return 0;
out:
	free(tmp);
	free(order);
	free(keys);
	return -1;
}

const struct model_obj_row **batch_objs(const struct batch *b, const struct model_scope *sc, int id,
					unsigned int *n)
{
	const struct model_obj_row *first, **objs;
	unsigned int i;

	*n = model_scope_objs(sc, id, &first);
	objs = calloc(*n ? *n : 1, sizeof(*objs));
	if (!objs)
		return NULL;
	for (i = 0; i < *n; i++)
		objs[i] = &first[i];
	if (sort_rows(b, MR_OBJECT, (const void **)objs, *n)) {
		free(objs);
		return NULL;
	}
	return objs;
}

const struct model_reason_row **batch_rows(const struct batch *b, const struct model_scope *sc, unsigned int *n)
{
	const struct model_reason_row **rows = calloc(sc->nr ? sc->nr : 1, sizeof(*rows));

	*n = rows ? model_scope_sorted(sc, rows) : 0;
	if (rows && sort_rows(b, MR_REASON, (const void **)rows, *n)) {
		free(rows);
		return NULL;
	}
	return rows;
}

const struct vm **batch_vms(const struct batch *b, unsigned int *n)
{
	const struct vm **vms = calloc(model_nr_vms(b->m) + 1, sizeof(*vms)), *vm;

	*n = 0;
	if (!vms)
		return NULL;
	/* a VM whose exits the source cannot see is never left out as idle */
	MODEL_FOREACH_VM(vm, b->m)
		if (!b->zero || model_vm_active(b->m, vm) || vm->exits_unknown)
			vms[(*n)++] = vm;
	if (sort_rows(b, MR_VM, (const void **)vms, *n)) {
		free(vms);
		return NULL;
	}
	return vms;
}

const struct vcpu **batch_vcpus(const struct batch *b, const struct vm *vm, unsigned int *n)
{
	const struct vcpu **vs = calloc(vm->nr_vcpus + 1, sizeof(*vs)), *v;

	*n = 0;
	if (!vs)
		return NULL;
	MODEL_FOREACH_VCPU(v, vm)
		if (!b->zero || model_vcpu_active(b->m, v))
			vs[(*n)++] = v;
	if (sort_rows(b, MR_VCPU, (const void **)vs, *n)) {
		free(vs);
		return NULL;
	}
	return vs;
}

enum model_row_kind batch_level(const struct batch *b)
{
	enum model_row_kind k = b->nr_fields ? MR_SNAPSHOT : MR_REASON;
	unsigned int j;

	for (j = 0; j < b->nr_fields; j++)
		if (b->fields[j]->row > k)
			k = b->fields[j]->row;
	return k;
}

/* Reason w's rows: one, or at an object's level one per object it has: 0 or -1 (no memory). */
static int walk_reason(const struct batch *b, struct model_row *row, const struct model_reason_row *w,
		       batch_emit_fn emit)
{
	const struct model_obj_row **objs;
	unsigned int i, n;

	row->r = w;
	if (batch_level(b) < MR_OBJECT) {
		emit(b, row);
		return 0;
	}
	objs = batch_objs(b, row->vcpu_sc, w->id, &n);
	if (!objs)
		return -1;
	for (i = 0; i < n; i++) {
		row->o = objs[i];
		emit(b, row);
	}
	free(objs);
	return 0;
}

/* The rows of vCPU v (row: its VM's): 0 or -1 (no memory). */
static int walk_vcpu(const struct batch *b, struct model_row *row, const struct vcpu *v, batch_emit_fn emit)
{
	const struct model_reason_row **rows = NULL;
	struct model_scope cs;
	unsigned int i, n;
	int ret = -1;

	if (model_scope_vcpu(&cs, b->m, v, b->cumulative) || model_scope_summary(&cs))
		goto out;
	row->v = v;
	row->vcpu_sc = &cs;
	if (batch_level(b) == MR_VCPU) {
		emit(b, row);
		ret = 0;
		goto out;
	}
	rows = batch_rows(b, &cs, &n);
	if (!rows)
		goto out;
	for (i = 0, ret = 0; i < n && !ret; i++)
		ret = walk_reason(b, row, rows[i], emit);
out:
	free(rows);
	model_scope_free(&cs);
	return ret;
}

/* VM vm's rows, one, or vCPU by vCPU: 0 or -1 (no memory). */
static int walk_vm(const struct batch *b, const struct model_snap *snap, const struct vm *vm,
		   batch_emit_fn emit)
{
	const struct vcpu **vs = NULL;
	struct model_scope sc;
	unsigned int i, n;
	int ret = -1;

	/* the summary: the VM's latency and top reason (model_fields.c) */
	if (model_scope_vm(&sc, b->m, vm, b->cumulative) || model_scope_summary(&sc))
		goto out;
	if (batch_level(b) == MR_VM) {
		emit(b, &(struct model_row){ .m = b->m, .snap = snap, .vm = vm, .vm_sc = &sc });
		ret = 0;
		goto out;
	}
	vs = batch_vcpus(b, vm, &n);
	if (!vs)
		goto out;
	for (i = 0, ret = 0; i < n && !ret; i++) {
		struct model_row row = { .m = b->m, .snap = snap, .vm = vm, .vm_sc = &sc };

		ret = walk_vcpu(b, &row, vs[i], emit);
	}
out:
	free(vs);
	model_scope_free(&sc);
	return ret;
}

int batch_walk(const struct batch *b, const struct model_snap *snap, batch_emit_fn emit)
{
	const struct vm **vms;
	unsigned int i, n;
	int ret = 0;

	if (batch_level(b) == MR_SNAPSHOT) {
		emit(b, &(struct model_row){ .m = b->m, .snap = snap });
		return 0;
	}
	vms = batch_vms(b, &n);
	if (!vms)
		return -1;
	for (i = 0; i < n && !ret; i++)
		ret = walk_vm(b, snap, vms[i], emit);
	free(vms);
	return ret;
}

/* The field called name: the table's, or one made of a family's (a KVM statistic), or NULL. */
static const struct model_field *batch_field_named(struct batch *b, const char *name)
{
	const struct model_field *f = model_field(name), *fam = f ? NULL : model_field_family(name);
	struct model_kstat_field *kf;

	if (!fam || b->nr_kstat_fields >= sizeof(b->kstat_fields) / sizeof(b->kstat_fields[0]))
		return f;
	kf = &b->kstat_fields[b->nr_kstat_fields++];
	model_kstat_field_make(fam, name, kf);
	return &kf->f;
}

void batch_kstat_fields_check(const struct batch *b)
{
	unsigned int i;

	for (i = 0; i < b->nr_kstat_fields; i++)
		if (!model_kstat_field_exists(b->m, &b->kstat_fields[i].f))
			fprintf(stderr, "kvmtop: %s: KVM gives no such statistic here, empty (null in JSON): "
				"--source stats reads them, JSON's kvm_stats_info lists those there are "
				"(a histogram is in JSON only)\n", b->kstat_fields[i].name);
}

void batch_scope_init(struct batch *b, const char *sort, const char *fields)
{
	const char *p = fields;

	if (sort) {
		b->sort_ascending = *sort == '-';
		b->sort = batch_field_named(b, sort + b->sort_ascending);
	}
	/* names of 63 characters at most, BATCH_FIELDS_MAX of them: options.c refused others */
	while (p && *p && b->nr_fields < BATCH_FIELDS_MAX) {
		size_t n = strcspn(p, ",");
		const struct model_field *f;
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		f = batch_field_named(b, name);
		if (f)
			b->fields[b->nr_fields++] = f;
		p += n + (p[n] == ',');
	}
}

/* What each kind of field is as CSV and JSON write it; a fraction's decimals. */
static const struct {
	enum batch_val_type type;
	int decimals;
} batch_kinds[] = {
	[MF_TEXT] = { BV_TEXT, 0 },	[MF_INT] = { BV_INT, 0 },
	[MF_BOOL] = { BV_BOOL, 0 },	[MF_NUM] = { BV_UINT, 0 },
	[MF_PCT] = { BV_FRAC, 2 },	[MF_TIME] = { BV_UINT, 0 },
	[MF_TIME_MEAN] = { BV_FRAC, 1 }, [MF_SECS] = { BV_FRAC, 9 },
	[MF_RATE] = { BV_FRAC, 2 },	[MF_ADDR] = { BV_ADDR, 0 },
};

enum batch_val_type batch_value(const struct model_field *f, const struct model_row *row,
				struct model_field_val *v, int *decimals)
{
	enum batch_val_type t = batch_kinds[f->kind].type;
	bool has;

	model_field_value(f, row, v, &has);
	*decimals = batch_kinds[f->kind].decimals;
	/* no value: the getter says so, a whole number's -1, an empty string */
	if (v->unknown || (t == BV_INT && v->i < 0) || (t == BV_TEXT && (!v->s || !v->s[0])))
		return BV_NONE;
	if (f->kind == MF_SECS)
		v->d = (double)v->u / 1e9;
	return t;
}

bool batch_machine_value(const struct batch *b, const struct model_field *f,
			 const struct model_row *row, void (*esc)(FILE *f, const char *s))
{
	struct model_field_val v;
	int dec;

	switch (batch_value(f, row, &v, &dec)) {
	case BV_NONE:
		return false;
	case BV_TEXT:
		esc(b->out, v.s);
		break;
	case BV_INT:
		fprintf(b->out, "%" PRId64, v.i);
		break;
	case BV_UINT:
		fprintf(b->out, "%" PRIu64, v.u);
		break;
	case BV_FRAC:
		fprintf(b->out, "%.*f", dec, v.d);
		break;
	case BV_BOOL:
		fputs(v.b ? "true" : "false", b->out);
		break;
	case BV_ADDR:
		fprintf(b->out, "0x%" PRIx64, v.u);
		break;
	}
	return true;
}

void batch_json_value(const struct batch *b, const struct model_field *f, const struct model_row *row)
{
	struct json_writer *jw = b->json;
	struct model_field_val v;
	int dec;

	switch (batch_value(f, row, &v, &dec)) {
	case BV_NONE:
		jsonw_null(jw);
		break;
	case BV_TEXT:
		jsonw_string(jw, v.s);
		break;
	case BV_INT:
		jsonw_int(jw, v.i);
		break;
	case BV_UINT:
		/* one that can pass 2^53: a decimal string (model_fields.h) */
		if (model_field_big(f))
			jsonw_u64(jw, v.u);
		else
			jsonw_uint(jw, v.u);
		break;
	case BV_FRAC:
		jsonw_double(jw, dec, v.d);
		break;
	case BV_BOOL:
		jsonw_bool(jw, v.b);
		break;
	case BV_ADDR:
		jsonw_hex(jw, v.u);
		break;
	}
}

const char *batch_text_field(const char *name, const struct model_row *row, char *buf, size_t len)
{
	const struct model_field *f = model_field(name);
	struct model_field_val v;
	bool has;

	model_field_value(f, row, &v, &has);
	if (v.unknown) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (f->kind) {
	case MF_TEXT:
		return escape_text(v.s, buf, len);
	case MF_PCT:
	case MF_RATE:
		snprintf(buf, len, "%.2f", v.d);
		return buf;
	case MF_INT:
		snprintf(buf, len, "%" PRId64, v.i);
		return buf;
	case MF_BOOL:
		snprintf(buf, len, "%s", v.b ? "yes" : "no");
		return buf;
	case MF_ADDR:
		snprintf(buf, len, "0x%" PRIx64, v.u);
		return buf;
	default:
		snprintf(buf, len, "%" PRIu64, v.u);
		return buf;
	}
}

const char *batch_text_value(const struct batch *b, const struct model_field *f, const struct model_row *row,
			     char *buf, size_t len)
{
	struct model_field_val v;
	int dec;

	switch (batch_field_known(b, f) ? batch_value(f, row, &v, &dec) : BV_NONE) {
	case BV_NONE:
		snprintf(buf, len, "-");
		break;
	case BV_TEXT:
		escape_text(v.s, buf, len);
		break;
	case BV_INT:
		snprintf(buf, len, "%" PRId64, v.i);
		break;
	case BV_BOOL:
		snprintf(buf, len, "%s", v.b ? "yes" : "no");
		break;
	case BV_ADDR:
		snprintf(buf, len, "0x%" PRIx64, v.u);
		break;
	default:
		/* a time with its unit; a share or rate with 2 decimals; a count */
		if (f->kind == MF_TIME || f->kind == MF_SECS)
			fmt_duration((double)v.u, b->ns, 2, buf, len);
		else if (f->kind == MF_TIME_MEAN)
			fmt_duration(v.d, b->ns, 2, buf, len);
		else if (f->kind == MF_PCT || f->kind == MF_RATE)
			snprintf(buf, len, "%.2f", v.d);
		else
			snprintf(buf, len, "%" PRIu64, v.u);
		break;
	}
	return buf;
}

bool batch_steal_known(const struct batch *b)
{
	const char *src = model_time_source(b->m, VS_WAIT);

	return b->m->max_thieves && src && !strcmp(src, "trace");
}

int batch_kernel(const struct batch *b,
		 void (*print)(const struct batch *b, const struct vm *k, const struct model_scope *sc))
{
	const struct vm *k = model_kernel_vm(b->m);
	struct model_scope sc;

	if (!k)
		return 0;
	if (model_scope_vm(&sc, b->m, k, b->cumulative)) {
		model_scope_free(&sc);
		return -1;
	}
	print(b, k, &sc);
	model_scope_free(&sc);
	return 0;
}
