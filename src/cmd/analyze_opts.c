// SPDX-License-Identifier: MIT
/*
 * analyze_opts.c - the analyze command's options (see nt/cmd/analyze_opts.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "nt/cli.h"
#include "nt/clock.h"
#include "nt/cmd/analyze_opts.h"
#include "nt/model/verdict.h"
#include "nt/render/format.h"

static const char usage_text[] =
	"usage: nagle-trace analyze [options] FILE... [filter expression]\n"
	"\n"
	"Find Nagle/delayed-ACK stalls in pcap or pcapng captures ('-' reads standard\n"
	"input, so 'tcpdump -w - | nagle-trace analyze -' works). Arguments are files\n"
	"while they are '-', exist, or look like capture paths (contain '/', end in\n"
	".pcap, .pcapng or .cap); the first other argument starts a pcap-filter(7)\n"
	"expression that takes the rest of the line: analyze cap.pcap tcp port 5432\n"
	"\n"
	"A stall: a sub-MSS data segment H, nothing more from its sender, a pure ACK\n"
	"of exactly H at least --threshold later, and the sender's next data within\n"
	"--release-us of that ACK plus the round trip between the capture point and\n"
	"the sender (estimated from the capture). See analyze.md in the documentation\n"
	"(share/doc/nagle-trace, or docs/ in the source).\n"
	"\n"
	"options:\n"
	"  -r FILE             read FILE (as tcpdump -r; repeatable, beside positional files)\n"
	"  -c N                stop after N packets, over all files\n"
	"  -n                  accepted for tcpdump habits: addresses are always "
	"numeric\n" NT_STALL_OPTS_HELP
	"  --jobs N            threads at work (default: one per core): files read at\n"
	"                      once, or one file decoded ahead, then the flows of the\n"
	"                      text, json, jsonl, markdown and html reports rendered at\n"
	"                      once; the report is the same (--jobs 1: one thread; -c\n"
	"                      reads the files one at a time)\n";

static const char usage_tail[] =
	"  -o, --output FILE   write the report to FILE (complete or absent)\n"
	"  --annotate FILE     also write the inputs to FILE as pcapng, each stall's held\n"
	"                      segment, late ACK and released segment commented (Wireshark:\n"
	"                      frame.comment), the summary as the file's comment\n"
	"  --fail-on-stall     exit 1 when any stall was found\n"
	"  --brief             the files and the summary alone (text)\n"
	"  -h, --help          this text\n"
	"  --version           versions of nagle-trace and its libraries\n"
	"\n"
	"exit status: 0 read completely, 1 stalls found with --fail-on-stall,\n"
	"2 usage, 3 out of memory (the report covers what was analysed), 4 a file\n"
	"missing, not a capture, or damaged (the report still covers everything\n"
	"read before the damage), or the report could not be written\n";

void nt_analyze_opts_usage(FILE *out)
{
	fputs(usage_text, out);
	nt_cmd_usage_format(out, NT_FORMAT_ANALYSIS, "                      (default text)\n");
	fputs(usage_tail, out);
}

enum {
	OPT_FORMAT = 256,
	OPT_FAIL_ON_STALL,
	OPT_VERSION,
	OPT_BRIEF,
	OPT_ANNOTATE,
	OPT_JOBS,
};

static const struct option long_opts[] = {
	NT_STALL_LONG_OPTS,
	NT_CMD_REPORT_LONG_OPTS(OPT_FORMAT),
	{ "fail-on-stall", no_argument, NULL, OPT_FAIL_ON_STALL },
	{ "annotate", required_argument, NULL, OPT_ANNOTATE },
	NT_CMD_ACTION_LONG_OPTS(OPT_VERSION),
	{ "brief", no_argument, NULL, OPT_BRIEF },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ NULL, 0, NULL, 0 },
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static bool is_file_arg(const char *a)
{
	struct stat st;

	if (strcmp(a, "-") == 0 || stat(a, &st) == 0)
		return true;
	return strchr(a, '/') || ends_with(a, ".pcap") || ends_with(a, ".pcapng") ||
	       ends_with(a, ".cap");
}

static int join_filter(struct nt_analyze_opts *o, char **words, size_t n, struct nt_err *err)
{
	size_t len = 1;

	for (size_t i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	o->filter = calloc(1, len);
	if (!o->filter)
		return nt_err_set(err, -ENOMEM, "filter expression");
	for (size_t i = 0, at = 0; i < n; i++) {
		size_t w = strlen(words[i]);

		if (i)
			o->filter[at++] = ' ';
		memcpy(o->filter + at, words[i], w + 1);
		at += w;
	}
	return 0;
}

static int add_file(struct nt_analyze_opts *o, char *a, struct nt_err *err)
{
	if (!*a)
		return nt_err_set(err, 0, "an empty file name");
	if (strcmp(a, "-") == 0)
		for (size_t i = 0; i < o->n_files; i++)
			if (o->files[i] && strcmp(o->files[i], "-") == 0)
				return nt_err_set(err, 0, "standard input ('-') given twice");
	o->files[o->n_files++] = a;
	return 0;
}

static int add_positional(struct nt_analyze_opts *o, char *a, char **words, size_t *n_words,
			  struct nt_err *err)
{
	if (*n_words || !is_file_arg(a)) {
		words[(*n_words)++] = a;
		return 0;
	}
	return add_file(o, a, err);
}

static int parse_one(int c, const struct nt_cli *cli, struct nt_analyze_opts *o, struct nt_err *err)
{
	int ret = nt_stall_opts_parse(c, cli, &o->params, err);
	uint64_t v = 0;

	if (ret <= 0)
		return ret;
	switch (c) {
	case OPT_JOBS:
		ret = nt_cli_parse_uint(cli->name, cli->arg, 1, NT_ANALYZE_JOBS_MAX, &v, err);
		o->jobs = (unsigned)v;
		return ret;
	case OPT_FORMAT:
		o->out.format = cli->arg;
		return 0;
	case 'o':
		return nt_cli_parse_path("--output", cli->arg, &o->out.path, err);
	case 'r':
		return add_file(o, (char *)cli->arg, err);
	case 'c':
		return nt_cli_parse_uint(cli->name, cli->arg, 1, UINT64_MAX, &o->max_packets, err);
	case 'n':
		return 0;
	case OPT_FAIL_ON_STALL:
		o->fail_on_stall = true;
		return 0;
	case OPT_BRIEF:
		o->out.brief = true;
		return 0;
	case OPT_ANNOTATE:
		return nt_cli_parse_path("--annotate", cli->arg, &o->annotate, err);
	}
	return nt_cmd_parse_action(c, OPT_VERSION, cli->name, &o->action, err);
}

/* Every rule that needs the whole command line. */
static int validate(struct nt_analyze_opts *o, char **words, size_t n_words, struct nt_err *err)
{
	if (nt_cmd_check_format(o->out.format, NT_FORMAT_ANALYSIS, err) < 0)
		return -EINVAL;
	if (o->n_files == 0 && n_words)
		return nt_err_set(err, 0, "no capture file: \"%s\" is neither a file nor '-'",
				  words[0]);
	if (o->n_files == 0)
		return nt_err_set(err, 0, "no capture file given");
	/* Which files are the same file is the command's to check (cmd/analyze.c). */
	return n_words ? join_filter(o, words, n_words, err) : 0;
}

