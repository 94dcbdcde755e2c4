// SPDX-License-Identifier: GPL-2.0
/*
 * The fields of every row, declared once (model_fields.h): a VM's, then a
 * vCPU thread's, then an exit reason's, then an object's.  Within a kind the order is
 * JSON's key order (and, for reasons, CSV's column order); a group's
 * fields are adjacent.  Latency figures are of the exit -> entry pairs
 * the count holds; handling figures of the same pairs' time on a CPU.
 * A histogram's figure without samples is unknown (null, empty, "-"):
 * no latency is not a latency of 0.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model_fields.h"
#include "decode/objects.h"

uint64_t model_quantile(const struct hist *h, double q)
{
	return hist_quantile(h, q);
}

/* A reason's field: w is the row's reason figures. */
#define GET(fn, expr) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ const struct model_reason_row *w = row->r; expr; }
/* An object's field: o is the row's object figures. */
#define GET_OBJ(fn, expr) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ const struct model_obj_row *o = row->o; expr; }
/* A VM's or vCPU's field: vm and c are the row's VM and vCPU. */
#define GET_ROW(fn, expr) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ const struct vm *vm = row->vm; const struct vcpu *c = row->v; (void)vm; (void)c; expr; }

GET_ROW(get_vm_pid, v->i = vm->pid)
GET_ROW(get_vm_name, v->s = vm->name)
/* who it is (vm->ident, live): the best name, else the VMM's; the rest unknown where not read */
GET_ROW(get_vm_display, v->s = vm->ident.read && vm->ident.name[0] ? vm->ident.name : vm->name)
GET_ROW(get_vm_name_from, v->s = vm->ident.read ? vm->ident.from : NULL; v->unknown = !v->s)
GET_ROW(get_vm_uuid, v->s = vm->ident.uuid; v->unknown = !vm->ident.uuid[0])
GET_ROW(get_vm_project, v->s = vm->ident.project; v->unknown = !vm->ident.project[0])
GET_ROW(get_vm_flavor, v->s = vm->ident.flavor; v->unknown = !vm->ident.flavor[0])
GET_ROW(get_vm_state, v->s = model_vm_state(row->m, vm))
GET_ROW(get_vm_grouped_by, v->s = model_vm_ident(row->m, vm))
GET_ROW(get_vm_exits_unknown, v->s = vm->exits_unknown ? vm->exits_unknown : "")
GET_ROW(get_vm_vcpus, v->i = vm->nr_vcpus)
GET_ROW(get_vcpu, v->i = c->vcpu_id)
GET_ROW(get_tid, v->i = c->tid)
GET_ROW(get_comm, v->s = c->comm)
GET_ROW(get_last_cpu, v->i = c->last_cpu)

/* A VM's context figure f (model.h's vm_ctx): bytes as a whole number, rates and shares as fractions. */
#define GET_CTX(fn, f) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ v->unknown = !vm_ctx_get(&row->vm->ctx, f, &v->d); v->u = (uint64_t)v->d; }

GET_CTX(get_rss, CTX_RSS)
GET_CTX(get_swap, CTX_SWAP)
GET_CTX(get_majflt, CTX_MAJFLT)
GET_CTX(get_ram, CTX_RAM)
GET_ROW(get_ram_from, v->s = !(vm->ctx.known & (1u << CTX_RAM)) ? NULL :
	vm->ctx.ram_cmdline ? "cmdline" : "mapping"; v->unknown = !v->s)
GET_CTX(get_huge, CTX_HUGE)
GET_CTX(get_rd_bps, CTX_RD_BPS)
GET_CTX(get_wr_bps, CTX_WR_BPS)
GET_CTX(get_rd_ops, CTX_RD_OPS)
GET_CTX(get_wr_ops, CTX_WR_OPS)
GET_CTX(get_blkio, CTX_BLKIO)
GET_ROW(get_taps, v->i = vm->ctx.nr_taps; v->unknown = vm->ctx.nr_taps < 0 || !vm->ctx.known)
GET_CTX(get_rx_bps, CTX_RX_BPS)
GET_CTX(get_tx_bps, CTX_TX_BPS)
GET_CTX(get_rx_pps, CTX_RX_PPS)
GET_CTX(get_tx_pps, CTX_TX_PPS)
GET_CTX(get_drops, CTX_DROPS)
GET_CTX(get_cpu_some, CTX_CPU_SOME)
GET_CTX(get_cpu_full, CTX_CPU_FULL)
GET_CTX(get_mem_some, CTX_MEM_SOME)
GET_CTX(get_mem_full, CTX_MEM_FULL)
GET_CTX(get_io_some, CTX_IO_SOME)
GET_CTX(get_io_full, CTX_IO_FULL)
GET_ROW(get_numa_node, v->unknown = !vm_ctx_get(&vm->ctx, CTX_NODE, &v->d); v->i = (int64_t)v->d)
GET_CTX(get_numa_node_pct, CTX_NODE_PCT)
GET_CTX(get_numa_local, CTX_LOCAL_PCT)
GET_ROW(get_node, v->i = c->ctx_node; v->unknown = c->ctx_node < 0)

