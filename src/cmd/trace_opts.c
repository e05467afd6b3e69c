// SPDX-License-Identifier: MIT
/*
 * trace_opts.c - the trace command's options (see nt/cmd/trace_opts.h), and
 * the parser predict's share (trace_opts_int.h, predict_opts.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nt/capture/capture.h"
#include "nt/cli.h"
#include "nt/clock.h"
#include "nt/cmd/trace_opts.h"
#include "nt/lab/lab.h"
#include "nt/model/verdict.h"
#include "nt/render/format.h"
#include "trace_opts_int.h"

static const struct option long_options[] = {
	EXCHANGE_OPTIONS,
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "expect", required_argument, NULL, OPT_EXPECT },
	{ "write", required_argument, NULL, 'w' },
	{ "capture", required_argument, NULL, OPT_CAPTURE },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "timings", no_argument, NULL, OPT_TIMINGS },
	{ "brief", no_argument, NULL, OPT_BRIEF },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "export-packetdrill", required_argument, NULL, OPT_EXPORT_PKT },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "step", no_argument, NULL, OPT_STEP },
	{ "capture-at", required_argument, NULL, OPT_CAPTURE_AT },
	{ 0 },
};

static const char usage_head[] =
	"usage: nagle-trace [trace] [options]\n"
	"       nagle-trace analyze [options] FILE... [filter expression]\n"
	"       nagle-trace run --target CMD --client CMD [options]\n"
	"       nagle-trace predict [options]\n"
	"       nagle-trace kernels --kernel IMAGE[,IMAGE...] [options] [trace options]\n"
	"       nagle-trace completion bash\n"
	"\n"
	"Build a private client and target network namespace joined by a veth pair, run a\n"
	"write-write-read exchange between them while capturing, print a per-segment\n"
	"timeline per round and check the causal order header -> pure ACK -> body.\n"
	"Needs CAP_SYS_ADMIN and CAP_NET_ADMIN: run it as 'unshare -Urn nagle-trace'.\n"
	"\n"
	"exchange:\n"
	"  --rounds N           request/response rounds (default 4, 1..1000000)\n"
	"  --header B           bytes of the first write (default 4, 1..16777216)\n"
	"  --body B             bytes of the second write (default 8, 1..16777216)\n"
	"  --reply B            bytes of the reply (default 2, 1..16777216)\n"
	"  --pause MS           client pause between rounds (default 0)\n"
	"  --handler-ms MS      server think time before replying (default 0)\n"
	"  --write-gap-ms MS    client pause between its two writes (default 0)\n"
	"  --variant LIST       comma-separated variants, or all (default \"default\"); each\n"
	"                       runs in its own fresh lab:\n";

static const char usage_tail[] =
	"  --compare A,B        run variants A and B and draw them side by side on one\n"
	"                       time axis (svg, html); elsewhere as --variant A,B\n"
	"  --rtt MS             round-trip time of the path, half each way, added by a\n"
	"                       user-space delay line in a middle namespace (0..10000,\n"
	"                       to the microsecond: 0.5; default 0: the bare veth pair)\n"
	"  --ipv6               use 2001:db8::1 and 2001:db8::2 instead of 192.0.2.1 and .2\n"
	"  --pingpong-thresh N  the target's net.ipv4.tcp_pingpong_thresh (1..255)\n"
	"  --timeout MS         a round taking longer is an error (default 2000)\n"
	"\n"
	"verdicts:\n"
	"  --threshold MS       header->ACK gap that counts as a stall (default 10)\n"
	"  --expect V           auto|stalled|held|unheld|coalesced|any (default auto: every\n"
	"                       round as the model of the kernel's decisions predicts it;\n"
	"                       stalled: round 1 not stalled and every later round stalled;\n"
	"                       held, unheld, coalesced: every round after the first)\n"
	"\n"
	"output:\n";

static const char usage_output[] =
	"  -o, --output FILE    write the report to FILE (complete or not at all)\n"
	"  -w, --write FILE     write the captured frames of the connection to FILE (pcap,\n"
	"                       nanosecond timestamps); with several variants, one file\n"
	"                       each, the variant's name before the extension (x-nodelay.pcap);\n"
	"                       a name ending in .pcapng writes pcapng with each round's H,\n"
	"                       A and B commented and the summary as the file's comment\n"
	"  --export-packetdrill FILE  the first stalled round (else the last) as a packetdrill\n"
	"                       script from the client's side (see nagle-trace(1), EXPORTS)\n"
	"  --summary            one line per round instead of the full timeline\n"
	"  --step               on a terminal: pause after each round until a key is pressed\n"
	"                       (the client waits; no clock runs)\n"
	"  --brief              the summary alone (text; a million rounds, one screen)\n"
	"  --explain            under every header, ACK, body and reply: the kernel rule that\n"
	"                       decided it, as the model predicts it (text; JSON always has it)\n"
	"  --timings            where the run's time went (lab, capture, exchange, close), on\n"
	"                       standard error; always in JSON as summary.timings\n"
	"  --color WHEN         auto|always|never (default auto; NO_COLOR is honoured)\n"
	"  --capture-at SIDE    client|target: the end of the path the capture runs at\n"
	"                       (default client; with --rtt the target sees the stall\n"
	"                       as the receiver does)\n"

	"  --capture B          capture back end: packet (raw AF_PACKET) or pcap (libpcap's\n"
	"                       ring); both give the same frames and timestamps. Default:\n"
	"                       packet, pcap for rounds over 2 MiB (a packet socket's buffer\n"
	"                       is capped by net.core.rmem_max inside a user namespace)\n"
	"  -h, --help           this text\n"
	"  --version            versions of nagle-trace, libpcap and libmnl\n"
	"\n"
	"exit status:\n"
	"  0  the expectation held\n"
	"  1  it did not, or the capture dropped frames so it cannot be confirmed\n"
	"  2  usage error\n"
	"  3  environment error: no privileges for namespaces, a lab or exchange step failed\n"
	"  4  a file could not be written\n"
	"  130, 143  interrupted by SIGINT, SIGTERM (what was captured is still reported)\n";

const struct option *nt_trace_opts_table(void)
{
	return long_options;
}

void nt_trace_opts_usage(FILE *out)
{
	const struct nt_variant *v;
	char names[128];
	unsigned n;

	fputs(usage_head, out);
	v = nt_variant_all(&n);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "                         %-15s %s\n", v[i].name, v[i].summary);
	fputs(usage_tail, out);
	fprintf(out, "  --format F           %s (default text)\n",
		nt_format_names(NT_FORMAT_TRACE, names, sizeof(names)));
	fputs(usage_output, out);
}

static void defaults(struct nt_trace_opts *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->trace.variant = nt_variant_find("default");
	opt->trace.shape = (struct nt_shape){
		.header_bytes = 4,
		.body_bytes = 8,
		.reply_bytes = 2,
		.rounds = 4,
	};
	opt->trace.threshold_ns = NT_VERDICT_THRESHOLD_NS_DEFAULT;
	opt->trace.timeout_ns = 2000 * NT_NS_PER_MS;
	/* NULL: the live run picks the back end for the round's size (nt_trace_capture()). */
	opt->trace.capture = NULL;
	opt->out.format = "text";
	opt->out.color = NT_COLOR_AUTO;
}

