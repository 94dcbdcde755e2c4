/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a vCPU thread's time goes (model_time.c): the five states, from
 * the sched events or from /proc, what is measured and where each figure
 * comes from.
 */
#ifndef KVMTOP_MODEL_TIME_H
#define KVMTOP_MODEL_TIME_H

#include "model.h"

/*
 * Time states (model_time.c).  The vCPUs' current states last until now:
 * the driver calls this before each snapshot, so the states of an
 * interval add up to its length.
 */
void model_time_to(struct model *m, uint64_t now);

/*
 * Which states are measured: bit (1 << VS_x) set, from the events or
 * (m->proc_time) from /proc; TIME_SPLIT when sched events are traced.
 */
unsigned int model_time_known(const struct model *m);
/* Where the figure of state st comes from: "trace", "proc", or NULL (not measured). */
const char *model_time_source(const struct model *m, enum vcpu_state st);
/* v's counter of state st (the events' or /proc's), NULL when v has no figure for it. */
const struct ctr *model_time_ctr(const struct model *m, const struct vcpu *v, enum vcpu_state st);
/*
 * A reading t of v's /proc accounting at now: the time since the last
 * reading is split into the five states (model_time.c says how).
 */
void model_time_proc(struct model *m, struct vcpu *v, const struct proc_times *t, uint64_t now);
const char *model_state_name(enum vcpu_state s);

#endif
