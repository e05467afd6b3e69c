// SPDX-License-Identifier: MIT
/*
 * ladder.c - layout and drawing of the ladder diagram (see
 * nt/render/ladder.h for the layout rule).
 *
 * Layout is a sweep in time order over every panel drawn together. Each
 * item knows how far its drawing reaches above and below its y in each of
 * three lanes (left of the left lifeline, between the lifelines, right of
 * the right one); a lane remembers the lowest point drawn in it so far, and
 * an item goes where every lane it uses is clear, no higher than time order
 * and its gap to the previous item put it. A break band needs every lane of
 * its panel clear.
 *
 * With a flight time (--rtt), the sweep is the same, at each item's time at
 * the capture; an arrow's far end is found afterwards, at the height its
 * departure's or arrival's time has between the items around it (y_at()).
 * Its label moves beside the capture's lifeline and the bands' words beside
 * the other, where the long sloped lines cannot cross them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nt/clock.h"
#include "nt/render/escape.h"
#include "nt/render/ladder.h"
#include "ladder_int.h"

/* Font sizes of the CSS (ladder_svg.c), and the lanes. */
#define SEG_PX	     15
#define CALL_PX	     14
#define LANE_GAP_PX  4	/* clear space between two items' drawings in a lane */
#define LABEL_RISE   6	/* an arrow label's baseline above the arrow's higher end */
#define TICK_LABEL_X 14 /* a call's label from its lifeline */
#define FOOT_PX	     56 /* under the lifelines: up to two footer lines */
#define N_LANES	     3

enum lane { LANE_LEFT, LANE_MID, LANE_RIGHT };

static const int lifeline_x[2] = { NT_LADDER_LEFT_X, NT_LADDER_RIGHT_X };

/* How far an item's drawing reaches in each lane, relative to its y. */
struct extent {
	bool used[N_LANES];
	int top[N_LANES];
	int bot[N_LANES];
};

/*
 * Per mille of the font size, by character class, rounded up from DejaVu
 * Sans's advance widths (the widest font of the stack): '.' and ' ' 318,
 * 'i' 278, '(' 390, 't' 392, 'r' 411, '=' and '+' 838, 'm' 974, 'W' 989,
 * capitals up to 770, digits 636, other lower case up to 635.
 */
static int char_per_mille(unsigned char c)
{
	if ((c & 0xc0) == 0x80)
		return 0; /* a UTF-8 continuation byte: its lead byte counted the character */
	if (c >= 0x80 || strchr("=+<>~", c))
		return 840;
	if (strchr(" .,:;'!|ijl", c))
		return 320;
	if (strchr("()[]{}ftr-/", c))
		return 420;
	if (strchr("mwMW", c))
		return 990;
	if (c >= 'A' && c <= 'Z')
		return 780;
	return 640;
}

int nt_ladder_label_width_px(const char *text, int font_px, bool bold)
{
	long per_mille = 0;

	for (const char *p = text; *p; p++)
		per_mille += char_per_mille((unsigned char)*p);
	/* Bold DejaVu Sans is about 10% wider. */
	if (bold)
		per_mille = per_mille * 11 / 10;
	return (int)((per_mille * font_px + 999) / 1000);
}

static int ascent(int font_px)
{
	return font_px * 4 / 5;
}

static int descent(int font_px)
{
	return (font_px + 3) / 4;
}

/* A label beside a lifeline (a call's, or an arrow's with a flight): does it fit its side on one line? */
static bool side_fits(const struct nt_ladder_item *it, int font_px, bool bold)
{
	int room = NT_LADDER_LEFT_X - TICK_LABEL_X - 6;

	return nt_ladder_label_width_px(it->text, font_px, bold) <= room || !strstr(it->text, "  ");
}

static bool tick_fits(const struct nt_ladder_item *it)
{
	return side_fits(it, CALL_PX, false);
}

/* With a flight time, an arrow's label sits beside the capture's lifeline. */
static bool flying(const struct nt_ladder *l, const struct nt_ladder_item *it)
{
	return l->oneway_ns > 0 && !it->is_tick;
}

static void lane_use(struct extent *e, enum lane l, int top, int bot)
{
	e->used[l] = true;
	e->top[l] = top;
	e->bot[l] = bot;
}

