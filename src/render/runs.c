// SPDX-License-Identifier: MIT
/*
 * runs.c - the report of `nagle-trace run` over one or several fixes (see
 * nt/render/run.h): each run through the analysis renderers with its run
 * block, then, for several, the comparison: stalls, time lost, the client's
 * request -> answer times and packets per fix, as trace's `--variant all`
 * table compares variants.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/format.h"
#include "nt/render/json.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"

bool nt_run_reports_supports(const char *format, size_t n)
{
	static const char *const several[] = { "text", "json", "jsonl", "markdown" };

	if (n <= 1)
		return true;
	for (size_t i = 0; i < sizeof(several) / sizeof(several[0]); i++)
		if (strcmp(format, several[i]) == 0)
			return true;
	return false;
}

static const char *exit_cell(const struct nt_runinfo *ri, char *buf, size_t len)
{
	const struct nt_run_proc *c = &ri->client;

	if (!c->started)
		snprintf(buf, len, "not started");
	else if (!c->exited)
		snprintf(buf, len, "did not end");
	else if (c->signal)
		snprintf(buf, len, "signal %d", c->signal);
	else
		snprintf(buf, len, "exit %d", c->exit_status);
	return buf;
}

static const char *ms_cell(int64_t ns, char *buf, size_t len)
{
	return ns < 0 ? "-" : nt_fmt_ms_trunc(ns, buf, len);
}

static uint64_t delacks(const struct nt_runinfo *ri)
{
	return ri->ns[NT_RUN_NS_TARGET].delta[NT_RUN_DELAYED_ACKS];
}

static void comparison_text(FILE *out, const struct nt_run_report *runs, size_t n)
{
	const struct nt_runinfo *first = runs[0].ri;

	fprintf(out, "nagle-trace run: %zu fixes, each in its own lab, Linux %s\n", n,
		first->kernel);
	fprintf(out, "  target: %s\n  client: %s\n\n", first->target.cmd, first->client.cmd);
	fprintf(out, "%-16s %-12s %7s %12s %9s %10s %10s %8s %8s  %s\n", "fix", "client", "stalls",
		"lost ms", "exchanges", "p50 ms", "p99 ms", "packets", "delacks", "complete");
	for (size_t i = 0; i < n; i++) {
		const struct nt_runinfo *ri = runs[i].ri;
		const struct nt_analysis_summary *s = &runs[i].an->sum;
		char ex[32], lost[64], p50[NT_FMT_MS_LEN], p99[NT_FMT_MS_LEN], why[256];

		fprintf(out,
			"%-16s %-12s %7" PRIu64 " %12s %9" PRIu64 " %10s %10s %8" PRIu64
			" %8" PRIu64 "  %s\n",
			ri->fix, exit_cell(ri, ex, sizeof(ex)), s->stalls,
			nt_label_lost(s->stalled_wall_min_ns, s->stalled_wall_ns, lost,
				      sizeof(lost)),
			ri->turns.n, ms_cell(ri->turns.p50_ns, p50, sizeof(p50)),
			ms_cell(ri->turns.p99_ns, p99, sizeof(p99)), s->packets, delacks(ri),
			nt_run_incomplete(ri, why, sizeof(why)) ? "NO" : "yes");
	}
	fputs("\n  lost: wall-clock time a connection waited on a stall; exchanges: requests "
	      "answered, p50/p99 from a request's\n  first segment to the answer's, on the "
	      "capture; delacks: the target's TcpExtDelayedACKs (delayed-ACK timer expiries)\n",
	      out);
}

static void comparison_markdown(FILE *out, const struct nt_run_report *runs, size_t n)
{
	fprintf(out, "## Comparison: %zu fixes, each in its own lab\n\n", n);
	fputs("| fix | client | stalls | lost ms | exchanges | p50 ms | p99 ms | packets | delayed "
	      "ACKs | complete |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct nt_runinfo *ri = runs[i].ri;
		const struct nt_analysis_summary *s = &runs[i].an->sum;
		char ex[32], lost[64], p50[NT_FMT_MS_LEN], p99[NT_FMT_MS_LEN], why[256];

		fprintf(out,
			"| `%s` | %s | %" PRIu64 " | %s | %" PRIu64 " | %s | %s | %" PRIu64
			" | %" PRIu64 " | %s |\n",
			ri->fix, exit_cell(ri, ex, sizeof(ex)), s->stalls,
			nt_label_lost(s->stalled_wall_min_ns, s->stalled_wall_ns, lost,
				      sizeof(lost)),
			ri->turns.n, ms_cell(ri->turns.p50_ns, p50, sizeof(p50)),
			ms_cell(ri->turns.p99_ns, p99, sizeof(p99)), s->packets, delacks(ri),
			nt_run_incomplete(ri, why, sizeof(why)) ? "no" : "yes");
	}
}

static struct json_object *comparison_json(bool *oom, const struct nt_run_report *runs, size_t n)
{
	struct json_object *rows = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		const struct nt_runinfo *ri = runs[i].ri;
		const struct nt_analysis_summary *s = &runs[i].an->sum;
		const struct nt_run_counters *t = &ri->ns[NT_RUN_NS_TARGET];
		struct json_object *o = json_object_new_object();
		char why[256];

		nt_json_put(oom, o, "fix", json_object_new_string(ri->fix));
		nt_json_put_i64(oom, o, "client_exit_status", ri->client.exit_status,
				ri->client.exited && !ri->client.signal);
		nt_json_put(oom, o, "stalls", nt_json_u64(s->stalls));
		nt_json_put(oom, o, "stalled_wall_ns", json_object_new_int64(s->stalled_wall_ns));
		nt_json_put(oom, o, "stalled_wall_min_ns",
			    json_object_new_int64(s->stalled_wall_min_ns));
		nt_json_put(oom, o, "exchanges", nt_json_u64(ri->turns.n));
		nt_json_put_i64(oom, o, "exchange_p50_ns", ri->turns.p50_ns, ri->turns.p50_ns >= 0);
		nt_json_put_i64(oom, o, "exchange_p99_ns", ri->turns.p99_ns, ri->turns.p99_ns >= 0);
		nt_json_put(oom, o, "packets", nt_json_u64(s->packets));
		nt_json_put_i64(oom, o, "target_delayed_acks",
				(int64_t)t->delta[NT_RUN_DELAYED_ACKS],
				t->known[NT_RUN_DELAYED_ACKS]);
		nt_json_put(oom, o, "complete",
			    json_object_new_boolean(!nt_run_incomplete(ri, why, sizeof(why))));
		nt_json_append(oom, rows, o);
	}
	return rows;
}

static int one(FILE *out, const struct nt_format *fmt, const struct nt_run_report *r,
	       const struct nt_analysis_view *v)
{
	struct nt_analysis_view view = *v;

	view.run = r->ri;
	return fmt->analysis(out, r->an, &view);
}

/* "runs": [ {"run", "params", "files", "flows", "summary"}, ... ] at depth 1. */
static int runs_member(FILE *out, const struct nt_run_report *runs, size_t n,
		       const struct nt_analysis_view *v)
{
	int ret = 0;

	fputs("  \"runs\": [\n", out);
	for (size_t i = 0; !ret && i < n; i++) {
		struct nt_analysis_view view = *v;
		struct nt_analysis_json parts;
		bool oom = false;
		struct json_object *run = nt_run_json(&oom, runs[i].ri);

		view.run = runs[i].ri;
		ret = nt_analysis_json_build(&parts, runs[i].an, &view);
		if (!ret && oom)
			ret = -ENOMEM;
		if (!ret) {
			fputs("    {\n", out);
			ret = nt_json_member(out, "run", json_object_get(run), 3, true);
		}
		if (!ret)
			ret = nt_analysis_json_write(out, &parts, runs[i].an, 3, v->workers);
		if (!ret && fputs(i + 1 < n ? "    },\n" : "    }\n", out) == EOF)
			ret = -EIO;
		json_object_put(run);
		nt_analysis_json_free(&parts);
	}
	if (!ret && fputs("  ],\n", out) == EOF)
		ret = -EIO;
	return ret;
}

