// SPDX-License-Identifier: GPL-2.0
/*
 * make bench's ceiling for replay: the least a reader of a trace-cmd
 * recording can do for kvmtop's main figures.  The file's layout comes
 * from kvmtop's own replay_check.c and its event formats from libtracecmd
 * (read once); then every CPU's pages are walked with libtraceevent's
 * kbuffer over an mmap of the file, merged by timestamp, and per thread
 * and exit reason the exits are counted and the exit -> entry latencies
 * summed into power-of-two buckets.  No record is allocated and no field
 * looked up per event.  It prints what it counted, for make bench to
 * hold against kvmtop's own figures of the same file.  With -r it only
 * walks and merges the pages, reading no record's fields: the floor that
 * any reader through kbuffer pays, whatever it does with the events.
 *
 *	ceiling [-r] FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event-parse.h>
#include <kbuffer.h>
#include <trace-cmd/trace-cmd.h>

#include "sources/replay_layout.h"

#define THREADS		65536	/* slots of the thread table, a power of two */
#define REASONS		64	/* distinct exit reasons kept per thread */

struct thread {
	int tid;
	unsigned int nr;
	uint64_t exit_ts;	/* of an exit waiting for its entry, 0: none */
	struct { uint32_t reason; uint64_t n; } r[REASONS];
};

struct cpu_cursor {
	struct kbuffer *kb;
	const unsigned char *map;
	uint64_t off, end;
	unsigned int page;
	void *data;
	unsigned long long ts;
};

static struct thread *threads;
static uint64_t exits, entries, pairs, lat_sum, events, lat_hist[64];

static struct thread *thread_of(int tid)
{
	unsigned int i = ((unsigned int)tid * 2654435761u) & (THREADS - 1);

	while (threads[i].tid && threads[i].tid != tid)
		i = (i + 1) & (THREADS - 1);
	threads[i].tid = tid;
	return &threads[i];
}

/* The cursor's next event, on this page or the next with one: 0 at the CPU's end. */
static int next_page(struct cpu_cursor *c)
{
	while (c->off + c->page <= c->end) {
		kbuffer_load_subbuffer(c->kb, (void *)(c->map + c->off));
		c->off += c->page;
		c->data = kbuffer_read_event(c->kb, &c->ts);
		if (c->data)
			return 1;
	}
	c->data = NULL;
	return 0;
}

static void advance(struct cpu_cursor *c)
{
	c->data = kbuffer_next_event(c->kb, &c->ts);
	if (!c->data)
		next_page(c);
}

static int field_off(struct tep_event *e, const char *name, int common, int *size)
{
	struct tep_format_field *f = common ? tep_find_common_field(e, name) : tep_find_field(e, name);

	if (!f)
		return -1;
	*size = f->size;
	return f->offset;
}

int main(int argc, char **argv)
{
	struct replay_layout l;
	struct cpu_cursor *cur;
	struct tracecmd_input *h;
	struct tep_handle *tep;
	struct tep_event *ex, *en;
	int type_off, pid_off, reason_off, sz, fd;
	unsigned int i, n;
	char err[512];
	struct stat st;
	const unsigned char *map;
	int walk_only = argc == 3 && !strcmp(argv[1], "-r");

	if (argc != 2 && !walk_only) {
		fprintf(stderr, "usage: ceiling [-r] FILE\n");
		return 2;
	}
	argv += walk_only;
	if (replay_layout(argv[1], &l, err, sizeof(err))) {
		fprintf(stderr, "ceiling: %s\n", err);
		return 1;
	}
	if (l.compressed || !l.nr_cpus || l.big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
		fprintf(stderr, "ceiling: %s: compressed, without CPU pages or of the other byte order\n", argv[1]);
		return 1;
	}
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	tep = h ? tracecmd_get_tep(h) : NULL;
	ex = tep ? tep_find_event_by_name(tep, "kvm", "kvm_exit") : NULL;
	en = tep ? tep_find_event_by_name(tep, "kvm", "kvm_entry") : NULL;
	if (!ex || !en) {
		fprintf(stderr, "ceiling: %s: no kvm_exit and kvm_entry formats\n", argv[1]);
		return 1;
	}
	type_off = field_off(ex, "common_type", 1, &sz);
	pid_off = field_off(ex, "common_pid", 1, &sz);
	reason_off = field_off(ex, "exit_reason", 0, &sz);
	if (type_off < 0 || pid_off < 0 || reason_off < 0 || sz != 4) {
		fprintf(stderr, "ceiling: %s: kvm_exit has no 4-byte exit_reason\n", argv[1]);
		return 1;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		perror("ceiling");
		return 1;
	}
	threads = calloc(THREADS, sizeof(*threads));
	cur = calloc(l.nr_cpus, sizeof(*cur));
	if (!threads || !cur)
		return 1;
	for (i = 0, n = 0; i < l.nr_cpus; i++) {
		struct cpu_cursor *c = &cur[n];

		c->kb = kbuffer_alloc(l.long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				      l.big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		c->map = map;
		c->off = l.cpus[i].offset;
		c->end = l.cpus[i].offset + l.cpus[i].size;
		c->page = l.page_size;
		if (c->kb && next_page(c))
			n++;
	}
	for (;;) {
		struct cpu_cursor *c = NULL;
		const unsigned char *d;
		uint16_t type;

		/* the CPU whose next event is the oldest */
		for (i = 0; i < n; i++)
			if (cur[i].data && (!c || cur[i].ts < c->ts))
				c = &cur[i];
		if (!c)
			break;
		d = c->data;
		events++;
		if (walk_only) {
			advance(c);
			continue;
		}
		memcpy(&type, d + type_off, sizeof(type));
		if (type == ex->id || type == en->id) {
			int32_t tid;
			struct thread *t;

			memcpy(&tid, d + pid_off, sizeof(tid));
			t = thread_of(tid);
			if (type == ex->id) {
				uint32_t reason;
				unsigned int k;

				memcpy(&reason, d + reason_off, sizeof(reason));
				exits++;
				for (k = 0; k < t->nr && t->r[k].reason != reason; k++)
					;
				if (k == t->nr && t->nr < REASONS)
					t->r[t->nr++].reason = reason;
				if (k < REASONS)
					t->r[k].n++;
				t->exit_ts = c->ts;
			} else {
				entries++;
				if (t->exit_ts && c->ts >= t->exit_ts) {
					uint64_t lat = c->ts - t->exit_ts;

					pairs++;
					lat_sum += lat;
					lat_hist[lat ? 63 - __builtin_clzll(lat) : 0]++;
				}
				t->exit_ts = 0;
			}
		}
		advance(c);
	}
	printf("events %llu exits %llu entries %llu pairs %llu latency_sum %llu\n",
	       (unsigned long long)events, (unsigned long long)exits, (unsigned long long)entries,
	       (unsigned long long)pairs, (unsigned long long)lat_sum);
	return 0;
}
