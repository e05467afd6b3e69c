// SPDX-License-Identifier: MIT
/*
 * test_wire.c - the delay line's pure part (FIFO, deadlines, histogram) with
 * made-up times, and the forwarder's set-up errors in a fresh namespace.
 * The forwarding itself is exercised end to end by
 * tests/integration/test_wire.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "nt/lab/wire.h"
#include "nt/lab/wire_queue.h"
#include "test_netns.h"

static void test_init_rejects_zero_sizes(void **state)
{
	struct nt_wire_queue q;
	(void)state;

	assert_int_equal(nt_wire_queue_init(&q, 0, 64), -EINVAL);
	assert_null(q.slots);
	assert_int_equal(nt_wire_queue_init(&q, 4, 0), -EINVAL);
	nt_wire_queue_fini(&q);
	nt_wire_queue_fini(&q);
}

/* Write @tag into the tail slot and commit it with @deadline_ns. */
static int64_t push(struct nt_wire_queue *q, uint8_t tag, uint32_t len, int64_t deadline_ns)
{
	uint8_t *slot = nt_wire_queue_tail(q);

	assert_non_null(slot);
	memset(slot, tag, len);
	return nt_wire_queue_commit(q, len, deadline_ns);
}

/* Pop the head, checking its bytes and deadline. */
static void pop_expect(struct nt_wire_queue *q, uint8_t tag, uint32_t len, int64_t deadline_ns)
{
	const uint8_t *data = NULL;
	const struct nt_wire_slot *s = nt_wire_queue_head(q, &data);

	assert_non_null(s);
	assert_int_equal(s->len, len);
	assert_int_equal(s->deadline_ns, deadline_ns);
	for (uint32_t i = 0; i < len; i++)
		assert_int_equal(data[i], tag);
	nt_wire_queue_pop(q);
}

static void test_fifo_and_full(void **state)
{
	struct nt_wire_queue q;
	const uint8_t *data;
	(void)state;

	assert_int_equal(nt_wire_queue_init(&q, 3, 16), 0);
	assert_true(nt_wire_queue_is_empty(&q));
	assert_null(nt_wire_queue_head(&q, &data));
	push(&q, 0xa1, 16, 100);
	push(&q, 0xa2, 1, 200);
	push(&q, 0xa3, 7, 300);
	assert_true(nt_wire_queue_is_full(&q));
	/* A full queue offers no slot: the caller counts a tail drop. */
	assert_null(nt_wire_queue_tail(&q));
	pop_expect(&q, 0xa1, 16, 100);
	push(&q, 0xa4, 5, 400);
	pop_expect(&q, 0xa2, 1, 200);
	pop_expect(&q, 0xa3, 7, 300);
	pop_expect(&q, 0xa4, 5, 400);
	assert_true(nt_wire_queue_is_empty(&q));
	nt_wire_queue_pop(&q);
	assert_true(nt_wire_queue_is_empty(&q));
	nt_wire_queue_fini(&q);
}

/* Many laps around a small ring: order and contents survive every wrap. */
static void test_wraps_in_order(void **state)
{
	struct nt_wire_queue q;
	int64_t next_pop = 0;
	(void)state;

	assert_int_equal(nt_wire_queue_init(&q, 5, 8), 0);
	for (int64_t i = 0; i < 1000; i++) {
		push(&q, (uint8_t)i, (uint32_t)(i % 8) + 1, i);
		/* Keep between one and four frames queued, popping unevenly. */
		while (q.count > (uint32_t)(i % 4) + 1) {
			pop_expect(&q, (uint8_t)next_pop, (uint32_t)(next_pop % 8) + 1, next_pop);
			next_pop++;
		}
	}
	while (!nt_wire_queue_is_empty(&q)) {
		pop_expect(&q, (uint8_t)next_pop, (uint32_t)(next_pop % 8) + 1, next_pop);
		next_pop++;
	}
	assert_int_equal(next_pop, 1000);
	nt_wire_queue_fini(&q);
}

/*
 * A queue that empties starts again at its first slot: a steady frame or two
 * in flight touch two slots' pages, not the whole ring's.
 */
