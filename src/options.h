/* SPDX-License-Identifier: GPL-2.0 */
/* The command line (options.c): what every part of kvmtop is asked to do. */
#ifndef KVMTOP_OPTIONS_H
#define KVMTOP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "model/model_ips.h"
#include "sym/sym.h"

/*
 * -o's formats, from the outputs' table: main.c gives them (this file
 * includes no printer), each one's name and what may go with it.
 */
struct opt_format {
	const char *name;
	bool metrics_opts;	/* so do the --metrics-* options */
	bool ips_only;		/* it writes the guest IPs alone: not with --ip-slots 0 */
	bool one_report;	/* it writes one report: live with -d, -n says which */
};

/* The i-th of -o's formats into *f, the default first: 0, or -1 past the last. */
typedef int (*opt_format_fn)(unsigned int i, struct opt_format *f);

#define OPT_MAX_LE	32	/* --metrics-buckets: bounds at most */
#define OPT_SCOPE_MAX	MODEL_FILTER_MAX	/* -p, -g, --vcpu: at most this many of each */
#define OPT_BPF_CHECK_MS	250	/* bpf as the default: its first exits held to tracefs's over this window */
#define OPT_BPF_SAMPLES	1000	/* --bpf-samples: the bpf source's exits a second taken as samples */

/* The metrics options: --metrics-per-vcpu, --metrics-buckets. */
struct opt_metrics {
	bool per_vcpu;
	bool stolen;		/* --metrics-stolen */
	bool objects;		/* --metrics-objects */
	bool identity;		/* --metrics-identity */
	int latency;		/* --metrics-latency: index of host, vm, vcpu */
	uint64_t le_ns[OPT_MAX_LE];	/* the bounds given, ascending */
	unsigned int nr_le;		/* 0: the outputs' default */
};

struct options {
	bool batch;
	bool summary;
	long long iterations;	/* 0: until the input ends */
	double delay;		/* seconds, 0: not given */
	double duration;	/* --duration: seconds the run lasts (-r: of its time), 0: until it ends */
	struct opt_format fmt;	/* -o's, or the default */
	bool fmt_given;
	bool source_given;	/* --source was given: never changed for the host */
	bool bpf_default;	/* no --source: bpf, trace where it cannot start or counts wrong */
	const char *replay;
	const char *threads;	/* --threads: the recording host's ps -eLo tid=,pid=,args= */
	unsigned int ring;
	size_t buffer_kb;	/* live: per-CPU trace buffer, 0: default */
	unsigned int bpf_entries;	/* --source bpf: each map's most entries, 0: default */
	int bpf_samples;	/* --source bpf: exits a second taken as samples, -1: not given (OPT_BPF_SAMPLES) */
	bool no_sched;		/* live: no sched events (time states without host, halt, wait) */
	bool no_objects;	/* what exits touched is not kept (kvmtop(1), OBJECTS) */
	unsigned int max_objs;	/* --objects: kept per vCPU */
	bool demo;
	int demo_vcpus;
	long long demo_loops;	/* 0: until kvmtop stops */
	const char *demo_report;
	const char *source;	/* --source: a live source by its name, from the sources' table */
	const char *debugfs_root;	/* --debugfs DIR, NULL: the system's */
	const char *proc_root;		/* --proc DIR, NULL: the host's /proc */
	const char *sys_root;		/* --sys DIR, NULL: the host's /sys */
	const char *libvirt_run;	/* --libvirt-run DIR, NULL: /run/libvirt/qemu */
	/* what is shown: -p, -g, --vcpu (model_filter), --sort, --fields, -z */
	int pids[OPT_SCOPE_MAX];
	unsigned int nr_pids;
	const char *names[OPT_SCOPE_MAX];
	unsigned int nr_names;
	int vcpus[OPT_SCOPE_MAX];
	unsigned int nr_vcpus;
	const char *sort;	/* --sort KEY or -KEY, NULL: each view's own order */
	const char *fields;	/* --fields LIST, NULL: each view's own columns */
	bool zero;		/* -z: batch output without the VMs and vCPUs that had no events */
	bool mono;		/* -C: no colours */
	bool ascii;		/* --ascii: no UTF-8 drawing characters */
	bool no_mouse;		/* --no-mouse: the screen leaves the mouse to the terminal */
	const char *config;	/* --config FILE: the screen's settings, NULL: the usual file */
	bool no_config;		/* --no-config: no settings file */
	/* guest IPs */
	unsigned int max_vcpus;	/* --max-vcpus: threads tracked, more are dropped */
	unsigned int thieves;	/* --thieves: per vCPU, 0: none kept */
	unsigned int keep_ended;	/* --keep-ended: ended VMs a live summary keeps one by one */
	unsigned int ip_slots;	/* --ip-slots: entries per vCPU and kind, 0: none kept */
	unsigned int ip_top;	/* --ip-top: IPs per scope and kind in text and JSON */
	enum ip_kind ip_kind;	/* --ip-kind: what -o folded writes */
	struct sym_set syms;	/* --guest-kallsyms, --guest-map, --guest-kaslr */
	char *renamed;		/* --sort and --fields with old names renamed: they point into it */
	const char *notice;	/* one line for the screen's message line, or NULL */
	/* --source trace on a host whose KVM traces no exits: why each VM has none, else NULL */
	const char *exits_unknown;
	/* --output FILE, NULL: stdout: appended to (the metrics: each snapshot replaces it) */
	const char *output;
	/* metrics: -o prometheus|openmetrics, --listen */
	const char *listen;	/* --listen ADDR:PORT: serve /metrics instead of a screen */
	bool metrics_given;	/* a --metrics-* option */
	struct opt_metrics metrics;
};

/*
 * argv into o, with the defaults; a usage error says so in one line and
 * exits 2; --help (with keys_help's lines about the screen's keys) and
 * --version print and exit 0.
 */
void options_parse(int argc, char **argv, struct options *o, void (*keys_help)(FILE *f));
/* What options_parse allocated for the run: the guest's symbols, the renamed names. */
void options_free(struct options *o);
/* -o's formats, given before options_parse(); without them -o takes none. */
void options_formats(opt_format_fn fn);
/*
 * --source's names, from the sources' table (NULL-terminated, the default
 * first): main.c gives them before options_parse().
 */
void options_sources(const char *const *names);
/*
 * --sort's and --fields' names: known(name, batch) says whether name is a
 * field of the table (batch: batch output sorts and prints only those) or
 * a column of the screen; help(f) lists them for --fields help.
 */
/* --fields: at most this many names (batch.h's BATCH_FIELDS_MAX, held equal by tables.c) */
#define OPT_FIELDS_MAX	256
/*
 * renamed(list, batch, quiet): a list of --fields or --sort names with
 * the old ones renamed (as fields where batch; quiet: without the notice
 * line on stderr), list itself where none is old, else a copy.
 */
void options_field_names(const char *(*renamed)(const char *list, bool batch, bool quiet));
void options_fields(bool (*known)(const char *name, bool batch), void (*help)(FILE *f));

#endif
