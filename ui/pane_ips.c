// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled guest IPs of a VM (all its vCPUs) or of one vCPU: the time
 * samples (IPs of asynchronous exits: where the guest runs) or, after
 * 't', the exit sites (IPs of synchronous exits, per reason), with the
 * guest's symbols when --guest-kallsyms or --guest-map gave them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/model_scope.h"
#include "tui_priv.h"

struct ip_row {
	uint64_t ip;
	uint64_t count;
	uint64_t err;
	double pct;
	int reason;
	int mode;
	int resolved;		/* sym_ip(): 1 a symbol, 0 [unknown], -1 no table */
	unsigned int nips;	/* by symbol: the IPs summed into the row */
	char sym[256];		/* escaped */
};

PANE_CMP(ips, ip_row, count)
PANE_CMP(ips, ip_row, err)
PANE_CMP(ips, ip_row, ip)
PANE_CMP(ips, ip_row, reason)
PANE_CMP(ips, ip_row, mode)

static int ips_cmp_sym(const void *a, const void *b)
{
	return strcmp(((const struct ip_row *)a)->sym, ((const struct ip_row *)b)->sym);
}

PANE_COUNT_CELL(ips, ip_row, count, count)
PANE_COUNT_CELL(ips, ip_row, err, err)

static void ips_c_pct(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_fmt_pct(((const struct ip_row *)r)->pct, buf, len);
}

static void ips_c_mode(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", kvm_guest_mode_label(((const struct ip_row *)r)->mode));
}

static void ips_c_ip(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, ((const struct ip_row *)r)->ip);
}

static void ips_c_reason(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_reason_name(t, ((const struct ip_row *)r)->reason, buf, len);
}

static void ips_c_sym(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct ip_row *w = r;

	if (w->resolved < 0)
		snprintf(buf, len, "-");
	else if (w->nips > 1)	/* by symbol: how many IPs of it were summed */
		snprintf(buf, len, "%s (%u IPs)", w->sym, w->nips);
	else
		snprintf(buf, len, "%s", w->sym);
}

static const struct pane_col ips_cols[] = {
	{ "count",  "COUNT",    9,  COL_RIGHT, ips_c_count,  ips_cmp_count,  true,  9, 0, NULL },
	{ "pct",    "%",        5,  COL_RIGHT, ips_c_pct,    ips_cmp_count,  true,  8, 0, NULL },
	{ "err",    "ERR",      7,  COL_RIGHT, ips_c_err,    ips_cmp_err,    true,  3, 0, NULL },
	{ "mode",   "MODE",     7,  COL_LEFT,  ips_c_mode,   ips_cmp_mode,   false, 6, 0, NULL },
	{ "ip",     "GUEST IP", 18, COL_RIGHT, ips_c_ip,     ips_cmp_ip,     false, 7, 0, NULL },
	{ "reason", "REASON",   20, COL_LEFT,  ips_c_reason, ips_cmp_reason, false, 5, 0, NULL },
	{ "symbol", "SYMBOL",   48, COL_LEFT,  ips_c_sym,    ips_cmp_sym,    false, 8, 0, NULL },
};

static int ips_build(struct tui *t, struct pane *p)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v = p->tid >= 0 ? tui_find_vcpu(t, p->tid) : NULL;
	const struct sym_table *st;
	unsigned int *merged = NULL;
	struct model_ip_list l;
	struct ip_row *rows;
	char sym[512];
	size_t i;
	int ret = -1;

	p->nr = 0;
	if (!vm || (p->tid >= 0 && !v)) {
		/* the VM or thread went away: an empty pane */
		p->rows = calloc(1, sizeof(*rows));
		return p->rows ? 0 : -1;
	}
	if (model_scope_ips(&l, vm, v, t->ip_kind))
		goto out;
	st = sym_set_find(t->syms, vm->pid, vm->name);
	if (t->ip_by_sym && st) {
		/* g: a named IP counts at its symbol's start, so one symbol's IPs sum into one row */
		for (i = 0; i < l.nr; i++) {
			uint64_t off;

			if (sym_lookup(st, l.e[i].ip, &off))
				l.e[i].ip -= off;
		}
		merged = calloc(l.nr ? l.nr : 1, sizeof(*merged));
		if (!merged)
			goto out;
		l.nr = model_ips_sum(l.e, l.nr, merged);
	}
	p->rows = rows = calloc(l.nr ? l.nr : 1, sizeof(*rows));
	if (!rows)
		goto out;
	for (i = 0; i < l.nr; i++) {
		const struct ip_entry *e = &l.e[i];
		struct ip_row *w = &rows[p->nr++];

		w->ip = e->ip;
		w->count = e->count;
		w->err = e->err;
		w->pct = l.samples ? 100.0 * (double)e->count / (double)l.samples : 0;
		w->reason = e->reason_id;
		w->mode = e->mode;
		w->nips = merged ? merged[i] : 1;
		w->resolved = sym_ip(st, e->ip, !merged, sym, sizeof(sym));
		escape_text(sym, w->sym, sizeof(w->sym));
	}
	ret = 0;
