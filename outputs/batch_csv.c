// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as CSV.  Its columns are fields of the table
 * (model_fields.h), each by its name: without --fields every field of
 * the snapshot, the VM, the vCPU thread and the exit reason, in the
 * table's order, then KVM's statistics; with --fields exactly those
 * asked, in their order.  A row is of the finest kind among its columns:
 * only the snapshot's, one per snapshot; a VM's, one per VM; a vCPU's,
 * one per vCPU thread; a reason's (and always without --fields), one per
 * (vCPU thread, reason); an object's, one per object of a reason
 * (kvmtop(1), OBJECTS).  Strings are quoted as RFC 4180 has it, and
 * escaped (escape.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "util/escape.h"

/* The columns: --fields', else every field but an object's (the table holds those last). */
static unsigned int csv_nr_cols(const struct batch *b)
{
	unsigned int nobj;

	if (b->nr_fields)
		return b->nr_fields;
	model_fields_of(MR_OBJECT, &nobj);
	return model_nr_fields - nobj;
}

/* Column j's field. */
static const struct model_field *csv_col(const struct batch *b, unsigned int j)
{
	return b->nr_fields ? b->fields[j] : &model_fields[j];
}

/* The kind of row the columns ask for: the finest of theirs (without --fields, a reason's). */
static enum model_row_kind csv_level(const struct batch *b)
{
	enum model_row_kind k = b->nr_fields ? MR_SNAPSHOT : MR_REASON;
	unsigned int j;

	for (j = 0; j < b->nr_fields; j++)
		if (b->fields[j]->row > k)
			k = b->fields[j]->row;
	return k;
}

/* The header line: the columns' names (and, without --fields, KVM's statistics). */
static void csv_header(struct batch *b)
{
	unsigned int j, n = csv_nr_cols(b);

	for (j = 0; j < n; j++)
		fprintf(b->out, "%s%s", j ? "," : "", csv_col(b, j)->name);
	if (!b->nr_fields)
		batch_kstats_csv_header(b);
	fputc('\n', b->out);
}

/*
 * One row: each column's value of row, empty where not measured or not
 * known (null in JSON).  A row of one empty cell is "" (as Python's csv
 * writes it): an empty line is no row to a reader.
 */
static void csv_row(const struct batch *b, const struct model_row *row)
{
	unsigned int j, n = csv_nr_cols(b);
	bool wrote = false;

	for (j = 0; j < n; j++) {
		const struct model_field *f = csv_col(b, j);

		if (j)
			fputc(',', b->out);
		if (batch_field_known(b, f))
			wrote = batch_machine_value(b, f, row, escape_csv);
	}
	if (n == 1 && !wrote)
		fputs("\"\"", b->out);
	if (!b->nr_fields)
		batch_kstats_csv(b, row->vm, row->v);
	fputc('\n', b->out);
}

/* Reason w's rows: one, or at an object's level one per object it has: 0 or -1 (no memory). */
static int csv_reason(const struct batch *b, struct model_row *row, const struct model_reason_row *w)
{
	const struct model_obj_row **objs;
	unsigned int i, n;

	row->r = w;
	if (csv_level(b) < MR_OBJECT) {
		csv_row(b, row);
		return 0;
	}
	objs = batch_objs(b, row->vcpu_sc, w->id, &n);
	if (!objs)
		return -1;
	for (i = 0; i < n; i++) {
		row->o = objs[i];
		csv_row(b, row);
	}
	free(objs);
	return 0;
}

/* The rows of vCPU v (row: its VM's): 0 or -1 (no memory). */
static int csv_vcpu(const struct batch *b, struct model_row *row, const struct vcpu *v)
{
	const struct model_reason_row **rows = NULL;
	struct model_scope cs;
	unsigned int i, n;
	int ret = -1;

	if (model_scope_vcpu(&cs, b->m, v, b->cumulative) || model_scope_summary(&cs))
		goto out;
	row->v = v;
	row->vcpu_sc = &cs;
	if (csv_level(b) == MR_VCPU) {
		csv_row(b, row);
		ret = 0;
		goto out;
	}
	rows = batch_rows(b, &cs, &n);
	if (!rows)
		goto out;
	for (i = 0, ret = 0; i < n && !ret; i++)
		ret = csv_reason(b, row, rows[i]);
out:
	free(rows);
	model_scope_free(&cs);
	return ret;
}

/* VM vm's rows, one, or vCPU by vCPU: 0 or -1 (no memory). */
static int csv_vm(const struct batch *b, const struct model_snap *snap, const struct vm *vm)
{
	const struct vcpu **vs = NULL;
	struct model_scope sc;
	unsigned int i, n;
	int ret = -1;

	/* the summary: the VM's latency and top reason (model_fields.c) */
	if (model_scope_vm(&sc, b->m, vm, b->cumulative) || model_scope_summary(&sc))
		goto out;
	if (csv_level(b) == MR_VM) {
		csv_row(b, &(struct model_row){ .m = b->m, .snap = snap, .vm = vm, .vm_sc = &sc });
		ret = 0;
		goto out;
	}
	vs = batch_vcpus(b, vm, &n);
	if (!vs)
		goto out;
	for (i = 0, ret = 0; i < n && !ret; i++) {
		struct model_row row = { .m = b->m, .snap = snap, .vm = vm, .vm_sc = &sc };

		ret = csv_vcpu(b, &row, vs[i]);
	}
out:
	free(vs);
	model_scope_free(&sc);
	return ret;
}

static int csv_print(struct batch *b, uint64_t end)
{
	const struct vm **vms;
	struct model_snap snap;
	unsigned int i, n;
	int ret = 0;

	/* at the start of each file: --output's after a SIGHUP too */
	if (!b->in_file)
		csv_header(b);
	batch_snap(b, end, &snap);
	if (csv_level(b) == MR_SNAPSHOT) {
		csv_row(b, &(struct model_row){ .m = b->m, .snap = &snap });
		return 0;
	}
	vms = batch_vms(b, &n);
	if (!vms)
		return -1;
	for (i = 0; i < n && !ret; i++)
		ret = csv_vm(b, &snap, vms[i]);
	free(vms);
	return ret;
}

const struct batch_format batch_format_csv = {
	.name = "csv",
	.print = csv_print,
};
