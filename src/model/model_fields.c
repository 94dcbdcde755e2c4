// SPDX-License-Identifier: GPL-2.0
/*
 * The fields of every row, declared once (model_fields.h): a VM's, then a
 * vCPU thread's, then an exit reason's, then an object's.  Within a kind the order is
 * JSON's key order (and, for reasons, CSV's column order); a group's
 * fields are adjacent.  Latency figures are of the exit -> entry pairs
 * the count holds; handling figures of the same pairs' time on a CPU.
 * A histogram's figure without samples is unknown (null, empty, "-"):
 * no latency is not a latency of 0.  The snapshot's own fields come
 * first, and a VM's and vCPU's figures over the snapshot (their exits,
 * time states, thread groups) read the scopes the view put in the row.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model_fields.h"
#include "decode/objects.h"
#include "model_view.h"
#include "model_time.h"

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

/* the rest's row (the ended VMs past --keep-ended) is no process */
GET_ROW(get_vm_pid, v->i = vm->pid; v->unknown = vm->rest != NULL)
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

const char *model_from_word(enum model_from f)
{
	static const char *const words[] = {
		[MODEL_FROM_START] = "start",
		[MODEL_FROM_BIRTH] = "birth",
		[MODEL_FROM_FOUND] = "found",
	};

	return f > MODEL_FROM_UNKNOWN && f <= MODEL_FROM_FOUND ? words[f] : NULL;
}

/* enum model_from's word; MODEL_FROM_UNKNOWN: the source does not say (null, empty, "-") */
static void counted_from(enum model_from f, struct model_field_val *v)
{
	v->s = model_from_word(f);
	v->unknown = !v->s;
}

/* enum model_to's words; MODEL_TO_UNKNOWN: it runs (null, empty, "-") */
static void counted_to(enum model_to t, struct model_field_val *v)
{
	v->s = t == MODEL_TO_EXACT ? "exact" : t == MODEL_TO_READ ? "read" : NULL;
	v->unknown = !v->s;
}

GET_ROW(get_vm_counted_from, counted_from(vm->counted_from, v))
GET_ROW(get_vm_counted_to, counted_to(vm->counted_to, v))
GET_ROW(get_vcpu_counted_from, counted_from(c->counted_from, v))
GET_ROW(get_net_counted_from, counted_from(vm_ctx_net_from(&vm->ctx), v))
GET_ROW(get_vcpu, v->i = c->vcpu_id)
GET_ROW(get_tid, v->i = c->tid)
GET_ROW(get_comm, v->s = c->comm)
GET_ROW(get_last_cpu, v->i = c->last_cpu)

/* A VM's context figure f (model.h's vm_ctx): bytes as a whole number, rates and shares as fractions. */
#define GET_CTX(fn, f) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ v->unknown = !vm_ctx_get(&row->vm->ctx, f, &v->d); v->u = (uint64_t)v->d; }

/* A VM's context counter f summed over the run (vm_ctx_total): a whole number. */
#define GET_TOTAL(fn, f) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ v->unknown = !vm_ctx_total(&row->vm->ctx, f, &v->u); }

GET_CTX(get_rss, CTX_RSS)
GET_CTX(get_rss_peak, CTX_RSS_PEAK)
GET_TOTAL(get_majflt_total, CTX_MAJFLT)
GET_TOTAL(get_rd_bytes, CTX_RD_BPS)
GET_TOTAL(get_wr_bytes, CTX_WR_BPS)
GET_TOTAL(get_rd_ops_total, CTX_RD_OPS)
GET_TOTAL(get_wr_ops_total, CTX_WR_OPS)
GET_TOTAL(get_rx_bytes, CTX_RX_BPS)
GET_TOTAL(get_tx_bytes, CTX_TX_BPS)
GET_TOTAL(get_rx_packets, CTX_RX_PPS)
GET_TOTAL(get_tx_packets, CTX_TX_PPS)
GET_TOTAL(get_drops_total, CTX_DROPS)
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
/* A reason's or object's exits per second over the snapshot: unknown where times are not ns. */
#define GET_COUNT_S(fn, n) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ uint64_t span = row->snap ? snap_span(row->snap) : 0; \
	  v->unknown = !span; v->d = span ? (double)(n) * 1e9 / (double)span : 0.0; }
GET(get_total, v->u = w->total)
/* no exit in the scope: a share of nothing is unknown, not 0 */
GET(get_pct, v->unknown = !w->scope_exits;
    v->d = w->scope_exits ? 100.0 * (double)w->count / (double)w->scope_exits : 0.0)
GET(get_samples, v->u = w->lat.samples)
GET(get_min, v->unknown = !w->lat.samples; v->u = w->lat.min)
GET(get_mean, v->unknown = !w->lat.samples; v->d = hist_mean(&w->lat))
GET(get_p50, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.50))
GET(get_p90, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.90))
GET(get_p99, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.99))
GET(get_p999, v->unknown = !w->lat.samples; v->u = model_quantile(&w->lat, 0.999))
GET(get_max, v->unknown = !w->lat.samples; v->u = w->lat.max)
GET(get_sum, v->unknown = !w->lat.samples; v->u = hist_sum(&w->lat))
/* perf kvm stat's Time%: its latency summed, % of every reason's in the scope; unknown without pairs */
GET(get_sum_pct, v->unknown = !w->lat.samples || !(w->scope_lat_sum > 0.0);
    v->d = v->unknown ? 0.0 : 100.0 * hist_sum_frac(&w->lat) / w->scope_lat_sum)
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
GET_OBJ(get_o_pct, v->unknown = !o->reason_count;
	v->d = o->reason_count ? 100.0 * (double)o->count / (double)o->reason_count : 0.0)
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

/* The snapshot's own: s is its figures. */
#define GET_SNAP(fn, expr) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ const struct model_snap *s = row->snap; v->unknown = !s; if (s) { expr; } }
/* A VM's or vCPU's figure over the snapshot: sc is its scope (member of the row), s the snapshot. */
#define GET_SC(fn, member, expr) \
	static void fn(const struct model_row *row, struct model_field_val *v) \
	{ const struct model_scope *sc = row->member; const struct model_snap *s = row->snap; \
	  v->unknown = !sc || !s; if (!v->unknown) { expr; } }

bool model_snap_time(const struct model_snap *s, uint64_t t, char *buf, size_t len)
{
	int64_t ns;
	time_t sec;
	struct tm tm;

	if (!s->wall_known || !s->ns)
		return false;
	ns = (int64_t)t + s->wall_offset;
	if (ns < 0)
		return false;
	sec = (time_t)(ns / 1000000000);
	if (!gmtime_r(&sec, &tm))
		return false;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ns % 1000000000 / 1000));
	return true;
}

