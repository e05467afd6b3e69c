// SPDX-License-Identifier: MIT
/*
 * svg.c - the ladder diagram (see nt/render/svg.h for the layout rule).
 *
 * One panel per run, side by side: the client's and the target's lifelines,
 * one sloped arrow per segment, the system calls as ticks on the lifelines,
 * the header->ACK interval of a stall shaded, long gaps drawn as marked
 * breaks carrying their length. The capture is taken at the client, so a
 * client segment's time is when it left and a target segment's when it
 * arrived: c->t arrows start at their time, t->c arrows end at it.
 *
 * The output depends on the runs only (no clock, no random ids), labels are
 * 14 px or more in a system font stack, dark on white, for a projector.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/clock.h"
#include "nt/render/render.h"
#include "nt/render/svg.h"
#include "nt/render/view.h"

int nt_svg_advance_px(int64_t gap_ns, bool *is_break)
{
	int64_t extra_px;

	if (gap_ns < 0)
		gap_ns = 0;
	*is_break = gap_ns >= NT_SVG_BREAK_NS;
	if (*is_break)
		return NT_SVG_BREAK_PX;
	extra_px = gap_ns / 1000 * NT_SVG_SCALE_PX_PER_US;
	if (extra_px > NT_SVG_SCALE_MAX_PX)
		extra_px = NT_SVG_SCALE_MAX_PX;
	return NT_SVG_ROW_PX + (int)extra_px;
}

size_t nt_svg_layout_round(const struct nt_round_view *rv, struct nt_svg_row *rows, size_t max,
			   int *height_px)
{
	int64_t t0 = nt_round_view_origin(rv), prev_ns = 0;
	int y = NT_SVG_TOP_PX + NT_SVG_SLOPE_PX + 8;
	size_t n = 0;

	for (size_t i = 0; i < rv->n && n < max; i++) {
		const struct nt_event *e = &rv->ev[i];
		struct nt_svg_row *row = &rows[n];

		row->ev = i;
		row->rel_ns = e->t_ns - t0;
		row->gap_ns = n ? e->t_ns - prev_ns : 0;
		row->break_before = false;
		if (n)
			y += nt_svg_advance_px(row->gap_ns, &row->break_before);
		row->y_px = y;
		prev_ns = e->t_ns;
		n++;
	}
	*height_px = y + NT_SVG_SLOPE_PX + NT_SVG_BOTTOM_PX;
	return n;
}

static double ms(int64_t ns)
{
	return (double)ns / (double)NT_NS_PER_MS;
}

static const struct nt_svg_row *row_of(const struct nt_svg_row *rows, size_t n, long ev)
{
	for (size_t i = 0; i < n; i++)
		if ((long)rows[i].ev == ev)
			return &rows[i];
	return NULL;
}

/* How far a row's drawing reaches above and below its y: arrows slope, labels sit above them. */
static int reach_up_px(const struct nt_event *e)
{
	if (e->kind != NT_EVENT_SEGMENT)
		return 10;
	return (e->seg.dir == NT_DIR_T2C ? NT_SVG_SLOPE_PX : 0) + 26 - NT_SVG_SLOPE_PX / 2;
}

static int reach_down_px(const struct nt_event *e)
{
	return e->kind == NT_EVENT_SEGMENT && e->seg.dir == NT_DIR_C2T ? NT_SVG_SLOPE_PX : 6;
}

/* A break band with the stall's length, or the gap's length when not to scale. */
static void draw_break(FILE *out, int y_top, int y_bottom, int64_t gap_ns, bool stall,
		       int64_t shown_gap_ns)
{
	char label[48];
	char note[48];

	snprintf(label, sizeof(label), "%.3f ms stall", ms(shown_gap_ns));
	if (stall)
		snprintf(note, sizeof(note), "body held by Nagle, ACK delayed");
	else
		snprintf(note, sizeof(note), "%.3f ms (not to scale)", ms(gap_ns));
	nt_view_svg_break(out, y_top, y_bottom, stall, label, note);
}

