// SPDX-License-Identifier: MIT
/*
 * wire.c - the delay line's forwarder (see nt/lab/wire.h).
 *
 * Why a thread: a frame must leave at its deadline whatever the main loop is
 * doing (a blocking write, a capture being drained, a report being rendered),
 * and a deadline tens of microseconds late is a visible error. So the
 * forwarder owns one thread whose only job is waiting for the next deadline.
 * It shares nothing with the rest of the program but its descriptors, its
 * queues and a statistics struct under a mutex; it blocks every signal.
 *
 * Why one AF_PACKET socket, without a ring: a SOCK_RAW packet socket opened
 * with protocol 0 and bound with ETH_P_ALL to no particular link hears both
 * middle ends (sll_ifindex says which) and sends out of either (sendto() with
 * the link's ifindex). Binding is the first hook registration, so
 * packet_do_bind() pays no synchronize_net(); closing pays one RCU grace
 * period (packet_release()), so one socket instead of one per end halves the
 * lab's teardown. Since Linux 6.15 a hook bound to no link sits on its own
 * namespace's list (ptype_head(): af_packet_net->ptype_all); older kernels
 * keep one global list, where it is called, and returns at once, for every
 * frame of the host. A PACKET_RX_RING would cost another grace period to set
 * up (packet_set_ring() calls synchronize_net()) and TPACKET_V3 retires
 * blocks on a timer, latency a delay line cannot have; at the lab's rates a
 * system call per frame is cheap. PACKET_IGNORE_OUTGOING hides the copies of
 * frames leaving the ends (dev_queue_xmit_nit() already skips the sending
 * socket; this also hides anything the middle's own stack might send).
 *
 * Checksums: a frame from a local TCP socket crosses veth as CHECKSUM_PARTIAL
 * (veth offers NETIF_F_HW_CSUM), so its TCP checksum field holds only the
 * pseudo-header sum. Forwarded as bytes, it would arrive with a bad checksum
 * and be dropped. PACKET_VNET_HDR prefixes every frame read with a struct
 * virtio_net_hdr (packet_rcv_vnet(): NEEDS_CSUM, csum_start, csum_offset) and
 * makes send() take one (virtio_net_hdr_to_skb() sets the skb up as
 * CHECKSUM_PARTIAL again), so the metadata travels with the bytes and the
 * frame leaves exactly as it came.
 *
 * Which clock: the kernel stamps each frame on receive (SO_TIMESTAMPNS,
 * CLOCK_REALTIME, net_timestamp_check() in __netif_receive_skb_core()). The
 * deadline is that stamp plus the delay, carried over to CLOCK_MONOTONIC
 * (nt_wire_deadline_ns()): computed from when the frame arrived, not when we
 * read it, and immune to a wall-clock step while it waits. The thread sleeps
 * on a CLOCK_MONOTONIC timerfd armed with an absolute time (TFD_TIMER_ABSTIME),
 * so no error accumulates from one frame to the next; poll() on it together
 * with both sockets and the stop eventfd.
 *
 * Precision: a sleeping thread wakes tens of microseconds after its timer on
 * this kind of machine (wake-up and scheduling latency), and later the longer
 * it slept (a deeper idle state; on a VM, a halted vCPU the host must wake).
 * So the timer is armed a margin before the deadline and the thread
 * busy-waits on the vDSO clock for the rest: spin_ns, or 1/16 of the sleep
 * when that is longer, up to WIRE_SPIN_MAX_NS (wake_margin_ns()), so the spin
 * never costs more than a sixteenth of the time the thread would sleep.
 * PR_SET_TIMERSLACK of 1 ns keeps the kernel from adding its default 50 us of
 * slack to the thread's sleeps. On a busy machine the
 * thread's worst enemy is the run queue: woken on time, it may wait a whole
 * scheduler slice behind another task. Since Linux 6.12 a SCHED_OTHER thread
 * may ask for a shorter slice (sched_attr.sched_runtime, clamped to
 * 0.1..100 ms), and EEVDF lets a woken task whose deadline is earlier preempt
 * the running one; no privilege is needed, nice stays as it is. Best effort:
 * an older kernel keeps its default slice. docs/wire.md has the measurements
 * behind both choices.
 *
 * Order: each direction is a FIFO whose deadlines never decrease, and the
 * thread always releases the earliest head of the two, so frames leave in the
 * order they arrived. A frame that finds its queue full, is longer than a slot,
 * or is refused by sendto() is counted, per direction, as dropped; a frame the
 * kernel could not queue on the socket shows in PACKET_STATISTICS.
 */
