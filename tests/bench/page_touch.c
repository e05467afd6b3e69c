// SPDX-License-Identifier: MIT
/*
 * page_touch.c - what memory new to a process costs on this machine, page by
 * page, asked for up front, or in huge pages (the reference for
 * src/pages.c's choice, docs/performance.md).
 *
 *   cc -O2 -o page_touch tests/bench/page_touch.c && ./page_touch [MIB] [RUNS]
 *
 * Maps MIB (default 100) of anonymous memory and writes one byte of every 4
 * KiB page, three ways, RUNS times each (default 3), interleaved:
 *
 *   4k        each page faulted in by its first write
 *   populate  MADV_POPULATE_WRITE on the whole mapping first (Linux 5.14)
 *   huge      MADV_HUGEPAGE first: one fault fills 2 MiB, where transparent
 *             huge pages are "madvise" or "always"
 *
 * Prints each run's wall time and the process's user and system time for
 * it. On a guest whose host backs each page anew (free page reporting),
 * the first and the last differ by tens of times or by nothing, from one
 * run to the next: run it several times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

enum way { WAY_4K, WAY_POPULATE, WAY_HUGE, WAY_COUNT };

static const char *const way_name[WAY_COUNT] = { "4k", "populate", "huge" };

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double cpu_ms(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e3 + (double)tv->tv_usec / 1e3;
}

/* One run: map, prepare as @way says, touch every page, unmap. 0 or -1. */
static int run(enum way way, size_t bytes)
{
	struct rusage r0, r1;
	double t0, t1;
	char *p;

	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ms();
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("page_touch: mmap");
		return -1;
	}
	if (way == WAY_POPULATE && madvise(p, bytes, MADV_POPULATE_WRITE) < 0)
		perror("page_touch: MADV_POPULATE_WRITE");
	if (way == WAY_HUGE && madvise(p, bytes, MADV_HUGEPAGE) < 0)
		perror("page_touch: MADV_HUGEPAGE");
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = 1;
	t1 = now_ms();
	getrusage(RUSAGE_SELF, &r1);
	printf("%-9s %7.1f ms wall  %7.1f user  %7.1f sys\n", way_name[way], t1 - t0,
	       cpu_ms(&r1.ru_utime) - cpu_ms(&r0.ru_utime),
	       cpu_ms(&r1.ru_stime) - cpu_ms(&r0.ru_stime));
	munmap(p, bytes);
	return 0;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	long runs = argc > 2 ? strtol(argv[2], NULL, 10) : 3;

	if (argc > 3 || mib <= 0 || mib > 65536 || runs <= 0 || runs > 1000) {
		fprintf(stderr, "usage: page_touch [MIB (1-65536)] [RUNS (1-1000)]\n");
		return 2;
	}
	printf("%ld MiB, %ld runs of each, one byte a 4 KiB page\n", mib, runs);
	for (long r = 0; r < runs; r++)
		for (int w = 0; w < WAY_COUNT; w++)
			if (run((enum way)w, (size_t)mib << 20) < 0)
				return 1;
	return 0;
}
