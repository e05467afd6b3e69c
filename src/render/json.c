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
#include "nt/model/predict_words.h"
#include "nt/render/json.h"
#include "nt/render/labels.h"
#include "nt/render/why.h"
#include "nt/render/render.h"
#include "nt/unknown.h"

static struct json_object *event_json(bool *oom, const struct nt_event *e)
{
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "kind",
		    json_object_new_string(e->kind == NT_EVENT_SEGMENT ? "segment" : "syscall"));
	nt_json_put(oom, o, "t_ns", json_object_new_int64(e->t_ns));
	if (e->kind == NT_EVENT_SEGMENT) {
		const struct nt_segment *s = &e->seg;
		char flags[12];

		nt_json_put(oom, o, "dir", json_object_new_string(nt_dir_name(s->dir)));
		nt_json_put(oom, o, "flags",
			    json_object_new_string(nt_tcp_flags_str(s->flags, flags)));
		nt_json_put(oom, o, "seq", json_object_new_int64(s->seq_rel));
		nt_json_put(oom, o, "ack", json_object_new_int64(s->ack_rel));
		nt_json_put(oom, o, "len", json_object_new_int64(s->payload_bytes));
		nt_json_put(oom, o, "win", json_object_new_int(s->window));
		nt_json_put(oom, o, "role", json_object_new_string(nt_role_name(s->role)));
		nt_json_put(oom, o, "frame", json_object_new_int64((int64_t)s->frame_index));
	} else {
		const struct nt_syscall *c = &e->sys;

		nt_json_put(
			oom, o, "side",
			json_object_new_string(c->side == NT_SIDE_CLIENT ? "client" : "target"));
		nt_json_put(oom, o, "call", json_object_new_string(nt_call_name(c->call)));
		nt_json_put(oom, o, "enter_ns", json_object_new_int64(c->enter_ns));
		nt_json_put(oom, o, "bytes", json_object_new_int64(c->bytes));
	}
	return o;
}

/* The model's decisions behind event @k: "why" (the first), "why_also" (what sent an ACK, released a body). */
static void put_event_why(bool *oom, struct json_object *o, const struct nt_round_view *v, size_t k)
{
	const struct nt_predict_why *why[NT_WHY_MAX];
	unsigned n = nt_why_event(v, k, why);

	if (n > 0)
		nt_json_put(oom, o, "why", nt_json_why(oom, why[0]));
	if (n > 1)
		nt_json_put(oom, o, "why_also", nt_json_why(oom, why[1]));
}

static struct json_object *events_json(bool *oom, const struct nt_round_view *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t k = 0; k < v->n; k++) {
		struct json_object *e = event_json(oom, &v->ev[k]);

		put_event_why(oom, e, v, k);
		nt_json_append(oom, a, e);
	}
	return a;
}

/*
 * A round predicted on the observed schedule (nt_predict_observe()): which
 * parts of it were late, and the line that names it. Present only on such
 * rounds, so a quiet run's document is as before.
 */
static struct json_object *disturbed_json(bool *oom, const struct nt_predict_round *p)
{
	static const char *const part[] = { "read", "reply",	   "write_gap", "pause",
					    "path", "body_return", "timer" };
	struct json_object *o = json_object_new_object();
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		if (p->disturbed & (1u << i))
			nt_json_append(oom, a, json_object_new_string(part[i]));
	nt_json_put(oom, o, "parts", a);
	nt_json_put(oom, o, "text", json_object_new_string(p->disturbed_text));
	return o;
}

/* A round's prediction (docs/json-schema.md, "The model"). */
static void put_prediction(bool *oom, struct json_object *o, const struct nt_round_view *rv)
{
	const struct nt_predict_round *p = rv->predicted;
	struct json_object *set;

	if (!p) {
		nt_json_put_null(oom, o, "predicted_verdict");
		return;
	}
	set = json_object_new_array();
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++)
		if (p->verdicts & NT_PREDICT_VERDICT_BIT(v))
			nt_json_append(oom, set,
				       json_object_new_string(nt_verdict_name((enum nt_verdict)v)));
	nt_json_put(oom, o, "predicted_verdict",
		    json_object_new_string(nt_verdict_name(p->verdict)));
	nt_json_put(oom, o, "predicted_verdicts", set);
	nt_json_put(oom, o, "as_predicted",
		    json_object_new_boolean(nt_predict_accepts(p, rv->round->verdict)));
	nt_json_put(oom, o, "why", nt_json_why(oom, &p->verdict_why));
	nt_json_put_why(oom, o, "uncertain", &p->uncertain);
	nt_json_put_str(oom, o, "evidence_differs",
			rv->evidence_diff && rv->evidence_diff->n
				? NT_PREDICT_EVIDENCE_WORDS(rv->evidence_diff)
				: NULL);
	if (p->disturbed)
		nt_json_put(oom, o, "disturbed", disturbed_json(oom, p));
}

