// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's context (context.h): the readers' table, read for one VMM
 * process into a plain reading, and the host's clocks the readings are
 * put on.  What to read when, and what it adds to the model, is the
 * samplers' (src/samplers/sample_context.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "context_priv.h"

/* A reader of the table: what it finds of VM pid into r (nothing where it cannot read). */
struct ctx_reader {
	const char *name;
	void (*read)(struct context *c, int pid, struct ctx_reading *r);
};

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
	ctx_net_free(c);
	free(c->xml);
	c->xml = NULL;
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

void context_host(struct context *c, bool delayacct)
{
	c->boot_off = ctx_boot_off();
	if (delayacct)
		c->delayacct_off = ctx_delayacct_off(c);
}

bool context_start_ns(const struct context *c, const struct ctx_reading *r, double *ns)
{
	if (!r->start_known || c->clk_tck <= 0)
		return false;
	/* stat's start is CLOCK_BOOTTIME's, in ticks */
	*ns = (double)r->start_ticks * 1e9 / (double)c->clk_tck - (double)c->boot_off;
	return true;
}

void ctx_reading_init(struct ctx_reading *r)
{
	memset(r, 0, sizeof(*r));
	r->nr_taps = -1;
	r->nr_thr = -1;
}

void context_read_pid(struct context *c, int pid, struct ctx_reading *r)
{
	unsigned int i;

	for (i = 0; i < sizeof(ctx_readers) / sizeof(ctx_readers[0]); i++)
		ctx_readers[i].read(c, pid, r);
}
