/* SPDX-License-Identifier: MIT */
/*
 * sockns.h - a sock_diag socket in each network namespace of this host's
 * processes (nagle-trace watch: the sockets of containers).
 *
 * sock_diag answers for the namespace its socket was made in only. A stall
 * seen on a host's link may have an end in a container: another network
 * namespace of the same kernel, whose traffic crosses the host's veth or
 * bridge. The namespaces are found where the processes are: each
 * /proc/PID/ns/net names one (net:[INODE]); every distinct one but watch's
 * own gets a sock_diag socket made inside it (nt_sockdiag_open_in(): setns()
 * on the calling thread and back, which needs CAP_SYS_ADMIN). Without the
 * capability a namespace is counted as not entered, and its sockets show as
 * not on this host. Read-only: a socket in a namespace changes nothing there.
 *
 * The set follows the processes: a scan adds the namespaces that appeared
 * and closes the sockets of those no process has any more (a socket would
 * otherwise keep a stopped container's namespace alive until watch ends).
 * At most NT_SOCKNS_MAX namespaces are held; more are counted, not entered.
 */
#ifndef NT_LIVE_SOCKNS_H
#define NT_LIVE_SOCKNS_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/lab/sockdiag.h"

#define NT_SOCKNS_MAX 256u

/**
 * struct nt_sockns_one - one other namespace
 * @ino: its inode (net:[INODE])
 * @pid: a process in it, as found by the scan that added it
 * @sd: the sock_diag socket made in it; closed when @denied
 * @denied: setns() refused (no CAP_SYS_ADMIN): not looked into
 * @seen: found by the scan under way
 */
struct nt_sockns_one {
	uint64_t ino;
	int pid;
	struct nt_sockdiag sd;
	bool denied;
	bool seen;
};

/**
 * struct nt_sockns - the namespaces and their sockets
 * @own: watch's own namespace's inode
 * @ns: the others, @n of them
 * @n: how many
 * @over: namespaces found beyond NT_SOCKNS_MAX at the last scan
 * @denied: of @ns, how many were not entered
 * @denied_errno: why the first of those was refused (a positive errno)
 */
struct nt_sockns {
	uint64_t own;
	struct nt_sockns_one ns[NT_SOCKNS_MAX];
	uint32_t n;
	uint32_t over;
	uint32_t denied;
	int denied_errno;
};

/**
 * nt_sockns_open() - learn watch's own namespace, then scan
 * @ns: the set (large: allocate it)
 * @err: on failure, one line
 *
 * Return: 0, or a negative errno when watch's own namespace cannot be read.
 */
int nt_sockns_open(struct nt_sockns *ns, struct nt_err *err);

/**
 * nt_sockns_scan() - the namespaces of the processes now
 * @ns: the set
 *
 * Return: how many namespaces were added (0: the set did not grow).
 */
unsigned nt_sockns_scan(struct nt_sockns *ns);

/**
 * nt_sockns_close() - close every socket; safe on a zeroed set
 * @ns: the set
 */
void nt_sockns_close(struct nt_sockns *ns);

#endif
