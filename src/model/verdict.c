// SPDX-License-Identifier: MIT
/*
 * verdict.c - the causal rule (see nt/model/verdict.h for the definitions).
 */

#include "nt/model/rounds.h"
#include "nt/model/verdict.h"
#include "nt/unknown.h"

bool nt_verdict_by_order(const struct nt_verdict_marks *m, enum nt_verdict *out)
{
	if (m->h < 0 || m->b < 0)
		*out = NT_VERDICT_INCOMPLETE;
	else if (m->h == m->b)
		*out = NT_VERDICT_COALESCED;
	/* No acknowledgment of the header before the body left: nothing held it. */
	else if (m->a < 0 || m->b < m->a)
		*out = NT_VERDICT_UNHELD;
	/*
	 * A reply (or other data) acknowledging the header before the body left
	 * does not fit a request/response exchange: say so rather than guess.
	 */
	else if (!m->a_is_pure_ack)
		*out = NT_VERDICT_INCOMPLETE;
	else
		return false;
	return true;
}

enum nt_verdict nt_verdict_by_gap(const struct nt_verdict_marks *m, bool slow)
{
	if (!slow)
		return NT_VERDICT_HELD;
	/*
	 * A slow ACK is a Nagle stall only if the body was waiting for it.
	 * When write(body) returned after the ACK had arrived, the wait was
	 * the application's (a gap between its writes). The timeline orders
	 * H, A and B itself, so a body of unknown write has no window to keep
	 * (the rounds of one call are coalesced, never here).
	 */
	if (!nt_verdict_waited(m->write_body_ns, m->a_ns, m->b_ns - m->a_ns, INT64_MAX))
		return NT_VERDICT_UNHELD;
	return NT_VERDICT_STALLED;
}

enum nt_verdict nt_verdict_rule(const struct nt_verdict_marks *m, int64_t threshold_ns)
{
	enum nt_verdict v;

	if (nt_verdict_by_order(m, &v))
		return v;
	return nt_verdict_by_gap(
		m, nt_verdict_ack_slow(m->h_ns, m->a_ns, m->path_late_ns, threshold_ns));
}

void nt_verdict_round(struct nt_round *r, int64_t threshold_ns)
{
	const struct nt_verdict_marks *m = &r->marks;

	if (nt_known(r->start_ns) && nt_known(r->end_ns))
		r->rtt_ns = r->end_ns - r->start_ns;
	if (m->h >= 0 && m->a >= 0)
		r->gap_ns = m->a_ns - m->h_ns;
	if (m->a >= 0 && m->b > m->a)
		r->release_ns = m->b_ns - m->a_ns;
	r->body_written_after_ack = m->a >= 0 && nt_known(m->write_body_ns) &&
				    m->write_body_ns > m->a_ns;
	r->verdict = nt_verdict_rule(m, threshold_ns);
}

static const char *const verdict_names[NT_VERDICT_COUNT] = {
	[NT_VERDICT_INCOMPLETE] = "incomplete", [NT_VERDICT_COALESCED] = "coalesced",
	[NT_VERDICT_UNHELD] = "unheld",		[NT_VERDICT_HELD] = "held",
	[NT_VERDICT_STALLED] = "stalled",
};

const char *nt_verdict_name(enum nt_verdict v)
{
	if ((unsigned)v >= NT_VERDICT_COUNT)
		return "incomplete";
	return verdict_names[v];
}
