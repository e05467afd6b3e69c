/* SPDX-License-Identifier: MIT */
/*
 * watch_opts.h - nagle-trace watch's options, parsed and checked in one place.
 */
#ifndef NT_CMD_WATCH_OPTS_H
#define NT_CMD_WATCH_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/cmd/common.h"
#include "nt/cmd/stall_opts.h"
#include "nt/err.h"
#include "nt/model/analysis.h"

/* --duration's limit: a year, in milliseconds. */
#define NT_WATCH_DURATION_MS_MAX (366ULL * 24 * 3600 * 1000)

/**
 * struct nt_watch_opts - what the command line asked for
 * @action: run, --help or --version
 * @ifname: -i, default "any"
 * @max_packets: -c, stop after this many frames; 0 no limit
 * @duration_ns: --duration, 0 no limit
 * @jsonl: --format jsonl (else text)
 * @params: the stall rule's knobs (--threshold, --release-us, --max-flows)
 * @filter: the user's pcap-filter(7) expression, NULL for none
 * @kernel_filter: what the kernel gets: "tcp" or "tcp and (@filter)"
 */
struct nt_watch_opts {
	enum nt_cmd_action action;
	const char *ifname;
	uint64_t max_packets;
	int64_t duration_ns;
	bool jsonl;
	struct nt_analysis_params params;
	char *filter;
	char *kernel_filter;
};

/**
 * nt_watch_opts_parse() - parse and check the command line
 * @argc: argument count (argv[0] is "watch")
 * @argv: arguments
 * @o: filled (nt_watch_opts_fini() frees it, even on failure)
 * @err: on a usage error, one line
 *
 * Return: 0, -EINVAL (usage) or -ENOMEM.
 */
int nt_watch_opts_parse(int argc, char **argv, struct nt_watch_opts *o, struct nt_err *err);

/**
 * nt_watch_opts_fini() - free what parsing allocated
 * @o: the options
 */
void nt_watch_opts_fini(struct nt_watch_opts *o);

/**
 * nt_watch_opts_usage() - --help's text
 * @out: the stream
 */
void nt_watch_opts_usage(FILE *out);

/**
 * nt_watch_opts_table() - the long options, for the bash completion
 *
 * Return: the getopt_long() table.
 */
const struct option *nt_watch_opts_table(void);

#endif
