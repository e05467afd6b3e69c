/* SPDX-License-Identifier: MIT */
/*
 * predict.h - a pure model of the kernel's decisions in the write-write-read
 * exchange: predict, then measure, then show where they differ.
 *
 * Given the knobs (sizes, write pattern, socket options on each side, route
 * metrics, sysctls, RTT, kernel version and HZ), the model replays each round
 * the way Linux decides it: the client's Nagle test (tcp_nagle_check() with
 * Minshall's snd_sml, cork, MSG_MORE, TCP_NODELAY, tcp_should_autocork()),
 * segmentation at the real MSS, the target's ACK choice
 * (__tcp_ack_snd_check(), tcp_in_quickack_mode(), the quick-ACK budget,
 * ping-pong mode), the read-time ACK (tcp_cleanup_rbuf()), the delayed-ACK
 * timer (tcp_send_delayed_ack(), tcp_delack_timer_handler()) on a jiffy
 * clock, and the reply's ping-pong entry (tcp_event_data_sent()). Every
 * decision carries the rule that made it: a stable snake_case name (the JSON
 * `why: {rule, text}`) and a sentence with the state that decided it.
 *
 * The model predicts nagle-trace's own exchange: client and target on one
 * thread over a veth pair (the target's softirq runs inside the client's
 * send), the target reading whatever has arrived after each client burst.
 * Where it cannot know - timer jitter within a jiffy of a limit, a window
 * edge that depends on skb truesize - it says so: a round's prediction is a
 * set of acceptable verdicts, with the rule that made it uncertain. The
 * model carries a small set of receiver states (hypotheses) from round to
 * round, so an uncertain round's consequences stay visible until the states
 * agree again.
 *
 * Streaming: nt_predict_init() once, then nt_predict_round() per round; the
 * model's memory does not grow with rounds.
 *
 * Pure: no I/O, no system calls, no allocation.
 */
#ifndef NT_MODEL_PREDICT_H
#define NT_MODEL_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/model/evidence.h"
#include "nt/model/verdict.h"

/* How the client writes one request. */
enum nt_predict_pattern {
	NT_PREDICT_TWO_WRITES = 0, /* write(header); [gap]; write(body) */
	NT_PREDICT_ONE_WRITE,	   /* write(header + body) from one buffer */
	NT_PREDICT_WRITEV,	   /* writev({header, body}) */
	NT_PREDICT_CORK,	   /* TCP_CORK on; write; [gap]; write; TCP_CORK off */
	NT_PREDICT_MSG_MORE,	   /* send(header, MSG_MORE); [gap]; send(body) */
	NT_PREDICT_PATTERN_COUNT,
};

/* When the target sets TCP_QUICKACK. */
enum nt_predict_quickack {
	NT_PREDICT_QUICKACK_NEVER = 0,
	NT_PREDICT_QUICKACK_ONCE,  /* once, right after accept() */
	NT_PREDICT_QUICKACK_REARM, /* before every read() */
};

/**
 * struct nt_kernel_version - a kernel release, as `uname -r` starts
 * @major: 6 in "6.18.44-fc-v657"
 * @minor: 18
 * @patch: 44 (0 when absent)
 */
struct nt_kernel_version {
	unsigned major;
	unsigned minor;
	unsigned patch;
};

/**
 * nt_kernel_version_parse() - the release numbers at the start of a
 * `uname -r` string
 * @uname_r: "6.18.44-fc-v657", "5.15.0-91-generic", "6.1"
 * @out: set on success
 *
 * Return: 0, or -EINVAL when it does not start with MAJOR.MINOR.
 */
int nt_kernel_version_parse(const char *uname_r, struct nt_kernel_version *out);

/**
 * nt_kernel_version_at_least() - whether @v is @major.@minor or later
 * @v: the version
 * @major: major number
 * @minor: minor number
 *
 * Return: true when @v >= @major.@minor.
 */
bool nt_kernel_version_at_least(const struct nt_kernel_version *v, unsigned major, unsigned minor);

/**
 * struct nt_predict_knobs - everything the model reads
 * @header_bytes: first part of each request (>= 1)
 * @body_bytes: second part (>= 1)
 * @reply_bytes: each reply (>= 1)
 * @rounds: how many rounds (>= 1)
 * @pattern: the client's write pattern
 * @pause_ns: client pause before each round after the first
 * @write_gap_ns: client pause between its two writes (patterns with two)
 * @handler_ns: target think time between the whole request and the reply
 * @client_nodelay: TCP_NODELAY on the client
 * @server_nodelay: TCP_NODELAY on the target
 * @server_quickack: when the target sets TCP_QUICKACK
 * @route_quickack: the target's route to the client has `quickack 1`
 * @client_autocork: net.ipv4.tcp_autocorking in the client namespace
 * @pingpong_thresh: the target's net.ipv4.tcp_pingpong_thresh; 0 for the
 *                   kernel's default (ignored before 6.7, which has no sysctl)
 * @ipv6: IPv6 (MSS 1428 on a 1500 MTU) instead of IPv4 (1448)
 * @mtu: link MTU (1500)
 * @rtt_ns: path round-trip time added by the delay line (0: none)
 * @threshold_ns: the verdict's stall threshold (--threshold)
 * @kernel: the target's (and client's) kernel
 * @hz: CONFIG_HZ of that kernel
 * @route_rto_min_ms: `rto_min` on the target's route (iproute2 locks it), 0
 *                    when not set
 * @rto_min_us: net.ipv4.tcp_rto_min_us (>= 6.11), 0 for the 200 ms default
 * @rcvbuf_bytes: the target's initial sk_rcvbuf (net.ipv4.tcp_rmem[1])
 * @rmem_max_bytes: net.ipv4.tcp_rmem[2] (or net.core.rmem_max when larger):
 *                  sets the target's window scale
 * @wake_slack_ns: how late a timed wait (handler, pause, write gap) may end
 *                 past its nominal time (ppoll wake-up on a shared machine;
 *                 measured here: median 0.16 ms, p99 4.1 ms, max 4.6 ms)
 * @wake_latency_ns: how long the exchange, asleep in ppoll, may take to run
 *                   once a socket turns readable from softirq (a timer's ACK
 *                   releasing the body; measured here: median 0.2 ms, p99
 *                   4.2 ms, about one tick)
 */
