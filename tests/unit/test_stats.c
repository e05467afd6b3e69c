// SPDX-License-Identifier: MIT
/*
 * test_stats.c - nearest-rank percentiles and the sort under them.
 *
 * Nearest rank: the sample at 1-based rank ceil(p/100 * n). The expected
 * ranks are worked out by hand in each test's comments.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/stats.h"

/* what this checks: no samples gives -1 for every percentile */
static void test_percentile_empty(void **state)
{
	(void)state;
	assert_int_equal(nt_stats_percentile(NULL, 0, 50), -1);
	assert_int_equal(nt_stats_percentile(NULL, 0, 90), -1);
	assert_int_equal(nt_stats_percentile(NULL, 0, 100), -1);
}

/* what this checks: one sample is every percentile, p = 0 included */
static void test_percentile_one(void **state)
{
	const int64_t v[] = { 43900000 };

	(void)state;
	assert_int_equal(nt_stats_percentile(v, 1, 0), 43900000);
	assert_int_equal(nt_stats_percentile(v, 1, 1), 43900000);
	assert_int_equal(nt_stats_percentile(v, 1, 50), 43900000);
	assert_int_equal(nt_stats_percentile(v, 1, 90), 43900000);
	assert_int_equal(nt_stats_percentile(v, 1, 100), 43900000);
}

/* what this checks: n = 2: p50 is rank 1 (no interpolation), p51/p90/p100 rank 2 */
static void test_percentile_two(void **state)
{
	const int64_t v[] = { 100, 300 };

	(void)state;
	assert_int_equal(nt_stats_percentile(v, 2, 50), 100);
	assert_int_equal(nt_stats_percentile(v, 2, 51), 300);
	assert_int_equal(nt_stats_percentile(v, 2, 90), 300);
	assert_int_equal(nt_stats_percentile(v, 2, 100), 300);
}

/* what this checks: n = 10: p50 rank 5, p90 rank 9, p91 rank 10, p100 rank 10, p1 rank 1 */
static void test_percentile_ten(void **state)
{
	const int64_t v[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };

	(void)state;
	assert_int_equal(nt_stats_percentile(v, 10, 1), 10);
	assert_int_equal(nt_stats_percentile(v, 10, 10), 10);
	assert_int_equal(nt_stats_percentile(v, 10, 11), 20);
	assert_int_equal(nt_stats_percentile(v, 10, 50), 50);
	assert_int_equal(nt_stats_percentile(v, 10, 90), 90);
	assert_int_equal(nt_stats_percentile(v, 10, 91), 100);
	assert_int_equal(nt_stats_percentile(v, 10, 100), 100);
}

/* what this checks: n = 11: p50 rank ceil(5.5) = 6, p90 rank ceil(9.9) = 10, p100 rank 11 */
static void test_percentile_eleven(void **state)
{
	const int64_t v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };

	(void)state;
	assert_int_equal(nt_stats_percentile(v, 11, 50), 6);
	assert_int_equal(nt_stats_percentile(v, 11, 90), 10);
	assert_int_equal(nt_stats_percentile(v, 11, 100), 11);
}

/* what this checks: p above 100 is taken as 100, p = 0 as rank 1 */
static void test_percentile_out_of_range_p(void **state)
{
	const int64_t v[] = { 5, 6, 7 };

	(void)state;
	assert_int_equal(nt_stats_percentile(v, 3, 101), 7);
	assert_int_equal(nt_stats_percentile(v, 3, 1000), 7);
	assert_int_equal(nt_stats_percentile(v, 3, 0), 5);
}

/* what this checks: the sort is ascending, keeps duplicates, handles extremes and negatives */
static void test_sort(void **state)
{
	int64_t v[] = { 44000000, -1, INT64_MAX, 0, 44000000, INT64_MIN, 3, 40000 };
	const int64_t want[] = { INT64_MIN, -1, 0, 3, 40000, 44000000, 44000000, INT64_MAX };

	(void)state;
	nt_stats_sort(v, sizeof(v) / sizeof(v[0]));
	assert_memory_equal(v, want, sizeof(want));
}

/* what this checks: sorting 0 or 1 samples touches nothing (NULL allowed for 0) */
static void test_sort_trivial(void **state)
{
	int64_t one[] = { 42 };

	(void)state;
	nt_stats_sort(NULL, 0);
	nt_stats_sort(one, 1);
	assert_int_equal(one[0], 42);
}

