// SPDX-License-Identifier: MIT
/*
 * test_rtnl.c - the lab's rtnetlink requests, parsed back byte by byte.
 *
 * Each builder's output is read with libmnl the way the kernel reads it: the
 * fixed header, then attributes, nests opened and checked one by one. Every
 * attribute must be expected (unknown ones fail the test), so a stray or
 * missing attribute shows up here and not as a kernel "Invalid argument".
 * The last tests send real requests in a fresh network namespace made in a
 * forked child; they skip when namespaces are not allowed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/veth.h>

#include "nt/lab/rtnl.h"
#include "test_netns.h"

#define ATTR_MAX 64

static const uint16_t new_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;

/* Aligned like the kernel's skb data, so the casts below are sound. */
static uint64_t buf64[NT_RTNL_BUF_BYTES / sizeof(uint64_t)];

/**
 * struct attrs - the attributes of one level, by type
 * @tb: the last attribute of each type
 * @count: how many of each type (a duplicate is a bug)
 */
struct attrs {
	const struct nlattr *tb[ATTR_MAX];
	int count[ATTR_MAX];
};

static int collect_cb(const struct nlattr *attr, void *data)
{
	struct attrs *a = data;
	uint16_t type = mnl_attr_get_type(attr);

	assert_true(type < ATTR_MAX);
	a->tb[type] = attr;
	a->count[type]++;
	return MNL_CB_OK;
}

/* Every attribute present is in @expected (a 0-terminated list), once. */
static void assert_only(const struct attrs *a, const int *expected)
{
	int want[ATTR_MAX] = { 0 };

	for (const int *t = expected; *t; t++)
		want[*t] = 1;
	for (int t = 0; t < ATTR_MAX; t++)
		assert_int_equal(a->count[t], want[t]);
}

static void parse_top(const struct nlmsghdr *nlh, size_t hdr_bytes, struct attrs *a)
{
	memset(a, 0, sizeof(*a));
	assert_int_equal(mnl_attr_parse(nlh, (unsigned int)hdr_bytes, collect_cb, a), MNL_CB_OK);
}

static void parse_nest(const struct nlattr *nest, struct attrs *a)
{
	memset(a, 0, sizeof(*a));
	assert_int_equal(mnl_attr_parse_nested(nest, collect_cb, a), MNL_CB_OK);
}

static void assert_str_attr(const struct nlattr *attr, const char *want)
{
	assert_non_null(attr);
	assert_int_equal(mnl_attr_validate(attr, MNL_TYPE_NUL_STRING), 0);
	assert_string_equal(mnl_attr_get_str(attr), want);
}

static void assert_u32_attr(const struct nlattr *attr, uint32_t want)
{
	assert_non_null(attr);
	assert_int_equal(mnl_attr_validate(attr, MNL_TYPE_U32), 0);
	assert_int_equal(mnl_attr_get_u32(attr), want);
}

static void assert_bytes_attr(const struct nlattr *attr, const void *want, size_t len)
{
	assert_non_null(attr);
	assert_int_equal(mnl_attr_get_payload_len(attr), len);
	assert_memory_equal(mnl_attr_get_payload(attr), want, len);
}

static void assert_header(const struct nlmsghdr *nlh, uint16_t type, uint16_t flags, uint32_t seq)
{
	assert_ptr_equal(nlh, buf64);
	assert_true(nlh->nlmsg_len <= NT_RTNL_BUF_BYTES);
	assert_int_equal(nlh->nlmsg_type, type);
	assert_int_equal(nlh->nlmsg_flags, flags);
	assert_int_equal(nlh->nlmsg_seq, seq);
	assert_int_equal(nlh->nlmsg_pid, 0);
}

static void assert_ifinfomsg_blank(const struct ifinfomsg *ifm)
{
	assert_int_equal(ifm->ifi_family, AF_UNSPEC);
	assert_int_equal(ifm->ifi_type, 0);
	assert_int_equal(ifm->ifi_index, 0);
	assert_int_equal(ifm->ifi_flags, 0);
	assert_int_equal(ifm->ifi_change, 0);
}

