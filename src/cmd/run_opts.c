// SPDX-License-Identifier: MIT
/*
 * run_opts.c - the options of `nagle-trace run` (see nt/cmd/run_opts.h).
 */
#include <errno.h>
#include <regex.h>
#include <string.h>

#include "nt/cli.h"
#include "nt/clock.h"
#include "nt/cmd/run_opts.h"
#include "nt/cmd/stall_opts.h"
#include "nt/live/procs.h"
#include "nt/render/format.h"
#include "nt/render/run.h"

static const char usage_head[] =
	"usage: unshare -Urn nagle-trace run --target CMD --client CMD [options]\n"
	"\n"
	"Run your own server and client in a private lab (a client and a target network\n"
	"namespace joined by a veth pair, in a PID namespace of ours: nothing outlives\n"
	"the run) and find every Nagle/delayed-ACK stall between them, as analyze does,\n"
	"with what only a live run knows: the namespaces' delayed-ACK counters, the\n"
	"target socket's ping-pong mode and ato, and the fixes that need no code change.\n"
	"Each command runs through /bin/sh -c with your directory, user and environment\n"
	"plus NT_CLIENT_ADDR, NT_TARGET_ADDR (and NT_TARGET_PORT once the target\n"
	"listens); the names `client` and `target` resolve to them. See run.md in the\n"
	"documentation (share/doc/nagle-trace, or docs/ in the source).\n"
	"\n"
	"options:\n"
	"  --target CMD        the server, started first, in the target namespace\n"
	"  --client CMD        the client, started once the target listens\n"
	"  --wait-port N       start the client when the target listens on port N\n"
	"                      (default: on its first new listening socket)\n"
	"  --ready CMD         once the target listens, run CMD in the client namespace\n"
	"                      until it exits 0, then start the client\n"
	"                      (e.g. 'pg_isready -h target')\n"
	"  --ready-log REGEX   start the client once a line of the target's output\n"
	"                      matches REGEX (POSIX extended)\n"
	"  --listen-timeout S  how long the target may take to listen and be ready\n"
	"                      (default 10)\n"
	"  --timeout S         the whole run, per fix (default 60)\n"
	"  --target-log FILE   the target's output to FILE, as it comes (default:\n"
	"                      standard error, each line prefixed \"target: \")\n"
	"  --fix LIST          comma-separated, each in a fresh lab, then a comparison:\n"
	"                        none            the programs as they are (default)\n"
	"                        nodelay         TCP_NODELAY on the client's sockets\n"
	"                                        (LD_PRELOAD; dynamically linked programs)\n"
	"                        nodelay-target  the same for the target's sockets\n"
	"                        quickack        the target's route: quickack 1\n"
	"                        rto-min=MS      the target's route: rto_min lock MS ms,\n"
	"                                        which caps the delayed-ACK timer (>= 6.7)\n"
	"  --ipv6              the lab speaks IPv6 (2001:db8::/64)\n"
	"  --rtt MS            a path with this round-trip time (0.001 to 10000, half each\n"
	"                      way, the lab's user-space delay line; default 0)\n"
	"  --capture B         capture back end: packet (default), pcap, or none (no\n"
	"                      capture, no analysis: to measure what the capture costs)\n"
	"  -w, --write FILE    the captured frames to FILE (pcap); with several fixes,\n"
	"                      one file per fix, the fix's name before the extension\n"
	"                      (run.pcap -> run-nodelay.pcap, "
	"run-rto-min-5.pcap)\n" NT_STALL_OPTS_HELP;

static const char usage_tail[] =
	"  -o, --output FILE   write the report to FILE (complete or absent); with the\n"
	"                      report on standard output, the client's standard output\n"
	"                      goes to standard error\n"
	"  --brief             the run and the summary alone, no flow blocks (text)\n"
	"  --fail-on-stall     exit 1 when any run stalled (or dropped frames)\n"
	"  -h, --help          this text\n"
	"  --version           versions of nagle-trace and its libraries\n"
	"\n"
	"exit status: 0 the client exited 0 under every fix (stalls are findings),\n"
	"1 --fail-on-stall and a stall (or a capture that dropped frames), 2 usage,\n"
	"3 the target never listened, the client failed or a timeout hit (the report\n"
	"of what was captured is still written), or a step of the lab failed, 4 a file\n"
	"could not be written, 130/143 SIGINT/SIGTERM (the report is still written)\n";

