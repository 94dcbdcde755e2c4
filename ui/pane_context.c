// SPDX-License-Identifier: GPL-2.0
/*
 * A VM's context (m): what src/context/ read of its VMM at the last
 * snapshot, one figure a row -- who it is, its memory, its memory per NUMA node and
 * its vCPUs' locality, its disk, each of its taps, its pressure, its
 * threads that are not vCPUs one by one with their CPU and disk -- "-"
 * where the host does not say.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "tui_priv.h"

struct ctx_row {
	int order;		/* the rows' own order */
	char item[96];
	char value[32];
	char detail[128];
};

PANE_CMP(context, ctx_row, order)

static void context_c_item(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct ctx_row *)r)->item);
}

static void context_c_value(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct ctx_row *)r)->value);
}

static void context_c_detail(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct ctx_row *)r)->detail);
}

static const struct pane_col context_cols[] = {
	{ "item",   "CONTEXT", 24, COL_LEFT,  context_c_item,   context_cmp_order, false, 9, 0, NULL },
	{ "value",  "VALUE",   14, COL_RIGHT, context_c_value,  NULL,              false, 8, 0, NULL },
	{ "detail", "DETAIL",  60, COL_LEFT,  context_c_detail, NULL,              false, 7, 0, NULL },
};

/* The next row of p: item, and the value of figure f of x in unit ("B", "B/s", "/s", "%"), or "-". */
static struct ctx_row *context_add(struct pane *p, const char *item)
{
	struct ctx_row *w = &((struct ctx_row *)p->rows)[p->nr];

	w->order = (int)p->nr++;
	snprintf(w->item, sizeof(w->item), "%s", item);
	snprintf(w->value, sizeof(w->value), "-");
	return w;
}

/* v in unit into buf: bytes in KiB/MiB/GiB, a rate, a share. */
static void context_fmt(double v, const char *unit, char *buf, size_t len)
{
	static const char *const big[] = { "", "Ki", "Mi", "Gi", "Ti" };
	int i = 0;

	if (!strcmp(unit, "%")) {
		snprintf(buf, len, "%.1f %%", v);
		return;
	}
	if (unit[0] != 'B') {
		snprintf(buf, len, "%.2f%s", v, unit);
		return;
	}
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.1f %s%s", v, big[i], unit);
}

/* A row of figure f of vm's context. */
static struct ctx_row *context_fig(struct pane *p, const struct vm *vm, const char *item,
				   enum vm_ctx_fig f, const char *unit)
{
	struct ctx_row *w = context_add(p, item);
	double v;

	if (vm_ctx_get(&vm->ctx, f, &v))
		context_fmt(v, unit, w->value, sizeof(w->value));
	return w;
}

/* Its memory, and its memory per NUMA node with its vCPUs' locality. */
static void context_memory(struct pane *p, const struct vm *vm)
{
	const struct vm_ctx *x = &vm->ctx;
	struct ctx_row *w;
	uint64_t all = 0;
	double main;
	int n;

	context_fig(p, vm, "resident", CTX_RSS, "B");
	w = context_fig(p, vm, "resident at most", CTX_RSS_PEAK, "B");
	snprintf(w->detail, sizeof(w->detail), "since it began (VmHWM)");
	context_fig(p, vm, "swapped out", CTX_SWAP, "B");
	context_fig(p, vm, "major faults", CTX_MAJFLT, "/s");
	w = context_fig(p, vm, "guest RAM", CTX_RAM, "B");
	if (x->known & (1u << CTX_RAM))
		snprintf(w->detail, sizeof(w->detail), "%s", x->ram_cmdline ? "the command line's -m" :
			 "its largest anonymous mapping");
	context_fig(p, vm, "huge pages", CTX_HUGE, "%");
	for (n = 0; n < x->nr_nodes; n++)
		all += x->node_bytes[n];
	if (!vm_ctx_get(x, CTX_NODE, &main))
		main = -1;
	for (n = 0; n < x->nr_nodes; n++) {
		char item[32];

		if (!x->node_bytes[n])
			continue;
		snprintf(item, sizeof(item), "memory on node %d", n);
		w = context_add(p, item);
		context_fmt((double)x->node_bytes[n], "B", w->value, sizeof(w->value));
		snprintf(w->detail, sizeof(w->detail), "%.1f %% of its memory%s", all ? 100.0 * (double)x->node_bytes[n] /
			 (double)all : 0, n == (int)main ? ", the most" : "");
	}
	w = context_fig(p, vm, "vCPUs on that node", CTX_LOCAL_PCT, "%");
	snprintf(w->detail, sizeof(w->detail), "of their time on a CPU (sampled at each snapshot)");
}

