// SPDX-License-Identifier: MIT
/*
 * run.c - `nagle-trace run`: the user's own target and client in a fresh
 * lab per fix (src/live/userrun.c), each capture through analyze's stall
 * rule, one report with the run's facts and, for several fixes, their
 * comparison; the exit status from how the commands ended.
 *
 * Signals: SIGINT and SIGTERM are blocked from the start and taken only
 * inside the run's ppoll() (its wait mask unblocks them), so one that
 * arrives between the loop's check and its sleep is not lost. A stop ends
 * the current run (its commands get SIGTERM, then SIGKILL), skips the
 * fixes not yet run, and still writes the report of what was captured.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/capture/pcap_writer.h"
#include "nt/cmd/cmd.h"
#include "nt/cmd/run_opts.h"
#include "nt/exitcode.h"
#include "nt/live/procs.h"
#include "nt/live/userrun.h"
#include "nt/live/wait.h"
#include "nt/model/annotate.h"
#include "nt/output.h"
#include "nt/render/fmt.h"
#include "nt/render/format.h"
#include "nt/render/run.h"

/**
 * struct run_cmd - one invocation
 * @opt: the command line
 * @ri: each run's facts
 * @an: each run's analysis
 * @report: each run as the renderers take it
 * @pcap: -w's writer per fix
 * @n: runs made
 * @log_fd: --target-log, -1 without
 * @log_error: the first failed write to --target-log (negative errno), 0 none
 * @preload: the TCP_NODELAY library's path, "" when no fix needs it
 * @out: the report's destination
 * @err: the first error
 */
struct run_cmd {
	struct nt_run_opts opt;
	struct nt_runinfo ri[NT_FIX_MAX];
	struct nt_analysis an[NT_FIX_MAX];
	struct nt_run_report report[NT_FIX_MAX];
	struct nt_annot_list annot[NT_FIX_MAX];
	char *command_line;
	struct nt_pcap_writer *pcap[NT_FIX_MAX];
	unsigned n;
	int log_fd;
	int log_error;
	char preload[4096];
	struct nt_output out;
	struct nt_err err;
};

/* -w's file of fix @i: the path itself for one fix, the fix's name before the extension for several. */
static int pcap_path(const struct run_cmd *rc, unsigned i, char *buf, size_t len)
{
	const char *slug = rc->opt.n_fixes > 1 ? rc->opt.fixes[i].slug : NULL;

	return nt_pcap_writer_variant_path(rc->opt.out.pcap_path, slug, buf, len);
}

/* Before anything runs: the files are distinct (exit 2) and writable (exit 4). */
static int check_files(struct run_cmd *rc)
{
	struct nt_cmd_output *o = &rc->opt.out;
	const char *log = rc->opt.target_log;
	char path[4096], pb[NT_ERR_PATH_MAX], msg[NT_ERR_MSG_MAX];

	if (o->path && strcmp(o->path, "-") == 0)
		o->path = NULL;
	if (nt_output_check(o->path, &rc->err) < 0)
		return nt_cmd_fail(NT_EXIT_FILE, &rc->err);
	if (log && o->path && nt_output_same_file(log, o->path)) {
		snprintf(msg, sizeof(msg), "--output and --target-log both name \"%s\"",
			 nt_err_path(log, pb, sizeof(pb)));
		return nt_cmd_usage_error("run", msg);
	}
	if (log && nt_output_check(log, &rc->err) < 0)
		return nt_cmd_fail(NT_EXIT_FILE, &rc->err);
	for (unsigned i = 0; o->pcap_path && i < rc->opt.n_fixes; i++) {
		if (pcap_path(rc, i, path, sizeof(path)) < 0) {
			nt_err_set(&rc->err, -ENAMETOOLONG, "write \"%s\"",
				   nt_err_path(o->pcap_path, pb, sizeof(pb)));
			return nt_cmd_fail(NT_EXIT_FILE, &rc->err);
		}
		if (nt_output_same_file(o->path, path) || (log && nt_output_same_file(log, path))) {
			snprintf(msg, sizeof(msg),
				 "--write names \"%s\", which another option names",
				 nt_err_path(path, pb, sizeof(pb)));
			return nt_cmd_usage_error("run", msg);
		}
		if (nt_output_check(path, &rc->err) < 0)
			return nt_cmd_fail(NT_EXIT_FILE, &rc->err);
	}
	return NT_EXIT_OK;
}

