// SPDX-License-Identifier: GPL-2.0
/*
 * The command line, declared once: opts[] drives getopt, the checks of
 * each value and --help (and so the test that the man page has every
 * option).  A new option is a row here and a field in struct options.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "demo.h"
#include "model/model.h"
#include "options.h"
#include "model/model_steal.h"

#define STR(x)	#x
#define XSTR(x)	STR(x)

enum opt_kind {
	OPT_FLAG,	/* sets the bool at off */
	OPT_NUM,	/* a whole number from min to max into the integer at off */
	OPT_TEXT,	/* the const char * at off */
	OPT_CHOICE,	/* one of choices[], its index into the int at off */
	OPT_CALL,	/* set() takes it */
};

struct opt_def {
	const char *name;
	char short_name;		/* 0: none */
	const char *arg;		/* the value's name in --help, NULL: no value */
	enum opt_kind kind;
	size_t off;			/* into struct options */
	size_t size;			/* OPT_NUM: of the integer */
	long long min, max;
	const char *what;		/* in the error line: "must be <what>", "unknown <what>" */
	const char *const *choices;	/* OPT_CHOICE, NULL-terminated */
	/* OPT_CALL: 0, or -1 with the end of a usage error in err */
	int (*set)(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len);
	const char *help;		/* lines after the first are indented under it */
};

#define F(field)	offsetof(struct options, field)
#define NUM(field, lo, hi, w) \
	.kind = OPT_NUM, .off = F(field), .size = sizeof(((struct options *)0)->field), \
	.min = (lo), .max = (hi), .what = (w)

static int set_delay(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	char *end;

	errno = 0;
	o->delay = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(o->delay) || o->delay < 0.001 || o->delay > 86400) {
		snprintf(err, len, "delay '%s' must be seconds from 0.001 to 86400", arg);
		return -1;
	}
	return 0;
}

/* --duration SECS: live, of wall time; with -r, of the recording's time from its first event. */
static int set_duration(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	char *end;

	errno = 0;
	o->duration = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(o->duration) || o->duration < 0.001 ||
	    o->duration > 31536000) {
		snprintf(err, len, "'%s' must be seconds from 0.001 to 31536000 (a year)", arg);
		return -1;
	}
	return 0;
}

static const char *const ip_kinds[] = { "time", "exit", NULL };			/* enum ip_kind */

static int set_syms(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	if (!strcmp(d->name, "guest-kaslr"))
		return sym_set_kaslr(&o->syms, arg, err, len);
	return sym_set_add(&o->syms, arg, strcmp(d->name, "guest-map") ? SYM_KALLSYMS : SYM_MAP,
			   err, len);
}

static int set_internal(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	snprintf(err, len, "is kvmtop's own: --demo starts it, as the first argument");
	return -1;
}

/* --metrics-buckets "0.00001,0.001,...": seconds, ascending, into ns. */
static int set_buckets(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	struct opt_metrics *m = &o->metrics;
	const char *p = arg;
	unsigned int n = 0;

	o->metrics_given = true;
	while (*p) {
		char *end;
		double s = strtod(p, &end);
		uint64_t ns;

		if (end == p || (*end && *end != ',') || !(s >= 1e-9 && s <= 3600)) {
			snprintf(err, len, "'%s': bounds are seconds from 1e-9 to 3600, comma-separated", arg);
			return -1;
		}
		ns = (uint64_t)(s * 1e9 + 0.5);
		if (n == OPT_MAX_LE || (n && ns <= m->le_ns[n - 1])) {
			snprintf(err, len, "'%s': at most %d bounds, each greater than the one before", arg,
				 OPT_MAX_LE);
			return -1;
		}
		m->le_ns[n++] = ns;
		p = *end ? end + 1 : end;
	}
	if (!n) {
		snprintf(err, len, "'%s': no bound", arg);
		return -1;
	}
	m->nr_le = n;
	return 0;
}

static int set_per_vcpu(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	o->metrics_given = true;
	o->metrics.per_vcpu = true;
	return 0;
}

static const char *const latency_levels[] = { "host", "vm", "vcpu", NULL };

static int set_latency(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	int i;

	for (i = 0; latency_levels[i]; i++) {
		if (!strcmp(arg, latency_levels[i])) {
			o->metrics_given = true;
			o->metrics.latency = i;
			return 0;
		}
	}
	snprintf(err, len, "unknown place '%s' (host, vm or vcpu)", arg);
	return -1;
}

static int set_midentity(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	o->metrics_given = true;
	o->metrics.identity = true;
	return 0;
}

static int set_stolen(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	o->metrics_given = true;
	o->metrics.stolen = true;
	return 0;
}

/* --metrics-objects: each VM's exits by reason and object in the metrics. */
static int set_mobjects(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	o->metrics_given = true;
	o->metrics.objects = true;
	return 0;
}

static void usage(FILE *f);
static void (*keys_help)(FILE *f);

static int set_help(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	if (d->short_name == 'h')
		usage(stdout);
	else
		printf("kvmtop %s\n", PACKAGE_VERSION);
	exit(0);
}

