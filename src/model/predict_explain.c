// SPDX-License-Identifier: MIT
/*
 * predict_explain.c - why a configuration's fix works or fails, as a
 * function of the knobs, and the comparison of a predicted round's target
 * state with the kernel's own evidence (see nt/model/predict.h).
 */
#include <stdarg.h>
#include <stdio.h>

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

/* "3, 5, 7" for the rounds in @stalls. */
static void round_list(unsigned stalls, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 1; i < FIX_ROUNDS && used < len; i++)
		if (stalls & (1u << i))
			used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? ", " : "",
						 i + 1);
}

/* Whether every round from the first stalled one to the last is stalled. */
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
	char list[64];

	if (!n || stalls_from(stalls, n, &first)) {
		nt_psim_why(out, NT_RULE_FIX_QUICKACK_ONCE,
			    "TCP_QUICKACK once after accept() only resets the ping-pong count "
			    "(__tcp_sock_set_quickack()); round 1's reply, sent within ato, counts "
			    "again (tcp_event_data_sent(), threshold %u), so from round %u the "
			    "header's ACK is delayed as before",
			    kn->pingpong_thresh, n ? first : kn->pingpong_thresh + 1);
		return;
	}
	round_list(stalls, list, sizeof(list));
	nt_psim_why(out, NT_RULE_FIX_QUICKACK_ONCE,
		    "TCP_QUICKACK once after accept() only resets the ping-pong count "
		    "(__tcp_sock_set_quickack()); the replies count again (tcp_event_data_sent(), "
		    "threshold %u), and each delayed ACK that fires leaves ping-pong "
		    "(tcp_delack_timer_handler()), so the header's ACK is delayed again in "
		    "rounds %s%s",
		    kn->pingpong_thresh, list, k->rounds > FIX_ROUNDS ? ", …" : "");
}

static bool fix_by_option(const struct nt_predict_knobs *k, const struct nt_predict_kernel *kn,
			  struct nt_predict_why *out)
{
	if (k->client_nodelay) {
		nt_psim_why(out, NT_RULE_FIX_NODELAY,
			    "TCP_NODELAY on the writer: tcp_nagle_check() never holds the body, so "
			    "nothing waits for the delayed ACK; the cost is two segments a request "
			    "instead of one");
	} else if (k->server_quickack == NT_PREDICT_QUICKACK_ONCE) {
		fix_quickack_once(k, kn, out);
	} else if (k->server_quickack == NT_PREDICT_QUICKACK_REARM) {
		nt_psim_why(
			out, NT_RULE_FIX_QUICKACK_REARM,
			"TCP_QUICKACK before every read resets the ping-pong count after each "
			"reply, so the header is ACKed at once (quick-ACK budget) or at the read "
			"(tcp_cleanup_rbuf()); it works, but the request's ACK is a pure ACK "
			"instead of riding on the reply: one extra segment a request, and a "
			"setsockopt() before every read, forever");
	} else if (k->route_quickack) {
		nt_psim_why(
			out, NT_RULE_FIX_ROUTE_QUICKACK,
			"quickack 1 on the target's route: tcp_in_quickack_mode() checks the "
			"route's RTAX_QUICKACK before the budget and ping-pong, so every segment "
			"is ACKed at once, with no code change; it only reaches connections made "
			"after the route is in place");
	} else if (k->server_nodelay) {
		nt_psim_why(
			out, NT_RULE_FIX_WRONG_SIDE,
			"TCP_NODELAY on the target is the wrong side: it changes the target's "
			"Nagle test for its replies, but the held segment is the client's body");
	} else if (!k->client_autocork) {
		nt_psim_why(
			out, NT_RULE_FIX_AUTOCORK,
			"autocorking off changes nothing here: tcp_should_autocork() defers a "
			"small skb only while an earlier skb of ours is still in the qdisc or the "
			"device, and on veth the header's skb is gone before write(body); the "
			"body is held by Nagle, which autocorking does not touch");
	} else {
		return false;
	}
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
		nt_psim_why(out, NT_RULE_FIX_NONE,
			    "two writes with Nagle on: the body waits for the header's ACK "
			    "(tcp_minshall_check()), and once a quick reply has put the target "
			    "in ping-pong (threshold %u) that ACK waits for the delayed-ACK "
			    "timer, ato %u ms plus up to two jiffies",
			    kn->pingpong_thresh, ato_ms);
	else if (k->write_gap_ns >= (int64_t)kn->ato_min * kn->jiffy_ns)
		nt_psim_why(out, NT_RULE_FIX_NONE,
			    "two writes with Nagle on, but the body is written %lld ms after the "
			    "header, when the header's delayed ACK (ato %u ms) has come: nothing "
			    "small is in flight, so tcp_nagle_check() sends the body at once",
			    (long long)(k->write_gap_ns / 1000000), ato_ms);
	else if (k->header_bytes > kn->mss)
		nt_psim_why(out, NT_RULE_FIX_NONE,
			    "two writes with Nagle on, but the header takes %u segments: more than "
			    "one frame unacknowledged makes the target ACK at once "
			    "(__tcp_ack_snd_check()), so Nagle holds the body only until that "
			    "prompt ACK",
			    (k->header_bytes + kn->mss - 1) / kn->mss);
	else
		nt_psim_why(out, NT_RULE_FIX_NONE,
			    "two writes with Nagle on, but on these knobs the model predicts no "
			    "stall: the header's ACK is never delayed while the body waits");
}

