// SPDX-License-Identifier: GPL-2.0
/*
 * Decoder.  For each event format of the recording or of the running
 * kernel, decode_init() decides once whether it is an exit, an entry or
 * another KVM event, keeps the field handles the arch asks for, and
 * collects the __print_symbolic tables of its print fmt, so reason names
 * come from the kernel that wrote the events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "decode_tables.h"

struct reason_cache_ent {
	uint64_t key;		/* isa << 56 | flags-present << 55 | flags >> 16 << 32 | code; 0 = empty */
	int id;
};

struct decode_fmt {
	enum kvm_event_kind kind;
	const struct arch_ops *arch;
	struct tep_event *event;
	struct tep_format_field *f[FR_NR];
	/* sched_switch: prev_comm and next_comm, char arrays; NULL where there are none */
	struct tep_format_field *comm[2];
	unsigned int have;
	/* the fields of have, as read per record: no walk through libtraceevent's */
	struct field_slot {
		int off;
		int end;		/* off + size */
		unsigned char size;	/* 1, 2, 4 or 8 */
		unsigned char role;
		bool sign;
		unsigned char shift;	/* 64 - 8 * size: the field's top bits to its value */
	} slot[FR_NR];
	unsigned int nr_slots;
	int slots_end;			/* a record this long has every slot's field */
	/*
	 * Every slot's field ends 8 bytes or more into the record: in host
	 * order on a little-endian host each is the top of the 8 bytes that
	 * end with it, read with one load and one shift, without a branch.
	 */
	bool wide;
	struct decode_tables tables;	/* the print fmt's __print_symbolic tables */
	struct decode_syms syms;	/* the same with the fields' names, for the arch */
	int other;
	const struct obj_event *obj;	/* a companion event: what its fields say, else NULL */
	const struct obj_parts *parts;	/* its object made of several fields, else NULL */
	struct reason_cache_ent *cache;
	unsigned int cache_size;	/* power of two */
	unsigned int cache_used;
	unsigned int cache_other;	/* entries of those that map to OTHER */
};

#define DECODE_CACHE_OTHER	256

/*
 * Tried in this order; the first whose exit event has all its required
 * fields owns it.  arm64 goes before x86: the arm 4.x kvm_exit has an
 * exit_reason too, but never x86's guest_rip, and always vcpu_pc.
 * RISC-V's kvm_exit is the one with scause, LoongArch's the one with
 * reason and pc.
 */
static const struct arch_ops *const arches[] = {
	&arch_arm64,
	&arch_x86,
	&arch_powerpc,
	&arch_s390,
	&arch_riscv,
	&arch_loongarch,
};

/* --- formats --- */

static struct tep_format_field *find_field(struct tep_event *e, const char *const names[3])
{
	int i;

	for (i = 0; i < 3 && names[i]; i++) {
		struct tep_format_field *f = tep_find_field(e, names[i]);

		if (f)
			return f;
	}
	return NULL;
}

/*
 * A field kvmtop reads must lie inside a record.  Offsets and sizes come
 * from the file (or tracefs) as signed ints; checked here, once, so that
 * offset + size can never overflow or point before the record later.
 */
static int check_field(const struct decoder *d, const struct tep_event *e,
		       const struct tep_format_field *fld, char *err, size_t errlen)
{
	if (fld->offset >= 0 && fld->size > 0 && fld->size <= d->rec_max &&
	    fld->offset <= d->rec_max - fld->size)
		return 0;
	snprintf(err, errlen,
		 "event %s:%s, field %s: offset %d and size %d lie outside a record (0 to %d bytes)",
		 e->system, e->name, fld->name, fld->offset, fld->size, d->rec_max);
	return -1;
}

static int bind_fields(const struct decoder *d, struct decode_fmt *f,
		       const char *const names[FR_NR][3], char *err, size_t errlen)
{
	int r;

	for (r = 0; r < FR_NR; r++) {
		f->f[r] = names[r][0] ? find_field(f->event, names[r]) : NULL;
		if (!f->f[r])
			continue;
		/* Arrays, strings and odd sizes cannot be read as a number. */
		if (f->f[r]->size != 1 && f->f[r]->size != 2 &&
		    f->f[r]->size != 4 && f->f[r]->size != 8) {
			f->f[r] = NULL;
			continue;
		}
		if (check_field(d, f->event, f->f[r], err, errlen))
			return -1;
		f->have |= 1u << r;
		f->syms.field[r] = f->f[r]->name;
		f->slot[f->nr_slots++] = (struct field_slot){
			.off = f->f[r]->offset,
			.end = f->f[r]->offset + f->f[r]->size,
			.size = (unsigned char)f->f[r]->size,
			.role = (unsigned char)r,
			.sign = f->f[r]->flags & TEP_FIELD_IS_SIGNED,
			.shift = (unsigned char)(64 - 8 * f->f[r]->size),
		};
		if (f->slots_end < f->f[r]->offset + f->f[r]->size)
			f->slots_end = f->f[r]->offset + f->f[r]->size;
	}
	f->wide = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	for (r = 0; r < (int)f->nr_slots; r++)
		if (f->slot[r].end < 8)
			f->wide = false;
	return 0;
}

