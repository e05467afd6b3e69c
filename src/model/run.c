// SPDX-License-Identifier: MIT
/*
 * run.c - from a complete timeline to rounds, summary and expectation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nt/model/run.h"

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
	ret = nt_rounds_summarize(run->rounds, shape->rounds, &run->summary);
	if (ret < 0)
		return ret;

	run->uncertain = run->counts.kernel_dropped > 0 || run->counts.if_dropped > 0;
	run->expectation_met = nt_expect_check(run->cfg.expect, run->rounds, shape->rounds,
					       run->expectation_reason,
					       sizeof(run->expectation_reason));
	if (run->expectation_met && run->uncertain) {
		/* Lost frames can turn any verdict: never present it as certain. */
		run->expectation_met = false;
		snprintf(run->expectation_reason, sizeof(run->expectation_reason),
			 "the capture dropped %llu frames: verdicts are uncertain",
			 (unsigned long long)(run->counts.kernel_dropped + run->counts.if_dropped));
	}
	if (run->expectation_met && run->interrupted) {
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
}
