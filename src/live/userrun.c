// SPDX-License-Identifier: MIT
/*
 * userrun.c - one run of the user's programs under one fix (see
 * nt/live/userrun.h): lab -> counters -> capture on the client's end ->
 * procs -> one ppoll() loop -> the analysis.
 *
 * The capture is on nt-c, the client's end, as a trace's is: the client's
 * held segment, the target's late ACK and the released segment all pass
 * there within microseconds of the kernel's decisions, so the stall rule's
 * release window needs no round-trip allowance. It takes every TCP frame of
 * the lab: the commands may open several connections, on any port.
 *
 * When is the capture complete? The run ends when the client has exited and
 * the target is reaped (nt_procs_advance() returns 1). A packet tap sees a
 * frame before the socket it is for (dev_queue_xmit_nit(),
 * __netif_receive_skb_core()), so every frame the client's last read
 * depended on is queued for us by then; the capture is drained once more
 * after the loop. Frames of the target's teardown (its FIN or RST after our
 * SIGTERM) may arrive after that drain and are not waited for: they carry no
 * exchange.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "nt/clock.h"
#include "nt/lab/lab.h"
#include "nt/live/procs.h"
#include "nt/live/userrun.h"
#include "nt/live/wait.h"
#include "nt/model/decode.h"

/*
 * As a trace's capture (src/live/trace.c): the lab caps GSO at one segment
 * per frame, so no frame exceeds the MTU, and libpcap's ring gets one
 * snaplen-sized slot per frame.
 */
#define CAPTURE_SNAPLEN	     4096
#define CAPTURE_BUFFER_BYTES (4u * 1024 * 1024)

struct pipeline {
	const struct nt_userrun_config *cfg;
	struct nt_analysis *an;
	struct nt_runinfo *ri;
	struct nt_capture cap;
	struct nt_userrun_probe probe;
	int64_t next_sample_mono_ns;
};

/*
 * A stall, as the analysis finds it (a batch of frames after its own: the
 * turns have seen its held segment by then), tied to its request by the
 * held segment's time (nt_turns_request_of()).
 */
static void on_stall(void *ctx, const struct nt_flow_entry *e, const struct nt_stall_episode *ep,
		     const struct nt_tcp_packet *release)
{
	struct nt_runinfo *ri = ctx;
	bool from_client = release->family == ri->family &&
			   memcmp(release->src_addr, ri->turns.client_addr,
				  ri->family == AF_INET6 ? 16 : 4) == 0;
	uint16_t cport = from_client ? release->src_port : release->dst_port;
	uint16_t tport = from_client ? release->dst_port : release->src_port;
	const struct nt_run_stalled s = {
		.request = nt_turns_request_of(&ri->turns, cport, tport, ep->held_t_ns),
		.client_port = cport,
		.held_t_ns = ep->held_t_ns,
		.ack_delay_ns = ep->ack_delay_ns,
		.stall_ns = ep->stall_ns,
		.held_len = ep->held_len,
		.delack = ep->delack,
		.held_by_client = ep->dir == NT_DIR_C2T,
	};

	(void)e;
	(void)nt_runinfo_add_stalled(ri, &s);
}

static void on_frame(struct pipeline *pl, const struct nt_frame *frame)
{
	struct nt_tcp_packet pkt;

	if (pl->ri->capture_t0_ns < 0)
		pl->ri->capture_t0_ns = frame->t_ns;
	nt_analysis_frame(pl->an, frame->t_ns, frame->data, frame->caplen);
	if (nt_decode_frame(pl->cap.linktype, frame->data, frame->caplen, &pkt) == NT_DECODE_OK)
		nt_turns_packet(&pl->ri->turns, &pkt, frame->t_ns);
	nt_pcap_writer_dump(pl->cfg->pcap, frame);
}

/* Every frame queued: how many (at most INT_MAX), or a negative errno. */
static int drain_capture(struct pipeline *pl, struct nt_err *err)
{
	struct nt_frame frame;
	int ret, n = 0;

	if (!pl->cap.ops)
		return 0;
	while ((ret = nt_capture_next(&pl->cap, &frame, err)) > 0) {
		on_frame(pl, &frame);
		if (n < INT_MAX)
			n++;
	}
	return ret < 0 ? ret : n;
}

