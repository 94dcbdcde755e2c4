// SPDX-License-Identifier: GPL-2.0
/*
 * The VMs pane: one row per VM (host process), the screen kvmtop opens
 * on; with F5 (htop's tree) each VM's vCPUs under it, a row each, each of
 * the VM's columns showing the vCPU's field that means the same
 * (model_field_vcpu_of()), blank where none does.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/model_scope.h"
#include "tui_priv.h"
#include "model/model_view.h"

/* The pane's columns: each a field of the table (model_fields.h), by name. */
enum {
	VMS_NAME, VMS_PID, VMS_VCPUS, VMS_EXITS, VMS_COUNT, VMS_TOTAL, VMS_PCT, VMS_MEAN, VMS_STDDEV, VMS_P99,
	VMS_HALTED, VMS_UTIL, VMS_STEAL, VMS_EMU, VMS_EMU_WAIT, VMS_VHOST, VMS_VHOST_WAIT, VMS_TOP,
	VMS_UEXITS, VMS_EVENTS, VMS_RSS, VMS_SWAP, VMS_MAJFLT, VMS_DISK_RD, VMS_DISK_WR, VMS_NET_RX,
	VMS_NET_TX, VMS_DROPS, VMS_MEM_SOME, VMS_IO_SOME, VMS_LOCAL, VMS_DISPLAY, VMS_UUID, VMS_NR_COLS
};

/* A VM's row, or (F5's tree) one of its vCPUs', whose values are the vCPU's (tui_cols_fill_vcpu()). */
struct vm_row {
	struct pane_val val[VMS_NR_COLS];	/* the columns' values */
	struct pane_node node;		/* a VM's at the top, its vCPUs' under it */
	int pid;			/* the VM's pid (a vCPU's row: its VM's) */
	int tid;			/* a vCPU's row: its thread, else -1 */
	int vcpu;			/* ... and its id (-1: not known) */
	char name[MODEL_NAME_LEN * 4];	/* vm_name's value, escaped (tui_val_text()); a vCPU's: its VM's */
	char comm[MODEL_NAME_LEN * 4];	/* a vCPU's row: its thread's name, escaped */
	char display[IDENT_NAME_LEN * 4];	/* vm_display's, the same */
	char uuid[IDENT_UUID_LEN * 4];	/* vm_uuid's */
	char top[96];			/* vm_top_reason's (a vCPU's: vcpu_top_reason's) */
	bool exited;
};

static int vms_row_pid(const struct vm_row *w)
{
	return w->pid;
}

/*
 * The field's name, and whether the VM has exited; a vCPU's row: the
 * tree's glyph (ASCII where the terminal is not UTF-8) and the vCPU.
 */
static void vms_c_name(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct vm_row *w = r;
	char id[16];

	if (w->tid < 0) {
		snprintf(buf, len, "%s%s", w->name, w->exited ? " (exited)" : "");
		return;
	}
	tui_vcpu_id(w->vcpu, id, sizeof(id));
	snprintf(buf, len, " %s vCPU %s", t->utf8 ? (w->node.last ? "\u2514\u2500" : "\u251c\u2500") :
		 (w->node.last ? "`-" : "|-"), id);
}

PANE_RATE_VAL_CELL(vms, vm_row, exits, VMS_EXITS)
PANE_RATE_VAL_CELL(vms, vm_row, uexits, VMS_UEXITS)
PANE_RATE_VAL_CELL(vms, vm_row, events, VMS_EVENTS)

/*
 * The priorities say what goes first on a narrow screen: at 80 columns
 * the name, the exit rate, the total and the top reason stay; the time
 * shares where the input measures them; the pid, the share of the host's
 * exits and the latencies as the width allows.  UEXITS/s and EVENTS/s
 * only once a VM has had one (COL_SEEN): a recording without those
 * events leaves them empty.
 */
