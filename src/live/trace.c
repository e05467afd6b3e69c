// SPDX-License-Identifier: MIT
/*
 * trace.c - the live pipeline: lab -> listener (target namespace) -> capture
 * and client (client namespace) -> one ppoll() loop driving the exchange and
 * draining the capture -> decoder -> flow -> timeline -> rounds.
 *
 * The run is over when the capture itself shows the FIN exchange (the
 * client's ACK of the target's FIN), not after a fixed sleep: the last
 * frame of the connection is then known to have been delivered.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nt/capture/closer.h"
#include "nt/capture/pcap_writer.h"
#include "nt/clock.h"
#include "nt/lab/lab.h"
#include "nt/live/evidence.h"
#include "nt/live/exchange.h"
#include "nt/live/wait.h"
#include "nt/model/decode.h"
#include "nt/model/flow.h"
#include "nt/model/reorder.h"
#include "nt/model/tcp.h"
#include "nt/live/trace.h"

/*
 * The lab caps GSO at one segment per frame (IFLA_GSO_MAX_SEGS = 1), so no
 * frame exceeds the MTU. In immediate mode libpcap uses a TPACKET_V2 ring
 * with one snaplen-sized slot per frame: a 256 KiB snaplen left a 2 MiB ring
 * 8 slots and dropped frames in the quick-ACK variants' bursts. The verdicts
 * need the headers alone (Ethernet, IPv6 and a TCP header with options: 114
 * bytes), so 256 bytes unless -w keeps the frames whole (a 1500-byte MTU
 * frame fits in 2048).
 */
#define CAPTURE_SNAPLEN	      256
#define CAPTURE_SNAPLEN_WHOLE 2048
#define CAPTURE_BUFFER_BYTES  (4u << 20)
#define CAPTURE_BUFFER_MAX    (512u << 20)

/*
 * After the exchange has closed, how long to wait for the FIN exchange to show
 * in the capture, plus two of the path's round trips.
 */
#define TEARDOWN_WAIT_NS (1000 * NT_NS_PER_MS)

/**
 * struct teardown - tracking the FIN exchange in the capture
 * @fin_end: relative sequence just past each direction's FIN, 0 before it
 * @done: the client acknowledged the target's FIN
 */
struct teardown {
	uint32_t fin_end[2];
	bool done;
};

struct pipeline {
	struct nt_record *run;
	const struct nt_record_sink *sink;
	struct nt_capture cap;
	struct nt_flow flow;
	struct nt_reorder reorder;
	struct nt_reorder_rare reorder_rare;
	struct teardown fin;
	int linktype;
	struct nt_pcap_writer *pcap;
	struct nt_evidence *evidence;
	struct nt_lab *lab;
	uint64_t wire_late_seen[NT_WIRE_DIRS][NT_WIRE_HIST_BUCKETS];
	struct nt_wire_late_log *wire_late;
};

/*
 * How late the delay line forwarded @seg, from @ctx, its NT_WIRE_DIRS logs as
 * last copied (run->segment_late).
 */
static int64_t segment_late(const void *ctx, const struct nt_segment *seg)
{
	const struct nt_wire_late_log *logs = ctx;
	const struct nt_wire_late key = {
		.seq = seg->seq, .ack = seg->ack, .len = seg->payload_bytes, .flags = seg->flags
	};

	return nt_wire_late_find(
		&logs[seg->dir == NT_DIR_C2T ? NT_WIRE_TO_TARGET : NT_WIRE_TO_CLIENT], &key);
}

static void fill_sockaddr(struct sockaddr_storage *ss, int family, const struct in6_addr *addr,
			  uint16_t port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = *addr;
		s6->sin6_port = htons(port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, addr, 4);
		s4->sin_port = htons(port);
	}
}

static void track_teardown(struct teardown *fin, const struct nt_segment *seg)
{
	if (seg->flags & NT_TCP_FIN)
		fin->fin_end[seg->dir] = seg->seq_rel + seg->payload_bytes + 1;
	if (seg->dir == NT_DIR_C2T && fin->fin_end[NT_DIR_T2C] && (seg->flags & NT_TCP_ACK) &&
	    seg->ack_rel == fin->fin_end[NT_DIR_T2C])
		fin->done = true;
	if (seg->flags & NT_TCP_RST)
		fin->done = true;
}

