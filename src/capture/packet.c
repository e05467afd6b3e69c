// SPDX-License-Identifier: MIT
/*
 * packet.c - the raw AF_PACKET capture back end ("packet").
 *
 * One SOCK_RAW packet socket, read with recvmsg(): the frame, its kernel
 * timestamp (SO_TIMESTAMPNS, CLOCK_REALTIME: dev_queue_xmit_nit() and
 * __netif_receive_skb() stamp with ktime_get_real()) and its original length
 * (PACKET_AUXDATA tp_len).
 *
 * Order of set-up, and why:
 *  - socket(AF_PACKET, SOCK_RAW, 0): protocol 0 registers no packet_type
 *    hook, so nothing is queued before the filter is in place;
 *  - SO_ATTACH_FILTER with the same expression the pcap back end gets,
 *    compiled by libpcap for DLT_EN10MB (pcap_open_dead() + pcap_compile()),
 *    so only the traced flow is ever copied to us;
 *  - bind() with ETH_P_ALL to the ifindex: this is the first hook
 *    registration, so packet_do_bind() has nothing to unregister and pays no
 *    synchronize_net().
 *
 * No PACKET_RX_RING: packet_set_ring() calls synchronize_net()
 * unconditionally (an RCU grace period, several milliseconds here) and so
 * does its teardown, while a run sees a few frames per round. recvmsg() per
 * frame costs a system call each; at these rates that is noise (measured in
 * docs/performance.md).
 *
 * Timestamps must be live before the first frame. SO_TIMESTAMPNS turns on
 * the kernel's netstamp_needed_key through net_enable_timestamp(), which,
 * when no other socket on the system wants timestamps, defers the switch to
 * a work item (netstamp_clear()). Until it runs, frames reach packet_rcv()
 * without a real-time stamp and recvmsg() stamps them when we read them:
 * a sub-millisecond run could show replies "arriving" after read() returned
 * them. So the command switches them on first thing and keeps them on
 * (struct nt_rx_stamps, nt/capture/stamps.h), and open checks, on the
 * namespace's loopback, that they are live (nt_rx_stamps_wait()).
 *
 * Directions: PACKET_OUTGOING copies (sent by the captured interface) and
 * incoming ones are both wanted on a veth end. On a loopback device every
 * frame would be seen twice (once outgoing, once incoming), so there, as
 * libpcap does, outgoing copies are skipped.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nt/capture/capture.h"
#include "nt/capture/stamps.h"
#include "nt/clock.h"
#include "nt/model/decode.h"

/* libpcap's default kernel buffer (pcap_set_buffer_size(3PCAP)): same headroom on both back ends. */
#define PACKET_DEFAULT_RCVBUF (2 * 1024 * 1024)

/**
 * struct packet_cap - the back end's state
 * @fd: the packet socket
 * @ifindex: the captured interface
 * @skip_outgoing: a loopback device: outgoing copies duplicate incoming ones
 * @buf: one frame
 * @buf_bytes: size of @buf (the snaplen)
 * @received: PACKET_STATISTICS tp_packets, accumulated (reading resets it)
 * @dropped: tp_drops, accumulated
 */
struct packet_cap {
	int fd;
	int ifindex;
	bool skip_outgoing;
	uint8_t *buf;
	size_t buf_bytes;
	uint64_t received;
	uint64_t dropped;
};

static struct packet_cap *priv(const struct nt_capture *cap)
{
	return cap->priv;
}

static int set_opt(int fd, int level, int name, const void *val, socklen_t len)
{
	return setsockopt(fd, level, name, val, len) < 0 ? -errno : 0;
}

/* The pcap back end's filter for the pcap back end's link type, as a classic BPF program. */
static int attach_filter(int fd, const char *expr, unsigned snaplen, struct nt_err *err)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	struct bpf_program prog;
	struct sock_fprog fprog;
	int ret;

	if (!dead)
		return nt_err_set(err, -ENOMEM, "libpcap: open a compiler for the filter");
	if (pcap_compile(dead, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		ret = nt_err_set(err, -EINVAL, "libpcap: filter \"%s\": %s", expr,
				 pcap_geterr(dead));
		pcap_close(dead);
		return ret;
	}
	/* struct bpf_insn and struct sock_filter are the same classic BPF instruction. */
	fprog.len = (unsigned short)prog.bf_len;
	fprog.filter = (struct sock_filter *)prog.bf_insns;
	ret = set_opt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof(fprog));
	pcap_freecode(&prog);
	pcap_close(dead);
	if (ret < 0)
		return nt_err_set(err, ret, "attach the filter \"%s\" to the packet socket", expr);
	return 0;
}

/* The interface's index and hardware type, asked on the packet socket (its namespace). */
static int interface_info(int fd, const char *ifname, int *ifindex, int *hatype, struct nt_err *err)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return nt_err_set(err, -ENAMETOOLONG, "capture interface \"%s\"", ifname);
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		return nt_err_set(err, -errno, "find capture interface \"%s\"", ifname);
	*ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		return nt_err_set(err, -errno, "hardware type of \"%s\"", ifname);
	*hatype = ifr.ifr_hwaddr.sa_family;
	return 0;
}

static int set_rcvbuf(int fd, unsigned bytes, struct nt_err *err)
{
	int val = bytes ? (int)bytes : PACKET_DEFAULT_RCVBUF;

	/*
	 * SO_RCVBUFFORCE needs CAP_NET_ADMIN over the namespace's user
	 * namespace, which we hold in a namespace we made; otherwise
	 * SO_RCVBUF, capped at net.core.rmem_max.
	 */
	if (set_opt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &val, sizeof(val)) == 0)
		return 0;
	if (set_opt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)) < 0)
		return nt_err_set(err, -errno, "set the packet socket's buffer to %d bytes", val);
	return 0;
}

