/* SPDX-License-Identifier: MIT */
/*
 * rtnl.h - the rtnetlink requests the lab needs, over libmnl.
 *
 * Requests are built into a caller's buffer by pure functions (testable by
 * parsing them back with mnl_attr_*) and sent by one function that waits for
 * the kernel's acknowledgment and passes on its extended-ACK text. This
 * module and lab.c are the only places that include libmnl.
 */
#ifndef NT_LAB_RTNL_H
#define NT_LAB_RTNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/err.h"

struct mnl_socket;
struct nlmsghdr;

/* Fixed buffer size: MNL_SOCKET_BUFFER_SIZE is a sysconf() call; 8 KiB holds any request here. */
#define NT_RTNL_BUF_BYTES 8192

/**
 * struct nt_rtnl - a NETLINK_ROUTE socket bound in one namespace
 * @nl: the libmnl socket
 * @portid: its netlink port id
 * @seq: the next sequence number (a counter per socket)
 */
struct nt_rtnl {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
};

/**
 * nt_rtnl_open() - open a route netlink socket in the calling thread's namespace
 * @rtnl: the socket to set up
 * @err: filled on failure
 *
 * Sets NETLINK_CAP_ACK and NETLINK_EXT_ACK.
 *
 * Return: 0 or a negative errno.
 */
int nt_rtnl_open(struct nt_rtnl *rtnl, struct nt_err *err);

/**
 * nt_rtnl_close() - close the socket; safe on a closed or zeroed @rtnl
 * @rtnl: the socket
 */
void nt_rtnl_close(struct nt_rtnl *rtnl);

/**
 * nt_rtnl_build_veth() - RTM_NEWLINK for a veth pair
 * @buf: NT_RTNL_BUF_BYTES bytes
 * @seq: sequence number
 * @name: this end's name, created in the namespace the socket is in
 * @peer: the peer's name
 * @peer_netns_fd: namespace the peer is born in (IFLA_NET_NS_FD inside
 *                 VETH_INFO_PEER), or -1 for the same namespace
 * @gso_max_segs: IFLA_GSO_MAX_SEGS for both ends (1 keeps every TCP segment a
 *                wire segment, so the timeline is per segment), 0 to leave
 *
 * NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK.
 *
 * Return: the message, at the start of @buf.
 */
struct nlmsghdr *nt_rtnl_build_veth(void *buf, uint32_t seq, const char *name, const char *peer,
				    int peer_netns_fd, uint32_t gso_max_segs);

/**
 * nt_rtnl_build_link_up() - RTM_NEWLINK setting IFF_UP on @ifindex
 * @buf: NT_RTNL_BUF_BYTES bytes
 * @seq: sequence number
 * @ifindex: the link
 *
 * Return: the message.
 */
struct nlmsghdr *nt_rtnl_build_link_up(void *buf, uint32_t seq, int ifindex);

/**
 * nt_rtnl_build_addr() - RTM_NEWADDR
 * @buf: NT_RTNL_BUF_BYTES bytes
 * @seq: sequence number
 * @family: AF_INET or AF_INET6
 * @ifindex: the link
 * @addr: 4 or 16 bytes, network order
 * @prefixlen: prefix length
 * @ifa_flags: IFA_F_* flags, sent in IFA_FLAGS (e.g. IFA_F_NOPREFIXROUTE,
 *             IFA_F_NODAD)
 *
 * IFA_LOCAL and IFA_ADDRESS both carry @addr.
 *
 * Return: the message.
 */
struct nlmsghdr *nt_rtnl_build_addr(void *buf, uint32_t seq, int family, int ifindex,
				    const void *addr, uint8_t prefixlen, uint32_t ifa_flags);

/**
 * nt_rtnl_build_route() - RTM_NEWROUTE for a directly connected prefix
 * @buf: NT_RTNL_BUF_BYTES bytes
 * @seq: sequence number
 * @family: AF_INET or AF_INET6
 * @ifindex: output link (RTA_OIF)
 * @dst: destination prefix, 4 or 16 bytes, network order
 * @dst_len: prefix length
 * @quickack: when true, RTA_METRICS carries RTAX_QUICKACK = 1 (what
 *            `ip route ... quickack 1` sets; tcp_in_quickack_mode() reads it)
 *
 * Main table, scope link, protocol static, NLM_F_CREATE | NLM_F_EXCL.
 *
 * Return: the message.
 */
struct nlmsghdr *nt_rtnl_build_route(void *buf, uint32_t seq, int family, int ifindex,
				     const void *dst, uint8_t dst_len, bool quickack);

