// SPDX-License-Identifier: MIT
/*
 * bench_wire_frames.c - the delay line benchmark's captures and frame
 * matching: AF_PACKET sockets with kernel timestamps on the lab's links,
 * keeping only our flow's frames (time, direction, a hash of the bytes), the
 * matching of what one capture saw leaving with what another saw arriving,
 * and the quantiles the figures are printed as. Apart from bench_wire_run.c
 * because none of it moves between namespaces or touches the TCP sockets:
 * capture_open() opens its socket in whichever namespace the caller's thread
 * is in, and everything else works on what the captures read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nt/clock.h"

#include "bench_wire.h"

#define CAP_RCVBUF  (32 * 1024 * 1024)
#define FRAME_BYTES 2048

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank quantiles of @v (sorted in place), in microseconds. */
struct quantiles quantiles_of(int64_t *v, size_t n)
{
	struct quantiles q = { .n = n };

	if (!n)
		return q;
	qsort(v, n, sizeof(*v), cmp_i64);
#define RANK(p) ((double)v[(size_t)((p) * (double)(n - 1) + 0.5)] / NS_PER_US)
	q.min_us = RANK(0.0);
	q.p50_us = RANK(0.50);
	q.p90_us = RANK(0.90);
	q.p99_us = RANK(0.99);
	q.max_us = RANK(1.0);
#undef RANK
	return q;
}

void capture_open(struct capture *c, const char *ifname, int ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = ifindex };
	int one = 1, rcvbuf = CAP_RCVBUF;

	memset(c, 0, sizeof(*c));
	c->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		die_errno("capture socket");
	if (setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0 ||
	    (setsockopt(c->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0 &&
	     setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0))
		die_errno("capture socket options");
	if (bind(c->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "bench_wire: bind capture to %s: %s\n", ifname, strerror(errno));
		exit(1);
	}
}

/* Our TCP flow only: IPv4 or IPv6 without extension headers, either port PORT. */
static bool is_our_tcp(const uint8_t *f, size_t len)
{
	size_t l4;
	uint16_t type;

	if (len < ETHER_HDR_LEN)
		return false;
	type = (uint16_t)(f[12] << 8 | f[13]);
	if (type == ETHERTYPE_IP && len >= ETHER_HDR_LEN + 20 && f[ETHER_HDR_LEN + 9] == 6)
		l4 = ETHER_HDR_LEN + (size_t)(f[ETHER_HDR_LEN] & 0x0f) * 4;
	else if (type == ETHERTYPE_IPV6 && len >= ETHER_HDR_LEN + 40 && f[ETHER_HDR_LEN + 6] == 6)
		l4 = ETHER_HDR_LEN + 40;
	else
		return false;
	if (len < l4 + 4)
		return false;
	return (f[l4] << 8 | f[l4 + 1]) == PORT || (f[l4 + 2] << 8 | f[l4 + 3]) == PORT;
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static void capture_drain(struct capture *c)
{
	uint8_t buf[FRAME_BYTES];
	char ctl[CMSG_SPACE(sizeof(struct timespec))];

	for (;;) {
		struct sockaddr_ll from;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = { .msg_name = &from,
				      .msg_namelen = sizeof(from),
				      .msg_iov = &iov,
				      .msg_iovlen = 1,
				      .msg_control = ctl,
				      .msg_controllen = sizeof(ctl) };
		struct cmsghdr *cm;
		struct frame *f;
		ssize_t n = recvmsg(c->fd, &msg, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n < 0)
			die_errno("read a capture");
		if (!is_our_tcp(buf, (size_t)n))
			continue;
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 4096;
			c->frames = realloc(c->frames, c->cap * sizeof(*c->frames));
			if (!c->frames)
				die("grow the capture", NULL);
		}
		f = &c->frames[c->n++];
		f->t_ns = 0;
		f->hash = fnv1a(buf, (size_t)n);
		f->outgoing = from.sll_pkttype == PACKET_OUTGOING;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
				f->t_ns = (int64_t)ts.tv_sec * NT_NS_PER_SEC + ts.tv_nsec;
			}
		}
	}
}

