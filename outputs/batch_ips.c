// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output of the sampled guest IPs: a table per scope in the text
 * report, an "ips" array in JSON, and folded stacks (one line per
 * vm;vcpu;mode;symbol with its count, the input of FlameGraph's
 * flamegraph.pl and of speedscope).  The IP tables count since the start
 * (or the last reset), whatever the snapshot's interval.
 */
#define _GNU_SOURCE	/* asprintf */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_priv.h"
#include "util/escape.h"
#include "model/model_scope.h"
#include "model/model_view.h"

static const char *const ips_kind_name[IP_KINDS] = { "time", "exit" };
static const char *const ips_kind_title[IP_KINDS] = {
	"time samples (asynchronous exits: where the guest runs)",
	"exit sites (synchronous exits: what makes the guest exit)",
};

static const struct sym_table *ips_syms(const struct batch *b, const struct vm *vm)
{
	return sym_set_find(b->syms, vm->pid, vm->name);
}

static const char *ips_reason_name(const struct batch *b, int id)
{
	return id >= 0 && (unsigned int)id < b->m->reasons->nr ? b->m->reasons->r[id].name : "?";
}

/* --- text --- */

int batch_ips_text(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		   const char *indent)
{
	const struct sym_table *st = ips_syms(b, vm);
	char sym[512], esc[512];
	int k;

	if (!b->ip_top)
		return 0;
	for (k = 0; k < IP_KINDS; k++) {
		struct model_ip_list l;
		size_t i;

		if (model_scope_ips(&l, vm, v, k)) {
			model_ip_list_free(&l);
			return -1;
		}
		if (!l.samples) {
			model_ip_list_free(&l);
			continue;
		}
		fprintf(b->out, "%sguest IPs, %s: %" PRIu64 " since start%s\n", indent, ips_kind_title[k],
			l.samples, l.replaced ? " (tables full: a count may overstate by its ERR)" : "");
		fprintf(b->out, "%s  %9s %6s %9s %-7s %18s %s%s\n", indent, "COUNT", "%", "ERR", "MODE",
			"GUEST IP", k == IP_EXIT ? "REASON                         " : "", "SYMBOL");
		for (i = 0; i < l.nr && i < b->ip_top; i++) {
			const struct ip_entry *e = &l.e[i];

			fprintf(b->out, "%s  %9" PRIu64 " %6.2f %9" PRIu64 " %-7s %#18" PRIx64 " ", indent,
				e->count, 100.0 * (double)e->count / (double)l.samples, e->err,
				kvm_guest_mode_label(e->mode), e->ip);
			if (k == IP_EXIT)
				fprintf(b->out, "%-30s ",
					escape_text(ips_reason_name(b, e->reason_id), esc, sizeof(esc)));
			sym_ip(st, e->ip, true, sym, sizeof(sym));
			fprintf(b->out, "%s\n", st ? escape_text(sym, esc, sizeof(esc)) : "-");
		}
		model_ip_list_free(&l);
	}
	return 0;
}

const char *batch_obj_site(const struct batch *b, const struct vm *vm, const struct model_obj_row *o,
			   char *buf, size_t len)
{
	const struct sym_table *st = vm ? ips_syms(b, vm) : NULL;
	char sym[512], esc[512];

	if (!o->site[0].n || !o->count) {
		snprintf(buf, len, "-");
		return buf;
	}
	sym_ip(st, o->site[0].ip, true, sym, sizeof(sym));
	snprintf(buf, len, "%s %.0f%%", escape_text(sym, esc, sizeof(esc)),
		 100.0 * (double)o->site[0].n / (double)o->count);
	return buf;
}

/* --- JSON --- */

/* "sym": the symbol+0xoffset of ip in st (null: the VM has no symbols). */
static void ips_json_sym(const struct batch *b, const struct sym_table *st, uint64_t ip)
{
	char sym[512];

	jsonw_name(b->json, "sym");
	if (sym_ip(st, ip, true, sym, sizeof(sym)) < 0)
		jsonw_null(b->json);
	else
		jsonw_string(b->json, sym);
}

