// SPDX-License-Identifier: GPL-2.0
/*
 * The settings file, as top's and virt-top's (W writes it) and htop's
 * (F2 changes it): $XDG_CONFIG_HOME/kvmtop/kvmtoprc, else
 * ~/.config/kvmtop/kvmtoprc, or --config FILE; --no-config: none.  One
 * setting a line, "NAME = VALUE", '#' a comment; a pane's own settings
 * are "PANE.sort" and "PANE.columns" (PANE a pane's name, as the man
 * page's FILES lists them), in the names of --sort and --fields.
 *
 * Whatever the file holds, kvmtop starts: a bad line is one line on
 * stderr naming the file and the line (the first also on the screen's
 * message line) and the others apply; a file that is not a regular file,
 * cannot be read or is over RC_MAX bytes is one such line too.  Written
 * whole to a new file in the same directory, then renamed over the old
 * one, so a reader never sees half of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/escape.h"
#include "model/model_fields.h"
#include "history.h"
#include "tui_priv.h"

#define RC_MAX		65536	/* bytes read at most: a settings file is a few hundred */
#define RC_LINE		512	/* a line's bytes at most */
#define RC_SAID		8	/* bad lines said on stderr; then how many more */

/* The panes whose sort and columns the file keeps, and the panes the screen may start on. */
static const enum pane_id rc_panes[] = {
	PANE_VMS, PANE_VCPUS, PANE_REASONS, PANE_RECENT, PANE_IPS, PANE_FINDINGS, PANE_THIEVES,
};
static const enum pane_id rc_starts[] = { PANE_VMS, PANE_FINDINGS };

#define NR(a)	(sizeof(a) / sizeof((a)[0]))

/* A file being read: where, and what was said of it. */
struct rc_in {
	struct tui *t;
	char name[512];		/* the file's name, escaped */
	unsigned int line;
	unsigned int bad;
};

/* One bad line (line 0: the file) said: on stderr (the first RC_SAID), the first on the screen. */
static void rc_say(struct rc_in *in, const char *what)
{
	char at[32] = "";

	if (in->line)
		snprintf(at, sizeof(at), ":%u", in->line);
	if (++in->bad <= RC_SAID)
		fprintf(stderr, "kvmtop: %s%s: %s\n", in->name, at, what);
	if (in->bad == 1)
		snprintf(in->t->notice, sizeof(in->t->notice), "%.200s%s: %.250s", in->name, at, what);
}

/* A pane by its name (any case) among those the file keeps, PANE_NR if none. */
static enum pane_id rc_pane(const struct tui *t, const char *name, size_t len, const enum pane_id *ids,
			    size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (strlen(t->panes[ids[i]]->name) == len && !strncasecmp(t->panes[ids[i]]->name, name, len))
			return ids[i];
	return PANE_NR;
}

/* --- the settings: each read from its value and written as one --- */

static int rc_read_delay(struct tui *t, int id, const char *val, char *err, size_t len)
{
	char *end;
	double d = strtod(val, &end);

	if (end == val || *end || !(d >= 0.1 && d <= 86400)) {
		snprintf(err, len, "delay: '%.32s' is not seconds from 0.1 to 86400", val);
		return -1;
	}
	t->delay = d;
	return 0;
}

/* The delay as the reader reads it back, to the last bit: 15 digits where they do, else 17. */
static void rc_write_delay(const struct tui *t, int id, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", t->delay);
	if (strtod(buf, NULL) != t->delay)
		snprintf(buf, len, "%.17g", t->delay);
}

static int rc_read_colors(struct tui *t, int id, const char *val, char *err, size_t len)
{
	int s = tui_colors_find(val);
	int i;

	if (s < 0) {
		snprintf(err, len, "colors: no scheme '%.32s' (", val);
		for (i = 0; i < tui_colors_nr(); i++) {
			strlcat(err, tui_colors_name(i), len);
			strlcat(err, i + 1 < tui_colors_nr() ? ", " : ")", len);
		}
		return -1;
	}
	t->scheme = s;
	return 0;
}

static void rc_write_colors(const struct tui *t, int id, char *buf, size_t len)
{
	snprintf(buf, len, "%s", tui_colors_name(t->scheme));
}

