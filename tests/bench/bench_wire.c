// SPDX-License-Identifier: MIT
/*
 * bench_wire.c - how precise is the delay line (issue 18)? Not a test: it
 * prints figures against a reference measured in the same run.
 *
 * usage: unshare -Urn bench_wire [--rtt-ms MS]... [--rounds N] [--ipv6]
 *            [--spin-us US] [--resolve] [--payload BYTES] [--sleep-samples N]
 *            [--hops] [--json]
 *
 * For each RTT it builds the lab with that delay, opens one AF_PACKET capture
 * on nt-c (client namespace) and one on nt-t (target namespace), and runs a
 * TCP ping-pong with TCP_NODELAY: the client writes --payload bytes, the
 * server echoes them, --rounds times. Each direction's frames are seen twice,
 * leaving one end and arriving at the other, with kernel timestamps on the
 * same clock, so the delay the wire added to every frame is measured, not
 * inferred. The two sequences must be equal frame for frame (same bytes, same
 * order, none missing): that checks FIFO order and zero loss too. With
 * --hops, two more captures on the middle ends split client -> target into
 * its three stretches: the veth into the middle, the wire, the veth out.
 *
 * The reference, measured right after each run: a bare loop sleeping to
 * absolute deadlines (clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC, timer
 * slack 1 ns, as the forwarder's thread), how late it wakes. That is this
 * machine's scheduling noise at that moment, which no user-space delay line
 * can beat without busy-waiting.
 *
 * Exit status: 0 when every run completed (the figures are for a human or
 * for tests/integration/test_wire.sh to judge), 1 on a failure to run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/lab.h"
#include "nt/lab/netns.h"

#define PORT	    7000
#define MAX_RTTS    8
#define CAP_RCVBUF  (32 * 1024 * 1024)
#define FRAME_BYTES 2048
#define NS_PER_US   1000LL
/* Quiet time after the last round, in one-way delays, so trailing frames land. */
#define SETTLE_DELAYS 3

struct options {
	int64_t rtt_ms[MAX_RTTS];
	int n_rtts;
	long rounds;
	bool ipv6;
	int64_t spin_ns;
	bool resolve;
	int payload;
	int sleep_samples;
	bool hops;
	bool json;
};

/* One captured frame: when, which way it crossed the capture point, and a hash of its bytes. */
struct frame {
	int64_t t_ns;
	uint64_t hash;
	bool outgoing;
};

struct capture {
	int fd;
	struct frame *frames;
	size_t n, cap;
	uint64_t kernel_drops;
};

struct quantiles {
	size_t n;
	double min_us, p50_us, p90_us, p99_us, max_us;
};

static void die(const char *what, const struct nt_err *err)
{
	fprintf(stderr, "bench_wire: %s%s%s\n", what, err && err->msg[0] ? ": " : "",
		err ? err->msg : "");
	exit(1);
}

