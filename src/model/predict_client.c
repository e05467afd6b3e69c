// SPDX-License-Identifier: MIT
/*
 * predict_client.c - the client's write pattern and send side, as Linux
 * decides them (net/ipv4/tcp.c tcp_sendmsg() and tcp_push(),
 * net/ipv4/tcp_output.c tcp_write_xmit() and the Nagle test), plus the two
 * directions of the link: what the capture at the client's veth end sees.
 *
 * The lab offloads nothing (gso_max_segs 1), so every skb is one segment of
 * at most one MSS; a write fills the unsent tail skb first, so the unsent
 * data is always whole segments from snd_nxt plus at most one partial tail,
 * and only that tail is ever tested by Nagle.
 *
 * With no RTT the target's softirq runs inside the client's send: a segment
 * is processed by the target, and an immediate ACK reaches the client's veth
 * end, before the client sends its next segment. The client socket is owned
 * during a write, so that ACK only takes effect (releasing held data) when
 * the write returns (release_sock()).
 */
#include "predict_int.h"

/* tp->nonagle bits (include/net/tcp.h) */
#define NAGLE_OFF  1u
#define NAGLE_CORK 2u

enum cop {
	COP_END = 0,
	COP_WRITE_HEADER,
	COP_WRITE_BODY,
	COP_WRITE_BOTH,
	COP_SEND_HEADER_MORE,
	COP_CORK_ON,
	COP_CORK_OFF,
	COP_GAP,
	COP_BODY_CALL,	 /* write(body) takes its observed time to return */
	COP_BODY_RETURN, /* write(body) returns */
};

#define COP_MAX 8

/* The variants' write patterns (src/live/variant.c), as steps. */
static const uint8_t patterns[NT_PREDICT_PATTERN_COUNT][COP_MAX] = {
	[NT_PREDICT_TWO_WRITES] = { COP_WRITE_HEADER, COP_GAP, COP_WRITE_BODY, COP_BODY_CALL,
				    COP_BODY_RETURN, COP_END },
	[NT_PREDICT_ONE_WRITE] = { COP_WRITE_BOTH, COP_END },
	[NT_PREDICT_WRITEV] = { COP_WRITE_BOTH, COP_END },
	[NT_PREDICT_CORK] = { COP_CORK_ON, COP_WRITE_HEADER, COP_GAP, COP_WRITE_BODY, COP_BODY_CALL,
			      COP_BODY_RETURN, COP_CORK_OFF, COP_END },
	[NT_PREDICT_MSG_MORE] = { COP_SEND_HEADER_MORE, COP_GAP, COP_WRITE_BODY, COP_BODY_CALL,
				  COP_BODY_RETURN, COP_END },
};

static unsigned packets_out(const struct nt_ptx *tx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < tx->n_sent; i++)
		n += tx->ends[i] > tx->acked;
	return n;
}

static unsigned tp_nonagle(const struct nt_psim *s)
{
	return (s->k->client_nodelay ? NAGLE_OFF : 0) | (s->tx.cork ? NAGLE_CORK : 0);
}

static bool has_write_end(const struct nt_ptx *tx, uint32_t start, uint32_t end)
{
	for (unsigned i = 0; i < tx->n_write_ends; i++)
		if (tx->write_ends[i] > start && tx->write_ends[i] <= end)
			return true;
	return false;
}

static void send_text(struct nt_psim *s, struct nt_predict_why *w, enum nt_predict_rule rule,
		      uint32_t len)
{
	const struct nt_ptx *tx = &s->tx;

	switch (rule) {
	case NT_RULE_FULL_SEGMENT:
		NT_PSIM_WHY(w, rule, NT_SAY_SENT_FULL, len);
		break;
	case NT_RULE_NAGLE_IDLE:
		NT_PSIM_WHY(w, rule, NT_SAY_SENT_IDLE, len);
		break;
	case NT_RULE_MINSHALL_CLEAR:
		NT_PSIM_WHY(w, rule, NT_SAY_SENT_MINSHALL, len);
		break;
	case NT_RULE_NODELAY:
		NT_PSIM_WHY(w, rule, NT_SAY_SENT_NODELAY, len);
		break;
	case NT_RULE_CORK_PUSH:
		NT_PSIM_WHY(w, rule, NT_SAY_SENT_PUSHED, s->k->pattern, len);
		break;
	case NT_RULE_CORK_PROBE:
		NT_PSIM_WHY(w, rule, NT_SAY_SENT_PROBE);
		break;
	case NT_RULE_RELEASED_BY_ACK:
		NT_PSIM_WHY(w, rule, NT_SAY_SENT_RELEASED, (int64_t)(s->base + tx->rel_lo),
			    (int64_t)(s->base + tx->rel_hi), len);
		break;
	default:
		NT_PSIM_WHY(w, rule, NT_SAY_SUMMARY);
		break;
	}
}