/* Append item to buf as the i-th of n in a list: "a", then sep before each, last before the last. */
static void list_item(char *buf, size_t len, unsigned int i, unsigned int n, const char *prefix,
		      const char *item, const char *sep, const char *last)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s%s%s", !i ? "" : i + 1 < n ? sep : last, prefix, item);
}

static opt_format_fn format_at;	/* -o's formats (options_formats) */

/*
 * The names of -o's formats that pick takes (all: NULL), after what buf
 * holds: each after prefix ("-o "), sep between them, last before the
 * last ("a, b or c").  buf.
 */
static const char *format_names(char *buf, size_t len, bool (*pick)(const struct opt_format *f),
				const char *prefix, const char *sep, const char *last)
{
	struct opt_format f;
	unsigned int i, k = 0, n = 0;

	for (i = 0; format_at && !format_at(i, &f); i++)
		n += !pick || pick(&f);
	for (i = 0; format_at && !format_at(i, &f); i++)
		if (!pick || pick(&f))
			list_item(buf, len, k++, n, prefix, f.name, sep, last);
	return buf;
}

static bool takes_metrics(const struct opt_format *f)
{
	return f->metrics_opts;
}

/* -o NAME: one of the formats main.c gave. */
static int set_format(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	struct opt_format f;
	unsigned int i;

	o->fmt_given = true;
	for (i = 0; format_at && !format_at(i, &f); i++) {
		if (!strcmp(arg, f.name)) {
			o->fmt = f;
			return 0;
		}
	}
	snprintf(err, len, "unknown %s '%s' (", d->what, arg);
	format_names(err, len, NULL, "", ", ", " or ");
	strlcat(err, ")", len);
	return -1;
}

void options_formats(opt_format_fn fn)
{
	format_at = fn;
}

static const char *const *source_names;	/* --source's, the default first (options_sources) */

/* --source NAME: one of the live sources main.c gave. */
static int set_source(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	unsigned int i, n;

	o->source_given = true;
	for (n = 0; source_names && source_names[n]; n++) {
		if (!strcmp(arg, source_names[n])) {
			o->source = source_names[n];
			return 0;
		}
	}
	snprintf(err, len, "unknown %s '%s' (", d->what, arg);
	for (i = 0; i < n; i++)
		list_item(err, len, i, n, "", source_names[i], ", ", " or ");
	strlcat(err, ")", len);
	return -1;
}

void options_sources(const char *const *names)
{
	source_names = names;
}

static bool (*field_known)(const char *name, bool batch);	/* options_fields */
static void (*fields_help)(FILE *f);

void options_fields(bool (*known)(const char *name, bool batch), void (*help)(FILE *f))
{
	field_known = known;
	fields_help = help;
}

static const char *(*fields_renamed)(const char *list, bool batch, bool quiet);	/* options_field_names */

void options_field_names(const char *(*renamed)(const char *list, bool batch, bool quiet))
{
	fields_renamed = renamed;
}

/* arg with its old names renamed, quietly (a copy to free where not arg): the names checked. */
static const char *names_checked(const char *arg)
{
	return fields_renamed ? fields_renamed(arg, false, true) : arg;
}

/* --sort KEY or -KEY: a field or a column (an old name too: options_check renames it). */
static int set_sort(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	const char *now = names_checked(arg), *key = now + (*now == '-');
	bool known = *key && (!field_known || field_known(key, false));

	if (now != arg)
		free((void *)now);

	if (!known) {
		snprintf(err, len, "unknown field '%s' (kvmtop --fields help lists them)", arg + (*arg == '-'));
		return -1;
	}
	o->sort = arg;
	return 0;
}

