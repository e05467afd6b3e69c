// SPDX-License-Identifier: MIT
/*
 * test_stall_recs.c - a flow's stalls, packed (nt/model/stall_recs.h): every
 * value comes back as it went in, in order, across blocks, at the extremes
 * of its type (differences that wrap, times before 0, frames near 2^64);
 * a stall as analyze's captures have them packs into about a third of its
 * 56 bytes; blocks double and a record never spans two; freeing empties.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/blocks.h"
#include "nt/model/stall_recs.h"

static void assert_rec_equal(const struct nt_stall_rec *a, const struct nt_stall_rec *b)
{
	assert_int_equal(a->held_t_ns, b->held_t_ns);
	assert_int_equal(a->ack_t_ns, b->ack_t_ns);
	assert_int_equal(a->release_t_ns, b->release_t_ns);
	assert_int_equal(a->held_frame, b->held_frame);
	assert_int_equal(a->ack_frame, b->ack_frame);
	assert_int_equal(a->release_frame, b->release_frame);
	assert_int_equal(a->held_len, b->held_len);
	assert_int_equal(a->dir, b->dir);
	assert_int_equal(a->delack, b->delack);
}

/* Keeps @n records, reads them back, frees them: each must come back as it went. */
static void round_trip(const struct nt_stall_rec *recs, size_t n)
{
	struct nt_blocks mem;
	struct nt_stall_recs l = { 0 };
	struct nt_stall_recs_iter it;
	const struct nt_stall_rec *x;

	nt_blocks_init(&mem, NULL);
	assert_false(nt_stall_recs_any(&l));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(nt_stall_recs_add(&l, &mem, &recs[i]), 0);
	assert_true(nt_stall_recs_any(&l) == (n > 0));
	nt_stall_recs_begin(&it, &l);
	for (size_t k = 0; k < n; k++) {
		x = nt_stall_recs_next(&it);
		assert_non_null(x);
		assert_rec_equal(x, &recs[k]);
	}
	assert_null(nt_stall_recs_next(&it));
	nt_stall_recs_free(&l, &mem);
	assert_null(l.head);
	assert_null(l.tail);
	nt_blocks_fini(&mem);
}

static void test_none(void **state)
{
	const struct nt_stall_rec none[1] = { 0 };

	(void)state;
	round_trip(none, 0);
}

/* Every value at its type's ends, one after another: the differences wrap both ways. */
static void test_extremes(void **state)
{
	static const int64_t times[] = { INT64_MIN, INT64_MAX, -1, 0, 1, INT64_MIN + 1 };
	static const uint64_t frames[] = { UINT64_MAX, 0, 1, UINT64_MAX - 1, (uint64_t)INT64_MAX };
	struct nt_stall_rec recs[6 * 6 * 5];
	size_t n = 0;

	(void)state;
	for (size_t a = 0; a < 6; a++)
		for (size_t b = 0; b < 6; b++)
			for (size_t f = 0; f < 5; f++, n++)
				recs[n] = (struct nt_stall_rec){
					.held_t_ns = times[a],
					.ack_t_ns = times[b],
					.release_t_ns = times[(a + b) % 6],
					.held_frame = frames[f],
					.ack_frame = frames[(f + a) % 5],
					.release_frame = frames[(f + b) % 5],
					.held_len = (uint32_t)(n % 2 ? UINT32_MAX : n),
					.dir = (uint8_t)(n % 2),
					.delack = (uint8_t)(n % 2 ? UINT8_MAX : n % 3),
				};
	round_trip(recs, n);
}

/* A stall of analyze's bench captures (tests/tools/mkcap.c, bench): 100 ms apart, 40 ms late. */
static struct nt_stall_rec bench_rec(size_t i)
{
	int64_t h = 1700000001000000000LL + (int64_t)i * 100000000;
	uint64_t frame = 30001 + i * 40000;

	return (struct nt_stall_rec){
		.held_t_ns = h,
		.ack_t_ns = h + 40000000,
		.release_t_ns = h + 40020000,
		.held_frame = frame,
		.ack_frame = frame + 8000,
		.release_frame = frame + 8008,
		.held_len = 4,
		.dir = 0,
		.delack = 1,
	};
}

