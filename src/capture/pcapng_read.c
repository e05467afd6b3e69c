// SPDX-License-Identifier: MIT
/*
 * pcapng_read.c - pcapng files read block by block (see nt/capture/pcapng_read.h
 * for why by hand).
 *
 * Each block is read whole into one buffer: its 8-octet head (type, total
 * length), then the rest, two fread() calls as libpcap makes. A Section
 * Header Block's byte-order magic comes before its length can be trusted
 * (§4.1: the length is in the section's order), so its first 12 octets are
 * read before the length is looked at. Offsets below are into the block,
 * from its type field.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nt/capture/pcapng.h"
#include "nt/capture/pcapng_read.h"

/* Type, total length, trailing total length (§3.1). */
#define BLOCK_HEAD  8u
#define BLOCK_FRAME 12u
/* Smallest blocks: SHB 28 (§4.1), IDB 20 (§4.2), EPB 32 (§4.3), SPB 16 (§4.4), PB 32. */
#define SHB_MIN 28u
#define IDB_MIN 20u
#define EPB_MIN 32u
#define SPB_MIN 16u
#define PB_MIN	32u
/* The pcapng major version read (§4.1); libpcap also refuses a minor beyond 2. */
#define VERSION_MAJOR	  1u
#define VERSION_MINOR_MAX 2u
/* Largest exponents whose unit count fits in 64 bits (libpcap refuses the rest). */
#define TSRESOL_DEC_MAX 19
#define TSRESOL_BIN_MAX 63
/* if_tsresol when absent: microseconds (§4.2). */
#define TSRESOL_DEFAULT 1000000u

bool nt_pcapng_is_pcapng(const uint8_t head[4])
{
	uint32_t type;

	memcpy(&type, head, sizeof(type));
	return type == NT_PCAPNG_BLOCK_SHB; /* a palindrome: the same swapped */
}

static uint16_t rd16(const struct nt_pcapng_reader *r, size_t at)
{
	uint16_t v;

	memcpy(&v, r->buf + at, sizeof(v));
	return r->swapped ? bswap_16(v) : v;
}

static uint32_t rd32(const struct nt_pcapng_reader *r, size_t at)
{
	uint32_t v;

	memcpy(&v, r->buf + at, sizeof(v));
	return r->swapped ? bswap_32(v) : v;
}

static uint64_t rd64(const struct nt_pcapng_reader *r, size_t at)
{
	uint64_t v;

	memcpy(&v, r->buf + at, sizeof(v));
	return r->swapped ? bswap_64(v) : v;
}

/* A block's problem, as "block at byte offset N: ..."; -EIO. */
static int bad(struct nt_pcapng_reader *r, struct nt_err *err, const char *what)
{
	nt_err_set(err, 0, "block at byte offset %llu: %s", (unsigned long long)r->block_pos, what);
	return -EIO;
}

/* The stream failed under the block (a read error): its errno's text. */
static int failed(struct nt_pcapng_reader *r, struct nt_err *err)
{
	return nt_err_set(err, -EIO, "block at byte offset %llu", (unsigned long long)r->block_pos);
}

static int room(struct nt_pcapng_reader *r, size_t n, struct nt_err *err)
{
	uint8_t *b;

	if (n <= r->cap)
		return 0;
	b = realloc(r->buf, n);
	if (!b)
		return nt_err_set(err, -ENOMEM, "block at byte offset %llu",
				  (unsigned long long)r->block_pos);
	r->buf = b;
	r->cap = n;
	return 0;
}

/* @n more bytes of the block, at @at; 0, -EIO when the stream ends or fails first. */
static int take(struct nt_pcapng_reader *r, size_t at, size_t n, struct nt_err *err)
{
	size_t got = fread(r->buf + at, 1, n, r->fp);

	r->pos += got;
	if (got == n)
		return 0;
	if (ferror(r->fp))
		return failed(r, err);
	return bad(r, err, "the file ends inside it (truncated)");
}

/* A Section Header Block's first 12 octets are in: its byte order (§4.1). */
static int section_order(struct nt_pcapng_reader *r, struct nt_err *err)
{
	uint32_t magic;

	memcpy(&magic, r->buf + BLOCK_HEAD, sizeof(magic));
	if (magic == NT_PCAPNG_BYTE_ORDER)
		r->swapped = false;
	else if (magic == bswap_32(NT_PCAPNG_BYTE_ORDER))
		r->swapped = true;
	else
		return bad(r, err, "a section header with no byte-order magic");
	return 0;
}

