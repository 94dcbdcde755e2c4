/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoder: turns a tep_record of any KVM event into a struct kvm_event.
 * Every event format is looked at once, when the decoder is created:
 * field handles, the arch that owns it and the kernel's own reason
 * tables.  Per record there is no lookup by name.
 */
#ifndef KVMTOP_DECODE_H
#define KVMTOP_DECODE_H

#include <stdbool.h>
#include <event-parse.h>

#include "kvm_event.h"
#include "names.h"

/* What an arch wants read from its exit / entry events. */
enum field_role {
	FR_REASON,
	FR_ISA,
	FR_IP,
	FR_VCPU,
	FR_INFO1,
	FR_INFO2,
	FR_AUX,
	/* a companion's object made of several fields: the ones after its value */
	FR_PART1,
	FR_PART2,
	FR_PART3,
	FR_PART4,
	FR_NR,
};

struct field_vals {
	uint64_t v[FR_NR];
	unsigned int have;	/* bit (1 << role) set when the field exists */
};

#define FV_HAS(fv, role)	((fv)->have & (1u << (role)))

struct decode_tables;

/*
 * What an event's print fmt names: its __print_symbolic tables, and the
 * name of the field bound to each role (NULL: none).
 */
struct decode_syms {
	const struct decode_tables *tables;
	const char *field[FR_NR];
};

/*
 * The kernel's own name of value v of the field bound to role, from the
 * __print_symbolic tables of the event's print fmt, or NULL
 * (decode_tables.c: the arch files call it, and decode.c calls them).
 */
const char *decode_role_sym(const struct decode_syms *s, enum field_role role, uint64_t v);

/* A field an arch reads when it is there, and what is lost without it. */
struct field_want {
	enum field_role role;
	const char *without;	/* "no guest IPs" ... */
};

#define ARCH_WANT_MAX	4

/*
 * A companion event: one KVM writes while it handles an exit, naming
 * what the exit touched.  Its fields by name (NULL: none): the object's
 * value (masked with mask, 0: whole), its direction (write_val there
 * means a write, port I/O's out; any other value a read; OBJ_WRITE_ANY:
 * any value but 0, as the kernel's print fmt reads "rw ? write : read")
 * and its size.  value_of, where not NULL, makes the object out of the
 * value field instead of the mask (s390's opcode out of the instruction).
 */
#define OBJ_WRITE_ANY	UINT64_MAX
struct obj_event {
	const char *system;
	const char *event;
	enum kvm_obj_kind kind;
	const char *value;
	const char *dir;
	const char *size;
	uint64_t write_val;
	uint64_t mask;
	uint64_t (*value_of)(uint64_t raw);
};

/*
 * A companion's object made of several fields (arm64's system register:
 * Op0, Op1, CRn, CRm, Op2): of the event whose obj_event row names the
 * first as its value, the fields after it (read into the roles
 * FR_PART1...) and compose, which makes the object of them all.
 */
#define OBJ_PARTS	4
struct obj_parts {
	const char *event;
	const char *parts[OBJ_PARTS];
	uint64_t (*compose)(const struct field_vals *fv);
};

/*
 * An exit whose info fields name its object (x86's port I/O, SVM's MMIO
 * fault), for a source that counts exits by their fields' values rather
 * than keeping each (the bpf source): of an exit whose raw reason and
 * isa fields are reason and isa, info1 under info1_mask, and info2 under
 * info2_mask where info1 has every bit of info2_if, are all that its
 * object is made of; the rest of them differ from exit to exit.  A row
 * with reason 0 ends a table.
 */
struct exit_keep {
	uint64_t reason;
	uint64_t isa;
	uint64_t info1_mask;
	uint64_t info2_mask;
	uint64_t info2_if;
};

