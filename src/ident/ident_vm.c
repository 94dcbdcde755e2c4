// SPDX-License-Identifier: GPL-2.0
/*
 * Who a VM is, from what the host holds, with no guest cooperation: its
 * VMM's command line and libvirt's status XML.  Rules on strings only;
 * src/context/context_ident.c reads the files.  Where the formats come
 * from:
 * - QEMU: "-uuid UUID" and "-name guest=NAME,..." (qemu-options.hx).
 * - libvirt: the QEMU driver keeps each running domain's status XML in
 *   its state dir, /run/libvirt/qemu/NAME.xml for the system daemon
 *   (libvirt.org/drvqemu.html; virDomainObjFormat): a root
 *   <domstatus state=... pid='N'> holding the live <domain>, whose
 *   <name> and <uuid> are its first children, and it starts QEMU with
 *   "-name guest=NAME" and "-uuid UUID".
 * - OpenStack: nova's libvirt driver writes <metadata><nova:instance
 *   xmlns:nova="http://openstack.org/xmlns/libvirt/nova/1.0"> with
 *   <nova:name> (the display name), <nova:flavor name="...">, and
 *   <nova:owner><nova:user>..<nova:project uuid="...">NAME</nova:project>
 *   (nova/virt/libvirt/config.py, LibvirtConfigGuestMetaNovaInstance);
 *   the domain's own name is "instance-%08x" and its uuid the instance's.
 * - Kata Containers: its QEMU runs "-name sandbox-ID,debug-threads=on
 *   -uuid UUID" (src/runtime/virtcontainers/qemu.go), its shim is
 *   "containerd-shim-kata-v2 ... -id ID" (containerd's shim v2 API);
 *   its cloud-hypervisor's API socket is /run/vc/vm/ID/clh-api.sock.
 * - Firecracker: "--id ID" (firecracker --help; the jailer's --id too).
 * - cloud-hypervisor: "--api-socket PATH" (cloud-hypervisor --help).
 * - kvmtool: "--name NAME"; crosvm: "--socket PATH" (their --help).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"

#define VM_ARGV_MAX	512

/* The program's file name in argv[0]. */
static const char *vm_prog(const char *argv0)
{
	const char *p = strrchr(argv0, '/');

	return p ? p + 1 : argv0;
}

/* Is s a UUID as libvirt and QEMU write it (8-4-4-4-12 hex digits)? */
static bool vm_is_uuid(const char *s)
{
	int i;

	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
			return false;
	}
	return s[36] == '\0';
}

void ident_vm_cmdline(const char *cmdline, size_t len, const char *vm_name, struct ident_vm *out)
{
	char *argv[VM_ARGV_MAX], *copy;
	const char *prog, *v;
	int argc, i;

	strlcpy(out->name, vm_name, sizeof(out->name));
	out->from = "comm";
	if (!len || !(copy = malloc(len + 1)))
		return;
	argc = ident_argv_split(cmdline, len, copy, argv, VM_ARGV_MAX);
	prog = vm_prog(argv[0]);
	if (!strcmp(prog, "firecracker") || !strcmp(prog, "jailer"))
		out->from = "firecracker";
	else if (!strcmp(prog, "cloud-hypervisor"))
		out->from = "cloud-hypervisor";
	else if (!strncmp(prog, "crosvm", 6))
		out->from = "crosvm";
	for (i = 1; i < argc; i++) {
		if ((v = ident_opt_value(argv, argc, &i, "-uuid")) && vm_is_uuid(v))
			strlcpy(out->uuid, v, sizeof(out->uuid));
		else if (!v && ident_opt_value(argv, argc, &i, "--name"))
			out->from = strncmp(prog, "qemu", 4) ? "kvmtool" : "qemu";
		else if (v || !(v = ident_opt_value(argv, argc, &i, "-name")))
			continue;
		else if (!strncmp(v, "sandbox-", 8) || !strncmp(v, "guest=sandbox-", 14))
			out->from = "kata";
		else
			out->from = "qemu";
	}
	/* Kata names its QEMU "sandbox-ID": the sandbox is ID */
	if (!strcmp(out->from, "kata") && !strncmp(vm_name, "sandbox-", 8) && vm_name[8])
		strlcpy(out->name, vm_name + 8, sizeof(out->name));
	free(copy);
}

bool ident_vm_parent(const char *cmdline, size_t len, struct ident_vm *out)
{
	char *argv[VM_ARGV_MAX], *copy;
	const char *v = NULL;
	bool found = false;
	int argc, i;

	if (!len || !(copy = malloc(len + 1)))
		return false;
	argc = ident_argv_split(cmdline, len, copy, argv, VM_ARGV_MAX);
	if (!strncmp(vm_prog(argv[0]), "containerd-shim-kata", 20)) {
		for (i = 1; i < argc && !v; i++)
			v = ident_opt_value(argv, argc, &i, "-id");
		if (v && *v) {
			strlcpy(out->name, v, sizeof(out->name));
			out->from = "kata";
			found = true;
		}
	}
	free(copy);
	return found;
}

