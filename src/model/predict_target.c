// SPDX-License-Identifier: MIT
/*
 * predict_target.c - the target's receive side as Linux decides it
 * (net/ipv4/tcp_input.c, tcp_output.c, tcp_timer.c): what a data segment
 * does to the ACK state, whether it is ACKed now or later, the delayed-ACK
 * timer. Each function names the kernel function it follows; the code is
 * written from reading them, not copied. The application's side (reads,
 * TCP_QUICKACK, the reply) is predict_server.c.
 */
#include <stdarg.h>
#include <stdio.h>

#include "predict_int.h"

bool nt_prx_in_pingpong(const struct nt_psim *s)
{
	/* inet_csk_in_pingpong_mode(): the count against tcp_pingpong_thresh */
	return s->rx.pingpong >= s->kern->pingpong_thresh;
}

uint32_t nt_prx_rcv_nxt(const struct nt_psim *s)
{
	return s->app_got + s->rx.unread;
}

unsigned nt_prx_jiffies_ms(const struct nt_psim *s, unsigned j)
{
	return (unsigned)(j * s->kern->jiffy_ns / 1000000);
}

void nt_prx_snapshot(const struct nt_psim *s, struct nt_predict_rx *out)
{
	*out = (struct nt_predict_rx){
		.pingpong = nt_prx_in_pingpong(s),
		.pingpong_cnt = s->rx.pingpong,
		.quick = s->rx.quick,
		.ato_jiffies = s->rx.ato,
		.ato_ms = nt_prx_jiffies_ms(s, s->rx.ato),
		.rcv_mss = s->rx.rcv_mss,
		.certain = s->rx.quick == s->rx.quick_hi,
	};
}

/*
 * tcp_dec_quickack_mode(), via tcp_event_ack_sent(): every segment we send
 * carries an ACK. Since 6.6 only an ACK of new data (one was scheduled)
 * spends the budget; before, every segment spent one per packet.
 */
/*
 * Whether budget is left. The budget is a range when an earlier ACK could
 * not be placed; a test across zero is then a choice, which narrows it.
 */
static bool quick_left(struct nt_psim *s)
{
	struct nt_prx *rx = &s->rx;

	if (rx->quick)
		return true;
	if (!rx->quick_hi)
		return false;
	if (nt_psim_choose(s, 2, NT_RULE_BUDGET_UNKNOWN)) {
		rx->quick_hi = 0;
		return false;
	}
	rx->quick = 1;
	return true;
}

static void dec_quick(struct nt_psim *s, bool scheduled)
{
	unsigned pkts = s->kern->quick_counts_new_data ? (scheduled ? 1 : 0) : 1;
	struct nt_prx *rx = &s->rx;

	if (!pkts || !quick_left(s))
		return;
	if (pkts >= rx->quick_hi) {
		rx->quick = rx->quick_hi = 0;
		/* Leaving quick-ACK mode deflates ato. */
		rx->ato = s->kern->ato_min;
	} else {
		rx->quick = rx->quick > pkts ? rx->quick - pkts : 0;
		rx->quick_hi -= pkts;
	}
}

/* tcp_win_from_space(): bytes of window for bytes of buffer, at the scaling ratio. */
static uint32_t win_from_space(const struct nt_psim *s, int64_t space)
{
	return space > 0 ? (uint32_t)((uint64_t)space * s->rx.ratio >> 8) : 0;
}

/* tcp_space(): the window left once what is queued is accounted for. */
static uint32_t free_space(const struct nt_psim *s)
{
	return win_from_space(s, (int64_t)s->k->rcvbuf_bytes - s->rx.unread_truesize);
}

static uint32_t align_up(uint32_t v, uint32_t unit)
{
	return (v + unit - 1) / unit * unit;
}

