/* SPDX-License-Identifier: MIT */
/*
 * record.h - the record of one traced exchange (struct nt_record; "run" is
 * only ever the command), everything the renderers need: the
 * configuration as run, the timeline, the rounds and their summary, the
 * capture's counters and whether the expectation held. Pure data.
 */
#ifndef NT_MODEL_RECORD_H
#define NT_MODEL_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/event.h"
#include "nt/model/evidence.h"
#include "nt/model/expect.h"
#include "nt/model/predict.h"
#include "nt/model/rounds.h"
#include "nt/model/stats.h"

#define NT_SCHEMA_VERSION 1

/**
 * struct nt_record_config - how the run was made
 * @variant: variant name ("default")
 * @shape: sizes and rounds
 * @pause_ns: pause between rounds
 * @threshold_ns: stall threshold
 * @timeout_ns: per-round timeout
 * @capture: capture back end name
 * @expect: the expectation checked for the exit status
 * @family: AF_INET or AF_INET6
 * @client_addr: printable client address
 * @target_addr: printable target address
 * @client_port: client port
 * @target_port: target port
 * @ifname: the captured interface (the client's or the target's veth end)
 * @capture_at: "client" or "target": the end of the path the capture ran at
 * @rtt_ns: round-trip time the path added (0: none)
 * @delay_line: what added it: "none", or "wire" (the lab's user-space
 *              forwarder)
 * @kernel: `uname -r` of the kernel that ran it
 * @hz_source: where the model's HZ came from ("/proc/config.gz", ...), or
 *             "assumed" when the kernel's configuration could not be read
 */
struct nt_record_config {
	const char *variant;
	struct nt_shape shape;
	int64_t pause_ns;
	int64_t threshold_ns;
	int64_t timeout_ns;
	const char *capture;
	enum nt_expect expect;
	int family;
	char client_addr[48];
	char target_addr[48];
	uint16_t client_port;
	uint16_t target_port;
	const char *ifname;
	const char *capture_at;
	int64_t rtt_ns;
	const char *delay_line;
	char kernel[72];
	char hz_source[96];
};

/**
 * struct nt_capture_counts - what the capture saw and lost
 * @frames: frames delivered to us
 * @segments: frames decoded as segments of the traced connection
 * @not_decoded: frames skipped as not TCP, truncated, malformed or foreign
 * @kernel_received: the back end's own received count
 * @kernel_dropped: frames the kernel dropped before we read them
 * @if_dropped: frames the interface dropped
 * @wire_dropped: frames the delay line lost, in either direction
 *                (nt_wire_dropped()); 0 without one
 * @out_of_order: segments of the connection that arrived out of order at the
 *                capture point, by the sender's direction (nt/model/reorder.h)
 */
struct nt_capture_counts {
	uint64_t frames;
	uint64_t segments;
	uint64_t not_decoded;
	uint64_t kernel_received;
	uint64_t kernel_dropped;
	uint64_t if_dropped;
	uint64_t wire_dropped;
	uint64_t out_of_order[2];
};

/**
 * struct nt_record_timings - where a live run's wall time went (CLOCK_MONOTONIC)
 * @lab_ns: nt_lab_up(): namespaces, veth, addresses, routes, link activation
 * @listen_ns: the target's listener and its evidence files
 * @capture_open_ns: opening the capture (and the -w writer)
 * @exchange_ns: connect, every round, and the teardown seen in the capture
 * @assemble_ns: the last drain of the capture and its counters (rounds are
 *               assembled and written as they complete, inside @exchange_ns;
 *               the last ones and the summary after @close_ns, untimed: the
 *               report cannot hold the time it takes to write itself)
 * @close_ns: closing the capture, the sockets and the lab (closing an
 *            AF_PACKET socket waits for an RCU grace period: packet_release())
 * @total_ns: the whole live run
 */
struct nt_record_timings {
	int64_t lab_ns;
	int64_t listen_ns;
	int64_t capture_open_ns;
	int64_t exchange_ns;
	int64_t assemble_ns;
	int64_t close_ns;
	int64_t total_ns;
};

