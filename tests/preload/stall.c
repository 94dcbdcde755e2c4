// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/hostile.py: a ring-buffer page that kbuffer never
 * gets through, as libtraceevent's kbuffer does on some corrupt pages.
 * Moving on to the next record never returns, whichever reader asks
 * (kvmtop's own page reader or libtracecmd's); kvmtop's watchdog must
 * end it.
 */
void *kbuffer_next_event(void *kbuf, unsigned long long *ts);

void *kbuffer_next_event(void *kbuf, unsigned long long *ts)
{
	(void)kbuf;
	(void)ts;
	for (;;)
		__asm__ volatile("" ::: "memory");
}
