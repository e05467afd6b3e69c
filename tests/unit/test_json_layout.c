// SPDX-License-Identifier: MIT
/*
 * test_json_layout.c - a layout prints what json-c prints: for every kind of
 * value, strings json-c escapes and strings it does not, every flag set the
 * renderers use and several depths, before and after the values change; and
 * the analyze flows written through their layouts, in every shape a flow's
 * text can take, are json-c's text of the flows they describe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/model/analysis.h"
#include "nt/render/analysis.h"
#include "nt/render/format.h"
#include "nt/render/json.h"
#include "nt/render/json_layout.h"
#include "test_json_text.h"

static const int flag_sets[] = {
	NT_JSON_FLAGS,		 NT_JSON_LINE_FLAGS,
	JSON_C_TO_STRING_PRETTY, /* slashes escaped */
	JSON_C_TO_STRING_PLAIN,	 JSON_C_TO_STRING_SPACED,
};

static char *layout_text(const struct nt_json_layout *l)
{
	char *got = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&got, &len);

	assert_non_null(out);
	assert_int_equal(nt_json_layout_write(l, out), 0);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(strlen(got), len);
	return got;
}

static void check_same(const struct nt_json_layout *l, struct json_object *tree, int flags,
		       int depth)
{
	char *want = nt_test_json_c_text(tree, flags, depth), *got = layout_text(l);

	assert_non_null(want);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

/*
 * Every kind of value in every kind of place: top-level members, nested
 * objects and arrays, empty ones, null members; the strings are set later.
 */
struct sample {
	struct json_object *tree, *i[4], *b, *d, *s[3];
};

static void sample_up(struct sample *x)
{
	struct json_object *o = x->tree = json_object_new_object(), *a, *inner;

	x->i[0] = nt_json_int64_fast(0);
	x->i[1] = json_object_new_int64(-1); /* json-c's own integer serializer */
	x->i[2] = nt_json_int64_fast(INT64_MAX);
	x->i[3] = nt_json_int64_fast(INT64_MIN);
	x->b = json_object_new_boolean(1);
	x->d = json_object_new_double(1.5);
	for (int k = 0; k < 3; k++)
		x->s[k] = json_object_new_string("plain");
	json_object_object_add(o, "zero", x->i[0]);
	json_object_object_add(o, "a/key \"quoted\"", x->s[0]);
	json_object_object_add(o, "nothing", NULL);
	json_object_object_add(o, "empty_object", json_object_new_object());
	json_object_object_add(o, "empty_array", json_object_new_array());
	a = json_object_new_array();
	json_object_array_add(a, x->i[1]);
	json_object_array_add(a, NULL);
	inner = json_object_new_object();
	json_object_object_add(inner, "max", x->i[2]);
	json_object_object_add(inner, "yes", x->b);
	json_object_object_add(inner, "list", json_object_new_array());
	json_object_array_add(a, inner);
	json_object_array_add(a, x->s[1]);
	json_object_object_add(o, "array", a);
	json_object_object_add(o, "min", x->i[3]);
	json_object_object_add(o, "double", x->d);
	json_object_object_add(o, "last", x->s[2]);
}

/* New values for every place: other lengths, other signs, strings json-c must escape. */
static void sample_change(struct sample *x, const char *s0, const char *s1, const char *s2)
{
	json_object_set_int64(x->i[0], -1234567890123LL);
	json_object_set_int64(x->i[1], 42);
	json_object_set_int64(x->i[2], INT64_MIN);
	json_object_set_int64(x->i[3], 9);
	json_object_set_boolean(x->b, 0);
	json_object_set_double(x->d, -0.25);
	json_object_set_string(x->s[0], s0);
	json_object_set_string(x->s[1], s1);
	json_object_set_string(x->s[2], s2);
}

/* what this checks: a layout's text is json-c's, for each flag set and depth, as the values change */
static void test_layout_is_json_c(void **state)
{
	static const char *const strings[][3] = {
		{ "", "x", "plain text, spaces and ~" },
		{ "a/b", "quote \" inside", "back\\slash" },
		{ "tab\there", "new\nline", "\x01\x1f control" },
		{ "caf\xc3\xa9", "del \x7f", "\xff" },
	};

	(void)state;
	for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++) {
		for (int depth = 0; depth < 4; depth++) {
			struct sample x;
			struct nt_json_layout *l;
			char *before;

			sample_up(&x);
			before = strdup(json_object_to_json_string_ext(x.tree, flag_sets[f]));
			l = nt_json_layout_new(x.tree, flag_sets[f], depth);
			assert_non_null(l);
			assert_true(nt_json_layout_fits(l, flag_sets[f], depth));
			assert_false(nt_json_layout_fits(l, flag_sets[f], depth + 1));
			/* Making the layout leaves the tree printing as it did. */
			assert_string_equal(json_object_to_json_string_ext(x.tree, flag_sets[f]),
					    before);
			check_same(l, x.tree, flag_sets[f], depth);
			for (size_t k = 0; k < sizeof(strings) / sizeof(strings[0]); k++) {
				sample_change(&x, strings[k][0], strings[k][1], strings[k][2]);
				check_same(l, x.tree, flag_sets[f], depth);
			}
			nt_json_layout_free(l);
			json_object_put(x.tree);
			free(before);
		}
	}
}

