// SPDX-License-Identifier: GPL-2.0
/*
 * Stolen by: the threads that ran on the CPU while one vCPU thread waited
 * for it, this interval (model_steal.c), most time first, with the share
 * of its wait each took; the rest of the table as "other".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "tui_priv.h"
#include "model/model_steal.h"

struct thief_row {
	int tid;		/* -1: "other" */
	int pid;		/* 0: not known */
	uint64_t ns;
	double pct;		/* of the vCPU's wait given out */
	char who[320];
	int vm_pid;		/* another VM's thread: its VM, 0: none */
};

PANE_CMP(thieves, thief_row, ns)
PANE_CMP(thieves, thief_row, tid)
PANE_CMP(thieves, thief_row, pid)

static int thieves_cmp_who(const void *a, const void *b)
{
	return strcmp(((const struct thief_row *)a)->who, ((const struct thief_row *)b)->who);
}

static void thieves_c_time(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_fmt_time(t, (double)((const struct thief_row *)r)->ns, buf, len);
}

static void thieves_c_pct(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_fmt_pct(((const struct thief_row *)r)->pct, buf, len);
}

static void thieves_c_tid(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct thief_row *w = r;

	if (w->tid < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", w->tid);
}

static void thieves_c_pid(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct thief_row *w = r;

	if (w->pid)
		snprintf(buf, len, "%d", w->pid);
	else
		snprintf(buf, len, "-");
}

static void thieves_c_who(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct thief_row *)r)->who);
}

static const struct pane_col thieves_cols[] = {
	{ "time", "STOLEN", 9,  COL_RIGHT, thieves_c_time, thieves_cmp_ns,  true,  9, 0, NULL },
	{ "pct",  "% WAIT", 6,  COL_RIGHT, thieves_c_pct,  thieves_cmp_ns,  true,  8, 0, NULL },
	{ "tid",  "TID",    8,  COL_RIGHT, thieves_c_tid,  thieves_cmp_tid, false, 6, 0, NULL },
	{ "pid",  "PID",    8,  COL_RIGHT, thieves_c_pid,  thieves_cmp_pid, false, 5, 0, NULL },
	{ "who",  "WHO",    48, COL_LEFT,  thieves_c_who,  thieves_cmp_who, false, 7, 0, NULL },
};

static void thieves_fill(const struct tui *t, const struct model_thief *th, uint64_t total, struct thief_row *w)
{
	char name[MODEL_NAME_LEN * 4];
	struct model_thief_who who;

	model_thief_who(t->m, th, &who);
	w->tid = th->tid;
	w->pid = who.pid;
	w->ns = th->ns;
	w->pct = total ? 100.0 * (double)th->ns / (double)total : 0;
	if (who.vm) {
		w->vm_pid = who.vm->pid;
		escape_text(who.vm->name, name, sizeof(name));
		if (who.vcpu >= 0)
			snprintf(w->who, sizeof(w->who), "VM %s vCPU %d", name, who.vcpu);
		else
			snprintf(w->who, sizeof(w->who), "VM %s's VMM", name);
	} else {
		escape_text(th->tid ? who.comm : "idle (nothing ran)", name, sizeof(name));
		snprintf(w->who, sizeof(w->who), "%s", name);
	}
}

static int thieves_build(struct tui *t, struct pane *p)
{
	const struct vcpu *v = tui_find_vcpu(t, p->tid);
	const struct model_thief *th[MODEL_THIEVES_MAX];
	struct thief_row *rows;
	unsigned int i, n = 0;
	uint64_t rest = 0, total;

	p->nr = 0;
	if (v)
		n = model_steal_top(t->m, v, th, &rest);
	total = v ? model_steal_total(v) : 0;
	p->rows = rows = calloc(n + 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (i = 0; i < n; i++)
		thieves_fill(t, th[i], total, &rows[p->nr++]);
	if (rest) {
		struct thief_row *w = &rows[p->nr++];

		w->tid = -1;
		w->ns = rest;
		w->pct = total ? 100.0 * (double)rest / (double)total : 0;
		snprintf(w->who, sizeof(w->who), "other (thieves not kept: --thieves)");
	}
	return 0;
}

static uint64_t thieves_key(const void *r)
{
	return (uint64_t)(unsigned int)((const struct thief_row *)r)->tid;
}

static const char *thieves_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct thief_row *)r)->who);
	return buf;
}

/* Enter on another VM's thread: that VM's vCPUs */
static int thieves_enter(struct tui *t, const void *r)
{
	const struct thief_row *w = r;

	if (!w->vm_pid || !tui_find_vm(t, w->vm_pid))
		return 1;
	return tui_push(t, PANE_VCPUS, w->vm_pid, -1);
}

static const char *thieves_empty(const struct tui *t, const struct pane *p)
{
	return t->m->max_thieves ? "it did not wait for a CPU in this interval (or sched events are off)" :
				   "--thieves 0: no thieves are kept";
}

static void thieves_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct vcpu *v = tui_find_vcpu(t, p->tid);
	char id[16];

	snprintf(buf, len, "Stolen by: who ran on its CPU while vCPU %s (tid %d) waited for one; Enter: that VM",
		 tui_vcpu_id(v ? v->vcpu_id : -1, id, sizeof(id)), p->tid);
}

const struct pane_ops pane_thieves = {
	.name = "thieves",
	.cols = thieves_cols,
	.nr_cols = sizeof(thieves_cols) / sizeof(thieves_cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct thief_row),
	.build = thieves_build,
	.key = thieves_key,
	.label = thieves_label,
	.enter = thieves_enter,
	.empty = thieves_empty,
	.title = thieves_title,
};