void nt_run_opts_usage(FILE *out)
{
	fputs(usage_head, out);
	nt_cmd_usage_format(
		out, NT_FORMAT_ANALYSIS,
		"                      (default text; several fixes: all but svg; markdown\n"
		"                      and html are the incident report)\n");
	fputs(usage_tail, out);
}

enum {
	OPT_TARGET = 256,
	OPT_CLIENT,
	OPT_WAIT_PORT,
	OPT_READY,
	OPT_READY_LOG,
	OPT_LISTEN_TIMEOUT,
	OPT_TIMEOUT,
	OPT_TARGET_LOG,
	OPT_FIX,
	OPT_IPV6,
	OPT_RTT,
	OPT_CAPTURE,
	OPT_FORMAT,
	OPT_BRIEF,
	OPT_FAIL_ON_STALL,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "client", required_argument, NULL, OPT_CLIENT },
	{ "wait-port", required_argument, NULL, OPT_WAIT_PORT },
	{ "ready", required_argument, NULL, OPT_READY },
	{ "ready-log", required_argument, NULL, OPT_READY_LOG },
	{ "listen-timeout", required_argument, NULL, OPT_LISTEN_TIMEOUT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "target-log", required_argument, NULL, OPT_TARGET_LOG },
	{ "fix", required_argument, NULL, OPT_FIX },
	{ "ipv6", no_argument, NULL, OPT_IPV6 },
	{ "rtt", required_argument, NULL, OPT_RTT },
	{ "capture", required_argument, NULL, OPT_CAPTURE },
	{ "write", required_argument, NULL, 'w' },
	NT_STALL_LONG_OPTS,
	NT_CMD_REPORT_LONG_OPTS(OPT_FORMAT),
	{ "brief", no_argument, NULL, OPT_BRIEF },
	{ "fail-on-stall", no_argument, NULL, OPT_FAIL_ON_STALL },
	NT_CMD_ACTION_LONG_OPTS(OPT_VERSION),
	{ NULL, 0, NULL, 0 },
};

const struct option *nt_run_opts_table(void)
{
	return long_opts;
}

/* Seconds with up to three decimals ("0.5"), as nanoseconds. */
static int parse_seconds(const struct nt_cli *cli, uint64_t max_ms, int64_t *out_ns,
			 struct nt_err *err)
{
	uint64_t ms;
	int ret = nt_cli_parse_decimal(cli->name, cli->arg, 3, 1, max_ms, &ms, err);

	if (ret == 0)
		*out_ns = (int64_t)ms * NT_NS_PER_MS;
	return ret;
}

static int parse_path(const struct nt_cli *cli, const char **out, struct nt_err *err)
{
	if (!*cli->arg)
		return nt_err_set(err, 0, "%s: an empty file name", cli->name);
	*out = cli->arg;
	return 0;
}

static int parse_command(const struct nt_cli *cli, const char **out, struct nt_err *err)
{
	if (!cli->arg[strspn(cli->arg, " \t\n")])
		return nt_err_set(err, 0, "%s: an empty command", cli->name);
	*out = cli->arg;
	return 0;
}

/* Compiled once here only to refuse a bad one as a usage error; procs compiles its own. */
static int parse_regex(const struct nt_cli *cli, const char **out, struct nt_err *err)
{
	regex_t re;
	int rc = regcomp(&re, cli->arg, REG_EXTENDED | REG_NOSUB);

	if (rc != 0) {
		char why[128];

		regerror(rc, &re, why, sizeof(why));
		return nt_err_set(err, 0, "%s: \"%s\" is not a regular expression (%s)", cli->name,
				  cli->arg, why);
	}
	regfree(&re);
	*out = cli->arg;
	return 0;
}

static int parse_capture(const struct nt_cli *cli, struct nt_run_opts *o, struct nt_err *err)
{
	if (strcmp(cli->arg, "none") == 0) {
		o->capture = NULL;
		return 0;
	}
	o->capture = nt_capture_backend(cli->arg);
	if (!o->capture)
		return nt_err_set(err, 0, "--capture: unknown back end \"%s\" (%s|none)", cli->arg,
				  nt_capture_backend_names());
	return 0;
}

