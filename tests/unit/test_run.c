// SPDX-License-Identifier: MIT
/*
 * test_run.c - the pure parts of `nagle-trace run`: its options
 * (nt_run_opts_parse(): defaults, each option, every refusal with its exact
 * text), the --fix list, the exit status, the socket samples and the
 * request -> answer times, and the run block as the text and JSON reports
 * write it.
 *
 * getopt_long() permutes argv, so each parse gets a fresh array.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "nt/cmd/run_opts.h"
#include "nt/exitcode.h"
#include "nt/live/fix.h"
#include "nt/live/procs.h"
#include "nt/model/runinfo.h"
#include "nt/model/turns.h"
#include "nt/render/run.h"

#define MS	 1000000LL
#define ARGS_MAX 32

static int parse_args(struct nt_run_opts *opt, struct nt_err *err, const char *const *args)
{
	char *argv[ARGS_MAX + 2];
	int argc = 0;

	argv[argc++] = (char *)"run";
	while (*args) {
		assert_true(argc <= ARGS_MAX);
		argv[argc++] = (char *)*args++;
	}
	argv[argc] = NULL;
	memset(err, 0, sizeof(*err));
	return nt_run_opts_parse(argc, argv, opt, err);
}

#define PARSE(opt, err, ...) parse_args(opt, err, (const char *const[]){ __VA_ARGS__, NULL })

static void refused(const char *msg, const char *const *args)
{
	struct nt_run_opts opt;
	struct nt_err err;

	assert_int_equal(parse_args(&opt, &err, args), -EINVAL);
	assert_string_equal(err.msg, msg);
}

#define REFUSED(msg, ...) refused(msg, (const char *const[]){ __VA_ARGS__, NULL })

/* what this checks: the defaults: fix none, text, packet capture, 10 s / 60 s, analyze's knobs */
static void test_defaults(void **state)
{
	struct nt_run_opts o;
	struct nt_err err;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "--target", "srv", "--client", "cli"), 0);
	assert_int_equal(o.action, NT_CMD_RUN);
	assert_string_equal(o.job.target_cmd, "srv");
	assert_string_equal(o.job.client_cmd, "cli");
	assert_int_equal(o.n_fixes, 1);
	assert_int_equal(o.fixes[0].kind, NT_FIX_NONE);
	assert_string_equal(o.fixes[0].name, "none");
	assert_string_equal(o.out.format, "text");
	assert_null(o.out.path);
	assert_null(o.out.pcap_path);
	assert_ptr_equal(o.capture, nt_capture_backend("packet"));
	assert_int_equal(o.job.listen_timeout_ns, NT_PROCS_LISTEN_TIMEOUT_NS);
	assert_int_equal(o.job.run_timeout_ns, NT_PROCS_RUN_TIMEOUT_NS);
	assert_int_equal(o.job.wait_port, 0);
	assert_int_equal(o.params.stall.threshold_ns, 10 * MS);
	assert_int_equal(o.params.max_flows, 1048576);
	assert_false(o.ipv6);
	assert_false(o.fail_on_stall);
}

/* what this checks: every option lands where it should */
static void test_every_option(void **state)
{
	struct nt_run_opts o;
	struct nt_err err;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "--target", "s", "--client", "c", "--wait-port", "6379",
			       "--listen-timeout", "0.5", "--timeout", "120", "--target-log",
			       "t.log", "--fix", "none,nodelay,rto-min=5", "--ipv6", "--capture",
			       "none", "--threshold", "20", "--format", "json", "-o", "r.json",
			       "--brief", "--fail-on-stall"),
			 0);
	assert_string_equal(err.msg, "");
	assert_int_equal(o.job.wait_port, 6379);
	assert_int_equal(o.job.listen_timeout_ns, 500 * MS);
	assert_int_equal(o.job.run_timeout_ns, 120000 * MS);
	assert_string_equal(o.target_log, "t.log");
	assert_int_equal(o.n_fixes, 3);
	assert_int_equal(o.fixes[1].kind, NT_FIX_NODELAY);
	assert_int_equal(o.fixes[2].kind, NT_FIX_RTO_MIN);
	assert_int_equal(o.fixes[2].rto_min_ms, 5);
	assert_string_equal(o.fixes[2].name, "rto-min=5");
	assert_string_equal(o.fixes[2].slug, "rto-min-5");
	assert_true(o.ipv6);
	assert_null(o.capture);
	assert_int_equal(o.params.stall.threshold_ns, 20 * MS);
	assert_string_equal(o.out.format, "json");
	assert_string_equal(o.out.path, "r.json");
	assert_true(o.out.brief);
	assert_true(o.fail_on_stall);
	assert_int_equal(PARSE(&o, &err, "--help"), 0);
	assert_int_equal(o.action, NT_CMD_HELP);
	assert_int_equal(PARSE(&o, &err, "--version"), 0);
	assert_int_equal(o.action, NT_CMD_VERSION);
	assert_int_equal(PARSE(&o, &err, "--target", "s", "--client", "c", "-w", "x.pcap",
			       "--capture", "pcap", "--fix", "quickack,nodelay-target"),
			 0);
	assert_string_equal(o.out.pcap_path, "x.pcap");
	assert_ptr_equal(o.capture, nt_capture_backend("pcap"));
	assert_int_equal(o.fixes[0].kind, NT_FIX_QUICKACK);
	assert_int_equal(o.fixes[1].kind, NT_FIX_NODELAY_TARGET);
}

