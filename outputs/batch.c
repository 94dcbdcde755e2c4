// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "escape.h"
#include "fmt.h"
#include "model_scope.h"
#include "options.h"

enum col_type {
	COL_STR,
	COL_BOOL,
	COL_U64,
	COL_PCT,
	COL_TIME,		/* a latency, in the source's time unit */
	COL_TIME_MEAN,
	COL_SECS,		/* a sum of time: seconds in CSV and JSON (ns sources only) */
};

struct col_val {
	const char *s;
	uint64_t u;
	double d;
	bool b;
};

/*
 * The reason columns, declared once: name (CSV header, JSON key), title
 * (text header), width, format, and how to get the value.  Text, CSV and
 * JSON all print from this table, so CSV and JSON carry the same fields.
 */
struct reason_col {
	const char *name;
	const char *title;
	int width;
	enum col_type type;
	bool text;		/* shown in the text table */
	const char *group;	/* JSON: inside this object ("latency"), NULL: at the top */
	void (*get)(const struct model_reason_row *row, struct col_val *v);
	/*
	 * Measured only with sched events (model_time.c): left out of text
	 * and JSON without them, empty in CSV; CSV names it group_name.
	 */
	bool sched;
};

static void get_reason(const struct model_reason_row *w, struct col_val *v) { v->s = w->r->name; }
static void get_isa(const struct model_reason_row *w, struct col_val *v) { v->s = isa_name(w->r->isa); }
static void get_flags(const struct model_reason_row *w, struct col_val *v) { v->s = w->r->flag_names; }
static void get_code(const struct model_reason_row *w, struct col_val *v) { v->u = w->r->code; }
static void get_blocking(const struct model_reason_row *w, struct col_val *v) { v->b = w->r->blocking; }
static void get_count(const struct model_reason_row *w, struct col_val *v) { v->u = w->count; }
static void get_total(const struct model_reason_row *w, struct col_val *v) { v->u = w->total; }
static void get_samples(const struct model_reason_row *w, struct col_val *v) { v->u = w->lat.samples; }
static void get_min(const struct model_reason_row *w, struct col_val *v) { v->u = w->lat.samples ? w->lat.min : 0; }
static void get_max(const struct model_reason_row *w, struct col_val *v) { v->u = w->lat.max; }
static void get_sum(const struct model_reason_row *w, struct col_val *v) { v->u = hist_sum(&w->lat); }
static void get_mean(const struct model_reason_row *w, struct col_val *v) { v->d = hist_mean(&w->lat); }
static void get_p50(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->lat, 0.50); }
static void get_p90(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->lat, 0.90); }
static void get_p99(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->lat, 0.99); }
static void get_p999(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->lat, 0.999); }

static void get_h_samples(const struct model_reason_row *w, struct col_val *v) { v->u = w->handling.samples; }
static void get_h_min(const struct model_reason_row *w, struct col_val *v) { v->u = w->handling.samples ? w->handling.min : 0; }
static void get_h_max(const struct model_reason_row *w, struct col_val *v) { v->u = w->handling.max; }
static void get_h_sum(const struct model_reason_row *w, struct col_val *v) { v->u = hist_sum(&w->handling); }
static void get_h_mean(const struct model_reason_row *w, struct col_val *v) { v->d = hist_mean(&w->handling); }
static void get_h_p50(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->handling, 0.50); }
static void get_h_p90(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->handling, 0.90); }
static void get_h_p99(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->handling, 0.99); }
static void get_h_p999(const struct model_reason_row *w, struct col_val *v) { v->u = hist_quantile(&w->handling, 0.999); }
static void get_preempted(const struct model_reason_row *w, struct col_val *v) { v->u = w->preempted; }
static void get_blocked(const struct model_reason_row *w, struct col_val *v) { v->u = w->blocked; }

static void get_pct(const struct model_reason_row *w, struct col_val *v)
{
	v->d = w->scope_exits ? 100.0 * (double)w->count / (double)w->scope_exits : 0.0;
}

