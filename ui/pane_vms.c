// SPDX-License-Identifier: GPL-2.0
/* The VMs pane: one row per VM (host process), the screen kvmtop opens on. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/model_scope.h"
#include "tui_priv.h"

/* The pane's columns; name, pid and vcpus are fields of the table (model_fields.h), by name. */
enum {
	VMS_NAME, VMS_PID, VMS_VCPUS, VMS_EXITS, VMS_TOTAL, VMS_PCT, VMS_MEAN, VMS_P99, VMS_HALTED,
	VMS_UTIL, VMS_STEAL, VMS_EMU, VMS_EMU_WAIT, VMS_VHOST, VMS_VHOST_WAIT, VMS_TOP, VMS_UEXITS,
	VMS_EVENTS, VMS_RSS, VMS_SWAP, VMS_MAJFLT, VMS_DISK_RD, VMS_DISK_WR, VMS_NET_RX, VMS_NET_TX,
	VMS_DROPS, VMS_MEM_SOME, VMS_IO_SOME, VMS_LOCAL, VMS_DISPLAY, VMS_UUID, VMS_NR_COLS
};

/* The states UTIL% needs (its column's needs): without both, no share. */
#define VMS_UTIL_STATES	(1u << VS_GUEST | 1u << VS_HOST)

struct vm_row {
	struct pane_val val[VMS_NR_COLS];	/* the field columns' values */
	char name[MODEL_NAME_LEN * 4];	/* vm_name's value, escaped (tui_val_text()) */
	char display[IDENT_NAME_LEN * 4];	/* vm_display's, the same */
	char uuid[IDENT_UUID_LEN * 4];	/* vm_uuid's */
	bool exited;
	uint64_t exits;
	uint64_t total;
	double pct;
	double mean;
	uint64_t p99;
	bool have_lat;
	double halted;		/* % of the interval x vCPUs spent in blocking exits */
	int top;
	uint64_t uexits;
	uint64_t events;	/* kvm events other than exits and entries */
	/* % of the span x vCPUs on a CPU (guest, host, VMM), and waiting for one; -1: not measured */
	double util, steal;
	/* live: the emulator's and vhost threads' % of one CPU on a CPU, and waiting for one */
	double emu, emu_wait, vhost, vhost_wait;
};

PANE_CMP(vms, vm_row, exits)
PANE_CMP(vms, vm_row, total)
PANE_CMP(vms, vm_row, pct)
PANE_CMP(vms, vm_row, mean)
PANE_CMP(vms, vm_row, p99)
PANE_CMP(vms, vm_row, halted)
PANE_CMP(vms, vm_row, uexits)
PANE_CMP(vms, vm_row, events)
PANE_CMP(vms, vm_row, util)
PANE_CMP(vms, vm_row, steal)
PANE_CMP(vms, vm_row, emu)
PANE_CMP(vms, vm_row, emu_wait)
PANE_CMP(vms, vm_row, vhost)
PANE_CMP(vms, vm_row, vhost_wait)

static int vms_cmp_top(const void *a, const void *b)
{
	return ((const struct vm_row *)a)->top - ((const struct vm_row *)b)->top;
}

static int vms_row_pid(const struct vm_row *w)
{
	return (int)w->val[VMS_PID].v.i;
}

/* The field's name, and whether the VM has exited. */
static void vms_c_name(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct vm_row *w = r;

	snprintf(buf, len, "%s%s", w->name, w->exited ? " (exited)" : "");
}

PANE_RATE_CELL(vms, vm_row, rate, exits)

PANE_COUNT_CELL(vms, vm_row, total, total)

static void vms_c_pct(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_fmt_pct(((const struct vm_row *)r)->pct, buf, len);
}

PANE_LAT_CELL(vms, vm_row, mean)

PANE_LAT_CELL(vms, vm_row, p99)

static void vms_c_halted(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct vm_row *w = r;

	if (t->secs > 0 && !t->cumulative)
		tui_fmt_pct(w->halted, buf, len);
	else
		snprintf(buf, len, "-");
}

