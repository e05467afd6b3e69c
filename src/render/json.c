// SPDX-License-Identifier: MIT
/*
 * json.c - the JSON document (docs/json-schema.md), built with json-c.
 *
 * Times are integers in nanoseconds: t_ns absolute (CLOCK_REALTIME, since the
 * epoch), durations *_ns. Unknown durations are null, never -1.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "nt/model/tcp.h"
#include "nt/render/render.h"
#include "nt/version.h"

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *ns_or_null(int64_t ns)
{
	return ns >= 0 ? json_object_new_int64(ns) : NULL;
}

static struct json_object *event_json(const struct nt_event *e)
{
	struct json_object *o = json_object_new_object();

	add(o, "kind", json_object_new_string(e->kind == NT_EVENT_SEGMENT ? "segment" : "syscall"));
	add(o, "t_ns", json_object_new_int64(e->t_ns));
	if (e->kind == NT_EVENT_SEGMENT) {
		const struct nt_segment *s = &e->seg;
		char flags[12];

		add(o, "dir", json_object_new_string(nt_dir_name(s->dir)));
		add(o, "flags", json_object_new_string(nt_tcp_flags_str(s->flags, flags)));
		add(o, "seq", json_object_new_int64(s->seq_rel));
		add(o, "ack", json_object_new_int64(s->ack_rel));
		add(o, "len", json_object_new_int64(s->payload_bytes));
		add(o, "win", json_object_new_int(s->window));
		add(o, "role", json_object_new_string(nt_role_name(s->role)));
		add(o, "frame", json_object_new_int64((int64_t)s->frame_index));
	} else {
		const struct nt_syscall *c = &e->sys;

		add(o, "side",
		    json_object_new_string(c->side == NT_SIDE_CLIENT ? "client" : "target"));
		add(o, "call", json_object_new_string(nt_call_name(c->call)));
		add(o, "enter_ns", json_object_new_int64(c->enter_ns));
		add(o, "bytes", json_object_new_int64(c->bytes));
	}
	return o;
}

static struct json_object *events_json(const struct nt_round_view *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t k = 0; k < v->n; k++)
		json_object_array_add(a, event_json(&v->ev[k]));
	return a;
}

/* ---- evidence (docs/json-schema.md, "Evidence") ----------------------------------------- */

static struct json_object *int_or_null(int64_t v)
{
	return v >= 0 ? json_object_new_int64(v) : NULL;
}

static struct json_object *t_or_null(int64_t t_ns)
{
	return t_ns > 0 ? json_object_new_int64(t_ns) : NULL;
}

static struct json_object *bool_or_null(int v)
{
	return v >= 0 ? json_object_new_boolean(v) : NULL;
}

/* The round's kernel evidence, or NULL when the run gathered none. */
static struct json_object *round_evidence_json(const struct nt_round_evidence *re)
{
	struct json_object *o;

	if (!re)
		return NULL;
	o = json_object_new_object();
	add(o, "body_write_ns", t_or_null(re->body_write_ns));
	add(o, "client_unsent_after_write", int_or_null(re->client_unsent_bytes));
	add(o, "client_unacked", int_or_null(re->client_unacked));
	add(o, "client_snd_mss", int_or_null(re->client_snd_mss));
	add(o, "body_sched_ns", t_or_null(re->body_sched_ns));
	add(o, "body_dev_ns", t_or_null(re->body_dev_ns));
	add(o, "body_acked_ns", t_or_null(re->body_acked_ns));
	add(o, "body_hold_ns", int_or_null(re->body_hold_ns));
	add(o, "target_sample_ns", t_or_null(re->target_sample_ns));
	add(o, "target_queued_bytes", int_or_null(re->target_queued_bytes));
	add(o, "target_ato_ms",
	    re->target_ato_us >= 0 ? json_object_new_double((double)re->target_ato_us / 1000.0)
				   : NULL);
	add(o, "target_proc_ato_ms", int_or_null(re->target_proc_ato_ms));
	add(o, "target_rto_ms", int_or_null(re->target_rto_ms));
	add(o, "target_pingpong", bool_or_null(re->target_pingpong));
	add(o, "target_quick", int_or_null(re->target_quick));
	add(o, "target_quickack_mode", bool_or_null(re->target_quickack_mode));
	add(o, "target_rcv_mss", int_or_null(re->target_rcv_mss));
	return o;
}

/* Run-level kernel counters into the summary object; nothing when none were gathered. */
static void summary_evidence_json(struct json_object *o, const struct nt_run *run)
{
	const struct nt_run_evidence *e = &run->evidence;

	if (!e->rounds)
		return;
	add(o, "delayed_acks", int_or_null(e->delayed_acks));
	add(o, "delayed_ack_locked", int_or_null(e->delayed_ack_locked));
	add(o, "delayed_ack_lost", int_or_null(e->delayed_ack_lost));
	add(o, "tcp_autocorking", int_or_null(e->tcp_autocorking));
	add(o, "tx_timestamps", json_object_new_int64((int64_t)e->tx_timestamps));
}

