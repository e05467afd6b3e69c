// SPDX-License-Identifier: MIT
/*
 * test_predict.c - the kernel-decision model (nt/model/predict.h), one test
 * per rule on synthetic knobs and states, with the boundaries: 1447/1448-byte
 * bodies, headers of a full segment, the quick-ACK budget running out,
 * tcp_pingpong_thresh 1..4, a handler just under and over ato, a write gap
 * over the delayed-ACK time, a threshold above the stall, and kernel
 * releases before and after the rules changed.
 *
 * Each test runs the model round by round and asserts the verdicts, the
 * rules named for each decision and the target's state, so a change to a
 * rule shows up as the decision it changes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/predict.h"
#include "nt/model/predict_words.h"

#define MS     1000000LL
#define BIT(v) NT_PREDICT_VERDICT_BIT(v)

#define MAX_ROUNDS 24

struct run {
	struct nt_predict p;
	struct nt_predict_round r[MAX_ROUNDS];
	unsigned n;
};

static struct nt_predict_knobs knobs(void)
{
	struct nt_predict_knobs k;

	nt_predict_knobs_default(&k);
	return k;
}

/* Predict every round of @k (at most MAX_ROUNDS) into a heap-allocated run. */
static struct run *predict(const struct nt_predict_knobs *k)
{
	struct run *run = calloc(1, sizeof(*run));
	struct nt_err err = { { 0 } };

	assert_non_null(run);
	assert_int_equal(nt_predict_init(&run->p, k, &err), 0);
	while (run->n < MAX_ROUNDS && nt_predict_round(&run->p, &run->r[run->n]) == 1)
		run->n++;
	return run;
}

static const struct nt_predict_round *round_of(const struct run *run, unsigned index)
{
	assert_true(index >= 1 && index <= run->n);
	return &run->r[index - 1];
}

/* Round @index predicts exactly @v. */
static void expect_only(const struct run *run, unsigned index, enum nt_verdict v)
{
	const struct nt_predict_round *r = round_of(run, index);

	if (r->verdicts != BIT(v))
		print_error("round %u: verdicts %#x, expected only %s (%s)\n", index, r->verdicts,
			    nt_verdict_name(v), NT_PREDICT_WORDS(&r->uncertain));
	assert_int_equal(r->verdicts, BIT(v));
	assert_int_equal(r->verdict, v);
}

static void expect_rule(const struct nt_predict_why *w, enum nt_predict_rule rule)
{
	if (w->rule != rule)
		print_error("rule %s (%s), expected %s\n", nt_predict_rule_name(w->rule),
			    NT_PREDICT_WORDS(w), nt_predict_rule_name(rule));
	assert_int_equal(w->rule, rule);
}

/* what this checks: `uname -r` strings, and comparisons of releases */
static void test_kernel_version(void **state)
{
	struct nt_kernel_version v;

	(void)state;
	assert_int_equal(nt_kernel_version_parse("6.18.44-fc-v657", &v), 0);
	assert_int_equal(v.major, 6);
	assert_int_equal(v.minor, 18);
	assert_int_equal(v.patch, 44);
	assert_int_equal(nt_kernel_version_parse("5.15.0-91-generic", &v), 0);
	assert_int_equal(v.minor, 15);
	assert_int_equal(nt_kernel_version_parse("6.1", &v), 0);
	assert_int_equal(v.patch, 0);
	assert_int_equal(nt_kernel_version_parse("6.7-rc3", &v), 0);
	assert_int_equal(v.minor, 7);
	assert_int_equal(nt_kernel_version_parse("abc", &v), -EINVAL);
	assert_int_equal(nt_kernel_version_parse("6", &v), -EINVAL);
	assert_int_equal(nt_kernel_version_parse("", &v), -EINVAL);
	assert_int_equal(nt_kernel_version_parse(NULL, &v), -EINVAL);
	v = (struct nt_kernel_version){ 6, 6, 30 };
	assert_true(nt_kernel_version_at_least(&v, 6, 6));
	assert_false(nt_kernel_version_at_least(&v, 6, 7));
	assert_true(nt_kernel_version_at_least(&v, 5, 19));
	v = (struct nt_kernel_version){ 7, 0, 0 };
	assert_true(nt_kernel_version_at_least(&v, 6, 11));
}

