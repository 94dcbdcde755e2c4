// SPDX-License-Identifier: GPL-2.0
/* The recent exits of one vCPU, from its ring (--ring N), newest first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_priv.h"

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

PANE_CMP(recent_row, seq)
PANE_CMP(recent_row, ip)
PANE_CMP(recent_row, latency)
PANE_CMP(recent_row, reason)
PANE_CMP(recent_row, cpu)
PANE_CMP(recent_row, info1)
PANE_CMP(recent_row, mode)

static void c_time(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;
	uint64_t first = t->m->first_time;

	/* seconds since the start of the trace (or of the recording) */
	if (t->ns)
		snprintf(buf, len, "%.6f", w->time >= first ? (double)(w->time - first) / 1e9 : 0.0);
	else
		snprintf(buf, len, "%" PRIu64, w->time >= first ? w->time - first : 0);
}

static void c_cpu(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%d", ((const struct recent_row *)r)->cpu);
}

static void c_reason(const struct tui *t, const void *r, char *buf, size_t len)
{
	tui_reason_name(t, ((const struct recent_row *)r)->reason, buf, len);
}

static void c_ip(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, ((const struct recent_row *)r)->ip);
}

static void c_lat(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;

	if (w->latency == MODEL_LAT_NONE)
		snprintf(buf, len, "pending");
	else
		tui_fmt_time(t, (double)w->latency, buf, len);
}

/* The exit's arch detail in hex, as the kernel prints it: x86 "info1 info2" ... */
static void c_info(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;

	if (w->ninfo >= 2)
		snprintf(buf, len, "%" PRIx64 " %" PRIx64, w->info1, w->info2);
	else if (w->ninfo == 1)
		snprintf(buf, len, "%" PRIx64, w->info1);
	else
		snprintf(buf, len, "-");
}

static void c_mode(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", kvm_guest_mode_label(((const struct recent_row *)r)->mode));
}

static const struct pane_col cols[] = {
	{ "time",    "TIME s",      14, COL_RIGHT, c_time,   cmp_seq,     true,  9, 0, NULL },
	{ "cpu",     "CPU",          4, COL_RIGHT, c_cpu,    cmp_cpu,     false, 4, 0, NULL },
	{ "reason",  "REASON",      28, COL_LEFT,  c_reason, cmp_reason,  false, 8, 0, NULL },
	{ "ip",      "GUEST IP",    18, COL_RIGHT, c_ip,     cmp_ip,      false, 6, 0, NULL },
	{ "latency", "LATENCY",     10, COL_RIGHT, c_lat,    cmp_latency, true,  7, 0, NULL },
	{ "mode",    "MODE",         7, COL_LEFT,  c_mode,   cmp_mode,    false, 2, 0, NULL },
	{ "info",    "INFO",        33, COL_LEFT,  c_info,   cmp_info1,   false, 3, 0, NULL },
};

static int build(struct tui *t, struct pane *p)
{
	const struct vcpu *v = tui_find_vcpu(t, p->tid);
	unsigned int n = v ? model_recent_nr(v) : 0, i;
	struct recent_row *rows;

	p->nr = 0;
	p->rows = rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (i = 0; i < n; i++) {
		struct recent_row *w = &rows[p->nr++];
		const struct exit_rec *e = model_recent(v, i, &w->seq);

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

static uint64_t key(const void *r)
{
	return ((const struct recent_row *)r)->seq;
}

static const char *label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct recent_row *w = r;
	char name[96];

	snprintf(buf, len, "%s 0x%" PRIx64, tui_reason_name(t, w->reason, name, sizeof(name)), w->ip);
	return buf;
}

static int tab(struct tui *t)
{
	return tui_swap(t, PANE_IPS);
}

static void title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct vcpu *v = tui_find_vcpu(t, p->tid);
	char id[16];

	snprintf(buf, len, "Recent exits of vCPU %s (tid %d): the last %u kept (--ring), newest first; Tab: guest IPs",
		 tui_vcpu_id(v ? v->vcpu_id : -1, id, sizeof(id)), p->tid, t->m->ring_size);
}

const struct pane_ops pane_recent = {
	.name = "recent",
	.cols = cols,
	.nr_cols = sizeof(cols) / sizeof(cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct recent_row),
	.build = build,
	.key = key,
	.label = label,
	.tab = tab,
	.title = title,
};