/* what this checks: each refusal, word for word */
static void test_refusals(void **state)
{
	(void)state;
	REFUSED("run needs both --target CMD and --client CMD", "--target", "s");
	REFUSED("run needs both --target CMD and --client CMD", "--client", "c");
	REFUSED("--target: an empty command", "--target", " ", "--client", "c");
	REFUSED("--fix: \"bogus\" is not one of none, nodelay, nodelay-target, quickack, "
		"rto-min=MS",
		"--target", "s", "--client", "c", "--fix", "bogus");
	REFUSED("--fix: \"none\" given twice", "--target", "s", "--client", "c", "--fix",
		"none,none");
	REFUSED("--fix: rto-min needs its milliseconds: rto-min=MS", "--target", "s", "--client",
		"c", "--fix", "rto-min");
	REFUSED("--fix rto-min: \"0\" is out of range (1..1000)", "--target", "s", "--client", "c",
		"--fix", "rto-min=0");
	REFUSED("--fix: \"\" is not one of none, nodelay, nodelay-target, quickack, rto-min=MS",
		"--target", "s", "--client", "c", "--fix", "none,");
	REFUSED("--wait-port: \"0\" is out of range (1..65535)", "--target", "s", "--client", "c",
		"--wait-port", "0");
	REFUSED("--format svg holds one run: give one --fix, or text, json, jsonl, markdown or "
		"html",
		"--target", "s", "--client", "c", "--fix", "none,nodelay", "--format", "svg");
	REFUSED("--write: nothing to write with --capture none", "--target", "s", "--client", "c",
		"--capture", "none", "-w", "x.pcap");
	REFUSED("--write -: several fixes write one pcap file each, which standard output cannot "
		"hold; give a file name",
		"--target", "s", "--client", "c", "--fix", "none,quickack", "-w", "-");
	REFUSED("unexpected argument \"extra\": the commands go in --target CMD and --client CMD "
		"(quoted)",
		"--target", "s", "--client", "c", "extra");
	REFUSED("--capture: unknown back end \"bpf\" (pcap|packet|none)", "--target", "s",
		"--client", "c", "--capture", "bpf");
	REFUSED("-o: an empty file name", "--target", "s", "--client", "c", "-o", "");
}

/* what this checks: numbers go through the one parser, with its messages */
static void test_numbers(void **state)
{
	struct nt_run_opts o;
	struct nt_err err;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "--target", "s", "--client", "c", "--timeout", "abc"),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "--timeout: \"abc\""));
	assert_int_equal(PARSE(&o, &err, "--target", "s", "--client", "c", "--listen-timeout", "0"),
			 -EINVAL);
	assert_int_equal(PARSE(&o, &err, "--target", "s", "--client", "c", "--timeout", "0.001"),
			 0);
	assert_int_equal(o.job.run_timeout_ns, 1 * MS);
	assert_int_equal(PARSE(&o, &err, "--target", "s", "--client", "c", "--timeout", "86401"),
			 -EINVAL);
}

