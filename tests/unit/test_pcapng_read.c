// SPDX-License-Identifier: MIT
/*
 * test_pcapng_read.c - the pcapng block reader on crafted files, through
 * the capture file reader (nt_pcap_file_*()) as every command uses it:
 * interfaces of different link types and snapshot lengths, several sections
 * in both byte orders, Simple and obsolete Packet Blocks, unknown blocks
 * skipped, a filter per link type, and every length check: a damaged block
 * ends the file with a message naming its frame and offset, after the frames
 * before it were read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nt/capture/pcap_file.h"
#include "nt/capture/pcapng.h"
#include "nt/capture/pcapng_read.h"
#include "test_png.h"

#define LT_ETHERNET   1
#define LT_RAW	      101 /* LINKTYPE_RAW: read as DLT_RAW */
#define DLT_RAW_LINUX 12
#define LT_SLL2	      276

/* What nt_pcap_file_next() gave, frame by frame. */
struct got {
	int n;
	int linktype[16];
	unsigned snaplen[16];
	uint32_t caplen[16];
	int64_t t_ns[16];
	struct nt_frame_note note[16];
	int last; /* nt_pcap_file_next()'s last status */
	struct nt_err err;
};

static void read_png(const struct png *p, const char *filter, struct got *g)
{
	FILE *fp = fmemopen((void *)p->b, p->n, "r");
	struct nt_pcap_file *f;
	struct nt_frame fr;

	memset(g, 0, sizeof(*g));
	assert_non_null(fp);
	assert_int_equal(nt_pcap_file_fopen(fp, "x.pcapng", &f, &g->err), 0);
	if (filter)
		assert_int_equal(nt_pcap_file_set_filter(f, filter, &g->err), 0);
	while ((g->last = nt_pcap_file_next(f, &fr, &g->err)) == 1 && g->n < 16) {
		g->linktype[g->n] = fr.linktype;
		g->snaplen[g->n] = nt_pcap_file_snaplen(f);
		g->caplen[g->n] = fr.caplen;
		g->note[g->n] = fr.note;
		g->t_ns[g->n++] = fr.t_ns;
	}
	nt_pcap_file_close(f);
}

/* The open fails with @why in its message. */
static void refused(const struct png *p, const char *why)
{
	FILE *fp = fmemopen((void *)p->b, p->n, "r");
	struct nt_err err = { "" };
	struct nt_pcap_file *f = NULL;

	assert_non_null(fp);
	assert_true(nt_pcap_file_fopen(fp, "x.pcapng", &f, &err) < 0);
	assert_null(f);
	if (!strstr(err.msg, why))
		fail_msg("\"%s\" lacks \"%s\"", err.msg, why);
}

/* A block of @type with @body_len bytes of zeroes (a multiple of 4). */
static void other_block(struct png *p, uint32_t type, uint32_t body_len)
{
	static const uint8_t zero[64];

	put32(p, type);
	put32(p, 12 + body_len);
	put(p, zero, body_len);
	put32(p, 12 + body_len);
}

/* An EPB of a 60-byte frame at @t_ns on interface 0, with @n comments, by the writer. */
static void epb_noted(struct png *p, uint64_t t_ns, const char *const *comments, size_t n)
{
	static const uint8_t frame[60];
	const struct nt_pcapng_packet pk = { .t_ns = t_ns,
					     .data = frame,
					     .caplen = 60,
					     .wirelen = 60,
					     .comments = comments,
					     .n_comments = n };
	struct nt_pcapng_out o;

	nt_pcapng_out_buffer(&o, p->b + p->n, sizeof(p->b) - p->n);
	assert_int_equal(nt_pcapng_put_epb(&o, &pk), 0);
	p->n += o.len;
}

/*
 * what this checks: a -w file's notes come back from its frames' comments
 * (the delay line's lateness, when the frame's write returned, before or
 * after it), beside other comments; a comment that only looks like a note
 * (another unit, a sign, words after it) and a frame with none give none.
 */
static void test_frame_notes(void **state)
{
	const char *const late[] = { "round 2: H, the header's last segment",
				     NT_PCAPNG_LATE_PREFIX "8000 ns" };
	const char *const before[] = { NT_PCAPNG_WRITE_PREFIX "40338122 ns before this frame",
				       NT_PCAPNG_LATE_PREFIX "12 ns" };
	const char *const after[] = { NT_PCAPNG_WRITE_PREFIX "6896 ns after this frame" };
	const char *const edited[] = { NT_PCAPNG_WRITE_PREFIX "6896 ns later",
				       NT_PCAPNG_WRITE_PREFIX "-5 ns before this frame",
				       NT_PCAPNG_LATE_PREFIX "-3 ns",
				       NT_PCAPNG_LATE_PREFIX "9 us" };
	struct png p = { .n = 0 };
	struct got g;

	(void)state;
	shb(&p);
	idb(&p, 9, false, 0);
	epb_noted(&p, 1000, late, 2);
	epb_noted(&p, 2000, before, 2);
	epb_noted(&p, 3000, after, 1);
	epb_noted(&p, 4000, edited, 4);
	epb_noted(&p, 5000, NULL, 0);
	read_png(&p, NULL, &g);
	assert_int_equal(g.last, 0);
	assert_int_equal(g.n, 5);
	assert_int_equal(g.note[0].late_ns, 8000);
	assert_false(g.note[0].has_write);
	assert_true(g.note[1].has_write);
	assert_int_equal(g.note[1].write_lead_ns, 40338122);
	assert_int_equal(g.note[1].late_ns, 12);
	assert_true(g.note[2].has_write);
	assert_int_equal(g.note[2].write_lead_ns, -6896);
	for (int i = 3; i < 5; i++)
		assert_true(!g.note[i].has_write && g.note[i].late_ns == 0);
}