/* what this checks: the constants and rule versions a release and HZ select */
static void test_kernel_constants(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct nt_predict_kernel kn;

	(void)state;
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.jiffy_ns, 4 * MS);
	assert_int_equal(kn.ato_min, 10); /* HZ/25 */
	assert_int_equal(kn.delack_min, 10);
	assert_int_equal(kn.delack_max, 49); /* >= 6.11: tcp_rto_min() - 1 */
	assert_int_equal(kn.mss, 1448);
	assert_int_equal(kn.advmss, 1460);
	assert_int_equal(kn.init_rcv_wnd, 65160);
	assert_true(kn.quick_counts_new_data);
	assert_true(kn.timer_round_up);
	k.ipv6 = true;
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.mss, 1428);
	k = knobs();
	k.hz = 1000;
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.ato_min, 40);
	assert_int_equal(kn.delack_max, 199);
	k.hz = 100;
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.ato_min, 4);
	k.hz = 64; /* below 100: a fixed 4 jiffies */
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.ato_min, 4);
}

/* what this checks: ping-pong thresholds by release; the sysctl counts from 6.7 */
static void test_pingpong_thresh_by_release(void **state)
{
	static const struct {
		unsigned major, minor, knob, want;
	} cases[] = {
		{ 4, 19, 0, 1 }, { 5, 4, 0, 3 }, { 5, 18, 2, 3 }, { 5, 19, 0, 1 },
		{ 6, 6, 2, 1 },	 { 6, 7, 0, 1 }, { 6, 7, 2, 2 },  { 6, 18, 4, 4 },
	};
	struct nt_predict_knobs k = knobs();
	struct nt_predict_kernel kn;

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		k.kernel = (struct nt_kernel_version){ cases[i].major, cases[i].minor, 0 };
		k.pingpong_thresh = cases[i].knob;
		nt_predict_kernel_init(&k, &kn);
		assert_int_equal(kn.pingpong_thresh, cases[i].want);
	}
}

/* what this checks: the delayed-ACK maximum follows rto_min from 6.7 (route) and 6.11 (all) */
static void test_delack_max_rto_min(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct nt_predict_kernel kn;

	(void)state;
	k.kernel = (struct nt_kernel_version){ 6, 6, 0 };
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.delack_max, 50);
	k.route_rto_min_ms = 5;
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.delack_max, 50); /* no coupling before 6.7 */
	k.kernel = (struct nt_kernel_version){ 6, 7, 0 };
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.rto_min, 2); /* 5 ms rounds up to 2 jiffies */
	assert_int_equal(kn.delack_max, 1);
	k.route_rto_min_ms = 0;
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.delack_max, 50); /* 6.7..6.10: only a route rto_min */
	k.kernel = (struct nt_kernel_version){ 6, 11, 0 };
	k.rto_min_us = 20000;
	nt_predict_kernel_init(&k, &kn);
	assert_int_equal(kn.delack_max, 4); /* tcp_rto_min_us 20 ms: 5 jiffies - 1 */
}

/* what this checks: the route's rto_min shortens the stall on 6.7 and later, not before */
static void test_rto_min_stall(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *old, *new;

	(void)state;
	k.rounds = 3;
	k.route_rto_min_ms = 5;
	k.threshold_ns = 1 * MS;
	k.kernel = (struct nt_kernel_version){ 6, 6, 0 };
	old = predict(&k);
	k.kernel = (struct nt_kernel_version){ 6, 7, 0 };
	new = predict(&k);
	expect_only(old, 2, NT_VERDICT_STALLED);
	expect_only(new, 2, NT_VERDICT_STALLED);
	assert_true(round_of(old, 2)->gap_min_ns >= 40 * MS);
	/* delack_max 1 jiffy: fires on the second or third tick */
	assert_true(round_of(new, 2)->gap_max_ns <= 12 * MS + 500000);
	assert_true(round_of(new, 2)->gap_min_ns >= 4 * MS);
	free(old);
	free(new);
}

