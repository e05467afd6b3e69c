// SPDX-License-Identifier: MIT
/*
 * predict_sched.c - the model on the observed schedule: which parts of what
 * the programs did in a round fall outside the windows the knobs allow, and
 * the one line that names such a round.
 *
 * The knobs give the model windows for what the programs do: the target
 * reads within a wake-up of the data arriving and replies a handler time
 * later, the client writes its body a write gap after its header and starts
 * a round a pause after the last reply. On a busy machine (a CPU-limited
 * cgroup throttles the exchange for tens of milliseconds) a program may not
 * be scheduled for longer than any of those windows. The kernel's timers
 * still run then (tcp_delack_timer_handler() fires in softirq), so the
 * kernel's decisions change: a reply later than ato after the last receive
 * does not count toward ping-pong (tcp_event_data_sent()), the delayed-ACK
 * timer leaves ping-pong mode when it fires in it, and the next header then
 * finds the quick-ACK budget usable again (tcp_in_quickack_mode()). Only the
 * disturbed parts replace the knobs' windows, so a round that ran as the
 * knobs say is predicted exactly as before.
 */
#include <stdio.h>
#include <string.h>

#include "nt/model/predict_words.h"
#include "predict_int.h"

void nt_predict_sched_unknown(struct nt_predict_sched *out)
{
	*out = (struct nt_predict_sched){
		.read_after_ns = -1,
		.reply_after_ns = -1,
		.write_gap_ns = -1,
		.pause_ns = -1,
		.path_late_ns = -1,
		.gap_late_ns = -1,
		.h_late_ns = -1,
		.a_late_ns = -1,
		.body_call_ns = -1,
	};
}

/* Whether @seen (-1: not seen) is later than the window ending at @allowed. */
static bool is_late(int64_t seen, int64_t allowed)
{
	return seen >= 0 && seen > allowed + NT_SCHED_MARGIN_NS;
}

static bool has_gap(enum nt_predict_pattern pat)
{
	return pat == NT_PREDICT_TWO_WRITES || pat == NT_PREDICT_CORK || pat == NT_PREDICT_MSG_MORE;
}

unsigned nt_predict_disturbed(const struct nt_predict_knobs *k, const struct nt_predict_sched *sc)
{
	unsigned parts = 0;

	if (is_late(sc->read_after_ns, k->wake_latency_ns))
		parts |= NT_SCHED_READ;
	if (is_late(sc->reply_after_ns, k->handler_ns + k->wake_slack_ns))
		parts |= NT_SCHED_REPLY;
	if (has_gap(k->pattern) && is_late(sc->write_gap_ns, k->write_gap_ns + k->wake_slack_ns))
		parts |= NT_SCHED_GAP;
	/* The call's own cost is the margin: no knob lets write(body) take longer. */
	if (has_gap(k->pattern) && is_late(sc->body_call_ns, 0))
		parts |= NT_SCHED_BODY_RETURN;
	if (is_late(sc->pause_ns, k->pause_ns + k->wake_slack_ns))
		parts |= NT_SCHED_PAUSE;
	if (k->rtt_ns > 0 && sc->path_late_ns > NT_SCHED_PATH_MARGIN_NS)
		parts |= NT_SCHED_PATH;
	return parts;
}

unsigned nt_predict_observe(struct nt_predict *p, const struct nt_predict_sched *sc)
{
	p->sched = *sc;
	p->sched_parts = nt_predict_disturbed(&p->knobs, sc);
	return p->sched_parts;
}

