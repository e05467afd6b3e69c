// SPDX-License-Identifier: MIT
/*
 * kernels_opts.c - `nagle-trace kernels`'s options (see
 * nt/cmd/kernels_opts.h). The trace options a guest runs are the trace's
 * own: they are collected as typed, passed on verbatim and checked here by
 * the trace's parser, so a usage error is reported before any guest boots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/cli.h"
#include "nt/clock.h"
#include "nt/cmd/kernels_opts.h"
#include "nt/cmd/trace_opts.h"
#include "nt/render/format.h"

enum {
	OPT_KERNEL = 256,
	OPT_MODULES,
	OPT_RUNS,
	OPT_FORMAT,
	OPT_ACCEL,
	OPT_MEMORY,
	OPT_GUEST_TIMEOUT,
	OPT_KERNEL_ARGS,
	OPT_BUSYBOX,
	OPT_VERSION,
	OPT_PASS, /* the trace's options follow, one code each */
};

/* The trace options that make sense in a guest: none that writes a file the guest would keep. */
static const char *const pass[][2] = {
	{ "--rounds", "1" },	 { "--header", "1" },	       { "--body", "1" },
	{ "--reply", "1" },	 { "--pause", "1" },	       { "--threshold", "1" },
	{ "--variant", "1" },	 { "--handler-ms", "1" },      { "--write-gap-ms", "1" },
	{ "--ipv6", "" },	 { "--pingpong-thresh", "1" }, { "--rtt", "1" },
	{ "--timeout", "1" },	 { "--expect", "1" },	       { "--capture", "1" },
	{ "--capture-at", "1" },
};

#define PASS(i, name)                                         \
	{                                                     \
		name, required_argument, NULL, OPT_PASS + (i) \
	}

static const struct option long_options[] = {
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "modules", required_argument, NULL, OPT_MODULES },
	{ "runs", required_argument, NULL, OPT_RUNS },
	NT_CMD_REPORT_LONG_OPTS(OPT_FORMAT),
	{ "accel", required_argument, NULL, OPT_ACCEL },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "guest-timeout", required_argument, NULL, OPT_GUEST_TIMEOUT },
	{ "kernel-args", required_argument, NULL, OPT_KERNEL_ARGS },
	{ "busybox", required_argument, NULL, OPT_BUSYBOX },
	NT_CMD_ACTION_LONG_OPTS(OPT_VERSION),
	PASS(0, "rounds"),
	PASS(1, "header"),
	PASS(2, "body"),
	PASS(3, "reply"),
	PASS(4, "pause"),
	PASS(5, "threshold"),
	PASS(6, "variant"),
	PASS(7, "handler-ms"),
	PASS(8, "write-gap-ms"),
	{ "ipv6", no_argument, NULL, OPT_PASS + 9 },
	PASS(10, "pingpong-thresh"),
	PASS(11, "rtt"),
	PASS(12, "timeout"),
	PASS(13, "expect"),
	PASS(14, "capture"),
	PASS(15, "capture-at"),
	{ 0 },
};

const struct option *nt_kernels_opts_table(void)
{
	return long_options;
}

void nt_kernels_opts_usage(FILE *out)
{
	char names[64];

	fprintf(out,
		"usage: nagle-trace kernels --kernel IMAGE[,IMAGE...] [options] [trace options]\n"
		"\n"
		"Boot each kernel under qemu (no network device, no disk, nothing of the host\n"
		"shared), run the trace there with the trace options given, and print one table:\n"
		"kernel x variant -> verdicts, stall times, and whether the model for that\n"
		"kernel predicted them. Needs %s and busybox-static; runs as any user.\n"
		"\n"
		"kernels:\n"
		"  --kernel LIST        comma-separated images, each a Debian kernel package\n"
		"                       (linux-image-*.deb, read, not installed), a directory\n"
		"                       holding an unpacked one (boot/vmlinuz-R, lib/modules/R),\n"
		"                       or a bzImage (its modules under --modules)\n"
		"  --modules DIR        a bzImage's modules: DIR/RELEASE/ (default /lib/modules)\n"
		"  --kernel-args TEXT   more kernel command line for every guest\n"
		"\n"
		"guests:\n"
		"  --accel A            auto|kvm|tcg (default auto: kvm when the CPU has vmx or\n"
		"                       svm and /dev/kvm opens, tcg otherwise)\n"
		"  --memory MB          each guest's memory (default 512, 128..16384)\n"
		"  --guest-timeout S    a guest taking longer is killed (default 300, 10..86400)\n"
		"  --busybox PATH       busybox-static (default /bin/busybox)\n"
		"  --runs FILE          several runs in one boot: one line of trace options each\n"
		"                       (words split at blanks, no quoting; # starts a comment)\n"
		"\n"
		"trace options passed on to each guest:\n"
		"  --rounds --header --body --reply --pause --threshold --variant --handler-ms\n"
		"  --write-gap-ms --ipv6 --pingpong-thresh --rtt --timeout --expect --capture\n"
		"  --capture-at (see nagle-trace --help)\n"
		"\n"
		"output:\n"
		"  --format F           %s (default text)\n"
		"  -o, --output FILE    write the report to FILE (complete or not at all)\n"
		"  -h, --help           this text\n"
		"  --version            versions\n"
		"\n"
		"exit status: 0 every run as expected, 1 an expectation failed (a round the\n"
		"model did not predict, or --expect), 2 usage error, 3 a guest could not run\n"
		"(no qemu, no veth, a panic, a timeout), 4 an image or the report could not be\n"
		"read or written\n",
		NT_VM_QEMU, nt_format_names(NT_FORMAT_KERNELS, names, sizeof(names)));
}

