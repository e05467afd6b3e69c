// SPDX-License-Identifier: MIT
/*
 * watch.c - `nagle-trace watch`: name Nagle/delayed-ACK stalls on this host
 * as they happen (docs/watch.md).
 *
 * One thread, one ppoll() loop: libpcap (the pcap back end, immediate mode,
 * kernel timestamps) hands over frames; they go through the analysis that
 * analyze uses (nt_analysis_frame(), the same flow table and stall rule),
 * settled at the end of every wake-up, so a stall is found within one read
 * of its release; the analysis tells this file of each stall
 * (struct nt_analysis.on_stall), which asks the host about both ends
 * (src/live/sockowner.c: sock_diag, /proc) and prints one line or record at
 * once. Reports of flows that left the table are dropped after every
 * wake-up (nt_analysis_drop_closed()): the summary (nt/model/watch.h) keeps
 * what it needs, so memory follows the flows in the table, not the run's
 * length.
 *
 * Read-only by construction: nothing here opens a file for writing but
 * standard output, and no call sets a sysctl, route, qdisc or socket option
 * of the host (the capture's own socket options are libpcap's, on its own
 * socket).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "nt/capture/capture.h"
#include "nt/capture/pcap_file.h"
#include "nt/clock.h"
#include "nt/cmd/cmd.h"
#include "nt/cmd/watch_opts.h"
#include "nt/exitcode.h"
#include "nt/live/sockowner.h"
#include "nt/model/watch.h"
#include "nt/render/watch.h"

/* Headers of Linux cooked v2 (20) + IPv6 (40) + TCP with options (60), and room to spare. */
#define WATCH_SNAPLEN 256u
/* The kernel's buffer: at 1 Mpps of 100-byte frames, about 300 ms of frames. */
#define WATCH_BUFFER_BYTES (32u << 20)

/**
 * struct watch - one watch
 * @o: the options
 * @an: the analysis
 * @so: the host lookups
 * @sum: the summary
 * @jsonl: the stall record's template (--format jsonl), NULL for text
 * @out: where lines go (standard output)
 * @frames: frames read
 * @write_err: the first failed write to @out (negative errno), 0 none
 */
struct watch {
	const struct nt_watch_opts *o;
	struct nt_analysis an;
	struct nt_sockowner *so;
	struct nt_watch_sum *sum;
	struct nt_watch_jsonl *jsonl;
	FILE *out;
	uint64_t frames;
	int write_err;
};

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return nt_timespec_ns(&ts);
}

static void on_stall(void *ctx, const struct nt_flow_entry *e, const struct nt_stall_episode *ep,
		     const struct nt_tcp_packet *release)
{
	struct watch *w = ctx;
	size_t alen = e->flow.family == AF_INET6 ? 16 : 4;
	struct nt_watch_stall st = {
		.ep = *ep,
		.family = e->flow.family,
		.client_port = e->flow.client_port,
		.target_port = e->flow.target_port,
		.held_seq_rel = ep->held_seq - e->flow.isn[ep->dir],
		.release_bytes = release->payload_bytes,
	};
	int ret;

	memcpy(st.client_addr, e->flow.client_addr, alen);
	memcpy(st.target_addr, e->flow.target_addr, alen);
	nt_sockowner_fill(w->so, &st);
	nt_watch_sum_recall(w->sum, &st);
	nt_watch_sum_add(w->sum, &st);
	if (w->write_err)
		return;
	/* Flushed once the wake-up's frames are settled (settle()): one write for its stalls. */
	ret = w->jsonl ? nt_watch_jsonl_stall(w->jsonl, w->out, &st)
		       : nt_watch_text_stall(w->out, &st);
	if (ret)
		w->write_err = ret;
}

/*
 * The batch of a wake-up into its flows, the reports of flows gone from the
 * table out, and the wake-up's stall lines to the terminal or pipe.
 */
static void settle(struct watch *w)
{
	struct nt_analysis_batch *b = w->an.batch;

	(void)nt_analysis_settle(&w->an, b->p, b->n);
	b->n = 0;
	nt_analysis_drop_closed(&w->an);
	if (!w->write_err && fflush(w->out))
		w->write_err = -errno;
}

/*
 * Frames read per wake-up at most: under a flood the queue may never empty,
 * and the loop must still see a signal, the deadline and the stalls found.
 */
#define DRAIN_MAX 4096

/* The frames queued; 1 when -c is reached, 0 when drained (or DRAIN_MAX read), < 0 an error. */
static int drain(struct watch *w, struct nt_capture *cap, struct nt_err *err)
{
	struct nt_frame fr;
	int ret = 0;

	for (unsigned n = 0; n < DRAIN_MAX && (ret = nt_capture_next(cap, &fr, err)) == 1; n++) {
		(void)nt_analysis_frame(&w->an, fr.t_ns, fr.data, fr.caplen);
		w->frames++;
		if (w->o->max_packets && w->frames >= w->o->max_packets)
			return 1;
	}
	return ret == 1 ? 0 : ret;
}

