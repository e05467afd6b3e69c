// SPDX-License-Identifier: MIT
/*
 * decode.c - link layer -> IPv4/IPv6 -> TCP (see nt/model/decode.h).
 *
 * Every read goes through pkt_has() and the get_*() helpers below, which read
 * big-endian (or host-order) integers byte by byte or through memcpy, so a
 * frame at any alignment is safe. Each layer asks need() before it reads: a
 * span past the end of the IP datagram as its own length field describes it
 * is MALFORMED, a span past the end of the capture is TRUNCATED. The only
 * length taken from the capture is the one a Linux GSO/TSO super-packet
 * leaves us when its IP length field is 0 (see decode_ipv4()).
 */
#include <assert.h>
#include <endian.h>
#include <string.h>
#include <sys/socket.h>

#include "nt/model/decode.h"

/* EtherTypes, IEEE 802 numbers registry */
#define ETHERTYPE_IPV4	 0x0800
#define ETHERTYPE_IPV6	 0x86dd
#define ETHERTYPE_8021Q	 0x8100
#define ETHERTYPE_8021AD 0x88a8
#define ETHERTYPE_QINQ	 0x9100 /* pre-802.1ad vendor value for the outer tag */

/*
 * More stacked VLAN tags than anyone deploys (QinQ uses two); past this we stop
 * looking rather than walk an arbitrarily long tag chain.
 */
#define ETH_MAX_VLAN_TAGS 8

#define ETH_HLEN       14
#define VLAN_HLEN      4
#define NULL_HLEN      4
#define SLL_HLEN       16
#define SLL_PROTO_OFF  14
#define SLL2_HLEN      20
#define SLL2_PROTO_OFF 0
#define IPV4_MIN_HLEN  20
#define IPV6_HLEN      40
#define IPV6_FRAG_HLEN 8
#define TCP_MIN_HLEN   20

/*
 * AF_INET6 differs between the systems that write DLT_NULL/DLT_LOOP captures:
 * the BSD values are tcpdump's BSD_AFNUM_INET6_* (af.h), 10 is Linux's.
 */
#define BSD_AF_INET	     2
#define LINUX_AF_INET6	     10
#define BSD_AF_INET6_BSD     24 /* NetBSD, OpenBSD, BSD/OS */
#define BSD_AF_INET6_FREEBSD 28
#define BSD_AF_INET6_DARWIN  30

/* IPv6 next-header values, RFC 8200 §4 and the IANA protocol numbers registry */
#define IPPROTO_NUM_HOPOPTS  0
#define IPPROTO_NUM_TCP	     6
#define IPPROTO_NUM_ROUTING  43
#define IPPROTO_NUM_FRAGMENT 44
#define IPPROTO_NUM_AH	     51
#define IPPROTO_NUM_NONE     59
#define IPPROTO_NUM_DSTOPTS  60

/* TCP option kinds and lengths: RFC 9293 §3.2, RFC 7323 §2-3, RFC 2018 §2 */
#define TCPOPT_EOL	  0
#define TCPOPT_NOP	  1
#define TCPOPT_MSS	  2
#define TCPOPT_WSCALE	  3
#define TCPOPT_SACK_PERM  4
#define TCPOPT_TIMESTAMP  8
#define TCPOLEN_MSS	  4
#define TCPOLEN_WSCALE	  3
#define TCPOLEN_SACK_PERM 2
#define TCPOLEN_TIMESTAMP 10

/**
 * struct pkt - the captured bytes of one frame
 * @data: first byte of the frame
 * @caplen: how many bytes were captured
 */
struct pkt {
	const uint8_t *data;
	size_t caplen;
};

/**
 * struct ip_span - where the IP layer left the TCP header
 * @tcp_off: offset of the TCP header in the frame
 * @end: offset just past the IP datagram, from its length field
 * @len_from_capture: the IP length field was 0 and @end is the capture's end
 */
struct ip_span {
	size_t tcp_off;
	size_t end;
	bool len_from_capture;
};

static bool pkt_has(const struct pkt *p, size_t off, size_t len)
{
	return off <= p->caplen && len <= p->caplen - off;
}

static uint8_t get_u8(const struct pkt *p, size_t off)
{
	assert(pkt_has(p, off, 1));
	return p->data[off];
}

/* memcpy() then be*toh(): one load and a byte swap, at any alignment. */
static uint16_t get_be16(const struct pkt *p, size_t off)
{
	uint16_t v;

	assert(pkt_has(p, off, 2));
	memcpy(&v, p->data + off, sizeof(v));
	return be16toh(v);
}