/* what this checks: rule names are unique, snake_case, and say where they come from */
static void test_rule_names(void **state)
{
	(void)state;
	for (unsigned i = 0; i < NT_RULE_COUNT; i++) {
		const char *name = nt_predict_rule_name((enum nt_predict_rule)i);

		assert_string_not_equal(name, "?");
		for (const char *c = name; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
				    *c == '_');
		assert_true(strlen(nt_predict_rule_summary((enum nt_predict_rule)i)) > 0);
		for (unsigned j = 0; j < i; j++)
			assert_string_not_equal(name,
						nt_predict_rule_name((enum nt_predict_rule)j));
	}
	assert_string_equal(nt_predict_rule_name(NT_RULE_NAGLE_HOLD), "nagle_hold");
	assert_string_equal(nt_predict_rule_function(NT_RULE_NAGLE_HOLD), "tcp_minshall_check");
	assert_string_equal(nt_predict_rule_name(NT_RULE_COUNT), "?");
}

/* what this checks: bad knobs are refused with the knob's name */
static void test_init_refuses(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct nt_predict p;
	struct nt_err err = { { 0 } };

	(void)state;
	k.body_bytes = 0;
	assert_int_equal(nt_predict_init(&p, &k, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "body"));
	k = knobs();
	k.hz = 5;
	err.msg[0] = '\0';
	assert_int_equal(nt_predict_init(&p, &k, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "hz"));
	k = knobs();
	k.rounds = 0;
	assert_int_equal(nt_predict_init(&p, &k, &err), -EINVAL);
}

/*
 * what this checks: the default exchange: round 1 in quick-ACK mode, then
 * ping-pong, the delayed ACK, Minshall holding the body, the timer releasing
 * it, and the budget spending two a round
 */
static void test_default_stall(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;
	const struct nt_predict_round *r;

	(void)state;
	k.rounds = 12;
	run = predict(&k);
	r = round_of(run, 1);
	expect_only(run, 1, NT_VERDICT_HELD);
	expect_rule(&r->header, NT_RULE_NAGLE_IDLE);
	expect_rule(&r->header_ack, NT_RULE_QUICKACK_BUDGET);
	expect_rule(&r->reply, NT_RULE_PINGPONG_COUNT);
	assert_true(r->after.pingpong);
	r = round_of(run, 2);
	expect_only(run, 2, NT_VERDICT_STALLED);
	expect_rule(&r->header_ack, NT_RULE_DELAYED_PINGPONG);
	expect_rule(&r->ack, NT_RULE_DELACK_TIMER);
	expect_rule(&r->body, NT_RULE_NAGLE_HOLD);
	assert_non_null(strstr(NT_PREDICT_WORDS(&r->body), "13:17"));
	expect_rule(&r->release, NT_RULE_RELEASED_BY_ACK);
	expect_rule(&r->verdict_why, NT_RULE_VERDICT_STALL);
	assert_true(r->body_held);
	assert_int_equal(r->delayed_acks, 1);
	/* (ato + 1) jiffies - phase, plus a late tick: 40 to 48 ms */
	assert_true(r->gap_min_ns >= 40 * MS && r->gap_max_ns <= 49 * MS);
	assert_int_equal(r->client_data_segments, 2);
	/* The budget: 16 granted, two ACKs a round (header by timer, body at once). */
	for (unsigned i = 2; i <= 9; i++) {
		assert_int_equal(round_of(run, i)->at_header.quick, 16 - 2 * (i - 1));
		assert_true(round_of(run, i)->at_header.pingpong);
		assert_int_equal(round_of(run, i)->at_header.ato_ms, 40);
	}
	for (unsigned i = 2; i <= 12; i++)
		expect_only(run, i, NT_VERDICT_STALLED);
	free(run);
}

/*
 * what this checks: the round's ladder is the simulation's own: a stalled
 * round's H leaves at 0, A comes with the timer inside the H->A window the
 * model gives, the held body leaves with it after write(body) returned, and
 * the reply comes after; with an RTT each segment reaches the far end half
 * of it later, and the client waits past the ACK's round trip.
 */