/*
 * The next block, whole, into @r->buf; its total length in @len. 0, 1 at the
 * end of the stream (no byte of a next block), or < 0. Bounded: each call
 * reads at most NT_PCAPNG_READ_BLOCK_MAX bytes.
 */
static int read_block(struct nt_pcapng_reader *r, uint32_t *len, struct nt_err *err)
{
	size_t head = BLOCK_HEAD;
	size_t got;
	int ret;

	r->block_pos = r->pos;
	if ((ret = room(r, BLOCK_FRAME, err)) < 0)
		return ret;
	got = fread(r->buf, 1, 1, r->fp);
	if (got == 0)
		return ferror(r->fp) ? failed(r, err) : 1;
	r->pos++;
	if ((ret = take(r, 1, BLOCK_HEAD - 1, err)) < 0)
		return ret;
	if (nt_pcapng_is_pcapng(r->buf)) {
		head = BLOCK_FRAME;
		if ((ret = take(r, BLOCK_HEAD, BLOCK_FRAME - BLOCK_HEAD, err)) < 0 ||
		    (ret = section_order(r, err)) < 0)
			return ret;
	}
	*len = rd32(r, 4);
	if (*len < BLOCK_FRAME || *len % 4)
		return bad(r, err, "its total length is not a multiple of 4 of at least 12");
	if (*len > NT_PCAPNG_READ_BLOCK_MAX)
		return bad(r, err, "its total length is beyond 16 MiB");
	if ((ret = room(r, *len, err)) < 0 || (ret = take(r, head, *len - head, err)) < 0)
		return ret;
	if (rd32(r, *len - 4) != *len)
		return bad(r, err, "its trailing total length differs from its leading one");
	return 0;
}

/* if_tsresol's byte to units per second; 0 when no 64-bit count holds it. */
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

/* An IDB's options (§3.5, §4.2), each checked against the block's end. */
static int idb_options(struct nt_pcapng_reader *r, uint32_t len, struct nt_pcapng_if *clock,
		       struct nt_err *err)
{
	size_t at = 16, end = len - 4;

	/* Bounded: every turn moves @at on by at least 4. */
	while (at + 4 <= end) {
		uint16_t code = rd16(r, at), n = rd16(r, at + 2);

		if (code == NT_PCAPNG_OPT_ENDOFOPT)
			break;
		if (at + 4 + n > end)
			return bad(r, err, "an interface option runs past the block's end");
		if (code == NT_PCAPNG_OPT_IF_TSRESOL && n == 1) {
			clock->units_per_s = tsresol_units(r->buf[at + 4]);
			if (!clock->units_per_s)
				return bad(r, err, "its if_tsresol is finer than 64 bits count");
		} else if (code == NT_PCAPNG_OPT_IF_TSOFFSET && n == 8) {
			clock->offset_s = (int64_t)rd64(r, at + 4);
		}
		at += 4 + (((size_t)n + 3) & ~(size_t)3);
	}
	return 0;
}

static int add_interface(struct nt_pcapng_reader *r, uint32_t len, struct nt_err *err)
{
	struct nt_pcapng_iface ifc = {
		.clock = { .units_per_s = TSRESOL_DEFAULT },
	};
	int ret;

	if (len < IDB_MIN)
		return bad(r, err, "an interface description shorter than 20 octets");
	ifc.linktype = rd16(r, 8);
	ifc.snaplen = rd32(r, 12);
	if ((ret = idb_options(r, len, &ifc.clock, err)) < 0)
		return ret;
	if (r->n_ifs == r->cap_ifs) {
		size_t cap = r->cap_ifs ? 2 * r->cap_ifs : 4;
		struct nt_pcapng_iface *ifs = realloc(r->ifs, cap * sizeof(*ifs));

		if (!ifs)
			return nt_err_set(err, -ENOMEM, "block at byte offset %llu",
					  (unsigned long long)r->block_pos);
		r->ifs = ifs;
		r->cap_ifs = cap;
	}
	r->ifs[r->n_ifs++] = ifc;
	return 0;
}

static int new_section(struct nt_pcapng_reader *r, uint32_t len, struct nt_err *err)
{
	if (len < SHB_MIN)
		return bad(r, err, "a section header shorter than 28 octets");
	if (rd16(r, 12) != VERSION_MAJOR || rd16(r, 14) > VERSION_MINOR_MAX)
		return bad(r, err, "a section of a pcapng version other than 1.0-1.2");
	r->n_ifs = 0; /* interface numbers start again in each section (§4.2) */
	return 0;
}

