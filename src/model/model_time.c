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
 * of the interval it appeared in.  The sched events of a thread that is
 * no vCPU yet are kept (m->pre, a table of fixed size by tid), so its
 * time before its first KVM event in the same interval is in the states
 * they say: woken 250 us before it is switched in and enters the guest,
 * those 250 us are wait, not host.  Its time on a CPU then is host; at
 * its first KVM event it is on a CPU whatever they said (a wakeup of a
 * thread that had not slept changes nothing).  Each state's time is a counter like
 * every other (total and base), so an interval's five states add up to
 * its length; model_time_to() brings every thread's current state up to
 * the snapshot's end.  While an exit is pending, its time in each state
 * is kept apart too (v->pending_states), for the split of its latency.
 *
 * What the events cannot tell stays unknown: without sched_switch, the
 * time of a thread that sleeps or waits inside an exit is in "host"; the
 * views show host, halt and wait only when model_time_known() says so.
 *
 * Live without sched events (--no-sched, or a kernel without them, or
 * a VMM whose exits are not traced), /proc tells instead (m->proc_time,
 * model_time_proc()): between two readings of a thread, schedstat gives
 * its time on a CPU and its time waiting for one exactly; the rest of
 * the wall time it was asleep (halt).  The time on a CPU is guest time
 * from the events when entries are traced; the rest of it (all of it
 * when they are not) is split by the clock ticks stat counted in the
 * same time: guest_time : utime - guest_time : stime for guest, vmm,
 * host.  Time on a CPU in which no tick fell counts as host.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_priv.h"

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

#define ALL_STATES	((1u << VS_NR) - 1)

/* What the events alone measure. */
static unsigned int traced(const struct model *m)
{
	const struct kvm_names *n = m->names;
	unsigned int k = 0;

	if (!n->entries)
		return 0;
	k |= 1u << VS_GUEST;
	if (n->uexit_other >= 0)
		k |= 1u << VS_VMM;
	if (n->sched)
		k |= 1u << VS_HOST | 1u << VS_HALT | 1u << VS_WAIT | TIME_SPLIT;
	return k;
}

/* Do the states come from /proc (all five, with the events' guest time)? */
static bool from_proc(const struct model *m)
{
	return m->proc_time && !(traced(m) & TIME_SPLIT);
}

unsigned int model_time_known(const struct model *m)
{
	return (from_proc(m) ? ALL_STATES : traced(m)) | (m->proc_time ? TIME_GROUPS : 0);
}

const char *model_time_source(const struct model *m, enum vcpu_state st)
{
	unsigned int bit = 1u << st;

	if (!(model_time_known(m) & bit))
		return NULL;
	if (from_proc(m) && !(st == VS_GUEST && (traced(m) & bit)))
		return "proc";
	return "trace";
}

const struct ctr *model_time_ctr(const struct model *m, const struct vcpu *v, enum vcpu_state st)
{
	if (!(model_time_known(m) & (1u << st)))
		return NULL;
	if (from_proc(m))
		return v->proc_known ? &v->ptime[st] : NULL;
	return &v->time[st];
}

