// SPDX-License-Identifier: MIT
/*
 * pcap_time.c - checked capture timestamps and the pcapng stream tracker
 * (see nt/capture/pcap_time.h).
 *
 * The tracker sees the bytes of the stream libpcap reads, in order, up to a
 * buffer ahead of libpcap. When pcap_next_ex() returns a packet, libpcap
 * has just read that packet's block whole (a filter that rejects packets
 * only makes it read more blocks first), so its stream offset is the end of
 * that block: the stamp recorded with that end offset is the packet's. It
 * parses what libpcap parses for timestamps, as the pcapng specification
 * lays the blocks out: the Section Header Block's byte-order magic, each
 * Interface Description Block's if_tsresol (option 9: 10^-n, or 2^-n with
 * the top bit set; 10^-6 when absent) and if_tsoffset (option 14, signed
 * seconds), and the interface and 64-bit timestamp of each Enhanced (6),
 * obsolete Packet (2) and Simple (3, no timestamp) Packet Block.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nt/capture/pcap_time.h"
#include "nt/capture/pcapng.h"
#include "nt/clock.h"

/* Largest exponents whose unit count fits in 64 bits (libpcap refuses the rest). */
#define TSRESOL_DEC_MAX 19
#define TSRESOL_BIN_MAX 63

int nt_pcap_time_ns(int64_t sec, int64_t frac_ns, int64_t *t_ns)
{
	int64_t ns;

	if (__builtin_mul_overflow(sec, NT_NS_PER_SEC, &ns) ||
	    __builtin_add_overflow(ns, frac_ns, &ns) || ns < 0)
		return -ERANGE;
	*t_ns = ns;
	return 0;
}

int nt_pcapng_time_ns(uint64_t raw, const struct nt_pcapng_if *ifc, int64_t *t_ns)
{
	/* raw < 2^64 and 10^9 < 2^30: the product fits in 94 bits. */
	unsigned __int128 scaled = (unsigned __int128)raw * NT_NS_PER_SEC / ifc->units_per_s;
	__int128 ns = (__int128)scaled + (__int128)ifc->offset_s * NT_NS_PER_SEC;

	if (ns < 0 || ns > INT64_MAX)
		return -ERANGE;
	*t_ns = (int64_t)ns;
	return 0;
}

int nt_pcapng_track_init(struct nt_pcapng_track *t)
{
	memset(t, 0, sizeof(*t));
	t->hdr = malloc(NT_PCAPNG_BLOCK_KEEP);
	t->stamps = malloc(NT_PCAPNG_STAMPS * sizeof(*t->stamps));
	if (!t->hdr || !t->stamps) {
		nt_pcapng_track_fini(t);
		return -ENOMEM;
	}
	return 0;
}

void nt_pcapng_track_fini(struct nt_pcapng_track *t)
{
	free(t->hdr);
	free(t->ifs);
	free(t->stamps);
	t->hdr = NULL;
	t->ifs = NULL;
	t->stamps = NULL;
}

static uint16_t rd16(const struct nt_pcapng_track *t, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return t->swapped ? bswap_16(v) : v;
}

static uint32_t rd32(const struct nt_pcapng_track *t, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return t->swapped ? bswap_32(v) : v;
}

static uint64_t rd64(const struct nt_pcapng_track *t, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return t->swapped ? bswap_64(v) : v;
}

/* if_tsresol's byte to units per second; 0 when libpcap would refuse it. */
static uint64_t tsresol_units(uint8_t v)
{
	uint64_t units = 1;

	if (v & 0x80)
		return (v & 0x7f) <= TSRESOL_BIN_MAX ? (uint64_t)1 << (v & 0x7f) : 0;
	if (v > TSRESOL_DEC_MAX)
		return 0;
	for (unsigned i = 0; i < v; i++)
		units *= 10;
	return units;
}

/* An Interface Description Block: its clock, known only when the whole block was kept. */
static void add_interface(struct nt_pcapng_track *t)
{
	struct nt_pcapng_if ifc = { .units_per_s = 1000000,
				    .known = t->len <= NT_PCAPNG_BLOCK_KEEP };
	/* Options start after type, length, linktype, reserved, snaplen; the trailer ends them. */
	size_t at = 16, end = ifc.known ? t->len - 4 : 0;

	while (at + 4 <= end) {
		uint16_t code = rd16(t, t->hdr + at), len = rd16(t, t->hdr + at + 2);
		const uint8_t *v = t->hdr + at + 4;

		if (code == NT_PCAPNG_OPT_ENDOFOPT || at + 4 + len > end)
			break;
		if (code == NT_PCAPNG_OPT_IF_TSRESOL && len == 1)
			ifc.units_per_s = tsresol_units(v[0]);
		else if (code == NT_PCAPNG_OPT_IF_TSOFFSET && len == 8)
			ifc.offset_s = (int64_t)rd64(t, v);
		at += 4 + (((size_t)len + 3) & ~(size_t)3);
	}
	if (!ifc.units_per_s)
		ifc.known = false;
	if (t->n_ifs == t->cap_ifs) {
		size_t cap = t->cap_ifs ? 2 * t->cap_ifs : 4;
		struct nt_pcapng_if *ifs = realloc(t->ifs, cap * sizeof(*ifs));

		if (!ifs) {
			t->broken = true;
			return;
		}
		t->ifs = ifs;
		t->cap_ifs = cap;
	}
	t->ifs[t->n_ifs++] = ifc;
}

