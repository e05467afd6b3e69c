// SPDX-License-Identifier: MIT
/*
 * lab.c - the client and target namespaces joined by a veth pair (see nt/lab/lab.h).
 *
 * The lab is built from the inside: the thread unshares a client namespace,
 * then a target namespace, and creates the veth pair from the target with the
 * peer born directly in the client (IFLA_NET_NS_FD inside VETH_INFO_PEER), so
 * no link ever exists in the caller's namespace, not even for a moment. Each
 * namespace is then configured through a rtnetlink socket opened inside it,
 * because a netlink socket acts on the namespace it was created in.
 *
 * Addressing, per end: the address with IFA_F_NOPREFIXROUTE, so the kernel
 * adds no prefix route of its own, then our route to the prefix. That route
 * is the one connections use, so its metrics (RTAX_QUICKACK) are the ones
 * tcp_in_quickack_mode() sees; a kernel prefix route next to it would make
 * ours fail with EEXIST.
 *
 * Offloads: both ends get gso_max_segs = 1, so tcp_tso_autosize() builds one
 * MSS per skb and the sender's capture shows wire segments, not 64 KiB GSO
 * frames. GRO needs nothing: veth_newlink() calls veth_disable_gro() on both
 * ends, and veth only aggregates in its NAPI path, which runs when XDP is
 * attached or GRO is turned on by hand (veth_set_features(), since 5.13);
 * ETHTOOL_GGRO reads "off" on both ends of a fresh pair on this kernel.
 *
 * On failure the thread goes back to the namespace it started in, so that
 * once nt_lab_down() has closed the descriptors nothing holds the lab's
 * namespaces and the kernel tears them down.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_addr.h>

#include "nt/lab/lab.h"
#include "nt/lab/netns.h"
#include "nt/lab/rtnl.h"

/* How long the veth pair may take to come up (linkwatch work) before the lab gives up. */
#define LINK_UP_TIMEOUT_MS 2000
/* Buckets of the target namespace's own TCP hash table (rounded up to a power of two). */
#define TARGET_EHASH_ENTRIES 256

/* Every segment its own skb and wire frame; see the top of the file. */
#define LAB_GSO_MAX_SEGS 1

/**
 * struct lab_end - one end of the lab, as configured from inside its namespace
 * @ifname: the veth end
 * @addr: its address, 4 or 16 bytes in network order
 * @addr_str: the same, printable
 * @ifindex_out: where its ifindex goes
 * @metrics: our route's metrics (RTAX_QUICKACK, a locked RTAX_RTO_MIN)
 */
struct lab_end {
	const char *ifname;
	const struct in6_addr *addr;
	const char *addr_str;
	int *ifindex_out;
	struct nt_rtnl_route_metrics metrics;
};

static int link_index(const char *ifname, int *ifindex_out, struct nt_err *err)
{
	/* SIOCGIFINDEX on a socket made now, so in the calling thread's namespace. */
	unsigned int ifindex = if_nametoindex(ifname);

	if (ifindex == 0)
		return nt_err_set(err, -errno, "find link %s", ifname);
	*ifindex_out = (int)ifindex;
	return 0;
}

static int loopback_up(struct nt_rtnl *rtnl, void *buf, struct nt_err *err)
{
	int ifindex = 0, ret;

	/* A fresh namespace has lo down; local connections and 127/8 need it up. */
	ret = link_index("lo", &ifindex, err);
	if (ret)
		return ret;
	return nt_rtnl_request(rtnl, nt_rtnl_build_link_up(buf, 0, ifindex), "set link lo up", err);
}

/*
 * The common part of both ends, once the veth end exists in the thread's
 * namespace: address, link up, our route. The route comes after the link is
 * up: fib_check_nh_nongw() (IPv4) and fib6_nh_init() (IPv6) refuse a nexthop
 * whose device is down; NO-CARRIER (the peer still down) is fine.
 */
