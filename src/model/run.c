// SPDX-License-Identifier: MIT
/*
 * run.c - from a complete timeline to rounds, summary and expectation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

int nt_run_finish(struct nt_run *run)
{
	const struct nt_shape *shape = &run->cfg.shape;
	int ret;

	free(run->rounds);
	run->rounds = calloc(shape->rounds ? shape->rounds : 1, sizeof(*run->rounds));
	if (!run->rounds)
		return -ENOMEM;
	nt_rounds_assign(&run->tl, shape);
	nt_rounds_assemble(&run->tl, shape, run->cfg.threshold_ns, run->rounds);
	ret = nt_rounds_summarize(run->rounds, rounds_run(run), &run->summary);
	if (ret < 0)
		return ret;

	run->uncertain = run->counts.kernel_dropped > 0 || run->counts.if_dropped > 0;
	run->expectation_met = nt_expect_check(run->cfg.expect, run->rounds, run->summary.rounds,
					       run->expectation_reason,
					       sizeof(run->expectation_reason));
	if (run->uncertain) {
		/* Lost frames can turn any verdict: never present it as certain. */
		run->expectation_met = false;
		snprintf(run->expectation_reason, sizeof(run->expectation_reason),
			 "the capture dropped %llu frame%s: verdicts are uncertain",
			 (unsigned long long)(run->counts.kernel_dropped + run->counts.if_dropped),
			 run->counts.kernel_dropped + run->counts.if_dropped == 1 ? "" : "s");
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
	nt_timeline_fini(&run->tl);
	free(run->rounds);
	run->rounds = NULL;
	free(run->evidence.rounds);
	run->evidence.rounds = NULL;
	run->evidence.n_rounds = 0;
}
