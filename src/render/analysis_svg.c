// SPDX-License-Identifier: MIT
/*
 * analysis_svg.c - the ladder diagram of one stall found by analyze: the
 * first stall of the worst flow (the one that lost the most time).
 *
 * The live diagram's visual language (svg.c, nt/render/svg.h): two
 * lifelines, time flowing down, one sloped arrow per segment, rows at least
 * NT_SVG_ROW_PX apart, a gap of NT_SVG_BREAK_NS or more drawn as a marked
 * break band carrying its length, the H -> late ACK interval shaded and the
 * ACK and the data it releases in red. A, the side whose data was held,
 * stands where the live client does, on the left; its segments start at
 * their capture time and B's end at theirs, as if captured at A. The capture
 * point of an unknown capture may be anywhere: the times are as captured.
 *
 * The output depends on the analysis only (no clock, no random ids).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "nt/render/analysis.h"
#include "nt/render/svg.h"
#include "nt/render/view.h"

/**
 * struct row - one segment of the timeline placed on the page
 * @seg: the segment
 * @y_px: its y coordinate
 * @break_before: a break band separates it from the previous one
 */
struct row {
	const struct nt_tl_seg *seg;
	int y_px;
	bool break_before;
};

static int layout(const struct nt_flow_result *r, struct row *rows)
{
	int y = NT_SVG_TOP_PX + NT_SVG_SLOPE_PX + 8;

	for (unsigned i = 0; i < r->n_timeline; i++) {
		rows[i].seg = &r->timeline[i];
		rows[i].break_before = false;
		if (i)
			y += nt_svg_advance_px(r->timeline[i].t_ns - r->timeline[i - 1].t_ns,
					       &rows[i].break_before);
		rows[i].y_px = y;
	}
	return y + NT_SVG_SLOPE_PX + NT_SVG_BOTTOM_PX;
}

static const struct row *row_of(const struct row *rows, unsigned n, uint64_t frame)
{
	for (unsigned i = 0; i < n; i++)
		if (rows[i].seg->frame == frame)
			return &rows[i];
	return NULL;
}

static bool is_a2b(const struct nt_flow_result *r, const struct nt_tl_seg *s)
{
	return s->dir == r->first.dir;
}

/* How far a row's drawing reaches above and below its y: arrows slope, labels sit above them. */
static int reach_up_px(const struct nt_flow_result *r, const struct row *row)
{
	return (is_a2b(r, row->seg) ? 0 : NT_SVG_SLOPE_PX) + 26 - NT_SVG_SLOPE_PX / 2;
}

static int reach_down_px(const struct nt_flow_result *r, const struct row *row)
{
	return is_a2b(r, row->seg) ? NT_SVG_SLOPE_PX : 6;
}

static void draw_segment(FILE *out, const struct nt_flow_result *r, const struct row *row)
{
	const struct nt_tl_seg *s = row->seg;
	const struct nt_stall_episode *ep = &r->first;
	bool a2b = is_a2b(r, s);
	bool key = s->frame == ep->ack_frame || s->frame == ep->release_frame;
	const char *mark = s->frame == ep->held_frame	   ? ", held (H)"
			   : s->frame == ep->ack_frame	   ? ", late"
			   : s->frame == ep->release_frame ? ", released"
							   : "";
	int64_t d = s->t_ns - ep->held_t_ns;
	char label[48], rel[32], text[112];

	nt_view_tcp_label(s->flags, s->len, label, sizeof(label));
	snprintf(text, sizeof(text), "%s%s  %s%s ms", label, mark, d < 0 ? "" : "+",
		 nt_analysis_ms_str(d, rel));
	nt_view_svg_arrow(out, a2b, row->y_px, key, text);
}

static void draw_header(FILE *out, const struct nt_flow_result *r)
{
	const struct nt_stall_episode *ep = &r->first;
	char a[64], b[64], d[32], st[32];

	nt_analysis_episode_ends(r, ep, a, b);
	fprintf(out,
		"<text x=\"%d\" y=\"32\" text-anchor=\"middle\" class=\"title\">First stall of "
		"the worst flow: %s ms lost</text>\n",
		NT_SVG_PANEL_W / 2, nt_analysis_ms_str(ep->stall_ns, st));
	fprintf(out,
		"<text x=\"%d\" y=\"56\" text-anchor=\"middle\" class=\"note\">A sent %" PRIu32
		" B, then nothing; B&apos;s pure ACK came %s ms later (%s)</text>\n",
		NT_SVG_PANEL_W / 2, ep->held_len, nt_analysis_ms_str(ep->ack_delay_ns, d),
		nt_delack_name(ep->delack));
	nt_view_svg_participants(out, (const char *const[2]){ "A (held data)", "B" },
				 (const char *const[2]){ a, b });
}

