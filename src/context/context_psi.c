// SPDX-License-Identifier: GPL-2.0
/*
 * Pressure (PSI): the cpu, memory and io stall totals of a VM's own cgroup
 * v2 -- the one /proc/PID/cgroup's "0::" line names, above libvirt's
 * libvirt/emulator sub-group -- and of the host (/proc/pressure).  A
 * cgroup is the VM's own when it lies under machine.slice (libvirt,
 * systemd-machined) or when its cgroup.procs lists the VMM alone (a
 * systemd scope of its own); a VMM sharing its cgroup has no pressure
 * figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context_priv.h"

static const struct { const char *file; enum vm_ctx_fig some, full; } psi_files[] = {
	{ "cpu",    CTX_CPU_SOME, CTX_CPU_FULL },
	{ "memory", CTX_MEM_SOME, CTX_MEM_FULL },
	{ "io",     CTX_IO_SOME,  CTX_IO_FULL },
};

/* A pressure file's "some" and "full" totals (µs) in c->buf into r, as counters. */
static void psi_parse(const char *text, unsigned int i, struct ctx_reading *r)
{
	const char *p;
	uint64_t v;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *t = strstr(p, "total=");
		const char *nl = strchr(p, '\n');

		if (!t || (nl && t > nl))
			continue;
		v = strtoull(t + 6, NULL, 10);
		if (!strncmp(p, "some ", 5))
			ctx_set(r, psi_files[i].some, (double)v);
		else if (!strncmp(p, "full ", 5))
			ctx_set(r, psi_files[i].full, (double)v);
	}
}

void ctx_psi_host(struct context *c, struct ctx_reading *r)
{
	unsigned int i;

	for (i = 0; i < sizeof(psi_files) / sizeof(psi_files[0]); i++)
		if (ctx_file_read(c, "%s/pressure/%s", c->proc, psi_files[i].file) > 0)
			psi_parse(c->buf, i, r);
}

/* Does the cgroup v2 directory dir's cgroup.procs list pid alone? */
static bool psi_own(struct context *c, const char *dir, int pid)
{
	const char *p;
	bool any = false;

	if (ctx_file_read(c, "%s/cgroup.procs", dir) < 0)
		return false;
	for (p = c->buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		if (*p == '\n')
			continue;
		if (atoi(p) != pid)
			return false;
		any = true;
	}
	return any;
}

/* VM pid's own cgroup v2 directory into dir (len): true, or false if it has none. */
static bool psi_cgroup(struct context *c, int pid, char *dir, size_t len)
{
	static const char *const mounts[] = { "fs/cgroup", "fs/cgroup/unified" };
	char path[1024], *p, *nl, *cut;
	unsigned int i;

	if (ctx_file_read(c, "%s/%d/cgroup", c->proc, pid) <= 0)
		return false;
	p = strstr(c->buf, "0::");
	if (!p || (p != c->buf && p[-1] != '\n'))
		return false;
	p += 3;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	if (!strcmp(p, "/") || strlen(p) >= sizeof(path))
		return false;
	strcpy(path, p);
	/* libvirt puts QEMU's main thread in libvirt/emulator below the VM's scope */
	cut = strstr(path, "/libvirt/emulator");
	if (cut && !cut[17])
		*cut = '\0';
	for (i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		snprintf(dir, len, "%s/%s%s", c->sys, mounts[i], path);
		if (ctx_file_read(c, "%s/cgroup.procs", dir) < 0)
			continue;
		return strstr(path, "/machine.slice/") == path || psi_own(c, dir, pid);
	}
	return false;
}

void ctx_psi_vm(struct context *c, int pid, struct ctx_reading *r)
{
	char dir[PATH_MAX + 1100];
	unsigned int i;

	if (!psi_cgroup(c, pid, dir, sizeof(dir)))
		return;
	for (i = 0; i < sizeof(psi_files) / sizeof(psi_files[0]); i++)
		if (ctx_file_read(c, "%s/%s.pressure", dir, psi_files[i].file) > 0)
			psi_parse(c->buf, i, r);
}