/* Code point cp as UTF-8 into u (4 bytes): its length. */
static size_t vm_utf8(unsigned long cp, char *u)
{
	if (cp < 0x80) {
		u[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	u[0] = (char)(0xf0 | cp >> 18);
	u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The text of XML between p and end decoded into out (outlen bytes, a
 * longer one cut at a whole character): the five named entities and
 * numeric ones (as UTF-8).  false when it holds markup ('<') or an
 * entity it does not know: not a plain value.
 */
static bool vm_xml_text(const char *p, const char *end, char *out, size_t outlen)
{
	static const char *const ents[][2] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" }, { "&apos;", "'" },
	};
	size_t n = 0, k, w;
	char u[4];

	while (p < end) {
		unsigned long cp;
		char *e;

		if (*p == '<')
			return false;
		if (*p != '&') {
			u[0] = *p++;
			w = 1;
		} else {
			for (k = 0; k < 5 && strncmp(p, ents[k][0], strlen(ents[k][0])); k++)
				;
			if (k < 5) {
				u[0] = ents[k][1][0];
				w = 1;
				p += strlen(ents[k][0]);
			} else {
				if (p[1] != '#')
					return false;
				cp = p[2] == 'x' ? strtoul(p + 3, &e, 16) : strtoul(p + 2, &e, 10);
				if (*e != ';' || !cp || cp > 0x10ffff)
					return false;
				w = vm_utf8(cp, u);
				p = e + 1;
			}
		}
		/* a full buffer keeps what fits and checks the rest is still plain text */
		if (n + w < outlen) {
			memcpy(out + n, u, w);
			n += w;
		} else {
			outlen = n + 1;
		}
	}
	out[n] = '\0';
	return true;
}

/*
 * The text of the first element tag ("<name") from p on, before limit:
 * "<name>TEXT</name>" (or "<name attr=...>TEXT</name>") into out.
 * false when there is none, or it is not plain text.
 */
static bool vm_xml_elem(const char *p, const char *limit, const char *tag, char *out, size_t outlen)
{
	size_t n = strlen(tag);
	char close[64];
	const char *s, *e;

	snprintf(close, sizeof(close), "</%s>", tag + 1);
	for (s = strstr(p, tag); s && s < limit; s = strstr(s + 1, tag)) {
		if (s[n] != '>' && s[n] != ' ')
			continue;
		s = strchr(s + n, '>');
		if (!s || s[-1] == '/')
			return false;
		e = strstr(s + 1, close);
		return e && e < limit && vm_xml_text(s + 1, e, out, outlen) && out[0];
	}
	return false;
}

/*
 * Attribute attr (" name=") of the element starting at p: its quoted
 * value into out.  false when the start tag (up to '>') has none.
 */
static bool vm_xml_attr(const char *p, const char *attr, char *out, size_t outlen)
{
	const char *gt = strchr(p, '>'), *a = strstr(p, attr), *e;
	char q;

	if (!gt || !a || a > gt)
		return false;
	a += strlen(attr);
	q = *a;
	if (q != '\'' && q != '"')
		return false;
	e = strchr(a + 1, q);
	return e && e < gt && vm_xml_text(a + 1, e, out, outlen) && out[0];
}

int ident_libvirt_pid(const char *xml, size_t len)
{
	const char *root = strstr(xml, "<domstatus");
	char v[16];
	const char *e;
	int pid;

	(void)len;
	if (!root || !vm_xml_attr(root, " pid=", v, sizeof(v)))
		return 0;
	pid = (int)strtonum(v, 1, INT_MAX, &e);
	return e ? 0 : pid;
}

/* OpenStack's metadata from <nova:instance> on (before limit) into out: true with its display name. */
static bool vm_nova(const char *inst, const char *limit, struct ident_vm *out)
{
	char name[IDENT_NAME_LEN];
	const char *fl;

	if (!vm_xml_elem(inst, limit, "<nova:name", name, sizeof(name)))
		return false;
	strlcpy(out->name, name, sizeof(out->name));
	out->from = "openstack";
	fl = strstr(inst, "<nova:flavor");
	if (fl && fl < limit)
		vm_xml_attr(fl, " name=", out->flavor, sizeof(out->flavor));
	vm_xml_elem(inst, limit, "<nova:project", out->project, sizeof(out->project));
	return true;
}

int ident_libvirt_xml(const char *xml, size_t len, int pid, struct ident_vm *out)
{
	char name[IDENT_NAME_LEN], uuid[IDENT_UUID_LEN];
	const char *dom, *limit = xml + len, *meta, *meta_end, *inst;

	if (pid <= 0 || ident_libvirt_pid(xml, len) != pid)
		return -1;
	dom = strstr(xml, "<domain ");
	if (!dom || !vm_xml_elem(dom, limit, "<name", name, sizeof(name)))
		return -1;
	strlcpy(out->name, name, sizeof(out->name));
	out->from = "libvirt";
	if (vm_xml_elem(dom, limit, "<uuid", uuid, sizeof(uuid)) && vm_is_uuid(uuid))
		strlcpy(out->uuid, uuid, sizeof(out->uuid));
	meta = strstr(dom, "<metadata>");
	meta_end = meta ? strstr(meta, "</metadata>") : NULL;
	inst = meta_end ? strstr(meta, "<nova:instance") : NULL;
	if (inst && inst < meta_end)
		vm_nova(inst, meta_end, out);
	return 0;
}
