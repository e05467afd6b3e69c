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
 *
 * With a round-trip time (nt_lab_config.rtt_ns), a third, middle namespace
 * sits between them: client (nt-c) <-> (nt-mc) middle (nt-mt) <-> target
 * (nt-t), two veth pairs and a forwarder thread (nt/lab/wire.h) that delays
 * every frame by half the RTT in each direction. The middle is a transparent
 * layer-2 path: no addresses, IPv6 off, no forwarding, so its own stack
 * neither answers nor sends anything. Client and target keep their addresses
 * and routes, and get permanent neighbour entries for each other so the first
 * SYN does not wait for an ARP or NDP exchange across the delay.
 */
#ifndef NT_LAB_LAB_H
#define NT_LAB_LAB_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "nt/err.h"
#include "nt/lab/wire.h"

#define NT_LAB_CLIENT_IF "nt-c"
#define NT_LAB_TARGET_IF "nt-t"
/* The middle namespace's ends, facing the client and the target, with a delay only. */
#define NT_LAB_MIDDLE_CLIENT_IF "nt-mc"
#define NT_LAB_MIDDLE_TARGET_IF "nt-mt"

/**
 * enum nt_lab_side - an end of the path, e.g. where to capture
 * @NT_LAB_CLIENT: the client namespace and its link NT_LAB_CLIENT_IF
 * @NT_LAB_TARGET: the target namespace and its link NT_LAB_TARGET_IF
 */
enum nt_lab_side {
	NT_LAB_CLIENT = 0,
	NT_LAB_TARGET = 1,
};

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
 * @rtt_ns: round-trip time the path adds, half each way, through a middle
 *          namespace and its forwarder; 0 for the single veth pair
 * @resolve_neighbours: with @rtt_ns, leave out the permanent neighbour
 *                      entries, so ARP or NDP runs across the delay
 * @wire_spin_ns: the forwarder's busy-wait before each deadline
 *                (struct nt_wire_config.spin_ns): 0 for the default,
 *                negative for none
 */
struct nt_lab_config {
	bool ipv6;
	bool route_quickack;
	int pingpong_thresh;
	int autocork;
	uint32_t route_rto_min_ms;
	int64_t rtt_ns;
	bool resolve_neighbours;
	int64_t wire_spin_ns;
};

/**
 * struct nt_lab - a lab that is up
 * @client_ns: descriptor of the client namespace, -1 when down
 * @target_ns: descriptor of the target namespace, -1 when down
 * @middle_ns: descriptor of the middle namespace, -1 without a delay
 * @client_ifindex: ifindex of NT_LAB_CLIENT_IF inside the client namespace
 * @target_ifindex: ifindex of NT_LAB_TARGET_IF inside the target namespace
 * @family: AF_INET or AF_INET6
 * @client_addr: the client's address (struct in_addr or struct in6_addr)
 * @target_addr: the target's address
 * @prefixlen: prefix length of both addresses
 * @client_addr_str: printable client address
 * @target_addr_str: printable target address
 * @delay_line: what adds the delay: "none", or "wire" (the user-space
 *              forwarder of nt/lab/wire.h), for the report's header
 * @wire: the forwarder, open and running when @delay_line is "wire"; read its
 *        counters with nt_wire_stats()
 */
struct nt_lab {
	int client_ns;
	int target_ns;
	int middle_ns;
	int client_ifindex;
	int target_ifindex;
	int family;
	struct in6_addr client_addr;
	struct in6_addr target_addr;
	uint8_t prefixlen;
	char client_addr_str[INET6_ADDRSTRLEN];
	char target_addr_str[INET6_ADDRSTRLEN];
	const char *delay_line;
	struct nt_wire wire;
};

/**
 * nt_lab_up() - build the lab
 * @lab: filled in
 * @cfg: what to build
 * @err: names the failing step
 *
 * On success the calling thread is left in the client namespace and, with a
 * round-trip time, the forwarder thread runs until nt_lab_down() (which pays
 * one RCU grace period for its packet socket). On failure everything made so
 * far is released (nt_lab_down()).
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
 * nt_lab_enter() - move the calling thread into one side's namespace
 * @lab: a lab that is up
 * @side: which
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_lab_enter(const struct nt_lab *lab, enum nt_lab_side side, struct nt_err *err);

/**
 * nt_lab_ifname() - one side's link, e.g. to capture on from inside its namespace
 * @lab: a lab that is up
 * @side: which
 *
 * Return: NT_LAB_CLIENT_IF or NT_LAB_TARGET_IF.
 */
const char *nt_lab_ifname(const struct nt_lab *lab, enum nt_lab_side side);

/**
 * nt_lab_side_parse() - "client" or "target" (--capture-at)
 * @name: the text
 * @side: set on success
 *
 * Return: 0, or -EINVAL for any other text.
 */
int nt_lab_side_parse(const char *name, enum nt_lab_side *side);

/**
 * nt_lab_side_name() - the name nt_lab_side_parse() reads
 * @side: the side
 *
 * Return: "client" or "target".
 */
const char *nt_lab_side_name(enum nt_lab_side side);

/**
 * nt_lab_wire_dropped() - the frames the delay line lost, in either
 * direction; read while the lab is up (nt_lab_down() closes the line)
 * @lab: a lab that is up
 * @dropped: set; 0 for a lab without a delay line
 * @err: filled when the forwarder stopped on an error (@dropped is still set)
 *
 * Return: 0, or the forwarder's negative errno.
 */
int nt_lab_wire_dropped(struct nt_lab *lab, uint64_t *dropped, struct nt_err *err);

/**
 * nt_lab_wire_late_since() - how late, at most, the delay line released a
 * frame since the last call, in either direction
 * @lab: a lab that is up
 * @seen: the lateness histograms' bucket counts at the last call, updated
 *        (zeroed before the first)
 *
 * From the forwarder's own lateness histograms (struct nt_wire_dir_stats):
 * the upper edge of the highest bucket that gained a frame.
 *
 * Return: nanoseconds, 0 when no frame was late or without a delay line.
 */
int64_t nt_lab_wire_late_since(struct nt_lab *lab,
			       uint64_t seen[NT_WIRE_DIRS][NT_WIRE_HIST_BUCKETS]);

/**
 * nt_lab_wire_late_copy() - how late the delay line forwarded its last TCP
 * segments, per direction (nt_wire_late_find())
 * @lab: a lab that is up
 * @out: filled; every log empty without a delay line
 */
void nt_lab_wire_late_copy(struct nt_lab *lab, struct nt_wire_late_log out[NT_WIRE_DIRS]);

/**
 * nt_lab_down() - stop and join the forwarder, release the lab's descriptors;
 * idempotent, safe on a partly built or zeroed lab (descriptors of 0 are
 * treated as unset only when the lab was never initialised: nt_lab_up() sets
 * them to -1 first)
 * @lab: the lab
 */
void nt_lab_down(struct nt_lab *lab);

#endif
