// SPDX-License-Identifier: MIT
/*
 * test_stall.c - the stall-episode rule (nt_stall_feed()) on synthetic
 * segment sequences: each test is a tiny tcpdump-like script of segments
 * with times in microseconds, fed in order, and the episodes it produced.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/model/stall.h"
#include "nt/model/tcp.h"
#include "nt/unknown.h"

#define C  NT_DIR_C2T
#define T  NT_DIR_T2C
#define US 1000LL
#define MS 1000000LL
#define PA (NT_TCP_PSH | NT_TCP_ACK)
#define A  NT_TCP_ACK

static const struct nt_stall_params params = {
	.threshold_ns = 10 * MS,
	.release_ns = 1000 * US,
};

struct script {
	struct nt_stall_tracker tr;
	struct nt_stall_episode ep[8];
	unsigned n_ep;
	uint64_t frame;
	struct nt_frame_note note; /* the next segment's notes from a -w file, then none */
};

static void start(struct script *s, int family)
{
	memset(s, 0, sizeof(*s));
	nt_stall_init(&s->tr, family);
}

/* One segment: time in µs, direction, flags, seq, ack, length (and SYN MSS). */
static void seg_opt(struct script *s, int64_t t_us, enum nt_dir dir, uint8_t flags, uint32_t seq,
		    uint32_t ack, uint32_t len, uint16_t mss, bool ts)
{
	struct nt_stall_seg seg = {
		.t_ns = t_us * US,
		.note = s->note,
		.dir = dir,
		.flags = flags,
		.seq = seq,
		.ack = ack,
		.len = len,
		.mss_opt = mss,
		.has_ts = ts,
		.frame_index = ++s->frame,
	};
	struct nt_stall_episode ep;

	s->note = (struct nt_frame_note){ 0 };
	if (nt_stall_feed(&s->tr, &params, &seg, &ep) == 1) {
		assert_true(s->n_ep < 8);
		s->ep[s->n_ep++] = ep;
	}
}

static void seg_mss(struct script *s, int64_t t_us, enum nt_dir dir, uint8_t flags, uint32_t seq,
		    uint32_t ack, uint32_t len, uint16_t mss)
{
	seg_opt(s, t_us, dir, flags, seq, ack, len, mss, false);
}

static void seg(struct script *s, int64_t t_us, enum nt_dir dir, uint8_t flags, uint32_t seq,
		uint32_t ack, uint32_t len)
{
	seg_mss(s, t_us, dir, flags, seq, ack, len, 0);
}

/* Client side of a handshake, client ISN 1000, target ISN 5000, MSS 1460 both ways. */
static void handshake(struct script *s, int64_t synack_us, int64_t ack_us)
{
	seg_mss(s, 0, C, NT_TCP_SYN, 1000, 0, 0, 1460);
	seg_mss(s, synack_us, T, NT_TCP_SYN | NT_TCP_ACK, 5000, 1001, 0, 1460);
	seg(s, ack_us, C, A, 1001, 5001, 0);
}

/* client: write(4) write(8), seen at the client: H, 40 ms, ACK, 20 µs, body */
static void test_clean_stall(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1005, 0);
	seg(&s, 41020, C, PA, 1005, 5001, 8);
	seg(&s, 41100, T, PA, 5001, 1013, 2);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].dir, C);
	assert_int_equal(s.ep[0].delack, NT_DELACK_MIN);
	assert_int_equal(s.ep[0].held_len, 4);
	assert_int_equal(s.ep[0].ack_delay_ns, 40 * MS);
	assert_int_equal(s.ep[0].release_gap_ns, 20 * US);
	assert_int_equal(s.ep[0].stall_ns, 40 * MS + 20 * US);
	assert_int_equal(s.ep[0].held_frame, 4);
	assert_int_equal(s.ep[0].ack_frame, 5);
	assert_int_equal(s.ep[0].release_frame, 6);
}

/*
 * what this checks: the delay line's lateness a -w file notes on H and A is
 * taken off the ACK delay, as the live rule takes it (nt_verdict_ack_slow()):
 * a 14 ms gap, 8 + 5 ms of it the line's, is a prompt ACK; a 50 ms gap with
 * 5 + 3 ms is still a stall, of the 40 ms timer, and says what was taken off.
 */