/* Its disk, each tap, its pressure. */
static void context_io(struct pane *p, const struct vm *vm)
{
	const struct vm_ctx *x = &vm->ctx;
	char name[CTX_IFNAMSIZ * 4];
	struct ctx_row *w;
	int k;

	context_fig(p, vm, "disk read", CTX_RD_BPS, "B/s");
	context_fig(p, vm, "disk written", CTX_WR_BPS, "B/s");
	context_fig(p, vm, "read calls", CTX_RD_OPS, "/s");
	context_fig(p, vm, "write calls", CTX_WR_OPS, "/s");
	context_fig(p, vm, "block I/O delay", CTX_BLKIO, "%");
	for (k = 0; k < x->nr_tap_rows; k++) {
		const struct vm_ctx_tap *tap = &x->taps[k];
		char item[96];
		int dir;

		escape_text(tap->name, name, sizeof(name));
		for (dir = 0; dir < 2; dir++) {
			snprintf(item, sizeof(item), "tap %s %s", name, dir ? "tx" : "rx");
			w = context_add(p, item);
			if (!tap->known)
				continue;
			context_fmt(tap->rate[dir ? CTX_TAP_TXB : CTX_TAP_RXB], "B/s", w->value, sizeof(w->value));
			snprintf(w->detail, sizeof(w->detail), "%.2f packets/s%s", tap->rate[dir ? CTX_TAP_TXP : CTX_TAP_RXP],
				 dir ? "" : " (what the guest sent)");
		}
		w = context_add(p, item);
		snprintf(w->item, sizeof(w->item), "tap %s drops", name);
		if (tap->known)
			snprintf(w->value, sizeof(w->value), "%.2f/s", tap->rate[CTX_TAP_DROPS]);
	}
	w = context_fig(p, vm, "cpu pressure", CTX_CPU_SOME, "%");
	snprintf(w->detail, sizeof(w->detail), "some of its tasks stalled (its cgroup v2's cpu.pressure)");
	context_fig(p, vm, "memory pressure", CTX_MEM_SOME, "%");
	context_fig(p, vm, "memory pressure, full", CTX_MEM_FULL, "%");
	context_fig(p, vm, "io pressure", CTX_IO_SOME, "%");
	context_fig(p, vm, "io pressure, full", CTX_IO_FULL, "%");
}

/* Row w's detail: s escaped, its value "-" only where s is empty (not known). */
static void context_text(struct ctx_row *w, const char *s)
{
	escape_text(s, w->detail, sizeof(w->detail));
	if (s[0])
		w->value[0] = '\0';
}

/* Who it is (kvmtop(1): identity): its best name and where it comes from, UUID, project, flavor; escaped. */
static void context_identity(struct pane *p, const struct vm *vm)
{
	const struct ident_vm *id = &vm->ident;
	struct ctx_row *w;

	if (!id->read)
		return;
	w = context_add(p, "name");
	snprintf(w->value, sizeof(w->value), "%s", id->from);
	escape_text(id->name[0] ? id->name : vm->name, w->detail, sizeof(w->detail));
	context_text(context_add(p, "uuid"), id->uuid);
	if (!id->project[0] && !id->flavor[0])
		return;
	context_text(context_add(p, "OpenStack project"), id->project);
	context_text(context_add(p, "OpenStack flavor"), id->flavor);
}

