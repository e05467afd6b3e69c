// SPDX-License-Identifier: MIT
/*
 * stamps.c - the receive-timestamp keeper and its probe (see
 * nt/capture/stamps.h).
 *
 * The probe: a datagram sent to ourselves on loopback is delivered within
 * sendto() (loopback_xmit() hands it to the backlog, which is processed
 * before the call returns to us), and stamped there if the key is on
 * (net_timestamp_check() in the receive path). If it is off, recvmsg()
 * stamps it when we read it (__sock_recv_timestamp()). So the clock read
 * between the send and the receive tells the two apart, without a sleep: a
 * stamp before it was taken on arrival. A datagram not there yet, or stamped
 * late, is probed again after a short pause.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nt/capture/stamps.h"
#include "nt/clock.h"

/* How long to wait for netstamp_clear() to switch stamps on, and the pause between probes. */
#define STAMP_WAIT_NS	     (40 * NT_NS_PER_MS)
#define STAMP_PROBE_PAUSE_NS 50000

void nt_rx_stamps_open(struct nt_rx_stamps *s)
{
	int one = 1;

	s->live = false;
	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd >= 0 && setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
		close(s->fd);
		s->fd = -1;
	}
}

void nt_rx_stamps_close(struct nt_rx_stamps *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->live = false;
}

/* The datagram's stamp, or -1 when none was waiting. */
static int64_t read_stamp(int fd)
{
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };

	if (recvmsg(fd, &msg, MSG_DONTWAIT) != 1)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return nt_timespec_ns(&ts);
		}
	}
	return -1;
}

/* One datagram to ourselves: true when it was stamped before we looked for it. */
static bool stamped_on_arrival(int fd, const struct sockaddr_in *self)
{
	char byte = 0;
	int64_t looked, stamp;

	if (sendto(fd, &byte, 1, 0, (const struct sockaddr *)self, sizeof(*self)) != 1)
		return false;
	looked = nt_now_real_ns();
	stamp = read_stamp(fd);
	/*
	 * A datagram that was not there yet is read by a later probe; stamped
	 * before that probe looked, it was stamped on arrival too.
	 */
	return stamp >= 0 && stamp <= looked;
}

/* A probe socket on this namespace's loopback, with stamps asked for; -1 when none. */
static int probe_open(struct sockaddr_in *self)
{
	socklen_t len = sizeof(*self);
	int one = 1;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	*self = (struct sockaddr_in){ .sin_family = AF_INET,
				      .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)self, sizeof(*self)) < 0 ||
	    getsockname(fd, (struct sockaddr *)self, &len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void nt_rx_stamps_wait(struct nt_rx_stamps *s)
{
	struct timespec pause = { .tv_nsec = STAMP_PROBE_PAUSE_NS };
	int64_t give_up = nt_now_mono_ns() + STAMP_WAIT_NS;
	struct sockaddr_in self;
	bool live = false;
	int fd;

	if (s && s->live)
		return;
	fd = probe_open(&self);
	if (fd < 0)
		return;
	while (!(live = stamped_on_arrival(fd, &self)) && nt_now_mono_ns() < give_up)
		nanosleep(&pause, NULL);
	close(fd);
	if (s)
		s->live = live && s->fd >= 0;
}
