// SPDX-License-Identifier: MIT
/*
 * pcap_time.c - checked capture timestamps (see nt/capture/pcap_time.h).
 */
#include <errno.h>

#include "nt/capture/pcap_time.h"
#include "nt/clock.h"

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
