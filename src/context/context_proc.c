// SPDX-License-Identifier: GPL-2.0
/*
 * Memory and disk of a VM's VMM process, from its /proc files: resident,
 * its peak and swapped (status), major faults, block-I/O delay and when
 * it began (stat), huge
 * pages (smaps_rollup), the guest's RAM (the command line's -m, else the
 * largest anonymous mapping of maps), bytes and calls read and written
 * (io).  Process-wide files count every thread, those gone included.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_priv.h"

/* QEMU's -m value in bytes (MiB without a suffix; "size=" form too): 0 if none. */
static uint64_t proc_mem_arg(const char *arg)
{
	uint64_t n, unit = 1ull << 20;
	char *end;

	if (!strncmp(arg, "size=", 5))
		arg += 5;
	if (*arg < '0' || *arg > '9')
		return 0;
	n = strtoull(arg, &end, 10);
	switch (*end) {
	case 'k': case 'K': unit = 1ull << 10; break;
	case 'm': case 'M': unit = 1ull << 20; break;
	case 'g': case 'G': unit = 1ull << 30; break;
	case 't': case 'T': unit = 1ull << 40; break;
	case 'b': case 'B': unit = 1; break;
	case '\0': case ',': break;
	default: return 0;
	}
	return n * unit;
}

/* The guest's RAM from the command line's -m (QEMU): bytes, or 0. */
static uint64_t proc_ram_cmdline(struct context *c, int pid)
{
	ssize_t n = ctx_file_read(c, "%s/%d/cmdline", c->proc, pid);
	const char *p, *end;

	if (n <= 0)
		return 0;
	end = c->buf + n;
	for (p = c->buf; p < end; p += strlen(p) + 1)
		if ((!strcmp(p, "-m") || !strcmp(p, "--m")) && p + strlen(p) + 1 < end)
			return proc_mem_arg(p + strlen(p) + 1);
	return 0;
}

/* The largest anonymous (or memfd, or hugetlbfs) writable mapping of maps: bytes, or 0. */
static uint64_t proc_ram_mapping(const struct context *c, int pid)
{
	char path[PATH_MAX + 32], line[512], perm[8], name[256];
	unsigned long long lo, hi, best = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", c->proc, pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %255s", &lo, &hi, perm, name) < 3 ||
		    hi <= lo || perm[1] != 'w')
			continue;
		if (name[0] && strncmp(name, "/memfd:", 7) && !strstr(name, "hugepages"))
			continue;
		if (hi - lo > best)
			best = hi - lo;
	}
	fclose(f);
	return best;
}

void ctx_proc_memory(struct context *c, int pid, struct ctx_reading *r)
{
	uint64_t v;

	if (ctx_file_read(c, "%s/%d/status", c->proc, pid) > 0) {
		if (keyval_find(c->buf, "VmRSS:", &v))
			ctx_set(r, CTX_RSS, (double)v * 1024);
		if (keyval_find(c->buf, "VmHWM:", &v))
			ctx_set(r, CTX_RSS_PEAK, (double)v * 1024);
		if (keyval_find(c->buf, "VmSwap:", &v))
			ctx_set(r, CTX_SWAP, (double)v * 1024);
	}
	if (ctx_file_read(c, "%s/%d/stat", c->proc, pid) <= 0)
		return;
	if (ctx_stat_field(c->buf, 12, &v))
		ctx_set(r, CTX_MAJFLT, (double)v);
	/* when it began: a VMM that began after kvmtop counts from zero */
	r->start_known = ctx_stat_field(c->buf, 22, &r->start_ticks);
}

void ctx_proc_huge(struct context *c, int pid, struct ctx_reading *r)
{
	uint64_t v, huge = 0, ram = proc_ram_cmdline(c, pid);
	bool any_huge = false;

	r->ram_cmdline = ram != 0;
	if (!ram)
		ram = proc_ram_mapping(c, pid);
	if (!ram)
		return;
	ctx_set(r, CTX_RAM, (double)ram);
	if (ctx_file_read(c, "%s/%d/smaps_rollup", c->proc, pid) > 0) {
		static const char *const keys[] = { "AnonHugePages:", "Shared_Hugetlb:", "Private_Hugetlb:" };
		unsigned int i;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (keyval_find(c->buf, keys[i], &v)) {
				huge += v * 1024;
				any_huge = true;
			}
	}
	if (any_huge)
		ctx_set(r, CTX_HUGE, huge >= ram ? 100.0 : 100.0 * (double)huge / (double)ram);
}

