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

	if (!err || err->msg[0])
		return ret;

	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);

	if (neg_errno && n >= 0 && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s", strerror(-neg_errno));
	return ret;
}

void nt_err_clear(struct nt_err *err)
{
	if (err)
		err->msg[0] = '\0';
}
