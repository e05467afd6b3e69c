// SPDX-License-Identifier: MIT
/*
 * exchange.c - the write-write-read client and its server as non-blocking
 * state machines on one thread (see nt/live/exchange.h).
 *
 * Why one thread: setns() is per thread, and the exchange must interleave
 * with draining the capture. Sockets keep the namespace they were created in,
 * so after the listener (target namespace) and the client socket (client
 * namespace) exist, one poll() loop drives both ends and the capture with no
 * locks and no thread hand-offs that would blur the timestamps.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nt/clock.h"
#include "nt/live/exchange.h"

/* The server reads and the client sends from one scratch buffer of at most this size per call. */
#define SCRATCH_BYTES ((size_t)64 * 1024)

static const char *const op_names[] = {
	[NT_OP_WRITE_HEADER] = "write-header",
	[NT_OP_WRITE_BODY] = "write-body",
	[NT_OP_WRITE_BOTH] = "write-both",
	[NT_OP_WRITEV] = "writev",
	[NT_OP_SEND_HEADER_MORE] = "send-header-more",
	[NT_OP_CORK_ON] = "cork-on",
	[NT_OP_CORK_OFF] = "cork-off",
	[NT_OP_GAP] = "gap",
};

const char *nt_write_op_name(enum nt_write_op op)
{
	return (unsigned)op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : "?";
}

static int set_int_opt(int fd, int level, int name, int value)
{
	return setsockopt(fd, level, name, &value, sizeof(value)) < 0 ? -errno : 0;
}

static void record(struct nt_timeline *tl, enum nt_side side, enum nt_call call, unsigned round,
		   int64_t enter_ns, int64_t bytes)
{
	struct nt_event ev = {
		.t_ns = nt_now_real_ns(),
		.kind = NT_EVENT_SYSCALL,
		.round = (int)round,
		.sys = { .side = side, .call = call, .enter_ns = enter_ns, .bytes = bytes },
	};

	/* A timeline that cannot grow loses a mark, not the run: the verdict says incomplete. */
	(void)nt_timeline_append(tl, &ev);
}

/* ---- observers (struct nt_exchange_hooks) ------------------------------------------------ */

void nt_exchange_set_hooks(struct nt_exchange *ex, const struct nt_exchange_hooks *hooks)
{
	ex->hooks = hooks;
}

static void hook_client_ready(const struct nt_exchange *ex)
{
	if (ex->hooks && ex->hooks->client_ready)
		ex->hooks->client_ready(ex->hooks->ctx, ex->client_fd);
}

static void hook_client_wrote(const struct nt_exchange *ex, enum nt_call call)
{
	if (ex->hooks && ex->hooks->client_wrote)
		ex->hooks->client_wrote(ex->hooks->ctx, ex->round, call, ex->client_fd);
}

static void hook_client_closing(const struct nt_exchange *ex)
{
	if (ex->hooks && ex->hooks->client_closing)
		ex->hooks->client_closing(ex->hooks->ctx, ex->client_fd);
}

static void hook_server_reading(const struct nt_exchange *ex)
{
	if (ex->hooks && ex->hooks->server_reading)
		ex->hooks->server_reading(ex->hooks->ctx, ex->server_round, ex->server_fd,
					  ex->request_got);
}

int nt_exchange_listen(struct nt_exchange *ex, const struct nt_exchange_config *cfg,
		       struct nt_err *err)
{
	int family = cfg->target.ss_family;

