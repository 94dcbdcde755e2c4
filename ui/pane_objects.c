// SPDX-License-Identifier: GPL-2.0
/*
 * What one reason's exits touched, of one vCPU or of a whole VM: each
 * object (a port, an MMIO page, an MSR, an APIC register ...) with its
 * exits and their exit -> entry latency (model_scope_objs).  Enter on an
 * object of a vCPU: its recent exits of that object.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "decode/objects.h"
#include "model/model_fields.h"
#include "model/model_scope.h"
#include "tui_priv.h"

/* The pane's columns: its own text cells, then object fields by name (model_fields.h). */
enum {
	OBJECTS_KIND, OBJECTS_OBJECT, OBJECTS_NAME, OBJECTS_DIR, OBJECTS_SIZE, OBJECTS_COUNT,
	OBJECTS_RATE, OBJECTS_PCT, OBJECTS_TOTAL, OBJECTS_P50, OBJECTS_P99, OBJECTS_MAX, OBJECTS_SITE,
	OBJECTS_SITE_PCT, OBJECTS_NR_COLS
};

struct object_row {
	struct pane_obj obj;
	uint64_t count;
	char kind[16];
	char object[32];
	char name[96];		/* escaped */
	char dir[8];
	char site[96];		/* the guest IP most of its exits came from, named where the VM has symbols; escaped */
	struct pane_val val[OBJECTS_NR_COLS];	/* the field columns' values */
};

static int objects_cmp_kind(const void *a, const void *b)
{
	return strcmp(((const struct object_row *)a)->kind, ((const struct object_row *)b)->kind);
}

static int objects_cmp_object(const void *a, const void *b)
{
	const struct object_row *x = a, *y = b;

	return x->obj.value < y->obj.value ? -1 : x->obj.value > y->obj.value;
}

static int objects_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct object_row *)a)->name, ((const struct object_row *)b)->name);
}

static int objects_cmp_dir(const void *a, const void *b)
{
	return strcmp(((const struct object_row *)a)->dir, ((const struct object_row *)b)->dir);
}

/* The text cells: what the row keeps of the object. */
static void objects_c_kind(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct object_row *)r)->kind);
}

static void objects_c_object(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct object_row *)r)->object);
}

static void objects_c_name(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct object_row *)r)->name);
}

static void objects_c_dir(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct object_row *w = r;

	snprintf(buf, len, "%s", w->dir[0] ? w->dir : "-");
}

static int objects_cmp_site(const void *a, const void *b)
{
	return strcmp(((const struct object_row *)a)->site, ((const struct object_row *)b)->site);
}

static void objects_c_site(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct object_row *)r)->site);
}

PANE_CMP(objects, object_row, count)

PANE_RATE_CELL(objects, object_row, rate, count)

static const struct pane_col objects_cols[OBJECTS_NR_COLS] = {
	/* fields of the table shown in the pane's own way (escaped, the site by its symbol) */
	[OBJECTS_KIND] =   { "obj_kind", NULL,   12, COL_LEFT,  objects_c_kind,   objects_cmp_kind,   false, 8, 0, "obj_kind" },
	[OBJECTS_OBJECT] = { "obj_object", "OBJECT", 18, COL_RIGHT, objects_c_object, objects_cmp_object, false, 9, 0, NULL },
	[OBJECTS_NAME] =   { "obj_name", NULL,   28, COL_LEFT,  objects_c_name,   objects_cmp_name,   false, 7, 0, "obj_name" },
	[OBJECTS_DIR] =    { "obj_dir", "DIR",    5,  COL_LEFT,  objects_c_dir,    objects_cmp_dir,    false, 5, 0, NULL },
	[OBJECTS_SIZE] =   { "obj_size_bytes",   NULL,     4,  COL_RIGHT, NULL, NULL,                           true,  2, 0, "obj_size_bytes" },
	[OBJECTS_COUNT] =  { "obj_count",  NULL,     9,  COL_RIGHT, NULL, NULL,                           true,  8, 0, "obj_count" },
	[OBJECTS_RATE] =   { "obj_count_per_s", NULL, 9, COL_RIGHT, objects_c_rate, objects_cmp_count, true,  5, COL_NS, "obj_count_per_s" },
	[OBJECTS_PCT] =    { "obj_pct",    NULL,     8,  COL_RIGHT, NULL, NULL,                           true,  6, 0, "obj_pct" },
	[OBJECTS_TOTAL] =  { "obj_total",  NULL,     10, COL_RIGHT, NULL, NULL,                           true,  3, 0, "obj_total" },
	[OBJECTS_P50] =    { "obj_latency_p50",    NULL,     8,  COL_RIGHT, NULL, NULL,                           true,  4, 0, "obj_latency_p50" },
	[OBJECTS_P99] =    { "obj_latency_p99",    NULL,     8,  COL_RIGHT, NULL, NULL,                           true,  6, 0, "obj_latency_p99" },
	[OBJECTS_MAX] =    { "obj_latency_max",    NULL,     8,  COL_RIGHT, NULL, NULL,                           true,  4, 0, "obj_latency_max" },
	[OBJECTS_SITE] =   { "obj_site", NULL,   26, COL_LEFT,  objects_c_site,   objects_cmp_site,   false, 1, 0, "obj_site" },
	[OBJECTS_SITE_PCT] = { "obj_site_pct", NULL, 6,  COL_RIGHT, NULL, NULL,                           true,  1, 0, "obj_site_pct" },
};

