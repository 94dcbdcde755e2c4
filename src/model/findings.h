/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Findings: what is wrong with a VM or a vCPU in a snapshot, the figures
 * that prove it and the usual remedy, from one table of rules
 * (findings.c) evaluated on the model's scopes.  Every view shows the
 * same findings: text, JSON, -o findings, the screen's findings pane.
 * man/kvmtop.1's FINDINGS section lists every rule.
 */
#ifndef KVMTOP_FINDINGS_H
#define KVMTOP_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "model_scope.h"

enum finding_severity { FS_INFO, FS_WARNING, FS_SEVERE };

enum finding_scope { FSC_HOST, FSC_VM, FSC_VCPU };

/* What a rule reads: one scope's figures in one snapshot. */
struct finding_in {
	const struct model *m;
	const struct vm *vm;		/* NULL: the host's */
	const struct vcpu *vcpu;	/* NULL: the VM's or the host's */
	const struct model_scope *sc;	/* the scope's figures, with model_scope_summary() */
	uint64_t len;			/* the snapshot's length, in the time unit */
	double secs;			/* the same in seconds, 0 when times are not ns */
};

struct finding_rule {
	const char *id;
	enum finding_scope scope;
	const char *reads;		/* the figures it reads */
	const char *threshold;		/* when it fires */
	const char *finding;		/* what is wrong */
	const char *remedy;		/* the usual remedy */
	const char *source;		/* where the advice comes from */
	/* Fires on in: its severity (evidence written), or -1. */
	int (*eval)(const struct finding_in *in, char *evidence, size_t len);
};

extern const struct finding_rule finding_rules[];
extern const size_t finding_nr_rules;

struct finding {
	const struct finding_rule *rule;
	enum finding_severity severity;
	const struct vm *vm;		/* NULL: the host's */
	const struct vcpu *vcpu;	/* NULL: the VM's (or the host's) */
	char evidence[400];
};

struct findings {
	struct finding *f;
	size_t nr, alloc;
	bool severe;			/* one of them is */
};

/*
 * Every rule on every scope of the snapshot [start, end] (the model's
 * interval figures): the host, each VM, each vCPU thread.  0, or -1 (no
 * memory: f holds what was found).  f is emptied first.
 */
int findings_eval(struct findings *f, const struct model *m, uint64_t start, uint64_t end, bool ns);
void findings_free(struct findings *f);
const char *finding_severity_name(enum finding_severity s);

#endif
