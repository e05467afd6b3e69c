// SPDX-License-Identifier: MIT
/*
 * test_cli.c - nt_trace_opts_parse() and nt_cli_parse_uint(): defaults, every
 * numeric option at its bounds and with bad text, the name-valued options,
 * the cross-option rules, and the exact error text main.c prints after
 * "nagle-trace: ".
 *
 * getopt_long() permutes argv, so each parse gets a fresh array.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nt/capture/capture.h"
#include "nt/cli.h"
#include "nt/cmd/trace_opts.h"
#include "nt/live/variant.h"
#include "nt/render/format.h"

#define MS	 1000000LL
#define ARGS_MAX 16

/*
 * Parses "nagle-trace" followed by the NULL-terminated @args (copied into a
 * fresh argv); fills @opt and @err. Return: nt_trace_opts_parse()'s.
 */
static int parse_args(struct nt_trace_opts *opt, struct nt_err *err, const char *const *args)
{
	char *argv[ARGS_MAX + 2];
	int argc = 0;

	argv[argc++] = (char *)"nagle-trace";
	while (*args) {
		assert_true(argc <= ARGS_MAX);
		argv[argc++] = (char *)*args++;
	}
	argv[argc] = NULL;
	memset(err, 0, sizeof(*err));
	return nt_trace_opts_parse(argc, argv, opt, err);
}

#define PARSE(opt, err, ...) parse_args(opt, err, (const char *const[]){ __VA_ARGS__, NULL })

/* Expects @args to be refused with exactly @msg. */
static void refused(const char *msg, const char *const *args)
{
	struct nt_trace_opts opt;
	struct nt_err err;

	assert_int_equal(parse_args(&opt, &err, args), -EINVAL);
	assert_string_equal(err.msg, msg);
}

#define REFUSED(msg, ...) refused(msg, (const char *const[]){ __VA_ARGS__, NULL })

/* Expects @args to be accepted, with no message. */
static void accepted(struct nt_trace_opts *opt, const char *const *args)
{
	struct nt_err err;

	assert_int_equal(parse_args(opt, &err, args), 0);
	assert_string_equal(err.msg, "");
}

#define ACCEPTED(opt, ...) accepted(opt, (const char *const[]){ __VA_ARGS__, NULL })

/* what this checks: no arguments: 4 rounds of 4/8/2 bytes, text, default variant, expect auto */
static void test_defaults(void **state)
{
	struct nt_trace_opts opt;
	struct nt_err err;
	char *argv[] = { "nagle-trace", NULL };

	(void)state;
	memset(&err, 0, sizeof(err));
	memset(&opt, 0x5a, sizeof(opt));
	assert_int_equal(nt_trace_opts_parse(1, argv, &opt, &err), 0);
	assert_int_equal(opt.action, NT_CMD_RUN);
	assert_int_equal(opt.trace.shape.rounds, 4);
	assert_int_equal(opt.trace.shape.header_bytes, 4);
	assert_int_equal(opt.trace.shape.body_bytes, 8);
	assert_int_equal(opt.trace.shape.reply_bytes, 2);
	assert_int_equal(opt.trace.pause_ns, 0);
	assert_int_equal(opt.trace.handler_ns, 0);
	assert_int_equal(opt.trace.write_gap_ns, 0);
	assert_int_equal(opt.trace.threshold_ns, 10 * MS);
	assert_int_equal(opt.trace.timeout_ns, 2000 * MS);
	assert_int_equal(opt.trace.pingpong_thresh, 0);
	assert_false(opt.trace.ipv6);
	/* NULL: the live run picks it by the round's size (nt_trace_capture()) */
	assert_null(opt.trace.capture);
	assert_ptr_equal(nt_trace_capture(&opt.trace), nt_capture_backend("packet"));
	opt.trace.shape.body_bytes = 16777216;
	assert_ptr_equal(nt_trace_capture(&opt.trace), nt_capture_backend("pcap"));
	assert_string_equal(opt.out.format, "text");
	assert_null(opt.out.path);
	assert_int_equal(opt.out.color, NT_COLOR_AUTO);
	assert_false(opt.out.summary_only);
	assert_int_equal(opt.n_variants, 1);
	assert_ptr_equal(opt.variants[0], nt_variant_find("default"));
	assert_ptr_equal(opt.trace.variant, nt_variant_find("default"));
	assert_string_equal(opt.trace.variant->name, "default");
	assert_int_equal(opt.trace.expect, NT_EXPECT_AUTO);
	assert_string_equal(err.msg, "");
}

