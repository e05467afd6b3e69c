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
#include <stdlib.h>
#include <string.h>

#include "nt/model/conclusion.h"

#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/format.h"
#include "nt/render/json.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"

bool nt_run_reports_supports(const char *format, size_t n)
{
	static const char *const several[] = { "text", "json", "jsonl", "markdown", "html" };

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

/* "19/0": the target's and the client's DelayedACKs (a hold at the target waits on the client's). */
static const char *delacks(const struct nt_runinfo *ri, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 "/%" PRIu64,
		 ri->ns[NT_RUN_NS_TARGET].delta[NT_RUN_DELAYED_ACKS],
		 ri->ns[NT_RUN_NS_CLIENT].delta[NT_RUN_DELAYED_ACKS]);
	return buf;
}

/* The model's view of a run, for nt_conclude(). */
static struct nt_conclusion_row row_of(const struct nt_run_report *r)
{
	const struct nt_runinfo *ri = r->ri;
	const struct nt_analysis_summary *s = &r->an->sum;
	char why[256];

	return (struct nt_conclusion_row){
		.fix = ri->fix,
		.ok = !nt_run_incomplete(ri, why, sizeof(why)) && !nt_run_proc_failed(&ri->client),
		.stalls = s->stalls,
		.held_client = s->by_dir[0],
		.held_target = s->by_dir[1],
		.packets = s->packets,
		.exchanges = ri->turns.n,
		.p50_ns = ri->turns.p50_ns,
		.p90_ns = ri->turns.p90_ns,
		.p99_ns = ri->turns.p99_ns,
	};
}

#define ROWS_MAX 64

static size_t rows_of(const struct nt_run_report *runs, size_t n, struct nt_conclusion_row *rows,
		      struct nt_conclusion *c)
{
	if (n > ROWS_MAX)
		n = ROWS_MAX;
	for (size_t i = 0; i < n; i++)
		rows[i] = row_of(&runs[i]);
	nt_conclude(rows, n, c);
	return n;
}

/* "5.35", "-" without exchanges. */
static const char *ppr_cell(const struct nt_conclusion_row *r, char *buf, size_t len)
{
	uint64_t x = nt_packets_per_request_x100(r);

	if (x == UINT64_MAX)
		return "-";
	snprintf(buf, len, "%" PRIu64 ".%02" PRIu64, x / 100, x % 100);
	return buf;
}

/* "client 19", "target 9", "client 3, target 2", "-". */
static const char *held_cell(const struct nt_conclusion_row *r, char *buf, size_t len)
{
	if (!r->stalls)
		return "-";
	if (r->held_client && r->held_target)
		snprintf(buf, len, "client %" PRIu64 ", target %" PRIu64, r->held_client,
			 r->held_target);
	else
		snprintf(buf, len, "%s %" PRIu64, r->held_client ? "client" : "target",
			 r->held_client ? r->held_client : r->held_target);
	return buf;
}

static const char *lost_cell(const struct nt_run_report *r, char *buf, size_t len)
{
	const struct nt_analysis_summary *s = &r->an->sum;

	return nt_label_lost(s->stalled_wall_min_ns, s->stalled_wall_ns, buf, len);
}

/* "p50 43.930 -> 0.031 ms" for the conclusion. */
static void before_after(FILE *out, const char *name, int64_t a, int64_t b)
{
	char x[NT_FMT_MS_LEN], y[NT_FMT_MS_LEN];

	fprintf(out, "%s %s -> %s ms", name, ms_cell(a, x, sizeof(x)), ms_cell(b, y, sizeof(y)));
}

/*
 * The stalled requests of a run: how many (a request that stalled twice
 * counts once: its stalls are found one after the other), whose data was
 * held in most, and the mean request -> answer time of those answered.
 */
static void stalled_requests(const struct nt_runinfo *ri, uint64_t *n_req, bool *by_client,
			     int64_t *mean_answer_ns)
{
	uint64_t last = 0, client = 0, answered = 0;
	int64_t sum = 0;

	*n_req = 0;
	for (size_t i = 0; i < ri->n_stalled; i++) {
		struct nt_run_stalled_view v;

		nt_run_stalled_view(ri, i, &v);
		client += v.s->held_by_client;
		if (v.s->request && v.s->request == last)
			continue;
		last = v.s->request;
		(*n_req)++;
		if (v.answer_ns >= 0) {
			sum += v.answer_ns;
			answered++;
		}
	}
	*by_client = client * 2 > ri->n_stalled;
	*mean_answer_ns = answered ? sum / (int64_t)answered : -1;
}