static int split_kernels(const char *arg, struct nt_kernels_opts *o, struct nt_err *err)
{
	char *save = NULL;

	if (strlen(arg) >= sizeof(o->kernel_list))
		return nt_err_set(err, 0, "--kernel: the list is too long");
	snprintf(o->kernel_list, sizeof(o->kernel_list), "%s", arg);
	o->n_kernels = 0;
	for (char *k = strtok_r(o->kernel_list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		if (o->n_kernels == NT_KERNELS_MAX)
			return nt_err_set(err, 0, "--kernel: more than %d kernels", NT_KERNELS_MAX);
		o->kernels[o->n_kernels++] = k;
	}
	if (!o->n_kernels)
		return nt_err_set(err, 0, "--kernel: no image in \"%s\"", arg);
	return 0;
}

/* A run's options, checked by the trace's own parser as `nagle-trace trace ARGS`. */
static int check_run(char **args, unsigned n, const char *where, struct nt_err *err)
{
	char *argv[NT_KERNELS_ARGS_MAX + 2];
	struct nt_trace_opts t;
	struct nt_err e = { "" };

	argv[0] = (char *)"trace";
	memcpy(argv + 1, args, sizeof(*args) * n);
	argv[n + 1] = NULL;
	if (nt_trace_opts_parse((int)n + 1, argv, &t, &e) < 0)
		return nt_err_set(err, 0, "%s%s", where, e.msg);
	return 0;
}

static int pass_on(struct nt_kernels_opts *o, unsigned *n, int c, const struct nt_cli *cli,
		   struct nt_err *err)
{
	const char *const *p = pass[c - OPT_PASS];

	if (*n + 2 > NT_KERNELS_ARGS_MAX)
		return nt_err_set(err, 0, "too many trace options");
	o->args[(*n)++] = (char *)p[0];
	if (p[1][0])
		o->args[(*n)++] = (char *)cli->arg;
	return 0;
}

/* One line of --runs FILE: its words, in place. */
static int runs_line(struct nt_kernels_opts *o, char *line, unsigned lineno, struct nt_err *err)
{
	char **argv = calloc(NT_KERNELS_ARGS_MAX, sizeof(*argv)), *save = NULL, where[300];
	unsigned n = 0;

	if (!argv)
		return nt_err_set(err, -ENOMEM, "out of memory");
	line[strcspn(line, "#")] = '\0';
	for (char *w = strtok_r(line, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
		if (n == NT_KERNELS_ARGS_MAX) {
			free(argv);
			return nt_err_set(err, 0, "--runs \"%s\" line %u: too many words",
					  o->runs_path, lineno);
		}
		argv[n++] = w;
	}
	if (!n) {
		free(argv);
		return 0;
	}
	snprintf(where, sizeof(where), "--runs \"%s\" line %u: ", o->runs_path, lineno);
	if (o->runs.n == NT_VM_RUNS_MAX) {
		free(argv);
		return nt_err_set(err, 0, "%smore than %d runs", where, NT_VM_RUNS_MAX);
	}
	o->runs.argv[o->runs.n] = argv;
	o->runs.argc[o->runs.n++] = n;
	return check_run(argv, n, where, err);
}

static int read_runs(struct nt_kernels_opts *o, struct nt_err *err)
{
	FILE *f = fopen(o->runs_path, "re");
	size_t len = 0;
	unsigned lineno = 0;
	char *save = NULL;
	int ret = 0;

	if (!f)
		return nt_err_set(err, -ENOENT, "--runs: cannot read \"%s\"", o->runs_path);
	if (getdelim(&o->lines, &len, '\0', f) < 0) {
		free(o->lines);
		o->lines = NULL;
	}
	fclose(f);
	if (!o->lines)
		return nt_err_set(err, 0, "--runs \"%s\": no run in it", o->runs_path);
	/* strtok_r() would merge empty lines and miscount: split by hand. */
	for (char *line = o->lines; line && ret == 0; line = save) {
		char *nl = strchr(line, '\n');

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		ret = runs_line(o, line, ++lineno, err);
	}
	if (ret == 0 && !o->runs.n)
		ret = nt_err_set(err, 0, "--runs \"%s\": no run in it", o->runs_path);
	return ret;
}

static int parse_guest(int c, const struct nt_cli *cli, struct nt_kernels_opts *o,
		       struct nt_err *err)
{
	uint64_t v = 0;
	int ret;

	switch (c) {
	case OPT_ACCEL:
		if (strcmp(cli->arg, "auto") == 0)
			o->boot.accel = NT_VM_ACCEL_AUTO;
		else if (strcmp(cli->arg, "kvm") == 0)
			o->boot.accel = NT_VM_ACCEL_KVM;
		else if (strcmp(cli->arg, "tcg") == 0)
			o->boot.accel = NT_VM_ACCEL_TCG;
		else
			return nt_err_set(err, 0, "--accel: unknown \"%s\" (auto|kvm|tcg)",
					  cli->arg);
		return 0;
	case OPT_MEMORY:
		ret = nt_cli_parse_uint(cli->name, cli->arg, 128, 16384, &v, err);
		o->boot.memory_mb = (unsigned)v;
		return ret;
	case OPT_GUEST_TIMEOUT:
		ret = nt_cli_parse_uint(cli->name, cli->arg, 10, 86400, &v, err);
		o->boot.timeout_ns = (int64_t)v * NT_NS_PER_SEC;
		return ret;
	case OPT_KERNEL_ARGS:
		o->boot.append = cli->arg;
		return 0;
	}
	return 1;
}

static int parse_one(int c, const struct nt_cli *cli, struct nt_kernels_opts *o, unsigned *n,
		     struct nt_err *err)
{
	char names[64];
	int ret = parse_guest(c, cli, o, err);

	if (ret <= 0)
		return ret;
	if (c >= OPT_PASS)
		return pass_on(o, n, c, cli, err);
	switch (c) {
	case OPT_KERNEL:
		return split_kernels(cli->arg, o, err);
	case OPT_MODULES:
		o->modules_dir = cli->arg;
		return 0;
	case OPT_BUSYBOX:
		o->busybox = cli->arg;
		return 0;
	case OPT_RUNS:
		o->runs_path = cli->arg;
		return 0;
	case OPT_FORMAT:
		if (!nt_format_find(cli->arg, NT_FORMAT_KERNELS))
			return nt_err_set(err, 0, "--format: unknown format \"%s\" (%s)", cli->arg,
					  nt_format_names(NT_FORMAT_KERNELS, names, sizeof(names)));
		o->out.format = cli->arg;
		return 0;
	case 'o':
		return nt_cli_parse_path("--output", cli->arg, &o->out.path, err);
	}
	return nt_cmd_parse_action(c, OPT_VERSION, cli->name, &o->action, err);
}

static int validate(struct nt_kernels_opts *o, unsigned n, struct nt_err *err)
{
	if (!o->n_kernels)
		return nt_err_set(err, 0,
				  "--kernel: which kernel? (a linux-image-*.deb, a "
				  "directory or a bzImage)");
	if (o->runs_path && n)
		return nt_err_set(err, 0,
				  "--runs and trace options: give the options in "
				  "the file, one run a line");
	if (o->runs_path)
		return read_runs(o, err);
	o->runs.argv[0] = o->args;
	o->runs.argc[0] = n;
	o->runs.n = 1;
	return check_run(o->args, n, "", err);
}

int nt_kernels_opts_parse(int argc, char **argv, struct nt_kernels_opts *o, struct nt_err *err)
{
	struct nt_cli cli;
	unsigned n = 0;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->busybox = "/bin/busybox";
	o->out.format = "text";
	o->boot.memory_mb = 512;
	o->boot.timeout_ns = 300 * NT_NS_PER_SEC;
	ret = nt_cli_start(&cli, argc, argv, "ho:", nt_kernels_opts_table(), false, err);
	if (ret < 0)
		return ret;
	while ((c = nt_cli_next(&cli, err)) != NT_CLI_END) {
		if (c == NT_CLI_REFUSED)
			return -EINVAL;
		ret = parse_one(c, &cli, o, &n, err);
		if (ret < 0)
			return ret;
	}
	if (nt_cli_rest(&cli) < argc)
		return nt_err_set(err, 0, "unexpected argument \"%s\"", argv[nt_cli_rest(&cli)]);
	if (o->action != NT_CMD_RUN)
		return 0;
	return validate(o, n, err);
}

void nt_kernels_opts_fini(struct nt_kernels_opts *o)
{
	if (o->runs_path)
		for (unsigned i = 0; i < o->runs.n; i++)
			free(o->runs.argv[i]);
	o->runs.n = 0;
	free(o->lines);
	o->lines = NULL;
}
