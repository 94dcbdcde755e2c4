/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest symbols: tables read from a copy of a guest's /proc/kallsyms or
 * from its kernel's System.map, given per VM on the command line, turn
 * sampled guest IPs into symbol+0xoff.  A table read from System.map
 * holds link-time addresses: a KASLR guest's are shifted by an offset,
 * given, or inferred from the running guest's _text address.
 */
#ifndef KVMTOP_SYM_H
#define KVMTOP_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An address at least this far past its symbol is not taken as in it. */
#define SYM_MAX_SIZE	(1u << 20)

struct sym {
	uint64_t addr;		/* as in the file */
	uint32_t name;		/* offset in the table's pool */
	uint32_t module;	/* offset of "[module]" in the pool, 0: the kernel's own */
	bool text;		/* code (t, T, w, W): the others only end the one before */
};

struct sym_table {
	struct sym *s;		/* by address */
	size_t nr;
	char *pool;		/* pool[0] is "" */
	size_t pool_len;
	size_t pool_alloc;
	uint64_t text;		/* the file's _text, 0: none */
	uint64_t offset;	/* KASLR: a running address minus the file's (mod 2^64) */
};

enum sym_kind { SYM_KALLSYMS, SYM_MAP };

/* A kallsyms line: 16 hex digits, a type, a name of up to KSYM_NAME_LEN (512), a module. */
#define SYM_LINE_MAX	1023
/* Lines in one file: a kernel with every module has a few hundred thousand. */
#define SYM_LINES_MAX	(16 << 20)

/* One --guest-kallsyms / --guest-map: which VM (all if vm is NULL), which file. */
struct sym_spec {
	char *vm;		/* a name, or NULL: every VM without its own */
	int pid;		/* the VM's host pid when vm is all digits, else 0 */
	char *file;
	enum sym_kind kind;
	/* --guest-kaslr for the same VM */
	bool have_offset;
	uint64_t offset;
	bool have_text;		/* offset inferred: text_addr minus the file's _text */
	uint64_t text_addr;
	struct sym_table table;
};

struct sym_set {
	struct sym_spec *spec;
	size_t nr;
};

/*
 * --guest-kallsyms / --guest-map VM=FILE (or FILE, for every VM): 0, or
 * -1 with the reason in err.
 */
int sym_set_add(struct sym_set *set, const char *arg, enum sym_kind kind, char *err, size_t len);
/* --guest-kaslr VM=OFFSET or VM=_text=ADDRESS (VM= may be left out): 0 or -1 (err). */
int sym_set_kaslr(struct sym_set *set, const char *arg, char *err, size_t len);
/* Read every file: 0, or -1 with "FILE:LINE: what is wrong" in err. */
int sym_set_load(struct sym_set *set, char *err, size_t len);
void sym_set_free(struct sym_set *set);
/* The table for a VM: its pid's, else its name's, else the one for every VM; NULL: none. */
const struct sym_table *sym_set_find(const struct sym_set *set, int pid, const char *vm_name);

/* Read one file into t: 0, or -1 (err). */
int sym_table_load(struct sym_table *t, const char *path, char *err, size_t len);
void sym_table_free(struct sym_table *t);
/* The symbol holding a running guest's ip, and ip's offset in it; NULL: none. */
const struct sym *sym_lookup(const struct sym_table *t, uint64_t ip, uint64_t *off);
/* "name" or "name [module]" of s, raw: escape before printing */
void sym_name(const struct sym_table *t, const struct sym *s, bool with_offset, uint64_t off,
	      char *buf, size_t len);
/*
 * A guest IP as the outputs name it: 1, "name+0xoff [module]" (or
 * without the offset); 0, "[unknown]": t has no symbol for it; -1,
 * "0x..." in hex: no table (t NULL).  Raw: escape before printing.
 */
int sym_ip(const struct sym_table *t, uint64_t ip, bool with_offset, char *buf, size_t len);

#endif
