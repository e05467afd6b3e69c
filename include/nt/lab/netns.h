/* SPDX-License-Identifier: MIT */
/*
 * netns.h - fresh network namespaces held only by file descriptors.
 *
 * A namespace made here is never bind-mounted (no /run/netns entry): it lives
 * as long as a descriptor, a socket or a thread refers to it, so it vanishes
 * with the process, even after SIGKILL. unshare() and setns() act on the
 * calling thread; call them before any other thread exists.
 */
#ifndef NT_LAB_NETNS_H
#define NT_LAB_NETNS_H

#include "nt/err.h"

/**
 * nt_netns_new() - move the calling thread into a fresh network namespace
 * @fd_out: set to an O_CLOEXEC descriptor of the new namespace
 * @err: filled on failure
 *
 * Return: 0, or a negative errno (-EPERM without CAP_SYS_ADMIN: the caller
 * should suggest `unshare -Urn`).
 */
int nt_netns_new(int *fd_out, struct nt_err *err);

/**
 * nt_netns_enter() - move the calling thread into the namespace @fd
 * @fd: a namespace descriptor from nt_netns_new() or nt_netns_current()
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_netns_enter(int fd, struct nt_err *err);

/**
 * nt_netns_current() - a descriptor of the calling thread's network namespace
 * @fd_out: set to an O_CLOEXEC descriptor
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_netns_current(int *fd_out, struct nt_err *err);

/**
 * nt_netns_sysctl_write() - write a sysctl of the calling thread's namespace
 * @key: dotted name, e.g. "net.ipv4.tcp_pingpong_thresh"
 * @value: the text to write
 * @err: filled on failure, naming @key and @value
 *
 * /proc/sys/net follows the namespace of the thread that opens the file.
 *
 * Return: 0 or a negative errno.
 */
int nt_netns_sysctl_write(const char *key, const char *value, struct nt_err *err);

#endif
