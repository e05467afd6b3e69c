// SPDX-License-Identifier: MIT
/*
 * wrap.c - long lines broken at words for a terminal (see nt/render/wrap.h).
 */
#include <stdbool.h>
#include <string.h>

#include "nt/render/wrap.h"

/* Bytes of the ESC [ ... m sequence at @p (0 when there is none). */
static size_t escape_len(const char *p, size_t left)
{
	size_t i = 2;

	if (left < 3 || p[0] != '\033' || p[1] != '[')
		return 0;
	while (i < left && p[i] != 'm' && (p[i] == ';' || (p[i] >= '0' && p[i] <= '9')))
		i++;
	return i < left && p[i] == 'm' ? i + 1 : 0;
}

size_t nt_wrap_columns(const char *text, size_t len)
{
	size_t cols = 0;

	for (size_t i = 0; i < len;) {
		size_t esc = escape_len(text + i, len - i);

		if (esc) {
			i += esc;
			continue;
		}
		if (((unsigned char)text[i] & 0xc0) != 0x80)
			cols++;
		i++;
	}
	return cols;
}

/*
 * The bytes of @text[0..@len) that fit @room columns, ending at a space when
 * it has to break (0 when the first word alone is wider).
 */
static size_t fit(const char *text, size_t len, size_t room)
{
	size_t cols = 0, last_space = 0;

	for (size_t i = 0; i < len;) {
		size_t esc = escape_len(text + i, len - i);

		if (esc) {
			i += esc;
			continue;
		}
		if (((unsigned char)text[i] & 0xc0) != 0x80) {
			if (cols == room)
				return text[i] == ' ' ? i : last_space;
			cols++;
		}
		if (text[i] == ' ')
			last_space = i;
		i++;
	}
	return len;
}

void nt_wrap_line(FILE *out, const char *line, size_t len, unsigned cols)
{
	size_t indent = 0, hang, room;
	bool first = true;

	if (!cols || nt_wrap_columns(line, len) <= cols) {
		fwrite(line, 1, len, out);
		fputc('\n', out);
		return;
	}
	while (indent < len && line[indent] == ' ')
		indent++;
	hang = indent + 2 <= cols / 2 ? indent + 2 : indent;
	/* "label   text": continuations line up under the text (a table's last column). */
	for (size_t i = indent; i + 2 < len && i < cols / 2; i++) {
		if (line[i] == ' ' && line[i + 1] == ' ') {
			size_t j = i;

			while (j < len && line[j] == ' ')
				j++;
			if (j < cols / 2 && j < len)
				hang = j;
			break;
		}
	}
	while (len) {
		size_t lead = first ? 0 : hang;
		size_t n;

		room = cols > lead ? cols - lead : 1;
		n = nt_wrap_columns(line, len) <= room ? len : fit(line, len, room);
		if (n == 0) {
			/* One word wider than the room: whole, on its own line. */
			while (n < len && line[n] != ' ')
				n++;
		}
		if (!first)
			fprintf(out, "%*s", (int)hang, "");
		fwrite(line, 1, n, out);
		fputc('\n', out);
		first = false;
		line += n;
		len -= n;
		while (len && line[0] == ' ') {
			line++;
			len--;
		}
	}
}
