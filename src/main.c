// SPDX-License-Identifier: GPL-2.0
/*
 * kvmtop: top for KVM exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "outputs/batch.h"
#include "demo.h"
#include "driver/driver.h"
#include "outputs/export.h"
#include "model/model.h"
#include "options.h"
#include "tables.h"
#include "sources/replay.h"
#include "sources/source.h"
#include "sources/trace.h"
#include "ui/tui.h"


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

/*
 * No --source: the bpf source, where it is built in and nothing asks for
 * tracing (--buffer-kb, --no-sched, KVMTOP_NO_BPF=1); the driver falls
 * back to trace where it cannot start or its first exits differ from
 * tracefs's.
 */
static bool bpf_by_default(const struct options *o)
{
#ifdef HAVE_BPF
	const char *no = getenv("KVMTOP_NO_BPF");

	return !o->source_given && !(no && !strcmp(no, "1")) && !o->buffer_kb && !o->no_sched;
#else
	(void)o;
	return false;
#endif
}

/*
 * Live, on a host whose KVM raises no kvm_exit or kvm_entry (PVM): tracing
 * would show its VMs without a single exit.  Unless --source was given,
 * KVM's statistics are the source there; either way one line says so.
 * Elsewhere, with no --source, bpf (bpf_by_default()).
 */
static void source_for_host(struct options *o)
{
	static char line[256];
	char mod[32];

	if (o->replay || strcmp(o->source, "trace"))
		return;
	if (!trace_exitless_kvm(NULL, mod, sizeof(mod))) {
		o->bpf_default = bpf_by_default(o);
		if (o->bpf_default)
			o->source = "bpf";
		return;
	}
	if (o->source_given) {
		static char why[160];

		snprintf(line, sizeof(line), "this host's KVM (%s) traces no VM exits (no kvm_exit, kvm_entry): "
			 "--source stats counts them", mod);
		/* its VMs are listed all the same, each saying so */
		snprintf(why, sizeof(why), "no exit events: this host's KVM (%s) traces none "
			 "(--source stats counts them)", mod);
		o->exits_unknown = why;
	} else {
		snprintf(line, sizeof(line), "this host's KVM (%s) traces no VM exits (no kvm_exit, kvm_entry): "
			 "these are KVM's statistics (--source stats)", mod);
		o->source = "stats";
	}
	fprintf(stderr, "kvmtop: %s\n", line);
	if (!o->notice)
		o->notice = line;
}

/* The metrics options of the command line, over the outputs' defaults. */
static void metrics_config(const struct options *o, struct metrics_opts *mo)
{
	metrics_opts_init(mo);
	mo->per_vcpu = o->metrics.per_vcpu;
	mo->stolen = o->metrics.stolen;
	mo->identity = o->metrics.identity;
	mo->objects = o->metrics.objects;
	/* the options' order: host, vm, vcpu */
	mo->latency = o->metrics.latency == 2 ? ML_VCPU : o->metrics.latency == 1 ? ML_VM : ML_HOST;
	if (o->metrics.nr_le) {
		memcpy(mo->le_ns, o->metrics.le_ns, o->metrics.nr_le * sizeof(mo->le_ns[0]));
		mo->nr_le = o->metrics.nr_le;
	}
}

/* What batch output is asked for on the command line. */
static void batch_config(const struct options *o, const struct metrics_opts *mo, struct batch_config *c)
{
	*c = (struct batch_config){
		.fmt = batch_format_find(o->fmt.name), .summary = o->summary, .delay = o->delay,
		.iterations = o->iterations, .syms = &o->syms,
		.ip_top = o->ip_slots ? o->ip_top : 0, .folded_kind = o->ip_kind,
		.metrics = mo, .output = o->output,
		.sort = o->sort, .fields = o->fields, .zero = o->zero,
	};
}

/* --demo: kvmtop's own guest, started by the driver once tracing is on. */
static pid_t demo_workload_start(void *ctx, char *err, size_t errlen)
{
	const struct options *o = ctx;

	return demo_start(o->demo_vcpus, o->demo_loops, o->demo_report, err, errlen);
}

/* What the views show: -p, -g, --vcpu. */
static void filter_config(const struct options *o, struct model_filter *f)
{
	*f = (struct model_filter){
		.pids = o->pids, .nr_pids = o->nr_pids,
		.names = o->names, .nr_names = o->nr_names,
		.vcpus = o->vcpus, .nr_vcpus = o->nr_vcpus,
	};
}

