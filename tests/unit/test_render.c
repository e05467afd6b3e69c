// SPDX-License-Identifier: MIT
/*
 * test_render.c - the renderers on a recorded run, without namespaces.
 *
 * render_fixture.h holds the timeline of a real 4-round run (round 1 held,
 * rounds 2-4 stalled at ~43 ms); each format's output is compared byte for
 * byte with tests/golden/render/expected.*. NT_REGEN_GOLDEN=1 rewrites the
 * golden files instead (review the diff, as tests/golden/regen.sh says).
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

#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/format.h"
#include "nt/render/labels.h"
#include "nt/render/ladder.h"
#include "nt/render/pick.h"
#include "nt/render/render.h"
#include "nt/render/svg.h"
#include "render_fixture.h"

#define GOLDEN_DIR NT_TEST_DATA_DIR "/golden/render/"

/* The model's prediction for the fixture's knobs, on a fixed kernel: every format shows it. */
static void fixture_predict(struct nt_record *run)
{
	struct nt_predict_knobs k;
	struct nt_err err = { "" };

	nt_predict_knobs_default(&k);
	k.header_bytes = FIXTURE_HEADER_BYTES;
	k.body_bytes = FIXTURE_BODY_BYTES;
	k.reply_bytes = FIXTURE_REPLY_BYTES;
	k.rounds = FIXTURE_ROUNDS;
	k.threshold_ns = FIXTURE_THRESHOLD_NS;
	k.kernel = (struct nt_kernel_version){ 6, 18, 44 };
	k.hz = 250;
	snprintf(run->cfg.hz_source, sizeof(run->cfg.hz_source), "/proc/config.gz");
	assert_int_equal(nt_record_predict(run, &k, &err), 0);
}

static void fixture_run(struct nt_record *run, const char *variant)
{
	struct nt_record_config *c = &run->cfg;

	memset(run, 0, sizeof(*run));
	c->variant = variant;
	c->shape = (struct nt_shape){ .header_bytes = FIXTURE_HEADER_BYTES,
				      .body_bytes = FIXTURE_BODY_BYTES,
				      .reply_bytes = FIXTURE_REPLY_BYTES,
				      .rounds = FIXTURE_ROUNDS };
	c->threshold_ns = FIXTURE_THRESHOLD_NS;
	c->timeout_ns = FIXTURE_TIMEOUT_NS;
	c->capture = "pcap";
	c->expect = NT_EXPECT_AUTO;
	c->family = AF_INET;
	snprintf(c->client_addr, sizeof(c->client_addr), "%s", FIXTURE_CLIENT_ADDR);
	snprintf(c->target_addr, sizeof(c->target_addr), "%s", FIXTURE_TARGET_ADDR);
	c->client_port = FIXTURE_CLIENT_PORT;
	c->target_port = FIXTURE_TARGET_PORT;
	c->ifname = "nt-c";
	snprintf(c->kernel, sizeof(c->kernel), "%s", FIXTURE_KERNEL);
	for (size_t i = 0; i < sizeof(fixture_events) / sizeof(fixture_events[0]); i++)
		assert_int_equal(nt_timeline_append(&run->tl, &fixture_events[i]), 0);
	run->counts.frames = FIXTURE_FRAMES;
	run->counts.segments = FIXTURE_FRAMES;
	run->client_mss = FIXTURE_MSS;
	run->target_mss = FIXTURE_MSS;
	run->teardown_seen = true;
	fixture_predict(run);
}

/* A sink that keeps copies of the rounds it is handed, and of their events. */
struct collected {
	struct nt_round rounds[FIXTURE_ROUNDS];
	struct nt_event ev[FIXTURE_ROUNDS][64];
	size_t n[FIXTURE_ROUNDS];
	unsigned count;
	size_t handshake;
	size_t teardown;
};

static int collect_begin(void *ctx, const struct nt_record *run, const struct nt_round_view *hs)
{
	struct collected *c = ctx;

	(void)run;
	c->handshake = hs->n;
	return 0;
}

static int collect_round(void *ctx, const struct nt_record *run, const struct nt_round_view *rv)
{
	struct collected *c = ctx;

	(void)run;
	assert_true(c->count < FIXTURE_ROUNDS);
	assert_true(rv->n <= 64);
	assert_int_equal(rv->round->index, c->count + 1);
	c->rounds[c->count] = *rv->round;
	memcpy(c->ev[c->count], rv->ev, rv->n * sizeof(*rv->ev));
	c->n[c->count++] = rv->n;
	return 0;
}

static int collect_end(void *ctx, const struct nt_record *run, const struct nt_round_view *td)
{
	struct collected *c = ctx;

	(void)run;
	c->teardown = td->n;
	return 0;
}