GET(get_reason, v->s = w->r->name)
GET(get_code, v->u = w->r->code)
GET(get_isa, v->s = kvm_isa_name(w->r->isa))
GET(get_flags, v->s = w->r->flag_names)
GET(get_blocking, v->b = w->r->blocking)
GET(get_count, v->u = w->count)
GET(get_total, v->u = w->total)
GET(get_pct, v->d = w->scope_exits ? 100.0 * (double)w->count / (double)w->scope_exits : 0.0)
GET(get_samples, v->u = w->lat.samples)
GET(get_min, v->unknown = !w->lat.samples; v->u = w->lat.min)
GET(get_mean, v->unknown = !w->lat.samples; v->d = hist_mean(&w->lat))
GET(get_p50, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.50))
GET(get_p90, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.90))
GET(get_p99, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.99))
GET(get_p999, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.999))
GET(get_max, v->unknown = !w->lat.samples; v->u = w->lat.max)
GET(get_sum, v->unknown = !w->lat.samples; v->u = hist_sum(&w->lat))
GET(get_h_samples, v->u = w->handling.samples)
GET(get_h_min, v->unknown = !w->handling.samples; v->u = w->handling.min)
GET(get_h_mean, v->unknown = !w->handling.samples; v->d = hist_mean(&w->handling))
GET(get_h_p50, v->unknown = !w->handling.samples; v->u = model_quantile(&w->handling, 0.50))
GET(get_h_p90, v->unknown = !w->handling.samples; v->u = model_quantile(&w->handling, 0.90))
GET(get_h_p99, v->unknown = !w->handling.samples; v->u = model_quantile(&w->handling, 0.99))
GET(get_h_p999, v->unknown = !w->handling.samples; v->u = model_quantile(&w->handling, 0.999))
GET(get_h_max, v->unknown = !w->handling.samples; v->u = w->handling.max)
GET(get_h_sum, v->unknown = !w->handling.samples; v->u = hist_sum(&w->handling))
GET(get_preempted, v->u = w->preempted)
GET(get_blocked, v->u = w->blocked)

GET_OBJ(get_o_reason, v->s = o->r->name)
GET_OBJ(get_o_kind, v->s = kvm_obj_kind_name(o->kind))
GET_OBJ(get_o_object, v->s = kvm_obj_value(o->kind, o->value, v->buf, sizeof(v->buf));
	v->unknown = o->kind == KVM_OBJ_OTHER || o->kind == KVM_OBJ_NONE)
/* an address or identifier (port, page, MSR ...), as s in hex too; the others' row has none */
GET_OBJ(get_o_value, v->u = o->value; v->unknown = o->kind == KVM_OBJ_OTHER || o->kind == KVM_OBJ_NONE;
	snprintf(v->buf, sizeof(v->buf), "0x%" PRIx64, o->value); v->s = v->buf)
GET_OBJ(get_o_name, v->s = kvm_obj_name(o->kind, o->value) ?: "unknown")
GET_OBJ(get_o_dir, v->s = kvm_obj_dir_name(o->kind, o->dir))
GET_OBJ(get_o_size, v->u = o->size)
GET_OBJ(get_o_count, v->u = o->count)
/* Its first site: the guest IP most of its exits came from (none: unknown). */
GET_OBJ(get_o_site, v->unknown = !o->site[0].n; v->u = o->site[0].ip;
	snprintf(v->buf, sizeof(v->buf), "0x%" PRIx64, o->site[0].ip); v->s = v->buf)
