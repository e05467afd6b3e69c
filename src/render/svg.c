// SPDX-License-Identifier: MIT
/*
 * svg.c - the live ladder diagram: one panel per run, each showing the
 * run's picked round (nt/render/ladder.h draws it), in a grid two panels
 * wide so the document stays slide-sized whatever the number of variants;
 * --compare puts two panels on one time axis.
 *
 * The capture is taken at the client, so a client segment's time is when it
 * left and a target segment's when it arrived: c->t arrows start at their
 * time, t->c arrows end at it. The system calls are ticks on the lifelines,
 * the header->ACK interval of a stall is shaded, and the ACK and the body it
 * releases are drawn in red.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nt/render/escape.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/ladder.h"
#include "nt/render/render.h"
#include "nt/render/svg.h"

/* A disturbed line is up to NT_PREDICT_TEXT_MAX characters: wrapped to the panel's width. */
#define DISTURBED_LINES 3
#define DISTURBED_COLS	96

/**
 * struct panel - one run's panel being described
 * @l: what the ladder draws
 * @round: the round shown
 * @title: @l's title (markup)
 * @subtitle: @l's subtitle (markup)
 * @footer: @l's footer line (markup)
 * @path: @l's second footer line with an RTT: the path (markup)
 * @cost: @l's third, a stalled round's cost on that path (markup)
 * @disturbed: the lines after those: the round's disturbed line, wrapped,
 *             or how many of the run's rounds were (markup)
 */
struct panel {
	struct nt_ladder l;
	const struct nt_round *round;
	char *title;
	char *subtitle;
	char footer[256];
	char *path;
	char *cost;
	char *disturbed[DISTURBED_LINES];
};

static void break_text(const struct nt_ladder *l, int64_t gap_ns, bool in_stall, char *label,
		       char *note, size_t len)
{
	const struct nt_round *r = l->ctx;
	char ms[NT_FMT_MS_LEN];

	snprintf(label, len, "%s ms stall", nt_fmt_ms_digits(r->gap_ns, 3, ms, sizeof(ms)));
	if (in_stall)
		snprintf(note, len, "body held by Nagle, ACK delayed");
	else
		snprintf(note, len, "%s ms (not to scale)",
			 nt_fmt_ms_digits(gap_ns, 3, ms, sizeof(ms)));
}

static void item_of(struct nt_ladder_item *it, const struct nt_event *e, int64_t t0, bool key)
{
	char label[64], rel[NT_FMT_MS_LEN];

	it->t_ns = e->t_ns;
	it->key = key;
	it->is_tick = e->kind == NT_EVENT_SYSCALL;
	if (it->is_tick) {
		it->from_left = e->sys.side == NT_SIDE_CLIENT;
		snprintf(it->text, sizeof(it->text), "%s = %" PRId64 "  +%s ms",
			 nt_label_call(e->sys.call), e->sys.bytes,
			 nt_fmt_ms_digits(e->t_ns - t0, 3, rel, sizeof(rel)));
	} else {
		it->from_left = e->seg.dir == NT_DIR_C2T;
		snprintf(it->text, sizeof(it->text), "%s  +%s ms",
			 nt_label_segment(&e->seg, label, sizeof(label)),
			 nt_fmt_ms_digits(e->t_ns - t0, 3, rel, sizeof(rel)));
	}
}

