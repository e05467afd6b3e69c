/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the two clocks. Events are stamped with CLOCK_REALTIME, the clock
 * of the capture's kernel timestamps; timers and timeouts use CLOCK_MONOTONIC
 * so a wall-clock step cannot stretch or cut them.
 */
#ifndef NT_CLOCK_H
#define NT_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NT_NS_PER_MS  1000000LL
#define NT_NS_PER_SEC 1000000000LL

static inline int64_t nt_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NT_NS_PER_SEC + ts.tv_nsec;
}

static inline int64_t nt_now_real_ns(void)
{
	return nt_clock_ns(CLOCK_REALTIME);
}

static inline int64_t nt_now_mono_ns(void)
{
	return nt_clock_ns(CLOCK_MONOTONIC);
}

#endif
