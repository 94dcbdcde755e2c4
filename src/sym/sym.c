// SPDX-License-Identifier: GPL-2.0
/*
 * Guest symbol tables.  Both files have one symbol per line,
 * "ADDRESS TYPE NAME", kallsyms adding "\t[module]" to a module's; the
 * table keeps every symbol but the absolute and undefined ones, sorted
 * by address, so the symbol before an address is found by binary
 * search and the next one ends it.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sym.h"

struct raw_sym {
	struct sym s;
	size_t line;		/* for a stable order among symbols of one address */
	int prio;		/* which of them names the address: lowest */
};

static int pool_add(struct sym_table *t, const char *s, size_t n, uint32_t *off)
{
	if (t->pool_len + n + 1 > t->pool_alloc) {
		size_t a = t->pool_alloc ? t->pool_alloc : 65536;
		char *p;

		while (t->pool_len + n + 1 > a)
			a *= 2;
		if (a > UINT32_MAX)
			return -1;
		p = realloc(t->pool, a);
		if (!p)
			return -1;
		t->pool = p;
		t->pool_alloc = a;
	}
	memcpy(t->pool + t->pool_len, s, n);
	t->pool[t->pool_len + n] = '\0';
	*off = (uint32_t)t->pool_len;
	t->pool_len += n + 1;
	return 0;
}

/* Global code names an address first, then local code, weak code, the rest. */
static int type_prio(char type)
{
	switch (type) {
	case 'T': return 0;
	case 't': return 1;
	case 'W': case 'w': return 2;
	default: return 3;
	}
}

static int raw_cmp(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio - y->prio;
	return x->line < y->line ? -1 : x->line > y->line;
}

void sym_table_free(struct sym_table *t)
{
	free(t->s);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

/* One line into *r: 1, 0 (blank or skipped), -1 (not a symbol line). */
static int parse_line(struct sym_table *t, char *line, struct raw_sym *r)
{
	char *p = line, *end, *name, *mod = NULL;
	uint32_t name_off, mod_off = 0;
	size_t n;
	char type;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n')
		return 0;
	/* strtoull would take "-1" (as 2^64 - 1), "+10" and spaces: an address is hex digits */
	if (!isxdigit((unsigned char)*p))
		return -1;
	errno = 0;
	r->s.addr = strtoull(p, &end, 16);
	if (errno || end == p || (*end != ' ' && *end != '\t'))
		return -1;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	type = *p;
	if (!type || (p[1] != ' ' && p[1] != '\t'))
		return -1;
	p += 2;
	while (*p == ' ' || *p == '\t')
		p++;
	name = p;
	n = strcspn(name, " \t\r\n");
	if (!n)
		return -1;
	p = name + n;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		size_t m = strcspn(p, "]\r\n");

		if (p[m] != ']')
			return -1;
		mod = p;
		if (pool_add(t, mod, m + 1, &mod_off))
			return -2;
	}
	/* absolute symbols (per-CPU offsets ...) and undefined ones are not code places */
	if (type == 'a' || type == 'A' || type == 'U')
		return 0;
	if (pool_add(t, name, n, &name_off))
		return -2;
	r->s.name = name_off;
	r->s.module = mod_off;
	/* _etext ends the kernel's code; it names no code of its own */
	r->s.text = (type == 't' || type == 'T' || type == 'w' || type == 'W') &&
		    strcmp(t->pool + name_off, "_etext");
	r->prio = type_prio(type);
	if (!mod && !strcmp(t->pool + name_off, "_text"))
		t->text = r->s.addr;
	return 1;
}

/* The symbols read from a file, before they are sorted into a table. */
struct raw_syms {
	struct raw_sym *raw;
	size_t nr, alloc;
	bool nonzero, text;
};

/*
 * Every line of f into r (bounded lines and line counts: /dev/zero or an
 * endless pipe ends with an error).  0, -1 (err set), -2 (no memory).
 */
