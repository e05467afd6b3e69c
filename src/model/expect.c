// SPDX-License-Identifier: MIT
/*
 * expect.c - the expectation a live run's rounds are checked against (see
 * nt/model/expect.h).
 */
#include <errno.h>
#include <string.h>

#include "nt/model/expect.h"

static const char *const expect_names[NT_EXPECT_COUNT] = {
	[NT_EXPECT_AUTO] = "auto",	     [NT_EXPECT_STALLED] = "stalled",
	[NT_EXPECT_HELD] = "held",	     [NT_EXPECT_UNHELD] = "unheld",
	[NT_EXPECT_COALESCED] = "coalesced", [NT_EXPECT_ANY] = "any",
};

int nt_expect_parse(const char *name, enum nt_expect *out)
{
	for (unsigned i = 0; i < NT_EXPECT_COUNT; i++) {
		if (strcmp(name, expect_names[i]) == 0) {
			*out = (enum nt_expect)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *nt_expect_name(enum nt_expect e)
{
	return (unsigned)e < NT_EXPECT_COUNT ? expect_names[e] : "?";
}

/* auto: the measured verdict is one the model accepts; else the predicted one and its rule. */
static bool expect_predicted(const struct nt_round *r, const struct nt_predict_round *p,
			     struct nt_expect_why *why)
{
	*why = (struct nt_expect_why){ .round = r->index, .measured = r->verdict };
	if (!p) {
		why->miss = NT_EXPECT_MISS_UNPREDICTED;
		return false;
	}
	if (nt_predict_accepts(p, r->verdict)) {
		why->miss = NT_EXPECT_MISS_NONE;
		return true;
	}
	why->miss = NT_EXPECT_MISS_PREDICTED;
	why->wanted = p->verdict;
	why->rule = p->verdict_why.rule;
	return false;
}

bool nt_expect_round(enum nt_expect e, const struct nt_round *r,
		     const struct nt_predict_round *predicted, struct nt_expect_why *why)
{
	static const enum nt_verdict wanted[] = {
		[NT_EXPECT_STALLED] = NT_VERDICT_STALLED,
		[NT_EXPECT_HELD] = NT_VERDICT_HELD,
		[NT_EXPECT_UNHELD] = NT_VERDICT_UNHELD,
		[NT_EXPECT_COALESCED] = NT_VERDICT_COALESCED,
	};
	enum nt_verdict v = r->verdict;

	if (e == NT_EXPECT_AUTO)
		return expect_predicted(r, predicted, why);
	*why = (struct nt_expect_why){ .round = r->index, .measured = v };
	if (e == NT_EXPECT_ANY)
		return true;
	if (r->index == 1) {
		/*
		 * Round 1 runs in quick-ACK mode (tcp_event_data_recv() grants
		 * the budget on a connection's first data): for a stall
		 * expectation it must not stall; otherwise it is the warm-up.
		 */
		if (e == NT_EXPECT_STALLED &&
		    (v == NT_VERDICT_STALLED || v == NT_VERDICT_INCOMPLETE)) {
			why->miss = NT_EXPECT_MISS_FIRST;
			return false;
		}
		return true;
	}
	if (v != wanted[e]) {
		why->miss = NT_EXPECT_MISS_VERDICT;
		why->wanted = wanted[e];
		return false;
	}
	return true;
}