static void fixture_collect(struct nt_record *run, struct collected *c)
{
	struct nt_record_sink sink = {
		.begin = collect_begin, .round = collect_round, .end = collect_end, .ctx = c
	};

	memset(c, 0, sizeof(*c));
	fixture_run(run, "default");
	assert_int_equal(nt_record_finish(run, &sink), 0);
}

/* Renders finished-in-one-go runs into memory; the caller frees the text. */
static char *render(const struct nt_trace_doc *fmt, struct nt_record *runs, unsigned n)
{
	struct nt_render_opts ro = { .color = false, .summary_only = false };
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);

	char *copy;

	assert_non_null(fp);
	assert_int_equal(nt_render_runs(fmt, fp, runs, n, &ro), 0);
	assert_int_equal(fclose(fp), 0);
	/* A copy: GCC 12's -Wdangling-pointer takes the stream's buffer for the local @text. */
	copy = strdup(text);
	assert_non_null(copy);
	free(text);
	return copy;
}

/*
 * Renders one run the way a live run does: rounds retired one at a time
 * (each as the next completes), the rest at the end.
 */
static char *render_streamed(const struct nt_trace_doc *fmt, struct nt_record *run,
			     const struct nt_render_opts *ro)
{
	struct nt_renderer r;
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);

	assert_non_null(fp);
	assert_int_equal(nt_renderer_open(&r, fmt, fp, ro, 1), 0);
	for (unsigned k = 1; k < FIXTURE_ROUNDS; k++) {
		assert_int_equal(nt_record_retire(run, k, nt_renderer_sink(&r)), 0);
		assert_int_equal(run->retired, k);
		/* The window keeps no event of a retired round, nor the handshake. */
		for (size_t i = 0; i < run->tl.n; i++)
			assert_true(run->tl.ev[i].round > (int)k ||
				    run->tl.ev[i].round == NT_ROUND_TEARDOWN ||
				    run->tl.ev[i].round == NT_ROUND_NONE);
	}
	assert_int_equal(nt_record_finish(run, nt_renderer_sink(&r)), 0);
	assert_int_equal(run->tl.n, 0);
	assert_int_equal(nt_renderer_finish(&r, run, 1), 0);
	nt_renderer_close(&r);
	assert_int_equal(fclose(fp), 0);
	return text;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;
	FILE *mem;
	int c;

	if (!fp)
		return NULL;
	mem = open_memstream(&text, &size);
	assert_non_null(mem);
	while ((c = fgetc(fp)) != EOF)
		fputc(c, mem);
	fclose(fp);
	fclose(mem);
	return text;
}

/*
 * The model in WebAssembly (the lesson's what-if panel) changes whenever
 * src/model/ does; the golden page holds a placeholder for it, and the module
 * itself is checked against the native model by test_wasm_model.sh.
 */
static void drop_wasm(char *text)
{
	static const char open[] = "id=\"nt-wasm\">";
	char *from = strstr(text, open), *to;

	if (!from)
		return;
	from += sizeof(open) - 1;
	to = strstr(from, "</script>");
	assert_non_null(to);
	memmove(from, "WASM", 4);
	memmove(from + 4, to, strlen(to) + 1);
}

/* Byte for byte, or (NT_REGEN_GOLDEN=1) rewrite the golden file. */
static void check_golden(const char *name, const char *text)
{
	char path[512];
	const char *regen = getenv("NT_REGEN_GOLDEN");
	char *want, *got = strdup(text);

	assert_non_null(got);
	drop_wasm(got);

	snprintf(path, sizeof(path), "%s%s", GOLDEN_DIR, name);
	if (regen && strcmp(regen, "1") == 0) {
		FILE *fp = fopen(path, "w");

		assert_non_null(fp);
		fputs(got, fp);
		assert_int_equal(fclose(fp), 0);
		free(got);
		return;
	}
	/*
	 * cmocka 1.1's fail_msg() does not return (it longjmps out of the
	 * test) but is not declared noreturn: each failure path returns by
	 * itself so that nothing after it relies on that.
	 */
	want = slurp(path);
	if (!want) {
		free(got);
		fail_msg("missing golden file %s (NT_REGEN_GOLDEN=1 makes it)", path);
		return;
	}
	if (strcmp(want, got) != 0) {
		size_t i = 0, line = 1;

		while (want[i] && want[i] == got[i]) {
			if (want[i] == '\n')
				line++;
			i++;
		}
		free(want);
		free(got);
		fail_msg("%s differs from the renderer's output at line %zu "
			 "(NT_REGEN_GOLDEN=1 rewrites it)",
			 path, line);
		return;
	}
	free(want);
	free(got);
}