/**
 * struct nt_round_view - one round as a renderer sees it
 * @round: the assembled round (NULL for the handshake and teardown views)
 * @evidence: the kernel's evidence for it, NULL when none was gathered
 * @predicted: the model's prediction for the round, NULL when the run has
 *             none (analyze, the handshake and teardown views)
 * @evidence_diff: where the kernel's sampled state differs from the model's
 *                 (nt_predict_check_evidence(); nt_predict_evidence_words()
 *                 words it), NULL or with no field when it agrees or was
 *                 not compared
 * @ev: the round's events in time order; @round's marks index this array
 * @n: how many
 */
struct nt_round_view {
	const struct nt_round *round;
	const struct nt_round_evidence *evidence;
	const struct nt_predict_round *predicted;
	const struct nt_predict_evidence_diff *evidence_diff;
	const struct nt_event *ev;
	size_t n;
};

/**
 * nt_round_view_origin() - what a round's times are shown relative to
 * @rv: the round
 *
 * Return: when its first write was entered, else its first event's time
 * (0 for a round with neither).
 */
int64_t nt_round_view_origin(const struct nt_round_view *rv);

struct nt_record;

/**
 * struct nt_record_sink - where a run hands its parts as they are final
 * @begin: the configuration and the handshake, before round 1
 * @round: one round, in order; its events are freed afterwards
 * @end: the teardown (and any segment that came after its round was handed
 *       over), with the summary and the expectation filled in
 * @ctx: passed to each
 *
 * Each returns 0 or a negative errno, which stops the run. A run retires
 * rounds while it goes, so memory does not grow with their number.
 */
struct nt_record_sink {
	int (*begin)(void *ctx, const struct nt_record *run, const struct nt_round_view *handshake);
	int (*round)(void *ctx, const struct nt_record *run, const struct nt_round_view *rv);
	int (*end)(void *ctx, const struct nt_record *run, const struct nt_round_view *teardown);
	void *ctx;
};

/**
 * struct nt_record - one traced run
 * @cfg: configuration
 * @tl: the window: events not yet handed to the sink, in time order (the
 *      whole timeline until the first nt_record_retire(); empty after
 *      nt_record_finish())
 * @summary: the rounds' summary (after nt_record_finish())
 * @counts: capture counters
 * @client_mss: MSS option in the client's SYN (0 unknown)
 * @target_mss: MSS option in the target's SYN-ACK (0 unknown)
 * @teardown_seen: the FIN exchange was captured in full
 * @uncertain: frames were lost, so a verdict may be wrong
 * @expectation_met: the expectation held (and nothing is uncertain)
 * @interrupted: the run was stopped by a signal before it finished
 * @expectation_why: why the expectation did not hold (nt_label_expectation()
 *                   words it)
 * @evidence: the kernel's own state per round and over the run
 * @predict: the model, one round ahead of what was retired
 * @predicted: the last retired round's prediction
 * @fix: why the configuration's fix works or fails (nt_predict_fix())
 * @no_prediction: why the model could not predict this run (empty when it
 *                 could: @fix is then set)
 * @predict_misses: retired rounds whose verdict the model did not accept
 * @evidence_disagreements: retired rounds whose sampled kernel state
 *                          differed from the model's where it was certain
 * @evidence_diff: the last such difference
 * @predicting: the model predicts every round (nt_record_predict())
 * @timings: where the run's wall time went
 * @retired: rounds handed to the sink so far
 * @begun: the sink's begin() was called
 * @fin_seen: classification state (a FIN was classified)
 * @expect_failed: a retired round did not meet the expectation
 * @finished: nt_record_finish() was called: the events are gone
 * @first_start_ns: round 1's first write (0 unknown): the teardown's time origin
 * @prev_reply_read_ns: the last retired round's read(reply) return, for the
 *                      next round's pause (nt_record_observe_schedule())
 * @path_late_ns: how late, at most, the delay line released a frame since
 *                rounds were last retired (set by the live trace before
 *                nt_record_retire(); 0 on time or without a delay line): a
 *                round's lateness when @segment_late no longer knows one of
 *                its segments (it counts the next round's frames too)
 * @segment_late: how late the delay line forwarded one captured segment
 *                (nanoseconds; -1 when it does not know), NULL without a
 *                delay line: set by the live trace, which owns what it reads
 *                for as long as the run retires rounds
 * @segment_late_ctx: @segment_late's argument
 * @sched: the last retired round's observed schedule
 * @disturbed_rounds: rounds whose schedule the knobs' windows do not allow,
 *                    predicted on what the programs did (nt_predict_observe()),
 *                    or whose stall a late delayed-ACK timer made
 *                    (nt_predict_measured_ack()): those predicted disturbed
 * @acc: the summary so far
 * @scratch: one round's events while it is retired
 * @scratch_cap: allocated entries in @scratch
 */
