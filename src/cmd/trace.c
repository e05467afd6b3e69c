// SPDX-License-Identifier: MIT
/*
 * trace.c - `nagle-trace [trace]`: each variant of the built-in exchange in
 * its own lab (src/live/trace.c), streamed into one document, and the exit
 * status from the expectation.
 *
 * The report is written while the runs go (each round as it completes), to
 * a temporary file that replaces -o's path only when complete, or for
 * standard output to an unnamed temporary file copied out at the end: a run
 * that fails halfway writes no half document to a file or a pipe. A
 * terminal is different: it is written directly, each round as it
 * completes, since a reader is watching and nothing keeps what it shows
 * (nt/cmd/tty.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/capture/closer.h"
#include "nt/capture/stamps.h"
#include "nt/capture/pcap_writer.h"
#include "nt/clock.h"
#include "nt/cmd/cmd.h"
#include "nt/cmd/trace_export.h"
#include "nt/cmd/trace_opts.h"
#include "nt/cmd/tty.h"
#include "nt/exitcode.h"
#include "nt/output.h"
#include "nt/render/format.h"
#include "nt/render/labels.h"

/**
 * struct trace_cmd - one invocation
 * @opt: the parsed command line
 * @runs: one per variant
 * @pcap: -w's writer per variant, made before any lab so a bad directory
 *        fails at once
 * @exp: per variant, -w as pcapng and --export-packetdrill
 * @out: the report's destination
 * @doc: the report
 * @tty: the terminal side: round-by-round display, progress line, --step
 * @err: the first error
 */
struct trace_cmd {
	struct nt_trace_opts opt;
	struct nt_record *runs;
	struct nt_pcap_writer *pcap[NT_TRACE_VARIANTS_MAX];
	struct nt_trace_export exp[NT_TRACE_VARIANTS_MAX];
	struct nt_output out;
	FILE *wrap; /* the report on a terminal, lines broken at words (nt_cmd_wrap_open()) */
	struct nt_renderer doc;
	struct nt_cmd_tty tty;
	struct nt_rx_stamps stamps;
	struct nt_err err;
};

static void pcap_abort_all(struct trace_cmd *tc)
{
	for (unsigned i = 0; i < NT_TRACE_VARIANTS_MAX; i++) {
		nt_trace_export_abort(&tc->exp[i], tc->pcap[i]);
		tc->pcap[i] = NULL;
	}
}

/* Commits the writers of the @n runs made (the rest never ran), aborts the others. */
static int pcap_commit(struct trace_cmd *tc, unsigned n)
{
	int ret = 0;

	for (unsigned i = 0; i < NT_TRACE_VARIANTS_MAX; i++) {
		if (i < n && !ret)
			ret = nt_trace_export_commit(&tc->exp[i], tc->pcap[i], &tc->runs[i],
						     &tc->err);
		else
			nt_trace_export_abort(&tc->exp[i], tc->pcap[i]);
		tc->pcap[i] = NULL;
	}
	return ret;
}

/* One variant writes @path itself; several write it with each variant's name before the extension. */
static int variant_path(struct trace_cmd *tc, const char *path, unsigned i, char *buf, size_t len)
{
	char shown[NT_ERR_PATH_MAX];
	const char *name = tc->opt.n_variants > 1 ? tc->opt.variants[i]->name : NULL;

	if (nt_pcap_writer_variant_path(path, name, buf, len) < 0)
		return nt_err_set(&tc->err, -ENAMETOOLONG, "write \"%s\"",
				  nt_err_path(path, shown, sizeof(shown)));
	return 0;
}

/*
 * Before anything runs, -w's writers (and --export-packetdrill's) reserve their files. One variant writes
 * -w FILE itself; several write FILE with each variant's name before the
 * extension.
 */
