// SPDX-License-Identifier: MIT
/*
 * analysis_json.c - the JSON document of nagle-trace analyze (schema 1,
 * docs/analyze.md), built with json-c.
 *
 * Keys are snake_case; times are integer nanoseconds: t_ns absolute since the
 * epoch, *_ns durations; unknown values are null, never -1. Frame numbers are
 * 1-based, as Wireshark and tshark count them.
 *
 * Written member by member (nt/render/json.h), the flows one at a time from
 * a template (analysis_json_flow.c), in chunks by several threads when there
 * are many (nt/render/chunks.h), each thread with its own template.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_json_int.h"
#include "nt/render/analysis.h"
#include "nt/model/tcp.h"
#include "nt/prefetch.h"
#include "nt/render/chunks.h"
#include "nt/render/json.h"
#include "nt/render/json_layout.h"
#include "nt/render/run.h"
#include "out_buf.h"

static struct json_object *i64(int64_t v)
{
	return json_object_new_int64(v);
}

static struct json_object *not_decoded(bool *oom, const uint64_t *nd)
{
	struct json_object *o = json_object_new_object();

	for (int s = NT_DECODE_NOT_TCP; s < NT_DECODE_STATUS_COUNT; s++)
		nt_json_put(oom, o, nt_decode_status_name((enum nt_decode_status)s),
			    nt_json_u64(nd[s]));
	return o;
}

static struct json_object *by_delack(bool *oom, const uint64_t *v)
{
	struct json_object *o = json_object_new_object();

	for (int c = NT_DELACK_OTHER; c <= NT_DELACK_MAX; c++)
		nt_json_put(oom, o, nt_delack_name((enum nt_delack_class)c), nt_json_u64(v[c]));
	return o;
}

static struct json_object *file(bool *oom, const struct nt_analysis_file *f)
{
	struct json_object *o = json_object_new_object();

	nt_json_put(oom, o, "path", json_object_new_string(f->path));
	nt_json_put_i64(oom, o, "linktype", f->linktype, f->linktype >= 0);
	nt_json_put_str(oom, o, "linktype_name", f->linktype >= 0 ? f->linktype_name : NULL);
	nt_json_put(oom, o, "packets", nt_json_u64(f->packets));
	nt_json_put(oom, o, "tcp_packets", nt_json_u64(f->tcp_packets));
	nt_json_put(oom, o, "not_decoded", not_decoded(oom, f->not_decoded));
	nt_json_put_i64(oom, o, "first_t_ns", f->first_t_ns, f->packets);
	nt_json_put_i64(oom, o, "last_t_ns", f->last_t_ns, f->packets);
	nt_json_put(oom, o, "flows", nt_json_u64(f->flows));
	nt_json_put(oom, o, "flows_with_stalls", nt_json_u64(f->flows_with_stalls));
	nt_json_put(oom, o, "stalls", nt_json_u64(f->stalls));
	nt_json_put(oom, o, "out_of_order", nt_json_u64(f->out_of_order));
	nt_json_put(oom, o, "complete", json_object_new_boolean(!f->error));
	nt_json_put_str(oom, o, "error", f->error);
	return o;
}

/* The members before "flows": schema_version, tool, params, files. */
static struct json_object *params_json(bool *oom, const struct nt_analysis *an,
				       const struct nt_analysis_view *v)
{
	struct json_object *params = json_object_new_object();

	nt_json_put(oom, params, "threshold_ns", i64(an->params.stall.threshold_ns));
	nt_json_put(oom, params, "release_ns", i64(an->params.stall.release_ns));
	nt_json_put(oom, params, "max_flows", json_object_new_int64(an->params.max_flows));
	nt_json_put(oom, params, "idle_ns", i64(an->params.idle_ns));
	nt_json_put_str(oom, params, "filter", v->filter);
	return params;
}

static struct json_object *files_json(bool *oom, const struct nt_analysis *an)
{
	struct json_object *files = json_object_new_array();

	for (size_t i = 0; i < an->n_files; i++)
		nt_json_append(oom, files, file(oom, &an->files[i]));
	return files;
}

static struct json_object *summary_json(bool *oom, const struct nt_analysis *an)
{
	const struct nt_analysis_summary *s = &an->sum;
	struct json_object *sum = json_object_new_object();