static void draw_footer(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r,
			int height)
{
	char t[48], tot[32];

	fprintf(out,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"note\">times from the "
		"held segment (frame %" PRIu64 ", %s)</text>\n",
		NT_SVG_PANEL_W / 2, height - 40, r->first.held_frame,
		nt_analysis_utc_str(r->first.held_t_ns, t));
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"note\">this flow: %" PRIu32
		" stalls, %s ms lost; all flows: %" PRIu64 " stalls</text>\n",
		NT_SVG_PANEL_W / 2, height - 20, r->stalls, nt_analysis_ms_str(r->total_ns, tot),
		an->sum.stalls);
}

static void draw_stall(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r,
		       const struct row *rows, int height)
{
	const struct nt_stall_episode *ep = &r->first;
	const struct row *h = row_of(rows, r->n_timeline, ep->held_frame);
	const struct row *a = row_of(rows, r->n_timeline, ep->ack_frame);
	const int xs[2] = { NT_SVG_CLIENT_X, NT_SVG_TARGET_X };

	draw_header(out, r);
	if (h && a)
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			NT_SVG_CLIENT_X, h->y_px, NT_SVG_TARGET_X - NT_SVG_CLIENT_X,
			a->y_px - h->y_px, NT_VIEW_COLOR_STALL_FILL);
	for (int i = 0; i < 2; i++)
		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n",
			xs[i], NT_SVG_TOP_PX - 10, xs[i], height - NT_SVG_BOTTOM_PX + 6,
			NT_VIEW_COLOR_LIFELINE);
	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct row *row = &rows[i];

		if (row->break_before) {
			bool in_stall = h && a && row->y_px > h->y_px && row->y_px <= a->y_px;
			char label[48], note[80], st[32], gap[32];

			nt_analysis_ms_str(row->seg->t_ns - rows[i - 1].seg->t_ns, gap);
			snprintf(label, sizeof(label), "%s ms stall",
				 nt_analysis_ms_str(ep->stall_ns, st));
			if (in_stall)
				snprintf(note, sizeof(note), "gap %s ms: ACK delayed", gap);
			else
				snprintf(note, sizeof(note), "%s ms (not to scale)", gap);
			nt_view_svg_break(out, rows[i - 1].y_px + reach_down_px(r, &rows[i - 1]),
					  row->y_px - reach_up_px(r, row), in_stall, label, note);
		}
		draw_segment(out, r, row);
	}
	draw_footer(out, an, r, height);
}

static void draw_none(FILE *out, const struct nt_analysis *an)
{
	char th[32];

	fprintf(out,
		"<text x=\"%d\" y=\"48\" text-anchor=\"middle\" class=\"title\">nagle-trace "
		"analyze: no stalls found</text>\n",
		NT_SVG_PANEL_W / 2);
	fprintf(out,
		"<text x=\"%d\" y=\"84\" text-anchor=\"middle\" class=\"note\">%" PRIu64
		" packets, %" PRIu64 " TCP flow%s: no small write waited %s ms or more for a "
		"delayed ACK</text>\n",
		NT_SVG_PANEL_W / 2, an->sum.packets, an->sum.flows, an->sum.flows == 1 ? "" : "s",
		nt_analysis_ms_str(an->params.stall.threshold_ns, th));
}

int nt_analysis_svg_write(FILE *out, const struct nt_analysis *an, bool standalone)
{
	struct row rows[NT_TIMELINE_MAX];
	int worst = nt_analysis_worst_flow(an);
	const struct nt_flow_result *r = worst >= 0 ? an->flows[worst] : NULL;
	int height = r ? layout(r, rows) : 130;

	nt_view_svg_begin(out, NT_SVG_PANEL_W, height, "nagle-trace analyze ladder diagram",
			  standalone);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		NT_SVG_PANEL_W, height);
	if (r)
		draw_stall(out, an, r, rows, height);
	else
		draw_none(out, an);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int nt_render_analysis_svg(FILE *out, const struct nt_analysis *an,
			   const struct nt_analysis_view *v)
{
	(void)v;
	return nt_analysis_svg_write(out, an, true);
}