/* what this checks: each single byte as a string prints as json-c prints it, escaped or not */
static void test_every_byte(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++) {
		struct json_object *a = json_object_new_array(), *s = json_object_new_string("");
		struct nt_json_layout *l;

		json_object_array_add(a, s);
		l = nt_json_layout_new(a, flag_sets[f], 1);
		assert_non_null(l);
		for (int c = 1; c < 256; c++) {
			char one[2] = { (char)c, '\0' };

			json_object_set_string(s, one);
			check_same(l, a, flag_sets[f], 1);
		}
		nt_json_layout_free(l);
		json_object_put(a);
	}
}

/* what this checks: a tree of no values is its text; a layout keeps its values alive */
static void test_no_values_and_references(void **state)
{
	struct json_object *empty = json_object_new_object(), *a = json_object_new_array();
	struct json_object *v = nt_json_int64_fast(7);
	struct nt_json_layout *l = nt_json_layout_new(empty, NT_JSON_FLAGS, 2);

	(void)state;
	assert_non_null(l);
	check_same(l, empty, NT_JSON_FLAGS, 2);
	nt_json_layout_free(l);
	json_object_array_add(a, v);
	l = nt_json_layout_new(a, NT_JSON_FLAGS, 0);
	assert_non_null(l);
	json_object_put(a); /* the layout's reference keeps the value */
	json_object_set_int64(v, 8);
	{
		char *got = layout_text(l);

		assert_string_equal(got, "[\n  8\n]");
		free(got);
	}
	nt_json_layout_free(l);
	json_object_put(empty);
}

/* @v through @l (nt_json_layout_write_values()), as a string. */
static char *values_text(const struct nt_json_layout *l, const struct nt_json_value *v)
{
	char *got = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&got, &len);

	assert_non_null(out);
	assert_int_equal(nt_json_layout_write_values(l, out, v), 0);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(strlen(got), len);
	return got;
}

/*
 * what this checks: values given as they are print as json-c prints the tree
 * holding them (integers at their extremes, strings json-c escapes, for each
 * flag set and depth), and a layout takes only values of its places' types
 */
