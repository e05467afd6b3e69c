// SPDX-License-Identifier: MIT
/*
 * stats.c - nearest-rank percentiles, quickselect, and the summary of a
 * run's rounds (see nt/model/stats.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

size_t nt_stats_rank(size_t n, unsigned p)
{
	size_t rank;

	if (p > 100)
		p = 100;
	/* rank = ceil(p/100 * n), 1-based */
	rank = ((size_t)p * n + 99) / 100;
	return rank ? rank : 1;
}

int64_t nt_stats_percentile(const int64_t *sorted, size_t n, unsigned p)
{
	if (n == 0)
		return -1;
	return sorted[nt_stats_rank(n, p) - 1];
}

/*
 * Hoare's FIND (quickselect). Sorting every flow's stalls for one percentile
 * cost ~40 instructions a packet in analyze. A pivot sequence that keeps the
 * ranges from shrinking (a crafted capture) falls back to nt_stats_sort()
 * after a few dozen rounds, so the worst case stays n log n.
 */
int64_t nt_stats_select(int64_t *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, at = (ptrdiff_t)k;

	for (int round = 0; lo < hi; round++) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		ptrdiff_t i = lo, j = hi;

		if (round == 64) {
			nt_stats_sort(v + lo, (size_t)(hi - lo + 1));
			break;
		}
		/* [lo, j] <= pivot, [i, hi] >= pivot, anything between == pivot */
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (at <= j)
			hi = j;
		else if (at >= i)
			lo = i;
		else
			break;
	}
	return v[at];
}

/* Where the pairs are: in the struct until they outgrow it. */
static int64_t (*pairs(struct nt_spans *s))[2]
{
	return s->at ? s->at : s->inl;
}

/*
 * The first interval that ends at or after @start_ns: with intervals ending
 * in order, the new one merges with it and everything after it.
 */
static size_t first_reaching(int64_t (*at)[2], size_t n, int64_t start_ns)
{
	size_t i = n;

	while (i > 0 && at[i - 1][1] >= start_ns)
		i--;
	return i;
}

/* Room for one more pair: the heap array doubles; the first one takes the inline pairs over. */
static int grow(struct nt_spans *s)
{
	size_t cap = s->cap ? s->cap * 2 : 8;
	int64_t(*at)[2] = realloc(s->at, cap * sizeof(*at));

	if (!at)
		return -ENOMEM;
	if (!s->at)
		memcpy(at, s->inl, s->n * sizeof(*at));
	s->at = at;
	s->cap = cap;
	return 0;
}

int nt_spans_add(struct nt_spans *s, int64_t start_ns, int64_t end_ns)
{
	int64_t(*at)[2] = pairs(s);
	size_t i, j;

	if (end_ns <= start_ns)
		return 0;
	i = first_reaching(at, s->n, start_ns);
	/* Intervals from i on overlap the new one, but for any starting after its end. */
	for (j = i; j < s->n && at[j][0] <= end_ns; j++) {
		if (at[j][0] < start_ns)
			start_ns = at[j][0];
		if (at[j][1] > end_ns)
			end_ns = at[j][1];
		s->total_ns -= at[j][1] - at[j][0];
	}
	if (i == j && s->n == (s->at ? s->cap : NT_SPANS_INLINE)) {
		if (grow(s) < 0)
			return -ENOMEM;
		at = s->at;
	}
	/* [i, j) collapse into one interval at i; the rest moves to follow it. */
	memmove(&at[i + 1], &at[j], (s->n - j) * sizeof(*at));
	s->n = s->n - (j - i) + 1;
	at[i][0] = start_ns;
	at[i][1] = end_ns;
	s->total_ns += end_ns - start_ns;
	return 0;
}

void nt_spans_settle(struct nt_spans *s, int64_t before_ns)
{
	int64_t(*at)[2] = pairs(s);
	size_t k = 0;

	while (k < s->n && at[k][1] < before_ns)
		k++;
	if (!k)
		return;
	/*
	 * A flow's unions settle to the one pair just added, nearly always:
	 * move it by hand rather than through a memmove() call sized at run
	 * time, which took 7 % of analyze --brief --jobs 1's samples on 10,000
	 * flows (1.7 % after; issue 31).
	 */
	if (s->n - k == 1) {
		at[0][0] = at[k][0];
		at[0][1] = at[k][1];
	} else {
		memmove(&at[0], &at[k], (s->n - k) * sizeof(*at));
	}
	s->n -= k;
}

void nt_spans_fini(struct nt_spans *s)
{
	free(s->at);
	memset(s, 0, sizeof(*s));
}

void nt_summary_acc_init(struct nt_summary_acc *acc)
{
	memset(acc, 0, sizeof(*acc));
	acc->s.stall_min_ns = acc->s.stall_max_ns = -1;
	acc->s.rtt_p50_ns = acc->s.rtt_p90_ns = acc->s.rtt_p99_ns = acc->s.rtt_max_ns = -1;
}

static int keep_rtt(struct nt_summary_acc *acc, int64_t rtt_ns)
{
	if (acc->n_rtt == acc->cap_rtt) {
		size_t cap = acc->cap_rtt ? acc->cap_rtt * 2 : 64;
		int64_t *rtt = realloc(acc->rtt, cap * sizeof(*rtt));

		if (!rtt)
			return -ENOMEM;
		acc->rtt = rtt;
		acc->cap_rtt = cap;
	}
	acc->rtt[acc->n_rtt++] = rtt_ns;
	return 0;
}

int nt_summary_acc_add(struct nt_summary_acc *acc, const struct nt_round *r)
{
	struct nt_summary *s = &acc->s;

	if (r->rtt_ns >= 0 && keep_rtt(acc, r->rtt_ns) < 0)
		return -ENOMEM;
	s->rounds++;
	s->verdicts[r->verdict]++;
	s->client_data_segments += r->client_data_segments;
	if (r->verdict != NT_VERDICT_STALLED)
		return 0;
	if (s->stall_min_ns < 0 || r->gap_ns < s->stall_min_ns)
		s->stall_min_ns = r->gap_ns;
	if (r->gap_ns > s->stall_max_ns)
		s->stall_max_ns = r->gap_ns;
	if (s->n_stalls < NT_SUMMARY_STALLS_LISTED)
		s->stalls[s->n_stalls++] =
			(struct nt_stall_note){ .round = r->index, .gap_ns = r->gap_ns };
	return 0;
}

void nt_summary_acc_close(struct nt_summary_acc *acc, struct nt_summary *out)
{
	*out = acc->s;
	nt_stats_sort(acc->rtt, acc->n_rtt);
	out->rtt_p50_ns = nt_stats_percentile(acc->rtt, acc->n_rtt, 50);
	out->rtt_p90_ns = nt_stats_percentile(acc->rtt, acc->n_rtt, 90);
	out->rtt_p99_ns = nt_stats_percentile(acc->rtt, acc->n_rtt, 99);
	out->rtt_max_ns = acc->n_rtt ? acc->rtt[acc->n_rtt - 1] : -1;
}

void nt_summary_acc_fini(struct nt_summary_acc *acc)
{
	free(acc->rtt);
	acc->rtt = NULL;
	acc->n_rtt = acc->cap_rtt = 0;
}

double nt_summary_segments_per_request(const struct nt_summary *s)
{
	return s->rounds ? (double)s->client_data_segments / s->rounds : 0;
}
