// SPDX-License-Identifier: MIT
/*
 * test_flow.c - nt_flow_direction() and nt_flow_segment() on hand-made
 * decoded packets: which way a packet goes, which packets are foreign, and
 * sequence numbers relative to each side's ISN (from a SYN, mid-stream, and
 * across the 2^32 wrap).
 *
 * The connection is 192.0.2.1.40000 > 192.0.2.2.5001 unless a test says
 * otherwise; the comment above each packet is tcpdump-style, absolute numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/model/decode.h"
#include "nt/model/flow.h"
#include "nt/model/tcp.h"

static const uint8_t client4[4] = { 192, 0, 2, 1 };
static const uint8_t target4[4] = { 192, 0, 2, 2 };
static const uint8_t other4[4] = { 192, 0, 2, 3 };
static const uint8_t client6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t target6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static struct nt_tcp_packet pkt4(const uint8_t *src, uint16_t sport, const uint8_t *dst,
				 uint16_t dport, uint8_t flags, uint32_t seq, uint32_t ack,
				 uint32_t payload_bytes)
{
	struct nt_tcp_packet p;

	memset(&p, 0, sizeof(p));
	p.family = AF_INET;
	memcpy(p.src_addr, src, 4);
	memcpy(p.dst_addr, dst, 4);
	p.src_port = sport;
	p.dst_port = dport;
	p.flags = flags;
	p.seq = seq;
	p.ack = ack;
	p.payload_bytes = payload_bytes;
	p.window = 502;
	p.wscale = -1;
	return p;
}

/* A client -> target packet of the default connection. */
static struct nt_tcp_packet c2t(uint8_t flags, uint32_t seq, uint32_t ack, uint32_t len)
{
	return pkt4(client4, 40000, target4, 5001, flags, seq, ack, len);
}

/* A target -> client packet of the default connection. */
static struct nt_tcp_packet t2c(uint8_t flags, uint32_t seq, uint32_t ack, uint32_t len)
{
	return pkt4(target4, 5001, client4, 40000, flags, seq, ack, len);
}

static void flow4(struct nt_flow *f, uint16_t client_port)
{
	nt_flow_init(f, AF_INET, client4, client_port, target4, 5001);
}

/* Direction must match @want; then the segment is made. */
static struct nt_segment seg_of(struct nt_flow *f, const struct nt_tcp_packet *p, enum nt_dir want)
{
	enum nt_dir dir = want == NT_DIR_C2T ? NT_DIR_T2C : NT_DIR_C2T;
	struct nt_segment s;

	assert_true(nt_flow_direction(f, p, &dir));
	assert_int_equal(dir, want);
	nt_flow_segment(f, p, dir, &s);
	return s;
}

/* what this checks: init stores the endpoints, no ISN, wscale -1, mss 0 */
static void test_init(void **state)
{
	struct nt_flow f;

	(void)state;
	memset(&f, 0xa5, sizeof(f));
	flow4(&f, 40000);
	assert_int_equal(f.family, AF_INET);
	assert_memory_equal(f.client_addr, client4, 4);
	assert_memory_equal(f.target_addr, target4, 4);
	assert_int_equal(f.client_port, 40000);
	assert_int_equal(f.target_port, 5001);
	for (int d = 0; d < 2; d++) {
		assert_false(f.isn_known[d]);
		assert_false(f.syn_seen[d]);
		assert_int_equal(f.mss[d], 0);
		assert_int_equal(f.wscale[d], -1);
	}
}

/* what this checks: client -> target is c2t, target -> client is t2c */
static void test_direction_both_ways(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet a = c2t(NT_TCP_ACK, 1, 1, 0);
	struct nt_tcp_packet b = t2c(NT_TCP_ACK, 1, 1, 0);
	enum nt_dir dir;

	(void)state;
	flow4(&f, 40000);
	assert_true(nt_flow_direction(&f, &a, &dir));
	assert_int_equal(dir, NT_DIR_C2T);
	assert_true(nt_flow_direction(&f, &b, &dir));
	assert_int_equal(dir, NT_DIR_T2C);
}

