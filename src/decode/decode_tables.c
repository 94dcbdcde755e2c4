// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own name tables, from the parsed print fmt: reason names
 * come from the kernel that wrote the events before kvmtop's own tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "decode_tables.h"

static const char *arg_field_name(const struct tep_print_arg *a)
{
	while (a) {
		switch (a->type) {
		case TEP_PRINT_FIELD:
			return a->field.name;
		case TEP_PRINT_OP:
			/* REC->exit_reason & 0xffff: the field is on the left */
			a = a->op.left;
			break;
		case TEP_PRINT_TYPE:
			a = a->typecast.item;
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

static int add_table(struct decode_tables *f, const struct tep_print_arg *a,
		     const char *cond_field, int64_t cond_value, bool cond_neg)
{
	const struct tep_print_flag_sym *s;
	struct decode_table *t;
	unsigned int n = 0;
	const char *field = arg_field_name(a->symbol.field);

	if (!field)
		return 0;
	for (s = a->symbol.symbols; s; s = s->next)
		n++;
	t = reallocarray(f->t, f->nr + 1, sizeof(*t));
	if (!t)
		return -1;
	f->t = t;
	t = &f->t[f->nr];
	t->field = field;
	t->cond_field = cond_field;
	t->cond_value = cond_value;
	t->cond_neg = cond_neg;
	t->nr = 0;
	t->sym = calloc(n ? n : 1, sizeof(*t->sym));
	if (!t->sym)
		return -1;
	for (s = a->symbol.symbols; s; s = s->next) {
		char *end;
		long long v;

		if (!s->value || !s->str)
			continue;
		errno = 0;
		v = strtoll(s->value, &end, 0);
		if (errno == ERANGE) {
			errno = 0;
			v = (long long)strtoull(s->value, &end, 0);
		}
		/* arm64's ESR_ELx_EC_* print as 0x18UL */
		end += strspn(end, "uUlL");
		if (errno || *end || end == s->value)
			continue;
		t->sym[t->nr].value = (uint64_t)v;
		t->sym[t->nr].str = s->str;
		t->nr++;
	}
	f->nr++;
	return 0;
}

static int walk_args(struct decode_tables *f, const struct tep_print_arg *a,
		     const char *cf, int64_t cv, bool cn)
{
	for (; a; a = NULL) {
		switch (a->type) {
		case TEP_PRINT_SYMBOL:
			return add_table(f, a, cf, cv, cn);
		case TEP_PRINT_TYPE:
			return walk_args(f, a->typecast.item, cf, cv, cn);
		case TEP_PRINT_OP: {
			const struct tep_print_arg *c = a->op.left, *br = a->op.right;

			if (strcmp(a->op.op, "?") || !br || br->type != TEP_PRINT_OP ||
			    strcmp(br->op.op, ":"))
				return walk_args(f, a->op.left, cf, cv, cn) ?:
				       walk_args(f, a->op.right, cf, cv, cn);
			/* (REC->isa == 1) ? A : B */
			if (c && c->type == TEP_PRINT_OP && !strcmp(c->op.op, "==") &&
			    c->op.left && c->op.left->type == TEP_PRINT_FIELD &&
			    c->op.right && c->op.right->type == TEP_PRINT_ATOM) {
				const char *name = c->op.left->field.name;
				int64_t v = strtoll(c->op.right->atom.atom, NULL, 0);

				return walk_args(f, br->op.left, name, v, false) ?:
				       walk_args(f, br->op.right, name, v, true);
			}
			return walk_args(f, br->op.left, cf, cv, cn) ?:
			       walk_args(f, br->op.right, cf, cv, cn);
		}
		default:
			return 0;
		}
	}
	return 0;
}

int decode_tables_collect(struct decode_tables *f, struct tep_event *e)
{
	const struct tep_print_arg *a;

	memset(f, 0, sizeof(*f));
	for (a = e->print_fmt.args; a; a = a->next)
		if (walk_args(f, a, NULL, 0, false))
			return -1;
	return 0;
}

const char *decode_tables_sym(const struct decode_tables *f, const char *field,
			      bool have_isa, int64_t isa_raw, uint64_t v)
{
	unsigned int i, j;

	for (i = 0; i < f->nr; i++) {
		const struct decode_table *t = &f->t[i];

		if (strcmp(t->field, field))
			continue;
		if (t->cond_field) {
			if (!have_isa)
				continue;
			if ((isa_raw == t->cond_value) == t->cond_neg)
				continue;
		}
		for (j = 0; j < t->nr; j++)
			if (t->sym[j].value == v ||
			    (uint32_t)t->sym[j].value == v)
				return t->sym[j].str;
	}
	return NULL;
}

void decode_tables_free(struct decode_tables *f)
{
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		free(f->t[i].sym);
	free(f->t);
	f->t = NULL;
	f->nr = 0;
}

const char *decode_role_sym(const struct decode_syms *s, enum field_role role, uint64_t v)
{
	if (!s->field[role])
		return NULL;
	return decode_tables_sym(s->tables, s->field[role], false, 0, v);
}