/* The names of list (arg as given): 0, or -1 with one line in err. */
static int fields_check(const char *list, const char *arg, char *err, size_t len)
{
	const char *p = list;
	unsigned int n_names = 0;

	while (*p) {
		size_t n = strcspn(p, ",");
		char name[64];

		if (!n || n >= sizeof(name)) {
			snprintf(err, len, "'%s' is not a comma-separated list of fields", arg);
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (field_known && !field_known(name, false)) {
			snprintf(err, len, "unknown field '%s' (kvmtop --fields help lists them)", name);
			return -1;
		}
		if (++n_names > OPT_FIELDS_MAX) {
			snprintf(err, len, "more than %d names", OPT_FIELDS_MAX);
			return -1;
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

/* --fields LIST: fields and columns (old names too), comma-separated; help: list them and exit. */
static int set_fields(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	const char *p;
	int rc;

	if (!strcmp(arg, "help")) {
		if (fields_help)
			fields_help(stdout);
		exit(0);
	}
	p = names_checked(arg);
	rc = fields_check(p, arg, err, len);
	if (p != arg)
		free((void *)p);
	if (rc)
		return -1;
	o->fields = arg;
	return 0;
}

/*
 * A list of whole numbers from lo to hi, comma-separated, appended to
 * list (at most OPT_SCOPE_MAX in all): 0, or -1 with the end of the error
 * line in err.
 */
static int take_ints(const char *arg, int *list, unsigned int *nr, long long lo, long long hi,
		     const char *what, char *err, size_t len)
{
	char buf[256], *save = NULL, *tok;
	const char *errstr;

	if (strlcpy(buf, arg, sizeof(buf)) >= sizeof(buf) || !*arg) {
		snprintf(err, len, "'%.64s' is not a list of %s", arg, what);
		return -1;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long long v = strtonum(tok, lo, hi, &errstr);

		if (errstr) {
			snprintf(err, len, "'%s' is not %s from %lld to %lld", tok, what, lo, hi);
			return -1;
		}
		if (*nr == OPT_SCOPE_MAX) {
			snprintf(err, len, "more than %d %ss", OPT_SCOPE_MAX, what);
			return -1;
		}
		list[(*nr)++] = (int)v;
	}
	return 0;
}

/* -p PID[,PID...]: the VMs of these host processes. */
static int set_pids(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	return take_ints(arg, o->pids, &o->nr_pids, 1, 4194304, "a pid", err, len);
}

/* --vcpu N[,N...]: these vCPU ids of each VM shown. */
static int set_vcpus(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	return take_ints(arg, o->vcpus, &o->nr_vcpus, 0, 1048575, "a vCPU id", err, len);
}

/* -g NAME: a VM's name, or a glob of names (repeatable). */
static int set_guest(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	if (!*arg) {
		snprintf(err, len, "a VM's name or a glob, not nothing");
		return -1;
	}
	if (o->nr_names == OPT_SCOPE_MAX) {
		snprintf(err, len, "more than %d names", OPT_SCOPE_MAX);
		return -1;
	}
	o->names[o->nr_names++] = arg;
	return 0;
}

static const struct opt_def opts[] = {
	{ "batch", 'b', NULL, OPT_FLAG, F(batch),
	  .help = "batch mode: print snapshots instead of the screen\n"
		  "(which needs a terminal on stdin and stdout)" },
	{ "replay", 'r', "FILE", OPT_TEXT, F(replay),
	  .help = "read a trace-cmd recording (trace.dat, v6/v7,\n"
		  "compressed with zlib or zstd or not)" },
	{ "threads", 0, "FILE", OPT_TEXT, F(threads),
	  .help = "with -r: who the recording's threads are, from FILE,\n"
		  "the output of 'ps -eLo tid=,pid=,args=' on the\n"
		  "recording host: VMs grouped and named as live" },
	{ "pid", 'p', "PID[,PID...]", OPT_CALL, .set = set_pids,
	  .help = "show only the VMs of these host processes (with -g:\n"
		  "those matching either); figures stay whole" },
	{ "guest", 'g', "NAME", OPT_CALL, .set = set_guest,
	  .help = "show only the VMs called NAME, a glob (web*): their\n"
		  "name, or live their display name or UUID;\n"
		  "repeatable; one that matches none is said once" },
	{ "vcpu", 0, "N[,N...]", OPT_CALL, .set = set_vcpus,
	  .help = "show only these vCPU ids of each VM shown" },
	{ "sort", 0, "KEY", OPT_CALL, .set = set_sort,
	  .help = "sort by field KEY, most first (-KEY: least first):\n"
		  "the screen's pane with that column, and batch output's\n"
		  "VMs, vCPUs, reasons or objects, whichever KEY is a\n"
		  "field of (any field of the table: vm_exits_per_s ...)" },
	{ "fields", 0, "LIST", OPT_CALL, .set = set_fields,
	  .help = "the columns, in order, comma-separated: CSV's exactly\n"
		  "those, a row per snapshot, VM, vCPU, reason or object\n"
		  "(the finest they name); text's reason tables', each\n"
		  "pane's that it has (help: list the fields, what each\n"
		  "is, and the screen's columns)" },
	{ "zero", 'z', NULL, OPT_FLAG, F(zero),
	  .help = "batch output: leave out VMs and vCPUs without KVM\n"
		  "events in the snapshot" },
	{ "iterations", 'n', "N", NUM(iterations, 1, 1000000000, "a whole number from 1"),
	  .help = "stop after N snapshots" },
	{ "delay", 'd', "SECS", OPT_CALL, .set = set_delay,
	  .help = "one snapshot every SECS seconds (live: of wall time,\n"
		  "default 3; with -r: of recording time, and without\n"
		  "-d a replay prints one summary)" },
	{ "format", 'o', "FMT", OPT_CALL, .set = set_format, .what = "output format",
	  .help = "text (default), csv, json (JSON Lines), folded\n"
		  "(guest IPs as 'vm;vcpu;mode;symbol count' lines for\n"
		  "flamegraph.pl or speedscope, written once, at the end),\n"
		  "prometheus (text format 0.0.4) or openmetrics (1.0):\n"
		  "the totals since start as metrics (see --listen),\n"
		  "findings: each snapshot's findings alone" },
	{ "output", 0, "FILE", OPT_TEXT, F(output),
	  .help = "batch output appended to FILE (created 0644 if\n"
		  "missing; CSV's header at the start of each file),\n"
		  "not stdout; SIGHUP reopens it (logrotate) and the run\n"
		  "goes on.  -o prometheus|openmetrics: each snapshot\n"
		  "replaces FILE instead (written beside it, then\n"
		  "renamed: node_exporter's textfile collector)" },
	{ "duration", 0, "SECS", OPT_CALL, .set = set_duration,
	  .help = "end the run after SECS seconds (live: of wall time;\n"
		  "with -r: of recording time from its first event),\n"
		  "the last snapshot printed as at the input's end" },
	{ "summary", 0, NULL, OPT_FLAG, F(summary),
	  .help = "one report for the whole input (live: until\n"
		  "SIGINT/SIGTERM, SIGHUP without --output, --duration,\n"
		  "or the demo guest ends)" },
	{ "keep-ended", 0, "N", NUM(keep_ended, 0, MODEL_KEEP_ENDED_MAX,
				    "a number of VMs from 0 to " XSTR(MODEL_KEEP_ENDED_MAX)),
	  .help = "live --summary: keep the VMs that ended, at most N\n"
		  "of them one by one (default " XSTR(MODEL_KEEP_ENDED) "), the ones that\n"
		  "ended first summed in one row, \"M more ended\"" },
	{ "ring", 0, "N", NUM(ring, 0, 1 << 20, "a number of exits from 0 to 1048576"),
	  .help = "keep the last N exits per vCPU (default " XSTR(MODEL_RING_DEFAULT) ") for\n"
		  "the screen; batch mode and the exporter keep none" },
	{ "max-vcpus", 0, "N", NUM(max_vcpus, 1, MODEL_MAX_VCPUS_MAX,
				   "a number of threads from 1 to " XSTR(MODEL_MAX_VCPUS_MAX)),
	  .help = "track at most N vCPU threads (default " XSTR(MODEL_MAX_VCPUS) "); the\n"
		  "events of more are counted as dropped_events" },
	{ "thieves", 0, "N", NUM(thieves, 0, MODEL_THIEVES_MAX,
				 "a number of thieves from 0 to " XSTR(MODEL_THIEVES_MAX)),
	  .help = "keep per vCPU the N threads that ran most while it\n"
		  "waited for a CPU (default " XSTR(MODEL_THIEVES_DEFAULT) "; 0: none), the rest as\n"
		  "\"other\": stolen_by in text and JSON" },
	{ "buffer-kb", 0, "N", NUM(buffer_kb, 64, 4 << 20, "KiB from 64 to 4194304"),
	  .help = "live: trace buffer per CPU in KiB (default: sized\n"
		  "for the 100 ms drain tick, 3200)" },
	{ "bpf-entries", 0, "N", NUM(bpf_entries, 64, 1 << 24, "a number of entries from 64 to 16777216"),
	  .help = "the bpf source: each of its maps (threads, exits,\n"
		  "latencies, buckets, events) holds at most N entries\n"
		  "(default 65536); updates a full map refuses are\n"
		  "counted and said" },
	{ "bpf-samples", 0, "N", NUM(bpf_samples, 0, 1000000, "a number of samples a second from 0 to 1000000"),
	  .help = "the bpf source: at most about N exits a second taken as\n"
		  "samples, each standing for the exits since its\n"
		  "vCPU's last (every Nth exit, N set each interval):\n"
		  "the guest IPs and the recent exits (default " XSTR(OPT_BPF_SAMPLES) "; 0:\n"
		  "none)" },
	{ "no-sched", 0, NULL, OPT_FLAG, F(no_sched),
	  .help = "live: do not trace the vCPU threads' context switches\n"
		  "(each exit's split is then unknown; their time states\n"
		  "come from /proc's schedstat and stat)" },
	{ "source", 0, "SRC", OPT_CALL, .set = set_source, .what = "source",
	  .help = "live: where the figures come from (default: bpf,\n"
		  "  else trace: bpf's first exits are held to a\n"
		  "  tracefs window's, any difference said, then trace;\n"
		  "  trace with KVMTOP_NO_BPF=1, --buffer-kb, --no-sched;\n"
		  "  stats on a host whose KVM traces no exits, PVM's)\n"
		  "bpf: the KVM tracepoints and the sched events\n"
		  "  counted in the kernel by BPF: exits, latencies,\n"
		  "  objects, time states, splits and stolen-by at a\n"
		  "  fraction of trace's cost, guest IPs and recent\n"
		  "  exits sampled (--bpf-samples; kvmtop(1))\n"
		  "trace: the KVM tracepoints read one by one: every\n"
		  "  exit, its reason, latency, guest IP; costs each\n"
		  "  exit a trace record\n"
		  "stats: KVM's binary statistics (Linux 5.14+) per\n"
		  "  VM and vCPU: the kernel's exit counts, halt and\n"
		  "  halt-polling figures and histograms, no latencies;\n"
		  "  costs the guests nothing (always-on use)\n"
		  "debugfs: KVM's counters in debugfs, as kvm_stat:\n"
		  "  per VM only; refused under kernel lockdown" },
	{ "debugfs", 0, "DIR", OPT_TEXT, F(debugfs_root),
	  .help = "with --source debugfs: read DIR/kvm instead of the\n"
		  "system's debugfs (a copy of it, or a test tree)" },
	{ "proc", 0, "DIR", OPT_TEXT, F(proc_root),
	  .help = "with --source stats: take the processes from DIR,\n"
		  "laid out as /proc, and the statistics of process\n"
		  "PID's KVM fd N from DIR/PID/kvm-stats/N (a copy of\n"
		  "what its stats fd reads), instead of this host's" },
	{ "sys", 0, "DIR", OPT_TEXT, F(sys_root),
	  .help = "with --source stats: read the VMs' tap interfaces\n"
		  "(DIR/class/net) and cgroups (DIR/fs/cgroup) from DIR,\n"
		  "laid out as /sys, instead of this host's" },
	{ "libvirt-run", 0, "DIR", OPT_TEXT, F(libvirt_run),
	  .help = "live: read libvirt's running domains' status XML\n"
		  "(DIR/NAME.xml, matched to a VM by its pid) from DIR\n"
		  "instead of /run/libvirt/qemu, for the VMs' names and\n"
		  "UUIDs (kvmtop(1): identity)" },
	{ "listen", 0, "ADDR:PORT", OPT_TEXT, F(listen),
	  .help = "no screen: serve the metrics at http://ADDR:PORT/metrics\n"
		  "(Prometheus text 0.0.4, OpenMetrics 1.0 when asked),\n"
		  "from the sources -b reads; only ADDR is bound (:PORT:\n"
		  "every address; 127.0.0.1 behind a proxy); a recording's\n"
		  "final figures are served until SIGINT or SIGTERM; says\n"
		  "\"kvmtop: serving Prometheus metrics on URL\" on stderr\n"
		  "once, when it starts serving" },
	{ "metrics-per-vcpu", 0, NULL, OPT_CALL, .set = set_per_vcpu,
	  .help = "metrics: exits and time states per vCPU, not per VM\n"
		  "(series grow with the vCPUs)" },
	{ "metrics-stolen", 0, NULL, OPT_CALL, .set = set_stolen,
	  .help = "metrics: per vCPU, the threads that ran while it waited\n"
		  "for a CPU (kvmtop_vcpu_stolen_seconds_total; series: VMs x\n"
		  "vCPUs x (--thieves + 1))" },
	{ "metrics-identity", 0, NULL, OPT_CALL, .set = set_midentity,
	  .help = "metrics: per VM, kvmtop_vm_info 1 with its name, where\n"
		  "it comes from, UUID, project and flavor as labels (one\n"
		  "series per VM; kvmtop(1): identity)" },
	{ "metrics-objects", 0, NULL, OPT_CALL, .set = set_mobjects,
	  .help = "metrics: per VM, exits by reason and object (port, MMIO\n"
		  "page, MSR ...: kvmtop_object_exits_total; series: at most\n"
		  "VMs x vCPUs x --objects)" },
	{ "metrics-latency", 0, "WHERE", OPT_CALL, .set = set_latency,
	  .help = "metrics: the exit-latency histograms per reason of the\n"
		  "host (default: R x (buckets + 3) series), or of each VM\n"
		  "(vm: VMs x R x ...) or each vCPU (vcpu: vCPUs x R x ...)" },
	{ "metrics-buckets", 0, "SECS,...", OPT_CALL, .set = set_buckets,
	  .help = "metrics: the latency histogram's bucket bounds in\n"
		  "seconds (default 1e-6 to 1: 19 bounds)" },
	{ "demo", 0, NULL, OPT_FLAG, F(demo),
	  .help = "start kvmtop's own small guest and watch it live;\n"
		  "without /dev/kvm: say so, and show kvmtop's sample\n"
		  "recording (kvmtop-sample.dat) as with -r" },
	{ "demo-vcpus", 0, "N", NUM(demo_vcpus, 1, DEMO_MAX_VCPUS, "from 1 to " XSTR(DEMO_MAX_VCPUS)),
	  .help = "its vCPUs (1 to " XSTR(DEMO_MAX_VCPUS) ", default 2)" },
	{ "demo-loops", 0, "N", NUM(demo_loops, 1, 1000000000000LL, "a whole number from 1"),
	  .help = "loops per vCPU, then it ends (default: until kvmtop\n"
		  "stops); a loop is out, MMIO store, cpuid, rdmsr, hlt" },
	{ "demo-report", 0, "FILE", OPT_TEXT, F(demo_report),
	  .help = "the demo guest writes its own exit counts there" },
	{ "demo-guest", 0, "...", OPT_CALL, .set = set_internal,
	  .help = "internal: the demo guest process itself, as --demo\n"
		  "starts it (kvmtop(1) gives its arguments)" },
	{ "ip-slots", 0, "N", NUM(ip_slots, 0, MODEL_IPS_MAX,
				  "a number of IPs from 0 to " XSTR(MODEL_IPS_MAX)),
	  .help = "guest IPs kept per vCPU, each of time samples and\n"
		  "exit sites (default " XSTR(MODEL_IPS_DEFAULT) ", at most " XSTR(MODEL_IPS_MAX) "; 0: none); only\n"
		  "for the screen, text, JSON and folded stacks" },
	{ "objects", 0, "N", NUM(max_objs, 1, MODEL_OBJS_MAX, "a number of objects from 1 to " XSTR(MODEL_OBJS_MAX)),
	  .help = "objects kept per vCPU (default " XSTR(MODEL_OBJS_DEFAULT) "): a new one in a full\n"
		  "table takes the least counted's place, whose exits go\n"
		  "to its reason's \"other objects\"" },
	{ "no-objects", 0, NULL, OPT_FLAG, F(no_objects),
	  .help = "keep no objects (what each exit touched: ports, MMIO\n"
		  "pages, MSRs, powerpc hcalls, s390 instructions ...);\n"
		  "their rows and arrays stay empty" },
	{ "ip-top", 0, "N", NUM(ip_top, 0, 1000000, "a number of IPs from 0 to 1000000"),
	  .help = "text and JSON: the N most counted IPs of each kind\n"
		  "per VM and vCPU (default 10; 0: none)" },
	{ "ip-kind", 0, "KIND", OPT_CHOICE, F(ip_kind), .choices = ip_kinds, .what = "kind",
	  .help = "-o folded writes time samples (time, default: where\n"
		  "the guest runs) or exit sites (exit: per reason)" },
	{ "guest-kallsyms", 0, "[VM=]FILE", OPT_CALL, .set = set_syms,
	  .help = "symbols of VM (a name or host pid; none:\n"
		  "every VM) from a copy of its /proc/kallsyms" },
	{ "guest-map", 0, "[VM=]FILE", OPT_CALL, .set = set_syms,
	  .help = "the same from its kernel's System.map" },
	{ "guest-kaslr", 0, "[VM=]OFFSET|[VM=]_text=ADDR", OPT_CALL, .set = set_syms,
	  .help = "VM's KASLR offset, or the\n"
		  "running guest's _text address to infer it from" },
	{ "no-color", 'C', NULL, OPT_FLAG, F(mono),
	  .help = "the screen without colours (also with NO_COLOR set)" },
	{ "ascii", 0, NULL, OPT_FLAG, F(ascii),
	  .help = "the screen without UTF-8 drawing characters" },
	{ "no-mouse", 0, NULL, OPT_FLAG, F(no_mouse),
	  .help = "the screen leaves the mouse to the terminal (its own\n"
		  "selection); without it, clicks sort, select and open" },
	{ "config", 0, "FILE", OPT_TEXT, F(config),
	  .help = "the screen's settings file (default\n"
		  "$XDG_CONFIG_HOME/kvmtop/kvmtoprc, else\n"
		  "~/.config/kvmtop/kvmtoprc; W writes it)" },
	{ "no-config", 0, NULL, OPT_FLAG, F(no_config),
	  .help = "no settings file read or written" },
	{ "help", 'h', NULL, OPT_CALL, .set = set_help, .help = "this text" },
	{ "version", 'V', NULL, OPT_CALL, .set = set_help, .help = "the version" },
};

#define NR_OPTS	(sizeof(opts) / sizeof(opts[0]))

/* One option's lines of --help: "  -b, --batch ARG" and its text, aligned at column 24. */
static void usage_opt(FILE *f, const struct opt_def *d)
{
	const char *s = d->help, *nl;
	char left[64];
	int n;

	n = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s", d->short_name ? '-' : ' ',
		     d->short_name ? d->short_name : ' ', d->short_name ? ", " : "  ", d->name,
		     d->arg ? " " : "", d->arg ? d->arg : "");
	fprintf(f, "%-*s", n < 22 ? 22 : n, left);
	for (; (nl = strchr(s, '\n')); s = nl + 1)
		fprintf(f, "  %.*s\n%22s", (int)(nl - s), s, "");
	fprintf(f, "  %s\n", s);
}

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: kvmtop [options]              the screen, live from this host\n"
	      "       kvmtop -r FILE [options]      the screen, on a trace-cmd recording\n"
	      "       kvmtop -b [-r FILE] [options] batch reports instead of the screen\n"
	      "Show KVM exits per VM, vCPU and exit reason, with exit-handling latency.\n\n", f);
	for (i = 0; i < NR_OPTS; i++)
		usage_opt(f, &opts[i]);
	fputs("\n"
	      "Latencies are exit -> next entry of the same vCPU thread, in ns (a\n"
	      "recording with an unconverted TSC clock: in cycles).  Live tracing needs\n"
	      "root (or CAP_PERFMON and tracefs access) and uses its own trace instance.\n"
	      "Guest IPs are sampled from the exits: those of asynchronous exits (external\n"
	      "interrupt, timers) say where the guest runs, the others which guest code\n"
	      "makes it exit; counts are since the start or the last reset.\n"
	      "The screen needs a terminal on stdin and stdout and a TERM that curses\n"
	      "knows (else it says so in one line: use -b); SIGINT, SIGTERM and SIGHUP\n"
	      "end it in any state, the terminal given back.\n", f);
	if (keys_help)
		keys_help(f);
	fputs("Shares (kvmtop(1), DEFINITIONS), over the span shown: HALT% = halt time /\n"
	      "(span x vCPUs), UTIL% = (guest + host + VMM time) / (span x vCPUs), STEAL% =\n"
	      "time waiting for a CPU / (span x vCPUs), EMU% = the VMM's threads' CPU time /\n"
	      "span.\n", f);
	fputs("Environment: NO_COLOR (no colours), KVMTOP_NO_BPF=1 (no --source: trace, not\n"
	      "bpf), KVMTOP_DRAW_STATS=FILE (the screen's\n"
	      "redraw times, written to FILE at the end), KVMTOP_SNAPSHOT_STATS=FILE (how\n"
	      "long each snapshot's output took, the same way), KVMTOP_DEMO_HALT_US=N (the\n"
	      "demo guest's VMM sleeps N us at each HLT: an idle vCPU), KVMTOP_DEMO_LINGER_MS=N\n"
	      "(the demo guest's process stays N ms after its vCPU threads end),\n"
	      "KVMTOP_DEMO_NAME_AFTER_MS=N (its vCPU threads take their names N ms late),\n"
	      "KVMTOP_DEMO_VCPUS_AFTER_MS=N (the demo guest makes its vCPUs N ms after its VM),\n"
	      "KVMTOP_DEMO_NO_STATS=1 (the demo guest holds no KVM statistics fds),\n"
	      "KVMTOP_SCREEN_JSON=FILE (tests: the screen's snapshots as -b -o json),\n"
	      "KVMTOP_BPF_SKEW=1 (tests: the bpf source counts every other exit).\n"
	      "See kvmtop(1) for the output fields.\n", f);
}

static void __attribute__((format(printf, 1, 2))) die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kvmtop: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (kvmtop --help lists the options)\n");
	exit(2);
}

