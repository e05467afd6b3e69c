// SPDX-License-Identifier: MIT
/*
 * run_stalled.c - which requests stalled, in every format (see
 * nt/render/run.h): each stall of a run with the request it delayed (its
 * number, when it started, its request -> answer time) and the time it
 * lost. The text and the incident report list the first ones, the JSON
 * every one the run kept.
 */
#include <inttypes.h>
#include <stdio.h>

#include "nt/model/stall.h"
#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/json.h"
#include "nt/render/labels.h"
#include "nt/render/run.h"
#include "nt/render/table.h"

void nt_run_stalled_view(const struct nt_runinfo *ri, size_t i, struct nt_run_stalled_view *v)
{
	const struct nt_run_stalled *s = &ri->stalled[i];
	const struct nt_turn *t = nt_turns_request(&ri->turns, s->request);
	int64_t t0 = ri->capture_t0_ns >= 0 ? ri->capture_t0_ns : 0;

	*v = (struct nt_run_stalled_view){
		.s = s,
		.at_ns = s->held_t_ns - t0,
		.request_at_ns = t ? t->start_t_ns - t0 : -1,
		.answer_ns = t && t->answer_t_ns >= 0 ? t->answer_t_ns - t->start_t_ns : -1,
	};
}

/* "7", or "-" for a stall before any request; @buf holds at least 24 bytes. */
static const char *request_name(const struct nt_run_stalled *s, char *buf, size_t len)
{
	if (!s->request)
		return "-";
	snprintf(buf, len, "%" PRIu64, s->request);
	return buf;
}

/* A time in ms, or "-" when unknown (-1), as nt_fmt_ms() says it. */
static const char *ms_or_unknown(int64_t ns, char *buf, size_t len)
{
	return ns >= 0 ? nt_fmt_ms_trunc(ns, buf, len) : "-";
}

/* "43.902 ms", or "-" when unknown; @buf holds NT_FMT_MS_LEN + 3 bytes. */
static const char *ms_cell(int64_t ns, char *buf, size_t len)
{
	char ms[NT_FMT_MS_LEN];

	if (ns < 0)
		return "-";
	snprintf(buf, len, "%s ms", nt_fmt_ms_trunc(ns, ms, sizeof(ms)));
	return buf;
}

/* Stalls the run found: those it kept and those past its bound. */
static uint64_t total(const struct nt_runinfo *ri)
{
	return (uint64_t)ri->n_stalled + ri->stalled_dropped;
}

/* How many the list shows and what the heading says about the rest. */
static size_t shown(const struct nt_runinfo *ri, size_t max)
{
	return ri->n_stalled < max ? ri->n_stalled : max;
}

void nt_run_stalled_text(FILE *out, const struct nt_runinfo *ri, size_t max)
{
	size_t n = shown(ri, max);

	if (!ri->n_stalled)
		return;
	fprintf(out, "  stalled requests (%" PRIu64 " stall%s%s):\n", total(ri),
		nt_plural(total(ri)),
		n < ri->n_stalled ? "; the first ones, --format json lists them all" : "");
	fprintf(out, "    %7s %12s %13s  %-15s %12s %10s\n", "request", "started ms",
		"-> answer ms", "held", "ACK after ms", "lost ms");
	for (size_t i = 0; i < n; i++) {
		struct nt_run_stalled_view v;
		char r[24], at[NT_FMT_MS_LEN], ans[NT_FMT_MS_LEN], ack[NT_FMT_MS_LEN],
			lost[NT_FMT_MS_LEN], held[32];

		nt_run_stalled_view(ri, i, &v);
		snprintf(held, sizeof(held), "%s %" PRIu32 " B",
			 v.s->held_by_client ? "client" : "target", v.s->held_len);
		fprintf(out, "    %7s %12s %13s  %-15s %12s %10s\n",
			request_name(v.s, r, sizeof(r)),
			ms_or_unknown(v.request_at_ns, at, sizeof(at)),
			ms_or_unknown(v.answer_ns, ans, sizeof(ans)), held,
			nt_fmt_ms_trunc(v.s->ack_delay_ns, ack, sizeof(ack)),
			nt_fmt_ms_trunc(v.s->stall_ns, lost, sizeof(lost)));
	}
}

struct json_object *nt_run_stalled_json(bool *oom, const struct nt_runinfo *ri)
{
	struct json_object *a = json_object_new_array();