static void test_late_path_noted(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	s.note.late_ns = 8 * MS;
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	s.note.late_ns = 5 * MS;
	seg(&s, 15000, T, A, 5001, 1005, 0);
	seg(&s, 15020, C, PA, 1005, 5001, 8);
	seg(&s, 15100, T, PA, 5001, 1013, 2);
	assert_int_equal(s.n_ep, 0);
	s.note.late_ns = 5 * MS;
	seg(&s, 20000, C, PA, 1013, 5003, 4);
	s.note.late_ns = 3 * MS;
	seg(&s, 70000, T, A, 5003, 1017, 0);
	seg(&s, 70020, C, PA, 1017, 5003, 8);
	seg(&s, 70100, T, PA, 5003, 1025, 2);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].ack_delay_ns, 50 * MS);
	assert_int_equal(s.ep[0].ack_late_ns, 8 * MS);
	assert_int_equal(s.ep[0].delack, NT_DELACK_MIN);
}

/* what this checks: a clean stall is surely lost whole: no answer, lower bound = R - H */
static void test_no_answer_bounds(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1005, 0);
	seg(&s, 41020, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].answer_frame, 0);
	assert_int_equal(s.ep[0].answer_t_ns, NT_UNKNOWN);
	assert_int_equal(s.ep[0].lost_min_ns, s.ep[0].stall_ns);
}

/*
 * what this checks: ssh's key exchange: the client's small segment waits for
 * the server's late ACK, but the server's own data crossed it (not acking it)
 * 20 ms in, and the client's next data may answer that data: 38-58 ms lost.
 */
static void test_answer_bounds(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 48);	 /* H, frame 4 */
	seg(&s, 20900, T, PA, 5001, 1001, 1392); /* the server's data, not acking H: frame 5 */
	seg(&s, 59000, T, A, 6393, 1049, 0);	 /* the late pure ACK of H */
	seg(&s, 59100, C, PA, 1049, 6393, 100);	 /* R */
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].stall_ns, 58100 * US);
	assert_int_equal(s.ep[0].answer_frame, 5);
	assert_int_equal(s.ep[0].answer_t_ns, 20900 * US);
	assert_int_equal(s.ep[0].lost_min_ns, 38200 * US);
}

/* what this checks: data acknowledging H ends the wait: no episode, no answer kept for later */
static void test_data_ack_is_no_answer(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 21000, T, PA, 5001, 1005, 10); /* acks H with data: the wait is over */
	seg(&s, 21100, C, PA, 1005, 5011, 8);  /* a new H */
	seg(&s, 62000, T, A, 5011, 1013, 0);
	seg(&s, 62020, C, PA, 1013, 5011, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].held_frame, 6);
	assert_int_equal(s.ep[0].answer_frame, 0);
	assert_int_equal(s.ep[0].lost_min_ns, s.ep[0].stall_ns);
}

/* Nagle held the body but the ACK came at once: held, not stalled. */
static void test_prompt_ack(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 1050, T, A, 5001, 1005, 0);
	seg(&s, 1060, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 0);
}

/* The ACK was late but the next data left 60 ms after it: application think time. */
static void test_think_time(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1005, 0);
	seg(&s, 101000, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_THINK_TIME);
}

/*
 * what this checks: a -w file's note of when R's write returned decides
 * whether R waited for the ACK (nt_verdict_waited()), the window does not:
 * written before the ACK and sent 2.5 ms after it (a sender that processed
 * the ACK late) is a stall; written after it and sent 0.3 ms after it is
 * think time; written before the ACK, R answers no data the peer sent with
 * the ACK. Without the note the 2.5 ms R is think time (1 ms window).
 */
static void test_write_noted(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1005, 0);
	s.note = (struct nt_frame_note){ .write_lead_ns = 43400 * US, .has_write = true };
	seg(&s, 43500, C, PA, 1005, 5001, 8); /* written at 100 us, left 2.5 ms after the ACK */
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].written_t_ns, 100 * US);
	assert_int_equal(s.ep[0].release_gap_ns, 2500 * US);
	assert_true(s.ep[0].release_gap_ns > s.ep[0].window_ns);

	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1005, 0);
	s.note = (struct nt_frame_note){ .write_lead_ns = -20 * US, .has_write = true };
	seg(&s, 41300, C, PA, 1005, 5001, 8); /* written at 41.32 ms: after the ACK */
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_THINK_TIME);
	assert_int_equal(s.ep[0].written_t_ns, 41320 * US);

	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 300);
	seg(&s, 41000, T, A, 5001, 1301, 0);
	seg(&s, 41300, T, PA, 5001, 1301, 1200); /* the peer's data after the ACK */
	s.note = (struct nt_frame_note){ .write_lead_ns = 40500 * US, .has_write = true };
	seg(&s, 41500, C, PA, 1301, 6201, 126); /* but R was written at 1 ms */
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);

	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1005, 0);
	seg(&s, 43500, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_THINK_TIME);
	assert_int_equal(s.ep[0].written_t_ns, NT_UNKNOWN);
}