/* The interface @if_id of the current section, or NULL (the block is damaged). */
static const struct nt_pcapng_iface *iface_of(struct nt_pcapng_reader *r, uint32_t if_id,
					      struct nt_err *err)
{
	char what[96];

	if (if_id < r->n_ifs)
		return &r->ifs[if_id];
	snprintf(what, sizeof(what), "a packet of interface %u, but the section has %zu", if_id,
		 r->n_ifs);
	bad(r, err, what);
	return NULL;
}

/*
 * What follows @prefix in the @n bytes at @v, as a C string in @buf: false
 * when they do not begin with it or the rest does not fit.
 */
static bool past_prefix(const char *v, size_t n, const char *prefix, char *buf, size_t cap)
{
	size_t plen = strlen(prefix);

	if (n <= plen || n - plen >= cap || memcmp(v, prefix, plen) != 0)
		return false;
	memcpy(buf, v + plen, n - plen);
	buf[n - plen] = '\0';
	return true;
}

/*
 * A decimal count of nanoseconds at @s, not negative, and what follows it,
 * which must be one of @units (a comment a user edited is no note). Return:
 * the index of the unit matched, or -1.
 */
static int note_count(const char *s, const char *const *units, int n_units, int64_t *out)
{
	char *rest;
	long long ns;

	errno = 0;
	ns = strtoll(s, &rest, 10);
	if (errno || rest == s || ns < 0)
		return -1;
	*out = ns;
	for (int i = 0; i < n_units; i++)
		if (strcmp(rest, units[i]) == 0)
			return i;
	return -1;
}

/* An opt_comment of @olen bytes at @v: one of the notes, into @note. */
static void note_of(const char *v, size_t olen, struct nt_frame_note *note)
{
	static const char *const late_unit[] = { NT_PCAPNG_LATE_UNIT };
	static const char *const write_unit[] = { NT_PCAPNG_WRITE_BEFORE, NT_PCAPNG_WRITE_AFTER };
	char rest[40];
	int64_t ns;

	if (past_prefix(v, olen, NT_PCAPNG_LATE_PREFIX, rest, sizeof(rest))) {
		if (note_count(rest, late_unit, 1, &ns) == 0 && ns > 0)
			note->late_ns = ns;
	} else if (past_prefix(v, olen, NT_PCAPNG_WRITE_PREFIX, rest, sizeof(rest))) {
		int unit = note_count(rest, write_unit, 2, &ns);

		if (unit >= 0) {
			note->write_lead_ns = unit == 0 ? ns
							: -ns; /* after: the frame came first */
			note->has_write = true;
		}
	}
}

/*
 * The notes a nagle-trace -w file puts on a frame (nt/model/note.h): its
 * opt_comments among the options from @at to @end (§3.5).
 */
static struct nt_frame_note frame_notes(const struct nt_pcapng_reader *r, size_t at, size_t end)
{
	struct nt_frame_note note = { 0 };

	while (at + 4 <= end) {
		uint16_t code = rd16(r, at), olen = rd16(r, at + 2);

		if (code == 0 || at + 4 + olen > end)
			break;
		if (code == NT_PCAPNG_OPT_COMMENT)
			note_of((const char *)r->buf + at + 4, olen, &note);
		at += 4 + ((olen + 3u) & ~3u);
	}
	return note;
}

/*
 * An Enhanced (@fixed 20) or obsolete (@fixed 20, a 16-bit interface) Packet
 * Block: interface, timestamp, captured and original lengths, then the data.
 */
static int packet(struct nt_pcapng_reader *r, uint32_t len, bool obsolete,
		  struct nt_pcapng_frame *fr, struct nt_err *err)
{
	uint32_t if_id;

	if (len < (obsolete ? PB_MIN : EPB_MIN))
		return bad(r, err, "a packet block shorter than 32 octets");
	if_id = obsolete ? rd16(r, 8) : rd32(r, 8);
	fr->iface = iface_of(r, if_id, err);
	if (!fr->iface)
		return -EIO;
	fr->raw_ts = (uint64_t)rd32(r, 12) << 32 | rd32(r, 16);
	fr->caplen = rd32(r, 20);
	fr->wirelen = rd32(r, 24);
	if (fr->caplen > len - EPB_MIN)
		return bad(r, err, "a packet's captured length runs past its block");
	fr->data = r->buf + 28;
	if (obsolete) /* nagle-trace never writes the obsolete block: no notes */
		fr->note = (struct nt_frame_note){ 0 };
	else
		fr->note = frame_notes(r, 28 + ((fr->caplen + 3u) & ~3u), len - 4);
	return 1;
}

