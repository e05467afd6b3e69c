/* SPDX-License-Identifier: MIT */
/*
 * trace_opts.h - the trace command's options: everything parsed into one
 * struct, with defaults set once here and every cross-option rule checked in
 * one block after parsing.
 */
#ifndef NT_CMD_TRACE_OPTS_H
#define NT_CMD_TRACE_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/cmd/common.h"
#include "nt/err.h"
#include "nt/live/trace.h"

/* Documented upper bounds (nagle-trace(1)): a 100 MB header is refused, not attempted. */
#define NT_TRACE_ROUNDS_MAX	  1000000u
#define NT_TRACE_BYTES_MAX	  16777216u    /* 16 MiB */
#define NT_TRACE_STREAM_BYTES_MAX (1ull << 31) /* rounds x request or reply bytes: no seq wrap */
#define NT_TRACE_VARIANTS_MAX	  32

/**
 * struct nt_trace_opts - the trace command's parsed command line
 * @action: run, or print help / version
 * @trace: the live run's configuration (its variant is set per run)
 * @variants: the variants to run, each in its own lab, in order
 * @n_variants: how many
 * @variant_set: --variant was given
 * @compare: --compare: two variants drawn side by side on one time axis
 * @step: --step: pause after each round until a key is pressed
 * @out: the output options
 * @pkt_path: --export-packetdrill's script, NULL when not asked for
 * @kernel: predict --kernel: the release to model (when @kernel_set)
 * @kernel_set: --kernel was given
 * @hz: predict --hz, 0 for the running kernel's
 */
struct nt_trace_opts {
	enum nt_cmd_action action;
	struct nt_trace_config trace;
	const struct nt_variant *variants[NT_TRACE_VARIANTS_MAX];
	unsigned n_variants;
	bool variant_set;
	bool compare;
	bool step;
	struct nt_cmd_output out;
	const char *pkt_path;
	struct nt_kernel_version kernel;
	bool kernel_set;
	unsigned hz;
};

/**
 * nt_trace_opts_parse() - parse and validate the trace command's arguments
 * @argc: argument count
 * @argv: arguments, argv[0] the program (getopt_long may permute them)
 * @opt: filled with defaults, then the arguments
 * @err: on failure, one line such as `--rounds: "abc" is not a number`
 *
 * Return: 0, or -EINVAL on a usage error.
 */
int nt_trace_opts_parse(int argc, char **argv, struct nt_trace_opts *opt, struct nt_err *err);

/**
 * nt_trace_opts_table() - the trace command's long options (for completion)
 *
 * Return: the getopt_long() table, ending with a zeroed entry.
 */
const struct option *nt_trace_opts_table(void);

/**
 * nt_trace_opts_usage() - write the --help text, its variant and format
 * lists taken from their tables
 * @out: the stream
 */
void nt_trace_opts_usage(FILE *out);

#endif