static void test_ladder_times(void **state)
{
	struct nt_predict_knobs k = knobs();
	const struct nt_predict_round *r;
	const struct nt_predict_seg *g;
	struct run *run;

	(void)state;
	run = predict(&k);
	r = round_of(run, 2);
	assert_int_equal(r->n_ladder, 5);
	assert_int_equal(r->ladder_dropped, 0);
	g = r->ladder;
	assert_int_equal(g[0].role, NT_PSEG_HEADER);
	assert_true(g[0].c2t && g[0].first && g[0].client_ns == 0);
	assert_ptr_equal(nt_predict_seg_why(r, &g[0]), &r->header);
	assert_int_equal(g[1].role, NT_PSEG_ACK);
	assert_true(!g[1].c2t && g[1].first);
	assert_true(g[1].client_ns >= r->gap_min_ns && g[1].client_ns <= r->gap_max_ns);
	assert_ptr_equal(nt_predict_seg_why(r, &g[1]), &r->ack);
	assert_int_equal(g[2].role, NT_PSEG_BODY);
	assert_int_equal(g[2].client_ns, g[1].client_ns);
	assert_ptr_equal(nt_predict_seg_why(r, &g[2]), &r->release);
	assert_true(r->write_body_ns >= 0 && r->write_body_ns < g[2].client_ns);
	assert_int_equal(g[3].role, NT_PSEG_BODY_ACK);
	assert_int_equal(g[4].role, NT_PSEG_REPLY);
	assert_int_equal(r->reply_ns, g[4].client_ns);
	assert_true(r->reply_ns > g[2].client_ns);
	free(run);

	k.rtt_ns = 5 * MS;
	run = predict(&k);
	r = round_of(run, 1);
	for (unsigned i = 0; i < r->n_ladder; i++) {
		int64_t d = r->ladder[i].c2t ? r->ladder[i].target_ns - r->ladder[i].client_ns
					     : r->ladder[i].client_ns - r->ladder[i].target_ns;

		assert_true(d >= k.rtt_ns / 2 && d <= k.rtt_ns / 2 + MS / 5);
	}
	assert_true(r->reply_ns >= 2 * k.rtt_ns);
	free(run);
}

/* what this checks: a body of one byte under the MSS stalls; a full segment is never held */
static void test_body_mss_boundary(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;

	(void)state;
	k.rounds = 4;
	k.body_bytes = 1447;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_STALLED);
	free(run);
	k.body_bytes = 1448;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_UNHELD);
	expect_rule(&round_of(run, 2)->body, NT_RULE_FULL_SEGMENT);
	free(run);
	/* IPv6: the MSS is 1428 */
	k.ipv6 = true;
	k.body_bytes = 1427;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_STALLED);
	free(run);
	k.body_bytes = 1428;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_UNHELD);
	free(run);
}

/*
 * what this checks: a header of exactly one MSS leaves no small segment for
 * Minshall's check; one byte more does, but the second frame is ACKed at
 * once, inside write(header), so the body finds nothing in flight
 */
static void test_header_mss(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;
	const struct nt_predict_round *r;

	(void)state;
	k.rounds = 3;
	k.header_bytes = 1448;
	run = predict(&k);
	r = round_of(run, 2);
	expect_only(run, 2, NT_VERDICT_UNHELD);
	expect_rule(&r->header, NT_RULE_FULL_SEGMENT);
	expect_rule(&r->body, NT_RULE_MINSHALL_CLEAR);
	expect_rule(&r->header_ack, NT_RULE_DELAYED_PINGPONG);
	free(run);
	k.header_bytes = 1449;
	run = predict(&k);
	r = round_of(run, 2);
	expect_only(run, 2, NT_VERDICT_HELD);
	expect_rule(&r->header_ack, NT_RULE_TWO_FRAMES);
	expect_rule(&r->body, NT_RULE_NAGLE_IDLE);
	assert_int_equal(r->header_segments, 2);
	free(run);
	/* The same with an RTT: the ACK is still on its way when the body is written. */
	k.rtt_ns = 2 * MS;
	run = predict(&k);
	r = round_of(run, 2);
	expect_only(run, 2, NT_VERDICT_HELD);
	expect_rule(&r->body, NT_RULE_NAGLE_HOLD);
	expect_rule(&r->release, NT_RULE_RELEASED_BY_ACK);
	free(run);
}