static void die_errno(const char *what)
{
	fprintf(stderr, "bench_wire: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank quantiles of @v (sorted in place), in microseconds. */
static struct quantiles quantiles_of(int64_t *v, size_t n)
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

static struct quantiles sleep_reference(int samples)
{
	int64_t *late = calloc((size_t)samples + 1, sizeof(*late));
	int64_t deadline = nt_now_mono_ns() + NT_NS_PER_MS;
	struct quantiles q;

	if (!late)
		die("allocate the reference samples", NULL);
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	for (int i = 0; i < samples; i++) {
		/* 1 ms apart plus a varying fraction, so no tick alignment flatters the loop. */
		struct timespec ts;

		deadline += NT_NS_PER_MS + (i * 7919 % 1000) * NS_PER_US / 2;
		ts.tv_sec = deadline / NT_NS_PER_SEC;
		ts.tv_nsec = deadline % NT_NS_PER_SEC;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		late[i] = nt_now_mono_ns() - deadline;
	}
	q = quantiles_of(late, (size_t)samples);
	free(late);
	return q;
}

static void capture_open(struct capture *c, const char *ifname, int ifindex)
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

static void capture_close(struct capture *c)
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

/**
 * struct leg_result - what a stretch added to each frame
 * @err: added delay minus @delay_ns, quantiles
 * @sent: frames seen entering
 * @arrived: frames seen leaving
 * @order_kept: the same frames (same bytes) in the same order on both sides
 */
struct leg_result {
	struct quantiles err;
	size_t sent, arrived;
	bool order_kept;
};

/* The three stretches of client -> target, with --hops: nt-c to nt-mc, the wire, nt-mt to nt-t. */
#define HOPS 3

struct result {
	int64_t rtt_ms;
	long rounds;
	double connect_ms;
	double first_syn_ms;
	double lab_up_ms, lab_down_ms;
	struct quantiles app_rtt;
	struct quantiles sleep_ref;
	struct leg_result dir[NT_WIRE_DIRS];
	struct leg_result hop[HOPS];
	uint64_t wire_dropped, capture_dropped, link_dropped, retransmits;
	struct nt_wire_stats wire;
};

/* The captures of one run: both ends, and with --hops both middle ends. */
struct captures {
	struct capture c, t, mc, mt;
	bool middle;
};

static void drain_all(struct captures *caps)
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

static void set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		die_errno("TCP_NODELAY");
}

static socklen_t sockaddr_of(const struct nt_lab *lab, const struct in6_addr *addr,
			     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (lab->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(PORT);
		s6->sin6_addr = *addr;
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(PORT);
	memcpy(&s4->sin_addr, addr, 4);
	return sizeof(*s4);
}

static void read_full(int fd, char *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			die_errno("read the echo");
		buf += n;
		len -= (size_t)n;
	}
}

static uint64_t retransmits(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return 0;
	return ti.tcpi_total_retrans;
}

/* rx_drop + tx_drop of our links, from /proc/thread-self/net/dev of the thread's namespace. */
static uint64_t link_drops(void)
{
	FILE *f = fopen("/proc/thread-self/net/dev", "r");
	char line[512];
	uint64_t sum = 0;

	if (!f)
		die_errno("open /proc/thread-self/net/dev");
	while (fgets(line, sizeof(line), f)) {
		char name[32];
		unsigned long long v[16];

		if (sscanf(line,
			   " %31[^:]: %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
			   &v[9], &v[10], &v[11]) == 13 &&
		    strncmp(name, "nt-", 3) == 0)
			sum += v[3] + v[11];
	}
	fclose(f);
	return sum;
}

static void enter(int ns)
{
	struct nt_err err = { { 0 } };

	if (nt_netns_enter(ns, &err) < 0)
		die("enter a namespace", &err);
}

static int listen_on(const struct nt_lab *lab)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(lab, &lab->target_addr, &ss);
	int one = 1, fd = socket(lab->family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4) < 0)
		die_errno("listen in the target namespace");
	return fd;
}

/* Connect and accept; the connect time and when the SYN reached the target are noted. */
static void connect_pair(const struct nt_lab *lab, int listen_fd, int *client, int *server,
			 int64_t *connect_real_ns, struct result *r)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(lab, &lab->target_addr, &ss);
	int64_t t0;

	*client = socket(lab->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*client < 0)
		die_errno("client socket");
	*connect_real_ns = nt_now_real_ns();
	t0 = nt_now_mono_ns();
	if (connect(*client, (struct sockaddr *)&ss, len) < 0)
		die_errno("connect through the wire");
	r->connect_ms = (double)(nt_now_mono_ns() - t0) / NT_NS_PER_MS;
	*server = accept(listen_fd, NULL, NULL);
	if (*server < 0)
		die_errno("accept");
	set_nodelay(*client);
	set_nodelay(*server);
}

static void ping_pong(int client, int server, const struct options *o, long rounds,
		      struct captures *caps, struct result *r)
{
	int64_t *rtt = calloc((size_t)rounds + 1, sizeof(*rtt));
	char *buf = calloc(1, (size_t)o->payload);

	if (!rtt || !buf)
		die("allocate the rounds", NULL);
	for (long i = 0; i < rounds; i++) {
		int64_t t0 = nt_now_mono_ns();

		if (write(client, buf, (size_t)o->payload) != o->payload)
			die_errno("client write");
		read_full(server, buf, (size_t)o->payload);
		if (write(server, buf, (size_t)o->payload) != o->payload)
			die_errno("server write");
		read_full(client, buf, (size_t)o->payload);
		rtt[i] = nt_now_mono_ns() - t0;
		drain_all(caps);
	}
	r->app_rtt = quantiles_of(rtt, (size_t)rounds);
	free(rtt);
	free(buf);
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NT_NS_PER_SEC, .tv_nsec = ns % NT_NS_PER_SEC };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The first frame to arrive at nt-t is the SYN: how long after connect() it came. */
static double first_syn_ms(const struct capture *cap_t, int64_t connect_real_ns)
{
	for (size_t i = 0; i < cap_t->n; i++)
		if (!cap_t->frames[i].outgoing)
			return (double)(cap_t->frames[i].t_ns - connect_real_ns) / NT_NS_PER_MS;
	return -1;
}

