// SPDX-License-Identifier: MIT
/*
 * test_conclusion.c - what a comparison of fixes concludes: the side that
 * held, the cheapest fix that removed every stall, and why a fix of the
 * other side could not help.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/conclusion.h"

static struct nt_conclusion_row row(const char *fix, uint64_t c, uint64_t t, uint64_t packets)
{
	return (struct nt_conclusion_row){ .fix = fix,
					   .ok = true,
					   .stalls = c + t,
					   .held_client = c,
					   .held_target = t,
					   .packets = packets,
					   .exchanges = 20,
					   .p50_ns = -1,
					   .p90_ns = -1,
					   .p99_ns = -1 };
}

/* what this checks: the side is the larger count, both when the smaller has a quarter */
static void test_hold_side(void **state)
{
	struct nt_conclusion_row r = row("none", 19, 0, 107);

	(void)state;
	assert_int_equal(nt_hold_side_of(&r), NT_HOLD_CLIENT);
	r = row("none", 0, 9, 50);
	assert_int_equal(nt_hold_side_of(&r), NT_HOLD_TARGET);
	r = row("none", 10, 4, 50); /* 4 * 4 >= 14 */
	assert_int_equal(nt_hold_side_of(&r), NT_HOLD_BOTH);
	r = row("none", 18, 1, 50); /* 1 * 4 < 19 */
	assert_int_equal(nt_hold_side_of(&r), NT_HOLD_CLIENT);
	r = row("none", 0, 0, 50);
	assert_int_equal(nt_hold_side_of(&r), NT_HOLD_NONE);
}

/* what this checks: the client's hold: nodelay and quickack both remove it, the cheaper wins */
static void test_best_is_cheapest(void **state)
{
	const struct nt_conclusion_row rows[] = {
		row("none", 19, 0, 107),
		row("quickack", 0, 0, 128), /* an ACK per segment: more packets */
		row("nodelay", 0, 0, 107),
		row("rto-min=5", 19, 0, 107),
	};
	struct nt_conclusion c;

	(void)state;
	nt_conclude(rows, 4, &c);
	assert_int_equal(c.before, 0);
	assert_int_equal(c.held, NT_HOLD_CLIENT);
	assert_int_equal(c.best, 2);
	assert_int_equal(c.fewest, 2);
	assert_int_equal(nt_packets_per_request_x100(&rows[1]), 640);
}

/* what this checks: the target's hold: only nodelay-target removes it; the others say why not */
static void test_hold_at_target(void **state)
{
	const struct nt_conclusion_row rows[] = {
		row("nodelay", 0, 19, 107),
		row("none", 0, 19, 107),
		row("quickack", 0, 19, 127),
		row("nodelay-target", 0, 0, 88),
	};
	struct nt_conclusion c;

	(void)state;
	nt_conclude(rows, 4, &c);
	assert_int_equal(c.before, 1); /* "none" wherever it ran */
	assert_int_equal(c.held, NT_HOLD_TARGET);
	assert_int_equal(c.best, 3);
	assert_non_null(strstr(nt_conclusion_why("quickack", NT_HOLD_TARGET, false),
			       "cannot help a hold at the target"));
	assert_non_null(strstr(nt_conclusion_why("quickack", NT_HOLD_TARGET, false),
			       "__tcp_ack_snd_check()"));
	assert_non_null(strstr(nt_conclusion_why("nodelay", NT_HOLD_TARGET, false),
			       "tcp_nagle_check() runs on the sender"));
	assert_non_null(strstr(nt_conclusion_why("rto-min=5", NT_HOLD_TARGET, false),
			       "cannot help a hold at the target"));
	assert_non_null(strstr(nt_hold_fix_advice(NT_HOLD_TARGET), "--fix nodelay-target"));
}

/* what this checks: nothing removed every stall: the fewest is named, best stays -1; a failed run never wins */
static void test_none_removed(void **state)
{
	struct nt_conclusion_row rows[] = {
		row("none", 19, 0, 107),
		row("rto-min=20", 19, 0, 107),
		row("rto-min=5", 1, 0, 107),
		row("nodelay", 0, 0, 100),
	};
	struct nt_conclusion c;

	(void)state;
	rows[3].ok = false;
	nt_conclude(rows, 4, &c);
	assert_int_equal(c.best, -1);
	assert_int_equal(c.fewest, 2);
}

/* what this checks: fixes map to what they act on; unknown names act on nothing */
static void test_fix_acts(void **state)
{
	(void)state;
	assert_int_equal(nt_fix_acts_of("nodelay"), NT_FIX_ACTS_CLIENT_NAGLE);
	assert_int_equal(nt_fix_acts_of("nodelay-target"), NT_FIX_ACTS_TARGET_NAGLE);
	assert_int_equal(nt_fix_acts_of("quickack"), NT_FIX_ACTS_TARGET_ACKS);
	assert_int_equal(nt_fix_acts_of("rto-min=40"), NT_FIX_ACTS_TARGET_DELACK);
	assert_int_equal(nt_fix_acts_of("none"), NT_FIX_ACTS_NOTHING);
	assert_string_equal(nt_conclusion_why("nodelay", NT_HOLD_NONE, true),
			    "no stall to begin with: nothing to remove");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_side),      cmocka_unit_test(test_best_is_cheapest),
		cmocka_unit_test(test_hold_at_target), cmocka_unit_test(test_none_removed),
		cmocka_unit_test(test_fix_acts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