static void set_num(void *p, size_t size, long long v)
{
	switch (size) {
	case sizeof(int):
		*(int *)p = (int)v;
		break;
	default:
		*(long long *)p = v;
		break;
	}
}

/* The value arg of option d into o: 0, or -1 with the end of the error line in err. */
static int take(struct options *o, const struct opt_def *d, const char *arg, char *err, size_t len)
{
	char *field = (char *)o + d->off;
	const char *errstr;
	unsigned int i, n;
	long long v;

	switch (d->kind) {
	case OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_TEXT:
		*(const char **)field = arg;
		return 0;
	case OPT_NUM:
		v = strtonum(arg, d->min, d->max, &errstr);
		if (errstr) {
			snprintf(err, len, "'%s' must be %s", arg, d->what);
			return -1;
		}
		set_num(field, d->size, v);
		return 0;
	case OPT_CHOICE:
		for (i = 0; d->choices[i]; i++) {
			if (!strcmp(arg, d->choices[i])) {
				*(int *)field = (int)i;
				return 0;
			}
		}
		snprintf(err, len, "unknown %s '%s' (", d->what, arg);
		for (n = 0; d->choices[n]; n++)
			;
		for (i = 0; i < n; i++)
			list_item(err, len, i, n, "", d->choices[i], ", ", " or ");
		strlcat(err, ")", len);
		return -1;
	case OPT_CALL:
		return d->set(o, d, arg, err, len);
	}
	return 0;
}

