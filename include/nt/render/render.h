/* SPDX-License-Identifier: MIT */
/*
 * render.h - documents of live runs. A document is written while the runs
 * go: each format's struct nt_trace_doc is a table of callbacks that the
 * driver here (struct nt_renderer) calls as the run hands over its parts.
 * Renderers read the model and write to a stream; they never touch sockets
 * or the capture. The formats themselves are listed once, in
 * nt/render/format.h.
 */
#ifndef NT_RENDER_RENDER_H
#define NT_RENDER_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/record.h"

/**
 * struct nt_render_opts - presentation choices shared by the formats
 * @color: use ANSI colours (text only)
 * @summary_only: one line per round instead of the full timeline (text)
 * @brief: the summary alone, no line per round (text)
 * @compare: two runs drawn side by side on one time axis (svg)
 * @explain: the model's rule and sentence under every packet it explains (text)
 */
struct nt_render_opts {
	bool color;
	bool summary_only;
	bool brief;
	bool compare;
	bool explain;
};

struct nt_renderer;

/**
 * struct nt_trace_doc - one format's document of runs, written as runs are made
 * @open: set up @r->state; 0 or -ENOMEM
 * @begin: a run starts: its configuration and handshake
 * @round: one round of the current run, in order
 * @end: the run's teardown, summary and expectation
 * @finish: after the last run: what needs every run (a comparison table, or
 *          a document that opens with the summary); @runs hold no events
 * @close: free @r->state; safe after a failed @open
 *
 * The callbacks return 0 or a negative errno (write errors). A format whose
 * document starts with what is known only at the end (markdown, svg, html)
 * keeps the one round it shows and spools the per-round rows to a temporary
 * file, so no format keeps a long run's events in memory.
 */
struct nt_trace_doc {
	int (*open)(struct nt_renderer *r);
	int (*begin)(struct nt_renderer *r, const struct nt_record *run,
		     const struct nt_round_view *handshake);
	int (*round)(struct nt_renderer *r, const struct nt_record *run,
		     const struct nt_round_view *rv);
	int (*end)(struct nt_renderer *r, const struct nt_record *run,
		   const struct nt_round_view *teardown);
	int (*finish)(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs);
	void (*close)(struct nt_renderer *r);
};

/**
 * struct nt_renderer - one document being written
 * @doc: its format's callbacks
 * @out: where it goes
 * @opts: presentation choices
 * @n_runs: how many runs the document is for (several: a comparison of variants)
 * @run: index of the run being written (counts end() calls)
 * @state: the format's own
 * @sink: hands a run's parts to the format (nt_renderer_sink())
 * @error: the first failure (a negative errno), 0 while all is well
 * @interrupted: set before nt_renderer_finish() when a signal kept runs from
 *               being made (fewer runs than announced) or cut one short
 */
struct nt_renderer {
	const struct nt_trace_doc *doc;
	FILE *out;
	struct nt_render_opts opts;
	unsigned n_runs;
	unsigned run;
	void *state;
	struct nt_record_sink sink;
	int error;
	bool interrupted;
};

/**
 * nt_renderer_open() - start a document
 * @r: set up here
 * @doc: the format's document callbacks
 * @out: the stream
 * @opts: presentation choices (copied; NULL: defaults)
 * @n_runs: how many runs it will hold (at least 1)
 *
 * Return: 0 or a negative errno.
 */
int nt_renderer_open(struct nt_renderer *r, const struct nt_trace_doc *doc, FILE *out,
		     const struct nt_render_opts *opts, unsigned n_runs);

/**
 * nt_renderer_sink() - the sink to give nt_record_retire() and nt_record_finish()
 * @r: the document
 *
 * Return: the sink; its callbacks fail with the first write error (kept in
 * @r->error), except -EPIPE: a reader that went away ends the document,
 * not the run.
 */
const struct nt_record_sink *nt_renderer_sink(struct nt_renderer *r);

/**
 * nt_renderer_finish() - end the document and flush it
 * @r: the document
 * @runs: the finished runs it holds (their events are gone; summaries stay)
 * @n_runs: how many (fewer than announced when a run was interrupted)
 *
 * Return: 0 or the document's first error (-EPIPE included).
 */
int nt_renderer_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs);

/**
 * nt_renderer_close() - free the document's state; safe on a zeroed @r
 * @r: the document
 */
void nt_renderer_close(struct nt_renderer *r);

/**
 * nt_render_runs() - finish @runs into one document: nt_renderer_open(),
 * nt_record_finish() of each run with the renderer's sink, nt_renderer_finish()
 * @doc: the format's document callbacks
 * @out: the stream
 * @runs: runs with complete timelines (consumed: their events are freed)
 * @n_runs: how many
 * @opts: presentation choices
 *
 * For recorded runs (tests, goldens); a live run streams instead.
 *
 * Return: 0 or a negative errno.
 */
int nt_render_runs(const struct nt_trace_doc *doc, FILE *out, struct nt_record *runs,
		   unsigned n_runs, const struct nt_render_opts *opts);

/*
 * The text format's parts, for the documents that quote its timeline
 * (markdown's round, html's timelines). Each writes what `--format text`
 * writes for that part of a single run.
 */
void nt_text_begin(FILE *out, const struct nt_record *run, const struct nt_round_view *handshake,
		   const struct nt_render_opts *opts);
void nt_text_round(FILE *out, const struct nt_record *run, const struct nt_round_view *rv,
		   const struct nt_render_opts *opts);
void nt_text_end(FILE *out, const struct nt_record *run, const struct nt_round_view *teardown,
		 const struct nt_render_opts *opts);

/**
 * nt_text_round_block() - one round's block of the text timeline, from its
 * "round N" line to its last line, without the blank line before it
 * @run: the run
 * @rv: the round
 * @out: set to a malloc()ed string
 *
 * Return: 0 or -ENOMEM.
 */
int nt_text_round_block(const struct nt_record *run, const struct nt_round_view *rv, char **out);

/**
 * nt_text_evidence() - the kernel's evidence lines of a round as the text
 * timeline words them, without indentation
 * @rv: the round
 * @client: set to the sender's line (malloc()ed), NULL when not gathered
 * @target: set to the receiver's line (malloc()ed), NULL when not gathered
 */
void nt_text_evidence(const struct nt_round_view *rv, char **client, char **target);

/* Each format's document of runs (registry.c lists them with their names). */
extern const struct nt_trace_doc nt_text_trace;
extern const struct nt_trace_doc nt_json_trace;
extern const struct nt_trace_doc nt_jsonl_trace;
extern const struct nt_trace_doc nt_markdown_trace;
extern const struct nt_trace_doc nt_svg_trace;
extern const struct nt_trace_doc nt_html_trace;

/**
 * nt_render_explain() - why a run's rounds stalled, its two causes apart so
 * that each format joins them in its own layout, and the fix; NULL pointers
 * when no round stalled
 * @run: the run
 * @held: set to a static clause, why the body waited (Nagle), or NULL
 * @delayed: set to a static clause, why its ACK waited (the delayed ACK), or NULL
 * @fix: set to a static sentence, or NULL
 */
void nt_render_explain(const struct nt_record *run, const char **held, const char **delayed,
		       const char **fix);

#endif