/* A segment of the connection below its sender's highest, not a retransmission: counted. */
static void count_reordered(struct pipeline *pl, const struct nt_segment *seg, int64_t t_ns)
{
	const struct nt_reorder_seg rs = {
		.t_ns = t_ns,
		.dir = seg->dir,
		.flags = seg->flags,
		.seq = seg->seq,
		.ack = seg->ack,
		.len = seg->payload_bytes,
	};

	if (nt_reorder_segment(&pl->reorder, &pl->reorder_rare, &rs))
		pl->run->counts.out_of_order[seg->dir]++;
}

static void on_frame(struct pipeline *pl, const struct nt_frame *frame)
{
	struct nt_record *run = pl->run;
	struct nt_tcp_packet pkt;
	struct nt_event ev = { .t_ns = frame->t_ns,
			       .kind = NT_EVENT_SEGMENT,
			       .round = NT_ROUND_NONE };
	enum nt_dir dir;

	run->counts.frames++;
	if (nt_decode_frame(pl->linktype, frame->data, frame->caplen, &pkt) != NT_DECODE_OK ||
	    !nt_flow_direction(&pl->flow, &pkt, &dir)) {
		run->counts.not_decoded++;
		return;
	}
	nt_flow_segment(&pl->flow, &pkt, dir, &ev.seg);
	run->counts.segments++;
	count_reordered(pl, &ev.seg, frame->t_ns);
	/* 1-based, as Wireshark counts: its number in the -w file, which holds the segments. */
	ev.seg.frame_index = run->counts.segments;
	track_teardown(&pl->fin, &ev.seg);
	(void)nt_timeline_append(&run->tl, &ev);
	/* -w holds exactly the frames the timeline was built from. */
	nt_pcap_writer_dump(pl->pcap, frame);
}

static int drain_capture(struct pipeline *pl, struct nt_err *err)
{
	struct nt_frame frame;
	int ret;

	while ((ret = nt_capture_next(&pl->cap, &frame, err)) > 0)
		on_frame(pl, &frame);
	return ret;
}

static void describe_run(struct nt_record *run, const struct nt_trace_config *opt,
			 const struct nt_lab *lab, const struct nt_kernel_facts *kf)
{
	struct nt_record_config *c = &run->cfg;

	c->variant = opt->variant->name;
	c->shape = opt->shape;
	c->pause_ns = opt->pause_ns;
	c->threshold_ns = opt->threshold_ns;
	c->timeout_ns = opt->timeout_ns;
	c->capture = nt_trace_capture(opt)->name;
	c->expect = opt->expect;
	c->family = lab->family;
	snprintf(c->client_addr, sizeof(c->client_addr), "%s", lab->client_addr_str);
	snprintf(c->target_addr, sizeof(c->target_addr), "%s", lab->target_addr_str);
	c->client_port = NT_CLIENT_PORT;
	c->target_port = NT_TARGET_PORT;
	c->ifname = nt_lab_ifname(lab, opt->capture_at);
	c->capture_at = nt_lab_side_name(opt->capture_at);
	c->rtt_ns = opt->rtt_ns;
	c->delay_line = lab->delay_line;
	snprintf(c->kernel, sizeof(c->kernel), "%s", kf->release);
	snprintf(c->hz_source, sizeof(c->hz_source), "%s", kf->hz_source);
}

/*
 * The model predicts each round as it is retired. Knobs it does not take
 * leave the run without a prediction: `--expect auto` then fails, naming
 * why, rather than passing unchecked.
 */
static void start_prediction(struct nt_record *run, const struct nt_trace_config *opt,
			     const struct nt_kernel_facts *kf)
{
	struct nt_predict_knobs k;
	struct nt_err err = { "" };

	nt_trace_knobs(opt, kf, &k);
	if (nt_record_predict(run, &k, &err) < 0)
		snprintf(run->no_prediction, sizeof(run->no_prediction), "%s", err.msg);
}

