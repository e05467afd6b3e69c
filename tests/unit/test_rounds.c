// SPDX-License-Identifier: MIT
/*
 * test_rounds.c - round classification and assembly, the summary, the
 * expectation and nt_record_finish() on synthetic timelines, through the
 * functions a live run calls (nt_rounds_classify(), nt_rounds_assemble(),
 * nt_summary_acc_*(), nt_expect_round()).
 *
 * The exchange has header 4, body 8, reply 2 bytes. Relative sequence
 * numbers: the client's data starts at 1, request i occupies
 * [1 + 12(i-1), 1 + 12i) (header first), reply i occupies the target's
 * [1 + 2(i-1), 1 + 2i). Round i starts at i x 100 ms; a Nagle round is
 *
 *   t0 + 10 us   write-header returns (entered at t0)
 *   t0 + 20 us   H    c2t P. header, ack of reply i-1
 *   t0 + 30 us   write-body returns (entered at t0 + 25 us)
 *   t0 + 20 us + gap   A    t2c . ack of the header
 *   A + 50 us    B    c2t P. body
 *   B + 100 us   reply  t2c P.
 *   reply + 20 us  read-reply returns
 *
 * so its round trip is gap + 190 us. Each event is appended in time order,
 * so a test can name events by timeline index.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nt/model/event.h"
#include "nt/model/expect.h"
#include "nt/model/rounds.h"
#include "nt/model/record.h"
#include "nt/model/stats.h"
#include "nt/model/tcp.h"
#include "nt/model/verdict.h"
#include "nt/render/labels.h"
#include "nt/unknown.h"

#define US	  1000LL
#define MS	  1000000LL
#define THRESHOLD (10 * MS)

#define HDR   4u
#define BODY  8u
#define REQ   (HDR + BODY)
#define REPLY 2u

#define PA (NT_TCP_PSH | NT_TCP_ACK)

static const struct nt_shape shape4 = {
	.header_bytes = HDR,
	.body_bytes = BODY,
	.reply_bytes = REPLY,
	.rounds = 4,
};

static uint32_t hdr_seq(unsigned i)
{
	return 1 + (i - 1) * REQ;
}

static uint32_t body_seq(unsigned i)
{
	return hdr_seq(i) + HDR;
}

static uint32_t req_end(unsigned i)
{
	return 1 + i * REQ;
}

static uint32_t reply_seq(unsigned i)
{
	return 1 + (i - 1) * REPLY;
}

static uint32_t reply_end(unsigned i)
{
	return 1 + i * REPLY;
}

static int64_t round_t0(unsigned i)
{
	return (int64_t)i * 100 * MS;
}

static void seg(struct nt_timeline *tl, int64_t t_ns, enum nt_dir dir, uint8_t flags,
		uint32_t seq_rel, uint32_t ack_rel, uint32_t payload_bytes)
{
	struct nt_event e;

	memset(&e, 0, sizeof(e));
	e.t_ns = t_ns;
	e.kind = NT_EVENT_SEGMENT;
	e.round = NT_ROUND_NONE;
	e.seg.dir = dir;
	e.seg.flags = flags;
	e.seg.seq = seq_rel + (dir == NT_DIR_C2T ? 1000000u : 7000000u);
	e.seg.ack = ack_rel ? ack_rel + (dir == NT_DIR_C2T ? 7000000u : 1000000u) : 0;
	e.seg.seq_rel = seq_rel;
	e.seg.ack_rel = ack_rel;
	e.seg.payload_bytes = payload_bytes;
	e.seg.window = 502;
	assert_int_equal(nt_timeline_append(tl, &e), 0);
}

static void sys(struct nt_timeline *tl, int64_t t_ns, enum nt_call call, int64_t enter_ns,
		int64_t bytes, int round)
{
	struct nt_event e;

	memset(&e, 0, sizeof(e));
	e.t_ns = t_ns;
	e.kind = NT_EVENT_SYSCALL;
	e.round = round;
	e.sys.side = NT_SIDE_CLIENT;
	e.sys.call = call;
	e.sys.enter_ns = enter_ns;
	e.sys.bytes = bytes;
	assert_int_equal(nt_timeline_append(tl, &e), 0);
}

/* SYN, SYN-ACK, ACK at 1 ms. */
static void handshake(struct nt_timeline *tl)
{
	seg(tl, 1 * MS, NT_DIR_C2T, NT_TCP_SYN, 0, 0, 0);
	seg(tl, 1 * MS + 50 * US, NT_DIR_T2C, NT_TCP_SYN | NT_TCP_ACK, 0, 1, 0);
	seg(tl, 1 * MS + 100 * US, NT_DIR_C2T, NT_TCP_ACK, 1, 1, 0);
}

/* Client FIN, target FIN, client's last ACK, after @rounds rounds. */
static void teardown(struct nt_timeline *tl, unsigned rounds, int64_t t_ns)
{
	seg(tl, t_ns, NT_DIR_C2T, NT_TCP_FIN | NT_TCP_ACK, req_end(rounds), reply_end(rounds), 0);
	seg(tl, t_ns + 50 * US, NT_DIR_T2C, NT_TCP_FIN | NT_TCP_ACK, reply_end(rounds),
	    req_end(rounds) + 1, 0);
	seg(tl, t_ns + 100 * US, NT_DIR_C2T, NT_TCP_ACK, req_end(rounds) + 1, reply_end(rounds) + 1,
	    0);
}

/* How a Nagle round deviates from the plain one (flags may be or-ed). */
enum {
	PLAIN = 0,
	NO_BODY = 1 << 0,	 /* B never captured (and so no reply) */
	RETX_HEADER = 1 << 1,	 /* H sent twice: the copy 5 us after the first */
	BODY_AFTER_ACK = 1 << 2, /* write(body) returns 10 us after A */
	SPLIT_BODY = 1 << 3,	 /* the body leaves as 5 + 3 bytes, 20 us apart */
};

/* A two-write round from @t0: H, A (a pure ACK @gap_ns after H), B; returns the reply's time. */
static int64_t nagle_round_at(struct nt_timeline *tl, unsigned i, int64_t t0, int64_t gap_ns,
			      unsigned how)
{
	int64_t h = t0 + 20 * US, a = h + gap_ns, b = a + 50 * US, reply;

	sys(tl, t0 + 10 * US, NT_CALL_WRITE_HEADER, t0, HDR, (int)i);
	seg(tl, h, NT_DIR_C2T, PA, hdr_seq(i), reply_end(i - 1), HDR);
	if (how & RETX_HEADER)
		seg(tl, h + 5 * US, NT_DIR_C2T, PA, hdr_seq(i), reply_end(i - 1), HDR);
	if (how & BODY_AFTER_ACK)
		sys(tl, a + 10 * US, NT_CALL_WRITE_BODY, a + 5 * US, BODY, (int)i);
	else
		sys(tl, t0 + 30 * US, NT_CALL_WRITE_BODY, t0 + 25 * US, BODY, (int)i);
	seg(tl, a, NT_DIR_T2C, NT_TCP_ACK, reply_seq(i), body_seq(i), 0);
	if (how & NO_BODY)
		return 0;
	if (how & SPLIT_BODY) {
		seg(tl, b, NT_DIR_C2T, PA, body_seq(i), reply_end(i - 1), 5);
		seg(tl, b + 20 * US, NT_DIR_C2T, PA, body_seq(i) + 5, reply_end(i - 1), 3);
		b += 20 * US;
	} else {
		seg(tl, b, NT_DIR_C2T, PA, body_seq(i), reply_end(i - 1), BODY);
	}
	reply = b + 100 * US;
	seg(tl, reply, NT_DIR_T2C, PA, reply_seq(i), req_end(i), REPLY);
	sys(tl, reply + 20 * US, NT_CALL_READ_REPLY, t0 + 40 * US, REPLY, (int)i);
	return reply;
}

/* A two-write round at its own start (round_t0()). */
static int64_t nagle_round(struct nt_timeline *tl, unsigned i, int64_t gap_ns, unsigned how)
{
	return nagle_round_at(tl, i, round_t0(i), gap_ns, how);
}

