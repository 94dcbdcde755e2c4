// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshot's findings (findings.h): what is wrong, where, the figures
 * that prove it; Enter opens where it is (a VM's vCPUs, a vCPU's exit
 * reasons), the footer line under the table says the selected one's remedy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "model/findings.h"
#include "tui_priv.h"

struct finding_row {
	unsigned int idx;	/* its place in the snapshot's findings */
	int severity;
	char rule[32];
	char where[320];
	char evidence[400];
	int vm_pid;		/* 0: the host's */
	int tid;		/* 0: the VM's */
	const char *remedy;	/* its rule's, a constant */
};

PANE_CMP(findings, finding_row, severity)

static int findings_cmp_rule(const void *a, const void *b)
{
	return strcmp(((const struct finding_row *)a)->rule, ((const struct finding_row *)b)->rule);
}

static int findings_cmp_where(const void *a, const void *b)
{
	return strcmp(((const struct finding_row *)a)->where, ((const struct finding_row *)b)->where);
}

static void findings_c_severity(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", finding_severity_name(((const struct finding_row *)r)->severity));
}

static void findings_c_rule(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct finding_row *)r)->rule);
}

static void findings_c_where(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct finding_row *)r)->where);
}

static void findings_c_evidence(const struct tui *t, const void *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ((const struct finding_row *)r)->evidence);
}

static const struct pane_col findings_cols[] = {
	{ "severity", "SEVERITY", 8,   COL_LEFT, findings_c_severity, findings_cmp_severity, true,  9, 0, NULL },
	{ "rule",     "FINDING",  12,  COL_LEFT, findings_c_rule,     findings_cmp_rule,     false, 8, 0, NULL },
	{ "where",    "WHERE",    34,  COL_LEFT, findings_c_where,    findings_cmp_where,    false, 7, 0, NULL },
	{ "evidence", "EVIDENCE", 120, COL_LEFT, findings_c_evidence, NULL,                  false, 6, 0, NULL },
};

static void findings_where(const struct finding *f, struct finding_row *w)
{
	char name[MODEL_NAME_LEN * 4];

	if (!f->vm) {
		snprintf(w->where, sizeof(w->where), "host");
		return;
	}
	escape_text(f->vm->name, name, sizeof(name));
	w->vm_pid = f->vm->pid;
	if (f->vcpu) {
		w->tid = f->vcpu->tid;
		snprintf(w->where, sizeof(w->where), "%s vCPU %d (tid %d)", name, f->vcpu->vcpu_id, f->vcpu->tid);
	} else {
		snprintf(w->where, sizeof(w->where), "%s (pid %d)", name, f->vm->pid);
	}
}

static int findings_build(struct tui *t, struct pane *p)
{
	const struct findings *fs = t->findings;
	struct finding_row *rows;
	size_t i, n = fs ? fs->nr : 0;

	p->nr = 0;
	p->rows = rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (i = 0; i < n; i++) {
		const struct finding *f = &fs->f[i];
		struct finding_row *w = &rows[p->nr++];

		w->idx = (unsigned int)i;
		w->severity = f->severity;
		snprintf(w->rule, sizeof(w->rule), "%s", f->rule->id);
		w->remedy = f->rule->remedy;
		findings_where(f, w);
		escape_text(f->evidence, w->evidence, sizeof(w->evidence));
	}
	return 0;
}

static uint64_t findings_key(const void *r)
{
	return ((const struct finding_row *)r)->idx;
}

static const char *findings_label(const struct tui *t, const void *r, char *buf, size_t len)
{
	const struct finding_row *w = r;

	snprintf(buf, len, "%s %s %s", w->rule, w->where, w->evidence);
	return buf;
}

/* Enter: the VM's vCPUs, or the vCPU's exit reasons */
static int findings_enter(struct tui *t, const void *r)
{
	const struct finding_row *w = r;

	if (!w->vm_pid || !tui_find_vm(t, w->vm_pid))
		return 1;
	return w->tid ? tui_push(t, PANE_REASONS, w->vm_pid, w->tid) : tui_push(t, PANE_VCPUS, w->vm_pid, -1);
}

static const char *findings_empty(const struct tui *t, const struct pane *p)
{
	return t->findings ? "no finding: nothing this snapshot's figures show is wrong" :
			     "findings come with the first snapshot";
}

static void findings_title(const struct tui *t, const struct pane *p, char *buf, size_t len)
{
	const struct finding_row *r = tui_selected(t);

	/* the selected finding's remedy, where the title goes */
	if (r)
		snprintf(buf, len, "Remedy: %s", r->remedy);
	else
		snprintf(buf, len, "Findings: what this snapshot's figures show is wrong (man kvmtop: FINDINGS); Enter opens where");
}

const struct pane_ops pane_findings = {
	.name = "findings",
	.cols = findings_cols,
	.nr_cols = sizeof(findings_cols) / sizeof(findings_cols[0]),
	.default_sort = 0,
	.row_size = sizeof(struct finding_row),
	.build = findings_build,
	.key = findings_key,
	.label = findings_label,
	.enter = findings_enter,
	.empty = findings_empty,
	.title = findings_title,
};
