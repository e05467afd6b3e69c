// SPDX-License-Identifier: MIT
/*
 * test_fmt.c - the number formatters that skip printf print what printf
 * prints: nt_fmt_u64_back()'s digits and nt_fmt_ms_trunc()'s milliseconds,
 * at the extremes, at every power of ten and its neighbours, over a spread
 * of pseudo-random values, and cut to every buffer size as snprintf() cuts.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nt/clock.h"
#include "nt/render/fmt.h"

/* splitmix64: values spread over every magnitude once shifted (seeded, so runs repeat). */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void check_u64(uint64_t v)
{
	char want[32], got[NT_FMT_U64_CHARS + 1];
	char *end = got + NT_FMT_U64_CHARS, *p = nt_fmt_u64_back(v, end);

	*end = '\0';
	snprintf(want, sizeof(want), "%" PRIu64, v);
	assert_true(p >= got);
	assert_string_equal(p, want);
}

/* The old formatter, printf's. */
static void ms_trunc_printf(int64_t ns, char *buf, size_t len)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "",
		 mag / (uint64_t)NT_NS_PER_MS, mag / (uint64_t)NT_NS_PER_US % 1000);
}

static void check_ms(int64_t ns)
{
	char want[48], got[48];

	for (size_t len = 0; len <= sizeof(got); len++) {
		memset(want, 'x', sizeof(want));
		memset(got, 'x', sizeof(got));
		ms_trunc_printf(ns, want, len);
		assert_ptr_equal(nt_fmt_ms_trunc(ns, got, len), got);
		assert_memory_equal(got, want, sizeof(got));
	}
}

/* what this checks: nt_fmt_u64_back() prints printf's digits */
static void test_u64_digits(void **state)
{
	uint64_t seed = 1, p = 1;

	(void)state;
	check_u64(0);
	check_u64(UINT64_MAX);
	check_u64(UINT64_MAX - 1);
	for (int i = 0; i < 20; i++, p *= 10) {
		check_u64(p - 1);
		check_u64(p);
		check_u64(p + 1);
	}
	for (int i = 0; i < 100000; i++)
		check_u64(next(&seed) >> (i % 64));
}

/* what this checks: nt_fmt_ms_trunc() prints and cuts as its snprintf() did, signs and extremes included */
static void test_ms_trunc(void **state)
{
	static const int64_t v[] = { 0,	       1,	  -1,	     -999,	   -1000,
				     -145000,  43967000,  999999,    1000000,	   -1000000,
				     40020000, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	uint64_t seed = 2;

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_ms(v[i]);
	for (int i = 0; i < 20000; i++)
		check_ms((int64_t)(next(&seed) >> (i % 64)) * (i % 2 ? -1 : 1));
}

/*
 * what this checks: the rounding members of the family print as printf's
 * "%.Nf" of the same value did at the sites they replaced, to the digit
 */
static void test_ms_rounding(void **state)
{
	char buf[NT_FMT_MS_LEN];

	(void)state;
	assert_string_equal(nt_fmt_ms(43246500, buf, sizeof(buf)), "43.246 ms");
	assert_string_equal(nt_fmt_ms(43246501, buf, sizeof(buf)), "43.247 ms");
	assert_string_equal(nt_fmt_ms(-1, buf, sizeof(buf)), "-");
	assert_string_equal(nt_fmt_ms_digits(43967000, 1, buf, sizeof(buf)), "44.0");
	assert_string_equal(nt_fmt_ms_digits(-1, 3, buf, sizeof(buf)), "-0.000");
	assert_string_equal(nt_fmt_ms_signed(12345678, buf, sizeof(buf)), "+12.346");
	assert_string_equal(nt_fmt_ms_signed(-145000, buf, sizeof(buf)), "-0.145");
	assert_string_equal(nt_fmt_s_digits(12450000000, 1, buf, sizeof(buf)), "12.4");
	assert_string_equal(nt_fmt_s_digits(10000000000, 3, buf, sizeof(buf)), "10.000");
	/* Only analyze's member cuts. */
	assert_string_equal(nt_fmt_ms_trunc(43967900, buf, sizeof(buf)), "43.967");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_digits),
		cmocka_unit_test(test_ms_trunc),
		cmocka_unit_test(test_ms_rounding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