static void collect_drops(struct nt_lab *lab, struct captures *caps, struct result *r)
{
	struct nt_err err = { { 0 } };

	if (nt_wire_stats(&lab->wire, &r->wire, &err) < 0)
		die("the wire stopped", &err);
	r->wire_dropped = nt_wire_dropped(&r->wire);
	enter(lab->client_ns);
	r->link_dropped = link_drops();
	enter(lab->middle_ns);
	r->link_dropped += link_drops();
	enter(lab->target_ns);
	r->link_dropped += link_drops();
	capture_close(&caps->c);
	capture_close(&caps->t);
	r->capture_dropped = caps->c.kernel_drops + caps->t.kernel_drops;
	if (caps->middle) {
		capture_close(&caps->mc);
		capture_close(&caps->mt);
		r->capture_dropped += caps->mc.kernel_drops + caps->mt.kernel_drops;
	}
}

/* Every capture open before the first frame; the thread is left in the client namespace. */
static void open_captures(const struct options *o, const struct nt_lab *lab, struct captures *caps)
{
	enter(lab->target_ns);
	capture_open(&caps->t, NT_LAB_TARGET_IF, lab->target_ifindex);
	caps->middle = o->hops;
	if (caps->middle) {
		enter(lab->middle_ns);
		capture_open(&caps->mc, NT_LAB_MIDDLE_CLIENT_IF,
			     lab->wire.ifindex[NT_WIRE_TO_TARGET]);
		capture_open(&caps->mt, NT_LAB_MIDDLE_TARGET_IF,
			     lab->wire.ifindex[NT_WIRE_TO_CLIENT]);
	}
	enter(lab->client_ns);
	capture_open(&caps->c, NT_LAB_CLIENT_IF, lab->client_ifindex);
	/* SO_TIMESTAMPNS switches the kernel's stamps on through a work item: let it run. */
	sleep_ns(20 * NT_NS_PER_MS);
}

static void measure(const struct nt_lab *lab, const struct captures *caps, struct result *r)
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

static void run_one(const struct options *o, int64_t rtt_ms, long rounds, int home_ns,
		    struct result *r)
{
	struct nt_lab_config cfg = { .ipv6 = o->ipv6,
				     .autocork = -1,
				     .rtt_ns = rtt_ms * NT_NS_PER_MS,
				     .resolve_neighbours = o->resolve,
				     .wire_spin_ns = o->spin_ns };
	struct nt_err err = { { 0 } };
	struct captures caps;
	struct nt_lab lab;
	int listen_fd, client, server;
	int64_t connect_real_ns, t0;

	memset(r, 0, sizeof(*r));
	r->rtt_ms = rtt_ms;
	r->rounds = rounds;
	t0 = nt_now_mono_ns();
	if (nt_lab_up(&lab, &cfg, &err) < 0)
		die("build the lab", &err);
	r->lab_up_ms = (double)(nt_now_mono_ns() - t0) / NT_NS_PER_MS;
	enter(lab.target_ns);
	listen_fd = listen_on(&lab);
	open_captures(o, &lab, &caps);

	connect_pair(&lab, listen_fd, &client, &server, &connect_real_ns, r);
	ping_pong(client, server, o, rounds, &caps, r);
	r->retransmits = retransmits(client) + retransmits(server);
	close(client);
	close(server);
	close(listen_fd);
	sleep_ns(SETTLE_DELAYS * lab.wire.delay_ns[0] + 10 * NT_NS_PER_MS);
	drain_all(&caps);

	r->first_syn_ms = first_syn_ms(&caps.t, connect_real_ns);
	measure(&lab, &caps, r);
	collect_drops(&lab, &caps, r);
	enter(home_ns);
	t0 = nt_now_mono_ns();
	nt_lab_down(&lab);
	r->lab_down_ms = (double)(nt_now_mono_ns() - t0) / NT_NS_PER_MS;
}

