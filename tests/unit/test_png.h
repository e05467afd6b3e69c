/* SPDX-License-Identifier: MIT */
/*
 * test_png.h - a little pcapng builder for the reader's unit tests
 * (test_pcap_time, test_pcapng_read): blocks into a buffer, in the host's
 * or the swapped byte order, each block laid out as the pcapng draft does
 * (§4.1-4.4), so a test can also break one field at a time.
 */
#ifndef NT_TEST_PNG_H
#define NT_TEST_PNG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/**
 * struct png - a pcapng file being built
 * @b: its bytes
 * @n: how many
 * @swap: blocks from now on are in the swapped byte order (set before shb())
 */
struct png {
	uint8_t b[8192];
	size_t n;
	bool swap;
};

static inline void put(struct png *p, const void *v, size_t n)
{
	memcpy(p->b + p->n, v, n);
	p->n += n;
}

static inline void put16(struct png *p, uint16_t v)
{
	v = p->swap ? __builtin_bswap16(v) : v;
	put(p, &v, 2);
}

static inline void put32(struct png *p, uint32_t v)
{
	v = p->swap ? __builtin_bswap32(v) : v;
	put(p, &v, 4);
}

static inline void put64(struct png *p, uint64_t v)
{
	v = p->swap ? __builtin_bswap64(v) : v;
	put(p, &v, 8);
}

/* A Section Header Block, version 1.0, no options. */
static inline void shb(struct png *p)
{
	put32(p, 0x0A0D0D0A);
	put32(p, 28);
	put32(p, 0x1A2B3C4D);
	put16(p, 1);
	put16(p, 0);
	put64(p, UINT64_MAX);
	put32(p, 28);
}

/* An IDB; @tsresol < 0: no option; @with_offset: if_tsoffset @offset. */
static inline void idb_of(struct png *p, uint16_t linktype, uint32_t snaplen, int tsresol,
			  bool with_offset, int64_t offset)
{
	uint32_t len = 20 + (tsresol >= 0 ? 8 : 0) + (with_offset ? 12 : 0) + 4;
	uint8_t pad[3] = { 0 };

	put32(p, 1);
	put32(p, len);
	put16(p, linktype);
	put16(p, 0);
	put32(p, snaplen);
	if (tsresol >= 0) {
		uint8_t v = (uint8_t)tsresol;

		put16(p, 9);
		put16(p, 1);
		put(p, &v, 1);
		put(p, pad, 3);
	}
	if (with_offset) {
		put16(p, 14);
		put16(p, 8);
		put64(p, (uint64_t)offset);
	}
	put32(p, 0); /* opt_endofopt */
	put32(p, len);
}

/* An Ethernet IDB with a 65535-byte snapshot length. */
static inline void idb(struct png *p, int tsresol, bool with_offset, int64_t offset)
{
	idb_of(p, 1, 65535, tsresol, with_offset, offset);
}

/* An EPB from interface @if_id with @len bytes of @data (padded). */
static inline void epb_data(struct png *p, uint32_t if_id, uint64_t ts, const void *data,
			    uint32_t len)
{
	static const uint8_t pad[3];
	uint32_t total = 32 + ((len + 3) & ~3u);

	put32(p, 6);
	put32(p, total);
	put32(p, if_id);
	put32(p, (uint32_t)(ts >> 32));
	put32(p, (uint32_t)ts);
	put32(p, len);
	put32(p, len);
	put(p, data, len);
	put(p, pad, ((len + 3) & ~3u) - len);
	put32(p, total);
}

/* An EPB with a 60-byte frame of zeroes, from interface @if_id. */
static inline void epb_on(struct png *p, uint32_t if_id, uint64_t ts)
{
	static const uint8_t frame[60];

	epb_data(p, if_id, ts, frame, sizeof(frame));
}

static inline void epb(struct png *p, uint64_t ts)
{
	epb_on(p, 0, ts);
}

#endif
