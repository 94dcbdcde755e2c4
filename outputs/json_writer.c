// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer (json_writer.h): one flag says whether a value was
 * written at the current depth, so the separator before the next one is
 * the writer's business, never the caller's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "json_writer.h"
#include "util/escape.h"

void jsonw_init(struct json_writer *jw, FILE *out)
{
	jw->out = out;
	jw->depth = 0;
	jw->sep = false;
}

void jsonw_end_line(struct json_writer *jw)
{
	fputc('\n', jw->out);
	jw->depth = 0;
	jw->sep = false;
}

/* Before a value or a name: the comma, where one was written at this depth. */
static void jsonw_sep(struct json_writer *jw)
{
	if (jw->sep)
		fputc(',', jw->out);
	jw->sep = true;
}

static void jsonw_begin(struct json_writer *jw, int c)
{
	jsonw_sep(jw);
	fputc(c, jw->out);
	jw->depth++;
	jw->sep = false;
}

static void jsonw_end(struct json_writer *jw, int c)
{
	fputc(c, jw->out);
	if (jw->depth)
		jw->depth--;
	jw->sep = true;
}

void jsonw_begin_object(struct json_writer *jw)
{
	jsonw_begin(jw, '{');
}

void jsonw_end_object(struct json_writer *jw)
{
	jsonw_end(jw, '}');
}

void jsonw_begin_array(struct json_writer *jw)
{
	jsonw_begin(jw, '[');
}

void jsonw_end_array(struct json_writer *jw)
{
	jsonw_end(jw, ']');
}

void jsonw_name(struct json_writer *jw, const char *name)
{
	jsonw_sep(jw);
	escape_json(jw->out, name);
	fputc(':', jw->out);
	/* its value follows the colon, with no comma before it */
	jw->sep = false;
}

void jsonw_string(struct json_writer *jw, const char *s)
{
	if (!s) {
		jsonw_null(jw);
		return;
	}
	jsonw_sep(jw);
	escape_json(jw->out, s);
}

void jsonw_uint(struct json_writer *jw, uint64_t v)
{
	jsonw_sep(jw);
	fprintf(jw->out, "%" PRIu64, v);
}

void jsonw_int(struct json_writer *jw, int64_t v)
{
	jsonw_sep(jw);
	fprintf(jw->out, "%" PRId64, v);
}

void jsonw_double(struct json_writer *jw, int decimals, double v)
{
	/* JSON has no NaN or infinity */
	if (!isfinite(v)) {
		jsonw_null(jw);
		return;
	}
	jsonw_sep(jw);
	fprintf(jw->out, "%.*f", decimals, v);
}

void jsonw_bool(struct json_writer *jw, bool v)
{
	jsonw_sep(jw);
	fputs(v ? "true" : "false", jw->out);
}

void jsonw_null(struct json_writer *jw)
{
	jsonw_sep(jw);
	fputs("null", jw->out);
}

void jsonw_hex(struct json_writer *jw, uint64_t v)
{
	jsonw_sep(jw);
	fprintf(jw->out, "\"0x%" PRIx64 "\"", v);
}

void jsonw_u64(struct json_writer *jw, uint64_t v)
{
	jsonw_sep(jw);
	fprintf(jw->out, "\"%" PRIu64 "\"", v);
}

void jsonw_string_field(struct json_writer *jw, const char *name, const char *s)
{
	jsonw_name(jw, name);
	jsonw_string(jw, s);
}

void jsonw_uint_field(struct json_writer *jw, const char *name, uint64_t v)
{
	jsonw_name(jw, name);
	jsonw_uint(jw, v);
}

void jsonw_int_field(struct json_writer *jw, const char *name, int64_t v)
{
	jsonw_name(jw, name);
	jsonw_int(jw, v);
}

void jsonw_double_field(struct json_writer *jw, const char *name, int decimals, double v)
{
	jsonw_name(jw, name);
	jsonw_double(jw, decimals, v);
}

void jsonw_bool_field(struct json_writer *jw, const char *name, bool v)
{
	jsonw_name(jw, name);
	jsonw_bool(jw, v);
}

void jsonw_null_field(struct json_writer *jw, const char *name)
{
	jsonw_name(jw, name);
	jsonw_null(jw);
}

void jsonw_hex_field(struct json_writer *jw, const char *name, uint64_t v)
{
	jsonw_name(jw, name);
	jsonw_hex(jw, v);
}

void jsonw_u64_field(struct json_writer *jw, const char *name, uint64_t v)
{
	jsonw_name(jw, name);
	jsonw_u64(jw, v);
}