/* __tcp_select_window(): the free space, capped by rcv_ssthresh, in window-scale units. */
static uint32_t select_window(const struct nt_psim *s)
{
	uint32_t f = free_space(s);

	return align_up(f < s->rx.ssthresh ? f : s->rx.ssthresh, s->kern->wscale_bytes);
}

/*
 * tcp_event_ack_sent(): the ACK is out; the delayed-ACK timer is cleared
 * (pending = 0). tcp_select_window() offered a new window, never less than
 * what was still open.
 */
void nt_prx_ack_sent(struct nt_psim *s)
{
	uint32_t win = select_window(s), open = 0;

	if (s->rx.wnd_base > s->rx.unacked)
		open = align_up(s->rx.wnd_base - s->rx.unacked, s->kern->wscale_bytes);
	s->rx.wnd_base = win > open ? win : open;
	dec_quick(s, s->rx.pending & NT_ACK_SCHED);
	s->rx.pending = 0;
	s->rx.timer_gen++;
	s->rx.unacked = 0;
}

/* tcp_send_ack(): a pure ACK of everything received. */
/*
 * A pure ACK in words. The timer's: tcp_delack_timer_handler() leaves
 * ping-pong and resets ato in it, doubles ato outside it (@s->rx.ato is
 * already the new value).
 */
static void note_ack(struct nt_psim *s, struct nt_predict_why *w, enum nt_predict_rule rule,
		     uint32_t ack)
{
	int64_t seq = (int64_t)(s->base + ack);

	if (rule != NT_RULE_DELACK_TIMER)
		NT_PSIM_WHY(w, rule, NT_SAY_PURE_ACK, seq);
	else if (s->timer_left_pingpong)
		NT_PSIM_WHY(w, rule, NT_SAY_TIMER_LEFT, seq,
			    nt_prx_jiffies_ms(s, s->kern->ato_min));
	else
		NT_PSIM_WHY(w, rule, NT_SAY_TIMER_DOUBLED, seq, nt_prx_jiffies_ms(s, s->rx.ato));
}

void nt_prx_send_ack(struct nt_psim *s, enum nt_predict_rule rule)
{
	uint32_t ack = nt_prx_rcv_nxt(s);

	nt_prx_ack_sent(s);
	if (ack >= s->header && !s->a_sent_seen) {
		s->a_sent_seen = true;
		s->a_sent = s->now;
		s->a_ack = ack;
		if (s->out)
			note_ack(s, &s->out->ack, rule, ack);
	} else if (ack < s->header && !s->part_ack_seen && s->out) {
		s->part_ack_seen = true;
		note_ack(s, &s->out->part_ack, rule, ack);
	} else if (s->a_sent_seen && ack > s->a_ack && !s->body_ack_seen && s->out) {
		s->body_ack_seen = true;
		note_ack(s, &s->out->body_ack, rule, ack);
	} else if (s->body_ack_seen && s->out) {
		NT_PSIM_WHY(&s->out->later_ack, rule, NT_SAY_LATER_ACK);
	}
	nt_ptx_target_segment(s, ack, 0);
}

/*
 * tcp_measure_rcv_mss(): rcv_mss follows the largest segment seen; a
 * smaller one sets ICSK_ACK_PUSHED (PUSHED2 when PUSHED was set already)
 * unless two in a row of the same size >= 76 bytes without PSH, or >= 524
 * bytes, mark the peer's MSS as lower. Since 6.6 a full segment with PSH
 * sets PUSHED too.
 */
