// SPDX-License-Identifier: MIT
/*
 * test_timeline.c - the timeline container (time order, stable for equal
 * timestamps, growth, fini) and the public vocabularies: role, call and
 * direction names and the tcpdump-style flag string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/event.h"
#include "nt/model/tcp.h"

/* An event identified by @tag in its round field. */
static struct nt_event ev_at(int64_t t_ns, int tag)
{
	struct nt_event e;

	memset(&e, 0, sizeof(e));
	e.t_ns = t_ns;
	e.kind = NT_EVENT_SEGMENT;
	e.round = tag;
	return e;
}

static void append(struct nt_timeline *tl, int64_t t_ns, int tag)
{
	struct nt_event e = ev_at(t_ns, tag);

	assert_int_equal(nt_timeline_append(tl, &e), 0);
}

/* what this checks: an event older than the last is moved back into time order */
static void test_out_of_order(void **state)
{
	struct nt_timeline tl = { 0 };
	static const int want[] = { 1, 5, 2, 4, 3 };

	(void)state;
	append(&tl, 100, 1);
	append(&tl, 300, 2);
	append(&tl, 500, 3);
	append(&tl, 400, 4); /* one slot back */
	append(&tl, 200, 5); /* three slots back */
	assert_int_equal(tl.n, 5);
	for (size_t i = 0; i < tl.n; i++)
		assert_int_equal(tl.ev[i].round, want[i]);
	assert_int_equal(tl.ev[0].t_ns, 100);
	assert_int_equal(tl.ev[1].t_ns, 200);
	assert_int_equal(tl.ev[4].t_ns, 500);
	nt_timeline_fini(&tl);
}

/* what this checks: an event older than every other goes first */
static void test_oldest_goes_first(void **state)
{
	struct nt_timeline tl = { 0 };

	(void)state;
	append(&tl, 100, 1);
	append(&tl, 200, 2);
	append(&tl, 50, 3);
	assert_int_equal(tl.ev[0].round, 3);
	assert_int_equal(tl.ev[1].round, 1);
	assert_int_equal(tl.ev[2].round, 2);
	nt_timeline_fini(&tl);
}

/* what this checks: equal timestamps keep arrival order, also for a late one moved back */
static void test_equal_timestamps_stable(void **state)
{
	struct nt_timeline tl = { 0 };
	static const int want[] = { 1, 2, 3, 5, 4 };

	(void)state;
	append(&tl, 100, 1);
	append(&tl, 100, 2);
	append(&tl, 100, 3);
	append(&tl, 200, 4);
	append(&tl, 100, 5); /* late, equal to 1..3: after them, before 4 */
	assert_int_equal(tl.n, 5);
	for (size_t i = 0; i < tl.n; i++)
		assert_int_equal(tl.ev[i].round, want[i]);
	nt_timeline_fini(&tl);
}

/* what this checks: growth past the first 256 slots keeps every event, in order */
static void test_growth(void **state)
{
	struct nt_timeline tl = { 0 };
	const int n = 1000;

	(void)state;
	/* pairs arrive swapped: (1, 0), (3, 2), ... so half of them move back one slot */
	for (int i = 0; i < n; i += 2) {
		append(&tl, (int64_t)(i + 1) * 10, i + 1);
		append(&tl, (int64_t)i * 10, i);
	}
	assert_int_equal(tl.n, n);
	assert_int_equal(tl.cap, 1024);
	for (int i = 0; i < n; i++) {
		assert_int_equal(tl.ev[i].t_ns, (int64_t)i * 10);
		assert_int_equal(tl.ev[i].round, i);
	}
	nt_timeline_fini(&tl);
}

/* what this checks: the first allocation is 256 slots, the 257th and 513th events double it */
static void test_growth_steps(void **state)
{
	struct nt_timeline tl = { 0 };

	(void)state;
	append(&tl, 0, 0);
	assert_int_equal(tl.cap, 256);
	for (int i = 1; i < 256; i++)
		append(&tl, i, i);
	assert_int_equal(tl.cap, 256);
	append(&tl, 256, 256);
	assert_int_equal(tl.cap, 512);
	assert_int_equal(tl.n, 257);
	assert_int_equal(tl.ev[256].round, 256);
	for (int i = 257; i < 512; i++)
		append(&tl, i, i);
	assert_int_equal(tl.cap, 512);
	append(&tl, 512, 512);
	assert_int_equal(tl.cap, 1024);
	assert_int_equal(tl.n, 513);
	for (int i = 0; i < 513; i++)
		assert_int_equal(tl.ev[i].round, i);
	nt_timeline_fini(&tl);
}

