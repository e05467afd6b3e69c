/* SPDX-License-Identifier: MIT */
/*
 * verdict.h - the causal rule, in one place.
 *
 * For one round: H = the segment carrying the header's last byte, A = the
 * first segment from the target acknowledging the header, B = the segment
 * carrying the body's first byte.
 *
 *   coalesced   H and B are the same segment (one write, writev, cork)
 *   unheld      B left before A: nothing held the body (TCP_NODELAY,
 *               full-MSS body); also a slow A that the body never waited
 *               for (write(body) returned after A: the application's delay)
 *   held        H -> A (pure ACK) -> B on the wire, A prompt: the order
 *               held and the ACK came at once. On a zero-delay link A often
 *               arrives before write(body) is even called; the round's
 *               body_written_after_ack says so.
 *   stalled     H -> A (pure ACK) -> B, H->A >= threshold, and the body was
 *               written before A: Nagle held the body until the delayed-ACK
 *               timer fired. The part of H->A the delay line's measured
 *               lateness explains is not the target's delay: a prompt ACK
 *               the delay line forwarded late is held, not stalled
 *   incomplete  H, A or B is missing from the capture, or A carries data
 *
 * The names are a public interface (JSON, exit status); see docs/json-schema.md.
 */
#ifndef NT_MODEL_VERDICT_H
#define NT_MODEL_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

enum nt_verdict {
	NT_VERDICT_INCOMPLETE = 0,
	NT_VERDICT_COALESCED,
	NT_VERDICT_UNHELD,
	NT_VERDICT_HELD,
	NT_VERDICT_STALLED,
	NT_VERDICT_COUNT,
};

/* Default --threshold (trace and analyze): a gap at or above it is a delayed-ACK stall. */
#define NT_VERDICT_THRESHOLD_NS_DEFAULT 10000000LL /* 10 ms */

/**
 * struct nt_verdict_marks - what the rule looks at, for one round
 * @h: index of H in the timeline, -1 if not seen
 * @a: index of A, -1 if not seen
 * @b: index of B, -1 if not seen
 * @h_ns: H's timestamp
 * @a_ns: A's timestamp
 * @b_ns: B's timestamp
 * @a_is_pure_ack: A carries no payload
 * @write_body_ns: when write(body) returned, NT_UNKNOWN when unknown
 *                 (header and body written by one call)
 * @path_late_ns: how late the delay line (--rtt) was measured to forward the
 *                round's frames, when H -> A at the capture point holds that
 *                lateness (the client's end: H and A both cross the line)
 *                rather than the target's delay; 0 on time, without a delay
 *                line or when unknown (analyze)
 * @h_late_ns: of @path_late_ns, H's part (0: none measured)
 * @a_late_ns: of @path_late_ns, A's part (0: none measured)
 */
struct nt_verdict_marks {
	long h;
	long a;
	long b;
	int64_t h_ns;
	int64_t a_ns;
	int64_t b_ns;
	bool a_is_pure_ack;
	int64_t write_body_ns;
	int64_t path_late_ns;
	int64_t h_late_ns;
	int64_t a_late_ns;
};

/**
 * nt_verdict_ack_slow() - whether H -> A, less what the path explains,
 * reaches the threshold: the one test of a slow ACK, live and in analyze
 * @h_ns: H's timestamp
 * @a_ns: A's timestamp
 * @path_ns: the part of the gap that is the path's: the round trip to the
 *           ACK's sender where the caller takes it off here, plus the
 *           delay line's measured lateness in forwarding H and A (a live
 *           run's own log, or the -w file's notes on the two frames)
 * @threshold_ns: the threshold
 *
 * The delay line forwards from the traced process: throttled with it, it
 * hands H to the target and A back late, and a prompt ACK
 * (tcp_in_quickack_mode()) reaches the capture point that much later. That
 * part of the gap is the path's, not the delayed-ACK timer's.
 */
static inline bool nt_verdict_ack_slow(int64_t h_ns, int64_t a_ns, int64_t path_ns,
				       int64_t threshold_ns)
{
	return a_ns - h_ns - path_ns >= threshold_ns;
}

/**
 * nt_verdict_waited() - whether data that left after a late ACK had been
 * waiting for it: the one test of a release, live and in analyze
 * @written_ns: when the write() that queued the data returned (a live run's
 *              syscall event, or the -w file's note on the frame);
 *              NT_UNKNOWN when not known
 * @ack_ns: when the ACK was seen
 * @gap_ns: the ACK -> the data leaving
 * @window_ns: how soon after the ACK data that waited leaves, when the write
 *             is not known: the sender's kernel sends at once from tcp_ack()
 *             (tcp_data_snd_check()), so later data was written later
 *
 * A known write settles it either way. Written before the ACK came, the data
 * sat in the send queue, and nothing but the ACK sends a small segment
 * Nagle holds (tcp_nagle_check()): however late it left (a sender throttled
 * while it owned the socket processes the ACK from its backlog, in
 * release_sock()), the ACK released it. Written after, the application
 * waited, whatever the gap.
 */
static inline bool nt_verdict_waited(int64_t written_ns, int64_t ack_ns, int64_t gap_ns,
				     int64_t window_ns)
{
	if (written_ns >= 0)
		return written_ns <= ack_ns;
	return gap_ns <= window_ns;
}

/**
 * nt_verdict_rule() - classify one round
 * @m: the marks
 * @threshold_ns: the stall threshold (header -> ACK gap)
 *
 * Order between H, A and B is decided by timeline position, not by
 * timestamp, so equal timestamps cannot flip a verdict. The threshold is on
 * H -> A less @m->path_late_ns: a gap the delay line's lateness explains is
 * no delayed ACK.
 *
 * Return: the verdict.
 */
enum nt_verdict nt_verdict_rule(const struct nt_verdict_marks *m, int64_t threshold_ns);

/**
 * nt_verdict_by_order() - the part of nt_verdict_rule() the order of H, A
 * and B settles alone
 * @m: the marks (their times are not read)
 * @out: the verdict, when the order settles it
 *
 * Return: true when settled; false when a pure ACK of the header came before
 * the body, so that the H -> A gap decides (nt_verdict_by_gap()).
 */
bool nt_verdict_by_order(const struct nt_verdict_marks *m, enum nt_verdict *out);

/**
 * nt_verdict_by_gap() - the rest of nt_verdict_rule(), for a round the order
 * did not settle
 * @m: the marks (a_ns and write_body_ns are read)
 * @slow: the H -> A gap reached the threshold
 *
 * The model decides @slow on its own ranges of time and judges a round with
 * the same rule as the capture (src/model/predict_sim.c).
 *
 * Return: held, unheld (the body was written after A came) or stalled.
 */
enum nt_verdict nt_verdict_by_gap(const struct nt_verdict_marks *m, bool slow);

struct nt_round;

/**
 * nt_verdict_round() - judge an assembled round: its durations from the
 * marks, then nt_verdict_rule()
 * @r: a round whose marks, start and end are set (nt_rounds_assemble())
 * @threshold_ns: the stall threshold
 */
void nt_verdict_round(struct nt_round *r, int64_t threshold_ns);

/** nt_verdict_name() - public name: "coalesced", "unheld", "held", "stalled", "incomplete" */
const char *nt_verdict_name(enum nt_verdict v);

#endif