static void extent_of(const struct nt_ladder *l, const struct nt_ladder_item *it, struct extent *e)
{
	memset(e, 0, sizeof(*e));
	if (flying(l, it)) {
		enum lane side = l->capture_right ? LANE_RIGHT : LANE_LEFT;

		if (side_fits(it, SEG_PX, it->key))
			lane_use(e, side, 5 - ascent(SEG_PX), 5 + descent(SEG_PX));
		else
			lane_use(e, side, -3 - ascent(SEG_PX), 14 + descent(SEG_PX));
		/* The line's end and its arrowhead at the capture's lifeline. */
		lane_use(e, LANE_MID, -5, 5);
		return;
	}
	if (it->is_tick) {
		enum lane side = it->from_left ? LANE_LEFT : LANE_RIGHT;

		if (tick_fits(it))
			lane_use(e, side, 5 - ascent(CALL_PX), 5 + descent(CALL_PX));
		else
			lane_use(e, side, -3 - ascent(CALL_PX), 14 + descent(CALL_PX));
		/* The tick reaches 8 px into the middle lane. */
		lane_use(e, LANE_MID, -2, 2);
		return;
	}
	int top_y = it->from_left ? 0 : -NT_LADDER_SLOPE_PX;
	int label_top = top_y - LABEL_RISE - ascent(SEG_PX);
	int w = nt_ladder_label_width_px(it->text, SEG_PX, it->key);

	/* Arrowheads are 8 px: 4 below the line's end. */
	lane_use(e, LANE_MID, label_top, top_y + NT_LADDER_SLOPE_PX + 4);
	if (w > NT_LADDER_RIGHT_X - NT_LADDER_LEFT_X - 8) {
		/* A label wider than the lane spills over both lifelines. */
		lane_use(e, LANE_LEFT, label_top, top_y - LABEL_RISE + descent(SEG_PX));
		lane_use(e, LANE_RIGHT, label_top, top_y - LABEL_RISE + descent(SEG_PX));
	}
}

static int advance_px(int64_t gap_ns)
{
	int64_t extra_px;

	if (gap_ns < 0)
		gap_ns = 0;
	extra_px = gap_ns / NT_NS_PER_US * NT_LADDER_SCALE_PX_PER_US;
	if (extra_px > NT_LADDER_SCALE_MAX_PX)
		extra_px = NT_LADDER_SCALE_MAX_PX;
	return NT_LADDER_MIN_ADVANCE_PX + (int)extra_px;
}

/* One panel's sweep state. */
struct cursor {
	size_t next;
	int bot[N_LANES];
	int64_t last_rel_ns;
};

static int lanes_max(const struct cursor *c)
{
	int m = c->bot[0];

	for (int i = 1; i < N_LANES; i++)
		if (c->bot[i] > m)
			m = c->bot[i];
	return m;
}

/* The panel whose next item comes first from its origin (the lower index on a tie); -1: done. */
static int next_panel(const struct nt_ladder *const *ls, unsigned n, const struct cursor *cur)
{
	int best = -1;
	int64_t best_rel = 0;

	for (unsigned k = 0; k < n; k++) {
		int64_t rel;

		if (cur[k].next >= ls[k]->n)
			continue;
		rel = ls[k]->items[cur[k].next].t_ns - ls[k]->origin_ns;
		if (best < 0 || rel < best_rel) {
			best = (int)k;
			best_rel = rel;
		}
	}
	return best;
}

/* Places one item of panel @c below what its lanes hold: its y. */
static int place(struct cursor *c, const struct extent *e, int y_min, bool band,
		 struct nt_ladder_pos *p)
{
	int floor_all = lanes_max(c) + NT_LADDER_BREAK_PX;
	int y = y_min;
	int top_min = 0;
	bool first = true;

	p->band_top = -1;
	p->band_bottom = -1;
	for (int l = 0; l < N_LANES; l++) {
		int floor = band ? floor_all : c->bot[l] + LANE_GAP_PX;

		if (!e->used[l])
			continue;
		if (y < floor - e->top[l])
			y = floor - e->top[l];
		if (first || e->top[l] < top_min)
			top_min = e->top[l];
		first = false;
	}
	if (band) {
		p->band_top = lanes_max(c);
		p->band_bottom = y + top_min;
		for (int l = 0; l < N_LANES; l++)
			if (c->bot[l] < floor_all - LANE_GAP_PX)
				c->bot[l] = floor_all - LANE_GAP_PX;
	}
	for (int l = 0; l < N_LANES; l++)
		if (e->used[l] && y + e->bot[l] > c->bot[l])
			c->bot[l] = y + e->bot[l];
	p->y = y;
	return y;
}

