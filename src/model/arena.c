// SPDX-License-Identifier: MIT
/*
 * arena.c - chunks cut from shared regions (see nt/model/arena.h).
 *
 * A region begins with its header, on a line of its own, as a pool's
 * chunk does (pool.c), and is handed out from its start up.
 */
#include <stdint.h>

#include "nt/model/arena.h"
#include "nt/pages.h"

/**
 * struct nt_arena_region - a region's header, at its start
 * @mem: where the region came from (nt_pages_block_new())
 * @next: the next older region
 */
struct nt_arena_region {
	struct nt_pages_block mem;
	struct nt_arena_region *next;
};

#define HEAD_BYTES nt_round_up(sizeof(struct nt_arena_region), NT_PAGES_ALIGN)

/* A new region for a chunk of @bytes: the next size, or twice it until the chunk fits. */
static int add_region(struct nt_arena *a, size_t bytes)
{
	size_t size = a->region_bytes ? a->region_bytes : NT_ARENA_FIRST;
	struct nt_pages_block mem;
	struct nt_arena_region *r;

	if (bytes > SIZE_MAX / 2 - HEAD_BYTES - NT_PAGES_HUGE)
		return -1;
	while (size < HEAD_BYTES + bytes)
		size *= 2;
	if (size >= NT_PAGES_HUGE)
		size = nt_round_up(size, NT_PAGES_HUGE);
	r = nt_pages_block_new(&mem, size);
	if (!r)
		return -1;
	r->mem = mem;
	r->next = a->regions;
	a->regions = r;
	a->next = (char *)r + HEAD_BYTES;
	a->left = size - HEAD_BYTES;
	a->region_bytes = size < NT_PAGES_HUGE / NT_ARENA_GROWTH ? NT_ARENA_GROWTH * size
								 : NT_PAGES_HUGE;
	return 0;
}

void *nt_arena_get(struct nt_arena *a, size_t bytes)
{
	void *p;

	if (!bytes || bytes > SIZE_MAX / 2)
		return NULL;
	bytes = nt_round_up(bytes, NT_PAGES_ALIGN);
	if (a->left < bytes && add_region(a, bytes) < 0)
		return NULL;
	p = a->next;
	a->next += bytes;
	a->left -= bytes;
	return p;
}

void nt_arena_absorb(struct nt_arena *a, struct nt_arena *from)
{
	/* @from's regions go after @a's newest, which @a keeps handing out from. */
	struct nt_arena_region **tail = &from->regions;

	if (!from->regions)
		return;
	while (*tail)
		tail = &(*tail)->next;
	if (a->regions) {
		*tail = a->regions->next;
		a->regions->next = from->regions;
	} else {
		a->regions = from->regions;
	}
	*from = (struct nt_arena){ 0 };
}

void nt_arena_fini(struct nt_arena *a)
{
	while (a->regions) {
		struct nt_arena_region *r = a->regions;
		struct nt_pages_block mem = r->mem;

		a->regions = r->next;
		nt_pages_block_free(&mem);
	}
	*a = (struct nt_arena){ 0 };
}
