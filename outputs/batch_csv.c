// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output as CSV: one row per VM, vCPU thread and exit reason, its
 * reason columns every field of model_fields.h by name (empty where the
 * input does not measure it), then the vCPU's time states and the VM's
 * thread groups, then KVM's statistics.  With --fields that name an
 * object's field, a row is one object of a reason (kvmtop(1), OBJECTS).  Strings are quoted as RFC 4180
 * has it, and escaped (escape.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch_priv.h"
#include "util/escape.h"

/* The thread's time in each state, seconds; empty where not measured. */
static void csv_states(const struct batch *b, const struct model_scope *sc)
{
	int j;

	for (j = 0; j < VS_NR; j++) {
		fputc(',', b->out);
		if (b->ns && (sc->time_known & (1u << j)))
			fprintf(b->out, "%.9f", (double)sc->time[j] / 1e9);
	}
}

/* The VM's emulator_run_s ... vhost_wait_s, empty where not measured. */
static void csv_groups(const struct batch *b, const struct vm *vm)
{
	int g, w;

	for (g = 0; g < TG_NR; g++)
		for (w = 0; w < 2; w++) {
			fputc(',', b->out);
			if (b->ns && vm->groups[g].known)
				fprintf(b->out, "%.9f", (double)model_group_ns(vm, g, w, false) / 1e9);
		}
}

/*
 * A row's columns are every field of the table (model_fields.h), as
 * JSON's keys are: the VM's, the vCPU's, then the reason's, in the
 * table's order.  The kinds' fields are together there, VM first.
 */
static const struct model_field *csv_fields(unsigned int *n)
{
	unsigned int nvm, nvcpu, nreason;
	const struct model_field *f = model_fields_of(MR_VM, &nvm);

	model_fields_of(MR_VCPU, &nvcpu);
	model_fields_of(MR_REASON, &nreason);
	*n = nvm + nvcpu + nreason;
	return f;
}

/* --fields: the snapshot's columns, then those fields, in their order. */
static void csv_fields_header(const struct batch *b)
{
	unsigned int j;

	fputs("snapshot,start,end", b->out);
	for (j = 0; j < b->nr_fields; j++)
		fprintf(b->out, ",%s", b->fields[j]->name);
	fputc('\n', b->out);
}

/* The header line: the row's context, every reason field, the vCPU's and VM's columns. */
static void csv_header(struct batch *b)
{
	const struct model_field *fs;
	unsigned int j, n;

	if (b->nr_fields) {
		csv_fields_header(b);
		return;
	}
	fputs("snapshot,start,end", b->out);
	fs = csv_fields(&n);
	for (j = 0; j < n; j++)
		fprintf(b->out, ",%s", fs[j].name);
	for (j = 0; j < VS_NR; j++)
		fprintf(b->out, ",%s_s", model_state_name(j));
	for (j = 0; j < TG_NR; j++)
		fprintf(b->out, ",%s_run_s,%s_wait_s", model_group_name(j), model_group_name(j));
	batch_kstats_csv_header(b);
	fputc('\n', b->out);
}

/* One row: a reason of vCPU v of vm, whose scope is cs (o: one of its objects, with --fields). */
static void csv_row(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		    const struct model_scope *cs, const struct model_reason_row *w,
		    const struct model_obj_row *o, uint64_t end)
{
	const struct model_row row = { .m = b->m, .vm = vm, .v = v, .r = w, .o = o };
	const struct model_field *fs;
	unsigned int j, n;

	fprintf(b->out, "%u,%" PRIu64 ",%" PRIu64, b->snapshots + 1, b->m->interval_start, end);
	if (b->nr_fields) {
		/* --fields: those, in their order */
		for (j = 0; j < b->nr_fields; j++) {
			fputc(',', b->out);
			if (batch_field_known(b, b->fields[j]))
				batch_machine_value(b, b->fields[j], &row, escape_csv);
		}
		fputc('\n', b->out);
		return;
	}
	/* a field not measured here is an empty cell (null in JSON) */
	fs = csv_fields(&n);
	for (j = 0; j < n; j++) {
		fputc(',', b->out);
		if (batch_field_known(b, &fs[j]))
			batch_machine_value(b, &fs[j], &row, escape_csv);
	}
	csv_states(b, cs);
	csv_groups(b, vm);
	batch_kstats_csv(b, vm, v);
	fputc('\n', b->out);
}

/* Does --fields name a field of an object (then a row is one object of a reason)? */
static bool csv_objects(const struct batch *b)
{
	unsigned int j;

	for (j = 0; j < b->nr_fields; j++)
		if (b->fields[j]->row == MR_OBJECT)
			return true;
	return false;
}

/* Reason w's rows: one, or with object fields one per object it has. */
static void csv_reason(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		       const struct model_scope *cs, const struct model_reason_row *w, uint64_t end)
{
	const struct model_obj_row *o;
	unsigned int i, n;

	if (!csv_objects(b)) {
		csv_row(b, vm, v, cs, w, NULL, end);
		return;
	}
	n = model_scope_objs(cs, w->id, &o);
	for (i = 0; i < n; i++)
		csv_row(b, vm, v, cs, w, &o[i], end);
}

/* The rows of vCPU v: 0 or -1 (no memory). */
static int csv_vcpu(const struct batch *b, const struct vm *vm, const struct vcpu *v, uint64_t end)
{
	const struct model_reason_row **rows = NULL;
	struct model_scope cs;
	unsigned int i, n;
	int ret = -1;

	if (model_scope_vcpu(&cs, b->m, v, false))
		goto out;
	rows = batch_rows(b, &cs, &n);
	if (!rows)
		goto out;
	for (i = 0; i < n; i++)
		csv_reason(b, vm, v, &cs, rows[i], end);
	ret = 0;
out:
	free(rows);
	model_scope_free(&cs);
	return ret;
}

/* VM vm's rows, vCPU by vCPU: 0 or -1 (no memory). */
static int csv_vm(const struct batch *b, const struct vm *vm, uint64_t end)
{
	const struct vcpu **vs;
	unsigned int i, n;
	int ret = 0;

	vs = batch_vcpus(b, vm, &n);
	if (!vs)
		return -1;
	for (i = 0; i < n && !ret; i++)
		ret = csv_vcpu(b, vm, vs[i], end);
	free(vs);
	return ret;
}

static int csv_print(struct batch *b, uint64_t end)
{
	const struct vm **vms;
	unsigned int i, n;
	int ret = 0;

	/* at the start of each file: --output's after a SIGHUP too */
	if (!b->in_file)
		csv_header(b);
	vms = batch_vms(b, &n);
	if (!vms)
		return -1;
	for (i = 0; i < n && !ret; i++)
		ret = csv_vm(b, vms[i], end);
	free(vms);
	return ret;
}

const struct batch_format batch_format_csv = {
	.name = "csv",
	.print = csv_print,
};