struct arch_ops {
	const char *name;
	const char *exit_system;
	const char *exit_event;
	const char *entry_system;
	const char *entry_event;
	/* A second entry event of the same system (LoongArch's kvm_enter), or NULL. */
	const char *entry_event2;
	/* Candidate field names per role, first match wins. */
	const char *exit_fields[FR_NR][3];
	const char *entry_fields[FR_NR][3];
	/* The exit fields that must exist for the exit event to be this arch's. */
	unsigned int exit_required;
	/* Field whose __print_symbolic table names the reason. */
	const char *reason_field;
	/* Raw fields of an exit -> isa, reason, flags (ip, vcpu are generic). */
	void (*decode_exit)(const struct field_vals *fv, struct kvm_event *ev);
	/* The raw value of the isa field the kernel's print fmt tests for isa. */
	int64_t (*isa_raw)(enum kvm_isa isa);
	/*
	 * A code no table names is written in the kernel's own notation:
	 * true: hex, as powerpc trap vectors are (0xf80); false: UNKNOWN(n).
	 */
	bool hex_codes;
	/* Built-in name tables: used when the format has none. */
	const char *(*table_name)(enum kvm_isa isa, uint32_t code);
	void (*flag_names)(enum kvm_isa isa, uint32_t flags, char *buf, size_t len);
	/*
	 * Optional, for reasons made of several fields (arm64 TRAP/SYS64):
	 * the name of ev's reason into buf, the format's tables first.
	 * Without it: reason_field's table, then table_name, then UNKNOWN(n).
	 */
	void (*reason_name)(const struct decode_syms *s, const struct field_vals *fv,
			    const struct kvm_event *ev, char *buf, size_t len);
	/* The vCPU waits (HLT, WFI, cede): not handling time. */
	bool (*blocking)(enum kvm_isa isa, uint32_t code, uint32_t flags);
	/* Asynchronous exits: their guest IPs are time samples. */
	bool (*async)(enum kvm_isa isa, uint32_t code, uint32_t flags);
	/* Optional: the reason's class; without it blocking ones are halts, async ones interrupts. */
	enum reason_class (*class_of)(enum kvm_isa isa, uint32_t code, uint32_t flags);
	/* Guest kernel/user mode may be inferred from the IP's half (kvm_guest_mode_guess). */
	bool ip_halves;
	/* Optional fields of the exit event worth a notice when missing. */
	struct field_want want[ARCH_WANT_MAX];
	/* Its companion events (a row with a NULL event ends them), or NULL. */
	const struct obj_event *obj_events;
	/* Those whose object is made of several fields (a NULL event ends them), or NULL. */
	const struct obj_parts *obj_parts;
	/* The exits whose object comes out of their info fields, or NULL. */
	const struct exit_keep *exit_keep;
};

extern const struct arch_ops arch_x86;
extern const struct arch_ops arch_arm64;
extern const struct arch_ops arch_powerpc;
extern const struct arch_ops arch_s390;
extern const struct arch_ops arch_riscv;
extern const struct arch_ops arch_loongarch;
extern const struct arch_ops arch_generic;

struct sym_table;


struct decoder {
	struct tep_handle *tep;
	struct kvm_names *names;	/* reasons interned, other events and userspace exits named */
	struct decode_fmt **by_id;	/* indexed by event id, NULL = not ours */
	int nr_ids;
	const struct arch_ops *arch;	/* arch of the exit event(s) found */
	int nr_exit_formats;
	int nr_entry_formats;
	int nr_other;			/* = names->nr_other */
	int uexit_other;		/* .other of kvm_userspace_exit, -1 if none */
	const struct decode_fmt *uexit_fmt;
	char notice[256];		/* one line to tell the user once, or "" */
	/* Records in host byte order: fields are read in place, not through tep. */
	bool native;
	bool have_common;
	int type_off, type_size;	/* common_type, for every event alike */
	int pid_off, pid_size;		/* common_pid */
	bool std_common;		/* in host order, type a u16 at 0 and pid an s32 at 4 */
	int rec_max;			/* the largest record: a page's bytes */
};

/* Limits on what a format may declare (a file's formats are not trusted). */
#define DECODE_REC_MAX	65536	/* the largest ring-buffer page read */
#define DECODE_ID_MAX	65535	/* common_type is 16 bits in every kernel */

/*
 * Bind every KVM event format of tep; names gets the other events' and
 * userspace exits' names.  -1 with one line in err: no memory, or a format
 * whose IDs, offsets or sizes no record can have.
 */
int decode_init(struct decoder *d, struct tep_handle *tep, struct kvm_names *names,
		 char *err, size_t errlen);
void decode_free(struct decoder *d);
/* 1: rec was a KVM event, now in *ev; 0: not ours; -1: no memory. */
int decode_record(struct decoder *d, struct tep_record *rec, struct kvm_event *ev);

/*
 * Where the decoder reads the records of event id type: its kind, its
 * fields' places by role (size 0: none), whether it is a companion that
 * names an object, and the exits its arch keeps info fields of.  For a
 * source that copies those fields in the kernel and hands decode_record
 * a record made of them (the bpf source).  1, or 0: not an event of ours.
 */
struct decode_layout {
	enum kvm_event_kind kind;
	bool obj;
	const char *system;
	const char *name;
	struct {
		int off;
		int size;
	} field[FR_NR];
	int rec_size;			/* a record this long holds every field */
	const struct exit_keep *keep;	/* an exit's, or NULL */
};
int decode_layout(const struct decoder *d, int type, struct decode_layout *out);

#endif
