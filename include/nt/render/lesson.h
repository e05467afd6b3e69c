/* SPDX-License-Identifier: MIT */
/*
 * lesson.h - the interactive lesson every HTML page of nagle-trace is: one
 * round's ladder at a time, stepped through item by item, each step with
 * what happened and why; a switcher between tracks (the variants of a run,
 * the flows of a capture); a strip of every round's verdict and time; a
 * predict-then-reveal mode and a projector mode; deep links
 * (#variant=NAME&round=N&step=K) mirrored on <body data-variant data-round
 * data-step>.
 *
 * The pictures are the C ladder's own SVG (nt/render/ladder.h, @steps set);
 * the page's script (src/render/lesson/lesson.js, compiled in with its
 * style by cmake/NtEmbed.cmake) only shows, hides and highlights. A step's
 * words come from the page: each figure holds an <ol class="nt-steps"> of
 * <li data-step="K" data-why="...">what</li>, written here from the
 * caller's per-event text; an empty why is left out of the view.
 *
 * Memory stays flat: a page embeds the ladders of at most
 * NT_LESSON_ROUNDS_MAX rounds per track (plus the round the other formats
 * show), spooled as they come; the strip has a cell per round up to
 * NT_LESSON_STRIP_MAX cells, beyond which neighbouring rounds share a cell.
 */
#ifndef NT_RENDER_LESSON_H
#define NT_RENDER_LESSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/model/predict.h"
#include "nt/model/verdict.h"

#define NT_LESSON_ROUNDS_MAX 16u  /* ladders embedded per track: rounds 1..16 */
#define NT_LESSON_STRIP_MAX  600u /* cells in a track's strip */

/* The page's script and style (src/render/lesson/), compiled in. */
extern const char nt_lesson_js[];
extern const char nt_lesson_css[];
/* The what-if panel's script (src/render/lesson/model.js), compiled in. */
extern const char nt_lesson_model_js[];
/* The model as WebAssembly in base64 (cmake/NtWasm.cmake); "" when built without it. */
extern const char nt_lesson_wasm_b64[];

/**
 * struct nt_lesson_strip - a track's strip being collected, one cell per
 * round (or per run of rounds, past NT_LESSON_STRIP_MAX)
 * @spool: where the cells go (nt/render/spool.h), shared by every track
 * @from: offset of this track's first cell in @spool
 * @per_cell: rounds a cell stands for
 * @n_cells: cells written
 * @max_ns: the longest time of any cell
 * @cur_first: the open cell's first round, 0 when none is open
 * @cur_last: its last
 * @cur_verdict: the worst verdict in it (enum order: stalled is the worst)
 * @cur_ns: its longest time
 * @cur_ladder: its first round has a ladder on the page
 */
struct nt_lesson_strip {
	FILE *spool;
	long from;
	unsigned per_cell;
	unsigned n_cells;
	int64_t max_ns;
	unsigned cur_first;
	unsigned cur_last;
	enum nt_verdict cur_verdict;
	int64_t cur_ns;
	bool cur_ladder;
};

/**
 * nt_lesson_strip_start() - begin a track's strip
 * @s: set up here
 * @spool: the spool the cells go to
 * @rounds: how many rounds the track will have (sets the rounds per cell)
 */
void nt_lesson_strip_start(struct nt_lesson_strip *s, FILE *spool, unsigned rounds);

/**
 * nt_lesson_strip_add() - one round, in order
 * @s: the strip
 * @round: its number, 1-based
 * @verdict: its verdict
 * @t_ns: the time the bar shows (round trip, stall), NT_UNKNOWN if none
 * @has_ladder: the page holds its ladder
 *
 * Return: 0 or -EIO.
 */
int nt_lesson_strip_add(struct nt_lesson_strip *s, unsigned round, enum nt_verdict verdict,
			int64_t t_ns, bool has_ladder);

/**
 * nt_lesson_strip_write() - the strip as HTML, the open cell closed first
 * @out: the page
 * @s: the strip
 * @caption: what the bars are, markup
 *
 * Return: 0 or a negative errno.
 */
int nt_lesson_strip_write(FILE *out, struct nt_lesson_strip *s, const char *caption);

/**
 * nt_lesson_bar() - the controls: the track switcher, round and step
 * buttons, the predict and projector toggles
 * @out: the page
 * @names: the tracks' names (data-variant)
 * @labels: what the switcher says for each
 * @n: how many
 * @what: "variant" or "flow"
 */
void nt_lesson_bar(FILE *out, const char *const *names, const char *const *labels, unsigned n,
		   const char *what);

/** nt_lesson_stage_begin() - open the stage the tracks go in */
void nt_lesson_stage_begin(FILE *out);

/**
 * nt_lesson_stage_end() - close the stage: the step panel, the verdict
 * question of predict mode, and a line on the keys
 * @out: the page
 * @verdicts: the answers predict mode offers, NULL-terminated
 */
