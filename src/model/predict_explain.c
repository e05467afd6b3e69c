// SPDX-License-Identifier: MIT
/*
 * predict_explain.c - why a configuration's fix works or fails, as a
 * function of the knobs, and the comparison of a predicted round's target
 * state with the kernel's own evidence (see nt/model/predict.h).
 */

#include "nt/model/predict.h"
#include "predict_int.h"

static bool writes_once(const struct nt_predict_knobs *k)
{
	return k->pattern != NT_PREDICT_TWO_WRITES;
}

/* Rounds the sentences are checked over: enough for a ping-pong sawtooth to show. */
#define FIX_ROUNDS 16

/*
 * Which of rounds 2..FIX_ROUNDS the model itself predicts stalled (bit i:
 * round i + 1), so a sentence about the fix says only what its rounds do.
 * 0 when the knobs do not take (the sentences then assume the stall).
 */
static unsigned predicted_stalls(const struct nt_predict_knobs *k, unsigned *n_rounds)
{
	struct nt_predict_knobs kk = *k;
	struct nt_predict p;
	struct nt_predict_round r;
	struct nt_err err = { 0 };
	unsigned stalls = 0;

	if (kk.rounds > FIX_ROUNDS)
		kk.rounds = FIX_ROUNDS;
	*n_rounds = kk.rounds;
	if (nt_predict_init(&p, &kk, &err) < 0) {
		*n_rounds = 0;
		return 0;
	}
	while (nt_predict_round(&p, &r) == 1)
		if (r.index > 1 && r.verdict == NT_VERDICT_STALLED)
			stalls |= 1u << (r.index - 1);
	return stalls;
}

static bool stalls_from(unsigned stalls, unsigned n_rounds, unsigned *first)
{
	unsigned i = 1;

	while (i < n_rounds && !(stalls & (1u << i)))
		i++;
	*first = i + 1;
	for (; i < n_rounds; i++)
		if (!(stalls & (1u << i)))
			return false;
	return true;
}

/*
 * TCP_QUICKACK once: round 1's reply counts toward ping-pong again. With a
 * threshold above 1 the first stall's timer leaves ping-pong
 * (tcp_delack_timer_handler()), the count climbs again, and the stalls come
 * every few rounds rather than from one round on.
 */
static void fix_quickack_once(const struct nt_predict_knobs *k, const struct nt_predict_kernel *kn,
			      struct nt_predict_why *out)
{
	unsigned n, first, stalls = predicted_stalls(k, &n);

	if (!n || stalls_from(stalls, n, &first)) {
		NT_PSIM_WHY(out, NT_RULE_FIX_QUICKACK_ONCE, NT_SAY_FIX_QUICKACK_FROM,
			    kn->pingpong_thresh, n ? first : kn->pingpong_thresh + 1);
		return;
	}
	NT_PSIM_WHY(out, NT_RULE_FIX_QUICKACK_ONCE, NT_SAY_FIX_QUICKACK_ROUNDS, kn->pingpong_thresh,
		    stalls, k->rounds > FIX_ROUNDS);
}

static bool fix_by_option(const struct nt_predict_knobs *k, const struct nt_predict_kernel *kn,
			  struct nt_predict_why *out)
{
	if (k->client_nodelay)
		NT_PSIM_WHY(out, NT_RULE_FIX_NODELAY, NT_SAY_FIX_NODELAY);
	else if (k->server_quickack == NT_PREDICT_QUICKACK_ONCE)
		fix_quickack_once(k, kn, out);
	else if (k->server_quickack == NT_PREDICT_QUICKACK_REARM)
		NT_PSIM_WHY(out, NT_RULE_FIX_QUICKACK_REARM, NT_SAY_FIX_REARM);
	else if (k->route_quickack)
		NT_PSIM_WHY(out, NT_RULE_FIX_ROUTE_QUICKACK, NT_SAY_FIX_ROUTE);
	else if (k->server_nodelay)
		NT_PSIM_WHY(out, NT_RULE_FIX_WRONG_SIDE, NT_SAY_FIX_WRONG_SIDE);
	else if (!k->client_autocork)
		NT_PSIM_WHY(out, NT_RULE_FIX_AUTOCORK, NT_SAY_FIX_AUTOCORK);
	else
		return false;
	return true;
}

/*
 * The plain exchange. The stall needs the header's ACK to be delayed while
 * the body waits: a body written after that ACK came (a long write gap), or
 * a header of several segments (two frames unacknowledged: ACK at once,
 * __tcp_ack_snd_check()) leaves the body nothing to wait for.
 */