	if (!a)
		*oom = true;
	for (size_t i = 0; a && i < ri->n_stalled; i++) {
		struct nt_run_stalled_view v;
		struct json_object *o = json_object_new_object();

		nt_run_stalled_view(ri, i, &v);
		nt_json_put_i64(oom, o, "request", (int64_t)v.s->request, v.s->request > 0);
		nt_json_put(oom, o, "client_port", json_object_new_int(v.s->client_port));
		nt_json_put_i64(oom, o, "request_at_ns", v.request_at_ns, v.request_at_ns >= 0);
		nt_json_put_i64(oom, o, "answer_ns", v.answer_ns, v.answer_ns >= 0);
		nt_json_put(oom, o, "held_at_ns", json_object_new_int64(v.at_ns));
		nt_json_put(oom, o, "held",
			    json_object_new_string(v.s->held_by_client ? "client" : "target"));
		nt_json_put(oom, o, "held_len", json_object_new_int64(v.s->held_len));
		nt_json_put(oom, o, "ack_delay_ns", json_object_new_int64(v.s->ack_delay_ns));
		nt_json_put(
			oom, o, "delack",
			json_object_new_string(nt_delack_name((enum nt_delack_class)v.s->delack)));
		nt_json_put(oom, o, "stall_ns", json_object_new_int64(v.s->stall_ns));
		if (!o || json_object_array_add(a, o) < 0) {
			json_object_put(o);
			*oom = true;
		}
	}
	return a;
}

/* The heading sentence both incident formats start a fix's list with. */
static const char *list_heading(const struct nt_runinfo *ri, size_t max)
{
	if (!ri->n_stalled)
		return "";
	return ri->n_stalled > max ? ", the first ten:" : ":";
}

/* The list of one fix's stalls: the first @max. */
static const struct nt_table_col list_cols[] = {
	{ "#", true },
	{ "request", true },
	{ "started (ms into the capture)", true },
	{ "request → answer", true },
	{ "held at", false },
	{ "ACK after", true },
	{ "time lost", true },
};

static void list_table(FILE *out, const struct nt_runinfo *ri, size_t max, enum nt_table_kind kind)
{
	struct nt_table t = NT_TABLE_OF(out, kind, list_cols);

	nt_table_head(&t);
	for (size_t i = 0; i < shown(ri, max); i++) {
		struct nt_run_stalled_view v;
		char r[24], at[NT_FMT_MS_LEN], ans[NT_FMT_MS_LEN + 3], ack[NT_FMT_MS_LEN],
			lost[NT_FMT_MS_LEN];

		nt_run_stalled_view(ri, i, &v);
		nt_table_cellf(&t, "%zu", i + 1);
		nt_table_cell(&t, request_name(v.s, r, sizeof(r)));
		nt_table_cell(&t, ms_or_unknown(v.request_at_ns, at, sizeof(at)));
		nt_table_cell(&t, ms_cell(v.answer_ns, ans, sizeof(ans)));
		nt_table_cellf(&t, "%s (%" PRIu32 " B)", v.s->held_by_client ? "client" : "target",
			       v.s->held_len);
		nt_table_cellf(&t, "%s ms (%s)",
			       nt_fmt_ms_trunc(v.s->ack_delay_ns, ack, sizeof(ack)),
			       nt_delack_name((enum nt_delack_class)v.s->delack));
		nt_table_cellf(&t, "%s ms", nt_fmt_ms_trunc(v.s->stall_ns, lost, sizeof(lost)));
	}
	nt_table_end(&t);
}

void nt_run_stalled_list(FILE *out, const struct nt_runinfo *ri, size_t max,
			 enum nt_table_kind kind)
{
	bool html = kind == NT_TABLE_HTML;

	fputs(html ? "<p><code>" : "\n`", out);
	if (html)
		nt_escape_xml(out, ri->fix);
	else
		fputs(ri->fix, out);
	fputs(html ? "</code>: " : "`: ", out);
	if (!ri->n_stalled) {
		fputs(html ? "no stall.</p>\n" : "no stall.\n", out);
		return;
	}
	fprintf(out, "%" PRIu64 " stall%s%s%s", total(ri), nt_plural(total(ri)),
		list_heading(ri, max), html ? "</p>\n" : "\n\n");
	list_table(out, ri, max, kind);
}
