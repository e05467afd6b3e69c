/* SPDX-License-Identifier: MIT */
/*
 * rounds.h - cutting a live exchange's timeline into request/response rounds.
 *
 * Segments are assigned to rounds by sequence ranges, never by wall-clock
 * windows: round i's request is client bytes [1 + (i-1)Q, 1 + iQ) with
 * Q = header + body, its reply target bytes [1 + (i-1)P, 1 + iP). A pure ACK
 * belongs to the round of the last byte it acknowledges, so the client's ACK
 * of reply i riding on header i+1 is the header of round i+1, and a late pure
 * ACK of reply i is still round i.
 */
#ifndef NT_MODEL_ROUNDS_H
#define NT_MODEL_ROUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/event.h"
#include "nt/model/verdict.h"

/**
 * struct nt_shape - the request/response shape of the exchange
 * @header_bytes: bytes of the first part of each request (>= 1)
 * @body_bytes: bytes of the second part (>= 1)
 * @reply_bytes: bytes of each reply (>= 1)
 * @rounds: how many rounds
 */
struct nt_shape {
	uint32_t header_bytes;
	uint32_t body_bytes;
	uint32_t reply_bytes;
	unsigned rounds;
};

/**
 * struct nt_round - one assembled round
 * @index: 1-based
 * @verdict: the causal rule's verdict
 * @marks: H, A, B and write(body) as the rule saw them
 * @start_ns: when the round's first write was entered, 0 if unknown
 * @end_ns: when the read completing the reply returned, 0 if unknown
 * @rtt_ns: @end_ns - @start_ns, -1 when either is unknown
 * @gap_ns: H -> A (header to its acknowledgment), -1 when not both seen
 * @release_ns: A -> B (ACK to body), -1 when not both seen in that order
 * @client_data_segments: client segments carrying request bytes
 * @body_written_after_ack: write(body) returned after A arrived: the body
 *                          was never waiting for the ACK
 * @events: how many events (segments and syscalls) the round holds
 */
struct nt_round {
	unsigned index;
	enum nt_verdict verdict;
	struct nt_verdict_marks marks;
	int64_t start_ns;
	int64_t end_ns;
	int64_t rtt_ns;
	int64_t gap_ns;
	int64_t release_ns;
	unsigned client_data_segments;
	bool body_written_after_ack;
	unsigned events;
};

/**
 * nt_rounds_assign() - give every segment of @tl its round and role
 * @tl: the timeline; segments must carry relative sequence numbers
 * @shape: the exchange's shape
 *
 * Syscall events keep the round their producer gave them.
 */
void nt_rounds_assign(struct nt_timeline *tl, const struct nt_shape *shape);

/**
 * nt_rounds_classify() - give a round and role to the segments of @ev that
 * have none yet (round NT_ROUND_NONE), in order
 * @ev: events in time order (a run's window of not yet retired events)
 * @n: how many
 * @shape: the exchange's sizes
 * @fin_seen: whether a FIN was classified before @ev[0]; updated
 *
 * What nt_rounds_assign() does to a whole timeline, for a run that retires
 * rounds as it goes: classification depends only on the segment and on
 * whether a FIN came before, so a segment is classified once.
 */
void nt_rounds_classify(struct nt_event *ev, size_t n, const struct nt_shape *shape,
			bool *fin_seen);

/**
 * nt_rounds_assemble() - find each round's marks and apply the verdict rule
 * @tl: a timeline after nt_rounds_assign()
 * @shape: the exchange's shape
 * @threshold_ns: stall threshold
 * @rounds: @shape->rounds entries, filled
 */
void nt_rounds_assemble(const struct nt_timeline *tl, const struct nt_shape *shape,
			int64_t threshold_ns, struct nt_round *rounds);

/**
 * nt_rounds_assemble_range() - nt_rounds_assemble() for rounds @first ..
 * @first + @count - 1 over an array of events
 * @ev: events in time order, after classification; events of other rounds
 *      are skipped
 * @n: how many
 * @shape: the exchange's sizes
 * @threshold_ns: the stall threshold
 * @first: the first round to assemble, 1-based
 * @count: how many rounds
 * @rounds: @count entries, filled; their marks index @ev
 *
 * A run retiring rounds as it goes assembles each round from its own events.
 */
void nt_rounds_assemble_range(const struct nt_event *ev, size_t n, const struct nt_shape *shape,
			      int64_t threshold_ns, unsigned first, unsigned count,
			      struct nt_round *rounds);

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
 * nt_rounds_summarize() - count verdicts and take round-trip percentiles
 * @rounds: the rounds
 * @n: how many
 * @out: filled
 *
 * Return: 0 or -ENOMEM.
 */
int nt_rounds_summarize(const struct nt_round *rounds, unsigned n, struct nt_summary *out);

/**
 * nt_summary_segments_per_request() - client data segments per round: 1 when
 * the request leaves coalesced, 2 for header and body apart
 * @s: the summary
 *
 * Return: the ratio, 0 with no rounds.
 */
double nt_summary_segments_per_request(const struct nt_summary *s);

/**
 * nt_summary_bytes_per_segment() - request bytes per client data segment: the
 * packet cost of a fix (TCP_NODELAY sends twice the segments of writev)
 * @s: the summary
 * @shape: the exchange's sizes
 *
 * Return: the ratio, 0 with no segments.
 */
double nt_summary_bytes_per_segment(const struct nt_summary *s, const struct nt_shape *shape);

/* What the exit status checks. NT_EXPECT_DEFAULT_STALL: round 1 not stalled, later rounds stalled. */
enum nt_expect {
	NT_EXPECT_STALLED = 0,
	NT_EXPECT_HELD,
	NT_EXPECT_UNHELD,
	NT_EXPECT_COALESCED,
	NT_EXPECT_ANY,
};

/**
 * nt_expect_parse() - an expectation from its name
 * @name: "stalled", "held", "unheld", "coalesced" or "any"
 * @out: set on success
 *
 * Return: 0 or -EINVAL.
 */
int nt_expect_parse(const char *name, enum nt_expect *out);

/** nt_expect_name() - the expectation's name */
const char *nt_expect_name(enum nt_expect e);

/**
 * nt_expect_check() - whether the rounds met the expectation
 * @e: the expectation, checked on rounds 2..N (round 1 runs in quick-ACK
 *     mode, tcp_event_data_recv()): every one has that verdict; for stalled,
 *     round 1 must also not be stalled; any: always met.
 * @rounds: the rounds
 * @n: how many
 * @reason: on failure, one line naming the first round that broke it
 * @len: size of @reason
 *
 * Return: true when met.
 */
bool nt_expect_check(enum nt_expect e, const struct nt_round *rounds, unsigned n, char *reason,
		     size_t len);

/**
 * nt_expect_round() - nt_expect_check() for one round, for rounds checked as
 * they are retired
 * @e: the expectation
 * @r: the round (its @index says whether it is round 1)
 * @reason: set to why not, when not
 * @len: size of @reason
 *
 * Return: whether the round meets the expectation.
 */
bool nt_expect_round(enum nt_expect e, const struct nt_round *r, char *reason, size_t len);

#endif
