// SPDX-License-Identifier: MIT
/*
 * test_verdict.c - nt_verdict_rule() on hand-made marks, one test per branch
 * and per boundary, and the public verdict names.
 *
 * Marks are timeline indexes and nanosecond timestamps; the threshold is the
 * default 10 ms unless a test says otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/verdict.h"
#include "nt/unknown.h"

#define MS	  1000000LL
#define THRESHOLD NT_VERDICT_THRESHOLD_NS_DEFAULT

/* H at index 1 (t = 1 ms), A at index 2, B at index 3; A a pure ACK; write(body) unknown. */
static struct nt_verdict_marks ordered(int64_t a_ns, int64_t b_ns)
{
	return (struct nt_verdict_marks){
		.h = 1,
		.a = 2,
		.b = 3,
		.h_ns = 1 * MS,
		.a_ns = a_ns,
		.b_ns = b_ns,
		.a_is_pure_ack = true,
		.write_body_ns = NT_UNKNOWN,
	};
}

/* what this checks: no H is incomplete, whatever else was seen */
static void test_incomplete_without_h(void **state)
{
	struct nt_verdict_marks m = ordered(50 * MS, 51 * MS);

	(void)state;
	m.h = -1;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_INCOMPLETE);
}

/* what this checks: no B is incomplete, even with a slow pure ACK seen */
static void test_incomplete_without_b(void **state)
{
	struct nt_verdict_marks m = ordered(50 * MS, 51 * MS);

	(void)state;
	m.b = -1;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_INCOMPLETE);
}

/* what this checks: nothing seen at all is incomplete */
static void test_incomplete_nothing(void **state)
{
	struct nt_verdict_marks m = { .h = -1, .a = -1, .b = -1 };

	(void)state;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_INCOMPLETE);
}

/* what this checks: H and B in one segment is coalesced, even with an A after it */
static void test_coalesced(void **state)
{
	struct nt_verdict_marks m = ordered(50 * MS, 1 * MS);

	(void)state;
	m.b = m.h;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_COALESCED);
	m.a = -1;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_COALESCED);
}

/* what this checks: no A at all (the body left unacknowledged) is unheld */
static void test_unheld_no_ack(void **state)
{
	struct nt_verdict_marks m = ordered(0, 2 * MS);

	(void)state;
	m.a = -1;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_UNHELD);
}

/* what this checks: B before A by timeline index is unheld, even with equal timestamps */
static void test_unheld_b_before_a_same_time(void **state)
{
	struct nt_verdict_marks m = ordered(5 * MS, 5 * MS);

	(void)state;
	m.a = 3;
	m.b = 2;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_UNHELD);
	/* the same timestamps with A first by index: held */
	m.a = 2;
	m.b = 3;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_HELD);
}

/* what this checks: B before A is unheld even when the ACK came late (>= threshold) */
static void test_unheld_b_before_slow_a(void **state)
{
	struct nt_verdict_marks m = ordered(45 * MS, 2 * MS);

	(void)state;
	m.a = 3;
	m.b = 2;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_UNHELD);
}

/* what this checks: a slow A that write(body) returned after is the application's delay */
static void test_unheld_application_delay(void **state)
{
	struct nt_verdict_marks m = ordered(1 * MS + 40 * MS, 1 * MS + 50 * MS);

	(void)state;
	m.write_body_ns = m.a_ns + 1;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_UNHELD);
	/* written exactly when A arrived: still waiting for it, a stall */
	m.write_body_ns = m.a_ns;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_STALLED);
	/* written before A: a stall */
	m.write_body_ns = m.h_ns;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_STALLED);
}

/* what this checks: an A carrying data before B is incomplete, fast or slow */
static void test_incomplete_a_carries_data(void **state)
{
	struct nt_verdict_marks m = ordered(2 * MS, 3 * MS);

	(void)state;
	m.a_is_pure_ack = false;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_INCOMPLETE);
	m.a_ns = 50 * MS;
	m.b_ns = 51 * MS;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_INCOMPLETE);
}

/* what this checks: H -> pure A -> B with a gap below the threshold is held */
static void test_held(void **state)
{
	struct nt_verdict_marks m = ordered(1 * MS + 40000, 1 * MS + 60000);

	(void)state;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_HELD);
}

/* what this checks: a body written after a prompt ACK stays held (not unheld) */
static void test_held_body_written_after_ack(void **state)
{
	struct nt_verdict_marks m = ordered(1 * MS + 40000, 1 * MS + 90000);

	(void)state;
	m.write_body_ns = 1 * MS + 80000;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_HELD);
}

