// SPDX-License-Identifier: MIT
/*
 * predict_sim.c - one round of the exchange along one path of choices: set
 * up from a hypothesis, run the events, read the verdict off what the
 * capture would show, and hand the target's state on to the next round.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "nt/unknown.h"
#include "predict_int.h"

/* Request segments followed one by one; beyond, a round is shortened (see setup). */
#define HEADER_SEGS_MAX 8
#define BODY_SEGS_MAX	24
#define STEPS_MAX	4096

void nt_psim_why(struct nt_predict_why *w, enum nt_predict_rule rule, enum nt_predict_say say,
		 const int64_t n[NT_PREDICT_SAY_ARGS])
{
	w->rule = rule;
	w->say = say;
	memcpy(w->n, n, sizeof(w->n));
}

/*
 * A part longer than the simulation follows keeps its first segments and
 * its tail: what Nagle and the two-frames test see of it.
 */
static uint32_t shorten(uint32_t bytes, unsigned mss, unsigned max_segs, bool *cut)
{
	uint32_t segs = (bytes + mss - 1) / mss;

	if (segs <= max_segs)
		return bytes;
	*cut = true;
	return (max_segs - 1) * mss + (bytes - (segs - 1) * mss);
}

void nt_psim_setup(struct nt_psim *s, const struct nt_predict *p, const struct nt_predict_state *h,
		   unsigned round)
{
	const struct nt_predict_knobs *k = &p->knobs;
	bool cut = false;

	/* Everything but the large arrays, which are written before they are read. */
	memset(&s->rx, 0, offsetof(struct nt_prx, backlog));
	memset(&s->tx, 0, sizeof(s->tx));
	s->k = k;
	s->kern = &p->kern;
	s->round = round;
	s->base = 1 + (uint64_t)(round - 1) * ((uint64_t)k->header_bytes + k->body_bytes);
	s->header = shorten(k->header_bytes, p->kern.mss, HEADER_SEGS_MAX, &cut);
	s->body = shorten(k->body_bytes, p->kern.mss, BODY_SEGS_MAX, &cut);
	s->n_seen = 0;
	s->overflow = false;
	s->shortened = cut;
	s->fuzzy = 0;
	s->capture = 0;
	s->app = NT_PAPP_READING;
	s->app_got = 0;
	s->read_pending = false;
	s->sampled = false;
	s->h = s->a = s->b = (struct nt_pmark){ 0 };
	s->a_sent_seen = false;
	s->write_body_idx = -1;
	s->done = false;
	/*
	 * Set by client_receive() only when the whole reply arrives; a round
	 * cut short (s->overflow) never gets there, and nt_psim_next_state()
	 * must not read a stale or uninitialised anchor index (issue 25).
	 */
	s->reply_at_client = (struct nt_ptime){ 0 };
	s->header_segs = s->body_segs = s->data_segs = 0;
	s->verdict = NT_VERDICT_INCOMPLETE;
	nt_psim_clock_init(s, h->phase_lo_ns >= 0, h->phase_lo_ns, h->phase_hi_ns);
	/* The last data received, before the round's start, where in its jiffy it came. */
	s->rx.lrcv = nt_pt_anchor(s, s->now, -h->lrcv_hi_ns, -(h->lrcv_lo_ns + h->lrcv_hi_ns) / 2,
				  -h->lrcv_lo_ns, false);
	if (s->rx.lrcv.a > 0) {
		s->anc[s->rx.lrcv.a].ph_known = h->lrcv_ph_lo_ns >= 0;
		s->anc[s->rx.lrcv.a].ph_lo = h->lrcv_ph_lo_ns;
		s->anc[s->rx.lrcv.a].ph_hi = h->lrcv_ph_hi_ns;
	}
	s->rx.pingpong = h->pingpong;
	s->rx.quick = h->quick;
	s->rx.quick_hi = h->quick_hi;
	s->rx.ato = h->ato;
	s->rx.rcv_mss = h->rcv_mss;
	s->rx.lss = h->lss;
	s->rx.ssthresh = h->rcv_ssthresh;
	s->rx.wnd_base = h->wnd_base;
	s->rx.ratio = h->scaling_ratio;
	s->rx.srtt_lo_ns = h->srtt_lo_ns;
	s->rx.srtt_hi_ns = h->srtt_hi_ns;
	s->at_header = (struct nt_predict_rx){ 0 };
	s->sched = p->sched_parts ? &p->sched : NULL;
	s->sched_parts = p->sched_parts;
	s->gap_late_ns = p->sched.gap_late_ns > 0 ? p->sched.gap_late_ns : 0;
	s->req_whole_seen = false;
	s->late_read_done = false;
	s->body_ack_seen = false;
	s->part_ack_seen = false;
	s->a_ack = 0;
	s->timer_left_pingpong = false;
	s->a_posted = false;
}

