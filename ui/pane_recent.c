// SPDX-License-Identifier: GPL-2.0
/* The recent exits of one vCPU, from its ring (--ring N), newest first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/objects.h"
#include "tui_priv.h"
#include "model/model_view.h"

struct recent_row {
	uint64_t seq;		/* 0 = the oldest exit still in the ring */
	uint64_t time;
	uint64_t ip;
	uint64_t latency;
	uint64_t info1;
	uint64_t info2;
	int ninfo;
	int mode;
	int reason;
	int cpu;
};

PANE_CMP(recent, recent_row, seq)
PANE_CMP(recent, recent_row, ip)
PANE_CMP(recent, recent_row, latency)
PANE_CMP(recent, recent_row, reason)
PANE_CMP(recent, recent_row, cpu)
PANE_CMP(recent, recent_row, info1)
PANE_CMP(recent, recent_row, mode)

static void recent_c_time(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;
	uint64_t first = t->m->first_time;

	/* seconds since the start of the trace (or of the recording) */
	if (t->ns)
		snprintf(buf, len, "%.6f", w->time >= first ? (double)(w->time - first) / 1e9 : 0.0);
	else
		snprintf(buf, len, "%" PRIu64, w->time >= first ? w->time - first : 0);
}

static void recent_c_cpu(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%d", ((const struct recent_row *)r)->cpu);
}

static void recent_c_reason(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_reason_name(t, ((const struct recent_row *)r)->reason, buf, len);
}

static void recent_c_ip(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, ((const struct recent_row *)r)->ip);
}

static void recent_c_lat(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;

	if (w->latency == MODEL_LAT_NONE)
		snprintf(buf, len, "pending");
	else
		tui_fmt_time(t, (double)w->latency, buf, len);
}

/* The exit's arch detail in hex, as the kernel prints it: x86 "info1 info2" ... */
static void recent_c_info(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;

	if (w->ninfo >= 2)
		snprintf(buf, len, "%" PRIx64 " %" PRIx64, w->info1, w->info2);
	else if (w->ninfo == 1)
		snprintf(buf, len, "%" PRIx64, w->info1);
	else
		snprintf(buf, len, "-");
}

static void recent_c_mode(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", kvm_guest_mode_label(((const struct recent_row *)r)->mode));
}

static const struct pane_col recent_cols[] = {
	{ "time",    "TIME s",   14, COL_RIGHT, recent_c_time,   recent_cmp_seq,     true,  9, 0, NULL },
	{ "cpu",     "CPU",      4,  COL_RIGHT, recent_c_cpu,    recent_cmp_cpu,     false, 4, 0, NULL },
	{ "reason",  "REASON",   28, COL_LEFT,  recent_c_reason, recent_cmp_reason,  false, 8, 0, NULL },
	{ "ip",      "GUEST IP", 18, COL_RIGHT, recent_c_ip,     recent_cmp_ip,      false, 6, 0, NULL },
	{ "latency", "LATENCY",  10, COL_RIGHT, recent_c_lat,    recent_cmp_latency, true,  7, 0, NULL },
	{ "mode",    "MODE",     7,  COL_LEFT,  recent_c_mode,   recent_cmp_mode,    false, 2, 0, NULL },
	{ "info",    "INFO",     33, COL_LEFT,  recent_c_info,   recent_cmp_info1,   false, 3, 0, NULL },
};

static int recent_build(struct tui *t, struct pane *p)
{
	const struct vcpu *v = tui_find_vcpu(t, p->tid);
	unsigned int n = v ? model_recent_nr(v) : 0, i;
	struct recent_row *rows;

	p->nr = 0;
	p->rows = rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (i = 0; i < n; i++) {
		struct recent_row *w = &rows[p->nr];
		const struct exit_rec *e = model_recent(v, i, &w->seq);

		/* opened from an object: only its exits */
		if (p->obj.on && (e->reason_id != p->reason || e->obj_kind != p->obj.kind ||
				  e->obj != p->obj.value || e->obj_dir != p->obj.dir || e->obj_size != p->obj.size))
			continue;
		p->nr++;
		w->time = e->time;
		w->ip = e->ip;
		w->latency = e->latency;
		w->reason = e->reason_id;
		w->cpu = e->cpu;
		w->info1 = e->info1;
		w->info2 = e->info2;
		w->ninfo = e->ninfo;
		w->mode = e->mode;
	}
	return 0;
}

static uint64_t recent_key(const void *r)
{
	return ((const struct recent_row *)r)->seq;
}

static const char *recent_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;
	char name[96];

	snprintf(buf, len, "%s 0x%" PRIx64, tui_reason_name(t, w->reason, name, sizeof(name)), w->ip);
	return buf;
}

static int recent_tab(struct tui *t)
{
	return tui_swap(t, PANE_IPS);
}

static void recent_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct vcpu *v = tui_find_vcpu(t, p->tid);
	char id[16];

	char obj[32], reason[96];

	if (p->obj.on) {
		snprintf(buf, len, "Recent exits of vCPU %s (tid %d) on %s %s (%s): of the last %u kept, newest first",
			 tui_vcpu_id(v ? v->vcpu_id : -1, id, sizeof(id)), p->tid, kvm_obj_kind_name(p->obj.kind),
			 kvm_obj_value(p->obj.kind, p->obj.value, obj, sizeof(obj)),
			 tui_reason_name(t, p->reason, reason, sizeof(reason)), t->m->ring_size);
		return;
	}
	snprintf(buf, len, "Recent exits of vCPU %s (tid %d): the last %u kept (--ring), newest first; Tab: guest IPs",
		 tui_vcpu_id(v ? v->vcpu_id : -1, id, sizeof(id)), p->tid, t->m->ring_size);
}

/*
 * Why no exit is listed: the thread went, --ring 0 keeps none, none came
 * yet, or (opened from an object) none of the last exits kept touched it:
 * the object's are older, and a larger --ring keeps more.
 */
static const char *recent_empty(const struct tui *t, const struct pane *p)
{
	const struct vcpu *v = tui_find_vcpu(t, p->tid);
	static char buf[256];
	unsigned int n = v ? model_recent_nr(v) : 0;

	if (!v)
		return "the vCPU thread is gone";
	if (!t->m->ring_size)
		return "--ring 0: no recent exits are kept";
	if (!n)
		return t->live ? "no exit of this vCPU yet" : "the recording holds no exit of this vCPU";
	snprintf(buf, sizeof(buf),
		 "none of the last %u exits kept touched this object: its exits are older; --ring N keeps more than %u",
		 n, t->m->ring_size);
	return buf;
}

const struct pane_ops pane_recent = {
	.name = "recent",
	.cols = recent_cols,
	.nr_cols = sizeof(recent_cols) / sizeof(recent_cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct recent_row),
	.build = recent_build,
	.key = recent_key,
	.label = recent_label,
	.tab = recent_tab,
	.title = recent_title,
	.empty = recent_empty,
};
