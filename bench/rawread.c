// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's bare reader: the least a live KVM tracer can do.  In its
 * own instance (kvmtop-bench-raw) with the kvm events, the mono clock and
 * kvmtop's default buffer, it reads every CPU's trace_pipe_raw a page at
 * a time every 100 ms, as kvmtop does, and decodes nothing: it counts
 * pages, bytes of event data and pages flagged with missed events.  It
 * stops on SIGINT and removes its instance.  Plain syscalls, no library.
 *
 * Built with -DWALK_KBUFFER (and -ltraceevent) it also walks every event
 * of every page with libtraceevent's kbuffer, as kvmtop must, and counts
 * them: the floor that library sets under any decoder.
 *
 *	rawread TRACEFS BUFFER_KB
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef WALK_KBUFFER
#include <kbuffer.h>
#endif

#define MAX_CPUS	1024
#define MISSED_FLAGS	(3ULL << 30)	/* RB_MISSED_EVENTS | RB_MISSED_STORED */

static volatile sig_atomic_t stop;

static void on_int(int sig)
{
	(void)sig;
	stop = 1;
}

static int put(const char *dir, const char *file, const char *val)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static char page[65536];
	unsigned long long pages = 0, bytes = 0, missed = 0, events = 0;
	char inst[256], path[512];
	int fds[MAX_CPUS], ncpu, cpu;
	struct timespec tick = { 0, 100 * 1000000 };
	long psize = sysconf(_SC_PAGESIZE);

	if (argc != 3)
		return 2;
	snprintf(inst, sizeof(inst), "%s/instances/kvmtop-bench-raw", argv[1]);
	if (mkdir(inst, 0755) && errno != EEXIST) {
		perror(inst);
		return 1;
	}
	signal(SIGINT, on_int);
	signal(SIGTERM, on_int);
	put(inst, "tracing_on", "0");
	put(inst, "buffer_size_kb", argv[2]);
	put(inst, "trace_clock", "mono");
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu > MAX_CPUS)
		ncpu = MAX_CPUS;
	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", inst, cpu);
		fds[cpu] = open(path, O_RDONLY | O_NONBLOCK);
	}
	put(inst, "events/kvm/enable", "1");
	put(inst, "tracing_on", "1");
	while (!stop) {
		nanosleep(&tick, NULL);
		for (cpu = 0; cpu < ncpu; cpu++) {
			ssize_t n;

			while (fds[cpu] >= 0 && (n = read(fds[cpu], page, psize)) > 0) {
				uint64_t commit;

				memcpy(&commit, page + 8, sizeof(commit));	/* after the u64 timestamp */
				pages++;
				bytes += commit & ~MISSED_FLAGS & 0xffffffffULL;
				missed += !!(commit & MISSED_FLAGS);
#ifdef WALK_KBUFFER
				{
					static struct kbuffer *kb;
					unsigned long long ts;
					void *ev;

					if (!kb)
						kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 :
								   KBUFFER_LSIZE_4,
								   __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
								   KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
					if (!kb || kbuffer_load_subbuffer(kb, page) < 0)
						continue;
					for (ev = kbuffer_read_event(kb, &ts); ev;
					     ev = kbuffer_next_event(kb, &ts))
						events += kbuffer_event_size(kb) > 0;
				}
#endif
			}
		}
	}
	put(inst, "tracing_on", "0");
	put(inst, "events/kvm/enable", "0");
	for (cpu = 0; cpu < ncpu; cpu++)
		if (fds[cpu] >= 0)
			close(fds[cpu]);
	rmdir(inst);
	printf("{\"pages\": %llu, \"bytes\": %llu, \"pages_missed\": %llu, \"events\": %llu}\n",
	       pages, bytes, missed, events);
	return 0;
}
