// SPDX-License-Identifier: MIT
/*
 * predict_clock.c - the simulation's clock, its choices and its event queue
 * (see predict_int.h).
 *
 * Jiffies: the kernel compares times in jiffies (tcp_jiffies32), so what
 * matters about an interval is how many ticks it spans, which depends on
 * where in a jiffy it starts. An instant right after a timer fired is known
 * to sit just after a tick (the timer softirq runs on the tick); elsewhere
 * the position is tracked while it stays narrower than a jiffy, and
 * otherwise it is unknown, and a comparison whose outcome depends on it
 * becomes a choice.
 */
#include <string.h>

#include "predict_int.h"

static int64_t jiffy(const struct nt_psim *s)
{
	return s->kern->jiffy_ns;
}

/* floor() for signed nanoseconds over a positive divisor. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

void nt_psim_clock_init(struct nt_psim *s, bool ph_known, int64_t ph_lo, int64_t ph_hi)
{
	s->n_anc = 1;
	s->anc[0] = (struct nt_panchor){
		.parent = -1,
		.ph_known = ph_known,
		.ph_lo = ph_lo,
		.ph_hi = ph_hi,
	};
	s->n_ev = 0;
	s->seq = 0;
	s->now = (struct nt_ptime){ 0 };
}

int64_t nt_psim_wake_nominal(const struct nt_psim *s)
{
	return s->k->wake_slack_ns < NT_PSIM_WAKE_NOMINAL_NS ? s->k->wake_slack_ns
							     : NT_PSIM_WAKE_NOMINAL_NS;
}

struct nt_ptime nt_pt_add(struct nt_ptime t, int64_t lo, int64_t nom, int64_t hi)
{
	t.lo += lo;
	t.nom += nom;
	t.hi += hi;
	return t;
}

/* A phase window shifted into [0, J), or false when it spans a tick. */
static bool normalize_phase(const struct nt_psim *s, int64_t *lo, int64_t *hi)
{
	int64_t j = jiffy(s), k = floor_div(*lo, j);

	*lo -= k * j;
	*hi -= k * j;
	return *hi < j;
}

struct nt_ptime nt_pt_anchor(struct nt_psim *s, struct nt_ptime base, int64_t lo, int64_t nom,
			     int64_t hi, bool at_tick)
{
	struct nt_panchor *a, *p;

	/*
	 * The parent is an anchor that exists (base.a < n_anc), so every
	 * anchor's parent has a smaller index: the walks below are bounded by
	 * NT_PSIM_ANCHOR_MAX steps. A base outside the tree (never made by
	 * this file) is measured from the round's start rather than followed.
	 */
	if (base.a < 0 || base.a >= s->n_anc)
		base.a = 0;
	if (s->n_anc >= NT_PSIM_ANCHOR_MAX)
		return nt_pt_add(base, lo, nom, hi);
	a = &s->anc[s->n_anc];
	p = &s->anc[base.a];
	*a = (struct nt_panchor){
		.parent = base.a,
		.lo = base.lo + lo,
		.nom = base.nom + nom,
		.hi = base.hi + hi,
	};
	if (at_tick) {
		a->ph_known = true;
		a->ph_lo = 0;
		a->ph_hi = NT_PSIM_SOFTIRQ_NS;
	} else if (p->ph_known) {
		a->ph_lo = p->ph_lo + a->lo;
		a->ph_hi = p->ph_hi + a->hi;
		a->ph_known = normalize_phase(s, &a->ph_lo, &a->ph_hi);
	}
	return (struct nt_ptime){ .a = s->n_anc++ };
}

/*
 * @t's offsets summed along its anchors' path up to @stop, an ancestor of
 * t.a (0, the round's start, for an absolute time). Bounded: parent < a for
 * every anchor (nt_pt_anchor()), at most n_anc steps.
 */
static void path_sum(const struct nt_psim *s, struct nt_ptime t, int stop, int64_t *lo,
		     int64_t *nom, int64_t *hi)
{
	*lo = t.lo;
	*nom = t.nom;
	*hi = t.hi;
	for (int a = t.a; a > stop && a < s->n_anc; a = s->anc[a].parent) {
		*lo += s->anc[a].lo;
		*nom += s->anc[a].nom;
		*hi += s->anc[a].hi;
	}
}

