// SPDX-License-Identifier: MIT
/*
 * why.c - which of the model's decisions explains an event (see
 * nt/render/why.h).
 */
#include <stdio.h>

#include "nt/model/tcp.h"
#include "nt/render/why.h"

static unsigned add(const struct nt_predict_why *w, const struct nt_predict_why *out[NT_WHY_MAX],
		    unsigned n)
{
	if (w->rule != NT_RULE_NONE && n < NT_WHY_MAX)
		out[n++] = w;
	return n;
}

static bool is_reply(const struct nt_event *e)
{
	return e->kind == NT_EVENT_SEGMENT && e->seg.role == NT_ROLE_REPLY;
}

/*
 * Whether event @i is the round's first reply segment (the marks do not name
 * it). Looked for backwards from @i, and only for a reply: every event of a
 * round is asked, and a 16 MiB request has tens of thousands.
 */
static bool first_reply(const struct nt_round_view *rv, size_t i)
{
	if (!is_reply(&rv->ev[i]))
		return false;
	while (i-- > 0)
		if (is_reply(&rv->ev[i]))
			return false;
	return true;
}

static bool is_pure_ack(const struct nt_event *e, enum nt_dir dir)
{
	return e->kind == NT_EVENT_SEGMENT && e->seg.role == NT_ROLE_PURE_ACK && e->seg.dir == dir;
}

/*
 * The target's pure ACK at @i other than A: the first one before A (of part
 * of the header), the first one after it (of the body), or a later one (of
 * the body's further segments); NULL for a second one before A.
 */
static const struct nt_predict_why *other_target_ack(const struct nt_predict_round *p,
						     const struct nt_round_view *rv, size_t i)
{
	long a = rv->round->marks.a;
	bool before = a < 0 || (long)i < a;
	size_t from = before ? 0 : (size_t)a + 1;

	for (size_t k = from; k < i; k++)
		if (is_pure_ack(&rv->ev[k], NT_DIR_T2C) && (long)k != a)
			return before ? NULL : &p->later_ack;
	return before ? &p->part_ack : &p->body_ack;
}

/* The largest request segment of the round: a full one (the MSS). */
static uint32_t largest_request_segment(const struct nt_round_view *rv)
{
	uint32_t max = 0;

	for (size_t k = 0; k < rv->n; k++)
		if (rv->ev[k].kind == NT_EVENT_SEGMENT && rv->ev[k].seg.dir == NT_DIR_C2T &&
		    rv->ev[k].seg.payload_bytes > max)
			max = rv->ev[k].seg.payload_bytes;
	return max;
}

/* A part's segment other than H and B: a full one, or what the part's decision says. */
static unsigned part_segment(const struct nt_round_view *rv, size_t i,
			     const struct nt_predict_why *part,
			     const struct nt_predict_why *out[NT_WHY_MAX])
{
	static const struct nt_predict_why full = {
		.rule = NT_RULE_FULL_SEGMENT,
		.say = NT_SAY_FULL_SEGMENT,
	};
	uint32_t len = rv->ev[i].seg.payload_bytes;
	long h = rv->round->marks.h;
	uint32_t h_len = h >= 0 ? rv->ev[h].seg.payload_bytes : 0;

	/* H is the header's last, partial segment; one as large as the largest is full. */
	if (len > h_len && len == largest_request_segment(rv))
		return add(&full, out, 0);
	return add(part, out, 0);
}

/*
 * The segments beyond H, A, B and the first reply: the other segments of a
 * part are explained by that part's decision (a header or body longer than
 * a segment, a reply of several), the client's ACK of the reply by its own.
 */
static unsigned other_segment(const struct nt_predict_round *p, const struct nt_round_view *rv,
			      size_t i, const struct nt_predict_why *out[NT_WHY_MAX])
{
	const struct nt_event *e = &rv->ev[i];

	if (e->kind != NT_EVENT_SEGMENT)
		return 0;
	const struct nt_predict_why *ack;

	switch (e->seg.role) {
	case NT_ROLE_HEADER:
		return part_segment(rv, i, &p->header, out);
	case NT_ROLE_BODY:
	case NT_ROLE_REQUEST:
		return part_segment(rv, i, &p->body, out);
	case NT_ROLE_REPLY:
		return add(&p->reply, out, 0);
	case NT_ROLE_PURE_ACK:
		if (e->seg.dir == NT_DIR_C2T)
			return add(&p->client_ack, out, 0);
		ack = other_target_ack(p, rv, i);
		return ack ? add(ack, out, 0) : 0;
	default:
		return 0;
	}
}