static void print_q(const char *label, const struct quantiles *q)
{
	printf("  %-34s n %6zu  min %+8.1f  p50 %+8.1f  p90 %+8.1f  p99 %+8.1f  max %+9.1f us\n",
	       label, q->n, q->min_us, q->p50_us, q->p90_us, q->p99_us, q->max_us);
}

static void print_text(const struct options *o, const struct result *r, int n)
{
	static const char *const dir_name[] = { "client -> target", "target -> client" };
	static const char *const hop_name[HOPS] = { "  of which nt-c out -> nt-mc in",
						    "  nt-mc in -> nt-mt out, - target",
						    "  nt-mt out -> nt-t in" };

	printf("delay line precision (%s, payload %d B, wire spin %s)\n", o->ipv6 ? "IPv6" : "IPv4",
	       o->payload,
	       o->spin_ns < 0 ? "off"
	       : o->spin_ns   ? "set"
			      : "default");
	for (int i = 0; i < n; i++, r++) {
		printf("RTT %lld ms, %ld round trips; spin %lld us, scheduler slice %lld us\n",
		       (long long)r->rtt_ms, r->rounds, (long long)(r->wire.spin_ns / NS_PER_US),
		       (long long)(r->wire.slice_ns / NS_PER_US));
		for (int d = 0; d < NT_WIRE_DIRS; d++) {
			char label[64];

			snprintf(label, sizeof(label), "%s, added - target", dir_name[d]);
			print_q(label, &r->dir[d].err);
			printf("  %-34s sent %zu, arrived %zu, %s; wire lateness p50 <= %.0f us, "
			       "p99 <= %.0f us\n",
			       "", r->dir[d].sent, r->dir[d].arrived,
			       r->dir[d].order_kept ? "same frames in the same order" : "MISMATCH",
			       (double)nt_wire_hist_quantile_ns(&r->wire.dir[d].lateness, 0.5) /
				       NS_PER_US,
			       (double)nt_wire_hist_quantile_ns(&r->wire.dir[d].lateness, 0.99) /
				       NS_PER_US);
		}
		for (int h = 0; o->hops && h < HOPS; h++)
			print_q(hop_name[h], &r->hop[h].err);
		if (r->sleep_ref.n)
			print_q("reference: clock_nanosleep, late", &r->sleep_ref);
		printf("  application RTT (ms): p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n",
		       r->app_rtt.p50_us / 1000, r->app_rtt.p90_us / 1000, r->app_rtt.p99_us / 1000,
		       r->app_rtt.max_us / 1000);
		printf("  connect %.3f ms, SYN at the target %.3f ms after connect()\n",
		       r->connect_ms, r->first_syn_ms);
		printf("  lab up %.2f ms, down %.2f ms; forwarding thread CPU %.1f ms\n",
		       r->lab_up_ms, r->lab_down_ms, (double)r->wire.cpu_ns / NT_NS_PER_MS);
		printf("  drops: wire %llu, captures %llu, links %llu; TCP retransmissions %llu\n",
		       (unsigned long long)r->wire_dropped, (unsigned long long)r->capture_dropped,
		       (unsigned long long)r->link_dropped, (unsigned long long)r->retransmits);
	}
}

static void json_q(const char *key, const struct quantiles *q, const char *end)
{
	printf("\"%s\": {\"n\": %zu, \"min_us\": %.3f, \"p50_us\": %.3f, \"p90_us\": %.3f, "
	       "\"p99_us\": %.3f, \"max_us\": %.3f}%s",
	       key, q->n, q->min_us, q->p50_us, q->p90_us, q->p99_us, q->max_us, end);
}

