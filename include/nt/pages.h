/* SPDX-License-Identifier: MIT */
/*
 * pages.h - large blocks of memory taken from the kernel by the page, for
 * the tables that grow with the flows of a capture (the flow table, the
 * reports' pool).
 *
 * Why not malloc(): a flow's state is touched first when the flow starts, so
 * an analysis of 100,000 flows faults in some 180 MB, page by page. Where
 * the kernel offers transparent huge pages on request ("madvise", Debian's
 * default), a block of at least NT_PAGES_HUGE bytes asks for them
 * (MADV_HUGEPAGE): one fault then fills 2 MiB instead of 4 KiB. That can
 * only be asked of a mapping of our own: advising a part of malloc()'s
 * block splits the mapping, and glibc's realloc(), whose mremap() then
 * spans two mappings, falls back to a copy. A block grows by mremap(),
 * which moves its pages, never its bytes, but for the one grow that
 * crosses NT_PAGES_HUGE: that copies what it holds (less than 2 MiB), so
 * that the whole block can be huge pages. Elsewhere (not Linux: the model's
 * WebAssembly build) the same calls are aligned_alloc(), a copy and free().
 *
 * Memory from here is zero when first handed out, and aligned to at least
 * NT_PAGES_ALIGN bytes (a cache line), on Linux to the page.
 *
 * Under AddressSanitizer the blocks are the C library's too (and the pool's
 * objects each an allocation of its own, nt/model/pool.h): a mapping of our
 * own has no redzones, and a byte written past a table's end would go
 * unseen by the suite's sanitized run.
 */
#ifndef NT_PAGES_H
#define NT_PAGES_H

#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define NT_PAGES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NT_PAGES_ASAN 1
#endif
#endif
#ifndef NT_PAGES_ASAN
#define NT_PAGES_ASAN 0
#endif

/* 1: blocks are mappings of their own (Linux, not sanitized), 0: the C library's. */
#if defined(__linux__) && !NT_PAGES_ASAN
#define NT_PAGES_MAPPED 1
#else
#define NT_PAGES_MAPPED 0
#endif

/* Blocks this large or larger ask for huge pages (x86-64's PMD size). */
#define NT_PAGES_HUGE ((size_t)2 << 20)
/* The least alignment of a block. */
#define NT_PAGES_ALIGN 64

/**
 * struct nt_pages - one block
 * @p: its first byte, NULL while empty
 * @bytes: its size as given to nt_pages_grow() (0 while empty)
 * @mapped: bytes actually held (a whole number of pages, or of huge pages;
 *          from the C library a power of two, its part past @bytes poisoned
 *          under AddressSanitizer)
 *
 * A zeroed struct is an empty block.
 */
struct nt_pages {
	void *p;
	size_t bytes;
	size_t mapped;
};

/**
 * nt_pages_grow() - make a block @bytes long, keeping its contents
 * @pg: the block (empty at first)
 * @bytes: the new size, more than 0 and at least its size now
 *
 * The block may move (@pg->p changes); bytes beyond the old size are zero.
 *
 * Return: 0, or -ENOMEM (@pg unchanged).
 */
int nt_pages_grow(struct nt_pages *pg, size_t bytes);

/**
 * nt_pages_free() - give a block back; safe on an empty one
 * @pg: the block, empty afterwards
 */
void nt_pages_free(struct nt_pages *pg);

/**
 * struct nt_pages_block - where a block of nt_pages_block_new() came from
 * @pages: its mapping, when it is one of its own (NT_PAGES_HUGE or more)
 * @raw: the C library's pointer to free, when smaller; NULL otherwise
 *
 * A pool's chunk and an arena's region keep this in their own first bytes:
 * nt_pages_block_free() takes a copy, made before the block goes.
 */
struct nt_pages_block {
	struct nt_pages pages;
	void *raw;
};

/**
 * nt_pages_block_new() - a block that is never grown, zero, on a line:
 * whole huge pages of its own from NT_PAGES_HUGE on, less from calloc()
 * (fresh pages it knows are zero stay untouched; a mapping for a small
 * block would be a system call and a page's rounding each)
 * @b: filled with where it came from
 * @bytes: its size, more than 0
 *
 * Return: its first byte, or NULL when memory ran out.
 */
void *nt_pages_block_new(struct nt_pages_block *b, size_t bytes);

/**
 * nt_pages_block_free() - give a block of nt_pages_block_new() back
 * @b: where it came from (a copy, when it was kept in the block)
 */
void nt_pages_block_free(const struct nt_pages_block *b);

/**
 * nt_round_up() - @n rounded up to a multiple of @unit
 * @n: a size
 * @unit: more than 0
 *
 * Return: the multiple, or less than @n when it does not fit in a size_t.
 */
static inline size_t nt_round_up(size_t n, size_t unit)
{
	return (n + unit - 1) / unit * unit;
}

/**
 * nt_lines_alloc() - a block on cache lines of its own, for data one thread
 * writes often while another thread works beside it
 * @bytes: its size
 *
 * malloc() packs blocks 16 bytes apart, so two threads' blocks can share a
 * cache line, and each write of one thread then takes the line from the
 * other (false sharing). Rounded up to whole lines, the block shares none.
 *
 * Return: the block (freed by free()), or NULL.
 */
static inline void *nt_lines_alloc(size_t bytes)
{
	return aligned_alloc(NT_PAGES_ALIGN,
			     bytes ? nt_round_up(bytes, NT_PAGES_ALIGN) : NT_PAGES_ALIGN);
}

#endif
