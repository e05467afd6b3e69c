/* SPDX-License-Identifier: MIT */
/*
 * event.h - the event model: one timeline of typed events on one clock.
 *
 * Every event carries a nanosecond timestamp on CLOCK_REALTIME, the clock of
 * the capture's kernel timestamps (skb->tstamp is ktime_get_real()), so a
 * write() returning in the client and a segment leaving the veth can be
 * ordered against each other. Live tracing appends segment events (from the
 * capture) and syscall events (from the exchange); offline analysis appends
 * segment events only. Rounds, verdicts and renderers read the timeline and
 * never the sockets.
 */
#ifndef NT_MODEL_EVENT_H
#define NT_MODEL_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Direction on the traced connection: from the client (the side that sent SYN) or the target. */
enum nt_dir {
	NT_DIR_C2T = 0,
	NT_DIR_T2C = 1,
};

/*
 * What a segment is for, as the round assembler reads it from the sequence
 * ranges of the exchange. The names (nt_role_name()) are a public interface.
 */
enum nt_role {
	NT_ROLE_UNKNOWN = 0, /* not yet classified */
	NT_ROLE_SYN,
	NT_ROLE_SYN_ACK,
	NT_ROLE_HANDSHAKE_ACK, /* the client's ACK completing the handshake */
	NT_ROLE_HEADER,	       /* carries request bytes of the header only */
	NT_ROLE_BODY,	       /* carries request bytes of the body only */
	NT_ROLE_REQUEST,       /* carries header and body bytes: the request left coalesced */
	NT_ROLE_REPLY,	       /* carries reply bytes */
	NT_ROLE_PURE_ACK,      /* no payload, no SYN/FIN/RST: only acknowledges */
	NT_ROLE_DATA,	       /* payload outside every round's ranges */
	NT_ROLE_FIN,
	NT_ROLE_RST,
};

/**
 * struct nt_segment - a TCP segment seen on the wire
 * @dir: direction
 * @flags: TCP flags byte
 * @seq: absolute sequence number
 * @ack: absolute acknowledgment number
 * @seq_rel: sequence number relative to the sender's ISN (SYN = 0)
 * @ack_rel: acknowledgment relative to the receiver's ISN (0 without ACK)
 * @payload_bytes: TCP payload length (from the IP header)
 * @window: raw window field
 * @role: what the segment carries
 * @frame_index: the frame's number, 1-based as Wireshark counts: live, its
 *               place in the -w file (the traced connection's segments);
 *               analyze, its place in the capture file
 */
struct nt_segment {
	enum nt_dir dir;
	uint8_t flags;
	uint32_t seq;
	uint32_t ack;
	uint32_t seq_rel;
	uint32_t ack_rel;
	uint32_t payload_bytes;
	uint16_t window;
	enum nt_role role;
	uint64_t frame_index;
};

/* Which side made a system call. */
enum nt_side {
	NT_SIDE_CLIENT = 0,
	NT_SIDE_TARGET = 1,
};

/* The system calls of the exchange that the timeline shows. Names: nt_call_name(). */
enum nt_call {
	NT_CALL_WRITE_HEADER,  /* client: write()/send() of the header returned */
	NT_CALL_WRITE_BODY,    /* client: write()/send() of the body returned */
	NT_CALL_WRITE_REQUEST, /* client: one write()/writev() carrying header and body returned */
	NT_CALL_READ_REPLY,    /* client: the read() completing the reply returned */
	NT_CALL_READ_REQUEST,  /* target: the read() completing the request returned */
	NT_CALL_WRITE_REPLY,   /* target: write() of the reply returned */
};

/**
 * struct nt_syscall - a system call of the client or the server returning
 * @side: who called it
 * @call: which call
 * @enter_ns: when it was entered (CLOCK_REALTIME ns)
 * @bytes: its return value: bytes written or read
 */
struct nt_syscall {
	enum nt_side side;
	enum nt_call call;
	int64_t enter_ns;
	int64_t bytes;
};

enum nt_event_kind {
	NT_EVENT_SEGMENT = 0,
	NT_EVENT_SYSCALL = 1,
};

/* Round numbers for events outside the request/response rounds. */
#define NT_ROUND_HANDSHAKE 0
#define NT_ROUND_TEARDOWN  (-1)
#define NT_ROUND_NONE	   (-2)

/**
 * struct nt_event - one event of the timeline
 * @t_ns: when it happened, CLOCK_REALTIME nanoseconds (a segment: the capture's
 *        kernel timestamp; a syscall: when it returned)
 * @kind: which member of the union is valid
 * @round: 1.. for a request/response round, NT_ROUND_HANDSHAKE,
 *         NT_ROUND_TEARDOWN, or NT_ROUND_NONE before assembly
 * @seg: the segment (kind == NT_EVENT_SEGMENT)
 * @sys: the system call (kind == NT_EVENT_SYSCALL)
 */
struct nt_event {
	int64_t t_ns;
	enum nt_event_kind kind;
	int round;
	union {
		struct nt_segment seg;
		struct nt_syscall sys;
	};
};

/**
 * struct nt_timeline - a growable array of events, kept in time order
 * @ev: the events
 * @n: how many
 * @cap: allocated slots
 */
struct nt_timeline {
	struct nt_event *ev;
	size_t n;
	size_t cap;
};

/**
 * nt_timeline_append() - add an event, keeping the array sorted by time
 * @tl: the timeline
 * @ev: the event (copied)
 *
 * Events arrive nearly in order (the capture is delivered a little after a
 * syscall returns); an event older than the last is moved into place. Equal
 * timestamps keep arrival order.
 *
 * Return: 0 or -ENOMEM.
 */
int nt_timeline_append(struct nt_timeline *tl, const struct nt_event *ev);

/**
 * nt_timeline_fini() - free the events; safe on a zeroed timeline
 * @tl: the timeline
 */
void nt_timeline_fini(struct nt_timeline *tl);

/** nt_role_name() - the role's public name ("header", "pure-ack", ...) */
const char *nt_role_name(enum nt_role role);
/** nt_call_name() - the call's public name ("write-header", ...) */
const char *nt_call_name(enum nt_call call);
/** nt_dir_name() - "c2t" or "t2c" */
const char *nt_dir_name(enum nt_dir dir);

#endif
