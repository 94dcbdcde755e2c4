// SPDX-License-Identifier: GPL-2.0
/*
 * Live without sched events: each vCPU thread's time states from /proc
 * (schedstat and stat, model_time_proc), since its last reading.
 */
#include <stdio.h>

#include "samplers_priv.h"
#include "model/model.h"
#include "model/model_time.h"

int sample_times(struct samplers *s, struct model *m, uint64_t now, enum sample_when when)
{
	bool new_only = when == SAMPLE_NEW;
	struct proc_times t;
	struct vcpu *v;

	/* with sched events the trace has every state: /proc would only cost */
	if (!m->proc_time || (model_time_known(m) & TIME_SPLIT))
		return 0;
	RB_FOREACH(v, vcpu_tree, &m->vcpus) {
		if (v->vm->kernel || v->vmm || (new_only && v->proc_at))
			continue;
		switch (ident_read_times(s->proc, v->tid, &t)) {
		case 0:
			model_time_proc(m, v, &t, now);
			break;
		case -2:
			m->proc_time = false;
			snprintf(s->notice, sizeof(s->notice),
				 "%.300s/%d/schedstat is absent or off: a vCPU's host, VMM, halt and wait time is not measured",
				 s->proc->root, v->tid);
			return 0;
		default:
			break;	/* gone: the figures it had stay */
		}
	}
	return 0;
}
