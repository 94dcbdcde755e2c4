// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/hostile.py: libtracecmd's event loop replaced by
 * one that never hands out an event and never returns, as libtraceevent's
 * kbuffer does on some corrupt pages.  kvmtop's watchdog must end it.
 */
#include <trace-cmd/trace-cmd.h>

int tracecmd_iterate_events(struct tracecmd_input *handle, cpu_set_t *cpus, int cpu_size,
			    int (*callback)(struct tracecmd_input *handle, struct tep_record *,
					    int, void *),
			    void *callback_data)
{
	(void)handle;
	(void)cpus;
	(void)cpu_size;
	(void)callback;
	(void)callback_data;
	for (;;)
		__asm__ volatile("" ::: "memory");
}
