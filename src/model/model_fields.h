/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields of every row -- a VM's, a vCPU thread's, an exit reason's --
 * declared once in one table (model_fields.c): every output picks the
 * ones it shows from it by name, as htop's screens pick from its
 * Process_fields[].  CSV names its columns by name, JSON its keys by
 * group and key, the text tables and the screen title their columns by
 * title; the man page's OUTPUT section lists them.
 */
#ifndef KVMTOP_MODEL_FIELDS_H
#define KVMTOP_MODEL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model_scope.h"

/* The row a field is of.  The table holds each kind's fields together, in this order. */
enum model_row_kind {
	MR_SNAPSHOT,	/* the snapshot itself: its number, span and wall-clock time */
	MR_VM,		/* a VM (host process) */
	MR_VCPU,	/* one of its vCPU threads */
	MR_REASON,	/* an exit reason, in a scope (host, VM or vCPU) */
	MR_OBJECT,	/* what a reason's exits touched, in a scope (model_scope_objs) */
	MR_KINDS,
};

enum model_field_kind {
	MF_TEXT,	/* a string */
	MF_INT,		/* a whole number that may be negative (-1: not known) */
	MF_BOOL,
	MF_NUM,		/* a whole number */
	MF_PCT,		/* a share, % (of the scope's exits, of its latency ...) */
	MF_TIME,	/* a latency, in the source's time unit */
	MF_TIME_MEAN,	/* the same, a mean (a fraction) */
	MF_SECS,	/* a sum of time: seconds in CSV and JSON, on ns sources only */
	MF_RATE,	/* a figure per second (a fraction) */
	MF_ADDR,	/* an address or a 64-bit identifier in u (s: its "0x..."): a string in JSON */
};

/*
 * The histogram a field is a figure of, if any (its samples too): without
 * samples it has no value, and a source that pairs no exit with its entry
 * (a counter source) measures none of it.
 */
enum model_field_hist {
	MF_NO_HIST,
	MF_LAT,		/* exit -> entry */
	MF_HANDLING,	/* its time on a CPU (sched events) */
	MF_OBJ_LAT,	/* an object's exit -> entry */
};

struct model_field_val {
	const char *s;
	uint64_t u;
	int64_t i;
	double d;
	bool b;
	char buf[64];	/* what s points to where the getter formats it (a reason's label) */
	bool unknown;	/* the getter says this row has no figure (a VM's context the host
			   does not give, a latency without samples) */
};

/*
 * A snapshot's own figures, as the view that prints it knows them: the
 * snapshot row's fields, and the span the VM's and vCPU's rates and
 * shares are of.
 */
struct model_snap {
	unsigned int number;	/* 1, 2 ... */
	uint64_t start, end;	/* its span, in the source's clock */
	bool ns;		/* times are ns (else no rates, seconds or wall-clock time) */
	bool cumulative;	/* the figures are since the start, not of the span */
	bool traced;		/* the source reads each event: userspace exits and kvm events are known */
	const char *time_unit;	/* "ns", "cycles" or "counts" */
	bool wall_known;	/* the source knows the wall clock: */
	int64_t wall_offset;	/* CLOCK_REALTIME ns = a time of the source's clock + this */
};

/*
 * What a getter reads: the row's VM, its vCPU (a vCPU's row) or its
 * reason (a reason's row); the snapshot and the VM's and vCPU's scope
 * where the view has them (NULL: those fields are unknown).
 */
struct model_row {
	const struct model *m;
	const struct vm *vm;
	const struct vcpu *v;
	const struct model_reason_row *r;
	const struct model_obj_row *o;	/* an object's row */
	const struct model_snap *snap;
	/* summed up (model_scope_summary()): the latency and top reason fields read it */
	const struct model_scope *vm_sc;	/* the VM's figures over the snapshot */
	const struct model_scope *vcpu_sc;	/* the vCPU's */
};

struct model_field {
	enum model_row_kind row;
	const char *name;	/* CSV's column; the name outputs pick it by */
	const char *group;	/* JSON: the object it is in ("latency", "handling"), NULL: the row's */
	const char *key;	/* JSON: its key there */
	const char *title;	/* the column's title, in text and on the screen */
	enum model_field_kind kind;
	enum model_field_hist hist;
	bool sched;		/* measured only with sched events (model_time_known() & TIME_SPLIT) */
	void (*get)(const struct model_row *row, struct model_field_val *v);
	const char *desc;	/* one line: what it is (--fields help, the man page's FIELDS) */
	/*
	 * JSON writes it in a place of its own (batch_json.c: the snapshot's
	 * keys, a VM's and vCPU's exits, a VM's threads, a vCPU's
	 * time_seconds), not among the row's fields; CSV and --fields as
	 * every other.
	 */
	bool json_apart;
};