/*
 * The capture at the client's end sees a client segment leave.
 * Return: its tag on the round's ladder (nt_psim_ladder_arrive()).
 */
static uint32_t mark_sent(struct nt_psim *s, const struct nt_pseg *seg, enum nt_predict_rule rule)
{
	uint32_t end = seg->start + seg->len;
	bool has_h = seg->start < s->header && end >= s->header;
	bool has_b = seg->start <= s->header && end > s->header;
	uint32_t tag = nt_psim_ladder_client(s, seg, has_h, has_b);

	s->capture++;
	s->data_segs++;
	s->header_segs += seg->start < s->header;
	s->body_segs += end > s->header;
	if (has_h && !s->h.seen) {
		s->h = (struct nt_pmark){ .seen = true, .idx = s->capture, .t = s->now };
		if (s->out) {
			send_text(s, &s->out->header, rule, seg->len);
			s->out->coalesced = has_b;
		}
	}
	if (has_b && !s->b.seen) {
		s->b = (struct nt_pmark){ .seen = true, .idx = s->capture, .t = s->now };
		if (s->out && s->out->body_held)
			send_text(s, &s->out->release, rule, seg->len);
		else if (s->out)
			send_text(s, &s->out->body, rule, seg->len);
	}
	return tag;
}
/*
 * When a segment sent now reaches the other end through the lab's delay
 * line: half the RTT at least, 50 us more nominally, 200 us more at most
 * (its transit jitter; one place for both directions), and as late as the
 * forwarder was seen to be in this round (predict_sched.c); H and A (@mark)
 * exactly as late as it was measured to release them, when it was.
 */
static struct nt_ptime transit(const struct nt_psim *s, bool mark, bool h)
{
	int64_t d = s->k->rtt_ns / 2, late = mark ? nt_psim_mark_late(s, h) : -1;

	if (late >= 0)
		return nt_pt_add(s->now, d + late, d + late + 50000, d + late + 200000);
	return nt_pt_add(s->now, d, d + 50000, d + 200000 + nt_psim_path_late(s));
}

static void send_seg(struct nt_psim *s, uint32_t len, enum nt_predict_rule rule)
{
	struct nt_ptx *tx = &s->tx;
	struct nt_pseg seg = { .start = tx->sent, .len = len };
	/* H: the first segment with the header's last byte (mark_sent()). */
	bool is_h = !s->h.seen && seg.start < s->header && seg.start + len >= s->header;
	uint32_t tag;

	seg.psh = has_write_end(tx, seg.start, seg.start + len);
	tx->sent += len;
	if (tx->n_sent < NT_PSIM_SEG_MAX)
		tx->ends[tx->n_sent++] = tx->sent;
	else
		s->overflow = true;
	/* tcp_minshall_update(): remember where the last small segment ended. */
	if (len < s->kern->mss) {
		tx->sml_start = seg.start;
		tx->sml = tx->sent;
	}
	tx->probe_gen++;
	tag = mark_sent(s, &seg, rule);
	if (s->k->rtt_ns <= 0) {
		nt_psim_ladder_arrive(s, tag);
		nt_prx_arrive(s, &seg);
	} else {
		nt_psim_post(s, NT_PEV_C2T, transit(s, is_h, true), seg.start, seg.len, seg.psh,
			     tag);
	}
}

/*
 * tcp_nagle_test() for the partial tail (tcp_nagle_check()): held when
 * corked (TCP_NAGLE_CORK comes first, so cork beats TCP_NODELAY); sent with
 * TCP_NODELAY, or with nothing in flight; else held only while the last small
 * segment is unacknowledged (tcp_minshall_check(): snd_sml after snd_una).
 */
static enum nt_predict_rule nagle_test(const struct nt_psim *s, unsigned nonagle)
{
	const struct nt_ptx *tx = &s->tx;