static int read_syms(struct sym_table *t, FILE *f, const char *path, struct raw_syms *r,
		     char *err, size_t len)
{
	char line[SYM_LINE_MAX + 1];
	size_t lineno = 0, n;
	struct raw_sym *rr;
	int ret;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		n = strlen(line);
		if ((!n || line[n - 1] != '\n') && !feof(f)) {
			snprintf(err, len, "%s:%zu: a line longer than %d bytes, or with a NUL byte",
				 path, lineno, SYM_LINE_MAX);
			return -1;
		}
		if (lineno > SYM_LINES_MAX) {
			snprintf(err, len, "%s: more than %d lines", path, SYM_LINES_MAX);
			return -1;
		}
		if (r->nr == r->alloc) {
			r->alloc = r->alloc ? r->alloc * 2 : 4096;
			rr = reallocarray(r->raw, r->alloc, sizeof(*r->raw));
			if (!rr)
				return -2;
			r->raw = rr;
		}
		r->raw[r->nr].line = lineno;
		ret = parse_line(t, line, &r->raw[r->nr]);
		if (ret == -2)
			return -2;
		if (ret < 0) {
			snprintf(err, len, "%s:%zu: not a symbol line 'ADDRESS TYPE NAME' (kallsyms or System.map)",
				 path, lineno);
			return -1;
		}
		if (!ret)
			continue;
		r->nonzero |= r->raw[r->nr].s.addr != 0;
		r->text |= r->raw[r->nr].s.text;
		r->nr++;
	}
	if (ferror(f)) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int sym_table_load(struct sym_table *t, const char *path, char *err, size_t len)
{
	struct raw_syms r = { NULL, 0, 0, false, false };
	size_t i, k;
	uint32_t empty;
	FILE *f;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (pool_add(t, "", 0, &empty))
		goto out_nomem;
	switch (read_syms(t, f, path, &r, err, len)) {
	case -2:
		goto out_nomem;
	case -1:
		goto out;
	}
	if (!r.nr || !r.text) {
		snprintf(err, len, "%s: no code symbols (types t, T, w, W) in it", path);
		goto out;
	}
	if (!r.nonzero) {
		snprintf(err, len, "%s: every address is 0: the guest's kptr_restrict hid them (copy /proc/kallsyms as root)",
			 path);
		goto out;
	}
	qsort(r.raw, r.nr, sizeof(*r.raw), raw_cmp);
	t->s = malloc(r.nr * sizeof(*t->s));
	if (!t->s)
		goto out_nomem;
	/* one symbol per address: the first in raw_cmp's order names it */
	for (i = 0, k = 0; i < r.nr; i++)
		if (!k || r.raw[i].s.addr != t->s[k - 1].addr)
			t->s[k++] = r.raw[i].s;
	t->nr = k;
	ret = 0;
	goto out;
out_nomem:
	snprintf(err, len, "%s: out of memory", path);
out:
	free(r.raw);
	fclose(f);
	if (ret)
		sym_table_free(t);
	return ret;
}

