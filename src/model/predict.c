// SPDX-License-Identifier: MIT
/*
 * predict.c - the model's driver (see nt/model/predict.h): validate the
 * knobs, then per round replay every hypothesis along every path of
 * choices (predict_sim.c) and add up what they predict.
 *
 * A path is a list of choice digits, 0 being the nominal outcome at each
 * uncertain decision. The all-nominal path of the first hypothesis is the
 * primary one: its decisions are the ones put into words. Other paths are
 * explored depth-first; each run reports the choices it met, and every
 * alternative at a choice the run met past its forced prefix becomes a new
 * path. The states the paths end in, merged where they agree, are the
 * hypotheses of the next round.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nt/model/predict.h"
#include "predict_int.h"

#define PATHS_MAX 128

#define ALL_VERDICTS                                                                           \
	(NT_PREDICT_VERDICT_BIT(NT_VERDICT_COALESCED) |                                        \
	 NT_PREDICT_VERDICT_BIT(NT_VERDICT_UNHELD) | NT_PREDICT_VERDICT_BIT(NT_VERDICT_HELD) | \
	 NT_PREDICT_VERDICT_BIT(NT_VERDICT_STALLED))

struct path {
	uint8_t d[NT_PSIM_CHOICE_MAX];
	unsigned n;
};

/* What the paths of a round add up to. */
struct round_acc {
	unsigned verdicts;
	enum nt_verdict primary;
	enum nt_predict_rule primary_rules[NT_PSIM_CHOICE_MAX];
	unsigned primary_seen;
	unsigned best_k;
	enum nt_predict_rule other_origin;
	bool have_range;
	int64_t gap_lo, gap_hi, delay_lo, delay_hi;
	struct nt_predict_rx at_header;
	struct nt_predict_rx after;
	bool have_rx;
	struct nt_predict_state next[NT_PREDICT_HYP_MAX];
	unsigned n_next;
	bool overflow;
	bool measured_found;
	unsigned measured_hyp;
	struct path measured_path;
};

static int check_knobs(const struct nt_predict_knobs *k, struct nt_err *err)
{
	if (!k->header_bytes || !k->body_bytes || !k->reply_bytes)
		return nt_err_set(err, -EINVAL,
				  "predict: header, body and reply need 1 byte or more");
	if (!k->rounds)
		return nt_err_set(err, -EINVAL, "predict: rounds must be 1 or more");
	if ((unsigned)k->pattern >= NT_PREDICT_PATTERN_COUNT)
		return nt_err_set(err, -EINVAL, "predict: unknown write pattern %d",
				  (int)k->pattern);
	if (k->mtu < 256 || k->mtu > 65535)
		return nt_err_set(err, -EINVAL, "predict: mtu \"%u\" is out of range (256..65535)",
				  k->mtu);
	if (k->hz < 24 || k->hz > 10000)
		return nt_err_set(err, -EINVAL, "predict: hz \"%u\" is out of range (24..10000)",
				  k->hz);
	if (k->pause_ns < 0 || k->write_gap_ns < 0 || k->handler_ns < 0 || k->rtt_ns < 0 ||
	    k->threshold_ns < 0 || k->wake_slack_ns < 0 || k->wake_latency_ns < 0)
		return nt_err_set(err, -EINVAL, "predict: times cannot be negative");
	if (k->pingpong_thresh > 255)
		return nt_err_set(err, -EINVAL, "predict: tcp_pingpong_thresh \"%u\" is over 255",
				  k->pingpong_thresh);
	if (k->rcvbuf_bytes < 4096)
		return nt_err_set(err, -EINVAL, "predict: rcvbuf \"%u\" is under 4096",
				  k->rcvbuf_bytes);
	if (k->kernel.major < 2)
		return nt_err_set(err, -EINVAL, "predict: kernel %u.%u is not a Linux release",
				  k->kernel.major, k->kernel.minor);
	return 0;
}

