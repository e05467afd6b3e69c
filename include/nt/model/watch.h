/* SPDX-License-Identifier: MIT */
/*
 * watch.h - what nagle-trace watch knows of a stall, and its summary.
 *
 * A stall on a live host is the analysis's episode (nt/model/stall.h) plus
 * what the host says about each end of the connection: which process owns
 * the socket and the socket's kernel state read right after the stall
 * (struct nt_sock_state, filled by src/live/sockowner.c). The summary keeps,
 * per process and per flow, the stalls, the time lost and a sample of ACK
 * delays for p50/p99. Memory is bounded: at most NT_WATCH_FLOWS_KEPT flows and
 * NT_WATCH_PROCS_KEPT processes are named; later ones are counted in one
 * "other" row each, so a week-long run does not grow. Pure: no I/O.
 */
#ifndef NT_MODEL_WATCH_H
#define NT_MODEL_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "nt/model/event.h"
#include "nt/model/stall.h"

#define NT_WATCH_FLOWS_KEPT 1024u
#define NT_WATCH_PROCS_KEPT 256u
/* Buckets of the flow rows' index: a power of two, at least twice the rows (linear probing). */
#define NT_WATCH_FLOW_BUCKETS 4096u
/* ACK delays kept per row for its percentiles: all up to this many, then a uniform sample. */
#define NT_WATCH_DELAYS_KEPT 128u
/* A command name as the kernel keeps it (TASK_COMM_LEN, include/linux/sched.h). */
#define NT_WATCH_COMM_LEN 16

/**
 * struct nt_sock_state - one end of a stalled connection, as this host sees it
 * @local: a socket with this end's address and port exists in a network
 *         namespace of this host watch could look into: its own, or another
 *         one's (a container's) when watch may enter it (sock_diag answered)
 * @netns: the inode of the network namespace the socket was found in, as
 *         /proc/PID/ns/net names it (net:[N]); 0 when not @local
 * @foreign: @netns is not watch's own: the end is in a container or
 *           another namespace of this host
 * @inode: the socket's inode (0 unknown)
 * @pid: the process holding it, -1 when no /proc/PID/fd names the inode
 * @comm: its command (/proc/PID/comm), "" unknown
 * @rtt_us: tcp_info tcpi_rtt, smoothed RTT, µs; NT_UNKNOWN unread
 * @ato_us: tcpi_ato, the delayed-ACK timeout, µs; NT_UNKNOWN unread
 * @unacked: tcpi_unacked, segments sent and not acknowledged; NT_UNKNOWN
 * @notsent_bytes: tcpi_notsent_bytes, written and not yet sent (what Nagle
 *                 holds); NT_UNKNOWN
 * @pingpong: /proc/PID/net/tcp's ping-pong bit (interactive mode: the ACK
 *            waits for a reply), -1 unread
 * @quick: the quick-ACK budget left (icsk_ack.quick), -1 unread
 * @closed: the socket had no inode any more when read (time-wait: the
 *          program closed it before the stall was handled); @pid and @comm
 *          are then the ones an earlier stall of the flow found, if any
 */
struct nt_sock_state {
	bool local;
	bool closed;
	bool foreign;
	uint64_t netns;
	uint64_t inode;
	int pid;
	char comm[NT_WATCH_COMM_LEN];
	int64_t rtt_us;
	int64_t ato_us;
	int64_t unacked;
	int64_t notsent_bytes;
	int pingpong;
	int quick;
};

/**
 * struct nt_watch_stall - one stall seen live
 * @ep: the episode, as analyze finds it
 * @family: AF_INET or AF_INET6
 * @client_addr: client address, network order
 * @target_addr: target address
 * @client_port: client port
 * @target_port: target port
 * @held_seq_rel: H's sequence number relative to its sender's ISN
 * @release_bytes: R's payload: the bytes that waited behind H
 * @sock: each end (index enum nt_dir: NT_DIR_C2T the client)
 */
struct nt_watch_stall {
	struct nt_stall_episode ep;
	int family;
	uint8_t client_addr[16];
	uint8_t target_addr[16];
	uint16_t client_port;
	uint16_t target_port;
	uint32_t held_seq_rel;
	uint32_t release_bytes;
	struct nt_sock_state sock[2];
};

/**
 * struct nt_watch_delays - ACK delays for percentiles, bounded
 * @n: delays seen
 * @kept: how many of @v are valid
 * @rng: the sample's random state (a fixed seed: runs repeat)
 * @v: all delays while @n <= NT_WATCH_DELAYS_KEPT, then a uniform sample
 */
struct nt_watch_delays {
	uint64_t n;
	uint32_t kept;
	uint64_t rng;
	int64_t v[NT_WATCH_DELAYS_KEPT];
};

/* Which end of its stalls a process was: Nagle's sender, or the ACK's delayer. */
enum nt_watch_role {
	NT_WATCH_SENDER = 0, /* its data was held (Nagle): the fix is TCP_NODELAY */
	NT_WATCH_RECEIVER,   /* it delayed the ACK: the fix is quick ACKs */
	NT_WATCH_ROLE_COUNT,
};