/* A share of the time states, "-" where not measured (-1: /proc read once, not twice yet). */
static void vms_c_share(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		tui_fmt_pct(v, buf, len);
}

static void vms_c_util(const struct tui *t, const void *r, char *buf, size_t len)
{
	vms_c_share(((const struct vm_row *)r)->util, buf, len);
}

static void vms_c_steal(const struct tui *t, const void *r, char *buf, size_t len)
{
	vms_c_share(((const struct vm_row *)r)->steal, buf, len);
}

#define GROUP_CELL(field)							\
static void vms_c_##field(const struct tui *t, const void *r, char *buf, size_t len)	\
{										\
	tui_fmt_pct(((const struct vm_row *)r)->field, buf, len);		\
}
GROUP_CELL(emu)
GROUP_CELL(emu_wait)
GROUP_CELL(vhost)
GROUP_CELL(vhost_wait)

static void vms_c_top(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_reason_name(t, ((const struct vm_row *)r)->top, buf, len);
}

static void vms_c_uexits(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_fmt_event_rate(t, ((const struct vm_row *)r)->uexits, buf, len);
}

static void vms_c_events(const struct tui *t, const void *r, char *buf, size_t len)
{
	uint64_t n = ((const struct vm_row *)r)->events;

	/* a counter source may count events too (debugfs: its other counters) */
	if (t->m->nr_other)
		tui_fmt_rate(t, n, buf, len);
	else
		tui_fmt_event_rate(t, n, buf, len);
}

