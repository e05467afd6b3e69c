/* SPDX-License-Identifier: MIT */
/*
 * tty.h - a live run on a terminal: the report shown round by round, a
 * one-line progress display on standard error, and --step's pause.
 *
 * A sink in front of the renderer's (struct nt_record_sink): each round goes
 * to the report first; a report on a terminal is flushed at once (files and
 * pipes keep the all-or-nothing guarantee, nt/output.h); then the progress
 * line is redrawn. The progress line shows only on a terminal (not a dumb
 * one), and only once the command has run for a second; it is blanked
 * before the report writes so the two never mix on one screen. It uses no
 * escape sequence: a carriage return and blanks.
 */
#ifndef NT_CMD_TTY_H
#define NT_CMD_TTY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/model/record.h"

#define NT_TTY_PROGRESS_AFTER_NS (1000LL * 1000 * 1000) /* the progress line waits 1 s */

/**
 * struct nt_cmd_tty - the terminal side of one trace command
 * @inner: the renderer's sink
 * @sink: this sink (nt_cmd_tty_sink())
 * @report: the report's stream
 * @report_tty: @report is a terminal: flush it after each round
 * @progress: standard error is a terminal: draw the progress line
 * @shown: a progress line (or --step's prompt) is on the screen
 * @shown_len: its length, to blank it
 * @start_ns: when the command began (CLOCK_MONOTONIC)
 * @drawn_ns: when the line was last drawn
 * @variant: index of the variant running
 * @n_variants: how many will run
 * @name: its name
 * @rounds: its rounds
 * @done: rounds handed over so far
 * @verdicts: their verdicts
 */
struct nt_cmd_tty {
	const struct nt_record_sink *inner;
	struct nt_record_sink sink;
	FILE *report;
	bool report_tty;
	bool progress;
	bool shown;
	int shown_len;
	int64_t start_ns;
	int64_t drawn_ns;
	unsigned variant;
	unsigned n_variants;
	const char *name;
	unsigned rounds;
	unsigned done;
	unsigned verdicts[NT_VERDICT_COUNT];
};

/**
 * nt_cmd_tty_init() - set up the terminal side
 * @t: set up here
 * @inner: the renderer's sink
 * @report: the report's stream
 * @report_tty: @report is a terminal
 * @n_variants: how many variants will run
 */
void nt_cmd_tty_init(struct nt_cmd_tty *t, const struct nt_record_sink *inner, FILE *report,
		     bool report_tty, unsigned n_variants);

/**
 * nt_cmd_tty_sink() - the sink to give the live run
 * @t: the terminal side
 *
 * Return: the sink.
 */
const struct nt_record_sink *nt_cmd_tty_sink(struct nt_cmd_tty *t);

/**
 * nt_cmd_tty_variant() - a variant begins
 * @t: the terminal side
 * @i: its index
 * @name: its name
 */
void nt_cmd_tty_variant(struct nt_cmd_tty *t, unsigned i, const char *name);

/**
 * nt_cmd_tty_clear() - take the progress line off the screen (before the
 * command prints anything else)
 * @t: the terminal side
 */
void nt_cmd_tty_clear(struct nt_cmd_tty *t);

/**
 * nt_cmd_tty_step() - --step's pause, a struct nt_trace_config step
 * callback: a prompt on standard error, then one key from standard input
 * (a terminal, read without echo or line editing); Ctrl-C still stops
 * @ctx: the struct nt_cmd_tty
 * @round: the round just shown
 */
void nt_cmd_tty_step(void *ctx, unsigned round);

/**
 * nt_cmd_tty_columns() - the width of the terminal on standard output
 *
 * Return: TIOCGWINSZ's columns, else $COLUMNS, else 80.
 */
unsigned nt_cmd_tty_columns(void);

/**
 * nt_cmd_wrap_open() - a stream that writes to @to with every line broken
 * at words to @cols (nt/render/wrap.h), for a report shown on a terminal
 * @to: where the lines go (standard output)
 * @cols: the width
 *
 * A partial line waits for its newline, or for fclose(), which writes it and
 * leaves @to open. fflush() passes complete lines on and flushes @to.
 *
 * Return: the stream, or NULL (errno set).
 */
FILE *nt_cmd_wrap_open(FILE *to, unsigned cols);

#endif