/* The last round's reply is acknowledged by a delayed pure ACK 40 ms later. */
static void final_ack(struct nt_timeline *tl, unsigned rounds, int64_t reply_ns)
{
	seg(tl, reply_ns + 40 * MS, NT_DIR_C2T, NT_TCP_ACK, req_end(rounds), reply_end(rounds), 0);
}

/*
 * The default variant on Linux: round 1 quick-ACKed (40 us), rounds 2..4
 * stalled by the delayed ACK (43.9, 40.1, 41.0 ms). 35 events:
 *   0..2 handshake, 3..9 round 1, 10..16 round 2, 17..23 round 3,
 *   24..30 round 4, 31 the ACK of reply 4, 32..34 teardown.
 * Within a round: +0 write-header, +1 H, +2 write-body, +3 A, +4 B,
 * +5 reply, +6 read-reply.
 */
static void default_exchange(struct nt_timeline *tl)
{
	int64_t reply;

	handshake(tl);
	nagle_round(tl, 1, 40 * US, PLAIN);
	nagle_round(tl, 2, 43900 * US, PLAIN);
	nagle_round(tl, 3, 40100 * US, PLAIN);
	reply = nagle_round(tl, 4, 41000 * US, PLAIN);
	final_ack(tl, 4, reply);
	teardown(tl, 4, 500 * MS);
}

/* Classifies a whole timeline as a run classifies its window. */
static void classify(struct nt_timeline *tl, const struct nt_shape *s)
{
	bool fin_seen = false;

	nt_rounds_classify(tl->ev, tl->n, s, &fin_seen);
}

/* Every round at once: the marks index the whole timeline. */
static void assemble(struct nt_timeline *tl, const struct nt_shape *s, struct nt_round *r)
{
	classify(tl, s);
	nt_rounds_assemble(tl->ev, tl->n, s, THRESHOLD, 1, s->rounds, r);
}

/* The summary as a run builds it, one round at a time. */
static int summarize(const struct nt_round *r, unsigned n, struct nt_summary *out)
{
	struct nt_summary_acc acc;
	int ret = 0;

	nt_summary_acc_init(&acc);
	for (unsigned i = 0; i < n && !ret; i++)
		ret = nt_summary_acc_add(&acc, &r[i]);
	if (!ret)
		nt_summary_acc_close(&acc, out);
	nt_summary_acc_fini(&acc);
	return ret;
}

/* The expectation as a run checks it, round by round; the first failure's reason, worded. */
static bool expect_all(enum nt_expect e, const struct nt_round *r, unsigned n, char *reason,
		       size_t len)
{
	struct nt_expect_why why;

	for (unsigned i = 0; i < n; i++) {
		if (!nt_expect_round(e, &r[i], NULL, &why)) {
			nt_label_expectation(&why, reason, len);
			return false;
		}
		assert_int_equal(why.miss, NT_EXPECT_MISS_NONE);
	}
	return true;
}

/* A run's expectation_why as the reports word it. */
static const char *reason_of(const struct nt_record *run)
{
	static char buf[NT_LABEL_EXPECTATION_LEN];

	return nt_label_expectation(&run->expectation_why, buf, sizeof(buf));
}

static void assert_event(const struct nt_timeline *tl, size_t i, enum nt_role role, int round)
{
	assert_true(i < tl->n);
	assert_int_equal(tl->ev[i].kind, NT_EVENT_SEGMENT);
	assert_string_equal(nt_role_name(tl->ev[i].seg.role), nt_role_name(role));
	assert_int_equal(tl->ev[i].round, round);
}

/* what this checks: every role and round of the default exchange, handshake to teardown */
static void test_assign_default_exchange(void **state)
{
	struct nt_timeline tl = { 0 };

	(void)state;
	default_exchange(&tl);
	assert_int_equal(tl.n, 35);
	classify(&tl, &shape4);
	assert_event(&tl, 0, NT_ROLE_SYN, NT_ROUND_HANDSHAKE);
	assert_event(&tl, 1, NT_ROLE_SYN_ACK, NT_ROUND_HANDSHAKE);
	assert_event(&tl, 2, NT_ROLE_HANDSHAKE_ACK, NT_ROUND_HANDSHAKE);
	for (unsigned i = 1; i <= 4; i++) {
		size_t base = 3 + (i - 1) * 7;

		assert_int_equal(tl.ev[base].kind, NT_EVENT_SYSCALL);
		assert_int_equal(tl.ev[base].round, (int)i);
		assert_event(&tl, base + 1, NT_ROLE_HEADER, (int)i);
		assert_event(&tl, base + 3, NT_ROLE_PURE_ACK, (int)i);
		assert_event(&tl, base + 4, NT_ROLE_BODY, (int)i);
		assert_event(&tl, base + 5, NT_ROLE_REPLY, (int)i);
		assert_int_equal(tl.ev[base + 6].round, (int)i);
	}
	/* the ACK of reply 4 is a pure ACK of round 4 */
	assert_event(&tl, 31, NT_ROLE_PURE_ACK, 4);
	assert_event(&tl, 32, NT_ROLE_FIN, NT_ROUND_TEARDOWN);
	assert_event(&tl, 33, NT_ROLE_FIN, NT_ROUND_TEARDOWN);
	assert_event(&tl, 34, NT_ROLE_PURE_ACK, NT_ROUND_TEARDOWN);
	nt_timeline_fini(&tl);
}

/* what this checks: header i+1 carrying the ACK of reply i is round i+1's header */
static void test_ack_rides_on_next_header(void **state)
{
	struct nt_timeline tl = { 0 };

	(void)state;
	default_exchange(&tl);
	classify(&tl, &shape4);
	/* header 2 at index 11 acknowledges reply 1 (ack_rel 3) */
	assert_int_equal(tl.ev[11].seg.ack_rel, reply_end(1));
	assert_event(&tl, 11, NT_ROLE_HEADER, 2);
	assert_int_equal(tl.ev[18].seg.ack_rel, reply_end(2));
	assert_event(&tl, 18, NT_ROLE_HEADER, 3);
	nt_timeline_fini(&tl);
}

/* what this checks: a late pure ACK of reply 1 after header 2 still belongs to round 1 */
static void test_late_pure_ack_stays_in_its_round(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];

	(void)state;
	handshake(&tl);
	nagle_round(&tl, 1, 40 * US, PLAIN);
	nagle_round(&tl, 2, 43900 * US, PLAIN);
	/* 5 us after header 2 (index 11): the client's pure ACK of reply 1 */
	seg(&tl, round_t0(2) + 25 * US, NT_DIR_C2T, NT_TCP_ACK, req_end(1), reply_end(1), 0);
	assert_int_equal(tl.n, 18);
	assemble(&tl, &shape4, r);
	assert_event(&tl, 11, NT_ROLE_HEADER, 2);
	assert_event(&tl, 12, NT_ROLE_PURE_ACK, 1);
	assert_int_equal(r[0].events, 8);
	assert_int_equal(r[1].events, 7);
	/* it is not mistaken for anything of round 2 */
	assert_int_equal(r[1].marks.h, 11);
	assert_int_equal(r[1].marks.a, 14);
	assert_int_equal(r[1].marks.b, 15);
	assert_int_equal(r[1].verdict, NT_VERDICT_STALLED);
	nt_timeline_fini(&tl);
}