int nt_predict_init(struct nt_predict *p, const struct nt_predict_knobs *k, struct nt_err *err)
{
	int ret = check_knobs(k, err);

	if (ret)
		return ret;
	memset(p, 0, sizeof(*p));
	p->measured = -1;
	p->measured_gap_ns = -1;
	p->knobs = *k;
	nt_predict_kernel_init(k, &p->kern);
	/*
	 * Before any data: no ato yet, no budget, no ping-pong, rcv_mss from
	 * tcp_initialize_rcv_mss() (at most TCP_MSS_DEFAULT, 536), one RTT sample
	 * from the handshake.
	 */
	p->hyp[0] = (struct nt_predict_state){
		.rcv_mss = p->kern.advmss < 536 ? p->kern.advmss : 536,
		/* tcp_init_buffer_space(): rcv_ssthresh starts at the initial window. */
		.rcv_ssthresh = p->kern.init_rcv_wnd,
		.wnd_base = p->kern.init_rcv_wnd,
		/* TCP_DEFAULT_SCALING_RATIO: half (before 6.6: tcp_adv_win_scale 1, also half) */
		.scaling_ratio = 128,
		.lrcv_ph_lo_ns = -1,
		.lrcv_ph_hi_ns = -1,
		.phase_lo_ns = -1,
		.phase_hi_ns = -1,
		.srtt_lo_ns = k->rtt_ns,
		.srtt_hi_ns = k->rtt_ns + 1000000,
	};
	p->n_hyp = 1;
	return 0;
}