struct nt_predict_knobs {
	uint32_t header_bytes;
	uint32_t body_bytes;
	uint32_t reply_bytes;
	unsigned rounds;
	enum nt_predict_pattern pattern;
	int64_t pause_ns;
	int64_t write_gap_ns;
	int64_t handler_ns;
	bool client_nodelay;
	bool server_nodelay;
	enum nt_predict_quickack server_quickack;
	bool route_quickack;
	bool client_autocork;
	unsigned pingpong_thresh;
	bool ipv6;
	unsigned mtu;
	int64_t rtt_ns;
	int64_t threshold_ns;
	struct nt_kernel_version kernel;
	unsigned hz;
	uint32_t route_rto_min_ms;
	uint32_t rto_min_us;
	uint32_t rcvbuf_bytes;
	uint32_t rmem_max_bytes;
	int64_t wake_slack_ns;
	int64_t wake_latency_ns;
};

/**
 * nt_predict_knobs_default() - nagle-trace's defaults: 4 + 8 bytes, 2-byte
 * reply, 4 rounds, two writes, IPv4 on a 1500 MTU, no RTT, 10 ms threshold,
 * kernel 6.18 at HZ 250, tcp_rmem 131072 and 6 MiB, wake-ups up to 4.7 ms late
 * after a timed wait and 4.3 ms after a socket event
 * @k: filled
 */
void nt_predict_knobs_default(struct nt_predict_knobs *k);

/**
 * struct nt_predict_kernel - the constants and rule versions the knobs select
 * @jiffy_ns: 1e9 / HZ
 * @ato_min: TCP_ATO_MIN in jiffies (HZ/25, 4 below HZ 100)
 * @delack_min: TCP_DELACK_MIN in jiffies (HZ/25)
 * @delack_max: tcp_delack_max(): TCP_DELACK_MAX (HZ/5), on >= 6.7 capped by
 *              the route's rto_min - 1, on >= 6.11 by tcp_rto_min() - 1
 * @rto_min: tcp_rto_min() in jiffies
 * @rto: the target's icsk_rto estimate in jiffies (rto_min + srtt, rounded up)
 * @pingpong_thresh: ping-pong entry threshold in effect
 * @mss: the client's MSS with the timestamp option (1448 / 1428 at 1500)
 * @advmss: the target's advertised MSS (no options: 1460 / 1440)
 * @init_rcv_wnd: the target's initial receive window (SYN-ACK)
 * @wscale_bytes: one unit of the target's scaled window (1 << rcv_wscale)
 * @skb_overhead: skb truesize beyond the payload, estimated (a veth skb
 *                with its payload in a page fragment)
 * @scaling_ratio: >= 6.6: tcp_win_from_space() follows len/truesize of
 *                 received segments; before, a fixed half
 * @quick_grant: what tcp_incr_quickack() grants on the first data
 * @quick_counts_new_data: >= 6.6: only ACKs of new data spend the budget
 * @psh_full_segment_pushed: >= 6.6: a full segment with PSH sets
 *                           ICSK_ACK_PUSHED
 * @timer_round_up: >= 4.8: the timer wheel fires one jiffy after the expiry
 */
struct nt_predict_kernel {
	int64_t jiffy_ns;
	unsigned ato_min;
	unsigned delack_min;
	unsigned delack_max;
	unsigned rto_min;
	unsigned rto;
	unsigned pingpong_thresh;
	unsigned mss;
	unsigned advmss;
	uint32_t init_rcv_wnd;
	uint32_t wscale_bytes;
	unsigned skb_overhead;
	bool scaling_ratio;
	unsigned quick_grant;
	bool quick_counts_new_data;
	bool psh_full_segment_pushed;
	bool timer_round_up;
};

/**
 * nt_predict_kernel_init() - the constants and rule versions for @k
 * @k: the knobs
 * @out: filled
 */
void nt_predict_kernel_init(const struct nt_predict_knobs *k, struct nt_predict_kernel *out);

