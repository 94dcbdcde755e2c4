// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* qsort_r, strcasestr */
/*
 * The stack of panes (VMs -> vCPUs -> reasons -> recent exits): each
 * pane's rows, their order and the selection; opening a pane, going
 * back.  Below every pane, the keys and the drawing: a pane opens
 * another by its id (enum pane_id) through the table the screen was
 * given (struct tui's panes, tui_panes.c), never by naming it.
 */
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "tui_priv.h"
#include "model/model_view.h"

struct pane *tui_top_pane(struct tui *t)
{
	return &t->stack[t->depth - 1];
}

void *tui_row_at(const struct pane *p, size_t i)
{
	return (char *)p->rows + i * p->ops->row_size;
}

struct pane_node *tui_row_node(const struct pane *p, const void *r)
{
	return p->ops->node ? (struct pane_node *)((char *)r + p->ops->node) : NULL;
}

const void *tui_row_parent(const struct pane *p, const void *r)
{
	const struct pane_node *n = tui_row_node(p, r);

	return n && n->parent >= 0 && (size_t)n->parent < p->nr ? tui_row_at(p, (size_t)n->parent) : NULL;
}

/* The order of rows x and y by the sort column (then their keys), in the pane's direction. */
static int order_rows(const struct pane *p, const void *x, const void *y)
{
	const struct pane_col *c = &p->ops->cols[p->sort];
	bool hx = tui_col_has(p->ops, x, p->sort), hy = tui_col_has(p->ops, y, p->sort);
	int r;

	/* an unknown value ("-") sorts last, whichever the order */
	if (hx != hy)
		return hx ? -1 : 1;
	r = tui_col_cmp(p->ops, x, y, p->sort);
	if (!r) {
		uint64_t kx = p->ops->key(x), ky = p->ops->key(y);

		r = kx < ky ? -1 : kx > ky;
	}
	/* ties too, so I gives exactly the reverse */
	return c->descending != p->invert ? -r : r;
}

/* Whether row r has no figure of its own in column col (a tree's child: pane_val.blank). */
static bool order_blank(const struct pane *p, const void *r, int col)
{
	return p->ops->cols[col].field &&
	       ((const struct pane_val *)((const char *)r + p->ops->vals))[col].blank;
}

/*
 * A tree's order: its top rows by the sort column, each followed by its
 * children, by the sort column's figure of theirs where they have one,
 * else by their rank (a vCPU's id) up.  A flat pane's rows are all top.
 */
static int order_cmp(const void *a, const void *b, void *arg)
{
	const struct pane *p = arg;
	const void *x = tui_row_at(p, *(const size_t *)a), *y = tui_row_at(p, *(const size_t *)b);
	const void *px = tui_row_parent(p, x), *py = tui_row_parent(p, y);
	long rx, ry;

	if ((px ? px : x) != (py ? py : y))
		return order_rows(p, px ? px : x, py ? py : y);
	if (!px || !py)
		return !px ? -1 : 1;	/* the parent first */
	if (!order_blank(p, x, p->sort) && !order_blank(p, y, p->sort))
		return order_rows(p, x, y);
	rx = tui_row_node(p, x)->rank;
	ry = tui_row_node(p, y)->rank;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return p->ops->key(x) < p->ops->key(y) ? -1 : p->ops->key(x) > p->ops->key(y);
}

/* A tree's children each told whether it is the last of its parent's shown (its glyph). */
static void order_mark_last(struct pane *p)
{
	size_t i;

	for (i = 0; p->ops->node && i < p->nr_order; i++) {
		const void *r = tui_row_at(p, p->order[i]);
		const void *up = tui_row_parent(p, r);

		tui_row_node(p, r)->last = up && (i + 1 == p->nr_order ||
						  tui_row_parent(p, tui_row_at(p, p->order[i + 1])) != up);
	}
}

void tui_stat_add(struct tui_stat *s, uint64_t t0)
{
	uint64_t d = clock_mono_ns() - t0;

	s->n++;
	s->sum_ns += d;
	if (d > s->max_ns)
		s->max_ns = d;
}