static uint32_t get_be32(const struct pkt *p, size_t off)
{
	uint32_t v;

	assert(pkt_has(p, off, 4));
	memcpy(&v, p->data + off, sizeof(v));
	return be32toh(v);
}

static uint32_t get_he32(const struct pkt *p, size_t off)
{
	uint32_t v;

	assert(pkt_has(p, off, 4));
	memcpy(&v, p->data + off, sizeof(v));
	return v;
}

static void get_bytes(const struct pkt *p, size_t off, uint8_t *dst, size_t len)
{
	assert(pkt_has(p, off, len));
	memcpy(dst, p->data + off, len);
}

/*
 * A header of @len bytes at @off must lie inside the IP datagram (else its
 * length fields contradict each other) and inside the capture (else the snap
 * length cut it). When the IP length came from the capture there is no
 * datagram length to contradict, only a capture to run out of.
 */
static enum nt_decode_status need(const struct pkt *p, const struct ip_span *ip, size_t off,
				  size_t len)
{
	if (!ip->len_from_capture && (off > ip->end || len > ip->end - off))
		return NT_DECODE_MALFORMED;
	if (!pkt_has(p, off, len))
		return NT_DECODE_TRUNCATED;
	return NT_DECODE_OK;
}

static int family_version(uint32_t family)
{
	switch (family) {
	case BSD_AF_INET:
		return 4;
	case LINUX_AF_INET6:
	case BSD_AF_INET6_BSD:
	case BSD_AF_INET6_FREEBSD:
	case BSD_AF_INET6_DARWIN:
		return 6;
	default:
		return 0;
	}
}

static int ethertype_version(uint16_t type)
{
	if (type == ETHERTYPE_IPV4)
		return 4;
	if (type == ETHERTYPE_IPV6)
		return 6;
	return 0;
}

static enum nt_decode_status decode_ethernet(const struct pkt *p, size_t *ip_off, int *version,
					     uint8_t *vlan_tags)
{
	size_t type_off = ETH_HLEN - 2;
	uint16_t type;

	if (!pkt_has(p, 0, ETH_HLEN))
		return NT_DECODE_TRUNCATED;
	type = get_be16(p, type_off);
	while (type == ETHERTYPE_8021Q || type == ETHERTYPE_8021AD || type == ETHERTYPE_QINQ) {
		if (*vlan_tags == ETH_MAX_VLAN_TAGS)
			return NT_DECODE_NOT_TCP;
		/* a tag is TCI (2 bytes) then the next EtherType, IEEE 802.1Q §9.6 */
		type_off += VLAN_HLEN;
		if (!pkt_has(p, type_off, 2))
			return NT_DECODE_TRUNCATED;
		type = get_be16(p, type_off);
		(*vlan_tags)++;
	}
	*version = ethertype_version(type);
	if (!*version)
		return NT_DECODE_NOT_TCP;
	*ip_off = type_off + 2;
	return NT_DECODE_OK;
}

static enum nt_decode_status decode_link(int linktype, const struct pkt *p, size_t *ip_off,
					 int *version, uint8_t *vlan_tags)
{
	uint32_t family;

	*ip_off = 0;
	*version = 0;
	switch (linktype) {
	case NT_LINKTYPE_NULL:
		if (!pkt_has(p, 0, NULL_HLEN))
			return NT_DECODE_TRUNCATED;
		/*
		 * The family is in the byte order of the host that wrote the
		 * capture, not ours. No valid family has high bits set, so a
		 * value that does was written the other way round: tcpdump's
		 * null_if_print() makes the same guess.
		 */
		family = get_he32(p, 0);
		if (family & 0xffff0000u)
			family = __builtin_bswap32(family);
		*version = family_version(family);
		*ip_off = NULL_HLEN;
		break;
	case NT_LINKTYPE_LOOP:
		if (!pkt_has(p, 0, NULL_HLEN))
			return NT_DECODE_TRUNCATED;
		*version = family_version(get_be32(p, 0));
		*ip_off = NULL_HLEN;
		break;
	case NT_LINKTYPE_ETHERNET:
		return decode_ethernet(p, ip_off, version, vlan_tags);
	case NT_LINKTYPE_LINUX_SLL:
		if (!pkt_has(p, 0, SLL_HLEN))
			return NT_DECODE_TRUNCATED;
		*version = ethertype_version(get_be16(p, SLL_PROTO_OFF));
		*ip_off = SLL_HLEN;
		break;
	case NT_LINKTYPE_LINUX_SLL2:
		if (!pkt_has(p, 0, SLL2_HLEN))
			return NT_DECODE_TRUNCATED;
		*version = ethertype_version(get_be16(p, SLL2_PROTO_OFF));
		*ip_off = SLL2_HLEN;
		break;
	case NT_LINKTYPE_DLT_RAW:
	case NT_LINKTYPE_DLT_RAW_BSD:
	case NT_LINKTYPE_RAW:
		if (!pkt_has(p, 0, 1))
			return NT_DECODE_TRUNCATED;
		*version = get_u8(p, 0) >> 4;
		/* raw IP carries nothing but IPv4 and IPv6: anything else is garbage */
		if (*version != 4 && *version != 6)
			return NT_DECODE_MALFORMED;
		return NT_DECODE_OK;
	case NT_LINKTYPE_IPV4:
		*version = 4;
		return NT_DECODE_OK;
	case NT_LINKTYPE_IPV6:
		*version = 6;
		return NT_DECODE_OK;
	default:
		return NT_DECODE_UNSUPPORTED_LINK;
	}
	return *version ? NT_DECODE_OK : NT_DECODE_NOT_TCP;
}

