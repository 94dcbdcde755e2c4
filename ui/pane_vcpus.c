// SPDX-License-Identifier: GPL-2.0
/* The vCPUs of one VM: one row per vCPU thread. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/model_scope.h"
#include "tui_priv.h"

/* The pane's columns: the vCPU's id, thread, its name and last CPU fields by name (model_fields.h). */
enum {
	COL_VCPU, COL_TID, COL_COMM, COL_CPU, COL_EXITS, COL_TOTAL, COL_MEAN, COL_P99, COL_MAX,
	COL_GUEST, COL_HOST, COL_VMM, COL_HALT, COL_WAIT, COL_TOP, COL_STATE, NR_COLS
};

struct vcpu_row {
	struct pane_val val[NR_COLS];	/* the field columns' values */
	char comm[MODEL_NAME_LEN * 4];	/* the thread name's, escaped */
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

PANE_CMP(vcpu_row, exits)
PANE_CMP(vcpu_row, total)
PANE_CMP(vcpu_row, mean)
PANE_CMP(vcpu_row, p99)
PANE_CMP(vcpu_row, max)
PANE_CMP(vcpu_row, guest)
PANE_CMP(vcpu_row, host)
PANE_CMP(vcpu_row, vmm)
PANE_CMP(vcpu_row, halt)
PANE_CMP(vcpu_row, wait)

/* c_<state>(): a time state's share, "-" where the input does not measure it */
#define SHARE_CELL(field) \
	static void c_##field(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		double v = ((const struct vcpu_row *)r)->field; \
		if (v < 0) \
			snprintf(buf, len, "-"); \
		else \
			snprintf(buf, len, "%.1f", v); \
	}
SHARE_CELL(guest)
SHARE_CELL(host)
SHARE_CELL(vmm)
SHARE_CELL(halt)
SHARE_CELL(wait)

static int cmp_top(const void *a, const void *b)
{
	return ((const struct vcpu_row *)a)->top - ((const struct vcpu_row *)b)->top;
}

static int cmp_state(const void *a, const void *b)
{
	return strcmp(((const struct vcpu_row *)a)->state, ((const struct vcpu_row *)b)->state);
}

static int row_tid(const struct vcpu_row *w)
{
	return (int)w->val[COL_TID].v.i;
}

static int row_vcpu(const struct vcpu_row *w)
{
	return (int)w->val[COL_VCPU].v.i;
}

/* The vCPU id field as every pane writes it: '?' where not known. */
static void c_vcpu(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_vcpu_id(row_vcpu(r), buf, len);
}

PANE_RATE_CELL(vcpu_row, rate, exits)

PANE_COUNT_CELL(vcpu_row, total, total)

PANE_LAT_CELL(vcpu_row, mean)

PANE_LAT_CELL(vcpu_row, p99)

PANE_LAT_CELL(vcpu_row, max)

static void c_top(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_reason_name(t, ((const struct vcpu_row *)r)->top, buf, len);
}

static void c_state(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct vcpu_row *)r)->state);
}

static const struct pane_col cols[NR_COLS] = {
	[COL_VCPU]  = { "vcpu",    NULL,          5, COL_RIGHT, c_vcpu,  NULL,      false, 9, 0, "vcpu" },
	[COL_TID]   = { "tid",     NULL,          8, COL_RIGHT, NULL,    NULL,      false, 8, 0, "tid" },
	[COL_COMM]  = { "comm",    NULL,         16, COL_LEFT,  NULL,    NULL,      false, 4, 0, "comm" },
	[COL_CPU]   = { "cpu",     NULL,          4, COL_RIGHT, NULL,    NULL,      false, 3, 0, "last_cpu" },
	[COL_EXITS] = { "exits_s", "EXITS/s",    10, COL_RIGHT, c_rate,  cmp_exits, true,  9, 0, NULL },
	[COL_TOTAL] = { "total",   "TOTAL",      10, COL_RIGHT, c_total, cmp_total, true,  5, 0, NULL },
	[COL_MEAN]  = { "mean",    "LAT MEAN",    9, COL_RIGHT, c_mean,  cmp_mean,  true,  7, 0, NULL },
	[COL_P99]   = { "p99",     "LAT P99",     9, COL_RIGHT, c_p99,   cmp_p99,   true,  7, 0, NULL },
	[COL_MAX]   = { "max",     "LAT MAX",     9, COL_RIGHT, c_max,   cmp_max,   true,  6, 0, NULL },
	[COL_GUEST] = { "guest",   "GUEST%",      6, COL_RIGHT, c_guest, cmp_guest, true,  6, 1u << VS_GUEST, NULL },
	[COL_HOST]  = { "host",    "HOST%",       6, COL_RIGHT, c_host,  cmp_host,  true,  6, 1u << VS_HOST, NULL },
	[COL_VMM]   = { "vmm",     "VMM%",        6, COL_RIGHT, c_vmm,   cmp_vmm,   true,  6, 1u << VS_VMM, NULL },
	[COL_HALT]  = { "halt",    "HALT%",       6, COL_RIGHT, c_halt,  cmp_halt,  true,  6, 1u << VS_HALT, NULL },
	[COL_WAIT]  = { "wait",    "WAIT%",       6, COL_RIGHT, c_wait,  cmp_wait,  true,  7, 1u << VS_WAIT, NULL },
	[COL_TOP]   = { "top",     "TOP REASON", 20, COL_LEFT,  c_top,   cmp_top,   false, 5, 0, NULL },
	[COL_STATE] = { "state",   "STATE",       8, COL_LEFT,  c_state, cmp_state, false, 2, 0, NULL },
};

