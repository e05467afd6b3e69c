/* SPDX-License-Identifier: MIT */
/*
 * table.h - a table in Markdown (GitHub's pipe tables) or HTML, written a
 * cell at a time: the header row, each column's alignment (a right-aligned
 * column is "---:" in Markdown, class "n" in HTML) and each format's
 * escaping are said here once, for every report that writes a table.
 */
#ifndef NT_RENDER_TABLE_H
#define NT_RENDER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** enum nt_table_kind - the table's format */
enum nt_table_kind {
	NT_TABLE_MARKDOWN,
	NT_TABLE_HTML,
};

/**
 * struct nt_table_col - one column
 * @title: its heading, written as it is (HTML may hold entities)
 * @right: its cells are aligned right (numbers)
 */
struct nt_table_col {
	const char *title;
	bool right;
};

/**
 * struct nt_table - a table being written; fill @out, @kind, @cols and @n,
 * then nt_table_head(), the cells row by row, nt_table_end()
 * @out: the stream
 * @kind: the format
 * @cols: the columns
 * @n: how many
 * @at: the column the next cell goes in
 */
struct nt_table {
	FILE *out;
	enum nt_table_kind kind;
	const struct nt_table_col *cols;
	size_t n;
	size_t at;
};

/* A table of the columns of the array @columns. */
#define NT_TABLE_OF(stream, format, columns)                          \
	{                                                             \
		.out = (stream), .kind = (format), .cols = (columns), \
		.n = sizeof(columns) / sizeof((columns)[0]),          \
	}

/** nt_table_head() - open the table and write its header row */
void nt_table_head(struct nt_table *t);

/**
 * nt_table_cell() - the next cell: @text escaped for the format; after the
 * last column the row ends
 * @t: the table
 * @text: the cell's text
 */
void nt_table_cell(struct nt_table *t, const char *text);

/** nt_table_cellf() - nt_table_cell() of a printf() format */
void nt_table_cellf(struct nt_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** nt_table_code() - the next cell, @text as code (`text`, <code>text</code>) */
void nt_table_code(struct nt_table *t, const char *text);

/**
 * nt_table_code_span() - @text as code in running text of @kind, outside a
 * table: `text` in Markdown (as it is), <code>text</code> escaped in HTML
 * @out: the stream
 * @kind: the format
 * @text: the text
 */
void nt_table_code_span(FILE *out, enum nt_table_kind kind, const char *text);

/** nt_table_end() - close the table (HTML's </table>; Markdown needs none) */
void nt_table_end(struct nt_table *t);

#endif
