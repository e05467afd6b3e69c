/* SPDX-License-Identifier: MIT */
/*
 * trace_opts_int.h - what trace's options and predict's (predict_opts.c)
 * share: the option codes, the exchange's knobs, and the one parser, so a
 * knob is parsed and checked the same way for the run and for the model.
 */
#ifndef NT_CMD_TRACE_OPTS_INT_H
#define NT_CMD_TRACE_OPTS_INT_H

#include <getopt.h>
#include <stdbool.h>

#include "nt/cmd/trace_opts.h"
#include "nt/err.h"

enum {
	OPT_ROUNDS = 256,
	OPT_HEADER,
	OPT_BODY,
	OPT_REPLY,
	OPT_PAUSE,
	OPT_THRESHOLD,
	OPT_TIMEOUT,
	OPT_EXPECT,
	OPT_FORMAT,
	OPT_CAPTURE,
	OPT_COLOR,
	OPT_SUMMARY,
	OPT_VARIANT,
	OPT_HANDLER,
	OPT_WRITE_GAP,
	OPT_IPV6,
	OPT_PINGPONG,
	OPT_VERSION,
	OPT_TIMINGS,
	OPT_BRIEF,
	OPT_EXPLAIN,
	OPT_EXPORT_PKT,
	OPT_COMPARE,
	OPT_STEP,
	OPT_KERNEL,
	OPT_HZ,
	OPT_RTT,
	OPT_CAPTURE_AT,
};

/* The exchange's knobs: trace runs them, predict models them. */
// clang-format off
#define EXCHANGE_OPTIONS \
	{ "rounds", required_argument, NULL, OPT_ROUNDS }, \
	{ "header", required_argument, NULL, OPT_HEADER }, \
	{ "body", required_argument, NULL, OPT_BODY }, \
	{ "reply", required_argument, NULL, OPT_REPLY }, \
	{ "pause", required_argument, NULL, OPT_PAUSE }, \
	{ "threshold", required_argument, NULL, OPT_THRESHOLD }, \
	{ "variant", required_argument, NULL, OPT_VARIANT }, \
	{ "handler-ms", required_argument, NULL, OPT_HANDLER }, \
	{ "write-gap-ms", required_argument, NULL, OPT_WRITE_GAP }, \
	{ "ipv6", no_argument, NULL, OPT_IPV6 }, \
	{ "pingpong-thresh", required_argument, NULL, OPT_PINGPONG }, \
	{ "rtt", required_argument, NULL, OPT_RTT }, \
	NT_CMD_REPORT_LONG_OPTS(OPT_FORMAT), \
	NT_CMD_ACTION_LONG_OPTS(OPT_VERSION)
// clang-format on

/**
 * nt_trace_opts_parse_table() - parse and validate arguments against @table
 * @argc: argument count
 * @argv: arguments
 * @table: trace's options, or predict's
 * @shorts: the short options @table's entries may take
 * @predict: for the model: no round timeout to fit the waits in
 * @opt: filled with defaults, then the arguments
 * @err: on failure, one line
 *
 * Return: 0, or -EINVAL on a usage error.
 */
int nt_trace_opts_parse_table(int argc, char **argv, const struct option *table, const char *shorts,
			      bool predict, struct nt_trace_opts *opt, struct nt_err *err);

#endif
