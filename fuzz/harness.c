// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzing entry points for kvmtop's parsers of things it does not control,
 * one per mode, each reading one input file (AFL++'s @@):
 *
 *   harness syms FILE     FILE as a guest kallsyms or System.map, looked
 *                         up across a kernel's first MiB, without and with
 *                         a KASLR offset
 *   harness proc FILE     FILE split at its first six 0x01 bytes into a
 *                         thread's /proc status, comm, its process's
 *                         cmdline, its stat (kernel thread or not; utime,
 *                         stime, guest_time), its schedstat, its syscall
 *                         file and an fd link's target, laid out as a
 *                         /proc tree (also as the process's only task),
 *                         identified, its times read, and looked at as
 *                         the stats source looks for VMs and vCPUs
 *   harness options FILE  FILE's lines as kvmtop's argv (options_parse
 *                         exits 2 on a usage error, 0 on --help)
 *   harness kstat FILE    FILE as a KVM binary statistics file: its
 *                         layout, its data, every value's unit and bucket
 *                         bound, its descriptors interned twice
 *   harness threads FILE  FILE as a --threads snapshot (ps -eLo
 *                         tid=,pid=,args=), then every tid it may name
 *                         and a few it cannot looked up, and guessed
 *   harness libvirt FILE  FILE (its first MiB) as a libvirt status XML,
 *                         of the pid it names and of another, and as a
 *                         VMM's and its parent's command line
 *
 * The recording parser is kvmtop itself (kvmtop -b -r FILE); see fuzz/run.
 * Built twice: by make fuzz with afl-cc, by make check with ASan and UBSan
 * to replay fuzz/corpus.  A crash or a sanitizer report is a finding;
 * any exit status is not.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ui/history.h"
#include "ui/tui_priv.h"

#include <fcntl.h>

#include "ident/ident.h"
#include "sources/stats_file.h"
#include "options.h"
#include "tables.h"
#include "sym/sym.h"

#define INPUT_MAX	(1 << 20)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(INPUT_MAX + 1);
	if (!buf) {
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, INPUT_MAX, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static int fuzz_syms(const char *path)
{
	static const uint64_t offsets[] = { 0, 0x1e000000 };
	char err[256], buf[256];
	size_t k;

	for (k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
		struct sym_table t;
		uint64_t ip;

		if (sym_table_load(&t, path, err, sizeof(err)))
			continue;
		t.offset = offsets[k];
		for (ip = 0xffffffff81000000ull; ip < 0xffffffff81000000ull + (1 << 20); ip += 4093)
			sym_ip(&t, ip, true, buf, sizeof(buf));
		sym_ip(&t, 0, true, buf, sizeof(buf));
		sym_ip(&t, UINT64_MAX, true, buf, sizeof(buf));
		sym_table_free(&t);
	}
	return 0;
}

static int put(const char *dir, const char *name, const char *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(data, 1, len, f);
	return fclose(f);
}

/* The files fuzz_proc lays out, below the tree's root, and the input part each holds. */
static const struct { const char *name; int part; } proc_files[] = {
	{ "1000/status", 0 }, { "1000/comm", 1 }, { "1000/cmdline", 2 }, { "1000/stat", 3 },
	{ "1000/schedstat", 4 }, { "1000/task/1000/comm", 1 }, { "1000/task/1000/schedstat", 4 },
	{ "1000/task/1000/syscall", 5 },
};
/* ... and part 6, the target of the link 1000/fd/11 (up to its first NUL) */
#define PROC_PARTS	7

static int fuzz_proc(const char *path)
{
	char root[] = "/tmp/kvmtop-fuzz-proc.XXXXXX", f[700], link[256];
	struct ident_kvm_fd kfds[4];
	struct ident_proc procs[4];
	const char *part[PROC_PARTS];
	size_t len, plen[PROC_PARTS], i;
	struct ident_task *tasks;
	struct ident_info info;
	struct proc_times times;
	struct ident id;
	char *buf, *p, *end;

	buf = slurp(path, &len);
	if (!buf || !mkdtemp(root))
		return 0;
	/* status \1 comm \1 cmdline \1 stat \1 schedstat \1 syscall \1 fd link target */
	end = buf + len;
	p = buf;
	for (i = 0; i < PROC_PARTS; i++) {
		char *sep = i < PROC_PARTS - 1 ? memchr(p, 1, end - p) : NULL;

		part[i] = p;
		plen[i] = (sep ? sep : end) - p;
		p = sep ? sep + 1 : end;
	}
	snprintf(f, sizeof(f), "%s/1000", root);
	mkdir(f, 0700);
	snprintf(f, sizeof(f), "%s/1000/task", root);
	mkdir(f, 0700);
	snprintf(f, sizeof(f), "%s/1000/task/1000", root);
	mkdir(f, 0700);
	snprintf(f, sizeof(f), "%s/1000/fd", root);
	mkdir(f, 0700);
	for (i = 0; i < sizeof(proc_files) / sizeof(proc_files[0]); i++)
		put(root, proc_files[i].name, part[proc_files[i].part], plen[proc_files[i].part]);
	snprintf(link, sizeof(link), "%.*s", (int)(plen[6] < 255 ? plen[6] : 255), part[6]);
	snprintf(f, sizeof(f), "%s/1000/fd/11", root);
	if (link[0])
		symlink(link, f);
	ident_init(&id, root);
	/* the stats source's look at it: a VM?  its KVM fds, its vCPU 0's thread */
	ident_procs(&id, procs, 4);
	ident_holds_vm(&id, 1000);
	ident_kvm_fds(&id, 1000, kfds, 4);
	ident_vcpu_thread(&id, 1000, 11, 0);
	ident_thread(&id, 1000, &info);
	ident_kernel_comm(info.comm);
	ident_vm_name(part[2], plen[2], "comm", info.vm_name, sizeof(info.vm_name));
	ident_read_times(&id, 1000, &times);
	if (ident_read_tasks(&id, 1000, &tasks) >= 0)
		free(tasks);
	/* tidy: the tree is this run's only */
	for (i = 0; i < sizeof(proc_files) / sizeof(proc_files[0]); i++) {
		snprintf(f, sizeof(f), "%s/%s", root, proc_files[i].name);
		unlink(f);
	}
	snprintf(f, sizeof(f), "%s/1000/fd/11", root);
	unlink(f);
	snprintf(f, sizeof(f), "%s/1000/fd", root);
	rmdir(f);
	snprintf(f, sizeof(f), "%s/1000/task/1000", root);
	rmdir(f);
	snprintf(f, sizeof(f), "%s/1000/task", root);
	rmdir(f);
	snprintf(f, sizeof(f), "%s/1000", root);
	rmdir(f);
	rmdir(root);
	free(buf);
	return 0;
}

static int fuzz_options(const char *path)
{
	char *argv[64], *buf, *p, *nl;
	struct options o;
	size_t len;
	int argc = 0;

	buf = slurp(path, &len);
	if (!buf)
		return 0;
	argv[argc++] = "kvmtop";
	for (p = buf; p < buf + len && argc < 63; p = nl + 1) {
		nl = memchr(p, '\n', buf + len - p);
		if (!nl)
			nl = buf + len;
		*nl = '\0';
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	/* usage errors go to stderr and exit 2: quiet them */
	if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout))
		return 0;
	options_tables();
	options_parse(argc, argv, &o, NULL);
	sym_set_free(&o.syms);
	free(buf);
	return 0;
}

static int fuzz_kstat(const char *path)
{
	struct kstat_table t = { 0 };
	struct kstat_layout l;
	uint64_t *vals;
	char err[512], ub[64];
	unsigned int i, j, pass;
	uint64_t sum = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (kstat_layout_read(fd, &l, err, sizeof(err))) {
		close(fd);
		return 0;
	}
	vals = calloc(l.data_size / 8 + 1, sizeof(*vals));
	if (vals && !kstat_data_read(fd, &l, vals, err, sizeof(err)))
		for (i = 0; i < l.nr; i++) {
			kstat_unit(&l.d[i], ub, sizeof(ub));
			for (j = 0; j < l.d[i].size; j++)
				sum += kstat_value(vals, &l.d[i], j) + kstat_bucket_le(&l.d[i], j);
		}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < l.nr; i++)
			if (kstat_table_intern(&t, &l.d[i], err, sizeof(err)) < 0)
				break;
	kstat_table_free(&t);
	kstat_layout_free(&l);
	free(vals);
	close(fd);
	return sum == 1 ? 1 : 0;	/* keeps the reads from being optimised away */
}

static int fuzz_threads(const char *path)
{
	struct ident_threads *t;
	struct ident_info id;
	char err[512];
	long sum = 0;
	int tid;

	if (ident_threads_load(&t, path, err, sizeof(err)))
		return 0;
	for (tid = 1; tid < 70000; tid++) {
		memset(&id, 0, sizeof(id));
		if (ident_threads_find(t, tid, &id))
			sum += id.pid + (long)strlen(id.vm_name) + id.kernel;
		else
			ident_guess(tid, "CPU 3/KVM", -1, &id);
	}
	ident_threads_find(t, INT32_MAX, &id);
	ident_threads_free(t);
	return sum < 0;
}

static int fuzz_libvirt(const char *path)
{
	struct ident_vm id;
	size_t len = 0;
	ssize_t n;
	char *buf;
	int fd, pid;

	buf = malloc(1 << 20);
	fd = open(path, O_RDONLY);
	if (!buf || fd < 0)
		goto out;
	while (len < (1 << 20) - 1 && (n = read(fd, buf + len, (1 << 20) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	memset(&id, 0, sizeof(id));
	pid = ident_libvirt_pid(buf, len);
	ident_libvirt_xml(buf, len, pid, &id);
	ident_libvirt_xml(buf, len, 1, &id);
	ident_vm_cmdline(buf, len, "sandbox-x", &id);
	ident_vm_parent(buf, len, &id);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return 0;
}

/* A screen as tui_start() sets it up before it reads its settings. */
static struct tui *settings_tui(const char *path)
{
	struct tui *t = calloc(1, sizeof(*t));
	int id;

	if (!t)
		return NULL;
	t->panes = tui_panes;
	t->delay = 3.0;
	t->history_len = HISTORY_LEN;
	t->start_pane = PANE_VMS;
	t->vms_view = -1;
	for (id = 0; id < PANE_NR; id++)
		t->set[id].sort = -1;
	snprintf(t->rc, sizeof(t->rc), "%s", path);
	return t;
}

/* Read as the screen reads path: the settings, NULL where no memory. */
static struct tui *settings_read(const char *path)
{
	struct tui_config c = { .config = path };
	struct tui *t = settings_tui(path);

	if (t)
		tui_rc_read(t, &c);
	return t;
}

/* Do a and b give every pane the same columns and sort? */
static bool settings_same(const struct tui *a, const struct tui *b)
{
	int id;

	for (id = 0; id < PANE_NR; id++) {
		const struct tui_pane_set *x = &a->set[id], *y = &b->set[id];

		if (x->nr_cols != y->nr_cols || x->sort != y->sort || x->invert != y->invert ||
		    memcmp(x->cols, y->cols, (size_t)x->nr_cols * sizeof(x->cols[0])))
			return false;
	}
	return true;
}

/*
 * The screen's settings file (ui/tui_rc.c): every line through the
 * reader (old column names renamed), the settings written back as W
 * does, and that file read again: it must give the same settings, or
 * W would change what the next start shows (abort: a crash to AFL).
 */
static int fuzz_settings(const char *path)
{
	char out[4096];
	struct tui *t, *again = NULL;

	if (!freopen("/dev/null", "w", stderr))
		return 0;
	t = settings_read(path);
	if (!t)
		return 0;
	/* a place of its own: the corpus may be read-only (make distcheck) */
	snprintf(out, sizeof(out), "%s/kvmtop-settings-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	snprintf(t->rc, sizeof(t->rc), "%s", out);
	tui_rc_write(t);
	if (!access(out, R_OK))
		again = settings_read(out);
	unlink(out);
	if (again && (!settings_same(t, again) || t->delay != again->delay ||
		      t->history_len != again->history_len || t->start_pane != again->start_pane ||
		      t->scheme != again->scheme || t->hide_idle != again->hide_idle))
		abort();
	free(again);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: harness syms|proc|options|kstat|threads|libvirt|settings FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "syms"))
		return fuzz_syms(argv[2]);
	if (!strcmp(argv[1], "proc"))
		return fuzz_proc(argv[2]);
	if (!strcmp(argv[1], "options"))
		return fuzz_options(argv[2]);
	if (!strcmp(argv[1], "kstat"))
		return fuzz_kstat(argv[2]);
	if (!strcmp(argv[1], "threads"))
		return fuzz_threads(argv[2]);
	if (!strcmp(argv[1], "libvirt"))
		return fuzz_libvirt(argv[2]);
	if (!strcmp(argv[1], "settings"))
		return fuzz_settings(argv[2]);
	fprintf(stderr, "harness: unknown mode %s\n", argv[1]);
	return 2;
}