void capture_close(struct capture *c)
{
	struct tpacket_stats ks;
	socklen_t len = sizeof(ks);

	if (getsockopt(c->fd, SOL_PACKET, PACKET_STATISTICS, &ks, &len) == 0)
		c->kernel_drops += ks.tp_drops;
	close(c->fd);
	free(c->frames);
}

/**
 * struct leg - one stretch of the path, as two captures see it
 * @from: the capture where frames enter the stretch
 * @from_out: whether they show there as outgoing (sent by that link) or incoming
 * @to: the capture where they leave it
 * @to_out: the same, there
 * @delay_ns: what the stretch should add
 */
struct leg {
	const struct capture *from;
	bool from_out;
	const struct capture *to;
	bool to_out;
	int64_t delay_ns;
};

void captures_drain(struct captures *caps)
{
	capture_drain(&caps->c);
	capture_drain(&caps->t);
	if (caps->middle) {
		capture_drain(&caps->mc);
		capture_drain(&caps->mt);
	}
}

/*
 * Equal hash sequences on both sides mean nothing was lost, added or
 * reordered; then each pair of stamps gives the delay the stretch added.
 */
static struct leg_result match(const struct leg *leg)
{
	const struct capture *from = leg->from, *to = leg->to;
	struct leg_result lr = { 0 };
	size_t i = 0, j = 0, k = 0;
	int64_t *err = calloc(from->n + 1, sizeof(*err));

	if (!err)
		die("allocate the matches", NULL);
	for (size_t x = 0; x < from->n; x++)
		lr.sent += from->frames[x].outgoing == leg->from_out;
	for (size_t x = 0; x < to->n; x++)
		lr.arrived += to->frames[x].outgoing == leg->to_out;
	lr.order_kept = lr.sent == lr.arrived;
	while (i < from->n && j < to->n) {
		if (from->frames[i].outgoing != leg->from_out) {
			i++;
			continue;
		}
		if (to->frames[j].outgoing != leg->to_out) {
			j++;
			continue;
		}
		if (from->frames[i].hash != to->frames[j].hash) {
			lr.order_kept = false;
			break;
		}
		err[k++] = to->frames[j].t_ns - from->frames[i].t_ns - leg->delay_ns;
		i++;
		j++;
	}
	lr.err = quantiles_of(err, k);
	free(err);
	return lr;
}

/* The first frame to arrive at nt-t is the SYN: how long after connect() it came. */
double first_syn_ms(const struct capture *cap_t, int64_t connect_real_ns)
{
	for (size_t i = 0; i < cap_t->n; i++)
		if (!cap_t->frames[i].outgoing)
			return (double)(cap_t->frames[i].t_ns - connect_real_ns) / NT_NS_PER_MS;
	return -1;
}

void captures_match(const struct nt_lab *lab, const struct captures *caps, struct result *r)
{
	const int64_t *delay = lab->wire.delay_ns;
	const struct leg dirs[NT_WIRE_DIRS] = {
		{ &caps->c, true, &caps->t, false, delay[NT_WIRE_TO_TARGET] },
		{ &caps->t, true, &caps->c, false, delay[NT_WIRE_TO_CLIENT] },
	};
	/* The middle ends see the frame arrive (incoming) and leave (outgoing). */
	const struct leg hops[HOPS] = {
		{ &caps->c, true, &caps->mc, false, 0 },
		{ &caps->mc, false, &caps->mt, true, delay[NT_WIRE_TO_TARGET] },
		{ &caps->mt, true, &caps->t, false, 0 },
	};

	for (int d = 0; d < NT_WIRE_DIRS; d++)
		r->dir[d] = match(&dirs[d]);
	for (int h = 0; caps->middle && h < HOPS; h++)
		r->hop[h] = match(&hops[h]);
}
