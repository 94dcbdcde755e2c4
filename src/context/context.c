// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's context at each snapshot (context.h): the readers' table run
 * for each live VM, and the counters they read turned into rates over the
 * time since the last reading.  A counter's first reading, a counter that
 * went back (a thread gone with its share), or a tap set that changed
 * gives no rate for that interval: unknown, never a zero.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context_priv.h"
#include "model/model.h"

/* The readers, in the order they run: a new kind of figure is a new row. */
static const struct ctx_reader ctx_readers[] = {
	{ "memory",   ctx_proc_memory },
	{ "disk",     ctx_proc_disk },
	{ "network",  ctx_net_taps },
	{ "pressure", ctx_psi_vm },
};

/*
 * The figures that are counters: their rate per second is the growth
 * times this scale (0: a level, kept as read).  Delay ticks and PSI's µs
 * become % of the interval.
 */
static double ctx_scale(const struct context *c, enum vm_ctx_fig f)
{
	switch (f) {
	case CTX_RSS:
	case CTX_SWAP:
	case CTX_RAM:
	case CTX_HUGE:
	case CTX_NODE:
	case CTX_NODE_PCT:
	case CTX_LOCAL_PCT:
		return 0;
	case CTX_BLKIO:
		return 100.0 / (double)c->clk_tck;
	case CTX_CPU_SOME:
	case CTX_CPU_FULL:
	case CTX_MEM_SOME:
	case CTX_MEM_FULL:
	case CTX_IO_SOME:
	case CTX_IO_FULL:
		return 100.0 / 1e6;
	default:
		return 1;
	}
}

/* Each tap of reading r into x's rows, its rates against the same interface's last counters. */
static void ctx_store_taps(struct vm_ctx *x, const struct ctx_reading *r, double secs)
{
	struct vm_ctx_tap old[CTX_TAPS];
	int nr_old = x->nr_tap_rows, k, j, i;

	memcpy(old, x->taps, sizeof(old));
	for (k = 0; k < r->nr_tap_rows; k++) {
		struct vm_ctx_tap *t = &x->taps[k];

		memcpy(t->name, r->tap[k], sizeof(t->name));
		memcpy(t->prev, r->tap_ctr[k], sizeof(t->prev));
		t->known = false;
		for (j = 0; j < nr_old && strcmp(old[j].name, t->name); j++)
			;
		if (j == nr_old || secs <= 0)
			continue;
		t->known = true;
		for (i = 0; i < CTX_TAP_NR; i++) {
			if (t->prev[i] < old[j].prev[i])
				t->known = false;	/* a counter went back: the interface was made anew */
			t->rate[i] = (double)(t->prev[i] - old[j].prev[i]) / secs;
		}
	}
	x->nr_tap_rows = r->nr_tap_rows;
}

void context_init(struct context *c, const char *proc_root, const char *sys_root, const char *libvirt_run)
{
	memset(c, 0, sizeof(*c));
	strlcpy(c->proc, proc_root ? proc_root : "/proc", sizeof(c->proc));
	strlcpy(c->sys, sys_root ? sys_root : "/sys", sizeof(c->sys));
	strlcpy(c->libvirt, libvirt_run ? libvirt_run : CONTEXT_LIBVIRT_RUN, sizeof(c->libvirt));
	c->clk_tck = sysconf(_SC_CLK_TCK);
	if (c->clk_tck <= 0)
		c->clk_tck = 100;
}

void context_free(struct context *c)
{
	free(c->xml);
	c->xml = NULL;
}

/* Reading r at now into x: levels as read, counters as rates against x's last reading. */
static void ctx_store(const struct context *c, struct vm_ctx *x, const struct ctx_reading *r, uint64_t now,
		      bool same_taps)
{
	double secs = x->prev_at && now > x->prev_at ? (double)(now - x->prev_at) / 1e9 : 0;
	uint32_t counters = 0;
	int f;

	x->known = 0;
	for (f = 0; f < CTX_NR; f++) {
		double scale = ctx_scale(c, f);
		bool tap = f >= CTX_RX_BPS && f <= CTX_DROPS;

		if (!(r->known & (1u << f)))
			continue;
		if (!scale) {
			x->val[f] = r->val[f];
			x->known |= 1u << f;
			continue;
		}
		counters |= 1u << f;
		if (secs > 0 && (x->prev_known & (1u << f)) && r->val[f] >= (double)x->prev[f] &&
		    (!tap || same_taps)) {
			x->val[f] = (r->val[f] - (double)x->prev[f]) * scale / secs;
			x->known |= 1u << f;
		}
		x->prev[f] = (uint64_t)r->val[f];
	}
	x->prev_known = counters;
	x->prev_at = now;
}

unsigned int context_sample(struct context *c, struct model *m, uint64_t now)
{
	uint64_t dir_sig = ctx_ident_dir(c);
	struct ctx_reading r;
	unsigned int i, n = 0;
	struct vm *vm;

	c->delayacct_off = ctx_file_read(c, "%s/sys/kernel/task_delayacct", c->proc) > 0 && c->buf[0] == '0';
	memset(&r, 0, sizeof(r));
	ctx_psi_host(c, &r);
	ctx_store(c, &m->host_ctx, &r, now, true);
	RB_FOREACH(vm, vm_tree, &m->vms) {
		struct vm_ctx *x = &vm->ctx;
		bool same;

		if (vm->kernel || vm->pid <= 0 || vm->exited)
			continue;
		ctx_ident_vm(c, vm, dir_sig);
		memset(&r, 0, sizeof(r));
		r.nr_taps = -1;
		for (i = 0; i < sizeof(ctx_readers) / sizeof(ctx_readers[0]); i++)
			ctx_readers[i].read(c, vm->pid, &r);
		/* smaps_rollup walks page tables: at a slower cadence, the last share meanwhile */
		if (!x->huge_at || now - x->huge_at >= CTX_HUGE_EVERY_NS) {
			ctx_proc_huge(c, vm->pid, &r);
			ctx_numa_memory(c, vm->pid, &r);
			memcpy(x->node_bytes, r.node_bytes, sizeof(x->node_bytes));
			x->nr_nodes = r.nr_nodes;
			x->huge_at = now;
		} else {
			/* the last reading's RAM, huge pages and memory per node stand */
			if (x->known & (1u << CTX_HUGE))
				ctx_set(&r, CTX_HUGE, x->val[CTX_HUGE]);
			if (x->known & (1u << CTX_RAM))
				ctx_set(&r, CTX_RAM, x->val[CTX_RAM]);
			r.ram_cmdline = x->ram_cmdline;
		}
		ctx_numa_vcpus(c, vm, &r);
		same = r.taps_sig == x->taps_sig;
		ctx_store_taps(x, &r, x->prev_at && now > x->prev_at ? (double)(now - x->prev_at) / 1e9 : 0);
		ctx_store(c, x, &r, now, same);
		x->taps_sig = r.taps_sig;
		x->ram_cmdline = r.ram_cmdline;
		x->nr_taps = r.nr_taps;
		n++;
	}
	return n;
}
