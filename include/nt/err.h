/* SPDX-License-Identifier: MIT */
/*
 * err.h - one error message, written where the context is richest.
 *
 * A failing function fills a struct nt_err with a one-line, lowercase message
 * (user values quoted, the kernel's own text passed on) and returns a negative
 * errno. Callers pass the status up untouched; the command (src/cmd/) prints
 * it once, prefixed with "nagle-trace: ", and picks the exit status.
 */
#ifndef NT_ERR_H
#define NT_ERR_H

#include <stddef.h>

#define NT_ERR_MSG_MAX 512

/**
 * struct nt_err - the first error of an operation
 * @msg: one line, no trailing period, no program name; empty when no error
 */
struct nt_err {
	char msg[NT_ERR_MSG_MAX];
};

/**
 * nt_err_set() - record an error message
 * @err: where to write; NULL is allowed (the message is dropped)
 * @neg_errno: negative errno of the failure, or 0 for none; when nonzero its
 *             strerror() text is appended after ": "
 * @fmt: printf format of the message
 *
 * An error already recorded is kept: the first, most specific one wins.
 *
 * Return: @neg_errno, or -EINVAL when @neg_errno is 0 (so callers can
 * `return nt_err_set(...)`).
 */
int nt_err_set(struct nt_err *err, int neg_errno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