static enum nt_decode_status decode_ipv4(const struct pkt *p, size_t off, struct ip_span *ip,
					 struct nt_tcp_packet *out)
{
	size_t ihl_bytes;
	uint16_t total_len;
	uint8_t vihl;

	if (!pkt_has(p, off, 1))
		return NT_DECODE_TRUNCATED;
	vihl = get_u8(p, off);
	if (vihl >> 4 != 4)
		return NT_DECODE_MALFORMED;
	ihl_bytes = (size_t)(vihl & 0x0f) * 4;
	if (ihl_bytes < IPV4_MIN_HLEN)
		return NT_DECODE_MALFORMED;
	if (!pkt_has(p, off, IPV4_MIN_HLEN))
		return NT_DECODE_TRUNCATED;

	total_len = get_be16(p, off + 2);
	if (total_len == 0) {
		/*
		 * A capture on a Linux sender sees TSO/GSO super-packets before
		 * the NIC cuts them into segments. Those over 64 KiB (BIG TCP,
		 * Linux 6.3) cannot state their length and carry 0 instead
		 * (iph_set_totlen(), read back by skb_ip_totlen()); some drivers'
		 * TSO frames show 0 too. The capture is the only length left.
		 */
		ip->len_from_capture = true;
		ip->end = p->caplen;
	} else {
		if (total_len < ihl_bytes)
			return NT_DECODE_MALFORMED;
		ip->len_from_capture = false;
		ip->end = off + total_len;
	}

	/*
	 * Only the first fragment (offset 0, RFC 791 §3.1) carries the TCP
	 * header; the rest is payload we cannot place without reassembly.
	 */
	if (get_be16(p, off + 6) & 0x1fff)
		return NT_DECODE_NOT_TCP;
	if (get_u8(p, off + 9) != IPPROTO_NUM_TCP)
		return NT_DECODE_NOT_TCP;
	if (!pkt_has(p, off, ihl_bytes))
		return NT_DECODE_TRUNCATED;

	out->family = AF_INET;
	get_bytes(p, off + 12, out->src_addr, 4);
	get_bytes(p, off + 16, out->dst_addr, 4);
	ip->tcp_off = off + ihl_bytes;
	return NT_DECODE_OK;
}

/*
 * Walk the extension header chain (RFC 8200 §4) to the TCP header. Every
 * header advances by at least 8 bytes, so the walk ends with the capture.
 */
static enum nt_decode_status ipv6_skip_ext(const struct pkt *p, struct ip_span *ip, size_t off,
					   uint8_t next)
{
	enum nt_decode_status st;
	size_t len;

	for (;;) {
		switch (next) {
		case IPPROTO_NUM_TCP:
			ip->tcp_off = off;
			return NT_DECODE_OK;
		case IPPROTO_NUM_HOPOPTS:
		case IPPROTO_NUM_ROUTING:
		case IPPROTO_NUM_DSTOPTS:
			/* Hdr Ext Len counts 8-octet units past the first 8, §4.3 */
			st = need(p, ip, off, 2);
			if (st)
				return st;
			len = ((size_t)get_u8(p, off + 1) + 1) * 8;
			break;
		case IPPROTO_NUM_FRAGMENT:
			st = need(p, ip, off, IPV6_FRAG_HLEN);
			if (st)
				return st;
			/* as for IPv4, only offset 0 holds the TCP header, §4.5 */
			if (get_be16(p, off + 2) & 0xfff8)
				return NT_DECODE_NOT_TCP;
			len = IPV6_FRAG_HLEN;
			break;
		case IPPROTO_NUM_AH:
			/* AH's Payload Len counts 4-octet units, minus 2, RFC 4302 §2.2 */
			st = need(p, ip, off, 2);
			if (st)
				return st;
			len = ((size_t)get_u8(p, off + 1) + 2) * 4;
			break;
		case IPPROTO_NUM_NONE:
		default:
			return NT_DECODE_NOT_TCP;
		}
		st = need(p, ip, off, len);
		if (st)
			return st;
		next = get_u8(p, off);
		off += len;
	}
}

