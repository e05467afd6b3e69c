/* SPDX-License-Identifier: MIT */
/*
 * reorder.h - segments that arrived out of order at the capture point.
 *
 * A segment is out of order, as Wireshark's TCP analysis tells it
 * (tcp_analyze_sequence_number() in packet-tcp.c: "TCP Out-Of-Order"), when
 * it carries data (or SYN or FIN) below the highest sequence its sender was
 * seen to reach, is not a retransmission, and came soon after the segment
 * that reached that highest sequence: within the connection's first round
 * trip as the capture point saw it (SYN to the ACK of SYN/ACK), 3 ms without
 * a handshake. Retransmissions are told apart first: data the peer has
 * already acknowledged (spurious), the segment the peer's duplicate ACKs ask
 * for (a fast retransmit: two or more, the last within 20 ms), or the exact
 * tail up to the highest sequence again. A keep-alive (one byte or none, one
 * below the highest) is neither. Wireshark's window test on duplicate ACKs
 * is left out: the window does not change in the exchanges we time.
 *
 * Reordering matters here because the stall rule reads segments in the
 * order the capture shows them: counted and reported beside drops, as
 * drops are. Pure code, no I/O.
 */
#ifndef NT_MODEL_REORDER_H
#define NT_MODEL_REORDER_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct nt_reorder - what every segment reads: each side's highest and acknowledgment
 * @next_t_ns: when a segment last moved @next_seq up, by the sender's direction
 * @next_seq: the highest sequence it sent plus one (SYN and FIN count one)
 * @ack: its last acknowledgment number
 * @dupacks: pure ACKs in a row that repeated @ack (saturating: only two or
 *           more is asked)
 * @seq_seen: @next_seq is valid
 * @ack_seen: @ack is valid
 * @timing: a SYN without ACK was seen and its round trip is not yet timed
 *
 * 40 bytes, so a flow table entry keeps them in the lines the stall rule
 * reads anyway; the rest (struct nt_reorder_rare) is touched only for a
 * segment below its sender's highest, a SYN, or during the handshake.
 */
struct nt_reorder {
	int64_t next_t_ns[2];
	uint32_t next_seq[2];
	uint32_t ack[2];
	uint8_t dupacks[2];
	bool seq_seen[2];
	bool ack_seen[2];
	bool timing;
};

/**
 * struct nt_reorder_rare - the counter's state seldom read or written
 * @ack_t_ns: when &nt_reorder.ack was last sent, by direction; kept only
 *            while &nt_reorder.dupacks is two or more, the only time it is read
 * @syn_t_ns: when the first SYN without ACK was seen, -1 none
 * @rtt_ns: SYN to the ACK of the SYN/ACK at the capture point, 0 unknown
 * @syn_dir: the direction of that SYN
 * @out_of_order: segments out of order, by the sender's direction
 */
struct nt_reorder_rare {
	int64_t ack_t_ns[2];
	int64_t syn_t_ns;
	int64_t rtt_ns;
	int syn_dir;
	uint32_t out_of_order[2];
};

/**
 * struct nt_reorder_seg - one segment, as the counter needs it
 * @t_ns: when the capture saw it
 * @dir: its sender's direction (enum nt_dir)
 * @flags: TCP flags (NT_TCP_*)
 * @seq: its sequence number (absolute or relative, as long as all are)
 * @ack: its acknowledgment number, valid with NT_TCP_ACK
 * @len: its payload bytes
 */
struct nt_reorder_seg {
	int64_t t_ns;
	int dir;
	uint8_t flags;
	uint32_t seq;
	uint32_t ack;
	uint32_t len;
};

/* Without a handshake to time, a reordered segment comes within 3 ms (Wireshark's default). */
#define NT_REORDER_WINDOW_NS 3000000LL
/* The duplicate ACKs a fast retransmit answers are at most 20 ms old (Wireshark). */
#define NT_REORDER_FAST_RETX_NS 20000000LL

/**
 * nt_reorder_init() - a connection with nothing seen
 * @r: the counter
 * @rare: its seldom used part
 */
void nt_reorder_init(struct nt_reorder *r, struct nt_reorder_rare *rare);

/**
 * nt_reorder_segment() - account one segment, in capture order
 * @r: the counter
 * @rare: its seldom used part: not touched by a segment in order that is
 *        neither a SYN nor part of the handshake
 * @seg: the segment
 *
 * Return: true when @seg arrived out of order (also counted in
 * @rare->out_of_order).
 */
bool nt_reorder_segment(struct nt_reorder *r, struct nt_reorder_rare *rare,
			const struct nt_reorder_seg *seg);

#endif