static int configure_end(struct nt_rtnl *rtnl, void *buf, const struct nt_lab *lab,
			 const struct lab_end *end, struct nt_err *err)
{
	struct in6_addr prefix = { 0 };
	unsigned int addr_len = lab->family == AF_INET6 ? 16 : 4;
	uint32_t ifa_flags = IFA_F_NOPREFIXROUTE;
	char prefix_str[INET6_ADDRSTRLEN];
	char what[128];
	int ret;

	ret = link_index(end->ifname, end->ifindex_out, err);
	if (ret)
		return ret;

	/*
	 * IPv6 would otherwise hold the address tentative for DAD (about a
	 * second, addrconf_dad_begin()) and refuse to bind or connect from it.
	 */
	if (lab->family == AF_INET6)
		ifa_flags |= IFA_F_NODAD;
	snprintf(what, sizeof(what), "add address %s/%u to %s", end->addr_str, lab->prefixlen,
		 end->ifname);
	ret = nt_rtnl_request(rtnl,
			      nt_rtnl_build_addr(buf, 0, lab->family, *end->ifindex_out, end->addr,
						 lab->prefixlen, ifa_flags),
			      what, err);
	if (ret)
		return ret;

	snprintf(what, sizeof(what), "set link %s up", end->ifname);
	ret = nt_rtnl_request(rtnl, nt_rtnl_build_link_up(buf, 0, *end->ifindex_out), what, err);
	if (ret)
		return ret;

	/* fib_table_insert() rejects a destination with host bits set: mask them off. */
	for (unsigned int i = 0; i < addr_len && i * 8 < lab->prefixlen; i++) {
		unsigned int bits = lab->prefixlen - i * 8;

		prefix.s6_addr[i] = end->addr->s6_addr[i] & (bits >= 8 ? 0xff : 0xff00 >> bits);
	}
	inet_ntop(lab->family, &prefix, prefix_str, sizeof(prefix_str));
	snprintf(what, sizeof(what), "add route %s/%u dev %s%s", prefix_str, lab->prefixlen,
		 end->ifname, end->metrics.quickack ? " quickack 1" : "");
	if (end->metrics.rto_min_ms)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), " rto_min lock %ums",
			 end->metrics.rto_min_ms);
	return nt_rtnl_request(rtnl,
			       nt_rtnl_build_route_metrics(buf, 0, lab->family, *end->ifindex_out,
							   &prefix, lab->prefixlen, &end->metrics),
			       what, err);
}

static int sysctl_int(const char *key, int value, struct nt_err *err)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", value);
	return nt_netns_sysctl_write(key, text, err);
}

/* Runs in the target namespace: lo, the veth pair (peer into the client), our end. */
static int setup_target(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
			struct nt_rtnl *monitor, struct nt_err *err)
{
	const struct lab_end end = {
		.ifname = NT_LAB_TARGET_IF,
		.addr = &lab->target_addr,
		.addr_str = lab->target_addr_str,
		.ifindex_out = &lab->target_ifindex,
		.metrics = { .quickack = cfg->route_quickack, .rto_min_ms = cfg->route_rto_min_ms },
	};
	struct nt_rtnl rtnl = { 0 };
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	ret = loopback_up(&rtnl, buf, err);
	if (ret)
		goto close_rtnl;
	ret = nt_rtnl_request(&rtnl,
			      nt_rtnl_build_veth(buf, 0, NT_LAB_TARGET_IF, NT_LAB_CLIENT_IF,
						 lab->client_ns, LAB_GSO_MAX_SEGS),
			      "create veth pair " NT_LAB_TARGET_IF "/" NT_LAB_CLIENT_IF, err);
	if (ret)
		goto close_rtnl;
	ret = nt_rtnl_open_link_monitor(monitor, err);
	if (ret)
		goto close_rtnl;
	ret = configure_end(&rtnl, buf, lab, &end, err);
	if (ret)
		goto close_rtnl;
	/* The receiver's ping-pong threshold (inet_csk_in_pingpong_mode()) is per namespace. */
	if (cfg->pingpong_thresh > 0)
		ret = sysctl_int("net.ipv4.tcp_pingpong_thresh", cfg->pingpong_thresh, err);
close_rtnl:
	nt_rtnl_close(&rtnl);
	return ret;
}

/* Runs in the client namespace, where the peer end was born. */
static int setup_client(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
			struct nt_err *err)
{
	const struct lab_end end = {
		.ifname = NT_LAB_CLIENT_IF,
		.addr = &lab->client_addr,
		.addr_str = lab->client_addr_str,
		.ifindex_out = &lab->client_ifindex,
	};
	struct nt_rtnl rtnl = { 0 };
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	ret = loopback_up(&rtnl, buf, err);
	if (ret)
		goto close_rtnl;
	ret = configure_end(&rtnl, buf, lab, &end, err);
	if (ret)
		goto close_rtnl;
	/* The sender's autocorking (tcp_should_autocork()) is per namespace. */
	if (cfg->autocork >= 0)
		ret = sysctl_int("net.ipv4.tcp_autocorking", cfg->autocork, err);
close_rtnl:
	nt_rtnl_close(&rtnl);
	return ret;
}

