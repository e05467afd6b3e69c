// SPDX-License-Identifier: MIT
/*
 * main.c - entry point: parse, run, render, and pick the exit status.
 * The only place that prints errors and calls exit().
 */
#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/analyze.h"
#include "nt/capture/capture.h"
#include "nt/cli.h"
#include "nt/exitcode.h"
#include "nt/output.h"
#include "nt/render/render.h"
#include "nt/trace.h"
#include "nt/version.h"

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	/* No SA_RESTART: ppoll() returns EINTR and the loop sees the flag at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* `nagle-trace | head` ends quietly: writes fail with EPIPE instead of killing us. */
	signal(SIGPIPE, SIG_IGN);
}

static int fail(int code, const struct nt_err *err)
{
	fprintf(stderr, "nagle-trace: %s\n", err->msg);
	return code;
}

static bool want_color(const struct nt_options *opt)
{
	if (opt->color == NT_COLOR_ALWAYS)
		return true;
	if (opt->color == NT_COLOR_NEVER || opt->output_path)
		return false;
	const char *no_color = getenv("NO_COLOR");
	return !(no_color && *no_color) && isatty(STDOUT_FILENO);
}

static int render(const struct nt_options *opt, const struct nt_run *run, struct nt_err *err)
{
	const struct nt_format *fmt = nt_format_find(opt->format);
	struct nt_render_opts ro = { .color = want_color(opt), .summary_only = opt->summary_only };
	struct nt_output out;
	int ret = nt_output_open(&out, opt->output_path, err);

	if (ret < 0)
		return ret;
	ret = fmt->render(out.fp, run, 1, &ro);
	if (ret < 0) {
		nt_output_abort(&out);
		return nt_err_set(err, ret, "write \"%s\"",
				  opt->output_path ? opt->output_path : "standard output");
	}
	return nt_output_commit(&out, err);
}

static int run_trace(struct nt_options *opt)
{
	struct nt_err err = { "" };
	struct nt_run run;
	int ret;

	memset(&run, 0, sizeof(run));
	opt->trace.stop = &stop_signal;
	ret = nt_trace_run(&opt->trace, &run, &err);
	if (ret == -EPERM) {
		nt_run_fini(&run);
		fprintf(stderr,
			"nagle-trace: %s: no privileges to create network namespaces; "
			"run it as 'unshare -Urn nagle-trace'\n",
			err.msg);
		return NT_EXIT_ENVIRONMENT;
	}
	if (ret < 0) {
		nt_run_fini(&run);
		return fail(NT_EXIT_ENVIRONMENT, &err);
	}

	ret = render(opt, &run, &err);
	if (ret == -EPIPE) {
		nt_run_fini(&run);
		return NT_EXIT_OK;
	}
	if (ret < 0) {
		nt_run_fini(&run);
		return fail(NT_EXIT_FILE, &err);
	}

	int code = NT_EXIT_OK;
	if (run.interrupted)
		code = stop_signal == SIGTERM ? NT_EXIT_SIGTERM : NT_EXIT_SIGINT;
	else if (!run.expectation_met) {
		fprintf(stderr, "nagle-trace: expectation \"%s\" not met: %s\n",
			nt_expect_name(run.cfg.expect), run.expectation_reason);
		code = NT_EXIT_EXPECTATION;
	}
	nt_run_fini(&run);
	return code;
}

int main(int argc, char **argv)
{
	struct nt_err err = { "" };
	struct nt_options opt;

	if (argc > 1 && strcmp(argv[1], "analyze") == 0) {
		signal(SIGPIPE, SIG_IGN);
		return nt_analyze_main(argc - 1, argv + 1);
	}
	if (nt_cli_parse(argc, argv, &opt, &err) < 0) {
		fprintf(stderr, "nagle-trace: %s\ntry 'nagle-trace --help'\n", err.msg);
		return NT_EXIT_USAGE;
	}
	if (opt.action == NT_CLI_HELP) {
		fputs(nt_cli_usage(), stdout);
		return fflush(stdout) == EOF ? NT_EXIT_FILE : NT_EXIT_OK;
	}
	if (opt.action == NT_CLI_VERSION) {
		printf("nagle-trace %s\n%s\nlibmnl %s\njson-c %s\n", NT_VERSION,
		       nt_capture_library_version(), NT_LIBMNL_VERSION, json_c_version());
		return fflush(stdout) == EOF ? NT_EXIT_FILE : NT_EXIT_OK;
	}
	install_signals();
	return run_trace(&opt);
}
