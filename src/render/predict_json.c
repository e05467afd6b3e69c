// SPDX-License-Identifier: MIT
/*
 * predict_json.c - `nagle-trace predict` as JSON (see nt/render/predict.h,
 * docs/json-schema.md). Each round is built by json-c, written and freed
 * before the model predicts the next.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>

#include "nt/render/json.h"
#include "nt/render/predict.h"

static struct json_object *rx_json(bool *oom, const struct nt_predict_rx *x)
{
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "pingpong", json_object_new_boolean(x->pingpong));
	nt_json_put(oom, o, "pingpong_cnt", json_object_new_int((int)x->pingpong_cnt));
	nt_json_put(oom, o, "quick", json_object_new_int((int)x->quick));
	nt_json_put(oom, o, "ato_ms", json_object_new_int((int)x->ato_ms));
	nt_json_put(oom, o, "rcv_mss", json_object_new_int((int)x->rcv_mss));
	nt_json_put(oom, o, "certain", json_object_new_boolean(x->certain));
	return o;
}

/* -1 (the path never got there) as null. */
static void put_time(bool *oom, struct json_object *o, const char *key, int64_t ns)
{
	if (ns < 0)
		nt_json_put_null(oom, o, key);
	else
		nt_json_put(oom, o, key, json_object_new_int64(ns));
}

/* The round's segments as the model sent them, each with the decision that sent it. */
static struct json_object *ladder_json(bool *oom, const struct nt_predict_round *r)
{
	struct json_object *a = json_object_new_array();
	static const struct nt_predict_why none = { .rule = NT_RULE_NONE };

	for (unsigned i = 0; i < r->n_ladder; i++) {
		const struct nt_predict_seg *g = &r->ladder[i];
		const struct nt_predict_why *w = nt_predict_seg_why(r, g);
		struct json_object *o = json_object_new_object();

		nt_json_put(oom, o, "client_ns", json_object_new_int64(g->client_ns));
		nt_json_put(oom, o, "target_ns", json_object_new_int64(g->target_ns));
		nt_json_put(oom, o, "dir", json_object_new_string(g->c2t ? "c2t" : "t2c"));
		nt_json_put(oom, o, "what",
			    json_object_new_string(
				    nt_predict_seg_role_name((enum nt_predict_seg_role)g->role)));
		nt_json_put(oom, o, "bytes", json_object_new_int64(g->bytes));
		nt_json_put(oom, o, "first", json_object_new_boolean(g->first));
		nt_json_put_why(oom, o, "why", w ? w : &none);
		nt_json_append(oom, a, o);
	}
	return a;
}

static struct json_object *round_json(bool *oom, const struct nt_predict_round *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *set = json_object_new_array();
	struct json_object *why = json_object_new_object();

	nt_json_put(oom, o, "index", json_object_new_int((int)r->index));
	nt_json_put(oom, o, "verdict", json_object_new_string(nt_verdict_name(r->verdict)));
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++)
		if (r->verdicts & NT_PREDICT_VERDICT_BIT(v))
			nt_json_append(oom, set,
				       json_object_new_string(nt_verdict_name((enum nt_verdict)v)));
	nt_json_put(oom, o, "verdicts", set);
	nt_json_put_why(oom, o, "uncertain", &r->uncertain);
	nt_json_put_why(oom, why, "verdict", &r->verdict_why);
	nt_json_put_why(oom, why, "header", &r->header);
	nt_json_put_why(oom, why, "header_ack", &r->header_ack);
	nt_json_put_why(oom, why, "ack", &r->ack);
	nt_json_put_why(oom, why, "body", &r->body);
	nt_json_put_why(oom, why, "release", &r->release);
	nt_json_put_why(oom, why, "reply", &r->reply);
	nt_json_put(oom, o, "why", why);
	nt_json_put(oom, o, "coalesced", json_object_new_boolean(r->coalesced));
	nt_json_put(oom, o, "header_ack_now", json_object_new_boolean(r->header_ack_now));
	nt_json_put(oom, o, "body_held", json_object_new_boolean(r->body_held));
	nt_json_put(oom, o, "header_ack_gap_min_ns", json_object_new_int64(r->gap_min_ns));
	nt_json_put(oom, o, "header_ack_gap_max_ns", json_object_new_int64(r->gap_max_ns));
	nt_json_put(oom, o, "client_data_segments",
		    json_object_new_int((int)r->client_data_segments));
	nt_json_put(oom, o, "delayed_acks", json_object_new_int((int)r->delayed_acks));
	nt_json_put(oom, o, "at_header", rx_json(oom, &r->at_header));
	nt_json_put(oom, o, "after", rx_json(oom, &r->after));
	put_time(oom, o, "write_body_ns", r->write_body_ns);
	put_time(oom, o, "client_wait_ns", r->reply_ns);
	nt_json_put(oom, o, "ladder", ladder_json(oom, r));
	nt_json_put(oom, o, "ladder_dropped", json_object_new_int((int)r->ladder_dropped));
	return o;
}

