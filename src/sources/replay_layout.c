// SPDX-License-Identifier: GPL-2.0
/*
 * A trace-cmd recording's layout, checked before libtracecmd reads it
 * (replay.c): its magic, and every part the file declares ending inside
 * the file, with the CPU numbers and compressed options kvmtop can take.
 * Plain reads of the file (and kvmtop's own zlib or libzstd for a
 * compressed options section): nothing here trusts the trace libraries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "replay_layout.h"

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
	uint64_t file_size;	/* the file's (size: a decompressed section's when mem is) */
	bool big_endian;
	char codec[16];		/* version 7: the file's compression */
	uint64_t bad_cpu;	/* a CPU number past REPLAY_CPUS_MAX */
	const char *why;	/* what is corrupt, with -3 */
	struct replay_layout *out;	/* replay_layout(): the CPUs' pages, or NULL */
};

/* CPU cpu's pages at [off, off + len) into w->out: 0, or -1 (no memory). */
static int walk_out_cpu(struct walk *w, uint64_t cpu, uint64_t off, uint64_t len, unsigned int max)
{
	struct replay_layout *l = w->out;

	if (!l)
		return 0;
	if (!l->cpus && !(l->cpus = calloc(max ? max : 1, sizeof(*l->cpus))))
		return -1;
	if (l->nr_cpus >= max)
		return 0;
	l->cpus[l->nr_cpus++] = (struct replay_cpu_data){ (int)cpu, off, len };
	return 0;
}

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

#define OPT_DATE	1
#define OPT_BUFFER	3
#define OPT_OFFSET	7
#define OPT_CPUCOUNT	8
#define OPT_TIME_SHIFT	12
#define OPT_TSC2NSEC	14
#define SEC_FL_COMPRESS	1

/*
 * An option libtracecmd applies to every timestamp it reads, whose len
 * bytes are next: into replay_layout's time_options or tsc_ (the
 * factors: {s32 mult, s32 shift, u64 offset}, which libtracecmd takes
 * when there are 16 bytes or more).  w->pos is left where it was.
 */
static int walk_time_option(struct walk *w, uint64_t id, uint64_t len)
{
	off_t at = w->pos;
	uint64_t mult, shift;

	if (!w->out)
		return 0;
	if (id == OPT_DATE || id == OPT_OFFSET || id == OPT_TIME_SHIFT)
		w->out->time_options = 1;
	if (id == OPT_DATE)
		w->out->date = 1;
	if (id != OPT_TSC2NSEC || len < 16)
		return 0;
	if (walk_num(w, 4, &mult) || walk_num(w, 4, &shift))
		return -1;
	w->out->tsc_mult = (unsigned int)mult;
	w->out->tsc_shift = (unsigned int)shift;
	w->pos = at;
	return 0;
}

#define SEC_HEADER_INFO	16	/* the sections of the parts below, version 7 */
#define SEC_FTRACE_EVENTS	17
#define SEC_EVENT_FORMATS	18
#define SEC_KALLSYMS	19
#define SEC_PRINTK	20
#define SEC_CMDLINES	21

/* Section id holds a part of the metadata (walk_part knows it). */
static bool is_part(uint64_t id)
{
	return id >= SEC_HEADER_INFO && id <= SEC_CMDLINES;
}

/*
 * The parts of the file's metadata, each as both versions hold it
 * (version 7 in a section of its own): every size inside what holds it.
 */
static int walk_part(struct walk *w, uint64_t id)
{
	uint64_t n, m;

	switch (id) {
	case SEC_HEADER_INFO:
		/* header_page and header_event: a name, a u64 size, the text */
		return walk_str(w, NULL, 0) || walk_blocks(w, 1, 8) || walk_str(w, NULL, 0) ||
		       walk_blocks(w, 1, 8) ? -1 : 0;
	case SEC_FTRACE_EVENTS:
		return walk_num(w, 4, &n) || walk_blocks(w, n, 8) ? -1 : 0;
	case SEC_EVENT_FORMATS:
		/* event systems, each a name and its formats */
		if (walk_num(w, 4, &n))
			return -1;
		while (n--)
			if (walk_str(w, NULL, 0) || walk_num(w, 4, &m) || walk_blocks(w, m, 8))
				return -1;
		return 0;
	case SEC_KALLSYMS:
	case SEC_PRINTK:
		return walk_blocks(w, 1, 4);
	case SEC_CMDLINES:
		return walk_blocks(w, 1, 8);
	}
	return 0;
}

