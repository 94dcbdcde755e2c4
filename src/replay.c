// SPDX-License-Identifier: GPL-2.0
/*
 * Replay source.  libtracecmd does the reading: headers, event formats,
 * decompression, ring-buffer pages and the merge of all CPUs in time
 * order (tracecmd_iterate_events picks the oldest record of any CPU, the
 * lowest CPU on a tie), so an exit and its entry on different CPUs pair
 * up as they happened.
 *
 * libtracecmd maps uncompressed CPU data with mmap(); touching a page
 * past the end of a cut file raises SIGBUS.  And the libraries parse a
 * file's metadata and pages with trust: a corrupt print fmt crashes
 * libtraceevent 1.7, a corrupt page crashes libtracecmd 1.3 on its own
 * error path.  The open and the reads run under a fault guard that turns
 * SIGBUS, SIGSEGV, SIGABRT, SIGFPE and SIGILL inside the libraries into
 * an error about the file; a handle a fault left half-way is never used
 * again, and kvmtop ends after saying so.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "options.h"
#include "replay.h"
#include "source.h"
#include "tracecmd_priv.h"
#include "zlib_codec.h"

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t bus_armed;

/*
 * libtraceevent's kbuffer loops for ever on some corrupt pages (an event
 * whose length does not move it on; trace-cmd report loops too).  While
 * libtracecmd reads, a 1 s timer checks that records keep coming: three
 * ticks in the library without one and the read is abandoned through the
 * same jump as SIGBUS.  Time in kvmtop's own callback (a slow pipe
 * downstream) does not count.
 */
#define REPLAY_STALL_TICKS	3
static volatile sig_atomic_t in_lib, progress, seen, stalled;

static void on_tick(int sig)
{
	(void)sig;
	if (!bus_armed || !in_lib || progress != seen) {
		seen = progress;
		stalled = 0;
		return;
	}
	if (++stalled >= REPLAY_STALL_TICKS)
		siglongjmp(bus_jmp, SIGALRM);
}

static void stall_guard(bool on, struct sigaction *old)
{
	struct itimerval it = { { 1, 0 }, { 1, 0 } };
	struct sigaction sa;

	if (on) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_tick;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, old);
		stalled = 0;
		in_lib = 1;
		setitimer(ITIMER_REAL, &it, NULL);
	} else {
		in_lib = 0;
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		sigaction(SIGALRM, old, NULL);
	}
}

static const int guarded[] = { SIGBUS, SIGSEGV, SIGABRT, SIGFPE, SIGILL };
#define NR_GUARDED	(sizeof(guarded) / sizeof(guarded[0]))