/* what this checks: what each fix sets in the lab and whether it preloads */
static void test_fix_effects(void **state)
{
	struct nt_fix f[NT_FIX_MAX];
	struct nt_err err = { "" };
	unsigned n;

	(void)state;
	assert_int_equal(
		nt_fix_parse_list("none,nodelay,nodelay-target,quickack,rto-min=7", f, &n, &err),
		0);
	assert_int_equal(n, 5);
	for (unsigned i = 0; i < n; i++) {
		struct nt_lab_config lc = { .autocork = -1 };
		bool c, t, pre = nt_fix_needs_preload(&f[i], &c, &t);

		nt_fix_lab(&f[i], &lc);
		assert_int_equal(lc.route_quickack, f[i].kind == NT_FIX_QUICKACK);
		assert_int_equal(lc.route_rto_min_ms, f[i].kind == NT_FIX_RTO_MIN ? 7 : 0);
		assert_int_equal(c, f[i].kind == NT_FIX_NODELAY);
		assert_int_equal(t, f[i].kind == NT_FIX_NODELAY_TARGET);
		assert_int_equal(pre, c || t);
		assert_true(strlen(nt_fix_about(&f[i])) > 0);
	}
	assert_int_equal(nt_fix_parse_list("none,nodelay,quickack,rto-min=1,rto-min=2,rto-min=3,"
					   "rto-min=4,rto-min=5,rto-min=6",
					   f, &n, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "--fix: at most 8 fixes");
}

static void runinfo_ok(struct nt_runinfo *ri, bool client_ok)
{
	nt_runinfo_init(ri);
	ri->end_kind = NT_RUN_END_CLIENT_EXITED;
	ri->client.started = ri->client.exited = true;
	ri->client.exit_status = client_ok ? 0 : 2;
}

/* what this checks: the exit status: signal, then 3, then 1 with --fail-on-stall, else 0 */
static void test_exit_status(void **state)
{
	struct nt_runinfo ri[2];
	struct nt_analysis an[2];
	struct nt_run_report r[2] = { { &ri[0], &an[0], NULL }, { &ri[1], &an[1], NULL } };

	(void)state;
	memset(an, 0, sizeof(an));
	runinfo_ok(&ri[0], true);
	runinfo_ok(&ri[1], true);
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, true), NT_EXIT_OK);
	an[1].sum.stalls = 3;
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, false), NT_EXIT_OK);
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, true), NT_EXIT_EXPECTATION);
	an[1].sum.stalls = 0;
	ri[0].cap_dropped = 1;
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, true), NT_EXIT_EXPECTATION);
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, false), NT_EXIT_OK);
	ri[0].cap_dropped = 0;
	ri[1].client.exit_status = 1;
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, true), NT_EXIT_ENVIRONMENT);
	ri[1].client.exit_status = 0;
	ri[1].end_kind = NT_RUN_END_LISTEN_TIMEOUT;
	ri[1].client.started = false;
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, false), NT_EXIT_ENVIRONMENT);
	assert_int_equal(nt_run_exit_status(r, 2, 2, NT_EXIT_SIGINT, false), NT_EXIT_SIGINT);
	assert_int_equal(nt_run_exit_status(r, 1, 2, 0, false), NT_EXIT_ENVIRONMENT);
	runinfo_ok(&ri[1], true);
	ri[1].end_kind = NT_RUN_END_RUN_TIMEOUT;
	assert_int_equal(nt_run_exit_status(r, 2, 2, 0, false), NT_EXIT_ENVIRONMENT);
}

static struct nt_sock_sample sample(uint16_t port, bool pingpong, unsigned quick, int64_t ato_ms)
{
	struct nt_sock_sample s = { .family = AF_INET, .client_port = port, .target_port = 7000 };

	inet_pton(AF_INET, "192.0.2.1", s.client_addr);
	s.pingpong = pingpong;
	s.quick = quick;
	s.ato_ns = ato_ms * MS;
	return s;
}

/* what this checks: readings group by connection; counts, ato range and the last reading */
static void test_samples(void **state)
{
	struct nt_runinfo ri;
	struct nt_sock_sample s;
	const struct nt_sock_samples *c;

	(void)state;
	nt_runinfo_init(&ri);
	s = sample(40000, false, 16, 40);
	assert_int_equal(nt_runinfo_sample(&ri, &s), 0);
	s = sample(40000, true, 0, 40);
	assert_int_equal(nt_runinfo_sample(&ri, &s), 0);
	s = sample(40001, true, 2, 200);
	assert_int_equal(nt_runinfo_sample(&ri, &s), 0);
	s = sample(40000, true, 0, 80);
	assert_int_equal(nt_runinfo_sample(&ri, &s), 0);
	assert_int_equal(ri.n_socks, 2);
	c = nt_runinfo_find(&ri, 40000, 7000);
	assert_non_null(c);
	assert_int_equal(c->samples, 3);
	assert_int_equal(c->pingpong, 2);
	assert_int_equal(c->quick, 1);
	assert_int_equal(c->ato_min_ns, 40 * MS);
	assert_int_equal(c->ato_max_ns, 80 * MS);
	assert_int_equal(c->last.ato_ns, 80 * MS);
	assert_null(nt_runinfo_find(&ri, 40002, 7000));
	assert_true(nt_run_proc_failed(&ri.client));
	nt_runinfo_fini(&ri);
	nt_runinfo_fini(&ri);
}