static void exchange_config(struct nt_exchange_config *xc, const struct nt_trace_config *opt,
			    const struct nt_lab *lab)
{
	const struct nt_variant *v = opt->variant;

	memset(xc, 0, sizeof(*xc));
	xc->shape = opt->shape;
	memcpy(xc->ops, v->ops, sizeof(xc->ops));
	xc->n_ops = v->n_ops;
	xc->client_nodelay = v->client_nodelay;
	xc->server_nodelay = v->server_nodelay;
	xc->server_quickack = v->server_quickack;
	xc->pause_ns = opt->pause_ns;
	xc->handler_ns = opt->handler_ns;
	xc->write_gap_ns = opt->write_gap_ns;
	xc->timeout_ns = opt->timeout_ns;
	xc->hold = opt->step != NULL;
	fill_sockaddr(&xc->client, lab->family, &lab->client_addr, NT_CLIENT_PORT);
	fill_sockaddr(&xc->target, lab->family, &lab->target_addr, NT_TARGET_PORT);
	xc->addr_len = lab->family == AF_INET6 ? sizeof(struct sockaddr_in6)
					       : sizeof(struct sockaddr_in);
}

/* -w: the file header needs the capture's link type, known only once it is open. */
static int start_pcap_writer(struct pipeline *pl, const struct nt_trace_config *opt,
			     const struct nt_capture_config *cc, struct nt_err *err)
{
	if (!opt->pcap)
		return 0;
	pl->pcap = opt->pcap;
	return nt_pcap_writer_start(opt->pcap, pl->linktype, cc->snaplen, err);
}

/* Time since *@t, which moves on to now: one phase of the run's breakdown. */
static int64_t lap(int64_t *t)
{
	int64_t now = nt_now_mono_ns(), d = now - *t;

	*t = now;
	return d;
}

static bool stopped(const struct nt_trace_config *opt)
{
	/* A ppoll() that found work ready left a stop signal pending (nt/live/wait.h). */
	nt_wait_take_signals(opt->waitmask);
	return opt->stop && *opt->stop;
}

static void note_mss(struct pipeline *pl)
{
	pl->run->client_mss = pl->flow.mss[NT_DIR_C2T];
	pl->run->target_mss = pl->flow.mss[NT_DIR_T2C];
}

/*
 * Hands over every round before the last one the client completed. Frames
 * reach the packet socket before the socket they are for (the taps run in
 * dev_queue_xmit_nit() and __netif_receive_skb_core()), so once the client
 * has read reply k + 1 and the capture is drained, round k's frames are all
 * in: its requests were acknowledged and its reply acknowledged by header
 * k + 1 or before.
 */
/* Rounds below @n handed to the report. */
static int retire_below(struct pipeline *pl, unsigned n, struct nt_err *err)
{
	int ret;

	note_mss(pl);
	/* The model judges these rounds on a path as late as the forwarder was. */
	if (pl->lab) {
		pl->run->path_late_ns = nt_lab_wire_late_since(pl->lab, pl->wire_late_seen);
		if (pl->wire_late)
			nt_lab_wire_late_copy(pl->lab, pl->wire_late);
	}
	ret = nt_record_retire(pl->run, n, pl->sink);
	return ret < 0 ? nt_err_set(err, ret, "write the report") : 0;
}

static int retire_rounds(struct pipeline *pl, unsigned rounds_done, struct nt_err *err)
{
	if (rounds_done < 2 || rounds_done - 1 <= pl->run->retired)
		return 0;
	return retire_below(pl, rounds_done - 1, err);
}

/*
 * --step: the client is held before its next round. The last round is
 * complete once the client's ACK of its reply is captured; with no next
 * header to ride on, that ACK waits for the client's delayed-ACK timer (at
 * most TCP_DELACK_MAX, 200 ms), so the capture is drained for a little
 * longer before the round is handed over and the pause begins. Between
 * rounds the target stays in ping-pong mode (a 1 s --pause still stalls).
 * With a delay line that ACK also crosses half the path's round trip.
 */
#define STEP_SETTLE_NS (250 * NT_NS_PER_MS)

