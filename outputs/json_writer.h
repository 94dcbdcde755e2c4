/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer, in the shape of the kernel tools' own
 * (bpftool's json_writer): objects and arrays are begun and ended, a
 * member is a name then a value, and the writer puts the commas where
 * they are due, so no caller places one.  Strings are escaped
 * (util/escape.h); a figure without a value is null; an address or a
 * 64-bit identifier is a "0x..." string, which a reader that keeps
 * numbers as doubles (53 bits: jq, JavaScript) cannot round; so is a
 * figure that can pass 2^53 (a clock, a sum of ns) a decimal string.
 */
#ifndef KVMTOP_JSON_WRITER_H
#define KVMTOP_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
	FILE *out;
	unsigned int depth;	/* objects and arrays begun and not ended */
	bool sep;		/* a value was written at this depth: the next one needs a comma */
};

/* A writer to out, at the top (depth 0). */
void jsonw_init(struct json_writer *jw, FILE *out);
/* The end of one JSON Lines document: its newline, and the next starts at the top. */
void jsonw_end_line(struct json_writer *jw);

void jsonw_begin_object(struct json_writer *jw);
void jsonw_end_object(struct json_writer *jw);
void jsonw_begin_array(struct json_writer *jw);
void jsonw_end_array(struct json_writer *jw);
/* An object's member name (escaped): the value written next is its. */
void jsonw_name(struct json_writer *jw, const char *name);

/* The values: a string escaped (NULL: null), numbers, true/false, null. */
void jsonw_string(struct json_writer *jw, const char *s);
void jsonw_uint(struct json_writer *jw, uint64_t v);
void jsonw_int(struct json_writer *jw, int64_t v);
/* v with that many decimals (printf's %.*f); null where v is not finite. */
void jsonw_double(struct json_writer *jw, int decimals, double v);
void jsonw_bool(struct json_writer *jw, bool v);
void jsonw_null(struct json_writer *jw);
/* An address or a 64-bit identifier: the string "0x..." (lower-case hex). */
void jsonw_hex(struct json_writer *jw, uint64_t v);
/*
 * A 64-bit figure that can pass 2^53 (a clock, a sum of ns): the decimal
 * string "123...", as protobuf's JSON mapping writes a 64-bit integer.
 */
void jsonw_u64(struct json_writer *jw, uint64_t v);

/* A member in one call: its name, then its value as above. */
void jsonw_string_field(struct json_writer *jw, const char *name, const char *s);
void jsonw_uint_field(struct json_writer *jw, const char *name, uint64_t v);
void jsonw_int_field(struct json_writer *jw, const char *name, int64_t v);
void jsonw_double_field(struct json_writer *jw, const char *name, int decimals, double v);
void jsonw_bool_field(struct json_writer *jw, const char *name, bool v);
void jsonw_null_field(struct json_writer *jw, const char *name);
void jsonw_hex_field(struct json_writer *jw, const char *name, uint64_t v);
void jsonw_u64_field(struct json_writer *jw, const char *name, uint64_t v);

#endif