void nt_psim_run(struct nt_psim *s)
{
	struct nt_pevent e;
	unsigned steps = 0;

	nt_psim_post(s, NT_PEV_CLIENT, s->now, 0, 0, false, 0);
	while (!s->overflow && nt_psim_next(s, &e)) {
		struct nt_pseg seg = { .start = e.x, .len = e.y, .psh = e.psh };

		if (++steps > STEPS_MAX) {
			s->overflow = true;
			break;
		}
		s->softirq = e.kind == NT_PEV_C2T || e.kind == NT_PEV_T2C ||
			     e.kind == NT_PEV_DELACK || e.kind == NT_PEV_PROBE;
		switch ((enum nt_pev_kind)e.kind) {
		case NT_PEV_CLIENT:
			nt_ptx_run(s);
			break;
		case NT_PEV_C2T:
			nt_psim_ladder_arrive(s, e.gen);
			nt_prx_arrive(s, &seg);
			break;
		case NT_PEV_T2C:
			nt_psim_ladder_arrive(s, e.gen);
			nt_ptx_client_segment(s, e.x, e.y);
			break;
		case NT_PEV_READ:
			nt_prx_read(s);
			break;
		case NT_PEV_DELACK:
			nt_prx_delack_fire(s, e.gen);
			break;
		case NT_PEV_REPLY:
			nt_prx_reply(s);
			break;
		case NT_PEV_PROBE:
			nt_ptx_probe(s, e.gen);
			break;
		}
	}
}

/* H -> A at the capture and the target's delay in it, from the marks. */
static void window(const struct nt_psim *s, struct nt_pwindow *w)
{
	int64_t nom;

	*w = (struct nt_pwindow){ .seen = s->a.seen && s->h.seen };
	if (w->seen)
		nt_pt_diff(s, s->a.t, s->h.t, &w->lo, &w->nom, &w->hi);
	/* An ACK of the header left, so the header had arrived: both times are this path's. */
	if (!s->a_sent_seen)
		return;
	nt_pt_diff(s, s->a_sent, s->h_arrival, &w->delay_lo, &nom, &w->delay_hi);
	if (w->delay_lo < 0)
		w->delay_lo = 0; /* A leaves after H arrives: transit jitter only */
}

/*
 * H -> A (pure) -> B, judged by nt_verdict_rule()'s two halves: the order
 * of the marks, then the gap, which the model knows as a range. The
 * threshold is on the target's delay, so the path's RTT, which a prompt ACK
 * takes as well, is added to it (run.c, verdict_threshold_ns()), and so is
 * the part of the gap the delay line's lateness was measured to be (run.c,
 * verdict_path_late_ns()).
 */
static enum nt_verdict judge(struct nt_psim *s, enum nt_predict_rule *why)
{
	const struct nt_pwindow *w = &s->window;
	int64_t thr = s->k->threshold_ns + s->k->rtt_ns + nt_psim_gap_late(s);
	/*
	 * Events are ordered by their index on the timeline: the rule's only
	 * use of time beyond H -> A is whether write(body) returned after A.
	 */
	struct nt_verdict_marks m = {
		.h = s->h.seen ? s->h.idx : -1,
		.a = s->a.seen ? s->a.idx : -1,
		.b = s->b.seen ? s->b.idx : -1,
		.a_is_pure_ack = s->a.pure,
		.a_ns = 0,
		.write_body_ns =
			s->write_body_idx >= 0 && s->write_body_idx > s->a.idx ? 1 : NT_UNKNOWN,
	};
	enum nt_verdict v;
	bool slow;

	if (nt_verdict_by_order(&m, &v)) {
		*why = v == NT_VERDICT_COALESCED ? NT_RULE_VERDICT_COALESCED
		       : v == NT_VERDICT_UNHELD	 ? NT_RULE_VERDICT_BODY_FIRST
						 : NT_RULE_MODEL_LIMIT;
		return v;
	}
	if (w->lo >= thr)
		slow = true;
	else if (w->hi < thr)
		slow = false;
	else
		slow = nt_psim_choose(s, 2, NT_RULE_THRESHOLD_EDGE) == (w->nom >= thr ? 0u : 1u);
	v = nt_verdict_by_gap(&m, slow);
	*why = v == NT_VERDICT_HELD	? NT_RULE_VERDICT_PROMPT_ACK
	       : v == NT_VERDICT_UNHELD ? NT_RULE_VERDICT_APP_GAP
					: NT_RULE_VERDICT_STALL;
	return v;
}

static void note_verdict(struct nt_psim *s, enum nt_predict_rule why)
{
	const struct nt_pwindow *w = &s->window;

	if (!s->out)
		return;
	switch (why) {
	case NT_RULE_VERDICT_COALESCED:
		NT_PSIM_WHY(&s->out->verdict_why, why, NT_SAY_COALESCED);
		break;
	case NT_RULE_VERDICT_BODY_FIRST:
		NT_PSIM_WHY(&s->out->verdict_why, why, NT_SAY_BODY_FIRST);
		break;
	default:
		NT_PSIM_WHY(&s->out->verdict_why, why, NT_SAY_WINDOW, s->verdict, w->lo, w->hi,
			    w->delay_lo, w->delay_hi, s->k->rtt_ns, s->k->threshold_ns,
			    nt_psim_gap_late(s));
		break;
	}
	if (!s->b.seen || !s->out->body_held)
		NT_PSIM_WHY(&s->out->release, NT_RULE_NOT_HELD, NT_SAY_NOT_HELD);
}