static void test_fixture_verdicts(void **state)
{
	struct collected c;
	struct nt_record run;
	size_t events = 0;

	(void)state;
	fixture_collect(&run, &c);
	assert_int_equal(run.summary.rounds, 4);
	assert_int_equal(c.count, 4);
	assert_int_equal(c.rounds[0].verdict, NT_VERDICT_HELD);
	for (int i = 1; i < 4; i++) {
		assert_int_equal(c.rounds[i].verdict, NT_VERDICT_STALLED);
		assert_true(c.rounds[i].gap_ns > 35000000 && c.rounds[i].gap_ns < 50000000);
	}
	assert_int_equal(run.summary.n_stalls, 3);
	assert_int_equal(run.summary.stalls[0].round, 2);
	assert_int_equal(run.summary.stalls[0].gap_ns, c.rounds[1].gap_ns);
	assert_true(run.expectation_met);
	/* Every event went somewhere, once. */
	for (unsigned i = 0; i < c.count; i++)
		events += c.n[i];
	assert_int_equal(c.handshake + events + c.teardown,
			 sizeof(fixture_events) / sizeof(fixture_events[0]));
	assert_int_equal(c.handshake, 3);
	nt_record_fini(&run);
}

/*
 * A segment of a round already handed over (a duplicate ACK, say) is not
 * lost: it stays in the window and goes out with the teardown.
 */
static void test_late_segment_goes_with_teardown(void **state)
{
	struct collected whole, c;
	struct nt_record_sink sink = {
		.begin = collect_begin, .round = collect_round, .end = collect_end, .ctx = &c
	};
	struct nt_event late = { 0 };
	struct nt_record run;
	bool found = false;

	(void)state;
	fixture_collect(&run, &whole);
	nt_record_fini(&run);

	memset(&c, 0, sizeof(c));
	fixture_run(&run, "default");
	assert_int_equal(nt_record_retire(&run, 2, &sink), 0);
	assert_int_equal(c.count, 2);
	for (size_t i = 0; i < c.n[0] && !found; i++) {
		if (c.ev[0][i].kind == NT_EVENT_SEGMENT &&
		    c.ev[0][i].seg.role == NT_ROLE_PURE_ACK) {
			late = c.ev[0][i];
			found = true;
		}
	}
	assert_true(found);
	late.round = NT_ROUND_NONE;
	late.seg.role = NT_ROLE_UNKNOWN;
	late.t_ns = c.ev[1][c.n[1] - 1].t_ns + 1;
	assert_int_equal(nt_timeline_append(&run.tl, &late), 0);
	/* Retiring the next round must not drop it with that round's events. */
	assert_int_equal(nt_record_retire(&run, 3, &sink), 0);
	assert_int_equal(nt_record_finish(&run, &sink), 0);
	assert_int_equal(c.count, 4);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(c.n[k], whole.n[k]);
	assert_int_equal(c.teardown, whole.teardown + 1);
	assert_int_equal(run.summary.rounds, 4);
	nt_record_fini(&run);
}

/* The picked round is the first stalled one, else the last. */
static void test_view_pick(void **state)
{
	struct nt_pick p = { 0 };
	struct nt_round_view rv;
	struct nt_round r[3] = { { .index = 1, .verdict = NT_VERDICT_HELD },
				 { .index = 2, .verdict = NT_VERDICT_STALLED },
				 { .index = 3, .verdict = NT_VERDICT_STALLED } };
	struct nt_event ev[2] = { { .t_ns = 1 }, { .t_ns = 2 } };

	(void)state;
	assert_false(nt_pick_get(&p, &rv));
	for (int i = 0; i < 3; i++) {
		rv = (struct nt_round_view){ .round = &r[i], .ev = ev, .n = (size_t)i };
		assert_int_equal(nt_pick_offer(&p, &rv), 0);
	}
	assert_true(nt_pick_get(&p, &rv));
	assert_int_equal(rv.round->index, 2);
	assert_int_equal(rv.n, 1);
	assert_null(rv.evidence);
	nt_pick_fini(&p);
	r[1].verdict = NT_VERDICT_HELD;
	for (int i = 0; i < 3; i++) {
		rv = (struct nt_round_view){ .round = &r[i], .ev = ev, .n = (size_t)i };
		assert_int_equal(nt_pick_offer(&p, &rv), 0);
	}
	assert_true(nt_pick_get(&p, &rv));
	assert_int_equal(rv.round->index, 3);
	assert_int_equal(rv.n, 2);
	assert_int_equal(rv.ev[1].t_ns, 2);
	nt_pick_fini(&p);
}

static void golden_one(const char *name, const struct nt_trace_doc *fmt)
{
	struct nt_record run;
	char *got;

	fixture_run(&run, "default");
	got = render(fmt, &run, 1);
	check_golden(name, got);
	free(got);
	nt_record_fini(&run);
}

