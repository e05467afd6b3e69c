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

static bool fix_by_option(const struct nt_predict_knobs *k, const struct nt_predict_kernel *kn,
			  struct nt_predict_why *out)
{
	if (k->client_nodelay) {
		nt_psim_why(out, NT_RULE_FIX_NODELAY,
			    "TCP_NODELAY on the writer: tcp_nagle_check() never holds the body, so "
			    "nothing waits for the delayed ACK; the cost is two segments a request "
			    "instead of one");
	} else if (k->server_quickack == NT_PREDICT_QUICKACK_ONCE) {
		nt_psim_why(out, NT_RULE_FIX_QUICKACK_ONCE,
			    "TCP_QUICKACK once after accept() only resets the ping-pong count "
			    "(__tcp_sock_set_quickack()); round 1's reply, sent within ato, counts "
			    "again (tcp_event_data_sent(), threshold %u), so from round %u the "
			    "header's ACK is delayed as before",
			    kn->pingpong_thresh, kn->pingpong_thresh + 1);
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
			nt_psim_why(
				out, NT_RULE_FIX_NONE,
				"two writes with Nagle on: the body waits for the header's ACK "
				"(tcp_minshall_check()), and once a quick reply has put the target "
				"in ping-pong (threshold %u) that ACK waits for the delayed-ACK "
				"timer, ato %u ms plus up to two jiffies",
				kn.pingpong_thresh, (unsigned)(kn.ato_min * kn.jiffy_ns / 1000000));
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
