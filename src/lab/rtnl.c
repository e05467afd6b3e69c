// SPDX-License-Identifier: MIT
/*
 * rtnl.c - the rtnetlink requests the lab needs, over libmnl (see nt/lab/rtnl.h).
 *
 * Builders are pure: they write one request into a caller's NT_RTNL_BUF_BYTES
 * buffer and touch nothing else, so a unit test can parse every byte back.
 * nt_rtnl_request() is the only place that talks to the kernel: it stamps the
 * socket's next sequence number, sends, and reads until the acknowledgment of
 * that number arrives. Every request asks for an ACK (NLM_F_ACK), so success
 * is an explicit "error 0" and never inferred from silence.
 *
 * The socket sets NETLINK_CAP_ACK, so an error ACK does not echo the request
 * back, and NETLINK_EXT_ACK, so it carries the kernel's own text
 * (NLMSGERR_ATTR_MSG, from NL_SET_ERR_MSG() in the handler) that the user
 * needs far more than a bare errno: "Device for nexthop is not up" says what
 * "Network is down" does not.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <net/if.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/veth.h>

#include "nt/lab/rtnl.h"

/* Longest kernel text we keep; extack messages are short literals. */
#define EXTACK_MSG_MAX 256

int nt_rtnl_open(struct nt_rtnl *rtnl, struct nt_err *err)
{
	int one = 1;
	int ret;

	rtnl->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!rtnl->nl)
		return nt_err_set(err, -errno, "open rtnetlink socket");

	/*
	 * Both options only change what the kernel puts in its ACKs
	 * (netlink_ack()); a kernel without them would fail here with
	 * ENOPROTOOPT, which we report rather than run without the kernel's text.
	 */
	if (mnl_socket_setsockopt(rtnl->nl, NETLINK_CAP_ACK, &one, sizeof(one)) < 0) {
		ret = nt_err_set(err, -errno, "rtnetlink socket: set NETLINK_CAP_ACK");
		goto close_socket;
	}
	if (mnl_socket_setsockopt(rtnl->nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0) {
		ret = nt_err_set(err, -errno, "rtnetlink socket: set NETLINK_EXT_ACK");
		goto close_socket;
	}
	if (mnl_socket_bind(rtnl->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = nt_err_set(err, -errno, "bind rtnetlink socket");
		goto close_socket;
	}
	rtnl->portid = mnl_socket_get_portid(rtnl->nl);
	/* Any start will do (the port id is ours alone); 0 would turn off libmnl's seq check. */
	rtnl->seq = 1;
	return 0;

close_socket:
	mnl_socket_close(rtnl->nl);
	rtnl->nl = NULL;
	return ret;
}

void nt_rtnl_close(struct nt_rtnl *rtnl)
{
	if (!rtnl->nl)
		return;
	mnl_socket_close(rtnl->nl);
	rtnl->nl = NULL;
}

static struct nlmsghdr *put_request(void *buf, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh;

	/*
	 * libmnl 1.0.4's mnl_attr_put() leaves alignment padding as it finds
	 * it: start from zeros so no stale stack bytes go to the kernel.
	 */
	memset(buf, 0, NT_RTNL_BUF_BYTES);
	nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = seq;
	return nlh;
}

/*
 * IFLA_IFNAME, bounded so that no name can run past the fixed buffer. A name
 * longer than IFNAMSIZ - 1 is sent as its first IFNAMSIZ characters, which
 * still fails the kernel's policy (ifla_policy: NLA_STRING, IFNAMSIZ - 1)
 * with ERANGE instead of being cut quietly.
 */
static void put_ifname(struct nlmsghdr *nlh, const char *name)
{
	char bounded[IFNAMSIZ + 1];
	size_t len = strnlen(name, IFNAMSIZ);

	memcpy(bounded, name, len);
	bounded[len] = '\0';
	mnl_attr_put_strz(nlh, IFLA_IFNAME, bounded);
}

struct nlmsghdr *nt_rtnl_build_veth(void *buf, uint32_t seq, const char *name, const char *peer,
				    int peer_netns_fd, uint32_t gso_max_segs)
{
	struct nlmsghdr *nlh = put_request(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, seq);
	struct nlattr *linkinfo, *data, *peer_info;
	struct ifinfomsg *ifm;

	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	put_ifname(nlh, name);
	if (gso_max_segs)
		mnl_attr_put_u32(nlh, IFLA_GSO_MAX_SEGS, gso_max_segs);

	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	/*
	 * veth_newlink() reads VETH_INFO_PEER as a struct ifinfomsg followed by
	 * IFLA_* attributes (rtnl_nla_parse_ifinfomsg()), a whole link request of
	 * its own: the peer's name, namespace and GSO limit go in there, because
	 * the outer ones apply to this end only.
	 */
	peer_info = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	put_ifname(nlh, peer);
	if (peer_netns_fd >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_netns_fd);
	if (gso_max_segs)
		mnl_attr_put_u32(nlh, IFLA_GSO_MAX_SEGS, gso_max_segs);
	mnl_attr_nest_end(nlh, peer_info);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	return nlh;
}

struct nlmsghdr *nt_rtnl_build_link_up(void *buf, uint32_t seq, int ifindex)
{
	/* No NLM_F_CREATE: this changes a link that must already exist. */
	struct nlmsghdr *nlh = put_request(buf, RTM_NEWLINK, 0, seq);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	/* do_setlink() changes only the bits set in ifi_change. */
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	return nlh;
}

static size_t addr_bytes(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

struct nlmsghdr *nt_rtnl_build_addr(void *buf, uint32_t seq, int family, int ifindex,
				    const void *addr, uint8_t prefixlen, uint32_t ifa_flags)
{
	struct nlmsghdr *nlh = put_request(buf, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, seq);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	size_t len = addr_bytes(family);

	ifa->ifa_family = (uint8_t)family;
	ifa->ifa_prefixlen = prefixlen;
	/*
	 * IFA_FLAGS (u32) overrides the 8-bit ifa_flags in inet_rtm_to_ifa() and
	 * inet6_rtm_newaddr(); flags above bit 7 (IFA_F_NOPREFIXROUTE) exist
	 * only there. The low byte is copied too, as iproute2 does.
	 */
	ifa->ifa_flags = (uint8_t)ifa_flags;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifindex;
	/* Equal IFA_LOCAL and IFA_ADDRESS: an ordinary address, no point-to-point peer. */
	mnl_attr_put(nlh, IFA_LOCAL, len, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, len, addr);
	mnl_attr_put_u32(nlh, IFA_FLAGS, ifa_flags);
	return nlh;
}

struct nlmsghdr *nt_rtnl_build_route_metrics(void *buf, uint32_t seq, int family, int ifindex,
					     const void *dst, uint8_t dst_len,
					     const struct nt_rtnl_route_metrics *m)
{
	struct nlmsghdr *nlh = put_request(buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, seq);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct nlattr *metrics;

	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = dst_len;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_DST, addr_bytes(family), dst);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	if (!m->quickack && !m->rto_min_ms)
		return nlh;
	metrics = mnl_attr_nest_start(nlh, RTA_METRICS);
	/*
	 * tcp_in_quickack_mode() ACKs at once while the route's RTAX_QUICKACK
	 * metric is set, which takes delayed ACKs out of the picture;
	 * connections read it from the dst they got at connect/accept time, so
	 * the route must come first.
	 */
	if (m->quickack)
		mnl_attr_put_u32(nlh, RTAX_QUICKACK, 1);
	/*
	 * The value is in milliseconds (dst_metric_rtt() converts it to
	 * jiffies). Only a locked RTAX_RTO_MIN counts: tcp_rto_min() and, since
	 * Linux 6.7 ("tcp: derive delack_max from rto_min"), tcp_delack_max()
	 * test dst_metric_locked(dst, RTAX_RTO_MIN).
	 */
	if (m->rto_min_ms) {
		mnl_attr_put_u32(nlh, RTAX_LOCK, 1u << RTAX_RTO_MIN);
		mnl_attr_put_u32(nlh, RTAX_RTO_MIN, m->rto_min_ms);
	}
	mnl_attr_nest_end(nlh, metrics);
	return nlh;
}

struct nlmsghdr *nt_rtnl_build_route(void *buf, uint32_t seq, int family, int ifindex,
				     const void *dst, uint8_t dst_len, bool quickack)
{
	const struct nt_rtnl_route_metrics m = { .quickack = quickack };

	return nt_rtnl_build_route_metrics(buf, seq, family, ifindex, dst, dst_len, &m);
}

struct nlmsghdr *nt_rtnl_build_neigh(void *buf, uint32_t seq, int family, int ifindex,
				     const void *addr, const uint8_t *lladdr, size_t lladdr_len)
{
	/* REPLACE: whatever the kernel may have learnt already, this is the entry. */
	struct nlmsghdr *nlh = put_request(buf, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, seq);
	struct ndmsg *ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));

	ndm->ndm_family = (uint8_t)family;
	ndm->ndm_ifindex = ifindex;
	ndm->ndm_state = NUD_PERMANENT;
	mnl_attr_put(nlh, NDA_DST, addr_bytes(family), addr);
	mnl_attr_put(nlh, NDA_LLADDR, lladdr_len, lladdr);
	return nlh;
}