/* The jump's value: the signal (SIGALRM: the stall watchdog). */
static void on_fault(int sig)
{
	if (bus_armed)
		siglongjmp(bus_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void bus_guard(bool on, struct sigaction old[NR_GUARDED])
{
	struct sigaction sa;
	size_t i;

	if (on) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fault;
		sigemptyset(&sa.sa_mask);
		for (i = 0; i < NR_GUARDED; i++)
			sigaction(guarded[i], &sa, &old[i]);
		bus_armed = 1;
	} else {
		bus_armed = 0;
		for (i = 0; i < NR_GUARDED; i++)
			sigaction(guarded[i], &old[i], NULL);
	}
}

/* What a fault in the libraries says about the file. */
static void fault_err(const char *path, int sig, const char *where, char *err, size_t errlen)
{
	if (sig == SIGBUS)
		snprintf(err, errlen, "%s: truncated: %s ends before the file says it does", path, where);
	else
		snprintf(err, errlen, "%s: corrupt: the trace libraries crash on its %s (%s)",
			 path, where, strsignal(sig));
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

/*
 * libtracecmd reads only the parts of a file it needs, and on some cuts
 * it fails half-way through tracecmd_open() and crashes cleaning up
 * (libtracecmd 1.3.1, a version 6 file cut in its CPU data).  So before
 * handing a file over, walk its layout as the file declares it and
 * require that every part ends inside the file:
 *
 *  - version 7: a header, then sections one after another, each with a
 *    16-byte header {u16 id, u16 flags, u32 name, u64 size}; the chain
 *    must end exactly at the end of the file (the section-name strings at
 *    the end are never read by libtracecmd, so a cut there would pass);
 *  - version 6: header page and event, ftrace and event formats,
 *    kallsyms, printk, cmdlines, CPU count, options, then per CPU the
 *    {u64 offset, u64 size} of its data, which must lie inside the file
 *    (the trace clock that follows is read by libtracecmd).
 */
struct walk {
	int fd;
	const unsigned char *mem;	/* a decompressed section, read instead of fd */
	off_t pos;
	off_t size;
	bool big_endian;
	char codec[16];		/* version 7: the file's compression */
	uint64_t bad_cpu;	/* a CPU number past REPLAY_CPUS_MAX */
	const char *why;	/* what is corrupt, with -3 */
};

static int walk_read(struct walk *w, void *buf, size_t n)
{
	if ((uint64_t)(w->size - w->pos) < n)
		return -1;
	if (w->mem)
		memcpy(buf, w->mem + w->pos, n);
	else if (pread(w->fd, buf, n, w->pos) != (ssize_t)n)
		return -1;
	w->pos += n;
	return 0;
}

static int walk_skip(struct walk *w, uint64_t n)
{
	if (n > (uint64_t)(w->size - w->pos))
		return -1;
	w->pos += n;
	return 0;
}

static int walk_num(struct walk *w, int bytes, uint64_t *val)
{
	unsigned char b[8];
	int i;

	if (walk_read(w, b, bytes))
		return -1;
	*val = 0;
	for (i = 0; i < bytes; i++)
		*val |= (uint64_t)b[w->big_endian ? bytes - 1 - i : i] << (8 * i);
	return 0;
}

/* Skips a NUL-terminated string; copies its start to buf when given. */
static int walk_str(struct walk *w, char *buf, size_t len)
{
	size_t i = 0;
	char c;

	do {
		if (walk_read(w, &c, 1))
			return -1;
		if (buf && i + 1 < len)
			buf[i++] = c;
	} while (c);
	if (buf)
		buf[i] = '\0';
	return 0;
}

/* n blocks of {size (size_bytes wide), data} */
static int walk_blocks(struct walk *w, uint64_t n, int size_bytes)
{
	uint64_t len;

	while (n--)
		if (walk_num(w, size_bytes, &len) || walk_skip(w, len))
			return -1;
	return 0;
}

static int walk_v6(struct walk *w)
{
	uint64_t n, cpus, id, off, len;
	char name[16];

	/* header_page and header_event: a name, a u64 size, the text */
	if (walk_str(w, NULL, 0) || walk_blocks(w, 1, 8) || walk_str(w, NULL, 0) || walk_blocks(w, 1, 8))
		return -1;
	/* ftrace formats, then event systems each with its formats */
	if (walk_num(w, 4, &n) || walk_blocks(w, n, 8) || walk_num(w, 4, &n))
		return -1;
	while (n--) {
		uint64_t m;

		if (walk_str(w, NULL, 0) || walk_num(w, 4, &m) || walk_blocks(w, m, 8))
			return -1;
	}
	/* kallsyms, printk, cmdlines, CPU count */
	if (walk_blocks(w, 2, 4) || walk_blocks(w, 1, 8) || walk_num(w, 4, &cpus))
		return -1;
	if (cpus > REPLAY_CPUS_MAX) {
		w->bad_cpu = cpus - 1;
		return -2;
	}
	if (walk_str(w, name, sizeof(name)))
		return -1;
	if (!strncmp(name, "options", 7)) {
		for (;;) {
			if (walk_num(w, 2, &id))
				return -1;
			if (!id)
				break;
			if (walk_blocks(w, 1, 4))
				return -1;
		}
		if (walk_str(w, name, sizeof(name)))
			return -1;
	}
	if (strncmp(name, "flyrecord", 9))
		return 0;	/* latency format: text, read as it is */
	while (cpus--) {
		if (walk_num(w, 8, &off) || walk_num(w, 8, &len))
			return -1;
		/* an empty CPU may point at the page after the end */
		if (len && (off > (uint64_t)w->size || len > (uint64_t)w->size - off))
			return -1;
	}
	return 0;
}

/*
 * libtracecmd sizes its per-CPU arrays by the CPU numbers of the options
 * (CPUCOUNT, and each CPU of a BUFFER) while it opens the file: a CPU
 * numbered 5,046,272 cost 1.5 GB and 5 s before kvmtop saw the count.  In
 * each options section (id 0, decompressed first when it is compressed)
 * they are checked here first; -2 with w->bad_cpu set when one is past
 * REPLAY_CPUS_MAX.
 */
#define OPT_BUFFER	3
#define OPT_CPUCOUNT	8
#define SEC_FL_COMPRESS	1

static int walk_cpu(struct walk *w, uint64_t cpu)
{
	if (cpu < REPLAY_CPUS_MAX)
		return 0;
	w->bad_cpu = cpu;
	return -2;
}

static int walk_options(struct walk *w, uint64_t len)
{
	off_t end = w->pos + (off_t)len;
	uint64_t id, size, n, cpu;
	int ret;

	while (w->size - w->pos >= 6 && w->pos + 6 <= end) {
		off_t next;

		if (walk_num(w, 2, &id) || walk_num(w, 4, &size))
			return -1;
		next = w->pos + (off_t)size;
		if (id == OPT_CPUCOUNT && size >= 4) {
			if (walk_num(w, 4, &n))
				return -1;
			if (n && (ret = walk_cpu(w, n - 1)))
				return ret;
		} else if (id == OPT_BUFFER) {
			/* data offset, name, clock, page size, CPUs, then {cpu, offset, size} each */
			if (walk_skip(w, 8) || walk_str(w, NULL, 0) || walk_str(w, NULL, 0) ||
			    walk_skip(w, 4) || walk_num(w, 4, &n))
				return -1;
			while (n-- && w->pos + 20 <= next) {
				if (walk_num(w, 4, &cpu))
					return -1;
				if ((ret = walk_cpu(w, cpu)))
					return ret;
				if (walk_skip(w, 16))
					return -1;
			}
		}
		if (next > w->size)
			return -1;
		w->pos = next;
	}
	w->pos = end;
	return 0;
}

/*
 * A compressed section is {u32 compressed size, u32 size, data} in the
 * file's codec.  Its options are walked after decompressing them here,
 * with kvmtop's own zlib or libzstd, before libtracecmd allocates what
 * the sizes ask for.  -3 with w->why set when the section is corrupt.
 */
static int walk_compressed(struct walk *w, uint64_t len)
{
	struct walk sub = { .big_endian = w->big_endian };
	uint64_t zsize, size;
	unsigned char *in = NULL, *out = NULL;
	int ret = -1;

	if (strcmp(w->codec, "zlib") && strcmp(w->codec, "zstd"))
		return walk_skip(w, len);	/* libtracecmd refuses the codec itself */
	if (len < 8 || walk_num(w, 4, &zsize) || walk_num(w, 4, &size))
		return -1;
	if (zsize > len - 8)
		return -1;
	if (size > REPLAY_OPTIONS_MAX) {
		w->why = "its compressed options section is larger than kvmtop accepts";
		return -3;
	}
	in = malloc(zsize ? zsize : 1);
	out = malloc(size ? size : 1);
	if (!in || !out || walk_read(w, in, zsize))
		goto out_free;
	if (!strcmp(w->codec, "zlib")) {
		uLongf n = size;

		if (uncompress(out, &n, in, zsize) != Z_OK || n != size)
			goto out_corrupt;
	} else if (ZSTD_decompress(out, size, in, zsize) != size) {
		goto out_corrupt;
	}
	sub.mem = out;
	sub.size = size;
	ret = walk_options(&sub, size);
	w->bad_cpu = sub.bad_cpu;
	w->pos += len - 8 - zsize;
	goto out_free;
out_corrupt:
	w->why = "its compressed options section does not decompress";
	ret = -3;
out_free:
	free(in);
	free(out);
	return ret;
}

static int walk_v7(struct walk *w)
{
	uint64_t id, flags, len;
	int ret;

	/* compression name and version, offset of the first options */
	if (walk_str(w, w->codec, sizeof(w->codec)) || walk_str(w, NULL, 0) || walk_skip(w, 8))
		return -1;
	while (w->pos < w->size) {
		if (walk_num(w, 2, &id) || walk_num(w, 2, &flags) || walk_skip(w, 4) || walk_num(w, 8, &len))
			return -1;
		if (len > (uint64_t)(w->size - w->pos))
			return -1;
		if (id == 0 && !(flags & SEC_FL_COMPRESS))
			ret = walk_options(w, len);
		else if (id == 0)
			ret = walk_compressed(w, len);
		else
			ret = walk_skip(w, len);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_layout(const char *path, char *err, size_t errlen)
{
	struct walk w = { .pos = 10 };	/* after the magic */
	uint64_t endian;
	struct stat st;
	char ver[8];
	int ret = -1;

	w.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (w.fd < 0 || fstat(w.fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_close;
	}
	w.size = st.st_size;
	/* version string, endianness, long size, page size */
	if (walk_str(&w, ver, sizeof(ver)) || walk_num(&w, 1, &endian) || walk_skip(&w, 1 + 4))
		goto out_cut;
	w.big_endian = endian;
	ret = !strcmp(ver, "6") ? walk_v6(&w) : !strcmp(ver, "7") ? walk_v7(&w) : 0;
	if (ret == -2) {
		ret = -1;
		snprintf(err, errlen, "%s: corrupt: it names CPU %llu; kvmtop reads recordings of 0 to %d CPUs",
			 path, (unsigned long long)w.bad_cpu, REPLAY_CPUS_MAX);
		goto out_close;
	}
	if (ret == -3) {
		ret = -1;
		snprintf(err, errlen, "%s: corrupt: %s", path, w.why);
		goto out_close;
	}
	if (ret)
		goto out_cut;
	goto out_close;
out_cut:
	ret = -1;
	snprintf(err, errlen, "%s: truncated: a part ends past the end of the file", path);
out_close:
	if (w.fd >= 0)
		close(w.fd);
	return ret;
}

/*
 * The unit of a recording's timestamps, from its clock's name (the
 * kernel's trace_clock list), not from libtracecmd's in-usecs flag alone:
 * that flag calls uptime's jiffies nanoseconds and boot's nanoseconds
 * counts.  Only x86-tsc needs the flag: trace-cmd converts it to ns
 * (tsc2nsec) when it saved the factors.  A clock not in the list counts
 * in units kvmtop does not know.
 */
static void set_clock(struct replay *r)
{
	static const char *const ns_clocks[] = {
		"local", "global", "mono", "mono_raw", "boot", "tai", "perf", "tsc2nsec",
	};
	const char *clock = tracecmd_get_trace_clock(r->handle);
	unsigned long flags = tracecmd_get_flags(r->handle);
	size_t i;

	if (!clock)
		clock = "local";
	r->ns = false;
	r->time_unit = "counts";
	if (!strcmp(clock, "x86-tsc") || !strcmp(clock, "tsc")) {
		if (flags & TRACECMD_FL_IN_USECS) {
			clock = "tsc2nsec";
			r->ns = true;
		} else {
			r->time_unit = "cycles";
		}
	}
	for (i = 0; i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++)
		if (!strcmp(clock, ns_clocks[i]))
			r->ns = true;
	if (r->ns)
		r->time_unit = "ns";
	strlcpy(r->clock, clock, sizeof(r->clock));
}

int replay_open(struct replay *r, const char *path, char *err, size_t errlen)
{
	struct sigaction old[NR_GUARDED];
	int sig;
	const char *ver;

	memset(r, 0, sizeof(*r));
	r->path = path;
	if (check_magic(path, err, errlen) || check_layout(path, err, errlen))
		return -1;
	if (zlib_codec_register()) {
		snprintf(err, errlen, "cannot register the zlib codec with libtracecmd");
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);

	bus_guard(true, old);
	sig = sigsetjmp(bus_jmp, 1);
	if (sig) {
		bus_guard(false, old);
		fault_err(path, sig, sig == SIGBUS ? "data" : "headers and formats", err, errlen);
		return -1;
	}
	r->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	bus_guard(false, old);
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
	if (r->cpus < 0 || r->cpus > REPLAY_CPUS_MAX) {
		/* checked by the walk already; libtracecmd may count otherwise */
		snprintf(err, errlen, "%s: corrupt: it says it has %d CPUs; kvmtop reads recordings of 0 to %d",
			 path, r->cpus, REPLAY_CPUS_MAX);
		replay_close(r);
		return -1;
	}
	r->last_off = calloc(r->cpus ? r->cpus : 1, sizeof(*r->last_off));
	if (!r->last_off) {
		snprintf(err, errlen, "out of memory");
		replay_close(r);
		return -1;
	}
	set_clock(r);
	return 0;
}

struct run_ctx {
	replay_fn fn;
	void *ctx;
	struct replay *r;
};

/*
 * On some corrupt pages libtracecmd hands out records of negative size
 * whose offsets go back, for ever (27 million a second, no memory grown).
 * A CPU's records lie one after the other in its data: an offset that does
 * not grow, a CPU the file does not have or a negative size is corrupt.
 */
static int check_record(struct replay *r, const struct tep_record *rec)
{
	if (rec->cpu < 0 || rec->cpu >= r->cpus)
		snprintf(r->bad, sizeof(r->bad), "a record of CPU %d, of %d", rec->cpu, r->cpus);
	else if (rec->size < 0 || rec->record_size < 0)
		snprintf(r->bad, sizeof(r->bad), "a record of size %d at offset %llu (CPU %d)",
			 rec->size, rec->offset, rec->cpu);
	else if (r->last_off[rec->cpu] && rec->offset <= r->last_off[rec->cpu])
		snprintf(r->bad, sizeof(r->bad), "CPU %d's records go back from offset %llu to %llu",
			 rec->cpu, r->last_off[rec->cpu], rec->offset);
	else {
		r->last_off[rec->cpu] = rec->offset;
		return 0;
	}
	return -1;
}

static int run_cb(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct run_ctx *rc = data;
	int ret;

	in_lib = 0;
	progress++;
	if (check_record(rc->r, rec))
		return -1;
	ret = rc->fn(rec, rc->ctx) ? -1 : 0;
	in_lib = 1;
	return ret;
}

int replay_run(struct replay *r, replay_fn fn, void *ctx, char *err, size_t errlen)
{
	struct run_ctx rc = { fn, ctx, r };
	struct sigaction old[NR_GUARDED], old_alrm;
	int ret;

	if (r->stuck || r->bad[0]) {
		snprintf(err, errlen, "%s: corrupt: its events cannot be read", r->path);
		return -1;
	}
	bus_guard(true, old);
	stall_guard(true, &old_alrm);
	ret = sigsetjmp(bus_jmp, 1);
	if (ret) {
		stall_guard(false, &old_alrm);
		bus_guard(false, old);
		/* libtracecmd's state is half-way through a page: never touched again */
		r->stuck = true;
		if (ret == SIGALRM)
			snprintf(err, errlen,
				 "%s: corrupt: libtracecmd read for %d s without an event (a page it loops on)",
				 r->path, REPLAY_STALL_TICKS);
		else
			fault_err(r->path, ret, "event data", err, errlen);
		return -1;
	}
	ret = tracecmd_iterate_events(r->handle, NULL, 0, run_cb, &rc);
	stall_guard(false, &old_alrm);
	bus_guard(false, old);
	if (r->bad[0]) {
		snprintf(err, errlen, "%s: corrupt: %s", r->path, r->bad);
		return -1;
	}
	if (ret >= 0 && zlib_codec_failures()) {
		snprintf(err, errlen, "%s: truncated or corrupt: %lu compressed block(s) cannot be read",
			 r->path, zlib_codec_failures());
		return -1;
	}
	return ret < 0 ? 1 : 0;
}

void replay_close(struct replay *r)
{
	if (r->handle && !r->stuck)
		tracecmd_close(r->handle);
	free(r->last_off);
	r->last_off = NULL;
	r->handle = NULL;
}

const char *replay_comm(struct replay *r, int tid)
{
	if (!tep_is_pid_registered(r->tep, tid))
		return NULL;
	return tep_data_comm_from_pid(r->tep, tid);
}

/* --- the source: a trace-cmd recording --- */

static int src_open(struct source *s, const struct options *o, struct kvm_names *names,
		    char *err, size_t errlen)
{
	struct replay *rp = s->priv;

	(void)names;	/* the decoder names what the formats hold */
	if (replay_open(rp, o->replay, err, errlen))
		return -1;
	/* after replay_open, which starts rp afresh */
	if (o->threads && ident_threads_load(&rp->threads, o->threads, err, errlen)) {
		replay_close(rp);
		return -1;
	}
	s->tep = rp->tep;
	s->file = o->replay;
	strlcpy(s->clock, rp->clock, sizeof(s->clock));
	s->time_unit = rp->time_unit;
	s->ns = rp->ns;
	s->live = false;
	return 0;
}

static int src_read(struct source *s, source_rec_fn fn, void *ctx, char *err, size_t errlen)
{
	return replay_run(s->priv, fn, ctx, err, errlen);
}

static void src_ident(struct source *s, int tid, struct ident_info *out)
{
	struct replay *rp = s->priv;
	const char *comm = replay_comm(rp, tid);

	/*
	 * A trace-cmd recording has no thread -> process map: the
	 * --threads snapshot's, else a kernel thread by its name, else the
	 * guess by tid - vCPU id (kvmtop(1), "Recordings").
	 */
	strlcpy(out->comm, comm ? comm : "", sizeof(out->comm));
	if (ident_threads_find(rp->threads, tid, out))
		return;
	out->kernel = comm && ident_kernel_comm(comm);
	if (out->kernel)
		return;
	ident_guess(tid, out->comm, out->vcpu_hint, out);
}

static void src_close(struct source *s)
{
	struct replay *rp = s->priv;

	replay_close(rp);
	ident_threads_free(rp->threads);
	rp->threads = NULL;
}

const struct source_ops source_replay = {
	.name = "replay",
	.priv_size = sizeof(struct replay),
	.open = src_open,
	.read = src_read,
	.ident = src_ident,
	.close = src_close,
};
