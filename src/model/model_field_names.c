// SPDX-License-Identifier: GPL-2.0
/*
 * The fields' old names (issue 44's renames, HACKING's "Names of
 * figures"): --fields, --sort and the settings file still read them,
 * with one notice.  The man page's HISTORY lists this table
 * (tests/docs.py checks it against --fields help's list).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model_fields.h"

const struct model_field_alias model_field_aliases[] = {
	{ "vm_display",             "vm_display_name", NULL },
	{ "vm_vcpus",               "vm_vcpu_count", NULL },
	{ "vm_exits_s",             "vm_exits_per_s", NULL },
	{ "emulator_run_s",         "vm_emulator_run_seconds", NULL },
	{ "emulator_wait_s",        "vm_emulator_wait_seconds", NULL },
	{ "vhost_run_s",            "vm_vhost_run_seconds", NULL },
	{ "vhost_wait_s",           "vm_vhost_wait_seconds", NULL },
	{ "mem_rss",                "vm_mem_rss_bytes", NULL },
	{ "mem_swap",               "vm_mem_swap_bytes", NULL },
	{ "majflt_s",               "vm_majflt_per_s", NULL },
	{ "guest_ram",              "vm_guest_ram_bytes", NULL },
	{ "guest_ram_from",         "vm_guest_ram_from", NULL },
	{ "huge_pct",               "vm_huge_pct", NULL },
	{ "disk_rd_bps",            "vm_disk_rd_bytes_per_s", NULL },
	{ "disk_wr_bps",            "vm_disk_wr_bytes_per_s", NULL },
	{ "disk_rd_ops",            "vm_disk_rd_ops_per_s", NULL },
	{ "disk_wr_ops",            "vm_disk_wr_ops_per_s", NULL },
	{ "blkio_pct",              "vm_blkio_pct", NULL },
	{ "net_taps",               "vm_net_taps", NULL },
	{ "net_rx_bps",             "vm_net_rx_bytes_per_s", NULL },
	{ "net_tx_bps",             "vm_net_tx_bytes_per_s", NULL },
	{ "net_rx_pps",             "vm_net_rx_packets_per_s", NULL },
	{ "net_tx_pps",             "vm_net_tx_packets_per_s", NULL },
	{ "net_drops_s",            "vm_net_drops_per_s", NULL },
	{ "psi_cpu_some",           "vm_psi_cpu_some_pct", NULL },
	{ "psi_cpu_full",           "vm_psi_cpu_full_pct", NULL },
	{ "psi_mem_some",           "vm_psi_mem_some_pct", NULL },
	{ "psi_mem_full",           "vm_psi_mem_full_pct", NULL },
	{ "psi_io_some",            "vm_psi_io_some_pct", NULL },
	{ "psi_io_full",            "vm_psi_io_full_pct", NULL },
	{ "numa_node",              "vm_numa_node", NULL },
	{ "numa_node_pct",          "vm_numa_node_pct", NULL },
	{ "numa_local_pct",         "vm_numa_local_pct", NULL },
	{ "tid",                    "vcpu_tid", NULL },
	{ "comm",                   "vcpu_comm", NULL },
	{ "last_cpu",               "vcpu_last_cpu", NULL },
	{ "node",                   "vcpu_node", NULL },
	{ "vcpu_exits_s",           "vcpu_exits_per_s", NULL },
	{ "guest_s",                "vcpu_guest_seconds", NULL },
	{ "host_s",                 "vcpu_host_seconds", NULL },
	{ "vmm_s",                  "vcpu_vmm_seconds", NULL },
	{ "halt_s",                 "vcpu_halt_seconds", NULL },
	{ "wait_s",                 "vcpu_wait_seconds", NULL },
	{ "samples",                "latency_samples", NULL },
	{ "min",                    "latency_min", NULL },
	{ "mean",                   "latency_mean", NULL },
	{ "stddev",                 "latency_stddev", NULL },
	{ "p50",                    "latency_p50", NULL },
	{ "p90",                    "latency_p90", NULL },
	{ "p99",                    "latency_p99", NULL },
	{ "p999",                   "latency_p999", NULL },
	{ "max",                    "latency_max", NULL },
	{ "sum",                    "latency_sum", NULL },
	{ "preempted_s",            "preempted_seconds", NULL },
	{ "blocked_s",              "blocked_seconds", NULL },
	{ "object_kind",            "obj_kind", NULL },
	{ "object",                 "obj_object", NULL },
	{ "object_name",            "obj_name", NULL },
	{ "dir",                    "obj_dir", NULL },
	{ "size",                   "obj_size_bytes", NULL },
	{ "obj_samples",            "obj_latency_samples", NULL },
	{ "obj_min",                "obj_latency_min", NULL },
	{ "obj_mean",               "obj_latency_mean", NULL },
	{ "obj_stddev",             "obj_latency_stddev", NULL },
	{ "obj_p50",                "obj_latency_p50", NULL },
	{ "obj_p90",                "obj_latency_p90", NULL },
	{ "obj_p99",                "obj_latency_p99", NULL },
	{ "obj_p999",               "obj_latency_p999", NULL },
	{ "obj_max",                "obj_latency_max", NULL },
	{ "obj_sum",                "obj_latency_sum", NULL },
	/*
	 * The screen's columns, each pane's: every VMs and vCPUs column is a
	 * field's, named as the field (an old name there may be another
	 * level's field: the reasons pane's total, pct, latency_p99)
	 */
	{ "name",                   "vm_name", "VMs" },
	{ "pid",                    "vm_pid", "VMs" },
	{ "vcpus",                  "vm_vcpu_count", "VMs" },
	{ "display_name",           "vm_display_name", "VMs" },
	{ "uuid",                   "vm_uuid", "VMs" },
	{ "exits_s",               "vm_exits_per_s", "VMs" },
	{ "exits_per_s",           "vm_exits_per_s", "VMs" },
	{ "total",                 "vm_exits_total", "VMs" },
	{ "pct",                   "vm_exits_pct", "VMs" },
	{ "latency_mean",          "vm_latency_mean", "VMs" },
	{ "latency_p99",           "vm_latency_p99", "VMs" },
	{ "halted",                "vm_halt_pct", "VMs" },
	{ "halt",                  "vm_halt_pct", "VMs" },
	{ "util",                  "vm_util_pct", "VMs" },
	{ "steal",                 "vm_steal_pct", "VMs" },
	{ "emu",                   "vm_emulator_run_pct", "VMs" },
	{ "emu_wait",              "vm_emulator_wait_pct", "VMs" },
	{ "vhost",                 "vm_vhost_run_pct", "VMs" },
	{ "vhost_wait",            "vm_vhost_wait_pct", "VMs" },
	{ "top",                   "vm_top_reason", "VMs" },
	{ "uexits_s",              "vm_uexits_per_s", "VMs" },
	{ "uexits_per_s",          "vm_uexits_per_s", "VMs" },
	{ "events_s",              "vm_events_per_s", "VMs" },
	{ "events_per_s",          "vm_events_per_s", "VMs" },
	{ "cpu",                    "vcpu_last_cpu", "vCPUs" },
	{ "rate",                   "count_per_s", "reasons" },
	{ "rate",                   "obj_count_per_s", "objects" },
	{ "kind",                   "obj_kind", "objects" },
	{ "name",                   "obj_name", "objects" },
	{ "site",                   "obj_site", "objects" },
	{ "exits_s",               "vcpu_exits_per_s", "vCPUs" },
	{ "exits_per_s",           "vcpu_exits_per_s", "vCPUs" },
	{ "total",                 "vcpu_exits_total", "vCPUs" },
	{ "latency_mean",          "vcpu_latency_mean", "vCPUs" },
	{ "latency_p99",           "vcpu_latency_p99", "vCPUs" },
	{ "latency_max",           "vcpu_latency_max", "vCPUs" },
	{ "guest",                 "vcpu_guest_pct", "vCPUs" },
	{ "host",                  "vcpu_host_pct", "vCPUs" },
	{ "vmm",                   "vcpu_vmm_pct", "vCPUs" },
	{ "halted",                "vcpu_halt_pct", "vCPUs" },
	{ "halt",                  "vcpu_halt_pct", "vCPUs" },
	{ "wait",                  "vcpu_steal_pct", "vCPUs" },
	{ "top",                   "vcpu_top_reason", "vCPUs" },
	{ "state",                 "vcpu_state", "vCPUs" },
	/*
	 * KVM's statistics' CSV columns (model_fields.c, its families): a prefix
	 * renamed, <stat> the same (the VM's first: kvm_ is the shorter)
	 */
	{ "kvm_vm_<stat>",          "vm_kvm_<stat>", NULL },
	{ "kvm_<stat>",             "vcpu_kvm_<stat>", NULL },
};