/* H retransmitted by an RTO before the ACK: loss, not Nagle. */
static void test_retransmission(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 201000, C, PA, 1001, 5001, 4); /* RTO */
	seg(&s, 201100, T, A, 5001, 1005, 0);
	seg(&s, 201120, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 0);

	/* A retransmitted segment never becomes H, even when only it is then in flight. */
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 1100, C, PA, 1005, 5001, 4);
	seg(&s, 300000, C, PA, 1005, 5001, 4); /* retransmits the second */
	seg(&s, 350000, T, A, 5001, 1009, 0);
	seg(&s, 350010, C, PA, 1009, 5001, 8);
	assert_int_equal(s.n_ep, 0);
}

/* A 200 ms ACK is TCP_DELACK_MAX; an ACK covering more than H is not H's ACK. */
static void test_delack_max_and_overcovering(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 201000, T, A, 5001, 1005, 0);
	seg(&s, 201010, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].delack, NT_DELACK_MAX);
	assert_string_equal(nt_delack_name(s.ep[0].delack), "delack_max");

	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA | NT_TCP_FIN, 1001, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1006, 0);
	assert_int_equal(s.n_ep, 0);
}

/*
 * Captured at the target, 5 ms from the client: the body shows 5 ms after
 * the ACK. The handshake (SYN-ACK -> ACK = 5 ms) widens the window to 6 ms;
 * without it the same gap reads as think time.
 */
static void test_receiver_vantage(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 20, 5020);
	seg(&s, 10000, C, PA, 1001, 5001, 4);
	seg(&s, 50000, T, A, 5001, 1005, 0);
	seg(&s, 55010, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].window_ns, 1000 * US + 5000 * US + 5000 * US / 16);
	assert_int_equal(s.tr.side[C].rtt_ns, 5000 * US);

	start(&s, AF_INET);
	seg(&s, 10000, C, PA, 1001, 5001, 4);
	seg(&s, 50000, T, A, 5001, 1005, 0);
	seg(&s, 55010, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_THINK_TIME);
}

/*
 * Seen at the client of a 20 ms path: the handshake times the target 20 ms
 * away. Round 1's header is ACKed at once (20 ms: the path alone), no stall;
 * round 2's after the delayed-ACK timer (63 ms: 43 + 20), a stall named
 * delack_min, and its late ACK is no RTT sample.
 */
static void test_client_vantage_path(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	seg_mss(&s, 0, C, NT_TCP_SYN, 1000, 0, 0, 1460);
	seg_mss(&s, 20000, T, NT_TCP_SYN | NT_TCP_ACK, 5000, 1001, 0, 1460);
	seg(&s, 20010, C, A, 1001, 5001, 0);
	/* Round 1: a quick ACK one RTT later, the body, the reply. */
	seg(&s, 30000, C, PA, 1001, 5001, 4);
	seg(&s, 50050, T, A, 5001, 1005, 0);
	seg(&s, 50080, C, PA, 1005, 5001, 8);
	seg(&s, 70100, T, PA, 5001, 1013, 2);
	assert_int_equal(s.n_ep, 0);
	assert_int_equal(s.tr.side[T].rtt_ns, 20000 * US);
	/* Round 2: the header waits out the target's 43 ms timer, plus the path. */
	seg(&s, 70120, C, PA, 1013, 5003, 4);
	seg(&s, 133120, T, A, 5003, 1017, 0);
	seg(&s, 133150, C, PA, 1017, 5003, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].ack_delay_ns, 63 * MS);
	assert_int_equal(s.ep[0].delack, NT_DELACK_MIN);
	assert_int_equal(s.tr.side[T].rtt_ns, 20000 * US);

	/*
	 * Without the handshake the path is unknown: a 20 ms ACK is taken for a
	 * stall, and a late ACK's sample is no path, nor yet a window.
	 */
	start(&s, AF_INET);
	seg(&s, 30000, C, PA, 1001, 5001, 4);
	seg(&s, 50050, T, A, 5001, 1005, 0);
	seg(&s, 50080, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].delack, NT_DELACK_OTHER);
	assert_int_equal(nt_stall_path(&s.tr, T), -1);
	assert_int_equal(nt_stall_rtt(&s.tr, T), 0);
}