struct numeric {
	const char *name;
	uint64_t min;
	uint64_t max;
};

/* clang-format off */
static const struct numeric numerics[] = {
	{ "--rounds", 1, 1000000 },
	{ "--header", 1, 16777216 },
	{ "--body", 1, 16777216 },
	{ "--reply", 1, 16777216 },
	{ "--pause", 0, 600000 },
	{ "--threshold", 1, 600000 },
	{ "--timeout", 10, 600000 },
	{ "--handler-ms", 0, 600000 },
	{ "--write-gap-ms", 0, 600000 },
	{ "--pingpong-thresh", 1, 255 },
};
/* clang-format on */

/* what this checks: every numeric option refuses non-digits, sign, space, suffix: exact text */
static void test_numeric_not_a_number(void **state)
{
	static const char *const bad[] = { "abc", "-x",	  " 5",	 "5 ", "5ms",
					   "+5",  "0x10", "1e3", "5.0" };
	char want[256];

	(void)state;
	for (size_t i = 0; i < sizeof(numerics) / sizeof(numerics[0]); i++) {
		const char *name = numerics[i].name;

		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			snprintf(want, sizeof(want), "%s: \"%s\" is not a number", name, bad[j]);
			REFUSED(want, name, bad[j]);
		}
		snprintf(want, sizeof(want), "%s: an empty value is not a number", name);
		REFUSED(want, name, "");
	}
}

/* what this checks: every numeric option refuses max + 1, below min, 2^64 and 2^64 - 1 */
static void test_numeric_out_of_range(void **state)
{
	char want[256], text[32];

	(void)state;
	for (size_t i = 0; i < sizeof(numerics) / sizeof(numerics[0]); i++) {
		const struct numeric *n = &numerics[i];
		const char *texts[4] = { text, "18446744073709551616", "18446744073709551615",
					 "99999999999999999999999" };

		snprintf(text, sizeof(text), "%llu", (unsigned long long)n->max + 1);
		for (size_t j = 0; j < 4; j++) {
			snprintf(want, sizeof(want), "%s: \"%s\" is out of range (%llu..%llu)",
				 n->name, texts[j], (unsigned long long)n->min,
				 (unsigned long long)n->max);
			REFUSED(want, n->name, texts[j]);
		}
		/* A negative number is a number: out of range, and called negative (issue 25). */
		snprintf(want, sizeof(want), "%s: \"-1\" is negative, out of range (%llu..%llu)",
			 n->name, (unsigned long long)n->min, (unsigned long long)n->max);
		REFUSED(want, n->name, "-1");
		if (n->min > 0) {
			snprintf(text, sizeof(text), "%llu", (unsigned long long)n->min - 1);
			snprintf(want, sizeof(want), "%s: \"%s\" is out of range (%llu..%llu)",
				 n->name, text, (unsigned long long)n->min,
				 (unsigned long long)n->max);
			REFUSED(want, n->name, text);
		}
	}
	/* the documented examples, spelled out */
	REFUSED("--rounds: \"abc\" is not a number", "--rounds", "abc");
	REFUSED("--rounds: \"0\" is out of range (1..1000000)", "--rounds", "0");
	REFUSED("--timeout: \"9\" is out of range (10..600000)", "--timeout", "9");
}