/* The run's model: the kernel it assumed and how its predictions fared. */
static struct json_object *model_json(bool *oom, const struct nt_record *run)
{
	const struct nt_predict_knobs *k = &run->predict.knobs;
	struct json_object *o = json_object_new_object();
	char kernel[32];

	snprintf(kernel, sizeof(kernel), "%u.%u", k->kernel.major, k->kernel.minor);
	nt_json_put(oom, o, "kernel", json_object_new_string(kernel));
	nt_json_put(oom, o, "hz", json_object_new_int((int)k->hz));
	nt_json_put(oom, o, "hz_source", json_object_new_string(run->cfg.hz_source));
	nt_json_put(oom, o, "fix", nt_json_why(oom, &run->fix));
	nt_json_put(oom, o, "rounds_not_as_predicted",
		    json_object_new_int((int)run->predict_misses));
	nt_json_put(oom, o, "evidence_disagreements",
		    json_object_new_int((int)run->evidence_disagreements));
	return o;
}

/* ---- evidence (docs/json-schema.md, "Evidence") ----------------------------------------- */

/* A known/unknown flag (-1 unknown) as true, false or null. */
static void put_bool(bool *oom, struct json_object *o, const char *key, int v)
{
	if (v >= 0)
		nt_json_put(oom, o, key, json_object_new_boolean(v));
	else
		nt_json_put_null(oom, o, key);
}

/* The round's kernel evidence. */
static struct json_object *round_evidence_json(bool *oom, const struct nt_round_evidence *re)
{
	struct json_object *o = json_object_new_object();

	nt_json_put_i64(oom, o, "body_write_ns", re->body_write_ns, nt_known(re->body_write_ns));
	nt_json_put_i64(oom, o, "client_unsent_after_write", re->client_unsent_bytes,
			re->client_unsent_bytes >= 0);
	nt_json_put_i64(oom, o, "client_unacked", re->client_unacked, re->client_unacked >= 0);
	nt_json_put_i64(oom, o, "client_snd_mss", re->client_snd_mss, re->client_snd_mss >= 0);
	nt_json_put_i64(oom, o, "body_sched_ns", re->body_sched_ns, nt_known(re->body_sched_ns));
	nt_json_put_i64(oom, o, "body_dev_ns", re->body_dev_ns, nt_known(re->body_dev_ns));
	nt_json_put_i64(oom, o, "body_acked_ns", re->body_acked_ns, nt_known(re->body_acked_ns));
	nt_json_put_i64(oom, o, "body_hold_ns", re->body_hold_ns, re->body_hold_ns >= 0);
	nt_json_put_i64(oom, o, "target_sample_ns", re->target_sample_ns,
			nt_known(re->target_sample_ns));
	nt_json_put_i64(oom, o, "target_queued_bytes", re->target_queued_bytes,
			re->target_queued_bytes >= 0);
	if (re->target_ato_us >= 0)
		nt_json_put(oom, o, "target_ato_ms",
			    json_object_new_double((double)re->target_ato_us / 1000.0));
	else
		nt_json_put_null(oom, o, "target_ato_ms");
	nt_json_put_i64(oom, o, "target_proc_ato_ms", re->target_proc_ato_ms,
			re->target_proc_ato_ms >= 0);
	nt_json_put_i64(oom, o, "target_rto_ms", re->target_rto_ms, re->target_rto_ms >= 0);
	put_bool(oom, o, "target_pingpong", re->target_pingpong);
	nt_json_put_i64(oom, o, "target_quick", re->target_quick, re->target_quick >= 0);
	put_bool(oom, o, "target_quickack_mode", re->target_quickack_mode);
	nt_json_put_i64(oom, o, "target_rcv_mss", re->target_rcv_mss, re->target_rcv_mss >= 0);
	return o;
}

