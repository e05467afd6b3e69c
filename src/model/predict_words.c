// SPDX-License-Identifier: MIT
/*
 * predict_words.c - the model's decisions in words (see
 * nt/model/predict_words.h): each sentence of enum nt_predict_say, with the
 * kernel function that decides it where the sentence names one.
 */
#include <stdarg.h>
#include <stdio.h>

#include "nt/clock.h"
#include "nt/model/predict_words.h"

/* @fmt written into @b at @at, cut at its end; return where it ends. */
static size_t vput(struct nt_predict_words *b, size_t at, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static size_t vput(struct nt_predict_words *b, size_t at, const char *fmt, va_list ap)
{
	int n = vsnprintf(b->s + at, at < sizeof(b->s) ? sizeof(b->s) - at : 0, fmt, ap);

	return n > 0 ? at + (size_t)n : at;
}

static const char *put(struct nt_predict_words *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *put(struct nt_predict_words *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* clang 14's ValistChecker misses the va_start() (as in err.c). */
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	vput(b, 0, fmt, ap);
	va_end(ap);
	return b->s;
}

/* One more clause after what @b holds (@*used bytes), "; " between. */
static void add(struct nt_predict_words *b, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct nt_predict_words *b, size_t *used, const char *fmt, ...)
{
	va_list ap;

	if (*used)
		*used += (size_t)snprintf(b->s + *used,
					  *used < sizeof(b->s) ? sizeof(b->s) - *used : 0, "; ");
	va_start(ap, fmt);
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	*used = vput(b, *used, fmt, ap);
	va_end(ap);
}

/* "coalesced, held" for the verdicts in @bits, in the order of their severity. */
static void verdict_list(unsigned bits, char *buf, size_t len)
{
	static const enum nt_verdict order[] = { NT_VERDICT_COALESCED, NT_VERDICT_UNHELD,
						 NT_VERDICT_HELD, NT_VERDICT_STALLED };
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (bits & NT_PREDICT_VERDICT_BIT(order[i]))
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
						 used ? ", " : "", nt_verdict_name(order[i]));
}

/* "3, 5, 7" for the rounds in @bits (bit i: round i + 1). */
static void round_list(unsigned bits, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 1; i < 32 && used < len; i++)
		if (bits & (1u << i))
			used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? ", " : "",
						 i + 1);
}

/*
 * "N jiffies", or "LO-HI jiffies" where the timing allows several counts on
 * the same side of ato: the sentence names what the timing allows, and the
 * capture shows one of them.
 */
static void jiffies_words(int lo, int gap, int hi, unsigned ato, char *buf, size_t len)
{
	if (gap < (int)ato) {
		hi = hi < (int)ato ? hi : (int)ato - 1;
	} else {
		lo = lo >= (int)ato ? lo : (int)ato;
	}
	if (lo < hi)
		snprintf(buf, len, "%d-%d jiffies", lo, hi);
	else
		snprintf(buf, len, "%d jiffies", gap);
}

static const char *pattern_push(int64_t pattern)
{
	return pattern == NT_PREDICT_CORK ? "TCP_CORK off" : "the send without MSG_MORE";
}

static const char *pattern_cork(int64_t pattern)
{
	return pattern == NT_PREDICT_CORK ? "TCP_CORK" : "MSG_MORE";
}

static const char *pattern_once(int64_t pattern)
{
	return pattern == NT_PREDICT_CORK	? "TCP_CORK around the writes"
	       : pattern == NT_PREDICT_MSG_MORE ? "MSG_MORE on the header"
						: "one call writes the request";
}

/*
 * The sentences that take no numbers; the connection's own ACKs (the
 * handshake's, the teardown's) among them, which no choice of the model decides.
 */
