// SPDX-License-Identifier: MIT
/*
 * pcapng.c - pcapng blocks (see nt/capture/pcapng.h).
 *
 * Every block is sized before its first byte goes out (§3.1: the total
 * length leads and trails the block), then written field by field: the
 * packet data straight from the caller's buffer, so a frame is never
 * copied. Padding octets are zeroes (§3.6.2).
 */
#include <errno.h>
#include <string.h>

#include "nt/capture/pcapng.h"

/* Block type, total length and the trailing total length: 12 octets (§3.1). */
#define BLOCK_FRAME 12u
/* SHB body before options: magic, major, minor, section length (§4.1). */
#define SHB_FIXED 16u
/* IDB body before options: link type, reserved, snaplen (§4.2). */
#define IDB_FIXED 8u
/* EPB body before the data: interface, timestamp high and low, lengths (§4.3). */
#define EPB_FIXED 20u
/* An option's type and length: 4 octets; opt_endofopt is one with length 0. */
#define OPT_HEAD 4u

static const uint8_t zeroes[4];

void nt_pcapng_out_file(struct nt_pcapng_out *o, FILE *fp)
{
	memset(o, 0, sizeof(*o));
	o->fp = fp;
}

void nt_pcapng_out_buffer(struct nt_pcapng_out *o, void *buf, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->buf = buf;
	o->cap = cap;
}

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void put(struct nt_pcapng_out *o, const void *p, size_t n)
{
	if (o->error || n == 0)
		return;
	if (o->fp) {
		if (fwrite(p, 1, n, o->fp) != n)
			o->error = -EIO;
	} else if (o->buf) {
		if (o->len + n > o->cap)
			o->error = -ENOSPC;
		else
			memcpy(o->buf + o->len, p, n);
	}
	o->len += n;
}

static void put_u16(struct nt_pcapng_out *o, uint16_t v)
{
	put(o, &v, sizeof(v));
}

static void put_u32(struct nt_pcapng_out *o, uint32_t v)
{
	put(o, &v, sizeof(v));
}

size_t nt_pcapng_string_len(const char *s)
{
	size_t n = strlen(s);

	if (n <= NT_PCAPNG_STRING_MAX)
		return n;
	n = NT_PCAPNG_STRING_MAX;
	/* Back off over continuation bytes (10xxxxxx) to a character's first byte. */
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

static size_t opt_size(size_t value_bytes)
{
	return OPT_HEAD + pad4(value_bytes);
}

static void put_opt(struct nt_pcapng_out *o, uint16_t code, const void *value, size_t n)
{
	put_u16(o, code);
	put_u16(o, (uint16_t)n);
	put(o, value, n);
	put(o, zeroes, pad4(n) - n);
}

static size_t strings_size(const char *const *s, size_t n)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += opt_size(nt_pcapng_string_len(s[i]));
	return total;
}

static void put_strings(struct nt_pcapng_out *o, uint16_t code, const char *const *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_opt(o, code, s[i], nt_pcapng_string_len(s[i]));
}

/* The options end with opt_endofopt, which the writer must put (§3.5). */
static void put_endofopt(struct nt_pcapng_out *o)
{
	put_opt(o, NT_PCAPNG_OPT_ENDOFOPT, NULL, 0);
}

/* An optional string option's size, 0 when @s is NULL. */
static size_t opt_string_size(const char *s)
{
	return s ? opt_size(nt_pcapng_string_len(s)) : 0;
}

static void put_opt_string(struct nt_pcapng_out *o, uint16_t code, const char *s)
{
	if (s)
		put_opt(o, code, s, nt_pcapng_string_len(s));
}

/*
 * A block's type and total length (§3.1), for a block of @fixed body octets
 * and @opts of options before opt_endofopt; the tail repeats the length.
 */
static uint32_t put_block_head(struct nt_pcapng_out *o, uint32_t type, size_t fixed, size_t opts)
{
	uint32_t total = (uint32_t)(BLOCK_FRAME + fixed + opts + OPT_HEAD);

	put_u32(o, type);
	put_u32(o, total);
	return total;
}

static int put_block_tail(struct nt_pcapng_out *o, uint32_t total)
{
	put_endofopt(o);
	put_u32(o, total);
	return o->error;
}

int nt_pcapng_put_shb(struct nt_pcapng_out *o, const char *const *comments, size_t n_comments,
		      const char *userappl)
{
	size_t opts = strings_size(comments, n_comments) + opt_string_size(userappl);
	uint64_t section_len = UINT64_MAX; /* -1: not specified (§4.1) */
	uint32_t total = put_block_head(o, NT_PCAPNG_BLOCK_SHB, SHB_FIXED, opts);

	put_u32(o, NT_PCAPNG_BYTE_ORDER);
	put_u16(o, 1); /* version 1.0: the only one a writer may write */
	put_u16(o, 0);
	put(o, &section_len, sizeof(section_len));
	put_strings(o, NT_PCAPNG_OPT_COMMENT, comments, n_comments);
	put_opt_string(o, NT_PCAPNG_OPT_SHB_USERAPPL, userappl);
	return put_block_tail(o, total);
}

int nt_pcapng_put_idb(struct nt_pcapng_out *o, uint16_t linktype, uint32_t snaplen,
		      const char *if_name)
{
	uint8_t tsresol = NT_PCAPNG_TSRESOL_NS;
	size_t opts = opt_size(sizeof(tsresol)) + opt_string_size(if_name);
	uint32_t total = put_block_head(o, NT_PCAPNG_BLOCK_IDB, IDB_FIXED, opts);

	put_u16(o, linktype);
	put_u16(o, 0); /* reserved */
	put_u32(o, snaplen);
	put_opt_string(o, NT_PCAPNG_OPT_IF_NAME, if_name);
	put_opt(o, NT_PCAPNG_OPT_IF_TSRESOL, &tsresol, sizeof(tsresol));
	return put_block_tail(o, total);
}

int nt_pcapng_put_epb(struct nt_pcapng_out *o, const struct nt_pcapng_packet *p)
{
	size_t opts = p->n_comments ? strings_size(p->comments, p->n_comments) + OPT_HEAD : 0;
	size_t total = BLOCK_FRAME + EPB_FIXED + pad4(p->caplen) + opts;

	put_u32(o, NT_PCAPNG_BLOCK_EPB);
	put_u32(o, (uint32_t)total);
	put_u32(o, p->if_id);
	/* One 64-bit count of if_tsresol units, as two 32-bit words, high first (§4.3). */
	put_u32(o, (uint32_t)(p->t_ns >> 32));
	put_u32(o, (uint32_t)p->t_ns);
	put_u32(o, p->caplen);
	put_u32(o, p->wirelen);
	put(o, p->data, p->caplen);
	put(o, zeroes, pad4(p->caplen) - p->caplen);
	if (p->n_comments) {
		put_strings(o, NT_PCAPNG_OPT_COMMENT, p->comments, p->n_comments);
		put_endofopt(o);
	}
	put_u32(o, (uint32_t)total);
	return o->error;
}
