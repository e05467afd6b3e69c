// SPDX-License-Identifier: MIT
/*
 * report_floor.c - the least writing a report costs from values in hand:
 * the reference bench_percore.py sets beside analyze's formats.
 *
 *   report_floor REPORT > /dev/null
 *
 * REPORT is a report analyze wrote. Untimed, it is cut into the text
 * between its numbers and the numbers themselves (runs of decimal digits
 * that print back as they are: no leading zero, at most 19 digits), every
 * page of both touched. Timed: the report written again to standard
 * output, each piece of text copied and each number printed by analyze's
 * own digits (nt_fmt_u64_back()), through a 256 KiB buffer, as analyze
 * writes to /dev/null (src/output.c). No analysis, no decoding, no json-c,
 * no layout: a renderer cannot do less than this and print these bytes.
 * The bytes are REPORT's (bench_percore.py compares them once).
 *
 * Prints to standard error: the timed part's CPU (user + system,
 * getrusage()), the numbers and the bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "nt/render/fmt.h"

/* One number and the text before it. */
struct piece {
	uint64_t text_len;
	uint64_t value;
};

static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - n < 1 << 20) {
			cap = cap ? cap * 2 : 1 << 24;
			buf = realloc(buf, cap);
			if (!buf) {
				fclose(f);
				return NULL;
			}
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A run of digits printed back as it is by nt_fmt_u64_back(): no leading zero, fits in 64 bits. */
static size_t number_at(const char *s, size_t n, uint64_t *v)
{
	size_t k = 0;

	while (k < n && is_digit(s[k]))
		k++;
	if (!k || k > 19 || (s[0] == '0' && k > 1))
		return 0;
	*v = 0;
	for (size_t i = 0; i < k; i++)
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	return k;
}

static int flush(const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(1, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum { BUF = 256 << 10 };
	static char out[BUF];
	size_t len, n_text = 0, n_pieces = 0, cap, used = 0;
	char *in, *text;
	struct piece *pieces;
	const char *t;
	double t0, t1;

	if (argc != 2) {
		fprintf(stderr, "usage: report_floor REPORT > /dev/null\n");
		return 2;
	}
	in = slurp(argv[1], &len);
	if (!in) {
		fprintf(stderr, "report_floor: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* A number per two bytes at most; the text is at most the report. */
	cap = len / 2 + 1;
	pieces = malloc(cap * sizeof(*pieces));
	text = malloc(len + 1);
	if (!pieces || !text) {
		fprintf(stderr, "report_floor: out of memory\n");
		return 1;
	}
	for (size_t i = 0, run = 0; i <= len; i++) {
		uint64_t v;
		size_t k = 0;

		/* A number starts a run of digits, not the middle of one. */
		if (i < len && (i == 0 || !is_digit(in[i - 1])))
			k = number_at(in + i, len - i, &v);
		if (k) {
			pieces[n_pieces++] = (struct piece){ .text_len = run, .value = v };
			run = 0;
			i += k - 1;
		} else if (i < len) {
			text[n_text++] = in[i];
			run++;
		} else {
			/* The text after the last number: a piece with no number. */
			pieces[n_pieces++] = (struct piece){ .text_len = run, .value = UINT64_MAX };
		}
	}
	free(in);

	t0 = cpu_ms();
	t = text;
	for (size_t i = 0; i < n_pieces; i++) {
		const struct piece *p = &pieces[i];
		char digits[NT_FMT_U64_CHARS], *end = digits + sizeof(digits), *d = end;
		size_t k;

		if (i + 1 < n_pieces)
			d = nt_fmt_u64_back(p->value, end);
		k = (size_t)(end - d);
		if (used + p->text_len + k > BUF) {
			if (flush(out, used) < 0)
				return 1;
			used = 0;
		}
		if (p->text_len > BUF) {
			if (flush(t, p->text_len) < 0)
				return 1;
		} else {
			memcpy(out + used, t, p->text_len);
			used += p->text_len;
		}
		t += p->text_len;
		memcpy(out + used, d, k);
		used += k;
	}
	if (flush(out, used) < 0)
		return 1;
	t1 = cpu_ms();
	fprintf(stderr, "cpu_ms %.1f numbers %zu bytes %zu\n", t1 - t0, n_pieces - 1, len);
	free(pieces);
	free(text);
	return 0;
}