/* what this checks: client port 0 is learnt from the first packet, then enforced */
static void test_client_port_learnt(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet syn = pkt4(client4, 40123, target4, 5001, NT_TCP_SYN, 1000, 0, 0);
	struct nt_tcp_packet other = pkt4(client4, 40124, target4, 5001, NT_TCP_SYN, 7, 0, 0);
	struct nt_tcp_packet back = pkt4(target4, 5001, client4, 40123, NT_TCP_ACK, 1, 1, 0);
	enum nt_dir dir;

	(void)state;
	flow4(&f, 0);
	assert_true(nt_flow_direction(&f, &syn, &dir));
	assert_int_equal(dir, NT_DIR_C2T);
	assert_int_equal(f.client_port, 40123);
	assert_false(nt_flow_direction(&f, &other, &dir));
	assert_true(nt_flow_direction(&f, &back, &dir));
	assert_int_equal(dir, NT_DIR_T2C);
}

/* what this checks: client port 0 learnt from a target -> client packet is its destination port */
static void test_client_port_learnt_from_reply(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet p = pkt4(target4, 5001, client4, 45555, NT_TCP_ACK, 1, 1, 0);
	enum nt_dir dir;

	(void)state;
	flow4(&f, 0);
	assert_true(nt_flow_direction(&f, &p, &dir));
	assert_int_equal(dir, NT_DIR_T2C);
	assert_int_equal(f.client_port, 45555);
}

/* what this checks: other ports, addresses, a reflected packet and another family are foreign */
static void test_foreign_rejected(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet p[] = {
		/* 192.0.2.1.40001 > 192.0.2.2.5001: other client port */
		pkt4(client4, 40001, target4, 5001, NT_TCP_ACK, 1, 1, 0),
		/* 192.0.2.1.40000 > 192.0.2.2.5002: other target port */
		pkt4(client4, 40000, target4, 5002, NT_TCP_ACK, 1, 1, 0),
		/* 192.0.2.3.40000 > 192.0.2.2.5001: other client address */
		pkt4(other4, 40000, target4, 5001, NT_TCP_ACK, 1, 1, 0),
		/* 192.0.2.2.5001 > 192.0.2.3.40000: to another address */
		pkt4(target4, 5001, other4, 40000, NT_TCP_ACK, 1, 1, 0),
		/* 192.0.2.1.40000 > 192.0.2.1.5001: client to itself */
		pkt4(client4, 40000, client4, 5001, NT_TCP_ACK, 1, 1, 0),
		/* 192.0.2.2.40000 > 192.0.2.1.5001: addresses swapped, ports not */
		pkt4(target4, 40000, client4, 5001, NT_TCP_ACK, 1, 1, 0),
	};
	struct nt_tcp_packet v6 = c2t(NT_TCP_ACK, 1, 1, 0);
	enum nt_dir dir;

	(void)state;
	flow4(&f, 40000);
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		assert_false(nt_flow_direction(&f, &p[i], &dir));
	/* the same bytes as the flow's addresses, but an IPv6 packet */
	v6.family = AF_INET6;
	assert_false(nt_flow_direction(&f, &v6, &dir));
	/* a foreign packet teaches nothing: the port stays unlearnt */
	flow4(&f, 0);
	assert_false(nt_flow_direction(&f, &p[1], &dir));
	assert_int_equal(f.client_port, 0);
}

/* what this checks: an IPv6 flow compares all 16 bytes and rejects IPv4 */
static void test_ipv6(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet p = c2t(NT_TCP_ACK, 1, 1, 0);
	enum nt_dir dir;

	(void)state;
	nt_flow_init(&f, AF_INET6, client6, 40000, target6, 5001);
	p.family = AF_INET6;
	memcpy(p.src_addr, client6, 16);
	memcpy(p.dst_addr, target6, 16);
	assert_true(nt_flow_direction(&f, &p, &dir));
	assert_int_equal(dir, NT_DIR_C2T);
	p.src_addr[15] = 3; /* 2001:db8::3 */
	assert_false(nt_flow_direction(&f, &p, &dir));
	p.src_addr[15] = 1;
	p.family = AF_INET;
	assert_false(nt_flow_direction(&f, &p, &dir));
}

