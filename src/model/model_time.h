/* SPDX-License-Identifier: GPL-2.0 */
/* Time states: what model.c tells model_time.c (see model_time.c). */
#ifndef KVMTOP_MODEL_TIME_H
#define KVMTOP_MODEL_TIME_H

#include "model.h"

/* An exit, entry or other KVM event of v, before the model counts it. */
void model_time_event(struct model *m, struct vcpu *v, const struct kvm_event *ev);
/* A switch from prev to next, or a wakeup of prev; either NULL when it is no vCPU. */
void model_time_sched(struct model *m, struct vcpu *prev, struct vcpu *next,
		      const struct kvm_event *ev);

#endif