GET_OBJ(get_o_site_pct, v->unknown = !o->site[0].n || !o->count;
	v->d = o->count ? 100.0 * (double)o->site[0].n / (double)o->count : 0.0)
GET_OBJ(get_o_pct, v->d = o->reason_count ? 100.0 * (double)o->count / (double)o->reason_count : 0.0)
GET_OBJ(get_o_total, v->u = o->total)
GET_OBJ(get_o_samples, v->u = o->lat.samples)
GET_OBJ(get_o_min, v->unknown = !o->lat.samples; v->u = o->lat.min)
GET_OBJ(get_o_mean, v->unknown = !o->lat.samples; v->d = hist_mean(&o->lat))
GET_OBJ(get_o_p50, v->unknown = !o->lat.samples; v->u = model_quantile(&o->lat, 0.50))
GET_OBJ(get_o_p90, v->unknown = !o->lat.samples; v->u = model_quantile(&o->lat, 0.90))
GET_OBJ(get_o_p99, v->unknown = !o->lat.samples; v->u = model_quantile(&o->lat, 0.99))
GET_OBJ(get_o_p999, v->unknown = !o->lat.samples; v->u = model_quantile(&o->lat, 0.999))
GET_OBJ(get_o_max, v->unknown = !o->lat.samples; v->u = o->lat.max)
GET_OBJ(get_o_sum, v->unknown = !o->lat.samples; v->u = hist_sum(&o->lat))

#define LAT(n, t, k, fn)	{ MR_REASON, n, "latency", n, t, k, MF_LAT, false, fn }
#define HAND(n, t, k, fn)	{ MR_REASON, "handling_" n, "handling", n, t, k, MF_HANDLING, true, fn }
/* name, its JSON key, title, kind, getter */
#define OBJ(n, k, t, kind, fn)	{ MR_OBJECT, n, NULL, k, t, kind, MF_NO_HIST, false, fn }
#define OLAT(n, k, t, kind, fn)	{ MR_OBJECT, n, "latency", k, t, kind, MF_OBJ_LAT, false, fn }
#define VM(n, k, t, kind, fn)	{ MR_VM, n, NULL, k, t, kind, MF_NO_HIST, false, fn }
#define VCPU(n, k, t, kind, fn)	{ MR_VCPU, n, NULL, k, t, kind, MF_NO_HIST, false, fn }

