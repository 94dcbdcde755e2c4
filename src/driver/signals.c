// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* ppoll */
/*
 * Signals only set a flag; the loops sleep in ppoll() with them blocked
 * everywhere else, so a signal is seen at once and teardown (the view
 * stopped, tracing off, the instance removed, the demo guest stopped)
 * runs on the normal path for SIGINT, SIGTERM and SIGHUP alike.  They
 * are let in while a source is read, so a long recording stops too.
 * SIGHUP stops the run as the others do, unless the view reopens its
 * output (view.h: batch output with --output, logrotate's postrotate;
 * the exporter, which has nothing to reopen): then it only sets
 * driver_reload_sig, and the run goes on.
 */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "driver_priv.h"

volatile sig_atomic_t driver_stop_sig;
volatile sig_atomic_t driver_child_sig;
volatile sig_atomic_t driver_reload_sig;

static sigset_t blocked, unblocked;
/* SIGHUP asks for a reopen (driver_signals), not a stop */
static bool signals_hup_reopens;

static void on_stop(int sig)
{
	driver_stop_sig = sig;
}

static void on_reload(int sig)
{
	(void)sig;
	driver_reload_sig = 1;
}

static void on_child(int sig)
{
	(void)sig;
	driver_child_sig = 1;
}

void driver_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = signals_hup_reopens ? on_reload : on_stop;
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	/* a closed pipe is an output error, seen by ferror() */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

void driver_signals(bool hup_reopens)
{
	signals_hup_reopens = hup_reopens;
	driver_stop_sig = 0;
	driver_reload_sig = 0;
	driver_handlers();
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGHUP);
	sigaddset(&blocked, SIGCHLD);
	sigprocmask(SIG_BLOCK, &blocked, &unblocked);
}

void driver_signals_in(void)
{
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
}

void driver_signals_out(void)
{
	sigprocmask(SIG_BLOCK, &blocked, NULL);
}

void driver_signals_restore(void)
{
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
}

short driver_wait(uint64_t now, uint64_t until, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts;
	uint64_t d = until > now ? until - now : 0;

	ts.tv_sec = d / 1000000000ull;
	ts.tv_nsec = d % 1000000000ull;
	if (ppoll(&pfd, fd >= 0 ? 1 : 0, &ts, &unblocked) <= 0)
		return 0;
	return pfd.revents;
}
