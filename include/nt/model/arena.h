/* SPDX-License-Identifier: MIT */
/*
 * arena.h - the small chunks of an analysis's pools (nt/model/pool.h), cut
 * one after another from regions they share.
 *
 * A pool's first chunks hold a few objects each and double up to half a
 * huge page. Each taken from the C library on its own, they were 4 KiB
 * pages faulted in one by one, and an analysis has a dozen pools (its
 * reports and each size of nt/model/blocks.h): at 10,000 flows some 1,400
 * of analyze --format json's 3,300 page faults. Where a fault costs what it
 * does in a virtual machine that traps it (15-20 us a 4 KiB page on the
 * machine of docs/performance.md), that is 5 % of the run. Cut from shared
 * regions, the pools' first chunks share pages, and from the first huge
 * page on, huge pages.
 *
 * The first region is NT_ARENA_FIRST bytes of the C library's (a small
 * file's analysis takes a few KiB, not a huge page zeroed), the next
 * NT_ARENA_GROWTH times that, and from there on regions are whole huge
 * pages (nt/pages.h). Below a huge page a region is 4 KiB pages that fault
 * in as the chunks cut from it are first written; a huge page faults in
 * whole. A chunk is never given back on its own: the pools keep theirs to
 * their end, and the arena ends after them. What is left of a region when
 * a chunk does not fit is left unused: less than that chunk, and pools
 * ask for less than half a huge page from here.
 */
#ifndef NT_MODEL_ARENA_H
#define NT_MODEL_ARENA_H

#include <stddef.h>

/* The first region's size: a small analysis's pools' first chunks. */
#define NT_ARENA_FIRST ((size_t)64 << 10)
/* How much larger each next region is, up to a huge page: 64 KiB, 512 KiB, 2 MiB. */
#define NT_ARENA_GROWTH 8

struct nt_arena_region;

/**
 * struct nt_arena - the regions
 * @regions: every region, newest first
 * @next: the next byte never handed out, in the newest region
 * @left: how many follow it there
 * @region_bytes: the next region's size
 *
 * A zeroed struct is an empty arena.
 */
struct nt_arena {
	struct nt_arena_region *regions;
	char *next;
	size_t left;
	size_t region_bytes;
};

/**
 * nt_arena_get() - a chunk of memory, zero, on a cache line
 * @a: the arena
 * @bytes: its size, more than 0
 *
 * Return: the chunk, valid until nt_arena_fini() of @a (or of the arena
 * that absorbed it), or NULL when memory ran out.
 */
void *nt_arena_get(struct nt_arena *a, size_t bytes);

/**
 * nt_arena_absorb() - take over another arena's regions
 * @a: the arena
 * @from: its regions (and every chunk in them) become @a's; left empty
 *
 * With nt_pool_absorb() of the pools that took chunks from @from: their
 * chunks then live as long as @a.
 */
void nt_arena_absorb(struct nt_arena *a, struct nt_arena *from);

/**
 * nt_arena_fini() - give every region back; safe on an empty arena
 * @a: the arena, empty afterwards (its chunks are gone with it)
 */
void nt_arena_fini(struct nt_arena *a);

#endif