/* Every format writes the same document whether rounds are handed over one by one or at once. */
static void test_streamed_equals_whole(void **state)
{
	const char *names[] = { "text", "json", "markdown", "svg", "html" };
	struct nt_render_opts opts[] = { { .color = false }, { .summary_only = true } };

	(void)state;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (unsigned o = 0; o < 2; o++) {
			const struct nt_trace_doc *fmt =
				nt_format_find(names[i], NT_FORMAT_TRACE)->trace;
			struct nt_record a, b;
			char *whole = NULL, *streamed;
			size_t size = 0;
			FILE *fp = open_memstream(&whole, &size);

			assert_non_null(fmt);
			assert_non_null(fp);
			fixture_run(&a, "default");
			assert_int_equal(nt_render_runs(fmt, fp, &a, 1, &opts[o]), 0);
			assert_int_equal(fclose(fp), 0);
			fixture_run(&b, "default");
			streamed = render_streamed(fmt, &b, &opts[o]);
			assert_string_equal(streamed, whole);
			free(whole);
			free(streamed);
			nt_record_fini(&a);
			nt_record_fini(&b);
		}
	}
}

static void test_golden_json(void **state)
{
	(void)state;
	golden_one("expected.json", &nt_json_trace);
}

static void test_golden_text(void **state)
{
	(void)state;
	golden_one("expected.txt", &nt_text_trace);
}

/* what this checks: --explain: the model's rule and sentence under H, A, B and the reply */
static void test_golden_text_explain(void **state)
{
	struct nt_render_opts ro = { .explain = true };
	struct nt_record run;
	char *got;

	(void)state;
	fixture_run(&run, "default");
	got = render_streamed(&nt_text_trace, &run, &ro);
	check_golden("expected-explain.txt", got);
	assert_non_null(strstr(got, "why: held: Nagle, small segment"));
	assert_non_null(strstr(got, "[nagle_hold]"));
	assert_non_null(strstr(got, "[delayed_pingpong]"));
	free(got);
	nt_record_fini(&run);
}

static void test_golden_markdown(void **state)
{
	(void)state;
	golden_one("expected.md", &nt_markdown_trace);
}

static void test_golden_svg(void **state)
{
	(void)state;
	golden_one("expected.svg", &nt_svg_trace);
}

static void test_golden_html(void **state)
{
	(void)state;
	golden_one("expected.html", &nt_html_trace);
}

/* Two variants side by side: the comparison table and two panels. */
static void test_golden_two_runs(void **state)
{
	struct nt_record runs[2];
	char *got;

	(void)state;
	fixture_run(&runs[0], "default");
	fixture_run(&runs[1], "again");
	got = render(&nt_markdown_trace, runs, 2);
	check_golden("expected-2.md", got);
	assert_non_null(strstr(got, "| `again` | 1 held, 3 stalled |"));
	free(got);
	/* Rendering consumed the runs' events: record them again. */
	nt_record_fini(&runs[0]);
	nt_record_fini(&runs[1]);
	fixture_run(&runs[0], "default");
	fixture_run(&runs[1], "again");
	got = render(&nt_svg_trace, runs, 2);
	check_golden("expected-2.svg", got);
	assert_non_null(strstr(got, "translate(760 0)"));
	free(got);
	nt_record_fini(&runs[0]);
	nt_record_fini(&runs[1]);
	fixture_run(&runs[0], "default");
	fixture_run(&runs[1], "again");
	got = render(&nt_json_trace, runs, 2);
	check_golden("expected-2.json", got);
	free(got);
	nt_record_fini(&runs[0]);
	nt_record_fini(&runs[1]);
}

/*
 * The Mermaid block: a sequenceDiagram with named participants, the stall
 * as a note inside a highlighted rect, nothing Mermaid chokes on.
 */
static void test_markdown_mermaid(void **state)
{
	struct nt_record run;
	char *got, *start, *end;

	(void)state;
	fixture_run(&run, "default");
	got = render(&nt_markdown_trace, &run, 1);
	start = strstr(got, "```mermaid\nsequenceDiagram\n");
	assert_non_null(start);
	end = strstr(start + 3, "\n```");
	assert_non_null(end);
	*end = '\0';
	assert_null(strchr(start, ';'));
	assert_null(strchr(start, '#'));
	assert_non_null(strstr(start, "    participant C as Client 192.0.2.1:40000\n"
				      "    participant T as Target 192.0.2.2:5001\n"));
	assert_non_null(strstr(start, "    rect rgb(253, 227, 230)\n    C->>T: header 4 B (+0.0"));
	assert_non_null(strstr(start, "Note over C,T: 42.9 ms stall<br/>body held by Nagle,<br/>"
				      "ACK delayed\n    T->>C: pure ACK (+42."));
	assert_non_null(strstr(strstr(start, "T->>C: pure ACK (+42."), "\n    end\n"));
	assert_non_null(strstr(got, "```text\nround 2  stalled"));
	free(got);
	nt_record_fini(&run);
}