/*
 * The rules, by the decision they make. The names (nt_predict_rule_name())
 * are a public interface: JSON `why.rule`; docs/model.md documents each.
 */
enum nt_predict_rule {
	NT_RULE_NONE = 0,
	/* the client's send decision for a segment */
	NT_RULE_FULL_SEGMENT,	/* full MSS: Nagle never holds it */
	NT_RULE_NAGLE_IDLE,	/* partial, nothing in flight */
	NT_RULE_MINSHALL_CLEAR, /* partial, no small segment unacknowledged */
	NT_RULE_NAGLE_HOLD,	/* partial, a small segment unacknowledged */
	NT_RULE_NODELAY,	/* TCP_NODELAY: never held */
	NT_RULE_CORK_HOLD,	/* TCP_CORK or MSG_MORE holds a partial segment */
	NT_RULE_CORK_PUSH,	/* uncork, or the send without MSG_MORE */
	NT_RULE_CORK_PROBE,	/* corked data with nothing in flight: probe timer */
	/* the target's ACK decision */
	NT_RULE_QUICKACK_BUDGET,	/* quick-ACK mode: budget left, not ping-pong */
	NT_RULE_ROUTE_QUICKACK,		/* the route's quickack metric */
	NT_RULE_TWO_FRAMES,		/* more than one full frame unacknowledged */
	NT_RULE_DELAYED_PINGPONG,	/* delayed: ping-pong mode */
	NT_RULE_DELAYED_NO_BUDGET,	/* delayed: the quick-ACK budget is spent */
	NT_RULE_DELACK_DUE,		/* the pending delayed-ACK timer is due: ACK now */
	NT_RULE_ACK_AT_READ,		/* tcp_cleanup_rbuf(): small segment read, not ping-pong */
	NT_RULE_ACK_AT_READ_TWO_SMALL,	/* tcp_cleanup_rbuf(): two small segments pending */
	NT_RULE_ACK_AT_READ_TWO_FRAMES, /* tcp_cleanup_rbuf(): more than a frame unacked */
	NT_RULE_DELACK_TIMER,		/* the delayed-ACK timer fired */
	NT_RULE_ACK_ON_REPLY,		/* the ACK rode on the reply */
	NT_RULE_CLIENT_FIRST_DATA,	/* the client's first data: quick-ACK mode, ACK now */
	NT_RULE_CLIENT_ACK,		/* the client's own ACK: its receive side is not followed */
	NT_RULE_HANDSHAKE_ACK,		/* the ACK completing the handshake */
	NT_RULE_FIN_ACK,		/* the ACK of the peer's FIN */
	/* the body's release */
	NT_RULE_RELEASED_BY_ACK, /* the ACK of the small segment released it */
	NT_RULE_NOT_HELD,	 /* nothing held it */
	/* the reply */
	NT_RULE_PINGPONG_COUNT,	 /* reply within ato of the last receive */
	NT_RULE_REPLY_AFTER_ATO, /* reply ato or more after the last receive */
	/* the verdict */
	NT_RULE_VERDICT_COALESCED,  /* header and body in one segment */
	NT_RULE_VERDICT_BODY_FIRST, /* the body left before the header's ACK */
	NT_RULE_VERDICT_PROMPT_ACK, /* the ACK came before the threshold */
	NT_RULE_VERDICT_STALL,	    /* the ACK came at or over the threshold, body waiting */
	NT_RULE_VERDICT_APP_GAP,    /* slow ACK, but the body was written after it */
	/* why the prediction is a set */
	NT_RULE_JIFFY_BOUNDARY, /* a jiffy comparison within a jiffy of its limit */
	NT_RULE_TIMER_RACE,	/* the delayed-ACK timer races a timed wait */
	NT_RULE_THRESHOLD_EDGE, /* the header->ACK gap may fall either side of --threshold */
	NT_RULE_WINDOW_EDGE,	/* "the right edge advances": depends on skb truesize */
	NT_RULE_BUDGET_UNKNOWN, /* the quick-ACK budget after an ACK the model could not place */
	NT_RULE_TIMING_RACE,	/* two events whose order timing cannot settle */
	NT_RULE_MODEL_LIMIT,	/* beyond what the model follows (too many states) */
	/* why a fix works or fails (nt_predict_fix()) */
	NT_RULE_FIX_NONE,	    /* the plain exchange: the stall */
	NT_RULE_FIX_COALESCE,	    /* one write, writev, cork, MSG_MORE */
	NT_RULE_FIX_NODELAY,	    /* TCP_NODELAY on the writer */
	NT_RULE_FIX_QUICKACK_ONCE,  /* TCP_QUICKACK once: fails after round 1 */
	NT_RULE_FIX_QUICKACK_REARM, /* TCP_QUICKACK before every read */
	NT_RULE_FIX_ROUTE_QUICKACK, /* quickack 1 on the route */
	NT_RULE_FIX_WRONG_SIDE,	    /* TCP_NODELAY on the reader */
	NT_RULE_FIX_AUTOCORK,	    /* autocorking off: a different mechanism */
	NT_RULE_FIX_FULL_SEGMENTS,  /* sizes that leave no small segment to hold */
	NT_RULE_FIX_SLOW_HANDLER,   /* a reply later than ato keeps ping-pong off */
	NT_RULE_COUNT,
};

