// SPDX-License-Identifier: MIT
/*
 * test_sockdiag.c - the sock_diag request for one socket, parsed back as the
 * kernel reads it (inet_diag_req_v2, no dump), an answer parsed as the
 * kernel writes it (inet_diag_msg, then INET_DIAG_INFO with a tcp_info,
 * shorter or longer than ours), and a real lookup: a connected pair of
 * sockets on lo in a fresh network namespace of a forked child, which finds
 * each end's inode and tcp_info and no third socket (skipped only when
 * namespaces are refused).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "nt/lab/sockdiag.h"
#include "test_netns.h"

static void test_build_get(void **state)
{
	char buf[NT_SOCKDIAG_BUF_BYTES];
	uint8_t src[16] = { 192, 0, 2, 1 }, dst[16] = { 192, 0, 2, 2 };
	struct nlmsghdr *nlh = nt_sockdiag_build_get(buf, 7, AF_INET, src, 40000, dst, 5001);
	const struct inet_diag_req_v2 *req = mnl_nlmsg_get_payload(nlh);

	(void)state;
	assert_int_equal(nlh->nlmsg_type, SOCK_DIAG_BY_FAMILY);
	/* One socket, found by its addresses: a request, never a dump. */
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(nlh->nlmsg_seq, 7);
	assert_int_equal(nlh->nlmsg_len, mnl_nlmsg_size(sizeof(*req)));
	assert_int_equal(req->sdiag_family, AF_INET);
	assert_int_equal(req->sdiag_protocol, IPPROTO_TCP);
	assert_int_equal(req->idiag_ext, 1u << (INET_DIAG_INFO - 1));
	assert_int_equal(ntohs(req->id.idiag_sport), 40000);
	assert_int_equal(ntohs(req->id.idiag_dport), 5001);
	assert_memory_equal(req->id.idiag_src, src, 4);
	assert_memory_equal(req->id.idiag_dst, dst, 4);
	assert_int_equal(req->id.idiag_src[1], 0);
	assert_int_equal(req->id.idiag_cookie[0], INET_DIAG_NOCOOKIE);
	assert_int_equal(req->id.idiag_cookie[1], INET_DIAG_NOCOOKIE);

	uint8_t s6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		d6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

	nlh = nt_sockdiag_build_get(buf, 8, AF_INET6, s6, 1, d6, 2);
	req = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(req->sdiag_family, AF_INET6);
	assert_memory_equal(req->id.idiag_src, s6, 16);
	assert_memory_equal(req->id.idiag_dst, d6, 16);
}

/* An answer as inet_sk_diag_fill() writes it, with @info_len bytes of tcp_info (0: none). */
static struct nlmsghdr *answer(char *buf, size_t info_len)
{
	struct nlmsghdr *nlh;
	struct inet_diag_msg *m;
	char info[sizeof(struct tcp_info) + 16];
	struct tcp_info *ti = (struct tcp_info *)info;

	memset(buf, 0, NT_SOCKDIAG_BUF_BYTES);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	m = mnl_nlmsg_put_extra_header(nlh, sizeof(*m));
	m->idiag_family = AF_INET;
	m->idiag_state = 1;
	m->idiag_inode = 57365;
	m->idiag_uid = 1000;
	m->id.idiag_sport = htons(40000);
	m->id.idiag_dport = htons(5001);
	mnl_attr_put_u8(nlh, INET_DIAG_SHUTDOWN, 0); /* an attribute the parser skips */
	if (info_len) {
		memset(info, 0, sizeof(info));
		ti->tcpi_rtt = 52;
		ti->tcpi_ato = 40000;
		ti->tcpi_unacked = 1;
		ti->tcpi_notsent_bytes = 100;
		mnl_attr_put(nlh, INET_DIAG_INFO, info_len, info);
	}
	return nlh;
}