	nt_json_put(oom, sum, "packets", nt_json_u64(s->packets));
	nt_json_put(oom, sum, "tcp_packets", nt_json_u64(s->tcp_packets));
	nt_json_put(oom, sum, "not_decoded", not_decoded(oom, s->not_decoded));
	nt_json_put(oom, sum, "flows", nt_json_u64(s->flows));
	nt_json_put(oom, sum, "flows_with_stalls", nt_json_u64(s->flows_with_stalls));
	nt_json_put(oom, sum, "stalls", nt_json_u64(s->stalls));
	nt_json_put(oom, sum, "by_delack", by_delack(oom, s->by_delack));
	nt_json_put(oom, sum, "stalled_total_ns", i64(s->total_stall_ns));
	nt_json_put(oom, sum, "stalled_wall_ns", i64(s->stalled_wall_ns));
	nt_json_put(oom, sum, "stalled_wall_min_ns", i64(s->stalled_wall_min_ns));
	nt_json_put(oom, sum, "think_time", nt_json_u64(s->think_time));
	nt_json_put(oom, sum, "out_of_order", nt_json_u64(s->out_of_order));
	nt_json_put(oom, sum, "flows_out_of_order", nt_json_u64(s->flows_out_of_order));
	nt_json_put(oom, sum, "evicted_flows", nt_json_u64(s->evicted_idle + s->evicted_full));
	nt_json_put(oom, sum, "evicted_idle", nt_json_u64(s->evicted_idle));
	nt_json_put(oom, sum, "evicted_full", nt_json_u64(s->evicted_full));
	nt_json_put(oom, sum, "files_damaged", nt_json_u64(s->files_damaged));
	/*
	 * Out of memory, a file that could not be read to its end, or flows
	 * evicted from a full table while active: stalls may be missing.
	 */
	nt_json_put(oom, sum, "incomplete", json_object_new_boolean(!nt_analysis_complete(an)));
	return sum;
}

/**
 * struct flows_ctx - what the threads rendering "flows" read
 * @an: the analysis
 * @depth: the level of "flows"
 * @record: a JSON Lines record per flow ({"type": "flow", ...} on one line),
 *          else an element of the document's array at @depth + 1
 */
struct flows_ctx {
	const struct nt_analysis *an;
	int depth;
	bool record;
};

static int flow_up(const void *ctx, void **state)
{
	(void)ctx;
	*state = nt_json_flow_new();
	return *state ? 0 : -ENOMEM;
}

static void flow_down(void *state)
{
	nt_json_flow_free(state);
}

/* Flow @i: an element after its separator, each alone at its depth as json-c lays it out. */
static int flow_item(FILE *out, void *state, const void *ctx, size_t i)
{
	const struct flows_ctx *c = ctx;
	int ret = nt_json_flow_set(state, c->an, c->an->flows[i]);

	if (ret)
		return ret;
	if (c->record)
		return nt_json_flow_write_record(state, out);
	fprintf(out, "%s%*s", i ? ",\n" : "\n", (c->depth + 1) * 2, "");
	return nt_json_flow_write(state, out, c->depth + 1);
}

/* Flow @i's whole report: its object has a member from nearly every line (nt_chunks_ops.ahead). */
static void flow_ahead(const void *ctx, size_t i)
{
	const struct nt_flow_result *r = ((const struct flows_ctx *)ctx)->an->flows[i];

	nt_prefetch_read(r, r + 1);
}

static const struct nt_chunks_ops flow_ops = {
	.up = flow_up,
	.down = flow_down,
	.item = flow_item,
	.ahead = flow_ahead,
};

/* "flows": [ ... ] at @depth; with no flow, json-c's empty array. */
static int flows_member(FILE *out, const struct nt_analysis *an, int depth, unsigned workers)
{
	struct flows_ctx ctx = { .an = an, .depth = depth };
	int ret;

	if (!an->n_flows)
		return nt_json_member(out, "flows", json_object_new_array(), depth, true);
	fprintf(out, "%*s\"flows\": [", depth * 2, "");
	ret = nt_chunks_write(out, an->n_flows, workers, &flow_ops, &ctx);
	fprintf(out, "\n%*s],\n", depth * 2, "");
	return ret;
}

