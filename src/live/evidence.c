// SPDX-License-Identifier: MIT
/*
 * evidence.c - the kernel's own evidence for every round (see
 * nt/live/evidence.h).
 *
 * TX timestamps and their keys: SOF_TIMESTAMPING_OPT_ID on a TCP socket
 * starts the key at snd_una when the option is set (sock_set_timestamping()),
 * and each report carries tskey - that start in ee_data, where tskey is the
 * sequence number of the last byte of the sendmsg() that asked for it
 * (tcp_tx_timestamp()). The option is set once the connection is
 * established and before the first write, when snd_una is the first data
 * byte, so ee_data is the 0-based offset of a write's last byte in the
 * client's stream: round r's request ends at r * (header + body) - 1.
 *
 * The reports: SCM_TSTAMP_SCHED when the skb reaches __dev_queue_xmit(),
 * SCM_TSTAMP_SND when the driver takes it (skb_tx_timestamp() in
 * veth_xmit()), SCM_TSTAMP_ACK when the byte is acknowledged
 * (tcp_ack_tstamp()). All software timestamps are ktime_get_real(), the
 * capture's clock. OPT_TSONLY: no copy of the packet comes back with them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/live/evidence.h"
#include "nt/live/procnet.h"

/* /proc/net/netstat is about 4 KiB on 6.x; /proc/net/tcp holds a handful of sockets here. */
#define PROC_BUF_BYTES ((size_t)64 * 1024)

#define TX_FLAGS                                                                              \
	(SOF_TIMESTAMPING_TX_SCHED | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_TX_ACK | \
	 SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY)

static const struct {
	const char *name;
	bool target;
} counters[NT_EVIDENCE_COUNTERS] = {
	[NT_EVIDENCE_DELAYED_ACKS] = { "DelayedACKs", true },
	[NT_EVIDENCE_DELAYED_ACK_LOCKED] = { "DelayedACKLocked", true },
	[NT_EVIDENCE_DELAYED_ACK_LOST] = { "DelayedACKLost", true },
	[NT_EVIDENCE_AUTOCORKING] = { "TCPAutoCorking", false },
};

/*
 * Round @round's entry of the ring, NULL for none: a round already handed
 * over (its entry may serve a later round now) or too far ahead of it.
 */
static struct nt_round_evidence *round_of(struct nt_evidence *ev, unsigned round)
{
	unsigned retired = ev->retired ? *ev->retired : 0;

	if (round < 1 || round > ev->shape.rounds || !ev->out->n_rounds || round <= retired ||
	    round > retired + ev->out->n_rounds)
		return NULL;
	return &ev->out->rounds[(round - 1) % ev->out->n_rounds];
}

/* The whole file from offset 0, NUL-terminated in ev->buf (never grown: the exchange waits). */
static bool read_proc(struct nt_evidence *ev, int fd)
{
	return nt_procnet_read(fd, &ev->buf, &ev->buf_bytes, ev->buf_bytes);
}

static void read_counters(struct nt_evidence *ev, uint64_t *vals, bool *have)
{
	bool target_ok = read_proc(ev, ev->target_netstat_fd);

	for (unsigned i = 0; i < NT_EVIDENCE_COUNTERS; i++)
		if (counters[i].target)
			have[i] = target_ok &&
				  nt_procnet_netstat_value(ev->buf, "TcpExt", counters[i].name,
							   &vals[i]) == 0;
	bool client_ok = read_proc(ev, ev->client_netstat_fd);

	for (unsigned i = 0; i < NT_EVIDENCE_COUNTERS; i++)
		if (!counters[i].target)
			have[i] = client_ok &&
				  nt_procnet_netstat_value(ev->buf, "TcpExt", counters[i].name,
							   &vals[i]) == 0;
}

