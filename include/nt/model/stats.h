/* SPDX-License-Identifier: MIT */
/*
 * stats.h - order statistics over nanosecond samples, and the summary of a
 * run's rounds built one round at a time from them.
 *
 * Percentiles are nearest rank everywhere: the smallest sample with at
 * least p% of the samples at or below it, always a value that happened.
 */
#ifndef NT_MODEL_STATS_H
#define NT_MODEL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "nt/model/rounds.h"
#include "nt/model/verdict.h"

/**
 * nt_stats_sort() - sort samples ascending, in place
 * @v: the samples
 * @n: how many
 */
void nt_stats_sort(int64_t *v, size_t n);

/**
 * nt_stats_rank() - the 1-based nearest rank of percentile @p among @n samples
 * @n: how many samples (at least 1)
 * @p: the percentile; above 100 counts as 100
 *
 * Return: ceil(@p / 100 * @n), at least 1.
 */
size_t nt_stats_rank(size_t n, unsigned p);

/**
 * nt_stats_percentile() - nearest-rank percentile of sorted samples
 * @sorted: samples sorted ascending
 * @n: how many
 * @p: the percentile, 0 < @p <= 100
 *
 * Nearest rank always returns a sample that happened; interpolation would
 * report a round trip no round had, which misleads on bimodal stall data.
 *
 * Return: the sample, or -1 when @n is 0.
 */
int64_t nt_stats_percentile(const int64_t *sorted, size_t n, unsigned p);

/**
 * nt_stats_select() - the value sorting @v would put at index @k, in
 * expected linear time; @v is reordered
 * @v: the samples
 * @n: how many (at least 1)
 * @k: 0-based index, less than @n
 *
 * Return: the value.
 */
int64_t nt_stats_select(int64_t *v, size_t n, size_t k);

/* Pairs a union holds in itself before it allocates (see struct nt_spans). */
#define NT_SPANS_INLINE 2

/**
 * struct nt_spans - the union of time intervals, as they come: how much
 * wall-clock time at least one of them covered
 * @at: the disjoint intervals not yet settled, [start, end) pairs in order,
 *      on the heap; NULL while they fit in @inl
 * @n: how many pairs
 * @cap: allocated pairs of @at (0 while @at is NULL)
 * @total_ns: the union's length, settled intervals included
 * @inl: the pairs while there are at most NT_SPANS_INLINE of them
 *
 * Intervals that end in the order they are added (as stall episodes do, in
 * capture order) merge at the tail in constant time; any order is handled.
 * Intervals that no later one can reach are settled (nt_spans_settle()):
 * counted and forgotten, so memory stays a few intervals. Those few live in
 * the struct itself: a flow's stall reads the pairs, and a heap array of its
 * own was a cache miss per stall and per union with thousands of flows
 * (issue 31: 14 % of analyze --brief --jobs 1 on 10,000 flows). A zeroed
 * struct is an empty union; a copy is a copy while @at is NULL.
 */
struct nt_spans {
	int64_t (*at)[2];
	size_t n;
	size_t cap;
	int64_t total_ns;
	int64_t inl[NT_SPANS_INLINE][2];
};

/**
 * nt_spans_at() - the union's pairs not yet settled, [start, end) in order
 * @s: the union
 *
 * Return: @s->n pairs, in the struct or on the heap (valid until the next
 * change).
 */
static inline const int64_t (*nt_spans_at(const struct nt_spans *s))[2]
{
	return s->at ? (const int64_t(*)[2])s->at : (const int64_t(*)[2])s->inl;
}

/**
 * nt_spans_add() - add [@start_ns, @end_ns) to the union
 * @s: the union (zeroed at first)
 * @start_ns: the interval's start
 * @end_ns: its end (an empty or reversed interval adds nothing)
 *
 * Return: 0 or -ENOMEM (@s unchanged).
 */
int nt_spans_add(struct nt_spans *s, int64_t start_ns, int64_t end_ns);

/**
 * nt_spans_settle() - forget the intervals that end before @before_ns: no
 * interval added later starts that early (their length stays in the total)
 * @s: the union
 * @before_ns: the earliest start an interval added later can have
 */
void nt_spans_settle(struct nt_spans *s, int64_t before_ns);

/** nt_spans_fini() - free it; it is zeroed again, safe on a zeroed union */
void nt_spans_fini(struct nt_spans *s);

/* The summary remembers this many stalled rounds by number; the rest by their range. */
#define NT_SUMMARY_STALLS_LISTED 12

/**
 * struct nt_stall_note - one stalled round, as the summary lists it
 * @round: 1-based round number
 * @gap_ns: its header->ACK gap
 */
struct nt_stall_note {
	unsigned round;
	int64_t gap_ns;
};

/**
 * struct nt_summary - what the rounds add up to
 * @rounds: how many rounds
 * @verdicts: count per verdict
 * @rtt_p50_ns: round-trip median (nearest rank), -1 with no round trip known
 * @rtt_p90_ns: 90th percentile (nearest rank)
 * @rtt_p99_ns: 99th percentile (nearest rank)
 * @rtt_max_ns: maximum
 * @stall_min_ns: shortest header->ACK gap among stalled rounds, -1 if none
 * @stall_max_ns: longest, -1 if none
 * @client_data_segments: client segments carrying request bytes, all rounds
 * @stalls: the first NT_SUMMARY_STALLS_LISTED stalled rounds, in order
 * @n_stalls: entries in @stalls
 */
struct nt_summary {
	unsigned rounds;
	unsigned verdicts[NT_VERDICT_COUNT];
	int64_t rtt_p50_ns;
	int64_t rtt_p90_ns;
	int64_t rtt_p99_ns;
	int64_t rtt_max_ns;
	int64_t stall_min_ns;
	int64_t stall_max_ns;
	unsigned client_data_segments;
	struct nt_stall_note stalls[NT_SUMMARY_STALLS_LISTED];
	unsigned n_stalls;
};

/**
 * struct nt_summary_acc - a summary built one round at a time
 * @s: the counts so far (percentiles filled by nt_summary_acc_close())
 * @rtt: every known round trip so far: exact percentiles need them all (8 bytes a
 *       round, the only per-round memory a streamed run keeps)
 * @n_rtt: entries in @rtt
 * @cap_rtt: allocated entries
 */
struct nt_summary_acc {
	struct nt_summary s;
	int64_t *rtt;
	size_t n_rtt;
	size_t cap_rtt;
};

/** nt_summary_acc_init() - an empty summary */
void nt_summary_acc_init(struct nt_summary_acc *acc);

/**
 * nt_summary_acc_add() - count one round in
 * @acc: the accumulator
 * @r: the round
 *
 * Return: 0 or -ENOMEM.
 */
int nt_summary_acc_add(struct nt_summary_acc *acc, const struct nt_round *r);

/**
 * nt_summary_acc_close() - the summary of the rounds added
 * @acc: the accumulator (still usable)
 * @out: filled
 */
void nt_summary_acc_close(struct nt_summary_acc *acc, struct nt_summary *out);

/** nt_summary_acc_fini() - free it; safe on a zeroed accumulator */
void nt_summary_acc_fini(struct nt_summary_acc *acc);

/**
 * nt_summary_segments_per_request() - client data segments per round: 1 when
 * the request leaves coalesced, 2 for header and body apart
 * @s: the summary
 *
 * Return: the ratio, 0 with no rounds.
 */
double nt_summary_segments_per_request(const struct nt_summary *s);

#endif
