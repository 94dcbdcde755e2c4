// SPDX-License-Identifier: GPL-2.0
/*
 * The families of fields whose names KVM gives at run time (HACKING,
 * "Names of figures"): one row for a VM's KVM statistics, one for a
 * vCPU's (the stats source's binary statistics).  A family's field is
 * its prefix and a statistic's key (decode/kstat.h, kstat_key(): the
 * kernel's name, its value in the rule's base unit with that unit's
 * suffix): vcpu_kvm_halt_wait_ns, vm_kvm_pages_4k.  --fields and --sort
 * make one for a name of the family (model_kstat_field_make); its value
 * is that statistic's in the row, as JSON's kvm_stats has it: a
 * cumulative counter's growth over the snapshot (since the start with
 * --summary), an instant or peak value as read.
 */
#include <stdio.h>
#include <string.h>

#include "model_fields.h"

/* The statistic f names in m's table of its scope: its index, or -1 (none, or a histogram). */
static int kstat_field_find(const struct model *m, const struct model_field *f, const struct kstat_desc **d)
{
	const struct kstat_table *t = &m->names->kstats[f->row == MR_VM ? KSTAT_VM : KSTAT_VCPU];
	char key[KSTAT_NAME_LEN + 16];
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		if (kstat_is_hist(&t->d[i]))
			continue;
		kstat_key(&t->d[i], key, sizeof(key));
		if (!strcmp(key, f->key)) {
			*d = &t->d[i];
			return (int)i;
		}
	}
	return -1;
}

/* A family's getter: the statistic's value in the row's VM (or vCPU), unknown where it has none. */
static void get_kstat(const struct model_row *row, struct model_field_val *v)
{
	(void)row;
	v->unknown = true;	/* the family's own row: model_kstat_value() reads a made field's */
}

/* The families' shape: a VM's or vCPU's statistic, a whole number in JSON's kvm_stats object. */
#define KSTAT(r, n, t, d)	{ r, n, "kvm_stats", "<stat>", t, MF_NUM, MF_NO_HIST, false, get_kstat, d, true }

bool model_field_is_kstat(const struct model_field *f)
{
	return f->get == get_kstat;
}

const struct model_field model_field_families[] = {
	KSTAT(MR_VM, "vm_kvm_<stat>", "KVM <stat>",
	      "the VM's KVM statistic <stat> (--source stats; kvm_stats_info lists them): a counter's growth, "
	      "an instant or peak value as read; durations in ns (_ns), sizes in bytes (_bytes)"),
	KSTAT(MR_VCPU, "vcpu_kvm_<stat>", "KVM <stat>",
	      "the vCPU's KVM statistic <stat>, the same"),
};

const unsigned int model_nr_field_families = sizeof(model_field_families) / sizeof(model_field_families[0]);

const struct model_field *model_field_family(const char *name)
{
	unsigned int i;

	for (i = 0; i < model_nr_field_families; i++) {
		const char *fam = model_field_families[i].name;
		size_t n = strcspn(fam, "<");

		if (!strncmp(name, fam, n) && name[n] && strlen(name) < sizeof(((struct model_kstat_field *)0)->name))
			return &model_field_families[i];
	}
	return NULL;
}

void model_kstat_field_make(const struct model_field *fam, const char *name, struct model_kstat_field *kf)
{
	kf->f = *fam;
	snprintf(kf->name, sizeof(kf->name), "%s", name);
	kf->f.name = kf->name;
	kf->f.title = kf->name;
	kf->f.key = kf->name + strcspn(fam->name, "<");
}

bool model_kstat_field_exists(const struct model *m, const struct model_field *f)
{
	const struct kstat_desc *d;

	return model_field_is_kstat(f) && kstat_field_find(m, f, &d) >= 0;
}

bool model_kstat_field_big(const struct model_field *f)
{
	size_t n = strlen(f->key);

	/* the key's suffix is its unit's (kstat_key): ns sums pass 2^53 within a year */
	return model_field_is_kstat(f) && n > 3 && !strcmp(f->key + n - 3, "_ns");
}

void model_kstat_value(const struct model_field *f, const struct model_row *row, struct model_field_val *v)
{
	const struct kstat_desc *d;
	const struct ctr *c;
	unsigned int nr;
	bool vcpu = f->row == MR_VCPU;

	v->unknown = true;
	if (!row->m || !row->vm || (vcpu && !row->v) || kstat_field_find(row->m, f, &d) < 0)
		return;
	c = model_kstats(row->vm, vcpu ? row->v : NULL, &nr);
	if (!c)
		return;		/* no statistics read for it (another source, or not yet) */
	v->unknown = false;
	if (d->slot < nr)
		v->u = kstat_key_value(d, kstat_grows(d) ? ctr_interval(&c[d->slot]) : c[d->slot].total);
}
