// SPDX-License-Identifier: MIT
/*
 * analyze.c - `nagle-trace analyze`: find Nagle/delayed-ACK stalls in
 * capture files (docs/analyze.md). The files through the analysis
 * (src/cmd/analyze_read.c: several at once, one per core), then one report in
 * the chosen format, and the exit status from what was read.
 */
#include <errno.h>
#include <stdio.h>

#include "nt/cmd/analyze_opts.h"
#include "nt/cmd/analyze_read.h"
#include "nt/cmd/annotate.h"
#include "nt/cmd/cmd.h"
#include "nt/exitcode.h"
#include "nt/output.h"
#include "nt/render/format.h"
#include "nt/render/labels.h"

static int render(const struct nt_analyze_opts *o, const struct nt_analysis *an)
{
	const struct nt_format *fmt = nt_format_find(o->out.format, NT_FORMAT_ANALYSIS);
	struct nt_analysis_view view = { .filter = o->filter,
					 .brief = o->out.brief,
					 .workers = nt_analyze_threads(o) };
	struct nt_err err = { "" };
	struct nt_output out;
	/*
	 * JSON Lines are records, as the live run's and watch's are: on
	 * standard output they go out as written, the summary record last
	 * saying the report is complete (docs/json-schema.md). Spooled, a
	 * pipe's reader got nothing until the end, and every capture of a
	 * fleet (examples/fleet-dask.py) wrote its whole report to a temporary
	 * file first: 186 MiB for 149 MB read at 10,000 flows, room /tmp must
	 * have, and 4-5 % more CPU on a quiet machine, 50 % more on one busy
	 * writing (docs/performance.md). -o FILE stays complete or absent.
	 */
	int ret = nt_output_open(&out, o->out.path,
				 fmt->records ? NT_OUTPUT_STREAM : NT_OUTPUT_DOCUMENT, &err);

	if (ret < 0)
		goto fail;
	ret = fmt->analysis(out.fp, an, &view);
	/* A stream's reader may leave before the end (`| head`): no error, as at commit. */
	ret = ret < 0 ? nt_output_fail(&out, ret, &err) : nt_output_commit(&out, &err);
	if (ret < 0 && !nt_output_reader_gone(&out, ret))
		goto fail;
	return NT_EXIT_OK;
fail:
	return nt_cmd_fail(NT_EXIT_FILE, &err);
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
			return nt_cmd_usage_error("analyze", err.msg);
		}
	}
	if (o->annotate && nt_output_same_file(o->out.path, o->annotate)) {
		nt_err_set(&err, 0, "--output and --annotate both name \"%s\"",
			   nt_err_path(o->annotate, pb, sizeof(pb)));
		return nt_cmd_usage_error("analyze", err.msg);
	}
	if (nt_output_check(o->out.path, &err) < 0 ||
	    (o->annotate && nt_output_check(o->annotate, &err) < 0))
		return nt_cmd_fail(NT_EXIT_FILE, &err);
	return NT_EXIT_OK;
}

static int run(const struct nt_analyze_opts *o)
{
	const struct nt_format *fmt = nt_format_find(o->out.format, NT_FORMAT_ANALYSIS);
	struct nt_analysis_params params = o->params;
	struct nt_analyze_trouble trouble;
	struct nt_annotate annotate;
	struct nt_analysis an;
	int code;

	if (o->filter) {
		struct nt_err err = { "" };

		if (nt_pcap_file_check_filter(o->filter, &err) < 0)
			return nt_cmd_usage_error("analyze", err.msg);
	}
	/*
	 * Every stall kept only for a report that lists them: some 20 bytes a
	 * stall (nt/model/stall_recs.h).
	 */
	params.keep_stalls = fmt->lists_stalls;
	/* Only the reports it shows outlive their flows: memory bounded by the table's. */
	params.keep = o->out.brief && fmt->brief_totals ? NT_KEEP_NONE : fmt->keeps;
	if (nt_analysis_init(&an, &params) < 0) {
		fprintf(stderr, "nagle-trace: analyze: out of memory\n");
		return NT_EXIT_ENVIRONMENT;
	}
	nt_annotate_init(&annotate, o->annotate, &an);
	nt_analyze_read(o, &annotate, &an, &trouble);
	nt_analysis_finish(&an);

	code = render(o, &an);
	if (code == NT_EXIT_OK && o->annotate) {
		struct nt_err err = { "" };

		if (nt_annotate_write(&annotate, &an, o->filter, &err) < 0)
			code = nt_cmd_fail(NT_EXIT_FILE, &err);
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
	if (an.sum.evicted_full) {
		char full[160];

		fprintf(stderr, "nagle-trace: analyze: warning: %s; the report is incomplete\n",
			nt_label_table_full(&an, full, sizeof(full)));
	}
	nt_annotate_fini(&annotate);
	nt_analysis_fini(&an);
	return code;
}

int nt_cmd_analyze(int argc, char **argv)
{
	struct nt_analyze_opts o;
	struct nt_err err = { "" };
	int code;

	nt_cmd_signals_install_fatal();
	if (nt_analyze_opts_parse(argc, argv, &o, &err) < 0) {
		code = nt_cmd_usage_error("analyze", err.msg);
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
