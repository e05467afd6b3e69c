/* SPDX-License-Identifier: MIT */
/*
 * procs_log.h - the run's output plumbing: the target's output written line by
 * line behind a prefix, the client's stderr passed through while its last
 * lines are kept. Buffers only; the descriptors are the caller's.
 */
#ifndef NT_LIVE_PROCS_LOG_H
#define NT_LIVE_PROCS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <regex.h>

/* A line longer than this is written in pieces of this size, each prefixed. */
#define NT_PROCS_LINE_BYTES 4096
/* The client's stderr tail: at most this many lines and bytes. */
#define NT_PROCS_TAIL_LINES 5
#define NT_PROCS_TAIL_BYTES 2048

/**
 * struct nt_procs_linebuf - a partial line waiting for its newline
 * @fd: where complete lines go
 * @prefix: written before each line; NULL passes bytes through unbuffered
 * @match: each whole line is matched against it until one matches (even
 *         with no @prefix), NULL for none
 * @matched: a line matched @match
 * @quiet_terminated: drop the line "Terminated" (the shell's report of our
 *                    SIGTERM), set at teardown
 * @buf: the partial line
 * @len: bytes in @buf
 * @error: the first failed write's negative errno (ENOSPC, EFBIG, EPIPE), 0
 *         while none failed
 */
struct nt_procs_linebuf {
	int fd;
	const char *prefix;
	const regex_t *match;
	bool matched;
	bool quiet_terminated;
	char buf[NT_PROCS_LINE_BYTES];
	size_t len;
	int error;
};

/**
 * struct nt_procs_tail - the last bytes of a stream, as a ring
 * @ring: the bytes
 * @total: bytes seen in all (the ring holds the last min(@total, size))
 */
struct nt_procs_tail {
	char ring[NT_PROCS_TAIL_BYTES];
	unsigned long long total;
};

/**
 * nt_procs_linebuf_init() - start a line buffer
 * @lb: the buffer
 * @fd: where lines go
 * @prefix: before each line, or NULL for no prefix and no buffering
 */
void nt_procs_linebuf_init(struct nt_procs_linebuf *lb, int fd, const char *prefix);

/**
 * nt_procs_linebuf_feed() - take bytes; write every complete line
 * @lb: the buffer
 * @data: the bytes
 * @n: how many
 *
 * A write error drops the output (the run goes on): the destination is the
 * user's terminal or log file, and nothing better can be done with it here.
 */
void nt_procs_linebuf_feed(struct nt_procs_linebuf *lb, const char *data, size_t n);

/**
 * nt_procs_linebuf_flush() - write a partial last line, ending it with a newline
 * @lb: the buffer
 */
void nt_procs_linebuf_flush(struct nt_procs_linebuf *lb);

/**
 * nt_procs_tail_add() - remember the last bytes of a stream
 * @t: the tail
 * @data: the bytes
 * @n: how many
 */
void nt_procs_tail_add(struct nt_procs_tail *t, const char *data, size_t n);

/**
 * nt_procs_tail_lines() - the last lines seen
 * @t: the tail
 * @max_lines: at most this many lines
 * @out: filled, NUL-terminated: whole lines only when the ring lost the
 *       start of the first one, trailing newline removed, control characters
 *       other than tab and newline replaced by '?'
 * @len: size of @out
 */
void nt_procs_tail_lines(const struct nt_procs_tail *t, unsigned max_lines, char *out, size_t len);

/**
 * nt_procs_write_all() - write all of @data to @fd, waiting while it is full
 * @fd: the descriptor
 * @data: the bytes
 * @n: how many
 *
 * Return: 0 or a negative errno.
 */
int nt_procs_write_all(int fd, const char *data, size_t n);

#endif
