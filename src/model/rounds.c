// SPDX-License-Identifier: MIT
/*
 * rounds.c - assign segments to rounds by sequence range and find each
 * round's H, A and B (see nt/model/rounds.h); verdict.c judges them.
 *
 * Relative sequence numbers start at 1 for the first data byte (the SYN
 * takes 0). Byte arithmetic is done in 64 bits; the CLI bounds
 * rounds x (header + body) and rounds x reply below 2^31 so relative
 * numbers never wrap.
 */
#include <string.h>

#include "nt/model/rounds.h"
#include "nt/model/tcp.h"
#include "nt/unknown.h"

static uint64_t request_bytes(const struct nt_shape *s)
{
	return (uint64_t)s->header_bytes + s->body_bytes;
}

/* The round (1-based) holding relative byte @byte of a stream of @unit-sized messages, 0 if none. */
static int round_of_byte(uint64_t byte, uint64_t unit, unsigned rounds)
{
	if (byte < 1 || unit == 0)
		return 0;
	uint64_t r = (byte - 1) / unit + 1;
	return r <= rounds ? (int)r : 0;
}

static void classify_c2t_data(struct nt_event *e, const struct nt_shape *s)
{
	uint64_t q = request_bytes(s);
	uint64_t first = e->seg.seq_rel;
	uint64_t last = first + e->seg.payload_bytes - 1;
	int r = round_of_byte(first, q, s->rounds);

	if (r == 0) {
		e->round = NT_ROUND_TEARDOWN;
		e->seg.role = NT_ROLE_DATA;
		return;
	}
	uint64_t body_first = 1 + (uint64_t)(r - 1) * q + s->header_bytes;
	bool has_header = first < body_first;
	bool has_body = last >= body_first;

	e->round = r;
	if (has_header && has_body)
		e->seg.role = NT_ROLE_REQUEST;
	else
		e->seg.role = has_header ? NT_ROLE_HEADER : NT_ROLE_BODY;
}

static void classify(struct nt_event *e, const struct nt_shape *s, bool *fin_seen)
{
	struct nt_segment *seg = &e->seg;
	bool c2t = seg->dir == NT_DIR_C2T;
	uint64_t q = request_bytes(s);

	if (seg->flags & NT_TCP_RST) {
		seg->role = NT_ROLE_RST;
		e->round = NT_ROUND_TEARDOWN;
		return;
	}
	if (seg->flags & NT_TCP_SYN) {
		seg->role = (seg->flags & NT_TCP_ACK) ? NT_ROLE_SYN_ACK : NT_ROLE_SYN;
		e->round = NT_ROUND_HANDSHAKE;
		return;
	}
	if (seg->flags & NT_TCP_FIN) {
		seg->role = NT_ROLE_FIN;
		e->round = NT_ROUND_TEARDOWN;
		*fin_seen = true;
		return;
	}
	if (seg->payload_bytes > 0) {
		if (c2t) {
			classify_c2t_data(e, s);
		} else {
			int r = round_of_byte(seg->seq_rel, s->reply_bytes, s->rounds);
			seg->role = r ? NT_ROLE_REPLY : NT_ROLE_DATA;
			e->round = r ? r : NT_ROUND_TEARDOWN;
		}
		return;
	}

	seg->role = NT_ROLE_PURE_ACK;
	/* A pure ACK belongs to the round of the last byte it acknowledges. */
	uint64_t acked_last = seg->ack_rel ? (uint64_t)seg->ack_rel - 1 : 0;
	int r = round_of_byte(acked_last, c2t ? s->reply_bytes : q, s->rounds);

	if (r) {
		e->round = r;
	} else if (acked_last == 0 && !*fin_seen) {
		e->round = NT_ROUND_HANDSHAKE;
		if (c2t)
			seg->role = NT_ROLE_HANDSHAKE_ACK;
	} else {
		e->round = NT_ROUND_TEARDOWN;
	}
}

void nt_rounds_classify(struct nt_event *ev, size_t n, const struct nt_shape *shape, bool *fin_seen)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == NT_EVENT_SEGMENT && ev[i].round == NT_ROUND_NONE)
			classify(&ev[i], shape, fin_seen);
}