static enum nt_decode_status decode_ipv6(const struct pkt *p, size_t off, struct ip_span *ip,
					 struct nt_tcp_packet *out)
{
	uint16_t payload_len;

	if (!pkt_has(p, off, 1))
		return NT_DECODE_TRUNCATED;
	if (get_u8(p, off) >> 4 != 6)
		return NT_DECODE_MALFORMED;
	if (!pkt_has(p, off, IPV6_HLEN))
		return NT_DECODE_TRUNCATED;

	payload_len = get_be16(p, off + 4);
	if (payload_len == 0) {
		/*
		 * A jumbogram (RFC 2675 §2 puts its length in a hop-by-hop
		 * option and 0 here) or a Linux BIG TCP GSO packet: as for
		 * IPv4, the capture is the only length we trust.
		 */
		ip->len_from_capture = true;
		ip->end = p->caplen;
	} else {
		ip->len_from_capture = false;
		ip->end = off + IPV6_HLEN + payload_len;
	}

	out->family = AF_INET6;
	get_bytes(p, off + 8, out->src_addr, 16);
	get_bytes(p, off + 24, out->dst_addr, 16);
	return ipv6_skip_ext(p, ip, off + IPV6_HLEN, get_u8(p, off + 6));
}

/*
 * Parse the options in [@off, @end). Bytes past the capture are options the
 * snap length cut off: we stop there without complaint. A length that runs
 * past @end is a contradiction visible in the header itself.
 */
static enum nt_decode_status decode_tcp_options(const struct pkt *p, size_t off, size_t end,
						struct nt_tcp_packet *out)
{
	size_t cap_end = end < p->caplen ? end : p->caplen;
	uint8_t kind, len;

	while (off < cap_end) {
		kind = get_u8(p, off);
		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			off++;
			continue;
		}
		if (end - off < 2)
			return NT_DECODE_MALFORMED;
		if (cap_end - off < 2)
			break;
		len = get_u8(p, off + 1);
		if (len < 2 || len > end - off)
			return NT_DECODE_MALFORMED;
		if (len > cap_end - off)
			break;
		/*
		 * A known kind with the wrong length is skipped, not trusted,
		 * as the kernel's tcp_parse_options() does.
		 */
		switch (kind) {
		case TCPOPT_MSS:
			if (len == TCPOLEN_MSS)
				out->mss = get_be16(p, off + 2);
			break;
		case TCPOPT_WSCALE:
			if (len == TCPOLEN_WSCALE) {
				uint8_t shift = get_u8(p, off + 2);

				/*
				 * The raw shift, even above RFC 7323 §2.3's
				 * limit of 14: the verdict decides what a
				 * receiver makes of it. Only shifts that do not
				 * fit int8_t saturate, so none reads as -1.
				 */
				out->wscale = (int8_t)(shift > INT8_MAX ? INT8_MAX : shift);
			}
			break;
		case TCPOPT_SACK_PERM:
			if (len == TCPOLEN_SACK_PERM)
				out->sack_permitted = true;
			break;
		case TCPOPT_TIMESTAMP:
			if (len == TCPOLEN_TIMESTAMP) {
				out->has_timestamps = true;
				out->tsval = get_be32(p, off + 2);
				out->tsecr = get_be32(p, off + 6);
			}
			break;
		default:
			break;
		}
		off += len;
	}
	return NT_DECODE_OK;
}

static enum nt_decode_status decode_tcp(const struct pkt *p, const struct ip_span *ip,
					struct nt_tcp_packet *out)
{
	size_t t = ip->tcp_off;
	enum nt_decode_status st;
	size_t hdr_len, payload_off, payload_bytes, captured;

	st = need(p, ip, t, TCP_MIN_HLEN);
	if (st)
		return st;
	hdr_len = (size_t)(get_u8(p, t + 12) >> 4) * 4;
	if (hdr_len < TCP_MIN_HLEN)
		return NT_DECODE_MALFORMED;
	if (!ip->len_from_capture && hdr_len > ip->end - t)
		return NT_DECODE_MALFORMED;

	st = decode_tcp_options(p, t + TCP_MIN_HLEN, t + hdr_len, out);
	if (st)
		return st;