static const struct reason_col reason_cols[] = {
	{ "reason",   "REASON",  30, COL_STR,       true,  NULL,      get_reason, false },
	{ "code",     "CODE",    10, COL_U64,       false, NULL,      get_code, false },
	{ "isa",      "ISA",      6, COL_STR,       true,  NULL,      get_isa, false },
	{ "flags",    "FLAGS",   14, COL_STR,       false, NULL,      get_flags, false },
	{ "blocking", "BLOCKING", 8, COL_BOOL,      false, NULL,      get_blocking, false },
	{ "count",    "COUNT",    9, COL_U64,       true,  NULL,      get_count, false },
	{ "pct",      "%",        6, COL_PCT,       true,  NULL,      get_pct, false },
	{ "total",    "TOTAL",   10, COL_U64,       true,  NULL,      get_total, false },
	{ "samples",  "PAIRS",    9, COL_U64,       false, "latency", get_samples, false },
	{ "min",      "MIN",      9, COL_TIME,      true,  "latency", get_min, false },
	{ "mean",     "MEAN",     9, COL_TIME_MEAN, true,  "latency", get_mean, false },
	{ "p50",      "P50",      9, COL_TIME,      true,  "latency", get_p50, false },
	{ "p90",      "P90",      9, COL_TIME,      true,  "latency", get_p90, false },
	{ "p99",      "P99",      9, COL_TIME,      true,  "latency", get_p99, false },
	{ "p999",     "P99.9",    9, COL_TIME,      true,  "latency", get_p999, false },
	{ "max",      "MAX",      9, COL_TIME,      true,  "latency", get_max, false },
	{ "sum",      "SUM",     12, COL_TIME,      false, "latency", get_sum, false },
	{ "samples",  "HPAIRS",   9, COL_U64,       false, "handling", get_h_samples, true },
	{ "min",      "HMIN",     9, COL_TIME,      false, "handling", get_h_min, true },
	{ "mean",     "HMEAN",    9, COL_TIME_MEAN, false, "handling", get_h_mean, true },
	{ "p50",      "HAND.P50", 9, COL_TIME,      true,  "handling", get_h_p50, true },
	{ "p90",      "HP90",     9, COL_TIME,      false, "handling", get_h_p90, true },
	{ "p99",      "HAND.P99", 9, COL_TIME,      true,  "handling", get_h_p99, true },
	{ "p999",     "HP99.9",   9, COL_TIME,      false, "handling", get_h_p999, true },
	{ "max",      "HMAX",     9, COL_TIME,      false, "handling", get_h_max, true },
	{ "sum",      "HSUM",    12, COL_TIME,      false, "handling", get_h_sum, true },
	{ "preempted_s", "PREEMPTED", 10, COL_SECS, true,  NULL,      get_preempted, true },
	{ "blocked_s", "BLOCKED",  10, COL_SECS,     true,  NULL,      get_blocked, true },
};

/* Is column c shown for this input (sched: is the split measured)? */
static bool col_known(const struct batch *b, const struct reason_col *c)
{
	return !c->sched || (model_time_known(b->m) & TIME_SPLIT);
}

#define NR_REASON_COLS	(sizeof(reason_cols) / sizeof(reason_cols[0]))

int batch_format_parse(const char *s, enum batch_format *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = BATCH_TEXT;
	else if (!strcmp(s, "csv"))
		*fmt = BATCH_CSV;
	else if (!strcmp(s, "json"))
		*fmt = BATCH_JSON;
	else if (!strcmp(s, "folded"))
		*fmt = BATCH_FOLDED;
	else
		return -1;
	return 0;
}

/* The guest IP settings of the command line. */
static void batch_set_ips(struct batch *b, const struct options *o)
{
	b->syms = &o->syms;
	b->ip_top = o->ip_slots ? o->ip_top : 0;
	b->folded_kind = o->ip_kind;
	b->iterations = o->iterations;
}

static double interval_seconds(const struct batch *b, uint64_t end)
{
	uint64_t t = end - b->m->interval_start;

	return b->ns ? (double)t / 1e9 : 0.0;
}

/* --- text --- */

static void text_cell(const struct batch *b, const struct reason_col *c,
		      const struct model_reason_row *w)
{
	struct col_val v = { NULL, 0, 0, false };
	char buf[96], name[96];

	c->get(w, &v);
	switch (c->type) {
	case COL_STR:
		/* the flags are their own column in CSV and JSON; here, after the name */
		if (c->get == get_reason)
			v.s = reason_label(w->r, name, sizeof(name));
		fprintf(b->out, "%-*s", c->width, escape_text(v.s, buf, sizeof(buf)));
		return;
	case COL_BOOL:
		fprintf(b->out, "%*s", c->width, v.b ? "yes" : "no");
		return;
	case COL_U64:
		fprintf(b->out, "%*" PRIu64, c->width, v.u);
		return;
	case COL_PCT:
		fprintf(b->out, "%*.2f", c->width, v.d);
		return;
	case COL_TIME:
	case COL_TIME_MEAN:
		if (!(c->sched ? w->handling.samples : w->lat.samples))
			snprintf(buf, sizeof(buf), "-");
		else
			fmt_duration(c->type == COL_TIME ? (double)v.u : v.d, b->ns, 2, buf, sizeof(buf));
		fprintf(b->out, "%*s", c->width, buf);
		return;
	case COL_SECS:
		fmt_duration((double)v.u, b->ns, 2, buf, sizeof(buf));
		fprintf(b->out, "%*s", c->width, buf);
		return;
	}
}

