// SPDX-License-Identifier: MIT
/*
 * escape.c - text made safe for XML, Markdown tables and Mermaid (see
 * nt/render/escape.h).
 */
#include <stdbool.h>
#include <string.h>

#include "nt/render/escape.h"

/*
 * The runs between the characters to escape go out in one fwrite() each:
 * analyze's HTML page holds the whole text report (15 MB at 10,000 flows),
 * and one fputc() a byte was a tenth of that run's time.
 */
static bool xml_special(char c)
{
	return c == '&' || c == '<' || c == '>' || c == '"';
}

void nt_escape_xml_n(FILE *out, const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {
		size_t plain = 0;

		while (s + plain < end && !xml_special(s[plain]))
			plain++;
		if (plain)
			fwrite(s, 1, plain, out);
		s += plain;
		if (s == end)
			break;
		switch (*s++) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		default:
			fputs("&quot;", out);
		}
	}
}

void nt_escape_xml(FILE *out, const char *s)
{
	nt_escape_xml_n(out, s, strlen(s));
}

void nt_escape_md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
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