static int several_json(FILE *out, const struct nt_run_report *runs, size_t n,
			const struct nt_analysis_view *v)
{
	bool oom = false;
	struct json_object *tool = nt_json_tool(&oom, "run");
	struct json_object *cmp = comparison_json(&oom, runs, n);
	int ret = oom ? -ENOMEM : 0;

	if (!ret) {
		fputs("{\n", out);
		ret = nt_json_member(out, "schema_version", json_object_new_int(NT_JSON_SCHEMA_RUN),
				     1, true);
	}
	if (!ret)
		ret = nt_json_member(out, "tool", json_object_get(tool), 1, true);
	if (!ret)
		ret = runs_member(out, runs, n, v);
	if (!ret)
		ret = nt_json_member(out, "comparison", json_object_get(cmp), 1, false);
	if (!ret && fputs("}\n", out) == EOF)
		ret = -EIO;
	json_object_put(tool);
	json_object_put(cmp);
	return ret;
}

static int comparison_jsonl(FILE *out, const struct nt_run_report *runs, size_t n)
{
	bool oom = false;
	struct json_object *rec = json_object_new_object();
	int ret;

	nt_json_put(&oom, rec, "type", json_object_new_string("comparison"));
	nt_json_put(&oom, rec, "schema_version", json_object_new_int(NT_JSON_SCHEMA_RUN));
	nt_json_put(&oom, rec, "rows", comparison_json(&oom, runs, n));
	ret = oom ? -ENOMEM : nt_json_line(out, rec);
	json_object_put(rec);
	return ret;
}

int nt_render_run_reports(FILE *out, const char *format, const struct nt_run_report *runs, size_t n,
			  const struct nt_analysis_view *v)
{
	const struct nt_format *fmt = nt_format_find(format, NT_FORMAT_ANALYSIS);
	int ret = 0;

	if (!fmt || !nt_run_reports_supports(format, n))
		return -EINVAL;
	if (n == 1)
		return one(out, fmt, &runs[0], v);
	if (strcmp(format, "json") == 0)
		return several_json(out, runs, n, v);
	for (size_t i = 0; !ret && i < n; i++) {
		ret = one(out, fmt, &runs[i], v);
		if (!ret && !fmt->records)
			fputc('\n', out);
	}
	if (ret)
		return ret;
	if (fmt->records)
		return comparison_jsonl(out, runs, n);
	if (strcmp(format, "markdown") == 0)
		comparison_markdown(out, runs, n);
	else
		comparison_text(out, runs, n);
	return ferror(out) ? -EIO : 0;
}