/*
 * At a stop (a signal, --duration), the frames the kernel had queued by then:
 * received (ps_recv counts them) and not dropped, they are the summary's
 * too, or it would count as seen what it never analysed. Frames stamped
 * after @until_ns are no longer the run's: the first one ends the drain, so
 * a flood cannot keep it going.
 */
static int drain_backlog(struct watch *w, struct nt_capture *cap, int64_t until_ns,
			 struct nt_err *err)
{
	struct nt_frame fr;
	int ret;

	while ((ret = nt_capture_next(cap, &fr, err)) == 1) {
		(void)nt_analysis_frame(&w->an, fr.t_ns, fr.data, fr.caplen);
		w->frames++;
		if (fr.t_ns > until_ns)
			break;
	}
	settle(w);
	return ret < 0 ? ret : 0;
}

/*
 * Until a signal, -c, --duration, a failed write or a capture error. Signals
 * are blocked but in ppoll(), so a SIGINT between the flag's test and the
 * wait is not lost.
 */
static int loop(struct watch *w, struct nt_capture *cap, const char **why, struct nt_err *err)
{
	int64_t deadline = w->o->duration_ns ? now_ns(CLOCK_MONOTONIC) + w->o->duration_ns : 0;
	struct pollfd pfd = { .fd = nt_capture_fd(cap), .events = POLLIN };
	sigset_t waitmask;
	int ret;

	nt_cmd_signals_block(NULL, &waitmask);
	for (;;) {
		struct timespec ts, *tsp = NULL;

		if (nt_cmd_stop) {
			*why = nt_cmd_stop == SIGTERM ? "SIGTERM" : "SIGINT";
			return drain_backlog(w, cap, now_ns(CLOCK_REALTIME), err);
		}
		if (w->write_err) {
			*why = "output";
			return 0;
		}
		if (deadline) {
			int64_t left = deadline - now_ns(CLOCK_MONOTONIC);

			if (left <= 0) {
				*why = "duration";
				return drain_backlog(w, cap, now_ns(CLOCK_REALTIME), err);
			}
			ts.tv_sec = left / NT_NS_PER_SEC;
			ts.tv_nsec = left % NT_NS_PER_SEC;
			tsp = &ts;
		}
		if (ppoll(&pfd, 1, tsp, &waitmask) < 0 && errno != EINTR)
			return nt_err_set(err, -errno, "poll the capture");
		ret = drain(w, cap, err);
		settle(w);
		if (ret == 1) {
			*why = "count";
			return 0;
		}
		if (ret < 0)
			return ret;
		/* An error on the socket with no frame and no error from libpcap: the link is gone. */
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
			return nt_err_set(err, -ENODEV,
					  "capture on \"%s\": the interface went away",
					  w->o->ifname);
	}
}

/* The summary, complete or absent: made in memory, then written at once. */
static int write_summary(struct watch *w, const struct nt_watch_end *end)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = w->o->jsonl ? nt_watch_jsonl_summary(m, w->sum, end)
			  : nt_watch_text_summary(m, w->sum, end);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (!ret && !w->write_err && (fwrite(buf, 1, len, w->out) != len || fflush(w->out)))
		ret = -errno;
	free(buf);
	return ret;
}

static int open_capture(const struct nt_watch_opts *o, struct nt_capture *cap)
{
	struct nt_capture_config cfg = { .ifname = o->ifname,
					 .filter = o->kernel_filter,
					 .snaplen = WATCH_SNAPLEN,
					 .buffer_bytes = WATCH_BUFFER_BYTES };
	struct nt_err err = { "" };
	int ret = nt_capture_open(cap, &nt_capture_pcap_ops, &cfg, &err);

	if (ret == -EPERM) {
		fprintf(stderr,
			"nagle-trace: watch needs CAP_NET_RAW to capture on \"%s\" (run it as root "
			"or give it the capability): %s\n",
			o->ifname, err.msg);
		return NT_EXIT_ENVIRONMENT;
	}
	if (ret < 0) {
		return nt_cmd_fail(NT_EXIT_ENVIRONMENT, &err);
	}
	return NT_EXIT_OK;
}

/* Namespaces whose sockets watch cannot see, said once at start (the summary says it again). */
static void say_netns(const struct nt_sockns *ns)
{
	uint32_t n = ns->denied + ns->over;

	if (ns->denied)
		fprintf(stderr,
			"nagle-trace: watch cannot enter %" PRIu32 " of the %" PRIu32
			" other network namespaces of this host's processes (setns: %s; it needs "
			"CAP_SYS_ADMIN): sockets in them show as not on this host\n",
			n, ns->n + ns->over, strerror(ns->denied_errno));
	else if (ns->over)
		fprintf(stderr,
			"nagle-trace: watch looks into %u other network namespaces, not the "
			"%" PRIu32
			" more this host has: sockets in those show as not on this host\n",
			NT_SOCKNS_MAX, ns->over);
}