void nt_predict_fix(const struct nt_predict_knobs *k, struct nt_predict_why *out)
{
	struct nt_predict_kernel kn;

	nt_predict_kernel_init(k, &kn);
	if (writes_once(k)) {
		nt_psim_why(
			out, NT_RULE_FIX_COALESCE,
			"%s: header and body go out together, one segment when they fit in %u B "
			"(one MSS); with nothing small in flight Nagle has no second write to "
			"hold%s",
			k->pattern == NT_PREDICT_CORK	    ? "TCP_CORK around the writes"
			: k->pattern == NT_PREDICT_MSG_MORE ? "MSG_MORE on the header"
							    : "one call writes the request",
			kn.mss,
			k->header_bytes >= kn.mss ? "; a header of a full MSS or more leaves the "
						    "body in a segment of its own"
						  : "");
	} else if (!fix_by_option(k, &kn, out)) {
		if (k->header_bytes % kn.mss == 0 || k->body_bytes >= kn.mss)
			nt_psim_why(
				out, NT_RULE_FIX_FULL_SEGMENTS, "the sizes defuse it: %s",
				k->header_bytes % kn.mss == 0
					? "the header ends on a full segment, so no small segment "
					  "is in flight when the body is written (Minshall)"
					: "the body's first segment is a full one, which Nagle "
					  "never "
					  "holds, and a second frame makes the target ACK at once");
		else if (k->handler_ns >= (int64_t)kn.ato_min * kn.jiffy_ns)
			nt_psim_why(out, NT_RULE_FIX_SLOW_HANDLER,
				    "the reply leaves %lld ms after the request, not within ato "
				    "(%u ms): the target never enters ping-pong, and the header is "
				    "ACKed at once (budget) or at the read",
				    (long long)(k->handler_ns / 1000000),
				    (unsigned)(kn.ato_min * kn.jiffy_ns / 1000000));
		else
			fix_none(k, &kn, out);
	}
}

static int append(char *why, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int append(char *why, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(why + *used, *used < len ? len - *used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n;
	return 1;
}

int nt_predict_check_evidence(const struct nt_predict_round *r, const struct nt_round_evidence *e,
			      char *why, size_t len)
{
	const struct nt_predict_rx *x = &r->at_header;
	size_t used = 0;
	int bad = 0;

	if (len)
		why[0] = '\0';
	if (!x->certain || !x->ato_jiffies)
		return 0;
	if (e->target_pingpong >= 0 && (e->target_pingpong != 0) != x->pingpong)
		bad += append(why, len, &used, "%sping-pong %s, predicted %s", used ? "; " : "",
			      e->target_pingpong ? "on" : "off", x->pingpong ? "on" : "off");
	if (e->target_quick >= 0 && (uint64_t)e->target_quick != x->quick)
		bad += append(why, len, &used, "%squick-ACK budget %lld, predicted %u",
			      used ? "; " : "", (long long)e->target_quick, x->quick);
	if (e->target_proc_ato_ms >= 0 && e->target_proc_ato_ms != (int64_t)x->ato_ms / 10 * 10)
		bad += append(why, len, &used, "%sato %lld ms (/proc/net/tcp), predicted %u ms",
			      used ? "; " : "", (long long)e->target_proc_ato_ms, x->ato_ms);
	/* tcpi_ato: min(ato, tcp_delack_max()) since 6.7; only compared below TCP_DELACK_MAX. */
	if (e->target_ato_us >= 0 && x->ato_ms < 196 &&
	    e->target_ato_us / 1000 != (int64_t)x->ato_ms)
		bad += append(why, len, &used, "%sato %lld ms (TCP_INFO), predicted %u ms",
			      used ? "; " : "", (long long)(e->target_ato_us / 1000), x->ato_ms);
	if (e->target_rcv_mss >= 0 && e->target_rcv_mss != (int64_t)x->rcv_mss)
		bad += append(why, len, &used, "%srcv_mss %lld, predicted %u", used ? "; " : "",
			      (long long)e->target_rcv_mss, x->rcv_mss);
	return bad;
}