GET_SNAP(get_snapshot, v->u = s->number)
/* when a VM was found ended: unknown while it runs, and for the rest's row (many VMs) */
GET_SNAP(get_vm_end, v->u = row->vm->end; v->unknown = !row->vm->end)
GET_SNAP(get_vm_end_time, v->unknown = !row->vm->end || !model_snap_time(s, row->vm->end, v->buf, sizeof(v->buf));
	 v->s = v->buf)
GET_SNAP(get_start, v->u = s->start)
GET_SNAP(get_end, v->u = s->end)
GET_SNAP(get_time, v->unknown = !model_snap_time(s, s->end, v->buf, sizeof(v->buf)); v->s = v->buf)
GET_SNAP(get_time_unit, v->s = s->time_unit)

/* The snapshot's span in ns, 0 where times are not ns. */
static uint64_t snap_span(const struct model_snap *s)
{
	return s->ns && s->end > s->start ? s->end - s->start : 0;
}

GET_COUNT_S(get_count_s, row->r->count)
GET_COUNT_S(get_o_count_s, row->o->count)

/* sc's exits per second over the snapshot: unknown where times are not ns. */
#define GET_EXITS_S(fn, member) \
	GET_SC(fn, member, v->unknown = !snap_span(s); \
	       v->d = snap_span(s) ? (double)sc->exits * 1e9 / (double)snap_span(s) : 0.0)
/* The share of its vCPUs' time (nr of them) in states, % of the span: unknown where not measured. */
#define GET_SHARE(fn, member, states, nr) \
	GET_SC(fn, member, v->d = model_scope_share(sc, states, snap_span(s), nr); v->unknown = v->d < 0)
/* A time state's seconds (ns, printed as seconds): unknown where the input does not measure it. */
#define GET_STATE(fn, st) \
	GET_SC(fn, vcpu_sc, v->u = sc->time[st]; v->unknown = !(sc->time_known & (1u << st)))
/* A thread group's time on a CPU (wait: waiting for one), ns: unknown where not measured. */
#define GET_GROUP(fn, g, wait) \
	GET_SNAP(fn, v->unknown = !row->vm->groups[g].known; \
		 v->u = model_group_ns(row->vm, g, wait, s->cumulative))

GET_SC(get_vm_exits, vm_sc, v->u = sc->exits)
GET_SC(get_vm_exits_total, vm_sc, v->u = sc->exits_total)
GET_EXITS_S(get_vm_exits_s, vm_sc)
GET_SC(get_vm_unmatched_exits, vm_sc, v->u = sc->unmatched_exits)
GET_SC(get_vm_unmatched_entries, vm_sc, v->u = sc->unmatched_entries)
GET_SHARE(get_vm_halt_pct, vm_sc, 1u << VS_HALT, row->vm->nr_vcpus)
GET_SHARE(get_vm_util_pct, vm_sc, MODEL_UTIL_STATES, row->vm->nr_vcpus)
GET_SHARE(get_vm_steal_pct, vm_sc, 1u << VS_WAIT, row->vm->nr_vcpus)
GET_GROUP(get_emu_run, TG_EMULATOR, false)
GET_GROUP(get_emu_wait, TG_EMULATOR, true)
GET_GROUP(get_vhost_run, TG_VHOST, false)
GET_GROUP(get_vhost_wait, TG_VHOST, true)
GET_SC(get_vcpu_exits, vcpu_sc, v->u = sc->exits)
GET_SC(get_vcpu_exits_total, vcpu_sc, v->u = sc->exits_total)
GET_EXITS_S(get_vcpu_exits_s, vcpu_sc)
GET_SC(get_vcpu_unmatched_exits, vcpu_sc, v->u = sc->unmatched_exits)
GET_SC(get_vcpu_unmatched_entries, vcpu_sc, v->u = sc->unmatched_entries)
GET_SHARE(get_vcpu_halt_pct, vcpu_sc, 1u << VS_HALT, 1)
GET_SHARE(get_vcpu_util_pct, vcpu_sc, MODEL_UTIL_STATES, 1)
GET_SHARE(get_vcpu_steal_pct, vcpu_sc, 1u << VS_WAIT, 1)
GET_STATE(get_guest_s, VS_GUEST)
GET_STATE(get_host_s, VS_HOST)
GET_STATE(get_vmm_s, VS_VMM)
GET_STATE(get_halt_s, VS_HALT)
GET_STATE(get_wait_s, VS_WAIT)

/* A thread group's time (wait: waiting for a CPU), % of one CPU over the span: unknown where not measured. */
#define GET_GROUP_PCT(fn, g, wait) \
	GET_SNAP(fn, v->unknown = !row->vm->groups[g].known || !snap_span(s); \
		 v->d = v->unknown ? 0.0 : 100.0 * (double)model_group_ns(row->vm, g, wait, s->cumulative) / \
		 (double)snap_span(s))
/*
 * The latency of sc's exits, its blocking reasons' (HLT) left out: the
 * waits for the guest's next event are no handling (model_scope_summary()
 * keeps them apart, in sc->handling).  Unknown without samples.
 */
#define GET_SC_LAT(fn, member, expr) \
	GET_SC(fn, member, const struct hist *h = &sc->handling; v->unknown = !h->samples; expr)
/* sc's per-second figure n: unknown where times are not ns, or where known is false. */
#define GET_SC_RATE(fn, member, n, known) \
	GET_SC(fn, member, v->unknown = !snap_span(s) || !(known); \
	       v->d = v->unknown ? 0.0 : (double)(n) * 1e9 / (double)snap_span(s))

/* The host's exits in the snapshot (cumulative: since the start or the reset). */
static uint64_t snap_host_exits(const struct model_row *row)
{
	return row->snap->cumulative ? row->m->exits.total : ctr_interval(&row->m->exits);
}

/* sc's kvm events other than exits and entries (their sum over the model's kinds). */
static uint64_t scope_events(const struct model *m, const struct model_scope *sc)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < m->nr_other; i++)
		n += sc->other[i];
	return n;
}

/* sc's reason with the most exits (model_scope_summary()), its name and flags into v; none: unknown. */
static void scope_top(const struct model_scope *sc, struct model_field_val *v)
{
	v->unknown = sc->top < 0 || (unsigned int)sc->top >= sc->nr;
	if (!v->unknown)
		v->s = reason_label(sc->rows[sc->top].r, v->buf, sizeof(v->buf));
}

/*
 * Where vCPU c was when the figures were taken: exited with its VM, the
 * model's state (sched events), else after an exit (host, or halted in a
 * blocking one) or not (live: in the guest; a recording: unknown).
 */
