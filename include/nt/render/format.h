/* SPDX-License-Identifier: MIT */
/*
 * format.h - the one registry of output formats, for every command.
 *
 * A format is a name and what it can render: a document of live runs
 * (struct nt_trace_doc, nt/render/render.h), an analyze report (a
 * function over a finished analysis, nt/render/analysis.h) and a table of
 * kernels (nt/render/kernels.h). A command looks
 * its --format up here and says which kind it needs; --help and error
 * messages list the names from the same table.
 */
#ifndef NT_RENDER_FORMAT_H
#define NT_RENDER_FORMAT_H

#include <stddef.h>

#include "nt/render/analysis.h"
#include "nt/render/kernels.h"
#include "nt/render/render.h"

struct nt_run_report;

/**
 * typedef nt_runs_render_fn - write `run`'s report of @n fixes as one document
 * @out: the stream
 * @runs: each fix's facts and analysis
 * @n: how many (at least 1)
 * @v: extras
 *
 * Return: 0 or a negative errno.
 */
typedef int nt_runs_render_fn(FILE *out, const struct nt_run_report *runs, size_t n,
			      const struct nt_analysis_view *v);

/**
 * struct nt_format - one output format
 * @name: its --format name
 * @about: what it is, a few words for --help
 * @trace: its document of live runs, NULL when it has none
 * @analysis: its analyze report, NULL when it has none
 * @kernels: its table of kernels (`nagle-trace kernels`), NULL when it has
 *           none
 * @records: a stream of self-contained records (JSON Lines), not a
 *           document: standard output gets each as it is made, where a
 *           document is held back until it is complete
 * @lists_stalls: its analyze report lists every stall (the analysis must
 *                keep each one: &nt_analysis_params.keep_stalls)
 * @keeps: the flows its analyze report shows, an enum nt_analysis_keep
 *         (&nt_analysis_params.keep): every one (0), or the worst alone
 * @brief_totals: with --brief its analyze report shows no flow, only the
 *                files and the totals (NT_KEEP_NONE)
 * @runs: `run`'s own report of one fix or several in one document (the
 *        incident report), NULL when `run` shows each fix through
 *        @analysis and then the comparison
 */
struct nt_format {
	const char *name;
	const char *about;
	const struct nt_trace_doc *trace;
	nt_analysis_render_fn *analysis;
	nt_kernels_render_fn *kernels;
	bool records;
	bool lists_stalls;
	uint8_t keeps;
	bool brief_totals;
	nt_runs_render_fn *runs;
};

/* What a command needs of a format. */
enum nt_format_kind {
	NT_FORMAT_TRACE,
	NT_FORMAT_ANALYSIS,
	NT_FORMAT_KERNELS,
};

/**
 * nt_format_find() - a format by name that renders @kind
 * @name: "text", "json", ...
 * @kind: what the command renders
 *
 * Return: the format, or NULL.
 */
const struct nt_format *nt_format_find(const char *name, enum nt_format_kind kind);

/**
 * nt_format_names() - the names of the formats that render @kind, joined:
 * "text|json|markdown|svg|html"
 * @kind: what the command renders
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_format_names(enum nt_format_kind kind, char *buf, size_t len);

#endif
