// SPDX-License-Identifier: MIT
/*
 * analyze.c - `nagle-trace analyze`: find Nagle/delayed-ACK stalls in
 * capture files (see nt/analyze.h, docs/analyze.md).
 *
 * One pipeline: pcap_file reader -> nt_decode_frame() -> flow table -> the
 * stall rule -> results -> a renderer. This file owns the command line and
 * the exit status; it prints its own errors (one line each) because it is a
 * command, and returns the status to main(), which exits.
 *
 * Files and filter: positional arguments are files while they are "-" or
 * name something that exists, or look like a capture path (contain '/' or
 * end in .pcap, .pcapng, .cap; those are files even when missing, so a typo
 * is "cannot open", exit 4, not a filter). The first other argument starts
 * the filter expression, which takes the rest, like tcpdump's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "nt/analyze.h"
#include "nt/analyze_pipeline.h"
#include "nt/cli.h"
#include "nt/clock.h"
#include "nt/exitcode.h"
#include "nt/output.h"
#include "nt/render/analysis.h"

/* A flow with no packet for this long (capture time) leaves the table. */
#define IDLE_TIMEOUT_NS	  (60 * NT_NS_PER_SEC)
#define MAX_FLOWS_DEFAULT 65536u
#define MAX_FLOWS_MAX	  (1u << 24)

struct analyze_opts {
	struct nt_analysis_params params;
	const char *format;
	const char *output_path;
	bool fail_on_stall;
	bool help;
	char **files;
	size_t n_files;
	char *filter;
};

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
	"the sender (estimated from the capture). See docs/analyze.md.\n"
	"\n"
	"options:\n"
	"  --threshold MS      smallest H -> ACK delay that counts (default 10)\n"
	"  --release-us US     release window after the ACK, at the sender (default 1000)\n"
	"  --max-flows N       flows tracked at once; least recent evicted (default 65536)\n"
	"  --format FMT        text, json, markdown, svg (the worst flow's first stall)\n"
	"                      or html (default text)\n"
	"  -o, --output FILE   write the report to FILE (complete or absent)\n"
	"  --fail-on-stall     exit 1 when any stall was found\n"
	"  -h, --help          this text\n"
	"\n"
	"exit status: 0 read completely, 1 stalls found with --fail-on-stall,\n"
	"2 usage, 4 a file missing, not a capture, or damaged (the report still\n"
	"covers everything read before the damage)\n";

enum {
	OPT_THRESHOLD = 256,
	OPT_RELEASE,
	OPT_MAX_FLOWS,
	OPT_FORMAT,
	OPT_FAIL_ON_STALL,
};

static const struct option long_opts[] = {
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "release-us", required_argument, NULL, OPT_RELEASE },
	{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "fail-on-stall", no_argument, NULL, OPT_FAIL_ON_STALL },
	{ "help", no_argument, NULL, 'h' },
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

static int join_filter(struct analyze_opts *o, char **words, size_t n, struct nt_err *err)
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

