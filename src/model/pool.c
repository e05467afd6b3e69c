// SPDX-License-Identifier: MIT
/*
 * pool.c - objects of one size in chunks of pages (see nt/model/pool.h).
 *
 * A chunk begins with its own header, on a line of its own, and its objects
 * follow. The first chunk holds POOL_FIRST_OBJS objects and each next one
 * twice as many, up to NT_PAGES_HUGE bytes: a pool of a few objects takes a
 * few pages, a large one whole huge pages. Objects handed out from a chunk
 * are zero already (fresh pages); one given back is cleared when it is
 * handed out again.
 */
#include <stdlib.h>
#include <string.h>

#include "nt/model/pool.h"
#include "nt/pages.h"

#define POOL_FIRST_OBJS 32u

/**
 * struct nt_pool_chunk - a chunk's header, at its start
 * @pages: the chunk's memory
 * @next: the next older chunk
 */
struct nt_pool_chunk {
	struct nt_pages pages;
	struct nt_pool_chunk *next;
};

#define HEAD_BYTES \
	((sizeof(struct nt_pool_chunk) + NT_PAGES_ALIGN - 1) / NT_PAGES_ALIGN * NT_PAGES_ALIGN)

void nt_pool_init(struct nt_pool *pl, size_t obj_bytes)
{
	*pl = (struct nt_pool){
		.size = obj_bytes,
		.obj_bytes = (obj_bytes + NT_PAGES_ALIGN - 1) / NT_PAGES_ALIGN * NT_PAGES_ALIGN,
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
	return calloc(1, pl->size);
}

void nt_pool_put(struct nt_pool *pl, void *obj)
{
	(void)pl;
	free(obj);
}

void nt_pool_absorb(struct nt_pool *pl, struct nt_pool *from)
{
	(void)pl;
	nt_pool_init(from, from->size);
}

void nt_pool_fini(struct nt_pool *pl)
{
	nt_pool_init(pl, pl->size);
}

#else

static int add_chunk(struct nt_pool *pl)
{
	struct nt_pages pages = { 0 };
	struct nt_pool_chunk *c;
	size_t objs = pl->chunk_objs;

	if (nt_pages_grow(&pages, HEAD_BYTES + objs * pl->obj_bytes) < 0)
		return -1;
	c = pages.p;
	c->pages = pages;
	c->next = pl->chunks;
	pl->chunks = c;
	pl->next = (char *)pages.p + HEAD_BYTES;
	/* The pages' rounding is room for more. */
	pl->left = (pages.mapped - HEAD_BYTES) / pl->obj_bytes;
	if (HEAD_BYTES + 2 * objs * pl->obj_bytes <= NT_PAGES_HUGE)
		pl->chunk_objs = 2 * objs;
	else if (HEAD_BYTES + objs * pl->obj_bytes < NT_PAGES_HUGE)
		pl->chunk_objs = (NT_PAGES_HUGE - HEAD_BYTES) / pl->obj_bytes;
	return 0;
}

void *nt_pool_get(struct nt_pool *pl)
{
	void *obj = pl->free;

	if (obj) {
		memcpy(&pl->free, obj, sizeof(pl->free));
		return memset(obj, 0, pl->obj_bytes);
	}
	if (!pl->left && add_chunk(pl) < 0)
		return NULL;
	obj = pl->next;
	pl->next += pl->obj_bytes;
	pl->left--;
	return obj;
}

void nt_pool_put(struct nt_pool *pl, void *obj)
{
	if (!obj)
		return;
	memcpy(obj, &pl->free, sizeof(pl->free));
	pl->free = obj;
}

/* The objects @from never handed out stay unused: at most one chunk's rest. */
void nt_pool_absorb(struct nt_pool *pl, struct nt_pool *from)
{
	struct nt_pool_chunk **tail = &pl->chunks;

	while (*tail)
		tail = &(*tail)->next;
	*tail = from->chunks;
	while (from->free) {
		void *obj = from->free;

		memcpy(&from->free, obj, sizeof(from->free));
		nt_pool_put(pl, obj);
	}
	nt_pool_init(from, from->size);
}

void nt_pool_fini(struct nt_pool *pl)
{
	while (pl->chunks) {
		struct nt_pool_chunk *c = pl->chunks;
		struct nt_pages pages = c->pages;

		pl->chunks = c->next;
		nt_pages_free(&pages);
	}
	nt_pool_init(pl, pl->size);
}

#endif