	memset(ex, 0, sizeof(*ex));
	ex->cfg = *cfg;
	ex->listen_fd = ex->client_fd = ex->server_fd = -1;
	ex->buf_bytes = SCRATCH_BYTES;
	ex->buf = calloc(1, ex->buf_bytes);
	if (!ex->buf)
		return nt_err_set(err, -ENOMEM, "allocate exchange buffer");
	/* Recognisable bytes in a capture: header 'H', body 'B', reply 'R' (filled per write). */
	ex->listen_fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (ex->listen_fd < 0)
		return nt_err_set(err, -errno, "create the target's listening socket");
	if (set_int_opt(ex->listen_fd, SOL_SOCKET, SO_REUSEADDR, 1) < 0)
		return nt_err_set(err, -errno, "set SO_REUSEADDR on the listener");
	if (bind(ex->listen_fd, (const struct sockaddr *)&cfg->target, cfg->addr_len) < 0)
		return nt_err_set(err, -errno, "bind the target's listener");
	if (listen(ex->listen_fd, 1) < 0)
		return nt_err_set(err, -errno, "listen on the target");
	ex->sstate = NT_SERVER_ACCEPTING;
	ex->cstate = NT_CLIENT_IDLE;
	return 0;
}

int nt_exchange_connect(struct nt_exchange *ex, struct nt_err *err)
{
	const struct nt_exchange_config *cfg = &ex->cfg;
	int fd = socket(cfg->client.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_TCP);

	if (fd < 0)
		return nt_err_set(err, -errno, "create the client socket");
	ex->client_fd = fd;
	if (set_int_opt(fd, SOL_SOCKET, SO_REUSEADDR, 1) < 0)
		return nt_err_set(err, -errno, "set SO_REUSEADDR on the client");
	if (cfg->client_nodelay && set_int_opt(fd, IPPROTO_TCP, TCP_NODELAY, 1) < 0)
		return nt_err_set(err, -errno, "set TCP_NODELAY on the client");
	if (bind(fd, (const struct sockaddr *)&cfg->client, cfg->addr_len) < 0)
		return nt_err_set(err, -errno, "bind the client socket");
	if (connect(fd, (const struct sockaddr *)&cfg->target, cfg->addr_len) < 0 &&
	    errno != EINPROGRESS)
		return nt_err_set(err, -errno, "connect to the target");
	ex->cstate = NT_CLIENT_CONNECTING;
	ex->round_deadline_mono_ns = nt_now_mono_ns() + cfg->timeout_ns;
	return 0;
}

int nt_exchange_client_fd(const struct nt_exchange *ex)
{
	return ex->client_fd;
}

/* ---- client ---------------------------------------------------------------------------- */

static void client_arm_round(struct nt_exchange *ex);

static void client_start_round(struct nt_exchange *ex)
{
	ex->round++;
	ex->op = 0;
	ex->op_done = 0;
	ex->op_enter_ns = 0;
	ex->reply_got = 0;
	if (ex->round > 1 && ex->cfg.hold) {
		/* No clock runs while held: the round starts at nt_exchange_release(). */
		ex->cstate = NT_CLIENT_HELD;
		ex->round_deadline_mono_ns = 0;
		return;
	}
	client_arm_round(ex);
}

void nt_exchange_release(struct nt_exchange *ex)
{
	if (ex->cstate == NT_CLIENT_HELD)
		client_arm_round(ex);
}

/* The round's pause, if any, then its writes; its timeout counts from now. */
static void client_arm_round(struct nt_exchange *ex)
{
	if (ex->round > 1 && ex->cfg.pause_ns > 0) {
		ex->cstate = NT_CLIENT_PAUSE;
		ex->deadline_mono_ns = nt_now_mono_ns() + ex->cfg.pause_ns;
	} else {
		ex->cstate = NT_CLIENT_WRITING;
	}
	ex->round_deadline_mono_ns = nt_now_mono_ns() + ex->cfg.pause_ns + ex->cfg.timeout_ns;
}

/* Bytes of the current op still to send, and whether it is a write at all. */
static uint64_t op_total(const struct nt_exchange *ex, enum nt_write_op op)
{
	const struct nt_shape *s = &ex->cfg.shape;

	switch (op) {
	case NT_OP_WRITE_HEADER:
	case NT_OP_SEND_HEADER_MORE:
		return s->header_bytes;
	case NT_OP_WRITE_BODY:
		return s->body_bytes;
	case NT_OP_WRITE_BOTH:
	case NT_OP_WRITEV:
		return (uint64_t)s->header_bytes + s->body_bytes;
	default:
		return 0;
	}
}

