// SPDX-License-Identifier: GPL-2.0
/* The vCPUs of one VM: one row per vCPU thread. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/model_scope.h"
#include "tui_priv.h"

/* The pane's columns; vcpu, tid, comm and cpu are fields of the table (model_fields.h), by name. */
enum {
	VCPUS_VCPU, VCPUS_TID, VCPUS_COMM, VCPUS_CPU, VCPUS_NODE, VCPUS_EXITS, VCPUS_TOTAL, VCPUS_MEAN,
	VCPUS_P99, VCPUS_MAX, VCPUS_GUEST, VCPUS_HOST, VCPUS_VMM, VCPUS_HALT, VCPUS_WAIT,
	VCPUS_TOP, VCPUS_STATE, VCPUS_NR_COLS
};

struct vcpu_row {
	struct pane_val val[VCPUS_NR_COLS];	/* the field columns' values */
	char comm[MODEL_NAME_LEN * 4];	/* comm's value, escaped (tui_val_text()) */
	uint64_t exits;
	uint64_t total;
	double mean;
	uint64_t p99;
	uint64_t max;
	bool have_lat;
	int top;
	const char *state;
	/* % of the figures' span in each time state; -1: not measured */
	double guest, host, vmm, halt, wait;
};

PANE_CMP(vcpus, vcpu_row, exits)
PANE_CMP(vcpus, vcpu_row, total)
PANE_CMP(vcpus, vcpu_row, mean)
PANE_CMP(vcpus, vcpu_row, p99)
PANE_CMP(vcpus, vcpu_row, max)
PANE_CMP(vcpus, vcpu_row, guest)
PANE_CMP(vcpus, vcpu_row, host)
PANE_CMP(vcpus, vcpu_row, vmm)
PANE_CMP(vcpus, vcpu_row, halt)
PANE_CMP(vcpus, vcpu_row, wait)

/* vcpus_c_<state>(): a time state's share, "-" where the input does not measure it */
#define SHARE_CELL(field) \
	static void vcpus_c_##field(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		tui_fmt_share(((const struct vcpu_row *)r)->field, buf, len); \
	}
SHARE_CELL(guest)
SHARE_CELL(host)
SHARE_CELL(vmm)
SHARE_CELL(halt)
SHARE_CELL(wait)

static int vcpus_cmp_top(const void *a, const void *b)
{
	return ((const struct vcpu_row *)a)->top - ((const struct vcpu_row *)b)->top;
}

static int vcpus_cmp_state(const void *a, const void *b)
{
	return strcmp(((const struct vcpu_row *)a)->state, ((const struct vcpu_row *)b)->state);
}

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

PANE_RATE_CELL(vcpus, vcpu_row, rate, exits)

PANE_COUNT_CELL(vcpus, vcpu_row, total, total)

PANE_LAT_CELL(vcpus, vcpu_row, mean)

PANE_LAT_CELL(vcpus, vcpu_row, p99)

PANE_LAT_CELL(vcpus, vcpu_row, max)

static void vcpus_c_top(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_reason_name(t, ((const struct vcpu_row *)r)->top, buf, len);
}

static void vcpus_c_state(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct vcpu_row *)r)->state);
}