/* Run-level kernel counters into the summary object; nothing when none were gathered. */
static void summary_evidence_json(bool *oom, struct json_object *o, const struct nt_record *run)
{
	const struct nt_record_evidence *e = &run->evidence;

	if (!e->rounds)
		return;
	nt_json_put_i64(oom, o, "delayed_acks", e->delayed_acks, e->delayed_acks >= 0);
	nt_json_put_i64(oom, o, "delayed_ack_locked", e->delayed_ack_locked,
			e->delayed_ack_locked >= 0);
	nt_json_put_i64(oom, o, "delayed_ack_lost", e->delayed_ack_lost, e->delayed_ack_lost >= 0);
	nt_json_put_i64(oom, o, "tcp_autocorking", e->tcp_autocorking, e->tcp_autocorking >= 0);
	nt_json_put(oom, o, "tx_timestamps", json_object_new_int64((int64_t)e->tx_timestamps));
}

static struct json_object *round_json(bool *oom, const struct nt_record *run,
				      const struct nt_round_view *rv)
{
	const struct nt_round *r = rv->round;
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "index", json_object_new_int((int)r->index));
	nt_json_put(oom, o, "verdict", json_object_new_string(nt_verdict_name(r->verdict)));
	nt_json_put_i64(oom, o, "start_ns", r->start_ns, nt_known(r->start_ns));
	nt_json_put_i64(oom, o, "rtt_ns", r->rtt_ns, r->rtt_ns >= 0);
	nt_json_put_i64(oom, o, "header_ack_gap_ns", r->gap_ns, r->gap_ns >= 0);
	nt_json_put_i64(oom, o, "ack_body_gap_ns", r->release_ns, r->release_ns >= 0);
	/* Only with a delay line that was late: the gap less this is the target's. */
	if (r->marks.path_late_ns > 0)
		nt_json_put(oom, o, "header_ack_wire_late_ns",
			    json_object_new_int64(r->marks.path_late_ns));
	nt_json_put(oom, o, "client_data_segments",
		    json_object_new_int((int)r->client_data_segments));
	nt_json_put(oom, o, "body_written_after_ack",
		    json_object_new_boolean(r->body_written_after_ack));
	put_prediction(oom, o, rv);
	if (run->evidence.rounds && rv->evidence)
		nt_json_put(oom, o, "evidence", round_evidence_json(oom, rv->evidence));
	else if (run->evidence.rounds)
		nt_json_put_null(oom, o, "evidence");
	nt_json_put(oom, o, "events", events_json(oom, rv));
	return o;
}

static struct json_object *endpoint(bool *oom, const char *addr, unsigned port)
{
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "addr", json_object_new_string(addr));
	nt_json_put(oom, o, "port", json_object_new_int((int)port));
	return o;
}

static struct json_object *config_json(bool *oom, const struct nt_record *run)
{
	const struct nt_record_config *c = &run->cfg;
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "header_bytes", json_object_new_int64(c->shape.header_bytes));
	nt_json_put(oom, o, "body_bytes", json_object_new_int64(c->shape.body_bytes));
	nt_json_put(oom, o, "reply_bytes", json_object_new_int64(c->shape.reply_bytes));
	nt_json_put(oom, o, "rounds", json_object_new_int64(c->shape.rounds));
	nt_json_put(oom, o, "pause_ns", json_object_new_int64(c->pause_ns));
	nt_json_put(oom, o, "threshold_ns", json_object_new_int64(c->threshold_ns));
	nt_json_put(oom, o, "timeout_ns", json_object_new_int64(c->timeout_ns));
	nt_json_put(oom, o, "capture", json_object_new_string(c->capture));
	nt_json_put(oom, o, "expect", json_object_new_string(nt_expect_name(c->expect)));
	nt_json_put(oom, o, "family",
		    json_object_new_string(c->family == AF_INET6 ? "ipv6" : "ipv4"));
	nt_json_put(oom, o, "client", endpoint(oom, c->client_addr, c->client_port));
	nt_json_put(oom, o, "target", endpoint(oom, c->target_addr, c->target_port));
	nt_json_put(oom, o, "interface", json_object_new_string(c->ifname));
	nt_json_put(oom, o, "capture_at",
		    json_object_new_string(c->capture_at ? c->capture_at : "client"));
	nt_json_put(oom, o, "rtt_ns", json_object_new_int64(c->rtt_ns));
	nt_json_put(oom, o, "delay_line",
		    json_object_new_string(c->delay_line ? c->delay_line : "none"));
	nt_json_put(oom, o, "kernel", json_object_new_string(c->kernel));
	return o;
}

