// SPDX-License-Identifier: GPL-2.0
/*
 * Small files of /proc, /sys and cgroupfs read whole into the context's
 * one buffer, and fields of /proc's stat files (context_priv.h).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context_priv.h"

ssize_t ctx_file_read(struct context *c, const char *fmt, ...)
{
	char path[PATH_MAX + 64];
	size_t n = 0;
	ssize_t got;
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* a file gone or refused mid-read is not read: -1, its figures unknown */
	while (n < sizeof(c->buf) - 1) {
		got = read(fd, c->buf + n, sizeof(c->buf) - 1 - n);
		if (got < 0) {
			close(fd);
			return -1;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	close(fd);
	c->buf[n] = '\0';
	return (ssize_t)n;
}

bool ctx_stat_field(const char *text, int n, uint64_t *v)
{
	const char *p = strrchr(text, ')');
	char *end;
	int field = 2;

	if (!p)
		return false;
	p++;
	while (field < n) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			return false;
		field++;
		if (field == n)
			break;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	*v = strtoull(p, &end, 10);
	return true;
}
