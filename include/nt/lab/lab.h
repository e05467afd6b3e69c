/* SPDX-License-Identifier: MIT */
/*
 * lab.h - the client and target namespaces joined by a veth pair.
 *
 * nt_lab_up() runs on the only thread: it makes two fresh network namespaces,
 * brings loopback up in each, creates the veth pair over rtnetlink with one
 * end born in each namespace, addresses both ends from the documentation
 * prefixes (RFC 5737 192.0.2.0/24, RFC 3849 2001:db8::/32), adds our own route
 * to the peer and sets the links up. Nothing in the caller's namespace is
 * touched; the namespaces are held by descriptors only and die with the
 * process.
 */
#ifndef NT_LAB_LAB_H
#define NT_LAB_LAB_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "nt/err.h"

#define NT_LAB_CLIENT_IF "nt-c"
#define NT_LAB_TARGET_IF "nt-t"

/**
 * struct nt_lab_config - what to build
 * @ipv6: use 2001:db8::1/64 and 2001:db8::2/64 instead of 192.0.2.1/30 and
 *        192.0.2.2/30 (IFA_F_NODAD so they are usable at once)
 * @route_quickack: the target's route back to the client gets the
 *                  `quickack 1` metric (RTAX_QUICKACK)
 * @pingpong_thresh: net.ipv4.tcp_pingpong_thresh in the target namespace,
 *                   0 to leave the kernel's default
 * @autocork: net.ipv4.tcp_autocorking in the client namespace, -1 to leave
 * @route_rto_min_ms: the target's route back to the client gets a locked
 *                    RTAX_RTO_MIN of this many milliseconds (`rto_min lock`),
 *                    which on Linux 6.7 and later also bounds the delayed-ACK
 *                    timer (tcp_delack_max()); 0 to leave the kernel's
 */
struct nt_lab_config {
	bool ipv6;
	bool route_quickack;
	int pingpong_thresh;
	int autocork;
	uint32_t route_rto_min_ms;
};

/**
 * struct nt_lab - a lab that is up
 * @client_ns: descriptor of the client namespace, -1 when down
 * @target_ns: descriptor of the target namespace, -1 when down
 * @client_ifindex: ifindex of NT_LAB_CLIENT_IF inside the client namespace
 * @target_ifindex: ifindex of NT_LAB_TARGET_IF inside the target namespace
 * @family: AF_INET or AF_INET6
 * @client_addr: the client's address (struct in_addr or struct in6_addr)
 * @target_addr: the target's address
 * @prefixlen: prefix length of both addresses
 * @client_addr_str: printable client address
 * @target_addr_str: printable target address
 */
struct nt_lab {
	int client_ns;
	int target_ns;
	int client_ifindex;
	int target_ifindex;
	int family;
	struct in6_addr client_addr;
	struct in6_addr target_addr;
	uint8_t prefixlen;
	char client_addr_str[INET6_ADDRSTRLEN];
	char target_addr_str[INET6_ADDRSTRLEN];
};

/**
 * nt_lab_up() - build the lab
 * @lab: filled in
 * @cfg: what to build
 * @err: names the failing step
 *
 * On success the calling thread is left in the client namespace. On failure
 * everything made so far is released (nt_lab_down()).
 *
 * Return: 0 or a negative errno (-EPERM: no privileges for namespaces).
 */
int nt_lab_up(struct nt_lab *lab, const struct nt_lab_config *cfg, struct nt_err *err);

/**
 * nt_lab_enter_client() - move the calling thread into the client namespace
 * @lab: a lab that is up
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_lab_enter_client(const struct nt_lab *lab, struct nt_err *err);

/**
 * nt_lab_enter_target() - move the calling thread into the target namespace
 * @lab: a lab that is up
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_lab_enter_target(const struct nt_lab *lab, struct nt_err *err);

/**
 * nt_lab_down() - release the lab's descriptors; idempotent, safe on a
 * partly built or zeroed lab (descriptors of 0 are treated as unset only when
 * the lab was never initialised: nt_lab_up() sets them to -1 first)
 * @lab: the lab
 */
void nt_lab_down(struct nt_lab *lab);

#endif
