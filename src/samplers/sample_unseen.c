// SPDX-License-Identifier: GPL-2.0
/*
 * Live, where the source sees no exits at all (a KVM that runs guests
 * without them): each process holding a VM (its /proc fds) listed in the
 * model, saying why, so such a VM is never missing from the views.
 */
#include <stdlib.h>

#include "samplers_priv.h"
#include "model/model.h"
#include "model/model_feed.h"

/* Every process's fds are read at each snapshot: only for that case.  0 or -1 (no memory). */
int sample_unseen(struct samplers *s, struct model *m, uint64_t now, enum sample_when when)
{
	struct ident_proc *procs = NULL, *p;
	size_t n = 0, max = 4096, i;
	int ret = -1;

	(void)now;
	(void)when;
	if (!s->exits_unknown)
		return 0;
	for (;;) {
		p = reallocarray(procs, max, sizeof(*procs));
		if (!p)
			goto out;
		procs = p;
		n = ident_procs(s->proc, procs, max);
		if (n < max || max >= (1u << 22))
			break;
		max *= 2;
	}
	for (i = 0; i < n; i++)
		if (ident_holds_vm(s->proc, procs[i].pid) > 0 &&
		    model_vm_exits_unknown(m, procs[i].pid, s->exits_unknown))
			goto out;
	ret = 0;
out:
	free(procs);
	return ret;
}
