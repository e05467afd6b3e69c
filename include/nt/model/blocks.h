/* SPDX-License-Identifier: MIT */
/*
 * blocks.h - blocks of memory that grow, in power-of-two sizes, each size
 * a pool (nt/model/pool.h): a flow's stall durations and its stall
 * records, which double as its stalls come.
 *
 * From malloc() those arrays were 4 KiB pages faulted in one by one: 80 %
 * of analyze --format jsonl's page faults at 10,000 flows, 28 MB of stall
 * records. Here a pool's large chunks are huge pages where the kernel
 * offers them, and a block given back serves the next one of its size. A block of more than
 * NT_BLOCKS_MAX bytes is the C library's (rare: a flow with over a
 * thousand stalls kept). Under AddressSanitizer every block is the C
 * library's, of its exact size (nt/pages.h says why).
 */
#ifndef NT_MODEL_BLOCKS_H
#define NT_MODEL_BLOCKS_H

#include <stddef.h>

#include "nt/model/pool.h"

/* The sizes: 64 bytes (a cache line), 128, ... up to NT_BLOCKS_MAX. */
#define NT_BLOCKS_MIN	  ((size_t)64)
#define NT_BLOCKS_CLASSES 11
#define NT_BLOCKS_MAX	  (NT_BLOCKS_MIN << (NT_BLOCKS_CLASSES - 1))

/**
 * struct nt_blocks - the blocks' pools
 * @size: one pool per size, NT_BLOCKS_MIN << index bytes
 */
struct nt_blocks {
	struct nt_pool size[NT_BLOCKS_CLASSES];
};

/**
 * nt_blocks_init() - no blocks yet
 * @b: the blocks
 * @arena: where the pools' small chunks come from (nt_pool_init()), NULL:
 *         the C library
 */
void nt_blocks_init(struct nt_blocks *b, struct nt_arena *arena);

/**
 * nt_blocks_resize() - realloc() for a block of these
 * @b: the blocks
 * @p: the block, NULL for none
 * @old_bytes: the size it was asked for with (0 with NULL)
 * @new_bytes: the size wanted, more than 0
 *
 * Return: the block, holding @p's first min(@old_bytes, @new_bytes) bytes
 * (@p is given back), or NULL when memory ran out (@p is left as it was).
 */
void *nt_blocks_resize(struct nt_blocks *b, void *p, size_t old_bytes, size_t new_bytes);

/**
 * nt_blocks_put() - give a block back
 * @b: the blocks it came from (or that absorbed them)
 * @p: the block; NULL is a no-op
 * @bytes: the size it was asked for with
 */
void nt_blocks_put(struct nt_blocks *b, void *p, size_t bytes);

/**
 * nt_blocks_absorb() - take over every block of another set
 * @b: the blocks
 * @from: blocks whose memory becomes @b's; left empty
 */
void nt_blocks_absorb(struct nt_blocks *b, struct nt_blocks *from);

/**
 * nt_blocks_fini() - give all the memory back; safe on a zeroed set
 * @b: the blocks (every block is gone with it)
 */
void nt_blocks_fini(struct nt_blocks *b);

#endif
