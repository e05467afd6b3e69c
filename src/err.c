// SPDX-License-Identifier: MIT
/*
 * err.c - the first error message of an operation (see nt/err.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nt/err.h"

int nt_err_set(struct nt_err *err, int neg_errno, const char *fmt, ...)
{
	int ret = neg_errno ? neg_errno : -EINVAL;
	va_list ap;
	int n;

	if (!err || err->msg[0])
		return ret;
	va_start(ap, fmt);
	/*
	 * clang 14's ValistChecker misses the va_start() above when a return
	 * precedes it; it reports the call's first line, so the marker goes
	 * before it (a trailing NOLINT lands on the wrapped line).
	 */
	// NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);

	if (neg_errno && n >= 0 && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s", strerror(-neg_errno));
	/*
	 * One line, always: messages quote the user's values and the kernel's
	 * text, either of which may hold a newline or an escape sequence.
	 */
	for (char *p = err->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return ret;
}