/* Busiest first (this interval's CPU time), then by tid. */
static int detail_busy_cmp(const void *a, const void *b)
{
	const struct thread_detail *x = *(const struct thread_detail *const *)a;
	const struct thread_detail *y = *(const struct thread_detail *const *)b;
	uint64_t rx = x->known ? x->d_run : 0, ry = y->known ? y->d_run : 0;

	if (rx != ry)
		return rx < ry ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* A row of thread d: its name, its share of a CPU, its disk rates ("-" where not known yet). */
static void context_thread(const struct tui *t, struct pane *p, const struct thread_detail *d)
{
	char name[MODEL_COMM_LEN * 4], item[96], rd[32], wr[32];
	struct ctx_row *w;

	escape_text(d->comm, name, sizeof(name));
	snprintf(item, sizeof(item), "  %s", name);
	w = context_add(p, item);
	if (d->known && t->secs > 0)
		context_fmt(100.0 * (double)d->d_run / 1e9 / t->secs, "%", w->value, sizeof(w->value));
	if (d->io_known && t->secs > 0) {
		context_fmt((double)d->d_rd / t->secs, "B/s", rd, sizeof(rd));
		context_fmt((double)d->d_wr / t->secs, "B/s", wr, sizeof(wr));
		snprintf(w->detail, sizeof(w->detail), "tid %d: disk read %s, written %s", d->tid, rd, wr);
	} else {
		snprintf(w->detail, sizeof(w->detail), "tid %d: disk %s", d->tid,
			 d->io ? "from the next snapshot" : "not readable (its io file)");
	}
}

/*
 * Its threads that are not vCPUs: the VMM's own (its I/O threads among
 * them) and vhost workers, each group's count, then each thread, busiest
 * first, read one by one while this pane is shown (view.h's detail_pid).
 */
static int context_threads(const struct tui *t, struct pane *p, const struct vm *vm)
{
	static const char *const what[TG_NR] = { "VMM threads", "vhost workers" };
	const struct thread_detail **by = calloc(vm->nr_detail + 1, sizeof(*by));
	size_t i, n;
	int g;

	if (!by)
		return -1;
	for (g = 0; g < TG_NR; g++) {
		struct ctx_row *w = context_add(p, what[g]);

		if (!vm->groups[g].seen)
			continue;
		snprintf(w->value, sizeof(w->value), "%d", vm->groups[g].count);
		snprintf(w->detail, sizeof(w->detail), "%s", !vm->detail ? "each one from the next snapshot on" :
			 g == TG_EMULATOR ? "the VMM's own: main loop, I/O threads, workers (EMU% in the VMs pane)" :
			 "vhost-net and other vhost threads serving it (VHOST%)");
		for (i = n = 0; i < vm->nr_detail; i++)
			if (vm->detail[i].group == (enum thread_group)g)
				by[n++] = &vm->detail[i];
		qsort(by, n, sizeof(*by), detail_busy_cmp);
		for (i = 0; i < n; i++)
			context_thread(t, p, by[i]);
	}
	free(by);
	return 0;
}

/* Rows but the threads': identity, memory, nodes, disk, taps, pressure, the groups. */
#define CONTEXT_MAX_ROWS	(4 + 16 + CTX_NODES + 3 * CTX_TAPS + 16)

static int context_build(struct tui *t, struct pane *p)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);

	p->nr = 0;
	p->rows = calloc(CONTEXT_MAX_ROWS + (vm ? vm->nr_detail : 0), sizeof(struct ctx_row));
	if (!p->rows)
		return -1;
	if (!vm)
		return 0;
	context_identity(p, vm);
	context_memory(p, vm);
	context_io(p, vm);
	return context_threads(t, p, vm);
}

static uint64_t context_key(const void *r)
{
	return (uint64_t)((const struct ctx_row *)r)->order;
}

static const char *context_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct ctx_row *)r)->item);
	return buf;
}

static const char *context_empty(const struct tui *t, const struct pane *p)
{
	return "the VM is gone";
}

static void context_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct vm *vm = tui_find_vm(t, p->vm_pid);
	char name[MODEL_NAME_LEN * 4];

	escape_text(vm ? vm->name : "?", name, sizeof(name));
	snprintf(buf, len, "Context of VM %s (pid %d): memory, NUMA, disk, network, pressure%s", name, p->vm_pid,
		 t->live ? "" : " (live only: a recording has none)");
}

const struct pane_ops pane_context = {
	.name = "context",
	.cols = context_cols,
	.nr_cols = sizeof(context_cols) / sizeof(context_cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct ctx_row),
	.build = context_build,
	.key = context_key,
	.label = context_label,
	.empty = context_empty,
	.title = context_title,
};