static void measure_rcv_mss(struct nt_psim *s, const struct nt_pseg *seg)
{
	struct nt_prx *rx = &s->rx;
	uint32_t lss = rx->lss, len = seg->len, with_hdr = seg->len + 32;

	rx->lss = 0;
	if (len >= rx->rcv_mss) {
		/*
		 * Since 6.6 a new rcv_mss also sets scaling_ratio = len / truesize,
		 * and the window clamp with it (tcp_set_window_clamp()).
		 */
		if (s->kern->scaling_ratio && len != rx->rcv_mss) {
			uint32_t clamp;

			rx->ratio = (unsigned)((uint64_t)len * 256 / (len + s->kern->skb_overhead));
			if (!rx->ratio)
				rx->ratio = 1;
			clamp = win_from_space(s, s->k->rcvbuf_bytes);
			if (clamp < rx->ssthresh)
				rx->ssthresh = clamp;
		}
		rx->rcv_mss = len < s->kern->advmss ? len : s->kern->advmss;
		if (seg->psh && s->kern->psh_full_segment_pushed)
			rx->pending |= NT_ACK_PUSHED;
		return;
	}
	/* 32: the TCP header with the timestamp option (tcp_header_len). */
	if (with_hdr >= 536 + 20 || (with_hdr >= 88 + 20 && !seg->psh)) {
		rx->lss = len;
		if (len == lss) {
			rx->rcv_mss = len;
			return;
		}
	}
	if (rx->pending & NT_ACK_PUSHED)
		rx->pending |= NT_ACK_PUSHED2;
	rx->pending |= NT_ACK_PUSHED;
}

/* tcp_incr_quickack(): rcv_wnd / (2 rcv_mss) quick ACKs, at least 2, at most 16. */
static void incr_quickack(struct nt_psim *s)
{
	unsigned q = s->kern->init_rcv_wnd / (2 * s->rx.rcv_mss);

	if (q == 0)
		q = 2;
	if (q > s->kern->quick_grant)
		q = s->kern->quick_grant;
	if (q > s->rx.quick)
		s->rx.quick = q;
	if (q > s->rx.quick_hi)
		s->rx.quick_hi = q;
}

/*
 * tcp_grow_window(): while the free space (and the clamp) exceed
 * rcv_ssthresh, it grows by two segments, and the socket gets at least one
 * quick ACK (quick |= 1: an odd budget stays, an even one gains one).
 */
static void grow_window(struct nt_psim *s, const struct nt_pseg *seg)
{
	struct nt_prx *rx = &s->rx;
	uint32_t clamp = win_from_space(s, s->k->rcvbuf_bytes), f = free_space(s);
	int64_t room = (int64_t)(clamp < f ? clamp : f) - rx->ssthresh, incr;

	if (room <= 0)
		return;
	/* A segment whose truesize fits its length grows by 2 advmss, else 2 rcv_mss. */
	if (win_from_space(s, seg->len + s->kern->skb_overhead) <= seg->len)
		incr = 2 * (int64_t)s->kern->advmss;
	else
		incr = 2 * (int64_t)rx->rcv_mss;
	if (incr < 2 * (int64_t)seg->len)
		incr = 2 * (int64_t)seg->len;
	rx->ssthresh += (uint32_t)(incr < room ? incr : room);
	rx->quick |= 1;
	rx->quick_hi |= 1;
}

/*
 * Which branch of tcp_event_data_recv()'s ato update a gap of @m jiffies
 * takes: 0 at most ato_min/2, 1 below ato, 3 beyond the RTO, 2 none of them.
 */
static int gap_class(const struct nt_psim *s, int m)
{
	if (m <= (int)s->kern->ato_min / 2)
		return 0;
	if (m < (int)s->rx.ato)
		return 1;
	return m > (int)s->kern->rto ? 3 : 2;
}

/*
 * tcp_event_data_recv(): schedule an ACK, measure rcv_mss, adapt ato to the
 * gap since the last data (in jiffies), grow the window.
 */