/* One non-blocking send for the current op; returns bytes sent or -errno. */
static ssize_t client_send(struct nt_exchange *ex, enum nt_write_op op)
{
	const struct nt_shape *s = &ex->cfg.shape;
	uint64_t left = op_total(ex, op) - ex->op_done;
	size_t chunk = left < ex->buf_bytes / 2 ? (size_t)left : ex->buf_bytes / 2;
	ssize_t n;

	switch (op) {
	case NT_OP_WRITE_HEADER:
	case NT_OP_WRITE_BODY:
	case NT_OP_WRITE_BOTH:
		memset(ex->buf, op == NT_OP_WRITE_BODY ? 'B' : 'H', chunk);
		if (op == NT_OP_WRITE_BOTH && ex->op_done + chunk > s->header_bytes) {
			uint64_t h_left =
				ex->op_done < s->header_bytes ? s->header_bytes - ex->op_done : 0;
			memset(ex->buf + h_left, 'B', chunk - h_left);
		}
		n = write(ex->client_fd, ex->buf, chunk);
		break;
	case NT_OP_SEND_HEADER_MORE:
		memset(ex->buf, 'H', chunk);
		n = send(ex->client_fd, ex->buf, chunk, MSG_MORE | MSG_NOSIGNAL);
		break;
	case NT_OP_WRITEV: {
		/* Two iovecs, header then body, of what is left of each. */
		uint64_t h_left = ex->op_done < s->header_bytes ? s->header_bytes - ex->op_done : 0;
		size_t half = ex->buf_bytes / 2;
		size_t hl = h_left < half ? (size_t)h_left : half;
		uint64_t b_left = left - h_left;
		size_t bl = b_left < half ? (size_t)b_left : half;
		struct iovec iov[2] = {
			{ .iov_base = ex->buf, .iov_len = hl },
			{ .iov_base = ex->buf + half, .iov_len = bl },
		};

		memset(ex->buf, 'H', hl);
		memset(ex->buf + half, 'B', bl);
		n = writev(ex->client_fd, hl ? iov : iov + 1, hl ? 2 : 1);
		break;
	}
	default:
		return 0;
	}
	return n < 0 ? -errno : n;
}

static enum nt_call op_call(enum nt_write_op op)
{
	switch (op) {
	case NT_OP_WRITE_HEADER:
	case NT_OP_SEND_HEADER_MORE:
		return NT_CALL_WRITE_HEADER;
	case NT_OP_WRITE_BODY:
		return NT_CALL_WRITE_BODY;
	default:
		return NT_CALL_WRITE_REQUEST;
	}
}

/* Runs the write pattern as far as it goes; 1 progress, 0 blocked, < 0 error. */
static int client_write(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err)
{
	int progress = 0;

	while (ex->op < ex->cfg.n_ops) {
		enum nt_write_op op = ex->cfg.ops[ex->op];

		if (op == NT_OP_GAP) {
			/* A pending gap is its deadline: 0 before the gap starts and after it ends. */
			if (!ex->deadline_mono_ns)
				ex->deadline_mono_ns = nt_now_mono_ns() + ex->cfg.write_gap_ns;
			if (nt_now_mono_ns() < ex->deadline_mono_ns)
				return progress;
			ex->deadline_mono_ns = 0;
		} else if (op == NT_OP_CORK_ON || op == NT_OP_CORK_OFF) {
			if (set_int_opt(ex->client_fd, IPPROTO_TCP, TCP_CORK, op == NT_OP_CORK_ON) <
			    0)
				return nt_err_set(err, -errno, "round %u: set TCP_CORK", ex->round);
		} else {
			uint64_t total = op_total(ex, op);

			if (!ex->op_enter_ns)
				ex->op_enter_ns = nt_now_real_ns();
			while (ex->op_done < total) {
				ssize_t n = client_send(ex, op);

				if (n == -EAGAIN || n == -EWOULDBLOCK)
					return progress;
				if (n < 0)
					return nt_err_set(err, (int)n, "round %u: client %s",
							  ex->round, nt_write_op_name(op));
				ex->op_done += (uint64_t)n;
				progress = 1;
			}
			record(tl, NT_SIDE_CLIENT, op_call(op), ex->round, ex->op_enter_ns,
			       (int64_t)total);
			hook_client_wrote(ex, op_call(op));
		}
		ex->op++;
		ex->op_done = 0;
		ex->op_enter_ns = 0;
		progress = 1;
	}
	ex->cstate = NT_CLIENT_READING;
	ex->op_enter_ns = nt_now_real_ns();
	return 1;
}

