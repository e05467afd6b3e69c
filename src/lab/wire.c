// SPDX-License-Identifier: MIT
/*
 * wire.c - the delay line's socket, queues and statistics (see
 * nt/lab/wire.h); the forwarding thread is in wire_thread.c.
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
 * makes sendto() take one (virtio_net_hdr_to_skb() sets the skb up as
 * CHECKSUM_PARTIAL again), so the metadata travels with the bytes and the
 * frame leaves exactly as it came.
 *
 * Drops: a frame that finds its queue full, is longer than a slot, or is
 * refused by sendto() is counted per direction by the thread; a frame the
 * kernel could not queue on the socket shows in PACKET_STATISTICS, read here.
 */
#include <errno.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/wire.h"

/* Receive buffer: about a thousand small frames' truesize of headroom. */
#define WIRE_RCVBUF_BYTES (4 * 1024 * 1024)
/* Room for a VLAN tag on top of the Ethernet header. */
#define WIRE_VLAN_BYTES 4

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

void nt_wire_late_copy(struct nt_wire *w, struct nt_wire_late_log out[NT_WIRE_DIRS])
{
	if (w->running)
		pthread_mutex_lock(&w->lock);
	memcpy(out, w->late, sizeof(w->late));
	if (w->running)
		pthread_mutex_unlock(&w->lock);
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
