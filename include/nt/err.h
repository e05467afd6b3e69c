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

/*
 * A quoted path is shortened to this many bytes (NUL included): with the
 * words around it and the reason ("...: No space left on device"), a message
 * then always fits in NT_ERR_MSG_MAX, so the reason is never cut off.
 */
#define NT_ERR_PATH_MAX 200

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

/**
 * nt_err_path() - @path, shortened in the middle when too long to quote
 * @path: the path as the user gave it
 * @buf: room for the shortened form
 * @len: size of @buf (NT_ERR_PATH_MAX is the usual size)
 *
 * A path longer than @len - 1 bytes keeps its beginning and its end, the
 * file name, joined by "..." (U+2026): "/very/long/...ing/name.json". Cuts
 * fall between UTF-8 sequences, never inside one.
 *
 * Return: @path when it fits, else @buf.
 */
const char *nt_err_path(const char *path, char *buf, size_t len);

#endif