/*
 * The height of the moment @t_ns on panel @l: between the heights of the
 * items around it, in proportion to the time (a break band stands for its
 * gap); no higher than the first item, and at most a slope below the last.
 */
static int y_at(const struct nt_ladder *l, const struct nt_ladder_pos *pos, int64_t t_ns)
{
	const struct nt_ladder_item *it = l->items;
	int64_t span_ns;
	size_t k = 0;
	int extra;

	if (!l->n)
		return NT_LADDER_TOP_PX;
	if (t_ns <= it[0].t_ns)
		return pos[0].y;
	while (k + 1 < l->n && it[k + 1].t_ns <= t_ns)
		k++;
	if (t_ns == it[k].t_ns)
		return pos[k].y;
	if (k + 1 == l->n) {
		extra = advance_px(t_ns - it[k].t_ns);
		return pos[k].y + (extra < NT_LADDER_SLOPE_PX ? extra : NT_LADDER_SLOPE_PX);
	}
	span_ns = it[k + 1].t_ns - it[k].t_ns;
	return pos[k].y + (int)((int64_t)(pos[k + 1].y - pos[k].y) * (t_ns - it[k].t_ns) / span_ns);
}

/* Each item's two ends: an arrow's departure and arrival heights. */
static void ends_of(const struct nt_ladder *l, struct nt_ladder_pos *pos)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct nt_ladder_item *it = &l->items[i];
		struct nt_ladder_pos *p = &pos[i];
		bool from_capture = it->from_left != l->capture_right;

		if (it->is_tick) {
			p->y_from = p->y_to = p->y;
		} else if (!l->oneway_ns) {
			p->y_from = it->from_left ? p->y : p->y - NT_LADDER_SLOPE_PX;
			p->y_to = p->y_from + NT_LADDER_SLOPE_PX;
		} else if (from_capture) {
			/* Seen leaving: it arrives a flight later. */
			p->y_from = p->y;
			p->y_to = y_at(l, pos, it->t_ns + l->oneway_ns);
		} else {
			/* Seen arriving: it left a flight earlier. */
			p->y_from = y_at(l, pos, it->t_ns - l->oneway_ns);
			p->y_to = p->y;
		}
	}
}

static int footers(const struct nt_ladder *l)
{
	int n = 0;

	while (n < NT_LADDER_FOOTERS && l->footer[n])
		n++;
	return n;
}

int nt_ladder_layout(const struct nt_ladder *const *ls, unsigned n,
		     struct nt_ladder_pos *const *pos)
{
	int foot_px = FOOT_PX;
	struct cursor cur[8];
	int64_t prev_rel = 0;
	int prev_y = 0, bottom = NT_LADDER_TOP_PX;
	bool any = false;
	int k;

	if (n > sizeof(cur) / sizeof(cur[0]))
		n = sizeof(cur) / sizeof(cur[0]);
	for (unsigned i = 0; i < n; i++)
		cur[i] = (struct cursor){ .bot = { NT_LADDER_TOP_PX, NT_LADDER_TOP_PX,
						   NT_LADDER_TOP_PX } };
	while ((k = next_panel(ls, n, cur)) >= 0) {
		struct cursor *c = &cur[k];
		size_t i = c->next++;
		const struct nt_ladder_item *it = &ls[k]->items[i];
		int64_t rel = it->t_ns - ls[k]->origin_ns;
		bool band = i > 0 && rel - c->last_rel_ns >= NT_LADDER_BREAK_NS;
		struct extent e;

		extent_of(ls[k], it, &e);
		prev_y = place(c, &e, any ? prev_y + advance_px(rel - prev_rel) : 0, band,
			       &pos[k][i]);
		prev_rel = rel;
		c->last_rel_ns = rel;
		any = true;
	}
	for (unsigned i = 0; i < n; i++) {
		if (lanes_max(&cur[i]) > bottom)
			bottom = lanes_max(&cur[i]);
		ends_of(ls[i], pos[i]);
		/* An arrow may land below the last item: the arrowhead's 4 px with it. */
		for (size_t j = 0; j < ls[i]->n; j++)
			if (pos[i][j].y_to + 4 > bottom)
				bottom = pos[i][j].y_to + 4;
		if (footers(ls[i]) > 2)
			foot_px = FOOT_PX + 20 * (footers(ls[i]) - 2);
	}
	return bottom + 8 + foot_px;
}