static void test_parse(void **state)
{
	char buf[NT_SOCKDIAG_BUF_BYTES];
	struct nt_sockdiag_info in;

	(void)state;
	assert_int_equal(nt_sockdiag_parse(answer(buf, sizeof(struct tcp_info)), &in), 0);
	assert_int_equal(in.inode, 57365);
	assert_int_equal(in.uid, 1000);
	assert_int_equal(in.state, 1);
	assert_int_equal(in.sport, 40000);
	assert_int_equal(in.dport, 5001);
	assert_true(in.has_info);
	assert_int_equal(in.rtt_us, 52);
	assert_int_equal(in.ato_us, 40000);
	assert_int_equal(in.unacked, 1);
	assert_int_equal(in.notsent_bytes, 100);
	/* A newer kernel's longer tcp_info: ours is read from its start. */
	assert_int_equal(nt_sockdiag_parse(answer(buf, sizeof(struct tcp_info) + 16), &in), 0);
	assert_int_equal(in.ato_us, 40000);
	/* An older kernel's, that ends before tcpi_notsent_bytes: what it lacks reads 0. */
	assert_int_equal(
		nt_sockdiag_parse(answer(buf, offsetof(struct tcp_info, tcpi_notsent_bytes)), &in),
		0);
	assert_int_equal(in.ato_us, 40000);
	assert_int_equal(in.notsent_bytes, 0);
	/* A time-wait socket: no INET_DIAG_INFO. */
	assert_int_equal(nt_sockdiag_parse(answer(buf, 0), &in), 0);
	assert_false(in.has_info);
	/* Not an answer. */
	struct nlmsghdr *nlh = answer(buf, 0);

	nlh->nlmsg_type = NLMSG_DONE;
	assert_int_equal(nt_sockdiag_parse(nlh, &in), -EINVAL);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_len = mnl_nlmsg_size(4);
	assert_int_equal(nt_sockdiag_parse(nlh, &in), -EINVAL);
}

static int lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = -1;

	if (fd < 0)
		return -1;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret;
}

/*
 * The child's checks, in a network namespace of its own (run_in_fresh_netns()):
 * 0, or the number of the first check that failed.
 */
static int lookup_in_netns(struct nt_err *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in c = { 0 };
	socklen_t len = sizeof(a);
	uint8_t lo[16] = { 127, 0, 0, 1 };
	struct nt_sockdiag_info in;
	struct nt_sockdiag sd;
	struct stat st;
	int l, cl, sv;

	if (lo_up() < 0)
		return 10;
	l = socket(AF_INET, SOCK_STREAM, 0);
	cl = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || cl < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0 ||
	    connect(cl, (struct sockaddr *)&a, sizeof(a)) < 0)
		return 11;
	sv = accept(l, NULL, NULL);
	len = sizeof(c);
	if (sv < 0 || getsockname(cl, (struct sockaddr *)&c, &len) < 0)
		return 12;
	if (nt_sockdiag_open(&sd, err) < 0)
		return 13;
	/* The client's end: its inode is the one fstat() gives its descriptor. */
	if (nt_sockdiag_get(&sd, AF_INET, lo, ntohs(c.sin_port), lo, ntohs(a.sin_port), &in) < 0)
		return 14;
	/* The handshake timed the round trip (tcp_synack_rtt_meas()): rtt is known. */
	if (fstat(cl, &st) < 0 || in.inode != st.st_ino || !in.has_info || in.state != 1 ||
	    in.rtt_us == 0)
		return 18;
	if (nt_sockdiag_get(&sd, AF_INET, lo, ntohs(a.sin_port), lo, ntohs(c.sin_port), &in) < 0 ||
	    fstat(sv, &st) < 0 || in.inode != st.st_ino)
		return 15;
	/* No socket with these ports: ENOENT, and the socket still works after it. */
	if (nt_sockdiag_get(&sd, AF_INET, lo, 1, lo, 2, &in) != -ENOENT)
		return 16;
	/* A connection that is not there, to the listener's port: not the listener. */
	if (nt_sockdiag_get(&sd, AF_INET, lo, ntohs(a.sin_port), lo, 9, &in) != -ENOENT ||
	    in.state != 10)
		return 19;
	if (nt_sockdiag_get(&sd, AF_INET, lo, 1, lo, 2, &in) != -ENOENT || in.state != 0)
		return 20;
	if (nt_sockdiag_get(&sd, AF_INET, lo, ntohs(c.sin_port), lo, ntohs(a.sin_port), &in) < 0)
		return 17;
	nt_sockdiag_close(&sd);
	nt_sockdiag_close(&sd);
	return 0;
}

static void test_lookup(void **state)
{
	struct nt_err err = { { 0 } };
	int failed_check;

	(void)state;
	run_in_fresh_netns(lookup_in_netns, &failed_check, &err);
	assert_int_equal(failed_check, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_get),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_lookup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
