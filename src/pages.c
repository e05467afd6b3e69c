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

/* @pg's bytes in a mapping of @want bytes, the rest zero: the new start, or NULL. */
static void *remap(const struct nt_pages *pg, size_t want)
{
	void *p;

	if (!pg->p)
		p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		p = mremap(pg->p, pg->mapped, want, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return NULL;
	if (want >= NT_PAGES_HUGE)
		(void)madvise(p, want, MADV_HUGEPAGE);
	return p;
}

static void unmap(struct nt_pages *pg)
{
	if (pg->p)
		munmap(pg->p, pg->mapped);
}

#else /* not Linux, or sanitized: the C library's memory, aligned */

static size_t mapping_for(size_t bytes)
{
	return bytes > SIZE_MAX - NT_PAGES_ALIGN ? 0 : nt_round_up(bytes, NT_PAGES_ALIGN);
}

static void *remap(const struct nt_pages *pg, size_t want)
{
	char *p = aligned_alloc(NT_PAGES_ALIGN, want);

	if (!p)
		return NULL;
	if (pg->p)
		memcpy(p, pg->p, pg->mapped);
	memset(p + pg->mapped, 0, want - pg->mapped);
	free(pg->p);
	return p;
}

static void unmap(struct nt_pages *pg)
{
	free(pg->p);
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
	return 0;
}

void nt_pages_free(struct nt_pages *pg)
{
	unmap(pg);
	*pg = (struct nt_pages){ 0 };
}
