// SPDX-License-Identifier: MIT
/*
 * test_chunks.c - items rendered by several threads come out in their order,
 * byte for byte as one thread writes them, whatever order the chunks finish
 * in; the first error stops everything and comes back; every thread's state
 * is its own and freed; each item is asked for ahead once, early, by the
 * thread that renders it.
 *
 * The items' callbacks run on the workers, where cmocka's asserts (a
 * longjmp) may not: they count what they see in atomics, and the test
 * asserts on the counts after nt_chunks_write() returns.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "nt/render/chunks.h"

/**
 * struct items - what the items are made of, and what the callbacks saw
 * @fail_at: the item that fails with -ENOMEM, or SIZE_MAX
 * @fail_up: the up() call (1-based) that fails, 0 for none
 * @slow_every: chunks whose index is a multiple of this sleep, so later
 *              chunks finish first (0: none sleep)
 * @ups: states made
 * @downs: states freed
 * @shared: an item found its state in use by another thread
 * @off_thread: items rendered on another thread than the caller's
 * @caller: the thread calling nt_chunks_write()
 * @n: the items, when @asked is set
 * @asked: for each item, how many times ahead() asked for it (NULL: not
 *         watched)
 * @asked_by: for each item, the thread that asked for it (its token)
 * @ahead_bad: ahead() past the end, too far ahead, or an item rendered
 *             without being asked for once, by its own thread
 * @most_pending: the most items a thread had asked for and not rendered
 * @ranges: runs of items a thread rendered one after the other (ahead()
 *          called with none pending): the chunks, or 1 on one thread
 * @per_chunk: what chunk_items() says (sized_ops)
 */
struct items {
	size_t fail_at;
	int fail_up;
	size_t slow_every;
	atomic_int ups, downs, shared, off_thread;
	pthread_t caller;
	size_t n;
	atomic_int *asked;
	atomic_intptr_t *asked_by;
	atomic_int ahead_bad, most_pending, ranges;
	size_t per_chunk;
};

/* The items a chunk holds, as nt_chunks_write() takes @it->per_chunk (0: the default). */
static size_t per_chunk(const struct items *it)
{
	if (!it->per_chunk)
		return NT_CHUNK_ITEMS;
	return it->per_chunk > NT_CHUNK_ITEMS ? NT_CHUNK_ITEMS : it->per_chunk;
}

/* A thread's token (its own variable's address), and its items asked for and not yet rendered. */
static _Thread_local int thread_token;
static _Thread_local size_t thread_pending;

/* One thread's state: who holds it right now, and the counts. */
struct state {
	atomic_int busy;
	struct items *it;
};

static int up(const void *ctx, void **state)
{
	struct items *it = (struct items *)ctx;
	int n = atomic_fetch_add(&it->ups, 1) + 1;

	if (n == it->fail_up)
		return -ENOMEM;
	struct state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->it = it;
	*state = s;
	return 0;
}

static void down(void *state)
{
	struct state *s = state;

	atomic_fetch_add(&s->it->downs, 1);
	free(s);
}

/* "item N\n", after a nap for the first item of a slow chunk. */
static int item(FILE *out, void *state, const void *ctx, size_t i)
{
	struct items *it = (struct items *)ctx;
	struct state *s = state;

	if (atomic_exchange(&s->busy, 1))
		atomic_fetch_add(&it->shared, 1);
	if (!pthread_equal(pthread_self(), it->caller))
		atomic_fetch_add(&it->off_thread, 1);
	if (it->slow_every && i % per_chunk(it) == 0 && i / per_chunk(it) % it->slow_every == 0)
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	if (it->asked) {
		if (atomic_load(&it->asked[i]) != 1 ||
		    atomic_load(&it->asked_by[i]) != (intptr_t)&thread_token)
			atomic_fetch_add(&it->ahead_bad, 1);
		else
			thread_pending--;
	}
	fprintf(out, "item %zu\n", i);
	atomic_store(&s->busy, 0);
	return i == it->fail_at ? -ENOMEM : 0;
}

static void ahead(const void *ctx, size_t i)
{
	struct items *it = (struct items *)ctx;

	if (!it->asked)
		return;
	if (!thread_pending)
		atomic_fetch_add(&it->ranges, 1);
	/* Asked for NT_CHUNKS_AHEAD items early: as many of this thread's before it are pending. */
	if (i >= it->n || thread_pending++ > NT_CHUNKS_AHEAD) {
		atomic_fetch_add(&it->ahead_bad, 1);
		return;
	}
	if (thread_pending > (size_t)atomic_load(&it->most_pending))
		atomic_store(&it->most_pending, (int)thread_pending);
	atomic_fetch_add(&it->asked[i], 1);
	atomic_store(&it->asked_by[i], (intptr_t)&thread_token);
}

