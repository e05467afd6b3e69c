// SPDX-License-Identifier: MIT
/*
 * test_decode.c - nt_decode_frame() on hand-built frames of every link type,
 * at every truncation length, and with each header field made to lie.
 *
 * The frames were built with correct checksums and checked against tshark;
 * the comment above each says what they hold in tcpdump's notation (absolute
 * sequence numbers, as tcpdump prints them when it has seen no SYN).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "nt/model/decode.h"
#include "nt/model/tcp.h"

/*
 * The frames, one header per group of lines: clang-format would pack the bytes
 * across header boundaries, so it is off until the last of them.
 */
/* clang-format off */

/* 02:00:00:00:00:01 > 02:00:00:00:00:02, IPv4, length 70:
 * IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [P.], seq 1001:1005, ack 2001, win 502,
 * options [nop,nop,TS val 123456 ecr 654321], length 4 */
static const uint8_t eth_v4[] = {
	/* Ethernet */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x38, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x88,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP + options */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x80, 0x18, 0x01, 0xf6, 0xa5, 0xb2, 0x00, 0x00, 0x01, 0x01, 0x08, 0x0a,
	0x00, 0x01, 0xe2, 0x40, 0x00, 0x09, 0xfb, 0xf1,
	/* payload */
	0x61, 0x62, 0x63, 0x64,
};

/* 02:00:00:00:00:01 > 02:00:00:00:00:02, IPv4, length 60 (2 bytes of padding):
 * IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [P.], seq 1001:1005, ack 2001, win 502, length 4 */
static const uint8_t eth_pad[] = {
	/* Ethernet */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x2c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x94,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0x90, 0xda, 0x00, 0x00,
	/* payload */
	0x77, 0x78, 0x79, 0x7a,
	/* Ethernet padding */
	0x00, 0x00,
};

