/* SPDX-License-Identifier: MIT */
/*
 * sockdiag.h - one TCP socket's kernel state over NETLINK_SOCK_DIAG
 * (libmnl), as ss(8) reads it: the socket with a given local and remote
 * (address, port), its inode and its struct tcp_info (INET_DIAG_INFO).
 *
 * Read-only: a SOCK_DIAG_BY_FAMILY request for one socket
 * (inet_diag_find_one_icsk(), net/ipv4/inet_diag.c) changes nothing, needs
 * no privilege, and sees the sockets of the caller's network namespace
 * only. As in rtnl.c the request is built by a pure function and parsed
 * back by another, so a unit test checks every byte.
 */
#ifndef NT_LAB_SOCKDIAG_H
#define NT_LAB_SOCKDIAG_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/err.h"

struct mnl_socket;
struct nlmsghdr;

/* A request and its answer (inet_diag_msg + tcp_info + a few attributes) fit in 8 KiB. */
#define NT_SOCKDIAG_BUF_BYTES 8192

/**
 * struct nt_sockdiag - an open sock_diag socket
 * @nl: libmnl's socket, NULL when closed
 * @portid: its port id
 * @seq: the next request's sequence number
 */
struct nt_sockdiag {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
};

/**
 * struct nt_sockdiag_info - what the kernel says of one socket
 * @inode: the socket's inode (idiag_inode; 0 for a time-wait socket)
 * @uid: its owner (idiag_uid)
 * @state: its TCP state (idiag_state: 1 established, ...)
 * @sport: its local port (idiag_sport), host order
 * @dport: its remote port (idiag_dport), host order: 0 for a listener
 * @has_info: INET_DIAG_INFO was there (not for time-wait sockets)
 * @rtt_us: tcpi_rtt, smoothed round trip, µs
 * @ato_us: tcpi_ato, the delayed-ACK timeout, µs
 * @unacked: tcpi_unacked, segments in flight
 * @notsent_bytes: tcpi_notsent_bytes, written but not sent
 */
struct nt_sockdiag_info {
	uint64_t inode;
	uint32_t uid;
	uint8_t state;
	uint16_t sport;
	uint16_t dport;
	bool has_info;
	uint32_t rtt_us;
	uint32_t ato_us;
	uint32_t unacked;
	uint32_t notsent_bytes;
};

/**
 * nt_sockdiag_open() - open a NETLINK_SOCK_DIAG socket
 * @sd: filled
 * @err: on failure, one line
 *
 * Return: 0 or a negative errno.
 */
int nt_sockdiag_open(struct nt_sockdiag *sd, struct nt_err *err);

/**
 * nt_sockdiag_open_in() - open a NETLINK_SOCK_DIAG socket in another network namespace
 * @sd: filled
 * @netns_fd: the namespace (an open /proc/PID/ns/net)
 * @err: on failure, one line
 *
 * The calling thread enters the namespace, opens the socket and returns to
 * its own; the socket then sees that namespace's sockets only, for its
 * whole life. Needs CAP_SYS_ADMIN (setns()).
 *
 * Return: 0 or a negative errno (-EPERM without CAP_SYS_ADMIN).
 */
int nt_sockdiag_open_in(struct nt_sockdiag *sd, int netns_fd, struct nt_err *err);

/**
 * nt_sockdiag_close() - close it; safe on a closed or zeroed one
 * @sd: the socket
 */
void nt_sockdiag_close(struct nt_sockdiag *sd);

/**
 * nt_sockdiag_build_get() - the request for one TCP socket, with tcp_info
 * @buf: NT_SOCKDIAG_BUF_BYTES bytes
 * @seq: its sequence number
 * @family: AF_INET or AF_INET6
 * @src: the socket's local address, network order (4 or 16 bytes)
 * @sport: its local port, host order
 * @dst: its remote address
 * @dport: its remote port
 *
 * Return: the message in @buf.
 */
struct nlmsghdr *nt_sockdiag_build_get(void *buf, uint32_t seq, int family, const uint8_t *src,
				       uint16_t sport, const uint8_t *dst, uint16_t dport);

/**
 * nt_sockdiag_parse() - one SOCK_DIAG_BY_FAMILY answer
 * @nlh: the message
 * @out: filled
 *
 * Return: 0, or -EINVAL when it is not an inet_diag_msg (too short, wrong type).
 */
int nt_sockdiag_parse(const struct nlmsghdr *nlh, struct nt_sockdiag_info *out);

/**
 * nt_sockdiag_get() - the state of the TCP socket local @src:@sport, remote @dst:@dport
 * @sd: an open socket
 * @family: AF_INET or AF_INET6
 * @src: local address, network order
 * @sport: local port
 * @dst: remote address
 * @dport: remote port
 * @out: filled on success
 *
 * The kernel answers a lookup that finds no connection with the listener on
 * @sport, if there is one (inet_lookup() falls back to it): that is no
 * answer about this connection, and is -ENOENT here too, with @out filled
 * from the listener (@out->state 10, TCP_LISTEN): the port is this host's,
 * the connection is gone. Otherwise @out->state is 0 on -ENOENT.
 *
 * Return: 0; -ENOENT when no such socket is in this namespace; another
 * negative errno when the kernel could not be asked.
 */
int nt_sockdiag_get(struct nt_sockdiag *sd, int family, const uint8_t *src, uint16_t sport,
		    const uint8_t *dst, uint16_t dport, struct nt_sockdiag_info *out);

#endif