/* Markup with one escaped value in it: @before, @value escaped, @after. */
static char *markup(const char *before, const char *value, const char *after)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	fputs(before, f);
	nt_escape_xml(f, value);
	fputs(after, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void panel_fini(struct panel *p)
{
	free((void *)p->l.items);
	free(p->title);
	free(p->subtitle);
	free(p->path);
	free(p->cost);
	for (unsigned i = 0; i < DISTURBED_LINES; i++)
		free(p->disturbed[i]);
	memset(p, 0, sizeof(*p));
}

/* With an RTT: the arrows' flight, and the path and a stall's cost under the ladder. */
static int path_footers(struct panel *p, const struct nt_record_config *c, bool stalled)
{
	char line[192];

	p->l.oneway_ns = c->rtt_ns / 2;
	p->l.capture_right = c->capture_at && strcmp(c->capture_at, "target") == 0;
	p->path = markup("", nt_label_path(c, line, sizeof(line)), "");
	if (!p->path)
		return -ENOMEM;
	p->l.footer[1] = p->path;
	if (!stalled ||
	    !nt_label_stall_cost(c, p->round->gap_ns, p->round->gap_ns, line, sizeof(line))[0])
		return 0;
	p->cost = markup("stall cost: ", line, "");
	if (!p->cost)
		return -ENOMEM;
	p->l.footer[2] = p->cost;
	return 0;
}

/* The first footer slot free after the ones already set. */
static unsigned footers_used(const struct nt_ladder *l)
{
	unsigned n = 0;

	while (n < NT_LADDER_FOOTERS && l->footer[n])
		n++;
	return n;
}

/*
 * The round was played on a schedule the knobs do not allow (the programs
 * were not scheduled in time, nt_predict_observe()): the line the text and
 * JSON reports carry, wrapped at a space within DISTURBED_COLS, the last
 * line cut with an ellipsis if it still does not fit. A round that was not
 * disturbed in a run with others that were: how many.
 */
static int disturbed_footers(struct panel *p, const struct nt_record *run, const char *text)
{
	char all[NT_PREDICT_TEXT_MAX + 48];
	const char *s = all;
	unsigned slot = footers_used(&p->l);

	if (text && text[0])
		snprintf(all, sizeof(all), "disturbed: %s", text);
	else if (run->disturbed_rounds)
		snprintf(all, sizeof(all),
			 "disturbed: %u round%s of this run, judged on the schedule the programs "
			 "kept",
			 run->disturbed_rounds, run->disturbed_rounds == 1 ? "" : "s");
	else
		return 0;
	for (unsigned i = 0; i < DISTURBED_LINES && *s && slot < NT_LADDER_FOOTERS; i++) {
		size_t len = strlen(s), cut = len;
		char line[DISTURBED_COLS + 4];

		if (len > DISTURBED_COLS) {
			cut = DISTURBED_COLS;
			while (cut > DISTURBED_COLS / 2 && s[cut] != ' ')
				cut--;
		}
		if (i + 1 == DISTURBED_LINES && cut < len)
			snprintf(line, sizeof(line), "%.*s...", (int)(DISTURBED_COLS - 3), s);
		else
			snprintf(line, sizeof(line), "%.*s", (int)cut, s);
		p->disturbed[i] = markup("", line, "");
		if (!p->disturbed[i])
			return -ENOMEM;
		p->l.footer[slot++] = p->disturbed[i];
		s += cut;
		while (*s == ' ')
			s++;
	}
	return 0;
}

static int panel_init(struct panel *p, const struct nt_record *run, const struct nt_round_view *rv,
		      const char *disturbed)
{
	const struct nt_record_config *c = &run->cfg;
	const struct nt_round *r = rv->round;
	bool stalled = r->verdict == NT_VERDICT_STALLED;
	struct nt_ladder_item *items = calloc(rv->n ? rv->n : 1, sizeof(*items));
	int64_t t0 = nt_round_view_origin(rv);
	char tail[128], rtt[32], gap[32];

	memset(p, 0, sizeof(*p));
	p->round = r;
	p->l = (struct nt_ladder){
		.names = { "Client", "Target" },
		.addrs = { c->client_addr, c->target_addr },
		.items = items,
		.n = rv->n,
		.shade_from = stalled && r->marks.a >= 0 ? r->marks.h : -1,
		.shade_to = stalled && r->marks.h >= 0 ? r->marks.a : -1,
		.origin_ns = nt_round_view_origin(rv),
		.break_text = break_text,
		.footer = { p->footer },
		.ctx = r,
	};
	/* The verdict in its own tspan: the lesson page hides it until a class has guessed. */
	snprintf(tail, sizeof(tail), ": round %u of %u, <tspan class=\"nt-verdict\">%s</tspan>",
		 r->index, run->cfg.shape.rounds, nt_verdict_name(r->verdict));
	p->title = markup("", c->variant, tail);
	snprintf(tail, sizeof(tail),
		 "header %" PRIu32 " B + body %" PRIu32 " B, reply %" PRIu32 " B, Linux ",
		 c->shape.header_bytes, c->shape.body_bytes, c->shape.reply_bytes);
	p->subtitle = markup(tail, c->kernel, "");
	snprintf(p->footer, sizeof(p->footer),
		 "round trip %s, header&#8594;ACK %s; times from the round&apos;s first write, at "
		 "the %s",
		 nt_fmt_ms(r->rtt_ns, rtt, sizeof(rtt)), nt_fmt_ms(r->gap_ns, gap, sizeof(gap)),
		 c->capture_at && strcmp(c->capture_at, "target") == 0 ? "target" : "client");
	p->l.title = p->title;
	p->l.subtitle = p->subtitle;
	if ((c->rtt_ns > 0 && path_footers(p, c, stalled) < 0) ||
	    disturbed_footers(p, run, disturbed) < 0) {
		panel_fini(p);
		return -ENOMEM;
	}
	if (!items || !p->title || !p->subtitle) {
		panel_fini(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < rv->n; i++)
		item_of(&items[i], &rv->ev[i], t0,
			stalled && ((long)i == r->marks.a || (long)i == r->marks.b));
	return 0;
}

static void draw_empty(FILE *out, const struct nt_record *run)
{
	fprintf(out, "<text x=\"%d\" y=\"60\" text-anchor=\"middle\" class=\"title\">",
		NT_LADDER_PANEL_W / 2);
	nt_escape_xml(out, run->cfg.variant);
	fputs(": no round captured</text>\n", out);
}

static void panels_fini(struct panel *panels, unsigned n)
{
	for (unsigned i = 0; panels && i < n; i++)
		panel_fini(&panels[i]);
	free(panels);
}

/* Lays out one row of panels (@compare: on one time axis); its height. */
static int row_layout(struct panel *row, unsigned n, bool compare, struct nt_ladder_pos **pos)
{
	const struct nt_ladder *ls[NT_SVG_COLUMNS];
	int height = NT_LADDER_TOP_PX + 64;
	unsigned m = 0;

	for (unsigned i = 0; i < n; i++) {
		pos[i] = NULL;
		if (!row[i].round)
			continue;
		pos[i] = calloc(row[i].l.n ? row[i].l.n : 1, sizeof(*pos[i]));
		if (!pos[i])
			return -ENOMEM;
		ls[m] = &row[i].l;
		if (!compare) {
			int h = nt_ladder_layout(&ls[m], 1, &pos[i]);

			height = h > height ? h : height;
		}
		m++;
	}
	if (compare && m) {
		struct nt_ladder_pos *pm[NT_SVG_COLUMNS];
		int h;

		for (unsigned i = 0, j = 0; i < n; i++)
			if (pos[i])
				pm[j++] = pos[i];
		h = nt_ladder_layout(ls, m, pm);
		height = h > height ? h : height;
	}
	return height;
}

static void draw_row(FILE *out, const struct nt_record *runs, struct panel *row, unsigned first,
		     unsigned n, struct nt_ladder_pos **pos, int y, int height)
{
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "<g transform=\"translate(%d %d)\">\n", NT_LADDER_PANEL_W * (int)i, y);
		if (i)
			fprintf(out,
				"<line x1=\"0\" y1=\"12\" x2=\"0\" y2=\"%d\" stroke=\"#bbbbbb\" "
				"stroke-width=\"2\"/>\n",
				height - 12);
		if (y)
			fprintf(out,
				"<line x1=\"12\" y1=\"0\" x2=\"%d\" y2=\"0\" stroke=\"#bbbbbb\" "
				"stroke-width=\"2\"/>\n",
				NT_LADDER_PANEL_W - 12);
		if (row[i].round)
			nt_ladder_draw_at(out, &row[i].l, pos[i], height);
		else
			draw_empty(out, &runs[first + i]);
		fputs("</g>\n", out);
	}
}

