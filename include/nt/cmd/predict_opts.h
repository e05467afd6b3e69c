/* SPDX-License-Identifier: MIT */
/*
 * predict_opts.h - the predict command's options: the exchange's knobs
 * parsed as for trace into the same struct (nt/cmd/trace_opts.h), the kernel
 * to model, and the report.
 */
#ifndef NT_CMD_PREDICT_OPTS_H
#define NT_CMD_PREDICT_OPTS_H

#include <getopt.h>
#include <stdio.h>

#include "nt/cmd/trace_opts.h"
#include "nt/err.h"

/**
 * nt_predict_opts_parse() - parse and validate `nagle-trace predict`'s
 * arguments: the exchange's knobs as for trace, --kernel, --hz, text or json
 * @argc: argument count
 * @argv: arguments, argv[0] "predict"
 * @opt: filled with defaults, then the arguments
 * @err: on failure, one line
 *
 * Return: 0, or -EINVAL on a usage error.
 */
int nt_predict_opts_parse(int argc, char **argv, struct nt_trace_opts *opt, struct nt_err *err);

/** nt_predict_opts_table() - predict's options, for the bash completion */
const struct option *nt_predict_opts_table(void);

/** nt_predict_opts_usage() - predict's --help */
void nt_predict_opts_usage(FILE *out);

#endif
