/* SPDX-License-Identifier: MIT */
/*
 * ladder.h - the ladder diagram, for every document that draws one: the
 * live svg and html formats (one panel per run) and analyze's (one stall).
 *
 * A panel has two lifelines, time flowing down, one sloped arrow per
 * segment and a tick per system call. Consecutive items are at least one
 * row apart (so labels never overlap) plus a little more for longer gaps; a
 * gap of NT_LADDER_BREAK_NS or more is not drawn to scale but as a marked
 * break band carrying its length, so a 43 ms stall and 20 us events share
 * one page. The stall's interval is shaded and its key arrows drawn in red.
 *
 * The callers describe what to draw (struct nt_ladder); layout and drawing
 * live here only. The output depends on its input only (no clock, no
 * random ids); labels are 14 px or more in a system font stack, dark on
 * white, for a projector.
 */
#ifndef NT_RENDER_LADDER_H
#define NT_RENDER_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NT_LADDER_ROW_PX	  34	      /* least vertical distance between two items */
#define NT_LADDER_SCALE_PX_PER_US 1	      /* below a break, one pixel more per microsecond... */
#define NT_LADDER_SCALE_MAX_PX	  30	      /* ...up to this much */
#define NT_LADDER_BREAK_NS	  (1000000LL) /* a gap of 1 ms or more becomes a break band */
#define NT_LADDER_BREAK_PX	  120	      /* the band's height */
#define NT_LADDER_PANEL_W	  760	      /* one panel */
#define NT_LADDER_LEFT_X	  240	      /* the left lifeline (client, or A), in a panel */
#define NT_LADDER_RIGHT_X	  520	      /* the right lifeline (target, or B) */
#define NT_LADDER_SLOPE_PX	  18	      /* how far an arrow falls between the lifelines */
#define NT_LADDER_TOP_PX	  124	      /* title, subtitle and participant boxes */
#define NT_LADDER_BOTTOM_PX	  56
#define NT_LADDER_TEXT_LEN	  112

/**
 * struct nt_ladder_item - one thing on the ladder
 * @t_ns: when it happened at the capture point
 * @is_tick: a system call, drawn as a tick on a lifeline; else a segment arrow
 * @from_left: an arrow from the left lifeline; a tick on the left lifeline
 * @key: drawn in the stall colour
 * @text: the label, plain text (escaped when drawn)
 *
 * The capture sits on the left: an arrow from the left starts at its time,
 * one from the right ends at it.
 */
struct nt_ladder_item {
	int64_t t_ns;
	bool is_tick;
	bool from_left;
	bool key;
	char text[NT_LADDER_TEXT_LEN];
};

struct nt_ladder;

/**
 * typedef nt_ladder_break_fn - the words of a break band
 * @l: the ladder
 * @gap_ns: the gap the band stands for
 * @in_stall: the band is inside the shaded stall
 * @label: the band's headline, shown only @in_stall
 * @note: the smaller line under it
 * @len: size of @label and @note
 */
typedef void nt_ladder_break_fn(const struct nt_ladder *l, int64_t gap_ns, bool in_stall,
				char *label, char *note, size_t len);

/**
 * struct nt_ladder - one panel to draw
 * @title: the headline, markup (the caller escapes what it quotes)
 * @subtitle: the line under it, markup
 * @names: the left and right participants' names, plain text
 * @addrs: their addresses, plain text
 * @items: what happened, in time order
 * @n: how many
 * @shade_from: index of the item where the shaded stall begins, -1 for none
 * @shade_to: index of the item where it ends
 * @break_text: the words of a break band
 * @footer: up to two lines under the ladder, markup; NULL for none
 * @ctx: the caller's, for @break_text
 */
struct nt_ladder {
	const char *title;
	const char *subtitle;
	const char *names[2];
	const char *addrs[2];
	const struct nt_ladder_item *items;
	size_t n;
	long shade_from;
	long shade_to;
	nt_ladder_break_fn *break_text;
	const char *footer[2];
	const void *ctx;
};

/**
 * nt_ladder_advance_px() - vertical distance for a gap between two items
 * @gap_ns: the gap (negative counts as 0)
 * @is_break: set when the gap is drawn as a break band
 *
 * Return: pixels.
 */
int nt_ladder_advance_px(int64_t gap_ns, bool *is_break);

/**
 * nt_ladder_layout() - place a panel's items
 * @l: the panel
 * @y_px: filled with each item's y coordinate, @l->n entries
 *
 * Return: the panel height the items need.
 */
int nt_ladder_layout(const struct nt_ladder *l, int *y_px);

/**
 * nt_ladder_height() - the height of a panel, as nt_ladder_layout() finds it
 * @l: the panel
 *
 * Return: pixels, or -ENOMEM.
 */
int nt_ladder_height(const struct nt_ladder *l);

/**
 * nt_ladder_draw() - draw a panel, its origin at the current user space's
 * top left
 * @out: the stream
 * @l: the panel
 * @height: the height to draw it at (at least its own: panels side by side
 *          share the tallest one's)
 *
 * Return: 0 or -ENOMEM.
 */
int nt_ladder_draw(FILE *out, const struct nt_ladder *l, int height);

/**
 * nt_ladder_svg_begin() - open a ladder document: the <svg> root of the
 * given size with its title, arrow markers, style and white background
 * @out: the stream
 * @width: width in pixels
 * @height: height in pixels
 * @title: the <title> text (escaped here)
 * @standalone: also write the XML declaration (a file, not inline in HTML)
 */
void nt_ladder_svg_begin(FILE *out, int width, int height, const char *title, bool standalone);

/**
 * nt_ladder_svg_end() - close the document nt_ladder_svg_begin() opened
 * @out: the stream
 *
 * Return: 0 or -EIO when a write failed.
 */
int nt_ladder_svg_end(FILE *out);

#endif