static int client_read(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err)
{
	uint64_t want = ex->cfg.shape.reply_bytes;
	int progress = 0;

	while (ex->reply_got < want) {
		uint64_t left = want - ex->reply_got;
		size_t chunk = left < ex->buf_bytes ? (size_t)left : ex->buf_bytes;
		ssize_t n = read(ex->client_fd, ex->buf, chunk);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return progress;
		if (n < 0)
			return nt_err_set(err, -errno, "round %u: client read of the reply",
					  ex->round);
		if (n == 0)
			return nt_err_set(
				err, -ECONNRESET,
				"round %u: the target closed the connection after %llu of "
				"%llu reply bytes",
				ex->round, (unsigned long long)ex->reply_got,
				(unsigned long long)want);
		ex->reply_got += (uint64_t)n;
		progress = 1;
	}
	record(tl, NT_SIDE_CLIENT, NT_CALL_READ_REPLY, ex->round, ex->op_enter_ns, (int64_t)want);
	ex->rounds_done = ex->round;
	if (ex->round >= ex->cfg.shape.rounds) {
		/* Close our half; the FIN exchange tells the capture the run is over. */
		if (shutdown(ex->client_fd, SHUT_WR) < 0)
			return nt_err_set(err, -errno, "shut down the client's sending side");
		ex->cstate = NT_CLIENT_DRAINING;
	} else {
		client_start_round(ex);
	}
	return 1;
}

static int client_drain(struct nt_exchange *ex, struct nt_err *err)
{
	ssize_t n = read(ex->client_fd, ex->buf, ex->buf_bytes);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0)
		return nt_err_set(err, -errno, "client: wait for the target to close");
	if (n > 0)
		return nt_err_set(err, -EPROTO, "client: %zd unexpected bytes after the last reply",
				  n);
	hook_client_closing(ex);
	close(ex->client_fd);
	ex->client_fd = -1;
	ex->cstate = NT_CLIENT_DONE;
	return 1;
}