static void test_empty_queue_reuses_first_slots(void **state)
{
	struct nt_wire_queue q;
	uint8_t *first;
	(void)state;

	assert_int_equal(nt_wire_queue_init(&q, 64, 32), 0);
	first = nt_wire_queue_tail(&q);
	for (int64_t i = 0; i < 200; i++) {
		uint8_t *slot = nt_wire_queue_tail(&q);

		assert_ptr_equal(slot, first);
		push(&q, (uint8_t)i, 32, 2 * i);
		/* A second frame while the first waits takes the next slot, no further. */
		assert_ptr_equal(nt_wire_queue_tail(&q), first + 32);
		push(&q, (uint8_t)(i + 1), 32, 2 * i + 1);
		pop_expect(&q, (uint8_t)i, 32, 2 * i);
		/* Not empty yet: the head moves on, the order holds. */
		assert_ptr_equal(nt_wire_queue_tail(&q), first + (ptrdiff_t)2 * 32);
		pop_expect(&q, (uint8_t)(i + 1), 32, 2 * i + 1);
		assert_true(nt_wire_queue_is_empty(&q));
	}
	nt_wire_queue_fini(&q);
}

/* A frame stamped earlier than the one ahead of it still leaves after it. */
static void test_deadlines_never_decrease(void **state)
{
	struct nt_wire_queue q;
	(void)state;

	assert_int_equal(nt_wire_queue_init(&q, 4, 4), 0);
	assert_int_equal(push(&q, 1, 1, 5000), 5000);
	assert_int_equal(push(&q, 2, 1, 4000), 5000);
	assert_int_equal(push(&q, 3, 1, 6000), 6000);
	pop_expect(&q, 1, 1, 5000);
	pop_expect(&q, 2, 1, 5000);
	pop_expect(&q, 3, 1, 6000);
	/* The floor outlives an empty queue: a late stamp never jumps ahead of a sent frame. */
	assert_int_equal(push(&q, 4, 1, 1), 6000);
	nt_wire_queue_fini(&q);
}

static void test_deadline_from_kernel_stamp(void **state)
{
	(void)state;
	/* Received 500 ns before we read the clocks: the deadline is 500 ns before now + delay. */
	assert_int_equal(nt_wire_deadline_ns(1000000, 1000500, 7000000, 300000), 7299500);
	/* Wall clock and monotonic clock far apart: only the frame's age carries over. */
	assert_int_equal(nt_wire_deadline_ns(1700000000000000000LL, 1700000000002000000LL, 50000000,
					     10000000),
			 58000000);
	/* A stamp in the future (wall clock stepped back since): age 0, not negative. */
	assert_int_equal(nt_wire_deadline_ns(2000, 1000, 5000, 100), 5100);
	/* A frame older than the delay is already due. */
	assert_true(nt_wire_deadline_ns(0, 10000, 20000, 5000) < 20000);
}

static void test_hist_buckets(void **state)
{
	struct nt_wire_hist h;
	(void)state;

	memset(&h, 0, sizeof(h));
	nt_wire_hist_add(&h, 0);
	nt_wire_hist_add(&h, 999);
	nt_wire_hist_add(&h, -5); /* counted as 0 */
	nt_wire_hist_add(&h, 1000);
	nt_wire_hist_add(&h, 1999);
	nt_wire_hist_add(&h, 2000);
	nt_wire_hist_add(&h, INT64_MAX / 2);
	assert_int_equal(h.bucket[0], 3);
	assert_int_equal(h.bucket[1], 2);
	assert_int_equal(h.bucket[2], 1);
	assert_int_equal(h.bucket[NT_WIRE_HIST_BUCKETS - 1], 1);
	assert_int_equal(h.count, 7);
	assert_int_equal(h.min_ns, 0);
	assert_int_equal(h.max_ns, INT64_MAX / 2);
	assert_int_equal(h.sum_ns, 0 + 999 + 0 + 1000 + 1999 + 2000 + INT64_MAX / 2);
}