int nt_ladder_height(const struct nt_ladder *l)
{
	struct nt_ladder_pos *pos = calloc(l->n ? l->n : 1, sizeof(*pos));
	int height;

	if (!pos)
		return -ENOMEM;
	height = nt_ladder_layout(&l, 1, &pos);
	free(pos);
	return height;
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

/* A label beside a lifeline, split over two lines at its double space when too wide for its side. */
static void side_label(FILE *out, const struct nt_ladder_item *it, bool left, int y_px, bool fits,
		       const char *class, const char *fill)
{
	int x = left ? NT_LADDER_LEFT_X : NT_LADDER_RIGHT_X;
	int tx = left ? x - TICK_LABEL_X : x + TICK_LABEL_X;
	const char *split = fits ? NULL : strstr(it->text, "  ");

	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" class=\"%s\"", tx,
		split ? y_px - 3 : y_px + 5, left ? "end" : "start", class);
	if (fill)
		fprintf(out, " fill=\"%s\"", fill);
	fputc('>', out);
	if (split) {
		/* The first part on one line, the time under it. */
		fprintf(out, "%.*s<tspan x=\"%d\" dy=\"17\">", (int)(split - it->text), it->text,
			tx);
		nt_escape_xml(out, split + 2);
		fputs("</tspan>", out);
	} else {
		nt_escape_xml(out, it->text);
	}
	fputs("</text>\n", out);
}

/* An arrow with a flight: from its departure's height to its arrival's; its label beside the capture. */
static void draw_flight(FILE *out, const struct nt_ladder *l, const struct nt_ladder_item *it,
			const struct nt_ladder_pos *p)
{
	bool ltr = it->from_left;
	int x1 = ltr ? NT_LADDER_LEFT_X : NT_LADDER_RIGHT_X;
	int x2 = ltr ? NT_LADDER_RIGHT_X - 2 : NT_LADDER_LEFT_X + 2;
	const char *color = it->key ? COLOR_STALL : ltr ? COLOR_LEFT : COLOR_RIGHT;

	fprintf(out,
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%d\" "
		"marker-end=\"url(#nt-head-%s)\"/>\n",
		x1, p->y_from, x2, p->y_to, color, it->key ? 3 : 2,
		it->key ? "key"
		: ltr	? "c2t"
			: "t2c");
	side_label(out, it, !l->capture_right, p->y, side_fits(it, SEG_PX, it->key),
		   it->key ? "seg key" : "seg", color);
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
	/* Above the higher end (y1), so the line never crosses its own label. */
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"seg%s\" fill=\"%s\">",
		(x1 + x2) / 2, y1 - LABEL_RISE, it->key ? " key" : "", color);
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
	side_label(out, it, it->from_left, y_px, tick_fits(it), "call", NULL);
}

/*
 * Two slanted strokes interrupt each lifeline; the gap's length sits between
 * them, or, when arrows fly across the band (@anchor not "middle"), beside
 * the lifeline away from the capture: "start" right of the right one, "end"
 * left of the left one.
 */