/**
 * struct nt_rtnl_route_metrics - RTA_METRICS of a route
 * @quickack: RTAX_QUICKACK = 1 (`quickack 1`)
 * @rto_min_ms: RTAX_RTO_MIN in milliseconds, locked (`rto_min lock MS`);
 *              0 for none
 */
struct nt_rtnl_route_metrics {
	bool quickack;
	uint32_t rto_min_ms;
};

/**
 * nt_rtnl_build_route_metrics() - nt_rtnl_build_route() with any metrics
 * @buf: NT_RTNL_BUF_BYTES bytes
 * @seq: sequence number
 * @family: AF_INET or AF_INET6
 * @ifindex: output link (RTA_OIF)
 * @dst: destination prefix, 4 or 16 bytes, network order
 * @dst_len: prefix length
 * @m: the metrics; with none set, the route has no RTA_METRICS
 *
 * A locked RTAX_RTO_MIN sets RTAX_LOCK's bit 1 << RTAX_RTO_MIN, as iproute2's
 * `rto_min lock` does: tcp_rto_min() reads the metric only when it is locked
 * (dst_metric_locked()).
 *
 * Return: the message.
 */
struct nlmsghdr *nt_rtnl_build_route_metrics(void *buf, uint32_t seq, int family, int ifindex,
					     const void *dst, uint8_t dst_len,
					     const struct nt_rtnl_route_metrics *m);

/**
 * nt_rtnl_build_neigh() - RTM_NEWNEIGH for a permanent neighbour entry
 * @buf: NT_RTNL_BUF_BYTES bytes
 * @seq: sequence number
 * @family: AF_INET (an ARP entry) or AF_INET6 (an NDP entry)
 * @ifindex: the link the neighbour is on
 * @addr: its address, 4 or 16 bytes, network order (NDA_DST)
 * @lladdr: its link-layer address (NDA_LLADDR)
 * @lladdr_len: bytes in @lladdr (6 for Ethernet)
 *
 * NUD_PERMANENT: neigh_update() never probes or ages such an entry, so no
 * ARP request or neighbour solicitation is ever sent for @addr
 * (`ip neigh replace ADDR lladdr LLADDR dev DEV nud permanent`).
 * NLM_F_CREATE | NLM_F_REPLACE.
 *
 * Return: the message.
 */
struct nlmsghdr *nt_rtnl_build_neigh(void *buf, uint32_t seq, int family, int ifindex,
				     const void *addr, const uint8_t *lladdr, size_t lladdr_len);

/**
 * nt_rtnl_request() - send one request and wait for its acknowledgment
 * @rtnl: the socket; @nlh->nlmsg_seq is set from @rtnl->seq here
 * @nlh: the request, built with NLM_F_ACK
 * @what: what the request does, for the message ("create veth pair nt-c/nt-t")
 * @err: on failure: `<what>: kernel says "<ext-ack text>": <strerror>`, or
 *       without the quote when the kernel gave no text
 *
 * Return: 0 or the kernel's negative errno.
 */
int nt_rtnl_request(struct nt_rtnl *rtnl, struct nlmsghdr *nlh, const char *what,
		    struct nt_err *err);

/**
 * nt_rtnl_open_link_monitor() - a non-blocking socket subscribed to link
 * notifications (RTNLGRP_LINK) in the calling thread's namespace
 * @rtnl: the socket to set up
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_rtnl_open_link_monitor(struct nt_rtnl *rtnl, struct nt_err *err);

/**
 * nt_rtnl_fd() - the socket's descriptor, to poll()
 * @rtnl: an open socket
 *
 * Return: the descriptor.
 */
int nt_rtnl_fd(const struct nt_rtnl *rtnl);

/**
 * nt_rtnl_links_went_up() - read pending notifications of a link monitor,
 * for several links
 * @monitor: from nt_rtnl_open_link_monitor()
 * @ifindex: the links to watch
 * @up: up[i] set to true when an RTM_NEWLINK for ifindex[i] says
 *      IF_OPER_UP; left alone otherwise
 * @n: how many links
 * @err: filled on failure
 *
 * linkwatch_do_dev() sends that notification after dev_activate(), so once it
 * is seen the device's queues take packets (before, the noop qdisc drops them).
 *
 * Return: 0 or a negative errno.
 */
int nt_rtnl_links_went_up(struct nt_rtnl *monitor, const int *ifindex, bool *up, size_t n,
			  struct nt_err *err);

#endif
