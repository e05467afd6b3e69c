/* SPDX-License-Identifier: MIT */
/*
 * stall.h - the stall-episode rule for captures of unknown connections.
 *
 * One connection's segments are fed in capture order to one function,
 * nt_stall_feed(), which owns the whole causal rule (see docs/analyze.md):
 *
 *   H    a data segment from side A, shorter than A's effective MSS, not a
 *        retransmission, from a sender not seen with Nagle off; A sends no
 *        further data after it
 *   ACK  B's first segment acknowledging H is a pure ACK with ack exactly
 *        H.seq + H.len, seen at least the threshold after H
 *   R    A's next data segment starts at H.seq + H.len, is itself shorter
 *        than the MSS, is seen no sooner than one round trip between the
 *        capture point and A after the ACK and no later than release +
 *        that round trip (rtt(A), the smallest of several samples), and no
 *        data of B's could have reached A before R left (R would answer it)
 *
 * H -> ACK -> R is a stall: Nagle held R until the delayed ACK fired. When R
 * comes later than that window, A had nothing to send when the ACK came:
 * application think time. The tracker is pure: no I/O, no allocation.
 */
#ifndef NT_MODEL_STALL_H
#define NT_MODEL_STALL_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/event.h"
#include "nt/model/note.h"

/*
 * Without a SYN the MSS is inferred: the largest segment seen so far, but
 * never below the smallest MSS a host may assume (RFC 9293 §3.7.1: 536 for
 * IPv4; IPv6's 1280-byte minimum MTU less 60 bytes of headers gives 1220).
 */
#define NT_STALL_MSS_FLOOR_V4 536u
#define NT_STALL_MSS_FLOOR_V6 1220u

/*
 * Default release window (--release-us): how soon after the late ACK the held
 * data must leave at its sender to count as released by it. A sender's
 * kernel sends at once (tcp_ack() -> tcp_data_snd_check()); 1 ms leaves room
 * for a busy sender, far below any application's think time.
 */
#define NT_STALL_RELEASE_NS_DEFAULT 1000000LL /* 1 ms */

/*
 * RTT samples of data (the peer's data -> this side's ACK of it) before the
 * smallest of them bounds the release window; one handshake sample is
 * enough (a SYN is answered at once). One data sample may be an ACK the
 * receiver delayed or sent with its answer: seconds, not the path.
 */
#define NT_STALL_RTT_SAMPLES 3u

/* The timestamps option on a data segment: 10 bytes padded to 12 (RFC 7323 §3). */
#define NT_STALL_TS_OPT_BYTES 12u

enum nt_episode_kind {
	NT_EPISODE_STALL = 0,  /* the next data left right after the delayed ACK */
	NT_EPISODE_THINK_TIME, /* the ACK was late, but the next data came much later */
};

/* Which delayed-ACK timer the ACK delay looks like (names: nt_delack_name()). */
enum nt_delack_class {
	NT_DELACK_OTHER = 0,
	NT_DELACK_MIN, /* TCP_DELACK_MIN, HZ/25: 40 ms plus a tick or two */
	NT_DELACK_MAX, /* TCP_DELACK_MAX, HZ/5: 200 ms */
};

/**
 * struct nt_stall_params - the rule's knobs
 * @threshold_ns: smallest H -> ACK delay that counts (--threshold)
 * @release_ns: how soon after the ACK R must leave, at the sender (--release-us)
 */
struct nt_stall_params {
	int64_t threshold_ns;
	int64_t release_ns;
};

/**
 * struct nt_stall_seg - what the rule needs of one segment
 * @t_ns: capture timestamp
 * @note: what a nagle-trace -w pcapng noted on it (the delay line's
 *        lateness, when its write returned); zeroed when nothing
 * @dir: direction on the connection
 * @flags: TCP flags
 * @seq: absolute sequence number
 * @ack: absolute acknowledgment number (with NT_TCP_ACK)
 * @len: payload bytes (from the IP header)
 * @mss_opt: MSS option of a SYN, 0 when absent
 * @has_ts: the segment carries the timestamps option
 * @frame_index: frame number in the capture, copied into episodes
 */
struct nt_stall_seg {
	int64_t t_ns;
	struct nt_frame_note note;
	enum nt_dir dir;
	uint8_t flags;
	uint32_t seq;
	uint32_t ack;
	uint32_t len;
	uint16_t mss_opt;
	bool has_ts;
	uint64_t frame_index;
};