/*
 * Mid-stream, a receiver that delays every ACK (ping-pong, nothing to send
 * back): each message, written in two parts, stalls. Were its late ACKs taken
 * for the path, the second message's 40 ms ACK would be the path and no stall.
 */
static void test_late_acks_never_the_path(void **state)
{
	struct script s;
	unsigned stalls = 0;
	uint32_t seq = 1000;

	(void)state;
	start(&s, AF_INET);
	for (int i = 0; i < 4; i++) {
		int64_t t = i * 100000LL;

		seg(&s, t, C, PA, seq, 5000, 4);
		seg(&s, t + 40000, T, A, 5000, seq + 4, 0);
		seg(&s, t + 40050, C, PA, seq + 4, 5000, 8);
		seg(&s, t + 80050, T, A, 5000, seq + 12, 0);
		seq += 12;
	}
	for (unsigned k = 0; k < s.n_ep; k++)
		stalls += s.ep[k].kind == NT_EPISODE_STALL;
	assert_int_equal(stalls, 4);
	assert_int_equal(nt_stall_path(&s.tr, T), -1);
}

/* The client's 36 bytes, the far peer's ACK 285 ms later: a late ACK, and a sample. */
static void far_peer_sample(struct script *s, int64_t t_us, uint32_t *c_seq, uint32_t t_seq)
{
	seg(s, t_us, C, PA, *c_seq, t_seq, 36);
	*c_seq += 36;
	seg(s, t_us + 285000, T, A, t_seq, *c_seq, 0);
}

/*
 * Mid-stream, seen at the client, a peer 285 ms away writes a 4-byte length,
 * then its message (nfstrace's smb2-zero-file-rw): the client's delayed ACK
 * releases the message one round trip later. Every ACK of the peer's is
 * slower than the threshold, so only late ACKs time it; three of them bound
 * the release window, which the path (what a late ACK's delay is measured
 * past) never takes from them. A prompt sample then replaces them.
 */
static void test_far_peer_mid_stream(void **state)
{
	struct script s;
	uint32_t c_seq;
	unsigned n;

	(void)state;
	for (int samples = 2; samples <= 3; samples++) {
		start(&s, AF_INET);
		c_seq = 1000;
		for (int i = 0; i < samples; i++)
			far_peer_sample(&s, i * 1000000LL, &c_seq, 5000);
		/* The client's own pauses between its writes are think time. */
		assert_int_equal(s.n_ep, samples - 1);
		assert_int_equal(nt_stall_path(&s.tr, T), -1);
		n = s.n_ep;
		seg(&s, 3000000, T, PA, 5000, c_seq, 4);
		seg(&s, 3040000, C, A, c_seq, 5004, 0);
		seg(&s, 3326000, T, PA, 5004, c_seq, 100);
		assert_int_equal(s.n_ep, n + 1);
		assert_int_equal(s.ep[n].dir, T);
		assert_int_equal(s.ep[n].ack_delay_ns, 40 * MS);
		assert_int_equal(s.ep[n].release_gap_ns, 286 * MS);
		/* Two samples are no window (1 ms): think time; three are 285 ms. */
		assert_int_equal(s.ep[n].kind,
				 samples == 3 ? NT_EPISODE_STALL : NT_EPISODE_THINK_TIME);
		assert_int_equal(nt_stall_rtt(&s.tr, T), samples == 3 ? 285 * MS : 0);
	}
	/* The peer's first prompt ACK is the path, and the late samples go. */
	far_peer_sample(&s, 4000000, &c_seq, 5104);
	seg(&s, 5000000, C, PA, c_seq, 5104, 36);
	seg(&s, 5000500, T, A, 5104, c_seq + 36, 0);
	assert_int_equal(nt_stall_path(&s.tr, T), 500 * US);
	assert_int_equal(nt_stall_rtt(&s.tr, T), 0);
}

/* Mid-stream, no SYN: MSS inferred (floor 536), still a stall; a full segment never is H. */
static void test_mid_stream(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	seg(&s, 0, C, PA, 3000000000u, 77, 1448);
	seg(&s, 100, C, PA, 3000001448u, 77, 100);
	seg(&s, 200, T, A, 77, 3000001548u, 0);
	assert_int_equal(s.n_ep, 0);
	seg(&s, 300, C, PA, 3000001548u, 77, 60);
	seg(&s, 45300, T, A, 77, 3000001608u, 0);
	seg(&s, 45350, C, PA, 3000001608u, 77, 100);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(nt_stall_mss(&s.tr, C), 1448);

	/* 1448 bytes is the largest seen: full-sized, never held by Nagle. */
	start(&s, AF_INET);
	seg(&s, 0, C, PA, 1, 1, 1448);
	seg(&s, 100, C, PA, 1449, 1, 1448);
	seg(&s, 45100, T, A, 1, 2897, 0);
	seg(&s, 45110, C, PA, 2897, 1, 10);
	assert_int_equal(s.n_ep, 0);
}

