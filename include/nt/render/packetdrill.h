/* SPDX-License-Identifier: MIT */
/*
 * packetdrill.h - one round of a live run as a packetdrill script, from the
 * client's side (trace --export-packetdrill).
 *
 * packetdrill runs the client's system calls on the local kernel and plays
 * the target itself: lines starting '<' are the captured target's segments,
 * injected at their captured times; lines starting '>' are the client's
 * segments, which the local kernel must send, at their times (within
 * packetdrill's tolerance). The script is the socket set-up as the variant
 * makes it, the handshake, then the round: its writes (write, send with
 * MSG_MORE, writev, TCP_CORK around them), its segments and the read of the
 * reply, each line relative to the one before (+0.043912).
 *
 * Sequence numbers start at 1 as if the round were the connection's first.
 * The rounds before it are left out: what the client's kernel does in the
 * round (Nagle holding the body) depends on what is unacknowledged, not on
 * the rounds before; what the rounds before did to the target (its delayed
 * ACK) is played as captured. The limits (options the capture does not keep,
 * timings) are in nagle-trace(1).
 */
#ifndef NT_RENDER_PACKETDRILL_H
#define NT_RENDER_PACKETDRILL_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/record.h"

/* The client's steps in a round, as the variant makes them. */
enum nt_pkt_step {
	NT_PKT_WRITE_HEADER,	 /* write(header) */
	NT_PKT_WRITE_BODY,	 /* write(body) */
	NT_PKT_WRITE_BOTH,	 /* write(header + body) */
	NT_PKT_WRITEV,		 /* writev({header, body}) */
	NT_PKT_SEND_HEADER_MORE, /* send(header, MSG_MORE) */
	NT_PKT_CORK_ON,		 /* setsockopt(TCP_CORK, 1) */
	NT_PKT_CORK_OFF,	 /* setsockopt(TCP_CORK, 0) */
};

#define NT_PKT_STEPS_MAX 8

/**
 * struct nt_pkt_client - how the variant's client uses its socket
 * @nodelay: TCP_NODELAY set before connect()
 * @steps: its steps in each round, in order
 * @n_steps: how many
 */
struct nt_pkt_client {
	bool nodelay;
	enum nt_pkt_step steps[NT_PKT_STEPS_MAX];
	unsigned n_steps;
};

/**
 * nt_render_packetdrill() - write the script
 * @out: the stream
 * @run: the run (configuration, MSS options)
 * @handshake: the handshake's events
 * @rv: the round to show (nt_pick: the first stalled round, else the last)
 * @client: the client's socket use
 *
 * Return: 0, -EINVAL when the handshake was not captured (no SYN-ACK), or
 * -EIO when writing failed.
 */
int nt_render_packetdrill(FILE *out, const struct nt_record *run,
			  const struct nt_round_view *handshake, const struct nt_round_view *rv,
			  const struct nt_pkt_client *client);

#endif