static int rc_read_history(struct tui *t, int id, const char *val, char *err, size_t len)
{
	char *end;
	long n = strtol(val, &end, 10);

	if (end == val || *end || n < 1 || n > HISTORY_LEN) {
		snprintf(err, len, "history: '%.32s' is not a number of snapshots from 1 to %d", val, HISTORY_LEN);
		return -1;
	}
	t->history_len = (int)n;
	return 0;
}

static void rc_write_history(const struct tui *t, int id, char *buf, size_t len)
{
	snprintf(buf, len, "%d", t->history_len);
}

static int rc_read_start(struct tui *t, int id, const char *val, char *err, size_t len)
{
	enum pane_id p = rc_pane(t, val, strlen(val), rc_starts, NR(rc_starts));

	if (p == PANE_NR) {
		snprintf(err, len, "start: '%.32s' is not %s or %s", val, t->panes[rc_starts[0]]->name,
			 t->panes[rc_starts[1]]->name);
		return -1;
	}
	t->start_pane = p;
	return 0;
}

static void rc_write_start(const struct tui *t, int id, char *buf, size_t len)
{
	snprintf(buf, len, "%s", t->panes[t->start_pane]->name);
}

/* i: the figure panes' idle rows, "shown" or "hidden" */
static int rc_read_idle(struct tui *t, int id, const char *val, char *err, size_t len)
{
	if (strcasecmp(val, "shown") && strcasecmp(val, "hidden")) {
		snprintf(err, len, "idle: '%.32s' is not shown or hidden", val);
		return -1;
	}
	t->hide_idle = !strcasecmp(val, "hidden");
	return 0;
}

static void rc_write_idle(const struct tui *t, int id, char *buf, size_t len)
{
	snprintf(buf, len, "%s", t->hide_idle ? "hidden" : "shown");
}

/* F5: the VMs pane's tree, "on" or "off" */
static int rc_read_tree(struct tui *t, int id, const char *val, char *err, size_t len)
{
	if (strcasecmp(val, "on") && strcasecmp(val, "off")) {
		snprintf(err, len, "tree: '%.32s' is not on or off", val);
		return -1;
	}
	t->vms_tree = !strcasecmp(val, "on");
	return 0;
}

static void rc_write_tree(const struct tui *t, int id, char *buf, size_t len)
{
	snprintf(buf, len, "%s", t->vms_tree ? "on" : "off");
}

/* The old -> new names the file being read used (one notice for the file, rc_lines). */
static char rc_renames[512];

/* Is name a column of the pane whose ops ctx is? */
static bool rc_col_known(const char *name, const void *ctx)
{
	return tui_col_find(ctx, name) >= 0;
}

/* val (pane id's column names) with its old names renamed (model_field_names.c), into buf. */
static const char *rc_renamed(const struct tui *t, int id, const char *val, char *buf, size_t len)
{
	model_fields_rename(val, t->panes[id]->name, rc_col_known, t->panes[id], buf, len,
			    rc_renames, sizeof(rc_renames));
	return buf;
}

static int rc_read_sort(struct tui *t, int id, const char *val, char *err, size_t len)
{
	char buf[RC_LINE];
	int col;
	bool invert;

	val = rc_renamed(t, id, val, buf, sizeof(buf));
	if (tui_cols_parse_sort(t->panes[id], val, &col, &invert, err, len))
		return -1;
	t->set[id].sort = col;
	t->set[id].invert = invert;
	return 0;
}

static void rc_write_sort(const struct tui *t, int id, char *buf, size_t len)
{
	char cols[16];

	tui_cols_write(t->panes[id], &t->set[id], buf, len, cols, sizeof(cols));
}

static int rc_read_columns(struct tui *t, int id, const char *val, char *err, size_t len)
{
	char buf[RC_LINE];
	int cols[TUI_COLS], n;

	val = rc_renamed(t, id, val, buf, sizeof(buf));
	n = tui_cols_parse(t->panes[id], val, cols, true, err, len);

	if (n < 0)
		return -1;
	if (!n) {
		snprintf(err, len, "columns: none named");
		return -1;
	}
	memcpy(t->set[id].cols, cols, (size_t)n * sizeof(cols[0]));
	t->set[id].nr_cols = n;
	return 0;
}

static void rc_write_columns(const struct tui *t, int id, char *buf, size_t len)
{
	char sort[80];

	tui_cols_write(t->panes[id], &t->set[id], sort, sizeof(sort), buf, len);
}