/**
 * struct ack - what the acknowledgment of one request said
 * @seen: an NLMSG_ERROR for our sequence number arrived
 * @error: its error field, 0 or a negative errno
 * @msg: the kernel's NLMSGERR_ATTR_MSG text, empty when none
 */
struct ack {
	bool seen;
	int error;
	char msg[EXTACK_MSG_MAX];
};

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct ack *ack = data;

	/* Skip what we do not know (OFFS, COOKIE, POLICY, ...), as libmnl advises. */
	if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
		return MNL_CB_OK;
	snprintf(ack->msg, sizeof(ack->msg), "%s", mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

static int ack_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e;
	struct ack *ack = data;
	size_t payload, off;

	payload = mnl_nlmsg_get_payload_len(nlh);
	if (payload < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	e = mnl_nlmsg_get_payload(nlh);
	ack->seen = true;
	ack->error = e->error;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return MNL_CB_STOP;
	/*
	 * netlink_ack() puts the TLVs after the nlmsgerr and, unless the
	 * request was capped (NLM_F_CAPPED, always so with NETLINK_CAP_ACK, and
	 * always on success), after the echoed request's payload too.
	 */
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += MNL_ALIGN(e->msg.nlmsg_len) - sizeof(e->msg);
	if (off < payload)
		mnl_attr_parse(nlh, (unsigned int)off, extack_attr_cb, ack);
	return MNL_CB_STOP;
}

int nt_rtnl_request(struct nt_rtnl *rtnl, struct nlmsghdr *nlh, const char *what,
		    struct nt_err *err)
{
	char buf[NT_RTNL_BUF_BYTES];
	/* libmnl 1.0.4 declares this array non-const (mnl_cb_run2()). */
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = ack_cb };
	struct ack ack = { 0 };
	uint32_t seq;
	ssize_t n;
	int ret;

	seq = rtnl->seq++;
	if (rtnl->seq == 0)
		rtnl->seq = 1;
	nlh->nlmsg_seq = seq;

	if (mnl_socket_sendto(rtnl->nl, nlh, nlh->nlmsg_len) < 0)
		return nt_err_set(err, -errno, "%s: send request", what);

	/*
	 * mnl_cb_run2() drops nothing silently: a message of another port or
	 * sequence is an error (ESRCH, EPROTO), which cannot happen on a socket
	 * that joins no groups and waits for each ACK before the next request.
	 */
	do {
		n = mnl_socket_recvfrom(rtnl->nl, buf, sizeof(buf));
		if (n < 0)
			return nt_err_set(err, -errno, "%s: receive acknowledgment", what);
		ret = mnl_cb_run2(buf, (size_t)n, seq, rtnl->portid, NULL, &ack, ctl,
				  MNL_ARRAY_SIZE(ctl));
		if (ret < 0 && !ack.seen)
			return nt_err_set(err, -errno, "%s: read acknowledgment", what);
	} while (ret > 0 && !ack.seen);

	if (!ack.seen)
		return nt_err_set(err, -EPROTO, "%s: no acknowledgment", what);
	if (ack.error == 0)
		return 0;
	if (ack.msg[0])
		return nt_err_set(err, ack.error, "%s: kernel says \"%s\"", what, ack.msg);
	return nt_err_set(err, ack.error, "%s", what);
}

