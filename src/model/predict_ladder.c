// SPDX-License-Identifier: MIT
/*
 * predict_ladder.c - the round's ladder as the simulation ran it: every
 * segment of the primary path (the one that gives the round's verdict),
 * with the nominal time it passed each end. The lesson page draws its
 * what-if ladder from these, so its times are the model's own, not
 * positions laid out after the fact.
 *
 * A segment is kept when it leaves (client: mark_sent() in
 * predict_client.c; target: nt_ptx_target_segment()) and given its other
 * end when it arrives: at once without an RTT, or when its event off the
 * delay line runs (the event carries the segment's tag in its generation,
 * which only timers otherwise use).
 */
#include "predict_int.h"

static const char *const role_names[NT_PSEG_ROLE_COUNT] = {
	[NT_PSEG_HEADER] = "header", [NT_PSEG_COALESCED] = "header+body",
	[NT_PSEG_BODY] = "body",     [NT_PSEG_PART_ACK] = "ACK",
	[NT_PSEG_ACK] = "ACK",	     [NT_PSEG_BODY_ACK] = "ACK",
	[NT_PSEG_REPLY] = "reply",
};

const char *nt_predict_seg_role_name(enum nt_predict_seg_role role)
{
	return (unsigned)role < NT_PSEG_ROLE_COUNT ? role_names[role] : "?";
}

int64_t nt_psim_ladder_at(const struct nt_psim *s)
{
	int64_t lo, nom, hi;

	nt_pt_abs(s, s->now, &lo, &nom, &hi);
	return nom;
}

/* Keep one segment leaving now; Return: its tag (index + 1), 0 when not kept. */
static uint32_t keep(struct nt_psim *s, bool c2t, enum nt_predict_seg_role role, bool first,
		     uint32_t bytes)
{
	struct nt_predict_round *r = s->out;
	int64_t t = nt_psim_ladder_at(s);

	if (!r)
		return 0;
	/* The last place is the reply's: a long body never pushes it off the ladder. */
	if (r->n_ladder >= NT_PREDICT_LADDER_MAX - (role != NT_PSEG_REPLY)) {
		r->ladder_dropped++;
		return 0;
	}
	/* Until it arrives, both ends at the time it left. */
	r->ladder[r->n_ladder] = (struct nt_predict_seg){
		.client_ns = t,
		.target_ns = t,
		.bytes = bytes,
		.role = (uint8_t)role,
		.c2t = c2t,
		.first = first,
	};
	return ++r->n_ladder;
}

uint32_t nt_psim_ladder_client(struct nt_psim *s, const struct nt_pseg *seg, bool has_h, bool has_b)
{
	enum nt_predict_seg_role role = has_h && has_b		 ? NT_PSEG_COALESCED
					: seg->start < s->header ? NT_PSEG_HEADER
								 : NT_PSEG_BODY;
	/* Called before mark_sent() sets H and B: the first segment with each is it. */
	bool first = role == NT_PSEG_BODY ? has_b && !s->b.seen : has_h && !s->h.seen;

	return keep(s, true, role, first, seg->len);
}

/* Whether the ladder already has a target segment of @role (@first: the first of its kind). */
static bool kept(const struct nt_predict_round *r, enum nt_predict_seg_role role, bool first)
{
	for (unsigned i = 0; i < r->n_ladder; i++)
		if (r->ladder[i].role == role && (!first || r->ladder[i].first))
			return true;
	return false;
}

/*
 * The target's segments as nt_prx_send_ack() and nt_prx_reply() name
 * them: an ACK short of the header's end is a part ACK, the first to
 * cover it is A (on the reply, when it rode there), any later one an ACK
 * of the body.
 */
uint32_t nt_psim_ladder_target(struct nt_psim *s, uint32_t ack, uint32_t reply_bytes)
{
	const struct nt_predict_round *r = s->out;
	bool a_seen;

	if (!r)
		return 0;
	a_seen = kept(r, NT_PSEG_ACK, false) || kept(r, NT_PSEG_REPLY, true);
	if (reply_bytes)
		return keep(s, false, NT_PSEG_REPLY, !a_seen && ack >= s->header, reply_bytes);
	if (ack < s->header)
		return keep(s, false, NT_PSEG_PART_ACK, false, 0);
	if (!a_seen)
		return keep(s, false, NT_PSEG_ACK, true, 0);
	return keep(s, false, NT_PSEG_BODY_ACK, !kept(r, NT_PSEG_BODY_ACK, false), 0);
}

void nt_psim_ladder_arrive(struct nt_psim *s, uint32_t tag)
{
	struct nt_predict_seg *g;

	if (!s->out || !tag || tag > s->out->n_ladder)
		return;
	g = &s->out->ladder[tag - 1];
	if (g->c2t)
		g->target_ns = nt_psim_ladder_at(s);
	else
		g->client_ns = nt_psim_ladder_at(s);
}

const struct nt_predict_why *nt_predict_seg_why(const struct nt_predict_round *r,
						const struct nt_predict_seg *g)
{
	const struct nt_predict_why *w = NULL;

	switch ((enum nt_predict_seg_role)g->role) {
	case NT_PSEG_HEADER:
	case NT_PSEG_COALESCED:
		w = g->first ? &r->header : NULL;
		break;
	case NT_PSEG_BODY:
		w = !g->first ? NULL : r->body_held ? &r->release : &r->body;
		break;
	case NT_PSEG_PART_ACK:
		w = &r->part_ack;
		break;
	case NT_PSEG_ACK:
		w = &r->ack;
		break;
	case NT_PSEG_BODY_ACK:
		w = g->first ? &r->body_ack : &r->later_ack;
		break;
	case NT_PSEG_REPLY:
		w = &r->reply;
		break;
	case NT_PSEG_ROLE_COUNT:
		break;
	}
	return w && w->rule != NT_RULE_NONE ? w : NULL;
}