static void text_table(const struct batch *b, const struct model_scope *s, const char *indent)
{
	const struct model_reason_row **rows = calloc(s->nr ? s->nr : 1, sizeof(*rows));
	unsigned int i, j, n;

	if (!rows)
		return;
	n = model_scope_sorted(s, rows);
	fputs(indent, b->out);
	for (j = 0; j < NR_REASON_COLS; j++)
		if (reason_cols[j].text && col_known(b, &reason_cols[j]))
			fprintf(b->out, reason_cols[j].type == COL_STR ? "%-*s " : "%*s ",
				reason_cols[j].width, reason_cols[j].title);
	fputc('\n', b->out);
	for (i = 0; i < n; i++) {
		fputs(indent, b->out);
		for (j = 0; j < NR_REASON_COLS; j++) {
			if (!reason_cols[j].text || !col_known(b, &reason_cols[j]))
				continue;
			text_cell(b, &reason_cols[j], rows[i]);
			fputc(' ', b->out);
		}
		fputc('\n', b->out);
	}
	free(rows);
}

/* A vCPU thread's time in each state the input measures, as shares of the snapshot. */
static void text_states(const struct batch *b, const struct model_scope *s, uint64_t end,
			const char *indent)
{
	uint64_t len = end > b->m->interval_start ? end - b->m->interval_start : 0;
	int j;

	if (!s->time_known || !len)
		return;
	fprintf(b->out, "%stime:", indent);
	for (j = 0; j < VS_NR; j++)
		if (s->time_known & (1u << j))
			fprintf(b->out, " %s %.1f%%", model_state_name(j), 100.0 * (double)s->time[j] / (double)len);
	fputc('\n', b->out);
}

static void text_events(const struct batch *b, const struct model_scope *s, const char *indent);

/* A VM's emulator and vhost threads: how many, % of one CPU on a CPU and waiting for one. */
static void text_groups(const struct batch *b, const struct vm *vm, uint64_t end)
{
	uint64_t len = end > b->m->interval_start ? end - b->m->interval_start : 0;
	const char *sep = " ";
	int g;

	if (!b->ns || !len || (!vm->groups[TG_EMULATOR].known && !vm->groups[TG_VHOST].known))
		return;
	fputs("  threads:", b->out);
	for (g = 0; g < TG_NR; g++) {
		if (!vm->groups[g].known)
			continue;
		fprintf(b->out, "%s%s %d run %.1f%% wait %.1f%%", sep, model_group_name(g),
			vm->groups[g].count, 100.0 * (double)model_group_ns(vm, g, false, false) / (double)len,
			100.0 * (double)model_group_ns(vm, g, true, false) / (double)len);
		sep = ", ";
	}
	fputc('\n', b->out);
}

/*
 * The host kernel's threads that raised KVM events (kworker, kdamond ...):
 * host work, in the host's figures, never a VM.  print writes them when
 * there are any.  0 or -1 (no memory).
 */
static int print_kernel(const struct batch *b,
			void (*print)(const struct batch *b, const struct vm *k, const struct model_scope *s))
{
	const struct vm *k = model_kernel_vm(b->m);
	struct model_scope s;

	if (!k)
		return 0;
	if (model_scope_vm(&s, b->m, k, false)) {
		model_scope_free(&s);
		return -1;
	}
	print(b, k, &s);
	model_scope_free(&s);
	return 0;
}

/* In text: one heading, their events. */
static void text_kernel(const struct batch *b, const struct vm *k, const struct model_scope *s)
{
	fprintf(b->out, "host kernel threads (not VMs): %d\n", k->nr_vcpus);
	text_events(b, s, "  ");
}

static void text_events(const struct batch *b, const struct model_scope *s, const char *indent)
{
	char name[128];
	bool any = false;
	int j;

	for (j = 0; j < b->m->nr_other; j++) {
		if (!s->other[j])
			continue;
		fprintf(b->out, "%s%s %" PRIu64, any ? ", " : indent,
			escape_text(b->m->names->other[j], name, sizeof(name)), s->other[j]);
		any = true;
	}
	if (!any)
		return;
	fputc('\n', b->out);
	any = false;
	for (j = 0; j < UEXIT_MAX; j++) {
		if (!s->uexit[j])
			continue;
		fprintf(b->out, "%s%s%s %" PRIu64, any ? ", " : indent,
			any ? "" : "userspace exits: ",
			escape_text(names_uexit(b->m->names, j), name, sizeof(name)), s->uexit[j]);
		any = true;
	}
	if (any)
		fputc('\n', b->out);
}

