/* SPDX-License-Identifier: MIT */
/*
 * expect.h - what a live run is expected to show, checked round by round as
 * rounds are retired; it decides the exit status.
 */
#ifndef NT_MODEL_EXPECT_H
#define NT_MODEL_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/model/predict.h"
#include "nt/model/rounds.h"

/*
 * What the exit status checks. NT_EXPECT_AUTO (the default): every round's
 * verdict is one the model of the kernel's decisions (nt/model/predict.h)
 * accepts for it. NT_EXPECT_STALLED: round 1 not stalled, later rounds
 * stalled; the others: rounds 2..N all have that verdict.
 */
enum nt_expect {
	NT_EXPECT_AUTO = 0,
	NT_EXPECT_STALLED,
	NT_EXPECT_HELD,
	NT_EXPECT_UNHELD,
	NT_EXPECT_COALESCED,
	NT_EXPECT_ANY,
	NT_EXPECT_COUNT,
};

/**
 * nt_expect_parse() - an expectation from its name
 * @name: "auto", "stalled", "held", "unheld", "coalesced" or "any"
 * @out: set on success
 *
 * Return: 0 or -EINVAL.
 */
int nt_expect_parse(const char *name, enum nt_expect *out);

/** nt_expect_name() - the expectation's name */
const char *nt_expect_name(enum nt_expect e);

/**
 * enum nt_expect_miss - why a live run's expectation did not hold: a fact
 * the renderers word (nt_label_expectation())
 * @NT_EXPECT_MISS_NONE: it held
 * @NT_EXPECT_MISS_UNPREDICTED: auto: round @round has no prediction to check
 * @NT_EXPECT_MISS_PREDICTED: auto: round @round was @measured, the model
 *                            predicted @wanted by @rule
 * @NT_EXPECT_MISS_FIRST: stalled: round 1 was @measured, not a fast first round
 * @NT_EXPECT_MISS_VERDICT: round @round was @measured, expected @wanted
 * @NT_EXPECT_MISS_CAPTURE_DROPS: the capture dropped @frames: verdicts are uncertain
 * @NT_EXPECT_MISS_WIRE_DROPS: the delay line dropped @frames: likewise
 * @NT_EXPECT_MISS_INTERRUPTED: the run was interrupted
 */
enum nt_expect_miss {
	NT_EXPECT_MISS_NONE = 0,
	NT_EXPECT_MISS_UNPREDICTED,
	NT_EXPECT_MISS_PREDICTED,
	NT_EXPECT_MISS_FIRST,
	NT_EXPECT_MISS_VERDICT,
	NT_EXPECT_MISS_CAPTURE_DROPS,
	NT_EXPECT_MISS_WIRE_DROPS,
	NT_EXPECT_MISS_INTERRUPTED,
};

/**
 * struct nt_expect_why - why an expectation did not hold, as facts
 * @miss: which case (NT_EXPECT_MISS_NONE: it held; the rest is unset)
 * @round: the round, from 1
 * @measured: its verdict
 * @wanted: the verdict expected or predicted
 * @rule: the model's rule for @wanted (NT_EXPECT_MISS_PREDICTED)
 * @frames: frames dropped (the _DROPS cases)
 */
struct nt_expect_why {
	enum nt_expect_miss miss;
	unsigned round;
	enum nt_verdict measured;
	enum nt_verdict wanted;
	enum nt_predict_rule rule;
	uint64_t frames;
};

/**
 * nt_expect_round() - whether one round meets the expectation
 * @e: the expectation. auto: @r's verdict is one @predicted accepts, on
 *     every round. The named verdicts are checked on rounds 2..N (round 1
 *     runs in quick-ACK mode, tcp_event_data_recv()): every one has that
 *     verdict; for stalled, round 1 must also not be stalled. any: always met
 * @r: the round (its @index says whether it is round 1)
 * @predicted: the model's prediction for @r, NULL when there is none (auto
 *             then fails: nothing was checked)
 * @why: set to why not, when not
 *
 * Return: whether the round meets the expectation.
 */
bool nt_expect_round(enum nt_expect e, const struct nt_round *r,
		     const struct nt_predict_round *predicted, struct nt_expect_why *why);

#endif
