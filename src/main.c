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
#include "nt/capture/closer.h"
#include "nt/capture/pcap_writer.h"
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

/* A signal that ends the process: named temporary files go first (nt/output.h). */
static void on_fatal_signal(int sig)
{
	nt_output_unlink_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_signals(void)
{
	static const int fatal[] = { SIGHUP,  SIGQUIT,	 SIGUSR1, SIGUSR2,
				     SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU };
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct sigaction fa = { .sa_handler = on_fatal_signal };

	/* No SA_RESTART: ppoll() returns EINTR and the loop sees the flag at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* `nagle-trace | head` ends quietly: writes fail with EPIPE instead of killing us. */
	signal(SIGPIPE, SIG_IGN);
	/* Past `ulimit -f` a write fails with EFBIG, reported, instead of killing us. */
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&fa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &fa, NULL);
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

/* -w: one writer per variant, made before any lab so a bad directory fails at once. */
static struct nt_pcap_writer *pcap_writers[NT_CLI_VARIANTS_MAX];

static void pcap_writers_abort(void)
{
	for (unsigned i = 0; i < NT_CLI_VARIANTS_MAX; i++) {
		nt_pcap_writer_abort(pcap_writers[i]);
		pcap_writers[i] = NULL;
	}
}

/* Commits the writers of the @n runs made (the rest never ran), aborts the others. */
static int pcap_writers_commit(unsigned n, struct nt_err *err)
{
	int ret = 0;

	for (unsigned i = 0; i < NT_CLI_VARIANTS_MAX; i++) {
		if (i < n && pcap_writers[i] && !ret)
			ret = nt_pcap_writer_commit(pcap_writers[i], err);
		else
			nt_pcap_writer_abort(pcap_writers[i]);
		pcap_writers[i] = NULL;
	}
	return ret;
}

/*
 * Before anything runs, -w's writers reserve their files. One variant writes
 * -w FILE itself; several write FILE with each variant's name before the
 * extension.
 */
static int open_pcap_writers(const struct nt_options *opt, struct nt_err *err)
{
	char path[4096];
	int ret;

	if (!opt->pcap_path)
		return 0;
	for (unsigned i = 0; i < opt->n_variants && i < NT_CLI_VARIANTS_MAX; i++) {
		if (opt->n_variants == 1)
			snprintf(path, sizeof(path), "%s", opt->pcap_path);
		else if (nt_pcap_writer_variant_path(opt->pcap_path, opt->variants[i]->name, path,
						     sizeof(path)) < 0) {
			pcap_writers_abort();
			return nt_err_set(err, -ENAMETOOLONG, "write \"%s\"", opt->pcap_path);
		}
		ret = nt_pcap_writer_new(path, &pcap_writers[i], err);
		if (ret < 0) {
			pcap_writers_abort();
			return ret;
		}
	}
	return 0;
}

/*
 * Right after parsing, before any work: -o and -w (each variant's file) must
 * be different files (exit 2), and each must be writable (exit 4). "-"
 * means standard output, for both.
 */
static int check_files(struct nt_options *opt)
{
	struct nt_err err = { "" };
	char path[4096], pb[NT_ERR_PATH_MAX];

	if (opt->output_path && strcmp(opt->output_path, "-") == 0)
		opt->output_path = NULL;
	if (nt_output_check(opt->output_path, &err) < 0)
		return fail(NT_EXIT_FILE, &err);
	if (!opt->pcap_path)
		return NT_EXIT_OK;
	if (opt->n_variants > 1 && strcmp(opt->pcap_path, "-") == 0) {
		fprintf(stderr,
			"nagle-trace: --write -: %u variants write %u pcap files; "
			"give a file name\ntry 'nagle-trace --help'\n",
			opt->n_variants, opt->n_variants);
		return NT_EXIT_USAGE;
	}
	for (unsigned i = 0; i < opt->n_variants; i++) {
		if (opt->n_variants == 1)
			snprintf(path, sizeof(path), "%s", opt->pcap_path);
		else if (nt_pcap_writer_variant_path(opt->pcap_path, opt->variants[i]->name, path,
						     sizeof(path)) < 0)
			continue; /* open_pcap_writers() reports it */
		if (nt_output_same_file(opt->output_path, path)) {
			fprintf(stderr,
				"nagle-trace: --output and --write both name \"%s\"\n"
				"try 'nagle-trace --help'\n",
				opt->output_path ? nt_err_path(opt->output_path, pb, sizeof(pb))
						 : "standard output");
			return NT_EXIT_USAGE;
		}
		if (nt_output_check(path, &err) < 0)
			return fail(NT_EXIT_FILE, &err);
	}
	return NT_EXIT_OK;
}

/* Runs every variant, each in its own lab: how many runs are in @runs, or nt_trace_run()'s -errno. */
static int run_variants(struct nt_options *opt, struct nt_run *runs, const struct nt_run_sink *sink,
			struct nt_err *err)
{
	unsigned n = 0;

	opt->trace.stop = &stop_signal;
	opt->trace.sink = sink;
	for (unsigned i = 0; i < opt->n_variants && !stop_signal; i++) {
		struct nt_trace_options t = opt->trace;
		int ret;

		t.variant = opt->variants[i];
		t.pcap = pcap_writers[i];
		/* The capture's close waits for a grace period: let it pass while the next variant runs. */
		t.close_later = i + 1 < opt->n_variants;
		if (!opt->expect_set)
			t.expect = t.variant->expect;
		progress(opt, i, false);
		ret = nt_trace_run(&t, &runs[n], err);
		n++;
		if (ret < 0) {
			progress(opt, i, true);
			return ret;
		}
	}
	progress(opt, 0, true);
	return (int)n;
}

static void print_timings(const struct nt_run *r)
{
	const struct nt_run_timings *t = &r->timings;

	fprintf(stderr,
		"nagle-trace: %s: timings: lab %.2f ms, listener %.2f ms, capture open %.2f ms, "
		"exchange %.2f ms, assemble %.2f ms, close %.2f ms, total %.2f ms\n",
		r->cfg.variant, t->lab_ns / 1e6, t->listen_ns / 1e6, t->capture_open_ns / 1e6,
		t->exchange_ns / 1e6, t->assemble_ns / 1e6, t->close_ns / 1e6, t->total_ns / 1e6);
}

static int exit_code(const struct nt_options *opt, const struct nt_run *runs, int n)
{
	int code = NT_EXIT_OK;

	for (int i = 0; i < n; i++) {
		const struct nt_run *r = &runs[i];

		if (opt->timings)
			print_timings(r);
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
	return code;
}

/* The report could not be written: exit 4, one line naming -o's file (quoted) or standard output. */
static int report_failed(const struct nt_options *opt, int ret, struct nt_err *err)
{
	const char *q = opt->output_path ? "\"" : "";
	char pb[NT_ERR_PATH_MAX];

	err->msg[0] = '\0'; /* this, not the step it stopped (a run stops when its report fails) */
	nt_err_set(err, ret, "write %s%s%s", q,
		   opt->output_path ? nt_err_path(opt->output_path, pb, sizeof(pb))
				    : "standard output",
		   q);
	return fail(NT_EXIT_FILE, err);
}

/*
 * The report is written while the runs go (each round as it completes), to
 * a temporary file beside -o's path that is renamed into place only when
 * complete, or for standard output to an unnamed temporary file copied out
 * at the end: a run that fails halfway writes no half document anywhere.
 */
static int run_trace(struct nt_options *opt)
{
	struct nt_err err = { "" };
	struct nt_run *runs = calloc(opt->n_variants, sizeof(*runs));
	struct nt_render_opts ro = { .color = want_color(opt), .summary_only = opt->summary_only };
	struct nt_renderer doc = { 0 };
	struct nt_output out;
	int n, ret, code;

	if (!runs) {
		fprintf(stderr, "nagle-trace: out of memory\n");
		return NT_EXIT_ENVIRONMENT;
	}
	if (nt_output_open(&out, opt->output_path, NT_OUTPUT_DOCUMENT, &err) < 0) {
		free(runs);
		return fail(NT_EXIT_FILE, &err);
	}
	if (open_pcap_writers(opt, &err) < 0) {
		nt_output_abort(&out);
		free(runs);
		return fail(NT_EXIT_FILE, &err);
	}
	ret = nt_renderer_open(&doc, nt_format_find(opt->format), out.fp, &ro, opt->n_variants);
	if (ret < 0) {
		code = report_failed(opt, ret, &err);
		goto abort;
	}

	n = run_variants(opt, runs, nt_renderer_sink(&doc), &err);
	if (n < 0 && doc.error && doc.error != -EPIPE) {
		code = report_failed(opt, doc.error, &err);
		goto abort;
	}
	if (n < 0) {
		if (n == -EPERM)
			fprintf(stderr,
				"nagle-trace: %s: no privileges to create network namespaces; "
				"run it as 'unshare -Urn nagle-trace'\n",
				err.msg);
		else
			fprintf(stderr, "nagle-trace: %s\n", err.msg);
		code = NT_EXIT_ENVIRONMENT;
		goto abort;
	}

	ret = nt_renderer_finish(&doc, runs, (unsigned)n);
	if (ret == 0)
		ret = nt_output_commit(&out, &err);
	if (ret < 0 && ret != -EPIPE) {
		code = report_failed(opt, ret, &err);
		goto abort;
	}
	if (ret == -EPIPE)
		nt_output_abort(&out);
	/* Standard output going away (| head) is no reason to lose the -w file. */
	if (pcap_writers_commit((unsigned)n, &err) < 0) {
		code = fail(NT_EXIT_FILE, &err);
		goto out;
	}
	code = ret == -EPIPE ? NT_EXIT_OK : exit_code(opt, runs, n);
	goto out;

abort:
	pcap_writers_abort();
	nt_output_abort(&out);
out:
	nt_capture_closer_drain();
	nt_renderer_close(&doc);
	free_runs(runs, opt->n_variants);
	return code;
}

int main(int argc, char **argv)
{
	struct nt_err err = { "" };
	struct nt_options opt;
	int code;

	/* Before anything opens a file: a closed 0, 1 or 2 must not be taken by one. */
	if (nt_output_stdio_init() < 0) {
		fprintf(stderr,
			"nagle-trace: cannot open /dev/null for a closed standard stream\n");
		return NT_EXIT_ENVIRONMENT;
	}
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
		return nt_output_close_stdout(&err) < 0 ? fail(NT_EXIT_FILE, &err) : NT_EXIT_OK;
	}
	if (opt.action == NT_CLI_VERSION) {
		printf("nagle-trace %s\n%s\nlibmnl %s\njson-c %s\n", NT_VERSION,
		       nt_capture_library_version(), NT_LIBMNL_VERSION, json_c_version());
		return nt_output_close_stdout(&err) < 0 ? fail(NT_EXIT_FILE, &err) : NT_EXIT_OK;
	}
	code = check_files(&opt);
	if (code != NT_EXIT_OK)
		return code;
	install_signals();
	return run_trace(&opt);
}