/*
 * One element of "stalls": "flow", the index in "flows", then these. A
 * JSON Lines record has "type" before them all.
 */
#define STALL_N_KEYS 13
static const char *const stall_keys[STALL_N_KEYS] = {
	"file",
	"dir",
	"held_frame_number",
	"ack_frame_number",
	"release_frame_number",
	"held_bytes",
	"held_t_ns",
	"ack_t_ns",
	"release_t_ns",
	"ack_delay_ns",
	"release_gap_ns",
	"stall_ns",
	"delack",
};

/* A record's values: "type", "flow", then stall_keys'. */
#define STALL_N_VALUES (2 + STALL_N_KEYS)

/* Stall @x of flow @flow, @r, into @v in print order (after @v[0], "type", set once). */
static void stall_values(struct nt_json_value *v, size_t flow, const struct nt_flow_result *r,
			 const struct nt_stall_rec *x)
{
	v[1].i = (int64_t)flow;
	v[2].i = r->file;
	v[3].s = nt_dir_name((enum nt_dir)x->dir);
	v[4].i = nt_json_clamp_u64(x->held_frame);
	v[5].i = nt_json_clamp_u64(x->ack_frame);
	v[6].i = nt_json_clamp_u64(x->release_frame);
	v[7].i = x->held_len;
	v[8].i = x->held_t_ns;
	v[9].i = x->ack_t_ns;
	v[10].i = x->release_t_ns;
	v[11].i = x->ack_t_ns - x->held_t_ns;
	v[12].i = x->release_t_ns - x->ack_t_ns;
	v[13].i = x->release_t_ns - x->held_t_ns;
	v[14].s = nt_delack_name((enum nt_delack_class)x->delack);
}

/**
 * struct stalls_ctx - what the threads rendering "stalls" read
 * @an: the analysis
 * @depth: the level of "stalls"
 * @record: a JSON Lines record per stall ({"type": "stall", ...}), else an
 *          element of the document's array at @depth + 1
 * @first: the first flow with a stall kept: its first stall has no comma
 *         before it
 */
struct stalls_ctx {
	const struct nt_analysis *an;
	int depth;
	bool record;
	size_t first;
};

/**
 * struct stalls_state - one render thread's writer of stalls
 * @l: the layout of a stall, printed by json-c once from a template
 * @v: the values of the stall being written, in @l's print order: from
 *     @v[1] in the document, from @v[0] ("type") in a record
 */
struct stalls_state {
	struct nt_json_layout *l;
	struct nt_json_value v[STALL_N_VALUES];
};

static void stalls_down(void *state)
{
	struct stalls_state *st = state;

	if (!st)
		return;
	nt_json_layout_free(st->l);
	free(st);
}

/*
 * The template whose text json-c prints once: the shape of every stall, each
 * value of @v's type (a string where stall_values() gives one), no stall's.
 */
static struct json_object *stall_template(bool *oom, const struct nt_json_value *v, bool record)
{
	static const char *const lead[2] = { "type", "flow" };
	struct json_object *o = json_object_new_object();

	for (int k = record ? 0 : 1; k < STALL_N_VALUES; k++)
		nt_json_put(oom, o, k < 2 ? lead[k] : stall_keys[k - 2],
			    v[k].s ? json_object_new_string(v[k].s) : json_object_new_int64(0));
	return o;
}

static int stalls_up(const void *ctx, void **state)
{
	static const struct nt_flow_result no_flow;
	static const struct nt_stall_rec no_stall;
	const struct stalls_ctx *c = ctx;
	struct stalls_state *st = calloc(1, sizeof(*st));
	struct json_object *tree;
	bool oom = !st;

	*state = st;
	if (oom)
		return -ENOMEM;
	/* "type", then a stall's values: their types make the template. */
	st->v[0].s = "stall";
	stall_values(st->v, 0, &no_flow, &no_stall);
	tree = stall_template(&oom, st->v, c->record);
	if (!oom)
		st->l = nt_json_layout_new(tree, c->record ? NT_JSON_LINE_FLAGS : NT_JSON_FLAGS,
					   c->record ? 0 : c->depth + 1);
	json_object_put(tree);
	if (oom || !st->l)
		return -ENOMEM;
	/* json-c printed the values in the template's order, or nothing is written. */
	return nt_json_layout_takes(st->l, st->v + !c->record, STALL_N_VALUES - !c->record)
		       ? 0
		       : -EINVAL;
}