static const char *const plain[] = {
	[NT_SAY_SENT_PROBE] = "sent by the probe timer: corked with nothing in flight",
	[NT_SAY_CLIENT_FIRST] = "ACK now: the reply is the client's first data, quick-ACK mode "
				"(tcp_in_quickack_mode())",
	[NT_SAY_HDR_DUE] = "ACK now: the pending delayed-ACK timer is due",
	[NT_SAY_ACK_ON_REPLY] = "the header's ACK rode on the reply",
	[NT_SAY_COALESCED] = "coalesced: H is B, one segment",
	[NT_SAY_BODY_FIRST] = "unheld: B left before the header's ACK reached the client",
	[NT_SAY_NOT_HELD] = "nothing held the body",
	[NT_SAY_UNEXPLAINED] = "not explained: no path of the model gives the verdict the "
			       "capture shows",
	[NT_SAY_FIX_NODELAY] = "TCP_NODELAY on the writer: tcp_nagle_check() never holds the body, "
			       "so nothing waits for the delayed ACK; the cost is two segments a "
			       "request instead of one",
	[NT_SAY_FIX_REARM] = "TCP_QUICKACK before every read resets the ping-pong count after "
			     "each reply, so the header is ACKed at once (quick-ACK budget) or at "
			     "the read (tcp_cleanup_rbuf()); it works, but the request's ACK is a "
			     "pure ACK instead of riding on the reply: one extra segment a "
			     "request, and a setsockopt() before every read, forever",
	[NT_SAY_FIX_ROUTE] = "quickack 1 on the target's route: tcp_in_quickack_mode() checks the "
			     "route's RTAX_QUICKACK before the budget and ping-pong, so every "
			     "segment is ACKed at once, with no code change; it only reaches "
			     "connections made after the route is in place",
	[NT_SAY_FIX_WRONG_SIDE] =
		"TCP_NODELAY on the target is the wrong side: it changes the "
		"target's Nagle test for its replies, but the held segment is the "
		"client's body",
	[NT_SAY_FIX_AUTOCORK] =
		"autocorking off changes nothing here: tcp_should_autocork() defers "
		"a small skb only while an earlier skb of ours is still in the qdisc "
		"or the device, and on veth the header's skb is gone before "
		"write(body); the body is held by Nagle, which autocorking does not "
		"touch",
	[NT_SAY_FIX_NO_STALL] =
		"two writes with Nagle on, but on these knobs the model predicts no "
		"stall: the header's ACK is never delayed while the body waits",
	[NT_SAY_FIX_FULL_HEADER] =
		"the sizes defuse it: the header ends on a full segment, so no small "
		"segment is in flight when the body is written (Minshall)",
	[NT_SAY_FIX_FULL_BODY] =
		"the sizes defuse it: the body's first segment is a full one, which "
		"Nagle never holds, and a second frame makes the target ACK at once",
	[NT_SAY_FULL_SEGMENT] = "a full segment: tcp_nagle_check() holds only a partial one",
	[NT_SAY_HANDSHAKE_ACK] = "the client's ACK of the SYN-ACK completes the handshake "
				 "(tcp_rcv_synsent_state_process(): tcp_send_ack())",
	[NT_SAY_FIN_WAIT2] = "ACK now: the peer's FIN after ours, FIN_WAIT2 to TIME_WAIT "
			     "(tcp_fin(): tcp_send_ack())",
	[NT_SAY_CLOSE_WAIT] = "the ACK of the peer's FIN, which it sent first: CLOSE_WAIT, the ACK "
			      "scheduled (tcp_fin(): inet_csk_schedule_ack())",
};

