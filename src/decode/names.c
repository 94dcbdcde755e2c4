// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "names.h"

/* linux/kvm.h's KVM_EXIT_* in order, for formats that do not name them. */
static const char *const uexit_names[] = {
	"UNKNOWN", "EXCEPTION", "IO", "HYPERCALL", "DEBUG", "HLT", "MMIO",
	"IRQ_WINDOW_OPEN", "SHUTDOWN", "FAIL_ENTRY", "INTR", "SET_TPR",
	"TPR_ACCESS", "S390_SIEIC", "S390_RESET", "DCR", "NMI",
	"INTERNAL_ERROR", "OSI", "PAPR_HCALL", "S390_UCONTROL", "WATCHDOG",
	"S390_TSCH", "EPR", "SYSTEM_EVENT", "S390_STSI", "IOAPIC_EOI",
	"HYPERV", "ARM_NISV", "X86_RDMSR", "X86_WRMSR", "DIRTY_RING_FULL",
	"AP_RESET_HOLD", "X86_BUS_LOCK", "XEN", "RISCV_SBI", "RISCV_CSR",
	"NOTIFY", "LOONGARCH_IOCSR", "MEMORY_FAULT",
};

void names_init(struct kvm_names *n)
{
	int i;

	memset(n, 0, sizeof(*n));
	n->uexit_other = -1;
	reason_table_init(&n->reasons);
	for (i = 0; i < UEXIT_MAX - 1; i++) {
		if ((size_t)i < sizeof(uexit_names) / sizeof(uexit_names[0]))
			strlcpy(n->uexit[i], uexit_names[i], sizeof(n->uexit[i]));
		else
			snprintf(n->uexit[i], sizeof(n->uexit[i]), "UNKNOWN(%d)", i);
	}
	/* codes past the last kept apart are counted together */
	strlcpy(n->uexit[UEXIT_MAX - 1], "OTHER", sizeof(n->uexit[0]));
}

void names_free(struct kvm_names *n)
{
	int i;

	reason_table_free(&n->reasons);
	n->nr_other = 0;
	for (i = 0; i < KSTAT_SCOPES; i++)
		kstat_table_free(&n->kstats[i]);
}

const char *names_reason(const struct kvm_names *n, int id, char *buf, size_t len)
{
	if (id < 0 || (unsigned int)id >= n->reasons.nr) {
		strlcpy(buf, "-", len);
		return buf;
	}
	return reason_label(&n->reasons.r[id], buf, len);
}