static bool starts(const char *p, const char *prefix)
{
	return strncmp(p, prefix, strlen(prefix)) == 0;
}

/* Markup in a name stays text, in SVG and in HTML. */
/* nt_escape_xml_n() of @n bytes of @in, as a string */
static char *escaped(const char *in, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	nt_escape_xml_n(out, in, n);
	assert_int_equal(fclose(out), 0);
	return text;
}

/*
 * what this checks: XML escaping by runs writes every byte between the
 * special characters, the specials at either end and side by side, and a
 * NUL byte as it is
 */
static void test_escape_runs(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "" },
		{ "plain", "plain" },
		{ "&", "&amp;" },
		{ "<<>>", "&lt;&lt;&gt;&gt;" },
		{ "\"a\" & b", "&quot;a&quot; &amp; b" },
		{ "frame 1 <- held (H)\n", "frame 1 &lt;- held (H)\n" },
	};
	char *got;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = escaped(cases[i].in, strlen(cases[i].in));
		assert_string_equal(got, cases[i].want);
		free(got);
	}
	got = escaped("a\0<b", 4);
	assert_memory_equal(got, "a\0&lt;b", 7);
	free(got);
}

/*
 * what this checks: the search for the next character to escape, which
 * looks at 16 bytes at once, finds each of them at every place in and
 * around a block of 16 (and after bytes above 0x7f), as a byte-by-byte
 * escape does
 */
static void test_escape_blocks(void **state)
{
	static const char special[] = "&<>\"";
	static const char *const entity[] = { "&amp;", "&lt;", "&gt;", "&quot;" };
	char in[70], want[80];

	(void)state;
	for (size_t n = 1; n <= sizeof(in); n++)
		for (size_t at = 0; at < n; at++)
			for (size_t k = 0; k < 4; k++) {
				size_t e = strlen(entity[k]), len = n - 1 + e;
				char *got;

				for (size_t i = 0; i < n; i++)
					in[i] = (char)(i % 3 ? 'a' + i % 26 : 0x80 + i);
				in[at] = special[k];
				memcpy(want, in, at);
				memcpy(want + at, entity[k], e);
				memcpy(want + at + e, in + at + 1, n - at - 1);
				got = escaped(in, n);
				assert_memory_equal(got, want, len);
				assert_int_equal(got[len], '\0');
				free(got);
			}
}

