/* SPDX-License-Identifier: MIT */
/*
 * evidence.h - the kernel's own account of a live round: socket state and
 * counters sampled while it ran (SIOCOUTQNSD, tcp_info, TX timestamps,
 * /proc/net/tcp, /proc/net/netstat).
 *
 * Pure data, a sample of kernel state beside the wire's events: the live
 * evidence module (src/live/evidence.c) fills it, renderers print it, and
 * the prediction is compared with it. Offline analysis has none.
 */
#ifndef NT_MODEL_EVIDENCE_H
#define NT_MODEL_EVIDENCE_H

#include <stdint.h>

/**
 * struct nt_round_evidence - the kernel's own state during one live round
 *
 * Unknown values are -1 (never 0, which can be a real value), timestamps 0.
 * Filled by the live evidence module (src/live/evidence.c); analyze leaves
 * struct nt_record_evidence empty.
 *
 * @body_write_ns: when the round's last request write returned (write(body),
 *                 or the one write of header + body), CLOCK_REALTIME
 * @client_unsent_bytes: SIOCOUTQNSD right after that write: bytes written but
 *                       not yet sent (write_seq - snd_nxt)
 * @client_unacked: tcpi_unacked (segments in flight) at the same moment
 * @client_snd_mss: tcpi_snd_mss
 * @body_sched_ns: SO_TIMESTAMPING SCM_TSTAMP_SCHED of that write's last byte
 *                 (entered the qdisc layer), 0 unknown
 * @body_dev_ns: SCM_TSTAMP_SND of that byte (handed to the device driver), 0
 * @body_acked_ns: SCM_TSTAMP_ACK of that byte (acknowledged by the target), 0
 * @body_hold_ns: @body_dev_ns - @body_write_ns, 0 when the bytes left during
 *                the write, -1 unknown
 * @target_sample_ns: when the target was sampled (its socket readable with at
 *                    least the header queued, before it read), 0 not sampled
 * @target_queued_bytes: request bytes received and not yet read at the sample
 * @target_ato_us: tcpi_ato, the delayed-ACK timeout in microseconds
 * @target_proc_ato_ms: the ato column of /proc/net/tcp (10 ms resolution)
 * @target_rto_ms: the rto column of /proc/net/tcp
 * @target_quick: icsk_ack.quick, the quick-ACK budget left
 * @target_pingpong: 1 when in ping-pong (interactive) mode, 0 not
 * @target_quickack_mode: getsockopt(TCP_QUICKACK): 1 in quick-ACK mode, 0 not
 * @target_rcv_mss: tcpi_rcv_mss, the receiver's estimate of the sender's MSS
 */
struct nt_round_evidence {
	int64_t body_write_ns;
	int64_t client_unsent_bytes;
	int64_t client_unacked;
	int64_t client_snd_mss;
	int64_t body_sched_ns;
	int64_t body_dev_ns;
	int64_t body_acked_ns;
	int64_t body_hold_ns;
	int64_t target_sample_ns;
	int64_t target_queued_bytes;
	int64_t target_ato_us;
	int64_t target_proc_ato_ms;
	int64_t target_rto_ms;
	int64_t target_quick;
	int target_pingpong;
	int target_quickack_mode;
	int64_t target_rcv_mss;
};

/**
 * struct nt_record_evidence - kernel counters over the whole run, and the rounds'
 * evidence
 * @rounds: round k's evidence is entry (k - 1) % @n_rounds, NULL when not
 *          gathered: a ring when @n_rounds is less than the rounds (a live run
 *          keeps a few; nt_record_retire() resets an entry once its round is
 *          handed over)
 * @n_rounds: entries in @rounds
 * @delayed_acks: TcpExtDelayedACKs delta in the target namespace (the
 *                delayed-ACK timer fired and sent an ACK), -1 unknown
 * @delayed_ack_locked: TcpExtDelayedACKLocked delta (target), -1 unknown
 * @delayed_ack_lost: TcpExtDelayedACKLost delta (target), -1 unknown
 * @tcp_autocorking: TcpExtTCPAutoCorking delta in the client namespace, -1
 * @tx_timestamps: SO_TIMESTAMPING reports read from the client's error queue
 */
struct nt_record_evidence {
	struct nt_round_evidence *rounds;
	unsigned n_rounds;
	int64_t delayed_acks;
	int64_t delayed_ack_locked;
	int64_t delayed_ack_lost;
	int64_t tcp_autocorking;
	uint64_t tx_timestamps;
};

/**
 * nt_round_evidence_reset() - every value of @re unknown (-1, timestamps 0)
 * @re: the evidence
 */
void nt_round_evidence_reset(struct nt_round_evidence *re);

/**
 * nt_round_evidence_complete() - derive @re->body_hold_ns from what was sampled
 * @re: the evidence of a round whose samples are all in
 */
void nt_round_evidence_complete(struct nt_round_evidence *re);

#endif
