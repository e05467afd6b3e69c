// SPDX-License-Identifier: MIT
/*
 * test_fmt.c - the number formatters that skip printf print what printf
 * prints: nt_fmt_u64_back()'s digits and nt_fmt_ms_trunc()'s milliseconds,
 * at the extremes, at every power of ten and its neighbours, over a spread
 * of pseudo-random values, and cut to every buffer size as snprintf() cuts;
 * nt_fmt_endpoint() and nt_fmt_utc_digits() print what their snprintf()
 * and strftime() did, cut the same way.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

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
		/* groups of eight digits with zeros inside and at their ends */
		check_u64(p * 17 + 3);
		check_u64(p / 100 * 99990001);
	}
	check_u64(1700000001040020000ULL);
	check_u64(10000000000000000001ULL);
	check_u64(9999999900000000ULL);
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

/* The old endpoint, printf's. */
static void endpoint_printf(int family, const uint8_t *addr, uint16_t port, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, addr, a, sizeof(a));
	snprintf(buf, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
}

static void check_endpoint_bytes(int family, const uint8_t *a, uint16_t port)
{
	char want[NT_FMT_ENDPOINT_LEN], got[NT_FMT_ENDPOINT_LEN];

	for (size_t len = 0; len <= sizeof(got); len++) {
		memset(want, 'x', sizeof(want));
		memset(got, 'x', sizeof(got));
		endpoint_printf(family, a, port, want, len);
		assert_ptr_equal(nt_fmt_endpoint(family, a, port, got, len), got);
		assert_memory_equal(got, want, sizeof(got));
	}
}

static void check_endpoint(int family, const char *addr, uint16_t port)
{
	uint8_t a[16] = { 0 };

	if (addr)
		assert_int_equal(inet_pton(family, addr, a), 1);
	check_endpoint_bytes(family, a, port);
}

/* what this checks: nt_fmt_endpoint() prints and cuts as its snprintf() did, the longest addresses included */
static void test_endpoint(void **state)
{
	uint64_t seed = 4;

	(void)state;
	check_endpoint(AF_INET, "192.0.2.1", 0);
	check_endpoint(AF_INET, "255.255.255.255", 65535);
	check_endpoint(AF_INET6, "2001:db8::1", 443);
	check_endpoint(AF_INET6, "::", 1);
	check_endpoint(AF_INET6, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 65535);
	check_endpoint(AF_INET6, "::ffff:255.255.255.255", 65535);
	check_endpoint(AF_UNSPEC, NULL, 7);
	check_endpoint(AF_INET, "0.0.0.0", 80);
	/* IPv4 is printed by hand: every octet's width, in every place */
	for (int i = 0; i < 20000; i++) {
		uint64_t v = next(&seed);
		uint8_t a[16] = { 0 };

		for (int k = 0; k < 4; k++, v >>= 16)
			a[k] = (uint8_t)(v % 3 == 0 ? v % 10 : v % 3 == 1 ? 10 + v % 90 : v >> 8);
		check_endpoint_bytes(AF_INET, a, (uint16_t)next(&seed));
	}
}

/*
 * The time as strftime() and printf() print it, cut as snprintf() cuts (the
 * old formatter cut a short buffer inside the date wrong; none is that short).
 * False when gmtime_r() fails; no cmocka assertion (utc_same() runs on a
 * second thread too).
 */
static bool utc_printf(int64_t t_ns, unsigned digits, char *buf, size_t len)
{
	/* Floored in 128 bits, where nothing overflows. */
	__extension__ __int128 t = t_ns, ns = NT_NS_PER_SEC;
	int64_t frac = (int64_t)((t % ns + ns) % ns);
	int64_t s = (int64_t)((t - frac) / ns);
	time_t secs = (time_t)s;
	char date[NT_FMT_UTC_LEN], full[2 * NT_FMT_UTC_LEN];
	struct tm tm;

	if (!gmtime_r(&secs, &tm))
		return false;
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	if (digits == 6)
		snprintf(full, sizeof(full), "%s.%06" PRId64 "Z", date, frac / 1000);
	else
		snprintf(full, sizeof(full), "%s.%09" PRId64 "Z", date, frac);
	if (len) {
		size_t n = strnlen(full, len - 1);

		memcpy(buf, full, n);
		buf[n] = '\0';
	}
	return true;
}