static int step_pause(struct pipeline *pl, struct nt_exchange *ex,
		      const struct nt_trace_config *opt, struct nt_err *err)
{
	int64_t until = nt_now_mono_ns() + STEP_SETTLE_NS + opt->rtt_ns;
	int ret;

	for (;;) {
		/* One reading of the clock: a second could make the wait negative (EINVAL). */
		int64_t left = until - nt_now_mono_ns();
		struct timespec ts = nt_ns_timespec(left);
		struct pollfd pfd = { .fd = nt_capture_fd(&pl->cap), .events = POLLIN };

		if (stopped(opt) || left <= 0)
			break;
		if (ppoll(&pfd, 1, &ts, opt->waitmask) < 0 && errno != EINTR)
			return nt_err_set(err, -errno, "wait for the capture");
		ret = drain_capture(pl, err);
		if (ret < 0)
			return ret;
	}
	if (stopped(opt))
		return 0;
	ret = retire_below(pl, ex->rounds_done, err);
	if (ret < 0)
		return ret;
	opt->step(opt->step_ctx, ex->rounds_done);
	nt_exchange_release(ex);
	return 0;
}

/* The loop: returns 0 when the exchange and its teardown are over (or stopped), < 0 on error. */
static int run_loop(struct pipeline *pl, struct nt_exchange *ex, const struct nt_trace_config *opt,
		    struct nt_err *err)
{
	int64_t teardown_deadline = 0;
	bool exchange_done = false;

	for (;;) {
		struct pollfd pfd[4];
		int n = 0, ret;
		int64_t wait_ns = -1;

		if (stopped(opt)) {
			pl->run->interrupted = true;
			return 0;
		}
		pfd[n++] = (struct pollfd){ .fd = nt_capture_fd(&pl->cap), .events = POLLIN };
		if (!exchange_done) {
			n += nt_exchange_pollfds(ex, pfd + n);
			wait_ns = nt_exchange_timeout_ns(ex);
		} else {
			wait_ns = teardown_deadline - nt_now_mono_ns();
			if (wait_ns < 0)
				wait_ns = 0;
		}
		struct timespec ts = nt_ns_timespec(wait_ns);
		if (ppoll(pfd, (nfds_t)n, wait_ns >= 0 ? &ts : NULL, opt->waitmask) < 0 &&
		    errno != EINTR)
			return nt_err_set(err, -errno, "wait for the exchange and the capture");

		ret = drain_capture(pl, err);
		if (ret < 0)
			return ret;
		/* TX timestamps make the client socket poll POLLERR until they are read. */
		nt_evidence_drain_tx(pl->evidence, nt_exchange_client_fd(ex));
		if (!exchange_done) {
			ret = nt_exchange_advance(ex, &pl->run->tl, err);
			if (ret < 0)
				return ret;
			if (ret == 1) {
				exchange_done = true;
				teardown_deadline =
					nt_now_mono_ns() + TEARDOWN_WAIT_NS + 2 * opt->rtt_ns;
			}
			ret = retire_rounds(pl, ex->rounds_done, err);
			if (ret == 0 && ex->cstate == NT_CLIENT_HELD)
				ret = step_pause(pl, ex, opt, err);
			if (ret < 0)
				return ret;
		}
		if (exchange_done && (pl->fin.done || nt_now_mono_ns() >= teardown_deadline))
			return 0;
	}
}

/* In the target namespace: the listener and the evidence files; then back to the client's. */
static int start_target(struct pipeline *pl, struct nt_exchange *ex,
			const struct nt_exchange_config *xc, const struct nt_trace_config *opt,
			const struct nt_lab *lab, struct nt_err *err)
{
	int ret = nt_lab_enter_target(lab, err);

	if (ret == 0)
		ret = nt_exchange_listen(ex, xc, err);
	if (ret == 0)
		ret = nt_evidence_open_target(pl->evidence, &pl->run->evidence, &opt->shape,
					      lab->family, NT_CLIENT_PORT, NT_TARGET_PORT, err);
	if (ret < 0)
		return ret;
	pl->evidence->retired = &pl->run->retired;
	nt_exchange_set_hooks(ex, nt_evidence_hooks(pl->evidence));
	ret = nt_lab_enter_client(lab, err);
	if (ret == 0)
		nt_evidence_open_client(pl->evidence);
	return ret;
}