/* One clause per late part, "; "-separated. */
static size_t late_parts(const struct nt_predict_sched *sc, unsigned parts, char *out, size_t len)
{
	static const struct {
		unsigned bit;
		const char *who;
		const char *after;
	} clause[] = {
		{ NT_SCHED_READ, "the target read the request", "after it arrived" },
		{ NT_SCHED_REPLY, "the target answered", "after reading the request" },
		{ NT_SCHED_GAP, "the client wrote the body", "after the header" },
		{ NT_SCHED_PAUSE, "the client began the round", "after the last reply" },
		{ NT_SCHED_PATH, "the delay line forwarded a frame up to", "late" },
		{ NT_SCHED_BODY_RETURN, "the client returned from write(body)",
		  "after entering it" },
	};
	const int64_t ns[] = { sc->read_after_ns, sc->reply_after_ns, sc->write_gap_ns,
			       sc->pause_ns,	  sc->path_late_ns,   sc->body_call_ns };
	size_t used = 0;

	for (unsigned i = 0; i < sizeof(clause) / sizeof(clause[0]); i++) {
		if (!(parts & clause[i].bit))
			continue;
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s %.1f ms %s",
					 used ? "; " : "", clause[i].who, (double)ns[i] / 1e6,
					 clause[i].after);
	}
	return used;
}

void nt_predict_describe_disturbed(const struct nt_predict_round *r,
				   const struct nt_predict_sched *sc, unsigned parts, char *out,
				   size_t len)
{
	struct nt_predict_words words;
	size_t used;

	if (!len)
		return;
	out[0] = '\0';
	if (!parts)
		return;
	used = late_parts(sc, parts, out, len);
	if (used >= len)
		return;
	/* What the kernel's rules made of it, on the model's primary path. */
	if (r->ack.rule == NT_RULE_DELACK_TIMER || r->reply.rule == NT_RULE_REPLY_AFTER_ATO)
		snprintf(out + used, len - used,
			 " (it was not scheduled): the round is judged on that schedule; %s",
			 nt_predict_words(r->reply.rule != NT_RULE_NONE ? &r->reply : &r->ack,
					  &words));
	else
		snprintf(out + used, len - used,
			 " (it was not scheduled): the round is judged on that schedule");
}

bool nt_psched_late_timer(const struct nt_predict_round *r, int measured, int64_t gap_ns,
			  bool a_pure)
{
	return measured == (int)NT_VERDICT_STALLED && a_pure &&
	       r->ack.rule == NT_RULE_DELACK_TIMER &&
	       (r->verdicts & NT_PREDICT_VERDICT_BIT(NT_VERDICT_HELD)) &&
	       !(r->verdicts & NT_PREDICT_VERDICT_BIT(NT_VERDICT_STALLED)) && r->gap_max_ns > 0 &&
	       gap_ns > r->gap_max_ns;
}