static int parse(int argc, char **argv, struct analyze_opts *o, struct nt_err *err)
{
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	size_t n_words = 0;
	bool stdin_seen = false;
	uint64_t v = 0;
	int c, ret = 0;

	o->files = calloc((size_t)argc + 1, sizeof(*o->files));
	if (!words || !o->files) {
		free(words);
		return nt_err_set(err, -ENOMEM, "command line");
	}
	opterr = 0;
	optind = 0;
	/* "-": positional arguments arrive in order (c == 1), so files and filter stay apart. */
	while ((c = getopt_long(argc, argv, "-:ho:", long_opts, NULL)) != -1 && !ret) {
		switch (c) {
		case 1:
			if (!n_words && is_file_arg(optarg)) {
				if (strcmp(optarg, "-") == 0 && stdin_seen)
					ret = nt_err_set(err, 0,
							 "standard input ('-') given twice");
				stdin_seen |= strcmp(optarg, "-") == 0;
				o->files[o->n_files++] = optarg;
			} else {
				words[n_words++] = optarg;
			}
			break;
		case OPT_THRESHOLD:
			ret = nt_cli_parse_uint("--threshold", optarg, 0, NT_CLI_MS_MAX, &v, err);
			if (ret == 0)
				o->params.stall.threshold_ns = (int64_t)v * NT_NS_PER_MS;
			break;
		case OPT_RELEASE:
			ret = nt_cli_parse_uint("--release-us", optarg, 0, 60000000, &v, err);
			if (ret == 0)
				o->params.stall.release_ns = (int64_t)v * 1000;
			break;
		case OPT_MAX_FLOWS:
			ret = nt_cli_parse_uint("--max-flows", optarg, 1, MAX_FLOWS_MAX, &v, err);
			if (ret == 0)
				o->params.max_flows = (uint32_t)v;
			break;
		case OPT_FORMAT:
			o->format = optarg;
			break;
		case 'o':
			o->output_path = optarg;
			break;
		case OPT_FAIL_ON_STALL:
			o->fail_on_stall = true;
			break;
		case 'h':
			o->help = true;
			break;
		case ':':
			ret = nt_err_set(err, 0, "\"%s\" needs a value", argv[optind - 1]);
			break;
		default:
			if (optopt)
				ret = nt_err_set(err, 0, "unknown option \"-%c\"", optopt);
			else
				ret = nt_err_set(err, 0, "unknown option \"%s\"", argv[optind - 1]);
			break;
		}
	}
	if (!ret && o->help) {
		free(words);
		return 0;
	}
	if (!ret && !nt_analysis_format_find(o->format))
		ret = nt_err_set(err, 0, "--format: \"%s\" is not one of %s", o->format,
				 nt_analysis_format_names());
	if (!ret && o->n_files == 0)
		ret = nt_err_set(err, 0,
				 n_words ? "no capture file: \"%s\" is neither a file nor '-'"
					 : "no capture file given%s",
				 n_words ? words[0] : "");
	if (!ret && n_words)
		ret = join_filter(o, words, n_words, err);
	free(words);
	return ret;
}

int nt_analyze_stream(struct nt_analysis *an, struct nt_pcap_file *f, const char *filter,
		      struct nt_err *err)
{
	struct nt_err local = { "" };
	struct nt_frame fr;
	int ret;

	nt_analysis_set_linktype(an, nt_pcap_file_linktype(f));
	if (filter && (ret = nt_pcap_file_set_filter(f, filter, &local)) < 0) {
		nt_analysis_file_end(an, local.msg);
		nt_err_set(err, 0, "%s", local.msg);
		return ret;
	}
	while ((ret = nt_pcap_file_next(f, &fr, &local)) == 1)
		nt_analysis_frame(an, fr.t_ns, fr.data, fr.caplen);
	nt_analysis_file_end(an, ret < 0 ? local.msg : NULL);
	if (ret < 0)
		nt_err_set(err, 0, "%s", local.msg);
	return ret;
}

static int usage_error(const struct nt_err *err)
{
	fprintf(stderr, "nagle-trace: %s\ntry 'nagle-trace analyze --help'\n", err->msg);
	return NT_EXIT_USAGE;
}

/* Before any file is read: -o is no input (exit 2) and can be written (exit 4). */
static int check_files(const struct analyze_opts *o)
{
	struct nt_err err = { "" };
	char pb[NT_ERR_PATH_MAX];

	for (size_t i = 0; i < o->n_files; i++) {
		if (nt_output_is_input(o->output_path, o->files[i])) {
			nt_err_set(&err, 0, "--output \"%s\" is an input file",
				   o->output_path ? nt_err_path(o->output_path, pb, sizeof(pb))
						  : "-");
			return usage_error(&err);
		}
	}
	if (nt_output_check(o->output_path, &err) < 0) {
		fprintf(stderr, "nagle-trace: %s\n", err.msg);
		return NT_EXIT_FILE;
	}
	return NT_EXIT_OK;
}

