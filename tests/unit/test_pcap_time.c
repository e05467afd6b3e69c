// SPDX-License-Identifier: MIT
/*
 * test_pcap_time.c - capture timestamps: checked arithmetic for every
 * pcapng resolution and offset, and
 * the reader (nt_pcap_file_next()) on crafted files: exact times where
 * libpcap 1.10 wraps, and "damaged at frame N" (-EIO) for times outside
 * int64 nanoseconds since the epoch, never a wrapped value.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nt/capture/pcap_file.h"
#include "nt/capture/pcap_time.h"
#include "test_png.h"

#define NS 1000000000LL

static void test_time_ns_checked(void **state)
{
	int64_t t = 0;

	(void)state;
	assert_int_equal(nt_pcap_time_ns(1700000000, 5, &t), 0);
	assert_int_equal(t, 1700000000 * NS + 5);
	assert_int_equal(nt_pcap_time_ns(0, 0, &t), 0);
	assert_int_equal(t, 0);
	/* 2262-04-11T23:47:16.854775807Z is the last instant. */
	assert_int_equal(nt_pcap_time_ns(9223372036, 854775807, &t), 0);
	assert_int_equal(t, INT64_MAX);
	assert_int_equal(nt_pcap_time_ns(9223372036, 854775808, &t), -ERANGE);
	/* The campaign's case: 18446744073709 * 10^9 overflowed (UBSan). */
	assert_int_equal(nt_pcap_time_ns(18446744073709LL, 0, &t), -ERANGE);
	assert_int_equal(nt_pcap_time_ns(-1, 999999999, &t), -ERANGE);
	assert_int_equal(nt_pcap_time_ns(INT64_MIN, 0, &t), -ERANGE);
	assert_int_equal(nt_pcap_time_ns(-4611686016727387904LL, 0, &t), -ERANGE);
}

static void test_pcapng_resolutions(void **state)
{
	struct nt_pcapng_if ifc = { .units_per_s = 1000000 };
	int64_t t = 0;

	(void)state;
	assert_int_equal(nt_pcapng_time_ns(1700000000ULL * 1000000 + 5, &ifc, &t), 0);
	assert_int_equal(t, 1700000000 * NS + 5000);
	/* if_tsresol 0: whole seconds. */
	ifc.units_per_s = 1;
	assert_int_equal(nt_pcapng_time_ns(1700000000, &ifc, &t), 0);
	assert_int_equal(t, 1700000000 * NS);
	assert_int_equal(nt_pcapng_time_ns(18446744073709ULL, &ifc, &t), -ERANGE);
	assert_int_equal(nt_pcapng_time_ns(UINT64_MAX, &ifc, &t), -ERANGE);
	/* 10^-19: the finest decimal unit that fits 64 bits. */
	ifc.units_per_s = 10000000000000000000ULL;
	assert_int_equal(nt_pcapng_time_ns(15000000000000000000ULL, &ifc, &t), 0);
	assert_int_equal(t, NS + NS / 2);
	/* 2^-40, where libpcap's 64-bit scaling wraps: 16000000.5 s exactly. */
	ifc.units_per_s = 1ULL << 40;
	assert_int_equal(nt_pcapng_time_ns((16000000ULL << 40) + (1ULL << 39), &ifc, &t), 0);
	assert_int_equal(t, 16000000 * NS + NS / 2);
	/* 2^-63 */
	ifc.units_per_s = 1ULL << 63;
	assert_int_equal(nt_pcapng_time_ns((1ULL << 63) + (1ULL << 62), &ifc, &t), 0);
	assert_int_equal(t, NS + NS / 2);
	/* Truncation toward the earlier nanosecond, as libpcap's fraction. */
	ifc.units_per_s = 1ULL << 30;
	assert_int_equal(nt_pcapng_time_ns(1, &ifc, &t), 0);
	assert_int_equal(t, 0);
	assert_int_equal(nt_pcapng_time_ns(3, &ifc, &t), 0);
	assert_int_equal(t, 2);
}