static struct nt_tcp_packet packet(bool from_client, uint16_t cport, uint32_t len)
{
	struct nt_tcp_packet p = { .family = AF_INET, .payload_bytes = len };

	inet_pton(AF_INET, from_client ? "192.0.2.1" : "192.0.2.2", p.src_addr);
	inet_pton(AF_INET, from_client ? "192.0.2.2" : "192.0.2.1", p.dst_addr);
	p.src_port = from_client ? cport : 7000;
	p.dst_port = from_client ? 7000 : cport;
	return p;
}

/* what this checks: a turn runs from a request's first data to the answer's; ACKs and bursts don't split it */
static void test_turns(void **state)
{
	struct nt_turns t;
	struct nt_tcp_packet p;
	uint8_t client[4];

	(void)state;
	inet_pton(AF_INET, "192.0.2.1", client);
	nt_turns_init(&t, AF_INET, client);
	/* request in two segments 40 ms apart, a pure ACK between, then the answer */
	p = packet(true, 5000, 4);
	nt_turns_packet(&t, &p, 1000 * MS);
	p = packet(false, 5000, 0);
	nt_turns_packet(&t, &p, 1040 * MS);
	p = packet(true, 5000, 8);
	nt_turns_packet(&t, &p, 1040 * MS);
	p = packet(false, 5000, 2);
	nt_turns_packet(&t, &p, 1041 * MS);
	/* the answer's second segment is no new turn */
	nt_turns_packet(&t, &p, 1042 * MS);
	/* another connection, interleaved: 1 ms */
	p = packet(true, 5001, 10);
	nt_turns_packet(&t, &p, 1050 * MS);
	p = packet(true, 5000, 10);
	nt_turns_packet(&t, &p, 1050 * MS);
	p = packet(false, 5001, 10);
	nt_turns_packet(&t, &p, 1051 * MS);
	p = packet(false, 5000, 10);
	nt_turns_packet(&t, &p, 1053 * MS);
	/* Numbered in the order they started: 5000's first, then 5001's, then 5000's second. */
	assert_int_equal(t.started, 3);
	assert_int_equal(nt_turns_request(&t, 1)->start_t_ns, 1000 * MS);
	assert_int_equal(nt_turns_request(&t, 1)->answer_t_ns, 1041 * MS);
	assert_int_equal(nt_turns_request(&t, 2)->client_port, 5001);
	assert_int_equal(nt_turns_request(&t, 3)->answer_t_ns, 1053 * MS);
	assert_null(nt_turns_request(&t, 4));
	assert_null(nt_turns_request(&t, 0));
	nt_turns_finish(&t);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.p50_ns, 3 * MS);
	assert_int_equal(t.p99_ns, 41 * MS);
	assert_int_equal(t.max_ns, 41 * MS);
	nt_turns_fini(&t);
	nt_turns_fini(&t);
}

/*
 * what this checks: a stall belongs to the last request of its connection
 * that started before its held segment, whichever connection started a
 * request since, and none before the first
 */
static void test_turns_request_of(void **state)
{
	struct nt_turns t;
	struct nt_tcp_packet p;
	uint8_t client[4];

	(void)state;
	inet_pton(AF_INET, "192.0.2.1", client);
	nt_turns_init(&t, AF_INET, client);
	p = packet(false, 5000, 8); /* a greeting: no request */
	nt_turns_packet(&t, &p, 900 * MS);
	assert_int_equal(nt_turns_request_of(&t, 5000, 7000, 900 * MS), 0);
	for (int i = 0; i < 3; i++) {
		p = packet(true, 5000, 4);
		nt_turns_packet(&t, &p, (1000 + 100 * i) * MS);
		p = packet(true, 5001, 4);
		nt_turns_packet(&t, &p, (1001 + 100 * i) * MS);
		p = packet(false, 5000, 2);
		nt_turns_packet(&t, &p, (1044 + 100 * i) * MS);
		p = packet(false, 5001, 2);
		nt_turns_packet(&t, &p, (1045 + 100 * i) * MS);
	}
	/* 5000's requests are 1, 3, 5; 5001's 2, 4, 6. */
	assert_int_equal(nt_turns_request_of(&t, 5000, 7000, 1000 * MS), 1);
	assert_int_equal(nt_turns_request_of(&t, 5000, 7000, 1150 * MS), 3);
	assert_int_equal(nt_turns_request_of(&t, 5001, 7000, 1250 * MS), 6);
	assert_int_equal(nt_turns_request_of(&t, 5001, 7000, 1000 * MS), 0);
	assert_int_equal(nt_turns_request_of(&t, 5002, 7000, 1250 * MS), 0);
	assert_int_equal(nt_turns_request_of(&t, 5000, 7001, 1250 * MS), 0);
	nt_turns_fini(&t);
}

