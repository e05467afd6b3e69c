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
 * into a plausible one. So pcapng files are read by our own block reader
 * (nt/capture/pcapng_read.h), which keeps each interface's if_tsresol and
 * if_tsoffset and converts each packet block's raw 64-bit timestamp here,
 * in 128-bit arithmetic. Pure code: no I/O, no libpcap.
 */
#ifndef NT_CAPTURE_PCAP_TIME_H
#define NT_CAPTURE_PCAP_TIME_H

#include <stdbool.h>
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
 */
struct nt_pcapng_if {
	uint64_t units_per_s;
	int64_t offset_s;
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

#endif
