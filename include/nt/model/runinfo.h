/* SPDX-License-Identifier: MIT */
/*
 * runinfo.h - what only a live run of the user's programs knows
 * (`nagle-trace run`), beside the analysis of its capture: the commands and
 * how they ended, the fix, when the target listened, each namespace's
 * delayed-ACK and autocorking counters, the target's sockets as sampled from
 * its namespace's /proc/net/tcp while they lived, the request -> answer
 * times, and what the capture lost.
 *
 * Pure data and bookkeeping: the live layer fills it (src/live/userrun.c),
 * the renderers read it next to the analysis (nt_analysis_view.run).
 */
#ifndef NT_MODEL_RUNINFO_H
#define NT_MODEL_RUNINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nt/model/turns.h"

/* Target sockets whose samples are kept; later connections are only counted. */
#define NT_RUNINFO_SOCKS_MAX 4096
#define NT_RUNINFO_ADDR_LEN  46 /* INET6_ADDRSTRLEN */

/**
 * struct nt_run_proc - one of the user's commands, as the report tells it
 * @cmd: the command line given (run by /bin/sh -c)
 * @started: it was started
 * @exited: it ended and the fields below are known
 * @exit_status: its exit status, -1 when a signal ended it
 * @signal: the signal that ended it, 0 when it exited
 * @terminated: it was still running at teardown and got SIGTERM from us
 * @killed: it needed SIGKILL after the grace time
 * @run_ns: from its start to its end, -1 when unknown
 */
struct nt_run_proc {
	const char *cmd;
	bool started;
	bool exited;
	int exit_status;
	int signal;
	bool terminated;
	bool killed;
	int64_t run_ns;
};

/* Why a run ended (the procs module's reasons, nt/live/procs.h). */
enum nt_run_end {
	NT_RUN_END_NONE = 0,
	NT_RUN_END_CLIENT_EXITED,  /* the client exited, with any status */
	NT_RUN_END_TARGET_EXITED,  /* the target exited before it listened */
	NT_RUN_END_LISTEN_TIMEOUT, /* the target did not listen within --listen-timeout */
	NT_RUN_END_NOT_READY,	   /* it listened; --ready / --ready-log did not hold in time */
	NT_RUN_END_RUN_TIMEOUT,	   /* --timeout hit while the client ran */
	NT_RUN_END_STOPPED,	   /* a signal stopped the run */
	NT_RUN_END_FAILED,	   /* a step of ours failed */
};

/* The namespaces of the lab. */
enum nt_run_ns {
	NT_RUN_NS_CLIENT,
	NT_RUN_NS_TARGET,
	NT_RUN_NS_COUNT,
};

/* The TcpExt counters of /proc/net/netstat a run reports, per namespace. */
enum nt_run_counter {
	NT_RUN_DELAYED_ACKS,	   /* delayed-ACK timer fired (tcp_delack_timer_handler()) */
	NT_RUN_DELAYED_ACK_LOCKED, /* it fired while the socket was owned by the user */
	NT_RUN_AUTOCORKING,	   /* tcp_should_autocork() held a small write */
	NT_RUN_COUNTER_COUNT,
};

/**
 * struct nt_run_counters - one namespace's counters over the run
 * @known: the counter was read at the start and at the end
 * @delta: end minus start
 */
struct nt_run_counters {
	bool known[NT_RUN_COUNTER_COUNT];
	uint64_t delta[NT_RUN_COUNTER_COUNT];
};

/**
 * struct nt_sock_sample - one reading of a target socket (a line of the
 * target namespace's /proc/net/tcp)
 * @family: AF_INET or AF_INET6
 * @client_addr: the remote (client) address, network order
 * @client_port: its port
 * @target_port: the local (target) port
 * @ato_ns: icsk_ack.ato
 * @pingpong: inet_csk_in_pingpong_mode()
 * @quick: icsk_ack.quick, the quick-ACK budget left
 */
struct nt_sock_sample {
	int family;
	uint8_t client_addr[16];
	uint16_t client_port;
	uint16_t target_port;
	int64_t ato_ns;
	bool pingpong;
	unsigned quick;
};

