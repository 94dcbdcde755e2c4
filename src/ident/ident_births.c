// SPDX-License-Identifier: GPL-2.0
/*
 * Who a thread was when it is gone: the threads and processes born while
 * kvmtop traced (task:task_newtask: the new thread, its creator, whether
 * it is a thread of its creator's process), kept in a table of fixed
 * size, so a vCPU thread that lived less than a tick, or ended before
 * /proc was asked, still lands in its VM.  A process is its first
 * thread's id (its tgid); a thread's is its creator's.  Newer births
 * take the slot of older ones of the same hash: memory bounded for any
 * input, and what is asked is a thread born a moment ago.
 */
#include <stdlib.h>
#include <string.h>

#include "ident.h"

#define BIRTHS_SLOTS	8192	/* a power of two */
#define BIRTHS_DEPTH	16	/* threads made by threads made by ...: followed this far */

struct ident_birth {
	int tid;		/* 0: empty */
	int creator;		/* the thread that made it */
	bool thread;		/* CLONE_THREAD: of its creator's process */
	char comm[IDENT_NAME_LEN];
};

struct ident_births {
	struct ident_birth slot[BIRTHS_SLOTS];
};

struct ident_births *ident_births_new(void)
{
	return calloc(1, sizeof(struct ident_births));
}

void ident_births_free(struct ident_births *b)
{
	free(b);
}

/* The slot of tid (Fibonacci hashing: tids come in runs). */
static struct ident_birth *births_slot(const struct ident_births *b, int tid)
{
	uint32_t h = (uint32_t)tid * 2654435769u;

	return (struct ident_birth *)&b->slot[h >> (32 - 13)];
}

void ident_births_add(struct ident_births *b, int tid, int creator, bool thread, const char *comm)
{
	struct ident_birth *s;

	if (!b || tid <= 0)
		return;
	s = births_slot(b, tid);
	s->tid = tid;
	s->creator = creator;
	s->thread = thread;
	strlcpy(s->comm, comm ? comm : "", sizeof(s->comm));
}

/* The birth of tid kept, or NULL. */
static const struct ident_birth *births_find(const struct ident_births *b, int tid)
{
	const struct ident_birth *s = births_slot(b, tid);

	return s->tid == tid ? s : NULL;
}

int ident_births_process(const struct ident_births *b, int tid, bool *born, char *comm, size_t len)
{
	const struct ident_birth *s;
	int depth;

	*born = false;
	if (!b || tid <= 0 || !(s = births_find(b, tid)))
		return 0;
	if (comm)
		strlcpy(comm, s->comm, len);
	for (depth = 0; depth < BIRTHS_DEPTH; depth++) {
		if (!s->thread) {
			/* a process of its own: its first thread's id is its pid */
			*born = true;
			return s->tid;
		}
		tid = s->creator;
		s = births_find(b, tid);
		if (!s)
			return tid;	/* a thread of the creator's process, which is older */
	}
	return 0;
}
