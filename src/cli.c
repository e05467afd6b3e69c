// SPDX-License-Identifier: MIT
/*
 * cli.c - option parsing and validation (see nt/cli.h).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "nt/capture/capture.h"
#include "nt/clock.h"
#include "nt/cli.h"
#include "nt/render/render.h"

enum {
	OPT_ROUNDS = 256,
	OPT_HEADER,
	OPT_BODY,
	OPT_REPLY,
	OPT_PAUSE,
	OPT_THRESHOLD,
	OPT_TIMEOUT,
	OPT_EXPECT,
	OPT_FORMAT,
	OPT_CAPTURE,
	OPT_COLOR,
	OPT_SUMMARY,
	OPT_VARIANT,
	OPT_HANDLER,
	OPT_WRITE_GAP,
	OPT_IPV6,
	OPT_PINGPONG,
	OPT_VERSION,
	OPT_TIMINGS,
};

static const struct option long_options[] = {
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "header", required_argument, NULL, OPT_HEADER },
	{ "body", required_argument, NULL, OPT_BODY },
	{ "reply", required_argument, NULL, OPT_REPLY },
	{ "pause", required_argument, NULL, OPT_PAUSE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "expect", required_argument, NULL, OPT_EXPECT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "write", required_argument, NULL, 'w' },
	{ "capture", required_argument, NULL, OPT_CAPTURE },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "variant", required_argument, NULL, OPT_VARIANT },
	{ "handler-ms", required_argument, NULL, OPT_HANDLER },
	{ "write-gap-ms", required_argument, NULL, OPT_WRITE_GAP },
	{ "ipv6", no_argument, NULL, OPT_IPV6 },
	{ "pingpong-thresh", required_argument, NULL, OPT_PINGPONG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "timings", no_argument, NULL, OPT_TIMINGS },
	{ 0 },
};

static const char usage[] =
	"usage: nagle-trace [trace] [options]\n"
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
	"                       runs in its own fresh lab:\n"
	"                         default         two write() calls, Nagle on\n"
	"                         nodelay         TCP_NODELAY on the client\n"
	"                         one-write       header and body in one write()\n"
	"                         writev          one writev() of two iovecs\n"
	"                         cork            TCP_CORK around the two writes\n"
	"                         msg-more        send(header, MSG_MORE), then send(body)\n"
	"                         quickack-once   the target sets TCP_QUICKACK once\n"
	"                         quickack-rearm  the target re-arms TCP_QUICKACK per read\n"
	"                         route-quickack  the target's route has quickack 1\n"
	"                         nodelay-server  TCP_NODELAY on the target (wrong side)\n"
	"                         autocork-off    net.ipv4.tcp_autocorking=0 on the client\n"
	"  --ipv6               use 2001:db8::1 and 2001:db8::2 instead of 192.0.2.1 and .2\n"
	"  --pingpong-thresh N  the target's net.ipv4.tcp_pingpong_thresh (1..255)\n"
	"  --timeout MS         a round taking longer is an error (default 2000)\n"
	"\n"
	"verdicts:\n"
	"  --threshold MS       header->ACK gap that counts as a stall (default 10)\n"
	"  --expect V           stalled|held|unheld|coalesced|any (default: the variant's;\n"
	"                       stalled means round 1 not stalled and every later round stalled)\n"
	"\n"
	"output:\n"
	"  --format F           text|json|markdown|svg|html (default text)\n"
	"  -o, --output FILE    write the report to FILE (complete or not at all)\n"
	"  -w, --write FILE     write the captured frames of the connection to FILE (pcap,\n"
	"                       nanosecond timestamps); with several variants, one file\n"
	"                       each, the variant's name before the extension (x-nodelay.pcap)\n"
	"  --summary            one line per round instead of the full timeline\n"
	"  --timings            where the run's time went (lab, capture, exchange, close), on\n"
	"                       standard error; always in JSON as summary.timings\n"
	"  --color WHEN         auto|always|never (default auto; NO_COLOR is honoured)\n"
	"  --capture B          capture back end: packet (raw AF_PACKET, the default) or\n"
	"                       pcap (libpcap); both give the same frames and timestamps\n"
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

const char *nt_cli_usage(void)
{
	return usage;
}

int nt_cli_parse_uint(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		      struct nt_err *err)
{
	char *end;
	unsigned long long v;

	if (!*text)
		return nt_err_set(err, 0, "%s: an empty value is not a number", name);
	for (const char *p = text; *p; p++)
		if (!isdigit((unsigned char)*p))
			return nt_err_set(err, 0, "%s: \"%s\" is not a number", name, text);
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno == ERANGE || v > max || v < min) {
		nt_err_set(err, 0, "%s: \"%s\" is out of range (%llu..%llu)", name, text,
			   (unsigned long long)min, (unsigned long long)max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}

static void defaults(struct nt_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->trace.variant = nt_variant_find("default");
	opt->trace.shape = (struct nt_shape){
		.header_bytes = 4,
		.body_bytes = 8,
		.reply_bytes = 2,
		.rounds = 4,
	};
	opt->trace.threshold_ns = 10 * NT_NS_PER_MS;
	opt->trace.timeout_ns = 2000 * NT_NS_PER_MS;
	/*
	 * The raw AF_PACKET back end is the default: it gives the same frames and
	 * timestamps as libpcap (tests/integration/test_evidence.sh compares
	 * them) and starts in ~0.03 ms instead of libpcap's ~25 ms activation
	 * (docs/performance.md).
	 */
	opt->trace.capture = nt_capture_backend("packet");
	opt->format = "text";
	opt->color = NT_COLOR_AUTO;
}

