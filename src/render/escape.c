// SPDX-License-Identifier: MIT
/*
 * escape.c - text made safe for XML, Markdown tables and Mermaid (see
 * nt/render/escape.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "nt/render/escape.h"

/*
 * The runs between the characters to escape go out in one fwrite() each:
 * analyze's HTML page holds the whole text report (15 MB at 10,000 flows,
 * 156 MB at 100,000), and one fputc() a byte was a tenth of that run's time.
 */
static bool xml_special(char c)
{
	return c == '&' || c == '<' || c == '>' || c == '"';
}

/* 16 bytes compared at once (GCC and Clang vector extensions: SSE2 here, scalar elsewhere). */
typedef unsigned char bytes16 __attribute__((vector_size(16)));

/*
 * How many bytes of @s (@n long) precede the first character to escape.
 * The report in the page has four in 1.5 KB a flow: a byte at a time, the
 * search was a ninth of `analyze --format html` at 100,000 flows
 * (`perf record`).
 */
static size_t plain_run(const char *s, size_t n)
{
	size_t i = 0;

	for (; n - i >= sizeof(bytes16); i += sizeof(bytes16)) {
		bytes16 v;
		bytes16 hit;
		uint64_t any[2];

		memcpy(&v, s + i, sizeof(v));
		hit = (bytes16)((v == '&') | (v == '<') | (v == '>') | (v == '"'));
		memcpy(any, &hit, sizeof(any));
		if (any[0] | any[1])
			break;
	}
	while (i < n && !xml_special(s[i]))
		i++;
	return i;
}

void nt_escape_xml_into(nt_escape_sink put, void *sink, const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {
		size_t plain = plain_run(s, (size_t)(end - s));

		if (plain)
			put(sink, s, plain);
		s += plain;
		if (s == end)
			break;
		switch (*s++) {
		case '&':
			put(sink, "&amp;", 5);
			break;
		case '<':
			put(sink, "&lt;", 4);
			break;
		case '>':
			put(sink, "&gt;", 4);
			break;
		default:
			put(sink, "&quot;", 6);
		}
	}
}

void nt_escape_md_cell_into(nt_escape_sink put, void *sink, const char *s)
{
	for (size_t n; *s; s += n) {
		n = strcspn(s, "|\n");
		if (n)
			put(sink, s, n);
		if (s[n] == '|')
			put(sink, "\\|", 2);
		else if (s[n] == '\n')
			put(sink, " ", 1);
		n += s[n] != '\0';
	}
}

/* The stream's writer: a failed write shows in ferror(), as fputs()'s does. */
static void stream_sink(void *out, const char *s, size_t len)
{
	fwrite(s, 1, len, out);
}

void nt_escape_xml_n(FILE *out, const char *s, size_t n)
{
	nt_escape_xml_into(stream_sink, out, s, n);
}

void nt_escape_xml(FILE *out, const char *s)
{
	nt_escape_xml_n(out, s, strlen(s));
}

void nt_escape_md_cell(FILE *out, const char *s)
{
	nt_escape_md_cell_into(stream_sink, out, s);
}

/*
 * Mermaid message text runs to the end of the line, but the sequence grammar
 * still reads ';' as a statement separator and '#' as the start of an entity
 * code (#59;), and older releases take "->" or "--" inside a text for an arrow.
 */
void nt_escape_mermaid(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == ';')
			fputc(',', out);
		else if (*s == '#')
			fputs("no.", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else if ((*s == '-' && (s[1] == '>' || s[1] == '-')) || *s == '<' || *s == '>')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}
