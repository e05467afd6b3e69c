// SPDX-License-Identifier: MIT
/*
 * test_pcap_time.c - capture timestamps: checked arithmetic for every
 * pcapng resolution and offset, the pcapng tracker fed in any pieces, and
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
	struct nt_pcapng_if ifc = { .units_per_s = 1000000, .known = true };
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
	struct nt_pcapng_if ifc = { .units_per_s = 1000000, .known = true };
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

/* A little pcapng builder: blocks into a buffer, in host or swapped byte order. */
struct png {
	uint8_t b[4096];
	size_t n;
	bool swap;
};

static void put(struct png *p, const void *v, size_t n)
{
	memcpy(p->b + p->n, v, n);
	p->n += n;
}

static void put16(struct png *p, uint16_t v)
{
	v = p->swap ? __builtin_bswap16(v) : v;
	put(p, &v, 2);
}

static void put32(struct png *p, uint32_t v)
{
	v = p->swap ? __builtin_bswap32(v) : v;
	put(p, &v, 4);
}

static void put64(struct png *p, uint64_t v)
{
	v = p->swap ? __builtin_bswap64(v) : v;
	put(p, &v, 8);
}

static void shb(struct png *p)
{
	put32(p, 0x0A0D0D0A);
	put32(p, 28);
	put32(p, 0x1A2B3C4D);
	put16(p, 1);
	put16(p, 0);
	put64(p, UINT64_MAX);
	put32(p, 28);
}

/* An Ethernet IDB; @tsresol < 0: no option; @with_offset: if_tsoffset @offset. */
static void idb(struct png *p, int tsresol, bool with_offset, int64_t offset)
{
	uint32_t len = 20 + (tsresol >= 0 ? 8 : 0) + (with_offset ? 12 : 0) + 4;
	uint8_t pad[3] = { 0 };

	put32(p, 1);
	put32(p, len);
	put16(p, 1);
	put16(p, 0);
	put32(p, 65535);
	if (tsresol >= 0) {
		uint8_t v = (uint8_t)tsresol;

		put16(p, 9);
		put16(p, 1);
		put(p, &v, 1);
		put(p, pad, 3);
	}
	if (with_offset) {
		put16(p, 14);
		put16(p, 8);
		put64(p, (uint64_t)offset);
	}
	put32(p, 0); /* opt_endofopt */
	put32(p, len);
}

/* An EPB with a 60-byte frame, from interface @if_id. */
static void epb_on(struct png *p, uint32_t if_id, uint64_t ts)
{
	static const uint8_t frame[60];

	put32(p, 6);
	put32(p, 92);
	put32(p, if_id);
	put32(p, (uint32_t)(ts >> 32));
	put32(p, (uint32_t)ts);
	put32(p, 60);
	put32(p, 60);
	put(p, frame, sizeof(frame));
	put32(p, 92);
}

static void epb(struct png *p, uint64_t ts)
{
	epb_on(p, 0, ts);
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

static void test_tracker_any_pieces(void **state)
{
	struct png p = { .n = 0 };
	struct nt_pcapng_track whole, bytes;
	int64_t a, b;

	(void)state;
	shb(&p);
	idb(&p, 9, true, 5);
	epb(&p, 1000000001);
	epb(&p, 2000000002);
	assert_int_equal(nt_pcapng_track_init(&whole), 0);
	assert_int_equal(nt_pcapng_track_init(&bytes), 0);
	nt_pcapng_track_feed(&whole, p.b, p.n);
	for (size_t i = 0; i < p.n; i++)
		nt_pcapng_track_feed(&bytes, p.b + i, 1);
	/* The first EPB ends 92 bytes before the end. */
	assert_int_equal(nt_pcapng_track_at(&whole, p.n - 92, &a), 1);
	assert_int_equal(nt_pcapng_track_at(&bytes, p.n - 92, &b), 1);
	assert_int_equal(a, 6 * NS + 1);
	assert_int_equal(a, b);
	assert_int_equal(nt_pcapng_track_at(&whole, p.n, &a), 1);
	assert_int_equal(nt_pcapng_track_at(&bytes, p.n, &b), 1);
	assert_int_equal(a, 7 * NS + 2);
	assert_int_equal(a, b);
	/* Asked again, or at a place no block ends: not known here. */
	assert_int_equal(nt_pcapng_track_at(&whole, p.n, &a), 0);
	nt_pcapng_track_fini(&whole);
	nt_pcapng_track_fini(&bytes);
}

static void test_tracker_ignores_pcap(void **state)
{
	static const uint8_t hdr[24] = { 0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0 };
	struct nt_pcapng_track t;
	int64_t ns;

	(void)state;
	assert_int_equal(nt_pcapng_track_init(&t), 0);
	nt_pcapng_track_feed(&t, hdr, sizeof(hdr));
	assert_int_equal(t.state, NT_PCAPNG_NO);
	assert_int_equal(nt_pcapng_track_at(&t, 24, &ns), 0);
	nt_pcapng_track_fini(&t);
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
		cmocka_unit_test(test_tracker_any_pieces),
		cmocka_unit_test(test_tracker_ignores_pcap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