#include <errno.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/wire.h"

/* Receive buffer: about a thousand small frames' truesize of headroom. */
#define WIRE_RCVBUF_BYTES (4 * 1024 * 1024)
/* Frames read per pass before due frames get another look. */
#define WIRE_DRAIN_BATCH 64
/* Room for a VLAN tag on top of the Ethernet header. */
#define WIRE_VLAN_BYTES 4
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

static int set_int_opt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) < 0 ? -errno : 0;
}

static int link_mtu(int fd, const char *ifname, int *mtu, struct nt_err *err)
{
	struct ifreq ifr;
	size_t len = strlen(ifname);

	memset(&ifr, 0, sizeof(ifr));
	if (len >= sizeof(ifr.ifr_name))
		return nt_err_set(err, -ENAMETOOLONG, "wire: link name \"%s\"", ifname);
	memcpy(ifr.ifr_name, ifname, len + 1);
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0)
		return nt_err_set(err, -errno, "wire: read the MTU of %s", ifname);
	*mtu = ifr.ifr_mtu;
	return 0;
}

/* The socket, in the calling thread's namespace; see the top of the file. */
static int open_socket(int *fd_out, struct nt_err *err)
{
	static const struct {
		int level, name;
		const char *text;
	} opts[] = {
		{ SOL_PACKET, PACKET_VNET_HDR, "PACKET_VNET_HDR" },
		{ SOL_PACKET, PACKET_IGNORE_OUTGOING, "PACKET_IGNORE_OUTGOING" },
		{ SOL_SOCKET, SO_TIMESTAMPNS, "SO_TIMESTAMPNS" },
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int rcvbuf = WIRE_RCVBUF_BYTES;
	int fd, ret;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nt_err_set(err, -errno, "wire: create a packet socket");
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		ret = set_int_opt(fd, opts[i].level, opts[i].name, 1);
		if (ret) {
			nt_err_set(err, ret, "wire: set %s on the packet socket", opts[i].text);
			goto close_fd;
		}
	}
	/* SO_RCVBUFFORCE needs CAP_NET_ADMIN, which we hold in a namespace we made. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0) {
		ret = nt_err_set(err, -errno, "wire: set the packet socket's receive buffer");
		goto close_fd;
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		ret = nt_err_set(err, -errno, "wire: bind the packet socket");
		goto close_fd;
	}
	*fd_out = fd;
	return 0;

close_fd:
	close(fd);
	return ret;
}

static int open_queues(struct nt_wire *w, const struct nt_wire_config *cfg, struct nt_err *err)
{
	uint32_t frames = cfg->queue_frames ? cfg->queue_frames : NT_WIRE_QUEUE_FRAMES;
	int mtu_c = 0, mtu_t = 0, ret;
	uint32_t slot_bytes;

	ret = link_mtu(w->sock, cfg->client_ifname, &mtu_c, err);
	if (ret == 0)
		ret = link_mtu(w->sock, cfg->target_ifname, &mtu_t, err);
	if (ret)
		return ret;
	/* A frame may be as long as the larger MTU plus its link header and the vnet header. */
	slot_bytes = (uint32_t)(sizeof(struct virtio_net_hdr) + ETHER_HDR_LEN + WIRE_VLAN_BYTES +
				(mtu_c > mtu_t ? mtu_c : mtu_t));
	for (int d = 0; d < NT_WIRE_DIRS; d++) {
		ret = nt_wire_queue_init(&w->queue[d], frames, slot_bytes);
		if (ret)
			return nt_err_set(err, ret, "wire: allocate a queue of %u frames", frames);
	}
	w->scratch = malloc(slot_bytes);
	if (!w->scratch)
		return nt_err_set(err, -ENOMEM, "wire: allocate a frame buffer");
	return 0;
}