static void fix_none(const struct nt_predict_knobs *k, const struct nt_predict_kernel *kn,
		     struct nt_predict_why *out)
{
	unsigned n, ato_ms = (unsigned)(kn->ato_min * kn->jiffy_ns / 1000000);

	if (predicted_stalls(k, &n) || n < 2)
		NT_PSIM_WHY(out, NT_RULE_FIX_NONE, NT_SAY_FIX_STALL, kn->pingpong_thresh, ato_ms);
	else if (k->write_gap_ns >= (int64_t)kn->ato_min * kn->jiffy_ns)
		NT_PSIM_WHY(out, NT_RULE_FIX_NONE, NT_SAY_FIX_LATE_BODY, k->write_gap_ns / 1000000,
			    ato_ms);
	else if (k->header_bytes > kn->mss)
		NT_PSIM_WHY(out, NT_RULE_FIX_NONE, NT_SAY_FIX_LONG_HEADER,
			    (k->header_bytes + kn->mss - 1) / kn->mss);
	else
		NT_PSIM_WHY(out, NT_RULE_FIX_NONE, NT_SAY_FIX_NO_STALL);
}

void nt_predict_fix(const struct nt_predict_knobs *k, struct nt_predict_why *out)
{
	struct nt_predict_kernel kn;

	nt_predict_kernel_init(k, &kn);
	if (writes_once(k))
		NT_PSIM_WHY(out, NT_RULE_FIX_COALESCE, NT_SAY_FIX_COALESCE, k->pattern, kn.mss,
			    k->header_bytes >= kn.mss);
	else if (fix_by_option(k, &kn, out))
		return;
	else if (k->header_bytes % kn.mss == 0)
		NT_PSIM_WHY(out, NT_RULE_FIX_FULL_SEGMENTS, NT_SAY_FIX_FULL_HEADER);
	else if (k->body_bytes >= kn.mss)
		NT_PSIM_WHY(out, NT_RULE_FIX_FULL_SEGMENTS, NT_SAY_FIX_FULL_BODY);
	else if (k->handler_ns >= (int64_t)kn.ato_min * kn.jiffy_ns)
		NT_PSIM_WHY(out, NT_RULE_FIX_SLOW_HANDLER, NT_SAY_FIX_SLOW_HANDLER,
			    k->handler_ns / 1000000, kn.ato_min * kn.jiffy_ns / 1000000);
	else
		fix_none(k, &kn, out);
}

static void differ(struct nt_predict_evidence_diff *d, enum nt_evidence_field f, int64_t seen,
		   int64_t predicted)
{
	d->differs[f] = true;
	d->seen[f] = seen;
	d->predicted[f] = predicted;
	d->n++;
}

int nt_predict_check_evidence(const struct nt_predict_round *r, const struct nt_round_evidence *e,
			      struct nt_predict_evidence_diff *d)
{
	const struct nt_predict_rx *x = &r->at_header;

	*d = (struct nt_predict_evidence_diff){ 0 };
	if (!x->certain || !x->ato_jiffies)
		return 0;
	if (e->target_pingpong >= 0 && (e->target_pingpong != 0) != x->pingpong)
		differ(d, NT_EVIDENCE_PINGPONG, e->target_pingpong != 0, x->pingpong);
	if (e->target_quick >= 0 && (uint64_t)e->target_quick != x->quick)
		differ(d, NT_EVIDENCE_QUICK, e->target_quick, x->quick);
	if (e->target_proc_ato_ms >= 0 && e->target_proc_ato_ms != (int64_t)x->ato_ms / 10 * 10)
		differ(d, NT_EVIDENCE_PROC_ATO, e->target_proc_ato_ms, x->ato_ms);
	/* tcpi_ato: min(ato, tcp_delack_max()) since 6.7; only compared below TCP_DELACK_MAX. */
	if (e->target_ato_us >= 0 && x->ato_ms < 196 &&
	    e->target_ato_us / 1000 != (int64_t)x->ato_ms)
		differ(d, NT_EVIDENCE_INFO_ATO, e->target_ato_us / 1000, x->ato_ms);
	if (e->target_rcv_mss >= 0 && e->target_rcv_mss != (int64_t)x->rcv_mss)
		differ(d, NT_EVIDENCE_RCV_MSS, e->target_rcv_mss, x->rcv_mss);
	return (int)d->n;
}