static char *render_text(const struct nt_runinfo *ri)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	nt_run_text_header(f, ri);
	fclose(f);
	return buf;
}

static void fill(struct nt_runinfo *ri)
{
	struct nt_sock_sample s = sample(40000, true, 0, 40);
	uint8_t client[4];

	runinfo_ok(ri, false);
	ri->fix = "nodelay";
	ri->fix_about = "TCP_NODELAY on the client's sockets (LD_PRELOAD)";
	ri->target.cmd = "srv";
	ri->client.cmd = "cli";
	ri->end = "client exited";
	ri->complete = true;
	ri->client.run_ns = 12 * MS;
	ri->target.started = ri->target.exited = ri->target.terminated = true;
	ri->target.signal = 15;
	ri->listen_seen = true;
	snprintf(ri->listen_addr, sizeof(ri->listen_addr), "::");
	ri->listen_port = 7000;
	ri->listen_wait_ns = 5 * MS;
	ri->capture = "packet";
	ri->cap_stats_known = true;
	ri->cap_received = 100;
	ri->cap_dropped = 2;
	ri->ns[NT_RUN_NS_TARGET].known[NT_RUN_DELAYED_ACKS] = true;
	ri->ns[NT_RUN_NS_TARGET].delta[NT_RUN_DELAYED_ACKS] = 19;
	ri->client_stderr_tail = strdup("oops\nboom\n");
	(void)nt_runinfo_sample(ri, &s);
	inet_pton(AF_INET, "192.0.2.1", client);
	nt_turns_init(&ri->turns, AF_INET, client);
}

/* what this checks: the text block names the fix, the ends, the counters, the drops */
static void test_text_header(void **state)
{
	struct nt_runinfo ri;
	char *text;

	(void)state;
	fill(&ri);
	text = render_text(&ri);
	assert_non_null(strstr(text, "nagle-trace run: fix nodelay (TCP_NODELAY on the client's"));
	assert_non_null(strstr(
		text, "listened on :: port 7000 after 5.000 ms; killed by signal 15 (SIGTERM), "
		      "stopped by us (SIGTERM)"));
	assert_non_null(strstr(text, "exit status 2 after 12.000 ms"));
	assert_non_null(strstr(text, "      | oops\n      | boom\n"));
	assert_non_null(strstr(text, "target DelayedACKs 19"));
	assert_non_null(strstr(text, "ping-pong in 1 of 1 readings"));
	assert_non_null(strstr(text, "INCOMPLETE: the capture dropped 2 frames"));
	free(text);
	nt_runinfo_fini(&ri);
}

/* what this checks: the "run" object: exit status or signal, null for unknown, completeness */
static void test_json_object(void **state)
{
	struct nt_runinfo ri;
	bool oom = false;
	struct json_object *o, *v, *p;

	(void)state;
	fill(&ri);
	o = nt_run_json(&oom, &ri);
	assert_false(oom);
	assert_true(json_object_object_get_ex(o, "fix", &v));
	assert_string_equal(json_object_get_string(v), "nodelay");
	assert_true(json_object_object_get_ex(o, "complete", &v));
	assert_false(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "target", &p));
	assert_true(json_object_object_get_ex(p, "signal", &v));
	assert_string_equal(json_object_get_string(v), "SIGTERM");
	assert_true(json_object_object_get_ex(p, "exit_status", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "client", &p));
	assert_true(json_object_object_get_ex(p, "exit_status", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(p, "stderr_tail", &v));
	assert_string_equal(json_object_get_string(v), "oops\nboom\n");
	assert_true(json_object_object_get_ex(o, "counters", &p));
	assert_true(json_object_object_get_ex(p, "target", &p));
	assert_true(json_object_object_get_ex(p, "delayed_acks", &v));
	assert_int_equal(json_object_get_int(v), 19);
	assert_true(json_object_object_get_ex(p, "tcp_autocorking", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "exchanges", &p));
	assert_true(json_object_object_get_ex(p, "p50_ns", &v));
	assert_null(v);
	json_object_put(o);
	nt_runinfo_fini(&ri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),	 cmocka_unit_test(test_every_option),
		cmocka_unit_test(test_refusals),	 cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_fix_effects),	 cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_samples),		 cmocka_unit_test(test_turns),
		cmocka_unit_test(test_turns_request_of), cmocka_unit_test(test_text_header),
		cmocka_unit_test(test_json_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