out:
	free(merged);
	model_ip_list_free(&l);
	return ret;
}

static uint64_t ips_key(const void *r)
{
	const struct ip_row *w = r;

	/* an IP is one row per reason: the reason in the key too */
	return w->ip ^ ((uint64_t)(uint32_t)w->reason << 48) ^ (uint64_t)w->mode << 44;
}

static const char *ips_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct ip_row *w = r;
	char name[96];

	snprintf(buf, len, "0x%" PRIx64 " %s %s %s", w->ip, w->sym, kvm_guest_mode_label(w->mode),
		 t->ip_kind == IP_EXIT ? tui_reason_name(t, w->reason, name, sizeof(name)) : "");
	return buf;
}

static int ips_tab(struct tui *t)
{
	/* the cycle of a scope's panes ends here: back to its exit reasons */
	return tui_swap(t, PANE_REASONS);
}

static const char *ips_empty(const struct tui *t, const struct pane *p)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v = p->tid >= 0 ? tui_find_vcpu(t, p->tid) : NULL;
	struct model_ip_list l;
	uint64_t none = 0, exits = 0;

	memset(&l, 0, sizeof(l));
	/* the pane has no rows: its IP table is empty, and this is cheap */
	if (vm && (p->tid < 0 || v) && !model_scope_ips(&l, vm, v, t->ip_kind)) {
		none = l.none;
		exits = l.exits;
	}
	model_ip_list_free(&l);
	if (exits && none == exits)
		return "no guest IPs: the exit events of this kernel have no guest IP field";
	if (!exits)
		return "no guest IPs: they come with exit events (kvm_exit, kvm_guest_exit, kvm_s390_sie_exit), and none came yet";
	if (t->ip_kind == IP_TIME)
		return "no time samples: no asynchronous exit (external interrupt, timer) with a guest IP yet; t shows the exit sites";
	return "no exit sites: no synchronous exit with a guest IP yet; t shows the time samples";
}

static void ips_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v = p->tid >= 0 ? tui_find_vcpu(t, p->tid) : NULL;
	char name[MODEL_NAME_LEN * 4] = "?", who[160], id[16];
	uint64_t n = 0;
	bool have;
	size_t i;

	if (vm)
		escape_text(vm->name, name, sizeof(name));
	for (i = 0; i < p->nr; i++)
		n += ((const struct ip_row *)p->rows)[i].count;
	if (p->tid >= 0)
		snprintf(who, sizeof(who), "vCPU %s (tid %d) of VM %s",
			 tui_vcpu_id(v ? v->vcpu_id : -1, id, sizeof(id)), p->tid, name);
	else
		snprintf(who, sizeof(who), "VM %s (pid %d), all vCPUs", name, p->vm_pid);
	have = vm && sym_set_find(t->syms, vm->pid, vm->name);
	snprintf(buf, len, "Guest IPs of %s: %s, %" PRIu64 " since start%s; t: %s;%s Tab: reasons",
		 who, t->ip_kind == IP_TIME ? "time samples (asynchronous exits)" :
					      "exit sites (synchronous exits)", n,
		 !have ? ", no guest symbols" : t->ip_by_sym ? ", by symbol" : "",
		 t->ip_kind == IP_TIME ? "exit sites" : "time samples",
		 !have ? "" : t->ip_by_sym ? " g: by IP;" : " g: by symbol;");
}

const struct pane_ops pane_ips = {
	.name = "IPs",
	.cols = ips_cols,
	.nr_cols = sizeof(ips_cols) / sizeof(ips_cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct ip_row),
	.build = ips_build,
	.key = ips_key,
	.label = ips_label,
	.tab = ips_tab,
	.empty = ips_empty,
	.title = ips_title,
};