static void text_rate(const struct batch *b, uint64_t n, uint64_t end, char *buf, size_t len)
{
	double secs = interval_seconds(b, end);

	if (secs > 0)
		snprintf(buf, len, ", %.1f/s", (double)n / secs);
	else
		buf[0] = '\0';
}

static int print_text(struct batch *b, uint64_t end)
{
	const struct model *m = b->m;
	char esc[256], clk[128], rate[48];
	struct model_scope host;
	struct vm *vm;
	struct vcpu *v;
	int ret = -1;

	if (model_scope_host(&host, b->m, false))
		goto out_host;

	if (b->snapshots)
		fputc('\n', b->out);
	fprintf(b->out, "kvmtop %s%s%s: clock %s (times in %s), %s %u",
		b->source, b->file ? " " : "", b->file ? escape_text(b->file, esc, sizeof(esc)) : "",
		escape_text(b->clock, clk, sizeof(clk)), b->time_unit,
		b->summary ? "summary" : "snapshot", b->snapshots + 1);
	if (b->ns)
		fprintf(b->out, ", %.6f s", interval_seconds(b, end));
	else
		fprintf(b->out, ", %" PRIu64 " %s", end - m->interval_start, b->time_unit);
	if (b->empty > 1)
		fprintf(b->out, ": %" PRIu64 " intervals without KVM events", b->empty);
	fputc('\n', b->out);
	text_rate(b, host.exits, end, rate, sizeof(rate));
	fprintf(b->out, "exits %" PRIu64 "%s, kvm events %" PRIu64 ", lost events %" PRIu64,
		host.exits, rate, ctr_interval(&m->events), ctr_interval(&m->lost_events));
	if (ctr_interval(&m->dropped))
		fprintf(b->out, ", dropped (over %u threads) %" PRIu64, m->max_vcpus,
			ctr_interval(&m->dropped));
	fputc('\n', b->out);
	if (RB_EMPTY(&m->vcpus))
		fprintf(b->out, "no KVM events\n");
	if (print_kernel(b, text_kernel))
		goto out_host;

	RB_FOREACH(vm, vm_tree, (struct vm_tree *)&m->vms) {
		struct model_scope vs;

		if (vm->kernel)
			continue;	/* host work: in the host's figures, never a VM */
		if (model_scope_vm(&vs, b->m, vm, false)) {
			model_scope_free(&vs);
			goto out_host;
		}
		text_rate(b, vs.exits, end, rate, sizeof(rate));
		fprintf(b->out, "\nVM %s (pid %d%s%s): %" PRIu64 " exits%s, %d vCPU threads\n",
			escape_text(vm->name, esc, sizeof(esc)), vm->pid,
			vm->guessed ? ", guessed: no --threads" : "",
			vm->exited ? ", exited" : "", vs.exits, rate, vm->nr_vcpus);
		text_groups(b, vm, end);
		if (vs.exits_total)
			text_table(b, &vs, "  ");
		text_events(b, &vs, "  ");
		batch_kstats_text(b, vm, NULL, "  ");
		model_scope_free(&vs);
		if (batch_ips_text(b, vm, NULL, "  "))
			goto out_host;

		TAILQ_FOREACH(v, &vm->vcpus, vm_link) {
			struct model_scope cs;

			if (model_scope_vcpu(&cs, b->m, v, false)) {
				model_scope_free(&cs);
				goto out_host;
			}
			fprintf(b->out, "\n  vCPU %d (tid %d \"%s\", last on CPU %d): %" PRIu64
				" exits, unmatched exits %" PRIu64 ", unmatched entries %" PRIu64 "\n",
				v->vcpu_id, v->tid, escape_text(v->comm, esc, sizeof(esc)),
				v->last_cpu, cs.exits, cs.unmatched_exits, cs.unmatched_entries);
			text_states(b, &cs, end, "    ");
			if (cs.exits_total)
				text_table(b, &cs, "    ");
			text_events(b, &cs, "    ");
			batch_kstats_text(b, vm, v, "    ");
			model_scope_free(&cs);
			if (batch_ips_text(b, vm, v, "    "))
				goto out_host;
		}
	}
	ret = 0;
out_host:
	model_scope_free(&host);
	return ret;
}

/* --- CSV --- */

