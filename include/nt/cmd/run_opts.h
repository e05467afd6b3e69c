/* SPDX-License-Identifier: MIT */
/*
 * run_opts.h - the options of `nagle-trace run`: the user's two commands,
 * how long to wait for them, the fixes to try, and the report.
 */
#ifndef NT_CMD_RUN_OPTS_H
#define NT_CMD_RUN_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/capture/capture.h"
#include "nt/cmd/common.h"
#include "nt/err.h"
#include "nt/live/fix.h"
#include "nt/live/procs.h"
#include "nt/model/analysis.h"

/* Bounds of the durations, in ms (documented in nagle-trace(1)). */
#define NT_RUN_LISTEN_TIMEOUT_MS_MAX 3600000u  /* an hour */
#define NT_RUN_TIMEOUT_MS_MAX	     86400000u /* a day */

/**
 * struct nt_run_opts - the parsed command line of `nagle-trace run`
 * @action: run, or print help / version
 * @job: --target CMD, --client CMD, --wait-port (0 for the target's first
 *       new listener), --listen-timeout, --timeout
 * @target_log: --target-log FILE, NULL for standard error with a prefix
 * @fixes: --fix, in order
 * @n_fixes: how many (at least 1: "none")
 * @ipv6: --ipv6
 * @rtt_ns: --rtt: the path's round-trip time (the lab's delay line), 0 none
 * @out: --format, -o, -w, --brief
 * @fail_on_stall: exit 1 when any run stalled
 * @capture: the capture back end, NULL for --capture none
 * @params: the stall rule's knobs (--threshold, --release-us, --max-flows)
 */
struct nt_run_opts {
	enum nt_cmd_action action;
	struct nt_procs_job job;
	const char *target_log;
	struct nt_fix fixes[NT_FIX_MAX];
	unsigned n_fixes;
	bool ipv6;
	int64_t rtt_ns;
	struct nt_cmd_output out;
	bool fail_on_stall;
	const struct nt_capture_ops *capture;
	struct nt_analysis_params params;
};

/**
 * nt_run_opts_parse() - parse and validate run's arguments
 * @argc: argument count, argv[0] is "run"
 * @argv: the arguments
 * @opt: filled with defaults, then the arguments
 * @err: on failure, one line
 *
 * Return: 0, or -EINVAL on a usage error.
 */
int nt_run_opts_parse(int argc, char **argv, struct nt_run_opts *opt, struct nt_err *err);

/**
 * nt_run_opts_table() - run's long options (for completion)
 *
 * Return: the getopt_long() table, ending with a zeroed entry.
 */
const struct option *nt_run_opts_table(void);

struct nt_run_report;

/**
 * nt_run_exit_status() - the exit status of `nagle-trace run`
 * @runs: the runs made, in order
 * @n: how many
 * @n_fixes: how many were asked for (fewer ran: a step failed or a signal came)
 * @stop_status: nt_cmd_stop_status(): 130 or 143 after a signal, else 0
 * @fail_on_stall: --fail-on-stall
 *
 * A signal wins (130/143); then 3 when any run did not end with its client
 * exiting 0 (the target never listened, the client failed, a timeout); then
 * 1 with --fail-on-stall when any run stalled or its capture dropped frames
 * (a stall may be among them); else 0: stalls are findings, not failures.
 *
 * Return: the status (enum nt_exit).
 */
int nt_run_exit_status(const struct nt_run_report *runs, unsigned n, unsigned n_fixes,
		       int stop_status, bool fail_on_stall);

/**
 * nt_run_opts_usage() - write run's --help text
 * @out: the stream
 */
void nt_run_opts_usage(FILE *out);

#endif