/* Where the vCPU was when the figures were taken. */
static const char *state(const struct tui *t, const struct vcpu *v)
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

static double share(const struct tui *t, const struct model_scope *s, enum vcpu_state st)
{
	uint64_t span = t->end > t->start ? t->end - t->start : 0;

	if (!span || !(s->time_known & (1u << st)))
		return -1;
	return 100.0 * (double)s->time[st] / (double)span;
}

static void shares(const struct tui *t, const struct model_scope *s, struct vcpu_row *w)
{
	w->guest = share(t, s, VS_GUEST);
	w->host = share(t, s, VS_HOST);
	w->vmm = share(t, s, VS_VMM);
	w->halt = share(t, s, VS_HALT);
	w->wait = share(t, s, VS_WAIT);
}

static int build(struct tui *t, struct pane *p)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v;
	struct model_scope s;
	struct vcpu_row *rows;
	int ret = -1;

	memset(&s, 0, sizeof(s));
	p->nr = 0;
	p->rows = calloc(vm && vm->nr_vcpus ? vm->nr_vcpus : 1, sizeof(*rows));
	if (!p->rows)
		return -1;
	if (!vm)
		return 0;	/* the VM went away: an empty pane */
	rows = p->rows;
	TAILQ_FOREACH(v, &vm->vcpus, vm_link) {
		const struct model_row row = { .m = t->m, .vm = vm, .v = v };
		struct vcpu_row *w = &rows[p->nr++];

		if (model_scope_vcpu(&s, t->m, v, t->cumulative) ||
		    model_scope_summary(&s))
			goto out;
		tui_cols_fill(cols, NR_COLS, &row, w->val);
		tui_val_text(&w->val[COL_COMM], w->comm, sizeof(w->comm));
		w->exits = s.exits;
		w->total = s.exits_total;
		w->have_lat = s.handling.samples > 0;
		w->mean = hist_mean(&s.handling);
		w->p99 = hist_quantile(&s.handling, 0.99);
		w->max = s.handling.max;
		w->top = s.top;
		w->state = state(t, v);
		shares(t, &s, w);
		model_scope_free(&s);
	}
	ret = 0;
out:
	model_scope_free(&s);
	return ret;
}

static uint64_t key(const void *r)
{
	return (uint64_t)(unsigned int)row_tid(r);
}

static const char *label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct vcpu_row *w = r;

	snprintf(buf, len, "%d %d %s", row_vcpu(w), row_tid(w), w->comm);
	return buf;
}

static int enter(struct tui *t, const void *r)
{
	const struct pane *p = &t->stack[t->depth - 1];

	return tui_push(t, PANE_REASONS, p->vm_pid, row_tid(r));
}

static void title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	char name[MODEL_NAME_LEN * 4] = "?";

	if (vm)
		escape_text(vm->name, name, sizeof(name));
	snprintf(buf, len, "vCPUs of VM %s (pid %d)%s: Enter shows a vCPU's exit reasons, Tab the VM's",
		 name, p->vm_pid, vm ? "" : ", gone");
}

static int tab(struct tui *t)
{
	/* the VM's exit reasons, all vCPUs together */
	return tui_push(t, PANE_REASONS, t->stack[t->depth - 1].vm_pid, -1);
}

const struct pane_ops pane_vcpus = {
	.name = "vCPUs",
	.cols = cols,
	.nr_cols = sizeof(cols) / sizeof(cols[0]),
	.default_sort = COL_VCPU,
	.row_size = sizeof(struct vcpu_row),
	.vals = offsetof(struct vcpu_row, val),
	.build = build,
	.key = key,
	.label = label,
	.enter = enter,
	.tab = tab,
	.title = title,
};