static void test_hist_quantiles(void **state)
{
	struct nt_wire_hist h;
	(void)state;

	memset(&h, 0, sizeof(h));
	assert_int_equal(nt_wire_hist_quantile_ns(&h, 0.5), 0);
	/* 90 values of 3 us (bucket [2, 4) us), 10 of 50 us (bucket [32, 64) us). */
	for (int i = 0; i < 90; i++)
		nt_wire_hist_add(&h, 3000);
	for (int i = 0; i < 10; i++)
		nt_wire_hist_add(&h, 50000);
	assert_int_equal(nt_wire_hist_quantile_ns(&h, 0.5), 4000);
	assert_int_equal(nt_wire_hist_quantile_ns(&h, 0.9), 4000);
	/* The 91st value is in the upper bucket; its edge (64 us) is clamped to the max. */
	assert_int_equal(nt_wire_hist_quantile_ns(&h, 0.91), 50000);
	assert_int_equal(nt_wire_hist_quantile_ns(&h, 1.0), 50000);
	assert_int_equal(nt_wire_hist_quantile_ns(&h, 7.0), 50000);
	assert_int_equal(nt_wire_hist_quantile_ns(&h, -1.0), 4000);
}

static void test_close_zeroed(void **state)
{
	struct nt_wire w;
	struct nt_wire_stats st;
	(void)state;

	memset(&w, 0, sizeof(w));
	nt_wire_close(&w);
	nt_wire_close(&w);
	assert_false(w.is_open);
	assert_int_equal(nt_wire_stats(&w, &st, NULL), 0);
	assert_int_equal(nt_wire_dropped(&st), 0);
}

/*
 * nt_wire_open() on links that do not exist, in a fresh network namespace:
 * it fails, says which link, and leaves the wire closed (1 when it does not).
 */
static int open_missing_link(struct nt_err *err)
{
	const struct nt_wire_config cfg = {
		.client_ifname = "nt-nope",
		.client_ifindex = 999999,
		.target_ifname = "nt-nope2",
		.target_ifindex = 999998,
		.delay_ns = { 1000, 1000 },
	};
	struct nt_wire w;
	int ret = nt_wire_open(&w, &cfg, err);

	if (w.is_open)
		ret = 1;
	nt_wire_close(&w);
	return ret;
}

static void test_open_missing_link(void **state)
{
	struct nt_err err = { { 0 } };
	int ret = 0;

	(void)state;
	run_in_fresh_netns(open_missing_link, &ret, &err);
	assert_int_equal(ret, -ENODEV);
	assert_string_equal(err.msg, "wire: read the MTU of nt-nope: No such device");
}

/*
 * what this checks: the lateness log finds a segment by its TCP header, the
 * first transmission where a retransmission repeats it, and forgets the
 * oldest once NT_WIRE_LATE_LOG newer ones came
 */
static void test_late_log(void **state)
{
	static struct nt_wire_late_log log;
	struct nt_wire_late h = { .seq = 1001, .ack = 7001, .len = 4, .flags = 0x18 };
	struct nt_wire_late a = { .seq = 7001, .ack = 1005, .len = 0, .flags = 0x10 };

	(void)state;
	assert_int_equal(nt_wire_late_find(&log, &h), -1);
	h.late_ns = 14000000;
	nt_wire_late_add(&log, &h);
	a.late_ns = 0;
	nt_wire_late_add(&log, &a);
	h.late_ns = 3; /* its retransmission */
	nt_wire_late_add(&log, &h);
	assert_int_equal(nt_wire_late_find(&log, &h), 14000000);
	assert_int_equal(nt_wire_late_find(&log, &a), 0);
	/* another flag, length or number is another segment */
	a.flags = 0x11;
	assert_int_equal(nt_wire_late_find(&log, &a), -1);
	a.flags = 0x10;
	a.len = 1;
	assert_int_equal(nt_wire_late_find(&log, &a), -1);
	a.len = 0;
	for (uint32_t i = 0; i < NT_WIRE_LATE_LOG - 1; i++) {
		struct nt_wire_late e = { .seq = 9000 + i, .ack = 1, .late_ns = i };

		nt_wire_late_add(&log, &e);
	}
	/* the two oldest are overwritten; the retransmission, newer, is still held */
	assert_int_equal(nt_wire_late_find(&log, &h), 3);
	assert_int_equal(nt_wire_late_find(&log, &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects_zero_sizes),
		cmocka_unit_test(test_late_log),
		cmocka_unit_test(test_fifo_and_full),
		cmocka_unit_test(test_wraps_in_order),
		cmocka_unit_test(test_empty_queue_reuses_first_slots),
		cmocka_unit_test(test_deadlines_never_decrease),
		cmocka_unit_test(test_deadline_from_kernel_stamp),
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_hist_quantiles),
		cmocka_unit_test(test_close_zeroed),
		cmocka_unit_test(test_open_missing_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