/*
 * Stalls behind a healthy median: the request -> answer time ends at the
 * answer's first segment, so a reply whose tail was held (a hold at the
 * target) or a few stalled requests among many leave p50 small. Named with
 * the stalls' own mean duration, and which of the two it is, from the
 * requests they were tied to.
 */
void nt_run_hidden_stalls(FILE *out, const struct nt_run_report *r, const char *bullet,
			  const char *code_open, const char *code_close)
{
	const struct nt_analysis_summary *s = &r->an->sum;
	const struct nt_runinfo *ri = r->ri;
	char m[NT_FMT_MS_LEN], p[NT_FMT_MS_LEN], a[NT_FMT_MS_LEN];
	uint64_t n_req;
	bool by_client;
	int64_t mean_answer_ns;

	if (!s->stalls || ri->turns.p50_ns < 0 ||
	    ri->turns.p50_ns * 4 >= s->total_stall_ns / (int64_t)s->stalls)
		return;
	stalled_requests(ri, &n_req, &by_client, &mean_answer_ns);
	fprintf(out,
		"%s%s%s%s: %" PRIu64 " stall%s of %s ms each on average hide behind a request -> "
		"answer p50 of %s ms: ",
		bullet, code_open, ri->fix, code_close, s->stalls, nt_plural(s->stalls),
		nt_fmt_ms_trunc(s->total_stall_ns / (int64_t)s->stalls, m, sizeof(m)),
		nt_fmt_ms_trunc(ri->turns.p50_ns, p, sizeof(p)));
	if (!ri->n_stalled)
		fputs("the held data left after the answer's first segment, or only some requests "
		      "stalled\n",
		      out);
	else if (by_client && mean_answer_ns >= 0)
		fprintf(out,
			"only %" PRIu64 " of %" PRIu64 " requests stalled, and those took %s ms "
			"from request to answer on average\n",
			n_req, ri->turns.started, nt_fmt_ms_trunc(mean_answer_ns, a, sizeof(a)));
	else
		fprintf(out,
			"the held data left after the answer's first segment (the target's reply "
			"tail, in %" PRIu64 " of %" PRIu64 " requests)\n",
			n_req, ri->turns.started);
}

void nt_run_conclusion_text(FILE *out, const struct nt_run_report *runs, size_t n,
			    const char *code_open, const char *code_close)
{
	struct nt_conclusion_row rows[ROWS_MAX];
	struct nt_conclusion c;
	const struct nt_conclusion_row *b, *a;
	char x[32], y[32];

	(void)rows_of(runs, n, rows, &c);
	b = &rows[c.before];
	if (!b->stalls) {
		fprintf(out, "%s%s%s stalled nowhere: there is nothing for a fix to remove",
			code_open, b->fix, code_close);
		return;
	}
	if (c.fewest < 0) {
		fputs("no fix ran to the end: nothing to conclude", out);
		return;
	}
	a = &rows[c.fewest];
	if (c.best >= 0)
		fprintf(out, "%s%s%s removed the stalls at the least cost, %s packets per request",
			code_open, a->fix, code_close, ppr_cell(a, x, sizeof(x)));
	else
		fprintf(out,
			"no fix removed every stall; the fewest were left by %s%s%s, %s packets "
			"per request",
			code_open, a->fix, code_close, ppr_cell(a, x, sizeof(x)));
	fprintf(out, " (%s%s%s: %s); the data was held at %s; request -> answer ", code_open,
		b->fix, code_close, ppr_cell(b, y, sizeof(y)), nt_hold_side_name(c.held));
	before_after(out, "p50", b->p50_ns, a->p50_ns);
	before_after(out, ", p90", b->p90_ns, a->p90_ns);
	before_after(out, ", p99", b->p99_ns, a->p99_ns);
	fprintf(out, "; stalls %" PRIu64 " -> %" PRIu64, b->stalls, a->stalls);
	if (c.best < 0)
		fprintf(out, "; %s", nt_hold_fix_advice(c.held));
}

