/* SPDX-License-Identifier: MIT */
/*
 * chunks.h - a list of items (the flows of a report) rendered by several
 * threads at once and written in order: byte for byte what one thread
 * writing them one after the other writes.
 */
#ifndef NT_RENDER_CHUNKS_H
#define NT_RENDER_CHUNKS_H

#include <stddef.h>
#include <stdio.h>

/*
 * Items rendered together into one memory buffer, then written at once. 64
 * flows are some 270 KB of JSON (0.6 ms of work) or 100 KB of text (0.4 ms):
 * enough that the hand-over between threads (a mutex, a buffer) costs
 * little next to it, few enough that the threads finish together and hold
 * little memory (one chunk each).
 */
#define NT_CHUNK_ITEMS ((size_t)64)

/*
 * The most text a chunk should hold, for lists whose items are large
 * (@chunk_items): a chunk is copied into its thread's buffer and then
 * handed to write(2), cheap while the buffer stays in a core's L2 cache.
 * JSON's stalls at 64 flows of 50 stalls were 1.7 MB a chunk: the copy
 * went out to memory, and pushed out of the cache what the thread read
 * next (json at 10,000 flows on two threads, 350.0 -> 334.1 ms of CPU,
 * docs/performance.md, the round of 2026-12-07, late).
 */
#define NT_CHUNK_BYTES ((size_t)256 << 10)

/*
 * Fewer items than this stay on the calling thread. Measured with --jobs 1
 * against --jobs 2 on 2 cores (docs/performance.md, "analyze: files, render threads, memory";
 * tests/bench/bench_analyze_scale.py): at 128 and 256 flows the threads
 * cost more than they save (thread start, a memory buffer per thread, the
 * other core's cold cache: wall +0.2 ms at 128 flows), from 500 flows on
 * they gain (-0.8 ms at 500, -2 ms at 1,000, -4 to -5 ms at 2,000, best
 * runs). Eight chunks, 512 flows.
 */
#define NT_CHUNKS_MIN_ITEMS (8 * NT_CHUNK_ITEMS)

/*
 * How many items early @ahead is called. An item of a report on 100,000
 * flows reads a flow's report that left every cache long before: about ten
 * lines, each a miss. Asked for four items early, they come while the items between
 * are written (markdown at 100,000 flows, one thread: 346-349 -> 321-327 ms
 * of CPU, docs/performance.md, the round of 2026-12-07, late; eight did no
 * better).
 */
#define NT_CHUNKS_AHEAD ((size_t)4)

/**
 * struct nt_chunks_ops - how to render the items of a list
 * @up: make one thread's state in *@state from @ctx (json-c objects are not
 *      shared between threads: each keeps its own); 0 or a negative errno.
 *      NULL: no state
 * @down: free a state @up made; NULL: nothing to free
 * @item: write item @i to @out with the thread's @state; 0 or a negative
 *        errno. Called for each item once, in order within a chunk, on any
 *        thread: it may read @ctx, never write it. A thread's @out is
 *        unbuffered (its chunk's memory is the buffer): write through an
 *        out_buf, not a character at a time
 * @ahead: ask for the memory item @i will read (nt/prefetch.h: a hint,
 *         nothing may depend on it). Called once an item, on the thread
 *         that renders it, with %NT_CHUNKS_AHEAD of that thread's items
 *         between (fewer at the start of a chunk), @i < the list's
 *         length. NULL: nothing to ask for
 * @chunk_items: how many items a chunk holds, from @ctx: fewer than
 *               %NT_CHUNK_ITEMS where that many would be more than
 *               %NT_CHUNK_BYTES of text (taken between 1 and
 *               %NT_CHUNK_ITEMS). NULL: %NT_CHUNK_ITEMS
 */
struct nt_chunks_ops {
	int (*up)(const void *ctx, void **state);
	void (*down)(void *state);
	int (*item)(FILE *out, void *state, const void *ctx, size_t i);
	void (*ahead)(const void *ctx, size_t i);
	size_t (*chunk_items)(const void *ctx);
};

/**
 * nt_chunks_write() - write items 0 .. @n - 1 to @out, in order
 * @out: the stream
 * @n: how many items
 * @workers: threads rendering at once, the caller's included; 0 or 1 (or
 *           fewer than %NT_CHUNKS_MIN_ITEMS items) renders them on the
 *           calling thread straight to @out
 * @ops: how
 * @ctx: what the items are made from, read-only while they are rendered
 *
 * Each thread renders a chunk of items (%NT_CHUNK_ITEMS, or as many as
 * @ops->chunk_items says) into memory, waits for the chunks before it to be
 * written, writes its own and takes the next unrendered one. The first error stops every thread; a thread that cannot
 * start leaves its share to the others.
 *
 * Return: 0, or the first negative errno of @ops (-ENOMEM for a buffer,
 * -EIO for a write to @out); @out then holds part of the items.
 */
int nt_chunks_write(FILE *out, size_t n, unsigned workers, const struct nt_chunks_ops *ops,
		    const void *ctx);

#endif
