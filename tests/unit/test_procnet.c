// SPDX-License-Identifier: MIT
/*
 * test_procnet.c - the /proc/net/tcp{,6} and /proc/net/netstat parsers on
 * text recorded from Linux 6.18 (x86_64) and on every way a line can be cut.
 *
 * tests/unit/data/procnet/ was recorded under `unshare -Urn` over loopback:
 * a listener on port 5001 (0x1389), a client bound to 40000 (0x9C40), three
 * 4-byte request / 2-byte reply exchanges (so the server is in ping-pong
 * mode), then one more request left unread. Addresses are printed in host
 * byte order (x86_64: little endian), so the word checks are for that host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_data.h"

#include "nt/live/procnet.h"

/* The target's connection socket, from tcp.txt: 4 request bytes unread, rto 20, ato 4, 27 = quick 13 << 1 | pingpong. */
static const char tcp4_server[] = "   1: 0100007F:1389 0100007F:9C40 01 00000000:00000004 "
				  "00:00000000 00000000     0        0 57366 3 000000008f270de2 "
				  "20 4 27 13 -1                    \n";

/* The listener: no ato yet, quick 0, cwnd 10, ssthresh column is the backlog (0). */
static const char tcp4_listen[] = "   0: 0100007F:1389 00000000:0000 0A 00000000:00000000 "
				  "00:00000000 00000000     0        0 57364 1 00000000d5ac89c0 "
				  "100 0 0 10 0                     \n";

static char *slurp(const char *name)
{
	return nt_test_data("procnet", name);
}

static void test_tcp4_line(void **state)
{
	struct nt_procnet_tcp t;

	(void)state;
	assert_int_equal(nt_procnet_parse_tcp_line(tcp4_server, &t), 0);
	assert_false(t.v6);
	assert_int_equal(t.local_words[0], 0x0100007F);
	assert_int_equal(t.local_port, 5001);
	assert_int_equal(t.remote_words[0], 0x0100007F);
	assert_int_equal(t.remote_port, 40000);
	assert_int_equal(t.state, NT_PROCNET_ESTABLISHED);
	assert_int_equal(t.tx_queue_bytes, 0);
	assert_int_equal(t.rx_queue_bytes, 4);
	assert_int_equal(t.inode, 57366);
	assert_int_equal(t.rto_ticks, 20);
	assert_int_equal(nt_procnet_ticks_to_ms(t.rto_ticks), 200);
	assert_int_equal(t.ato_ticks, 4);
	assert_int_equal(nt_procnet_ticks_to_ms(t.ato_ticks), 40);
	assert_int_equal(t.quick, 13);
	assert_true(t.pingpong);
	assert_int_equal(t.cwnd, 13);
	assert_int_equal(t.ssthresh, -1);
}

static void test_tcp4_listener(void **state)
{
	struct nt_procnet_tcp t;

	(void)state;
	assert_int_equal(nt_procnet_parse_tcp_line(tcp4_listen, &t), 0);
	assert_int_equal(t.state, 10);
	assert_int_equal(t.remote_port, 0);
	assert_int_equal(t.quick, 0);
	assert_false(t.pingpong);
	assert_int_equal(t.ssthresh, 0);
}

static void test_title_line(void **state)
{
	struct nt_procnet_tcp t;

	(void)state;
	assert_int_equal(nt_procnet_parse_tcp_line("  sl  local_address rem_address   st tx_queue "
						   "rx_queue tr tm->when retrnsmt   uid  timeout "
						   "inode\n",
						   &t),
			 -ENOENT);
}

/* Every cut of a valid line short of its last field is rejected, never half-parsed. */
static void test_tcp4_truncated(void **state)
{
	char buf[sizeof(tcp4_server)];
	struct nt_procnet_tcp t;

	(void)state;
	/* Up to the end of "-1": after that only padding follows. */
	size_t last = (size_t)(strstr(tcp4_server, " -1") - tcp4_server) + 1;

	for (size_t n = 0; n <= last; n++) {
		memcpy(buf, tcp4_server, n);
		buf[n] = '\0';
		assert_int_not_equal(nt_procnet_parse_tcp_line(buf, &t), 0);
	}
}

