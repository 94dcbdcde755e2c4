// SPDX-License-Identifier: GPL-2.0
/*
 * Where each vCPU thread's time goes, from the events themselves:
 *
 *   entry                         -> guest
 *   exit                          -> host
 *   kvm_userspace_exit            -> vmm (until the next entry)
 *   sched_switch, it leaves a CPU -> halt (asleep: S, D ...) or wait (R, R+)
 *   sched_switch, it gets a CPU   -> the host or vmm state it left
 *   sched_waking/wakeup, asleep   -> wait
 *
 * Before a thread's first event, it was in the state that event ends (in
 * the guest before an exit, asleep before a wakeup ...), from the start
 * of the interval it appeared in.  Each state's time is a counter like
 * every other (total and base), so an interval's five states add up to
 * its length; model_time_to() brings every thread's current state up to
 * the snapshot's end.  While an exit is pending, its time in each state
 * is kept apart too (v->split), for the split of its latency.
 *
 * What the events cannot tell stays unknown: without sched_switch, the
 * time of a thread that sleeps or waits inside an exit is in "host"; the
 * views show host, halt and wait only when model_time_known() says so.
 */
#include <string.h>

#include "model.h"
#include "model_time.h"

static const char *const state_names[VS_NR] = {
	[VS_GUEST] = "guest",
	[VS_HOST] = "host",
	[VS_VMM] = "vmm",
	[VS_HALT] = "halt",
	[VS_WAIT] = "wait",
};

const char *model_state_name(enum vcpu_state s)
{
	return s >= 0 && s < VS_NR ? state_names[s] : "?";
}

unsigned int model_time_known(const struct model *m)
{
	const struct kvm_names *n = m->names;
	unsigned int k = 0;

	if (!n->entries)
		return 0;
	k |= 1u << VS_GUEST;
	if (n->uexit_other >= 0)
		k |= 1u << VS_VMM;
	if (n->sched)
		k |= 1u << VS_HOST | 1u << VS_HALT | 1u << VS_WAIT;
	return k;
}

/* v was in its state from state_since to now. */
static void spend(struct vcpu *v, uint64_t now)
{
	uint64_t d;

	if (v->state == VS_NONE || now <= v->state_since)
		return;
	d = now - v->state_since;
	v->time[v->state].total += d;
	if (v->pending)
		v->split[v->state] += d;
	v->state_since = now;
}

/* v's state becomes st at now; before its first event it was in before. */
static void set_state(const struct model *m, struct vcpu *v, uint64_t now,
		      enum vcpu_state before, enum vcpu_state st)
{
	if (v->state == VS_NONE) {
		v->state = before;
		v->state_since = m->interval_start < now ? m->interval_start : now;
	}
	spend(v, now);
	v->state = st;
}

void model_time_event(struct model *m, struct vcpu *v, const struct kvm_event *ev)
{
	switch (ev->kind) {
	case KVM_EV_EXIT:
		set_state(m, v, ev->time, VS_GUEST, VS_HOST);
		break;
	case KVM_EV_ENTRY:
		set_state(m, v, ev->time, VS_HOST, VS_GUEST);
		break;
	case KVM_EV_OTHER:
		if (ev->other >= 0 && ev->other == m->names->uexit_other)
			set_state(m, v, ev->time, VS_HOST, VS_VMM);
		break;
	default:
		break;
	}
}

void model_time_sched(struct model *m, struct vcpu *prev, struct vcpu *next,
		      const struct kvm_event *ev)
{
	if (ev->kind == KVM_EV_WAKE) {
		/* a wakeup of a thread on a CPU (it had not slept yet) changes nothing */
		if (prev && (prev->state == VS_NONE || prev->state == VS_HALT))
			set_state(m, prev, ev->time, VS_HALT, VS_WAIT);
		return;
	}
	if (prev) {
		prev->on_cpu = prev->state == VS_VMM ? VS_VMM : VS_HOST;
		set_state(m, prev, ev->time, VS_HOST,
			  ev->state & SCHED_SLEEP_MASK ? VS_HALT : VS_WAIT);
	}
	if (next)
		set_state(m, next, ev->time, VS_WAIT, next->state == VS_NONE ? VS_HOST : next->on_cpu);
}

void model_time_to(struct model *m, uint64_t now)
{
	struct vcpu *v;

	RB_FOREACH(v, vcpu_tree, &m->vcpus)
		spend(v, now);
}