/* In the client namespace: every TCP frame of the lab, into the analysis and -w. */
static int start_capture(struct pipeline *pl, struct nt_err *err)
{
	const struct nt_capture_config cc = {
		.ifname = NT_LAB_CLIENT_IF,
		.filter = "tcp",
		.snaplen = CAPTURE_SNAPLEN,
		.buffer_bytes = CAPTURE_BUFFER_BYTES,
	};
	char name[64];
	int ret;

	if (!pl->cfg->capture)
		return 0;
	ret = nt_capture_open(&pl->cap, pl->cfg->capture, &cc, err);
	if (ret < 0)
		return ret;
	if (nt_analysis_file_begin(pl->an, NT_LAB_CLIENT_IF) < 0)
		return nt_err_set(err, -ENOMEM, "start the analysis");
	pl->an->on_stall = on_stall;
	pl->an->on_stall_ctx = pl->ri;
	nt_analysis_set_linktype(pl->an, pl->cap.linktype,
				 nt_capture_linktype_name(pl->cap.linktype, name, sizeof(name)));
	if (pl->cfg->pcap)
		ret = nt_pcap_writer_start(pl->cfg->pcap, pl->cap.linktype, CAPTURE_SNAPLEN, err);
	return ret;
}

/* The sooner of a wait (-1: none) and @until_ns from now. */
static int64_t sooner(int64_t w, int64_t until_ns)
{
	if (until_ns < 0)
		until_ns = 0;
	return w < 0 || until_ns < w ? until_ns : w;
}

/* How long the loop may sleep: the run's next timer, the next socket sample, the capture's turn. */
static int64_t wait_ns(const struct pipeline *pl, const struct nt_procs *procs, bool sampling,
		       int64_t holdoff_until)
{
	int64_t w = nt_procs_timeout_ns(procs), now = nt_now_mono_ns();

	if (sampling)
		w = sooner(w, pl->next_sample_mono_ns - now);
	if (holdoff_until)
		w = sooner(w, holdoff_until - now);
	return w;
}

/*
 * The capture and the commands in one ppoll(); signals are taken only inside
 * it. After a drain that found frames, the capture's descriptor leaves the
 * poll set for NT_USERRUN_HOLDOFF_NS: on a busy connection a wake-up per
 * frame would compete with the user's programs for the CPU, while the
 * kernel's socket buffer holds the frames, timestamped, until the next drain.
 * The commands' descriptors stay in the set, so their events are not delayed.
 */