/* A cell as CSV and JSON write it: whole numbers, strings escaped by esc. */
static void machine_cell(const struct batch *b, const struct reason_col *c,
			 const struct model_reason_row *w, void (*esc)(FILE *f, const char *s))
{
	struct col_val v = { NULL, 0, 0, false };

	c->get(w, &v);
	switch (c->type) {
	case COL_STR:
		esc(b->out, v.s);
		return;
	case COL_BOOL:
		fputs(v.b ? "true" : "false", b->out);
		return;
	case COL_U64:
	case COL_TIME:
		fprintf(b->out, "%" PRIu64, v.u);
		return;
	case COL_PCT:
		fprintf(b->out, "%.2f", v.d);
		return;
	case COL_TIME_MEAN:
		fprintf(b->out, "%.1f", v.d);
		return;
	case COL_SECS:
		if (b->ns)
			fprintf(b->out, "%.9f", (double)v.u / 1e9);
		return;
	}
}

/* Does JSON carry column c for this input?  (CSV has every column, empty if not.) */
static bool json_shown(const struct batch *b, const struct reason_col *c)
{
	return col_known(b, c) && (c->type != COL_SECS || b->ns);
}

/* The thread's time in each state, seconds; empty where not measured. */
static void csv_states(const struct batch *b, const struct model_scope *s)
{
	int j;

	for (j = 0; j < VS_NR; j++) {
		fputc(',', b->out);
		if (b->ns && (s->time_known & (1u << j)))
			fprintf(b->out, "%.9f", (double)s->time[j] / 1e9);
	}
}

/* The VM's emulator_run_s ... vhost_wait_s, empty where not measured. */
static void csv_groups(const struct batch *b, const struct vm *vm)
{
	int g, w;

	for (g = 0; g < TG_NR; g++)
		for (w = 0; w < 2; w++) {
			fputc(',', b->out);
			if (b->ns && vm->groups[g].known)
				fprintf(b->out, "%.9f", (double)model_group_ns(vm, g, w, false) / 1e9);
		}
}

static int print_csv(struct batch *b, uint64_t end)
{
	const struct model *m = b->m;
	struct vm *vm;
	struct vcpu *v;
	unsigned int j, i, n;

	if (!b->snapshots) {
		fputs("snapshot,start,end,vm_pid,vm_name,vm_state,vcpu,tid,comm", b->out);
		for (j = 0; j < NR_REASON_COLS; j++) {
			const struct reason_col *c = &reason_cols[j];

			if (c->sched && c->group)
				fprintf(b->out, ",%s_%s", c->group, c->name);
			else
				fprintf(b->out, ",%s", c->name);
		}
		for (j = 0; j < VS_NR; j++)
			fprintf(b->out, ",%s_s", model_state_name(j));
		for (j = 0; j < TG_NR; j++)
			fprintf(b->out, ",%s_run_s,%s_wait_s", model_group_name(j), model_group_name(j));
		batch_kstats_csv_header(b);
		fputc('\n', b->out);
	}
	RB_FOREACH(vm, vm_tree, (struct vm_tree *)&m->vms) {
		if (vm->kernel)
			continue;
		TAILQ_FOREACH(v, &vm->vcpus, vm_link) {
			const struct model_reason_row **rows;
			struct model_scope cs;

			if (model_scope_vcpu(&cs, b->m, v, false)) {
				model_scope_free(&cs);
				return -1;
			}
			rows = calloc(cs.nr ? cs.nr : 1, sizeof(*rows));
			if (!rows) {
				model_scope_free(&cs);
				return -1;
			}
			n = model_scope_sorted(&cs, rows);
			for (i = 0; i < n; i++) {
				fprintf(b->out, "%u,%" PRIu64 ",%" PRIu64 ",%d,", b->snapshots + 1,
					m->interval_start, end, vm->pid);
				escape_csv(b->out, vm->name);
				fprintf(b->out, ",%s,%d,%d,", model_vm_state(m, vm), v->vcpu_id, v->tid);
				escape_csv(b->out, v->comm);
				for (j = 0; j < NR_REASON_COLS; j++) {
					fputc(',', b->out);
					if (col_known(b, &reason_cols[j]))
						machine_cell(b, &reason_cols[j], rows[i], escape_csv);
				}
				csv_states(b, &cs);
				csv_groups(b, vm);
				batch_kstats_csv(b, vm, v);
				fputc('\n', b->out);
			}
			free(rows);
			model_scope_free(&cs);
		}
	}
	return 0;
}

/* --- JSON Lines --- */

static void json_rate(const struct batch *b, uint64_t n, uint64_t end)
{
	double secs = interval_seconds(b, end);

	if (secs > 0)
		fprintf(b->out, "%.3f", (double)n / secs);
	else
		fputs("null", b->out);
}