static void test_link_types_and_snaplens(void **state)
{
	struct png p = { .n = 0 };
	struct got g;

	(void)state;
	shb(&p);
	idb_of(&p, LT_ETHERNET, 65535, -1, false, 0);
	idb_of(&p, LT_RAW, 262144, 9, false, 0);
	epb_on(&p, 0, 1000000);
	epb_on(&p, 1, 2000000000);
	idb_of(&p, LT_SLL2, 96, -1, false, 0); /* an interface after the first packets */
	epb_on(&p, 2, 3000000);
	epb_on(&p, 0, 4000000);
	read_png(&p, NULL, &g);
	assert_int_equal(g.last, 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.linktype[0], LT_ETHERNET);
	assert_int_equal(g.linktype[1], DLT_RAW_LINUX);
	assert_int_equal(g.linktype[2], LT_SLL2);
	assert_int_equal(g.linktype[3], LT_ETHERNET);
	assert_int_equal(g.snaplen[1], 262144);
	assert_int_equal(g.snaplen[2], 96);
	assert_int_equal(g.snaplen[3], 65535);
	/* Each interface's own clock: microseconds, then nanoseconds. */
	assert_int_equal(g.t_ns[0], 1000000000LL);
	assert_int_equal(g.t_ns[1], 2000000000LL);
	assert_int_equal(g.t_ns[2], 3000000000LL);
}

static void test_sections_both_orders(void **state)
{
	struct png p = { .n = 0 };
	struct got g;

	(void)state;
	shb(&p);
	idb_of(&p, LT_ETHERNET, 65535, -1, false, 0);
	epb_on(&p, 0, 1);
	p.swap = true; /* a second section, big-endian on this host */
	shb(&p);
	idb_of(&p, LT_RAW, 1500, -1, false, 0);
	epb_on(&p, 0, 2); /* interface 0 of this section: raw IP */
	p.swap = false;
	shb(&p);
	idb_of(&p, LT_SLL2, 65535, -1, false, 0);
	epb_on(&p, 0, 3);
	read_png(&p, NULL, &g);
	assert_int_equal(g.last, 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.linktype[0], LT_ETHERNET);
	assert_int_equal(g.linktype[1], DLT_RAW_LINUX);
	assert_int_equal(g.snaplen[1], 1500);
	assert_int_equal(g.linktype[2], LT_SLL2);
	assert_int_equal(g.t_ns[1], 2000);
}

static void test_simple_obsolete_and_unknown_blocks(void **state)
{
	struct png p = { .n = 0 };
	struct got g;

	(void)state;
	shb(&p);
	idb_of(&p, LT_ETHERNET, 40, -1, false, 0);
	other_block(&p, 4, 16);	   /* Name Resolution */
	other_block(&p, 0x777, 8); /* unknown (0xBAD would be a custom block) */
	/* SPB: original length 60, cut at the interface's 40. */
	put32(&p, 3);
	put32(&p, 16 + 40);
	put32(&p, 60);
	put(&p, (uint8_t[40]){ 0 }, 40);
	put32(&p, 16 + 40);
	/* Obsolete PB: 16-bit interface, drops, timestamp, 20 bytes. */
	put32(&p, 2);
	put32(&p, 32 + 20);
	put16(&p, 0);
	put16(&p, 0);
	put32(&p, 0);
	put32(&p, 7);
	put32(&p, 20);
	put32(&p, 20);
	put(&p, (uint8_t[20]){ 0 }, 20);
	put32(&p, 32 + 20);
	other_block(&p, 5, 20); /* Interface Statistics */
	read_png(&p, NULL, &g);
	assert_int_equal(g.last, 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.caplen[0], 40);
	assert_int_equal(g.t_ns[0], 0); /* an SPB has no time */
	assert_int_equal(g.caplen[1], 20);
	assert_int_equal(g.t_ns[1], 7000);
}