/*
 * The VETH_INFO_PEER payload: a struct ifinfomsg, then IFLA_* attributes
 * (veth_newlink() -> rtnl_nla_parse_ifinfomsg()).
 */
static void parse_peer(const struct nlattr *peer, struct attrs *a)
{
	const char *payload = mnl_attr_get_payload(peer);
	size_t len = mnl_attr_get_payload_len(peer);

	assert_true(len >= sizeof(struct ifinfomsg));
	assert_ifinfomsg_blank((const struct ifinfomsg *)(const void *)payload);
	memset(a, 0, sizeof(*a));
	assert_int_equal(mnl_attr_parse_payload(payload + sizeof(struct ifinfomsg),
						len - sizeof(struct ifinfomsg), collect_cb, a),
			 MNL_CB_OK);
}

static void test_veth(void **state)
{
	struct nlmsghdr *nlh;
	struct attrs top, linkinfo, data, peer;
	(void)state;

	nlh = nt_rtnl_build_veth(buf64, 42, "nt-t", "nt-c", 7, 1);
	assert_header(nlh, RTM_NEWLINK, new_flags, 42);
	assert_ifinfomsg_blank(mnl_nlmsg_get_payload(nlh));

	parse_top(nlh, sizeof(struct ifinfomsg), &top);
	assert_only(&top, (const int[]){ IFLA_IFNAME, IFLA_GSO_MAX_SEGS, IFLA_LINKINFO, 0 });
	assert_str_attr(top.tb[IFLA_IFNAME], "nt-t");
	assert_u32_attr(top.tb[IFLA_GSO_MAX_SEGS], 1);

	parse_nest(top.tb[IFLA_LINKINFO], &linkinfo);
	assert_only(&linkinfo, (const int[]){ IFLA_INFO_KIND, IFLA_INFO_DATA, 0 });
	assert_str_attr(linkinfo.tb[IFLA_INFO_KIND], "veth");

	parse_nest(linkinfo.tb[IFLA_INFO_DATA], &data);
	assert_only(&data, (const int[]){ VETH_INFO_PEER, 0 });

	parse_peer(data.tb[VETH_INFO_PEER], &peer);
	assert_only(&peer, (const int[]){ IFLA_IFNAME, IFLA_NET_NS_FD, IFLA_GSO_MAX_SEGS, 0 });
	assert_str_attr(peer.tb[IFLA_IFNAME], "nt-c");
	assert_u32_attr(peer.tb[IFLA_NET_NS_FD], 7);
	assert_u32_attr(peer.tb[IFLA_GSO_MAX_SEGS], 1);
}

static void test_veth_same_namespace_default_gso(void **state)
{
	struct nlmsghdr *nlh;
	struct attrs top, linkinfo, data, peer;
	(void)state;

	nlh = nt_rtnl_build_veth(buf64, 1, "a", "b", -1, 0);
	assert_header(nlh, RTM_NEWLINK, new_flags, 1);
	parse_top(nlh, sizeof(struct ifinfomsg), &top);
	assert_only(&top, (const int[]){ IFLA_IFNAME, IFLA_LINKINFO, 0 });
	parse_nest(top.tb[IFLA_LINKINFO], &linkinfo);
	parse_nest(linkinfo.tb[IFLA_INFO_DATA], &data);
	parse_peer(data.tb[VETH_INFO_PEER], &peer);
	assert_only(&peer, (const int[]){ IFLA_IFNAME, 0 });
	assert_str_attr(peer.tb[IFLA_IFNAME], "b");
}

/* A name past IFNAMSIZ - 1 is bounded, never cut to a valid (different) name. */
static void test_veth_long_name_bounded(void **state)
{
	const char *long_name = "a-name-far-longer-than-ifnamsiz-allows";
	struct nlmsghdr *nlh;
	struct attrs top;
	(void)state;

	nlh = nt_rtnl_build_veth(buf64, 1, long_name, "b", -1, 0);
	parse_top(nlh, sizeof(struct ifinfomsg), &top);
	assert_int_equal(mnl_attr_get_payload_len(top.tb[IFLA_IFNAME]), IFNAMSIZ + 1);
	assert_true(strlen(mnl_attr_get_str(top.tb[IFLA_IFNAME])) > IFNAMSIZ - 1);
}