/* vlan 100, p 0, ethertype IPv4: IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [.], ack 2001, win 502 */
static const uint8_t eth_vlan1[] = {
	/* Ethernet, 802.1Q VID 100 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x81, 0x00, 0x00, 0x64, 0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x98,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x10, 0x01, 0xf6, 0x81, 0xd9, 0x00, 0x00,
};

/* ethertype 802.1Q-QinQ, vlan 200, p 0, ethertype 802.1Q, vlan 100, p 0, ethertype IPv4:
 * IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [.], ack 2001, win 502 */
static const uint8_t eth_vlan2[] = {
	/* Ethernet, 802.1ad VID 200, 802.1Q VID 100 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x88, 0xa8, 0x00, 0xc8, 0x81, 0x00, 0x00, 0x64, 0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x98,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x10, 0x01, 0xf6, 0x81, 0xd9, 0x00, 0x00,
};

/* Out 02:00:00:00:00:01 ethertype IPv4: IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [.], ack 2001,
 * win 502 (Linux cooked v1) */
static const uint8_t sll[] = {
	/* SLL */
	0x00, 0x04, 0x00, 0x01, 0x00, 0x06, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x98,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x10, 0x01, 0xf6, 0x81, 0xd9, 0x00, 0x00,
};

/* ifindex 2 Out 02:00:00:00:00:01 ethertype IPv4: IP 192.0.2.1.40000 > 192.0.2.2.7:
 * Flags [.], ack 2001, win 502 (Linux cooked v2) */
static const uint8_t sll2[] = {
	/* SLL2 */
	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x04, 0x06,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x98,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x10, 0x01, 0xf6, 0x81, 0xd9, 0x00, 0x00,
};

/* IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [.], ack 2001, win 502 (raw IP) */
static const uint8_t raw_v4[] = {
	/* IPv4 */
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x98,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x10, 0x01, 0xf6, 0x81, 0xd9, 0x00, 0x00,
};

/* IP6 2001:db8::1.40000 > 2001:db8::2.7: Flags [P.], seq 1001:1005, ack 2001, win 502,
 * length 4 (raw IP) */
static const uint8_t raw_v6[] = {
	/* IPv6 */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x18, 0x06, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0xe5, 0x95, 0x00, 0x00,
	/* payload */
	0x61, 0x62, 0x63, 0x64,
};

/* IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [.], ack 2001, win 502 (OpenBSD loopback, AF_INET
 * in network byte order) */
static const uint8_t loop_v4[] = {
	/* LOOP */
	0x00, 0x00, 0x00, 0x02,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x98,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x10, 0x01, 0xf6, 0x81, 0xd9, 0x00, 0x00,
};

/* IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [P.], seq 1001:1005, ack 2001, win 502, length 4
 * (IP options [RA]) */
static const uint8_t ipopt[] = {
	/* IPv4 + options */
	0x46, 0x00, 0x00, 0x30, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x0f, 0x8c,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02, 0x94, 0x04, 0x00, 0x00,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0xbd, 0x06, 0x00, 0x00,
	/* payload */
	0x61, 0x62, 0x63, 0x64,
};

/* IP6 2001:db8::1 > 2001:db8::2: HBH PadN DSTOPT PadN 2001:db8::1.40000 > 2001:db8::2.7:
 * Flags [P.], seq 1001:1005, ack 2001, win 502, length 4 */
static const uint8_t v6_ext[] = {
	/* IPv6 */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
	/* hop-by-hop */
	0x3c, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00,
	/* destination options */
	0x06, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0xe5, 0x95, 0x00, 0x00,
	/* payload */
	0x61, 0x62, 0x63, 0x64,
};

/* IP6 2001:db8::1 > 2001:db8::2: frag (0xdeadbeef:1448|16) */
static const uint8_t v6_frag[] = {
	/* IPv6 */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x18, 0x2c, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
	/* fragment */
	0x06, 0x00, 0x05, 0xa8, 0xde, 0xad, 0xbe, 0xef,
	/* fragment data */
	0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78, 0x78,
	0x78, 0x78, 0x78, 0x78,
};

/* IP6 2001:db8::1 > 2001:db8::2: frag (0xdeadbeef:0|24) 2001:db8::1.40000 > 2001:db8::2.7:
 * Flags [P.], seq 1001:1005, ack 2001, win 502, length 4 */
static const uint8_t v6_frag0[] = {
	/* IPv6 */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x20, 0x2c, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
	/* fragment */
	0x06, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0xe5, 0x95, 0x00, 0x00,
	/* payload */
	0x61, 0x62, 0x63, 0x64,
};

/* IP 192.0.2.1 > 192.0.2.2: tcp (frag 4660:20@1480) */
static const uint8_t v4_frag[] = {
	/* IPv4 */
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x00, 0xb9, 0x40, 0x06, 0xe3, 0xdf,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* fragment data */
	0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79,
	0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79, 0x79,
};

/* IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [P.], seq 1001:1005, ack 2001, win 502, length 4
 * (frag 4660:24@0+) */
static const uint8_t v4_frag0[] = {
	/* IPv4 */
	0x45, 0x00, 0x00, 0x2c, 0x12, 0x34, 0x20, 0x00, 0x40, 0x06, 0xc4, 0x94,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0xbd, 0x06, 0x00, 0x00,
	/* payload */
	0x61, 0x62, 0x63, 0x64,
};

/* IP 192.0.2.1.53000 > 192.0.2.2.9: UDP, length 4 */
static const uint8_t udp[] = {
	/* Ethernet */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x20, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0xa4, 0x95,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* UDP */
	0xcf, 0x08, 0x00, 0x09, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* ARP, Request who-has 192.0.2.2 tell 192.0.2.1, length 46 */
static const uint8_t arp[] = {
	/* Ethernet */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x06,
	/* ARP */
	0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00,
	0x00, 0x01, 0xc0, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xc0, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [S], seq 1000, win 64240,
 * options [mss 1460,sackOK,TS val 123456 ecr 0,nop,wscale 7], length 0 */
static const uint8_t syn[] = {
	/* Ethernet */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x3c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0x84,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP + options */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00,
	0xa0, 0x02, 0xfa, 0xf0, 0x46, 0x9a, 0x00, 0x00, 0x02, 0x04, 0x05, 0xb4,
	0x04, 0x02, 0x08, 0x0a, 0x00, 0x01, 0xe2, 0x40, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x03, 0x03, 0x07,
};

/*
 * IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [P.], seq 1001:4001, ack 2001, win 502, length 3000
 * with IP total length 0, as a Linux TSO capture shows it: the headers only, the 3000 bytes of
 * payload ('z') are appended by build_gso().
 */
static const uint8_t tso_hdr[] = {
	/* IPv4, len 0 */
	0x45, 0x00, 0x00, 0x00, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0xa4, 0xc0,
	0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0xd0, 0x73, 0x00, 0x00,
};

/* IP6 2001:db8::1.40000 > 2001:db8::2.7: Flags [P.], seq 1001:4001, ack 2001, win 502,
 * length 3000, with payload length 0 (BIG TCP GSO): headers only, as tso_hdr */
static const uint8_t jumbo_hdr[] = {
	/* IPv6, plen 0 */
	0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x40, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,
	/* TCP */
	0x9c, 0x40, 0x00, 0x07, 0x00, 0x00, 0x03, 0xe9, 0x00, 0x00, 0x07, 0xd1,
	0x50, 0x18, 0x01, 0xf6, 0xf9, 0x02, 0x00, 0x00,
};

/* clang-format on */

#define GSO_PAYLOAD_BYTES 3000

static const uint8_t addr_a4[4] = { 192, 0, 2, 1 };
static const uint8_t addr_b4[4] = { 192, 0, 2, 2 };
static const uint8_t addr_a6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t addr_b6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* Offsets into eth_v4 and syn, both Ethernet + 20-byte IPv4 */
#define ETH_IP_OFF	14
#define ETH_TCP_OFF	34
#define ETH_TCP_DOFF	(ETH_TCP_OFF + 12)
#define ETH_TCP_OPT_OFF (ETH_TCP_OFF + 20)

static uint8_t *copy_frame(uint8_t *dst, const uint8_t *src, size_t len)
{
	memcpy(dst, src, len);
	return dst;
}

static size_t build_gso(uint8_t *buf, const uint8_t *hdr, size_t hdr_len)
{
	memcpy(buf, hdr, hdr_len);
	memset(buf + hdr_len, 'z', GSO_PAYLOAD_BYTES);
	return hdr_len + GSO_PAYLOAD_BYTES;
}

/* The pure ACK that eth_vlan1, eth_vlan2, sll, sll2, raw_v4, loop_v4 carry */
static void assert_v4_ack(const struct nt_tcp_packet *pkt, uint32_t payload_offset)
{
	assert_int_equal(pkt->family, AF_INET);
	assert_memory_equal(pkt->src_addr, addr_a4, 4);
	assert_memory_equal(pkt->dst_addr, addr_b4, 4);
	assert_int_equal(pkt->src_port, 40000);
	assert_int_equal(pkt->dst_port, 7);
	assert_int_equal(pkt->seq, 1001);
	assert_int_equal(pkt->ack, 2001);
	assert_int_equal(pkt->flags, NT_TCP_ACK);
	assert_int_equal(pkt->window, 502);
	assert_int_equal(pkt->payload_bytes, 0);
	assert_int_equal(pkt->payload_captured, 0);
	assert_int_equal(pkt->payload_offset, payload_offset);
	assert_int_equal(pkt->mss, 0);
	assert_int_equal(pkt->wscale, -1);
	assert_false(pkt->sack_permitted);
	assert_false(pkt->has_timestamps);
}

/* The 4-byte push that raw_v6, v6_ext, v6_frag0 carry */
static void assert_v6_push(const struct nt_tcp_packet *pkt, uint32_t payload_offset)
{
	assert_int_equal(pkt->family, AF_INET6);
	assert_memory_equal(pkt->src_addr, addr_a6, 16);
	assert_memory_equal(pkt->dst_addr, addr_b6, 16);
	assert_int_equal(pkt->src_port, 40000);
	assert_int_equal(pkt->dst_port, 7);
	assert_int_equal(pkt->seq, 1001);
	assert_int_equal(pkt->ack, 2001);
	assert_int_equal(pkt->flags, NT_TCP_PSH | NT_TCP_ACK);
	assert_int_equal(pkt->window, 502);
	assert_int_equal(pkt->payload_bytes, 4);
	assert_int_equal(pkt->payload_captured, 4);
	assert_int_equal(pkt->payload_offset, payload_offset);
	assert_int_equal(pkt->wscale, -1);
}

static void test_ethernet(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, eth_v4, sizeof(eth_v4), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.family, AF_INET);
	assert_memory_equal(pkt.src_addr, addr_a4, 4);
	assert_memory_equal(pkt.dst_addr, addr_b4, 4);
	assert_int_equal(pkt.src_port, 40000);
	assert_int_equal(pkt.dst_port, 7);
	assert_int_equal(pkt.seq, 1001);
	assert_int_equal(pkt.ack, 2001);
	assert_int_equal(pkt.flags, NT_TCP_PSH | NT_TCP_ACK);
	assert_int_equal(pkt.window, 502);
	assert_int_equal(pkt.payload_bytes, 4);
	assert_int_equal(pkt.payload_captured, 4);
	assert_int_equal(pkt.payload_offset, 66);
	assert_memory_equal(eth_v4 + pkt.payload_offset, "abcd", 4);
	assert_int_equal(pkt.mss, 0);
	assert_int_equal(pkt.wscale, -1);
	assert_false(pkt.sack_permitted);
	assert_true(pkt.has_timestamps);
	assert_int_equal(pkt.tsval, 123456);
	assert_int_equal(pkt.tsecr, 654321);
	assert_int_equal(pkt.vlan_tags, 0);
}

/* A capture buffer at an odd address: the decoder must not cast it to a struct. */
static void test_unaligned(void **state)
{
	uint8_t buf[sizeof(eth_v4) + 1];
	struct nt_tcp_packet pkt;

	(void)state;
	copy_frame(buf + 1, eth_v4, sizeof(eth_v4));
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf + 1, sizeof(eth_v4), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.seq, 1001);
	assert_int_equal(pkt.tsecr, 654321);
	assert_int_equal(pkt.payload_offset, 66);
}

static void test_ethernet_padding(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(sizeof(eth_pad), 60);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, eth_pad, sizeof(eth_pad), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.payload_bytes, 4);
	assert_int_equal(pkt.payload_captured, 4);
	assert_int_equal(pkt.payload_offset, 54);
	assert_int_equal(pkt.flags, NT_TCP_PSH | NT_TCP_ACK);
}

static void test_ethernet_vlan(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, eth_vlan1, sizeof(eth_vlan1), &pkt),
			 NT_DECODE_OK);
	assert_v4_ack(&pkt, 58);
	assert_int_equal(pkt.vlan_tags, 1);

	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, eth_vlan2, sizeof(eth_vlan2), &pkt),
			 NT_DECODE_OK);
	assert_v4_ack(&pkt, 62);
	assert_int_equal(pkt.vlan_tags, 2);
}