int nt_evidence_open_target(struct nt_evidence *ev, struct nt_record_evidence *out,
			    const struct nt_shape *shape, int family, uint16_t client_port,
			    uint16_t target_port, struct nt_err *err)
{
	memset(ev, 0, sizeof(*ev));
	ev->target_tcp_fd = ev->target_netstat_fd = ev->client_netstat_fd = -1;
	ev->out = out;
	ev->shape = *shape;
	ev->client_port = client_port;
	ev->target_port = target_port;
	ev->buf_bytes = PROC_BUF_BYTES;
	ev->buf = malloc(ev->buf_bytes);
	free(out->rounds);
	*out = (struct nt_record_evidence){
		.delayed_acks = -1,
		.delayed_ack_locked = -1,
		.delayed_ack_lost = -1,
		.tcp_autocorking = -1,
	};
	out->n_rounds = shape->rounds < NT_EVIDENCE_RING ? shape->rounds : NT_EVIDENCE_RING;
	out->rounds = calloc(out->n_rounds ? out->n_rounds : 1, sizeof(*out->rounds));
	if (!ev->buf || !out->rounds) {
		free(ev->buf);
		ev->buf = NULL;
		return nt_err_set(err, -ENOMEM, "allocate the evidence of %u rounds",
				  shape->rounds);
	}
	for (unsigned i = 0; i < out->n_rounds; i++)
		nt_round_evidence_reset(&out->rounds[i]);
	ev->target_tcp_fd = nt_procnet_open(family == AF_INET6 ? "tcp6" : "tcp");
	ev->target_netstat_fd = nt_procnet_open("netstat");
	return 0;
}

void nt_evidence_open_client(struct nt_evidence *ev)
{
	if (!ev->buf)
		return;
	ev->client_netstat_fd = nt_procnet_open("netstat");
	/* Both namespaces' files are open now: take the starting values together. */
	read_counters(ev, ev->before, ev->have_before);
}

/* ---- client ------------------------------------------------------------------------------ */

static void on_client_ready(void *ctx, int client_fd)
{
	struct nt_evidence *ev = ctx;
	int flags = TX_FLAGS;

	ev->tx_on = setsockopt(client_fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) == 0;
}

static void on_client_wrote(void *ctx, unsigned round, enum nt_call call, int client_fd)
{
	struct nt_evidence *ev = ctx;
	struct nt_round_evidence *re = round_of(ev, round);
	int64_t now = nt_now_real_ns();
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int unsent =
		0; /* valgrind has no wrapper for SIOCOUTQNSD: it cannot see the kernel fill it */

	/* The write that completes the request: write(body), or one write of both. */
	if (!re || call == NT_CALL_WRITE_HEADER)
		return;
	/* SIOCOUTQNSD: write_seq - snd_nxt, what tcp_write_xmit() has not sent yet. */
	if (ioctl(client_fd, SIOCOUTQNSD, &unsent) == 0)
		re->client_unsent_bytes = unsent;
	re->body_write_ns = now;
	if (getsockopt(client_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0) {
		re->client_unacked = ti.tcpi_unacked;
		re->client_snd_mss = ti.tcpi_snd_mss;
	}
	/*
	 * Unstalled rounds can run back to back inside one turn of the poll
	 * loop: read the error queue here too, or it overflows the socket's
	 * receive buffer (sock_queue_err_skb()) and reports are lost.
	 */
	nt_evidence_drain_tx(ev, client_fd);
}

/* Which round's request ends at 0-based stream offset @key, 0 for none (a header, say). */
static unsigned round_of_key(const struct nt_evidence *ev, uint32_t key)
{
	uint64_t q = (uint64_t)ev->shape.header_bytes + ev->shape.body_bytes;
	uint64_t end = (uint64_t)key + 1;

	if (q == 0 || end % q != 0)
		return 0;
	return end / q <= ev->shape.rounds ? (unsigned)(end / q) : 0;
}

static void on_tx_timestamp(struct nt_evidence *ev, const struct sock_extended_err *ee,
			    int64_t t_ns)
{
	struct nt_round_evidence *re;

	ev->out->tx_timestamps++;
	re = round_of(ev, round_of_key(ev, ee->ee_data));
	if (!re)
		return;
	switch (ee->ee_info) {
	case SCM_TSTAMP_SCHED:
		re->body_sched_ns = t_ns;
		break;
	case SCM_TSTAMP_SND:
		re->body_dev_ns = t_ns;
		break;
	case SCM_TSTAMP_ACK:
		re->body_acked_ns = t_ns;
		break;
	}
}

void nt_evidence_drain_tx(struct nt_evidence *ev, int client_fd)
{
	if (!ev->buf || !ev->tx_on || client_fd < 0)
		return;
	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(struct scm_timestamping)) +
				 CMSG_SPACE(sizeof(struct sock_extended_err) +
					    sizeof(struct sockaddr_in6))];
			struct cmsghdr align;
		} ctl;
		struct msghdr msg = { .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
		struct sock_extended_err ee;
		bool have_ee = false;
		int64_t t_ns = 0;

		if (recvmsg(client_fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
				struct scm_timestamping ts;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				/* ts[0] is the software timestamp; ts[2] would be hardware. */
				t_ns = nt_timespec_ns(&ts.ts[0]);
			} else if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
				   (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) {
				memcpy(&ee, CMSG_DATA(c), sizeof(ee));
				have_ee = ee.ee_errno == ENOMSG &&
					  ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING;
			}
		}
		if (have_ee && t_ns)
			on_tx_timestamp(ev, &ee, t_ns);
	}
}