void nt_psched_take_late_timer(struct nt_predict_round *r, int64_t gap_ns)
{
	size_t used = strlen(r->disturbed_text);

	r->verdicts |= NT_PREDICT_VERDICT_BIT(NT_VERDICT_STALLED);
	r->disturbed |= NT_SCHED_TIMER;
	if (used < sizeof(r->disturbed_text))
		snprintf(r->disturbed_text + used, sizeof(r->disturbed_text) - used,
			 "%sthe target's delayed-ACK timer fired %.3f ms past its window (H -> A "
			 "%.3f ms, at most %.3f ms on a quiet machine; a busy or stalled host runs "
			 "timers late): the round is judged on that",
			 used ? "; " : "", (double)(gap_ns - r->gap_max_ns) / 1e6,
			 (double)gap_ns / 1e6, (double)r->gap_max_ns / 1e6);
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/*
 * An instant of the observed schedule: the capture's clock and the
 * simulation's agree within NT_PSIM_SCHED_TOL_NS, never before now.
 */
struct nt_ptime nt_psim_observed_in(struct nt_psim *s, int64_t d)
{
	return nt_pt_anchor(s, s->now, max64(d - NT_PSIM_SCHED_TOL_NS, 0), d,
			    d + NT_PSIM_SCHED_TOL_NS, false);
}

/*
 * The target was not scheduled when the request became whole: the read that
 * completes it happens at the observed time. The kernel meanwhile does what
 * it does without the application: the delayed-ACK timer fires
 * (tcp_delack_timer_handler()), no read-time ACK is sent (tcp_cleanup_rbuf()
 * runs only inside the read).
 */
bool nt_psim_late_read(struct nt_psim *s)
{
	int64_t ra, lo, nom, hi, d;

	if (!(s->sched_parts & NT_SCHED_READ) || s->late_read_done || !s->req_whole_seen ||
	    s->app_got + s->rx.unread < s->header + s->body)
		return false;
	s->late_read_done = true;
	ra = s->sched->read_after_ns;
	nt_pt_diff(s, s->now, s->req_whole, &lo, &nom, &hi);
	if (nom >= ra)
		return false;
	d = ra - nom;
	s->read_pending = true;
	nt_psim_post(s, NT_PEV_READ, nt_psim_observed_in(s, d), 0, 0, false, 0);
	return true;
}

struct nt_ptime nt_psim_reply_at(struct nt_psim *s)
{
	int64_t h = s->k->handler_ns;

	if (s->sched_parts & NT_SCHED_REPLY)
		return nt_psim_observed_in(s, s->sched->reply_after_ns);
	if (h > 0)
		return nt_pt_anchor(s, s->now, h, h + nt_psim_wake_nominal(s),
				    h + s->k->wake_slack_ns, false);
	return s->now;
}

int64_t nt_psim_path_late(const struct nt_psim *s)
{
	return (s->sched_parts & NT_SCHED_PATH) ? s->sched->path_late_ns : 0;
}

/*
 * H and A crossed the delay line as late as the forwarder measured each
 * (verdict_path_late_ns() in record.c): replayed at that lateness, not
 * anywhere up to the round's worst, so the model's A reaches the client when
 * the capture's did, before or after write(body) as it really was.
 */
int64_t nt_psim_mark_late(const struct nt_psim *s, bool h)
{
	int64_t late;

	if (!(s->sched_parts & NT_SCHED_PATH))
		return -1;
	late = h ? s->sched->h_late_ns : s->sched->a_late_ns;
	return late >= 0 ? late : -1;
}

int64_t nt_psim_gap_late(const struct nt_psim *s)
{
	return s->gap_late_ns;
}

int64_t nt_psim_write_gap(const struct nt_psim *s, bool *observed)
{
	*observed = (s->sched_parts & NT_SCHED_GAP) != 0;
	return *observed ? s->sched->write_gap_ns : s->k->write_gap_ns;
}

/*
 * The kernel took the body when the call began (tcp_sendmsg() queues it
 * and Nagle decides there), but the client was descheduled before the call
 * returned: inside it, or on its way back to user space, where the
 * scheduler runs (exit_to_user_mode_loop()). The header's ACK may come
 * meanwhile and release a body Nagle held; the round's verdict then sees
 * write(body) return after the ACK, the application's gap
 * (nt_verdict_by_gap()), and so must the model.
 */
int64_t nt_psim_body_call(const struct nt_psim *s)
{
	return (s->sched_parts & NT_SCHED_BODY_RETURN) ? s->sched->body_call_ns : 0;
}

/*
 * A round the client began late: the time from the target's last receive to
 * the round's start (icsk_ack.lrcvtime, which tcp_event_data_recv() compares
 * with ato and the RTO) grows by the lateness; where the start falls in a
 * jiffy is no longer known.
 */
void nt_predict_sched_shift(struct nt_predict *p)
{
	const struct nt_predict_knobs *k = &p->knobs;
	int64_t obs = p->sched.pause_ns;
	int64_t win_lo = k->pause_ns, win_hi;

	if (!(p->sched_parts & NT_SCHED_PAUSE) || p->round <= 1)
		return;
	win_hi = k->pause_ns > 0 ? k->pause_ns + k->wake_slack_ns : NT_PSIM_PROC_NS;
	for (unsigned i = 0; i < p->n_hyp; i++) {
		struct nt_predict_state *h = &p->hyp[i];

		h->lrcv_lo_ns = max64(h->lrcv_lo_ns - win_lo + obs - NT_PSIM_SCHED_TOL_NS, 0);
		h->lrcv_hi_ns =
			max64(h->lrcv_hi_ns - win_hi + obs + NT_PSIM_SCHED_TOL_NS, h->lrcv_lo_ns);
		h->phase_lo_ns = -1;
		h->phase_hi_ns = -1;
	}
}
