// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/replay_oracle.py: libtracecmd's record loop refused
 * (it says so and ends the process), so that a recording kvmtop reads
 * under it has been read by kvmtop's own page reader, src/sources/replay_pages.c.
 */
#include <stdio.h>
#include <unistd.h>

int tracecmd_iterate_events(void *handle, void *cpus, int cpu_size, void *callback, void *data);

int tracecmd_iterate_events(void *handle, void *cpus, int cpu_size, void *callback, void *data)
{
	static const char msg[] = "noiterate.so: libtracecmd's record loop was called\n";

	(void)handle;
	(void)cpus;
	(void)cpu_size;
	(void)callback;
	(void)data;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(98);
	_exit(97);
}
