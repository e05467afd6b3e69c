// SPDX-License-Identifier: MIT
/*
 * stats.c - nearest-rank percentiles (see nt/model/stats.h).
 */
#include <stdlib.h>

#include "nt/model/stats.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void nt_stats_sort(int64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_i64);
}

int64_t nt_stats_percentile(const int64_t *sorted, size_t n, unsigned p)
{
	if (n == 0)
		return -1;
	if (p > 100)
		p = 100;
	/* rank = ceil(p/100 * n), 1-based */
	size_t rank = ((size_t)p * n + 99) / 100;
	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
}