static struct json_object *knobs_json(bool *oom, const struct nt_predict_doc *d,
				      const struct nt_predict *p)
{
	const struct nt_predict_knobs *k = &d->knobs;
	struct json_object *o = json_object_new_object();
	char kernel[32];

	snprintf(kernel, sizeof(kernel), "%u.%u", k->kernel.major, k->kernel.minor);
	nt_json_put(oom, o, "header_bytes", json_object_new_int64(k->header_bytes));
	nt_json_put(oom, o, "body_bytes", json_object_new_int64(k->body_bytes));
	nt_json_put(oom, o, "reply_bytes", json_object_new_int64(k->reply_bytes));
	nt_json_put(oom, o, "rounds", json_object_new_int64(k->rounds));
	nt_json_put(oom, o, "pause_ns", json_object_new_int64(k->pause_ns));
	nt_json_put(oom, o, "write_gap_ns", json_object_new_int64(k->write_gap_ns));
	nt_json_put(oom, o, "handler_ns", json_object_new_int64(k->handler_ns));
	nt_json_put(oom, o, "threshold_ns", json_object_new_int64(k->threshold_ns));
	nt_json_put(oom, o, "rtt_ns", json_object_new_int64(k->rtt_ns));
	nt_json_put(oom, o, "family", json_object_new_string(k->ipv6 ? "ipv6" : "ipv4"));
	nt_json_put(oom, o, "mss", json_object_new_int((int)p->kern.mss));
	nt_json_put(oom, o, "pingpong_thresh", json_object_new_int((int)p->kern.pingpong_thresh));
	nt_json_put(oom, o, "kernel", json_object_new_string(kernel));
	nt_json_put(oom, o, "kernel_source", json_object_new_string(d->kernel_source));
	nt_json_put(oom, o, "hz", json_object_new_int((int)k->hz));
	nt_json_put(oom, o, "hz_source", json_object_new_string(d->hz_source));
	return o;
}

/* "rounds": [ ... ] at @depth, one round at a time; fills @counts. */
static int rounds_member(FILE *out, struct nt_predict *p, int depth, unsigned *counts)
{
	struct nt_predict_round r;
	bool first = true;

	fprintf(out, "%*s\"rounds\": [", depth * 2, "");
	while (nt_predict_round(p, &r) == 1) {
		bool oom = false;
		struct json_object *o = round_json(&oom, &r);
		int ret;

		counts[r.verdict]++;
		fprintf(out, "%s\n%*s", first ? "" : ",", (depth + 1) * 2, "");
		first = false;
		ret = oom ? -ENOMEM : nt_json_write(out, o, depth + 1);
		json_object_put(o);
		if (ret < 0)
			return ret;
		/* Stop at the first failed write, with its reason (errno: EFBIG, ENOSPC, EPIPE). */
		if (ferror(out))
			return errno ? -errno : -EIO;
	}
	fprintf(out, "\n%*s],\n", depth * 2, "");
	return ferror(out) ? -EIO : 0;
}

/* One prediction's members at @depth: variant, knobs, rounds, summary. */
static int one(FILE *out, const struct nt_predict_doc *d, int depth)
{
	unsigned counts[NT_VERDICT_COUNT] = { 0 };
	struct json_object *summary, *verdicts;
	struct nt_predict_why fix;
	struct nt_predict p;
	struct nt_err err = { "" };
	bool oom = false;
	int ret;

	if (nt_predict_init(&p, &d->knobs, &err) < 0)
		return -EINVAL;
	ret = nt_json_member(out, "variant", json_object_new_string(d->variant), depth, true);
	if (!ret)
		ret = nt_json_member(out, "knobs", knobs_json(&oom, d, &p), depth, true);
	if (!ret)
		ret = rounds_member(out, &p, depth, counts);
	if (ret)
		return ret;
	nt_predict_fix(&d->knobs, &fix);
	summary = json_object_new_object();
	verdicts = json_object_new_object();
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++)
		nt_json_put(&oom, verdicts, nt_verdict_name((enum nt_verdict)v),
			    json_object_new_int((int)counts[v]));
	nt_json_put(&oom, summary, "rounds", json_object_new_int((int)d->knobs.rounds));
	nt_json_put(&oom, summary, "verdicts", verdicts);
	nt_json_put_why(&oom, summary, "fix", &fix);
	if (oom) {
		json_object_put(summary);
		return -ENOMEM;
	}
	return nt_json_member(out, "summary", summary, depth, false);
}

int nt_predict_json(FILE *out, const struct nt_predict_doc *docs, unsigned n)
{
	bool oom = false;
	int ret;

	fputs("{\n", out);
	ret = nt_json_member(out, "schema_version", json_object_new_int(NT_JSON_SCHEMA_PREDICT), 1,
			     true);
	if (!ret)
		ret = nt_json_member(out, "tool", nt_json_tool(&oom, "predict"), 1, true);
	if (!ret && oom)
		ret = -ENOMEM;
	if (!ret && n == 1) {
		ret = one(out, &docs[0], 1);
	} else if (!ret) {
		fputs("  \"runs\": [\n", out);
		for (unsigned i = 0; i < n && !ret; i++) {
			fputs("    {\n", out);
			ret = one(out, &docs[i], 3);
			fputs(i + 1 < n ? "    },\n" : "    }\n", out);
		}
		fputs("  ]\n", out);
	}
	if (!ret)
		fputs("}\n", out);
	return ret ? ret : ferror(out) ? -EIO : 0;
}
