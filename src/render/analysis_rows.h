/* SPDX-License-Identifier: MIT */
/*
 * analysis_rows.h - the rows of analyze's table of flows, in any markup
 * (analysis_md.c, analysis_html.c): what a row says is decided here once,
 * how it looks by the markup. The rows are rendered by the render threads
 * (nt/render/chunks.h), in order: at 100,000 flows one fprintf() a row on
 * one thread took 110 ms of the HTML page's time.
 */
#ifndef NT_RENDER_ANALYSIS_ROWS_H
#define NT_RENDER_ANALYSIS_ROWS_H

#include <stdbool.h>
#include <stdio.h>

#include "nt/model/analysis.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "out_buf.h"

/**
 * struct flow_cells - the text of a flow's row; the markup escapes the
 * endpoints and the places as it must (@lost, @p50 and @max are digits, '.',
 * '-' and '~', which no markup escapes), and writes the counts
 * (&nt_flow_result.stalls, .by_delack) itself
 * @client: the client's endpoint (nt_fmt_endpoint())
 * @target: the target's
 * @lost: the time lost (nt_label_lost())
 * @p50: the median stall (nt_label_p50())
 * @max: the longest stall
 * @first: where the first stall happened (nt_label_occurrence())
 * @last: where the last one did
 */
struct flow_cells {
	char client[NT_FMT_ENDPOINT_LEN];
	char target[NT_FMT_ENDPOINT_LEN];
	char lost[2 * NT_FMT_MS_LEN];
	char p50[NT_FMT_MS_LEN + 1];
	char max[NT_FMT_MS_LEN];
	char first[NT_LABEL_OCCURRENCE_LEN];
	char last[NT_LABEL_OCCURRENCE_LEN];
};

/**
 * typedef flow_row_fn - write one row in a markup
 * @b: where, a render thread's own
 * @r: the flow
 * @cell: its row's text
 * @worst: the row of the worst flow (nt_pick_worst_flow()), to stand out
 */
typedef void (*flow_row_fn)(struct out_buf *b, const struct nt_flow_result *r,
			    const struct flow_cells *cell, bool worst);

/**
 * analysis_rows_write() - a row for each of @an's flows, in order
 * @out: the stream
 * @an: a finished analysis
 * @worst: the worst flow's index
 * @workers: render threads (nt_chunks_write())
 * @row: the markup's row
 *
 * Return: 0, or a negative errno (nt_chunks_write()); @out then holds part
 * of the rows.
 */
int analysis_rows_write(FILE *out, const struct nt_analysis *an, int worst, unsigned workers,
			flow_row_fn row);

#endif