static void data_recv(struct nt_psim *s, const struct nt_pseg *seg)
{
	struct nt_prx *rx = &s->rx;
	const struct nt_predict_kernel *kn = s->kern;

	rx->pending |= NT_ACK_SCHED;
	measure_rcv_mss(s, seg);
	if (!rx->ato) {
		/* The first data packet: initialise the delayed-ACK engine. */
		incr_quickack(s);
		rx->ato = kn->ato_min;
	} else {
		int lo, nom, hi, m;

		nt_pt_jiffies(s, rx->lrcv, s->now, &lo, &nom, &hi);
		/* Only a difference that changes the outcome is a choice. */
		m = gap_class(s, lo) == gap_class(s, hi) && gap_class(s, lo) != 1
			    ? nom
			    : nt_psim_pick(s, lo, nom, hi, NT_RULE_JIFFY_BOUNDARY);
		switch (gap_class(s, m)) {
		case 0: /* a short gap: ato drifts towards ato_min */
			rx->ato = (rx->ato >> 1) + kn->ato_min / 2;
			break;
		case 1: /* shorter than ato: ato follows the gap */
			rx->ato = (rx->ato >> 1) + (unsigned)m;
			if (rx->ato > kn->rto)
				rx->ato = kn->rto;
			break;
		case 3: /* a long gap: the sender restarts, ACK quickly again */
			incr_quickack(s);
			break;
		default:
			break;
		}
	}
	rx->lrcv = s->now;
	if (seg->len >= 128)
		grow_window(s, seg);
}

/*
 * The "right edge advances" half of the two-frames test: __tcp_select_window()
 * >= rcv_wnd. The model knows skb truesize only roughly: within a margin of
 * the edge (a window-scale unit and a quarter of what is queued) the answer
 * is a choice.
 */
static bool window_advances(struct nt_psim *s)
{
	const struct nt_prx *rx = &s->rx;
	uint32_t f = free_space(s), cur = f < rx->ssthresh ? f : rx->ssthresh;
	int64_t margin = 256 + rx->unread_truesize / 4;

	if ((int64_t)cur >= (int64_t)rx->wnd_base + margin)
		return true;
	if ((int64_t)cur + margin + s->kern->wscale_bytes <= (int64_t)rx->wnd_base)
		return false;
	return nt_psim_choose(s, 2, NT_RULE_WINDOW_EDGE) ==
	       (align_up(cur, s->kern->wscale_bytes) >= rx->wnd_base ? 0u : 1u);
}

static void arm_delack(struct nt_psim *s, unsigned ato)
{
	int64_t j = s->kern->jiffy_ns, plo, pnom, phi, up = s->kern->timer_round_up ? 1 : 0;
	struct nt_ptime fire;

	nt_pt_phase_or_any(s, s->now, &plo, &pnom, &phi);
	/* timeout = jiffies + ato; the wheel runs it on tick timeout + 1 (calc_index()). */
	fire = nt_pt_anchor(s, s->now, (ato + up) * j - phi,
			    (ato + up) * j - pnom + NT_PSIM_SOFTIRQ_NS / 2,
			    (ato + up + NT_PSIM_LATE_TICKS) * j - plo + NT_PSIM_SOFTIRQ_NS, true);
	s->rx.timer_arm = s->now;
	s->rx.timer_ato = ato;
	s->rx.timer_gen++;
	s->rx.pending |= NT_ACK_SCHED | NT_ACK_TIMER;
	nt_psim_post(s, NT_PEV_DELACK, fire, 0, 0, false, s->rx.timer_gen);
}

/* tcp_send_delayed_ack()'s bound on ato for a smoothed RTT of @srtt_ns. */
static unsigned rtt_bound(const struct nt_psim *s, int64_t srtt_ns, unsigned max_ato, unsigned ato)
{
	unsigned rtt = (unsigned)(srtt_ns / s->kern->jiffy_ns);

	if (rtt < s->kern->delack_min)
		rtt = s->kern->delack_min;
	if (rtt < max_ato)
		max_ato = rtt;
	return ato < max_ato ? ato : max_ato;
}

