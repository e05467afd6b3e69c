// SPDX-License-Identifier: MIT
/*
 * test_lab.c - the lab's sides, and a delayed lab built and torn down in a
 * forked child's fresh user and network namespaces (skipped where namespaces
 * are not allowed; tests/integration/test_wire.sh sends traffic through it).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "nt/lab/lab.h"

#define SKIP_STATUS 77

static void test_side_names(void **state)
{
	enum nt_lab_side side = NT_LAB_CLIENT;
	(void)state;

	assert_int_equal(nt_lab_side_parse("target", &side), 0);
	assert_int_equal(side, NT_LAB_TARGET);
	assert_string_equal(nt_lab_side_name(side), "target");
	assert_int_equal(nt_lab_side_parse("client", &side), 0);
	assert_int_equal(side, NT_LAB_CLIENT);
	assert_string_equal(nt_lab_side_name(side), "client");
	assert_int_equal(nt_lab_side_parse("middle", &side), -EINVAL);
	assert_int_equal(nt_lab_side_parse("", &side), -EINVAL);
	assert_int_equal(nt_lab_side_parse("Client", &side), -EINVAL);
	assert_int_equal(side, NT_LAB_CLIENT);
}

static void test_negative_rtt(void **state)
{
	const struct nt_lab_config cfg = { .autocork = -1, .rtt_ns = -1 };
	struct nt_err err = { { 0 } };
	struct nt_lab lab;
	(void)state;

	/* Refused before any namespace is made, so no privileges are needed. */
	assert_int_equal(nt_lab_up(&lab, &cfg, &err), -EINVAL);
	assert_string_equal(err.msg, "round-trip time -1 ns is negative: Invalid argument");
	assert_int_equal(lab.middle_ns, -1);
	nt_lab_down(&lab);
}

/* Each check a distinct exit status, so a failure says which. */
static int delayed_lab_child(void)
{
	/* An odd RTT: the extra nanosecond goes to the client -> target half. */
	const struct nt_lab_config cfg = { .ipv6 = true, .autocork = -1, .rtt_ns = 3000001 };
	struct nt_err err = { { 0 } };
	struct nt_wire_stats st;
	struct nt_lab lab;

	/* Root (or `unshare -Urn`) can make a network namespace alone; otherwise a user one brings the capability. */
	if (unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return SKIP_STATUS;
	if (nt_lab_up(&lab, &cfg, &err) < 0) {
		fprintf(stderr, "nt_lab_up: %s\n", err.msg);
		return 1;
	}
	if (lab.middle_ns < 0 || lab.client_ns < 0 || lab.target_ns < 0)
		return 2;
	if (strcmp(lab.delay_line, "wire") != 0 || !lab.wire.running)
		return 3;
	if (lab.wire.delay_ns[NT_WIRE_TO_TARGET] != 1500001 ||
	    lab.wire.delay_ns[NT_WIRE_TO_CLIENT] != 1500000)
		return 4;
	if (strcmp(nt_lab_ifname(&lab, NT_LAB_TARGET), NT_LAB_TARGET_IF) != 0 ||
	    strcmp(nt_lab_ifname(&lab, NT_LAB_CLIENT), NT_LAB_CLIENT_IF) != 0)
		return 5;
	if (nt_lab_enter(&lab, NT_LAB_TARGET, &err) < 0 ||
	    nt_lab_enter(&lab, NT_LAB_CLIENT, &err) < 0)
		return 6;
	if (nt_wire_stats(&lab.wire, &st, &err) < 0 || nt_wire_dropped(&st) != 0)
		return 7;
	nt_lab_down(&lab);
	if (lab.middle_ns != -1 || lab.wire.is_open || lab.wire.running)
		return 8;
	/* Idempotent. */
	nt_lab_down(&lab);
	return 0;
}

static void test_delayed_lab_up_down(void **state)
{
	int status;
	pid_t pid;
	(void)state;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(delayed_lab_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == SKIP_STATUS)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_side_names),
		cmocka_unit_test(test_negative_rtt),
		cmocka_unit_test(test_delayed_lab_up_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