/**
 * struct nt_sock_samples - one connection's target socket over its life
 * @family: AF_INET or AF_INET6
 * @client_addr: the client's address, network order
 * @client_port: the client's port
 * @target_port: the target's port
 * @samples: readings
 * @pingpong: readings in ping-pong mode
 * @quick: readings with quick-ACK budget left
 * @ato_min_ns: smallest ato read
 * @ato_max_ns: largest ato read
 * @last: the last reading
 */
struct nt_sock_samples {
	int family;
	uint8_t client_addr[16];
	uint16_t client_port;
	uint16_t target_port;
	uint32_t samples;
	uint32_t pingpong;
	uint32_t quick;
	int64_t ato_min_ns;
	int64_t ato_max_ns;
	struct nt_sock_sample last;
};

/* Stalls tied to their requests that a run keeps; later ones are counted only. */
#define NT_RUNINFO_STALLED_MAX 65536

/**
 * struct nt_run_stalled - one stall, tied to the request it delayed
 * @request: the request's number (struct nt_turns), 0 when it came before
 *           any request of its connection
 * @client_port: its connection's client port
 * @held_t_ns: capture time of the held segment
 * @ack_delay_ns: held segment -> the late ACK
 * @stall_ns: held segment -> the released one: the time the request lost
 * @held_len: the held segment's payload bytes
 * @delack: which delayed-ACK timer the ACK delay matches (enum nt_delack_class)
 * @held_by_client: the data held was the client's (else the target's)
 */
struct nt_run_stalled {
	uint64_t request;
	uint16_t client_port;
	int64_t held_t_ns;
	int64_t ack_delay_ns;
	int64_t stall_ns;
	uint32_t held_len;
	int delack;
	bool held_by_client;
};

/**
 * struct nt_runinfo - one run of the user's programs under one fix
 * @fix: the fix's name as given ("none", "nodelay", "rto-min=5")
 * @fix_about: what it changed, a few words
 * @target: the target command
 * @client: the client command
 * @end: why the run ended, in words ("client exited", "run timed out")
 * @end_kind: the same as a value
 * @family: AF_INET or AF_INET6
 * @complete: the client ran to its end (no timeout, signal or failure)
 * @interrupted: a signal of the user's stopped the run
 * @kernel: the kernel release
 * @client_addr: the client namespace's address
 * @target_addr: the target namespace's address
 * @listen_seen: the target's listening socket was seen
 * @listen_addr: its address ("::", "0.0.0.0", "192.0.2.2")
 * @listen_port: its port
 * @listen_wait_ns: target start -> listener seen, -1 when never
 * @capture: the capture back end, "none" without a capture
 * @cap_received: frames the kernel queued for the capture
 * @cap_dropped: frames it dropped for lack of buffer space
 * @cap_if_dropped: frames the interface dropped
 * @rtt_ns: the path's round-trip time (--rtt), 0 for the plain veth pair
 * @delay_line: what added it: "none" or "wire" (the lab's delay line)
 * @wire_dropped: frames the delay line lost, in either direction
 * @ns: counter deltas per namespace (enum nt_run_ns)
 * @socks: the target's sockets, in order of their first reading
 * @n_socks: how many are kept
 * @socks_cap: allocated slots
 * @socks_dropped: connections seen beyond NT_RUNINFO_SOCKS_MAX
 * @sample_reads: how many times the target's sockets were read
 * @sample_period_ns: the reading period
 * @turns: request -> answer times from the capture
 * @capture_t0_ns: capture time of the first frame, -1 before one
 * @stalled: every stall, in the order found, with its request
 * @n_stalled: how many are kept
 * @stalled_cap: allocated slots
 * @stalled_dropped: stalls beyond NT_RUNINFO_STALLED_MAX (or memory)
 * @client_stderr_tail: the client's last stderr lines when it failed, else NULL (owned)
 * @unreachable: a listener the client could not reach ("127.0.0.1 port 80"),
 *               "" when none
 * @notes: what the run could not set up but ran without, "" when none
 * @cap_stats_known: the capture's counters were read
 * @oom: an allocation failed: some samples are missing
 * @daemonized: the target's command exited 0 before it listened and its
 *              processes (a daemon) were followed, then stopped at the end
 * @ready_cmd: --ready CMD, NULL for none
 * @ready_log: --ready-log REGEX, NULL for none
 * @log_matched: a line of the target's output matched @ready_log
 * @ready_tries: times @ready_cmd was started
 * @ready_wait_ns: target start -> the client could start, -1 when never
 * @command_line: the invocation, shell-quoted ("nagle-trace run --target
 *                ..."), NULL when unknown (not owned)
 * @uids_mapped: how many user ids the run's user namespace maps (1 under
 *               plain `unshare -Urn`), 0 when unknown
 */