/* The delay tcp_send_delayed_ack() arms, in jiffies. */
static unsigned delack_ato(struct nt_psim *s)
{
	const struct nt_predict_kernel *kn = s->kern;
	unsigned ato = s->rx.ato;

	if (ato > kn->delack_min) {
		/* TCP_DELACK_MAX (HZ/5) when interactive or pushed, else HZ/2 */
		unsigned max_ato = nt_prx_in_pingpong(s) || (s->rx.pending & NT_ACK_PUSHED)
					   ? s->k->hz / 5
					   : s->k->hz / 2;
		/* An RTT estimate bounds the delay, but never below TCP_DELACK_MIN. */
		unsigned lo = rtt_bound(s, s->rx.srtt_lo_ns, max_ato, ato);
		unsigned hi = rtt_bound(s, s->rx.srtt_hi_ns + kn->jiffy_ns, max_ato, ato);

		ato = lo == hi ? lo
			       : (unsigned)nt_psim_pick(s, (int)lo, (int)(lo + hi) / 2, (int)hi,
							NT_RULE_JIFFY_BOUNDARY);
	}
	return ato < kn->delack_max ? ato : kn->delack_max;
}

/* What a pending timer armed @el jiffies ago makes of a new delay: 0 keep, 1 re-arm, 2 ACK now. */
static int timer_action(const struct nt_psim *s, int el, unsigned ato)
{
	if ((int)s->rx.timer_ato - el <= (int)(ato >> 2))
		return 2;
	return el + (int)ato < (int)s->rx.timer_ato ? 1 : 0;
}

/* tcp_send_delayed_ack(): arm the timer, or ACK now when a pending one is nearly due. */
static bool send_delayed_ack(struct nt_psim *s)
{
	unsigned ato = delack_ato(s);

	if (s->rx.pending & NT_ACK_TIMER) {
		int lo, nom, hi, el;

		nt_pt_jiffies(s, s->rx.timer_arm, s->now, &lo, &nom, &hi);
		el = timer_action(s, lo, ato) == timer_action(s, hi, ato)
			     ? nom
			     : nt_psim_pick(s, lo, nom, hi, NT_RULE_JIFFY_BOUNDARY);
		switch (timer_action(s, el, ato)) {
		case 2:
			nt_prx_send_ack(s, NT_RULE_DELACK_DUE);
			return true;
		case 0:
			return false; /* keep the earlier timeout */
		default:
			break;
		}
	}
	arm_delack(s, ato);
	return false;
}

static void note_header_ack(struct nt_psim *s, enum nt_predict_rule rule, unsigned delay)
{
	const struct nt_prx *rx = &s->rx;
	unsigned th = s->kern->pingpong_thresh;

	switch (rule) {
	case NT_RULE_TWO_FRAMES:
		NT_PSIM_NOTE(s, header_ack, rule, NT_SAY_HDR_TWO_FRAMES, rx->unacked, rx->rcv_mss);
		break;
	case NT_RULE_ROUTE_QUICKACK:
		NT_PSIM_NOTE(s, header_ack, rule, NT_SAY_HDR_ROUTE, rx->pingpong);
		break;
	case NT_RULE_QUICKACK_BUDGET:
		NT_PSIM_NOTE(s, header_ack, rule, NT_SAY_HDR_BUDGET, rx->quick, rx->pingpong, th);
		break;
	case NT_RULE_DELACK_DUE:
		NT_PSIM_NOTE(s, header_ack, rule, NT_SAY_HDR_DUE);
		break;
	default:
		NT_PSIM_NOTE(s, header_ack, rule, NT_SAY_HDR_DELAYED, rx->pingpong, th, rx->quick,
			     delay, nt_prx_jiffies_ms(s, delay), s->k->hz,
			     rx->unacked > rx->rcv_mss ? 2 : 1, rx->rcv_mss);
		break;
	}
}

/*
 * __tcp_ack_snd_check(): ACK now for more than one full frame (with the
 * window's right edge advancing) or in quick-ACK mode (tcp_in_quickack_mode():
 * the route's quickack metric, or budget left and not in ping-pong); else
 * tcp_send_delayed_ack().
 */