/** nt_predict_rule_name() - the rule's public name ("nagle_hold"), "?" if unknown */
const char *nt_predict_rule_name(enum nt_predict_rule r);

/** nt_predict_rule_function() - the kernel function the rule comes from ("tcp_nagle_check") */
const char *nt_predict_rule_function(enum nt_predict_rule r);

/** nt_predict_rule_summary() - one line: what the rule says */
const char *nt_predict_rule_summary(enum nt_predict_rule r);

#define NT_PREDICT_TEXT_MAX 320

/*
 * enum nt_predict_say - which sentence tells a decision; the model picks
 * one and its numbers, nt_predict_words() (nt/model/predict_words.h) words
 * it. The comment of each names its numbers, @n[0] first.
 */
enum nt_predict_say {
	NT_SAY_NONE,	       /* no sentence: no decision of this kind */
	NT_SAY_SUMMARY,	       /* the rule's one-line summary */
	NT_SAY_SENT_FULL,      /* len */
	NT_SAY_SENT_IDLE,      /* len */
	NT_SAY_SENT_MINSHALL,  /* len */
	NT_SAY_SENT_NODELAY,   /* len */
	NT_SAY_SENT_PUSHED,    /* pattern, len */
	NT_SAY_SENT_PROBE,     /* - */
	NT_SAY_SENT_RELEASED,  /* acked from, acked to, len */
	NT_SAY_HELD_NAGLE,     /* small segment from, to */
	NT_SAY_HELD_CORK,      /* pattern */
	NT_SAY_HDR_TWO_FRAMES, /* unacked bytes, rcv_mss */
	NT_SAY_HDR_ROUTE,      /* ping-pong count */
	NT_SAY_HDR_BUDGET,     /* budget, ping-pong count, threshold */
	NT_SAY_HDR_DUE,	       /* - */
	NT_SAY_HDR_DELAYED,    /* count, threshold, budget, ato jiffies, ms, HZ, frames, rcv_mss */
	NT_SAY_ACK_ON_REPLY,   /* - */
	NT_SAY_PURE_ACK,       /* seq */
	NT_SAY_TIMER_LEFT,     /* seq, ato ms */
	NT_SAY_TIMER_DOUBLED,  /* seq, ato ms */
	NT_SAY_LATER_ACK,      /* - */
	NT_SAY_REPLY_PINGPONG, /* bytes, segs, jiffies lo, gap, hi, ato, count before, after, thr */
	NT_SAY_REPLY_AFTER_ATO, /* bytes, jiffies lo, gap, hi, ato, count, thr */
	NT_SAY_CLIENT_FIRST,	/* - */
	NT_SAY_COALESCED,	/* - */
	NT_SAY_BODY_FIRST,	/* - */
	NT_SAY_WINDOW, /* verdict, H->A lo, hi, delay lo, hi, rtt, threshold, delay line late (ns) */
	NT_SAY_NOT_HELD,	    /* - */
	NT_SAY_ONE_OF,		    /* verdict bits */
	NT_SAY_UNEXPLAINED,	    /* - */
	NT_SAY_FIX_QUICKACK_FROM,   /* threshold, first stalled round */
	NT_SAY_FIX_QUICKACK_ROUNDS, /* threshold, stalled rounds' bits, more rounds */
	NT_SAY_FIX_NODELAY,	    /* - */
	NT_SAY_FIX_REARM,	    /* - */
	NT_SAY_FIX_ROUTE,	    /* - */
	NT_SAY_FIX_WRONG_SIDE,	    /* - */
	NT_SAY_FIX_AUTOCORK,	    /* - */
	NT_SAY_FIX_STALL,	    /* threshold, ato ms */
	NT_SAY_FIX_LATE_BODY,	    /* write gap ms, ato ms */
	NT_SAY_FIX_LONG_HEADER,	    /* header segments */
	NT_SAY_FIX_NO_STALL,	    /* - */
	NT_SAY_FIX_COALESCE,	    /* pattern, mss, header of a full mss or more */
	NT_SAY_FIX_FULL_HEADER,	    /* - */
	NT_SAY_FIX_FULL_BODY,	    /* - */
	NT_SAY_FIX_SLOW_HANDLER,    /* handler ms, ato ms */
	NT_SAY_FULL_SEGMENT,	    /* - */
	NT_SAY_HANDSHAKE_ACK,	    /* - */
	NT_SAY_FIN_WAIT2,	    /* - */
	NT_SAY_CLOSE_WAIT,	    /* - */
};

/* The most numbers one sentence takes. */
#define NT_PREDICT_SAY_ARGS 9

/**
 * struct nt_predict_why - one decision: the rule, and the facts its
 * sentence tells (worded by nt_predict_words())
 * @rule: the rule (NT_RULE_NONE: no decision of this kind this round)
 * @say: which sentence (NT_SAY_NONE, as zeroed: none)
 * @n: its numbers, in the order enum nt_predict_say lists them
 */
struct nt_predict_why {
	enum nt_predict_rule rule;
	enum nt_predict_say say;
	int64_t n[NT_PREDICT_SAY_ARGS];
};