static int finish(struct watch *w, struct nt_capture *cap, int64_t start_t_ns, const char *why,
		  bool failed)
{
	struct nt_capture_stats cs = { 0 };
	struct nt_err err = { "" };
	struct nt_watch_end end = {
		.ifname = w->o->ifname,
		.filter = w->o->kernel_filter,
		.start_t_ns = start_t_ns,
		.end_t_ns = now_ns(CLOCK_REALTIME),
		.why = why,
	};
	int ret;

	end.stats_known = nt_capture_stats(cap, &cs, &err) == 0;
	end.received = cs.received;
	end.dropped = cs.dropped;
	end.if_dropped = cs.if_dropped;
	nt_analysis_file_end(&w->an, NULL);
	nt_analysis_drop_closed(&w->an);
	end.frames = w->an.sum.packets;
	end.tcp_frames = w->an.sum.tcp_packets;
	end.flows = w->an.sum.flows;
	end.oom = w->an.oom;
	end.netns = w->so->ns.own;
	end.netns_seen = w->so->ns.n + w->so->ns.over;
	end.netns_denied = w->so->ns.denied + w->so->ns.over;
	end.complete = !failed && end.stats_known && !cs.dropped && !cs.if_dropped && !end.oom;
	w->sum->think_time = w->an.sum.think_time;
	ret = write_summary(w, &end);
	if (ret == -EPIPE || w->write_err == -EPIPE)
		return NT_EXIT_OK;
	if (ret || w->write_err) {
		fprintf(stderr, "nagle-trace: write standard output: %s\n",
			strerror(-(ret ? ret : w->write_err)));
		return NT_EXIT_FILE;
	}
	if (nt_cmd_stop)
		return nt_cmd_stop_status();
	if (failed)
		return NT_EXIT_ENVIRONMENT;
	return end.complete ? NT_EXIT_OK : NT_EXIT_EXPECTATION;
}

static int run(const struct nt_watch_opts *o)
{
	struct watch w = { .o = o, .out = stdout };
	struct nt_err err = { "" };
	struct nt_capture cap = { 0 };
	const char *why = "error";
	char lt[64], failed[sizeof(err.msg) + 64];
	int64_t start;
	int code, ret;

	if (nt_pcap_file_check_filter(o->kernel_filter, &err) < 0)
		return nt_cmd_usage_error("watch", err.msg);
	w.so = calloc(1, sizeof(*w.so));
	w.sum = malloc(sizeof(*w.sum));
	w.jsonl = o->jsonl ? nt_watch_jsonl_new() : NULL;
	if (!w.so || !w.sum || (o->jsonl && !w.jsonl) || nt_analysis_init(&w.an, &o->params) < 0 ||
	    nt_analysis_file_begin(&w.an, o->ifname) < 0) {
		fprintf(stderr, "nagle-trace: watch: out of memory\n");
		code = NT_EXIT_ENVIRONMENT;
		goto free;
	}
	nt_watch_sum_init(w.sum);
	if (nt_sockowner_open(w.so, &err) < 0) {
		code = nt_cmd_fail(NT_EXIT_ENVIRONMENT, &err);
		goto free;
	}
	say_netns(&w.so->ns);
	nt_cmd_signals_install();
	code = open_capture(o, &cap);
	if (code != NT_EXIT_OK)
		goto close_owner;
	nt_analysis_set_linktype(&w.an, cap.linktype,
				 nt_capture_linktype_name(cap.linktype, lt, sizeof(lt)));
	w.an.on_stall = on_stall;
	w.an.on_stall_ctx = &w;
	fprintf(stderr, "nagle-trace: watching \"%s\" (%s), filter \"%s\"; read-only\n", o->ifname,
		lt, o->kernel_filter);
	start = now_ns(CLOCK_REALTIME);
	ret = loop(&w, &cap, &why, &err);
	if (ret < 0) {
		snprintf(failed, sizeof(failed), "capture on \"%s\" ended: %s", o->ifname, err.msg);
		why = failed;
	}
	code = finish(&w, &cap, start, why, ret < 0);
	if (ret < 0)
		fprintf(stderr, "nagle-trace: %s\n", failed);
	nt_capture_close(&cap);
close_owner:
	nt_sockowner_close(w.so);
free:
	nt_analysis_fini(&w.an);
	free(w.so);
	free(w.sum);
	nt_watch_jsonl_free(w.jsonl);
	return code;
}

int nt_cmd_watch(int argc, char **argv)
{
	struct nt_watch_opts o;
	struct nt_err err = { "" };
	int code;

	if (nt_watch_opts_parse(argc, argv, &o, &err) < 0)
		code = nt_cmd_usage_error("watch", err.msg);
	else if (o.action == NT_CMD_HELP)
		code = nt_cmd_print_info(nt_watch_opts_usage);
	else if (o.action == NT_CMD_VERSION)
		code = nt_cmd_print_info(nt_cmd_version);
	else
		code = run(&o);
	nt_watch_opts_fini(&o);
	return code;
}