static const struct pane_col vms_cols[VMS_NR_COLS] = {
	[VMS_NAME] =       { "vm_name",       NULL, 20, COL_LEFT,  vms_c_name,   NULL, false, 9, 0,                              "vm_name" },
	[VMS_PID] =        { "vm_pid",        NULL, 8,  COL_RIGHT, NULL,         NULL, false, 6, 0,                              "vm_pid" },
	[VMS_VCPUS] =      { "vm_vcpu_count", NULL, 5,  COL_RIGHT, NULL,         NULL, true,  3, 0,                              "vm_vcpu_count" },
	[VMS_EXITS] =      { "vm_exits_per_s", NULL, 10, COL_RIGHT, vms_c_exits, NULL, true,  9, COL_NS,                         "vm_exits_per_s" },
	/* a TSC recording has no seconds: its exits in the span stand where EXITS/s would */
	[VMS_COUNT] =      { "vm_exits",      NULL, 10, COL_RIGHT, NULL,         NULL, true,  9, COL_CYCLES,                     "vm_exits" },
	[VMS_TOTAL] =      { "vm_exits_total", NULL, 10, COL_RIGHT, NULL,        NULL, true,  8, 0,                              "vm_exits_total" },
	[VMS_PCT] =        { "vm_exits_pct",  NULL, 6,  COL_RIGHT, NULL,         NULL, true,  5, 0,                              "vm_exits_pct" },
	[VMS_MEAN] =       { "vm_latency_mean", NULL, 9, COL_RIGHT, NULL,        NULL, true,  5, 0,                              "vm_latency_mean" },
	/* perf kvm stat's +-: off on 80 columns, F2 picks it */
	[VMS_STDDEV] =     { "vm_latency_stddev", NULL, 10, COL_RIGHT, NULL,     NULL, true,  1, 0,                              "vm_latency_stddev" },
	[VMS_P99] =        { "vm_latency_p99", NULL, 9, COL_RIGHT, NULL,         NULL, true,  4, 0,                              "vm_latency_p99" },
	[VMS_HALTED] =     { "vm_halt_pct",   NULL, 6,  COL_RIGHT, NULL,         NULL, true,  4, 1u << VS_HALT,                  "vm_halt_pct" },
	[VMS_UTIL] =       { "vm_util_pct",   NULL, 6,  COL_RIGHT, NULL,         NULL, true,  7, 1u << VS_GUEST | 1u << VS_HOST, "vm_util_pct" },
	[VMS_STEAL] =      { "vm_steal_pct",  NULL, 6,  COL_RIGHT, NULL,         NULL, true,  7, 1u << VS_WAIT,                  "vm_steal_pct" },
	[VMS_EMU] =        { "vm_emulator_run_pct", NULL, 6, COL_RIGHT, NULL,    NULL, true,  2, TIME_GROUPS,                    "vm_emulator_run_pct" },
	[VMS_EMU_WAIT] =   { "vm_emulator_wait_pct", NULL, 7, COL_RIGHT, NULL,   NULL, true,  1, TIME_GROUPS,                    "vm_emulator_wait_pct" },
	[VMS_VHOST] =      { "vm_vhost_run_pct", NULL, 6, COL_RIGHT, NULL,       NULL, true,  2, TIME_GROUPS,                    "vm_vhost_run_pct" },
	[VMS_VHOST_WAIT] = { "vm_vhost_wait_pct", NULL, 6, COL_RIGHT, NULL,      NULL, true,  1, TIME_GROUPS,                    "vm_vhost_wait_pct" },
	[VMS_TOP] =        { "vm_top_reason", NULL, 16, COL_LEFT,  NULL,         NULL, false, 8, 0,                              "vm_top_reason" },
	[VMS_UEXITS] =     { "vm_uexits_per_s", NULL, 9, COL_RIGHT, vms_c_uexits, NULL, true, 3, COL_SEEN,                       "vm_uexits_per_s" },
	[VMS_EVENTS] =     { "vm_events_per_s", NULL, 9, COL_RIGHT, vms_c_events, NULL, true, 3, COL_SEEN,                       "vm_events_per_s" },
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

/* How many rows the pane may have: its VMs, and with F5's tree their vCPU threads too. */
static size_t vms_count(const struct tui *t)
{
	const struct vm *vm;
	size_t n = 0;

	MODEL_FOREACH_VM(vm, t->m)
		n += 1 + (t->vms_tree ? vm->nr_vcpus : 0);
	return n;
}

/* A vCPU's field as its getter gives it (the vCPUs pane's), for a row of vCPU row. */
static void vms_vcpu_field(const char *name, const struct model_row *row, struct model_field_val *v)
{
	bool has;

	model_field_value(model_field(name), row, v, &has);
}

/* F5's tree: the vCPUs of the VM of the pane's last row, a row each after it: 0, or -1 (no memory). */
static int vms_build_vcpus(struct tui *t, struct pane *p, const struct vm *vm, const struct model_snap *snap)
{
	struct vm_row *rows = p->rows, *up = &rows[p->nr - 1];
	long parent = (long)p->nr - 1;
	struct model_field_val v;
	const struct vcpu *c;
	struct model_scope sc;
	int ret = 0;

	memset(&sc, 0, sizeof(sc));
	MODEL_FOREACH_VCPU(c, vm) {
		const struct model_row row = { .m = t->m, .vm = vm, .v = c, .snap = snap, .vcpu_sc = &sc };
		struct vm_row *w = &rows[p->nr++];

		/* its scope as the vCPUs pane reads it: the same figures */
		if (model_scope_vcpu(&sc, t->m, c, t->cumulative) || model_scope_summary(&sc)) {
			ret = -1;
			break;
		}
		tui_cols_fill_vcpu(vms_cols, VMS_NR_COLS, &row, w->val);
		tui_val_text(&w->val[VMS_TOP], w->top, sizeof(w->top));
		w->node.parent = parent;
		w->pid = up->pid;
		vms_vcpu_field("vcpu_tid", &row, &v);
		w->tid = (int)v.i;
		vms_vcpu_field("vcpu", &row, &v);
		w->vcpu = (int)v.i;
		/* vCPUs of an unknown id after the others */
		w->node.rank = v.i >= 0 ? v.i : (long)INT32_MAX;
		vms_vcpu_field("vcpu_comm", &row, &v);
		escape_text(v.s ? v.s : "", w->comm, sizeof(w->comm));
		memcpy(w->name, up->name, sizeof(w->name));
		model_scope_free(&sc);
	}
	model_scope_free(&sc);
	return ret;
}

static int vms_build(struct tui *t, struct pane *p)
{
	struct model_scope sc;
	struct model_snap snap;
	struct vm_row *rows;
	const struct vm *vm;
	size_t n;
	int ret = -1;

	memset(&sc, 0, sizeof(sc));
	tui_snap(t, &snap);
	n = vms_count(t);
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		goto out;
	p->rows = rows;
	p->nr = 0;
	/* not the host kernel's threads: host work, not a VM */
	MODEL_FOREACH_VM(vm, t->m) {
		const struct model_row row = { .m = t->m, .vm = vm, .snap = &snap, .vm_sc = &sc };
		struct vm_row *w;

		w = &rows[p->nr++];
		/* the scope the fields read: the span shown, cumulative or of the interval */
		if (model_scope_vm(&sc, t->m, vm, t->cumulative) ||
		    model_scope_summary(&sc))
			goto out;
		tui_cols_fill(vms_cols, VMS_NR_COLS, &row, w->val);
		tui_val_text(&w->val[VMS_NAME], w->name, sizeof(w->name));
		tui_val_text(&w->val[VMS_DISPLAY], w->display, sizeof(w->display));
		tui_val_text(&w->val[VMS_UUID], w->uuid, sizeof(w->uuid));
		tui_val_text(&w->val[VMS_TOP], w->top, sizeof(w->top));
		w->node.parent = -1;
		w->pid = (int)w->val[VMS_PID].v.i;
		w->tid = w->vcpu = -1;
		w->exited = vm->exited;
		model_scope_free(&sc);
		if (t->vms_tree && vms_build_vcpus(t, p, vm, &snap))
			goto out;
	}
	ret = 0;
out:
	model_scope_free(&sc);
	return ret;
}

/*
 * A VM's pid; a vCPU's thread with bit 32 set, never a VM's pid (a VMM
 * that runs a vCPU on its main thread): (int) of it is the tid.
 */
static uint64_t vms_key(const void *r)
{
	const struct vm_row *w = r;

	if (w->tid >= 0)
		return 1ull << 32 | (unsigned int)w->tid;
	return (uint64_t)(unsigned int)vms_row_pid(r);
}

/* What / and \ look in: a VM's name and pid; a vCPU's VM's too, its id, tid and thread's name. */
static const char *vms_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct vm_row *w = r;
	char id[16];

	if (w->tid < 0)
		snprintf(buf, len, "%s %d", w->name, vms_row_pid(w));
	else
		snprintf(buf, len, "%s %d vCPU %s %d %s", w->name, vms_row_pid(w),
			 tui_vcpu_id(w->vcpu, id, sizeof(id)), w->tid, w->comm);
	return buf;
}