/* One row's cells, as the text and the Markdown comparison print them. */
struct row_cells {
	char exit[32], lost[64], held[64], p50[NT_FMT_MS_LEN], p90[NT_FMT_MS_LEN],
		p99[NT_FMT_MS_LEN], ppr[32], dl[48];
	bool complete;
};

static void row_cells(const struct nt_run_report *run, const struct nt_conclusion_row *row,
		      struct row_cells *rc)
{
	const struct nt_runinfo *ri = run->ri;
	char why[256];

	exit_cell(ri, rc->exit, sizeof(rc->exit));
	held_cell(row, rc->held, sizeof(rc->held));
	lost_cell(run, rc->lost, sizeof(rc->lost));
	ms_cell(ri->turns.p50_ns, rc->p50, sizeof(rc->p50));
	ms_cell(ri->turns.p90_ns, rc->p90, sizeof(rc->p90));
	ms_cell(ri->turns.p99_ns, rc->p99, sizeof(rc->p99));
	ppr_cell(row, rc->ppr, sizeof(rc->ppr));
	delacks(ri, rc->dl, sizeof(rc->dl));
	rc->complete = !nt_run_incomplete(ri, why, sizeof(why));
}

/*
 * What follows the text's table: the stalls a healthy median hides, why
 * each fix did or could not help, and the conclusion. (Markdown and HTML
 * write the incident report instead, src/render/incident.c.)
 */
static void comparison_tail(FILE *out, const struct nt_run_report *runs, size_t n,
			    const struct nt_conclusion_row *rows, const struct nt_conclusion *c)
{
	fputs("\n", out);
	for (size_t i = 0; i < n; i++)
		nt_run_hidden_stalls(out, &runs[i], "  ", "", "");
	for (size_t i = 0; i < n; i++) {
		if (i == c->before)
			continue;
		fprintf(out, "  %s: %s\n", rows[i].fix,
			nt_conclusion_why(rows[i].fix, c->held, rows[i].ok && !rows[i].stalls));
	}
	fputs("\nconclusion: ", out);
	nt_run_conclusion_text(out, runs, n, "", "");
	fputs("\n", out);
}

static void comparison_text(FILE *out, const struct nt_run_report *runs, size_t n)
{
	const struct nt_runinfo *first = runs[0].ri;
	struct nt_conclusion_row rows[ROWS_MAX];
	struct nt_conclusion c;
	int lost_w = 7, held_w = 4;

	n = rows_of(runs, n, rows, &c);
	/* A lost-time range ("831.293-843.296") is wider than one number: the column follows it. */
	for (size_t i = 0; i < n; i++) {
		char lost[64], held[64];
		int lw = (int)strlen(lost_cell(&runs[i], lost, sizeof(lost)));
		int hw = (int)strlen(held_cell(&rows[i], held, sizeof(held)));

		lost_w = lw > lost_w ? lw : lost_w;
		held_w = hw > held_w ? hw : held_w;
	}
	fprintf(out, "nagle-trace run: %zu fixes, each in its own lab, Linux %s\n", n,
		first->kernel);
	fprintf(out, "  target: %s\n  client: %s\n\n", first->target.cmd, first->client.cmd);
	fprintf(out, "%-16s %-12s %7s %-*s %*s %9s %10s %10s %10s %8s %7s %11s  %s\n", "fix",
		"client", "stalls", held_w, "held", lost_w, "lost ms", "exchanges", "p50 ms",
		"p90 ms", "p99 ms", "packets", "pkt/req", "delacks t/c", "complete");
	for (size_t i = 0; i < n; i++) {
		const struct nt_runinfo *ri = runs[i].ri;
		struct row_cells rc;

		row_cells(&runs[i], &rows[i], &rc);
		fprintf(out,
			"%-16s %-12s %7" PRIu64 " %-*s %*s %9" PRIu64 " %10s %10s %10s %8" PRIu64
			" %7s %11s  %s\n",
			ri->fix, rc.exit, runs[i].an->sum.stalls, held_w, rc.held, lost_w, rc.lost,
			ri->turns.n, rc.p50, rc.p90, rc.p99, runs[i].an->sum.packets, rc.ppr, rc.dl,
			rc.complete ? "yes" : "NO");
	}
	fputs("\n  held: whose write Nagle kept back (tcp_nagle_check() on the sender); lost: "
	      "wall-clock time a connection\n  waited on a stall; exchanges: requests answered, "
	      "p50/p90/p99 from a request's first segment to the\n  answer's, on the capture; "
	      "pkt/req: packets per request; delacks t/c: TcpExtDelayedACKs of the target and\n  "
	      "the client "
	      "(a hold at the target waits on the client's)\n",
	      out);
	comparison_tail(out, runs, n, rows, &c);
}

