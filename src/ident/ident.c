// SPDX-License-Identifier: GPL-2.0
/*
 * Identity: what a VM is called, from its VMM's command line (QEMU and
 * libvirt, Firecracker, cloud-hypervisor, crosvm, kvmtool), and which
 * thread names are the host kernel's.  Rules on strings only: the /proc
 * reading that feeds them is ident_proc.c's.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"

/*
 * QEMU's option syntax: elements split at ',', ",," a literal comma.  The
 * name is the "guest=" element, or a first element without '='.
 */
static void qemu_name(const char *val, char *out, size_t outlen)
{
	char elem[256];
	size_t n = 0;
	int index = 0;
	bool found = false;
	const char *p = val;

	for (;;) {
		if (*p == ',' && p[1] == ',') {
			if (n + 1 < sizeof(elem))
				elem[n++] = ',';
			p += 2;
			continue;
		}
		if (*p && *p != ',') {
			if (n + 1 < sizeof(elem))
				elem[n++] = *p;
			p++;
			continue;
		}
		elem[n] = '\0';
		if (!strncmp(elem, "guest=", 6)) {
			strlcpy(out, elem + 6, outlen);
			return;
		}
		if (index == 0 && !strchr(elem, '=') && elem[0]) {
			strlcpy(out, elem, outlen);
			found = true;
		}
		if (!*p)
			break;
		p++;
		n = 0;
		index++;
	}
	if (!found && outlen)
		out[0] = '\0';
}

/* A socket path names its VM: its file name, or its folder's for a generic one. */
static void socket_name(const char *val, char *out, size_t outlen)
{
	static const char *const generic[] = { "api", "clh-api", "ch", "vm", "control", "crosvm" };
	char path[512], *base, *dot;
	size_t i;

	if (!strncmp(val, "path=", 5))
		val += 5;
	strlcpy(path, val, sizeof(path));
	path[strcspn(path, ",")] = '\0';
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (dot && (!strcmp(dot, ".sock") || !strcmp(dot, ".socket")))
		*dot = '\0';
	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		if (strcmp(base, generic[i]) || base == path)
			continue;
		base[-1] = '\0';
		base = strrchr(path, '/');
		base = base ? base + 1 : path;
		break;
	}
	strlcpy(out, base, outlen);
}

int ident_argv_split(const char *cmdline, size_t len, char *copy, char **argv, int max)
{
	size_t off;
	int argc = 0;

	memcpy(copy, cmdline, len);
	copy[len] = '\0';
	for (off = 0; off < len && argc < max; off += strlen(copy + off) + 1)
		argv[argc++] = copy + off;
	return argc;
}

const char *ident_opt_value(char **argv, int argc, int *i, const char *opt)
{
	size_t n = strlen(opt);

	if (!strcmp(argv[*i], opt))
		return *i + 1 < argc ? argv[++*i] : NULL;
	if (!strncmp(argv[*i], opt, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	return NULL;
}

void ident_vm_name(const char *cmdline, size_t len, const char *comm, char *out, size_t outlen)
{
	char *argv[512], *copy, *prog;
	const char *v;
	int argc, i;

	strlcpy(out, comm ? comm : "", outlen);
	if (!len)
		return;
	copy = malloc(len + 1);
	if (!copy)
		return;
	argc = ident_argv_split(cmdline, len, copy, argv, 512);
	prog = strrchr(argv[0], '/');
	prog = prog ? prog + 1 : argv[0];

	for (i = 1; i < argc; i++) {
		char name[256] = "";

		if ((v = ident_opt_value(argv, argc, &i, "-name")) ||
		    (v = ident_opt_value(argv, argc, &i, "--name")))
			qemu_name(v, name, sizeof(name));
		else if (!strcmp(prog, "firecracker") && (v = ident_opt_value(argv, argc, &i, "--id")))
			strlcpy(name, v, sizeof(name));
		else if ((v = ident_opt_value(argv, argc, &i, "--api-socket")) ||
			 (!strncmp(prog, "crosvm", 6) && (v = ident_opt_value(argv, argc, &i, "--socket"))))
			socket_name(v, name, sizeof(name));
		if (name[0]) {
			strlcpy(out, name, outlen);
			break;
		}
	}
	free(copy);
}

bool ident_kernel_comm(const char *comm)
{
	static const char *const prefixes[] = {
		"kworker/", "kdamond.", "kswapd", "ksoftirqd/", "irq/", "kvm-pit/", "kvm-nx-lpage",
		"kthreadd", "khugepaged", "kcompactd", "migration/", "rcu", "kvm-irqfd",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(comm, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* "CPU 3/KVM" (QEMU), "kvm-vcpu-3" (kvmtool), "vcpu3" / "fc_vcpu 3" (others). */
int ident_vcpu_id(const char *comm)
{
	static const char *const prefixes[] = { "CPU ", "kvm-vcpu-", "fc_vcpu ", "vcpu" };
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);
		const char *p = comm + n;
		long v = 0;

		if (strncmp(comm, prefixes[i], n) || *p < '0' || *p > '9')
			continue;
		while (*p >= '0' && *p <= '9' && v < 1000000)
			v = v * 10 + (*p++ - '0');
		if (*p == '\0' || *p == '/')
			return (int)v;
	}
	return -1;
}
