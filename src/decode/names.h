/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of what the model counts: the exit reasons (interned as they
 * are met), the other KVM events, the userspace exit reasons.  A source
 * fills them (the decoder from the event formats, a counter source from
 * its files); the model and every view read them.  No libtraceevent here.
 */
#ifndef KVMTOP_NAMES_H
#define KVMTOP_NAMES_H

#include "kstat.h"
#include "kvm_event.h"
#include "reason.h"

#define NAMES_UEXIT_LEN	24

struct kvm_names {
	struct reason_table reasons;
	/* the other KVM events, indexed by kvm_event.other; owned by the source */
	const char *other[DECODE_OTHER_MAX];
	int nr_other;
	/* kvm_userspace_exit reasons, indexed by kvm_event.sub; the last is OTHER */
	char uexit[UEXIT_MAX][NAMES_UEXIT_LEN];
	/*
	 * What the source's events can tell of a vCPU's time: .other of
	 * kvm_userspace_exit (-1: no such event: no VMM time), and whether
	 * sched_switch is there (halted and waiting told apart from host).
	 */
	int uexit_other;
	bool sched;
	bool entries;		/* exits pair with entries: guest time is known */
	/* KVM's binary statistics of VMs and of vCPUs (the stats source), as met */
	struct kstat_table kstats[KSTAT_SCOPES];
};

/* Empty tables; userspace exits named after linux/kvm.h's KVM_EXIT_*. */
void names_init(struct kvm_names *n);
void names_free(struct kvm_names *n);
/* The name of reason id (with its flags) into buf, or "-" for none. */
const char *names_reason(const struct kvm_names *n, int id, char *buf, size_t len);
static inline const char *names_uexit(const struct kvm_names *n, int sub)
{
	return sub >= 0 && sub < UEXIT_MAX ? n->uexit[sub] : n->uexit[UEXIT_MAX - 1];
}

#endif