/* what this checks: the bounds themselves are accepted and land in the right field */
static void test_numeric_bounds_accepted(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	ACCEPTED(&opt, "--rounds", "1000000");
	assert_int_equal(opt.trace.shape.rounds, 1000000);
	ACCEPTED(&opt, "--rounds", "1");
	assert_int_equal(opt.trace.shape.rounds, 1);
	ACCEPTED(&opt, "--rounds", "007");
	assert_int_equal(opt.trace.shape.rounds, 7);
	ACCEPTED(&opt, "--header", "16777216");
	assert_int_equal(opt.trace.shape.header_bytes, 16777216);
	ACCEPTED(&opt, "--body", "16777216", "--header", "1");
	assert_int_equal(opt.trace.shape.body_bytes, 16777216);
	assert_int_equal(opt.trace.shape.header_bytes, 1);
	ACCEPTED(&opt, "--reply", "16777216");
	assert_int_equal(opt.trace.shape.reply_bytes, 16777216);
	ACCEPTED(&opt, "--reply", "1");
	assert_int_equal(opt.trace.shape.reply_bytes, 1);
	ACCEPTED(&opt, "--threshold", "600000");
	assert_int_equal(opt.trace.threshold_ns, 600000 * MS);
	ACCEPTED(&opt, "--threshold", "1");
	assert_int_equal(opt.trace.threshold_ns, 1 * MS);
	ACCEPTED(&opt, "--timeout", "600000");
	assert_int_equal(opt.trace.timeout_ns, 600000 * MS);
	ACCEPTED(&opt, "--timeout", "10");
	assert_int_equal(opt.trace.timeout_ns, 10 * MS);
	ACCEPTED(&opt, "--pause", "0", "--handler-ms", "0", "--write-gap-ms", "0");
	assert_int_equal(opt.trace.pause_ns, 0);
	ACCEPTED(&opt, "--pause", "599999", "--timeout", "600000");
	assert_int_equal(opt.trace.pause_ns, 599999 * MS);
	ACCEPTED(&opt, "--handler-ms", "599999", "--timeout", "600000");
	assert_int_equal(opt.trace.handler_ns, 599999 * MS);
	ACCEPTED(&opt, "--write-gap-ms", "599999", "--timeout", "600000");
	assert_int_equal(opt.trace.write_gap_ns, 599999 * MS);
	ACCEPTED(&opt, "--pingpong-thresh", "255");
	assert_int_equal(opt.trace.pingpong_thresh, 255);
	ACCEPTED(&opt, "--pingpong-thresh", "1");
	assert_int_equal(opt.trace.pingpong_thresh, 1);
	/* --opt=value works as well */
	ACCEPTED(&opt, "--rounds=12");
	assert_int_equal(opt.trace.shape.rounds, 12);
	/* the last of a repeated option wins */
	ACCEPTED(&opt, "--rounds", "3", "--rounds", "5");
	assert_int_equal(opt.trace.shape.rounds, 5);
}

