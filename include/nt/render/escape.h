/* SPDX-License-Identifier: MIT */
/*
 * escape.h - text made safe for the document it goes into. Each writes the
 * escaped text to the stream it is given, nothing else; the _into forms
 * hand it, a piece at a time, to a writer of the caller's (a row built in
 * memory, src/render/out_buf.h), by the same rule.
 */
#ifndef NT_RENDER_ESCAPE_H
#define NT_RENDER_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/**
 * typedef nt_escape_sink - where escaped text goes, a piece at a time
 * @sink: the writer's own (a stream, a buffer)
 * @s: the piece, not NUL-terminated
 * @len: its length
 */
typedef void (*nt_escape_sink)(void *sink, const char *s, size_t len);

/**
 * nt_escape_xml() - write text escaped for XML or HTML content and attributes
 * @out: the stream
 * @s: the text
 */
void nt_escape_xml(FILE *out, const char *s);

/**
 * nt_escape_xml_n() - nt_escape_xml() of @n bytes
 * @out: the stream
 * @s: the text, NUL bytes included as they are
 * @n: its length
 */
void nt_escape_xml_n(FILE *out, const char *s, size_t n);

/**
 * nt_escape_xml_into() - nt_escape_xml_n() to a writer of the caller's
 * @put: the writer
 * @sink: its own, passed along
 * @s: the text, NUL bytes included as they are
 * @n: its length
 */
void nt_escape_xml_into(nt_escape_sink put, void *sink, const char *s, size_t n);

/**
 * nt_escape_md_cell() - write text for a Markdown table cell ('|' escaped,
 * newlines as blanks)
 * @out: the stream
 * @s: the text
 */
void nt_escape_md_cell(FILE *out, const char *s);

/**
 * nt_escape_md_cell_into() - nt_escape_md_cell() to a writer of the caller's
 * @put: the writer
 * @sink: its own, passed along
 * @s: the text
 */
void nt_escape_md_cell_into(nt_escape_sink put, void *sink, const char *s);

/**
 * nt_escape_mermaid() - write text for a Mermaid message or note
 * @out: the stream
 * @s: the text
 *
 * ';' (a statement separator) becomes ',', '#' (an entity code) "no.",
 * '<', '>', "->" and "--" (arrows to older parsers) and newlines blanks.
 */
void nt_escape_mermaid(FILE *out, const char *s);

#endif