static void test_put_values(void **state)
{
	static const int64_t ints[][3] = {
		{ 0, -1, 9 },
		{ INT64_MIN, INT64_MAX, -1234567890123LL },
	};
	static const char *const strings[][2] = {
		{ "", "stall" },
		{ "a/b", "quote \" and back\\slash" },
		{ "tab\there \x01", "caf\xc3\xa9 \x7f \xff" },
	};

	(void)state;
	for (size_t f = 0; f < sizeof(flag_sets) / sizeof(flag_sets[0]); f++) {
		for (int depth = 0; depth < 3; depth++) {
			struct json_object *o = json_object_new_object(),
					   *a = json_object_new_array();
			struct json_object *i[3], *s[2];
			struct nt_json_layout *l;

			/* Print order: i0, s0, i1 (in the array), i2, s1. */
			json_object_object_add(o, "i0", i[0] = json_object_new_int64(0));
			json_object_object_add(o, "s0", s[0] = json_object_new_string(""));
			json_object_object_add(o, "nothing", NULL);
			json_object_array_add(a, i[1] = json_object_new_int64(0));
			json_object_object_add(o, "list", a);
			json_object_object_add(o, "i2", i[2] = json_object_new_int64(0));
			json_object_object_add(o, "s1", s[1] = json_object_new_string(""));
			l = nt_json_layout_new(o, flag_sets[f], depth);
			assert_non_null(l);
			/*
			 * Strings outside, so no string object of json-c's is set back
			 * to "" once longer: json-c 0.16 then loses the longer text's
			 * buffer (LeakSanitizer sees it; not this code's).
			 */
			for (size_t k = 0; k < sizeof(strings) / sizeof(strings[0]); k++) {
				for (size_t n = 0; n < sizeof(ints) / sizeof(ints[0]); n++) {
					struct nt_json_value v[5] = {
						{ .i = ints[n][0] },	{ .s = strings[k][0] },
						{ .i = ints[n][1] },	{ .i = ints[n][2] },
						{ .s = strings[k][1] },
					};
					char *want, *got;

					assert_true(nt_json_layout_takes(l, v, 5));
					for (int j = 0; j < 3; j++)
						json_object_set_int64(i[j], ints[n][j]);
					json_object_set_string(s[0], strings[k][0]);
					json_object_set_string(s[1], strings[k][1]);
					want = nt_test_json_c_text(o, flag_sets[f], depth);
					got = values_text(l, v);
					assert_non_null(want);
					assert_string_equal(got, want);
					free(got);
					free(want);
				}
			}
			{
				struct nt_json_value wrong[5] = {
					{ .i = 0 }, { .i = 0 }, { .i = 0 }, { .i = 0 }, { .s = "" },
				};

				assert_false(
					nt_json_layout_takes(l, wrong, 5)); /* an integer for s0 */
				wrong[1].s = "";
				assert_true(nt_json_layout_takes(l, wrong, 5));
				assert_false(
					nt_json_layout_takes(l, wrong, 4)); /* one place short */
			}
			nt_json_layout_free(l);
			json_object_put(o);
		}
	}
	{
		/* A boolean's place takes neither an integer nor a string. */
		struct json_object *o = json_object_new_object();
		struct nt_json_value v[1] = { { .i = 1 } };
		struct nt_json_layout *l;

		json_object_object_add(o, "yes", json_object_new_boolean(1));
		l = nt_json_layout_new(o, NT_JSON_FLAGS, 0);
		assert_non_null(l);
		assert_false(nt_json_layout_takes(l, v, 1));
		v[0].s = "true";
		assert_false(nt_json_layout_takes(l, v, 1));
		nt_json_layout_free(l);
		json_object_put(o);
	}
}

/*
 * Flows in every shape of their text (analysis_json_flow.c): each of the six
 * members that may be null, set or not, times every timeline length; IPv4
 * and IPv6; values at their extremes.
 */
#define SHAPES (64u * (NT_TIMELINE_MAX + 1))
#define FLOWS  (2u * SHAPES + 7u)

static void fill_episode(struct nt_stall_episode *ep, unsigned i, bool answer)
{
	ep->dir = i % 2 ? NT_DIR_T2C : NT_DIR_C2T;
	ep->held_t_ns = 1700000000000000000LL + (int64_t)i * 1000003;
	ep->held_frame = i + 3;
	ep->ack_frame = i + 4;
	ep->release_frame = i + 5;
	ep->held_len = (uint32_t)(i % 1500);
	ep->ack_t_ns = ep->held_t_ns + 40000000;
	ep->release_t_ns = ep->held_t_ns + 40100000;
	ep->ack_delay_ns = 40000000 + i;
	ep->release_gap_ns = 100000;
	ep->window_ns = -(int64_t)i; /* negative values print too */
	ep->stall_ns = 40100000 + i;
	ep->delack = (enum nt_delack_class)(i % 3);
	ep->lost_min_ns = i % 5 ? 0 : INT64_MAX;
	ep->answer_frame = answer ? i + 6 : 0;
}

static struct nt_flow_result *make_flow(struct nt_analysis *an, unsigned i)
{
	struct nt_flow_result *r = nt_pool_get(&an->reports);
	unsigned bits = i % 64, tl = (i / 64) % (NT_TIMELINE_MAX + 1);

