/* SPDX-License-Identifier: MIT */
/*
 * exchange.h - the write-write-read client and its server, one connection.
 *
 * Both sides run on the calling thread as non-blocking state machines; the
 * caller owns the poll() loop (so the capture is drained in the same loop)
 * and calls nt_exchange_advance() after every wake-up. Each round the client
 * runs its write pattern (a list of operations: the variants are data, not
 * code paths), then reads the whole reply; the server reads exactly
 * header + body bytes, looping over short reads, optionally thinks, and
 * writes the reply. Every system call that matters is recorded on the
 * timeline with CLOCK_REALTIME timestamps, the capture's clock.
 */
#ifndef NT_LIVE_EXCHANGE_H
#define NT_LIVE_EXCHANGE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "nt/err.h"
#include "nt/model/event.h"
#include "nt/model/rounds.h"

/* One step of the client's write pattern. */
enum nt_write_op {
	NT_OP_WRITE_HEADER,	/* write(header) */
	NT_OP_WRITE_BODY,	/* write(body) */
	NT_OP_WRITE_BOTH,	/* write(header + body) from one buffer */
	NT_OP_WRITEV,		/* writev({header, body}) */
	NT_OP_SEND_HEADER_MORE, /* send(header, MSG_MORE) */
	NT_OP_CORK_ON,		/* setsockopt(TCP_CORK, 1) */
	NT_OP_CORK_OFF,		/* setsockopt(TCP_CORK, 0): pushes what was corked */
	NT_OP_GAP,		/* wait write_gap_ns before the next step */
};

#define NT_WRITE_OPS_MAX 8

/* When the server sets TCP_QUICKACK. */
enum nt_quickack {
	NT_QUICKACK_NEVER = 0,
	NT_QUICKACK_ONCE,  /* once, right after accept() */
	NT_QUICKACK_REARM, /* before every read() */
};

/**
 * struct nt_exchange_config - how the exchange runs
 * @shape: sizes and number of rounds
 * @ops: the client's write pattern, run once per round
 * @n_ops: how many steps
 * @client_nodelay: TCP_NODELAY on the client socket
 * @server_nodelay: TCP_NODELAY on the server's connection socket
 * @server_quickack: when the server sets TCP_QUICKACK
 * @pause_ns: client pause before each round after the first
 * @handler_ns: server think time between reading a request and replying
 * @write_gap_ns: the NT_OP_GAP wait
 * @timeout_ns: a round (or the connection set-up) taking longer is an error
 * @hold: before each round after the first, wait in NT_CLIENT_HELD until
 *        nt_exchange_release() (--step: a class looks at the last round)
 * @client: the client's address and port to bind
 * @target: the target's address and port to listen on
 * @addr_len: length of @client and @target
 */
struct nt_exchange_config {
	struct nt_shape shape;
	enum nt_write_op ops[NT_WRITE_OPS_MAX];
	unsigned n_ops;
	bool client_nodelay;
	bool server_nodelay;
	enum nt_quickack server_quickack;
	int64_t pause_ns;
	int64_t handler_ns;
	int64_t write_gap_ns;
	int64_t timeout_ns;
	bool hold;
	struct sockaddr_storage client;
	struct sockaddr_storage target;
	socklen_t addr_len;
};

enum nt_client_state {
	NT_CLIENT_IDLE,
	NT_CLIENT_CONNECTING,
	NT_CLIENT_PAUSE,
	NT_CLIENT_HELD,
	NT_CLIENT_WRITING,
	NT_CLIENT_READING,
	NT_CLIENT_DRAINING,
	NT_CLIENT_DONE,
};

enum nt_server_state {
	NT_SERVER_ACCEPTING,
	NT_SERVER_READING,
	NT_SERVER_THINKING,
	NT_SERVER_WRITING,
	NT_SERVER_DONE,
};

/**
 * struct nt_exchange_hooks - optional observers of the exchange (the evidence
 * module); every member may be NULL
 * @ctx: passed to every hook
 * @client_ready: the connection is established, before round 1's first
 *                write (socket options that key on the byte stream go here)
 * @client_wrote: a client write step of @round completed; @call says which
 * @server_reading: the server is about to read part of @round's request and
 *                  has @request_got bytes of it so far
 * @client_closing: the client is about to close its socket (read what is
 *                  still queued on it, such as its error queue)
 */
