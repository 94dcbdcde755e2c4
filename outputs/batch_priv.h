/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batch output's insides, shared by the files of outputs/ only (batch.h
 * is what the program and the tests see).  The files call downwards:
 * batch.c (the view and the formats' table) calls the formats, the
 * formats call the pieces they print (findings, guest IPs, KVM's
 * statistics) and batch_common.c, which calls none of them.
 */
#ifndef KVMTOP_BATCH_PRIV_H
#define KVMTOP_BATCH_PRIV_H

#include "batch.h"
#include "json_writer.h"

/* batch_common.c: what the formats share. */
/*
 * The host's pressure (live: /proc/pressure), figure i of BATCH_HOST_PSI:
 * its name ("cpu_some" ...) in *key; true with *v (% of the snapshot), or
 * false where it is not known.
 */
#define BATCH_HOST_PSI	6
bool batch_host_psi(const struct batch *b, unsigned int i, const char **key, double *v);
/*
 * The snapshot ending at end as the fields table's snapshot row has it
 * (model_fields.h): its number, span, time unit and wall clock (live:
 * CLOCK_MONOTONIC's offset read now).
 */
void batch_snap(const struct batch *b, uint64_t end, struct model_snap *s);
/* JSON's "time": "RFC 3339" of the snapshot's end through b->json, or null where the wall clock is not known. */
void batch_time_json(const struct batch *b, uint64_t end);
/* The snapshot's length in seconds, 0 when times are not ns. */
double batch_seconds(const struct batch *b, uint64_t end);
/* Where the figures' span starts: the model's interval, or the screen's (batch_dump). */
uint64_t batch_start(const struct batch *b);
/*
 * Is reason field f measured for this input?  A field of the exits'
 * split needs sched events, a sum of seconds ns times, a histogram's
 * figure (samples too) a source that pairs exits with entries.  CSV leaves a
 * field that is not empty, JSON writes null: both carry every field.
 */
bool batch_field_known(const struct batch *b, const struct model_field *f);
/* --fields' and --sort's KVM statistics that KVM does not give: one line each on stderr. */
void batch_kstat_fields_check(const struct batch *b);
/* s's rows with exits since start, most first (free() them): NULL when out of memory. */
const struct model_reason_row **batch_rows(const struct batch *b, const struct model_scope *sc, unsigned int *n);
/*
 * The objects of reason id in sc (model_scope_objs), in --sort's order
 * when it is an object's field: *n of them, in an array to free(); NULL
 * when out of memory.
 */
const struct model_obj_row **batch_objs(const struct batch *b, const struct model_scope *sc, int id,
					unsigned int *n);
/*
 * --sort and --fields by name into b (a name the field table has not is
 * passed over: the program refused it before).
 */
void batch_scope_init(struct batch *b, const char *sort, const char *fields);
/*
 * The VMs batch output shows (the model's filter, -z), in its order
 * (--sort by a VM field, else by pid), and a VM's vCPU threads the same
 * way: *n of them, in an array to free(); NULL when out of memory.
 */
const struct vm **batch_vms(const struct batch *b, unsigned int *n);
const struct vcpu **batch_vcpus(const struct batch *b, const struct vm *vm, unsigned int *n);
/*
 * The kind of row --fields asks for: the finest of its fields' (without
 * --fields, a reason's).
 */
enum model_row_kind batch_level(const struct batch *b);
/*
 * The snapshot's rows at batch_level(), each handed to emit: one of the
 * snapshot; one per VM; one per vCPU thread; one per (vCPU thread,
 * reason); one per object of a reason (VMs, vCPUs, reasons and objects in
 * their order, batch_vms() ...).  The row has its VM's and vCPU's
 * figures over the snapshot.  0 or -1 (no memory).
 */
typedef void (*batch_emit_fn)(const struct batch *b, const struct model_row *row);
int batch_walk(const struct batch *b, const struct model_snap *snap, batch_emit_fn emit);
/*
 * Field f of row as CSV and JSON write it: its value in *v, and what it
 * is; a fraction (v->d, seconds too) is written with *decimals.  BV_NONE where
 * the row has no figure: the getter says so (a VM's context the host does
 * not give), a whole number is -1 (not known), a string is empty.
 */
enum batch_val_type { BV_NONE, BV_TEXT, BV_INT, BV_UINT, BV_FRAC, BV_BOOL, BV_ADDR };
enum batch_val_type batch_value(const struct model_field *f, const struct model_row *row,
				struct model_field_val *v, int *decimals);
/*
 * CSV's cell of field f of row: a number, an address in hex ("0x..."), or
 * a string through esc.  false, with nothing written, where the row has
 * no figure (batch_value): CSV leaves the cell empty.
 */
bool batch_machine_value(const struct batch *b, const struct model_field *f,
			 const struct model_row *row, void (*esc)(FILE *f, const char *s));
/*
 * JSON's value of field f of row, through b->json: a number, an address
 * as a "0x..." string, a string escaped, or null where it has no figure.
 */
void batch_json_value(const struct batch *b, const struct model_field *f, const struct model_row *row);
/*
 * A VM's or vCPU's field called name (model_fields.h) as text writes it,
 * into buf: a whole number, or a string escaped (escape.h).  buf.
 */
const char *batch_text_field(const char *name, const struct model_row *row, char *buf, size_t len);
/*
 * Field f of row as the text tables write it, into buf: "-" where it has
 * no figure (batch_value(), or not measured: batch_field_known()), times
 * with their unit (ns sources), shares and rates with 2 decimals, a
 * string escaped.  buf.
 */
const char *batch_text_value(const struct batch *b, const struct model_field *f, const struct model_row *row,
			     char *buf, size_t len);
/*
 * The host kernel's threads that raised KVM events (kworker, kdamond ...):
 * host work, in the host's figures, never a VM.  print writes them when
 * there are any.  0 or -1 (no memory).
 */
int batch_kernel(const struct batch *b,
		 void (*print)(const struct batch *b, const struct vm *k, const struct model_scope *sc));

/*
 * Are a vCPU's thieves measured: its wait time from the sched events (not
 * /proc, which says how long, not who)?
 */
bool batch_steal_known(const struct batch *b);

/*
 * batch_file.c: --output FILE of a format that appends (not the metrics):
 * opened for appending, created 0644 (less the umask) if missing, as the
 * output from now on; when SIGHUP asks again, the file now of that name
 * (logrotate renamed the old one), the old one closed.  0, or -1 with one
 * line in err (the driver ends the run).  _close: back to stdout.
 */
int batch_output_open(struct batch *b, char *err, size_t len);
void batch_output_close(struct batch *b);

/*
 * The formats' rows, each in its file, listed by batch.c's table; each
 * prints the interval [m->interval_start, end].
 */
extern const struct batch_format batch_format_text;
extern const struct batch_format batch_format_csv;
extern const struct batch_format batch_format_json;
extern const struct batch_format batch_format_folded;		/* batch_ips.c */
extern const struct batch_format batch_format_prometheus;	/* batch_file.c */
extern const struct batch_format batch_format_openmetrics;	/* batch_file.c */
extern const struct batch_format batch_format_findings;
/*
 * batch_findings.c: the snapshot's findings in text (always: "none" too),
 * in JSON (its "findings" key); -o findings is its row.
 */
void batch_findings_text(const struct batch *b, bool always);
void batch_findings_json(const struct batch *b);
/*
 * batch_ips.c: the guest IPs of a VM (v NULL) or a vCPU in text and JSON;
 * 0 or -1 (no memory).  -o folded is its row.
 */
int batch_ips_text(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		   const char *indent);
int batch_ips_json(const struct batch *b, const struct vm *vm, const struct vcpu *v);
/*
 * The guest IPs object o's exits came from, as JSON keys of its object
 * ("sites", "sites_rest", "sites_none"), named from vm's guest symbols
 * (vm NULL: no names, the host's rows mix guests).
 */
void batch_obj_sites_json(const struct batch *b, const struct vm *vm, const struct model_obj_row *o);
/*
 * In text: the guest IP most of object o's exits came from and its share
 * of them ("native_write_msr+0x8 95%", "0x...": no symbols, "-": none),
 * escaped, in buf.  Returns buf.
 */
const char *batch_obj_site(const struct batch *b, const struct vm *vm, const struct model_obj_row *o,
			   char *buf, size_t len);
/*
 * batch_kstats.c: KVM's binary statistics of a VM (v NULL) or a vCPU:
 * JSON's "kvm_stats" object (nothing without any), the snapshot's
 * "kvm_stats_info" (each one's kind and unit), CSV's kvm_NAME and
 * kvm_vm_NAME columns (those known when the header is written), text's
 * "kvm stats:" line (the scalars not zero).
 */
void batch_kstats_json(const struct batch *b, const struct vm *vm, const struct vcpu *v);
void batch_kstats_json_info(const struct batch *b);
void batch_kstats_csv_header(struct batch *b);
void batch_kstats_csv(const struct batch *b, const struct vm *vm, const struct vcpu *v);
void batch_kstats_text(const struct batch *b, const struct vm *vm, const struct vcpu *v,
		       const char *indent);

#endif