static bool covers(const struct nt_segment *seg, uint64_t byte)
{
	return seg->payload_bytes > 0 && seg->seq_rel <= byte &&
	       byte < (uint64_t)seg->seq_rel + seg->payload_bytes;
}

static void round_init(struct nt_round *r, unsigned index)
{
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->marks.h = r->marks.a = r->marks.b = -1;
	r->marks.write_body_ns = NT_UNKNOWN;
	r->start_ns = r->end_ns = NT_UNKNOWN;
	r->rtt_ns = r->gap_ns = r->release_ns = NT_UNKNOWN;
}

static void mark_syscall(struct nt_round *r, const struct nt_event *e)
{
	switch (e->sys.call) {
	case NT_CALL_WRITE_HEADER:
	case NT_CALL_WRITE_REQUEST:
		if (!nt_known(r->start_ns))
			r->start_ns = e->sys.enter_ns;
		break;
	case NT_CALL_WRITE_BODY:
		r->marks.write_body_ns = e->t_ns;
		break;
	case NT_CALL_READ_REPLY:
		r->end_ns = e->t_ns;
		break;
	case NT_CALL_READ_REQUEST:
	case NT_CALL_WRITE_REPLY:
		break;
	}
}

static void mark_c2t(struct nt_round *r, const struct nt_event *e, long idx, uint64_t header_last)
{
	const struct nt_segment *seg = &e->seg;

	if (seg->payload_bytes > 0 && seg->role != NT_ROLE_DATA)
		r->client_data_segments++;
	/* First transmission only: a retransmission does not move H or B. */
	if (r->marks.h < 0 && covers(seg, header_last)) {
		r->marks.h = idx;
		r->marks.h_ns = e->t_ns;
	}
	if (r->marks.b < 0 && covers(seg, header_last + 1)) {
		r->marks.b = idx;
		r->marks.b_ns = e->t_ns;
	}
}

void nt_rounds_assemble(const struct nt_event *ev, size_t n, const struct nt_shape *shape,
			int64_t threshold_ns, unsigned first, unsigned count,
			struct nt_round *rounds)
{
	uint64_t q = request_bytes(shape);
	unsigned pending_ack =
		0; /* first round (0-based in @rounds) no target ACK has covered yet */

	for (unsigned i = 0; i < count; i++)
		round_init(&rounds[i], first + i);

	for (size_t i = 0; i < n; i++) {
		const struct nt_event *e = &ev[i];
		struct nt_round *r = NULL;

		if (e->round >= (int)first && (unsigned)e->round < first + count) {
			r = &rounds[(unsigned)e->round - first];
			r->events++;
		}
		if (e->kind == NT_EVENT_SYSCALL) {
			if (r)
				mark_syscall(r, e);
			continue;
		}
		if (e->seg.dir == NT_DIR_C2T) {
			if (r)
				mark_c2t(r, e, (long)i,
					 1 + (uint64_t)(r->index - 1) * q + shape->header_bytes -
						 1);
			continue;
		}
		if (!(e->seg.flags & NT_TCP_ACK))
			continue;
		/*
		 * A: the first target segment acknowledging the header's last
		 * byte. ACKs are cumulative, so one cursor walks the rounds in
		 * order: whatever round this segment belongs to (a pure ACK may
		 * also cover later bytes), every header it covers gets its A.
		 */
		while (pending_ack < count) {
			struct nt_round *p = &rounds[pending_ack];
			uint64_t header_last =
				1 + (uint64_t)(p->index - 1) * q + shape->header_bytes - 1;

			if ((uint64_t)e->seg.ack_rel <= header_last)
				break;
			if (p->marks.h >= 0) {
				p->marks.a = (long)i;
				p->marks.a_ns = e->t_ns;
				p->marks.a_is_pure_ack = e->seg.payload_bytes == 0;
			}
			pending_ack++;
		}
	}

	for (unsigned k = 0; k < count; k++)
		nt_verdict_round(&rounds[k], threshold_ns);
}
