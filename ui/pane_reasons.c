// SPDX-License-Identifier: GPL-2.0
/* Exit reasons of one vCPU, or of a whole VM: counts and exit -> entry latency. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "model_scope.h"
#include "tui.h"

#define BAR_BUCKETS	8	/* decades from < 1 us to >= 1 s (in the source's unit) */

struct reason_row {
	int id;			/* reason id; events: REASON_MAX + index */
	char name[96];
	bool blocking;
	bool event;		/* another kvm event or a userspace exit: a count only */
	uint64_t count;
	uint64_t total;
	double pct;
	uint64_t samples;
	bool have_lat;		/* samples > 0 */
	uint64_t min;
	double mean;
	uint64_t p50;
	uint64_t p99;
	uint64_t max;
	unsigned char bar[BAR_BUCKETS];	/* 0..8: share of the samples per decade */
	/* with sched events (see "exit split"): time on a CPU, and off one */
	bool have_split;
	uint64_t hand_p50;
	uint64_t preempted;
	uint64_t blocked;
};

PANE_CMP(reason_row, count)
PANE_CMP(reason_row, total)
PANE_CMP(reason_row, pct)
PANE_CMP(reason_row, min)
PANE_CMP(reason_row, mean)
PANE_CMP(reason_row, p50)
PANE_CMP(reason_row, p99)
PANE_CMP(reason_row, max)
PANE_CMP(reason_row, hand_p50)
PANE_CMP(reason_row, preempted)
PANE_CMP(reason_row, blocked)

/* c_<field>(): a part of the exits' split, "-" without sched events */
#define SPLIT_CELL(field) \
	static void c_##field(const struct tui *t, const void *r, char *buf, size_t len) \
	{ \
		const struct reason_row *w = r; \
		tui_fmt_lat(t, w->have_split && w->have_lat, (double)w->field, buf, len); \
	}
SPLIT_CELL(hand_p50)
SPLIT_CELL(preempted)
SPLIT_CELL(blocked)

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct reason_row *)a)->name, ((const struct reason_row *)b)->name);
}

static void c_name(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct reason_row *w = r;

	snprintf(buf, len, "%s%s", w->name, w->blocking ? " (blocks)" : w->event ? " (event)" : "");
}

PANE_COUNT_CELL(reason_row, count, count)

PANE_RATE_CELL(reason_row, rate, count)

PANE_COUNT_CELL(reason_row, total, total)

static void c_pct(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct reason_row *w = r;

	if (w->event)
		snprintf(buf, len, "-");	/* not a share of the exits */
	else
		tui_fmt_pct(w->pct, buf, len);
}

PANE_LAT_CELL(reason_row, min)

PANE_LAT_CELL(reason_row, mean)

PANE_LAT_CELL(reason_row, p50)

PANE_LAT_CELL(reason_row, p99)

PANE_LAT_CELL(reason_row, max)

/* One character per decade, its height the share of samples there. */
static void c_bar(const struct tui *t, const void *r, char *buf, size_t len)
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

static const struct pane_col cols[] = {
	{ "reason",  "REASON",                 28, COL_LEFT,  c_name,  cmp_name,  false, 9, 0 },
	{ "count",   "COUNT",                   9, COL_RIGHT, c_count, cmp_count, true,  8, 0 },
	{ "rate",    "RATE/s",                  9, COL_RIGHT, c_rate,  cmp_count, true,  5, 0 },
	{ "pct",     "%",                       6, COL_RIGHT, c_pct,   cmp_pct,   true,  7, 0 },
	{ "total",   "TOTAL",                  10, COL_RIGHT, c_total, cmp_total, true,  3, 0 },
	{ "min",     "MIN",                     8, COL_RIGHT, c_min,   cmp_min,   true,  2, 0 },
	{ "mean",    "MEAN",                    8, COL_RIGHT, c_mean,  cmp_mean,  true,  6, 0 },
	{ "p50",     "P50",                     8, COL_RIGHT, c_p50,   cmp_p50,   true,  4, 0 },
	{ "p99",     "P99",                     8, COL_RIGHT, c_p99,   cmp_p99,   true,  6, 0 },
	{ "max",     "MAX",                     8, COL_RIGHT, c_max,   cmp_max,   true,  4, 0 },
	{ "hand_p50", "HAND P50",               8, COL_RIGHT, c_hand_p50, cmp_hand_p50, true, 5, TIME_SPLIT },
	{ "preempted", "PREEMPT",               8, COL_RIGHT, c_preempted, cmp_preempted, true, 5, TIME_SPLIT },
	{ "blocked", "BLOCKED",                 8, COL_RIGHT, c_blocked, cmp_blocked, true, 4, TIME_SPLIT },
	{ "hist",    "1us 1ms 1s",       BAR_BUCKETS + 2, COL_LEFT, c_bar, NULL, false, 1, 0 },
};

