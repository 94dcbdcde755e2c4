// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/tui.py: kbuffer as it is, but every 2,048th record
 * taken from a page costs 10 ms more, so that a small recording is read
 * for seconds and the screen can be watched while it reads (whichever
 * reader walks the pages: kvmtop's own or libtracecmd's).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>

typedef void *(*next_fn)(void *kbuf, unsigned long long *ts);

void *kbuffer_next_event(void *kbuf, unsigned long long *ts);

void *kbuffer_next_event(void *kbuf, unsigned long long *ts)
{
	static next_fn real;
	static unsigned long n;

	if (!real)
		real = (next_fn)dlsym(RTLD_NEXT, "kbuffer_next_event");
	if (!(++n % 2048)) {
		struct timespec t = { 0, 10 * 1000 * 1000 };

		nanosleep(&t, NULL);
	}
	return real(kbuf, ts);
}
