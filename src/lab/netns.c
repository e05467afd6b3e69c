// SPDX-License-Identifier: MIT
/*
 * netns.c - fresh network namespaces held only by descriptors (see nt/lab/netns.h).
 *
 * Every operation acts on the calling thread, never the process: unshare() and
 * setns() move one thread, and the namespace of a thread is named by
 * /proc/thread-self/ns/net. /proc/self would name the main thread's namespace,
 * which is the same thing only as long as the program stays single-threaded.
 * Nothing is ever bind-mounted, so a namespace lives exactly as long as a
 * descriptor, a socket or a thread holds it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nt/lab/netns.h"

#define NETNS_SELF "/proc/thread-self/ns/net"

int nt_netns_current(int *fd_out, struct nt_err *err)
{
	int fd = open(NETNS_SELF, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return nt_err_set(err, -errno, "open %s", NETNS_SELF);
	*fd_out = fd;
	return 0;
}

int nt_netns_new(int *fd_out, struct nt_err *err)
{
	if (unshare(CLONE_NEWNET) < 0)
		return nt_err_set(err, -errno, "create network namespace");
	return nt_netns_current(fd_out, err);
}

int nt_netns_enter(int fd, struct nt_err *err)
{
	if (setns(fd, CLONE_NEWNET) < 0)
		return nt_err_set(err, -errno, "enter network namespace (descriptor %d)", fd);
	return 0;
}

/*
 * "net.ipv4.tcp_autocorking" -> "/proc/sys/net/ipv4/tcp_autocorking". As in
 * sysctl(8), a key that already contains '/' is taken as a path as it is, so
 * a component with a dot in it (an interface "eth0.1") stays reachable.
 */
static int sysctl_path(const char *key, char *path, size_t len, struct nt_err *err)
{
	int n = snprintf(path, len, "/proc/sys/%s", key);

	if (n < 0 || (size_t)n >= len)
		return nt_err_set(err, -ENAMETOOLONG, "sysctl \"%s\"", key);
	if (!strchr(key, '/'))
		for (char *p = path + strlen("/proc/sys/"); *p; p++)
			if (*p == '.')
				*p = '/';
	return 0;
}

int nt_netns_sysctl_write(const char *key, const char *value, struct nt_err *err)
{
	char path[256];
	size_t len = strlen(value);
	ssize_t n;
	int ret, fd;

	ret = sysctl_path(key, path, sizeof(path), err);
	if (ret)
		return ret;

	/* The file belongs to the namespace of the thread that opens it (proc_sys_open()). */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return nt_err_set(err, -errno, "set sysctl %s to \"%s\"", key, value);

	/* proc_dointvec() and friends take the whole value from one write at offset 0. */
	n = write(fd, value, len);
	if (n < 0) {
		ret = nt_err_set(err, -errno, "set sysctl %s to \"%s\"", key, value);
		goto close_fd;
	}
	if ((size_t)n != len)
		ret = nt_err_set(err, -EIO, "set sysctl %s to \"%s\": short write", key, value);
close_fd:
	close(fd);
	return ret;
}
