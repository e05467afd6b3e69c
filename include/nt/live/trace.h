/* SPDX-License-Identifier: MIT */
/*
 * trace.h - one live run: build a lab, run one variant of the exchange while
 * capturing, and turn what was captured into a run (the source of the
 * trace command).
 */
#ifndef NT_LIVE_TRACE_H
#define NT_LIVE_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "nt/capture/capture.h"
#include "nt/capture/pcap_writer.h"
#include "nt/err.h"
#include "nt/lab/lab.h"
#include "nt/live/kernel.h"
#include "nt/live/variant.h"
#include "nt/model/record.h"

#define NT_TARGET_PORT 5001
#define NT_CLIENT_PORT 40000

/**
 * struct nt_trace_config - one live run
 * @variant: what to run
 * @shape: sizes and rounds
 * @pause_ns: client pause between rounds
 * @threshold_ns: stall threshold
 * @timeout_ns: per-round timeout
 * @handler_ns: server think time
 * @write_gap_ns: client pause between its two writes
 * @capture: the capture back end, NULL to pick by the round's size
 *           (nt_trace_capture())
 * @expect: the expectation to check
 * @ipv6: run over IPv6
 * @pingpong_thresh: target's net.ipv4.tcp_pingpong_thresh, 0 to leave
 * @rtt_ns: round-trip time of the path, half each way through the lab's delay
 *          line (nt/lab/wire.h); 0 for the plain veth pair
 * @capture_at: the end of the path the capture runs at (--capture-at)
 * @stop: set asynchronously (by a signal handler) to stop the run early; may be NULL
 * @pcap: -w: a writer made with nt_pcap_writer_new() that receives every frame
 *        of the traced connection, or NULL; the caller commits or aborts it
 * @sink: where the run's rounds go as they complete (a renderer's), or NULL
 * @close_later: close the capture in the background (nt_capture_close_later()),
 *               while the caller goes on; the caller drains the closer
 * @step: NULL, or called after each round is complete and handed to @sink
 *        and before the next begins (the client is held meanwhile, with no
 *        clock running: --step); returns when the run may go on
 * @step_ctx: passed to @step
 * @stamps: the command's receive-timestamp keeper, opened before the lab is
 *          built (nt/capture/stamps.h), or NULL
 * @waitmask: the signal mask the run's waits (ppoll()) take, or NULL to keep
 *            the thread's: with SIGINT and SIGTERM blocked elsewhere and open
 *            here, a signal between the check of @stop and the wait is not
 *            lost (it ends the wait)
 */
struct nt_trace_config {
	const struct nt_variant *variant;
	struct nt_shape shape;
	int64_t pause_ns;
	int64_t threshold_ns;
	int64_t timeout_ns;
	int64_t handler_ns;
	int64_t write_gap_ns;
	const struct nt_capture_ops *capture;
	enum nt_expect expect;
	bool ipv6;
	int pingpong_thresh;
	int64_t rtt_ns;
	enum nt_lab_side capture_at;
	volatile sig_atomic_t *stop;
	struct nt_pcap_writer *pcap;
	const struct nt_record_sink *sink;
	bool close_later;
	void (*step)(void *ctx, unsigned round);
	void *step_ctx;
	struct nt_rx_stamps *stamps;
	const sigset_t *waitmask;
};

/**
 * nt_trace_run() - build the lab, run the exchange, capture, assemble
 * @opt: the options
 * @run: filled (free with nt_record_fini() whatever the result)
 * @err: names the step that failed
 *
 * Rounds are handed to @opt->sink as soon as the capture shows a later round
 * complete, and their events are freed: memory stays flat however many
 * rounds run. When @opt->stop becomes nonzero the exchange is abandoned,
 * what was captured is kept and @run->interrupted is set; that is not an
 * error.
 *
 * Return: 0, a negative errno (-EPERM: no privileges for namespaces), or the
 * sink's error.
 */
int nt_trace_run(const struct nt_trace_config *opt, struct nt_record *run, struct nt_err *err);

/* Rounds (request + reply bytes) above this are captured with libpcap's ring by default. */
#define NT_TRACE_PACKET_ROUND_MAX (2u << 20) /* 2 MiB */

/**
 * nt_trace_capture() - the capture back end a run uses: @opt->capture, or
 * when NULL the raw packet socket for rounds up to NT_TRACE_PACKET_ROUND_MAX
 * and libpcap's TPACKET ring above
 * @opt: the run
 *
 * Why: a packet socket queues frames against SO_RCVBUF, charged at each
 * skb's truesize, and in a user namespace SO_RCVBUFFORCE is refused
 * (sockopt_capable(CAP_NET_ADMIN) asks the initial namespace), so the
 * buffer stops at net.core.rmem_max (4 MiB here). The exchange runs on the
 * capture's thread and veth delivers a whole write's segments inside that
 * write, so a round must fit: measured here, 4 MiB bodies fit and 8 MiB
 * bodies lose thousands of frames. A TPACKET ring is not charged to
 * SO_RCVBUF and takes the size asked for.
 *
 * Return: the back end.
 */
const struct nt_capture_ops *nt_trace_capture(const struct nt_trace_config *opt);

/**
 * nt_trace_knobs() - the model's knobs for a live run: its shape, times,
 * variant, lab settings and the running kernel
 * @opt: the run
 * @kf: the kernel (nt_kernel_facts_read())
 * @k: filled
 *
 * `nagle-trace predict` and the live run's `--expect auto` share it, so a
 * prediction is made from exactly what the run does.
 */
void nt_trace_knobs(const struct nt_trace_config *opt, const struct nt_kernel_facts *kf,
		    struct nt_predict_knobs *k);

#endif
