// SPDX-License-Identifier: MIT
/*
 * test_pool.c - memory by the page (nt/pages.h) and the pool of reports on
 * it (nt/model/pool.h): a block keeps its bytes when it grows and is zero
 * beyond them (and, from the C library under AddressSanitizer, poisoned
 * past its end); a large one asks for huge pages; objects are zeroed, on a
 * cache line, distinct across chunks, recycled when given back, and move
 * with their chunks from one pool to another; the small chunks shared in an
 * arena (nt/model/arena.h) are zero, apart, and outlive an arena absorbed;
 * a block of nt/model/blocks.h
 * keeps its bytes as it doubles through every size and past the largest.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nt/model/analysis.h"
#include "nt/model/arena.h"
#include "nt/model/blocks.h"
#include "nt/model/pool.h"
#include "nt/pages.h"

#if NT_PAGES_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define PAGE ((size_t)4096)

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void test_pages_grow_keeps_and_zeroes(void **state)
{
	struct nt_pages pg = { 0 };

	(void)state;
	assert_int_equal(nt_pages_grow(&pg, 100), 0);
	assert_non_null(pg.p);
	assert_int_equal((uintptr_t)pg.p % NT_PAGES_ALIGN, 0);
	assert_int_equal(pg.bytes, 100);
	assert_true(pg.mapped >= 100);
	assert_true(all_zero(pg.p, 100));
	memset(pg.p, 0xab, 100);
	/* Past one page, then past the huge-page size: moved or not, the bytes stay. */
	assert_int_equal(nt_pages_grow(&pg, 3 * PAGE + 1), 0);
	assert_int_equal(((unsigned char *)pg.p)[99], 0xab);
	assert_true(all_zero((char *)pg.p + 100, 3 * PAGE + 1 - 100));
	memset(pg.p, 0xcd, 3 * PAGE + 1);
	assert_int_equal(nt_pages_grow(&pg, NT_PAGES_HUGE + 5), 0);
	assert_int_equal(((unsigned char *)pg.p)[3 * PAGE], 0xcd);
	assert_true(all_zero((char *)pg.p + 3 * PAGE + 1, NT_PAGES_HUGE + 5 - (3 * PAGE + 1)));
#if NT_PAGES_MAPPED
	assert_int_equal(pg.mapped % NT_PAGES_HUGE, 0);
#endif
	nt_pages_free(&pg);
	assert_null(pg.p);
	assert_int_equal(pg.mapped, 0);
	nt_pages_free(&pg); /* empty: a no-op */
}

/* As the per-file counts grow, a record at a time, past the huge-page size. */
static void test_pages_grown_a_little_at_a_time(void **state)
{
	struct nt_pages pg = { 0 };
	const size_t rec = 200, n = NT_PAGES_HUGE / 200 + 100;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(nt_pages_grow(&pg, (i + 1) * rec), 0);
		assert_int_equal((uintptr_t)pg.p % NT_PAGES_ALIGN, 0);
		assert_true(pg.mapped >= (i + 1) * rec);
		assert_true(all_zero((char *)pg.p + i * rec, rec));
		memset((char *)pg.p + i * rec, (int)(i % 255) + 1, rec);
		assert_int_equal(((unsigned char *)pg.p)[0], 1);
		assert_int_equal(((unsigned char *)pg.p)[i * rec / 2],
				 (i * rec / 2 / rec) % 255 + 1);
	}
	nt_pages_free(&pg);
}

/*
 * From the C library a block's capacity doubles (one copy per doubling, not
 * per grow); under AddressSanitizer the capacity past its size, on a whole
 * line, is poisoned, so a write past the end is seen as it was when each
 * grow took a block of its exact size.
 */
