// SPDX-License-Identifier: MIT
/*
 * ladder.c - layout and drawing of the ladder diagram (see
 * nt/render/ladder.h for the layout rule).
 */
#include <errno.h>
#include <stdlib.h>

#include "nt/clock.h"
#include "nt/render/escape.h"
#include "nt/render/ladder.h"

/* The look: dark on white, blue one way, brown the other, red for a stall. */
#define FONT_STACK                                                                             \
	"system-ui, -apple-system, &apos;Segoe UI&apos;, Roboto, &apos;Helvetica Neue&apos;, " \
	"Arial, &apos;DejaVu Sans&apos;, sans-serif"
#define COLOR_TEXT	 "#111111"
#define COLOR_LEFT	 "#0b3d91"
#define COLOR_RIGHT	 "#8a3b00"
#define COLOR_STALL	 "#b00020"
#define COLOR_STALL_FILL "#fde3e6"
#define COLOR_LIFELINE	 "#444444"

static const int lifeline_x[2] = { NT_LADDER_LEFT_X, NT_LADDER_RIGHT_X };

int nt_ladder_advance_px(int64_t gap_ns, bool *is_break)
{
	int64_t extra_px;

	if (gap_ns < 0)
		gap_ns = 0;
	*is_break = gap_ns >= NT_LADDER_BREAK_NS;
	if (*is_break)
		return NT_LADDER_BREAK_PX;
	extra_px = gap_ns / NT_NS_PER_US * NT_LADDER_SCALE_PX_PER_US;
	if (extra_px > NT_LADDER_SCALE_MAX_PX)
		extra_px = NT_LADDER_SCALE_MAX_PX;
	return NT_LADDER_ROW_PX + (int)extra_px;
}

int nt_ladder_layout(const struct nt_ladder *l, int *y_px)
{
	int y = NT_LADDER_TOP_PX + NT_LADDER_SLOPE_PX + 8;
	bool is_break;

	for (size_t i = 0; i < l->n; i++) {
		if (i)
			y += nt_ladder_advance_px(l->items[i].t_ns - l->items[i - 1].t_ns,
						  &is_break);
		y_px[i] = y;
	}
	return y + NT_LADDER_SLOPE_PX + NT_LADDER_BOTTOM_PX;
}

int nt_ladder_height(const struct nt_ladder *l)
{
	int *y = calloc(l->n ? l->n : 1, sizeof(*y));
	int height;

	if (!y)
		return -ENOMEM;
	height = nt_ladder_layout(l, y);
	free(y);
	return height;
}

/* How far an item's drawing reaches above and below its y: arrows slope, labels sit above them. */
static int reach_up_px(const struct nt_ladder_item *it)
{
	if (it->is_tick)
		return 10;
	return (it->from_left ? 0 : NT_LADDER_SLOPE_PX) + 26 - NT_LADDER_SLOPE_PX / 2;
}

static int reach_down_px(const struct nt_ladder_item *it)
{
	return !it->is_tick && it->from_left ? NT_LADDER_SLOPE_PX : 6;
}

static void text_line(FILE *out, int y, const char *class, const char *markup)
{
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"%s\">%s</text>\n",
		NT_LADDER_PANEL_W / 2, y, class, markup);
}

static void draw_participants(FILE *out, const struct nt_ladder *l)
{
	for (int i = 0; i < 2; i++) {
		fprintf(out,
			"<rect x=\"%d\" y=\"70\" width=\"180\" height=\"44\" rx=\"6\" "
			"fill=\"#f2f2f2\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			lifeline_x[i] - 90, COLOR_TEXT);
		fprintf(out, "<text x=\"%d\" y=\"89\" text-anchor=\"middle\" class=\"who\">",
			lifeline_x[i]);
		nt_escape_xml(out, l->names[i]);
		fprintf(out,
			"</text>\n<text x=\"%d\" y=\"107\" text-anchor=\"middle\" class=\"addr\">",
			lifeline_x[i]);
		nt_escape_xml(out, l->addrs[i]);
		fputs("</text>\n", out);
	}
}

static void draw_arrow(FILE *out, const struct nt_ladder_item *it, int y_px)
{
	bool ltr = it->from_left;
	int x1 = ltr ? NT_LADDER_LEFT_X : NT_LADDER_RIGHT_X;
	int x2 = ltr ? NT_LADDER_RIGHT_X : NT_LADDER_LEFT_X;
	int y1 = ltr ? y_px : y_px - NT_LADDER_SLOPE_PX;
	int y2 = y1 + NT_LADDER_SLOPE_PX;
	/* Stop short of the lifeline so the arrowhead's tip touches it. */
	int x2_line = x2 + (ltr ? -2 : 2);
	const char *color = it->key ? COLOR_STALL : ltr ? COLOR_LEFT : COLOR_RIGHT;
	const char *head = it->key ? "key" : ltr ? "c2t" : "t2c";

	fprintf(out,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%d\" "
		"marker-end=\"url(#nt-head-%s)\"/>\n",
		x1, y1, x2_line, y2, color, it->key ? 3 : 2, head);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"seg%s\" fill=\"%s\">",
		(x1 + x2) / 2, (y1 + y2) / 2 - 7, it->key ? " key" : "", color);
	nt_escape_xml(out, it->text);
	fputs("</text>\n", out);
}

