/* SPDX-License-Identifier: MIT */
/*
 * svg.h - the ladder diagram: its layout as pure arithmetic, and the writer
 * the svg and html formats share.
 *
 * Time flows down. Consecutive events are at least one row apart (so labels
 * never overlap) plus a little more for longer gaps; a gap of
 * NT_SVG_BREAK_NS or more is not drawn to scale but as a marked break band
 * carrying its length, so a 43 ms stall and 20 us events share one page.
 */
#ifndef NT_RENDER_SVG_H
#define NT_RENDER_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nt/model/run.h"
#include "nt/render/view.h"

#define NT_SVG_ROW_PX	       34	   /* least vertical distance between two events */
#define NT_SVG_SCALE_PX_PER_US 1	   /* below a break, one pixel more per microsecond... */
#define NT_SVG_SCALE_MAX_PX    30	   /* ...up to this much */
#define NT_SVG_BREAK_NS	       (1000000LL) /* a gap of 1 ms or more becomes a break band */
#define NT_SVG_BREAK_PX	       120	   /* the band's height */
#define NT_SVG_PANEL_W	       760	   /* one run's diagram */
#define NT_SVG_CLIENT_X	       240	   /* the client's lifeline, within a panel */
#define NT_SVG_TARGET_X	       520	   /* the target's lifeline */
#define NT_SVG_SLOPE_PX	       18	   /* how far an arrow falls between the lifelines */
#define NT_SVG_TOP_PX	       124	   /* title, subtitle and participant boxes */
#define NT_SVG_BOTTOM_PX       56

/**
 * struct nt_svg_row - one event placed on the page
 * @ev: index of the event in the round view's events
 * @y_px: its y coordinate within the panel
 * @rel_ns: its time relative to the round's first write
 * @gap_ns: time since the previous placed event (0 for the first)
 * @break_before: a break band separates it from the previous event
 */
struct nt_svg_row {
	size_t ev;
	int y_px;
	int64_t rel_ns;
	int64_t gap_ns;
	bool break_before;
};

/**
 * nt_svg_advance_px() - vertical distance for a gap between two events
 * @gap_ns: the gap (negative counts as 0)
 * @is_break: set when the gap is drawn as a break band
 *
 * Return: pixels.
 */
int nt_svg_advance_px(int64_t gap_ns, bool *is_break);

/**
 * nt_svg_layout_round() - place a round's events
 * @rv: the round
 * @rows: filled, in time order
 * @max: room in @rows
 * @height_px: set to the panel height the round needs
 *
 * Return: how many rows were placed (at most @max).
 */
size_t nt_svg_layout_round(const struct nt_round_view *rv, struct nt_svg_row *rows, size_t max,
			   int *height_px);

/**
 * nt_svg_write() - the diagrams of @runs side by side
 * @out: the stream
 * @runs: the finished runs
 * @picks: the round each shows (struct nt_view_pick: first stalled, else last)
 * @n_runs: how many
 * @standalone: begin with an XML declaration (a .svg file), else an <svg>
 *              element fit for inlining in HTML
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_svg_write(FILE *out, const struct nt_run *runs, const struct nt_view_pick *picks,
		 unsigned n_runs, bool standalone);

#endif