	if (nonagle & NAGLE_CORK)
		return NT_RULE_CORK_HOLD;
	if (nonagle & NAGLE_OFF)
		return NT_RULE_NODELAY;
	if (packets_out(tx) == 0)
		return NT_RULE_NAGLE_IDLE;
	if (tx->sml > tx->acked && tx->sml <= tx->sent)
		return NT_RULE_NAGLE_HOLD;
	return NT_RULE_MINSHALL_CLEAR;
}

static void note_hold(struct nt_psim *s, enum nt_predict_rule rule)
{
	const struct nt_ptx *tx = &s->tx;

	if (!s->out || s->out->body_held || tx->sent > s->header || tx->queued <= s->header)
		return;
	s->out->body_held = true;
	if (rule == NT_RULE_NAGLE_HOLD)
		NT_PSIM_WHY(&s->out->body, rule, NT_SAY_HELD_NAGLE,
			    (int64_t)(s->base + tx->sml_start), (int64_t)(s->base + tx->sml));
	else
		NT_PSIM_WHY(&s->out->body, rule, NT_SAY_HELD_CORK, s->k->pattern);
}

/*
 * tcp_check_probe_timer(): corked data with nothing in flight gets the probe
 * timer, at the client's RTO: rto_min plus its smoothed RTT, which counts the
 * target's delayed ACKs (up to about 48 ms) once the stalls begin.
 */
static void arm_probe(struct nt_psim *s)
{
	int64_t j = s->kern->jiffy_ns, rto = s->kern->rto;

	nt_psim_post(s, NT_PEV_PROBE,
		     nt_pt_anchor(s, s->now, (rto - 1) * j, rto * j,
				  (rto + 1 + NT_PSIM_LATE_TICKS) * j + 48000000, true),
		     0, 0, false, ++s->tx.probe_gen);
}

/* tcp_write_xmit(): whole segments go; the partial tail faces Nagle. */
static void xmit(struct nt_psim *s, unsigned nonagle, enum nt_predict_rule release)
{
	struct nt_ptx *tx = &s->tx;

	while (tx->sent < tx->queued) {
		uint32_t len = tx->queued - tx->sent;
		enum nt_predict_rule rule;

		if (len >= s->kern->mss) {
			send_seg(s, s->kern->mss, NT_RULE_FULL_SEGMENT);
			continue;
		}
		rule = nagle_test(s, nonagle);
		if (rule == NT_RULE_CORK_HOLD || rule == NT_RULE_NAGLE_HOLD) {
			note_hold(s, rule);
			/* tcp_check_probe_timer(): corked data with nothing in flight. */
			if (rule == NT_RULE_CORK_HOLD && packets_out(tx) == 0)
				arm_probe(s);
			return;
		}
		send_seg(s, len, release != NT_RULE_NONE ? release : rule);
	}
}

/* One send call: copy, push full segments as they fill (tcp_push_one()), then tcp_push(). */
static void do_write(struct nt_psim *s, uint32_t bytes, bool more)
{
	struct nt_ptx *tx = &s->tx;
	uint32_t ack;

	tx->owned = true;
	tx->queued += bytes;
	/* tcp_push() marks PSH on the tail unless MSG_MORE. */
	if (!more && tx->n_write_ends < 4)
		tx->write_ends[tx->n_write_ends++] = tx->queued;
	/*
	 * Full segments go as they fill (tcp_push_one(): xmit()'s first loop),
	 * then the tail is pushed; MSG_MORE pushes with TCP_NAGLE_CORK for this
	 * call only.
	 */
	xmit(s, more ? NAGLE_CORK : tp_nonagle(s), NT_RULE_NONE);
	tx->owned = false;
	ack = tx->backlog_ack;
	tx->backlog_ack = 0;
	if (ack)
		nt_ptx_ack(s, ack);
}