static int packet_open(struct nt_capture *cap, const struct nt_capture_config *cfg,
		       struct nt_err *err)
{
	struct packet_cap *pc = calloc(1, sizeof(*pc));
	struct sockaddr_ll sll;
	int one = 1, hatype = 0, ret;

	if (!pc)
		return nt_err_set(err, -ENOMEM, "allocate the packet capture");
	pc->fd = -1;
	cap->priv = pc;
	pc->buf_bytes = cfg->snaplen ? cfg->snaplen : 262144;
	pc->buf = malloc(pc->buf_bytes);
	if (!pc->buf) {
		ret = nt_err_set(err, -ENOMEM, "allocate the packet capture buffer");
		goto fail;
	}
	pc->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (pc->fd < 0) {
		ret = nt_err_set(err, -errno, "create a packet socket to capture on \"%s\"",
				 cfg->ifname);
		goto fail;
	}
	ret = interface_info(pc->fd, cfg->ifname, &pc->ifindex, &hatype, err);
	if (ret < 0)
		goto fail;
	/* A Linux loopback device carries an all-zero Ethernet header (loopback_setup()). */
	if (hatype != ARPHRD_ETHER && hatype != ARPHRD_LOOPBACK) {
		ret = nt_err_set(err, -EPROTONOSUPPORT,
				 "capture interface \"%s\" has hardware type %d, not Ethernet",
				 cfg->ifname, hatype);
		goto fail;
	}
	pc->skip_outgoing = hatype == ARPHRD_LOOPBACK;
	ret = attach_filter(pc->fd, cfg->filter, (unsigned)pc->buf_bytes, err);
	if (ret < 0)
		goto fail;
	ret = set_rcvbuf(pc->fd, cfg->buffer_bytes, err);
	if (ret < 0)
		goto fail;
	if (set_opt(pc->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0 ||
	    set_opt(pc->fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0) {
		ret = nt_err_set(err, -errno, "enable timestamps on the packet socket");
		goto fail;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = pc->ifindex;
	if (bind(pc->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		ret = nt_err_set(err, -errno, "bind the packet socket to \"%s\"", cfg->ifname);
		goto fail;
	}
	nt_rx_stamps_wait(cfg->stamps);
	cap->linktype = NT_LINKTYPE_ETHERNET;
	return 0;

fail:
	if (pc->fd >= 0)
		close(pc->fd);
	free(pc->buf);
	free(pc);
	cap->priv = NULL;
	return ret;
}

static int packet_fd(const struct nt_capture *cap)
{
	return priv(cap)->fd;
}

static int packet_next(struct nt_capture *cap, struct nt_frame *frame, struct nt_err *err)
{
	struct packet_cap *pc = priv(cap);
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec)) +
			 CMSG_SPACE(sizeof(struct tpacket_auxdata))];
		struct cmsghdr align;
	} ctl;
	struct sockaddr_ll from;
	struct iovec iov = { .iov_base = pc->buf, .iov_len = pc->buf_bytes };
	struct msghdr msg;
	struct cmsghdr *c;
	ssize_t n;

	for (;;) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &from;
		msg.msg_namelen = sizeof(from);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		/* MSG_TRUNC: the return value is the frame's length even if it did not fit. */
		n = recvmsg(pc->fd, &msg, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		if (n < 0)
			return nt_err_set(err, -errno, "read the packet socket");
		if (!(pc->skip_outgoing && from.sll_pkttype == PACKET_OUTGOING))
			break;
	}
	frame->t_ns = 0;
	frame->wirelen = (uint32_t)n;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			frame->t_ns = nt_timespec_ns(&ts);
		} else if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA) {
			struct tpacket_auxdata aux;

			memcpy(&aux, CMSG_DATA(c), sizeof(aux));
			frame->wirelen = aux.tp_len;
		}
	}
	if (!frame->t_ns)
		return nt_err_set(err, -EPROTO,
				  "the packet socket gave a frame without a timestamp");
	frame->data = pc->buf;
	frame->caplen = (size_t)n < pc->buf_bytes ? (uint32_t)n : (uint32_t)pc->buf_bytes;
	frame->linktype = cap->linktype;
	/* Only a pcapng frame of our own -w carries notes. */
	frame->note = (struct nt_frame_note){ 0 };
	return 1;
}

static int packet_stats(struct nt_capture *cap, struct nt_capture_stats *st, struct nt_err *err)
{
	struct packet_cap *pc = priv(cap);
	struct tpacket_stats ks;
	socklen_t len = sizeof(ks);

	/* The kernel zeroes its counters on every read (packet_getsockopt()): accumulate. */
	if (getsockopt(pc->fd, SOL_PACKET, PACKET_STATISTICS, &ks, &len) < 0)
		return nt_err_set(err, -errno, "read the packet socket's statistics");
	/* tp_packets already includes tp_drops; libpcap's ps_recv counts the same way. */
	pc->received += ks.tp_packets;
	pc->dropped += ks.tp_drops;
	st->received = pc->received;
	st->dropped = pc->dropped;
	st->if_dropped = 0;
	return 0;
}

static void packet_close(struct nt_capture *cap)
{
	struct packet_cap *pc = priv(cap);

	if (!pc)
		return;
	if (pc->fd >= 0)
		close(pc->fd);
	free(pc->buf);
	free(pc);
	cap->priv = NULL;
}

const struct nt_capture_ops nt_capture_packet_ops = {
	.name = "packet",
	.open = packet_open,
	.fd = packet_fd,
	.next = packet_next,
	.stats = packet_stats,
	.close = packet_close,
};
