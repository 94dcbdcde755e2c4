// SPDX-License-Identifier: GPL-2.0
/* The vCPUs of one VM: one row per vCPU thread. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/model_scope.h"
#include "tui_priv.h"
#include "model/model_view.h"

/* The pane's columns: each a field of the table (model_fields.h), by name. */
enum {
	VCPUS_VCPU, VCPUS_TID, VCPUS_COMM, VCPUS_CPU, VCPUS_NODE, VCPUS_EXITS, VCPUS_COUNT, VCPUS_TOTAL, VCPUS_MEAN,
	VCPUS_STDDEV, VCPUS_P99, VCPUS_MAX, VCPUS_GUEST, VCPUS_HOST, VCPUS_VMM, VCPUS_HALT, VCPUS_WAIT,
	VCPUS_TOP, VCPUS_STATE, VCPUS_UTIL, VCPUS_NR_COLS
};

struct vcpu_row {
	struct pane_val val[VCPUS_NR_COLS];	/* the columns' values */
	char comm[MODEL_NAME_LEN * 4];	/* comm's value, escaped (tui_val_text()) */
	char top[96];			/* vcpu_top_reason's */
	char state[16];			/* vcpu_state's */
};

static int vcpus_row_tid(const struct vcpu_row *w)
{
	return (int)w->val[VCPUS_TID].v.i;
}

static int vcpus_row_vcpu(const struct vcpu_row *w)
{
	return (int)w->val[VCPUS_VCPU].v.i;
}

/* The vCPU id field as every pane writes it: '?' where not known. */
static void vcpus_c_vcpu(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_vcpu_id(vcpus_row_vcpu(r), buf, len);
}

PANE_RATE_VAL_CELL(vcpus, vcpu_row, exits, VCPUS_EXITS)

static const struct pane_col vcpus_cols[VCPUS_NR_COLS] = {
	[VCPUS_VCPU] =   { "vcpu",          NULL, 5,  COL_RIGHT, vcpus_c_vcpu,  NULL, false, 9, 0,              "vcpu" },
	[VCPUS_TID] =    { "vcpu_tid",      NULL, 8,  COL_RIGHT, NULL,          NULL, false, 8, 0,              "vcpu_tid" },
	[VCPUS_COMM] =   { "vcpu_comm",     NULL, 16, COL_LEFT,  NULL,          NULL, false, 4, 0,              "vcpu_comm" },
	[VCPUS_CPU] =    { "vcpu_last_cpu", NULL, 4,  COL_RIGHT, NULL,          NULL, false, 3, 0,              "vcpu_last_cpu" },
	/* live: the NUMA node of its last CPU (src/context/); off until F2 or the settings file picks it */
	[VCPUS_NODE] =   { "vcpu_node",     NULL, 4,  COL_RIGHT, NULL,          NULL, false, -1, 0,             "vcpu_node" },
	[VCPUS_EXITS] =  { "vcpu_exits_per_s", NULL, 10, COL_RIGHT, vcpus_c_exits, NULL, true, 9, COL_NS,      "vcpu_exits_per_s" },
	/* a TSC recording has no seconds: its exits in the span stand where EXITS/s would */
	[VCPUS_COUNT] =  { "vcpu_exits",   NULL, 10, COL_RIGHT, NULL,       NULL, true,  9, COL_CYCLES,     "vcpu_exits" },
	[VCPUS_TOTAL] =  { "vcpu_exits_total", NULL, 10, COL_RIGHT, NULL,       NULL, true,  8, 0,              "vcpu_exits_total" },
	[VCPUS_MEAN] =   { "vcpu_latency_mean", NULL, 9, COL_RIGHT, NULL,       NULL, true,  7, 0,              "vcpu_latency_mean" },
	/* perf kvm stat's +-: off on 80 columns, F2 picks it */
	[VCPUS_STDDEV] = { "vcpu_latency_stddev", NULL, 10, COL_RIGHT, NULL,    NULL, true,  1, 0,              "vcpu_latency_stddev" },
	[VCPUS_P99] =    { "vcpu_latency_p99", NULL, 9, COL_RIGHT, NULL,        NULL, true,  7, 0,              "vcpu_latency_p99" },
	[VCPUS_MAX] =    { "vcpu_latency_max", NULL, 9, COL_RIGHT, NULL,        NULL, true,  6, 0,              "vcpu_latency_max" },
	[VCPUS_GUEST] =  { "vcpu_guest_pct", NULL, 6,  COL_RIGHT, NULL,         NULL, true,  6, 1u << VS_GUEST, "vcpu_guest_pct" },
	[VCPUS_HOST] =   { "vcpu_host_pct",  NULL, 6,  COL_RIGHT, NULL,         NULL, true,  6, 1u << VS_HOST,  "vcpu_host_pct" },
	[VCPUS_VMM] =    { "vcpu_vmm_pct",   NULL, 6,  COL_RIGHT, NULL,         NULL, true,  6, 1u << VS_VMM,   "vcpu_vmm_pct" },
	[VCPUS_HALT] =   { "vcpu_halt_pct",  NULL, 6,  COL_RIGHT, NULL,         NULL, true,  6, 1u << VS_HALT,  "vcpu_halt_pct" },
	[VCPUS_WAIT] =   { "vcpu_steal_pct", NULL, 6,  COL_RIGHT, NULL,         NULL, true,  7, 1u << VS_WAIT,  "vcpu_steal_pct" },
	[VCPUS_TOP] =    { "vcpu_top_reason", NULL, 20, COL_LEFT, NULL,         NULL, false, 7, 0,              "vcpu_top_reason" },
	[VCPUS_STATE] =  { "vcpu_state",    NULL, 8,  COL_LEFT,  NULL,          NULL, false, 2, 0,              "vcpu_state" },
	/* guest + host + VMM: what P sorts by (top's %CPU); off until P, F2 or the settings file picks it */
	[VCPUS_UTIL] =   { "vcpu_util_pct", NULL, 6,  COL_RIGHT, NULL,          NULL, true,  -1, 1u << VS_GUEST | 1u << VS_HOST, "vcpu_util_pct" },
};

