// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/live.py: a kernel without the "mono" trace clock
 * (Linux before 3.10), as libtracefs sees it when kvmtop sets the clock
 * of its instance.  Every other write goes through.  kvmtop must refuse
 * in one line and leave nothing behind.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

struct tracefs_instance;

int tracefs_instance_file_write(struct tracefs_instance *instance, const char *file, const char *str)
{
	static int (*real)(struct tracefs_instance *, const char *, const char *);

	if (file && str && !strcmp(file, "trace_clock") && !strcmp(str, "mono")) {
		errno = EINVAL;	/* what writing an unknown clock name gives */
		return -1;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tracefs_instance_file_write");
	return real ? real(instance, file, str) : -1;
}