/* A minimal IPv4 header after an Ethernet header (type 0x0800), and alone. */
static void ipv4_frames(struct png *p)
{
	uint8_t eth[34] = { [12] = 0x08, [13] = 0x00, [14] = 0x45, [23] = 6 };
	uint8_t raw[20] = { [0] = 0x45, [9] = 6 };

	epb_data(p, 0, 1, eth, sizeof(eth));
	epb_data(p, 1, 2, raw, sizeof(raw));
}

static void test_filter_per_link_type(void **state)
{
	struct png p = { .n = 0 };
	struct got g;

	(void)state;
	shb(&p);
	idb_of(&p, LT_ETHERNET, 65535, -1, false, 0);
	idb_of(&p, LT_RAW, 65535, -1, false, 0);
	ipv4_frames(&p);
	ipv4_frames(&p);
	read_png(&p, "ip", &g);
	assert_int_equal(g.n, 4);
	/* "ether" does not compile for raw IP: only the Ethernet frames match. */
	read_png(&p, "ether broadcast or ip", &g);
	assert_int_equal(g.last, 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.linktype[0], LT_ETHERNET);
	assert_int_equal(g.linktype[1], LT_ETHERNET);
	read_png(&p, "udp", &g);
	assert_int_equal(g.n, 0);
}

/*
 * One good frame, then @bad's bytes (and a good frame, unless @at_end): the
 * frame read, then -EIO saying @why.
 */
static void damaged_after_1(const void *bad, size_t n, bool at_end, const char *why)
{
	struct png p = { .n = 0 };
	struct got g;

	shb(&p);
	idb(&p, -1, false, 0);
	epb(&p, 1);
	put(&p, bad, n);
	if (!at_end)
		epb(&p, 2); /* never reached */
	read_png(&p, NULL, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.last, -EIO);
	if (!strstr(g.err.msg, "\"x.pcapng\" is damaged after frame 1: block at byte offset 144") ||
	    !strstr(g.err.msg, why))
		fail_msg("\"%s\" lacks \"%s\"", g.err.msg, why);
}

static void test_every_length_checked(void **state)
{
	uint32_t odd[] = { 6, 34, 0, 0, 0, 0, 0, 0, 34 };
	uint32_t tiny[] = { 6, 8 };
	uint32_t trailer[] = { 6, 32, 0, 0, 0, 0, 0, 36 };
	uint32_t caplen[] = { 6, 36, 0, 0, 0, 5, 5, 0, 36 };
	uint32_t iface[] = { 6, 32, 5, 0, 0, 0, 0, 32 };
	uint32_t short_epb[] = { 6, 28, 0, 0, 0, 0, 28 };
	uint32_t huge[] = { 6, 32u << 20 };
	uint32_t idb_opt[] = { 1, 28, 1, 65535, 9 | 40u << 16, 0, 28 };
	uint32_t truncated[] = { 6, 92, 0, 0, 0, 60, 60 };
	uint32_t version[] = { 0x0A0D0D0A, 28, 0x1A2B3C4D, 2, 0, 0, 28 };

	(void)state;
	damaged_after_1(odd, sizeof(odd), false, "not a multiple of 4 of at least 12");
	damaged_after_1(tiny, sizeof(tiny), false, "not a multiple of 4 of at least 12");
	damaged_after_1(trailer, sizeof(trailer), false, "trailing total length differs");
	damaged_after_1(caplen, sizeof(caplen), false, "captured length runs past its block");
	damaged_after_1(iface, sizeof(iface), false,
			"a packet of interface 5, but the section has 1");
	damaged_after_1(short_epb, sizeof(short_epb), false, "shorter than 32 octets");
	damaged_after_1(huge, sizeof(huge), false, "beyond 16 MiB");
	damaged_after_1(idb_opt, sizeof(idb_opt), false, "an interface option runs past");
	damaged_after_1(truncated, sizeof(truncated), true, "ends inside it (truncated)");
	damaged_after_1(version, sizeof(version), false, "version other than 1.0-1.2");
}

static void test_refused_at_open(void **state)
{
	struct png p = { .n = 0 };

	(void)state;
	shb(&p);
	refused(&p, "cannot read \"x.pcapng\": a pcapng file with no interface");
	epb(&p, 1);
	refused(&p, "a packet before any interface");
	p.n = 0;
	put32(&p, 0x0A0D0D0A);
	put32(&p, 28);
	put32(&p, 0x11223344);
	refused(&p, "no byte-order magic");
	p.n = 0;
	shb(&p);
	idb_of(&p, 1, 65535, 20, false, 0); /* 10^-20 s: no 64-bit count */
	refused(&p, "if_tsresol");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_types_and_snaplens),
		cmocka_unit_test(test_sections_both_orders),
		cmocka_unit_test(test_simple_obsolete_and_unknown_blocks),
		cmocka_unit_test(test_filter_per_link_type),
		cmocka_unit_test(test_every_length_checked),
		cmocka_unit_test(test_refused_at_open),
		cmocka_unit_test(test_frame_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