static void test_pages_past_the_end_poisoned(void **state)
{
#if NT_PAGES_MAPPED || !NT_PAGES_ASAN
	(void)state;
	skip();
#else
	struct nt_pages pg = { 0 };
	char *p;

	(void)state;
	assert_int_equal(nt_pages_grow(&pg, 300), 0);
	p = pg.p;
	assert_int_equal(pg.mapped, 512);
	assert_false(__asan_address_is_poisoned(p + 319));
	assert_true(__asan_address_is_poisoned(p + 320));
	assert_true(__asan_address_is_poisoned(p + 511));
	/* Grown within its capacity: in place, the new part usable and zero. */
	assert_int_equal(nt_pages_grow(&pg, 500), 0);
	assert_ptr_equal(pg.p, p);
	assert_false(__asan_address_is_poisoned(p + 499));
	assert_true(all_zero(p + 300, 200));
	/* Past it: moved, the bytes kept, the tail poisoned again. */
	memset(p, 7, 500);
	assert_int_equal(nt_pages_grow(&pg, 600), 0);
	p = pg.p;
	assert_int_equal(pg.mapped, 1024);
	assert_int_equal(p[499], 7);
	assert_true(all_zero(p + 500, 100));
	assert_true(__asan_address_is_poisoned(p + 640));
	nt_pages_free(&pg);
#endif
}

static void test_pages_too_large(void **state)
{
	struct nt_pages pg = { 0 };

	(void)state;
	assert_int_equal(nt_pages_grow(&pg, PAGE), 0);
	memset(pg.p, 7, PAGE);
	assert_int_equal(nt_pages_grow(&pg, SIZE_MAX - 10), -ENOMEM);
	/* Unchanged by the failure. */
	assert_int_equal(pg.bytes, PAGE);
	assert_int_equal(((unsigned char *)pg.p)[PAGE - 1], 7);
	nt_pages_free(&pg);
}

/* The flags of the mapping that holds @p, from /proc/self/smaps ("" when not found). */
static void vm_flags_of(const void *p, char *flags, size_t size)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool inside = false;

	flags[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *end;
		unsigned long lo = strtoul(line, &end, 16), hi;

		if (*end == '-' && end != line) {
			hi = strtoul(end + 1, NULL, 16);
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(flags, size, "%.200s", line + 8);
		}
	}
	fclose(f);
}

static void test_pages_large_asks_for_huge_pages(void **state)
{
	struct nt_pages small = { 0 }, large = { 0 };
	char flags[256];

	(void)state;
	/*
	 * A kernel without transparent huge pages has nothing to ask, and a
	 * sanitized build takes the C library's memory (nt/pages.h).
	 */
	if (!NT_PAGES_MAPPED || access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0)
		skip();
	assert_int_equal(nt_pages_grow(&small, NT_PAGES_HUGE - PAGE), 0);
	assert_int_equal(nt_pages_grow(&large, NT_PAGES_HUGE), 0);
	vm_flags_of(small.p, flags, sizeof(flags));
	assert_non_null(strstr(flags, "rd"));
	assert_null(strstr(flags, " hg"));
	vm_flags_of(large.p, flags, sizeof(flags));
	assert_non_null(strstr(flags, " hg"));
	/* Grown past the size, the small block asks too, and grown further, still does. */
	assert_int_equal(nt_pages_grow(&small, 2 * NT_PAGES_HUGE), 0);
	vm_flags_of(small.p, flags, sizeof(flags));
	assert_non_null(strstr(flags, " hg"));
	assert_int_equal(nt_pages_grow(&small, 8 * NT_PAGES_HUGE), 0);
	vm_flags_of((char *)small.p + 7 * NT_PAGES_HUGE, flags, sizeof(flags));
	assert_non_null(strstr(flags, " hg"));
	nt_pages_free(&small);
	nt_pages_free(&large);
}

/* More objects than the first chunks hold: past NT_PAGES_HUGE of them. */
#define MANY 5000u