/* The client's segments and the body's hold: tcp_write_xmit(), tcp_nagle_test(). */
static const char *client_words(const struct nt_predict_why *w, struct nt_predict_words *b)
{
	const int64_t *n = w->n;

	switch (w->say) {
	case NT_SAY_SENT_FULL:
		return put(b, "sent at once: a full segment (%u B = MSS) is never held",
			   (unsigned)n[0]);
	case NT_SAY_SENT_IDLE:
		return put(b, "sent at once: %u B, nothing in flight (packets_out 0)",
			   (unsigned)n[0]);
	case NT_SAY_SENT_MINSHALL:
		return put(b,
			   "sent at once: %u B; data in flight but no small segment unacknowledged "
			   "(snd_sml acknowledged)",
			   (unsigned)n[0]);
	case NT_SAY_SENT_NODELAY:
		return put(b, "sent at once: %u B, TCP_NODELAY (TCP_NAGLE_OFF)", (unsigned)n[0]);
	case NT_SAY_SENT_PUSHED:
		return put(b, "sent when %s pushed what was held (%u B)", pattern_push(n[0]),
			   (unsigned)n[1]);
	case NT_SAY_SENT_RELEASED:
		return put(b, "released by the ACK of %llu:%llu (%u B sent)",
			   (unsigned long long)n[0], (unsigned long long)n[1], (unsigned)n[2]);
	case NT_SAY_HELD_NAGLE:
		return put(b, "held: Nagle, small segment %llu:%llu unacknowledged (Minshall)",
			   (unsigned long long)n[0], (unsigned long long)n[1]);
	case NT_SAY_HELD_CORK:
		return put(b, "held: %s corks the partial segment", pattern_cork(n[0]));
	default:
		return NULL;
	}
}

#define TIMER_FIRED "the delayed-ACK timer fired (tcp_delack_timer_handler): pure ACK %llu; "

/* The target's ACKs and its reply: tcp_delack_timer_handler(), tcp_event_data_sent(). */
static const char *target_words(const struct nt_predict_why *w, struct nt_predict_words *b)
{
	const char *summary = nt_predict_rule_summary(w->rule);
	const int64_t *n = w->n;
	char j[32];

	switch (w->say) {
	case NT_SAY_HDR_TWO_FRAMES:
		return put(b,
			   "ACK now: %u B unacknowledged > rcv_mss %u (more than one full frame), "
			   "the window's right edge advancing",
			   (unsigned)n[0], (unsigned)n[1]);
	case NT_SAY_HDR_ROUTE:
		return put(b, "ACK now: the route's quickack metric (ping-pong count %u)",
			   (unsigned)n[0]);
	case NT_SAY_HDR_BUDGET:
		return put(
			b,
			"ACK now: quick-ACK mode, budget %u and ping-pong count %u < threshold %u",
			(unsigned)n[0], (unsigned)n[1], (unsigned)n[2]);
	case NT_SAY_HDR_DELAYED:
		return put(
			b,
			"delayed: %s (ping-pong count %u, threshold %u, budget %u); timer ato %u "
			"jiffies = %u ms at HZ %u, %u frame(s) of rcv_mss %u unacknowledged",
			w->rule == NT_RULE_DELAYED_PINGPONG ? "ping-pong mode"
							    : "quick-ACK budget spent",
			(unsigned)n[0], (unsigned)n[1], (unsigned)n[2], (unsigned)n[3],
			(unsigned)n[4], (unsigned)n[5], (unsigned)n[6], (unsigned)n[7]);
	case NT_SAY_PURE_ACK:
		return put(b, "pure ACK %llu: %s", (unsigned long long)n[0], summary);
	case NT_SAY_TIMER_LEFT:
		return put(b, TIMER_FIRED "ping-pong left, ato back to %u ms",
			   (unsigned long long)n[0], (unsigned)n[1]);
	case NT_SAY_TIMER_DOUBLED:
		return put(b, TIMER_FIRED "not in ping-pong, ato doubled to %u ms",
			   (unsigned long long)n[0], (unsigned)n[1]);
	case NT_SAY_LATER_ACK:
		return put(b, "pure ACK of a further body segment: %s", summary);
	case NT_SAY_REPLY_PINGPONG:
		jiffies_words((int)n[2], (int)n[3], (int)n[4], (unsigned)n[5], j, sizeof(j));
		return put(b,
			   "reply %u B (%u segment%s) %s after the last receive, < ato %u: "
			   "ping-pong count %u -> %u, %s (threshold %u)",
			   (unsigned)n[0], (unsigned)n[1], n[1] == 1 ? "" : "s", j, (unsigned)n[5],
			   (unsigned)n[6], (unsigned)n[7],
			   n[7] >= n[8] ? "in ping-pong" : "not in ping-pong", (unsigned)n[8]);
	case NT_SAY_REPLY_AFTER_ATO:
		jiffies_words((int)n[1], (int)n[2], (int)n[3], (unsigned)n[4], j, sizeof(j));
		return put(b,
			   "reply %u B %s after the last receive, >= ato %u: ping-pong count "
			   "stays %u (threshold %u)",
			   (unsigned)n[0], j, (unsigned)n[4], (unsigned)n[5], (unsigned)n[6]);
	default:
		return NULL;
	}
}