static void ack_snd_check(struct nt_psim *s, bool is_h)
{
	struct nt_prx *rx = &s->rx;
	enum nt_predict_rule rule = NT_RULE_NONE;
	unsigned delay = 0;

	if (rx->unacked > rx->rcv_mss && window_advances(s))
		rule = NT_RULE_TWO_FRAMES;
	else if (s->k->route_quickack)
		rule = NT_RULE_ROUTE_QUICKACK;
	else if (!nt_prx_in_pingpong(s) && quick_left(s))
		rule = NT_RULE_QUICKACK_BUDGET;
	if (rule != NT_RULE_NONE) {
		if (is_h) {
			note_header_ack(s, rule, 0);
			if (s->out)
				s->out->header_ack_now = true;
		}
		nt_prx_send_ack(s, rule);
		return;
	}
	rule = nt_prx_in_pingpong(s) ? NT_RULE_DELAYED_PINGPONG : NT_RULE_DELAYED_NO_BUDGET;
	if (is_h) {
		delay = delack_ato(s);
		note_header_ack(s, rule, delay);
	}
	if (send_delayed_ack(s) && is_h) {
		note_header_ack(s, NT_RULE_DELACK_DUE, 0);
		if (s->out)
			s->out->header_ack_now = true;
	}
}

void nt_prx_process_segment(struct nt_psim *s, const struct nt_pseg *seg)
{
	bool is_h = seg->start < s->header && seg->start + seg->len >= s->header;

	s->rx.unacked += seg->len;
	s->rx.unread += seg->len;
	s->rx.unread_truesize += seg->len + s->kern->skb_overhead;
	if (is_h)
		s->h_arrival = s->now;
	if (seg->start + seg->len >= s->header + s->body && !s->req_whole_seen) {
		s->req_whole_seen = true;
		s->req_whole = s->now;
	}
	data_recv(s, seg);
	ack_snd_check(s, is_h);
}

void nt_prx_arrive(struct nt_psim *s, const struct nt_pseg *seg)
{
	/* The application holds the socket: the segment waits in the backlog. */
	if (s->rx.owned) {
		if (s->rx.n_backlog < NT_PSIM_BACKLOG_MAX)
			s->rx.backlog[s->rx.n_backlog++] = *seg;
		else
			s->overflow = true;
		return;
	}
	nt_prx_process_segment(s, seg);
	if (s->app == NT_PAPP_READING && !s->read_pending) {
		struct nt_ptime at = s->now;

		/* Data that arrived in softirq wakes the sleeping exchange, a while later. */
		if (s->softirq)
			at = nt_pt_anchor(s, s->now, NT_PSIM_WAKE_MIN_NS,
					  NT_PSIM_WAKE_NOMINAL_NS / 2, s->k->wake_latency_ns,
					  false);
		s->read_pending = true;
		nt_psim_post(s, NT_PEV_READ, at, 0, 0, false, 0);
	}
}

void nt_prx_delack_fire(struct nt_psim *s, uint32_t gen)
{
	struct nt_prx *rx = &s->rx;

	if (gen != rx->timer_gen || !(rx->pending & NT_ACK_TIMER))
		return;
	rx->pending &= ~NT_ACK_TIMER;
	if (!(rx->pending & NT_ACK_SCHED))
		return;
	/* tcp_delack_timer_handler(): the delayed ACK missed its reply. */
	s->timer_left_pingpong = nt_prx_in_pingpong(s);
	if (!s->timer_left_pingpong) {
		unsigned twice = rx->ato << 1;

		rx->ato = twice < s->kern->rto ? twice : s->kern->rto;
	} else {
		rx->pingpong = 0;
		rx->ato = s->kern->ato_min;
	}
	rx->delayed_acks++;
	nt_prx_send_ack(s, NT_RULE_DELACK_TIMER);
}