static const char *vcpu_state_now(const struct model *m, const struct vcpu *c)
{
	bool blocking;

	if (c->vm && c->vm->exited)
		return "exited";
	if ((model_time_known(m) & TIME_SPLIT) && c->state != VS_NONE)
		return model_state_name(c->state);
	if (!model_vcpu_pending(m, c, &blocking))
		return m->live ? "guest" : NULL;
	return blocking ? "halted" : "host";
}

GET_SC(get_vm_exits_pct, vm_sc, v->unknown = !snap_host_exits(row);
       v->d = v->unknown ? 0.0 : 100.0 * (double)sc->exits / (double)snap_host_exits(row))
GET_SC_LAT(get_vm_lat_mean, vm_sc, v->d = hist_mean(h))
GET_SC_LAT(get_vm_lat_stddev, vm_sc, v->d = hist_stddev(h))
GET_SC_LAT(get_vm_lat_p99, vm_sc, v->u = model_quantile(h, 0.99))
GET_SC(get_vm_top, vm_sc, scope_top(sc, v))
GET_SC_RATE(get_vm_uexits_s, vm_sc, sc->uexits, s->traced)
GET_SC_RATE(get_vm_events_s, vm_sc, scope_events(row->m, sc), s->traced || row->m->nr_other)
GET_GROUP_PCT(get_emu_run_pct, TG_EMULATOR, false)
GET_GROUP_PCT(get_emu_wait_pct, TG_EMULATOR, true)
GET_GROUP_PCT(get_vhost_run_pct, TG_VHOST, false)
GET_GROUP_PCT(get_vhost_wait_pct, TG_VHOST, true)
GET_SHARE(get_vcpu_guest_pct, vcpu_sc, 1u << VS_GUEST, 1)
GET_SHARE(get_vcpu_host_pct, vcpu_sc, 1u << VS_HOST, 1)
GET_SHARE(get_vcpu_vmm_pct, vcpu_sc, 1u << VS_VMM, 1)
GET_SC_LAT(get_vcpu_lat_mean, vcpu_sc, v->d = hist_mean(h))
GET_SC_LAT(get_vcpu_lat_stddev, vcpu_sc, v->d = hist_stddev(h))
GET_SC_LAT(get_vcpu_lat_p99, vcpu_sc, v->u = model_quantile(h, 0.99))
GET_SC_LAT(get_vcpu_lat_max, vcpu_sc, v->u = h->max)
GET_SC(get_vcpu_top, vcpu_sc, scope_top(sc, v))
GET_ROW(get_vcpu_state, v->s = vcpu_state_now(row->m, c); v->unknown = !v->s)

GET(get_stddev, v->unknown = !w->lat.samples; v->d = hist_stddev(&w->lat))
GET(get_h_stddev, v->unknown = !w->handling.samples; v->d = hist_stddev(&w->handling))
GET_OBJ(get_o_stddev, v->unknown = !o->lat.samples; v->d = hist_stddev(&o->lat))

/*
 * The rows' shapes: name, (JSON key,) title, kind, getter, description.
 * SNAP's JSON keys are the snapshot object's own (batch_json.c).  A VM's
 * and a vCPU's JSON key is its name less the level's prefix (HACKING,
 * "Names of figures"); VMX's and VCPUX's are written by the row's loop
 * as every other, VMAPART's and VCPUAPART's in a place of their own
 * (json_apart: a VM's exits and threads, a vCPU's exits and
 * time_seconds).
 */
#define VM_KEY(n)	((n) + sizeof("vm_") - 1)
#define VCPU_KEY(n)	((n) + sizeof("vcpu_") - 1)
#define SNAP(n, t, k, fn, d)	{ MR_SNAPSHOT, n, NULL, n, t, k, MF_NO_HIST, false, fn, d, true }
#define VM(n, k, t, kind, fn, d)	{ MR_VM, n, NULL, k, t, kind, MF_NO_HIST, false, fn, d, false }
#define VMX(n, t, kind, fn, d)	{ MR_VM, n, NULL, VM_KEY(n), t, kind, MF_NO_HIST, false, fn, d, false }
#define VMAPART(n, t, kind, fn, d)	{ MR_VM, n, NULL, VM_KEY(n), t, kind, MF_NO_HIST, false, fn, d, true }
#define VCPU(n, k, t, kind, fn, d)	{ MR_VCPU, n, NULL, k, t, kind, MF_NO_HIST, false, fn, d, false }
#define VCPUX(n, t, kind, fn, d)	{ MR_VCPU, n, NULL, VCPU_KEY(n), t, kind, MF_NO_HIST, false, fn, d, false }
#define VCPUAPART(n, t, kind, fn, d)	{ MR_VCPU, n, NULL, VCPU_KEY(n), t, kind, MF_NO_HIST, false, fn, d, true }
/* ... of exits paired with their entries: only a source that pairs them measures it (JSON: the exits') */
#define PAIRED(r, n, t, fn, d)	{ r, n, NULL, (r) == MR_VM ? VM_KEY(n) : VCPU_KEY(n), t, MF_NUM, MF_LAT, false, \
				  fn, d, true }
/* a VM's and a vCPU's latency over its exits: JSON's "latency" object */
#define VMLAT(n, t, k, fn, d)	{ MR_VM, "vm_latency_" n, "latency", n, t, k, MF_LAT, false, fn, d, false }
#define VCPULAT(n, t, k, fn, d)	{ MR_VCPU, "vcpu_latency_" n, "latency", n, t, k, MF_LAT, false, fn, d, false }
#define REASON(n, t, k, fn, d)	{ MR_REASON, n, NULL, n, t, k, MF_NO_HIST, false, fn, d, false }
#define LAT(n, t, k, fn, d)	{ MR_REASON, "latency_" n, "latency", n, t, k, MF_LAT, false, fn, d, false }
#define HAND(n, t, k, fn, d)	{ MR_REASON, "handling_" n, "handling", n, t, k, MF_HANDLING, true, fn, d, false }
#define OBJ(n, k, t, kind, fn, d)	{ MR_OBJECT, n, NULL, k, t, kind, MF_NO_HIST, false, fn, d, false }
#define OLAT(n, k, t, kind, fn, d)	{ MR_OBJECT, n, "latency", k, t, kind, MF_OBJ_LAT, false, fn, d, false }