int nt_wire_open(struct nt_wire *w, const struct nt_wire_config *cfg, struct nt_err *err)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->sock = w->timer_fd = w->stop_fd = -1;
	w->ifindex[NT_WIRE_TO_TARGET] = cfg->client_ifindex;
	w->ifindex[NT_WIRE_TO_CLIENT] = cfg->target_ifindex;
	for (int d = 0; d < NT_WIRE_DIRS; d++) {
		w->delay_ns[d] = cfg->delay_ns[d];
		w->stats.delay_ns[d] = cfg->delay_ns[d];
	}
	w->spin_ns = cfg->spin_ns == 0 ? NT_WIRE_SPIN_NS : cfg->spin_ns < 0 ? 0 : cfg->spin_ns;
	w->stats.spin_ns = w->spin_ns;
	/* From here on nt_wire_close() undoes whatever was made. */
	w->is_open = true;
	pthread_mutex_init(&w->lock, NULL);

	ret = open_socket(&w->sock, err);
	if (ret)
		goto fail;
	ret = open_queues(w, cfg, err);
	if (ret)
		goto fail;
	w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->timer_fd < 0) {
		ret = nt_err_set(err, -errno, "wire: create a timerfd");
		goto fail;
	}
	w->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->stop_fd < 0) {
		ret = nt_err_set(err, -errno, "wire: create an eventfd");
		goto fail;
	}
	return 0;

fail:
	nt_wire_close(w);
	return ret;
}

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
			return (int64_t)ts.tv_sec * NT_NS_PER_SEC + ts.tv_nsec;
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
	its.it_value.tv_sec = wake_ns / NT_NS_PER_SEC;
	its.it_value.tv_nsec = wake_ns % NT_NS_PER_SEC;
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

/* PACKET_STATISTICS, accumulated: the kernel zeroes its counters on every read. */
static void read_kernel_drops(struct nt_wire *w)
{
	struct tpacket_stats ks;
	socklen_t len = sizeof(ks);

	if (w->sock >= 0 && getsockopt(w->sock, SOL_PACKET, PACKET_STATISTICS, &ks, &len) == 0)
		w->kernel_drops += ks.tp_drops;
}

/* The thread's CPU time so far, read from outside it (pthread_getcpuclockid()). */
static int64_t thread_cpu_ns(const struct nt_wire *w)
{
	clockid_t cid;

	if (!w->running || pthread_getcpuclockid(w->thread, &cid) != 0)
		return w->cpu_ns;
	return nt_clock_ns(cid);
}

int nt_wire_stats(struct nt_wire *w, struct nt_wire_stats *st, struct nt_err *err)
{
	int64_t cpu_ns = thread_cpu_ns(w);
	int ret;

	read_kernel_drops(w);
	if (w->running)
		pthread_mutex_lock(&w->lock);
	*st = w->stats;
	ret = w->thread_ret;
	if (ret)
		nt_err_set(err, ret, "%s", w->thread_err.msg);
	if (w->running)
		pthread_mutex_unlock(&w->lock);
	st->dropped_kernel = w->kernel_drops;
	st->cpu_ns = cpu_ns;
	return ret;
}

void nt_wire_close(struct nt_wire *w)
{
	uint64_t one = 1;

	if (!w->is_open)
		return;
	if (w->running) {
		w->cpu_ns = thread_cpu_ns(w);
		/* An eventfd write cannot fail here: the counter is far from its maximum. */
		while (write(w->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
		pthread_join(w->thread, NULL);
		w->running = false;
	}
	read_kernel_drops(w);
	/* packet_release() waits for an RCU grace period here. */
	if (w->sock >= 0)
		close(w->sock);
	w->sock = -1;
	for (int d = 0; d < NT_WIRE_DIRS; d++)
		nt_wire_queue_fini(&w->queue[d]);
	if (w->timer_fd >= 0)
		close(w->timer_fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	w->timer_fd = w->stop_fd = -1;
	free(w->scratch);
	w->scratch = NULL;
	pthread_mutex_destroy(&w->lock);
	w->is_open = false;
}