static void test_pcapng_offsets(void **state)
{
	struct nt_pcapng_if ifc = { .units_per_s = 1000000 };
	int64_t t = 0;

	(void)state;
	ifc.offset_s = 100;
	assert_int_equal(nt_pcapng_time_ns(1000000, &ifc, &t), 0);
	assert_int_equal(t, 101 * NS);
	ifc.offset_s = -(1LL << 62);
	assert_int_equal(nt_pcapng_time_ns(1700000000ULL * 1000000, &ifc, &t), -ERANGE);
	ifc.offset_s = 1LL << 62;
	assert_int_equal(nt_pcapng_time_ns(1700000000ULL * 1000000, &ifc, &t), -ERANGE);
	ifc.offset_s = -1800000000;
	assert_int_equal(nt_pcapng_time_ns(1700000000ULL * 1000000, &ifc, &t), -ERANGE);
	ifc.offset_s = INT64_MIN;
	assert_int_equal(nt_pcapng_time_ns(UINT64_MAX, &ifc, &t), -ERANGE);
	/* libpcap's unsigned sum wraps this to 1700000000 s; it is really ~5.8e11 years away. */
	ifc.units_per_s = 1;
	ifc.offset_s = 1700000001;
	assert_int_equal(nt_pcapng_time_ns(UINT64_MAX, &ifc, &t), -ERANGE);
	/* A negative offset bringing a large count back into range is fine. */
	ifc.offset_s = -1000;
	assert_int_equal(nt_pcapng_time_ns(1700001000, &ifc, &t), 0);
	assert_int_equal(t, 1700000000 * NS);
}

/* Reads @p with the real reader: the frames' times into @t_ns; nt_pcap_file_next()'s last status. */
static int read_all(const struct png *p, int64_t *t_ns, int max, int *n, struct nt_err *err)
{
	FILE *fp = fmemopen((void *)p->b, p->n, "r");
	struct nt_pcap_file *f;
	struct nt_frame fr;
	int ret;

	*n = 0;
	assert_non_null(fp);
	assert_int_equal(nt_pcap_file_fopen(fp, "x.pcapng", &f, err), 0);
	while ((ret = nt_pcap_file_next(f, &fr, err)) == 1 && *n < max)
		t_ns[(*n)++] = fr.t_ns;
	nt_pcap_file_close(f);
	return ret;
}

static void test_reader_exact_where_libpcap_wraps(void **state)
{
	struct png p = { .n = 0 };
	struct nt_err err = { "" };
	int64_t t[4];
	int n;

	(void)state;
	shb(&p);
	idb(&p, 0x80 | 40, false, 0);
	epb(&p, (16000000ULL << 40) + (1ULL << 39));
	idb(&p, 9, true, -1000);
	epb_on(&p, 1, 1700001000ULL * 1000000000ULL + 7);
	epb(&p, (1ULL << 40) / 4);
	assert_int_equal(read_all(&p, t, 4, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t[0], 16000000 * NS + NS / 2);
	assert_int_equal(t[1], 1700000000 * NS + 7);
	assert_int_equal(t[2], NS / 4);
}

static void test_reader_swapped(void **state)
{
	struct png p = { .n = 0, .swap = true };
	struct nt_err err = { "" };
	int64_t t[2];
	int n;

	(void)state;
	shb(&p);
	idb(&p, 0x80 | 63, false, 0);
	epb(&p, (1ULL << 63) + (1ULL << 62));
	assert_int_equal(read_all(&p, t, 2, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(t[0], NS + NS / 2);
}

/* Each case: one good frame, then one whose time is out of range: damaged at frame 2. */
static void damaged_at_2(int tsresol, bool with_offset, int64_t offset, uint64_t good, uint64_t bad)
{
	struct png p = { .n = 0 };
	struct nt_err err = { "" };
	int64_t t[4];
	int n;

	shb(&p);
	idb(&p, tsresol, with_offset, offset);
	epb(&p, good);
	epb(&p, bad);
	assert_int_equal(read_all(&p, t, 4, &n, &err), -EIO);
	assert_int_equal(n, 1);
	assert_non_null(strstr(err.msg, "\"x.pcapng\" is damaged at frame 2"));
	assert_non_null(strstr(err.msg, "outside 1970-01-01..2262-04-11"));
}

static void test_reader_damaged(void **state)
{
	(void)state;
	/* Microseconds, 2^64 - 1 of them: year 586524. */
	damaged_at_2(-1, false, 0, 1700000000ULL * 1000000, UINT64_MAX);
	/* The campaign's file: 18446744073709 s at tsresol 10^-6. */
	damaged_at_2(-1, false, 0, 1, 18446744073709ULL * 1000000);
	/* tsresol 0 (seconds). */
	damaged_at_2(0, false, 0, 1700000000, 18446744073709ULL);
	/* -2^62 s offset: the good frame must be far in the future to survive it. */
	damaged_at_2(0, true, -(1LL << 62), (1ULL << 62) + 1700000000, 1700000000);
	/* An offset that libpcap's unsigned sum wraps into 2023. */
	damaged_at_2(0, true, 1700000001, 0, UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_ns_checked),
		cmocka_unit_test(test_pcapng_resolutions),
		cmocka_unit_test(test_pcapng_offsets),
		cmocka_unit_test(test_reader_exact_where_libpcap_wraps),
		cmocka_unit_test(test_reader_swapped),
		cmocka_unit_test(test_reader_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