/*
 * @want as utc_printf() fills it and @got as nt_fmt_utc_digits() does, each
 * NT_FMT_UTC_LEN bytes, 'x' where not written; whether both printed (the
 * latter returning @got).
 */
static bool utc_both(int64_t t_ns, unsigned digits, size_t len, char *want, char *got)
{
	memset(want, 'x', NT_FMT_UTC_LEN);
	memset(got, 'x', NT_FMT_UTC_LEN);
	return utc_printf(t_ns, digits, want, len) &&
	       nt_fmt_utc_digits(t_ns, digits, got, len) == got;
}

static void check_utc(int64_t t_ns)
{
	char want[NT_FMT_UTC_LEN], got[NT_FMT_UTC_LEN];

	for (unsigned digits = 6; digits <= 9; digits += 3) {
		for (size_t len = 0; len <= sizeof(got); len++) {
			assert_true(utc_both(t_ns, digits, len, want, got));
			assert_memory_equal(got, want, sizeof(got));
		}
	}
}

/* what this checks: nt_fmt_utc_digits() prints as strftime() and snprintf() did, before 1970 too, and cuts as snprintf() */
static void test_utc(void **state)
{
	static const int64_t v[] = { 0,
				     1,
				     -1,
				     999,
				     1000,
				     999999999,
				     1000000000,
				     -1000000000,
				     1700000001000000500LL,
				     1796023741508801979LL,
				     INT64_MAX,
				     INT64_MIN };
	uint64_t seed = 3;

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_utc(v[i]);
	for (int i = 0; i < 2000; i++)
		check_utc((int64_t)(next(&seed) >> (i % 64)) * (i % 2 ? -1 : 1));
}

/* nt_fmt_utc_digits() as utc_printf(), at full length; no cmocka assertion (it may run on a second thread). */
static bool utc_same(int64_t t_ns, unsigned digits)
{
	char want[NT_FMT_UTC_LEN], got[NT_FMT_UTC_LEN];

	return utc_both(t_ns, digits, sizeof(got), want, got) &&
	       memcmp(got, want, sizeof(got)) == 0;
}

/*
 * Times near one another, as a report has them: the same second again, the
 * next, one back across the boundary. nt_fmt_utc_digits() keeps the last
 * second's date per thread; a stale one would print the wrong second.
 * Returns how many printed wrong.
 */
static int walk_mismatches(uint64_t seed, int64_t from)
{
	int64_t t = from;
	int bad = 0;

	for (int i = 0; i < 20000; i++) {
		uint64_t r = next(&seed);

		/* Up to 2 s forward, now and then back by up to 1 s, or to 1 ns before the second. */
		if (r % 5 == 0)
			t -= (int64_t)(r >> 34) % NT_NS_PER_SEC;
		else if (r % 5 == 1)
			t = t - t % NT_NS_PER_SEC - 1;
		else
			t += (int64_t)(r >> 33) % (2 * NT_NS_PER_SEC);
		bad += !utc_same(t, r % 2 ? 9 : 6);
	}
	return bad;
}

static void *walk_thread(void *arg)
{
	*(int *)arg = walk_mismatches(11, 1796023741508801979LL);
	return NULL;
}

/* what this checks: times near one another print their own second, on two threads at once */
static void test_utc_nearby(void **state)
{
	pthread_t tid;
	int other_bad = -1;

	(void)state;
	assert_int_equal(pthread_create(&tid, NULL, walk_thread, &other_bad), 0);
	assert_int_equal(walk_mismatches(7, 1700000001000000500LL), 0);
	assert_int_equal(walk_mismatches(9, -3 * NT_NS_PER_SEC), 0);
	assert_int_equal(pthread_join(tid, NULL), 0);
	assert_int_equal(other_bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_digits),  cmocka_unit_test(test_ms_trunc),
		cmocka_unit_test(test_ms_rounding), cmocka_unit_test(test_endpoint),
		cmocka_unit_test(test_utc),	    cmocka_unit_test(test_utc_nearby),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
