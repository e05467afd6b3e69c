// SPDX-License-Identifier: MIT
/*
 * packetdrill.c - a round as a packetdrill script (see
 * nt/render/packetdrill.h).
 *
 * The grammar is packetdrill's (its parser.y and lexer.l): an event is a
 * time ("0", "+0", "+0.043912": seconds, relative with '+') and an action:
 * a system call "name(args) = result [ERRNO (text)]" with "..." for what
 * the script does not fix, or a TCP segment "<|> flags start:end(len) [ack
 * N] [win N] [<options>]", where '<...>' (options unchecked) is allowed on
 * outbound segments only. tests/tools/pkt_check.py checks that subset.
 *
 * Times: a write at the moment it was entered (its segment leaves inside
 * it), the read of the reply when it returned (after the reply's segments
 * came in), a segment at its capture timestamp. The capture is taken at the
 * client's end of the veth, so those are the client's own times.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/clock.h"
#include "nt/model/tcp.h"
#include "nt/model/verdict.h"
#include "nt/render/packetdrill.h"

/* The gap put between the handshake and the round: the rounds before it are left out. */
#define ROUND_GAP_NS (100 * NT_NS_PER_MS)
/* The window scale the script's target announces: Linux's with its default tcp_rmem. */
#define TARGET_WSCALE 7
#define LINE_LEN      192

/**
 * struct item - one line of the round, before sorting
 * @t_ns: when it happens
 * @order: ties: lower first (TCP_CORK on before the write it corks)
 * @line: the action, without its time
 */
struct item {
	int64_t t_ns;
	int order;
	char line[LINE_LEN];
};

/**
 * struct bases - what the rounds before took of each side's sequence space
 * @client: request bytes of the rounds before
 * @target: reply bytes of the rounds before
 */
struct bases {
	int64_t client;
	int64_t target;
};

static void flags_str(uint8_t f, char *buf)
{
	size_t n = 0;

	if (f & NT_TCP_SYN)
		buf[n++] = 'S';
	if (f & NT_TCP_FIN)
		buf[n++] = 'F';
	if (f & NT_TCP_RST)
		buf[n++] = 'R';
	if (f & NT_TCP_PSH)
		buf[n++] = 'P';
	if (f & NT_TCP_ACK)
		buf[n++] = '.';
	if (!n)
		buf[n++] = '-'; /* no flag at all */
	buf[n] = '\0';
}

/* One segment of the round; false when it falls before the round (not shown). */
static bool segment_line(const struct nt_segment *s, const struct bases *b, char *line)
{
	bool out = s->dir == NT_DIR_C2T;
	int64_t seq = (int64_t)s->seq_rel - (out ? b->client : b->target);
	int64_t ack = (int64_t)s->ack_rel - (out ? b->target : b->client);
	char flags[8], tail[48] = "";
	size_t n;

	if (seq < 0 || ((s->flags & NT_TCP_ACK) && ack < 0))
		return false;
	flags_str(s->flags, flags);
	n = (size_t)snprintf(line, LINE_LEN, "%c %s %" PRId64 ":%" PRId64 "(%u)", out ? '>' : '<',
			     flags, seq, seq + s->payload_bytes, s->payload_bytes);
	if (s->flags & NT_TCP_ACK)
		snprintf(tail, sizeof(tail), " ack %" PRId64, ack);
	if (!out)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), " win %u", s->window);
	snprintf(line + n, LINE_LEN - n, "%s", tail);
	return true;
}

/* The header step of the variant: write() or send(MSG_MORE). */
static bool header_with_more(const struct nt_pkt_client *c)
{
	for (unsigned i = 0; i < c->n_steps; i++)
		if (c->steps[i] == NT_PKT_SEND_HEADER_MORE)
			return true;
	return false;
}

static bool has_step(const struct nt_pkt_client *c, enum nt_pkt_step s)
{
	for (unsigned i = 0; i < c->n_steps; i++)
		if (c->steps[i] == s)
			return true;
	return false;
}