const struct model_field model_fields[] = {
	VM("vm_pid",        "pid",          "PID",       MF_INT,  get_vm_pid),
	VM("vm_name",       "name",         "VM",        MF_TEXT, get_vm_name),
	VM("vm_display",    "display_name", "NAME",      MF_TEXT, get_vm_display),
	VM("vm_name_from",  "name_from",    "NAME FROM", MF_TEXT, get_vm_name_from),
	VM("vm_uuid",       "uuid",         "UUID",      MF_TEXT, get_vm_uuid),
	VM("vm_project",    "project",      "PROJECT",   MF_TEXT, get_vm_project),
	VM("vm_flavor",     "flavor",       "FLAVOR",    MF_TEXT, get_vm_flavor),
	VM("vm_state",      "state",        "STATE",     MF_TEXT, get_vm_state),
	VM("vm_grouped_by", "grouped_by",   "GROUPED BY", MF_TEXT, get_vm_grouped_by),
	VM("vm_exits_unknown", "exits_unknown", "EXITS UNKNOWN", MF_TEXT, get_vm_exits_unknown),
	VM("vm_vcpus",      "vcpu_threads", "VCPUS",     MF_INT,  get_vm_vcpus),
	/* its context (src/context/): null, empty or "-" where the host does not say */
	VM("mem_rss",       "mem_rss",      "RES",       MF_NUM,  get_rss),
	VM("mem_swap",      "mem_swap",     "SWAP",      MF_NUM,  get_swap),
	VM("majflt_s",      "majflt_s",     "MAJFLT/S",  MF_RATE, get_majflt),
	VM("guest_ram",     "guest_ram",    "RAM",       MF_NUM,  get_ram),
	VM("guest_ram_from", "guest_ram_from", "RAM FROM", MF_TEXT, get_ram_from),
	VM("huge_pct",      "huge_pct",     "HUGE%",     MF_PCT,  get_huge),
	VM("disk_rd_bps",   "disk_rd_bps",  "DISK RD/S", MF_RATE, get_rd_bps),
	VM("disk_wr_bps",   "disk_wr_bps",  "DISK WR/S", MF_RATE, get_wr_bps),
	VM("disk_rd_ops",   "disk_rd_ops",  "RDOPS/S",   MF_RATE, get_rd_ops),
	VM("disk_wr_ops",   "disk_wr_ops",  "WROPS/S",   MF_RATE, get_wr_ops),
	VM("blkio_pct",     "blkio_pct",    "BLKIO%",    MF_PCT,  get_blkio),
	VM("net_taps",      "net_taps",     "TAPS",      MF_INT,  get_taps),
	VM("net_rx_bps",    "net_rx_bps",   "NET RX/S",  MF_RATE, get_rx_bps),
	VM("net_tx_bps",    "net_tx_bps",   "NET TX/S",  MF_RATE, get_tx_bps),
	VM("net_rx_pps",    "net_rx_pps",   "RXPKT/S",   MF_RATE, get_rx_pps),
	VM("net_tx_pps",    "net_tx_pps",   "TXPKT/S",   MF_RATE, get_tx_pps),
	VM("net_drops_s",   "net_drops_s",  "DROPS/S",   MF_RATE, get_drops),
	VM("psi_cpu_some",  "psi_cpu_some", "CPU SOME%", MF_PCT,  get_cpu_some),
	VM("psi_cpu_full",  "psi_cpu_full", "CPU FULL%", MF_PCT,  get_cpu_full),
	VM("psi_mem_some",  "psi_mem_some", "MEM SOME%", MF_PCT,  get_mem_some),
	VM("psi_mem_full",  "psi_mem_full", "MEM FULL%", MF_PCT,  get_mem_full),
	VM("psi_io_some",   "psi_io_some",  "IO SOME%",  MF_PCT,  get_io_some),
	VM("psi_io_full",   "psi_io_full",  "IO FULL%",  MF_PCT,  get_io_full),
	VM("numa_node",     "numa_node",    "NODE",      MF_INT,  get_numa_node),
	VM("numa_node_pct", "numa_node_pct", "NODE MEM%", MF_PCT, get_numa_node_pct),
	VM("numa_local_pct", "numa_local_pct", "LOCAL%", MF_PCT,  get_numa_local),
	VCPU("vcpu",        "vcpu",         "VCPU",      MF_INT,  get_vcpu),
	VCPU("tid",         "tid",          "TID",       MF_INT,  get_tid),
	VCPU("comm",        "comm",         "THREAD",    MF_TEXT, get_comm),
	VCPU("last_cpu",    "last_cpu",     "CPU",       MF_INT,  get_last_cpu),
	VCPU("node",        "node",         "NODE",      MF_INT,  get_node),
	{ MR_REASON, "reason",   NULL, "reason",   "REASON",   MF_TEXT, MF_NO_HIST, false, get_reason },
	{ MR_REASON, "code",     NULL, "code",     "CODE",     MF_NUM,  MF_NO_HIST, false, get_code },
	{ MR_REASON, "isa",      NULL, "isa",      "ISA",      MF_TEXT, MF_NO_HIST, false, get_isa },
	{ MR_REASON, "flags",    NULL, "flags",    "FLAGS",    MF_TEXT, MF_NO_HIST, false, get_flags },
	{ MR_REASON, "blocking", NULL, "blocking", "BLOCKING", MF_BOOL, MF_NO_HIST, false, get_blocking },
	{ MR_REASON, "count",    NULL, "count",    "COUNT",    MF_NUM,  MF_NO_HIST, false, get_count },
	{ MR_REASON, "pct",      NULL, "pct",      "%",        MF_PCT,  MF_NO_HIST, false, get_pct },
	{ MR_REASON, "total",    NULL, "total",    "TOTAL",    MF_NUM,  MF_NO_HIST, false, get_total },
	{ MR_REASON, "samples",  "latency", "samples", "PAIRS", MF_NUM, MF_LAT, false, get_samples },
	LAT("min",  "MIN",   MF_TIME,      get_min),
	LAT("mean", "MEAN",  MF_TIME_MEAN, get_mean),
	LAT("p50",  "P50",   MF_TIME,      get_p50),
	LAT("p90",  "P90",   MF_TIME,      get_p90),
	LAT("p99",  "P99",   MF_TIME,      get_p99),
	LAT("p999", "P99.9", MF_TIME,      get_p999),
	LAT("max",  "MAX",   MF_TIME,      get_max),
	LAT("sum",  "SUM",   MF_TIME,      get_sum),
	{ MR_REASON, "handling_samples", "handling", "samples", "HPAIRS", MF_NUM, MF_HANDLING, true, get_h_samples },
	HAND("min",  "HMIN",     MF_TIME,      get_h_min),
	HAND("mean", "HMEAN",    MF_TIME_MEAN, get_h_mean),
	HAND("p50",  "HAND.P50", MF_TIME,      get_h_p50),
	HAND("p90",  "HP90",     MF_TIME,      get_h_p90),
	HAND("p99",  "HAND.P99", MF_TIME,      get_h_p99),
	HAND("p999", "HP99.9",   MF_TIME,      get_h_p999),
	HAND("max",  "HMAX",     MF_TIME,      get_h_max),
	HAND("sum",  "HSUM",     MF_TIME,      get_h_sum),
	{ MR_REASON, "preempted_s", NULL, "preempted_s", "PREEMPTED", MF_SECS, MF_NO_HIST, true, get_preempted },
	{ MR_REASON, "blocked_s",   NULL, "blocked_s",   "BLOCKED",   MF_SECS, MF_NO_HIST, true, get_blocked },
	OBJ("obj_reason",  "reason",  "REASON",  MF_TEXT, get_o_reason),
	OBJ("object_kind", "kind",    "KIND",    MF_TEXT, get_o_kind),
	OBJ("object",      "object",  "OBJECT",  MF_TEXT, get_o_object),
	OBJ("obj_value",   "value",   "VALUE",   MF_ADDR, get_o_value),
	OBJ("object_name", "name",    "NAME",    MF_TEXT, get_o_name),
	OBJ("dir",         "dir",     "DIR",     MF_TEXT, get_o_dir),
	OBJ("size",        "size",    "SIZE",    MF_NUM,  get_o_size),
	OBJ("obj_count",   "count",   "COUNT",   MF_NUM,  get_o_count),
	OBJ("obj_pct",     "pct",     "%REASON", MF_PCT,  get_o_pct),
	OBJ("obj_total",   "total",   "TOTAL",   MF_NUM,  get_o_total),
	OBJ("obj_site",    "site",    "SITE",    MF_ADDR, get_o_site),
	OBJ("obj_site_pct", "site_pct", "SITE%", MF_PCT,  get_o_site_pct),
	{ MR_OBJECT, "obj_samples", "latency", "samples", "PAIRS", MF_NUM, MF_OBJ_LAT, false, get_o_samples },
	OLAT("obj_min",  "min",  "MIN",   MF_TIME,      get_o_min),
	OLAT("obj_mean", "mean", "MEAN",  MF_TIME_MEAN, get_o_mean),
	OLAT("obj_p50",  "p50",  "P50",   MF_TIME,      get_o_p50),
	OLAT("obj_p90",  "p90",  "P90",   MF_TIME,      get_o_p90),
	OLAT("obj_p99",  "p99",  "P99",   MF_TIME,      get_o_p99),
	OLAT("obj_p999", "p999", "P99.9", MF_TIME,      get_o_p999),
	OLAT("obj_max",  "max",  "MAX",   MF_TIME,      get_o_max),
	OLAT("obj_sum",  "sum",  "SUM",   MF_TIME,      get_o_sum),
};

const unsigned int model_nr_fields = sizeof(model_fields) / sizeof(model_fields[0]);

const struct model_field *model_fields_of(enum model_row_kind row, unsigned int *n)
{
	unsigned int i = 0, j;

	while (i < model_nr_fields && model_fields[i].row != row)
		i++;
	for (j = i; j < model_nr_fields && model_fields[j].row == row; j++)
		;
	*n = j - i;
	return &model_fields[i];
}

const struct model_field *model_field(const char *name)
{
	unsigned int i;

	for (i = 0; i < model_nr_fields; i++)
		if (!strcmp(model_fields[i].name, name))
			return &model_fields[i];
	return NULL;
}

void model_field_value(const struct model_field *f, const struct model_row *row,
		       struct model_field_val *v, bool *has)
{
	memset(v, 0, sizeof(*v));
	f->get(row, v);
	/* the getter says: a latency without samples is unknown, not 0 */
	*has = !v->unknown;
}
