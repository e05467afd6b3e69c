/* SPDX-License-Identifier: MIT */
/*
 * view.h - what the document formats (markdown, svg, html) share: which
 * round represents a run, how a segment or a call is labelled, the verdict
 * counts as words, and the text timeline of one round. Pure functions over
 * the model; nothing here writes to a file.
 */
#ifndef NT_RENDER_VIEW_H
#define NT_RENDER_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "nt/model/run.h"

/**
 * nt_view_pick_round() - the round that represents a run in a diagram
 * @run: the run
 *
 * Return: the 0-based index of the first stalled round, else of the last
 * round, or -1 when the run has no round.
 */
int nt_view_pick_round(const struct nt_run *run);

/**
 * nt_view_first_stalling() - the run whose stall a document shows
 * @runs: the runs
 * @n_runs: how many
 *
 * Return: the index of the first run with a stalled round, else 0.
 */
unsigned nt_view_first_stalling(const struct nt_run *runs, unsigned n_runs);

/**
 * nt_view_segment_label() - "header 4 B", "pure ACK", "SYN", "reply 2 B"
 * @seg: the segment
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_segment_label(const struct nt_segment *seg, char *buf, size_t len);

/**
 * nt_view_call_label() - "write(header)", "read(request)", ...
 * @call: the call
 *
 * Return: a static string.
 */
const char *nt_view_call_label(enum nt_call call);

/**
 * nt_view_verdicts() - the verdict counts in words: "1 held, 3 stalled"
 * @s: the summary
 * @buf: filled ("no rounds" when empty)
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_verdicts(const struct nt_summary *s, char *buf, size_t len);

/**
 * nt_view_ms() - nanoseconds as "43.247 ms", or "-" when @ns < 0
 * @ns: a duration
 * @buf: filled
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_ms(int64_t ns, char *buf, size_t len);

/**
 * nt_view_text_round() - one round's lines of the text timeline (no colour)
 * @run: the run
 * @index: the round, 1-based
 * @out: set to a malloc'd string, from the "round N" line to the last event
 *
 * Cut from nt_render_text()'s own output, so every format shows the very
 * same timeline the terminal does.
 *
 * Return: 0, -ENOENT when the round is not in the text, or -ENOMEM.
 */
int nt_view_text_round(const struct nt_run *run, unsigned index, char **out);

/**
 * nt_view_oneline() - a multi-line explanation as one line
 * @text: a sentence that may hold "\n" plus indentation (nt_render_explain())
 * @buf: filled, each newline and the blanks after it made one space
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *nt_view_oneline(const char *text, char *buf, size_t len);

#endif
