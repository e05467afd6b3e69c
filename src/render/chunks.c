// SPDX-License-Identifier: MIT
/*
 * chunks.c - items rendered by several threads, written in order (see
 * nt/render/chunks.h).
 *
 * Threads: the items are cut into chunks of NT_CHUNK_ITEMS (or as many as
 * ops->chunk_items says). A thread takes
 * the next chunk nobody took, renders it into a buffer of its own (struct
 * chunk_buf) with a state of its own (ops->up), then waits for its
 * turn: chunk k is written when chunks 0 .. k-1 are, by the thread that
 * rendered it, and the count of chunks written moves on. One mutex guards
 * the three shared numbers (next chunk, chunks written, first error); the
 * output stream is used by one thread at a time, the one whose chunk is
 * next, and the hand-over goes through that mutex (the next writer sees the
 * count move only after the previous one has written). The items, @ctx and
 * the analysis behind them are only read. Nothing else is shared.
 *
 * Progress: chunks are taken in order and each thread holds one, so the
 * lowest chunk not yet written is held by a thread that never waits; the
 * others wait for it, then write in turn. Memory: one chunk buffer per
 * thread, never the whole report.
 *
 * Errors: the first one (an item's, a buffer's, a write's) is kept and
 * wakes every waiting thread; each drops what it holds and stops taking
 * chunks. Nothing after the failed chunk is written.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/render/chunks.h"

/**
 * struct pool - what the threads share
 * @out: the stream, written by the thread whose chunk is next
 * @n: items
 * @per_chunk: items a chunk holds
 * @n_chunks: chunks of @per_chunk items (the last may hold fewer)
 * @ops: how to render
 * @ctx: what from, read-only
 * @lock: guards @next, @written and @ret
 * @turn: signalled when @written moves on or @ret is set
 * @next: the next chunk nobody took
 * @written: chunks written to @out
 * @ret: the first error, 0 while none
 */
struct pool {
	FILE *out;
	size_t n, per_chunk, n_chunks;
	const struct nt_chunks_ops *ops;
	const void *ctx;
	pthread_mutex_t lock;
	pthread_cond_t turn;
	size_t next, written;
	int ret;
};

/* Records the first error and wakes every waiting thread; @p->lock held. */
static void fail_locked(struct pool *p, int ret)
{
	if (!p->ret)
		p->ret = ret;
	pthread_cond_broadcast(&p->turn);
}

/**
 * struct chunk_buf - a thread's chunk, as rendered so far
 * @p: the bytes
 * @len: how many
 * @cap: allocated
 *
 * One per thread, for all its chunks: emptied, never freed, between them.
 * A buffer a chunk (open_memstream()) was malloc()'d and freed 64 flows at
 * a time, and one larger than glibc's mmap() threshold (128 KiB, and JSON's
 * chunks are more) was a new mapping each time, its pages faulted in anew:
 * at 100,000 flows, 1,563 chunks of 400 KiB (docs/performance.md).
 */
struct chunk_buf {
	char *p;
	size_t len;
	size_t cap;
};

/* A thread's first buffer: a chunk of text is some 100 KB, of JSON 400 KB. */
#define CHUNK_BUF_FIRST ((size_t)64 << 10)

/* The thread's stream writes here (fopencookie()). */
static ssize_t chunk_buf_write(void *cookie, const char *data, size_t n)
{
	struct chunk_buf *b = cookie;

	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : CHUNK_BUF_FIRST;
		char *p;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2)
				return -1;
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p)
			return -1; /* errno is ENOMEM: the stream's error */
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	return (ssize_t)n;
}

static const cookie_io_functions_t chunk_io = { .write = chunk_buf_write };

/*
 * Items @from .. @to - 1 to @out, each asked for NT_CHUNKS_AHEAD items early
 * (within the range: the next range may be another thread's): 0 or the
 * first negative errno of @ops->item.
 */
static int render_range(FILE *out, void *state, const struct nt_chunks_ops *ops, const void *ctx,
			size_t from, size_t to)
{
	int ret = 0;

	for (size_t i = from; ops->ahead && i < to && i < from + NT_CHUNKS_AHEAD; i++)
		ops->ahead(ctx, i);
	for (size_t i = from; !ret && i < to; i++) {
		if (ops->ahead && i + NT_CHUNKS_AHEAD < to)
			ops->ahead(ctx, i + NT_CHUNKS_AHEAD);
		ret = ops->item(out, state, ctx, i);
	}
	return ret;
}