static int parse_bytes(const char *name, const char *text, uint32_t *out, struct nt_err *err)
{
	uint64_t v = 0;
	int ret = nt_cli_parse_uint(name, text, 1, NT_TRACE_BYTES_MAX, &v, err);

	if (ret == 0)
		*out = (uint32_t)v;
	return ret;
}

static int add_variant(struct nt_trace_opts *opt, const struct nt_variant *v, const char *name,
		       struct nt_err *err)
{
	for (unsigned i = 0; i < opt->n_variants; i++)
		if (opt->variants[i] == v)
			return nt_err_set(err, 0, "--variant: \"%s\" named twice", name);
	if (opt->n_variants == NT_TRACE_VARIANTS_MAX)
		return nt_err_set(err, 0, "--variant: too many variants");
	opt->variants[opt->n_variants++] = v;
	return 0;
}

/* "--variant a,b,c" or "--variant all"; names are checked here, each at most once. */
static int parse_variants(const char *arg, struct nt_trace_opts *opt, struct nt_err *err)
{
	const char *p = arg;

	opt->n_variants = 0;
	if (strcmp(arg, "all") == 0) {
		unsigned n;
		const struct nt_variant *all = nt_variant_all(&n);

		for (unsigned i = 0; i < n && i < NT_TRACE_VARIANTS_MAX; i++)
			opt->variants[opt->n_variants++] = &all[i];
		return 0;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const struct nt_variant *v = NULL;
		char name[64];
		int ret;

		if (len == 0)
			return nt_err_set(err, 0, "--variant: empty variant name in \"%s\"", arg);
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (len < sizeof(name))
			v = nt_variant_find(name);
		if (!v)
			return nt_err_set(err, 0,
					  "--variant: unknown variant \"%.*s\" (try --variant all, "
					  "or see --help)",
					  (int)len, p);
		ret = add_variant(opt, v, name, err);
		if (ret < 0 || !comma)
			return ret;
		p = comma + 1;
	}
}