static void pos_free(struct nt_ladder_pos **pos, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(pos[i]);
		pos[i] = NULL;
	}
}

int nt_svg_write(FILE *out, const struct nt_record *runs, const struct nt_pick *picks,
		 unsigned n_runs, bool compare, bool standalone)
{
	unsigned cols = n_runs < NT_SVG_COLUMNS ? (n_runs ? n_runs : 1) : NT_SVG_COLUMNS;
	unsigned n_rows = (n_runs + cols - 1) / cols;
	struct panel *panels = calloc(n_runs ? n_runs : 1, sizeof(*panels));
	int *heights = calloc(n_rows ? n_rows : 1, sizeof(*heights));
	struct nt_ladder_pos *pos[NT_SVG_COLUMNS] = { 0 };
	struct nt_round_view rv;
	int total = 0, y = 0;
	int ret = panels && heights ? 0 : -ENOMEM;

	for (unsigned i = 0; !ret && i < n_runs; i++)
		if (nt_pick_get(&picks[i], &rv))
			ret = panel_init(&panels[i], &runs[i], &rv, picks[i].disturbed);
	/* Two passes over the rows: the document's height first, then the drawing. */
	for (unsigned r = 0; !ret && r < n_rows; r++) {
		unsigned n = n_runs - r * cols < cols ? n_runs - r * cols : cols;

		heights[r] = row_layout(&panels[(size_t)r * cols], n, compare, pos);
		pos_free(pos, NT_SVG_COLUMNS);
		if (heights[r] < 0)
			ret = heights[r];
		total += heights[r];
	}
	if (ret)
		goto out;
	nt_ladder_svg_begin(out, NT_LADDER_PANEL_W * (int)cols, total ? total : 130,
			    "nagle-trace ladder diagram", standalone);
	for (unsigned r = 0; !ret && r < n_rows; r++) {
		unsigned n = n_runs - r * cols < cols ? n_runs - r * cols : cols;

		ret = row_layout(&panels[(size_t)r * cols], n, compare, pos);
		if (ret >= 0) {
			draw_row(out, runs, &panels[(size_t)r * cols], r * cols, n, pos, y,
				 heights[r]);
			ret = 0;
		}
		pos_free(pos, NT_SVG_COLUMNS);
		y += heights[r];
	}
	if (!ret)
		ret = nt_ladder_svg_end(out);
out:
	pos_free(pos, NT_SVG_COLUMNS);
	free(heights);
	panels_fini(panels, n_runs);
	return ret;
}