/*
 * Both sides hold a small write behind the other's delayed ACK (BGP
 * keepalives), seen at the client, 20 ms from the target. The target's R
 * is seen 2 ms after the client's R: the client's data had not reached the
 * target when R left (an answer shows at least half the 20 ms round trip
 * later), so R does not answer it: both are stalls.
 */
static void test_both_directions(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET6);
	handshake(&s, 20000, 20010);
	seg(&s, 30000, T, PA, 5001, 1001, 19);
	seg(&s, 30020, C, PA, 1001, 5001, 19);
	seg(&s, 72000, C, A, 1020, 5020, 0);
	seg(&s, 90020, T, A, 5020, 1020, 0);
	seg(&s, 90040, C, PA, 1020, 5020, 87);
	seg(&s, 92000, T, PA, 5020, 1020, 19); /* does not ack the client's R */
	assert_int_equal(s.n_ep, 2);
	assert_int_equal(s.ep[0].dir, C);
	assert_int_equal(s.ep[1].dir, T);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[1].kind, NT_EPISODE_STALL);

	/* The client's request right behind its ACK reached the target in time: R may answer it. */
	start(&s, AF_INET6);
	handshake(&s, 20000, 20010);
	seg(&s, 30000, T, PA, 5001, 1001, 19);
	seg(&s, 72000, C, A, 1001, 5020, 0);
	seg(&s, 72100, C, PA, 1001, 5020, 87);
	seg(&s, 92000, T, PA, 5020, 1001, 19);
	assert_int_equal(s.n_ep, 0);
}

/*
 * The answer test. TLS: ClientHello, the server's late ACK, its ServerHello,
 * the client's next flight right behind: an answer to the ServerHello, not
 * data the ACK released (and the live trace's target that read late: body,
 * late ACK, reply, next header).
 */
static void test_answer_after_ack(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 300);	 /* H: ClientHello */
	seg(&s, 41000, T, A, 5001, 1301, 0);	 /* the late ACK */
	seg(&s, 41300, T, PA, 5001, 1301, 1200); /* ServerHello */
	seg(&s, 41500, C, PA, 1301, 6201, 126);	 /* R: the client's answer */
	assert_int_equal(s.n_ep, 0);

	/* A pure ACK and the next request in the same millisecond: the data seen first. */
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 300);
	seg(&s, 40700, T, PA, 5001, 1001, 90); /* crossed H, 0.3 ms before the ACK */
	seg(&s, 41000, T, A, 5091, 1301, 0);
	seg(&s, 41500, C, PA, 1301, 5091, 126);
	assert_int_equal(s.n_ep, 0);

	/* Without the peer's data the same R is a stall. */
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 300);
	seg(&s, 41000, T, A, 5001, 1301, 0);
	seg(&s, 41500, C, PA, 1301, 5001, 126);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
}

/*
 * Effective MSS: the sender's own SYN (1380) bounds what it sends, though
 * the peer announced 1460; timestamps on the data take 12 bytes of 1460.
 * Either way the segment is full-sized: no H, no stall behind it.
 */
