// SPDX-License-Identifier: MIT
/*
 * fuzz_run.c - libFuzzer target for the run model and the renderers: the
 * input is a run (its shape, then events: segments and system calls with
 * arbitrary sequence numbers, flags and times), built twice. One copy is
 * finished at once, the other retired round by round as a live run does;
 * every format must write byte-identical documents from both. Then the
 * events are fed again with a retire after each one (segments arriving
 * after their round was handed over): every event must reach the sink
 * exactly once, nothing may crash or leak.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/render/fmt.h"
#include "nt/render/format.h"
#include "nt/render/labels.h"
#include "nt/render/ladder.h"
#include "nt/render/pick.h"
#include "nt/render/render.h"

#define MAX_EVENTS  96
#define EVENT_BYTES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	struct nt_shape shape;
	struct nt_event ev[MAX_EVENTS];
	size_t n;
	bool evidence;
};

/* Small numbers, so segments land in the rounds' ranges as often as not. */
static void parse(const uint8_t *d, size_t size, struct input *in)
{
	int64_t t = 1800000000000000000LL;

	memset(in, 0, sizeof(*in));
	in->shape = (struct nt_shape){ .header_bytes = 1 + d[0] % 5,
				       .body_bytes = 1 + d[1] % 9,
				       .reply_bytes = 1 + d[2] % 3,
				       .rounds = 1 + d[3] % 6 };
	in->evidence = d[3] & 0x80;
	for (size_t o = 4; o + EVENT_BYTES <= size && in->n < MAX_EVENTS; o += EVENT_BYTES) {
		const uint8_t *b = d + o;
		struct nt_event *e = &in->ev[in->n++];

		/* Mostly forward in time; sometimes back, which the timeline sorts. */
		t += (int64_t)(b[7] & 0x7f) * 1000 * ((b[7] & 0x80) ? -1 : 40);
		e->t_ns = t;
		e->round = NT_ROUND_NONE;
		if (b[0] & 1) {
			e->kind = NT_EVENT_SYSCALL;
			e->round = (int)(b[1] % (in->shape.rounds + 2)) - 1;
			e->sys.side = (b[0] >> 1) & 1 ? NT_SIDE_TARGET : NT_SIDE_CLIENT;
			e->sys.call = (enum nt_call)(b[2] % (NT_CALL_WRITE_REPLY + 1));
			e->sys.enter_ns = t - b[3];
			e->sys.bytes = b[4];
		} else {
			e->kind = NT_EVENT_SEGMENT;
			e->seg.dir = (b[0] >> 1) & 1 ? NT_DIR_T2C : NT_DIR_C2T;
			e->seg.flags = b[1];
			e->seg.seq_rel = b[2];
			e->seg.ack_rel = b[3];
			e->seg.payload_bytes = b[4] % 16;
			e->seg.window = b[5];
			e->seg.frame_index = in->n;
		}
	}
}

static void make_run(struct nt_record *run, const struct input *in, bool with_events)
{
	struct nt_record_config *c = &run->cfg;

	memset(run, 0, sizeof(*run));
	c->variant = "fuzz";
	c->shape = in->shape;
	c->threshold_ns = 10000000;
	c->timeout_ns = 2000000000;
	c->capture = "packet";
	c->expect = NT_EXPECT_STALLED;
	c->family = AF_INET;
	snprintf(c->client_addr, sizeof(c->client_addr), "192.0.2.1");
	snprintf(c->target_addr, sizeof(c->target_addr), "192.0.2.2");
	c->ifname = "nt-c";
	run->teardown_seen = true;
	if (in->evidence) {
		/* A ring shorter than the run, so entries are reused. */
		run->evidence.n_rounds = 2;
		run->evidence.rounds = calloc(2, sizeof(*run->evidence.rounds));
		if (!run->evidence.rounds)
			abort();
		for (unsigned i = 0; i < 2; i++) {
			nt_round_evidence_reset(&run->evidence.rounds[i]);
			run->evidence.rounds[i].body_write_ns = in->ev[0].t_ns;
			run->evidence.rounds[i].body_dev_ns = in->ev[0].t_ns + 5;
		}
	}
	for (size_t i = 0; with_events && i < in->n; i++)
		if (nt_timeline_append(&run->tl, &in->ev[i]) < 0)
			abort();
}