static const struct rc_setting {
	const char *name;
	bool per_pane;		/* PANE.name */
	/* val into t (of pane id): 0, or -1 with one line in err */
	int (*read)(struct tui *t, int id, const char *val, char *err, size_t len);
	/* t's value into buf, "": none to write */
	void (*write)(const struct tui *t, int id, char *buf, size_t len);
} rc_settings[] = {
	{ "delay",   false, rc_read_delay,   rc_write_delay },
	{ "colors",  false, rc_read_colors,  rc_write_colors },
	{ "history", false, rc_read_history, rc_write_history },
	{ "start",   false, rc_read_start,   rc_write_start },
	{ "idle",    false, rc_read_idle,    rc_write_idle },
	{ "tree",    false, rc_read_tree,    rc_write_tree },
	{ "sort",    true,  rc_read_sort,    rc_write_sort },
	{ "columns", true,  rc_read_columns, rc_write_columns },
};

/* --- reading --- */

/* Text without its spaces at both ends, in place. */
static char *rc_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* One line "NAME = VALUE" (or "PANE.NAME = VALUE") into t: 0, or -1 with one line in err. */
static int rc_apply(struct tui *t, char *line, char *err, size_t len)
{
	char *eq = strchr(line, '='), *name, *val, *dot, esc[80];
	enum pane_id id = PANE_NR;
	size_t i;

	if (!eq) {
		snprintf(err, len, "not NAME = VALUE");
		return -1;
	}
	*eq = '\0';
	name = rc_trim(line);
	val = rc_trim(eq + 1);
	dot = strchr(name, '.');
	if (dot) {
		id = rc_pane(t, name, (size_t)(dot - name), rc_panes, NR(rc_panes));
		if (id == PANE_NR) {
			snprintf(err, len, "no pane '%s'", escape_text(name, esc, sizeof(esc)));
			return -1;
		}
		name = dot + 1;
	}
	for (i = 0; i < NR(rc_settings); i++)
		if (!strcasecmp(rc_settings[i].name, name) && rc_settings[i].per_pane == !!dot)
			return rc_settings[i].read(t, (int)id, val, err, len);
	snprintf(err, len, "unknown setting '%s'", escape_text(name, esc, sizeof(esc)));
	return -1;
}

/*
 * The next line of f into buf (without its newline): 1, 0 at the end;
 * *bad says what is wrong with it ("" if nothing), *total counts bytes.
 */
static int rc_getline(FILE *f, char *buf, size_t len, size_t *total, const char **bad)
{
	size_t n = 0;
	int ch = EOF;

	*bad = "";
	while (*total < RC_MAX && (ch = getc(f)) != EOF) {
		(*total)++;
		if (ch == '\n')
			break;
		/* text: no NUL, no control character but a tab */
		if (ch == 0 || ch == 0x7f || (ch < 0x20 && ch != '\t' && ch != '\r'))
			*bad = "not text";
		if (n + 1 < len)
			buf[n++] = (char)ch;
		else if (!**bad)
			*bad = "a line over 511 bytes";
	}
	buf[n] = '\0';
	return n || ch == '\n';
}

static void rc_lines(struct rc_in *in, FILE *f)
{
	char buf[RC_LINE], err[256];
	size_t total = 0;
	const char *bad;

	while (rc_getline(f, buf, sizeof(buf), &total, &bad)) {
		char *s = rc_trim(buf);

		in->line++;
		if (*bad)
			rc_say(in, bad);
		else if (*s && *s != '#' && rc_apply(in->t, s, err, sizeof(err)))
			rc_say(in, err);
	}
	if (total >= RC_MAX && getc(f) != EOF) {
		in->line = 0;
		rc_say(in, "over 64 KiB: the rest is not read");
	}
	if (in->bad > RC_SAID)
		fprintf(stderr, "kvmtop: %s: %u more bad lines\n", in->name, in->bad - RC_SAID);
	if (rc_renames[0])
		fprintf(stderr, "kvmtop: %s: old names read as new (kvmtop(1), HISTORY): %s\n", in->name,
			rc_renames);
	if (in->bad > 1) {
		snprintf(err, sizeof(err), " (and %u more)", in->bad - 1);
		strlcat(in->t->notice, err, sizeof(in->t->notice));
	}
}