/* The round's verdict and how sure the model is of it (nt_verdict_rule()). */
static const char *verdict_words(const struct nt_predict_why *w, struct nt_predict_words *b)
{
	const int64_t *n = w->n;
	char list[64], late[48] = "";

	switch (w->say) {
	case NT_SAY_WINDOW:
		/* The gap at the capture: the target's delay plus the path's RTT. */
		if (n[7])
			snprintf(late, sizeof(late), ", the delay line %.3f ms late",
				 nt_ns_to_ms(n[7]));
		return put(
			b,
			"%s: H -> A %.3f-%.3f ms (the target's delay %.3f-%.3f ms + RTT %.3f ms%s) "
			"against a threshold of %.3f ms%s",
			nt_verdict_name((enum nt_verdict)n[0]), nt_ns_to_ms(n[1]),
			nt_ns_to_ms(n[2]), nt_ns_to_ms(n[3]), nt_ns_to_ms(n[4]), nt_ns_to_ms(n[5]),
			late, nt_ns_to_ms(n[6]),
			w->rule == NT_RULE_VERDICT_APP_GAP ? ", but write(body) returned after A"
			: w->rule == NT_RULE_VERDICT_STALL ? ", the body waiting for it"
							   : "");
	case NT_SAY_ONE_OF:
		verdict_list((unsigned)n[0], list, sizeof(list));
		return put(b, "one of %s: %s", list, nt_predict_rule_summary(w->rule));
	default:
		return NULL;
	}
}

#define QUICKACK_ONCE                                                       \
	"TCP_QUICKACK once after accept() only resets the ping-pong count " \
	"(__tcp_sock_set_quickack()); "

/* Why a variant's fix works or fails (nt_predict_fix()). */
static const char *fix_option_words(const struct nt_predict_why *w, struct nt_predict_words *b)
{
	const int64_t *n = w->n;
	char list[64];

	switch (w->say) {
	case NT_SAY_FIX_QUICKACK_FROM:
		return put(b,
			   QUICKACK_ONCE
			   "round 1's reply, sent within ato, counts "
			   "again (tcp_event_data_sent(), threshold %u), so from round %u the "
			   "header's ACK is delayed as before",
			   (unsigned)n[0], (unsigned)n[1]);
	case NT_SAY_FIX_QUICKACK_ROUNDS:
		round_list((unsigned)n[1], list, sizeof(list));
		return put(b,
			   QUICKACK_ONCE
			   "the replies count again "
			   "(tcp_event_data_sent(), threshold %u), and each delayed ACK that fires "
			   "leaves ping-pong (tcp_delack_timer_handler()), so the header's ACK is "
			   "delayed again in rounds %s%s",
			   (unsigned)n[0], list, n[2] ? ", …" : "");
	default:
		return NULL;
	}
}