static void fill_bar(struct reason_row *w, const struct hist *h)
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
static int grow(struct pane *p, struct reason_row **rows)
{
	struct reason_row *n = reallocarray(p->rows, p->nr + 1, sizeof(*n));

	if (!n)
		return -1;
	memset(&n[p->nr], 0, sizeof(*n));
	p->rows = *rows = n;
	return 0;
}

static int build(struct tui *t, struct pane *p)
{
	const struct model_reason_row **sorted = NULL;
	struct model_scope s;
	struct reason_row *rows;
	unsigned int i, n;
	int ret;

	memset(&s, 0, sizeof(s));
	p->nr = 0;
	if (p->tid >= 0) {
		const struct vcpu *v = tui_find_vcpu(t, p->tid);

		if (!v)
			goto gone;
		ret = model_scope_vcpu(&s, t->m, v, t->cumulative);
	} else {
		const struct vm *vm = tui_find_vm(t, p->vm_pid);

		if (!vm)
			goto gone;
		ret = model_scope_vm(&s, t->m, vm, t->cumulative);
	}
	if (ret)
		goto out;
	ret = -1;
	sorted = calloc(s.nr ? s.nr : 1, sizeof(*sorted));
	p->rows = rows = calloc(s.nr ? s.nr : 1, sizeof(*rows));
	if (!sorted || !rows)
		goto out;
	n = model_scope_sorted(&s, sorted);
	for (i = 0; i < n; i++) {
		const struct model_reason_row *m = sorted[i];
		struct reason_row *w = &rows[p->nr++];
		char raw[96];

		w->id = m->id;
		reason_label(m->r, raw, sizeof(raw));
		escape_text(raw, w->name, sizeof(w->name));
		w->blocking = m->r->blocking;
		w->count = m->count;
		w->total = m->total;
		w->pct = s.exits ? 100.0 * (double)m->count / (double)s.exits : 0;
		w->samples = m->lat.samples;
		w->have_lat = w->samples > 0;
		w->min = m->lat.samples ? m->lat.min : 0;
		w->mean = hist_mean(&m->lat);
		w->p50 = hist_quantile(&m->lat, 0.5);
		w->p99 = hist_quantile(&m->lat, 0.99);
		w->max = m->lat.max;
		w->have_split = s.time_known & TIME_SPLIT;
		w->hand_p50 = hist_quantile(&m->handling, 0.5);
		w->preempted = m->preempted;
		w->blocked = m->blocked;
		if (w->samples)
			fill_bar(w, &m->lat);
	}
	/* then the other events and the exits to userspace: counts, no latency */
	for (i = 0; i < (unsigned int)t->m->nr_other; i++) {
		struct reason_row *w;

		if (!s.other[i])
			continue;
		if (grow(p, &rows))
			goto out;
		w = &rows[p->nr++];
		w->id = REASON_MAX + (int)i;
		w->event = true;
		escape_text(t->m->names->other[i], w->name, sizeof(w->name));
		w->count = s.other[i];
		w->total = s.other_total[i];
	}
	for (i = 0; i < UEXIT_MAX; i++) {
		struct reason_row *w;
		char name[NAMES_UEXIT_LEN * 4];

		if (!s.uexit[i])
			continue;
		if (grow(p, &rows))
			goto out;
		w = &rows[p->nr++];
		w->id = REASON_MAX + DECODE_OTHER_MAX + (int)i;
		w->event = true;
		snprintf(w->name, sizeof(w->name), "userspace %s",
			 escape_text(names_uexit(t->m->names, (int)i), name, sizeof(name)));
		w->count = s.uexit[i];
		w->total = s.uexit_total[i];
	}
	ret = 0;
out:
	free(sorted);
	model_scope_free(&s);
	return ret;
gone:
	/* the VM or thread went away: an empty pane */
	p->rows = calloc(1, sizeof(*rows));
	return p->rows ? 0 : -1;
}

static uint64_t key(const void *r)
{
	return (uint64_t)((const struct reason_row *)r)->id;
}

static const char *label(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct reason_row *)r)->name);
	return buf;
}

static int enter(struct tui *t, const void *r)
{
	const struct pane *p = &t->stack[t->depth - 1];

	if (p->tid < 0)
		return 1;	/* recent exits are per vCPU */
	return tui_push(t, &pane_recent, p->vm_pid, p->tid);
}

static int tab(struct tui *t)
{
	/* a vCPU's: its recent exits, then its guest IPs; a VM's: its guest IPs */
	return tui_swap(t, t->stack[t->depth - 1].tid < 0 ? &pane_ips : &pane_recent);
}

static void title(const struct tui *t, const struct pane *p, char *buf, size_t len)
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

const struct pane_ops pane_reasons = {
	.name = "reasons",
	.cols = cols,
	.nr_cols = sizeof(cols) / sizeof(cols[0]),
	.default_sort = 1,
	.row_size = sizeof(struct reason_row),
	.build = build,
	.key = key,
	.label = label,
	.enter = enter,
	.tab = tab,
	.title = title,
};