/* What the driver and the source are asked, from the command line. */
static void driver_config(const struct options *o, const struct model_filter *f, struct driver_config *c,
			  struct driver_workload *w)
{
	*w = (struct driver_workload){
		.start = demo_workload_start, .ended = demo_ended, .stop = demo_stop, .ctx = (void *)o,
	};
	*c = (struct driver_config){
		.delay = o->delay, .iterations = o->iterations, .summary = o->summary, .duration = o->duration,
		.keep_ended = o->keep_ended, .ring = o->ring, .ip_slots = o->ip_slots, .max_vcpus = o->max_vcpus,
		.no_objects = o->no_objects, .max_objs = o->max_objs,
		.thieves = o->thieves,
		/* the metrics' stolen family counts since the start */
		.steal_totals = o->metrics.stolen,
		/* the metrics' host-wide latency (--metrics-latency host, the options' first) */
		.host_latency = o->metrics.latency == 0,
		.proc_root = o->proc_root, .sys_root = o->sys_root, .libvirt_run = o->libvirt_run, .notice = o->notice, .filter = f,
		.exits_unknown = o->exits_unknown,
		.workload = o->demo ? w : NULL,
		.source = {
			.file = o->replay, .threads = o->threads, .buffer_kb = o->buffer_kb,
			.bpf_entries = o->bpf_entries,
			.bpf_samples = o->bpf_samples < 0 ? OPT_BPF_SAMPLES : (unsigned int)o->bpf_samples,
			.no_sched = o->no_sched, .debugfs_root = o->debugfs_root, .proc_root = o->proc_root,
			.bpf_check_ms = o->bpf_default ? OPT_BPF_CHECK_MS : 0,
		},
		.fallback = o->bpf_default ? &source_trace : NULL,
	};
}

/*
 * KVMTOP_SCREEN_JSON=FILE (kvmtop(1), ENVIRONMENT; a test's): the screen
 * appends to FILE the JSON line of -b -o json for each snapshot it draws,
 * over the span and in the mode it shows.
 */
static void screen_dump(struct tui_config *c, struct batch *b, struct batch_config *bc)
{
	const char *path = getenv("KVMTOP_SCREEN_JSON");

	if (!path || !path[0])
		return;
	memset(bc, 0, sizeof(*bc));
	bc->fmt = batch_format_find("json");
	bc->output = path;
	c->dump = batch_view_init(b, bc);
	c->dump_print = batch_dump;
}

/* The source the options name, into the view they ask for. */
static int run(struct options *o)
{
	const struct source_ops *src = o->replay ? &source_replay : source_find(o->source);
	struct tui_config c = {
		.mono = o->mono, .ascii = o->ascii, .delay = o->delay, .syms = &o->syms,
		.sort = o->sort, .fields = o->fields, .no_mouse = o->no_mouse,
		.config = o->config, .no_config = o->no_config,
	};
	struct driver_workload w;
	struct model_filter f;
	struct driver_config dc;
	struct metrics_opts mo;
	struct batch_config bc;
	struct export e;
	struct batch b;
	struct tui t;
	int ret;

	filter_config(o, &f);
	driver_config(o, &f, &dc, &w);
	metrics_config(o, &mo);
	if (o->listen) {
		ret = driver_run(&dc, src, export_view(&e, o->listen, &mo));
		e.view.ops->stop(e.view.ctx);
		return ret;
	}
	if (o->batch) {
		batch_config(o, &mo, &bc);
		return driver_run(&dc, src, batch_view_init(&b, &bc));
	}
	screen_dump(&c, &b, &bc);
	return driver_run(&dc, src, tui_view(&t, &c));
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	int ret;

	/* the demo guest's own process: see demo.h */
	if (argc > 1 && !strcmp(argv[1], "--demo-guest"))
		return demo_guest_main(argc, argv);
	options_tables();
	options_parse(argc, argv, &o, tui_keys_help);
	/* the screen without a terminal it can drive: one line, before anything is started */
	if (!o.batch && !o.listen && tui_usable(err, sizeof(err))) {
		fprintf(stderr, "kvmtop: %s\n", err);
		options_free(&o);
		return 1;
	}
	if (o.demo && demo_without_kvm(&o)) {
		options_free(&o);
		return 1;
	}
	source_for_host(&o);
	if (sym_set_load(&o.syms, err, sizeof(err))) {
		fprintf(stderr, "kvmtop: %s\n", err);
		options_free(&o);
		return 1;
	}
	ret = run(&o);
	if (replay_faulted()) {
		/* said why already, the view stopped: no destructor runs on a corrupt heap */
		fflush(stdout);
		fflush(stderr);
		_exit(ret ? ret : 1);
	}
	options_free(&o);
	return ret;
}
