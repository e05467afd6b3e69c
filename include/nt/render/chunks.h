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
 * flows are some 260 KB of JSON or 100 KB of text, 1 ms of work: enough that
 * the hand-over between threads costs nothing next to it, few enough that
 * the threads finish together and hold little memory (one chunk each).
 */
#define NT_CHUNK_ITEMS ((size_t)64)

/*
 * Fewer items than this stay on the calling thread: with a single chunk
 * there is nothing to share, and starting a thread (some 50 us) is worth it
 * from two chunks on (128 flows: 2.5 ms of JSON, 1 ms of text, halved on two
 * cores). Measured in docs/performance.md ("analyze rendering").
 */
#define NT_CHUNKS_MIN_ITEMS (2 * NT_CHUNK_ITEMS)

/**
 * struct nt_chunks_ops - how to render the items of a list
 * @up: make one thread's state in *@state from @ctx (json-c objects are not
 *      shared between threads: each keeps its own); 0 or a negative errno.
 *      NULL: no state
 * @down: free a state @up made; NULL: nothing to free
 * @item: write item @i to @out with the thread's @state; 0 or a negative
 *        errno. Called for each item once, in order within a chunk, on any
 *        thread: it may read @ctx, never write it
 */
struct nt_chunks_ops {
	int (*up)(const void *ctx, void **state);
	void (*down)(void *state);
	int (*item)(FILE *out, void *state, const void *ctx, size_t i);
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
 * Each thread renders a chunk of %NT_CHUNK_ITEMS items into memory, waits for
 * the chunks before it to be written, writes its own and takes the next
 * unrendered one. The first error stops every thread; a thread that cannot
 * start leaves its share to the others.
 *
 * Return: 0, or the first negative errno of @ops (-ENOMEM for a buffer,
 * -EIO for a write to @out); @out then holds part of the items.
 */
int nt_chunks_write(FILE *out, size_t n, unsigned workers, const struct nt_chunks_ops *ops,
		    const void *ctx);

/**
 * nt_chunks_cores() - the cores this process may run on (sched_getaffinity())
 *
 * Return: at least 1.
 */
unsigned nt_chunks_cores(void);

#endif