static void test_effective_mss(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	seg_mss(&s, 0, C, NT_TCP_SYN, 1000, 0, 0, 1380);
	seg_mss(&s, 50, T, NT_TCP_SYN | NT_TCP_ACK, 5000, 1001, 0, 1460);
	seg(&s, 60, C, A, 1001, 5001, 0);
	assert_int_equal(nt_stall_mss(&s.tr, C), 1380);
	assert_int_equal(nt_stall_mss(&s.tr, T), 1380);
	seg(&s, 1000, C, PA, 1001, 5001, 1380);
	seg(&s, 41000, T, A, 5001, 2381, 0);
	seg(&s, 41020, C, PA, 2381, 5001, 8);
	assert_int_equal(s.n_ep, 0);

	start(&s, AF_INET);
	seg_opt(&s, 0, C, NT_TCP_SYN, 1000, 0, 0, 1460, true);
	seg_opt(&s, 50, T, NT_TCP_SYN | NT_TCP_ACK, 5000, 1001, 0, 1460, true);
	seg_opt(&s, 60, C, A, 1001, 5001, 0, 0, true);
	seg_opt(&s, 1000, C, PA, 1001, 5001, 1448, 0, true);
	assert_int_equal(nt_stall_mss(&s.tr, C), 1448);
	seg_opt(&s, 41000, T, A, 5001, 2449, 0, 0, true);
	seg_opt(&s, 41020, C, PA, 2449, 5001, 8, 0, true);
	assert_int_equal(s.n_ep, 0);

	/* 1447 bytes with timestamps is short: held, and a stall. */
	start(&s, AF_INET);
	seg_opt(&s, 0, C, NT_TCP_SYN, 1000, 0, 0, 1460, true);
	seg_opt(&s, 50, T, NT_TCP_SYN | NT_TCP_ACK, 5000, 1001, 0, 1460, true);
	seg_opt(&s, 60, C, A, 1001, 5001, 0, 0, true);
	seg_opt(&s, 1000, C, PA, 1001, 5001, 1447, 0, true);
	seg_opt(&s, 41000, T, A, 5001, 2448, 0, 0, true);
	seg_opt(&s, 41020, C, PA, 2448, 5001, 8, 0, true);
	assert_int_equal(s.n_ep, 1);
}

/* A full-sized R is the window's doing (an ACK-clocked transfer), never a release. */
static void test_full_release(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 700);
	seg(&s, 41000, T, A, 5001, 1701, 0);
	seg(&s, 41020, C, A, 1701, 5001, 1460);
	assert_int_equal(s.n_ep, 0);
}

/*
 * Two small segments unacknowledged at once: Nagle is off for that sender
 * (tcp_minshall_check() allows one), so its later late-ACK pattern (a VNC
 * server paced by its window) is no stall. The other side is not affected.
 */
static void test_nagle_off(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, T, PA, 5001, 1001, 100);
	seg(&s, 1010, T, PA, 5101, 1001, 100); /* the first is not acked yet */
	seg(&s, 1200, C, A, 1001, 5201, 0);
	assert_true(s.tr.side[T].nagle_off);
	assert_false(s.tr.side[C].nagle_off);
	seg(&s, 2000, T, PA, 5201, 1001, 50);
	seg(&s, 42000, C, A, 1001, 5251, 0);
	seg(&s, 42060, T, PA, 5251, 1001, 60);
	assert_int_equal(s.n_ep, 0);

	/* One small segment after another was acknowledged: Nagle may be on. */
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, T, PA, 5001, 1001, 100);
	seg(&s, 1200, C, A, 1001, 5101, 0);
	seg(&s, 2000, T, PA, 5101, 1001, 50);
	seg(&s, 42000, C, A, 1001, 5151, 0);
	seg(&s, 42060, T, PA, 5151, 1001, 60);
	assert_false(s.tr.side[T].nagle_off);
	assert_int_equal(s.n_ep, 1);

	/* Data and FIN in one segment is pushed past Nagle (tcp_send_fin()): no evidence. */
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, T, PA, 5001, 1001, 100);
	seg(&s, 1010, T, PA | NT_TCP_FIN, 5101, 1001, 100);
	assert_false(s.tr.side[T].nagle_off);
}

/*
 * Urgent mode (tcp_urg_mode(): from the URG segment until the peer acks it)
 * takes tcp_nagle_test() past Nagle: telnetd's Synch after an Interrupt
 * Process, three small segments in flight, is no evidence of TCP_NODELAY,
 * and its later output-then-prompt hold is still a stall. A small segment
 * sent in urgent mode holds nothing: data written behind it goes at once.
 */
static void test_urgent_mode(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, T, PA, 5001, 1001, 3);
	seg(&s, 1010, T, PA | NT_TCP_URG, 5004, 1001, 1);
	seg(&s, 1020, T, PA, 5005, 1001, 1); /* in urgent mode: 5005 not acked */
	seg(&s, 16000, C, A, 1001, 5006, 0);
	assert_false(s.tr.side[T].nagle_off);
	seg(&s, 16100, T, PA, 5006, 1001, 150);
	seg(&s, 16200, C, A, 1001, 5156, 0);
	seg(&s, 100000, T, PA, 5156, 1001, 69);
	seg(&s, 112000, C, A, 1001, 5225, 0);
	seg(&s, 112060, T, PA, 5225, 1001, 2);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].held_seq, 5156);

	/* The small segment sent in urgent mode is no H. */
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, T, PA | NT_TCP_URG, 5001, 1001, 1);
	seg(&s, 41000, C, A, 1001, 5002, 0);
	seg(&s, 41060, T, PA, 5002, 1001, 100);
	assert_int_equal(s.n_ep, 0);
}