/* what this checks: a 43.9 ms gap with the body waiting is stalled */
static void test_stalled(void **state)
{
	struct nt_verdict_marks m = ordered(1 * MS + 43900000, 1 * MS + 43950000);

	(void)state;
	m.write_body_ns = 1 * MS + 10000;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_STALLED);
}

/* what this checks: gap == threshold is stalled, threshold - 1 ns is held */
static void test_threshold_boundary(void **state)
{
	struct nt_verdict_marks m = ordered(1 * MS + THRESHOLD, 1 * MS + THRESHOLD + 5);

	(void)state;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_STALLED);
	m.a_ns = 1 * MS + THRESHOLD - 1;
	assert_int_equal(nt_verdict_rule(&m, THRESHOLD), NT_VERDICT_HELD);
	/* another threshold moves the boundary with it */
	m.a_ns = 1 * MS + 3 * MS;
	assert_int_equal(nt_verdict_rule(&m, 3 * MS), NT_VERDICT_STALLED);
	assert_int_equal(nt_verdict_rule(&m, 3 * MS + 1), NT_VERDICT_HELD);
}

/*
 * what this checks: the delay line's lateness is the path's part of H -> A,
 * not the target's: round 1 of a --rtt 10 run under load, a quick ACK 24 ms
 * after the header (10 ms RTT, the header forwarded 14 ms late), against
 * the threshold plus the RTT (20 ms), is held when the delay line was
 * measured up to 16.4 ms late, stalled when it was on time; a delayed ACK
 * (61 ms) on the same late path is still a stall
 */
static void test_late_path_is_not_a_stall(void **state)
{
	const int64_t thr = THRESHOLD + 10 * MS;
	struct nt_verdict_marks m = ordered(1 * MS + 24 * MS, 1 * MS + 24050000);

	(void)state;
	m.write_body_ns = 1 * MS + 10000;
	assert_int_equal(nt_verdict_rule(&m, thr), NT_VERDICT_STALLED);
	m.path_late_ns = 16384000;
	assert_int_equal(nt_verdict_rule(&m, thr), NT_VERDICT_HELD);
	/* the boundary moves by the lateness, to the nanosecond */
	m.a_ns = m.h_ns + thr + m.path_late_ns;
	assert_int_equal(nt_verdict_rule(&m, thr), NT_VERDICT_STALLED);
	m.a_ns--;
	assert_int_equal(nt_verdict_rule(&m, thr), NT_VERDICT_HELD);
	m.a_ns = 1 * MS + 61 * MS;
	m.b_ns = m.a_ns + 50000;
	m.path_late_ns = 8192000;
	assert_int_equal(nt_verdict_rule(&m, thr), NT_VERDICT_STALLED);
}

/* what this checks: every verdict's public name */
static void test_names_round_trip(void **state)
{
	static const char *const names[NT_VERDICT_COUNT] = {
		[NT_VERDICT_INCOMPLETE] = "incomplete", [NT_VERDICT_COALESCED] = "coalesced",
		[NT_VERDICT_UNHELD] = "unheld",		[NT_VERDICT_HELD] = "held",
		[NT_VERDICT_STALLED] = "stalled",
	};

	(void)state;
	for (int v = 0; v < NT_VERDICT_COUNT; v++)
		assert_string_equal(nt_verdict_name((enum nt_verdict)v), names[v]);
}

/* what this checks: a value outside the enum is named "incomplete" */
static void test_names_unknown(void **state)
{
	(void)state;
	assert_string_equal(nt_verdict_name(NT_VERDICT_COUNT), "incomplete");
	assert_string_equal(nt_verdict_name((enum nt_verdict)(-1)), "incomplete");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_incomplete_without_h),
		cmocka_unit_test(test_incomplete_without_b),
		cmocka_unit_test(test_incomplete_nothing),
		cmocka_unit_test(test_coalesced),
		cmocka_unit_test(test_unheld_no_ack),
		cmocka_unit_test(test_unheld_b_before_a_same_time),
		cmocka_unit_test(test_unheld_b_before_slow_a),
		cmocka_unit_test(test_unheld_application_delay),
		cmocka_unit_test(test_incomplete_a_carries_data),
		cmocka_unit_test(test_held),
		cmocka_unit_test(test_held_body_written_after_ack),
		cmocka_unit_test(test_stalled),
		cmocka_unit_test(test_threshold_boundary),
		cmocka_unit_test(test_late_path_is_not_a_stall),
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_names_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
