// SPDX-License-Identifier: GPL-2.0
/*
 * The reason fields are declared once (src/model/model_fields.c) and every
 * output takes them from there: CSV's header, JSON's reason keys and the
 * screen's reasons pane are each derived from the one table here, and
 * must agree with it and so with each other -- the same names in the
 * same order, every field in every row (null or empty where the input
 * does not measure it), the pane's titles the table's.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "outputs/batch.h"
#include "model/model.h"
#include "model/model_fields.h"
#include "ui/tui_priv.h"	/* the panes' columns */
#include "model/model_feed.h"

static struct kvm_event ev(enum kvm_event_kind kind, uint64_t t, int tid, int reason_id)
{
	struct kvm_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.time = t;
	e.tid = tid;
	e.vcpu_id = KVM_VCPU_NONE;
	e.reason_id = reason_id;
	e.other = -1;
	e.sub = -1;
	return e;
}

/* One snapshot of a model of one vCPU thread with two reasons, in format -o name: the text (free it). */
static char *print(const char *name)
{
	const struct batch_format *fmt = batch_format_find(name);
	struct view_source src = { .name = "replay", .clock = "local", .time_unit = "ns", .ns = true };
	struct batch_config c = { .fmt = fmt };
	struct metrics_opts mo;
	struct kvm_names nm;
	struct kvm_event e;
	struct model *m;
	struct batch b;
	char *text = NULL;
	size_t len = 0;
	int io, hlt;

	assert_non_null(fmt);
	metrics_opts_init(&mo);
	c.metrics = &mo;
	names_init(&nm);
	io = reason_intern(&nm.reasons, ISA_VMX, 30, 0, "IO_INSTRUCTION", NULL, false, false);
	hlt = reason_intern(&nm.reasons, ISA_VMX, 12, 0, "HLT", NULL, true, false);
	m = model_new(&nm, 8, NULL, NULL);
	assert_non_null(m);
	e = ev(KVM_EV_EXIT, 100, 7, io);
	assert_int_equal(model_feed(m, &e), 0);
	e = ev(KVM_EV_ENTRY, 150, 7, -1);
	assert_int_equal(model_feed(m, &e), 0);
	e = ev(KVM_EV_EXIT, 200, 7, hlt);
	assert_int_equal(model_feed(m, &e), 0);
	batch_view_init(&b, &c);
	b.out = open_memstream(&text, &len);
	assert_non_null(b.out);
	assert_int_equal(b.view.ops->start(b.view.ctx, &src, m), 0);
	assert_int_equal(batch_print(&b, 1000), 0);
	fclose(b.out);
	model_free(m);
	names_free(&nm);
	return text;
}

/*
 * CSV's header: every field of the table in its order (the snapshot's, a
 * VM's, a vCPU's, a reason's; not an object's), nothing else (no KVM
 * statistics from a recording).
 */
static void test_csv(void **state)
{
	char *text = print("csv"), *line, *save = NULL, *col;
	unsigned int i = 0, nobj;

	(void)state;
	model_fields_of(MR_OBJECT, &nobj);
	line = strtok_r(text, "\n", &save);
	assert_non_null(line);
	for (col = strtok_r(line, ",", &save); col; col = strtok_r(NULL, ",", &save), i++) {
		assert_true(i < model_nr_fields - nobj);
		assert_string_equal(col, model_fields[i].name);
	}
	/* an object's fields are its own rows' (--fields), not every row's */
	assert_int_equal(i, model_nr_fields - nobj);
	assert_string_equal(model_fields[0].name, "snapshot");
	free(text);
}

/*
 * The keys of the JSON object at p (one nesting level), as the table
 * names them: "key" or "group.key"; into keys, their count returned.
 */
static unsigned int json_keys(const char *p, char keys[][100], unsigned int max)
{
	char group[48] = "";
	unsigned int n = 0;
	int depth = 0;

	for (; *p; p++) {
		if (*p == '{') {
			depth++;
		} else if (*p == '}') {
			if (--depth == 0)
				break;
			group[0] = '\0';
		} else if (*p == '"') {
			const char *q = strchr(p + 1, '"');
			char key[48];

			assert_non_null(q);
			snprintf(key, sizeof(key), "%.*s", (int)(q - p - 1), p + 1);
			p = q;
			if (p[1] != ':')
				continue;	/* a string value */
			if (p[2] == '{') {
				strcpy(group, key);
				continue;
			}
			assert_true(n < max);
			snprintf(keys[n++], sizeof(keys[0]), "%s%s%s", group, group[0] ? "." : "", key);
		}
	}
	return n;
}