/* A Simple Packet Block (§4.4): interface 0, no time, the data cut at its snapshot length. */
static int simple_packet(struct nt_pcapng_reader *r, uint32_t len, struct nt_pcapng_frame *fr,
			 struct nt_err *err)
{
	if (len < SPB_MIN)
		return bad(r, err, "a simple packet block shorter than 16 octets");
	fr->iface = iface_of(r, 0, err);
	if (!fr->iface)
		return -EIO;
	fr->raw_ts = 0;
	fr->wirelen = rd32(r, 8);
	fr->caplen = fr->wirelen;
	if (fr->iface->snaplen && fr->caplen > fr->iface->snaplen)
		fr->caplen = fr->iface->snaplen;
	if (fr->caplen > len - SPB_MIN)
		return bad(r, err, "a packet's length runs past its block");
	fr->data = r->buf + 12;
	fr->note = (struct nt_frame_note){ 0 }; /* no options: no notes */
	return 1;
}

static bool is_packet(const struct nt_pcapng_reader *r)
{
	uint32_t type = rd32(r, 0);

	return type == NT_PCAPNG_BLOCK_EPB || type == NT_PCAPNG_BLOCK_PB ||
	       type == NT_PCAPNG_BLOCK_SPB;
}

/* One block taken in: 1 with a frame, 0 for any other block, < 0. */
static int take_block(struct nt_pcapng_reader *r, uint32_t len, struct nt_pcapng_frame *fr,
		      struct nt_err *err)
{
	switch (rd32(r, 0)) {
	case NT_PCAPNG_BLOCK_SHB:
		return new_section(r, len, err);
	case NT_PCAPNG_BLOCK_IDB:
		return add_interface(r, len, err);
	case NT_PCAPNG_BLOCK_EPB:
		return packet(r, len, false, fr, err);
	case NT_PCAPNG_BLOCK_PB:
		return packet(r, len, true, fr, err);
	case NT_PCAPNG_BLOCK_SPB:
		return simple_packet(r, len, fr, err);
	default: /* statistics, name resolution, custom, ...: not frames (§4.5-4.8) */
		return 0;
	}
}

int nt_pcapng_read_next(struct nt_pcapng_reader *r, struct nt_pcapng_frame *fr, struct nt_err *err)
{
	uint32_t len = 0;
	int ret;

	/* Bounded by the stream: each turn consumes one block of at least 12 octets. */
	for (;;) {
		ret = read_block(r, &len, err);
		if (ret == 1)
			return 0;
		if (ret == 0)
			ret = take_block(r, len, fr, err);
		if (ret != 0)
			break;
	}
	if (ret == 1)
		fr->time_ok = nt_pcapng_time_ns(fr->raw_ts, &fr->iface->clock, &fr->t_ns) == 0;
	return ret;
}

int nt_pcapng_read_open(struct nt_pcapng_reader *r, FILE *fp, struct nt_err *err)
{
	uint32_t len = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fp = fp;
	ret = read_block(r, &len, err);
	if (ret == 0 && !nt_pcapng_is_pcapng(r->buf))
		return nt_err_set(err, 0, "not a pcapng file");
	if (ret == 1)
		return nt_err_set(err, 0, "an empty file");
	if (ret == 0)
		ret = new_section(r, len, err);
	/* Bounded by the stream: each turn consumes one block. */
	while (ret == 0 && r->n_ifs == 0) {
		struct nt_pcapng_frame fr;

		ret = read_block(r, &len, err);
		if (ret == 1)
			return nt_err_set(err, 0, "a pcapng file with no interface");
		/* As libpcap: the first packet must come after an interface. */
		if (ret == 0 && is_packet(r))
			return nt_err_set(err, 0, "a packet before any interface");
		if (ret == 0)
			ret = take_block(r, len, &fr, err);
	}
	if (ret < 0)
		return ret;
	r->first = r->ifs[0];
	return 0;
}

const struct nt_pcapng_iface *nt_pcapng_read_first(const struct nt_pcapng_reader *r)
{
	return &r->first;
}

void nt_pcapng_read_fini(struct nt_pcapng_reader *r)
{
	free(r->buf);
	free(r->ifs);
	r->buf = NULL;
	r->ifs = NULL;
}
