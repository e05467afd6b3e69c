// SPDX-License-Identifier: MIT
/*
 * bench_wire.c - how precise is the delay line (issue 18)? Not a test: it
 * prints figures against a reference measured in the same run.
 *
 * usage: unshare -Urn bench_wire [--rtt-ms MS]... [--rounds N] [--ipv6]
 *            [--spin-us US] [--resolve] [--payload BYTES] [--sleep-samples N]
 *            [--hops] [--json]
 *
 * For each RTT it builds the lab with that delay, opens one AF_PACKET capture
 * on nt-c (client namespace) and one on nt-t (target namespace), and runs a
 * TCP ping-pong with TCP_NODELAY: the client writes --payload bytes, the
 * server echoes them, --rounds times. Each direction's frames are seen twice,
 * leaving one end and arriving at the other, with kernel timestamps on the
 * same clock, so the delay the wire added to every frame is measured, not
 * inferred. The two sequences must be equal frame for frame (same bytes, same
 * order, none missing): that checks FIFO order and zero loss too. With
 * --hops, two more captures on the middle ends split client -> target into
 * its three stretches: the veth into the middle, the wire, the veth out.
 *
 * The reference, measured right after each run: a bare loop sleeping to
 * absolute deadlines (clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC, timer
 * slack 1 ns, as the forwarder's thread), how late it wakes. That is this
 * machine's scheduling noise at that moment, which no user-space delay line
 * can beat without busy-waiting.
 *
 * This file holds the options, the printing (text and --json) and main();
 * bench_wire_run.c does one run in the lab and the sleep reference,
 * bench_wire_frames.c the captures and the matching of their frames;
 * bench_wire.h is what they share.
 *
 * Exit status: 0 when every run completed (the figures are for a human or
 * for tests/integration/test_wire.sh to judge), 1 on a failure to run.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/lab.h"
#include "nt/lab/netns.h"

#include "bench_wire.h"

void die(const char *what, const struct nt_err *err)
{
	fprintf(stderr, "bench_wire: %s%s%s\n", what, err && err->msg[0] ? ": " : "",
		err ? err->msg : "");
	exit(1);
}

void die_errno(const char *what)
{
	fprintf(stderr, "bench_wire: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void print_q(const char *label, const struct quantiles *q)
{
	printf("  %-34s n %6zu  min %+8.1f  p50 %+8.1f  p90 %+8.1f  p99 %+8.1f  max %+9.1f us\n",
	       label, q->n, q->min_us, q->p50_us, q->p90_us, q->p99_us, q->max_us);
}

static void print_text(const struct options *o, const struct result *r, int n)
{
	static const char *const dir_name[] = { "client -> target", "target -> client" };
	static const char *const hop_name[HOPS] = { "  of which nt-c out -> nt-mc in",
						    "  nt-mc in -> nt-mt out, - target",
						    "  nt-mt out -> nt-t in" };

	printf("delay line precision (%s, payload %d B, wire spin %s)\n", o->ipv6 ? "IPv6" : "IPv4",
	       o->payload,
	       o->spin_ns < 0 ? "off"
	       : o->spin_ns   ? "set"
			      : "default");
	for (int i = 0; i < n; i++, r++) {
		printf("RTT %lld ms, %ld round trips; spin %lld us, scheduler slice %lld us\n",
		       (long long)r->rtt_ms, r->rounds, (long long)(r->wire.spin_ns / NS_PER_US),
		       (long long)(r->wire.slice_ns / NS_PER_US));
		for (int d = 0; d < NT_WIRE_DIRS; d++) {
			char label[64];

			snprintf(label, sizeof(label), "%s, added - target", dir_name[d]);
			print_q(label, &r->dir[d].err);
			printf("  %-34s sent %zu, arrived %zu, %s; wire lateness p50 <= %.0f us, "
			       "p99 <= %.0f us\n",
			       "", r->dir[d].sent, r->dir[d].arrived,
			       r->dir[d].order_kept ? "same frames in the same order" : "MISMATCH",
			       (double)nt_wire_hist_quantile_ns(&r->wire.dir[d].lateness, 0.5) /
				       NS_PER_US,
			       (double)nt_wire_hist_quantile_ns(&r->wire.dir[d].lateness, 0.99) /
				       NS_PER_US);
		}
		for (int h = 0; o->hops && h < HOPS; h++)
			print_q(hop_name[h], &r->hop[h].err);
		if (r->sleep_ref.n)
			print_q("reference: clock_nanosleep, late", &r->sleep_ref);
		printf("  application RTT (ms): p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n",
		       r->app_rtt.p50_us / 1000, r->app_rtt.p90_us / 1000, r->app_rtt.p99_us / 1000,
		       r->app_rtt.max_us / 1000);
		printf("  connect %.3f ms, SYN at the target %.3f ms after connect()\n",
		       r->connect_ms, r->first_syn_ms);
		printf("  lab up %.2f ms, down %.2f ms; forwarding thread CPU %.1f ms\n",
		       r->lab_up_ms, r->lab_down_ms, (double)r->wire.cpu_ns / NT_NS_PER_MS);
		printf("  drops: wire %llu, captures %llu, links %llu; TCP retransmissions %llu\n",
		       (unsigned long long)r->wire_dropped, (unsigned long long)r->capture_dropped,
		       (unsigned long long)r->link_dropped, (unsigned long long)r->retransmits);
	}
}

static void json_q(const char *key, const struct quantiles *q, const char *end)
{
	printf("\"%s\": {\"n\": %zu, \"min_us\": %.3f, \"p50_us\": %.3f, \"p90_us\": %.3f, "
	       "\"p99_us\": %.3f, \"max_us\": %.3f}%s",
	       key, q->n, q->min_us, q->p50_us, q->p90_us, q->p99_us, q->max_us, end);
}

static void print_json(const struct options *o, const struct result *r, int n)
{
	printf("{\"family\": \"%s\", \"payload_bytes\": %d, ", o->ipv6 ? "ipv6" : "ipv4",
	       o->payload);
	printf("\"runs\": [");
	for (int i = 0; i < n; i++, r++) {
		printf("%s{\"rtt_ms\": %lld, \"rounds\": %ld, \"spin_us\": %lld, \"slice_us\": "
		       "%lld, ",
		       i ? ", " : "", (long long)r->rtt_ms, r->rounds,
		       (long long)(r->wire.spin_ns / NS_PER_US),
		       (long long)(r->wire.slice_ns / NS_PER_US));
		printf("\"connect_ms\": %.3f, \"first_syn_ms\": %.3f, \"lab_up_ms\": %.3f, "
		       "\"lab_down_ms\": %.3f, \"wire_cpu_ms\": %.3f, ",
		       r->connect_ms, r->first_syn_ms, r->lab_up_ms, r->lab_down_ms,
		       (double)r->wire.cpu_ns / NT_NS_PER_MS);
		json_q("app_rtt", &r->app_rtt, ", ");
		json_q("sleep_reference", &r->sleep_ref, ", ");
		json_q("to_target_error", &r->dir[0].err, ", ");
		json_q("to_client_error", &r->dir[1].err, ", ");
		printf("\"sent\": [%zu, %zu], \"arrived\": [%zu, %zu], "
		       "\"order_kept\": [%s, %s], ",
		       r->dir[0].sent, r->dir[1].sent, r->dir[0].arrived, r->dir[1].arrived,
		       r->dir[0].order_kept ? "true" : "false",
		       r->dir[1].order_kept ? "true" : "false");
		printf("\"forwarded\": [%llu, %llu], \"wire_dropped\": %llu, "
		       "\"capture_dropped\": %llu, \"link_dropped\": %llu, \"retransmits\": %llu}",
		       (unsigned long long)r->wire.dir[0].forwarded,
		       (unsigned long long)r->wire.dir[1].forwarded,
		       (unsigned long long)r->wire_dropped, (unsigned long long)r->capture_dropped,
		       (unsigned long long)r->link_dropped, (unsigned long long)r->retransmits);
	}
	printf("]}\n");
}

static long parse_long(const char *opt, const char *text, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || *end || end == text || v < min) {
		fprintf(stderr, "bench_wire: %s: \"%s\" is not a number >= %ld\n", opt, text, min);
		exit(2);
	}
	return v;
}

static const char usage_text[] =
	"usage: unshare -Urn bench_wire [--rtt-ms MS]... [--rounds N] [--ipv6]\n"
	"           [--spin-us US] [--resolve] [--payload BYTES] [--sleep-samples N]\n"
	"           [--hops] [--json]\n"
	"How precise is nagle-trace's delay line: the delay it adds to every frame,\n"
	"against a bare sleep loop's lateness measured right after (not a test).\n"
	"  --rtt-ms MS         a round-trip time to run at (repeatable, up to 8;\n"
	"                      default 1, 20 and 200)\n"
	"  --rounds N          ping-pong rounds a run (default 20000 at 1 ms,\n"
	"                      else 10 s worth)\n"
	"  --ipv6              the lab over IPv6\n"
	"  --spin-us US        the wire's spin before a deadline (0: none;\n"
	"                      default the lab's)\n"
	"  --resolve           leave neighbour resolution to the kernel\n"
	"  --payload BYTES     bytes a round each way (default 64)\n"
	"  --sleep-samples N   wake-ups of the sleep reference after each run\n"
	"                      (default 2000)\n"
	"  --hops              also capture the middle ends: the three stretches\n"
	"  --json              figures as JSON\n"
	"Exit status: 0 every run completed, 1 a run failed, 2 a usage error.\n";

/* One line on standard error, the hint, exit 2: as nagle-trace's own usage errors. */
static void usage_error(const char *msg)
{
	if (msg)
		fprintf(stderr, "bench_wire: %s\n", msg);
	fprintf(stderr, "try 'bench_wire --help'\n");
	exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "rtt-ms", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "spin-us", required_argument, NULL, 's' },
		{ "resolve", no_argument, NULL, 'a' },
		{ "payload", required_argument, NULL, 'p' },
		{ "sleep-samples", required_argument, NULL, 'z' },
		{ "hops", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .payload = 64, .sleep_samples = 2000 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (o->n_rtts == MAX_RTTS)
				usage_error("--rtt-ms: at most 8 round-trip times a run");
			o->rtt_ms[o->n_rtts++] = parse_long("--rtt-ms", optarg, 1);
			break;
		case 'n':
			o->rounds = parse_long("--rounds", optarg, 1);
			break;
		case '6':
			o->ipv6 = true;
			break;
		case 's':
			/* 0 turns the spin off (the lab's negative), the default is the lab's. */
			o->spin_ns = parse_long("--spin-us", optarg, 0) * NS_PER_US;
			if (o->spin_ns == 0)
				o->spin_ns = -1;
			break;
		case 'a':
			o->resolve = true;
			break;
		case 'p':
			o->payload = (int)parse_long("--payload", optarg, 1);
			break;
		case 'z':
			o->sleep_samples = (int)parse_long("--sleep-samples", optarg, 0);
			break;
		case 'h':
			o->hops = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'H':
			fputs(usage_text, stdout);
			exit(0);
		default:
			usage_error(NULL); /* getopt_long() said what was wrong */
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bench_wire: unexpected argument \"%s\"\n", argv[optind]);
		usage_error(NULL);
	}
	if (!o->n_rtts) {
		o->rtt_ms[o->n_rtts++] = 1;
		o->rtt_ms[o->n_rtts++] = 20;
		o->rtt_ms[o->n_rtts++] = 200;
	}
}

int main(int argc, char **argv)
{
	struct result res[MAX_RTTS];
	struct nt_err err = { { 0 } };
	struct options o;
	int home_ns;

	parse(argc, argv, &o);
	if (nt_netns_current(&home_ns, &err) < 0)
		die("namespace", &err);
	for (int i = 0; i < o.n_rtts; i++) {
		/* About 10 s of round trips each by default, and 20,000 at 1 ms. */
		long rounds = o.rounds ? o.rounds : o.rtt_ms[i] <= 1 ? 20000 : 10000 / o.rtt_ms[i];

		run_one(&o, o.rtt_ms[i], rounds, home_ns, &res[i]);
		/* The machine's noise changes by the minute: measured next to each run. */
		if (o.sleep_samples)
			res[i].sleep_ref = sleep_reference(o.sleep_samples);
	}
	if (o.json)
		print_json(&o, res, o.n_rtts);
	else
		print_text(&o, res, o.n_rtts);
	close(home_ns);
	return 0;
}