/* what this checks: ISNs come from the SYNs; SYN = 0, first data byte = 1, acks relative */
static void test_isn_from_syn(void **state)
{
	struct nt_flow f;
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [S], seq 1000, win 502 */
	struct nt_tcp_packet syn = c2t(NT_TCP_SYN, 1000, 0, 0);
	/* 192.0.2.2.5001 > 192.0.2.1.40000: Flags [S.], seq 7000, ack 1001, win 502 */
	struct nt_tcp_packet synack = t2c(NT_TCP_SYN | NT_TCP_ACK, 7000, 1001, 0);
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [P.], seq 1001:1005, ack 7001, length 4 */
	struct nt_tcp_packet hdr = c2t(NT_TCP_PSH | NT_TCP_ACK, 1001, 7001, 4);
	/* 192.0.2.2.5001 > 192.0.2.1.40000: Flags [P.], seq 7001:7003, ack 1013, length 2 */
	struct nt_tcp_packet reply = t2c(NT_TCP_PSH | NT_TCP_ACK, 7001, 1013, 2);
	struct nt_segment s;

	(void)state;
	flow4(&f, 40000);
	s = seg_of(&f, &syn, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 0);
	assert_int_equal(s.ack_rel, 0); /* no ACK flag */
	assert_true(f.syn_seen[NT_DIR_C2T]);
	assert_true(f.isn_known[NT_DIR_C2T]);
	assert_int_equal(f.isn[NT_DIR_C2T], 1000);
	assert_false(f.isn_known[NT_DIR_T2C]);

	s = seg_of(&f, &synack, NT_DIR_T2C);
	assert_int_equal(s.seq_rel, 0);
	assert_int_equal(s.ack_rel, 1);
	assert_int_equal(f.isn[NT_DIR_T2C], 7000);
	assert_true(f.syn_seen[NT_DIR_T2C]);

	s = seg_of(&f, &hdr, NT_DIR_C2T);
	assert_int_equal(s.dir, NT_DIR_C2T);
	assert_int_equal(s.flags, NT_TCP_PSH | NT_TCP_ACK);
	assert_int_equal(s.seq, 1001);
	assert_int_equal(s.ack, 7001);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 1);
	assert_int_equal(s.payload_bytes, 4);
	assert_int_equal(s.window, 502);
	assert_int_equal(s.role, NT_ROLE_UNKNOWN);
	assert_int_equal(s.frame_index, 0);

	s = seg_of(&f, &reply, NT_DIR_T2C);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 13);
}

/* what this checks: mid-stream, the first segment's ISN is seq - 1 and its ACK anchors the peer */
static void test_isn_mid_stream(void **state)
{
	struct nt_flow f;
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [P.], seq 777:781, ack 9000, length 4 */
	struct nt_tcp_packet hdr = c2t(NT_TCP_PSH | NT_TCP_ACK, 777, 9000, 4);
	/* 192.0.2.2.5001 > 192.0.2.1.40000: Flags [.], ack 781, win 502 */
	struct nt_tcp_packet ack = t2c(NT_TCP_ACK, 9000, 781, 0);
	/* 192.0.2.2.5001 > 192.0.2.1.40000: Flags [P.], seq 9000:9002, ack 789, length 2 */
	struct nt_tcp_packet reply = t2c(NT_TCP_PSH | NT_TCP_ACK, 9000, 789, 2);
	struct nt_segment s;

	(void)state;
	flow4(&f, 40000);
	s = seg_of(&f, &hdr, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 1);
	assert_int_equal(f.isn[NT_DIR_C2T], 776);
	assert_true(f.isn_known[NT_DIR_T2C]);
	assert_int_equal(f.isn[NT_DIR_T2C], 8999);
	assert_false(f.syn_seen[NT_DIR_C2T]);
	assert_false(f.syn_seen[NT_DIR_T2C]);

	/* the peer's ISN is the anchored one, not this segment's seq - 1 */
	s = seg_of(&f, &ack, NT_DIR_T2C);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 5);
	s = seg_of(&f, &reply, NT_DIR_T2C);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 13);
	assert_int_equal(f.isn[NT_DIR_T2C], 8999);
}