/**
 * struct nt_predict_rx - the target's receive-side state, as
 * /proc/net/tcp and TCP_INFO show it
 * @pingpong: inet_csk_in_pingpong_mode()
 * @pingpong_cnt: icsk_ack.pingpong, the count compared with the threshold
 * @quick: icsk_ack.quick, the quick-ACK budget left
 * @ato_jiffies: icsk_ack.ato (0 before the first data)
 * @ato_ms: the same in milliseconds
 * @rcv_mss: icsk_ack.rcv_mss
 * @certain: every hypothesis the model carries agrees on this state
 */
struct nt_predict_rx {
	bool pingpong;
	unsigned pingpong_cnt;
	unsigned quick;
	unsigned ato_jiffies;
	unsigned ato_ms;
	unsigned rcv_mss;
	bool certain;
};

/* What a segment on a round's ladder carries (nt_predict_seg.role). */
enum nt_predict_seg_role {
	NT_PSEG_HEADER = 0, /* header bytes: H, or a full segment before it */
	NT_PSEG_COALESCED,  /* the header's end and the body's start: H is B */
	NT_PSEG_BODY,	    /* body bytes: B, or a segment after it */
	NT_PSEG_PART_ACK,   /* the target's pure ACK of part of the header */
	NT_PSEG_ACK,	    /* A: the target's first pure ACK of the whole header */
	NT_PSEG_BODY_ACK,   /* a pure ACK after A (of the body) */
	NT_PSEG_REPLY,	    /* the reply, and the ACK it carries */
	NT_PSEG_ROLE_COUNT,
};

/** nt_predict_seg_role_name() - "header", "header+body", "body", "ACK", "reply" */
const char *nt_predict_seg_role_name(enum nt_predict_seg_role role);

/**
 * struct nt_predict_seg - one segment of a round as the simulation sent it,
 * at the nominal time of each end
 * @client_ns: when it passes the client's veth end (where the capture is):
 *             sent for a client segment, received for a target segment;
 *             from the round's first write
 * @target_ns: when it reaches (client segment) or leaves (target segment)
 *             the target, on the same clock
 * @bytes: payload bytes (the reply: all its bytes, in one event)
 * @role: enum nt_predict_seg_role
 * @c2t: client to target
 * @first: H (header roles), B (body), the first ACK after A (body ACK), or
 *         the reply that carried A
 */
struct nt_predict_seg {
	int64_t client_ns;
	int64_t target_ns;
	uint32_t bytes;
	uint8_t role;
	bool c2t;
	bool first;
};

/*
 * The segments of a round's ladder kept, the reply always among them (a body
 * of more is told as dropped).
 */
#define NT_PREDICT_LADDER_MAX 16

/* A verdict's bit in nt_predict_round.verdicts. */
#define NT_PREDICT_VERDICT_BIT(v) (1u << (unsigned)(v))

/**
 * struct nt_predict_round - one round, predicted
 * @index: 1-based
 * @verdict: the most likely verdict (the model's nominal timing)
 * @verdicts: NT_PREDICT_VERDICT_BIT() of every verdict the model accepts
 * @hypotheses: receiver states the model carries into the next round
 * @uncertain: why @verdicts holds more than one (NT_RULE_NONE otherwise)
 * @verdict_why: why the verdict follows from H, A and B
 * @header: H, the segment with the header's last byte: why it left when it did
 * @header_ack: the target's decision on receiving H: ACK now or delay, and the
 *              state that decided (ping-pong count and threshold, budget,
 *              ato, frames unacknowledged)
 * @ack: what actually sent A, the first ACK of the header
 * @body: B, the segment with the body's first byte: sent at once or held
 * @release: what let B go (NT_RULE_NOT_HELD when nothing held it)
 * @part_ack: the target's first pure ACK of part of the header, before A
 * @body_ack: the target's first pure ACK after A, of the body (NT_RULE_NONE
 *            when that ACK rode on the reply)
 * @later_ack: the target's further pure ACKs after @body_ack (a body of
 *             several segments): the last one's rule
 * @client_ack: the client's pure ACK of the reply, when it sends one
 * @reply: the reply, and whether sending it moves the target into ping-pong
 * @ack_delay_min_ns: shortest time from H's arrival at the target to A leaving
 * @ack_delay_max_ns: longest (the delayed-ACK timer plus a jiffy of jitter)
 * @gap_min_ns: shortest H -> A at the capture (the client's veth end)
 * @gap_max_ns: longest; @gap_min_ns - @ack_delay_min_ns is the RTT
 * @header_segments: segments carrying header bytes
 * @body_segments: segments carrying body bytes
 * @client_data_segments: client segments carrying request bytes
 * @delayed_acks: delayed-ACK timer expiries at the target (TcpExtDelayedACKs)
 * @at_header: the target's state when it first reads with the whole header
 *             in (where nagle-trace's evidence samples it)
 * @after: the target's state after the reply
 * @ladder: the round's segments on the model's nominal path (the one that
 *          gives @verdict), in the order they were sent, at that path's
 *          nominal times
 * @n_ladder: how many
 * @ladder_dropped: segments past NT_PREDICT_LADDER_MAX, not kept
 * @write_body_ns: when write(body) returned on that path (-1: no second write)
 * @reply_ns: when the whole reply reached the client: how long the client
 *            waited (-1: the path did not get there)
 * @disturbed: NT_SCHED_* bits of the observed schedule this round was
 *             predicted on (nt_predict_observe()), and NT_SCHED_TIMER for a
 *             stall its late timer made (nt_predict_measured_ack()); 0: the
 *             knobs' schedule
 * @coalesced: H and B are one segment
 * @header_ack_now: the target acknowledged H on arrival
 * @body_held: B waited in the client's queue after write(body)
 * @disturbed_text: the line naming it (empty when @disturbed is 0)
 */
