// SPDX-License-Identifier: GPL-2.0
/* Exit reasons of one vCPU, or of a whole VM: counts and exit -> entry latency. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/model_fields.h"
#include "model/model_scope.h"
#include "tui_priv.h"

#define BAR_BUCKETS	8	/* decades from < 1 us to >= 1 s (in the source's unit) */

/* The pane's columns: reason fields by name (model_fields.h), the rate and the bar its own. */
enum {
	REASONS_REASON, REASONS_COUNT, REASONS_RATE, REASONS_PCT, REASONS_TIME_PCT, REASONS_TOTAL, REASONS_MIN,
	REASONS_MEAN, REASONS_P50, REASONS_P99, REASONS_MAX, REASONS_HAND_P50, REASONS_PREEMPTED,
	REASONS_BLOCKED, REASONS_BAR, REASONS_NR_COLS
};

struct reason_row {
	int id;			/* reason id; events: REASON_MAX + index */
	char name[96];
	bool blocking;
	bool event;		/* another kvm event or a userspace exit: a count only */
	uint64_t count;
	uint64_t samples;	/* latency samples: the split has none without */
	bool have_split;	/* with sched events (see "exit split") */
	struct pane_val val[REASONS_NR_COLS];	/* the field columns' values */
	unsigned char bar[BAR_BUCKETS];	/* 0..8: share of the samples per decade */
};

static int reasons_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct reason_row *)a)->name, ((const struct reason_row *)b)->name);
}

static void reasons_c_name(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct reason_row *w = r;

	snprintf(buf, len, "%s%s", w->name, w->blocking ? " (blocks)" : w->event ? " (event)" : "");
}

PANE_CMP(reasons, reason_row, count)

PANE_RATE_CELL(reasons, reason_row, rate, count)

