// SPDX-License-Identifier: GPL-2.0
/*
 * Guest symbol tables: kallsyms and System.map lines, aliases, modules,
 * the symbols that only end others, KASLR offsets given or inferred from
 * _text, per-VM choice, and a one-line error naming the file and line
 * for every bad input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sym/sym.h"

static char path[64];

static const char *write_tmp(const char *text)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/kvmtop-sym.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff9a000000 T _stext\n"
	"ffffffff9a000000 T _text\n"
	"ffffffff9a000000 t startup_64\n"
	"ffffffff9a001000 T native_safe_halt\n"
	"ffffffff9a001040 t default_idle\n"
	"ffffffff9a001040 W default_idle_weak\n"
	"ffffffff9a002000 T _etext\n"
	"ffffffff9a100000 D init_task\n"
	"ffffffffc0a01000 t vring_interrupt\t[virtio_ring]\n"
	"ffffffffc0a01200 T virtqueue_notify\t[virtio_ring]\n"
	"ffffffffc0a02000 d ring_data\t[virtio_ring]\n";

static void name_of(const struct sym_table *t, uint64_t ip, char *buf, size_t len)
{
	sym_ip(t, ip, true, buf, len);
}

static void test_kallsyms(void **state)
{
	struct sym_table t;
	char err[256], buf[256];

	assert_int_equal(sym_table_load(&t, write_tmp(kallsyms), err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(t.text, 0xffffffff9a000000ull);
	name_of(&t, 0xffffffff9a001003ull, buf, sizeof(buf));
	assert_string_equal(buf, "native_safe_halt+0x3");
	/* aliases: global code names the address first, then local, then weak */
	name_of(&t, 0xffffffff9a000010ull, buf, sizeof(buf));
	assert_string_equal(buf, "_stext+0x10");
	name_of(&t, 0xffffffff9a001040ull, buf, sizeof(buf));
	assert_string_equal(buf, "default_idle+0x0");
	/* _etext and data end the code before them */
	name_of(&t, 0xffffffff9a002010ull, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	name_of(&t, 0xffffffff9a100010ull, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	/* modules */
	name_of(&t, 0xffffffffc0a01234ull, buf, sizeof(buf));
	assert_string_equal(buf, "virtqueue_notify+0x34 [virtio_ring]");
	sym_ip(&t, 0xffffffffc0a01234ull, false, buf, sizeof(buf));
	assert_string_equal(buf, "virtqueue_notify [virtio_ring]");
	/* below every symbol, and user space */
	name_of(&t, 0x7f0000001000ull, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	assert_int_equal(sym_ip(&t, 0x1000, true, buf, sizeof(buf)), 0);
	/* far past the last symbol */
	name_of(&t, 0xffffffffc0a01200ull + SYM_MAX_SIZE, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	/* no table: hex */
	assert_int_equal(sym_ip(NULL, 0xffffffff9a001003ull, true, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "0xffffffff9a001003");
	sym_table_free(&t);
}

/* A System.map (link-time addresses) with the guest's KASLR offset: given, or inferred from _text. */
static void test_kaslr(void **state)
{
	static const char map[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T native_safe_halt\n"
		"ffffffff81001040 t default_idle\n"
		"ffffffff81002000 T _etext\n";
	struct sym_set set = { NULL, 0 };
	const struct sym_table *t;
	char err[256], arg[128], buf[256];

	write_tmp(map);
	snprintf(arg, sizeof(arg), "web1=%s", path);
	assert_int_equal(sym_set_add(&set, arg, SYM_MAP, err, sizeof(err)), 0);
	assert_int_equal(sym_set_kaslr(&set, "web1=_text=0xffffffff9a000000", err, sizeof(err)), 0);
	snprintf(arg, sizeof(arg), "4242=%s", path);
	assert_int_equal(sym_set_add(&set, arg, SYM_MAP, err, sizeof(err)), 0);
	assert_int_equal(sym_set_kaslr(&set, "4242=0x1e000000", err, sizeof(err)), 0);
	assert_int_equal(sym_set_add(&set, path, SYM_MAP, err, sizeof(err)), 0);
	assert_int_equal(sym_set_load(&set, err, sizeof(err)), 0);
	unlink(path);

	t = sym_set_find(&set, 100, "web1");
	name_of(t, 0xffffffff9a001044ull, buf, sizeof(buf));
	assert_string_equal(buf, "default_idle+0x4");
	t = sym_set_find(&set, 4242, "web1");		/* the pid first */
	name_of(t, 0xffffffff9f001003ull, buf, sizeof(buf));
	assert_string_equal(buf, "native_safe_halt+0x3");
	t = sym_set_find(&set, 7, "other");		/* the table for every VM: no offset */
	name_of(t, 0xffffffff81001003ull, buf, sizeof(buf));
	assert_string_equal(buf, "native_safe_halt+0x3");
	name_of(t, 0xffffffff9a001003ull, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	sym_set_free(&set);
	assert_null(sym_set_find(&set, 7, "other"));
}

/* The file's path, then want. */
static void load_fails(const char *text, const char *want)
{
	struct sym_table t;
	char err[256], expect[256];

	write_tmp(text);
	assert_int_equal(sym_table_load(&t, path, err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "%s%s", path, want);
	assert_string_equal(err, expect);
	unlink(path);
}

static void test_errors(void **state)
{
	struct sym_set set = { NULL, 0 };
	struct sym_table t;
	char err[256];

	load_fails("ffffffff81000000 T _text\nthis is not a symbol\n",
		   ":2: not a symbol line 'ADDRESS TYPE NAME' (kallsyms or System.map)");
	load_fails("ffffffff81000000 T\n",
		   ":1: not a symbol line 'ADDRESS TYPE NAME' (kallsyms or System.map)");
	load_fails("0000000000000000 T _text\n0000000000000000 t foo\n",
		   ": every address is 0: the guest's kptr_restrict hid them (copy /proc/kallsyms as root)");
	load_fails("", ": no code symbols (types t, T, w, W) in it");
	/* an address is hex digits: strtoull alone would take these */
	load_fails("-1 T _text\n", ":1: not a symbol line 'ADDRESS TYPE NAME' (kallsyms or System.map)");
	load_fails("+10 T _text\n", ":1: not a symbol line 'ADDRESS TYPE NAME' (kallsyms or System.map)");
	load_fails("ffffffff81000000 D data_only\n", ": no code symbols (types t, T, w, W) in it");
	assert_int_equal(sym_table_load(&t, "/nonexistent/kallsyms", err, sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/kallsyms: No such file or directory");

	assert_int_equal(sym_set_add(&set, "=x", SYM_KALLSYMS, err, sizeof(err)), -1);
	assert_string_equal(err, "'=x' is not VM=FILE or FILE");
	assert_int_equal(sym_set_add(&set, "web1=", SYM_KALLSYMS, err, sizeof(err)), -1);
	/* a pid past int: once read as atoi's wrapped value */
	assert_int_equal(sym_set_add(&set, "99999999999999999999=/a", SYM_KALLSYMS, err, sizeof(err)), -1);
	assert_string_equal(err, "VM 99999999999999999999: a host pid is from 1 to 2147483647");
	assert_int_equal(set.nr, 0);
	assert_int_equal(sym_set_kaslr(&set, "web1=0x1000", err, sizeof(err)), -1);
	assert_string_equal(err, "'web1=0x1000': give --guest-kallsyms or --guest-map for VM web1 first");
	assert_int_equal(sym_set_add(&set, "web1=/a", SYM_KALLSYMS, err, sizeof(err)), 0);
	assert_int_equal(sym_set_add(&set, "web1=/b", SYM_MAP, err, sizeof(err)), -1);
	assert_string_equal(err, "a second symbol table for VM web1");
	assert_int_equal(sym_set_kaslr(&set, "web1=0xzz", err, sizeof(err)), -1);
	assert_string_equal(err, "'web1=0xzz': '0xzz' is not an offset (0x1e000000) or _text=ADDRESS");
	assert_int_equal(sym_set_kaslr(&set, "web1=_text=nope", err, sizeof(err)), -1);
	assert_int_equal(sym_set_kaslr(&set, "web1=+0x1000", err, sizeof(err)), -1);
	assert_int_equal(sym_set_kaslr(&set, "web1= 0x1000", err, sizeof(err)), -1);
	assert_int_equal(sym_set_kaslr(&set, "web1=0x1000", err, sizeof(err)), 0);
	assert_int_equal(sym_set_kaslr(&set, "web1=0x2000", err, sizeof(err)), -1);
	assert_string_equal(err, "'web1=0x2000': a second KASLR offset for the same VM");
	sym_set_free(&set);

	/* _text=ADDR needs a _text in the file */
	write_tmp("ffffffff81001000 T native_safe_halt\n");
	assert_int_equal(sym_set_add(&set, path, SYM_MAP, err, sizeof(err)), 0);
	assert_int_equal(sym_set_kaslr(&set, "_text=0xffffffff9a000000", err, sizeof(err)), 0);
	assert_int_equal(sym_set_load(&set, err, sizeof(err)), -1);
	unlink(path);
	assert_true(strstr(err, ": no _text symbol to infer the KASLR offset from") != NULL);
	sym_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kaslr),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
