/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - reports of an offline analysis (nagle-trace analyze). Like
 * the live documents they read the model and write to a stream, nothing
 * else; nt/render/format.h lists them with their names.
 */
#ifndef NT_RENDER_ANALYSIS_H
#define NT_RENDER_ANALYSIS_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/analysis.h"
#include "nt/model/runinfo.h"

/**
 * struct nt_analysis_view - what the report says besides the results
 * @filter: the filter expression, NULL for none
 * @brief: the summary alone, no flow blocks (text)
 * @run: the analysis is of a run of the user's programs (`nagle-trace
 *       run`): its commands, fix, counters and samples, which every format
 *       shows before the analysis (svg draws the ladder alone); NULL for
 *       `nagle-trace analyze`
 * @workers: threads rendering the flows of text, json, jsonl and markdown
 *           at once, the caller's included (nt/render/chunks.h); 0 or 1:
 *           the caller's alone. The report is the same byte for byte
 */
struct nt_analysis_view {
	const char *filter;
	bool brief;
	const struct nt_runinfo *run;
	unsigned workers;
};

/* The command a report's heading names: `run` shows its frames through analyze's renderers. */
static inline const char *nt_analysis_command(const struct nt_analysis_view *v)
{
	return v->run ? "nagle-trace run" : "nagle-trace analyze";
}

/**
 * typedef nt_analysis_render_fn - write one format's report of a finished
 * analysis
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno (write errors, -ENOMEM).
 */
typedef int nt_analysis_render_fn(FILE *out, const struct nt_analysis *an,
				  const struct nt_analysis_view *v);

/* The human report: flows with stalls, their first stall's timeline, the summary. */
nt_analysis_render_fn nt_render_analysis_text;
/* The JSON document (docs/analyze.md). */
nt_analysis_render_fn nt_render_analysis_json;
/* JSON Lines: one "flow" record per flow with stalls, then one "summary" record. */
nt_analysis_render_fn nt_render_analysis_jsonl;
/*
 * Paste-ready Markdown: header line, table of the flows with stalls, the
 * worst flow's text block in a ```text fence and its first stall as a
 * ```mermaid sequenceDiagram, the why and the fix.
 */
nt_analysis_render_fn nt_render_analysis_markdown;
/* A ladder diagram of the worst flow's first stall. */
nt_analysis_render_fn nt_render_analysis_svg;
/* One self-contained page: summary, flow table, the ladder inline, why and fix, the text. */
nt_analysis_render_fn nt_render_analysis_html;

/**
 * nt_analysis_svg_write() - the ladder diagram, as a file or for inlining
 * @out: the stream
 * @an: a finished analysis
 * @standalone: begin with an XML declaration (a .svg file), else an <svg>
 *              element fit for inlining in HTML
 *
 * Return: 0 or a negative errno.
 */
int nt_analysis_svg_write(FILE *out, const struct nt_analysis *an, bool standalone);

/**
 * nt_analysis_md_ladder() - a flow's first stall as a Mermaid sequence
 * diagram in a fenced block (GitHub renders it)
 * @out: the stream
 * @r: a flow with a stall
 */
void nt_analysis_md_ladder(FILE *out, const struct nt_flow_result *r);

/**
 * nt_analysis_svg_flow() - the ladder diagram of one flow's first stall
 * @out: the stream
 * @an: a finished analysis
 * @r: one of its flows
 * @standalone: as for nt_analysis_svg_write()
 * @steps: mark each segment as a step (struct nt_ladder @steps), for the
 *         lesson page
 *
 * Return: 0 or a negative errno.
 */
int nt_analysis_svg_flow(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r,
			 bool standalone, bool steps);

/**
 * nt_render_analysis_text_flow() - one flow's block of the text report, from
 * its "flow A -> B" line to its timeline's last segment
 * @out: the stream
 * @an: a finished analysis
 * @r: one of its flows
 *
 * The documents quote it, so every format shows the very same timeline the
 * terminal does.
 */
void nt_render_analysis_text_flow(FILE *out, const struct nt_analysis *an,
				  const struct nt_flow_result *r);

/**
 * nt_analysis_explain() - why the stalls happened and the fix, for every format
 * @an: a finished analysis
 * @why: set to a static sentence (no final period), or NULL without stalls
 * @fix: set to a static sentence (no final period), or NULL without stalls
 */
void nt_analysis_explain(const struct nt_analysis *an, const char **why, const char **fix);

#endif
