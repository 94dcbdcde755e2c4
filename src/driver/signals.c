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
 *
 * ppoll() lets a pending signal in only when it returns for the signal:
 * when the fd is ready at once (a key, or a terminal that hung up) or
 * the time is up, the kernel puts the mask back with the signal still
 * pending.  So driver_wait looks at what is pending after each return
 * and lets it in then: a screen fed keys without a pause stops too.
 */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "driver_priv.h"

volatile sig_atomic_t driver_stop_sig;
volatile sig_atomic_t driver_child_sig;
volatile sig_atomic_t driver_reload_sig;

/* the signals caught: blocked, but where the loops wait or read */
static const int signals_caught[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };

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
	size_t i;

	signals_hup_reopens = hup_reopens;
	driver_stop_sig = 0;
	driver_reload_sig = 0;
	driver_handlers();
	sigemptyset(&blocked);
	for (i = 0; i < sizeof(signals_caught) / sizeof(signals_caught[0]); i++)
		sigaddset(&blocked, signals_caught[i]);
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

/* A caught signal that came while ppoll() did not return for it: let in now, its flag set. */
static void signals_deliver(void)
{
	sigset_t pending;
	size_t i;

	if (sigpending(&pending))
		return;
	for (i = 0; i < sizeof(signals_caught) / sizeof(signals_caught[0]); i++) {
		if (sigismember(&pending, signals_caught[i])) {
			/* the handlers run before sigprocmask() returns */
			driver_signals_in();
			driver_signals_out();
			return;
		}
	}
}

short driver_wait(uint64_t now, uint64_t until, int fd, int also)
{
	/* a negative fd is left out by poll */
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = also, .events = POLLIN } };
	struct timespec ts;
	uint64_t d = until > now ? until - now : 0;
	int n;

	ts.tv_sec = d / 1000000000ull;
	ts.tv_nsec = d % 1000000000ull;
	n = ppoll(pfd, 2, &ts, &unblocked);
	/* -1 (EINTR): a signal was let in; else one may still be pending */
	if (n >= 0)
		signals_deliver();
	return n > 0 ? pfd[0].revents : 0;
}