void nt_lesson_stage_end(FILE *out, const char *const *verdicts);

/**
 * nt_lesson_track_begin() - open a track
 * @out: the page
 * @name: its name, also its deep-link name (escaped here)
 * @label: what the page calls it (escaped here)
 * @rounds: how many rounds it has
 * @unit: what a round is called ("round", "stall")
 * @noladder: what to say for a round without a ladder (escaped here)
 */
void nt_lesson_track_begin(FILE *out, const char *name, const char *label, unsigned rounds,
			   const char *unit, const char *noladder);

/** nt_lesson_track_end() - close a track */
void nt_lesson_track_end(FILE *out);

/**
 * nt_lesson_figure_begin() - open one round's figure; the caller writes its
 * ladder (@steps set), its steps and its notes, then nt_lesson_figure_end()
 * @out: the page
 * @round: the round's number
 * @verdict: its verdict, the answer of predict mode
 * @reveal: the step that shows the verdict (predict mode asks before it), 0: none
 * @steps: how many steps the ladder has
 * @wait_ns: how long the client waited for the reply (predict mode's second
 *           question), negative: not asked
 */
void nt_lesson_figure_begin(FILE *out, unsigned round, const char *verdict, long reveal,
			    size_t steps, int64_t wait_ns);

/**
 * nt_lesson_step() - one step's words, between nt_lesson_steps_begin() and
 * nt_lesson_notes_begin()
 * @out: the page
 * @step: its number, 1-based
 * @t_ns: when it happened, on the round's clock (side by side steps two
 *        rounds on one clock); negative when unknown
 * @what: what happened, plain text (escaped here)
 * @why: why, one plain sentence (escaped here); NULL or "" when nothing is known
 * @plain: what predict mode says before the verdict shows, when @why gives
 *         the verdict away (NULL: @why)
 * @kernel: the kernel detail behind the page's toggle: the rules and the
 *          evidence (escaped here); NULL or "" when none
 */
void nt_lesson_step(FILE *out, size_t step, int64_t t_ns, const char *what, const char *why,
		    const char *plain, const char *kernel);

/** nt_lesson_steps_begin() - open the figure's list of steps (after its ladder) */
void nt_lesson_steps_begin(FILE *out);

/**
 * nt_lesson_notes_begin() - close the steps and open the notes shown after
 * the last step (the verdict, why, the kernel's evidence); the caller
 * writes markup
 */
void nt_lesson_notes_begin(FILE *out);

/**
 * nt_lesson_figure_end() - close the notes and the figure
 * @out: the page
 *
 * Return: 0 or -EIO when a write failed.
 */
int nt_lesson_figure_end(FILE *out);

/**
 * nt_lesson_escape_lines() - plain text as HTML list items, one per line,
 * each without its leading blanks (text meant for a terminal's columns)
 * @out: the page
 * @text: the text
 */
void nt_lesson_escape_lines(FILE *out, const char *text);

struct nt_record;
struct nt_round_view;
struct nt_analysis;
struct nt_flow_result;

/**
 * nt_lesson_live_round() - one round of a live run as a figure: its ladder
 * (every item a step), each step's what and why, the notes after the last
 * step (src/render/lesson_live.c)
 * @out: the page
 * @run: the run
 * @rv: the round
 *
 * Return: 0 or a negative errno.
 */
int nt_lesson_live_round(FILE *out, const struct nt_record *run, const struct nt_round_view *rv);

/**
 * nt_lesson_analysis_flow() - the first stall of a flow found by analyze as
 * a figure, as nt_lesson_live_round() does for a live round
 * (src/render/analysis_html.c)
 * @out: the page
 * @an: the analysis
 * @r: the flow
 *
 * Return: 0 or a negative errno.
 */
int nt_lesson_analysis_flow(FILE *out, const struct nt_analysis *an,
			    const struct nt_flow_result *r);

/**
 * struct nt_lesson_model_run - where the what-if panel can start from
 * @variant: the variant's name
 * @label: what the panel's selector shows
 * @knobs: the knobs the run had (or the prediction was made for)
 * @measured: a recorded run, not only a prediction: changed knobs are
 *            marked as not measured
 */
struct nt_lesson_model_run {
	const char *variant;
	const char *label;
	const struct nt_predict_knobs *knobs;
	bool measured;
};

/**
 * nt_lesson_model() - the what-if panel: the knobs as controls, each run's
 * knob vector, and the model compiled to WebAssembly, inline
 * (src/render/lesson_model.c; the script is src/render/lesson/model.js)
 * @out: the page
 * @runs: the starting points, the first selected
 * @n: how many (0: no panel)
 *
 * Return: 0 or -EIO.
 */
int nt_lesson_model(FILE *out, const struct nt_lesson_model_run *runs, unsigned n);

#endif