/*
 * Block-I/O delay of all of VM pid's threads (stat's field 42), clock
 * ticks: true with *ticks, false where the kernel does not account it
 * (kernel.task_delayacct 0, or a stat without the field).
 */
static bool proc_blkio(struct context *c, int pid, uint64_t *ticks)
{
	char path[PATH_MAX + 32];
	struct dirent *de;
	bool any = false;
	uint64_t v;
	DIR *d;

	if (c->delayacct_off)
		return false;
	snprintf(path, sizeof(path), "%s/%d/task", c->proc, pid);
	d = opendir(path);
	if (!d)
		return false;
	*ticks = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (ctx_file_read(c, "%s/%d/task/%s/stat", c->proc, pid, de->d_name) <= 0 ||
		    !ctx_stat_field(c->buf, 42, &v))
			continue;
		*ticks += v;
		any = true;
	}
	closedir(d);
	return any;
}

static int thread_cmp(const void *a, const void *b)
{
	int x = ((const struct ctx_thread *)a)->tid, y = ((const struct ctx_thread *)b)->tid;

	return (x > y) - (x < y);
}

/*
 * Thread tid of VM pid's own counters (its io and stat) into t: true, or
 * false where it ended meanwhile or a line is missing.
 */
static bool proc_thread(struct context *c, int pid, const char *tid, struct ctx_thread *t)
{
	static const char *const keys[] = { [CTX_THR_RD] = "read_bytes:", [CTX_THR_WR] = "write_bytes:" };
	unsigned int i;

	t->tid = atoi(tid);
	if (ctx_file_read(c, "%s/%d/task/%s/io", c->proc, pid, tid) <= 0)
		return false;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!keyval_find(c->buf, keys[i], &t->ctr[i]))
			return false;
	return ctx_file_read(c, "%s/%d/task/%s/stat", c->proc, pid, tid) > 0 &&
	       ctx_stat_field(c->buf, 12, &t->ctr[CTX_THR_MAJFLT]);
}

/*
 * Each of VM pid's threads' own counters into r->thr, by tid: what its
 * exit record is measured from (context_ends()).  Read after the process's
 * io: a thread's growth between the two is in neither, never in both.
 */
static void proc_threads(struct context *c, int pid, struct ctx_reading *r)
{
	char path[PATH_MAX + 32];
	struct dirent *de;
	DIR *d;

	if (!c->read_threads)
		return;		/* no exit records to measure from them: not worth their reads */
	snprintf(path, sizeof(path), "%s/%d/task", c->proc, pid);
	d = opendir(path);
	if (!d)
		return;
	r->nr_thr = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (r->nr_thr == CTX_THREADS) {
			r->thr_cut = true;
			break;
		}
		if (proc_thread(c, pid, de->d_name, &r->thr[r->nr_thr]))
			r->nr_thr++;
	}
	closedir(d);
	qsort(r->thr, (size_t)r->nr_thr, sizeof(r->thr[0]), thread_cmp);
}

void ctx_proc_io(struct context *c, int pid, struct ctx_reading *r)
{
	static const struct { const char *key; enum vm_ctx_fig f; } io[] = {
		{ "read_bytes:", CTX_RD_BPS }, { "write_bytes:", CTX_WR_BPS },
		{ "syscr:", CTX_RD_OPS }, { "syscw:", CTX_WR_OPS },
	};
	unsigned int i;
	uint64_t v;

	if (ctx_file_read(c, "%s/%d/io", c->proc, pid) > 0)
		for (i = 0; i < sizeof(io) / sizeof(io[0]); i++)
			if (keyval_find(c->buf, io[i].key, &v))
				ctx_set(r, io[i].f, (double)v);
	proc_threads(c, pid, r);
}

void ctx_proc_disk(struct context *c, int pid, struct ctx_reading *r)
{
	uint64_t v;

	ctx_proc_io(c, pid, r);
	if (proc_blkio(c, pid, &v))
		ctx_set(r, CTX_BLKIO, (double)v);
}