void nt_pt_abs(const struct nt_psim *s, struct nt_ptime t, int64_t *lo, int64_t *nom, int64_t *hi)
{
	path_sum(s, t, 0, lo, nom, hi);
}

/* Whether @anc is @a or one of its ancestors. */
static bool is_ancestor(const struct nt_psim *s, int anc, int a)
{
	/* Bounded: parent < a for every anchor (nt_pt_anchor()), at most n_anc steps. */
	for (; a >= 0 && a < s->n_anc; a = s->anc[a].parent)
		if (a == anc)
			return true;
	return false;
}

void nt_pt_diff(const struct nt_psim *s, struct nt_ptime later, struct nt_ptime earlier,
		int64_t *lo, int64_t *nom, int64_t *hi)
{
	/* Only the waits between them count: from a common anchor, or else from the start. */
	int stop = is_ancestor(s, earlier.a, later.a) ? earlier.a : 0;
	int64_t llo, lnom, lhi, elo, enom, ehi;

	path_sum(s, later, stop, &llo, &lnom, &lhi);
	path_sum(s, earlier, stop, &elo, &enom, &ehi);
	*lo = llo - ehi;
	*nom = lnom - enom;
	*hi = lhi - elo;
}

bool nt_pt_phase(const struct nt_psim *s, struct nt_ptime t, int64_t *lo, int64_t *hi)
{
	const struct nt_panchor *a = &s->anc[t.a];

	if (!a->ph_known)
		return false;
	*lo = a->ph_lo + t.lo;
	*hi = a->ph_hi + t.hi;
	return normalize_phase(s, lo, hi);
}

void nt_pt_phase_or_any(const struct nt_psim *s, struct nt_ptime t, int64_t *lo, int64_t *nom,
			int64_t *hi)
{
	if (nt_pt_phase(s, t, lo, hi)) {
		*nom = (*lo + *hi) / 2;
		return;
	}
	*lo = 0;
	*hi = jiffy(s) - 1;
	*nom = NT_PSIM_PHASE_NOMINAL_NS < *hi ? NT_PSIM_PHASE_NOMINAL_NS : *hi / 2;
}

void nt_pt_jiffies(const struct nt_psim *s, struct nt_ptime earlier, struct nt_ptime later, int *lo,
		   int *nom, int *hi)
{
	int64_t j = jiffy(s), dlo, dnom, dhi, plo, pnom, phi;

	nt_pt_diff(s, later, earlier, &dlo, &dnom, &dhi);
	if (dlo < 0)
		dlo = 0;
	if (dnom < dlo)
		dnom = dlo;
	/* Work between the two instants takes time even when the model says 0. */
	dhi += NT_PSIM_PROC_NS;
	nt_pt_phase_or_any(s, earlier, &plo, &pnom, &phi);
	*lo = (int)floor_div(plo + dlo, j);
	*hi = (int)floor_div(phi + dhi, j);
	*nom = (int)floor_div(pnom + dnom, j);
	if (*nom < *lo)
		*nom = *lo;
	if (*nom > *hi)
		*nom = *hi;
}

/*
 * H, A and B seen settle the verdict: B carries the body's first byte, so
 * write(body) has begun by then and, A being seen, returns after it.
 */
bool nt_psim_marks_fixed(const struct nt_psim *s)
{
	return s->h.seen && s->a.seen && s->b.seen;
}

unsigned nt_psim_choose(struct nt_psim *s, unsigned n, enum nt_predict_rule rule)
{
	unsigned i = s->n_seen;

	if (n <= 1)
		return 0;
	/*
	 * Once H, A and B are on the timeline the verdict is settled; a window edge or an unknown budget then only moves an ACK,
	 * and so the budget: take the nominal outcome and widen the budget's
	 * range instead of doubling the paths.
	 */
	if ((rule == NT_RULE_WINDOW_EDGE || rule == NT_RULE_BUDGET_UNKNOWN) &&
	    nt_psim_marks_fixed(s)) {
		s->fuzzy++;
		return 0;
	}
	if (i >= NT_PSIM_CHOICE_MAX) {
		s->overflow = true;
		return 0;
	}
	s->arity[i] = (uint8_t)(n > 255 ? 255 : n);
	s->branch_rule[i] = rule;
	s->n_seen++;
	return i < s->n_forced && s->forced[i] < s->arity[i] ? s->forced[i] : 0;
}

