/* SPDX-License-Identifier: MIT */
/*
 * stall_opts.h - the stall rule's options, shared by every command that
 * finds stalls in a capture (`analyze`, `run`): one table, one parser, one
 * help text, so the two cannot drift.
 */
#ifndef NT_CMD_STALL_OPTS_H
#define NT_CMD_STALL_OPTS_H

#include <getopt.h>

#include "nt/cli.h"
#include "nt/err.h"
#include "nt/model/analysis.h"

/* A flow with no packet for this long (capture time) leaves the table. */
#define NT_ANALYZE_IDLE_NS 60000000000LL /* 60 s */
/*
 * The flow table's cap: a bound on memory, not its size (the table grows by
 * doubling with the flows active at once, about 750 bytes each, so 2^20 of
 * them are 0.8 GB at most). An active flow evicted to make room loses its
 * state and its stalls may be missed, so the cap sits far above what real
 * captures hold at once; like Zeek, which keeps every connection until its
 * inactivity timeout, the table is meant to hold them all, and a report
 * whose table was full anyway says it is incomplete.
 */
#define NT_ANALYZE_MAX_FLOWS	  (1u << 20)
#define NT_ANALYZE_MAX_FLOWS_MAX  (1u << 24)
#define NT_ANALYZE_RELEASE_US_MAX 60000000u

/* Their getopt values, above every command's own. */
enum {
	NT_STALL_OPT_THRESHOLD = 0x400,
	NT_STALL_OPT_RELEASE,
	NT_STALL_OPT_MAX_FLOWS,
};

/* The rows of a command's getopt_long() table. */
#define NT_STALL_LONG_OPTS                                                       \
	{ "threshold", required_argument, NULL, NT_STALL_OPT_THRESHOLD },        \
		{ "release-us", required_argument, NULL, NT_STALL_OPT_RELEASE }, \
	{                                                                        \
		"max-flows", required_argument, NULL, NT_STALL_OPT_MAX_FLOWS     \
	}

/* Their lines of --help. */
#define NT_STALL_OPTS_HELP                                                                   \
	"  --threshold MS      smallest H -> ACK delay that counts (default 10)\n"           \
	"  --release-us US     release window after the ACK, at the sender (default 1000)\n" \
	"  --max-flows N       flows tracked at once, at most (default 1048576)\n"

/**
 * nt_stall_opts_defaults() - the analysis knobs before any option
 * @p: filled
 */
void nt_stall_opts_defaults(struct nt_analysis_params *p);

/**
 * nt_stall_opts_parse() - one of the stall options, if @c is one
 * @c: what nt_cli_next() returned
 * @cli: the pass (its name and value)
 * @p: the knobs
 * @err: on refusal, one line
 *
 * Return: 0 when parsed, 1 when @c is not a stall option, -EINVAL / -ERANGE
 * for a bad value.
 */
int nt_stall_opts_parse(int c, const struct nt_cli *cli, struct nt_analysis_params *p,
			struct nt_err *err);

#endif
