// SPDX-License-Identifier: MIT
/*
 * predict_tool.c - print the model's per-round predictions (nt/model/predict.h)
 * as JSON, for the knobs nagle-trace takes, so a script can run the real
 * kernel with the same knobs and compare round by round.
 *
 * usage: predict_tool [--variant NAME] [--header B] [--body B] [--reply B]
 *                     [--rounds N] [--pause MS] [--handler-ms MS]
 *                     [--write-gap-ms MS] [--pingpong-thresh N] [--ipv6]
 *                     [--threshold MS] [--rtt MS] [--kernel UNAME_R] [--hz N]
 *                     [--rto-min-ms MS] [--mtu B] [--summary]
 *
 * The variant-to-knobs mapping is nt_variant_knobs(), as for
 * `nagle-trace predict` and `--expect auto`. HZ: --hz, else the running
 * kernel's CONFIG_HZ (/proc/config.gz or /boot/config-RELEASE), else 250.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/live/kernel.h"
#include "nt/live/variant.h"
#include "nt/model/predict.h"
#include "nt/model/predict_words.h"

#define MS 1000000LL

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_why(const char *key, const struct nt_predict_why *w)
{
	printf("\"%s\":{\"rule\":", key);
	json_string(nt_predict_rule_name(w->rule));
	printf(",\"text\":");
	json_string(NT_PREDICT_WORDS(w));
	putchar('}');
}

static void json_rx(const char *key, const struct nt_predict_rx *x)
{
	printf("\"%s\":{\"pingpong\":%s,\"pingpong_cnt\":%u,\"quick\":%u,\"ato_ms\":%u,"
	       "\"rcv_mss\":%u,\"certain\":%s}",
	       key, x->pingpong ? "true" : "false", x->pingpong_cnt, x->quick, x->ato_ms,
	       x->rcv_mss, x->certain ? "true" : "false");
}

static void print_round(const struct nt_predict_round *r)
{
	bool first = true;

	printf("{\"index\":%u,\"verdict\":\"%s\",\"verdicts\":[", r->index,
	       nt_verdict_name(r->verdict));
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++) {
		if (!(r->verdicts & NT_PREDICT_VERDICT_BIT(v)))
			continue;
		printf("%s\"%s\"", first ? "" : ",", nt_verdict_name((enum nt_verdict)v));
		first = false;
	}
	printf("],");
	json_why("uncertain", &r->uncertain);
	printf(",\"why\":{");
	json_why("verdict", &r->verdict_why);
	putchar(',');
	json_why("header", &r->header);
	putchar(',');
	json_why("header_ack", &r->header_ack);
	putchar(',');
	json_why("ack", &r->ack);
	putchar(',');
	json_why("body", &r->body);
	putchar(',');
	json_why("release", &r->release);
	putchar(',');
	json_why("reply", &r->reply);
	printf("},\"gap_ms\":[%.3f,%.3f],\"ack_delay_ms\":[%.3f,%.3f],", r->gap_min_ns / 1e6,
	       r->gap_max_ns / 1e6, r->ack_delay_min_ns / 1e6, r->ack_delay_max_ns / 1e6);
	json_rx("at_header", &r->at_header);
	putchar(',');
	json_rx("after", &r->after);
	printf(",\"client_data_segments\":%u,\"delayed_acks\":%u,\"hypotheses\":%u}",
	       r->client_data_segments, r->delayed_acks, r->hypotheses);
}

static long number(const char *opt, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "predict_tool: %s: \"%s\" is not a number\n", opt, s);
		exit(2);
	}
	return v;
}

/* Sets the number knob that option @c names from @o; false when @c names none. */
static bool number_knob(int c, const char *o, struct nt_predict_knobs *k)
{
	switch (c) {
	case 'H':
		k->header_bytes = (uint32_t)number("--header", o);
		break;
	case 'B':
		k->body_bytes = (uint32_t)number("--body", o);
		break;
	case 'R':
		k->reply_bytes = (uint32_t)number("--reply", o);
		break;
	case 'n':
		k->rounds = (unsigned)number("--rounds", o);
		break;
	case 'p':
		k->pause_ns = number("--pause", o) * MS;
		break;
	case 'h':
		k->handler_ns = number("--handler-ms", o) * MS;
		break;
	case 'g':
		k->write_gap_ns = number("--write-gap-ms", o) * MS;
		break;
	case 'P':
		k->pingpong_thresh = (unsigned)number("--pingpong-thresh", o);
		break;
	case 't':
		k->threshold_ns = number("--threshold", o) * MS;
		break;
	case 'r':
		k->rtt_ns = number("--rtt", o) * MS;
		break;
	case 'z':
		k->hz = (unsigned)number("--hz", o);
		break;
	case 'm':
		k->route_rto_min_ms = (uint32_t)number("--rto-min-ms", o);
		break;
	case 'M':
		k->mtu = (unsigned)number("--mtu", o);
		break;
	default:
		return false;
	}
	return true;
}

