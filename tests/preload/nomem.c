// SPDX-License-Identifier: GPL-2.0
/*
 * A preload for tests/tui.py: after SIGUSR2, calloc() fails, as it would
 * on a host out of memory.  kvmtop's panes build their rows with calloc();
 * the screen must then leave, say so in one line and exit 1.
 */
#include <signal.h>
#include <stddef.h>

/* glibc's own calloc: no dlsym, which may allocate itself */
extern void *__libc_calloc(size_t nmemb, size_t size);

static volatile sig_atomic_t failing;

static void on_usr2(int sig)
{
	(void)sig;
	failing = 1;
}

__attribute__((constructor)) static void nomem_init(void)
{
	signal(SIGUSR2, on_usr2);
}

void *calloc(size_t nmemb, size_t size)
{
	if (failing)
		return NULL;
	return __libc_calloc(nmemb, size);
}
