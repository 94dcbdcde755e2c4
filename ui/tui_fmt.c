// SPDX-License-Identifier: GPL-2.0
/* The screen's number formats, shared by the panes, and its lookups in the model. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "util/fmt.h"
#include "tui_priv.h"
#include "model/model_view.h"

/* --- formats --- */

void tui_fmt_count(uint64_t v, char *buf, size_t len)
{
	if (v < 100000000ull)
		snprintf(buf, len, "%" PRIu64, v);
	else if (v < 100000000000ull)
		snprintf(buf, len, "%.1fM", (double)v / 1e6);
	else
		snprintf(buf, len, "%.1fG", (double)v / 1e9);
}

/* A rate r per second: 0.25, 512, 1.2M. */
static void fmt_rate_of(double r, char *buf, size_t len)
{
	if (r < 10)
		snprintf(buf, len, "%.2f", r);
	else if (r < 1e7)
		snprintf(buf, len, "%.0f", r);
	else
		snprintf(buf, len, "%.1fM", r / 1e6);
}

void tui_fmt_rate(const struct tui *t, uint64_t n, char *buf, size_t len)
{
	if (t->secs <= 0 && t->ns) {
		/* no time covered yet (just after r): a rate is unknown, not 0 */
		snprintf(buf, len, "-");
		return;
	}
	if (t->secs <= 0) {
		/* no wall time (a TSC recording): the count itself */
		tui_fmt_count(n, buf, len);
		return;
	}
	fmt_rate_of((double)n / t->secs, buf, len);
}

void tui_fmt_rate_val(const struct pane_val *pv, char *buf, size_t len)
{
	if (pv->blank)
		buf[0] = '\0';		/* not a figure of this row (pane_val) */
	else if (!pv->has)
		snprintf(buf, len, "-");	/* no span in ns, or no such event seen */
	else
		fmt_rate_of(pv->v.d, buf, len);
}

void tui_snap(const struct tui *t, struct model_snap *s)
{
	*s = (struct model_snap){
		.start = t->start, .end = t->end, .ns = t->ns, .cumulative = t->cumulative,
		.traced = t->traced, .time_unit = t->ns ? "ns" : "cycles",
	};
}

void tui_fmt_event_rate(const struct tui *t, uint64_t n, char *buf, size_t len)
{
	if (t->traced)
		tui_fmt_rate(t, n, buf, len);
	else
		snprintf(buf, len, "-");	/* a counter source sees no event */
}

void tui_fmt_time(const struct tui *t, double v, char *buf, size_t len)
{
	/* one decimal less than the text output: the columns are narrow */
	fmt_duration(v, t->ns, 1, buf, len);
}

void tui_fmt_lat(const struct tui *t, bool have, double v, char *buf, size_t len)
{
	if (have)
		tui_fmt_time(t, v, buf, len);
	else
		snprintf(buf, len, "-");	/* no exit -> entry pair in the scope */
}

void tui_fmt_pct(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", v);
}

void tui_fmt_share(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");	/* not measured, or no span */
	else
		tui_fmt_pct(v, buf, len);
}

void tui_fmt_per_sec(double v, char *buf, size_t len)
{
	if (v < 10)
		snprintf(buf, len, "%.2f", v);
	else if (v < 1e4)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e7)
		snprintf(buf, len, "%.1fK", v / 1e3);
	else if (v < 1e10)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
}

const char *tui_reason_name(const struct tui *t, int id, char *buf, size_t len)
{
	char raw[96];

	return escape_text(names_reason(t->m->names, id, raw, sizeof(raw)), buf, len);
}

const struct vm *tui_find_vm(const struct tui *t, int pid)
{
	return model_find_vm(t->m, pid);
}

const struct vcpu *tui_find_vcpu(const struct tui *t, int tid)
{
	return model_find_vcpu(t->m, tid);
}

const char *tui_vcpu_id(int vcpu_id, char *buf, size_t len)
{
	if (vcpu_id < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%d", vcpu_id);
	return buf;
}

