// SPDX-License-Identifier: MIT
/*
 * procs_listen.c - noticing the target's new listening socket (see
 * nt/live/procs.h).
 *
 * The target namespace's /proc/net/tcp and tcp6 are opened once, from this
 * thread while it is in the target namespace, and re-read from offset 0 on
 * each check. A /proc/net file belongs to the namespace of the task it was
 * looked up through (/proc/thread-self, not /proc/self: the latter follows
 * the main thread), and seq_file regenerates its text on every read from
 * offset 0. No event marks a new listening socket (sock_diag multicasts only
 * destruction, SKNLGRP_INET_TCP_DESTROY), so the caller polls, and also checks
 * whenever the target writes output (servers tend to say "ready" once they
 * listen). A check reads both files in about 40 us here: the target namespace
 * has its own small established hash (lab.c), while a namespace sharing the
 * host's 262,144-bucket table took about 10 ms for the same read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/lab/netns.h"
#include "nt/live/procnet.h"
#include "nt/live/procs.h"
#include "nt/live/procs_plan.h"
#include "procs_int.h"

#define PROCNET_INITIAL_BYTES ((size_t)16 * 1024)
#define PROCNET_MAX_BYTES     ((size_t)16 * 1024 * 1024)
/* TCP_LISTEN in include/net/tcp_states.h. */
#define TCP_LISTEN_STATE 10

/* The whole text of a /proc/net file, from offset 0, in p->procnet_buf. */
static int read_procnet(struct nt_procs *p, int fd)
{
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (len + 1 >= p->procnet_bytes) {
			size_t grown = p->procnet_bytes ? p->procnet_bytes * 2
							: PROCNET_INITIAL_BYTES;
			char *buf;

			if (grown > PROCNET_MAX_BYTES)
				break;
			buf = realloc(p->procnet_buf, grown);
			if (!buf)
				return -ENOMEM;
			p->procnet_buf = buf;
			p->procnet_bytes = grown;
		}
		n = read(fd, p->procnet_buf + len, p->procnet_bytes - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	p->procnet_buf[len] = '\0';
	return 0;
}

/* Remember the listeners that exist before the target starts: they are not its. */
static int note_known_listeners(struct nt_procs *p, int fd)
{
	int ret = read_procnet(p, fd);

	if (ret)
		return ret;
	for (const char *line = p->procnet_buf; line && *line;) {
		struct nt_procnet_tcp t;

		if (nt_procnet_parse_tcp_line(line, &t) == 0 && t.state == TCP_LISTEN_STATE) {
			unsigned long *known =
				realloc(p->known_inodes, (p->n_known + 1) * sizeof(*known));

			if (!known)
				return -ENOMEM;
			known[p->n_known++] = t.inode;
			p->known_inodes = known;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

int procs_listen_open(struct nt_procs *p, struct nt_err *err)
{
	static const char *const files[2] = { "/proc/thread-self/net/tcp",
					      "/proc/thread-self/net/tcp6" };
	int home, ret, saved = 0;

	ret = nt_netns_current(&home, err);
	if (ret)
		return ret;
	ret = nt_netns_enter(p->cfg.lab->target_ns, err);
	if (ret)
		goto close_home;
	for (int i = 0; i < 2; i++) {
		p->tcp_fd[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		/* No tcp6 without IPv6 in the kernel: then only IPv4 listeners count. */
		if (p->tcp_fd[i] < 0 && !(i == 1 && errno == ENOENT) && !saved)
			saved = -errno;
	}
	ret = nt_netns_enter(home, err);
	if (!ret && saved)
		ret = nt_err_set(err, saved, "open %s of the target namespace", files[0]);
	for (int i = 0; i < 2 && !ret; i++)
		if (p->tcp_fd[i] >= 0 && (ret = note_known_listeners(p, p->tcp_fd[i])) < 0)
			nt_err_set(err, ret, "read %s of the target namespace", files[i]);
close_home:
	close(home);
	return ret;
}

/* Whether the target listens now; fills the result's listener. */
int procs_listen_check(struct nt_procs *p, struct nt_err *err)
{
	struct nt_procs_listen_query q = {
		.port = p->cfg.job.wait_port,
		.family = p->cfg.lab->family,
		.target_addr = p->cfg.lab->target_addr,
		.known = p->known_inodes,
		.n_known = p->n_known,
	};

	for (int i = 0; i < 2; i++) {
		int ret;

		if (p->tcp_fd[i] < 0)
			continue;
		ret = read_procnet(p, p->tcp_fd[i]);
		if (ret)
			return nt_err_set(err, ret, "read the target namespace's /proc/net/tcp%s",
					  i ? "6" : "");
		if (nt_procs_find_listener(p->procnet_buf, &q, &p->res.listener,
					   &p->res.unreachable)) {
			p->res.listener.t_mono_ns = nt_now_mono_ns();
			return 1;
		}
	}
	if (p->res.unreachable.seen && !p->res.unreachable.t_mono_ns)
		p->res.unreachable.t_mono_ns = nt_now_mono_ns();
	return 0;
}
