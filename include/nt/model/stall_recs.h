/* SPDX-License-Identifier: MIT */
/*
 * stall_recs.h - every stall of a flow, kept packed for the reports that
 * list them all (analyze's JSON "stalls" and its JSON Lines "stall"
 * records).
 *
 * A stall is 56 bytes as the reports read it (struct nt_stall_rec) and some
 * 20 bytes as kept: each value a LEB128 varint of its difference from the
 * one before it (the ACK's time from H's, R's from the ACK's, H's from the
 * previous stall's H), zigzag-coded so that a difference below 0 stays
 * short. Half a million stalls (analyze at 10,000 flows of 50 rounds) took
 * 36 MB of blocks as they were, 18 MB packed (docs/performance.md). Any
 * values round-trip exactly: the differences are taken modulo 2^64.
 *
 * The records are in blocks of &nt_analysis.blocks, each size twice, then
 * the next (256, 512, 512, 1024, 1024 ... bytes; a record never spans two),
 * never moved and never copied. A new block is then at most about half of
 * the blocks before it, not as large as all of them: sizes that simply
 * doubled held the bench's 50 stalls a flow in 1,792 bytes, these in
 * 1,280, and its analyze --format json 58.4 -> 52.3 MB (docs/performance.md).
 * Never moved: records kept in one array that doubled had the array's old
 * copies for waste, and flows that stall in step all free their old arrays
 * at once.
 * A block starts its differences afresh, so it is read on its own.
 */
#ifndef NT_MODEL_STALL_RECS_H
#define NT_MODEL_STALL_RECS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/model/blocks.h"

/**
 * struct nt_stall_rec - one stall as every report lists it
 * @held_t_ns: H
 * @ack_t_ns: the late ACK
 * @release_t_ns: R
 * @held_frame: H's frame number
 * @ack_frame: the ACK's
 * @release_frame: R's
 * @held_len: H's payload bytes
 * @dir: direction of the held data (enum nt_dir)
 * @delack: the ACK delay's class (enum nt_delack_class)
 */
struct nt_stall_rec {
	int64_t held_t_ns;
	int64_t ack_t_ns;
	int64_t release_t_ns;
	uint64_t held_frame;
	uint64_t ack_frame;
	uint64_t release_frame;
	uint32_t held_len;
	uint8_t dir;
	uint8_t delack;
};

/*
 * A flow's first block: 256 bytes, some 11 stalls as analyze's bench
 * captures have them. Most flows that stall stall a few times; one that
 * stalls often soon has blocks its size.
 */
#define NT_STALL_RECS_FIRST_BLOCK (NT_BLOCKS_MIN * 4)

/* The most bytes a record packs into: six 64-bit varints, a 32-bit one, two bytes. */
#define NT_STALL_REC_PACKED_MAX (6 * 10 + 5 + 2)

/**
 * struct nt_stall_rec_block - some of a flow's stalls, packed, in the order
 * found
 * @next: the next block, NULL for the last
 * @used: bytes of @data packed, set when the next block starts; the last
 *        block's count is &nt_stall_recs.used
 * @cap: bytes @data holds
 * @index: the block's place in the chain, 0 for the first (its size's)
 * @data: the records
 */
struct nt_stall_rec_block {
	struct nt_stall_rec_block *next;
	uint32_t used;
	uint32_t cap;
	uint32_t index;
	uint8_t data[];
};

/**
 * struct nt_stall_recs - a flow's stalls
 * @head: the first block, NULL while none is kept
 * @tail: the last, where the next record goes
 * @used: bytes of @tail's data packed
 * @cap: bytes @tail's data holds
 * @last_held_t_ns: the last record's H, where the next one's difference
 *                  starts
 * @last_held_frame: the last record's H frame, likewise
 *
 * What adding a record reads and writes, but for the record's own bytes,
 * is here, in the flow's report, not in @tail: with thousands of flows
 * between one stall of a flow and its next, the block's first line is a
 * cache miss, and the address of the record's bytes waited on it (13 % of
 * analyze --format json --jobs 1 at 10,000 flows, docs/performance.md). The
 * report's lines are asked for frames ahead (analysis.c, REPORT_AHEAD).
 */
struct nt_stall_recs {
	struct nt_stall_rec_block *head;
	struct nt_stall_rec_block *tail;
	uint32_t used;
	uint32_t cap;
	int64_t last_held_t_ns;
	uint64_t last_held_frame;
};

/**
 * nt_stall_recs_block_bytes() - the size of a flow's block
 * @index: its place in the chain, 0 for the first
 *
 * Return: NT_STALL_RECS_FIRST_BLOCK, then each power of two twice (256,
 * 512, 512, 1024, 1024 ...), up to NT_BLOCKS_MAX.
 */
size_t nt_stall_recs_block_bytes(uint32_t index);

/**
 * nt_stall_recs_add() - keep one more stall
 * @l: the flow's stalls
 * @mem: the blocks to take memory from
 * @x: the stall
 *
 * Return: 0, or -ENOMEM (@l is left as it was).
 */
int nt_stall_recs_add(struct nt_stall_recs *l, struct nt_blocks *mem, const struct nt_stall_rec *x);

/**
 * nt_stall_recs_next_slot() - where the next record's bytes go, to prefetch
 * @l: the flow's stalls
 *
 * Return: the address in the last block, or NULL when a record might not
 * fit there (the next one may start a block).
 */
static inline const void *nt_stall_recs_next_slot(const struct nt_stall_recs *l)
{
	return l->tail && l->cap - l->used >= NT_STALL_REC_PACKED_MAX ? l->tail->data + l->used
								      : NULL;
}

/**
 * nt_stall_recs_any() - does @l keep a stall
 * @l: the flow's stalls
 *
 * Return: true when at least one is kept (a block is made for a record
 * and never left empty).
 */
static inline bool nt_stall_recs_any(const struct nt_stall_recs *l)
{
	return l->head != NULL;
}

/**
 * nt_stall_recs_free() - give the blocks back; @l is left empty
 * @l: the flow's stalls
 * @mem: the blocks they came from
 */
void nt_stall_recs_free(struct nt_stall_recs *l, struct nt_blocks *mem);

/**
 * struct nt_stall_recs_iter - a reader of a flow's stalls, in the order kept
 * @l: the flow's stalls
 * @b: the block being read
 * @off: the next record's offset in it
 * @prev: the record read last in @b (its H and H frame start the next
 *        record's differences)
 */
struct nt_stall_recs_iter {
	const struct nt_stall_recs *l;
	const struct nt_stall_rec_block *b;
	uint32_t off;
	struct nt_stall_rec prev;
};

/**
 * nt_stall_recs_begin() - start reading
 * @it: the reader
 * @l: the flow's stalls, unchanged while read
 */
void nt_stall_recs_begin(struct nt_stall_recs_iter *it, const struct nt_stall_recs *l);

/**
 * nt_stall_recs_next() - the next stall
 * @it: the reader
 *
 * Return: the stall (valid until the next call), or NULL after the last.
 */
const struct nt_stall_rec *nt_stall_recs_next(struct nt_stall_recs_iter *it);

#endif
