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

static int csv_print(struct batch *b, uint64_t end)
{
	struct model_snap snap;

	/* at the start of each file: --output's after a SIGHUP too */
	if (!b->in_file)
		csv_header(b);
	batch_snap(b, end, &snap);
	return batch_walk(b, &snap, csv_row);
}

const struct batch_format batch_format_csv = {
	.name = "csv",
	.print = csv_print,
};