static void draw_segment(FILE *out, const struct nt_event *e, const struct nt_svg_row *row,
			 bool key)
{
	char label[64], text[96];

	nt_view_segment_label(&e->seg, label, sizeof(label));
	snprintf(text, sizeof(text), "%s  +%.3f ms", label, ms(row->rel_ns));
	nt_view_svg_arrow(out, e->seg.dir == NT_DIR_C2T, row->y_px, key, text);
}

static void draw_syscall(FILE *out, const struct nt_event *e, const struct nt_svg_row *row)
{
	bool client = e->sys.side == NT_SIDE_CLIENT;
	int x = client ? NT_SVG_CLIENT_X : NT_SVG_TARGET_X;

	fprintf(out,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
		"stroke-width=\"3\"/>\n",
		x - 8, row->y_px, x + 8, row->y_px, NT_VIEW_COLOR_TEXT);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" class=\"call\">",
		client ? x - 14 : x + 14, row->y_px + 5, client ? "end" : "start");
	nt_view_xml_text(out, nt_view_call_label(e->sys.call));
	fprintf(out, " = %" PRId64 "  +%.3f ms</text>\n", e->sys.bytes, ms(row->rel_ns));
}

static void draw_lifelines(FILE *out, const struct nt_svg_row *rows, size_t n, int top, int bottom)
{
	const int xs[2] = { NT_SVG_CLIENT_X, NT_SVG_TARGET_X };

	for (int i = 0; i < 2; i++)
		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n",
			xs[i], top, xs[i], bottom, NT_VIEW_COLOR_LIFELINE);
	(void)rows;
	(void)n;
}

static void draw_header(FILE *out, const struct nt_run *run, const struct nt_round *r)
{
	const struct nt_run_config *c = &run->cfg;

	fprintf(out, "<text x=\"%d\" y=\"32\" text-anchor=\"middle\" class=\"title\">",
		NT_SVG_PANEL_W / 2);
	nt_view_xml_text(out, c->variant);
	fprintf(out, ": round %u of %u, %s</text>\n", r->index, run->summary.rounds,
		nt_verdict_name(r->verdict));
	fprintf(out,
		"<text x=\"%d\" y=\"56\" text-anchor=\"middle\" class=\"note\">header %" PRIu32
		" B + body %" PRIu32 " B, reply %" PRIu32 " B, Linux ",
		NT_SVG_PANEL_W / 2, c->shape.header_bytes, c->shape.body_bytes,
		c->shape.reply_bytes);
	nt_view_xml_text(out, c->kernel);
	fputs("</text>\n", out);
	nt_view_svg_participants(out, (const char *const[2]){ "Client", "Target" },
				 (const char *const[2]){ c->client_addr, c->target_addr });
}

static void draw_footer(FILE *out, const struct nt_round *r, int height)
{
	char rtt[32], gap[32];

	fprintf(out,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"note\">round trip %s, "
		"header&#8594;ACK %s; times from the round&apos;s first write, at the "
		"client</text>\n",
		NT_SVG_PANEL_W / 2, height - 20, nt_view_ms(r->rtt_ns, rtt, sizeof(rtt)),
		nt_view_ms(r->gap_ns, gap, sizeof(gap)));
}

/* One run's panel, its origin at the panel's top left. */
static int draw_panel(FILE *out, const struct nt_run *run, const struct nt_round_view *rv,
		      const struct nt_svg_row *rows, size_t n, int height)
{
	const struct nt_round *r = rv->round;
	bool stalled = r->verdict == NT_VERDICT_STALLED;
	const struct nt_svg_row *h = row_of(rows, n, r->marks.h);
	const struct nt_svg_row *a = row_of(rows, n, r->marks.a);

	draw_header(out, run, r);
	if (stalled && h && a)
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			NT_SVG_CLIENT_X, h->y_px, NT_SVG_TARGET_X - NT_SVG_CLIENT_X,
			a->y_px - h->y_px, NT_VIEW_COLOR_STALL_FILL);
	draw_lifelines(out, rows, n, NT_SVG_TOP_PX - 10, height - NT_SVG_BOTTOM_PX + 6);
	for (size_t i = 0; i < n; i++) {
		const struct nt_event *e = &rv->ev[rows[i].ev];
		bool in_stall = stalled && a && h && rows[i].y_px > h->y_px &&
				rows[i].y_px <= a->y_px;

		if (rows[i].break_before)
			draw_break(out, rows[i - 1].y_px + reach_down_px(&rv->ev[rows[i - 1].ev]),
				   rows[i].y_px - reach_up_px(e), rows[i].gap_ns, in_stall,
				   r->gap_ns);
		if (e->kind == NT_EVENT_SEGMENT)
			draw_segment(out, e, &rows[i],
				     stalled && ((long)rows[i].ev == r->marks.a ||
						 (long)rows[i].ev == r->marks.b));
		else
			draw_syscall(out, e, &rows[i]);
	}
	draw_footer(out, r, height);
	return 0;
}