static void parse(int argc, char **argv, struct nt_predict_knobs *k, bool *summary)
{
	static const struct option opts[] = {
		{ "variant", 1, 0, 'v' },
		{ "header", 1, 0, 'H' },
		{ "body", 1, 0, 'B' },
		{ "reply", 1, 0, 'R' },
		{ "rounds", 1, 0, 'n' },
		{ "pause", 1, 0, 'p' },
		{ "handler-ms", 1, 0, 'h' },
		{ "write-gap-ms", 1, 0, 'g' },
		{ "pingpong-thresh", 1, 0, 'P' },
		{ "ipv6", 0, 0, '6' },
		{ "threshold", 1, 0, 't' },
		{ "rtt", 1, 0, 'r' },
		{ "kernel", 1, 0, 'k' },
		{ "hz", 1, 0, 'z' },
		{ "rto-min-ms", 1, 0, 'm' },
		{ "mtu", 1, 0, 'M' },
		{ "summary", 0, 0, 's' },
		{ 0, 0, 0, 0 },
	};
	const struct nt_variant *v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		const char *o = optarg;

		switch (c) {
		case 'v':
			if (!(v = nt_variant_find(o))) {
				fprintf(stderr, "predict_tool: unknown variant \"%s\"\n", o);
				exit(2);
			}
			nt_variant_knobs(v, k);
			break;
		case '6':
			k->ipv6 = true;
			break;
		case 'k':
			if (nt_kernel_version_parse(o, &k->kernel) < 0) {
				fprintf(stderr, "predict_tool: --kernel: \"%s\" is not a release\n",
					o);
				exit(2);
			}
			break;
		case 's':
			*summary = true;
			break;
		default:
			if (!number_knob(c, o, k))
				exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	struct nt_predict_knobs k;
	struct nt_predict_round r;
	struct nt_predict_why fix;
	struct nt_predict *p = malloc(sizeof(*p));
	struct nt_err err = { { 0 } };
	struct nt_kernel_facts kf;
	unsigned counts[NT_VERDICT_COUNT] = { 0 }, n = 0;
	bool summary = false;

	nt_predict_knobs_default(&k);
	/* The running kernel's release and CONFIG_HZ, as nagle-trace reads them (src/live/kernel.c). */
	nt_kernel_facts_read(&kf);
	if (kf.version.major)
		k.kernel = kf.version;
	k.hz = kf.hz;
	parse(argc, argv, &k, &summary);
	if (!p || nt_predict_init(p, &k, &err) < 0) {
		fprintf(stderr, "predict_tool: %s\n", p ? err.msg : "out of memory");
		free(p);
		return 2;
	}
	nt_predict_fix(&k, &fix);
	printf("{\"kernel\":\"%u.%u.%u\",\"hz\":%u,\"mss\":%u,\"pingpong_thresh\":%u,",
	       k.kernel.major, k.kernel.minor, k.kernel.patch, k.hz, p->kern.mss,
	       p->kern.pingpong_thresh);
	json_why("fix", &fix);
	printf(",\"rounds\":[");
	while (nt_predict_round(p, &r) == 1) {
		counts[r.verdict]++;
		if (!summary) {
			printf("%s\n", n ? "," : "");
			print_round(&r);
		}
		n++;
	}
	printf("],\"summary\":{");
	for (unsigned v = 0; v < NT_VERDICT_COUNT; v++)
		printf("%s\"%s\":%u", v ? "," : "", nt_verdict_name((enum nt_verdict)v), counts[v]);
	printf("}}\n");
	free(p);
	return 0;
}
