// SPDX-License-Identifier: MIT
/*
 * variant.c - the table of variants (see nt/live/variant.h).
 *
 * The comments say which kernel rule each row meets; what the rules make of
 * it round by round is the model's (src/model/predict*.c): Nagle in
 * tcp_nagle_check() holds the body while the header (a sub-MSS segment,
 * Minshall's snd_sml) is unacknowledged; __tcp_ack_snd_check() delays the
 * ACK once the receiver is in ping-pong mode.
 */
#include <string.h>

#include "nt/live/variant.h"

#define TWO_WRITES .ops = { NT_OP_WRITE_HEADER, NT_OP_GAP, NT_OP_WRITE_BODY }, .n_ops = 3

static const struct nt_variant variants[] = {
	{
		.name = "default",
		.summary = "two write() calls, Nagle on",
		TWO_WRITES,
		.autocork = -1,
	},
	{
		/* TCP_NODELAY sets TCP_NAGLE_OFF: tcp_nagle_check() never holds a segment. */
		.name = "nodelay",
		.summary = "TCP_NODELAY on the client",
		TWO_WRITES,
		.client_nodelay = true,
		.autocork = -1,
	},
	{
		.name = "one-write",
		.summary = "header and body in one write()",
		.ops = { NT_OP_WRITE_BOTH },
		.n_ops = 1,
		.autocork = -1,
	},
	{
		.name = "writev",
		.summary = "one writev() of two iovecs",
		.ops = { NT_OP_WRITEV },
		.n_ops = 1,
		.autocork = -1,
	},
	{
		/* TCP_NAGLE_CORK holds partial frames until uncorked (tcp_push_pending_frames). */
		.name = "cork",
		.summary = "TCP_CORK around the two writes",
		.ops = { NT_OP_CORK_ON, NT_OP_WRITE_HEADER, NT_OP_GAP, NT_OP_WRITE_BODY,
			 NT_OP_CORK_OFF },
		.n_ops = 5,
		.autocork = -1,
	},
	{
		/*
		 * MSG_MORE makes tcp_sendmsg() push with TCP_NAGLE_CORK for that
		 * call only: the header waits for the next send, which pushes both.
		 */
		.name = "msg-more",
		.summary = "send(header, MSG_MORE), then send(body)",
		.ops = { NT_OP_SEND_HEADER_MORE, NT_OP_GAP, NT_OP_WRITE_BODY },
		.n_ops = 3,
		.autocork = -1,
	},
	{
		/*
		 * __tcp_sock_set_quickack() leaves ping-pong mode once; the next
		 * reply sent within ato re-enters it (tcp_event_data_sent()).
		 */
		.name = "quickack-once",
		.summary = "the target sets TCP_QUICKACK once",
		TWO_WRITES,
		.server_quickack = NT_QUICKACK_ONCE,
		.autocork = -1,
	},
	{
		.name = "quickack-rearm",
		.summary = "target re-arms TCP_QUICKACK per read()",
		TWO_WRITES,
		.server_quickack = NT_QUICKACK_REARM,
		.autocork = -1,
	},
	{
		/* tcp_in_quickack_mode() checks the route's RTAX_QUICKACK first. */
		.name = "route-quickack",
		.summary = "the target's route has quickack 1",
		TWO_WRITES,
		.route_quickack = true,
		.autocork = -1,
	},
	{
		/* The held segment is the client's: the option on the reader changes nothing. */
		.name = "nodelay-server",
		.summary = "TCP_NODELAY on the target (wrong side)",
		TWO_WRITES,
		.server_nodelay = true,
		.autocork = -1,
	},
	{
		/* tcp_should_autocork() is a different mechanism: turning it off does not help. */
		.name = "autocork-off",
		.summary = "tcp_autocorking=0 on the client",
		TWO_WRITES,
		.autocork = 0,
	},
};

const struct nt_variant *nt_variant_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
		if (strcmp(variants[i].name, name) == 0)
			return &variants[i];
	return NULL;
}

const struct nt_variant *nt_variant_all(unsigned *n)
{
	*n = sizeof(variants) / sizeof(variants[0]);
	return variants;
}

/* The model's write pattern for a client write sequence: the call that joins or splits the request. */
static enum nt_predict_pattern pattern_of(const struct nt_variant *v)
{
	for (unsigned i = 0; i < v->n_ops; i++) {
		switch (v->ops[i]) {
		case NT_OP_WRITE_BOTH:
			return NT_PREDICT_ONE_WRITE;
		case NT_OP_WRITEV:
			return NT_PREDICT_WRITEV;
		case NT_OP_CORK_ON:
			return NT_PREDICT_CORK;
		case NT_OP_SEND_HEADER_MORE:
			return NT_PREDICT_MSG_MORE;
		default:
			break;
		}
	}
	return NT_PREDICT_TWO_WRITES;
}

void nt_variant_knobs(const struct nt_variant *v, struct nt_predict_knobs *k)
{
	static const enum nt_predict_quickack quickack[] = {
		[NT_QUICKACK_NEVER] = NT_PREDICT_QUICKACK_NEVER,
		[NT_QUICKACK_ONCE] = NT_PREDICT_QUICKACK_ONCE,
		[NT_QUICKACK_REARM] = NT_PREDICT_QUICKACK_REARM,
	};

	k->pattern = pattern_of(v);
	k->client_nodelay = v->client_nodelay;
	k->server_nodelay = v->server_nodelay;
	k->server_quickack = quickack[v->server_quickack];
	k->route_quickack = v->route_quickack;
	/* -1 leaves the sysctl at the kernel's default, which is on. */
	k->client_autocork = v->autocork != 0;
}