extern const struct model_field model_fields[];
extern const unsigned int model_nr_fields;

/* The fields of one kind of row, in the table's order: *n of them. */
const struct model_field *model_fields_of(enum model_row_kind row, unsigned int *n);
/*
 * The vCPU's field that means for one of a VM's vCPUs what VM field f
 * means for the VM (vm_exits_per_s: vcpu_exits_per_s, vm_pid: vcpu_tid),
 * or NULL: f has none (vm_vcpu_count, the VM's context) or is not a VM's.
 */
const struct model_field *model_field_vcpu_of(const struct model_field *f);
/*
 * Is f a 64-bit figure that can pass 2^53 within a year of running (a
 * clock, a sum of ns)?  JSON writes one as a decimal string, which a
 * reader keeping numbers as doubles (jq, JavaScript) does not round, as
 * protobuf's JSON mapping writes a 64-bit integer; CSV and text as every
 * number.
 */
bool model_field_big(const struct model_field *f);
/* The field called name (names are unique across the kinds), or NULL. */
const struct model_field *model_field(const char *name);
/* enum model_from's word (vm_counted_from's values: "start", "birth", "found"), NULL: unknown. */
const char *model_from_word(enum model_from f);
/*
 * The families of fields whose names KVM gives at run time (HACKING,
 * "Names of figures"): a VM's and a vCPU's KVM statistics (the stats
 * source), vm_kvm_<stat> and vcpu_kvm_<stat>, where <stat> is the
 * statistic's key (decode/kstat.h's kstat_key(): the kernel's name with
 * the rule's unit suffix).  --fields help and the man page list them.
 */
extern const struct model_field model_field_families[];
extern const unsigned int model_nr_field_families;
/* The family name is of (its prefix and a <stat> after it), or NULL. */
const struct model_field *model_field_family(const char *name);
/* A family's field made for one name: what --fields and --sort hold. */
struct model_kstat_field {
	struct model_field f;
	char name[96];
};
/* The field of family fam called name, into kf (name as model_field_family() took it). */
void model_kstat_field_make(const struct model_field *fam, const char *name, struct model_kstat_field *kf);
/* Does m's table hold the statistic kf names (a histogram's is not a single figure: false)? */
bool model_kstat_field_exists(const struct model *m, const struct model_field *f);
/* Is f a family's field (its row a VM's or vCPU's, its key its statistic's kstat_key())? */
bool model_field_is_kstat(const struct model_field *f);
/* A made field's model_field_big(): a duration's ns (its key ends _ns). */
bool model_kstat_field_big(const struct model_field *f);
/* A made field's value in row (model_field_value() calls it): unknown where the row has none. */
void model_kstat_value(const struct model_field *f, const struct model_row *row, struct model_field_val *v);

/* Its value in row; *has: the row has one (!v->unknown: a latency figure needs samples). */
void model_field_value(const struct model_field *f, const struct model_row *row,
		       struct model_field_val *v, bool *has);
/* The same for a reason row alone. */
static inline void model_reason_value(const struct model_field *f, const struct model_reason_row *r,
				      struct model_field_val *v, bool *has)
{
	struct model_row row = { .r = r };

	model_field_value(f, &row, v, has);
}
/*
 * A histogram's quantile q as every output shows it: the one place p50,
 * p90, p99 and p99.9 come from.
 */
uint64_t model_quantile(const struct hist *h, double q);
/*
 * The wall-clock time of t (the source's clock) as RFC 3339 in UTC with
 * microseconds, "2026-11-28T08:15:02.123456Z", into buf: false where the
 * snapshot does not know the wall clock.
 */
bool model_snap_time(const struct model_snap *s, uint64_t t, char *buf, size_t len);

/*
 * An old name of a field or a screen column (model_field_names.c): the
 * name it has now; pane: the pane's own renames first (NULL: none).
 */
struct model_field_alias {
	const char *old;
	const char *name;
	const char *pane;	/* a screen pane's column only (its name), NULL: every name */
};

extern const struct model_field_alias model_field_aliases[];
extern const unsigned int model_nr_field_aliases;

/* The new name of old (for pane, or NULL), or NULL: not an old name. */
const char *model_field_renamed(const char *old, const char *pane);
/*
 * list (comma-separated names, each may start with '-') into out, with
 * each name that known() does not know and that has a new name that it
 * does renamed; "old -> new" of each appended to note (", " between):
 * how many were renamed.  For user input only: outputs use the names.
 */
unsigned int model_fields_rename(const char *list, const char *pane,
				 bool (*known)(const char *name, const void *ctx), const void *ctx,
				 char *out, size_t len, char *note, size_t nlen);

#endif