/*
 * The lower bound. Seen at the target, 20 ms from the client (handshake):
 * R shows 0.2 ms after the ACK, so it left the client about 10 ms before
 * the ACK got there: not released by it. 20 ms after: released. (nDPI's
 * coap_mqtt test: a 176 us handshake, releases 64 us after the ACK.)
 */
static void test_release_too_early(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 20, 20020);
	seg(&s, 30000, C, PA, 1001, 5001, 4);
	seg(&s, 70000, T, A, 5001, 1005, 0);
	seg(&s, 70200, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 0);

	start(&s, AF_INET);
	handshake(&s, 20, 20020);
	seg(&s, 30000, C, PA, 1001, 5001, 4);
	seg(&s, 70000, T, A, 5001, 1005, 0);
	seg(&s, 90050, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);

	/* The bound is the round trip less --release-us and 1/16 of it (17.75 ms): 17.5 ms is too soon, 18 ms not. */
	start(&s, AF_INET);
	handshake(&s, 20, 20020);
	seg(&s, 30000, C, PA, 1001, 5001, 4);
	seg(&s, 70000, T, A, 5001, 1005, 0);
	seg(&s, 87500, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 0);
	start(&s, AF_INET);
	handshake(&s, 20, 20020);
	seg(&s, 30000, C, PA, 1001, 5001, 4);
	seg(&s, 70000, T, A, 5001, 1005, 0);
	seg(&s, 88000, C, PA, 1005, 5001, 8);
	assert_int_equal(s.n_ep, 1);

	/* A sub-millisecond handshake sets no bound: a release 64 us after the ACK stands. */
	start(&s, AF_INET);
	handshake(&s, 20, 196);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 40000, T, A, 5001, 1005, 0);
	seg(&s, 40064, C, PA, 1005, 5001, 60);
	assert_int_equal(s.n_ep, 1);
}

/*
 * The upper bound is robust. Mid-stream, the client's one RTT sample is an
 * ACK it sent with its next request 3,352 ms later: one data sample is not
 * trusted, so the window stays --release-us and R 5 ms after the ACK is
 * think time. Three samples, the smallest 5 ms, widen it to 6 ms.
 */
static void test_rtt_robust(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	seg(&s, 0, T, PA, 5001, 1001, 10);
	seg(&s, 3352000, C, PA, 1001, 5011, 10); /* sample 3,352 ms */
	assert_int_equal(s.tr.side[C].rtt_ns, 3352 * MS);
	assert_int_equal(nt_stall_rtt(&s.tr, C), 0);
	seg(&s, 3352100, T, A, 5011, 1011, 0);
	seg(&s, 3400000, C, PA, 1011, 5011, 4);
	seg(&s, 3440000, T, A, 5011, 1015, 0);
	seg(&s, 3445000, C, PA, 1015, 5011, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_THINK_TIME);
	assert_int_equal(s.ep[0].window_ns, 1000 * US);

	start(&s, AF_INET);
	for (int i = 0; i < 3; i++) {
		uint32_t o = (uint32_t)i * 10;
		int64_t t = i * 100000LL;

		seg(&s, t, T, PA, 5001 + o, 1001, 10);
		seg(&s, t + 5000 + i * 1000LL, C, A, 1001, 5011 + o, 0);
	}
	assert_int_equal(nt_stall_rtt(&s.tr, C), 5000 * US);
	seg(&s, 400000, C, PA, 1001, 5031, 4);
	seg(&s, 440000, T, A, 5031, 1005, 0);
	seg(&s, 445000, C, PA, 1005, 5031, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].window_ns, 6000 * US + 5000 * US / 16);
}

/*
 * The path's jitter: seen at the target, the client 141.4 ms away (nDPI's
 * tor capture), a release 2.6 ms past one round trip is still inside the
 * window (1 ms + rtt + rtt/16 = 151.2 ms); 10 ms past it is think time.
 */
static void test_rtt_jitter(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 20, 141420);
	seg(&s, 200000, C, PA, 1001, 5001, 586);
	seg(&s, 400000, T, A, 5001, 1587, 0);
	seg(&s, 544000, C, PA, 1587, 5001, 586);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);

	start(&s, AF_INET);
	handshake(&s, 20, 141420);
	seg(&s, 200000, C, PA, 1001, 5001, 586);
	seg(&s, 400000, T, A, 5001, 1587, 0);
	seg(&s, 552000, C, PA, 1587, 5001, 586);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_THINK_TIME);
}