static int vcpus_build(struct tui *t, struct pane *p)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v;
	struct model_scope sc;
	struct model_snap snap;
	struct vcpu_row *rows;
	int ret = -1;

	memset(&sc, 0, sizeof(sc));
	tui_snap(t, &snap);
	p->nr = 0;
	p->rows = calloc(vm && vm->nr_vcpus ? vm->nr_vcpus : 1, sizeof(*rows));
	if (!p->rows)
		return -1;
	if (!vm)
		return 0;	/* the VM went away: an empty pane */
	rows = p->rows;
	MODEL_FOREACH_VCPU(v, vm) {
		const struct model_row row = { .m = t->m, .vm = vm, .v = v, .snap = &snap, .vcpu_sc = &sc };
		struct vcpu_row *w = &rows[p->nr++];

		/* the scope the fields read: the span shown, cumulative or of the interval */
		if (model_scope_vcpu(&sc, t->m, v, t->cumulative) ||
		    model_scope_summary(&sc))
			goto out;
		tui_cols_fill(vcpus_cols, VCPUS_NR_COLS, &row, w->val);
		tui_val_text(&w->val[VCPUS_COMM], w->comm, sizeof(w->comm));
		tui_val_text(&w->val[VCPUS_TOP], w->top, sizeof(w->top));
		tui_val_text(&w->val[VCPUS_STATE], w->state, sizeof(w->state));
		model_scope_free(&sc);
	}
	ret = 0;
out:
	model_scope_free(&sc);
	return ret;
}

static uint64_t vcpus_key(const void *r)
{
	return (uint64_t)(unsigned int)vcpus_row_tid(r);
}

static const char *vcpus_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct vcpu_row *w = r;

	snprintf(buf, len, "%d %d %s", vcpus_row_vcpu(w), vcpus_row_tid(w), w->comm);
	return buf;
}

static int vcpus_enter(struct tui *t, const void *r)
{
	const struct pane *p = &t->stack[t->depth - 1];

	return tui_push(t, PANE_REASONS, p->vm_pid, vcpus_row_tid(r));
}

static void vcpus_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	char name[MODEL_NAME_LEN * 4] = "?";

	if (vm)
		escape_text(vm->name, name, sizeof(name));
	snprintf(buf, len, "vCPUs of VM %s (pid %d)%s: Enter shows a vCPU's exit reasons, Tab the VM's",
		 name, p->vm_pid, vm ? "" : ", gone");
}

static int vcpus_tab(struct tui *t)
{
	/* the VM's exit reasons, all vCPUs together */
	return tui_push(t, PANE_REASONS, t->stack[t->depth - 1].vm_pid, -1);
}

/* Why no vCPU is listed: the VM went, --vcpu (named) leaves all of its out, or none of its threads ran one. */
static const char *vcpus_empty(const struct tui *t, const struct pane *p)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct model_filter *f = t->m->filter;
	static char buf[256];
	char id[16];
	unsigned int i;

	if (!vm)
		return "the VM is gone";
	if (vm->nr_vcpus) {
		strlcpy(buf, "no vCPU of this VM matches --vcpu", sizeof(buf));
		for (i = 0; f && i < f->nr_vcpus; i++) {
			snprintf(id, sizeof(id), "%s%d", i ? "," : " ", f->vcpus[i]);
			strlcat(buf, id, sizeof(buf));
		}
		return buf;
	}
	return t->live ? "no thread of this VM ran a vCPU yet" : "no thread of this VM ran a vCPU in the recording";
}

const struct pane_ops pane_vcpus = {
	.name = "vCPUs",
	.cols = vcpus_cols,
	.nr_cols = sizeof(vcpus_cols) / sizeof(vcpus_cols[0]),
	.default_sort = VCPUS_VCPU,
	.row_size = sizeof(struct vcpu_row),
	.vals = offsetof(struct vcpu_row, val),
	.build = vcpus_build,
	.key = vcpus_key,
	.label = vcpus_label,
	.enter = vcpus_enter,
	.tab = vcpus_tab,
	.title = vcpus_title,
	.empty = vcpus_empty,
	.busy = "vcpu_exits_per_s",
};


/* the screen keeps room for TUI_COLS columns a pane (tui.h) */
_Static_assert(VCPUS_NR_COLS <= TUI_COLS, "more columns than TUI_COLS");
