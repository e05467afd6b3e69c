/* SPDX-License-Identifier: MIT */
/*
 * svg.h - the live ladder diagram: each run's picked round as one panel of
 * the ladder (nt/render/ladder.h), in a grid two panels wide (a document at
 * most NT_LADDER_MAX_W wide: a slide), or a comparison of panels side by
 * side on one time axis; the svg and html formats share it.
 */
#ifndef NT_RENDER_SVG_H
#define NT_RENDER_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/record.h"
#include "nt/render/pick.h"

#define NT_SVG_COLUMNS 2 /* panels per row of a grid: 2 x 760 px fit a 1920 px slide */

/**
 * nt_svg_write() - the diagrams of @runs, a grid of NT_SVG_COLUMNS panels
 * a row, or (@compare) one row on one time axis
 * @out: the stream
 * @runs: the finished runs
 * @picks: the round each shows (struct nt_pick: first stalled, else last)
 * @n_runs: how many (@compare: at most NT_SVG_COLUMNS)
 * @compare: the same moment at the same height in every panel
 * @standalone: begin with an XML declaration (a .svg file), else an <svg>
 *              element fit for inlining in HTML
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_svg_write(FILE *out, const struct nt_record *runs, const struct nt_pick *picks,
		 unsigned n_runs, bool compare, bool standalone);

/**
 * nt_svg_round() - one round of a run as an inline diagram whose items are
 * steps (struct nt_ladder @steps), for the lesson page
 * @out: the stream
 * @run: the run
 * @rv: the round
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_svg_round(FILE *out, const struct nt_record *run, const struct nt_round_view *rv);

#endif