static int run_loop(struct pipeline *pl, struct nt_procs *procs, struct nt_err *err)
{
	int64_t holdoff_until = 0;

	for (;;) {
		struct pollfd pfd[1 + NT_PROCS_POLLFDS_MAX];
		bool sampling = nt_procs_phase(procs) == NT_PROCS_CLIENT_RUNNING;
		int64_t w = wait_ns(pl, procs, sampling, holdoff_until);
		struct timespec ts = nt_ns_timespec(w);
		int n = 0, ret;

		if (pl->cap.ops && !holdoff_until)
			pfd[n++] =
				(struct pollfd){ .fd = nt_capture_fd(&pl->cap), .events = POLLIN };
		n += nt_procs_pollfds(procs, pfd + n);
		if (ppoll(pfd, (nfds_t)n, w >= 0 ? &ts : NULL, pl->cfg->waitmask) < 0 &&
		    errno != EINTR)
			return nt_err_set(err, -errno, "wait for the run and the capture");
		/* A ppoll() that found work ready left a stop signal pending (nt/live/wait.h). */
		nt_wait_take_signals(pl->cfg->waitmask);
		if (holdoff_until && nt_now_mono_ns() >= holdoff_until)
			holdoff_until = 0;
		if (!holdoff_until) {
			ret = drain_capture(pl, err);
			if (ret < 0)
				return ret;
			if (ret > 0)
				holdoff_until = nt_now_mono_ns() + NT_USERRUN_HOLDOFF_NS;
		}
		if (sampling && nt_now_mono_ns() >= pl->next_sample_mono_ns) {
			nt_userrun_probe_sample(&pl->probe, pl->ri);
			pl->next_sample_mono_ns = nt_now_mono_ns() + pl->ri->sample_period_ns;
		}
		ret = nt_procs_advance(procs, err);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
}

static void note_proc(struct nt_run_proc *out, const struct nt_procs_exit *x)
{
	out->started = x->started;
	out->exited = x->exited;
	out->terminated = x->terminated;
	out->killed = x->killed;
	if (!x->exited)
		return;
	out->exit_status = WIFEXITED(x->wait_status) ? WEXITSTATUS(x->wait_status) : -1;
	out->signal = WIFSIGNALED(x->wait_status) ? WTERMSIG(x->wait_status) : 0;
	out->run_ns = x->exit_mono_ns - x->start_mono_ns;
}

/* What the commands did, from the procs module's result. */
static int note_result(struct nt_runinfo *ri, const struct nt_procs_result *r, bool stopped)
{
	note_proc(&ri->target, &r->target);
	note_proc(&ri->client, &r->client);
	static const enum nt_run_end kinds[] = {
		[NT_PROCS_END_NONE] = NT_RUN_END_NONE,
		[NT_PROCS_END_CLIENT_EXITED] = NT_RUN_END_CLIENT_EXITED,
		[NT_PROCS_END_TARGET_EXITED] = NT_RUN_END_TARGET_EXITED,
		[NT_PROCS_END_LISTEN_TIMEOUT] = NT_RUN_END_LISTEN_TIMEOUT,
		[NT_PROCS_END_NOT_READY] = NT_RUN_END_NOT_READY,
		[NT_PROCS_END_RUN_TIMEOUT] = NT_RUN_END_RUN_TIMEOUT,
		[NT_PROCS_END_STOPPED] = NT_RUN_END_STOPPED,
		[NT_PROCS_END_FAILED] = NT_RUN_END_FAILED,
	};

	ri->end = nt_procs_end_name(r->end);
	ri->end_kind = (unsigned)r->end < sizeof(kinds) / sizeof(kinds[0]) ? kinds[r->end]
									   : NT_RUN_END_FAILED;
	ri->complete = r->end == NT_PROCS_END_CLIENT_EXITED;
	ri->interrupted = r->end == NT_PROCS_END_STOPPED && stopped;
	ri->listen_seen = r->listener.seen;
	ri->listen_wait_ns = r->listener.seen ? r->listen_wait_ns : -1;
	if (r->listener.seen) {
		snprintf(ri->listen_addr, sizeof(ri->listen_addr), "%s", r->listener.addr_str);
		ri->listen_port = r->listener.port;
	}
	if (r->unreachable.seen)
		snprintf(ri->unreachable, sizeof(ri->unreachable), "%s port %u",
			 r->unreachable.addr_str, r->unreachable.port);
	snprintf(ri->notes, sizeof(ri->notes), "%s", r->notes);
	ri->daemonized = r->daemonized;
	ri->log_matched = r->log_matched;
	ri->ready_tries = r->ready_tries;
	ri->ready_wait_ns = r->ready_wait_ns;
	if (r->client_stderr_tail[0] && nt_run_proc_failed(&ri->client)) {
		ri->client_stderr_tail = strdup(r->client_stderr_tail);
		if (!ri->client_stderr_tail)
			return -ENOMEM;
	}
	return 0;
}

static void procs_config(struct nt_procs_config *pc, const struct nt_userrun_config *cfg,
			 const struct nt_lab *lab)
{
	bool client, target;

	nt_procs_config_init(pc, lab, &cfg->job);
	pc->stop = cfg->stop;
	if (cfg->client_stdout_fd >= 0)
		pc->client_stdout_fd = cfg->client_stdout_fd;
	if (cfg->target_log_fd >= 0) {
		pc->target_log_fd = cfg->target_log_fd;
		pc->target_log_prefix = NULL;
	}
	nt_fix_needs_preload(cfg->fix, &client, &target);
	pc->client_preload = client ? cfg->preload : NULL;
	pc->target_preload = target ? cfg->preload : NULL;
}

/* The commands from start to end, with the capture and the samples; the capture is drained. */
static int run_commands(struct pipeline *pl, const struct nt_lab *lab, struct nt_err *err)
{
	const struct nt_userrun_config *cfg = pl->cfg;
	struct nt_procs_config pc;
	struct nt_procs procs;
	int ret;

	procs_config(&pc, cfg, lab);
	ret = nt_procs_start(&procs, &pc, err);
	if (ret == 0)
		ret = run_loop(pl, &procs, err);
	if (ret == 0 && (ret = drain_capture(pl, err)) > 0)
		ret = 0;
	if (ret == 0)
		ret = note_result(pl->ri, nt_procs_result(&procs), cfg->stop && *cfg->stop);
	if (cfg->target_log_error && cfg->target_log_fd >= 0 &&
	    nt_procs_result(&procs)->target_log_error && !*cfg->target_log_error)
		*cfg->target_log_error = nt_procs_result(&procs)->target_log_error;
	nt_procs_close(&procs);
	if (ret == -ENOMEM)
		nt_err_set(err, ret, "keep the client's stderr");
	return ret;
}

static void describe(struct nt_runinfo *ri, const struct nt_userrun_config *cfg,
		     const struct nt_lab *lab)
{
	struct utsname u;

	ri->fix = cfg->fix->name;
	ri->fix_about = nt_fix_about(cfg->fix);
	ri->target.cmd = cfg->job.target_cmd;
	ri->client.cmd = cfg->job.client_cmd;
	ri->ready_cmd = cfg->job.ready_cmd;
	ri->ready_log = cfg->job.ready_log;
	ri->uids_mapped = nt_procs_uids_mapped();
	ri->family = lab->family;
	snprintf(ri->client_addr, sizeof(ri->client_addr), "%s", lab->client_addr_str);
	snprintf(ri->target_addr, sizeof(ri->target_addr), "%s", lab->target_addr_str);
	ri->capture = cfg->capture ? cfg->capture->name : "none";
	ri->rtt_ns = cfg->rtt_ns;
	ri->delay_line = lab->delay_line;
	ri->sample_period_ns = NT_USERRUN_SAMPLE_NS;
	if (uname(&u) == 0)
		snprintf(ri->kernel, sizeof(ri->kernel), "%s", u.release);
	nt_turns_init(&ri->turns, lab->family, &lab->client_addr);
}

/* After the commands: the counters' deltas and what the capture lost. */
static int finish(struct pipeline *pl, struct nt_err *err)
{
	struct nt_capture_stats st;
	int ret;

	nt_userrun_probe_counters(&pl->probe, pl->ri);
	if (!pl->cap.ops)
		return 0;
	nt_analysis_file_end(pl->an, NULL);
	ret = nt_capture_stats(&pl->cap, &st, err);
	if (ret < 0)
		return ret;
	pl->ri->cap_stats_known = true;
	pl->ri->cap_received = st.received;
	pl->ri->cap_dropped = st.dropped;
	pl->ri->cap_if_dropped = st.if_dropped;
	return 0;
}

int nt_userrun(const struct nt_userrun_config *cfg, struct nt_analysis *an, struct nt_runinfo *ri,
	       struct nt_err *err)
{
	struct nt_lab_config lc = { .ipv6 = cfg->ipv6, .autocork = -1, .rtt_ns = cfg->rtt_ns };
	struct pipeline pl = {
		.cfg = cfg,
		.an = an,
		.ri = ri,
		.probe = { .tcp_fd = { -1, -1 }, .netstat_fd = { -1, -1 } },
	};
	struct nt_lab lab;
	int ret;

	nt_fix_lab(cfg->fix, &lc);
	ret = nt_lab_up(&lab, &lc, err);
	if (ret < 0)
		return ret;
	describe(ri, cfg, &lab);
	ret = nt_userrun_probe_open(&pl.probe, &lab, err);
	if (ret == 0)
		ret = start_capture(&pl, err);
	if (ret == 0)
		ret = run_commands(&pl, &lab, err);
	if (ret == 0)
		ret = finish(&pl, err);
	if (ret == 0)
		ret = nt_lab_wire_dropped(&lab, &ri->wire_dropped, err);
	nt_capture_close(&pl.cap);
	nt_userrun_probe_close(&pl.probe);
	nt_lab_down(&lab);
	nt_turns_finish(&ri->turns);
	nt_analysis_finish(an);
	return ret;
}