/*
 * what this checks: a handler over ato keeps ping-pong off; the budget runs
 * 16 -> 0 two a round, then the ACK comes at the read (tcp_cleanup_rbuf())
 */
static void test_quick_budget_runs_out(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;

	(void)state;
	k.rounds = 11;
	k.handler_ns = 60 * MS;
	run = predict(&k);
	for (unsigned i = 1; i <= 8; i++) {
		expect_only(run, i, NT_VERDICT_HELD);
		expect_rule(&round_of(run, i)->header_ack, NT_RULE_QUICKACK_BUDGET);
		expect_rule(&round_of(run, i)->reply, NT_RULE_REPLY_AFTER_ATO);
	}
	assert_int_equal(round_of(run, 8)->after.quick, 0);
	for (unsigned i = 9; i <= 11; i++) {
		const struct nt_predict_round *r = round_of(run, i);

		expect_only(run, i, NT_VERDICT_HELD);
		expect_rule(&r->header_ack, NT_RULE_DELAYED_NO_BUDGET);
		expect_rule(&r->ack, NT_RULE_ACK_AT_READ);
		assert_false(r->at_header.pingpong);
	}
	free(run);
}

/* what this checks: the ping-pong sawtooth: with threshold n, rounds 1 + kn stall */
static void test_pingpong_sawtooth(void **state)
{
	struct nt_predict_knobs k = knobs();

	(void)state;
	k.rounds = 16;
	for (unsigned th = 1; th <= 4; th++) {
		struct run *run;

		k.pingpong_thresh = th;
		run = predict(&k);
		for (unsigned i = 1; i <= 16; i++)
			expect_only(run, i,
				    i > 1 && (i - 1) % th == 0 ? NT_VERDICT_STALLED
							       : NT_VERDICT_HELD);
		free(run);
	}
}

/* what this checks: a handler under ato enters ping-pong, over it does not, near it is a jiffy */
static void test_handler_vs_ato(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;
	const struct nt_predict_round *r;

	(void)state;
	k.rounds = 4;
	k.handler_ns = 30 * MS;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_STALLED);
	expect_only(run, 4, NT_VERDICT_STALLED);
	/*
	 * tcp_event_data_recv(): a 30 ms gap (7 jiffies, 8 when the handler's
	 * wake-up is late) makes ato 5 + 7 = 12 jiffies, or 13: the model says
	 * it cannot tell.
	 */
	r = round_of(run, 3);
	assert_true(r->at_header.ato_jiffies == 12 || r->at_header.ato_jiffies == 13);
	assert_false(r->at_header.certain);
	free(run);
	k.handler_ns = 41 * MS;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_HELD);
	expect_rule(&round_of(run, 1)->reply, NT_RULE_REPLY_AFTER_ATO);
	free(run);
	/* 38 ms: 9 or 10 jiffies depending on where round 1 falls in a jiffy. */
	k.handler_ns = 38 * MS;
	run = predict(&k);
	r = round_of(run, 2);
	assert_int_equal(r->verdicts, BIT(NT_VERDICT_HELD) | BIT(NT_VERDICT_STALLED));
	expect_rule(&r->uncertain, NT_RULE_JIFFY_BOUNDARY);
	free(run);
}

/* what this checks: a write gap longer than the delayed ACK: the body never waited */
static void test_write_gap(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;
	const struct nt_predict_round *r;

	(void)state;
	k.rounds = 3;
	k.write_gap_ns = 20 * MS;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_STALLED);
	free(run);
	k.write_gap_ns = 60 * MS;
	run = predict(&k);
	r = round_of(run, 2);
	expect_only(run, 2, NT_VERDICT_UNHELD);
	expect_rule(&r->verdict_why, NT_RULE_VERDICT_APP_GAP);
	expect_rule(&r->body, NT_RULE_NAGLE_IDLE);
	free(run);
	k.write_gap_ns = 42 * MS;
	run = predict(&k);
	r = round_of(run, 2);
	assert_int_equal(r->verdicts, BIT(NT_VERDICT_UNHELD) | BIT(NT_VERDICT_STALLED));
	expect_rule(&r->uncertain, NT_RULE_TIMER_RACE);
	free(run);
}

