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
 * look-alike seen on real traffic:
 *
 *  - "sub-MSS", against the effective MSS: a full-sized segment is never
 *    held by Nagle, so data behind it is not waiting for an ACK (RFC 896,
 *    RFC 1122 §4.2.3.4; tcp_nagle_check() tests skb->len < mss_now). The
 *    sender's mss_now (tcp_current_mss()) is the peer's SYN MSS clamped by
 *    its own path (tcp_sync_mss(); its own SYN announced tcp_advertise_mss(),
 *    its route's MTU less headers, so the smaller of both SYNs' options
 *    bounds it), less the options every data segment carries
 *    (tcp_established_options(): 12 bytes of timestamps, RFC 7323 §3, seen on
 *    the data itself). Without a handshake: the largest segment seen, at
 *    least RFC 9293 §3.7.1's default. A full-sized H or R is an ACK-clocked
 *    bulk transfer (the congestion or receive window held it), not Nagle;
 *  - "Nagle on": with Nagle a sender has at most one sub-MSS segment
 *    unacknowledged (tcp_nagle_check() -> tcp_minshall_check(): snd_sml,
 *    the end of the last small segment, must be acknowledged). A sender seen
 *    with two at once (neither a retransmission nor carrying FIN, which
 *    tcp_send_fin() pushes with TCP_NAGLE_OFF, nor sent in urgent mode) has
 *    TCP_NODELAY set: nothing of its is held by Nagle, for the rest of the
 *    connection;
 *  - "not in urgent mode": from send(MSG_OOB) until the peer acknowledges
 *    the urgent byte (tcp_urg_mode(): snd_una != snd_up), tcp_nagle_test()
 *    sends every segment at once, so such segments are no evidence of
 *    TCP_NODELAY and nothing waits behind them (termshark's telnet capture:
 *    telnetd's Synch after an Interrupt Process, three small segments in
 *    flight, then the prompt held behind its output as before);
 *  - "not a retransmission", and any data from A cancels H: an RTO or a fast
 *    retransmit also produces a late ACK followed by data; that is loss, not
 *    Nagle (Karn's rule keeps retransmitted data out of RTT samples, too);
 *  - "pure ACK, exactly H's end, the first to cover H": an ACK riding on data
 *    was not delayed, an ACK covering more than H acknowledges something else
 *    (a FIN, later data), a repeated ACK is a window update;
 *  - "no answer": data from B seen with the late ACK or after it (less than
 *    --release-us before it, or later), that could reach A before R left
 *    (seen at least half the handshake's rtt(A) before R: the data must reach A
 *    and A's application answer it, slower than the kernel's SYN-ACK), is a request R may answer: A's
 *    application read it and wrote R (tcp_recvmsg() then tcp_sendmsg()),
 *    whatever the ACK did. A late ACK, then B's next request, then A's reply
 *    is an exchange, not a hold (also the live trace's target that read
 *    late: body, late ACK, reply, next header). B's data seen well before
 *    the ACK does not explain R leaving right behind the ACK: R was queued
 *    and held (the time since that data is the surely lost part);
 *  - "R within [rtt(A), release + rtt(A)] of the ACK": the held data leaves
 *    when the ACK reaches A (tcp_ack() -> tcp_data_snd_check()). Seen at A
 *    that is microseconds; seen at B or in between it is one round trip
 *    between the capture point and A later: sooner than that (the
 *    handshake's round trip less --release-us, for jitter) R left A before
 *    the ACK got there, so the ACK did not release it; later than release +
 *    rtt(A) (and 1/16 of it for the path's jitter), A had nothing queued:
 *    think time. rtt(A) is the smallest sample
 *    (SYN-ACK -> ACK of a handshake, or B's data -> A's first ACK of it),
 *    used only once it is a handshake's or the smallest of
 *    NT_STALL_RTT_SAMPLES: one data sample may be an ACK A delayed or sent
 *    with its answer (seconds), which would stretch the window to seconds.
 *    Late ACKs' samples count only while A never ACKed promptly, and only
 *    for the window (take_rtt_sample()).
 *    The ACK's class (delack_min, delack_max, other) is reported as the
 *    ACK's delay is: a receiver that was not scheduled makes a late ACK of
 *    another length, and the data it releases is still held data.
 */
#include <sys/socket.h>

#include "nt/clock.h"
#include "nt/model/stall.h"
#include "nt/model/tcp.h"
#include "nt/model/verdict.h"
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

uint32_t nt_stall_mss(const struct nt_stall_tracker *tr, enum nt_dir dir)
{
	const struct nt_stall_side *a = &tr->side[dir];
	uint32_t mss = a->mss;

	if (a->own_mss && (!mss || a->own_mss < mss))
		mss = a->own_mss;
	if (!mss)
		return a->largest_len > tr->mss_floor ? a->largest_len : tr->mss_floor;
	if (a->ts && mss > 2 * NT_STALL_TS_OPT_BYTES)
		mss -= NT_STALL_TS_OPT_BYTES;
	return mss;
}

/*
 * The earliest R can follow the ACK, or B's data reach A before R left, is
 * one round trip between the capture point and A. Only a handshake measures
 * that path for sure (tcp_v4_conn_request() answers a SYN, and
 * tcp_rcv_synsent_state_process() a SYN-ACK, at once): a data sample may be
 * an ACK A delayed or sent with its next request, longer than the path, and
 * a lower bound too high drops real releases. Even the handshake's sample
 * holds the host's own time to answer the SYN, which can exceed its time to
 * send queued data on an ACK: 176 us of a Windows client's SYN-ACK -> ACK
 * against releases seen 64 us after the ACK in nDPI's coap_mqtt test, 0.938
 * ms against 0.961 in tcpdump's of10_pf5240. So the bound is that round trip
 * less --release-us and 1/16 of it, the allowances the upper bound gives a
 * busy sender and the path's jitter: R is seen within them of one round
 * trip after the ACK. Without a handshake there is no lower bound.
 */
/*
 * A release seen away from A comes one round trip after the ACK, and that
 * round trip varies: on nDPI's tor capture, 141.4 ms away, releases show
 * 0.2-2.7 ms past the smallest sample, far more than --release-us. The
 * upper bound allows 1/16 of rtt(A) besides (RTT_JITTER_DIV), as RFC 6298
 * §2 keeps a variance beside SRTT.
 */
#define RTT_JITTER_DIV 16

static int64_t side_rtt(const struct nt_stall_side *a)
{
	if (a->rtt_ns > 0 && (a->rtt_syn || a->n_rtt >= NT_STALL_RTT_SAMPLES))
		return a->rtt_ns;
	return 0;
}

/* The path as prompt ACKs time it: what a late ACK's delay is measured past. */
static int64_t side_path(const struct nt_stall_side *a)
{
	return a->rtt_late ? -1 : a->rtt_ns;
}

int64_t nt_stall_path(const struct nt_stall_tracker *tr, enum nt_dir dir)
{
	return side_path(&tr->side[dir]);
}

static int64_t side_rtt_lo(const struct nt_stall_side *a, const struct nt_stall_params *p)
{
	int64_t slack = p->release_ns + a->rtt_ns / RTT_JITTER_DIV;

	return a->rtt_syn && a->rtt_ns > slack ? a->rtt_ns - slack : 0;
}

/*
 * B's data can be what R answers only if it reached A, A's application read
 * it and wrote R, and R came back to the capture point: a round trip plus
 * the application's time, more than the kernel's answer to a SYN. Half the
 * handshake's round trip is the bound (jitter): in tcpdump's bgp-4byte-asn
 * test a KEEPALIVE seen 17 us after the peer's UPDATE, on a 52 us path, is
 * no answer to it.
 */
static int64_t side_answer_lo(const struct nt_stall_side *a)
{
	return a->rtt_syn && a->rtt_ns > 0 ? a->rtt_ns / 2 : 0;
}

int64_t nt_stall_rtt(const struct nt_stall_tracker *tr, enum nt_dir dir)
{
	return side_rtt(&tr->side[dir]);
}

/*
 * Urgent mode, as tcp_urg_mode() has it: a segment with URG, or one sent
 * before the peer acknowledged the last one with URG. The urgent pointer
 * itself is not read: the end of the segment that carried URG bounds SND.UP.
 */
static bool in_urgent_mode(struct nt_stall_side *a, const struct nt_stall_side *b,
			   const struct nt_stall_seg *seg, uint32_t end)
{
	bool was = a->urg_seen && (!b->ack_seen || nt_seq_after(a->urg_end, b->ack_max));

	if (seg->flags & NT_TCP_URG) {
		a->urg_end = end;
		a->urg_seen = true;
		return true;
	}
	return was;
}

static bool is_pure_ack(const struct nt_stall_seg *seg)
{
	return seg->len == 0 && (seg->flags & NT_TCP_ACK) &&
	       !(seg->flags & (NT_TCP_SYN | NT_TCP_FIN | NT_TCP_RST));
}

/*
 * A sample of the round trip between the capture point and a. A late ACK's
 * (@late) holds a's delay besides the path: it never sets the path a later
 * ACK's delay is measured past (side_path(): a target in ping-pong that
 * delays every ACK would make its delay the path and hide every stall
 * after the first). But when no prompt ACK was ever seen, the smallest of
 * NT_STALL_RTT_SAMPLES late ones bounds the release window (side_rtt()):
 * without it a far peer mid-stream, every ACK of its slower than the
 * threshold, had no round trip at all, and its releases one round trip
 * after the ACK were taken for think time (nfstrace's smb2-zero-file-rw, a
 * peer 285 ms away). The first prompt sample replaces the late ones.
 */
static void take_rtt_sample(struct nt_stall_side *a, int64_t rtt, bool late)
{
	if (late && a->rtt_ns >= 0 && !a->rtt_late)
		return; /* the path is known from prompt ACKs */
	if (!late && a->rtt_late) {
		a->rtt_ns = -1;
		a->n_rtt = 0;
		a->rtt_late = false;
	}
	if (a->rtt_ns < 0 || rtt < a->rtt_ns)
		a->rtt_ns = rtt;
	a->rtt_late = late;
	if (a->n_rtt < UINT16_MAX)
		a->n_rtt++;
	if (a->sample_syn && !late)
		a->rtt_syn = true;
}

/*
 * The ACK field: judge the peer's held segment, and time the peer's data.
 * Seen away from the ACK's sender (a), ACK - H holds the round trip between
 * the capture point and a besides a's delay: the threshold applies to what
 * is left, with the path to a as prompt ACKs timed it before this ACK.
 */
static void on_ack(struct nt_stall_side *a, struct nt_stall_side *b,
		   const struct nt_stall_params *p, const struct nt_stall_seg *seg)
{
	/*
	 * Every sample is at least the path, so the smallest, even alone, is a
	 * safe part to take off ACK - H: one long sample can only hide a stall,
	 * never make one (skype_no_unknown: a SYN retransmitted, one 292 ms
	 * data sample, then an ACK 293 ms after H: the path, not a timer).
	 */
	int64_t path_ns = side_path(a);
	bool late = false;

	if (path_ns < 0)
		path_ns = 0; /* unknown: the whole ACK - H is the peer's delay */
	if (b->state == NT_STALL_HELD) {
		uint32_t h_end = b->h_seq + b->h_len;

		if (!nt_seq_before(seg->ack, h_end)) {
			/* The delay line's lateness, as the -w file noted it on H and A. */
			int64_t late_ns = b->late_ns + seg->note.late_ns;

			if (is_pure_ack(seg) && seg->ack == h_end &&
			    nt_verdict_ack_slow(b->h_t_ns, seg->t_ns, path_ns + late_ns,
						p->threshold_ns)) {
				b->state = NT_STALL_ACKED;
				b->ack_t_ns = seg->t_ns;
				b->ack_frame = seg->frame_index;
				b->ack_path_ns = path_ns;
				b->late_ns = late_ns;
				late = true;
			} else {
				b->state = NT_STALL_IDLE;
			}
		}
	}
	if (a->sample_t_ns >= 0 && !nt_seq_before(seg->ack, a->sample_end)) {
		int64_t rtt = seg->t_ns - a->sample_t_ns;

		if (rtt >= 0)
			take_rtt_sample(a, rtt, late);
		a->sample_t_ns = -1;
	}
	if (!a->ack_seen || nt_seq_after(seg->ack, a->ack_max)) {
		a->ack_max = seg->ack;
		a->ack_seen = true;
	}
}

/*
 * R has come, at H's end: an episode unless R is full-sized, answers B's
 * data or left A before the ACK could reach it (0: no episode).
 */
static int fill_episode(const struct nt_stall_tracker *tr, const struct nt_stall_side *a,
			const struct nt_stall_params *p, const struct nt_stall_seg *seg,
			struct nt_stall_episode *ep)
{
	int64_t rtt = side_rtt(a);
	int64_t lo = side_rtt_lo(a, p);
	int64_t gap = seg->t_ns - a->ack_t_ns;
	int64_t written = seg->note.has_write ? seg->t_ns - seg->note.write_lead_ns : NT_UNKNOWN;
	/* A noted write settles the release alone (nt_verdict_waited()). */
	bool written_first = nt_known(written) && nt_verdict_waited(written, a->ack_t_ns, gap, 0);

	if (seg->len >= nt_stall_mss(tr, seg->dir))
		return 0; /* a window held it, not Nagle */
	if (gap < lo)
		return 0; /* it left A before the ACK got there */
	/*
	 * B's data came with the ACK or after it (B's data and its ACK travel
	 * the same way: their order and spacing hold at any vantage point) and
	 * could reach A before R left: R may answer it. B's data seen well
	 * before the ACK (an ssh key exchange crossing) does not explain R
	 * leaving just behind the ACK: R was written and held. So was an R a
	 * -w file notes was written before the ACK came.
	 */
	if (!written_first && nt_known(a->answer_t_ns) &&
	    a->answer_t_ns + p->release_ns >= a->ack_t_ns &&
	    seg->t_ns - a->answer_t_ns >= side_answer_lo(a))
		return 0;
	*ep = (struct nt_stall_episode){
		.dir = seg->dir,
		.held_t_ns = a->h_t_ns,
		.ack_t_ns = a->ack_t_ns,
		.release_t_ns = seg->t_ns,
		.held_seq = a->h_seq,
		.held_len = a->h_len,
		.ack_delay_ns = a->ack_t_ns - a->h_t_ns,
		.ack_late_ns = a->late_ns,
		.release_gap_ns = gap,
		.window_ns = p->release_ns + rtt + rtt / RTT_JITTER_DIV,
		.stall_ns = seg->t_ns - a->h_t_ns,
		.held_frame = a->h_frame,
		.ack_frame = a->ack_frame,
		.release_frame = seg->frame_index,
		.answer_t_ns = a->answer_t_ns,
		.answer_frame = a->answer_frame,
		.lost_min_ns = seg->t_ns - a->h_t_ns,
		.written_t_ns = written,
	};
	/*
	 * B's data came while H waited but too late to reach A before R left:
	 * R does not answer it, yet the report keeps the part of the wait
	 * before it as the doubtful part.
	 */
	if (nt_known(a->answer_t_ns) && a->answer_t_ns > a->h_t_ns)
		ep->lost_min_ns = seg->t_ns - a->answer_t_ns;
	ep->kind =
		nt_verdict_waited(ep->written_t_ns, ep->ack_t_ns, ep->release_gap_ns, ep->window_ns)
			? NT_EPISODE_STALL
			: NT_EPISODE_THINK_TIME;
	/* The timer is the peer's delay: ACK - H less the path to the peer. */
	ep->delack = nt_delack_classify(ep->ack_delay_ns - a->ack_path_ns - a->late_ns);
	return 1;
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
	/*
	 * A SYN's MSS option is what its sender can receive: the peer's limit,
	 * and, announced from its own route, a bound on what it sends.
	 */
	if ((seg->flags & NT_TCP_SYN) && seg->mss_opt) {
		b->mss = seg->mss_opt;
		a->own_mss = seg->mss_opt;
	}
	if (seq_len == 0) {
		/*
		 * A pure ACK carries its sender's SND.NXT (RFC 9293 §3.4): past
		 * the data seen, it names data the capture missed, and data
		 * sent below it later is a retransmission (nDPI's tor capture:
		 * a cell lost before the capture point, its RTO retransmission
		 * then held the next cell by the congestion window, not Nagle).
		 */
		if (a->snd_seen && nt_seq_after(seg->seq, a->snd_max))
			a->snd_max = seg->seq;
		return 0;
	}

	uint32_t end = seg->seq + seq_len;
	bool retx = a->snd_seen && nt_seq_before(seg->seq, a->snd_max);

	if (retx)
		b->sample_t_ns = -1; /* Karn: an ACK after a retransmission is ambiguous */
	else if (b->sample_t_ns < 0) {
		b->sample_t_ns = seg->t_ns;
		b->sample_end = end;
		b->sample_syn = seg->flags & NT_TCP_SYN;
	}

	if (seg->len > 0) {
		bool urgent = in_urgent_mode(a, b, seg, end);
		/* What tcp_nagle_test() lets past Nagle: a FIN, urgent mode. */
		bool pushed = (seg->flags & (NT_TCP_SYN | NT_TCP_FIN)) || urgent;
		bool small;

		if (seg->has_ts)
			a->ts = true;
		small = seg->len < nt_stall_mss(tr, seg->dir);
		/* Data from this side while the other's H waits (see fill_episode()). */
		if (b->state != NT_STALL_IDLE) {
			b->answer_t_ns = seg->t_ns;
			b->answer_frame = seg->frame_index;
		}
		/* A second small segment while the last is unacknowledged: no Nagle. */
		if (small && !retx && !pushed && a->small_seen && b->ack_seen &&
		    nt_seq_after(a->small_end, b->ack_max))
			a->nagle_off = true;
		if (a->state == NT_STALL_ACKED && seg->seq == a->h_seq + a->h_len && !a->nagle_off)
			produced = fill_episode(tr, a, p, seg, ep);
		a->state = NT_STALL_IDLE;
		if (small && !retx) {
			a->small_end = end;
			a->small_seen = true;
		}
		if (!retx && small && !pushed && !a->nagle_off) {
			a->state = NT_STALL_HELD;
			a->h_t_ns = seg->t_ns;
			a->late_ns = seg->note.late_ns;
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