/* what this checks: round 2 of the default exchange is stalled, with exact marks and times */
static void test_stalled_round_values(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const int64_t t0 = round_t0(2);

	(void)state;
	default_exchange(&tl);
	assemble(&tl, &shape4, r);
	assert_int_equal(r[1].index, 2);
	assert_int_equal(r[1].verdict, NT_VERDICT_STALLED);
	assert_int_equal(r[1].marks.h, 11);
	assert_int_equal(r[1].marks.a, 13);
	assert_int_equal(r[1].marks.b, 14);
	assert_int_equal(r[1].marks.h_ns, t0 + 20 * US);
	assert_int_equal(r[1].marks.a_ns, t0 + 20 * US + 43900 * US);
	assert_int_equal(r[1].marks.b_ns, t0 + 20 * US + 43950 * US);
	assert_true(r[1].marks.a_is_pure_ack);
	assert_int_equal(r[1].marks.write_body_ns, t0 + 30 * US);
	assert_int_equal(r[1].gap_ns, 43900000);
	assert_int_equal(r[1].release_ns, 50000);
	assert_int_equal(r[1].start_ns, t0);
	assert_int_equal(r[1].end_ns, t0 + 43900 * US + 190 * US);
	assert_int_equal(r[1].rtt_ns, 44090000);
	assert_int_equal(r[1].client_data_segments, 2);
	assert_false(r[1].body_written_after_ack);
	assert_int_equal(r[1].events, 7);
	nt_timeline_fini(&tl);
}

/* what this checks: verdicts of the whole default exchange: held, then stalled x 3 */
static void test_default_exchange_verdicts(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];

	(void)state;
	default_exchange(&tl);
	assemble(&tl, &shape4, r);
	assert_int_equal(r[0].verdict, NT_VERDICT_HELD);
	assert_int_equal(r[0].gap_ns, 40000);
	assert_int_equal(r[0].release_ns, 50000);
	assert_int_equal(r[0].rtt_ns, 230000);
	assert_int_equal(r[0].marks.h, 4);
	assert_int_equal(r[0].marks.a, 6);
	assert_int_equal(r[0].marks.b, 7);
	/* write(body) returned at +30 us, before A at +60 us */
	assert_false(r[0].body_written_after_ack);
	for (unsigned i = 1; i < 4; i++) {
		assert_int_equal(r[i].index, i + 1);
		assert_int_equal(r[i].verdict, NT_VERDICT_STALLED);
	}
	assert_int_equal(r[2].gap_ns, 40100000);
	assert_int_equal(r[3].gap_ns, 41000000);
	assert_int_equal(r[3].events, 8);
	nt_timeline_fini(&tl);
}

/* what this checks: a retransmitted header does not move H, and is counted as a data segment */
static void test_retransmitted_header(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];

	(void)state;
	handshake(&tl);
	nagle_round(&tl, 1, 40 * US, PLAIN);
	nagle_round(&tl, 2, 43900 * US, RETX_HEADER);
	assemble(&tl, &shape4, r);
	/* 10 write-header, 11 H, 12 H again, 13 write-body, 14 A, 15 B */
	assert_event(&tl, 12, NT_ROLE_HEADER, 2);
	assert_int_equal(r[1].marks.h, 11);
	assert_int_equal(r[1].marks.h_ns, round_t0(2) + 20 * US);
	assert_int_equal(r[1].marks.a, 14);
	assert_int_equal(r[1].marks.b, 15);
	assert_int_equal(r[1].gap_ns, 43900000);
	assert_int_equal(r[1].client_data_segments, 3);
	assert_int_equal(r[1].verdict, NT_VERDICT_STALLED);
	nt_timeline_fini(&tl);
}

/* what this checks: a round whose body was never captured is incomplete, with no release time */
static void test_missing_body_incomplete(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];

	(void)state;
	handshake(&tl);
	nagle_round(&tl, 1, 40 * US, PLAIN);
	nagle_round(&tl, 2, 43900 * US, NO_BODY);
	assemble(&tl, &shape4, r);
	assert_int_equal(r[1].verdict, NT_VERDICT_INCOMPLETE);
	assert_int_equal(r[1].marks.h, 11);
	assert_int_equal(r[1].marks.a, 13);
	assert_int_equal(r[1].marks.b, -1);
	assert_int_equal(r[1].gap_ns, 43900000);
	assert_int_equal(r[1].release_ns, -1);
	assert_int_equal(r[1].rtt_ns, -1);
	assert_int_equal(r[1].end_ns, NT_UNKNOWN);
	/* rounds never run: incomplete, nothing known */
	for (unsigned i = 2; i < 4; i++) {
		assert_int_equal(r[i].index, i + 1);
		assert_int_equal(r[i].verdict, NT_VERDICT_INCOMPLETE);
		assert_int_equal(r[i].marks.h, -1);
		assert_int_equal(r[i].marks.a, -1);
		assert_int_equal(r[i].marks.b, -1);
		assert_int_equal(r[i].gap_ns, -1);
		assert_int_equal(r[i].release_ns, -1);
		assert_int_equal(r[i].rtt_ns, -1);
		assert_int_equal(r[i].events, 0);
		assert_int_equal(r[i].client_data_segments, 0);
	}
	nt_timeline_fini(&tl);
}

/* what this checks: header and body in one segment: role request, H == B, coalesced */
static void test_coalesced_round(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	sys(&tl, t0 + 10 * US, NT_CALL_WRITE_REQUEST, t0, REQ, 1);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, REQ);		     /* 4 */
	seg(&tl, t0 + 60 * US, NT_DIR_T2C, NT_TCP_ACK, 1, req_end(1), 0);    /* 5 */
	seg(&tl, t0 + 160 * US, NT_DIR_T2C, PA, 1, req_end(1), REPLY);	     /* 6 */
	sys(&tl, t0 + 180 * US, NT_CALL_READ_REPLY, t0 + 15 * US, REPLY, 1); /* 7 */
	assemble(&tl, &s1, r);
	assert_event(&tl, 4, NT_ROLE_REQUEST, 1);
	assert_event(&tl, 5, NT_ROLE_PURE_ACK, 1);
	assert_event(&tl, 6, NT_ROLE_REPLY, 1);
	assert_int_equal(r[0].verdict, NT_VERDICT_COALESCED);
	assert_int_equal(r[0].marks.h, 4);
	assert_int_equal(r[0].marks.b, 4);
	assert_int_equal(r[0].marks.a, 5);
	assert_int_equal(r[0].gap_ns, 40000);
	assert_int_equal(r[0].release_ns, -1);
	assert_int_equal(r[0].start_ns, t0);
	assert_int_equal(r[0].rtt_ns, 180000);
	assert_int_equal(r[0].client_data_segments, 1);
	nt_timeline_fini(&tl);
}

/* what this checks: the body leaving before the header's ACK (TCP_NODELAY) is unheld */
static void test_unheld_round(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	sys(&tl, t0 + 10 * US, NT_CALL_WRITE_HEADER, t0, HDR, 1);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, HDR); /* 4: H */
	sys(&tl, t0 + 30 * US, NT_CALL_WRITE_BODY, t0 + 25 * US, BODY, 1);
	seg(&tl, t0 + 40 * US, NT_DIR_C2T, PA, 5, 1, BODY);	       /* 6: B */
	seg(&tl, t0 + 60 * US, NT_DIR_T2C, NT_TCP_ACK, 1, 5, 0);       /* 7: A */
	seg(&tl, t0 + 160 * US, NT_DIR_T2C, PA, 1, req_end(1), REPLY); /* 8 */
	assemble(&tl, &s1, r);
	assert_event(&tl, 6, NT_ROLE_BODY, 1);
	assert_event(&tl, 7, NT_ROLE_PURE_ACK, 1);
	assert_int_equal(r[0].verdict, NT_VERDICT_UNHELD);
	assert_int_equal(r[0].marks.h, 4);
	assert_int_equal(r[0].marks.b, 6);
	assert_int_equal(r[0].marks.a, 7);
	assert_int_equal(r[0].gap_ns, 40000);
	assert_int_equal(r[0].release_ns, -1);
	assert_int_equal(r[0].rtt_ns, -1); /* no read-reply seen */
	nt_timeline_fini(&tl);
}