/*
 * --sort's and --fields' old names as their new ones (a field's, for
 * batch output): one list, so that one line on stderr says them all.
 */
static void options_rename(struct options *o)
{
	const char *now, *sort = o->sort ? o->sort : "", *fields = o->fields ? o->fields : "";
	size_t len = strlen(sort) + strlen(fields) + 2;
	char *both;

	if (!fields_renamed || (!o->sort && !o->fields))
		return;
	both = malloc(len);
	if (!both)
		return;		/* no memory: the names as given */
	snprintf(both, len, "%s,%s", sort, fields);
	now = fields_renamed(both, o->batch, false);
	if (now != both) {
		char *comma = strchr(now, ',');

		*comma = '\0';
		o->renamed = (char *)now;
		if (o->sort)
			o->sort = now;
		if (o->fields)
			o->fields = comma + 1;
	}
	free(both);
}

/*
 * Batch output's --fields are fields of the table, every one printed: a
 * screen column's name that is not one is refused, naming it (set_fields
 * took the list before -b was known).
 */
static void check_batch_fields(const struct options *o)
{
	const char *p = o->fields;

	while (o->batch && p && *p && field_known) {
		size_t n = strcspn(p, ",");
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (!field_known(name, true))
			die_usage("--fields %s: batch output prints fields of the table, not a pane's columns "
				  "(kvmtop --fields help)", name);
		p += n + (p[n] == ',');
	}
}