static const struct nt_chunks_ops ops = { .up = up, .down = down, .item = item, .ahead = ahead };

static size_t chunk_items(const void *ctx)
{
	return ((const struct items *)ctx)->per_chunk;
}

/* ops, with chunks of @per_chunk items */
static const struct nt_chunks_ops sized_ops = {
	.up = up,
	.down = down,
	.item = item,
	.ahead = ahead,
	.chunk_items = chunk_items,
};

static void items_init(struct items *it)
{
	memset(it, 0, sizeof(*it));
	it->fail_at = SIZE_MAX;
	it->caller = pthread_self();
}

/* Watches ahead() over @n items (check_ahead() tells what it saw). */
static void watch_ahead(struct items *it, size_t n)
{
	it->n = n;
	it->asked = calloc(n ? n : 1, sizeof(*it->asked));
	it->asked_by = calloc(n ? n : 1, sizeof(*it->asked_by));
	assert_non_null(it->asked);
	assert_non_null(it->asked_by);
}

/*
 * After a render of @it->n items on @workers threads that succeeded: every
 * item was asked for once, by the thread that rendered it, before it,
 * NT_CHUNKS_AHEAD items early (not at the last moment) and never more,
 * never past the end; in runs of a chunk each, or one when the caller
 * renders them all.
 */
static void check_ahead(struct items *it, unsigned workers)
{
	bool one_run = workers < 2 || it->n < NT_CHUNKS_MIN_ITEMS || it->n <= per_chunk(it);
	size_t longest = one_run ? it->n : per_chunk(it);

	assert_int_equal(atomic_load(&it->ahead_bad), 0);
	assert_int_equal(atomic_load(&it->ranges),
			 one_run ? 1 : (it->n + per_chunk(it) - 1) / per_chunk(it));
	assert_int_equal(atomic_load(&it->most_pending),
			 longest > NT_CHUNKS_AHEAD ? NT_CHUNKS_AHEAD + 1 : longest);
	for (size_t i = 0; i < it->n; i++)
		assert_int_equal(atomic_load(&it->asked[i]), 1);
	free(it->asked);
	free((void *)it->asked_by);
}

/* Renders @n items with @workers into a string (*@text, to free); returns the result. */
static int render(struct items *it, size_t n, unsigned workers, char **text)
{
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	int ret;

	assert_non_null(out);
	ret = nt_chunks_write(out, n, workers, it->per_chunk ? &sized_ops : &ops, it);
	assert_int_equal(fclose(out), 0);
	return ret;
}

static char *expected(size_t n)
{
	size_t len = 0;
	char *text = NULL;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "item %zu\n", i);
	assert_int_equal(fclose(out), 0);
	return text;
}

/* what this checks: chunks finishing out of order are written in order; ahead() on each thread */
static void test_order(void **unused)
{
	size_t n = 20 * NT_CHUNK_ITEMS + 17;
	char *want = expected(n), *got = NULL;
	struct items it;

	(void)unused;
	items_init(&it);
	/* Chunks 0, 3, 6... sleep: the chunks after each are rendered first. */
	it.slow_every = 3;
	watch_ahead(&it, n);
	assert_int_equal(render(&it, n, 4, &got), 0);
	assert_string_equal(got, want);
	check_ahead(&it, 4);
	assert_int_equal(atomic_load(&it.shared), 0);
	assert_true(atomic_load(&it.off_thread) > 0);
	assert_int_equal(atomic_load(&it.ups), 4);
	assert_int_equal(atomic_load(&it.downs), 4);
	free(got);
	free(want);
}

/* what this checks: more workers than chunks, one, and the serial threshold: same bytes, ahead() */
static void test_workers_and_threshold(void **unused)
{
	static const unsigned workers[] = { 0, 1, 2, 3, 64 };
	static const size_t sizes[] = { 1, NT_CHUNKS_AHEAD, NT_CHUNKS_MIN_ITEMS - 1,
					NT_CHUNKS_MIN_ITEMS, 3 * NT_CHUNK_ITEMS + 1 };

	(void)unused;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		char *want = expected(sizes[s]);

		for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
			struct items it;
			char *got = NULL;

			items_init(&it);
			watch_ahead(&it, sizes[s]);
			assert_int_equal(render(&it, sizes[s], workers[w], &got), 0);
			assert_string_equal(got, want);
			check_ahead(&it, workers[w]);
			assert_int_equal(atomic_load(&it.ups), atomic_load(&it.downs));
			/* Below the threshold, or with one worker, the caller renders every item. */
			if (sizes[s] < NT_CHUNKS_MIN_ITEMS || workers[w] < 2)
				assert_int_equal(atomic_load(&it.off_thread), 0);
			free(got);
		}
		free(want);
	}
}