static void syscall_line(const struct nt_syscall *sys, const struct nt_record *run,
			 const struct nt_pkt_client *c, char *line)
{
	long long n = (long long)sys->bytes;

	switch (sys->call) {
	case NT_CALL_WRITE_HEADER:
		if (header_with_more(c))
			snprintf(line, LINE_LEN, "send(3, ..., %lld, MSG_MORE) = %lld", n, n);
		else
			snprintf(line, LINE_LEN, "write(3, ..., %lld) = %lld", n, n);
		break;
	case NT_CALL_WRITE_REQUEST:
		if (has_step(c, NT_PKT_WRITEV))
			snprintf(line, LINE_LEN, "writev(3, [{..., %u}, {..., %u}], 2) = %lld",
				 run->cfg.shape.header_bytes, run->cfg.shape.body_bytes, n);
		else
			snprintf(line, LINE_LEN, "write(3, ..., %lld) = %lld", n, n);
		break;
	case NT_CALL_READ_REPLY:
		snprintf(line, LINE_LEN, "read(3, ..., %lld) = %lld", n, n);
		break;
	default:
		snprintf(line, LINE_LEN, "write(3, ..., %lld) = %lld", n, n);
		break;
	}
}

/* The client's calls and every segment of the round, unsorted; TCP_CORK around the writes. */
static size_t round_items(const struct nt_record *run, const struct nt_round_view *rv,
			  const struct nt_pkt_client *c, const struct bases *b, struct item *it)
{
	int64_t first_write = -1, last_write = -1;
	size_t n = 0;

	for (size_t i = 0; i < rv->n; i++) {
		const struct nt_event *e = &rv->ev[i];

		if (e->kind == NT_EVENT_SEGMENT) {
			if (segment_line(&e->seg, b, it[n].line)) {
				it[n].t_ns = e->t_ns;
				it[n++].order = 1;
			}
			continue;
		}
		if (e->sys.side != NT_SIDE_CLIENT)
			continue;
		/* A write leaves its segment inside the call: place it when it was entered. */
		it[n].t_ns = e->sys.call == NT_CALL_READ_REPLY ? e->t_ns : e->sys.enter_ns;
		it[n].order = 1;
		syscall_line(&e->sys, run, c, it[n].line);
		if (e->sys.call != NT_CALL_READ_REPLY) {
			if (first_write < 0)
				first_write = e->sys.enter_ns;
			last_write = e->t_ns;
		}
		n++;
	}
	if (has_step(c, NT_PKT_CORK_ON) && first_write >= 0) {
		it[n] = (struct item){ .t_ns = first_write, .order = 0 };
		snprintf(it[n++].line, LINE_LEN, "setsockopt(3, SOL_TCP, TCP_CORK, [1], 4) = 0");
	}
	if (has_step(c, NT_PKT_CORK_OFF) && last_write >= 0) {
		it[n] = (struct item){ .t_ns = last_write, .order = 2 };
		snprintf(it[n++].line, LINE_LEN, "setsockopt(3, SOL_TCP, TCP_CORK, [0], 4) = 0");
	}
	return n;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->order - y->order;
}

/* "+0" or "+0.043912": seconds since the line before, to the microsecond. */
static void put_time(FILE *out, int64_t d_ns)
{
	int64_t us = d_ns > 0 ? (d_ns + NT_NS_PER_US / 2) / NT_NS_PER_US : 0;

	if (us == 0)
		fputs("+0 ", out);
	else
		fprintf(out, "+%" PRId64 ".%06" PRId64 " ", us / 1000000, us % 1000000);
}