static const char *fix_knob_words(const struct nt_predict_why *w, struct nt_predict_words *b)
{
	const int64_t *n = w->n;

	switch (w->say) {
	case NT_SAY_FIX_STALL:
		return put(b,
			   "two writes with Nagle on: the body waits for the header's ACK "
			   "(tcp_minshall_check()), and once a quick reply has put the target "
			   "in ping-pong (threshold %u) that ACK waits for the delayed-ACK "
			   "timer, ato %u ms plus up to two jiffies",
			   (unsigned)n[0], (unsigned)n[1]);
	case NT_SAY_FIX_LATE_BODY:
		return put(b,
			   "two writes with Nagle on, but the body is written %lld ms after the "
			   "header, when the header's delayed ACK (ato %u ms) has come: nothing "
			   "small is in flight, so tcp_nagle_check() sends the body at once",
			   (long long)n[0], (unsigned)n[1]);
	case NT_SAY_FIX_LONG_HEADER:
		return put(b,
			   "two writes with Nagle on, but the header takes %u segments: more than "
			   "one frame unacknowledged makes the target ACK at once "
			   "(__tcp_ack_snd_check()), so Nagle holds the body only until that "
			   "prompt ACK",
			   (unsigned)n[0]);
	case NT_SAY_FIX_COALESCE:
		return put(
			b,
			"%s: header and body go out together, one segment when they fit in %u B "
			"(one MSS); with nothing small in flight Nagle has no second write to "
			"hold%s",
			pattern_once(n[0]), (unsigned)n[1],
			n[2] ? "; a header of a full MSS or more leaves the body in a segment of "
			       "its own"
			     : "");
	case NT_SAY_FIX_SLOW_HANDLER:
		return put(
			b,
			"the reply leaves %lld ms after the request, not within ato (%u ms): the "
			"target never enters ping-pong, and the header is ACKed at once "
			"(budget) or at the read",
			(long long)n[0], (unsigned)n[1]);
	default:
		return NULL;
	}
}

const char *nt_predict_words(const struct nt_predict_why *w, struct nt_predict_words *b)
{
	b->s[0] = '\0';
	if (w->say == NT_SAY_NONE)
		return b->s;
	if ((size_t)w->say < sizeof(plain) / sizeof(plain[0]) && plain[w->say])
		return put(b, "%s", plain[w->say]);
	if (client_words(w, b) || target_words(w, b) || verdict_words(w, b) ||
	    fix_option_words(w, b) || fix_knob_words(w, b))
		return b->s;
	return put(b, "%s", nt_predict_rule_summary(w->rule));
}

/* The numbers the kernel shows: their name, unit and where they were read. */
static const struct {
	const char *name, *unit, *source;
} evidence_numbers[NT_EVIDENCE_FIELDS] = {
	[NT_EVIDENCE_QUICK] = { "quick-ACK budget", "", "" },
	[NT_EVIDENCE_PROC_ATO] = { "ato", " ms", " (/proc/net/tcp)" },
	[NT_EVIDENCE_INFO_ATO] = { "ato", " ms", " (TCP_INFO)" },
	[NT_EVIDENCE_RCV_MSS] = { "rcv_mss", "", "" },
};

const char *nt_predict_evidence_words(const struct nt_predict_evidence_diff *d,
				      struct nt_predict_words *buf)
{
	size_t used = 0;

	buf->s[0] = '\0';
	if (d->differs[NT_EVIDENCE_PINGPONG])
		add(buf, &used, "ping-pong %s, predicted %s",
		    d->seen[NT_EVIDENCE_PINGPONG] ? "on" : "off",
		    d->predicted[NT_EVIDENCE_PINGPONG] ? "on" : "off");
	for (int f = NT_EVIDENCE_QUICK; f < NT_EVIDENCE_FIELDS; f++)
		if (d->differs[f])
			add(buf, &used, "%s %lld%s%s, predicted %lld%s", evidence_numbers[f].name,
			    (long long)d->seen[f], evidence_numbers[f].unit,
			    evidence_numbers[f].source, (long long)d->predicted[f],
			    evidence_numbers[f].unit);
	return buf->s;
}