/**
 * struct nt_stall_episode - one H -> ACK -> R episode
 * @kind: stall or think time
 * @dir: direction of the held data (A -> B)
 * @delack: which delayed-ACK timer the ACK delay matches
 * @held_t_ns: when H was seen
 * @ack_t_ns: when the ACK was seen
 * @release_t_ns: when R was seen
 * @held_seq: H's absolute sequence number
 * @held_len: H's payload bytes
 * @ack_delay_ns: ACK - H
 * @ack_late_ns: the delay line's noted lateness of H and the ACK, taken off
 *               @ack_delay_ns where the rule judged it (0: none noted)
 * @release_gap_ns: R - ACK
 * @window_ns: the release window applied (release + rtt(A))
 * @stall_ns: R - H, the time the held data lost
 * @held_frame: frame index of H
 * @ack_frame: frame index of the ACK
 * @release_frame: frame index of R
 * @answer_t_ns: when B's last data before R was seen (B sent data after H),
 *               NT_UNKNOWN when B sent none: R may answer it, not wait for
 *               the ACK, so the loss is only bounded below by R - then
 * @answer_frame: that data's frame index, 0 when none
 * @lost_min_ns: the least time the held data can have lost: R - H, or
 *               R - @answer_t_ns when B's data may explain the wait
 * @written_t_ns: when the write() of R's first byte returned, as a -w file
 *                noted it (struct nt_frame_note); NT_UNKNOWN when not
 *                noted. Known, it alone says whether R waited for the ACK
 *                (nt_verdict_waited()); unknown, R's leaving within
 *                @window_ns of the ACK does
 */
struct nt_stall_episode {
	enum nt_episode_kind kind;
	enum nt_dir dir;
	enum nt_delack_class delack;
	int64_t held_t_ns;
	int64_t ack_t_ns;
	int64_t release_t_ns;
	uint32_t held_seq;
	uint32_t held_len;
	int64_t ack_delay_ns;
	int64_t ack_late_ns;
	int64_t release_gap_ns;
	int64_t window_ns;
	int64_t stall_ns;
	uint64_t held_frame;
	uint64_t ack_frame;
	uint64_t release_frame;
	int64_t answer_t_ns;
	uint64_t answer_frame;
	int64_t lost_min_ns;
	int64_t written_t_ns;
};

enum nt_stall_state {
	NT_STALL_IDLE = 0, /* nothing held */
	NT_STALL_HELD,	   /* H is the last data sent, not yet acknowledged */
	NT_STALL_ACKED,	   /* H got a late pure ACK; waiting for R */
};

/**
 * struct nt_stall_side - per-direction state (data sent in that direction)
 * @state: where the rule stands for this direction's data
 * @snd_max: highest sequence number sent plus one (retransmission detection)
 * @largest_len: largest payload seen (MSS inference)
 * @mss: MSS announced by the peer's SYN: this direction's limit; 0 unknown
 * @own_mss: MSS announced by this side's own SYN (its route's MTU bounds
 *           what it sends, too); 0 unknown
 * @ack_max: highest ack this direction has sent (acknowledging the peer)
 * @sample_end: sequence number the peer's timed data ends at
 * @h_seq: H's sequence number
 * @h_len: H's length
 * @small_end: end of the last sub-MSS segment sent (tcp_minshall_update())
 * @urg_end: end of the last segment sent with URG (this side's SND.UP at
 *           most): until the peer acknowledges it, the side is in urgent mode
 * @n_rtt: RTT samples taken (of @rtt_late's kind)
 * @snd_seen: @snd_max is valid
 * @ack_seen: @ack_max is valid
 * @ts: this side's data segments carry the timestamps option
 * @small_seen: @small_end is valid
 * @urg_seen: @urg_end is valid
 * @nagle_off: this side had two sub-MSS segments unacknowledged at once
 * @rtt_syn: an RTT sample timed a SYN (the handshake)
 * @sample_syn: the segment being timed is a SYN
 * @rtt_late: every sample so far timed a late ACK (on_ack() in stall.c):
 *            @rtt_ns is theirs, for the release window only
 * @rtt_ns: smallest round trip between the capture point and this side, -1 unknown
 * @sample_t_ns: when the peer's data being timed was seen; -1 none
 * @h_t_ns: H's time
 * @h_frame: H's frame
 * @ack_t_ns: the late ACK's time
 * @ack_frame: the late ACK's frame
 * @late_ns: H's noted lateness (nt_stall_seg.late_ns) while H waits, and
 *           H's and the late ACK's together once it came
 * @ack_path_ns: the round trip between the capture point and the peer (the
 *               ACK's sender) known when the late ACK came, 0 unknown: the
 *               part of ACK - H that was the path, not the peer's delay
 * @answer_t_ns: the peer's last data since H (NT_UNKNOWN: none)
 * @answer_frame: its frame
 *
 * Fields are grouped by size, without holes: two sides are 256 bytes, read
 * on every packet.
 */
