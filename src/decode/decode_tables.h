/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own name tables of an event: every __print_symbolic() of
 * its print fmt, maybe under a "REC->isa == N ?" condition, parsed once
 * from libtraceevent's print args.  Only the decoder uses them.
 */
#ifndef KVMTOP_DECODE_TABLES_H
#define KVMTOP_DECODE_TABLES_H

#include <stdbool.h>
#include <stdint.h>
#include <event-parse.h>

struct decode_sym {
	uint64_t value;
	const char *str;	/* owned by libtraceevent's parsed format */
};

/* One __print_symbolic() of a print fmt, maybe under "cond_field == value ?". */
struct decode_table {
	const char *field;
	const char *cond_field;	/* NULL: no condition */
	int64_t cond_value;
	bool cond_neg;		/* the table is in the ':' branch */
	unsigned int nr;
	struct decode_sym *sym;
};

struct decode_tables {
	struct decode_table *t;
	unsigned int nr;
};

/* Collect e's tables: 0, or -1 (no memory; what was collected is kept for _free). */
int decode_tables_collect(struct decode_tables *f, struct tep_event *e);
/* The kernel's name of value v of field, for raw isa value isa_raw (have_isa), or NULL. */
const char *decode_tables_sym(const struct decode_tables *f, const char *field,
			      bool have_isa, int64_t isa_raw, uint64_t v);
void decode_tables_free(struct decode_tables *f);

#endif