/* Options that cannot go together, or need another. */
static void check_combinations(struct options *o)
{
	char list[256] = "";

	if (o->summary && (o->iterations || o->delay))
		die_usage("%s: --summary is one report; it takes no -n or -d", "--summary");
	if (o->demo && o->replay)
		die_usage("--demo watches a live guest; it cannot go with -r");
	if (!o->batch && o->zero)
		die_usage("-z leaves rows out of batch output: add -b");
	options_rename(o);
	if (o->batch && o->sort && field_known && !field_known(o->sort + (*o->sort == '-'), true))
		die_usage("--sort %s: batch output sorts by a field of the table (kvmtop --fields help)",
			  o->sort + (*o->sort == '-'));
	check_batch_fields(o);
	if (!o->batch && (o->fmt_given || o->summary))
		die_usage("-o and --summary are for batch output: add -b");
	if (o->replay && (strcmp(o->source, "trace") || o->debugfs_root || o->proc_root || o->sys_root ||
			  o->libvirt_run))
		die_usage("--source, --debugfs, --proc, --sys and --libvirt-run are for a live source; they cannot go with -r");
	if (o->listen && (o->batch || o->fmt_given || o->output))
		die_usage("--listen serves metrics instead of printing: not with -b, -o or --output");
	if (o->output && !o->batch)
		die_usage("--output is where batch output goes: add -b");
	if (o->duration && !o->batch && !o->listen)
		die_usage("--duration ends batch output or --listen: add -b (the screen runs until q)");
	if (o->metrics_given && !o->listen && !o->fmt.metrics_opts)
		die_usage("--metrics-* options go with --listen or -o %s",
			  format_names(list, sizeof(list), takes_metrics, "", "|", "|"));
	if (o->threads && !o->replay)
		die_usage("--threads names a recording's threads: it goes with -r");
	if (o->debugfs_root && strcmp(o->source, "debugfs"))
		die_usage("--debugfs goes with --source debugfs");
	if (o->proc_root && strcmp(o->source, "stats"))
		die_usage("--proc goes with --source stats");
	if (o->sys_root && strcmp(o->source, "stats"))
		die_usage("--sys goes with --source stats");
	/* with no --source they go to the default, bpf (trace where it cannot start: unused) */
	if (o->bpf_entries && (o->replay || (o->source_given && strcmp(o->source, "bpf"))))
		die_usage("--bpf-entries sizes the bpf source's maps: it goes with --source bpf");
	if (o->bpf_samples >= 0 && (o->replay || (o->source_given && strcmp(o->source, "bpf"))))
		die_usage("--bpf-samples is the bpf source's sampling: it goes with --source bpf");
	if (!o->source_given && (o->bpf_entries || o->bpf_samples >= 0) && (o->buffer_kb || o->no_sched))
		die_usage("--bpf-entries and --bpf-samples are the bpf source's, --buffer-kb and --no-sched "
			  "the trace source's: give --source");
	if (strcmp(o->source, "trace") && (o->buffer_kb || o->no_sched))
		die_usage("--buffer-kb and --no-sched are for tracing; --source %s does not trace",
			  o->source);
	if (!o->demo && (o->demo_loops || o->demo_report))
		die_usage("--demo-loops and --demo-report go with --demo");
	if (o->fmt.ips_only && !o->ip_slots)
		die_usage("-o %s writes the guest IPs: --ip-slots 0 keeps none", o->fmt.name);
	if (o->fmt.one_report && !o->replay && !o->iterations && !o->summary) {
		/* with --duration, the report at its end */
		if (o->delay && !o->duration)
			die_usage("-o %s writes one report: with -d, give -n N or --duration (the last is written)",
				  o->fmt.name);
		/* live: until SIGINT/SIGTERM/SIGHUP, --duration or the demo guest ends */
		if (!o->delay)
			o->summary = true;
	}
}

