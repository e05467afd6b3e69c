/* SPDX-License-Identifier: MIT */
/*
 * stats.h - order statistics over nanosecond samples.
 */
#ifndef NT_MODEL_STATS_H
#define NT_MODEL_STATS_H

#include <stddef.h>
#include <stdint.h>

/**
 * nt_stats_sort() - sort samples ascending, in place
 * @v: the samples
 * @n: how many
 */
void nt_stats_sort(int64_t *v, size_t n);

/**
 * nt_stats_percentile() - nearest-rank percentile of sorted samples
 * @sorted: samples sorted ascending
 * @n: how many
 * @p: the percentile, 0 < @p <= 100
 *
 * Nearest rank (the smallest sample with at least p% of samples at or below
 * it) always returns a sample that happened; interpolation would report a
 * round trip no round had, which misleads on bimodal stall data.
 *
 * Return: the sample, or -1 when @n is 0.
 */
int64_t nt_stats_percentile(const int64_t *sorted, size_t n, unsigned p);

#endif