struct nt_predict_round {
	unsigned index;
	enum nt_verdict verdict;
	unsigned verdicts;
	unsigned hypotheses;
	struct nt_predict_why uncertain;
	struct nt_predict_why verdict_why;
	struct nt_predict_why header;
	struct nt_predict_why header_ack;
	struct nt_predict_why ack;
	struct nt_predict_why body;
	struct nt_predict_why release;
	struct nt_predict_why part_ack;
	struct nt_predict_why body_ack;
	struct nt_predict_why later_ack;
	struct nt_predict_why client_ack;
	struct nt_predict_why reply;
	int64_t ack_delay_min_ns;
	int64_t ack_delay_max_ns;
	int64_t gap_min_ns;
	int64_t gap_max_ns;
	unsigned header_segments;
	unsigned body_segments;
	unsigned client_data_segments;
	unsigned delayed_acks;
	struct nt_predict_rx at_header;
	struct nt_predict_rx after;
	struct nt_predict_seg ladder[NT_PREDICT_LADDER_MAX];
	unsigned n_ladder;
	unsigned ladder_dropped;
	int64_t write_body_ns;
	int64_t reply_ns;
	unsigned disturbed;
	bool coalesced;
	bool header_ack_now;
	bool body_held;
	char disturbed_text[NT_PREDICT_TEXT_MAX];
};

/**
 * nt_predict_seg_why() - the decision that sent a segment of @r's ladder
 * @r: the round
 * @g: one of its segments
 *
 * Return: one of @r's decisions (H: @r->header, a held B: @r->release, A:
 * @r->ack, ...), or NULL for a segment no decision of its own sent (a full
 * segment before H or after B, an ACK past the first after A).
 */
const struct nt_predict_why *nt_predict_seg_why(const struct nt_predict_round *r,
						const struct nt_predict_seg *g);

/*
 * The observed schedule (nt_predict_observe()): which part of what the
 * programs did fell outside the windows the knobs allow.
 */
#define NT_SCHED_READ	     1u	 /* the target read the request late */
#define NT_SCHED_REPLY	     2u	 /* the target wrote its reply late after reading */
#define NT_SCHED_GAP	     4u	 /* the client wrote the body late after the header */
#define NT_SCHED_PAUSE	     8u	 /* the client began the round late */
#define NT_SCHED_PATH	     16u /* the delay line forwarded a frame late */
#define NT_SCHED_BODY_RETURN 32u /* the client returned from write(body) late */
#define NT_SCHED_TIMER	     64u /* the target's delayed-ACK timer fired past its window */

/**
 * struct nt_predict_sched - what the programs did in one round, as a live
 * trace saw it (system call returns on the capture clock); -1: not seen
 * @read_after_ns: the target's read() completing the request returned this
 *                 long after the request's last byte reached it
 * @reply_after_ns: the target entered write(reply) this long after that
 *                  read returned
 * @write_gap_ns: the client entered write(body) this long after it entered
 *                write(header) (two-write patterns)
 * @pause_ns: the client entered the round's first write this long after
 *            its read of the previous reply returned
 * @path_late_ns: the delay line (--rtt) released a frame of the round up
 *                to this long after its deadline (the forwarder was not
 *                scheduled); -1 without a delay line
 * @gap_late_ns: of the header -> ACK gap at the capture, the part that was
 *               the delay line's lateness (the header's and its ACK's, as
 *               the forwarder measured each: nt_verdict_marks.path_late_ns);
 *               0 or -1 when none
 * @h_late_ns: of @gap_late_ns, H's part: the delay line released the header's
 *             last segment this long after its deadline (-1: not measured)
 * @a_late_ns: of @gap_late_ns, A's part: the header's first ACK (-1: not
 *             measured)
 * @body_call_ns: the client's write(body) returned this long after it was
 *                entered (two-write patterns): a client descheduled inside
 *                the call or on its way out of it returns late, though the
 *                kernel took the body when the call began
 */
struct nt_predict_sched {
	int64_t read_after_ns;
	int64_t reply_after_ns;
	int64_t write_gap_ns;
	int64_t pause_ns;
	int64_t path_late_ns;
	int64_t gap_late_ns;
	int64_t h_late_ns;
	int64_t a_late_ns;
	int64_t body_call_ns;
};

/* A delay line's own lateness (tens of microseconds) is not a disturbance. */
#define NT_SCHED_PATH_MARGIN_NS 2000000

/* Lateness within this much of a window's end is the syscall's own cost, not a disturbance. */
#define NT_SCHED_MARGIN_NS 1000000