/*
 * The handshake's and the teardown's ACKs, which no round's prediction
 * covers: the rule is the connection's state, not a choice of the model.
 */
static unsigned outside_rounds(const struct nt_round_view *rv, size_t i,
			       const struct nt_predict_why *out[NT_WHY_MAX])
{
	static const struct nt_predict_why hs_ack = {
		.rule = NT_RULE_HANDSHAKE_ACK,
		.say = NT_SAY_HANDSHAKE_ACK,
	};
	static const struct nt_predict_why fin_wait2 = {
		.rule = NT_RULE_FIN_ACK,
		.say = NT_SAY_FIN_WAIT2,
	};
	static const struct nt_predict_why close_wait = {
		.rule = NT_RULE_FIN_ACK,
		.say = NT_SAY_CLOSE_WAIT,
	};
	const struct nt_event *e = &rv->ev[i];

	if (e->kind != NT_EVENT_SEGMENT)
		return 0;
	if (e->seg.role == NT_ROLE_HANDSHAKE_ACK)
		return add(&hs_ack, out, 0);
	if (e->seg.role != NT_ROLE_PURE_ACK)
		return 0;
	for (size_t k = 0; k < i; k++) {
		const struct nt_segment *g = &rv->ev[k].seg;

		if (rv->ev[k].kind != NT_EVENT_SEGMENT || !(g->flags & NT_TCP_FIN))
			continue;
		/* The first FIN tells who closed first: that side is in FIN_WAIT2 now. */
		return add(g->dir == e->seg.dir ? &fin_wait2 : &close_wait, out, 0);
	}
	return 0;
}

unsigned nt_why_event(const struct nt_round_view *rv, size_t i,
		      const struct nt_predict_why *out[NT_WHY_MAX])
{
	const struct nt_predict_round *p = rv->predicted;
	const struct nt_round *r = rv->round;
	long at = (long)i;
	unsigned n = 0;

	if (!r)
		return outside_rounds(rv, i, out);
	if (!p)
		return 0;
	/* Coalesced: H and B are one segment, which the header's decision explains. */
	if (at == r->marks.h)
		return add(&p->header, out, n);
	if (at == r->marks.a) {
		n = add(&p->header_ack, out, n);
		/* "ACK now" needs no second sentence on what sent it. */
		if (!p->header_ack_now)
			n = add(&p->ack, out, n);
		return n;
	}
	if (at == r->marks.b) {
		n = add(&p->body, out, n);
		if (p->body_held)
			n = add(&p->release, out, n);
		return n;
	}
	if (first_reply(rv, i))
		return add(&p->reply, out, n);
	return other_segment(p, rv, i, out);
}

const char *nt_why_verdicts(const struct nt_predict_round *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned v = 0; v < NT_VERDICT_COUNT && used < len; v++) {
		int k;

		if (!(p->verdicts & NT_PREDICT_VERDICT_BIT(v)))
			continue;
		k = snprintf(buf + used, len - used, "%s%s", used ? " or " : "",
			     nt_verdict_name((enum nt_verdict)v));
		if (k < 0)
			break;
		used += (size_t)k;
	}
	return buf;
}

const char *nt_why_model_line(const struct nt_record *run, char *buf, size_t len)
{
	const struct nt_predict_knobs *k = &run->predict.knobs;
	unsigned rounds = run->summary.rounds;
	unsigned as_predicted = rounds >= run->predict_misses ? rounds - run->predict_misses : 0;

	buf[0] = '\0';
	if (!run->predicting)
		return buf;
	snprintf(buf, len, "%u of %u round%s as predicted (Linux %u.%u, HZ %u from %s)",
		 as_predicted, rounds, rounds == 1 ? "" : "s", k->kernel.major, k->kernel.minor,
		 k->hz, run->cfg.hz_source[0] ? run->cfg.hz_source : "the default");
	return buf;
}
