// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel event filters that keep live sched events to the vCPU
 * threads (trace_pid_filter): written as runs of thread ids, refused past
 * the kernel's length; and the bpf source's start-up comparison's rule.  tests/unit/test_trace_kernel.c has the running kernel
 * parse and apply them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "sources/trace.h"

/* The bpf source's start-up comparison: equal but for an exit at each edge of its window. */
static void test_counts_agree(void **state)
{
	(void)state;
	assert_true(trace_counts_agree(0, 0));
	assert_true(trace_counts_agree(100, 100));
	assert_true(trace_counts_agree(98, 100));
	assert_true(trace_counts_agree(102, 100));
	assert_false(trace_counts_agree(97, 100));
	assert_false(trace_counts_agree(103, 100));
	assert_false(trace_counts_agree(50, 100));	/* KVMTOP_BPF_SKEW's: every other exit */
	assert_false(trace_counts_agree(0, 3));
}

static void test_runs(void **state)
{
	static const int tids[] = { 7, 100, 101, 102, 103, 200 };
	char buf[256];

	(void)state;
	assert_int_equal(trace_pid_filter(tids, 0, "prev_pid", "next_pid", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "prev_pid<0");
	assert_int_equal(trace_pid_filter(tids, 6, "pid", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pid==7||(pid>=100&&pid<=103)||pid==200");
	assert_int_equal(trace_pid_filter(tids + 1, 4, "prev_pid", "next_pid", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "(prev_pid>=100&&prev_pid<=103)||(next_pid>=100&&next_pid<=103)");
}

static void test_too_long(void **state)
{
	char buf[TRACE_FILTER_MAX + 1];
	int tids[1000], i;

	(void)state;
	/* 1000 threads none of which follows another: no run to merge */
	for (i = 0; i < 1000; i++)
		tids[i] = 1000 + 2 * i;
	assert_int_equal(trace_pid_filter(tids, 1000, "prev_pid", "next_pid", buf, sizeof(buf)), -1);
	/* the same count in one run fits */
	for (i = 0; i < 1000; i++)
		tids[i] = 1000 + i;
	assert_int_equal(trace_pid_filter(tids, 1000, "prev_pid", "next_pid", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "(prev_pid>=1000&&prev_pid<=1999)||(next_pid>=1000&&next_pid<=1999)");
}

/* mkdir -p of root/module/NAME */
static void module_dir(const char *root, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/module", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/module/%s", root, name);
	assert_int_equal(mkdir(path, 0755), 0);
}

/*
 * The host's KVM traces no exits only where PVM's module is loaded and
 * neither VMX's nor SVM's is (this test's machine: kvm and kvm_pvm).
 */
static void test_exitless_kvm(void **state)
{
	char root[] = "/tmp/kvmtop-sys-XXXXXX", mod[32] = "", path[600];

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_false(trace_exitless_kvm(root, mod, sizeof(mod)));
	module_dir(root, "kvm");
	assert_false(trace_exitless_kvm(root, mod, sizeof(mod)));
	module_dir(root, "kvm_pvm");
	assert_true(trace_exitless_kvm(root, mod, sizeof(mod)));
	assert_string_equal(mod, "kvm_pvm");
	module_dir(root, "kvm_amd");
	assert_false(trace_exitless_kvm(root, mod, sizeof(mod)));
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_agree),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_exitless_kvm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
