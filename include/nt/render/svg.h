/* SPDX-License-Identifier: MIT */
/*
 * svg.h - the live ladder diagram: each run's picked round as one panel of
 * the ladder (nt/render/ladder.h), side by side; the svg and html formats
 * share it.
 */
#ifndef NT_RENDER_SVG_H
#define NT_RENDER_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/run.h"
#include "nt/render/pick.h"

/**
 * nt_svg_write() - the diagrams of @runs side by side
 * @out: the stream
 * @runs: the finished runs
 * @picks: the round each shows (struct nt_pick: first stalled, else last)
 * @n_runs: how many
 * @standalone: begin with an XML declaration (a .svg file), else an <svg>
 *              element fit for inlining in HTML
 *
 * Return: 0, -ENOMEM or -EIO.
 */
int nt_svg_write(FILE *out, const struct nt_run *runs, const struct nt_pick *picks, unsigned n_runs,
		 bool standalone);

#endif
