// SPDX-License-Identifier: MIT
/*
 * pick.c - what a document shows when it shows one thing (see
 * nt/render/pick.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/render/pick.h"

int nt_pick_offer(struct nt_pick *p, const struct nt_round_view *rv)
{
	if (p->set && p->round.verdict == NT_VERDICT_STALLED)
		return 0;
	if (rv->n > p->cap) {
		struct nt_event *ev = realloc(p->ev, rv->n * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		p->ev = ev;
		p->cap = rv->n;
	}
	if (rv->n)
		memcpy(p->ev, rv->ev, rv->n * sizeof(*p->ev));
	p->n = rv->n;
	p->round = *rv->round;
	p->has_evidence = rv->evidence != NULL;
	if (rv->evidence)
		p->evidence = *rv->evidence;
	p->disturbed[0] = '\0';
	if (rv->predicted && rv->predicted->disturbed)
		snprintf(p->disturbed, sizeof(p->disturbed), "%s", rv->predicted->disturbed_text);
	p->set = true;
	return 0;
}

bool nt_pick_get(const struct nt_pick *p, struct nt_round_view *out)
{
	if (!p->set)
		return false;
	*out = (struct nt_round_view){ .round = &p->round,
				       .evidence = p->has_evidence ? &p->evidence : NULL,
				       .ev = p->ev,
				       .n = p->n };
	return true;
}

void nt_pick_fini(struct nt_pick *p)
{
	free(p->ev);
	memset(p, 0, sizeof(*p));
}

struct nt_pick *nt_picks_new(unsigned n)
{
	return calloc(n ? n : 1, sizeof(struct nt_pick));
}

int nt_picks_offer(struct nt_pick *picks, unsigned n, unsigned run, const struct nt_round_view *rv)
{
	if (run >= n)
		return -EINVAL;
	return nt_pick_offer(&picks[run], rv);
}

void nt_picks_free(struct nt_pick *picks, unsigned n)
{
	for (unsigned i = 0; picks && i < n; i++)
		nt_pick_fini(&picks[i]);
	free(picks);
}

unsigned nt_pick_first_stalling(const struct nt_record *runs, unsigned n_runs)
{
	for (unsigned i = 0; i < n_runs; i++)
		if (runs[i].summary.verdicts[NT_VERDICT_STALLED])
			return i;
	return 0;
}

int nt_pick_worst_flow(const struct nt_analysis *an)
{
	int worst = -1;

	for (size_t i = 0; i < an->n_flows; i++)
		if (worst < 0 || nt_analysis_worse(an->flows[i], an->flows[worst]))
			worst = (int)i;
	return worst;
}
