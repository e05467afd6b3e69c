// SPDX-License-Identifier: MIT
/*
 * test_variant.c - the variant table (each fix and non-fix as data), what the
 * model predicts for each, and the per-variant summary arithmetic of the
 * comparison table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nt/live/variant.h"
#include "nt/model/predict.h"
#include "nt/model/stats.h"
#include "nt/model/rounds.h"

/*
 * The documented verdict of rounds 2..N of every variant (README,
 * nagle-trace(1)), measured on Linux 6.x: what the model must predict for
 * the default knobs.
 */
static const struct {
	const char *name;
	enum nt_verdict verdict;
} documented[] = {
	{ "default", NT_VERDICT_STALLED },	 { "nodelay", NT_VERDICT_UNHELD },
	{ "one-write", NT_VERDICT_COALESCED },	 { "writev", NT_VERDICT_COALESCED },
	{ "cork", NT_VERDICT_COALESCED },	 { "msg-more", NT_VERDICT_COALESCED },
	{ "quickack-once", NT_VERDICT_STALLED }, { "quickack-rearm", NT_VERDICT_HELD },
	{ "route-quickack", NT_VERDICT_HELD },	 { "nodelay-server", NT_VERDICT_STALLED },
	{ "autocork-off", NT_VERDICT_STALLED },
};

#define N_DOCUMENTED (sizeof(documented) / sizeof(documented[0]))

/* what this checks: the table holds exactly the documented variants, in order, each found by name */
static void test_table_is_the_documented_one(void **state)
{
	unsigned n;
	const struct nt_variant *all = nt_variant_all(&n);

	(void)state;
	assert_int_equal(n, N_DOCUMENTED);
	for (unsigned i = 0; i < n; i++) {
		assert_string_equal(all[i].name, documented[i].name);
		assert_ptr_equal(nt_variant_find(documented[i].name), &all[i]);
		assert_non_null(all[i].summary);
		assert_true(all[i].n_ops >= 1 && all[i].n_ops <= NT_WRITE_OPS_MAX);
	}
	assert_null(nt_variant_find("Default"));
	assert_null(nt_variant_find(""));
	assert_null(nt_variant_find("all"));
}

/* Header and body bytes a write pattern sends: each exactly once, header first. */
static void pattern_sends(const struct nt_variant *v, unsigned *headers, unsigned *bodies,
			  bool *header_first)
{
	*headers = *bodies = 0;
	*header_first = true;
	for (unsigned i = 0; i < v->n_ops; i++) {
		switch (v->ops[i]) {
		case NT_OP_WRITE_HEADER:
		case NT_OP_SEND_HEADER_MORE:
			(*headers)++;
			break;
		case NT_OP_WRITE_BODY:
			if (!*headers)
				*header_first = false;
			(*bodies)++;
			break;
		case NT_OP_WRITE_BOTH:
		case NT_OP_WRITEV:
			(*headers)++;
			(*bodies)++;
			break;
		case NT_OP_CORK_ON:
		case NT_OP_CORK_OFF:
		case NT_OP_GAP:
			break;
		}
	}
}

/* what this checks: every write pattern sends the header and the body exactly once, header first */
static void test_every_pattern_sends_one_request(void **state)
{
	unsigned n;
	const struct nt_variant *all = nt_variant_all(&n);

	(void)state;
	for (unsigned i = 0; i < n; i++) {
		unsigned headers, bodies;
		bool header_first;

		pattern_sends(&all[i], &headers, &bodies, &header_first);
		assert_int_equal(headers, 1);
		assert_int_equal(bodies, 1);
		assert_true(header_first);
	}
}

/* what this checks: each variant changes exactly the one thing its name says */
static void test_each_variant_changes_one_thing(void **state)
{
	const struct nt_variant *v;

	(void)state;
	v = nt_variant_find("default");
	assert_int_equal(v->n_ops, 3);
	assert_int_equal(v->ops[0], NT_OP_WRITE_HEADER);
	assert_int_equal(v->ops[1], NT_OP_GAP); /* --write-gap-ms goes between the writes */
	assert_int_equal(v->ops[2], NT_OP_WRITE_BODY);
	assert_false(v->client_nodelay || v->server_nodelay || v->route_quickack);
	assert_int_equal(v->server_quickack, NT_QUICKACK_NEVER);
	assert_int_equal(v->autocork, -1);

	assert_true(nt_variant_find("nodelay")->client_nodelay);
	assert_false(nt_variant_find("nodelay")->server_nodelay);
	assert_true(nt_variant_find("nodelay-server")->server_nodelay);
	assert_false(nt_variant_find("nodelay-server")->client_nodelay);

	v = nt_variant_find("one-write");
	assert_int_equal(v->n_ops, 1);
	assert_int_equal(v->ops[0], NT_OP_WRITE_BOTH);
	v = nt_variant_find("writev");
	assert_int_equal(v->n_ops, 1);
	assert_int_equal(v->ops[0], NT_OP_WRITEV);
	v = nt_variant_find("cork");
	assert_int_equal(v->ops[0], NT_OP_CORK_ON);
	assert_int_equal(v->ops[v->n_ops - 1], NT_OP_CORK_OFF);
	assert_int_equal(nt_variant_find("msg-more")->ops[0], NT_OP_SEND_HEADER_MORE);

	assert_int_equal(nt_variant_find("quickack-once")->server_quickack, NT_QUICKACK_ONCE);
	assert_int_equal(nt_variant_find("quickack-rearm")->server_quickack, NT_QUICKACK_REARM);
	assert_true(nt_variant_find("route-quickack")->route_quickack);
	assert_int_equal(nt_variant_find("autocork-off")->autocork, 0);
}