/* what this checks: a target pure ACK seen first anchors the client's ISN at ack - 1 */
static void test_peer_anchored_from_ack(void **state)
{
	struct nt_flow f;
	/* 192.0.2.2.5001 > 192.0.2.1.40000: Flags [.], seq 50000, ack 123461, win 502 */
	struct nt_tcp_packet ack = t2c(NT_TCP_ACK, 50000, 123461, 0);
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [P.], seq 123461:123469, ack 50000, length 8 */
	struct nt_tcp_packet body = c2t(NT_TCP_PSH | NT_TCP_ACK, 123461, 50000, 8);
	struct nt_segment s;

	(void)state;
	flow4(&f, 40000);
	s = seg_of(&f, &ack, NT_DIR_T2C);
	assert_int_equal(f.isn[NT_DIR_T2C], 49999);
	assert_int_equal(f.isn[NT_DIR_C2T], 123460);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 1);
	s = seg_of(&f, &body, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 1);
}

/* what this checks: a segment without ACK does not anchor the peer */
static void test_no_ack_no_anchor(void **state)
{
	struct nt_flow f;
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [R], seq 500 */
	struct nt_tcp_packet rst = c2t(NT_TCP_RST, 500, 123, 0);
	struct nt_segment s;

	(void)state;
	flow4(&f, 40000);
	s = seg_of(&f, &rst, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 0);
	assert_false(f.isn_known[NT_DIR_T2C]);
}

/* what this checks: relative seq and ack stay right across the 2^32 wrap */
static void test_wrap_around(void **state)
{
	struct nt_flow f;
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [S], seq 4294967294 */
	struct nt_tcp_packet syn = c2t(NT_TCP_SYN, 0xfffffffeu, 0, 0);
	/* 192.0.2.2.5001 > 192.0.2.1.40000: Flags [S.], seq 4294967280, ack 4294967295 */
	struct nt_tcp_packet synack = t2c(NT_TCP_SYN | NT_TCP_ACK, 0xfffffff0u, 0xffffffffu, 0);
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [P.], seq 4294967295:3, ack 4294967281, length 4 */
	struct nt_tcp_packet hdr = c2t(NT_TCP_PSH | NT_TCP_ACK, 0xffffffffu, 0xfffffff1u, 4);
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [P.], seq 3:11, ack 4294967281, length 8 */
	struct nt_tcp_packet body = c2t(NT_TCP_PSH | NT_TCP_ACK, 3, 0xfffffff1u, 8);
	/* 192.0.2.2.5001 > 192.0.2.1.40000: Flags [P.], seq 4294967281:..., ack 11, length 20 */
	struct nt_tcp_packet reply = t2c(NT_TCP_PSH | NT_TCP_ACK, 0xfffffff1u, 11, 20);
	/* 192.0.2.1.40000 > 192.0.2.2.5001: Flags [.], ack 5 (after the target's wrap) */
	struct nt_tcp_packet ack = c2t(NT_TCP_ACK, 11, 5, 0);
	struct nt_segment s;

	(void)state;
	flow4(&f, 40000);
	s = seg_of(&f, &syn, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 0);
	s = seg_of(&f, &synack, NT_DIR_T2C);
	assert_int_equal(s.seq_rel, 0);
	assert_int_equal(s.ack_rel, 1);
	s = seg_of(&f, &hdr, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 1);
	s = seg_of(&f, &body, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 5);
	s = seg_of(&f, &reply, NT_DIR_T2C);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 13);
	s = seg_of(&f, &ack, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 13);
	assert_int_equal(s.ack_rel, 21);
}

