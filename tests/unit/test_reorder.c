// SPDX-License-Identifier: MIT
/*
 * test_reorder.c - segments out of order (nt/model/reorder.h), clause by
 * clause of the rule: below the highest and soon after it, and not a
 * retransmission of any of the kinds Wireshark tells apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "nt/model/event.h"
#include "nt/model/reorder.h"
#include "nt/model/tcp.h"

#define US 1000LL
#define MS 1000000LL

/* The counter, both parts. */
struct counter {
	struct nt_reorder r;
	struct nt_reorder_rare rare;
};

static void init(struct counter *c)
{
	nt_reorder_init(&c->r, &c->rare);
}

static bool seg(struct counter *r, int64_t t, int dir, uint8_t flags, uint32_t seq, uint32_t ack,
		uint32_t len)
{
	const struct nt_reorder_seg s = {
		.t_ns = t, .dir = dir, .flags = flags, .seq = seq, .ack = ack, .len = len
	};

	return nt_reorder_segment(&r->r, &r->rare, &s);
}

/* A handshake whose round trip at the capture point is @rtt: client ISN 0, target ISN 0. */
static void handshake(struct counter *r, int64_t rtt)
{
	init(r);
	seg(r, 0, NT_DIR_C2T, NT_TCP_SYN, 0, 0, 0);
	seg(r, rtt / 2, NT_DIR_T2C, NT_TCP_SYN | NT_TCP_ACK, 0, 1, 0);
	seg(r, rtt, NT_DIR_C2T, NT_TCP_ACK, 1, 1, 0);
}

static void test_swapped_within_the_round_trip(void **state)
{
	struct counter r;

	(void)state;
	handshake(&r, 2 * MS);
	assert_false(seg(&r, 10 * MS, NT_DIR_C2T, NT_TCP_ACK, 1, 1, 100));
	assert_false(seg(&r, 10 * MS + 50 * US, NT_DIR_C2T, NT_TCP_ACK, 201, 1, 100));
	assert_true(seg(&r, 10 * MS + 100 * US, NT_DIR_C2T, NT_TCP_ACK, 101, 1, 100));
	assert_int_equal(r.rare.out_of_order[NT_DIR_C2T], 1);
	assert_int_equal(r.rare.out_of_order[NT_DIR_T2C], 0);
	assert_int_equal(r.rare.rtt_ns, 2 * MS);
}

static void test_late_is_a_retransmission(void **state)
{
	struct counter r;

	(void)state;
	handshake(&r, 2 * MS);
	seg(&r, 10 * MS, NT_DIR_C2T, NT_TCP_ACK, 201, 1, 100);
	/* 3 ms after the highest: past the 2 ms round trip. */
	assert_false(seg(&r, 13 * MS, NT_DIR_C2T, NT_TCP_ACK, 101, 1, 100));
	/* Without a handshake the window is 3 ms: 2.9 ms is still out of order. */
	init(&r);
	seg(&r, 10 * MS, NT_DIR_C2T, NT_TCP_ACK, 201, 1, 100);
	assert_true(seg(&r, 12900 * US, NT_DIR_C2T, NT_TCP_ACK, 101, 1, 100));
}

static void test_retransmissions_told_apart(void **state)
{
	struct counter r;

	(void)state;
	handshake(&r, 2 * MS);
	seg(&r, 10 * MS, NT_DIR_C2T, NT_TCP_ACK, 1, 1, 100);
	seg(&r, 10 * MS + 10 * US, NT_DIR_C2T, NT_TCP_ACK, 101, 1, 100);
	/* The same tail again. */
	assert_false(seg(&r, 10 * MS + 20 * US, NT_DIR_C2T, NT_TCP_ACK, 101, 1, 100));
	/* Spurious: the target acknowledged the first 100 bytes. */
	seg(&r, 10 * MS + 30 * US, NT_DIR_T2C, NT_TCP_ACK, 1, 101, 0);
	assert_false(seg(&r, 10 * MS + 40 * US, NT_DIR_C2T, NT_TCP_ACK, 1, 1, 100));
	/* A fast retransmit: 201 lost, 301 and 401 arrive, two duplicate ACKs of 201. */
	seg(&r, 11 * MS, NT_DIR_C2T, NT_TCP_ACK, 301, 1, 100);
	seg(&r, 11 * MS + 10 * US, NT_DIR_C2T, NT_TCP_ACK, 401, 1, 100);
	seg(&r, 11 * MS + 20 * US, NT_DIR_T2C, NT_TCP_ACK, 1, 201, 0);
	seg(&r, 11 * MS + 30 * US, NT_DIR_T2C, NT_TCP_ACK, 1, 201, 0);
	seg(&r, 11 * MS + 40 * US, NT_DIR_T2C, NT_TCP_ACK, 1, 201, 0);
	assert_false(seg(&r, 11 * MS + 50 * US, NT_DIR_C2T, NT_TCP_ACK, 201, 1, 100));
	assert_int_equal(r.rare.out_of_order[NT_DIR_C2T], 0);
}

static void test_keepalive_and_pure_acks(void **state)
{
	struct counter r;

	(void)state;
	handshake(&r, 2 * MS);
	seg(&r, 10 * MS, NT_DIR_C2T, NT_TCP_ACK, 1, 1, 100);
	/* A keep-alive: one byte, one below the highest. */
	assert_false(seg(&r, 10 * MS + 10 * US, NT_DIR_C2T, NT_TCP_ACK, 100, 1, 1));
	/* A pure ACK carries no sequence space. */
	assert_false(seg(&r, 10 * MS + 20 * US, NT_DIR_C2T, NT_TCP_ACK, 1, 1, 0));
	assert_int_equal(r.rare.out_of_order[NT_DIR_C2T], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swapped_within_the_round_trip),
		cmocka_unit_test(test_late_is_a_retransmission),
		cmocka_unit_test(test_retransmissions_told_apart),
		cmocka_unit_test(test_keepalive_and_pure_acks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