int nt_svg_round(FILE *out, const struct nt_record *run, const struct nt_round_view *rv)
{
	const struct nt_predict_round *pr = rv->predicted;
	struct panel p;
	int height, ret = panel_init(&p, run, rv, pr && pr->disturbed ? pr->disturbed_text : NULL);

	if (ret)
		return ret;
	p.l.steps = true;
	height = nt_ladder_height(&p.l);
	if (height < 0) {
		panel_fini(&p);
		return height;
	}
	nt_ladder_svg_begin(out, NT_LADDER_PANEL_W, height, "ladder diagram", false);
	ret = nt_ladder_draw(out, &p.l, height);
	panel_fini(&p);
	return ret < 0 ? ret : nt_ladder_svg_end(out);
}

/* The diagram needs only each run's picked round: that is all this format keeps. */
static int svg_open(struct nt_renderer *r)
{
	r->state = nt_picks_new(r->n_runs);
	return r->state ? 0 : -ENOMEM;
}

static void svg_close(struct nt_renderer *r)
{
	nt_picks_free(r->state, r->n_runs);
}

static int svg_round(struct nt_renderer *r, const struct nt_record *run,
		     const struct nt_round_view *rv)
{
	(void)run;
	return nt_picks_offer(r->state, r->n_runs, r->run, rv);
}

static int svg_finish(struct nt_renderer *r, const struct nt_record *runs, unsigned n_runs)
{
	return nt_svg_write(r->out, runs, r->state, n_runs, r->opts.compare, true);
}

const struct nt_trace_doc nt_svg_trace = {
	.open = svg_open,
	.round = svg_round,
	.finish = svg_finish,
	.close = svg_close,
};