int nt_analyze_opts_parse(int argc, char **argv, struct nt_analyze_opts *o, struct nt_err *err)
{
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	size_t n_words = 0;
	struct nt_cli cli;
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	nt_stall_opts_defaults(&o->params);
	o->out.format = "text";
	o->files = calloc((size_t)argc + 1, sizeof(*o->files));
	if (!words || !o->files) {
		free(words);
		return nt_err_set(err, -ENOMEM, "command line");
	}
	/* Positionals arrive in order, so files and the filter stay apart. */
	ret = nt_cli_start(&cli, argc, argv, "ho:r:c:n", long_opts, true, err);
	while (!ret && (c = nt_cli_next(&cli, err)) != NT_CLI_END) {
		if (c == NT_CLI_REFUSED)
			ret = -EINVAL;
		else if (c == NT_CLI_POSITIONAL)
			ret = add_positional(o, (char *)cli.arg, words, &n_words, err);
		else
			ret = parse_one(c, &cli, o, err);
	}
	if (!ret && o->action == NT_CMD_RUN)
		ret = validate(o, words, n_words, err);
	free(words);
	return ret == -ENOMEM ? ret : ret ? -EINVAL : 0;
}

void nt_analyze_opts_fini(struct nt_analyze_opts *o)
{
	free(o->files);
	free(o->filter);
	o->files = NULL;
	o->filter = NULL;
}

const struct option *nt_analyze_opts_table(void)
{
	return long_opts;
}
