// SPDX-License-Identifier: MIT
/*
 * stall.c - the stall-episode rule (see nt/model/stall.h, docs/analyze.md).
 *
 * Why this shape. On Linux a sub-MSS segment is held by tcp_nagle_check()
 * while earlier data is unacknowledged; the receiver, with nothing to send,
 * arms its delayed-ACK timer (__tcp_ack_snd_check() -> tcp_send_delayed_ack())
 * and the ACK leaves when tcp_delack_timer() fires. On the wire that is: a
 * small segment H, silence from its sender, a late pure ACK covering exactly
 * H, and the held data right behind that ACK. Each clause below rules out a
 * look-alike:
 *
 *  - "sub-MSS": a full-sized segment is never held by Nagle, so data behind
 *    it is not waiting for an ACK (RFC 896, RFC 1122 §4.2.3.4);
 *  - "not a retransmission", and any data from A cancels H: an RTO or a fast
 *    retransmit also produces a late ACK followed by data; that is loss, not
 *    Nagle (Karn's rule keeps retransmitted data out of RTT samples, too);
 *  - "pure ACK, exactly H's end, the first to cover H": an ACK riding on data
 *    was not delayed, an ACK covering more than H acknowledges something else
 *    (a FIN, later data), a repeated ACK is a window update;
 *  - "R starts at H's end and follows the ACK within release + rtt(A)": the
 *    held data leaves when the ACK reaches A. Seen at A that is microseconds;
 *    seen at B or in between it is one round trip between the capture point
 *    and A later, so the window grows by rtt(A), the smallest such round
 *    trip the capture shows (SYN-ACK -> ACK of a handshake, or B's data ->
 *    A's first ACK of it). Later than that, A had nothing queued: think time.
 */
#include <sys/socket.h>

#include "nt/clock.h"
#include "nt/model/stall.h"
#include "nt/model/tcp.h"
#include "nt/unknown.h"

/*
 * TCP_DELACK_MIN is HZ/25 (include/net/tcp.h): 40 ms, fired on a jiffy tick,
 * so 40-48 ms at HZ=250 and a little more under load. TCP_DELACK_MAX is HZ/5:
 * 200 ms, classified in a 180-220 ms band.
 */
#define DELACK_MIN_LO_NS (35 * NT_NS_PER_MS)
#define DELACK_MIN_HI_NS (60 * NT_NS_PER_MS)
#define DELACK_MAX_LO_NS (180 * NT_NS_PER_MS)
#define DELACK_MAX_HI_NS (220 * NT_NS_PER_MS)

void nt_stall_init(struct nt_stall_tracker *tr, int family)
{
	*tr = (struct nt_stall_tracker){ 0 };
	for (int d = 0; d < 2; d++) {
		tr->side[d].rtt_ns = -1;
		tr->side[d].sample_t_ns = -1;
		tr->side[d].answer_t_ns = NT_UNKNOWN;
	}
	tr->mss_floor = family == AF_INET6 ? NT_STALL_MSS_FLOOR_V6 : NT_STALL_MSS_FLOOR_V4;
}

enum nt_delack_class nt_delack_classify(int64_t ack_delay_ns)
{
	if (ack_delay_ns >= DELACK_MIN_LO_NS && ack_delay_ns < DELACK_MIN_HI_NS)
		return NT_DELACK_MIN;
	if (ack_delay_ns >= DELACK_MAX_LO_NS && ack_delay_ns <= DELACK_MAX_HI_NS)
		return NT_DELACK_MAX;
	return NT_DELACK_OTHER;
}

const char *nt_delack_name(enum nt_delack_class c)
{
	switch (c) {
	case NT_DELACK_MIN:
		return "delack_min";
	case NT_DELACK_MAX:
		return "delack_max";
	default:
		return "other";
	}
}

const char *nt_episode_kind_name(enum nt_episode_kind k)
{
	return k == NT_EPISODE_STALL ? "stall" : "think_time";
}

static bool is_pure_ack(const struct nt_stall_seg *seg)
{
	return seg->len == 0 && (seg->flags & NT_TCP_ACK) &&
	       !(seg->flags & (NT_TCP_SYN | NT_TCP_FIN | NT_TCP_RST));
}

/*
 * The ACK field: judge the peer's held segment, and time the peer's data.
 * Seen away from the ACK's sender (a), ACK - H holds the round trip between
 * the capture point and a besides a's delay: the threshold applies to what
 * is left, with rtt(a) as known before this ACK. A late ACK is no RTT sample
 * (the delay would be taken for the path when it is the first sample).
 */
static void on_ack(struct nt_stall_side *a, struct nt_stall_side *b,
		   const struct nt_stall_params *p, const struct nt_stall_seg *seg)
{
	int64_t path_ns = a->rtt_ns > 0 ? a->rtt_ns : 0;
	bool late = false;

	if (b->state == NT_STALL_HELD) {
		uint32_t h_end = b->h_seq + b->h_len;

		if (!nt_seq_before(seg->ack, h_end)) {
			if (is_pure_ack(seg) && seg->ack == h_end &&
			    seg->t_ns - b->h_t_ns - path_ns >= p->threshold_ns) {
				b->state = NT_STALL_ACKED;
				b->ack_t_ns = seg->t_ns;
				b->ack_frame = seg->frame_index;
				b->ack_path_ns = path_ns;
				late = true;
			} else {
				b->state = NT_STALL_IDLE;
			}
		}
	}
	if (a->sample_t_ns >= 0 && !nt_seq_before(seg->ack, a->sample_end)) {
		int64_t rtt = seg->t_ns - a->sample_t_ns;

		if (!late && rtt >= 0 && (a->rtt_ns < 0 || rtt < a->rtt_ns))
			a->rtt_ns = rtt;
		a->sample_t_ns = -1;
	}
	if (!a->ack_seen || nt_seq_after(seg->ack, a->ack_max)) {
		a->ack_max = seg->ack;
		a->ack_seen = true;
	}
}