/* what this checks: one target pure ACK covering header and body is A (unheld: B left first) */
static void test_ack_covers_header_and_body(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s2 = { HDR, BODY, REPLY, 2 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, HDR);		  /* 3: H */
	seg(&tl, t0 + 40 * US, NT_DIR_C2T, PA, 5, 1, BODY);		  /* 4: B */
	seg(&tl, t0 + 30 * MS, NT_DIR_T2C, NT_TCP_ACK, 1, req_end(1), 0); /* 5: A */
	seg(&tl, t0 + 31 * MS, NT_DIR_T2C, PA, 1, req_end(1), REPLY);	  /* 6 */
	assemble(&tl, &s2, r);
	assert_event(&tl, 5, NT_ROLE_PURE_ACK, 1);
	assert_int_equal(r[0].marks.a, 5);
	assert_true(r[0].marks.a_is_pure_ack);
	assert_int_equal(r[0].gap_ns, 30 * MS - 20 * US);
	assert_int_equal(r[0].release_ns, -1);
	assert_int_equal(r[0].verdict, NT_VERDICT_UNHELD);
	/* round 2's header is not covered by that ACK: it has no A */
	assert_int_equal(r[1].marks.a, -1);
	nt_timeline_fini(&tl);
}

/* what this checks: A is the first ACK of the header, not a later one (dup or reply) */
static void test_a_is_first_ack(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, HDR);		   /* 3: H */
	seg(&tl, t0 + 41 * MS, NT_DIR_T2C, NT_TCP_ACK, 1, 5, 0);	   /* 4: A */
	seg(&tl, t0 + 41 * MS + 10 * US, NT_DIR_T2C, NT_TCP_ACK, 1, 5, 0); /* 5: dup */
	seg(&tl, t0 + 41 * MS + 50 * US, NT_DIR_C2T, PA, 5, 1, BODY);	   /* 6: B */
	seg(&tl, t0 + 41 * MS + 150 * US, NT_DIR_T2C, PA, 1, 13, REPLY);   /* 7 */
	assemble(&tl, &s1, r);
	assert_int_equal(r[0].marks.a, 4);
	assert_int_equal(r[0].marks.b, 6);
	assert_int_equal(r[0].gap_ns, 41 * MS - 20 * US);
	assert_int_equal(r[0].release_ns, 50 * US);
	assert_int_equal(r[0].verdict, NT_VERDICT_STALLED);
	nt_timeline_fini(&tl);
}

/* what this checks: a reply acknowledging the header before B is an A with data: incomplete */
static void test_a_with_data_incomplete(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, HDR);    /* 3: H */
	seg(&tl, t0 + 100 * US, NT_DIR_T2C, PA, 1, 5, REPLY); /* 4: A, with data */
	seg(&tl, t0 + 150 * US, NT_DIR_C2T, PA, 5, 3, BODY);  /* 5: B */
	assemble(&tl, &s1, r);
	assert_event(&tl, 4, NT_ROLE_REPLY, 1);
	assert_int_equal(r[0].marks.a, 4);
	assert_false(r[0].marks.a_is_pure_ack);
	assert_int_equal(r[0].verdict, NT_VERDICT_INCOMPLETE);
	nt_timeline_fini(&tl);
}

/* what this checks: write(body) returning after A sets the flag; fast A stays held */
static void test_body_written_after_ack_held(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	nagle_round(&tl, 1, 40 * US, BODY_AFTER_ACK);
	assemble(&tl, &shape4, r);
	/* 3 write-header, 4 H, 5 A, 6 write-body, 7 B */
	assert_int_equal(tl.ev[6].kind, NT_EVENT_SYSCALL);
	assert_int_equal(r[0].marks.write_body_ns, t0 + 70 * US);
	assert_true(r[0].body_written_after_ack);
	assert_int_equal(r[0].verdict, NT_VERDICT_HELD);
	assert_int_equal(r[0].marks.a, 5);
	assert_int_equal(r[0].marks.b, 7);
	nt_timeline_fini(&tl);
}

/* what this checks: a slow A that write(body) came after is the application's delay: unheld */
static void test_body_written_after_slow_ack_unheld(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];

	(void)state;
	handshake(&tl);
	nagle_round(&tl, 1, 40 * US, PLAIN);
	nagle_round(&tl, 2, 43900 * US, BODY_AFTER_ACK);
	assemble(&tl, &shape4, r);
	assert_true(r[1].body_written_after_ack);
	assert_int_equal(r[1].gap_ns, 43900000);
	assert_int_equal(r[1].verdict, NT_VERDICT_UNHELD);
	assert_false(r[0].body_written_after_ack);
	nt_timeline_fini(&tl);
}

/* what this checks: a body split across two segments: B is the first, both are body */
static void test_split_body(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const int64_t t0 = round_t0(2);

	(void)state;
	handshake(&tl);
	nagle_round(&tl, 1, 40 * US, PLAIN);
	nagle_round(&tl, 2, 43900 * US, SPLIT_BODY);
	assemble(&tl, &shape4, r);
	/* 10 write-header, 11 H, 12 write-body, 13 A, 14 B (5 bytes), 15 body (3 bytes) */
	assert_event(&tl, 14, NT_ROLE_BODY, 2);
	assert_event(&tl, 15, NT_ROLE_BODY, 2);
	assert_int_equal(r[1].marks.b, 14);
	assert_int_equal(r[1].marks.b_ns, t0 + 20 * US + 43950 * US);
	assert_int_equal(r[1].release_ns, 50000);
	assert_int_equal(r[1].client_data_segments, 3);
	assert_int_equal(r[1].verdict, NT_VERDICT_STALLED);
	nt_timeline_fini(&tl);
}

/* what this checks: a header split across two segments: H is the one with its last byte */
static void test_split_header(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, 3);		   /* 3 */
	seg(&tl, t0 + 30 * US, NT_DIR_C2T, PA, 4, 1, 1);		   /* 4: H */
	seg(&tl, t0 + 30 * US + 20 * MS, NT_DIR_T2C, NT_TCP_ACK, 1, 5, 0); /* 5: A */
	seg(&tl, t0 + 30 * US + 21 * MS, NT_DIR_C2T, PA, 5, 1, BODY);	   /* 6: B */
	assemble(&tl, &s1, r);
	assert_event(&tl, 3, NT_ROLE_HEADER, 1);
	assert_event(&tl, 4, NT_ROLE_HEADER, 1);
	assert_int_equal(r[0].marks.h, 4);
	assert_int_equal(r[0].gap_ns, 20 * MS);
	assert_int_equal(r[0].verdict, NT_VERDICT_STALLED);
	nt_timeline_fini(&tl);
}

/* what this checks: a retransmitted body does not move B */
static void test_retransmitted_body(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, HDR);		   /* 3: H */
	seg(&tl, t0 + 20 * US + 41 * MS, NT_DIR_T2C, NT_TCP_ACK, 1, 5, 0); /* 4: A */
	seg(&tl, t0 + 70 * US + 41 * MS, NT_DIR_C2T, PA, 5, 1, BODY);	   /* 5: B */
	seg(&tl, t0 + 90 * US + 41 * MS, NT_DIR_C2T, PA, 5, 1, BODY);	   /* 6: again */
	assemble(&tl, &s1, r);
	assert_event(&tl, 6, NT_ROLE_BODY, 1);
	assert_int_equal(r[0].marks.b, 5);
	assert_int_equal(r[0].release_ns, 50 * US);
	assert_int_equal(r[0].client_data_segments, 3);
	assert_int_equal(r[0].verdict, NT_VERDICT_STALLED);
	nt_timeline_fini(&tl);
}

/* what this checks: an ACK of part of the header (not its last byte) is not A */
static void test_partial_header_ack_is_not_a(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	handshake(&tl);
	seg(&tl, t0 + 20 * US, NT_DIR_C2T, PA, 1, 1, 3);		   /* 3 */
	seg(&tl, t0 + 60 * US, NT_DIR_T2C, NT_TCP_ACK, 1, 4, 0);	   /* 4: acks 1..3 */
	seg(&tl, t0 + 70 * US, NT_DIR_C2T, PA, 4, 1, 1);		   /* 5: H */
	seg(&tl, t0 + 70 * US + 40 * MS, NT_DIR_T2C, NT_TCP_ACK, 1, 5, 0); /* 6: A */
	seg(&tl, t0 + 120 * US + 40 * MS, NT_DIR_C2T, PA, 5, 1, BODY);	   /* 7: B */
	assemble(&tl, &s1, r);
	assert_int_equal(r[0].marks.h, 5);
	assert_int_equal(r[0].marks.a, 6);
	assert_int_equal(r[0].gap_ns, 40 * MS);
	assert_int_equal(r[0].verdict, NT_VERDICT_STALLED);
	nt_timeline_fini(&tl);
}

