// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/debugfs.py: the kernel as the debugfs source sees
 * it under (or without) lockdown.  KVMTOP_FAKE_LOCKDOWN names the file
 * read in place of /sys/kernel/security/lockdown (a missing one: no
 * such file, a kernel without lockdown); KVMTOP_FAKE_DENY_DIR names a
 * directory whose files openat() refuses with errno KVMTOP_FAKE_ERRNO
 * (EPERM, as lockdown gives, unless set).  Root opens any file, so a
 * chmod cannot make a test tree refuse.  Everything else goes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	const char *fake = getenv("KVMTOP_FAKE_LOCKDOWN");

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fopen");
	if (fake && path && !strcmp(path, "/sys/kernel/security/lockdown"))
		path = fake;
	return real(path, mode);
}

/* Is dirfd the directory to deny? */
static int denied(int dirfd)
{
	const char *dir = getenv("KVMTOP_FAKE_DENY_DIR");
	char link[64], at[4096];
	ssize_t n;

	if (!dir)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = readlink(link, at, sizeof(at) - 1);
	if (n < 0)
		return 0;
	at[n] = '\0';
	return !strcmp(at, dir);
}

static int open_at(const char *sym, int dirfd, const char *path, int flags, mode_t mode)
{
	int (*real)(int, const char *, int, ...);

	if (path && path[0] != '/' && dirfd >= 0 && denied(dirfd)) {
		errno = getenv("KVMTOP_FAKE_ERRNO") ? atoi(getenv("KVMTOP_FAKE_ERRNO")) : EPERM;
		return -1;
	}
	*(void **)&real = dlsym(RTLD_NEXT, sym);
	return real(dirfd, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_at("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open_at("openat64", dirfd, path, flags, mode);
}