	assert_non_null(r);
	r->family = i % 3 ? AF_INET : AF_INET6;
	r->client_addr[0] = 192;
	r->client_addr[15] = (uint8_t)i;
	r->target_addr[0] = 198;
	r->target_addr[15] = (uint8_t)(i >> 8);
	r->client_port = (uint16_t)(40000 + i);
	r->target_port = 443;
	r->syn_seen = i % 2;
	r->mss[NT_DIR_C2T] = bits & 1 ? 1460 : 0;
	r->mss[NT_DIR_T2C] = bits & 2 ? 536 : 0;
	r->rtt_ns[NT_DIR_C2T] = bits & 4 ? 20000 + (int64_t)i : -1;
	r->rtt_ns[NT_DIR_T2C] = bits & 8 ? 0 : -1;
	r->packets = i * 17ull;
	r->first_t_ns = 1700000000000000000LL;
	r->last_t_ns = INT64_MAX - i;
	r->evicted = i % 5 == 0;
	r->stalls = i + 1;
	r->by_delack[i % 3] = i + 1;
	r->total_ns = (int64_t)i * 40000000;
	r->p50_ns = 40000000;
	r->p50_sampled = i % 7 == 0;
	r->max_ns = 41000000;
	fill_episode(&r->first, i, bits & 16);
	fill_episode(&r->last, i + 1, bits & 32);
	/*
	 * Every stall listed, for a few flows (the others keep none: not
	 * listed), the first of them not the first flow: its first stall is the
	 * one without a comma.
	 */
	if (i % 97 == 5) {
		for (unsigned k = 0; k < r->stalls; k++) {
			const struct nt_stall_rec x = {
				.held_t_ns = r->first.held_t_ns + k,
				.ack_t_ns = r->first.held_t_ns + k + 40000000,
				.release_t_ns = r->first.held_t_ns + k + 40001000,
				.held_frame = k + 1,
				.ack_frame = k + 2,
				.release_frame = k + 3,
				.held_len = k,
				.dir = k % 2,
				.delack = k % 3,
			};

			assert_int_equal(nt_stall_recs_add(&r->all, &an->blocks, &x), 0);
		}
	}
	r->n_timeline = (uint8_t)tl;
	for (unsigned k = 0; k < tl; k++) {
		struct nt_tl_seg *s = &r->timeline[k];

		s->frame = i + k;
		s->t_ns = r->first.held_t_ns + (int64_t)k * 1000 - 500;
		s->dir = k % 2 ? NT_DIR_T2C : NT_DIR_C2T;
		s->flags = (uint8_t)(0x10 | (k % 2 ? 0x08 : 0) | (k == 0 ? 0x02 : 0));
		s->seq_rel = k * 100;
		s->ack_rel = k ? k * 7 : 0;
		s->len = k % 3 ? 100 : 0;
	}
	return r;
}

static void analysis_up(struct nt_analysis *an)
{
	struct nt_analysis_params params = { .max_flows = 16, .idle_ns = 1 };

	assert_int_equal(nt_analysis_init(an, &params), 0);
	assert_int_equal(nt_analysis_file_begin(an, "shapes.pcap"), 0);
	an->files[0].first_t_ns = 1700000000000000000LL;
	an->flows = calloc(FLOWS, sizeof(struct nt_flow_result *));
	assert_non_null(an->flows);
	for (unsigned i = 0; i < FLOWS; i++)
		an->flows[an->n_flows++] = make_flow(an, i);
}

/* The stalls @an's flows keep, all listed in "stalls"; the analysis says it has some. */
static size_t kept_stalls(struct nt_analysis *an)
{
	size_t n = 0;

	an->sum.stalls = 1;
	for (unsigned i = 0; i < FLOWS; i++)
		n += nt_stall_recs_any(&an->flows[i]->all) ? an->flows[i]->stalls : 0;
	return n;
}