/* The options that shape the exchange; 1 when @c is none of them. */
static int parse_exchange(int c, const char *name, const char *arg, struct nt_trace_opts *opt,
			  struct nt_err *err)
{
	struct nt_trace_config *t = &opt->trace;
	uint64_t v = 0;
	int ret;

	switch (c) {
	case OPT_ROUNDS:
		ret = nt_cli_parse_uint(name, arg, 1, NT_TRACE_ROUNDS_MAX, &v, err);
		t->shape.rounds = (unsigned)v;
		return ret;
	case OPT_HEADER:
		return parse_bytes(name, arg, &t->shape.header_bytes, err);
	case OPT_BODY:
		return parse_bytes(name, arg, &t->shape.body_bytes, err);
	case OPT_REPLY:
		return parse_bytes(name, arg, &t->shape.reply_bytes, err);
	case OPT_PAUSE:
		return nt_cli_parse_ms(name, arg, 0, &t->pause_ns, err);
	case OPT_TIMEOUT:
		return nt_cli_parse_ms(name, arg, 10, &t->timeout_ns, err);
	case OPT_HANDLER:
		return nt_cli_parse_ms(name, arg, 0, &t->handler_ns, err);
	case OPT_WRITE_GAP:
		return nt_cli_parse_ms(name, arg, 0, &t->write_gap_ns, err);
	case OPT_PINGPONG:
		ret = nt_cli_parse_uint(name, arg, 1, 255, &v, err);
		t->pingpong_thresh = (int)v;
		return ret;
	case OPT_IPV6:
		t->ipv6 = true;
		return 0;
	case OPT_RTT:
		return nt_cmd_parse_rtt(name, arg, &t->rtt_ns, err);
	case OPT_VARIANT:
		if (opt->compare)
			return nt_err_set(err, 0, "--variant and --compare both name variants");
		opt->variant_set = true;
		return parse_variants(arg, opt, err);
	case OPT_COMPARE:
		if (opt->variant_set)
			return nt_err_set(err, 0, "--variant and --compare both name variants");
		opt->compare = true;
		ret = parse_variants(arg, opt, err);
		if (ret == 0 && opt->n_variants != 2)
			return nt_err_set(err, 0, "--compare: \"%s\" is not two variants (A,B)",
					  arg);
		return ret;
	}
	return 1;
}

/* The options that shape the report; 1 when @c is none of them. */
static int parse_output(int c, const char *name, const char *arg, struct nt_trace_opts *opt,
			struct nt_err *err)
{
	struct nt_cmd_output *o = &opt->out;
	char names[128];

	switch (c) {
	case OPT_FORMAT:
		if (!nt_format_find(arg, NT_FORMAT_TRACE))
			return nt_err_set(err, 0, "--format: unknown format \"%s\" (%s)", arg,
					  nt_format_names(NT_FORMAT_TRACE, names, sizeof(names)));
		o->format = arg;
		return 0;
	case 'o':
		return nt_cli_parse_path("--output", arg, &o->path, err);
	case 'w':
		return nt_cli_parse_path("--write", arg, &o->pcap_path, err);
	case OPT_COLOR:
		return nt_cmd_parse_color(name, arg, &o->color, err);
	case OPT_SUMMARY:
		o->summary_only = true;
		return 0;
	case OPT_BRIEF:
		o->brief = true;
		return 0;
	case OPT_EXPLAIN:
		o->explain = true;
		return 0;
	case OPT_TIMINGS:
		o->timings = true;
		return 0;
	case OPT_STEP:
		opt->step = true;
		return 0;
	case OPT_EXPORT_PKT:
		return nt_cli_parse_path("--export-packetdrill", arg, &opt->pkt_path, err);
	}
	return 1;
}

