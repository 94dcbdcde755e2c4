// SPDX-License-Identifier: GPL-2.0
/*
 * kvmtop --listen ADDR:PORT: a view that serves the snapshots as
 * Prometheus metrics over HTTP (libmicrohttpd), instead of a screen.
 *
 * The driver's thread renders each snapshot (metrics_print(): the text
 * format and OpenMetrics from one walk of the model) into two documents
 * and publishes them; libmicrohttpd's own thread serves the documents
 * last published, each held by a reference while a response sends it.
 * So the model is only ever read by the driver's thread, and a slow or
 * stuck client never holds up the draining of the trace buffers: it
 * holds a document, not a lock.
 *
 * Only GET and HEAD of /metrics and / are answered (405 for other
 * methods, 404 for other paths).  Requests are bounded in size
 * (EXPORT_MEM_LIMIT for the request line and headers), connections in
 * number (EXPORT_CONNECTIONS) and in idle time (EXPORT_IDLE_S).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "export.h"

#define EXPORT_CONNECTIONS	128	/* at once; more are closed at accept */
#define EXPORT_IDLE_S		10	/* a connection that sends nothing this long is closed */
#define EXPORT_MEM_LIMIT	(32 * 1024)	/* request line and headers of one request */

#define CT_TEXT	"text/plain; version=0.0.4; charset=utf-8"
#define CT_OM	"application/openmetrics-text; version=1.0.0; charset=utf-8"

struct doc {
	unsigned int refs;	/* under export->lock */
	struct export *owner;
	struct metrics_doc md;	/* both formats, sharing their lines */
};

/* One response's place in a document of format fmt. */
struct reading {
	struct doc *d;
	int fmt;
	unsigned int seg;
	size_t off;		/* in seg */
	uint64_t pos;		/* in the document */
};

static void doc_put(struct doc *d)
{
	struct export *e;
	bool last;

	if (!d)
		return;
	e = d->owner;
	pthread_mutex_lock(&e->lock);
	last = !--d->refs;
	pthread_mutex_unlock(&e->lock);
	if (last) {
		metrics_doc_free(&d->md);
		free(d);
	}
}

/* libmicrohttpd is done sending it. */
static void doc_sent(void *cls)
{
	struct reading *r = cls;

	doc_put(r->d);
	free(r);
}

/* The next bytes of a response, from the document's segments; libmicrohttpd reads in order. */
static ssize_t doc_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct reading *r = cls;
	const struct metrics_doc *md = &r->d->md;
	size_t n = 0;

	if (pos != r->pos)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	while (n < max && r->seg < md->nr[r->fmt]) {
		const struct metrics_seg *sg = &md->seg[r->fmt][r->seg];
		size_t k = sg->len - r->off < max - n ? sg->len - r->off : max - n;

		memcpy(buf + n, sg->p + r->off, k);
		n += k;
		r->off += k;
		if (r->off == sg->len) {
			r->seg++;
			r->off = 0;
		}
	}
	r->pos += n;
	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static const char page[] =
	"<!DOCTYPE html>\n<html><head><title>kvmtop</title></head><body>\n"
	"<h1>kvmtop</h1>\n<p>KVM exits, exit-handling latency and vCPU time per VM: "
	"<a href=\"/metrics\">/metrics</a> (Prometheus text format 0.0.4, or OpenMetrics 1.0 "
	"when the Accept header asks for application/openmetrics-text).</p>\n</body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     const char *text, const char *allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								  MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Does the scraper ask for OpenMetrics?  (Prometheus sends it first in its Accept.) */
static bool wants_om(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	return a && strstr(a, "application/openmetrics-text");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct export *e = cls;
	struct MHD_Response *r;
	struct reading *rd;
	enum MHD_Result ret;
	struct doc *d;
	bool om;

	(void)version;
	(void)upload;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		/* a body is never read: the answer goes at once, then the connection closes */
		*upload_size = 0;
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
			     "405: only GET and HEAD\n", "GET, HEAD");
	}
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", page, NULL);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			     "404: kvmtop serves /metrics and /\n", NULL);
	om = wants_om(c);
	pthread_mutex_lock(&e->lock);
	d = e->cur;
	if (d)
		d->refs++;
	e->scrapes++;
	pthread_mutex_unlock(&e->lock);
	if (!d)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
			     "503: no snapshot yet\n", NULL);
	rd = calloc(1, sizeof(*rd));
	if (!rd) {
		doc_put(d);
		return MHD_NO;
	}
	rd->d = d;
	rd->fmt = om;
	r = MHD_create_response_from_callback(d->md.total[om], 256 * 1024, doc_read, rd, doc_sent);
	if (!r) {
		doc_sent(rd);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, om ? CT_OM : CT_TEXT);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* libmicrohttpd's own complaints (a bad request ...) are its business, not the operator's. */
static void quiet(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;
}