/* A packet block of interface @if_id ended at @end: its stamp, with the interface's clock now. */
static void push_stamp(struct nt_pcapng_track *t, uint64_t if_id, uint64_t raw, uint64_t end)
{
	struct nt_pcapng_stamp *s = &t->stamps[t->head % NT_PCAPNG_STAMPS];

	s->end_pos = end;
	s->raw = raw;
	if (if_id < t->n_ifs)
		s->clock = t->ifs[if_id];
	else
		s->clock.known = false; /* libpcap refuses the packet */
	t->head++;
	if (t->head - t->tail > NT_PCAPNG_STAMPS)
		t->tail = t->head - NT_PCAPNG_STAMPS;
}

/* The block that ends at @end is complete. */
static void end_block(struct nt_pcapng_track *t, uint64_t end)
{
	uint32_t type = rd32(t, t->hdr);

	if (type == NT_PCAPNG_BLOCK_SHB)
		t->n_ifs = 0;
	else if (type == NT_PCAPNG_BLOCK_IDB && t->len >= 20)
		add_interface(t);
	else if (type == NT_PCAPNG_BLOCK_EPB && t->len >= 32)
		push_stamp(t, rd32(t, t->hdr + 8),
			   (uint64_t)rd32(t, t->hdr + 12) << 32 | rd32(t, t->hdr + 16), end);
	else if (type == NT_PCAPNG_BLOCK_PB && t->len >= 32)
		push_stamp(t, rd16(t, t->hdr + 8),
			   (uint64_t)rd32(t, t->hdr + 12) << 32 | rd32(t, t->hdr + 16), end);
	else if (type == NT_PCAPNG_BLOCK_SPB)
		push_stamp(t, 0, 0, end);
}

/* The header is complete: the block's length (and, for a section header, the byte order). */
static void start_block(struct nt_pcapng_track *t)
{
	uint32_t magic;

	if (rd32(t, t->hdr) == NT_PCAPNG_BLOCK_SHB ||
	    bswap_32(rd32(t, t->hdr)) == NT_PCAPNG_BLOCK_SHB) {
		memcpy(&magic, t->hdr + 8, sizeof(magic));
		if (magic == NT_PCAPNG_BYTE_ORDER)
			t->swapped = false;
		else if (magic == bswap_32(NT_PCAPNG_BYTE_ORDER))
			t->swapped = true;
		else
			t->broken = true;
	}
	t->len = rd32(t, t->hdr + 4);
	if (t->len < 12 || t->len % 4)
		t->broken = true;
}

/* Bytes of header needed before the length can be read: 12 for a section header (its byte order). */
static size_t header_bytes(const struct nt_pcapng_track *t)
{
	uint32_t type;

	if (t->have < 4)
		return 4;
	memcpy(&type, t->hdr, sizeof(type));
	return type == NT_PCAPNG_BLOCK_SHB ? 12 : 8;
}

void nt_pcapng_track_feed(struct nt_pcapng_track *t, const uint8_t *p, size_t n)
{
	uint64_t end = t->pos + n;

	t->pos = end;
	while (n && !t->broken && t->state != NT_PCAPNG_NO) {
		size_t want = t->len ? t->len - t->have : header_bytes(t) - t->have;
		size_t c = n < want ? n : want;

		if (t->have < NT_PCAPNG_BLOCK_KEEP)
			memcpy(t->hdr + t->have, p,
			       c < NT_PCAPNG_BLOCK_KEEP - t->have ? c
								  : NT_PCAPNG_BLOCK_KEEP - t->have);
		t->have += c;
		p += c;
		n -= c;
		if (t->state == NT_PCAPNG_UNKNOWN && t->have >= 4) {
			uint32_t type;

			memcpy(&type, t->hdr, sizeof(type));
			t->state = type == NT_PCAPNG_BLOCK_SHB ? NT_PCAPNG_YES : NT_PCAPNG_NO;
		}
		if (!t->len && t->have == header_bytes(t) && t->have > 4)
			start_block(t);
		else if (t->len && t->have == t->len) {
			end_block(t, end - n);
			t->have = 0;
			t->len = 0;
		}
	}
}

int nt_pcapng_track_at(struct nt_pcapng_track *t, uint64_t pos, int64_t *t_ns)
{
	const struct nt_pcapng_stamp *s;

	if (t->state != NT_PCAPNG_YES)
		return 0;
	while (t->tail < t->head && t->stamps[t->tail % NT_PCAPNG_STAMPS].end_pos < pos)
		t->tail++;
	if (t->tail == t->head)
		return 0;
	s = &t->stamps[t->tail % NT_PCAPNG_STAMPS];
	if (s->end_pos != pos || !s->clock.known)
		return 0;
	t->tail++;
	return nt_pcapng_time_ns(s->raw, &s->clock, t_ns) < 0 ? -ERANGE : 1;
}