static int walk_v6(struct walk *w)
{
	uint64_t cpus, id, off, len;
	char name[16];

	for (id = SEC_HEADER_INFO; id <= SEC_CMDLINES; id++)
		if (walk_part(w, id))
			return -1;
	/* the CPU count */
	if (walk_num(w, 4, &cpus))
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
			if (walk_num(w, 4, &len) || walk_time_option(w, id, len) || walk_skip(w, len))
				return -1;
		}
		if (walk_str(w, name, sizeof(name)))
			return -1;
	}
	if (strncmp(name, "flyrecord", 9))
		return 0;	/* latency format: text, read as it is */
	for (id = 0; id < cpus; id++) {
		if (walk_num(w, 8, &off) || walk_num(w, 8, &len))
			return -1;
		/* an empty CPU may point at the page after the end */
		if (len && (off > (uint64_t)w->size || len > (uint64_t)w->size - off))
			return -1;
		if (walk_out_cpu(w, id, off, len, (unsigned int)cpus)) {
			w->why = "no memory for its CPUs";
			return -3;
		}
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
		if (size <= (uint64_t)(w->size - w->pos) && walk_time_option(w, id, size))
			return -1;
		if (id == OPT_CPUCOUNT && size >= 4) {
			if (walk_num(w, 4, &n))
				return -1;
			if (n && (ret = walk_cpu(w, n - 1)))
				return ret;
		} else if (id == OPT_BUFFER) {
			/* data offset, name, clock, page size, CPUs, then {cpu, offset, size} each */
			char name[2];
			uint64_t off, sz, nr;

			if (walk_skip(w, 8) || walk_str(w, name, sizeof(name)) || walk_str(w, NULL, 0) ||
			    walk_skip(w, 4) || walk_num(w, 4, &n))
				return -1;
			/* the top instance's ("") pages, not another instance's */
			for (nr = n; n-- && w->pos + 20 <= next;) {
				if (walk_num(w, 4, &cpu))
					return -1;
				if ((ret = walk_cpu(w, cpu)))
					return ret;
				if (walk_num(w, 8, &off) || walk_num(w, 8, &sz))
					return -1;
				if (!name[0] && sz && (off > w->file_size || sz > w->file_size - off))
					return -1;
				if (!name[0] && walk_out_cpu(w, cpu, off, sz, (unsigned int)nr)) {
					w->why = "no memory for its CPUs";
					return -3;
				}
			}
		}
		if (next > w->size)
			return -1;
		w->pos = next;
	}
	w->pos = end;
	return 0;
}

/* zsize bytes of codec's (zlib or zstd) at in, that must give size bytes, into out: 0 or -1. */
static int walk_unzip(const char *codec, unsigned char *out, uint64_t size, const unsigned char *in,
		      uint64_t zsize)
{
	if (!strcmp(codec, "zlib")) {
		uLongf n = size;

		return uncompress(out, &n, in, zsize) == Z_OK && n == size ? 0 : -1;
	}
	return ZSTD_decompress(out, size, in, zsize) == size ? 0 : -1;
}

/*
 * A compressed section is {u32 compressed size, u32 size, data} in the
 * file's codec.  Its options, or the metadata part it holds, are walked
 * after decompressing them here, with kvmtop's own zlib or libzstd:
 * libtracecmd reads such a part from memory with the sizes it holds and
 * copies a negative length when one runs past its end (libtracecmd 1.3,
 * a 4-byte section whose size became 2^32 - 1).  -3 with w->why set when
 * the section is corrupt.
 */
static int walk_compressed(struct walk *w, uint64_t id, uint64_t len)
{
	struct walk sub = { .big_endian = w->big_endian, .file_size = w->file_size, .out = w->out };
	uint64_t zsize, size;
	unsigned char *in = NULL, *out = NULL;
	int ret = -1;

	if (strcmp(w->codec, "zlib") && strcmp(w->codec, "zstd"))
		return walk_skip(w, len);	/* libtracecmd refuses the codec itself */
	if (len < 8 || walk_num(w, 4, &zsize) || walk_num(w, 4, &size))
		return -1;
	if (zsize > len - 8)
		return -1;
	if (size > (id ? REPLAY_PART_MAX : REPLAY_OPTIONS_MAX)) {
		w->why = id ? "a compressed section of its metadata is larger than kvmtop accepts" :
			      "its compressed options section is larger than kvmtop accepts";
		return -3;
	}
	in = malloc(zsize ? zsize : 1);
	out = malloc(size ? size : 1);
	if (!in || !out || walk_read(w, in, zsize))
		goto out_free;
	if (walk_unzip(w->codec, out, size, in, zsize))
		goto out_corrupt;
	sub.mem = out;
	sub.size = size;
	if (!id) {
		ret = walk_options(&sub, size);
	} else if (walk_part(&sub, id)) {
		w->why = "a compressed section of its metadata holds less than its sizes say";
		ret = -3;
	} else {
		ret = 0;
	}
	w->bad_cpu = sub.bad_cpu;
	if (sub.why)
		w->why = sub.why;
	w->pos += len - 8 - zsize;
	goto out_free;
out_corrupt:
	w->why = id ? "a compressed section of its metadata does not decompress" :
		      "its compressed options section does not decompress";
	ret = -3;
out_free:
	free(in);
	free(out);
	return ret;
}