static struct json_object *timings_json(bool *oom, const struct nt_record_timings *t)
{
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "lab_ns", json_object_new_int64(t->lab_ns));
	nt_json_put(oom, o, "listen_ns", json_object_new_int64(t->listen_ns));
	nt_json_put(oom, o, "capture_open_ns", json_object_new_int64(t->capture_open_ns));
	nt_json_put(oom, o, "exchange_ns", json_object_new_int64(t->exchange_ns));
	nt_json_put(oom, o, "assemble_ns", json_object_new_int64(t->assemble_ns));
	nt_json_put(oom, o, "close_ns", json_object_new_int64(t->close_ns));
	nt_json_put(oom, o, "total_ns", json_object_new_int64(t->total_ns));
	return o;
}

static struct json_object *summary_json(bool *oom, const struct nt_record *run)
{
	const struct nt_summary *s = &run->summary;
	struct json_object *o = json_object_new_object();
	struct json_object *v = json_object_new_object();
	struct json_object *exp = json_object_new_object();
	char reason[NT_LABEL_EXPECTATION_LEN];

	nt_json_put(oom, o, "rounds", json_object_new_int((int)s->rounds));
	for (unsigned i = 0; i < NT_VERDICT_COUNT; i++)
		nt_json_put(oom, v, nt_verdict_name((enum nt_verdict)i),
			    json_object_new_int((int)s->verdicts[i]));
	nt_json_put(oom, o, "verdicts", v);
	nt_json_put(oom, o, "stalled_rounds",
		    json_object_new_int((int)s->verdicts[NT_VERDICT_STALLED]));
	nt_json_put_i64(oom, o, "rtt_p50_ns", s->rtt_p50_ns, s->rtt_p50_ns >= 0);
	nt_json_put_i64(oom, o, "rtt_p90_ns", s->rtt_p90_ns, s->rtt_p90_ns >= 0);
	nt_json_put_i64(oom, o, "rtt_p99_ns", s->rtt_p99_ns, s->rtt_p99_ns >= 0);
	nt_json_put_i64(oom, o, "rtt_max_ns", s->rtt_max_ns, s->rtt_max_ns >= 0);
	nt_json_put_i64(oom, o, "stall_min_ns", s->stall_min_ns, s->stall_min_ns >= 0);
	nt_json_put_i64(oom, o, "stall_max_ns", s->stall_max_ns, s->stall_max_ns >= 0);
	nt_json_put(oom, o, "client_data_segments",
		    json_object_new_int((int)s->client_data_segments));
	nt_json_put(oom, o, "client_mss", json_object_new_int(run->client_mss));
	nt_json_put(oom, o, "target_mss", json_object_new_int(run->target_mss));
	nt_json_put(oom, o, "frames", json_object_new_int64((int64_t)run->counts.frames));
	nt_json_put(oom, o, "dropped",
		    json_object_new_int64(
			    (int64_t)(run->counts.kernel_dropped + run->counts.if_dropped)));
	nt_json_put(oom, o, "wire_dropped",
		    json_object_new_int64((int64_t)run->counts.wire_dropped));
	nt_json_put(oom, o, "out_of_order",
		    json_object_new_int64((int64_t)(run->counts.out_of_order[NT_DIR_C2T] +
						    run->counts.out_of_order[NT_DIR_T2C])));
	nt_json_put(oom, o, "uncertain", json_object_new_boolean(run->uncertain));
	nt_json_put(oom, o, "teardown_seen", json_object_new_boolean(run->teardown_seen));
	nt_json_put(oom, o, "interrupted", json_object_new_boolean(run->interrupted));
	summary_evidence_json(oom, o, run);
	nt_json_put(oom, exp, "expect", json_object_new_string(nt_expect_name(run->cfg.expect)));
	nt_json_put(oom, exp, "met", json_object_new_boolean(run->expectation_met));
	nt_json_put_str(oom, exp, "reason",
			run->expectation_met ? NULL
					     : nt_label_expectation(&run->expectation_why, reason,
								    sizeof(reason)));
	nt_json_put(oom, o, "expectation", exp);
	if (run->predicting)
		nt_json_put(oom, o, "model", model_json(oom, run));
	else
		nt_json_put_null(oom, o, "model");
	nt_json_put(oom, o, "timings", timings_json(oom, &run->timings));
	return o;
}