/* What the runs need before the first: the preload, the log, -w's files, the report. */
static int prepare(struct run_cmd *rc)
{
	char path[4096];
	bool any = false;

	for (unsigned i = 0; i < rc->opt.n_fixes; i++) {
		bool c, t;

		any |= nt_fix_needs_preload(&rc->opt.fixes[i], &c, &t);
	}
	if (any && nt_procs_preload_path(NT_PROCS_NODELAY_LIB, rc->preload, sizeof(rc->preload),
					 &rc->err) < 0)
		return nt_cmd_fail(NT_EXIT_ENVIRONMENT, &rc->err);
	if (rc->opt.target_log) {
		rc->log_fd =
			open(rc->opt.target_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (rc->log_fd < 0) {
			nt_err_set(&rc->err, -errno, "open \"%s\"", rc->opt.target_log);
			return nt_cmd_open_fail(&rc->err);
		}
	}
	for (unsigned i = 0; rc->opt.out.pcap_path && i < rc->opt.n_fixes; i++)
		if (pcap_path(rc, i, path, sizeof(path)) < 0 ||
		    nt_pcap_writer_new(path, &rc->pcap[i], &rc->err) < 0)
			return nt_cmd_open_fail(&rc->err);
	if (nt_output_open(&rc->out, rc->opt.out.path,
			   strcmp(rc->opt.out.format, "jsonl") == 0 ? NT_OUTPUT_STREAM
								    : NT_OUTPUT_DOCUMENT,
			   &rc->err) < 0)
		return nt_cmd_open_fail(&rc->err);
	return NT_EXIT_OK;
}

static void userrun_config(struct nt_userrun_config *uc, struct run_cmd *rc, unsigned i,
			   const sigset_t *waitmask)
{
	const struct nt_run_opts *o = &rc->opt;

	*uc = (struct nt_userrun_config){
		.job = o->job,
		.target_log_fd = rc->log_fd,
		/* The report owns standard output when it goes there. */
		.client_stdout_fd = o->out.path ? -1 : STDERR_FILENO,
		.ipv6 = o->ipv6,
		.rtt_ns = o->rtt_ns,
		.fix = &o->fixes[i],
		.preload = rc->preload,
		.capture = o->capture,
		.pcap = rc->pcap[i],
		.stop = &nt_cmd_stop,
		.waitmask = waitmask,
		.target_log_error = &rc->log_error,
	};
}

static void progress(const struct run_cmd *rc, unsigned i)
{
	if (rc->opt.n_fixes > 1 && isatty(STDERR_FILENO))
		fprintf(stderr, "nagle-trace: fix %u/%u: %s\n", i + 1, rc->opt.n_fixes,
			rc->opt.fixes[i].name);
}

/* Every fix in its own lab, until a signal; returns 0 or a negative errno (reported). */
static int run_fixes(struct run_cmd *rc, const sigset_t *waitmask)
{
	/*
	 * Every stall kept only for a report that lists them: some 20 bytes a
	 * stall (nt/model/stall_recs.h).
	 */
	rc->opt.params.keep_stalls =
		nt_format_find(rc->opt.out.format, NT_FORMAT_ANALYSIS)->lists_stalls;
	for (unsigned i = 0; i < rc->opt.n_fixes; i++) {
		struct nt_userrun_config uc;
		int ret;

		/* A SIGINT or SIGTERM that came between two runs is pending: take it now. */
		nt_wait_take_signals(waitmask);
		if (nt_cmd_stop)
			break;
		userrun_config(&uc, rc, i, waitmask);
		nt_runinfo_init(&rc->ri[i]);
		if (nt_analysis_init(&rc->an[i], &rc->opt.params) < 0)
			return nt_err_set(&rc->err, -ENOMEM, "start the analysis");
		/* Every stall kept, with its time: the incident report lists them. */
		rc->an[i].annot = &rc->annot[i];
		rc->ri[i].command_line = rc->command_line;
		rc->report[i] = (struct nt_run_report){ .ri = &rc->ri[i],
							.an = &rc->an[i],
							.annot = &rc->annot[i] };
		rc->n = i + 1;
		progress(rc, i);
		ret = nt_userrun(&uc, &rc->an[i], &rc->ri[i], &rc->err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * A target that ends before it listens under a one-uid user namespace has
 * most likely failed to switch user or set groups (nginx's chown() to its
 * worker user, mosquitto's setgroups(), runuser): the id has no mapping, so
 * the kernel answers EINVAL (make_kuid() in setuid(2), chown(2),
 * setgroups(2) is even refused outright before gid_map is written).
 */
static void say_identities(const struct nt_runinfo *ri)
{
	if (ri->uids_mapped != 1)
		return;
	fputs("nagle-trace: the run's user namespace maps a single uid (plain 'unshare -Urn'), "
	      "so a server that switches user, changes file owners or sets groups fails there; "
	      "run as real root ('sudo nagle-trace run ...') or map a range from /etc/subuid "
	      "('unshare --map-auto --map-root-user --net nagle-trace run ...'): see run.md, "
	      "\"Identities\"\n",
	      stderr);
}

/* One line (and the client's last words) for every run that did not end as it should. */
static void say_how_it_ended(const struct run_cmd *rc, unsigned i)
{
	const struct nt_runinfo *ri = &rc->ri[i];
	char pre[64] = "", ms[NT_FMT_MS_LEN], why[256];

	if (rc->opt.n_fixes > 1)
		snprintf(pre, sizeof(pre), "fix %s: ", ri->fix);
	switch (ri->end_kind) {
	case NT_RUN_END_LISTEN_TIMEOUT:
	case NT_RUN_END_TARGET_EXITED:
		fprintf(stderr, "nagle-trace: %sthe target never listened: %s", pre,
			ri->end_kind == NT_RUN_END_LISTEN_TIMEOUT ? "not within --listen-timeout "
								  : "it exited first, ");
		if (ri->end_kind == NT_RUN_END_LISTEN_TIMEOUT)
			fprintf(stderr, "%s s",
				nt_fmt_s_digits(rc->opt.job.listen_timeout_ns, 3, ms, sizeof(ms)));
		else if (ri->target.signal)
			fprintf(stderr, "killed by signal %d", ri->target.signal);
		else
			fprintf(stderr, "exit status %d", ri->target.exit_status);
		if (ri->unreachable[0])
			fprintf(stderr, " (it listened on %s, which the client cannot reach)",
				ri->unreachable);
		fputs("; no client was started\n", stderr);
		if (ri->end_kind == NT_RUN_END_TARGET_EXITED)
			say_identities(ri);
		break;
	case NT_RUN_END_NOT_READY:
		fprintf(stderr,
			"nagle-trace: %sthe target listened but was not ready within "
			"--listen-timeout %s s:",
			pre, nt_fmt_s_digits(rc->opt.job.listen_timeout_ns, 3, ms, sizeof(ms)));
		if (ri->ready_log && !ri->log_matched)
			fprintf(stderr, " no line of its output matched --ready-log \"%s\"",
				ri->ready_log);
		else if (ri->ready_cmd)
			fprintf(stderr, " --ready \"%s\" never exited 0 (%u tries)", ri->ready_cmd,
				ri->ready_tries);
		fputs("; no client was started\n", stderr);
		break;
	case NT_RUN_END_STOPPED:
		fprintf(stderr,
			"nagle-trace: %sstopped by a signal: the report covers what was captured "
			"until then\n",
			pre);
		break;
	case NT_RUN_END_RUN_TIMEOUT:
		fprintf(stderr,
			"nagle-trace: %sthe run timed out after %s s (--timeout): the report "
			"covers "
			"what was captured until then\n",
			pre, nt_fmt_s_digits(rc->opt.job.run_timeout_ns, 3, ms, sizeof(ms)));
		break;
	default:
		break;
	}
	if (ri->end_kind == NT_RUN_END_CLIENT_EXITED && nt_run_proc_failed(&ri->client)) {
		if (ri->client.signal)
			fprintf(stderr, "nagle-trace: %sthe client failed: killed by signal %d\n",
				pre, ri->client.signal);
		else
			fprintf(stderr, "nagle-trace: %sthe client failed: exit status %d\n", pre,
				ri->client.exit_status);
		if (ri->client_stderr_tail) {
			fputs("nagle-trace: its stderr ended with:\n", stderr);
			nt_run_quote_lines(stderr, ri->client_stderr_tail, "  | ");
		}
	}
	if (nt_runinfo_lost(ri))
		fprintf(stderr, "nagle-trace: %swarning: %s\n", pre,
			nt_run_incomplete(ri, why, sizeof(why)));
}

int nt_run_exit_status(const struct nt_run_report *runs, unsigned n, unsigned n_fixes,
		       int stop_status, bool fail_on_stall)
{
	bool failed = false, stalled = false;

	if (stop_status)
		return stop_status;
	for (unsigned i = 0; i < n; i++) {
		const struct nt_runinfo *ri = runs[i].ri;

		if (ri->end_kind != NT_RUN_END_CLIENT_EXITED || nt_run_proc_failed(&ri->client))
			failed = true;
		if (runs[i].an->sum.stalls || nt_runinfo_lost(ri))
			stalled = true;
	}
	if (failed || n < n_fixes)
		return NT_EXIT_ENVIRONMENT;
	return fail_on_stall && stalled ? NT_EXIT_EXPECTATION : NT_EXIT_OK;
}

/* The report, then -w's files: each complete or absent. */
static int write_report(struct run_cmd *rc)
{
	struct nt_analysis_view v = { .brief = rc->opt.out.brief };
	int ret = nt_render_run_reports(rc->out.fp, rc->opt.out.format, rc->report, rc->n, &v);

	/* JSON Lines stream: their reader may leave mid-report (`| head`), no error. */
	ret = ret < 0 ? nt_output_fail(&rc->out, ret, &rc->err)
		      : nt_output_commit(&rc->out, &rc->err);
	if (ret < 0 && !nt_output_reader_gone(&rc->out, ret))
		return nt_cmd_fail(NT_EXIT_FILE, &rc->err);
	for (unsigned i = 0; i < NT_FIX_MAX; i++) {
		if (i < rc->n && rc->pcap[i] && nt_pcap_writer_commit(rc->pcap[i], &rc->err) < 0)
			ret = -EIO;
		else if (i >= rc->n)
			nt_pcap_writer_abort(rc->pcap[i]);
		rc->pcap[i] = NULL;
	}
	return ret == -EIO ? nt_cmd_fail(NT_EXIT_FILE, &rc->err) : NT_EXIT_OK;
}

static void abort_files(struct run_cmd *rc)
{
	nt_output_abort(&rc->out);
	for (unsigned i = 0; i < NT_FIX_MAX; i++) {
		nt_pcap_writer_abort(rc->pcap[i]);
		rc->pcap[i] = NULL;
	}
}

static int run_failed(struct run_cmd *rc, int ret)
{
	abort_files(rc);
	if (ret == -EPERM) {
		fprintf(stderr,
			"nagle-trace: %s: no privileges for network, PID and mount namespaces; "
			"run it as 'unshare -Urn nagle-trace run ...'\n",
			rc->err.msg);
		return NT_EXIT_ENVIRONMENT;
	}
	return nt_cmd_fail(NT_EXIT_ENVIRONMENT, &rc->err);
}

static int run(struct run_cmd *rc)
{
	sigset_t waitmask;
	int code, ret;

	nt_cmd_signals_install();
	/*
	 * The files first, the stop signals still open: a FIFO's open() waits
	 * for its reader, and SIGINT/SIGTERM must end that wait (EINTR), not
	 * stay pending behind it. One that comes later is pending and taken
	 * before the first run (run_fixes()).
	 */
	code = prepare(rc);
	if (code == NT_EXIT_OK && nt_cmd_stop)
		code = nt_cmd_stop_status();
	if (code != NT_EXIT_OK) {
		abort_files(rc);
		return code;
	}
	nt_cmd_signals_block(NULL, &waitmask);
	ret = run_fixes(rc, &waitmask);
	if (ret < 0)
		return run_failed(rc, ret);
	if (rc->n == 0) {
		abort_files(rc);
		fputs("nagle-trace: interrupted before the first run: no report written\n", stderr);
		return nt_cmd_stop_status();
	}
	code = write_report(rc);
	for (unsigned i = 0; i < rc->n; i++)
		say_how_it_ended(rc, i);
	if (code != NT_EXIT_OK)
		return code;
	/* The target's output is part of what was asked for: a log that lost some is exit 4. */
	if (rc->log_error) {
		char pb[NT_ERR_PATH_MAX];

		nt_err_set(&rc->err, rc->log_error, "write \"%s\"",
			   nt_err_path(rc->opt.target_log, pb, sizeof(pb)));
		return nt_cmd_fail(NT_EXIT_FILE, &rc->err);
	}
	return nt_run_exit_status(rc->report, rc->n, rc->opt.n_fixes, nt_cmd_stop_status(),
				  rc->opt.fail_on_stall);
}

/* @s for a POSIX shell: as it is when it is plain, else in single quotes. */
static void shell_word(FILE *out, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "-_./=,:@%+") == strlen(s)) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	fputc('\'', out);
}

/*
 * The invocation as a shell would take it again, for the incident report's
 * "reproduce" line: "nagle-trace run" and the arguments as given. NULL when
 * memory ran out (the report then has no such line).
 */
static char *command_line(int argc, char **argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return NULL;
	fputs("nagle-trace run", mem);
	for (int i = 1; i < argc; i++) {
		fputc(' ', mem);
		shell_word(mem, argv[i]);
	}
	if (fclose(mem) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int nt_cmd_run(int argc, char **argv)
{
	struct run_cmd *rc = calloc(1, sizeof(*rc));
	int code;

	if (!rc) {
		fputs("nagle-trace: out of memory\n", stderr);
		return NT_EXIT_ENVIRONMENT;
	}
	rc->log_fd = -1;
	rc->command_line = command_line(argc, argv);
	if (nt_run_opts_parse(argc, argv, &rc->opt, &rc->err) < 0)
		code = nt_cmd_usage_error("run", rc->err.msg);
	else if (rc->opt.action == NT_CMD_HELP)
		code = nt_cmd_print_info(nt_run_opts_usage);
	else if (rc->opt.action == NT_CMD_VERSION)
		code = nt_cmd_print_info(nt_cmd_version);
	else if ((code = check_files(rc)) == NT_EXIT_OK)
		code = run(rc);
	for (unsigned i = 0; i < rc->n; i++) {
		nt_analysis_fini(&rc->an[i]);
		nt_runinfo_fini(&rc->ri[i]);
		nt_annot_fini(&rc->annot[i]);
	}
	free(rc->command_line);
	if (rc->log_fd >= 0)
		close(rc->log_fd);
	free(rc);
	return code;
}