static char *render_whole(const struct nt_trace_doc *fmt, const struct input *in,
			  const struct nt_render_opts *ro)
{
	struct nt_record run;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (!fp)
		abort();
	make_run(&run, in, true);
	if (nt_render_runs(fmt, fp, &run, 1, ro) < 0)
		abort();
	fclose(fp);
	nt_record_fini(&run);
	return text;
}

static char *render_streamed(const struct nt_trace_doc *fmt, const struct input *in,
			     const struct nt_render_opts *ro)
{
	struct nt_renderer r;
	struct nt_record run;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (!fp)
		abort();
	make_run(&run, in, true);
	if (nt_renderer_open(&r, fmt, fp, ro, 1) < 0)
		abort();
	for (unsigned k = 1; k < in->shape.rounds; k++)
		if (nt_record_retire(&run, k, nt_renderer_sink(&r)) < 0)
			abort();
	if (nt_record_finish(&run, nt_renderer_sink(&r)) < 0 || run.tl.n != 0)
		abort();
	if (nt_renderer_finish(&r, &run, 1) < 0)
		abort();
	nt_renderer_close(&r);
	fclose(fp);
	nt_record_fini(&run);
	return text;
}

static size_t handed;

static int count_begin(void *ctx, const struct nt_record *run, const struct nt_round_view *v)
{
	(void)ctx;
	(void)run;
	handed += v->n;
	return 0;
}

static int count_round(void *ctx, const struct nt_record *run, const struct nt_round_view *v)
{
	(void)ctx;
	/* A round's events are its own, and its marks point inside them. */
	for (size_t i = 0; i < v->n; i++)
		if (v->ev[i].round != (int)v->round->index)
			abort();
	if (v->round->marks.h >= (long)v->n || v->round->marks.a >= (long)v->n ||
	    v->round->marks.b >= (long)v->n || v->round->index > run->cfg.shape.rounds)
		abort();
	handed += v->n;
	return 0;
}

static int count_end(void *ctx, const struct nt_record *run, const struct nt_round_view *v)
{
	(void)ctx;
	(void)run;
	handed += v->n;
	return 0;
}

/* Events arrive between retires, as in a live run, some of them late. */
static void feed_with_retires(const struct input *in)
{
	struct nt_record_sink sink = {
		.begin = count_begin, .round = count_round, .end = count_end, .ctx = NULL
	};
	struct nt_record run;

	make_run(&run, in, false);
	handed = 0;
	for (size_t i = 0; i < in->n; i++) {
		if (nt_timeline_append(&run.tl, &in->ev[i]) < 0)
			abort();
		if (nt_record_retire(&run, (unsigned)(i % (in->shape.rounds + 1)), &sink) < 0)
			abort();
	}
	if (nt_record_finish(&run, &sink) < 0 || handed != in->n)
		abort();
	if (run.summary.rounds != in->shape.rounds)
		abort();
	nt_record_fini(&run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "text", "json", "markdown", "svg", "html" };
	const struct nt_render_opts opts[] = { { .summary_only = false },
					       { .summary_only = true } };
	struct input *in;

	if (size < 4)
		return 0;
	in = malloc(sizeof(*in));
	if (!in)
		return 0;
	parse(data, size, in);
	for (unsigned f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		const struct nt_trace_doc *fmt = nt_format_find(names[f], NT_FORMAT_TRACE)->trace;

		for (unsigned o = 0; o < 2; o++) {
			char *whole = render_whole(fmt, in, &opts[o]);
			char *streamed = render_streamed(fmt, in, &opts[o]);

			if (strcmp(whole, streamed) != 0)
				abort();
			free(whole);
			free(streamed);
		}
	}
	feed_with_retires(in);
	free(in);
	return 0;
}