static struct decode_fmt *fmt_new(struct tep_event *e, enum kvm_event_kind kind,
				  const struct arch_ops *arch)
{
	struct decode_fmt *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->event = e;
	f->kind = kind;
	f->arch = arch;
	f->other = -1;
	f->syms.tables = &f->tables;
	if (decode_tables_collect(&f->tables, e)) {
		decode_tables_free(&f->tables);
		free(f);
		return NULL;
	}
	return f;
}

static void fmt_free(struct decode_fmt *f)
{
	if (!f)
		return;
	decode_tables_free(&f->tables);
	free(f->cache);
	free(f);
}

static bool is_kvm_system(const char *sys)
{
	return !strcmp(sys, "kvm") || !strcmp(sys, "kvm_hv") || !strcmp(sys, "kvmmmu");
}

/*
 * The scheduler and task events kvmtop reads, and their fields in the
 * roles of field_vals (they have no arch): prev_pid, next_pid and
 * prev_state of a switch, the woken pid of a wakeup, the new thread and
 * its clone flags of a task_newtask (whose common_pid is its creator).
 * Both wakeup events may be there; a second wakeup of a runnable thread
 * changes nothing.
 */
#define SCHED_SWITCH_FIELDS	(1u << FR_AUX | 1u << FR_INFO1 | 1u << FR_INFO2)

static const struct sched_want {
	const char *system;
	const char *name;
	enum kvm_event_kind kind;
	const char *fields[FR_NR][3];
	unsigned int required;
} sched_wants[] = {
	{ "sched", "sched_switch", KVM_EV_SWITCH,
	  { [FR_AUX] = { "prev_pid" }, [FR_INFO1] = { "next_pid" }, [FR_INFO2] = { "prev_state" } },
	  SCHED_SWITCH_FIELDS },
	{ "sched", "sched_waking", KVM_EV_WAKE, { [FR_AUX] = { "pid" }, [FR_INFO1] = { "target_cpu" } }, 1u << FR_AUX },
	{ "sched", "sched_wakeup", KVM_EV_WAKE, { [FR_AUX] = { "pid" }, [FR_INFO1] = { "target_cpu" } }, 1u << FR_AUX },
	/* a new thread's first wakeup: it waits for a CPU from its birth (live: the sched instance's) */
	{ "sched", "sched_wakeup_new", KVM_EV_WAKE, { [FR_AUX] = { "pid" }, [FR_INFO1] = { "target_cpu" } }, 1u << FR_AUX },
	{ "task", "task_newtask", KVM_EV_NEWTASK, { [FR_AUX] = { "pid" }, [FR_INFO1] = { "clone_flags" } },
	  1u << FR_AUX | 1u << FR_INFO1 },
};

#define NR_SCHED_WANTS	(sizeof(sched_wants) / sizeof(sched_wants[0]))

static bool is_ours(const struct tep_event *e)
{
	size_t i;

	if (is_kvm_system(e->system))
		return true;
	for (i = 0; i < NR_SCHED_WANTS; i++)
		if (!strcmp(e->system, sched_wants[i].system) && !strcmp(e->name, sched_wants[i].name))
			return true;
	return false;
}

/* A thread name field of e (a char array inside the record), or NULL. */
static struct tep_format_field *comm_field(const struct decoder *d, struct tep_event *e, const char *name)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || f->size <= 0 || f->offset < 0 ||
	    f->offset + f->size > d->rec_max)
		return NULL;
	return f;
}

/* A thread name out of record data of size bytes into out (KVM_COMM_LEN), "" if none. */
static void read_comm(const struct tep_format_field *f, const void *data, int size, char *out)
{
	int n;

	out[0] = '\0';
	if (!f || f->offset + f->size > size)
		return;
	n = f->size < KVM_COMM_LEN - 1 ? f->size : KVM_COMM_LEN - 1;
	memcpy(out, (const char *)data + f->offset, (size_t)n);
	out[n] = '\0';
}

