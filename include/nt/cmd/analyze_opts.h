/* SPDX-License-Identifier: MIT */
/*
 * analyze_opts.h - the analyze command's options, files and filter.
 *
 * Positional arguments are files while they are "-" or name something that
 * exists, or look like a capture path (contain '/' or end in .pcap, .pcapng,
 * .cap; those are files even when missing, so a typo is "cannot open", exit
 * 4, not a filter). The first other argument starts the filter expression,
 * which takes the rest, like tcpdump's.
 */
#ifndef NT_CMD_ANALYZE_OPTS_H
#define NT_CMD_ANALYZE_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/cmd/common.h"
#include "nt/cmd/stall_opts.h"
#include "nt/err.h"
#include "nt/model/analysis.h"

/* --jobs: threads reading files, then rendering flows, at once (more than the cores only adds switching). */
#define NT_ANALYZE_JOBS_MAX 1024u

/**
 * struct nt_analyze_opts - the analyze command's parsed command line
 * @action: analyze, or print help / version
 * @params: the analysis knobs
 * @out: the output options (format and -o)
 * @fail_on_stall: exit 1 when any stall was found
 * @files: the inputs, in order ("-": standard input)
 * @n_files: how many
 * @filter: the filter expression, NULL for none (allocated)
 * @max_packets: -c: stop after this many packets (over all files), 0 for all
 * @annotate: --annotate: the pcapng to write the inputs to, with comments, or NULL
 * @jobs: --jobs: files read at once, 0 for one per core
 */
struct nt_analyze_opts {
	enum nt_cmd_action action;
	struct nt_analysis_params params;
	struct nt_cmd_output out;
	bool fail_on_stall;
	char **files;
	size_t n_files;
	char *filter;
	uint64_t max_packets;
	const char *annotate;
	unsigned jobs;
};

/**
 * nt_analyze_opts_parse() - parse and validate analyze's arguments
 * @argc: argument count, argv[0] is "analyze"
 * @argv: the arguments
 * @opt: filled with defaults, then the arguments; free with
 *       nt_analyze_opts_fini() whatever the result
 * @err: on failure, one line
 *
 * Return: 0, -EINVAL on a usage error, or -ENOMEM.
 */
int nt_analyze_opts_parse(int argc, char **argv, struct nt_analyze_opts *opt, struct nt_err *err);

/**
 * nt_analyze_opts_fini() - free what parsing allocated; safe on a zeroed @opt
 * @opt: the options
 */
void nt_analyze_opts_fini(struct nt_analyze_opts *opt);

/**
 * nt_analyze_opts_table() - analyze's long options (for completion)
 *
 * Return: the getopt_long() table, ending with a zeroed entry.
 */
const struct option *nt_analyze_opts_table(void);

/**
 * nt_analyze_opts_usage() - write analyze's --help text
 * @out: the stream
 */
void nt_analyze_opts_usage(FILE *out);

#endif
