// SPDX-License-Identifier: GPL-2.0
/*
 * Stolen time: while a vCPU thread waits for a CPU (runnable, not
 * running: its "wait" state, model_time.c), who ran on that CPU instead.
 *
 * A vCPU waits on the run queue of the CPU it was switched out of (a
 * sched_switch with it as prev, runnable), or of the CPU a wakeup puts it
 * on (sched_waking's target_cpu; without it, the CPU it last ran on).
 * Every sched_switch on a CPU ends a stretch of that CPU's time: prev ran
 * there until now, so each vCPU waiting on that CPU has its wait since its
 * last stretch given to prev.  A vCPU switched in (next) stops waiting; if
 * it waited elsewhere (it was moved), its last stretch goes to the thread
 * it took the CPU from.  At a snapshot's end each open wait is given to the
 * thread the CPU is known to run.  So the thieves' times add up to the
 * sched events' wait time, exactly where every switch is recorded.
 *
 * Live, kvmtop traces only the switches of vCPU threads (the kernel
 * filter of trace.c): a thief is then the thread that took the vCPU's CPU
 * or handed it back; threads that ran between two such switches, and
 * never next to a vCPU, go unseen, their time given to one of those two
 * (stretch_thief() says which).
 *
 * Memory: per vCPU a table of MODEL_STEAL_SLOTS(m->max_thieves) thieves,
 * four times as many as are shown, the largest kept (one pushed out adds
 * its time to the rest): the shown ones are exact while a vCPU has no more
 * thieves in an interval than the table holds, and a thief with more than
 * a quarter-share of the table's room is never pushed out.  Per CPU seen,
 * its runner and waiters.
 */
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"

/* CPU cpu's entry, made when first seen: NULL when out of memory or out of range. */
static struct model_cpu *cpu_get(struct model *m, int cpu)
{
	struct model_cpu **c;
	unsigned int n;

	if (cpu < 0 || cpu >= MODEL_CPUS_MAX)
		return NULL;
	if ((unsigned int)cpu >= m->nr_cpus) {
		/* an array of pointers: a CPU's list head never moves */
		n = (unsigned int)cpu + 1 > 2 * m->nr_cpus ? (unsigned int)cpu + 1 : 2 * m->nr_cpus;
		c = reallocarray(m->cpus, n, sizeof(*c));
		if (!c)
			return NULL;
		memset(c + m->nr_cpus, 0, (n - m->nr_cpus) * sizeof(*c));
		m->cpus = c;
		m->nr_cpus = n;
	}
	if (!m->cpus[cpu]) {
		struct model_cpu *e = calloc(1, sizeof(*e));

		if (!e)
			return NULL;
		e->tid = -1;
		TAILQ_INIT(&e->waiters);
		m->cpus[cpu] = e;
	}
	return m->cpus[cpu];
}

/*
 * Thief tid's process (0 when the source cannot tell, or only guesses)
 * and, where the sched event had none, its name: asked of the source once
 * and remembered, in a cache of MODEL_THIEF_PIDS by tid.
 */
static int thief_ident(struct model *m, int tid, char *comm, size_t len)
{
	struct ident_info id = { .pid = 0, .vcpu_hint = -1 };
	unsigned int slot = (unsigned int)tid % MODEL_THIEF_PIDS;

	if (tid <= 0 || !m->ident)
		return 0;
	if (!m->thief_pids && !(m->thief_pids = calloc(MODEL_THIEF_PIDS, sizeof(*m->thief_pids))))
		return 0;
	if (m->thief_pids[slot].tid != tid) {
		m->ident(m->ident_ctx, tid, &id);
		m->thief_pids[slot].tid = tid;
		m->thief_pids[slot].pid = id.guessed ? 0 : id.pid;
		strlcpy(m->thief_pids[slot].comm, id.comm, sizeof(m->thief_pids[slot].comm));
	}
	if (!comm[0])
		strlcpy(comm, m->thief_pids[slot].comm, len);
	return m->thief_pids[slot].pid;
}

/*
 * ns to thread tid (named comm: NULL, or a NUL-terminated array of
 * KVM_COMM_LEN, copied whole) in table *tp (made if NULL): 0, or -1 (no memory).
 */
static int give_table(struct model *m, struct model_steal **tp, int tid, const char *comm, uint64_t ns)
{
	struct model_steal *s = *tp;
	unsigned int i, min = 0;

	if (!s) {
		s = calloc(1, sizeof(*s) + MODEL_STEAL_SLOTS(m->max_thieves) * sizeof(s->t[0]));
		if (!s)
			return -1;
		*tp = s;
	}
	s->ns += ns;
	for (i = 0; i < s->nr; i++) {
		if (s->t[i].tid == tid) {
			s->t[i].ns += ns;
			/* its latest name: a thread that exec'd is what it runs now */
			if (comm && comm[0])
				memcpy(s->t[i].comm, comm, sizeof(s->t[i].comm));
			return 0;
		}
		if (s->t[i].ns < s->t[min].ns)
			min = i;
	}
	if (s->nr < MODEL_STEAL_SLOTS(m->max_thieves)) {
		i = s->nr++;
	} else {
		/* the smallest makes room for a thief with more: its time joins the rest */
		if (s->t[min].ns >= ns) {
			s->rest += ns;
			return 0;
		}
		s->rest += s->t[min].ns;
		i = min;
	}
	s->t[i].tid = tid;
	s->t[i].ns = ns;
	strlcpy(s->t[i].comm, comm ? comm : "", sizeof(s->t[i].comm));
	s->t[i].pid = thief_ident(m, tid, s->t[i].comm, sizeof(s->t[i].comm));
	return 0;
}

