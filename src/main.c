// SPDX-License-Identifier: GPL-2.0
/*
 * kvmtop: top for KVM exits.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "batch.h"
#include "demo.h"
#include "driver.h"
#include "model.h"
#include "options.h"
#include "source.h"
#include "tui.h"


enum {
	OPT_SUMMARY = 0x100,
	OPT_RING,
	OPT_BUFFER_KB,
	OPT_DEMO,
	OPT_DEMO_VCPUS,
	OPT_DEMO_LOOPS,
	OPT_DEMO_REPORT,
	OPT_SOURCE,
	OPT_DEBUGFS,
	OPT_ASCII,
	OPT_IP_SLOTS,
	OPT_IP_TOP,
	OPT_IP_KIND,
	OPT_GUEST_KALLSYMS,
	OPT_GUEST_MAP,
	OPT_GUEST_KASLR,
};

static const struct option long_opts[] = {
	{ "batch",	no_argument,		NULL, 'b' },
	{ "iterations",	required_argument,	NULL, 'n' },
	{ "delay",	required_argument,	NULL, 'd' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "replay",	required_argument,	NULL, 'r' },
	{ "summary",	no_argument,		NULL, OPT_SUMMARY },
	{ "ring",	required_argument,	NULL, OPT_RING },
	{ "buffer-kb",	required_argument,	NULL, OPT_BUFFER_KB },
	{ "demo",	no_argument,		NULL, OPT_DEMO },
	{ "demo-vcpus",	required_argument,	NULL, OPT_DEMO_VCPUS },
	{ "demo-loops",	required_argument,	NULL, OPT_DEMO_LOOPS },
	{ "demo-report", required_argument,	NULL, OPT_DEMO_REPORT },
	{ "source",	required_argument,	NULL, OPT_SOURCE },
	{ "debugfs",	required_argument,	NULL, OPT_DEBUGFS },
	{ "no-color",	no_argument,		NULL, 'C' },
	{ "ascii",	no_argument,		NULL, OPT_ASCII },
	{ "ip-slots",	required_argument,	NULL, OPT_IP_SLOTS },
	{ "ip-top",	required_argument,	NULL, OPT_IP_TOP },
	{ "ip-kind",	required_argument,	NULL, OPT_IP_KIND },
	{ "guest-kallsyms", required_argument,	NULL, OPT_GUEST_KALLSYMS },
	{ "guest-map",	required_argument,	NULL, OPT_GUEST_MAP },
	{ "guest-kaslr", required_argument,	NULL, OPT_GUEST_KASLR },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: kvmtop [options]              the screen, live from this host\n"
"       kvmtop -r FILE [options]      the screen, on a trace-cmd recording\n"
"       kvmtop -b [-r FILE] [options] batch reports instead of the screen\n"
"Show KVM exits per VM, vCPU and exit reason, with exit-handling latency.\n"
"\n"
"  -b, --batch           batch mode: print snapshots instead of the screen\n"
"  -r, --replay FILE     read a trace-cmd recording (trace.dat, v6/v7,\n"
"                        compressed with zlib or zstd or not)\n"
"  -n, --iterations N    stop after N snapshots\n"
"  -d, --delay SECS      one snapshot every SECS seconds (live: of wall time,\n"
"                        default 3; with -r: of recording time, and without\n"
"                        -d a replay prints one summary)\n"
"  -o, --output FMT      text (default), csv, json (JSON Lines) or folded\n"
"                        (guest IPs as 'vm;vcpu;mode;symbol count' lines for\n"
"                        flamegraph.pl or speedscope, written once, at the end)\n"
"      --summary         one report for the whole input (live: until\n"
"                        SIGINT/SIGTERM/SIGHUP, or the demo guest ends)\n"
"      --ring N          keep the last N exits per vCPU (default %d)\n"
"      --buffer-kb N     live: trace buffer per CPU in KiB (default: sized\n"
"                        for the 100 ms drain tick, 3200)\n"
"      --source SRC      live: trace (default: the KVM tracepoints) or\n"
"                        debugfs (KVM's counters in debugfs, as kvm_stat:\n"
"                        per VM only, no latencies; for hosts where tracing\n"
"                        is not possible)\n"
"      --debugfs DIR     with --source debugfs: read DIR/kvm instead of the\n"
"                        system's debugfs (a copy of it, or a test tree)\n"
"      --demo            start kvmtop's own small guest and watch it live;\n"
"                        without /dev/kvm: say so, and show kvmtop's sample\n"
"                        recording (kvmtop-sample.dat) as with -r\n"
"      --demo-vcpus N    its vCPUs (1 to %d, default 2)\n"
"      --demo-loops N    loops per vCPU, then it ends (default: until kvmtop\n"
"                        stops); a loop is out, MMIO store, cpuid, rdmsr, hlt\n"
"      --demo-report FILE  the demo guest writes its own exit counts there\n"
"      --demo-guest ...  internal: the demo guest process itself, as --demo\n"
"                        starts it (kvmtop(1) gives its arguments)\n"
"      --ip-slots N      guest IPs kept per vCPU, each of time samples and\n"
"                        exit sites (default %d, at most %d; 0: none)\n"
"      --ip-top N        text and JSON: the N most counted IPs of each kind\n"
"                        per VM and vCPU (default 10; 0: none)\n"
"      --ip-kind KIND    -o folded writes time samples (time, default: where\n"
"                        the guest runs) or exit sites (exit: per reason)\n"
"      --guest-kallsyms [VM=]FILE  symbols of VM (a name or host pid; none:\n"
"                        every VM) from a copy of its /proc/kallsyms\n"
"      --guest-map [VM=]FILE  the same from its kernel's System.map\n"
"      --guest-kaslr [VM=]OFFSET|[VM=]_text=ADDR  VM's KASLR offset, or the\n"
"                        running guest's _text address to infer it from\n"
"  -C, --no-color        the screen without colours (also with NO_COLOR set)\n"
"      --ascii           the screen without UTF-8 drawing characters\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Latencies are exit -> next entry of the same vCPU thread, in ns (a\n"
"recording with an unconverted TSC clock: in cycles).  Live tracing needs\n"
"root (or CAP_PERFMON and tracefs access) and uses its own trace instance.\n"
"Guest IPs are sampled from the exits: those of asynchronous exits (external\n"
"interrupt, timers) say where the guest runs, the others which guest code\n"
"makes it exit; counts are since the start or the last reset.\n"
"Keys on the screen: arrows/PgUp/PgDn/Home/End move, Enter opens (VM ->\n"
"vCPUs -> exit reasons -> recent exits), Esc goes back, Tab switches (reasons,\n"
"recent exits, guest IPs), < > F6 sort, I inverts, / filters, t time samples\n"
"or exit sites, g IPs by symbol, p pauses, d delay, r reset, c cumulative,\n"
"[ ] replay intervals, h ? F1 help, q F10 quit.\n"
"Environment: NO_COLOR (no colours), KVMTOP_DRAW_STATS=FILE (the screen's\n"
"redraw times, written to FILE at the end).\n"
"See kvmtop(1) for the output fields.\n", MODEL_RING_DEFAULT, DEMO_MAX_VCPUS,
		MODEL_IPS_DEFAULT, MODEL_IPS_MAX);
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

static void parse_options(int argc, char **argv, struct options *o)
{
	char err[512];
	const char *errstr;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->fmt = BATCH_TEXT;
	o->ring = MODEL_RING_DEFAULT;
	o->demo_vcpus = 2;
	o->ip_slots = MODEL_IPS_DEFAULT;
	o->ip_top = 10;
	o->ip_kind = IP_TIME;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":bn:d:o:r:hVC", long_opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->batch = true;
			break;
		case 'n':
			o->iterations = strtonum(optarg, 1, 1000000000, &errstr);
			if (errstr)
				die_usage("-n: iterations '%s' must be a whole number from 1", optarg);
			break;
		case 'd':
			errno = 0;
			o->delay = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->delay) ||
			    o->delay < 0.001 || o->delay > 86400)
				die_usage("-d: delay '%s' must be seconds from 0.001 to 86400", optarg);
			break;
		case 'o':
			o->fmt_given = true;
			if (batch_format_parse(optarg, &o->fmt))
				die_usage("-o: unknown output format '%s' (text, csv, json or folded)", optarg);
			break;
		case 'r':
			o->replay = optarg;
			break;
		case OPT_SUMMARY:
			o->summary = true;
			break;
		case OPT_RING:
			o->ring = strtonum(optarg, 0, 1 << 20, &errstr);
			if (errstr)
				die_usage("--ring: '%s' must be a number of exits from 0 to 1048576", optarg);
			break;
		case OPT_BUFFER_KB:
			o->buffer_kb = strtonum(optarg, 64, 4 << 20, &errstr);
			if (errstr)
				die_usage("--buffer-kb: '%s' must be KiB from 64 to 4194304", optarg);
			break;
		case OPT_DEMO:
			o->demo = true;
			break;
		case OPT_DEMO_VCPUS:
			o->demo_vcpus = strtonum(optarg, 1, DEMO_MAX_VCPUS, &errstr);
			if (errstr)
				die_usage("--demo-vcpus: '%s' must be from 1 to %d", optarg, DEMO_MAX_VCPUS);
			break;
		case OPT_DEMO_LOOPS:
			o->demo_loops = strtonum(optarg, 1, 1000000000000LL, &errstr);
			if (errstr)
				die_usage("--demo-loops: '%s' must be a whole number from 1", optarg);
			break;
		case OPT_DEMO_REPORT:
			o->demo_report = optarg;
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "trace"))
				o->source = SOURCE_TRACE;
			else if (!strcmp(optarg, "debugfs"))
				o->source = SOURCE_DEBUGFS;
			else
				die_usage("--source: unknown source '%s' (trace or debugfs)", optarg);
			break;
		case OPT_DEBUGFS:
			o->debugfs_root = optarg;
			break;
		case 'C':
			o->mono = true;
			break;
		case OPT_ASCII:
			o->ascii = true;
			break;
		case OPT_IP_SLOTS:
			o->ip_slots = strtonum(optarg, 0, MODEL_IPS_MAX, &errstr);
			if (errstr)
				die_usage("--ip-slots: '%s' must be a number of IPs from 0 to %d", optarg,
					  MODEL_IPS_MAX);
			break;
		case OPT_IP_TOP:
			o->ip_top = strtonum(optarg, 0, 1000000, &errstr);
			if (errstr)
				die_usage("--ip-top: '%s' must be a number of IPs from 0 to 1000000", optarg);
			break;
		case OPT_IP_KIND:
			if (!strcmp(optarg, "time"))
				o->ip_kind = IP_TIME;
			else if (!strcmp(optarg, "exit"))
				o->ip_kind = IP_EXIT;
			else
				die_usage("--ip-kind: unknown kind '%s' (time or exit)", optarg);
			break;
		case OPT_GUEST_KALLSYMS:
		case OPT_GUEST_MAP:
		case OPT_GUEST_KASLR:
			if (c == OPT_GUEST_KASLR ? sym_set_kaslr(&o->syms, optarg, err, sizeof(err)) :
			    sym_set_add(&o->syms, optarg, c == OPT_GUEST_MAP ? SYM_MAP : SYM_KALLSYMS,
					err, sizeof(err)))
				die_usage("%s: %s", argv[optind - 1], err);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("kvmtop %s\n", PACKAGE_VERSION);
			exit(0);
		case ':':
			die_usage("option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			die_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die_usage("unexpected argument '%s'", argv[optind]);
	if (o->summary && (o->iterations || o->delay))
		die_usage("%s: --summary is one report; it takes no -n or -d", "--summary");
	if (o->demo && o->replay)
		die_usage("--demo watches a live guest; it cannot go with -r");
	if (!o->batch && (o->fmt_given || o->summary))
		die_usage("-o and --summary are for batch output: add -b");
	if (o->replay && (o->source != SOURCE_TRACE || o->debugfs_root))
		die_usage("--source and --debugfs choose a live source; they cannot go with -r");
	if (o->debugfs_root && o->source != SOURCE_DEBUGFS)
		die_usage("--debugfs goes with --source debugfs");
	if (o->source == SOURCE_DEBUGFS && o->buffer_kb)
		die_usage("--buffer-kb sizes trace buffers; --source debugfs has none");
	if (!o->demo && (o->demo_loops || o->demo_report))
		die_usage("--demo-loops and --demo-report go with --demo");
	if (o->fmt == BATCH_FOLDED && !o->ip_slots)
		die_usage("-o folded writes the guest IPs: --ip-slots 0 keeps none");
	if (o->fmt == BATCH_FOLDED && !o->replay && !o->iterations && !o->summary) {
		if (o->delay)
			die_usage("-o folded writes one report: with -d, give -n N (the last is written)");
		/* live: until SIGINT/SIGTERM/SIGHUP or the demo guest ends */
		o->summary = true;
	}
}