/* Stack n tags (cycling through the three TPIDs) in front of raw_v4. */
static size_t build_vlan_stack(uint8_t *buf, unsigned int n)
{
	static const uint16_t tpids[] = { 0x8100, 0x88a8, 0x9100 };
	size_t off = 12;

	memcpy(buf, eth_v4, 12);
	for (unsigned int i = 0; i < n; i++) {
		buf[off] = (uint8_t)(tpids[i % 3] >> 8);
		buf[off + 1] = (uint8_t)tpids[i % 3];
		buf[off + 2] = 0;
		buf[off + 3] = (uint8_t)(i + 1);
		off += 4;
	}
	buf[off] = 0x08;
	buf[off + 1] = 0x00;
	memcpy(buf + off + 2, raw_v4, sizeof(raw_v4));
	return off + 2 + sizeof(raw_v4);
}

static void test_ethernet_vlan_limit(void **state)
{
	uint8_t buf[14 + 9 * 4 + sizeof(raw_v4)];
	struct nt_tcp_packet pkt;
	size_t len;

	(void)state;
	len = build_vlan_stack(buf, 8);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, len, &pkt), NT_DECODE_OK);
	assert_int_equal(pkt.vlan_tags, 8);
	assert_v4_ack(&pkt, 14 + 8 * 4 + 40);

	len = build_vlan_stack(buf, 9);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, len, &pkt), NT_DECODE_NOT_TCP);

	/* the capture ends inside the second tag (bytes 16-19) of a longer frame */
	len = build_vlan_stack(buf, 2);
	assert_true(len > 20);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, 17, &pkt), NT_DECODE_TRUNCATED);
}