const struct model_field model_fields[] = {
	SNAP("snapshot",  "SNAPSHOT", MF_NUM,  get_snapshot, "the snapshot's number, from 1"),
	SNAP("start",     "START",    MF_NUM,  get_start, "where its span starts, in the source's clock and time unit"),
	SNAP("end",       "END",      MF_NUM,  get_end, "where its span ends, the same"),
	SNAP("time",      "TIME",     MF_TEXT, get_time,
	     "the wall-clock time of its end, RFC 3339 in UTC (2026-11-28T08:15:02.123456Z); empty where the source does not know it"),
	SNAP("time_unit", "UNIT",     MF_TEXT, get_time_unit,
	     "the unit of start, end and every latency: ns, or cycles (TSC counts of an unconverted recording), or counts"),
	VM("vm_pid",        "pid",          "PID",       MF_INT,  get_vm_pid, "the VM's host process id"),
	VM("vm_name",       "name",         "VM",        MF_TEXT, get_vm_name, "its name as its VMM gives it (QEMU's -name guest=), else its comm"),
	VM("vm_display_name",    "display_name", "NAME",      MF_TEXT, get_vm_display,
	   "the best name there is: OpenStack's, libvirt's, else vm_name"),
	VM("vm_name_from",  "name_from",    "NAME FROM", MF_TEXT, get_vm_name_from,
	   "where vm_display_name comes from (openstack, libvirt, kata, qemu, comm ...); empty where not looked up"),
	VM("vm_uuid",       "uuid",         "UUID",      MF_TEXT, get_vm_uuid, "its UUID, where the host says"),
	VM("vm_project",    "project",      "PROJECT",   MF_TEXT, get_vm_project, "its OpenStack project, where the host says"),
	VM("vm_flavor",     "flavor",       "FLAVOR",    MF_TEXT, get_vm_flavor, "its OpenStack flavor, where the host says"),
	VM("vm_state",      "state",        "STATE",     MF_TEXT, get_vm_state, "running or exited (live), recorded (a recording)"),
	VM("vm_end",        "end",          "END",       MF_NUM,  get_vm_end,
	   "when kvmtop found its process ended (within a second), in the source's clock and time unit; empty while it runs"),
	VM("vm_end_time",   "end_time",     "END TIME",  MF_TEXT, get_vm_end_time,
	   "the same as wall-clock time, RFC 3339 in UTC; empty while it runs"),
	VM("vm_grouped_by", "grouped_by",   "GROUPED BY", MF_TEXT, get_vm_grouped_by,
	   "how its threads were found to be one VM: proc (live), threads (--threads), guess or kernel"),
	VM("vm_exits_unknown", "exits_unknown", "EXITS UNKNOWN", MF_TEXT, get_vm_exits_unknown,
	   "why the source cannot see its exits (empty: it sees them)"),
	VM("vm_counted_from", "counted_from", "COUNTED FROM", MF_TEXT, get_vm_counted_from,
	   "where its figures count from (--source stats; live, else by its process's start): start (there when "
	   "kvmtop started: from then), birth (made since: from its creation, whole), found (made before, first "
	   "read later: from that reading; what it did before is in no figure); empty where the source does not say"),
	VM("vm_counted_to", "counted_to", "COUNTED TO", MF_TEXT, get_vm_counted_to,
	   "where an ended VM's figures run to (live): exact (to its end: the kernel's exit records of its "
	   "threads, taskstats), read (to its last reading, each second: what it did after is in no figure); "
	   "empty while it runs"),
	VM("vm_vcpu_count",      "vcpu_count", "VCPUS",     MF_INT,  get_vm_vcpus, "how many vCPU threads it has"),
	VMAPART("vm_exits",     "EXITS",     MF_NUM,  get_vm_exits, "its exits in the snapshot"),
	VMAPART("vm_exits_total", "TOTAL",   MF_NUM,  get_vm_exits_total, "its exits since kvmtop started (the recording's start)"),
	VMAPART("vm_exits_per_s",   "EXITS/s",   MF_RATE, get_vm_exits_s, "its exits per second over the snapshot; empty where times are not ns"),
	PAIRED(MR_VM, "vm_unmatched_exits", "UNMATCHED EXITS", get_vm_unmatched_exits,
	       "its exits not followed by an entry of the same thread"),
	PAIRED(MR_VM, "vm_unmatched_entries", "UNMATCHED ENTRIES", get_vm_unmatched_entries,
	       "its entries without an exit before them"),
	VMX("vm_halt_pct",  "HALT%",     MF_PCT,  get_vm_halt_pct, "its vCPUs' time halted, % of the span times its vCPUs"),
	VMX("vm_util_pct",  "UTIL%",     MF_PCT,  get_vm_util_pct, "its vCPUs' time in guest, host and VMM states, the same"),
	VMX("vm_steal_pct", "STEAL%",    MF_PCT,  get_vm_steal_pct, "its vCPUs' time waiting for a CPU, the same"),
	VMAPART("vm_emulator_run_seconds",  "EMU",    MF_SECS, get_emu_run, "its VMM's own threads' seconds on a CPU (live)"),
	VMAPART("vm_emulator_wait_seconds", "EMU WT", MF_SECS, get_emu_wait, "their seconds waiting for a CPU (live)"),
	VMAPART("vm_vhost_run_seconds",  "VHOST",     MF_SECS, get_vhost_run, "its vhost workers' seconds on a CPU (live)"),
	VMAPART("vm_vhost_wait_seconds", "VH WT",     MF_SECS, get_vhost_wait, "their seconds waiting for a CPU (live)"),
	VMX("vm_exits_pct", "%HOST",     MF_PCT,  get_vm_exits_pct,
	    "its exits' share of the host's in the snapshot, %; empty where the host had none"),
	VMLAT("mean",  "LAT MEAN",   MF_TIME_MEAN, get_vm_lat_mean,
	      "the mean exit -> entry latency of its exits, its blocking reasons' (HLT) left out"),
	VMLAT("stddev", "LAT STDDEV", MF_TIME_MEAN, get_vm_lat_stddev, "their standard deviation (population)"),
	VMLAT("p99",   "LAT P99",    MF_TIME,      get_vm_lat_p99, "their 99th percentile"),
	VMX("vm_top_reason", "TOP REASON", MF_TEXT, get_vm_top, "the exit reason of most of its exits in the snapshot"),
	VMX("vm_uexits_per_s", "UEXITS/s", MF_RATE, get_vm_uexits_s,
	    "its userspace exits (to the VMM) per second; empty where the source does not read each event"),
	VMX("vm_events_per_s", "EVENTS/s", MF_RATE, get_vm_events_s,
	    "its kvm events other than exits and entries per second; empty where the source sees none"),
	VMX("vm_emulator_run_pct",  "EMU%",    MF_PCT, get_emu_run_pct,
	    "its VMM's own threads' time on a CPU, % of one CPU over the span (live)"),
	VMX("vm_emulator_wait_pct", "EMU WT%", MF_PCT, get_emu_wait_pct, "their time waiting for a CPU, the same"),
	VMX("vm_vhost_run_pct",     "VHOST%",  MF_PCT, get_vhost_run_pct, "its vhost workers' time on a CPU, the same"),
	VMX("vm_vhost_wait_pct",    "VH WT%",  MF_PCT, get_vhost_wait_pct, "their time waiting for a CPU, the same"),
	/* its context (src/context/): null, empty or "-" where the host does not say */
	VM("vm_mem_rss_bytes",       "mem_rss_bytes",      "RES",       MF_NUM,  get_rss,
	   "its VMM's resident memory, bytes, as last read (a VM that ended: at its last reading)"),
	VM("vm_mem_rss_peak_bytes",  "mem_rss_peak_bytes", "RES PEAK",  MF_NUM,  get_rss_peak,
	   "its VMM's peak resident memory since it began (VmHWM), bytes, as last read"),
	VM("vm_mem_swap_bytes",      "mem_swap_bytes",     "SWAP",      MF_NUM,  get_swap, "its VMM's memory in swap, bytes"),
	VM("vm_majflt_per_s",      "majflt_per_s",     "MAJFLT/S",  MF_RATE, get_majflt, "its VMM's major page faults per second"),
	VM("vm_majflt",            "majflt",           "MAJFLT",    MF_NUM,  get_majflt_total,
	   "its VMM's major page faults kvmtop counted: since its first reading, or since the VMM began when after kvmtop"),
	VM("vm_guest_ram_bytes",     "guest_ram_bytes",    "RAM",       MF_NUM,  get_ram, "the guest's RAM, bytes"),
	VM("vm_guest_ram_from", "guest_ram_from", "RAM FROM", MF_TEXT, get_ram_from,
	   "where vm_guest_ram_bytes comes from: cmdline or mapping"),
	VM("vm_huge_pct",      "huge_pct",     "HUGE%",     MF_PCT,  get_huge, "the share of the guest's RAM in huge pages, %"),
	VM("vm_disk_rd_bytes_per_s",   "disk_rd_bytes_per_s",  "DISK RD/S", MF_RATE, get_rd_bps, "bytes read per second by its VMM"),
	VM("vm_disk_wr_bytes_per_s",   "disk_wr_bytes_per_s",  "DISK WR/S", MF_RATE, get_wr_bps, "bytes written per second by its VMM"),
	VM("vm_disk_rd_ops_per_s",   "disk_rd_ops_per_s",  "RDOPS/S",   MF_RATE, get_rd_ops, "read calls per second"),
	VM("vm_disk_wr_ops_per_s",   "disk_wr_ops_per_s",  "WROPS/S",   MF_RATE, get_wr_ops, "write calls per second"),
	VM("vm_disk_rd_bytes",   "disk_rd_bytes",  "DISK RD",   MF_NUM, get_rd_bytes, "bytes read by its VMM, counted as vm_majflt"),
	VM("vm_disk_wr_bytes",   "disk_wr_bytes",  "DISK WR",   MF_NUM, get_wr_bytes, "bytes written by its VMM, the same"),
	VM("vm_disk_rd_ops",     "disk_rd_ops",    "RDOPS",     MF_NUM, get_rd_ops_total, "read calls, the same"),
	VM("vm_disk_wr_ops",     "disk_wr_ops",    "WROPS",     MF_NUM, get_wr_ops_total, "write calls, the same"),
	VM("vm_blkio_pct",     "blkio_pct",    "BLKIO%",    MF_PCT,  get_blkio, "its threads' time waiting for block I/O, % of the span"),
	VM("vm_net_taps",      "net_taps",     "TAPS",      MF_INT,  get_taps, "how many tap or macvtap interfaces its VMM holds"),
	VM("vm_net_counted_from", "net_counted_from", "NET FROM", MF_TEXT, get_net_counted_from,
	   "where its taps' figures count from (live): birth (each from its birth, rtnetlink: whole), start (one "
	   "there when kvmtop started: from then), found (one first read after its birth: from that reading); "
	   "empty without a tap"),
	VM("vm_net_rx_bytes_per_s",    "net_rx_bytes_per_s",   "NET RX/S",  MF_RATE, get_rx_bps, "bytes per second its guest received over them"),
	VM("vm_net_tx_bytes_per_s",    "net_tx_bytes_per_s",   "NET TX/S",  MF_RATE, get_tx_bps, "bytes per second its guest sent"),
	VM("vm_net_rx_packets_per_s",    "net_rx_packets_per_s",   "RXPKT/S",   MF_RATE, get_rx_pps, "packets per second received"),
	VM("vm_net_tx_packets_per_s",    "net_tx_packets_per_s",   "TXPKT/S",   MF_RATE, get_tx_pps, "packets per second sent"),
	VM("vm_net_drops_per_s",   "net_drops_per_s",  "DROPS/S",   MF_RATE, get_drops, "packets dropped per second"),
	VM("vm_net_rx_bytes",    "net_rx_bytes",    "NET RX",    MF_NUM, get_rx_bytes,
	   "bytes its guest received over its taps, counted as vm_majflt (a tap from its first reading, or from 0)"),
	VM("vm_net_tx_bytes",    "net_tx_bytes",    "NET TX",    MF_NUM, get_tx_bytes, "bytes its guest sent, the same"),
	VM("vm_net_rx_packets",  "net_rx_packets",  "RXPKT",     MF_NUM, get_rx_packets, "packets received, the same"),
	VM("vm_net_tx_packets",  "net_tx_packets",  "TXPKT",     MF_NUM, get_tx_packets, "packets sent, the same"),
	VM("vm_net_drops",       "net_drops",       "DROPS",     MF_NUM, get_drops_total, "packets dropped, the same"),
	VM("vm_psi_cpu_some_pct",  "psi_cpu_some_pct", "CPU SOME%", MF_PCT,  get_cpu_some, "its cgroup's CPU pressure, some, % of the span"),
	VM("vm_psi_cpu_full_pct",  "psi_cpu_full_pct", "CPU FULL%", MF_PCT,  get_cpu_full, "its cgroup's CPU pressure, full"),
	VM("vm_psi_mem_some_pct",  "psi_mem_some_pct", "MEM SOME%", MF_PCT,  get_mem_some, "its cgroup's memory pressure, some"),
	VM("vm_psi_mem_full_pct",  "psi_mem_full_pct", "MEM FULL%", MF_PCT,  get_mem_full, "its cgroup's memory pressure, full"),
	VM("vm_psi_io_some_pct",   "psi_io_some_pct",  "IO SOME%",  MF_PCT,  get_io_some, "its cgroup's I/O pressure, some"),
	VM("vm_psi_io_full_pct",   "psi_io_full_pct",  "IO FULL%",  MF_PCT,  get_io_full, "its cgroup's I/O pressure, full"),
	VM("vm_numa_node",     "numa_node",    "NODE",      MF_INT,  get_numa_node, "the NUMA node holding most of its memory"),
	VM("vm_numa_node_pct", "numa_node_pct", "NODE MEM%", MF_PCT, get_numa_node_pct, "the share of its memory on that node, %"),
	VM("vm_numa_local_pct", "numa_local_pct", "LOCAL%", MF_PCT,  get_numa_local,
	   "the share of its memory on the nodes its vCPUs ran on, %"),
	VCPU("vcpu",        "vcpu",         "VCPU",      MF_INT,  get_vcpu, "the vCPU's id in its VM (empty: not known)"),
	VCPU("vcpu_tid",         "tid",          "TID",       MF_INT,  get_tid, "its thread's id"),
	VCPU("vcpu_comm",        "comm",         "THREAD",    MF_TEXT, get_comm, "its thread's name"),
	VCPU("vcpu_last_cpu",    "last_cpu",     "CPU",       MF_INT,  get_last_cpu, "the host CPU it last ran on"),
	VCPU("vcpu_node",        "node",         "NODE",      MF_INT,  get_node, "that CPU's NUMA node"),
	VCPU("vcpu_counted_from", "counted_from", "COUNTED FROM", MF_TEXT, get_vcpu_counted_from,
	     "where its figures count from, as vm_counted_from's"),
	VCPUAPART("vcpu_exits", "EXITS",        MF_NUM,  get_vcpu_exits, "its exits in the snapshot"),
	VCPUAPART("vcpu_exits_total", "TOTAL",  MF_NUM,  get_vcpu_exits_total, "its exits since kvmtop started (the recording's start)"),
	VCPUAPART("vcpu_exits_per_s", "EXITS/s",    MF_RATE, get_vcpu_exits_s, "its exits per second over the snapshot; empty where times are not ns"),
	PAIRED(MR_VCPU, "vcpu_unmatched_exits", "UNMATCHED EXITS", get_vcpu_unmatched_exits,
	       "its exits not followed by an entry"),
	PAIRED(MR_VCPU, "vcpu_unmatched_entries", "UNMATCHED ENTRIES", get_vcpu_unmatched_entries,
	       "its entries without an exit before them"),
	VCPUX("vcpu_halt_pct", "HALT%",     MF_PCT,  get_vcpu_halt_pct, "its time halted, % of the span"),
	VCPUX("vcpu_util_pct", "UTIL%",     MF_PCT,  get_vcpu_util_pct, "its time in guest, host and VMM states, % of the span"),
	VCPUX("vcpu_steal_pct", "STEAL%",   MF_PCT,  get_vcpu_steal_pct, "its time waiting for a CPU, % of the span"),
	VCPUX("vcpu_guest_pct", "GUEST%",   MF_PCT,  get_vcpu_guest_pct, "its time in the guest, % of the span"),
	VCPUX("vcpu_host_pct",  "HOST%",    MF_PCT,  get_vcpu_host_pct, "its time in the host kernel handling exits, % of the span"),
	VCPUX("vcpu_vmm_pct",   "VMM%",     MF_PCT,  get_vcpu_vmm_pct, "its time in the VMM (userspace exits), % of the span"),
	VCPULAT("mean",  "LAT MEAN",   MF_TIME_MEAN, get_vcpu_lat_mean,
		"the mean exit -> entry latency of its exits, its blocking reasons' (HLT) left out"),
	VCPULAT("stddev", "LAT STDDEV", MF_TIME_MEAN, get_vcpu_lat_stddev, "their standard deviation (population)"),
	VCPULAT("p99",   "LAT P99",    MF_TIME,      get_vcpu_lat_p99, "their 99th percentile"),
	VCPULAT("max",   "LAT MAX",    MF_TIME,      get_vcpu_lat_max, "the greatest"),
	VCPUX("vcpu_top_reason", "TOP REASON", MF_TEXT, get_vcpu_top, "the exit reason of most of its exits in the snapshot"),
	VCPUX("vcpu_state",  "STATE",       MF_TEXT, get_vcpu_state,
	      "where it was when the figures were taken: guest, host, vmm, halt or wait (sched events), "
	      "else guest, host or halted; exited; empty where not known"),
	VCPUAPART("vcpu_guest_seconds",    "GUEST",        MF_SECS, get_guest_s, "its seconds in the guest (kvmtop(1), time states)"),
	VCPUAPART("vcpu_host_seconds",     "HOST",         MF_SECS, get_host_s, "its seconds in the host kernel handling exits"),
	VCPUAPART("vcpu_vmm_seconds",      "VMM",          MF_SECS, get_vmm_s, "its seconds in the VMM (userspace exits)"),
	VCPUAPART("vcpu_halt_seconds",     "HALT",         MF_SECS, get_halt_s, "its seconds halted"),
	VCPUAPART("vcpu_wait_seconds",     "WAIT",         MF_SECS, get_wait_s, "its seconds runnable, waiting for a CPU"),
	REASON("reason",   "REASON",   MF_TEXT, get_reason, "the exit reason's name"),
	REASON("code",     "CODE",     MF_NUM,  get_code, "its code in its ISA"),
	REASON("isa",      "ISA",      MF_TEXT, get_isa, "its ISA (vmx, svm, arm64 ...)"),
	REASON("flags",    "FLAGS",    MF_TEXT, get_flags, "its flags' names, where the ISA has some"),
	REASON("blocking", "BLOCKING", MF_BOOL, get_blocking, "true where the vCPU waits in it for the guest's next event (HLT)"),
	REASON("count",    "COUNT",    MF_NUM,  get_count, "its exits in the snapshot"),
	REASON("count_per_s", "RATE/s", MF_RATE, get_count_s,
	       "its exits per second over the snapshot; empty where times are not ns"),
	REASON("pct",      "%",        MF_PCT,  get_pct, "their share of the scope's exits, %; empty where it had none"),
	REASON("total",    "TOTAL",    MF_NUM,  get_total, "its exits since kvmtop started"),
	{ MR_REASON, "latency_samples",  "latency", "samples", "PAIRS", MF_NUM, MF_LAT, false, get_samples,
	  "how many of its exits have their entry: the latency figures' samples", false },
	LAT("min",    "MIN",    MF_TIME,      get_min, "the least exit -> entry latency, in time_unit"),
	LAT("mean",   "MEAN",   MF_TIME_MEAN, get_mean, "the mean latency"),
	LAT("stddev", "STDDEV", MF_TIME_MEAN, get_stddev, "the latencies' standard deviation (population), of every sample"),
	LAT("p50",    "P50",    MF_TIME,      get_p50, "the median latency (within 1.6 %)"),
	LAT("p90",    "P90",    MF_TIME,      get_p90, "the 90th percentile"),
	LAT("p99",    "P99",    MF_TIME,      get_p99, "the 99th percentile"),
	LAT("p999",   "P99.9",  MF_TIME,      get_p999, "the 99.9th percentile"),
	LAT("max",    "MAX",    MF_TIME,      get_max, "the greatest latency"),
	LAT("sum",    "SUM",    MF_TIME,      get_sum, "the latencies summed"),
	LAT("sum_pct", "TIME%", MF_PCT,       get_sum_pct,
	    "latency_sum's share of every reason's in the scope (the host, VM or vCPU), % (perf kvm stat's Time%); empty where there are no pairs"),
	{ MR_REASON, "handling_samples", "handling", "samples", "HPAIRS", MF_NUM, MF_HANDLING, true, get_h_samples,
	  "the same pairs' count, for their time on a CPU (sched events)", false },
	HAND("min",    "HMIN",     MF_TIME,      get_h_min, "the least time on a CPU of an exit's handling"),
	HAND("mean",   "HMEAN",    MF_TIME_MEAN, get_h_mean, "its mean"),
	HAND("stddev", "HSTDDEV",  MF_TIME_MEAN, get_h_stddev, "its standard deviation"),
	HAND("p50",    "HAND.P50", MF_TIME,      get_h_p50, "its median"),
	HAND("p90",    "HP90",     MF_TIME,      get_h_p90, "its 90th percentile"),
	HAND("p99",    "HAND.P99", MF_TIME,      get_h_p99, "its 99th percentile"),
	HAND("p999",   "HP99.9",   MF_TIME,      get_h_p999, "its 99.9th percentile"),
	HAND("max",    "HMAX",     MF_TIME,      get_h_max, "its greatest"),
	HAND("sum",    "HSUM",     MF_TIME,      get_h_sum, "its sum"),
	{ MR_REASON, "preempted_seconds", NULL, "preempted_seconds", "PREEMPTED", MF_SECS, MF_NO_HIST, true, get_preempted,
	  "the pairs' seconds runnable off a CPU", false },
	{ MR_REASON, "blocked_seconds",   NULL, "blocked_seconds",   "BLOCKED",   MF_SECS, MF_NO_HIST, true, get_blocked,
	  "the pairs' seconds asleep", false },
	OBJ("obj_reason",  "reason",  "REASON",  MF_TEXT, get_o_reason, "the exit reason of the object's exits"),
	OBJ("obj_kind",    "kind",    "KIND",    MF_TEXT, get_o_kind, "what kind of object: port, mmio, msr ... (kvmtop(1), OBJECTS)"),
	OBJ("obj_object",  "object",  "OBJECT",  MF_TEXT, get_o_object, "the object: a port, an address, an MSR ..."),
	OBJ("obj_value",   "value",   "VALUE",   MF_ADDR, get_o_value,
	    "the same number in hex, 0x... (a string in JSON); none in the others' row"),
	OBJ("obj_name",    "name",    "NAME",    MF_TEXT, get_o_name, "its name where kvmtop knows one, else unknown"),
	OBJ("obj_dir",     "dir",     "DIR",     MF_TEXT, get_o_dir, "read or write, where it has a direction"),
	OBJ("obj_size_bytes", "size_bytes", "SIZE", MF_NUM, get_o_size, "the access's size, bytes (0: not said)"),
	OBJ("obj_count",   "count",   "COUNT",   MF_NUM,  get_o_count, "its exits in the snapshot"),
	OBJ("obj_count_per_s", "count_per_s", "RATE/s", MF_RATE, get_o_count_s,
	    "its exits per second over the snapshot; empty where times are not ns"),
	OBJ("obj_pct",     "pct",     "%REASON", MF_PCT,  get_o_pct, "their share of the reason's exits, %; empty where it had none"),
	OBJ("obj_total",   "total",   "TOTAL",   MF_NUM,  get_o_total, "its exits since kvmtop started"),
	OBJ("obj_site",    "site",    "SITE",    MF_ADDR, get_o_site, "the guest IP most of its exits came from, hex"),
	OBJ("obj_site_pct", "site_pct", "SITE%", MF_PCT,  get_o_site_pct, "that site's share of its exits, %"),
	{ MR_OBJECT, "obj_latency_samples", "latency", "samples", "PAIRS", MF_NUM, MF_OBJ_LAT, false, get_o_samples,
	  "how many of its exits have their entry", false },
	OLAT("obj_latency_min",    "min",    "MIN",    MF_TIME,      get_o_min, "its least exit -> entry latency"),
	OLAT("obj_latency_mean",   "mean",   "MEAN",   MF_TIME_MEAN, get_o_mean, "its mean latency"),
	OLAT("obj_latency_stddev", "stddev", "STDDEV", MF_TIME_MEAN, get_o_stddev, "its latencies' standard deviation"),
	OLAT("obj_latency_p50",    "p50",    "P50",    MF_TIME,      get_o_p50, "its median latency"),
	OLAT("obj_latency_p90",    "p90",    "P90",    MF_TIME,      get_o_p90, "its 90th percentile"),
	OLAT("obj_latency_p99",    "p99",    "P99",    MF_TIME,      get_o_p99, "its 99th percentile"),
	OLAT("obj_latency_p999",   "p999",   "P99.9",  MF_TIME,      get_o_p999, "its 99.9th percentile"),
	OLAT("obj_latency_max",    "max",    "MAX",    MF_TIME,      get_o_max, "its greatest latency"),
	OLAT("obj_latency_sum",    "sum",    "SUM",    MF_TIME,      get_o_sum, "its latencies summed"),
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

/*
 * A VM's field and the vCPU's that means the same for one of its vCPUs
 * (model_field_vcpu_of()), declared pair by pair: a name is no guide
 * (vm_pid's is vcpu_tid; vm_state and vcpu_state, vm_numa_node and
 * vcpu_node mean other things; vm_exits_pct has none).  Each pair is of
 * one kind, so that a view writes both alike (tests/unit/test_fields.c).
 */
static const struct model_field_pair {
	const char *vm;
	const char *vcpu;
} model_field_pairs[] = {
	{ "vm_pid",               "vcpu_tid" },
	{ "vm_exits",             "vcpu_exits" },
	{ "vm_exits_total",       "vcpu_exits_total" },
	{ "vm_exits_per_s",       "vcpu_exits_per_s" },
	{ "vm_unmatched_exits",   "vcpu_unmatched_exits" },
	{ "vm_unmatched_entries", "vcpu_unmatched_entries" },
	{ "vm_halt_pct",          "vcpu_halt_pct" },
	{ "vm_util_pct",          "vcpu_util_pct" },
	{ "vm_steal_pct",         "vcpu_steal_pct" },
	{ "vm_latency_mean",      "vcpu_latency_mean" },
	{ "vm_latency_stddev",    "vcpu_latency_stddev" },
	{ "vm_latency_p99",       "vcpu_latency_p99" },
	{ "vm_top_reason",        "vcpu_top_reason" },
};

const struct model_field *model_field_vcpu_of(const struct model_field *f)
{
	size_t i;

	for (i = 0; f && i < sizeof(model_field_pairs) / sizeof(model_field_pairs[0]); i++)
		if (!strcmp(model_field_pairs[i].vm, f->name))
			return model_field(model_field_pairs[i].vcpu);
	return NULL;
}

/* The fields that can pass 2^53 (model_field_big): the snapshot's clock, the sums of times. */
static const char *const model_big_fields[] = {
	"start", "end", "vm_end", "latency_sum", "handling_sum", "obj_latency_sum",
};

bool model_field_big(const struct model_field *f)
{
	unsigned int i;

	if (model_field_is_kstat(f))
		return model_kstat_field_big(f);
	for (i = 0; i < sizeof(model_big_fields) / sizeof(model_big_fields[0]); i++)
		if (!strcmp(f->name, model_big_fields[i]))
			return true;
	return false;
}

void model_field_value(const struct model_field *f, const struct model_row *row,
		       struct model_field_val *v, bool *has)
{
	memset(v, 0, sizeof(*v));
	if (model_field_is_kstat(f))
		model_kstat_value(f, row, v);	/* a family's field: the statistic its name says */
	else
		f->get(row, v);
	/* the getter says: a latency without samples is unknown, not 0 */
	*has = !v->unknown;
}

/*
 * The families of fields whose names KVM gives at run time (HACKING,
 * "Names of figures"): one row for a VM's KVM statistics, one for a
 * vCPU's (the stats source's binary statistics).  A family's field is
 * its prefix and a statistic's key (decode/kstat.h, kstat_key(): the
 * kernel's name, its value in the rule's base unit with that unit's
 * suffix): vcpu_kvm_halt_wait_ns, vm_kvm_pages_4k.  --fields and --sort
 * make one for a name of the family (model_kstat_field_make); its value
 * is that statistic's in the row, as JSON's kvm_stats has it: a
 * cumulative counter's growth over the snapshot (since the start with
 * --summary), an instant or peak value as read.
 */

/* The statistic f names in m's table of its scope: its index, or -1 (none, or a histogram). */
static int kstat_field_find(const struct model *m, const struct model_field *f, const struct kstat_desc **d)
{
	const struct kstat_table *t = &m->names->kstats[f->row == MR_VM ? KSTAT_VM : KSTAT_VCPU];
	char key[KSTAT_NAME_LEN + 16];
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		if (kstat_is_hist(&t->d[i]))
			continue;
		kstat_key(&t->d[i], key, sizeof(key));
		if (!strcmp(key, f->key)) {
			*d = &t->d[i];
			return (int)i;
		}
	}
	return -1;
}