static void draw_break(FILE *out, int y_top, int y_bottom, bool stall, const char *label,
		       const char *note, const char *anchor)
{
	int mid = (y_top + y_bottom) / 2;
	const char *split;
	int x_mid = strcmp(anchor, "start") == 0 ? NT_LADDER_RIGHT_X + TICK_LABEL_X
		    : strcmp(anchor, "end") == 0 ? NT_LADDER_LEFT_X - TICK_LABEL_X
						 : (NT_LADDER_LEFT_X + NT_LADDER_RIGHT_X) / 2;

	for (int i = 0; i < 2; i++) {
		fprintf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"12\" fill=\"%s\"/>\n"
			"<path d=\"M%d %d l24 -8 M%d %d l24 -8\" stroke=\"%s\" stroke-width=\"2\" "
			"fill=\"none\"/>\n",
			lifeline_x[i] - 12, mid - 6, stall ? COLOR_STALL_FILL : "#ffffff",
			lifeline_x[i] - 12, mid - 2, lifeline_x[i] - 12, mid + 10, COLOR_LIFELINE);
	}
	if (stall) {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" class=\"stall\">", x_mid,
			mid - 6, anchor);
		nt_escape_xml(out, label);
		fprintf(out, "</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" class=\"note\">",
			x_mid, mid + 16, anchor);
	} else {
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" class=\"note\">", x_mid,
			mid + 5, anchor);
	}
	split = strcmp(anchor, "middle") != 0 && nt_ladder_label_width_px(note, CALL_PX, false) >
							 NT_LADDER_LEFT_X - TICK_LABEL_X - 6
			? strstr(note, ", ")
			: NULL;
	if (split) {
		/* Beside a lifeline, too wide for its side: over two lines. */
		char first[96];

		snprintf(first, sizeof(first), "%.*s,", (int)(split - note), note);
		nt_escape_xml(out, first);
		fprintf(out, "<tspan x=\"%d\" dy=\"17\">", x_mid);
		nt_escape_xml(out, split + 2);
		fputs("</tspan>", out);
	} else {
		nt_escape_xml(out, note);
	}
	fputs("</text>\n", out);
}

static void draw_items(FILE *out, const struct nt_ladder *l, const struct nt_ladder_pos *pos)
{
	bool shaded = l->shade_from >= 0 && l->shade_to >= 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct nt_ladder_item *it = &l->items[i];
		const struct nt_ladder_pos *p = &pos[i];

		if (l->steps)
			fprintf(out, "<g class=\"nt-st\" data-step=\"%zu\">\n", i + 1);
		if (i && p->band_top >= 0) {
			bool in_stall = shaded && p->y > pos[l->shade_from].y &&
					p->y <= pos[l->shade_to].y;
			char label[64], note[96];

			l->break_text(l, it->t_ns - l->items[i - 1].t_ns, in_stall, label, note,
				      sizeof(label));
			draw_break(out, p->band_top, p->band_bottom, in_stall, label, note,
				   !l->oneway_ns      ? "middle"
				   : l->capture_right ? "end"
						      : "start");
		}
		if (it->is_tick)
			draw_tick(out, it, p->y);
		else if (flying(l, it))
			draw_flight(out, l, it, p);
		else
			draw_arrow(out, it, p->y);
		if (l->steps)
			fputs("</g>\n", out);
	}
}

void nt_ladder_draw_at(FILE *out, const struct nt_ladder *l, const struct nt_ladder_pos *pos,
		       int height)
{
	int n_footer = footers(l);

	text_line(out, 32, "title", l->title);
	text_line(out, 56, "note", l->subtitle);
	draw_participants(out, l);
	if (l->shade_from >= 0 && l->shade_to >= 0) {
		fputs("<rect class=\"nt-shade\"", out);
		if (l->steps)
			fprintf(out, " data-step=\"%ld\"", l->shade_to + 1);
		fprintf(out, " x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
			NT_LADDER_LEFT_X, pos[l->shade_from].y,
			NT_LADDER_RIGHT_X - NT_LADDER_LEFT_X,
			pos[l->shade_to].y - pos[l->shade_from].y, COLOR_STALL_FILL);
	}
	for (int i = 0; i < 2; i++)
		fprintf(out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			"stroke-width=\"2\"/>\n",
			lifeline_x[i], NT_LADDER_TOP_PX - 10, lifeline_x[i],
			height - FOOT_PX - (n_footer > 2 ? 20 * (n_footer - 2) : 0),
			COLOR_LIFELINE);
	draw_items(out, l, pos);
	for (int i = 0; i < n_footer; i++)
		text_line(out, height - 12 - 20 * (n_footer - 1 - i), "note", l->footer[i]);
}

int nt_ladder_draw(FILE *out, const struct nt_ladder *l, int height)
{
	struct nt_ladder_pos *pos = calloc(l->n ? l->n : 1, sizeof(*pos));

	if (!pos)
		return -ENOMEM;
	nt_ladder_layout(&l, 1, &pos);
	nt_ladder_draw_at(out, l, pos, height);
	free(pos);
	return 0;
}