/* a * b / c without overflow (c > 0, the result at most a) */
static uint64_t share(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

void model_time_proc(struct model *m, struct vcpu *v, const struct proc_times *t, uint64_t now)
{
	const struct proc_times *o = &v->proc_last;
	uint64_t span, run, wait, u, s, g, guest, vmm, rest;

	/* a first reading, or a tid that is another thread now: start again from here */
	if (!v->proc_at || now <= v->proc_at || t->run_ns < o->run_ns || t->wait_ns < o->wait_ns ||
	    t->utime < o->utime || t->stime < o->stime || t->gtime < o->gtime)
		goto out_keep;
	span = now - v->proc_at;
	/* the scheduler's clock and this one differ a little: the span bounds both */
	run = t->run_ns - o->run_ns;
	if (run > span)
		run = span;
	wait = t->wait_ns - o->wait_ns;
	if (wait > span - run)
		wait = span - run;
	u = t->utime - o->utime;
	s = t->stime - o->stime;
	g = t->gtime - o->gtime;
	if (g > u)
		g = u;
	if (traced(m) & (1u << VS_GUEST)) {
		guest = v->time[VS_GUEST].total - v->proc_guest;
		if (guest > run)
			guest = run;
		rest = run - guest;
		vmm = u - g + s ? share(rest, u - g, u - g + s) : 0;
	} else {
		guest = u + s ? share(run, g, u + s) : 0;
		vmm = u + s ? share(run, u - g, u + s) : 0;
	}
	v->ptime[VS_GUEST].total += guest;
	v->ptime[VS_VMM].total += vmm;
	v->ptime[VS_HOST].total += run - guest - vmm;
	v->ptime[VS_WAIT].total += wait;
	v->ptime[VS_HALT].total += span - run - wait;
	v->proc_known = true;
out_keep:
	v->proc_last = *t;
	v->proc_at = now;
	v->proc_guest = v->time[VS_GUEST].total;
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
		v->pending_states[v->state] += d;
	v->state_since = now;
}

/* A thread that is no vCPU yet, as its sched events say: its state since, this interval's time. */
struct model_pre {
	int tid;			/* 0: empty */
	enum vcpu_state state;		/* VS_HOST: on a CPU (host or VMM: not told) */
	uint64_t since;
	uint64_t ival;			/* the interval_start acc is of */
	uint64_t acc[VS_NR];
};

int model_time_pre_new(struct model *m)
{
	m->pre = calloc(MODEL_PRE_SLOTS, sizeof(*m->pre));
	return m->pre ? 0 : -1;
}

/* tid's slot (taken from another tid: the table is bounded). */
static struct model_pre *pre_slot(const struct model *m, int tid)
{
	return &m->pre[((unsigned int)tid * 2654435761u) >> 20 & (MODEL_PRE_SLOTS - 1)];
}

/* Thread tid, no vCPU, goes from state before (its first event's) to st at now. */
static void pre_state(struct model *m, int tid, uint64_t now, enum vcpu_state before, enum vcpu_state st)
{
	struct model_pre *p;

	if (!m->pre || tid <= 0)
		return;
	p = pre_slot(m, tid);
	if (p->tid != tid) {
		memset(p, 0, sizeof(*p));
		p->tid = tid;
		p->state = before;
		p->since = p->ival = m->interval_start;
	} else if (p->ival != m->interval_start) {
		/* the time of intervals before is no vCPU's: not shown */
		memset(p->acc, 0, sizeof(p->acc));
		p->ival = m->interval_start;
		if (p->since < p->ival)
			p->since = p->ival;
	}
	/* a wakeup of a thread that had not slept changes nothing */
	if (before == VS_HALT && p->state != VS_HALT)
		return;
	if (now > p->since) {
		p->acc[p->state] += now - p->since;
		p->since = now;
	}
	p->state = st;
}

/*
 * v's first state, at its first KVM event: before from the interval's
 * start, unless its sched events said more while it was no vCPU.
 */
static void pre_take(const struct model *m, struct vcpu *v, enum vcpu_state before)
{
	struct model_pre *p = m->pre ? pre_slot(m, v->tid) : NULL;
	int st;

	/*
	 * From the interval's start, even when the event is older: one
	 * recorded before the interval began but read after it (a CPU's
	 * buffer drained late) must not add time before the interval to
	 * it.  Its state holds from the start on.
	 */
	v->state = before;
	v->state_since = m->interval_start;
	if (!p || p->tid != v->tid)
		return;
	p->tid = 0;
	if (p->ival != m->interval_start)
		memset(p->acc, 0, sizeof(p->acc));
	for (st = 0; st < VS_NR; st++)
		v->time[st].total += p->acc[st];
	/*
	 * Since its last sched event it was in before: on a CPU since it
	 * was switched in, and its own event says it is on one even when a
	 * wakeup came last (of a thread that had not slept).
	 */
	if (p->since > v->state_since)
		v->state_since = p->since;
}

/* v's state becomes st at now; before its first event it was in before. */
static void set_state(const struct model *m, struct vcpu *v, uint64_t now,
		      enum vcpu_state before, enum vcpu_state st)
{
	if (v->state == VS_NONE)
		pre_take(m, v, before);
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
		else if (!prev)
			pre_state(m, ev->tid, ev->time, VS_HALT, VS_WAIT);
		return;
	}
	if (!prev)
		pre_state(m, ev->tid, ev->time, VS_HOST, (ev->state & SCHED_SLEEP_MASK) ? VS_HALT : VS_WAIT);
	if (!next)
		pre_state(m, ev->next_tid, ev->time, VS_WAIT, VS_HOST);
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
	/* and every open wait is given out to who runs on its CPU */
	model_steal_to(m, now);
}
