/* SPDX-License-Identifier: MIT */
/*
 * out_buf.h - text on its way to a stream, a buffer at a time: for writers
 * that put out many short pieces (json_out.c, json_layout.c, the flows of
 * analysis_text.c), one fwrite() per 8 KiB instead of one per piece. The
 * buffer lives on the writer's stack, so threads rendering at once
 * (nt/render/chunks.h) share nothing.
 *
 * A write that fails shows in ferror() of the stream, as a failed
 * fprintf() does: writers that check the stream once at the end may drop
 * the helpers' return values.
 */
#ifndef NT_RENDER_OUT_BUF_H
#define NT_RENDER_OUT_BUF_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nt/render/escape.h"
#include "nt/render/fmt.h"

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

/*
 * Why a writer's out_buf write failed, told at once: the write's errno
 * (EFBIG, ENOSPC, EPIPE), -EIO without one, -ENOMEM when the stream never
 * failed (json-c had no memory for a value's text). Later is too late:
 * glibc drops the bytes a failed write(2) could not take, so flushing again
 * succeeds and the reason is lost (nt_output_fail() can ask only a stream
 * that still holds them).
 */
static inline int out_buf_failed(FILE *out)
{
	if (!ferror(out))
		return -ENOMEM;
	return errno ? -errno : -EIO;
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

static inline bool out_buf_str(struct out_buf *b, const char *s)
{
	return out_buf_add(b, s, strlen(s));
}

/*
 * @len bytes of @s padded with spaces to |@width| bytes, never cut, as
 * printf()'s "%*s" does (@width > 0: on the right) and "%-*s" (@width < 0:
 * on the left); 0, as they are.
 */
static inline bool out_buf_pad(struct out_buf *b, const char *s, size_t len, int width)
{
	static const char spaces[16] = "                ";
	size_t w = (size_t)(width < 0 ? -(int64_t)width : width);
	size_t pad = len < w ? w - len : 0;
	bool ok = true;

	if (width < 0)
		ok = out_buf_add(b, s, len);
	for (size_t n; ok && pad; pad -= n) {
		n = pad < sizeof(spaces) ? pad : sizeof(spaces);
		ok = out_buf_add(b, spaces, n);
	}
	return ok && (width < 0 || out_buf_add(b, s, len));
}

/* @v in decimal, as "%*" PRIu64 prints it with @width (0: no padding). */
static inline bool out_buf_u64(struct out_buf *b, uint64_t v, int width)
{
	char digits[NT_FMT_U64_CHARS], *end = digits + sizeof(digits);
	char *p = nt_fmt_u64_back(v, end);

	return out_buf_pad(b, p, (size_t)(end - p), width);
}

/* @text, then @v in decimal: "  packets ", "23" */
static inline bool out_buf_str_u64(struct out_buf *b, const char *text, uint64_t v)
{
	return out_buf_str(b, text) && out_buf_u64(b, v, 0);
}

/* @text, then @ns in milliseconds as nt_fmt_ms_trunc() prints it: " (+", "1000.000" */
static inline bool out_buf_str_ms(struct out_buf *b, const char *text, int64_t ns)
{
	char ms[NT_FMT_MS_LEN];

	return out_buf_str(b, text) && out_buf_str(b, nt_fmt_ms_trunc(ns, ms, sizeof(ms)));
}

/* nt_escape_sink for an out_buf: a failed write shows in ferror() of its stream. */
static inline void out_buf_sink(void *b, const char *s, size_t len)
{
	(void)out_buf_add(b, s, len);
}

/* @s escaped for XML or HTML (nt_escape_xml()) */
static inline void out_buf_xml(struct out_buf *b, const char *s)
{
	nt_escape_xml_into(out_buf_sink, b, s, strlen(s));
}

/* @s as a Markdown table cell's text (nt_escape_md_cell()) */
static inline void out_buf_md_cell(struct out_buf *b, const char *s)
{
	nt_escape_md_cell_into(out_buf_sink, b, s);
}

#endif