struct nt_runinfo {
	const char *fix;
	const char *fix_about;
	struct nt_run_proc target;
	struct nt_run_proc client;
	const char *end;
	enum nt_run_end end_kind;
	int family;
	bool complete;
	bool interrupted;
	char kernel[65];
	char client_addr[NT_RUNINFO_ADDR_LEN];
	char target_addr[NT_RUNINFO_ADDR_LEN];
	bool listen_seen;
	char listen_addr[NT_RUNINFO_ADDR_LEN];
	uint16_t listen_port;
	int64_t listen_wait_ns;
	const char *capture;
	uint64_t cap_received;
	uint64_t cap_dropped;
	uint64_t cap_if_dropped;
	int64_t rtt_ns;
	const char *delay_line;
	uint64_t wire_dropped;
	struct nt_run_counters ns[NT_RUN_NS_COUNT];
	struct nt_sock_samples *socks;
	size_t n_socks;
	size_t socks_cap;
	uint64_t socks_dropped;
	uint64_t sample_reads;
	int64_t sample_period_ns;
	struct nt_turns turns;
	int64_t capture_t0_ns;
	struct nt_run_stalled *stalled;
	size_t n_stalled;
	size_t stalled_cap;
	uint64_t stalled_dropped;
	char *client_stderr_tail;
	char unreachable[NT_RUNINFO_ADDR_LEN + 16];
	char notes[256];
	bool cap_stats_known;
	bool oom;
	bool daemonized;
	const char *ready_cmd;
	const char *ready_log;
	bool log_matched;
	unsigned ready_tries;
	int64_t ready_wait_ns;
	uint64_t uids_mapped;
	const char *command_line;
};

/**
 * nt_runinfo_init() - an empty record
 * @ri: the record
 */
void nt_runinfo_init(struct nt_runinfo *ri);

/**
 * nt_runinfo_fini() - free what it holds; safe on a zeroed or finished record
 * @ri: the record
 */
void nt_runinfo_fini(struct nt_runinfo *ri);

/**
 * nt_runinfo_sample() - add one reading of a target socket to its connection
 * @ri: the record
 * @s: the reading
 *
 * Return: 0, or -ENOMEM (noted in @ri->oom).
 */
int nt_runinfo_sample(struct nt_runinfo *ri, const struct nt_sock_sample *s);

/**
 * nt_runinfo_find() - a connection's samples by its client port
 * @ri: the record
 * @client_port: the client's port
 * @target_port: the target's port
 *
 * Return: the samples, or NULL.
 */
const struct nt_sock_samples *nt_runinfo_find(const struct nt_runinfo *ri, uint16_t client_port,
					      uint16_t target_port);

/**
 * nt_runinfo_add_stalled() - keep one stall, tied to its request
 * @ri: the record
 * @s: the stall
 *
 * Return: 0, or -ENOMEM (counted in @ri->stalled_dropped).
 */
int nt_runinfo_add_stalled(struct nt_runinfo *ri, const struct nt_run_stalled *s);

/**
 * nt_run_counter_name() - a counter's name in /proc/net/netstat ("DelayedACKs")
 * @c: the counter
 *
 * Return: a static string.
 */
const char *nt_run_counter_name(enum nt_run_counter c);

/**
 * nt_run_ns_name() - "client" or "target"
 * @ns: the namespace
 *
 * Return: a static string.
 */
const char *nt_run_ns_name(enum nt_run_ns ns);

/**
 * nt_run_proc_failed() - whether a command did not end well: not started,
 * not exited, or exited with a nonzero status or by a signal
 * @p: the command
 *
 * Return: the answer.
 */
bool nt_run_proc_failed(const struct nt_run_proc *p);

/**
 * nt_runinfo_lost() - frames lost on the way to the analysis: by the capture
 * (its buffer, the interface) or by the delay line
 * @ri: the run
 *
 * Return: how many; more than 0 makes every count a lower bound.
 */
uint64_t nt_runinfo_lost(const struct nt_runinfo *ri);

#endif
