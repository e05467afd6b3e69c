/* SPDX-License-Identifier: MIT */
/*
 * pool.h - objects of one size, taken and given back one at a time, their
 * memory held in chunks of whole pages (nt/pages.h) until the pool ends.
 *
 * For the analysis's reports: one per flow that stalled, some 1 KiB each,
 * 100 MB with 100,000 flows. From malloc() they were 4 KiB pages faulted in
 * one by one; from chunks of NT_PAGES_HUGE they are huge pages where the
 * kernel offers them, and the smaller first chunks share the regions of
 * an arena (nt/model/arena.h). Objects start on a cache line. A pool is one
 * thread's, like the analysis that owns it.
 */
#ifndef NT_MODEL_POOL_H
#define NT_MODEL_POOL_H

#include <stddef.h>

struct nt_arena;
struct nt_pool_chunk;

/**
 * struct nt_pool - the pool
 * @arena: where chunks smaller than a huge page come from, NULL: the C
 *         library (nt/model/arena.h)
 * @size: an object's size, as given
 * @obj_bytes: that, rounded up to whole cache lines
 * @chunks: every chunk, in a list
 * @free: objects given back, chained through their first bytes
 * @next: the next object never handed out, in the newest chunk
 * @left: how many such objects are left there
 * @chunk_objs: objects in the next chunk (doubling up to a huge page)
 * @live: objects handed out and not given back (absorbed pools' included)
 */
struct nt_pool {
	struct nt_arena *arena;
	size_t size;
	size_t obj_bytes;
	struct nt_pool_chunk *chunks;
	void *free;
	char *next;
	size_t left;
	size_t chunk_objs;
	size_t live;
};

/**
 * nt_pool_init() - an empty pool
 * @pl: the pool
 * @arena: where its small chunks come from, living longer than the pool;
 *         NULL: from the C library, each on its own
 * @obj_bytes: the objects' size, more than 0
 */
void nt_pool_init(struct nt_pool *pl, struct nt_arena *arena, size_t obj_bytes);

/**
 * nt_pool_get() - an object, zeroed
 * @pl: the pool
 *
 * Return: the object, or NULL when memory ran out.
 */
void *nt_pool_get(struct nt_pool *pl);

/**
 * nt_pool_put() - give an object back for the pool's next nt_pool_get()
 * @pl: the pool it came from (or one that absorbed that pool)
 * @obj: the object; NULL is a no-op
 */
void nt_pool_put(struct nt_pool *pl, void *obj);

/**
 * nt_pool_absorb() - take over every object of another pool
 * @pl: the pool
 * @from: a pool of the same object size; its chunks (and the objects in
 *        them, handed out or not) become @pl's, and it is left empty
 */
void nt_pool_absorb(struct nt_pool *pl, struct nt_pool *from);

/**
 * nt_pool_fini() - give every chunk back; safe on a zeroed or empty pool
 * @pl: the pool (its objects are gone with it)
 */
void nt_pool_fini(struct nt_pool *pl);

#endif
