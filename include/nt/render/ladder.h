/* SPDX-License-Identifier: MIT */
/*
 * ladder.h - the ladder diagram, for every document that draws one: the
 * live svg and html formats (one panel per run) and analyze's (one stall).
 *
 * A panel has two lifelines, time flowing down, one sloped arrow per
 * segment and a tick per system call. Nothing drawn overlaps: each item
 * reserves the vertical extent of its drawing and of its label in the lanes
 * it uses (left of the client's lifeline, between the lifelines, right of
 * the target's), and the next item in a lane starts below it. An arrow's
 * label sits above the arrow's higher end, so no line crosses its own
 * label; a call's label sits beside its tick, split over two lines when it
 * would leave the panel. Beyond that, a gap adds up to NT_LADDER_SCALE_MAX_PX
 * (one pixel per microsecond), and a gap of NT_LADDER_BREAK_NS or more is
 * not drawn to scale but as a marked break band carrying its length, so a
 * 43 ms stall and 20 us events share one page. The stall's interval is
 * shaded and its key arrows drawn in red.
 *
 * Panels laid out together (nt_ladder_layout() over several, --compare)
 * share one time axis: items are placed in the order of their time from
 * each panel's origin, so the same moment is at the same height.
 *
 * The callers describe what to draw (struct nt_ladder); layout and drawing
 * live here only. The output depends on its input only (no clock, no
 * random ids); labels are 14 px or more in a system font stack, dark on
 * white, for a projector. A panel is NT_LADDER_PANEL_W wide, so a slide
 * holds two side by side (NT_LADDER_MAX_W).
 */
#ifndef NT_RENDER_LADDER_H
#define NT_RENDER_LADDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NT_LADDER_MIN_ADVANCE_PX  10	      /* least vertical distance between two items */
#define NT_LADDER_SCALE_PX_PER_US 1	      /* one pixel more per microsecond of gap... */
#define NT_LADDER_SCALE_MAX_PX	  30	      /* ...up to this much */
#define NT_LADDER_BREAK_NS	  (1000000LL) /* a gap of 1 ms or more becomes a break band */
#define NT_LADDER_BREAK_PX	  84	      /* the band's height */
#define NT_LADDER_PANEL_W	  760	      /* one panel */
#define NT_LADDER_FOOTERS	  6	      /* lines under a ladder at most */
#define NT_LADDER_MAX_W		  1920	      /* the widest document: a 1080p slide */
#define NT_LADDER_LEFT_X	  240	      /* the left lifeline (client, or A), in a panel */
#define NT_LADDER_RIGHT_X	  520	      /* the right lifeline (target, or B) */
#define NT_LADDER_SLOPE_PX	  18	      /* how far an arrow falls between the lifelines */
#define NT_LADDER_TOP_PX	  124	      /* title, subtitle and participant boxes */
#define NT_LADDER_TEXT_LEN	  112

/**
 * struct nt_ladder_item - one thing on the ladder
 * @t_ns: when it happened at the capture point
 * @is_tick: a system call, drawn as a tick on a lifeline; else a segment arrow
 * @from_left: an arrow from the left lifeline; a tick on the left lifeline
 * @key: drawn in the stall colour
 * @text: the label, plain text (escaped when drawn); a tick's label may be
 *        split at its first double space when it is too wide for its side
 *
 * The capture sits on the left (on the right with struct nt_ladder's
 * @capture_right): an arrow from the capture's side starts at its time, one
 * from the other side ends at it. With a flight time (struct nt_ladder's
 * @oneway_ns) an arrow's other end is at its time plus or minus the flight.
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
 * @origin_ns: the panel's time zero (panels laid out together align on it)
 * @shade_from: index of the item where the shaded stall begins, -1 for none
 * @shade_to: index of the item where it ends
 * @break_text: the words of a break band
 * @footer: up to NT_LADDER_FOOTERS lines under the ladder, markup; NULL for
 *          none (the first NULL ends them)
 * @steps: mark item i's drawing (its break band included) as step i + 1
 *         (`<g class="nt-st" data-step="i+1">`) and the shading as the step
 *         of @shade_to, for a page that shows a round step by step
 * @oneway_ns: each arrow's flight time (half the path's RTT); 0: none, every
 *             arrow falls NT_LADDER_SLOPE_PX. With a flight, an arrow runs
 *             from the height of its departure's time to that of its
 *             arrival's (interpolated between the items' heights), its label
 *             sits beside the capture's lifeline like a call's, and a break
 *             band's words beside the other lifeline, so the sloped lines
 *             cross no label
 * @capture_right: the items' times are the right lifeline's (a capture at
 *                 the target)
 * @ctx: the caller's, for @break_text
 */