/* what this checks: mid-stream ISN at seq 0 wraps to 2^32 - 1 and relative numbers stay right */
static void test_wrap_mid_stream_seq_zero(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet hdr = c2t(NT_TCP_PSH | NT_TCP_ACK, 0, 0, 4);
	struct nt_tcp_packet body = c2t(NT_TCP_PSH | NT_TCP_ACK, 4, 0, 8);
	struct nt_segment s;

	(void)state;
	flow4(&f, 40000);
	s = seg_of(&f, &hdr, NT_DIR_C2T);
	assert_int_equal(f.isn[NT_DIR_C2T], 0xffffffffu);
	assert_int_equal(f.isn[NT_DIR_T2C], 0xffffffffu);
	assert_int_equal(s.seq_rel, 1);
	assert_int_equal(s.ack_rel, 1);
	s = seg_of(&f, &body, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 5);
}

/* what this checks: MSS and window scale are learnt per direction from the SYNs */
static void test_mss_wscale(void **state)
{
	struct nt_flow f;
	/* Flags [S], seq 1000, options [mss 1460,wscale 7] */
	struct nt_tcp_packet syn = c2t(NT_TCP_SYN, 1000, 0, 0);
	/* Flags [S.], seq 7000, ack 1001, options [mss 1400] (no wscale) */
	struct nt_tcp_packet synack = t2c(NT_TCP_SYN | NT_TCP_ACK, 7000, 1001, 0);
	/* Flags [.], ack 7001: carries no options and changes nothing */
	struct nt_tcp_packet ack = c2t(NT_TCP_ACK, 1001, 7001, 0);

	(void)state;
	syn.mss = 1460;
	syn.wscale = 7;
	synack.mss = 1400;
	synack.wscale = -1;
	ack.mss = 536;
	ack.wscale = 2;
	flow4(&f, 40000);
	seg_of(&f, &syn, NT_DIR_C2T);
	seg_of(&f, &synack, NT_DIR_T2C);
	seg_of(&f, &ack, NT_DIR_C2T);
	assert_int_equal(f.mss[NT_DIR_C2T], 1460);
	assert_int_equal(f.wscale[NT_DIR_C2T], 7);
	assert_int_equal(f.mss[NT_DIR_T2C], 1400);
	assert_int_equal(f.wscale[NT_DIR_T2C], -1);
}

/* what this checks: a SYN without MSS option leaves mss at 0, wscale 0 is kept as 0 */
static void test_syn_without_mss(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet syn = c2t(NT_TCP_SYN, 1000, 0, 0);
	struct nt_segment s;

	(void)state;
	syn.wscale = 0;
	flow4(&f, 40000);
	s = seg_of(&f, &syn, NT_DIR_C2T);
	(void)s;
	assert_int_equal(f.mss[NT_DIR_C2T], 0);
	assert_int_equal(f.wscale[NT_DIR_C2T], 0);
}

/* what this checks: a repeated SYN without MSS option keeps the MSS the first one announced */
static void test_syn_again_keeps_mss(void **state)
{
	struct nt_flow f;
	struct nt_tcp_packet syn = c2t(NT_TCP_SYN, 1000, 0, 0);
	struct nt_tcp_packet again = c2t(NT_TCP_SYN, 1000, 0, 0);
	struct nt_segment s;

	(void)state;
	syn.mss = 1460;
	syn.wscale = 7;
	flow4(&f, 40000);
	seg_of(&f, &syn, NT_DIR_C2T);
	s = seg_of(&f, &again, NT_DIR_C2T);
	assert_int_equal(s.seq_rel, 0);
	assert_int_equal(f.mss[NT_DIR_C2T], 1460);
	/* the window scale is what the latest SYN said (here: none) */
	assert_int_equal(f.wscale[NT_DIR_C2T], -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_direction_both_ways),
		cmocka_unit_test(test_client_port_learnt),
		cmocka_unit_test(test_client_port_learnt_from_reply),
		cmocka_unit_test(test_foreign_rejected),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_isn_from_syn),
		cmocka_unit_test(test_isn_mid_stream),
		cmocka_unit_test(test_peer_anchored_from_ack),
		cmocka_unit_test(test_no_ack_no_anchor),
		cmocka_unit_test(test_wrap_around),
		cmocka_unit_test(test_wrap_mid_stream_seq_zero),
		cmocka_unit_test(test_mss_wscale),
		cmocka_unit_test(test_syn_without_mss),
		cmocka_unit_test(test_syn_again_keeps_mss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
