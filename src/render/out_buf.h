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

static inline bool out_buf_add(struct out_buf *b, const char *src, size_t len)
{
	if (b->used + len > sizeof(b->buf)) {
		if (!out_buf_flush(b))
			return false;
		if (len > sizeof(b->buf))
			return fwrite(src, 1, len, b->out) == len;
	}
	memcpy(b->buf + b->used, src, len);
	b->used += len;
	return true;
}

#endif
