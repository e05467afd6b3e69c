// SPDX-License-Identifier: MIT
/*
 * procs_log.c - the run's output plumbing (see nt/live/procs_log.h).
 *
 * The target's lines are written whole, prefix and all, in one write(): a
 * terminal shared with the client's stderr and our own messages then never
 * shows half a target line glued to something else. Lines up to PIPE_BUF
 * bytes are also atomic when the destination is a pipe (pipe(7)).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "nt/live/procs_log.h"

/* A prefix is cut to this length: it is ours ("target: "), not the user's. */
#define PREFIX_MAX 64
/* How long a full destination (a stopped terminal, a slow pipe reader) may hold one write. */
#define WRITE_WAIT_MS 1000

int nt_procs_write_all(int fd, const char *data, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, data, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			/* Someone made the descriptor non-blocking (a shared terminal): wait a bit. */
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (poll(&pfd, 1, WRITE_WAIT_MS) <= 0)
				return -EAGAIN;
			continue;
		}
		if (w < 0)
			return -errno;
		data += w;
		n -= (size_t)w;
	}
	return 0;
}

void nt_procs_linebuf_init(struct nt_procs_linebuf *lb, int fd, const char *prefix)
{
	lb->fd = fd;
	lb->prefix = prefix;
	lb->match = NULL;
	lb->matched = false;
	lb->quiet_terminated = false;
	lb->len = 0;
	lb->error = 0;
}

/* The first failed write is kept: the command says it and exits 4 (--target-log). */
static void write_checked(struct nt_procs_linebuf *lb, const char *data, size_t n)
{
	int ret = nt_procs_write_all(lb->fd, data, n);

	if (ret < 0 && !lb->error)
		lb->error = ret;
}

/* Prefix, @n bytes of @data, and a newline unless @data ends in one: one write. */
static void emit_line(struct nt_procs_linebuf *lb, const char *data, size_t n)
{
	char out[PREFIX_MAX + NT_PROCS_LINE_BYTES + 1];
	size_t plen = strnlen(lb->prefix, PREFIX_MAX), len = 0;

	memcpy(out, lb->prefix, plen);
	len += plen;
	memcpy(out + len, data, n);
	len += n;
	if (n == 0 || data[n - 1] != '\n')
		out[len++] = '\n';
	write_checked(lb, out, len);
}

/*
 * dash reports a foreground child that a signal ended ("Terminated") on its
 * own stderr, which is the target's output: at teardown that is our SIGTERM
 * reaching the server, which the report tells already.
 */
static bool is_shell_terminated(const char *line, size_t n)
{
	static const char word[] = "Terminated";

	return (n == sizeof(word) - 1 || (n == sizeof(word) && line[n - 1] == '\n')) &&
	       memcmp(line, word, sizeof(word) - 1) == 0;
}

/* A whole line (or a piece of NT_PROCS_LINE_BYTES): matched, then written when @emit. */
static void on_line(struct nt_procs_linebuf *lb, const char *line, size_t n, bool emit)
{
	if (lb->match && !lb->matched) {
		char text[NT_PROCS_LINE_BYTES + 1];
		size_t k = n > 0 && line[n - 1] == '\n' ? n - 1 : n;

		memcpy(text, line, k);
		text[k] = '\0';
		lb->matched = regexec(lb->match, text, 0, NULL, 0) == 0;
	}
	if (emit && !(lb->quiet_terminated && is_shell_terminated(line, n)))
		emit_line(lb, line, n);
}

void nt_procs_linebuf_feed(struct nt_procs_linebuf *lb, const char *data, size_t n)
{
	bool emit = lb->prefix != NULL;

	if (!lb->prefix) {
		/* Written as it comes; lines are only put together for --ready-log. */
		write_checked(lb, data, n);
		if (!lb->match)
			return;
	}
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) + 1 : n;
		size_t room = sizeof(lb->buf) - lb->len;

		if (take > room)
			take = room;
		memcpy(lb->buf + lb->len, data, take);
		lb->len += take;
		data += take;
		n -= take;
		if (lb->buf[lb->len - 1] == '\n' || lb->len == sizeof(lb->buf)) {
			on_line(lb, lb->buf, lb->len, emit);
			lb->len = 0;
		}
	}
}

void nt_procs_linebuf_flush(struct nt_procs_linebuf *lb)
{
	if (lb->len > 0)
		on_line(lb, lb->buf, lb->len, lb->prefix != NULL);
	lb->len = 0;
}

void nt_procs_tail_add(struct nt_procs_tail *t, const char *data, size_t n)
{
	const size_t size = sizeof(t->ring);

	if (n > size) {
		t->total += n - size;
		data += n - size;
		n = size;
	}
	while (n > 0) {
		size_t at = (size_t)(t->total % size);
		size_t chunk = size - at < n ? size - at : n;

		memcpy(t->ring + at, data, chunk);
		t->total += chunk;
		data += chunk;
		n -= chunk;
	}
}

void nt_procs_tail_lines(const struct nt_procs_tail *t, unsigned max_lines, char *out, size_t len)
{
	const size_t size = sizeof(t->ring);
	char lin[NT_PROCS_TAIL_BYTES];
	size_t count = t->total < size ? (size_t)t->total : size;
	size_t start = 0, end, o = 0;
	unsigned lines = 0;

	if (len == 0)
		return;
	for (size_t i = 0; i < count; i++)
		lin[i] = t->ring[(size_t)((t->total - count + i) % size)];
	/* The ring lost the start of its first line: drop the rest of that line. */
	if (t->total > size) {
		const char *nl = memchr(lin, '\n', count);

		if (nl && (size_t)(nl - lin) + 1 < count)
			start = (size_t)(nl - lin) + 1;
	}
	end = count;
	if (end > start && lin[end - 1] == '\n')
		end--;
	/* Back from the end over @max_lines line starts. */
	for (size_t i = end; i > start; i--) {
		if (lin[i - 1] == '\n' && ++lines == max_lines) {
			start = i;
			break;
		}
	}
	for (size_t i = start; i < end && o + 1 < len; i++) {
		unsigned char c = (unsigned char)lin[i];

		out[o++] = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : (char)c;
	}
	out[o] = '\0';
}