/* what this checks: a threshold above the stall makes it "held"; one inside it, either */
static void test_threshold(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;

	(void)state;
	k.rounds = 3;
	k.threshold_ns = 50 * MS;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_HELD);
	expect_rule(&round_of(run, 2)->verdict_why, NT_RULE_VERDICT_PROMPT_ACK);
	free(run);
	k.threshold_ns = 44 * MS;
	run = predict(&k);
	assert_int_equal(round_of(run, 3)->verdicts,
			 BIT(NT_VERDICT_HELD) | BIT(NT_VERDICT_STALLED));
	expect_rule(&round_of(run, 3)->uncertain, NT_RULE_THRESHOLD_EDGE);
	free(run);
}

/* what this checks: TCP_QUICKACK once fails after round 1, re-armed it holds; the route works */
static void test_quickack_fixes(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;

	(void)state;
	k.rounds = 10;
	k.server_quickack = NT_PREDICT_QUICKACK_ONCE;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_STALLED);
	free(run);
	k.server_quickack = NT_PREDICT_QUICKACK_REARM;
	run = predict(&k);
	for (unsigned i = 1; i <= 10; i++)
		expect_only(run, i, NT_VERDICT_HELD);
	expect_rule(&round_of(run, 2)->header_ack, NT_RULE_QUICKACK_BUDGET);
	assert_false(round_of(run, 2)->at_header.pingpong);
	/* The budget gone (two a round), the read ACKs: still a pure ACK before the reply. */
	expect_rule(&round_of(run, 10)->ack, NT_RULE_ACK_AT_READ);
	free(run);
	k.server_quickack = NT_PREDICT_QUICKACK_NEVER;
	k.route_quickack = true;
	run = predict(&k);
	expect_only(run, 10, NT_VERDICT_HELD);
	expect_rule(&round_of(run, 10)->header_ack, NT_RULE_ROUTE_QUICKACK);
	assert_true(round_of(run, 10)->at_header.pingpong);
	free(run);
}

/* what this checks: TCP_NODELAY on the wrong side, and autocorking off, change nothing */
static void test_non_fixes(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct nt_predict_why fix;
	struct run *run;

	(void)state;
	k.rounds = 3;
	k.server_nodelay = true;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_STALLED);
	free(run);
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_WRONG_SIDE);
	k.server_nodelay = false;
	k.client_autocork = false;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_STALLED);
	free(run);
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_AUTOCORK);
	k.client_autocork = true;
	k.client_nodelay = true;
	run = predict(&k);
	expect_only(run, 2, NT_VERDICT_UNHELD);
	expect_rule(&round_of(run, 2)->body, NT_RULE_NODELAY);
	expect_rule(&round_of(run, 2)->ack, NT_RULE_ACK_AT_READ_TWO_SMALL);
	free(run);
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_NODELAY);
}

/* what this checks: one write, writev, cork and MSG_MORE leave one segment, even after a gap */
static void test_coalescing(void **state)
{
	static const enum nt_predict_pattern patterns[] = { NT_PREDICT_ONE_WRITE, NT_PREDICT_WRITEV,
							    NT_PREDICT_CORK, NT_PREDICT_MSG_MORE };
	struct nt_predict_knobs k = knobs();
	struct nt_predict_why fix;

	(void)state;
	k.rounds = 3;
	for (unsigned i = 0; i < 4; i++) {
		struct run *run;

		k.pattern = patterns[i];
		k.write_gap_ns = i >= 2 ? 60 * MS : 0;
		run = predict(&k);
		for (unsigned r = 1; r <= 3; r++)
			expect_only(run, r, NT_VERDICT_COALESCED);
		assert_int_equal(round_of(run, 2)->client_data_segments, 1);
		nt_predict_fix(&k, &fix);
		expect_rule(&fix, NT_RULE_FIX_COALESCE);
		free(run);
	}
	k.pattern = NT_PREDICT_CORK;
	k.write_gap_ns = 0;
	k.header_bytes = 1448; /* the header fills a segment: the body rides alone */
	{
		struct run *run = predict(&k);

		expect_only(run, 2, NT_VERDICT_UNHELD);
		free(run);
	}
}