	out->src_port = get_be16(p, t);
	out->dst_port = get_be16(p, t + 2);
	out->seq = get_be32(p, t + 4);
	out->ack = get_be32(p, t + 8);
	out->flags = get_u8(p, t + 13);
	out->window = get_be16(p, t + 14);

	payload_off = t + hdr_len;
	/* only a length-from-capture datagram can end inside its TCP header */
	payload_bytes = ip->end > payload_off ? ip->end - payload_off : 0;
	captured = p->caplen > payload_off ? p->caplen - payload_off : 0;
	out->payload_bytes = (uint32_t)payload_bytes;
	out->payload_captured = (uint32_t)(captured < payload_bytes ? captured : payload_bytes);
	out->payload_offset = (uint32_t)payload_off;
	return NT_DECODE_OK;
}

/*
 * The frame nearly every capture is made of: Ethernet II without tags, IPv4
 * without options, not a fragment, TCP, and the minimal TCP header inside
 * both the datagram and the capture. Returns false, having written nothing,
 * for anything else, and the general path below decides it with its
 * statuses; for a frame it accepts it sets exactly what decode_link() and
 * decode_ipv4() would, minus their re-checks.
 */
static bool eth_ipv4_is_common(const struct pkt *p, struct ip_span *ip, struct nt_tcp_packet *out)
{
	const size_t off = ETH_HLEN;
	uint16_t total_len;

	if (!pkt_has(p, 0, ETH_HLEN + IPV4_MIN_HLEN + TCP_MIN_HLEN))
		return false;
	if (get_be16(p, ETH_HLEN - 2) != ETHERTYPE_IPV4 || get_u8(p, off) != 0x45)
		return false;
	total_len = get_be16(p, off + 2);
	if (total_len < IPV4_MIN_HLEN + TCP_MIN_HLEN || (get_be16(p, off + 6) & 0x1fff) ||
	    get_u8(p, off + 9) != IPPROTO_NUM_TCP)
		return false;
	out->family = AF_INET;
	get_bytes(p, off + 12, out->src_addr, 4);
	get_bytes(p, off + 16, out->dst_addr, 4);
	ip->len_from_capture = false;
	ip->end = off + total_len;
	ip->tcp_off = off + IPV4_MIN_HLEN;
	return true;
}

enum nt_decode_status nt_decode_frame(int linktype, const uint8_t *frame, size_t caplen,
				      struct nt_tcp_packet *out)
{
	/*
	 * A pcap record length is 32 bits; capping here keeps every offset
	 * below representable in the struct's uint32_t fields.
	 */
	struct pkt p = { .data = frame, .caplen = caplen > UINT32_MAX ? UINT32_MAX : caplen };
	struct ip_span ip = { 0 };
	enum nt_decode_status st;
	size_t ip_off;
	int version;

	memset(out, 0, sizeof(*out));
	out->wscale = -1;

	if (linktype != NT_LINKTYPE_ETHERNET || !eth_ipv4_is_common(&p, &ip, out)) {
		st = decode_link(linktype, &p, &ip_off, &version, &out->vlan_tags);
		if (st)
			return st;
		/*
		 * The IP decoders check the version nibble: a link header that
		 * says IPv4 over an IPv6 header contradicts itself.
		 */
		if (version == 4)
			st = decode_ipv4(&p, ip_off, &ip, out);
		else
			st = decode_ipv6(&p, ip_off, &ip, out);
		if (st)
			return st;
	}
	return decode_tcp(&p, &ip, out);
}

const char *nt_decode_status_name(enum nt_decode_status status)
{
	switch (status) {
	case NT_DECODE_OK:
		return "ok";
	case NT_DECODE_NOT_TCP:
		return "not_tcp";
	case NT_DECODE_TRUNCATED:
		return "truncated";
	case NT_DECODE_MALFORMED:
		return "malformed";
	case NT_DECODE_UNSUPPORTED_LINK:
		return "unsupported_link";
	case NT_DECODE_STATUS_COUNT:
		break;
	}
	return "unknown";
}

bool nt_decode_linktype_supported(int linktype)
{
	switch (linktype) {
	case NT_LINKTYPE_NULL:
	case NT_LINKTYPE_ETHERNET:
	case NT_LINKTYPE_DLT_RAW:
	case NT_LINKTYPE_DLT_RAW_BSD:
	case NT_LINKTYPE_RAW:
	case NT_LINKTYPE_LOOP:
	case NT_LINKTYPE_LINUX_SLL:
	case NT_LINKTYPE_IPV4:
	case NT_LINKTYPE_IPV6:
	case NT_LINKTYPE_LINUX_SLL2:
		return true;
	default:
		return false;
	}
}
