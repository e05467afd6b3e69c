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

#define NT_NS_PER_US  1000LL
#define NT_NS_PER_MS  1000000LL
#define NT_NS_PER_SEC 1000000000LL

/** nt_timespec_ns() - a struct timespec as nanoseconds */
static inline int64_t nt_timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NT_NS_PER_SEC + ts->tv_nsec;
}

/** nt_ns_timespec() - nanoseconds (>= 0) as a struct timespec */
static inline struct timespec nt_ns_timespec(int64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NT_NS_PER_SEC),
				  .tv_nsec = (long)(ns % NT_NS_PER_SEC) };
}

/** nt_ns_to_ms() - nanoseconds as (fractional) milliseconds, for printing */
static inline double nt_ns_to_ms(int64_t ns)
{
	return (double)ns / (double)NT_NS_PER_MS;
}

static inline int64_t nt_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return nt_timespec_ns(&ts);
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