/*
 * A jiffy count that may take several values: the nominal one, else each
 * other. A spread of more than three values is explored at its nominal value
 * and both ends only: the rules compare counts against limits, so the ends
 * reach every outcome a value in between would, and the path count stays
 * bounded.
 */
int nt_psim_pick(struct nt_psim *s, int lo, int nom, int hi, enum nt_predict_rule rule)
{
	int alt[2];
	unsigned n = 0, d;

	if (nom < lo || nom > hi)
		nom = lo;
	if (lo != nom)
		alt[n++] = lo;
	if (hi != nom)
		alt[n++] = hi;
	d = nt_psim_choose(s, n + 1, rule);
	return d == 0 ? nom : alt[d - 1];
}

static enum nt_pev_chan chan_of(enum nt_pev_kind kind)
{
	switch (kind) {
	case NT_PEV_CLIENT:
		return NT_PCH_CLIENT;
	case NT_PEV_C2T:
		return NT_PCH_C2T;
	case NT_PEV_T2C:
		return NT_PCH_T2C;
	case NT_PEV_READ:
	case NT_PEV_REPLY:
		return NT_PCH_SERVER;
	case NT_PEV_DELACK:
		return NT_PCH_TIMER;
	case NT_PEV_PROBE:
		return NT_PCH_PROBE;
	}
	return NT_PCH_CLIENT;
}

void nt_psim_post(struct nt_psim *s, enum nt_pev_kind kind, struct nt_ptime t, uint32_t x,
		  uint32_t y, bool flag, uint32_t gen)
{
	struct nt_pevent *e;

	if (s->n_ev >= NT_PSIM_EV_MAX) {
		s->overflow = true;
		return;
	}
	e = &s->ev[s->n_ev++];
	*e = (struct nt_pevent){
		.kind = (uint8_t)kind,
		.chan = (uint8_t)chan_of(kind),
		.seq = s->seq++,
		.gen = gen,
		.t = t,
		.x = x,
		.y = y,
		.psh = flag,
		.pure = flag,
	};
}

/* The oldest pending event of @i's channel: a channel keeps its order. */
static unsigned oldest_of_chan(const struct nt_psim *s, unsigned i)
{
	unsigned best = i;

	for (unsigned j = 0; j < s->n_ev; j++)
		if (s->ev[j].chan == s->ev[i].chan && s->ev[j].seq < s->ev[best].seq)
			best = j;
	return best;
}

/* The earliest event by nominal time; among one channel's events, the oldest. */
static unsigned earliest(const struct nt_psim *s)
{
	unsigned best = 0;
	int64_t best_nom = 0, lo, nom, hi;

	for (unsigned i = 0; i < s->n_ev; i++) {
		nt_pt_abs(s, s->ev[i].t, &lo, &nom, &hi);
		if (i == 0 || nom < best_nom ||
		    (nom == best_nom && s->ev[i].seq < s->ev[best].seq)) {
			best = i;
			best_nom = nom;
		}
	}
	return oldest_of_chan(s, best);
}

bool nt_psim_next(struct nt_psim *s, struct nt_pevent *out)
{
	unsigned best;

	if (s->n_ev == 0)
		return false;
	best = earliest(s);
	for (unsigned i = 0; i < s->n_ev; i++) {
		const struct nt_pevent *o = &s->ev[i], *b = &s->ev[best];
		int64_t lo, nom, hi;

		if (i == best || o->chan == b->chan)
			continue;
		nt_pt_diff(s, o->t, b->t, &lo, &nom, &hi);
		if (lo < 0 && hi > 0) {
			bool timer = b->kind == NT_PEV_DELACK || o->kind == NT_PEV_DELACK ||
				     b->kind == NT_PEV_PROBE || o->kind == NT_PEV_PROBE;

			if (nt_psim_choose(s, 2, timer ? NT_RULE_TIMER_RACE : NT_RULE_TIMING_RACE))
				best = oldest_of_chan(s, i);
			break;
		}
	}
	*out = s->ev[best];
	s->ev[best] = s->ev[--s->n_ev];
	s->now = out->t;
	return true;
}