static const struct pane_col vms_cols[VMS_NR_COLS] = {
	[VMS_NAME] =       { "name",       NULL,         20, COL_LEFT,  vms_c_name,       NULL,               false, 9, 0,                              "vm_name" },
	[VMS_PID] =        { "pid",        NULL,         8,  COL_RIGHT, NULL,             NULL,               false, 8, 0,                              "vm_pid" },
	[VMS_VCPUS] =      { "vcpus",      NULL,         5,  COL_RIGHT, NULL,             NULL,               true,  4, 0,                              "vm_vcpus" },
	[VMS_EXITS] =      { "exits_s",    "EXITS/s",    10, COL_RIGHT, vms_c_rate,       vms_cmp_exits,      true,  9, 0,                              NULL },
	[VMS_TOTAL] =      { "total",      "TOTAL",      10, COL_RIGHT, vms_c_total,      vms_cmp_total,      true,  5, 0,                              NULL },
	[VMS_PCT] =        { "pct",        "%HOST",      6,  COL_RIGHT, vms_c_pct,        vms_cmp_pct,        true,  6, 0,                              NULL },
	[VMS_MEAN] =       { "mean",       "LAT MEAN",   9,  COL_RIGHT, vms_c_mean,       vms_cmp_mean,       true,  7, 0,                              NULL },
	[VMS_P99] =        { "p99",        "LAT P99",    9,  COL_RIGHT, vms_c_p99,        vms_cmp_p99,        true,  7, 0,                              NULL },
	[VMS_HALTED] =     { "halted",     "HALT%",      6,  COL_RIGHT, vms_c_halted,     vms_cmp_halted,     true,  3, 0,                              NULL },
	[VMS_UTIL] =       { "util",       "UTIL%",      6,  COL_RIGHT, vms_c_util,       vms_cmp_util,       true,  6, 1u << VS_GUEST | 1u << VS_HOST, NULL },
	[VMS_STEAL] =      { "steal",      "STEAL%",     6,  COL_RIGHT, vms_c_steal,      vms_cmp_steal,      true,  7, 1u << VS_WAIT,                  NULL },
	[VMS_EMU] =        { "emu",        "EMU%",       6,  COL_RIGHT, vms_c_emu,        vms_cmp_emu,        true,  3, TIME_GROUPS,                    NULL },
	[VMS_EMU_WAIT] =   { "emu_wait",   "EMU WT%",    7,  COL_RIGHT, vms_c_emu_wait,   vms_cmp_emu_wait,   true,  2, TIME_GROUPS,                    NULL },
	[VMS_VHOST] =      { "vhost",      "VHOST%",     6,  COL_RIGHT, vms_c_vhost,      vms_cmp_vhost,      true,  3, TIME_GROUPS,                    NULL },
	[VMS_VHOST_WAIT] = { "vhost_wait", "VH WT%",     6,  COL_RIGHT, vms_c_vhost_wait, vms_cmp_vhost_wait, true,  2, TIME_GROUPS,                    NULL },
	[VMS_TOP] =        { "top",        "TOP REASON", 16, COL_LEFT,  vms_c_top,        vms_cmp_top,        false, 5, 0,                              NULL },
	[VMS_UEXITS] =     { "uexits_s",   "UEXITS/s",   9,  COL_RIGHT, vms_c_uexits,     vms_cmp_uexits,     true,  6, 0,                              NULL },
	[VMS_EVENTS] =     { "events_s",   "EVENTS/s",   9,  COL_RIGHT, vms_c_events,     vms_cmp_events,     true,  6, 0,                              NULL },
	/* its context (src/context/): priority -1, off until F2 or the settings file picks them */
	[VMS_RSS] =        { "mem_rss",    NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "mem_rss" },
	[VMS_SWAP] =       { "mem_swap",   NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "mem_swap" },
	[VMS_MAJFLT] =     { "majflt_s",   NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "majflt_s" },
	[VMS_DISK_RD] =    { "disk_rd_bps", NULL,        9,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "disk_rd_bps" },
	[VMS_DISK_WR] =    { "disk_wr_bps", NULL,        9,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "disk_wr_bps" },
	[VMS_NET_RX] =     { "net_rx_bps", NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "net_rx_bps" },
	[VMS_NET_TX] =     { "net_tx_bps", NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "net_tx_bps" },
	[VMS_DROPS] =      { "net_drops_s", NULL,        7,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "net_drops_s" },
	[VMS_MEM_SOME] =   { "psi_mem_some", NULL,       9,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "psi_mem_some" },
	[VMS_IO_SOME] =    { "psi_io_some", NULL,        8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "psi_io_some" },
	[VMS_LOCAL] =      { "numa_local_pct", NULL,     6,  COL_RIGHT, NULL,             NULL,               false, -1, 0,                             "numa_local_pct" },
	/* who it is (kvmtop(1), identity): off until F2 or the settings file picks them */
	[VMS_DISPLAY] =    { "display_name", NULL,       20, COL_LEFT,  NULL,             NULL,               false, -1, 0,                             "vm_display" },
	[VMS_UUID] =       { "uuid",       NULL,         36, COL_LEFT,  NULL,             NULL,               false, -1, 0,                             "vm_uuid" },
};