static int parse_ms(const char *name, const char *text, uint64_t min, int64_t *out_ns,
		    struct nt_err *err)
{
	uint64_t v = 0;
	int ret = nt_cli_parse_uint(name, text, min, NT_CLI_MS_MAX, &v, err);

	if (ret == 0)
		*out_ns = (int64_t)v * NT_NS_PER_MS;
	return ret;
}

static int parse_bytes(const char *name, const char *text, uint32_t *out, struct nt_err *err)
{
	uint64_t v = 0;
	int ret = nt_cli_parse_uint(name, text, 1, NT_CLI_BYTES_MAX, &v, err);

	if (ret == 0)
		*out = (uint32_t)v;
	return ret;
}

/* "--variant a,b,c" or "--variant all"; names are checked here, each at most once. */
static int parse_variants(const char *arg, struct nt_options *opt, struct nt_err *err)
{
	const char *p = arg;

	opt->n_variants = 0;
	if (strcmp(arg, "all") == 0) {
		unsigned n;
		const struct nt_variant *all = nt_variant_all(&n);

		for (unsigned i = 0; i < n && i < NT_CLI_VARIANTS_MAX; i++)
			opt->variants[opt->n_variants++] = &all[i];
		return 0;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		const struct nt_variant *v;

		if (len == 0)
			return nt_err_set(err, 0, "--variant: empty variant name in \"%s\"", arg);
		if (len >= sizeof(name))
			return nt_err_set(
				err, 0,
				"--variant: unknown variant \"%.*s\" (try --variant all, or "
				"see --help)",
				(int)len, p);
		memcpy(name, p, len);
		name[len] = '\0';
		v = nt_variant_find(name);
		if (!v)
			return nt_err_set(
				err, 0,
				"--variant: unknown variant \"%s\" (try --variant all, or "
				"see --help)",
				name);
		for (unsigned i = 0; i < opt->n_variants; i++)
			if (opt->variants[i] == v)
				return nt_err_set(err, 0, "--variant: \"%s\" named twice", name);
		if (opt->n_variants == NT_CLI_VARIANTS_MAX)
			return nt_err_set(err, 0, "--variant: too many variants");
		opt->variants[opt->n_variants++] = v;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int parse_one(int c, const char *arg, struct nt_options *opt, bool *expect_set,
		     struct nt_err *err)
{
	struct nt_trace_options *t = &opt->trace;
	uint64_t v = 0;
	int ret = 0;

	switch (c) {
	case OPT_ROUNDS:
		ret = nt_cli_parse_uint("--rounds", arg, 1, NT_CLI_ROUNDS_MAX, &v, err);
		if (ret == 0)
			t->shape.rounds = (unsigned)v;
		break;
	case OPT_HEADER:
		return parse_bytes("--header", arg, &t->shape.header_bytes, err);
	case OPT_BODY:
		return parse_bytes("--body", arg, &t->shape.body_bytes, err);
	case OPT_REPLY:
		return parse_bytes("--reply", arg, &t->shape.reply_bytes, err);
	case OPT_PAUSE:
		return parse_ms("--pause", arg, 0, &t->pause_ns, err);
	case OPT_THRESHOLD:
		return parse_ms("--threshold", arg, 1, &t->threshold_ns, err);
	case OPT_TIMEOUT:
		return parse_ms("--timeout", arg, 10, &t->timeout_ns, err);
	case OPT_HANDLER:
		return parse_ms("--handler-ms", arg, 0, &t->handler_ns, err);
	case OPT_WRITE_GAP:
		return parse_ms("--write-gap-ms", arg, 0, &t->write_gap_ns, err);
	case OPT_PINGPONG:
		ret = nt_cli_parse_uint("--pingpong-thresh", arg, 1, 255, &v, err);
		if (ret == 0)
			t->pingpong_thresh = (int)v;
		break;
	case OPT_IPV6:
		t->ipv6 = true;
		break;
	case OPT_EXPECT:
		if (nt_expect_parse(arg, &t->expect) < 0)
			return nt_err_set(err, 0,
					  "--expect: unknown verdict \"%s\" "
					  "(stalled|held|unheld|coalesced|any)",
					  arg);
		*expect_set = true;
		break;
	case OPT_VARIANT:
		return parse_variants(arg, opt, err);
	case OPT_FORMAT:
		if (!nt_format_find(arg))
			return nt_err_set(err, 0, "--format: unknown format \"%s\" (%s)", arg,
					  nt_format_names());
		opt->format = arg;
		break;
	case 'o':
		if (!*arg)
			return nt_err_set(err, 0, "--output: an empty file name");
		opt->output_path = arg;
		break;
	case 'w':
		if (!*arg)
			return nt_err_set(err, 0, "--write: an empty file name");
		opt->pcap_path = arg;
		break;
	case OPT_CAPTURE:
		t->capture = nt_capture_backend(arg);
		if (!t->capture)
			return nt_err_set(err, 0, "--capture: unknown back end \"%s\" (%s)", arg,
					  nt_capture_backend_names());
		break;
	case OPT_COLOR:
		if (strcmp(arg, "auto") == 0)
			opt->color = NT_COLOR_AUTO;
		else if (strcmp(arg, "always") == 0)
			opt->color = NT_COLOR_ALWAYS;
		else if (strcmp(arg, "never") == 0)
			opt->color = NT_COLOR_NEVER;
		else
			return nt_err_set(err, 0, "--color: \"%s\" is not auto, always or never",
					  arg);
		break;
	case OPT_SUMMARY:
		opt->summary_only = true;
		break;
	case OPT_TIMINGS:
		opt->timings = true;
		break;
	case 'h':
		opt->action = NT_CLI_HELP;
		break;
	case OPT_VERSION:
		opt->action = NT_CLI_VERSION;
		break;
	default:
		return nt_err_set(err, 0, "unknown option");
	}
	return ret;
}

/* Every cross-option rule in one place. */
static int validate(struct nt_options *opt, bool expect_set, struct nt_err *err)
{
	struct nt_trace_options *t = &opt->trace;
	const struct nt_shape *s = &t->shape;
	uint64_t request = (uint64_t)s->header_bytes + s->body_bytes;

	if (request * s->rounds >= NT_CLI_STREAM_BYTES_MAX ||
	    (uint64_t)s->reply_bytes * s->rounds >= NT_CLI_STREAM_BYTES_MAX)
		return nt_err_set(err, 0,
				  "--rounds %u with %llu request and %u reply bytes is over 2 GiB "
				  "per direction",
				  s->rounds, (unsigned long long)request, s->reply_bytes);
	if (t->write_gap_ns + t->handler_ns + t->pause_ns >= t->timeout_ns)
		return nt_err_set(err, 0,
				  "--timeout %lld ms is shorter than the pauses it has to cover",
				  (long long)(t->timeout_ns / NT_NS_PER_MS));
	if (opt->n_variants == 0)
		opt->variants[opt->n_variants++] = nt_variant_find("default");
	opt->expect_set = expect_set;
	t->variant = opt->variants[0];
	if (!expect_set)
		t->expect = t->variant->expect;
	/* -o and -w naming one file is refused by main.c through nt_output_same_file(). */
	return 0;
}

static const struct option *find_long(const char *name, size_t len)
{
	for (const struct option *o = long_options; o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

/*
 * getopt_long() accepts any unambiguous prefix ("--round 5"). Options are a
 * public interface: check every long option is spelled in full, and that a
 * flag is not given a value, before getopt sees them.
 */
static int check_long_options(int argc, char **argv, struct nt_err *err)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0)
			return 0;
		if (a[0] == '-' && a[1] != '-' && a[1] && strchr("ow", a[strlen(a) - 1]))
			i++; /* "-o FILE": the next word is a value, whatever it looks like */
		if (strncmp(a, "--", 2) != 0)
			continue;
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		const struct option *o = find_long(a + 2, len);

		if (!o)
			return nt_err_set(err, 0, "unknown option '--%.*s'", (int)len, a + 2);
		if (eq && o->has_arg == no_argument)
			return nt_err_set(err, 0, "option '--%s' takes no value", o->name);
		if (!eq && o->has_arg == required_argument)
			i++;
	}
	return 0;
}

int nt_cli_parse(int argc, char **argv, struct nt_options *opt, struct nt_err *err)
{
	bool expect_set = false;
	int c, ret;

	defaults(opt);
	/* "trace" is the default command and may be named. */
	if (argc > 1 && strcmp(argv[1], "trace") == 0) {
		argv++;
		argc--;
	}
	opterr = 0;
	/* 0, not 1: glibc then also forgets a half-read cluster such as "-xh" */
	optind = 0;
	ret = check_long_options(argc, argv, err);
	if (ret < 0)
		return ret;
	while ((c = getopt_long(argc, argv, ":ho:w:", long_options, NULL)) != -1) {
		if (c == '?') {
			/* For a long option optopt holds its internal code, not a letter. */
			if (optopt && optopt < 256 && strncmp(argv[optind - 1], "--", 2) != 0)
				return nt_err_set(err, 0, "unknown option '-%c'", optopt);
			return nt_err_set(err, 0, "unknown option '%s'", argv[optind - 1]);
		}
		if (c == ':')
			return nt_err_set(err, 0, "option '%s' needs a value", argv[optind - 1]);
		ret = parse_one(c, optarg, opt, &expect_set, err);
		if (ret < 0)
			return -EINVAL;
	}
	if (optind < argc)
		return nt_err_set(err, 0, "unexpected argument \"%s\"", argv[optind]);
	if (opt->action != NT_CLI_RUN)
		return 0;
	return validate(opt, expect_set, err) < 0 ? -EINVAL : 0;
}