/*
 * A run is written as it goes: its head when it begins, each round as it is
 * retired, its tail when it ends. Several runs sit in a "runs" array. Each
 * member (config, one round, summary) is built by json-c, written at its
 * depth and freed at once (nt/render/json.h).
 */
struct json_doc {
	unsigned rounds_written;
};

static int run_depth(const struct nt_renderer *r)
{
	return r->n_runs > 1 ? 2 : 0;
}

/* "key": value, where @o was built with @oom noting failures. */
static int member(FILE *out, const char *key, struct json_object *o, bool oom, int depth, bool more)
{
	if (oom) {
		json_object_put(o);
		return -ENOMEM;
	}
	return nt_json_member(out, key, o, depth, more);
}

/* The document's opening members: schema_version and tool. */
static int head(FILE *out, int depth)
{
	bool oom = false;
	struct json_object *tool = nt_json_tool(&oom, NULL);
	int ret = member(out, "schema_version", json_object_new_int(NT_JSON_SCHEMA_TRACE), false,
			 depth, true);

	if (ret == 0)
		return member(out, "tool", tool, oom, depth, true);
	json_object_put(tool);
	return ret;
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
static int runs_head(FILE *out)
{
	int ret;

	fputs("{\n", out);
	ret = head(out, 1);
	fputs("  \"runs\": [", out);
	return ret;
}

static int json_begin(struct nt_renderer *r, const struct nt_record *run,
		      const struct nt_round_view *hs)
{
	struct json_doc *d = r->state;
	FILE *out = r->out;
	int depth = run_depth(r), in = depth + 1, ret = 0;
	bool oom = false;
	struct json_object *o;

	if (r->n_runs > 1) {
		if (r->run == 0)
			ret = runs_head(out);
		fprintf(out, "%s\n    ", r->run ? "," : "");
	}
	fputs("{\n", out);
	if (ret == 0 && r->n_runs == 1)
		ret = head(out, in);
	if (ret == 0)
		ret = member(out, "variant", json_object_new_string(run->cfg.variant), false, in,
			     true);
	if (ret == 0) {
		o = config_json(&oom, run);
		ret = member(out, "config", o, oom, in, true);
	}
	if (ret == 0) {
		o = events_json(&oom, hs);
		ret = member(out, "handshake", o, oom, in, true);
	}
	fprintf(out, "%*s\"rounds\": [", in * 2, "");
	d->rounds_written = 0;
	return ret;
}

static int json_round(struct nt_renderer *r, const struct nt_record *run,
		      const struct nt_round_view *rv)
{
	struct json_doc *d = r->state;
	int in = run_depth(r) + 1, ret;
	bool oom = false;
	struct json_object *o = round_json(&oom, run, rv);

	fprintf(r->out, "%s\n%*s", d->rounds_written ? "," : "", (in + 1) * 2, "");
	ret = oom ? -ENOMEM : nt_json_write(r->out, o, in + 1);
	json_object_put(o);
	d->rounds_written++;
	return ret;
}

static int json_end(struct nt_renderer *r, const struct nt_record *run,
		    const struct nt_round_view *td)
{
	struct json_doc *d = r->state;
	FILE *out = r->out;
	int depth = run_depth(r), in = depth + 1, ret;
	bool oom = false;
	struct json_object *o;

	if (d->rounds_written)
		fprintf(out, "\n%*s", in * 2, "");
	fputs("],\n", out);
	o = events_json(&oom, td);
	ret = member(out, "teardown", o, oom, in, true);
	if (ret == 0)
		ret = member(out, "interrupted", json_object_new_boolean(run->interrupted), false,
			     in, true);
	if (ret == 0) {
		o = summary_json(&oom, run);
		ret = member(out, "summary", o, oom, in, false);
	}
	fprintf(out, "%*s}", depth * 2, "");
	if (r->n_runs == 1)
		fputc('\n', out);
	return ret;
}

static int json_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs)
{
	(void)runs;
	(void)n_runs;
	/*
	 * Several runs: the array closes, then whether a signal cut the
	 * comparison short (each run also says whether it was cut itself).
	 */
	if (r->n_runs > 1)
		fprintf(r->out, "\n  ],\n  \"interrupted\": %s\n}\n",
			r->interrupted ? "true" : "false");
	return ferror(r->out) ? -EIO : 0;
}

