/* SPDX-License-Identifier: MIT */
/*
 * run.h - one traced exchange, everything the renderers need: the
 * configuration as run, the timeline, the rounds and their summary, the
 * capture's counters and whether the expectation held. Pure data.
 */
#ifndef NT_MODEL_RUN_H
#define NT_MODEL_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/event.h"
#include "nt/model/rounds.h"

#define NT_SCHEMA_VERSION 1

/**
 * struct nt_run_config - how the run was made
 * @variant: variant name ("default")
 * @shape: sizes and rounds
 * @pause_ns: pause between rounds
 * @threshold_ns: stall threshold
 * @timeout_ns: per-round timeout
 * @capture: capture back end name
 * @expect: the expectation checked for the exit status
 * @family: AF_INET or AF_INET6
 * @client_addr: printable client address
 * @target_addr: printable target address
 * @client_port: client port
 * @target_port: target port
 * @ifname: the captured interface (the client's veth end)
 * @kernel: `uname -r` of the kernel that ran it
 */
struct nt_run_config {
	const char *variant;
	struct nt_shape shape;
	int64_t pause_ns;
	int64_t threshold_ns;
	int64_t timeout_ns;
	const char *capture;
	enum nt_expect expect;
	int family;
	char client_addr[48];
	char target_addr[48];
	uint16_t client_port;
	uint16_t target_port;
	const char *ifname;
	char kernel[72];
};

/**
 * struct nt_capture_counts - what the capture saw and lost
 * @frames: frames delivered to us
 * @segments: frames decoded as segments of the traced connection
 * @not_decoded: frames skipped as not TCP, truncated, malformed or foreign
 * @kernel_received: the back end's own received count
 * @kernel_dropped: frames the kernel dropped before we read them
 * @if_dropped: frames the interface dropped
 */
struct nt_capture_counts {
	uint64_t frames;
	uint64_t segments;
	uint64_t not_decoded;
	uint64_t kernel_received;
	uint64_t kernel_dropped;
	uint64_t if_dropped;
};

/**
 * struct nt_run - one traced run
 * @cfg: configuration
 * @tl: the timeline
 * @rounds: @cfg.shape.rounds assembled rounds
 * @summary: their summary
 * @counts: capture counters
 * @client_mss: MSS option in the client's SYN (0 unknown)
 * @target_mss: MSS option in the target's SYN-ACK (0 unknown)
 * @teardown_seen: the FIN exchange was captured in full
 * @uncertain: frames were lost, so a verdict may be wrong
 * @expectation_met: the expectation held (and nothing is uncertain)
 * @expectation_reason: why not, one line
 * @interrupted: the run was stopped by a signal before it finished
 */
struct nt_run {
	struct nt_run_config cfg;
	struct nt_timeline tl;
	struct nt_round *rounds;
	struct nt_summary summary;
	struct nt_capture_counts counts;
	uint16_t client_mss;
	uint16_t target_mss;
	bool teardown_seen;
	bool uncertain;
	bool expectation_met;
	char expectation_reason[256];
	bool interrupted;
};

/**
 * nt_run_finish() - assemble rounds, summarize and check the expectation
 * @run: a run whose timeline is complete
 *
 * Return: 0 or -ENOMEM.
 */
int nt_run_finish(struct nt_run *run);

/**
 * nt_run_fini() - free what the run owns; safe on a zeroed run
 * @run: the run
 */
void nt_run_fini(struct nt_run *run);

#endif