void batch_obj_sites_json(const struct batch *b, const struct vm *vm, const struct model_obj_row *o)
{
	const struct sym_table *st = vm ? ips_syms(b, vm) : NULL;
	struct json_writer *jw = b->json;
	unsigned int i;

	jsonw_name(jw, "sites");
	jsonw_begin_array(jw);
	for (i = 0; i < MODEL_OBJ_SITES && o->site[i].n; i++) {
		jsonw_begin_object(jw);
		jsonw_hex_field(jw, "ip", o->site[i].ip);
		ips_json_sym(b, st, o->site[i].ip);
		jsonw_uint_field(jw, "count", o->site[i].n);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_uint_field(jw, "sites_rest", o->site_rest);
	jsonw_uint_field(jw, "sites_none", o->site_none);
}

/* One guest IP of kind k: its address (a "0x..." string), symbol, mode, exit reason and count. */
static void ips_json_entry(const struct batch *b, const struct sym_table *st, int k, const struct ip_entry *e)
{
	struct json_writer *jw = b->json;

	jsonw_begin_object(jw);
	jsonw_string_field(jw, "kind", ips_kind_name[k]);
	jsonw_hex_field(jw, "ip", e->ip);
	ips_json_sym(b, st, e->ip);
	jsonw_string_field(jw, "mode", kvm_guest_mode_name(e->mode));
	jsonw_bool_field(jw, "mode_inferred", kvm_guest_mode_inferred(e->mode));
	if (k == IP_EXIT)
		jsonw_string_field(jw, "reason", ips_reason_name(b, e->reason_id));
	jsonw_uint_field(jw, "count", e->count);
	jsonw_uint_field(jw, "error", e->err);
	jsonw_end_object(jw);
}

int batch_ips_json(const struct batch *b, const struct vm *vm, const struct vcpu *v)
{
	const struct sym_table *st = ips_syms(b, vm);
	struct model_ip_list l[IP_KINDS];
	struct json_writer *jw = b->json;
	int k, ret = -1;

	memset(l, 0, sizeof(l));
	for (k = 0; k < IP_KINDS; k++)
		if (model_scope_ips(&l[k], vm, v, k))
			goto out;
	jsonw_name(jw, "ip_samples");
	jsonw_begin_object(jw);
	jsonw_uint_field(jw, "time", l[IP_TIME].samples);
	jsonw_uint_field(jw, "exit", l[IP_EXIT].samples);
	jsonw_uint_field(jw, "none", l[IP_TIME].none);
	jsonw_bool_field(jw, "full", l[IP_TIME].replaced || l[IP_EXIT].replaced);
	jsonw_end_object(jw);
	jsonw_name(jw, "ips");
	jsonw_begin_array(jw);
	for (k = 0; k < IP_KINDS; k++) {
		size_t i;

		for (i = 0; i < l[k].nr && i < b->ip_top; i++)
			ips_json_entry(b, st, k, &l[k].e[i]);
	}
	jsonw_end_array(jw);
	ret = 0;
out:
	for (k = 0; k < IP_KINDS; k++)
		model_ip_list_free(&l[k]);
	return ret;
}

/* --- folded stacks --- */

struct folded_stack {
	char *stack;
	uint64_t count;
};

static int folded_stack_cmp(const void *a, const void *b)
{
	return strcmp(((const struct folded_stack *)a)->stack, ((const struct folded_stack *)b)->stack);
}

/*
 * A frame of a folded stack: its text escaped, and ';' (which separates
 * frames) written as \x3b like the other bytes escaped.
 */
static void folded_frame(char *out, size_t len, const char *s)
{
	char esc[512];
	const unsigned char *p;
	size_t n = 0, u;

	escape_text(s, esc, sizeof(esc));
	/* whole units only: a cut never splits a UTF-8 character or an escape */
	for (p = (const unsigned char *)esc; *p; p += u) {
		const char *from = (const char *)p;
		size_t w;

		if (*p == ';')
			u = 1, w = 4, from = "\\x3b";
		else if (*p == '\\')
			u = w = p[1] == 'x' ? 4 : 2;
		else if (*p >= 0xf0)
			u = w = 4;
		else if (*p >= 0xe0)
			u = w = 3;
		else if (*p >= 0xc0)
			u = w = 2;
		else
			u = w = 1;
		if (n + w >= len)
			break;
		memcpy(out + n, from, w);
		n += w;
	}
	out[n] = '\0';
}

/* One vCPU's stacks, summed by symbol: the number of lines, or -1. */
static long folded_vcpu(const struct batch *b, const struct vm *vm, const struct vcpu *v,
			const struct sym_table *st, const char *vm_frame)
{
	char vcpu[32], sym[512], symf[512], reason[128];
	struct folded_stack *fr = NULL;
	struct model_ip_list l;
	size_t i, n = 0;
	long lines = 0, ret = -1;

	if (model_scope_ips(&l, vm, v, b->folded_kind))
		goto out;
	fr = calloc(l.nr ? l.nr : 1, sizeof(*fr));
	if (!fr)
		goto out;
	if (v->vcpu_id >= 0)
		snprintf(vcpu, sizeof(vcpu), "vcpu%d", v->vcpu_id);
	else
		snprintf(vcpu, sizeof(vcpu), "tid%d", v->tid);
	for (i = 0; i < l.nr; i++) {
		const struct ip_entry *e = &l.e[i];

		sym_ip(st, e->ip, false, sym, sizeof(sym));
		folded_frame(symf, sizeof(symf), sym);
		if (b->folded_kind == IP_EXIT)
			folded_frame(reason, sizeof(reason), ips_reason_name(b, e->reason_id));
		if (asprintf(&fr[n].stack, "%s;%s;%s;%s%s%s", vm_frame, vcpu, kvm_guest_mode_name(e->mode),
			     b->folded_kind == IP_EXIT ? reason : "", b->folded_kind == IP_EXIT ? ";" : "",
			     symf) < 0)
			goto out;
		fr[n++].count = e->count;
	}
	qsort(fr, n, sizeof(*fr), folded_stack_cmp);
	for (i = 0; i < n; i++) {
		uint64_t c = fr[i].count;

		while (i + 1 < n && !strcmp(fr[i].stack, fr[i + 1].stack))
			c += fr[++i].count;
		fprintf(b->out, "%s %" PRIu64 "\n", fr[i].stack, c);
		lines++;
	}
	ret = lines;
out:
	for (i = 0; i < n; i++)
		free(fr[i].stack);
	free(fr);
	model_ip_list_free(&l);
	return ret;
}

static int folded_print(struct batch *b, uint64_t end)
{
	const struct vm *vm;
	const struct vcpu *v;
	char vm_frame[512];
	long lines = 0, n;

	/* the tables count since the start: written once, at the last snapshot */
	if (!b->summary && !b->at_end && !(b->iterations && b->snapshots + 1 >= b->iterations))
		return 0;
	MODEL_FOREACH_VM(vm, b->m) {
		const struct sym_table *st = ips_syms(b, vm);

		folded_frame(vm_frame, sizeof(vm_frame), vm->name);
		MODEL_FOREACH_VCPU(v, vm) {
			n = folded_vcpu(b, vm, v, st, vm_frame);
			if (n < 0)
				return -1;
			lines += n;
		}
	}
	if (!lines)
		fprintf(stderr, "kvmtop: no %s to write%s\n", b->folded_kind == IP_TIME ?
			"time samples (asynchronous exits with a guest IP)" : "exit sites (exits with a guest IP)",
			b->folded_kind == IP_TIME ? "; --ip-kind exit writes the exit sites" : "");
	return 0;
}

/* -o folded: the guest IPs alone, once, so live it is one report (-n N with -d: the last). */
const struct batch_format batch_format_folded = {
	.name = "folded",
	.print = folded_print,
	.ips = true,
	.ips_only = true,
	.one_report = true,
};