static void on_client_closing(void *ctx, int client_fd)
{
	nt_evidence_drain_tx(ctx, client_fd);
}

/* ---- target ------------------------------------------------------------------------------ */

static void sample_proc_tcp(struct nt_evidence *ev, struct nt_round_evidence *re)
{
	struct nt_procnet_tcp t;

	if (!read_proc(ev, ev->target_tcp_fd) ||
	    nt_procnet_find_tcp(ev->buf, ev->target_port, ev->client_port, NT_PROCNET_ESTABLISHED,
				&t) < 0)
		return;
	re->target_proc_ato_ms = (int64_t)nt_procnet_ticks_to_ms(t.ato_ticks);
	re->target_rto_ms = (int64_t)nt_procnet_ticks_to_ms(t.rto_ticks);
	re->target_quick = t.quick;
	re->target_pingpong = t.pingpong;
}

static void on_server_reading(void *ctx, unsigned round, int server_fd, uint64_t request_got)
{
	struct nt_evidence *ev = ctx;
	struct nt_round_evidence *re = round_of(ev, round);
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	int queued = 0, quickack = 0;

	if (!re || ev->sampled_round >= round)
		return;
	/* Once per round, as soon as the whole header is in, before the server reads on. */
	if (ioctl(server_fd, SIOCINQ, &queued) < 0 ||
	    request_got + (uint64_t)queued < ev->shape.header_bytes)
		return;
	ev->sampled_round = round;
	re->target_sample_ns = nt_now_real_ns();
	re->target_queued_bytes = queued;
	if (getsockopt(server_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0) {
		re->target_ato_us = ti.tcpi_ato;
		re->target_rcv_mss = ti.tcpi_rcv_mss;
	}
	len = sizeof(quickack);
	if (getsockopt(server_fd, IPPROTO_TCP, TCP_QUICKACK, &quickack, &len) == 0) {
		re->target_quickack_mode = quickack != 0;
		/* tcp_getsockopt() answers !inet_csk_in_pingpong_mode(sk). */
		re->target_pingpong = quickack == 0;
	}
	/*
	 * /proc/net/tcp adds the quick-ACK budget, and costs a walk of the
	 * established hash (see PROC_SHORT_READ_BYTES): read it only while the
	 * request is incomplete, when the server has nothing to do but wait.
	 */
	if (request_got + (uint64_t)queued <
	    (uint64_t)ev->shape.header_bytes + ev->shape.body_bytes)
		sample_proc_tcp(ev, re);
}

const struct nt_exchange_hooks *nt_evidence_hooks(struct nt_evidence *ev)
{
	ev->hooks = (struct nt_exchange_hooks){
		.ctx = ev,
		.client_ready = on_client_ready,
		.client_wrote = on_client_wrote,
		.server_reading = on_server_reading,
		.client_closing = on_client_closing,
	};
	return &ev->hooks;
}

/* ---- the end ----------------------------------------------------------------------------- */

void nt_evidence_finish(struct nt_evidence *ev)
{
	uint64_t after[NT_EVIDENCE_COUNTERS] = { 0 };
	bool have[NT_EVIDENCE_COUNTERS] = { false };
	int64_t *delta[NT_EVIDENCE_COUNTERS] = {
		[NT_EVIDENCE_DELAYED_ACKS] = &ev->out->delayed_acks,
		[NT_EVIDENCE_DELAYED_ACK_LOCKED] = &ev->out->delayed_ack_locked,
		[NT_EVIDENCE_DELAYED_ACK_LOST] = &ev->out->delayed_ack_lost,
		[NT_EVIDENCE_AUTOCORKING] = &ev->out->tcp_autocorking,
	};

	if (!ev->buf)
		return;
	read_counters(ev, after, have);
	for (unsigned i = 0; i < NT_EVIDENCE_COUNTERS; i++)
		if (have[i] && ev->have_before[i] && after[i] >= ev->before[i])
			*delta[i] = (int64_t)(after[i] - ev->before[i]);
}

void nt_evidence_close(struct nt_evidence *ev)
{
	int *fds[] = { &ev->target_tcp_fd, &ev->target_netstat_fd, &ev->client_netstat_fd };

	if (!ev->buf)
		return;
	for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	free(ev->buf);
	ev->buf = NULL;
}
