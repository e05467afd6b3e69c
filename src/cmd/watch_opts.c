// SPDX-License-Identifier: MIT
/*
 * watch_opts.c - nagle-trace watch's options (see nt/cmd/watch_opts.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/cli.h"
#include "nt/clock.h"
#include "nt/cmd/watch_opts.h"

static const char usage_text[] =
	"usage: nagle-trace watch [-i IFACE] [-c N] [--duration S] [--format text|jsonl]\n"
	"                         [options] [filter expression]\n"
	"\n"
	"Name Nagle/delayed-ACK stalls on this host as they happen. Captures with libpcap\n"
	"on IFACE (default: any) with a kernel filter for TCP and the pcap-filter(7)\n"
	"expression that ends the line (watch port 5432), runs every frame through the\n"
	"stall rule of analyze, and prints each stall the moment it is found: time, flow,\n"
	"the bytes held behind which segment, the ACK delay and its timer, and for each\n"
	"end on this host the process (pid, command) and its socket's kernel state read\n"
	"right after the stall (sock_diag tcp_info: rtt, ato, unacked, notsent;\n"
	"/proc/PID/net/tcp: ping-pong, quick-ACK budget). TCP_NODELAY, TCP_CORK and\n"
	"TCP_QUICKACK cannot be read from outside a process. Ctrl-C, -c or --duration\n"
	"ends it with a summary per process and per flow, and the capture's drops.\n"
	"\n"
	"Read-only: watch changes nothing on the host (no sysctl, route, qdisc, socket\n"
	"option, file); it reads the capture, sock_diag and /proc. It needs CAP_NET_RAW\n"
	"to capture: without it, one line and exit 3. To name processes of other users\n"
	"it needs CAP_SYS_PTRACE, and to look into the network namespaces of containers\n"
	"on this host (a sock_diag socket made inside each), CAP_SYS_ADMIN; without\n"
	"them it runs and says which ends it could not see (root has all three).\n"
	"\n"
	"options:\n"
	"  -i IFACE            interface to capture on (default any)\n"
	"  -c N                stop after N frames\n"
	"  --duration S        stop after S seconds (decimals allowed: 2.5)\n"
	"  --format FMT        text (a line per stall, default) or jsonl (a record per\n"
	"                      stall and a summary record: nagle-trace-watch.schema.json)\n"
	"  -n                  accepted for tcpdump habits: addresses are always "
	"numeric\n" NT_STALL_OPTS_HELP "  -h, --help          this text\n"
	"  --version           versions of nagle-trace and its libraries\n"
	"\n"
	"exit status: 0 ended by -c or --duration with nothing dropped, 1 the capture\n"
	"dropped frames (stalls may be missing), 2 usage, 3 environment or privilege:\n"
	"no CAP_NET_RAW, no such interface, or the interface went away (the summary is\n"
	"still printed), 4 the output could not be written, 130/143 stopped by\n"
	"SIGINT/SIGTERM (summary printed)\n";

void nt_watch_opts_usage(FILE *out)
{
	fputs(usage_text, out);
}

enum {
	OPT_FORMAT = 256,
	OPT_DURATION,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	NT_STALL_LONG_OPTS,
	{ "interface", required_argument, NULL, 'i' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	NT_CMD_ACTION_LONG_OPTS(OPT_VERSION),
	{ NULL, 0, NULL, 0 },
};

const struct option *nt_watch_opts_table(void)
{
	return long_opts;
}

static int parse_one(int c, const struct nt_cli *cli, struct nt_watch_opts *o, struct nt_err *err)
{
	int ret = nt_stall_opts_parse(c, cli, &o->params, err);
	uint64_t v = 0;

	if (ret <= 0)
		return ret;
	switch (c) {
	case 'i':
		if (!*cli->arg)
			return nt_err_set(err, 0, "-i: an empty interface name");
		o->ifname = cli->arg;
		return 0;
	case 'c':
		return nt_cli_parse_uint(cli->name, cli->arg, 1, UINT64_MAX, &o->max_packets, err);
	case 'n':
		return 0;
	case OPT_DURATION:
		ret = nt_cli_parse_decimal(cli->name, cli->arg, 3, 1, NT_WATCH_DURATION_MS_MAX, &v,
					   err);
		o->duration_ns = (int64_t)v * NT_NS_PER_MS;
		return ret;
	case OPT_FORMAT:
		if (strcmp(cli->arg, "text") != 0 && strcmp(cli->arg, "jsonl") != 0)
			return nt_err_set(err, 0, "--format: \"%s\" is not one of text|jsonl",
					  cli->arg);
		o->jsonl = strcmp(cli->arg, "jsonl") == 0;
		return 0;
	}
	return nt_cmd_parse_action(c, OPT_VERSION, cli->name, &o->action, err);
}

/* The user's words, joined with spaces, and the kernel's filter around them. */
static int join_filter(struct nt_watch_opts *o, char **words, size_t n, struct nt_err *err)
{
	size_t len = 1, at = 0;

	for (size_t i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	if (n) {
		o->filter = calloc(1, len);
		if (!o->filter)
			return nt_err_set(err, -ENOMEM, "filter expression");
		for (size_t i = 0; i < n; i++) {
			size_t w = strlen(words[i]);

			if (i)
				o->filter[at++] = ' ';
			memcpy(o->filter + at, words[i], w + 1);
			at += w;
		}
	}
	o->kernel_filter = calloc(1, len + 16);
	if (!o->kernel_filter)
		return nt_err_set(err, -ENOMEM, "filter expression");
	if (o->filter)
		snprintf(o->kernel_filter, len + 16, "tcp and (%s)", o->filter);
	else
		snprintf(o->kernel_filter, len + 16, "tcp");
	return 0;
}

int nt_watch_opts_parse(int argc, char **argv, struct nt_watch_opts *o, struct nt_err *err)
{
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	size_t n_words = 0;
	struct nt_cli cli;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->ifname = "any";
	nt_stall_opts_defaults(&o->params);
	if (!words)
		return nt_err_set(err, -ENOMEM, "command line");
	ret = nt_cli_start(&cli, argc, argv, "hi:c:n", long_opts, true, err);
	while (!ret && (c = nt_cli_next(&cli, err)) != NT_CLI_END) {
		if (c == NT_CLI_REFUSED)
			ret = -EINVAL;
		else if (c == NT_CLI_POSITIONAL)
			words[n_words++] = (char *)cli.arg;
		else
			ret = parse_one(c, &cli, o, err);
	}
	if (!ret && o->action == NT_CMD_RUN)
		ret = join_filter(o, words, n_words, err);
	free(words);
	return ret == -ENOMEM ? ret : ret ? -EINVAL : 0;
}

void nt_watch_opts_fini(struct nt_watch_opts *o)
{
	free(o->filter);
	free(o->kernel_filter);
	o->filter = o->kernel_filter = NULL;
}
