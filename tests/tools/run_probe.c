// SPDX-License-Identifier: MIT
/*
 * run_probe.c - the process side of `nagle-trace run` end to end, before the
 * command exists: builds the lab, captures on nt-c into a pcap file, runs the
 * user's target and client through the procs module, and exits with the
 * client's status.
 *
 * usage: unshare -Urn run_probe --target CMD --client CMD [-w FILE]
 *            [--wait-port N] [--listen-timeout S] [--timeout S] [--grace S]
 *            [--fix nodelay|nodelay-target] [--ipv6] [--target-log FILE] [--capture packet|pcap|none]
 *
 * Exit status: the client's (128 + signal when a signal ended it); 3 when the
 * target never listened, a timeout hit or a step failed; 130/143 on
 * SIGINT/SIGTERM. What happened goes to stderr as "run_probe: key: value"
 * lines the integration tests read.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nt/capture/capture.h"
#include "nt/capture/pcap_writer.h"
#include "nt/clock.h"
#include "nt/exitcode.h"
#include "nt/lab/lab.h"
#include "nt/live/procs.h"

#define SNAPLEN	     4096
#define BUFFER_BYTES (4u * 1024 * 1024)

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct probe_opts {
	const char *target, *client, *pcap, *target_log, *capture;
	unsigned wait_port;
	double listen_timeout_s, timeout_s, grace_s;
	bool nodelay, nodelay_target, ipv6;
};

static void usage(void)
{
	fprintf(stderr, "usage: run_probe --target CMD --client CMD [-w FILE] [--wait-port N]\n"
			"       [--listen-timeout S] [--timeout S] [--grace S] [--fix "
			"nodelay|nodelay-target]\n"
			"       [--ipv6] [--target-log FILE] [--capture packet|pcap|none]\n");
	exit(NT_EXIT_USAGE);
}

static void parse(int argc, char **argv, struct probe_opts *o)
{
	static const struct option longs[] = {
		{ "target", required_argument, 0, 't' },
		{ "client", required_argument, 0, 'c' },
		{ "wait-port", required_argument, 0, 'p' },
		{ "listen-timeout", required_argument, 0, 'L' },
		{ "timeout", required_argument, 0, 'T' },
		{ "grace", required_argument, 0, 'g' },
		{ "fix", required_argument, 0, 'f' },
		{ "ipv6", no_argument, 0, '6' },
		{ "target-log", required_argument, 0, 'l' },
		{ "capture", required_argument, 0, 'C' },
		{ 0, 0, 0, 0 },
	};
	int c;

	*o = (struct probe_opts){
		.listen_timeout_s = 10, .timeout_s = 60, .grace_s = 2, .capture = "packet"
	};
	while ((c = getopt_long(argc, argv, "w:", longs, NULL)) != -1) {
		switch (c) {
		case 't':
			o->target = optarg;
			break;
		case 'c':
			o->client = optarg;
			break;
		case 'w':
			o->pcap = optarg;
			break;
		case 'p':
			o->wait_port = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'L':
			o->listen_timeout_s = strtod(optarg, NULL);
			break;
		case 'T':
			o->timeout_s = strtod(optarg, NULL);
			break;
		case 'g':
			o->grace_s = strtod(optarg, NULL);
			break;
		case 'f':
			if (!strcmp(optarg, "nodelay"))
				o->nodelay = true;
			else if (!strcmp(optarg, "nodelay-target"))
				o->nodelay_target = true;
			else
				usage();
			break;
		case '6':
			o->ipv6 = true;
			break;
		case 'l':
			o->target_log = optarg;
			break;
		case 'C':
			o->capture = optarg;
			break;
		default:
			usage();
		}
	}
	if (!o->target || !o->client || optind != argc || o->wait_port > 65535)
		usage();
}

/* The loop: the capture and the run in one ppoll(); signals unblocked only inside it. */
static int run_loop(struct nt_procs *procs, struct nt_capture *cap, struct nt_pcap_writer *w,
		    const sigset_t *waitmask, struct nt_err *err)
{
	for (;;) {
		struct pollfd pfd[1 + NT_PROCS_POLLFDS_MAX];
		struct nt_frame frame;
		int64_t wait_ns = nt_procs_timeout_ns(procs);
		struct timespec ts = { .tv_sec = wait_ns / NT_NS_PER_SEC,
				       .tv_nsec = wait_ns % NT_NS_PER_SEC };
		int n = 0, ret;

		if (cap->ops)
			pfd[n++] = (struct pollfd){ .fd = nt_capture_fd(cap), .events = POLLIN };
		n += nt_procs_pollfds(procs, pfd + n);
		if (ppoll(pfd, (nfds_t)n, wait_ns >= 0 ? &ts : NULL, waitmask) < 0 &&
		    errno != EINTR)
			return nt_err_set(err, -errno, "wait for the run and the capture");
		while (cap->ops && (ret = nt_capture_next(cap, &frame, err)) > 0)
			nt_pcap_writer_dump(w, &frame);
		if (cap->ops && ret < 0)
			return ret;
		ret = nt_procs_advance(procs, err);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
}

static void print_exit(const char *who, const struct nt_procs_exit *x)
{
	char how[96];

	if (!x->started) {
		fprintf(stderr, "run_probe: %s: not started\n", who);
		return;
	}
	nt_procs_describe_status(x->wait_status, how, sizeof(how));
	fprintf(stderr, "run_probe: %s: %s%s%s after %.1f ms\n", who, how,
		x->terminated ? ", terminated by us" : "", x->killed ? ", needed SIGKILL" : "",
		(double)(x->exit_mono_ns - x->start_mono_ns) / 1e6);
}

/* Where the wall time went, in ms from nt_procs_start(); -1 for what did not happen. */
static void print_timings(const struct nt_procs_result *r, int64_t lab_ns, int64_t done_mono_ns)
{
	double t0 = (double)r->start_mono_ns;
	double target = r->target.started ? ((double)r->target.start_mono_ns - t0) / 1e6 : -1;
	double listen = r->listener.seen ? ((double)r->listener.t_mono_ns - t0) / 1e6 : -1;
	double client = r->client.started ? ((double)r->client.start_mono_ns - t0) / 1e6 : -1;
	double client_end = r->client.exited ? ((double)r->client.exit_mono_ns - t0) / 1e6 : -1;

	fprintf(stderr,
		"run_probe: timings ms: lab %.3f, target start %.3f, listen seen %.3f, "
		"client start %.3f, client end %.3f, done %.3f\n",
		(double)lab_ns / 1e6, target, listen, client, client_end,
		((double)done_mono_ns - t0) / 1e6);
}

static int report(const struct nt_procs_result *r)
{
	fprintf(stderr, "run_probe: end: %s\n", nt_procs_end_name(r->end));
	if (r->listener.seen)
		fprintf(stderr, "run_probe: listening: %s port %u after %.1f ms\n",
			r->listener.addr_str, r->listener.port, (double)r->listen_wait_ns / 1e6);
	else if (r->unreachable.seen)
		fprintf(stderr, "run_probe: unreachable listener: %s port %u\n",
			r->unreachable.addr_str, r->unreachable.port);
	print_exit("target", &r->target);
	print_exit("client", &r->client);
	if (r->notes[0])
		fprintf(stderr, "run_probe: note: %s\n", r->notes);
	/* As the command layer will: quote the client's last words when it failed. */
	if (r->client_stderr_tail[0] && !(r->client.exited && r->client.wait_status == 0))
		fprintf(stderr, "run_probe: client stderr tail:\n%s\n", r->client_stderr_tail);
	if (stop_signal)
		return stop_signal == SIGTERM ? NT_EXIT_SIGTERM : NT_EXIT_SIGINT;
	if (r->end != NT_PROCS_END_CLIENT_EXITED || !r->client.exited)
		return NT_EXIT_ENVIRONMENT;
	if (WIFSIGNALED(r->client.wait_status))
		return 128 + WTERMSIG(r->client.wait_status);
	return WEXITSTATUS(r->client.wait_status);
}

static int start_capture(struct nt_capture *cap, const struct probe_opts *o,
			 struct nt_pcap_writer *w, struct nt_err *err)
{
	const struct nt_capture_ops *ops = nt_capture_backend(o->capture);
	struct nt_capture_config cc = {
		.ifname = NT_LAB_CLIENT_IF,
		.filter = "tcp",
		.snaplen = SNAPLEN,
		.buffer_bytes = BUFFER_BYTES,
	};
	int ret;

	/* "none": the run without a capture, to measure what the capture costs. */
	if (!strcmp(o->capture, "none") && !w)
		return 0;
	if (!ops)
		return nt_err_set(err, -EINVAL, "no capture back end \"%s\"", o->capture);
	ret = nt_capture_open(cap, ops, &cc, err);
	if (!ret && w)
		ret = nt_pcap_writer_start(w, cap->linktype, SNAPLEN, err);
	return ret;
}

static void probe_config(struct nt_procs_config *pc, const struct probe_opts *o,
			 const struct nt_lab *lab, const char *preload, int log_fd)
{
	nt_procs_config_init(pc, lab, o->target, o->client);
	pc->listen_timeout_ns = (int64_t)(o->listen_timeout_s * 1e9);
	pc->run_timeout_ns = (int64_t)(o->timeout_s * 1e9);
	pc->term_grace_ns = (int64_t)(o->grace_s * 1e9);
	pc->wait_port = (uint16_t)o->wait_port;
	pc->client_preload = o->nodelay ? preload : NULL;
	pc->target_preload = o->nodelay_target ? preload : NULL;
	pc->stop = &stop_signal;
	if (log_fd >= 0) {
		pc->target_log_fd = log_fd;
		pc->target_log_prefix = NULL;
	}
}

static int probe(const struct probe_opts *o, struct nt_pcap_writer *w, const sigset_t *waitmask,
		 int log_fd, int *code, struct nt_err *err)
{
	struct nt_lab_config lc = { .ipv6 = o->ipv6, .autocork = -1 };
	struct nt_capture cap = { 0 };
	struct nt_procs_config pc;
	struct nt_procs procs;
	struct nt_capture_stats st = { 0 };
	char preload[4096];
	struct nt_lab lab;
	int64_t lab_ns;
	int ret;

	if ((o->nodelay || o->nodelay_target) &&
	    (ret = nt_procs_preload_path(NT_PROCS_NODELAY_LIB, preload, sizeof(preload), err)) < 0)
		return ret;
	lab_ns = nt_now_mono_ns();
	ret = nt_lab_up(&lab, &lc, err);
	if (ret)
		return ret;
	lab_ns = nt_now_mono_ns() - lab_ns;
	ret = start_capture(&cap, o, w, err);
	if (ret)
		goto capture_close;
	probe_config(&pc, o, &lab, preload, log_fd);
	ret = nt_procs_start(&procs, &pc, err);
	if (!ret)
		ret = run_loop(&procs, &cap, w, waitmask, err);
	if (!ret) {
		struct nt_frame frame;

		while (cap.ops && nt_capture_next(&cap, &frame, NULL) > 0)
			nt_pcap_writer_dump(w, &frame);
		if (cap.ops)
			(void)nt_capture_stats(&cap, &st, NULL);
		fprintf(stderr, "run_probe: frames: %lu written, %llu dropped\n",
			w ? nt_pcap_writer_frames(w) : 0UL, (unsigned long long)st.dropped);
		print_timings(nt_procs_result(&procs), lab_ns, nt_now_mono_ns());
		*code = report(nt_procs_result(&procs));
	}
	nt_procs_close(&procs);
capture_close:
	nt_capture_close(&cap);
	nt_lab_down(&lab);
	return ret;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct nt_pcap_writer *w = NULL;
	struct nt_err err = { { 0 } };
	struct probe_opts o;
	sigset_t block, waitmask;
	int code = NT_EXIT_ENVIRONMENT, log_fd = -1, ret;

	/*
	 * A closed 0, 1 or 2 would be reused by our next descriptor (the lab's,
	 * the capture's) and handed to the client as its stdio: fill them first.
	 */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			return NT_EXIT_ENVIRONMENT;
	parse(argc, argv, &o);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Blocked but inside ppoll(): a signal between the stop check and the wait is not lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	if (o.pcap && nt_pcap_writer_new(o.pcap, &w, &err) < 0) {
		fprintf(stderr, "run_probe: %s\n", err.msg);
		return NT_EXIT_FILE;
	}
	if (o.target_log) {
		log_fd = open(o.target_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			fprintf(stderr, "run_probe: open %s: %s\n", o.target_log, strerror(errno));
			return NT_EXIT_FILE;
		}
	}
	ret = probe(&o, w, &waitmask, log_fd, &code, &err);
	if (ret < 0) {
		fprintf(stderr, "run_probe: %s\n", err.msg);
		nt_pcap_writer_abort(w);
		return NT_EXIT_ENVIRONMENT;
	}
	if (w && nt_pcap_writer_commit(w, &err) < 0) {
		fprintf(stderr, "run_probe: %s\n", err.msg);
		return NT_EXIT_FILE;
	}
	return code;
}
