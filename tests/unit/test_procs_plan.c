// SPDX-License-Identifier: MIT
/*
 * test_procs_plan.c - what a run's commands get: the run's /etc/hosts and
 * nsswitch.conf, their environments, and which listening socket of the
 * target starts the client.
 *
 * tests/unit/data/procnet/listeners_tcp{,6}.txt were recorded on Linux 6.18
 * (x86_64) under `unshare -Urn`, with 192.0.2.2/32 and 2001:db8::2/128 on lo:
 * listeners on 0.0.0.0:7000, 127.0.0.1:7001, 192.0.2.2:7002, [::]:7003
 * (dual stack), [::1]:7004, [2001:db8::2]:7005, [::ffff:192.0.2.2]:7006, and
 * one established connection to 127.0.0.1:7000.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "test_data.h"

#include "nt/live/procs_plan.h"

static char *slurp(const char *name)
{
	return nt_test_data("procnet", name);
}

static void test_hosts_ours_first(void **state)
{
	static const char host[] = "127.0.0.1\tlocalhost\n"
				   "10.1.2.3 build target.example.com target # ours\n"
				   "10.9.9.9 Client\n"
				   "10.4.4.4 notclient # target in a comment\n"
				   "no-newline-at-end 1.2.3.4";
	char *text = nt_procs_hosts_text("192.0.2.1", "192.0.2.2", host);
	(void)state;

	assert_non_null(text);
	assert_non_null(strstr(text, "192.0.2.1\tclient\n192.0.2.2\ttarget\n"));
	assert_true(strstr(text, "\ttarget\n") < strstr(text, "10.1.2.3"));
	/* A host line naming either, in any case, is kept but commented out. */
	assert_non_null(strstr(text, "# hidden by nagle-trace: 10.1.2.3 build target.example.com"));
	assert_non_null(strstr(text, "# hidden by nagle-trace: 10.9.9.9 Client\n"));
	/* A name that only contains ours, and ours in a comment, are left alone. */
	assert_non_null(strstr(text, "\n10.4.4.4 notclient # target in a comment\n"));
	assert_non_null(strstr(text, "\nno-newline-at-end 1.2.3.4\n"));
	free(text);
}

static void test_hosts_without_host_file(void **state)
{
	char *text = nt_procs_hosts_text("2001:db8::1", "2001:db8::2", NULL);
	(void)state;

	assert_non_null(text);
	assert_non_null(strstr(text, "2001:db8::1\tclient\n2001:db8::2\ttarget\n"));
	assert_null(strstr(text, "follows"));
	free(text);
}

static void test_nsswitch_hosts_line(void **state)
{
	static const char host[] =
		"passwd: files systemd\n"
		"hosts:          files mdns4_minimal [NOTFOUND=return] dns myhostname\n"
		"networks: files\n";
	char *text = nt_procs_nsswitch_text(host);
	(void)state;

	assert_non_null(text);
	assert_non_null(strstr(text, "passwd: files systemd\n"));
	assert_non_null(strstr(text, "\nhosts: files\n# was: hosts:          files mdns4"));
	assert_non_null(strstr(text, "networks: files\n"));
	free(text);

	text = nt_procs_nsswitch_text("passwd: files\n");
	assert_non_null(text);
	assert_non_null(strstr(text, "\nhosts: files\n"));
	free(text);
}

static void test_env_replaces_and_adds(void **state)
{
	char *base[] = { "PATH=/bin", "NT_TARGET_ADDR=old", "LD_PRELOAD=/x.so", "NT_TARGET=keep",
			 NULL };
	char *set[] = { "NT_TARGET_ADDR=192.0.2.2", "NT_CLIENT_ADDR=192.0.2.1",
			"LD_PRELOAD=/ours.so /x.so" };
	char **env = nt_procs_env_build(base, set, 3);
	size_t n = 0;
	(void)state;

	assert_non_null(env);
	while (env[n])
		n++;
	assert_int_equal(n, 5);
	assert_string_equal(env[0], "PATH=/bin");
	/* Only the exact name is replaced: NT_TARGET is not NT_TARGET_ADDR. */
	assert_string_equal(env[1], "NT_TARGET=keep");
	assert_string_equal(env[2], "NT_TARGET_ADDR=192.0.2.2");
	assert_string_equal(env[4], "LD_PRELOAD=/ours.so /x.so");
	free(env);
}

static void test_preload_value(void **state)
{
	char *v = nt_procs_preload_value("/lib/nt_nodelay.so", "libjemalloc.so.2");
	(void)state;

	assert_string_equal(v, "LD_PRELOAD=/lib/nt_nodelay.so libjemalloc.so.2");
	free(v);
	v = nt_procs_preload_value("/lib/nt_nodelay.so", "");
	assert_string_equal(v, "LD_PRELOAD=/lib/nt_nodelay.so");
	free(v);
	v = nt_procs_preload_value("/lib/nt_nodelay.so", NULL);
	assert_string_equal(v, "LD_PRELOAD=/lib/nt_nodelay.so");
	free(v);
}

static struct nt_procs_listen_query query(int family, const char *target, uint16_t port)
{
	struct nt_procs_listen_query q = { .port = port, .family = family };