static void json_reasons(const struct batch *b, const struct model_scope *s)
{
	const struct model_reason_row **rows = calloc(s->nr ? s->nr : 1, sizeof(*rows));
	unsigned int i, j, n;

	fputs("\"reasons\":[", b->out);
	if (!rows) {
		fputc(']', b->out);
		return;
	}
	n = model_scope_sorted(s, rows);
	for (i = 0; i < n; i++) {
		const char *group = NULL;

		fputs(i ? ",{" : "{", b->out);
		for (j = 0; j < NR_REASON_COLS; j++) {
			const struct reason_col *c = &reason_cols[j];

			if (!json_shown(b, c))
				continue;
			if (c->group != group) {
				/* columns of a group are adjacent in the table */
				if (group)
					fputc('}', b->out);
				if (c->group)
					fprintf(b->out, ",\"%s\":{", c->group);
				else
					fputc(',', b->out);
				group = c->group;
			} else if (j) {
				fputc(',', b->out);
			}
			fprintf(b->out, "\"%s\":", c->name);
			machine_cell(b, c, rows[i], escape_json);
		}
		fputs(group ? "}}" : "}", b->out);
	}
	fputc(']', b->out);
	free(rows);
}

static void json_events(const struct batch *b, const struct model_scope *s)
{
	bool any = false;
	int j;

	fputs(",\"events\":{", b->out);
	for (j = 0; j < b->m->nr_other; j++) {
		if (!s->other[j])
			continue;
		fprintf(b->out, "%s", any ? "," : "");
		escape_json(b->out, b->m->names->other[j]);
		fprintf(b->out, ":%" PRIu64, s->other[j]);
		any = true;
	}
	fputs("},\"userspace_exits\":{", b->out);
	any = false;
	for (j = 0; j < UEXIT_MAX; j++) {
		if (!s->uexit[j])
			continue;
		fprintf(b->out, "%s", any ? "," : "");
		escape_json(b->out, names_uexit(b->m->names, j));
		fprintf(b->out, ":%" PRIu64, s->uexit[j]);
		any = true;
	}
	fputc('}', b->out);
}

/*
 * A vCPU thread's time in each state the input measures, seconds within
 * the snapshot, and where each figure comes from; nothing when none is
 * measured or times are not ns.
 */
static void json_states(const struct batch *b, const struct model_scope *s)
{
	const char *sep = "";
	int j;

	if (!b->ns || !s->time_known)
		return;
	fputs("\"time_s\":{", b->out);
	for (j = 0; j < VS_NR; j++) {
		if (!(s->time_known & (1u << j)))
			continue;
		fprintf(b->out, "%s\"%s\":%.9f", sep, model_state_name(j), (double)s->time[j] / 1e9);
		sep = ",";
	}
	fputs("},\"time_source\":{", b->out);
	sep = "";
	for (j = 0; j < VS_NR; j++) {
		if (!(s->time_known & (1u << j)))
			continue;
		fprintf(b->out, "%s\"%s\":\"%s\"", sep, model_state_name(j),
			model_time_source(b->m, j));
		sep = ",";
	}
	fputs("},", b->out);
}

/*
 * A VM's threads by group: its vCPU threads (with their time on a CPU
 * known), the VMM's own and the vhost workers (live): how many, their
 * time on a CPU and waiting for one.  Nothing when none is measured.
 */
static void json_threads(const struct batch *b, const struct vm *vm, const struct model_scope *s)
{
	unsigned int need = 1u << VS_GUEST | 1u << VS_HOST | 1u << VS_WAIT;
	const char *sep = "";
	int g;

	if (!b->ns)
		return;
	for (g = 0; g < TG_NR && !vm->groups[g].known; g++)
		;
	if ((s->time_known & need) != need && g == TG_NR)
		return;
	fputs("\"threads\":{", b->out);
	if ((s->time_known & need) == need) {
		fprintf(b->out, "\"vcpu\":{\"count\":%d,\"run_s\":%.9f,\"wait_s\":%.9f}",
			vm->nr_vcpus, (double)(s->time[VS_GUEST] + s->time[VS_HOST] + s->time[VS_VMM]) / 1e9,
			(double)s->time[VS_WAIT] / 1e9);
		sep = ",";
	}
	for (g = 0; g < TG_NR; g++) {
		const struct thread_group_stat *gs = &vm->groups[g];

		if (!gs->known)
			continue;
		fprintf(b->out, "%s\"%s\":{\"count\":%d,\"run_s\":%.9f,\"wait_s\":%.9f}", sep,
			model_group_name(g), gs->count,
			(double)model_group_ns(vm, g, false, s->cumulative) / 1e9,
			(double)model_group_ns(vm, g, true, s->cumulative) / 1e9);
		sep = ",";
	}
	fputs("},", b->out);
}