struct nt_record {
	struct nt_record_config cfg;
	struct nt_timeline tl;
	struct nt_summary summary;
	struct nt_capture_counts counts;
	uint16_t client_mss;
	uint16_t target_mss;
	bool teardown_seen;
	bool uncertain;
	bool expectation_met;
	bool interrupted;
	struct nt_expect_why expectation_why;
	struct nt_record_evidence evidence;
	struct nt_predict predict;
	struct nt_predict_round predicted;
	struct nt_predict_why fix;
	char no_prediction[NT_ERR_MSG_MAX];
	unsigned predict_misses;
	unsigned evidence_disagreements;
	struct nt_predict_evidence_diff evidence_diff;
	bool predicting;
	struct nt_record_timings timings;
	unsigned retired;
	bool begun;
	bool fin_seen;
	bool expect_failed;
	bool finished;
	int64_t first_start_ns;
	int64_t prev_reply_read_ns;
	int64_t path_late_ns;
	int64_t (*segment_late)(const void *ctx, const struct nt_segment *seg);
	const void *segment_late_ctx;
	struct nt_predict_sched sched;
	unsigned disturbed_rounds;
	struct nt_summary_acc acc;
	struct nt_event *scratch;
	size_t scratch_cap;
};

/**
 * nt_record_predict() - predict every round with the model before it is retired
 * @run: a run with no round retired yet
 * @knobs: the knobs of the exchange as run (nt/model/predict.h)
 * @err: why the model refused them
 *
 * Each retired round is then predicted (struct nt_round_view @predicted),
 * its verdict checked against the prediction (@predict_misses; the
 * expectation `auto`) and its evidence against the predicted state.
 *
 * Return: 0, or -EINVAL when the model does not take the knobs (the run
 * then has no prediction).
 */
int nt_record_predict(struct nt_record *run, const struct nt_predict_knobs *knobs,
		      struct nt_err *err);

/**
 * nt_record_observe_schedule() - what the programs did in one round, from its
 * system call events (struct nt_predict_sched)
 * @ev: the round's events, in time order
 * @n: how many
 * @one_way_ns: from the capture point to the target (half the RTT when the
 *              capture is at the client, 0 at the target)
 * @prev_reply_read_ns: when the client's read of the previous reply
 *                      returned (NT_UNKNOWN before round 1); set to this
 *                      round's
 * @out: filled; -1 for what the events do not show
 */
void nt_record_observe_schedule(const struct nt_event *ev, size_t n, int64_t one_way_ns,
				int64_t *prev_reply_read_ns, struct nt_predict_sched *out);

/**
 * nt_record_retire() - hand rounds up to @upto to @sink and drop their events
 * @run: a run whose window holds every event of those rounds
 * @upto: the last round to retire (clamped to the configured rounds)
 * @sink: where they go; NULL drops them (only the summary keeps them)
 *
 * The first call also hands over the handshake (begin()). A live run calls
 * this once the capture has shown a later round, so nothing of a retired
 * round is still to come.
 *
 * Return: 0, -ENOMEM, or the sink's error.
 */
int nt_record_retire(struct nt_record *run, unsigned upto, const struct nt_record_sink *sink);

/**
 * nt_record_finish() - retire the remaining rounds, summarize, check the
 * expectation and hand the teardown to @sink
 * @run: a run whose timeline is complete
 * @sink: as for nt_record_retire()
 *
 * Return: 0, -ENOMEM, -EALREADY (finished before), or the sink's error.
 */
int nt_record_finish(struct nt_record *run, const struct nt_record_sink *sink);

/**
 * nt_record_fini() - free what the run owns; safe on a zeroed run
 * @run: the run
 */
void nt_record_fini(struct nt_record *run);

#endif