static struct json_object *round_json(const struct nt_run *run, const struct nt_round_view *rv)
{
	const struct nt_round *r = rv->round;
	struct json_object *o = json_object_new_object();

	add(o, "index", json_object_new_int((int)r->index));
	add(o, "verdict", json_object_new_string(nt_verdict_name(r->verdict)));
	add(o, "start_ns", r->start_ns ? json_object_new_int64(r->start_ns) : NULL);
	add(o, "rtt_ns", ns_or_null(r->rtt_ns));
	add(o, "header_ack_gap_ns", ns_or_null(r->gap_ns));
	add(o, "ack_body_gap_ns", ns_or_null(r->release_ns));
	add(o, "client_data_segments", json_object_new_int((int)r->client_data_segments));
	add(o, "body_written_after_ack", json_object_new_boolean(r->body_written_after_ack));
	if (run->evidence.rounds)
		add(o, "evidence", round_evidence_json(rv->evidence));
	add(o, "events", events_json(rv));
	return o;
}

static struct json_object *endpoint(const char *addr, unsigned port)
{
	struct json_object *o = json_object_new_object();

	add(o, "addr", json_object_new_string(addr));
	add(o, "port", json_object_new_int((int)port));
	return o;
}

static struct json_object *config_json(const struct nt_run *run)
{
	const struct nt_run_config *c = &run->cfg;
	struct json_object *o = json_object_new_object();

	add(o, "header_bytes", json_object_new_int64(c->shape.header_bytes));
	add(o, "body_bytes", json_object_new_int64(c->shape.body_bytes));
	add(o, "reply_bytes", json_object_new_int64(c->shape.reply_bytes));
	add(o, "rounds", json_object_new_int64(c->shape.rounds));
	add(o, "pause_ns", json_object_new_int64(c->pause_ns));
	add(o, "threshold_ns", json_object_new_int64(c->threshold_ns));
	add(o, "timeout_ns", json_object_new_int64(c->timeout_ns));
	add(o, "capture", json_object_new_string(c->capture));
	add(o, "expect", json_object_new_string(nt_expect_name(c->expect)));
	add(o, "family", json_object_new_string(c->family == AF_INET6 ? "ipv6" : "ipv4"));
	add(o, "client", endpoint(c->client_addr, c->client_port));
	add(o, "target", endpoint(c->target_addr, c->target_port));
	add(o, "interface", json_object_new_string(c->ifname));
	add(o, "kernel", json_object_new_string(c->kernel));
	return o;
}

static struct json_object *timings_json(const struct nt_run_timings *t)
{
	struct json_object *o = json_object_new_object();

	add(o, "lab_ns", json_object_new_int64(t->lab_ns));
	add(o, "listen_ns", json_object_new_int64(t->listen_ns));
	add(o, "capture_open_ns", json_object_new_int64(t->capture_open_ns));
	add(o, "exchange_ns", json_object_new_int64(t->exchange_ns));
	add(o, "assemble_ns", json_object_new_int64(t->assemble_ns));
	add(o, "close_ns", json_object_new_int64(t->close_ns));
	add(o, "total_ns", json_object_new_int64(t->total_ns));
	return o;
}

static struct json_object *summary_json(const struct nt_run *run)
{
	const struct nt_summary *s = &run->summary;
	struct json_object *o = json_object_new_object();
	struct json_object *v = json_object_new_object();
	struct json_object *exp = json_object_new_object();

	add(o, "rounds", json_object_new_int((int)s->rounds));
	for (unsigned i = 0; i < NT_VERDICT_COUNT; i++)
		add(v, nt_verdict_name((enum nt_verdict)i),
		    json_object_new_int((int)s->verdicts[i]));
	add(o, "verdicts", v);
	add(o, "stalled_rounds", json_object_new_int((int)s->verdicts[NT_VERDICT_STALLED]));
	add(o, "rtt_p50_ns", ns_or_null(s->rtt_p50_ns));
	add(o, "rtt_p90_ns", ns_or_null(s->rtt_p90_ns));
	add(o, "rtt_max_ns", ns_or_null(s->rtt_max_ns));
	add(o, "stall_min_ns", ns_or_null(s->stall_min_ns));
	add(o, "stall_max_ns", ns_or_null(s->stall_max_ns));
	add(o, "client_data_segments", json_object_new_int((int)s->client_data_segments));
	add(o, "client_mss", json_object_new_int(run->client_mss));
	add(o, "target_mss", json_object_new_int(run->target_mss));
	add(o, "frames", json_object_new_int64((int64_t)run->counts.frames));
	add(o, "dropped",
	    json_object_new_int64((int64_t)(run->counts.kernel_dropped + run->counts.if_dropped)));
	add(o, "uncertain", json_object_new_boolean(run->uncertain));
	add(o, "teardown_seen", json_object_new_boolean(run->teardown_seen));
	add(o, "interrupted", json_object_new_boolean(run->interrupted));
	summary_evidence_json(o, run);
	add(exp, "expect", json_object_new_string(nt_expect_name(run->cfg.expect)));
	add(exp, "met", json_object_new_boolean(run->expectation_met));
	add(exp, "reason",
	    run->expectation_met ? NULL : json_object_new_string(run->expectation_reason));
	add(o, "expectation", exp);
	add(o, "timings", timings_json(&run->timings));
	return o;
}