static void test_link_up(void **state)
{
	const struct ifinfomsg *ifm;
	struct nlmsghdr *nlh;
	(void)state;

	nlh = nt_rtnl_build_link_up(buf64, 9, 3);
	/* Changes an existing link: no CREATE, no EXCL. */
	assert_header(nlh, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 9);
	assert_int_equal(nlh->nlmsg_len, mnl_nlmsg_size(sizeof(*ifm)));
	ifm = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(ifm->ifi_family, AF_UNSPEC);
	assert_int_equal(ifm->ifi_index, 3);
	assert_int_equal(ifm->ifi_flags, IFF_UP);
	assert_int_equal(ifm->ifi_change, IFF_UP);
}

static void check_addr(int family, const char *text, uint8_t prefixlen, uint32_t flags)
{
	unsigned char addr[16];
	size_t len = family == AF_INET6 ? 16 : 4;
	const struct ifaddrmsg *ifa;
	struct nlmsghdr *nlh;
	struct attrs top;

	assert_int_equal(inet_pton(family, text, addr), 1);
	nlh = nt_rtnl_build_addr(buf64, 5, family, 2, addr, prefixlen, flags);
	assert_header(nlh, RTM_NEWADDR, new_flags, 5);
	ifa = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(ifa->ifa_family, family);
	assert_int_equal(ifa->ifa_prefixlen, prefixlen);
	assert_int_equal(ifa->ifa_flags, flags & 0xff);
	assert_int_equal(ifa->ifa_scope, RT_SCOPE_UNIVERSE);
	assert_int_equal(ifa->ifa_index, 2);

	parse_top(nlh, sizeof(*ifa), &top);
	assert_only(&top, (const int[]){ IFA_ADDRESS, IFA_LOCAL, IFA_FLAGS, 0 });
	assert_bytes_attr(top.tb[IFA_LOCAL], addr, len);
	assert_bytes_attr(top.tb[IFA_ADDRESS], addr, len);
	assert_u32_attr(top.tb[IFA_FLAGS], flags);
}

static void test_addr_ipv4(void **state)
{
	(void)state;
	check_addr(AF_INET, "192.0.2.2", 30, IFA_F_NOPREFIXROUTE);
}

static void test_addr_ipv6(void **state)
{
	(void)state;
	check_addr(AF_INET6, "2001:db8::1", 64, IFA_F_NOPREFIXROUTE | IFA_F_NODAD);
}

static void check_route(int family, const char *text, uint8_t dst_len, bool quickack)
{
	unsigned char dst[16];
	size_t len = family == AF_INET6 ? 16 : 4;
	const struct rtmsg *rtm;
	struct nlmsghdr *nlh;
	struct attrs top, metrics;

	assert_int_equal(inet_pton(family, text, dst), 1);
	nlh = nt_rtnl_build_route(buf64, 77, family, 4, dst, dst_len, quickack);
	assert_header(nlh, RTM_NEWROUTE, new_flags, 77);
	rtm = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(rtm->rtm_family, family);
	assert_int_equal(rtm->rtm_dst_len, dst_len);
	assert_int_equal(rtm->rtm_src_len, 0);
	assert_int_equal(rtm->rtm_tos, 0);
	assert_int_equal(rtm->rtm_table, RT_TABLE_MAIN);
	assert_int_equal(rtm->rtm_protocol, RTPROT_STATIC);
	assert_int_equal(rtm->rtm_scope, RT_SCOPE_LINK);
	assert_int_equal(rtm->rtm_type, RTN_UNICAST);
	assert_int_equal(rtm->rtm_flags, 0);

	parse_top(nlh, sizeof(*rtm), &top);
	if (quickack)
		assert_only(&top, (const int[]){ RTA_DST, RTA_OIF, RTA_METRICS, 0 });
	else
		assert_only(&top, (const int[]){ RTA_DST, RTA_OIF, 0 });
	assert_bytes_attr(top.tb[RTA_DST], dst, len);
	assert_u32_attr(top.tb[RTA_OIF], 4);
	if (quickack) {
		parse_nest(top.tb[RTA_METRICS], &metrics);
		assert_only(&metrics, (const int[]){ RTAX_QUICKACK, 0 });
		assert_u32_attr(metrics.tb[RTAX_QUICKACK], 1);
	}
}

