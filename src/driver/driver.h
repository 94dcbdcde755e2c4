/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver: a source into the decoder, the model and a view.  Which
 * loop runs is the source's to say: live (loop_live.c: intervals of wall
 * time) or a recording (loop_recording.c: intervals of its own time, or
 * the screen stepping through them).  The program fills a driver_config
 * from its command line; nothing here reads the command line itself.
 */
#ifndef KVMTOP_DRIVER_H
#define KVMTOP_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sources/source.h"
#include "view.h"

/*
 * Something the driver starts once the source is open, so that tracing
 * sees it from its first exit, and whose end ends a batch run: the demo
 * guest.  The program supplies it.
 */
struct driver_workload {
	/* Start it: its pid, or -1 with one line in err. */
	pid_t (*start)(void *ctx, char *err, size_t errlen);
	/* Has it ended by itself?  1: yes (reaped, *status set), 0: no. */
	int (*ended)(pid_t pid, int *status);
	/* Stop it and reap it: 0 if it ended well. */
	int (*stop)(pid_t pid);
	void *ctx;
};

/* What the driver is asked to do. */
struct driver_config {
	double delay;			/* seconds between snapshots (-d), 0: not given */
	long long iterations;		/* snapshots to show (-n), 0: until the input ends */
	/*
	 * --duration: seconds the run lasts, 0: until the input ends.  Live,
	 * of wall time; a recording, of its time from its first event.  Its
	 * end is the input's: the last snapshot is printed as at_end.
	 */
	double duration;
	bool summary;			/* one report of the whole input (--summary) */
	unsigned int keep_ended;	/* live --summary: ended VMs kept one by one (--keep-ended) */
	unsigned int ring;		/* recent exits kept per vCPU, for a view that shows them */
	unsigned int ip_slots;		/* guest IPs kept per vCPU and kind, for a view that shows them */
	bool no_objects;		/* keep no objects (what exits touched) */
	unsigned int max_objs;		/* objects kept per vCPU (--objects) */
	unsigned int max_vcpus;		/* threads tracked */
	unsigned int thieves;		/* who ran while a vCPU waited: kept per vCPU */
	bool steal_totals;		/* ... and since the start (the metrics' stolen family) */
	bool host_latency;		/* a totals view keeps the host's latency per reason */
	const char *proc_root;		/* whose /proc names the host's threads, NULL: /proc */
	const char *sys_root;		/* whose /sys holds the VMs' taps and cgroups, NULL: /sys */
	const char *libvirt_run;	/* libvirt's status XML dir, NULL: /run/libvirt/qemu */
	const char *notice;		/* one line for the screen's message line, or NULL */
	/*
	 * Live: the source sees no VM's exits, for this reason (a host whose
	 * KVM traces none): each VM process found in /proc is listed with it.
	 */
	const char *exits_unknown;
	const struct model_filter *filter;	/* what the views show (-p, -g, --vcpu), NULL: all */
	const struct driver_workload *workload;	/* NULL: none */
	struct source_config source;	/* what the source is asked */
	/*
	 * The source to run where the one asked for cannot start (kvmtop's
	 * default, bpf: trace), said in one line; NULL: none, a failure.
	 */
	const struct source_ops *fallback;
};

/*
 * Run source ops into view v until the input ends, -n snapshots,
 * --duration, a stop signal (SIGHUP is none for a view that reopens its
 * output: view.h), a closed output or terminal, or the view quits.  0; 1 (failed,
 * said why, after the view gave the terminal back); 128 + a signal that
 * stopped a recording's batch output.
 */
int driver_run(const struct driver_config *c, const struct source_ops *ops, struct view *v);

#endif
