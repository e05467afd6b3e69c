// SPDX-License-Identifier: MIT
/*
 * reorder.c - segments out of order at the capture point (see
 * nt/model/reorder.h for the rule and where it comes from).
 */
#include <string.h>

#include "nt/model/reorder.h"
#include "nt/model/tcp.h"

void nt_reorder_init(struct nt_reorder *r, struct nt_reorder_rare *rare)
{
	memset(r, 0, sizeof(*r));
	memset(rare, 0, sizeof(*rare));
	rare->syn_t_ns = -1;
}

/*
 * The handshake's round trip: the SYN's sender acknowledging the SYN/ACK.
 * @r->timing keeps every other segment away from @rare.
 */
static void time_handshake(struct nt_reorder *r, struct nt_reorder_rare *rare,
			   const struct nt_reorder_seg *s)
{
	bool syn = s->flags & NT_TCP_SYN, ack = s->flags & NT_TCP_ACK;

	if (syn && !ack) {
		if (rare->syn_t_ns < 0) {
			rare->syn_t_ns = s->t_ns;
			rare->syn_dir = s->dir;
			r->timing = true;
		}
	} else if (!syn && ack && r->timing && s->dir == rare->syn_dir &&
		   s->t_ns > rare->syn_t_ns) {
		rare->rtt_ns = s->t_ns - rare->syn_t_ns;
		r->timing = false;
	}
}

/* A retransmission, by what the peer @b said: already acknowledged, or a fast retransmit. */
static bool retransmission(const struct nt_reorder *r, const struct nt_reorder_rare *rare, int b,
			   const struct nt_reorder_seg *s)
{
	if (!r->ack_seen[b])
		return false;
	if (s->len && !nt_seq_after(s->seq + s->len, r->ack[b]))
		return true; /* spurious: the peer had it */
	return r->dupacks[b] >= 2 && r->ack[b] == s->seq &&
	       s->t_ns - rare->ack_t_ns[b] < NT_REORDER_FAST_RETX_NS;
}

/* Below the highest is decided from @r alone: the rest only for those segments. */
static bool out_of_order(const struct nt_reorder *r, const struct nt_reorder_rare *rare,
			 const struct nt_reorder_seg *s, uint32_t seglen)
{
	int a = s->dir;
	int64_t window;

	if (!seglen || !r->seq_seen[a] || !nt_seq_before(s->seq, r->next_seq[a]))
		return false;
	/* One below the highest: a keep-alive (<= 1 byte) or a zero-window probe's data. */
	if (s->seq == r->next_seq[a] - 1)
		return false;
	if (retransmission(r, rare, !a, s))
		return false;
	/* The same tail again is a retransmission too; reordered data ends below it. */
	window = rare->rtt_ns ? rare->rtt_ns : NT_REORDER_WINDOW_NS;
	return s->t_ns - r->next_t_ns[a] < window && s->seq + seglen != r->next_seq[a];
}

/*
 * This side's acknowledgment, and its run of duplicates (pure ACKs repeating
 * it). Its time is read only with two duplicates or more, and every change
 * of the run comes with a new time, so it is written only then.
 */
static void note_ack(struct nt_reorder *r, struct nt_reorder_rare *rare,
		     const struct nt_reorder_seg *s, uint32_t seglen)
{
	int a = s->dir;

	if (!(s->flags & NT_TCP_ACK))
		return;
	if (r->ack_seen[a] && s->ack == r->ack[a] && !seglen && !(s->flags & NT_TCP_RST)) {
		if (r->dupacks[a] < UINT8_MAX)
			r->dupacks[a]++;
	} else if (!r->ack_seen[a] || nt_seq_after(s->ack, r->ack[a])) {
		r->dupacks[a] = 0;
	}
	if (!r->ack_seen[a] || !nt_seq_before(s->ack, r->ack[a])) {
		r->ack[a] = s->ack;
		r->ack_seen[a] = true;
		if (r->dupacks[a] >= 2)
			rare->ack_t_ns[a] = s->t_ns;
	}
}

bool nt_reorder_segment(struct nt_reorder *r, struct nt_reorder_rare *rare,
			const struct nt_reorder_seg *s)
{
	int a = s->dir;
	uint32_t seglen = s->len + ((s->flags & (NT_TCP_SYN | NT_TCP_FIN)) ? 1 : 0);
	bool ooo;

	time_handshake(r, rare, s);
	ooo = out_of_order(r, rare, s, seglen);
	if (ooo)
		rare->out_of_order[a]++;
	if (seglen && (!r->seq_seen[a] || nt_seq_after(s->seq + seglen, r->next_seq[a]))) {
		r->next_seq[a] = s->seq + seglen;
		r->next_t_ns[a] = s->t_ns;
		r->seq_seen[a] = true;
	}
	note_ack(r, rare, s, seglen);
	return ooo;
}