/**
 * nt_predict_sched_unknown() - a schedule with nothing observed
 * @out: every field -1
 */
void nt_predict_sched_unknown(struct nt_predict_sched *out);

/**
 * nt_predict_disturbed() - which parts of @sc the knobs' windows do not
 * allow: a read later than a wake-up after softirq (@k->wake_latency_ns), a
 * reply later than the handler time plus a timed wait's slack, a write gap
 * or a pause longer than its knob plus that slack (each with
 * NT_SCHED_MARGIN_NS for the system call itself), a write(body) that took
 * longer than NT_SCHED_MARGIN_NS to return, a delay line later than
 * NT_SCHED_PATH_MARGIN_NS
 * @k: the knobs
 * @sc: the observed schedule
 *
 * Return: NT_SCHED_* bits, 0 when the round ran as the knobs say.
 */
unsigned nt_predict_disturbed(const struct nt_predict_knobs *k, const struct nt_predict_sched *sc);

/**
 * nt_predict_describe_disturbed() - the one line that names a disturbed
 * round: what was late, by how much, and what the kernel's rules made of
 * it on the primary path ("the target read the request 96.0 ms after it
 * arrived (it was not scheduled): …")
 * @r: the round predicted on that schedule
 * @sc: the observed schedule
 * @parts: nt_predict_disturbed()'s bits
 * @out: filled; empty when @parts is 0
 * @len: size of @out
 */
void nt_predict_describe_disturbed(const struct nt_predict_round *r,
				   const struct nt_predict_sched *sc, unsigned parts, char *out,
				   size_t len);

/* How many receiver states the model carries between rounds. */
#define NT_PREDICT_HYP_MAX 8

/**
 * struct nt_predict_state - one hypothesis about the target (treat as opaque)
 * @pingpong: icsk_ack.pingpong
 * @quick: icsk_ack.quick (the lowest the hypothesis allows)
 * @quick_hi: the highest: an ACK the model could not place leaves a range
 * @ato: icsk_ack.ato, jiffies
 * @rcv_mss: icsk_ack.rcv_mss
 * @lss: icsk_ack.last_seg_size
 * @rcv_ssthresh: tp->rcv_ssthresh, the window's growth limit
 * @wnd_base: the window offered by the last ACK, unscaled
 * @scaling_ratio: tp->scaling_ratio (len/truesize, in 256ths)
 * @lrcv_lo_ns: shortest time from the last data received to the round start
 * @lrcv_hi_ns: longest
 * @lrcv_ph_lo_ns: where in a jiffy the last data arrived, -1 unknown
 * @lrcv_ph_hi_ns: latest
 * @phase_lo_ns: earliest the round can start into a jiffy, -1 unknown
 * @phase_hi_ns: latest
 * @srtt_lo_ns: the target's smoothed RTT, shortest
 * @srtt_hi_ns: longest
 * @origin: the uncertain decision that set this hypothesis apart, NT_RULE_NONE
 *          for the nominal one
 */
struct nt_predict_state {
	uint16_t pingpong;
	uint16_t quick;
	uint16_t quick_hi;
	uint16_t ato;
	uint32_t rcv_mss;
	uint32_t lss;
	uint32_t rcv_ssthresh;
	uint32_t wnd_base;
	uint16_t scaling_ratio;
	int64_t lrcv_lo_ns;
	int64_t lrcv_hi_ns;
	int64_t lrcv_ph_lo_ns;
	int64_t lrcv_ph_hi_ns;
	int64_t phase_lo_ns;
	int64_t phase_hi_ns;
	int64_t srtt_lo_ns;
	int64_t srtt_hi_ns;
	enum nt_predict_rule origin;
};

/**
 * struct nt_predict - the running model (treat as opaque)
 * @knobs: the knobs, validated
 * @kern: what they select
 * @round: rounds predicted so far
 * @hyp: the hypotheses carried into the next round
 * @n_hyp: how many
 * @saturated: the hypotheses overflowed once: every later round says so
 * @sched: the observed schedule of the next round (nt_predict_observe())
 * @sched_parts: its disturbed parts; 0: the knobs' schedule
 * @measured: the next round's verdict on the wire (nt_predict_measured()),
 *            -1 when not given
 * @measured_gap_ns: its H -> A on the wire (nt_predict_measured_ack()), -1
 *                   when not given
 * @measured_a_pure: its A was a pure ACK
 */
struct nt_predict {
	struct nt_predict_knobs knobs;
	struct nt_predict_kernel kern;
	unsigned round;
	struct nt_predict_state hyp[NT_PREDICT_HYP_MAX];
	unsigned n_hyp;
	bool saturated;
	struct nt_predict_sched sched;
	unsigned sched_parts;
	int measured;
	int64_t measured_gap_ns;
	bool measured_a_pure;
};

/**
 * nt_predict_init() - validate the knobs and start before round 1
 * @p: the model, initialised here
 * @k: the knobs (copied)
 * @err: on failure, which knob and why
 *
 * Return: 0, or -EINVAL for knobs out of range.
 */
int nt_predict_init(struct nt_predict *p, const struct nt_predict_knobs *k, struct nt_err *err);

