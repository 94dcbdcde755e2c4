// SPDX-License-Identifier: GPL-2.0
/*
 * Replay source.  libtracecmd does the reading: headers, event formats,
 * decompression, ring-buffer pages and the merge of all CPUs in time
 * order (tracecmd_iterate_events picks the oldest record of any CPU, the
 * lowest CPU on a tie), so an exit and its entry on different CPUs pair
 * up as they happened.
 *
 * libtracecmd maps uncompressed CPU data with mmap(); touching a page
 * past the end of a cut file raises SIGBUS.  The reads run under a
 * SIGBUS guard that turns that into an error about the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "tracecmd_priv.h"
#include "zlib_codec.h"

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

static void on_sigbus(int sig)
{
	if (bus_armed)
		siglongjmp(bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void bus_guard(bool on, struct sigaction *old)
{
	struct sigaction sa;

	if (on) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_sigbus;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, old);
		bus_armed = 1;
	} else {
		bus_armed = 0;
		sigaction(SIGBUS, old, NULL);
	}
}

/* trace-cmd files start with "\027\010\104tracing". */
static int check_magic(const char *path, char *err, size_t errlen)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char buf[sizeof(magic)];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: is a directory, not a trace-cmd recording", path);
		return -1;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != (ssize_t)sizeof(buf) || memcmp(buf, magic, sizeof(buf))) {
		snprintf(err, errlen, "%s: not a trace-cmd recording (bad magic)", path);
		return -1;
	}
	return 0;
}

static void set_clock(struct replay *r)
{
	const char *clock = tracecmd_get_trace_clock(r->handle);
	unsigned long flags = tracecmd_get_flags(r->handle);

	if (!clock)
		clock = "local";
	r->ns = flags & TRACECMD_FL_IN_USECS;
	/* trace-cmd recorded x86-tsc and saved the factors to convert it */
	if (r->ns && !strcmp(clock, "x86-tsc"))
		clock = "tsc2nsec";
	strlcpy(r->clock, clock, sizeof(r->clock));
	if (r->ns)
		r->time_unit = "ns";
	else if (!strcmp(clock, "x86-tsc") || !strcmp(clock, "tsc"))
		r->time_unit = "cycles";
	else
		r->time_unit = "counts";
}

int replay_open(struct replay *r, const char *path, char *err, size_t errlen)
{
	struct sigaction old;
	const char *ver;

	memset(r, 0, sizeof(*r));
	r->path = path;
	if (check_magic(path, err, errlen))
		return -1;
	if (zlib_codec_register()) {
		snprintf(err, errlen, "cannot register the zlib codec with libtracecmd");
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);

	bus_guard(true, &old);
	if (sigsetjmp(bus_jmp, 1)) {
		bus_guard(false, &old);
		snprintf(err, errlen, "%s: truncated: data ends before the file says it does", path);
		return -1;
	}
	r->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	bus_guard(false, &old);
	if (!r->handle) {
		snprintf(err, errlen,
			 "%s: cannot read this trace-cmd recording (truncated, corrupt, or compressed with an unknown codec)",
			 path);
		return -1;
	}
	r->tep = tracecmd_get_tep(r->handle);
	tep_set_loglevel(TEP_LOG_NONE);
	r->file_version = tracecmd_get_in_file_version(r->handle);
	if (tracecmd_get_file_compress_proto(r->handle, &r->compression, &ver))
		r->compression = NULL;
	r->cpus = tracecmd_cpus(r->handle);
	set_clock(r);
	return 0;
}

struct run_ctx {
	replay_fn fn;
	void *ctx;
};

static int run_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct run_ctx *rc = data;

	return rc->fn(rec, rc->ctx) ? -1 : 0;
}

int replay_run(struct replay *r, replay_fn fn, void *ctx, char *err, size_t errlen)
{
	struct run_ctx rc = { fn, ctx };
	struct sigaction old;
	int ret;

	bus_guard(true, &old);
	if (sigsetjmp(bus_jmp, 1)) {
		bus_guard(false, &old);
		snprintf(err, errlen, "%s: truncated: event data ends before the file says it does",
			 r->path);
		return -1;
	}
	ret = tracecmd_iterate_events(r->handle, NULL, 0, run_cb, &rc);
	bus_guard(false, &old);
	if (ret >= 0 && zlib_codec_failures()) {
		snprintf(err, errlen, "%s: truncated or corrupt: %lu compressed block(s) cannot be read",
			 r->path, zlib_codec_failures());
		return -1;
	}
	return ret < 0 ? 1 : 0;
}

void replay_close(struct replay *r)
{
	if (r->handle)
		tracecmd_close(r->handle);
	r->handle = NULL;
}

const char *replay_comm(struct replay *r, int tid)
{
	if (!tep_is_pid_registered(r->tep, tid))
		return NULL;
	return tep_data_comm_from_pid(r->tep, tid);
}