const unsigned int model_nr_field_aliases = sizeof(model_field_aliases) / sizeof(model_field_aliases[0]);

/*
 * A prefix's rename (a's old ends <stat>): old's new name into buf, or
 * NULL where old does not start with that prefix and go on past it.
 */
static const char *model_prefix_renamed(const struct model_field_alias *a, const char *old, char *buf, size_t len)
{
	size_t o = strcspn(a->old, "<"), n = strcspn(a->name, "<");

	if (!a->old[o] || strncmp(old, a->old, o) || !old[o])
		return NULL;
	snprintf(buf, len, "%.*s%s", (int)n, a->name, old + o);
	return buf;
}

const char *model_field_renamed(const char *old, const char *pane)
{
	static char buf[128];	/* a prefix's rename: read before the next call */
	const char *any = NULL;
	unsigned int i;

	for (i = 0; i < model_nr_field_aliases; i++) {
		const struct model_field_alias *a = &model_field_aliases[i];
		const char *to = model_prefix_renamed(a, old, buf, sizeof(buf));

		if (to)
			return to;
		if (strcmp(a->old, old))
			continue;
		if (!a->pane && !any)
			any = a->name;
		else if (a->pane && pane && !strcmp(a->pane, pane))
			return a->name;
	}
	return any;
}