static void header(FILE *out, const struct nt_record *run, const struct nt_round *r)
{
	const struct nt_record_config *c = &run->cfg;
	bool v6 = c->family == AF_INET6;

	fprintf(out,
		"// nagle-trace --export-packetdrill: round %u of variant \"%s\", verdict %s\n"
		"// (kernel %s; client %s port %u, target %s port %u)\n"
		"// the client: write(%u) write(%u) read(%u); packetdrill plays the target\n"
		"// replay: packetdrill%s --local_ip=%s --remote_ip=%s FILE.pkt\n"
		"// sequence numbers start at 1 as if this round were the first; the SYN's\n"
		"// options are not checked; see nagle-trace(1), EXPORTS, for the limits\n\n",
		r->index, c->variant, nt_verdict_name(r->verdict), c->kernel, c->client_addr,
		c->client_port, c->target_addr, c->target_port, c->shape.header_bytes,
		c->shape.body_bytes, c->shape.reply_bytes, v6 ? " --ip_version=ipv6" : "",
		c->client_addr, c->target_addr);
}

/* Socket set-up and the handshake; returns the handshake's last time (the round's origin). */
static int handshake(FILE *out, const struct nt_record *run, const struct nt_round_view *hs,
		     const struct nt_pkt_client *c, int64_t *last_ns)
{
	const struct nt_event *syn = NULL, *synack = NULL, *ack = NULL;
	uint16_t mss = run->target_mss ? run->target_mss : 1460;

	for (size_t i = 0; i < hs->n; i++) {
		const struct nt_event *e = &hs->ev[i];

		if (e->kind != NT_EVENT_SEGMENT)
			continue;
		if (e->seg.role == NT_ROLE_SYN && !syn)
			syn = e;
		else if (e->seg.role == NT_ROLE_SYN_ACK && !synack)
			synack = e;
		else if (e->seg.role == NT_ROLE_HANDSHAKE_ACK && !ack)
			ack = e;
	}
	if (!syn || !synack)
		return -EINVAL;
	fputs("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n"
	      "+0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0\n",
	      out);
	if (c->nodelay)
		fputs("+0 setsockopt(3, SOL_TCP, TCP_NODELAY, [1], 4) = 0\n", out);
	fputs("+0 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)\n"
	      "+0 > S 0:0(0) <...>\n",
	      out);
	put_time(out, synack->t_ns - syn->t_ns);
	fprintf(out, "< S. 0:0(0) ack 1 win %u <mss %u,nop,wscale %d>\n", synack->seg.window, mss,
		TARGET_WSCALE);
	*last_ns = synack->t_ns;
	if (ack) {
		put_time(out, ack->t_ns - synack->t_ns);
		fputs("> . 1:1(0) ack 1\n", out);
		*last_ns = ack->t_ns;
	}
	return 0;
}

int nt_render_packetdrill(FILE *out, const struct nt_record *run,
			  const struct nt_round_view *handshake_view,
			  const struct nt_round_view *rv, const struct nt_pkt_client *client)
{
	const struct nt_shape *sh = &run->cfg.shape;
	struct bases b = {
		.client = (int64_t)(rv->round->index - 1) * (sh->header_bytes + sh->body_bytes),
		.target = (int64_t)(rv->round->index - 1) * sh->reply_bytes,
	};
	struct item *it = calloc(rv->n + 2, sizeof(*it));
	int64_t prev;
	size_t n;
	int ret;

	if (!it)
		return -ENOMEM;
	header(out, run, rv->round);
	ret = handshake(out, run, handshake_view, client, &prev);
	if (ret == 0) {
		n = round_items(run, rv, client, &b, it);
		qsort(it, n, sizeof(*it), cmp_item);
		if (rv->round->index > 2)
			fprintf(out, "\n// round %u (rounds 1-%u are left out)\n", rv->round->index,
				rv->round->index - 1);
		else if (rv->round->index == 2)
			fprintf(out, "\n// round 2 (round 1 is left out)\n");
		else
			fprintf(out, "\n// round 1\n");
		for (size_t i = 0; i < n; i++) {
			/* The round starts a fixed gap after the handshake: the rounds between are gone. */
			put_time(out, i == 0 ? ROUND_GAP_NS : it[i].t_ns - prev);
			fprintf(out, "%s\n", it[i].line);
			prev = it[i].t_ns;
		}
	}
	free(it);
	if (ret < 0)
		return ret;
	return ferror(out) ? -EIO : 0;
}