bool tui_pane_is(const struct tui *t, const struct pane *p, enum pane_id id)
{
	return p->ops == t->panes[id];
}

const void *tui_selected(const struct tui *t)
{
	const struct pane *p = &t->stack[t->depth - 1];

	return t->depth && p->nr_order ? tui_row_at(p, p->order[p->sel]) : NULL;
}

/* Filter and sort the rows; the selection stays on the same key. */
void tui_pane_order(struct tui *t, struct pane *p)
{
	uint64_t t0 = t->stats_file ? clock_mono_ns() : 0;
	enum pane_id id = tui_pane_id(t, p);
	char buf[512];
	size_t i;

	/* the sort is the pane's setting: the next pane of its kind opens so, W writes it */
	if (id < PANE_NR) {
		t->set[id].sort = p->sort;
		t->set[id].invert = p->invert;
	}
	p->nr_order = 0;
	for (i = 0; i < p->nr; i++) {
		if (t->filter[0] && !strcasestr(p->ops->label(t, tui_row_at(p, i), buf, sizeof(buf)), t->filter))
			continue;
		/* i: a row without exits in the interval is left out */
		if (t->hide_idle && tui_row_idle(p->ops, tui_row_at(p, i)))
			continue;
		p->order[p->nr_order++] = i;
	}
	qsort_r(p->order, p->nr_order, sizeof(*p->order), order_cmp, p);
	order_mark_last(p);
	if (p->have_sel) {
		for (i = 0; i < p->nr_order; i++)
			if (p->ops->key(tui_row_at(p, p->order[i])) == p->sel_key) {
				p->sel = i;
				break;
			}
	}
	if (p->sel >= p->nr_order)
		p->sel = p->nr_order ? p->nr_order - 1 : 0;
	if (t->stats_file)
		tui_stat_add(&t->st_sort, t0);
}

void tui_pane_remember(struct pane *p)
{
	p->have_sel = p->nr_order > 0;
	if (p->have_sel)
		p->sel_key = p->ops->key(tui_row_at(p, p->order[p->sel]));
}

void tui_pane_select(struct pane *p, long i)
{
	if (i < 0 || !p->nr_order)
		i = 0;
	else if ((size_t)i >= p->nr_order)
		i = (long)p->nr_order - 1;
	p->sel = (size_t)i;
	tui_pane_remember(p);
}

bool tui_pane_find(struct tui *t, struct pane *p, const char *s, int dir)
{
	size_t n = p->nr_order, i, k;
	char buf[512];

	if (!s[0] || !n)
		return false;
	for (i = 0; i < n; i++) {
		/* from the top; or round from the row after (before) the selection */
		k = !dir ? i : dir > 0 ? (p->sel + 1 + i) % n : (p->sel + n - 1 - i) % n;
		if (strcasestr(p->ops->label(t, tui_row_at(p, p->order[k]), buf, sizeof(buf)), s)) {
			tui_pane_select(p, (long)k);
			return true;
		}
	}
	return false;
}

enum pane_id tui_pane_id(const struct tui *t, const struct pane *p)
{
	int id;

	for (id = 0; id < PANE_NR; id++)
		if (p->ops == t->panes[id])
			break;
	return (enum pane_id)id;
}

void tui_pane_free_rows(struct pane *p)
{
	free(p->rows);
	free(p->order);
	p->rows = NULL;
	p->order = NULL;
	p->nr = p->nr_order = 0;
}

static int build_pane(struct tui *t, struct pane *p)
{
	if (p->rows)
		tui_pane_remember(p);
	tui_pane_free_rows(p);
	if (!t->m)
		return 0;
	if (p->ops->build(t, p))
		return -1;
	tui_cols_seen(p);
	p->order = calloc(p->nr ? p->nr : 1, sizeof(*p->order));
	if (!p->order)
		return -1;
	tui_pane_order(t, p);
	return 0;
}

int tui_pane_build(struct tui *t, struct pane *p)
{
	return build_pane(t, p);
}

/* The VM whose detail the top pane shows, for the driver to read it one thread at a time (view.h). */
static void detail_shown(struct tui *t)
{
	const struct pane *p = t->depth ? &t->stack[t->depth - 1] : NULL;

	t->view.detail_pid = p && tui_pane_is(t, p, PANE_CONTEXT) ? p->vm_pid : 0;
}

