/* SPDX-License-Identifier: MIT */
/*
 * sockowner.h - who owns a connection's ends on this host, and what the
 * kernel says of each socket right now (nagle-trace watch).
 *
 * For each end of a stalled connection: sock_diag (nt/lab/sockdiag.h) says
 * whether a socket with that local address and port exists in watch's
 * network namespace or another of this host's (a container's: see
 * nt/live/sockns.h), its inode and its tcp_info (rtt, ato, unacked, notsent); the
 * inode leads to the process through the /proc/PID/fd links ("socket:[N]"),
 * read once per socket and cached; the ping-pong flag and the quick-ACK
 * budget, which no tcp_info field has, come from that process's own
 * /proc/PID/net/tcp (its namespace's table). Read-only: nothing here writes
 * anything anywhere. Memory is fixed: the cache has NT_SOCKOWNER_CACHE
 * entries, reused oldest first.
 */
#ifndef NT_LIVE_SOCKOWNER_H
#define NT_LIVE_SOCKOWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/lab/sockdiag.h"
#include "nt/live/sockns.h"
#include "nt/model/watch.h"

#define NT_SOCKOWNER_CACHE 1024u
/* Ends known not to be on this host, direct-mapped by a hash of the connection. */
#define NT_SOCKOWNER_REMOTE 16384u

/**
 * struct nt_sockowner_remote - one end sock_diag did not find, nor a listener of its port
 * @used: the slot holds an end
 * @family: AF_INET or AF_INET6
 * @port: the end's port
 * @peer_port: the other end's
 * @addr: the end's address
 * @peer: the other end's
 */
struct nt_sockowner_remote {
	bool used;
	uint8_t family;
	uint16_t port;
	uint16_t peer_port;
	uint8_t addr[16];
	uint8_t peer[16];
};

/**
 * struct nt_sockowner_slot - one cached inode -> process
 * @inode: the socket (0: free slot)
 * @pid: its process, -1 when no /proc/PID/fd names it
 * @comm: the process's command
 */
struct nt_sockowner_slot {
	uint64_t inode;
	int pid;
	char comm[NT_WATCH_COMM_LEN];
};

/**
 * struct nt_sockowner - the lookups and their cache
 * @sd: the sock_diag socket in watch's own network namespace
 * @ns: one in each other namespace of this host's processes (containers)
 * @scanned_ns: when the processes' namespaces were last scanned again
 *              (CLOCK_MONOTONIC), 0 not since nt_sockowner_open()
 * @slot: the cache
 * @next: the slot to reuse next
 * @remote: ends found not on this host: a connection's end cannot move
 *          onto the host, so each is asked about once, not at every stall
 * @text: /proc/PID/net/tcp's text, grown as needed
 * @text_bytes: its size
 * @proc_scans: /proc walks made (cache misses)
 * @lookups: sock_diag requests made
 */
struct nt_sockowner {
	struct nt_sockdiag sd;
	struct nt_sockns ns;
	int64_t scanned_ns;
	struct nt_sockowner_slot slot[NT_SOCKOWNER_CACHE];
	unsigned next;
	struct nt_sockowner_remote remote[NT_SOCKOWNER_REMOTE];
	char *text;
	size_t text_bytes;
	uint64_t proc_scans;
	uint64_t lookups;
};

/**
 * nt_sockowner_open() - open the sock_diag socket, empty the cache
 * @so: the lookups (large: allocate it)
 * @err: on failure, one line
 *
 * Return: 0 or a negative errno.
 */
int nt_sockowner_open(struct nt_sockowner *so, struct nt_err *err);

/**
 * nt_sockowner_close() - close and free; safe on a zeroed one
 * @so: the lookups
 */
void nt_sockowner_close(struct nt_sockowner *so);

/**
 * nt_sockowner_fill() - both ends of a stall, as this host sees them now
 * @so: the lookups
 * @st: the stall; its @sock entries are filled (NT_DIR_C2T: the client)
 */
void nt_sockowner_fill(struct nt_sockowner *so, struct nt_watch_stall *st);

#endif
