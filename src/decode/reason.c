// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reason.h"

void reason_table_init(struct reason_table *t)
{
	memset(t, 0, sizeof(*t));
	t->other_id = -1;
}

void reason_table_free(struct reason_table *t)
{
	free(t->r);
	reason_table_init(t);
}

static int reason_add(struct reason_table *t, enum kvm_isa isa, uint32_t code,
		      uint32_t flags, const char *name, const char *flag_names,
		      bool blocking, bool async)
{
	struct reason *r;

	if (t->nr == t->alloc) {
		unsigned int n = t->alloc ? t->alloc * 2 : 64;

		r = reallocarray(t->r, n, sizeof(*r));
		if (!r)
			return -1;
		t->r = r;
		t->alloc = n;
	}
	r = &t->r[t->nr];
	r->isa = isa;
	r->code = code;
	r->flags = flags;
	strlcpy(r->name, name, sizeof(r->name));
	strlcpy(r->flag_names, flag_names ? flag_names : "", sizeof(r->flag_names));
	r->blocking = blocking;
	r->async = async;
	return t->nr++;
}

/*
 * Called once per (decoder format, isa, code, flags) the decoder has not
 * cached yet, so a linear search is fine.
 */
int reason_intern(struct reason_table *t, enum kvm_isa isa, uint32_t code,
		  uint32_t flags, const char *name, const char *flag_names,
		  bool blocking, bool async)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		struct reason *r = &t->r[i];

		if (r->isa == isa && r->code == code && r->flags == flags &&
		    (int)i != t->other_id)
			return i;
	}
	if (t->nr >= REASON_MAX - 1) {
		if (t->other_id < 0)
			t->other_id = reason_add(t, ISA_UNKNOWN, UINT32_MAX, 0,
						 "OTHER", NULL, false, false);
		return t->other_id;
	}
	return reason_add(t, isa, code, flags, name, flag_names, blocking, async);
}

const char *reason_label(const struct reason *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", r->name, r->flag_names[0] ? " " : "", r->flag_names);
	return buf;
}

void reason_set_class(struct reason_table *t, int id, enum reason_class cls)
{
	if (id >= 0 && (unsigned int)id < t->nr && id != t->other_id)
		t->r[id].cls = (uint8_t)cls;
}

enum reason_class reason_class_of_stat(const char *name)
{
	static const struct {
		const char *name;
		enum reason_class cls;
	} stats[] = {
		{ "io_exits", RC_IO }, { "mmio_exits", RC_MMIO }, { "halt_exits", RC_HALT },
		{ "irq_exits", RC_INTERRUPT }, { "irq_window_exits", RC_INTERRUPT },
		{ "hypercalls", RC_HYPERCALL }, { "wfe_exit_stat", RC_HALT }, { "wfi_exit_stat", RC_HALT },
		{ "mmio_exit_user", RC_MMIO }, { "mmio_exit_kernel", RC_MMIO },
	};
	size_t i;

	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		if (!strcmp(name, stats[i].name))
			return stats[i].cls;
	return RC_OTHER;
}

const char *reason_class_name(enum reason_class cls)
{
	static const char *const names[RC_NR] = {
		[RC_OTHER] = "other", [RC_IO] = "io", [RC_MMIO] = "mmio", [RC_HALT] = "halt",
		[RC_PAUSE] = "pause", [RC_HYPERCALL] = "hypercall", [RC_INTERRUPT] = "interrupt",
	};

	return cls < RC_NR ? names[cls] : "other";
}
