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
	double halted;		/* HALT%: model_scope_share(VS_HALT), -1: unknown */
	int top;
	uint64_t uexits;
	uint64_t events;	/* kvm events other than exits and entries */
	/* UTIL% and STEAL%: model_scope_share(), -1: unknown */
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
	tui_fmt_share(((const struct vm_row *)r)->halted, buf, len);
}

static void vms_c_util(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_fmt_share(((const struct vm_row *)r)->util, buf, len);
}

static void vms_c_steal(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_fmt_share(((const struct vm_row *)r)->steal, buf, len);
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
	[VMS_NAME] =       { "vm_name",       NULL,         20, COL_LEFT,  vms_c_name,       NULL,               false, 9, 0,                              "vm_name" },
	[VMS_PID] =        { "vm_pid",        NULL,         8,  COL_RIGHT, NULL,             NULL,               false, 8, 0,                              "vm_pid" },
	[VMS_VCPUS] =      { "vm_vcpu_count",      NULL,         5,  COL_RIGHT, NULL,             NULL,               true,  4, 0,                              "vm_vcpu_count" },
	[VMS_EXITS] =      { "exits_per_s",    "EXITS/s",    10, COL_RIGHT, vms_c_rate,       vms_cmp_exits,      true,  9, 0,                              NULL },
	[VMS_TOTAL] =      { "total",      "TOTAL",      10, COL_RIGHT, vms_c_total,      vms_cmp_total,      true,  5, 0,                              NULL },
	[VMS_PCT] =        { "pct",        "%HOST",      6,  COL_RIGHT, vms_c_pct,        vms_cmp_pct,        true,  6, 0,                              NULL },
	[VMS_MEAN] =       { "latency_mean",       "LAT MEAN",   9,  COL_RIGHT, vms_c_mean,       vms_cmp_mean,       true,  7, 0,                              NULL },
	[VMS_P99] =        { "latency_p99",        "LAT P99",    9,  COL_RIGHT, vms_c_p99,        vms_cmp_p99,        true,  7, 0,                              NULL },
	[VMS_HALTED] =     { "halt",     "HALT%",      6,  COL_RIGHT, vms_c_halted,     vms_cmp_halted,     true,  3, 1u << VS_HALT,                  NULL },
	[VMS_UTIL] =       { "util",       "UTIL%",      6,  COL_RIGHT, vms_c_util,       vms_cmp_util,       true,  6, 1u << VS_GUEST | 1u << VS_HOST, NULL },
	[VMS_STEAL] =      { "steal",      "STEAL%",     6,  COL_RIGHT, vms_c_steal,      vms_cmp_steal,      true,  7, 1u << VS_WAIT,                  NULL },
	[VMS_EMU] =        { "emu",        "EMU%",       6,  COL_RIGHT, vms_c_emu,        vms_cmp_emu,        true,  3, TIME_GROUPS,                    NULL },
	[VMS_EMU_WAIT] =   { "emu_wait",   "EMU WT%",    7,  COL_RIGHT, vms_c_emu_wait,   vms_cmp_emu_wait,   true,  2, TIME_GROUPS,                    NULL },
	[VMS_VHOST] =      { "vhost",      "VHOST%",     6,  COL_RIGHT, vms_c_vhost,      vms_cmp_vhost,      true,  3, TIME_GROUPS,                    NULL },
	[VMS_VHOST_WAIT] = { "vhost_wait", "VH WT%",     6,  COL_RIGHT, vms_c_vhost_wait, vms_cmp_vhost_wait, true,  2, TIME_GROUPS,                    NULL },
	[VMS_TOP] =        { "top",        "TOP REASON", 16, COL_LEFT,  vms_c_top,        vms_cmp_top,        false, 5, 0,                              NULL },
	[VMS_UEXITS] =     { "uexits_per_s",   "UEXITS/s",   9,  COL_RIGHT, vms_c_uexits,     vms_cmp_uexits,     true,  6, 0,                              NULL },
	[VMS_EVENTS] =     { "events_per_s",   "EVENTS/s",   9,  COL_RIGHT, vms_c_events,     vms_cmp_events,     true,  6, 0,                              NULL },
	/* its context (src/context/): priority -1, off until F2 or the settings file picks them */
	[VMS_RSS] =        { "vm_mem_rss_bytes",    NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_mem_rss_bytes" },
	[VMS_SWAP] =       { "vm_mem_swap_bytes",   NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_mem_swap_bytes" },
	[VMS_MAJFLT] =     { "vm_majflt_per_s",   NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_majflt_per_s" },
	[VMS_DISK_RD] =    { "vm_disk_rd_bytes_per_s", NULL,        9,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_disk_rd_bytes_per_s" },
	[VMS_DISK_WR] =    { "vm_disk_wr_bytes_per_s", NULL,        9,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_disk_wr_bytes_per_s" },
	[VMS_NET_RX] =     { "vm_net_rx_bytes_per_s", NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_net_rx_bytes_per_s" },
	[VMS_NET_TX] =     { "vm_net_tx_bytes_per_s", NULL,         8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_net_tx_bytes_per_s" },
	[VMS_DROPS] =      { "vm_net_drops_per_s", NULL,        7,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_net_drops_per_s" },
	[VMS_MEM_SOME] =   { "vm_psi_mem_some_pct", NULL,       9,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_psi_mem_some_pct" },
	[VMS_IO_SOME] =    { "vm_psi_io_some_pct", NULL,        8,  COL_RIGHT, NULL,             NULL,               true,  -1, 0,                             "vm_psi_io_some_pct" },
	[VMS_LOCAL] =      { "vm_numa_local_pct", NULL,     6,  COL_RIGHT, NULL,             NULL,               false, -1, 0,                             "vm_numa_local_pct" },
	/* who it is (kvmtop(1), identity): off until F2 or the settings file picks them */
	[VMS_DISPLAY] =    { "vm_display_name", NULL,       20, COL_LEFT,  NULL,             NULL,               false, -1, 0,                             "vm_display_name" },
	[VMS_UUID] =       { "vm_uuid",       NULL,         36, COL_LEFT,  NULL,             NULL,               false, -1, 0,                             "vm_uuid" },
};

/* HALT%, UTIL%, STEAL%: the model's one definition over the span shown. */
static void vms_shares(const struct tui *t, const struct model_scope *sc, const struct vm *vm,
		       struct vm_row *w)
{
	uint64_t span = t->end > t->start ? t->end - t->start : 0;

	w->halted = model_scope_share(sc, 1u << VS_HALT, span, vm->nr_vcpus);
	w->util = model_scope_share(sc, MODEL_UTIL_STATES, span, vm->nr_vcpus);
	w->steal = model_scope_share(sc, 1u << VS_WAIT, span, vm->nr_vcpus);
}

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
		vms_shares(t, &sc, vm, w);
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

/* How many VMs the model holds that -p and -g leave out (never the host kernel's threads). */
static unsigned int vms_left_out(const struct model *m)
{
	struct vm *vm;
	unsigned int n = 0;

	RB_FOREACH(vm, vm_tree, (struct vm_tree *)&m->vms)
		if (!vm->kernel && !model_vm_shown(vm))
			n++;
	return n;
}

/* -p and -g as given ("-p 7 -g web*"), into buf; false if neither was. */
static bool vms_filter_text(const struct model_filter *f, char *buf, size_t len)
{
	char one[96], name[64];
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; f && i < f->nr_pids; i++) {
		snprintf(one, sizeof(one), "%s-p %d", buf[0] ? " " : "", f->pids[i]);
		strlcat(buf, one, len);
	}
	for (i = 0; f && i < f->nr_names; i++) {
		snprintf(one, sizeof(one), "%s-g %s", buf[0] ? " " : "",
			 escape_text(f->names[i], name, sizeof(name)));
		strlcat(buf, one, len);
	}
	return buf[0];
}

/*
 * Why the pane has no row: -p/-g match no VM (the others left out, or
 * none at all), no VM on a live host (the first thing many see: how to
 * see something), or a recording without a VM's events (so far).
 */
static const char *vms_empty(const struct tui *t, const struct pane *p)
{
	static char buf[512];
	char filter[256];
	unsigned int out = vms_left_out(t->m);

	(void)p;
	if (vms_filter_text(t->m->filter, filter, sizeof(filter))) {
		if (out)
			snprintf(buf, sizeof(buf), "no VM matches %s%s: %u other VM%s left out", filter,
				 t->live ? " (yet; kvmtop keeps watching)" : "", out, out == 1 ? " is" : "s are");
		else
			snprintf(buf, sizeof(buf), "no VM matches %s%s: %s", filter,
				 t->live ? " (yet; kvmtop keeps watching)" : "",
				 t->live ? "no VM runs on this host" : "the recording holds no VM's KVM events");
		return buf;
	}
	if (t->live)
		return "no VM runs on this host: kvmtop --demo runs kvmtop's own guest, kvmtop -r FILE reads a recording";
	return t->interval > 0 ? "no VM's KVM events up to this interval of the recording" :
				 "the recording holds no VM's KVM events";
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