static void fill_episode(const struct nt_stall_side *a, const struct nt_stall_params *p,
			 const struct nt_stall_seg *seg, struct nt_stall_episode *ep)
{
	*ep = (struct nt_stall_episode){
		.dir = seg->dir,
		.held_t_ns = a->h_t_ns,
		.ack_t_ns = a->ack_t_ns,
		.release_t_ns = seg->t_ns,
		.held_seq = a->h_seq,
		.held_len = a->h_len,
		.ack_delay_ns = a->ack_t_ns - a->h_t_ns,
		.release_gap_ns = seg->t_ns - a->ack_t_ns,
		.window_ns = p->release_ns + (a->rtt_ns > 0 ? a->rtt_ns : 0),
		.stall_ns = seg->t_ns - a->h_t_ns,
		.held_frame = a->h_frame,
		.ack_frame = a->ack_frame,
		.release_frame = seg->frame_index,
		.answer_t_ns = a->answer_t_ns,
		.answer_frame = a->answer_frame,
		.lost_min_ns = seg->t_ns - a->h_t_ns,
	};
	/*
	 * The peer sent data while H waited: R may be the reply to it rather
	 * than data Nagle held (an ssh key exchange crosses like this), so only
	 * the time since that data is surely lost.
	 */
	if (nt_known(a->answer_t_ns) && a->answer_t_ns > a->h_t_ns)
		ep->lost_min_ns = seg->t_ns - a->answer_t_ns;
	ep->kind = ep->release_gap_ns <= ep->window_ns ? NT_EPISODE_STALL : NT_EPISODE_THINK_TIME;
	/* The timer is the peer's delay: ACK - H less the path to the peer. */
	ep->delack = nt_delack_classify(ep->ack_delay_ns - a->ack_path_ns);
}

int nt_stall_feed(struct nt_stall_tracker *tr, const struct nt_stall_params *p,
		  const struct nt_stall_seg *seg, struct nt_stall_episode *ep)
{
	struct nt_stall_side *a = &tr->side[seg->dir];
	struct nt_stall_side *b = &tr->side[seg->dir == NT_DIR_C2T ? NT_DIR_T2C : NT_DIR_C2T];
	uint32_t seq_len = seg->len + !!(seg->flags & NT_TCP_SYN) + !!(seg->flags & NT_TCP_FIN);
	int produced = 0;

	if (seg->flags & NT_TCP_RST) {
		a->state = b->state = NT_STALL_IDLE;
		return 0;
	}
	if (seg->flags & NT_TCP_ACK)
		on_ack(a, b, p, seg);
	/* A SYN's MSS option is what its sender can receive: the peer's limit. */
	if ((seg->flags & NT_TCP_SYN) && seg->mss_opt)
		b->mss = seg->mss_opt;
	if (seq_len == 0)
		return 0;

	uint32_t end = seg->seq + seq_len;
	bool retx = a->snd_seen && nt_seq_before(seg->seq, a->snd_max);

	if (retx)
		b->sample_t_ns = -1; /* Karn: an ACK after a retransmission is ambiguous */
	else if (b->sample_t_ns < 0) {
		b->sample_t_ns = seg->t_ns;
		b->sample_end = end;
	}

	if (seg->len > 0) {
		uint32_t mss = a->mss;

		/* Data from this side while the other's H waits (see fill_episode()). */
		if (b->state != NT_STALL_IDLE) {
			b->answer_t_ns = seg->t_ns;
			b->answer_frame = seg->frame_index;
		}

		if (a->state == NT_STALL_ACKED && seg->seq == a->h_seq + a->h_len) {
			fill_episode(a, p, seg, ep);
			produced = 1;
		}
		a->state = NT_STALL_IDLE;
		if (!mss)
			mss = a->largest_len > tr->mss_floor ? a->largest_len : tr->mss_floor;
		if (!retx && seg->len < mss && !(seg->flags & (NT_TCP_SYN | NT_TCP_FIN))) {
			a->state = NT_STALL_HELD;
			a->h_t_ns = seg->t_ns;
			a->h_seq = seg->seq;
			a->h_len = seg->len;
			a->h_frame = seg->frame_index;
			a->answer_t_ns = NT_UNKNOWN;
			a->answer_frame = 0;
		}
		if (seg->len > a->largest_len)
			a->largest_len = seg->len;
	} else {
		/* A bare FIN: no data can follow to be released. */
		a->state = NT_STALL_IDLE;
	}
	if (!a->snd_seen || nt_seq_after(end, a->snd_max)) {
		a->snd_max = end;
		a->snd_seen = true;
	}
	return produced;
}