/* With an arena (@state) or without, the objects are the same to their users. */
static void test_pool_objects(void **state)
{
	struct nt_arena arena = { 0 };
	struct nt_pool pl;
	unsigned char **obj = calloc(MANY, sizeof(*obj));

	assert_non_null(obj);
	nt_pool_init(&pl, *state ? &arena : NULL, sizeof(struct nt_flow_result));
	assert_int_equal(pl.obj_bytes % NT_PAGES_ALIGN, 0);
	assert_true(pl.obj_bytes >= sizeof(struct nt_flow_result));
	for (unsigned i = 0; i < MANY; i++) {
		obj[i] = nt_pool_get(&pl);
		assert_non_null(obj[i]);
		/* On a line (sanitized: calloc()'s own, exactly the size). */
		assert_int_equal((uintptr_t)obj[i] % (NT_PAGES_ASAN ? 16 : NT_PAGES_ALIGN), 0);
		assert_true(all_zero(obj[i], pl.size));
		memset(obj[i], (int)(i % 251) + 1, pl.size);
	}
	/* None overlaps another: each still holds its own bytes. */
	for (unsigned i = 0; i < MANY; i++) {
		assert_int_equal(obj[i][0], i % 251 + 1);
		assert_int_equal(obj[i][pl.size - 1], i % 251 + 1);
	}
	assert_int_equal(pl.live, MANY);
	/* Given back, an object is handed out again (but when sanitized), zeroed. */
	nt_pool_put(&pl, obj[17]);
	nt_pool_put(&pl, NULL);
	assert_int_equal(pl.live, MANY - 1);
	obj[17] = nt_pool_get(&pl);
	assert_int_equal(pl.live, MANY);
	assert_non_null(obj[17]);
	assert_true(all_zero(obj[17], pl.size));
#if !NT_PAGES_ASAN
	assert_ptr_equal(obj[17], obj[16] + pl.obj_bytes);
#else
	nt_pool_put(&pl, obj[17]);
	for (unsigned i = 0; i < MANY; i++)
		if (i != 17)
			nt_pool_put(&pl, obj[i]);
#endif
	nt_pool_fini(&pl);
	nt_pool_fini(&pl); /* empty: a no-op */
	/* The first chunks were cut from the arena, the large ones mapped apart (but when sanitized). */
	assert_true((arena.regions != NULL) == (*state && !NT_PAGES_ASAN));
	nt_arena_fini(&arena);
	free(obj);
}

static void test_pool_absorb(void **state)
{
	struct nt_pool a, b;
	unsigned char *in_a, *in_b[100], *given_back;

	(void)state;
	nt_pool_init(&a, NULL, 40);
	nt_pool_init(&b, NULL, 40);
	in_a = nt_pool_get(&a);
	memset(in_a, 1, 40);
	for (unsigned i = 0; i < 100; i++) {
		in_b[i] = nt_pool_get(&b);
		memset(in_b[i], 2, 40);
	}
	given_back = in_b[50];
	nt_pool_put(&b, given_back);
	nt_pool_absorb(&a, &b);
	/* @b is empty, its objects are @a's: still there, and its given-back one is @a's next. */
	assert_null(b.chunks);
	assert_null(b.free);
	assert_int_equal(b.live, 0);
	assert_int_equal(a.live, 1 + 99);
	nt_pool_fini(&b);
	assert_int_equal(in_b[99][39], 2);
	assert_int_equal(in_a[0], 1);
#if !NT_PAGES_ASAN
	assert_ptr_equal(nt_pool_get(&a), given_back);
#else
	(void)given_back;
#endif
	/* Absorbing an empty pool changes nothing. */
	nt_pool_absorb(&a, &b);
	assert_int_equal(in_b[0][0], 2);
	assert_int_equal(a.live, NT_PAGES_ASAN ? 100 : 101);
#if NT_PAGES_ASAN
	nt_pool_put(&a, in_a);
	for (unsigned i = 0; i < 100; i++)
		if (i != 50)
			nt_pool_put(&a, in_b[i]);
#endif
	nt_pool_fini(&a);
	assert_null(a.chunks);
}

