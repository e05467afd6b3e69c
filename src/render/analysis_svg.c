// SPDX-License-Identifier: MIT
/*
 * analysis_svg.c - the ladder diagram of one stall found by analyze: the
 * first stall of the worst flow (the one that lost the most time), drawn by
 * the same ladder as a live round (nt/render/ladder.h).
 *
 * A, the side whose data was held, stands where the live client does, on
 * the left; its segments start at their capture time and B's end at theirs,
 * as if captured at A. The capture point of an unknown capture may be
 * anywhere: the times are as captured. The H -> late ACK interval is
 * shaded; the ACK and the data it releases are drawn in red.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "nt/render/analysis.h"
#include "nt/render/fmt.h"
#include "nt/render/labels.h"
#include "nt/render/ladder.h"
#include "nt/render/pick.h"

static void break_text(const struct nt_ladder *l, int64_t gap_ns, bool in_stall, char *label,
		       char *note, size_t len)
{
	const struct nt_stall_episode *ep = l->ctx;
	char st[NT_FMT_MS_LEN], gap[NT_FMT_MS_LEN];

	nt_fmt_ms_trunc(gap_ns, gap, sizeof(gap));
	snprintf(label, len, "%s ms stall", nt_fmt_ms_trunc(ep->stall_ns, st, sizeof(st)));
	if (in_stall)
		snprintf(note, len, "gap %s ms: ACK delayed", gap);
	else
		snprintf(note, len, "%s ms (not to scale)", gap);
}

static const char *mark(const struct nt_stall_episode *ep, const struct nt_tl_seg *s)
{
	if (s->frame == ep->held_frame)
		return ", held (H)";
	if (s->frame == ep->ack_frame)
		return ", late";
	if (s->frame == ep->release_frame)
		return ", released";
	return "";
}

static void items_of(const struct nt_flow_result *r, struct nt_ladder *l,
		     struct nt_ladder_item *items)
{
	const struct nt_stall_episode *ep = &r->first;

	for (unsigned i = 0; i < r->n_timeline; i++) {
		const struct nt_tl_seg *s = &r->timeline[i];
		int64_t d = s->t_ns - ep->held_t_ns;
		char label[48], rel[NT_FMT_MS_LEN];

		items[i] = (struct nt_ladder_item){
			.t_ns = s->t_ns,
			.from_left = s->dir == ep->dir,
			.key = s->frame == ep->ack_frame || s->frame == ep->release_frame,
		};
		snprintf(items[i].text, sizeof(items[i].text), "%s%s  %s%s ms",
			 nt_label_tcp(s->flags, s->len, label, sizeof(label)), mark(ep, s),
			 d < 0 ? "" : "+", nt_fmt_ms_trunc(d, rel, sizeof(rel)));
		if (s->frame == ep->held_frame)
			l->shade_from = (long)i;
		if (s->frame == ep->ack_frame)
			l->shade_to = (long)i;
	}
}

int nt_analysis_svg_flow(FILE *out, const struct nt_analysis *an, const struct nt_flow_result *r,
			 bool standalone, bool steps)
{
	const struct nt_stall_episode *ep = &r->first;
	struct nt_ladder_item items[NT_TIMELINE_MAX];
	char a[NT_FMT_ENDPOINT_LEN], b[NT_FMT_ENDPOINT_LEN], d[NT_FMT_MS_LEN], st[NT_FMT_MS_LEN];
	char tot[2 * NT_FMT_MS_LEN], t[NT_FMT_UTC_LEN];
	char title[96], subtitle[160], footer[2][160];
	struct nt_ladder l = {
		.names = { "A (held data)", "B" },
		.addrs = { a, b },
		.items = items,
		.n = r->n_timeline,
		.shade_from = -1,
		.shade_to = -1,
		.break_text = break_text,
		.title = title,
		.subtitle = subtitle,
		.footer = { footer[0], footer[1] },
		.origin_ns = ep->held_t_ns,
		.steps = steps,
		.ctx = ep,
	};
	int height, ret;

	nt_label_episode_ends(r, ep, a, b, sizeof(a));
	items_of(r, &l, items);
	snprintf(title, sizeof(title), "First stall of %s flow: %s ms lost",
		 steps ? "this" : "the worst", nt_fmt_ms_trunc(ep->stall_ns, st, sizeof(st)));
	snprintf(subtitle, sizeof(subtitle),
		 "A sent %" PRIu32 " B, then nothing; B&apos;s pure ACK came %s ms later (%s)",
		 ep->held_len, nt_fmt_ms_trunc(ep->ack_delay_ns, d, sizeof(d)),
		 nt_delack_name(ep->delack));
	snprintf(footer[0], sizeof(footer[0]),
		 "times from the held segment (frame %" PRIu64 ", %s)", ep->held_frame,
		 nt_label_capture_time(an, r, ep->held_t_ns, t, sizeof(t)));
	snprintf(footer[1], sizeof(footer[1]),
		 "this flow: %" PRIu32 " stall%s, %s ms lost; all flows: %" PRIu64 " stall%s",
		 r->stalls, nt_plural(r->stalls),
		 nt_label_lost(r->wall_min.total_ns, r->wall.total_ns, tot, sizeof(tot)),
		 an->sum.stalls, nt_plural(an->sum.stalls));
	height = nt_ladder_height(&l);
	if (height < 0)
		return height;
	nt_ladder_svg_begin(out, NT_LADDER_PANEL_W, height, "nagle-trace analyze ladder diagram",
			    standalone);
	ret = nt_ladder_draw(out, &l, height);
	return ret < 0 ? ret : nt_ladder_svg_end(out);
}

static int draw_none(FILE *out, const struct nt_analysis *an, bool standalone)
{
	char th[NT_FMT_MS_LEN];

	nt_ladder_svg_begin(out, NT_LADDER_PANEL_W, 130, "nagle-trace analyze ladder diagram",
			    standalone);
	fprintf(out,
		"<text x=\"%d\" y=\"48\" text-anchor=\"middle\" class=\"title\">nagle-trace "
		"analyze: no stalls found</text>\n",
		NT_LADDER_PANEL_W / 2);
	fprintf(out,
		"<text x=\"%d\" y=\"84\" text-anchor=\"middle\" class=\"note\">%" PRIu64
		" packets, %" PRIu64 " TCP flow%s: no small write waited %s ms or more for a "
		"delayed ACK</text>\n",
		NT_LADDER_PANEL_W / 2, an->sum.packets, an->sum.flows,
		an->sum.flows == 1 ? "" : "s",
		nt_fmt_ms_trunc(an->params.stall.threshold_ns, th, sizeof(th)));
	return nt_ladder_svg_end(out);
}

int nt_analysis_svg_write(FILE *out, const struct nt_analysis *an, bool standalone)
{
	int worst = nt_pick_worst_flow(an);

	if (worst < 0)
		return draw_none(out, an, standalone);
	return nt_analysis_svg_flow(out, an, an->flows[worst], standalone, false);
}

int nt_render_analysis_svg(FILE *out, const struct nt_analysis *an,
			   const struct nt_analysis_view *v)
{
	(void)v;
	return nt_analysis_svg_write(out, an, true);
}
