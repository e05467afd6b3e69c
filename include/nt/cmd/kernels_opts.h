/* SPDX-License-Identifier: MIT */
/*
 * kernels_opts.h - `nagle-trace kernels`'s options: the kernels, how the
 * guests run, the report, and the trace options passed on to each guest.
 */
#ifndef NT_CMD_KERNELS_OPTS_H
#define NT_CMD_KERNELS_OPTS_H

#include <getopt.h>
#include <stdio.h>

#include "nt/cmd/common.h"
#include "nt/err.h"
#include "nt/vm/guest.h"

#define NT_KERNELS_MAX 16
/* The trace options one run passes on: every exchange and verdict option twice over. */
#define NT_KERNELS_ARGS_MAX 64

/**
 * struct nt_kernels_opts - the command line, parsed
 * @action: run, --help, --version
 * @kernels: the images (--kernel, comma-separated), pointing into @kernel_list
 * @n_kernels: how many
 * @kernel_list: the copy of --kernel's value @kernels point into
 * @modules_dir: --modules
 * @busybox: --busybox (default /bin/busybox)
 * @runs_path: --runs FILE, NULL for one run of the command line's options
 * @runs: the runs: the command line's trace options, or one per line of
 *        @runs_path
 * @args: the storage of the command line's run
 * @lines: the storage of @runs_path's runs (malloc'd; nt_kernels_opts_fini())
 * @boot: how the guests run
 * @out: --format and --output
 */
struct nt_kernels_opts {
	enum nt_cmd_action action;
	const char *kernels[NT_KERNELS_MAX];
	unsigned n_kernels;
	char kernel_list[4096];
	const char *modules_dir;
	const char *busybox;
	const char *runs_path;
	struct nt_vm_runs runs;
	char *args[NT_KERNELS_ARGS_MAX];
	char *lines;
	struct nt_vm_boot boot;
	struct nt_cmd_output out;
};

/**
 * nt_kernels_opts_parse() - parse and check `nagle-trace kernels`'s
 * arguments; each run's trace options are checked by the trace's own parser
 * @argc: argument count (argv[0] is "kernels")
 * @argv: arguments
 * @o: filled; nt_kernels_opts_fini() it
 * @err: the usage error
 *
 * Return: 0, -EINVAL (usage) or -ENOENT (--runs FILE cannot be read: the
 * message says so; still a usage error).
 */
int nt_kernels_opts_parse(int argc, char **argv, struct nt_kernels_opts *o, struct nt_err *err);

/** nt_kernels_opts_fini() - free what parsing read */
void nt_kernels_opts_fini(struct nt_kernels_opts *o);

/** nt_kernels_opts_table() - the options, for the bash completion */
const struct option *nt_kernels_opts_table(void);

/** nt_kernels_opts_usage() - --help */
void nt_kernels_opts_usage(FILE *out);

#endif