/* Many records: several blocks, each twice the last up to the largest, none split. */
static void test_many_across_blocks(void **state)
{
	enum { N = 20000 };
	static struct nt_stall_rec recs[N];
	struct nt_blocks mem;
	struct nt_stall_recs l = { 0 };
	size_t blocks = 0, bytes = 0;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		recs[i] = bench_rec(i);
		/* Now and then a stall of the other direction, found earlier: H goes back. */
		if (i % 7 == 3)
			recs[i].held_t_ns -= 250000000;
	}
	round_trip(recs, N);

	nt_blocks_init(&mem, NULL);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(nt_stall_recs_add(&l, &mem, &recs[i]), 0);
	for (const struct nt_stall_rec_block *b = l.head, *prev = NULL; b; prev = b, b = b->next) {
		size_t size = sizeof(*b) + b->cap;
		/* The last block's count is the list's (nt/model/stall_recs.h). */
		uint32_t used = b->next ? b->used : l.used;

		assert_int_equal(b->index, blocks);
		assert_int_equal(size, nt_stall_recs_block_bytes(b->index));
		/* Each size twice: the same as the last, or twice it, up to the largest. */
		if (prev)
			assert_true(size == sizeof(*prev) + prev->cap ||
				    size == 2 * (sizeof(*prev) + prev->cap));
		assert_true(used > 0 && used <= b->cap);
		/* Full: the next record did not fit. */
		if (b->next)
			assert_true(b->cap - used < NT_STALL_REC_PACKED_MAX);
		blocks++;
		bytes += size;
		if (!b->next)
			assert_ptr_equal(b, l.tail);
	}
	assert_true(blocks > 3);
	/* About 20 bytes a stall, blocks' slack included: under half of 56. */
	assert_true(bytes < N * sizeof(struct nt_stall_rec) / 2);
	nt_stall_recs_free(&l, &mem);
	nt_blocks_fini(&mem);
}

/* A flow of the bench's 50 stalls: packed into 1.25 KiB (256 + 512 + 512), where 56-byte records took 3.5. */
static void test_bench_flow_size(void **state)
{
	struct nt_blocks mem;
	struct nt_stall_recs l = { 0 };
	size_t bytes = 0;

	(void)state;
	nt_blocks_init(&mem, NULL);
	for (size_t i = 0; i < 50; i++) {
		struct nt_stall_rec x = bench_rec(i);

		assert_int_equal(nt_stall_recs_add(&l, &mem, &x), 0);
	}
	for (const struct nt_stall_rec_block *b = l.head; b; b = b->next)
		bytes += sizeof(*b) + b->cap;
	assert_int_equal(bytes, NT_STALL_RECS_FIRST_BLOCK * (1 + 2 + 2));
	assert_non_null(nt_stall_recs_next_slot(&l));
	nt_stall_recs_free(&l, &mem);
	nt_blocks_fini(&mem);
}

/* The sizes: each twice, from the first up to the largest, and the largest after. */
static void test_block_sizes(void **state)
{
	(void)state;
	assert_int_equal(nt_stall_recs_block_bytes(0), NT_STALL_RECS_FIRST_BLOCK);
	assert_int_equal(nt_stall_recs_block_bytes(1), 2 * NT_STALL_RECS_FIRST_BLOCK);
	assert_int_equal(nt_stall_recs_block_bytes(2), 2 * NT_STALL_RECS_FIRST_BLOCK);
	assert_int_equal(nt_stall_recs_block_bytes(3), 4 * NT_STALL_RECS_FIRST_BLOCK);
	assert_int_equal(nt_stall_recs_block_bytes(4), 4 * NT_STALL_RECS_FIRST_BLOCK);
	assert_int_equal(nt_stall_recs_block_bytes(5), 8 * NT_STALL_RECS_FIRST_BLOCK);
	for (uint32_t i = 1; i < 64; i++) {
		size_t a = nt_stall_recs_block_bytes(i - 1), b = nt_stall_recs_block_bytes(i);

		assert_true(b == a || b == 2 * a);
		assert_true(b <= NT_BLOCKS_MAX);
	}
	assert_int_equal(nt_stall_recs_block_bytes(40), NT_BLOCKS_MAX);
	assert_int_equal(nt_stall_recs_block_bytes(UINT32_MAX - 1), NT_BLOCKS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_many_across_blocks),
		cmocka_unit_test(test_bench_flow_size),
		cmocka_unit_test(test_block_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