static const struct pane_col vcpus_cols[VCPUS_NR_COLS] = {
	[VCPUS_VCPU] =  { "vcpu",    NULL,         5,  COL_RIGHT, vcpus_c_vcpu,  NULL,            false, 9, 0,              "vcpu" },
	[VCPUS_TID] =   { "vcpu_tid",     NULL,         8,  COL_RIGHT, NULL,          NULL,            false, 8, 0,              "vcpu_tid" },
	[VCPUS_COMM] =  { "vcpu_comm",    NULL,         16, COL_LEFT,  NULL,          NULL,            false, 4, 0,              "vcpu_comm" },
	[VCPUS_CPU] =   { "vcpu_last_cpu",     NULL,         4,  COL_RIGHT, NULL,          NULL,            false, 3, 0,              "vcpu_last_cpu" },
	/* live: the NUMA node of its last CPU (src/context/); off until F2 or the settings file picks it */
	[VCPUS_NODE] =  { "vcpu_node",    NULL,         4,  COL_RIGHT, NULL,          NULL,            false, -1, 0,             "vcpu_node" },
	[VCPUS_EXITS] = { "exits_per_s", "EXITS/s",    10, COL_RIGHT, vcpus_c_rate,  vcpus_cmp_exits, true,  9, 0,              NULL },
	[VCPUS_TOTAL] = { "total",   "TOTAL",      10, COL_RIGHT, vcpus_c_total, vcpus_cmp_total, true,  5, 0,              NULL },
	[VCPUS_MEAN] =  { "latency_mean",    "LAT MEAN",   9,  COL_RIGHT, vcpus_c_mean,  vcpus_cmp_mean,  true,  7, 0,              NULL },
	[VCPUS_P99] =   { "latency_p99",     "LAT P99",    9,  COL_RIGHT, vcpus_c_p99,   vcpus_cmp_p99,   true,  7, 0,              NULL },
	[VCPUS_MAX] =   { "latency_max",     "LAT MAX",    9,  COL_RIGHT, vcpus_c_max,   vcpus_cmp_max,   true,  6, 0,              NULL },
	[VCPUS_GUEST] = { "guest",   "GUEST%",     6,  COL_RIGHT, vcpus_c_guest, vcpus_cmp_guest, true,  6, 1u << VS_GUEST, NULL },
	[VCPUS_HOST] =  { "host",    "HOST%",      6,  COL_RIGHT, vcpus_c_host,  vcpus_cmp_host,  true,  6, 1u << VS_HOST,  NULL },
	[VCPUS_VMM] =   { "vmm",     "VMM%",       6,  COL_RIGHT, vcpus_c_vmm,   vcpus_cmp_vmm,   true,  6, 1u << VS_VMM,   NULL },
	[VCPUS_HALT] =  { "halt",    "HALT%",      6,  COL_RIGHT, vcpus_c_halt,  vcpus_cmp_halt,  true,  6, 1u << VS_HALT,  NULL },
	[VCPUS_WAIT] =  { "wait",    "WAIT%",      6,  COL_RIGHT, vcpus_c_wait,  vcpus_cmp_wait,  true,  7, 1u << VS_WAIT,  NULL },
	[VCPUS_TOP] =   { "top",     "TOP REASON", 20, COL_LEFT,  vcpus_c_top,   vcpus_cmp_top,   false, 5, 0,              NULL },
	[VCPUS_STATE] = { "state",   "STATE",      8,  COL_LEFT,  vcpus_c_state, vcpus_cmp_state, false, 2, 0,              NULL },
};

/* Where the vCPU was when the figures were taken. */
static const char *vcpus_state(const struct tui *t, const struct vcpu *v)
{
	bool blocking;

	if (v->vm && v->vm->exited)
		return "exited";
	/* measured by sched events: the model's own state */
	if ((model_time_known(t->m) & TIME_SPLIT) && v->state != VS_NONE)
		return model_state_name(v->state);
	if (!model_vcpu_pending(t->m, v, &blocking))
		return t->live ? "guest" : "-";
	return blocking ? "halted" : "host";
}

static double vcpus_share(const struct tui *t, const struct model_scope *sc, enum vcpu_state st)
{
	uint64_t span = t->end > t->start ? t->end - t->start : 0;

	return model_scope_share(sc, 1u << st, span, 1);
}

static void vcpus_shares(const struct tui *t, const struct model_scope *sc, struct vcpu_row *w)
{
	w->guest = vcpus_share(t, sc, VS_GUEST);
	w->host = vcpus_share(t, sc, VS_HOST);
	w->vmm = vcpus_share(t, sc, VS_VMM);
	w->halt = vcpus_share(t, sc, VS_HALT);
	w->wait = vcpus_share(t, sc, VS_WAIT);
}

static int vcpus_build(struct tui *t, struct pane *p)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v;
	struct model_scope sc;
	struct vcpu_row *rows;
	int ret = -1;

	memset(&sc, 0, sizeof(sc));
	p->nr = 0;
	p->rows = calloc(vm && vm->nr_vcpus ? vm->nr_vcpus : 1, sizeof(*rows));
	if (!p->rows)
		return -1;
	if (!vm)
		return 0;	/* the VM went away: an empty pane */
	rows = p->rows;
	MODEL_FOREACH_VCPU(v, vm) {
		const struct model_row row = { .m = t->m, .vm = vm, .v = v };
		struct vcpu_row *w = &rows[p->nr++];

		if (model_scope_vcpu(&sc, t->m, v, t->cumulative) ||
		    model_scope_summary(&sc))
			goto out;
		tui_cols_fill(vcpus_cols, VCPUS_NR_COLS, &row, w->val);
		tui_val_text(&w->val[VCPUS_COMM], w->comm, sizeof(w->comm));
		w->exits = sc.exits;
		w->total = sc.exits_total;
		w->have_lat = sc.handling.samples > 0;
		w->mean = hist_mean(&sc.handling);
		w->p99 = hist_quantile(&sc.handling, 0.99);
		w->max = sc.handling.max;
		w->top = sc.top;
		w->state = vcpus_state(t, v);
		vcpus_shares(t, &sc, w);
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
};