/*
 * what this checks: chunks of as many items as chunk_items() says, 1 to
 * NT_CHUNK_ITEMS, each rendered whole by one thread, in order
 */
static void test_chunk_items(void **unused)
{
	static const size_t says[] = { 1, 5, NT_CHUNK_ITEMS - 1, NT_CHUNK_ITEMS, 1000 };
	size_t n = 20 * NT_CHUNK_ITEMS + 17;
	char *want = expected(n);

	(void)unused;
	for (size_t k = 0; k < sizeof(says) / sizeof(says[0]); k++) {
		struct items it;
		char *got = NULL;

		items_init(&it);
		it.slow_every = 3;
		it.per_chunk = says[k];
		watch_ahead(&it, n);
		assert_int_equal(render(&it, n, 3, &got), 0);
		assert_string_equal(got, want);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(atomic_load(&it.asked_by[i]),
					 atomic_load(&it.asked_by[i - i % per_chunk(&it)]));
		check_ahead(&it, 3);
		free(got);
	}
	free(want);
}

/* what this checks: no item makes no state and writes nothing */
static void test_empty(void **unused)
{
	struct items it;
	char *got = NULL;

	(void)unused;
	items_init(&it);
	assert_int_equal(render(&it, 0, 4, &got), 0);
	assert_string_equal(got, "");
	assert_int_equal(atomic_load(&it.ups), 0);
	free(got);
}

/* what this checks: an item's error comes back; what was written is whole chunks before it */
static void test_item_error(void **unused)
{
	size_t n = 12 * NT_CHUNK_ITEMS, fail = 5 * NT_CHUNK_ITEMS + 3;
	char *want = expected(n);
	unsigned workers[] = { 1, 2, 4 };

	(void)unused;
	for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
		struct items it;
		char *got = NULL;
		size_t len;

		items_init(&it);
		it.fail_at = fail;
		assert_int_equal(render(&it, n, workers[w], &got), -ENOMEM);
		len = strlen(got);
		assert_memory_equal(got, want, len);
		if (workers[w] > 1) {
			/* Whole chunks, none from the failed one on. */
			char last[32];

			snprintf(last, sizeof(last), "item %zu\n", 5 * (size_t)NT_CHUNK_ITEMS);
			assert_null(strstr(got, last));
			assert_true(len == 0 || got[len - 1] == '\n');
		}
		assert_int_equal(atomic_load(&it.ups), atomic_load(&it.downs));
		free(got);
	}
	free(want);
}

/* what this checks: a state that cannot be made fails the whole write, and every made state is freed */
static void test_up_error(void **unused)
{
	(void)unused;
	for (int fail_up = 1; fail_up <= 3; fail_up++) {
		struct items it;
		char *got = NULL;

		items_init(&it);
		it.fail_up = fail_up;
		assert_int_equal(render(&it, 10 * NT_CHUNK_ITEMS, 3, &got), -ENOMEM);
		/* The failed up() made nothing to free. */
		assert_int_equal(atomic_load(&it.downs), atomic_load(&it.ups) - 1);
		free(got);
	}
}

static ssize_t refuse(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	(void)size;
	errno = ENOSPC;
	return -1;
}

/* what this checks: a write that fails stops the threads and comes back with its errno */
static void test_write_error(void **unused)
{
	FILE *out = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = refuse });
	struct items it;

	(void)unused;
	assert_non_null(out);
	setvbuf(out, NULL, _IONBF, 0);
	items_init(&it);
	assert_int_equal(nt_chunks_write(out, 10 * NT_CHUNK_ITEMS, 3, &ops, &it), -ENOSPC);
	assert_int_equal(atomic_load(&it.ups), atomic_load(&it.downs));
	fclose(out);
}

/* what this checks: the cores are counted, at least one */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),	    cmocka_unit_test(test_workers_and_threshold),
		cmocka_unit_test(test_empty),	    cmocka_unit_test(test_item_error),
		cmocka_unit_test(test_up_error),    cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_chunk_items),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
