/* SPDX-License-Identifier: MIT */
/*
 * decode.h - link layer -> IPv4/IPv6 -> TCP, as a pure function over bytes.
 *
 * The decoder never prints and never allocates. Every byte it reads is
 * bounds-checked against the captured length; it tells a frame that was cut
 * short by the snap length (NT_DECODE_TRUNCATED) from one whose headers
 * contradict themselves (NT_DECODE_MALFORMED). The payload length comes from
 * the IP header, never from the captured length (Ethernet padding, snaplen).
 */
#ifndef NT_MODEL_DECODE_H
#define NT_MODEL_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Link types, by their LINKTYPE_* numbers from the tcpdump.org registry.
 * libpcap's pcap_datalink() returns DLT_* values; they are equal for all of
 * these but raw IP, where DLT_RAW is 12 (14 on OpenBSD) and LINKTYPE_RAW 101:
 * the decoder accepts all three for raw IP.
 */
enum nt_linktype {
	NT_LINKTYPE_NULL = 0,	      /* BSD loopback, 4-byte family in host byte order */
	NT_LINKTYPE_ETHERNET = 1,     /* Ethernet II, with 802.1Q / 802.1ad tags */
	NT_LINKTYPE_DLT_RAW = 12,     /* DLT_RAW on Linux and most systems */
	NT_LINKTYPE_DLT_RAW_BSD = 14, /* DLT_RAW on OpenBSD */
	NT_LINKTYPE_RAW = 101,	      /* raw IPv4 or IPv6, version from the first nibble */
	NT_LINKTYPE_LOOP = 108,	      /* OpenBSD loopback, family in network byte order */
	NT_LINKTYPE_LINUX_SLL = 113,  /* Linux cooked v1 (tcpdump -i any, libpcap < 1.10) */
	NT_LINKTYPE_IPV4 = 228,
	NT_LINKTYPE_IPV6 = 229,
	NT_LINKTYPE_LINUX_SLL2 = 276, /* Linux cooked v2 (tcpdump -i any, libpcap >= 1.10) */
};

enum nt_decode_status {
	NT_DECODE_OK = 0,
	NT_DECODE_NOT_TCP,	    /* not IP, not TCP, or a non-first IP fragment: skip it */
	NT_DECODE_TRUNCATED,	    /* the capture ends inside the IP or TCP header */
	NT_DECODE_MALFORMED,	    /* a length or offset field contradicts the packet */
	NT_DECODE_UNSUPPORTED_LINK, /* a link type this decoder does not know */
	NT_DECODE_STATUS_COUNT,
};

/**
 * struct nt_tcp_packet - one decoded TCP segment
 * @family: AF_INET or AF_INET6
 * @src_addr: source address, network byte order (IPv4: the first 4 bytes)
 * @dst_addr: destination address, likewise
 * @src_port: source port, host byte order
 * @dst_port: destination port, host byte order
 * @seq: sequence number, host byte order
 * @ack: acknowledgment number, host byte order (meaningful when ACK is set)
 * @flags: the TCP flags byte (NT_TCP_*)
 * @window: the raw, unscaled window field
 * @payload_bytes: TCP payload length from the IP header (total/payload length
 *                 minus IP and TCP headers), whatever was captured; only when
 *                 the IP length field is 0 (a TSO super-packet or an IPv6
 *                 jumbogram) is it what was captured
 * @payload_captured: how many of those payload bytes are in the capture
 * @payload_offset: offset of the first payload byte in the frame; meaningful
 *                  only when @payload_captured > 0
 * @mss: the MSS option, 0 when absent
 * @wscale: the window-scale option shift, -1 when absent (shifts above 127,
 *          all invalid per RFC 7323 §2.3, are reported as 127)
 * @sack_permitted: the SACK-permitted option was present
 * @has_timestamps: the timestamps option was present (@tsval, @tsecr valid)
 * @tsval: timestamp value
 * @tsecr: timestamp echo reply
 * @vlan_tags: how many 802.1Q/802.1ad tags were skipped
 */
struct nt_tcp_packet {
	int family;
	uint8_t src_addr[16];
	uint8_t dst_addr[16];
	uint16_t src_port;
	uint16_t dst_port;
	uint32_t seq;
	uint32_t ack;
	uint8_t flags;
	uint16_t window;
	uint32_t payload_bytes;
	uint32_t payload_captured;
	uint32_t payload_offset;
	uint16_t mss;
	int8_t wscale;
	bool sack_permitted;
	bool has_timestamps;
	uint32_t tsval;
	uint32_t tsecr;
	uint8_t vlan_tags;
};

/**
 * nt_decode_frame() - decode one captured frame down to its TCP header
 * @linktype: the capture's link type (enum nt_linktype or a DLT_ value)
 * @frame: the captured bytes
 * @caplen: how many bytes were captured
 * @out: filled on NT_DECODE_OK; unspecified otherwise
 *
 * IPv6 extension headers (hop-by-hop, routing, destination options,
 * fragment, AH) are skipped; a non-first fragment is NT_DECODE_NOT_TCP.
 * TCP options are parsed for MSS, window scale, SACK-permitted and
 * timestamps; a malformed option list is NT_DECODE_MALFORMED, options cut
 * off by the snap length are ignored.
 *
 * Return: an enum nt_decode_status.
 */
enum nt_decode_status nt_decode_frame(int linktype, const uint8_t *frame, size_t caplen,
				      struct nt_tcp_packet *out);

/**
 * nt_decode_status_name() - a short name for a status ("ok", "truncated", ...)
 * @status: the status
 *
 * Return: a static string.
 */
const char *nt_decode_status_name(enum nt_decode_status status);

/**
 * nt_decode_linktype_supported() - whether nt_decode_frame() knows @linktype
 * @linktype: a LINKTYPE_ or DLT_ value
 *
 * Return: true when supported.
 */
bool nt_decode_linktype_supported(int linktype);

#endif