int nt_svg_write(FILE *out, const struct nt_run *runs, const struct nt_view_pick *picks,
		 unsigned n_runs, bool standalone)
{
	struct nt_svg_row **rows = calloc(n_runs ? n_runs : 1, sizeof(struct nt_svg_row *));
	size_t *n_rows = calloc(n_runs ? n_runs : 1, sizeof(*n_rows));
	int *heights = calloc(n_runs ? n_runs : 1, sizeof(*heights));
	int height = NT_SVG_TOP_PX + NT_SVG_BOTTOM_PX, width = NT_SVG_PANEL_W * (int)n_runs;
	struct nt_round_view rv;
	int ret = 0;

	if (!rows || !n_rows || !heights) {
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n_runs; i++) {
		heights[i] = NT_SVG_TOP_PX + NT_SVG_BOTTOM_PX;
		if (!nt_view_pick_get(&picks[i], &rv))
			continue;
		rows[i] = calloc(rv.n ? rv.n : 1, sizeof(**rows));
		if (!rows[i]) {
			ret = -ENOMEM;
			goto out;
		}
		n_rows[i] = nt_svg_layout_round(&rv, rows[i], rv.n, &heights[i]);
		if (heights[i] > height)
			height = heights[i];
	}
	if (width < NT_SVG_PANEL_W)
		width = NT_SVG_PANEL_W;
	nt_view_svg_begin(out, width, height, "nagle-trace ladder diagram", standalone);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width,
		height);
	for (unsigned i = 0; i < n_runs; i++) {
		fprintf(out, "<g transform=\"translate(%d 0)\">\n", NT_SVG_PANEL_W * (int)i);
		if (i)
			fprintf(out,
				"<line x1=\"0\" y1=\"12\" x2=\"0\" y2=\"%d\" stroke=\"#bbbbbb\" "
				"stroke-width=\"2\"/>\n",
				height - 12);
		if (nt_view_pick_get(&picks[i], &rv)) {
			draw_panel(out, &runs[i], &rv, rows[i], n_rows[i], height);
		} else {
			fprintf(out,
				"<text x=\"%d\" y=\"60\" text-anchor=\"middle\" class=\"title\">",
				NT_SVG_PANEL_W / 2);
			nt_view_xml_text(out, runs[i].cfg.variant);
			fputs(": no round captured</text>\n", out);
		}
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
	if (ferror(out))
		ret = -EIO;
out:
	for (unsigned i = 0; rows && i < n_runs; i++)
		free(rows[i]);
	free(rows);
	free(n_rows);
	free(heights);
	return ret;
}

/* The diagram needs only each run's picked round: that is all this format keeps. */
static int svg_open(struct nt_renderer *r)
{
	r->state = nt_view_picks_new(r->n_runs);
	return r->state ? 0 : -ENOMEM;
}

static void svg_close(struct nt_renderer *r)
{
	nt_view_picks_free(r->state, r->n_runs);
}

static int svg_round(struct nt_renderer *r, const struct nt_run *run,
		     const struct nt_round_view *rv)
{
	(void)run;
	return nt_view_picks_offer(r->state, r->n_runs, r->run, rv);
}

static int svg_finish(struct nt_renderer *r, const struct nt_run *runs, unsigned n_runs)
{
	return nt_svg_write(r->out, runs, r->state, n_runs, true);
}

const struct nt_format nt_format_svg = {
	.name = "svg",
	.open = svg_open,
	.round = svg_round,
	.finish = svg_finish,
	.close = svg_close,
};
