/* SPDX-License-Identifier: MIT */
/*
 * run.h - reports of `nagle-trace run`: the analysis renderers with a run's
 * facts before the analysis (nt_analysis_view.run), and the documents of
 * several runs (one per --fix) with their comparison.
 *
 * One run is any analysis format with the run block added: text and JSON
 * in full, markdown and html a short block, svg the ladder alone. Several
 * runs are text, json, jsonl or markdown: each run's report, then one
 * comparison (a table, or a "comparison" member or record).
 */
#ifndef NT_RENDER_RUN_H
#define NT_RENDER_RUN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nt/model/analysis.h"
#include "nt/model/runinfo.h"
#include "nt/render/analysis.h"
#include "nt/render/table.h"

/**
 * struct nt_run_report - one run: its facts and the analysis of its capture
 * @ri: the facts
 * @an: the finished analysis
 * @annot: every stall of the analysis with its time (NULL: not kept)
 */
struct nt_run_report {
	const struct nt_runinfo *ri;
	const struct nt_analysis *an;
	const struct nt_annot_list *annot;
};

/**
 * nt_render_run_reports() - write the report of one or several runs
 * @out: the stream
 * @format: the --format name (nt_run_reports_supports() said yes)
 * @runs: the runs, in order
 * @n: how many (at least 1)
 * @v: the view (@v->run is set per run here)
 *
 * Return: 0 or a negative errno (write errors, -ENOMEM; -EINVAL for a
 * format that cannot hold several runs).
 */
int nt_render_run_reports(FILE *out, const char *format, const struct nt_run_report *runs, size_t n,
			  const struct nt_analysis_view *v);

/**
 * nt_run_reports_supports() - whether @format can hold @n runs
 * @format: the --format name (a known analysis format)
 * @n: how many runs
 *
 * Return: true for any format with one run; text, json, jsonl and markdown
 * with several.
 */
bool nt_run_reports_supports(const char *format, size_t n);

/**
 * nt_run_json() - the "run" member's value
 * @oom: set on failure
 * @ri: the run's facts
 *
 * Return: a new object, or NULL.
 */
struct json_object *nt_run_json(bool *oom, const struct nt_runinfo *ri);

/**
 * nt_run_jsonl_record() - the {"type": "run", ...} record of JSON Lines
 * @out: the stream
 * @ri: the run's facts
 *
 * Return: 0 or a negative errno.
 */
int nt_run_jsonl_record(FILE *out, const struct nt_runinfo *ri);

/**
 * struct nt_run_stalled_view - one stall of a run as the reports give it
 * @s: the stall
 * @at_ns: its held segment, ns into the capture
 * @request_at_ns: its request's first segment, ns into the capture; -1
 *                 unknown (before any request, or past NT_TURNS_LISTED)
 * @answer_ns: its request -> answer time; -1 unknown (not answered, or as
 *             for @request_at_ns)
 */
struct nt_run_stalled_view {
	const struct nt_run_stalled *s;
	int64_t at_ns;
	int64_t request_at_ns;
	int64_t answer_ns;
};

/**
 * nt_run_stalled_view() - stall @i of a run, with its request's times
 * @ri: the run's facts
 * @i: below @ri->n_stalled
 * @v: filled
 */
void nt_run_stalled_view(const struct nt_runinfo *ri, size_t i, struct nt_run_stalled_view *v);

/**
 * nt_run_stalled_text() - "stalled requests": the first @max stalls, one
 * aligned line each (request, when it started, request -> answer, whose
 * data was held, the ACK's delay, the time lost); nothing without stalls
 * @out: the stream
 * @ri: the run's facts
 * @max: how many lines at most
 */
void nt_run_stalled_text(FILE *out, const struct nt_runinfo *ri, size_t max);

/**
 * nt_run_stalled_json() - the "stalled_requests" array: every stall kept
 * @oom: set on failure
 * @ri: the run's facts
 *
 * Return: a new array, or NULL.
 */
struct json_object *nt_run_stalled_json(bool *oom, const struct nt_runinfo *ri);

/**
 * nt_run_stalled_list() - a fix's stalls as a table (Markdown, GitHub's, or
 * HTML), the first @max, after a sentence with the fix's name and the count
 * @out: the stream
 * @ri: the run's facts
 * @max: rows at most
 * @kind: the format
 */
void nt_run_stalled_list(FILE *out, const struct nt_runinfo *ri, size_t max,
			 enum nt_table_kind kind);

/**
 * nt_run_text_header() - the text block before the analysis: commands,
 * how they ended, fix, counters, exchanges, target sockets, capture losses
 * @out: the stream
 * @ri: the run's facts
 */
void nt_run_text_header(FILE *out, const struct nt_runinfo *ri);