/* Row w of object row o of the scope, its site named from st (NULL: in hex). */
static void objects_fill(struct object_row *w, const struct model_obj_row *o, const struct sym_table *st)
{
	const struct model_row row = { .o = o };
	const char *name = kvm_obj_name(o->kind, o->value);
	char sym[512];

	w->obj = (struct pane_obj){ .on = true, .kind = (uint8_t)o->kind, .dir = (uint8_t)o->dir,
				    .size = (uint8_t)o->size, .value = o->value };
	w->count = o->count;
	snprintf(w->kind, sizeof(w->kind), "%s", kvm_obj_kind_name(o->kind));
	kvm_obj_value(o->kind, o->value, w->object, sizeof(w->object));
	escape_text(name ? name : "unknown", w->name, sizeof(w->name));
	snprintf(w->dir, sizeof(w->dir), "%s", kvm_obj_dir_name(o->kind, o->dir));
	if (o->site[0].n) {
		sym_ip(st, o->site[0].ip, true, sym, sizeof(sym));
		escape_text(sym, w->site, sizeof(w->site));
	} else {
		snprintf(w->site, sizeof(w->site), "-");
	}
	tui_cols_fill(objects_cols, OBJECTS_NR_COLS, &row, w->val);
}

static int objects_build(struct tui *t, struct pane *p)
{
	const struct vcpu *v = p->tid >= 0 ? tui_find_vcpu(t, p->tid) : NULL;
	const struct vm *vm = p->tid < 0 ? tui_find_vm(t, p->vm_pid) : NULL, *owner;
	const struct sym_table *st;
	const struct model_obj_row *o;
	struct object_row *rows;
	struct model_scope sc;
	unsigned int i, n;
	int ret;

	memset(&sc, 0, sizeof(sc));
	p->nr = 0;
	if (!v && !vm) {
		/* the VM or thread went away: an empty pane */
		p->rows = calloc(1, sizeof(struct object_row));
		return p->rows ? 0 : -1;
	}
	ret = v ? model_scope_vcpu(&sc, t->m, v, t->cumulative) : model_scope_vm(&sc, t->m, vm, t->cumulative);
	n = ret ? 0 : model_scope_objs(&sc, p->reason, &o);
	p->rows = rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		ret = -1;
	owner = vm ? vm : v->vm;
	st = sym_set_find(t->syms, owner->pid, owner->name);
	for (i = 0; !ret && i < n; i++)
		objects_fill(&rows[p->nr++], &o[i], st);
	model_scope_free(&sc);
	return ret;
}

static uint64_t objects_key(const void *r)
{
	const struct object_row *w = r;

	return w->obj.value * 0x9e3779b97f4a7c15ull ^ (uint64_t)w->obj.kind << 56 ^
	       (uint64_t)w->obj.dir << 48 ^ (uint64_t)w->obj.size << 40;
}

static const char *objects_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct object_row *w = r;

	snprintf(buf, len, "%s %s %s %s", w->kind, w->object, w->name, w->dir);
	return buf;
}

static int objects_enter(struct tui *t, const void *r)
{
	const struct pane *p = &t->stack[t->depth - 1];
	const struct object_row *w = r;

	if (p->tid < 0 || w->obj.kind == KVM_OBJ_OTHER)
		return 1;	/* recent exits are per vCPU, and of objects it kept */
	return tui_push_obj(t, PANE_RECENT, p->vm_pid, p->tid, p->reason, &w->obj);
}

static const char *objects_empty(const struct tui *t, const struct pane *p)
{
	return "no objects: this reason's events name none (see OBJECTS in kvmtop(1))";
}

static void objects_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	char name[MODEL_NAME_LEN * 4] = "?", reason[96], id[16];
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v = p->tid >= 0 ? tui_find_vcpu(t, p->tid) : NULL;

	if (vm)
		escape_text(vm->name, name, sizeof(name));
	tui_reason_name(t, p->reason, reason, sizeof(reason));
	if (p->tid >= 0)
		snprintf(buf, len, "Objects of %s, vCPU %s (tid %d) of VM %s: what its exits touched; Enter: their recent exits",
			 reason, tui_vcpu_id(v ? v->vcpu_id : -1, id, sizeof(id)), p->tid, name);
	else
		snprintf(buf, len, "Objects of %s, VM %s (pid %d), all vCPUs: what its exits touched",
			 reason, name, p->vm_pid);
}

const struct pane_ops pane_objects = {
	.name = "objects",
	.cols = objects_cols,
	.nr_cols = sizeof(objects_cols) / sizeof(objects_cols[0]),
	.default_sort = OBJECTS_COUNT,
	.row_size = sizeof(struct object_row),
	.build = objects_build,
	.key = objects_key,
	.label = objects_label,
	.enter = objects_enter,
	.empty = objects_empty,
	.title = objects_title,
	.busy = "obj_count",
	.vals = offsetof(struct object_row, val),
};

/* the screen keeps room for TUI_COLS columns a pane (tui.h) */
_Static_assert(OBJECTS_NR_COLS <= TUI_COLS, "more columns than TUI_COLS");
