// SPDX-License-Identifier: MIT
/*
 * run.c - from a complete timeline to rounds, summary and expectation.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/run.h"

/*
 * The rounds to report: all of them, but for an interrupted run only those
 * that began (any event assigned), so a stopped run is not padded with
 * rounds that never happened.
 */
static unsigned rounds_run(const struct nt_run *run)
{
	int last = 0;

	if (!run->interrupted)
		return run->cfg.shape.rounds;
	for (size_t i = 0; i < run->tl.n; i++)
		if (run->tl.ev[i].round > last)
			last = run->tl.ev[i].round;
	return (unsigned)last;
}

/* Group slot of a round: handshake 0, rounds 1..N, teardown N + 1; -1 for unassigned events. */
static long group_of(int round, unsigned rounds)
{
	if (round == NT_ROUND_TEARDOWN)
		return (long)rounds + 1;
	if (round >= 0 && (unsigned)round <= rounds)
		return round;
	return -1;
}

/* A counting sort of event indices by round: O(events + rounds). */
static int index_by_round(struct nt_run *run)
{
	unsigned rounds = run->cfg.shape.rounds;
	size_t groups = (size_t)rounds + 2;
	size_t *start = calloc(groups + 1, sizeof(*start));
	size_t *idx = calloc(run->tl.n ? run->tl.n : 1, sizeof(*idx));

	if (!start || !idx) {
		free(start);
		free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < run->tl.n; i++) {
		long g = group_of(run->tl.ev[i].round, rounds);

		if (g >= 0)
			start[g + 1]++;
	}
	for (size_t g = 0; g < groups; g++)
		start[g + 1] += start[g];
	/* start[g] serves as group g's write cursor; it ends where group g + 1 begins. */
	for (size_t i = 0; i < run->tl.n; i++) {
		long g = group_of(run->tl.ev[i].round, rounds);

		if (g >= 0)
			idx[start[g]++] = i;
	}
	memmove(start + 1, start, groups * sizeof(*start));
	start[0] = 0;
	free(run->by_round);
	free(run->by_round_start);
	run->by_round = idx;
	run->by_round_start = start;
	return 0;
}

const size_t *nt_run_events_of(const struct nt_run *run, int round, size_t *n)
{
	long g = group_of(round, run->cfg.shape.rounds);

	*n = 0;
	if (g < 0 || !run->by_round_start)
		return NULL;
	*n = run->by_round_start[g + 1] - run->by_round_start[g];
	return *n ? run->by_round + run->by_round_start[g] : NULL;
}

int nt_run_finish(struct nt_run *run)
{
	const struct nt_shape *shape = &run->cfg.shape;
	int ret;

	free(run->rounds);
	run->rounds = calloc(shape->rounds ? shape->rounds : 1, sizeof(*run->rounds));
	if (!run->rounds)
		return -ENOMEM;
	nt_rounds_assign(&run->tl, shape);
	ret = index_by_round(run);
	if (ret < 0)
		return ret;
	nt_rounds_assemble(&run->tl, shape, run->cfg.threshold_ns, run->rounds);
	ret = nt_rounds_summarize(run->rounds, rounds_run(run), &run->summary);
	if (ret < 0)
		return ret;

	run->uncertain = run->counts.kernel_dropped > 0 || run->counts.if_dropped > 0;
	run->expectation_met = nt_expect_check(run->cfg.expect, run->rounds, run->summary.rounds,
					       run->expectation_reason,
					       sizeof(run->expectation_reason));
	if (run->uncertain) {
		uint64_t lost = run->counts.kernel_dropped + run->counts.if_dropped;

		/* Lost frames can turn any verdict: never present it as certain. */
		run->expectation_met = false;
		snprintf(run->expectation_reason, sizeof(run->expectation_reason),
			 "the capture dropped %" PRIu64 " frame%s: verdicts are uncertain", lost,
			 lost == 1 ? "" : "s");
	}
	if (run->interrupted) {
		run->expectation_met = false;
		snprintf(run->expectation_reason, sizeof(run->expectation_reason),
			 "the run was interrupted");
	}
	return 0;
}

void nt_run_fini(struct nt_run *run)
{
	free(run->by_round);
	free(run->by_round_start);
	run->by_round = run->by_round_start = NULL;
	nt_timeline_fini(&run->tl);
	free(run->rounds);
	run->rounds = NULL;
	free(run->evidence.rounds);
	run->evidence.rounds = NULL;
	run->evidence.n_rounds = 0;
}