struct nt_stall_side {
	enum nt_stall_state state;
	uint32_t snd_max;
	uint32_t largest_len;
	uint32_t mss;
	uint32_t own_mss;
	uint32_t ack_max;
	uint32_t sample_end;
	uint32_t h_seq;
	uint32_t h_len;
	uint32_t small_end;
	uint32_t urg_end;
	uint16_t n_rtt;
	bool snd_seen : 1;
	bool ack_seen : 1;
	bool ts : 1;
	bool small_seen : 1;
	bool urg_seen : 1;
	bool nagle_off : 1;
	bool rtt_syn : 1;
	bool sample_syn : 1;
	bool rtt_late : 1;
	int64_t late_ns;
	int64_t rtt_ns;
	int64_t sample_t_ns;
	int64_t h_t_ns;
	uint64_t h_frame;
	int64_t ack_t_ns;
	uint64_t ack_frame;
	int64_t ack_path_ns;
	int64_t answer_t_ns;
	uint64_t answer_frame;
};

/**
 * struct nt_stall_tracker - the rule's state for one connection
 * @side: per direction (index enum nt_dir)
 * @mss_floor: MSS assumed at least, for inference (NT_STALL_MSS_FLOOR_*)
 */
struct nt_stall_tracker {
	struct nt_stall_side side[2];
	uint32_t mss_floor;
};

/**
 * nt_stall_init() - start tracking a connection
 * @tr: the tracker
 * @family: AF_INET or AF_INET6 (picks the MSS floor)
 */
void nt_stall_init(struct nt_stall_tracker *tr, int family);

/**
 * nt_stall_feed() - apply the rule to the next segment of a connection
 * @tr: the connection's tracker
 * @p: thresholds
 * @seg: the segment, in capture order
 * @ep: filled when an episode completes
 *
 * Return: 1 when @seg completed an episode (written to @ep), 0 otherwise.
 */
int nt_stall_feed(struct nt_stall_tracker *tr, const struct nt_stall_params *p,
		  const struct nt_stall_seg *seg, struct nt_stall_episode *ep);

/**
 * nt_delack_classify() - name an ACK delay by the timer it matches
 * @ack_delay_ns: H -> ACK
 *
 * Return: the class.
 */
enum nt_delack_class nt_delack_classify(int64_t ack_delay_ns);

/**
 * nt_stall_mss() - the effective MSS of one direction's data
 * @tr: the connection's tracker
 * @dir: the direction
 *
 * Return: the payload of a full-sized segment: the smaller of both SYNs'
 * MSS options less the timestamps option when the data carries it; without
 * a SYN the largest segment seen, at least the family's floor.
 */
uint32_t nt_stall_mss(const struct nt_stall_tracker *tr, enum nt_dir dir);

/**
 * nt_stall_path() - the round trip between the capture point and one side
 * as timed by prompt ACKs (the part of a late ACK that was the path)
 * @tr: the connection's tracker
 * @dir: the side (its data's direction)
 *
 * Return: the smallest such sample, even alone, or -1 for none.
 */
int64_t nt_stall_path(const struct nt_stall_tracker *tr, enum nt_dir dir);

/**
 * nt_stall_rtt() - the round trip between the capture point and one side
 * @tr: the connection's tracker
 * @dir: the side (its data's direction)
 *
 * Return: the smallest sample once it can be trusted (a handshake sample,
 * or NT_STALL_RTT_SAMPLES samples: of late ACKs only while no prompt ACK
 * was seen), else 0. It bounds the release window.
 */
int64_t nt_stall_rtt(const struct nt_stall_tracker *tr, enum nt_dir dir);

/** nt_delack_name() - "delack_min", "delack_max" or "other" */
const char *nt_delack_name(enum nt_delack_class c);

/** nt_episode_kind_name() - "stall" or "think_time" */
const char *nt_episode_kind_name(enum nt_episode_kind k);

#endif