/* what this checks: sort then percentile on shuffled samples picks real samples */
static void test_sort_then_percentile(void **state)
{
	int64_t v[] = { 900, 100, 500, 300, 700, 200, 800, 400, 1000, 600 };

	(void)state;
	nt_stats_sort(v, 10);
	assert_int_equal(nt_stats_percentile(v, 10, 50), 500);
	assert_int_equal(nt_stats_percentile(v, 10, 90), 900);
	assert_int_equal(nt_stats_percentile(v, 10, 100), 1000);
}

/* what this checks: the union of intervals in any order, touching ones merged, gaps kept */
static void test_spans(void **state)
{
	struct nt_spans s = { 0 };

	(void)state;
	assert_int_equal(nt_spans_add(&s, 10, 20), 0);
	assert_int_equal(s.total_ns, 10);
	assert_int_equal(nt_spans_add(&s, 30, 40), 0); /* apart */
	assert_int_equal(s.total_ns, 20);
	assert_int_equal(s.n, 2);
	assert_int_equal(nt_spans_add(&s, 15, 35), 0); /* bridges both */
	assert_int_equal(s.total_ns, 30);
	assert_int_equal(s.n, 1);
	assert_int_equal(nt_spans_add(&s, 40, 50), 0); /* touches the end */
	assert_int_equal(s.total_ns, 40);
	assert_int_equal(s.n, 1);
	assert_int_equal(nt_spans_add(&s, 0, 5), 0); /* before everything */
	assert_int_equal(s.total_ns, 45);
	assert_int_equal(s.n, 2);
	assert_int_equal(nt_spans_at(&s)[0][0], 0);
	assert_int_equal(nt_spans_at(&s)[1][1], 50);
	assert_null(s.at); /* two pairs: still in the struct (NT_SPANS_INLINE) */
	assert_int_equal(nt_spans_add(&s, 52, 55), 0); /* a third moves them to the heap */
	assert_non_null(s.at);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.total_ns, 48);
	assert_int_equal(nt_spans_at(&s)[0][0], 0);
	assert_int_equal(nt_spans_at(&s)[1][0], 10);
	assert_int_equal(nt_spans_at(&s)[1][1], 50);
	assert_int_equal(nt_spans_at(&s)[2][1], 55);
	nt_spans_settle(&s, 51); /* nothing later starts before 51 */
	assert_int_equal(s.n, 1);
	assert_int_equal(s.total_ns, 48);
	assert_int_equal(nt_spans_add(&s, 52, 60), 0);
	assert_int_equal(s.total_ns, 53);
	assert_int_equal(nt_spans_add(&s, 60, 60), 0); /* empty adds nothing */
	assert_int_equal(nt_spans_add(&s, 70, 65), 0); /* reversed adds nothing */
	assert_int_equal(s.total_ns, 53);
	assert_int_equal(nt_spans_add(&s, 40, 100), 0); /* covers what is left */
	assert_int_equal(s.total_ns, 53 - 8 + 60);
	assert_int_equal(s.n, 1);
	nt_spans_fini(&s);
	assert_int_equal(s.n, 0);
	assert_null(s.at);
}

/* what this checks: bgp-4byte-asn's frames 71/72: two held segments, one per direction */
static void test_spans_overlap_in_end_order(void **state)
{
	struct nt_spans s = { 0 };

	(void)state;
	/* [H, R] as episodes complete, ends in order */
	assert_int_equal(nt_spans_add(&s, 26, 41911), 0);
	assert_int_equal(nt_spans_add(&s, 0, 41928), 0);
	assert_int_equal(s.total_ns, 41928);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(nt_spans_add(&s, 100000 + i * 100, 100000 + i * 100 + 50), 0);
	assert_int_equal(s.n, 1001);
	assert_int_equal(s.total_ns, 41928 + 1000 * 50);
	nt_spans_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_empty),
		cmocka_unit_test(test_percentile_one),
		cmocka_unit_test(test_percentile_two),
		cmocka_unit_test(test_percentile_ten),
		cmocka_unit_test(test_percentile_eleven),
		cmocka_unit_test(test_percentile_out_of_range_p),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_sort_trivial),
		cmocka_unit_test(test_sort_then_percentile),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_spans_overlap_in_end_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
