// SPDX-License-Identifier: GPL-2.0
/*
 * The screen's history: for each VM and vCPU thread, its time-state
 * shares and exit rate in each of the last HISTORY_LEN snapshots, drawn
 * under the VMs and vCPUs panes (key H) as one sparkline per state, one
 * column per snapshot, newest on the right.  A trend reads faster from
 * a picture than from a column of numbers.
 *
 * Memory: one entry per VM and vCPU thread the model has (it bounds
 * those); an entry not in the model at a recording is dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/tree.h>

#include "history.h"
#include "model/model_scope.h"
#include "model/model_view.h"
#include "model/model_time.h"

#define SHARE_NONE	255	/* the state is not measured for it then */

struct hist_entry {
	RB_ENTRY(hist_entry) node;
	int64_t key;		/* VM: -pid - 1 (its pid may be 0: unknown); vCPU: tid */
	uint64_t gen;		/* the recording it was last written at */
	unsigned int head;	/* next slot */
	unsigned int count;	/* slots written, at most HISTORY_LEN */
	uint8_t share[HISTORY_LEN][VS_NR];	/* % of the snapshot, or SHARE_NONE */
	float rate[HISTORY_LEN];		/* exits per second (per snapshot if no time) */
};

static int entry_cmp(const struct hist_entry *a, const struct hist_entry *b)
{
	return (a->key > b->key) - (a->key < b->key);
}

RB_HEAD(hist_tree, hist_entry);
RB_GENERATE_STATIC(hist_tree, hist_entry, node, entry_cmp)

struct history {
	struct hist_tree entries;
	uint64_t gen;
	unsigned int snapshots;	/* recorded, for the strip's title */
};

static int64_t vm_key(int pid)
{
	return -(int64_t)pid - 1;
}

struct history *history_new(void)
{
	struct history *h = calloc(1, sizeof(*h));

	if (h)
		RB_INIT(&h->entries);
	return h;
}

void history_free(struct history *h)
{
	struct hist_entry *e, *n;

	if (!h)
		return;
	RB_FOREACH_SAFE(e, hist_tree, &h->entries, n) {
		RB_REMOVE(hist_tree, &h->entries, e);
		free(e);
	}
	free(h);
}

static struct hist_entry *entry(struct history *h, int64_t key)
{
	struct hist_entry k = { .key = key }, *e;

	e = RB_FIND(hist_tree, &h->entries, &k);
	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = key;
	RB_INSERT(hist_tree, &h->entries, e);
	return e;
}

/*
 * One snapshot of an entry: time in each state (have: bit per state
 * measured) of nr vCPUs over span ns, as model_scope_share defines the
 * shares everywhere; exits.
 */
static void push(struct history *h, struct hist_entry *e, const uint64_t *time,
		 unsigned int have, uint64_t span, unsigned int nr, uint64_t exits, double secs)
{
	struct model_scope sc;
	int j;

	memset(&sc, 0, sizeof(sc));
	memcpy(sc.time, time, sizeof(sc.time));
	sc.time_known = have;
	for (j = 0; j < VS_NR; j++) {
		double pct = model_scope_share(&sc, 1u << j, span, nr);

		if (pct < 0)
			e->share[e->head][j] = SHARE_NONE;
		else
			e->share[e->head][j] = (uint8_t)(pct > 100.0 ? 100 : pct + 0.5);
	}
	e->rate[e->head] = (float)(secs > 0 ? (double)exits / secs : (double)exits);
	e->head = (e->head + 1) % HISTORY_LEN;
	if (e->count < HISTORY_LEN)
		e->count++;
	e->gen = h->gen;
}

