/* SPDX-License-Identifier: MIT */
/*
 * analysis.h - views of an offline analysis (nagle-trace analyze). Like the
 * live renderers they read the model and write to a stream, nothing else;
 * formats are a table looked up by name.
 */
#ifndef NT_RENDER_ANALYSIS_H
#define NT_RENDER_ANALYSIS_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/analysis.h"

/* Bumped with any incompatible change to the JSON document (docs/analyze.md). */
#define NT_ANALYSIS_SCHEMA_VERSION 1

/**
 * struct nt_analysis_view - what the report says besides the results
 * @filter: the filter expression, NULL for none
 */
struct nt_analysis_view {
	const char *filter;
};

/**
 * struct nt_analysis_format - one output format of analyze
 * @name: its --format name
 * @render: write the report; 0 or a negative errno (write errors)
 */
struct nt_analysis_format {
	const char *name;
	int (*render)(FILE *out, const struct nt_analysis *an, const struct nt_analysis_view *v);
};

/**
 * nt_analysis_format_find() - a format by name
 * @name: "text", "json", "markdown", "svg" or "html"
 *
 * Return: the format, or NULL.
 */
const struct nt_analysis_format *nt_analysis_format_find(const char *name);

/**
 * nt_analysis_format_names() - the known names, "text|json|..."
 *
 * Return: a static string.
 */
const char *nt_analysis_format_names(void);

/**
 * nt_render_analysis_text() - the human report: flows with stalls, their
 * first stall's timeline, the summary
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_analysis_text(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v);

/**
 * nt_render_analysis_json() - the JSON document (schema_version 1, docs/analyze.md)
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_analysis_json(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v);

/**
 * nt_analysis_endpoint_str() - "1.2.3.4:80" or "[::1]:80"
 * @family: AF_INET or AF_INET6
 * @addr: network order
 * @port: host order
 * @buf: at least 64 bytes
 *
 * Return: @buf.
 */
char *nt_analysis_endpoint_str(int family, const uint8_t *addr, uint16_t port, char *buf);

/**
 * nt_render_analysis_markdown() - a paste-ready report: header line, table of
 * the flows with stalls, the worst flow's text block in a ```text fence and
 * its first stall as a ```mermaid sequenceDiagram, the why and the fix
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_analysis_markdown(FILE *out, const struct nt_analysis *an,
				const struct nt_analysis_view *v);

/**
 * nt_render_analysis_svg() - a ladder diagram of the worst flow's first stall
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_analysis_svg(FILE *out, const struct nt_analysis *an,
			   const struct nt_analysis_view *v);

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
 * nt_render_analysis_html() - one self-contained page: summary, flow table,
 * the ladder diagram inline, why and fix, the text report in <pre>
 * @out: the stream
 * @an: a finished analysis
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
int nt_render_analysis_html(FILE *out, const struct nt_analysis *an,
			    const struct nt_analysis_view *v);

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
 * nt_analysis_episode_ends() - an episode's two endpoints as strings
 * @r: the flow
 * @ep: one of its episodes
 * @a: at least 64 bytes; set to A, the side whose data was held
 * @b: at least 64 bytes; set to B, the side whose ACK was late
 */
void nt_analysis_episode_ends(const struct nt_flow_result *r, const struct nt_stall_episode *ep,
			      char *a, char *b);

/**
 * nt_analysis_worst_flow() - the flow a document shows: most time stalled,
 * the earliest of equals
 * @an: a finished analysis
 *
 * Return: its index in @an->flows, or -1 when no flow stalled.
 */
int nt_analysis_worst_flow(const struct nt_analysis *an);

/**
 * nt_analysis_explain() - why the stalls happened and the fix, for every format
 * @an: a finished analysis
 * @why: set to a static sentence (no final period), or NULL without stalls
 * @fix: set to a static sentence (no final period), or NULL without stalls
 */
void nt_analysis_explain(const struct nt_analysis *an, const char **why, const char **fix);

/**
 * nt_analysis_ms_str() - a duration as the text report prints it: "43.967"
 * (milliseconds, truncated to microseconds, no unit)
 * @ns: the duration
 * @buf: at least 32 bytes
 *
 * Return: @buf.
 */
char *nt_analysis_ms_str(int64_t ns, char *buf);

/**
 * nt_analysis_utc_str() - an absolute time as ISO 8601 UTC with nanoseconds
 * @t_ns: ns since the epoch
 * @buf: at least 48 bytes
 *
 * Return: @buf.
 */
char *nt_analysis_utc_str(int64_t t_ns, char *buf);

/**
 * nt_analysis_occurrence_str() - where a stall happened, as the tables show
 * it: "frame 37, 2019-04-11T17:16:41.910018000Z", with "file 2, " in front
 * when several files were read
 * @an: the analysis
 * @r: the stall's flow
 * @ep: the stall
 * @buf: at least 96 bytes
 *
 * Return: @buf.
 */
char *nt_analysis_occurrence_str(const struct nt_analysis *an, const struct nt_flow_result *r,
				 const struct nt_stall_episode *ep, char *buf);

#endif