int export_parse_addr(const char *arg, struct sockaddr_storage *ss, socklen_t *len, bool *any,
		      char *err, size_t errlen)
{
	char host[256];
	const char *colon = strrchr(arg, ':'), *h = arg;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res;
	size_t hl;
	long port;
	char *end;
	int rc;

	if (!colon) {
		snprintf(err, errlen, "'%s' must be ADDR:PORT (:PORT: every address)", arg);
		return -1;
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port < 1 || port > 65535) {
		snprintf(err, errlen, "'%s': the port must be 1 to 65535", arg);
		return -1;
	}
	hl = (size_t)(colon - arg);
	if (hl >= 2 && arg[0] == '[' && arg[hl - 1] == ']') {
		h = arg + 1;
		hl -= 2;
	}
	if (hl >= sizeof(host)) {
		snprintf(err, errlen, "'%s': the address is too long", arg);
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	*any = !hl;
	if (!hl) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		memset(ss, 0, sizeof(*ss));
		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_any;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	}
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "'%s': %s", arg, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static struct MHD_Daemon *start_on(struct export *e, const struct sockaddr *sa, unsigned int flags)
{
	return MHD_start_daemon(flags | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG,
				0, NULL, NULL, on_request, e,
				MHD_OPTION_SOCK_ADDR, sa,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)EXPORT_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)EXPORT_IDLE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EXPORT_MEM_LIMIT,
				MHD_OPTION_EXTERNAL_LOGGER, quiet, NULL,
				MHD_OPTION_END);
}

/*
 * The one line that says where the metrics are, on stderr when the
 * exporter starts serving: the address bound (numeric, as the kernel has
 * it; [::] or 0.0.0.0 for every address) and the port.
 */
static void export_say_url(const struct sockaddr *sa)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port;

	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof(host));
		port = ntohs(a6->sin6_port);
		fprintf(stderr, "kvmtop: serving Prometheus metrics on http://[%s]:%u/metrics\n", host, port);
		return;
	}
	inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, host, sizeof(host));
	port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
	fprintf(stderr, "kvmtop: serving Prometheus metrics on http://%s:%u/metrics\n", host, port);
}

static int export_view_start(void *ctx, const struct view_source *src, const struct model *m)
{
	struct export *e = ctx;
	struct sockaddr_storage ss;
	struct sockaddr_in any4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t len;
	char err[512];
	bool any;

	e->m = m;
	e->mo.ns = src->ns;
	if (export_parse_addr(e->addr, &ss, &len, &any, err, sizeof(err))) {
		fprintf(stderr, "kvmtop: --listen %s\n", err);
		return -1;
	}
	e->d = start_on(e, (struct sockaddr *)&ss,
			ss.ss_family == AF_INET6 ? (any ? MHD_USE_DUAL_STACK : MHD_USE_IPv6) : 0);
	if (e->d) {
		export_say_url((struct sockaddr *)&ss);
		return 0;
	}
	if (any) {
		/* a host without IPv6: every IPv4 address */
		any4.sin_port = ((struct sockaddr_in6 *)&ss)->sin6_port;
		e->d = start_on(e, (struct sockaddr *)&any4, 0);
	}
	if (!e->d) {
		fprintf(stderr, "kvmtop: --listen %s: cannot listen there (%s)\n", e->addr,
			errno ? strerror(errno) : "address in use or not this host's");
		return -1;
	}
	export_say_url((struct sockaddr *)&any4);
	return 0;
}

static int export_view_refresh(void *ctx, const struct snapshot *snap)
{
	struct export *e = ctx;
	struct doc *d = calloc(1, sizeof(*d)), *old;

	(void)snap;
	if (!d || metrics_doc(&d->md, e->m, &e->mo)) {
		free(d);
		errno = ENOMEM;
		return -1;
	}
	d->refs = 1;
	d->owner = e;
	pthread_mutex_lock(&e->lock);
	old = e->cur;
	e->cur = d;
	e->published++;
	pthread_mutex_unlock(&e->lock);
	doc_put(old);
	return 0;
}

static void export_view_notice(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "kvmtop: %s\n", msg);
}

/*
 * SIGHUP (the unit's ExecReload): the exporter has no file to reopen, so
 * it is a reload that changes nothing; it must not end the service.
 */
static int export_view_reopen(void *ctx, char *err, size_t len)
{
	(void)ctx;
	(void)err;
	(void)len;
	return 0;
}

static void export_view_stop(void *ctx)
{
	struct export *e = ctx;

	if (e->d)
		MHD_stop_daemon(e->d);
	e->d = NULL;
	doc_put(e->cur);
	e->cur = NULL;
}

static const struct view_ops export_view_ops = {
	.name = "exporter",
	.start = export_view_start,
	.refresh = export_view_refresh,
	.reopen = export_view_reopen,
	.notice = export_view_notice,
	.stop = export_view_stop,
};

struct view *export_view(struct export *e, const char *addr, const struct metrics_opts *mo)
{
	memset(e, 0, sizeof(*e));
	pthread_mutex_init(&e->lock, NULL);
	e->addr = addr;
	e->mo = *mo;
	view_init(&e->view, &export_view_ops, e, -1);
	e->view.linger = true;
	e->view.totals = true;
	return &e->view;
}
