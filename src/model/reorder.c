// SPDX-License-Identifier: MIT
/*
 * reorder.c - segments out of order at the capture point (see
 * nt/model/reorder.h for the rule and where it comes from).
 */
#include <string.h>

#include "nt/model/reorder.h"
#include "nt/model/tcp.h"

void nt_reorder_init(struct nt_reorder *r)
{
	memset(r, 0, sizeof(*r));
	r->syn_t_ns = -1;
}

/* The handshake's round trip: the SYN's sender acknowledging the SYN/ACK. */
static void time_handshake(struct nt_reorder *r, const struct nt_reorder_seg *s)
{
	bool syn = s->flags & NT_TCP_SYN, ack = s->flags & NT_TCP_ACK;

	if (syn && !ack && r->syn_t_ns < 0) {
		r->syn_t_ns = s->t_ns;
		r->syn_dir = s->dir;
	} else if (!syn && ack && r->syn_t_ns >= 0 && !r->rtt_ns && s->dir == r->syn_dir &&
		   s->t_ns > r->syn_t_ns) {
		r->rtt_ns = s->t_ns - r->syn_t_ns;
	}
}

/* A retransmission, by what the peer @b said: already acknowledged, or a fast retransmit. */
static bool retransmission(const struct nt_reorder_side *b, const struct nt_reorder_seg *s)
{
	if (!b->ack_seen)
		return false;
	if (s->len && !nt_seq_after(s->seq + s->len, b->ack))
		return true; /* spurious: the peer had it */
	return b->dupacks >= 2 && b->ack == s->seq &&
	       s->t_ns - b->ack_t_ns < NT_REORDER_FAST_RETX_NS;
}

static bool out_of_order(const struct nt_reorder *r, const struct nt_reorder_seg *s,
			 uint32_t seglen)
{
	const struct nt_reorder_side *a = &r->side[s->dir], *b = &r->side[!s->dir];
	int64_t window = r->rtt_ns ? r->rtt_ns : NT_REORDER_WINDOW_NS;

	if (!seglen || !a->seq_seen || !nt_seq_before(s->seq, a->next_seq))
		return false;
	/* One below the highest: a keep-alive (<= 1 byte) or a zero-window probe's data. */
	if (s->seq == a->next_seq - 1)
		return false;
	if (retransmission(b, s))
		return false;
	/* The same tail again is a retransmission too; reordered data ends below it. */
	return s->t_ns - a->next_t_ns < window && s->seq + seglen != a->next_seq;
}

/* This side's acknowledgment, and its run of duplicates (pure ACKs repeating it). */
static void note_ack(struct nt_reorder_side *a, const struct nt_reorder_seg *s, uint32_t seglen)
{
	if (!(s->flags & NT_TCP_ACK))
		return;
	if (a->ack_seen && s->ack == a->ack && !seglen && !(s->flags & NT_TCP_RST))
		a->dupacks++;
	else if (!a->ack_seen || nt_seq_after(s->ack, a->ack))
		a->dupacks = 0;
	if (!a->ack_seen || !nt_seq_before(s->ack, a->ack)) {
		a->ack = s->ack;
		a->ack_t_ns = s->t_ns;
		a->ack_seen = true;
	}
}

bool nt_reorder_segment(struct nt_reorder *r, const struct nt_reorder_seg *s)
{
	struct nt_reorder_side *a = &r->side[s->dir];
	uint32_t seglen = s->len + ((s->flags & (NT_TCP_SYN | NT_TCP_FIN)) ? 1 : 0);
	bool ooo;

	time_handshake(r, s);
	ooo = out_of_order(r, s, seglen);
	if (ooo)
		r->out_of_order[s->dir]++;
	if (seglen && (!a->seq_seen || nt_seq_after(s->seq + seglen, a->next_seq))) {
		a->next_seq = s->seq + seglen;
		a->next_t_ns = s->t_ns;
		a->seq_seen = true;
	}
	note_ack(a, s, seglen);
	return ooo;
}