/*
 * ns of v's wait to thread tid (named comm): in this interval's table, and
 * with m->steal_totals in its table since the start.  0, or -1 (no memory).
 */
static int give(struct model *m, struct vcpu *v, int tid, const char *comm, uint64_t ns)
{
	if (!ns || !m->max_thieves)
		return 0;
	if (give_table(m, &v->steal, tid, comm, ns))
		return -1;
	if (!v->stolen) {
		v->stolen = true;
		TAILQ_INSERT_TAIL(&m->stolen, v, steal_link);
	}
	return m->steal_totals ? give_table(m, &v->steal_all, tid, comm, ns) : 0;
}

/* ns of v's wait to no one known: the rest of its tables (made if new).  0, or -1 (no memory). */
static int give_rest(struct model *m, struct vcpu *v, uint64_t ns)
{
	struct model_steal **tp[2] = { &v->steal, m->steal_totals ? &v->steal_all : NULL };
	unsigned int i;

	for (i = 0; i < 2 && tp[i]; i++) {
		if (!*tp[i] && !(*tp[i] = calloc(1, sizeof(**tp[i]) + MODEL_STEAL_SLOTS(m->max_thieves) *
						 sizeof((*tp[i])->t[0]))))
			return -1;
		(*tp[i])->ns += ns;
		(*tp[i])->rest += ns;
	}
	if (!v->stolen) {
		v->stolen = true;
		TAILQ_INSERT_TAIL(&m->stolen, v, steal_link);
	}
	return 0;
}

int model_steal_add(struct model *m, struct vcpu *v, int tid, const char *comm, uint64_t ns)
{
	if (!ns || !m->max_thieves)
		return 0;
	return tid > 0 ? give(m, v, tid, comm, ns) : give_rest(m, v, ns);
}

/* v's wait up to now to tid (comm), from where it was given out last. */
static int give_to(struct model *m, struct vcpu *v, int tid, const char *comm, uint64_t now)
{
	uint64_t from = v->steal_at;

	if (now <= from)
		return 0;
	v->steal_at = now;
	return give(m, v, tid, comm, now - from);
}

static void stop_waiting(struct model *m, struct vcpu *v)
{
	if (v->wait_cpu < 0)
		return;
	TAILQ_REMOVE(&m->cpus[v->wait_cpu]->waiters, v, wait_link);
	v->wait_cpu = -1;
}

static int start_waiting(struct model *m, struct vcpu *v, int cpu, uint64_t now)
{
	struct model_cpu *c;

	stop_waiting(m, v);
	c = cpu_get(m, cpu);
	if (!c)
		return cpu < 0 || cpu >= MODEL_CPUS_MAX ? 0 : -1;
	v->wait_cpu = cpu;
	v->steal_at = now;
	TAILQ_INSERT_TAIL(&c->waiters, v, wait_link);
	return 0;
}

/*
 * Who ran on CPU c until the switch ev: its prev, as a full recording
 * shows.  Live only a vCPU's switches are traced, so when prev is not the
 * thread the CPU was last seen to run, others ran unseen in between: the
 * stretch goes to prev if it was preempted (a thread that ran until it
 * was made to stop), but to the one seen taking the CPU if prev went to
 * sleep when it handed it back (a worker woken for a short burst, as the
 * kernel's are).  A vCPU thread (vcpu) is never unseen: its stretch is
 * its own.  *comm: the thief's name.
 */
static int stretch_thief(const struct model_cpu *c, const struct kvm_event *ev, bool vcpu, const char **comm)
{
	if (!vcpu && c->tid > 0 && c->tid != ev->tid && (ev->state & SCHED_SLEEP_MASK)) {
		*comm = c->comm;
		return c->tid;
	}
	*comm = ev->prev_comm;
	return ev->tid;
}