/* In JSON: the host's kernel_threads object. */
static void json_kernel(const struct batch *b, const struct vm *k, const struct model_scope *s)
{
	fprintf(b->out, ",\"kernel_threads\":{\"count\":%d", k->nr_vcpus);
	json_events(b, s);
	fputc('}', b->out);
}

static int print_json(struct batch *b, uint64_t end)
{
	const struct model *m = b->m;
	struct model_scope host;
	struct vm *vm;
	struct vcpu *v;
	bool first_vm = true;
	int ret = -1;

	if (model_scope_host(&host, b->m, false))
		goto out_host;

	fprintf(b->out, "{\"source\":\"%s\",", b->source);
	if (b->file) {
		fputs("\"file\":", b->out);
		escape_json(b->out, b->file);
		fputc(',', b->out);
	}
	fputs("\"clock\":", b->out);
	escape_json(b->out, b->clock);
	fprintf(b->out, ",\"time_unit\":\"%s\",\"snapshot\":%u,\"summary\":%s,"
		"\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"seconds\":",
		b->time_unit, b->snapshots + 1, b->summary ? "true" : "false",
		m->interval_start, end);
	if (b->ns)
		fprintf(b->out, "%.9f", interval_seconds(b, end));
	else
		fputs("null", b->out);
	fprintf(b->out, ",\"empty_intervals\":%" PRIu64, b->empty > 1 ? b->empty : 0);
	fprintf(b->out, ",\"kvm_events\":%" PRIu64 ",\"lost_events\":%" PRIu64
		",\"dropped_events\":%" PRIu64 ",\"host\":{\"exits\":%" PRIu64
		",\"exits_total\":%" PRIu64 ",\"exits_per_s\":",
		ctr_interval(&m->events), ctr_interval(&m->lost_events),
		ctr_interval(&m->dropped), host.exits, host.exits_total);
	json_rate(b, host.exits, end);
	fputc(',', b->out);
	json_reasons(b, &host);
	if (print_kernel(b, json_kernel))
		goto out_host;
	fputc('}', b->out);
	batch_kstats_json_info(b);
	fputs(",\"vms\":[", b->out);

	RB_FOREACH(vm, vm_tree, (struct vm_tree *)&m->vms) {
		struct model_scope vs;
		bool first_vcpu = true;

		if (vm->kernel)
			continue;
		if (model_scope_vm(&vs, b->m, vm, false)) {
			model_scope_free(&vs);
			goto out_host;
		}
		fprintf(b->out, "%s{\"pid\":%d,\"name\":", first_vm ? "" : ",", vm->pid);
		escape_json(b->out, vm->name);
		fprintf(b->out, ",\"state\":\"%s\",\"grouped_by\":\"%s\",\"vcpu_threads\":%d,\"exits\":%" PRIu64
			",\"exits_total\":%" PRIu64 ",\"exits_per_s\":", model_vm_state(m, vm),
			model_vm_ident(m, vm), vm->nr_vcpus, vs.exits, vs.exits_total);
		json_rate(b, vs.exits, end);
		fprintf(b->out, ",\"unmatched_exits\":%" PRIu64 ",\"unmatched_entries\":%" PRIu64 ",",
			vs.unmatched_exits, vs.unmatched_entries);
		json_threads(b, vm, &vs);
		json_reasons(b, &vs);
		json_events(b, &vs);
		batch_kstats_json(b, vm, NULL);
		model_scope_free(&vs);
		if (batch_ips_json(b, vm, NULL))
			goto out_host;
		fputs(",\"vcpus\":[", b->out);
		first_vm = false;

		TAILQ_FOREACH(v, &vm->vcpus, vm_link) {
			struct model_scope cs;

			if (model_scope_vcpu(&cs, b->m, v, false)) {
				model_scope_free(&cs);
				goto out_host;
			}
			fprintf(b->out, "%s{\"vcpu\":%d,\"tid\":%d,\"comm\":", first_vcpu ? "" : ",",
				v->vcpu_id, v->tid);
			escape_json(b->out, v->comm);
			fprintf(b->out, ",\"last_cpu\":%d,\"exits\":%" PRIu64 ",\"exits_total\":%" PRIu64
				",\"exits_per_s\":", v->last_cpu, cs.exits, cs.exits_total);
			json_rate(b, cs.exits, end);
			fprintf(b->out, ",\"unmatched_exits\":%" PRIu64 ",\"unmatched_entries\":%" PRIu64
				",", cs.unmatched_exits, cs.unmatched_entries);
			json_states(b, &cs);
			json_reasons(b, &cs);
			json_events(b, &cs);
			batch_kstats_json(b, vm, v);
			model_scope_free(&cs);
			if (batch_ips_json(b, vm, v))
				goto out_host;
			fputc('}', b->out);
			first_vcpu = false;
		}
		fputs("]}", b->out);
	}
	fputs("]}\n", b->out);
	ret = 0;
out_host:
	model_scope_free(&host);
	return ret;
}