static void test_escaping(void **state)
{
	struct nt_record run;
	char *got;

	(void)state;
	fixture_run(&run, "a<b>&\"c");
	got = render(&nt_svg_trace, &run, 1);
	assert_null(strstr(got, "a<b>"));
	assert_non_null(strstr(got, "a&lt;b&gt;&amp;&quot;c"));
	free(got);
	nt_record_fini(&run);
	fixture_run(&run, "a<b>&\"c");
	got = render(&nt_html_trace, &run, 1);
	assert_null(strstr(got, "a<b>"));
	assert_non_null(strstr(got, "a&lt;b&gt;&amp;&quot;c"));
	/*
	 * Self-contained: inline scripts only (the lesson's and, in the what-if
	 * panel, the model's data, module and script), one style, nothing referenced.
	 */
	assert_non_null(strstr(got, "<script>\n"));
	for (const char *p = strstr(got, "<script"); p; p = strstr(p + 1, "<script"))
		assert_true(starts(p, "<script>\n") ||
			    starts(p, "<script type=\"application/json\" id=\"nt-model-data\">") ||
			    starts(p, "<script type=\"application/octet-stream\" id=\"nt-wasm\">"));
	assert_null(strstr(strstr(got, "<style>") + 1, "<style>"));
	assert_null(strstr(got, "<link"));
	assert_null(strstr(got, "src="));
	free(got);
	nt_record_fini(&run);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/* The lesson page: a figure per round, a step per event, the stalled round opened first. */
static void test_lesson_page(void **state)
{
	struct collected c;
	struct nt_record run;
	char *got, want[64];
	size_t events = 0;

	(void)state;
	fixture_collect(&run, &c);
	nt_record_fini(&run);
	for (unsigned i = 0; i < c.count; i++)
		events += c.n[i];
	fixture_run(&run, "default");
	got = render(&nt_html_trace, &run, 1);
	assert_int_equal(count(got, "<figure class=\"nt-round\""), c.count);
	assert_int_equal(count(got, "<g class=\"nt-st\" data-step="), events);
	assert_int_equal(count(got, "<li data-step="), events);
	assert_int_equal(count(got, "data-nt=\"cell\""), c.count);
	assert_non_null(
		strstr(got, "<body data-variant=\"default\" data-round=\"2\" data-step=\"0\">"));
	snprintf(want, sizeof(want), "data-round=\"2\" data-verdict=\"stalled\"");
	assert_non_null(strstr(got, want));
	/* Inline diagrams share the page's markers and style: defined once. */
	assert_int_equal(count(got, "<marker id=\"nt-head-key\""), 1);
	free(got);
	nt_record_fini(&run);
}

/*
 * what this checks: a round the programs were not scheduled for carries its
 * disturbed line in the SVG as in the other formats, wrapped at spaces to
 * the panel's width, escaped; an undisturbed round in a run with disturbed
 * ones says how many; a quiet run has no such line
 */
static void test_svg_disturbed(void **state)
{
	struct nt_predict_round pr = { .disturbed = NT_SCHED_READ | NT_SCHED_PATH };
	struct collected c;
	struct nt_record run;
	struct nt_round_view rv;
	char *got = NULL;
	size_t size = 0;
	FILE *fp;
	const char *l1, *l2;

	(void)state;
	fixture_collect(&run, &c);
	snprintf(pr.disturbed_text, sizeof(pr.disturbed_text), "%s",
		 "the target read the request 15.0 ms after it arrived; the delay line forwarded "
		 "a frame up to 16.4 ms late (it was not scheduled): the round is judged on that "
		 "schedule & <more>");
	rv = (struct nt_round_view){
		.round = &c.rounds[0], .predicted = &pr, .ev = c.ev[0], .n = c.n[0]
	};
	fp = open_memstream(&got, &size);
	assert_non_null(fp);
	assert_int_equal(nt_svg_round(fp, &run, &rv), 0);
	assert_int_equal(fclose(fp), 0);
	l1 = strstr(got, ">disturbed: the target read the request 15.0 ms after it arrived; the "
			 "delay line forwarded a</text>");
	assert_non_null(l1);
	l2 = strstr(l1, ">frame up to 16.4 ms late (it was not scheduled): the round is judged on "
			"that schedule &amp; &lt;more&gt;</text>");
	assert_non_null(l2);
	free(got);

	/* Not this round, but others of the run: how many. */
	pr.disturbed = 0;
	run.disturbed_rounds = 3;
	got = NULL;
	fp = open_memstream(&got, &size);
	assert_non_null(fp);
	assert_int_equal(nt_svg_round(fp, &run, &rv), 0);
	assert_int_equal(fclose(fp), 0);
	assert_non_null(strstr(got, ">disturbed: 3 rounds of this run, judged on the "
				    "schedule the programs kept</text>"));
	free(got);

	run.disturbed_rounds = 0;
	got = NULL;
	fp = open_memstream(&got, &size);
	assert_non_null(fp);
	assert_int_equal(nt_svg_round(fp, &run, &rv), 0);
	assert_int_equal(fclose(fp), 0);
	assert_null(strstr(got, "disturbed"));
	free(got);
	nt_record_fini(&run);
}

/* Items of one round of the fixture as ladder items (arrows and ticks as svg.c makes them). */
static size_t ladder_items(const struct collected *c, unsigned round, struct nt_ladder_item *items)
{
	for (size_t i = 0; i < c->n[round]; i++) {
		const struct nt_event *e = &c->ev[round][i];
		bool tick = e->kind == NT_EVENT_SYSCALL;

		items[i] = (struct nt_ladder_item){
			.t_ns = e->t_ns,
			.is_tick = tick,
			.from_left = tick ? e->sys.side == NT_SIDE_CLIENT
					  : e->seg.dir == NT_DIR_C2T,
		};
		snprintf(items[i].text, sizeof(items[i].text), "%s  +%zu.000 ms",
			 tick ? "write(header+body) = 12" : "pure ACK", i);
	}
	return c->n[round];
}

/* The stalled round: one break band, right before the ACK that ends the stall; y grows. */
static void test_ladder_layout(void **state)
{
	struct nt_ladder_item items[64];
	struct nt_ladder l = { 0 };
	struct nt_ladder_pos pos[64], *p = pos;
	const struct nt_ladder *lp = &l;
	struct collected c;
	struct nt_record run;
	size_t n, breaks = 0;
	int height;

	(void)state;
	fixture_collect(&run, &c);
	assert_true(c.n[1] <= 64);
	n = ladder_items(&c, 1, items);
	assert_int_equal(n, c.rounds[1].events);
	l.items = items;
	l.n = n;
	height = nt_ladder_layout(&lp, 1, &p);
	assert_int_equal(nt_ladder_height(&l), height);
	for (size_t i = 1; i < n; i++) {
		assert_true(pos[i].y >= pos[i - 1].y + NT_LADDER_MIN_ADVANCE_PX);
		if (pos[i].band_top >= 0) {
			breaks++;
			assert_int_equal((long)i, c.rounds[1].marks.a);
			assert_true(pos[i].band_bottom - pos[i].band_top >= NT_LADDER_BREAK_PX);
		}
	}
	assert_int_equal(breaks, 1);
	assert_true(height > pos[n - 1].y + 50);
	assert_true(height < 1100);
	nt_record_fini(&run);
}

/* Two arrows 10 us apart: the second's label clears the first arrow and its label. */
static void test_ladder_no_collision(void **state)
{
	struct nt_ladder_item items[3] = {
		{ .t_ns = 1000, .from_left = true, .text = "header 4 B  +0.001 ms" },
		{ .t_ns = 11000, .from_left = false, .text = "pure ACK  +0.011 ms" },
		{ .t_ns = 21000, .from_left = true, .text = "body 8 B  +0.021 ms" },
	};
	struct nt_ladder l = { .items = items, .n = 3 };
	struct nt_ladder_pos pos[3], *p = pos;
	const struct nt_ladder *lp = &l;

	(void)state;
	nt_ladder_layout(&lp, 1, &p);
	/*
	 * An arrow from the left spans [y, y + slope] with its label above y;
	 * one from the right spans [y - slope, y] with its label above that.
	 * Each label is about 12 px high and 6 px above its line.
	 */
	assert_true(pos[1].y - NT_LADDER_SLOPE_PX - 18 > pos[0].y + NT_LADDER_SLOPE_PX);
	assert_true(pos[2].y - 18 > pos[1].y);
	assert_true(nt_ladder_label_width_px("pure ACK", 15, false) >= 8 * 9);
}

/* Panels laid out together: the same moment from each origin is at the same height. */
static void test_ladder_joint(void **state)
{
	struct nt_ladder_item a[2] = { { .t_ns = 5000, .from_left = true, .text = "a" },
				       { .t_ns = 50000000, .from_left = false, .text = "b" } };
	struct nt_ladder_item b[2] = { { .t_ns = 9005000, .from_left = true, .text = "a" },
				       { .t_ns = 9005010, .from_left = false, .text = "b" } };
	struct nt_ladder la = { .items = a, .n = 2, .origin_ns = 0 };
	struct nt_ladder lb = { .items = b, .n = 2, .origin_ns = 9000000 };
	const struct nt_ladder *ls[2] = { &la, &lb };
	struct nt_ladder_pos pa[2], pb[2], *pos[2] = { pa, pb };

	(void)state;
	nt_ladder_layout(ls, 2, pos);
	assert_true(pa[0].y <= pb[0].y && pb[0].y - pa[0].y <= NT_LADDER_MIN_ADVANCE_PX);
	assert_true(pa[1].y > pb[1].y);
	assert_true(pa[1].band_top >= 0);
	assert_int_equal(pb[1].band_top, -1);
}

/*
 * With a flight time (RTT 20 ms, 10 ms each way) an arrow runs from its
 * departure's height to its arrival's: the header captured leaving the
 * client at 0 lands where the target's call 10 ms later is; the ACK captured
 * arriving at 50 ms left where the target's call at 40 ms is. At the target,
 * the mirror image. Without one, every arrow falls the fixed slope.
 */
static void test_ladder_flight(void **state)
{
	const int64_t oneway_ns = 10000000;
	struct nt_ladder_item items[4] = {
		{ .t_ns = 0, .from_left = true, .text = "header 4 B  +0.000 ms" },
		{ .t_ns = oneway_ns, .is_tick = true, .text = "read = 4  +10.000 ms" },
		{ .t_ns = 4 * oneway_ns, .is_tick = true, .text = "write = 2  +40.000 ms" },
		{ .t_ns = 5 * oneway_ns, .from_left = false, .text = "pure ACK  +50.000 ms" },
	};
	struct nt_ladder l = { .items = items, .n = 4, .oneway_ns = oneway_ns };
	struct nt_ladder_pos pos[4], *p = pos;
	const struct nt_ladder *lp = &l;

	(void)state;
	nt_ladder_layout(&lp, 1, &p);
	assert_int_equal(pos[0].y_from, pos[0].y);
	assert_int_equal(pos[0].y_to, pos[1].y);
	assert_true(pos[0].y_to - pos[0].y_from > NT_LADDER_BREAK_PX);
	assert_int_equal(pos[3].y_to, pos[3].y);
	assert_int_equal(pos[3].y_from, pos[2].y);

	/* Captured at the target: the header is seen arriving, the ACK leaving. */
	items[0].t_ns = oneway_ns;
	items[1] = (struct nt_ladder_item){
		.t_ns = 0, .is_tick = true, .from_left = true, .text = "write = 4  +0.000 ms"
	};
	items[2] = (struct nt_ladder_item){ .t_ns = 4 * oneway_ns,
					    .from_left = false,
					    .text = "pure ACK  +40.000 ms" };
	items[3] = (struct nt_ladder_item){ .t_ns = 5 * oneway_ns,
					    .is_tick = true,
					    .from_left = true,
					    .text = "write = 8  +50.000 ms" };
	/* In time order: the client's write first. */
	struct nt_ladder_item sorted[4] = { items[1], items[0], items[2], items[3] };

	l.items = sorted;
	l.capture_right = true;
	nt_ladder_layout(&lp, 1, &p);
	assert_int_equal(pos[1].y_from, pos[0].y);
	assert_int_equal(pos[1].y_to, pos[1].y);
	assert_int_equal(pos[2].y_from, pos[2].y);
	assert_int_equal(pos[2].y_to, pos[3].y);

	/* No flight: the fixed slope, as before. */
	l.oneway_ns = 0;
	nt_ladder_layout(&lp, 1, &p);
	assert_int_equal(pos[1].y_to - pos[1].y_from, NT_LADDER_SLOPE_PX);
	assert_int_equal(pos[1].y_from, pos[1].y);
	assert_int_equal(pos[2].y_to, pos[2].y);
}

/* The path and the stall's cost, as every format words them. */
static void test_label_path_cost(void **state)
{
	struct nt_record_config c = { .rtt_ns = 20000000,
				      .delay_line = "wire",
				      .capture_at = "client" };
	char buf[192];

	(void)state;
	assert_string_equal(nt_label_path(&c, buf, sizeof(buf)),
			    "RTT 20 ms (user-space delay line), captured at the client");
	assert_string_equal(nt_label_stall_cost(&c, 63900000, 63900000, buf, sizeof(buf)),
			    "header->ACK 63.9 ms = the target's ACK delay 43.9 ms (delayed-ACK "
			    "timer) + RTT 20 ms");
	c.capture_at = "target";
	c.rtt_ns = 500000;
	assert_string_equal(nt_label_stall_cost(&c, 40000000, 41000000, buf, sizeof(buf)),
			    "the target's ACK delay 40.0 to 41.0 ms (seen here) + RTT 0.5 ms = "
			    "40.5 to 41.5 ms at the client");
	c.rtt_ns = 0;
	assert_string_equal(nt_label_path(&c, buf, sizeof(buf)), "");
	assert_string_equal(nt_label_stall_cost(&c, 40000000, 41000000, buf, sizeof(buf)), "");
}

static void test_view_helpers(void **state)
{
	struct nt_segment seg = { .role = NT_ROLE_HEADER, .payload_bytes = 4 };
	char buf[64];

	(void)state;
	assert_string_equal(nt_label_segment(&seg, buf, sizeof(buf)), "header 4 B");
	seg.role = NT_ROLE_PURE_ACK;
	seg.payload_bytes = 0;
	assert_string_equal(nt_label_segment(&seg, buf, sizeof(buf)), "pure ACK");
	assert_string_equal(nt_fmt_ms(-1, buf, sizeof(buf)), "-");
	assert_string_equal(nt_fmt_ms(43900000, buf, sizeof(buf)), "43.900 ms");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_verdicts),
		cmocka_unit_test(test_golden_json),
		cmocka_unit_test(test_golden_text),
		cmocka_unit_test(test_golden_text_explain),
		cmocka_unit_test(test_golden_markdown),
		cmocka_unit_test(test_golden_svg),
		cmocka_unit_test(test_svg_disturbed),
		cmocka_unit_test(test_golden_html),
		cmocka_unit_test(test_golden_two_runs),
		cmocka_unit_test(test_markdown_mermaid),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_escape_runs),
		cmocka_unit_test(test_escape_blocks),
		cmocka_unit_test(test_lesson_page),
		cmocka_unit_test(test_ladder_no_collision),
		cmocka_unit_test(test_ladder_joint),
		cmocka_unit_test(test_ladder_layout),
		cmocka_unit_test(test_ladder_flight),
		cmocka_unit_test(test_label_path_cost),
		cmocka_unit_test(test_view_helpers),
		cmocka_unit_test(test_view_pick),
		cmocka_unit_test(test_streamed_equals_whole),
		cmocka_unit_test(test_late_segment_goes_with_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