/* A family's getter: the statistic's value in the row's VM (or vCPU), unknown where it has none. */
static void get_kstat(const struct model_row *row, struct model_field_val *v)
{
	(void)row;
	v->unknown = true;	/* the family's own row: model_kstat_value() reads a made field's */
}

/* The families' shape: a VM's or vCPU's statistic, a whole number in JSON's kvm_stats object. */
#define KSTAT(r, n, t, d)	{ r, n, "kvm_stats", "<stat>", t, MF_NUM, MF_NO_HIST, false, get_kstat, d, true }

bool model_field_is_kstat(const struct model_field *f)
{
	return f->get == get_kstat;
}

const struct model_field model_field_families[] = {
	KSTAT(MR_VM, "vm_kvm_<stat>", "KVM <stat>",
	      "the VM's KVM statistic <stat> (--source stats; kvm_stats_info lists them): a counter's growth, "
	      "an instant or peak value as read; durations in ns (_ns), sizes in bytes (_bytes)"),
	KSTAT(MR_VCPU, "vcpu_kvm_<stat>", "KVM <stat>",
	      "the vCPU's KVM statistic <stat>, the same"),
};

const unsigned int model_nr_field_families = sizeof(model_field_families) / sizeof(model_field_families[0]);

const struct model_field *model_field_family(const char *name)
{
	unsigned int i;

	for (i = 0; i < model_nr_field_families; i++) {
		const char *fam = model_field_families[i].name;
		size_t n = strcspn(fam, "<");

		if (!strncmp(name, fam, n) && name[n] && strlen(name) < sizeof(((struct model_kstat_field *)0)->name))
			return &model_field_families[i];
	}
	return NULL;
}

