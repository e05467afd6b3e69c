/* SPDX-License-Identifier: MIT */
/*
 * wrap.h - text for a terminal of a given width: long lines broken at
 * words, never inside one, each continuation indented under the line's own
 * text. ANSI colour sequences take no column; a UTF-8 character takes one.
 */
#ifndef NT_RENDER_WRAP_H
#define NT_RENDER_WRAP_H

#include <stddef.h>
#include <stdio.h>

/**
 * nt_wrap_columns() - the columns @text takes on a terminal
 * @text: the text
 * @len: its bytes
 *
 * Return: UTF-8 characters, not counting ESC [ ... m sequences.
 */
size_t nt_wrap_columns(const char *text, size_t len);

/**
 * nt_wrap_line() - write one line, broken at words to fit @cols
 * @out: the stream
 * @line: the line, without its newline
 * @len: its bytes
 * @cols: the terminal's width (0: no limit)
 *
 * A line that fits is written as it is. A longer one breaks at the last
 * space that fits; each continuation starts under the text after the
 * line's first run of two or more spaces ("label    text") when that is in
 * the first half of the width, else with the line's leading spaces and two
 * more (the original's, when that leaves less than half the width).
 * A word longer than the room is written whole on a line of its own. Every
 * line written ends with a newline.
 */
void nt_wrap_line(FILE *out, const char *line, size_t len, unsigned cols);

#endif