/* A JSON reason object: every field of the table, as group.key, in its order. */
static void test_json(void **state)
{
	char *text = print("json"), keys[64][100], want[100];
	const char *r = strstr(text, "\"reasons\":[{");
	unsigned int i, n, nr;
	const struct model_field *rf = model_fields_of(MR_REASON, &nr);

	(void)state;
	assert_non_null(r);
	n = json_keys(r + strlen("\"reasons\":["), keys, 64);
	/* then its objects, an array (none here: the events name none) */
	assert_int_equal(n, nr + 1);
	assert_string_equal(keys[nr], "objects");
	n = nr;
	for (i = 0; i < n; i++) {
		const struct model_field *f = &rf[i];

		snprintf(want, sizeof(want), "%s%s%s", f->group ? f->group : "", f->group ? "." : "", f->key);
		assert_string_equal(keys[i], want);
	}
	/* no sched events here: the split is null, as CSV leaves it empty */
	assert_non_null(strstr(r, "\"preempted_seconds\":null"));
	free(text);
}

/*
 * The panes' field columns: each a field of the table, of the pane's kind
 * of row, titled by it; the reasons pane's and the VMs' and vCPUs' own.
 */
static void test_pane(void **state)
{
	static const struct { enum pane_id id; enum model_row_kind kind; unsigned int min; } panes[] = {
		{ PANE_REASONS, MR_REASON, 10 }, { PANE_VMS, MR_VM, 3 }, { PANE_VCPUS, MR_VCPU, 4 },
	};
	unsigned int k, fields;
	int i;

	(void)state;
	for (k = 0; k < sizeof(panes) / sizeof(panes[0]); k++) {
		const struct pane_ops *ops = tui_panes[panes[k].id];

		for (i = 0, fields = 0; i < ops->nr_cols; i++) {
			const struct pane_col *c = &ops->cols[i];

			if (!c->field)
				continue;
			assert_non_null(model_field(c->field));
			assert_int_equal(model_field(c->field)->row, panes[k].kind);
			/* the title is the table's: the pane has none of its own */
			assert_null(c->title);
			fields++;
		}
		assert_true(fields >= panes[k].min);
	}
}

/*
 * A VM's and a vCPU's JSON objects begin with their fields of the table,
 * each by its key, in the table's order, a group's in its object
 * ("latency":{...}), but those JSON writes apart; CSV's VM and vCPU
 * columns are among them.
 */
static void test_json_rows(void **state)
{
	static const struct { enum model_row_kind kind; const char *at; } objs[] = {
		{ MR_VM, "\"vms\":[{" }, { MR_VCPU, "\"vcpus\":[{" },
	};
	char *text = print("json");
	unsigned int i, j, n;

	(void)state;
	for (i = 0; i < 2; i++) {
		const struct model_field *fs = model_fields_of(objs[i].kind, &n);
		const char *p = strstr(text, objs[i].at);

		assert_non_null(p);
		p += strlen(objs[i].at);
		assert_true(n >= 3);
		for (j = 0; j < n; j++) {
			const char *group = j ? fs[j - 1].group : NULL;
			char want[64];

			if (fs[j].json_apart)
				continue;	/* JSON's own place: the exits, time_seconds, threads */
			if (group && (!fs[j].group || strcmp(group, fs[j].group))) {
				/* out of the group's object: its '}' taken, its ',' next */
				assert_int_equal(p[-1], '}');
				assert_int_equal(*p++, ',');
			}
			if (fs[j].group && (!group || strcmp(group, fs[j].group))) {
				snprintf(want, sizeof(want), "\"%s\":{", fs[j].group);
				assert_memory_equal(p, want, strlen(want));
				p += strlen(want);
			}
			snprintf(want, sizeof(want), "\"%s\":", fs[j].key);
			assert_memory_equal(p, want, strlen(want));
			p = strpbrk(p + strlen(want), ",}");
			assert_non_null(p);
			p++;
		}
	}
	free(text);
}

