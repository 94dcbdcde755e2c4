// SPDX-License-Identifier: GPL-2.0
/*
 * A crash (SIGSEGV, SIGABRT ...) must not leave the terminal on the
 * alternate screen in cbreak mode, nor tracing on: the view and the
 * source get one async-signal-safe call each, then the signal does what
 * it would have done (a core, a status of 128 + signal).
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "driver_priv.h"

static struct driver *crashing;
static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGQUIT, SIGTRAP };
#define NR_CRASH_SIGS	(sizeof(crash_sigs) / sizeof(crash_sigs[0]))
/* what each did before: the default, or a sanitizer's report */
static struct sigaction crash_old[NR_CRASH_SIGS];

static void on_crash(int sig)
{
	static const char msg[] = "kvmtop: crashed: a bug; the terminal and tracing were given back\n";
	struct driver *drv = crashing;
	ssize_t n;
	size_t i;

	crashing = NULL;	/* once, even if the restore itself faults */
	if (drv) {
		if (drv->view_on && drv->v->ops->panic)
			drv->v->ops->panic(drv->v->ctx);
		if (drv->src_open && drv->ops->panic)
			drv->ops->panic(&drv->src);
		n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)n;
	}
	for (i = 0; i < NR_CRASH_SIGS; i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	raise(sig);
}

void driver_crash_arm(struct driver *drv)
{
	struct sigaction sa;
	size_t i;

	crashing = drv;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_crash;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_CRASH_SIGS; i++)
		sigaction(crash_sigs[i], &sa, &crash_old[i]);
}

void driver_crash_disarm(void)
{
	crashing = NULL;
}