static void test_linux_cooked(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_LINUX_SLL, sll, sizeof(sll), &pkt),
			 NT_DECODE_OK);
	assert_v4_ack(&pkt, 56);
	assert_int_equal(pkt.vlan_tags, 0);

	assert_int_equal(nt_decode_frame(NT_LINKTYPE_LINUX_SLL2, sll2, sizeof(sll2), &pkt),
			 NT_DECODE_OK);
	assert_v4_ack(&pkt, 60);
}

static void test_raw(void **state)
{
	static const int raw_types[] = { NT_LINKTYPE_DLT_RAW, NT_LINKTYPE_DLT_RAW_BSD,
					 NT_LINKTYPE_RAW };
	struct nt_tcp_packet pkt;

	(void)state;
	for (size_t i = 0; i < sizeof(raw_types) / sizeof(raw_types[0]); i++) {
		assert_int_equal(nt_decode_frame(raw_types[i], raw_v4, sizeof(raw_v4), &pkt),
				 NT_DECODE_OK);
		assert_v4_ack(&pkt, 40);
		assert_int_equal(nt_decode_frame(raw_types[i], raw_v6, sizeof(raw_v6), &pkt),
				 NT_DECODE_OK);
		assert_v6_push(&pkt, 60);
	}
}

static void test_raw_bad_version(void **state)
{
	uint8_t buf[sizeof(raw_v4)];
	struct nt_tcp_packet pkt;

	(void)state;
	copy_frame(buf, raw_v4, sizeof(raw_v4))[0] = 0x55;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_RAW, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);
	/* LINKTYPE_IPV6 says v6, the header says v4 */
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, raw_v4, sizeof(raw_v4), &pkt),
			 NT_DECODE_MALFORMED);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, raw_v6, sizeof(raw_v6), &pkt),
			 NT_DECODE_MALFORMED);
}

static size_t build_null(uint8_t *buf, uint32_t family, bool swap, const uint8_t *ip, size_t ip_len)
{
	if (swap)
		family = __builtin_bswap32(family);
	memcpy(buf, &family, 4);
	memcpy(buf + 4, ip, ip_len);
	return 4 + ip_len;
}

/*
 * IP 192.0.2.1.40000 > 192.0.2.2.7: Flags [.], ack 2001, win 502 and
 * IP6 2001:db8::1.40000 > 2001:db8::2.7: Flags [P.], seq 1001:1005, ack 2001, win 502, length 4
 * behind a BSD loopback header, family in the writer's byte order: ours, and the other one.
 */
static void test_null(void **state)
{
	static const uint32_t inet6[] = { 10, 24, 28, 30 };
	uint8_t buf[4 + sizeof(raw_v6)];
	struct nt_tcp_packet pkt;
	size_t len;

	(void)state;
	for (int swap = 0; swap <= 1; swap++) {
		len = build_null(buf, 2, swap, raw_v4, sizeof(raw_v4));
		assert_int_equal(nt_decode_frame(NT_LINKTYPE_NULL, buf, len, &pkt), NT_DECODE_OK);
		assert_v4_ack(&pkt, 44);
		for (size_t i = 0; i < sizeof(inet6) / sizeof(inet6[0]); i++) {
			len = build_null(buf, inet6[i], swap, raw_v6, sizeof(raw_v6));
			assert_int_equal(nt_decode_frame(NT_LINKTYPE_NULL, buf, len, &pkt),
					 NT_DECODE_OK);
			assert_v6_push(&pkt, 64);
		}
		/* AF_APPLETALK on BSD: a family we do not decode */
		len = build_null(buf, 16, swap, raw_v4, sizeof(raw_v4));
		assert_int_equal(nt_decode_frame(NT_LINKTYPE_NULL, buf, len, &pkt),
				 NT_DECODE_NOT_TCP);
	}
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_NULL, buf, 3, &pkt), NT_DECODE_TRUNCATED);
}

