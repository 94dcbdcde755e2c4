// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshot's findings (findings.h) in batch output: a "findings:"
 * block in text (and alone: the format -o findings), a "findings" array
 * in JSON.
 */
#include <stdio.h>

#include "batch_priv.h"
#include "util/escape.h"

/* "VM web (pid 123) vCPU 1 (tid 456)", "VM web (pid 123)" or "host": the fields by name */
static const char *findings_where(const struct batch *b, const struct finding *f, char *buf, size_t len)
{
	const struct model_row row = { .m = b->m, .vm = f->vm, .v = f->vcpu };
	char name[256], pid[24], id[24], tid[24];

	if (!f->vm) {
		snprintf(buf, len, "host");
		return buf;
	}
	batch_text_field("vm_name", &row, name, sizeof(name));
	batch_text_field("vm_pid", &row, pid, sizeof(pid));
	if (f->vcpu)
		snprintf(buf, len, "VM %s (pid %s) vCPU %s (tid %s)", name, pid,
			 batch_text_field("vcpu", &row, id, sizeof(id)),
			 batch_text_field("vcpu_tid", &row, tid, sizeof(tid)));
	else
		snprintf(buf, len, "VM %s (pid %s)", name, pid);
	return buf;
}

void batch_findings_text(const struct batch *b, bool always)
{
	const struct findings *fs = b->findings;
	char at[400], ev[sizeof(fs->f->evidence) * 4];
	size_t i;

	if (!fs || (!fs->nr && !always))
		return;
	if (!fs->nr) {
		fputs("findings: none\n", b->out);
		return;
	}
	fputs("findings:\n", b->out);
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->f[i];

		fprintf(b->out, "  [%s] %s, %s: %s\n", finding_severity_name(f->severity), f->rule->id,
			findings_where(b, f, at, sizeof(at)), escape_text(f->evidence, ev, sizeof(ev)));
		fprintf(b->out, "    %s\n    remedy: %s\n", f->rule->finding, f->rule->remedy);
	}
}

/* "key": the field called name of row (model_fields.h), or null where the finding has none. */
static void findings_json_field(const struct batch *b, const char *key, const char *name,
				const struct model_row *row, bool has)
{
	jsonw_name(b->json, key);
	if (has)
		batch_json_value(b, model_field(name), row);
	else
		jsonw_null(b->json);
}

void batch_findings_json(const struct batch *b)
{
	const struct findings *fs = b->findings;
	struct json_writer *jw = b->json;
	size_t i;

	if (!fs)
		return;
	jsonw_name(jw, "findings");
	jsonw_begin_array(jw);
	for (i = 0; i < fs->nr; i++) {
		const struct finding *f = &fs->f[i];
		const struct model_row row = { .m = b->m, .vm = f->vm, .v = f->vcpu };

		jsonw_begin_object(jw);
		jsonw_string_field(jw, "rule", f->rule->id);
		jsonw_string_field(jw, "severity", finding_severity_name(f->severity));
		findings_json_field(b, "vm", "vm_name", &row, f->vm != NULL);
		findings_json_field(b, "pid", "vm_pid", &row, f->vm != NULL);
		findings_json_field(b, "vcpu", "vcpu", &row, f->vcpu != NULL);
		findings_json_field(b, "tid", "vcpu_tid", &row, f->vcpu != NULL);
		/* each a string, or null */
		jsonw_string_field(jw, "finding", f->rule->finding);
		jsonw_string_field(jw, "evidence", f->evidence);
		jsonw_string_field(jw, "remedy", f->rule->remedy);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

/* -o findings: each snapshot's findings alone. */
static int findings_print(struct batch *b, uint64_t end)
{
	if (b->in_file)
		fputc('\n', b->out);
	fprintf(b->out, "kvmtop %s: %s %u", b->source, b->summary ? "summary" : "snapshot", b->snapshots + 1);
	if (b->ns)
		fprintf(b->out, ", %.6f s", batch_seconds(b, end));
	fputc('\n', b->out);
	batch_findings_text(b, true);
	return 0;
}

const struct batch_format batch_format_findings = {
	.name = "findings",
	.print = findings_print,
	.findings = true,
};