/* what this checks: start_ns is when the round's first write was entered, not a later one */
static void test_start_is_first_write(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };
	const int64_t t0 = round_t0(1);

	(void)state;
	sys(&tl, t0 + 10 * US, NT_CALL_WRITE_HEADER, t0, 2, 1);
	sys(&tl, t0 + 20 * US, NT_CALL_WRITE_HEADER, t0 + 15 * US, 2, 1);
	sys(&tl, t0 + 30 * US, NT_CALL_WRITE_REQUEST, t0 + 25 * US, BODY, 1);
	sys(&tl, t0 + 500 * US, NT_CALL_READ_REPLY, t0 + 40 * US, REPLY, 1);
	assemble(&tl, &s1, r);
	assert_int_equal(r[0].start_ns, t0);
	assert_int_equal(r[0].end_ns, t0 + 500 * US);
	assert_int_equal(r[0].rtt_ns, 500 * US);
	assert_int_equal(r[0].events, 4);
	nt_timeline_fini(&tl);
}

/* what this checks: data, pure ACKs and RST outside every round go to teardown */
static void test_outside_rounds(void **state)
{
	struct nt_timeline tl = { 0 };
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };

	(void)state;
	seg(&tl, 1, NT_DIR_C2T, PA, req_end(1), 1, 5);		   /* 0: client data past round 1 */
	seg(&tl, 2, NT_DIR_T2C, PA, reply_end(1), 1, 3);	   /* 1: target data past reply 1 */
	seg(&tl, 3, NT_DIR_T2C, NT_TCP_ACK, 1, req_end(1) + 5, 0); /* 2: acks bytes of no round */
	seg(&tl, 4, NT_DIR_C2T, NT_TCP_RST | NT_TCP_ACK, 18, 1, 0); /* 3 */
	seg(&tl, 5, NT_DIR_T2C, NT_TCP_ACK, 1, 1, 0);		    /* 4: acks nothing yet */
	classify(&tl, &s1);
	assert_event(&tl, 0, NT_ROLE_DATA, NT_ROUND_TEARDOWN);
	assert_event(&tl, 1, NT_ROLE_DATA, NT_ROUND_TEARDOWN);
	assert_event(&tl, 2, NT_ROLE_PURE_ACK, NT_ROUND_TEARDOWN);
	assert_event(&tl, 3, NT_ROLE_RST, NT_ROUND_TEARDOWN);
	/* a target pure ACK of nothing is the handshake's, but never a handshake-ack */
	assert_event(&tl, 4, NT_ROLE_PURE_ACK, NT_ROUND_HANDSHAKE);
	nt_timeline_fini(&tl);
}

/* what this checks: after a FIN, a client pure ACK of nothing is teardown, not handshake */
static void test_ack_after_fin_is_teardown(void **state)
{
	struct nt_timeline tl = { 0 };
	const struct nt_shape s1 = { HDR, BODY, REPLY, 1 };

	(void)state;
	seg(&tl, 1, NT_DIR_C2T, NT_TCP_FIN | NT_TCP_ACK, 1, 1, 0);
	seg(&tl, 2, NT_DIR_C2T, NT_TCP_ACK, 2, 1, 0);
	classify(&tl, &s1);
	assert_event(&tl, 0, NT_ROLE_FIN, NT_ROUND_TEARDOWN);
	assert_event(&tl, 1, NT_ROLE_PURE_ACK, NT_ROUND_TEARDOWN);
	nt_timeline_fini(&tl);
}

/* what this checks: the summary of the default exchange: counts, nearest-rank p50/p90/max, stalls */
static void test_summarize_default(void **state)
{
	struct nt_timeline tl = { 0 };
	struct nt_round r[4];
	struct nt_summary s;

	(void)state;
	default_exchange(&tl);
	assemble(&tl, &shape4, r);
	memset(&s, 0x5a, sizeof(s));
	assert_int_equal(summarize(r, 4, &s), 0);
	assert_int_equal(s.rounds, 4);
	assert_int_equal(s.verdicts[NT_VERDICT_HELD], 1);
	assert_int_equal(s.verdicts[NT_VERDICT_STALLED], 3);
	assert_int_equal(s.verdicts[NT_VERDICT_UNHELD], 0);
	assert_int_equal(s.verdicts[NT_VERDICT_COALESCED], 0);
	assert_int_equal(s.verdicts[NT_VERDICT_INCOMPLETE], 0);
	/* round trips 230 us, 44.09, 40.29, 41.19 ms: rank 2 of 4 and rank 4 of 4 */
	assert_int_equal(s.rtt_p50_ns, 40290000);
	assert_int_equal(s.rtt_p90_ns, 44090000);
	assert_int_equal(s.rtt_max_ns, 44090000);
	assert_int_equal(s.stall_min_ns, 40100000);
	assert_int_equal(s.stall_max_ns, 43900000);
	assert_int_equal(s.client_data_segments, 8);
	nt_timeline_fini(&tl);
}

/* what this checks: summary of hand-made rounds: unknown round trips skipped, 11 samples */
static void test_summarize_hand_made(void **state)
{
	struct nt_round r[12];
	struct nt_summary s;

	(void)state;
	memset(r, 0, sizeof(r));
	for (unsigned i = 0; i < 12; i++) {
		r[i].index = i + 1;
		/* 11, 10, ..., 1 ms; the last has none */
		r[i].rtt_ns = i < 11 ? (int64_t)(11 - i) * MS : -1;
		r[i].verdict = NT_VERDICT_HELD;
		r[i].gap_ns = 100 * US;
		r[i].client_data_segments = 2;
	}
	r[3].verdict = NT_VERDICT_STALLED;
	r[3].gap_ns = 42 * MS;
	r[7].verdict = NT_VERDICT_STALLED;
	r[7].gap_ns = 39 * MS;
	r[11].verdict = NT_VERDICT_INCOMPLETE;
	assert_int_equal(summarize(r, 12, &s), 0);
	assert_int_equal(s.rounds, 12);
	assert_int_equal(s.verdicts[NT_VERDICT_HELD], 9);
	assert_int_equal(s.verdicts[NT_VERDICT_STALLED], 2);
	assert_int_equal(s.verdicts[NT_VERDICT_INCOMPLETE], 1);
	/* 11 samples 1..11 ms: p50 rank 6, p90 rank 10 */
	assert_int_equal(s.rtt_p50_ns, 6 * MS);
	assert_int_equal(s.rtt_p90_ns, 10 * MS);
	assert_int_equal(s.rtt_max_ns, 11 * MS);
	assert_int_equal(s.stall_min_ns, 39 * MS);
	assert_int_equal(s.stall_max_ns, 42 * MS);
	assert_int_equal(s.client_data_segments, 24);
}

/* what this checks: 100 round trips of 1..100 ms: p50 rank 50, p90 rank 90, max 100 */
static void test_summarize_hundred(void **state)
{
	static struct nt_round r[100];
	struct nt_summary s;

	(void)state;
	memset(r, 0, sizeof(r));
	for (unsigned i = 0; i < 100; i++) {
		/* in reverse, so the summary has to sort */
		r[i].index = i + 1;
		r[i].rtt_ns = (int64_t)(100 - i) * MS;
		r[i].gap_ns = -1;
		r[i].verdict = NT_VERDICT_COALESCED;
	}
	assert_int_equal(summarize(r, 100, &s), 0);
	assert_int_equal(s.verdicts[NT_VERDICT_COALESCED], 100);
	assert_int_equal(s.rtt_p50_ns, 50 * MS);
	assert_int_equal(s.rtt_p90_ns, 90 * MS);
	assert_int_equal(s.rtt_max_ns, 100 * MS);
	assert_int_equal(s.stall_min_ns, -1);
	assert_int_equal(s.stall_max_ns, -1);
}