void model_kstat_field_make(const struct model_field *fam, const char *name, struct model_kstat_field *kf)
{
	kf->f = *fam;
	snprintf(kf->name, sizeof(kf->name), "%s", name);
	kf->f.name = kf->name;
	kf->f.title = kf->name;
	kf->f.key = kf->name + strcspn(fam->name, "<");
}

bool model_kstat_field_exists(const struct model *m, const struct model_field *f)
{
	const struct kstat_desc *d;

	return model_field_is_kstat(f) && kstat_field_find(m, f, &d) >= 0;
}

bool model_kstat_field_big(const struct model_field *f)
{
	size_t n = strlen(f->key);

	/* the key's suffix is its unit's (kstat_key): ns sums pass 2^53 within a year */
	return model_field_is_kstat(f) && n > 3 && !strcmp(f->key + n - 3, "_ns");
}

void model_kstat_value(const struct model_field *f, const struct model_row *row, struct model_field_val *v)
{
	const struct kstat_desc *d;
	const struct ctr *c;
	unsigned int nr;
	bool vcpu = f->row == MR_VCPU;

	v->unknown = true;
	if (!row->m || !row->vm || (vcpu && !row->v) || kstat_field_find(row->m, f, &d) < 0)
		return;
	c = model_kstats(row->vm, vcpu ? row->v : NULL, &nr);
	if (!c)
		return;		/* no statistics read for it (another source, or not yet) */
	v->unknown = false;
	if (d->slot < nr)
		v->u = kstat_key_value(d, kstat_grows(d) ? ctr_interval(&c[d->slot]) : c[d->slot].total);
}
