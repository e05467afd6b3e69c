/* SPDX-License-Identifier: MIT */
/*
 * unknown.h - the one value meaning "not known" for every time, duration,
 * count and state in the model: a timestamp that was never taken, a
 * duration whose ends were not both seen, a kernel counter that could not
 * be read. Real values are never negative (times are nanoseconds since the
 * epoch of a live run), so a value is known exactly when it is >= 0; JSON
 * writes an unknown value as null.
 */
#ifndef NT_UNKNOWN_H
#define NT_UNKNOWN_H

#include <stdbool.h>
#include <stdint.h>

#define NT_UNKNOWN (-1)

/** nt_known() - whether @v holds a value */
static inline bool nt_known(int64_t v)
{
	return v >= 0;
}

#endif