static bool run_step(struct nt_psim *s, uint8_t op)
{
	struct nt_ptx *tx = &s->tx;
	bool observed;
	int64_t g = nt_psim_write_gap(s, &observed);

	switch (op) {
	case COP_GAP:
		if (g <= 0)
			return true;
		/* Observed: the client was not scheduled for that long (predict_sched.c). */
		nt_psim_post(s, NT_PEV_CLIENT,
			     observed ? nt_psim_observed_in(s, g)
				      : nt_pt_anchor(s, s->now, g, g + nt_psim_wake_nominal(s),
						     g + s->k->wake_slack_ns, false),
			     0, 0, false, 0);
		return false;
	case COP_CORK_ON:
		tx->cork = true;
		return true;
	case COP_CORK_OFF:
		/* tcp_sock_set_cork(sk, false): tcp_push_pending_frames() */
		tx->cork = false;
		xmit(s, tp_nonagle(s), NT_RULE_CORK_PUSH);
		return true;
	case COP_WRITE_HEADER:
		do_write(s, s->header, false);
		return true;
	case COP_SEND_HEADER_MORE:
		do_write(s, s->header, true);
		return true;
	case COP_WRITE_BOTH:
		do_write(s, s->header + s->body, false);
		return true;
	case COP_WRITE_BODY:
		do_write(s, s->body, false);
		return true;
	case COP_BODY_CALL:
		/* Observed late (predict_sched.c): the client ran again that much later. */
		g = nt_psim_body_call(s);
		if (g <= 0)
			return true;
		nt_psim_post(s, NT_PEV_CLIENT, nt_psim_observed_in(s, g), 0, 0, false, 0);
		return false;
	case COP_BODY_RETURN:
		/* write(body) returns: a point on the capture's timeline. */
		s->write_body_idx = ++s->capture;
		if (s->out)
			s->out->write_body_ns = nt_psim_ladder_at(s);
		return true;
	}
	return false;
}

void nt_ptx_run(struct nt_psim *s)
{
	const uint8_t *ops = patterns[s->k->pattern];

	while (s->tx.op < COP_MAX && ops[s->tx.op] != COP_END) {
		uint8_t op = ops[s->tx.op++];

		if (!run_step(s, op))
			return;
	}
}

/* tcp_ack() then tcp_data_snd_check(): what Nagle held may go now. */
void nt_ptx_ack(struct nt_psim *s, uint32_t ack)
{
	struct nt_ptx *tx = &s->tx;

	if (tx->owned) {
		if (ack > tx->backlog_ack)
			tx->backlog_ack = ack;
		return;
	}
	if (ack <= tx->acked)
		return;
	tx->acked = ack < tx->sent ? ack : tx->sent;
	tx->rel_lo = tx->sml_start;
	tx->rel_hi = tx->sml;
	xmit(s, tp_nonagle(s), NT_RULE_RELEASED_BY_ACK);
}

/* tcp_probe_timer() -> tcp_write_wakeup(): the head of the queue goes, corked or not. */
void nt_ptx_probe(struct nt_psim *s, uint32_t gen)
{
	struct nt_ptx *tx = &s->tx;
	uint32_t len = tx->queued - tx->sent;

	if (gen != tx->probe_gen || !len || packets_out(tx))
		return;
	send_seg(s, len < s->kern->mss ? len : s->kern->mss, NT_RULE_CORK_PROBE);
}

/* A target segment reaches the client's veth end: the capture sees it, then TCP. */
static void client_receive(struct nt_psim *s, uint32_t ack, uint32_t reply)
{
	s->capture++;
	if (!s->a.seen && ack >= s->header)
		s->a = (struct nt_pmark){
			.seen = true, .idx = s->capture, .t = s->now, .pure = !reply
		};
	nt_ptx_ack(s, ack);
	if (reply) {
		s->tx.reply_got += reply;
		if (s->tx.reply_got >= s->k->reply_bytes && !s->done) {
			s->done = true;
			s->reply_at_client = s->now;
			if (s->out)
				s->out->reply_ns = nt_psim_ladder_at(s);
		}
	}
}

void nt_ptx_target_segment(struct nt_psim *s, uint32_t ack, uint32_t reply_bytes)
{
	uint32_t tag = nt_psim_ladder_target(s, ack, reply_bytes);
	/* A: the first target segment that acknowledges the whole header (client_receive()). */
	bool is_a = !s->a_posted && ack >= s->header;

	s->a_posted |= is_a;
	if (s->k->rtt_ns <= 0) {
		nt_psim_ladder_arrive(s, tag);
		client_receive(s, ack, reply_bytes);
	} else {
		nt_psim_post(s, NT_PEV_T2C, transit(s, is_a, false), ack, reply_bytes,
			     reply_bytes == 0, tag);
	}
}

void nt_ptx_client_segment(struct nt_psim *s, uint32_t ack, uint32_t reply)
{
	client_receive(s, ack, reply);
}