/* what this checks: nt_cli_parse_uint() alone: statuses, output left alone on failure */
static void test_parse_uint(void **state)
{
	struct nt_err err;
	uint64_t v = 77;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(nt_cli_parse_uint("--x", "0", 0, UINT64_MAX, &v, &err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(nt_cli_parse_uint("--x", "18446744073709551615", 0, UINT64_MAX, &v, &err),
			 0);
	assert_true(v == UINT64_MAX);
	assert_string_equal(err.msg, "");

	v = 77;
	assert_int_equal(nt_cli_parse_uint("--x", "18446744073709551616", 0, UINT64_MAX, &v, &err),
			 -ERANGE);
	assert_string_equal(
		err.msg, "--x: \"18446744073709551616\" is out of range (0..18446744073709551615)");
	assert_int_equal(v, 77);

	memset(&err, 0, sizeof(err));
	assert_int_equal(nt_cli_parse_uint("--x", "11", 1, 10, &v, &err), -ERANGE);
	assert_string_equal(err.msg, "--x: \"11\" is out of range (1..10)");
	assert_int_equal(v, 77);

	memset(&err, 0, sizeof(err));
	assert_int_equal(nt_cli_parse_uint("--x", "1O", 1, 10, &v, &err), -EINVAL);
	assert_string_equal(err.msg, "--x: \"1O\" is not a number");
	assert_int_equal(v, 77);

	memset(&err, 0, sizeof(err));
	assert_int_equal(nt_cli_parse_uint("--x", "", 1, 10, &v, &err), -EINVAL);
	assert_string_equal(err.msg, "--x: an empty value is not a number");

	/* a NULL error is allowed */
	assert_int_equal(nt_cli_parse_uint("--x", "abc", 1, 10, &v, NULL), -EINVAL);
	assert_int_equal(nt_cli_parse_uint("--x", "10", 1, 10, &v, NULL), 0);
	assert_int_equal(v, 10);
}

/* what this checks: --variant lists: empty names, unknown, twice, too long */
static void test_variant_errors(void **state)
{
	char longname[80];

	(void)state;
	REFUSED("--variant: empty variant name in \"default,,nodelay\"", "--variant",
		"default,,nodelay");
	REFUSED("--variant: empty variant name in \"default,\"", "--variant", "default,");
	REFUSED("--variant: empty variant name in \",default\"", "--variant", ",default");
	REFUSED("--variant: empty variant name in \"\"", "--variant", "");
	REFUSED("--variant: unknown variant \"bogus\" (try --variant all, or see --help)",
		"--variant", "bogus");
	REFUSED("--variant: unknown variant \"Default\" (try --variant all, or see --help)",
		"--variant", "nodelay,Default");
	REFUSED("--variant: \"default\" named twice", "--variant", "default,nodelay,default");
	REFUSED("--variant: unknown variant \"all\" (try --variant all, or see --help)",
		"--variant", "nodelay,all");
	memset(longname, 'a', 70);
	longname[70] = '\0';
	REFUSED("--variant: unknown variant "
		"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" "
		"(try --variant all, or see --help)",
		"--variant", longname);
}

/* what this checks: --variant lists in order, "all" gives every variant in table order */
static void test_variant_lists(void **state)
{
	struct nt_trace_opts opt;
	const struct nt_variant *all;
	unsigned n;

	(void)state;
	ACCEPTED(&opt, "--variant", "nodelay,one-write,default");
	assert_int_equal(opt.n_variants, 3);
	assert_ptr_equal(opt.variants[0], nt_variant_find("nodelay"));
	assert_ptr_equal(opt.variants[1], nt_variant_find("one-write"));
	assert_ptr_equal(opt.variants[2], nt_variant_find("default"));
	assert_ptr_equal(opt.trace.variant, nt_variant_find("nodelay"));

	all = nt_variant_all(&n);
	assert_true(n >= 11);
	ACCEPTED(&opt, "--variant", "all");
	assert_int_equal(opt.n_variants, n);
	for (unsigned i = 0; i < n; i++)
		assert_ptr_equal(opt.variants[i], &all[i]);
	assert_ptr_equal(opt.trace.variant, &all[0]);
}

/* what this checks: without --expect, auto for every variant; with it, --expect in either order */
static void test_expect_override(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	ACCEPTED(&opt, "--variant", "nodelay");
	assert_int_equal(opt.trace.expect, NT_EXPECT_AUTO);
	ACCEPTED(&opt, "--variant", "quickack-rearm");
	assert_int_equal(opt.trace.expect, NT_EXPECT_AUTO);
	ACCEPTED(&opt, "--variant", "nodelay", "--expect", "held");
	assert_int_equal(opt.trace.expect, NT_EXPECT_HELD);
	/* order does not matter */
	ACCEPTED(&opt, "--expect", "stalled", "--variant", "nodelay");
	assert_int_equal(opt.trace.expect, NT_EXPECT_STALLED);
	ACCEPTED(&opt, "--expect", "auto", "--variant", "all");
	assert_int_equal(opt.trace.expect, NT_EXPECT_AUTO);
	ACCEPTED(&opt, "--expect", "any");
	assert_int_equal(opt.trace.expect, NT_EXPECT_ANY);
	ACCEPTED(&opt, "--expect", "coalesced");
	assert_int_equal(opt.trace.expect, NT_EXPECT_COALESCED);
	ACCEPTED(&opt, "--expect", "unheld");
	assert_int_equal(opt.trace.expect, NT_EXPECT_UNHELD);
}

/* what this checks: unknown --expect, --format, --capture and bad --color: exact text */
static void test_name_options_refused(void **state)
{
	char want[256];

	(void)state;
	REFUSED("--expect: unknown verdict \"bogus\" (auto|stalled|held|unheld|coalesced|any)",
		"--expect", "bogus");
	REFUSED("--expect: unknown verdict \"incomplete\" (auto|stalled|held|unheld|coalesced|any)",
		"--expect", "incomplete");
	char names[128];

	snprintf(want, sizeof(want), "--format: unknown format \"xml\" (%s)",
		 nt_format_names(NT_FORMAT_TRACE, names, sizeof(names)));
	REFUSED(want, "--format", "xml");
	snprintf(want, sizeof(want), "--capture: unknown back end \"afpacket\" (%s)",
		 nt_capture_backend_names());
	REFUSED(want, "--capture", "afpacket");
	REFUSED("--color: \"sometimes\" is not auto, always or never", "--color", "sometimes");
	REFUSED("--color: \"\" is not auto, always or never", "--color", "");
	REFUSED("--output: an empty file name", "-o", "");
}

/* what this checks: the accepted name-valued and flag options land in their fields */
static void test_name_options_accepted(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	ACCEPTED(&opt, "--format", "json");
	assert_string_equal(opt.out.format, "json");
	ACCEPTED(&opt, "--color", "always");
	assert_int_equal(opt.out.color, NT_COLOR_ALWAYS);
	ACCEPTED(&opt, "--color", "never");
	assert_int_equal(opt.out.color, NT_COLOR_NEVER);
	ACCEPTED(&opt, "--color", "auto");
	assert_int_equal(opt.out.color, NT_COLOR_AUTO);
	ACCEPTED(&opt, "--capture", "pcap");
	assert_ptr_equal(opt.trace.capture, nt_capture_backend("pcap"));
	ACCEPTED(&opt, "--summary", "--ipv6", "-o", "out.txt");
	assert_true(opt.out.summary_only);
	assert_true(opt.trace.ipv6);
	assert_string_equal(opt.out.path, "out.txt");
	ACCEPTED(&opt, "--output=report.json");
	assert_string_equal(opt.out.path, "report.json");
}

/* what this checks: main() strips the command name; the parser takes "trace" for an argument */
static void test_trace_command(void **state)
{
	(void)state;
	REFUSED("unexpected argument \"trace\"", "trace");
	REFUSED("unexpected argument \"trace\"", "--rounds", "7", "trace");
}

/* what this checks: positional arguments are refused, wherever getopt moved them */
static void test_unexpected_argument(void **state)
{
	(void)state;
	REFUSED("unexpected argument \"extra\"", "extra");
	REFUSED("unexpected argument \"extra\"", "--rounds", "5", "extra");
	REFUSED("unexpected argument \"extra\"", "extra", "--rounds", "5");
	REFUSED("unexpected argument \"analyze\"", "--summary", "analyze");
}

/* what this checks: a value missing at the end, and unknown options */
static void test_missing_value_unknown_option(void **state)
{
	(void)state;
	REFUSED("option '--rounds' needs a value", "--rounds");
	REFUSED("option '--variant' needs a value", "--summary", "--variant");
	REFUSED("option '-o' needs a value", "-o");
	REFUSED("unknown option '--bogus'", "--bogus");
	REFUSED("unknown option '-x'", "-x");
	REFUSED("--rounds: an empty value is not a number", "--rounds=");
	/* a following option is taken as the value, as getopt does */
	REFUSED("--rounds: \"--header\" is not a number", "--rounds", "--header", "5");
}

/* what this checks: --help and --version are actions, and skip the cross-option checks */
static void test_help_version(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	ACCEPTED(&opt, "--help");
	assert_int_equal(opt.action, NT_CMD_HELP);
	ACCEPTED(&opt, "-h");
	assert_int_equal(opt.action, NT_CMD_HELP);
	ACCEPTED(&opt, "--version");
	assert_int_equal(opt.action, NT_CMD_VERSION);
	ACCEPTED(&opt, "--pause", "5000", "--help");
	assert_int_equal(opt.action, NT_CMD_HELP);
	/* a bad value is still a usage error */
	REFUSED("--rounds: \"abc\" is not a number", "--help", "--rounds", "abc");
	{
		char *help = NULL;
		size_t size = 0;
		FILE *fp = open_memstream(&help, &size);

		assert_non_null(fp);
		nt_trace_opts_usage(fp);
		assert_int_equal(fclose(fp), 0);
		assert_non_null(strstr(help, "usage: nagle-trace"));
		free(help);
	}
	/* and a later plain run is a run again */
	ACCEPTED(&opt, "--rounds", "2");
	assert_int_equal(opt.action, NT_CMD_RUN);
}

/* what this checks: rounds x request (or reply) bytes at 2 GiB is refused, just below accepted */
static void test_stream_bytes_limit(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	/* 128 x (16777208 + 8) = 2^31 */
	REFUSED("--rounds 128 with 16777216 request and 2 reply bytes is over 2 GiB per direction",
		"--rounds", "128", "--header", "16777208");
	ACCEPTED(&opt, "--rounds", "128", "--header", "16777207");
	assert_int_equal(opt.trace.shape.header_bytes, 16777207);
	REFUSED("--rounds 1000000 with 2148 request and 2 reply bytes is over 2 GiB per direction",
		"--rounds", "1000000", "--header", "2048", "--body", "100");
	/* 128 x 16777216 = 2^31 */
	REFUSED("--rounds 128 with 12 request and 16777216 reply bytes is over 2 GiB per direction",
		"--rounds", "128", "--reply", "16777216");
	ACCEPTED(&opt, "--rounds", "128", "--reply", "16777215");
}

/* what this checks: pauses adding up to the timeout are refused, one ms less is accepted */
static void test_timeout_vs_pauses(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	REFUSED("--timeout 2000 ms is shorter than the pauses it has to cover", "--pause", "1000",
		"--handler-ms", "500", "--write-gap-ms", "500");
	ACCEPTED(&opt, "--pause", "1000", "--handler-ms", "500", "--write-gap-ms", "499");
	REFUSED("--timeout 10 ms is shorter than the pauses it has to cover", "--timeout", "10",
		"--pause", "10");
	REFUSED("--timeout 600000 ms is shorter than the pauses it has to cover", "--timeout",
		"600000", "--pause", "600000");
	ACCEPTED(&opt, "--timeout", "10", "--handler-ms", "9");
	assert_int_equal(opt.trace.handler_ns, 9 * MS);
}

/*
 * what this checks: --rtt takes milliseconds to the microsecond (0 is the bare
 * veth pair, the default), refuses negative, over-10000 and non-numbers with
 * one line, and needs a --timeout longer than two round trips; --capture-at
 * takes client or target only
 */
static void test_rtt_capture_at(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	ACCEPTED(&opt, "--rounds", "2");
	assert_int_equal(opt.trace.rtt_ns, 0);
	assert_int_equal(opt.trace.capture_at, NT_LAB_CLIENT);
	ACCEPTED(&opt, "--rtt", "20");
	assert_int_equal(opt.trace.rtt_ns, 20 * MS);
	ACCEPTED(&opt, "--rtt", "0.5");
	assert_int_equal(opt.trace.rtt_ns, 500000);
	ACCEPTED(&opt, "--rtt", "0.001");
	assert_int_equal(opt.trace.rtt_ns, 1000);
	ACCEPTED(&opt, "--rtt", "0");
	assert_int_equal(opt.trace.rtt_ns, 0);
	ACCEPTED(&opt, "--rtt", "10000", "--timeout", "20001");
	assert_int_equal(opt.trace.rtt_ns, 10000 * MS);
	REFUSED("--rtt: \"-1\" is negative, out of range (0..10000)", "--rtt", "-1");
	REFUSED("--rtt: \"abc\" is not a number", "--rtt", "abc");
	REFUSED("--rtt: \"0.0001\" is not a number", "--rtt", "0.0001");
	REFUSED("--rtt: \"10000.001\" is out of range (0..10000)", "--rtt", "10000.001");
	REFUSED("--rtt: \"1e9\" is not a number", "--rtt", "1e9");
	REFUSED("--timeout 2000 ms is shorter than two round trips of --rtt and the pauses",
		"--rtt", "1000");
	REFUSED("--timeout 100 ms is shorter than two round trips of --rtt and the pauses", "--rtt",
		"40", "--timeout", "100", "--handler-ms", "20");
	ACCEPTED(&opt, "--capture-at", "target", "--rtt", "20");
	assert_int_equal(opt.trace.capture_at, NT_LAB_TARGET);
	ACCEPTED(&opt, "--capture-at", "client");
	assert_int_equal(opt.trace.capture_at, NT_LAB_CLIENT);
	REFUSED("--capture-at: unknown side \"middle\" (client|target)", "--capture-at", "middle");
}

/*
 * what this checks: a value given to a flag option ("--summary=yes") is
 * refused with a message naming that option, in printable text.
 *
 * BUG (reported, not fixed here): getopt_long() returns '?' with optopt set
 * to the option's val (OPT_SUMMARY = 267), and nt_trace_opts_parse() prints it with
 * "-%c": the message is "unknown option '-\x0b'" (a control character);
 * "--ipv6=1" gives "unknown option '-\x0f'", "--help=x" gives
 * "unknown option '-h'". The exact wording of the fix is open; this only
 * asserts the option is named and the text is printable.
 */
static void test_flag_option_with_value(void **state)
{
	static const char *const args[][2] = {
		{ "--summary=yes", "--summary" },
		{ "--ipv6=1", "--ipv6" },
		{ "--help=x", "--help" },
		{ "--version=2", "--version" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		struct nt_trace_opts opt;
		struct nt_err err;

		assert_int_equal(PARSE(&opt, &err, args[i][0]), -EINVAL);
		for (const char *p = err.msg; *p; p++)
			assert_true((unsigned char)*p >= 0x20);
		assert_non_null(strstr(err.msg, args[i][1]));
	}
}

/*
 * what this checks: a parse that stopped inside a cluster of short options
 * ("-xh") leaves nothing behind for the next parse.
 *
 * Regression: with optind = 1 (not glibc's full reset, optind = 0) the rest
 * of the cluster ("h") survived, and the next parse of "--rounds 5" returned
 * -EINVAL, `unexpected argument "5"`, with action NT_CMD_HELP.
 */
static void test_getopt_state_reset(void **state)
{
	struct nt_trace_opts opt;

	(void)state;
	REFUSED("unknown option '-x'", "-xh");
	ACCEPTED(&opt, "--rounds", "5");
	assert_int_equal(opt.action, NT_CMD_RUN);
	assert_int_equal(opt.trace.shape.rounds, 5);
}

/* what this checks: a value with a newline or escape still gives a one-line message (fuzz finding) */
static void test_error_is_one_line(void **state)
{
	(void)state;
	REFUSED("unknown option '--?'", "--\n");
	REFUSED("--rounds: \"4?[31m\" is not a number", "--rounds", "4\033[31m");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_numeric_not_a_number),
		cmocka_unit_test(test_numeric_out_of_range),
		cmocka_unit_test(test_numeric_bounds_accepted),
		cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_variant_errors),
		cmocka_unit_test(test_variant_lists),
		cmocka_unit_test(test_expect_override),
		cmocka_unit_test(test_name_options_refused),
		cmocka_unit_test(test_name_options_accepted),
		cmocka_unit_test(test_trace_command),
		cmocka_unit_test(test_unexpected_argument),
		cmocka_unit_test(test_missing_value_unknown_option),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_stream_bytes_limit),
		cmocka_unit_test(test_timeout_vs_pauses),
		cmocka_unit_test(test_rtt_capture_at),
		cmocka_unit_test(test_flag_option_with_value),
		/* last: when it fails it leaves getopt's state behind */
		cmocka_unit_test(test_getopt_state_reset),
		cmocka_unit_test(test_error_is_one_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