/*
 * The capture's buffer for one round's frames. The exchange runs on this
 * thread, so while a large request is written nothing drains the capture:
 * two rounds' frames must fit. A ring slot holds one frame's snaplen plus
 * libpcap's headers; a round is a segment per MSS of its bytes and about
 * one ACK for every two (tcp_ack_snd_check()), with room for the handshake:
 * a 16 MiB body at a 256-byte snaplen takes 14 MiB, at 2048 bytes 76 MiB.
 * 4 MiB at least, 512 MiB at most. A packet socket gets no more than
 * net.core.rmem_max of it in a user namespace (nt_trace_capture()).
 */
/* One round's bytes on the wire: the request and the reply. */
static uint64_t round_bytes(const struct nt_shape *s)
{
	return (uint64_t)s->header_bytes + s->body_bytes + s->reply_bytes;
}

static unsigned capture_buffer_bytes(const struct nt_shape *s, unsigned snaplen)
{
	uint64_t round = round_bytes(s);
	uint64_t frames = (round / 1400 + 2) * 3 / 2 + 16;
	uint64_t want = 2 * frames * (snaplen + 128) + CAPTURE_BUFFER_BYTES;

	return want > CAPTURE_BUFFER_MAX ? CAPTURE_BUFFER_MAX : (unsigned)want;
}

const struct nt_capture_ops *nt_trace_capture(const struct nt_trace_config *opt)
{
	if (opt->capture)
		return opt->capture;
	return nt_capture_backend(round_bytes(&opt->shape) > NT_TRACE_PACKET_ROUND_MAX ? "pcap"
										       : "packet");
}

/*
 * At the chosen end of the path (--capture-at): the capture of the traced
 * connection, and -w's header. The packet socket keeps the namespace it was
 * made in (sock_net()), so the thread goes back to the client's at once.
 */
static int start_capture(struct pipeline *pl, const struct nt_trace_config *opt,
			 const struct nt_lab *lab, struct nt_err *err)
{
	char filter[256];
	int ret;

	snprintf(filter, sizeof(filter), "tcp and host %s and host %s and port %d",
		 lab->client_addr_str, lab->target_addr_str, NT_TARGET_PORT);
	struct nt_capture_config cc = {
		.ifname = nt_lab_ifname(lab, opt->capture_at),
		.filter = filter,
		.snaplen = opt->pcap ? CAPTURE_SNAPLEN_WHOLE : CAPTURE_SNAPLEN,
		.buffer_bytes = capture_buffer_bytes(&opt->shape, opt->pcap ? CAPTURE_SNAPLEN_WHOLE
									    : CAPTURE_SNAPLEN),
		.stamps = opt->stamps,
	};
	ret = nt_lab_enter(lab, opt->capture_at, err);
	if (ret < 0)
		return ret;
	ret = nt_capture_open(&pl->cap, nt_trace_capture(opt), &cc, err);
	if (ret == 0)
		ret = nt_lab_enter(lab, NT_LAB_CLIENT, err);
	if (ret < 0)
		return ret;
	pl->linktype = pl->cap.linktype;
	nt_reorder_init(&pl->reorder, &pl->reorder_rare);
	nt_flow_init(&pl->flow, lab->family, &lab->client_addr, NT_CLIENT_PORT, &lab->target_addr,
		     NT_TARGET_PORT);
	return start_pcap_writer(pl, opt, &cc, err);
}

/* After the exchange: the last frames, the kernel's counters, what the capture lost. */
static int end_capture(struct pipeline *pl, struct nt_err *err)
{
	struct nt_record *run = pl->run;
	struct nt_capture_stats st;
	int ret = drain_capture(pl, err);

	if (ret < 0)
		return ret;
	nt_evidence_finish(pl->evidence);
	ret = nt_capture_stats(&pl->cap, &st, err);
	if (ret < 0)
		return ret;
	run->counts.kernel_received = st.received;
	run->counts.kernel_dropped = st.dropped;
	run->counts.if_dropped = st.if_dropped;
	note_mss(pl);
	run->teardown_seen = pl->fin.done;
	return 0;
}