/* what this checks: no rounds, or no round trip and no stall known: -1 everywhere */
static void test_summarize_nothing_known(void **state)
{
	struct nt_round r[2];
	struct nt_summary s;

	(void)state;
	assert_int_equal(summarize(NULL, 0, &s), 0);
	assert_int_equal(s.rounds, 0);
	assert_int_equal(s.rtt_p50_ns, -1);
	assert_int_equal(s.rtt_p90_ns, -1);
	assert_int_equal(s.rtt_max_ns, -1);
	assert_int_equal(s.stall_min_ns, -1);
	assert_int_equal(s.stall_max_ns, -1);
	memset(r, 0, sizeof(r));
	r[0].rtt_ns = r[1].rtt_ns = -1;
	r[0].verdict = r[1].verdict = NT_VERDICT_INCOMPLETE;
	assert_int_equal(summarize(r, 2, &s), 0);
	assert_int_equal(s.rounds, 2);
	assert_int_equal(s.verdicts[NT_VERDICT_INCOMPLETE], 2);
	assert_int_equal(s.rtt_p50_ns, -1);
	assert_int_equal(s.rtt_max_ns, -1);
	assert_int_equal(s.stall_min_ns, -1);
}

static void set_verdicts(struct nt_round *r, unsigned n, const enum nt_verdict *v)
{
	memset(r, 0, n * sizeof(*r));
	for (unsigned i = 0; i < n; i++) {
		r[i].index = i + 1;
		r[i].verdict = v[i];
	}
}

/* Checks @e on @n rounds of verdicts @v: met, or not met with exactly @reason. */
static void check(enum nt_expect e, const enum nt_verdict *v, unsigned n, const char *reason)
{
	struct nt_round r[8];
	char buf[128] = "";

	assert_true(n <= 8);
	set_verdicts(r, n, v);
	if (!reason) {
		assert_true(expect_all(e, r, n, buf, sizeof(buf)));
		return;
	}
	assert_false(expect_all(e, r, n, buf, sizeof(buf)));
	assert_string_equal(buf, reason);
}

#define H NT_VERDICT_HELD
#define S NT_VERDICT_STALLED
#define U NT_VERDICT_UNHELD
#define C NT_VERDICT_COALESCED
#define I NT_VERDICT_INCOMPLETE

/* what this checks: expect stalled: round 1 not stalled nor incomplete, 2..N stalled */
static void test_expect_stalled(void **state)
{
	(void)state;
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ H, S, S, S }, 4, NULL);
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ C, S, S }, 3, NULL);
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ U, S }, 2, NULL);
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ S, S, S, S }, 4,
	      "round 1 was stalled, expected a fast first round (not stalled)");
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ I, S, S, S }, 4,
	      "round 1 was incomplete, expected a fast first round (not stalled)");
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ H, S, H, S }, 4,
	      "round 3 was held, expected stalled");
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ H, I, S, S }, 4,
	      "round 2 was incomplete, expected stalled");
	/* the first failing round is named */
	check(NT_EXPECT_STALLED, (enum nt_verdict[]){ H, S, U, C }, 4,
	      "round 3 was unheld, expected stalled");
}

/* what this checks: expect held/unheld/coalesced: round 1 unchecked, 2..N must match */
static void test_expect_others(void **state)
{
	(void)state;
	check(NT_EXPECT_HELD, (enum nt_verdict[]){ S, H, H, H }, 4, NULL);
	check(NT_EXPECT_HELD, (enum nt_verdict[]){ I, H }, 2, NULL);
	check(NT_EXPECT_HELD, (enum nt_verdict[]){ H, H, S, H }, 4,
	      "round 3 was stalled, expected held");
	check(NT_EXPECT_UNHELD, (enum nt_verdict[]){ S, U, U, U }, 4, NULL);
	check(NT_EXPECT_UNHELD, (enum nt_verdict[]){ U, U, U, H }, 4,
	      "round 4 was held, expected unheld");
	check(NT_EXPECT_COALESCED, (enum nt_verdict[]){ I, C, C, C }, 4, NULL);
	check(NT_EXPECT_COALESCED, (enum nt_verdict[]){ C, I, C, C }, 4,
	      "round 2 was incomplete, expected coalesced");
	/* one round: only the warm-up, met */
	check(NT_EXPECT_HELD, (enum nt_verdict[]){ S }, 1, NULL);
}

/* what this checks: expect any is met whatever the verdicts */
static void test_expect_any(void **state)
{
	(void)state;
	check(NT_EXPECT_ANY, (enum nt_verdict[]){ S, I, U, C, H }, 5, NULL);
	check(NT_EXPECT_ANY, (enum nt_verdict[]){ I }, 1, NULL);
}

/* what this checks: the worded reason is cut to the buffer given, NUL-terminated */
static void test_expect_reason_truncated(void **state)
{
	struct nt_round r[2];
	char buf[8];

	(void)state;
	set_verdicts(r, 2, (enum nt_verdict[]){ H, H });
	memset(buf, 'x', sizeof(buf));
	assert_false(expect_all(NT_EXPECT_STALLED, r, 2, buf, sizeof(buf)));
	assert_string_equal(buf, "round 2");
}

/* A prediction accepting @verdicts (bits), most likely @v, decided by @rule. */
static struct nt_predict_round predicted(unsigned verdicts, enum nt_verdict v,
					 enum nt_predict_rule rule)
{
	struct nt_predict_round p;

	memset(&p, 0, sizeof(p));
	p.verdicts = verdicts;
	p.verdict = v;
	p.verdict_why.rule = rule;
	return p;
}

/* what this checks: expect auto: every round, round 1 included, within the predicted set */
static void test_expect_auto(void **state)
{
	struct nt_predict_round stall =
		predicted(NT_PREDICT_VERDICT_BIT(S), S, NT_RULE_VERDICT_STALL);
	struct nt_predict_round either = predicted(
		NT_PREDICT_VERDICT_BIT(S) | NT_PREDICT_VERDICT_BIT(H), S, NT_RULE_VERDICT_STALL);
	struct nt_predict_round held =
		predicted(NT_PREDICT_VERDICT_BIT(H), H, NT_RULE_VERDICT_PROMPT_ACK);
	struct nt_round r[1];
	struct nt_expect_why why;
	char buf[128] = "";

	(void)state;
	set_verdicts(r, 1, (enum nt_verdict[]){ S });
	assert_true(nt_expect_round(NT_EXPECT_AUTO, &r[0], &stall, &why));
	assert_true(nt_expect_round(NT_EXPECT_AUTO, &r[0], &either, &why));
	/* round 1 is checked too: the model knows the quick-ACK budget */
	assert_false(nt_expect_round(NT_EXPECT_AUTO, &r[0], &held, &why));
	assert_int_equal(why.miss, NT_EXPECT_MISS_PREDICTED);
	assert_int_equal(why.round, 1);
	assert_int_equal(why.measured, S);
	assert_int_equal(why.wanted, H);
	assert_int_equal(why.rule, NT_RULE_VERDICT_PROMPT_ACK);
	assert_string_equal(nt_label_expectation(&why, buf, sizeof(buf)),
			    "round 1 was stalled, the model predicted held (verdict_prompt_ack)");
	/* no prediction: nothing was checked, which is not a pass */
	assert_false(nt_expect_round(NT_EXPECT_AUTO, &r[0], NULL, &why));
	assert_int_equal(why.miss, NT_EXPECT_MISS_UNPREDICTED);
	assert_string_equal(nt_label_expectation(&why, buf, sizeof(buf)),
			    "round 1 has no prediction to check");
	/* the named expectations ignore a prediction */
	assert_true(nt_expect_round(NT_EXPECT_ANY, &r[0], &held, &why));
}