static const char *const side_keys[] = {
	[NT_HOLD_NONE] = "none",
	[NT_HOLD_CLIENT] = "client",
	[NT_HOLD_TARGET] = "target",
	[NT_HOLD_BOTH] = "both",
};

static struct json_object *conclusion_json(bool *oom, const struct nt_run_report *runs, size_t n)
{
	struct nt_conclusion_row rows[ROWS_MAX];
	struct nt_conclusion c;
	struct json_object *o = json_object_new_object();
	const struct nt_conclusion_row *a, *b;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	n = rows_of(runs, n, rows, &c);
	b = &rows[c.before];
	a = c.fewest >= 0 ? &rows[c.fewest] : NULL;
	nt_json_put(oom, o, "before", json_object_new_string(b->fix));
	nt_json_put(oom, o, "held", json_object_new_string(side_keys[c.held]));
	nt_json_put_str(oom, o, "best", c.best >= 0 ? rows[c.best].fix : NULL);
	nt_json_put_str(oom, o, "fewest_stalls", a ? a->fix : NULL);
	nt_json_put(oom, o, "stalls_before", nt_json_u64(b->stalls));
	nt_json_put_i64(oom, o, "stalls_after", a ? (int64_t)a->stalls : 0, a != NULL);
	nt_json_put_i64(oom, o, "p50_before_ns", b->p50_ns, b->p50_ns >= 0);
	nt_json_put_i64(oom, o, "p90_before_ns", b->p90_ns, b->p90_ns >= 0);
	nt_json_put_i64(oom, o, "p99_before_ns", b->p99_ns, b->p99_ns >= 0);
	nt_json_put_i64(oom, o, "p50_after_ns", a ? a->p50_ns : -1, a && a->p50_ns >= 0);
	nt_json_put_i64(oom, o, "p90_after_ns", a ? a->p90_ns : -1, a && a->p90_ns >= 0);
	nt_json_put_i64(oom, o, "p99_after_ns", a ? a->p99_ns : -1, a && a->p99_ns >= 0);
	nt_json_put_str(oom, o, "advice",
			c.held != NT_HOLD_NONE ? nt_hold_fix_advice(c.held) : NULL);
	mem = open_memstream(&text, &len);
	if (mem) {
		nt_run_conclusion_text(mem, runs, n, "", "");
		if (fclose(mem) != 0)
			*oom = true;
	} else {
		*oom = true;
	}
	nt_json_put_str(oom, o, "text", text ? text : "");
	free(text);
	return o;
}

static struct json_object *comparison_json(bool *oom, const struct nt_run_report *runs, size_t n)
{
	struct json_object *rows_json = json_object_new_array();
	struct nt_conclusion_row rows[ROWS_MAX];
	struct nt_conclusion c;

