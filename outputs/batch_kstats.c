// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output of KVM's binary statistics (the stats source): each VM's
 * and each vCPU's, by their family's names (model_fields.c, its families:
 * vm_kvm_<stat>, vcpu_kvm_<stat>; JSON's key is <stat>), <stat> the
 * kernel's name with its unit's suffix (kstat_key()), so a newer
 * kernel's new statistics appear without a change here.  Cumulative
 * counters and histogram buckets are what they grew by in the snapshot
 * (since the start with --summary); instant and peak values are as
 * read; a single value in its key's unit (ns, bytes).
 */
#include <inttypes.h>
#include <stdio.h>

#include "batch_priv.h"
#include "util/escape.h"
#include "model/model_view.h"

static const struct kstat_table *kstats_table(const struct batch *b, enum kstat_scope sc)
{
	return &b->m->names->kstats[sc];
}

/* Value j of d in a row c of nr slots (0 where the row has none yet), in its key's unit. */
static uint64_t kstats_val(const struct kstat_desc *d, const struct ctr *c, unsigned int nr,
			   unsigned int j)
{
	if (d->slot + j >= nr)
		return 0;
	return kstat_key_value(d, kstat_grows(d) ? ctr_interval(&c[d->slot + j]) : c[d->slot + j].total);
}

/* The level prefix of a scope's family (model_fields.c, its families). */
static const char *const kstats_prefix[KSTAT_SCOPES] = { "vm_kvm_", "vcpu_kvm_" };

static void kstats_row(const struct vm *vm, const struct vcpu *v, const struct ctr **c, unsigned int *nr)
{
	*c = model_kstats(vm, v, nr);
}

/* --- JSON --- */

/* A histogram: its unit and buckets, each [its largest value (null: the last, unbounded), its count]. */
static void kstats_json_hist(const struct batch *b, const struct kstat_desc *d, const struct ctr *c,
			     unsigned int nr)
{
	struct json_writer *jw = b->json;
	char ub[64];
	unsigned int j;

	jsonw_begin_object(jw);
	jsonw_string_field(jw, "unit", kstat_unit(d, ub, sizeof(ub)));
	jsonw_name(jw, "buckets");
	jsonw_begin_array(jw);
	for (j = 0; j < d->size; j++) {
		uint64_t le = kstat_bucket_le(d, j);

		jsonw_begin_array(jw);
		if (le == UINT64_MAX)
			jsonw_null(jw);
		else
			jsonw_uint(jw, le);
		jsonw_uint(jw, kstats_val(d, c, nr, j));
		jsonw_end_array(jw);
	}
	jsonw_end_array(jw);
	jsonw_end_object(jw);
}

void batch_kstats_json(const struct batch *b, const struct vm *vm, const struct vcpu *v)
{
	const struct kstat_table *t = kstats_table(b, v ? KSTAT_VCPU : KSTAT_VM);
	struct json_writer *jw = b->json;
	const struct ctr *c;
	unsigned int i, nr;

	if (!t->nr)
		return;
	kstats_row(vm, v, &c, &nr);
	jsonw_name(jw, "kvm_stats");
	jsonw_begin_object(jw);
	for (i = 0; i < t->nr; i++) {
		const struct kstat_desc *d = &t->d[i];
		char key[KSTAT_NAME_LEN + 16];

		kstat_key(d, key, sizeof(key));
		jsonw_name(jw, key);
		if (kstat_is_hist(d))
			kstats_json_hist(b, d, c, nr);
		else if (kstat_key_big(d))
			jsonw_u64(jw, kstats_val(d, c, nr, 0));	/* a sum of ns: a decimal string */
		else
			jsonw_uint(jw, kstats_val(d, c, nr, 0));
	}
	jsonw_end_object(jw);
}

void batch_kstats_json_info(const struct batch *b)
{
	static const char *const scope_name[KSTAT_SCOPES] = { "vm", "vcpu" };
	struct json_writer *jw = b->json;
	char ub[64];
	unsigned int i;
	int sc;

	if (!kstats_table(b, KSTAT_VM)->nr && !kstats_table(b, KSTAT_VCPU)->nr)
		return;
	jsonw_name(jw, "kvm_stats_info");
	jsonw_begin_object(jw);
	for (sc = 0; sc < KSTAT_SCOPES; sc++) {
		const struct kstat_table *t = kstats_table(b, sc);

		jsonw_name(jw, scope_name[sc]);
		jsonw_begin_object(jw);
		for (i = 0; i < t->nr; i++) {
			char key[KSTAT_NAME_LEN + 16];

			kstat_key(&t->d[i], key, sizeof(key));
			jsonw_name(jw, key);
			jsonw_begin_object(jw);
			jsonw_string_field(jw, "kind", kstat_kind_name(t->d[i].kind));
			/* "" is a count's unit, a value: not null */
			jsonw_string_field(jw, "unit", kstat_key_unit(&t->d[i], ub, sizeof(ub)));
			jsonw_string_field(jw, "kernel_name", t->d[i].name);
			jsonw_end_object(jw);
		}
		jsonw_end_object(jw);
	}
	jsonw_end_object(jw);
}

/* --- CSV: the statistics known at the header, vCPU's then VM's --- */

void batch_kstats_csv_header(struct batch *b)
{
	int sc;
	unsigned int i;

	for (sc = KSTAT_VCPU; sc >= KSTAT_VM; sc--) {
		const struct kstat_table *t = kstats_table(b, sc);

		b->csv_kstats[sc] = t->nr;
		for (i = 0; i < t->nr; i++) {
			char col[KSTAT_NAME_LEN + 32];
			size_t n = (size_t)snprintf(col, sizeof(col), "%s", kstats_prefix[sc]);

			kstat_key(&t->d[i], col + n, sizeof(col) - n);
			fputc(',', b->out);
			escape_csv(b->out, col);
		}
	}
}

void batch_kstats_csv(const struct batch *b, const struct vm *vm, const struct vcpu *v)
{
	int sc;
	unsigned int i, j;

	for (sc = KSTAT_VCPU; sc >= KSTAT_VM; sc--) {
		const struct kstat_table *t = kstats_table(b, sc);
		const struct ctr *c;
		unsigned int nr;

		kstats_row(vm, sc == KSTAT_VCPU ? v : NULL, &c, &nr);
		for (i = 0; i < b->csv_kstats[sc]; i++) {
			const struct kstat_desc *d = &t->d[i];

			fputc(',', b->out);
			/* a histogram: its buckets' counts, space-separated, in bucket order */
			for (j = 0; j < (kstat_is_hist(d) ? d->size : 1u); j++)
				fprintf(b->out, "%s%" PRIu64, j ? " " : "", kstats_val(d, c, nr, j));
		}
	}
}

/* --- text: the scalars that are not zero, on one line, each as its field's name=value --- */

void batch_kstats_text(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		       const char *indent)
{
	int sc = v ? KSTAT_VCPU : KSTAT_VM;
	const struct kstat_table *t = kstats_table(b, sc);
	char key[KSTAT_NAME_LEN + 16], esc[KSTAT_NAME_LEN * 4];
	const struct ctr *c;
	unsigned int i, nr, n = 0;

	kstats_row(vm, v, &c, &nr);
	for (i = 0; i < t->nr; i++) {
		const struct kstat_desc *d = &t->d[i];
		uint64_t val;

		if (kstat_is_hist(d) || !(val = kstats_val(d, c, nr, 0)))
			continue;
		if (!n++)
			fprintf(b->out, "%skvm stats:", indent);
		kstat_key(d, key, sizeof(key));
		fprintf(b->out, " %s%s=%" PRIu64, kstats_prefix[sc], escape_text(key, esc, sizeof(esc)), val);
	}
	if (n)
		fputc('\n', b->out);
}
