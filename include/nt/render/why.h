/* SPDX-License-Identifier: MIT */
/*
 * why.h - the model's decision behind an event of a round, for every format:
 * which of the predicted round's decisions (nt/model/predict.h) explains
 * the header, its ACK, the body and the reply on the wire.
 */
#ifndef NT_RENDER_WHY_H
#define NT_RENDER_WHY_H

#include <stddef.h>

#include "nt/model/record.h"

/* At most two decisions explain one event: the ACK's (delay, then what sent it), the body's. */
#define NT_WHY_MAX 2

/**
 * nt_why_event() - the model's decisions behind event @i of a round
 * @rv: the round, with its prediction (@rv->predicted NULL: none)
 * @i: index into @rv->ev
 * @out: filled with up to NT_WHY_MAX decisions, each with a rule
 *
 * H gets why it left when it did; A the target's decision on receiving H
 * and what actually sent A; B whether it was held and what released it; the
 * reply whether it moved the target into ping-pong mode.
 *
 * Return: how many were filled (0 for any other event, or no prediction).
 */
unsigned nt_why_event(const struct nt_round_view *rv, size_t i,
		      const struct nt_predict_why *out[NT_WHY_MAX]);

/**
 * nt_why_verdicts() - the verdicts a prediction accepts, "stalled" or
 * "stalled or held"
 * @p: the prediction
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_why_verdicts(const struct nt_predict_round *p, char *buf, size_t len);

/**
 * nt_why_model_line() - the run's model in one line: "3 of 4 rounds as
 * predicted (Linux 6.18, HZ 250 from /proc/config.gz)"
 * @run: a finished run
 * @buf: filled, "" when the run has no prediction
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_why_model_line(const struct nt_record *run, char *buf, size_t len);

#endif