/* An uncompressed section of len bytes: a metadata part must end inside it. */
static int walk_section(struct walk *w, uint64_t id, uint64_t len)
{
	off_t end = w->pos + (off_t)len;

	if (!is_part(id))
		return walk_skip(w, len);
	if (walk_part(w, id) || w->pos > end) {
		w->why = "a section of its metadata holds less than its sizes say";
		return -3;
	}
	w->pos = end;
	return 0;
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
		if (flags & SEC_FL_COMPRESS)
			ret = id == 0 || is_part(id) ? walk_compressed(w, id, len) : walk_skip(w, len);
		else if (id == 0)
			ret = walk_options(w, len);
		else
			ret = walk_section(w, id, len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A compressed file's CPU data is {u32 chunks, then each chunk {u32
 * compressed size, u32 size, data}}.  libtracecmd decompresses each
 * CPU's first chunk while it opens the file, and when that fails it
 * prints its own two lines ("mmap: ...", "Can not mmap file, will read
 * instead") to stderr and then crashes reading on (libtracecmd 3.1.6).
 * So each CPU's first chunk is decompressed here first.  0, -1 (a part
 * past the end), -3 with w->why set (it does not decompress).
 */
static int walk_first_chunks(struct walk *w, const struct replay_layout *l)
{
	unsigned char *in = NULL, *out = NULL;
	uint64_t n, zsize, size;
	unsigned int i;
	int ret = 0;

	if (strcmp(w->codec, "zlib") && strcmp(w->codec, "zstd"))
		return 0;	/* libtracecmd refuses the codec itself */
	for (i = 0; i < l->nr_cpus && !ret; i++) {
		const struct replay_cpu_data *c = &l->cpus[i];

		if (!c->size)
			continue;
		/* the size a CPU's option gives leaves out the count: reads go to the file's end */
		w->pos = (off_t)c->offset;
		w->size = (off_t)w->file_size;
		if (walk_num(w, 4, &n) || (n && (walk_num(w, 4, &zsize) || walk_num(w, 4, &size) ||
						 zsize > (uint64_t)(w->size - w->pos)))) {
			ret = -1;
			break;
		}
		if (!n)
			continue;
		if (size > REPLAY_PART_MAX) {
			w->why = "a CPU's first compressed chunk is larger than kvmtop accepts";
			ret = -3;
			break;
		}
		in = malloc(zsize ? zsize : 1);
		out = malloc(size ? size : 1);
		if (!in || !out) {
			w->why = "no memory for a CPU's first compressed chunk";
			ret = -3;
		} else if (walk_read(w, in, zsize)) {
			ret = -1;
		} else if (walk_unzip(w->codec, out, size, in, zsize)) {
			w->why = "a CPU's first compressed chunk of events does not decompress";
			ret = -3;
		}
		free(in);
		free(out);
		in = out = NULL;
	}
	return ret;
}

static int check_layout(const char *path, struct replay_layout *l, char *err, size_t errlen)
{
	struct walk w = { .pos = 10, .out = l };	/* after the magic */
	uint64_t endian, long_size, page_size;
	struct stat st;
	char ver[8];
	int ret = -1;

	w.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (w.fd < 0 || fstat(w.fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out_close;
	}
	w.size = st.st_size;
	w.file_size = (uint64_t)st.st_size;
	/* version string, endianness, long size, page size */
	if (walk_str(&w, ver, sizeof(ver)) || walk_num(&w, 1, &endian))
		goto out_cut;
	w.big_endian = endian;
	if (walk_num(&w, 1, &long_size) || walk_num(&w, 4, &page_size))
		goto out_cut;
	if (l) {
		l->version = atoi(ver);
		l->big_endian = (int)endian;
		l->long_size = (unsigned int)long_size;
		l->page_size = (unsigned int)page_size;
	}
	ret = !strcmp(ver, "6") ? walk_v6(&w) : !strcmp(ver, "7") ? walk_v7(&w) : 0;
	if (!ret && l && l->cpus && w.codec[0] && strcmp(w.codec, "none"))
		ret = walk_first_chunks(&w, l);
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
	if (l)
		l->compressed = w.codec[0] && strcmp(w.codec, "none");
	goto out_close;
out_cut:
	ret = -1;
	snprintf(err, errlen, "%s: truncated: a part ends past the end of the file", path);
out_close:
	if (w.fd >= 0)
		close(w.fd);
	return ret;
}

int replay_layout(const char *path, struct replay_layout *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	if (!check_magic(path, err, errlen) && !check_layout(path, l, err, errlen))
		return 0;
	replay_layout_free(l);
	return -1;
}

void replay_layout_free(struct replay_layout *l)
{
	free(l->cpus);
	l->cpus = NULL;
	l->nr_cpus = 0;
}