static void print_json(const struct options *o, const struct result *r, int n)
{
	printf("{\"family\": \"%s\", \"payload_bytes\": %d, ", o->ipv6 ? "ipv6" : "ipv4",
	       o->payload);
	printf("\"runs\": [");
	for (int i = 0; i < n; i++, r++) {
		printf("%s{\"rtt_ms\": %lld, \"rounds\": %ld, \"spin_us\": %lld, \"slice_us\": "
		       "%lld, ",
		       i ? ", " : "", (long long)r->rtt_ms, r->rounds,
		       (long long)(r->wire.spin_ns / NS_PER_US),
		       (long long)(r->wire.slice_ns / NS_PER_US));
		printf("\"connect_ms\": %.3f, \"first_syn_ms\": %.3f, \"lab_up_ms\": %.3f, "
		       "\"lab_down_ms\": %.3f, \"wire_cpu_ms\": %.3f, ",
		       r->connect_ms, r->first_syn_ms, r->lab_up_ms, r->lab_down_ms,
		       (double)r->wire.cpu_ns / NT_NS_PER_MS);
		json_q("app_rtt", &r->app_rtt, ", ");
		json_q("sleep_reference", &r->sleep_ref, ", ");
		json_q("to_target_error", &r->dir[0].err, ", ");
		json_q("to_client_error", &r->dir[1].err, ", ");
		printf("\"sent\": [%zu, %zu], \"arrived\": [%zu, %zu], "
		       "\"order_kept\": [%s, %s], ",
		       r->dir[0].sent, r->dir[1].sent, r->dir[0].arrived, r->dir[1].arrived,
		       r->dir[0].order_kept ? "true" : "false",
		       r->dir[1].order_kept ? "true" : "false");
		printf("\"forwarded\": [%llu, %llu], \"wire_dropped\": %llu, "
		       "\"capture_dropped\": %llu, \"link_dropped\": %llu, \"retransmits\": %llu}",
		       (unsigned long long)r->wire.dir[0].forwarded,
		       (unsigned long long)r->wire.dir[1].forwarded,
		       (unsigned long long)r->wire_dropped, (unsigned long long)r->capture_dropped,
		       (unsigned long long)r->link_dropped, (unsigned long long)r->retransmits);
	}
	printf("]}\n");
}

static long parse_long(const char *opt, const char *text, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || *end || end == text || v < min) {
		fprintf(stderr, "bench_wire: %s: \"%s\" is not a number >= %ld\n", opt, text, min);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "rtt-ms", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "spin-us", required_argument, NULL, 's' },
		{ "resolve", no_argument, NULL, 'a' },
		{ "payload", required_argument, NULL, 'p' },
		{ "sleep-samples", required_argument, NULL, 'z' },
		{ "hops", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .payload = 64, .sleep_samples = 2000 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (o->n_rtts == MAX_RTTS)
				exit(2);
			o->rtt_ms[o->n_rtts++] = parse_long("--rtt-ms", optarg, 1);
			break;
		case 'n':
			o->rounds = parse_long("--rounds", optarg, 1);
			break;
		case '6':
			o->ipv6 = true;
			break;
		case 's':
			/* 0 turns the spin off (the lab's negative), the default is the lab's. */
			o->spin_ns = parse_long("--spin-us", optarg, 0) * NS_PER_US;
			if (o->spin_ns == 0)
				o->spin_ns = -1;
			break;
		case 'a':
			o->resolve = true;
			break;
		case 'p':
			o->payload = (int)parse_long("--payload", optarg, 1);
			break;
		case 'z':
			o->sleep_samples = (int)parse_long("--sleep-samples", optarg, 0);
			break;
		case 'h':
			o->hops = true;
			break;
		case 'j':
			o->json = true;
			break;
		default:
			exit(2);
		}
	}
	if (!o->n_rtts) {
		o->rtt_ms[o->n_rtts++] = 1;
		o->rtt_ms[o->n_rtts++] = 20;
		o->rtt_ms[o->n_rtts++] = 200;
	}
}

int main(int argc, char **argv)
{
	struct result res[MAX_RTTS];
	struct nt_err err = { { 0 } };
	struct options o;
	int home_ns;

	parse(argc, argv, &o);
	if (nt_netns_current(&home_ns, &err) < 0)
		die("namespace", &err);
	for (int i = 0; i < o.n_rtts; i++) {
		/* About 10 s of round trips each by default, and 20,000 at 1 ms. */
		long rounds = o.rounds ? o.rounds : o.rtt_ms[i] <= 1 ? 20000 : 10000 / o.rtt_ms[i];

		run_one(&o, o.rtt_ms[i], rounds, home_ns, &res[i]);
		/* The machine's noise changes by the minute: measured next to each run. */
		if (o.sleep_samples)
			res[i].sleep_ref = sleep_reference(o.sleep_samples);
	}
	if (o.json)
		print_json(&o, res, o.n_rtts);
	else
		print_text(&o, res, o.n_rtts);
	close(home_ns);
	return 0;
}