/*
 * The span the figures are of: the snapshot's interval, or cumulative (S)
 * all the time its counts cover, since the start or the reset (a
 * recording's: from its start to the end of the interval shown).
 */
static void stack_span(struct tui *t)
{
	t->start = t->cumulative ? t->since : t->snap_start;
	t->secs = t->ns && t->end > t->start ? (double)(t->end - t->start) / 1e9 : 0;
}

/* The header's host figures, taken with the rows so that they agree (and Z freezes both). */
static void stack_head(struct tui *t)
{
	const struct model *m = t->m;

	t->head.lost = t->cumulative ? m->lost_events.total : ctr_interval(&m->lost_events);
	t->head.exits = t->cumulative ? m->exits.total : ctr_interval(&m->exits);
	t->head.events = t->cumulative ? m->events.total : ctr_interval(&m->events);
	t->head.total = m->exits.total;
	t->head.dropped = m->dropped.total;
	t->head.nr_vms = model_nr_vms(m);
}

int tui_build_all(struct tui *t)
{
	uint64_t t0 = t->stats_file ? clock_mono_ns() : 0;
	int i;

	stack_span(t);
	stack_head(t);
	for (i = 0; i < t->depth; i++)
		if (build_pane(t, &t->stack[i]))
			return -1;
	if (t->stats_file)
		tui_stat_add(&t->st_build, t0);
	detail_shown(t);
	/* a test's dump of what is drawn: a recording's figures once read */
	if (t->dump && !t->progress[0] &&
	    t->dump_print(t->dump, t->m, t->findings, t->start, t->end, t->cumulative))
		return -1;
	return 0;
}

int tui_push(struct tui *t, enum pane_id id, int vm_pid, int tid)
{
	return tui_push_obj(t, id, vm_pid, tid, -1, NULL);
}

/*
 * Paused (Z, live), a pane of figures is not opened: it would be built
 * from the model as it is now, not from the snapshot shown.  Says so.
 */
static bool stack_paused(struct tui *t, enum pane_id id)
{
	if (!t->live || !t->paused || !t->depth || id == PANE_HELP || id == PANE_SETUP)
		return false;
	snprintf(t->msg, sizeof(t->msg), "paused: the figures shown stay until Z resumes, then it opens");
	return true;
}

int tui_push_obj(struct tui *t, enum pane_id id, int vm_pid, int tid, int reason, const struct pane_obj *obj)
{
	if (stack_paused(t, id))
		return 0;
	const struct pane_ops *ops = t->panes[id];
	bool invert;
	struct pane *p;
	int sort;

	if (t->depth == TUI_STACK)
		return 1;
	if (t->depth)
		tui_pane_remember(tui_top_pane(t));
	p = &t->stack[t->depth++];
	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->sort = !t->ns && ops->default_sort_cycles ? ops->default_sort_cycles : ops->default_sort;
	/* the pane's settings: --sort, the settings file, its last sort this session */
	sort = tui_cols_sort(t, ops, &invert);
	if (sort >= 0 && tui_col_sorts(&ops->cols[sort])) {
		p->sort = sort;
		p->invert = invert;
	}
	p->vm_pid = vm_pid;
	p->tid = tid;
	p->reason = reason;
	if (obj)
		p->obj = *obj;
	t->filter[0] = '\0';
	detail_shown(t);
	return build_pane(t, p);
}

int tui_swap(struct tui *t, enum pane_id id)
{
	struct pane *p = tui_top_pane(t);
	int vm_pid = p->vm_pid, tid = p->tid;

	if (stack_paused(t, id))
		return 0;
	tui_pane_free_rows(p);
	t->depth--;
	return tui_push(t, id, vm_pid, tid);
}

void tui_pop(struct tui *t)
{
	if (t->depth <= 1)
		return;
	tui_pane_free_rows(tui_top_pane(t));
	t->depth--;
	t->filter[0] = '\0';
	detail_shown(t);
	tui_pane_order(t, tui_top_pane(t));
}