static void test_route_ipv4_quickack(void **state)
{
	(void)state;
	check_route(AF_INET, "192.0.2.0", 30, true);
}

static void test_route_ipv4_plain(void **state)
{
	(void)state;
	check_route(AF_INET, "192.0.2.0", 30, false);
}

static void test_route_ipv6_quickack(void **state)
{
	(void)state;
	check_route(AF_INET6, "2001:db8::", 64, true);
}

/* `ip route add 192.0.2.0/30 dev nt-t quickack 1 rto_min lock 5ms` */
static void test_route_rto_min_locked(void **state)
{
	const struct nt_rtnl_route_metrics m = { .quickack = true, .rto_min_ms = 5 };
	unsigned char dst[4] = { 192, 0, 2, 0 };
	struct attrs top, metrics;
	struct nlmsghdr *nlh;

	(void)state;
	nlh = nt_rtnl_build_route_metrics(buf64, 9, AF_INET, 4, dst, 30, &m);
	assert_header(nlh, RTM_NEWROUTE, new_flags, 9);
	parse_top(nlh, sizeof(struct rtmsg), &top);
	assert_only(&top, (const int[]){ RTA_DST, RTA_OIF, RTA_METRICS, 0 });
	parse_nest(top.tb[RTA_METRICS], &metrics);
	assert_only(&metrics, (const int[]){ RTAX_LOCK, RTAX_RTO_MIN, RTAX_QUICKACK, 0 });
	assert_u32_attr(metrics.tb[RTAX_QUICKACK], 1);
	assert_u32_attr(metrics.tb[RTAX_RTO_MIN], 5);
	assert_u32_attr(metrics.tb[RTAX_LOCK], 1u << RTAX_RTO_MIN);
}

static void check_neigh(int family, const char *text)
{
	static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	unsigned char addr[16];
	size_t len = family == AF_INET6 ? 16 : 4;
	const struct ndmsg *ndm;
	struct nlmsghdr *nlh;
	struct attrs top;

	assert_int_equal(inet_pton(family, text, addr), 1);
	nlh = nt_rtnl_build_neigh(buf64, 12, family, 6, addr, mac, sizeof(mac));
	/* REPLACE rather than EXCL: the entry is ours whatever the kernel learnt. */
	assert_header(nlh, RTM_NEWNEIGH, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE,
		      12);
	ndm = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(ndm->ndm_family, family);
	assert_int_equal(ndm->ndm_ifindex, 6);
	assert_int_equal(ndm->ndm_state, NUD_PERMANENT);
	assert_int_equal(ndm->ndm_flags, 0);
	assert_int_equal(ndm->ndm_type, 0);

	parse_top(nlh, sizeof(*ndm), &top);
	assert_only(&top, (const int[]){ NDA_DST, NDA_LLADDR, 0 });
	assert_bytes_attr(top.tb[NDA_DST], addr, len);
	assert_bytes_attr(top.tb[NDA_LLADDR], mac, sizeof(mac));
}

static void test_neigh_ipv4(void **state)
{
	(void)state;
	check_neigh(AF_INET, "192.0.2.2");
}

static void test_neigh_ipv6(void **state)
{
	(void)state;
	check_neigh(AF_INET6, "2001:db8::1");
}

static void test_close_zeroed(void **state)
{
	struct nt_rtnl rtnl = { 0 };
	(void)state;

	nt_rtnl_close(&rtnl);
	nt_rtnl_close(&rtnl);
	assert_null(rtnl.nl);
}