	assert_int_equal(inet_pton(family, target, &q.target_addr), 1);
	return q;
}

/* Which listener of the recorded files starts the client, for @port in a lab of @family. */
static int find(const char *file, int family, uint16_t port, struct nt_procs_listener *found,
		struct nt_procs_listener *unreachable)
{
	char *text = slurp(file);
	struct nt_procs_listen_query q =
		query(family, family == AF_INET ? "192.0.2.2" : "2001:db8::2", port);
	int ret;

	memset(found, 0, sizeof(*found));
	memset(unreachable, 0, sizeof(*unreachable));
	ret = nt_procs_find_listener(text, &q, found, unreachable);
	free(text);
	return ret;
}

static void test_listener_ipv4_lab(void **state)
{
	struct nt_procs_listener f, u;
	(void)state;

	/* The first listener of the file: the wildcard. */
	assert_int_equal(find("listeners_tcp.txt", AF_INET, 0, &f, &u), 1);
	assert_string_equal(f.addr_str, "0.0.0.0");
	assert_int_equal(f.port, 7000);
	assert_int_equal(find("listeners_tcp.txt", AF_INET, 7002, &f, &u), 1);
	assert_string_equal(f.addr_str, "192.0.2.2");
	/* Loopback only: not reachable from the client namespace; remembered for the message. */
	assert_int_equal(find("listeners_tcp.txt", AF_INET, 7001, &f, &u), 0);
	assert_false(f.seen);
	assert_true(u.seen);
	assert_string_equal(u.addr_str, "127.0.0.1");
	assert_int_equal(u.port, 7001);
	/* The established connection on 7000's port pair is not a listener. */
	assert_int_equal(find("listeners_tcp.txt", AF_INET, 0xEADC, &f, &u), 0);
	assert_false(u.seen);
}

static void test_listener_ipv6_file(void **state)
{
	struct nt_procs_listener f, u;
	(void)state;

	/* An IPv6 wildcard takes IPv4 too (unless V6ONLY, which /proc does not show). */
	assert_int_equal(find("listeners_tcp6.txt", AF_INET, 7003, &f, &u), 1);
	assert_int_equal(f.family, AF_INET6);
	assert_string_equal(f.addr_str, "::");
	/* A v4-mapped bind of the target's address takes the IPv4 lab's connections. */
	assert_int_equal(find("listeners_tcp6.txt", AF_INET, 7006, &f, &u), 1);
	assert_string_equal(f.addr_str, "::ffff:192.0.2.2");
	assert_int_equal(find("listeners_tcp6.txt", AF_INET, 7005, &f, &u), 0);
	assert_string_equal(u.addr_str, "2001:db8::2");
	assert_int_equal(find("listeners_tcp6.txt", AF_INET6, 7005, &f, &u), 1);
	assert_int_equal(find("listeners_tcp6.txt", AF_INET6, 7004, &f, &u), 0);
	assert_string_equal(u.addr_str, "::1");
	/* An IPv6 lab cannot reach an IPv4 listener, not even the wildcard. */
	assert_int_equal(find("listeners_tcp.txt", AF_INET6, 7000, &f, &u), 0);
	assert_string_equal(u.addr_str, "0.0.0.0");
}

static void test_listener_known_skipped(void **state)
{
	char *text = slurp("listeners_tcp.txt");
	struct nt_procs_listen_query q = query(AF_INET, "192.0.2.2", 0);
	struct nt_procs_listener f = { 0 }, u = { 0 };
	/* The inode of 0.0.0.0:7000 in the recording: it existed before the target. */
	const unsigned long known[] = { 136404 };
	(void)state;

	q.known = known;
	q.n_known = 1;
	assert_int_equal(nt_procs_find_listener(text, &q, &f, &u), 1);
	assert_int_equal(f.port, 7002);
	/* 127.0.0.1:7001 came first and was noted as unreachable on the way. */
	assert_int_equal(u.port, 7001);
	free(text);
}

static void test_describe_status(void **state)
{
	char buf[96];
	(void)state;

	nt_procs_describe_status(3 << 8, buf, sizeof(buf));
	assert_string_equal(buf, "exit status 3");
	nt_procs_describe_status(SIGTERM, buf, sizeof(buf));
	assert_string_equal(buf, "killed by signal 15 (SIGTERM)");
	nt_procs_describe_status(SIGSEGV | 0x80, buf, sizeof(buf));
	assert_string_equal(buf, "killed by signal 11 (SIGSEGV), core dumped");
	assert_string_equal(nt_procs_end_name(NT_PROCS_END_TARGET_EXITED),
			    "target exited before it listened");
	assert_string_equal(nt_procs_end_name((enum nt_procs_end)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_ours_first),
		cmocka_unit_test(test_hosts_without_host_file),
		cmocka_unit_test(test_nsswitch_hosts_line),
		cmocka_unit_test(test_env_replaces_and_adds),
		cmocka_unit_test(test_preload_value),
		cmocka_unit_test(test_listener_ipv4_lab),
		cmocka_unit_test(test_listener_ipv6_file),
		cmocka_unit_test(test_listener_known_skipped),
		cmocka_unit_test(test_describe_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
