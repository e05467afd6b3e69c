/* SPDX-License-Identifier: MIT */
/*
 * out_buf.h - text on its way to a stream, a buffer at a time: for writers
 * that put out many short pieces (json_out.c, json_layout.c), one fwrite()
 * per 8 KiB instead of one per piece. The buffer lives on the writer's
 * stack, so threads rendering at once (nt/render/chunks.h) share nothing.
 */
#ifndef NT_RENDER_OUT_BUF_H
#define NT_RENDER_OUT_BUF_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/**
 * struct out_buf - a stream's pending text
 * @out: the stream
 * @used: bytes in @buf
 * @buf: the text not written yet
 */
struct out_buf {
	FILE *out;
	size_t used;
	char buf[8192];
};

/* Empty, bound to @out; @buf is left as it is (clearing 8 KiB a flow would cost more than it saves). */
static inline void out_buf_init(struct out_buf *b, FILE *out)
{
	b->out = out;
	b->used = 0;
}

static inline bool out_buf_flush(struct out_buf *b)
{
	size_t n = b->used;

	b->used = 0;
	return !n || fwrite(b->buf, 1, n, b->out) == n;
}

/*
 * @len bytes from @src to @dst. Most pieces are a few bytes (a key and its
 * punctuation, a number's digits), and memcpy() of a length known only at
 * run time is a library call: 10 % of analyze --format jsonl's samples
 * (issue 31). Up to 16 bytes, two fixed-size copies that overlap in the
 * middle cover the piece, inline, reading no byte outside it.
 */
static inline void out_buf_copy(char *dst, const char *src, size_t len)
{
	char *dst_end = dst + len;
	/*
	 * cppcheck follows a caller's literal ("true", 4 bytes) into the
	 * branches for longer pieces, which that caller never takes.
	 */
	/* cppcheck-suppress pointerOutOfBoundsCond */
	const char *src_end = src + len;

	if (len > 16) {
		memcpy(dst, src, len);
	} else if (len >= 8) {
		memcpy(dst, src, 8);
		memcpy(dst_end - 8, src_end - 8, 8);
	} else if (len >= 4) {
		memcpy(dst, src, 4);
		memcpy(dst_end - 4, src_end - 4, 4);
	} else if (len) {
		dst[0] = src[0];
		dst[len / 2] = src[len / 2];
		dst_end[-1] = src_end[-1];
	}
}

static inline bool out_buf_add(struct out_buf *b, const char *src, size_t len)
{
	if (b->used + len > sizeof(b->buf)) {
		if (!out_buf_flush(b))
			return false;
		if (len > sizeof(b->buf))
			return fwrite(src, 1, len, b->out) == len;
	}
	out_buf_copy(b->buf + b->used, src, len);
	b->used += len;
	return true;
}

#endif