/* One character per decade, its height the share of samples there. */
static void reasons_c_bar(const struct tui *t, const void *r, char *buf, size_t len)
{
	static const char *const utf8[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584",
					    "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*##";
	const struct reason_row *w = r;
	size_t o = 0;
	int i;

	buf[0] = '\0';
	if (!w->samples || !t->ns)
		return;
	for (i = 0; i < BAR_BUCKETS; i++) {
		const char *c = t->utf8 ? utf8[w->bar[i]] : (char[2]){ ascii[w->bar[i]], 0 };
		size_t n = strlen(c);

		if (o + n + 1 > len)
			break;
		memcpy(buf + o, c, n);
		o += n;
	}
	buf[o] = '\0';
}

static const struct pane_col reasons_cols[REASONS_NR_COLS] = {
	[REASONS_REASON] =    { "reason",       "REASON",     28,              COL_LEFT,  reasons_c_name, reasons_cmp_name,  false, 9, 0,          NULL },
	[REASONS_COUNT] =     { "count",        NULL,         9,               COL_RIGHT, NULL,           NULL,              true,  8, 0,          "count" },
	/* the screen's own rate format (tui_fmt_rate()); no seconds (a TSC recording): not shown, COUNT is */
	[REASONS_RATE] =      { "count_per_s",  NULL,         9,               COL_RIGHT, reasons_c_rate, reasons_cmp_count, true,  5, COL_NS,     "count_per_s" },
	[REASONS_PCT] =       { "pct",          NULL,         6,               COL_RIGHT, NULL,           NULL,              true,  7, 0,          "pct" },
	[REASONS_TIME_PCT] =  { "latency_sum_pct", NULL,     6,               COL_RIGHT, NULL,           NULL,              true,  3, 0,          "latency_sum_pct" },
	[REASONS_TOTAL] =     { "total",        NULL,         10,              COL_RIGHT, NULL,           NULL,              true,  3, 0,          "total" },
	[REASONS_MIN] =       { "latency_min",          NULL,         8,               COL_RIGHT, NULL,           NULL,              true,  2, 0,          "latency_min" },
	[REASONS_MEAN] =      { "latency_mean",         NULL,         8,               COL_RIGHT, NULL,           NULL,              true,  6, 0,          "latency_mean" },
	[REASONS_P50] =       { "latency_p50",          NULL,         8,               COL_RIGHT, NULL,           NULL,              true,  4, 0,          "latency_p50" },
	[REASONS_P99] =       { "latency_p99",          NULL,         8,               COL_RIGHT, NULL,           NULL,              true,  6, 0,          "latency_p99" },
	[REASONS_MAX] =       { "latency_max",          NULL,         8,               COL_RIGHT, NULL,           NULL,              true,  4, 0,          "latency_max" },
	[REASONS_HAND_P50] =  { "handling_p50", NULL,         8,               COL_RIGHT, NULL,           NULL,              true,  5, TIME_SPLIT, "handling_p50" },
	[REASONS_PREEMPTED] = { "preempted_seconds",  NULL,         9,               COL_RIGHT, NULL,           NULL,              true,  5, TIME_SPLIT, "preempted_seconds" },
	[REASONS_BLOCKED] =   { "blocked_seconds",    NULL,         8,               COL_RIGHT, NULL,           NULL,              true,  4, TIME_SPLIT, "blocked_seconds" },
	[REASONS_BAR] =       { "hist",         "1us 1ms 1s", BAR_BUCKETS + 2, COL_LEFT,  reasons_c_bar,  NULL,              false, 1, 0,          NULL },
};

/* Every field column of w from reason row m of its scope. */
static void reasons_fill_fields(struct reason_row *w, const struct model_reason_row *m)
{
	const struct model_row row = { .r = m };
	int i;

	tui_cols_fill(reasons_cols, REASONS_NR_COLS, &row, w->val);
	/* the split of exits that have no latency sample is not shown either */
	for (i = REASONS_HAND_P50; i <= REASONS_BLOCKED; i++)
		w->val[i].has = w->val[i].has && w->have_split && w->samples;
}

/* An event's row: a count and a total, nothing else. */
static void reasons_fill_event(struct reason_row *w, uint64_t count, uint64_t total)
{
	w->event = true;
	w->count = count;
	w->val[REASONS_COUNT].v.u = count;
	w->val[REASONS_TOTAL].v.u = total;
	w->val[REASONS_COUNT].has = w->val[REASONS_TOTAL].has = true;
}

static void reasons_fill_bar(struct reason_row *w, const struct hist *h)
{
	/* upper bounds of the decades, in ns: <1us, <10us ... <1s, >=1s */
	static const double edge[BAR_BUCKETS - 1] = { 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	unsigned int n[BAR_BUCKETS] = { 0 }, most = 0;
	int i, q, b;

	/* 64 quantiles place the samples in decades well enough for a bar */
	for (q = 0; q < 64; q++) {
		double v = (double)hist_quantile(h, (q + 0.5) / 64.0);

		for (b = 0; b < BAR_BUCKETS - 1 && v >= edge[b]; b++)
			;
		n[b]++;
	}
	for (i = 0; i < BAR_BUCKETS; i++)
		if (n[i] > most)
			most = n[i];
	for (i = 0; i < BAR_BUCKETS; i++)
		w->bar[i] = most ? (unsigned char)((n[i] * 8 + most - 1) / most) : 0;
}

/* One more row: rows hold the exit reasons, the events come after. */
static int reasons_grow(struct pane *p, struct reason_row **rows)
{
	struct reason_row *n = reallocarray(p->rows, p->nr + 1, sizeof(*n));

	if (!n)
		return -1;
	memset(&n[p->nr], 0, sizeof(*n));
	p->rows = *rows = n;
	return 0;
}

/* The rows of the scope's exit reasons, most exits first: 0, or -1 (no memory). */
static int reasons_build_reasons(struct pane *p, const struct model_scope *sc)
{
	const struct model_reason_row **sorted = calloc(sc->nr ? sc->nr : 1, sizeof(*sorted));
	struct reason_row *rows = calloc(sc->nr ? sc->nr : 1, sizeof(*rows));
	unsigned int i, n;

	p->rows = rows;
	if (!sorted || !rows) {
		free(sorted);
		return -1;
	}
	n = model_scope_sorted(sc, sorted);
	for (i = 0; i < n; i++) {
		const struct model_reason_row *m = sorted[i];
		struct reason_row *w = &rows[p->nr++];
		char raw[96];

		w->id = m->id;
		reason_label(m->r, raw, sizeof(raw));
		escape_text(raw, w->name, sizeof(w->name));
		w->blocking = m->r->blocking;
		w->count = m->count;
		w->samples = m->lat.samples;
		w->have_split = sc->time_known & TIME_SPLIT;
		reasons_fill_fields(w, m);
		if (w->samples)
			reasons_fill_bar(w, &m->lat);
	}
	free(sorted);
	return 0;
}

/* Then the other events and the exits to userspace: counts, no latency.  0, or -1. */
static int reasons_build_events(struct tui *t, struct pane *p, const struct model_scope *sc)
{
	struct reason_row *rows = p->rows, *w;
	char name[NAMES_UEXIT_LEN * 4];
	unsigned int i;

	for (i = 0; i < (unsigned int)t->m->nr_other; i++) {
		if (!sc->other[i])
			continue;
		if (reasons_grow(p, &rows))
			return -1;
		w = &rows[p->nr++];
		w->id = REASON_MAX + (int)i;
		escape_text(t->m->names->other[i], w->name, sizeof(w->name));
		reasons_fill_event(w, sc->other[i], sc->other_total[i]);
	}
	for (i = 0; i < UEXIT_MAX; i++) {
		if (!sc->uexit[i])
			continue;
		if (reasons_grow(p, &rows))
			return -1;
		w = &rows[p->nr++];
		w->id = REASON_MAX + DECODE_OTHER_MAX + (int)i;
		snprintf(w->name, sizeof(w->name), "userspace %s",
			 escape_text(names_uexit(t->m->names, (int)i), name, sizeof(name)));
		reasons_fill_event(w, sc->uexit[i], sc->uexit_total[i]);
	}
	return 0;
}

static int reasons_build(struct tui *t, struct pane *p)
{
	const struct vcpu *v = p->tid >= 0 ? tui_find_vcpu(t, p->tid) : NULL;
	const struct vm *vm = p->tid < 0 ? tui_find_vm(t, p->vm_pid) : NULL;
	struct model_scope sc;
	int ret;

	memset(&sc, 0, sizeof(sc));
	p->nr = 0;
	if (!v && !vm) {
		/* the VM or thread went away: an empty pane */
		p->rows = calloc(1, sizeof(struct reason_row));
		return p->rows ? 0 : -1;
	}
	ret = v ? model_scope_vcpu(&sc, t->m, v, t->cumulative) : model_scope_vm(&sc, t->m, vm, t->cumulative);
	if (!ret)
		ret = reasons_build_reasons(p, &sc) ?: reasons_build_events(t, p, &sc);
	model_scope_free(&sc);
	return ret;
}

static uint64_t reasons_key(const void *r)
{
	return (uint64_t)((const struct reason_row *)r)->id;
}

static const char *reasons_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct reason_row *)r)->name);
	return buf;
}