/*
 * Setting IFF_UP is not always enough to send. The target's end comes up
 * first, while its peer is down: no carrier, so __dev_open() leaves its
 * queues on the noop qdisc and dev_activate() happens later, when the
 * client's end comes up and linkwatch runs from a work queue. A SYN-ACK or
 * ARP reply sent before that is dropped and the client retries a second later.
 * linkwatch_do_dev() sends the operstate-UP notification after dev_activate(),
 * so wait for it. The client's end needs no wait: its carrier is already on
 * when it comes up, so __dev_open() activates it at once (its own operstate
 * notification is a non-urgent linkwatch event, about a second later).
 */
static int wait_target_up(struct nt_lab *lab, struct nt_rtnl *target_mon, struct nt_err *err)
{
	bool up = false;

	for (int waited_ms = 0;; waited_ms += 5) {
		struct pollfd pfd = { .fd = nt_rtnl_fd(target_mon), .events = POLLIN };
		int ret = nt_rtnl_link_went_up(target_mon, lab->target_ifindex, &up, err);

		if (ret || up)
			return ret;
		if (waited_ms >= LINK_UP_TIMEOUT_MS)
			return nt_err_set(err, -ETIMEDOUT, "link %s did not come up within %d ms",
					  NT_LAB_TARGET_IF, LINK_UP_TIMEOUT_MS);
		if (poll(&pfd, 1, 5) < 0 && errno != EINTR)
			return nt_err_set(err, -errno, "wait for link %s to come up",
					  NT_LAB_TARGET_IF);
	}
}

/* RFC 5737 TEST-NET-1 and RFC 3849 documentation addresses: never routed anywhere. */
static void lab_addresses(struct nt_lab *lab, bool ipv6)
{
	const char *client = ipv6 ? "2001:db8::1" : "192.0.2.1";
	const char *target = ipv6 ? "2001:db8::2" : "192.0.2.2";

	lab->family = ipv6 ? AF_INET6 : AF_INET;
	lab->prefixlen = ipv6 ? 64 : 30;
	inet_pton(lab->family, client, &lab->client_addr);
	inet_pton(lab->family, target, &lab->target_addr);
	snprintf(lab->client_addr_str, sizeof(lab->client_addr_str), "%s", client);
	snprintf(lab->target_addr_str, sizeof(lab->target_addr_str), "%s", target);
}

int nt_lab_up(struct nt_lab *lab, const struct nt_lab_config *cfg, struct nt_err *err)
{
	char buf[NT_RTNL_BUF_BYTES];
	struct nt_rtnl target_mon = { 0 };
	int home_ns, ret;

	memset(lab, 0, sizeof(*lab));
	lab->client_ns = -1;
	lab->target_ns = -1;
	lab_addresses(lab, cfg->ipv6);

	ret = nt_netns_current(&home_ns, err);
	if (ret)
		return ret;
	ret = nt_netns_new(&lab->client_ns, err);
	if (ret)
		goto return_home;
	/*
	 * The target namespace is a child of the client's: give it its own
	 * small TCP hash table (tcp_child_ehash_entries, Linux 6.1) instead of
	 * the host's shared one, so reading its /proc/net/tcp for the evidence
	 * walks a few buckets, not hundreds of thousands. Best effort: older
	 * kernels lack it and the lab works without.
	 */
	(void)sysctl_int("net.ipv4.tcp_child_ehash_entries", TARGET_EHASH_ENTRIES, NULL);
	/* From here on the thread is in the target namespace. */
	ret = nt_netns_new(&lab->target_ns, err);
	if (ret)
		goto return_home;
	ret = setup_target(lab, cfg, buf, &target_mon, err);
	if (ret)
		goto return_home;
	ret = nt_netns_enter(lab->client_ns, err);
	if (ret)
		goto return_home;
	ret = setup_client(lab, cfg, buf, err);
	if (ret)
		goto return_home;
	ret = wait_target_up(lab, &target_mon, err);
	if (ret)
		goto return_home;
	nt_rtnl_close(&target_mon);
	close(home_ns);
	return 0;

return_home:
	nt_rtnl_close(&target_mon);
	/* Best effort and silent: the first error is the one to report. */
	nt_netns_enter(home_ns, NULL);
	close(home_ns);
	nt_lab_down(lab);
	return ret;
}

int nt_lab_enter_client(const struct nt_lab *lab, struct nt_err *err)
{
	return nt_netns_enter(lab->client_ns, err);
}

int nt_lab_enter_target(const struct nt_lab *lab, struct nt_err *err)
{
	return nt_netns_enter(lab->target_ns, err);
}

void nt_lab_down(struct nt_lab *lab)
{
	if (lab->client_ns >= 0)
		close(lab->client_ns);
	if (lab->target_ns >= 0)
		close(lab->target_ns);
	lab->client_ns = -1;
	lab->target_ns = -1;
}