static int parse_one(int c, const struct nt_cli *cli, struct nt_run_opts *o, struct nt_err *err)
{
	uint64_t v;
	int ret = nt_stall_opts_parse(c, cli, &o->params, err);

	if (ret <= 0)
		return ret;
	switch (c) {
	case OPT_TARGET:
		return parse_command(cli, &o->job.target_cmd, err);
	case OPT_CLIENT:
		return parse_command(cli, &o->job.client_cmd, err);
	case OPT_READY:
		return parse_command(cli, &o->job.ready_cmd, err);
	case OPT_READY_LOG:
		return parse_regex(cli, &o->job.ready_log, err);
	case OPT_WAIT_PORT:
		ret = nt_cli_parse_uint(cli->name, cli->arg, 1, 65535, &v, err);
		o->job.wait_port = (uint16_t)v;
		return ret;
	case OPT_LISTEN_TIMEOUT:
		return parse_seconds(cli, NT_RUN_LISTEN_TIMEOUT_MS_MAX, &o->job.listen_timeout_ns,
				     err);
	case OPT_TIMEOUT:
		return parse_seconds(cli, NT_RUN_TIMEOUT_MS_MAX, &o->job.run_timeout_ns, err);
	case OPT_TARGET_LOG:
		return parse_path(cli, &o->target_log, err);
	case OPT_FIX:
		return nt_fix_parse_list(cli->arg, o->fixes, &o->n_fixes, err);
	case OPT_IPV6:
		o->ipv6 = true;
		return 0;
	case OPT_RTT:
		return nt_cmd_parse_rtt(cli->name, cli->arg, &o->rtt_ns, err);
	case OPT_CAPTURE:
		return parse_capture(cli, o, err);
	case 'w':
		return parse_path(cli, &o->out.pcap_path, err);
	case 'o':
		return parse_path(cli, &o->out.path, err);
	case OPT_FORMAT:
		o->out.format = cli->arg;
		return 0;
	case OPT_BRIEF:
		o->out.brief = true;
		return 0;
	case OPT_FAIL_ON_STALL:
		o->fail_on_stall = true;
		return 0;
	}
	return nt_cmd_parse_action(c, OPT_VERSION, cli->name, &o->action, err);
}

/* Every rule that needs the whole command line. */
static int validate(const struct nt_run_opts *o, struct nt_err *err)
{
	if (!o->job.target_cmd || !o->job.client_cmd)
		return nt_err_set(err, 0, "run needs both --target CMD and --client CMD");
	if (nt_cmd_check_format(o->out.format, NT_FORMAT_ANALYSIS, err) < 0)
		return -EINVAL;
	if (!nt_run_reports_supports(o->out.format, o->n_fixes))
		return nt_err_set(err, 0,
				  "--format %s holds one run: give one --fix, or text, json, "
				  "jsonl, markdown or html",
				  o->out.format);
	if (!o->capture && o->out.pcap_path)
		return nt_err_set(err, 0, "--write: nothing to write with --capture none");
	if (o->n_fixes > 1 && o->out.pcap_path && strcmp(o->out.pcap_path, "-") == 0)
		return nt_err_set(err, 0,
				  "--write -: several fixes write one pcap file each, "
				  "which standard output cannot hold; give a file name");
	return 0;
}

int nt_run_opts_parse(int argc, char **argv, struct nt_run_opts *o, struct nt_err *err)
{
	struct nt_cli cli;
	int c, ret;

	memset(o, 0, sizeof(*o));
	nt_procs_job_init(&o->job);
	o->out.format = "text";
	o->capture = nt_capture_backend("packet");
	o->n_fixes = 1;
	snprintf(o->fixes[0].name, sizeof(o->fixes[0].name), "none");
	snprintf(o->fixes[0].slug, sizeof(o->fixes[0].slug), "none");
	nt_stall_opts_defaults(&o->params);
	ret = nt_cli_start(&cli, argc, argv, "ho:w:", long_opts, true, err);
	while (!ret && (c = nt_cli_next(&cli, err)) != NT_CLI_END) {
		if (c == NT_CLI_REFUSED)
			ret = -EINVAL;
		else if (c == NT_CLI_POSITIONAL)
			ret = nt_err_set(err, 0,
					 "unexpected argument \"%s\": the commands go in --target "
					 "CMD and --client CMD (quoted)",
					 cli.arg);
		else
			ret = parse_one(c, &cli, o, err);
	}
	if (!ret && o->action == NT_CMD_RUN)
		ret = validate(o, err);
	return ret ? -EINVAL : 0;
}
