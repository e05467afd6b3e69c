/* SPDX-License-Identifier: MIT */
/*
 * pcap_time.h - capture timestamps as int64 nanoseconds, checked.
 *
 * A frame's time is nanoseconds since the epoch in an int64_t: from
 * 1970-01-01 to 2262-04-11. A file whose timestamp falls outside (a huge
 * pcapng timestamp, if_tsresol 0 with a large count, an if_tsoffset of
 * -2^62) is damaged at that frame; it is never wrapped.
 *
 * libpcap's own pcapng conversion is not safe for every file (libpcap
 * 1.10.3, sf-pcapng.c, pcap_ng_next_packet()): for a binary resolution finer
 * than 2^-34 s it multiplies the fraction by 10^9 in 64 bits, which wraps
 * (2^-40: 16000000.5 s reads as 16000000.013 s); it adds if_tsoffset in
 * unsigned 64-bit arithmetic, so an offset can wrap a far-future time back
 * into a plausible one. So for pcapng the reader follows the bytes libpcap
 * reads (struct nt_pcapng_track), keeps each interface's if_tsresol and
 * if_tsoffset and each packet block's raw 64-bit timestamp, and converts it
 * here in 128-bit arithmetic. Pure code: no I/O, no libpcap.
 */
#ifndef NT_CAPTURE_PCAP_TIME_H
#define NT_CAPTURE_PCAP_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * nt_pcap_time_ns() - seconds and nanoseconds to one int64, checked
 * @sec: seconds since the epoch, as libpcap's tv_sec (may be negative)
 * @frac_ns: nanoseconds, as libpcap's tv_usec at nanosecond precision
 * @t_ns: set to @sec * 10^9 + @frac_ns
 *
 * Return: 0, or -ERANGE when the sum is negative or beyond INT64_MAX.
 */
int nt_pcap_time_ns(int64_t sec, int64_t frac_ns, int64_t *t_ns);

/**
 * struct nt_pcapng_if - one pcapng interface's clock
 * @units_per_s: timestamp units per second: 10^n or 2^n (if_tsresol; 10^6 without)
 * @offset_s: seconds added to every timestamp (if_tsoffset)
 * @known: its Interface Description Block was read whole
 */
struct nt_pcapng_if {
	uint64_t units_per_s;
	int64_t offset_s;
	bool known;
};

/**
 * nt_pcapng_time_ns() - a pcapng packet block's raw timestamp in nanoseconds
 * @raw: the block's 64-bit timestamp, in @ifc's units
 * @ifc: the interface that captured it
 * @t_ns: set to floor(@raw * 10^9 / units) + offset * 10^9
 *
 * Return: 0, or -ERANGE when that is negative or beyond INT64_MAX.
 */
int nt_pcapng_time_ns(uint64_t raw, const struct nt_pcapng_if *ifc, int64_t *t_ns);

/* Bytes of a block kept for parsing: an IDB's options must fit (libpcap's limit is 16 MiB). */
#define NT_PCAPNG_BLOCK_KEEP 262144u /* 256 KiB */

/*
 * Packet blocks remembered ahead of libpcap: the stream it reads is
 * buffered, so the tracker runs up to one buffer (64 KiB) ahead, and the
 * smallest packet block (a Simple Packet Block) is 16 bytes.
 */
#define NT_PCAPNG_STAMPS 8192

/**
 * struct nt_pcapng_stamp - one packet block's time, as read
 * @end_pos: the stream offset just after the block
 * @raw: its raw timestamp
 * @clock: its interface's clock at the time (@clock.known false when unknown)
 */
struct nt_pcapng_stamp {
	uint64_t end_pos;
	uint64_t raw;
	struct nt_pcapng_if clock;
};

/**
 * struct nt_pcapng_track - follows a pcapng stream byte by byte, as read
 * @state: not yet known, pcapng, or something else (a classic pcap: ignored)
 * @swapped: the section's byte order is not the host's
 * @pos: bytes fed so far (the stream offset of the next byte)
 * @hdr: the current block's first bytes (kept up to NT_PCAPNG_BLOCK_KEEP)
 * @have: bytes of the current block seen
 * @len: the current block's total length, 0 before its header is complete
 * @ifs: this section's interfaces, in order
 * @n_ifs: how many
 * @cap_ifs: room in @ifs
 * @stamps: packet blocks read and not yet asked for, a ring
 * @head: stamps pushed
 * @tail: stamps consumed
 * @broken: the stream stopped making sense (libpcap will report why)
 */
struct nt_pcapng_track {
	enum { NT_PCAPNG_UNKNOWN, NT_PCAPNG_YES, NT_PCAPNG_NO } state;
	bool swapped;
	uint64_t pos;
	uint8_t *hdr;
	size_t have;
	uint32_t len;
	struct nt_pcapng_if *ifs;
	size_t n_ifs;
	size_t cap_ifs;
	struct nt_pcapng_stamp *stamps;
	uint64_t head;
	uint64_t tail;
	bool broken;
};

/**
 * nt_pcapng_track_init() - start following a stream
 * @t: the tracker
 *
 * Return: 0 or -ENOMEM.
 */
int nt_pcapng_track_init(struct nt_pcapng_track *t);

/**
 * nt_pcapng_track_feed() - the next bytes libpcap read, in order
 * @t: the tracker
 * @p: the bytes
 * @n: how many
 */
void nt_pcapng_track_feed(struct nt_pcapng_track *t, const uint8_t *p, size_t n);

/**
 * nt_pcapng_track_at() - the time of the packet block that ends at @pos
 * @t: the tracker
 * @pos: where libpcap's reading stands (ftell() of its stream) right after
 *       it returned a packet; asked in increasing order
 * @t_ns: set to the time
 *
 * Return: 1 with @t_ns set, 0 when the stream is not pcapng or the block or
 * its interface is unknown here (use libpcap's time, checked by
 * nt_pcap_time_ns()), -ERANGE when the time is out of range.
 */
int nt_pcapng_track_at(struct nt_pcapng_track *t, uint64_t pos, int64_t *t_ns);

/**
 * nt_pcapng_track_fini() - free the tracker; safe on a zeroed one
 * @t: the tracker
 */
void nt_pcapng_track_fini(struct nt_pcapng_track *t);

#endif