/*
 * The metrics formats: to stdout, or with --output into a new file in
 * FILE's directory renamed over FILE, so a reader (node_exporter's
 * textfile collector) sees the old document or the new, never half.
 * 0, or -1 with errno.
 */
static int print_metrics(struct batch *b)
{
	struct metrics_opts o = *b->metrics;
	bool om = b->fmt == BATCH_OPENMETRICS;
	char tmp[4200];
	FILE *f;
	int fd, ret;

	o.ns = b->ns;
	if (!b->output)
		return batch_metrics(om ? NULL : b->out, om ? b->out : NULL, b->m, &o) ? (errno = ENOMEM, -1) : 0;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", b->output);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	/* readable as a file written by redirection would be: 0644 less the umask */
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0644 & ~um);
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	ret = batch_metrics(om ? NULL : f, om ? f : NULL, b->m, &o);
	if (ret)
		errno = ENOMEM;
	if (fflush(f) || ferror(f) || fsync(fd))
		ret = -1;
	if (fclose(f))
		ret = -1;
	if (!ret && rename(tmp, b->output))
		ret = -1;
	if (ret) {
		int e = errno;

		unlink(tmp);
		errno = e;
	}
	return ret;
}

int batch_print(struct batch *b, uint64_t end)
{
	int ret;

	switch (b->fmt) {
	case BATCH_PROMETHEUS:
	case BATCH_OPENMETRICS:
		ret = print_metrics(b);
		break;
	case BATCH_CSV:
		ret = print_csv(b, end);
		break;
	case BATCH_JSON:
		ret = print_json(b, end);
		break;
	case BATCH_FOLDED:
		ret = batch_ips_folded(b);
		break;
	default:
		ret = print_text(b, end);
		break;
	}
	fflush(b->out);
	b->snapshots++;
	return ret;
}

/* --- the view: batch output as the driver's snapshots come --- */

static int view_start(void *ctx, const struct view_source *src, const struct model *m)
{
	struct batch *b = ctx;

	b->m = m;
	b->source = src->name;
	b->file = src->file;
	b->clock = src->clock;
	b->time_unit = src->time_unit;
	b->ns = src->ns;
	/* a recording without -d: one report of all of it */
	if (!src->live && !b->delay)
		b->summary = true;
	if (b->output) {
		/* --output: can a file be made beside it?  Said now, not at the first snapshot */
		char tmp[4200];
		int fd;

		snprintf(tmp, sizeof(tmp), "%s.XXXXXX", b->output);
		fd = mkstemp(tmp);
		if (fd < 0) {
			fprintf(stderr, "kvmtop: --output %s: cannot write beside it: %s\n", b->output,
				strerror(errno));
			return -1;
		}
		close(fd);
		unlink(tmp);
	}
	return 0;
}

static int view_refresh(void *ctx, const struct snapshot *s)
{
	struct batch *b = ctx;

	b->at_end = s->at_end;
	b->empty = s->empty;
	errno = 0;
	if (batch_print(b, s->end)) {
		if (!errno)
			errno = ENOMEM;
		return -1;
	}
	if (fflush(b->out) == 0 && !ferror(b->out))
		return 0;
	/* kvmtop -b | head: the reader went away, a normal end */
	return errno == EPIPE ? 1 : -1;
}

static void view_notice(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "kvmtop: %s\n", msg);
}

static void view_stop(void *ctx)
{
	(void)ctx;
}

void batch_view_init(struct batch *b, const struct options *o)
{
	memset(b, 0, sizeof(*b));
	b->out = stdout;
	b->fmt = o->fmt;
	b->summary = o->summary;
	b->delay = o->delay;
	b->metrics = &o->metrics;
	b->output = o->output;
	batch_set_ips(b, o);
	b->view.fd = -1;
	b->view.ctx = b;
	b->view.start = view_start;
	b->view.refresh = view_refresh;
	b->view.notice = view_notice;
	b->view.stop = view_stop;
}