/* Everything between the lab coming up and going down; the capture is closed here. */
static int run_in_lab(struct pipeline *pl, const struct nt_trace_config *opt,
		      const struct nt_lab *lab, int64_t *t, struct nt_err *err)
{
	struct nt_record_timings *tm = &pl->run->timings;
	struct nt_exchange_config xc;
	struct nt_exchange ex;
	int ret;

	memset(&ex, 0, sizeof(ex));
	ex.listen_fd = ex.client_fd = ex.server_fd = -1;
	exchange_config(&xc, opt, lab);
	ret = start_target(pl, &ex, &xc, opt, lab, err);
	if (ret < 0)
		goto exchange_close;
	tm->listen_ns = lap(t);
	ret = start_capture(pl, opt, lab, err);
	if (ret < 0)
		goto capture_close;
	tm->capture_open_ns = lap(t);
	ret = nt_exchange_connect(&ex, err);
	if (ret == 0)
		ret = run_loop(pl, &ex, opt, err);
	if (ret < 0)
		goto capture_close;
	tm->exchange_ns = lap(t);
	ret = end_capture(pl, err);
	tm->assemble_ns = lap(t);
capture_close:
	if (opt->close_later)
		nt_capture_close_later(&pl->cap);
	else
		nt_capture_close(&pl->cap);
exchange_close:
	nt_exchange_close(&ex);
	nt_evidence_close(pl->evidence);
	return ret;
}

int nt_trace_run(const struct nt_trace_config *opt, struct nt_record *run, struct nt_err *err)
{
	const struct nt_variant *v = opt->variant;
	struct nt_lab_config lab_cfg = {
		.ipv6 = opt->ipv6,
		.route_quickack = v->route_quickack,
		.pingpong_thresh = opt->pingpong_thresh,
		.autocork = v->autocork,
		.rtt_ns = opt->rtt_ns,
	};
	struct nt_evidence evidence;
	struct nt_lab lab;
	struct pipeline pl = { .run = run, .sink = opt->sink, .evidence = &evidence, .lab = &lab };
	struct nt_record_timings *tm = &run->timings;
	int64_t t0 = nt_now_mono_ns(), t = t0;
	struct nt_kernel_facts kf;
	int ret;

	memset(&evidence, 0, sizeof(evidence));
	/* The delay line's lateness per segment, for the verdict (run->segment_late). */
	if (opt->rtt_ns > 0) {
		pl.wire_late = calloc(NT_WIRE_DIRS, sizeof(*pl.wire_late));
		if (!pl.wire_late)
			return nt_err_set(err, -ENOMEM, "allocate the delay line's lateness log");
	}
	ret = nt_lab_up(&lab, &lab_cfg, err);
	if (ret < 0) {
		free(pl.wire_late);
		return ret;
	}
	tm->lab_ns = lap(&t);
	/* In the client namespace: its tcp_rmem is the target's, both copied from the first. */
	nt_kernel_facts_read(&kf);
	describe_run(run, opt, &lab, &kf);
	start_prediction(run, opt, &kf);
	if (pl.wire_late) {
		run->segment_late = segment_late;
		run->segment_late_ctx = pl.wire_late;
	}
	ret = run_in_lab(&pl, opt, &lab, &t, err);
	if (ret == 0)
		ret = nt_lab_wire_dropped(&lab, &run->counts.wire_dropped, err);
	/* For the rounds nt_record_finish() retires, after the lab is down. */
	run->path_late_ns = nt_lab_wire_late_since(&lab, pl.wire_late_seen);
	if (pl.wire_late)
		nt_lab_wire_late_copy(&lab, pl.wire_late);
	nt_lab_down(&lab);
	pl.lab = NULL;
	/* Closing the capture, the sockets and the lab (packet_release() waits for RCU). */
	tm->close_ns = lap(&t);
	tm->total_ns = t - t0;
	/*
	 * The last rounds and the summary go to the report after the close, so
	 * the summary's timings are complete (but for this step's own time).
	 */
	if (ret == 0) {
		ret = nt_record_finish(run, opt->sink);
		if (ret < 0)
			nt_err_set(err, ret, "write the report");
	}
	run->segment_late = NULL; /* it reads the log, freed here */
	free(pl.wire_late);
	return ret;
}
