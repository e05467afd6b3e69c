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
 * With a delay (nt_lab_config.rtt_ns) the path is client (nt-c) <-> (nt-mc)
 * middle (nt-mt) <-> target (nt-t). The middle namespace is made from the
 * client's and the target's from the middle's; both veth pairs are created
 * from inside the middle, each peer born in its own namespace, so still no
 * link ever exists in the caller's namespace. The middle gets no address,
 * IPv6 off (disable_ipv6 in "default" before its links exist, so they never
 * get a link-local address, send a router solicitation or an MLD report) and
 * forwarding off: with no address, arp_process() answers nothing, and a frame
 * for the client's or the target's MAC is PACKET_OTHERHOST to it, which
 * ip_rcv_core() drops. Only the forwarder's packet socket sees the frames.
 *
 * ARP and NDP: left alone they would cross the delay too, and the first SYN
 * would leave one round trip late, after the client's resolution of the
 * target (a SYN waits in the neighbour's queue, __neigh_event_send()). A real
 * path's RTT lies beyond the first router, which answers ARP in microseconds,
 * so each side gets a permanent entry for the other's MAC instead
 * (NUD_PERMANENT: never probed, never aged) and no resolution ever happens;
 * nt_lab_config.resolve_neighbours keeps the old behaviour for measuring it.
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
#include <sys/ioctl.h>
#include <sys/socket.h>
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
/* An Ethernet address. */
#define ETH_MAC_BYTES 6

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

/* The link's MAC, asked (SIOCGIFHWADDR) on a socket of the calling thread's namespace. */
static int link_mac(const char *ifname, uint8_t mac[ETH_MAC_BYTES], struct nt_err *err)
{
	struct ifreq ifr;
	int fd, ret = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nt_err_set(err, -errno, "read the MAC of %s: create a socket", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		ret = nt_err_set(err, -errno, "read the MAC of %s", ifname);
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_MAC_BYTES);
	close(fd);
	return ret;
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

/* The target's own settings, from inside its namespace, once its end exists. */
static int target_settings(struct nt_rtnl *rtnl, void *buf, struct nt_lab *lab,
			   const struct nt_lab_config *cfg, struct nt_err *err)
{
	const struct lab_end end = {
		.ifname = NT_LAB_TARGET_IF,
		.addr = &lab->target_addr,
		.addr_str = lab->target_addr_str,
		.ifindex_out = &lab->target_ifindex,
		.metrics = { .quickack = cfg->route_quickack, .rto_min_ms = cfg->route_rto_min_ms },
	};
	int ret;

	ret = configure_end(rtnl, buf, lab, &end, err);
	if (ret)
		return ret;
	/* The receiver's ping-pong threshold (inet_csk_in_pingpong_mode()) is per namespace. */
	if (cfg->pingpong_thresh > 0)
		ret = sysctl_int("net.ipv4.tcp_pingpong_thresh", cfg->pingpong_thresh, err);
	return ret;
}

static int veth_pair(struct nt_rtnl *rtnl, void *buf, const char *name, const char *peer,
		     int peer_ns, struct nt_err *err)
{
	char what[64];

	snprintf(what, sizeof(what), "create veth pair %s/%s", name, peer);
	return nt_rtnl_request(
		rtnl, nt_rtnl_build_veth(buf, 0, name, peer, peer_ns, LAB_GSO_MAX_SEGS), what, err);
}

/* Runs in the target namespace: lo, the veth pair (peer into the client), our end. */
static int setup_target(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
			struct nt_rtnl *monitor, struct nt_err *err)
{
	struct nt_rtnl rtnl = { 0 };
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	ret = loopback_up(&rtnl, buf, err);
	if (ret)
		goto close_rtnl;
	ret = veth_pair(&rtnl, buf, NT_LAB_TARGET_IF, NT_LAB_CLIENT_IF, lab->client_ns, err);
	if (ret)
		goto close_rtnl;
	ret = nt_rtnl_open_link_monitor(monitor, err);
	if (ret)
		goto close_rtnl;
	ret = target_settings(&rtnl, buf, lab, cfg, err);
close_rtnl:
	nt_rtnl_close(&rtnl);
	return ret;
}

/* The client's own settings, from inside its namespace, once its end exists. */
static int client_settings(struct nt_rtnl *rtnl, void *buf, struct nt_lab *lab,
			   const struct nt_lab_config *cfg, struct nt_err *err)
{
	const struct lab_end end = {
		.ifname = NT_LAB_CLIENT_IF,
		.addr = &lab->client_addr,
		.addr_str = lab->client_addr_str,
		.ifindex_out = &lab->client_ifindex,
	};
	int ret;

	ret = loopback_up(rtnl, buf, err);
	if (ret)
		return ret;
	ret = configure_end(rtnl, buf, lab, &end, err);
	if (ret)
		return ret;
	/* The sender's autocorking (tcp_should_autocork()) is per namespace. */
	if (cfg->autocork >= 0)
		ret = sysctl_int("net.ipv4.tcp_autocorking", cfg->autocork, err);
	return ret;
}

/* Runs in the client namespace, where the peer end was born. */
static int setup_client(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
			struct nt_err *err)
{
	struct nt_rtnl rtnl = { 0 };
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	ret = client_settings(&rtnl, buf, lab, cfg, err);
	nt_rtnl_close(&rtnl);
	return ret;
}

/*
 * Setting IFF_UP is not always enough to send. The end that comes up first
 * sees its peer down: no carrier, so __dev_open() leaves its queues on the
 * noop qdisc and dev_activate() happens later, when the peer comes up and
 * linkwatch runs from a work queue. A SYN-ACK or ARP reply sent before that
 * is dropped and the client retries a second later. linkwatch_do_dev() sends
 * the operstate-UP notification after dev_activate(), so wait for it. The end
 * that comes up second needs no wait: its carrier is already on, so
 * __dev_open() activates it at once (its own operstate notification is a
 * non-urgent linkwatch event, about a second later).
 */
static int wait_links_up(struct nt_rtnl *monitor, const int *ifindex, const char *const *ifname,
			 size_t n, struct nt_err *err)
{
	bool up[2] = { false, false };

	for (int waited_ms = 0;; waited_ms += 5) {
		struct pollfd pfd = { .fd = nt_rtnl_fd(monitor), .events = POLLIN };
		size_t down = n;
		int ret = nt_rtnl_links_went_up(monitor, ifindex, up, n, err);

		if (ret)
			return ret;
		for (size_t i = 0; i < n; i++)
			down -= up[i];
		if (!down)
			return 0;
		if (waited_ms >= LINK_UP_TIMEOUT_MS) {
			size_t i = 0;

			while (up[i])
				i++;
			return nt_err_set(err, -ETIMEDOUT, "link %s did not come up within %d ms",
					  ifname[i], LINK_UP_TIMEOUT_MS);
		}
		if (poll(&pfd, 1, 5) < 0 && errno != EINTR)
			return nt_err_set(err, -errno, "wait for link %s to come up", ifname[0]);
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

/* One veth pair, client to target; the thread ends in the client namespace. */
static int build_direct(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
			struct nt_err *err)
{
	static const char *const target_if[] = { NT_LAB_TARGET_IF };
	struct nt_rtnl target_mon = { 0 };
	int ret;

	ret = nt_netns_new(&lab->target_ns, err);
	if (ret)
		return ret;
	ret = setup_target(lab, cfg, buf, &target_mon, err);
	if (ret)
		goto close_monitor;
	ret = nt_netns_enter(lab->client_ns, err);
	if (ret)
		goto close_monitor;
	ret = setup_client(lab, cfg, buf, err);
	if (ret)
		goto close_monitor;
	ret = wait_links_up(&target_mon, &lab->target_ifindex, target_if, 1, err);
close_monitor:
	nt_rtnl_close(&target_mon);
	return ret;
}

/*
 * Runs in the middle namespace, before any link exists there: see the top of
 * the file. A kernel without IPv6 has no such sysctl, and nothing to silence.
 */
static int quiet_middle(struct nt_err *err)
{
	static const char *const off[] = { "net.ipv6.conf.default.disable_ipv6",
					   "net.ipv6.conf.all.disable_ipv6" };
	struct nt_err ignored;
	int ret;

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		ret = sysctl_int(off[i], 1, &ignored);
		if (ret && ret != -ENOENT)
			return nt_err_set(err, ret, "%s", ignored.msg);
	}
	/* IPv4 settings of a new namespace are copied from the host's (devconf_inherit_init_net). */
	ret = sysctl_int("net.ipv4.ip_forward", 0, err);
	if (ret)
		return ret;
	/* The target namespace is made from here: keep its TCP table small (see nt_lab_up()). */
	(void)sysctl_int("net.ipv4.tcp_child_ehash_entries", TARGET_EHASH_ENTRIES, NULL);
	return 0;
}

/*
 * Runs in the middle namespace once the target's exists: both veth pairs,
 * both middle ends up, the forwarder's socket. Leaves @monitor watching the
 * middle's links, whose peers are still down.
 */
static int setup_middle(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
			struct nt_rtnl *monitor, int *mid_ifindex, struct nt_err *err)
{
	const int64_t half_ns = cfg->rtt_ns / 2;
	struct nt_wire_config wc = {
		.client_ifname = NT_LAB_MIDDLE_CLIENT_IF,
		.target_ifname = NT_LAB_MIDDLE_TARGET_IF,
		.delay_ns = { cfg->rtt_ns - half_ns, half_ns },
		.spin_ns = cfg->wire_spin_ns,
	};
	struct nt_rtnl rtnl = { 0 };
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	ret = veth_pair(&rtnl, buf, NT_LAB_MIDDLE_CLIENT_IF, NT_LAB_CLIENT_IF, lab->client_ns, err);
	if (ret == 0)
		ret = veth_pair(&rtnl, buf, NT_LAB_MIDDLE_TARGET_IF, NT_LAB_TARGET_IF,
				lab->target_ns, err);
	if (ret == 0)
		ret = nt_rtnl_open_link_monitor(monitor, err);
	if (ret == 0)
		ret = link_index(NT_LAB_MIDDLE_CLIENT_IF, &mid_ifindex[0], err);
	if (ret == 0)
		ret = link_index(NT_LAB_MIDDLE_TARGET_IF, &mid_ifindex[1], err);
	for (int i = 0; i < 2 && ret == 0; i++)
		ret = nt_rtnl_request(&rtnl, nt_rtnl_build_link_up(buf, 0, mid_ifindex[i]),
				      i ? "set link " NT_LAB_MIDDLE_TARGET_IF " up"
					: "set link " NT_LAB_MIDDLE_CLIENT_IF " up",
				      err);
	nt_rtnl_close(&rtnl);
	if (ret)
		return ret;
	wc.client_ifindex = mid_ifindex[0];
	wc.target_ifindex = mid_ifindex[1];
	return nt_wire_open(&lab->wire, &wc, err);
}

static int add_neighbour(struct nt_rtnl *rtnl, void *buf, const struct nt_lab *lab, int ifindex,
			 const char *ifname, const struct in6_addr *addr, const char *addr_str,
			 const uint8_t *mac, struct nt_err *err)
{
	char what[128];

	snprintf(what, sizeof(what),
		 "add neighbour %s lladdr %02x:%02x:%02x:%02x:%02x:%02x dev %s nud permanent",
		 addr_str, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], ifname);
	return nt_rtnl_request(
		rtnl, nt_rtnl_build_neigh(buf, 0, lab->family, ifindex, addr, mac, ETH_MAC_BYTES),
		what, err);
}

/*
 * Runs in the target namespace, then in the client's: their ends, and each
 * one's permanent entry for the other (see the top of the file). The target's
 * netlink socket stays open across the move: it acts on its own namespace.
 */
static int setup_ends(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
		      struct nt_err *err)
{
	uint8_t target_mac[ETH_MAC_BYTES] = { 0 }, client_mac[ETH_MAC_BYTES] = { 0 };
	struct nt_rtnl target = { 0 }, client = { 0 };
	int ret;

	ret = nt_netns_enter(lab->target_ns, err);
	if (ret == 0)
		ret = nt_rtnl_open(&target, err);
	if (ret == 0)
		ret = loopback_up(&target, buf, err);
	if (ret == 0)
		ret = target_settings(&target, buf, lab, cfg, err);
	if (ret == 0)
		ret = link_mac(NT_LAB_TARGET_IF, target_mac, err);
	if (ret == 0)
		ret = nt_netns_enter(lab->client_ns, err);
	if (ret == 0)
		ret = nt_rtnl_open(&client, err);
	if (ret == 0)
		ret = client_settings(&client, buf, lab, cfg, err);
	if (ret || cfg->resolve_neighbours)
		goto close_rtnl;
	ret = link_mac(NT_LAB_CLIENT_IF, client_mac, err);
	if (ret == 0)
		ret = add_neighbour(&client, buf, lab, lab->client_ifindex, NT_LAB_CLIENT_IF,
				    &lab->target_addr, lab->target_addr_str, target_mac, err);
	if (ret == 0)
		ret = add_neighbour(&target, buf, lab, lab->target_ifindex, NT_LAB_TARGET_IF,
				    &lab->client_addr, lab->client_addr_str, client_mac, err);
close_rtnl:
	nt_rtnl_close(&client);
	nt_rtnl_close(&target);
	return ret;
}

/* client <-> middle <-> target, the forwarder running; the thread ends in the client namespace. */
static int build_delayed(struct nt_lab *lab, const struct nt_lab_config *cfg, void *buf,
			 struct nt_err *err)
{
	static const char *const mid_if[] = { NT_LAB_MIDDLE_CLIENT_IF, NT_LAB_MIDDLE_TARGET_IF };
	struct nt_rtnl mid_mon = { 0 };
	int mid_ifindex[2] = { 0, 0 };
	int ret;

	ret = nt_netns_new(&lab->middle_ns, err);
	if (ret)
		return ret;
	ret = quiet_middle(err);
	if (ret)
		return ret;
	/* Made from the middle, then back into it for the links. */
	ret = nt_netns_new(&lab->target_ns, err);
	if (ret)
		return ret;
	ret = nt_netns_enter(lab->middle_ns, err);
	if (ret)
		return ret;
	ret = setup_middle(lab, cfg, buf, &mid_mon, mid_ifindex, err);
	if (ret == 0)
		ret = setup_ends(lab, cfg, buf, err);
	if (ret == 0)
		ret = wait_links_up(&mid_mon, mid_ifindex, mid_if, 2, err);
	nt_rtnl_close(&mid_mon);
	if (ret)
		return ret;
	lab->delay_line = "wire";
	return nt_wire_start(&lab->wire, err);
}

int nt_lab_up(struct nt_lab *lab, const struct nt_lab_config *cfg, struct nt_err *err)
{
	char buf[NT_RTNL_BUF_BYTES];
	int home_ns, ret;

	memset(lab, 0, sizeof(*lab));
	lab->client_ns = -1;
	lab->target_ns = -1;
	lab->middle_ns = -1;
	lab->delay_line = "none";
	lab_addresses(lab, cfg->ipv6);
	if (cfg->rtt_ns < 0)
		return nt_err_set(err, -EINVAL, "round-trip time %lld ns is negative",
				  (long long)cfg->rtt_ns);

	ret = nt_netns_current(&home_ns, err);
	if (ret)
		return ret;
	ret = nt_netns_new(&lab->client_ns, err);
	if (ret)
		goto return_home;
	/*
	 * The target namespace is made from the client's (or the middle's):
	 * give it its own small TCP hash table (tcp_child_ehash_entries, Linux
	 * 6.1) instead of the host's shared one, so reading its /proc/net/tcp
	 * for the evidence walks a few buckets, not hundreds of thousands. Best
	 * effort: older kernels lack it and the lab works without.
	 */
	(void)sysctl_int("net.ipv4.tcp_child_ehash_entries", TARGET_EHASH_ENTRIES, NULL);
	if (cfg->rtt_ns > 0)
		ret = build_delayed(lab, cfg, buf, err);
	else
		ret = build_direct(lab, cfg, buf, err);
	if (ret)
		goto return_home;
	close(home_ns);
	return 0;

return_home:
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

int nt_lab_enter(const struct nt_lab *lab, enum nt_lab_side side, struct nt_err *err)
{
	return nt_netns_enter(side == NT_LAB_TARGET ? lab->target_ns : lab->client_ns, err);
}

const char *nt_lab_ifname(const struct nt_lab *lab, enum nt_lab_side side)
{
	(void)lab; /* every lab names its links alike: NT_LAB_CLIENT_IF, NT_LAB_TARGET_IF */
	return side == NT_LAB_TARGET ? NT_LAB_TARGET_IF : NT_LAB_CLIENT_IF;
}

int nt_lab_wire_dropped(struct nt_lab *lab, uint64_t *dropped, struct nt_err *err)
{
	struct nt_wire_stats st;
	int ret;

	*dropped = 0;
	if (strcmp(lab->delay_line, "wire") != 0)
		return 0;
	/* Filled even when the forwarder stopped on an error, which the caller then reports. */
	ret = nt_wire_stats(&lab->wire, &st, err);
	*dropped = nt_wire_dropped(&st);
	return ret;
}

int64_t nt_lab_wire_late_since(struct nt_lab *lab,
			       uint64_t seen[NT_WIRE_DIRS][NT_WIRE_HIST_BUCKETS])
{
	struct nt_wire_stats st;
	struct nt_err err = { 0 };
	int64_t late_ns = 0;

	if (strcmp(lab->delay_line, "wire") != 0)
		return 0;
	/* A forwarder stopped on an error is reported by nt_lab_wire_dropped(). */
	(void)nt_wire_stats(&lab->wire, &st, &err);
	for (unsigned d = 0; d < NT_WIRE_DIRS; d++) {
		const struct nt_wire_hist *h = &st.dir[d].lateness;

		for (unsigned k = 0; k < NT_WIRE_HIST_BUCKETS; k++) {
			/* Bucket k >= 1 holds [2^(k-1), 2^k) us; the last, all above. */
			int64_t edge_ns = k + 1 < NT_WIRE_HIST_BUCKETS ? (int64_t)1000 << k
								       : h->max_ns;

			if (h->bucket[k] > seen[d][k] && edge_ns > late_ns)
				late_ns = edge_ns;
			seen[d][k] = h->bucket[k];
		}
	}
	return late_ns;
}

void nt_lab_wire_late_copy(struct nt_lab *lab, struct nt_wire_late_log out[NT_WIRE_DIRS])
{
	if (strcmp(lab->delay_line, "wire") != 0) {
		memset(out, 0, sizeof(struct nt_wire_late_log) * NT_WIRE_DIRS);
		return;
	}
	nt_wire_late_copy(&lab->wire, out);
}

int nt_lab_side_parse(const char *name, enum nt_lab_side *side)
{
	if (strcmp(name, "client") == 0)
		*side = NT_LAB_CLIENT;
	else if (strcmp(name, "target") == 0)
		*side = NT_LAB_TARGET;
	else
		return -EINVAL;
	return 0;
}

const char *nt_lab_side_name(enum nt_lab_side side)
{
	return side == NT_LAB_TARGET ? "target" : "client";
}

void nt_lab_down(struct nt_lab *lab)
{
	/* First: the thread reads the wire's socket, which holds the middle namespace. */
	nt_wire_close(&lab->wire);
	if (lab->client_ns >= 0)
		close(lab->client_ns);
	if (lab->target_ns >= 0)
		close(lab->target_ns);
	if (lab->middle_ns >= 0)
		close(lab->middle_ns);
	lab->client_ns = -1;
	lab->target_ns = -1;
	lab->middle_ns = -1;
}