/* The report of @an in @format, by @workers threads. */
static char *render(const struct nt_analysis *an, const char *format, unsigned workers)
{
	const struct nt_format *fmt = nt_format_find(format, NT_FORMAT_ANALYSIS);
	struct nt_analysis_view view = { .workers = workers };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(fmt);
	assert_non_null(out);
	assert_int_equal(fmt->analysis(out, an, &view), 0);
	assert_int_equal(fclose(out), 0);
	return text;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

/* A member that is null exactly when @set is false; when set, its integer is @want. */
static void check_nullable(struct json_object *o, const char *key, bool set, int64_t want)
{
	struct json_object *v = member(o, key);

	if (!set) {
		assert_null(v);
		return;
	}
	assert_non_null(v);
	assert_int_equal(json_object_get_int64(v), want);
}

/* The flow's text says what its flow holds: no layout of another shape was used. */
static void check_flow(struct json_object *f, const struct nt_flow_result *r)
{
	struct json_object *mss = member(f, "mss_option"), *rtt = member(f, "rtt_from_capture");
	struct json_object *tl = member(f, "first_stall_timeline");

	check_nullable(mss, "c2t", r->mss[NT_DIR_C2T], r->mss[NT_DIR_C2T]);
	check_nullable(mss, "t2c", r->mss[NT_DIR_T2C], r->mss[NT_DIR_T2C]);
	check_nullable(rtt, "client_ns", r->rtt_ns[NT_DIR_C2T] >= 0, r->rtt_ns[NT_DIR_C2T]);
	check_nullable(rtt, "target_ns", r->rtt_ns[NT_DIR_T2C] >= 0, r->rtt_ns[NT_DIR_T2C]);
	check_nullable(member(f, "first_stall"), "answer_frame_number", r->first.answer_frame,
		       (int64_t)r->first.answer_frame);
	check_nullable(member(f, "last_stall"), "answer_frame_number", r->last.answer_frame,
		       (int64_t)r->last.answer_frame);
	assert_int_equal(json_object_array_length(tl), r->n_timeline);
	assert_int_equal(json_object_get_int64(member(f, "last_t_ns")), r->last_t_ns);
	assert_string_equal(json_object_get_string(member(f, "family")),
			    r->family == AF_INET6 ? "ipv6" : "ipv4");
	if (r->n_timeline)
		assert_int_equal(
			json_object_get_int64(
				member(json_object_array_get_idx(tl, r->n_timeline - 1), "rel_ns")),
			(int64_t)(r->n_timeline - 1) * 1000 - 500);
}

/*
 * what this checks: the JSON report's flows and stalls, through their
 * layouts, on one thread and on two, are json-c's text of each
 */
static void test_flows_json(void **state)
{
	static const unsigned workers[] = { 1, 2 };
	struct nt_analysis an;
	size_t want_stalls;

	(void)state;
	analysis_up(&an);
	want_stalls = kept_stalls(&an);
	for (size_t w = 0; w < 2; w++) {
		char *text = render(&an, "json", workers[w]);
		struct json_object *doc = json_tokener_parse(text), *flows;
		const char *again;

		assert_non_null(doc);
		/* The whole document is json-c's print of itself: the layouts' bytes are json-c's. */
		again = json_object_to_json_string_ext(doc, NT_JSON_FLAGS);
		assert_int_equal(strlen(text), strlen(again) + 1);
		assert_memory_equal(text, again, strlen(again));
		flows = member(doc, "flows");
		assert_int_equal(json_object_array_length(flows), FLOWS);
		for (unsigned i = 0; i < FLOWS; i++)
			check_flow(json_object_array_get_idx(flows, i), an.flows[i]);
		assert_true(want_stalls > 0);
		assert_int_equal(json_object_array_length(member(doc, "stalls")), want_stalls);
		json_object_put(doc);
		free(text);
	}
	nt_analysis_fini(&an);
}

/* what this checks: the JSON Lines flow records, through their layouts, are json-c's text of each flow */
static void test_flows_jsonl(void **state)
{
	struct nt_analysis an;
	char *text, *line, *save = NULL;
	unsigned n = 0, n_stalls = 0, want_stalls;

	(void)state;
	analysis_up(&an);
	want_stalls = (unsigned)kept_stalls(&an);
	text = render(&an, "jsonl", 2);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct json_object *rec = json_tokener_parse(line);

		assert_non_null(rec);
		assert_string_equal(json_object_to_json_string_ext(rec, NT_JSON_LINE_FLAGS), line);
		if (strcmp(json_object_get_string(member(rec, "type")), "flow") == 0) {
			assert_true(n < FLOWS);
			check_flow(rec, an.flows[n++]);
		} else if (strcmp(json_object_get_string(member(rec, "type")), "stall") == 0) {
			n_stalls++;
		}
		json_object_put(rec);
	}
	assert_int_equal(n, FLOWS);
	assert_true(want_stalls > 0);
	assert_int_equal(n_stalls, want_stalls);
	free(text);
	nt_analysis_fini(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_is_json_c),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_no_values_and_references),
		cmocka_unit_test(test_put_values),
		cmocka_unit_test(test_flows_json),
		cmocka_unit_test(test_flows_jsonl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