/*
 * old's newest name for pane: renamed twice at most (p99 -> latency_p99,
 * which the vCPUs pane calls vcpu_latency_p99 now), NULL: not an old name.
 */
static const char *model_fields_renamed(const char *old, const char *pane)
{
	const char *to = model_field_renamed(old, pane), *again;
	int i;

	for (i = 0; to && i < 2 && (again = model_field_renamed(to, pane)); i++)
		to = again;
	return to;
}

/* Does note ("a -> b, c -> d") hold said as one of its items? */
static bool model_note_has(const char *note, const char *said)
{
	size_t n = strlen(said);
	const char *p = note;

	while ((p = strstr(p, said))) {
		if ((p == note || p[-1] == ' ') && (!p[n] || p[n] == ','))
			return true;
		p += n;
	}
	return false;
}

unsigned int model_fields_rename(const char *list, const char *pane,
				 bool (*known)(const char *name, const void *ctx), const void *ctx,
				 char *out, size_t len, char *note, size_t nlen)
{
	unsigned int renamed = 0, items = 0;
	size_t o = 0;

	out[0] = '\0';
	while (*list && o < len) {
		size_t n = strcspn(list, ",");
		bool minus = *list == '-';
		char name[64];
		const char *to = NULL;

		snprintf(name, sizeof(name), "%.*s", (int)(n - minus), list + minus);
		if (!known(name, ctx))
			to = model_fields_renamed(name, pane);
		if (to && known(to, ctx)) {
			size_t u = strlen(note);
			char said[160];

			/* each old name said once */
			snprintf(said, sizeof(said), "%s -> %s", name, to);
			if (!model_note_has(note, said))
				snprintf(note + u, nlen - u, "%s%s", u ? ", " : "", said);
			renamed++;
		} else {
			to = name;
		}
		/* an empty item keeps its comma: options.c splits "sort,fields" at the first */
		o += (size_t)snprintf(out + o, len - o, "%s%s%s", items++ ? "," : "", minus ? "-" : "", to);
		list += n + (list[n] == ',');
	}
	return renamed;
}
