/* SPDX-License-Identifier: MIT */
/*
 * prefetch.h - asking for every cache line of a range at once, before it is
 * read or written: with thousands of flows, a flow's entry and report have
 * left every cache, and the lines asked for together arrive together, not
 * one miss after the other. Hints only (__builtin_prefetch()): nothing may
 * depend on them.
 */
#ifndef NT_PREFETCH_H
#define NT_PREFETCH_H

/* The lines of [@from, @to), a non-empty range, to be written. */
static inline void nt_prefetch_write(const void *from, const void *to)
{
	const char *p = from, *end = to;

	/* A step of a line from an unaligned start still lands in each line; the last, then. */
	for (; p < end; p += 64)
		__builtin_prefetch(p, 1);
	__builtin_prefetch(end - 1, 1);
}

/* The lines of [@from, @to), a non-empty range, to be read. */
static inline void nt_prefetch_read(const void *from, const void *to)
{
	const char *p = from, *end = to;

	for (; p < end; p += 64)
		__builtin_prefetch(p, 0);
	__builtin_prefetch(end - 1, 0);
}

#endif
