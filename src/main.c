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

static int render(const struct nt_options *opt, const struct nt_run *runs, unsigned n_runs,
		  struct nt_err *err)
{
	const struct nt_format *fmt = nt_format_find(opt->format);
	struct nt_render_opts ro = { .color = want_color(opt), .summary_only = opt->summary_only };
	struct nt_output out;
	int ret = nt_output_open(&out, opt->output_path, err);

	if (ret < 0)
		return ret;
	ret = fmt->render(out.fp, runs, n_runs, &ro);
	if (ret < 0) {
		nt_output_abort(&out);
		return nt_err_set(err, ret, "write \"%s\"",
				  opt->output_path ? opt->output_path : "standard output");
	}
	return nt_output_commit(&out, err);
}

static void free_runs(struct nt_run *runs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		nt_run_fini(&runs[i]);
	free(runs);
}

static void progress(const struct nt_options *opt, unsigned i, bool done)
{
	if (opt->n_variants < 2 || !isatty(STDERR_FILENO))
		return;
	if (done)
		fprintf(stderr, "\r\033[K");
	else
		fprintf(stderr, "\r\033[Kvariant %u/%u: %s", i + 1, opt->n_variants,
			opt->variants[i]->name);
}

/* Runs every variant, each in its own lab; returns how many runs are in @runs (< 0: error code). */
static int run_variants(struct nt_options *opt, struct nt_run *runs, struct nt_err *err)
{
	unsigned n = 0;

	opt->trace.stop = &stop_signal;
	for (unsigned i = 0; i < opt->n_variants && !stop_signal; i++) {
		struct nt_trace_options t = opt->trace;
		int ret;

		t.variant = opt->variants[i];
		if (!opt->expect_set)
			t.expect = t.variant->expect;
		progress(opt, i, false);
		ret = nt_trace_run(&t, &runs[n], err);
		n++;
		if (ret < 0) {
			progress(opt, i, true);
			if (ret == -EPERM)
				return -NT_EXIT_ENVIRONMENT - 1000;
			return -NT_EXIT_ENVIRONMENT;
		}
	}
	progress(opt, 0, true);
	return (int)n;
}

static int run_trace(struct nt_options *opt)
{
	struct nt_err err = { "" };
	struct nt_run *runs = calloc(opt->n_variants, sizeof(*runs));
	int n, ret, code = NT_EXIT_OK;

	if (!runs) {
		fprintf(stderr, "nagle-trace: out of memory\n");
		return NT_EXIT_ENVIRONMENT;
	}
	n = run_variants(opt, runs, &err);
	if (n < 0) {
		free_runs(runs, opt->n_variants);
		if (n == -NT_EXIT_ENVIRONMENT - 1000)
			fprintf(stderr,
				"nagle-trace: %s: no privileges to create network namespaces; "
				"run it as 'unshare -Urn nagle-trace'\n",
				err.msg);
		else
			fprintf(stderr, "nagle-trace: %s\n", err.msg);
		return NT_EXIT_ENVIRONMENT;
	}

	ret = render(opt, runs, (unsigned)n, &err);
	if (ret == -EPIPE) {
		free_runs(runs, opt->n_variants);
		return NT_EXIT_OK;
	}
	if (ret < 0) {
		free_runs(runs, opt->n_variants);
		return fail(NT_EXIT_FILE, &err);
	}

	for (int i = 0; i < n; i++) {
		const struct nt_run *r = &runs[i];

		if (r->interrupted || stop_signal)
			code = stop_signal == SIGTERM ? NT_EXIT_SIGTERM : NT_EXIT_SIGINT;
		else if (!r->expectation_met) {
			fprintf(stderr, "nagle-trace: %s: expectation \"%s\" not met: %s\n",
				r->cfg.variant, nt_expect_name(r->cfg.expect),
				r->expectation_reason);
			if (code == NT_EXIT_OK)
				code = NT_EXIT_EXPECTATION;
		}
	}
	free_runs(runs, opt->n_variants);
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