static int link_up_missing(struct nt_err *err)
{
	struct nt_rtnl rtnl = { 0 };
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	ret = nt_rtnl_request(&rtnl, nt_rtnl_build_link_up(buf64, 0, 999999), "set link 999999 up",
			      err);
	nt_rtnl_close(&rtnl);
	return ret;
}

static void test_request_no_such_device(void **state)
{
	struct nt_err err = { { 0 } };
	int ret = 0;
	(void)state;

	run_in_fresh_netns(link_up_missing, &ret, &err);
	assert_int_equal(ret, -ENODEV);
	/* rtnl_setlink() finds no device and gives no extack text: what, then strerror. */
	assert_string_equal(err.msg, "set link 999999 up: No such device");
}

static int veth_twice(struct nt_err *err)
{
	struct nt_rtnl rtnl = { 0 };
	uint32_t first_seq;
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	first_seq = rtnl.seq;
	ret = nt_rtnl_request(&rtnl, nt_rtnl_build_veth(buf64, 0, "nt-t", "nt-c", -1, 1),
			      "create veth pair nt-t/nt-c", err);
	if (ret)
		goto close_rtnl;
	/* One sequence number per request, counted by the socket. */
	if (rtnl.seq != first_seq + 1) {
		ret = nt_err_set(err, -EPROTO, "sequence counter did not advance");
		goto close_rtnl;
	}
	ret = nt_rtnl_request(&rtnl, nt_rtnl_build_veth(buf64, 0, "nt-t", "nt-c", -1, 1),
			      "create veth pair nt-t/nt-c", err);
close_rtnl:
	nt_rtnl_close(&rtnl);
	return ret;
}

static void test_request_exists(void **state)
{
	struct nt_err err = { { 0 } };
	int ret = 0;
	(void)state;

	run_in_fresh_netns(veth_twice, &ret, &err);
	assert_int_equal(ret, -EEXIST);
	/* The name clash is found by register_netdevice(), which sets no extack text. */
	assert_string_equal(err.msg, "create veth pair nt-t/nt-c: File exists");
}

static int bad_name(struct nt_err *err)
{
	struct nt_rtnl rtnl = { 0 };
	int ret;

	ret = nt_rtnl_open(&rtnl, err);
	if (ret)
		return ret;
	ret = nt_rtnl_request(
		&rtnl, nt_rtnl_build_veth(buf64, 0, "a-name-longer-than-ifnamsiz", "b", -1, 0),
		"create veth pair", err);
	nt_rtnl_close(&rtnl);
	return ret;
}

static void test_request_kernel_text(void **state)
{
	struct nt_err err = { { 0 } };
	int ret = 0;
	(void)state;

	run_in_fresh_netns(bad_name, &ret, &err);
	/*
	 * The policy check (validate_nla(), NLA_STRING longer than IFNAMSIZ - 1)
	 * fails with ERANGE and an extack text; the text's wording is the
	 * kernel's business, its presence is ours.
	 */
	assert_int_equal(ret, -ERANGE);
	assert_true(strncmp(err.msg, "create veth pair: kernel says \"",
			    strlen("create veth pair: kernel says \"")) == 0);
	assert_non_null(strstr(err.msg, "\": Numerical result out of range"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_veth),
		cmocka_unit_test(test_veth_same_namespace_default_gso),
		cmocka_unit_test(test_veth_long_name_bounded),
		cmocka_unit_test(test_link_up),
		cmocka_unit_test(test_addr_ipv4),
		cmocka_unit_test(test_addr_ipv6),
		cmocka_unit_test(test_route_ipv4_quickack),
		cmocka_unit_test(test_route_ipv4_plain),
		cmocka_unit_test(test_route_ipv6_quickack),
		cmocka_unit_test(test_route_rto_min_locked),
		cmocka_unit_test(test_neigh_ipv4),
		cmocka_unit_test(test_neigh_ipv6),
		cmocka_unit_test(test_close_zeroed),
		cmocka_unit_test(test_request_no_such_device),
		cmocka_unit_test(test_request_exists),
		cmocka_unit_test(test_request_kernel_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
