/* SPDX-License-Identifier: MIT */
/*
 * pick.h - what a document shows when it shows one thing: the round of a
 * live run (its first stalled round, else its last), the run of several
 * (the first that stalled), the flow of an analysis (the one that lost the
 * most time).
 */
#ifndef NT_RENDER_PICK_H
#define NT_RENDER_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "nt/model/analysis.h"
#include "nt/model/record.h"

/**
 * struct nt_pick - the round a document shows of a run: the first stalled
 * round, else the last; a copy, since the run forgets its rounds
 * @round: the round
 * @evidence: its evidence, when @has_evidence
 * @has_evidence: the run gathered evidence
 * @ev: its events
 * @n: how many
 * @cap: allocated entries in @ev
 * @set: a round was offered
 * @disturbed: the line naming the round disturbed (nt_predict_round), ""
 *             when it was not, or was not predicted
 */
struct nt_pick {
	struct nt_round round;
	struct nt_round_evidence evidence;
	bool has_evidence;
	struct nt_event *ev;
	size_t n;
	size_t cap;
	bool set;
	char disturbed[NT_PREDICT_TEXT_MAX];
};

/**
 * nt_pick_offer() - offer the next round of the run, in order
 * @p: the pick (zeroed at first)
 * @rv: the round
 *
 * Return: 0 or -ENOMEM.
 */
int nt_pick_offer(struct nt_pick *p, const struct nt_round_view *rv);

/**
 * nt_pick_get() - the picked round as a view into @p
 * @p: the pick
 * @out: filled
 *
 * Return: false when no round was offered.
 */
bool nt_pick_get(const struct nt_pick *p, struct nt_round_view *out);

/** nt_pick_fini() - free it; it is zeroed again */
void nt_pick_fini(struct nt_pick *p);

/*
 * One pick per run of a document (svg, markdown, html): _new() gives @n
 * zeroed picks (NULL without memory), _offer() offers a round of run @run
 * (-EINVAL past @n, -ENOMEM), _free() frees them; safe on NULL.
 */
struct nt_pick *nt_picks_new(unsigned n);
int nt_picks_offer(struct nt_pick *picks, unsigned n, unsigned run, const struct nt_round_view *rv);
void nt_picks_free(struct nt_pick *picks, unsigned n);

/**
 * nt_pick_first_stalling() - the run whose stall a document shows
 * @runs: the runs
 * @n_runs: how many
 *
 * Return: the index of the first run with a stalled round, else 0.
 */
unsigned nt_pick_first_stalling(const struct nt_record *runs, unsigned n_runs);

/**
 * nt_pick_worst_flow() - the flow an analyze document shows: the most
 * wall-clock time stalled, the earliest of equals (nt_analysis_worse(), the
 * rule by which the analysis keeps that one alone when asked to: NT_KEEP_WORST)
 * @an: a finished analysis
 *
 * Return: its index in @an->flows, or -1 when no flow stalled.
 */
int nt_pick_worst_flow(const struct nt_analysis *an);

#endif
