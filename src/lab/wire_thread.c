// SPDX-License-Identifier: MIT
/*
 * wire_thread.c - the delay line's forwarding thread (see nt/lab/wire.h).
 *
 * Why a thread: a frame must leave at its deadline whatever the main loop is
 * doing (a blocking write, a capture being drained, a report being rendered),
 * and a deadline tens of microseconds late is a visible error. So the
 * forwarder owns one thread whose only job is waiting for the next deadline.
 * It shares nothing with the rest of the program but the wire's descriptors,
 * its queues and a statistics struct under a mutex; it blocks every signal.
 *
 * Which clock: the kernel stamps each frame on receive (SO_TIMESTAMPNS,
 * CLOCK_REALTIME: net_timestamp_check() in the receive path or, for a TCP
 * segment that crossed veth still carrying TCP's monotonic departure time,
 * skb_clear_delivery_time() in packet_rcv()). The deadline is that stamp plus
 * the delay, carried over to CLOCK_MONOTONIC (nt_wire_deadline_ns()):
 * computed from when the frame arrived, not when we read it, and immune to a
 * wall-clock step while it waits. The thread sleeps on a CLOCK_MONOTONIC
 * timerfd armed with an absolute time (TFD_TIMER_ABSTIME), so no error
 * accumulates from one frame to the next; poll() on it together with the
 * socket and the stop eventfd.
 *
 * Precision: a sleeping thread wakes tens of microseconds after its timer on
 * this kind of machine (wake-up and scheduling latency), and later the longer
 * it slept (a deeper idle state; on a VM, a halted vCPU the host must wake).
 * So the timer is armed a margin before the deadline and the thread
 * busy-waits on the vDSO clock for the rest: spin_ns, or 1/16 of the sleep
 * when that is longer, up to WIRE_SPIN_MAX_NS (wake_margin_ns()), so the spin
 * never costs more than a sixteenth of the time the thread would sleep.
 * PR_SET_TIMERSLACK of 1 ns keeps the kernel from adding its default 50 us of
 * slack to the thread's sleeps. On a busy machine the thread's worst enemy is
 * the run queue: woken on time, it may wait a whole scheduler slice behind
 * another task. Since Linux 6.12 a SCHED_OTHER thread may ask for a shorter
 * slice (sched_attr.sched_runtime, clamped to 0.1..100 ms), and EEVDF lets a
 * woken task whose deadline is earlier preempt the running one; no privilege
 * is needed, nice stays as it is. Best effort: an older kernel keeps its
 * default slice. docs/wire.md has the measurements behind these choices.
 *
 * Order: each direction is a FIFO whose deadlines never decrease, and the
 * thread always releases the earliest head of the two, so frames leave in the
 * order they arrived.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/wire.h"
#include "nt/model/decode.h"

/* Frames read per pass before due frames get another look. */
#define WIRE_DRAIN_BATCH 64
/* The spin after a long sleep: at most this, and at most 1/WIRE_SPIN_SHARE of the sleep. */
#define WIRE_SPIN_MAX_NS 300000
#define WIRE_SPIN_SHARE	 16
/* The shortest slice EEVDF grants (sched_runtime is clamped to 0.1 ms). */
#define WIRE_SLICE_NS 100000

/*
 * struct sched_attr as sched_setattr(2) takes it (SCHED_ATTR_SIZE_VER0):
 * glibc 2.36 declares neither, and <linux/sched/types.h> clashes with <sched.h>.
 */
struct wire_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

/**
 * struct pass - the thread's private state
 * @w: the wire
 * @st: counters, published to @w->stats under the lock after each pass
 * @armed_ns: the absolute time the timerfd is armed for, 0 once it fired
 * @armed_deadline_ns: the deadline it was armed for
 * @to: where each direction's frames are sent (the far end's ifindex)
 */
struct pass {
	struct nt_wire *w;
	struct nt_wire_stats st;
	int64_t armed_ns;
	int64_t armed_deadline_ns;
	struct sockaddr_ll to[NT_WIRE_DIRS];
};

/* The kernel's receive timestamp, or 0 when the frame came without one. */
static int64_t rx_stamp_ns(struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return nt_timespec_ns(&ts);
		}
	}
	return 0;
}

/* The direction of a frame that arrived on @ifindex, or -1 for a link not ours. */
static int dir_of(const struct nt_wire *w, int ifindex)
{
	for (int d = 0; d < NT_WIRE_DIRS; d++)
		if (w->ifindex[d] == ifindex)
			return d;
	return -1;
}

/*
 * Queue one frame read into the scratch buffer: @n bytes from @ifindex,
 * received at @rx_real (0: no stamp); @now_real and @now_mono read together.
 */