	n = rows_of(runs, n, rows, &c);
	for (size_t i = 0; i < n; i++) {
		const struct nt_runinfo *ri = runs[i].ri;
		const struct nt_analysis_summary *s = &runs[i].an->sum;
		const struct nt_run_counters *t = &ri->ns[NT_RUN_NS_TARGET];
		struct json_object *o = json_object_new_object();
		uint64_t ppr = nt_packets_per_request_x100(&rows[i]);
		char why[256];

		nt_json_put(oom, o, "fix", json_object_new_string(ri->fix));
		nt_json_put_i64(oom, o, "client_exit_status", ri->client.exit_status,
				ri->client.exited && !ri->client.signal);
		nt_json_put(oom, o, "stalls", nt_json_u64(s->stalls));
		nt_json_put(oom, o, "held_client", nt_json_u64(s->by_dir[0]));
		nt_json_put(oom, o, "held_target", nt_json_u64(s->by_dir[1]));
		nt_json_put(oom, o, "held",
			    json_object_new_string(side_keys[nt_hold_side_of(&rows[i])]));
		nt_json_put(oom, o, "stalled_wall_ns", json_object_new_int64(s->stalled_wall_ns));
		nt_json_put(oom, o, "stalled_wall_min_ns",
			    json_object_new_int64(s->stalled_wall_min_ns));
		nt_json_put(oom, o, "exchanges", nt_json_u64(ri->turns.n));
		nt_json_put_i64(oom, o, "exchange_p50_ns", ri->turns.p50_ns, ri->turns.p50_ns >= 0);
		nt_json_put_i64(oom, o, "exchange_p90_ns", ri->turns.p90_ns, ri->turns.p90_ns >= 0);
		nt_json_put_i64(oom, o, "exchange_p99_ns", ri->turns.p99_ns, ri->turns.p99_ns >= 0);
		nt_json_put(oom, o, "packets", nt_json_u64(s->packets));
		if (ppr == UINT64_MAX)
			nt_json_put_null(oom, o, "packets_per_request");
		else
			nt_json_put(oom, o, "packets_per_request",
				    json_object_new_double((double)ppr / 100.0));
		nt_json_put_i64(oom, o, "target_delayed_acks",
				(int64_t)t->delta[NT_RUN_DELAYED_ACKS],
				t->known[NT_RUN_DELAYED_ACKS]);
		nt_json_put_i64(oom, o, "client_delayed_acks",
				(int64_t)ri->ns[NT_RUN_NS_CLIENT].delta[NT_RUN_DELAYED_ACKS],
				ri->ns[NT_RUN_NS_CLIENT].known[NT_RUN_DELAYED_ACKS]);
		nt_json_put(oom, o, "complete",
			    json_object_new_boolean(!nt_run_incomplete(ri, why, sizeof(why))));
		nt_json_put(oom, o, "why",
			    json_object_new_string(nt_conclusion_why(
				    ri->fix, c.held, rows[i].ok && !rows[i].stalls)));
		nt_json_append(oom, rows_json, o);
	}
	return rows_json;
}

static int one(FILE *out, const struct nt_format *fmt, const struct nt_run_report *r,
	       const struct nt_analysis_view *v)
{
	struct nt_analysis_view view = *v;
	struct nt_conclusion_row row = row_of(r);
	enum nt_hold_side held = nt_hold_side_of(&row);
	int ret;

	view.run = r->ri;
	ret = fmt->analysis(out, r->an, &view);
	/* The analysis's advice names no side; a live run knows whose writes were held. */
	if (!ret && strcmp(fmt->name, "text") == 0 && held != NT_HOLD_NONE) {
		fprintf(out,
			"  held: %s's writes (client %" PRIu64 ", target %" PRIu64 " of %" PRIu64
			" stalls): %s\n",
			held == NT_HOLD_BOTH ? "each side" : nt_hold_side_name(held),
			row.held_client, row.held_target, row.stalls, nt_hold_fix_advice(held));
		nt_run_hidden_stalls(out, r, "  ", "", "");
	}
	return ret ? ret : (ferror(out) ? -EIO : 0);
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
	struct json_object *concl = conclusion_json(&oom, runs, n);
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
		ret = nt_json_member(out, "comparison", json_object_get(cmp), 1, true);
	if (!ret)
		ret = nt_json_member(out, "conclusion", json_object_get(concl), 1, false);
	if (!ret && fputs("}\n", out) == EOF)
		ret = -EIO;
	json_object_put(tool);
	json_object_put(cmp);
	json_object_put(concl);
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
	nt_json_put(&oom, rec, "conclusion", conclusion_json(&oom, runs, n));
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
	if (fmt->runs)
		return fmt->runs(out, runs, n, v);
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
	comparison_text(out, runs, n);
	return ferror(out) ? -EIO : 0;
}
