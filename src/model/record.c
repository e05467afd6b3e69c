// SPDX-License-Identifier: MIT
/*
 * record.c - from a window of events to retired rounds, the summary and the
 * expectation (see nt/model/record.h).
 *
 * A run hands each round to its sink once the round is final and forgets
 * its events, so a run of 100,000 rounds needs no more memory than one of
 * four, bar 8 bytes a round for exact round-trip percentiles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/record.h"
#include "nt/unknown.h"

int64_t nt_round_view_origin(const struct nt_round_view *rv)
{
	if (rv->round && nt_known(rv->round->start_ns))
		return rv->round->start_ns;
	return rv->n ? rv->ev[0].t_ns : NT_UNKNOWN;
}

static struct nt_round_evidence *evidence_of(struct nt_record *run, unsigned round)
{
	struct nt_record_evidence *e = &run->evidence;

	if (!e->rounds || !e->n_rounds || round < 1)
		return NULL;
	return &e->rounds[(round - 1) % e->n_rounds];
}

/*
 * Moves the window's events of @round, in order, to run->scratch (whose size
 * is returned, or -ENOMEM), leaving the window with the rest. Only the events
 * there now go: a segment of the round that comes later stays, and goes out
 * with the teardown rather than nowhere.
 */
static long take(struct nt_record *run, int round)
{
	size_t n = 0, keep = 0;

	/* Room for the whole window first, so nothing can fail halfway through. */
	if (run->tl.n > run->scratch_cap) {
		struct nt_event *ev = realloc(run->scratch, run->tl.n * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		run->scratch = ev;
		run->scratch_cap = run->tl.n;
	}
	for (size_t i = 0; i < run->tl.n; i++) {
		if (run->tl.ev[i].round == round)
			run->scratch[n++] = run->tl.ev[i];
		else
			run->tl.ev[keep++] = run->tl.ev[i];
	}
	run->tl.n = keep;
	return (long)n;
}

static int begin(struct nt_record *run, const struct nt_record_sink *sink)
{
	long n = take(run, NT_ROUND_HANDSHAKE);
	struct nt_round_view hs = { .ev = run->scratch, .n = n > 0 ? (size_t)n : 0 };

	if (n < 0)
		return (int)n;
	run->begun = true;
	run->first_start_ns = NT_UNKNOWN;
	run->prev_reply_read_ns = NT_UNKNOWN;
	nt_summary_acc_init(&run->acc);
	return sink && sink->begin ? sink->begin(sink->ctx, run, &hs) : 0;
}

int nt_record_predict(struct nt_record *run, const struct nt_predict_knobs *knobs,
		      struct nt_err *err)
{
	int ret = nt_predict_init(&run->predict, knobs, err);

	run->predicting = ret == 0;
	if (run->predicting)
		nt_predict_fix(knobs, &run->fix);
	return ret;
}

/* How late the delay line forwarded event @i, a segment: -1 when not known. */
static int64_t event_late_ns(const struct nt_record *run, long i)
{
	if (i < 0 || !run->segment_late || run->scratch[i].kind != NT_EVENT_SEGMENT)
		return -1;
	return run->segment_late(run->segment_late_ctx, &run->scratch[i].seg);
}

/*
 * How late, at most, the delay line forwarded a frame of this round: the
 * round's own segments as the forwarder measured each. A segment its log no
 * longer holds (a round of more than a few hundred) leaves the lateness
 * since the rounds were last handed over (run->path_late_ns), which counts
 * the next round's frames too.
 */
static int64_t round_path_late_ns(const struct nt_record *run, size_t n)
{
	int64_t late = -1;
	bool all = run->segment_late != NULL;

	for (size_t i = 0; i < n && all; i++) {
		int64_t l;

		if (run->scratch[i].kind != NT_EVENT_SEGMENT)
			continue;
		l = event_late_ns(run, (long)i);
		all = l >= 0;
		if (l > late)
			late = l;
	}
	return all ? late : run->path_late_ns;
}

/*
 * The model's round @k, or NULL when the run has no prediction or the model
 * predicted fewer rounds; checks @r against it and @re against its state.
 */
static const struct nt_predict_round *predict_one(struct nt_record *run, unsigned k,
						  const struct nt_round *r,
						  const struct nt_round_evidence *re, size_t n)
{
	struct nt_predict_round *p = &run->predicted;
	bool at_target = run->cfg.capture_at && strcmp(run->cfg.capture_at, "target") == 0;

	if (!run->predicting || run->predict.round + 1 != k)
		return NULL;
	/* The kernel's rules on what the programs did (nt_predict_observe()). */
	nt_record_observe_schedule(run->scratch, n, at_target ? 0 : run->cfg.rtt_ns / 2,
				   &run->prev_reply_read_ns, &run->sched);
	run->sched.path_late_ns = round_path_late_ns(run, n);
	run->sched.gap_late_ns = r->marks.path_late_ns;
	if (!at_target) {
		run->sched.h_late_ns = event_late_ns(run, r->marks.h);
		run->sched.a_late_ns = event_late_ns(run, r->marks.a);
	}
	nt_predict_observe(&run->predict, &run->sched);
	nt_predict_measured(&run->predict, r->verdict);
	nt_predict_measured_ack(&run->predict, r->gap_ns, r->marks.a_is_pure_ack);
	if (nt_predict_round(&run->predict, p) != 1)
		return NULL;
	/* The schedule's late parts, and a late timer, which only the round shows. */
	if (p->disturbed)
		run->disturbed_rounds++;
	if (!nt_predict_accepts(p, r->verdict) && r->verdict != NT_VERDICT_INCOMPLETE)
		run->predict_misses++;
	run->evidence_diff = (struct nt_predict_evidence_diff){ 0 };
	if (re && nt_predict_check_evidence(p, re, &run->evidence_diff) > 0)
		run->evidence_disagreements++;
	return p;
}

/*
 * A stall is the target holding its ACK: H -> A as captured, less the round
 * trip between the capture point and the target, which a prompt ACK takes
 * too (at the client, the whole path's RTT; at the target, none).
 */
static int64_t verdict_threshold_ns(const struct nt_record *run)
{
	const struct nt_record_config *c = &run->cfg;
	bool at_target = c->capture_at && strcmp(c->capture_at, "target") == 0;

	return c->threshold_ns + (at_target ? 0 : c->rtt_ns);
}

/*
 * The part of H -> A the delay line's lateness explains (nt_verdict_marks):
 * at the client, H crossed it to the target and A crossed it back, so the
 * gap holds both segments' lateness, as the forwarder measured each. At the
 * target, H is captured after the delay line and A before it: none.
 */
static int64_t verdict_path_late_ns(const struct nt_record *run, struct nt_round *r)
{
	const struct nt_record_config *c = &run->cfg;
	bool at_target = c->capture_at && strcmp(c->capture_at, "target") == 0;
	const long marks[] = { r->marks.h, r->marks.a };
	int64_t *each[] = { &r->marks.h_late_ns, &r->marks.a_late_ns };
	int64_t sum = 0;

	if (at_target || c->rtt_ns <= 0 || !run->segment_late)
		return 0;
	for (unsigned i = 0; i < 2; i++) {
		int64_t late;

		if (marks[i] < 0)
			continue;
		late = run->segment_late(run->segment_late_ctx, &run->scratch[marks[i]].seg);
		if (late > 0) {
			sum += late;
			*each[i] = late;
		}
	}
	return sum;
}

static int retire_one(struct nt_record *run, unsigned k, const struct nt_record_sink *sink)
{
	struct nt_round r;
	struct nt_round_evidence *re = evidence_of(run, k);
	const struct nt_predict_round *pred;
	long n = take(run, (int)k);
	int ret;

	if (n < 0)
		return (int)n;
	nt_rounds_assemble(run->scratch, (size_t)n, &run->cfg.shape, verdict_threshold_ns(run), k,
			   1, &r);
	/* A slow H -> A may be the delay line's: judged again less its measured lateness. */
	r.marks.path_late_ns = verdict_path_late_ns(run, &r);
	if (r.marks.path_late_ns)
		nt_verdict_round(&r, verdict_threshold_ns(run));
	if (k == 1)
		run->first_start_ns = r.start_ns;
	if (re)
		nt_round_evidence_complete(re);
	pred = predict_one(run, k, &r, re, (size_t)n);
	ret = nt_summary_acc_add(&run->acc, &r);
	if (ret < 0)
		return ret;
	if (!run->expect_failed &&
	    !nt_expect_round(run->cfg.expect, &r, pred, &run->expectation_why))
		run->expect_failed = true;
	run->retired = k;
	if (sink && sink->round) {
		struct nt_round_view rv = {
			.round = &r,
			.evidence = re,
			.predicted = pred,
			.evidence_diff = pred ? &run->evidence_diff : NULL,
			.ev = run->scratch,
			.n = (size_t)n,
		};

		ret = sink->round(sink->ctx, run, &rv);
	}
	/* A ring entry serves a later round next. */
	if (re && run->evidence.n_rounds < run->cfg.shape.rounds)
		nt_round_evidence_reset(re);
	return ret;
}

int nt_record_retire(struct nt_record *run, unsigned upto, const struct nt_record_sink *sink)
{
	int ret = 0;

	if (upto > run->cfg.shape.rounds)
		upto = run->cfg.shape.rounds;
	nt_rounds_classify(run->tl.ev, run->tl.n, &run->cfg.shape, &run->fin_seen);
	if (!run->begun)
		ret = begin(run, sink);
	while (!ret && run->retired < upto)
		ret = retire_one(run, run->retired + 1, sink);
	return ret;
}

/*
 * The rounds to report: all of them, but for an interrupted run only those
 * that began (any event assigned), so a stopped run is not padded with
 * rounds that never happened.
 */
static unsigned rounds_run(const struct nt_record *run)
{
	unsigned last = run->retired;

	if (!run->interrupted)
		return run->cfg.shape.rounds;
	for (size_t i = 0; i < run->tl.n; i++)
		if (run->tl.ev[i].round > (int)last)
			last = (unsigned)run->tl.ev[i].round;
	return last;
}

static void check_expectation(struct nt_record *run)
{
	struct nt_expect_why *why = &run->expectation_why;

	run->uncertain = run->counts.kernel_dropped > 0 || run->counts.if_dropped > 0;
	run->expectation_met = !run->expect_failed;
	if (run->expectation_met)
		*why = (struct nt_expect_why){ .miss = NT_EXPECT_MISS_NONE };
	if (run->uncertain) {
		/* Lost frames can turn any verdict: never present it as certain. */
		run->expectation_met = false;
		*why = (struct nt_expect_why){
			.miss = NT_EXPECT_MISS_CAPTURE_DROPS,
			.frames = run->counts.kernel_dropped + run->counts.if_dropped,
		};
	} else if (run->counts.wire_dropped > 0) {
		/* A frame the delay line lost was never delivered: TCP retransmits, times move. */
		run->uncertain = true;
		run->expectation_met = false;
		*why = (struct nt_expect_why){ .miss = NT_EXPECT_MISS_WIRE_DROPS,
					       .frames = run->counts.wire_dropped };
	}
	if (run->interrupted) {
		run->expectation_met = false;
		*why = (struct nt_expect_why){ .miss = NT_EXPECT_MISS_INTERRUPTED };
	}
}

int nt_record_finish(struct nt_record *run, const struct nt_record_sink *sink)
{
	struct nt_round_view td;
	int ret;

	if (run->finished)
		return -EALREADY;
	run->finished = true;
	nt_rounds_classify(run->tl.ev, run->tl.n, &run->cfg.shape, &run->fin_seen);
	ret = nt_record_retire(run, rounds_run(run), sink);
	if (ret < 0)
		return ret;
	nt_summary_acc_close(&run->acc, &run->summary);
	check_expectation(run);
	/* What is left: the teardown, and anything that came after its round was handed over. */
	td = (struct nt_round_view){ .ev = run->tl.ev, .n = run->tl.n };
	if (sink && sink->end)
		ret = sink->end(sink->ctx, run, &td);
	nt_timeline_fini(&run->tl);
	return ret;
}

void nt_record_fini(struct nt_record *run)
{
	nt_timeline_fini(&run->tl);
	nt_summary_acc_fini(&run->acc);
	free(run->scratch);
	run->scratch = NULL;
	run->scratch_cap = 0;
	free(run->evidence.rounds);
	run->evidence.rounds = NULL;
	run->evidence.n_rounds = 0;
}