/* Where the settings are: --config, --no-config, else XDG's place or HOME's. */
static void rc_path(struct tui *t, const struct tui_config *c)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	t->rc[0] = '\0';
	if (c->no_config)
		return;
	if (c->config)
		snprintf(t->rc, sizeof(t->rc), "%s", c->config);
	else if (xdg && xdg[0] == '/')
		snprintf(t->rc, sizeof(t->rc), "%s/kvmtop/kvmtoprc", xdg);
	else if (home && home[0])
		snprintf(t->rc, sizeof(t->rc), "%s/.config/kvmtop/kvmtoprc", home);
}

void tui_rc_read(struct tui *t, const struct tui_config *c)
{
	struct rc_in in = { .t = t };
	struct stat st;
	FILE *f;
	int fd;

	rc_path(t, c);
	if (!t->rc[0])
		return;
	escape_text(t->rc, in.name, sizeof(in.name));
	/* not blocking on a FIFO, not taking a terminal */
	fd = open(t->rc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		/* no file of one's own yet is the usual start */
		if (errno != ENOENT || c->config)
			rc_say(&in, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc_say(&in, "not a regular file");
		close(fd);
		return;
	}
	f = fdopen(fd, "r");
	if (!f) {
		rc_say(&in, strerror(errno));
		close(fd);
		return;
	}
	rc_lines(&in, f);
	if (ferror(f)) {
		in.line = 0;
		rc_say(&in, "cannot be read to its end");
	}
	fclose(f);
}

/* --- writing --- */

/* Every setting of t, as the reader reads them. */
static void rc_write_all(const struct tui *t, FILE *f)
{
	char val[1024];
	size_t i, j;

	fprintf(f, "# kvmtop's settings, written by W on its screen (kvmtop(1), FILES)\n");
	for (i = 0; i < NR(rc_settings); i++) {
		if (rc_settings[i].per_pane)
			continue;
		rc_settings[i].write(t, 0, val, sizeof(val));
		fprintf(f, "%s = %s\n", rc_settings[i].name, val);
	}
	for (j = 0; j < NR(rc_panes); j++)
		for (i = 0; i < NR(rc_settings); i++) {
			if (!rc_settings[i].per_pane)
				continue;
			rc_settings[i].write(t, rc_panes[j], val, sizeof(val));
			if (val[0])
				fprintf(f, "%s.%s = %s\n", t->panes[rc_panes[j]]->name, rc_settings[i].name, val);
		}
}

/* The directories above file, made where missing (as ~/.config/kvmtop). */
static void rc_mkdirs(const char *file)
{
	char dir[PATH_MAX], *s;

	snprintf(dir, sizeof(dir), "%s", file);
	for (s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(dir, 0755);
		*s = '/';
	}
}

/* t's settings into a new file beside path, renamed over it: 0, or -1 (errno). */
static int rc_replace(const struct tui *t, const char *path)
{
	char tmp[PATH_MAX + 16];
	struct stat st;
	FILE *f;
	int fd, e;

	rc_mkdirs(path);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	/* the old file's permissions, else the usual */
	fchmod(fd, stat(path, &st) ? 0644 : st.st_mode & 07777);
	f = fdopen(fd, "w");
	if (!f) {
		e = errno;
		goto out_unlink;
	}
	rc_write_all(t, f);
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		e = errno ? errno : EIO;
		fclose(f);
		goto out_unlink;
	}
	if (fclose(f) || rename(tmp, path)) {
		e = errno;
		goto out_unlink;
	}
	return 0;
out_unlink:
	if (!f)
		close(fd);
	unlink(tmp);
	errno = e;
	return -1;
}

void tui_rc_write(struct tui *t)
{
	char real[PATH_MAX], name[512];

	if (!t->rc[0]) {
		snprintf(t->msg, sizeof(t->msg), "W: no settings file (--no-config, or no HOME)");
		return;
	}
	escape_text(t->rc, name, sizeof(name));
	/* a link (dotfiles kept elsewhere) stays one: its target is replaced */
	if (rc_replace(t, realpath(t->rc, real) ? real : t->rc))
		snprintf(t->msg, sizeof(t->msg), "W: cannot write %.160s: %.60s", name, strerror(errno));
	else
		snprintf(t->msg, sizeof(t->msg), "W: the settings are in %.200s", name);
}