static void enqueue(struct pass *p, int ifindex, size_t n, int64_t rx_real, int64_t now_real,
		    int64_t now_mono)
{
	struct nt_wire *w = p->w;
	int d = dir_of(w, ifindex);
	struct nt_wire_dir_stats *ds;
	uint8_t *slot;

	if (d < 0) {
		p->st.ignored++;
		return;
	}
	ds = &p->st.dir[d];
	if (n > w->queue[d].slot_bytes || n <= sizeof(struct virtio_net_hdr)) {
		ds->dropped_truncated++;
		return;
	}
	slot = nt_wire_queue_tail(&w->queue[d]);
	if (!slot) {
		ds->dropped_queue_full++;
		return;
	}
	if (!rx_real) {
		ds->unstamped++;
		rx_real = now_real;
	}
	memcpy(slot, w->scratch, n);
	nt_wire_queue_commit(&w->queue[d], (uint32_t)n,
			     nt_wire_deadline_ns(rx_real, now_real, now_mono, w->delay_ns[d]));
}

/* Read up to WIRE_DRAIN_BATCH frames into their directions' queues. */
static int drain(struct pass *p)
{
	struct nt_wire *w = p->w;
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} ctl;
	/* One pair of clock reads per batch: only their offset matters (nt_wire_deadline_ns()). */
	int64_t now_real = nt_now_real_ns(), now_mono = nt_now_mono_ns();

	for (int i = 0; i < WIRE_DRAIN_BATCH; i++) {
		struct sockaddr_ll from;
		struct iovec iov = { .iov_base = w->scratch, .iov_len = w->queue[0].slot_bytes };
		struct msghdr msg = { .msg_name = &from,
				      .msg_namelen = sizeof(from),
				      .msg_iov = &iov,
				      .msg_iovlen = 1,
				      .msg_control = ctl.buf,
				      .msg_controllen = sizeof(ctl.buf) };
		ssize_t n;

		/* MSG_TRUNC: the frame's whole length, so truncation is seen and counted. */
		n = recvmsg(w->sock, &msg, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return -errno;
		}
		enqueue(p, from.sll_ifindex, (size_t)n, rx_stamp_ns(&msg), now_real, now_mono);
	}
	return 0;
}

/* The direction whose head leaves first, or -1 when both queues are empty. */
static int next_dir(const struct nt_wire *w, int64_t *deadline_ns)
{
	const uint8_t *data;
	int best = -1;

	for (int d = 0; d < NT_WIRE_DIRS; d++) {
		const struct nt_wire_slot *s = nt_wire_queue_head(&w->queue[d], &data);

		if (s && (best < 0 || s->deadline_ns < *deadline_ns)) {
			best = d;
			*deadline_ns = s->deadline_ns;
		}
	}
	return best;
}

/*
 * The segment's lateness, by its TCP header, for the verdict: a round's
 * header and its ACK crossed here, and the part of the gap between them
 * that is this thread's lateness is not the target's (nt_verdict_marks).
 * Decoded with the capture's own decoder, past the virtio_net_hdr every
 * slot begins with; a frame it cannot read is not remembered.
 */
static void note_late(struct nt_wire *w, int d, const uint8_t *slot, uint32_t len, int64_t late_ns)
{
	const size_t vnet = sizeof(struct virtio_net_hdr);
	struct nt_tcp_packet pkt;
	struct nt_wire_late e;

	if (len <= vnet ||
	    nt_decode_frame(NT_LINKTYPE_ETHERNET, slot + vnet, len - vnet, &pkt) != NT_DECODE_OK)
		return;
	e = (struct nt_wire_late){ .seq = pkt.seq,
				   .ack = pkt.ack,
				   .len = pkt.payload_bytes,
				   .flags = pkt.flags,
				   .late_ns = late_ns > 0 ? late_ns : 0 };
	pthread_mutex_lock(&w->lock);
	nt_wire_late_add(&w->late[d], &e);
	pthread_mutex_unlock(&w->lock);
}

static void send_head(struct pass *p, int d, int64_t now_ns)
{
	struct nt_wire *w = p->w;
	struct nt_wire_dir_stats *ds = &p->st.dir[d];
	const uint8_t *data;
	const struct nt_wire_slot *s = nt_wire_queue_head(&w->queue[d], &data);

	if (sendto(w->sock, data, s->len, MSG_DONTWAIT, (const struct sockaddr *)&p->to[d],
		   sizeof(p->to[d])) < 0) {
		ds->dropped_send++;
		ds->last_send_errno = errno;
	} else {
		ds->forwarded++;
		nt_wire_hist_add(&ds->lateness, now_ns - s->deadline_ns);
		note_late(w, d, data, s->len, now_ns - s->deadline_ns);
	}
	nt_wire_queue_pop(&w->queue[d]);
}

/* How long before @deadline_ns to wake from a sleep that starts at @now_ns; see the top of the file. */
static int64_t wake_margin_ns(const struct nt_wire *w, int64_t deadline_ns, int64_t now_ns)
{
	int64_t margin_ns = (deadline_ns - now_ns) / WIRE_SPIN_SHARE;

	if (!w->spin_ns)
		return 0;
	if (margin_ns > WIRE_SPIN_MAX_NS)
		margin_ns = WIRE_SPIN_MAX_NS;
	return margin_ns > w->spin_ns ? margin_ns : w->spin_ns;
}

/*
 * Whether to busy-wait for @deadline_ns now: it is less than spin_ns away, or
 * the timer armed for it has fired (its margin was chosen when it was armed).
 */