int history_record(struct history *h, const struct model *m, uint64_t start, uint64_t end,
		   double secs)
{
	uint64_t span = end > start ? end - start : 0;
	struct hist_entry *e, *n;
	const struct vcpu *v;
	const struct vm *vm;
	int j;

	h->gen++;
	h->snapshots++;
	MODEL_FOREACH_VM(vm, m) {
		uint64_t vt[VS_NR] = { 0 }, exits = 0;
		unsigned int have = ~0u;

		MODEL_FOREACH_VCPU(v, vm) {
			uint64_t t[VS_NR] = { 0 };
			unsigned int vh = 0;

			for (j = 0; j < VS_NR; j++) {
				const struct ctr *c = model_time_ctr(m, v, j);

				if (c) {
					t[j] = ctr_interval(c);
					vh |= 1u << j;
				}
				vt[j] += t[j];
			}
			have &= vh;
			exits += ctr_interval(&v->exits);
			e = entry(h, v->tid);
			if (!e)
				return -1;
			push(h, e, t, vh, span, 1, ctr_interval(&v->exits), secs);
		}
		e = entry(h, vm_key(vm->pid));
		if (!e)
			return -1;
		push(h, e, vt, have, span, vm->nr_vcpus, exits, secs);
	}
	/* what the model no longer has */
	RB_FOREACH_SAFE(e, hist_tree, &h->entries, n)
		if (e->gen != h->gen) {
			RB_REMOVE(hist_tree, &h->entries, e);
			free(e);
		}
	return 0;
}

/* Level 0..8 of a sparkline cell. */
static const char *const spark_utf8[9] = {
	" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
};
static const char spark_ascii[] = " .:-=+*%#";

static size_t cell(char *out, size_t len, size_t o, int level, bool utf8)
{
	const char *s = utf8 ? spark_utf8[level] : (char[2]){ spark_ascii[level], '\0' };
	size_t n = strlen(s);

	if (o + n + 1 > len)
		return o;
	memcpy(out + o, s, n);
	out[o + n] = '\0';
	return o + n;
}

int history_lines(const struct history *h, bool vm, int id, const char *what, const char *hint,
		  bool utf8, int width, char lines[][HISTORY_LINE], int max)
{
	static const char *const labels[VS_NR] = { "GUEST", "HOST", "VMM", "HALT", "WAIT" };
	struct hist_entry k = { .key = vm ? vm_key(id) : id }, *e;
	int n = 0, cols, first, i, j;
	double top = 0;
	size_t o;

	e = RB_FIND(hist_tree, (struct hist_tree *)&h->entries, &k);
	if (max < 1)
		return 0;
	if (!e || !e->count) {
		snprintf(lines[n++], HISTORY_LINE, "History of %s: nothing recorded yet%s", what, hint);
		return n;
	}
	/* label (8) + '|' + cells + '|' + the newest value (8) */
	cols = width - 18;
	if (cols > (int)e->count)
		cols = (int)e->count;
	if (cols < 1)
		cols = 1;
	first = (int)e->count - cols;
	snprintf(lines[n++], HISTORY_LINE,
		 "History of %s: the last %d snapshots, newest on the right (a full cell is 100%%)",
		 what, cols);
#define SLOT(i) ((e->head + HISTORY_LEN - e->count + (unsigned int)(i)) % HISTORY_LEN)
	for (j = 0; j < VS_NR && n < max; j++) {
		uint8_t last = e->share[SLOT(e->count - 1)][j];

		if (last == SHARE_NONE)
			continue;	/* not measured now: no line */
		o = (size_t)snprintf(lines[n], HISTORY_LINE, "%-8s|", labels[j]);
		for (i = first; i < (int)e->count; i++) {
			uint8_t s = e->share[SLOT(i)][j];

			o = s == SHARE_NONE ? cell(lines[n], HISTORY_LINE, o, 0, false) :
			    cell(lines[n], HISTORY_LINE, o, (s * 8 + 50) / 100, utf8);
		}
		snprintf(lines[n] + o, HISTORY_LINE - o, "| %3u%%", last);
		n++;
	}
	if (n < max) {
		for (i = first; i < (int)e->count; i++)
			if (e->rate[SLOT(i)] > top)
				top = e->rate[SLOT(i)];
		o = (size_t)snprintf(lines[n], HISTORY_LINE, "%-8s|", "EXITS/s");
		for (i = first; i < (int)e->count; i++) {
			double r = e->rate[SLOT(i)];
			int level = top > 0 ? (int)(r * 8 / top + 0.999) : 0;

			o = cell(lines[n], HISTORY_LINE, o, level > 8 ? 8 : level, utf8);
		}
		snprintf(lines[n] + o, HISTORY_LINE - o, "| %.0f (top %.0f)", e->rate[SLOT(e->count - 1)], top);
		n++;
	}
#undef SLOT
	return n;
}
