// SPDX-License-Identifier: MIT
/*
 * conclusion.c - what a comparison of fixes concludes (see
 * nt/model/conclusion.h).
 *
 * The kernel rules behind the sentences: Nagle's test runs on the sender
 * (tcp_nagle_check() from tcp_write_xmit() of the socket that writes), so
 * TCP_NODELAY helps only the side whose write was held. Whether an ACK is
 * delayed is decided by the receiver (__tcp_ack_snd_check() and
 * tcp_in_quickack_mode() of the socket that receives, reading RTAX_QUICKACK
 * from that socket's own route, dst_metric(dst, RTAX_QUICKACK)); the lab's
 * quickack and rto_min metrics are on the target's route, so they change
 * the target's ACKs only: they release a write of the client, never a write
 * of the target, whose ACK comes from the client's socket.
 */
#include <stdint.h>
#include <string.h>

#include "nt/model/conclusion.h"

enum nt_hold_side nt_hold_side_of(const struct nt_conclusion_row *row)
{
	uint64_t c = row->held_client, t = row->held_target;

	if (!row->stalls || (!c && !t))
		return NT_HOLD_NONE;
	if (c && t && (c < t ? c : t) * 4 >= row->stalls)
		return NT_HOLD_BOTH;
	return c >= t ? NT_HOLD_CLIENT : NT_HOLD_TARGET;
}

const char *nt_hold_side_name(enum nt_hold_side side)
{
	switch (side) {
	case NT_HOLD_CLIENT:
		return "the client";
	case NT_HOLD_TARGET:
		return "the target";
	case NT_HOLD_BOTH:
		return "both sides";
	case NT_HOLD_NONE:
		break;
	}
	return "nowhere";
}

enum nt_fix_acts nt_fix_acts_of(const char *fix)
{
	if (strcmp(fix, "nodelay") == 0)
		return NT_FIX_ACTS_CLIENT_NAGLE;
	if (strcmp(fix, "nodelay-target") == 0)
		return NT_FIX_ACTS_TARGET_NAGLE;
	if (strcmp(fix, "quickack") == 0)
		return NT_FIX_ACTS_TARGET_ACKS;
	if (strncmp(fix, "rto-min=", 8) == 0)
		return NT_FIX_ACTS_TARGET_DELACK;
	return NT_FIX_ACTS_NOTHING;
}

uint64_t nt_packets_per_request_x100(const struct nt_conclusion_row *row)
{
	return row->exchanges ? row->packets * 100 / row->exchanges : UINT64_MAX;
}

/* @a costs less than @b: fewer packets per request, then the earlier. */
static bool cheaper(const struct nt_conclusion_row *a, const struct nt_conclusion_row *b)
{
	return nt_packets_per_request_x100(a) < nt_packets_per_request_x100(b);
}

void nt_conclude(const struct nt_conclusion_row *rows, size_t n, struct nt_conclusion *out)
{
	*out = (struct nt_conclusion){ .best = -1, .fewest = -1 };
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].fix, "none") == 0) {
			out->before = i;
			break;
		}
	out->held = nt_hold_side_of(&rows[out->before]);
	for (size_t i = 0; i < n; i++) {
		const struct nt_conclusion_row *r = &rows[i];

		if (!r->ok || i == out->before)
			continue;
		if (!r->stalls && (out->best < 0 || cheaper(r, &rows[out->best])))
			out->best = (long)i;
		if (out->fewest < 0 || r->stalls < rows[out->fewest].stalls ||
		    (r->stalls == rows[out->fewest].stalls && cheaper(r, &rows[out->fewest])))
			out->fewest = (long)i;
	}
	if (out->best >= 0)
		out->fewest = out->best;
}

/* A fix that changes the target's ACKs, against a hold at the target. */
static const char target_acks_cannot[] =
	"cannot help a hold at the target: it changes how the target acknowledges "
	"(tcp_in_quickack_mode() and the delayed-ACK timer read the target's own route), "
	"while the target's held reply waits for the client's ACK, which the client's "
	"socket delays (__tcp_ack_snd_check() on the receiver)";

const char *nt_conclusion_why(const char *fix, enum nt_hold_side held, bool removed)
{
	enum nt_fix_acts acts = nt_fix_acts_of(fix);

	if (held == NT_HOLD_NONE)
		return "no stall to begin with: nothing to remove";
	if (acts == NT_FIX_ACTS_NOTHING)
		return "the programs as they are";
	if (removed) {
		switch (acts) {
		case NT_FIX_ACTS_CLIENT_NAGLE:
			return "the client's writes leave at once (TCP_NODELAY skips "
			       "tcp_nagle_check() on the sender)";
		case NT_FIX_ACTS_TARGET_NAGLE:
			return "the target's writes leave at once (TCP_NODELAY skips "
			       "tcp_nagle_check() on the sender)";
		case NT_FIX_ACTS_TARGET_ACKS:
			return "the target acknowledges every segment at once (route quickack: "
			       "tcp_in_quickack_mode()), so the client's held write is released "
			       "one round trip later";
		default:
			return "the target's delayed-ACK timer is capped below the stall "
			       "threshold (tcp_delack_max() follows rto_min on Linux 6.7 and "
			       "later)";
		}
	}
	switch (acts) {
	case NT_FIX_ACTS_CLIENT_NAGLE:
		return held == NT_HOLD_TARGET
			       ? "cannot help a hold at the target: TCP_NODELAY acts on the socket "
				 "that writes (tcp_nagle_check() runs on the sender), and the held "
				 "writes are the target's"
			       : "did not remove them: a program that clears TCP_NODELAY, a static "
				 "binary or TCP_CORK/MSG_MORE escapes the preload";
	case NT_FIX_ACTS_TARGET_NAGLE:
		return held == NT_HOLD_CLIENT
			       ? "cannot help a hold at the client: TCP_NODELAY acts on the socket "
				 "that writes (tcp_nagle_check() runs on the sender), and the held "
				 "writes are the client's"
			       : "did not remove them: the target's program escapes the preload "
				 "(static binary, TCP_CORK, or it clears TCP_NODELAY)";
	case NT_FIX_ACTS_TARGET_ACKS:
		return held == NT_HOLD_CLIENT ? "did not remove them: a connection made before "
						"the route metric escapes it"
					      : target_acks_cannot;
	default:
		return held == NT_HOLD_CLIENT
			       ? "shortens the target's delayed ACK to about the rto_min (in whole "
				 "jiffies) but does not remove it (tcp_delack_max(); older than "
				 "Linux 6.7: ignored for ACKs)"
			       : target_acks_cannot;
	}
}

const char *nt_hold_fix_advice(enum nt_hold_side held)
{
	switch (held) {
	case NT_HOLD_CLIENT:
		return "the client writes one request in several small writes: write it in one "
		       "(writev, one buffer) or set TCP_NODELAY on the client's socket "
		       "(--fix nodelay); quickack on the target's route also removes the wait, "
		       "at the cost of an ACK per segment";
	case NT_HOLD_TARGET:
		return "the target writes one reply in several small writes: write it in one "
		       "(writev, one buffer) or set TCP_NODELAY on the target's socket "
		       "(--fix nodelay-target); fixes of the client's side or the target's "
		       "ACKs cannot help";
	case NT_HOLD_BOTH:
		return "both sides write one message in several small writes: fix each "
		       "(one write per message, or TCP_NODELAY on both)";
	case NT_HOLD_NONE:
		break;
	}
	return "";
}