/*
 * The client's pure ACK of the reply. Round 1's reply is the client's first
 * data: tcp_event_data_recv() grants it the quick-ACK budget and it is not in
 * ping-pong (it has received nothing to answer), so tcp_in_quickack_mode()
 * ACKs at once. Later the model does not follow the client's receive side.
 */
static void note_client_ack(struct nt_psim *s)
{
	if (s->round == 1)
		NT_PSIM_WHY(&s->out->client_ack, NT_RULE_CLIENT_FIRST_DATA, NT_SAY_CLIENT_FIRST);
	else
		NT_PSIM_WHY(&s->out->client_ack, NT_RULE_CLIENT_ACK, NT_SAY_SUMMARY);
}

void nt_psim_finish(struct nt_psim *s)
{
	enum nt_predict_rule why = NT_RULE_NONE;

	window(s, &s->window);
	s->verdict = judge(s, &why);
	note_verdict(s, why);
	if (s->out)
		note_client_ack(s);
}

/*
 * The target's state for the next round: the receive-side fields, the time
 * from its last data to the next round's start, and where in a jiffy that
 * start falls.
 */
void nt_psim_next_state(struct nt_psim *s, struct nt_predict_state *out)
{
	const struct nt_predict_knobs *k = s->k;
	/* A round that never saw the whole reply (overflow) ends where its events stopped. */
	struct nt_ptime start = s->done ? s->reply_at_client : s->now;
	int64_t lo, nom, hi, p = k->pause_ns;
	int64_t sample_lo, sample_hi;

	/* With an RTT the reply comes off the delay line: the client wakes to read it. */
	if (k->rtt_ns > 0)
		start = nt_pt_anchor(s, start, NT_PSIM_WAKE_MIN_NS, NT_PSIM_WAKE_NOMINAL_NS / 2,
				     k->wake_latency_ns, false);
	if (p > 0)
		start = nt_pt_anchor(s, start, p, p + nt_psim_wake_nominal(s), p + k->wake_slack_ns,
				     false);
	else
		start = nt_pt_add(start, 0, NT_PSIM_PROC_NS / 10, NT_PSIM_PROC_NS);
	nt_pt_diff(s, start, s->rx.lrcv, &lo, &nom, &hi);
	/*
	 * A ping-pong count at or over the threshold behaves as the threshold
	 * itself (every rule tests >= threshold, resets to 0, or adds one): keep
	 * the smaller, so hypotheses that differ only there merge.
	 */
	*out = (struct nt_predict_state){
		.pingpong = (uint16_t)(s->rx.pingpong < s->kern->pingpong_thresh
					       ? s->rx.pingpong
					       : s->kern->pingpong_thresh),
		.quick = (uint16_t)(s->rx.quick > s->fuzzy ? s->rx.quick - s->fuzzy : 0),
		.quick_hi = (uint16_t)(s->rx.quick_hi + s->fuzzy),
		.ato = (uint16_t)s->rx.ato,
		.rcv_mss = s->rx.rcv_mss,
		.lss = s->rx.lss,
		.rcv_ssthresh = s->rx.ssthresh,
		.wnd_base = s->rx.wnd_base,
		.scaling_ratio = (uint16_t)s->rx.ratio,
		.lrcv_lo_ns = lo < 0 ? 0 : lo,
		.lrcv_hi_ns = hi < 0 ? 0 : hi,
		.lrcv_ph_lo_ns = -1,
		.lrcv_ph_hi_ns = -1,
		.phase_lo_ns = -1,
		.phase_hi_ns = -1,
	};
	if (nt_pt_phase(s, start, &lo, &hi)) {
		out->phase_lo_ns = lo;
		out->phase_hi_ns = hi;
	}
	if (nt_pt_phase(s, s->rx.lrcv, &lo, &hi)) {
		out->lrcv_ph_lo_ns = lo;
		out->lrcv_ph_hi_ns = hi;
	}
	/*
	 * The target's RTT sample for the reply: the client ACKs it on its next
	 * header after the pause, or by its own delayed-ACK timer (40-48 ms)
	 * when the pause is longer; round 1's ACK is immediate (quick mode).
	 */
	sample_lo = sample_hi = k->rtt_ns;
	if (s->round > 1) {
		int64_t cap_lo = 40000000, cap_hi = 48000000;

		sample_lo += p < cap_lo ? p : cap_lo;
		sample_hi += p + k->wake_slack_ns < cap_hi ? p + k->wake_slack_ns : cap_hi;
	}
	sample_hi += 1000000;
	out->srtt_lo_ns = s->rx.srtt_lo_ns + (sample_lo - s->rx.srtt_lo_ns) / 8;
	out->srtt_hi_ns = s->rx.srtt_hi_ns + (sample_hi - s->rx.srtt_hi_ns) / 8;
}