struct nt_ladder {
	const char *title;
	const char *subtitle;
	const char *names[2];
	const char *addrs[2];
	const struct nt_ladder_item *items;
	size_t n;
	int64_t origin_ns;
	long shade_from;
	long shade_to;
	nt_ladder_break_fn *break_text;
	const char *footer[NT_LADDER_FOOTERS];
	bool steps;
	int64_t oneway_ns;
	bool capture_right;
	const void *ctx;
};

/**
 * struct nt_ladder_pos - where an item is drawn
 * @y: its y coordinate, at its time (an arrow from the capture's side
 *     starts there, one from the other side ends there; a tick is there)
 * @band_top: a break band before it: the band's top; -1 for none
 * @band_bottom: the band's bottom
 * @y_from: an arrow's start (its departure); @y itself for a tick
 * @y_to: an arrow's end (its arrival)
 */
struct nt_ladder_pos {
	int y;
	int band_top;
	int band_bottom;
	int y_from;
	int y_to;
};

/**
 * nt_ladder_label_width_px() - the width a label is taken to need
 * @text: plain text
 * @font_px: its font size
 * @bold: set in bold
 *
 * An upper estimate for the font stack, from DejaVu Sans's advance widths
 * by character class (the widest font of the stack): the layout keeps this
 * much clear, and tests/svg/check_svg.py checks with the same table.
 *
 * Return: pixels.
 */
int nt_ladder_label_width_px(const char *text, int font_px, bool bold);

/**
 * nt_ladder_layout() - place the items of panels drawn side by side on one
 * time axis (one panel: its own layout)
 * @ls: the panels
 * @n: how many
 * @pos: one array per panel, @ls[k]->n entries each, filled
 *
 * Return: the height every panel is drawn at.
 */
int nt_ladder_layout(const struct nt_ladder *const *ls, unsigned n,
		     struct nt_ladder_pos *const *pos);

/**
 * nt_ladder_height() - the height of a panel laid out alone
 * @l: the panel
 *
 * Return: pixels, or -ENOMEM.
 */
int nt_ladder_height(const struct nt_ladder *l);

/**
 * nt_ladder_draw() - draw a panel laid out alone, its origin at the current
 * user space's top left
 * @out: the stream
 * @l: the panel
 * @height: the height to draw it at (at least its own: panels side by side
 *          share the tallest one's)
 *
 * Return: 0 or -ENOMEM.
 */
int nt_ladder_draw(FILE *out, const struct nt_ladder *l, int height);

/**
 * nt_ladder_draw_at() - draw a panel at positions nt_ladder_layout() found
 * @out: the stream
 * @l: the panel
 * @pos: its items' positions
 * @height: the height to draw it at
 */
void nt_ladder_draw_at(FILE *out, const struct nt_ladder *l, const struct nt_ladder_pos *pos,
		       int height);

/**
 * nt_ladder_css() - the style rules of the diagram (for a page's one
 * <style> element; a standalone document carries them itself)
 *
 * Return: CSS text.
 */
const char *nt_ladder_css(void);

/**
 * nt_ladder_svg_begin() - open a ladder document: the <svg> root of the
 * given size with its title, arrow markers and white background; a
 * standalone document also gets the XML declaration and its own <style>
 * @out: the stream
 * @width: width in pixels
 * @height: height in pixels
 * @title: the <title> text (escaped here)
 * @standalone: a file, not inline in an HTML page (whose style carries
 *              nt_ladder_css())
 */
void nt_ladder_svg_begin(FILE *out, int width, int height, const char *title, bool standalone);

/**
 * nt_ladder_svg_defs() - the arrowhead markers every inline diagram of a
 * page refers to, in a hidden <svg> of their own: write it once, before the
 * first inline diagram
 * @out: the stream
 */
void nt_ladder_svg_defs(FILE *out);

/**
 * nt_ladder_svg_end() - close the document nt_ladder_svg_begin() opened
 * @out: the stream
 *
 * Return: 0 or -EIO when a write failed.
 */
int nt_ladder_svg_end(FILE *out);

#endif