/* what this checks: a pause longer than the RTO re-grants the budget (tcp_incr_quickack()) */
static void test_pause_refills_budget(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;

	(void)state;
	k.rounds = 4;
	k.pause_ns = 300 * MS;
	run = predict(&k);
	for (unsigned i = 2; i <= 4; i++) {
		assert_int_equal(round_of(run, i)->at_header.quick, 16);
		expect_only(run, i, NT_VERDICT_STALLED); /* ping-pong still wins */
	}
	free(run);
}

/* what this checks: before 6.6 every segment sent spent the budget, the reply too */
static void test_old_quick_counting(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;

	(void)state;
	k.rounds = 2;
	k.kernel = (struct nt_kernel_version){ 6, 1, 0 };
	run = predict(&k);
	assert_int_equal(round_of(run, 2)->at_header.quick, 13);
	free(run);
	k.kernel = (struct nt_kernel_version){ 6, 6, 0 };
	run = predict(&k);
	assert_int_equal(round_of(run, 2)->at_header.quick, 14);
	free(run);
}

/*
 * what this checks: an RTT adds to the gap, but the threshold is on the
 * target's delay: a quick ACK an RTT late is held, not stalled
 */
static void test_rtt(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct run *run;

	(void)state;
	k.rounds = 3;
	k.rtt_ns = 20 * MS;
	run = predict(&k);
	expect_only(run, 1, NT_VERDICT_HELD); /* the body waits an RTT for the quick ACK */
	expect_only(run, 2, NT_VERDICT_STALLED);
	assert_true(round_of(run, 1)->gap_min_ns >= 20 * MS);
	assert_true(round_of(run, 2)->gap_min_ns >= 60 * MS);
	assert_true(round_of(run, 2)->gap_max_ns <= 70 * MS);
	free(run);
	k.rtt_ns = 200 * MS; /* far over the threshold, and still only the path */
	run = predict(&k);
	expect_only(run, 1, NT_VERDICT_HELD);
	expect_only(run, 2, NT_VERDICT_STALLED);
	free(run);
}

/*
 * Fill the stack below us with a pattern, so that a field the model reads
 * before writing is garbage rather than the zero a fresh stack happens to
 * hold (issue 25: reply_at_client of a round cut short, read as an anchor).
 */
static __attribute__((noinline)) void dirty_stack(void)
{
	volatile unsigned char junk[512 * 1024];

	memset((unsigned char *)junk, 0xa5, sizeof(junk));
}

/* what this checks: a round cut short (--rtt 2 ms, 40 kB body) ends, and says so */
static void test_round_cut_short(void **state)
{
	static const uint32_t bodies[] = { 20000, 30000, 40000, 1u << 20, 16u << 20 };
	struct nt_predict_knobs k = knobs();

	(void)state;
	for (unsigned i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		struct nt_predict p;
		struct nt_predict_round r;
		struct nt_err err = { { 0 } };
		unsigned n = 0;

		k.rounds = 3;
		k.rtt_ns = 2 * MS;
		k.body_bytes = bodies[i];
		assert_int_equal(nt_predict_init(&p, &k, &err), 0);
		for (;;) {
			int got;

			dirty_stack();
			got = nt_predict_round(&p, &r);
			if (got != 1)
				break;
			n++;
			assert_true(r.hypotheses >= 1 && r.hypotheses <= NT_PREDICT_HYP_MAX);
			assert_true(nt_predict_accepts(&r, r.verdict));
		}
		assert_int_equal(n, 3);
	}
}

/* what this checks: the model streams: a long run keeps its size and ends on time */
static void test_streaming(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct nt_predict p;
	struct nt_predict_round r;
	struct nt_err err = { { 0 } };
	unsigned n = 0, stalled = 0;

	(void)state;
	k.rounds = 5000;
	k.pingpong_thresh = 2;
	assert_int_equal(nt_predict_init(&p, &k, &err), 0);
	while (nt_predict_round(&p, &r) == 1) {
		n++;
		stalled += r.verdict == NT_VERDICT_STALLED;
		assert_true(r.hypotheses <= NT_PREDICT_HYP_MAX);
	}
	assert_int_equal(n, 5000);
	assert_int_equal(stalled, 2499);
	assert_int_equal(nt_predict_round(&p, &r), 0);
	assert_true(nt_predict_accepts(&r, r.verdict));
}

