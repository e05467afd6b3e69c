/* SPDX-License-Identifier: MIT */
/*
 * common.h - what the commands share: the action a command line asks for,
 * the output options (--format, -o, -w, --color), and the decision to
 * colour.
 */
#ifndef NT_CMD_COMMON_H
#define NT_CMD_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/err.h"
#include "nt/render/format.h"

enum nt_cmd_action {
	NT_CMD_RUN = 0,
	NT_CMD_HELP,
	NT_CMD_VERSION,
};

enum nt_color_mode {
	NT_COLOR_AUTO = 0,
	NT_COLOR_ALWAYS,
	NT_COLOR_NEVER,
};

/**
 * struct nt_cmd_output - where and how a command writes its report
 * @format: the --format name
 * @path: -o, NULL for standard output
 * @pcap_path: -w, NULL for none
 * @color: --color
 * @summary_only: --summary
 * @brief: --brief
 * @timings: --timings
 * @explain: --explain
 */
struct nt_cmd_output {
	const char *format;
	const char *path;
	const char *pcap_path;
	enum nt_color_mode color;
	bool summary_only;
	bool brief;
	bool timings;
	bool explain;
};

/* --rtt's upper bound, in microseconds: 10000 ms, ten seconds. */
#define NT_CMD_RTT_US_MAX 10000000u

/**
 * nt_cmd_parse_rtt() - --rtt's value: milliseconds with up to three decimals
 * (a microsecond), 0 to NT_CMD_RTT_US_MAX
 * @name: the option as typed
 * @text: its value
 * @rtt_ns: set on success
 * @err: filled on failure, quoting @text
 *
 * Return: 0 or -EINVAL.
 */
int nt_cmd_parse_rtt(const char *name, const char *text, int64_t *rtt_ns, struct nt_err *err);

/**
 * nt_cmd_parse_action() - the options every command has, after its own:
 * -h/--help, --version; anything else is unknown
 * @c: the option's code
 * @version_code: the command's code for --version
 * @name: the option as typed, for the message
 * @action: set for -h and --version
 * @err: filled for an unknown option
 *
 * Return: 0, or -EINVAL for an option the command does not have.
 */
int nt_cmd_parse_action(int c, int version_code, const char *name, enum nt_cmd_action *action,
			struct nt_err *err);

/*
 * The getopt_long() entries nt_cmd_parse_action() answers, last in every
 * command's table (before its terminator): -h/--help and --version under the
 * command's own @version_code.
 */
// clang-format off
#define NT_CMD_ACTION_LONG_OPTS(version_code) \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, (version_code) }

/* A report's --format FMT and -o/--output FILE, for the commands that write one. */
#define NT_CMD_REPORT_LONG_OPTS(format_code) \
	{ "format", required_argument, NULL, (format_code) }, \
	{ "output", required_argument, NULL, 'o' }
// clang-format on

/**
 * nt_cmd_parse_color() - --color's value
 * @name: the option as typed
 * @text: "auto", "always" or "never"
 * @out: set on success
 * @err: filled on failure
 *
 * Return: 0 or -EINVAL.
 */
int nt_cmd_parse_color(const char *name, const char *text, enum nt_color_mode *out,
		       struct nt_err *err);

/**
 * nt_cmd_want_color() - whether a report to standard output gets colour:
 * always/never as asked; auto when standard output is a terminal, NO_COLOR
 * is unset or empty and TERM is not "dumb"; never for a file
 * @out: the output options
 *
 * Return: true for colour.
 */
bool nt_cmd_want_color(const struct nt_cmd_output *out);

/**
 * nt_cmd_fail() - @err's message as the one line on standard error,
 * "nagle-trace: ..."
 * @code: the exit status to return
 * @err: the failure
 *
 * Return: @code.
 */
int nt_cmd_fail(int code, const struct nt_err *err);

/**
 * nt_cmd_open_fail() - a destination could not be opened: exit 4 with @err's
 * line, unless SIGINT or SIGTERM came meanwhile (a FIFO's open() waiting for
 * its reader returns EINTR then): the stop's status, 130 or 143, silently
 * @err: the failure
 *
 * Return: the exit status.
 */
int nt_cmd_open_fail(const struct nt_err *err);

/**
 * nt_cmd_usage_format() - the help's --format line for a command that writes
 * an analysis (analyze, run): @kind's formats, then @note
 * @out: the stream
 * @kind: the formats
 * @note: the lines after the names, each indented to the help's column
 */
void nt_cmd_usage_format(FILE *out, enum nt_format_kind kind, const char *note);

/**
 * nt_cmd_check_format() - --format names one of @kind's formats
 * @format: what was given
 * @kind: the formats
 * @err: on refusal, one line naming them
 *
 * Return: 0 or -EINVAL.
 */
int nt_cmd_check_format(const char *format, enum nt_format_kind kind, struct nt_err *err);

/**
 * nt_cmd_usage_error() - a usage error's line, then where the help is
 * @command: "analyze", "run", "predict"; NULL for the trace (nagle-trace --help)
 * @msg: what was wrong
 *
 * Return: NT_EXIT_USAGE.
 */
int nt_cmd_usage_error(const char *command, const char *msg);

/**
 * nt_cmd_print_info() - --help or --version: the text on standard output,
 * then whether standard output took it (closed or full: one line, exit 4)
 * @print: writes the text to the stream it is given
 *
 * Return: an exit status (enum nt_exit).
 */
int nt_cmd_print_info(void (*print)(FILE *out));

/**
 * nt_cmd_version() - write --version's text: nagle-trace's version and the
 * libraries it runs with
 * @out: the stream
 */
void nt_cmd_version(FILE *out);

#endif