static int render(const struct analyze_opts *o, const struct nt_analysis *an)
{
	const struct nt_analysis_format *fmt = nt_analysis_format_find(o->format);
	struct nt_analysis_view view = { .filter = o->filter };
	struct nt_err err = { "" };
	struct nt_output out;
	int ret = nt_output_open(&out, o->output_path, NT_OUTPUT_DOCUMENT, &err);

	if (ret < 0)
		goto fail;
	ret = fmt->render(out.fp, an, &view);
	if (ret < 0) {
		nt_output_abort(&out);
		nt_err_set(&err, ret, "write \"%s\"",
			   o->output_path ? o->output_path : "standard output");
		goto fail;
	}
	ret = nt_output_commit(&out, &err);
	if (ret == -EPIPE)
		return NT_EXIT_OK;
	if (ret < 0)
		goto fail;
	return NT_EXIT_OK;
fail:
	fprintf(stderr, "nagle-trace: %s\n", err.msg);
	return NT_EXIT_FILE;
}

static int run(struct analyze_opts *o)
{
	struct nt_analysis an;
	bool file_error = false, filter_error = false;
	int code;

	if (o->filter) {
		struct nt_err err = { "" };

		if (nt_pcap_file_check_filter(o->filter, &err) < 0)
			return usage_error(&err);
	}
	if (nt_analysis_init(&an, &o->params) < 0) {
		fprintf(stderr, "nagle-trace: analyze: out of memory\n");
		return NT_EXIT_ENVIRONMENT;
	}
	for (size_t i = 0; i < o->n_files; i++) {
		struct nt_err err = { "" };
		struct nt_pcap_file *f;
		int ret;

		if (nt_analysis_file_begin(&an, o->files[i]) < 0) {
			an.oom = true;
			break;
		}
		ret = nt_pcap_file_open(o->files[i], &f, &err);
		if (ret < 0) {
			nt_analysis_file_end(&an, err.msg);
			fprintf(stderr, "nagle-trace: %s\n", err.msg);
			file_error = true;
			continue;
		}
		if (!nt_decode_linktype_supported(nt_pcap_file_linktype(f)))
			fprintf(stderr,
				"nagle-trace: warning: \"%s\": link type %d is not supported\n",
				o->files[i], nt_pcap_file_linktype(f));
		ret = nt_analyze_stream(&an, f, o->filter, &err);
		nt_pcap_file_close(f);
		if (ret == -EINVAL) {
			fprintf(stderr, "nagle-trace: %s\n", err.msg);
			filter_error = true;
		} else if (ret < 0) {
			fprintf(stderr, "nagle-trace: warning: %s\n", err.msg);
			file_error = true;
		}
	}
	nt_analysis_finish(&an);

	code = render(o, &an);
	if (code == NT_EXIT_OK) {
		if (file_error)
			code = NT_EXIT_FILE;
		else if (filter_error)
			code = NT_EXIT_USAGE;
		else if (an.oom)
			code = NT_EXIT_ENVIRONMENT;
		else if (o->fail_on_stall && an.sum.stalls)
			code = NT_EXIT_EXPECTATION;
	}
	nt_analysis_fini(&an);
	return code;
}

int nt_analyze_main(int argc, char **argv)
{
	struct analyze_opts o = {
		.params = {
			.stall = { .threshold_ns = 10 * NT_NS_PER_MS, .release_ns = (int64_t)1000 * 1000 },
			.max_flows = MAX_FLOWS_DEFAULT,
			.idle_ns = IDLE_TIMEOUT_NS,
		},
		.format = "text",
	};
	struct nt_err err = { "" };
	int code;

	if (parse(argc, argv, &o, &err) < 0) {
		code = usage_error(&err);
	} else if (o.help) {
		fputs(usage_text, stdout);
		code = NT_EXIT_OK;
		if (nt_output_close_stdout(&err) < 0) {
			fprintf(stderr, "nagle-trace: %s\n", err.msg);
			code = NT_EXIT_FILE;
		}
	} else {
		code = check_files(&o);
		if (code == NT_EXIT_OK)
			code = run(&o);
	}
	free(o.files);
	free(o.filter);
	return code;
}