static int pcap_open(struct trace_cmd *tc)
{
	const struct nt_trace_opts *opt = &tc->opt;
	char path[4096];
	int ret;

	for (unsigned i = 0; i < opt->n_variants; i++) {
		if (opt->out.pcap_path) {
			ret = variant_path(tc, opt->out.pcap_path, i, path, sizeof(path));
			if (ret == 0)
				ret = nt_trace_export_open_pcap(&tc->exp[i], path, &tc->pcap[i],
								&tc->err);
			if (ret < 0)
				return ret;
		}
		if (opt->pkt_path) {
			ret = variant_path(tc, opt->pkt_path, i, path, sizeof(path));
			if (ret == 0)
				ret = nt_trace_export_open_pkt(&tc->exp[i], path, opt->variants[i],
							       &tc->err);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Runs every variant, each in its own lab: how many runs are in tc->runs, or a -errno. */
static int run_variants_masked(struct trace_cmd *tc, const sigset_t *waitmask)
{
	struct nt_trace_opts *opt = &tc->opt;
	unsigned n = 0;

	for (unsigned i = 0; i < opt->n_variants && !nt_cmd_stop; i++) {
		struct nt_trace_config t = opt->trace;
		int ret;

		t.stop = &nt_cmd_stop;
		t.waitmask = waitmask;
		t.sink = nt_trace_export_sink(&tc->exp[i], nt_cmd_tty_sink(&tc->tty));
		if (opt->step) {
			t.step = nt_cmd_tty_step;
			t.step_ctx = &tc->tty;
		}
		t.variant = opt->variants[i];
		t.pcap = tc->pcap[i];
		t.stamps = &tc->stamps;
		/*
		 * The capture's close waits for a grace period: let it pass while
		 * the next variant runs, or, after the last, while the report is
		 * written (nt_cmd_trace() drains the closer before returning).
		 */
		t.close_later = true;
		nt_cmd_tty_variant(&tc->tty, i, t.variant->name);
		ret = nt_trace_run(&t, &tc->runs[n], &tc->err);
		n++;
		nt_cmd_tty_clear(&tc->tty);
		if (ret < 0)
			return ret;
	}
	return (int)n;
}

/*
 * SIGINT and SIGTERM stay blocked while the runs go, open only inside their
 * waits (ppoll()'s mask): a signal between the check of the stop flag and
 * the wait ends the wait instead of being slept through. Unblocked after,
 * a pending one is delivered then and sets the flag as usual.
 */
static int run_variants(struct trace_cmd *tc)
{
	sigset_t saved, waitmask;
	int ret;

	nt_cmd_signals_block(&saved, &waitmask);
	ret = run_variants_masked(tc, &waitmask);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return ret;
}

static void print_timings(const struct nt_record *r)
{
	const struct nt_record_timings *t = &r->timings;

	fprintf(stderr,
		"nagle-trace: %s: timings: lab %.2f ms, listener %.2f ms, capture open %.2f ms, "
		"exchange %.2f ms, assemble %.2f ms, close %.2f ms, total %.2f ms\n",
		r->cfg.variant, nt_ns_to_ms(t->lab_ns), nt_ns_to_ms(t->listen_ns),
		nt_ns_to_ms(t->capture_open_ns), nt_ns_to_ms(t->exchange_ns),
		nt_ns_to_ms(t->assemble_ns), nt_ns_to_ms(t->close_ns), nt_ns_to_ms(t->total_ns));
}

/*
 * Whether a signal cut the work short: a run it stopped, or variants it kept
 * from running. A signal after the last run ended changes nothing: the
 * report is complete and says so.
 */
static bool was_interrupted(const struct trace_cmd *tc, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (tc->runs[i].interrupted)
			return true;
	return n < tc->opt.n_variants;
}

static int exit_status(const struct trace_cmd *tc, unsigned n, bool interrupted)
{
	int code = NT_EXIT_OK;

	for (unsigned i = 0; i < n; i++) {
		const struct nt_record *r = &tc->runs[i];
		char reason[NT_LABEL_EXPECTATION_LEN];

		if (tc->opt.out.timings)
			print_timings(r);
		if (r->interrupted || r->expectation_met)
			continue;
		fprintf(stderr, "nagle-trace: %s: expectation \"%s\" not met: %s\n", r->cfg.variant,
			nt_expect_name(r->cfg.expect),
			nt_label_expectation(&r->expectation_why, reason, sizeof(reason)));
		code = NT_EXIT_EXPECTATION;
	}
	if (interrupted)
		code = nt_cmd_stop_status() ? nt_cmd_stop_status() : NT_EXIT_SIGINT;
	return code;
}

/* The report could not be written: exit 4, one line naming -o's file (quoted) or standard output. */
static int report_failed(struct trace_cmd *tc, int ret)
{
	/* This, not the step it stopped (a run stops when its report fails). */
	tc->err.msg[0] = '\0';
	nt_output_write_error(tc->opt.out.path, ret, &tc->err);
	return nt_cmd_fail(NT_EXIT_FILE, &tc->err);
}

static int usage(const char *msg, const char *path)
{
	char pb[NT_ERR_PATH_MAX];

	fputs("nagle-trace: ", stderr);
	fprintf(stderr, msg, path ? nt_err_path(path, pb, sizeof(pb)) : "standard output");
	fputs("\ntry 'nagle-trace --help'\n", stderr);
	return NT_EXIT_USAGE;
}

/*
 * Right after parsing, before any work: -o and each variant's -w file must
 * be different files (exit 2) and writable (exit 4). "-" is standard output
 * for both; -w - with no -o sends the report to standard error, as tcpdump
 * -w - keeps its messages there, so `nagle-trace -w - | tshark -r -` works.
 */
/* Each variant's -w or --export-packetdrill file must be apart from the report and writable. */
static int check_per_variant(struct trace_cmd *tc, const char *base, const char *what)
{
	const char *report = tc->opt.out.path;
	char path[4096];

	for (unsigned i = 0; i < tc->opt.n_variants; i++) {
		if (variant_path(tc, base, i, path, sizeof(path)) < 0)
			return nt_cmd_fail(NT_EXIT_FILE, &tc->err);
		if (nt_output_same_file(report, path))
			return usage(what, report);
		if (nt_output_check(path, &tc->err) < 0)
			return nt_cmd_fail(NT_EXIT_FILE, &tc->err);
	}
	return NT_EXIT_OK;
}

static int check_files(struct trace_cmd *tc)
{
	struct nt_cmd_output *o = &tc->opt.out;
	const char *pkt = tc->opt.pkt_path;
	int code;

	if (o->pcap_path && strcmp(o->pcap_path, "-") == 0 && !o->path)
		o->path = "/dev/stderr";
	if (o->path && strcmp(o->path, "-") == 0)
		o->path = NULL;
	if (nt_output_check(o->path, &tc->err) < 0)
		return nt_cmd_fail(NT_EXIT_FILE, &tc->err);
	if (tc->opt.n_variants > 1 && o->pcap_path && strcmp(o->pcap_path, "-") == 0)
		return usage("--write -: several variants write one pcap file each, which %s "
			     "cannot hold; give a file name",
			     NULL);
	if (pkt && o->pcap_path && nt_output_same_file(pkt, o->pcap_path))
		return usage("--export-packetdrill and --write both name \"%s\"", pkt);
	code = o->pcap_path ? check_per_variant(tc, o->pcap_path,
						"--output and --write both name \"%s\"")
			    : NT_EXIT_OK;
	if (code == NT_EXIT_OK && pkt)
		code = check_per_variant(tc, pkt,
					 "--output and --export-packetdrill both name \"%s\"");
	return code;
}

static int run_failed(struct trace_cmd *tc, int ret)
{
	if (tc->doc.error && !nt_output_reader_gone(&tc->out, tc->doc.error))
		return report_failed(tc, tc->doc.error);
	if (ret == -EPERM) {
		fprintf(stderr,
			"nagle-trace: %s: no privileges to create network namespaces; "
			"run it as 'unshare -Urn nagle-trace'\n",
			tc->err.msg);
		return NT_EXIT_ENVIRONMENT;
	}
	return nt_cmd_fail(NT_EXIT_ENVIRONMENT, &tc->err);
}

/* The wrapping stream's last partial line goes out; standard output stays open. */
static int wrap_close(struct trace_cmd *tc)
{
	int ret = 0;

	if (tc->wrap && fclose(tc->wrap) == EOF)
		ret = -EIO;
	tc->wrap = NULL;
	return ret;
}

/* After the runs: the document, -w's files and the exit status. */
static int finish(struct trace_cmd *tc, unsigned n)
{
	bool interrupted = was_interrupted(tc, n);
	int ret;

	if (n == 0) {
		/* Stopped before the first variant began: nothing to report. */
		fprintf(stderr,
			"nagle-trace: interrupted before the first run: no report written\n");
		(void)wrap_close(tc);
		nt_output_abort(&tc->out);
		pcap_abort_all(tc);
		return exit_status(tc, 0, true);
	}
	tc->doc.interrupted = interrupted;
	ret = nt_renderer_finish(&tc->doc, tc->runs, n);
	if (wrap_close(tc) < 0 && ret == 0)
		ret = -EIO;
	if (ret == 0)
		ret = nt_output_commit(&tc->out, &tc->err);
	/* Standard output going away (| head) is quiet; a FIFO named by -o is not. */
	if (ret < 0 && !nt_output_reader_gone(&tc->out, ret)) {
		pcap_abort_all(tc);
		return report_failed(tc, ret);
	}
	if (ret == -EPIPE)
		nt_output_abort(&tc->out);
	/* Standard output going away (| head) is no reason to lose the -w file. */
	if (pcap_commit(tc, n) < 0)
		return nt_cmd_fail(NT_EXIT_FILE, &tc->err);
	return ret == -EPIPE ? NT_EXIT_OK : exit_status(tc, n, interrupted);
}

static int run(struct trace_cmd *tc)
{
	struct nt_trace_opts *opt = &tc->opt;
	struct nt_render_opts ro = { .color = nt_cmd_want_color(&opt->out),
				     .summary_only = opt->out.summary_only,
				     .brief = opt->out.brief,
				     .explain = opt->out.explain,
				     .compare = opt->compare };
	/*
	 * Standard output that is a terminal: a reader is watching, nothing keeps
	 * what it shows. (check_files() made "-o -" a NULL path.)
	 */
	bool to_tty = !opt->out.path && isatty(STDOUT_FILENO);
	const struct nt_format *fmt = nt_format_find(opt->out.format, NT_FORMAT_TRACE);
	FILE *report;
	int n, ret;

	tc->runs = calloc(opt->n_variants, sizeof(*tc->runs));
	if (!tc->runs) {
		fprintf(stderr, "nagle-trace: out of memory\n");
		return NT_EXIT_ENVIRONMENT;
	}
	/*
	 * Records stream; so does a terminal, shown each round as it completes.
	 * A report to a file or a pipe is complete or absent.
	 */
	if (nt_output_open(&tc->out, opt->out.path,
			   fmt->records || to_tty ? NT_OUTPUT_STREAM : NT_OUTPUT_DOCUMENT,
			   &tc->err) < 0)
		return nt_cmd_open_fail(&tc->err);
	if (pcap_open(tc) < 0) {
		pcap_abort_all(tc);
		nt_output_abort(&tc->out);
		return nt_cmd_open_fail(&tc->err);
	}
	/* A text report on a terminal breaks its long lines at words, not where the screen ends. */
	if (to_tty && strcmp(opt->out.format, "text") == 0)
		tc->wrap = nt_cmd_wrap_open(tc->out.fp, nt_cmd_tty_columns());
	report = tc->wrap ? tc->wrap : tc->out.fp;
	ret = nt_renderer_open(&tc->doc, fmt->trace, report, &ro, opt->n_variants);
	nt_cmd_tty_init(&tc->tty, nt_renderer_sink(&tc->doc), report, to_tty, opt->n_variants);
	if (ret == 0) {
		n = run_variants(tc);
		if (n >= 0)
			return finish(tc, (unsigned)n);
		ret = run_failed(tc, n);
	} else {
		ret = report_failed(tc, ret);
	}
	(void)wrap_close(tc);
	pcap_abort_all(tc);
	nt_output_abort(&tc->out);
	return ret;
}

int nt_cmd_trace(int argc, char **argv)
{
	struct trace_cmd tc = { 0 };
	int code;

	if (nt_trace_opts_parse(argc, argv, &tc.opt, &tc.err) < 0)
		return nt_cmd_usage_error(NULL, tc.err.msg);
	if (tc.opt.action == NT_CMD_HELP)
		return nt_cmd_print_info(nt_trace_opts_usage);
	if (tc.opt.action == NT_CMD_VERSION)
		return nt_cmd_print_info(nt_cmd_version);
	code = check_files(&tc);
	if (code != NT_EXIT_OK)
		return code;
	nt_cmd_signals_install();
	/* The kernel's deferred switch runs while the lab is built (nt/capture/stamps.h). */
	nt_rx_stamps_open(&tc.stamps);
	code = run(&tc);
	nt_capture_closer_drain();
	nt_rx_stamps_close(&tc.stamps);
	nt_renderer_close(&tc.doc);
	for (unsigned i = 0; tc.runs && i < tc.opt.n_variants; i++)
		nt_record_fini(&tc.runs[i]);
	free(tc.runs);
	return code;
}