/* A switch on ev->cpu: prev ran there until now; next runs from now. */
static int on_switch(struct model *m, struct vcpu *prev, struct vcpu *next, const struct kvm_event *ev)
{
	struct model_cpu *c = cpu_get(m, ev->cpu);
	const char *comm;
	struct vcpu *w;
	int tid;

	if (!c)
		return ev->cpu < 0 || ev->cpu >= MODEL_CPUS_MAX ? 0 : -1;
	tid = stretch_thief(c, ev, prev != NULL, &comm);
	TAILQ_FOREACH(w, &c->waiters, wait_link)
		if (give_to(m, w, tid, comm, ev->time))
			return -1;
	if (next) {
		/*
		 * It waited from the interval's start if this is its first
		 * event (its state before was the wait this ends), else on
		 * another CPU's queue: that last stretch is the thread's
		 * whose CPU it takes now.
		 */
		if (next->state == VS_NONE)
			next->steal_at = m->interval_start;
		if (next->state == VS_NONE || next->wait_cpu >= 0)
			if (give_to(m, next, ev->tid, ev->prev_comm, ev->time))
				return -1;
		stop_waiting(m, next);
	}
	c->tid = ev->next_tid;
	/* both KVM_COMM_LEN, NUL-terminated: a fixed copy, once per switch */
	memcpy(c->comm, ev->next_comm, sizeof(c->comm));
	/* switched out runnable: it waits on this CPU's queue */
	if (prev && !(ev->state & SCHED_SLEEP_MASK))
		return start_waiting(m, prev, ev->cpu, ev->time);
	if (prev)
		stop_waiting(m, prev);
	return 0;
}

int model_steal_sched(struct model *m, struct vcpu *prev, struct vcpu *next, const struct kvm_event *ev)
{
	if (!m->max_thieves)
		return 0;
	if (ev->kind == KVM_EV_SWITCH)
		return on_switch(m, prev, next, ev);
	/* a wakeup of a sleeping vCPU: it waits from now on the CPU it is put on */
	if (prev && (prev->state == VS_NONE || prev->state == VS_HALT) && prev->wait_cpu < 0)
		return start_waiting(m, prev, ev->wake_cpu >= 0 ? ev->wake_cpu : prev->last_cpu, ev->time);
	return 0;
}

void model_steal_to(struct model *m, uint64_t now)
{
	unsigned int i;
	struct vcpu *w;

	for (i = 0; i < m->nr_cpus; i++) {
		const struct model_cpu *c = m->cpus[i];

		if (!c)
			continue;
		TAILQ_FOREACH(w, &c->waiters, wait_link)
			/* out of memory here: the rest of this stretch is not given out */
			give_to(m, w, c->tid, c->comm, now);
	}
}

void model_steal_reset(struct model *m)
{
	struct vcpu *v;

	while ((v = TAILQ_FIRST(&m->stolen))) {
		TAILQ_REMOVE(&m->stolen, v, steal_link);
		v->stolen = false;
		v->steal->ns = v->steal->rest = 0;
		v->steal->nr = 0;
	}
}

void model_steal_forget(struct model *m, struct vcpu *v)
{
	stop_waiting(m, v);
	if (v->stolen) {
		TAILQ_REMOVE(&m->stolen, v, steal_link);
		v->stolen = false;
	}
	free(v->steal);
	free(v->steal_all);
	v->steal = v->steal_all = NULL;
}

static int thief_cmp(const void *a, const void *b)
{
	const struct model_thief *x = *(const struct model_thief *const *)a;
	const struct model_thief *y = *(const struct model_thief *const *)b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Table s's thieves, most time first, the largest m->max_thieves into out: how many; *rest the others' time. */
static unsigned int top_of(const struct model *m, const struct model_steal *s, const struct model_thief **out,
			   uint64_t *rest)
{
	const struct model_thief *all[MODEL_STEAL_SLOTS(MODEL_THIEVES_MAX)];
	unsigned int i, n = s ? s->nr : 0;

	*rest = s ? s->rest : 0;
	for (i = 0; i < n; i++)
		all[i] = &s->t[i];
	qsort(all, n, sizeof(*all), thief_cmp);
	/* the largest m->max_thieves are shown, the rest is summed */
	for (i = 0; i < n; i++) {
		if (i < m->max_thieves)
			out[i] = all[i];
		else
			*rest += all[i]->ns;
	}
	return n < m->max_thieves ? n : m->max_thieves;
}

unsigned int model_steal_top(const struct model *m, const struct vcpu *v, const struct model_thief **out,
			     uint64_t *rest)
{
	return top_of(m, v->stolen ? v->steal : NULL, out, rest);
}

unsigned int model_steal_top_total(const struct model *m, const struct vcpu *v, const struct model_thief **out,
				   uint64_t *rest)
{
	return top_of(m, v->steal_all, out, rest);
}

uint64_t model_steal_total(const struct vcpu *v)
{
	return v->steal && v->stolen ? v->steal->ns : 0;
}

void model_thief_who(const struct model *m, const struct model_thief *t, struct model_thief_who *w)
{
	const struct vcpu *v = t->tid > 0 ? model_find_vcpu(m, t->tid) : NULL;

	w->vm = v && !v->vm->kernel ? v->vm : NULL;
	w->vcpu = w->vm && !v->vmm ? v->vcpu_id : -1;
	w->pid = w->vm ? w->vm->pid : t->pid;
	w->comm = v && v->comm[0] ? v->comm : t->comm;
}