void options_free(struct options *o)
{
	sym_set_free(&o->syms);
	free(o->renamed);
	o->renamed = NULL;
}

void options_parse(int argc, char **argv, struct options *o, void (*keys)(FILE *f))
{
	struct option lopts[NR_OPTS + 1];
	char shorts[2 * NR_OPTS + 2] = ":", err[512];
	size_t i, n = 1;
	int c, idx;

	keys_help = keys;
	memset(o, 0, sizeof(*o));
	/* the first live source main.c gave: the KVM tracepoints */
	o->source = source_names && source_names[0] ? source_names[0] : "trace";
	if (format_at)
		format_at(0, &o->fmt);
	o->ring = MODEL_RING_DEFAULT;
	o->max_vcpus = MODEL_MAX_VCPUS;
	o->thieves = MODEL_THIEVES_DEFAULT;
	o->keep_ended = MODEL_KEEP_ENDED;
	o->demo_vcpus = 2;
	o->ip_slots = MODEL_IPS_DEFAULT;
	o->bpf_samples = -1;
	o->max_objs = MODEL_OBJS_DEFAULT;
	o->ip_top = 10;
	o->ip_kind = IP_TIME;
	memset(lopts, 0, sizeof(lopts));
	for (i = 0; i < NR_OPTS; i++) {
		lopts[i].name = opts[i].name;
		lopts[i].has_arg = opts[i].arg ? required_argument : no_argument;
		lopts[i].val = 0x100 + (int)i;
		if (opts[i].short_name) {
			shorts[n++] = opts[i].short_name;
			if (opts[i].arg)
				shorts[n++] = ':';
		}
	}
	shorts[n] = '\0';
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		if (c == ':')
			die_usage("option '%s' needs a value", argv[optind - 1]);
		for (idx = 0; idx < (int)NR_OPTS; idx++)
			if (c == 0x100 + idx || (c < 0x100 && c == opts[idx].short_name))
				break;
		if (idx == (int)NR_OPTS)
			die_usage("unknown option '%s'", argv[optind - 1]);
		if (take(o, &opts[idx], optarg, err, sizeof(err))) {
			if (opts[idx].short_name)
				die_usage("-%c: %s", opts[idx].short_name, err);
			die_usage("--%s: %s", opts[idx].name, err);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	check_combinations(o);
}