/*
 * Flow @i's stalls, each after its separator, as one thread writing them all
 * writes them: through one buffer, not one fwrite() a stall (half a million
 * at 10,000 flows, docs/performance.md), each value from the stall to the
 * text without json-c's objects between (nt_json_layout_put_values()).
 */
static int stalls_item(FILE *out, void *state, const void *ctx, size_t i)
{
	const struct stalls_ctx *c = ctx;
	struct stalls_state *st = state;
	const struct nt_flow_result *r = c->an->flows[i];
	const struct nt_json_value *v = st->v + !c->record;
	bool ok = true, first = i == c->first;
	struct nt_stall_recs_iter it;
	const struct nt_stall_rec *x;
	struct out_buf b;

	out_buf_init(&b, out);
	nt_stall_recs_begin(&it, &r->all);
	while (ok && (x = nt_stall_recs_next(&it))) {
		stall_values(st->v, i, r, x);
		if (!c->record)
			ok = out_buf_str(&b, first ? "\n" : ",\n") &&
			     out_buf_pad(&b, "", 0, (c->depth + 1) * 2);
		first = false;
		ok = ok && nt_json_layout_put_values(st->l, &b, v) &&
		     (!c->record || out_buf_add(&b, "\n", 1));
	}
	return ok && out_buf_flush(&b) ? 0 : out_buf_failed(out);
}

/*
 * Of flow @i's report, what its stalls read besides their records: @file
 * and the list of blocks (nt_chunks_ops.ahead).
 */
static void stalls_ahead(const void *ctx, size_t i)
{
	const struct nt_flow_result *r = ((const struct stalls_ctx *)ctx)->an->flows[i];

	nt_prefetch_read(&r->file, &r->file + 1);
	nt_prefetch_read(&r->all, &r->all + 1);
}

/*
 * A stall's text, about: some 530 bytes in the document, 400 as a record
 * (analyze --format json and jsonl at 10,000 flows of 50 stalls: 264 and
 * 194 MB).
 */
#define STALL_TEXT_BYTES 512

/*
 * Flows a chunk of "stalls" holds: at most NT_CHUNK_BYTES of text for the
 * flows' stalls on average. A flow's stalls are its item, and a flow of
 * many stalls (50 at 10,000 flows in the bench, 26 KB) makes 64 of them a
 * chunk of 1.7 MB (nt/render/chunks.h).
 */
static size_t stalls_chunk_items(const void *ctx)
{
	const struct nt_analysis *an = ((const struct stalls_ctx *)ctx)->an;
	uint64_t per_flow = an->n_flows ? an->sum.stalls / an->n_flows + 1 : 1;

	return (size_t)(NT_CHUNK_BYTES / (per_flow * STALL_TEXT_BYTES) + 1);
}

static const struct nt_chunks_ops stalls_ops = {
	.up = stalls_up,
	.down = stalls_down,
	.item = stalls_item,
	.ahead = stalls_ahead,
	.chunk_items = stalls_chunk_items,
};

/*
 * "stalls": every stall of every flow, flow by flow in the order of "flows",
 * each in the order found; or with @record one JSON Lines record each
 * ({"type": "stall", ...}). A flow's stalls are one item of the render
 * threads (nt/render/chunks.h): at 10,000 flows of 50 stalls they were a
 * quarter of analyze --format jsonl's time, on one thread.
 */
static int stalls_write(FILE *out, const struct nt_analysis *an, int depth, bool record,
			unsigned workers)
{
	struct stalls_ctx ctx = { .an = an, .depth = depth, .record = record };
	int ret;

	if (!an->sum.stalls && !record)
		return nt_json_member(out, "stalls", json_object_new_array(), depth, true);
	if (!an->sum.stalls)
		return 0;
	while (ctx.first < an->n_flows && !nt_stall_recs_any(&an->flows[ctx.first]->all))
		ctx.first++;
	if (!record)
		fprintf(out, "%*s\"stalls\": [", depth * 2, "");
	ret = nt_chunks_write(out, an->n_flows, workers, &stalls_ops, &ctx);
	if (!ret && !record)
		fprintf(out, "\n%*s],\n", depth * 2, "");
	return ret;
}