static void draw_tick(FILE *out, const struct nt_ladder_item *it, int y_px)
{
	int x = it->from_left ? NT_LADDER_LEFT_X : NT_LADDER_RIGHT_X;

	fprintf(out,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
		"stroke-width=\"3\"/>\n",
		x - 8, y_px, x + 8, y_px, COLOR_TEXT);
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" class=\"call\">",
		it->from_left ? x - 14 : x + 14, y_px + 5, it->from_left ? "end" : "start");
	nt_escape_xml(out, it->text);
	fputs("</text>\n", out);
}

/* Two slanted strokes interrupt each lifeline; the gap's length sits between them. */
static void draw_break(FILE *out, int y_top, int y_bottom, bool stall, const char *label,
		       const char *note)
{
	int mid = (y_top + y_bottom) / 2;
	int x_mid = (NT_LADDER_LEFT_X + NT_LADDER_RIGHT_X) / 2;

	for (int i = 0; i < 2; i++) {
		fprintf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"12\" fill=\"%s\"/>\n"
			"<path d=\"M%d %d l24 -8 M%d %d l24 -8\" stroke=\"%s\" stroke-width=\"2\" "
			"fill=\"none\"/>\n",
			lifeline_x[i] - 12, mid - 6, stall ? COLOR_STALL_FILL : "#ffffff",
			lifeline_x[i] - 12, mid - 2, lifeline_x[i] - 12, mid + 10, COLOR_LIFELINE);
	}
	if (stall) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"stall\">",
			x_mid, mid - 8);
		nt_escape_xml(out, label);
		fprintf(out,
			"</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"note\">",
			x_mid, mid + 14);
	} else {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"note\">",
			x_mid, mid + 5);
	}
	nt_escape_xml(out, note);
	fputs("</text>\n", out);
}

static void draw_items(FILE *out, const struct nt_ladder *l, const int *y)
{
	bool shaded = l->shade_from >= 0 && l->shade_to >= 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct nt_ladder_item *it = &l->items[i];
		int64_t gap_ns = i ? it->t_ns - l->items[i - 1].t_ns : 0;
		bool is_break = false;

		if (i)
			nt_ladder_advance_px(gap_ns, &is_break);
		if (is_break) {
			bool in_stall = shaded && y[i] > y[l->shade_from] && y[i] <= y[l->shade_to];
			char label[64], note[96];

			l->break_text(l, gap_ns, in_stall, label, note, sizeof(label));
			draw_break(out, y[i - 1] + reach_down_px(&l->items[i - 1]),
				   y[i] - reach_up_px(it), in_stall, label, note);
		}
		if (it->is_tick)
			draw_tick(out, it, y[i]);
		else
			draw_arrow(out, it, y[i]);
	}
}

int nt_ladder_draw(FILE *out, const struct nt_ladder *l, int height)
{
	int *y = calloc(l->n ? l->n : 1, sizeof(*y));
	int n_footer = l->footer[1] ? 2 : l->footer[0] ? 1 : 0;

	if (!y)
		return -ENOMEM;
	nt_ladder_layout(l, y);
	text_line(out, 32, "title", l->title);
	text_line(out, 56, "note", l->subtitle);
	draw_participants(out, l);
	if (l->shade_from >= 0 && l->shade_to >= 0)
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			NT_LADDER_LEFT_X, y[l->shade_from], NT_LADDER_RIGHT_X - NT_LADDER_LEFT_X,
			y[l->shade_to] - y[l->shade_from], COLOR_STALL_FILL);
	for (int i = 0; i < 2; i++)
		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n",
			lifeline_x[i], NT_LADDER_TOP_PX - 10, lifeline_x[i],
			height - NT_LADDER_BOTTOM_PX + 6, COLOR_LIFELINE);
	draw_items(out, l, y);
	for (int i = 0; i < n_footer; i++)
		text_line(out, height - 20 * (n_footer - i), "note", l->footer[i]);
	free(y);
	return 0;
}

static void svg_defs(FILE *out)
{
	static const struct {
		const char *id, *color;
	} heads[] = { { "c2t", COLOR_LEFT }, { "t2c", COLOR_RIGHT }, { "key", COLOR_STALL } };

	fputs("<defs>\n", out);
	for (unsigned i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		fprintf(out,
			"<marker id=\"nt-head-%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
			"markerWidth=\"8\" markerHeight=\"8\" markerUnits=\"userSpaceOnUse\" "
			"orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" fill=\"%s\"/></marker>\n",
			heads[i].id, heads[i].color);
	fputs("</defs>\n", out);
	fputs("<style>\n"
	      ".nt-ladder text { font-family: " FONT_STACK "; fill: " COLOR_TEXT
	      "; font-size: 15px; }\n"
	      ".nt-ladder .title { font-size: 20px; font-weight: bold; }\n"
	      ".nt-ladder .who { font-size: 16px; font-weight: bold; }\n"
	      ".nt-ladder .addr, .nt-ladder .note, .nt-ladder .call { font-size: 14px; }\n"
	      ".nt-ladder .seg { font-size: 15px; paint-order: stroke; stroke: #ffffff; "
	      "stroke-width: 5px; stroke-linejoin: round; }\n"
	      ".nt-ladder .seg.key { font-weight: bold; fill: " COLOR_STALL "; }\n"
	      ".nt-ladder .stall { font-size: 17px; font-weight: bold; fill: " COLOR_STALL "; }\n"
	      "</style>\n",
	      out);
}

void nt_ladder_svg_begin(FILE *out, int width, int height, const char *title, bool standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"nt-ladder\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<title>",
		width, height, width, height);
	nt_escape_xml(out, title);
	fputs("</title>\n", out);
	svg_defs(out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width,
		height);
}

int nt_ladder_svg_end(FILE *out)
{
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
