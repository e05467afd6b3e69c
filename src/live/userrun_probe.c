// SPDX-License-Identifier: MIT
/*
 * userrun_probe.c - the kernel state of a run of the user's programs (see
 * nt/live/userrun.h): the target's sockets and each namespace's counters.
 *
 * Every file is opened once, from this thread while it is in the file's
 * namespace, through /proc/thread-self: /proc/net follows the main thread's
 * namespace, a /proc/net file the namespace of the task it was looked up
 * through. seq_file regenerates the text on every read from offset 0.
 *
 * What a socket line tells (get_tcp4_sock(), get_tcp6_sock()): ato is
 * icsk_ack.ato, the delayed-ACK timeout the next delayed ACK starts from
 * (tcp_send_delayed_ack()); the next column is icsk_ack.quick << 1 |
 * inet_csk_in_pingpong_mode(). In ping-pong mode the receiver delays every
 * ACK, expecting to piggyback it on its reply (__tcp_ack_snd_check()); that
 * is the mode a write-write-read client meets. The target's sockets only:
 * the ACK that Nagle's held segment waits for is the target's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/lab.h"
#include "nt/live/procnet.h"
#include "nt/live/userrun.h"

#define BUF_MAX_BYTES ((size_t)16 * 1024 * 1024)

/* The whole text of @fd from offset 0, NUL-terminated in p->buf; false on failure. */
static bool read_all(struct nt_userrun_probe *p, int fd)
{
	return nt_procnet_read(fd, &p->buf, &p->buf_bytes, BUF_MAX_BYTES);
}

static void read_counters(struct nt_userrun_probe *p, enum nt_run_ns ns, uint64_t *vals,
			  bool *known)
{
	bool ok = read_all(p, p->netstat_fd[ns]);

	for (int c = 0; c < NT_RUN_COUNTER_COUNT; c++)
		known[c] = ok &&
			   nt_procnet_netstat_value(p->buf, "TcpExt",
						    nt_run_counter_name((enum nt_run_counter)c),
						    &vals[c]) == 0;
}

int nt_userrun_probe_open(struct nt_userrun_probe *p, const struct nt_lab *lab, struct nt_err *err)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->tcp_fd[0] = p->tcp_fd[1] = -1;
	p->netstat_fd[NT_RUN_NS_CLIENT] = p->netstat_fd[NT_RUN_NS_TARGET] = -1;
	p->family = lab->family;
	memcpy(p->client_addr, &lab->client_addr, sizeof(p->client_addr));
	ret = nt_lab_enter_target(lab, err);
	if (ret)
		return ret;
	/* Missing files (no IPv6 in the kernel) leave their part of the report empty. */
	p->tcp_fd[0] = nt_procnet_open("tcp");
	p->tcp_fd[1] = nt_procnet_open("tcp6");
	p->netstat_fd[NT_RUN_NS_TARGET] = nt_procnet_open("netstat");
	ret = nt_lab_enter_client(lab, err);
	if (ret)
		return ret;
	p->netstat_fd[NT_RUN_NS_CLIENT] = nt_procnet_open("netstat");
	for (int ns = 0; ns < NT_RUN_NS_COUNT; ns++)
		read_counters(p, (enum nt_run_ns)ns, p->start[ns], p->start_known[ns]);
	return 0;
}

/* Whether a socket line's remote address is the client's (an IPv4 client may show v4-mapped). */
static bool from_client(const struct nt_userrun_probe *p, const struct nt_procnet_tcp *t)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	uint8_t remote[16];

	memcpy(remote, t->remote_words, sizeof(remote));
	if (p->family == AF_INET6)
		return t->v6 && memcmp(remote, p->client_addr, 16) == 0;
	if (!t->v6)
		return memcmp(remote, p->client_addr, 4) == 0;
	return memcmp(remote, mapped, 12) == 0 && memcmp(remote + 12, p->client_addr, 4) == 0;
}

static void sample_text(struct nt_userrun_probe *p, struct nt_runinfo *ri)
{
	for (const char *line = p->buf; line && *line;) {
		struct nt_procnet_tcp t;

		if (nt_procnet_parse_tcp_line(line, &t) == 0 && t.state == NT_PROCNET_ESTABLISHED &&
		    from_client(p, &t)) {
			struct nt_sock_sample s = {
				.family = p->family,
				.client_port = t.remote_port,
				.target_port = t.local_port,
				.ato_ns =
					(int64_t)nt_procnet_ticks_to_ms(t.ato_ticks) * NT_NS_PER_MS,
				.pingpong = t.pingpong,
				.quick = t.quick,
			};

			memcpy(s.client_addr, p->client_addr, sizeof(s.client_addr));
			(void)nt_runinfo_sample(ri, &s);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

void nt_userrun_probe_sample(struct nt_userrun_probe *p, struct nt_runinfo *ri)
{
	ri->sample_reads++;
	for (int i = 0; i < 2; i++)
		if (read_all(p, p->tcp_fd[i]))
			sample_text(p, ri);
}

void nt_userrun_probe_counters(struct nt_userrun_probe *p, struct nt_runinfo *ri)
{
	for (int ns = 0; ns < NT_RUN_NS_COUNT; ns++) {
		uint64_t end[NT_RUN_COUNTER_COUNT];
		bool known[NT_RUN_COUNTER_COUNT];

		read_counters(p, (enum nt_run_ns)ns, end, known);
		for (int c = 0; c < NT_RUN_COUNTER_COUNT; c++) {
			ri->ns[ns].known[c] = known[c] && p->start_known[ns][c];
			ri->ns[ns].delta[c] = ri->ns[ns].known[c] ? end[c] - p->start[ns][c] : 0;
		}
	}
}

void nt_userrun_probe_close(struct nt_userrun_probe *p)
{
	int *fds[] = { &p->tcp_fd[0], &p->tcp_fd[1], &p->netstat_fd[0], &p->netstat_fd[1] };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	free(p->buf);
	p->buf = NULL;
	p->buf_bytes = 0;
}
