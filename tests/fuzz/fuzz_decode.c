// SPDX-License-Identifier: MIT
/*
 * fuzz_decode.c - libFuzzer target for nt_decode_frame().
 *
 * The first input byte picks a link type, the rest is the frame. ASan catches
 * any read past the frame (libFuzzer hands us a heap buffer of exactly the
 * input's size); the checks below catch a decode that returns OK with fields
 * that contradict each other or the capture.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int linktypes[] = {
	NT_LINKTYPE_NULL, NT_LINKTYPE_ETHERNET,	  NT_LINKTYPE_DLT_RAW,	 NT_LINKTYPE_DLT_RAW_BSD,
	NT_LINKTYPE_RAW,  NT_LINKTYPE_LOOP,	  NT_LINKTYPE_LINUX_SLL, NT_LINKTYPE_IPV4,
	NT_LINKTYPE_IPV6, NT_LINKTYPE_LINUX_SLL2,
};

#define N_LINKTYPES (sizeof(linktypes) / sizeof(linktypes[0]))

/* The largest TCP header is 60 bytes, of which the decoder insists on the fixed 20. */
#define TCP_OPTIONS_MAX 40

static void check(bool ok)
{
	if (!ok)
		__builtin_trap();
}

/*
 * Field by field, not memcmp(): struct nt_tcp_packet has padding, and C11
 * 6.2.6.1 leaves padding bytes unspecified after any member store, whatever
 * the decoder's memset() put there first.
 */
static bool same_packet(const struct nt_tcp_packet *a, const struct nt_tcp_packet *b)
{
	return a->family == b->family && !memcmp(a->src_addr, b->src_addr, sizeof(a->src_addr)) &&
	       !memcmp(a->dst_addr, b->dst_addr, sizeof(a->dst_addr)) &&
	       a->src_port == b->src_port && a->dst_port == b->dst_port && a->seq == b->seq &&
	       a->ack == b->ack && a->flags == b->flags && a->window == b->window &&
	       a->payload_bytes == b->payload_bytes && a->payload_captured == b->payload_captured &&
	       a->payload_offset == b->payload_offset && a->mss == b->mss &&
	       a->wscale == b->wscale && a->sack_permitted == b->sack_permitted &&
	       a->has_timestamps == b->has_timestamps && a->tsval == b->tsval &&
	       a->tsecr == b->tsecr && a->vlan_tags == b->vlan_tags;
}

/* A field added to struct nt_tcp_packet changes its size: compare it in same_packet() too. */
_Static_assert(sizeof(struct nt_tcp_packet) == 84, "same_packet() compares every field");

static void check_ok(int linktype, const struct nt_tcp_packet *pkt, size_t caplen)
{
	static const uint8_t zero[12];

	check(pkt->family == AF_INET || pkt->family == AF_INET6);
	if (pkt->family == AF_INET) {
		check(!memcmp(pkt->src_addr + 4, zero, sizeof(zero)));
		check(!memcmp(pkt->dst_addr + 4, zero, sizeof(zero)));
	}
	check(pkt->payload_captured <= pkt->payload_bytes);
	check(pkt->payload_offset >= 20);
	check(pkt->payload_offset <= caplen + TCP_OPTIONS_MAX);
	if (pkt->payload_captured)
		check(pkt->payload_offset + (size_t)pkt->payload_captured <= caplen);
	/* everything captured past the header is counted, up to the IP length */
	if (pkt->payload_captured < pkt->payload_bytes && pkt->payload_offset < caplen)
		check(pkt->payload_offset + (size_t)pkt->payload_captured == caplen);
	check(pkt->wscale >= -1);
	if (!pkt->has_timestamps)
		check(pkt->tsval == 0 && pkt->tsecr == 0);
	check(pkt->vlan_tags <= 8);
	if (linktype != NT_LINKTYPE_ETHERNET)
		check(pkt->vlan_tags == 0);
}

/*
 * Differential check of the decoder's Ethernet + IPv4 fast path: an untagged
 * Ethernet frame carrying IPv4 must decode exactly as its IP packet does as
 * raw IP (which always takes the general path), 14 bytes further on.
 */
static void ethernet_agrees_with_raw(int linktype, const uint8_t *frame, size_t caplen,
				     enum nt_decode_status st, const struct nt_tcp_packet *pkt)
{
	struct nt_tcp_packet raw;
	enum nt_decode_status raw_st;

	if (linktype != NT_LINKTYPE_ETHERNET || caplen < 15 || frame[12] != 0x08 ||
	    frame[13] != 0x00 || (frame[14] >> 4) != 4)
		return;
	raw_st = nt_decode_frame(NT_LINKTYPE_RAW, frame + 14, caplen - 14, &raw);
	check(raw_st == st);
	if (st != NT_DECODE_OK)
		return;
	raw.payload_offset += 14;
	check(same_packet(&raw, pkt));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nt_tcp_packet pkt, again;
	enum nt_decode_status st;
	const uint8_t *frame;
	size_t caplen;
	int linktype;

	if (size < 1)
		return 0;
	linktype = linktypes[data[0] % N_LINKTYPES];
	frame = data + 1;
	caplen = size - 1;
	check(nt_decode_linktype_supported(linktype));

	st = nt_decode_frame(linktype, frame, caplen, &pkt);
	check(st >= NT_DECODE_OK && st <= NT_DECODE_MALFORMED);
	ethernet_agrees_with_raw(linktype, frame, caplen, st, &pkt);
	check(strcmp(nt_decode_status_name(st), "unknown") != 0);
	if (st != NT_DECODE_OK)
		return 0;
	check_ok(linktype, &pkt, caplen);

	/* a pure function: the same bytes decode the same way */
	check(nt_decode_frame(linktype, frame, caplen, &again) == st);
	check(same_packet(&pkt, &again));
	return 0;
}