/**
 * nt_run_markdown_header() - a short Markdown block before the analysis
 * @out: the stream
 * @ri: the run's facts
 */
void nt_run_markdown_header(FILE *out, const struct nt_runinfo *ri);

/**
 * nt_run_html_header() - a short HTML block (a heading and a list)
 * @out: the stream
 * @ri: the run's facts
 */
void nt_run_html_header(FILE *out, const struct nt_runinfo *ri);

/**
 * nt_render_incident_markdown() - the incident report of one fix or several
 * in GitHub-flavoured Markdown (tables, Mermaid): summary and conclusion,
 * before/after, latency per fix, the stalls, the socket readings, the first
 * stall's ladder, the command that reproduces it (src/render/incident.c)
 * @out: the stream
 * @runs: the runs
 * @n: how many (at least 1)
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_incident_markdown(FILE *out, const struct nt_run_report *runs, size_t n,
				const struct nt_analysis_view *v);

/**
 * nt_render_incident_html() - the same incident report as one
 * self-contained HTML page (no script, nothing loaded), with an SVG the
 * size of a slide for each fix's latency and the first stall's ladder
 * @out: the stream
 * @runs: the runs
 * @n: how many (at least 1)
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_incident_html(FILE *out, const struct nt_run_report *runs, size_t n,
			    const struct nt_analysis_view *v);

/**
 * nt_run_hidden_stalls() - a line naming stalls that hide behind a healthy
 * request -> answer median (the median under a quarter of the stalls' mean
 * duration), with their own mean; nothing otherwise
 * @out: where
 * @r: the run
 * @bullet: before the line ("  ", "- ")
 * @code_open: before the fix's name
 * @code_close: after it
 */
void nt_run_hidden_stalls(FILE *out, const struct nt_run_report *r, const char *bullet,
			  const char *code_open, const char *code_close);

/**
 * nt_run_conclusion_text() - the comparison's conclusion as one sentence:
 * the fix that removed the stalls at the least cost (packets per request),
 * where the data was held, request -> answer p50/p90/p99 and stalls before
 * and after (nt/model/conclusion.h decides)
 * @out: where
 * @runs: the runs
 * @n: how many
 * @code_open: before a fix's name ("`" in Markdown, "" in text)
 * @code_close: after it
 */
void nt_run_conclusion_text(FILE *out, const struct nt_run_report *runs, size_t n,
			    const char *code_open, const char *code_close);

/**
 * nt_run_quote_lines() - write @text line by line, each after @prefix (a
 * command's stderr quoted in a report)
 * @out: the stream
 * @text: the lines; a last line without newline gets one
 * @prefix: put before each
 */
void nt_run_quote_lines(FILE *out, const char *text, const char *prefix);

/**
 * nt_run_proc_words() - how a command ended, with what the run did to it:
 * "exit status 0", "killed by signal 9 (SIGKILL)", "not started", ",
 * stopped by us (SIGTERM)"
 * @p: the command
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_run_proc_words(const struct nt_run_proc *p, char *buf, size_t len);

/**
 * nt_run_incomplete() - why a run's report is not the whole story, or NULL:
 * the capture dropped frames, the client did not run to its end
 * @ri: the run's facts
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf, or NULL when the report is complete.
 */
const char *nt_run_incomplete(const struct nt_runinfo *ri, char *buf, size_t len);

/**
 * struct nt_analysis_json - the analyze document's members after "tool",
 * built before anything is written
 * @params: "params"
 * @files: "files"
 * @summary: "summary"
 */
struct nt_analysis_json {
	struct json_object *params;
	struct json_object *files;
	struct json_object *summary;
};

/**
 * nt_analysis_json_build() - build the members of @an's document
 * @parts: filled; free with nt_analysis_json_free() whatever the result
 * @an: a finished analysis
 * @v: the view
 *
 * Return: 0 or -ENOMEM.
 */
int nt_analysis_json_build(struct nt_analysis_json *parts, const struct nt_analysis *an,
			   const struct nt_analysis_view *v);

/**
 * nt_analysis_json_write() - write "params", "files", "flows", "summary" at
 * @depth, the last without a comma
 * @out: the stream
 * @parts: built by nt_analysis_json_build()
 * @an: the analysis (its flows are written one at a time)
 * @depth: the members' level
 * @workers: threads rendering "flows" (&nt_analysis_view.workers)
 *
 * Return: 0 or a negative errno.
 */
int nt_analysis_json_write(FILE *out, const struct nt_analysis_json *parts,
			   const struct nt_analysis *an, int depth, unsigned workers);

/**
 * nt_analysis_json_free() - release the members
 * @parts: as built
 */
void nt_analysis_json_free(struct nt_analysis_json *parts);

#endif
