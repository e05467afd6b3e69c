// SPDX-License-Identifier: MIT
/*
 * analyze.c - `nagle-trace analyze`: find Nagle/delayed-ACK stalls in
 * capture files (docs/analyze.md). Each file through the analysis
 * (src/capture/feed.c), then one report in the chosen format, and the exit
 * status from what was read.
 */
#include <errno.h>
#include <stdio.h>

#include "nt/capture/feed.h"
#include "nt/cmd/annotate.h"
#include "nt/cmd/analyze_opts.h"
#include "nt/cmd/cmd.h"
#include "nt/exitcode.h"
#include "nt/output.h"
#include "nt/render/format.h"

static int usage_error(const struct nt_err *err)
{
	fprintf(stderr, "nagle-trace: %s\ntry 'nagle-trace analyze --help'\n", err->msg);
	return NT_EXIT_USAGE;
}

static int render(const struct nt_analyze_opts *o, const struct nt_analysis *an)
{
	const struct nt_format *fmt = nt_format_find(o->out.format, NT_FORMAT_ANALYSIS);
	struct nt_analysis_view view = { .filter = o->filter, .brief = o->out.brief };
	struct nt_err err = { "" };
	struct nt_output out;
	int ret = nt_output_open(&out, o->out.path, NT_OUTPUT_DOCUMENT, &err);

	if (ret < 0)
		goto fail;
	ret = fmt->analysis(out.fp, an, &view);
	if (ret < 0) {
		char pb[NT_ERR_PATH_MAX];

		nt_output_abort(&out);
		nt_err_set(&err, ret, "write \"%s\"",
			   o->out.path ? nt_err_path(o->out.path, pb, sizeof(pb))
				       : "standard output");
		goto fail;
	}
	ret = nt_output_commit(&out, &err);
	if (ret < 0 && ret != -EPIPE)
		goto fail;
	return NT_EXIT_OK;
fail:
	fprintf(stderr, "nagle-trace: %s\n", err.msg);
	return NT_EXIT_FILE;
}

/*
 * What went wrong while reading, in the order the exit status weighs it: a
 * file that could not be read, a filter that did not compile for a file's
 * link type, memory.
 */
struct read_trouble {
	bool file;
	bool filter;
};

/* Reads one file into @an, at most @max_frames (0: all); returns how many were read. */
static uint64_t read_one(struct nt_analysis *an, struct nt_annotate *annotate, const char *path,
			 const char *filter, uint64_t max_frames, struct read_trouble *trouble)
{
	uint64_t read = 0;
	struct nt_err err = { "" };
	struct nt_pcap_file *f;

	if (nt_analysis_file_begin(an, path) < 0) {
		an->oom = true;
		return 0;
	}
	if (nt_annotate_open_input(annotate, path, &f, &err) < 0) {
		nt_analysis_file_end(an, err.msg);
		fprintf(stderr, "nagle-trace: %s\n", err.msg);
		trouble->file = true;
		return 0;
	}
	if (!nt_decode_linktype_supported(nt_pcap_file_linktype(f))) {
		char name[64];

		fprintf(stderr, "nagle-trace: warning: \"%s\": link type %s is not supported\n",
			path,
			nt_capture_linktype_name(nt_pcap_file_linktype(f), name, sizeof(name)));
	}
	switch (nt_feed_file(an, f, filter, max_frames, &read, &err)) {
	case NT_FEED_COMPLETE:
		break;
	case NT_FEED_BAD_FILTER:
		fprintf(stderr, "nagle-trace: %s\n", err.msg);
		trouble->filter = true;
		break;
	case NT_FEED_DAMAGED:
		fprintf(stderr, "nagle-trace: warning: %s\n", err.msg);
		trouble->file = true;
		break;
	}
	nt_pcap_file_close(f);
	return read;
}

/* Before any file is read: -o is no input (exit 2) and can be written (exit 4). */
static int check_files(const struct nt_analyze_opts *o)
{
	struct nt_err err = { "" };
	char pb[NT_ERR_PATH_MAX];

	for (size_t i = 0; i < o->n_files; i++) {
		const char *in_name = NULL;

		if (nt_output_is_input(o->out.path, o->files[i]))
			in_name = "--output";
		else if (o->annotate && nt_output_is_input(o->annotate, o->files[i]))
			in_name = "--annotate";
		if (in_name) {
			const char *p = in_name[2] == 'o' ? o->out.path : o->annotate;

			nt_err_set(&err, 0, "%s \"%s\" is an input file", in_name,
				   p ? nt_err_path(p, pb, sizeof(pb)) : "-");
			return usage_error(&err);
		}
	}
	if (o->annotate && nt_output_same_file(o->out.path, o->annotate)) {
		nt_err_set(&err, 0, "--output and --annotate both name \"%s\"",
			   nt_err_path(o->annotate, pb, sizeof(pb)));
		return usage_error(&err);
	}
	if (nt_output_check(o->out.path, &err) < 0 ||
	    (o->annotate && nt_output_check(o->annotate, &err) < 0)) {
		fprintf(stderr, "nagle-trace: %s\n", err.msg);
		return NT_EXIT_FILE;
	}
	return NT_EXIT_OK;
}

static int run(const struct nt_analyze_opts *o)
{
	struct read_trouble trouble = { false, false };
	bool limited = o->max_packets != 0; /* -c */
	uint64_t left = o->max_packets;
	struct nt_annotate annotate;
	struct nt_analysis an;
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
	nt_annotate_init(&annotate, o->annotate, &an);
	/* -c counts over all files, as one stream: once reached, the rest stay unread. */
	for (size_t i = 0; i < o->n_files && !an.oom && (!limited || left); i++)
		left -= read_one(&an, &annotate, o->files[i], o->filter, limited ? left : 0,
				 &trouble);
	nt_analysis_finish(&an);

	code = render(o, &an);
	if (code == NT_EXIT_OK && o->annotate) {
		struct nt_err err = { "" };

		if (nt_annotate_write(&annotate, &an, o->filter, &err) < 0) {
			fprintf(stderr, "nagle-trace: %s\n", err.msg);
			code = NT_EXIT_FILE;
		}
	}
	if (code == NT_EXIT_OK) {
		if (trouble.file)
			code = NT_EXIT_FILE;
		else if (trouble.filter)
			code = NT_EXIT_USAGE;
		else if (an.oom)
			code = NT_EXIT_ENVIRONMENT;
		else if (o->fail_on_stall && an.sum.stalls)
			code = NT_EXIT_EXPECTATION;
	}
	if (an.oom)
		fprintf(stderr, "nagle-trace: analyze: out of memory: the report is incomplete\n");
	nt_annotate_fini(&annotate);
	nt_analysis_fini(&an);
	return code;
}

int nt_cmd_analyze(int argc, char **argv)
{
	struct nt_analyze_opts o;
	struct nt_err err = { "" };
	int code;

	signal(SIGPIPE, SIG_IGN);
	if (nt_analyze_opts_parse(argc, argv, &o, &err) < 0) {
		code = usage_error(&err);
	} else if (o.action == NT_CMD_HELP) {
		code = nt_cmd_print_info(nt_analyze_opts_usage);
	} else if (o.action == NT_CMD_VERSION) {
		code = nt_cmd_print_info(nt_cmd_version);
	} else {
		code = check_files(&o);
		if (code == NT_EXIT_OK)
			code = run(&o);
	}
	nt_analyze_opts_fini(&o);
	return code;
}