static bool is_time_to_spin(const struct pass *p, int64_t deadline_ns, int64_t now_ns)
{
	if (deadline_ns - now_ns <= p->w->spin_ns)
		return true;
	return deadline_ns == p->armed_deadline_ns && (!p->armed_ns || now_ns >= p->armed_ns);
}

/*
 * Send every frame whose time has come, busy-waiting until each deadline.
 * Returns the next deadline that is further out, or 0.
 */
static int64_t release_due(struct pass *p)
{
	struct nt_wire *w = p->w;

	for (;;) {
		int64_t deadline_ns = 0, now_ns;
		int d = next_dir(w, &deadline_ns);

		if (d < 0)
			return 0;
		now_ns = nt_now_mono_ns();
		if (!is_time_to_spin(p, deadline_ns, now_ns))
			return deadline_ns;
		while (now_ns < deadline_ns)
			now_ns = nt_now_mono_ns();
		send_head(p, d, now_ns);
	}
}

/*
 * Arm the timerfd (absolute) a margin before @deadline_ns, unless it already
 * is for that deadline: re-arming as the deadline nears would shrink the margin.
 */
static int arm_timer(struct pass *p, int64_t deadline_ns)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	int64_t wake_ns;

	if (!deadline_ns || (deadline_ns == p->armed_deadline_ns && p->armed_ns))
		return 0;
	wake_ns = deadline_ns - wake_margin_ns(p->w, deadline_ns, nt_now_mono_ns());
	its.it_value = nt_ns_timespec(wake_ns);
	if (timerfd_settime(p->w->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	p->armed_ns = wake_ns;
	p->armed_deadline_ns = deadline_ns;
	return 0;
}

static void publish(struct pass *p)
{
	pthread_mutex_lock(&p->w->lock);
	p->w->stats = p->st;
	pthread_mutex_unlock(&p->w->lock);
}

static int forward(struct pass *p)
{
	struct nt_wire *w = p->w;
	struct pollfd pfd[] = {
		{ .fd = w->sock, .events = POLLIN },
		{ .fd = w->timer_fd, .events = POLLIN },
		{ .fd = w->stop_fd, .events = POLLIN },
	};
	uint64_t ticks;
	int ret;

	for (;;) {
		ret = arm_timer(p, release_due(p));
		if (ret)
			return nt_err_set(&w->thread_err, ret, "wire: arm the timer");
		publish(p);
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return nt_err_set(&w->thread_err, -errno, "wire: poll");
		}
		if (pfd[2].revents)
			return 0;
		/* Fired: its deadline is due for the spin, and any next one needs arming. */
		if (pfd[1].revents && read(w->timer_fd, &ticks, sizeof(ticks)) > 0)
			p->armed_ns = 0;
		if (pfd[0].revents) {
			ret = drain(p);
			if (ret)
				return nt_err_set(&w->thread_err, ret, "wire: read a frame");
		}
	}
}

/*
 * Ask for a short slice (see the top of the file), then read back what the
 * kernel applied: sched_getattr() reports a fair task's slice in
 * sched_runtime since 6.12, and 0 before. Returns that, or 0.
 */
static int64_t request_short_slice(void)
{
	struct wire_sched_attr sa = {
		.size = sizeof(sa),
		.sched_policy = SCHED_OTHER,
		/* PRIO_PROCESS with 0 is the calling thread on Linux: its nice is kept. */
		.sched_nice = getpriority(PRIO_PROCESS, 0),
		.sched_runtime = WIRE_SLICE_NS,
	};

	if (syscall(SYS_sched_setattr, 0, &sa, 0) < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	if (syscall(SYS_sched_getattr, 0, &sa, sizeof(sa), 0) < 0)
		return 0;
	return (int64_t)sa.sched_runtime;
}

static void *wire_main(void *arg)
{
	struct pass p = { .w = arg };
	int ret;

	p.st = p.w->stats;
	for (int d = 0; d < NT_WIRE_DIRS; d++) {
		/* Protocol 0: packet_snd() takes it from the frame's own header. */
		p.to[d].sll_family = AF_PACKET;
		p.to[d].sll_ifindex = p.w->ifindex[NT_WIRE_DIRS - 1 - d];
	}
	/* The default slack (50 us) would be added to every wake-up (hrtimer_set_expires_range_ns()). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	p.st.slice_ns = request_short_slice();
	ret = forward(&p);
	pthread_mutex_lock(&p.w->lock);
	p.w->stats = p.st;
	p.w->thread_ret = ret;
	pthread_mutex_unlock(&p.w->lock);
	return NULL;
}

int nt_wire_start(struct nt_wire *w, struct nt_err *err)
{
	sigset_t all, old;
	int ret;

	if (!w->is_open || w->running)
		return nt_err_set(err, -EINVAL, "wire: start: not open, or already running");
	/* The thread inherits this mask: signals stay with the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&w->thread, NULL, wire_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return nt_err_set(err, -ret, "wire: start the forwarding thread");
	w->running = true;
	return 0;
}