/*
 * A VM's field's vCPU counterpart (the VMs pane's tree, F5): the pairs
 * the figures' meanings give (written here, not read from the table),
 * none where the names look alike but mean other things; each pair a VM's
 * and a vCPU's field of one kind and one histogram.
 */
static void test_pairs(void **state)
{
	static const struct { const char *vm, *vcpu; } want[] = {
		{ "vm_pid", "vcpu_tid" }, { "vm_exits", "vcpu_exits" }, { "vm_exits_total", "vcpu_exits_total" },
		{ "vm_exits_per_s", "vcpu_exits_per_s" }, { "vm_latency_mean", "vcpu_latency_mean" },
		{ "vm_latency_stddev", "vcpu_latency_stddev" }, { "vm_latency_p99", "vcpu_latency_p99" },
		{ "vm_halt_pct", "vcpu_halt_pct" }, { "vm_util_pct", "vcpu_util_pct" },
		{ "vm_steal_pct", "vcpu_steal_pct" }, { "vm_top_reason", "vcpu_top_reason" },
		{ "vm_unmatched_exits", "vcpu_unmatched_exits" }, { "vm_unmatched_entries", "vcpu_unmatched_entries" },
		{ "vm_name", NULL }, { "vm_state", NULL }, { "vm_numa_node", NULL }, { "vm_exits_pct", NULL },
		{ "vm_vcpu_count", NULL }, { "vm_emulator_run_pct", NULL }, { "vm_mem_rss_bytes", NULL },
	};
	const struct model_field *vms, *f;
	unsigned int i, n;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		f = model_field_vcpu_of(model_field(want[i].vm));
		assert_non_null(model_field(want[i].vm));
		if (want[i].vcpu)
			assert_ptr_equal(f, model_field(want[i].vcpu));
		else
			assert_null(f);
	}
	vms = model_fields_of(MR_VM, &n);
	for (i = 0; i < n; i++) {
		f = model_field_vcpu_of(&vms[i]);
		if (!f)
			continue;
		assert_int_equal(f->row, MR_VCPU);
		assert_int_equal(f->kind, vms[i].kind);
		assert_int_equal(f->hist, vms[i].hist);
	}
	/* only a VM's field has one */
	assert_null(model_field_vcpu_of(model_field("vcpu_exits")));
	assert_null(model_field_vcpu_of(NULL));
}

/* Names are unique across the whole table: CSV's columns and the pane's names pick by them. */
static void test_unique(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; i < model_nr_fields; i++) {
		for (j = i + 1; j < model_nr_fields; j++)
			assert_string_not_equal(model_fields[i].name, model_fields[j].name);
		assert_ptr_equal(model_field(model_fields[i].name), &model_fields[i]);
		/* each kind's fields together, in the order snapshot, VM, vCPU, reason */
		assert_true(!i || model_fields[i - 1].row <= model_fields[i].row);
		/* each with one line saying what it is (--fields help, the man page) */
		assert_non_null(model_fields[i].desc);
		assert_true(model_fields[i].desc[0] && !strchr(model_fields[i].desc, '\n'));
	}
	assert_null(model_field("no_such_field"));
	/*
	 * the old names (model_field_names.c): none a field's now (but a
	 * pane's old column name, of another level's field: the VMs pane's
	 * total), each new one a field, unique for its pane
	 */
	for (i = 0; i < model_nr_field_aliases; i++) {
		assert_true(!model_field(model_field_aliases[i].old) || model_field_aliases[i].pane);
		/* a new name is a field's, or a family's (vm_kvm_<stat>: KVM's statistics) */
		assert_true(model_field(model_field_aliases[i].name) ||
			    model_field_family(model_field_aliases[i].name));
		for (j = i + 1; j < model_nr_field_aliases; j++)
			assert_true(strcmp(model_field_aliases[i].old, model_field_aliases[j].old) ||
				    model_field_aliases[i].pane || model_field_aliases[j].pane);
	}
	assert_string_equal(model_field_renamed("p99", NULL), "latency_p99");
	assert_string_equal(model_field_renamed("pid", "VMs"), "vm_pid");
	assert_null(model_field_renamed("pid", NULL));
	assert_null(model_field_renamed("latency_p99", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_rows),
		cmocka_unit_test(test_pane),
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_pairs),
	};

	return cmocka_run_group_tests_name("fields", tests, NULL, NULL);
}