/* what this checks: the predicted target state against the kernel's evidence */
static void test_check_evidence(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct nt_round_evidence e;
	struct run *run;
	struct nt_predict_evidence_diff d;
	struct nt_predict_words why;

	(void)state;
	k.rounds = 2;
	run = predict(&k);
	memset(&e, 0xff, sizeof(e)); /* every field -1: unknown */
	e.target_pingpong = 1;
	e.target_quick = 14;
	e.target_proc_ato_ms = 40;
	e.target_ato_us = 40000;
	e.target_rcv_mss = 536;
	assert_int_equal(nt_predict_check_evidence(round_of(run, 2), &e, &d), 0);
	assert_string_equal(nt_predict_evidence_words(&d, &why), "");
	e.target_pingpong = 0;
	e.target_quick = 12;
	assert_int_equal(nt_predict_check_evidence(round_of(run, 2), &e, &d), 2);
	assert_true(d.differs[NT_EVIDENCE_PINGPONG] && d.differs[NT_EVIDENCE_QUICK]);
	assert_int_equal(d.seen[NT_EVIDENCE_PINGPONG], 0);
	assert_int_equal(d.predicted[NT_EVIDENCE_PINGPONG], 1);
	assert_int_equal(d.seen[NT_EVIDENCE_QUICK], 12);
	assert_int_equal(d.predicted[NT_EVIDENCE_QUICK], 14);
	assert_string_equal(nt_predict_evidence_words(&d, &why),
			    "ping-pong off, predicted on; quick-ACK budget 12, predicted 14");
	free(run);
}

/* what this checks: every variant's why-fix sentence comes from its knobs */
static void test_fix_notes(void **state)
{
	struct nt_predict_knobs k = knobs();
	struct nt_predict_why fix;

	(void)state;
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_NONE);
	k.server_quickack = NT_PREDICT_QUICKACK_ONCE;
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_QUICKACK_ONCE);
	assert_non_null(strstr(NT_PREDICT_WORDS(&fix), "from round 2"));
	k.server_quickack = NT_PREDICT_QUICKACK_REARM;
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_QUICKACK_REARM);
	assert_non_null(strstr(NT_PREDICT_WORDS(&fix), "extra"));
	k.server_quickack = NT_PREDICT_QUICKACK_NEVER;
	k.route_quickack = true;
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_ROUTE_QUICKACK);
	k.route_quickack = false;
	k.body_bytes = 1448;
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_FULL_SEGMENTS);
	k.body_bytes = 8;
	k.handler_ns = 60 * MS;
	nt_predict_fix(&k, &fix);
	expect_rule(&fix, NT_RULE_FIX_SLOW_HANDLER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_version),
		cmocka_unit_test(test_kernel_constants),
		cmocka_unit_test(test_pingpong_thresh_by_release),
		cmocka_unit_test(test_delack_max_rto_min),
		cmocka_unit_test(test_rto_min_stall),
		cmocka_unit_test(test_rule_names),
		cmocka_unit_test(test_init_refuses),
		cmocka_unit_test(test_default_stall),
		cmocka_unit_test(test_body_mss_boundary),
		cmocka_unit_test(test_header_mss),
		cmocka_unit_test(test_quick_budget_runs_out),
		cmocka_unit_test(test_pingpong_sawtooth),
		cmocka_unit_test(test_handler_vs_ato),
		cmocka_unit_test(test_write_gap),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_quickack_fixes),
		cmocka_unit_test(test_non_fixes),
		cmocka_unit_test(test_coalescing),
		cmocka_unit_test(test_pause_refills_budget),
		cmocka_unit_test(test_old_quick_counting),
		cmocka_unit_test(test_rtt),
		cmocka_unit_test(test_round_cut_short),
		cmocka_unit_test(test_streaming),
		cmocka_unit_test(test_check_evidence),
		cmocka_unit_test(test_fix_notes),
		cmocka_unit_test(test_ladder_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