/**
 * nt_predict_round() - predict the next round
 * @p: the model
 * @out: filled
 *
 * Return: 1 when a round was predicted, 0 after the last round.
 */
int nt_predict_round(struct nt_predict *p, struct nt_predict_round *out);

/**
 * nt_predict_observe() - predict the next round on what the programs did
 * @p: the model
 * @sc: the round's observed schedule
 *
 * The next nt_predict_round() replays the kernel's rules on @sc's disturbed
 * parts (nt_predict_disturbed()) instead of the knobs' windows: the target's
 * late read and reply, the client's late body, late return from
 * write(body) or late round; the rest keeps the
 * knobs' windows, so an undisturbed round is predicted exactly as without a
 * schedule. It holds for one round.
 *
 * Return: nt_predict_disturbed()'s bits.
 */
unsigned nt_predict_observe(struct nt_predict *p, const struct nt_predict_sched *sc);

/**
 * nt_predict_measured() - the verdict the next round had on the wire, so the
 * round's sentences describe a path of the model that gives it
 * @p: the model
 * @v: the measured verdict (NT_VERDICT_INCOMPLETE: none)
 *
 * When the nominal path gives another verdict in the set, the decisions'
 * sentences (nt_predict_round's header .. reply) come from the first path
 * that gives @v; the verdicts, the verdict's sentence and the hypotheses
 * are unchanged. It holds for one round.
 */
void nt_predict_measured(struct nt_predict *p, enum nt_verdict v);

/**
 * nt_predict_measured_ack() - the next round's header -> ACK on the wire, so
 * a stall the model held only because the target's delayed-ACK timer fired
 * past the model's window is taken as the host's lateness
 * @p: the model
 * @gap_ns: H -> A as captured (-1: not seen)
 * @a_pure: A was a pure ACK, as the timer's is
 *
 * The window is the timer's tick plus a quarter of a millisecond, as on a
 * quiet machine; a busy or stalled host runs timer softirqs later (59.7 ms
 * against 40-48.25 once in CI). The kernel never fires a timer early, so
 * only a late A is taken, and only where the verdict's one difference is
 * the gap against the threshold: a round the model held, whose A is the
 * timer's pure ACK, measured stalled (nt_predict_measured()). Such a round
 * accepts stalled too and is disturbed (NT_SCHED_TIMER), its line naming the
 * lateness; its sentences stay the nominal path's, since the timer did fire,
 * and nothing else changes (the timer leaves ping-pong and resets ato
 * whenever it fires, tcp_delack_timer_handler()). It holds for one round.
 */
void nt_predict_measured_ack(struct nt_predict *p, int64_t gap_ns, bool a_pure);

/**
 * nt_predict_accepts() - whether a measured verdict is within the prediction
 * @r: the predicted round
 * @v: the measured verdict
 *
 * Return: true when @v is one of @r->verdicts.
 */
bool nt_predict_accepts(const struct nt_predict_round *r, enum nt_verdict v);

/**
 * nt_predict_fix() - why this configuration's fix works or fails, as a
 * function of the knobs (for the variant's header line)
 * @k: the knobs
 * @out: the rule (NT_RULE_FIX_*) and the sentence
 */
void nt_predict_fix(const struct nt_predict_knobs *k, struct nt_predict_why *out);

/*
 * The target state nt_predict_check_evidence() holds against the model's:
 * ping-pong (on 1, off 0), the quick-ACK budget, ato as /proc/net/tcp shows
 * it (ms, in tens) and as TCP_INFO does (ms), rcv_mss.
 */
enum nt_evidence_field {
	NT_EVIDENCE_PINGPONG,
	NT_EVIDENCE_QUICK,
	NT_EVIDENCE_PROC_ATO,
	NT_EVIDENCE_INFO_ATO,
	NT_EVIDENCE_RCV_MSS,
	NT_EVIDENCE_FIELDS,
};

/**
 * struct nt_predict_evidence_diff - where the kernel's sampled state differs
 * from the model's (worded by nt_predict_evidence_words())
 * @n: how many fields differ (0: consistent)
 * @differs: per enum nt_evidence_field, the field differs
 * @seen: what the kernel showed, where it differs
 * @predicted: what the model predicted, likewise
 */
struct nt_predict_evidence_diff {
	unsigned n;
	bool differs[NT_EVIDENCE_FIELDS];
	int64_t seen[NT_EVIDENCE_FIELDS];
	int64_t predicted[NT_EVIDENCE_FIELDS];
};

/**
 * nt_predict_check_evidence() - compare the predicted target state with what
 * the kernel showed in a live round
 * @r: the predicted round
 * @e: the round's evidence (unknown fields are -1 and are skipped)
 * @d: filled: each field that differs, with both values
 *
 * Compares the state at the header (ping-pong, quick-ACK budget, ato, as
 * TCP_INFO and /proc/net/tcp show them) only where the model is certain.
 *
 * Return: how many fields disagree (0: consistent), @d->n.
 */
int nt_predict_check_evidence(const struct nt_predict_round *r, const struct nt_round_evidence *e,
			      struct nt_predict_evidence_diff *d);

#endif