/* what this checks: fini on a zeroed timeline is safe, and twice in a row too */
static void test_fini_zeroed(void **state)
{
	struct nt_timeline tl = { 0 };

	(void)state;
	nt_timeline_fini(&tl);
	assert_null(tl.ev);
	assert_int_equal(tl.n, 0);
	assert_int_equal(tl.cap, 0);
	append(&tl, 1, 1);
	nt_timeline_fini(&tl);
	assert_null(tl.ev);
	assert_int_equal(tl.n, 0);
	assert_int_equal(tl.cap, 0);
	nt_timeline_fini(&tl);
}

/* what this checks: the public role names */
static void test_role_names(void **state)
{
	(void)state;
	assert_string_equal(nt_role_name(NT_ROLE_UNKNOWN), "unknown");
	assert_string_equal(nt_role_name(NT_ROLE_SYN), "syn");
	assert_string_equal(nt_role_name(NT_ROLE_SYN_ACK), "syn-ack");
	assert_string_equal(nt_role_name(NT_ROLE_HANDSHAKE_ACK), "handshake-ack");
	assert_string_equal(nt_role_name(NT_ROLE_HEADER), "header");
	assert_string_equal(nt_role_name(NT_ROLE_BODY), "body");
	assert_string_equal(nt_role_name(NT_ROLE_REQUEST), "request");
	assert_string_equal(nt_role_name(NT_ROLE_REPLY), "reply");
	assert_string_equal(nt_role_name(NT_ROLE_PURE_ACK), "pure-ack");
	assert_string_equal(nt_role_name(NT_ROLE_DATA), "data");
	assert_string_equal(nt_role_name(NT_ROLE_FIN), "fin");
	assert_string_equal(nt_role_name(NT_ROLE_RST), "rst");
	assert_string_equal(nt_role_name((enum nt_role)99), "unknown");
}

/* what this checks: the public call and direction names */
static void test_call_and_dir_names(void **state)
{
	(void)state;
	assert_string_equal(nt_call_name(NT_CALL_WRITE_HEADER), "write-header");
	assert_string_equal(nt_call_name(NT_CALL_WRITE_BODY), "write-body");
	assert_string_equal(nt_call_name(NT_CALL_WRITE_REQUEST), "write-request");
	assert_string_equal(nt_call_name(NT_CALL_READ_REPLY), "read-reply");
	assert_string_equal(nt_call_name(NT_CALL_READ_REQUEST), "read-request");
	assert_string_equal(nt_call_name(NT_CALL_WRITE_REPLY), "write-reply");
	assert_string_equal(nt_call_name((enum nt_call)99), "unknown");
	assert_string_equal(nt_dir_name(NT_DIR_C2T), "c2t");
	assert_string_equal(nt_dir_name(NT_DIR_T2C), "t2c");
}

/* what this checks: tcpdump's flag letters and order, "." for ACK, "-" for none */
static void test_flags_str(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(nt_tcp_flags_str(NT_TCP_SYN, buf), "S");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_SYN | NT_TCP_ACK, buf), "S.");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_PSH | NT_TCP_ACK, buf), "P.");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_FIN | NT_TCP_ACK, buf), "F.");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_FIN | NT_TCP_PSH | NT_TCP_ACK, buf), "FP.");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_RST, buf), "R");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_RST | NT_TCP_ACK, buf), "R.");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_ACK, buf), ".");
	assert_string_equal(nt_tcp_flags_str(0, buf), "-");
	assert_string_equal(nt_tcp_flags_str(NT_TCP_SYN | NT_TCP_ECE | NT_TCP_CWR, buf), "SEW");
	assert_string_equal(nt_tcp_flags_str(0xff, buf), "SFPRUEW.");
	assert_ptr_equal(nt_tcp_flags_str(0, buf), buf);
}

/* what this checks: sequence comparison modulo 2^32 across the wrap */
static void test_seq_before_after(void **state)
{
	(void)state;
	assert_true(nt_seq_before(1, 2));
	assert_false(nt_seq_before(2, 2));
	assert_true(nt_seq_before(0xfffffff0u, 0x10));
	assert_true(nt_seq_after(0x10, 0xfffffff0u));
	assert_false(nt_seq_after(0xfffffff0u, 0x10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_oldest_goes_first),
		cmocka_unit_test(test_equal_timestamps_stable),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_growth_steps),
		cmocka_unit_test(test_fini_zeroed),
		cmocka_unit_test(test_role_names),
		cmocka_unit_test(test_call_and_dir_names),
		cmocka_unit_test(test_flags_str),
		cmocka_unit_test(test_seq_before_after),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
