/* SPDX-License-Identifier: MIT */
/*
 * pcapng_read.h - pcapng files read block by block, by hand.
 *
 * Why not libpcap: libpcap 1.10 (sf-pcapng.c) gives a whole file one link
 * type and one snapshot length, those of its first interface, and fails at
 * the first packet of an interface whose link type or snapshot length
 * differs ("an interface has a type %u different from the type of the first
 * interface"): a capture taken on "any" interfaces of different kinds, or
 * merged by mergecap, stops after its first frames, where Wireshark reads
 * it all. libpcap's pcapng timestamps also wrap (nt/capture/pcap_time.h).
 * Wireshark's libwiretap reads such files, but it is GPL-2.0 with no stable
 * API outside Wireshark, so the blocks are parsed here (the first
 * 4 bytes decide: a pcap file still goes to libpcap), to
 * the pcapng draft (draft-ietf-opsawg-pcapng): a Section Header Block (§4.1)
 * in either byte order, starting a section with interfaces of its own; an
 * Interface Description Block (§4.2) per interface, with its link type,
 * snapshot length, if_tsresol and if_tsoffset; Enhanced (§4.3), Simple
 * (§4.4) and obsolete Packet Blocks (Appendix A) for frames, each with the
 * link type of its own interface; every other block skipped.
 *
 * Every length is checked before it is used: a block's total length (at
 * least 12 octets, a multiple of 4, at most NT_PCAPNG_READ_BLOCK_MAX, the
 * same at both ends), a packet's captured length against its block, an
 * option's length against the block's end. A file that breaks one of them is
 * damaged there; the frames before it were read.
 */
#ifndef NT_CAPTURE_PCAPNG_READ_H
#define NT_CAPTURE_PCAPNG_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/capture/pcap_time.h"
#include "nt/model/note.h"
#include "nt/err.h"

/* The largest block read (libpcap's limit for a default snapshot length: 16 MiB). */
#define NT_PCAPNG_READ_BLOCK_MAX (16u * 1024 * 1024)

/**
 * struct nt_pcapng_iface - one interface of the current section
 * @linktype: its LINKTYPE_ value
 * @snaplen: its snapshot length (0: none)
 * @clock: its if_tsresol and if_tsoffset
 */
struct nt_pcapng_iface {
	int linktype;
	uint32_t snaplen;
	struct nt_pcapng_if clock;
};

/**
 * struct nt_pcapng_frame - one packet block
 * @iface: its interface
 * @raw_ts: its raw timestamp, in @iface's units (0 for a Simple Packet Block)
 * @t_ns: its time in ns since the epoch, when @time_ok
 * @time_ok: false when that time is outside int64 ns (nt_pcapng_time_ns())
 * @data: the captured bytes, valid until the next call
 * @caplen: bytes captured
 * @wirelen: bytes on the wire
 * @note: the block's opt_comments NT_PCAPNG_LATE_PREFIX "NNN ns" and
 *        NT_PCAPNG_WRITE_PREFIX "NNN ns before|after this frame", read; zeroed when
 *        there are none
 */
struct nt_pcapng_frame {
	const struct nt_pcapng_iface *iface;
	uint64_t raw_ts;
	int64_t t_ns;
	bool time_ok;
	const uint8_t *data;
	uint32_t caplen;
	uint32_t wirelen;
	struct nt_frame_note note;
};

/**
 * struct nt_pcapng_reader - a pcapng stream being read
 * @fp: the stream (not owned)
 * @swapped: the current section's byte order is not the host's
 * @pos: stream offset of the next block
 * @block_pos: stream offset of the block being read
 * @buf: the block being read, whole
 * @cap: room in @buf
 * @ifs: the current section's interfaces, in order
 * @n_ifs: how many
 * @cap_ifs: room in @ifs
 * @first: the first section's first interface
 */
struct nt_pcapng_reader {
	FILE *fp;
	bool swapped;
	uint64_t pos;
	uint64_t block_pos;
	uint8_t *buf;
	size_t cap;
	struct nt_pcapng_iface *ifs;
	size_t n_ifs;
	size_t cap_ifs;
	struct nt_pcapng_iface first;
};

/**
 * nt_pcapng_is_pcapng() - whether a stream's first four bytes start a pcapng file
 * @head: the bytes
 *
 * Return: true for a Section Header Block's type (the same in both byte orders).
 */
bool nt_pcapng_is_pcapng(const uint8_t head[4]);

/**
 * nt_pcapng_read_open() - read a pcapng stream's header, up to its first interface
 * @r: the reader
 * @fp: the stream, at its first byte; the caller keeps it open while @r is used
 * @err: why the stream is not a pcapng file it can read (no file name)
 *
 * The first section's header and the blocks up to its first Interface
 * Description Block are read, so nt_pcapng_read_first() knows the link
 * type before any frame, as libpcap's pcap_datalink() does.
 *
 * Return: 0, -EINVAL when the stream is not pcapng or has no interface
 * before its first packet, -EIO when it is damaged or truncated there,
 * -ENOMEM.
 */
int nt_pcapng_read_open(struct nt_pcapng_reader *r, FILE *fp, struct nt_err *err);

/**
 * nt_pcapng_read_first() - the first interface of the first section
 * @r: an open reader
 *
 * Return: the interface; valid until the next call on @r.
 */
const struct nt_pcapng_iface *nt_pcapng_read_first(const struct nt_pcapng_reader *r);

/**
 * nt_pcapng_read_next() - the next packet block
 * @r: the reader
 * @frame: filled; valid until the next call
 * @err: on a damaged or truncated stream, what broke (no file name), naming
 *       the byte offset of the block
 *
 * Section headers, interface descriptions and other blocks in between are
 * taken in on the way. A frame whose time is out of range is returned with
 * @frame->time_ok false: the caller decides whether it is damage.
 *
 * Return: 1 with a frame, 0 at the end of the stream (on a block boundary),
 * -EIO when the stream is damaged or truncated, -ENOMEM.
 */
int nt_pcapng_read_next(struct nt_pcapng_reader *r, struct nt_pcapng_frame *frame,
			struct nt_err *err);

/**
 * nt_pcapng_read_fini() - free the reader (not its stream); safe on a zeroed one
 * @r: the reader
 */
void nt_pcapng_read_fini(struct nt_pcapng_reader *r);

#endif