/* A block doubled from 8 bytes to 8 times NT_BLOCKS_MAX keeps its bytes at every step. */
static void test_blocks_grow_through_every_size(void **state)
{
	struct nt_blocks b;
	uint64_t *v = NULL, *small;
	size_t n = 0;

	(void)state;
	nt_blocks_init(&b, NULL);
	for (size_t cap = 1; cap * sizeof(*v) <= 8 * NT_BLOCKS_MAX; cap *= 2) {
		uint64_t *w = nt_blocks_resize(&b, v, n * sizeof(*v), cap * sizeof(*v));

		assert_non_null(w);
		for (size_t k = 0; k < n; k++)
			assert_int_equal(w[k], k * 2654435761u);
		for (size_t k = n; k < cap; k++)
			w[k] = k * 2654435761u;
		v = w;
		n = cap;
	}
	/* And back down: a smaller size keeps what fits. */
	v = nt_blocks_resize(&b, v, n * sizeof(*v), 100 * sizeof(*v));
	assert_non_null(v);
	assert_int_equal(v[99], (uint64_t)99 * 2654435761u);
	/* A block given back serves the next of its size (but when sanitized). */
	small = nt_blocks_resize(&b, NULL, 0, 40);
	assert_non_null(small);
	nt_blocks_put(&b, small, 40);
	assert_true(NT_PAGES_ASAN || nt_blocks_resize(&b, NULL, 0, 64) == small);
	if (NT_PAGES_ASAN)
		small = NULL;
	nt_blocks_put(&b, small, 64);
	nt_blocks_put(&b, v, 100 * sizeof(*v));
	nt_blocks_put(&b, NULL, 10);
	nt_blocks_fini(&b);
}

static void test_blocks_absorb(void **state)
{
	struct nt_blocks a, b;
	char *in_b;

	(void)state;
	nt_blocks_init(&a, NULL);
	nt_blocks_init(&b, NULL);
	in_b = nt_blocks_resize(&b, NULL, 0, 300);
	assert_non_null(in_b);
	memset(in_b, 9, 300);
	nt_blocks_absorb(&a, &b);
	nt_blocks_fini(&b);
	/* Now @a's: still there, and given back to @a. */
	assert_int_equal(in_b[299], 9);
	nt_blocks_put(&a, in_b, 300);
	nt_blocks_fini(&a);
}

/* Chunks are zero, on a line, apart, and cut one after another from the region they share. */
static void test_arena_chunks(void **state)
{
	struct nt_arena a = { 0 };
	unsigned char *c[40];

	(void)state;
	assert_null(nt_arena_get(&a, 0));
	for (unsigned i = 0; i < 40; i++) {
		size_t n = (size_t)100 * (i + 1);

		c[i] = nt_arena_get(&a, n);
		assert_non_null(c[i]);
		assert_int_equal((uintptr_t)c[i] % NT_PAGES_ALIGN, 0);
		assert_true(all_zero(c[i], n));
		memset(c[i], (int)i + 1, n);
	}
	for (unsigned i = 0; i < 40; i++)
		assert_int_equal(c[i][(size_t)100 * (i + 1) - 1], i + 1);
	/* 100 bytes take two lines; the next chunk follows them in the first region. */
	assert_ptr_equal(c[1], c[0] + 128);
	/* Too large to be asked: refused, and the arena goes on where it was. */
	assert_null(nt_arena_get(&a, SIZE_MAX - 10));
	assert_non_null(nt_arena_get(&a, 64));
	nt_arena_fini(&a);
	assert_null(a.regions);
	nt_arena_fini(&a); /* empty: a no-op */
}

/* Regions double to a huge page and stay there; one larger than that holds a larger chunk. */
static void test_arena_regions_grow_to_huge_pages(void **state)
{
	struct nt_arena a = { 0 };
	unsigned char *p = NULL, *big;
	char flags[256];

	(void)state;
	for (size_t total = 0; total < 3 * NT_PAGES_HUGE; total += NT_PAGES_HUGE / 8) {
		p = nt_arena_get(&a, NT_PAGES_HUGE / 8);
		assert_non_null(p);
		assert_true(all_zero(p, NT_PAGES_HUGE / 8));
		memset(p, 5, NT_PAGES_HUGE / 8);
	}
	assert_int_equal(a.region_bytes, NT_PAGES_HUGE);
	if (NT_PAGES_MAPPED && access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0) {
		vm_flags_of(p, flags, sizeof(flags));
		assert_non_null(strstr(flags, " hg"));
	}
	big = nt_arena_get(&a, 3 * NT_PAGES_HUGE);
	assert_non_null(big);
	assert_true(all_zero(big, 3 * NT_PAGES_HUGE));
	memset(big, 6, 3 * NT_PAGES_HUGE);
	assert_int_equal(p[NT_PAGES_HUGE / 8 - 1], 5);
	nt_arena_fini(&a);
}

