/* SPDX-License-Identifier: MIT */
/*
 * userrun.h - one run of the user's own target and client in a fresh lab
 * (`nagle-trace run`, one fix): lab -> capture on the client's end -> the
 * commands (nt/live/procs.h) -> one ppoll() loop that streams every captured
 * frame into the analysis `nagle-trace analyze` uses (nt/model/analysis.h)
 * and into -w's file, samples the target's sockets from its namespace's
 * /proc/net/tcp while they live, and reads each namespace's TcpExt counters
 * before and after.
 *
 * One thread, no signal handling of its own: the caller's handler sets
 * *stop, and the caller passes the signal mask ppoll() waits with, so a
 * signal blocked elsewhere is taken only inside the wait and never lost
 * between the check and the sleep.
 */
#ifndef NT_LIVE_USERRUN_H
#define NT_LIVE_USERRUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "nt/capture/capture.h"
#include "nt/capture/pcap_writer.h"
#include "nt/err.h"
#include "nt/live/fix.h"
#include "nt/live/procs.h"
#include "nt/model/analysis.h"
#include "nt/model/runinfo.h"

/* How often the target's sockets are read while the client runs. */
#define NT_USERRUN_SAMPLE_NS (5LL * 1000000LL)
/* After a drain that found frames, the capture waits this long for the next (see userrun.c). */
#define NT_USERRUN_HOLDOFF_NS (1LL * 1000000LL)

/**
 * struct nt_userrun_config - one run
 * @job: the commands, the port to wait for and the timeouts
 * @target_log_fd: where the target's output goes as it is; -1: standard
 *                 error, each line prefixed "target: "
 * @client_stdout_fd: the client's standard output; -1 for ours
 * @ipv6: the lab speaks IPv6
 * @fix: the fix to run under
 * @preload: the TCP_NODELAY library's path, when @fix needs it
 * @capture: the capture back end, NULL for no capture (to measure its cost)
 * @pcap: -w's writer (started here with the capture's link type), or NULL
 * @stop: set by the caller's signal handler
 * @waitmask: the signal mask to wait with (SIGINT/SIGTERM unblocked), NULL
 *            for the current one
 * @target_log_error: when not NULL, gets the first failed write of the
 *                    target's output to @target_log_fd (negative errno), if
 *                    one failed (left alone otherwise)
 */
struct nt_userrun_config {
	struct nt_procs_job job;
	int target_log_fd;
	int client_stdout_fd;
	bool ipv6;
	int64_t rtt_ns;
	const struct nt_fix *fix;
	const char *preload;
	const struct nt_capture_ops *capture;
	struct nt_pcap_writer *pcap;
	const volatile sig_atomic_t *stop;
	const sigset_t *waitmask;
	int *target_log_error;
};

/**
 * nt_userrun() - run the user's commands once, under one fix
 * @cfg: the run
 * @an: an analysis made with nt_analysis_init(); the capture goes into it
 *      as one input named after the interface, finished here
 * @ri: filled (nt_runinfo_init() first): the commands' ends, the counters,
 *      the samples, the capture's losses
 * @err: filled on failure
 *
 * The outcome of the commands (a client that failed, a target that never
 * listened, a timeout, a stop) is not an error: it is in @ri, and @an holds
 * what was captured until then.
 *
 * Return: 0, or a negative errno when a step of ours failed (-EPERM: no
 * privileges for namespaces).
 */
int nt_userrun(const struct nt_userrun_config *cfg, struct nt_analysis *an, struct nt_runinfo *ri,
	       struct nt_err *err);

/**
 * struct nt_userrun_probe - the kernel state a run reads (treat as opaque)
 * @tcp_fd: the target namespace's /proc/net/tcp and tcp6, -1 when absent
 * @netstat_fd: each namespace's /proc/net/netstat (enum nt_run_ns)
 * @start: the counters at the start
 * @start_known: which were read
 * @family: the lab's family
 * @client_addr: the client's address, network order
 * @buf: the last file read
 * @buf_bytes: its size
 */
struct nt_userrun_probe {
	int tcp_fd[2];
	int netstat_fd[NT_RUN_NS_COUNT];
	uint64_t start[NT_RUN_NS_COUNT][NT_RUN_COUNTER_COUNT];
	bool start_known[NT_RUN_NS_COUNT][NT_RUN_COUNTER_COUNT];
	int family;
	uint8_t client_addr[16];
	char *buf;
	size_t buf_bytes;
};

/**
 * nt_userrun_probe_open() - open the /proc files in their namespaces and
 * read the counters' starting values
 * @p: the probe
 * @lab: a lab that is up; the thread is left in its client namespace
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_userrun_probe_open(struct nt_userrun_probe *p, const struct nt_lab *lab, struct nt_err *err);

/**
 * nt_userrun_probe_sample() - read the target's established sockets with
 * the client into @ri
 * @p: the probe
 * @ri: the run's record
 */
void nt_userrun_probe_sample(struct nt_userrun_probe *p, struct nt_runinfo *ri);

/**
 * nt_userrun_probe_counters() - read the counters again; the deltas into @ri
 * @p: the probe
 * @ri: the run's record
 */
void nt_userrun_probe_counters(struct nt_userrun_probe *p, struct nt_runinfo *ri);

/**
 * nt_userrun_probe_close() - close; safe on a zeroed or closed probe after
 * nt_userrun_probe_open() set its descriptors
 * @p: the probe
 */
void nt_userrun_probe_close(struct nt_userrun_probe *p);

#endif
