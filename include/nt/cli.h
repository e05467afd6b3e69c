/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the command line: everything parsed into one options struct and
 * validated in one block. Parsing never prints; main.c reports.
 */
#ifndef NT_CLI_H
#define NT_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/trace.h"

/* Documented upper bounds (nagle-trace(1)): a 100 MB header is refused, not attempted. */
#define NT_CLI_ROUNDS_MAX	1000000u
#define NT_CLI_BYTES_MAX	16777216u    /* 16 MiB */
#define NT_CLI_STREAM_BYTES_MAX (1ull << 31) /* rounds x request or reply bytes: no seq wrap */
#define NT_CLI_MS_MAX		600000u	     /* ten minutes for any duration */

enum nt_color_mode {
	NT_COLOR_AUTO = 0,
	NT_COLOR_ALWAYS,
	NT_COLOR_NEVER,
};

enum nt_cli_action {
	NT_CLI_RUN = 0,
	NT_CLI_HELP,
	NT_CLI_VERSION,
};

#define NT_CLI_VARIANTS_MAX 32

/**
 * struct nt_options - the parsed command line
 * @action: run, or print help / version
 * @trace: the live run's options (its variant and expectation are set per run)
 * @variants: the variants to run, each in its own lab, in order
 * @n_variants: how many
 * @expect_set: --expect was given (else each variant's own expectation)
 * @format: output format name
 * @output_path: -o, NULL for stdout
 * @pcap_path: -w, NULL for none
 * @color: --color
 * @summary_only: --summary
 * @timings: --timings
 */
struct nt_options {
	enum nt_cli_action action;
	struct nt_trace_options trace;
	const struct nt_variant *variants[NT_CLI_VARIANTS_MAX];
	unsigned n_variants;
	bool expect_set;
	const char *format;
	const char *output_path;
	const char *pcap_path;
	enum nt_color_mode color;
	bool summary_only;
	bool timings;
};

/**
 * nt_cli_parse() - parse and validate argv
 * @argc: argument count
 * @argv: arguments (getopt_long may permute them)
 * @opt: filled with defaults, then the arguments
 * @err: on failure, one line such as `--rounds: "abc" is not a number`
 *
 * Return: 0, or -EINVAL on a usage error.
 */
int nt_cli_parse(int argc, char **argv, struct nt_options *opt, struct nt_err *err);

/**
 * nt_cli_parse_uint() - the one range-checked number parser
 * @name: the option, for the message ("--rounds")
 * @text: the user's text
 * @min: smallest accepted value
 * @max: largest accepted value
 * @out: set on success
 * @err: filled on failure, quoting @text
 *
 * Decimal digits only: no sign, no spaces, no suffix.
 *
 * Return: 0 or -EINVAL / -ERANGE.
 */
int nt_cli_parse_uint(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		      struct nt_err *err);

/**
 * nt_cli_usage() - the --help text
 *
 * Return: a static string.
 */
const char *nt_cli_usage(void);

#endif