static struct json_object *tool_json(void)
{
	struct json_object *tool = json_object_new_object();

	add(tool, "name", json_object_new_string("nagle-trace"));
	add(tool, "version", json_object_new_string(NT_VERSION));
	return tool;
}

/* One run's document; @top adds schema_version and tool (a single-run document). */
/*
 * Streaming: a document of 20000 rounds held as one json-c tree took
 * ~450 MiB. Each member (config, one round, summary) is built and
 * serialised by json-c and freed at once; only the document's own braces,
 * member names and commas are written here. Indentation follows json-c's
 * pretty printer (two spaces a level).
 */
#define JSON_FLAGS \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Writes @o (consumed; NULL is null) as a value whose line starts at @depth. */
static void emit(FILE *out, struct json_object *o, int depth)
{
	for (const char *p = json_object_to_json_string_ext(o, JSON_FLAGS); *p; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fprintf(out, "%*s", depth * 2, "");
	}
	json_object_put(o);
}

/* "key": value, at @depth; @more adds the comma. */
static void member(FILE *out, const char *key, struct json_object *o, int depth, bool more)
{
	fprintf(out, "%*s\"%s\": ", depth * 2, "", key);
	emit(out, o, depth);
	fputs(more ? ",\n" : "\n", out);
}

/*
 * A run is written as it goes: its head when it begins, each round as it is
 * retired, its tail when it ends. Several runs sit in a "runs" array.
 */
struct json_doc {
	unsigned rounds_written;
};

static int run_depth(const struct nt_renderer *r)
{
	return r->n_runs > 1 ? 2 : 0;
}

static int json_open(struct nt_renderer *r)
{
	r->state = calloc(1, sizeof(struct json_doc));
	return r->state ? 0 : -ENOMEM;
}

static void json_close(struct nt_renderer *r)
{
	free(r->state);
}

/* A document of several runs, up to its "runs" array's opening bracket. */
static void runs_head(FILE *out)
{
	fputs("{\n", out);
	member(out, "schema_version", json_object_new_int(NT_SCHEMA_VERSION), 1, true);
	member(out, "tool", tool_json(), 1, true);
	fputs("  \"runs\": [", out);
}

static int json_begin(struct nt_renderer *r, const struct nt_run *run,
		      const struct nt_round_view *hs)
{
	struct json_doc *d = r->state;
	FILE *out = r->out;
	int depth = run_depth(r), in = depth + 1;

	if (r->n_runs > 1) {
		if (r->run == 0)
			runs_head(out);
		fprintf(out, "%s\n    ", r->run ? "," : "");
	}
	fputs("{\n", out);
	if (r->n_runs == 1) {
		member(out, "schema_version", json_object_new_int(NT_SCHEMA_VERSION), in, true);
		member(out, "tool", tool_json(), in, true);
	}
	member(out, "variant", json_object_new_string(run->cfg.variant), in, true);
	member(out, "config", config_json(run), in, true);
	member(out, "handshake", events_json(hs), in, true);
	fprintf(out, "%*s\"rounds\": [", in * 2, "");
	d->rounds_written = 0;
	return 0;
}

static int json_round(struct nt_renderer *r, const struct nt_run *run,
		      const struct nt_round_view *rv)
{
	struct json_doc *d = r->state;
	int in = run_depth(r) + 1;

	fprintf(r->out, "%s\n%*s", d->rounds_written ? "," : "", (in + 1) * 2, "");
	emit(r->out, round_json(run, rv), in + 1);
	d->rounds_written++;
	return 0;
}

static int json_end(struct nt_renderer *r, const struct nt_run *run, const struct nt_round_view *td)
{
	struct json_doc *d = r->state;
	FILE *out = r->out;
	int depth = run_depth(r), in = depth + 1;

	if (d->rounds_written)
		fprintf(out, "\n%*s", in * 2, "");
	fputs("],\n", out);
	member(out, "teardown", events_json(td), in, true);
	member(out, "interrupted", json_object_new_boolean(run->interrupted), in, true);
	member(out, "summary", summary_json(run), in, false);
	fprintf(out, "%*s}", depth * 2, "");
	if (r->n_runs == 1)
		fputc('\n', out);
	return 0;
}

static int json_finish(struct nt_renderer *r, const struct nt_run *runs, unsigned n_runs)
{
	(void)runs;
	(void)n_runs;
	/* No run ended (stopped before the first): still one valid document, with no runs. */
	if (r->n_runs > 1 || r->run == 0) {
		if (r->run == 0)
			runs_head(r->out);
		fputs("\n  ]\n}\n", r->out);
	}
	return ferror(r->out) ? -EIO : 0;
}

const struct nt_format nt_format_json = {
	.name = "json",
	.open = json_open,
	.begin = json_begin,
	.round = json_round,
	.end = json_end,
	.finish = json_finish,
	.close = json_close,
};