int nt_rtnl_open_link_monitor(struct nt_rtnl *rtnl, struct nt_err *err)
{
	rtnl->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!rtnl->nl)
		return nt_err_set(err, -errno, "open rtnetlink link monitor");
	if (mnl_socket_bind(rtnl->nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
		int ret = nt_err_set(err, -errno, "bind rtnetlink link monitor");

		nt_rtnl_close(rtnl);
		return ret;
	}
	rtnl->portid = mnl_socket_get_portid(rtnl->nl);
	rtnl->seq = 0;
	return 0;
}

int nt_rtnl_fd(const struct nt_rtnl *rtnl)
{
	return mnl_socket_get_fd(rtnl->nl);
}

/* IF_OPER_UP (RFC 2863 "up"): <linux/if.h> defines it but clashes with <net/if.h>. */
#define OPER_UP 6

/**
 * struct oper_watch - links whose operstate-UP notification is awaited
 * @ifindex: the links
 * @up: set per link when its notification says IF_OPER_UP
 * @n: how many
 * @found: index of the link the message being parsed is about
 */
struct oper_watch {
	const int *ifindex;
	bool *up;
	size_t n;
	size_t found;
};

static int oper_attr_cb(const struct nlattr *attr, void *data)
{
	struct oper_watch *w = data;

	if (mnl_attr_get_type(attr) == IFLA_OPERSTATE &&
	    mnl_attr_validate(attr, MNL_TYPE_U8) == 0 && mnl_attr_get_u8(attr) == OPER_UP)
		w->up[w->found] = true;
	return MNL_CB_OK;
}