/* The sched events of tep, bound; one without its fields is left out. */
static int bind_sched(struct decoder *d, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < NR_SCHED_WANTS; i++) {
		const struct sched_want *w = &sched_wants[i];
		struct tep_event *e = tep_find_event_by_name(d->tep, w->system, w->name);
		struct decode_fmt *f;

		if (!e || e->id < 0 || e->id >= d->nr_ids)
			continue;
		f = fmt_new(e, w->kind, NULL);
		if (!f)
			return -1;
		if (bind_fields(d, f, w->fields, err, errlen)) {
			fmt_free(f);
			return -2;
		}
		if ((f->have & w->required) != w->required) {
			fmt_free(f);
			continue;
		}
		d->by_id[e->id] = f;
		if (w->kind == KVM_EV_SWITCH) {
			d->names->sched = true;
			f->comm[0] = comm_field(d, e, "prev_comm");
			f->comm[1] = comm_field(d, e, "next_comm");
		}
		if (w->kind == KVM_EV_NEWTASK)
			f->comm[0] = comm_field(d, e, "comm");
	}
	return 0;
}

static unsigned int missing_required(const struct arch_ops *a, struct tep_event *e)
{
	unsigned int missing = 0;
	int r;

	for (r = 0; r < FR_NR; r++)
		if ((a->exit_required & (1u << r)) && !find_field(e, a->exit_fields[r]))
			missing |= 1u << r;
	return missing;
}

/*
 * The arch whose exit event this is, or the generic fallback; NULL with
 * err set when the format lost the fields to a parse error (a corrupt
 * format, e.g. a negative offset, is not a kernel without the field).
 */
static const struct arch_ops *pick_arch(struct tep_event *e, struct decoder *d,
					char *err, size_t errlen)
{
	const struct arch_ops *a, *named = NULL;
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		a = arches[i];
		if (strcmp(e->system, a->exit_system) || strcmp(e->name, a->exit_event))
			continue;
		if (!missing_required(a, e))
			return a;
		if (!named)
			named = a;
	}
	if (named && !d->notice[0]) {
		char fields[96] = "";

		/* the fields that would have made it one arch's or another's */
		for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
			unsigned int m;
			int r;

			a = arches[i];
			if (strcmp(e->system, a->exit_system) || strcmp(e->name, a->exit_event))
				continue;
			m = missing_required(a, e);
			for (r = 0; r < FR_NR; r++)
				if (m & (1u << r)) {
					if (fields[0])
						strlcat(fields, "' or '", sizeof(fields));
					strlcat(fields, a->exit_fields[r][0], sizeof(fields));
				}
		}
		if (e->flags & TEP_EVENT_FL_FAILED) {
			snprintf(err, errlen, "event %s:%s: its format does not parse (no field '%s')",
				 e->system, e->name, fields);
			return NULL;
		}
		snprintf(d->notice, sizeof(d->notice),
			 "%s:%s has no field '%s': counting its exits per thread with UNKNOWN reasons",
			 e->system, e->name, fields);
	}
	return &arch_generic;
}

/* Once: the optional exit fields this layout lacks, and what that turns off. */
static void note_wanted(struct decoder *d, const struct decode_fmt *f)
{
	const struct arch_ops *a = f->arch;
	size_t len;
	int i;

	if (d->notice[0])
		return;
	for (i = 0; i < ARCH_WANT_MAX && a->want[i].without; i++) {
		enum field_role r = a->want[i].role;

		if (f->have & (1u << r))
			continue;
		len = strlen(d->notice);
		snprintf(d->notice + len, sizeof(d->notice) - len, "%s%s:%s has no field '%s' (%s)",
			 len ? "; " : "", f->event->system, f->event->name,
			 a->exit_fields[r][0], a->want[i].without);
	}
}

static bool is_exit_event(struct tep_event *e)
{
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (!strcmp(e->system, arches[i]->exit_system) &&
		    !strcmp(e->name, arches[i]->exit_event))
			return true;
	return !strcmp(e->system, "kvm") && !strcmp(e->name, "kvm_exit");
}

/* e is one of a's entry events (LoongArch has two). */
static bool is_entry_of(const struct arch_ops *a, const struct tep_event *e)
{
	if (strcmp(e->system, a->entry_system))
		return false;
	return !strcmp(e->name, a->entry_event) ||
	       (a->entry_event2 && !strcmp(e->name, a->entry_event2));
}

/*
 * The arch of an entry event: that of the exit events first (x86, arm
 * and RISC-V share kvm_entry), else the first arch that has it, or NULL.
 */
