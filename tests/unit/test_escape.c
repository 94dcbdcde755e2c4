// SPDX-License-Identifier: GPL-2.0
/* Names from guests and /proc never carry control bytes to a terminal, CSV or JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/escape.h"
#include "model/model.h"

static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	fn(f, s);
	fclose(f);
	return buf;
}

static void test_text(void **state)
{
	char buf[128];

	assert_string_equal(escape_text("CPU 0/KVM", buf, sizeof(buf)), "CPU 0/KVM");
	assert_string_equal(escape_text("a\033[2Jb", buf, sizeof(buf)), "a\\x1b[2Jb");
	assert_string_equal(escape_text("x\\y\n", buf, sizeof(buf)), "x\\\\y\\x0a");
	/* valid UTF-8 stays, broken UTF-8 and C1 controls do not */
	assert_string_equal(escape_text("gäst", buf, sizeof(buf)), "gäst");
	assert_string_equal(escape_text("a\xff" "b", buf, sizeof(buf)), "a\\xffb");
	assert_string_equal(escape_text("\xc2\x9b" "1m", buf, sizeof(buf)), "\\xc2\\x9b1m");
	/* truncation never cuts an escape in half */
	assert_string_equal(escape_text("\033\033", buf, 6), "\\x1b");
}

static void test_json(void **state)
{
	assert_string_equal(capture(escape_json, "vm \"a\"\\\n\x01"),
			    "\"vm \\\"a\\\"\\\\\\u000a\\u0001\"");
	assert_string_equal(capture(escape_json, "a\xfe"), "\"a\\ufffd\"");
}

static void test_csv(void **state)
{
	assert_string_equal(capture(escape_csv, "plain"), "plain");
	assert_string_equal(capture(escape_csv, "a,b"), "\"a,b\"");
	assert_string_equal(capture(escape_csv, "say \"hi\""), "\"say \"\"hi\"\"\"");
	/* a cell a spreadsheet would take for a formula is quoted and starts with ', and only then */
	assert_string_equal(capture(escape_csv, "=cmd()"), "\"'=cmd()\"");
	assert_string_equal(capture(escape_csv, "+1+2"), "\"'+1+2\"");
	assert_string_equal(capture(escape_csv, "-2+3"), "\"'-2+3\"");
	assert_string_equal(capture(escape_csv, "@SUM(A1)"), "\"'@SUM(A1)\"");
	assert_string_equal(capture(escape_csv, "vm-1=a"), "vm-1=a");
	assert_string_equal(capture(escape_csv, "a\nb"), "a\\x0ab");
}

static void test_vcpu_from_comm(void **state)
{
	assert_int_equal(ident_vcpu_id("CPU 3/KVM"), 3);
	assert_int_equal(ident_vcpu_id("CPU 12/KVM"), 12);
	assert_int_equal(ident_vcpu_id("kvm-vcpu-7"), 7);
	assert_int_equal(ident_vcpu_id("qemu-system-x86"), -1);
	assert_int_equal(ident_vcpu_id("CPU x/KVM"), -1);
	assert_int_equal(ident_vcpu_id(""), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_vcpu_from_comm),
	};

	return cmocka_run_group_tests_name("escape", tests, NULL, NULL);
}