static void test_tcp_malformed(void **state)
{
	struct nt_procnet_tcp t;
	static const char *const bad[] = {
		/* address of 7 hex digits */
		"   1: 100007F:1389 0100007F:9C40 01 00000000:00000004 00:00000000 00000000 0 0 1 "
		"3 "
		"0 20 4 27 13 -1\n",
		/* not hex */
		"   1: 0100007G:1389 0100007F:9C40 01 00000000:00000004 00:00000000 00000000 0 0 1 "
		"3 "
		"0 20 4 27 13 -1\n",
		/* IPv4 local, IPv6 remote */
		"   1: 0100007F:1389 00000000000000000000000001000000:9C40 01 00000000:00000004 "
		"00:00000000 00000000 0 0 1 3 0 20 4 27 13 -1\n",
		/* queue pair without colon */
		"   1: 0100007F:1389 0100007F:9C40 01 0000000000000004 00:00000000 00000000 0 0 1 "
		"3 "
		"0 20 4 27 13 -1\n",
		/* negative ato */
		"   1: 0100007F:1389 0100007F:9C40 01 00000000:00000004 00:00000000 00000000 0 0 1 "
		"3 "
		"0 20 -4 27 13 -1\n",
		/* slot without its colon */
		"   1 0100007F:1389 0100007F:9C40 01 00000000:00000004 00:00000000 00000000 0 0 1 "
		"3 "
		"0 20 4 27 13 -1\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(nt_procnet_parse_tcp_line(bad[i], &t), -EINVAL);
}

static void test_find_tcp4_file(void **state)
{
	char *text = slurp("tcp.txt");
	struct nt_procnet_tcp t;

	(void)state;
	/* The server's side: local 5001, remote 40000; the client's line comes after it. */
	assert_int_equal(nt_procnet_find_tcp(text, 5001, 40000, NT_PROCNET_ESTABLISHED, &t), 0);
	assert_int_equal(t.rx_queue_bytes, 4);
	assert_true(t.pingpong);
	assert_int_equal(nt_procnet_ticks_to_ms(t.ato_ticks), 40);
	/* The client: 4 bytes unacknowledged, the delayed-ACK timer running on the other side. */
	assert_int_equal(nt_procnet_find_tcp(text, 40000, 5001, NT_PROCNET_ESTABLISHED, &t), 0);
	assert_int_equal(t.tx_queue_bytes, 4);
	/* The listener only matches with state 0 or 10. */
	assert_int_equal(nt_procnet_find_tcp(text, 5001, 0, NT_PROCNET_ESTABLISHED, &t), -ENOENT);
	assert_int_equal(nt_procnet_find_tcp(text, 5001, 0, 0, &t), 0);
	assert_int_equal(t.state, 10);
	assert_int_equal(nt_procnet_find_tcp(text, 1, 2, 0, &t), -ENOENT);
	assert_int_equal(nt_procnet_find_tcp("", 5001, 40000, 0, &t), -ENOENT);
	free(text);
}

/* sock_diag's inode names one line: the client's (57365), not the server's (57366). */
static void test_find_inode(void **state)
{
	char *text = slurp("tcp.txt");
	struct nt_procnet_tcp t;

	(void)state;
	assert_int_equal(nt_procnet_find_inode(text, 57365, &t), 0);
	assert_int_equal(t.local_port, 40000);
	assert_int_equal(t.tx_queue_bytes, 4);
	assert_int_equal(nt_procnet_find_inode(text, 57366, &t), 0);
	assert_int_equal(t.local_port, 5001);
	assert_true(t.pingpong);
	assert_int_equal(nt_procnet_find_inode(text, 1, &t), -ENOENT);
	assert_int_equal(nt_procnet_find_inode("", 57365, &t), -ENOENT);
	free(text);
}

static void test_find_tcp6_file(void **state)
{
	char *text = slurp("tcp6.txt");
	struct nt_procnet_tcp t;
	struct in6_addr lo = IN6ADDR_LOOPBACK_INIT;

	(void)state;
	assert_int_equal(nt_procnet_find_tcp(text, 5001, 40000, NT_PROCNET_ESTABLISHED, &t), 0);
	assert_true(t.v6);
	/* The four words are the kernel's s6_addr32[], so their bytes are the address. */
	assert_memory_equal(t.local_words, &lo, sizeof(lo));
	assert_memory_equal(t.remote_words, &lo, sizeof(lo));
	assert_int_equal(t.rx_queue_bytes, 4);
	assert_true(t.pingpong);
	assert_int_equal(t.quick, 13);
	assert_int_equal(nt_procnet_ticks_to_ms(t.ato_ticks), 40);
	free(text);
}

static void test_netstat_file(void **state)
{
	char *text = slurp("netstat.txt");
	uint64_t v = 99;

	(void)state;
	assert_int_equal(nt_procnet_netstat_value(text, "TcpExt", "DelayedACKs", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(nt_procnet_netstat_value(text, "TcpExt", "DelayedACKLocked", &v), 0);
	assert_int_equal(nt_procnet_netstat_value(text, "TcpExt", "TCPPureAcks", &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(nt_procnet_netstat_value(text, "TcpExt", "TCPAutoCorking", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(nt_procnet_netstat_value(text, "TcpExt", "TCPOrigDataSent", &v), 0);
	assert_int_equal(v, 16);
	/* Another group, and names that are not there. */
	assert_int_equal(nt_procnet_netstat_value(text, "IpExt", "InOctets", &v), 0);
	assert_int_equal(v, 766);
	assert_int_equal(nt_procnet_netstat_value(text, "TcpExt", "NoSuchCounter", &v), -ENOENT);
	assert_int_equal(nt_procnet_netstat_value(text, "Nope", "DelayedACKs", &v), -ENOENT);
	/* A prefix is matched whole: "Tcp" is not "TcpExt". */
	assert_int_equal(nt_procnet_netstat_value(text, "Tcp", "DelayedACKs", &v), -ENOENT);
	free(text);
}

static void test_netstat_malformed(void **state)
{
	uint64_t v;

	(void)state;
	/* Names without their value line. */
	assert_int_equal(nt_procnet_netstat_value("TcpExt: A B\n", "TcpExt", "B", &v), -EINVAL);
	/* Fewer values than names. */
	assert_int_equal(nt_procnet_netstat_value("TcpExt: A B\nTcpExt: 1\n", "TcpExt", "B", &v),
			 -EINVAL);
	/* Not a number. */
	assert_int_equal(nt_procnet_netstat_value("TcpExt: A B\nTcpExt: 1 x\n", "TcpExt", "B", &v),
			 -EINVAL);
	/* No trailing newline is fine. */
	assert_int_equal(nt_procnet_netstat_value("TcpExt: A B\nTcpExt: 1 22", "TcpExt", "B", &v),
			 0);
	assert_int_equal(v, 22);
}

/*
 * A seq_file much longer than the first buffer, read whole: /proc/kallsyms
 * (megabytes, and the same text on every read). Its pages of about 4 KiB
 * once left 23 bytes of a 16 KiB buffer, whose short answer was taken for
 * the end; /proc/net/tcp was cut after about 110 sockets the same way.
 */
static void test_read_whole_seq_file(void **state)
{
	char *buf = NULL, *plain = malloc(1);
	size_t bytes = 0, got = 0, cap = 1;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(plain);
	for (;;) {
		if (got + 65536 > cap) {
			char *grown = realloc(plain, (got + 65536) * 2);

			assert_non_null(grown);
			plain = grown;
			cap = (got + 65536) * 2;
		}
		n = read(fd, plain + got, 65536);
		assert_true(n >= 0);
		if (n == 0)
			break;
		got += (size_t)n;
	}
	assert_true(got > (size_t)64 * 1024);
	assert_true(nt_procnet_read(fd, &buf, &bytes, (size_t)64 << 20));
	assert_int_equal(strlen(buf), got);
	assert_memory_equal(buf, plain, got);
	/* Cut at the limit, NUL-terminated within it. */
	assert_true(nt_procnet_read(fd, &buf, &bytes, bytes));
	assert_true(strlen(buf) < bytes);
	close(fd);
	free(buf);
	free(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4_line),	    cmocka_unit_test(test_tcp4_listener),
		cmocka_unit_test(test_title_line),	    cmocka_unit_test(test_tcp4_truncated),
		cmocka_unit_test(test_tcp_malformed),	    cmocka_unit_test(test_find_tcp4_file),
		cmocka_unit_test(test_find_tcp6_file),	    cmocka_unit_test(test_netstat_file),
		cmocka_unit_test(test_netstat_malformed),   cmocka_unit_test(test_find_inode),
		cmocka_unit_test(test_read_whole_seq_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