static void test_loop(void **state)
{
	uint8_t buf[4 + sizeof(raw_v6)];
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_LOOP, loop_v4, sizeof(loop_v4), &pkt),
			 NT_DECODE_OK);
	assert_v4_ack(&pkt, 44);

	/* AF_INET6 is 24 on OpenBSD, the home of DLT_LOOP */
	buf[0] = 0;
	buf[1] = 0;
	buf[2] = 0;
	buf[3] = 24;
	memcpy(buf + 4, raw_v6, sizeof(raw_v6));
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_LOOP, buf, sizeof(buf), &pkt), NT_DECODE_OK);
	assert_v6_push(&pkt, 64);

	/* network byte order only: 24 in little-endian is no family */
	buf[0] = 24;
	buf[3] = 0;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_LOOP, buf, sizeof(buf), &pkt),
			 NT_DECODE_NOT_TCP);
}

static void test_linktype_ipv4_options(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, ipopt, sizeof(ipopt), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.family, AF_INET);
	assert_memory_equal(pkt.src_addr, addr_a4, 4);
	assert_memory_equal(pkt.dst_addr, addr_b4, 4);
	assert_int_equal(pkt.src_port, 40000);
	assert_int_equal(pkt.dst_port, 7);
	assert_int_equal(pkt.seq, 1001);
	assert_int_equal(pkt.flags, NT_TCP_PSH | NT_TCP_ACK);
	assert_int_equal(pkt.payload_bytes, 4);
	assert_int_equal(pkt.payload_captured, 4);
	assert_int_equal(pkt.payload_offset, 44);
	assert_memory_equal(ipopt + pkt.payload_offset, "abcd", 4);

	/* the capture ends inside the IP options */
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, ipopt, 22, &pkt), NT_DECODE_TRUNCATED);
}

static void test_linktype_ipv6_ext_headers(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, v6_ext, sizeof(v6_ext), &pkt),
			 NT_DECODE_OK);
	assert_v6_push(&pkt, 76);
	assert_memory_equal(v6_ext + pkt.payload_offset, "abcd", 4);
}

/* A routing header in place of v6_ext's hop-by-hop, then "no next header" (59) behind it. */
static void test_ipv6_routing(void **state)
{
	uint8_t buf[sizeof(v6_ext)];
	struct nt_tcp_packet pkt;

	(void)state;
	copy_frame(buf, v6_ext, sizeof(v6_ext))[6] = 43;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, buf, sizeof(buf), &pkt), NT_DECODE_OK);
	assert_v6_push(&pkt, 76);

	buf[40] = 59;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, buf, sizeof(buf), &pkt),
			 NT_DECODE_NOT_TCP);
}

/*
 * IP6 2001:db8::1 > 2001:db8::2: AH(spi=0x00001000,seq=0x1): 2001:db8::1.40000 > 2001:db8::2.7:
 * Flags [P.], seq 1001:1005, ack 2001, win 502, length 4
 * built from raw_v6 with a 24-byte AH (12-byte ICV) inserted: Payload Len 4 means
 * (4 + 2) * 4 bytes, RFC 4302 §2.2, where the other headers would make it (4 + 1) * 8.
 */
static void test_ipv6_ah(void **state)
{
	static const uint8_t ah[24] = { 6, 4, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 1 };
	uint8_t buf[sizeof(raw_v6) + sizeof(ah)];
	struct nt_tcp_packet pkt;

	(void)state;
	memcpy(buf, raw_v6, 40);
	buf[5] += sizeof(ah);
	buf[6] = 51;
	memcpy(buf + 40, ah, sizeof(ah));
	memcpy(buf + 40 + sizeof(ah), raw_v6 + 40, sizeof(raw_v6) - 40);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, buf, sizeof(buf), &pkt), NT_DECODE_OK);
	assert_v6_push(&pkt, 84);
	assert_memory_equal(buf + pkt.payload_offset, "abcd", 4);
}

static void test_ipv6_fragments(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, v6_frag, sizeof(v6_frag), &pkt),
			 NT_DECODE_NOT_TCP);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, v6_frag0, sizeof(v6_frag0), &pkt),
			 NT_DECODE_OK);
	assert_v6_push(&pkt, 68);
}

static void test_ipv4_fragments(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, v4_frag, sizeof(v4_frag), &pkt),
			 NT_DECODE_NOT_TCP);
	/* first fragment, MF set: the TCP header is all there */
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, v4_frag0, sizeof(v4_frag0), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.src_port, 40000);
	assert_int_equal(pkt.seq, 1001);
	assert_int_equal(pkt.payload_bytes, 4);
	assert_int_equal(pkt.payload_offset, 40);
}