const struct nt_trace_doc nt_json_trace = {
	.open = json_open,
	.begin = json_begin,
	.round = json_round,
	.end = json_end,
	.finish = json_finish,
	.close = json_close,
};

/*
 * JSON Lines (--format jsonl): one self-contained record per line as the run
 * goes, for `| jq` and for a million rounds: "run" when a run begins (its
 * configuration and handshake), "round" for each round as it completes,
 * "summary" when it ends (teardown, interrupted, summary), then one "end"
 * after the last run. Every record carries its variant, so several runs'
 * records can be told apart. The fields are those of the JSON document
 * (docs/json-schema.md); the first record carries schema_version and tool.
 */

/* A record: "type" first, then "variant", then @fill's members. */
static int record(FILE *out, const char *type, const struct nt_record *run,
		  void (*fill)(bool *oom, struct json_object *o, const struct nt_record *run,
			       const struct nt_round_view *v),
		  const struct nt_round_view *v)
{
	bool oom = false;
	struct json_object *o = json_object_new_object();
	int ret;

	nt_json_put(&oom, o, "type", json_object_new_string(type));
	nt_json_put(&oom, o, "variant", json_object_new_string(run->cfg.variant));
	fill(&oom, o, run, v);
	ret = oom ? -ENOMEM : nt_json_line(out, o);
	json_object_put(o);
	return ret;
}

static void fill_run(bool *oom, struct json_object *o, const struct nt_record *run,
		     const struct nt_round_view *hs)
{
	nt_json_put(oom, o, "schema_version", json_object_new_int(NT_JSON_SCHEMA_TRACE));
	nt_json_put(oom, o, "tool", nt_json_tool(oom, NULL));
	nt_json_put(oom, o, "config", config_json(oom, run));
	nt_json_put(oom, o, "handshake", events_json(oom, hs));
}

static void fill_round(bool *oom, struct json_object *o, const struct nt_record *run,
		       const struct nt_round_view *rv)
{
	struct json_object *r = round_json(oom, run, rv);

	/* The round's members under the record: json-c keeps their order. */
	nt_json_merge(oom, o, r);
	json_object_put(r);
}

static void fill_summary(bool *oom, struct json_object *o, const struct nt_record *run,
			 const struct nt_round_view *td)
{
	nt_json_put(oom, o, "teardown", events_json(oom, td));
	nt_json_put(oom, o, "interrupted", json_object_new_boolean(run->interrupted));
	nt_json_put(oom, o, "summary", summary_json(oom, run));
}

static int jsonl_begin(struct nt_renderer *r, const struct nt_record *run,
		       const struct nt_round_view *hs)
{
	return record(r->out, "run", run, fill_run, hs);
}

static int jsonl_round(struct nt_renderer *r, const struct nt_record *run,
		       const struct nt_round_view *rv)
{
	return record(r->out, "round", run, fill_round, rv);
}

static int jsonl_end(struct nt_renderer *r, const struct nt_record *run,
		     const struct nt_round_view *td)
{
	return record(r->out, "summary", run, fill_summary, td);
}

static int jsonl_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs)
{
	bool oom = false;
	struct json_object *o = json_object_new_object();
	int ret;

	(void)runs;
	nt_json_put(&oom, o, "type", json_object_new_string("end"));
	nt_json_put(&oom, o, "runs", json_object_new_int((int)n_runs));
	nt_json_put(&oom, o, "interrupted", json_object_new_boolean(r->interrupted));
	ret = oom ? -ENOMEM : nt_json_line(r->out, o);
	json_object_put(o);
	return ret;
}

const struct nt_trace_doc nt_jsonl_trace = {
	.begin = jsonl_begin,
	.round = jsonl_round,
	.end = jsonl_end,
	.finish = jsonl_finish,
};