/* Chunk @k into @b, emptied first, through @f, the stream on it: 0 or a negative errno. */
static int render_chunk(struct pool *p, void *state, size_t k, FILE *f, struct chunk_buf *b)
{
	size_t end = (k + 1) * p->per_chunk < p->n ? (k + 1) * p->per_chunk : p->n;
	int ret;

	b->len = 0;
	ret = render_range(f, state, p->ops, p->ctx, k * p->per_chunk, end);
	/* The stream fails only to grow its buffer. */
	if (!ret && (fflush(f) == EOF || ferror(f)))
		ret = -ENOMEM;
	return ret;
}

/* Waits for chunk @k's turn and writes it; @p->lock held, released while writing. */
static void write_in_turn(struct pool *p, size_t k, const char *buf, size_t len)
{
	bool ok;
	int write_errno;

	while (!p->ret && p->written != k)
		pthread_cond_wait(&p->turn, &p->lock);
	if (p->ret)
		return;
	pthread_mutex_unlock(&p->lock);
	/*
	 * ferror() too: glibc's fwrite() can count a failed write as written.
	 * A chunk may be empty (64 flows with no stall kept, in "stalls"), its
	 * buffer never made: no fwrite() of NULL.
	 */
	errno = 0;
	ok = !len || (fwrite(buf, 1, len, p->out) == len && !ferror(p->out));
	write_errno = errno; /* the failed write's reason: EFBIG, ENOSPC, EPIPE */
	pthread_mutex_lock(&p->lock);
	if (!ok) {
		fail_locked(p, write_errno ? -write_errno : -EIO);
		return;
	}
	p->written++;
	pthread_cond_broadcast(&p->turn);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	struct chunk_buf b = { 0 };
	FILE *f = fopencookie(&b, "w", chunk_io);
	void *state = NULL;
	int ret;

	/*
	 * Unbuffered: the items write through an out_buf of their own, 8 KiB
	 * at a time, and stdio's buffer would copy every byte once more on its
	 * way to @b.
	 */
	if (f)
		setvbuf(f, NULL, _IONBF, 0);
	ret = !f ? -ENOMEM : p->ops->up ? p->ops->up(p->ctx, &state) : 0;

	pthread_mutex_lock(&p->lock);
	if (ret)
		fail_locked(p, ret);
	while (!p->ret && p->next < p->n_chunks) {
		size_t k = p->next++;

		pthread_mutex_unlock(&p->lock);
		ret = render_chunk(p, state, k, f, &b);
		pthread_mutex_lock(&p->lock);
		if (ret)
			fail_locked(p, ret);
		else
			write_in_turn(p, k, b.p, b.len);
	}
	pthread_mutex_unlock(&p->lock);
	if (p->ops->down && state)
		p->ops->down(state);
	if (f)
		fclose(f);
	free(b.p);
	return NULL;
}

/* One thread, straight to @out: no buffer, no copy. */
static int write_serial(FILE *out, size_t n, const struct nt_chunks_ops *ops, const void *ctx)
{
	void *state = NULL;
	int ret = ops->up ? ops->up(ctx, &state) : 0;

	if (!ret)
		ret = render_range(out, state, ops, ctx, 0, n);
	if (ops->down && state)
		ops->down(state);
	return ret;
}

int nt_chunks_write(FILE *out, size_t n, unsigned workers, const struct nt_chunks_ops *ops,
		    const void *ctx)
{
	struct pool p = { .out = out, .n = n, .ops = ops, .ctx = ctx };
	pthread_t *tid;
	unsigned started = 0;

	if (!n)
		return 0;
	p.per_chunk = ops->chunk_items ? ops->chunk_items(ctx) : NT_CHUNK_ITEMS;
	if (p.per_chunk > NT_CHUNK_ITEMS)
		p.per_chunk = NT_CHUNK_ITEMS;
	if (!p.per_chunk)
		p.per_chunk = 1;
	p.n_chunks = (n + p.per_chunk - 1) / p.per_chunk;
	if (workers > p.n_chunks)
		workers = (unsigned)p.n_chunks;
	if (workers < 2 || n < NT_CHUNKS_MIN_ITEMS)
		return write_serial(out, n, ops, ctx);
	tid = calloc(workers - 1, sizeof(*tid));
	if (!tid)
		return write_serial(out, n, ops, ctx);
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.turn, NULL);
	/* The calling thread is a worker too; one that cannot start leaves its share to the rest. */
	while (started + 1 < workers && pthread_create(&tid[started], NULL, worker, &p) == 0)
		started++;
	worker(&p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_cond_destroy(&p.turn);
	pthread_mutex_destroy(&p.lock);
	free(tid);
	return p.ret;
}