const struct sym *sym_lookup(const struct sym_table *t, uint64_t ip, uint64_t *off)
{
	uint64_t a = ip - t->offset;
	size_t lo = 0, hi = t->nr;

	if (!t->nr)
		return NULL;
	/* the last symbol at or below a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	if (!t->s[lo].text || a - t->s[lo].addr >= SYM_MAX_SIZE)
		return NULL;
	*off = a - t->s[lo].addr;
	return &t->s[lo];
}

void sym_name(const struct sym_table *t, const struct sym *s, bool with_offset, uint64_t off,
	      char *buf, size_t len)
{
	const char *mod = s->module ? t->pool + s->module : "";

	if (with_offset)
		snprintf(buf, len, "%s+0x%" PRIx64 "%s%s", t->pool + s->name, off, *mod ? " " : "", mod);
	else
		snprintf(buf, len, "%s%s%s", t->pool + s->name, *mod ? " " : "", mod);
}

int sym_ip(const struct sym_table *t, uint64_t ip, bool with_offset, char *buf, size_t len)
{
	const struct sym *s;
	uint64_t off;

	if (!t) {
		snprintf(buf, len, "0x%" PRIx64, ip);
		return -1;
	}
	s = sym_lookup(t, ip, &off);
	if (!s) {
		snprintf(buf, len, "[unknown]");
		return 0;
	}
	sym_name(t, s, with_offset, off, buf, len);
	return 1;
}

/* --- per VM, from the command line --- */

static bool all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

/* "VM=REST" -> vm (malloc'd, NULL if no "VM="), rest: 0 or -1 (no memory). */
static int split_vm(const char *arg, char **vm, const char **rest)
{
	const char *eq = strchr(arg, '=');

	*vm = NULL;
	*rest = arg;
	if (!eq)
		return 0;
	/* "_text=ADDR" alone is --guest-kaslr's value for every VM */
	if (!strncmp(arg, "_text=", 6))
		return 0;
	/* a '/' before the '=' is a path holding a '=', not a VM name */
	if (memchr(arg, '/', (size_t)(eq - arg)))
		return 0;
	*vm = strndup(arg, (size_t)(eq - arg));
	*rest = eq + 1;
	return *vm ? 0 : -1;
}

static bool same_vm(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static struct sym_spec *spec_of(struct sym_set *set, const char *vm)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		if (same_vm(set->spec[i].vm, vm))
			return &set->spec[i];
	return NULL;
}

int sym_set_add(struct sym_set *set, const char *arg, enum sym_kind kind, char *err, size_t len)
{
	struct sym_spec *sp;
	const char *file;
	char *vm;

	if (split_vm(arg, &vm, &file))
		goto out_nomem;
	if (!*file || (vm && !*vm)) {
		snprintf(err, len, "'%s' is not VM=FILE or FILE", arg);
		free(vm);
		return -1;
	}
	if (spec_of(set, vm)) {
		snprintf(err, len, "a second symbol table for %s%s", vm ? "VM " : "every VM", vm ? vm : "");
		free(vm);
		return -1;
	}
	sp = reallocarray(set->spec, set->nr + 1, sizeof(*sp));
	if (!sp) {
		free(vm);
		goto out_nomem;
	}
	set->spec = sp;
	sp = &set->spec[set->nr];
	memset(sp, 0, sizeof(*sp));
	sp->vm = vm;
	if (vm && all_digits(vm, strlen(vm))) {
		const char *errstr;

		/* a VM given by its host pid */
		sp->pid = (int)strtonum(vm, 1, INT_MAX, &errstr);
		if (errstr) {
			snprintf(err, len, "VM %s: a host pid is from 1 to %d", vm, INT_MAX);
			free(vm);
			sp->vm = NULL;
			return -1;
		}
	}
	sp->kind = kind;
	sp->file = strdup(file);
	if (!sp->file) {
		free(vm);
		goto out_nomem;
	}
	set->nr++;
	return 0;
out_nomem:
	snprintf(err, len, "out of memory");
	return -1;
}

static int parse_hex(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || !isdigit((unsigned char)*s) ? -1 : 0;
}

int sym_set_kaslr(struct sym_set *set, const char *arg, char *err, size_t len)
{
	struct sym_spec *sp;
	const char *val;
	char *vm;
	int ret = -1;

	if (split_vm(arg, &vm, &val)) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	sp = spec_of(set, vm);
	if (!sp) {
		snprintf(err, len, "'%s': give --guest-kallsyms or --guest-map for %s%s first", arg,
			 vm ? "VM " : "every VM (no VM=)", vm ? vm : "");
		goto out;
	}
	if (sp->have_offset || sp->have_text) {
		snprintf(err, len, "'%s': a second KASLR offset for the same VM", arg);
		goto out;
	}
	if (!strncmp(val, "_text=", 6)) {
		if (parse_hex(val + 6, &sp->text_addr)) {
			snprintf(err, len, "'%s': '%s' is not an address", arg, val + 6);
			goto out;
		}
		sp->have_text = true;
	} else if (parse_hex(val, &sp->offset)) {
		snprintf(err, len, "'%s': '%s' is not an offset (0x1e000000) or _text=ADDRESS", arg, val);
		goto out;
	} else {
		sp->have_offset = true;
	}
	ret = 0;
out:
	free(vm);
	return ret;
}

int sym_set_load(struct sym_set *set, char *err, size_t len)
{
	size_t i;

	for (i = 0; i < set->nr; i++) {
		struct sym_spec *sp = &set->spec[i];

		if (sym_table_load(&sp->table, sp->file, err, len))
			return -1;
		if (sp->have_offset) {
			sp->table.offset = sp->offset;
		} else if (sp->have_text) {
			if (!sp->table.text) {
				snprintf(err, len, "%s: no _text symbol to infer the KASLR offset from", sp->file);
				return -1;
			}
			sp->table.offset = sp->text_addr - sp->table.text;
		}
	}
	return 0;
}

void sym_set_free(struct sym_set *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++) {
		sym_table_free(&set->spec[i].table);
		free(set->spec[i].vm);
		free(set->spec[i].file);
	}
	free(set->spec);
	set->spec = NULL;
	set->nr = 0;
}

const struct sym_table *sym_set_find(const struct sym_set *set, int pid, const char *vm_name)
{
	const struct sym_spec *all = NULL, *named = NULL;
	size_t i;

	if (!set)
		return NULL;
	for (i = 0; i < set->nr; i++) {
		const struct sym_spec *sp = &set->spec[i];

		if (!sp->vm)
			all = sp;
		else if (sp->pid && sp->pid == pid)
			return &sp->table;
		else if (vm_name && !strcmp(sp->vm, vm_name))
			named = sp;
	}
	return named ? &named->table : all ? &all->table : NULL;
}