/* Enter on a reason: what its exits touched (the events' rows have no objects). */
static int reasons_enter(struct tui *t, const void *r)
{
	const struct pane *p = &t->stack[t->depth - 1];
	const struct reason_row *w = r;

	if (w->event)
		return 1;
	return tui_push_obj(t, PANE_OBJECTS, p->vm_pid, p->tid, w->id, NULL);
}

static int reasons_tab(struct tui *t)
{
	/* a vCPU's: its recent exits, then its guest IPs; a VM's: its guest IPs */
	return tui_swap(t, t->stack[t->depth - 1].tid < 0 ? PANE_IPS : PANE_RECENT);
}

static void reasons_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	char name[MODEL_NAME_LEN * 4] = "?", id[16];
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	const struct vcpu *v = p->tid >= 0 ? tui_find_vcpu(t, p->tid) : NULL;

	if (vm)
		escape_text(vm->name, name, sizeof(name));
	if (p->tid >= 0)
		snprintf(buf, len, "Exit reasons of vCPU %s (tid %d) of VM %s: latency is exit -> next entry; Tab: recent exits",
			 tui_vcpu_id(v ? v->vcpu_id : -1, id, sizeof(id)), p->tid, name);
	else
		snprintf(buf, len, "Exit reasons of VM %s (pid %d), all vCPUs: latency is exit -> next entry; Tab: guest IPs",
			 name, p->vm_pid);
}

/* Why no reason is listed: the VM or thread went, or it had no exit and no KVM event in the span shown. */
static const char *reasons_empty(const struct tui *t, const struct pane *p)
{
	if (p->tid >= 0 ? !tui_find_vcpu(t, p->tid) : !tui_find_vm(t, p->vm_pid))
		return p->tid >= 0 ? "the vCPU thread is gone" : "the VM is gone";
	if (t->cumulative)
		return "no exit and no KVM event since the start";
	return t->live || t->interval > 0 ? "no exit and no KVM event in this interval" :
					    "no exit and no KVM event in the recording";
}

const struct pane_ops pane_reasons = {
	.name = "reasons",
	.cols = reasons_cols,
	.nr_cols = sizeof(reasons_cols) / sizeof(reasons_cols[0]),
	.default_sort = 1,
	.row_size = sizeof(struct reason_row),
	.build = reasons_build,
	.key = reasons_key,
	.label = reasons_label,
	.enter = reasons_enter,
	.tab = reasons_tab,
	.title = reasons_title,
	.empty = reasons_empty,
	.busy = "count",
	.vals = offsetof(struct reason_row, val),
};

/* the screen keeps room for TUI_COLS columns a pane (tui.h) */
_Static_assert(REASONS_NR_COLS <= TUI_COLS, "more columns than TUI_COLS");