/* An absorbed arena's chunks outlive it; the absorbing one hands out from where it was. */
static void test_arena_absorb(void **state)
{
	struct nt_arena a = { 0 }, b = { 0 }, empty = { 0 };
	unsigned char *in_a, *in_b, *next;

	(void)state;
	nt_arena_absorb(&a, &empty); /* nothing to take: a no-op */
	in_b = nt_arena_get(&b, 200);
	assert_non_null(in_b);
	memset(in_b, 3, 200);
	nt_arena_absorb(&a, &b); /* into an empty arena */
	assert_null(b.regions);
	in_a = nt_arena_get(&a, 100);
	assert_non_null(in_a);
	in_b = nt_arena_get(&b, 300);
	assert_non_null(in_b);
	memset(in_b, 4, 300);
	nt_arena_absorb(&a, &b);
	nt_arena_fini(&b);
	/* Still there (sanitized, a read of a freed region would be seen). */
	assert_int_equal(in_b[299], 4);
	next = nt_arena_get(&a, 64);
	assert_ptr_equal(next, in_a + 128);
	nt_arena_fini(&a);
}

/* Reports come from the analysis's pool, and an absorbed analysis's reports move with it. */
static void test_analysis_reports_absorbed(void **state)
{
	struct nt_analysis_params params = { .max_flows = 16 };
	struct nt_analysis one, two;
	struct nt_flow_result *r;

	(void)state;
	assert_int_equal(nt_analysis_init(&one, &params), 0);
	assert_int_equal(nt_analysis_init(&two, &params), 0);
	assert_int_equal(nt_analysis_file_begin(&two, "two.pcap"), 0);
	nt_analysis_file_end(&two, NULL);
	r = nt_pool_get(&two.reports);
	assert_non_null(r);
	r->stalls = 3;
	two.flows = calloc(1, sizeof(struct nt_flow_result *));
	assert_non_null(two.flows);
	two.flows[two.n_flows++] = r;
	two.flows_cap = 1;
	assert_int_equal(nt_analysis_absorb(&one, &two), 0);
	/* The report's chunk is in @two's arena (but when sanitized): its regions are @one's now. */
	assert_null(two.arena.regions);
	assert_true((one.arena.regions != NULL) == !NT_PAGES_ASAN);
	nt_analysis_fini(&two);
	assert_int_equal(one.n_files, 1);
	assert_string_equal(one.files[0].path, "two.pcap");
	assert_int_equal(one.n_flows, 1);
	assert_int_equal(one.flows[0]->stalls, 3);
	assert_int_equal(one.flows[0]->file, 0);
	nt_analysis_fini(&one);
}

int main(void)
{
	static int with_arena = 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_grow_keeps_and_zeroes),
		cmocka_unit_test(test_pages_grown_a_little_at_a_time),
		cmocka_unit_test(test_pages_past_the_end_poisoned),
		cmocka_unit_test(test_pages_too_large),
		cmocka_unit_test(test_pages_large_asks_for_huge_pages),
		cmocka_unit_test_prestate(test_pool_objects, NULL),
		cmocka_unit_test_prestate(test_pool_objects, &with_arena),
		cmocka_unit_test(test_pool_absorb),
		cmocka_unit_test(test_blocks_grow_through_every_size),
		cmocka_unit_test(test_blocks_absorb),
		cmocka_unit_test(test_arena_chunks),
		cmocka_unit_test(test_arena_regions_grow_to_huge_pages),
		cmocka_unit_test(test_arena_absorb),
		cmocka_unit_test(test_analysis_reports_absorbed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