static int vms_build(struct tui *t, struct pane *p)
{
	struct model_scope sc;
	struct vm_row *rows;
	const struct vm *vm;
	size_t n;
	int ret = -1, i;
	/* the host's exits are the model's own counter: no need to sum them again */
	uint64_t host = t->cumulative ? t->m->exits.total : ctr_interval(&t->m->exits);

	memset(&sc, 0, sizeof(sc));
	n = model_nr_vms(t->m);
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		goto out;
	p->rows = rows;
	p->nr = 0;
	/* not the host kernel's threads: host work, not a VM */
	MODEL_FOREACH_VM(vm, t->m) {
		const struct model_row row = { .m = t->m, .vm = vm };
		struct vm_row *w;

		w = &rows[p->nr++];
		if (model_scope_vm(&sc, t->m, vm, t->cumulative) ||
		    model_scope_summary(&sc))
			goto out;
		tui_cols_fill(vms_cols, VMS_NR_COLS, &row, w->val);
		tui_val_text(&w->val[VMS_NAME], w->name, sizeof(w->name));
		tui_val_text(&w->val[VMS_DISPLAY], w->display, sizeof(w->display));
		tui_val_text(&w->val[VMS_UUID], w->uuid, sizeof(w->uuid));
		w->exited = vm->exited;
		w->exits = sc.exits;
		w->total = sc.exits_total;
		w->pct = host ? 100.0 * (double)sc.exits / (double)host : 0;
		w->have_lat = sc.handling.samples > 0;
		w->mean = hist_mean(&sc.handling);
		w->p99 = hist_quantile(&sc.handling, 0.99);
		if (t->secs > 0 && vm->nr_vcpus)
			w->halted = 100.0 * (double)sc.halted / 1e9 / t->secs / vm->nr_vcpus;
		if (w->halted > 100.0)
			w->halted = 100.0;
		if (t->end > t->start && vm->nr_vcpus) {
			double span = (double)(t->end - t->start) * vm->nr_vcpus;

			w->util = 100.0 * (double)(sc.time[VS_GUEST] + sc.time[VS_HOST] + sc.time[VS_VMM]) / span;
			w->steal = 100.0 * (double)sc.time[VS_WAIT] / span;
		}
		/* the scope has no figure of the states yet (/proc read once): none, not 0 */
		if ((sc.time_known & VMS_UTIL_STATES) != VMS_UTIL_STATES)
			w->util = -1;
		if (!(sc.time_known & 1u << VS_WAIT))
			w->steal = -1;
		if (t->end > t->start) {
			double one = (double)(t->end - t->start);

			w->emu = 100.0 * (double)model_group_ns(vm, TG_EMULATOR, false, t->cumulative) / one;
			w->emu_wait = 100.0 * (double)model_group_ns(vm, TG_EMULATOR, true, t->cumulative) / one;
			w->vhost = 100.0 * (double)model_group_ns(vm, TG_VHOST, false, t->cumulative) / one;
			w->vhost_wait = 100.0 * (double)model_group_ns(vm, TG_VHOST, true, t->cumulative) / one;
		}
		w->top = sc.top;
		w->uexits = sc.uexits;
		for (i = 0; i < t->m->nr_other; i++)
			w->events += sc.other[i];
		model_scope_free(&sc);
	}
	ret = 0;
out:
	model_scope_free(&sc);
	return ret;
}

static uint64_t vms_key(const void *r)
{
	return (uint64_t)(unsigned int)vms_row_pid(r);
}

static const char *vms_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct vm_row *w = r;

	snprintf(buf, len, "%s %d", w->name, vms_row_pid(w));
	return buf;
}

static int vms_enter(struct tui *t, const void *r)
{
	return tui_push(t, PANE_VCPUS, vms_row_pid(r), -1);
}

static int vms_tab(struct tui *t)
{
	const struct vm_row *w = tui_selected(t);

	if (!w)
		return 0;	/* no VM: nothing to open */
	return tui_push(t, PANE_IPS, vms_row_pid(w), -1);
}

static void vms_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	snprintf(buf, len, "VMs (%zu): Enter shows a VM's vCPUs, Tab its guest IPs", p->nr);
}

/* A live host without VMs is the first thing many see: say how to see something. */
static const char *vms_empty(const struct tui *t, const struct pane *p)
{
	(void)p;
	if (t->live && RB_EMPTY(&t->m->vms))
		return "no VM runs on this host: kvmtop --demo runs kvmtop's own guest, kvmtop -r FILE reads a recording";
	return t->live ? "nothing in this interval" : "no KVM events";
}

const struct pane_ops pane_vms = {
	.name = "VMs",
	.cols = vms_cols,
	.nr_cols = sizeof(vms_cols) / sizeof(vms_cols[0]),
	.default_sort = VMS_EXITS,
	.row_size = sizeof(struct vm_row),
	.vals = offsetof(struct vm_row, val),
	.build = vms_build,
	.key = vms_key,
	.label = vms_label,
	.enter = vms_enter,
	.tab = vms_tab,
	.title = vms_title,
	.empty = vms_empty,
};
