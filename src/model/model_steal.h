/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stolen time (model_steal.c): who ran on a vCPU's CPU while it waited
 * for it, from the sched events.
 */
#ifndef KVMTOP_MODEL_STEAL_H
#define KVMTOP_MODEL_STEAL_H

#include "model.h"

/* A thread that ran while a vCPU waited for a CPU: its time, this interval. */
struct model_thief {
	int tid;		/* 0: the CPU's idle task (no thread ran: wake-up latency) */
	int pid;		/* its process as the source tells it, 0: not known */
	uint64_t ns;		/* in the source's time unit */
	char comm[KVM_COMM_LEN];	/* as the sched event named it, raw */
};

/* Who a thief is, for the views: a VM's vCPU or VMM thread, or a host task. */
struct model_thief_who {
	const struct vm *vm;	/* the VM whose thread it is, NULL: a host task */
	int vcpu;		/* its vCPU id there, -1: a VMM thread (or a host task) */
	int pid;		/* the VM's pid, or the task's process, 0: not known */
	const char *comm;	/* raw */
};

/*
 * A vCPU's thieves: at most the model's max_thieves, the largest kept;
 * one pushed out adds its time to rest.  The entries and rest add up
 * to the wait time the sched events gave out.
 */
struct model_steal {
	uint64_t ns;
	uint64_t rest;
	unsigned int nr;
	struct model_thief t[];
};

/* A host CPU as the sched events show it: who runs there, who waits for it. */
struct model_cpu {
	int tid;			/* -1: not known yet */
	char comm[KVM_COMM_LEN];
	TAILQ_HEAD(, vcpu) waiters;
};

/*
 * Stolen time (model_steal.c): while a vCPU thread waits for a CPU
 * (runnable, not running), who ran on that CPU instead, from the sched
 * events; --thieves of them kept per vCPU.
 */
#define MODEL_THIEVES_DEFAULT	5
#define MODEL_THIEVES_MAX	64
/*
 * v's thieves, most time first, into out (m->max_thieves of them): how
 * many; *rest: the time of those not shown.
 */
unsigned int model_steal_top(const struct model *m, const struct vcpu *v, const struct model_thief **out,
			     uint64_t *rest);
/* The same since the start, with m->steal_totals. */
unsigned int model_steal_top_total(const struct model *m, const struct vcpu *v, const struct model_thief **out,
				   uint64_t *rest);
/* v's wait time given out this interval. */
uint64_t model_steal_total(const struct vcpu *v);
void model_thief_who(const struct model *m, const struct model_thief *t, struct model_thief_who *w);

#endif