static const struct arch_ops *entry_arch(const struct decoder *d, struct tep_event *e)
{
	size_t i;

	if (d->arch && is_entry_of(d->arch, e))
		return d->arch;
	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (is_entry_of(arches[i], e))
			return arches[i];
	if (!strcmp(e->system, "kvm") && !strcmp(e->name, "kvm_entry"))
		return &arch_generic;
	return NULL;
}

/*
 * Where common_type and common_pid are.  They sit at the same place in
 * every event of a kernel (the common fields come first); taken from any
 * event that has them.  With none, no record is decoded.
 */
static int bind_common(struct decoder *d, char *err, size_t errlen)
{
	int i, n = tep_get_events_count(d->tep);

	d->native = tep_is_file_bigendian(d->tep) == tep_is_local_bigendian(d->tep);
	for (i = 0; i < n; i++) {
		struct tep_event *e = tep_get_event(d->tep, i);
		struct tep_format_field *ft, *fp;

		if (!e)
			continue;
		ft = tep_find_common_field(e, "common_type");
		fp = tep_find_common_field(e, "common_pid");
		if (!ft || !fp)
			continue;
		if (check_field(d, e, ft, err, errlen) || check_field(d, e, fp, err, errlen))
			return -1;
		d->type_off = ft->offset;
		d->type_size = ft->size;
		d->pid_off = fp->offset;
		d->pid_size = fp->size;
		d->have_common = d->type_size <= 8 && d->pid_size <= 8;
		/* every kernel's: a u16 type first, an s32 pid at 4, read in place */
		d->std_common = d->native && d->type_off == 0 && d->type_size == 2 &&
				d->pid_off == 4 && d->pid_size == 4;
		return 0;
	}
	return 0;
}

/* The running kernel's names of the userspace exits, where its format has them. */
static void name_uexits(struct kvm_names *names, const struct decode_fmt *f)
{
	const char *s;
	int i;

	for (i = 0; i < UEXIT_MAX - 1; i++) {
		s = decode_tables_sym(&f->tables, "reason", false, 0, i);
		if (!s)
			continue;
		/* the kernel prints KVM_EXIT_IO; the prefix says nothing here */
		if (!strncmp(s, "KVM_EXIT_", 9))
			s += 9;
		strlcpy(names->uexit[i], s, sizeof(names->uexit[i]));
	}
}

/*
 * The ID table, as long as the largest KVM event's ID (only those are
 * looked up by ID; the sched events kvmtop reads are in it too).  0, -1
 * with err set (an ID past 16 bits), -2 (no memory).
 */
static int alloc_ids(struct decoder *d, char *err, size_t errlen)
{
	int i, n = tep_get_events_count(d->tep), max_id = -1;
	struct tep_event *e;

	for (i = 0; i < n; i++) {
		e = tep_get_event(d->tep, i);
		if (!e || !e->system || !e->name || !is_ours(e))
			continue;
		if (e->id < 0 || e->id > DECODE_ID_MAX) {
			snprintf(err, errlen, "event %s:%s has ID %d; an event ID is from 0 to %d (common_type is 16 bits)",
				 e->system, e->name, e->id, DECODE_ID_MAX);
			return -1;
		}
		if (e->id > max_id)
			max_id = e->id;
	}
	d->nr_ids = max_id + 1;
	d->by_id = calloc(d->nr_ids ? d->nr_ids : 1, sizeof(*d->by_id));
	return d->by_id ? 0 : -2;
}

/* The exit events: they decide the arch.  0, -1 (err set), -2 (no memory). */
static int bind_exits(struct decoder *d, char *err, size_t errlen)
{
	int i, n = tep_get_events_count(d->tep);

	for (i = 0; i < n; i++) {
		struct tep_event *e = tep_get_event(d->tep, i);
		const struct arch_ops *a;
		struct decode_fmt *f;

		if (!e || e->id < 0 || !e->system || !is_kvm_system(e->system) || !is_exit_event(e))
			continue;
		a = pick_arch(e, d, err, errlen);
		if (!a)
			return -1;
		f = fmt_new(e, KVM_EV_EXIT, a);
		if (!f)
			return -2;
		d->by_id[e->id] = f;
		if (bind_fields(d, f, a->exit_fields, err, errlen))
			return -1;
		note_wanted(d, f);
		if (!d->arch || d->arch == &arch_generic)
			d->arch = a;
		d->nr_exit_formats++;
	}
	return 0;
}

/*
 * If e is a companion event of the arch (kvm_pio, kvm_msr ...), its
 * object's fields bound: value, direction and size in the roles INFO1,
 * INFO2 and REASON.  One without its value field names no object.
 * 0, or -1 (err set).
 */