/* what this checks: expectation names parse and print, unknown ones are -EINVAL */
static void test_expect_names(void **state)
{
	static const char *const names[] = {
		"auto", "stalled", "held", "unheld", "coalesced", "any"
	};
	enum nt_expect e;

	(void)state;
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(nt_expect_parse(names[i], &e), 0);
		assert_int_equal(e, (enum nt_expect)i);
		assert_string_equal(nt_expect_name(e), names[i]);
	}
	assert_int_equal(nt_expect_parse("incomplete", &e), -EINVAL);
	assert_int_equal(nt_expect_parse("", &e), -EINVAL);
	assert_int_equal(nt_expect_parse("Stalled", &e), -EINVAL);
	assert_string_equal(nt_expect_name((enum nt_expect)6), "?");
}

/* The run under test: freed by run_teardown() even when an assertion fails. */
static struct nt_record the_run;

static struct nt_record *run_setup(enum nt_expect e)
{
	struct nt_record *run = &the_run;

	memset(run, 0, sizeof(*run));
	run->cfg.variant = "default";
	run->cfg.shape = shape4;
	run->cfg.threshold_ns = THRESHOLD;
	run->cfg.expect = e;
	default_exchange(&run->tl);
	return run;
}

static int run_teardown(void **state)
{
	(void)state;
	nt_record_fini(&the_run);
	return 0;
}

/* what this checks: a clean default run meets "stalled", with no reason */
static void test_run_finish_met(void **state)
{
	struct nt_record *run = run_setup(NT_EXPECT_STALLED);

	(void)state;
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_int_equal(run->retired, 4);
	assert_int_equal(run->summary.rounds, 4);
	assert_int_equal(run->summary.verdicts[NT_VERDICT_STALLED], 3);
	assert_int_equal(run->summary.n_stalls, 3);
	assert_int_equal(run->summary.stalls[0].round, 2);
	assert_false(run->uncertain);
	assert_true(run->expectation_met);
	assert_string_equal(reason_of(run), "");
	/* the events were handed over and freed: nothing of the run's length is kept */
	assert_int_equal(run->tl.n, 0);
	assert_null(run->tl.ev);
	/* a finished run has nothing left to hand over: finishing again is refused */
	assert_int_equal(nt_record_finish(run, NULL), -EALREADY);
	assert_int_equal(run->summary.rounds, 4);
	nt_record_fini(run);
	assert_null(run->scratch);
	assert_null(run->acc.rtt);
}

/* The delay line forwarded every client segment @ctx ns late, the target's on time. */
static int64_t client_side_late(const void *ctx, const struct nt_segment *seg)
{
	return seg->dir == NT_DIR_C2T ? *(const int64_t *)ctx : 0;
}

/*
 * A --rtt 10 exchange at the client: round 1's quick ACK reached the client
 * 24 ms after the header (the delay line forwarded the header 14 ms late),
 * rounds 2..4 stalled (the delayed ACK plus the RTT, the headers as late).
 */
/* An empty record of a default --rtt 10 trace, captured at @capture_at. */
static struct nt_record *rtt10_record(enum nt_expect expect, const char *capture_at)
{
	struct nt_record *run = &the_run;

	memset(run, 0, sizeof(*run));
	run->cfg.variant = "default";
	run->cfg.shape = shape4;
	run->cfg.threshold_ns = THRESHOLD;
	run->cfg.expect = expect;
	run->cfg.rtt_ns = 10 * MS;
	run->cfg.capture_at = capture_at;
	return run;
}

static struct nt_record *late_path_setup(const int64_t *late_ns, const char *capture_at)
{
	struct nt_record *run = rtt10_record(NT_EXPECT_ANY, capture_at);
	int64_t reply;

	if (late_ns) {
		run->segment_late = client_side_late;
		run->segment_late_ctx = late_ns;
	}
	handshake(&run->tl);
	nagle_round(&run->tl, 1, 24 * MS, PLAIN);
	nagle_round(&run->tl, 2, 53900 * US, PLAIN);
	nagle_round(&run->tl, 3, 50100 * US, PLAIN);
	reply = nagle_round(&run->tl, 4, 51000 * US, PLAIN);
	final_ack(&run->tl, 4, reply);
	teardown(&run->tl, 4, 500 * MS);
	return run;
}

/*
 * what this checks: a live run takes the delay line's measured lateness of
 * H and A off H -> A at the client (round 1 held, the delayed ACKs still
 * stalled); not when the lateness is unknown or there is no delay line's
 * measure, and not at the target, where H is captured after the delay line
 * and A before it
 */