/**
 * struct nt_watch_row - one process or one flow of the summary
 * @used: the row holds something
 * @other: the row of everything past the cap
 * @pid: the process (process rows), -1 unknown
 * @comm: its command
 * @s: a stall of the flow (flow rows: its addresses and sides)
 * @stalls: stalls
 * @by_role: stalls per enum nt_watch_role (process rows)
 * @lost_ns: the stalls' R - H summed
 * @delays: ACK delays
 */
struct nt_watch_row {
	bool used;
	bool other;
	int pid;
	char comm[NT_WATCH_COMM_LEN];
	struct nt_watch_stall s;
	uint64_t stalls;
	uint64_t by_role[NT_WATCH_ROLE_COUNT];
	int64_t lost_ns;
	struct nt_watch_delays delays;
};

/**
 * struct nt_watch_sum - the summary of a watch
 * @flows: flow rows, in order of first stall; @flows[NT_WATCH_FLOWS_KEPT] is "other"
 * @n_flows: named flow rows used
 * @flow_index: row number + 1 of each named flow, by a hash of its key (0: empty);
 *              a stall finds its row in a probe or two, not a scan of a thousand
 * @procs: process rows, in order of first stall; the last is "other"
 * @n_procs: named process rows used
 * @stalls: stalls seen
 * @think_time: think-time episodes seen (not stalls)
 * @lost_ns: time lost over all stalls
 * @local_stalls: stalls with at least one end on this host
 */
struct nt_watch_sum {
	struct nt_watch_row flows[NT_WATCH_FLOWS_KEPT + 1];
	uint32_t n_flows;
	uint16_t flow_index[NT_WATCH_FLOW_BUCKETS];
	struct nt_watch_row procs[NT_WATCH_PROCS_KEPT + 1];
	uint32_t n_procs;
	uint64_t stalls;
	uint64_t think_time;
	int64_t lost_ns;
	uint64_t local_stalls;
};

/**
 * struct nt_watch_end - how a watch went, for its summary
 * @ifname: the interface
 * @filter: the kernel filter applied ("tcp", or "tcp and (EXPR)")
 * @start_t_ns: when capture began (CLOCK_REALTIME)
 * @end_t_ns: when it ended
 * @frames: frames read
 * @tcp_frames: of which TCP
 * @flows: connections seen
 * @received: libpcap's ps_recv: frames that passed the filter
 * @dropped: ps_drop: dropped by the kernel for want of buffer space
 * @if_dropped: ps_ifdrop: dropped by the interface, when known
 * @stats_known: the three counts above were read
 * @why: why it ended: "count", "duration", "SIGINT", "SIGTERM", or the
 *       capture's error (an interface that went away)
 * @complete: nothing was dropped and the capture did not fail
 * @oom: the flow table ran out of memory: some frames were not analysed
 * @netns: watch's own network namespace (its inode)
 * @netns_seen: the other network namespaces of this host's processes found
 * @netns_denied: of which watch could not enter (no CAP_SYS_ADMIN): their
 *                sockets show as not on this host
 */
struct nt_watch_end {
	const char *ifname;
	const char *filter;
	int64_t start_t_ns;
	int64_t end_t_ns;
	uint64_t frames;
	uint64_t tcp_frames;
	uint64_t flows;
	uint64_t received;
	uint64_t dropped;
	uint64_t if_dropped;
	bool stats_known;
	const char *why;
	bool complete;
	bool oom;
	uint64_t netns;
	uint32_t netns_seen;
	uint32_t netns_denied;
};

/**
 * nt_watch_sum_init() - an empty summary
 * @s: the summary (large: allocate it)
 */
void nt_watch_sum_init(struct nt_watch_sum *s);

/**
 * nt_watch_sum_add() - count one stall in
 * @s: the summary
 * @st: the stall, with its ends' state
 */
void nt_watch_sum_add(struct nt_watch_sum *s, const struct nt_watch_stall *st);

/**
 * nt_watch_sum_recall() - name the process of an end whose socket is gone
 * @s: the summary
 * @st: a stall whose ends were just read; an end that is local but closed
 *      gets the pid and command its flow's earlier stalls found
 */
void nt_watch_sum_recall(const struct nt_watch_sum *s, struct nt_watch_stall *st);

/**
 * nt_watch_delays_pct() - a percentile of the delays kept (nearest rank)
 * @d: the delays
 * @p: the percentile, 1-100
 *
 * Return: the delay, or NT_UNKNOWN when none.
 */
int64_t nt_watch_delays_pct(const struct nt_watch_delays *d, unsigned p);

/**
 * nt_watch_same_flow() - do two stalls belong to the same connection
 * @a: one
 * @b: the other
 *
 * Return: true when family, addresses and ports agree.
 */
bool nt_watch_same_flow(const struct nt_watch_stall *a, const struct nt_watch_stall *b);

/**
 * nt_watch_role_fix() - the fix for a process that was @role in its stalls
 * @role: the role
 *
 * Return: one line, "set TCP_NODELAY ..." or "quick ACKs ...".
 */
const char *nt_watch_role_fix(enum nt_watch_role role);

#endif