int nt_analysis_json_build(struct nt_analysis_json *parts, const struct nt_analysis *an,
			   const struct nt_analysis_view *v)
{
	bool oom = false;

	parts->params = params_json(&oom, an, v);
	parts->files = files_json(&oom, an);
	parts->summary = summary_json(&oom, an);
	return oom ? -ENOMEM : 0;
}

void nt_analysis_json_free(struct nt_analysis_json *parts)
{
	json_object_put(parts->params);
	json_object_put(parts->files);
	json_object_put(parts->summary);
	memset(parts, 0, sizeof(*parts));
}

int nt_analysis_json_write(FILE *out, const struct nt_analysis_json *parts,
			   const struct nt_analysis *an, int depth, unsigned workers)
{
	int ret = nt_json_member(out, "params", json_object_get(parts->params), depth, true);

	if (!ret)
		ret = nt_json_member(out, "files", json_object_get(parts->files), depth, true);
	if (!ret)
		ret = flows_member(out, an, depth, workers);
	if (!ret)
		ret = stalls_write(out, an, depth, false, workers);
	if (!ret)
		ret = nt_json_member(out, "summary", json_object_get(parts->summary), depth, false);
	return ret;
}

/*
 * Each member's value is built and checked before anything of the document
 * is written, so an allocation failure mostly leaves nothing behind. With a
 * run of the user's programs (v->run) the document is `nagle-trace run`'s:
 * its own schema version, and the "run" member after "tool".
 */
int nt_render_analysis_json(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v)
{
	bool oom = false;
	struct json_object *tool = nt_json_tool(&oom, v->run ? "run" : "analyze");
	struct json_object *run = v->run ? nt_run_json(&oom, v->run) : NULL;
	struct nt_analysis_json parts;
	int ret = nt_analysis_json_build(&parts, an, v);

	if (!ret && oom)
		ret = -ENOMEM;
	if (!ret) {
		fputs("{\n", out);
		ret = nt_json_member(
			out, "schema_version",
			json_object_new_int(v->run ? NT_JSON_SCHEMA_RUN : NT_JSON_SCHEMA_ANALYZE),
			1, true);
	}
	if (!ret)
		ret = nt_json_member(out, "tool", json_object_get(tool), 1, true);
	if (!ret && run)
		ret = nt_json_member(out, "run", json_object_get(run), 1, true);
	if (!ret)
		ret = nt_analysis_json_write(out, &parts, an, 1, v->workers);
	if (!ret && fputs("}\n", out) == EOF)
		ret = errno ? -errno : -EIO;
	json_object_put(tool);
	json_object_put(run);
	nt_analysis_json_free(&parts);
	return ret;
}

/*
 * JSON Lines (--format jsonl): one "flow" record per flow with stalls, each
 * the element "flows" holds in the document, one "stall" record per stall,
 * each an element of "stalls", then one "summary" record with
 * schema_version, tool, params, files and the summary.
 */
int nt_render_analysis_jsonl(FILE *out, const struct nt_analysis *an,
			     const struct nt_analysis_view *v)
{
	struct flows_ctx ctx = { .an = an, .record = true };
	bool oom = false;
	struct json_object *rec;
	int ret = v->run ? nt_run_jsonl_record(out, v->run) : 0;

	if (!ret)
		ret = nt_chunks_write(out, an->n_flows, v->workers, &flow_ops, &ctx);
	if (!ret)
		ret = stalls_write(out, an, 0, true, v->workers);
	if (ret)
		return ret;
	rec = json_object_new_object();
	nt_json_put(&oom, rec, "type", json_object_new_string("summary"));
	nt_json_put(&oom, rec, "schema_version",
		    json_object_new_int(v->run ? NT_JSON_SCHEMA_RUN : NT_JSON_SCHEMA_ANALYZE));
	nt_json_put(&oom, rec, "tool", nt_json_tool(&oom, v->run ? "run" : "analyze"));
	nt_json_put(&oom, rec, "params", params_json(&oom, an, v));
	nt_json_put(&oom, rec, "files", files_json(&oom, an));
	nt_json_put(&oom, rec, "summary", summary_json(&oom, an));
	ret = oom ? -ENOMEM : nt_json_line(out, rec);
	json_object_put(rec);
	return ret;
}
