// SPDX-License-Identifier: MIT
/*
 * pages.c - large blocks by the page (see nt/pages.h).
 *
 * A block of NT_PAGES_HUGE or more is mapped in whole huge pages: an
 * anonymous mapping whose length is a multiple of 2 MiB is placed on a 2 MiB
 * boundary (__get_unmapped_area(): "mm: align larger anonymous mappings on
 * THP boundaries", Linux 6.7, kept since 6.13 for such lengths only), so
 * every 2 MiB of it can be one huge page. The advice is a hint: with
 * transparent huge pages off ("never") or on an old kernel it is refused or
 * ignored, and the block is in 4 KiB pages as any other.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nt/pages.h"

#if NT_PAGES_MAPPED
#include <sys/mman.h>
#include <unistd.h>
#endif

#if NT_PAGES_MAPPED

/* Whole pages; whole huge pages from NT_PAGES_HUGE on. 0: too large. */
static size_t mapping_for(size_t bytes)
{
	size_t unit = bytes >= NT_PAGES_HUGE ? NT_PAGES_HUGE : (size_t)sysconf(_SC_PAGESIZE);

	return bytes > SIZE_MAX - unit ? 0 : nt_round_up(bytes, unit);
}

/*
 * @pg's bytes in a mapping of @want bytes, the rest zero: the new start, or NULL.
 *
 * The grow that crosses NT_PAGES_HUGE copies its bytes, less than 2 MiB, into a new mapping
 * rather than mremap() them: moved, the old part keeps its 4 KiB pages, and the 2 MiB that
 * hold it are never a huge page (a flow table's four arrays, up to 1,000 faults at 10,000
 * flows, docs/performance.md). Past that, mremap() moves huge pages as they are.
 */
static void *remap(const struct nt_pages *pg, size_t want)
{
	bool copy = pg->p && pg->mapped < NT_PAGES_HUGE && want >= NT_PAGES_HUGE;
	void *p;

	if (!pg->p || copy)
		p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		p = mremap(pg->p, pg->mapped, want, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return NULL;
	if (want >= NT_PAGES_HUGE)
		(void)madvise(p, want, MADV_HUGEPAGE);
	if (copy) {
		memcpy(p, pg->p, pg->bytes);
		munmap(pg->p, pg->mapped);
	}
	return p;
}

static void unmap(struct nt_pages *pg)
{
	if (pg->p)
		munmap(pg->p, pg->mapped);
}

/* A mapping has no redzones to keep (pages.h): nothing to mark. */
static void fit_poison(const struct nt_pages *pg)
{
	(void)pg;
}

#else /* not Linux, or sanitized: the C library's memory, aligned */

#if NT_PAGES_ASAN
#include <sanitizer/asan_interface.h>
#endif

/*
 * A copy is all a grow can do here, so the block's capacity doubles: a
 * block grown a record at a time (a file's entry, a test's 10,000 steps)
 * is copied a logarithmic number of times, not once a record. Under
 * AddressSanitizer the capacity past the block's size is poisoned
 * (fit_poison()), so a byte written past the end is still seen.
 */
static size_t mapping_for(size_t bytes)
{
	size_t want = NT_PAGES_ALIGN;

	while (want < bytes) {
		if (want > SIZE_MAX / 2)
			return 0;
		want *= 2;
	}
	return want;
}

/* The part of @pg's block in use: its size, on a whole line. */
static size_t used(const struct nt_pages *pg)
{
	return nt_round_up(pg->bytes, NT_PAGES_ALIGN);
}

static void *remap(const struct nt_pages *pg, size_t want)
{
	char *p = aligned_alloc(NT_PAGES_ALIGN, want);

	if (!p)
		return NULL;
	/* Past used() the old block is zero (and poisoned): not read. An empty block uses 0. */
	if (pg->p)
		memcpy(p, pg->p, used(pg));
	memset(p + used(pg), 0, want - used(pg));
	free(pg->p);
	return p;
}

static void unmap(struct nt_pages *pg)
{
	free(pg->p);
}

static void fit_poison(const struct nt_pages *pg)
{
#if NT_PAGES_ASAN
	ASAN_UNPOISON_MEMORY_REGION(pg->p, used(pg));
	ASAN_POISON_MEMORY_REGION((char *)pg->p + used(pg), pg->mapped - used(pg));
#else
	(void)pg;
#endif
}

#endif

int nt_pages_grow(struct nt_pages *pg, size_t bytes)
{
	size_t want = mapping_for(bytes);

	if (!want)
		return -ENOMEM;
	if (want != pg->mapped) {
		void *p = remap(pg, want);

		if (!p)
			return -ENOMEM;
		pg->p = p;
		pg->mapped = want;
	}
	pg->bytes = bytes;
	fit_poison(pg);
	return 0;
}

void nt_pages_free(struct nt_pages *pg)
{
	unmap(pg);
	*pg = (struct nt_pages){ 0 };
}

void *nt_pages_block_new(struct nt_pages_block *b, size_t bytes)
{
	*b = (struct nt_pages_block){ 0 };
	if (bytes >= NT_PAGES_HUGE)
		return nt_pages_grow(&b->pages, bytes) < 0 ? NULL : b->pages.p;
	if (bytes > SIZE_MAX - NT_PAGES_ALIGN)
		return NULL;
	b->raw = calloc(1, bytes + NT_PAGES_ALIGN);
	return b->raw ? (void *)nt_round_up((uintptr_t)b->raw, NT_PAGES_ALIGN) : NULL;
}

void nt_pages_block_free(const struct nt_pages_block *b)
{
	struct nt_pages pages = b->pages;

	if (b->raw)
		free(b->raw);
	else
		nt_pages_free(&pages);
}
