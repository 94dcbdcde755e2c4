// SPDX-License-Identifier: GPL-2.0
/*
 * Who each VM is, live (model.h's vm->ident): its VMM's command line, its
 * parent's (a Kata shim), and libvirt's status XML of the domain whose
 * pid it is (src/ident/ident_vm.c parses them; its head comment says
 * where each format is documented).  Read when a VM is first sampled,
 * and again only when libvirt's run dir changes (libvirt rewrites a
 * status file by renaming a new one in, which changes the dir's mtime)
 * and the VM's own status file is not the one read: one stat of the dir
 * per snapshot, none of the files in between.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context_priv.h"
#include "ident/ident.h"

/* The status files looked at when a VM's is not NAME.xml: at most this many. */
#define CTX_IDENT_SCAN_MAX	4096
/* The head of a status file, where <domstatus pid=...> is. */
#define CTX_IDENT_HEAD		4096

/* A file's (mtime, inode, size) as one number, never 0 (0: no file). */
static uint64_t ctx_ident_sig(const struct stat *st)
{
	uint64_t s = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;

	s ^= (uint64_t)st->st_ino << 32 ^ (uint64_t)st->st_size * 0x9e3779b97f4a7c15ull;
	return s ? s : 1;
}

/* Path's signature, or 0 when it is not there. */
static uint64_t ctx_ident_stat(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : ctx_ident_sig(&st);
}

/*
 * At most max - 1 bytes of path into buf, NUL-ended: the count, or -1
 * (missing, unreadable, not a regular file).  A longer file is cut: its
 * head is where the fields read are.
 */
static ssize_t ctx_ident_read(const char *path, char *buf, size_t max)
{
	ssize_t got, n = 0;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		goto out_bad;
	while ((size_t)n < max - 1) {
		got = read(fd, buf + n, max - 1 - (size_t)n);
		if (got < 0)
			goto out_bad;
		if (!got)
			break;
		n += got;
	}
	close(fd);
	buf[n] = '\0';
	return n;
out_bad:
	close(fd);
	return -1;
}

/* Status file path of VM pid read into c->xml and parsed into id: 0, or -1 when it is not pid's. */
static int ctx_ident_file(struct context *c, const char *path, int pid, struct ident_vm *id)
{
	ssize_t n;

	if (!c->xml && !(c->xml = malloc(CTX_XML_MAX)))
		return -1;
	n = ctx_ident_read(path, c->xml, CTX_XML_MAX);
	if (n <= 0 || ident_libvirt_xml(c->xml, (size_t)n, pid, id))
		return -1;
	id->file_sig = ctx_ident_stat(path);
	return 0;
}

/* libvirt's run dir searched for the status file of pid (its head only), read into id: 0 or -1. */
static int ctx_ident_scan(struct context *c, int pid, struct ident_vm *id)
{
	char path[PATH_MAX + 256], head[CTX_IDENT_HEAD];
	struct dirent *de;
	int seen = 0, ret = -1;
	DIR *d = opendir(c->libvirt);

	if (!d)
		return -1;
	while (ret && (de = readdir(d)) && seen++ < CTX_IDENT_SCAN_MAX) {
		size_t len = strlen(de->d_name);
		ssize_t n;

		if (len < 5 || strcmp(de->d_name + len - 4, ".xml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", c->libvirt, de->d_name);
		n = ctx_ident_read(path, head, sizeof(head));
		if (n > 0 && ident_libvirt_pid(head, (size_t)n) == pid)
			ret = ctx_ident_file(c, path, pid, id);
	}
	closedir(d);
	return ret;
}

/* The command lines of VM pid and of its parent into id (its name by the model's, vm_name). */
static void ctx_ident_cmdline(struct context *c, int pid, const char *vm_name, struct ident_vm *id)
{
	ssize_t n = ctx_file_read(c, "%s/%d/cmdline", c->proc, pid);
	uint64_t ppid;

	ident_vm_cmdline(c->buf, n > 0 ? (size_t)n : 0, vm_name, id);
	if (strcmp(id->from, "comm") && strcmp(id->from, "qemu"))
		return;
	/* a QEMU of Kata's that its -name does not say: its shim's -id does */
	if (ctx_file_read(c, "%s/%d/status", c->proc, pid) <= 0 || !keyval_find(c->buf, "PPid:", &ppid) ||
	    ppid <= 1 || ppid > INT_MAX)
		return;
	n = ctx_file_read(c, "%s/%d/cmdline", c->proc, (int)ppid);
	if (n > 0)
		ident_vm_parent(c->buf, (size_t)n, id);
}

void ctx_ident_vm(struct context *c, int pid, const char *vm_name, struct ident_vm *id, uint64_t dir_sig)
{
	char path[PATH_MAX + 256];
	uint64_t file_sig = 0;

	if (id->read && id->dir_sig == dir_sig)
		return;
	if (dir_sig) {
		/* libvirt names the file for the domain, and QEMU's -name guest= too */
		snprintf(path, sizeof(path), "%s/%s.xml", c->libvirt, vm_name);
		file_sig = strchr(vm_name, '/') ? 0 : ctx_ident_stat(path);
		if (id->read && file_sig && file_sig == id->file_sig) {
			id->dir_sig = dir_sig;
			return;
		}
	}
	memset(id, 0, sizeof(*id));
	id->read = true;
	id->dir_sig = dir_sig;
	ctx_ident_cmdline(c, pid, vm_name, id);
	if (!dir_sig)
		return;
	if (file_sig && !ctx_ident_file(c, path, pid, id))
		return;
	ctx_ident_scan(c, pid, id);
}

uint64_t ctx_ident_dir(const struct context *c)
{
	return ctx_ident_stat(c->libvirt);
}
