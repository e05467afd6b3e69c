/* SPDX-License-Identifier: MIT */
/*
 * render.h - views of a run. Renderers read the model and write to a stream;
 * they never touch sockets or the capture. One file per format; formats are a
 * table of function pointers looked up by name.
 */
#ifndef NT_RENDER_RENDER_H
#define NT_RENDER_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/run.h"

/**
 * struct nt_render_opts - presentation choices shared by the formats
 * @color: use ANSI colours (text only)
 * @summary_only: one line per round instead of the full timeline (text)
 */
struct nt_render_opts {
	bool color;
	bool summary_only;
};

/**
 * struct nt_format - one output format
 * @name: its --format name
 * @render: write @n_runs runs (one per variant, each in its own lab) to
 *          @out; returns 0 or a negative errno (write errors)
 */
struct nt_format {
	const char *name;
	int (*render)(FILE *out, const struct nt_run *runs, unsigned n_runs,
		      const struct nt_render_opts *opts);
};

/**
 * nt_format_find() - a format by name
 * @name: "text", "json", ...
 *
 * Return: the format, or NULL.
 */
const struct nt_format *nt_format_find(const char *name);

/**
 * nt_format_names() - the known names, "text|json|..."
 *
 * Return: a static string.
 */
const char *nt_format_names(void);

/**
 * nt_render_text() - the human timeline and summary; with several runs, a
 * comparison table (one row per variant) after the summaries
 */
int nt_render_text(FILE *out, const struct nt_run *runs, unsigned n_runs,
		   const struct nt_render_opts *opts);

/**
 * nt_render_json() - the JSON document described in docs/json-schema.md: one
 * run's document, or {"schema_version", "runs": [...]} for several
 */
int nt_render_json(FILE *out, const struct nt_run *runs, unsigned n_runs,
		   const struct nt_render_opts *opts);

/**
 * nt_render_markdown() - a paste-ready report: header line, table of rounds
 * (or of variants), the first stalled round's timeline in a ```text block and
 * as a ```mermaid sequenceDiagram, the why and the fix
 */
int nt_render_markdown(FILE *out, const struct nt_run *runs, unsigned n_runs,
		       const struct nt_render_opts *opts);

/**
 * nt_render_svg() - a ladder diagram of each run's first stalled round (else
 * its last), one panel per run side by side
 */
int nt_render_svg(FILE *out, const struct nt_run *runs, unsigned n_runs,
		  const struct nt_render_opts *opts);

/**
 * nt_render_html() - one self-contained page: summary, inline SVG diagram,
 * why and fix, text timelines, legend
 */
int nt_render_html(FILE *out, const struct nt_run *runs, unsigned n_runs,
		   const struct nt_render_opts *opts);

/**
 * nt_render_explain() - the two-line explanation and the fix for a run's
 * verdicts; NULL pointers when no round stalled
 * @run: the run
 * @why: set to a static sentence, or NULL
 * @fix: set to a static sentence, or NULL
 */
void nt_render_explain(const struct nt_run *run, const char **why, const char **fix);

#endif