static void test_not_tcp(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, udp, sizeof(udp), &pkt),
			 NT_DECODE_NOT_TCP);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, arp, sizeof(arp), &pkt),
			 NT_DECODE_NOT_TCP);
}

static void test_syn_options(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, syn, sizeof(syn), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.flags, NT_TCP_SYN);
	assert_int_equal(pkt.seq, 1000);
	assert_int_equal(pkt.ack, 0);
	assert_int_equal(pkt.window, 64240);
	assert_int_equal(pkt.mss, 1460);
	assert_int_equal(pkt.wscale, 7);
	assert_true(pkt.sack_permitted);
	assert_true(pkt.has_timestamps);
	assert_int_equal(pkt.tsval, 123456);
	assert_int_equal(pkt.tsecr, 0);
	assert_int_equal(pkt.payload_bytes, 0);
	assert_int_equal(pkt.payload_captured, 0);
	assert_int_equal(pkt.payload_offset, 74);
}

/* Odd option values: a shift above 14 is reported raw, a known kind of the wrong size skipped. */
static void test_option_values(void **state)
{
	uint8_t buf[sizeof(syn)];
	struct nt_tcp_packet pkt;

	(void)state;
	copy_frame(buf, syn, sizeof(syn))[73] = 14;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.wscale, 14);
	buf[73] = 200;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.wscale, INT8_MAX);

	/* MSS with length 2, then two unknown 2-byte options (kind 254) over its value and sackOK */
	copy_frame(buf, syn, sizeof(syn));
	buf[ETH_TCP_OPT_OFF + 1] = 2;
	buf[ETH_TCP_OPT_OFF + 2] = 254;
	buf[ETH_TCP_OPT_OFF + 3] = 2;
	buf[ETH_TCP_OPT_OFF + 4] = 254;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.mss, 0);
	assert_false(pkt.sack_permitted);
	assert_true(pkt.has_timestamps);
	assert_int_equal(pkt.wscale, 7);

	/* EOL ends the list: nothing after it is read */
	copy_frame(buf, syn, sizeof(syn))[ETH_TCP_OPT_OFF + 4] = 0;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_OK);
	assert_int_equal(pkt.mss, 1460);
	assert_false(pkt.sack_permitted);
	assert_false(pkt.has_timestamps);
	assert_int_equal(pkt.wscale, -1);
}

/*
 * Cut a frame at every length. Below the end of the fixed TCP header the
 * decoder must say TRUNCATED; from there on OK with the IP header's payload
 * length and a captured count that grows byte by byte.
 */
static void check_every_caplen(int linktype, const uint8_t *frame, size_t len, size_t tcp_off,
			       uint32_t payload_offset, uint32_t payload_bytes)
{
	struct nt_tcp_packet pkt;

	for (size_t caplen = 0; caplen <= len; caplen++) {
		enum nt_decode_status st = nt_decode_frame(linktype, frame, caplen, &pkt);

		if (caplen < tcp_off + 20) {
			assert_int_equal(st, NT_DECODE_TRUNCATED);
			continue;
		}
		assert_int_equal(st, NT_DECODE_OK);
		assert_int_equal(pkt.src_port, 40000);
		assert_int_equal(pkt.dst_port, 7);
		assert_int_equal(pkt.seq, 1001);
		assert_int_equal(pkt.ack, 2001);
		assert_int_equal(pkt.payload_bytes, payload_bytes);
		assert_int_equal(pkt.payload_offset, payload_offset);
		if (caplen <= payload_offset)
			assert_int_equal(pkt.payload_captured, 0);
		else if (caplen - payload_offset >= payload_bytes)
			assert_int_equal(pkt.payload_captured, payload_bytes);
		else
			assert_int_equal(pkt.payload_captured, caplen - payload_offset);
	}
}

static void test_truncation_every_caplen(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	check_every_caplen(NT_LINKTYPE_ETHERNET, eth_v4, sizeof(eth_v4), ETH_TCP_OFF, 66, 4);
	check_every_caplen(NT_LINKTYPE_ETHERNET, eth_vlan2, sizeof(eth_vlan2), 42, 62, 0);
	check_every_caplen(NT_LINKTYPE_LINUX_SLL2, sll2, sizeof(sll2), 40, 60, 0);
	check_every_caplen(NT_LINKTYPE_IPV4, ipopt, sizeof(ipopt), 24, 44, 4);
	check_every_caplen(NT_LINKTYPE_IPV6, v6_ext, sizeof(v6_ext), 56, 76, 4);
	check_every_caplen(NT_LINKTYPE_IPV6, v6_frag0, sizeof(v6_frag0), 48, 68, 4);
	check_every_caplen(NT_LINKTYPE_RAW, raw_v6, sizeof(raw_v6), 40, 60, 4);

	/* the timestamps option is only reported once all 10 bytes of it are captured */
	for (size_t caplen = ETH_TCP_OPT_OFF; caplen <= sizeof(eth_v4); caplen++) {
		assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, eth_v4, caplen, &pkt),
				 NT_DECODE_OK);
		assert_int_equal(pkt.has_timestamps, caplen >= ETH_TCP_OPT_OFF + 12);
	}
}

