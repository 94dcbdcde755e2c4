// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's context (context.h): the readers' table run for each live VM,
 * whole at each snapshot, its memory, disk and known taps between them;
 * context_sum.c adds each reading's growth to the VM's sums and makes the
 * snapshot's rates of them.  A counter not counted from the snapshot's
 * start on gives no rate for it: unknown, never a zero.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* Did the process of reading r begin after the model's start (m->first_time)?  Not known: no. */
static bool ctx_born(const struct context *c, const struct model *m, const struct ctx_reading *r)
{
	double at;

	if (!r->start_known || c->clk_tck <= 0)
		return false;
	/* stat's start is CLOCK_BOOTTIME's, in ticks */
	at = (double)r->start_ticks * 1e9 / (double)c->clk_tck - (double)c->boot_off;
	return at > (double)m->first_time;
}

/* Is kernel.task_delayacct 0 (no block-I/O delay to read)? */
static bool ctx_delayacct_off(struct context *c)
{
	return ctx_file_read(c, "%s/sys/kernel/task_delayacct", c->proc) > 0 && c->buf[0] == '0';
}

/* CLOCK_BOOTTIME less CLOCK_MONOTONIC now, ns (the time suspended). */
static int64_t ctx_boot_off(void)
{
	struct timespec b, mo;

	clock_gettime(CLOCK_MONOTONIC, &mo);
	clock_gettime(CLOCK_BOOTTIME, &b);
	return ((int64_t)b.tv_sec - (int64_t)mo.tv_sec) * 1000000000ll + ((int64_t)b.tv_nsec - (int64_t)mo.tv_nsec);
}

/*
 * VM vm read whole into r at now: the readers' table, its huge pages,
 * RAM and NUMA at their slow cadence (the last ones meanwhile), its
 * vCPUs' nodes.
 */
static void ctx_read_whole(struct context *c, struct vm *vm, struct ctx_reading *r, uint64_t now)
{
	struct vm_ctx *x = &vm->ctx;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->nr_taps = -1;
	for (i = 0; i < sizeof(ctx_readers) / sizeof(ctx_readers[0]); i++)
		ctx_readers[i].read(c, vm->pid, r);
	/* smaps_rollup walks page tables: at a slower cadence, the last share meanwhile */
	if (!x->huge_at || now - x->huge_at >= CTX_HUGE_EVERY_NS) {
		ctx_proc_huge(c, vm->pid, r);
		ctx_numa_memory(c, vm->pid, r);
		memcpy(x->node_bytes, r->node_bytes, sizeof(x->node_bytes));
		x->nr_nodes = r->nr_nodes;
		x->huge_at = now;
	} else {
		/* the last reading's RAM, huge pages and memory per node stand */
		if (x->levels & (1u << CTX_HUGE))
			ctx_set(r, CTX_HUGE, x->val[CTX_HUGE]);
		if (x->levels & (1u << CTX_RAM))
			ctx_set(r, CTX_RAM, x->val[CTX_RAM]);
		r->ram_cmdline = x->ram_cmdline;
	}
	ctx_numa_vcpus(c, vm, r);
}

/*
 * VM vm at now: read whole (whole, or never read before) or its memory,
 * disk and known taps alone, into its sums.  Its reading r, for the
 * snapshot.
 */
static void ctx_read_vm(struct context *c, struct model *m, struct vm *vm, struct ctx_reading *r, uint64_t now,
			bool whole, bool at_start)
{
	struct vm_ctx *x = &vm->ctx;

	whole = whole || !x->prev_at;
	if (whole) {
		/* who it is: read at its first reading, again when libvirt's files change */
		if (c->dir_sig_at != now) {
			c->dir_sig = ctx_ident_dir(c);
			c->dir_sig_at = now;
		}
		ctx_ident_vm(c, vm, c->dir_sig);
		ctx_read_whole(c, vm, r, now);
	} else {
		memset(r, 0, sizeof(*r));
		r->nr_taps = -1;
		ctx_proc_memory(c, vm->pid, r);
		ctx_proc_io(c, vm->pid, r);
		ctx_net_known(c, x, r);
	}
	if (!r->known)
		return;		/* gone: its figures stay those of its last reading */
	if (!x->prev_at)
		x->born = ctx_born(c, m, r);
	ctx_sum_reading(x, r, now, x->born, at_start, whole);
	if (whole) {
		x->ram_cmdline = r->ram_cmdline;
		x->nr_taps = r->nr_taps;
	}
}

void context_read(struct context *c, struct model *m, uint64_t now, bool new_only, bool at_start)
{
	struct ctx_reading r;
	struct vm *vm;

	c->boot_off = ctx_boot_off();
	if (at_start) {
		c->delayacct_off = ctx_delayacct_off(c);
		memset(&r, 0, sizeof(r));
		ctx_psi_host(c, &r);
		ctx_sum_reading(&m->host_ctx, &r, now, false, true, false);
	}
	RB_FOREACH(vm, vm_tree, &m->vms) {
		if (vm->kernel || vm->pid <= 0 || vm->exited || (new_only && vm->ctx.prev_at))
			continue;
		ctx_read_vm(c, m, vm, &r, now, at_start, at_start);
	}
}

unsigned int context_sample(struct context *c, struct model *m, uint64_t now)
{
	double secs = now > m->interval_start ? (double)(now - m->interval_start) / 1e9 : 0;
	struct ctx_reading r;
	unsigned int n = 0;
	struct vm *vm;

	c->boot_off = ctx_boot_off();
	c->delayacct_off = ctx_delayacct_off(c);
	memset(&r, 0, sizeof(r));
	ctx_psi_host(c, &r);
	ctx_sum_reading(&m->host_ctx, &r, now, false, false, false);
	ctx_sum_snapshot(c, &m->host_ctx, r.known, false, secs);
	RB_FOREACH(vm, vm_tree, &m->vms) {
		if (vm->kernel)
			continue;
		/* a VM that ended: its figures up to its last reading */
		if (vm->exited || vm->pid <= 0) {
			ctx_sum_snapshot(c, &vm->ctx, 0, true, secs);
			continue;
		}
		ctx_read_vm(c, m, vm, &r, now, true, false);
		ctx_sum_snapshot(c, &vm->ctx, r.known, !r.known, secs);
		n++;
	}
	return n;
}