/*
 * --demo on a host without /dev/kvm (no KVM, or the module loaded without
 * its device): say so, and show kvmtop's sample recording in the same
 * views instead, with its guest symbols.  --demo-loops and --demo-report
 * ask for the live guest itself: those fail as before.  0, or 1 (said why).
 */
static int demo_without_kvm(struct options *o)
{
	static char dat[4096], syms[4200], line[4400];
	const char *why;
	char err[512];

	if (!access("/dev/kvm", R_OK | W_OK) || o->demo_loops || o->demo_report)
		return 0;
	why = strerror(errno);
	if (demo_sample(dat, sizeof(dat))) {
		fprintf(stderr, "kvmtop: --demo needs /dev/kvm (%s), and the sample recording %s is missing\n",
			why, dat);
		return 1;
	}
	snprintf(line, sizeof(line), "--demo needs /dev/kvm (%s): this is kvmtop's sample recording instead",
		 why);
	fprintf(stderr, "kvmtop: %s, %s\n", line, dat);
	o->notice = line;
	o->demo = false;
	o->replay = dat;
	snprintf(syms, sizeof(syms), "%.*s%s", (int)(strlen(dat) - strlen(DEMO_SAMPLE)), dat,
		 DEMO_SAMPLE_SYMS);
	if (!o->syms.nr && !access(syms, R_OK) &&
	    sym_set_add(&o->syms, syms, SYM_KALLSYMS, err, sizeof(err))) {
		fprintf(stderr, "kvmtop: %s: %s\n", syms, err);
		return 1;
	}
	return 0;
}

/* The source the options name, into the view they ask for. */
static int run(struct options *o)
{
	const struct source_ops *src = o->replay ? &source_replay :
				       o->source == SOURCE_DEBUGFS ? &source_debugfs : &source_trace;
	struct tui_config c = {
		.mono = o->mono, .ascii = o->ascii, .delay = o->delay, .syms = &o->syms,
	};
	struct batch b;
	struct tui t;

	if (o->batch) {
		batch_view_init(&b, o);
		return driver_run(o, src, &b.view);
	}
	return driver_run(o, src, tui_view(&t, &c));
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	int ret;

	/* the demo guest's own process: see demo.h */
	if (argc > 1 && !strcmp(argv[1], "--demo-guest"))
		return demo_guest_main(argc, argv);
	parse_options(argc, argv, &o);
	if (o.demo && demo_without_kvm(&o)) {
		sym_set_free(&o.syms);
		return 1;
	}
	if (sym_set_load(&o.syms, err, sizeof(err))) {
		fprintf(stderr, "kvmtop: %s\n", err);
		sym_set_free(&o.syms);
		return 1;
	}
	ret = run(&o);
	sym_set_free(&o.syms);
	return ret;
}
