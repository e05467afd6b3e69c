// SPDX-License-Identifier: MIT
/*
 * sockns.c - a sock_diag socket in each network namespace of this host's
 * processes (see nt/live/sockns.h).
 *
 * A process's namespace is the target of its /proc/PID/ns/net link,
 * "net:[INODE]" (ns_get_name(), fs/nsfs.c): the inode of the namespace in
 * nsfs, the same for every process in it. readlink() of another user's
 * link wants ptrace read access (proc_ns_get_link()): without it the process
 * is skipped, as its descriptors are in sockowner.c. A scan reads one link
 * per process and opens only the namespaces it has not met.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/live/procnet.h"
#include "nt/live/sockns.h"

/* The namespace @link ("/proc/PID/ns/net" or ".../thread-self/...") names; 0 when unreadable. */
static uint64_t ns_inode(const char *link)
{
	char buf[64], *end;
	unsigned long long ino;
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);

	if (n <= 5)
		return 0;
	buf[n] = '\0';
	if (strncmp(buf, "net:[", 5) != 0)
		return 0;
	errno = 0;
	ino = strtoull(buf + 5, &end, 10);
	if (errno || end == buf + 5 || strcmp(end, "]") != 0)
		return 0;
	return ino;
}

int nt_sockns_open(struct nt_sockns *ns, struct nt_err *err)
{
	memset(ns, 0, sizeof(*ns));
	ns->own = ns_inode("/proc/thread-self/ns/net");
	if (!ns->own)
		return nt_err_set(err, -errno ? -errno : -EIO,
				  "read watch's own network namespace (/proc/thread-self/ns/net)");
	nt_sockns_scan(ns);
	return 0;
}

static struct nt_sockns_one *find(struct nt_sockns *ns, uint64_t ino)
{
	for (uint32_t i = 0; i < ns->n; i++)
		if (ns->ns[i].ino == ino)
			return &ns->ns[i];
	return NULL;
}

/* A new namespace, met at process @pid: its socket, or why not. */
static void add(struct nt_sockns *ns, uint64_t ino, const char *pid)
{
	struct nt_sockns_one *o;
	struct nt_err err = { "" };
	char path[300];
	int fd, ret;

	if (ns->n == NT_SOCKNS_MAX) {
		ns->over++;
		return;
	}
	snprintf(path, sizeof(path), "/proc/%s/ns/net", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* the process ended since its link was read */
	o = &ns->ns[ns->n];
	memset(o, 0, sizeof(*o));
	ret = nt_sockdiag_open_in(&o->sd, fd, &err);
	close(fd);
	if (ret < 0 && ret != -EPERM && ret != -EACCES)
		return; /* not this namespace's doing (no memory, no descriptors): next scan */
	o->ino = ino;
	o->pid = (int)strtol(pid, NULL, 10);
	o->seen = true;
	o->denied = ret < 0;
	if (o->denied && !ns->denied_errno)
		ns->denied_errno = -ret;
	ns->n++;
}

/* Drop the namespaces no process had in this scan, keeping the others in order. */
static void prune(struct nt_sockns *ns)
{
	uint32_t kept = 0;

	ns->denied = 0;
	for (uint32_t i = 0; i < ns->n; i++) {
		struct nt_sockns_one *o = &ns->ns[i];

		if (!o->seen) {
			nt_sockdiag_close(&o->sd);
			continue;
		}
		ns->denied += o->denied;
		if (kept != i)
			ns->ns[kept] = *o;
		kept++;
	}
	ns->n = kept;
}

unsigned nt_sockns_scan(struct nt_sockns *ns)
{
	unsigned added = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	if (!dir)
		return 0;
	for (uint32_t i = 0; i < ns->n; i++)
		ns->ns[i].seen = false;
	ns->over = 0;
	while ((d = readdir(dir))) {
		char link[300];
		struct nt_sockns_one *o;
		uint32_t ino_count;
		uint64_t ino;

		if (!nt_procnet_is_pid(d->d_name))
			continue;
		snprintf(link, sizeof(link), "/proc/%s/ns/net", d->d_name);
		ino = ns_inode(link);
		if (!ino || ino == ns->own)
			continue;
		o = find(ns, ino);
		if (o) {
			o->seen = true;
			continue;
		}
		ino_count = ns->n;
		add(ns, ino, d->d_name);
		added += ns->n > ino_count;
	}
	closedir(dir);
	prune(ns);
	return added;
}

void nt_sockns_close(struct nt_sockns *ns)
{
	for (uint32_t i = 0; i < ns->n; i++)
		nt_sockdiag_close(&ns->ns[i].sd);
	ns->n = 0;
}