static int bind_obj(struct decoder *d, struct decode_fmt *f, char *err, size_t errlen)
{
	const struct obj_event *o = d->arch ? d->arch->obj_events : NULL;
	const struct obj_parts *p = d->arch ? d->arch->obj_parts : NULL;
	const char *names[FR_NR][3] = { { NULL } };
	int i;

	for (; o && o->event; o++)
		if (!strcmp(f->event->system, o->system) && !strcmp(f->event->name, o->event))
			break;
	if (!o || !o->event)
		return 0;
	for (; p && p->event && strcmp(p->event, o->event); p++)
		;
	names[FR_INFO1][0] = o->value;
	names[FR_INFO2][0] = o->dir;
	names[FR_REASON][0] = o->size;
	for (i = 0; p && p->event && i < OBJ_PARTS; i++)
		names[FR_PART1 + i][0] = p->parts[i];
	if (bind_fields(d, f, (const char *const (*)[3])names, err, errlen))
		return -1;
	if (f->have & (1u << FR_INFO1)) {
		f->obj = o;
		f->parts = p && p->event ? p : NULL;
	}
	return 0;
}

/* Another KVM event e: counted by name; kvm_userspace_exit by its reason too.  0, -1, -2. */
static int bind_other(struct decoder *d, struct tep_event *e, char *err, size_t errlen)
{
	static const char *const uexit_fields[FR_NR][3] = {
		[FR_AUX] = { "reason" },
		[FR_VCPU] = { "vcpu_id" },
	};
	struct decode_fmt *f = fmt_new(e, KVM_EV_OTHER, NULL);

	if (!f)
		return -2;
	d->by_id[e->id] = f;
	f->other = d->nr_other;
	d->names->other[d->nr_other++] = e->name;
	d->names->nr_other = d->nr_other;
	if (!strcmp(e->name, "kvm_userspace_exit")) {
		if (bind_fields(d, f, uexit_fields, err, errlen))
			return -1;
		d->uexit_other = f->other;
		d->uexit_fmt = f;
		return 0;
	}
	return bind_obj(d, f, err, errlen);
}