/* Whether two hypotheses agree on everything but the budget and the timing. */
static bool same_state(const struct nt_predict_state *a, const struct nt_predict_state *b)
{
	return a->pingpong == b->pingpong && a->ato == b->ato && a->rcv_mss == b->rcv_mss &&
	       a->lss == b->lss && a->rcv_ssthresh == b->rcv_ssthresh &&
	       a->wnd_base == b->wnd_base && a->scaling_ratio == b->scaling_ratio;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* The hull of two phase windows, unknown (-1) when either is or it spans a jiffy. */
static void hull_phase(int64_t *lo, int64_t *hi, int64_t olo, int64_t ohi, int64_t jiffy)
{
	if (*lo < 0 || olo < 0) {
		*lo = *hi = -1;
		return;
	}
	*lo = min64(*lo, olo);
	*hi = max64(*hi, ohi);
	if (*hi >= jiffy)
		*lo = *hi = -1;
}

/* Two hypotheses that agree on the state keep the hull of their timing. */
static void merge_state(struct round_acc *acc, const struct nt_predict_state *st, int64_t jiffy)
{
	for (unsigned i = 0; i < acc->n_next; i++) {
		struct nt_predict_state *o = &acc->next[i];

		if (!same_state(o, st))
			continue;
		/* Budgets that differ become a range (quick_left() decides across it). */
		o->quick = o->quick < st->quick ? o->quick : st->quick;
		o->quick_hi = o->quick_hi > st->quick_hi ? o->quick_hi : st->quick_hi;
		o->lrcv_lo_ns = min64(o->lrcv_lo_ns, st->lrcv_lo_ns);
		o->lrcv_hi_ns = max64(o->lrcv_hi_ns, st->lrcv_hi_ns);
		o->srtt_lo_ns = min64(o->srtt_lo_ns, st->srtt_lo_ns);
		o->srtt_hi_ns = max64(o->srtt_hi_ns, st->srtt_hi_ns);
		hull_phase(&o->phase_lo_ns, &o->phase_hi_ns, st->phase_lo_ns, st->phase_hi_ns,
			   jiffy);
		hull_phase(&o->lrcv_ph_lo_ns, &o->lrcv_ph_hi_ns, st->lrcv_ph_lo_ns,
			   st->lrcv_ph_hi_ns, jiffy);
		return;
	}
	if (acc->n_next < NT_PREDICT_HYP_MAX)
		acc->next[acc->n_next++] = *st;
	else
		acc->overflow = true;
}

static bool same_rx(const struct nt_predict_rx *a, const struct nt_predict_rx *b)
{
	return a->pingpong == b->pingpong && a->pingpong_cnt == b->pingpong_cnt &&
	       a->quick == b->quick && a->ato_jiffies == b->ato_jiffies && a->rcv_mss == b->rcv_mss;
}

static unsigned first_alternative(const struct path *pa)
{
	for (unsigned j = 0; j < pa->n; j++)
		if (pa->d[j])
			return j;
	return NT_PSIM_CHOICE_MAX;
}

/* Add one finished path to the round's account. */
static void collect(struct round_acc *acc, struct nt_psim *s, const struct nt_predict *p,
		    unsigned hyp, const struct path *pa)
{
	const struct nt_predict_state *from = &p->hyp[hyp];
	struct nt_predict_state next;
	struct nt_predict_rx after;
	const struct nt_pwindow *w = &s->window;
	unsigned k = first_alternative(pa);

	acc->verdicts |= NT_PREDICT_VERDICT_BIT(s->verdict);
	if (!acc->measured_found && p->measured >= 0 &&
	    s->verdict == (enum nt_verdict)p->measured) {
		acc->measured_found = true;
		acc->measured_hyp = hyp;
		acc->measured_path = *pa;
	}
	if (s->verdict != acc->primary) {
		if (hyp == 0 && k < acc->best_k)
			acc->best_k = k;
		else if (hyp > 0 && acc->other_origin == NT_RULE_NONE)
			acc->other_origin = from->origin != NT_RULE_NONE ? from->origin
									 : NT_RULE_MODEL_LIMIT;
	}
	if (w->seen) {
		acc->gap_lo = acc->have_range ? min64(acc->gap_lo, w->lo) : w->lo;
		acc->gap_hi = acc->have_range ? max64(acc->gap_hi, w->hi) : w->hi;
		acc->delay_lo = acc->have_range ? min64(acc->delay_lo, w->delay_lo) : w->delay_lo;
		acc->delay_hi = acc->have_range ? max64(acc->delay_hi, w->delay_hi) : w->delay_hi;
		acc->have_range = true;
	}
	nt_prx_snapshot(s, &after);
	if (!acc->have_rx) {
		acc->at_header = s->at_header;
		acc->after = after;
		acc->have_rx = true;
	} else {
		acc->at_header.certain &= same_rx(&acc->at_header, &s->at_header);
		acc->after.certain &= same_rx(&acc->after, &after);
	}
	nt_psim_next_state(s, &next);
	next.origin = from->origin;
	if (hyp == 0 && k < NT_PSIM_CHOICE_MAX)
		next.origin = acc->primary_rules[k];
	merge_state(acc, &next, p->kern.jiffy_ns);
	acc->overflow |= s->overflow;
}

/* Every path of one hypothesis; the primary one fills @out's words. */
static void run_hypothesis(struct nt_predict *p, unsigned hyp, struct nt_psim *s,
			   struct round_acc *acc, struct nt_predict_round *out)
{
	struct path stack[PATHS_MAX];
	unsigned n = 1, runs = 0;

	stack[0].n = 0;
	while (n) {
		struct path pa = stack[--n];

		if (++runs > PATHS_MAX) {
			acc->overflow = true;
			break;
		}
		nt_psim_setup(s, p, &p->hyp[hyp], p->round);
		memcpy(s->forced, pa.d, pa.n);
		s->n_forced = pa.n;
		s->out = hyp == 0 && pa.n == 0 ? out : NULL;
		nt_psim_run(s);
		nt_psim_finish(s);
		if (s->out) {
			acc->primary = s->verdict;
			acc->primary_seen = s->n_seen;
			memcpy(acc->primary_rules, s->branch_rule, sizeof(acc->primary_rules));
			out->header_segments = s->header_segs;
			out->body_segments = s->body_segs;
			out->client_data_segments = s->data_segs;
			out->delayed_acks = s->rx.delayed_acks;
		}
		collect(acc, s, p, hyp, &pa);
		for (unsigned j = pa.n; j < s->n_seen; j++) {
			for (unsigned d = 1; d < s->arity[j] && n < PATHS_MAX; d++) {
				struct path *c = &stack[n++];

				memcpy(c->d, pa.d, pa.n);
				memset(c->d + pa.n, 0, j - pa.n);
				c->d[j] = (uint8_t)d;
				c->n = j + 1;
			}
		}
	}
}

static void explain_uncertainty(struct nt_predict_round *out, const struct round_acc *acc,
				bool limit)
{
	enum nt_predict_rule rule;
	if (__builtin_popcount(out->verdicts) <= 1)
		return;
	if (limit)
		rule = NT_RULE_MODEL_LIMIT;
	else if (acc->best_k < NT_PSIM_CHOICE_MAX)
		rule = acc->primary_rules[acc->best_k];
	else if (acc->other_origin != NT_RULE_NONE)
		rule = acc->other_origin;
	else
		rule = NT_RULE_MODEL_LIMIT;
	NT_PSIM_WHY(&out->uncertain, rule, NT_SAY_ONE_OF, out->verdicts);
}

/*
 * The round's words from the first path that gives the verdict the capture
 * showed, when that is not the nominal one: the sentences then describe the
 * decisions the kernel took (a timer that did not fire is not said to have
 * fired). The verdict's own sentence and the sets stay the nominal path's.
 */
static void words_of_measured(struct nt_predict *p, const struct round_acc *acc, struct nt_psim *s,
			      struct nt_predict_round *out)
{
	struct nt_predict_round words, *w = &words;

	memset(w, 0, sizeof(*w));
	nt_psim_setup(s, p, &p->hyp[acc->measured_hyp], p->round);
	memcpy(s->forced, acc->measured_path.d, acc->measured_path.n);
	s->n_forced = acc->measured_path.n;
	s->out = w;
	nt_psim_run(s);
	nt_psim_finish(s);
	out->header = w->header;
	out->header_ack = w->header_ack;
	out->ack = w->ack;
	out->body = w->body;
	out->release = w->release;
	out->part_ack = w->part_ack;
	out->body_ack = w->body_ack;
	out->later_ack = w->later_ack;
	out->client_ack = w->client_ack;
	out->reply = w->reply;
	out->header_ack_now = w->header_ack_now;
	out->body_held = w->body_held;
}

/*
 * No path of the model gives the verdict the capture showed (the kernel did
 * otherwise, or the model accepted it only at its limit): the nominal path's
 * sentences would name decisions the kernel did not take.
 */
static void words_unexplained(struct nt_predict_round *out)
{
	struct nt_predict_why *w[] = { &out->header,   &out->header_ack, &out->ack,
				       &out->body,     &out->release,	 &out->part_ack,
				       &out->body_ack, &out->later_ack,	 &out->client_ack,
				       &out->reply };

	for (unsigned i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (w[i]->rule != NT_RULE_NONE)
			NT_PSIM_WHY(w[i], NT_RULE_MODEL_LIMIT, NT_SAY_UNEXPLAINED);
}

void nt_predict_measured(struct nt_predict *p, enum nt_verdict v)
{
	p->measured = v == NT_VERDICT_INCOMPLETE ? -1 : (int)v;
}

void nt_predict_measured_ack(struct nt_predict *p, int64_t gap_ns, bool a_pure)
{
	p->measured_gap_ns = gap_ns;
	p->measured_a_pure = a_pure;
}

int nt_predict_round(struct nt_predict *p, struct nt_predict_round *out)
{
	struct round_acc acc;
	struct nt_psim s;
	bool limit, late_timer;

	if (p->round >= p->knobs.rounds)
		return 0;
	p->round++;
	memset(out, 0, sizeof(*out));
	out->write_body_ns = out->reply_ns = -1;
	memset(&acc, 0, sizeof(acc));
	acc.best_k = NT_PSIM_CHOICE_MAX;
	out->index = p->round;
	nt_predict_sched_shift(p);
	for (unsigned i = 0; i < p->n_hyp; i++)
		run_hypothesis(p, i, &s, &acc, out);
	limit = p->saturated || acc.overflow;
	out->verdict = acc.primary;
	out->verdicts = limit ? ALL_VERDICTS : acc.verdicts;
	explain_uncertainty(out, &acc, limit);
	if (acc.have_range) {
		out->gap_min_ns = acc.gap_lo;
		out->gap_max_ns = acc.gap_hi;
		out->ack_delay_min_ns = acc.delay_lo;
		out->ack_delay_max_ns = acc.delay_hi;
	}
	out->at_header = acc.at_header;
	out->after = acc.after;
	/* No path gives the stall, but the timer did fire, late: its words hold (predict_sched.c). */
	late_timer = !acc.measured_found &&
		     nt_psched_late_timer(out, p->measured, p->measured_gap_ns, p->measured_a_pure);
	if (acc.measured_found && acc.primary != (enum nt_verdict)p->measured)
		words_of_measured(p, &acc, &s, out);
	else if (p->measured >= 0 && !acc.measured_found && !late_timer)
		words_unexplained(out);
	p->measured = -1;
	out->at_header.certain &= p->n_hyp == 1 || acc.at_header.certain;
	if (acc.overflow)
		p->saturated = true;
	memcpy(p->hyp, acc.next, sizeof(acc.next[0]) * acc.n_next);
	p->n_hyp = acc.n_next ? acc.n_next : 1;
	out->hypotheses = p->n_hyp;
	out->disturbed = p->sched_parts;
	nt_predict_describe_disturbed(out, &p->sched, p->sched_parts, out->disturbed_text,
				      sizeof(out->disturbed_text));
	if (late_timer)
		nt_psched_take_late_timer(out, p->measured_gap_ns);
	p->measured_gap_ns = -1;
	p->sched_parts = 0;
	/* This round's: the next one is observed afresh. */
	p->sched.gap_late_ns = p->sched.h_late_ns = p->sched.a_late_ns = -1;
	return 1;
}

bool nt_predict_accepts(const struct nt_predict_round *r, enum nt_verdict v)
{
	return (unsigned)v < NT_VERDICT_COUNT && (r->verdicts & NT_PREDICT_VERDICT_BIT(v));
}