/* SYN options cut by the snap length are ignored, those captured still parsed. */
static void test_options_cut_by_snaplen(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	for (size_t caplen = ETH_TCP_OPT_OFF; caplen <= sizeof(syn); caplen++) {
		assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, syn, caplen, &pkt),
				 NT_DECODE_OK);
		assert_int_equal(pkt.mss, caplen >= ETH_TCP_OPT_OFF + 4 ? 1460 : 0);
		assert_int_equal(pkt.sack_permitted, caplen >= ETH_TCP_OPT_OFF + 6);
		assert_int_equal(pkt.has_timestamps, caplen >= ETH_TCP_OPT_OFF + 16);
		assert_int_equal(pkt.wscale, caplen >= ETH_TCP_OPT_OFF + 20 ? 7 : -1);
		assert_int_equal(pkt.payload_bytes, 0);
		assert_int_equal(pkt.payload_captured, 0);
	}
}

static void test_gso_zero_length(void **state)
{
	static uint8_t buf[sizeof(jumbo_hdr) + GSO_PAYLOAD_BYTES];
	struct nt_tcp_packet pkt;
	size_t len;

	(void)state;
	len = build_gso(buf, tso_hdr, sizeof(tso_hdr));
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, buf, len, &pkt), NT_DECODE_OK);
	assert_int_equal(pkt.family, AF_INET);
	assert_int_equal(pkt.seq, 1001);
	assert_int_equal(pkt.payload_bytes, GSO_PAYLOAD_BYTES);
	assert_int_equal(pkt.payload_captured, GSO_PAYLOAD_BYTES);
	assert_int_equal(pkt.payload_offset, 40);
	/* with no length field, a snap length is all the payload there is */
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, buf, 96, &pkt), NT_DECODE_OK);
	assert_int_equal(pkt.payload_bytes, 56);
	assert_int_equal(pkt.payload_captured, 56);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV4, buf, 39, &pkt), NT_DECODE_TRUNCATED);

	len = build_gso(buf, jumbo_hdr, sizeof(jumbo_hdr));
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, buf, len, &pkt), NT_DECODE_OK);
	assert_int_equal(pkt.family, AF_INET6);
	assert_int_equal(pkt.seq, 1001);
	assert_int_equal(pkt.payload_bytes, GSO_PAYLOAD_BYTES);
	assert_int_equal(pkt.payload_captured, GSO_PAYLOAD_BYTES);
	assert_int_equal(pkt.payload_offset, 60);
}

static void test_malformed_ipv4(void **state)
{
	uint8_t buf[sizeof(eth_v4)];
	struct nt_tcp_packet pkt;

	(void)state;
	/* IHL 4: shorter than the fixed header */
	copy_frame(buf, eth_v4, sizeof(eth_v4))[ETH_IP_OFF] = 0x44;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);
	/* visible from the first IP byte on, so MALFORMED however short the capture */
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, ETH_IP_OFF + 1, &pkt),
			 NT_DECODE_MALFORMED);

	/* EtherType IPv4 over a version-6 header */
	copy_frame(buf, eth_v4, sizeof(eth_v4))[ETH_IP_OFF] = 0x65;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);

	/* total length 19, less than the 20-byte IP header */
	copy_frame(buf, eth_v4, sizeof(eth_v4))[ETH_IP_OFF + 3] = 19;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);

	/* total length 30: room for the IP header and 10 bytes, less than a TCP header */
	buf[ETH_IP_OFF + 3] = 30;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);

	/* total length 50: IP 20 + TCP 20, but the data offset says 32 bytes of TCP header */
	buf[ETH_IP_OFF + 3] = 50;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);
}

static void test_malformed_tcp(void **state)
{
	uint8_t buf[sizeof(syn)];
	struct nt_tcp_packet pkt;

	(void)state;
	/* data offset 4: shorter than the fixed header */
	copy_frame(buf, eth_v4, sizeof(eth_v4))[ETH_TCP_DOFF] = 0x40;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(eth_v4), &pkt),
			 NT_DECODE_MALFORMED);

	/* eth_pad has 24 bytes of TCP; data offset 7 claims 28 */
	copy_frame(buf, eth_pad, sizeof(eth_pad))[ETH_TCP_DOFF] = 0x70;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(eth_pad), &pkt),
			 NT_DECODE_MALFORMED);
	/* the contradiction is in the headers, so even a short capture shows it */
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, ETH_TCP_OPT_OFF, &pkt),
			 NT_DECODE_MALFORMED);

	/* MSS option with length 1 */
	copy_frame(buf, syn, sizeof(syn))[ETH_TCP_OPT_OFF + 1] = 1;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(syn), &pkt),
			 NT_DECODE_MALFORMED);
	/* length 0 would loop forever if it were trusted */
	buf[ETH_TCP_OPT_OFF + 1] = 0;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(syn), &pkt),
			 NT_DECODE_MALFORMED);

	/* the last option, window scale, claims 4 bytes where 3 are left in the header */
	copy_frame(buf, syn, sizeof(syn))[sizeof(syn) - 2] = 4;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(syn), &pkt),
			 NT_DECODE_MALFORMED);

	/* a kind in the last option byte, with no room for its length */
	copy_frame(buf, syn, sizeof(syn));
	buf[sizeof(syn) - 3] = 1;
	buf[sizeof(syn) - 2] = 1;
	buf[sizeof(syn) - 1] = 3;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_ETHERNET, buf, sizeof(syn), &pkt),
			 NT_DECODE_MALFORMED);
}