/* A VM's vCPUs; on a vCPU's row (F5's tree), that vCPU's exit reasons, as the vCPUs pane's Enter. */
static int vms_enter(struct tui *t, const void *r)
{
	const struct vm_row *w = r;

	if (w->tid >= 0)
		return tui_push(t, PANE_REASONS, vms_row_pid(w), w->tid);
	return tui_push(t, PANE_VCPUS, vms_row_pid(r), -1);
}

/* The guest IPs of the selected VM, or of the selected vCPU (F5's tree). */
static int vms_tab(struct tui *t)
{
	const struct vm_row *w = tui_selected(t);

	if (!w)
		return 0;	/* no VM: nothing to open */
	return tui_push(t, PANE_IPS, vms_row_pid(w), w->tid);
}

/* How many VMs p lists (with F5's tree, its vCPUs' rows are not counted). */
static size_t vms_nr_vms(const struct pane *p)
{
	const struct vm_row *rows = p->rows;
	size_t i, n = 0;

	for (i = 0; i < p->nr; i++)
		n += rows[i].tid < 0;
	return n;
}

static void vms_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const char *tree = t->vms_tree ? ", tree" : "";

	if (t->vms_view >= 0 && (size_t)t->vms_view < tui_nr_views)
		snprintf(buf, len, "VMs (%zu)%s, view %c: %s (%c again, 0 or Esc: all columns)", vms_nr_vms(p), tree,
			 tui_views[t->vms_view].key, tui_views[t->vms_view].title, tui_views[t->vms_view].key);
	else if (t->vms_tree)
		snprintf(buf, len, "VMs (%zu), tree: each VM's vCPUs under it (F5: flat); Enter opens a VM's vCPUs "
			 "or a vCPU's exit reasons", vms_nr_vms(p));
	else
		snprintf(buf, len, "VMs (%zu): Enter shows a VM's vCPUs, Tab its guest IPs", vms_nr_vms(p));
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
	.default_sort_cycles = VMS_COUNT,
	.row_size = sizeof(struct vm_row),
	.vals = offsetof(struct vm_row, val),
	.build = vms_build,
	.key = vms_key,
	.label = vms_label,
	.enter = vms_enter,
	.tab = vms_tab,
	.title = vms_title,
	.empty = vms_empty,
	.busy = "vm_exits_per_s",
	.node = offsetof(struct vm_row, node),
};

/* the screen keeps room for TUI_COLS columns a pane (tui.h) */
_Static_assert(VMS_NR_COLS <= TUI_COLS, "more columns than TUI_COLS");
