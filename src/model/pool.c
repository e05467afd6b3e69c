// SPDX-License-Identifier: MIT
/*
 * pool.c - objects of one size in chunks of pages (see nt/model/pool.h).
 *
 * A chunk begins with its own header, on a line of its own, and its objects
 * follow (add_chunk() says how many): a pool of a few objects takes a few
 * pages, a large one whole huge pages. Objects handed out from a chunk are
 * zero already (fresh pages, or calloc()'s); one given back is cleared when
 * it is handed out again.
 */
#include <stdlib.h>
#include <string.h>

#include "nt/model/arena.h"
#include "nt/model/pool.h"
#include "nt/pages.h"

#define POOL_FIRST_OBJS 32u

/**
 * struct nt_pool_chunk - a chunk's header, at its start
 * @mem: where the chunk came from (nt_pages_block_new()); empty for a
 *       chunk of the pool's arena, which gives it back
 * @next: the next older chunk
 */
struct nt_pool_chunk {
	struct nt_pages_block mem;
	struct nt_pool_chunk *next;
};

#define HEAD_BYTES nt_round_up(sizeof(struct nt_pool_chunk), NT_PAGES_ALIGN)

void nt_pool_init(struct nt_pool *pl, struct nt_arena *arena, size_t obj_bytes)
{
	*pl = (struct nt_pool){
		.arena = arena,
		.size = obj_bytes,
		.obj_bytes = nt_round_up(obj_bytes, NT_PAGES_ALIGN),
		.chunk_objs = POOL_FIRST_OBJS,
	};
}

#if NT_PAGES_ASAN

/*
 * Sanitized, every object is an allocation of its own, of its own size, so
 * that a write past its end meets a redzone (nt/pages.h); the pool holds
 * none of them.
 */
void *nt_pool_get(struct nt_pool *pl)
{
	void *obj = calloc(1, pl->size);

	pl->live += obj != NULL;
	return obj;
}

void nt_pool_put(struct nt_pool *pl, void *obj)
{
	pl->live -= obj != NULL;
	free(obj);
}

void nt_pool_absorb(struct nt_pool *pl, struct nt_pool *from)
{
	pl->live += from->live;
	nt_pool_init(from, from->arena, from->size);
}

void nt_pool_fini(struct nt_pool *pl)
{
	nt_pool_init(pl, pl->arena, pl->size);
}

#else

/*
 * A chunk of @bytes, its header filled: a huge page or more in pages of its
 * own; less from @arena (nt/model/arena.h), or without one from the C
 * library (nt_pages_block_new()), for the few reports of each of many small
 * files that an analysis absorbs (nt_analysis_absorb()).
 */
static struct nt_pool_chunk *chunk_new(struct nt_arena *arena, size_t bytes, size_t *held)
{
	struct nt_pages_block mem = { 0 };
	struct nt_pool_chunk *c;

	if (arena && bytes < NT_PAGES_HUGE)
		c = nt_arena_get(arena, bytes);
	else
		c = nt_pages_block_new(&mem, bytes);
	if (!c)
		return NULL;
	*c = (struct nt_pool_chunk){ .mem = mem };
	*held = mem.pages.p ? mem.pages.mapped : bytes;
	return c;
}

static void chunk_free(struct nt_pool_chunk *c)
{
	struct nt_pages_block mem = c->mem;

	nt_pages_block_free(&mem); /* empty for the arena's: nothing */
}

/*
 * The first chunk holds POOL_FIRST_OBJS objects and each next one twice as
 * many; one of half a huge page or more is whole huge pages, and each after
 * it holds as many objects as that one.
 */
static int add_chunk(struct nt_pool *pl)
{
	size_t bytes = HEAD_BYTES + pl->chunk_objs * pl->obj_bytes, held;
	struct nt_pool_chunk *c;

	if (bytes >= NT_PAGES_HUGE / 2)
		bytes = nt_round_up(bytes, NT_PAGES_HUGE);
	c = chunk_new(pl->arena, bytes, &held);
	if (!c)
		return -1;
	c->next = pl->chunks;
	pl->chunks = c;
	pl->next = (char *)c + HEAD_BYTES;
	pl->left = (held - HEAD_BYTES) / pl->obj_bytes;
	if (bytes < NT_PAGES_HUGE / 2)
		pl->chunk_objs *= 2;
	else
		pl->chunk_objs = pl->left;
	return 0;
}

void *nt_pool_get(struct nt_pool *pl)
{
	void *obj = pl->free;

	if (obj) {
		memcpy(&pl->free, obj, sizeof(pl->free));
		pl->live++;
		return memset(obj, 0, pl->obj_bytes);
	}
	if (!pl->left && add_chunk(pl) < 0)
		return NULL;
	obj = pl->next;
	pl->next += pl->obj_bytes;
	pl->left--;
	pl->live++;
	return obj;
}

void nt_pool_put(struct nt_pool *pl, void *obj)
{
	if (!obj)
		return;
	memcpy(obj, &pl->free, sizeof(pl->free));
	pl->free = obj;
	pl->live--;
}

/* The objects @from never handed out stay unused: at most one chunk's rest. */
void nt_pool_absorb(struct nt_pool *pl, struct nt_pool *from)
{
	/*
	 * @from's chunks go before @pl's, so that only @from's list is walked:
	 * one file's few chunks, where @pl may hold those of thousands of
	 * files absorbed before. Which chunk is first matters to nothing:
	 * @next and @left say where @pl hands out from.
	 */
	struct nt_pool_chunk **tail = &from->chunks;

	while (*tail)
		tail = &(*tail)->next;
	*tail = pl->chunks;
	pl->chunks = from->chunks;
	while (from->free) {
		void *obj = from->free;

		memcpy(&from->free, obj, sizeof(from->free));
		memcpy(obj, &pl->free, sizeof(pl->free));
		pl->free = obj;
	}
	pl->live += from->live;
	nt_pool_init(from, from->arena, from->size);
}

void nt_pool_fini(struct nt_pool *pl)
{
	while (pl->chunks) {
		struct nt_pool_chunk *c = pl->chunks;

		pl->chunks = c->next;
		chunk_free(c);
	}
	nt_pool_init(pl, pl->arena, pl->size);
}

#endif