static void test_malformed_ipv6(void **state)
{
	uint8_t buf[sizeof(v6_ext)];
	struct nt_tcp_packet pkt;

	(void)state;
	/* hop-by-hop claims 8 * (1 + 10) bytes, past the 40-byte payload */
	copy_frame(buf, v6_ext, sizeof(v6_ext))[41] = 10;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);

	/* payload length 20: the extension headers fit, the TCP header does not */
	copy_frame(buf, v6_ext, sizeof(v6_ext))[5] = 20;
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_IPV6, buf, sizeof(buf), &pkt),
			 NT_DECODE_MALFORMED);
}

static void test_empty_and_short(void **state)
{
	static const int linktypes[] = {
		NT_LINKTYPE_NULL,	 NT_LINKTYPE_ETHERNET, NT_LINKTYPE_DLT_RAW,
		NT_LINKTYPE_DLT_RAW_BSD, NT_LINKTYPE_RAW,      NT_LINKTYPE_LOOP,
		NT_LINKTYPE_LINUX_SLL,	 NT_LINKTYPE_IPV4,     NT_LINKTYPE_IPV6,
		NT_LINKTYPE_LINUX_SLL2,
	};
	struct nt_tcp_packet pkt;

	(void)state;
	for (size_t i = 0; i < sizeof(linktypes) / sizeof(linktypes[0]); i++)
		assert_int_equal(nt_decode_frame(linktypes[i], NULL, 0, &pkt), NT_DECODE_TRUNCATED);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_LINUX_SLL, sll, 15, &pkt),
			 NT_DECODE_TRUNCATED);
	assert_int_equal(nt_decode_frame(NT_LINKTYPE_LINUX_SLL2, sll2, 19, &pkt),
			 NT_DECODE_TRUNCATED);
}

static void test_unsupported_link(void **state)
{
	struct nt_tcp_packet pkt;

	(void)state;
	assert_int_equal(nt_decode_frame(9999, eth_v4, sizeof(eth_v4), &pkt),
			 NT_DECODE_UNSUPPORTED_LINK);
	assert_false(nt_decode_linktype_supported(9999));
	assert_false(nt_decode_linktype_supported(-1));
	assert_false(nt_decode_linktype_supported(105)); /* 802.11 */
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_NULL));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_ETHERNET));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_DLT_RAW));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_DLT_RAW_BSD));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_RAW));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_LOOP));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_LINUX_SLL));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_IPV4));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_IPV6));
	assert_true(nt_decode_linktype_supported(NT_LINKTYPE_LINUX_SLL2));
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(nt_decode_status_name(NT_DECODE_OK), "ok");
	assert_string_equal(nt_decode_status_name(NT_DECODE_NOT_TCP), "not_tcp");
	assert_string_equal(nt_decode_status_name(NT_DECODE_TRUNCATED), "truncated");
	assert_string_equal(nt_decode_status_name(NT_DECODE_MALFORMED), "malformed");
	assert_string_equal(nt_decode_status_name(NT_DECODE_UNSUPPORTED_LINK), "unsupported_link");
	assert_string_equal(nt_decode_status_name((enum nt_decode_status)42), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ethernet),
		cmocka_unit_test(test_unaligned),
		cmocka_unit_test(test_ethernet_padding),
		cmocka_unit_test(test_ethernet_vlan),
		cmocka_unit_test(test_ethernet_vlan_limit),
		cmocka_unit_test(test_linux_cooked),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_raw_bad_version),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_linktype_ipv4_options),
		cmocka_unit_test(test_linktype_ipv6_ext_headers),
		cmocka_unit_test(test_ipv6_routing),
		cmocka_unit_test(test_ipv6_ah),
		cmocka_unit_test(test_ipv6_fragments),
		cmocka_unit_test(test_ipv4_fragments),
		cmocka_unit_test(test_not_tcp),
		cmocka_unit_test(test_syn_options),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_truncation_every_caplen),
		cmocka_unit_test(test_options_cut_by_snaplen),
		cmocka_unit_test(test_gso_zero_length),
		cmocka_unit_test(test_malformed_ipv4),
		cmocka_unit_test(test_malformed_tcp),
		cmocka_unit_test(test_malformed_ipv6),
		cmocka_unit_test(test_empty_and_short),
		cmocka_unit_test(test_unsupported_link),
		cmocka_unit_test(test_status_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