/* what this checks: the model, given each variant's knobs, predicts its documented verdict */
static void test_model_predicts_the_documented_verdicts(void **state)
{
	unsigned n;
	const struct nt_variant *all = nt_variant_all(&n);

	(void)state;
	for (unsigned i = 0; i < n; i++) {
		struct nt_predict_knobs k;
		struct nt_predict_round r;
		struct nt_predict p;
		struct nt_err err = { "" };

		nt_predict_knobs_default(&k);
		nt_variant_knobs(&all[i], &k);
		assert_int_equal(nt_predict_init(&p, &k, &err), 0);
		/* Round 1 runs in quick-ACK mode (tcp_event_data_recv()): never a stall. */
		assert_int_equal(nt_predict_round(&p, &r), 1);
		assert_int_not_equal(r.verdict, NT_VERDICT_STALLED);
		while (nt_predict_round(&p, &r) == 1) {
			if (r.verdict != documented[i].verdict)
				fail_msg("%s round %u: predicted %s, documented %s", all[i].name,
					 r.index, nt_verdict_name(r.verdict),
					 nt_verdict_name(documented[i].verdict));
			assert_true(nt_predict_accepts(&r, documented[i].verdict));
		}
	}
}

/* what this checks: the knobs a variant sets, and only those */
static void test_variant_knobs(void **state)
{
	struct nt_predict_knobs k;

	(void)state;
	nt_predict_knobs_default(&k);
	nt_variant_knobs(nt_variant_find("default"), &k);
	assert_int_equal(k.pattern, NT_PREDICT_TWO_WRITES);
	assert_false(k.client_nodelay || k.server_nodelay || k.route_quickack);
	assert_true(k.client_autocork);
	assert_int_equal(k.server_quickack, NT_PREDICT_QUICKACK_NEVER);
	nt_variant_knobs(nt_variant_find("writev"), &k);
	assert_int_equal(k.pattern, NT_PREDICT_WRITEV);
	nt_variant_knobs(nt_variant_find("cork"), &k);
	assert_int_equal(k.pattern, NT_PREDICT_CORK);
	nt_variant_knobs(nt_variant_find("msg-more"), &k);
	assert_int_equal(k.pattern, NT_PREDICT_MSG_MORE);
	nt_variant_knobs(nt_variant_find("one-write"), &k);
	assert_int_equal(k.pattern, NT_PREDICT_ONE_WRITE);
	nt_variant_knobs(nt_variant_find("quickack-rearm"), &k);
	assert_int_equal(k.server_quickack, NT_PREDICT_QUICKACK_REARM);
	assert_int_equal(k.pattern, NT_PREDICT_TWO_WRITES);
	nt_variant_knobs(nt_variant_find("autocork-off"), &k);
	assert_false(k.client_autocork);
	nt_variant_knobs(nt_variant_find("route-quickack"), &k);
	assert_true(k.route_quickack);
	assert_true(k.client_autocork);
	nt_variant_knobs(nt_variant_find("nodelay-server"), &k);
	assert_true(k.server_nodelay);
	assert_false(k.client_nodelay);
	/* sizes and times are not the variant's */
	assert_int_equal(k.header_bytes, 4);
	assert_int_equal(k.body_bytes, 8);
}

/* what this checks: segments per request, as the table shows them */
static void test_summary_arithmetic(void **state)
{
	struct nt_summary s = { .rounds = 6, .client_data_segments = 12 };

	(void)state;
	/* two writes, each its own segment (nodelay, or a stall) */
	assert_true(nt_summary_segments_per_request(&s) == 2.0);
	/* coalesced: one segment a request */
	s.client_data_segments = 6;
	assert_true(nt_summary_segments_per_request(&s) == 1.0);
	/* a body over the MSS: 4 + 3000 bytes in 3 segments a round */
	s.client_data_segments = 18;
	assert_true(nt_summary_segments_per_request(&s) == 3.0);
	/* an interrupted run: the summary's rounds, not the configured ones, count */
	s.rounds = 2;
	s.client_data_segments = 4;
	assert_true(nt_summary_segments_per_request(&s) == 2.0);
	/* nothing seen: 0, not a division by zero */
	s.rounds = 0;
	s.client_data_segments = 0;
	assert_true(nt_summary_segments_per_request(&s) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_the_documented_one),
		cmocka_unit_test(test_every_pattern_sends_one_request),
		cmocka_unit_test(test_each_variant_changes_one_thing),
		cmocka_unit_test(test_model_predicts_the_documented_verdicts),
		cmocka_unit_test(test_variant_knobs),
		cmocka_unit_test(test_summary_arithmetic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
