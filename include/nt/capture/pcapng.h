/* SPDX-License-Identifier: MIT */
/*
 * pcapng.h - pcapng blocks written by hand (libpcap writes no pcapng).
 *
 * Pure serialization, to the pcapng draft (draft-ietf-opsawg-pcapng, "PCAP
 * Now Generic (pcapng) Capture File Format"): a Section Header Block (§4.1)
 * with the byte-order magic, Interface Description Blocks (§4.2) with
 * if_tsresol 9 (nanosecond timestamps), Enhanced Packet Blocks (§4.3) with
 * packet data padded to 32 bits, and options (§3.5) closed by opt_endofopt.
 * Numbers are in the host's byte order, which the SHB's magic declares
 * (§3.6.1). Comments (opt_comment) may repeat on one block.
 *
 * A block goes to a struct nt_pcapng_out: a FILE, a caller's buffer, or
 * nowhere (only counted), so tests build blocks in memory and parse them
 * back. Strings are written as given, not zero-terminated (§3.5); one longer
 * than an option can hold (65535 bytes) is cut at a UTF-8 character
 * boundary, since a writer must not write invalid lengths.
 */
#ifndef NT_CAPTURE_PCAPNG_H
#define NT_CAPTURE_PCAPNG_H

/*
 * opt_comments on a frame of a -w file (docs/wire.md): how late the delay
 * line forwarded it, "... NNN ns"; how long before (or after) the frame the
 * write() that queued its first byte returned, "... NNN ns before this
 * frame" ("after this frame").
 */
#define NT_PCAPNG_LATE_PREFIX  "nagle-trace: delay line late "
#define NT_PCAPNG_LATE_UNIT    " ns"
#define NT_PCAPNG_WRITE_PREFIX "nagle-trace: its write returned "
#define NT_PCAPNG_WRITE_BEFORE " ns before this frame"
#define NT_PCAPNG_WRITE_AFTER  " ns after this frame"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Block types (§10.1), the byte-order magic (§4.1), option codes (§3.5, §4.1-4.3). */
#define NT_PCAPNG_BLOCK_SHB	   0x0A0D0D0Au
#define NT_PCAPNG_BLOCK_IDB	   0x00000001u
#define NT_PCAPNG_BLOCK_PB	   0x00000002u /* obsolete Packet Block: read, never written */
#define NT_PCAPNG_BLOCK_SPB	   0x00000003u
#define NT_PCAPNG_BLOCK_EPB	   0x00000006u
#define NT_PCAPNG_BYTE_ORDER	   0x1A2B3C4Du
#define NT_PCAPNG_OPT_ENDOFOPT	   0
#define NT_PCAPNG_OPT_COMMENT	   1
#define NT_PCAPNG_OPT_SHB_USERAPPL 4
#define NT_PCAPNG_OPT_IF_NAME	   2
#define NT_PCAPNG_OPT_IF_TSRESOL   9
#define NT_PCAPNG_OPT_IF_TSOFFSET  14

/* The longest string an option holds: its length field is 16 bits. */
#define NT_PCAPNG_STRING_MAX 65535u
/* if_tsresol 9: timestamps count nanoseconds (10^-9 s). */
#define NT_PCAPNG_TSRESOL_NS 9

/**
 * struct nt_pcapng_out - where blocks go
 * @fp: a stream, or NULL
 * @buf: without @fp, a buffer the bytes are copied to (up to @cap), or NULL
 *       to only count them
 * @cap: size of @buf
 * @len: bytes produced so far (counted past @cap too)
 * @error: the first error: -EIO (the stream failed), -ENOSPC (@buf too
 *         small); once set, nothing more is written
 */
struct nt_pcapng_out {
	FILE *fp;
	uint8_t *buf;
	size_t cap;
	size_t len;
	int error;
};

/**
 * nt_pcapng_out_file() - blocks go to a stream
 * @o: set up here
 * @fp: the stream
 */
void nt_pcapng_out_file(struct nt_pcapng_out *o, FILE *fp);

/**
 * nt_pcapng_out_buffer() - blocks go to a buffer (NULL: only counted)
 * @o: set up here
 * @buf: the buffer, or NULL
 * @cap: its size
 */
void nt_pcapng_out_buffer(struct nt_pcapng_out *o, void *buf, size_t cap);

/**
 * nt_pcapng_put_shb() - a Section Header Block, section length unspecified (-1)
 * @o: the destination
 * @comments: opt_comment strings (the section's summary), may be NULL
 * @n_comments: how many
 * @userappl: shb_userappl, the writing application ("nagle-trace 1.2"), or NULL
 *
 * Return: 0 or @o->error.
 */
int nt_pcapng_put_shb(struct nt_pcapng_out *o, const char *const *comments, size_t n_comments,
		      const char *userappl);

/**
 * nt_pcapng_put_idb() - an Interface Description Block with if_tsresol 9
 * @o: the destination
 * @linktype: the LINKTYPE_ value of the interface's frames
 * @snaplen: the snapshot length (0: no limit)
 * @if_name: if_name, or NULL
 *
 * Return: 0 or @o->error.
 */
int nt_pcapng_put_idb(struct nt_pcapng_out *o, uint16_t linktype, uint32_t snaplen,
		      const char *if_name);

/**
 * struct nt_pcapng_packet - one Enhanced Packet Block's content
 * @if_id: the interface (the order of its IDB in the section, from 0)
 * @t_ns: timestamp, nanoseconds since the epoch (if_tsresol 9)
 * @data: the captured bytes
 * @caplen: how many
 * @wirelen: the original length
 * @comments: opt_comment strings, may be NULL
 * @n_comments: how many
 */
struct nt_pcapng_packet {
	uint32_t if_id;
	uint64_t t_ns;
	const uint8_t *data;
	uint32_t caplen;
	uint32_t wirelen;
	const char *const *comments;
	size_t n_comments;
};

/**
 * nt_pcapng_put_epb() - an Enhanced Packet Block
 * @o: the destination
 * @p: the packet
 *
 * Return: 0 or @o->error.
 */
int nt_pcapng_put_epb(struct nt_pcapng_out *o, const struct nt_pcapng_packet *p);

/**
 * nt_pcapng_string_len() - how many bytes of @s an option holds
 * @s: the string
 *
 * Return: strlen(@s), or less when that exceeds NT_PCAPNG_STRING_MAX: cut
 * before the first byte of the UTF-8 character that would cross the limit.
 */
size_t nt_pcapng_string_len(const char *s);

#endif