struct nt_exchange_hooks {
	void *ctx;
	void (*client_ready)(void *ctx, int client_fd);
	void (*client_wrote)(void *ctx, unsigned round, enum nt_call call, int client_fd);
	void (*server_reading)(void *ctx, unsigned round, int server_fd, uint64_t request_got);
	void (*client_closing)(void *ctx, int client_fd);
};

/**
 * struct nt_exchange - the running exchange (treat as opaque)
 */
struct nt_exchange {
	struct nt_exchange_config cfg;
	int listen_fd;
	int client_fd;
	int server_fd;
	uint8_t *buf;
	size_t buf_bytes;
	/* client */
	enum nt_client_state cstate;
	unsigned round;
	unsigned rounds_done; /* rounds whose reply the client has read */
	unsigned op;
	uint64_t op_done;
	int64_t op_enter_ns;
	int64_t deadline_mono_ns;
	int64_t round_deadline_mono_ns;
	uint64_t reply_got;
	/* server */
	enum nt_server_state sstate;
	uint64_t request_got;
	uint64_t reply_sent;
	int64_t think_until_mono_ns;
	int64_t server_enter_ns;
	unsigned server_round;
	/* observers */
	const struct nt_exchange_hooks *hooks;
};

/**
 * nt_exchange_listen() - set up and listen; call in the target namespace
 * @ex: the exchange, initialised here
 * @cfg: its configuration (copied)
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_exchange_listen(struct nt_exchange *ex, const struct nt_exchange_config *cfg,
		       struct nt_err *err);

/**
 * nt_exchange_connect() - create the client socket and start connecting; call
 * in the client namespace
 * @ex: a listening exchange
 * @err: filled on failure
 *
 * Return: 0 or a negative errno.
 */
int nt_exchange_connect(struct nt_exchange *ex, struct nt_err *err);

/**
 * nt_exchange_pollfds() - the descriptors and events the exchange waits for
 * @ex: the exchange
 * @pfd: at least 3 entries
 *
 * Return: how many entries were filled.
 */
int nt_exchange_pollfds(const struct nt_exchange *ex, struct pollfd *pfd);

/**
 * nt_exchange_timeout_ns() - how long the loop may sleep before a timer is due
 * @ex: the exchange
 *
 * Return: nanoseconds (0: due now), or -1 when no timer is pending.
 */
int64_t nt_exchange_timeout_ns(const struct nt_exchange *ex);

/**
 * nt_exchange_advance() - make every step that can be made without blocking
 * @ex: the exchange
 * @tl: system call events are appended here
 * @err: on failure: which round and step failed
 *
 * Return: 1 when both sides have closed the connection, 0 to be called again,
 * or a negative errno (-ETIMEDOUT when a round took longer than the timeout).
 */
int nt_exchange_advance(struct nt_exchange *ex, struct nt_timeline *tl, struct nt_err *err);

/**
 * nt_exchange_client_fd() - the client's socket, -1 before connect
 * @ex: the exchange
 *
 * Return: the descriptor.
 */
int nt_exchange_client_fd(const struct nt_exchange *ex);

/**
 * nt_exchange_release() - let a held client (@hold) begin its next round;
 * its pause (@pause_ns) and its round's timeout start now
 * @ex: the exchange
 */
void nt_exchange_release(struct nt_exchange *ex);

/**
 * nt_exchange_set_hooks() - install observers; call after nt_exchange_listen()
 * @ex: the exchange
 * @hooks: the hooks, which must outlive the exchange; NULL removes them
 */
void nt_exchange_set_hooks(struct nt_exchange *ex, const struct nt_exchange_hooks *hooks);

/**
 * nt_exchange_close() - close every socket; idempotent
 * @ex: the exchange
 */
void nt_exchange_close(struct nt_exchange *ex);

/** nt_write_op_name() - a step's name, for the configuration ("write-header", ...) */
const char *nt_write_op_name(enum nt_write_op op);

#endif
