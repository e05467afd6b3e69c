// SPDX-License-Identifier: MIT
/*
 * blocks.c - growing blocks in power-of-two pools (see nt/model/blocks.h).
 *
 * The size class of a block is the smallest power of two, NT_BLOCKS_MIN at
 * least, that holds the bytes it was asked for; a caller says that size
 * again when the block grows or goes back, so a block carries no header.
 * A block that doubles moves to the next class: its contents are copied
 * once and its old block serves the next block of that size.
 */
#include <stdlib.h>
#include <string.h>

#include "nt/model/blocks.h"
#include "nt/pages.h"

void nt_blocks_init(struct nt_blocks *b, struct nt_arena *arena)
{
	for (int c = 0; c < NT_BLOCKS_CLASSES; c++)
		nt_pool_init(&b->size[c], arena, NT_BLOCKS_MIN << c);
}

#if NT_PAGES_ASAN

void *nt_blocks_resize(struct nt_blocks *b, void *p, size_t old_bytes, size_t new_bytes)
{
	(void)b;
	(void)old_bytes;
	return realloc(p, new_bytes);
}

void nt_blocks_put(struct nt_blocks *b, void *p, size_t bytes)
{
	(void)b;
	(void)bytes;
	free(p);
}

#else

/* The class of @bytes (at most NT_BLOCKS_MAX), or -1: the C library's. */
static int class_of(size_t bytes)
{
	int c = 0;

	if (bytes > NT_BLOCKS_MAX)
		return -1;
	while ((NT_BLOCKS_MIN << c) < bytes)
		c++;
	return c;
}

void *nt_blocks_resize(struct nt_blocks *b, void *p, size_t old_bytes, size_t new_bytes)
{
	int from = p ? class_of(old_bytes) : -1, to = class_of(new_bytes);
	void *q;

	if (p && from == to)
		return to < 0 ? realloc(p, new_bytes) : p;
	q = to < 0 ? malloc(new_bytes) : nt_pool_get(&b->size[to]);
	if (!q)
		return NULL;
	if (p) {
		memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
		nt_blocks_put(b, p, old_bytes);
	}
	return q;
}

void nt_blocks_put(struct nt_blocks *b, void *p, size_t bytes)
{
	int c = class_of(bytes);

	if (c < 0)
		free(p);
	else
		nt_pool_put(&b->size[c], p);
}

#endif

void nt_blocks_absorb(struct nt_blocks *b, struct nt_blocks *from)
{
	for (int c = 0; c < NT_BLOCKS_CLASSES; c++)
		nt_pool_absorb(&b->size[c], &from->size[c]);
}

void nt_blocks_fini(struct nt_blocks *b)
{
	for (int c = 0; c < NT_BLOCKS_CLASSES; c++)
		nt_pool_fini(&b->size[c]);
}
