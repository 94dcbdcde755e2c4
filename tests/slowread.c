// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/tui.py: libtracecmd's event loop as it is, but
 * every 2,048th record takes 10 ms longer, so that a small recording is
 * read for seconds and the screen can be watched while it reads.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
#include <trace-cmd/trace-cmd.h>

typedef int (*rec_cb)(struct tracecmd_input *, struct tep_record *, int, void *);
typedef int (*iterate_fn)(struct tracecmd_input *, cpu_set_t *, int, rec_cb, void *);

static rec_cb real_cb;
static unsigned long n;

static int slow_cb(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *data)
{
	if (!(++n % 2048)) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	return real_cb(handle, rec, cpu, data);
}

int tracecmd_iterate_events(struct tracecmd_input *handle, cpu_set_t *cpus, int cpu_size,
			    rec_cb callback, void *callback_data)
{
	iterate_fn real = (iterate_fn)dlsym(RTLD_NEXT, "tracecmd_iterate_events");

	real_cb = callback;
	return real(handle, cpus, cpu_size, slow_cb, callback_data);
}
