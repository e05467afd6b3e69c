// SPDX-License-Identifier: MIT
/*
 * table.c - Markdown and HTML tables a cell at a time (see nt/render/table.h).
 */
#include <stdarg.h>
#include <stdlib.h>

#include "nt/render/escape.h"
#include "nt/render/table.h"

void nt_table_head(struct nt_table *t)
{
	t->at = 0;
	if (t->kind == NT_TABLE_HTML) {
		fputs("<table>\n<tr>", t->out);
		for (size_t i = 0; i < t->n; i++)
			fprintf(t->out, "<th>%s</th>", t->cols[i].title);
		fputs("</tr>\n", t->out);
		return;
	}
	for (size_t i = 0; i < t->n; i++)
		fprintf(t->out, "| %s ", t->cols[i].title);
	fputs("|\n", t->out);
	for (size_t i = 0; i < t->n; i++)
		fputs(t->cols[i].right ? "|---:" : "|---", t->out);
	fputs("|\n", t->out);
}

static void cell_open(struct nt_table *t)
{
	if (t->kind == NT_TABLE_MARKDOWN)
		fputs("| ", t->out);
	else
		fprintf(t->out, "%s%s", t->at ? "" : "<tr>",
			t->cols[t->at].right ? "<td class=\"n\">" : "<td>");
}

static void cell_close(struct nt_table *t)
{
	bool last = ++t->at == t->n;

	if (t->kind == NT_TABLE_MARKDOWN)
		fputs(last ? " |\n" : " ", t->out);
	else
		fputs(last ? "</td></tr>\n" : "</td>", t->out);
	if (last)
		t->at = 0;
}

static void escaped(const struct nt_table *t, const char *text)
{
	if (t->kind == NT_TABLE_HTML)
		nt_escape_xml(t->out, text);
	else
		nt_escape_md_cell(t->out, text);
}

void nt_table_cell(struct nt_table *t, const char *text)
{
	cell_open(t);
	escaped(t, text);
	cell_close(t);
}

void nt_table_cellf(struct nt_table *t, const char *fmt, ...)
{
	char small[256], *text = small;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	/* A long cell is formatted again into memory of its size; without memory, cut short. */
	if (len >= (int)sizeof(small)) {
		char *big = malloc((size_t)len + 1);

		if (big) {
			va_start(ap, fmt);
			vsnprintf(big, (size_t)len + 1, fmt, ap);
			va_end(ap);
			text = big;
		}
	}
	nt_table_cell(t, len < 0 ? "" : text);
	if (text != small)
		free(text);
}

void nt_table_code(struct nt_table *t, const char *text)
{
	bool html = t->kind == NT_TABLE_HTML;

	cell_open(t);
	fputs(html ? "<code>" : "`", t->out);
	escaped(t, text);
	fputs(html ? "</code>" : "`", t->out);
	cell_close(t);
}

void nt_table_code_span(FILE *out, enum nt_table_kind kind, const char *text)
{
	if (kind == NT_TABLE_MARKDOWN) {
		fprintf(out, "`%s`", text);
		return;
	}
	fputs("<code>", out);
	nt_escape_xml(out, text);
	fputs("</code>", out);
}

void nt_table_end(struct nt_table *t)
{
	if (t->kind == NT_TABLE_HTML)
		fputs("</table>\n", t->out);
}
