/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the delay line behind --rtt: a user-space forwarder in the middle
 * namespace that moves every frame from one veth end to the other when its
 * time comes.
 *
 * The lab owns the wire. nt_wire_open() runs on the lab's thread while it is
 * inside the middle namespace: it creates the AF_PACKET socket that reads and
 * writes both middle ends (a socket keeps the namespace it was made in).
 * nt_wire_start() starts the forwarding thread once every link is up;
 * nt_wire_close() stops and joins it and closes the socket. The thread
 * touches only the wire's descriptors, its queues and the shared statistics;
 * it blocks every signal, so SIGINT and SIGTERM stay with the main thread.
 *
 * Every frame leaves at its kernel receive timestamp plus the one-way delay,
 * in the order it arrived, or is counted as dropped: nothing is lost silently.
 */
#ifndef NT_LAB_WIRE_H
#define NT_LAB_WIRE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nt/err.h"
#include "nt/lab/wire_queue.h"

/**
 * enum nt_wire_dir - a direction through the wire
 * @NT_WIRE_TO_TARGET: frames the client sent, released toward the target
 * @NT_WIRE_TO_CLIENT: frames the target sent, released toward the client
 * @NT_WIRE_DIRS: how many
 */
enum nt_wire_dir {
	NT_WIRE_TO_TARGET = 0,
	NT_WIRE_TO_CLIENT = 1,
	NT_WIRE_DIRS = 2,
};

/* Frames one direction may hold before it drops at the tail, when not configured. */
#define NT_WIRE_QUEUE_FRAMES 4096
/* The least busy-wait before each deadline, when not configured; see src/lab/wire.c. */
#define NT_WIRE_SPIN_NS 60000

/**
 * struct nt_wire_config - what to forward, and how
 * @client_ifname: the middle end facing the client (for messages)
 * @client_ifindex: its ifindex in the calling thread's namespace
 * @target_ifname: the middle end facing the target
 * @target_ifindex: its ifindex
 * @delay_ns: one-way delay added to each direction, indexed by enum nt_wire_dir
 * @queue_frames: frames each direction may hold, 0 for NT_WIRE_QUEUE_FRAMES
 * @spin_ns: how long, at least, before a deadline the thread stops sleeping
 *           and busy-waits for it (after a long sleep, longer: a sixteenth of
 *           the sleep, up to 300 us): 0 for NT_WIRE_SPIN_NS, negative for no
 *           busy-wait at all
 */
struct nt_wire_config {
	const char *client_ifname;
	int client_ifindex;
	const char *target_ifname;
	int target_ifindex;
	int64_t delay_ns[NT_WIRE_DIRS];
	uint32_t queue_frames;
	int64_t spin_ns;
};

/**
 * struct nt_wire_dir_stats - one direction's counters
 * @forwarded: frames sent out of the far end
 * @dropped_queue_full: frames received while the queue was full (tail drop)
 * @dropped_truncated: frames longer than a slot (MTU + Ethernet and VLAN headers)
 * @dropped_send: frames the far end refused (send() failed)
 * @unstamped: frames that came without a kernel receive timestamp; their
 *             delay counted from when they were read
 * @last_send_errno: errno of the last failed send(), 0 if none
 * @lateness: release time minus deadline, each forwarded frame (the
 *            forwarder's own error, without the veth hops on either side)
 */
struct nt_wire_dir_stats {
	uint64_t forwarded;
	uint64_t dropped_queue_full;
	uint64_t dropped_truncated;
	uint64_t dropped_send;
	uint64_t unstamped;
	int last_send_errno;
	struct nt_wire_hist lateness;
};

/**
 * struct nt_wire_stats - the wire's counters
 * @dir: per direction, indexed by enum nt_wire_dir
 * @dropped_kernel: frames the kernel dropped before we read them, either
 *                  direction (the socket's receive buffer was full:
 *                  PACKET_STATISTICS tp_drops)
 * @ignored: frames read from a link that is not a middle end (none is
 *           expected: the middle namespace has no other link up)
 * @delay_ns: the configured one-way delays
 * @spin_ns: the busy-wait used (0: none)
 * @slice_ns: the scheduler slice the thread runs with, when it could ask
 *            for a short one (Linux 6.12 and later), 0 otherwise
 * @cpu_ns: CPU time the forwarding thread has used (CLOCK_THREAD_CPUTIME_ID)
 */
struct nt_wire_stats {
	struct nt_wire_dir_stats dir[NT_WIRE_DIRS];
	uint64_t dropped_kernel;
	uint64_t ignored;
	int64_t delay_ns[NT_WIRE_DIRS];
	int64_t spin_ns;
	int64_t slice_ns;
	int64_t cpu_ns;
};