/* Then the entries, of the exits' arch, and every other KVM event.  0, -1, -2. */
static int bind_rest(struct decoder *d, char *err, size_t errlen)
{
	int i, n = tep_get_events_count(d->tep), ret;

	for (i = 0; i < n; i++) {
		struct tep_event *e = tep_get_event(d->tep, i);
		const struct arch_ops *a;
		struct decode_fmt *f;

		if (!e || e->id < 0 || !e->system || !is_kvm_system(e->system) || d->by_id[e->id])
			continue;
		if ((a = entry_arch(d, e))) {
			f = fmt_new(e, KVM_EV_ENTRY, a);
			if (!f)
				return -2;
			d->by_id[e->id] = f;
			if (bind_fields(d, f, a->entry_fields, err, errlen))
				return -1;
			d->nr_entry_formats++;
		} else if (d->nr_other < DECODE_OTHER_MAX) {
			ret = bind_other(d, e, err, errlen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int decode_init(struct decoder *d, struct tep_handle *tep, struct kvm_names *names,
		char *err, size_t errlen)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->tep = tep;
	d->names = names;
	d->uexit_other = -1;
	/* a record lies within one ring-buffer page */
	d->rec_max = tep_get_page_size(tep);
	if (d->rec_max <= 0 || d->rec_max > DECODE_REC_MAX)
		d->rec_max = DECODE_REC_MAX;
	/* exits first: they decide the arch, and the entries follow it */
	ret = alloc_ids(d, err, errlen);
	if (!ret)
		ret = bind_exits(d, err, errlen);
	if (!ret)
		ret = bind_rest(d, err, errlen);
	if (ret == -2)
		goto out_nomem;
	if (ret)
		goto out_free;
	if (!d->arch)
		d->arch = &arch_generic;
	switch (bind_sched(d, err, errlen)) {
	case -1:
		goto out_nomem;
	case -2:
		goto out_free;
	}
	names->entries = d->nr_entry_formats > 0;
	names->uexit_other = d->uexit_other;
	if (bind_common(d, err, errlen))
		goto out_free;
	if (d->uexit_fmt)
		name_uexits(names, d->uexit_fmt);
	return 0;

out_nomem:
	snprintf(err, errlen, "out of memory");
out_free:
	decode_free(d);
	return -1;
}

void decode_free(struct decoder *d)
{
	int i;

	for (i = 0; i < d->nr_ids; i++)
		fmt_free(d->by_id[i]);
	free(d->by_id);
	d->by_id = NULL;
	d->nr_ids = 0;
}

/* A number of size bytes at p: in place when the record is in host order. */
static inline uint64_t read_num(const struct decoder *d, const void *p, int size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	if (!d->native)
		return tep_read_number(d->tep, p, size);
	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	case 8:
		memcpy(&v64, p, 8);
		return v64;
	}
	return tep_read_number(d->tep, p, size);
}

/*
 * The field of slot sl from top, a 64-bit word whose top bytes are the
 * field's: shifted down, by an arithmetic shift where the field is signed.
 */
static inline uint64_t slot_value(const struct field_slot *sl, uint64_t top)
{
	return sl->sign ? (uint64_t)((int64_t)top >> sl->shift) : top >> sl->shift;
}

static inline void read_fields(const struct decoder *d, const struct decode_fmt *f,
			       const void *data, int size, struct field_vals *fv)
{
	unsigned int i;

	/* the common case: a record in host order that holds every field */
	if (size >= f->slots_end && f->wide && d->native) {
		for (i = 0; i < f->nr_slots; i++) {
			const struct field_slot *sl = &f->slot[i];
			uint64_t v;

			memcpy(&v, (const char *)data + sl->end - 8, sizeof(v));
			fv->v[sl->role] = slot_value(sl, v);
		}
		fv->have = f->have;
		return;
	}
	fv->have = 0;
	for (i = 0; i < f->nr_slots; i++) {
		const struct field_slot *sl = &f->slot[i];

		if (sl->end > size)
			continue;
		fv->v[sl->role] = slot_value(sl, read_num(d, (const char *)data + sl->off, sl->size) << sl->shift);
		fv->have |= 1u << sl->role;
	}
}

static int reason_id_slow(struct decoder *d, struct decode_fmt *f,
			  const struct field_vals *fv, const struct kvm_event *ev)
{
	const struct arch_ops *a = f->arch;
	const char *name = NULL;
	char buf[48], flags[32] = "";
	bool blocking, async;
	int id;

	if (a->reason_name) {
		a->reason_name(&f->syms, fv, ev, buf, sizeof(buf));
		name = buf;
	}
	if (!name && a->reason_field && FV_HAS(fv, FR_REASON))
		name = decode_tables_sym(&f->tables, a->reason_field, FV_HAS(fv, FR_ISA),
				  FV_HAS(fv, FR_ISA) ? (int64_t)fv->v[FR_ISA] : 0,
				  ev->reason);
	if (!name && a->table_name)
		name = a->table_name(ev->isa, ev->reason);
	if (!name) {
		snprintf(buf, sizeof(buf), a->hex_codes ? "0x%x" : "UNKNOWN(%u)", ev->reason);
		name = buf;
	}
	if (ev->flags && a->flag_names)
		a->flag_names(ev->isa, ev->flags, flags, sizeof(flags));
	blocking = a->blocking ? a->blocking(ev->isa, ev->reason, ev->flags) : false;
	async = a->async ? a->async(ev->isa, ev->reason, ev->flags) : false;
	id = reason_intern(&d->names->reasons, ev->isa, ev->reason, ev->flags, name, flags, blocking, async);
	reason_set_class(&d->names->reasons, id,
			 a->class_of ? a->class_of(ev->isa, ev->reason, ev->flags) :
			 blocking ? RC_HALT : async ? RC_INTERRUPT : RC_OTHER);
	return id;
}

/* The slot of key in cache c (size a power of two, never full), or the empty one it would take. */
static inline unsigned int cache_slot(const struct reason_cache_ent *c, unsigned int size, uint64_t key)
{
	unsigned int i;

	for (i = key * 0x9e3779b97f4a7c15ull >> 40 & (size - 1); c[i].key && c[i].key != key;
	     i = (i + 1) & (size - 1))
		;
	return i;
}

/* The cache of f with twice its slots (64 at first): 0, or -1 (no memory). */
static int cache_grow(struct decode_fmt *f)
{
	unsigned int n = f->cache_size ? f->cache_size * 2 : 64, i;
	struct reason_cache_ent *c = calloc(n, sizeof(*c));

	if (!c)
		return -1;
	for (i = 0; i < f->cache_size; i++)
		if (f->cache[i].key)
			c[cache_slot(c, n, f->cache[i].key)] = f->cache[i];
	free(f->cache);
	f->cache = c;
	f->cache_size = n;
	return 0;
}

/* Reason id of ev through the format's cache: one probe per record. */
static int reason_id(struct decoder *d, struct decode_fmt *f,
		     const struct field_vals *fv, const struct kvm_event *ev)
{
	uint64_t key = (uint64_t)ev->isa << 56 | (uint64_t)(ev->flags >> 16) << 32 |
		       (ev->flags ? 1ull << 55 : 0) | ev->reason | 1ull << 63;
	unsigned int i = 0;
	int id;

	if (f->cache_size) {
		i = cache_slot(f->cache, f->cache_size, key);
		if (f->cache[i].key)
			return f->cache[i].id;
	}
	id = reason_id_slow(d, f, fv, ev);
	if (id < 0)
		return -1;
	/*
	 * Past the table's REASON_MAX every new code is OTHER: caching each
	 * of them would grow without bound (300k distinct SVM codes took
	 * 58 MB), so only the first few are kept; the rest take the slow path,
	 * whose cost is bounded by the table.
	 */
	if (id == d->names->reasons.other_id && f->cache_other >= DECODE_CACHE_OTHER)
		return id;
	/* at most half full, so that a probe ends soon */
	if ((f->cache_used + 1) * 2 > f->cache_size) {
		if (cache_grow(f))
			return -1;
		i = cache_slot(f->cache, f->cache_size, key);
	}
	if (id == d->names->reasons.other_id)
		f->cache_other++;
	f->cache[i].key = key;
	f->cache[i].id = id;
	f->cache_used++;
	return id;
}

/*
 * A record's common_type (its event's id), and its common_pid into *tid:
 * read in place where the recording is in host order with the standard
 * header, else by the format's offsets.  -1: a record too short for them.
 */
static inline int common_type(const struct decoder *d, const struct tep_record *rec, int *tid)
{
	if (d->std_common && rec->size >= 8) {
		uint16_t t16;
		int32_t pid;

		memcpy(&t16, rec->data, sizeof(t16));
		memcpy(&pid, (const char *)rec->data + 4, sizeof(pid));
		*tid = pid;
		return t16;
	}
	if (!d->have_common || rec->size < d->type_off + d->type_size ||
	    rec->size < d->pid_off + d->pid_size)
		return -1;
	*tid = (int)read_num(d, (const char *)rec->data + d->pid_off, d->pid_size);
	return (int)read_num(d, (const char *)rec->data + d->type_off, d->type_size);
}

/* A companion event's object out of its fields (bind_obj's roles). */
static inline void decode_obj(const struct decode_fmt *f, const struct field_vals *fv,
			      struct kvm_event *ev)
{
	const struct obj_event *o = f->obj;

	if (!FV_HAS(fv, FR_INFO1))
		return;
	ev->obj_kind = o->kind;
	if (f->parts)
		ev->obj = f->parts->compose(fv);
	else if (o->value_of)
		ev->obj = o->value_of(fv->v[FR_INFO1]);
	else
		ev->obj = o->mask ? fv->v[FR_INFO1] & o->mask : fv->v[FR_INFO1];
	ev->obj_dir = !FV_HAS(fv, FR_INFO2) ? OBJ_DIR_NONE :
		      fv->v[FR_INFO2] == o->write_val || (o->write_val == OBJ_WRITE_ANY && fv->v[FR_INFO2]) ?
		      OBJ_DIR_WRITE : OBJ_DIR_READ;
	ev->obj_size = FV_HAS(fv, FR_REASON) && fv->v[FR_REASON] < 256 ? (uint8_t)fv->v[FR_REASON] : 0;
}

/*
 * The scheduler's and the task events (sched_switch, sched_waking,
 * task_newtask) of a record: 1, or 0 where the record is too short for
 * the fields it needs (a corrupt file), so that it is not one.
 */
static int decode_task(const struct decode_fmt *f, const struct field_vals *fv,
		       const struct tep_record *rec, struct kvm_event *ev)
{
	switch (f->kind) {
	case KVM_EV_SWITCH:
		/* a record too short for its fields (a corrupt file) is not one */
		if ((fv->have & SCHED_SWITCH_FIELDS) != SCHED_SWITCH_FIELDS)
			return 0;
		ev->tid = (int)fv->v[FR_AUX];
		ev->next_tid = (int)fv->v[FR_INFO1];
		ev->state = fv->v[FR_INFO2];
		ev->vcpu_id = KVM_VCPU_NONE;
		read_comm(f->comm[0], rec->data, rec->size, ev->prev_comm);
		read_comm(f->comm[1], rec->data, rec->size, ev->next_comm);
		break;
	case KVM_EV_WAKE:
		if (!FV_HAS(fv, FR_AUX))
			return 0;
		ev->tid = (int)fv->v[FR_AUX];
		ev->vcpu_id = KVM_VCPU_NONE;
		/* an out-of-range CPU is none known */
		ev->wake_cpu = FV_HAS(fv, FR_INFO1) && fv->v[FR_INFO1] < 65536 ? (int)fv->v[FR_INFO1] : -1;
		break;
	case KVM_EV_NEWTASK:
		if ((fv->have & (1u << FR_AUX | 1u << FR_INFO1)) != (1u << FR_AUX | 1u << FR_INFO1) ||
		    (int)fv->v[FR_AUX] <= 0)
			return 0;
		ev->next_tid = (int)fv->v[FR_AUX];
		ev->vcpu_id = KVM_VCPU_NONE;
		read_comm(f->comm[0], rec->data, rec->size, ev->next_comm);
		break;
	default:
		break;
	}
	return 1;
}

/*
 * Every record of every source passes here, and where this function
 * starts weighs more than most of what it does: on the AMD EPYC make
 * bench runs on, a start 16 bytes past a cache line (only code linked
 * before it had changed) made a replay of the bench recording 1.3x as
 * slow as one on the line.  So it starts on a 64-byte line.
 */
__attribute__((aligned(64)))
int decode_record(struct decoder *d, struct tep_record *rec, struct kvm_event *ev)
{
	struct decode_fmt *f;
	struct field_vals fv;
	int type = common_type(d, rec, &ev->tid);

	if (type < 0 || type >= d->nr_ids || !(f = d->by_id[type]))
		return 0;

	ev->time = rec->ts;
	ev->cpu = rec->cpu;
	ev->kind = f->kind;
	ev->other = f->other;
	ev->sub = -1;
	ev->obj_kind = KVM_OBJ_NONE;
	if (f->kind == KVM_EV_OTHER && !f->have) {
		/* most events are only counted: nothing else to read */
		ev->vcpu_id = KVM_VCPU_NONE;
		return 1;
	}
	read_fields(d, f, rec->data, rec->size, &fv);
	ev->vcpu_id = FV_HAS(&fv, FR_VCPU) ? (int)fv.v[FR_VCPU] : KVM_VCPU_NONE;
	ev->ip = FV_HAS(&fv, FR_IP) ? fv.v[FR_IP] : 0;
	ev->isa = ISA_UNKNOWN;
	ev->reason = 0;
	ev->flags = 0;
	ev->info1 = FV_HAS(&fv, FR_INFO1) ? fv.v[FR_INFO1] : 0;
	ev->info2 = FV_HAS(&fv, FR_INFO2) ? fv.v[FR_INFO2] : 0;
	ev->ninfo = FV_HAS(&fv, FR_INFO2) ? 2 : FV_HAS(&fv, FR_INFO1) ? 1 : 0;
	ev->mode = GUEST_MODE_UNKNOWN;
	ev->reason_id = -1;

	switch (f->kind) {
	case KVM_EV_EXIT:
		ev->obj_dir = OBJ_DIR_NONE;
		ev->obj_size = 0;
		f->arch->decode_exit(&fv, ev);
		if (ev->mode == GUEST_MODE_UNKNOWN && f->arch->ip_halves && FV_HAS(&fv, FR_IP))
			ev->mode = kvm_guest_mode_guess(ev->ip);
		ev->reason_id = reason_id(d, f, &fv, ev);
		if (ev->reason_id < 0)
			return -1;
		break;
	case KVM_EV_ENTRY:
		break;
	case KVM_EV_OTHER:
		if (f->obj) {
			decode_obj(f, &fv, ev);
			break;
		}
		if (FV_HAS(&fv, FR_AUX))
			ev->sub = fv.v[FR_AUX] < UEXIT_MAX - 1 ? (int)fv.v[FR_AUX] : UEXIT_MAX - 1;
		break;
	default:
		return decode_task(f, &fv, rec, ev);
	}
	return 1;
}

int decode_layout(const struct decoder *d, int type, struct decode_layout *out)
{
	const struct decode_fmt *f;
	unsigned int i;

	if (type < 0 || type >= d->nr_ids || !(f = d->by_id[type]))
		return 0;
	memset(out, 0, sizeof(*out));
	out->kind = f->kind;
	out->obj = f->obj != NULL;
	out->system = f->event->system;
	out->name = f->event->name;
	out->rec_size = f->slots_end;
	for (i = 0; i < f->nr_slots; i++) {
		out->field[f->slot[i].role].off = f->slot[i].off;
		out->field[f->slot[i].role].size = f->slot[i].size;
	}
	out->keep = f->kind == KVM_EV_EXIT && f->arch ? f->arch->exit_keep : NULL;
	return 1;
}