static int parse_one(int c, const struct nt_cli *cli, struct nt_trace_opts *opt, struct nt_err *err)
{
	struct nt_trace_config *t = &opt->trace;
	const char *arg = cli->arg;
	int ret = parse_exchange(c, cli->name, arg, opt, err);

	if (ret <= 0)
		return ret;
	ret = parse_output(c, cli->name, arg, opt, err);
	if (ret <= 0)
		return ret;
	switch (c) {
	case OPT_THRESHOLD:
		return nt_cli_parse_ms(cli->name, arg, 1, &t->threshold_ns, err);
	case OPT_EXPECT:
		if (nt_expect_parse(arg, &t->expect) < 0)
			return nt_err_set(err, 0,
					  "--expect: unknown verdict \"%s\" "
					  "(auto|stalled|held|unheld|coalesced|any)",
					  arg);
		return 0;
	case OPT_CAPTURE_AT:
		if (nt_lab_side_parse(arg, &t->capture_at) < 0)
			return nt_err_set(err, 0,
					  "--capture-at: unknown side \"%s\" (client|target)", arg);
		return 0;
	case OPT_CAPTURE:
		t->capture = nt_capture_backend(arg);
		if (!t->capture && strcmp(arg, "auto") != 0)
			return nt_err_set(err, 0, "--capture: unknown back end \"%s\" (%s)", arg,
					  nt_capture_backend_names());
		return 0;
	case OPT_KERNEL:
		if (nt_kernel_version_parse(arg, &opt->kernel) < 0)
			return nt_err_set(
				err, 0,
				"--kernel: \"%s\" is not a kernel release (6.18, 5.15.0-91)", arg);
		opt->kernel_set = true;
		return 0;
	case OPT_HZ: {
		uint64_t hz = 0;

		ret = nt_cli_parse_uint(cli->name, arg, 24, 10000, &hz, err);
		opt->hz = (unsigned)hz;
		return ret;
	}
	}
	return nt_cmd_parse_action(c, OPT_VERSION, cli->name, &opt->action, err);
}

/* Every cross-option rule in one place. */
static int validate(struct nt_trace_opts *opt, bool predict, struct nt_err *err)
{
	struct nt_trace_config *t = &opt->trace;
	const struct nt_shape *s = &t->shape;
	uint64_t request = (uint64_t)s->header_bytes + s->body_bytes;

	if (request * s->rounds >= NT_TRACE_STREAM_BYTES_MAX ||
	    (uint64_t)s->reply_bytes * s->rounds >= NT_TRACE_STREAM_BYTES_MAX)
		return nt_err_set(err, 0,
				  "--rounds %u with %llu request and %u reply bytes is over 2 GiB "
				  "per direction",
				  s->rounds, (unsigned long long)request, s->reply_bytes);
	/* A prediction has no round timeout to fit in. */
	if (!predict && t->write_gap_ns + t->handler_ns + t->pause_ns >= t->timeout_ns)
		return nt_err_set(err, 0,
				  "--timeout %lld ms is shorter than the pauses it has to cover",
				  (long long)(t->timeout_ns / NT_NS_PER_MS));
	/* A round held by Nagle takes two round trips at the least: header->ACK, body->reply. */
	if (t->rtt_ns > 0 && 2 * t->rtt_ns + t->write_gap_ns + t->handler_ns >= t->timeout_ns)
		return nt_err_set(err, 0,
				  "--timeout %lld ms is shorter than two round trips of --rtt and "
				  "the pauses",
				  (long long)(t->timeout_ns / NT_NS_PER_MS));
	if (opt->n_variants == 0)
		opt->variants[opt->n_variants++] = nt_variant_find("default");
	t->variant = opt->variants[0];
	/* --step reads its keys from a terminal; without one it would wait forever or never. */
	if (opt->step && !isatty(STDIN_FILENO))
		return nt_err_set(err, 0, "--step: standard input is not a terminal");
	/* -o and -w naming one file, however spelled, is refused by the command (cmd/trace.c). */
	return 0;
}

int nt_trace_opts_parse_table(int argc, char **argv, const struct option *table, const char *shorts,
			      bool predict, struct nt_trace_opts *opt, struct nt_err *err)
{
	struct nt_cli cli;
	int c;

	defaults(opt);
	if (nt_cli_start(&cli, argc, argv, shorts, table, false, err) < 0)
		return -EINVAL;
	while ((c = nt_cli_next(&cli, err)) != NT_CLI_END) {
		if (c == NT_CLI_REFUSED || parse_one(c, &cli, opt, err) < 0)
			return -EINVAL;
	}
	if (nt_cli_rest(&cli) < argc)
		return nt_err_set(err, 0, "unexpected argument \"%s\"", argv[nt_cli_rest(&cli)]);
	if (opt->action != NT_CMD_RUN)
		return 0;
	return validate(opt, predict, err) < 0 ? -EINVAL : 0;
}

int nt_trace_opts_parse(int argc, char **argv, struct nt_trace_opts *opt, struct nt_err *err)
{
	return nt_trace_opts_parse_table(argc, argv, long_options, "ho:w:", false, opt, err);
}
