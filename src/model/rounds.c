// SPDX-License-Identifier: MIT
/*
 * rounds.c - assign segments to rounds by sequence range, find each round's
 * H, A and B, and apply the verdict rule (see nt/model/rounds.h).
 *
 * Relative sequence numbers start at 1 for the first data byte (the SYN
 * takes 0). Byte arithmetic is done in 64 bits; the CLI bounds
 * rounds x (header + body) and rounds x reply below 2^31 so relative
 * numbers never wrap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/model/rounds.h"
#include "nt/model/stats.h"
#include "nt/model/tcp.h"

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

void nt_rounds_assign(struct nt_timeline *tl, const struct nt_shape *shape)
{
	bool fin_seen = false;

	for (size_t i = 0; i < tl->n; i++)
		if (tl->ev[i].kind == NT_EVENT_SEGMENT)
			classify(&tl->ev[i], shape, &fin_seen);
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
	r->rtt_ns = r->gap_ns = r->release_ns = -1;
}

static void mark_syscall(struct nt_round *r, const struct nt_event *e)
{
	switch (e->sys.call) {
	case NT_CALL_WRITE_HEADER:
	case NT_CALL_WRITE_REQUEST:
		if (!r->start_ns)
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

void nt_rounds_assemble_range(const struct nt_event *ev, size_t n, const struct nt_shape *shape,
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

	for (unsigned k = 0; k < count; k++) {
		struct nt_round *r = &rounds[k];

		if (r->start_ns && r->end_ns)
			r->rtt_ns = r->end_ns - r->start_ns;
		if (r->marks.h >= 0 && r->marks.a >= 0)
			r->gap_ns = r->marks.a_ns - r->marks.h_ns;
		if (r->marks.a >= 0 && r->marks.b > r->marks.a)
			r->release_ns = r->marks.b_ns - r->marks.a_ns;
		r->body_written_after_ack = r->marks.a >= 0 && r->marks.write_body_ns &&
					    r->marks.write_body_ns > r->marks.a_ns;
		r->verdict = nt_verdict_rule(&r->marks, threshold_ns);
	}
}

void nt_rounds_assemble(const struct nt_timeline *tl, const struct nt_shape *shape,
			int64_t threshold_ns, struct nt_round *rounds)
{
	nt_rounds_assemble_range(tl->ev, tl->n, shape, threshold_ns, 1, shape->rounds, rounds);
}

void nt_summary_acc_init(struct nt_summary_acc *acc)
{
	memset(acc, 0, sizeof(*acc));
	acc->s.stall_min_ns = acc->s.stall_max_ns = -1;
	acc->s.rtt_p50_ns = acc->s.rtt_p90_ns = acc->s.rtt_max_ns = -1;
}

int nt_summary_acc_add(struct nt_summary_acc *acc, const struct nt_round *r)
{
	struct nt_summary *s = &acc->s;

	if (r->rtt_ns >= 0) {
		if (acc->n_rtt == acc->cap_rtt) {
			size_t cap = acc->cap_rtt ? acc->cap_rtt * 2 : 64;
			int64_t *rtt = realloc(acc->rtt, cap * sizeof(*rtt));

			if (!rtt)
				return -ENOMEM;
			acc->rtt = rtt;
			acc->cap_rtt = cap;
		}
		acc->rtt[acc->n_rtt++] = r->rtt_ns;
	}
	s->rounds++;
	s->verdicts[r->verdict]++;
	s->client_data_segments += r->client_data_segments;
	if (r->verdict == NT_VERDICT_STALLED) {
		if (s->stall_min_ns < 0 || r->gap_ns < s->stall_min_ns)
			s->stall_min_ns = r->gap_ns;
		if (r->gap_ns > s->stall_max_ns)
			s->stall_max_ns = r->gap_ns;
		if (s->n_stalls < NT_SUMMARY_STALLS_LISTED)
			s->stalls[s->n_stalls++] =
				(struct nt_stall_note){ .round = r->index, .gap_ns = r->gap_ns };
	}
	return 0;
}

void nt_summary_acc_close(struct nt_summary_acc *acc, struct nt_summary *out)
{
	*out = acc->s;
	nt_stats_sort(acc->rtt, acc->n_rtt);
	out->rtt_p50_ns = nt_stats_percentile(acc->rtt, acc->n_rtt, 50);
	out->rtt_p90_ns = nt_stats_percentile(acc->rtt, acc->n_rtt, 90);
	out->rtt_max_ns = acc->n_rtt ? acc->rtt[acc->n_rtt - 1] : -1;
}

void nt_summary_acc_fini(struct nt_summary_acc *acc)
{
	free(acc->rtt);
	acc->rtt = NULL;
	acc->n_rtt = acc->cap_rtt = 0;
}

int nt_rounds_summarize(const struct nt_round *rounds, unsigned n, struct nt_summary *out)
{
	struct nt_summary_acc acc;
	int ret = 0;

	nt_summary_acc_init(&acc);
	for (unsigned i = 0; i < n && !ret; i++)
		ret = nt_summary_acc_add(&acc, &rounds[i]);
	if (!ret)
		nt_summary_acc_close(&acc, out);
	nt_summary_acc_fini(&acc);
	return ret;
}

double nt_summary_segments_per_request(const struct nt_summary *s)
{
	return s->rounds ? (double)s->client_data_segments / s->rounds : 0;
}

double nt_summary_bytes_per_segment(const struct nt_summary *s, const struct nt_shape *shape)
{
	uint64_t request = (uint64_t)shape->header_bytes + shape->body_bytes;

	return s->client_data_segments ? (double)(request * s->rounds) / s->client_data_segments
				       : 0;
}

static const char *const expect_names[] = {
	[NT_EXPECT_STALLED] = "stalled", [NT_EXPECT_HELD] = "held",
	[NT_EXPECT_UNHELD] = "unheld",	 [NT_EXPECT_COALESCED] = "coalesced",
	[NT_EXPECT_ANY] = "any",
};

int nt_expect_parse(const char *name, enum nt_expect *out)
{
	for (unsigned i = 0; i < sizeof(expect_names) / sizeof(expect_names[0]); i++) {
		if (strcmp(name, expect_names[i]) == 0) {
			*out = (enum nt_expect)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *nt_expect_name(enum nt_expect e)
{
	return (unsigned)e < sizeof(expect_names) / sizeof(expect_names[0]) ? expect_names[e] : "?";
}

bool nt_expect_round(enum nt_expect e, const struct nt_round *r, char *reason, size_t len)
{
	static const enum nt_verdict wanted[] = {
		[NT_EXPECT_STALLED] = NT_VERDICT_STALLED,
		[NT_EXPECT_HELD] = NT_VERDICT_HELD,
		[NT_EXPECT_UNHELD] = NT_VERDICT_UNHELD,
		[NT_EXPECT_COALESCED] = NT_VERDICT_COALESCED,
	};
	enum nt_verdict v = r->verdict;

	if (e == NT_EXPECT_ANY)
		return true;
	if (r->index == 1) {
		/*
		 * Round 1 runs in quick-ACK mode (tcp_event_data_recv() grants
		 * the budget on a connection's first data): for a stall
		 * expectation it must not stall; otherwise it is the warm-up.
		 */
		if (e == NT_EXPECT_STALLED &&
		    (v == NT_VERDICT_STALLED || v == NT_VERDICT_INCOMPLETE)) {
			snprintf(reason, len,
				 "round 1 was %s, expected a fast first round (not stalled)",
				 nt_verdict_name(v));
			return false;
		}
		return true;
	}
	if (v != wanted[e]) {
		snprintf(reason, len, "round %u was %s, expected %s", r->index, nt_verdict_name(v),
			 nt_verdict_name(wanted[e]));
		return false;
	}
	return true;
}

bool nt_expect_check(enum nt_expect e, const struct nt_round *rounds, unsigned n, char *reason,
		     size_t len)
{
	for (unsigned i = 0; i < n; i++)
		if (!nt_expect_round(e, &rounds[i], reason, len))
			return false;
	return true;
}