/* H's last byte is at 2^32 - 1: the ACK and the released data wrap to 2. */
static void test_wraparound(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	seg(&s, 0, C, PA, 0xfffffff0u, 9, 8);
	seg(&s, 100, T, A, 9, 0xfffffff8u, 0);
	seg(&s, 200, C, PA, 0xfffffff8u, 9, 10);
	seg(&s, 40200, T, A, 9, 2, 0);
	seg(&s, 40220, C, PA, 2, 9, 8);
	assert_int_equal(s.n_ep, 1);
	assert_int_equal(s.ep[0].kind, NT_EPISODE_STALL);
	assert_int_equal(s.ep[0].held_seq, 0xfffffff8u);
	assert_int_equal(s.ep[0].held_len, 10);
}

/*
 * A pure ACK whose seq is past the data seen names data the capture missed:
 * the later segment below it is a retransmission (an RTO after a loss
 * before the capture point), never H.
 */
static void test_unseen_data_retransmitted(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, T, PA, 5001, 1001, 100);
	seg(&s, 1100, C, A, 1001, 5101, 0);
	seg(&s, 2000, T, A, 5687, 1001, 0);	 /* T has sent up to 5687: 586 bytes unseen */
	seg(&s, 300000, T, PA, 5101, 1001, 586); /* their RTO retransmission */
	seg(&s, 500000, C, A, 1001, 5687, 0);
	seg(&s, 500100, T, PA, 5687, 1001, 100);
	assert_int_equal(s.n_ep, 0);
}

/* An ACK riding on data, or further data from the sender, cancels H. */
static void test_piggyback_and_more_data(void **state)
{
	struct script s;

	(void)state;
	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 41000, T, PA, 5001, 1005, 2);
	seg(&s, 41020, C, PA, 1005, 5003, 8);
	assert_int_equal(s.n_ep, 0);

	start(&s, AF_INET);
	handshake(&s, 50, 60);
	seg(&s, 1000, C, PA, 1001, 5001, 4);
	seg(&s, 1010, C, PA, 1005, 5001, 4);
	seg(&s, 41000, T, A, 5001, 1005, 0); /* covers the first only */
	seg(&s, 41020, C, PA, 1009, 5001, 8);
	assert_int_equal(s.n_ep, 0);
}

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(nt_delack_classify(5 * MS), NT_DELACK_OTHER);
	assert_int_equal(nt_delack_classify(40 * MS), NT_DELACK_MIN);
	assert_int_equal(nt_delack_classify(48 * MS), NT_DELACK_MIN);
	assert_int_equal(nt_delack_classify(100 * MS), NT_DELACK_OTHER);
	assert_int_equal(nt_delack_classify(200 * MS), NT_DELACK_MAX);
	assert_string_equal(nt_episode_kind_name(NT_EPISODE_THINK_TIME), "think_time");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_stall),
		cmocka_unit_test(test_late_path_noted),
		cmocka_unit_test(test_no_answer_bounds),
		cmocka_unit_test(test_answer_bounds),
		cmocka_unit_test(test_data_ack_is_no_answer),
		cmocka_unit_test(test_prompt_ack),
		cmocka_unit_test(test_think_time),
		cmocka_unit_test(test_write_noted),
		cmocka_unit_test(test_retransmission),
		cmocka_unit_test(test_delack_max_and_overcovering),
		cmocka_unit_test(test_receiver_vantage),
		cmocka_unit_test(test_client_vantage_path),
		cmocka_unit_test(test_mid_stream),
		cmocka_unit_test(test_far_peer_mid_stream),
		cmocka_unit_test(test_late_acks_never_the_path),
		cmocka_unit_test(test_both_directions),
		cmocka_unit_test(test_answer_after_ack),
		cmocka_unit_test(test_effective_mss),
		cmocka_unit_test(test_full_release),
		cmocka_unit_test(test_nagle_off),
		cmocka_unit_test(test_urgent_mode),
		cmocka_unit_test(test_release_too_early),
		cmocka_unit_test(test_rtt_robust),
		cmocka_unit_test(test_rtt_jitter),
		cmocka_unit_test(test_unseen_data_retransmitted),
		cmocka_unit_test(test_wraparound),
		cmocka_unit_test(test_piggyback_and_more_data),
		cmocka_unit_test(test_classify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
