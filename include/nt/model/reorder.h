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
 * struct nt_reorder_side - what one side sent and acknowledged
 * @next_seq: the highest sequence it sent plus one (SYN and FIN count one)
 * @next_t_ns: when a segment last moved @next_seq up
 * @ack: its last acknowledgment number
 * @ack_t_ns: when @ack was last sent
 * @dupacks: pure ACKs in a row that repeated @ack
 * @seq_seen: @next_seq is valid
 * @ack_seen: @ack is valid
 */
struct nt_reorder_side {
	uint32_t next_seq;
	uint32_t ack;
	int64_t next_t_ns;
	int64_t ack_t_ns;
	uint32_t dupacks;
	bool seq_seen;
	bool ack_seen;
};

/**
 * struct nt_reorder - one connection's reordering, both directions
 * @side: by the sender's direction (enum nt_dir)
 * @syn_t_ns: when the first SYN without ACK was seen, -1 none
 * @rtt_ns: SYN to the ACK of the SYN/ACK at the capture point, 0 unknown
 * @syn_dir: the direction of that SYN
 * @out_of_order: segments out of order, by the sender's direction
 */
struct nt_reorder {
	struct nt_reorder_side side[2];
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
 */
void nt_reorder_init(struct nt_reorder *r);

/**
 * nt_reorder_segment() - account one segment, in capture order
 * @r: the counter
 * @seg: the segment
 *
 * Return: true when @seg arrived out of order (also counted in
 * @r->out_of_order).
 */
bool nt_reorder_segment(struct nt_reorder *r, const struct nt_reorder_seg *seg);

#endif