static int oper_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi;
	struct oper_watch *w = data;

	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	for (w->found = 0; w->found < w->n; w->found++)
		if (ifi->ifi_index == w->ifindex[w->found])
			break;
	if (w->found == w->n)
		return MNL_CB_OK;
	/* Skip attributes we do not know (libmnl's rule); only IFLA_OPERSTATE matters. */
	mnl_attr_parse(nlh, sizeof(*ifi), oper_attr_cb, w);
	return MNL_CB_OK;
}

int nt_rtnl_links_went_up(struct nt_rtnl *monitor, const int *ifindex, bool *up, size_t n,
			  struct nt_err *err)
{
	char buf[NT_RTNL_BUF_BYTES];
	struct oper_watch w = { .ifindex = ifindex, .up = up, .n = n };

	for (;;) {
		ssize_t len = mnl_socket_recvfrom(monitor->nl, buf, sizeof(buf));

		if (len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (len < 0)
			return nt_err_set(err, -errno, "read rtnetlink link notifications");
		/* Notifications carry sequence 0 and the kernel's port id 0. */
		if (mnl_cb_run(buf, (size_t)len, 0, 0, oper_msg_cb, &w) < 0)
			return nt_err_set(err, -errno, "parse rtnetlink link notifications");
	}
	return 0;
}
