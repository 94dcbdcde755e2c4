// SPDX-License-Identifier: GPL-2.0
/*
 * NUMA: a VM's memory per node (numa_maps, read at the slow cadence:
 * it walks the VMM's page tables), the node of the CPU each vCPU thread
 * last ran on (its stat's processor field, the node from sys's
 * nodeN/cpulist), and the share of its vCPUs' time on a CPU of the node
 * holding most of its memory: each vCPU's on-CPU time of the interval
 * (schedstat) counted on the node of the CPU it ran on last.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_priv.h"

/* sys's devices/system/node/nodeN/cpulist ("0-3,8-11") into c->cpu_node, once. */
static void numa_map_cpus(struct context *c)
{
	int node, cpu;

	c->nodes_read = true;
	memset(c->cpu_node, -1, sizeof(c->cpu_node));
	for (node = 0; node < CTX_NODES; node++) {
		char *p;

		if (ctx_file_read(c, "%s/devices/system/node/node%d/cpulist", c->sys, node) <= 0)
			continue;
		for (p = c->buf; *p >= '0' && *p <= '9';) {
			long lo = strtol(p, &p, 10), hi = lo;

			if (*p == '-')
				hi = strtol(p + 1, &p, 10);
			for (cpu = (int)lo; cpu <= hi && cpu < CTX_CPUS; cpu++)
				c->cpu_node[cpu] = (signed char)node;
			if (*p == ',')
				p++;
		}
	}
}

void ctx_numa_memory(struct context *c, int pid, struct ctx_reading *r)
{
	char path[PATH_MAX + 32], *line = NULL, *tok, *save;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/numa_maps", c->proc, pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long pages[CTX_NODES] = { 0 }, kb = 4;
		int hi = -1, n;

		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (!strncmp(tok, "kernelpagesize_kB=", 18))
				kb = strtoull(tok + 18, NULL, 10);
			else if (tok[0] == 'N' && (n = atoi(tok + 1)) >= 0 && n < CTX_NODES && strchr(tok, '=')) {
				pages[n] = strtoull(strchr(tok, '=') + 1, NULL, 10);
				hi = n > hi ? n : hi;
			}
		}
		for (n = 0; n <= hi; n++)
			r->node_bytes[n] += pages[n] * kb * 1024;
		if (hi + 1 > r->nr_nodes)
			r->nr_nodes = hi + 1;
	}
	free(line);
	fclose(f);
}

int ctx_numa_main(const uint64_t *bytes, int nr, struct ctx_reading *r)
{
	uint64_t all = 0, best = 0;
	int n, main = -1;

	for (n = 0; n < nr; n++) {
		all += bytes[n];
		if (bytes[n] > best) {
			best = bytes[n];
			main = n;
		}
	}
	if (main < 0)
		return -1;
	ctx_set(r, CTX_NODE, main);
	ctx_set(r, CTX_NODE_PCT, 100.0 * (double)best / (double)all);
	return main;
}

int ctx_numa_thread(struct context *c, int pid, int tid, int *node, uint64_t *run_ns)
{
	uint64_t cpu;

	*node = -1;
	if (!c->nodes_read)
		numa_map_cpus(c);
	if (ctx_file_read(c, "%s/%d/task/%d/stat", c->proc, pid, tid) <= 0 || !ctx_stat_field(c->buf, 39, &cpu))
		return -1;
	if (cpu < CTX_CPUS)
		*node = c->cpu_node[cpu];
	if (ctx_file_read(c, "%s/%d/task/%d/schedstat", c->proc, pid, tid) <= 0)
		return 1;
	*run_ns = strtoull(c->buf, NULL, 10);
	return 0;
}
