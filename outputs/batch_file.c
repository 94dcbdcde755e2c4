// SPDX-License-Identifier: GPL-2.0
/*
 * Batch output's --output FILE.  The metrics formats (-o
 * prometheus|openmetrics) write each snapshot to a new file beside FILE
 * renamed over it, as node_exporter's textfile collector wants; the
 * others append each snapshot to FILE, a log that SIGHUP reopens after
 * logrotate renamed it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_priv.h"

int batch_output_open(struct batch *b, char *err, size_t len)
{
	bool again = b->out != stdout;
	FILE *f = NULL;
	int fd, e;

	fd = open(b->output, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		f = fdopen(fd, "a");
	if (!f) {
		e = errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, len, "--output %s: cannot %s: %s", b->output,
			 again ? "reopen it after SIGHUP" : "open it", strerror(e));
		return -1;
	}
	/* the old file has every snapshot it was given: each was flushed whole */
	if (again && fclose(b->out)) {
		e = errno;
		fclose(f);
		b->out = stdout;
		snprintf(err, len, "--output %s: closing the file it was before SIGHUP: %s", b->output,
			 strerror(e));
		return -1;
	}
	b->out = f;
	b->in_file = 0;
	return 0;
}

void batch_output_close(struct batch *b)
{
	if (b->out != stdout)
		fclose(b->out);
	b->out = stdout;
}

/* --output: can a file be made beside it?  Said at the start, not at the first snapshot. */
static int file_start(const struct batch *b)
{
	char tmp[4200];
	int fd;

	if (!b->output)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", b->output);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "kvmtop: --output %s: cannot write beside it: %s\n", b->output, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

/*
 * The metrics formats: to stdout, or with --output into a new file in
 * FILE's directory renamed over FILE, so a reader (node_exporter's
 * textfile collector) sees the old document or the new, never half.
 * om: OpenMetrics, else the text format 0.0.4.  0, or -1 with errno.
 */
static int file_metrics(struct batch *b, bool om)
{
	struct metrics_opts o = *b->metrics;
	char tmp[4200];
	FILE *f;
	int fd, ret;

	o.ns = b->ns;
	if (!b->output)
		return metrics_print(om ? NULL : b->out, om ? b->out : NULL, b->m, &o) ? (errno = ENOMEM, -1) : 0;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", b->output);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	/* readable as a file written by redirection would be: 0644 less the umask */
	{
		mode_t um = umask(0);

		umask(um);
		fchmod(fd, 0644 & ~um);
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	ret = metrics_print(om ? NULL : f, om ? f : NULL, b->m, &o);
	if (ret)
		errno = ENOMEM;
	if (fflush(f) || ferror(f) || fsync(fd))
		ret = -1;
	if (fclose(f))
		ret = -1;
	if (!ret && rename(tmp, b->output))
		ret = -1;
	if (ret) {
		int e = errno;

		unlink(tmp);
		errno = e;
	}
	return ret;
}

static int file_prometheus(struct batch *b, uint64_t end)
{
	return file_metrics(b, false);
}

static int file_openmetrics(struct batch *b, uint64_t end)
{
	return file_metrics(b, true);
}

const struct batch_format batch_format_prometheus = {
	.name = "prometheus",
	.print = file_prometheus,
	.start = file_start,
	.totals = true,
	.replace = true,
	.metrics_opts = true,
};

const struct batch_format batch_format_openmetrics = {
	.name = "openmetrics",
	.print = file_openmetrics,
	.start = file_start,
	.totals = true,
	.replace = true,
	.metrics_opts = true,
};
