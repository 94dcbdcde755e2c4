/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scope's figures: the whole host, one VM or one vCPU thread, summed
 * from the model's per-vCPU counters for the current interval (or, when
 * cumulative, since the start or the last reset).  Batch output and the
 * TUI both print from these, so a number means the same in both.
 */
#ifndef KVMTOP_MODEL_SCOPE_H
#define KVMTOP_MODEL_SCOPE_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "model.h"
#include "decode/reason.h"

/* Figures of one reason in one scope. */
struct model_reason_row {
	const struct reason *r;
	int id;
	uint64_t count;		/* this interval (cumulative: since start) */
	uint64_t total;		/* since start */
	uint64_t scope_exits;	/* exits of the scope, for % */
	/* the latency of the scope's pairs, every reason's summed, for its share (perf kvm stat's Time%) */
	double scope_lat_sum;
	struct hist lat;	/* the exit -> entry pairs counted in count */
	struct hist handling;	/* of the same pairs, the time on a CPU (with sched events) */
	uint64_t preempted;	/* their time runnable off a CPU */
	uint64_t blocked;	/* their time asleep */
};

/* Figures of one object of one reason in one scope (KVM_OBJ_OTHER: the objects a full table left out). */
struct model_obj_row {
	const struct reason *r;
	int reason_id;
	enum kvm_obj_kind kind;
	enum kvm_obj_dir dir;
	unsigned int size;	/* bytes, 0: not said */
	uint64_t value;
	uint64_t count;		/* this interval (cumulative: since start) */
	uint64_t total;		/* since start */
	uint64_t reason_count;	/* its reason's count in the scope, for % */
	struct hist lat;	/* the exit -> entry pairs counted in count */
	/*
	 * The guest IPs its exits came from, most exits first (n 0: none),
	 * as its vCPUs kept them (model.h, struct model_obj_site); merging
	 * rows takes each one's sites in turn, a site pushed out of the
	 * MODEL_OBJ_SITES places going to site_rest.
	 */
	struct {
		uint64_t ip;
		uint64_t n;
	} site[MODEL_OBJ_SITES];
	uint64_t site_rest;	/* exits from other IPs */
	uint64_t site_none;	/* exits without a site */
};

struct model_scope {
	struct model_reason_row *rows;	/* indexed by reason id */
	unsigned int nr;
	bool cumulative;
	bool counts;			/* model_scope_vm_counts(): no histograms */
	uint64_t exits;			/* this interval (cumulative: since start) */
	uint64_t exits_total;
	uint64_t unmatched_exits;
	uint64_t unmatched_entries;
	uint64_t *other;		/* indexed by kvm_event.other */
	uint64_t *other_total;		/* the same since start (or the last reset) */
	uint64_t uexit[UEXIT_MAX];
	uint64_t uexit_total[UEXIT_MAX];
	uint64_t uexits;		/* all userspace exits */
	uint64_t time[VS_NR];		/* the vCPU threads' time in each state */
	unsigned int time_known;	/* model_time_known(): bit (1 << VS_x) */
	/* objects, by reason, most exits first within one (model_scope_objs) */
	struct model_obj_row *objs;
	unsigned int nr_objs;
	unsigned int alloc_objs;
	/* Filled by model_scope_summary(): */
	struct hist handling;		/* latency of the non-blocking reasons */
	uint64_t halted;		/* summed latency of the blocking reasons */
	int top;			/* reason id with the most exits, -1 if none */
};

/* Each fills *s (zeroed first, so model_scope_free() is always safe): 0 or -1 (no memory). */
int model_scope_host(struct model_scope *sc, const struct model *m, bool cumulative);
int model_scope_vm(struct model_scope *sc, const struct model *m,
		   const struct vm *vm, bool cumulative);
int model_scope_vcpu(struct model_scope *sc, const struct model *m,
		     const struct vcpu *v, bool cumulative);
/*
 * A VM's figures since start (or the last reset) without the
 * histograms (rows' lat and handling stay empty): the counters only,
 * at a fraction of the cost, for outputs that show no latency per VM.
 */
int model_scope_vm_counts(struct model_scope *sc, const struct model *m, const struct vm *vm);
/*
 * The host's exit latency per reason id since start (or the last
 * reset), vCPUs that are gone included: out[id] for id below nr, each
 * cleared first (its pages kept, so a caller that keeps out allocates
 * once).  It reads the intervals closed and the open one's histograms of
 * the vCPUs that changed in it, never every vCPU's.  0, or -1 (no memory).
 */
int model_host_latency(const struct model *m, struct hist *out, unsigned int nr);
/*
 * A vCPU's exits of reason id since start (or the last reset), without a
 * scope: for outputs that want only the totals of many vCPUs (metrics).
 * Ids run from 0 to below model_vcpu_reasons(v).
 */
uint64_t model_vcpu_reason_total(const struct vcpu *v, unsigned int id);
unsigned int model_vcpu_reasons(const struct vcpu *v);
/* The same vCPU's latency of reason id since start (or the last reset) into out, cleared first: 0 or -1. */
int model_vcpu_reason_lat(const struct vcpu *v, unsigned int id, struct hist *out);
/* handling, halted and top, from the rows: 0 or -1. */
int model_scope_summary(struct model_scope *sc);

/* The vCPU time states that make UTIL%: on a CPU, in the guest, the host kernel or the VMM. */
#define MODEL_UTIL_STATES	(1u << VS_GUEST | 1u << VS_HOST | 1u << VS_VMM)

/*
 * The one definition of the time-state shares every view shows (kvmtop(1),
 * DEFINITIONS): the scope's vCPU threads' time in the states of the mask
 * (1 << VS_x), in % of the wall time covered (span_ns) times nr_vcpus.
 * HALT% is VS_HALT's, STEAL% VS_WAIT's, UTIL% MODEL_UTIL_STATES'.  -1
 * where it is unknown: a state the input does not measure, no span, no vCPU.
 */
double model_scope_share(const struct model_scope *sc, unsigned int states, uint64_t span_ns,
			 unsigned int nr_vcpus);
void model_scope_free(struct model_scope *sc);
/* The object rows of reason id in the scope, most exits first: *first, how many. */
unsigned int model_scope_objs(const struct model_scope *sc, int id, const struct model_obj_row **first);
/*
 * The rows that have exits since start, most exits first; out holds s->nr.
 * Each gets the scope's exits and summed latency, for its shares.
 */
unsigned int model_scope_sorted(const struct model_scope *sc, const struct model_reason_row **out);

/* The guest IPs of one kind of a VM (v NULL: all its vCPUs) or of its vCPU v, since start or reset. */
struct model_ip_list {
	struct ip_entry *e;	/* most counted first */
	size_t nr;
	uint64_t samples;	/* the sum of the counts */
	uint64_t replaced;	/* > 0: the tables were full, counts may overstate (by err) */
	uint64_t none;		/* exits of the scope whose event had no guest IP */
	uint64_t exits;		/* all exits of the scope, since start */
};

/* Fills *l (free it with model_ip_list_free, also on failure): 0 or -1 (no memory). */
int model_scope_ips(struct model_ip_list *l, const struct vm *vm, const struct vcpu *v,
		    enum ip_kind kind);
void model_ip_list_free(struct model_ip_list *l);

#endif
