/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Global registry of exit reasons.  A reason is (isa, code, flags) with a
 * name; it gets a small dense id the first time the decoder meets it, so
 * the model can keep per-reason figures in plain arrays.
 */
#ifndef KVMTOP_REASON_H
#define KVMTOP_REASON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvm_event.h"

/* More distinct reasons than this fold into one "OTHER" reason. */
#define REASON_MAX	1024

/* What kind of work an exit asks of the host, as findings.c reads it. */
enum reason_class {
	RC_OTHER,
	RC_IO,		/* port I/O: an emulated legacy device */
	RC_MMIO,	/* emulated memory-mapped I/O */
	RC_HALT,	/* the guest waits for an interrupt (HLT, WFI, cede) */
	RC_PAUSE,	/* a spinning guest (PAUSE loop exiting) */
	RC_HYPERCALL,
	RC_INTERRUPT,	/* an interrupt or timer for the host */
	RC_NR,
};

struct reason {
	enum kvm_isa isa;
	uint32_t code;
	uint32_t flags;
	char name[48];		/* the code's name */
	char flag_names[32];	/* names of the flags, space separated, or "" */
	bool blocking;		/* the vCPU waits (HLT, WFI, cede): not handling time */
	bool async;		/* asynchronous exit: its IP is a time sample */
	uint8_t cls;		/* enum reason_class, RC_OTHER unless the arch says */
};

struct reason_table {
	struct reason *r;
	unsigned int nr;
	unsigned int alloc;
	int other_id;		/* id of the overflow reason, -1 until needed */
};

void reason_table_init(struct reason_table *t);
void reason_table_free(struct reason_table *t);
/* Id of (isa, code, flags), adding it with name if new. */
int reason_intern(struct reason_table *t, enum kvm_isa isa, uint32_t code,
		  uint32_t flags, const char *name, const char *flag_names,
		  bool blocking, bool async);

/* Reason id's class: the arch's (or the statistics') word on it. */
void reason_set_class(struct reason_table *t, int id, enum reason_class cls);
/* The class of one of KVM's statistics that counts exits ("io_exits" ...), RC_OTHER if none. */
enum reason_class reason_class_of_stat(const char *name);
const char *reason_class_name(enum reason_class cls);

/* "NAME FLAGS", the label the screen and the text output show for r. */
const char *reason_label(const struct reason *r, char *buf, size_t len);

#endif