static int client_step(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err)
{
	switch (ex->cstate) {
	case NT_CLIENT_IDLE:
	case NT_CLIENT_DONE:
		return 0;
	case NT_CLIENT_CONNECTING: {
		int soerr = 0;
		socklen_t len = sizeof(soerr);
		struct pollfd p = { .fd = ex->client_fd, .events = POLLOUT };

		if (poll(&p, 1, 0) <= 0)
			return 0;
		if (getsockopt(ex->client_fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			return nt_err_set(err, -errno, "connect to the target");
		if (soerr)
			return nt_err_set(err, -soerr, "connect to the target");
		/* Rounds start once the server has its socket and options in place. */
		if (ex->sstate == NT_SERVER_ACCEPTING)
			return 0;
		hook_client_ready(ex);
		client_start_round(ex);
		return 1;
	}
	case NT_CLIENT_HELD:
		return 0;
	case NT_CLIENT_PAUSE:
		if (nt_now_mono_ns() < ex->deadline_mono_ns)
			return 0;
		ex->deadline_mono_ns = 0;
		ex->cstate = NT_CLIENT_WRITING;
		return 1;
	case NT_CLIENT_WRITING:
		return client_write(ex, tl, err);
	case NT_CLIENT_READING:
		return client_read(ex, tl, err);
	case NT_CLIENT_DRAINING:
		return client_drain(ex, err);
	}
	return 0;
}

/* ---- server ---------------------------------------------------------------------------- */

static int server_accept(struct nt_exchange *ex, struct nt_err *err)
{
	int fd = accept4(ex->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (fd < 0)
		return nt_err_set(err, -errno, "target: accept the connection");
	ex->server_fd = fd;
	close(ex->listen_fd);
	ex->listen_fd = -1;
	if (ex->cfg.server_nodelay && set_int_opt(fd, IPPROTO_TCP, TCP_NODELAY, 1) < 0)
		return nt_err_set(err, -errno, "set TCP_NODELAY on the target");
	if (ex->cfg.server_quickack == NT_QUICKACK_ONCE &&
	    set_int_opt(fd, IPPROTO_TCP, TCP_QUICKACK, 1) < 0)
		return nt_err_set(err, -errno, "set TCP_QUICKACK on the target");
	ex->sstate = NT_SERVER_READING;
	ex->server_round = 1;
	ex->request_got = 0;
	return 1;
}

static int server_read(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err)
{
	const struct nt_shape *s = &ex->cfg.shape;
	uint64_t want = (uint64_t)s->header_bytes + s->body_bytes;
	int progress = 0;

	while (ex->request_got < want) {
		uint64_t left = want - ex->request_got;
		size_t chunk = left < ex->buf_bytes ? (size_t)left : ex->buf_bytes;
		int64_t enter = nt_now_real_ns();
		ssize_t n;

		/* Before the read and before any TCP_QUICKACK: the state the request found. */
		hook_server_reading(ex);
		/* TCP_QUICKACK is not permanent (tcp(7)): re-arm it before every read. */
		if (ex->cfg.server_quickack == NT_QUICKACK_REARM &&
		    set_int_opt(ex->server_fd, IPPROTO_TCP, TCP_QUICKACK, 1) < 0)
			return nt_err_set(err, -errno, "re-arm TCP_QUICKACK on the target");
		n = read(ex->server_fd, ex->buf, chunk);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return progress;
		if (n < 0)
			return nt_err_set(err, -errno, "round %u: target read of the request",
					  ex->server_round);
		if (n == 0) {
			if (ex->request_got == 0 && ex->server_round > s->rounds) {
				close(ex->server_fd);
				ex->server_fd = -1;
				ex->sstate = NT_SERVER_DONE;
				return 1;
			}
			return nt_err_set(err, -ECONNRESET,
					  "round %u: the client closed after %llu of %llu request "
					  "bytes",
					  ex->server_round, (unsigned long long)ex->request_got,
					  (unsigned long long)want);
		}
		if (ex->request_got == 0)
			ex->server_enter_ns = enter;
		ex->request_got += (uint64_t)n;
		progress = 1;
	}
	record(tl, NT_SIDE_TARGET, NT_CALL_READ_REQUEST, ex->server_round, ex->server_enter_ns,
	       (int64_t)want);
	ex->reply_sent = 0;
	if (ex->cfg.handler_ns > 0) {
		ex->sstate = NT_SERVER_THINKING;
		ex->think_until_mono_ns = nt_now_mono_ns() + ex->cfg.handler_ns;
	} else {
		ex->sstate = NT_SERVER_WRITING;
	}
	return 1;
}

static int server_write(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err)
{
	uint64_t want = ex->cfg.shape.reply_bytes;
	int64_t enter = nt_now_real_ns();

	while (ex->reply_sent < want) {
		uint64_t left = want - ex->reply_sent;
		size_t chunk = left < ex->buf_bytes ? (size_t)left : ex->buf_bytes;
		ssize_t n;

		memset(ex->buf, 'R', chunk);
		n = send(ex->server_fd, ex->buf, chunk, MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return nt_err_set(err, -errno, "round %u: target write of the reply",
					  ex->server_round);
		ex->reply_sent += (uint64_t)n;
	}
	record(tl, NT_SIDE_TARGET, NT_CALL_WRITE_REPLY, ex->server_round, enter, (int64_t)want);
	ex->server_round++;
	ex->request_got = 0;
	ex->sstate = NT_SERVER_READING;
	return 1;
}

static int server_step(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err)
{
	switch (ex->sstate) {
	case NT_SERVER_ACCEPTING:
		return server_accept(ex, err);
	case NT_SERVER_READING:
		return server_read(ex, tl, err);
	case NT_SERVER_THINKING:
		if (nt_now_mono_ns() < ex->think_until_mono_ns)
			return 0;
		ex->sstate = NT_SERVER_WRITING;
		return 1;
	case NT_SERVER_WRITING:
		return server_write(ex, tl, err);
	case NT_SERVER_DONE:
		return 0;
	}
	return 0;
}

/* ---- the loop's side ------------------------------------------------------------------- */

static const char *client_waiting_for(const struct nt_exchange *ex)
{
	switch (ex->cstate) {
	case NT_CLIENT_CONNECTING:
		return "the connection to be set up";
	case NT_CLIENT_WRITING:
		return "the client's writes to be accepted";
	case NT_CLIENT_READING:
		return ex->sstate == NT_SERVER_READING ? "the target to receive the whole request"
						       : "the reply";
	case NT_CLIENT_DRAINING:
		return "the target to close the connection";
	default:
		return "the exchange";
	}
}

int nt_exchange_advance(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err)
{
	unsigned round = ex->round;

	/*
	 * Over veth a step often completes synchronously (the peer's softirq
	 * runs inside our send), so nothing would ever block: return after each
	 * finished round, so the loop drains the capture before its ring fills.
	 */
	while (ex->round == round) {
		int c = client_step(ex, tl, err);
		if (c < 0)
			return c;
		int s = server_step(ex, tl, err);
		if (s < 0)
			return s;
		if (!c && !s)
			break;
	}
	if (ex->cstate == NT_CLIENT_DONE && ex->sstate == NT_SERVER_DONE)
		return 1;
	if (ex->round_deadline_mono_ns && nt_now_mono_ns() > ex->round_deadline_mono_ns) {
		nt_err_set(err, 0, "round %u did not complete within %lld ms: still waiting for %s",
			   ex->round ? ex->round : 1,
			   (long long)(ex->cfg.timeout_ns / NT_NS_PER_MS), client_waiting_for(ex));
		return -ETIMEDOUT;
	}
	return 0;
}

int nt_exchange_pollfds(const struct nt_exchange *ex, struct pollfd *pfd)
{
	int n = 0;

	if (ex->listen_fd >= 0 && ex->sstate == NT_SERVER_ACCEPTING)
		pfd[n++] = (struct pollfd){ .fd = ex->listen_fd, .events = POLLIN };
	if (ex->server_fd >= 0)
		pfd[n++] = (struct pollfd){
			.fd = ex->server_fd,
			.events = ex->sstate == NT_SERVER_WRITING ? POLLOUT : POLLIN,
		};
	if (ex->client_fd >= 0) {
		short events = POLLIN;

		if (ex->cstate == NT_CLIENT_CONNECTING || ex->cstate == NT_CLIENT_WRITING)
			events = POLLOUT;
		pfd[n++] = (struct pollfd){ .fd = ex->client_fd, .events = events };
	}
	return n;
}

static int64_t earliest(int64_t a, int64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

int64_t nt_exchange_timeout_ns(const struct nt_exchange *ex)
{
	int64_t due = ex->round_deadline_mono_ns;

	if (ex->deadline_mono_ns) /* a pause between rounds or a gap between writes */
		due = earliest(due, ex->deadline_mono_ns);
	if (ex->sstate == NT_SERVER_THINKING)
		due = earliest(due, ex->think_until_mono_ns);
	if (!due)
		return -1;
	int64_t left = due - nt_now_mono_ns();
	return left > 0 ? left : 0;
}

void nt_exchange_close(struct nt_exchange *ex)
{
	int *fds[] = { &ex->listen_fd, &ex->client_fd, &ex->server_fd };

	for (unsigned i = 0; i < 3; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
	free(ex->buf);
	ex->buf = NULL;
}
