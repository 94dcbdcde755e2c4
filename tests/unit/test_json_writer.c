// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer (outputs/json_writer.c): commas by construction at
 * every depth, names and strings escaped, null for no value and for a
 * fraction that is not finite, addresses as "0x..." strings.  Each
 * document is compared with the text JSON's grammar (RFC 8259) gives it.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "outputs/json_writer.h"

static char buf[1024];

/* A writer into buf (closed, and buf complete, by done()). */
static FILE *open_buf(struct json_writer *jw)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	jsonw_init(jw, f);
	return f;
}

static const char *done(FILE *f)
{
	fclose(f);
	return buf;
}

static void test_nesting(void **state)
{
	struct json_writer jw;
	FILE *f = open_buf(&jw);

	jsonw_begin_object(&jw);
	jsonw_uint_field(&jw, "a", 1);
	jsonw_name(&jw, "b");
	jsonw_begin_array(&jw);
	jsonw_begin_object(&jw);
	jsonw_end_object(&jw);
	jsonw_begin_array(&jw);
	jsonw_null(&jw);
	jsonw_uint(&jw, 2);
	jsonw_end_array(&jw);
	jsonw_int(&jw, -3);
	jsonw_end_array(&jw);
	jsonw_name(&jw, "c");
	jsonw_begin_object(&jw);
	jsonw_bool_field(&jw, "d", true);
	jsonw_bool_field(&jw, "e", false);
	jsonw_end_object(&jw);
	jsonw_name(&jw, "f");
	jsonw_begin_array(&jw);
	jsonw_end_array(&jw);
	jsonw_end_object(&jw);
	jsonw_end_line(&jw);
	assert_string_equal(done(f), "{\"a\":1,\"b\":[{},[null,2],-3],\"c\":{\"d\":true,\"e\":false},\"f\":[]}\n");
}

static void test_values(void **state)
{
	struct json_writer jw;
	FILE *f = open_buf(&jw);

	jsonw_begin_array(&jw);
	jsonw_string(&jw, "vm \"a\"\\\n");
	jsonw_string(&jw, NULL);
	jsonw_string(&jw, "");
	jsonw_double(&jw, 2, 1.0 / 3);
	jsonw_double(&jw, 9, 0.5);
	jsonw_double(&jw, 2, NAN);
	jsonw_double(&jw, 2, INFINITY);
	jsonw_hex(&jw, 0);
	jsonw_hex(&jw, 0xffffffff9f007008ull);
	jsonw_hex(&jw, UINT64_MAX);
	jsonw_uint(&jw, UINT64_MAX);
	jsonw_int(&jw, INT64_MIN);
	jsonw_end_array(&jw);
	assert_string_equal(done(f), "[\"vm \\\"a\\\"\\\\\\u000a\",null,\"\",0.33,0.500000000,null,null,"
			    "\"0x0\",\"0xffffffff9f007008\",\"0xffffffffffffffff\",18446744073709551615,"
			    "-9223372036854775808]");
}

static void test_fields(void **state)
{
	struct json_writer jw;
	FILE *f = open_buf(&jw);

	jsonw_begin_object(&jw);
	jsonw_string_field(&jw, "na\"me", "x");
	jsonw_null_field(&jw, "vcpu");
	jsonw_hex_field(&jw, "ip", 0xffff800090178000ull);
	jsonw_double_field(&jw, "pct", 2, 12.345);
	jsonw_int_field(&jw, "tid", 7);
	jsonw_end_object(&jw);
	assert_string_equal(done(f), "{\"na\\\"me\":\"x\",\"vcpu\":null,\"ip\":\"0xffff800090178000\","
			    "\"pct\":12.35,\"tid\":7}");
}

/* JSON Lines: each document starts at the top, with no comma before it. */
static void test_lines(void **state)
{
	struct json_writer jw;
	FILE *f = open_buf(&jw);
	int i;

	for (i = 0; i < 2; i++) {
		jsonw_begin_object(&jw);
		jsonw_uint_field(&jw, "snapshot", i + 1);
		jsonw_end_object(&jw);
		jsonw_end_line(&jw);
	}
	assert_string_equal(done(f), "{\"snapshot\":1}\n{\"snapshot\":2}\n");
	assert_int_equal(jw.depth, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_lines),
	};

	return cmocka_run_group_tests_name("json_writer", tests, NULL, NULL);
}