static void test_run_late_path(void **state)
{
	static const int64_t late14 = 14 * MS, late4 = 4 * MS, unknown = -1;
	static const struct {
		const int64_t *late_ns;
		const char *at;
		unsigned stalled;
	} cases[] = {
		{ &late14, "client", 3 },  { &late14, NULL, 3 },  { &late4, "client", 4 },
		{ &unknown, "client", 4 }, { NULL, "client", 4 }, { &late14, "target", 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nt_record *run = late_path_setup(cases[i].late_ns, cases[i].at);

		assert_int_equal(nt_record_finish(run, NULL), 0);
		assert_int_equal(run->summary.verdicts[NT_VERDICT_STALLED], cases[i].stalled);
		assert_int_equal(run->summary.verdicts[NT_VERDICT_HELD], 4 - cases[i].stalled);
		nt_record_fini(run);
	}
}

/*
 * Four predicted two-write rounds, each beginning as the last reply is read,
 * as the exchange does; @gap_ns: each round's H -> A. Then the run's end.
 */
static void predicted_rounds(struct nt_record *run, const struct nt_predict_knobs *k,
			     const int64_t gap_ns[4])
{
	struct nt_err err = { { 0 } };
	int64_t reply = 2 * MS - 40 * US;

	assert_int_equal(nt_record_predict(run, k, &err), 0);
	handshake(&run->tl);
	for (unsigned i = 0; i < 4; i++)
		reply = nagle_round_at(&run->tl, i + 1, reply + 40 * US, gap_ns[i], PLAIN);
	final_ack(&run->tl, 4, reply);
	teardown(&run->tl, 4, 500 * MS);
}

/* Round 2's H and A forwarded late (ctx: their lateness), every other segment on time. */
static int64_t round2_late(const void *ctx, const struct nt_segment *seg)
{
	const int64_t *late = ctx;

	if (seg->dir == NT_DIR_C2T && seg->seq_rel == hdr_seq(2) && seg->payload_bytes == HDR)
		return late[0];
	if (seg->dir == NT_DIR_T2C && seg->ack_rel == body_seq(2) && !seg->payload_bytes)
		return late[1];
	return 0;
}

/*
 * what this checks: the model judges a round on the delay line's lateness of
 * its own segments. Round 2 of a --rtt 10 trace in a throttled cgroup: the
 * forwarder released H 21.9 ms and A 17.6 ms late, so H -> A was 91.5 ms,
 * the target's own delay (less the RTT and that lateness) 42 ms: stalled.
 * The lateness since the rounds were last handed over (run->path_late_ns)
 * is the next round's when round 2 is retired, here none; judged on it the
 * model kept A on time, H -> A at most 58.7 ms, under the 59.5 ms the
 * verdict allows once the lateness is taken off: "held", a false NOT met.
 */
static void test_run_predicts_on_own_lateness(void **state)
{
	static const int64_t late[2] = { 21925374, 17559963 };
	static const int64_t gap[4] = { 10040 * US, 91450 * US, 50400 * US, 53600 * US };
	struct nt_record *run = rtt10_record(NT_EXPECT_AUTO, "client");
	struct nt_predict_knobs k;

	(void)state;
	run->segment_late = round2_late;
	run->segment_late_ctx = late;
	nt_predict_knobs_default(&k);
	k.rtt_ns = run->cfg.rtt_ns;
	k.threshold_ns = THRESHOLD;
	predicted_rounds(run, &k, gap);
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_int_equal(run->summary.verdicts[NT_VERDICT_STALLED], 3);
	assert_int_equal(run->predict_misses, 0);
	assert_true(run->expectation_met);
	nt_record_fini(run);
}

/*
 * what this checks: --expect auto with --threshold 50, where the model holds
 * rounds 2..4 (the delayed-ACK timer's H -> A, 40-48.25 ms, is under the
 * threshold): round 3's timer fired 59.7 ms after its header, as one did in
 * CI, and made it a stall. That is the host's lateness, not the kernel's
 * rules: the round is met, named disturbed (timer), and counted as such;
 * rounds 2 and 4, on time, are held as predicted (without the rule, round 3
 * is a miss and the expectation fails)
 */
static void test_run_late_timer(void **state)
{
	static const int64_t gap[4] = { 40 * US, 43700 * US, 59733 * US, 43700 * US };
	struct nt_record *run = &the_run;
	struct nt_predict_knobs k;

	(void)state;
	memset(run, 0, sizeof(*run));
	run->cfg.variant = "default";
	run->cfg.shape = shape4;
	run->cfg.threshold_ns = 50 * MS;
	run->cfg.expect = NT_EXPECT_AUTO;
	nt_predict_knobs_default(&k);
	k.threshold_ns = run->cfg.threshold_ns;
	predicted_rounds(run, &k, gap);
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_int_equal(run->summary.verdicts[NT_VERDICT_HELD], 3);
	assert_int_equal(run->summary.verdicts[NT_VERDICT_STALLED], 1);
	assert_int_equal(run->predict_misses, 0);
	assert_int_equal(run->disturbed_rounds, 1);
	assert_true(run->expectation_met);
	nt_record_fini(run);
}

/* what this checks: a failed expectation without drops: not met, its own reason, certain */
static void test_run_finish_not_met(void **state)
{
	struct nt_record *run = run_setup(NT_EXPECT_HELD);

	(void)state;
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_false(run->uncertain);
	assert_false(run->expectation_met);
	assert_string_equal(reason_of(run), "round 2 was stalled, expected held");
}

/* what this checks: kernel drops make the run uncertain and the expectation not met */
static void test_run_finish_kernel_dropped(void **state)
{
	struct nt_record *run = run_setup(NT_EXPECT_STALLED);

	(void)state;
	run->counts.kernel_dropped = 3;
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_true(run->uncertain);
	assert_false(run->expectation_met);
	assert_string_equal(reason_of(run), "the capture dropped 3 frames: verdicts are uncertain");
	/* the verdicts themselves are still reported */
	assert_int_equal(run->summary.verdicts[NT_VERDICT_STALLED], 3);
}

/* what this checks: interface drops count too, added to kernel drops */
static void test_run_finish_if_dropped(void **state)
{
	struct nt_record *run = run_setup(NT_EXPECT_STALLED);

	(void)state;
	run->counts.kernel_dropped = 3;
	run->counts.if_dropped = 2;
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_true(run->uncertain);
	assert_false(run->expectation_met);
	assert_string_equal(reason_of(run), "the capture dropped 5 frames: verdicts are uncertain");
}

/* what this checks: with drops the uncertainty is the reason, even when the expectation failed */
static void test_run_finish_failed_and_dropped(void **state)
{
	struct nt_record *run = run_setup(NT_EXPECT_HELD);

	(void)state;
	run->counts.kernel_dropped = 1;
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_true(run->uncertain);
	assert_false(run->expectation_met);
	assert_string_equal(reason_of(run), "the capture dropped 1 frame: verdicts are uncertain");
}

/* what this checks: an interrupted run never meets its expectation, and says so last */
static void test_run_finish_interrupted(void **state)
{
	struct nt_record *run = run_setup(NT_EXPECT_STALLED);

	(void)state;
	run->interrupted = true;
	run->counts.kernel_dropped = 2;
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_true(run->uncertain);
	assert_false(run->expectation_met);
	assert_string_equal(reason_of(run), "the run was interrupted");
	assert_int_equal(run->summary.rounds, 4);
}

/* what this checks: an interrupted run is summarized over the rounds that began only */
static void test_run_finish_interrupted_partial(void **state)
{
	struct nt_record *run = &the_run;

	(void)state;
	memset(run, 0, sizeof(*run));
	run->cfg.shape = shape4;
	run->cfg.threshold_ns = THRESHOLD;
	run->cfg.expect = NT_EXPECT_STALLED;
	run->interrupted = true;
	handshake(&run->tl);
	nagle_round(&run->tl, 1, 40 * US, PLAIN);
	nagle_round(&run->tl, 2, 43900 * US, PLAIN);
	assert_int_equal(nt_record_finish(run, NULL), 0);
	assert_int_equal(run->summary.rounds, 2);
	assert_int_equal(run->summary.verdicts[NT_VERDICT_HELD], 1);
	assert_int_equal(run->summary.verdicts[NT_VERDICT_STALLED], 1);
	assert_int_equal(run->summary.verdicts[NT_VERDICT_INCOMPLETE], 0);
	assert_false(run->expectation_met);
	assert_string_equal(reason_of(run), "the run was interrupted");
}

/* what this checks: nt_record_fini() on a zeroed run is safe, twice */
static void test_run_fini_zeroed(void **state)
{
	struct nt_record run;

	(void)state;
	memset(&run, 0, sizeof(run));
	nt_record_fini(&run);
	nt_record_fini(&run);
	assert_null(run.scratch);
	assert_null(run.tl.ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assign_default_exchange),
		cmocka_unit_test(test_ack_rides_on_next_header),
		cmocka_unit_test(test_late_pure_ack_stays_in_its_round),
		cmocka_unit_test(test_stalled_round_values),
		cmocka_unit_test(test_default_exchange_verdicts),
		cmocka_unit_test(test_retransmitted_header),
		cmocka_unit_test(test_missing_body_incomplete),
		cmocka_unit_test(test_coalesced_round),
		cmocka_unit_test(test_unheld_round),
		cmocka_unit_test(test_ack_covers_header_and_body),
		cmocka_unit_test(test_a_is_first_ack),
		cmocka_unit_test(test_a_with_data_incomplete),
		cmocka_unit_test(test_body_written_after_ack_held),
		cmocka_unit_test(test_body_written_after_slow_ack_unheld),
		cmocka_unit_test(test_split_body),
		cmocka_unit_test(test_split_header),
		cmocka_unit_test(test_retransmitted_body),
		cmocka_unit_test(test_partial_header_ack_is_not_a),
		cmocka_unit_test(test_start_is_first_write),
		cmocka_unit_test(test_outside_rounds),
		cmocka_unit_test(test_ack_after_fin_is_teardown),
		cmocka_unit_test(test_summarize_default),
		cmocka_unit_test(test_summarize_hand_made),
		cmocka_unit_test(test_summarize_hundred),
		cmocka_unit_test(test_summarize_nothing_known),
		cmocka_unit_test(test_expect_stalled),
		cmocka_unit_test(test_expect_others),
		cmocka_unit_test(test_expect_any),
		cmocka_unit_test(test_expect_auto),
		cmocka_unit_test(test_expect_reason_truncated),
		cmocka_unit_test(test_expect_names),
		cmocka_unit_test_teardown(test_run_finish_met, run_teardown),
		cmocka_unit_test_teardown(test_run_finish_not_met, run_teardown),
		cmocka_unit_test_teardown(test_run_finish_kernel_dropped, run_teardown),
		cmocka_unit_test_teardown(test_run_finish_if_dropped, run_teardown),
		cmocka_unit_test_teardown(test_run_late_path, run_teardown),
		cmocka_unit_test_teardown(test_run_predicts_on_own_lateness, run_teardown),
		cmocka_unit_test_teardown(test_run_late_timer, run_teardown),
		cmocka_unit_test_teardown(test_run_finish_failed_and_dropped, run_teardown),
		cmocka_unit_test_teardown(test_run_finish_interrupted, run_teardown),
		cmocka_unit_test_teardown(test_run_finish_interrupted_partial, run_teardown),
		cmocka_unit_test(test_run_fini_zeroed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
