// SPDX-License-Identifier: MIT
/*
 * bench_wire_run.c - one run of the delay line benchmark: build the lab with
 * the RTT asked for, open the captures in the namespaces they watch, connect
 * through the wire, run the TCP_NODELAY ping-pong, gather the drop counters
 * of the wire, the links and the captures, and take the lab down; then the
 * sleep reference measured next to it. Everything here that moves the
 * thread between namespaces (setns() acts on the calling thread) lives in
 * this file; the captures' reading and matching are in bench_wire_frames.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

#include "bench_wire.h"

/* Quiet time after the last round, in one-way delays, so trailing frames land. */
#define SETTLE_DELAYS 3

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

		/*
		 * The kernel writes these counters (dev_seq_printf_stats()); a
		 * line that does not parse into all 13 fields is skipped.
		 */
		// NOLINTNEXTLINE(cert-err34-c)
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
		captures_drain(caps);
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

void run_one(const struct options *o, int64_t rtt_ms, long rounds, int home_ns, struct result *r)
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
	captures_drain(&caps);

	r->first_syn_ms = first_syn_ms(&caps.t, connect_real_ns);
	captures_match(&lab, &caps, r);
	collect_drops(&lab, &caps, r);
	enter(home_ns);
	t0 = nt_now_mono_ns();
	nt_lab_down(&lab);
	r->lab_down_ms = (double)(nt_now_mono_ns() - t0) / NT_NS_PER_MS;
}

struct quantiles sleep_reference(int samples)
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
