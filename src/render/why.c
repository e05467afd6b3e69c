// SPDX-License-Identifier: MIT
/*
 * why.c - which of the model's decisions explains an event (see
 * nt/render/why.h).
 */
#include <stdio.h>

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

unsigned nt_why_event(const struct nt_round_view *rv, size_t i,
		      const struct nt_predict_why *out[NT_WHY_MAX])
{
	const struct nt_predict_round *p = rv->predicted;
	const struct nt_round *r = rv->round;
	long at = (long)i;
	unsigned n = 0;

	if (!p || !r)
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
	return 0;
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

const char *nt_why_model_line(const struct nt_run *run, char *buf, size_t len)
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
