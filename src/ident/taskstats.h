/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Taskstats exit records (taskstats.c): what the kernel says of each
 * thread as it ends -- its CPU, I/O, major faults and peak memory to its
 * end -- read from a generic-netlink socket registered for every CPU's
 * records (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK), atop's way.  A pure
 * reader: no model, no VM; the samplers decide whose records count.
 */
#ifndef KVMTOP_IDENT_TASKSTATS_H
#define KVMTOP_IDENT_TASKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One thread's exit record, in plain units. */
struct ts_exit {
	int pid;		/* the thread that ended (its tid) */
	int tgid;		/* its process (ac_tgid; the AGGR_TGID's where the record is too old to hold it) */
	bool group_dead;	/* the record came with its process's own: the last thread of it */
	uint64_t utime_us;	/* ac_utime: user CPU, µs (tick-sampled) */
	uint64_t stime_us;	/* ac_stime */
	/*
	 * Delay accounting's (sched): its time on a CPU (cpu_run_virtual_total,
	 * the sum schedstat's first figure gives) and waiting for one
	 * (cpu_delay_total, schedstat's second), ns.  Without delay accounting
	 * (kernel.task_delayacct 0) the kernel fills neither: sched false.
	 */
	bool sched;
	uint64_t run_ns;
	uint64_t wait_ns;
	uint64_t majflt;	/* ac_majflt */
	/*
	 * Its own /proc/TID/io's figures at its end, each rounded down to a
	 * multiple of 1024 by the kernel (xacct_add_tsk()): the bytes (counted
	 * in pages) are whole, the calls are not.
	 */
	uint64_t read_bytes;
	uint64_t write_bytes;
	uint64_t read_syscalls;	/* syscr, rounded */
	uint64_t write_syscalls;	/* syscw, rounded */
	uint64_t hiwater_rss;	/* its memory's peak resident size, bytes (0: no memory of its own, a kernel thread) */
	char comm[32];		/* raw: escape before printing */
};

/* The socket and what it counted. */
struct ts_sock {
	int fd;			/* -1: not open */
	uint16_t family;	/* TASKSTATS' generic-netlink id */
	uint64_t records;	/* exit records read */
	uint64_t drops;		/* times the kernel dropped some (ENOBUFS: the socket overran) */
	uint32_t seq;
	char *buf;		/* a datagram being read (TS_BUF) */
};

/* A datagram is read whole into this many bytes (an exit record is about 800). */
#define TS_BUF	(64 * 1024)

/*
 * Open the socket, find TASKSTATS' family and register for the exit
 * records of every possible CPU (cpus: a cpulist such as "0-7", NULL:
 * /sys/devices/system/cpu/possible's).  0, or -1 with one line in err
 * (no CAP_NET_ADMIN, a kernel without CONFIG_TASKSTATS, another PID
 * namespace than the first); ts->fd stays -1 then.
 */
int taskstats_open(struct ts_sock *ts, const char *cpus, char *err, size_t len);
/* Close the socket (it is deregistered with it); a closed one is left as it is. */
void taskstats_close(struct ts_sock *ts);
/*
 * The exit records in the datagram buf of len bytes, from family, into
 * out (at most max): the number of them, or -1 when the datagram is
 * malformed (a length past its end).  Messages of another family, acks
 * and records without a thread's stats are left out.
 */
ssize_t taskstats_parse(const void *buf, size_t len, uint16_t family, struct ts_exit *out, size_t max);
/*
 * The records waiting on the socket, without blocking, at most max into
 * out: their number (0: none, or the socket is closed).  A drop the
 * kernel reports (ENOBUFS) is counted in ts->drops, and reading goes on.
 */
size_t taskstats_drain(struct ts_sock *ts, struct ts_exit *out, size_t max);

#endif