/**
 * nt_wire_dir_dropped() - every frame a direction lost in the forwarder
 * @d: the direction's counters
 *
 * Return: the sum of its dropped_* counters.
 */
static inline uint64_t nt_wire_dir_dropped(const struct nt_wire_dir_stats *d)
{
	return d->dropped_queue_full + d->dropped_truncated + d->dropped_send;
}

/**
 * nt_wire_dropped() - every frame the wire lost, whatever the cause
 * @st: the counters
 *
 * Return: both directions' drops plus the kernel's.
 */
static inline uint64_t nt_wire_dropped(const struct nt_wire_stats *st)
{
	return nt_wire_dir_dropped(&st->dir[NT_WIRE_TO_TARGET]) +
	       nt_wire_dir_dropped(&st->dir[NT_WIRE_TO_CLIENT]) + st->dropped_kernel;
}

/**
 * struct nt_wire - a delay line; embed it zeroed, then nt_wire_open()
 * @is_open: nt_wire_open() succeeded and nt_wire_close() has not run
 * @running: the thread is started and not yet joined
 * @sock: the AF_PACKET socket, bound to every link of the middle namespace
 * @ifindex: ifindex[d] is the middle end direction d's frames arrive on
 *           (ifindex[NT_WIRE_TO_TARGET] faces the client); they leave by
 *           the other one
 * @timer_fd: CLOCK_MONOTONIC timerfd armed at the next wake-up, absolute
 * @stop_fd: eventfd the owner writes to stop the thread
 * @delay_ns: one-way delay per direction
 * @spin_ns: busy-wait before each deadline, 0 for none
 * @queue: frames waiting, per direction
 * @scratch: where each frame is read, before its direction (its link) is known
 * @thread: the forwarder
 * @lock: guards @stats, @late and @thread_err
 * @stats: counters as of the thread's last pass, under @lock
 * @late: per direction, how late the last TCP segments left, under @lock
 * @kernel_drops: tp_drops accumulated by nt_wire_stats() (the kernel resets
 *                them on every read); the owner's thread only
 * @cpu_ns: the thread's CPU time when it was joined
 * @thread_ret: 0, or the negative errno that stopped the thread
 * @thread_err: what stopped it
 */
struct nt_wire {
	bool is_open;
	bool running;
	int sock;
	int ifindex[NT_WIRE_DIRS];
	int timer_fd;
	int stop_fd;
	int64_t delay_ns[NT_WIRE_DIRS];
	int64_t spin_ns;
	struct nt_wire_queue queue[NT_WIRE_DIRS];
	uint8_t *scratch;
	pthread_t thread;
	pthread_mutex_t lock;
	struct nt_wire_stats stats;
	struct nt_wire_late_log late[NT_WIRE_DIRS];
	uint64_t kernel_drops;
	int64_t cpu_ns;
	int thread_ret;
	struct nt_err thread_err;
};

/**
 * nt_wire_open() - create the wire's socket in the calling thread's namespace
 * @w: a zeroed wire
 * @cfg: the middle ends and the delays
 * @err: names the failing step
 *
 * Call it from inside the middle namespace. The socket hears every link
 * there, so no link but the two ends may be up in it (frames from another
 * link are counted as ignored).
 * Frames are queued in the socket from here on, with their timestamps,
 * until nt_wire_start().
 *
 * Return: 0 or a negative errno; on failure @w is left closed.
 */
int nt_wire_open(struct nt_wire *w, const struct nt_wire_config *cfg, struct nt_err *err);

/**
 * nt_wire_start() - start forwarding
 * @w: an open wire
 * @err: filled on failure
 *
 * Start it once every link of the path is up: a frame sent into a veth end
 * whose queues are not yet activated is dropped without an error.
 *
 * Return: 0 or a negative errno.
 */
int nt_wire_start(struct nt_wire *w, struct nt_err *err);

/**
 * nt_wire_stats() - the counters so far
 * @w: an open wire, running or stopped
 * @st: filled in
 * @err: filled when the thread stopped on an error
 *
 * Return: 0, or the negative errno that stopped the forwarding thread (the
 * counters are filled either way).
 */
int nt_wire_stats(struct nt_wire *w, struct nt_wire_stats *st, struct nt_err *err);

/**
 * nt_wire_late_copy() - how late the wire forwarded its last TCP segments
 * @w: an open wire, running or stopped
 * @out: filled with a copy of each direction's log (nt_wire_late_find())
 */
void nt_wire_late_copy(struct nt_wire *w, struct nt_wire_late_log out[NT_WIRE_DIRS]);

/**
 * nt_wire_close() - stop and join the thread, close the socket, free the
 * queues; safe on a zeroed, failed or closed wire
 * @w: the wire
 *
 * The counters stay readable with nt_wire_stats() until the next nt_wire_open().
 */
void nt_wire_close(struct nt_wire *w);

#endif
