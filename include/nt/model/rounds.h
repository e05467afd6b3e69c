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
 * nt_rounds_classify() - give a round and role to the segments of @ev that
 * have none yet (round NT_ROUND_NONE), in order
 * @ev: events in time order (a run's window of not yet retired events)
 * @n: how many
 * @shape: the exchange's sizes
 * @fin_seen: whether a FIN was classified before @ev[0]; updated
 *
 * A run calls it on its window of events as it goes: classification depends
 * only on the segment and on whether a FIN came before, so a segment is
 * classified once.
 */
void nt_rounds_classify(struct nt_event *ev, size_t n, const struct nt_shape *shape,
			bool *fin_seen);

/**
 * nt_rounds_assemble() - find the marks of rounds @first .. @first + @count - 1
 * in an array of events and apply the verdict rule (nt_verdict_round())
 * @ev: events in time order, after classification; events of other rounds
 *      are skipped
 * @n: how many
 * @shape: the exchange's sizes
 * @threshold_ns: the stall threshold
 * @first: the first round to assemble, 1-based
 * @count: how many rounds
 * @rounds: @count entries, filled; their marks index @ev
 *
 * A run retiring rounds as it goes assembles each round from its own events;
 * a test may assemble every round of a whole timeline at once.
 */
void nt_rounds_assemble(const struct nt_event *ev, size_t n, const struct nt_shape *shape,
			int64_t threshold_ns, unsigned first, unsigned count,
			struct nt_round *rounds);

#endif
