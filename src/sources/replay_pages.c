// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's ring-buffer pages read in place.  libtracecmd's record
 * path costs a malloc, a free and a peek per record, a fifth of a replay
 * (issue 30).  Here each CPU's stretch of the file is mapped a window at
 * a time, its pages walked with libtraceevent's kbuffer (set up as
 * libtracecmd sets up its own: the file's long size and byte order, the
 * old page format when the formats say so), and the CPUs merged as
 * tracecmd_iterate_events merges them: the oldest record first, the
 * lowest CPU on a tie.  One tep_record, filled as libtracecmd fills its
 * own, is handed out for each.
 *
 * Only for files whose pages hold the recording's times (uncompressed, no
 * date, offset or guest time shift; TSC counts are converted to ns by
 * the file's factors as libtracecmd converts them), with CPUs numbered
 * as libtracecmd numbers them and whole pages: replay.c keeps libtracecmd
 * for the rest.  A page's
 * header is checked before kbuffer reads it (a commit past the page
 * makes kbuffer read past it) and each record must end inside its page,
 * so that the decoder never reads outside the page either.  Faults and
 * kbuffer loops are replay.c's guards' (this runs under them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <event-parse.h>
#include <kbuffer.h>

#include "replay_pages.h"

/* Mapped per CPU at a time: a window of its data, smaller with many CPUs. */
#define PAGES_WINDOW_MAX	(1u << 20)
#define PAGES_WINDOW_MIN	(64u << 10)
#define PAGES_MAPPED_MAX	(64ull << 20)

/* The page header's commit word (kernel's ring_buffer.c) */
#define PAGE_COMMIT_MASK	((1u << 27) - 1)
#define PAGE_MISSED		(1ull << 31)
#define PAGE_MISSED_STORED	(1ull << 30)

struct page_cursor {
	struct kbuffer *kb;
	int cpu;
	unsigned long long next;	/* file offset of the next page to load */
	unsigned long long end;		/* of the CPU's data */
	unsigned long long page_off;	/* of the loaded page */
	const unsigned char *page;	/* the loaded page, inside the window */
	unsigned char *win;		/* the mapped window, or NULL */
	unsigned long long win_off;
	size_t win_len;
	void *data;			/* the next record's, NULL: none left */
	unsigned long long ts;
	int missed;			/* the loaded page's first record: events lost before it */
};

struct replay_pages {
	int fd;
	unsigned int page_size;
	unsigned int long_size;		/* of the page header's commit word */
	int big_endian;
	unsigned int tsc_mult, tsc_shift;	/* TSC2NSEC's factors, mult 0: none */
	size_t window;			/* bytes mapped per CPU at most */
	bool started;
	unsigned int nr;		/* all cursors */
	unsigned int nr_live;		/* with records left, in CPU order */
	struct page_cursor *c;
	struct page_cursor **live;
	struct tep_record rec;
};

/* Can these pages be read here? 0, or 1 with libtracecmd to read them. */
static int pages_fit(const struct replay_layout *l, int cpus)
{
	unsigned int i;

	if (l->compressed || l->time_options || !l->cpus || !l->nr_cpus || (int)l->nr_cpus > cpus)
		return 1;
	/* version 6: libtracecmd reads as many CPUs' pages as it counts (an option may change it) */
	if (l->version < 7 && (int)l->nr_cpus != cpus)
		return 1;
	/* libtracecmd's factors as it uses them: a mult it would sign-extend, a shift past 32 */
	if (l->tsc_mult > INT32_MAX || l->tsc_shift > 32)
		return 1;
	if (l->page_size < 64 || l->page_size > PAGES_WINDOW_MAX || (l->page_size & (l->page_size - 1)))
		return 1;
	/* version 6 lists every CPU, 0 to n - 1; version 7 those with data, each below n */
	for (i = 0; i < l->nr_cpus; i++)
		if (l->cpus[i].cpu < 0 || l->cpus[i].cpu >= cpus || l->cpus[i].size % l->page_size ||
		    (l->version < 7 && l->cpus[i].cpu != (int)i))
			return 1;
	return 0;
}

int replay_pages_open(struct replay_pages **out, const char *path, const struct replay_layout *l,
		      struct tep_handle *tep, int cpus, char *err, size_t errlen)
{
	struct replay_pages *p;
	unsigned long long win;
	unsigned int i;

	*out = NULL;
	if (pages_fit(l, cpus))
		return 1;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto out_nomem;
	p->fd = -1;
	p->nr = l->nr_cpus;
	p->c = calloc(p->nr, sizeof(*p->c));
	p->live = calloc(p->nr, sizeof(*p->live));
	if (!p->c || !p->live)
		goto out_nomem_free;
	p->page_size = l->page_size;
	/* as libtracecmd: the header page's commit field says how long a long is, else the file */
	p->long_size = tep_get_header_page_size(tep);
	if (p->long_size != 4 && p->long_size != 8)
		p->long_size = l->long_size == 4 ? 4 : 8;
	p->big_endian = l->big_endian;
	p->tsc_mult = l->tsc_mult;
	p->tsc_shift = l->tsc_shift;
	win = PAGES_MAPPED_MAX / p->nr;
	win = win > PAGES_WINDOW_MAX ? PAGES_WINDOW_MAX : win < PAGES_WINDOW_MIN ? PAGES_WINDOW_MIN : win;
	p->window = (size_t)(win / p->page_size ? win / p->page_size : 1) * p->page_size;
	for (i = 0; i < p->nr; i++) {
		struct page_cursor *c = &p->c[i];

		c->kb = kbuffer_alloc(p->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				      l->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		if (!c->kb)
			goto out_nomem_free;
		if (tep_is_old_format(tep))
			kbuffer_set_old_format(c->kb);
		c->cpu = l->cpus[i].cpu;
		c->next = l->cpus[i].offset;
		c->end = l->cpus[i].offset + l->cpus[i].size;
	}
	p->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		replay_pages_close(p);
		return -1;
	}
	*out = p;
	return 0;
out_nomem_free:
	replay_pages_close(p);
out_nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

void replay_pages_close(struct replay_pages *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; p->c && i < p->nr; i++) {
		if (p->c[i].win)
			munmap(p->c[i].win, p->c[i].win_len);
		kbuffer_free(p->c[i].kb);
	}
	if (p->fd >= 0)
		close(p->fd);
	free(p->c);
	free(p->live);
	free(p);
}

/* The page at c->next, mapped: 0, or -1 with why in bad. */
static int map_page(struct replay_pages *p, struct page_cursor *c, char *bad, size_t badlen)
{
	unsigned long long off = c->next;

	if (!c->win || off + p->page_size > c->win_off + c->win_len) {
		unsigned long long start = off & ~((unsigned long long)sysconf(_SC_PAGESIZE) - 1);
		size_t len = p->window + (size_t)(off - start);

		if (len > c->end - start)
			len = (size_t)(c->end - start);
		if (c->win)
			munmap(c->win, c->win_len);
		c->win = mmap(NULL, len, PROT_READ, MAP_PRIVATE, p->fd, (off_t)start);
		if (c->win == MAP_FAILED) {
			c->win = NULL;
			snprintf(bad, badlen, "CPU %d's pages at offset %llu cannot be mapped (%s)",
				 c->cpu, off, strerror(errno));
			return -1;
		}
		c->win_off = start;
		c->win_len = len;
	}
	c->page = c->win + (off - c->win_off);
	c->page_off = off;
	c->next = off + p->page_size;
	return 0;
}

static unsigned long long read_long(const struct replay_pages *p, const unsigned char *b)
{
	unsigned long long v = 0;
	unsigned int i;

	for (i = 0; i < p->long_size; i++)
		v |= (unsigned long long)b[p->big_endian ? p->long_size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * The loaded page's header: its timestamp, then a long whose low bits are
 * the bytes of records after the header and whose top bits say events
 * were lost before it (their count stored after the records).  0, or -1
 * with why in bad when that runs past the page.
 */
static int check_page(const struct replay_pages *p, const struct page_cursor *c, char *bad, size_t badlen)
{
	unsigned long long word = read_long(p, c->page + 8);
	unsigned long long need = 8 + p->long_size + (word & PAGE_COMMIT_MASK);

	if ((word & PAGE_MISSED) && (word & PAGE_MISSED_STORED))
		need += p->long_size;
	if (need <= p->page_size)
		return 0;
	snprintf(bad, badlen, "CPU %d's page at offset %llu says it holds %llu bytes, more than a page (%u)",
		 c->cpu, c->page_off, need, p->page_size);
	return -1;
}

/* c's next record, on the next page that has one: 1, 0 at the CPU's end, -1 (bad). */
static int next_page(struct replay_pages *p, struct page_cursor *c, char *bad, size_t badlen)
{
	c->data = NULL;
	while (c->next + p->page_size <= c->end) {
		if (map_page(p, c, bad, badlen) || check_page(p, c, bad, badlen))
			return -1;
		kbuffer_load_subbuffer(c->kb, (void *)c->page);
		c->data = kbuffer_read_event(c->kb, &c->ts);
		if (c->data) {
			/* as libtracecmd asks it: only a page's first record has lost events */
			c->missed = kbuffer_missed_events(c->kb);
			return 1;
		}
	}
	return 0;
}

static int start(struct replay_pages *p, char *bad, size_t badlen)
{
	unsigned int i;

	p->started = true;
	for (i = 0; i < p->nr; i++) {
		int ret = next_page(p, &p->c[i], bad, badlen);

		if (ret < 0)
			return -1;
		if (ret)
			p->live[p->nr_live++] = &p->c[i];
	}
	return 0;
}

/*
 * A page's time as libtracecmd reports it: TSC counts to ns by the file's
 * factors, (ts * mult) >> shift, the product's bits past 64 dropped as
 * the kernel's mul_u64_u32_shr() (and so libtracecmd's) drops them.
 */
static unsigned long long pages_time(const struct replay_pages *p, unsigned long long ts)
{
	if (!p->tsc_mult)
		return ts;
	return (unsigned long long)(((unsigned __int128)ts * p->tsc_mult) >> p->tsc_shift);
}

/* p->rec as libtracecmd would fill it for c's next record (but its offset): 0, or -1 (bad). */
static int fill(struct replay_pages *p, struct page_cursor *c, char *bad, size_t badlen)
{
	struct tep_record *r = &p->rec;

	r->ts = pages_time(p, c->ts);
	r->cpu = c->cpu;
	r->data = c->data;
	r->size = kbuffer_event_size(c->kb);
	r->record_size = r->size;
	/* where its data is in the file (libtracecmd's is its header's, a few bytes before) */
	r->offset = c->page_off + (unsigned long long)((const unsigned char *)c->data - c->page);
	r->missed_events = c->missed;
	r->ref_count = 1;
	c->missed = 0;
	if (r->size >= 0 && (const unsigned char *)c->data + r->size <= c->page + p->page_size)
		return 0;
	snprintf(bad, badlen, "CPU %d's record at offset %llu runs past its page (%d bytes)",
		 c->cpu, r->offset, r->size);
	return -1;
}

int replay_pages_iterate(struct replay_pages *p, int (*fn)(struct tep_record *rec, void *ctx),
			 void *ctx, char *bad, size_t badlen)
{
	if (!p->started && start(p, bad, badlen))
		return -1;
	for (;;) {
		struct page_cursor *c;
		unsigned int i, at = 0;
		int ret;

		if (!p->nr_live)
			return 0;
		c = p->live[0];
		for (i = 1; i < p->nr_live; i++)
			if (p->live[i]->ts < c->ts)
				c = p->live[at = i];
		if (fill(p, c, bad, badlen))
			return -1;
		ret = fn(&p->rec, ctx);
		/* consumed, whatever fn said */
		c->data = kbuffer_next_event(c->kb, &c->ts);
		if (!c->data && next_page(p, c, bad, badlen) < 0)
			return -1;
		if (!c->data) {
			memmove(&p->live[at], &p->live[at + 1], (p->nr_live - at - 1) * sizeof(*p->live));
			p->nr_live--;
		}
		if (ret)
			return 1;
	}
}
