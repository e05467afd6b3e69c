// SPDX-License-Identifier: MIT
/*
 * escape.c - text made safe for XML, Markdown tables and Mermaid (see
 * nt/render/escape.h).
 */
#include "nt/render/escape.h"

void nt_escape_xml(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
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
